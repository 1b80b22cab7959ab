/* Inverse dynamics from the joint vector alone (kg_dyn_rnea_q): the
 * recursive Newton-Euler algorithm in each body's own frame (Featherstone's
 * form, RBDA 5.3), the joint transforms built from q as it goes, so neither
 * world poses (kg_fk) nor world inertias (kg_dyn_positions) are needed: each
 * body's inertia in its own frame is constant (w->rbl), and a joint's
 * transform from its parent body is a constant one times its rotation or
 * translation (w->xs). For a model whose moving joints are all revolute,
 * continuous or prismatic; anything else goes the world-frame way. */
#include <string.h>

#include "analysis/dynamics/internal.h"
#include "core/fk.h"

/* f = I a + v x* I v for an inertia about the origin in the same frame. */
static inline void body_force(double *restrict f, const double *restrict rb, const double *restrict V,
                              const double *restrict A) {
    double h[6];
    rb_apply(f, rb, A);
    rb_apply(h, rb, V);
    sv_cross_force_add(f, V, h);
}

/* A joint's rotation at q: the matrix R (XM_GENERAL), or a turn by (c, s)
 * about coordinate axis k (the other two components mixed), or none. */
typedef struct turn {
    int mode, i, j; /* i, j: the components a turn about axis `mode` mixes */
    double c, s;
    const double *R;
} turn;

static inline turn make_turn(int mode, double c, double s, const double *R) {
    return (turn){mode, (mode + 1) % 3, (mode + 2) % 3, c, s, R};
}

/* o = R^T x (into the child's axes) */
static inline void turn_in(double *restrict o, const turn *t, const double *restrict x) {
    if (t->mode == XM_GENERAL) {
        kg_mat3_tvec(o, t->R, x);
        return;
    }
    o[0] = x[0], o[1] = x[1], o[2] = x[2];
    if (t->mode == XM_FIXED) return;
    const int i = t->i, j = t->j;
    o[i] = t->c * x[i] + t->s * x[j];
    o[j] = t->c * x[j] - t->s * x[i];
}

/* o = R x (into the parent's axes) */
static inline void turn_out(double *restrict o, const turn *t, const double *restrict x) {
    if (t->mode == XM_GENERAL) {
        kg_mat3_vec(o, t->R, x);
        return;
    }
    o[0] = x[0], o[1] = x[1], o[2] = x[2];
    if (t->mode == XM_FIXED) return;
    const int i = t->i, j = t->j;
    o[i] = t->c * x[i] - t->s * x[j];
    o[j] = t->s * x[i] + t->c * x[j];
}

/* x's motion moved into the child's frame: (E w; E (u + w x p)), E = R^T. */
static inline void motion_in(double *restrict o, const turn *t, const double *restrict p, const double *restrict x) {
    double u[3];
    u[0] = x[3] + x[1] * p[2] - x[2] * p[1];
    u[1] = x[4] + x[2] * p[0] - x[0] * p[2];
    u[2] = x[5] + x[0] * p[1] - x[1] * p[0];
    turn_in(o, t, x);
    turn_in(o + 3, t, u);
}

/* o += the child's force f moved into the parent's frame: (R n + p x R f; R f). */
static inline void force_out_add(double *restrict o, const turn *t, const double *restrict p,
                                 const double *restrict f) {
    double n[3], g[3];
    turn_out(n, t, f);
    turn_out(g, t, f + 3);
    o[0] += n[0] + p[1] * g[2] - p[2] * g[1];
    o[1] += n[1] + p[2] * g[0] - p[0] * g[2];
    o[2] += n[2] + p[0] * g[1] - p[1] * g[0];
    o[3] += g[0], o[4] += g[1], o[5] += g[2];
}

