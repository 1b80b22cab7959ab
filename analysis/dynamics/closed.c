/* Closed chains by Nakamura and Yamane's method (digest 1.3-1.6): the
 * constraint Jacobian of the loops' virtual links, the generalised
 * coordinates and W, S, inverse dynamics through the open chain's RNEA
 * (tau_G = W^T tau_O = S^T tau_A), and forward dynamics by the unit-vector
 * method with Baumgarte stabilisation. The choices are documented in
 * dynamics.h. Everything per call works in the workspace kg_closed_new
 * allocates. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/closure_basis.h"
#include "analysis/dynamics/internal.h"

/* after internal.h: lapacke.h brings complex.h, whose macro I would rename its parameters */
#include <lapacke.h>

const kg_closed_options kg_closed_default = {10, 10, 1e-10, 1e-12};

struct kg_closed_ws {
    int *order;      /* [nv] candidates for theta_S, most preferred first */
    int *is_dep;     /* [nv] */
    double *Q;       /* [nv x nrow]: orthonormal basis of J_S's columns, one per row of this array */
    double *R;       /* [nv x nv]: J_S = Q^T R (upper triangular, row stride nv) */
    double *col;     /* [nrow] */
    double *gamma;   /* [nrow] */
    double *x;       /* [nv] */
    double *rc;      /* [nv] Gram-Schmidt coefficients */
    double *b;       /* [nv] the unit-vector method's b */
    double *tau;     /* [nv] */
    double *tauG;    /* [nv] */
    double *abias;   /* [nv] */
    double *A;       /* [nv x nv] */
    double *svdA;    /* [nv x na] */
    double *svdB;    /* [max(nv, na)] */
    double *sv;      /* [nv] singular values */
    double *work;    /* [lwork] dgelss */
    int lwork;
    int maxloop;     /* loops allocated for (kg_closed_set_loops may close fewer) */
    int maxrow;
    double rcond;    /* kg_closed_update's options' */
};

static const kg_dyn_options no_gravity = {{0, 0, 0}};

/* ---- set-up ------------------------------------------------------------------- */

static int is_passive_default(const kg_model *m, const kg_closed *c, int j) {
    const kg_joint *J = &m->joint[j];
    if (J->mimic >= 0 || J->type == KG_JOINT_FLOATING || J->type == KG_JOINT_PLANAR) return 1;
    for (int k = 0; k < c->nloop; k++)
        if (m->loop[c->loops[k]].cut_joint == j) return 1;
    return 0;
}

/* The default actuators: every coordinate of a joint that is not passive. */
static int default_actuators(const kg_model *m, const kg_closed *c, int *act) {
    int n = 0;
    for (int j = 0; j < m->njoint; j++)
        for (int x = 0; x < m->joint[j].nv && !is_passive_default(m, c, j); x++) act[n++] = m->joint[j].vadr + x;
    return n;
}

/* Preference for theta_S (dynamics.h): cut joints, mimic followers, other
 * passive coordinates from the last, actuated ones from the last. */
static void candidate_order(const kg_model *m, kg_closed *c) {
    int *order = c->ws->order, n = 0;
    /* scratch from arrays kg_closed_update overwrites: no allocation, so
     * kg_closed_set_loops can run between two steps of a simulation */
    int *taken = c->ws->is_dep, *actuated = c->gen;
    memset(taken, 0, (size_t)c->nv * sizeof *taken);
    memset(actuated, 0, (size_t)c->nv * sizeof *actuated);
    for (int k = 0; k < c->na; k++) actuated[c->act[k]] = 1;
#define TAKE(v_)                                     \
    do {                                             \
        int t_ = (v_);                               \
        if (!taken[t_]) taken[t_] = 1, order[n++] = t_; \
    } while (0)
    for (int k = 0; k < c->nloop; k++) {
        const kg_joint *J = &m->joint[m->loop[c->loops[k]].cut_joint];
        for (int x = 0; x < J->nv; x++) TAKE(J->vadr + x);
    }
    for (int k = 0; k < c->nmimic; k++) TAKE(m->joint[m->mimic[c->mimics[k]].follower].vadr);
    for (int v = c->nv - 1; v >= 0; v--)
        if (!actuated[v]) TAKE(v);
    for (int v = c->nv - 1; v >= 0; v--) TAKE(v);
#undef TAKE
}

