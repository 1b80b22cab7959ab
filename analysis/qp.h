/* Dense, strictly convex quadratic programs:
 *
 *     minimise 1/2 x'Hx + g'x  subject to  C x = d,  A x >= b,  lb <= x <= ub
 *
 * by the dual active-set method of Goldfarb and Idnani ("A numerically stable
 * dual method for solving strictly convex quadratic programs", Mathematical
 * Programming 27, 1983), the algorithm of quadprog and eiquadprog. It starts
 * from the unconstrained minimum -H^-1 g, adds the equalities, then adds the
 * most violated constraint one at a time, dropping active ones whose
 * multipliers would turn negative; every iterate is dual feasible, the cost
 * only rises, and the first primal feasible iterate is the optimum.
 *
 * Sized for differential IK and retargeting (tens of unknowns, up to a few
 * hundred rows, most unknowns bounded), solved thousands of times a second:
 * kg_qp_solve allocates nothing, bounds cost O(n) per use (no dense row), and
 * the active set of one solve can seed the next (kg_qp.hint).
 *
 * Tolerances, all relative: a constraint counts as violated when its slack is
 * below -1e-10 (|a| |x| + |b|); a constraint whose normal lies within 1e-10
 * (relative, in the metric of H^-1) of the active normals' span is dependent
 * (an equality then redundant if x satisfies it, else infeasible); H is not
 * convex when a Cholesky pivot falls to 1e-13 of its largest diagonal entry. */
#ifndef KG_QP_H
#define KG_QP_H

typedef struct kg_qp {
    int n;                     /* unknowns */
    const double *H;           /* [n*n] row-major, symmetric positive definite (read-only; only
                                * the upper triangle is read) */
    const double *g;           /* [n] */
    int neq; const double *C, *d;   /* [neq*n] row-major, [neq] */
    int nin; const double *A, *b;   /* [nin*n] row-major, [nin]; b[i] = -INFINITY: row i is ignored */
    const double *lb, *ub;     /* [n] each, or NULL; -INFINITY / +INFINITY entries mean no bound */
    const int *hint; int nhint;/* constraints to try first (warm start), indexed as below; may be
                                * NULL. After the equalities, those violated are added in order
                                * (full steps), then any whose multiplier came out negative is
                                * dropped again, before the usual loop. Indices out of range, of
                                * equalities or of absent bounds are skipped */
    int max_iterations;        /* active-set changes (additions and drops, equalities included);
                                * 0: 10 (n + m), m the number of rows and finite bounds */
} kg_qp;

/* Constraint indices: equality i -> i; inequality i -> neq + i; lower bound of
 * x_i -> neq + nin + i; upper bound of x_i -> neq + nin + n + i. */
enum {
    KG_QP_OK = 0,
    KG_QP_INFEASIBLE,      /* no x satisfies the constraints (x: the last iterate) */
    KG_QP_MAX_ITERATIONS,  /* the cap was reached (x: the last iterate, dual feasible, not primal) */
    KG_QP_NOT_CONVEX,      /* H not (numerically) positive definite (x: zeros) */
    KG_QP_BAD_INPUT        /* sizes beyond the work's, n < 1, NaN or infinite data (x: zeros) */
};

typedef struct kg_qp_result {
    int status;            /* KG_QP_* */
    int iterations;        /* active-set changes */
    int nactive;           /* constraints active at the end, equalities included */
    double cost;           /* 1/2 x'Hx + g'x at the returned x */
} kg_qp_result;

typedef struct kg_qp_work kg_qp_work;

/* Scratch for problems of up to nmax unknowns and mmax = neq + nin rows (the
 * bounds come on top, 2 nmax); NULL when memory runs out or a size is < 0. */
kg_qp_work *kg_qp_work_new(int nmax, int mmax);
void kg_qp_work_free(kg_qp_work *w);

/* Solves p into x[n] and returns the status (also in r, which may be NULL).
 * lambda (may be NULL): [neq + nin + 2n] Lagrange multipliers, indexed as the
 * constraints, with
 *     H x + g = C'lambda_eq + A'lambda_in + lambda_lb - lambda_ub,
 * lambda >= 0 for inequalities and bounds, 0 for inactive ones (and for an
 * equality found redundant: a row that is a combination of earlier ones and
 * consistent with them is skipped rather than reported infeasible). */
int kg_qp_solve(const kg_qp *p, double *x, double *lambda, kg_qp_work *w, kg_qp_result *r);

/* The active set of the last solve (indices as above, equalities first);
 * returns its size. Pass it as the next solve's hint. */
int kg_qp_active(const kg_qp_work *w, const int **idx);

/* "ok", "infeasible", "max_iterations", "not_convex", "bad_input" ("unknown"
 * for anything else). */
const char *kg_qp_status_name(int status);

#endif
