/* Self-collision: which pairs of a model's links touch at a pose, and which
 * pairs can ever touch (the allowed-collision matrix MoveIt's setup assistant
 * makes, with a stated bound for the pairs called "never").
 *
 * Geometry: each link's collision geoms as convex shapes (analysis/convex.h):
 * boxes, spheres, cylinders and capsules as they are, meshes as their convex
 * hulls (so a concave mesh collides as its hull, as in MuJoCo). Broad phase:
 * world bounding boxes of the shapes; narrow phase: libccd's MPR intersection
 * test. Two links collide when any of their shapes do (touching counts).
 * With `exact` set, a hit between hulls of meshes is confirmed on the meshes'
 * triangles (analysis/trimesh.h): their surfaces meet, or one solid holds the
 * other (what MoveIt's FCL tests); a concave link then no longer collides
 * where only its hull reaches.
 *
 * Pair classes (link pairs that both have collision geometry):
 *   adjacent   joined by a joint, or through links that have no geometry;
 *              never sampled (they always touch at the joint)
 *   declared   the model's file says to ignore the pair (OpenRAVE), or an SRDF
 *              disables it (kg_collision_model_declare)
 *   default    colliding at the rest pose
 *   always     colliding in at least 95 % of the samples
 *   never      no hit in n samples: the chance of a hit at a random pose is then
 *              below 3/n with 95 % confidence (the rule of three)
 *   sometimes  hit, but not always: must be checked at run time
 * Sampling draws every independent coordinate uniformly within its limits
 * (continuous: a turn; unlimited translations and free joints stay at rest),
 * in rounds that double the total, and stops when a round finds no pair that
 * had not been hit before (once at least min_samples are drawn), or at the maximum. The samples are the same for any
 * number of threads. */
#ifndef KG_COLLISION_H
#define KG_COLLISION_H

#include <stdint.h>

#include "analysis/convex.h"
#include "analysis/trimesh.h"
#include "core/data.h"
#include "core/diag.h"
#include "formats/mesh.h"

enum { KG_PAIR_ADJACENT, KG_PAIR_DECLARED, KG_PAIR_DEFAULT, KG_PAIR_ALWAYS, KG_PAIR_NEVER, KG_PAIR_SOMETIMES };

typedef struct kg_collision_model {
    int nshape;
    kg_convex *shape;      /* grouped by link */
    int nlink;
    int *link_first, *link_count; /* [nlink] a link's shapes */
    int npair;             /* link pairs that both have shapes */
    int *pair_a, *pair_b;  /* links, a < b */
    unsigned char *adjacent; /* [npair] */
    unsigned char *declared; /* [npair] the model says to ignore it */
    int hull_vertices;     /* over all hulls */
    kg_trimesh *surface;   /* [nshape] a mesh shape's triangles in the shape's frame (ntri 0: a primitive) */
    int exact;             /* 0 (as built): hulls, as MuJoCo; 1: hull hits confirmed on the triangles */
} kg_collision_model;

/* Shapes of every collision geom (meshes read through the cache; a mesh that
 * cannot be read is left out, with a warning). Returns 0, -1 when out of memory. */
int kg_collision_model_build(const kg_model *m, kg_mesh_cache *meshes, kg_collision_model *cm, kg_diags *d);
void kg_collision_model_free(kg_collision_model *cm);
/* Marks the pairs among pairs[n] (links, either order; an SRDF's disabled
 * ones, importers/importers.h) declared, as the model's own ignored pairs are.
 * Returns how many of cm's pairs it marked. */
int kg_collision_model_declare(kg_collision_model *cm, const kg_link_pair *pairs, int n);

/* Per-thread work space for kg_self_collisions and kg_pair_distance. */
typedef struct kg_collision_work kg_collision_work;
kg_collision_work *kg_collision_work_new(const kg_collision_model *cm);
void kg_collision_work_free(kg_collision_work *w);
/* kg_pair_distance's distances between apart shapes to within tol (m; 0, as
 * made: to KG_GJK_RELATIVE): an upper bound at most tol above the distance. */
