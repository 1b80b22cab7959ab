#include "analysis/jacobian.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/closure_basis.h"
#include "core/spatial.h"

/* A unit motion as a world twist: rotation about a through o, or translation along a. */
static inline void twist_rot(double *tw, const double a[3], const double o[3]) {
    kg_vec3_cross(tw, o, a); /* velocity of the point at the origin: a x (0 - o) */
    kg_vec3_copy(tw + 3, a);
}

static inline void twist_lin(double *tw, const double a[3]) {
    kg_vec3_copy(tw, a);
    tw[3] = tw[4] = tw[5] = 0;
}

void kg_jacobian_twists(const kg_model *m, kg_data *d) {
    const double *pos = d->link_pos, *rot = d->link_rot;
    for (int j = 0; j < m->njoint; j++) {
        const kg_joint *J = &m->joint[j];
        if (J->nv == 0) continue;
        const int i = J->child;
        const kg_kin *k = &m->kin[i];
        const double *Rp = rot + 9 * k->parent, *Ri = rot + 9 * i, *pi = pos + 3 * i;
        double *tw = d->twist + 6 * J->vadr, a[3];
        switch (J->type) {
        case KG_JOINT_REVOLUTE:
        case KG_JOINT_CONTINUOUS:
            kg_mat3_vec(a, Ri, J->axis);
            twist_rot(tw, a, pi);
            break;
        case KG_JOINT_PRISMATIC:
            kg_mat3_vec(a, Ri, J->axis);
            twist_lin(tw, a);
            break;
        case KG_JOINT_PLANAR:
            kg_mat3_vec(a, Rp, k->u0);
            twist_lin(tw, a);
            kg_mat3_vec(a, Rp, k->v0);
            twist_lin(tw + 6, a);
            kg_mat3_vec(a, Ri, J->axis);
            twist_rot(tw + 12, a, pi);
            break;
        case KG_JOINT_FLOATING: {
            double F[9];
            kg_mat3_mul(F, Rp, k->r0);
            for (int c = 0; c < 3; c++) {
                double e[3] = {F[c], F[3 + c], F[6 + c]};
                twist_lin(tw + 6 * c, e);
                twist_rot(tw + 18 + 6 * c, e, pi);
            }
            break;
        }
        case KG_JOINT_COMPOUND: { /* replay the axes: each acts in the frame the ones before left */
            const double *pp = pos + 3 * k->parent, *q = d->q + J->qadr;
            double R[9], o[3], t[3];
            kg_mat3_mul(R, Rp, k->r0);
            kg_mat3_vec(t, Rp, k->p0);
            for (int c = 0; c < 3; c++) o[c] = pp[c] + t[c];
            for (int x = 0; x < J->naxis; x++) {
                const kg_axis *ax = &m->axis[J->axis_first + x];
                kg_mat3_vec(a, R, ax->dir);
                if (ax->kind == KG_AXIS_TRANSLATION) {
                    twist_lin(tw + 6 * ax->coord, a);
                    for (int c = 0; c < 3; c++) o[c] += q[ax->coord] * a[c];
                } else {
                    twist_rot(tw + 6 * ax->coord, a, o);
                    double r[9], nr[9];
                    kg_rot_axis_angle(r, ax->dir, q[ax->coord]);
                    kg_mat3_mul(nr, R, r);
                    kg_mat3_copy(R, nr);
                }
            }
            break;
        }
        default:
            break;
        }
    }
}

/* Calls visit(joint, sign) for every joint between tip and base: +1 on the tip's
 * side of their common ancestor, -1 on the base's. Links are in topological
 * order, so the deeper of the two is the one with the larger index. */
#define WALK_PATH(m, tip, base, JOINT, SIGN, BODY)                      \
    do {                                                                \
        int i_ = (tip), b_ = (base);                                    \
        while (i_ != b_) {                                              \
            int JOINT, SIGN;                                            \
            if (i_ > b_) {                                              \
                JOINT = (m)->link[i_].joint, SIGN = 1;                  \
                i_ = (m)->link[i_].parent;                              \
            } else {                                                    \
                JOINT = (m)->link[b_].joint, SIGN = -1;                 \
                b_ = (m)->link[b_].parent;                              \
            }                                                           \
            if (JOINT < 0) continue; /* the root: no joint above it */  \
            BODY                                                        \
        }                                                               \
    } while (0)

/* Where joint J's motion goes: its own columns, or (times the multiplier) its leader's. */
static inline int column_of(const kg_model *m, const kg_joint *J, double *scale) {
    *scale = 1;
    if (J->mimic < 0) return J->dofadr;
    const kg_mimic *mm = &m->mimic[J->mimic];
    *scale = mm->multiplier;
    return m->joint[mm->leader].dofadr;
}

