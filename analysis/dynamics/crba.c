/* The joint-space mass matrix by the composite-rigid-body algorithm
 * (Featherstone 6.2): each subtree's inertia as one rigid body, then for each
 * coordinate the force its unit acceleration needs, carried up to the root,
 * projected on every ancestor coordinate. Also used by centroidal.c. */
#include <string.h>

#include "analysis/dynamics/internal.h"

/* w->comp: the inertia of the subtree below each body, about its origin. */
void dyn_composite(const kg_model *m, kg_dyn *w) {
    for (int b = 0; b < w->nbody; b++) {
        const int i = w->body[b];
        memcpy(w->comp + RB_SIZE * i, w->rb + RB_SIZE * i, RB_SIZE * sizeof *w->comp);
    }
    for (int b = w->nbody - 1; b >= 1; b--) {
        const int i = w->body[b];
        rb_add_shifted(w->comp + RB_SIZE * w->bparent[i], w->comp + RB_SIZE * i, w->r + 3 * i);
    }
}

/* The projection of the force F on the columns of body k's joint, into column
 * col of M (both triangles): the entries M[col, k's coordinates]. */
static inline void project(const kg_model *m, const kg_dyn *w, int k, const double F[6], double *restrict M, int col) {
    const int n = m->nv, va = w->vadr[k];
    const double *S = w->S + 6 * va;
    switch (w->kind[k]) {
    case DYN_REVOLUTE:
        M[(size_t)col * n + va] = M[(size_t)va * n + col] = S[0] * F[0] + S[1] * F[1] + S[2] * F[2];
        break;
    case DYN_PRISMATIC:
        M[(size_t)col * n + va] = M[(size_t)va * n + col] = S[3] * F[3] + S[4] * F[4] + S[5] * F[5];
        break;
    default:
        for (int c2 = 0; c2 < m->joint[w->joint_link[k]].nv; c2++) {
            const double *s = S + 6 * c2;
            const double x = s[0] * F[0] + s[1] * F[1] + s[2] * F[2] + s[3] * F[3] + s[4] * F[4] + s[5] * F[5];
            M[(size_t)col * n + va + c2] = M[(size_t)(va + c2) * n + col] = x;
        }
    }
}

void kg_dyn_crba(const kg_model *m, kg_dyn *w, double *M) {
    const int n = m->nv;
    dyn_composite(m, w);
    memset(M, 0, (size_t)n * n * sizeof *M);
    for (int b = w->nbody - 1; b >= 1; b--) {
        const int i = w->body[b];
        const kg_joint *J = &m->joint[w->joint_link[i]];
        for (int c = 0; c < J->nv; c++) {
            const int col = J->vadr + c;
            double F[6];
            rb_apply(F, w->comp + RB_SIZE * i, w->S + 6 * col);
            /* the joint's own block (its lower triangle and diagonal; the rest by symmetry) */
            for (int c2 = 0; c2 <= c; c2++) {
                const double *s = w->S + 6 * (J->vadr + c2);
                const double x = s[0] * F[0] + s[1] * F[1] + s[2] * F[2] + s[3] * F[3] + s[4] * F[4] + s[5] * F[5];
                M[(size_t)col * n + J->vadr + c2] = M[(size_t)(J->vadr + c2) * n + col] = x;
            }
            /* up the tree: the same force, moved to each ancestor's origin (in place:
             * the moment's shift reads only the force part, which stays) */
            for (int k = i; w->bparent[k] > 0;) {
                const double *r = w->r + 3 * k;
                F[0] += r[1] * F[5] - r[2] * F[4];
                F[1] += r[2] * F[3] - r[0] * F[5];
                F[2] += r[0] * F[4] - r[1] * F[3];
                k = w->bparent[k];
                project(m, w, k, F, M, col);
            }
        }
    }
}
