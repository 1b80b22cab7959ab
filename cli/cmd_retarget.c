/* kinegraph retarget CLIP... --robot MODEL -o OUT: motion-capture clips onto a humanoid
 * (the robot prepared once for all of them). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/retarget.h"
#include "cli/common.h"
#include "formats/save.h"
#include "importers/importers.h"

int kg_cmd_retarget(int argc, char **argv);

static const char help[] =
    "usage: kinegraph retarget CLIP... --robot MODEL -o OUT [--map MAP.json] [--report REPORT.json]\n"
    "                          [--csv-layout lafan1|kinegraph] [--no-balance] [--no-avoidance]\n"
    "                          [--iterations N] [--contact-height M] [--contact-speed V] [--srdf FILE]\n"
    "                          [--json] [options]\n"
    "\n"
    "Makes the humanoid MODEL (URDF or COLLADA) perform CLIP (BVH or a COLLADA skeleton\n"
    "clip): body parts matched by name and structure (or --map), limbs scaled by the ratio of\n"
    "leg and arm lengths, the clip turned to face +x from its first frame; per frame,\n"
    "whole-body IK with a floating root within joint position and velocity limits; feet\n"
    "down in the source (ankle within --contact-height of its lowest level and slower than\n"
    "--contact-speed) are pinned flat on the ground; the COM follows Kajita's preview\n"
    "control so that the ZMP stays in the support polygon; link pairs found in penetration\n"
    "(convex hulls of the collision geometry; pairs apart at rest) are pushed apart.\n"
    "OUT by extension: .csv (one row per frame: root x,y,z, root quaternion x,y,z,w, the\n"
    "robot's joint positions in its file's order, no header: the layout of retargeted\n"
    "LAFAN1 clips; --csv-layout kinegraph for the headed layout of `convert`), .json, .bvh,\n"
    ".dae (robot and animation), .urdf (the robot).\n"
    "The report (--report FILE, or stdout with --json) has the fields of the README; a\n"
    "summary goes to stderr. Exit status 1 when the clip or robot cannot be used (parts not\n"
    "found, errors), 3 when OUT cannot be written.\n"
    "Several clips: the robot is prepared once (its collision hulls: most of a short clip's\n"
    "time), OUT and REPORT are patterns where %s stands for each clip's file name without\n"
    "its extension (-o out/%s.csv --report out/%s.json), --json prints an array of reports;\n"
    "a clip that fails is reported and the others go on (the exit status is the worst).\n"
    "\n"
    "MAP.json: {\"source\": {PART: LINK, ...}, \"robot\": {PART: LINK, ...}}, PART one of pelvis,\n"
    "chest, head, left_hip, left_knee, left_ankle, left_foot, left_shoulder, left_elbow,\n"
    "left_wrist and the right_ ones.\n"
    "\n"
    "options:\n"
    "  --robot MODEL          the humanoid (required)\n"
    "  -o, --output OUT       the robot's motion (required)\n"
    "  --map MAP.json         body parts by link name, over the ones found\n"
    "  --report FILE.json     the report\n"
    "  --csv-layout L         lafan1 (default) or kinegraph\n"
    "  --no-balance           no preview control (the COM is left where the IK puts it)\n"
    "  --no-avoidance         self-collisions counted in the report, not pushed apart\n"
    "  --srdf FILE            the robot's SRDF: the link pairs it disables (<disable_collisions>)\n"
    "                         are neither pushed apart nor counted\n"
    "  --iterations N         whole-body IK iterations per frame (default 8)\n"
    "  --contact-height M     foot contact height, m on the robot's scale (default 0.04)\n"
    "  --contact-speed V      foot contact speed, m/s (default 0.5)\n"
    "  --zmp-margin M         the ZMP reference this far inside the support polygon, m (default 0.05;\n"
    "                         at its centre where the polygon is narrower)\n"
    "  --json                 print the report as JSON on stdout\n";

typedef struct opts {
    const char *robot, *out, *map, *report, *layout, *iters, *height, *speed, *zmp_margin, *srdf;
    int no_balance, no_avoidance;
    char **clips; /* the CLIP arguments, in order */
    int nclips;
} opts;

