/* Convex shapes for collision: the primitives, and meshes as their convex hulls
 * (qhull), each with a support function (the farthest point in a direction)
 * for GJK-type tests (libccd). A hull's support walks its vertex graph uphill,
 * from the vertex a cube map of directions gives (the support of the cell's
 * centre direction): a few steps, not a scan of thousands of vertices. */
#ifndef KG_CONVEX_H
#define KG_CONVEX_H

#define KG_CONVEX_GRID 16

typedef enum { KG_CONVEX_BOX, KG_CONVEX_SPHERE, KG_CONVEX_CYLINDER, KG_CONVEX_CAPSULE, KG_CONVEX_HULL } kg_convex_type;

typedef struct kg_convex {
    kg_convex_type type;
    double size[3];      /* box: half extents; sphere: radius; cylinder, capsule: radius, half length (along z) */
    int nvert;           /* hull */
    double *vert;        /* [3 nvert] */
    int *adj_first;      /* [nvert + 1]: vertex v's neighbours are adj[adj_first[v] .. adj_first[v + 1]) */
    int *adj;
    int *start;          /* [6 * KG_CONVEX_GRID^2] a vertex near the support of each cube-map cell of
                          * directions: the walk starts there */
    double lo[3], hi[3]; /* bounds in the shape's frame */
    double pos[3], rot[9]; /* the shape's frame in its link's frame */
    int link, geom;      /* the model's link and geom */
} kg_convex;

/* The convex hull of n points (qhull). A point within KG_CONVEX_TOLERANCE of
 * the hull (at most 1/1000 of the points' extent) does not become a vertex, so
 * the hull may leave input points outside by that much: meshes of CAD parts are
 * tessellated far more coarsely than that, and G1's hulls keep 11 700 vertices
 * instead of 27 900 (qhull 1.6x faster, support walks shorter). Flat or
 * degenerate point sets keep all their points (support by scanning). Returns 0,
 * -1 when out of memory or n < 1. */
#define KG_CONVEX_TOLERANCE 1e-4 /* m */
int kg_convex_hull(const double *pts, int n, kg_convex *out);
void kg_convex_free(kg_convex *c);

/* Bounds of a primitive (fills lo/hi from type and size). */
void kg_convex_bounds(kg_convex *c);

/* The point of c farthest along d (both in c's frame); hint: a hull vertex to
 * start from, updated. */
void kg_convex_support(const kg_convex *c, const double d[3], int *hint, double out[3]);

/* A sphere is a point and a capsule a segment (its core) swelled by its radius
 * (the margin); the other shapes are their own core, margin 0. Distances
 * between cores are found exactly on polytopes (GJK ends on a repeated
 * vertex), so a distance between spheres and capsules taken as their cores'
 * less the margins is exact, where their round surfaces would only converge. */
double kg_convex_margin(const kg_convex *c);
/* The point of c's core farthest along d (shape frame), as kg_convex_support_from. */
void kg_convex_core_support(const kg_convex *c, const double d[3], int *hint, double out[3]);
/* kg_convex_support, a hull's climb starting from *hint when that vertex is
 * farther along d than the cube map's (updated: the support): GJK's
 * successive directions on a shape converge, so the last support is mostly
 * the nearer start (7 % off G1's near-pair distance queries). */
void kg_convex_support_from(const kg_convex *c, const double d[3], int *hint, double out[3]);

#endif
