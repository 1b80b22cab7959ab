/* Inverse dynamics by the recursive Newton-Euler algorithm (Featherstone,
 * Rigid Body Dynamics Algorithms, 5.3), and the gravity and bias torques as
 * its special cases. Gravity enters as an upward acceleration of the static
 * root (a_0 = -g), so every link's force already includes its weight. With
 * a floating root (kg_dyn_rnea_floating) the root moves as given and its own
 * force joins the backward pass: the wrench the base would need. */
#include <string.h>

#include "analysis/dynamics/internal.h"

/* f = I a + v x* I v for one body's inertia (restrict: all distinct). */
static inline void body_force(double *restrict f, const double *restrict rb, const double *restrict V,
                              const double *restrict A, int have_v) {
    rb_apply(f, rb, A);
    if (have_v) {
        double h[6];
        rb_apply(h, rb, V);
        sv_cross_force_add(f, V, h);
    }
}

/* One body's velocity V and acceleration A (locals, the parent's moved to
 * its origin on entry) gain its joint's rates (internal.h's convention: the
 * velocity products are vp x vJ for a joint whose axis passes through the
 * child's origin or translates it). */
static inline void joint_motion(const kg_model *m, const kg_dyn *w, int i, const double *v, const double *a,
                                double *restrict V, double *restrict A) {
    const int va = w->vadr[i];
    const double *S = w->S + 6 * va;
    switch (w->kind[i]) {
    case DYN_REVOLUTE: dyn_revolute_rates(V, A, S, v ? v[va] : 0, a ? a[va] : 0); break;
    case DYN_PRISMATIC: dyn_prismatic_rates(V, A, S + 3, v ? v[va] : 0, a ? a[va] : 0); break;
    default: {
        const int j = w->joint_link[i];
        const kg_joint *J = &m->joint[j];
        if (v) {
            double vJ[6], zeta[6];
            dyn_joint_velocity(m, w, j, V, v + J->vadr, vJ, zeta);
            for (int e = 0; e < 6; e++) V[e] += vJ[e], A[e] += zeta[e];
        }
        if (a)
            for (int c = 0; c < J->nv; c++)
                for (int e = 0; e < 6; e++) A[e] += S[6 * c + e] * a[J->vadr + c];
    }
    }
}

/* Forward pass: every body's velocity and acceleration (the root's given in
 * w->vel, w->acc, gravity included), then the force each body's motion needs,
 * less the external wrenches on it. Locals in between: the stores to the
 * workspace would otherwise make the compiler reload everything. */
static void rnea_forward(const kg_model *m, kg_dyn *w, const double *v, const double *a, const double *fext,
                         int have_v) {
    double *restrict vel = w->vel, *restrict acc = w->acc, *restrict frc = w->frc;
    for (int b = 1; b < w->nbody; b++) {
        const int i = w->body[b], p = w->bparent[i];
        double V[6], A[6], F[6];
        sv_motion_shift(V, vel + 6 * p, w->r + 3 * i);
        sv_motion_shift(A, acc + 6 * p, w->r + 3 * i);
        joint_motion(m, w, i, v, a, V, A);
        body_force(F, w->rb + RB_SIZE * i, V, A, have_v);
        if (fext) dyn_body_fext(w, i, fext, F);
        memcpy(vel + 6 * i, V, sizeof V);
        memcpy(acc + 6 * i, A, sizeof A);
        memcpy(frc + 6 * i, F, sizeof F);
    }
}

/* Backward pass: each joint carries the forces of the bodies below it; with
 * root set, the root's own force and its children's are summed into w->frc[0]. */
static void rnea_backward(const kg_model *m, kg_dyn *w, double *tau, int root) {
    for (int b = w->nbody - 1; b >= 1; b--) {
        const int i = w->body[b], va = w->vadr[i];
        const double *fi = w->frc + 6 * i, *S = w->S + 6 * va;
        switch (w->kind[i]) {
        case DYN_REVOLUTE: tau[va] = S[0] * fi[0] + S[1] * fi[1] + S[2] * fi[2]; break;
        case DYN_PRISMATIC: tau[va] = S[3] * fi[3] + S[4] * fi[4] + S[5] * fi[5]; break;
        default:
            for (int c = 0; c < m->joint[w->joint_link[i]].nv; c++) {
                const double *s = S + 6 * c;
                tau[va + c] =
                    s[0] * fi[0] + s[1] * fi[1] + s[2] * fi[2] + s[3] * fi[3] + s[4] * fi[4] + s[5] * fi[5];
            }
        }
        const int p = w->bparent[i];
        if (p > 0 || root) sv_force_add_shifted(w->frc + 6 * p, fi, w->r + 3 * i);
    }
}

void kg_dyn_rnea(const kg_model *m, kg_dyn *w, const kg_dyn_options *opt, const double *v, const double *a,
                 const double *fext, double *tau) {
    const double *g = dyn_options(opt)->gravity;
    sv_zero(w->vel);
    sv_zero(w->acc);
    w->acc[3] = -g[0], w->acc[4] = -g[1], w->acc[5] = -g[2];
    rnea_forward(m, w, v, a, fext, v != NULL);
    rnea_backward(m, w, tau, 0);
}

void kg_dyn_rnea_floating(const kg_model *m, kg_dyn *w, const kg_dyn_options *opt, const double vbase[6],
                          const double abase[6], const double *v, const double *a, const double *fext, double *tau,
                          double fbase[6]) {
    const double *g = dyn_options(opt)->gravity;
    static const double zero[6] = {0, 0, 0, 0, 0, 0};
    if (!vbase) vbase = zero;
    if (!abase) abase = zero;
    /* spatial (w; velocity of the body point at the origin) = (w; u); the
     * spatial acceleration's linear part is the origin's acceleration less w x u */
    double *v0 = w->vel, *a0 = w->acc, t[3];
    v0[0] = vbase[3], v0[1] = vbase[4], v0[2] = vbase[5];
    v0[3] = vbase[0], v0[4] = vbase[1], v0[5] = vbase[2];
    kg_vec3_cross(t, vbase + 3, vbase);
    a0[0] = abase[3], a0[1] = abase[4], a0[2] = abase[5];
    for (int e = 0; e < 3; e++) a0[3 + e] = abase[e] - t[e] - g[e];
    body_force(w->frc, w->rb, v0, a0, 1);
    if (fext) dyn_body_fext(w, 0, fext, w->frc);
    rnea_forward(m, w, v, a, fext, 1);
    rnea_backward(m, w, tau, 1);
    const double *f0 = w->frc; /* (moment; force) here, (force; moment) in the API */
    if (fbase)
        for (int e = 0; e < 3; e++) fbase[e] = f0[3 + e], fbase[3 + e] = f0[e];
}

void kg_dyn_gravity(const kg_model *m, kg_dyn *w, const kg_dyn_options *opt, double *tau) {
    kg_dyn_rnea(m, w, opt, NULL, NULL, NULL, tau);
}

void kg_dyn_bias(const kg_model *m, kg_dyn *w, const kg_dyn_options *opt, const double *v, double *tau) {
    kg_dyn_rnea(m, w, opt, v, NULL, NULL, tau);
}