static int option(kg_cli *c, int argc, char **argv, int *i) {
    opts *o = c->ctx;
    const char *a = argv[*i];
    if (a[0] != '-' || !a[1]) { /* a clip: all of them here, the first also the command's MODEL */
        o->clips[o->nclips++] = argv[*i];
        if (!c->model_path) c->model_path = a;
        return 1;
    }
    int *flag = !strcmp(a, "--no-balance") ? &o->no_balance : !strcmp(a, "--no-avoidance") ? &o->no_avoidance : NULL;
    if (flag) {
        *flag = 1;
        return 1;
    }
    const char **slot = !strcmp(a, "--robot")                            ? &o->robot
                        : !strcmp(a, "-o") || !strcmp(a, "--output")     ? &o->out
                        : !strcmp(a, "--map")                            ? &o->map
                        : !strcmp(a, "--srdf")                           ? &o->srdf
                        : !strcmp(a, "--report")                         ? &o->report
                        : !strcmp(a, "--csv-layout")                     ? &o->layout
                        : !strcmp(a, "--iterations")                     ? &o->iters
                        : !strcmp(a, "--contact-height")                 ? &o->height
                        : !strcmp(a, "--contact-speed")                  ? &o->speed
                        : !strcmp(a, "--zmp-margin")                     ? &o->zmp_margin
                                                                         : NULL;
    if (!slot) return 0;
    return (*slot = kg_cli_value(c, argc, argv, i)) ? 1 : -1;
}

/* A number >= lo for option opt; 0, or -1 after a usage error. */
static int number(kg_cli *c, const char *opt, const char *text, double lo, double *out) {
    if (kg_cli_numbers(c, opt, text, out, 1) != 0) return -1;
    if (*out >= lo) return 0;
    kg_cli_usage_error("retarget", "%s takes a number >= %g, not '%s'", opt, lo, text);
    return -1;
}

/* One side of --map into a body map; 0, or -1 after an error message. */
static int read_map(json_t *side, const char *which, const kg_model *m, kg_body_map *map, const char *path) {
    for (int k = 0; k < KG_NPART; k++) map->link[k] = -1, map->how[k] = NULL;
    if (!side) return 0;
    if (!json_is_object(side)) {
        fprintf(stderr, "%s: error: \"%s\" must be an object of part: link name\n", path, which);
        return -1;
    }
    const char *key;
    json_t *v;
    json_object_foreach(side, key, v) {
        int part = kg_part_parse(key);
        if (part < 0) {
            fprintf(stderr, "%s: error: \"%s\": unknown part '%s'\n", path, which, key);
            return -1;
        }
        int l = json_is_string(v) ? kg_model_link(m, json_string_value(v)) : -1;
        if (l < 0) {
            fprintf(stderr, "%s: error: \"%s\".\"%s\": no link '%s' in %s\n", path, which, key,
                    json_is_string(v) ? json_string_value(v) : "(not a string)", m->source ? m->source : "the model");
            return -1;
        }
        map->link[part] = l, map->how[part] = "map";
    }
    return 0;
}

