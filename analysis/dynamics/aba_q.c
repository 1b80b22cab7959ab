/* Forward dynamics from the joint vector alone (kg_dyn_aba_q): the
 * articulated-body algorithm (Featherstone 7.3) in each body's own frame,
 * with the joint transforms built from q as kg_dyn_rnea_q builds them, so
 * neither world poses (kg_fk) nor world inertias (kg_dyn_positions) are
 * needed: a body's rigid inertia is constant in its frame (w->rbq).
 *
 * What the frame buys: for a joint that turns about coordinate axis k of its
 * parent body's frame (local.h; G1: 23 of 29 joints) the column is
 * S = (sg e_k; 0), so U = IA S is column k of IA, D = S^T U its diagonal entry
 * and S^T pA one entry: picks, not products; and handing the articulated
 * inertia to the parent turns it about that axis (two components mixed per
 * index) before the parallel-axis shift the world-frame form does anyway.
 * The price is a turn of each motion and force across each joint, cheaper
 * than the FK and inertia rotations it replaces. Passes: 1 (root to leaves)
 * velocities, velocity-product accelerations c and bias forces; 2 (leaves to
 * root) articulated inertias and forces with each joint's freedom taken out;
 * 3 (root to leaves) accelerations. */
#include <string.h>

#include "analysis/dynamics/ai.h"
#include "analysis/dynamics/local.h"
#include "core/fk.h"

/* A full 3x3 (row-major) turned the same way: rows, then columns. */
DYN_INLINE void mat_turn_axis(double *restrict o, const double *restrict X, int k, double c, double s) {
    const int i = (k + 1) % 3, j = (k + 2) % 3;
    double T[9];
    for (int b = 0; b < 3; b++) {
        T[3 * k + b] = X[3 * k + b];
        T[3 * i + b] = c * X[3 * i + b] - s * X[3 * j + b];
        T[3 * j + b] = s * X[3 * i + b] + c * X[3 * j + b];
    }
    for (int a = 0; a < 3; a++) {
        o[3 * a + k] = T[3 * a + k];
        o[3 * a + i] = c * T[3 * a + i] - s * T[3 * a + j];
        o[3 * a + j] = s * T[3 * a + i] + c * T[3 * a + j];
    }
}

static void mat_turn_matrix(double *restrict o, const double *restrict X, const double *restrict R) {
    double T[9];
    kg_mat3_mul(T, R, X);
    kg_mat3_mul_bt(o, T, R);
}

/* An articulated inertia (child's axes, about its origin) in the parent's axes. */
DYN_INLINE void ai_turn(double *restrict o, const double *restrict X, const turn *t) {
    if (t->mode == XM_FIXED) {
        memcpy(o, X, AI_SIZE * sizeof *o);
    } else if (t->mode == XM_GENERAL) {
        sym_turn_matrix(o + AI_A, X + AI_A, t->R);
        mat_turn_matrix(o + AI_B, X + AI_B, t->R);
        sym_turn_matrix(o + AI_C, X + AI_C, t->R);
    } else {
        sym_turn_axis(o + AI_A, X + AI_A, t->mode, t->c, t->s);
        mat_turn_axis(o + AI_B, X + AI_B, t->mode, t->c, t->s);
        sym_turn_axis(o + AI_C, X + AI_C, t->mode, t->c, t->s);
    }
}

/* The joint's column in the body's frame: (a; 0) revolute, (0; a) prismatic. */
static inline void local_column(const kg_dyn *w, int i, double S[6]) {
    const double *ax = w->xs + XS_SIZE * i + XS_AX;
    const int o = w->kind[i] == DYN_REVOLUTE ? 0 : 3;
    sv_zero(S);
    S[o] = ax[0], S[o + 1] = ax[1], S[o + 2] = ax[2];
}

/* Pass 1 for body i: velocity, c = v x S qd, bias force v x* I v, and the
 * articulated inertia's start, its own rigid inertia. */