/* dgelss's workspace for S^T (nf x na) at its largest, nf = nv. */
static int svd_lwork(int nv, int na) {
    double q = 0, a = 0, b = 0, s = 0;
    int rank;
    const int mx = nv > na ? nv : na;
    if (nv == 0 || na == 0) return 1;
    LAPACKE_dgelss_work(LAPACK_COL_MAJOR, nv, na, 1, &a, nv, &b, mx, &s, -1, &rank, &q, -1);
    return (int)q + 1;
}

/* calloc that clears *ok when memory is exhausted: one check for many. */
static void *take(int *ok, size_t n, size_t size) {
    void *p = calloc(n, size);
    if (!p) *ok = 0;
    return p;
}

kg_closed *kg_closed_new(const kg_model *m, int nloop, const int *loops, int na, const int *act) {
    kg_closed *c = calloc(1, sizeof *c);
    if (!c) return NULL;
    int ok = 1;
    const int nv = m->nv;
    const size_t V = (size_t)nv + 1;
    c->nv = nv;
    c->nloop = loops ? nloop : m->nloop;
    c->loops = take(&ok, (size_t)c->nloop + 1, sizeof *c->loops);
    for (int k = 0; ok && k < c->nloop; k++) c->loops[k] = loops ? loops[k] : k;
    c->mimics = take(&ok, (size_t)m->nmimic + 1, sizeof *c->mimics);
    for (int k = 0; ok && k < m->nmimic; k++)
        if (m->joint[m->mimic[k].follower].nv == 1 && m->joint[m->mimic[k].leader].nv == 1) c->mimics[c->nmimic++] = k;
    c->nrow = 6 * c->nloop + c->nmimic;
    c->act = take(&ok, V, sizeof *c->act);
    if (!ok) return kg_closed_free(c), NULL;
    c->na = act ? na : default_actuators(m, c, c->act);
    if (act) memcpy(c->act, act, (size_t)na * sizeof *act);
    const size_t Rw = (size_t)c->nrow + 1, A = (size_t)c->na + 1, B = V > A ? V : A;
    c->gen = take(&ok, V, sizeof *c->gen);
    c->dep = take(&ok, V, sizeof *c->dep);
    c->JC = take(&ok, Rw * V, sizeof *c->JC);
    c->err = take(&ok, Rw, sizeof *c->err);
    c->W = take(&ok, V * V, sizeof *c->W);
    c->S = take(&ok, A * V, sizeof *c->S);
    struct kg_closed_ws *ws = c->ws = take(&ok, 1, sizeof *ws);
    if (!ok) return kg_closed_free(c), NULL;
    ws->order = take(&ok, V, sizeof *ws->order);
    ws->is_dep = take(&ok, V, sizeof *ws->is_dep);
    ws->Q = take(&ok, V * Rw, sizeof *ws->Q);
    ws->R = take(&ok, V * V, sizeof *ws->R);
    ws->col = take(&ok, Rw, sizeof *ws->col);
    ws->gamma = take(&ok, Rw, sizeof *ws->gamma);
    ws->x = take(&ok, V, sizeof *ws->x);
    ws->rc = take(&ok, V, sizeof *ws->rc);
    ws->b = take(&ok, V, sizeof *ws->b);
    ws->tau = take(&ok, V, sizeof *ws->tau);
    ws->tauG = take(&ok, V, sizeof *ws->tauG);
    ws->abias = take(&ok, V, sizeof *ws->abias);
    ws->A = take(&ok, V * V, sizeof *ws->A);
    ws->svdA = take(&ok, V * A, sizeof *ws->svdA);
    ws->svdB = take(&ok, B, sizeof *ws->svdB);
    ws->sv = take(&ok, V, sizeof *ws->sv);
    ws->lwork = svd_lwork(nv, c->na);
    ws->work = take(&ok, (size_t)ws->lwork, sizeof *ws->work);
    if (!ok) return kg_closed_free(c), NULL;
    ws->maxloop = c->nloop;
    ws->maxrow = c->nrow;
    candidate_order(m, c);
    return c;
}

