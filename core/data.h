/* data: declared in include/kinegraph/model.h (the public API). */
#ifndef KG_DATA_H
#define KG_DATA_H

#include "kinegraph/model.h"

#endif