static json_t *report_json(const kg_retarget_report *r, const char *clip, const char *robot) {
    json_t *o = json_object();
    json_object_set_new(o, "clip", kg_json_str(clip));
    json_object_set_new(o, "robot", kg_json_str(robot));
    json_object_set_new(o, "source_family", kg_json_str(r->source_family));
    json_object_set_new(o, "frames", json_integer(r->frames));
    json_object_set_new(o, "frame_time", kg_json_num(r->frame_time));
    json_object_set_new(o, "leg_scale", kg_json_num(r->leg_scale));
    json_object_set_new(o, "arm_scale", kg_json_num(r->arm_scale));
    json_object_set_new(o, "keypoint_error_mean_mm", kg_json_num(r->keypoint_mean_mm));
    json_object_set_new(o, "keypoint_error_max_mm", kg_json_num(r->keypoint_max_mm));
    json_object_set_new(o, "contact_phases", json_integer(r->contact_phases));
    json_object_set_new(o, "narrowed_stances", json_integer(r->narrowed_stances));
    json_object_set_new(o, "widened_stances", json_integer(r->widened_stances));
    json_object_set_new(o, "delayed_landing_frames", json_integer(r->delayed_landing_frames));
    json_object_set_new(o, "contact_frames", json_integer(r->contact_frames));
    json_object_set_new(o, "double_support_frames", json_integer(r->double_support_frames));
    json_object_set_new(o, "foot_slip_max_mm", kg_json_num(r->slip_max_mm));
    json_object_set_new(o, "foot_slip_mean_mm", kg_json_num(r->slip_mean_mm));
    json_object_set_new(o, "penetration_max_mm", kg_json_num(r->penetration_max_mm));
    json_object_set_new(o, "float_max_mm", kg_json_num(r->float_max_mm));
    json_object_set_new(o, "limit_violations", json_integer(r->limit_violations));
    json_object_set_new(o, "velocity_violations", json_integer(r->velocity_violations));
    json_object_set_new(o, "self_collision_frames", r->self_collision_frames >= 0 ? json_integer(r->self_collision_frames) : json_null());
    json_object_set_new(o, "self_collision_pushed_frames", r->self_collision_frames >= 0 ? json_integer(r->self_collision_pushed_frames) : json_null());
    json_object_set_new(o, "self_collision_retreat_frames", r->self_collision_frames >= 0 ? json_integer(r->self_collision_retreat_frames) : json_null());
    json_object_set_new(o, "self_collision_fallback_frames", r->self_collision_frames >= 0 ? json_integer(r->self_collision_fallback_frames) : json_null());
    json_object_set_new(o, "self_collision_turned_frames", r->self_collision_frames >= 0 ? json_integer(r->self_collision_turned_frames) : json_null());
    json_object_set_new(o, "self_collision_whole_body_frames", r->self_collision_frames >= 0 ? json_integer(r->self_collision_whole_body_frames) : json_null());
    json_object_set_new(o, "self_collision_depth_max_mm", r->self_collision_frames >= 0 ? kg_json_num(r->self_collision_depth_max_mm) : json_null());
    json_object_set_new(o, "com_margin_min_mm", kg_json_num(r->com_margin_min_mm));
    json_object_set_new(o, "com_outside_percent", kg_json_num(r->com_outside_percent));
    json_object_set_new(o, "com_outside_double_support_percent", kg_json_num(r->com_outside_double_percent));
    json_object_set_new(o, "zmp_margin_min_mm", kg_json_num(r->zmp_margin_min_mm));
    json_object_set_new(o, "zmp_outside_percent", kg_json_num(r->zmp_outside_percent));
    json_object_set_new(o, "seconds", kg_json_num(r->seconds));
    json_object_set_new(o, "setup_seconds", kg_json_num(r->setup_seconds));
    json_object_set_new(o, "robot_seconds", kg_json_num(r->robot_seconds));
    json_object_set_new(o, "frames_per_second", kg_json_num(r->seconds > 0 ? r->frames / r->seconds : 0));
    return o;
}

/* pattern with its %s (at most one; none: the pattern itself) replaced by the
 * file name of clip without directory and extension. */
static char *expand(const char *pattern, const char *clip) {
    const char *base = strrchr(clip, '/');
    base = base ? base + 1 : clip;
    const char *dot = strrchr(base, '.');
    int stem = dot && dot != base ? (int)(dot - base) : (int)strlen(base);
    const char *at = strstr(pattern, "%s");
    size_t n = strlen(pattern) + (size_t)stem + 1;
    char *out = malloc(n);
    if (!out) return NULL;
    if (at) snprintf(out, n, "%.*s%.*s%s", (int)(at - pattern), pattern, stem, base, at + 2);
    else snprintf(out, n, "%s", pattern);
    return out;
}

/* One clip onto the prepared robot: its motion to out, its report to
 * report_path and *j; robot_seconds, the robot's preparation, is counted in
 * this clip's times (the first clip's: a single clip's report reads as a
 * one-shot kg_retarget's). Returns an exit code. */
