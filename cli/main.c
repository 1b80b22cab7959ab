/* kinegraph: convert, check and analyse robot models and motion. */
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "cli/common.h"
#include "kinegraph/version.h"

int kg_cmd_info(int argc, char **argv);
int kg_cmd_fk(int argc, char **argv);
int kg_cmd_mass(int argc, char **argv);
int kg_cmd_convert(int argc, char **argv);
int kg_cmd_jacobian(int argc, char **argv);
int kg_cmd_ik(int argc, char **argv);
int kg_cmd_retarget(int argc, char **argv);
int kg_cmd_workspace(int argc, char **argv);
int kg_cmd_collisions(int argc, char **argv);
int kg_cmd_check(int argc, char **argv);
int kg_cmd_dynamics(int argc, char **argv);
int kg_cmd_merge(int argc, char **argv);
int kg_cmd_highbar(int argc, char **argv);
int kg_cmd_view(int argc, char **argv);

/* OpenBLAS (cblas.h): kinegraph's matrices are tiny (3x3 inertias, 6xn
 * Jacobians), where splitting work over threads only costs. (The worker
 * OpenBLAS starts when it is loaded still spins for a while; only
 * OPENBLAS_NUM_THREADS=1 in the environment avoids it.) */
void openblas_set_num_threads(int n);

static const struct {
    const char *name;
    int (*run)(int, char **);
    const char *summary;
} commands[] = {
    {"info", kg_cmd_info, "what a model is made of, and its diagnostics"},
    {"check", kg_cmd_check, "validity checks over many files (text, JSON, JUnit, HTML reports)"},
    {"merge", kg_cmd_merge, "join the shard summaries of a batch split with --shard (retarget, check)"},
    {"fk", kg_cmd_fk, "forward kinematics: world pose of every link"},
    {"mass", kg_cmd_mass, "total mass, centre of mass and inertia"},
    {"jacobian", kg_cmd_jacobian, "geometric Jacobian of a link, manipulability, velocity ellipsoids"},
    {"ik", kg_cmd_ik, "inverse kinematics: joint values that put a link at a pose"},
    {"dynamics", kg_cmd_dynamics, "joint torques of a robot's motion with its foot contacts, ZMP, effort ratios"},
    {"highbar", kg_cmd_highbar, "the seed's structure-change example: a figure on a bar lets go with one hand (CSV)"},
    {"retarget", kg_cmd_retarget, "a motion-capture clip onto a humanoid robot (feet planted, balanced)"},
    {"workspace", kg_cmd_workspace, "reachable set of a link: voxels, volume, convergence, manipulability"},
    {"collisions", kg_cmd_collisions, "self-collision pairs and the allowed-collision matrix (SRDF)"},
    {"view", kg_cmd_view, "a web page that shows a model and plays its motion (three.js inside, no network)"},
    {"convert", kg_cmd_convert, "write a model and its motion in another format (urdf, dae, bvh, csv, json, mjcf, gltf/glb, npz)"},
};

static void usage(FILE *f) {
    fprintf(f, "usage: kinegraph COMMAND [arguments]   (kinegraph COMMAND --help for details)\n"
               "       kinegraph --version | --help\n\ncommands:\n");
    for (size_t i = 0; i < sizeof commands / sizeof *commands; i++)
        fprintf(f, "  %-10s %s\n", commands[i].name, commands[i].summary);
    fprintf(f,
            "\nexit status: 0 success; 1 the input has errors (printed on stderr, or in the JSON of\n"
            "'info'); 2 usage error; 3 an output could not be written; 4 no solution (ik).\n"
            "Units are SI everywhere: m, rad, kg, kg m^2.\n\n"
            "options:\n"
            "  --version  the version (kinegraph X.Y.Z)\n"
            "  --help     this text\n");
}

int main(int argc, char **argv) {
    openblas_set_num_threads(1);
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
    for (size_t i = 0; i < sizeof commands / sizeof *commands; i++)
        if (strcmp(argv[1], commands[i].name) == 0) return commands[i].run(argc - 1, argv + 1);
    fprintf(stderr, "kinegraph: unknown command '%s'\n", argv[1]);
    usage(stderr);
    return KG_EXIT_USAGE;
}
