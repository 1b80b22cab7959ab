/* The dynamics wing's workspace and its spatial-vector helpers (internal).
 *
 * Spatial vectors (Featherstone) are 6 doubles, angular part first: a motion
 * (w; v) is an angular velocity and the velocity of the body point at the
 * reference point; a force (n; f) a moment about the reference point and a
 * force. Every link's quantities are in world axes about that link's origin:
 * FK already gives world rotations, so moving a vector from a parent to a child
 * is a translation by r = p_child - p_parent, with no rotation (cheaper than
 * Featherstone's link-local frames, and as exact). A rigid body's inertia is
 * kept as (m, h = m c, I about the origin), c the COM relative to the origin.
 * Links on fixed joints are welded to their parents' bodies (struct kg_dyn). */
#ifndef KG_DYNAMICS_INTERNAL_H
#define KG_DYNAMICS_INTERNAL_H

#include "kinegraph/dynamics.h"
#include "core/spatial.h"

/* Rigid-body inertia about a point, world axes: 13 doubles. */
enum { RB_M = 0, RB_H = 1, RB_I = 4, RB_SIZE = 13 };

/* A body's joint in its parent body's frame, both frames the link-local
 * recursions' (local_frames.c): the joint frame's rotation Rs and origin ps
 * (the parent link's pose in its body, welds composed, times the joint
 * origin, turned into the chosen frames), Rs [a]x and Rs [a]x^2 (a the axis,
 * in the body's frame; the rotation at q is Rs + sin q B1 + (1 - cos q) B2),
 * Rs a, a itself, and for a coordinate-axis turn (cos, sin) of its constant
 * offset (Rs is then the turn by that offset about the axis). */
enum { XS_R = 0, XS_P = 9, XS_B1 = 12, XS_B2 = 21, XS_A = 30, XS_AX = 33, XS_OFF = 36, XS_SIZE = 38 };
enum { XM_GENERAL = -1, XM_AXIS_X = 0, XM_FIXED = 3 };

/* How a body's joint moves it, for the recursions' fast paths: a revolute or
 * continuous joint's single column is (a; 0) (its axis passes through the
 * child's origin), a prismatic joint's (0; a); anything else goes through the
 * general per-column code. */
enum { DYN_GENERAL = 0, DYN_REVOLUTE = 1, DYN_PRISMATIC = 2 };

/* Bodies. The recursions run over the root and the links a moving joint
 * carries ("bodies"); a link on a fixed joint is welded to its nearest body
 * (its anchor): its inertia is added to the anchor's at kg_dyn_positions and
 * its external wrench to the anchor's, so it costs nothing per call (G1: 30
 * bodies of 39 links). The bodies' inertias in their own frames, welds
 * included, are constant: kg_dyn_new computes them once, and each pose only
 * rotates them. Body arrays are indexed by link; a welded link's
 * velocity and acceleration are its anchor's, moved (dyn_link_motion). */
