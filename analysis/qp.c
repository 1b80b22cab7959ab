/* Goldfarb-Idnani dual active-set QP (see qp.h).
 *
 * State, as in the paper: with H = L L' and N the active constraints' normals
 * (columns), J = L^-T Q and R upper triangular such that
 *     J' N = [R; 0],
 * Q orthogonal. J's first q columns (J1) span the active normals in the metric
 * of H^-1, the others (J2) their complement. For a constraint with normal n,
 * d = J'n splits into d1 (its part along the active normals) and d2:
 *     z = J2 d2       the primal step direction (H-conjugate to the actives),
 *     r = R^-1 d1     how the active multipliers change per unit of the new one,
 * and z'n = |d2|^2, zero when n depends on the active normals.
 *
 * Layout: J and R column-major, leading dimension the current problem's n
 * (not nmax: compact in cache). J's updates act on whole columns (a rank-1
 * change of J2 when adding, rotations of column pairs when dropping), which
 * as contiguous loops of length n run 1.7x (rank-1) and 3.5x (rotations)
 * faster than the same updates on rows at n = 40; a bound's d = J'e_i is row
 * i, gathered with stride n. R gains a column by a copy and loses one by a
 * shift. */
#include "analysis/qp.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/spatial.h"

/* A Cholesky pivot at most this fraction of H's largest diagonal entry means
 * H is not (numerically) positive definite: cond(H) beyond ~1e13 leaves fewer
 * than three correct digits in x. */
#define KG_QP_PIVOT_MIN 1e-13
/* A constraint is linearly dependent on the active ones when its normal's part
 * outside their span, |d2|, is at most this fraction of the whole, |d| (both
 * in the H^-1 metric, so the test is scale-free). Rounding leaves |d2| / |d|
 * around n eps sqrt(cond(H)) for an exactly dependent normal: 1e-10 covers
 * cond(H) up to ~1e8 at n = 100. The same fraction decides when a multiplier
 * change r_k is noise rather than a real dependence on constraint k. */
#define KG_QP_DEPENDENT 1e-10
/* A constraint is violated when a'x - b < -KG_QP_FEASIBILITY (|a| |x| + |b|):
 * relative to the size of the terms, so that rounding (about n eps of them)
 * never counts as a violation whatever the data's units. |x| is the larger of
 * x's and the unconstrained minimum's: x is that minimum plus steps, and when
 * the constraints cancel most of it (a solution 1e-4 the size of the minimum,
 * H's condition 1e7) the rounding left is of the minimum's size; measured on x
 * alone, 4e-14 of it made a feasible problem "infeasible". */
#define KG_QP_FEASIBILITY 1e-10

/* The loops that carry the flops, compiled twice, for AVX2 and for the base
 * x86-64 ISA, the one the CPU supports chosen when the library loads (GCC's
 * target_clones, an ifunc), with the kernels inlined into each: 256-bit
 * vectors take bench_qp from 28 to 20 us (cold) and from 23 to 16 us (warm).
 * Results are identical bit for bit (checked on 300 random problems): ISO C
 * mode keeps floating-point contraction (FMA) off, and vectorising changes no
 * operation's order (the only sums are the dot products' four partial sums,
 * kept apart). Elsewhere the plain code. */
#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__) && defined(__linux__)
#define KG_QP_HOT __attribute__((target_clones("avx2", "default")))
#define KG_QP_KERNEL __attribute__((always_inline)) inline /* into each clone, not one SSE2 copy */
#else
#define KG_QP_HOT
#define KG_QP_KERNEL inline
#endif

