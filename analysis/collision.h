/* collision: declared in include/kinegraph/analysis.h (the public API); the
 * shapes it holds are internal (convex.h, trimesh.h). */
#ifndef KG_COLLISION_H
#define KG_COLLISION_H

#include "analysis/convex.h"
#include "analysis/trimesh.h"
#include "formats/mesh.h"
#include "kinegraph/analysis.h"

/* Geom g of model m as a convex shape in its link's frame (c->link is left 0
 * for the caller): a primitive as it is, a mesh as its scaled vertices' hull,
 * *verts (when verts is not NULL) receiving those vertices (3 per vertex, the
 * caller frees). Returns 0, 1 when the geom has no shape (its mesh does not
 * resolve or cannot be read; the caller says what it does without), -1 out of
 * memory. */
int kg_geom_convex(const kg_model *m, int g, kg_mesh_cache *meshes, kg_convex *c, double **verts, kg_diags *d);

#endif
