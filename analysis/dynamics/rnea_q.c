/* Inverse dynamics from the joint vector alone (kg_dyn_rnea_q): the
 * recursive Newton-Euler algorithm in each body's own frame (Featherstone's
 * form, RBDA 5.3), the joint transforms built from q as it goes, so neither
 * world poses (kg_fk) nor world inertias (kg_dyn_positions) are needed: each
 * body's inertia in its own frame is constant (w->rbq), and a joint's
 * transform from its parent body is a constant one times its rotation or
 * translation (w->xs). Each body's step is specialised on its turn (local.h):
 * for a turn about coordinate axis k the column is (sign e_k; 0). For a model
 * whose moving joints are all revolute, continuous or prismatic; anything
 * else goes the world-frame way. */
#include <string.h>

#include "analysis/dynamics/local.h"
#include "core/fk.h"

/* f = I a + v x* I v for an inertia about the origin in the same frame. */
DYN_INLINE void body_force(double *restrict f, const double *restrict rb, const double *restrict V,
                           const double *restrict A) {
    double h[6];
    rb_apply(f, rb, A);
    rb_apply(h, rb, V);
    sv_cross_force_add(f, V, h);
}

/* Forward step of body i: its velocity, acceleration and the force they need. */
DYN_INLINE void rnea_down(kg_dyn *w, const double *q, int i, const double *v, const double *a, int mode) {
    const int p = w->bparent[i], va = w->vadr[i];
    const double *ax = w->xs + XS_SIZE * i + XS_AX, qd = v ? v[va] : 0, qdd = a ? a[va] : 0;
    double P[3], V[6], A[6], F[6];
    const turn t = local_turn(w, q, i, mode, w->Rq + 9 * i, P);
    motion_in(V, &t, P, w->vel + 6 * p);
    motion_in(A, &t, P, w->acc + 6 * p);
    if (mode != XM_GENERAL) { /* column (sg e_k; 0): w x e_k = (w_j e_i - w_i e_j) */
        const int k = mode, i1 = (k + 1) % 3, i2 = (k + 2) % 3;
        const double sq = ax[k] * qd;
        A[i1] += V[i2] * sq, A[i2] -= V[i1] * sq, A[k] += ax[k] * qdd;
        A[3 + i1] += V[3 + i2] * sq, A[3 + i2] -= V[3 + i1] * sq;
        V[k] += sq;
    } else {
        memcpy(w->Pq + 3 * i, P, sizeof P);
        if (w->kind[i] == DYN_REVOLUTE) dyn_revolute_rates(V, A, ax, qd, qdd);
        else dyn_prismatic_rates(V, A, ax, qd, qdd);
    }
    body_force(F, w->rbq + RB_SIZE * i, V, A);
    memcpy(w->vel + 6 * i, V, sizeof V);
    memcpy(w->acc + 6 * i, A, sizeof A);
    memcpy(w->frc + 6 * i, F, sizeof F);
}

/* Backward step of body i: its joint's torque, its force handed to its parent. */
DYN_INLINE void rnea_up(kg_dyn *w, int i, double *tau, int mode) {
    const int p = w->bparent[i], va = w->vadr[i];
    const double *f = w->frc + 6 * i, *x = w->xs + XS_SIZE * i, *ax = x + XS_AX;
    if (mode != XM_GENERAL) tau[va] = ax[mode] * f[mode];
    else
        tau[va] = w->kind[i] == DYN_REVOLUTE ? ax[0] * f[0] + ax[1] * f[1] + ax[2] * f[2]
                                             : ax[0] * f[3] + ax[1] * f[4] + ax[2] * f[5];
    if (p <= 0) return;
    const turn t = stored_turn(w, i, mode, w->Rq + 9 * i);
    force_out_add(w->frc + 6 * p, &t, mode != XM_GENERAL ? x + XS_P : w->Pq + 3 * i, f);
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
    kg_apply_mimic(m, d->q);
    sv_zero(w->vel);
    sv_zero(w->acc);
    double gr[3]; /* the root rises at -g, in its own axes */
    kg_mat3_tvec(gr, d->base_rot, g);
    w->acc[3] = -gr[0], w->acc[4] = -gr[1], w->acc[5] = -gr[2];
    for (int b = 1; b < w->nbody; b++) {
        const int i = w->body[b];
        LOCAL_STEP(w->xmode[i], rnea_down, w, d->q, i, v, a)
    }
    for (int b = w->nbody - 1; b >= 1; b--) {
        const int i = w->body[b];
        LOCAL_STEP(w->xmode[i], rnea_up, w, i, tau)
    }
}

int kg_dyn_rnea_q_local(const kg_dyn *w) { return w->local_ok; }