struct kg_qp_work {
    int nmax, mmax;
    int n;                 /* of the problem being solved (the layouts' leading dimension) */
    double *J;             /* [nmax^2] column-major */
    double *R;             /* [nmax^2] column-major, upper triangular q x q (the Cholesky
                            * factor's scratch before the first addition) */
    double *u;             /* [nmax] multipliers of the active constraints */
    double *dnorm;         /* [nmax] |J'n| of each active constraint (R's column norms) */
    double *d, *z, *r;     /* [nmax] the current constraint's d = J'n, z, r */
    double *c, *s;         /* [nmax] Givens cosines and sines of a drop; scratch */
    double *rownorm;       /* [mmax] |C_i|, then |A_i| */
    double *row_s, *row_at;/* [mmax] an inequality's slack when last evaluated, and the path's
                            * length then (-INFINITY: not evaluated this solve) */
    double path;           /* the length of x's path so far this solve: sum of |steps| */
    int *active;           /* [nmax] constraint indices, equalities first */
    unsigned char *is_active; /* [mmax + 2 nmax] */
    int q, meq;            /* active constraints; of which equalities */
    int triangular;        /* J is still U^-1, upper triangular (nothing added yet) */
    double nd, nd2;        /* |d| and |d2| of the current constraint */
    double xscale;         /* |x| of the unconstrained minimum: the size of the terms x is made of */
};

kg_qp_work *kg_qp_work_new(int nmax, int mmax) {
    if (nmax < 0 || mmax < 0) return NULL;
    kg_qp_work *w = calloc(1, sizeof *w);
    if (!w) return NULL;
    size_t n = (size_t)nmax, m = (size_t)mmax;
    w->nmax = nmax, w->mmax = mmax;
    w->J = malloc((2 * n * n + 7 * n + 3 * m + 1) * sizeof(double));
    w->active = malloc((n + 1) * sizeof(int));
    w->is_active = malloc(m + 2 * n + 1);
    if (!w->J || !w->active || !w->is_active) {
        kg_qp_work_free(w);
        return NULL;
    }
    w->R = w->J + n * n;
    w->u = w->R + n * n;
    w->dnorm = w->u + n, w->d = w->dnorm + n, w->z = w->d + n, w->r = w->z + n;
    w->c = w->r + n, w->s = w->c + n, w->rownorm = w->s + n;
    w->row_s = w->rownorm + m, w->row_at = w->row_s + m;
    return w;
}

void kg_qp_work_free(kg_qp_work *w) {
    if (!w) return;
    free(w->J), free(w->active), free(w->is_active);
    free(w);
}

int kg_qp_active(const kg_qp_work *w, const int **idx) {
    *idx = w->active;
    return w->q;
}

const char *kg_qp_status_name(int status) {
    static const char *names[] = {"ok", "infeasible", "max_iterations", "not_convex", "bad_input"};
    return status >= 0 && status <= KG_QP_BAD_INPUT ? names[status] : "unknown";
}

/* ---- kernels ---------------------------------------------------------------- */

/* Four doubles as one vector (GCC's vector extension: one 256-bit register
 * in the AVX2 clones, two 128-bit ones in the others). Its operations are the
 * scalar ones element by element, rounded the same; written out, the kernels
 * below run no loop of their own over the last one to three entries, where
 * the compiler's vectorised loops ended in a scalar one (a third of a dot's
 * instructions at n = 38). */
typedef double kg_qp_v4 __attribute__((vector_size(4 * sizeof(double))));

/* (A 256-bit vector passed to or from a function compiled without AVX goes
 * through memory, an ABI GCC warns of wherever the kernels are inlined into
 * the base clones, for the whole file: they are always inlined, never called.) */
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wpsabi"
#endif
static KG_QP_KERNEL kg_qp_v4 load4(const double *p) {
    kg_qp_v4 v;
    memcpy(&v, p, sizeof v);
    return v;
}

static KG_QP_KERNEL void store4(double *p, kg_qp_v4 v) { memcpy(p, &v, sizeof v); }

/* Four partial sums: without -ffast-math the compiler keeps a single sum
 * serial, one addition latency per element; four chains run about 3x faster
 * at these lengths (and the result still does not depend on the build).
 * Entry i goes to sum i mod 4, the last n mod 4 entries to the first, in
 * order; the sums are added pairwise. */
static KG_QP_KERNEL double dot(const double *a, const double *b, int n) {
    kg_qp_v4 s = {0, 0, 0, 0};
    int i = 0;
    for (; i + 8 <= n; i += 8) {
        s += load4(a + i) * load4(b + i);
        s += load4(a + i + 4) * load4(b + i + 4);
    }
    if (i + 4 <= n) s += load4(a + i) * load4(b + i), i += 4;
    double s0 = s[0];
    if (i < n) s0 += a[i] * b[i];
    if (i + 1 < n) s0 += a[i + 1] * b[i + 1];
    if (i + 2 < n) s0 += a[i + 2] * b[i + 2];
    return (s0 + s[1]) + (s[2] + s[3]);
}

