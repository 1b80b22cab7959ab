#define _POSIX_C_SOURCE 200809L
#include "analysis/ik.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "analysis/jacobian.h"
#include "core/fk.h"
#include "core/spatial.h"

#define LOOP_WEIGHT 100.0 /* loop closures over targets */

/* Columns: the model's dof, then six for the root's pose when the base floats
 * (translations along the world axes, rotations about them through the root). */
struct kg_ik_work {
    int dof, ncol, nq, nlink, maxrows;
    int na;               /* this solve's active columns: cols[0 .. na-1] */
    int *qidx;            /* [ncol] the coordinate each column moves (-1: none: a floating
                           * joint's rotation, the base) */
    double *lower, *upper; /* [ncol] the limits of this solve */
    double *model_lower, *model_upper; /* [dof] the model's */
    double *Jb;           /* [36] the base's columns of one target */
    double base_best[12], base_acc[12];
    double *q_acc;        /* [nq] the last accepted pose */
    double *J6;           /* [6 dof] one target's Jacobian */
    double *rows;         /* [maxrows na] the stacked, weighted rows on the active columns */
    double *err;          /* [maxrows] */
    int *cols;            /* [dof] the active columns */
    int *nz;              /* [ncol] one row's non-zero columns */
    double *jty;          /* [ncol] J^T y on the active columns */
    double *A, *A0;       /* [max(maxrows, dof)^2] */
    double *y;            /* [max(maxrows, dof)] */
    double *wgt;          /* [dof] weights of the active columns */
    double *g_old;        /* [dof] joint-limit gradients of the previous iteration */
    double *dv;           /* [dof] the step */
    double *post;         /* [dof] posture_weight * (posture - q) per column (NULL: no posture) */
    double *q_best;       /* [nq] */
    double *scratch;      /* [4 nlink] */
    unsigned char *mask, *mask2; /* [dof] */
    unsigned char *built; /* [max targets] the target's rows are built (see kg_ik_solve) */
    unsigned char *angle; /* [dof] the column turns a coordinate that is an angle */
};

static size_t sq(int n) { return (size_t)n * (size_t)n; }

kg_ik_work *kg_ik_work_new(const kg_model *m, int max_targets) {
    kg_ik_work *w = calloc(1, sizeof *w);
    if (!w) return NULL;
    int n = m->dof + 6;
    w->dof = m->dof, w->ncol = n, w->nq = m->nq, w->nlink = m->nlink;
    w->maxrows = 6 * (max_targets > 0 ? max_targets : 1) + 6 * m->nloop;
    w->built = malloc((size_t)(max_targets > 0 ? max_targets : 1));
    int big = w->maxrows > n ? w->maxrows : n;
    w->qidx = malloc((size_t)n * sizeof *w->qidx);
    w->lower = malloc((size_t)n * sizeof *w->lower);
    w->upper = malloc((size_t)n * sizeof *w->upper);
    w->model_lower = malloc((size_t)n * sizeof *w->model_lower);
    w->model_upper = malloc((size_t)n * sizeof *w->model_upper);
    w->J6 = malloc((size_t)6 * n * sizeof *w->J6);
    w->Jb = malloc(36 * sizeof *w->Jb);
    w->rows = malloc((size_t)w->maxrows * n * sizeof *w->rows);
    w->err = malloc((size_t)w->maxrows * sizeof *w->err);
    w->cols = malloc((size_t)n * sizeof *w->cols);
    w->nz = malloc((size_t)n * sizeof *w->nz);
    w->jty = malloc((size_t)n * sizeof *w->jty);
    w->A = malloc(sq(big) * sizeof *w->A);
    w->A0 = malloc(sq(big) * sizeof *w->A0);
    w->y = malloc((size_t)big * sizeof *w->y);
    w->wgt = malloc((size_t)n * sizeof *w->wgt);
    w->g_old = malloc((size_t)n * sizeof *w->g_old);
    w->dv = malloc((size_t)n * sizeof *w->dv);
    w->post = malloc((size_t)n * sizeof *w->post);
    w->q_best = malloc(((size_t)m->nq + 1) * sizeof *w->q_best);
    w->q_acc = malloc(((size_t)m->nq + 1) * sizeof *w->q_acc);
    w->scratch = malloc(((size_t)m->nlink + 1) * 4 * sizeof *w->scratch);
    w->mask = malloc((size_t)n);
    w->mask2 = malloc((size_t)n);
    w->angle = calloc((size_t)n, 1);
    if (!w->angle || !w->qidx || !w->lower || !w->upper || !w->model_lower || !w->model_upper || !w->J6 || !w->Jb ||
        !w->rows || !w->err || !w->cols || !w->nz || !w->jty || !w->A || !w->A0 || !w->y || !w->wgt || !w->g_old || !w->dv || !w->post ||
        !w->q_best || !w->q_acc || !w->scratch || !w->mask || !w->mask2 || !w->built) {
        kg_ik_work_free(w);
        return NULL;
    }
    kg_dof_coords(m, w->qidx, w->model_lower, w->model_upper);
    for (int c = m->dof; c < n; c++) w->qidx[c] = -1, w->model_lower[c] = -INFINITY, w->model_upper[c] = INFINITY;
    for (int j = 0; j < m->njoint; j++) {
        const kg_joint *J = &m->joint[j];
        if (J->dofadr < 0) continue;
        for (int c = 0; c < J->nv; c++)
            w->angle[J->dofadr + c] = J->type == KG_JOINT_REVOLUTE || J->type == KG_JOINT_CONTINUOUS ||
                                      (J->type == KG_JOINT_COMPOUND && m->axis[J->axis_first + c].kind == KG_AXIS_ROTATION);
    }
    return w;
}

