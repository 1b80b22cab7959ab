/* Structure changes at run time (digest 1.9-1.10): the seed's impulse
 * equations at a connection, and connect / cut on a closed chain's state.
 * The choices are documented in dynamics.h. Nothing here allocates per call:
 * kg_impulse_join works in the caller's array, the others in kg_structure. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/dynamics/internal.h"

static const kg_dyn_options no_gravity = {{0, 0, 0}};

/* ---- small dense LDL^T ---------------------------------------------------------- */

/* In place: A (n x n, symmetric positive definite) = L D L^T, L unit lower in
 * the strict lower triangle, D on the diagonal. No square roots, so a
 * diagonal A solves by plain division (the digest's impulse example exactly).
 * Returns -1 on a pivot at or below tol times the largest diagonal entry. */
static int ldl_factor(int n, double *A) {
    double dmax = 0;
    for (int j = 0; j < n; j++) dmax = fmax(dmax, fabs(A[(size_t)j * n + j]));
    for (int j = 0; j < n; j++) {
        double *Lj = A + (size_t)j * n;
        for (int k = 0; k < j; k++) Lj[j] -= Lj[k] * Lj[k] * A[(size_t)k * n + k];
        if (!(Lj[j] > 1e-13 * dmax)) return -1;
        for (int i = j + 1; i < n; i++) {
            double *Li = A + (size_t)i * n, s = Li[j];
            for (int k = 0; k < j; k++) s -= Li[k] * Lj[k] * A[(size_t)k * n + k];
            Li[j] = s / Lj[j];
        }
    }
    return 0;
}

/* x (n) = A^-1 x after ldl_factor, one right-hand side with stride inc. */
static void ldl_solve(int n, const double *L, double *x, int inc) {
    for (int i = 0; i < n; i++)
        for (int k = 0; k < i; k++) x[i * inc] -= L[(size_t)i * n + k] * x[k * inc];
    for (int i = 0; i < n; i++) x[i * inc] /= L[(size_t)i * n + i];
    for (int i = n - 1; i >= 0; i--)
        for (int k = i + 1; k < n; k++) x[i * inc] -= L[(size_t)k * n + i] * x[k * inc];
}

/* ---- the impulse equations ------------------------------------------------------- */

int kg_impulse_work(int nc, int p, int n1, int n2) {
    const int n = n1 > n2 ? n1 : n2;
    return n * n + n * nc + nc * nc + nc * p + p * p + 2 * nc + p;
}

/* B += J A^-1 J^T, J [nc x n]; Lw: n x n scratch, X: n x nc scratch. */
static int add_mobility(int nc, int n, const double *A, const double *J, double *B, double *Lw, double *X) {
    memcpy(Lw, A, (size_t)n * n * sizeof *Lw);
    if (ldl_factor(n, Lw)) return -1;
    for (int r = 0; r < nc; r++) /* column r of X = A^-1 (row r of J)^T */
        for (int i = 0; i < n; i++) X[(size_t)i * nc + r] = J[(size_t)r * n + i];
    for (int r = 0; r < nc; r++) ldl_solve(n, Lw, X + r, nc);
    for (int a = 0; a < nc; a++)
        for (int b = 0; b < nc; b++) {
            double s = 0;
            for (int i = 0; i < n; i++) s += J[(size_t)a * n + i] * X[(size_t)i * nc + b];
            B[(size_t)a * nc + b] += s;
        }
    return 0;
}

/* qd += sign A^-1 J^T F (P20: A dq = -J^T F1 for mechanism 1, +J^T F1 for 2). */
static void apply_impulse(int nc, int n, const double *A, const double *J, const double *F, double sign, double *qd,
                          double *Lw, double *x) {
    memcpy(Lw, A, (size_t)n * n * sizeof *Lw);
    ldl_factor(n, Lw); /* succeeded in add_mobility */
    for (int i = 0; i < n; i++) {
        double s = 0;
        for (int r = 0; r < nc; r++) s += J[(size_t)r * n + i] * F[r];
        x[i] = s;
    }
    ldl_solve(n, Lw, x, 1);
    for (int i = 0; i < n; i++) qd[i] += sign * x[i];
}

