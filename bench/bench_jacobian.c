#include "bench_common.h" /* first: feature macros */
/* Jacobians per call, single thread, over 1000 pre-drawn joint vectors within
 * limits (default model the Unitree G1):
 *   fk+twists       kg_fk + kg_jacobian_twists: every joint's motion as a world
 *                   twist, the data any link's Jacobian is read from ("all-link
 *                   Jacobians", as Pinocchio's computeJointJacobians);
 *   fk+all_links    the same plus a dense 6 x dof Jacobian of every link;
 *   fk+one          kg_fk + twists + one link's Jacobian (TIP);
 *   w               kg_manipulability_w of that Jacobian (Cholesky).
 * Prints JSON. usage: bench_jacobian [URDF] [TIP] [CALLS] */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "analysis/jacobian.h"
#include "analysis/manipulability.h"
#include "bench_common.h"
#include "core/fk.h"
#include "io/load.h"

int main(int argc, char **argv) {
    const char *path = argc > 1 ? argv[1] : "../shared/data/urdf/unitree_g1/g1_description/g1_29dof_rev_1_0.urdf";
    const char *tipname = argc > 2 ? argv[2] : "left_rubber_hand";
    long calls = argc > 3 ? atol(argv[3]) : 100000;
    kg_diags d;
    kg_diags_init(&d);
    kg_model *m = kg_load(path, NULL, &d);
    if (!m) {
        fprintf(stderr, "bench_jacobian: cannot load %s\n", path);
        return 1;
    }
    int tip = kg_model_link(m, tipname);
    if (tip < 0) tip = m->nlink - 1;
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
    double *J = malloc((size_t)6 * m->dof * m->nlink * sizeof *J + 8), sink = 0;
    unsigned char *mask = malloc((size_t)m->dof + 1);
    int ncol = kg_jacobian_columns(m, tip, -1, mask);
    double *Jc = malloc((size_t)6 * (ncol + 1) * sizeof *Jc);
    const char *names[4] = {"fk+twists", "fk+all_links", "fk+one", "w"};
    double med[4], best[4];
    for (int what = 0; what < 4; what++) {
        double times[KG_BENCH_REPS];
        for (int rep = 0; rep < KG_BENCH_REPS; rep++) {
            double t0 = kg_now();
            for (long i = 0; i < calls; i++) {
                const double *q = qs + (size_t)(i % KG_BENCH_CONFIGS) * m->nq;
                if (what < 3) {
                    for (int k = 0; k < m->nq; k++) kd->q[k] = q[k];
                    kg_fk(m, kd);
                    kg_jacobian_twists(m, kd);
                }
                if (what == 1)
                    for (int l = 1; l < m->nlink; l++) kg_jacobian(m, kd, l, NULL, -1, J + (size_t)6 * m->dof * l);
                if (what == 2) kg_jacobian(m, kd, tip, NULL, -1, J);
                if (what == 3) sink += kg_manipulability_w(Jc, ncol, ncol);
                sink += kd->twist[6 * (m->nv - 1)] + J[6 * m->dof - 1];
            }
            times[rep] = (kg_now() - t0) / (double)calls;
            if (what == 2 && rep == 0) { /* the tip's columns, for w */
                for (int r = 0, k; r < 6; r++) {
                    k = 0;
                    for (int c = 0; c < m->dof; c++)
                        if (mask[c]) Jc[r * ncol + k++] = J[r * m->dof + c];
                }
            }
        }
        med[what] = kg_bench_median(times, KG_BENCH_REPS);
        best[what] = times[0];
    }
    printf("{\"benchmark\": \"jacobian\", \"tool\": \"kinegraph\", \"model\": \"%s\", \"links\": %d, \"dof\": %d, "
           "\"tip\": \"%s\", \"tip_columns\": %d",
           m->name, m->nlink, m->dof, m->link[tip].name, ncol);
    for (int w = 0; w < 4; w++)
        printf(", \"%s_us_min\": %.4f, \"%s_us_median\": %.4f", names[w], best[w] * 1e6, names[w], med[w] * 1e6);
    printf(", \"checksum\": %.6g}\n", sink);
    free(qs);
    free(J);
    free(Jc);
    free(mask);
    kg_data_free(kd);
    kg_model_free(m);
    kg_diags_clear(&d);
    return 0;
}
