#include "analysis/manipulability.h"

#include <lapacke.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The singular values and left singular vectors of the 3 x n block of J at row r0. */
static int ellipsoid(const double *J, int n, int ld, int r0, kg_ellipsoid *e) {
    int k = n < 3 ? n : 3;
    double *a = malloc((size_t)3 * n * sizeof *a + 1), *vt = malloc((size_t)k * n * sizeof *vt + 1), s[3] = {0, 0, 0}, u[9];
    if (!a || !vt) {
        free(a);
        free(vt);
        return -1;
    }
    for (int i = 0; i < 3; i++) memcpy(a + (size_t)i * n, J + (size_t)(r0 + i) * ld, (size_t)n * sizeof *a);
    double sv[3] = {0, 0, 0};
    int rc = LAPACKE_dgesdd(LAPACK_ROW_MAJOR, 'S', 3, n, a, n, sv, u, k, vt, n);
    free(a);
    free(vt);
    if (rc != 0) return -1;
    memset(e, 0, sizeof *e);
    for (int c = 0; c < k; c++) {
        s[c] = sv[c];
        for (int i = 0; i < 3; i++) e->axes[3 * i + c] = u[i * k + c];
    }
    if (k < 3) { /* complete the axes to a right-handed basis (their lengths are 0) */
        double *x = e->axes;
        if (k == 1) { /* any unit vector orthogonal to the first */
            double c0[3] = {x[0], x[3], x[6]}, t[3] = {fabs(c0[0]) < 0.9 ? 1 : 0, fabs(c0[0]) < 0.9 ? 0 : 1, 0};
            double d = t[0] * c0[0] + t[1] * c0[1] + t[2] * c0[2], o[3], n2 = 0;
            for (int i = 0; i < 3; i++) o[i] = t[i] - d * c0[i], n2 += o[i] * o[i];
            for (int i = 0; i < 3; i++) x[3 * i + 1] = o[i] / sqrt(n2);
        }
        double a0[3] = {x[0], x[3], x[6]}, a1[3] = {x[1], x[4], x[7]};
        x[2] = a0[1] * a1[2] - a0[2] * a1[1];
        x[5] = a0[2] * a1[0] - a0[0] * a1[2];
        x[8] = a0[0] * a1[1] - a0[1] * a1[0];
    }
    memcpy(e->length, s, sizeof s);
    return 0;
}

int kg_manipulability_svd(const double *J, int n, int ld, kg_manipulability *out) {
    memset(out, 0, sizeof *out);
    if (n <= 0) return 0;
    /* u and vt are not computed, but LAPACKE checks their leading dimensions in row-major */
    double *a = malloc((size_t)6 * n * sizeof *a + 1), s[6] = {0, 0, 0, 0, 0, 0}, u[36];
    double *vt = malloc((size_t)n * n * sizeof *vt + 1);
    if (!a || !vt) {
        free(a);
        free(vt);
        return -1;
    }
    for (int i = 0; i < 6; i++) memcpy(a + (size_t)i * n, J + (size_t)i * ld, (size_t)n * sizeof *a);
    int rc = LAPACKE_dgesdd(LAPACK_ROW_MAJOR, 'N', 6, n, a, n, s, u, 6, vt, n);
    free(a);
    free(vt);
    if (rc != 0) return -1;
    out->nsigma = n < 6 ? n : 6;
    out->w = 1;
    for (int k = 0; k < out->nsigma; k++) {
        out->sigma[k] = s[k];
        out->w *= s[k];
    }
    out->inverse_condition = s[0] > 0 ? s[out->nsigma - 1] / s[0] : 0;
    if (ellipsoid(J, n, ld, 0, &out->translation) || ellipsoid(J, n, ld, 3, &out->rotation)) return -1;
    return 0;
}

/* w from the k x k Gram matrix G by LDL^T: det(G) = prod(D_j), so w =
 * sqrt(prod(D_j)), with one square root and one division per column. Inlined
 * with k = 6 so that the loops unroll (this runs once per workspace sample). */
static inline double gram_w(double *G, int k, double scale) {
    double D[6], prod = 1, tol = 1e-28 * (scale > 0 ? scale : 1);
    for (int j = 0; j < k; j++) {
        double t[6]; /* L_jp D_p */
        double d = G[j * k + j];
        for (int p = 0; p < j; p++) {
            t[p] = G[j * k + p] * D[p];
            d -= G[j * k + p] * t[p];
        }
        if (!(d > tol)) return 0;
        D[j] = d;
        prod *= d;
        double inv = 1 / d;
        for (int i = j + 1; i < k; i++) {
            double v = G[i * k + j];
            for (int p = 0; p < j; p++) v -= G[i * k + p] * t[p];
            G[i * k + j] = v * inv;
        }
    }
    return sqrt(prod);
}

double kg_manipulability_w(const double *J, int n, int ld) {
    if (n <= 0) return 0;
    /* the Gram matrix of the smaller side, lower triangle: J J^T (6 x 6) or J^T J
     * (n x n, n < 6), summed as outer products of J's columns (rows) so that its
     * entries are independent chains rather than one long dependent one */
    double G[36] = {0}, scale = 0;
    if (n >= 6) {
        for (int c = 0; c < n; c++) {
            double x[6];
            for (int i = 0; i < 6; i++) x[i] = J[i * ld + c];
            for (int i = 0; i < 6; i++)
                for (int j = 0; j <= i; j++) G[i * 6 + j] += x[i] * x[j];
        }
        for (int i = 0; i < 6; i++) scale = G[i * 6 + i] > scale ? G[i * 6 + i] : scale;
        return gram_w(G, 6, scale);
    }
    for (int r = 0; r < 6; r++)
        for (int i = 0; i < n; i++)
            for (int j = 0; j <= i; j++) G[i * n + j] += J[r * ld + i] * J[r * ld + j];
    for (int i = 0; i < n; i++) scale = G[i * n + i] > scale ? G[i * n + i] : scale;
    return gram_w(G, n, scale);
}