void kg_ik_work_free(kg_ik_work *w) {
    if (!w) return;
    free(w->qidx), free(w->lower), free(w->upper), free(w->model_lower), free(w->model_upper), free(w->Jb);
    free(w->J6), free(w->rows), free(w->err), free(w->cols), free(w->nz), free(w->jty);
    free(w->A), free(w->A0), free(w->y), free(w->wgt), free(w->g_old), free(w->dv), free(w->post);
    free(w->q_best), free(w->q_acc), free(w->scratch), free(w->mask), free(w->mask2), free(w->angle);
    free(w->built);
    free(w);
}

void kg_ik_defaults(kg_ik_options *o) {
    memset(o, 0, sizeof *o);
    o->tol_pos = 1e-5;
    o->tol_rot = 1e-5;
    o->max_iterations = 1000;
    o->attempt_iterations = 100;
    o->step_pos = 0.1;
    o->step_rot = 0.5;
    o->damping_gain = 1e-6;
    o->manipulability_limit = 0.1;
    o->limit_gain = 1;
    o->seed = 1;
}

/* Where joint J's motion goes: its own columns, or (times the multiplier) its leader's. */
static inline int column_of(const kg_model *m, const kg_joint *J, double *scale) {
    *scale = 1;
    if (J->mimic < 0) return J->dofadr;
    const kg_mimic *mm = &m->mimic[J->mimic];
    *scale = mm->multiplier;
    return m->joint[mm->leader].dofadr;
}

double kg_com_jacobian(const kg_model *m, const kg_data *d, double com[3], double *J, double *scratch) {
    /* scratch: per link, the mass and mass-weighted COM of its subtree */
    double *sm = scratch, *smc = scratch + m->nlink;
    for (int i = 0; i < m->nlink; i++) {
        const kg_link *L = &m->link[i];
        double c[3];
        kg_mat3_vec(c, d->link_rot + 9 * i, L->com);
        sm[i] = L->mass;
        for (int a = 0; a < 3; a++) smc[3 * i + a] = L->mass * (c[a] + d->link_pos[3 * i + a]);
    }
    for (int i = m->nlink - 1; i > 0; i--) { /* topological order: children after parents */
        int p = m->link[i].parent;
        if (p < 0) continue;
        sm[p] += sm[i];
        for (int a = 0; a < 3; a++) smc[3 * p + a] += smc[3 * i + a];
    }
    double M = 0, mc[3] = {0, 0, 0};
    for (int i = 0; i < m->nlink; i++)
        if (m->link[i].parent < 0) {
            M += sm[i];
            for (int a = 0; a < 3; a++) mc[a] += smc[3 * i + a];
        }
    for (int a = 0; a < 3; a++) com[a] = M > 0 ? mc[a] / M : NAN;
    if (!J) return M;
    const int n = m->dof;
    memset(J, 0, (size_t)3 * n * sizeof *J);
    if (!(M > 0)) return M;
    /* a joint moves its child's subtree: the velocity of that subtree's mass-weighted
     * COM is m v + w x (m c), (v, w) the joint's world twist */
    for (int j = 0; j < m->njoint; j++) {
        const kg_joint *Jt = &m->joint[j];
        double scale;
        int col = column_of(m, Jt, &scale);
        if (col < 0) continue;
        int i = Jt->child;
        for (int c = 0; c < Jt->nv; c++) {
            const double *tw = d->twist + 6 * (Jt->vadr + c);
            double x[3];
            kg_vec3_cross(x, tw + 3, smc + 3 * i);
            for (int a = 0; a < 3; a++) J[a * n + col + c] += scale * (sm[i] * tw[a] + x[a]) / M;
        }
    }
    return M;
}

/* Cholesky factorisation A = L L^T of an n x n symmetric positive definite
 * matrix (row-major; L left in the lower triangle, the diagonal its L_ii) and
 * the solve. Written out rather than LAPACK's dpotrf/dpotrs: the systems here
 * are a few dozen wide, where the library's blocking and call overhead took
 * 9 % of a retargeting run (MuJoCo's mju_cholFactor is the same choice).
 * Returns 0, or nonzero when A is not positive definite. */
