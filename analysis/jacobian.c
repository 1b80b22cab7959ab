#include "analysis/jacobian.h"

#include <lapacke.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
    double *JC = calloc((size_t)rows * n + 1, sizeof *JC), *Q = calloc((size_t)rows * n + 1, sizeof *Q);
    int *dep = calloc((size_t)n + 1, sizeof *dep), *order = calloc((size_t)n + 1, sizeof *order);
    c->gen = calloc((size_t)n + 1, sizeof *c->gen);
    c->W = calloc((size_t)n * n + 1, sizeof *c->W);
    if (!JC || !Q || !dep || !order || !c->gen || !c->W) {
        free(JC), free(Q), free(dep), free(order);
        kg_closure_free(c);
        return -1;
    }
    /* J_C: each loop's virtual link relative to its real link (at the virtual link's origin) */
    for (int k = 0; k < m->nloop; k++)
        kg_jacobian(m, d, m->loop[k].virtual_link, NULL, m->loop[k].real_link, JC + (size_t)6 * k * n);
    double scale = 0;
    for (int e = 0; e < rows * n; e++) scale = fmax(scale, fabs(JC[e]));
    const double tol = 1e-10 * fmax(scale, 1e-300);
    /* candidates for theta_S: the cut joints' columns, then every column from the last */
    int no = 0;
    for (int k = 0; k < m->nloop; k++) {
        const kg_joint *J = &m->joint[m->loop[k].cut_joint];
        for (int x = 0; J->dofadr >= 0 && x < J->nv; x++) order[no++] = J->dofadr + x;
    }
    for (int col = n - 1; col >= 0; col--) {
        int seen = 0;
        for (int e = 0; e < no && !seen; e++) seen = order[e] == col;
        if (!seen) order[no++] = col;
    }
    /* greedy modified Gram-Schmidt: a column joins theta_S while it adds to the rank */
    int r = 0;
    for (int e = 0; e < no && r < rows; e++) {
        int col = order[e];
        double *v = Q + (size_t)r * rows;
        for (int i = 0; i < rows; i++) v[i] = JC[(size_t)i * n + col];
        for (int p = 0; p < r; p++) {
            const double *u = Q + (size_t)p * rows;
            double dot = 0;
            for (int i = 0; i < rows; i++) dot += u[i] * v[i];
            for (int i = 0; i < rows; i++) v[i] -= dot * u[i];
        }
        double norm = 0;
        for (int i = 0; i < rows; i++) norm += v[i] * v[i];
        norm = sqrt(norm);
        if (norm <= tol) continue;
        for (int i = 0; i < rows; i++) v[i] /= norm;
        dep[col] = 1;
        r++;
    }
    c->rank = r;
    for (int col = 0; col < n; col++)
        if (!dep[col]) c->gen[c->ngen++] = col;
    /* H: J_S H = -J_G, least squares over the (possibly redundant) constraint rows */
    const int ns = r, ng = c->ngen;
    int ok = 0;
    if (ns > 0 && ng > 0) {
        double *A = calloc((size_t)rows * ns + 1, sizeof *A), *B = calloc((size_t)rows * ng + 1, sizeof *B);
        int *scol = calloc((size_t)ns + 1, sizeof *scol);
        if (A && B && scol) {
            int s = 0;
            for (int col = 0; col < n; col++)
                if (dep[col]) scol[s++] = col;
            for (int i = 0; i < rows; i++) {
                for (int k = 0; k < ns; k++) A[(size_t)i * ns + k] = JC[(size_t)i * n + scol[k]];
                for (int k = 0; k < ng; k++) B[(size_t)i * ng + k] = -JC[(size_t)i * n + c->gen[k]];
            }
            ok = LAPACKE_dgels(LAPACK_ROW_MAJOR, 'N', rows, ns, ng, A, ns, B, ng) == 0;
            for (int k = 0; ok && k < ns; k++) /* the first ns rows of B hold H */
                for (int g = 0; g < ng; g++) c->W[(size_t)scol[k] * ng + g] = B[(size_t)k * ng + g];
        }
        free(A);
        free(B);
        free(scol);
    } else {
        ok = 1;
    }
    for (int g = 0; g < ng; g++) c->W[(size_t)c->gen[g] * ng + g] = 1;
    /* how well J_C W = 0 holds */
    for (int i = 0; i < rows; i++)
        for (int g = 0; g < ng; g++) {
            double v = 0;
            for (int col = 0; col < n; col++) v += JC[(size_t)i * n + col] * c->W[(size_t)col * ng + g];
            c->residual = fmax(c->residual, fabs(v));
        }
    free(JC);
    free(Q);
    free(dep);
    free(order);
    if (!ok) {
        kg_closure_free(c);
        return -1;
    }
    return 0;
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
