/* kinegraph convert IN OUT: write a model and its motion in another format. */
#include <stdio.h>
#include <string.h>

#include "cli/common.h"
#include "formats/save.h"

int kg_cmd_convert(int argc, char **argv);

static const char help[] =
    "usage: kinegraph convert IN OUT [--to FORMAT] [--force] [options]\n"
    "\n"
    "Reads IN and writes OUT in the format its extension names (or --to): bvh, csv, json.\n"
    "BVH keeps the hierarchy, channel order and frame time; CSV and JSON are trajectories:\n"
    "one row per frame with time, root position, root orientation (quaternion w x y z) and\n"
    "every joint coordinate by name (see the README). The output is written to a temporary\n"
    "file and renamed, so a failure leaves nothing behind. An input with errors is not\n"
    "converted unless --force.\n"
    "\n"
    "options:\n"
    "  --to FORMAT            bvh, csv or json, whatever OUT's extension\n"
    "  --force                convert even when the input has errors\n";

int kg_cmd_convert(int argc, char **argv) {
    kg_cli c = {.command = "convert"};
    const char *in = NULL, *out = NULL, *to = NULL;
    int force = 0;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            printf("%s%s", help, kg_cli_model_options_help);
            return KG_EXIT_OK;
        }
        if (strcmp(argv[i], "--force") == 0) {
            force = 1;
            continue;
        }
        if (strcmp(argv[i], "--to") == 0) {
            if (i + 1 >= argc) return kg_cli_usage_error("convert", "--to needs a format");
            to = argv[++i];
            continue;
        }
        int r = kg_cli_common_option(&c, argc, argv, &i, 0);
        if (r < 0) return KG_EXIT_USAGE;
        if (r) continue;
        if (argv[i][0] == '-' && argv[i][1]) return kg_cli_usage_error("convert", "unknown option %s", argv[i]);
        if (!in) in = argv[i];
        else if (!out) out = argv[i];
        else return kg_cli_usage_error("convert", "give IN and OUT only");
    }
    if (!in || !out) return kg_cli_usage_error("convert", "give IN and OUT");
    if (!to && !kg_output_format(out))
        return kg_cli_usage_error("convert", "cannot tell the output format of '%s' (.bvh, .csv, .json or --to)", out);
    if (to && strcmp(to, "bvh") && strcmp(to, "csv") && strcmp(to, "json"))
        return kg_cli_usage_error("convert", "--to takes bvh, csv or json");
    c.model_path = in;
    kg_model *m = kg_cli_load(&c, KG_ERROR);
    int rc = 0;
    if (!m) {
        rc = KG_EXIT_ERRORS;
    } else if (kg_cli_status(&c) != 0 && !force) {
        fprintf(stderr, "kinegraph convert: %s has errors; nothing written (--force to convert anyway)\n", in);
        rc = KG_EXIT_ERRORS;
    } else {
        size_t before = c.diags.count;
        if (kg_save(out, to, m, c.motion, &c.diags) != 0) {
            for (size_t k = before; k < c.diags.count; k++)
                fprintf(stderr, "%s: error: %s [%s]\n", c.diags.items[k].file ? c.diags.items[k].file : out,
                        c.diags.items[k].message, c.diags.items[k].code);
            rc = strncmp(c.diags.items[c.diags.count - 1].code, "io.", 3) == 0 ? KG_EXIT_OUTPUT : KG_EXIT_ERRORS;
        } else {
            fprintf(stderr, "kinegraph convert: wrote %s (%d links, %d coordinates, %d frames)\n", out,
                    m->nlink - m->nloop, m->nq, c.motion ? c.motion->nframes : 0);
            rc = kg_cli_status(&c);
        }
    }
    kg_model_free(m);
    kg_cli_done(&c);
    return rc;
}
