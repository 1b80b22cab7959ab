/* Inverse dynamics by the recursive Newton-Euler algorithm (Featherstone,
 * Rigid Body Dynamics Algorithms, 5.3), and the gravity and bias torques as
 * its special cases. Gravity enters as an upward acceleration of the static
 * root (a_0 = -g), so every link's force already includes its weight. With
 * a floating root (kg_dyn_rnea_floating) the root moves as given and its own
 * force joins the backward pass: the wrench the base would need. */
#include "analysis/dynamics/internal.h"

/* The force link i's motion needs (I a + v x* I v), less the external wrench on it. */
static void link_force(kg_dyn *w, int i, int have_v, const double *fext) {
    const double *vi = w->vel + 6 * i, *ai = w->acc + 6 * i, *rb = w->rb + RB_SIZE * i;
    double *fi = w->frc + 6 * i;
    rb_apply(fi, rb, ai);
    if (have_v) {
        double h[6];
        rb_apply(h, rb, vi);
        sv_cross_force_add(fi, vi, h);
    }
    if (fext) { /* (force; moment) in the API, (moment; force) here */
        const double *fe = fext + 6 * i;
        fi[0] -= fe[3], fi[1] -= fe[4], fi[2] -= fe[5];
        fi[3] -= fe[0], fi[4] -= fe[1], fi[5] -= fe[2];
    }
}

/* Forward pass: every link's velocity and acceleration (the root's given in
 * w->vel, w->acc, gravity included), then the force each link's motion needs. */
static void rnea_forward(const kg_model *m, kg_dyn *w, const double *v, const double *a, const double *fext,
                         int have_v) {
    for (int i = 1; i < m->nlink; i++) {
        const int p = m->link[i].parent, j = w->joint_link[i];
        double *vi = w->vel + 6 * i, *ai = w->acc + 6 * i;
        const double *r = w->r + 3 * i;
        sv_motion_shift(vi, w->vel + 6 * p, r);
        sv_motion_shift(ai, w->acc + 6 * p, r);
        const kg_joint *J = &m->joint[j];
        if (J->nv > 0) {
            const double *S = w->S + 6 * J->vadr;
            if (v) {
                double vJ[6], zeta[6];
                dyn_joint_velocity(m, w, j, vi, v + J->vadr, vJ, zeta);
                for (int e = 0; e < 6; e++) vi[e] += vJ[e], ai[e] += zeta[e];
            }
            if (a)
                for (int c = 0; c < J->nv; c++)
                    for (int e = 0; e < 6; e++) ai[e] += S[6 * c + e] * a[J->vadr + c];
        }
        link_force(w, i, have_v, fext);
    }
}

/* Backward pass: each joint carries the forces of the links below it; with
 * root set, the root's own force and its children's are summed into w->frc[0]. */
static void rnea_backward(const kg_model *m, kg_dyn *w, double *tau, int root) {
    for (int i = m->nlink - 1; i >= 1; i--) {
        const kg_joint *J = &m->joint[w->joint_link[i]];
        const double *fi = w->frc + 6 * i, *S = w->S + 6 * J->vadr;
        for (int c = 0; c < J->nv; c++) {
            const double *s = S + 6 * c;
            tau[J->vadr + c] = s[0] * fi[0] + s[1] * fi[1] + s[2] * fi[2] + s[3] * fi[3] + s[4] * fi[4] + s[5] * fi[5];
        }
        const int p = m->link[i].parent;
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
    link_force(w, 0, 1, fext);
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
