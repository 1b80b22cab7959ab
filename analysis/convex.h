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
    double margin;       /* hull: swelled by this (m): a coarse hull's bound on the points of the
                          * hull it stands for that it leaves out (kg_collision_model_coarse); 0 as made */
    double lo[3], hi[3]; /* bounds in the shape's frame (margin included) */
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

/* A hull of fewer vertices standing for hull `fine` (pos, rot, link, geom
 * copied): qhull of fine's vertices leaving out those within `width` (m) of
 * the hull of the others, swelled by the largest distance of a fine vertex
 * outside it (GJK, to 1e-6 m, rounded up: at most about width), so it holds
 * every point of fine and a distance measured to it is a lower bound, at most
 * that margin under fine's. A distance query's cost grows with the vertices
 * GJK climbs over and the iterations it takes on a dense hull; a controller
 * keeping links apart by a margin does not need the mesh's last millimetres.
 * Returns 0, -1 when out of memory. */
int kg_convex_coarse(const kg_convex *fine, double width, kg_convex *out);

/* Bounds of a primitive (fills lo/hi from type and size). */
void kg_convex_bounds(kg_convex *c);

/* The point of c farthest along d (both in c's frame); hint: a hull vertex to
 * start from, updated. */
void kg_convex_support(const kg_convex *c, const double d[3], int *hint, double out[3]);

/* A sphere is a point and a capsule a segment (its core) swelled by its radius
 * (the margin), a hull its vertices' hull swelled by its margin field; the
 * other shapes are their own core, margin 0. Distances
 * between cores are found exactly on polytopes (GJK ends on a repeated
 * vertex), so a distance between spheres and capsules taken as their cores'
 * less the margins is exact, where their round surfaces would only converge. */
double kg_convex_margin(const kg_convex *c);
/* The point of c's core farthest along d (shape frame), as kg_convex_support_from. */
void kg_convex_core_support(const kg_convex *c, const double d[3], int *hint, double out[3]);
/* kg_convex_support (of a hull: its vertices, without the margin), a hull's
 * climb starting from *hint when that vertex is
 * farther along d than the cube map's (updated: the support): GJK's
 * successive directions on a shape converge, so the last support is mostly
 * the nearer start (7 % off G1's near-pair distance queries). */
void kg_convex_support_from(const kg_convex *c, const double d[3], int *hint, double out[3]);

#endif
