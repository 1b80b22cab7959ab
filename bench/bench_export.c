#include "bench_common.h" /* first: feature macros */
/* Writing a robot's motion: a model and a motion for it (a file convert
 * --motion reads: a retargeted CSV, a COLLADA animation), cut to its first
 * FRAMES frames, written to each OUTPUT (by extension: .glb, .gltf, .npz, ...)
 * REPEATS times; the median and minimum of kg_save (for glTF: the meshes read
 * through assimp and the animation's FK of every frame; the mesh cache is the
 * exporter's own, so every write reads the meshes again), and the time to read
 * the model and motion once.
 * usage: bench_export REPEATS FRAMES MODEL MOTION OUTPUT... */
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>

#include "io/load.h"
#include "io/motion_file.h"
#include "io/save.h"

int main(int argc, char **argv) {
    if (argc < 6) {
        fprintf(stderr, "usage: bench_export REPEATS FRAMES MODEL MOTION OUTPUT...\n");
        return 2;
    }
    int reps = atoi(argv[1]), frames = atoi(argv[2]);
    if (reps < 1 || reps > 1000) reps = 11;
    kg_diags d;
    kg_diags_init(&d);
    double t0 = kg_now();
    kg_model *m = kg_load(argv[3], NULL, &d);
    kg_motion *mo = m ? kg_load_motion_for(m, argv[4], NULL, 0, &d) : NULL;
    double read_ms = (kg_now() - t0) * 1e3;
    if (!mo) {
        fprintf(stderr, "bench_export: cannot read %s with %s\n", argv[3], argv[4]);
        return 1;
    }
    if (frames > 0 && frames < mo->nframes) mo->nframes = frames;
    double *t = malloc((size_t)reps * sizeof *t);
    int rc = 0;
    for (int o = 5; o < argc; o++) {
        int ok = 1;
        for (int r = 0; r < reps && ok; r++) {
            double a = kg_now();
            ok = kg_save(argv[o], NULL, m, mo, NULL, &d) == 0;
            t[r] = kg_now() - a;
        }
        struct stat st;
        long bytes = stat(argv[o], &st) == 0 ? (long)st.st_size : -1;
        double med = kg_bench_median(t, reps);
        printf("{\"benchmark\": \"export_motion\", \"model\": \"%s\", \"output\": \"%s\", \"ok\": %s, \"frames\": %d, "
               "\"links\": %d, \"repeats\": %d, \"median_ms\": %.3f, \"min_ms\": %.3f, \"read_model_and_motion_ms\": %.3f, "
               "\"output_bytes\": %ld}\n",
               argv[3], argv[o], ok ? "true" : "false", mo->nframes, m->nlink, reps, med * 1e3, t[0] * 1e3, read_ms,
               bytes);
        rc |= !ok;
    }
    free(t);
    kg_motion_free(mo);
    kg_model_free(m);
    kg_diags_clear(&d);
    return rc;
}