static int retarget_clip(kg_cli *c, const opts *o, const char *clip_path, const kg_model *robot,
                         const kg_retarget_robot *rr, json_t *map, kg_retarget_options ro, const char *format,
                         const char *out_path, const char *report_path, double robot_seconds, json_t **j) {
    *j = NULL;
    c->model_path = clip_path;
    kg_motion_free(c->motion);
    c->motion = NULL;
    kg_diags_clear(&c->diags); /* the robot's and earlier clips' are printed */
    kg_model *clip = kg_cli_load(c, KG_ERROR);
    kg_motion *out = NULL;
    int rc = KG_EXIT_ERRORS;
    if (!clip || kg_cli_status(c) != 0) goto done;
    if (!c->motion || c->motion->nframes < 1) {
        fprintf(stderr, "%s: error: no motion to retarget\n", clip_path);
        goto done;
    }
    kg_body_map smap;
    if (map) { /* the map's source side names this clip's links */
        if (read_map(json_object_get(map, "source"), "source", clip, &smap, o->map) != 0) goto done;
        ro.source_map = &smap;
    }
    kg_retarget_report rep;
    size_t before = c->diags.count;
    int r = kg_retarget_prepared(rr, clip, c->motion, &ro, &out, &rep, &c->diags);
    kg_cli_print_diags_from(c, stderr, c->verbose ? KG_INFO : KG_WARNING, before);
    if (r != 0) goto done;
    rep.robot_seconds = robot_seconds;
    rep.setup_seconds += robot_seconds, rep.seconds += robot_seconds;
    before = c->diags.count;
    if (kg_save(out_path, format, robot, out, NULL, &c->diags) != 0) {
        kg_cli_print_diags_from(c, stderr, KG_ERROR, before);
        rc = KG_EXIT_OUTPUT;
        goto done;
    }
    *j = report_json(&rep, clip_path, o->robot);
    rc = KG_EXIT_OK;
    if (report_path && kg_json_write_file(*j, report_path) != 0) {
        fprintf(stderr, "kinegraph retarget: cannot write %s\n", report_path);
        rc = KG_EXIT_OUTPUT;
    }
    fprintf(stderr,
            "kinegraph retarget: wrote %s: %d frames in %.3f s (%.0f frames/s); keypoints %.1f mm mean; foot slip "
            "%.2f mm max; penetration %.2f mm; limit/velocity violations %d/%d; COM out on %.1f %% of double "
            "support; ZMP out on %.1f %% of contact frames\n",
            out_path, rep.frames, rep.seconds, rep.seconds > 0 ? rep.frames / rep.seconds : 0, rep.keypoint_mean_mm,
            rep.slip_max_mm, rep.penetration_max_mm, rep.limit_violations, rep.velocity_violations,
            rep.com_outside_double_percent, rep.zmp_outside_percent);
done:
    kg_motion_free(out);
    kg_model_free(clip);
    return rc;
}

