#include "analysis/convex.h"

#include <libqhull_r/qhull_ra.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/gjk.h"
#include "core/spatial.h"

void kg_convex_free(kg_convex *c) {
    free(c->vert);
    free(c->adj_first);
    free(c->adj);
    free(c->start);
    c->vert = NULL;
    c->adj_first = c->adj = c->start = NULL;
    c->nvert = 0;
}

/* The cube face of a direction (major axis and sign: +x, -x, +y, -y, +z, -z)
 * and its coordinates on that face, in [-1, 1]; -1 for the zero direction. */
static inline int cube_face(const double d[3], double *u, double *v) {
    double ax = fabs(d[0]), ay = fabs(d[1]), az = fabs(d[2]), m;
    int face;
    if (ax >= ay && ax >= az) face = d[0] >= 0 ? 0 : 1, m = ax, *u = d[1], *v = d[2];
    else if (ay >= az) face = d[1] >= 0 ? 2 : 3, m = ay, *u = d[0], *v = d[2];
    else face = d[2] >= 0 ? 4 : 5, m = az, *u = d[0], *v = d[1];
    if (!(m > 0)) return -1;
    *u /= m, *v /= m;
    return face;
}

/* Index 0 .. n - 1 of a face coordinate on an n-cell grid. */
static inline int grid_index(double u, int n) {
    int i = (int)((u + 1) * 0.5 * n);
    return i < 0 ? 0 : i >= n ? n - 1 : i;
}

/* The cube-map cell of a direction: face, then a grid on it. */
static inline int cell_of(const double d[3]) {
    double u, v;
    int face = cube_face(d, &u, &v);
    if (face < 0) return 0;
    return (face * KG_CONVEX_GRID + grid_index(u, KG_CONVEX_GRID)) * KG_CONVEX_GRID + grid_index(v, KG_CONVEX_GRID);
}

/* Uphill from vertex best on the vertex graph towards direction d: on a convex
 * hull a local best is the best. */
KG_AVX2_CLONE static int climb(const kg_convex *c, const double d[3], int best) {
    const double *v = c->vert;
    double bd = v[3 * best] * d[0] + v[3 * best + 1] * d[1] + v[3 * best + 2] * d[2];
    for (int moved = 1; moved;) {
        moved = 0;
        for (int x = c->adj_first[best]; x < c->adj_first[best + 1]; x++) {
            int u = c->adj[x];
            double du = v[3 * u] * d[0] + v[3 * u + 1] * d[1] + v[3 * u + 2] * d[2];
            if (du > bd) bd = du, best = u, moved = 1;
        }
    }
    return best;
}

/* Fills the cube map: each cell's centre direction's support, climbed to from the
 * previous cell's (neighbouring directions have nearby supports, so each climb is
 * a few steps: scanning every vertex per cell took most of a G1's setup). The
 * rows of a face are taken to and fro, so that the previous cell is always a
 * neighbour within a face. */
static int fill_start(kg_convex *c) {
    const int n = 6 * KG_CONVEX_GRID * KG_CONVEX_GRID;
    c->start = malloc((size_t)n * sizeof *c->start);
    if (!c->start) return -1;
    int best = 0;
    for (int k = 0; k < n; k++) {
        int face = k / (KG_CONVEX_GRID * KG_CONVEX_GRID), iu = k / KG_CONVEX_GRID % KG_CONVEX_GRID,
            iv = iu % 2 ? KG_CONVEX_GRID - 1 - k % KG_CONVEX_GRID : k % KG_CONVEX_GRID;
        int cell = (face * KG_CONVEX_GRID + iu) * KG_CONVEX_GRID + iv;
        double u = (iu + 0.5) * 2.0 / KG_CONVEX_GRID - 1, v = (iv + 0.5) * 2.0 / KG_CONVEX_GRID - 1, s = face % 2 ? -1 : 1, d[3];
        if (face < 2) d[0] = s, d[1] = u, d[2] = v;
        else if (face < 4) d[0] = u, d[1] = s, d[2] = v;
        else d[0] = u, d[1] = v, d[2] = s;
        c->start[cell] = best = climb(c, d, best);
    }
    return 0;
}

