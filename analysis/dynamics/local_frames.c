/* The frames of the link-local recursions (kg_dyn_rnea_q, kg_dyn_aba_q,
 * kg_dyn_crba_q), chosen once by kg_dyn_new.
 *
 * Any body-fixed frame serves those recursions; the cheapest joint is one
 * that turns its body about a coordinate axis of its parent body's frame,
 * with no other constant rotation (local.h: a turn then mixes two components
 * of a vector, and the joint's column is a coordinate vector). A URDF joint
 * whose origin has an rpy is not such a joint in the links' own frames (G1:
 * the hip rolls, knees and shoulders, 6 of 29). So body i's frame is its
 * link's turned by a constant Q_i, chosen root to leaves:
 *  - when the joint's axis, in the parent body's frame, is a coordinate axis
 *    e_k (the parent's frame may have been chosen for that), Q_i = Rs^T Q_p Z
 *    (Rs: the joint frame's rotation in the parent link's frame), Z a turn
 *    about e_k by theta: the joint turns about e_k by sign q + theta (a
 *    constant offset of the angle), so it is a coordinate-axis turn.
 *    theta is free, and set so that the first revolute child whose axis is
 *    perpendicular to e_k lies on a coordinate axis of this frame (a child
 *    already on one keeps theta 0);
 *  - a prismatic joint's Q_i = Rs^T Q_p: no rotation at all;
 *  - any other joint keeps its link's frame (Q_i = E) and a general rotation.
 * An axis counts as a coordinate axis when its other components are below
 * LOCAL_AXIS_TOL (rounding of the products that carried it here) and is then
 * taken as exact. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/dynamics/internal.h"

/* Rounding left by a few 3x3 products of rotations: far below any model's
 * precision and any test's tolerance, far above what it must absorb (1e-17
 * on G1). */
#define LOCAL_AXIS_TOL 1e-14

static const double E3[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1};

/* k when a (unit) is +-e_k within the tolerance, else -1. */
static int coordinate_axis(const double a[3]) {
    for (int k = 0; k < 3; k++)
        if (fabs(a[(k + 1) % 3]) <= LOCAL_AXIS_TOL && fabs(a[(k + 2) % 3]) <= LOCAL_AXIS_TOL &&
            fabs(fabs(a[k]) - 1) <= LOCAL_AXIS_TOL)
            return k;
    return -1;
}

/* The rotation about e_k by (c, s), as turn_out applies it. */
static void axis_rotation(double R[9], int k, double c, double s) {
    const int i = (k + 1) % 3, j = (k + 2) % 3;
    memset(R, 0, 9 * sizeof *R);
    R[4 * k] = 1;
    R[3 * i + i] = c, R[3 * i + j] = -s;
    R[3 * j + i] = s, R[3 * j + j] = c;
}

/* o = A^T B C */
static void mat3_conjugate(double *o, const double *A, const double *B, const double *C) {
    double T[9];
    kg_mat3_mul_at(T, A, B);
    kg_mat3_mul(o, T, C);
}

/* theta for body i (axis e_k in its frame, Q0 its frame at theta = 0): the
 * first revolute child with an axis on a coordinate axis of Q0 or
 * perpendicular to e_k decides. Rs, a: each body's joint frame rotation in its
 * parent link's frame, and axis. */
static double choose_theta(const kg_model *m, const kg_dyn *w, int i, int k, const double *Q0, const double *Rs) {
    for (int b = 0; b < w->nbody; b++) {
        const int c = w->body[b];
        if (w->bparent[c] != i || w->kind[c] != DYN_REVOLUTE) continue;
        double n[3], mc[3];
        kg_mat3_vec(n, Rs + 9 * c, m->joint[m->link[c].joint].axis);
        kg_mat3_tvec(mc, Q0, n);
        if (coordinate_axis(mc) >= 0) return 0;
        if (fabs(mc[k]) > LOCAL_AXIS_TOL) continue; /* oblique: no theta helps it */
        const double phi = atan2(mc[(k + 2) % 3], mc[(k + 1) % 3]), quarter = 0.5 * KG_PI;
        return phi - quarter * nearbyint(phi / quarter);
    }
    return 0;
}

