/* Articulated inertias as their 21 distinct entries (internal; aba.c and
 * aba_q.c). An articulated inertia is a symmetric 6x6 [[A, B], [B^T, C]]
 * (angular rows and columns first), kept as A's and C's upper triangles and B
 * whole (AI_*): every update touches 21 numbers, not 36. */
#ifndef KG_DYN_AI_H
#define KG_DYN_AI_H

#include <string.h>

#include "analysis/dynamics/internal.h"

enum { AI_A = 0, AI_B = 6, AI_C = 15, AI_SIZE = 21 };
#ifndef KG_DYN_SYM
#define KG_DYN_SYM
/* a symmetric 3x3's upper-triangle slot of (row, column) */
static const int SYM[3][3] = {{0, 1, 2}, {1, 3, 4}, {2, 4, 5}};
#endif

/* A rigid-body inertia's: A = I, B = [h]x, C = m E. */
static inline void ai_from_rb(double *restrict X, const double *restrict rb) {
    const double m = rb[RB_M], h0 = rb[RB_H], h1 = rb[RB_H + 1], h2 = rb[RB_H + 2], *I = rb + RB_I;
    const double v[AI_SIZE] = {I[0], I[1], I[2], I[4], I[5], I[8], /* A */
                               0,    -h2,  h1,   h2,   0,    -h0, -h1, h0, 0, /* B */
                               m,    0,    0,    m,    0,    m}; /* C */
    memcpy(X, v, sizeof v);
}

/* o = X x for a spatial vector x: (A xa + B xl; B^T xa + C xl). */
static inline void ai_apply(double *restrict o, const double *restrict X, const double *restrict x) {
    const double *A = X + AI_A, *B = X + AI_B, *C = X + AI_C;
    for (int a = 0; a < 3; a++) {
        o[a] = A[SYM[a][0]] * x[0] + A[SYM[a][1]] * x[1] + A[SYM[a][2]] * x[2] + B[3 * a] * x[3] + B[3 * a + 1] * x[4] +
               B[3 * a + 2] * x[5];
        o[3 + a] = B[a] * x[0] + B[3 + a] * x[1] + B[6 + a] * x[2] + C[SYM[a][0]] * x[3] + C[SYM[a][1]] * x[4] +
                   C[SYM[a][2]] * x[5];
    }
}

/* P += X^T A X, X the motion shift by r (child's origin = parent's + r): with
 * R = [r]x the blocks become A + R B^T + (R B^T)^T - R C R, B + R C, C. R times
 * a matrix is r crossed with each of its columns; (R C) R's row a is (row a of
 * R C) x r, as R^T = -R; R C R is symmetric. */
static inline void ai_add_shifted(double *restrict P, const double *restrict X, const double r[3]) {
    const double *A = X + AI_A, *B = X + AI_B, *C = X + AI_C;
    double RC[9], RBt[9];
    for (int b = 0; b < 3; b++) { /* column b of R C (C's column b is its row b) and of R B^T (B's row b) */
        const double c0 = C[SYM[0][b]], c1 = C[SYM[1][b]], c2 = C[SYM[2][b]], *Br = B + 3 * b;
        RC[b] = r[1] * c2 - r[2] * c1, RC[3 + b] = r[2] * c0 - r[0] * c2, RC[6 + b] = r[0] * c1 - r[1] * c0;
        RBt[b] = r[1] * Br[2] - r[2] * Br[1], RBt[3 + b] = r[2] * Br[0] - r[0] * Br[2];
        RBt[6 + b] = r[0] * Br[1] - r[1] * Br[0];
    }
    for (int a = 0; a < 3; a++) {
        const double *x = RC + 3 * a, rcr[3] = {x[1] * r[2] - x[2] * r[1], x[2] * r[0] - x[0] * r[2], x[0] * r[1] - x[1] * r[0]};
        for (int b = a; b < 3; b++) P[AI_A + SYM[a][b]] += A[SYM[a][b]] + RBt[3 * a + b] + RBt[3 * b + a] - rcr[b];
        for (int b = a; b < 3; b++) P[AI_C + SYM[a][b]] += C[SYM[a][b]];
        for (int b = 0; b < 3; b++) P[AI_B + 3 * a + b] += B[3 * a + b] + RC[3 * a + b];
    }
}

#endif
