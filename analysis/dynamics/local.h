/* The link-local recursions' joint transforms (kg_dyn_rnea_q, kg_dyn_crba_q;
 * internal): each body's joint at q as a turn (a rotation, cheap about a
 * coordinate axis) and an offset in its parent body's frame, and spatial
 * vectors moved across it. Frames: a body's own; conventions as internal.h's. */
#ifndef KG_DYN_LOCAL_H
#define KG_DYN_LOCAL_H

#include <string.h>

#include "analysis/dynamics/internal.h"

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

/* Body i's joint at q (d->q, mimic applied): its turn t and its origin P in
 * the parent body's frame; R (9 doubles) holds the turn's matrix or (c, s). */
static inline turn local_joint(const kg_dyn *w, const kg_data *d, int i, double *R, double P[3]) {
    const double *x = w->xs + XS_SIZE * i, q = d->q[w->qadr[i]];
    turn t = make_turn(w->xmode[i], 1, 0, R);
    memcpy(P, x + XS_P, 3 * sizeof *P);
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
    return t;
}

/* The turn local_joint left in R. */
static inline turn stored_turn(const kg_dyn *w, int i, const double *R) { return make_turn(w->xmode[i], R[0], R[1], R); }

#endif