static KG_QP_KERNEL void axpy(double *restrict y, double a, const double *restrict x, int n) {
    const kg_qp_v4 av = {a, a, a, a};
    int i = 0;
    for (; i + 8 <= n; i += 8) {
        store4(y + i, load4(y + i) + av * load4(x + i));
        store4(y + i + 4, load4(y + i + 4) + av * load4(x + i + 4));
    }
    if (i + 4 <= n) store4(y + i, load4(y + i) + av * load4(x + i)), i += 4;
    if (i < n) y[i] += a * x[i];
    if (i + 1 < n) y[i + 1] += a * x[i + 1];
    if (i + 2 < n) y[i + 2] += a * x[i + 2];
}

/* y[j] += (c0 m0[j] + c1 m1[j]) + (c2 m2[j] + c3 m3[j]): combine()'s entry. */
static KG_QP_KERNEL void combine1(double *restrict y, const double c[4], const double *const m[4], int j) {
    y[j] += (c[0] * m[0][j] + c[1] * m[1][j]) + (c[2] * m[2][j] + c[3] * m[3][j]);
}

/* y[0..len) += sum_{r<m} c_r M[r ld + 0..len): four vectors M_r at a time, so
 * y is loaded and stored once per four (about twice as fast as m axpys). With
 * tri, M_r is zero after entry r (the columns of an upper triangular matrix)
 * and only its first r + 1 entries are used. */
static KG_QP_KERNEL void combine(double *restrict y, const double *restrict c, const double *restrict M, int ld, int m,
                    int len, int tri) {
    int r = 0;
    for (; r + 4 <= m; r += 4) {
        const double *m0 = M + r * ld, *m1 = m0 + ld, *m2 = m1 + ld, *m3 = m2 + ld;
        double c0 = c[r], c1 = c[r + 1], c2 = c[r + 2], c3 = c[r + 3];
        const kg_qp_v4 v0 = {c0, c0, c0, c0}, v1 = {c1, c1, c1, c1}, v2 = {c2, c2, c2, c2}, v3 = {c3, c3, c3, c3};
        int l = tri && r + 4 < len ? r + 4 : len, j = 0; /* m0..m2 are zero there (stored zeros) */
        for (; j + 4 <= l; j += 4)
            store4(y + j, load4(y + j) + ((v0 * load4(m0 + j) + v1 * load4(m1 + j)) +
                                          (v2 * load4(m2 + j) + v3 * load4(m3 + j))));
        const double *const mr[4] = {m0, m1, m2, m3};
        if (j < l) combine1(y, c + r, mr, j);
        if (j + 1 < l) combine1(y, c + r, mr, j + 1);
        if (j + 2 < l) combine1(y, c + r, mr, j + 2);
    }
    for (; r < m; r++) axpy(y, c[r], M + r * ld, tri && r + 1 < len ? r + 1 : len);
}

/* ---- the factor and the unconstrained minimum -------------------------------- */

/* H = U'U (Cholesky, from H's upper triangle) into U, then J = U^-1 = L^-T
 * (L = U'), the paper's starting J (Q = I). Column-major J is row-major L^-1,
 * computed by rows: X_i = (e_i - sum_{k<i} L_ik X_k) / L_ii. The Cholesky too
 * goes by rows, U_k = (H_k - sum_{i<k} U_ik U_i) / U_kk. Both combine rows four
 * at a time. Hand loops rather than LAPACK: at n = 40 these take 4.1 us (4.9
 * without AVX2), right-looking loops (a rank-1 update of the trailing rows per
 * pivot) 10.5 us, and OpenBLAS 0.3.21's dpotrf + dtrtri 9.7 us, their set-up
 * outweighing their blocking at these sizes. */
