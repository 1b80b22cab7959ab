/* validity: declared in include/kinegraph/analysis.h (the public API). */
#ifndef KG_VALIDITY_H
#define KG_VALIDITY_H

#include "formats/mesh.h"
#include "kinegraph/analysis.h"

#endif