static int cholesky(double *A, int n) {
    for (int j = 0; j < n; j++) {
        double *Lj = A + (size_t)j * n, s = Lj[j];
        for (int k = 0; k < j; k++) s -= Lj[k] * Lj[k];
        if (!(s > 0)) return j + 1;
        Lj[j] = sqrt(s);
        double inv = 1 / Lj[j];
        int i = j + 1;
        for (; i + 3 < n; i += 4) { /* four rows' sums side by side: each still in k's order */
            double *L0 = A + (size_t)i * n, *L1 = L0 + n, *L2 = L1 + n, *L3 = L2 + n;
            double t0 = L0[j], t1 = L1[j], t2 = L2[j], t3 = L3[j];
            for (int k = 0; k < j; k++) {
                t0 -= L0[k] * Lj[k];
                t1 -= L1[k] * Lj[k];
                t2 -= L2[k] * Lj[k];
                t3 -= L3[k] * Lj[k];
            }
            L0[j] = t0 * inv, L1[j] = t1 * inv, L2[j] = t2 * inv, L3[j] = t3 * inv;
        }
        for (; i < n; i++) {
            double *Li = A + (size_t)i * n, t = Li[j];
            for (int k = 0; k < j; k++) t -= Li[k] * Lj[k];
            Li[j] = t * inv;
        }
    }
    return 0;
}
static void cholesky_solve(const double *L, int n, double *b) {
    for (int i = 0; i < n; i++) { /* L y = b */
        const double *Li = L + (size_t)i * n;
        double t = b[i];
        for (int k = 0; k < i; k++) t -= Li[k] * b[k];
        b[i] = t / Li[i];
    }
    for (int i = n - 1; i >= 0; i--) { /* L^T x = y */
        double t = b[i];
        for (int k = i + 1; k < n; k++) t -= L[(size_t)k * n + i] * b[k];
        b[i] = t / L[(size_t)i * n + i];
    }
}

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static inline uint64_t splitmix64(uint64_t *s) {
    uint64_t x = (*s += 0x9e3779b97f4a7c15ull);
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

/* The pose of a link's point relative to a base link (-1: the world). */
static void relative_pose(const kg_data *d, int link, const double point[3], int base, double p[3], double R[9]) {
    double pw[3], Rw[9];
    kg_mat3_vec(pw, d->link_rot + 9 * link, point);
    for (int a = 0; a < 3; a++) pw[a] += d->link_pos[3 * link + a];
    kg_mat3_copy(Rw, d->link_rot + 9 * link);
    if (base < 0) {
        kg_vec3_copy(p, pw);
        kg_mat3_copy(R, Rw);
        return;
    }
    const double *Rb = d->link_rot + 9 * base, *pb = d->link_pos + 3 * base;
    double dp[3] = {pw[0] - pb[0], pw[1] - pb[1], pw[2] - pb[2]};
    kg_mat3_tvec(p, Rb, dp);
    kg_mat3_mul_at(R, Rb, Rw);
}

typedef struct errors {
    double pos, rot; /* worst over the targets, along their constrained axes */
    double cost;     /* sum of weight * (squared errors over the tolerances): what the steps reduce */
} errors;

/* Appends one target's rows (error and Jacobian, in the target's frame, masked
 * and weighted); updates the worst errors (only those when J6 is NULL). M
 * rotates world vectors into the target's frame. */
static void add_rows(kg_ik_work *w, int *nrows, const double *J6, const double *Jb, const double *M,
                     const double ep[3], const double er[3], unsigned axes, double weight, const kg_ik_options *o,
                     errors *worst) {
    const int n = w->dof;
    double e[6], np = 0, nr = 0;
    kg_mat3_vec(e, M, ep);
    kg_mat3_vec(e + 3, M, er);
    for (int a = 0; a < 3; a++) {
        if (axes & (1u << a)) np += e[a] * e[a];
        if (axes & (8u << a)) nr += e[3 + a] * e[3 + a];
    }
    worst->cost += weight * (np / (o->tol_pos * o->tol_pos) + nr / (o->tol_rot * o->tol_rot));
    np = sqrt(np), nr = sqrt(nr);
    if (np > worst->pos) worst->pos = np;
    if (nr > worst->rot) worst->rot = nr;
    if (!J6) return; /* the errors only */
    /* clip the step (irteus's p-limit and r-limit) */
    double sp = np > o->step_pos ? o->step_pos / np : 1, sr = nr > o->step_rot ? o->step_rot / nr : 1;
    double sw = sqrt(weight);
    /* only the active columns: a partial solve (a push, the legs) has few */
    const int na = w->na, *cols = w->cols;
    for (int r = 0; r < 6; r++) {
        if (!(axes & (1u << r))) continue;
        double *row = w->rows + (size_t)*nrows * na;
        const double *m3 = M + 3 * (r % 3);
        const double *Jr = J6 + (r < 3 ? 0 : 3 * n), *Br = Jb + (r < 3 ? 0 : 18);
        int a = 0;
        if (na == w->ncol) /* all: a plain loop (vectorized) */
            for (; a < n; a++) row[a] = sw * (m3[0] * Jr[a] + m3[1] * Jr[n + a] + m3[2] * Jr[2 * n + a]);
        for (; a < na && cols[a] < n; a++) {
            int c = cols[a];
            row[a] = sw * (m3[0] * Jr[c] + m3[1] * Jr[n + c] + m3[2] * Jr[2 * n + c]);
        }
        for (; a < na; a++) { /* the base's (they come last) */
            int c = cols[a] - n;
            row[a] = Jb ? sw * (m3[0] * Br[c] + m3[1] * Br[6 + c] + m3[2] * Br[12 + c]) : 0;
        }
        w->err[*nrows] = sw * e[r] * (r < 3 ? sp : sr);
        ++*nrows;
    }
}

/* The base's six columns (6 x 6, rows linear then angular) for a world point p:
 * a translation moves it, a rotation about the root turns it about the root. */
static void base_columns(double *Jb, const kg_data *d, const double p[3]) {
    double r[3] = {p[0] - d->base_pos[0], p[1] - d->base_pos[1], p[2] - d->base_pos[2]};
    memset(Jb, 0, 36 * sizeof *Jb);
    for (int a = 0; a < 3; a++) Jb[6 * a + a] = 1, Jb[6 * (3 + a) + 3 + a] = 1;
    /* w x r = -[r]x w */
    Jb[0 * 6 + 4] = r[2], Jb[0 * 6 + 5] = -r[1];
    Jb[1 * 6 + 3] = -r[2], Jb[1 * 6 + 5] = r[0];
    Jb[2 * 6 + 3] = r[1], Jb[2 * 6 + 4] = -r[0];
}

/* Builds the rows at the current pose (kg_fk and twists done). */
static int build_rows(const kg_model *m, kg_data *d, const kg_ik_target *t, int nt, const kg_ik_options *o,
                      kg_ik_work *w, errors *worst) {
    int nrows = 0;
    worst->pos = worst->rot = worst->cost = 0;
    for (int k = 0; k < nt; k++) {
        const kg_ik_target *T = &t[k];
        double weight = T->weight > 0 ? T->weight : 1;
        if (T->link == KG_IK_COM) {
            double com[3], Id[9];
            kg_com_jacobian(m, d, com, w->J6, w->scratch);
            /* the COM rows are 3: pad the angular ones (unused: the mask has no rotation) */
            memset(w->J6 + 3 * w->dof, 0, (size_t)3 * w->dof * sizeof *w->J6);
            double ep[3], er[3] = {0, 0, 0};
            for (int a = 0; a < 3; a++) ep[a] = T->pos[a] - com[a];
            kg_mat3_identity(Id);
            if (o->floating_base) base_columns(w->Jb, d, com);
            add_rows(w, &nrows, w->J6, o->floating_base ? w->Jb : NULL, Id, ep, er, T->axes & KG_IK_POSITION, weight,
                     o, worst);
            continue;
        }
        double p[3], R[9], ep[3], er[3], Rerr[9], M[9];
        relative_pose(d, T->link, T->point, T->base, p, R);
        for (int a = 0; a < 3; a++) ep[a] = T->pos[a] - p[a];
        if (T->axes & KG_IK_ROTATION) {
            kg_mat3_mul_bt(Rerr, T->rot, R); /* the rotation still to do, in the base's frame */
            kg_rot_log(Rerr, er);
        } else {
            er[0] = er[1] = er[2] = 0; /* not asked for */
        }
        if (w->built[k]) kg_jacobian(m, d, T->link, T->point, T->base, w->J6);
        /* Jacobian rows are in world axes, errors in the base's: both to world axes,
         * then all to the target's frame, M = (Rb Rt)^T */
        double RbRt[9];
        if (T->base >= 0) {
            const double *Rb = d->link_rot + 9 * T->base;
            double e2[3];
            kg_mat3_vec(e2, Rb, ep);
            kg_vec3_copy(ep, e2);
            kg_mat3_vec(e2, Rb, er);
            kg_vec3_copy(er, e2);
            kg_mat3_mul(RbRt, Rb, T->rot);
        } else {
            kg_mat3_copy(RbRt, T->rot);
        }
        for (int i = 0; i < 3; i++)
            for (int j = 0; j < 3; j++) M[3 * i + j] = RbRt[3 * j + i];
        const double *Jb = NULL;
        if (o->floating_base && T->base < 0 && w->built[k]) { /* relative targets move with the base */
            double pw[3];
            kg_mat3_vec(pw, d->link_rot + 9 * T->link, T->point);
            for (int a = 0; a < 3; a++) pw[a] += d->link_pos[3 * T->link + a];
            base_columns(w->Jb, d, pw);
            Jb = w->Jb;
        }
        add_rows(w, &nrows, w->built[k] ? w->J6 : NULL, Jb, M, ep, er, T->axes, weight, o, worst);
    }
    /* loop closures: the virtual link onto its real link */
    for (int l = 0; l < m->nloop; l++) {
        const kg_loop *L = &m->loop[l];
        int v = L->virtual_link, r = L->real_link;
        double ep[3], er[3], Rerr[9], Id[9];
        for (int a = 0; a < 3; a++) ep[a] = d->link_pos[3 * r + a] - d->link_pos[3 * v + a];
        kg_mat3_mul_bt(Rerr, d->link_rot + 9 * r, d->link_rot + 9 * v);
        kg_rot_log(Rerr, er);
        kg_jacobian(m, d, v, NULL, r, w->J6);
        kg_mat3_identity(Id);
        add_rows(w, &nrows, w->J6, NULL, Id, ep, er, KG_IK_POSE, LOOP_WEIGHT, o, worst);
    }
    return nrows;
}

/* The posture's pull per column and its share of the cost. */
static void posture_terms(const kg_data *d, kg_ik_work *w, int na, const kg_ik_options *o, errors *worst) {
    if (!o->posture || !(o->posture_weight > 0)) return;
    for (int c = 0; c < na; c++) {
        int col = w->cols[c], qi = w->qidx[col];
        w->post[col] = 0;
        if (qi < 0) continue;
        double e = o->posture[qi] - d->q[qi];
        w->post[col] = o->posture_weight * e;
        worst->cost += o->posture_weight * e * e / (o->tol_rot * o->tol_rot);
    }
}

/* The damped least-squares step on the active columns: w->dv (all columns).
 * full: the rows of all targets, nrows of them built (see kg_ik_solve). */
/* mu: Levenberg-Marquardt damping on top, relative to the system's mean diagonal
 * (raised after a step that made things worse). */
static void step(kg_ik_work *w, int nrows, int full, int na, const kg_ik_options *o, double mu) {
    const int n = w->ncol;
    const double *Ja = w->rows; /* on the active columns */
    double *A = w->A, *A0 = w->A0, *y = w->y;
    memset(w->dv, 0, (size_t)n * sizeof *w->dv);
    if (full <= na && !(o->posture && o->posture_weight > 0)) {
        /* A = J W J^T (nrows x nrows) */
        for (int i = 0; i < nrows; i++)
            for (int j = 0; j <= i; j++) {
                double s = 0;
                const double *a = Ja + (size_t)i * na, *b = Ja + (size_t)j * na;
                for (int c = 0; c < na; c++) s += a[c] * w->wgt[c] * b[c];
                A0[i * nrows + j] = A0[j * nrows + i] = s;
            }
        /* manipulability from the undamped factor: w = prod(L_ii) */
        memcpy(A, A0, sq(nrows) * sizeof *A);
        double manip = 0;
        if (cholesky(A, nrows) == 0) {
            manip = 1;
            for (int i = 0; i < nrows; i++) manip *= A[i * nrows + i];
        }
        double k = manip < o->manipulability_limit
                       ? o->damping_gain * (1 - manip / o->manipulability_limit) * (1 - manip / o->manipulability_limit)
                       : 0;
        if (mu > 0) {
            double tr = 0;
            for (int i = 0; i < nrows; i++) tr += A0[i * nrows + i];
            k += mu * tr / nrows;
        }
        if (k > 0 || manip == 0) {
            memcpy(A, A0, sq(nrows) * sizeof *A);
            double kk = k > 0 ? k : 1e-12;
            for (int i = 0; i < nrows; i++) A[i * nrows + i] += kk;
            if (cholesky(A, nrows) != 0) return;
        }
        memcpy(y, w->err, (size_t)nrows * sizeof *y);
        cholesky_solve(A, nrows, y);
        double *s = w->jty; /* J^T y, a row at a time (contiguous; each sum in row order) */
        for (int c = 0; c < na; c++) s[c] = 0;
        for (int r = 0; r < nrows; r++)
            for (int c = 0; c < na; c++) s[c] += Ja[(size_t)r * na + c] * y[r];
        for (int c = 0; c < na; c++) w->dv[w->cols[c]] = w->wgt[c] * s[c];
    } else {
        /* more rows than columns (or a posture): (J^T J + k W^-1 + p I) dq = J^T e +
         * p (posture - q); w = 0 here, so k = gain */
        const int post = o->posture && o->posture_weight > 0;
        double k = o->damping_gain > 0 ? o->damping_gain : 1e-12;
        /* J^T J by rows, skipping zeros (a target's rows touch only its chain's
         * columns and the base's): the lower triangle, then mirrored */
        for (int i = 0; i < na; i++) memset(A + (size_t)i * na, 0, (size_t)(i + 1) * sizeof *A); /* the lower triangle */
        for (int r = 0; r < nrows; r++) {
            const double *row = Ja + (size_t)r * na;
            int *nz = w->nz, nnz = 0;
            for (int i = 0; i < na; i++)
                if (row[i] != 0) nz[nnz++] = i;
            if (2 * nnz > na) { /* dense (the COM's): whole rows, vectorized */
                for (int x = 0; x < nnz; x++) {
                    int i = nz[x];
                    double a = row[i], *Ai = A + (size_t)i * na;
                    for (int j = 0; j <= i; j++) Ai[j] += a * row[j];
                }
            } else { /* sparse: the non-zero products only (the same sums, in the same order) */
                for (int x = 0; x < nnz; x++) {
                    int i = nz[x];
                    double a = row[i], *Ai = A + (size_t)i * na;
                    for (int z = 0; z <= x; z++) Ai[nz[z]] += a * row[nz[z]];
                }
            }
        }
        for (int i = 0; i < na; i++)
            for (int j = 0; j < i; j++) A[j * na + i] = A[i * na + j];
        if (mu > 0) {
            double tr = 0;
            for (int i = 0; i < na; i++) tr += A[i * na + i];
            k += mu * tr / na;
        }
        for (int i = 0; i < na; i++) A[i * na + i] += k / w->wgt[i];
        if (post)
            for (int i = 0; i < na; i++)
                if (w->qidx[w->cols[i]] >= 0) A[i * na + i] += o->posture_weight;
        if (cholesky(A, na) != 0) return;
        for (int c = 0; c < na; c++) y[c] = 0; /* J^T e, a row at a time */
        for (int r = 0; r < nrows; r++)
            for (int c = 0; c < na; c++) y[c] += Ja[(size_t)r * na + c] * w->err[r];
        if (post)
            for (int c = 0; c < na; c++) y[c] += w->post[w->cols[c]];
        cholesky_solve(A, na, y);
        for (int c = 0; c < na; c++) w->dv[w->cols[c]] = y[c];
    }
}

/* Chan and Dubey's joint-limit weights (irteus's form), times the user's. */
static void limit_weights(const kg_data *d, kg_ik_work *w, int na, const kg_ik_options *o) {
    const double e = KG_PI / 180; /* kept this far inside a limit */
    for (int c = 0; c < na; c++) {
        int col = w->cols[c], qi = w->qidx[col];
        double uw = o->weight ? o->weight[col] : 1, lw = 1;
        double lo = w->lower[col], hi = w->upper[col];
        if (o->limit_gain >= 0 && qi >= 0 && isfinite(lo) && isfinite(hi)) {
            double g;
            if (hi - lo <= 2 * e) {
                g = INFINITY;
            } else {
                double x = d->q[qi];
                if (x < lo + e) x = lo + e;
                if (x > hi - e) x = hi - e;
                double r = hi - lo, a = hi - x, b = x - lo;
                g = o->limit_gain * fabs(r * r * (2 * x - hi - lo) / (4 * a * a * b * b));
            }
            lw = g - w->g_old[col] >= 0 ? 1 / (1 + g) : 1;
            w->g_old[col] = g;
        }
        w->wgt[c] = uw * lw;
    }
}

/* Back within limits. An angle whose range is more than a turn goes a turn back
 * first (the same pose): a joint of +-2 pi that runs into a limit is not stuck. */
static void clamp_limits(kg_data *d, const kg_ik_work *w, int na) {
    for (int c = 0; c < na; c++) {
        int col = w->cols[c], qi = w->qidx[col];
        if (qi < 0) continue;
        if (w->angle[col] && w->upper[col] - w->lower[col] >= 2 * KG_PI) {
            if (d->q[qi] > w->upper[col]) d->q[qi] -= 2 * KG_PI;
            else if (d->q[qi] < w->lower[col]) d->q[qi] += 2 * KG_PI;
        }
        if (d->q[qi] < w->lower[col]) d->q[qi] = w->lower[col];
        if (d->q[qi] > w->upper[col]) d->q[qi] = w->upper[col];
    }
}

static void restart(const kg_model *m, kg_data *d, const kg_ik_work *w, int na, uint64_t *rng) {
    for (int c = 0; c < na; c++) {
        int col = w->cols[c], qi = w->qidx[col];
        if (qi < 0) continue;
        double lo = w->lower[col], hi = w->upper[col];
        if (!isfinite(lo) || !isfinite(hi)) {
            if (isfinite(lo) || isfinite(hi)) continue;
            const kg_joint *J = NULL; /* unlimited: a turn for rotations, else stay */
            for (int j = 0; j < m->njoint && !J; j++)
                if (m->joint[j].dofadr >= 0 && col >= m->joint[j].dofadr && col < m->joint[j].dofadr + m->joint[j].nv)
                    J = &m->joint[j];
            if (!J || !(J->type == KG_JOINT_CONTINUOUS ||
                        (J->type == KG_JOINT_COMPOUND && m->axis[J->axis_first + (col - J->dofadr)].kind == KG_AXIS_ROTATION)))
                continue;
            lo = -KG_PI, hi = KG_PI;
        }
        double u = (double)(splitmix64(rng) >> 11) * (1.0 / 9007199254740992.0);
        d->q[qi] = lo + (hi - lo) * u;
    }
    kg_apply_mimic(m, d->q);
}

/* Turns and moves the root by the base columns' step. */
static void integrate_base(kg_data *d, const double *v) {
    for (int a = 0; a < 3; a++) d->base_pos[a] += v[a];
    double r[9], nr[9], ang = kg_vec3_norm(v + 3);
    if (ang <= 0) return;
    double ax[3] = {v[3] / ang, v[4] / ang, v[5] / ang};
    kg_rot_axis_angle(r, ax, ang);
    kg_mat3_mul(nr, r, d->base_rot);
    kg_mat3_orthonormalize(nr);
    kg_mat3_copy(d->base_rot, nr);
}

/* The active columns: o->active's, else those that move a target (and every
 * joint of a loop one of them is in), and the floating base's. Into w->mask
 * and w->cols; returns how many. */
static int active_columns(const kg_model *m, const kg_ik_target *t, int nt, const kg_ik_options *o, kg_ik_work *w) {
    const int n = m->dof, nc = w->ncol;
    memset(w->mask, 0, (size_t)nc);
    if (o->active) {
        memcpy(w->mask, o->active, (size_t)n);
    } else {
        for (int k = 0; k < nt; k++) {
            if (t[k].link == KG_IK_COM) {
                memset(w->mask, 1, (size_t)n);
                break;
            }
            memset(w->mask2, 0, (size_t)nc);
            kg_jacobian_columns(m, t[k].link, t[k].base, w->mask2);
            for (int c = 0; c < n; c++) w->mask[c] |= w->mask2[c];
        }
        /* a loop any active joint is in: all its joints (they move together) */
        for (int l = 0; l < m->nloop; l++) {
            memset(w->mask2, 0, (size_t)nc);
            kg_jacobian_columns(m, m->loop[l].virtual_link, m->loop[l].real_link, w->mask2);
            int touched = 0;
            for (int c = 0; c < n; c++) touched |= w->mask[c] && w->mask2[c];
            if (touched)
                for (int c = 0; c < n; c++) w->mask[c] |= w->mask2[c];
        }
    }
    if (o->floating_base) memset(w->mask + n, 1, 6);
    int na = 0;
    for (int c = 0; c < nc; c++)
        if (w->mask[c]) w->cols[na++] = c;
    return na;
}

/* Targets the active columns do not move (the others' in a partial solve):
 * their errors count (the cost, the test for success) but their rows are zero
 * on those columns. Where the step works on J^T J (more rows than columns, or
 * a posture), zero rows add nothing, so they are not built: the same step.
 * Sets w->built; returns the rows of all targets (`full` in step). */
static int mark_built(const kg_model *m, const kg_ik_target *t, int nt, const kg_ik_options *o, kg_ik_work *w, int na) {
    int full = 6 * m->nloop;
    for (int k = 0; k < nt; k++)
        for (int a = 0; a < 6; a++) full += (t[k].axes & (t[k].link == KG_IK_COM ? KG_IK_POSITION : 0x3fu)) >> a & 1;
    const int skip = full > na || (o->posture && o->posture_weight > 0);
    for (int k = 0; k < nt; k++) {
        w->built[k] = 1;
        if (!skip || t[k].link == KG_IK_COM || (o->floating_base && t[k].base < 0)) continue;
        kg_jacobian_columns(m, t[k].link, t[k].base, w->mask2);
        int moved = 0;
        for (int c = 0; c < m->dof && !moved; c++) moved = w->mask2[c] && w->mask[c];
        w->built[k] = (unsigned char)moved;
    }
    return full;
}

/* d's joint values and root pose into q and base (position, then rotation). */
static void save_pose(const kg_model *m, const kg_data *d, double *q, double *base) {
    memcpy(q, d->q, (size_t)m->nq * sizeof *d->q);
    kg_vec3_copy(base, d->base_pos);
    kg_mat3_copy(base + 3, d->base_rot);
}

/* The pose save_pose kept back into d. */
static void load_pose(const kg_model *m, kg_data *d, const double *q, const double *base) {
    memcpy(d->q, q, (size_t)m->nq * sizeof *d->q);
    kg_vec3_copy(d->base_pos, base);
    kg_mat3_copy(d->base_rot, base + 3);
}

/* The kinematics at d's pose, the targets' rows and the posture's terms;
 * returns the rows built (the errors in *worst). */
static int evaluate(const kg_model *m, kg_data *d, const kg_ik_target *t, int nt, const kg_ik_options *o, kg_ik_work *w,
                    int na, errors *worst) {
    kg_fk(m, d);
    kg_jacobian_twists(m, d);
    int nrows = build_rows(m, d, t, nt, o, w, worst);
    posture_terms(d, w, na, o, worst);
    return nrows;
}

/* A joint at a limit that the step pushes further out cannot follow it: take
 * it out of this step so that the others make up for it (clamping alone leaves
 * the residual there, and the solve would ask for it again). Up to 3 passes. */
static void unblock_step(const kg_data *d, kg_ik_work *w, int nrows, int full, int na, const kg_ik_options *o, double mu) {
    for (int pass = 0; pass < 3; pass++) {
        int blocked = 0;
        for (int c = 0; c < na; c++) {
            int col = w->cols[c], qi = w->qidx[col];
            if (qi < 0 || w->wgt[c] <= 1e-12) continue;
            double x = d->q[qi] + w->dv[col];
            if (w->angle[col] && w->upper[col] - w->lower[col] >= 2 * KG_PI) continue; /* it wraps */
            if ((x > w->upper[col] && d->q[qi] >= w->upper[col] - 1e-12) ||
                (x < w->lower[col] && d->q[qi] <= w->lower[col] + 1e-12))
                w->wgt[c] = 1e-12, blocked = 1;
        }
        if (!blocked) break;
        step(w, nrows, full, na, o, mu);
    }
}

int kg_ik_solve(const kg_model *m, kg_data *d, const kg_ik_target *t, int nt, const kg_ik_options *o_,
                kg_ik_work *w, kg_ik_result *r) {
    kg_ik_options o = *o_;
    double t0 = now();
    memset(r, 0, sizeof *r);
    const int n = m->dof, nc = w->ncol;
    /* this solve's limits */
    for (int c = 0; c < nc; c++) {
        w->lower[c] = c < n && o.lower ? o.lower[c] : w->model_lower[c];
        w->upper[c] = c < n && o.upper ? o.upper[c] : w->model_upper[c];
    }
    const int na = w->na = active_columns(m, t, nt, &o, w);
    const int full = mark_built(m, t, nt, &o, w, na);
    for (int c = 0; c < nc; c++) w->g_old[c] = 1e20;
    uint64_t rng = o.seed;
    double best = INFINITY, attempt_best = INFINITY;
    int since_gain = 0;
    save_pose(m, d, w->q_best, w->base_best);
    errors worst = {0, 0, 0};
    /* Levenberg-Marquardt safeguard: a step that raises the weighted cost is undone
     * and retried with more damping (inconsistent targets make plain Gauss-Newton
     * steps overshoot and oscillate) */
    double mu = 0, cost_acc = INFINITY;
    int stalled = 0;
    for (int it = 0;; it++) {
        int nrows = evaluate(m, d, t, nt, &o, w, na, &worst);
        if (worst.cost > cost_acc && isfinite(cost_acc) && mu < 1e6) {
            load_pose(m, d, w->q_acc, w->base_acc);
            mu = mu > 0 ? mu * 10 : 1e-6;
            nrows = evaluate(m, d, t, nt, &o, w, na, &worst);
        } else {
            stalled = o.stall_gain > 0 && isfinite(cost_acc) && cost_acc - worst.cost < o.stall_gain * cost_acc;
            cost_acc = worst.cost;
            save_pose(m, d, w->q_acc, w->base_acc);
            mu = mu > 1e-9 ? mu / 3 : 0;
        }
        double score = fmax(worst.pos / o.tol_pos, worst.rot / o.tol_rot);
        if (worst.cost < best) { /* the best pose by the weighted cost the steps reduce */
            best = worst.cost;
            r->pos_error = worst.pos, r->rot_error = worst.rot;
            save_pose(m, d, w->q_best, w->base_best);
        }
        if (score <= 1) {
            r->success = 1;
            break;
        }
        if (it >= o.max_iterations || na == 0 || stalled || (o.time_budget > 0 && now() - t0 > o.time_budget)) break;
        /* stalled: no 1 % gain for a while, or the attempt's iterations spent */
        if (score < 0.99 * attempt_best) attempt_best = score, since_gain = 0;
        else since_gain++;
        int may_restart = o.restarts == 0 || (o.restarts > 0 && r->restarts < o.restarts);
        if (may_restart && (since_gain >= 10 || (o.attempt_iterations > 0 && it > 0 && it % o.attempt_iterations == 0))) {
            restart(m, d, w, na, &rng);
            for (int c = 0; c < nc; c++) w->g_old[c] = 1e20;
            mu = 0, cost_acc = INFINITY;
            attempt_best = INFINITY, since_gain = 0;
            r->restarts++;
            continue;
        }
        limit_weights(d, w, na, &o);
        step(w, nrows, full, na, &o, mu);
        unblock_step(d, w, nrows, full, na, &o, mu);
        kg_q_integrate(m, d->q, w->dv, 1);
        if (o.floating_base) integrate_base(d, w->dv + n);
        clamp_limits(d, w, na);
        kg_apply_mimic(m, d->q);
        r->iterations++;
    }
    if (!r->success) { /* leave the best pose found */
        load_pose(m, d, w->q_best, w->base_best);
        kg_fk(m, d);
    }
    r->seconds = now() - t0;
    return r->success;
}