KG_QP_HOT static int factor(const double *H, int n, double *U, double *J, double *tmp) {
    double hmax = 0;
    for (int i = 0; i < n; i++) hmax = kg_fmax(hmax, fabs(H[i * n + i]));
    double pmin = KG_QP_PIVOT_MIN * hmax;
    for (int k = 0; k < n; k++) {
        double *uk = U + k * n;
        memset(uk, 0, (size_t)k * sizeof *uk);
        memcpy(uk + k, H + k * n + k, (size_t)(n - k) * sizeof *uk);
        for (int i = 0; i < k; i++) tmp[i] = -U[i * n + k];
        combine(uk + k, tmp, U + k, n, k, n - k, 0);
        if (!(uk[k] > pmin) || !(uk[k] < INFINITY)) return KG_QP_NOT_CONVEX; /* NaN too */
        uk[k] = sqrt(uk[k]);
        double inv = 1 / uk[k];
        for (int j = k + 1; j < n; j++) uk[j] *= inv;
    }
    for (int i = 0; i < n; i++) {
        double *xi = J + i * n;
        for (int k = 0; k < i; k++) tmp[k] = -U[k * n + i]; /* -L_ik */
        memset(xi, 0, (size_t)n * sizeof *xi);
        xi[i] = 1;
        combine(xi, tmp, J, n, i, i, 1); /* rows X_k, k < i, are zero after column k */
        double inv = 1 / U[i * n + i];
        for (int j = 0; j <= i; j++) xi[j] *= inv;
    }
    return KG_QP_OK;
}

/* x = -H^-1 g = -J J'g, J still upper triangular (column j zero below row j). */
KG_QP_HOT static void unconstrained(const kg_qp *p, kg_qp_work *w, double *x) {
    int n = p->n;
    double *y = w->z;
    for (int j = 0; j < n; j++) y[j] = -dot(w->J + j * n, p->g, j + 1);
    memset(x, 0, (size_t)n * sizeof *x);
    combine(x, y, w->J, n, n, n, 1);
}

/* x += t z, the path's length growing by |t z|: what most_violated's
 * screening bounds a row's change of slack by. */
KG_QP_HOT static void move(kg_qp_work *w, double *x, double t, const double *z, int n) {
    axpy(x, t, z, n);
    w->path += fabs(t) * sqrt(dot(z, z, n));
}

/* ---- constraints ------------------------------------------------------------ */

/* n_k'v for constraint k's normal: a row of C or A, e_i or -e_i. */
KG_QP_HOT static double normal_dot(const kg_qp *p, int k, const double *v) {
    int n = p->n;
    if (k < p->neq) return dot(p->C + (size_t)k * n, v, n);
    k -= p->neq;
    if (k < p->nin) return dot(p->A + (size_t)k * n, v, n);
    k -= p->nin;
    return k < n ? v[k] : -v[k - n];
}

/* n_k'x - b_k: >= 0 when constraint k holds. */
static double slack(const kg_qp *p, int k, const double *x) {
    if (k < p->neq) return normal_dot(p, k, x) - p->d[k];
    int i = k - p->neq;
    if (i < p->nin) return normal_dot(p, k, x) - p->b[i];
    i -= p->nin;
    return i < p->n ? x[i] - p->lb[i] : p->ub[i - p->n] - x[i - p->n];
}

/* |n_k| and |b_k|: the scale of constraint k's slack. */
static void scale(const kg_qp *p, const kg_qp_work *w, int k, double *nn, double *bb) {
    int i = k - p->neq - p->nin;
    if (i < 0) {
        *nn = w->rownorm[k];
        *bb = fabs(k < p->neq ? p->d[k] : p->b[k - p->neq]);
    } else {
        *nn = 1;
        *bb = fabs(i < p->n ? p->lb[i] : p->ub[i - p->n]);
    }
}

/* For constraint k: d = J'n, |d|, |d2|, and when n is independent of the
 * active normals z = J2 d2; always r = R^-1 d1. Returns 1 when dependent. */