int kg_cmd_retarget(int argc, char **argv) {
    opts o = {0};
    o.clips = calloc((size_t)argc + 1, sizeof *o.clips);
    if (!o.clips) return KG_EXIT_ERRORS;
    kg_cli c = {.command = "retarget", .option = option, .ctx = &o};
    int rc = kg_cli_parse_args(&c, argc, argv, help, 0);
    if (rc >= 0) {
        free(o.clips);
        return rc;
    }
    kg_model *robot = NULL;
    kg_retarget_robot *rr = NULL;
    kg_link_pair *ignore = NULL;
    int nignore = 0;
    json_t *map = NULL, *all = json_array();
    char **outs = calloc((size_t)o.nclips + 1, sizeof *outs), **reports = calloc((size_t)o.nclips + 1, sizeof *reports);
    const char *format = o.out ? kg_output_format(o.out) : NULL;
    rc = KG_EXIT_USAGE;
    if (!o.robot) {
        kg_cli_usage_error("retarget", "--robot MODEL is required");
        goto done;
    }
    if (!o.out) {
        kg_cli_usage_error("retarget", "-o OUT is required");
        goto done;
    }
    if (!format) {
        kg_cli_usage_error("retarget", "cannot tell the format of '%s' (.csv, .json, .bvh, .dae, .urdf)", o.out);
        goto done;
    }
    if (o.layout && strcmp(o.layout, "lafan1") && strcmp(o.layout, "kinegraph")) {
        kg_cli_usage_error("retarget", "--csv-layout takes lafan1 or kinegraph");
        goto done;
    }
    if (o.nclips > 1 && (!strstr(o.out, "%s") || (o.report && !strstr(o.report, "%s")))) {
        kg_cli_usage_error("retarget", "several clips: -o and --report need %%s for each clip's name (-o out/%%s.csv)");
        goto done;
    }
    if (!strcmp(format, "csv") && (!o.layout || !strcmp(o.layout, "lafan1"))) format = "lafan1";
    kg_retarget_options ro;
    kg_retarget_defaults(&ro);
    if (o.no_balance) ro.balance = 0;
    if (o.no_avoidance) ro.avoid_self_collision = 0;
    double v;
    if (o.iters) {
        if (number(&c, "--iterations", o.iters, 1, &v) != 0) goto done;
        ro.iterations = (int)v;
    }
    if ((o.height && number(&c, "--contact-height", o.height, 0, &ro.contact_height) != 0) ||
        (o.speed && number(&c, "--contact-speed", o.speed, 0, &ro.contact_speed) != 0) ||
        (o.zmp_margin && number(&c, "--zmp-margin", o.zmp_margin, 0, &ro.zmp_margin) != 0))
        goto done;
    if (!outs || !reports || !all) {
        rc = KG_EXIT_ERRORS;
        goto done;
    }
    for (int k = 0; k < o.nclips; k++) { /* two clips of one name would overwrite each other */
        outs[k] = expand(o.out, o.clips[k]);
        reports[k] = o.report ? expand(o.report, o.clips[k]) : NULL;
        if (!outs[k] || (o.report && !reports[k])) {
            rc = KG_EXIT_ERRORS;
            goto done;
        }
        for (int i = 0; i < k; i++)
            if (!strcmp(outs[i], outs[k])) {
                kg_cli_usage_error("retarget", "'%s' and '%s' would both be written to %s", o.clips[i], o.clips[k],
                                   outs[k]);
                goto done;
            }
    }

    rc = KG_EXIT_ERRORS;
    kg_load_options lo = kg_cli_load_options(&c);
    size_t before = c.diags.count;
    robot = kg_load(o.robot, &lo, &c.diags);
    kg_cli_print_diags_from(&c, stderr, c.verbose ? KG_INFO : KG_ERROR, before);
    if (!robot || kg_cli_status(&c) != 0) goto done;
    kg_body_map rmap;
    if (o.map) {
        json_error_t err;
        map = json_load_file(o.map, 0, &err);
        if (!map || !json_is_object(map)) {
            fprintf(stderr, "%s:%d: error: %s\n", o.map, map ? 1 : err.line, map ? "not a JSON object" : err.text);
            goto done;
        }
        if (read_map(json_object_get(map, "robot"), "robot", robot, &rmap, o.map) != 0) goto done;
    }
    before = c.diags.count;
    if (o.srdf && kg_import_srdf_pairs(o.srdf, robot, &ignore, &nignore, &c.diags) != 0) {
        kg_cli_print_diags_from(&c, stderr, KG_WARNING, before);
        goto done;
    }
    rr = kg_retarget_robot_new(robot, o.map ? &rmap : NULL, ignore, nignore, &c.diags);
    kg_cli_print_diags_from(&c, stderr, c.verbose ? KG_INFO : KG_WARNING, before);
    if (!rr) goto done;
    rc = KG_EXIT_OK;
    for (int k = 0; k < o.nclips; k++) {
        json_t *j = NULL;
        int r = retarget_clip(&c, &o, o.clips[k], robot, rr, map, ro, format, outs[k], reports[k],
                              k == 0 ? kg_retarget_robot_seconds(rr) : 0, &j);
        if (j) json_array_append_new(all, j);
        if (r > rc) rc = r;
    }
    if (c.json && json_array_size(all) > 0) {
        json_t *print = o.nclips == 1 ? json_incref(json_array_get(all, 0)) : json_incref(all);
        if (kg_json_print(print) != 0) rc = KG_EXIT_OUTPUT;
    }
done:
    for (int k = 0; outs && reports && k < o.nclips; k++) free(outs[k]), free(reports[k]);
    free(outs), free(reports), free(o.clips);
    json_decref(all);
    json_decref(map);
    kg_retarget_robot_free(rr);
    free(ignore);
    kg_model_free(robot);
    c.model_path = NULL;
    kg_cli_done(&c);
    return rc;
}