int kg_closed_set_loops(const kg_model *m, kg_closed *c, int nloop, const int *loops) {
    if (nloop < 0 || nloop > c->ws->maxloop) return -1;
    for (int k = 0; k < nloop; k++)
        if (loops[k] < 0 || loops[k] >= m->nloop) return -1;
    memmove(c->loops, loops, (size_t)nloop * sizeof *loops);
    c->nloop = nloop;
    c->nrow = 6 * nloop + c->nmimic;
    c->rank = 0, c->nf = 0;
    candidate_order(m, c);
    return 0;
}

void kg_closed_free(kg_closed *c) {
    if (!c) return;
    struct kg_closed_ws *ws = c->ws;
    if (ws) { /* NULL when kg_closed_new ran out of memory before it */
        void *p[] = {ws->rc, ws->b,    ws->order, ws->is_dep, ws->Q,  ws->R,    ws->col, ws->gamma, ws->x,
                     ws->tau, ws->tauG, ws->abias, ws->A,      ws->svdA, ws->svdB, ws->sv, ws->work,  ws};
        for (size_t k = 0; k < sizeof p / sizeof *p; k++) free(p[k]);
    }
    void *p[] = {c->loops, c->mimics, c->act, c->gen, c->dep, c->JC, c->err, c->W, c->S};
    for (size_t k = 0; k < sizeof p / sizeof *p; k++) free(p[k]);
    free(c);
}

/* ---- the constraint Jacobian and the closure error ------------------------------- */

/* Adds sign times the motion of link `from` at the world point p (every joint
 * above it) into the 6 rows at J (linear, then angular; row stride nv). A loop's
 * shared joints cancel exactly, as both walks add the same products. */
static void add_link_motion(const kg_model *m, const kg_dyn *w, int from, const double p[3], double sign, double *J,
                            int nv) {
    for (int i = from; i > 0; i = m->link[i].parent) {
        const kg_joint *Jt = &m->joint[w->joint_link[i]];
        const double *pi = w->pos + 3 * i;
        const double d[3] = {p[0] - pi[0], p[1] - pi[1], p[2] - pi[2]};
        for (int x = 0; x < Jt->nv; x++) {
            const double *s = w->S + 6 * (Jt->vadr + x); /* (angular; linear at the child's origin) */
            double lin[3];
            kg_vec3_cross(lin, s, d);
            double *col = J + Jt->vadr + x;
            for (int e = 0; e < 3; e++) {
                col[e * nv] += sign * (s[3 + e] + lin[e]);
                col[(3 + e) * nv] += sign * s[e];
            }
        }
    }
}

static void loop_rows(const kg_model *m, const kg_data *d, const kg_dyn *w, kg_closed *c, int k) {
    const kg_loop *lp = &m->loop[c->loops[k]];
    const int nv = c->nv, v = lp->virtual_link, r = lp->real_link;
    double *J = c->JC + (size_t)6 * k * nv, *e = c->err + 6 * k;
    memset(J, 0, (size_t)6 * nv * sizeof *J);
    add_link_motion(m, w, v, w->pos + 3 * v, 1, J, nv);
    add_link_motion(m, w, r, w->pos + 3 * v, -1, J, nv);
    const double *Rv = d->link_rot + 9 * v, *Rr = d->link_rot + 9 * r;
    double Rd[9];
    for (int a = 0; a < 3; a++) /* Rv Rr^T */
        for (int b = 0; b < 3; b++) Rd[3 * a + b] = Rv[3 * a] * Rr[3 * b] + Rv[3 * a + 1] * Rr[3 * b + 1] + Rv[3 * a + 2] * Rr[3 * b + 2];
    for (int a = 0; a < 3; a++) e[a] = w->pos[3 * v + a] - w->pos[3 * r + a];
    kg_rot_log(Rd, e + 3);
}

/* follower' - multiplier leader' = 0 */
static void mimic_row(const kg_model *m, const kg_data *d, kg_closed *c, int k) {
    const kg_mimic *mm = &m->mimic[c->mimics[k]];
    const kg_joint *F = &m->joint[mm->follower], *L = &m->joint[mm->leader];
    const int row = 6 * c->nloop + k;
    double *J = c->JC + (size_t)row * c->nv;
    memset(J, 0, (size_t)c->nv * sizeof *J);
    J[F->vadr] += 1;
    J[L->vadr] -= mm->multiplier;
    c->err[row] = d->q[F->qadr] - mm->multiplier * d->q[L->qadr] - mm->offset;
}

