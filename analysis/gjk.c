#include "analysis/gjk.h"

#include <math.h>
#include <string.h>

#include "core/spatial.h"

#define KG_GJK_TOUCH 1e-12 /* cores closer than this fraction of the simplex's extent touch: below
                            * it the closest point is rounding noise, and its direction too */
#define KG_GJK_FLAT 1e-12  /* a triangle (tetrahedron) whose doubled area (6 x volume) is below this
                            * times its longest edge squared (cubed) is flat: its edges (faces) are
                            * searched instead, as the signs of its sub-areas mean nothing */

/* A point of the cores' Minkowski difference, y = a - b, with the points of a
 * and b it came from (the witnesses are the same weights of those). */
typedef struct vertex {
    double y[3], a[3], b[3];
} vertex;

typedef struct simplex {
    int n;
    vertex v[4];
    double lam[4]; /* the barycentric weights of its point closest to the origin */
} simplex;

static inline int same_sign(double a, double b) { return (a > 0 && b > 0) || (a < 0 && b < 0); }

static void core_support(const kg_gjk_shape *s, const double dw[3], double out[3]) {
    double dl[3], l[3];
    int spare = 0;
    kg_mat3_tvec(dl, s->r, dw);
    kg_convex_core_support(s->c, dl, s->hint ? s->hint : &spare, l);
    kg_mat3_vec(out, s->r, l);
    for (int k = 0; k < 3; k++) out[k] += s->p[k];
}

/* The point of the difference farthest along -v: a's farthest along -v less
 * b's farthest along v. */
static void support(const kg_gjk_shape *a, const kg_gjk_shape *b, const double v[3], vertex *w) {
    const double m[3] = {-v[0], -v[1], -v[2]};
    core_support(a, m, w->a);
    core_support(b, v, w->b);
    for (int k = 0; k < 3; k++) w->y[k] = w->a[k] - w->b[k];
}

static void combine(const simplex *s, const double lam[4], double v[3]) {
    v[0] = v[1] = v[2] = 0;
    for (int i = 0; i < s->n; i++)
        for (int k = 0; k < 3; k++) v[k] += lam[i] * s->v[i].y[k];
}

/* Keeps candidate (lam, mask) when its point is closer to the origin than the best so far. */
static void keep_closer(const simplex *s, const double lam[4], int mask, double best_lam[4], int *best_mask,
                        double *best2) {
    double v[3];
    combine(s, lam, v);
    double d2 = kg_vec3_dot(v, v);
    if (d2 < *best2) *best2 = d2, *best_mask = mask, memcpy(best_lam, lam, 4 * sizeof *lam);
}

/* The point of segment (i, j) of s closest to the origin: its weights in lam
 * (zero elsewhere); returns the vertices it needs as a bit mask. */
static int s1d(const simplex *s, int i, int j, double lam[4]) {
    const double *a = s->v[i].y, *b = s->v[j].y;
    double t[3] = {b[0] - a[0], b[1] - a[1], b[2] - a[2]}, tt = kg_vec3_dot(t, t);
    memset(lam, 0, 4 * sizeof *lam);
    double u = tt > 0 ? -kg_vec3_dot(a, t) / tt : 0; /* the origin's projection: a + u t */
    if (u <= 0) {
        lam[i] = 1;
        return 1 << i;
    }
    if (u >= 1) {
        lam[j] = 1;
        return 1 << j;
    }
    lam[i] = 1 - u, lam[j] = u;
    return 1 << i | 1 << j;
}

/* The same for triangle (i, j, k): the origin's projection on its plane, and
 * its weights as ratios of signed areas in the coordinate plane where the
 * triangle's shadow is largest; where a weight is not positive the answer is
 * on the opposite edge (the closest of those). */