/* v = J1 qd1 - J2 qd2 (P28) */
static void relative_velocity(int nc, int n1, const double *J1, const double *qd1, int n2, const double *J2,
                              const double *qd2, double *v) {
    for (int r = 0; r < nc; r++) {
        double s = 0;
        for (int i = 0; i < n1; i++) s += J1[(size_t)r * n1 + i] * qd1[i];
        for (int i = 0; i < n2; i++) s -= J2[(size_t)r * n2 + i] * qd2[i];
        v[r] = s;
    }
}

/* F = B^-1 (E - C) v, qdn = (Jn^T B^-1 Jn)^-1 Jn^T B^-1 v, B factored:
 * with X = B^-1 Jn and y = B^-1 v, qdn = (Jn^T X)^-1 Jn^T y and F = y - X qdn. */
static int impulse_from_b(int nc, int p, const double *LB, const double *Jn, const double *v, double *F, double *qdn,
                          double *X, double *G) {
    memcpy(F, v, (size_t)nc * sizeof *F);
    ldl_solve(nc, LB, F, 1);
    memcpy(X, Jn, (size_t)nc * p * sizeof *X);
    for (int k = 0; k < p; k++) ldl_solve(nc, LB, X + k, p);
    for (int a = 0; a < p; a++) {
        double s = 0;
        for (int r = 0; r < nc; r++) s += Jn[(size_t)r * p + a] * F[r];
        qdn[a] = s;
        for (int b = 0; b < p; b++) {
            double g = 0;
            for (int r = 0; r < nc; r++) g += Jn[(size_t)r * p + a] * X[(size_t)r * p + b];
            G[(size_t)a * p + b] = g;
        }
    }
    if (p > 0 && ldl_factor(p, G)) return -1;
    if (p > 0) ldl_solve(p, G, qdn, 1);
    for (int r = 0; r < nc; r++)
        for (int k = 0; k < p; k++) F[r] -= X[(size_t)r * p + k] * qdn[k];
    return 0;
}

int kg_impulse_join(int nc, int p, const double *Jn, int n1, const double *A1, const double *J1, double *qd1, int n2,
                    const double *A2, const double *J2, double *qd2, double *F1, double *qdn, double *work) {
    const int n = n1 > n2 ? n1 : n2;
    double *Lw = work, *X = Lw + (size_t)n * n, *B = X + (size_t)n * nc, *Xn = B + (size_t)nc * nc,
           *G = Xn + (size_t)nc * p, *v = G + (size_t)p * p, *F = v + nc, *qn = F + nc;
    memset(B, 0, (size_t)nc * nc * sizeof *B);
    if (add_mobility(nc, n1, A1, J1, B, Lw, X)) return -1;
    if (n2 > 0 && add_mobility(nc, n2, A2, J2, B, Lw, X)) return -1;
    relative_velocity(nc, n1, J1, qd1, n2, J2, qd2, v);
    if (ldl_factor(nc, B) || impulse_from_b(nc, p, B, Jn, v, F, qn, Xn, G)) return -1;
    apply_impulse(nc, n1, A1, J1, F, -1, qd1, Lw, X);
    if (n2 > 0) apply_impulse(nc, n2, A2, J2, F, 1, qd2, Lw, X);
    if (F1) memcpy(F1, F, (size_t)nc * sizeof *F);
    if (qdn) memcpy(qdn, qn, (size_t)p * sizeof *qn);
    return 0;
}

/* ---- connect and cut on the dynamics state ---------------------------------------- */

struct kg_structure {
    int nv;
    double *M;   /* [nv x nv] CRBA */
    double *MW;  /* [nv x nv] M W, nf columns used */
    double *A;   /* [nv x nv] W^T M W, nf x nf used */
    double *x;   /* [nv] */
    double *tau; /* [nv] */
    int *loops;  /* [nloop + 1] the new loop set */
};

kg_structure *kg_structure_new(const kg_model *m) {
    kg_structure *s = calloc(1, sizeof *s);
    if (!s) return NULL;
    const size_t V = (size_t)m->nv + 1;
    s->nv = m->nv;
    s->M = calloc(V * V, sizeof *s->M);
    s->MW = calloc(V * V, sizeof *s->MW);
    s->A = calloc(V * V, sizeof *s->A);
    s->x = calloc(V, sizeof *s->x);
    s->tau = calloc(V, sizeof *s->tau);
    s->loops = calloc((size_t)m->nloop + 1, sizeof *s->loops);
    if (!s->M || !s->MW || !s->A || !s->x || !s->tau || !s->loops) { /* out of memory */
        kg_structure_free(s);
        return NULL;
    }
    return s;
}