/* ---- theta_S, H, W, S -------------------------------------------------------------- */

/* The shared mechanism (analysis/closure_basis.h) on c's workspace. */
static kg_basis_work basis_work(const kg_closed *c) {
    const struct kg_closed_ws *ws = c->ws;
    return (kg_basis_work){.Q = ws->Q, .R = ws->R, .rc = ws->rc, .col = ws->col, .x = ws->x, .is_dep = ws->is_dep};
}

static void solve_dependent(const kg_closed *c, const double *y, double *x) {
    const kg_basis_work bw = basis_work(c);
    kg_basis_solve(c->nrow, c->nv, c->rank, &bw, y, x);
}

int kg_closed_update(const kg_model *m, const kg_data *d, const kg_dyn *w, kg_closed *c, const kg_closed_options *o) {
    if (!o) o = &kg_closed_default;
    for (int k = 0; k < c->nloop; k++) loop_rows(m, d, w, c, k);
    for (int k = 0; k < c->nmimic; k++) mimic_row(m, d, c, k);
    double scale = 0;
    for (size_t e = 0; e < (size_t)c->nrow * c->nv; e++) scale = fmax(scale, fabs(c->JC[e]));
    kg_basis_work bw = basis_work(c);
    c->rank = kg_basis_split(c->JC, c->nrow, c->nv, c->ws->order, c->nv, o->rank_tol * fmax(scale, 1e-300), &bw, c->dep,
                             c->gen, &c->nf);
    kg_basis_w(c->JC, c->nrow, c->nv, c->rank, c->dep, c->gen, c->nf, &bw, c->W);
    for (int k = 0; k < c->na; k++) memcpy(c->S + (size_t)k * c->nf, c->W + (size_t)c->act[k] * c->nf, (size_t)c->nf * sizeof *c->S);
    c->residual = kg_basis_residual(c->JC, c->nrow, c->nv, c->W, c->nf);
    c->ws->rcond = o->rcond;
    return c->nf;
}

/* ---- accelerations --------------------------------------------------------------- */

/* gamma = -J_C' v: per loop the difference of the two links' velocity-product
 * spatial accelerations (RNEA with a = 0, no gravity) at the virtual link's
 * origin. The paper's J_C' v in classical accelerations is the same vector
 * when the loop is closed (equal velocities cancel the difference's terms). */
static void closure_bias(const kg_model *m, kg_dyn *w, kg_closed *c, const double *v, double *gamma) {
    kg_dyn_rnea(m, w, &no_gravity, v, NULL, NULL, c->ws->tau);
    for (int k = 0; k < c->nloop; k++) {
        const kg_loop *lp = &m->loop[c->loops[k]];
        const int vl = lp->virtual_link, rl = lp->real_link;
        const double *pv = w->pos + 3 * vl, *pr = w->pos + 3 * rl;
        const double r[3] = {pv[0] - pr[0], pv[1] - pr[1], pv[2] - pr[2]};
        double av[6], arl[6], ar[6]; /* either may be welded to its parent */
        dyn_link_motion(w, w->acc, vl, av);
        dyn_link_motion(w, w->acc, rl, arl);
        sv_motion_shift(ar, arl, r);
        for (int e = 0; e < 3; e++) {
            gamma[6 * k + e] = -(av[3 + e] - ar[3 + e]);
            gamma[6 * k + 3 + e] = -(av[e] - ar[e]);
        }
    }
    for (int k = 0; k < c->nmimic; k++) gamma[6 * c->nloop + k] = 0; /* constant coefficients */
}

/* a = W aG + the dependent coordinates' share of gamma, less Baumgarte's
 * 2 alpha e' + beta^2 e (e' = J_C v) when stabilising. */
