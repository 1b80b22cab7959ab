/* kinegraph retarget CLIP... --robot MODEL -o OUT: motion-capture clips onto a humanoid
 * (the robot prepared once for all of them). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/retarget/retarget.h"
#include "cli/common.h"
#include "cli/retarget_json.h"
#include "exporters/exporters.h"
#include "formats/save.h"
#include "importers/importers.h"

int kg_cmd_retarget(int argc, char **argv);

static const char help[] =
    "usage: kinegraph retarget CLIP... --robot MODEL -o OUT [--map MAP.json] [--report REPORT.json]\n"
    "                          [--csv-layout lafan1|kinegraph] [--no-balance] [--no-avoidance]\n"
    "                          [--tune NAME=VALUE,...] [--srdf FILE] [--trace FILE.csv] [options]\n"
    "       kinegraph retarget CLIP --robot MODEL --print-map\n"
    "       kinegraph retarget --print-tuning [--tune NAME=VALUE,...]\n"
    "\n"
    "Makes the humanoid MODEL (URDF or COLLADA) perform CLIP (BVH or a COLLADA skeleton clip),\n"
    "each frame one constrained solve over the robot's joints and floating root: the source's\n"
    "limb and trunk directions, body frames, hands and swinging feet followed, the COM on a\n"
    "preview-control balance reference; joint position and velocity limits, the root's speed,\n"
    "planted soles fixed on the ground (turning with a pivoting source foot), swinging soles\n"
    "above it, link pairs kept apart and the COM over both feet as constraints (a violation is\n"
    "corrected as a heavily weighted cost, and the report says how much each kind took). Body\n"
    "parts are found by structure (names only break ties), or given (--map); the clip's floor\n"
    "is tracked locally and its foot contacts found from heel and toe height and speed.\n"
    "OUT by extension: .csv (one row per frame: root x,y,z, root quaternion x,y,z,w, the\n"
    "robot's actuated joints in its file's order, no header: the layout of retargeted LAFAN1\n"
    "clips; --csv-layout kinegraph for the headed layout of `convert`), .json, .bvh, .dae (robot\n"
    "and animation), .urdf (the robot). Mimic followers are not written (their leaders are).\n"
    "The report (--report FILE, or stdout with --json) has the fields of the README; a\n"
    "summary goes to stderr. Exit status 1 when the clip or robot cannot be used (parts not\n"
    "found, errors), 2 on a usage error, 3 when OUT cannot be written.\n"
    "Several clips: the robot is prepared once (its collision hulls: most of a short clip's\n"
    "time), OUT and REPORT are patterns where %s stands for each clip's file name without\n"
    "its extension (-o out/%s.csv --report out/%s.json), --json prints an array of reports;\n"
    "a clip that fails is reported and the others go on (the exit status is the worst).\n"
    "\n"
    "MAP.json: {\"source\": {PART: LINK, ...}, \"robot\": {PART: LINK, ...}}, PART one of pelvis,\n"
    "chest, head, left_hip, left_knee, left_ankle, left_foot, left_shoulder, left_elbow,\n"
    "left_wrist and the right_ ones; a LINK may be {\"link\": NAME, \"point\": [x, y, z]} (a point\n"
    "on it, m). --print-map writes the maps found in this form, with why each part is where it\n"
    "is: a file to edit and pass back.\n"
    "\n"
    "options:\n"
    "  --robot MODEL          the humanoid (required)\n"
    "  -o, --output OUT       the robot's motion (required to retarget)\n"
    "  --map MAP.json         body parts by link name, over the ones found\n"
    "  --print-map            print the body maps of the first CLIP and of MODEL as JSON, and stop\n"
    "  --report FILE.json     the report\n"
    "  --csv-layout L         lafan1 (default) or kinegraph\n"
    "  --no-balance           no preview-control COM reference (the source's COM instead) and no\n"
    "                         COM constraint\n"
    "  --no-avoidance         self-collisions measured in the report, not avoided\n"
    "  --srdf FILE            the robot's SRDF: the link pairs it disables (<disable_collisions>)\n"
    "                         are neither kept apart nor counted\n"
    "  --tune NAME=VALUE,...  set numbers of the tuning (their names, units and defaults:\n"
    "                         --print-tuning; their meaning: the README)\n"
    "  --print-tuning         print the tuning as JSON ({NAME: {\"value\", \"unit\"}}) and stop\n"
    "  --iterations N         QP steps per frame at most (the tuning's iterations; default 8)\n"
    "  --contact-height M     a heel or toe this near its floor level can be down, m on the\n"
    "                         robot's scale (default 0.04)\n"
    "  --contact-speed V      and slower than this, m/s (default 0.5)\n"
    "  --zmp-margin M         the ZMP reference this far inside the support polygon, m (default 0.05;\n"
    "                         at its centre where the polygon is narrower)\n"
    "  --trace FILE.csv       one line per frame of what the solve saw and did (contacts, COM\n"
    "                         reference, root, feet, pins, slack); %s as in -o for several clips\n"
    "  --json                 print the report as JSON on stdout\n";

typedef struct opts {
    const char *robot, *out, *map, *report, *layout, *iters, *height, *speed, *zmp_margin, *srdf, *trace, *tune;
    int no_balance, no_avoidance, print_map, print_tuning;
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
    int *flag = !strcmp(a, "--no-balance")       ? &o->no_balance
                : !strcmp(a, "--no-avoidance")   ? &o->no_avoidance
                : !strcmp(a, "--print-map")      ? &o->print_map
                : !strcmp(a, "--print-tuning")   ? &o->print_tuning
                                                 : NULL;
    if (flag) {
        *flag = 1;
        if (flag == &o->print_tuning && !c->model_path) c->model_path = ""; /* it needs no clip */
        return 1;
    }
    const char **slot = !strcmp(a, "--robot")                            ? &o->robot
                        : !strcmp(a, "-o") || !strcmp(a, "--output")     ? &o->out
                        : !strcmp(a, "--map")                            ? &o->map
                        : !strcmp(a, "--srdf")                           ? &o->srdf
                        : !strcmp(a, "--report")                         ? &o->report
                        : !strcmp(a, "--trace")                          ? &o->trace
                        : !strcmp(a, "--tune")                           ? &o->tune
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

