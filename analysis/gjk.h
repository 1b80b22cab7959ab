/* Distance between two convex shapes (analysis/convex.h) placed in the world:
 * GJK (Gilbert, Johnson and Keerthi 1988) on the shapes' support functions,
 * with the signed-volume sub-algorithm of Montanari, Petrinic and Barbieri
 * (2017) for the closest point of each simplex to the origin (Johnson's
 * distance sub-algorithm, made robust by measuring areas in the best-conditioned
 * coordinate plane). Spheres and capsules run as their cores (a point, a
 * segment) and their radii are taken off after (kg_convex_margin): exact for
 * them, and exact also when the radii overlap but the cores do not (the
 * distance is then minus the penetration depth).
 *
 * Its own file, not convex.c: convex.c makes shapes and answers one support
 * query; this is an algorithm over any two of them (and has no qhull in it). */
#ifndef KG_GJK_H
#define KG_GJK_H

#include "analysis/convex.h"

#define KG_GJK_MAX_ITERATIONS 128 /* G1's dense hulls take up to 44 to KG_GJK_RELATIVE; a curved
                                   * cylinder pair about as many: the cap only ends degenerate loops */
#define KG_GJK_RELATIVE 1e-12    /* stop when the certified lower bound is within this
                                  * fraction of the distance */
#define KG_GJK_SEED_TOLERANCE 0.3 /* a start from a seed stops at this fraction of the caller's tol:
                                   * a seed's simplex often meets tol at its first query, its points
                                   * still the last pose's nearest features (normals 0.05-0.12 rad off
                                   * a cold solve's on 82 of 120 000 Talos measures at 1; 16 at 0.3),
                                   * and its distances then stay nearer the truth than a cold solve's */

typedef struct kg_gjk_shape {
    const kg_convex *c;
    const double *r, *p; /* the shape's frame in the world: rotation [9] (row-major), position [3] */
    int *hint;           /* kg_convex_support's vertex hint, updated (NULL: none) */
} kg_gjk_shape;

typedef struct kg_gjk_result {
    double dist;           /* signed distance (m) */
    double n[3];           /* unit (world): from a's witness point towards b's; moving b along n
                            * increases the distance */
    double pa[3], pb[3];   /* witness points on a and b (world): pb = pa + dist n */
    int iterations;        /* support queries of the difference */
} kg_gjk_result;

/* A simplex carried from one call to the next (kg_gjk_distance_from): its
 * vertices as points of a's and b's cores, each in its own shape's frame
 * (any points of the cores will do: only the support queries bound the
 * distance). n = 0: none. */
typedef struct kg_gjk_seed {
    int n;
    double a[4][3], b[4][3];
} kg_gjk_seed;

/* The distance between a and b. Returns 1 when their cores are apart (the
 * separation certified by a plane between them): out holds the distance, >= 0
 * to within KG_GJK_RELATIVE, or negative when only the margins overlap.
 * Returns 0 when the cores meet or touch (closer than 1e-12 of their size):
 * the shapes intersect and the caller needs a penetration depth (libccd's MPR);
 * out then holds GJK's last estimate (n may be zero). guess: a direction from
 * b towards a (world; the last answer's -n warms the start), or NULL for the
 * frames' origins' difference. beyond: stop as soon as the distance is proven
 * at least this (returns 1; out->dist is then an upper bound >= beyond, not
 * converged): a caller that only wants pairs nearer than some distance, or
 * nearer than its best so far, passes that; INFINITY for the distance itself.
 * tol (m): stop once the distance is known to within tol (out->dist is then
 * an upper bound at most tol above it): dense hulls take most of their
 * iterations on the last digits, which a controller keeping links a margin
 * apart does not need; 0 for KG_GJK_RELATIVE alone. Allocates nothing. */
int kg_gjk_distance(const kg_gjk_shape *a, const kg_gjk_shape *b, const double guess[3], double beyond, double tol,
                    kg_gjk_result *out);

/* kg_gjk_distance starting from seed's simplex, placed at the shapes' poses
 * now (guess then unused, tol taken times KG_GJK_SEED_TOLERANCE), when it has
 * one and it does not hold the origin; seed is then set to the final simplex
 * (n = 0 when the cores meet). The seed must come from the same shapes in the
 * same order (a, b): its points must be points of their cores, or the distance
 * is not bounded (it stays an upper bound within tol only then). A pair
 * measured again after its shapes moved a little starts next to its closest
 * features and needs a query or two (from the last normal alone, GJK builds
 * its simplex again: 5-10 queries). The answer depends on the seed: two calls
 * at one pose may differ, each within tol of the distance. */
int kg_gjk_distance_from(const kg_gjk_shape *a, const kg_gjk_shape *b, const double guess[3], double beyond, double tol,
                         kg_gjk_seed *seed, kg_gjk_result *out);

#endif
