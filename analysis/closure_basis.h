/* The one mechanism both closure solvers share (kg_closure_solve in
 * analysis/jacobian.h, over the Jacobian's independent coordinates, and
 * kg_closed_update in analysis/dynamics, over the dynamics' velocity
 * coordinates with the mimic rows): given a constraint Jacobian J_C (nrow x
 * ncol, row-major) and an order of preference, the columns that become
 * dependent (theta_S) and the generalised ones (theta_G), and W with
 * theta' = W theta_G' (J_C W = 0).
 *
 * Dependent columns are picked greedily in the order given, each while it adds
 * to the rank: its part orthogonal to those before (Gram-Schmidt, twice: a
 * nearly dependent column loses orthogonality in one pass) longer than tol.
 * That gives J_S = Q^T R, so H = -J_S^-1 J_G solves by R's back-substitution,
 * in least squares over all rows (exact when the rows are consistent, as
 * closure rows are; redundant rows, e.g. a planar loop's 3 of 6, are kept).
 * Nothing here allocates: the caller's workspace (kg_basis_work). */
#ifndef KG_CLOSURE_BASIS_H
#define KG_CLOSURE_BASIS_H

typedef struct kg_basis_work {
    double *Q;   /* [ncol x nrow] orthonormal basis of J_S's columns, one per row */
    double *R;   /* [ncol x ncol] J_S = Q^T R, upper triangular, row stride ncol */
    double *rc;  /* [ncol] Gram-Schmidt coefficients */
    double *col; /* [nrow] */
    double *x;   /* [ncol] */
    int *is_dep; /* [ncol] */
} kg_basis_work;

/* The split: dep [rank] the dependent columns in pivot order, gen [*ngen] the
 * others in increasing order. Returns the rank. */
int kg_basis_split(const double *JC, int nrow, int ncol, const int *order, int norder, double tol, kg_basis_work *w,
                   int *dep, int *gen, int *ngen);

/* x [rank] = the least-squares solution of J_S x = y [nrow] (R x = Q y),
 * after kg_basis_split. */
void kg_basis_solve(int nrow, int ncol, int rank, const kg_basis_work *w, const double *y, double *x);

/* W [ncol x ngen] row-major after kg_basis_split: gen rows the unit vectors,
 * dep rows H. */
void kg_basis_w(const double *JC, int nrow, int ncol, int rank, const int *dep, const int *gen, int ngen,
                kg_basis_work *w, double *W);

/* The largest |J_C W| entry (0 up to rounding). */
double kg_basis_residual(const double *JC, int nrow, int ncol, const double *W, int ngen);

#endif