void kg_convex_bounds(kg_convex *c) {
    const double *s = c->size;
    double h[3] = {0, 0, 0};
    switch (c->type) {
    case KG_CONVEX_BOX: h[0] = s[0], h[1] = s[1], h[2] = s[2]; break;
    case KG_CONVEX_SPHERE: h[0] = h[1] = h[2] = s[0]; break;
    case KG_CONVEX_CYLINDER: h[0] = h[1] = s[0], h[2] = s[1]; break;
    case KG_CONVEX_CAPSULE: h[0] = h[1] = s[0], h[2] = s[1] + s[0]; break;
    case KG_CONVEX_HULL:
        for (int a = 0; a < 3; a++) c->lo[a] = INFINITY, c->hi[a] = -INFINITY;
        for (int v = 0; v < c->nvert; v++)
            for (int a = 0; a < 3; a++) {
                c->lo[a] = fmin(c->lo[a], c->vert[3 * v + a] - c->margin);
                c->hi[a] = fmax(c->hi[a], c->vert[3 * v + a] + c->margin);
            }
        return;
    }
    for (int a = 0; a < 3; a++) c->lo[a] = -h[a], c->hi[a] = h[a];
}

/* Keeps every point (deduplicated): flat or tiny inputs qhull cannot hull. */
static int keep_points(const double *pts, int n, kg_convex *out) {
    out->vert = malloc((size_t)n * 3 * sizeof *out->vert);
    if (!out->vert) return -1;
    int k = 0;
    for (int i = 0; i < n; i++) {
        int dup = 0;
        for (int j = 0; j < k && !dup; j++) dup = !memcmp(out->vert + 3 * j, pts + 3 * i, 3 * sizeof *pts);
        if (!dup) memcpy(out->vert + 3 * k++, pts + 3 * i, 3 * sizeof *pts);
        if (k > 4096) break; /* enough for a flat piece */
    }
    out->nvert = k;
    out->adj_first = NULL; /* no graph: support scans */
    return 0;
}

/* Hull vertices are stored in the order of their directions from the centre
 * (cube face, then a Morton curve on a 64 x 64 grid), so that a climb's
 * neighbours are near each other in memory: G1's hulls have up to 5 600
 * vertices, and in qhull's order nearly every step of a climb missed the cache. */
typedef struct vkey {
    unsigned key;
    int n;
    vertexT *v;
} vkey;

static unsigned direction_key(const double d[3]) {
    double u, v;
    int face = cube_face(d, &u, &v);
    if (face < 0) return 0;
    unsigned iu = (unsigned)grid_index(u, 64), iv = (unsigned)grid_index(v, 64), z = 0;
    for (int b = 0; b < 6; b++) z |= ((iu >> b) & 1u) << (2 * b + 1) | ((iv >> b) & 1u) << (2 * b);
    return (unsigned)face << 12 | z;
}

static int by_key(const void *a_, const void *b_) {
    const vkey *a = a_, *b = b_;
    if (a->key != b->key) return a->key < b->key ? -1 : 1;
    return (a->n > b->n) - (a->n < b->n);
}

/* qhull's options for n points. Qt: triangulated facets, so each facet's
 * vertices are pairwise neighbours; W: a point must be that far above a facet
 * to be added (width, or by default a small part of the points' extent). */
static void qhull_flags(const double *pts, int n, double width, char flags[64]) {
    double lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY}, ext = 0;
    for (int i = 0; i < n; i++)
        for (int a = 0; a < 3; a++) lo[a] = fmin(lo[a], pts[3 * i + a]), hi[a] = fmax(hi[a], pts[3 * i + a]);
    for (int a = 0; a < 3; a++) ext = fmax(ext, hi[a] - lo[a]);
    snprintf(flags, 64, "qhull Qt Q5 Q8 W%.3g", width > 0 ? width : fmin(KG_CONVEX_TOLERANCE, 1e-3 * ext));
}

/* qhull's vertices into out->vert in the order of their directions from their
 * centre (vkey); id[] maps qhull's vertex ids to those indices. 0, or -1 when
 * memory runs out. */