void kg_dyn_rnea_q(const kg_model *m, kg_data *d, kg_dyn *w, const kg_dyn_options *opt, const double *v,
                   const double *a, double *tau) {
    if (!w->local_ok) {
        kg_fk(m, d);
        kg_dyn_positions(m, d, w);
        kg_dyn_rnea(m, w, opt, v, a, NULL, tau);
        return;
    }
    const double *g = dyn_options(opt)->gravity;
    double *restrict vel = w->vel, *restrict acc = w->acc, *restrict frc = w->frc;
    /* each joint's rotation and offset at q, in ABA's scratch (kg_dyn_positions' r and rb stay as they were) */
    double *restrict Rq = w->IA, *restrict Pq = w->IA + 9 * (size_t)w->nlink;
    kg_apply_mimic(m, d->q);
    sv_zero(vel);
    sv_zero(acc);
    double gr[3]; /* the root rises at -g, in its own axes */
    kg_mat3_tvec(gr, d->base_rot, g);
    acc[3] = -gr[0], acc[4] = -gr[1], acc[5] = -gr[2];
    for (int b = 1; b < w->nbody; b++) {
        const int i = w->body[b], p = w->bparent[i], va = w->vadr[i];
        const double *x = w->xs + XS_SIZE * i, qd = v ? v[va] : 0, qdd = a ? a[va] : 0;
        const double q = d->q[w->qadr[i]];
        double *R = Rq + 9 * i, P[3], V[6], A[6], F[6];
        turn t = make_turn(w->xmode[i], 1, 0, R);
        memcpy(P, x + XS_P, sizeof P);
        if (w->kind[i] == DYN_REVOLUTE) {
            double s, c;
            kg_sincos(q, &s, &c);
            if (t.mode == XM_GENERAL)
                for (int e = 0; e < 9; e++) R[e] = x[XS_R + e] + s * x[XS_B1 + e] + (1 - c) * x[XS_B2 + e];
            else /* the axis's sign turns the angle */
                t.c = c, t.s = x[XS_A + t.mode] * s, R[0] = t.c, R[1] = t.s;
        } else {
            memcpy(R, x + XS_R, 9 * sizeof *R);
            for (int e = 0; e < 3; e++) P[e] += q * x[XS_A + e];
        }
        memcpy(Pq + 3 * i, P, sizeof P);
        motion_in(V, &t, P, vel + 6 * p);
        motion_in(A, &t, P, acc + 6 * p);
        const double *ax = x + XS_AX; /* the axis in the body's own frame */
        const double s0 = ax[0] * qd, s1 = ax[1] * qd, s2 = ax[2] * qd;
        if (w->kind[i] == DYN_REVOLUTE) { /* S = (a; 0): A += (w x s + a qdd; u x s), w += s */
            A[0] += V[1] * s2 - V[2] * s1 + ax[0] * qdd;
            A[1] += V[2] * s0 - V[0] * s2 + ax[1] * qdd;
            A[2] += V[0] * s1 - V[1] * s0 + ax[2] * qdd;
            A[3] += V[4] * s2 - V[5] * s1;
            A[4] += V[5] * s0 - V[3] * s2;
            A[5] += V[3] * s1 - V[4] * s0;
            V[0] += s0, V[1] += s1, V[2] += s2;
        } else { /* S = (0; a): A += (0; w x s + a qdd), u += s */
            A[3] += V[1] * s2 - V[2] * s1 + ax[0] * qdd;
            A[4] += V[2] * s0 - V[0] * s2 + ax[1] * qdd;
            A[5] += V[0] * s1 - V[1] * s0 + ax[2] * qdd;
            V[3] += s0, V[4] += s1, V[5] += s2;
        }
        body_force(F, w->rbl + RB_SIZE * i, V, A);
        memcpy(vel + 6 * i, V, sizeof V);
        memcpy(acc + 6 * i, A, sizeof A);
        memcpy(frc + 6 * i, F, sizeof F);
    }
    for (int b = w->nbody - 1; b >= 1; b--) {
        const int i = w->body[b], p = w->bparent[i], va = w->vadr[i];
        const double *f = frc + 6 * i, *ax = w->xs + XS_SIZE * i + XS_AX;
        tau[va] = w->kind[i] == DYN_REVOLUTE ? ax[0] * f[0] + ax[1] * f[1] + ax[2] * f[2]
                                             : ax[0] * f[3] + ax[1] * f[4] + ax[2] * f[5];
        if (p <= 0) continue;
        const turn t = make_turn(w->xmode[i], Rq[9 * i], Rq[9 * i + 1], Rq + 9 * i);
        force_out_add(frc + 6 * p, &t, Pq + 3 * i, f);
    }
}

int kg_dyn_rnea_q_local(const kg_dyn *w) { return w->local_ok; }