KG_QP_HOT static int direction(const kg_qp *p, kg_qp_work *w, int k) {
    int n = p->n, q = w->q, i = k - p->neq - p->nin;
    double *d = w->d;
    if (i >= 0) { /* a bound: +-e_i, so d is +-(row i of J) */
        int row = i < n ? i : i - n;
        double sg = i < n ? 1 : -1;
        for (int j = 0; j < n; j++) d[j] = sg * w->J[j * n + row];
    } else {
        const double *a = k < p->neq ? p->C + (size_t)k * n : p->A + (size_t)(k - p->neq) * n;
        for (int j = 0; j < n; j++) d[j] = dot(w->J + j * n, a, w->triangular ? j + 1 : n);
    }
    double n1 = dot(d, d, q), n2 = dot(d + q, d + q, n - q);
    w->nd = sqrt(n1 + n2), w->nd2 = sqrt(n2);
    int dependent = !(w->nd2 > KG_QP_DEPENDENT * w->nd);
    if (!dependent) {
        memset(w->z, 0, (size_t)n * sizeof *w->z);
        combine(w->z, d + q, w->J + q * n, n, n - q, n, w->triangular);
    }
    /* R r = d1, back substitution by columns */
    double *r = w->r;
    memcpy(r, d, (size_t)q * sizeof *r);
    for (int j = q - 1; j >= 0; j--) {
        r[j] /= w->R[j * n + j];
        axpy(r, -r[j], w->R + j * n, j);
    }
    return dependent;
}

/* ---- the active set --------------------------------------------------------- */

/* Makes constraint k (its direction just computed) active with multiplier
 * mult. One Householder reflection of J2 maps d2 onto its first axis, where
 * the paper chains n - q - 1 Givens rotations: the same subspace, and since
 * the reflection's J2 v is z + sigma J2 e_1 (z is known) the update is a rank-1
 * change, 2n(n - q) flops against 6n(n - q). bench_qp: 20 us per solve, 30 us
 * with the rotations. (Drops keep the rotations: R is Hessenberg there, one
 * rotation per column.) */
KG_QP_HOT static void add_active(kg_qp_work *w, int k, double mult) {
    int n = w->n, q = w->q;
    const double *d = w->d, *z = w->z;
    double nrm = w->nd2, sigma = d[q] >= 0 ? nrm : -nrm; /* sign: no cancellation in v_1 */
    double v1 = d[q] + sigma, beta = 1 / (sigma * v1), inv = 1 / nrm, *f = w->s, *jq = w->J + q * n;
    for (int i = 0; i < n; i++) {
        f[i] = -(z[i] + sigma * jq[i]) * beta;
        jq[i] = z[i] * inv; /* the reflected first column up to sign: J'n is then +|d2| e_q */
    }
    for (int j = q + 1; j < n; j++) axpy(w->J + j * n, d[j], f, n);
    memcpy(w->R + q * n, d, (size_t)q * sizeof *d);
    w->R[q * n + q] = nrm;
    w->active[q] = k, w->u[q] = mult, w->dnorm[q] = w->nd;
    w->is_active[k] = 1;
    w->q++;
    w->triangular = 0;
}

/* Drops the active constraint at position pos: R loses a column and becomes
 * upper Hessenberg from there; Givens rotations of rows (j, j+1) restore it,
 * and the same rotations of J's columns keep J'N = [R; 0]. */
KG_QP_HOT static void drop_active(kg_qp_work *w, int pos) {
    int n = w->n;
    double *R = w->R;
    w->is_active[w->active[pos]] = 0;
    for (int j = pos; j + 1 < w->q; j++) {
        memcpy(R + j * n, R + (j + 1) * n, (size_t)(j + 2) * sizeof *R);
        w->active[j] = w->active[j + 1], w->u[j] = w->u[j + 1], w->dnorm[j] = w->dnorm[j + 1];
    }
    int q = --w->q;
    for (int j = pos; j < q; j++) {
        double a = R[j * n + j], b = R[j * n + j + 1], h = sqrt(a * a + b * b);
        double c = h > 0 ? a / h : 1, s = h > 0 ? b / h : 0;
        R[j * n + j] = h, R[j * n + j + 1] = 0;
        for (int k = j + 1; k < q; k++) {
            double *rk = R + k * n, x = rk[j], y = rk[j + 1];
            rk[j] = c * x + s * y, rk[j + 1] = c * y - s * x;
        }
        double *ja = w->J + j * n, *jb = ja + n;
        for (int i = 0; i < n; i++) {
            double x = ja[i], y = jb[i];
            ja[i] = c * x + s * y, jb[i] = c * y - s * x;
        }
    }
}

