/* The dynamics workspace, and what depends on the pose alone: each link's
 * inertia and each joint's motion subspace in world axes about the child's
 * origin (the conventions are in internal.h), plus the joints' velocity
 * products that every recursive algorithm needs. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/dynamics/internal.h"

const kg_dyn_options kg_dyn_default = {{0, 0, -9.81}};

/* The bodies, anchors and welds (struct kg_dyn): links are in topological
 * order (a parent before its children), so one pass finds every anchor.
 * fill: [nlink] zeroed scratch. */
static void find_bodies(const kg_model *m, kg_dyn *w, int *fill) {
    int nw = 0;
    for (int i = 0; i < m->nlink; i++) {
        const int j = m->link[i].joint;
        const int is_body = i == 0 || j < 0 || m->joint[j].type != KG_JOINT_FIXED || m->joint[j].nv > 0;
        w->anchor[i] = is_body ? i : w->anchor[m->link[i].parent];
        w->bparent[i] = -1;
        if (!is_body) {
            w->welded[nw++] = i;
            continue;
        }
        w->body[w->nbody++] = i;
        if (i > 0) w->bparent[i] = w->anchor[m->link[i].parent], w->vadr[i] = m->joint[j].vadr;
        const int t = i > 0 ? m->joint[j].type : KG_JOINT_FIXED;
        w->kind[i] = t == KG_JOINT_REVOLUTE || t == KG_JOINT_CONTINUOUS ? DYN_REVOLUTE
                     : t == KG_JOINT_PRISMATIC                         ? DYN_PRISMATIC
                                                                       : DYN_GENERAL;
    }
    w->nwelded = nw;
    /* welds grouped by anchor (counting sort, parents first within each) */
    for (int k = 0; k < nw; k++) w->weld_off[w->anchor[w->welded[k]] + 1]++;
    for (int i = 0; i < m->nlink; i++) w->weld_off[i + 1] += w->weld_off[i];
    for (int k = 0; k < nw; k++) {
        const int a = w->anchor[w->welded[k]];
        w->weld[w->weld_off[a] + fill[a]++] = w->welded[k];
    }
}

/* Link L's inertia about its origin in axes R (rotation of its frame): the
 * parallel-axis terms in the link's frame, Io = Ic + m (c.c E - c c^T), then
 * I = R Io R^T with symmetry used; h = m R c. */
static void link_inertia(const kg_link *L, const double *Rw, double *rb) {
    const double m = L->mass, *Ic = L->inertia, c[3] = {L->com[0], L->com[1], L->com[2]};
    double R[9], Io[9], T[9], out[RB_SIZE]; /* locals: no store can alias an input */
    memcpy(R, Rw, sizeof R);
    const double cc = c[0] * c[0] + c[1] * c[1] + c[2] * c[2];
    for (int a = 0; a < 3; a++)
        for (int b = a; b < 3; b++)
            Io[3 * a + b] = Io[3 * b + a] = 0.5 * (Ic[3 * a + b] + Ic[3 * b + a]) + m * ((a == b ? cc : 0) - c[a] * c[b]);
    kg_mat3_mul(T, R, Io);
    double *I = out + RB_I;
    for (int a = 0; a < 3; a++)
        for (int b = a; b < 3; b++)
            I[3 * a + b] = I[3 * b + a] = T[3 * a] * R[3 * b] + T[3 * a + 1] * R[3 * b + 1] + T[3 * a + 2] * R[3 * b + 2];
    out[RB_M] = m;
    for (int a = 0; a < 3; a++) out[RB_H + a] = m * (R[3 * a] * c[0] + R[3 * a + 1] * c[1] + R[3 * a + 2] * c[2]);
    memcpy(rb, out, sizeof out);
}

/* The inertia x (about an origin, in a frame) in axes turned by R: I = R Io R^T
 * (symmetry used: one product of three, half of the second), h = R h. */
static void rb_rotate(double *restrict o, const double *restrict x, const double *restrict Rw) {
    double R[9], T[9], out[RB_SIZE];
    memcpy(R, Rw, sizeof R);
    kg_mat3_mul(T, R, x + RB_I);
    double *I = out + RB_I;
    for (int a = 0; a < 3; a++)
        for (int b = a; b < 3; b++)
            I[3 * a + b] = I[3 * b + a] = T[3 * a] * R[3 * b] + T[3 * a + 1] * R[3 * b + 1] + T[3 * a + 2] * R[3 * b + 2];
    out[RB_M] = x[RB_M];
    kg_mat3_vec(out + RB_H, R, x + RB_H);
    memcpy(o, out, sizeof out);
}

/* w->rbl: each body's inertia in its own frame, its welded links moved in
 * through the fixed joints' origins (composed down the welds, parents first).
 * work: DYN_NEW_WORK(nlink) zeroed doubles of scratch. */
