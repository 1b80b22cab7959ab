/* Forward dynamics by the articulated-body algorithm (Featherstone 7.3): O(n),
 * no mass matrix. Pass 1 the velocities; pass 2, leaves to root, each link's
 * articulated inertia and bias force with its joint's freedom taken out; pass
 * 3, root to leaves, the accelerations. Articulated inertias are full
 * symmetric 6x6 matrices (row-major, angular rows and columns first). */
#include <string.h>

#include "analysis/dynamics/internal.h"

/* The 6x6 form of a rigid-body inertia: [[I, [h]x], [[h]x^T, m E]]. */
static void rb_to_matrix(double *A, const double *rb) {
    const double m = rb[RB_M], *h = rb + RB_H, *I = rb + RB_I;
    double H[9];
    kg_mat3_skew(H, h);
    memset(A, 0, 36 * sizeof *A);
    for (int a = 0; a < 3; a++)
        for (int b = 0; b < 3; b++) {
            A[6 * a + b] = I[3 * a + b];
            A[6 * a + 3 + b] = H[3 * a + b];
            A[6 * (3 + b) + a] = H[3 * a + b];
        }
    A[21] = A[28] = A[35] = m;
}

/* P += X^T A X, X the motion shift by r (child's origin = parent's + r):
 * with A = [[A, B], [B^T, C]] and R = [r]x, the blocks become
 * A + R B^T + (R B^T)^T - R C R, B + R C, C. */
static void articulated_add_shifted(double *P, const double *A, const double r[3]) {
    double R[9], B[9], Bt[9], C[9], RC[9], RBt[9], RCR[9];
    kg_mat3_skew(R, r);
    for (int a = 0; a < 3; a++)
        for (int b = 0; b < 3; b++) {
            B[3 * a + b] = A[6 * a + 3 + b];
            Bt[3 * b + a] = A[6 * a + 3 + b];
            C[3 * a + b] = A[6 * (3 + a) + 3 + b];
        }
    kg_mat3_mul(RC, R, C);
    kg_mat3_mul(RBt, R, Bt);
    kg_mat3_mul(RCR, RC, R);
    for (int a = 0; a < 3; a++)
        for (int b = 0; b < 3; b++) {
            const double nb = B[3 * a + b] + RC[3 * a + b];
            P[6 * a + b] += A[6 * a + b] + RBt[3 * a + b] + RBt[3 * b + a] - RCR[3 * a + b];
            P[6 * a + 3 + b] += nb;
            P[6 * (3 + b) + a] += nb;
            P[6 * (3 + a) + 3 + b] += C[3 * a + b];
        }
}

/* Dinv = D^-1 for a symmetric positive semi-definite n x n D (n <= 6), by
 * LDL^T; a pivot below 1e-12 of the largest diagonal counts as zero and its
 * direction is dropped (inverse pivot 0). Returns 1 when that happened. */
static int sym_inverse(const double *D, int n, double *Dinv) {
    double L[36], d[6], scale = 0;
    int singular = 0;
    for (int k = 0; k < n; k++) scale = D[n * k + k] > scale ? D[n * k + k] : scale;
    for (int k = 0; k < n; k++) {
        double s = D[n * k + k];
        for (int p = 0; p < k; p++) s -= L[n * k + p] * L[n * k + p] * d[p];
        d[k] = s;
        if (!(d[k] > 1e-12 * scale) || !(scale > 0)) d[k] = 0, singular = 1;
        L[n * k + k] = 1;
        for (int i = k + 1; i < n; i++) {
            double x = D[n * i + k];
            for (int p = 0; p < k; p++) x -= L[n * i + p] * L[n * k + p] * d[p];
            L[n * i + k] = d[k] != 0 ? x / d[k] : 0;
        }
    }
    /* columns of L^-T diag(1/d) L^-1: solve L y = e_c, then L^T x = y / d */
    for (int c = 0; c < n; c++) {
        double y[6];
        for (int i = 0; i < n; i++) {
            double s = i == c;
            for (int p = 0; p < i; p++) s -= L[n * i + p] * y[p];
            y[i] = s;
        }
        for (int i = n - 1; i >= 0; i--) {
            double s = d[i] != 0 ? y[i] / d[i] : 0;
            for (int p = i + 1; p < n; p++) s -= L[n * p + i] * Dinv[n * p + c];
            Dinv[n * i + c] = s;
        }
    }
    return singular;
}

/* Pass 2 for link i moved by joint J: U, D^-1 and D^-1 u stored, and the
 * articulated inertia and bias force handed to the parent. */