/* Adds violated inequality or bound k (the paper's step 2): partial steps
 * that drop the active constraint whose multiplier reaches zero first, then a
 * full step that makes k active. When k depends on the active normals the
 * step is in the dual only; when no active multiplier limits it either, no x
 * satisfies k and the active constraints together. */
static int add_inequality(const kg_qp *p, kg_qp_work *w, double *x, int k, int *iterations, int cap) {
    int n = p->n;
    double s = slack(p, k, x), unew = 0;
    for (;;) {
        if (*iterations >= cap) return KG_QP_MAX_ITERATIONS;
        int dependent = direction(p, w, k), drop = -1;
        double t2 = dependent ? INFINITY : kg_fmax(-s / normal_dot(p, k, w->z), 0), t1 = INFINITY;
        for (int j = w->meq; j < w->q; j++) /* r_j > 0: u_j falls as the new multiplier rises */
            if (w->r[j] * w->dnorm[j] > KG_QP_DEPENDENT * w->nd) {
                double tj = kg_fmax(w->u[j], 0) / w->r[j];
                if (tj < t1) t1 = tj, drop = j;
            }
        double t = kg_fmin(t1, t2);
        if (t == INFINITY) return KG_QP_INFEASIBLE;
        for (int j = 0; j < w->q; j++) w->u[j] -= t * w->r[j];
        unew += t;
        if (!dependent) move(w, x, t, w->z, n);
        ++*iterations;
        if (t2 <= t1) {
            add_active(w, k, unew);
            return KG_QP_OK;
        }
        w->u[drop] = 0;
        drop_active(w, drop);
        if (!dependent) s = slack(p, k, x);
    }
}

/* ---- the solve ------------------------------------------------------------- */

static int finite(const double *v, int n) {
    for (int i = 0; i < n; i++)
        if (!isfinite(v[i])) return 0;
    return 1;
}

/* Sizes and data; fills the row norms. KG_QP_INFEASIBLE for crossed bounds
 * (after the rest is checked), *nbounds the finite ones. */
KG_QP_HOT static int check(const kg_qp *p, kg_qp_work *w, int *nbounds) {
    int n = p->n;
    if (n < 1 || n > w->nmax || p->neq < 0 || p->nin < 0 || p->neq + p->nin > w->mmax || !p->H || !p->g ||
        (p->neq && (!p->C || !p->d)) || (p->nin && (!p->A || !p->b)) || !finite(p->g, n) || !finite(p->d, p->neq))
        return KG_QP_BAD_INPUT;
    for (int i = 0; i < p->neq; i++) w->rownorm[i] = sqrt(dot(p->C + (size_t)i * n, p->C + (size_t)i * n, n));
    for (int i = 0; i < p->nin; i++) {
        w->rownorm[p->neq + i] = sqrt(dot(p->A + (size_t)i * n, p->A + (size_t)i * n, n));
        if (isnan(p->b[i]) || p->b[i] == INFINITY) return KG_QP_BAD_INPUT;
    }
    if (!finite(w->rownorm, p->neq + p->nin)) return KG_QP_BAD_INPUT; /* a NaN or infinite entry */
    int crossed = 0;
    *nbounds = 0;
    for (int i = 0; i < n; i++) {
        double l = p->lb ? p->lb[i] : -INFINITY, u = p->ub ? p->ub[i] : INFINITY;
        if (isnan(l) || isnan(u)) return KG_QP_BAD_INPUT;
        crossed |= l > u || l == INFINITY || u == -INFINITY;
        *nbounds += (l > -INFINITY) + (u < INFINITY);
    }
    return crossed ? KG_QP_INFEASIBLE : KG_QP_OK;
}

/* How far a constraint with slack s, normal norm nn and |b| = bb is violated,
 * per unit of normal (a distance), or 0 when it holds within the tolerance. */
static double shortfall(double s, double nn, double bb, double xs) {
    if (s >= -KG_QP_FEASIBILITY * (nn * xs + bb)) return 0; /* xs: xsize() */
    return nn > 0 ? s / nn : s;
}

/* |x| for shortfall(): x's or the unconstrained minimum's, the larger. */
KG_QP_HOT static double xsize(const kg_qp_work *w, const double *x, int n) { return kg_fmax(sqrt(dot(x, x, n)), w->xscale); }