struct kg_dyn {
    int nlink, nv;
    int *joint_link;   /* [nlink]: the joint moving link i (-1 for the root), cached from the model */
    int nbody, *body;  /* [nbody] the bodies' links, root first, parents before children */
    int *anchor;       /* [nlink] the body each link is welded to (itself for a body) */
    int *bparent;      /* [nlink] for a body, its parent link's anchor (-1 for the root) */
    int *kind;         /* [nlink] for a body, DYN_REVOLUTE, DYN_PRISMATIC or DYN_GENERAL */
    int *vadr;         /* [nlink] for a body, its joint's first velocity coordinate (one load, not three) */
    int *weld_off, *weld; /* the welded links of body i: weld[weld_off[i] .. weld_off[i + 1]) */
    int nwelded, *welded; /* every welded link, parents first */
    double *pos;       /* [3 nlink] link origins (world), copied from kg_fk */
    double *r;         /* [3 nlink] for a body, p_i - p_bparent */
    double *rbl;       /* [RB_SIZE nlink] each body's inertia about its origin in its own frame,
                        * welded links included: read from the model by kg_dyn_new */
    double *rb;        /* [RB_SIZE nlink] the same in world axes (kg_dyn_positions) */
    double *rbq;       /* [RB_SIZE nlink] the same in the link-local recursions' frame (local_frames.c) */
    double *xs;        /* [XS_SIZE nlink] for a body, its joint's constant transform from its parent
                        * body in those frames */
    int *qadr;         /* [nlink] for a body, its joint's coordinate in q */
    int *xmode;        /* [nlink] for a body, its rotation's form at q (local.h): XM_GENERAL, or
                        * XM_AXIS_X + k for a turn about coordinate axis k (mixing two
                        * components), or XM_FIXED for a prismatic joint with Rs = E */
    int local_ok;      /* every body's joint is revolute, continuous or prismatic: the link-local paths */
    double *Rq, *Pq;   /* [9 nlink], [3 nlink] the link-local passes' joint turns and origins at q (local.h) */
    double *S;         /* [6 nv] motion subspace: each coordinate's unit motion about its child's origin */
    double *vel, *acc, *frc; /* [6 nlink], bodies only */
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

/* Link i's velocity or acceleration (x: w->vel or w->acc) after a recursion
 * that filled them: a welded link's is its anchor's moved to its origin. */
static inline void dyn_link_motion(const kg_dyn *w, const double *x, int i, double o[6]) {
    const int b = w->anchor[i];
    const double *pb = w->pos + 3 * b, *pi = w->pos + 3 * i, r[3] = {pi[0] - pb[0], pi[1] - pb[1], pi[2] - pb[2]};
    sv_motion_shift(o, x + 6 * b, r);
}

/* A body's velocity V and acceleration A (its parent's, moved to its origin)
 * gain the rates qd, qdd of a revolute joint whose column is (s; 0), s the
 * axis in V's axes: A += (w x s qd + s qdd; u x s qd), then w += s qd (the
 * velocity product of internal.h's convention). The world-frame recursions
 * and the link-local ones share it. */
static inline void dyn_revolute_rates(double *restrict V, double *restrict A, const double *restrict s, double qd,
                                      double qdd) {
    const double s0 = s[0] * qd, s1 = s[1] * qd, s2 = s[2] * qd;
    A[0] += V[1] * s2 - V[2] * s1 + s[0] * qdd;
    A[1] += V[2] * s0 - V[0] * s2 + s[1] * qdd;
    A[2] += V[0] * s1 - V[1] * s0 + s[2] * qdd;
    A[3] += V[4] * s2 - V[5] * s1;
    A[4] += V[5] * s0 - V[3] * s2;
    A[5] += V[3] * s1 - V[4] * s0;
    V[0] += s0, V[1] += s1, V[2] += s2;
}

/* The same for a prismatic joint, column (0; s): A += (0; w x s qd + s qdd),
 * then u += s qd. */
static inline void dyn_prismatic_rates(double *restrict V, double *restrict A, const double *restrict s, double qd,
                                       double qdd) {
    const double s0 = s[0] * qd, s1 = s[1] * qd, s2 = s[2] * qd;
    A[3] += V[1] * s2 - V[2] * s1 + s[0] * qdd;
    A[4] += V[2] * s0 - V[0] * s2 + s[1] * qdd;
    A[5] += V[0] * s1 - V[1] * s0 + s[2] * qdd;
    V[3] += s0, V[4] += s1, V[5] += s2;
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
 * I' = I + (2 h.r + m r.r) E - (h r^T + r h^T + m r r^T), six entries of a
 * symmetric matrix computed once each. */
static inline void rb_add_shifted(double *restrict o, const double *restrict x, const double r[3]) {
    const double m = x[RB_M], *J = x + RB_I;
    const double h0 = x[RB_H], h1 = x[RB_H + 1], h2 = x[RB_H + 2], r0 = r[0], r1 = r[1], r2 = r[2];
    const double g0 = h0 + m * r0, g1 = h1 + m * r1, g2 = h2 + m * r2; /* h + m r: the new h's increment */
    const double d = h0 * r0 + h1 * r1 + h2 * r2 + g0 * r0 + g1 * r1 + g2 * r2;
    /* h_a r_b + r_a h_b + m r_a r_b = h_a r_b + r_a g_b */
    const double i00 = J[0] + d - (h0 * r0 + r0 * g0), i11 = J[4] + d - (h1 * r1 + r1 * g1),
                 i22 = J[8] + d - (h2 * r2 + r2 * g2);
    const double i01 = J[1] - (h0 * r1 + r0 * g1), i02 = J[2] - (h0 * r2 + r0 * g2), i12 = J[5] - (h1 * r2 + r1 * g2);
    double *I = o + RB_I;
    o[RB_M] += m;
    o[RB_H] += g0, o[RB_H + 1] += g1, o[RB_H + 2] += g2;
    I[0] += i00, I[4] += i11, I[8] += i22;
    I[1] += i01, I[3] += i01, I[2] += i02, I[6] += i02, I[5] += i12, I[7] += i12;
}

/* f -= the external wrenches on body i and its welded links, moved to its
 * origin (fext as the API has it: per link force, then moment, world axes). */
static inline void dyn_body_fext(const kg_dyn *w, int i, const double *fext, double *restrict f) {
    const double *fe = fext + 6 * i;
    f[0] -= fe[3], f[1] -= fe[4], f[2] -= fe[5];
    f[3] -= fe[0], f[4] -= fe[1], f[5] -= fe[2];
    for (int k = w->weld_off[i]; k < w->weld_off[i + 1]; k++) {
        const int l = w->weld[k];
        const double *x = fext + 6 * l, *pl = w->pos + 3 * l, *pi = w->pos + 3 * i;
        const double r[3] = {pl[0] - pi[0], pl[1] - pi[1], pl[2] - pi[2]}; /* moment about p_i: n + r x f */
        f[0] -= x[3] + r[1] * x[2] - r[2] * x[1];
        f[1] -= x[4] + r[2] * x[0] - r[0] * x[2];
        f[2] -= x[5] + r[0] * x[1] - r[1] * x[0];
        f[3] -= x[0], f[4] -= x[1], f[5] -= x[2];
    }
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

/* The scratch kg_dyn_new takes with the workspace (so that its set-up
 * allocates once, and fails before it starts): doubles for a model of L links,
 * each link's pose in its body's frame (9 L + 1, 3 L + 1) and
 * dyn_local_frames' work. */
#define DYN_NEW_WORK(L) (30 * (size_t)(L) + 4)

/* Fills w->xs, xmode, qadr, rbq and local_ok: the link-local recursions'
 * frames and joints (local_frames.c). rot, pos: each link's pose in its
 * body's link frame (welds composed); w->rbl already filled. work: 18 L + 2
 * zeroed doubles. */
void dyn_local_frames(const kg_model *m, kg_dyn *w, const double *rot, const double *pos, double *work);

/* w->comp: the inertia of the subtree below each link, about its origin (crba.c). */
void dyn_composite(const kg_model *m, kg_dyn *w);

/* Solves A x = b in place (A symmetric n x n row-major, overwritten by its
 * Cholesky factor; b by x). Pivots at or below tol are dropped: row and column
 * zeroed, x 0 there (L_jj == 0 marks them afterwards). Returns how many were
 * dropped, or -1 when a pivot is below -tol (closed.c). */
int dyn_cholesky_solve(int n, double *A, double *b, double tol);

#endif
