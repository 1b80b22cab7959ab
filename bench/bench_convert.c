#include "bench_common.h" /* first: feature macros */
/* Conversion time: read a model (and motion) and write it in another format,
 * meshes included (COLLADA reads every mesh through assimp and writes its
 * triangles), to a file, repeated; the median and the minimum of the whole
 * conversion, and how it splits into reading and writing.
 * usage: bench_convert REPEATS INPUT OUTPUT */
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>

#include "io/load.h"
#include "io/save.h"

int main(int argc, char **argv) {
    if (argc != 4) {
        fprintf(stderr, "usage: bench_convert REPEATS INPUT OUTPUT\n");
        return 2;
    }
    int reps = atoi(argv[1]);
    if (reps < 1 || reps > 1000) reps = 11;
    double *total = malloc((size_t)reps * sizeof *total), *read = malloc((size_t)reps * sizeof *read);
    int ok = 1;
    for (int r = 0; r < reps && ok; r++) {
        kg_diags d;
        kg_diags_init(&d);
        double t0 = kg_now();
        kg_motion *mo = NULL;
        kg_model *m = kg_load_clip(argv[2], NULL, &mo, &d);
        double t1 = kg_now();
        ok = m && kg_save(argv[3], NULL, m, mo, NULL, &d) == 0;
        double t2 = kg_now();
        total[r] = t2 - t0;
        read[r] = t1 - t0;
        kg_motion_free(mo);
        kg_model_free(m);
        kg_diags_clear(&d);
    }
    struct stat st;
    long bytes = stat(argv[3], &st) == 0 ? (long)st.st_size : -1;
    double med = kg_bench_median(total, reps), best = total[0], rmed = kg_bench_median(read, reps);
    printf("{\"benchmark\": \"convert\", \"tool\": \"kinegraph (library)\", \"input\": \"%s\", \"output\": \"%s\", "
           "\"ok\": %s, \"repeats\": %d, \"median_ms\": %.3f, \"min_ms\": %.3f, \"read_median_ms\": %.3f, "
           "\"output_bytes\": %ld}\n",
           argv[2], argv[3], ok ? "true" : "false", reps, med * 1e3, best * 1e3, rmed * 1e3, bytes);
    free(total);
    free(read);
    return ok ? 0 : 1;
}
