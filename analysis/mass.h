/* mass: declared in include/kinegraph/analysis.h (the public API). */
#ifndef KG_MASS_H
#define KG_MASS_H

#include "formats/mesh.h"
#include "kinegraph/analysis.h"

#endif
