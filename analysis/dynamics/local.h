/* The link-local recursions' joint transforms (kg_dyn_rnea_q, kg_dyn_aba_q,
 * kg_dyn_crba_q; internal): each body's joint at q as a turn (a rotation,
 * cheap about a coordinate axis) and an offset in its parent body's frame,
 * and spatial vectors moved across it. Frames: a body's own; conventions as
 * internal.h's.
 *
 * Most joints turn about a coordinate axis of their parent body's frame with
 * no constant rotation (XM_AXIS_X + k; G1: 23 of 29). The recursions switch
 * on the mode once per body and call an inlined step with the mode a
 * constant, so that for those the turn's components are fixed at compile time
 * and the joint's column is a coordinate vector: picking entries instead of
 * products (LOCAL_STEP). The other joints take the same step with the mode
 * read at run time (XM_GENERAL: a 3x3 matrix; XM_FIXED: no rotation). */
#ifndef KG_DYN_LOCAL_H
#define KG_DYN_LOCAL_H

#include <string.h>

#include "analysis/dynamics/internal.h"

/* Inlined into each specialised copy of a step (GCC and Clang). */
#define DYN_INLINE static inline __attribute__((always_inline))

/* Calls STEP(args..., mode) with the body's turn mode a constant for the
 * coordinate-axis turns, or XM_GENERAL for the others (which then read their
 * own mode, general or fixed, at run time). */
#define LOCAL_STEP(mode, STEP, ...)                                                                                    \
    switch (mode) {                                                                                                    \
    case XM_AXIS_X: STEP(__VA_ARGS__, XM_AXIS_X); break;                                                               \
    case XM_AXIS_X + 1: STEP(__VA_ARGS__, XM_AXIS_X + 1); break;                                                       \
    case XM_AXIS_X + 2: STEP(__VA_ARGS__, XM_AXIS_X + 2); break;                                                       \
    default: STEP(__VA_ARGS__, XM_GENERAL); break;                                                                     \
    }

/* A joint's rotation at q: the matrix R (XM_GENERAL), or a turn by (c, s)
 * about coordinate axis k (the other two components mixed), or none. */
typedef struct turn {
    int mode, i, j; /* i, j: the components a turn about axis `mode` mixes */
    double c, s;
    const double *R;
} turn;

DYN_INLINE turn make_turn(int mode, double c, double s, const double *R) {
    return (turn){mode, (mode + 1) % 3, (mode + 2) % 3, c, s, R};
}