static int order_vertices(qhT *qh, kg_convex *out, int *id) {
    int nv = qh->num_vertices, k = 0;
    vertexT *vertex;
    vkey *order = malloc((size_t)nv * sizeof *order);
    if (!order) return -1;
    double mid[3] = {0, 0, 0};
    FORALLvertices {
        for (int a = 0; a < 3; a++) mid[a] += vertex->point[a] / nv;
    }
    FORALLvertices {
        double d[3];
        for (int a = 0; a < 3; a++) d[a] = vertex->point[a] - mid[a];
        order[k].key = direction_key(d), order[k].n = k, order[k].v = vertex;
        k++;
    }
    qsort(order, (size_t)k, sizeof *order, by_key);
    for (int r = 0; r < k; r++) {
        id[order[r].v->id] = r;
        memcpy(out->vert + 3 * r, order[r].v->point, 3 * sizeof(double));
    }
    out->nvert = k;
    free(order);
    return 0;
}

/* The vertex graph (out->adj_first, out->adj) from the triangles' edges,
 * deduplicated per vertex; id[] as order_vertices made it. 0, or -1 when
 * memory runs out. */
static int adjacency(qhT *qh, kg_convex *out, const int *id) {
    int rc = -1, k = out->nvert;
    vertexT *vertex, **vertexp;
    facetT *facet;
    int nf = qh->num_facets, *deg = calloc((size_t)k + 1, sizeof *deg);
    int *edges = malloc((size_t)nf * 6 * 2 * sizeof *edges), ne = 0;
    if (deg && edges) {
        FORALLfacets {
            int tri[3], t = 0;
            FOREACHvertex_(facet->vertices) if (t < 3) tri[t++] = id[vertex->id];
            for (int a = 0; t == 3 && a < 3; a++) {
                edges[2 * ne] = tri[a], edges[2 * ne + 1] = tri[(a + 1) % 3], ne++;
                edges[2 * ne] = tri[(a + 1) % 3], edges[2 * ne + 1] = tri[a], ne++;
            }
        }
        for (int e = 0; e < ne; e++) deg[edges[2 * e]]++;
        out->adj_first = malloc((size_t)(k + 1) * sizeof *out->adj_first);
        out->adj = malloc((size_t)(ne + 1) * sizeof *out->adj);
        if (out->adj_first && out->adj) {
            out->adj_first[0] = 0;
            for (int v = 0; v < k; v++) out->adj_first[v + 1] = out->adj_first[v] + deg[v];
            memset(deg, 0, (size_t)k * sizeof *deg);
            for (int e = 0; e < ne; e++) {
                int a = edges[2 * e], b = edges[2 * e + 1], dup = 0;
                for (int x = out->adj_first[a]; x < out->adj_first[a] + deg[a] && !dup; x++) dup = out->adj[x] == b;
                if (!dup) out->adj[out->adj_first[a] + deg[a]++] = b;
            }
            /* compact: drop the duplicate slots */
            int w = 0;
            for (int v = 0; v < k; v++) {
                int from = out->adj_first[v];
                out->adj_first[v] = w;
                for (int x = 0; x < deg[v]; x++) out->adj[w++] = out->adj[from + x];
            }
            out->adj_first[k] = w;
            rc = 0;
        }
    }
    free(deg);
    free(edges);
    return rc;
}

/* The hull of n >= 4 points p (qhull's copy, which it may change) by qhull,
 * with its vertex graph, into out. 0, or -1 (out emptied) when qhull cannot
 * hull them (flat, say) or memory runs out. */
static int qhull_hull(coordT *p, int n, double width, kg_convex *out) {
    int rc = -1;
    qhT qh_qh, *qh = &qh_qh;
    QHULL_LIB_CHECK
    qh_zero(qh, NULL);
    char flags[64];
    qhull_flags(p, n, width, flags);
    /* qhull prints its errors (a flat hull, say) to errfile, stderr when NULL;
     * a flat hull is handled by the caller, not something to print */
    FILE *quiet = fopen("/dev/null", "w");
    if (qh_new_qhull(qh, 3, n, p, False, flags, NULL, quiet) == 0) {
        out->vert = malloc((size_t)qh->num_vertices * 3 * sizeof *out->vert);
        int *id = malloc((size_t)(qh->vertex_id + 1) * sizeof *id);
        if (out->vert && id && order_vertices(qh, out, id) == 0) rc = adjacency(qh, out, id);
        free(id);
    }
    int curlong, totlong;
    qh_freeqhull(qh, !qh_ALL);
    qh_memfreeshort(qh, &curlong, &totlong);
    if (quiet) fclose(quiet);
    if (rc != 0) kg_convex_free(out);
    return rc;
}

