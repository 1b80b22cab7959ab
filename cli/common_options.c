/* The options several commands share, as tables (cli/options.h): their values
 * go into struct kg_cli itself. */
#include <string.h>

#include "cli/common.h"
#include "formats/xml.h" /* kg_parse_doubles */

static int package_path(kg_cli *c, const kg_cli_option *o, const char *value) {
    if (c->npackage_paths == KG_MAX_PACKAGE_PATHS) {
        kg_cli_usage_error(c->command, "too many %s options", o->name);
        return -1;
    }
    c->package_paths[c->npackage_paths++] = value;
    return 0;
}

static int scale(kg_cli *c, const kg_cli_option *o, const char *value) {
    if (kg_parse_doubles(value, &c->scale, 1) == 0 && c->scale > 0) return 0;
    kg_cli_usage_error(c->command, "%s needs a positive number, not '%s'", o->name, value);
    return -1;
}

static const kg_cli_option json_options[] = {
    {"--json", .help = "print JSON (SI units: m, rad, kg, kg m^2) instead of text", KG_FLAG(kg_cli, json, 1)},
    {0},
};

static const kg_cli_option model_options[] = {
    {"--package-path", .value = "DIR", KG_CALL(package_path), .complete = KG_COMPLETE_DIR, .many = 1,
     .help = "where package://NAME/ references are looked up (DIR/NAME,\n"
             "or DIR itself when named NAME); repeatable; searched before\n"
             "ROS_PACKAGE_PATH and the model's ancestor folders"},
    {"--format", .value = "FMT", KG_TEXT(kg_cli, format), .complete = "urdf collada bvh",
     .help = "read the model as FMT (urdf, collada, bvh) instead of guessing"},
    {"--scale", .value = "S", KG_CALL(scale), .help = "BVH: multiply lengths by S (BVH has no unit; default 1)"},
    {"--verbose", .help = "print warnings and notes about the model on stderr", KG_FLAG(kg_cli, verbose, 1)},
    {0},
};

static const kg_cli_option pose_options[] = {
    {"--q", .value = "JSON", KG_TEXT(kg_cli, q_json),
     .help = "joint values as a JSON object, e.g. '{\"knee\": 0.5}' (rad or m);\n"
             "joints not named are 0; planar joints take [x, y, angle], floating\n"
             "joints [x, y, z, qw, qx, qy, qz]; mimic followers are computed and\n"
             "may not be named"},
    {"--q-file", .value = "FILE", KG_TEXT(kg_cli, q_file), .complete = KG_COMPLETE_FILE,
     .help = "the same JSON object, read from FILE"},
    /* --base was its first name; jacobian, ik and workspace have a --base of
     * their own (a link), which hides this one there */
    {"--root-pose", "--base", "X,Y,Z[,QW,QX,QY,QZ]", KG_TEXT(kg_cli, base),
     .help = "world pose of the root link (default: identity)"},
    {"--frame", .value = "N", KG_TEXT(kg_cli, frame),
     .help = "start from frame N (0-based) of the input's motion (BVH)"},
    {0},
};

const kg_cli_option kg_cli_help_option = {"--help", "-h", .help = "this text"};

const kg_cli_option *kg_cli_group(int k, unsigned common) {
    static const struct {
        unsigned bit;
        const kg_cli_option *options;
    } groups[] = {{KG_CLI_JSON, json_options}, {KG_CLI_MODEL, model_options}, {KG_CLI_POSE, pose_options}};
    for (size_t g = 0; g < sizeof groups / sizeof *groups; g++)
        if ((common & groups[g].bit) && k-- == 0) return groups[g].options;
    return NULL;
}
