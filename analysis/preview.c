#include "analysis/preview.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* 4x4 helpers, row-major */
static void mul4(double *o, const double *a, const double *b) {
    for (int i = 0; i < 4; i++)
        for (int j = 0; j < 4; j++) {
            double s = 0;
            for (int k = 0; k < 4; k++) s += a[4 * i + k] * b[4 * k + j];
            o[4 * i + j] = s;
        }
}

static void transpose4(double *o, const double *a) {
    for (int i = 0; i < 4; i++)
        for (int j = 0; j < 4; j++) o[4 * j + i] = a[4 * i + j];
}

static void vec4(double *o, const double *M, const double *v) {
    for (int i = 0; i < 4; i++) o[i] = M[4 * i] * v[0] + M[4 * i + 1] * v[1] + M[4 * i + 2] * v[2] + M[4 * i + 3] * v[3];
}

/* The gains for ZMP output p + d du (d = 0: the cart-table ZMP of the state). */
static int init(kg_preview *p, double dt, double zc, double g, double q, double r, int n, double d) {
    memset(p, 0, sizeof *p);
    p->dt = dt, p->zc = zc, p->g = g, p->q = q, p->r = r, p->n = n;
    double A[9] = {1, dt, dt * dt / 2, 0, 1, dt, 0, 0, 1}, b[3] = {dt * dt * dt / 6, dt * dt / 2, dt},
           c[3] = {1, 0, -zc / g};
    memcpy(p->A, A, sizeof A), memcpy(p->b, b, sizeof b), memcpy(p->c, c, sizeof c);
    /* the extended system: At = [[1, cA], [0, A]], bt = [cb; b], ct = [1 0 0 0] */
    double At[16] = {0}, bt[4];
    At[0] = 1;
    for (int j = 0; j < 3; j++) At[1 + j] = c[0] * A[j] + c[1] * A[3 + j] + c[2] * A[6 + j];
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++) At[4 * (1 + i) + 1 + j] = A[3 * i + j];
    bt[0] = c[0] * b[0] + c[1] * b[1] + c[2] * b[2];
    for (int i = 0; i < 3; i++) bt[1 + i] = b[i];
    /* Riccati iteration from P = 0 (irteus), with the output's feedthrough d
     * (a cross term q d ct in the cost): s = r + q d^2 + bt'P bt,
     * K = s^-1 (bt'P At + q d ct), P <- At'P At + ct'q ct - (At'P bt + ct'q d) K */
    double P[16] = {0}, AtT[16], K[4] = {0};
    transpose4(AtT, At);
    int converged = 0;
    for (int it = 0; it < 100000 && !converged; it++) {
        double Pb[4], PA[16], APA[16], tmp[16];
        vec4(Pb, P, bt);
        double s = r + q * d * d;
        for (int i = 0; i < 4; i++) s += bt[i] * Pb[i];
        mul4(PA, P, At);
        for (int j = 0; j < 4; j++) {
            double v = j == 0 ? q * d : 0;
            for (int i = 0; i < 4; i++) v += bt[i] * PA[4 * i + j];
            K[j] = v / s;
        }
        mul4(tmp, AtT, P);
        mul4(APA, tmp, At);
        double APb[4];
        vec4(APb, AtT, Pb);
        APb[0] += q * d;
        double change = 0, size = 0;
        for (int i = 0; i < 4; i++)
            for (int j = 0; j < 4; j++) {
                double v = APA[4 * i + j] + (i == 0 && j == 0 ? q : 0) - APb[i] * K[j];
                change = fmax(change, fabs(v - P[4 * i + j]));
                size = fmax(size, fabs(v));
                P[4 * i + j] = v;
            }
        converged = it > 10 && change <= 1e-13 * size;
    }
    if (!converged) return -1;
    memcpy(p->K, K, sizeof K);
    /* preview gains: f_0 = s^-1 q d on the current reference, f_j = s^-1 bt'
     * (At - bt K)'^(j-1) (ct - d K)' q (j < n), and f_n the same on the sum of
     * the powers from n - 1 on (the references held beyond the horizon; with
     * d = 0 the sum is P ct', irteus's form) */
    p->f = malloc((size_t)(n > 0 ? n : 1) * sizeof *p->f);
    if (!p->f) return -2; /* out of memory */
    double Ac[16], AcT[16], Pb[4];
    for (int i = 0; i < 4; i++)
        for (int j = 0; j < 4; j++) Ac[4 * i + j] = At[4 * i + j] - bt[i] * K[j];
    transpose4(AcT, Ac);
    vec4(Pb, P, bt);
    double s = r + q * d * d;
    for (int i = 0; i < 4; i++) s += bt[i] * Pb[i];
    p->f0 = q * d / s;
    double v[4], w[4];
    for (int i = 0; i < 4; i++) v[i] = ((i == 0) - d * K[i]) * q;
    memcpy(w, v, sizeof w); /* w = v + Ac' w, to convergence (Ac is stable) */
    for (int it = 0; it < 100000; it++) {
        double t[4], change = 0, size = 0;
        vec4(t, AcT, w);
        for (int i = 0; i < 4; i++) {
            t[i] += v[i];
            change = fmax(change, fabs(t[i] - w[i])), size = fmax(size, fabs(t[i]));
        }
        memcpy(w, t, sizeof w);
        if (change <= 1e-14 * size) break;
    }
    for (int j = 1; j <= n; j++) {
        const double *x = j < n ? v : w;
        double dot = 0;
        for (int i = 0; i < 4; i++) dot += bt[i] * x[i];
        p->f[j - 1] = dot / s;
        double t[4];
        vec4(t, AcT, v), memcpy(v, t, sizeof t);
        vec4(t, AcT, w), memcpy(w, t, sizeof t);
    }
    return 0;
}