/* The hull of n points, a point within width of it not made a vertex. */
static int hull(const double *pts, int n, double width, kg_convex *out) {
    out->type = KG_CONVEX_HULL;
    out->margin = 0;
    out->vert = NULL;
    out->adj_first = out->adj = out->start = NULL;
    out->nvert = 0;
    if (n < 1) return -1;
    int rc = -1;
    if (n >= 4) {
        coordT *p = malloc((size_t)n * 3 * sizeof *p);
        if (!p) return -1;
        memcpy(p, pts, (size_t)n * 3 * sizeof *p);
        rc = qhull_hull(p, n, width, out);
        free(p);
    }
    if (rc != 0 && keep_points(pts, n, out) == 0) rc = 0;
    if (rc == 0 && out->adj_first && fill_start(out) != 0) rc = -1;
    if (rc == 0) kg_convex_bounds(out);
    else kg_convex_free(out);
    return rc;
}

int kg_convex_hull(const double *pts, int n, kg_convex *out) { return hull(pts, n, 0, out); }

/* Where a climb along d starts on a hull with a vertex graph: the cube map's
 * vertex for d, or vertex h (a hint, -1: none) when that is farther along d. */
static int climb_start(const kg_convex *c, const double d[3], int h) {
    const double *v = c->vert;
    int best = c->start[cell_of(d)];
    if (h >= 0 && h < c->nvert && v[3 * h] * d[0] + v[3 * h + 1] * d[1] + v[3 * h + 2] * d[2] >
                                      v[3 * best] * d[0] + v[3 * best + 1] * d[1] + v[3 * best + 2] * d[2])
        best = h;
    return best;
}

/* The hull vertex farthest along d (without the margin): climbed to from
 * climb_start(), or scanned for when the hull has no vertex graph. */
KG_AVX2_CLONE static void hull_vertex(const kg_convex *c, const double d[3], int *hint, double out[3]) {
    const double *v = c->vert;
    int best = 0; /* (a hull without a vertex graph has no cube map either) */
    if (c->adj_first) best = climb(c, d, climb_start(c, d, *hint));
    else {
        double bd = v[3 * best] * d[0] + v[3 * best + 1] * d[1] + v[3 * best + 2] * d[2];
        for (int u = 0; u < c->nvert; u++) {
            double du = v[3 * u] * d[0] + v[3 * u + 1] * d[1] + v[3 * u + 2] * d[2];
            if (du > bd) bd = du, best = u;
        }
    }
    *hint = best;
    memcpy(out, v + 3 * best, 3 * sizeof *out);
}

void kg_convex_support(const kg_convex *c, const double d[3], int *hint, double out[3]) {
    const double *s = c->size;
    switch (c->type) {
    case KG_CONVEX_BOX:
        for (int a = 0; a < 3; a++) out[a] = d[a] >= 0 ? s[a] : -s[a];
        return;
    case KG_CONVEX_SPHERE: {
        double n = sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
        for (int a = 0; a < 3; a++) out[a] = n > 0 ? s[0] * d[a] / n : (a == 0 ? s[0] : 0);
        return;
    }
    case KG_CONVEX_CYLINDER:
    case KG_CONVEX_CAPSULE: {
        double r = hypot(d[0], d[1]);
        out[0] = r > 0 ? s[0] * d[0] / r : s[0];
        out[1] = r > 0 ? s[0] * d[1] / r : 0;
        out[2] = d[2] >= 0 ? s[1] : -s[1];
        if (c->type == KG_CONVEX_CAPSULE) { /* the segment plus a sphere */
            double n = sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
            out[0] = n > 0 ? s[0] * d[0] / n : s[0];
            out[1] = n > 0 ? s[0] * d[1] / n : 0;
            out[2] = (d[2] >= 0 ? s[1] : -s[1]) + (n > 0 ? s[0] * d[2] / n : 0);
        }
        return;
    }
    case KG_CONVEX_HULL:
        break;
    }
    hull_vertex(c, d, hint, out);
    if (c->margin > 0) { /* the vertex's point of the swelled hull */
        double n = sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
        for (int a = 0; n > 0 && a < 3; a++) out[a] += c->margin * d[a] / n;
    }
}

