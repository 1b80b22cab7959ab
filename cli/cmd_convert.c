/* kinegraph convert IN OUT: write a model and its motion in another format. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/common.h"
#include "formats/ledger.h"
#include "io/motion_file.h"
#include "io/save.h"

typedef struct opts {
    const char *in, *out, *to, *motion, *motion_fps, *fps, *ledger;
    int force;
} opts;

static int run(int argc, char **argv);

/* IN, then OUT */
static int operand(kg_cli *c, char *word) {
    opts *o = c->ctx;
    if (!o->in) o->in = word;
    else if (!o->out) o->out = word;
    else return kg_cli_usage_error(c->command, "give IN and OUT only"), -1;
    return 0;
}

static const kg_cli_option options[] = {
    {"--to", .value = "FORMAT", KG_TEXT(opts, to), .complete = "urdf dae bvh csv json mjcf gltf glb npz",
     .help = "urdf, dae, bvh, csv, json, mjcf, gltf, glb or npz, whatever OUT's\n"
             "extension"},
    {"--motion", .value = "FILE", KG_TEXT(opts, motion), .complete = KG_COMPLETE_FILE,
     .help = "the motion of IN to write (CSV, BVH, COLLADA), in place of IN's own"},
    {"--motion-fps", .value = "N", KG_TEXT(opts, motion_fps),
     .help = "the frame rate of a CSV FILE (default: a headed CSV's time column,\n"
             "30 for a headerless one, LAFAN1's)"},
    {"--fps", .value = "N", KG_TEXT(opts, fps),
     .help = "write the motion resampled to N frames/s (coordinates interpolated\n"
             "linearly, quaternions slerped)"},
    {"--ledger", .value = "FILE.json", KG_TEXT(opts, ledger), .complete = KG_COMPLETE_FILE,
     .help = "write the conversion ledger there"},
    {"--force", KG_FLAG(opts, force, 1), .help = "convert even when the input has errors"},
    {0},
};

const kg_cli_command kg_cmd_convert = {
    .name = "convert",
    .summary = "write a model and its motion in another format (urdf, dae, bvh, csv, json, mjcf, gltf/glb, npz)",
    .usage = "kinegraph convert IN OUT [--to FORMAT] [--motion FILE [--motion-fps N]] [--fps N]\n"
             "                         [--ledger FILE.json] [--force] [options]\n",
    .description =
        "Reads IN and writes OUT in the format its extension names (or --to): urdf, dae (COLLADA\n"
        "1.5), bvh, csv, json, xml (MJCF, MuJoCo's format), gltf or glb (glTF 2.0), npz. URDF,\n"
        "COLLADA and MJCF are written from any model (MJCF meshes that MuJoCo cannot read go beside\n"
        "it as STL); glTF holds the link tree, visual geometry with normals and the motion as an\n"
        "animation; BVH keeps the hierarchy, channel order and frame time; CSV and JSON are\n"
        "trajectories: one row per frame with time, root position, root orientation (quaternion\n"
        "w x y z) and every joint coordinate by name (see the README); npz is an RL motion file\n"
        "(numpy arrays: fps, joint_names, joint_pos, joint_vel, body_names, body_pos_w, body_quat_w\n"
        "(w x y z), body_lin_vel_w, body_ang_vel_w; float32, frames first; velocities by central\n"
        "differences at the output rate, one-sided at the ends).\n"
        "The motion is IN's own (a BVH, an animated COLLADA file) or, with --motion, FILE's for\n"
        "the model IN: a trajectory CSV (convert's layout with its header, or the headerless one\n"
        "retarget writes), or a BVH or COLLADA animation whose coordinates have IN's names.\n"
        "Everything the output format cannot hold is listed in the conversion ledger: dropped,\n"
        "approximated or defaulted, each with where it was read; a summary is always printed\n"
        "on stderr, the whole ledger is written with --ledger. The output is written to a\n"
        "temporary file and renamed, so a failure leaves nothing behind. An input with errors\n"
        "is not converted unless --force.\n",
    .options = options,
    .common = KG_CLI_JSON | KG_CLI_MODEL,
    .operands = KG_COMPLETE_FILE,
    .run = run,
};

/* {"source", "target", "summary": {...}, "entries": [...]} */
static json_t *ledger_json(const char *in, const char *out, const kg_ledger *l) {
    json_t *o = json_object(), *entries = json_array(), *sum = json_object();
    json_object_set_new(o, "source", kg_json_str(in));
    json_object_set_new(o, "target", kg_json_str(out));
    for (int a = KG_DROPPED; a <= KG_DEFAULTED; a++)
        json_object_set_new(sum, kg_ledger_action_name((kg_ledger_action)a),
                            json_integer((json_int_t)kg_ledger_count(l, (kg_ledger_action)a)));
    json_object_set_new(o, "summary", sum);
    for (size_t i = 0; i < l->count; i++) {
        const kg_ledger_entry *e = &l->items[i];
        json_t *x = json_object();
        json_object_set_new(x, "action", json_string(kg_ledger_action_name(e->action)));
        json_object_set_new(x, "element", kg_json_str(e->element));
        json_object_set_new(x, "name", kg_json_str(e->name));
        json_object_set_new(x, "detail", kg_json_str(e->detail));
        json_object_set_new(x, "file", kg_json_str(e->file));
        json_object_set_new(x, "line", e->line ? json_integer(e->line) : json_null());
        json_array_append_new(entries, x);
    }
    json_object_set_new(o, "entries", entries);
    return o;
}

