/* kinegraph convert IN OUT: write a model and its motion in another format. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/common.h"
#include "formats/ledger.h"
#include "io/motion_file.h"
#include "io/save.h"

int kg_cmd_convert(int argc, char **argv);

static const char help[] =
    "usage: kinegraph convert IN OUT [--to FORMAT] [--motion FILE [--motion-fps N]] [--fps N]\n"
    "                         [--ledger FILE.json] [--force] [options]\n"
    "\n"
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
    "is not converted unless --force.\n"
    "\n"
    "options:\n"
    "  --to FORMAT            urdf, dae, bvh, csv, json, mjcf, gltf, glb or npz, whatever OUT's\n"
    "                         extension\n"
    "  --motion FILE          the motion of IN to write (CSV, BVH, COLLADA), in place of IN's own\n"
    "  --motion-fps N         the frame rate of a CSV FILE (default: a headed CSV's time column,\n"
    "                         30 for a headerless one, LAFAN1's)\n"
    "  --fps N                write the motion resampled to N frames/s (coordinates interpolated\n"
    "                         linearly, quaternions slerped)\n"
    "  --ledger FILE.json     write the conversion ledger there\n"
    "  --force                convert even when the input has errors\n";

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

int kg_cmd_convert(int argc, char **argv) {
    kg_cli c = {.command = "convert"};
    const char *in = NULL, *out = NULL, *to = NULL, *ledger_path = NULL, *motion_path = NULL;
    double fps = 0, motion_fps = 0;
    int force = 0;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            printf("%s%s%s", help, kg_cli_json_option_help, kg_cli_model_options_help);
            return KG_EXIT_OK;
        }
        if (strcmp(argv[i], "--force") == 0) {
            force = 1;
            continue;
        }
        if (strcmp(argv[i], "--ledger") == 0) {
            if (i + 1 >= argc) return kg_cli_usage_error("convert", "--ledger needs a file name");
            ledger_path = argv[++i];
            continue;
        }
        if (strcmp(argv[i], "--motion") == 0) {
            if (i + 1 >= argc) return kg_cli_usage_error("convert", "--motion needs a file name");
            motion_path = argv[++i];
            continue;
        }
        if (strcmp(argv[i], "--fps") == 0 || strcmp(argv[i], "--motion-fps") == 0) {
            const char *opt = argv[i];
            char *end;
            double v = i + 1 < argc ? strtod(argv[i + 1], &end) : NAN;
            if (i + 1 >= argc || end == argv[i + 1] || *end || !(v > 0) || !isfinite(v))
                return kg_cli_usage_error("convert", "%s needs a positive number", opt);
            *(strcmp(opt, "--fps") ? &motion_fps : &fps) = v;
            i++;
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
        return kg_cli_usage_error("convert", "cannot tell the output format of '%s' (.urdf, .dae, .bvh, .csv, .json, .xml, .gltf, .glb, .npz or --to)",
                                  out);
    if (to && !strcmp(to, "dae")) to = "collada";
    if (to && strcmp(to, "urdf") && strcmp(to, "collada") && strcmp(to, "bvh") && strcmp(to, "csv") && strcmp(to, "json") &&
        strcmp(to, "mjcf") && strcmp(to, "gltf") && strcmp(to, "glb") && strcmp(to, "npz"))
        return kg_cli_usage_error("convert", "--to takes urdf, dae, bvh, csv, json, mjcf, gltf, glb or npz");
    c.model_path = in;
    kg_model *m = kg_cli_load(&c, KG_ERROR);
    int rc = 0;
    if (m && motion_path) { /* the model's motion from FILE */
        if (kg_cli_load_motion(&c, m, motion_path, motion_fps) != 0) {
            kg_model_free(m);
            kg_cli_done(&c);
            return KG_EXIT_ERRORS;
        }
    }
    if (m && fps > 0 && c.motion) {
        kg_motion *r = kg_motion_resample(m, c.motion, fps);
        if (!r) {
            fprintf(stderr, "kinegraph convert: cannot resample the motion to %g frames/s\n", fps);
            kg_model_free(m);
            kg_cli_done(&c);
            return KG_EXIT_ERRORS;
        }
        kg_motion_free(c.motion);
        c.motion = r;
    }
    if (!m) {
        rc = KG_EXIT_ERRORS;
    } else if (kg_cli_status(&c) != 0 && !force) {
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
                json_t *o = ledger_json(in, out, &ledger);
                json_object_set_new(o, "links", json_integer(m->nlink - m->nloop));
                json_object_set_new(o, "coordinates", json_integer(m->nq));
                json_object_set_new(o, "frames", json_integer(c.motion ? c.motion->nframes : 0));
                if (kg_json_print(o) != 0) rc = KG_EXIT_OUTPUT;
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