KG_AVX2_CLONE static int s2d(const simplex *s, int i, int j, int k, double lam[4]) {
    const int id[3] = {i, j, k};
    const double *p[3] = {s->v[i].y, s->v[j].y, s->v[k].y};
    double e1[3], e2[3], e3[3], n[3], C[3] = {0, 0, 0}, mu = 0;
    for (int c = 0; c < 3; c++) e1[c] = p[1][c] - p[0][c], e2[c] = p[2][c] - p[0][c], e3[c] = p[2][c] - p[1][c];
    kg_vec3_cross(n, e1, e2);
    double nn = kg_vec3_dot(n, n), big = kg_fmax(kg_vec3_dot(e1, e1), kg_fmax(kg_vec3_dot(e2, e2), kg_vec3_dot(e3, e3)));
    int flat = !(nn > KG_GJK_FLAT * KG_GJK_FLAT * big * big);
    if (!flat) {
        double t = kg_vec3_dot(p[0], n) / nn, o[3] = {n[0] * t, n[1] * t, n[2] * t};
        int J = fabs(n[0]) >= fabs(n[1]) && fabs(n[0]) >= fabs(n[2]) ? 0 : fabs(n[1]) >= fabs(n[2]) ? 1 : 2;
        int x = (J + 1) % 3, y = (J + 2) % 3; /* (u x w)_J = u_x w_y - u_y w_x */
        mu = n[J];
        for (int m = 0; m < 3; m++) { /* vertex m replaced by the projection */
            const double *q = p[(m + 1) % 3], *r = p[(m + 2) % 3];
            C[m] = (q[x] - o[x]) * (r[y] - o[y]) - (q[y] - o[y]) * (r[x] - o[x]);
        }
        if (same_sign(mu, C[0]) && same_sign(mu, C[1]) && same_sign(mu, C[2])) {
            memset(lam, 0, 4 * sizeof *lam);
            for (int m = 0; m < 3; m++) lam[id[m]] = C[m] / mu;
            return 1 << i | 1 << j | 1 << k;
        }
    }
    double cand[4], best2 = INFINITY;
    int best = 0;
    for (int m = 0; m < 3; m++)
        if (flat || !same_sign(mu, C[m])) keep_closer(s, cand, s1d(s, id[(m + 1) % 3], id[(m + 2) % 3], cand), lam, &best, &best2);
    return best;
}

/* (b - a) . ((c - a) x (d - a)): six times the signed volume of a, b, c, d. */
static double volume(const double *a, const double *b, const double *c, const double *d) {
    double u[3], v[3], w[3], x[3];
    for (int k = 0; k < 3; k++) u[k] = b[k] - a[k], v[k] = c[k] - a[k], w[k] = d[k] - a[k];
    kg_vec3_cross(x, v, w);
    return kg_vec3_dot(u, x);
}

/* The same for the tetrahedron s (4 vertices): weights as ratios of signed
 * volumes; all positive: the origin is inside (returns 15). */
KG_AVX2_CLONE static int s3d(const simplex *s, double lam[4]) {
    static const double zero[3] = {0, 0, 0};
    const double *p[4] = {s->v[0].y, s->v[1].y, s->v[2].y, s->v[3].y};
    double C[4], V = 0, big = 0;
    for (int m = 0; m < 4; m++) {
        const double *q[4] = {p[0], p[1], p[2], p[3]};
        q[m] = zero;
        C[m] = volume(q[0], q[1], q[2], q[3]);
        V += C[m];
        for (int l = m + 1; l < 4; l++) {
            double e[3] = {p[l][0] - p[m][0], p[l][1] - p[m][1], p[l][2] - p[m][2]};
            big = kg_fmax(big, kg_vec3_dot(e, e));
        }
    }
    int flat = !(fabs(V) > KG_GJK_FLAT * big * sqrt(big));
    if (!flat && same_sign(V, C[0]) && same_sign(V, C[1]) && same_sign(V, C[2]) && same_sign(V, C[3])) {
        for (int m = 0; m < 4; m++) lam[m] = C[m] / V;
        return 15;
    }
    double cand[4], best2 = INFINITY;
    int best = 0;
    for (int m = 0; m < 4; m++)
        if (flat || !same_sign(V, C[m]))
            keep_closer(s, cand, s2d(s, (m + 1) % 4, (m + 2) % 4, (m + 3) % 4, cand), lam, &best, &best2);
    return best;
}

