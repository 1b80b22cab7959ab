/* Inverse dynamics from the joint vector alone (kg_dyn_rnea_q): the
 * recursive Newton-Euler algorithm in each body's own frame (Featherstone's
 * form, RBDA 5.3), the joint transforms built from q as it goes, so neither
 * world poses (kg_fk) nor world inertias (kg_dyn_positions) are needed: each
 * body's inertia in its own frame is constant (w->rbl), and a joint's
 * transform from its parent body is a constant one times its rotation or
 * translation (w->xs). For a model whose moving joints are all revolute,
 * continuous or prismatic; anything else goes the world-frame way. */
#include <string.h>

#include "analysis/dynamics/local.h"
#include "core/fk.h"

/* f = I a + v x* I v for an inertia about the origin in the same frame. */
static inline void body_force(double *restrict f, const double *restrict rb, const double *restrict V,
                              const double *restrict A) {
    double h[6];
    rb_apply(f, rb, A);
    rb_apply(h, rb, V);
    sv_cross_force_add(f, V, h);
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
        double P[3], V[6], A[6], F[6];
        const turn t = local_joint(w, d, i, Rq + 9 * i, P);
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
        const turn t = stored_turn(w, i, Rq + 9 * i);
        force_out_add(frc + 6 * p, &t, Pq + 3 * i, f);
    }
}

int kg_dyn_rnea_q_local(const kg_dyn *w) { return w->local_ok; }