DYN_INLINE void aba_down(kg_dyn *w, const double *q, int i, const double *v, int mode) {
    const int p = w->bparent[i], va = w->vadr[i];
    const double *rb = w->rbq + RB_SIZE * i, qd = v ? v[va] : 0;
    double P[3], V[6], C[6], h[6], F[6] = {0, 0, 0, 0, 0, 0};
    const turn t = local_turn(w, q, i, mode, w->Rq + 9 * i, P);
    motion_in(V, &t, P, w->vel + 6 * p);
    if (mode != XM_GENERAL) { /* S qd = sq e_k: v x e_k = (v_j e_i - v_i e_j) per half */
        const int k = mode, i1 = (k + 1) % 3, i2 = (k + 2) % 3;
        const double sq = w->xs[XS_SIZE * i + XS_AX + k] * qd;
        V[k] += sq;
        C[k] = C[3 + k] = 0;
        C[i1] = V[i2] * sq, C[i2] = -V[i1] * sq;
        C[3 + i1] = V[3 + i2] * sq, C[3 + i2] = -V[3 + i1] * sq;
    } else {
        memcpy(w->Pq + 3 * i, P, sizeof P);
        double S[6], s[6];
        local_column(w, i, S);
        for (int e = 0; e < 6; e++) s[e] = S[e] * qd;
        sv_cross_motion(C, V, s);
        for (int e = 0; e < 6; e++) V[e] += s[e];
    }
    rb_apply(h, rb, V);
    sv_cross_force_add(F, V, h);
    ai_from_rb(w->IA + AI_SIZE * i, rb);
    memcpy(w->vel + 6 * i, V, sizeof V);
    memcpy(w->c + 6 * i, C, sizeof C);
    memcpy(w->pA + 6 * i, F, sizeof F);
}

/* IAp += X^T Ia X (ai_add_shifted) for Ia given as dense 3x3 blocks A, B,
 * C (A and C symmetric) in the parent's axes about the child's origin, r the
 * child's origin in the parent's frame. z: -1, or an angular index whose row
 * and column of A and row of B are zero, so their terms are skipped (z a
 * constant: the compiler drops them; adding a zero is not an operation it may
 * drop by itself). */
DYN_INLINE void ai_add_shifted_blocks(double *restrict Pp, const double *restrict A, const double *restrict B,
                                      const double *restrict C, const double *restrict rp, int z) {
    const double r[3] = {rp[0], rp[1], rp[2]};
    double RC[9], RBt[9];
    for (int b = 0; b < 3; b++) { /* column b of R C (C's column b is its row b) and of R B^T (B's row b) */
        const double *Cb = C + 3 * b, *Bb = B + 3 * b;
        RC[b] = r[1] * Cb[2] - r[2] * Cb[1], RC[3 + b] = r[2] * Cb[0] - r[0] * Cb[2], RC[6 + b] = r[0] * Cb[1] - r[1] * Cb[0];
        if (b == z) continue;
        RBt[b] = r[1] * Bb[2] - r[2] * Bb[1], RBt[3 + b] = r[2] * Bb[0] - r[0] * Bb[2], RBt[6 + b] = r[0] * Bb[1] - r[1] * Bb[0];
    }
    for (int a = 0; a < 3; a++) {
        const double *x = RC + 3 * a, rcr[3] = {x[1] * r[2] - x[2] * r[1], x[2] * r[0] - x[0] * r[2], x[0] * r[1] - x[1] * r[0]};
        for (int b = a; b < 3; b++) {
            double e = -rcr[b];
            if (a != z && b != z) e += A[3 * a + b];
            if (b != z) e += RBt[3 * a + b];
            if (a != z) e += RBt[3 * b + a];
            Pp[AI_A + SYM[a][b]] += e;
            Pp[AI_C + SYM[a][b]] += C[3 * a + b];
        }
        for (int b = 0; b < 3; b++) Pp[AI_B + 3 * a + b] += a != z ? B[3 * a + b] + RC[3 * a + b] : RC[3 * a + b];
    }
}