/* --tune NAME=VALUE,...: 0, or -1 after a usage error. */
static int tune(const char *text, kg_retarget_tuning *t) {
    while (text && *text) {
        char name[64];
        double v;
        int n = 0;
        if (sscanf(text, "%63[^=,]=%lf%n", name, &v, &n) != 2 || !isfinite(v) || (text[n] && text[n] != ',')) {
            kg_cli_usage_error("retarget", "--tune takes NAME=VALUE[,NAME=VALUE...], not '%s'", text);
            return -1;
        }
        if (kg_retarget_tuning_set(t, name, v) != 0) {
            kg_cli_usage_error("retarget", "--tune: no number named '%s' (see --print-tuning)", name);
            return -1;
        }
        text += n + (text[n] == ',');
    }
    return 0;
}

/* The options that set the retargeting: 0, or -1 after a usage error. */
static int settings(kg_cli *c, const opts *o, kg_retarget_options *ro) {
    kg_retarget_defaults(ro);
    if (o->no_balance) ro->balance = 0;
    if (o->no_avoidance) ro->avoid_self_collision = 0;
    double v;
    if (o->iters) {
        if (number(c, "--iterations", o->iters, 1, &v) != 0) return -1;
        ro->tune.iterations = (int)v;
    }
    if ((o->height && number(c, "--contact-height", o->height, 0, &ro->tune.contact_height) != 0) ||
        (o->speed && number(c, "--contact-speed", o->speed, 0, &ro->tune.contact_speed) != 0) ||
        (o->zmp_margin && number(c, "--zmp-margin", o->zmp_margin, 0, &ro->tune.zmp_margin) != 0))
        return -1;
    /* the releases follow the thresholds given, in the defaults' proportion */
    if (o->height) ro->tune.contact_height_off = 1.5 * ro->tune.contact_height;
    if (o->speed) ro->tune.contact_speed_off = 1.6 * ro->tune.contact_speed;
    return tune(o->tune, &ro->tune);
}

