/* ik: declared in include/kinegraph/kinematics.h (the public API). */
#ifndef KG_IK_H
#define KG_IK_H

#include "kinegraph/kinematics.h"

#endif
