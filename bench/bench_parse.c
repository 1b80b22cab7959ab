#include "bench_common.h" /* first: feature macros */
/* URDF parse time per file: kg_load (XML parse, model build and mesh path
 * resolution; meshes are not read) over every URDF given, repeated. Prints JSON
 * per file and in total. usage: bench_parse REPEATS FILE... */
#include <stdio.h>
#include <stdlib.h>

#include "bench_common.h"
#include "io/load.h"

int main(int argc, char **argv) {
    if (argc < 3) {
        fprintf(stderr, "usage: bench_parse REPEATS FILE...\n");
        return 2;
    }
    int reps = atoi(argv[1]);
    double total = 0;
    int nfiles = 0;
    printf("{\"benchmark\": \"parse\", \"tool\": \"kinegraph\", \"files\": [\n");
    for (int f = 2; f < argc; f++) {
        double best = 1e30;
        int ok = 1;
        for (int r = 0; r < reps; r++) {
            kg_diags d;
            kg_diags_init(&d);
            double t0 = kg_now();
            kg_model *m = kg_load(argv[f], NULL, &d);
            double dt = kg_now() - t0;
            ok = m != NULL;
            kg_model_free(m);
            kg_diags_clear(&d);
            if (dt < best) best = dt;
        }
        printf("%s  {\"file\": \"%s\", \"ok\": %s, \"ms\": %.4f}\n", nfiles ? "," : "", argv[f], ok ? "true" : "false",
               best * 1e3);
        total += best;
        nfiles++;
    }
    printf("], \"total_ms\": %.3f, \"files_per_second\": %.0f}\n", total * 1e3, nfiles / total);
    return 0;
}
