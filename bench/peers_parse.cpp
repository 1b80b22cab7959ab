// URDF parse time per file with urdfdom (the ROS reference parser, the library
// behind check_urdf), in process, as bench_parse does for kinegraph.
// usage: peers_parse REPEATS FILE...
#include <urdf_parser/urdf_parser.h>

#include <cstdio>
#include <cstdlib>

extern "C" {
#include "bench_common.h"
}

int main(int argc, char **argv) {
    if (argc < 3) {
        fprintf(stderr, "usage: peers_parse REPEATS FILE...\n");
        return 2;
    }
    int reps = atoi(argv[1]), nfiles = 0;
    double total = 0;
    printf("{\"benchmark\": \"parse\", \"tool\": \"urdfdom\", \"files\": [\n");
    for (int f = 2; f < argc; f++) {
        double best = 1e30;
        bool ok = false;
        for (int r = 0; r < reps; r++) {
            double t0 = kg_now();
            urdf::ModelInterfaceSharedPtr m = urdf::parseURDFFile(argv[f]);
            double dt = kg_now() - t0;
            ok = m != nullptr;
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