static int print_tuning(const kg_retarget_tuning *t) {
    int n;
    const kg_tuning_field *f = kg_retarget_tuning_fields(&n);
    json_t *o = json_object();
    for (int k = 0; k < n; k++) {
        json_t *e = json_object();
        json_object_set_new(e, "value", kg_json_num(kg_retarget_tuning_get(t, &f[k])));
        json_object_set_new(e, "unit", kg_json_str(f[k].unit));
        json_object_set_new(o, f[k].name, e);
    }
    return kg_json_print(o) != 0 ? KG_EXIT_OUTPUT : KG_EXIT_OK;
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

/* Loads clip_path into c (model returned, motion in c->motion); NULL after
 * its diagnostics. */
static kg_model *load_clip(kg_cli *c, const char *clip_path) {
    c->model_path = clip_path;
    kg_motion_free(c->motion);
    c->motion = NULL;
    kg_diags_clear(&c->diags); /* the robot's and earlier clips' are printed */
    kg_model *clip = kg_cli_load(c, KG_ERROR);
    if (clip && kg_cli_status(c) == 0 && c->motion && c->motion->nframes >= 1) return clip;
    if (clip && kg_cli_status(c) == 0) fprintf(stderr, "%s: error: no motion to retarget\n", clip_path);
    kg_model_free(clip);
    return NULL;
}

static void print_summary(const char *out_path, const kg_retarget_report *r) {
    fprintf(stderr,
            "kinegraph retarget: wrote %s: %d frames in %.3f s (%.0f frames/s); pose error %.1f deg mean, %.1f p95; "
            "foot slip %.2f mm max; penetration %.2f mm; hover %.1f %%; limit/velocity violations %d/%d; ZMP out "
            "on %.1f %% of contact frames; root %.2f m/s max\n",
            out_path, r->frames, r->seconds, r->seconds > 0 ? r->frames / r->seconds : 0, r->pose_mean_deg,
            r->pose_p95_deg, r->slip_max_mm, r->penetration_max_mm, r->hover_percent, r->limit_violations,
            r->velocity_violations, r->zmp_outside_percent, r->root_speed_max);
}

/* One clip onto the prepared robot: its motion to out, its report to
 * report_path and *j; robot_seconds, the robot's preparation, is counted in
 * this clip's times (the first clip's: a single clip's report reads as a
 * one-shot kg_retarget's). Returns an exit code. */
static int retarget_clip(kg_cli *c, const opts *o, const char *clip_path, const kg_model *robot,
                         const kg_retarget_robot *rr, json_t *map, kg_retarget_options ro, const char *format,
                         const char *out_path, const char *report_path, double robot_seconds, json_t **j) {
    *j = NULL;
    kg_model *clip = load_clip(c, clip_path);
    kg_motion *out = NULL;
    kg_body_map smap;
    FILE *trace = NULL;
    char *trace_path = NULL;
    int rc = KG_EXIT_ERRORS;
    if (!clip) goto done;
    if (map) { /* the map's source side names this clip's links */
        if (kg_map_read(json_object_get(map, "source"), "source", clip, &smap, o->map) != 0) goto done;
        ro.source_map = &smap;
    }
    if (o->trace && (!(trace_path = expand(o->trace, clip_path)) || !(trace = fopen(trace_path, "w")))) {
        fprintf(stderr, "kinegraph retarget: cannot write %s\n", trace_path ? trace_path : o->trace);
        rc = KG_EXIT_OUTPUT;
        goto done;
    }
    kg_retarget_report rep;
    size_t before = c->diags.count;
    ro.trace = trace;
    int r = kg_retarget_prepared(rr, clip, c->motion, &ro, &out, &rep, &c->diags);
    kg_cli_print_diags_from(c, stderr, c->verbose ? KG_INFO : KG_WARNING, before);
    if (r != 0) goto done;
    rep.robot_seconds = robot_seconds;
    rep.setup_seconds += robot_seconds, rep.seconds += robot_seconds;
    before = c->diags.count;
    kg_export_options eo = {.skip_followers = 1}; /* the robot's motion: its actuated joints */
    if (kg_save_with(out_path, format, robot, out, &eo, NULL, &c->diags) != 0) {
        kg_cli_print_diags_from(c, stderr, KG_ERROR, before);
        rc = KG_EXIT_OUTPUT;
        goto done;
    }
    *j = kg_retarget_report_json(&rep, clip_path, o->robot);
    rc = KG_EXIT_OK;
    if (report_path && kg_json_write_file(*j, report_path) != 0) {
        fprintf(stderr, "kinegraph retarget: cannot write %s\n", report_path);
        rc = KG_EXIT_OUTPUT;
    }
    print_summary(out_path, &rep);
done:
    if (trace) fclose(trace);
    free(trace_path);
    kg_motion_free(out);
    kg_model_free(clip);
    return rc;
}

/* --print-map: the maps found (over --map's) for the first clip and the robot. */
static int print_maps(kg_cli *c, const opts *o, const kg_model *robot, const kg_retarget_robot *rr, json_t *map) {
    kg_model *clip = load_clip(c, o->clips[0]);
    if (!clip) return KG_EXIT_ERRORS;
    kg_body_map smap;
    int rc = KG_EXIT_ERRORS;
    if (kg_map_read(map ? json_object_get(map, "source") : NULL, "source", clip, &smap, o->map) == 0) {
        size_t before = c->diags.count;
        int missing = kg_body_map_find_at(clip, c->motion->q, &smap, &c->diags);
        kg_cli_print_diags_from(c, stderr, KG_WARNING, before);
        if (missing == 0) {
            json_t *j = json_object(), *why = json_object();
            json_object_set_new(j, "source", kg_map_json(clip, &smap));
            json_object_set_new(j, "robot", kg_map_json(robot, kg_retarget_robot_map(rr)));
            json_object_set_new(why, "source", kg_map_why_json(&smap));
            json_object_set_new(why, "robot", kg_map_why_json(kg_retarget_robot_map(rr)));
            json_object_set_new(j, "why", why);
            rc = kg_json_print(j) != 0 ? KG_EXIT_OUTPUT : KG_EXIT_OK;
        }
    }
    kg_model_free(clip);
    return rc;
}

/* The usage checks of a retargeting run: 0, or -1 after a usage error. */
static int check_usage(const opts *o, const char **format) {
    if (!o->robot) return kg_cli_usage_error("retarget", "--robot MODEL is required"), -1;
    if (!o->nclips) return kg_cli_usage_error("retarget", "no CLIP given"), -1;
    if (o->print_map) return 0;
    if (!o->out) return kg_cli_usage_error("retarget", "-o OUT is required"), -1;
    if (!(*format = kg_output_format(o->out)))
        return kg_cli_usage_error("retarget", "cannot tell the format of '%s' (.csv, .json, .bvh, .dae, .urdf)", o->out), -1;
    if (o->layout && strcmp(o->layout, "lafan1") && strcmp(o->layout, "kinegraph"))
        return kg_cli_usage_error("retarget", "--csv-layout takes lafan1 or kinegraph"), -1;
    if (o->nclips > 1 && (!strstr(o->out, "%s") || (o->report && !strstr(o->report, "%s"))))
        return kg_cli_usage_error("retarget", "several clips: -o and --report need %%s for each clip's name (-o "
                                              "out/%%s.csv)"), -1;
    if (!strcmp(*format, "csv") && (!o->layout || !strcmp(o->layout, "lafan1"))) *format = "lafan1";
    return 0;
}

/* Each clip's output and report paths; two clips of one name would
 * overwrite each other. Returns an exit code. */
static int paths(const opts *o, char **outs, char **reports) {
    for (int k = 0; k < o->nclips; k++) {
        outs[k] = expand(o->out, o->clips[k]);
        reports[k] = o->report ? expand(o->report, o->clips[k]) : NULL;
        if (!outs[k] || (o->report && !reports[k])) return KG_EXIT_ERRORS;
        for (int i = 0; i < k; i++)
            if (!strcmp(outs[i], outs[k])) {
                kg_cli_usage_error("retarget", "'%s' and '%s' would both be written to %s", o->clips[i], o->clips[k],
                                   outs[k]);
                return KG_EXIT_USAGE;
            }
    }
    return KG_EXIT_OK;
}

/* The robot, its map and SRDF, prepared; NULL after its diagnostics. */
static kg_retarget_robot *prepare_robot(kg_cli *c, const opts *o, kg_model **robot, json_t **map) {
    kg_load_options lo = kg_cli_load_options(c);
    size_t before = c->diags.count;
    *robot = kg_load(o->robot, &lo, &c->diags);
    kg_cli_print_diags_from(c, stderr, c->verbose ? KG_INFO : KG_ERROR, before);
    if (!*robot || kg_cli_status(c) != 0) return NULL;
    kg_body_map rmap;
    if (o->map) {
        json_error_t err;
        *map = json_load_file(o->map, 0, &err);
        if (!*map || !json_is_object(*map)) {
            fprintf(stderr, "%s:%d: error: %s\n", o->map, *map ? 1 : err.line, *map ? "not a JSON object" : err.text);
            return NULL;
        }
        if (kg_map_read(json_object_get(*map, "robot"), "robot", *robot, &rmap, o->map) != 0) return NULL;
    }
    kg_link_pair *ignore = NULL;
    int nignore = 0;
    before = c->diags.count;
    if (o->srdf && kg_import_srdf_pairs(o->srdf, *robot, &ignore, &nignore, &c->diags) != 0) {
        kg_cli_print_diags_from(c, stderr, KG_WARNING, before);
        return NULL;
    }
    kg_retarget_robot *rr = kg_retarget_robot_new(*robot, o->map ? &rmap : NULL, ignore, nignore, &c->diags);
    kg_cli_print_diags_from(c, stderr, c->verbose ? KG_INFO : KG_WARNING, before);
    free(ignore);
    return rr;
}

/* Every clip onto the prepared robot; the worst exit code. */
static int run_clips(kg_cli *c, const opts *o, const kg_model *robot, const kg_retarget_robot *rr, json_t *map,
                     const kg_retarget_options *ro, const char *format, char **outs, char **reports) {
    json_t *all = json_array();
    int rc = KG_EXIT_OK;
    for (int k = 0; k < o->nclips; k++) {
        json_t *j = NULL;
        int r = retarget_clip(c, o, o->clips[k], robot, rr, map, *ro, format, outs[k], reports[k],
                              k == 0 ? kg_retarget_robot_seconds(rr) : 0, &j);
        if (j) json_array_append_new(all, j);
        if (r > rc) rc = r;
    }
    if (c->json && json_array_size(all) > 0) {
        json_t *print = o->nclips == 1 ? json_incref(json_array_get(all, 0)) : json_incref(all);
        if (kg_json_print(print) != 0) rc = KG_EXIT_OUTPUT;
    }
    json_decref(all);
    return rc;
}

int kg_cmd_retarget(int argc, char **argv) {
    opts o = {0};
    o.clips = calloc((size_t)argc + 1, sizeof *o.clips);
    if (!o.clips) return KG_EXIT_ERRORS;
    kg_cli c = {.command = "retarget", .option = option, .ctx = &o};
    int rc = kg_cli_parse_args(&c, argc, argv, help, 0);
    kg_retarget_options ro;
    if (rc < 0) rc = settings(&c, &o, &ro) != 0 ? KG_EXIT_USAGE : -1;
    if (rc < 0 && o.print_tuning) rc = print_tuning(&ro.tune);
    if (rc >= 0) {
        free(o.clips);
        return rc;
    }
    kg_model *robot = NULL;
    kg_retarget_robot *rr = NULL;
    json_t *map = NULL;
    char **outs = calloc((size_t)o.nclips + 1, sizeof *outs), **reports = calloc((size_t)o.nclips + 1, sizeof *reports);
    const char *format = NULL;
    rc = KG_EXIT_USAGE;
    if (check_usage(&o, &format) != 0) goto done;
    rc = !outs || !reports ? KG_EXIT_ERRORS : o.print_map ? KG_EXIT_OK : paths(&o, outs, reports);
    if (rc != KG_EXIT_OK) goto done;
    rc = KG_EXIT_ERRORS;
    if (!(rr = prepare_robot(&c, &o, &robot, &map))) goto done;
    rc = o.print_map ? print_maps(&c, &o, robot, rr, map)
                     : run_clips(&c, &o, robot, rr, map, &ro, format, outs, reports);
done:
    for (int k = 0; outs && reports && k < o.nclips; k++) free(outs[k]), free(reports[k]);
    free(outs), free(reports), free(o.clips);
    json_decref(map);
    kg_retarget_robot_free(rr);
    kg_model_free(robot);
    c.model_path = NULL;
    kg_cli_done(&c);
    return rc;
}