int kg_preview_init(kg_preview *p, double dt, double zc, double g, double q, double r, int n) {
    return init(p, dt, zc, g, q, r, n, 0);
}

int kg_preview_init_sampled(kg_preview *p, double dt, double zc, double g, double q, double r, int n) {
    return init(p, dt, zc, g, q, r, n, -zc * dt / (6 * g));
}

void kg_preview_free(kg_preview *p) {
    free(p->f);
    p->f = NULL;
}

/* A state at c moving with velocity v and acceleration acc (constant before). */
static void start_at(const kg_preview *p, kg_preview_axis *a, double c, double v, double acc) {
    memset(a, 0, sizeof *a);
    a->x[0] = c, a->x[1] = v, a->x[2] = acc;
    a->dx[0] = v * p->dt, a->dx[1] = acc * p->dt;
    a->zmp = p->c[0] * c + p->c[1] * v + p->c[2] * acc;
}

void kg_preview_axis_start(const kg_preview *p, kg_preview_axis *a, double c) { start_at(p, a, c, 0, 0); }

void kg_preview_axis_start_moving(const kg_preview *p, kg_preview_axis *a, double c, const double *refs, int m) {
    /* the ZMPs over the steps are affine in (v, acc): simulated from (0, 0),
     * (1, 0) and (0, 1), then the 2 x 2 normal equations */
    double ata[3] = {0, 0, 0}, atb[2] = {0, 0};
    kg_preview_axis s[3];
    start_at(p, &s[0], c, 0, 0), start_at(p, &s[1], c, 1, 0), start_at(p, &s[2], c, 0, 1);
    for (int k = 0; k <= m; k++) {
        double z0 = s[0].zmp, gv = s[1].zmp - z0, ga = s[2].zmp - z0, e = refs[k] - z0;
        ata[0] += gv * gv, ata[1] += gv * ga, ata[2] += ga * ga;
        atb[0] += gv * e, atb[1] += ga * e;
        if (k < m)
            for (int i = 0; i < 3; i++) kg_preview_axis_step(p, &s[i], refs + k);
    }
    double det = ata[0] * ata[2] - ata[1] * ata[1], v = 0, acc = 0;
    if (det > 1e-12 * (ata[0] * ata[2]) && det > 0) {
        v = (atb[0] * ata[2] - atb[1] * ata[1]) / det;
        acc = (ata[0] * atb[1] - ata[1] * atb[0]) / det;
    }
    start_at(p, a, c, v, acc);
}

void kg_preview_axis_step(const kg_preview *p, kg_preview_axis *a, const double *p_ref) {
    /* du = sum_j f_j p_ref[j] - K x*, x* = (p, dx) */
    double du = -(p->K[0] * a->zmp + p->K[1] * a->dx[0] + p->K[2] * a->dx[1] + p->K[3] * a->dx[2]) + p->f0 * p_ref[0];
    for (int j = 1; j <= p->n; j++) du += p->f[j - 1] * p_ref[j];
    /* x*_{k+1} = At x* + bt du: the new dx = A dx + b du; p follows from x */
    double ndx[3];
    for (int i = 0; i < 3; i++)
        ndx[i] = p->A[3 * i] * a->dx[0] + p->A[3 * i + 1] * a->dx[1] + p->A[3 * i + 2] * a->dx[2] + p->b[i] * du;
    for (int i = 0; i < 3; i++) {
        a->dx[i] = ndx[i];
        a->x[i] += ndx[i];
    }
    a->zmp = p->c[0] * a->x[0] + p->c[1] * a->x[1] + p->c[2] * a->x[2];
}
