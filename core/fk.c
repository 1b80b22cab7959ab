#include "core/fk.h"

#include <math.h>

#include "core/spatial.h"

/* m = r0 + s * b1 + c1 * b2, i.e. r0 * Rot(axis, q) with s = sin q, c1 = 1 - cos q. */
static inline void rot_joint(double *restrict m, const kg_kin *k, double s, double c1) {
    for (int i = 0; i < 9; i++) m[i] = k->r0[i] + s * k->b1[i] + c1 * k->b2[i];
}

/* r = a Rot_k(q) for a rotation about coordinate axis k: columns i and j mix. */
static inline void axis_rotate(double *restrict r, const double *restrict a, int i, int j, double s, double c) {
    const int l = 3 - i - j;
    for (int row = 0; row < 3; row++) {
        const double ai = a[3 * row + i], aj = a[3 * row + j];
        r[3 * row + i] = c * ai + s * aj;
        r[3 * row + j] = c * aj - s * ai;
        r[3 * row + l] = a[3 * row + l];
    }
}

/* A revolute or continuous joint's rotation r and offset t from its parent's
 * rotation rp; s, c are the sine and cosine of its angle. */
static inline void revolute_link(const kg_kin *k, const double *rp, double s, double c, double *r, double t[3]) {
    double mr[9];
    if (k->aligned) {
        const double *a = rp;
        if (!k->rot_identity) {
            kg_mat3_mul(mr, rp, k->r0);
            a = mr;
        }
        axis_rotate(r, a, k->ci, k->cj, k->sign * s, c);
    } else {
        rot_joint(mr, k, s, 1.0 - c);
        kg_mat3_mul(r, rp, mr);
    }
    kg_mat3_vec(t, rp, k->p0);
}

/* A prismatic joint's r and t at displacement x. */
static inline void prismatic_link(const kg_kin *k, const double *rp, double x, double *r, double t[3]) {
    double o[3] = {k->p0[0] + x * k->a0[0], k->p0[1] + x * k->a0[1], k->p0[2] + x * k->a0[2]};
    if (k->rot_identity) kg_mat3_copy(r, rp);
    else kg_mat3_mul(r, rp, k->r0);
    kg_mat3_vec(t, rp, o);
}

/* A planar joint's r and t: x its two displacements, s, c its angle's sine and cosine. */
static inline void planar_link(const kg_kin *k, const double *rp, const double *x, double s, double c, double *r,
                               double t[3]) {
    double o[3], mr[9];
    for (int a = 0; a < 3; a++) o[a] = k->p0[a] + x[0] * k->u0[a] + x[1] * k->v0[a];
    rot_joint(mr, k, s, 1.0 - c);
    kg_mat3_mul(r, rp, mr);
    kg_mat3_vec(t, rp, o);
}

/* A floating joint's r and t: x its position then its quaternion. */
static inline void floating_link(const kg_kin *k, const double *rp, const double *x, double *r, double t[3]) {
    double o[3], rq[9], mr[9];
    kg_mat3_vec(o, k->r0, x);
    for (int a = 0; a < 3; a++) o[a] += k->p0[a];
    kg_rot_from_quat(rq, x + 3);
    kg_mat3_mul(mr, k->r0, rq);
    kg_mat3_mul(r, rp, mr);
    kg_mat3_vec(t, rp, o);
}

/* A compound joint's r and t: the axes in order, turning r in place (a
 * rotation about a coordinate axis mixes two columns, a translation moves
 * along one). */