/* Reduces s to the face of it that holds its point closest to the origin
 * (weights s->lam). Returns 1 when that point is inside the tetrahedron: the
 * origin is in the difference (s then keeps its 4 vertices). */
static int reduce(simplex *s) {
    double lam[4] = {1, 0, 0, 0};
    int mask = s->n == 1 ? 1 : s->n == 2 ? s1d(s, 0, 1, lam) : s->n == 3 ? s2d(s, 0, 1, 2, lam) : s3d(s, lam);
    int k = 0;
    for (int i = 0; i < s->n; i++)
        if (mask >> i & 1) {
            s->v[k] = s->v[i];
            s->lam[k++] = lam[i];
        }
    s->n = k;
    return mask == 15;
}

/* Fills out from s's closest point v (and the margins). */
static void finish(const kg_gjk_shape *a, const kg_gjk_shape *b, const simplex *s, kg_gjk_result *out) {
    double v[3], ma = kg_convex_margin(a->c), mb = kg_convex_margin(b->c);
    memset(out->pa, 0, sizeof out->pa);
    memset(out->pb, 0, sizeof out->pb);
    for (int i = 0; i < s->n; i++)
        for (int k = 0; k < 3; k++) out->pa[k] += s->lam[i] * s->v[i].a[k], out->pb[k] += s->lam[i] * s->v[i].b[k];
    for (int k = 0; k < 3; k++) v[k] = out->pa[k] - out->pb[k];
    double dc = kg_vec3_norm(v);
    for (int k = 0; k < 3; k++) {
        out->n[k] = dc > 0 ? -v[k] / dc : 0;
        out->pa[k] += ma * out->n[k];
        out->pb[k] -= mb * out->n[k];
    }
    out->dist = dc - ma - mb;
}

/* A point given in shape s's frame, in the world. */
static void placed_point(const kg_gjk_shape *s, const double l[3], double out[3]) {
    kg_mat3_vec(out, s->r, l);
    for (int k = 0; k < 3; k++) out[k] += s->p[k];
}

/* s from the seed's points placed at the shapes' poses, reduced to its face
 * nearest the origin. Returns 0 (s unusable) when the seed is empty or its
 * simplex holds the origin. */
static int seeded(const kg_gjk_shape *a, const kg_gjk_shape *b, const kg_gjk_seed *seed, simplex *s) {
    if (!seed || seed->n < 1 || seed->n > 4) return 0;
    s->n = seed->n;
    for (int i = 0; i < s->n; i++) {
        vertex *x = &s->v[i];
        placed_point(a, seed->a[i], x->a), placed_point(b, seed->b[i], x->b);
        for (int k = 0; k < 3; k++) x->y[k] = x->a[k] - x->b[k];
    }
    return !reduce(s);
}

/* The simplex s into seed, its points in their shapes' frames. */
static void keep_seed(const kg_gjk_shape *a, const kg_gjk_shape *b, const simplex *s, kg_gjk_seed *seed) {
    seed->n = s->n;
    for (int i = 0; i < s->n; i++) {
        double d[3];
        for (int k = 0; k < 3; k++) d[k] = s->v[i].a[k] - a->p[k];
        kg_mat3_tvec(seed->a[i], a->r, d);
        for (int k = 0; k < 3; k++) d[k] = s->v[i].b[k] - b->p[k];
        kg_mat3_tvec(seed->b[i], b->r, d);
    }
}