/* Pass 2 for body i: U = IA S, D = S^T U, u = tau - S^T pA; Ia = IA - U U^T / D
 * and pa = pA + Ia c + U u / D handed to the parent. Keeps U / D and u / D for
 * pass 3. Returns 1 when D is not positive (a massless subtree: the joint
 * then gets no acceleration, as kg_dyn_aba does). Any joint (mode XM_GENERAL
 * reads the body's own). */
static int aba_up_general(kg_dyn *w, int i, const double *tau, int mode) {
    const int p = w->bparent[i], va = w->vadr[i];
    const double *restrict IA = w->IA + AI_SIZE * i, *restrict pA = w->pA + 6 * i, *restrict c = w->c + 6 * i;
    double S[6], U[6], D = 0, u = tau ? tau[va] : 0;
    if (mode == XM_GENERAL) local_column(w, i, S);
    else sv_zero(S), S[mode] = w->xs[XS_SIZE * i + XS_AX + mode];
    ai_apply(U, IA, S);
    for (int e = 0; e < 6; e++) D += S[e] * U[e], u -= S[e] * pA[e];
    const int singular = !(D > 0);
    const double dinv = singular ? 0 : 1 / D, du = dinv * u;
    double Ud[6];
    for (int e = 0; e < 6; e++) Ud[e] = U[e] * dinv;
    memcpy(w->U + 6 * va, Ud, sizeof Ud);
    w->u[va] = du;
    if (p <= 0) return singular; /* the root is static: nothing to hand it */
    double Ia[AI_SIZE], pa[6], Ic[6];
    for (int a = 0; a < 3; a++) {
        for (int b = a; b < 3; b++) {
            Ia[AI_A + SYM[a][b]] = IA[AI_A + SYM[a][b]] - Ud[a] * U[b];
            Ia[AI_C + SYM[a][b]] = IA[AI_C + SYM[a][b]] - Ud[3 + a] * U[3 + b];
        }
        for (int b = 0; b < 3; b++) Ia[AI_B + 3 * a + b] = IA[AI_B + 3 * a + b] - Ud[a] * U[3 + b];
    }
    /* pa = pA + Ia c + U du, with Ia c = IA c - Ud (U . c) */
    ai_apply(Ic, IA, c);
    const double uc = U[0] * c[0] + U[1] * c[1] + U[2] * c[2] + U[3] * c[3] + U[4] * c[4] + U[5] * c[5];
    for (int e = 0; e < 6; e++) pa[e] = pA[e] + Ic[e] - Ud[e] * uc + U[e] * du;
    const turn t = stored_turn(w, i, mode, w->Rq + 9 * i);
    const double *P = mode != XM_GENERAL ? w->xs + XS_SIZE * i + XS_P : w->Pq + 3 * i;
    double It[AI_SIZE];
    ai_turn(It, Ia, &t);
    ai_add_shifted(w->IA + AI_SIZE * p, It, P);
    force_out_add(w->pA + 6 * p, &t, P, pa);
    return singular;
}

/* Pass 2 for a joint turning about coordinate axis k (S = (sg e_k; 0)): the
 * same, written out. U is sg times IA's column k, so Ia = IA - U U^T / D has
 * A's row and column k and B's row k exactly zero (they are left out, not
 * computed as differences that round to nearly zero), and the turn to the
 * parent's axes keeps them so: the turn and the shift skip them. */
