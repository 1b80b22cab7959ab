/* solid: declared in include/kinegraph/analysis.h (the public API). */
#ifndef KG_SOLID_H
#define KG_SOLID_H

#include "kinegraph/analysis.h"

#endif
