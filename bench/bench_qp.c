#include "bench_common.h" /* first: feature macros */
/* The QP solver on problems shaped like one differential-IK step of the
 * retargeter: n = 40 unknowns, 12 equality rows (feet held), 40 inequality
 * rows (collision and balance margins), bounds on 34 unknowns (joint limits;
 * the six of the floating base free). H = J'J + damping with J a random 30 x
 * 40 task Jacobian, g = -J'e for a task error e large enough that about ten
 * limits and rows bind besides the equalities. 16 random instances (fixed
 * seed), each solved cold and warm (hinted with its own active set, as
 * consecutive frames are).
 * Microseconds per solve: the minimum and median over KG_BENCH_REPS runs of
 * 200 passes over the instances. Prints JSON. usage: bench_qp */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/qp.h"

enum { N = 40, NEQ = 12, NIN = 40, NBOUNDED = 34, TASK = 30, INSTANCES = 16, PASSES = 200 };

typedef struct instance {
    double H[N * N], g[N], C[NEQ * N], d[NEQ], A[NIN * N], b[NIN], lb[N], ub[N];
    int hint[N + NEQ], nhint;
} instance;

static double gauss(uint64_t *s) { /* Box-Muller */
    double u = kg_bench_uniform(s), v = kg_bench_uniform(s);
    return sqrt(-2 * log(u + 1e-300)) * cos(2 * 3.141592653589793 * v);
}

static void make(instance *in, uint64_t *s) {
    double Jt[TASK * N], e[TASK];
    for (int i = 0; i < TASK * N; i++) Jt[i] = gauss(s);
    for (int i = 0; i < TASK; i++) e[i] = 0.2 * gauss(s); /* 0.2: ~10 inequalities bind (0.3: ~13, 1: ~22) */
    for (int i = 0; i < N; i++)
        for (int j = 0; j < N; j++) {
            double h = i == j ? 1.0 : 0; /* damping (a posture term), against J'J's diagonal of ~TASK */
            for (int k = 0; k < TASK; k++) h += Jt[k * N + i] * Jt[k * N + j];
            in->H[i * N + j] = h;
        }
    for (int i = 0; i < N; i++) {
        in->g[i] = 0;
        for (int k = 0; k < TASK; k++) in->g[i] -= Jt[k * N + i] * e[k];
        /* joint steps within +-0.05 rad; the first 6 (the base) unbounded */
        in->lb[i] = i < N - NBOUNDED ? -INFINITY : -0.05 * (1 + kg_bench_uniform(s));
        in->ub[i] = i < N - NBOUNDED ? INFINITY : 0.05 * (1 + kg_bench_uniform(s));
    }
    for (int i = 0; i < NEQ * N; i++) in->C[i] = gauss(s);
    for (int i = 0; i < NEQ; i++) in->d[i] = 0.01 * gauss(s); /* small: x = 0 nearly feasible */
    for (int i = 0; i < NIN * N; i++) in->A[i] = gauss(s);
    for (int i = 0; i < NIN; i++) in->b[i] = -0.3 * kg_bench_uniform(s); /* at x = 0: margins up to 0.3 */
    in->nhint = 0;
}

static void setup(kg_qp *p, const instance *in) {
    memset(p, 0, sizeof *p);
    p->n = N, p->H = in->H, p->g = in->g;
    p->neq = NEQ, p->C = in->C, p->d = in->d;
    p->nin = NIN, p->A = in->A, p->b = in->b;
    p->lb = in->lb, p->ub = in->ub;
}

/* Microseconds per solve over PASSES passes; warm: with each instance's hint. */
static double run(instance *ins, kg_qp_work *w, int warm, long *iterations, long *active, int *failures) {
    double x[N];
    kg_qp p;
    kg_qp_result r;
    double t0 = kg_now();
    for (int pass = 0; pass < PASSES; pass++)
        for (int k = 0; k < INSTANCES; k++) {
            setup(&p, ins + k);
            if (warm) p.hint = ins[k].hint, p.nhint = ins[k].nhint;
            kg_qp_solve(&p, x, NULL, w, &r);
            *iterations += r.iterations, *active += r.nactive, *failures += r.status != KG_QP_OK;
        }
    return (kg_now() - t0) / (PASSES * INSTANCES) * 1e6;
}

int main(void) {
    uint64_t s = KG_BENCH_SEED;
    instance *ins = malloc(INSTANCES * sizeof *ins);
    kg_qp_work *w = kg_qp_work_new(N, NEQ + NIN);
    if (!ins || !w) return 1;
    for (int k = 0; k < INSTANCES; k++) { /* each instance's own active set as its hint */
        make(ins + k, &s);
        kg_qp p;
        double x[N];
        setup(&p, ins + k);
        kg_qp_solve(&p, x, NULL, w, NULL);
        const int *idx;
        ins[k].nhint = kg_qp_active(w, &idx);
        memcpy(ins[k].hint, idx, (size_t)ins[k].nhint * sizeof *idx);
    }
    double cold[KG_BENCH_REPS], warm[KG_BENCH_REPS];
    long it[2] = {0, 0}, act[2] = {0, 0};
    int fail[2] = {0, 0};
    for (int rep = 0; rep < KG_BENCH_REPS; rep++) {
        cold[rep] = run(ins, w, 0, it, act, fail);
        warm[rep] = run(ins, w, 1, it + 1, act + 1, fail + 1);
    }
    double solves = (double)KG_BENCH_REPS * PASSES * INSTANCES, cm = kg_bench_median(cold, KG_BENCH_REPS),
           wm = kg_bench_median(warm, KG_BENCH_REPS);
    printf("{\"benchmark\": \"qp\", \"tool\": \"kinegraph\", \"n\": %d, \"neq\": %d, \"nin\": %d, \"bounded\": %d, "
           "\"instances\": %d, \"mean_active\": %.1f, \"cold_iterations\": %.1f, \"warm_iterations\": %.1f, "
           "\"failures\": %d, \"cold_us_min\": %.2f, \"cold_us_median\": %.2f, \"warm_us_min\": %.2f, "
           "\"warm_us_median\": %.2f}\n",
           N, NEQ, NIN, NBOUNDED, INSTANCES, act[0] / solves, it[0] / solves, it[1] / solves, fail[0] + fail[1],
           cold[0], cm, warm[0], wm);
    kg_qp_work_free(w);
    free(ins);
    return 0;
}
