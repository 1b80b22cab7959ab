/* The frame's ZMP inside the support polygons ahead that keeps the sampled
 * cart-table model bounded (the method: analysis/zmp_window.h). */
#include "analysis/zmp_window.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Newton's steps on the multiplier at most; halvings of one step at most. */
#define NEWTON_STEPS 30
#define HALVINGS 12
/* m: the multiplier's bound. It moves the window's first ZMP beyond any polygon, its last
 * (weight about e^-(preview_time sqrt(g / z_c))) only 0.05-0.2 m: when the COM cannot be
 * caught, the far ZMPs stay near their references and the velocity change is the milder.
 * Unbounded (every ZMP at its extreme), the matrix met 146 ZMP bars, not 158, and lost 4 slip
 * bars. */
#define M_BOUND 10.0

int kg_zmp_window_init(kg_zmp_window *z, double dt, double zc, double g, int n) {
    memset(z, 0, sizeof *z);
    if (!(dt > 0) || !(zc > 0) || !(g > 0) || n < 1) return -1;
    z->a = g / zc * dt * dt;
    z->l = (2 + z->a + sqrt(z->a * z->a + 4 * z->a)) / 2;
    z->n = n;
    z->w = malloc((size_t)n * sizeof *z->w);
    if (!z->w) return -1;
    double w = 1;
    for (int j = 0; j < n; j++, w /= z->l) z->w[j] = w;
    z->w[n - 1] = z->w[n - 1] / (1 - 1 / z->l); /* the last ZMP held for ever after */
    for (int j = 0; j < n; j++) z->w2 += z->w[j] * z->w[j];
    return 0;
}

void kg_zmp_window_free(kg_zmp_window *z) {
    free(z->w);
    z->w = NULL;
}

static void centroid(const double (*v)[2], int n, double c[2]) {
    c[0] = c[1] = 0;
    for (int i = 0; i < n; i++) c[0] += v[i][0] / n, c[1] += v[i][1] / n;
}

void kg_zmp_poly_shrink(const double (*v)[2], int n, double margin, kg_zmp_poly *out) {
    if (n > KG_ZMP_POLY_MAX) n = KG_ZMP_POLY_MAX; /* callers pass at most that many */
    out->n = n;
    if (n <= 0) return;
    memcpy(out->v, v, (size_t)n * sizeof *v);
    if (!(margin > 0)) return;
    if (n < 3) { /* no inside to keep a margin in */
        centroid(v, n, out->v[0]), out->n = 1;
        return;
    }
    double nrm[KG_ZMP_POLY_MAX][2], d[KG_ZMP_POLY_MAX];
    for (int i = 0; i < n; i++) { /* each edge's inward normal and offset line nrm . x = d */
        const double *a = v[i], *b = v[(i + 1) % n];
        double ex = b[0] - a[0], ey = b[1] - a[1], len = hypot(ex, ey);
        if (!(len > 0)) {
            centroid(v, n, out->v[0]), out->n = 1;
            return;
        }
        nrm[i][0] = -ey / len, nrm[i][1] = ex / len;
        d[i] = nrm[i][0] * a[0] + nrm[i][1] * a[1] + margin;
    }
    /* the kept edges' lines meet at the vertices; an edge whose two ends come out the wrong
     * way round has vanished (a short edge, a chamfer, goes long before the polygon is narrow):
     * its line is dropped and the vertices found again, until none is left reversed */
    int keep[KG_ZMP_POLY_MAX], k = n;
    for (int i = 0; i < n; i++) keep[i] = i;
    while (k >= 3) {
        for (int i = 0; i < k; i++) {
            int h = keep[(i + k - 1) % k], e = keep[i];
            double det = nrm[h][0] * nrm[e][1] - nrm[h][1] * nrm[e][0];
            if (fabs(det) < 1e-12) { /* the two lines parallel: the vertex shifted along its normal */
                out->v[i][0] = v[e][0] + margin * nrm[e][0], out->v[i][1] = v[e][1] + margin * nrm[e][1];
                continue;
            }
            out->v[i][0] = (d[h] * nrm[e][1] - d[e] * nrm[h][1]) / det;
            out->v[i][1] = (nrm[h][0] * d[e] - nrm[e][0] * d[h]) / det;
        }
        int gone = -1;
        for (int i = 0; i < k && gone < 0; i++) {
            const double *a = out->v[i], *b = out->v[(i + 1) % k];
            double tx = nrm[keep[i]][1], ty = -nrm[keep[i]][0]; /* the edge's direction */
            if ((b[0] - a[0]) * tx + (b[1] - a[1]) * ty < 0) gone = i;
        }
        if (gone < 0) {
            out->n = k;
            return;
        }
        for (int i = gone; i + 1 < k; i++) keep[i] = keep[i + 1];
        k--;
    }
    centroid(v, n, out->v[0]), out->n = 1; /* narrower than twice the margin */
}

/* The nearest point of q to x into out; its derivative's kind: 2 inside or
 * no polygon (identity: any point), 1 on an edge (the projector onto tangent
 * t), 0 at a vertex or a point. */
