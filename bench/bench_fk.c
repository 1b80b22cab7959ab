#include "bench_common.h" /* first: feature macros */
/* Full-body forward kinematics per call, single thread: kg_fk on a model (default
 * the Unitree G1, 29 DOF) over 1000 pre-drawn joint vectors within limits.
 * Prints JSON. usage: bench_fk [URDF] [CALLS] */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "bench_common.h"
#include "core/fk.h"
#include "io/load.h"

int main(int argc, char **argv) {
    const char *path = argc > 1 ? argv[1] : "../shared/data/urdf/unitree_g1/g1_description/g1_29dof_rev_1_0.urdf";
    long calls = argc > 2 ? atol(argv[2]) : 200000; /* per repetition */
    kg_diags d;
    kg_diags_init(&d);
    kg_model *m = kg_load(path, NULL, &d);
    if (!m) {
        fprintf(stderr, "bench_fk: cannot load %s\n", path);
        return 1;
    }
    kg_data *kd = kg_data_new(m);
    double *qs = malloc(sizeof(double) * (size_t)m->nq * KG_BENCH_CONFIGS);
    uint64_t s = KG_BENCH_SEED;
    for (int c = 0; c < KG_BENCH_CONFIGS; c++)
        for (int j = 0; j < m->njoint; j++) {
            const kg_joint *J = &m->joint[j];
            for (int k = 0; k < J->nq; k++) {
                double lo = kg_joint_is_limited(J) ? J->lower : -3.14159265358979323846;
                double hi = kg_joint_is_limited(J) ? J->upper : 3.14159265358979323846;
                qs[(size_t)c * m->nq + J->qadr + k] = lo + (hi - lo) * kg_bench_uniform(&s);
            }
        }
    double times[KG_BENCH_REPS], sink = 0;
    for (int rep = 0; rep < KG_BENCH_REPS; rep++) {
        double t0 = kg_now();
        for (long i = 0; i < calls; i++) {
            const double *q = qs + (size_t)(i % KG_BENCH_CONFIGS) * m->nq;
            for (int k = 0; k < m->nq; k++) kd->q[k] = q[k];
            kg_fk(m, kd);
            sink += kd->link_pos[3 * (m->nlink - 1)];
        }
        times[rep] = (kg_now() - t0) / (double)calls;
    }
    double median = kg_bench_median(times, KG_BENCH_REPS);
    printf("{\"benchmark\": \"fk\", \"tool\": \"kinegraph\", \"model\": \"%s\", \"links\": %d, \"dof\": %d, "
           "\"calls\": %ld, \"us_per_call_min\": %.4f, \"us_per_call_median\": %.4f, \"checksum\": %.6g}\n",
           m->name, m->nlink, m->dof, calls * KG_BENCH_REPS, times[0] * 1e6, median * 1e6, sink);
    free(qs);
    kg_data_free(kd);
    kg_model_free(m);
    kg_diags_clear(&d);
    return 0;
}
