/* motion: declared in include/kinegraph/model.h (the public API). */
#ifndef KG_MOTION_H
#define KG_MOTION_H

#include "kinegraph/model.h"

#endif
