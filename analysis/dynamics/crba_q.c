/* The joint-space mass matrix from the joint vector alone (kg_dyn_crba_q):
 * the composite-rigid-body algorithm (Featherstone 6.2) in each body's own
 * frame (local_frames.c), the joint transforms built from q, no kg_fk or
 * world inertias. Leaves to root, body i's composite inertia is final when
 * its turn comes: its column's force F = Ic S (for a coordinate-axis joint a
 * column of Ic, picked) gives M_ii, then F is carried up body by body, turned
 * and shifted into each ancestor's frame, and projected on its column (a pick
 * again); the composite is handed to the parent the same way.
 *
 * The world-frame kg_dyn_crba carries F up with a shift alone but needs every
 * link's pose and world inertia first (kg_fk, kg_dyn_positions); here each
 * step up also turns F, two components of each half for a coordinate-axis
 * turn, and nothing else is needed. */
#include <string.h>

#include "analysis/dynamics/local.h"
#include "core/fk.h"

/* A rigid-body inertia (m, h, I about the origin) in the parent's axes. */
DYN_INLINE void rb_turn(double *restrict o, const double *restrict x, const turn *t) {
    o[RB_M] = x[RB_M];
    turn_out(o + RB_H, t, x + RB_H);
    const double *I = x + RB_I;
    double S[6], T[6];
    for (int a = 0; a < 3; a++)
        for (int b = a; b < 3; b++) S[SYM[a][b]] = I[3 * a + b];
    if (t->mode == XM_FIXED) memcpy(T, S, sizeof S);
    else if (t->mode == XM_GENERAL) sym_turn_matrix(T, S, t->R);
    else sym_turn_axis(T, S, t->mode, t->c, t->s);
    for (int a = 0; a < 3; a++)
        for (int b = 0; b < 3; b++) o[RB_I + 3 * a + b] = T[SYM[a][b]];
}

/* Body i's joint at q: its turn and origin kept in w->Rq, w->Pq (local_turn),
 * and its composite inertia started from its own. */
DYN_INLINE void crba_joint(kg_dyn *w, const double *q, int i, int mode) {
    double P[3];
    local_turn(w, q, i, mode, w->Rq + 9 * i, P);
    if (mode == XM_GENERAL) memcpy(w->Pq + 3 * i, P, sizeof P);
    memcpy(w->comp + RB_SIZE * i, w->rbq + RB_SIZE * i, RB_SIZE * sizeof *w->comp);
}

/* The column's force F at body j moved to its parent's frame, then projected
 * on the parent's column into M (both triangles; col is F's coordinate). */
DYN_INLINE void crba_up(const kg_dyn *w, int j, double *restrict F, double *restrict M, int n, int col, int mode) {
    const int p = w->bparent[j];
    const turn t = stored_turn(w, j, mode, w->Rq + 9 * j);
    double G[6] = {0, 0, 0, 0, 0, 0};
    force_out_add(G, &t, mode != XM_GENERAL ? w->xs + XS_SIZE * j + XS_P : w->Pq + 3 * j, F);
    memcpy(F, G, sizeof G);
    const double *ax = w->xs + XS_SIZE * p + XS_AX;
    const int pm = w->xmode[p], va = w->vadr[p];
    double x;
    if (pm >= XM_AXIS_X && pm < XM_FIXED) x = ax[pm] * F[pm];
    else if (w->kind[p] == DYN_REVOLUTE) x = ax[0] * F[0] + ax[1] * F[1] + ax[2] * F[2];
    else x = ax[0] * F[3] + ax[1] * F[4] + ax[2] * F[5];
    M[(size_t)col * n + va] = M[(size_t)va * n + col] = x;
}

/* Body i's column of M (its own entry and its ancestors'), then its composite
 * inertia handed to its parent. */
DYN_INLINE void crba_body(kg_dyn *w, int i, double *restrict M, int n, int mode) {
    const int p = w->bparent[i], va = w->vadr[i];
    const double *Ic = w->comp + RB_SIZE * i, *ax = w->xs + XS_SIZE * i + XS_AX, *h = Ic + RB_H, *I = Ic + RB_I;
    double F[6];
    if (mode != XM_GENERAL) { /* Ic (sg e_k; 0) = sg (I e_k; e_k x h) */
        const int k = mode, k1 = (k + 1) % 3, k2 = (k + 2) % 3;
        const double sg = ax[k];
        F[0] = sg * I[k], F[1] = sg * I[3 + k], F[2] = sg * I[6 + k];
        F[3 + k] = 0, F[3 + k2] = sg * h[k1], F[3 + k1] = -sg * h[k2];
        M[(size_t)va * n + va] = I[4 * k];
    } else {
        double S[6];
        sv_zero(S);
        const int o = w->kind[i] == DYN_REVOLUTE ? 0 : 3;
        S[o] = ax[0], S[o + 1] = ax[1], S[o + 2] = ax[2];
        rb_apply(F, Ic, S);
        M[(size_t)va * n + va] = S[0] * F[0] + S[1] * F[1] + S[2] * F[2] + S[3] * F[3] + S[4] * F[4] + S[5] * F[5];
    }
    for (int j = i; w->bparent[j] > 0; j = w->bparent[j]) LOCAL_STEP(w->xmode[j], crba_up, w, j, F, M, n, va)
    if (p <= 0) return;
    const turn t = stored_turn(w, i, mode, w->Rq + 9 * i);
    double T[RB_SIZE];
    rb_turn(T, Ic, &t);
    rb_add_shifted(w->comp + RB_SIZE * p, T, mode != XM_GENERAL ? w->xs + XS_SIZE * i + XS_P : w->Pq + 3 * i);
}

void kg_dyn_crba_q(const kg_model *m, kg_data *d, kg_dyn *w, double *M) {
    if (!w->local_ok) {
        kg_fk(m, d);
        kg_dyn_positions(m, d, w);
        kg_dyn_crba(m, w, M);
        return;
    }
    const int n = m->nv;
    kg_apply_mimic(m, d->q);
    for (int b = 1; b < w->nbody; b++) {
        const int i = w->body[b];
        LOCAL_STEP(w->xmode[i], crba_joint, w, d->q, i)
    }
    memset(M, 0, (size_t)n * n * sizeof *M);
    for (int b = w->nbody - 1; b >= 1; b--) {
        const int i = w->body[b];
        LOCAL_STEP(w->xmode[i], crba_body, w, i, M, n)
    }
}