static int project(const kg_zmp_poly *q, const double x[2], double out[2], double t[2]) {
    out[0] = x[0], out[1] = x[1];
    if (!q || q->n == 0) return 2;
    if (q->n == 1) {
        out[0] = q->v[0][0], out[1] = q->v[0][1];
        return 0;
    }
    int inside = q->n >= 3, kind = 0;
    for (int i = 0; i < q->n && inside; i++) { /* most ZMPs are inside: tested first */
        const double *a = q->v[i], *b = q->v[(i + 1) % q->n];
        inside = (b[0] - a[0]) * (x[1] - a[1]) - (b[1] - a[1]) * (x[0] - a[0]) >= 0;
    }
    if (inside) return 2;
    double best = INFINITY;
    for (int i = 0; i < q->n && (q->n > 2 || i == 0); i++) {
        const double *a = q->v[i], *b = q->v[(i + 1) % q->n];
        double ex = b[0] - a[0], ey = b[1] - a[1], l2 = ex * ex + ey * ey;
        double s = l2 > 0 ? ((x[0] - a[0]) * ex + (x[1] - a[1]) * ey) / l2 : 0;
        int on_edge = s > 0 && s < 1;
        s = s < 0 ? 0 : s > 1 ? 1 : s;
        double px = a[0] + s * ex, py = a[1] + s * ey, dd = (px - x[0]) * (px - x[0]) + (py - x[1]) * (py - x[1]);
        if (dd < best) {
            best = dd, out[0] = px, out[1] = py, kind = on_edge;
            if (on_edge) t[0] = ex / sqrt(l2), t[1] = ey / sqrt(l2);
        }
    }
    return kind;
}

void kg_zmp_poly_project(const kg_zmp_poly *q, const double x[2], double out[2]) {
    double t[2];
    project(q, x, out, t);
}

/* (1)'s residual at multiplier m: g = sum w_j p_j - U, and its derivative J
 * (2 x 2, row-major); the first ZMP into p0. */
static void residual(const kg_zmp_window *z, const double (*refs)[2], const kg_zmp_poly *const *polys,
                     const double U[2], const double m[2], double g[2], double J[4], double p0[2]) {
    g[0] = -U[0], g[1] = -U[1];
    J[0] = J[1] = J[2] = J[3] = 0;
    for (int j = 0; j < z->n; j++) {
        const double w = z->w[j];
        double x[2] = {refs[j][0] + w * m[0], refs[j][1] + w * m[1]}, p[2], t[2] = {0, 0};
        int kind = project(polys[j], x, p, t);
        if (j == 0) p0[0] = p[0], p0[1] = p[1];
        g[0] += w * p[0], g[1] += w * p[1];
        if (kind == 2) J[0] += w * w, J[3] += w * w;
        else if (kind == 1) {
            J[0] += w * w * t[0] * t[0], J[1] += w * w * t[0] * t[1];
            J[2] += w * w * t[1] * t[0], J[3] += w * w * t[1] * t[1];
        }
    }
}

int kg_zmp_window_solve(const kg_zmp_window *z, double c_prev[2], const double c[2], const double (*refs)[2],
                        const kg_zmp_poly *const *polys, double m[2], double p[2]) {
    double U[2], g[2], J[4];
    for (int a = 0; a < 2; a++) U[a] = (c[a] - c_prev[a] / z->l) * z->l / z->a;
    for (int a = 0; a < 2; a++)
        if (!isfinite(m[a])) m[a] = 0;
    residual(z, refs, polys, U, m, g, J, p);
    for (int it = 0; it < NEWTON_STEPS && hypot(g[0], g[1]) > 1e-10; it++) {
        /* a direction no polygon moves in (all at vertices) gets a tiny stiffness: the step
         * then goes as far as the multiplier's bound lets it */
        double eps = 1e-9 * z->w2, A = J[0] + eps, B = J[1], C = J[2], D = J[3] + eps, det = A * D - B * C;
        double dm[2] = {-(D * g[0] - B * g[1]) / det, -(A * g[1] - C * g[0]) / det};
        double norm = hypot(g[0], g[1]), step = 1;
        int taken = 0;
        for (int h = 0; h < HALVINGS && !taken; h++, step *= 0.5) {
            double mt[2], gt[2], Jt[4], pt[2];
            for (int a = 0; a < 2; a++) mt[a] = fmin(fmax(m[a] + step * dm[a], -M_BOUND), M_BOUND);
            residual(z, refs, polys, U, mt, gt, Jt, pt);
            if (hypot(gt[0], gt[1]) < norm * (1 - 1e-4 * step)) {
                memcpy(m, mt, sizeof mt), memcpy(g, gt, sizeof gt), memcpy(J, Jt, sizeof Jt), memcpy(p, pt, sizeof pt);
                taken = 1;
            }
        }
        if (!taken) break;
    }
    if (hypot(g[0], g[1]) <= 1e-9) return 1;
    /* (1) with the ZMPs found, by the COM's velocity (c_prev): the least change that keeps
     * the model from running away (without it a clip held the COM metres off its feet) */
    for (int a = 0; a < 2; a++) c_prev[a] -= z->a * g[a];
    return 0;
}

void kg_zmp_window_advance(const kg_zmp_window *z, double c_prev[2], double c[2], const double p[2]) {
    for (int a = 0; a < 2; a++) {
        double next = (2 + z->a) * c[a] - c_prev[a] - z->a * p[a];
        c_prev[a] = c[a], c[a] = next;
    }
}

void kg_zmp_window_start(const kg_zmp_window *z, const double c[2], const double (*refs)[2], double c_prev[2]) {
    for (int a = 0; a < 2; a++) {
        double U = 0;
        for (int j = 0; j < z->n; j++) U += z->w[j] * refs[j][a];
        double u = U * z->a / z->l; /* (1) with the references: u = c - c_prev / l */
        c_prev[a] = z->l * (c[a] - u);
    }
}
