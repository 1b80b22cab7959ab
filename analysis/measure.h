/* measure: declared in include/kinegraph/analysis.h (the public API). */
#ifndef KG_MEASURE_H
#define KG_MEASURE_H

#include "kinegraph/analysis.h"

#endif