/* shortfall() of constraint k if it can be violated (present, inactive), else 0. */
static double violation(const kg_qp *p, const kg_qp_work *w, int k, const double *x, double xs) {
    int i = k - p->neq - p->nin;
    if (w->is_active[k] || (i < 0 && p->b[k - p->neq] == -INFINITY)) return 0;
    if (i >= 0 && (i < p->n ? !p->lb || p->lb[i] == -INFINITY : !p->ub || p->ub[i - p->n] == INFINITY)) return 0;
    double nn, bb;
    scale(p, w, k, &nn, &bb);
    return shortfall(slack(p, k, x), nn, bb, xs);
}

/* The most violated inequality or bound (by distance), -1 if none. The rows
 * and each kind of bound in loops of their own: this scan runs once per
 * addition over every constraint. */
KG_QP_HOT static int most_violated(const kg_qp *p, kg_qp_work *w, const double *x) {
    int n = p->n, best = -1, base = p->neq + p->nin;
    const unsigned char *act = w->is_active;
    double worst = 0, xs = xsize(w, x, n);
    for (int i = 0; i < p->nin; i++) {
        int k = p->neq + i;
        if (act[k] || p->b[i] == -INFINITY) continue;
        /* x has moved at most path - row_at since the row's slack was row_s: a row
         * that held by more than |A_i| times that holds still (most rows, most calls) */
        if (w->row_s[k] - w->rownorm[k] * (w->path - w->row_at[k]) >= 0) continue;
        double s = dot(p->A + (size_t)i * n, x, n) - p->b[i];
        w->row_s[k] = s, w->row_at[k] = w->path;
        double v = shortfall(s, w->rownorm[k], fabs(p->b[i]), xs);
        if (v < worst) worst = v, best = k;
    }
    for (int i = 0; p->lb && i < n; i++) {
        if (act[base + i] || p->lb[i] == -INFINITY) continue;
        double v = shortfall(x[i] - p->lb[i], 1, fabs(p->lb[i]), xs);
        if (v < worst) worst = v, best = base + i;
    }
    for (int i = 0; p->ub && i < n; i++) {
        if (act[base + n + i] || p->ub[i] == INFINITY) continue;
        double v = shortfall(p->ub[i] - x[i], 1, fabs(p->ub[i]), xs);
        if (v < worst) worst = v, best = base + n + i;
    }
    return best;
}

/* Adds constraint k with a full step whatever happens to the other multipliers
 * (for equalities, and for hints); 1 when k depends on the active set (not
 * added). */
static int add_full(const kg_qp *p, kg_qp_work *w, double *x, int k) {
    double s = slack(p, k, x);
    if (direction(p, w, k)) return 1;
    double t = -s / normal_dot(p, k, w->z);
    move(w, x, t, w->z, p->n);
    for (int j = 0; j < w->q; j++) w->u[j] -= t * w->r[j];
    add_active(w, k, t);
    return 0;
}

/* The warm start: the hinted constraints violated at x, in order, each with a
 * full step (no partial steps: the paper's drops would also drop hinted
 * constraints whose multipliers turn negative only on the way, to be added
 * again later). Then dual feasibility back: while an inequality's multiplier
 * u_k is negative, drop it with the reverse of its full step, x -= u_k z and
 * u += u_k r (z, r of k against the rest), which leaves x the minimum on the
 * rest. Given the final active set of the same problem, nothing is dropped. */
static int add_hints(const kg_qp *p, kg_qp_work *w, double *x, int cap, int *iterations) {
    int m = p->neq + p->nin + 2 * p->n;
    for (int h = 0; h < p->nhint; h++) {
        int k = p->hint[h];
        if (k < p->neq || k >= m || violation(p, w, k, x, xsize(w, x, p->n)) >= 0) continue;
        if (*iterations >= cap) return KG_QP_MAX_ITERATIONS;
        if (!add_full(p, w, x, k)) ++*iterations;
    }
    for (;;) {
        double umax = 0, worst = 0;
        int j = -1;
        for (int i = 0; i < w->q; i++) umax = kg_fmax(umax, fabs(w->u[i]));
        for (int i = w->meq; i < w->q; i++)
            if (w->u[i] < worst && w->u[i] < -KG_QP_DEPENDENT * umax) worst = w->u[i], j = i;
        if (j < 0) return KG_QP_OK;
        if (*iterations >= cap) return KG_QP_MAX_ITERATIONS;
        int k = w->active[j];
        drop_active(w, j);
        if (!direction(p, w, k)) move(w, x, -worst, w->z, p->n);
        for (int i = 0; i < w->q; i++) w->u[i] += worst * w->r[i];
        ++*iterations;
    }
}

