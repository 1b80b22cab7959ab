/* Velocities and accelerations of a motion's frames by finite differences
 * (the stencils: torques.h, kg_motion_rates). */
#include <string.h>

#include "kinegraph/torques.h"
#include "core/spatial.h"

/* The stencil at frame f of n: offsets and weights for x' h and x'' h^2. */
static int stencil(int f, int n, int off[4], double wv[4], double wa[4]) {
    if (n < 2) return 0;
    if (n == 2) {
        off[0] = -f, off[1] = 1 - f;
        wv[0] = -1, wv[1] = 1, wa[0] = wa[1] = 0;
        return 2;
    }
    if (f > 0 && f < n - 1) {
        off[0] = -1, off[1] = 0, off[2] = 1;
        wv[0] = -0.5, wv[1] = 0, wv[2] = 0.5;
        wa[0] = 1, wa[1] = -2, wa[2] = 1;
        return 3;
    }
    const int s = f == 0 ? 1 : -1; /* towards the inside */
    const int k = n >= 4 ? 4 : 3;
    for (int j = 0; j < k; j++) off[j] = s * j;
    /* first derivative: -+(3 x0 - 4 x1 + x2) / 2h, i.e. s * (-1.5, 2, -0.5) */
    wv[0] = -1.5 * s, wv[1] = 2.0 * s, wv[2] = -0.5 * s;
    if (k == 4) wv[3] = 0, wa[0] = 2, wa[1] = -5, wa[2] = 4, wa[3] = -1;
    else wa[0] = 1, wa[1] = -2, wa[2] = 1;
    return k;
}

void kg_motion_rates(const kg_model *m, const kg_motion *mo, int f, double vbase[6], double abase[6], double *v,
                     double *a) {
    int off[4];
    double wv[4], wa[4];
    const int k = stencil(f, mo->nframes, off, wv, wa);
    const double h = mo->frame_time;
    memset(v, 0, (size_t)m->nv * sizeof *v);
    memset(a, 0, (size_t)m->nv * sizeof *a);
    memset(vbase, 0, 6 * sizeof *vbase);
    memset(abase, 0, 6 * sizeof *abase);
    if (k == 0 || !(h > 0)) return;
    for (int j = 0; j < m->njoint; j++) {
        const kg_joint *J = &m->joint[j];
        for (int c = 0; c < J->nv && c < J->nq; c++)
            for (int s = 0; s < k; s++) {
                const double x = mo->q[(size_t)(f + off[s]) * mo->nq + J->qadr + c];
                v[J->vadr + c] += wv[s] * x / h;
                a[J->vadr + c] += wa[s] * x / (h * h);
            }
    }
    if (!mo->base) return;
    double Rf[9];
    kg_rot_from_quat(Rf, mo->base + 7 * (size_t)f + 3);
    for (int s = 0; s < k; s++) {
        const double *b = mo->base + 7 * (size_t)(f + off[s]);
        double R[9], D[9], phi[3];
        kg_rot_from_quat(R, b + 3);
        kg_mat3_mul_bt(D, R, Rf); /* R_j R_f^T */
        kg_rot_log(D, phi);
        for (int e = 0; e < 3; e++) {
            vbase[e] += wv[s] * b[e] / h, abase[e] += wa[s] * b[e] / (h * h);
            vbase[3 + e] += wv[s] * phi[e] / h, abase[3 + e] += wa[s] * phi[e] / (h * h);
        }
    }
}