static inline void compound_link(const kg_model *m, const kg_kin *k, const double *rp, const double *q,
                                 const double *sc, double *r, double t[3]) {
    if (k->rot_identity) kg_mat3_copy(r, rp);
    else kg_mat3_mul(r, rp, k->r0);
    kg_mat3_vec(t, rp, k->p0);
    for (int x = 0; x < k->naxis; x++) {
        const kg_kin_axis *ax = &m->kin_axis[k->axis_first + x];
        if (ax->kind == KG_AXIS_TRANSLATION) {
            double o[3];
            kg_mat3_vec(o, r, ax->dir);
            for (int c = 0; c < 3; c++) t[c] += q[ax->q] * o[c];
        } else if (ax->aligned) {
            const double s = ax->sign * sc[2 * ax->q], c = sc[2 * ax->q + 1];
            const int ci = ax->ci, cj = ax->cj;
            for (int row = 0; row < 3; row++) {
                const double ai = r[3 * row + ci], aj = r[3 * row + cj];
                r[3 * row + ci] = c * ai + s * aj;
                r[3 * row + cj] = c * aj - s * ai;
            }
        } else {
            const double s = sc[2 * ax->q], c1 = 1.0 - sc[2 * ax->q + 1];
            double rr[9], tmp[9];
            for (int e = 0; e < 9; e++) rr[e] = (e % 4 == 0) + s * ax->b1[e] + c1 * ax->b2[e];
            kg_mat3_mul(tmp, r, rr);
            kg_mat3_copy(r, tmp);
        }
    }
}

/* A fixed joint's r and t. */
static inline void fixed_link(const kg_kin *k, const double *rp, double *r, double t[3]) {
    if (k->rot_identity) kg_mat3_copy(r, rp);
    else kg_mat3_mul(r, rp, k->r0);
    kg_mat3_vec(t, rp, k->p0);
}

KG_AVX2_CLONE static void forward_kinematics(const kg_model *m, kg_data *d) {
    double *restrict pos = d->link_pos, *restrict rot = d->link_rot;
    const double *q = d->q;
    double *restrict sc = d->sincos;
    kg_apply_mimic(m, d->q);
    /* All joint angles' sines and cosines first: they are independent of each
     * other, so the processor overlaps them, which it cannot do inside the
     * parent-to-child chain below. */
    for (int a = 0; a < m->nangle; a++) {
        const int k = m->angle_q[a];
        kg_sincos(q[k], sc + 2 * k, sc + 2 * k + 1);
    }
    kg_vec3_copy(pos, d->base_pos);
    kg_mat3_copy(rot, d->base_rot);
    for (int i = 1; i < m->nlink; i++) {
        const kg_kin *k = &m->kin[i];
        const double *rp = rot + 9 * k->parent, *pp = pos + 3 * k->parent;
        double *r = rot + 9 * i, *p = pos + 3 * i;
        double t[3];
        switch (k->type) {
        case KG_JOINT_REVOLUTE:
        case KG_JOINT_CONTINUOUS: revolute_link(k, rp, sc[2 * k->qadr], sc[2 * k->qadr + 1], r, t); break;
        case KG_JOINT_PRISMATIC: prismatic_link(k, rp, q[k->qadr], r, t); break;
        case KG_JOINT_PLANAR: planar_link(k, rp, q + k->qadr, sc[2 * k->qadr + 4], sc[2 * k->qadr + 5], r, t); break;
        case KG_JOINT_FLOATING: floating_link(k, rp, q + k->qadr, r, t); break;
        case KG_JOINT_COMPOUND: compound_link(m, k, rp, q, sc, r, t); break;
        default: fixed_link(k, rp, r, t); break; /* fixed */
        }
        p[0] = pp[0] + t[0];
        p[1] = pp[1] + t[1];
        p[2] = pp[2] + t[2];
    }
}

/* The exported function around its static clone (KG_AVX2_CLONE). */
void kg_fk(const kg_model *m, kg_data *d) { forward_kinematics(m, d); }

void kg_loop_residual(const kg_model *m, const kg_data *d, int k, double dpos[3], double *dangle) {
    const kg_loop *lp = &m->loop[k];
    const double *pv = d->link_pos + 3 * lp->virtual_link, *pr = d->link_pos + 3 * lp->real_link;
    for (int a = 0; a < 3; a++) dpos[a] = pv[a] - pr[a];
    double rel[9];
    kg_mat3_mul_at(rel, d->link_rot + 9 * lp->real_link, d->link_rot + 9 * lp->virtual_link);
    *dangle = kg_rot_angle(rel);
}
