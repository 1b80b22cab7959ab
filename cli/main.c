/* kinegraph: convert, check and analyse robot models and motion. */
#include <dlfcn.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "cli/common.h"
#include "kinegraph/version.h"

/* OpenBLAS (cblas.h): kinegraph's matrices are tiny (3x3 inertias, 6xn
 * Jacobians), where splitting work over threads only costs. */
void openblas_set_num_threads(int n);

/* One thread for BLAS, and the workers OpenBLAS's threaded build started when
 * it was loaded stopped: they spin (sched_yield) for about 0.1 s before they
 * sleep, 50-80 ms of CPU a run (a quarter of a robot's preparation, taken
 * from its threads and from the runs beside it). A build without threads has
 * no such workers and no blas_thread_shutdown_. */
static void one_blas_thread(void) {
    openblas_set_num_threads(1);
    int (*shutdown)(void);
    *(void **)&shutdown = dlsym(RTLD_DEFAULT, "blas_thread_shutdown_");
    if (shutdown) shutdown();
}

static void usage(FILE *f) {
    fprintf(f, "usage: kinegraph COMMAND [arguments]   (kinegraph COMMAND --help for details)\n"
               "       kinegraph --version | --help\n\ncommands:\n");
    for (int i = 0; i < kg_cli_ncommands; i++)
        fprintf(f, "  %-10s %s\n", kg_cli_commands[i]->name, kg_cli_commands[i]->summary);
    fprintf(f, "\n%sUnits are SI everywhere: m, rad, kg, kg m^2.\n\noptions:\n", kg_cli_exit_status);
    kg_cli_print_options(f, kg_cli_top_options);
}

int main(int argc, char **argv) {
    one_blas_thread();
    /* past a file size limit (ulimit -f) a write fails with EFBIG and is
     * reported, and the temporary file removed, instead of the process being
     * killed with the half-written file left behind */
    signal(SIGXFSZ, SIG_IGN);
    if (argc < 2) {
        usage(stderr);
        return KG_EXIT_USAGE;
    }
    if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "help") == 0) {
        usage(stdout);
        return KG_EXIT_OK;
    }
    if (strcmp(argv[1], "--version") == 0) {
        printf("kinegraph %s\n", kg_version());
        return KG_EXIT_OK;
    }
    for (int i = 0; i < kg_cli_ncommands; i++)
        if (strcmp(argv[1], kg_cli_commands[i]->name) == 0) return kg_cli_commands[i]->run(argc - 1, argv + 1);
    fprintf(stderr, "kinegraph: unknown command '%s'\n", argv[1]);
    usage(stderr);
    return KG_EXIT_USAGE;
}
