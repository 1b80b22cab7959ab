/* manipulability: declared in include/kinegraph/kinematics.h (the public API). */
#ifndef KG_MANIPULABILITY_H
#define KG_MANIPULABILITY_H

#include "kinegraph/kinematics.h"

#endif