double kg_convex_margin(const kg_convex *c) {
    if (c->type == KG_CONVEX_HULL) return c->margin;
    return c->type == KG_CONVEX_SPHERE || c->type == KG_CONVEX_CAPSULE ? c->size[0] : 0;
}

KG_AVX2_CLONE static void convex_core_support(const kg_convex *c, const double d[3], int *hint, double out[3]) {
    switch (c->type) {
    case KG_CONVEX_SPHERE: /* the centre */
        out[0] = out[1] = out[2] = 0;
        return;
    case KG_CONVEX_CAPSULE: /* the axis segment */
        out[0] = out[1] = 0;
        out[2] = d[2] >= 0 ? c->size[1] : -c->size[1];
        return;
    default:
        kg_convex_support_from(c, d, hint, out);
    }
}

/* The exported function around its static clone (KG_AVX2_CLONE). */
void kg_convex_core_support(const kg_convex *c, const double d[3], int *hint, double out[3]) {
    convex_core_support(c, d, hint, out);
}

KG_AVX2_CLONE static void convex_support_from(const kg_convex *c, const double d[3], int *hint, double out[3]) {
    if (c->type != KG_CONVEX_HULL) {
        kg_convex_support(c, d, hint, out);
        return;
    }
    if (!c->adj_first) {
        hull_vertex(c, d, hint, out);
        return;
    }
    int best = climb(c, d, climb_start(c, d, *hint));
    *hint = best;
    memcpy(out, c->vert + 3 * best, 3 * sizeof *out);
}

/* The exported function around its static clone (KG_AVX2_CLONE). */
void kg_convex_support_from(const kg_convex *c, const double d[3], int *hint, double out[3]) {
    convex_support_from(c, d, hint, out);
}

/* The largest distance of a vertex of fine outside coarse (both in the same
 * frame): each vertex as a point (a sphere of radius 0) against the hull. */
static double excess(const kg_convex *fine, const kg_convex *coarse) {
    static const double I[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1}, O[3] = {0, 0, 0};
    kg_convex pt;
    memset(&pt, 0, sizeof pt);
    pt.type = KG_CONVEX_SPHERE;
    int hint = -1;
    double worst = 0, guess[3] = {0, 0, 0};
    for (int v = 0; v < fine->nvert; v++) {
        const kg_gjk_shape a = {&pt, I, fine->vert + 3 * v, NULL}, b = {coarse, I, O, &hint};
        kg_gjk_result r;
        if (kg_gjk_distance(&a, &b, guess[0] || guess[1] || guess[2] ? guess : NULL, INFINITY, 1e-6, &r))
            worst = fmax(worst, r.dist), guess[0] = -r.n[0], guess[1] = -r.n[1], guess[2] = -r.n[2];
    }
    return worst;
}

int kg_convex_coarse(const kg_convex *fine, double width, kg_convex *out) {
    memset(out, 0, sizeof *out);
    if (fine->type != KG_CONVEX_HULL || !(width > 0)) return -1;
    if (hull(fine->vert, fine->nvert, width, out) != 0) return -1;
    out->pos[0] = fine->pos[0], out->pos[1] = fine->pos[1], out->pos[2] = fine->pos[2];
    memcpy(out->rot, fine->rot, sizeof out->rot);
    out->link = fine->link, out->geom = fine->geom;
    out->margin = excess(fine, out) + fine->margin;
    if (out->margin > 0) out->margin += 1e-6; /* GJK's tolerance: an upper bound */
    kg_convex_bounds(out);
    return 0;
}
