/* collision: declared in include/kinegraph/analysis.h (the public API); the
 * shapes it holds are internal (convex.h, trimesh.h). */
#ifndef KG_COLLISION_H
#define KG_COLLISION_H

#include "analysis/convex.h"
#include "analysis/trimesh.h"
#include "formats/mesh.h"
#include "kinegraph/analysis.h"

#endif