static int write_ledger(const char *path, const char *in, const char *out, const kg_ledger *l) {
    json_t *o = ledger_json(in, out, l);
    int rc = kg_json_write_file(o, path);
    json_decref(o);
    return rc;
}

static int run(int argc, char **argv) {
    opts o = {0};
    kg_cli c = {.command = "convert", .ctx = &o, .operand = operand};
    int rc = kg_cli_parse(&c, &kg_cmd_convert, argc, argv);
    if (rc >= 0) return rc;
    const char *in = o.in, *out = o.out, *to = o.to, *ledger_path = o.ledger, *motion_path = o.motion;
    double fps = 0, motion_fps = 0;
    if (kg_cli_positive(&c, "--fps", o.fps, &fps) || kg_cli_positive(&c, "--motion-fps", o.motion_fps, &motion_fps))
        return KG_EXIT_USAGE;
    if (!in || !out) return kg_cli_usage_error("convert", "give IN and OUT");
    if (!to && !kg_output_format(out))
        return kg_cli_usage_error("convert", "cannot tell the output format of '%s' (.urdf, .dae, .bvh, .csv, .json, .xml, .gltf, .glb, .npz or --to)",
                                  out);
    if (to && !strcmp(to, "dae")) to = "collada";
    if (to && strcmp(to, "urdf") && strcmp(to, "collada") && strcmp(to, "bvh") && strcmp(to, "csv") && strcmp(to, "json") &&
        strcmp(to, "mjcf") && strcmp(to, "gltf") && strcmp(to, "glb") && strcmp(to, "npz"))
        return kg_cli_usage_error("convert", "--to takes urdf, dae, bvh, csv, json, mjcf, gltf, glb or npz");
    c.model_path = in;
    kg_model *m = kg_cli_load(&c, KG_ERROR);
    rc = 0;
    if (m && motion_path) { /* the model's motion from FILE */
        if (kg_cli_load_motion(&c, m, motion_path, motion_fps) != 0) {
            kg_model_free(m);
            kg_cli_done(&c);
            return KG_EXIT_ERRORS;
        }
    }
    if (m && fps > 0 && c.motion) {
        kg_motion *r = NULL;
        if (kg_cli_resample("convert", motion_path ? motion_path : in, m, c.motion, fps, &r, stderr) != 0) {
            kg_model_free(m);
            kg_cli_done(&c);
            return KG_EXIT_ERRORS;
        }
        kg_motion_free(c.motion);
        c.motion = r;
    }
    if (!m) {
        rc = KG_EXIT_ERRORS;
    } else if (kg_cli_status(&c) != 0 && !o.force) {
        fprintf(stderr, "kinegraph convert: %s has errors; nothing written (--force to convert anyway)\n", in);
        rc = KG_EXIT_ERRORS;
    } else {
        size_t before = c.diags.count;
        kg_ledger ledger;
        kg_ledger_init(&ledger);
        if (kg_save(out, to, m, c.motion, &ledger, &c.diags) != 0) {
            /* exit 3 when the output could not be written (an io. error among
             * what kg_save added), else 1; kg_save adds at least one error */
            rc = KG_EXIT_ERRORS;
            for (size_t k = before; k < c.diags.count; k++) {
                const kg_diag *g = &c.diags.items[k];
                fprintf(stderr, "%s: %s: %s [%s]\n", g->file ? g->file : out, kg_severity_name(g->severity), g->message,
                        g->code);
                if (g->severity == KG_ERROR && !strncmp(g->code, "io.", 3)) rc = KG_EXIT_OUTPUT;
            }
        } else {
            fprintf(stderr, "kinegraph convert: wrote %s (%d links, %d coordinates, %d frames)\n", out,
                    m->nlink - m->nloop, m->nq, c.motion ? c.motion->nframes : 0);
            fprintf(stderr, "kinegraph convert: ledger: %zu dropped, %zu approximated, %zu defaulted%s\n",
                    kg_ledger_count(&ledger, KG_DROPPED), kg_ledger_count(&ledger, KG_APPROXIMATED),
                    kg_ledger_count(&ledger, KG_DEFAULTED), ledger_path || !ledger.count ? "" : " (--ledger FILE.json lists them)");
            rc = kg_cli_status(&c);
            if (c.json) { /* the ledger, and what was written */
                json_t *j = ledger_json(in, out, &ledger);
                json_object_set_new(j, "links", json_integer(m->nlink - m->nloop));
                json_object_set_new(j, "coordinates", json_integer(m->nq));
                json_object_set_new(j, "frames", json_integer(c.motion ? c.motion->nframes : 0));
                if (kg_json_print(j) != 0) rc = KG_EXIT_OUTPUT;
            }
            if (ledger_path && write_ledger(ledger_path, in, out, &ledger) != 0) {
                fprintf(stderr, "kinegraph convert: cannot write the ledger %s\n", ledger_path);
                rc = KG_EXIT_OUTPUT;
            }
        }
        kg_ledger_clear(&ledger);
    }
    kg_model_free(m);
    kg_cli_done(&c);
    return rc;
}