DYN_INLINE int aba_up_axis(kg_dyn *w, int i, const double *tau, const int k) {
    const int p = w->bparent[i], va = w->vadr[i], i1 = (k + 1) % 3, i2 = (k + 2) % 3;
    const double *restrict IA = w->IA + AI_SIZE * i, *restrict pA = w->pA + 6 * i, *restrict c = w->c + 6 * i;
    const double *A = IA + AI_A, *B = IA + AI_B, *C = IA + AI_C, sg = w->xs[XS_SIZE * i + XS_AX + k];
    const double D = A[SYM[k][k]];
    if (!(D > 0)) return aba_up_general(w, i, tau, k);
    const double dinv = 1 / D, a1 = A[SYM[i1][k]], a2 = A[SYM[i2][k]], b[3] = {B[3 * k], B[3 * k + 1], B[3 * k + 2]};
    const double du = dinv * ((tau ? tau[va] : 0) - sg * pA[k]);
    const double al1 = a1 * dinv, al2 = a2 * dinv, be[3] = {b[0] * dinv, b[1] * dinv, b[2] * dinv};
    double *Ud = w->U + 6 * va;
    Ud[i1] = sg * al1, Ud[i2] = sg * al2, Ud[k] = sg, Ud[3] = sg * be[0], Ud[4] = sg * be[1], Ud[5] = sg * be[2];
    w->u[va] = du;
    if (p <= 0) return 0;
    /* Ia in the body's axes: A's (i1, i2) block, B's rows i1 and i2, C */
    const double A11 = A[SYM[i1][i1]] - al1 * a1, A12 = A[SYM[i1][i2]] - al1 * a2, A22 = A[SYM[i2][i2]] - al2 * a2;
    double B1[3], B2[3], Cd[9];
    for (int m = 0; m < 3; m++) {
        B1[m] = B[3 * i1 + m] - al1 * b[m], B2[m] = B[3 * i2 + m] - al2 * b[m];
        for (int n = m; n < 3; n++) Cd[3 * m + n] = Cd[3 * n + m] = C[SYM[m][n]] - be[m] * b[n];
    }
    /* pa = pA + Ia c + U du; c's components k are zero (v x S qd) */
    const double c1 = c[i1], c2 = c[i2], d1 = c[3 + i1], d2 = c[3 + i2], sdu = sg * du;
    double pa[6];
    pa[i1] = pA[i1] + A11 * c1 + A12 * c2 + B1[i1] * d1 + B1[i2] * d2 + a1 * sdu;
    pa[i2] = pA[i2] + A12 * c1 + A22 * c2 + B2[i1] * d1 + B2[i2] * d2 + a2 * sdu;
    pa[k] = pA[k] + D * sdu;
    for (int m = 0; m < 3; m++) pa[3 + m] = pA[3 + m] + B1[m] * c1 + B2[m] * c2 + Cd[3 * m + i1] * d1 + Cd[3 * m + i2] * d2 + b[m] * sdu;
    /* turned into the parent's axes (components i1, i2 mixed by (ct, st)) */
    const double *Rq = w->Rq + 9 * i, ct = Rq[0], st = Rq[1], cc = ct * ct, ss = st * st, cs = ct * st;
    double At[9] = {0}, Bt[9] = {0}, Ct[9], T1[3], T2[3];
    At[3 * i1 + i1] = cc * A11 - 2 * cs * A12 + ss * A22;
    At[3 * i2 + i2] = ss * A11 + 2 * cs * A12 + cc * A22;
    At[3 * i1 + i2] = At[3 * i2 + i1] = cs * (A11 - A22) + (cc - ss) * A12;
    for (int m = 0; m < 3; m++) T1[m] = ct * B1[m] - st * B2[m], T2[m] = st * B1[m] + ct * B2[m];
    Bt[3 * i1 + k] = T1[k], Bt[3 * i1 + i1] = ct * T1[i1] - st * T1[i2], Bt[3 * i1 + i2] = st * T1[i1] + ct * T1[i2];
    Bt[3 * i2 + k] = T2[k], Bt[3 * i2 + i1] = ct * T2[i1] - st * T2[i2], Bt[3 * i2 + i2] = st * T2[i1] + ct * T2[i2];
    double Cs[6], Cst[6];
    for (int m = 0; m < 3; m++)
        for (int n = m; n < 3; n++) Cs[SYM[m][n]] = Cd[3 * m + n];
    sym_turn_axis(Cst, Cs, k, ct, st);
    for (int m = 0; m < 3; m++)
        for (int n = 0; n < 3; n++) Ct[3 * m + n] = Cst[SYM[m][n]];
    const double *P = w->xs + XS_SIZE * i + XS_P;
    ai_add_shifted_blocks(w->IA + AI_SIZE * p, At, Bt, Ct, P, k);
    const turn t = make_turn(k, ct, st, Rq);
    force_out_add(w->pA + 6 * p, &t, P, pa);
    return 0;
}

