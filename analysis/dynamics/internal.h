/* The dynamics wing's workspace and its spatial-vector helpers (internal).
 *
 * Spatial vectors (Featherstone) are 6 doubles, angular part first: a motion
 * (w; v) is an angular velocity and the velocity of the body point at the
 * reference point; a force (n; f) a moment about the reference point and a
 * force. Every link's quantities are in world axes about that link's origin:
 * FK already gives world rotations, so moving a vector from a parent to a child
 * is a translation by r = p_child - p_parent, with no rotation (cheaper than
 * Featherstone's link-local frames, and as exact). A rigid body's inertia is
 * kept as (m, h = m c, I about the origin), c the COM relative to the origin. */
#ifndef KG_DYNAMICS_INTERNAL_H
#define KG_DYNAMICS_INTERNAL_H

#include "kinegraph/dynamics.h"
#include "core/spatial.h"

/* Rigid-body inertia about a point, world axes: 13 doubles. */
enum { RB_M = 0, RB_H = 1, RB_I = 4, RB_SIZE = 13 };

struct kg_dyn {
    int nlink, nv;
    int *joint_link;   /* [nlink]: the joint moving link i (-1 for the root), cached from the model */
    double *pos;       /* [3 nlink] link origins (world), copied from kg_fk */
    double *r;         /* [3 nlink] p_i - p_parent */
    double *rb;        /* [RB_SIZE nlink] each link's inertia about its origin */
    double *S;         /* [6 nv] motion subspace: each coordinate's unit motion about its child's origin */
    double *vel, *acc, *frc; /* [6 nlink] */
    double *c;         /* [6 nlink] ABA: velocity-product accelerations */
    double *comp;      /* [RB_SIZE nlink] CRBA: composite inertias */
    double *IA;        /* [36 nlink] ABA: articulated inertias (row-major 6x6) */
    double *pA;        /* [6 nlink] ABA: bias forces */
    double *U;         /* [6 nv] ABA: IA S */
    double *Dinv;      /* [6 nv] ABA: per joint (S^T IA S)^-1, nJ x nJ at 6 * vadr */
    double *u;         /* [nv] ABA: tau - S^T pA, then D^-1 of it */
};

static inline void sv_zero(double *x) { x[0] = x[1] = x[2] = x[3] = x[4] = x[5] = 0; }

/* Motion at the parent's origin to the child's origin: (w; v + w x r). */
static inline void sv_motion_shift(double *restrict o, const double *restrict x, const double r[3]) {
    o[0] = x[0], o[1] = x[1], o[2] = x[2];
    o[3] = x[3] + x[1] * r[2] - x[2] * r[1];
    o[4] = x[4] + x[2] * r[0] - x[0] * r[2];
    o[5] = x[5] + x[0] * r[1] - x[1] * r[0];
}

/* Adds a force at the child's origin to one at the parent's: (n + r x f; f). */
static inline void sv_force_add_shifted(double *restrict o, const double *restrict x, const double r[3]) {
    o[0] += x[0] + r[1] * x[5] - r[2] * x[4];
    o[1] += x[1] + r[2] * x[3] - r[0] * x[5];
    o[2] += x[2] + r[0] * x[4] - r[1] * x[3];
    o[3] += x[3], o[4] += x[4], o[5] += x[5];
}

/* o = a x b (motion cross motion): (wa x wb; wa x vb + va x wb). */
static inline void sv_cross_motion(double *restrict o, const double *restrict a, const double *restrict b) {
    double t[3];
    kg_vec3_cross(o, a, b);
    kg_vec3_cross(o + 3, a, b + 3);
    kg_vec3_cross(t, a + 3, b);
    o[3] += t[0], o[4] += t[1], o[5] += t[2];
}

/* o += v x* f (motion cross force): (w x n + v x f; w x f). */
static inline void sv_cross_force_add(double *restrict o, const double *restrict v, const double *restrict f) {
    double t[3];
    kg_vec3_cross(t, v, f);
    o[0] += t[0], o[1] += t[1], o[2] += t[2];
    kg_vec3_cross(t, v + 3, f + 3);
    o[0] += t[0], o[1] += t[1], o[2] += t[2];
    kg_vec3_cross(t, v, f + 3);
    o[3] += t[0], o[4] += t[1], o[5] += t[2];
}

/* f = I x for a rigid-body inertia: (I w + h x v; m v - h x w). */
static inline void rb_apply(double *restrict f, const double *restrict I, const double *restrict x) {
    const double *h = I + RB_H, *J = I + RB_I;
    double t[3];
    kg_mat3_vec(f, J, x);
    kg_vec3_cross(t, h, x + 3);
    f[0] += t[0], f[1] += t[1], f[2] += t[2];
    kg_vec3_cross(t, h, x);
    f[3] = I[RB_M] * x[3] - t[0];
    f[4] = I[RB_M] * x[4] - t[1];
    f[5] = I[RB_M] * x[5] - t[2];
}

/* o += x moved from the child's origin to the parent's (r = p_child - p_parent):
 * the COM offset grows by r, and the parallel-axis terms
 * I' = I + (2 h.r + m r.r) E - (h r^T + r h^T + m r r^T). */
static inline void rb_add_shifted(double *restrict o, const double *restrict x, const double r[3]) {
    const double m = x[RB_M], *h = x + RB_H, *J = x + RB_I;
    const double d = 2 * kg_vec3_dot(h, r) + m * kg_vec3_dot(r, r);
    o[RB_M] += m;
    for (int a = 0; a < 3; a++) o[RB_H + a] += h[a] + m * r[a];
    for (int a = 0; a < 3; a++)
        for (int b = 0; b < 3; b++)
            o[RB_I + 3 * a + b] += J[3 * a + b] + (a == b ? d : 0) - (h[a] * r[b] + r[a] * h[b] + m * r[a] * r[b]);
}

static inline const kg_dyn_options *dyn_options(const kg_dyn_options *o) { return o ? o : &kg_dyn_default; }

/* The acceleration of a joint's velocity products (S' qdot), at the child's
 * origin, for the joint's velocity vJ = (w; u) = S qdot and the parent's
 * velocity vp moved to the child: vp x vJ + (0; u x w). Exact for every joint
 * whose translations are fixed in the parent and whose rotations pass through
 * the child's origin (revolute, prismatic, planar, floating); compound joints
 * go axis by axis (dyn_joint_velocity). */
void dyn_joint_velocity(const kg_model *m, const kg_dyn *w, int j, const double *vp, const double *qd, double *vJ,
                        double *zeta);

/* w->comp: the inertia of the subtree below each link, about its origin (crba.c). */
void dyn_composite(const kg_model *m, kg_dyn *w);

/* Solves A x = b in place (A symmetric n x n row-major, overwritten by its
 * Cholesky factor; b by x). Pivots at or below tol are dropped: row and column
 * zeroed, x 0 there (L_jj == 0 marks them afterwards). Returns how many were
 * dropped, or -1 when a pivot is below -tol (closed.c). */
int dyn_cholesky_solve(int n, double *A, double *b, double tol);

#endif
