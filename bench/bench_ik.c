#include "bench_common.h" /* first: feature macros */
/* Inverse kinematics by the TRAC-IK protocol: N joint vectors drawn uniformly
 * within limits (fixed seed), their tip pose by FK as the target (position and
 * orientation), every solve started from the middle of the limits, tolerance
 * 1e-5 m and 1e-5 rad, a time budget per solve (default 5 ms). Success rate and
 * time per solve (failures included), single thread.
 * Prints JSON. usage: bench_ik URDF BASE TIP [N] [BUDGET_MS] */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/ik.h"
#include "analysis/jacobian.h"
#include "analysis/sampling.h"
#include "core/fk.h"
#include "core/spatial.h"
#include "io/load.h"

int main(int argc, char **argv) {
    if (argc < 4) {
        fprintf(stderr, "usage: bench_ik URDF BASE TIP [N] [BUDGET_MS]\n");
        return 2;
    }
    int N = argc > 4 ? atoi(argv[4]) : 10000;
    double budget = (argc > 5 ? atof(argv[5]) : 5) * 1e-3;
    kg_diags dg;
    kg_diags_init(&dg);
    kg_model *m = kg_load(argv[1], NULL, &dg);
    if (!m) {
        fprintf(stderr, "bench_ik: cannot load %s\n", argv[1]);
        return 1;
    }
    int base = strcmp(argv[2], "-") ? kg_model_link(m, argv[2]) : -1, tip = kg_model_link(m, argv[3]);
    if (tip < 0 || (strcmp(argv[2], "-") && base < 0)) {
        fprintf(stderr, "bench_ik: no link %s or %s\n", argv[2], argv[3]);
        return 1;
    }
    unsigned char *mask = calloc((size_t)m->dof + 1, 1);
    kg_jacobian_columns(m, tip, base, mask);
    kg_sample_coord *coords = calloc((size_t)m->nq + 1, sizeof *coords);
    int nc = kg_sample_coords(m, mask, coords);
    kg_data *d = kg_data_new(m);
    double *mid = malloc((size_t)m->nq * sizeof *mid);
    memcpy(mid, m->q_default, (size_t)m->nq * sizeof *mid);
    for (int k = 0; k < nc; k++) mid[coords[k].q] = 0.5 * (coords[k].lo + coords[k].hi);
    kg_apply_mimic(m, mid);
    kg_ik_work *w = kg_ik_work_new(m, 1);
    kg_ik_options o;
    kg_ik_defaults(&o);
    o.time_budget = budget;
    o.max_iterations = 1 << 30;
    kg_ik_target t = {.link = tip, .base = base, .axes = KG_IK_POSE};
    kg_sampler s;
    kg_sampler_start(&s, KG_SAMPLE_RANDOM, KG_BENCH_SEED, nc, 0);
    int ok = 0;
    long iters = 0, restarts = 0;
    double total = 0, worst_ok_pos = 0, worst_ok_rot = 0;
    for (int i = 0; i < N; i++) {
        memcpy(d->q, m->q_default, (size_t)m->nq * sizeof *d->q);
        kg_sampler_draw(&s, coords, d->q);
        kg_fk(m, d);
        double R[9];
        if (base >= 0) {
            double dp[3];
            for (int a = 0; a < 3; a++) dp[a] = d->link_pos[3 * tip + a] - d->link_pos[3 * base + a];
            kg_mat3_tvec(t.pos, d->link_rot + 9 * base, dp);
            kg_mat3_mul_at(R, d->link_rot + 9 * base, d->link_rot + 9 * tip);
        } else {
            kg_vec3_copy(t.pos, d->link_pos + 3 * tip);
            kg_mat3_copy(R, d->link_rot + 9 * tip);
        }
        kg_mat3_copy(t.rot, R);
        memcpy(d->q, mid, (size_t)m->nq * sizeof *d->q);
        kg_ik_result r;
        double t0 = kg_now();
        kg_ik_solve(m, d, &t, 1, &o, w, &r);
        total += kg_now() - t0;
        iters += r.iterations;
        restarts += r.restarts;
        if (r.success) {
            ok++;
            if (r.pos_error > worst_ok_pos) worst_ok_pos = r.pos_error;
            if (r.rot_error > worst_ok_rot) worst_ok_rot = r.rot_error;
        }
    }
    printf("{\"benchmark\": \"ik\", \"tool\": \"kinegraph\", \"model\": \"%s\", \"base\": \"%s\", \"tip\": \"%s\", "
           "\"dof\": %d, \"solves\": %d, \"budget_ms\": %g, \"success_percent\": %.2f, \"mean_ms\": %.4f, "
           "\"mean_iterations\": %.1f, \"mean_restarts\": %.2f, \"worst_position_error\": %.2g, "
           "\"worst_rotation_error\": %.2g}\n",
           m->name ? m->name : "", argv[2], argv[3], nc, N, budget * 1e3, 100.0 * ok / N, 1e3 * total / N,
           (double)iters / N, (double)restarts / N, worst_ok_pos, worst_ok_rot);
    kg_ik_work_free(w);
    kg_data_free(d);
    free(mid), free(mask), free(coords);
    kg_model_free(m);
    kg_diags_clear(&dg);
    return 0;
}