static int aba_link(const kg_model *m, kg_dyn *w, int i, const kg_joint *J, const double *tau) {
    double *IA = w->IA + 36 * i, *pA = w->pA + 6 * i, Ia[36], pa[6];
    const int n = J->nv;
    int singular = 0;
    memcpy(Ia, IA, sizeof Ia);
    memcpy(pa, pA, sizeof pa);
    if (n > 0) {
        double *U = w->U + 6 * J->vadr, *Dinv = w->Dinv + 6 * J->vadr, D[36], u[6], du[6];
        const double *S = w->S + 6 * J->vadr, *c = w->c + 6 * i;
        for (int k = 0; k < n; k++)
            for (int e = 0; e < 6; e++) {
                double s = 0;
                for (int f = 0; f < 6; f++) s += IA[6 * e + f] * S[6 * k + f];
                U[6 * k + e] = s;
            }
        for (int k = 0; k < n; k++) {
            double s = tau ? tau[J->vadr + k] : 0;
            for (int e = 0; e < 6; e++) s -= S[6 * k + e] * pA[e];
            u[k] = s;
            for (int l = 0; l < n; l++) {
                double x = 0;
                for (int e = 0; e < 6; e++) x += S[6 * k + e] * U[6 * l + e];
                D[n * k + l] = x;
            }
        }
        singular = sym_inverse(D, n, Dinv);
        for (int k = 0; k < n; k++) {
            double s = 0;
            for (int l = 0; l < n; l++) s += Dinv[n * k + l] * u[l];
            du[k] = w->u[J->vadr + k] = s;
        }
        /* Ia = IA - U D^-1 U^T; pa = pA + Ia c + U D^-1 u */
        for (int k = 0; k < n; k++)
            for (int l = 0; l < n; l++) {
                const double x = Dinv[n * k + l];
                for (int e = 0; e < 6; e++)
                    for (int f = 0; f < 6; f++) Ia[6 * e + f] -= U[6 * k + e] * x * U[6 * l + f];
            }
        for (int e = 0; e < 6; e++) {
            double s = 0;
            for (int f = 0; f < 6; f++) s += Ia[6 * e + f] * c[f];
            for (int k = 0; k < n; k++) s += U[6 * k + e] * du[k];
            pa[e] += s;
        }
    }
    const int p = m->link[i].parent;
    if (p > 0) {
        articulated_add_shifted(w->IA + 36 * p, Ia, w->r + 3 * i);
        sv_force_add_shifted(w->pA + 6 * p, pa, w->r + 3 * i);
    }
    return singular;
}

/* Pass 1: velocities, velocity-product accelerations, rigid inertias and bias forces. */
static void aba_velocities(const kg_model *m, kg_dyn *w, const double *v, const double *fext) {
    sv_zero(w->vel);
    for (int i = 1; i < m->nlink; i++) {
        const int p = m->link[i].parent, j = w->joint_link[i];
        double *vi = w->vel + 6 * i, *ci = w->c + 6 * i, *pA = w->pA + 6 * i;
        const double *rb = w->rb + RB_SIZE * i;
        sv_motion_shift(vi, w->vel + 6 * p, w->r + 3 * i);
        sv_zero(ci);
        if (v && m->joint[j].nv > 0) {
            double vJ[6];
            dyn_joint_velocity(m, w, j, vi, v + m->joint[j].vadr, vJ, ci);
            for (int e = 0; e < 6; e++) vi[e] += vJ[e];
        }
        rb_to_matrix(w->IA + 36 * i, rb);
        sv_zero(pA);
        if (v) {
            double h[6];
            rb_apply(h, rb, vi);
            sv_cross_force_add(pA, vi, h);
        }
        if (fext) {
            const double *fe = fext + 6 * i;
            pA[0] -= fe[3], pA[1] -= fe[4], pA[2] -= fe[5];
            pA[3] -= fe[0], pA[4] -= fe[1], pA[5] -= fe[2];
        }
    }
}

int kg_dyn_aba(const kg_model *m, kg_dyn *w, const kg_dyn_options *opt, const double *v, const double *tau,
               const double *fext, double *a) {
    const double *g = dyn_options(opt)->gravity;
    aba_velocities(m, w, v, fext);
    int singular = 0;
    for (int i = m->nlink - 1; i >= 1; i--) singular += aba_link(m, w, i, &m->joint[w->joint_link[i]], tau);
    /* pass 3 */
    sv_zero(w->acc);
    w->acc[3] = -g[0], w->acc[4] = -g[1], w->acc[5] = -g[2];
    for (int i = 1; i < m->nlink; i++) {
        const kg_joint *J = &m->joint[w->joint_link[i]];
        double *ai = w->acc + 6 * i;
        const double *ci = w->c + 6 * i;
        sv_motion_shift(ai, w->acc + 6 * m->link[i].parent, w->r + 3 * i);
        for (int e = 0; e < 6; e++) ai[e] += ci[e];
        const int n = J->nv;
        if (n == 0) continue;
        const double *U = w->U + 6 * J->vadr, *Dinv = w->Dinv + 6 * J->vadr, *S = w->S + 6 * J->vadr;
        double Ua[6];
        for (int k = 0; k < n; k++) {
            double s = 0;
            for (int e = 0; e < 6; e++) s += U[6 * k + e] * ai[e];
            Ua[k] = s;
        }
        for (int k = 0; k < n; k++) {
            double s = w->u[J->vadr + k];
            for (int l = 0; l < n; l++) s -= Dinv[n * k + l] * Ua[l];
            a[J->vadr + k] = s;
        }
        for (int k = 0; k < n; k++)
            for (int e = 0; e < 6; e++) ai[e] += S[6 * k + e] * a[J->vadr + k];
    }
    return singular;
}
