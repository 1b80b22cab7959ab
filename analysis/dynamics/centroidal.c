/* Centre of mass and centroidal momentum (Orin and Goswami). The momentum of
 * the whole body is the sum over joints of the momentum each joint's motion
 * gives the subtree it carries (its composite inertia times S qdot), so the
 * centroidal momentum matrix is CRBA's composite forces moved to the COM. */
#include <math.h>

#include "analysis/dynamics/internal.h"

void kg_dyn_centroidal(const kg_model *m, kg_dyn *w, const double *v, double *mass, double com[3], double h[6],
                       double *AG) {
    dyn_composite(m, w);
    const double *all = w->comp; /* the whole tree about the root's origin */
    const double M = all[RB_M];
    double G[3];
    for (int a = 0; a < 3; a++) G[a] = M > 0 ? w->pos[a] + all[RB_H + a] / M : NAN;
    if (mass) *mass = M;
    if (com) kg_vec3_copy(com, G);
    if (h)
        for (int e = 0; e < 6; e++) h[e] = 0;
    const int n = m->nv;
    for (int i = 1; i < m->nlink; i++) {
        const kg_joint *J = &m->joint[w->joint_link[i]];
        double r[3]; /* from the COM to this link's origin */
        for (int a = 0; a < 3; a++) r[a] = M > 0 ? w->pos[3 * i + a] - G[a] : 0;
        for (int c = 0; c < J->nv; c++) {
            const int col = J->vadr + c;
            double F[6], Fg[6] = {0, 0, 0, 0, 0, 0};
            rb_apply(F, w->comp + RB_SIZE * i, w->S + 6 * col);
            sv_force_add_shifted(Fg, F, r);
            if (AG)
                for (int e = 0; e < 3; e++) AG[(size_t)e * n + col] = Fg[3 + e], AG[(size_t)(3 + e) * n + col] = Fg[e];
            if (h && v)
                for (int e = 0; e < 3; e++) h[e] += Fg[3 + e] * v[col], h[3 + e] += Fg[e] * v[col];
        }
    }
}