void kg_jacobian(const kg_model *m, const kg_data *d, int tip, const double point[3], int base, double *J) {
    const int n = m->dof;
    memset(J, 0, 6 * (size_t)n * sizeof *J);
    double pw[3];
    const double *pt = d->link_pos + 3 * tip;
    if (point) {
        kg_mat3_vec(pw, d->link_rot + 9 * tip, point);
        for (int c = 0; c < 3; c++) pw[c] += pt[c];
    } else {
        kg_vec3_copy(pw, pt);
    }
    WALK_PATH(m, tip, base, j, sign, {
        const kg_joint *Jt = &m->joint[j];
        double scale;
        int col = column_of(m, Jt, &scale);
        if (col < 0) continue; /* fixed */
        scale *= sign;
        for (int c = 0; c < Jt->nv; c++) {
            const double *tw = d->twist + 6 * (Jt->vadr + c);
            double v[3];
            kg_vec3_cross(v, tw + 3, pw);
            double *Jc = J + col + c;
            Jc[0] += scale * (tw[0] + v[0]);
            Jc[n] += scale * (tw[1] + v[1]);
            Jc[2 * n] += scale * (tw[2] + v[2]);
            Jc[3 * n] += scale * tw[3];
            Jc[4 * n] += scale * tw[4];
            Jc[5 * n] += scale * tw[5];
        }
    });
}

int kg_jacobian_columns(const kg_model *m, int tip, int base, unsigned char *mask) {
    memset(mask, 0, (size_t)m->dof);
    WALK_PATH(m, tip, base, j, sign, {
        (void)sign;
        const kg_joint *Jt = &m->joint[j];
        double scale;
        int col = column_of(m, Jt, &scale);
        if (col < 0) continue;
        for (int c = 0; c < Jt->nv; c++) mask[col + c] = 1;
    });
    int n = 0;
    for (int c = 0; c < m->dof; c++) n += mask[c];
    return n;
}

void kg_closure_free(kg_closure *c) {
    free(c->gen);
    free(c->W);
    memset(c, 0, sizeof *c);
}

int kg_closure_solve(const kg_model *m, const kg_data *d, kg_closure *c) {
    memset(c, 0, sizeof *c);
    const int n = m->dof, rows = 6 * m->nloop;
    const size_t N = (size_t)n + 1, Rw = (size_t)rows + 1;
    double *JC = calloc(Rw * N, sizeof *JC), *Q = calloc(N * Rw, sizeof *Q), *R = calloc(N * N, sizeof *R);
    double *rc = calloc(N, sizeof *rc), *col = calloc(Rw, sizeof *col), *x = calloc(N, sizeof *x);
    int *dep = calloc(N, sizeof *dep), *order = calloc(N, sizeof *order), *is_dep = calloc(N, sizeof *is_dep);
    c->gen = calloc(N, sizeof *c->gen);
    c->W = calloc(N * N, sizeof *c->W);
    int rc_ = -1;
    if (JC && Q && R && rc && col && x && dep && order && is_dep && c->gen && c->W) {
        /* J_C: each loop's virtual link relative to its real link (at the virtual link's origin) */
        for (int k = 0; k < m->nloop; k++)
            kg_jacobian(m, d, m->loop[k].virtual_link, NULL, m->loop[k].real_link, JC + (size_t)6 * k * n);
        double scale = 0;
        for (int e = 0; e < rows * n; e++) scale = fmax(scale, fabs(JC[e]));
        /* candidates for theta_S: the cut joints' columns, then every column from the last */
        int no = 0;
        for (int k = 0; k < m->nloop; k++) {
            const kg_joint *J = &m->joint[m->loop[k].cut_joint];
            for (int v = 0; J->dofadr >= 0 && v < J->nv; v++)
                if (!is_dep[J->dofadr + v]) is_dep[J->dofadr + v] = 1, order[no++] = J->dofadr + v;
        }
        for (int v = n - 1; v >= 0; v--)
            if (!is_dep[v]) order[no++] = v;
        /* the mechanism kg_closed shares (closure_basis.h) */
        kg_basis_work bw = {.Q = Q, .R = R, .rc = rc, .col = col, .x = x, .is_dep = is_dep};
        c->rank = kg_basis_split(JC, rows, n, order, no, 1e-10 * fmax(scale, 1e-300), &bw, dep, c->gen, &c->ngen);
        kg_basis_w(JC, rows, n, c->rank, dep, c->gen, c->ngen, &bw, c->W);
        c->residual = kg_basis_residual(JC, rows, n, c->W, c->ngen);
        rc_ = 0;
    }
    free(JC), free(Q), free(R), free(rc), free(col), free(x), free(dep), free(order), free(is_dep);
    if (rc_ != 0) kg_closure_free(c);
    return rc_;
}

const char *kg_jacobian_column_name(const kg_model *m, int c, char *buf, unsigned long size) {
    for (int j = 0; j < m->njoint; j++) {
        const kg_joint *J = &m->joint[j];
        if (J->dofadr < 0 || c < J->dofadr || c >= J->dofadr + J->nv) continue;
        int k = c - J->dofadr;
        static const char *const planar[3] = {"x", "y", "angle"}, *const free6[6] = {"x", "y", "z", "rx", "ry", "rz"};
        if (J->nv == 1) snprintf(buf, size, "%s", J->name);
        else if (J->type == KG_JOINT_PLANAR) snprintf(buf, size, "%s.%s", J->name, planar[k]);
        else if (J->type == KG_JOINT_FLOATING) snprintf(buf, size, "%s.%s", J->name, free6[k]);
        else {
            const char *label = "axis";
            for (int x = 0; x < J->naxis; x++)
                if (m->axis[J->axis_first + x].coord == k) label = m->axis[J->axis_first + x].label;
            snprintf(buf, size, "%s.%s", J->name, label);
        }
        return buf;
    }
    snprintf(buf, size, "?");
    return buf;
}
