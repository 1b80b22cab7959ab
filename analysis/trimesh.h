/* Exact contact tests on triangle meshes: what a convex hull only bounds. A
 * concave link (JVRC-1's pelvis, whose hull covers the hip joints' sockets)
 * collides as its hull in the fast test (analysis/collision.h); these say
 * whether the surfaces themselves meet, or one solid holds the other. */
#ifndef KG_TRIMESH_H
#define KG_TRIMESH_H

/* A node of a mesh's bounding-box tree: the box of its triangles, and either
 * two children (node first and first + 1; count 0) or, in a leaf, the
 * triangles first .. first + count - 1. */
typedef struct kg_trinode {
    double lo[3], hi[3];
    int first, count, parent; /* parent: -1 at the root */
} kg_trinode;

typedef struct kg_trimesh {
    int nvert, ntri;
    double *vert; /* [3 nvert] */
    int *tri;     /* [3 ntri] vertex indices */
    int nnode;    /* the tree (kg_trimesh_index), node 0 the root; 0: none */
    kg_trinode *node;
} kg_trimesh;

/* Frees m's vertices, triangles and tree (m itself is the caller's). */
void kg_trimesh_free(kg_trimesh *m);

/* Builds m's tree: the triangles sorted by their centres' Morton codes, each
 * node's run split where the codes' highest differing bit turns (an octree's
 * cuts), up to 4 triangles a leaf. Reorders m->tri (leaves hold runs of it).
 * Returns 0, -1 when out of memory. */
int kg_trimesh_index(kg_trimesh *m);

/* Do meshes a and b (indexed) meet: a triangle of each? b is placed in a's
 * frame: x_a = R x_b + p. hint (or NULL): leaves of a and b near which to try
 * first (-1: none), set to the leaves found meeting. */
int kg_trimeshes_meet(const kg_trimesh *a, const kg_trimesh *b, const double R[9], const double p[3], int hint[2]);

/* Calls visit(ctx, t) for each triangle t of m (indexed) whose leaf's box
 * meets the box of centre c and half sides h along the columns of R (m's
 * frame), until visit returns non-zero; returns that, or 0. */
int kg_trimesh_visit(const kg_trimesh *m, const double c[3], const double R[9], const double h[3],
                     int (*visit)(void *ctx, int t), void *ctx);

/* Do triangles a and b (three points each) meet? Touching counts; a degenerate
 * triangle (no area) meets nothing. */
int kg_triangles_meet(const double *a0, const double *a1, const double *a2, const double *b0, const double *b1,
                      const double *b2);

/* The generalized winding number of the triangles (vertices vert) around p:
 * the sum of their solid angles seen from p over 4 pi (Jacobson et al. 2013):
 * +-1 inside a closed mesh, 0 outside, in between near the holes of an open
 * one. */
double kg_winding_number(const double *vert, const int *tri, int ntri, const double p[3]);

#endif
