/* Exact contact tests on triangle meshes: what a convex hull only bounds. A
 * concave link (JVRC-1's pelvis, whose hull covers the hip joints' sockets)
 * collides as its hull in the fast test (analysis/collision.h); these say
 * whether the surfaces themselves meet, or one solid holds the other. */
#ifndef KG_TRIMESH_H
#define KG_TRIMESH_H

typedef struct kg_trimesh {
    int nvert, ntri;
    double *vert; /* [3 nvert] */
    int *tri;     /* [3 ntri] vertex indices */
} kg_trimesh;

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
