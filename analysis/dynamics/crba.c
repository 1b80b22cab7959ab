/* The joint-space mass matrix by the composite-rigid-body algorithm
 * (Featherstone 6.2): each subtree's inertia as one rigid body, then for each
 * coordinate the force its unit acceleration needs, carried up to the root,
 * projected on every ancestor coordinate. Also used by centroidal.c. */
#include <string.h>

#include "analysis/dynamics/internal.h"

/* w->comp: the inertia of the subtree below each link, about its origin. */
void dyn_composite(const kg_model *m, kg_dyn *w) {
    memcpy(w->comp, w->rb, RB_SIZE * (size_t)m->nlink * sizeof *w->comp);
    for (int i = m->nlink - 1; i >= 1; i--)
        rb_add_shifted(w->comp + RB_SIZE * m->link[i].parent, w->comp + RB_SIZE * i, w->r + 3 * i);
}

static inline double dot6(const double *a, const double *b) {
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2] + a[3] * b[3] + a[4] * b[4] + a[5] * b[5];
}

void kg_dyn_crba(const kg_model *m, kg_dyn *w, double *M) {
    const int n = m->nv;
    dyn_composite(m, w);
    memset(M, 0, (size_t)n * n * sizeof *M);
    for (int i = m->nlink - 1; i >= 1; i--) {
        const kg_joint *J = &m->joint[w->joint_link[i]];
        for (int c = 0; c < J->nv; c++) {
            const int col = J->vadr + c;
            double F[6];
            rb_apply(F, w->comp + RB_SIZE * i, w->S + 6 * col);
            for (int c2 = 0; c2 <= c; c2++) {
                const double x = dot6(w->S + 6 * (J->vadr + c2), F);
                M[(size_t)col * n + J->vadr + c2] = M[(size_t)(J->vadr + c2) * n + col] = x;
            }
            /* up the tree: the same force, moved to each ancestor's origin */
            for (int k = i; m->link[k].parent > 0;) {
                double Fp[6] = {0, 0, 0, 0, 0, 0};
                sv_force_add_shifted(Fp, F, w->r + 3 * k);
                memcpy(F, Fp, sizeof F);
                k = m->link[k].parent;
                const kg_joint *A = &m->joint[w->joint_link[k]];
                for (int c2 = 0; c2 < A->nv; c2++) {
                    const double x = dot6(w->S + 6 * (A->vadr + c2), F);
                    M[(size_t)col * n + A->vadr + c2] = M[(size_t)(A->vadr + c2) * n + col] = x;
                }
            }
        }
    }
}