/* Equalities, then the hints, then the most violated constraint until none is. */
static int iterate(const kg_qp *p, kg_qp_work *w, double *x, int cap, int *iterations) {
    int status = KG_QP_OK;
    for (int k = 0; k < p->neq && !status; k++) { /* a dependent equality must hold already */
        if (*iterations >= cap) return KG_QP_MAX_ITERATIONS;
        if (add_full(p, w, x, k)) {
            double nn, bb;
            scale(p, w, k, &nn, &bb);
            if (shortfall(-fabs(slack(p, k, x)), nn, bb, xsize(w, x, p->n)) < 0) status = KG_QP_INFEASIBLE;
        } else {
            w->meq++;
        }
        ++*iterations;
    }
    if (!status && p->hint) status = add_hints(p, w, x, cap, iterations);
    while (!status) {
        int k = most_violated(p, w, x);
        if (k < 0) break;
        status = add_inequality(p, w, x, k, iterations, cap);
    }
    return status;
}

/* 1/2 x'Hx + g'x from H's upper triangle. */
KG_QP_HOT static double cost(const kg_qp *p, const double *x) {
    int n = p->n;
    double f = 0;
    for (int i = 0; i < n; i++) {
        const double *hi = p->H + (size_t)i * n;
        f += x[i] * (p->g[i] + 0.5 * hi[i] * x[i] + dot(hi + i + 1, x + i + 1, n - i - 1));
    }
    return f;
}

int kg_qp_solve(const kg_qp *p, double *x, double *lambda, kg_qp_work *w, kg_qp_result *r) {
    kg_qp_result res = {0};
    int nbounds = 0, iterations = 0;
    w->q = w->meq = 0;
    int status = check(p, w, &nbounds);
    if (status != KG_QP_BAD_INPUT) {
        w->n = p->n;
        memset(w->is_active, 0, (size_t)(p->neq + p->nin + 2 * p->n));
        int f = factor(p->H, p->n, w->R, w->J, w->s);
        w->triangular = 1;
        if (f != KG_QP_OK) /* a non-finite entry makes a pivot fail too: tell them apart */
            for (int i = 0; i < p->n && f != KG_QP_BAD_INPUT; i++)
                if (!finite(p->H + (size_t)i * p->n + i, p->n - i)) f = KG_QP_BAD_INPUT;
        if (f != KG_QP_OK) status = f;
    }
    if (status == KG_QP_BAD_INPUT || status == KG_QP_NOT_CONVEX) {
        if (p->n >= 1 && p->neq >= 0 && p->nin >= 0) { /* sizes the caller's arrays can have */
            memset(x, 0, (size_t)p->n * sizeof *x);
            if (lambda) memset(lambda, 0, (size_t)(p->neq + p->nin + 2 * p->n) * sizeof *lambda);
        }
    } else {
        unconstrained(p, w, x);
        w->xscale = sqrt(dot(x, x, p->n));
        w->path = 0;
        for (int i = 0; i < p->neq + p->nin; i++) w->row_s[i] = -INFINITY, w->row_at[i] = 0;
        int cap = p->max_iterations > 0 ? p->max_iterations : 10 * (p->n + p->neq + p->nin + nbounds);
        if (status == KG_QP_OK) status = iterate(p, w, x, cap, &iterations);
        if (lambda) {
            memset(lambda, 0, (size_t)(p->neq + p->nin + 2 * p->n) * sizeof *lambda);
            for (int j = 0; j < w->q; j++) /* rounding may leave -1e-17 on a zero multiplier */
                lambda[w->active[j]] = j < w->meq ? w->u[j] : fmax(w->u[j], 0);
        }
        res.cost = cost(p, x);
    }
    res.status = status, res.iterations = iterations, res.nactive = w->q;
    if (r) *r = res;
    return status;
}

