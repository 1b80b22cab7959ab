#include "core/data.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/spatial.h"

kg_data *kg_data_new(const kg_model *m) {
    /* One block: the struct, then the arrays, each 64-byte aligned. */
    size_t head = (sizeof(kg_data) + 63) & ~(size_t)63;
    size_t nq = ((size_t)(m->nq ? m->nq : 1) * sizeof(double) + 63) & ~(size_t)63;
    size_t np = ((size_t)m->nlink * 3 * sizeof(double) + 63) & ~(size_t)63;
    size_t nr = ((size_t)m->nlink * 9 * sizeof(double) + 63) & ~(size_t)63;
    size_t ns = (((size_t)m->nq + 1) * 2 * sizeof(double) + 63) & ~(size_t)63;
    size_t nt = ((size_t)m->nv + 1) * 6 * sizeof(double);
    size_t total = (head + nq + np + nr + ns + nt + 63) & ~(size_t)63;
    char *mem = aligned_alloc(64, total);
    if (!mem) return NULL; /* out of memory: the caller says so */
    memset(mem, 0, total);
    kg_data *d = (kg_data *)mem;
    d->model = m;
    d->q = (double *)(mem + head);
    d->link_pos = (double *)(mem + head + nq);
    d->link_rot = (double *)(mem + head + nq + np);
    d->sincos = (double *)(mem + head + nq + np + nr);
    d->twist = (double *)(mem + head + nq + np + nr + ns);
    if (m->nq) memcpy(d->q, m->q_default, (size_t)m->nq * sizeof(double));
    kg_mat3_identity(d->base_rot);
    for (int i = 0; i < m->nlink; i++) kg_mat3_identity(d->link_rot + 9 * i);
    return d;
}

void kg_data_free(kg_data *d) { free(d); }

void kg_data_set_base(kg_data *d, const double pos[3], const double quat[4]) {
    kg_vec3_copy(d->base_pos, pos);
    kg_rot_from_quat(d->base_rot, quat);
}

void kg_apply_mimic(const kg_model *m, double *q) {
    for (int k = 0; k < m->nmimic; k++) {
        const kg_mimic *mm = &m->mimic[k];
        q[m->joint[mm->follower].qadr] = mm->multiplier * q[m->joint[mm->leader].qadr] + mm->offset;
    }
}

/* o = exp(w) * q for a rotation vector w and a unit quaternion q (w, x, y, z). */
static void quat_turn(double *o, const double w[3], const double *q) {
    double a = kg_vec3_norm(w), s, c;
    kg_sincos(a / 2, &s, &c);
    double k = a > 1e-12 ? s / a : 0.5 - a * a / 48; /* sin(a/2)/a */
    double e[4] = {c, k * w[0], k * w[1], k * w[2]};
    double r[4] = {e[0] * q[0] - e[1] * q[1] - e[2] * q[2] - e[3] * q[3],
                   e[0] * q[1] + e[1] * q[0] + e[2] * q[3] - e[3] * q[2],
                   e[0] * q[2] - e[1] * q[3] + e[2] * q[0] + e[3] * q[1],
                   e[0] * q[3] + e[1] * q[2] - e[2] * q[1] + e[3] * q[0]};
    double n = sqrt(r[0] * r[0] + r[1] * r[1] + r[2] * r[2] + r[3] * r[3]);
    for (int i = 0; i < 4; i++) o[i] = n > 0 ? r[i] / n : (i == 0);
}

void kg_q_integrate(const kg_model *m, double *q, const double *v, double dt) {
    for (int j = 0; j < m->njoint; j++) {
        const kg_joint *J = &m->joint[j];
        if (J->dofadr < 0) continue; /* fixed, or a mimic follower */
        const double *vj = v + J->dofadr;
        double *qj = q + J->qadr;
        if (J->type == KG_JOINT_FLOATING) {
            /* the rotation columns turn the child about its joint frame's axes:
             * R(q) <- exp(w) R(q) in that frame */
            double w[3] = {vj[3] * dt, vj[4] * dt, vj[5] * dt};
            for (int a = 0; a < 3; a++) qj[a] += vj[a] * dt;
            quat_turn(qj + 3, w, qj + 3);
        } else {
            for (int c = 0; c < J->nv; c++) qj[c] += vj[c] * dt;
        }
    }
    kg_apply_mimic(m, q);
}

void kg_dof_coords(const kg_model *m, int *qidx, double *lower, double *upper) {
    for (int j = 0; j < m->njoint; j++) {
        const kg_joint *J = &m->joint[j];
        if (J->dofadr < 0) continue;
        for (int c = 0; c < J->nv; c++) {
            int col = J->dofadr + c, qi = J->qadr + c;
            double lo = -INFINITY, hi = INFINITY;
            if (J->type == KG_JOINT_FLOATING && c >= 3) qi = -1;
            if (kg_joint_is_limited(J)) lo = J->lower, hi = J->upper;
            if (J->type == KG_JOINT_COMPOUND)
                for (int x = 0; x < J->naxis; x++) {
                    const kg_axis *ax = &m->axis[J->axis_first + x];
                    if (ax->coord == c && ax->has_limit) lo = ax->lower, hi = ax->upper;
                }
            if (qidx) qidx[col] = qi;
            if (lower) lower[col] = lo;
            if (upper) upper[col] = hi;
        }
    }
}
