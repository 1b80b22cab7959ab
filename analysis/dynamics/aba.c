/* Forward dynamics by the articulated-body algorithm (Featherstone 7.3): O(n),
 * no mass matrix. Pass 1 the velocities; pass 2, leaves to root, each body's
 * articulated inertia and bias force with its joint's freedom taken out; pass
 * 3, root to leaves, the accelerations.
 *
 * Articulated inertias are kept as their 21 distinct entries (ai.h). Joints
 * with several columns (floating, planar, compound) go through a dense 6x6
 * copy. */
#include <string.h>

#include "analysis/dynamics/ai.h"

/* The dense 6x6 (row-major) of X, and back (the upper triangle read). */
static void ai_to_dense(double *restrict D, const double *restrict X) {
    for (int a = 0; a < 3; a++)
        for (int b = 0; b < 3; b++) {
            D[6 * a + b] = X[AI_A + SYM[a][b]];
            D[6 * (3 + a) + 3 + b] = X[AI_C + SYM[a][b]];
            D[6 * a + 3 + b] = D[6 * (3 + b) + a] = X[AI_B + 3 * a + b];
        }
}

static void ai_from_dense(double *restrict X, const double *restrict D) {
    for (int a = 0; a < 3; a++)
        for (int b = a; b < 3; b++) X[AI_A + SYM[a][b]] = D[6 * a + b], X[AI_C + SYM[a][b]] = D[6 * (3 + a) + 3 + b];
    for (int a = 0; a < 3; a++)
        for (int b = 0; b < 3; b++) X[AI_B + 3 * a + b] = D[6 * a + 3 + b];
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

/* Pass 2 for a body whose joint has one column S (its U = IA S, D and D^-1 u
 * scalars): Ia = IA - U U^T / D, pa = pA + Ia c + U u / D. Returns 1 when D
 * is not positive (a massless subtree): the joint then gets no acceleration. */
static int aba_one(kg_dyn *w, int i, int col, const double *tau, double *restrict Ia, double *restrict pa) {
    const double *restrict IA = w->IA + AI_SIZE * i, *restrict pA = w->pA + 6 * i, *restrict c = w->c + 6 * i;
    const double *restrict S = w->S + 6 * col;
    double U[6], D = 0, u = tau ? tau[col] : 0; /* U local: stores to w->U would force reloads of IA */
    const double *A = IA + AI_A, *B = IA + AI_B, *C = IA + AI_C;
    switch (w->kind[i]) {
    case DYN_REVOLUTE: /* S = (s; 0): U = (A s; B^T s) */
        for (int a = 0; a < 3; a++) {
            U[a] = A[SYM[a][0]] * S[0] + A[SYM[a][1]] * S[1] + A[SYM[a][2]] * S[2];
            U[3 + a] = B[a] * S[0] + B[3 + a] * S[1] + B[6 + a] * S[2];
        }
        D = S[0] * U[0] + S[1] * U[1] + S[2] * U[2];
        u -= S[0] * pA[0] + S[1] * pA[1] + S[2] * pA[2];
        break;
    case DYN_PRISMATIC: /* S = (0; s): U = (B s; C s) */
        for (int a = 0; a < 3; a++) {
            U[a] = B[3 * a] * S[3] + B[3 * a + 1] * S[4] + B[3 * a + 2] * S[5];
            U[3 + a] = C[SYM[a][0]] * S[3] + C[SYM[a][1]] * S[4] + C[SYM[a][2]] * S[5];
        }
        D = S[3] * U[3] + S[4] * U[4] + S[5] * U[5];
        u -= S[3] * pA[3] + S[4] * pA[4] + S[5] * pA[5];
        break;
    default:
        ai_apply(U, IA, S);
        for (int e = 0; e < 6; e++) D += S[e] * U[e], u -= S[e] * pA[e];
    }
    const int singular = !(D > 0);
    const double dinv = singular ? 0 : 1 / D, du = dinv * u;
    double Ud[6];
    for (int e = 0; e < 6; e++) Ud[e] = U[e] * dinv;
    for (int a = 0; a < 3; a++) {
        for (int b = a; b < 3; b++) {
            Ia[AI_A + SYM[a][b]] = IA[AI_A + SYM[a][b]] - Ud[a] * U[b];
            Ia[AI_C + SYM[a][b]] = IA[AI_C + SYM[a][b]] - Ud[3 + a] * U[3 + b];
        }
        for (int b = 0; b < 3; b++) Ia[AI_B + 3 * a + b] = IA[AI_B + 3 * a + b] - Ud[a] * U[3 + b];
    }
    /* pa = pA + Ia c + U du, with Ia c = IA c - Ud (U . c) */
    double Ic[6];
    ai_apply(Ic, IA, c);
    const double uc = U[0] * c[0] + U[1] * c[1] + U[2] * c[2] + U[3] * c[3] + U[4] * c[4] + U[5] * c[5];
    for (int e = 0; e < 6; e++) pa[e] = pA[e] + Ic[e] - Ud[e] * uc + U[e] * du;
    memcpy(w->U + 6 * col, U, sizeof U);
    w->Dinv[6 * col] = dinv;
    w->u[col] = du;
    return singular;
}

/* Pass 2 for a body whose joint has n > 1 columns (D an n x n matrix). */
static int aba_many(kg_dyn *w, int i, const kg_joint *J, const double *tau, double *Ia, double *pa) {
    double IA[36];
    const double *pA = w->pA + 6 * i;
    ai_to_dense(IA, w->IA + AI_SIZE * i);
    const int n = J->nv;
    double *U = w->U + 6 * J->vadr, *Dinv = w->Dinv + 6 * J->vadr, D[36], u[6], du[6];
    const double *S = w->S + 6 * J->vadr, *c = w->c + 6 * i;
    memcpy(Ia, IA, 36 * sizeof *Ia);
    memcpy(pa, pA, 6 * sizeof *pa);
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
    const int singular = sym_inverse(D, n, Dinv);
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
    double X[AI_SIZE];
    ai_from_dense(X, Ia);
    memcpy(Ia, X, sizeof X);
    return singular;
}


/* Pass 2 for body i: its joint's freedom taken out of its articulated inertia
 * and bias force, which are handed to its parent. */
static int aba_body(const kg_model *m, kg_dyn *w, int i, const double *tau) {
    const kg_joint *J = &m->joint[w->joint_link[i]];
    double Ia[36], pa[6]; /* 36: aba_many's dense work; AI_SIZE used after */
    const int singular = J->nv == 1 ? aba_one(w, i, J->vadr, tau, Ia, pa) : aba_many(w, i, J, tau, Ia, pa);
    const int p = w->bparent[i];
    if (p > 0) {
        ai_add_shifted(w->IA + AI_SIZE * p, Ia, w->r + 3 * i);
        sv_force_add_shifted(w->pA + 6 * p, pa, w->r + 3 * i);
    }
    return singular;
}

/* Pass 1: velocities, velocity-product accelerations, rigid inertias and bias
 * forces (computed in locals, stored once). */
static void aba_velocities(const kg_model *m, kg_dyn *w, const double *v, const double *fext) {
    double *restrict vel = w->vel;
    sv_zero(vel);
    for (int b = 1; b < w->nbody; b++) {
        const int i = w->body[b], j = w->joint_link[i];
        const kg_joint *J = &m->joint[j];
        const double *rb = w->rb + RB_SIZE * i, *S = w->S + 6 * J->vadr;
        double V[6], C[6] = {0, 0, 0, 0, 0, 0}, P[6] = {0, 0, 0, 0, 0, 0};
        sv_motion_shift(V, vel + 6 * w->bparent[i], w->r + 3 * i);
        if (v) {
            const double qd = v[J->vadr];
            double s[3];
            switch (w->kind[i]) {
            case DYN_REVOLUTE: /* c = (w x s qd; u x s qd), then w += s qd */
                for (int e = 0; e < 3; e++) s[e] = S[e] * qd;
                kg_vec3_cross(C, V, s);
                kg_vec3_cross(C + 3, V + 3, s);
                for (int e = 0; e < 3; e++) V[e] += s[e];
                break;
            case DYN_PRISMATIC: /* c = (0; w x s qd), then u += s qd */
                for (int e = 0; e < 3; e++) s[e] = S[3 + e] * qd;
                kg_vec3_cross(C + 3, V, s);
                for (int e = 0; e < 3; e++) V[3 + e] += s[e];
                break;
            default: {
                double vJ[6];
                dyn_joint_velocity(m, w, j, V, v + J->vadr, vJ, C);
                for (int e = 0; e < 6; e++) V[e] += vJ[e];
            }
            }
            double h[6];
            rb_apply(h, rb, V);
            sv_cross_force_add(P, V, h);
        }
        if (fext) dyn_body_fext(w, i, fext, P);
        ai_from_rb(w->IA + AI_SIZE * i, rb);
        memcpy(vel + 6 * i, V, sizeof V);
        memcpy(w->c + 6 * i, C, sizeof C);
        memcpy(w->pA + 6 * i, P, sizeof P);
    }
}

int kg_dyn_aba(const kg_model *m, kg_dyn *w, const kg_dyn_options *opt, const double *v, const double *tau,
               const double *fext, double *a) {
    const double *g = dyn_options(opt)->gravity;
    aba_velocities(m, w, v, fext);
    int singular = 0;
    for (int b = w->nbody - 1; b >= 1; b--) singular += aba_body(m, w, w->body[b], tau);
    /* pass 3 */
    sv_zero(w->acc);
    w->acc[3] = -g[0], w->acc[4] = -g[1], w->acc[5] = -g[2];
    for (int b = 1; b < w->nbody; b++) {
        const int i = w->body[b];
        const kg_joint *J = &m->joint[w->joint_link[i]];
        double *ai = w->acc + 6 * i;
        const double *ci = w->c + 6 * i;
        sv_motion_shift(ai, w->acc + 6 * w->bparent[i], w->r + 3 * i);
        for (int e = 0; e < 6; e++) ai[e] += ci[e];
        const int n = J->nv;
        const double *U = w->U + 6 * J->vadr, *Dinv = w->Dinv + 6 * J->vadr, *S = w->S + 6 * J->vadr;
        if (n == 1) {
            const double x = w->u[J->vadr] -
                             Dinv[0] * (U[0] * ai[0] + U[1] * ai[1] + U[2] * ai[2] + U[3] * ai[3] + U[4] * ai[4] + U[5] * ai[5]);
            a[J->vadr] = x;
            for (int e = 0; e < 6; e++) ai[e] += S[e] * x;
            continue;
        }
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