/* o = R^T x (into the child's axes) */
DYN_INLINE void turn_in(double *restrict o, const turn *t, const double *restrict x) {
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
DYN_INLINE void turn_out(double *restrict o, const turn *t, const double *restrict x) {
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
DYN_INLINE void motion_in(double *restrict o, const turn *t, const double *restrict p, const double *restrict x) {
    double u[3];
    u[0] = x[3] + x[1] * p[2] - x[2] * p[1];
    u[1] = x[4] + x[2] * p[0] - x[0] * p[2];
    u[2] = x[5] + x[0] * p[1] - x[1] * p[0];
    turn_in(o, t, x);
    turn_in(o + 3, t, u);
}

/* o += the child's force f moved into the parent's frame: (R n + p x R f; R f). */
DYN_INLINE void force_out_add(double *restrict o, const turn *t, const double *restrict p, const double *restrict f) {
    double n[3], g[3];
    turn_out(n, t, f);
    turn_out(g, t, f + 3);
    o[0] += n[0] + p[1] * g[2] - p[2] * g[1];
    o[1] += n[1] + p[2] * g[0] - p[0] * g[2];
    o[2] += n[2] + p[0] * g[1] - p[1] * g[0];
    o[3] += g[0], o[4] += g[1], o[5] += g[2];
}

/* Body i's joint at q (mimic applied), for the turn mode `mode` (a constant
 * XM_AXIS_X + k, or XM_GENERAL: the body's own mode, read here): its turn and
 * its origin P in the parent body's frame. R (9 doubles) holds the turn's
 * matrix, or (c, s) in R[0], R[1]; w->Rq and w->Pq keep them for the passes
 * after the first (stored_turn). */
DYN_INLINE turn local_turn(const kg_dyn *w, const double *q, int i, int mode, double *restrict R, double *restrict P) {
    const double *x = w->xs + XS_SIZE * i, qi = q[w->qadr[i]];
    if (mode == XM_GENERAL) mode = w->xmode[i];
    turn t = make_turn(mode, 1, 0, R);
    P[0] = x[XS_P], P[1] = x[XS_P + 1], P[2] = x[XS_P + 2];
    if (mode >= XM_AXIS_X && mode < XM_FIXED) { /* by sign q + offset: the axis's sign turns the angle */
        double s, c;
        kg_sincos(qi, &s, &c);
        s *= x[XS_AX + mode];
        const double oc = x[XS_OFF], os = x[XS_OFF + 1];
        if (os != 0) {
            const double c1 = c * oc - s * os;
            s = s * oc + c * os, c = c1;
        }
        t.c = c, t.s = s, R[0] = c, R[1] = s;
    } else if (w->kind[i] == DYN_REVOLUTE) {
        double s, c;
        kg_sincos(qi, &s, &c);
        for (int e = 0; e < 9; e++) R[e] = x[XS_R + e] + s * x[XS_B1 + e] + (1 - c) * x[XS_B2 + e];
    } else {
        memcpy(R, x + XS_R, 9 * sizeof *R);
        for (int e = 0; e < 3; e++) P[e] += qi * x[XS_A + e];
    }
    return t;
}

/* The turn local_turn left in R, for the same mode. */
DYN_INLINE turn stored_turn(const kg_dyn *w, int i, int mode, const double *R) {
    return make_turn(mode == XM_GENERAL ? w->xmode[i] : mode, R[0], R[1], R);
}

#ifndef KG_DYN_SYM
#define KG_DYN_SYM
/* a symmetric 3x3's upper-triangle slot of (row, column) */
static const int SYM[3][3] = {{0, 1, 2}, {1, 3, 4}, {2, 4, 5}};
#endif

/* A symmetric 3x3 (upper triangle X: slots SYM[row][column], 0 1 2 / 3 4 / 5) turned into the parent's
 * axes about coordinate axis k by (c, s): R X R^T, R mixing components
 * i = k + 1 and j = k + 2 (mod 3) as turn_out does. */
DYN_INLINE void sym_turn_axis(double *restrict o, const double *restrict X, int k, double c, double s) {
    const int i = (k + 1) % 3, j = (k + 2) % 3;
    const double xii = X[SYM[i][i]], xjj = X[SYM[j][j]], xij = X[SYM[i][j]], xik = X[SYM[i][k]], xjk = X[SYM[j][k]];
    const double cc = c * c, ss = s * s, cs = c * s, cs2 = 2 * cs * xij;
    o[SYM[k][k]] = X[SYM[k][k]];
    o[SYM[i][k]] = c * xik - s * xjk;
    o[SYM[j][k]] = s * xik + c * xjk;
    o[SYM[i][i]] = cc * xii - cs2 + ss * xjj;
    o[SYM[j][j]] = ss * xii + cs2 + cc * xjj;
    o[SYM[i][j]] = cs * (xii - xjj) + (cc - ss) * xij;
}

/* A symmetric 3x3 turned by a general rotation R: R X R^T. */
static inline void sym_turn_matrix(double *restrict o, const double *restrict X, const double *restrict R) {
    double T[9];
    for (int a = 0; a < 3; a++)
        for (int b = 0; b < 3; b++)
            T[3 * a + b] = R[3 * a] * X[SYM[0][b]] + R[3 * a + 1] * X[SYM[1][b]] + R[3 * a + 2] * X[SYM[2][b]];
    for (int a = 0; a < 3; a++)
        for (int b = a; b < 3; b++) o[SYM[a][b]] = T[3 * a] * R[3 * b] + T[3 * a + 1] * R[3 * b + 1] + T[3 * a + 2] * R[3 * b + 2];
}

#endif