void kg_collision_work_tolerance(kg_collision_work *w, double tol);

/* At the pose of d (after kg_fk): hit[p] = 1 for every pair p that collides,
 * among the pairs with check[p] set (NULL: all but adjacent ones). Returns the
 * number of colliding pairs. Allocates nothing. */
int kg_self_collisions(const kg_collision_model *cm, const kg_data *d, kg_collision_work *w, const unsigned char *check,
                       unsigned char *hit);

/* After kg_self_collisions at the same pose: how far the links of pair p
 * interpenetrate, the deepest over their shapes (libccd's MPR penetration):
 * moving link pair_b[p] by depth (m) along dir (unit, world axes) leaves them
 * touching; pos is a world point in the overlap. Returns 0 when they do not
 * touch. Allocates nothing. */
int kg_pair_penetration(const kg_collision_model *cm, kg_collision_work *w, int p, double *depth, double dir[3],
                        double pos[3]);

/* The world bounding box (lo, hi) of link's collision shapes at d's pose (after
 * kg_fk; their shapes' boxes, each the box of the shape's own box turned):
 * a caller can drop pairs whose boxes are farther apart than it cares about
 * without asking more. Returns 0 when the link has no shapes. Places the
 * link's shapes in w, once per pose. Allocates nothing. */
int kg_link_box(const kg_collision_model *cm, const kg_data *d, kg_collision_work *w, int link, double lo[3],
                double hi[3]);

/* The signed distance between the links of pair p at d's pose (after kg_fk),
 * for keeping them apart: the least over their shapes' pairs (hulls and
 * primitives, as kg_self_collisions without exact). Apart: GJK's distance
 * (analysis/gjk.h; to KG_GJK_RELATIVE, exact for spheres and capsules, and for
 * them still exact while only their radii overlap); intersecting: minus
 * libccd's MPR penetration depth (the deepest shape pair), pa and pb then a
 * depth apart about MPR's contact point. n (unit, world) points from link
 * pair_a[p]'s witness point pa towards pair_b[p]'s pb (world points on the
 * shapes when apart): moving link pair_b[p] along n increases the distance,
 * and always pb = pa + dist n.
 * Shape pairs whose world boxes are max_dist or more apart are not measured;
 * when all are (the links' boxes first), it returns 0 at the cost of a box
 * test. Returns 1 when dist < max_dist (dist, n, pa, pb filled), else 0
 * (nothing written). Places the two links' shapes in w once per pose (their
 * poses in d are compared with the last placed), so asking every watched
 * pair of one pose places each link once; the pair's last n starts the next
 * GJK. Allocates nothing. */
int kg_pair_distance(const kg_collision_model *cm, const kg_data *d, kg_collision_work *w, int p, double max_dist,
                     double *dist, double n[3], double pa[3], double pb[3]);

typedef struct kg_acm_options {
    long max_samples;      /* default 1 000 000 when 0 */
    long first_round;      /* default 1 000 */
    long min_samples;      /* no early stop before this many (default 10 000) */
    uint64_t seed;
    int threads;
    double always;         /* fraction for "always" (default 0.95) */
    const double *q;       /* [nq] the rest pose and the value of what is not sampled (NULL: q_default) */
} kg_acm_options;

typedef struct kg_acm {
    long samples;
    int rounds;
    int npair;
    int *cls;              /* [npair] KG_PAIR_* */
    long *hits;            /* [npair] over the samples (0 for adjacent pairs: not sampled) */
    double *p_upper;       /* [npair] 95 % upper bound of the chance of a hit at a random pose */
    int nsampled;          /* coordinates sampled */
} kg_acm;

int kg_collision_matrix(const kg_model *m, const kg_collision_model *cm, const kg_acm_options *o, kg_acm *out);
void kg_acm_free(kg_acm *a);
const char *kg_pair_class_name(int cls);

#endif