void kg_structure_free(kg_structure *s) {
    if (!s) return;
    free(s->M), free(s->MW), free(s->A), free(s->x), free(s->tau), free(s->loops);
    free(s);
}

void kg_structure_momentum(const kg_model *m, kg_dyn *w, const kg_closed *c, kg_structure *s, const double *v,
                           double *p) {
    kg_dyn_rnea(m, w, &no_gravity, NULL, v, NULL, s->tau); /* M v: RNEA at rest with a = v */
    for (int g = 0; g < c->nf; g++) {
        double t = 0;
        for (int x = 0; x < c->nv; x++) t += c->W[(size_t)x * c->nf + g] * s->tau[x];
        p[g] = t;
    }
}

/* A = W^T M W and rhs = W^T M v (the momentum), from the CRBA. */
static void generalised_system(const kg_model *m, kg_dyn *w, const kg_closed *c, kg_structure *s, const double *v) {
    const int nv = c->nv, nf = c->nf;
    kg_dyn_crba(m, w, s->M);
    for (int i = 0; i < nv; i++)
        for (int g = 0; g < nf; g++) {
            double t = 0;
            for (int k = 0; k < nv; k++) t += s->M[(size_t)i * nv + k] * c->W[(size_t)k * nf + g];
            s->MW[(size_t)i * nf + g] = t;
        }
    for (int a = 0; a < nf; a++) {
        double r = 0;
        for (int i = 0; i < nv; i++) r += s->MW[(size_t)i * nf + a] * v[i];
        s->x[a] = r;
        for (int b = 0; b < nf; b++) {
            double t = 0;
            for (int i = 0; i < nv; i++) t += c->W[(size_t)i * nf + a] * s->MW[(size_t)i * nf + b];
            s->A[(size_t)a * nf + b] = t;
        }
    }
}

/* v = W x, x from (W^T M W) x = W^T M v; a massless direction (dropped pivot)
 * keeps its generalised velocity, read from v (theta_G rows of W are unit). */
static void project_velocity(const kg_model *m, kg_dyn *w, const kg_closed *c, kg_structure *s, double *v) {
    const int nv = c->nv, nf = c->nf;
    generalised_system(m, w, c, s, v);
    double dmax = 0;
    for (int g = 0; g < nf; g++) dmax = fmax(dmax, s->A[(size_t)g * nf + g]);
    dyn_cholesky_solve(nf, s->A, s->x, 1e-12 * dmax);
    for (int g = 0; g < nf; g++)
        if (s->A[(size_t)g * nf + g] == 0) s->x[g] = v[c->gen[g]];
    for (int i = 0; i < nv; i++) {
        double t = 0;
        for (int g = 0; g < nf; g++) t += c->W[(size_t)i * nf + g] * s->x[g];
        s->tau[i] = t;
    }
    memcpy(v, s->tau, (size_t)nv * sizeof *v);
}

static int loop_position(const kg_closed *c, int loop) {
    for (int k = 0; k < c->nloop; k++)
        if (c->loops[k] == loop) return k;
    return -1;
}

int kg_structure_connect(const kg_model *m, const kg_data *d, kg_dyn *w, kg_closed *c, kg_structure *s, int loop,
                         double *v) {
    if (loop < 0 || loop >= m->nloop) return -1;
    if (loop_position(c, loop) < 0) {
        memcpy(s->loops, c->loops, (size_t)c->nloop * sizeof *s->loops);
        s->loops[c->nloop] = loop;
        if (kg_closed_set_loops(m, c, c->nloop + 1, s->loops)) return -1;
    }
    kg_closed_update(m, d, w, c, NULL);
    project_velocity(m, w, c, s, v);
    return c->nf;
}

int kg_structure_cut(const kg_model *m, const kg_data *d, const kg_dyn *w, kg_closed *c, int loop) {
    const int k = loop_position(c, loop);
    if (k < 0) return -1;
    /* in place: loops[k..] shift down by one; set_loops memmoves onto itself */
    memmove(c->loops + k, c->loops + k + 1, (size_t)(c->nloop - k - 1) * sizeof *c->loops);
    kg_closed_set_loops(m, c, c->nloop - 1, c->loops);
    return kg_closed_update(m, d, w, c, NULL);
}
