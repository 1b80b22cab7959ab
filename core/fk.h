/* fk: declared in include/kinegraph/kinematics.h (the public API). */
#ifndef KG_FK_H
#define KG_FK_H

#include "kinegraph/kinematics.h"

#endif
