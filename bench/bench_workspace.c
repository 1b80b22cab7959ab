#include "bench_common.h" /* first: feature macros */
/* Workspace sampling rate, single thread unless THREADS says otherwise: samples
 * per second of kg_workspace_compute with the manipulability of every sample
 * (FK, Jacobian, Cholesky w, voxel update), best of 3 runs, for random and
 * Halton samples, at voxel edges of 2 cm and 10 cm (the voxel table's size
 * decides how often a sample misses the cache).
 * Prints JSON. usage: bench_workspace URDF TIP [SAMPLES] [THREADS] */
#include <stdio.h>
#include <stdlib.h>

#include "analysis/workspace.h"
#include "io/load.h"

int main(int argc, char **argv) {
    if (argc < 3) {
        fprintf(stderr, "usage: bench_workspace URDF TIP [SAMPLES] [THREADS]\n");
        return 2;
    }
    long samples = argc > 3 ? atol(argv[3]) : 2000000;
    int threads = argc > 4 ? atoi(argv[4]) : 1;
    kg_diags d;
    kg_diags_init(&d);
    kg_model *m = kg_load(argv[1], NULL, &d);
    if (!m) {
        fprintf(stderr, "bench_workspace: cannot load %s\n", argv[1]);
        return 1;
    }
    int tip = kg_model_link(m, argv[2]);
    if (tip < 0) {
        fprintf(stderr, "bench_workspace: no link %s\n", argv[2]);
        return 1;
    }
    const double voxels[2] = {0.02, 0.10};
    for (int v = 0; v < 2; v++)
        for (int seq = 0; seq < 2; seq++) {
            double best = 1e300;
            long nvox = 0;
            for (int rep = 0; rep < 3; rep++) {
                kg_workspace_options o = {.tip = tip, .base = -1, .samples = samples, .voxel = voxels[v], .seed = 1,
                                          .sequence = seq ? KG_SAMPLE_HALTON : KG_SAMPLE_RANDOM,
                                          .manipulability = 1, .threads = threads};
                kg_workspace w;
                double t0 = kg_now();
                if (kg_workspace_compute(m, &o, &w) != 0) return 1;
                double t = kg_now() - t0;
                if (t < best) best = t;
                nvox = w.nvoxel;
                kg_workspace_free(&w);
            }
            printf("{\"benchmark\": \"workspace\", \"tool\": \"kinegraph\", \"model\": \"%s\", \"tip\": \"%s\", "
                   "\"samples\": %ld, \"threads\": %d, \"voxel\": %g, \"sequence\": \"%s\", \"voxels\": %ld, "
                   "\"seconds\": %.4f, \"samples_per_second\": %.0f}\n",
                   m->name ? m->name : "", argv[2], samples, threads, voxels[v], seq ? "halton" : "random", nvox, best,
                   (double)samples / best);
        }
    kg_model_free(m);
    kg_diags_clear(&d);
    return 0;
}