static void body_inertias(const kg_model *m, kg_dyn *w, double *work) {
    static const double E[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1};
    double *rot = work, *pos = rot + 9 * (size_t)m->nlink + 1;
    for (int b = 0; b < w->nbody; b++) {
        const int i = w->body[b];
        link_inertia(&m->link[i], E, w->rbl + RB_SIZE * i);
        memcpy(rot + 9 * i, E, sizeof E); /* a body in its own frame */
    }
    for (int k = 0; k < w->nwelded; k++) {
        const int l = w->welded[k], p = m->link[l].parent, a = w->anchor[l];
        const kg_kin *K = &m->kin[l];
        const double *Rp = rot + 9 * p, *pp = pos + 3 * p;
        kg_mat3_mul(rot + 9 * l, Rp, K->r0);
        kg_mat3_vec(pos + 3 * l, Rp, K->p0);
        for (int e = 0; e < 3; e++) pos[3 * l + e] += pp[e];
        double rb[RB_SIZE];
        link_inertia(&m->link[l], rot + 9 * l, rb);
        rb_add_shifted(w->rbl + RB_SIZE * a, rb, pos + 3 * l);
    }
    dyn_local_frames(m, w, rot, pos, pos + 3 * (size_t)m->nlink + 1);
}

kg_dyn *kg_dyn_new(const kg_model *m) {
    const size_t L = (size_t)m->nlink, V = (size_t)m->nv + 1;
    /* everything at once, the set-up's scratch too: NULL, nothing taken, when
     * memory is exhausted */
    kg_dyn *w = calloc(1, sizeof *w);
    int *ints = calloc(12 * L + 1, sizeof *ints); /* the last L: find_bodies' scratch */
    double *work = calloc(DYN_NEW_WORK(L), sizeof *work);
    /* one block for the doubles: each array's size in doubles */
    const size_t sizes[] = {3 * L, 3 * L, RB_SIZE * L, RB_SIZE * L, RB_SIZE * L, XS_SIZE * L, 6 * V, 6 * L, 6 * L, 6 * L, 6 * L, RB_SIZE * L, 36 * L, 6 * L,
                            6 * V, 6 * V, V, 9 * L, 3 * L};
    size_t total = 0;
    for (size_t k = 0; k < sizeof sizes / sizeof *sizes; k++) total += sizes[k];
    double *block = calloc(total, sizeof *block);
    if (!w || !ints || !work || !block) {
        free(w), free(ints), free(work), free(block);
        return NULL;
    }
    w->nlink = m->nlink;
    w->nv = m->nv;
    /* one block for the ints: joint_link, body, anchor, bparent, kind, weld_off, weld, welded */
    w->joint_link = ints, w->body = ints + L, w->anchor = ints + 2 * L, w->bparent = ints + 3 * L;
    w->kind = ints + 4 * L, w->weld_off = ints + 5 * L, w->weld = ints + 6 * L + 1, w->welded = w->weld + L;
    w->vadr = w->welded + L;
    w->xmode = w->vadr + L, w->qadr = w->xmode + L;
    double **slots[] = {&w->pos, &w->r, &w->rbl, &w->rb, &w->rbq, &w->xs, &w->S, &w->vel, &w->acc, &w->frc, &w->c, &w->comp, &w->IA, &w->pA,
                        &w->U, &w->Dinv, &w->u, &w->Rq, &w->Pq};
    for (size_t k = 0; k < sizeof sizes / sizeof *sizes; k++) {
        *slots[k] = block;
        block += sizes[k];
    }
    for (int i = 0; i < m->nlink; i++) w->joint_link[i] = m->link[i].joint;
    find_bodies(m, w, ints + 11 * L + 1);
    body_inertias(m, w, work);
    free(work);
    return w;
}

void kg_dyn_free(kg_dyn *w) {
    if (!w) return;
    free(w->pos); /* the first slot owns the block */
    free(w->joint_link); /* and the ints' */
    free(w);
}

/* A unit rotation about a through the point o, seen at p: (a; a x (p - o)). */
static void unit_rotation(double *s, const double a[3], const double o[3], const double p[3]) {
    double d[3] = {p[0] - o[0], p[1] - o[1], p[2] - o[2]};
    kg_vec3_copy(s, a);
    kg_vec3_cross(s + 3, a, d);
}

static void unit_translation(double *s, const double a[3]) {
    s[0] = s[1] = s[2] = 0;
    kg_vec3_copy(s + 3, a);
}