void dyn_local_frames(const kg_model *m, kg_dyn *w, const double *rot, const double *pos, double *work) {
    const size_t L = (size_t)m->nlink;
    double *Q = work, *Rs = Q + 9 * L + 1;
    memcpy(Q, E3, sizeof E3); /* the root keeps its link's frame */
    for (int b = 1; b < w->nbody; b++) {
        const int i = w->body[b], pl = m->link[i].parent;
        kg_mat3_mul(Rs + 9 * i, rot + 9 * pl, m->kin[i].r0);
    }
    memcpy(w->rbq, w->rbl, RB_SIZE * sizeof *w->rbq);
    w->local_ok = 1;
    for (int b = 1; b < w->nbody; b++) {
        const int i = w->body[b], p = w->bparent[i], pl = m->link[i].parent;
        const kg_kin *K = &m->kin[i];
        const kg_joint *J = &m->joint[m->link[i].joint];
        const double *Qp = Q + 9 * p, *R = Rs + 9 * i;
        double *x = w->xs + XS_SIZE * i, *Qi = Q + 9 * i, t[3], n[3], Pl[3], B[9];
        w->local_ok &= w->kind[i] != DYN_GENERAL;
        w->qadr[i] = J->qadr;
        /* the joint's origin and axis in the parent body's frame */
        kg_mat3_vec(t, rot + 9 * pl, K->p0);
        for (int e = 0; e < 3; e++) Pl[e] = pos[3 * pl + e] + t[e];
        kg_mat3_tvec(x + XS_P, Qp, Pl);
        kg_mat3_vec(t, R, J->axis);
        kg_mat3_tvec(n, Qp, t);
        const int k = coordinate_axis(n);
        x[XS_OFF] = 1, x[XS_OFF + 1] = 0;
        if (w->kind[i] == DYN_REVOLUTE && k >= 0) {
            double Q0[9];
            kg_mat3_mul_at(Q0, R, Qp);
            const double th = choose_theta(m, w, i, k, Q0, Rs), c = cos(th), s = th == 0 ? 0 : sin(th);
            double Z[9];
            axis_rotation(Z, k, c, s);
            kg_mat3_mul(Qi, Q0, Z);
            memcpy(x + XS_R, Z, sizeof Z);
            memset(x + XS_AX, 0, 3 * sizeof *x);
            x[XS_AX + k] = n[k] > 0 ? 1 : -1;
            x[XS_OFF] = c, x[XS_OFF + 1] = s;
            w->xmode[i] = XM_AXIS_X + k;
        } else if (w->kind[i] == DYN_PRISMATIC) {
            kg_mat3_mul_at(Qi, R, Qp);
            memcpy(x + XS_R, E3, sizeof E3);
            kg_mat3_tvec(x + XS_AX, Qi, J->axis);
            w->xmode[i] = XM_FIXED;
        } else {
            memcpy(Qi, E3, sizeof E3);
            mat3_conjugate(x + XS_R, Qp, R, Qi);
            kg_vec3_copy(x + XS_AX, J->axis);
            w->xmode[i] = XM_GENERAL;
        }
        kg_mat3_vec(x + XS_A, x + XS_R, x + XS_AX);
        /* Rs' Rot(a', q) = Qp^T Rs Rot(a, q) Qi: the same expansion's terms turned */
        kg_mat3_mul(B, rot + 9 * pl, K->b1);
        mat3_conjugate(x + XS_B1, Qp, B, Qi);
        kg_mat3_mul(B, rot + 9 * pl, K->b2);
        mat3_conjugate(x + XS_B2, Qp, B, Qi);
        /* the body's inertia in its frame: Qi^T I Qi, Qi^T h */
        const double *rl = w->rbl + RB_SIZE * i;
        double *rq = w->rbq + RB_SIZE * i, T[9];
        rq[RB_M] = rl[RB_M];
        kg_mat3_tvec(rq + RB_H, Qi, rl + RB_H);
        kg_mat3_mul_at(T, Qi, rl + RB_I);
        kg_mat3_mul(rq + RB_I, T, Qi);
        for (int a = 0; a < 3; a++) /* exactly symmetric */
            for (int c2 = a + 1; c2 < 3; c2++) rq[RB_I + 3 * c2 + a] = rq[RB_I + 3 * a + c2];
    }
}
