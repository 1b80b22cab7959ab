/* The ground's reaction shared between contact points (a quadratic program
 * over the points' forces within friction pyramids), and the support
 * polygon's margin around a ZMP. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/dynamics/contacts.h"
#include "core/spatial.h"

int dyn_contact_init(dyn_contact_work *w) {
    memset(w, 0, sizeof *w);
    w->qp = kg_qp_work_new(3 * DYN_MAX_POINTS, 6 + 4 * DYN_MAX_POINTS);
    return w->qp ? 0 : -1;
}

void dyn_contact_clear(dyn_contact_work *w) {
    kg_qp_work_free(w->qp);
    w->qp = NULL;
}

int dyn_contact_share(dyn_contact_work *w, const double (*p)[3], int np, const double W[6], double mu, double *f,
                      int *exact) {
    const int n = 3 * np;
    *exact = 0;
    if (np < 1 || np > DYN_MAX_POINTS) return KG_QP_BAD_INPUT;
    /* the wrench rows about the points' centroid c: sum f_i, sum (p_i - c) x f_i */
    double c[3] = {0, 0, 0}, Wc[6], t[3];
    for (int i = 0; i < np; i++)
        for (int a = 0; a < 3; a++) c[a] += p[i][a] / np;
    kg_vec3_cross(t, c, W);
    for (int a = 0; a < 3; a++) Wc[a] = W[a], Wc[3 + a] = W[3 + a] - t[a];
    double *A = w->A;
    memset(A, 0, 6 * (size_t)n * sizeof *A);
    for (int i = 0; i < np; i++) {
        const double r[3] = {p[i][0] - c[0], p[i][1] - c[1], p[i][2] - c[2]};
        for (int a = 0; a < 3; a++) A[a * n + 3 * i + a] = 1;
        /* (r x f)_x = r_y f_z - r_z f_y, ... */
        A[3 * n + 3 * i + 1] = -r[2], A[3 * n + 3 * i + 2] = r[1];
        A[4 * n + 3 * i + 0] = r[2], A[4 * n + 3 * i + 2] = -r[0];
        A[5 * n + 3 * i + 0] = -r[1], A[5 * n + 3 * i + 1] = r[0];
    }
    /* friction pyramids: (mu / sqrt 2) fz -+ fx >= 0, the same for fy; fz >= 0 */
    const double m = mu * 0.70710678118654752440;
    memset(w->C, 0, 4 * (size_t)np * n * sizeof *w->C);
    for (int i = 0; i < np; i++) {
        for (int k = 0; k < 4; k++) {
            double *row = w->C + (size_t)(4 * i + k) * n;
            row[3 * i + 2] = m;
            row[3 * i + (k >> 1)] = k & 1 ? 1 : -1;
            w->b[4 * i + k] = 0;
        }
        w->lb[3 * i] = w->lb[3 * i + 1] = -INFINITY, w->lb[3 * i + 2] = 0;
        w->ub[3 * i] = w->ub[3 * i + 1] = w->ub[3 * i + 2] = INFINITY;
    }
    /* first exactly: min |f|^2 subject to the wrench */
    memset(w->H, 0, (size_t)n * n * sizeof *w->H);
    for (int i = 0; i < n; i++) w->H[i * n + i] = 1, w->g[i] = 0;
    kg_qp p1 = {.n = n, .H = w->H, .g = w->g, .neq = 6, .C = A, .d = Wc, .nin = 4 * np, .A = w->C, .b = w->b,
                .lb = w->lb, .ub = w->ub};
    int st = kg_qp_solve(&p1, f, NULL, w->qp, NULL);
    if (st == KG_QP_OK) {
        *exact = 1;
        return st;
    }
    /* else the least-squares fit: min |A f - Wc|^2 + eps |f|^2 */
    double diag = 0;
    for (int i = 0; i < n; i++) {
        for (int j = i; j < n; j++) {
            double s = 0;
            for (int r = 0; r < 6; r++) s += A[r * n + i] * A[r * n + j];
            w->H[i * n + j] = w->H[j * n + i] = s;
        }
        diag += w->H[i * n + i] / n;
        double s = 0;
        for (int r = 0; r < 6; r++) s -= A[r * n + i] * Wc[r];
        w->g[i] = s;
    }
    for (int i = 0; i < n; i++) w->H[i * n + i] += 1e-9 * diag;
    kg_qp p2 = {.n = n, .H = w->H, .g = w->g, .nin = 4 * np, .A = w->C, .b = w->b, .lb = w->lb, .ub = w->ub};
    return kg_qp_solve(&p2, f, NULL, w->qp, NULL);
}

static double cross2(const double *o, const double *a, const double *b) {
    return (a[0] - o[0]) * (b[1] - o[1]) - (a[1] - o[1]) * (b[0] - o[0]);
}

/* Distance from z to the segment a-b. */
static double segment_distance(const double *a, const double *b, const double *z) {
    const double d[2] = {b[0] - a[0], b[1] - a[1]}, e[2] = {z[0] - a[0], z[1] - a[1]};
    const double dd = d[0] * d[0] + d[1] * d[1];
    double s = dd > 0 ? (e[0] * d[0] + e[1] * d[1]) / dd : 0;
    s = s < 0 ? 0 : s > 1 ? 1 : s;
    return hypot(e[0] - s * d[0], e[1] - s * d[1]);
}

static int by_xy(const void *a, const void *b) {
    const double *p = a, *q = b;
    return p[0] < q[0] ? -1 : p[0] > q[0] ? 1 : p[1] < q[1] ? -1 : p[1] > q[1];
}

double dyn_support_margin(const double (*p)[3], int np, const double z[2]) {
    double pts[DYN_MAX_POINTS][2], hull[2 * DYN_MAX_POINTS + 1][2];
    if (np > DYN_MAX_POINTS) np = DYN_MAX_POINTS;
    for (int i = 0; i < np; i++) pts[i][0] = p[i][0], pts[i][1] = p[i][1];
    qsort(pts, (size_t)np, sizeof pts[0], by_xy);
    /* Andrew's monotone chain, counter-clockwise, collinear points dropped */
    int h = 0;
    for (int i = 0; i < np; i++) {
        while (h >= 2 && cross2(hull[h - 2], hull[h - 1], pts[i]) <= 1e-15) h--;
        hull[h][0] = pts[i][0], hull[h][1] = pts[i][1], h++;
    }
    for (int i = np - 2, lo = h + 1; i >= 0; i--) {
        while (h >= lo && cross2(hull[h - 2], hull[h - 1], pts[i]) <= 1e-15) h--;
        hull[h][0] = pts[i][0], hull[h][1] = pts[i][1], h++;
    }
    if (h > 1) h--; /* the first point closes the chain */
    double dist = INFINITY;
    if (h < 3) { /* a point or a segment */
        for (int i = 0; i < h; i++) dist = fmin(dist, segment_distance(hull[i], hull[(i + 1) % h], z));
        return -dist;
    }
    int inside = 1;
    for (int i = 0; i < h; i++) {
        const double *a = hull[i], *b = hull[(i + 1) % h];
        dist = fmin(dist, segment_distance(a, b, z));
        if (cross2(a, b, z) < 0) inside = 0;
    }
    return inside ? dist : -dist;
}