/* The columns of joint j's motion subspace (6 doubles each, at its vadr). */
static void joint_subspace(const kg_model *m, const kg_data *d, int j, double *S) {
    const kg_joint *J = &m->joint[j];
    const int i = J->child;
    const kg_kin *k = &m->kin[i];
    const double *Rp = d->link_rot + 9 * k->parent, *Ri = d->link_rot + 9 * i, *pi = d->link_pos + 3 * i;
    double a[3], F[9];
    switch (J->type) {
    case KG_JOINT_REVOLUTE:
    case KG_JOINT_CONTINUOUS:
        kg_mat3_vec(a, Ri, J->axis);
        unit_rotation(S, a, pi, pi);
        break;
    case KG_JOINT_PRISMATIC:
        kg_mat3_vec(a, Ri, J->axis);
        unit_translation(S, a);
        break;
    case KG_JOINT_PLANAR:
        kg_mat3_vec(a, Rp, k->u0);
        unit_translation(S, a);
        kg_mat3_vec(a, Rp, k->v0);
        unit_translation(S + 6, a);
        kg_mat3_vec(a, Ri, J->axis);
        unit_rotation(S + 12, a, pi, pi);
        break;
    case KG_JOINT_FLOATING: /* translations along, then rotations about, the joint frame's axes */
        kg_mat3_mul(F, Rp, k->r0);
        for (int c = 0; c < 3; c++) {
            double e[3] = {F[c], F[3 + c], F[6 + c]};
            unit_translation(S + 6 * c, e);
            unit_rotation(S + 18 + 6 * c, e, pi, pi);
        }
        break;
    case KG_JOINT_COMPOUND: { /* replay the axes: each acts in the frame the ones before left */
        const double *pp = d->link_pos + 3 * k->parent, *q = d->q + J->qadr;
        double R[9], o[3], t[3];
        kg_mat3_mul(R, Rp, k->r0);
        kg_mat3_vec(t, Rp, k->p0);
        for (int c = 0; c < 3; c++) o[c] = pp[c] + t[c];
        for (int x = 0; x < J->naxis; x++) {
            const kg_axis *ax = &m->axis[J->axis_first + x];
            kg_mat3_vec(a, R, ax->dir);
            if (ax->kind == KG_AXIS_TRANSLATION) {
                unit_translation(S + 6 * ax->coord, a);
                for (int c = 0; c < 3; c++) o[c] += q[ax->coord] * a[c];
            } else {
                double r[9], nr[9];
                unit_rotation(S + 6 * ax->coord, a, o, pi);
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

void kg_dyn_positions(const kg_model *m, const kg_data *d, kg_dyn *w) {
    const double *P = d->link_pos;
    memcpy(w->pos, P, 3 * (size_t)m->nlink * sizeof *w->pos);
    for (int b = 0; b < w->nbody; b++) {
        const int i = w->body[b], p = w->bparent[i];
        double *r = w->r + 3 * i;
        if (p < 0) r[0] = r[1] = r[2] = 0;
        else
            for (int a = 0; a < 3; a++) r[a] = P[3 * i + a] - P[3 * p + a];
        rb_rotate(w->rb + RB_SIZE * i, w->rbl + RB_SIZE * i, d->link_rot + 9 * i);
    }
    for (int j = 0; j < m->njoint; j++) {
        const kg_joint *J = &m->joint[j];
        if (J->nv == 0) continue;
        double *S = w->S + 6 * J->vadr;
        if (w->kind[J->child] == DYN_REVOLUTE) { /* (R axis; 0): the common case, without the switch */
            kg_mat3_vec(S, d->link_rot + 9 * J->child, J->axis);
            S[3] = S[4] = S[5] = 0;
        } else
            joint_subspace(m, d, j, S);
    }
}

void dyn_joint_velocity(const kg_model *m, const kg_dyn *w, int j, const double *vp, const double *qd, double *vJ,
                        double *zeta) {
    const kg_joint *J = &m->joint[j];
    const double *S = w->S + 6 * J->vadr;
    sv_zero(vJ);
    if (J->type != KG_JOINT_COMPOUND) {
        for (int c = 0; c < J->nv; c++)
            for (int e = 0; e < 6; e++) vJ[e] += S[6 * c + e] * qd[c];
        double t[3];
        sv_cross_motion(zeta, vp, vJ);
        kg_vec3_cross(t, vJ + 3, vJ);
        zeta[3] += t[0], zeta[4] += t[1], zeta[5] += t[2];
        return;
    }
    /* each axis is fixed in the frame the axes before it leave: its subspace
     * changes at (velocity of that frame) x (its motion) */
    double vk[6], z[6];
    for (int e = 0; e < 6; e++) vk[e] = vp[e];
    sv_zero(zeta);
    for (int x = 0; x < J->naxis; x++) {
        const int c = m->axis[J->axis_first + x].coord;
        double s[6];
        for (int e = 0; e < 6; e++) s[e] = S[6 * c + e] * qd[c];
        sv_cross_motion(z, vk, s);
        for (int e = 0; e < 6; e++) zeta[e] += z[e], vk[e] += s[e], vJ[e] += s[e];
    }
}
