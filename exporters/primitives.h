/* Primitives as triangle lists (exporters/primitives.c). */
#ifndef KG_PRIMITIVES_H
#define KG_PRIMITIVES_H

#include "core/model.h"

/* A triangle list under construction: v [3 nv] vertices, t [3 nt] indices
 * (malloc'd; the caller frees v and t). Start from {0}. */
typedef struct kg_tris {
    double *v;
    int *t;
    int nv, nt, capv, capt;
    int failed; /* memory ran out: the list is empty, and stays so */
} kg_tris;

/* Appends the triangles of a primitive geom in its own frame (counter-clockwise
 * seen from outside); nothing for meshes. 0, or -1 when memory runs out (s is
 * then empty and failed). */
int kg_primitive_tris(const kg_geom *G, kg_tris *s);

#endif
