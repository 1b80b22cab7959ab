/* Inverse dynamics by the recursive Newton-Euler algorithm (Featherstone,
 * Rigid Body Dynamics Algorithms, 5.3), and the gravity and bias torques as
 * its special cases. Gravity enters as an upward acceleration of the static
 * root (a_0 = -g), so every link's force already includes its weight. */
#include "analysis/dynamics/internal.h"

/* Forward pass: every link's velocity and acceleration, then the force its
 * motion needs (I a + v x* I v) less the external wrench on it. */
static void rnea_forward(const kg_model *m, kg_dyn *w, const double g[3], const double *v, const double *a,
                         const double *fext) {
    sv_zero(w->vel);
    sv_zero(w->acc);
    w->acc[3] = -g[0], w->acc[4] = -g[1], w->acc[5] = -g[2];
    for (int i = 1; i < m->nlink; i++) {
        const int p = m->link[i].parent, j = w->joint_link[i];
        double *vi = w->vel + 6 * i, *ai = w->acc + 6 * i, *fi = w->frc + 6 * i;
        const double *r = w->r + 3 * i, *rb = w->rb + RB_SIZE * i;
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
        rb_apply(fi, rb, ai);
        if (v) {
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
}

void kg_dyn_rnea(const kg_model *m, kg_dyn *w, const kg_dyn_options *opt, const double *v, const double *a,
                 const double *fext, double *tau) {
    rnea_forward(m, w, dyn_options(opt)->gravity, v, a, fext);
    /* backward pass: each joint carries the forces of the links below it */
    for (int i = m->nlink - 1; i >= 1; i--) {
        const kg_joint *J = &m->joint[w->joint_link[i]];
        const double *fi = w->frc + 6 * i, *S = w->S + 6 * J->vadr;
        for (int c = 0; c < J->nv; c++) {
            const double *s = S + 6 * c;
            tau[J->vadr + c] = s[0] * fi[0] + s[1] * fi[1] + s[2] * fi[2] + s[3] * fi[3] + s[4] * fi[4] + s[5] * fi[5];
        }
        const int p = m->link[i].parent;
        if (p > 0) sv_force_add_shifted(w->frc + 6 * p, fi, w->r + 3 * i);
    }
}

void kg_dyn_gravity(const kg_model *m, kg_dyn *w, const kg_dyn_options *opt, double *tau) {
    kg_dyn_rnea(m, w, opt, NULL, NULL, NULL, tau);
}

void kg_dyn_bias(const kg_model *m, kg_dyn *w, const kg_dyn_options *opt, const double *v, double *tau) {
    kg_dyn_rnea(m, w, opt, v, NULL, NULL, tau);
}