KG_AVX2_CLONE static int gjk_distance(const kg_gjk_shape *a, const kg_gjk_shape *b, const double guess[3], double beyond, double tol,
                                      kg_gjk_seed *seed, kg_gjk_result *out) {
    const double margins = kg_convex_margin(a->c) + kg_convex_margin(b->c);
    double v[3] = {1, 0, 0};
    /* the simplex and the candidate made from it and the new point, swapped when the
     * candidate is kept: copying whole simplices (four vertices whatever their number)
     * into and back from the candidate took a tenth of GJK's own instructions */
    simplex buf[2], *s = &buf[0], *t = &buf[1];
    int calls = 0;
    if (seeded(a, b, seed, s)) {
        tol *= KG_GJK_SEED_TOLERANCE;
        combine(s, s->lam, v);
    } else {
        if (guess && (guess[0] != 0 || guess[1] != 0 || guess[2] != 0)) kg_vec3_copy(v, guess);
        else if (a->p[0] != b->p[0] || a->p[1] != b->p[1] || a->p[2] != b->p[2])
            for (int k = 0; k < 3; k++) v[k] = a->p[k] - b->p[k];
        support(a, b, v, &s->v[0]);
        s->n = 1, s->lam[0] = 1, calls = 1;
        kg_vec3_copy(v, s->v[0].y);
    }
    double vv = kg_vec3_dot(v, v), size2 = vv, lower = 0;
    for (int i = 0; i < s->n; i++) size2 = kg_fmax(size2, kg_vec3_dot(s->v[i].y, s->v[i].y));
    int inside = 0;
    while (calls < KG_GJK_MAX_ITERATIONS && !inside) {
        if (vv <= KG_GJK_TOUCH * KG_GJK_TOUCH * size2) break; /* touching */
        vertex w;
        support(a, b, v, &w);
        calls++;
        double vw = kg_vec3_dot(v, w.y);
        size2 = kg_fmax(size2, kg_vec3_dot(w.y, w.y));
        if (vw > 0) lower = kg_fmax(lower, vw / sqrt(vv)); /* the plane normal to v through w separates */
        if (vv - vw <= KG_GJK_RELATIVE * vv) break;     /* |v| within the bound of the distance */
        if (lower > 0 && sqrt(vv) - lower <= tol) break; /* within the caller's tolerance */
        if (lower > 0 && lower - margins >= beyond) break; /* far enough for the caller */
        int repeated = 0;
        for (int i = 0; i < s->n && !repeated; i++) repeated = !memcmp(s->v[i].y, w.y, sizeof w.y);
        if (repeated) break; /* no way forward: rounding */
        t->n = s->n;
        for (int i = 0; i < s->n; i++) t->v[i] = s->v[i];
        t->v[t->n++] = w;
        inside = reduce(t);
        double u[3];
        combine(t, t->lam, u);
        double uu = kg_vec3_dot(u, u);
        if (!inside && !(uu < vv)) break; /* no progress: rounding again; keep s */
        simplex *kept = t;
        t = s, s = kept, vv = uu;
        kg_vec3_copy(v, u);
    }
    int apart = !inside && lower > 0 && vv > KG_GJK_TOUCH * KG_GJK_TOUCH * size2;
    out->iterations = calls;
    finish(a, b, s, out);
    if (seed) {
        if (apart) keep_seed(a, b, s, seed);
        else seed->n = 0;
    }
    return apart;
}

/* The exported functions around the static clone (KG_AVX2_CLONE). */
int kg_gjk_distance(const kg_gjk_shape *a, const kg_gjk_shape *b, const double guess[3], double beyond, double tol,
                    kg_gjk_result *out) {
    return gjk_distance(a, b, guess, beyond, tol, NULL, out);
}

int kg_gjk_distance_from(const kg_gjk_shape *a, const kg_gjk_shape *b, const double guess[3], double beyond, double tol,
                         kg_gjk_seed *seed, kg_gjk_result *out) {
    return gjk_distance(a, b, guess, beyond, tol, seed, out);
}
