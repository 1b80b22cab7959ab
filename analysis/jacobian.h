/* jacobian: declared in include/kinegraph/kinematics.h (the public API). */
#ifndef KG_JACOBIAN_H
#define KG_JACOBIAN_H

#include "kinegraph/kinematics.h"

#endif