static void closure_accel(const kg_model *m, kg_dyn *w, kg_closed *c, const double *v, const double *aG, double alpha,
                          double beta, double *a) {
    struct kg_closed_ws *ws = c->ws;
    const int nv = c->nv, nf = c->nf;
    double *gamma = ws->gamma;
    if (v) closure_bias(m, w, c, v, gamma);
    else memset(gamma, 0, (size_t)c->nrow * sizeof *gamma);
    for (int i = 0; v && (alpha != 0 || beta != 0) && i < c->nrow; i++) {
        double ed = 0;
        for (int x = 0; x < nv; x++) ed += c->JC[(size_t)i * nv + x] * v[x];
        gamma[i] -= 2 * alpha * ed + beta * beta * c->err[i];
    }
    if (!v && beta != 0)
        for (int i = 0; i < c->nrow; i++) gamma[i] -= beta * beta * c->err[i];
    for (int x = 0; x < nv; x++) {
        double s = 0;
        for (int g = 0; aG && g < nf; g++) s += c->W[(size_t)x * nf + g] * aG[g];
        a[x] = s;
    }
    solve_dependent(c, gamma, ws->x);
    for (int k = 0; k < c->rank; k++) a[c->dep[k]] += ws->x[k];
}

void kg_closed_accel(const kg_model *m, kg_dyn *w, kg_closed *c, const double *v, const double *aG, double *a) {
    closure_accel(m, w, c, v, aG, 0, 0, a);
}

/* ---- inverse dynamics ------------------------------------------------------------- */

/* tauG [nf] = W^T tau [nv] */
static void project(const kg_closed *c, const double *tau, double *tauG) {
    for (int g = 0; g < c->nf; g++) {
        double s = 0;
        for (int x = 0; x < c->nv; x++) s += c->W[(size_t)x * c->nf + g] * tau[x];
        tauG[g] = s;
    }
}

/* tauA: minimum-norm least squares of S^T tauA = tauG (dgelss on a copy). */
static void min_norm_torques(kg_closed *c, const double *tauG, double *tauA) {
    struct kg_closed_ws *ws = c->ws;
    const int nf = c->nf, na = c->na, ldb = nf > na ? nf : na;
    memset(tauA, 0, (size_t)na * sizeof *tauA);
    if (nf == 0 || na == 0) return;
    /* S row-major (na x nf) is S^T column-major with leading dimension nf */
    memcpy(ws->svdA, c->S, (size_t)na * nf * sizeof *ws->svdA);
    memset(ws->svdB, 0, (size_t)ldb * sizeof *ws->svdB);
    memcpy(ws->svdB, tauG, (size_t)nf * sizeof *tauG);
    int rank;
    if (LAPACKE_dgelss_work(LAPACK_COL_MAJOR, nf, na, 1, ws->svdA, nf, ws->svdB, ldb, ws->sv, ws->rcond,
                            &rank, ws->work, ws->lwork) == 0)
        memcpy(tauA, ws->svdB, (size_t)na * sizeof *tauA);
}

double kg_closed_inverse(const kg_model *m, kg_dyn *w, kg_closed *c, const kg_dyn_options *opt, const double *v,
                         const double *a, const double *fext, double *tauA, double *tauO) {
    struct kg_closed_ws *ws = c->ws;
    double *to = tauO ? tauO : ws->tau;
    kg_dyn_rnea(m, w, opt, v, a, fext, to);
    project(c, to, ws->tauG);
    min_norm_torques(c, ws->tauG, tauA);
    double res = 0; /* |S^T tauA - tauG| */
    for (int g = 0; g < c->nf; g++) {
        double s = -ws->tauG[g];
        for (int k = 0; k < c->na; k++) s += c->S[(size_t)k * c->nf + g] * tauA[k];
        res += s * s;
    }
    return sqrt(res);
}

/* ---- forward dynamics -------------------------------------------------------------- */

/* Solves A x = b in place by Cholesky (A symmetric, n x n, overwritten by
 * its factor). A pivot below tol (a generalised coordinate moving no mass:
 * an open loop's cut joint, a massless end) is dropped, its row and column
 * zeroed and its x set to 0, as kg_dyn_aba does. Returns how many; -1 when
 * a pivot is negative beyond tol (A not positive semi-definite). */
