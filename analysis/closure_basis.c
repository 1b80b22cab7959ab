/* Dependent and generalised coordinates of closure constraints, and W
 * (closure_basis.h). */
#include "analysis/closure_basis.h"

#include <math.h>
#include <string.h>

/* Orthogonalises col against the first r basis vectors (twice), the
 * coefficients into rc; returns what is left of its length. */
static double orthogonalise(const double *Q, int r, int n, double *col, double *rc) {
    for (int p = 0; p < r; p++) rc[p] = 0;
    for (int pass = 0; pass < 2; pass++)
        for (int p = 0; p < r; p++) {
            const double *u = Q + (size_t)p * n;
            double dot = 0;
            for (int i = 0; i < n; i++) dot += u[i] * col[i];
            for (int i = 0; i < n; i++) col[i] -= dot * u[i];
            rc[p] += dot;
        }
    double norm = 0;
    for (int i = 0; i < n; i++) norm += col[i] * col[i];
    return sqrt(norm);
}

int kg_basis_split(const double *JC, int nrow, int ncol, const int *order, int norder, double tol, kg_basis_work *w,
                   int *dep, int *gen, int *ngen) {
    memset(w->is_dep, 0, (size_t)ncol * sizeof *w->is_dep);
    int rank = 0;
    for (int e = 0; e < norder && rank < nrow; e++) {
        const int v = order[e], r = rank;
        double *q = w->Q + (size_t)r * nrow;
        for (int i = 0; i < nrow; i++) q[i] = JC[(size_t)i * ncol + v];
        const double norm = orthogonalise(w->Q, r, nrow, q, w->rc);
        if (norm <= tol) continue;
        for (int i = 0; i < nrow; i++) q[i] /= norm;
        for (int p = 0; p < r; p++) w->R[(size_t)p * ncol + r] = w->rc[p];
        w->R[(size_t)r * ncol + r] = norm;
        dep[rank++] = v;
        w->is_dep[v] = 1;
    }
    *ngen = 0;
    for (int v = 0; v < ncol; v++)
        if (!w->is_dep[v]) gen[(*ngen)++] = v;
    return rank;
}

void kg_basis_solve(int nrow, int ncol, int rank, const kg_basis_work *w, const double *y, double *x) {
    for (int p = 0; p < rank; p++) {
        const double *u = w->Q + (size_t)p * nrow;
        double dot = 0;
        for (int i = 0; i < nrow; i++) dot += u[i] * y[i];
        x[p] = dot;
    }
    for (int p = rank - 1; p >= 0; p--) {
        for (int k = p + 1; k < rank; k++) x[p] -= w->R[(size_t)p * ncol + k] * x[k];
        x[p] /= w->R[(size_t)p * ncol + p];
    }
}

void kg_basis_w(const double *JC, int nrow, int ncol, int rank, const int *dep, const int *gen, int ngen,
                kg_basis_work *w, double *W) {
    memset(W, 0, (size_t)ncol * ngen * sizeof *W);
    for (int g = 0; g < ngen; g++) {
        for (int i = 0; i < nrow; i++) w->col[i] = -JC[(size_t)i * ncol + gen[g]];
        kg_basis_solve(nrow, ncol, rank, w, w->col, w->x);
        for (int k = 0; k < rank; k++) W[(size_t)dep[k] * ngen + g] = w->x[k];
        W[(size_t)gen[g] * ngen + g] = 1;
    }
}

double kg_basis_residual(const double *JC, int nrow, int ncol, const double *W, int ngen) {
    double res = 0;
    for (int i = 0; i < nrow; i++)
        for (int g = 0; g < ngen; g++) {
            double s = 0;
            for (int v = 0; v < ncol; v++) s += JC[(size_t)i * ncol + v] * W[(size_t)v * ngen + g];
            res = fmax(res, fabs(s));
        }
    return res;
}