DYN_INLINE int aba_up(kg_dyn *w, int i, const double *tau, int mode) {
    return mode == XM_GENERAL ? aba_up_general(w, i, tau, mode) : aba_up_axis(w, i, tau, mode);
}

/* Pass 3 for body i: a = X a_parent + c, qdd = u / D - (U / D) . a, a += S qdd. */
DYN_INLINE void aba_acc(kg_dyn *w, int i, double *out, int mode) {
    const int p = w->bparent[i], va = w->vadr[i];
    const double *c = w->c + 6 * i, *Ud = w->U + 6 * va;
    const turn t = stored_turn(w, i, mode, w->Rq + 9 * i);
    const double *P = mode != XM_GENERAL ? w->xs + XS_SIZE * i + XS_P : w->Pq + 3 * i;
    double A[6];
    motion_in(A, &t, P, w->acc + 6 * p);
    if (mode != XM_GENERAL) { /* c's components k are zero (v x S qd) */
        const int i1 = (mode + 1) % 3, i2 = (mode + 2) % 3;
        A[i1] += c[i1], A[i2] += c[i2], A[3 + i1] += c[3 + i1], A[3 + i2] += c[3 + i2];
    } else {
        for (int e = 0; e < 6; e++) A[e] += c[e];
    }
    const double x =
        w->u[va] - (Ud[0] * A[0] + Ud[1] * A[1] + Ud[2] * A[2] + Ud[3] * A[3] + Ud[4] * A[4] + Ud[5] * A[5]);
    out[va] = x;
    if (mode != XM_GENERAL) {
        A[mode] += w->xs[XS_SIZE * i + XS_AX + mode] * x;
    } else {
        double S[6];
        local_column(w, i, S);
        for (int e = 0; e < 6; e++) A[e] += S[e] * x;
    }
    memcpy(w->acc + 6 * i, A, sizeof A);
}

int kg_dyn_aba_q(const kg_model *m, kg_data *d, kg_dyn *w, const kg_dyn_options *opt, const double *v,
                 const double *tau, double *a) {
    if (!w->local_ok) {
        kg_fk(m, d);
        kg_dyn_positions(m, d, w);
        return kg_dyn_aba(m, w, opt, v, tau, NULL, a);
    }
    const double *g = dyn_options(opt)->gravity;
    kg_apply_mimic(m, d->q);
    sv_zero(w->vel);
    for (int b = 1; b < w->nbody; b++) {
        const int i = w->body[b];
        LOCAL_STEP(w->xmode[i], aba_down, w, d->q, i, v)
    }
    int singular = 0;
    for (int b = w->nbody - 1; b >= 1; b--) {
        const int i = w->body[b];
        LOCAL_STEP(w->xmode[i], singular += aba_up, w, i, tau)
    }
    double gr[3]; /* the root rises at -g, in its own axes */
    kg_mat3_tvec(gr, d->base_rot, g);
    sv_zero(w->acc);
    w->acc[3] = -gr[0], w->acc[4] = -gr[1], w->acc[5] = -gr[2];
    for (int b = 1; b < w->nbody; b++) {
        const int i = w->body[b];
        LOCAL_STEP(w->xmode[i], aba_acc, w, i, a)
    }
    return singular;
}
