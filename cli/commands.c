/* The commands of kinegraph, in the order `kinegraph --help` lists them, and
 * what the top level says: main.c runs them, kinegraph-doc (doc_main.c) writes
 * the man pages and completions from them. */
#include "cli/options.h"

extern const kg_cli_command kg_cmd_info, kg_cmd_check, kg_cmd_merge, kg_cmd_fk, kg_cmd_mass, kg_cmd_jacobian,
    kg_cmd_ik, kg_cmd_dynamics, kg_cmd_highbar, kg_cmd_retarget, kg_cmd_workspace, kg_cmd_collisions, kg_cmd_view,
    kg_cmd_convert;

const kg_cli_command *const kg_cli_commands[] = {
    &kg_cmd_info,     &kg_cmd_check,     &kg_cmd_merge,     &kg_cmd_fk,        &kg_cmd_mass,
    &kg_cmd_jacobian, &kg_cmd_ik,        &kg_cmd_dynamics,  &kg_cmd_highbar,   &kg_cmd_retarget,
    &kg_cmd_workspace, &kg_cmd_collisions, &kg_cmd_view,    &kg_cmd_convert,
};
const int kg_cli_ncommands = sizeof kg_cli_commands / sizeof *kg_cli_commands;

const char kg_cli_about[] =
    "kinegraph reads robot and character models (URDF, COLLADA .dae/.zae, BVH motion capture)\n"
    "into one link/joint graph, closed loops included; checks them; analyses them (forward and\n"
    "inverse kinematics, Jacobians and manipulability, workspace, self-collision pairs, mass\n"
    "properties, joint torques of a motion); retargets motion capture onto humanoid robots; and\n"
    "writes them out (URDF, COLLADA 1.5, BVH, MJCF, glTF 2.0, trajectory CSV/JSON, RL motion\n"
    "files), listing in a conversion ledger what the target format cannot hold.\n"
    "Units are SI everywhere: m, rad, kg, kg m^2.\n";

const char kg_cli_exit_status[] =
    "exit status: 0 success; 1 the input has errors (printed on stderr, or in the JSON of\n"
    "'info'); 2 usage error; 3 an output could not be written; 4 no solution (ik).\n";

/* kinegraph's own options, before any command (main.c reads them). */
const kg_cli_option kg_cli_top_options[] = {
    {"--version", .help = "the version (kinegraph X.Y.Z)"},
    {"--help", "-h", .help = "this text (also: kinegraph help)"},
    {0},
};