int dyn_cholesky_solve(int n, double *A, double *b, double tol) {
    int dropped = 0;
    for (int j = 0; j < n; j++) {
        double d = A[(size_t)j * n + j];
        for (int k = 0; k < j; k++) d -= A[(size_t)j * n + k] * A[(size_t)j * n + k];
        if (d < -tol) return -1;
        if (d <= tol) { /* zero column: L_jj = 0 marks it */
            for (int i = j; i < n; i++) A[(size_t)i * n + j] = 0;
            dropped++;
            continue;
        }
        d = sqrt(d);
        A[(size_t)j * n + j] = d;
        for (int i = j + 1; i < n; i++) {
            double s = A[(size_t)i * n + j];
            for (int k = 0; k < j; k++) s -= A[(size_t)i * n + k] * A[(size_t)j * n + k];
            A[(size_t)i * n + j] = s / d;
        }
    }
    for (int i = 0; i < n; i++) { /* L y = b */
        for (int k = 0; k < i; k++) b[i] -= A[(size_t)i * n + k] * b[k];
        b[i] = A[(size_t)i * n + i] != 0 ? b[i] / A[(size_t)i * n + i] : 0;
    }
    for (int i = n - 1; i >= 0; i--) { /* L^T x = y */
        for (int k = i + 1; k < n; k++) b[i] -= A[(size_t)k * n + i] * b[k];
        b[i] = A[(size_t)i * n + i] != 0 ? b[i] / A[(size_t)i * n + i] : 0;
    }
    return dropped;
}

/* The unit-vector method's A = W^T M_O W, a column per generalised coordinate:
 * the open chain's RNEA at rest, without gravity, for a = W e_i. */
static void generalised_inertia(const kg_model *m, kg_dyn *w, kg_closed *c) {
    struct kg_closed_ws *ws = c->ws;
    const int nv = c->nv, nf = c->nf;
    for (int i = 0; i < nf; i++) {
        for (int x = 0; x < nv; x++) ws->x[x] = c->W[(size_t)x * nf + i];
        kg_dyn_rnea(m, w, &no_gravity, NULL, ws->x, NULL, ws->tau);
        project(c, ws->tau, ws->tauG);
        for (int g = 0; g < nf; g++) ws->A[(size_t)g * nf + i] = ws->tauG[g];
    }
    for (int i = 0; i < nf; i++) /* symmetric up to rounding: average the triangles */
        for (int g = i + 1; g < nf; g++) {
            double s = 0.5 * (ws->A[(size_t)g * nf + i] + ws->A[(size_t)i * nf + g]);
            ws->A[(size_t)g * nf + i] = ws->A[(size_t)i * nf + g] = s;
        }
}

int kg_closed_forward(const kg_model *m, kg_dyn *w, kg_closed *c, const kg_dyn_options *opt,
                      const kg_closed_options *o, const double *v, const double *tauA, const double *fext, double *a) {
    struct kg_closed_ws *ws = c->ws;
    if (!o) o = &kg_closed_default;
    const int nf = c->nf, nv = c->nv;
    /* b = W^T tau_O at theta_G'' = 0 (the dependent coordinates keep the loops closed) */
    closure_accel(m, w, c, v, NULL, o->alpha, o->beta, ws->abias);
    kg_dyn_rnea(m, w, opt, v, ws->abias, fext, ws->tau);
    double *b = ws->b;
    project(c, ws->tau, b);
    generalised_inertia(m, w, c);
    double *aG = ws->tauG;
    for (int g = 0; g < nf; g++) {
        double s = 0;
        for (int k = 0; tauA && k < c->na; k++) s += c->S[(size_t)k * nf + g] * tauA[k];
        aG[g] = s - b[g];
    }
    double dmax = 0;
    for (int g = 0; g < nf; g++) dmax = fmax(dmax, ws->A[(size_t)g * nf + g]);
    const int dropped = dyn_cholesky_solve(nf, ws->A, aG, 1e-12 * dmax);
    if (dropped < 0) return -1;
    for (int x = 0; x < nv; x++) {
        double s = ws->abias[x];
        for (int g = 0; g < nf; g++) s += c->W[(size_t)x * nf + g] * aG[g];
        a[x] = s;
    }
    return dropped;
}
