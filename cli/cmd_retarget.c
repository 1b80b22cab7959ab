/* kinegraph retarget CLIP... --robot MODEL -o OUT: motion-capture clips onto a humanoid
 * (the robot prepared once for all of them, the clips on --jobs threads). */
#define _POSIX_C_SOURCE 200809L /* open_memstream, clock_gettime */
#include <libxml/parser.h>
#include <limits.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "kinegraph/kinematics.h"
#include "kinegraph/torques.h"
#include "kinegraph/retarget.h"
#include "cli/common.h"
#include "core/model.h"
#include "core/spatial.h"
#include "cli/retarget_json.h"
#include "cli/shard.h"
#include "exporters/exporters.h"
#include "io/save.h"
#include "importers/importers.h"

/* --jobs at most (as check's): more threads than that only contend for the cores. */
#define KG_RETARGET_MAX_JOBS 256

typedef struct opts {
    const char *robot, *out, *map, *report, *layout, *iters, *height, *speed, *zmp_margin, *srdf, *trace, *tune;
    const char *fps_text, *jobs_text, *shard_text, *summary;
    int no_balance, no_avoidance, dynamics_filter, print_map, print_tuning, skip_existing, print_shards, csv_contacts;
    int shard_k, shard_n; /* --shard, or 1/1 */
    double fps; /* --fps, or 0 */
    int jobs;
    char **clips; /* the CLIP arguments, in order (with --shard, the part's) */
    char **all_clips; /* with --shard, all the CLIP arguments (o->clips is the part's) */
    int nclips;
} opts;

static int run(int argc, char **argv);

/* A clip: all of them here, the first also the command's MODEL (its diagnostics' name). */
static int operand(kg_cli *c, char *word) {
    opts *o = c->ctx;
    o->clips[o->nclips++] = word;
    if (!c->model_path) c->model_path = word;
    return 0;
}

static const kg_cli_option options[] = {
    {"--robot", .value = "MODEL", KG_TEXT(opts, robot), .complete = KG_COMPLETE_FILE,
     .help = "the humanoid (required)"},
    {"--output", "-o", "OUT", KG_TEXT(opts, out), .complete = KG_COMPLETE_FILE,
     .help = "the robot's motion (required to retarget)"},
    {"--map", .value = "MAP.json", KG_TEXT(opts, map), .complete = KG_COMPLETE_FILE,
     .help = "body parts by link name, over the ones found"},
    {"--print-map", KG_FLAG(opts, print_map, 1),
     .help = "print the body maps of the first CLIP and of MODEL as JSON, and stop"},
    {"--report", .value = "FILE.json", KG_TEXT(opts, report), .complete = KG_COMPLETE_FILE,
     .help = "the report"},
    {"--csv-layout", .value = "L", KG_TEXT(opts, layout), .complete = "lafan1 kinegraph",
     .help = "lafan1 (default) or kinegraph"},
    {"--csv-contacts", KG_FLAG(opts, csv_contacts, 1),
     .help = "with --csv-layout kinegraph: end each row with the feet's contact_left\n"
             "and contact_right (0/1) as the report's dynamics count them, which\n"
             "`dynamics` reads back"},
    {"--no-balance", KG_FLAG(opts, no_balance, 1),
     .help = "no balance COM reference (the source's COM instead) and no\n"
             "COM constraint"},
    {"--no-avoidance", KG_FLAG(opts, no_avoidance, 1),
     .help = "self-collisions measured in the report, not avoided"},
    {"--dynamics-filter", KG_FLAG(opts, dynamics_filter, 1),
     .help = "correct the motion so its multibody ZMP stays in the support polygon\n"
             "(irteus's preview-control dynamics filter, through the joints that\n"
             "carry no foot); the report gains dynamics_filter, before and after"},
    {"--srdf", .value = "FILE", KG_TEXT(opts, srdf), .complete = KG_COMPLETE_FILE,
     .help = "the robot's SRDF: the link pairs it disables (<disable_collisions>)\n"
             "are neither kept apart nor counted"},
    {"--tune", .value = "NAME=VALUE,...", KG_TEXT(opts, tune),
     .help = "set numbers of the tuning (their names, units and defaults:\n"
             "--print-tuning; their meaning: the README)"},
    {"--print-tuning", KG_FLAG(opts, print_tuning, 1),
     .help = "print the tuning as JSON ({NAME: {\"value\", \"unit\"}}) and stop"},
    {"--iterations", .value = "N", KG_TEXT(opts, iters),
     .help = "QP steps per frame at most (the tuning's iterations; default 8)"},
    {"--contact-height", .value = "M", KG_TEXT(opts, height),
     .help = "a heel or toe this near its floor level can be down, m on the\n"
             "robot's scale (default 0.04)"},
    {"--contact-speed", .value = "V", KG_TEXT(opts, speed),
     .help = "and slower than this, m/s (default 0.5)"},
    {"--zmp-margin", .value = "M", KG_TEXT(opts, zmp_margin),
     .help = "the ZMP reference this far inside the support polygon, m (default 0.09;\n"
             "at its centre where the polygon is narrower)"},
    {"--trace", .value = "FILE.csv", KG_TEXT(opts, trace), .complete = KG_COMPLETE_FILE,
     .help = "one line per frame of what the solve saw and did (contacts, COM\n"
             "reference, root, feet, pins, slack); %s as in -o for several clips"},
    {"--fps", .value = "N", KG_TEXT(opts, fps_text),
     .help = "write the motion resampled to N frames/s (the retargeting runs at\n"
             "the clip's rate, and the report counts its frames): coordinates\n"
             "interpolated linearly, quaternions slerped, frames on the new\n"
             "times kept as they are"},
    {"--jobs", .value = "N", KG_TEXT(opts, jobs_text),
     .help = "retarget N clips at a time (default 1; at most 256); the same bytes\n"
             "out as one at a time"},
    {"--skip-existing", KG_FLAG(opts, skip_existing, 1),
     .help = "skip a clip whose OUT exists (said on stderr); with --json its\n"
             "report is read back from REPORT, or left out when there is none"},
    {"--shard", .value = "K/N", KG_TEXT(opts, shard_text),
     .help = "retarget only the K-th of N parts of the clips (1 <= K <= N)"},
    {"--summary", .value = "FILE.json", KG_TEXT(opts, summary), .complete = KG_COMPLETE_FILE,
     .help = "the shard's summary (the plan, each clip's status and report);\n"
             "needs --report"},
    {"--print-shards", KG_FLAG(opts, print_shards, 1),
     .help = "print the plan of --shard (each clip's frames and part, each\n"
             "part's frames) as JSON, and stop"},
    {0},
};

const kg_cli_command kg_cmd_retarget = {
    .name = "retarget",
    .summary = "a motion-capture clip onto a humanoid robot (feet planted, balanced)",
    .usage = "kinegraph retarget CLIP... --robot MODEL -o OUT [--map MAP.json] [--report REPORT.json]\n"
             "                          [--csv-layout lafan1|kinegraph] [--csv-contacts] [--no-balance]\n"
             "                          [--no-avoidance] [--dynamics-filter]\n"
             "                          [--tune NAME=VALUE,...] [--srdf FILE] [--trace FILE.csv] [--fps N]\n"
             "                          [--jobs N] [--skip-existing] [--shard K/N [--summary FILE.json]]\n"
             "                          [--print-shards] [options]\n"
             "       kinegraph retarget CLIP --robot MODEL --print-map\n"
             "       kinegraph retarget --print-tuning [--tune NAME=VALUE,...]\n",
    .description =
        "Makes the humanoid MODEL (URDF or COLLADA) perform CLIP (BVH or a COLLADA skeleton clip),\n"
        "each frame one constrained solve over the robot's joints and floating root: the source's\n"
        "limb and trunk directions, body frames, hands and swinging feet followed; joint position\n"
        "and velocity limits, the root's speed, planted soles fixed on the ground (turning with a\n"
        "pivoting source foot), swinging soles above it, link pairs kept apart and the COM on a\n"
        "balance reference (its ZMP kept in the support polygons ahead) as constraints (a\n"
        "violation is corrected as a heavily weighted cost; the report says how much each kind\n"
        "took). Body parts are found by\n"
        "structure (names only break ties), or given (--map); the clip's floor is tracked locally\n"
        "and its foot contacts found from heel and toe height and speed.\n"
        "OUT by extension: .csv (one row per frame: root x,y,z, root quaternion x,y,z,w, the\n"
        "robot's actuated joints in the model's order - depth first from the root, each link's\n"
        "children as the file declares their joints, which is not the file's order where it lists\n"
        "joints otherwise - no header: the layout of retargeted LAFAN1 clips; --csv-layout\n"
        "kinegraph for the headed layout of `convert`, which names them), .json, .bvh, .dae\n"
        "(robot and animation), .glb/.gltf (glTF: robot and animation), .npz (RL motion file: joint\n"
        "and body states per frame, see `convert --help`), .urdf (the robot). Mimic followers are\n"
        "not written (their leaders are).\n"
        "The report (--report FILE, or stdout with --json) has the fields of the README; a\n"
        "summary goes to stderr. Exit status 1 when the clip or robot cannot be used (parts not\n"
        "found, errors), 2 on a usage error, 3 when OUT cannot be written.\n"
        "Several clips: the robot is prepared once (its collision hulls: most of a short clip's\n"
        "time), OUT and REPORT are patterns where %s stands for each clip's file name without\n"
        "its extension (-o out/%s.csv --report out/%s.json), --json prints an array of reports;\n"
        "a clip that fails is reported and the others go on (the exit status is the worst).\n"
        "Each clip's messages come out together, in the clips' order, whatever --jobs; on a\n"
        "terminal a progress line (clips done, frames/s) is shown on stderr meanwhile.\n"
        "Across processes (a Slurm job array: contrib/slurm/): --shard K/N retargets the K-th of N\n"
        "disjoint parts of the clips, balanced by frames (each BVH's \"Frames:\" line) and the same\n"
        "whatever the clips' order; --summary writes the shard's summary for `kinegraph merge`,\n"
        "which joins them into the --json array of one process. With --summary, REPORT is each\n"
        "clip's result: --skip-existing skips a clip only when OUT is there and REPORT is a whole\n"
        "report of that clip (a run killed midway is redone).\n"
        "\n"
        "MAP.json: {\"source\": {PART: LINK, ...}, \"robot\": {PART: LINK, ...}}, PART one of pelvis,\n"
        "chest, head, left_hip, left_knee, left_ankle, left_foot, left_shoulder, left_elbow,\n"
        "left_wrist and the right_ ones; a LINK may be {\"link\": NAME, \"point\": [x, y, z]} (a point\n"
        "on it, m). --print-map writes the maps found in this form, with why each part is where it\n"
        "is: a file to edit and pass back.\n",
    .options = options,
    .common = KG_CLI_JSON | KG_CLI_MODEL,
    .operands = KG_COMPLETE_FILE,
    .run = run,
};

/* A number >= lo for option opt; 0, or -1 after a usage error. */
static int number(kg_cli *c, const char *opt, const char *text, double lo, double *out) {
    if (kg_cli_numbers(c, opt, text, out, 1) != 0) return -1;
    if (*out >= lo) return 0;
    kg_cli_usage_error("retarget", "%s takes a number >= %g, not '%s'", opt, lo, text);
    return -1;
}

/* Tuning number `name` set to v (given as option `opt`): 0, or -1 after a
 * usage error saying what it takes (kg_retarget_tuning_set's range). */
static int set_tuning(const char *opt, const char *name, double v, kg_retarget_tuning *t) {
    int rc = kg_retarget_tuning_set(t, name, v);
    if (rc == -1) return kg_cli_usage_error("retarget", "%s: no number named '%s' (see --print-tuning)", opt, name), -1;
    if (rc == 0) return 0;
    int nf, count = 0;
    const kg_tuning_field *f = kg_retarget_tuning_fields(&nf);
    for (int k = 0; k < nf; k++) count |= !strcmp(f[k].name, name) && f[k].is_int;
    kg_cli_usage_error("retarget", "%s: %s takes %s, not %g", opt, name,
                       count ? "a whole number from 0 to 2147483647 (a count)" : "a finite number >= 0", v);
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
        if (set_tuning("--tune", name, v, t) != 0) return -1;
        text += n + (text[n] == ',');
    }
    return 0;
}

/* The options that set the retargeting: 0, or -1 after a usage error. */
static int settings(kg_cli *c, const opts *o, kg_retarget_options *ro) {
    kg_retarget_defaults(ro);
    ro->prepare_threads = 0; /* the robot's shapes on every core this process may use: nothing else runs yet */
    if (o->no_balance) ro->balance = 0;
    if (o->no_avoidance) ro->avoid_self_collision = 0;
    double v;
    if (o->iters) {
        if (number(c, "--iterations", o->iters, 1, &v) != 0) return -1;
        if (!(v <= INT_MAX) || v != floor(v))
            return kg_cli_usage_error("retarget", "--iterations takes a whole number from 1 to 2147483647, not '%s'", o->iters), -1;
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

/* --fps and --jobs, which shape the run rather than the retargeting: 0, or
 * -1 after a usage error. */
static int run_settings(kg_cli *c, opts *o) {
    o->jobs = 1;
    if (o->fps_text) {
        if (kg_cli_numbers(c, "--fps", o->fps_text, &o->fps, 1) != 0) return -1;
        if (!(o->fps > 0)) return kg_cli_usage_error("retarget", "--fps takes a number > 0, not '%s'", o->fps_text), -1;
    }
    if (o->jobs_text) {
        char *end;
        long n = strtol(o->jobs_text, &end, 10);
        if (end == o->jobs_text || *end || n < 1 || n > KG_RETARGET_MAX_JOBS)
            return kg_cli_usage_error("retarget", "--jobs takes a number from 1 to %d, not '%s'", KG_RETARGET_MAX_JOBS,
                                      o->jobs_text), -1;
        o->jobs = (int)n;
    }
    o->shard_k = o->shard_n = 1;
    if (o->shard_text && kg_shard_parse("retarget", o->shard_text, &o->shard_k, &o->shard_n) != 0) return -1;
    if (o->summary && !o->report)
        return kg_cli_usage_error("retarget", "--summary needs --report (each clip's result)"), -1;
    return 0;
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

/* Loads clip_path into c (model returned, motion in c->motion), its
 * diagnostics to log; NULL after them. */
static kg_model *load_clip(kg_cli *c, const char *clip_path, FILE *log) {
    c->model_path = clip_path;
    kg_motion_free(c->motion);
    c->motion = NULL;
    kg_diags_clear(&c->diags); /* the robot's and earlier clips' are printed */
    kg_load_options lo = kg_cli_load_options(c);
    kg_model *clip = kg_load_clip(clip_path, &lo, &c->motion, &c->diags);
    kg_cli_print_diags(c, log, c->verbose ? KG_INFO : KG_ERROR);
    if (clip && kg_cli_status(c) == 0 && c->motion && c->motion->nframes >= 1) return clip;
    if (clip && kg_cli_status(c) == 0) fprintf(log, "%s: error: no motion to retarget\n", clip_path);
    kg_model_free(clip);
    return NULL;
}

/* One line: what was written and the report's main figures; `written` is the
 * motion resampled by --fps, or NULL. */
static void print_summary(FILE *log, const char *out_path, const kg_retarget_report *r, const kg_motion *written) {
    fprintf(log,
            "kinegraph retarget: wrote %s: %d frames in %.3f s (%.0f frames/s); pose error %.1f deg mean, %.1f p95; "
            "foot slip %.2f mm max; penetration %.2f mm; hover %.1f %%; limit/velocity violations %d/%d; ZMP out "
            "on %.1f %% of contact frames; root %.2f m/s max",
            out_path, r->frames, r->seconds, r->seconds > 0 ? r->frames / r->seconds : 0, r->pose_mean_deg,
            r->pose_p95_deg, r->slip_max_mm, r->penetration_max_mm, r->hover_percent, r->limit_violations,
            r->velocity_violations, r->zmp_outside_percent, r->root_speed_max);
    if (r->hips_low_frames > 0) fprintf(log, "; hips low on %d frames", r->hips_low_frames);
    if (written) fprintf(log, "; written as %d frames at %g frames/s", written->nframes, 1 / written->frame_time);
    fputc('\n', log);
}

/* What every clip's run reads: set before the threads start, not written after. */
typedef struct shared {
    const kg_cli *cli;                 /* the command line's options (package paths, --verbose, ...) */
    const opts *o;
    const kg_model *robot;
    const kg_retarget_robot *rr;       /* immutable: threads may share it */
    json_t *map;                       /* --map's file, or NULL; read under map_lock (jansson values
                                        * are not to be shared between threads unlocked) */
    pthread_mutex_t *map_lock;
    const kg_retarget_options *ro;
    const char *format;
    int collect;                       /* each clip's messages kept to print whole (several jobs, or
                                        * a progress line to keep them off); else straight to stderr */
    int keep_logs;                     /* a failed clip's messages kept for the shard summary too */
} shared;

/* One clip: where it goes, and what its run left. Its thread writes the rest,
 * then sets done under the pool's lock; the main thread reads them after. */
typedef struct clip_run {
    const char *clip, *out, *report;
    double robot_seconds;              /* counted in this clip's times (the first clip's) */
    int rc, frames, done;
    json_t *json;                      /* its report, or NULL */
    char *log;                         /* its lines for stderr, or NULL */
    size_t loglen;
    int index;                         /* its place among all the CLIP arguments */
    const char *status;                /* for the shard summary: "done", "resumed" or "failed" */
    char *kept_log;                    /* a failed clip's messages (keep_logs) */
} clip_run;

/* The torques of the robot's motion in its report (include/kinegraph/torques.h,
 * the retargeting's feet and soles, contacts from the soles' heights): the
 * largest |torque| / effort limit and its
 * joint, the multibody ZMP outside the support polygon, the frames whose
 * contacts cannot make the wrench the motion needs. null where the dynamics
 * cannot be had (no body map, a floating joint inside the tree); computed
 * after the retargeting, outside its timed figures. */
static kg_feet robot_feet(const kg_retarget_robot *rr) {
    kg_feet feet = {.from_geometry = {1, 1}}; /* the retargeting's own feet and soles */
    for (int side = 0; side < KG_NFOOT; side++) feet.link[side] = kg_retarget_robot_sole(rr, side, feet.corner[side]);
    return feet;
}

/* --dynamics-filter's figures (filter NULL when it did not run or failed). */
static void add_filter(json_t *j, const kg_dyn_filter_result *r) {
    if (!r) {
        json_object_set_new(j, "dynamics_filter", json_null());
        return;
    }
    json_t *f = json_object();
    json_object_set_new(f, "multibody_zmp_outside_percent_before", kg_json_num(r->outside_before));
    json_object_set_new(f, "multibody_zmp_outside_percent_after", kg_json_num(r->outside_after));
    json_object_set_new(f, "zmp_margin_min_mm_before", kg_json_num(1e3 * r->margin_min_before));
    json_object_set_new(f, "zmp_margin_min_mm_after", kg_json_num(1e3 * r->margin_min_after));
    json_object_set_new(f, "passes", json_integer(r->passes));
    json_object_set_new(f, "com_correction_max_mm", kg_json_num(1e3 * r->shift_max));
    json_object_set_new(f, "com_correction_missed_max_mm", kg_json_num(1e3 * r->com_error_max));
    json_object_set_new(f, "base_shift_max_mm", kg_json_num(1e3 * r->base_shift_max));
    json_object_set_new(f, "com_lowered_max_mm", kg_json_num(1e3 * r->com_lowered_max));
    json_object_set_new(f, "base_moves_cut", json_integer(r->base_cuts));
    json_object_set_new(f, "base_moves_turned", json_integer(r->base_turns));
    json_object_set_new(f, "base_turn_max_deg", kg_json_num(r->base_turn_max * 180 / KG_PI));
    json_object_set_new(j, "dynamics_filter", f);
}

static void add_dynamics(json_t *j, const kg_model *robot, const kg_retarget_robot *rr, const kg_motion *out) {
    kg_diags d;
    kg_diags_init(&d);
    kg_feet feet = robot_feet(rr);
    kg_motion_torques t;
    int ok = kg_motion_torques_compute(robot, out, NULL, &feet, NULL, &t, NULL, &d) == 0;
    char name[1100], **names = ok ? kg_velocity_names(robot) : NULL; /* as `dynamics` names its columns */
    json_object_set_new(j, "torque_ratio_max", ok ? kg_json_num(t.ratio_max_all) : json_null());
    json_object_set_new(j, "torque_ratio_max_joint",
                        ok && t.ratio_max_coord >= 0
                            ? kg_json_str(names ? names[t.act[t.ratio_max_coord]]
                                                : kg_velocity_name(robot, t.act[t.ratio_max_coord], name, sizeof name))
                            : json_null());
    kg_coord_names_free(names, robot->nv);
    json_object_set_new(j, "multibody_zmp_outside_percent", ok ? kg_json_num(t.zmp_outside_percent) : json_null());
    json_object_set_new(j, "dynamics_unbalanced_frames", ok ? json_integer(t.unbalanced_frames) : json_null());
    if (ok) kg_motion_torques_free(&t);
    kg_diags_clear(&d);
}

/* The feet's contacts at each frame of mo as the report's dynamics take them
 * (the retargeting's soles within contact_height of the ground), for the
 * headed CSV's contact columns (--csv-contacts: readers of that layout may take
 * every column after the root's for a joint): `kinegraph dynamics` on the file
 * then has the contacts the report had, not ones inferred from the soles it
 * finds itself. [2 nframes], or NULL when memory runs out. */
static unsigned char *motion_contacts(const kg_model *robot, const kg_retarget_robot *rr, const kg_motion *mo) {
    const kg_feet feet = robot_feet(rr);
    kg_torque_options to;
    kg_torque_defaults(&to);
    kg_data *d = kg_data_new(robot);
    unsigned char *c = malloc(2 * (size_t)mo->nframes + 1);
    if (!d || !c) {
        kg_data_free(d), free(c);
        return NULL;
    }
    for (int f = 0; f < mo->nframes; f++) {
        int on[KG_NFOOT];
        kg_motion_pose(mo, f, d);
        kg_fk(robot, d);
        kg_feet_contacts(&feet, d, &to, on);
        c[2 * f] = (unsigned char)on[0], c[2 * f + 1] = (unsigned char)on[1];
    }
    kg_data_free(d);
    return c;
}

/* The clip's motion (resampled with --fps) to its OUT, its report to REPORT
 * and run->json, its summary to log. Returns an exit code. */
static int write_clip(const shared *s, kg_cli *c, clip_run *run, const kg_motion *out, const kg_retarget_report *rep,
                      const unsigned *flags, const kg_dyn_filter_result *filter, FILE *log) {
    kg_motion *resampled = NULL;
    if (s->o->fps > 0 && kg_cli_resample("retarget", run->clip, s->robot, out, s->o->fps, &resampled, log) != 0)
        return KG_EXIT_ERRORS;
    size_t before = c->diags.count;
    const kg_motion *written = resampled ? resampled : out;
    const int with_contacts = s->o->csv_contacts && !strcmp(s->format, "csv");
    unsigned char *contacts = with_contacts ? motion_contacts(s->robot, s->rr, written) : NULL;
    if (with_contacts && !contacts) {
        fprintf(log, "kinegraph retarget: %s: out of memory\n", run->clip);
        kg_motion_free(resampled);
        return KG_EXIT_ERRORS;
    }
    kg_export_options eo = {.skip_followers = 1, .contacts = contacts}; /* the robot's motion: its actuated joints */
    int rc = KG_EXIT_OK;
    if (kg_save_with(run->out, s->format, s->robot, written, &eo, NULL, &c->diags) != 0) {
        kg_cli_print_diags_from(c, log, KG_ERROR, before);
        rc = KG_EXIT_OUTPUT;
    } else {
        run->json = kg_retarget_report_json(rep, run->clip, s->o->robot);
        if (run->report || c->json) add_dynamics(run->json, s->robot, s->rr, out); /* read only there */
        if (flags) json_object_set_new(run->json, "timeline", kg_retarget_timeline_json(flags, rep->frames));
        if (s->o->dynamics_filter) add_filter(run->json, filter);
        if (run->report && kg_json_write_file(run->json, run->report) != 0) {
            fprintf(log, "kinegraph retarget: cannot write %s\n", run->report);
            rc = KG_EXIT_OUTPUT;
        }
        print_summary(log, run->out, rep, resampled);
    }
    free(contacts);
    kg_motion_free(resampled);
    return rc;
}

/* One clip onto the prepared robot, its messages to log: its motion to OUT,
 * its report to REPORT and run->json; run->robot_seconds, the robot's
 * preparation, is counted in its times (a single clip's report reads as a
 * one-shot kg_retarget's). Returns an exit code. */
static int retarget_clip(const shared *s, kg_cli *c, clip_run *run, FILE *log) {
    const opts *o = s->o;
    kg_retarget_options ro = *s->ro;
    kg_model *clip = load_clip(c, run->clip, log);
    kg_motion *out = NULL;
    kg_body_map smap;
    FILE *trace = NULL;
    char *trace_path = NULL;
    unsigned *flags = NULL;
    int rc = KG_EXIT_ERRORS;
    if (!clip) goto done;
    if (s->map) { /* the map's source side names this clip's links */
        pthread_mutex_lock(s->map_lock);
        int bad = kg_map_read(json_object_get(s->map, "source"), "source", clip, &smap, o->map) != 0;
        pthread_mutex_unlock(s->map_lock);
        if (bad) goto done;
        ro.source_map = &smap;
    }
    if (o->trace && (!(trace_path = expand(o->trace, run->clip)) || !(trace = fopen(trace_path, "w")))) {
        fprintf(log, "kinegraph retarget: cannot write %s\n", trace_path ? trace_path : o->trace);
        rc = KG_EXIT_OUTPUT;
        goto done;
    }
    kg_retarget_report rep;
    size_t before = c->diags.count;
    ro.trace = trace;
    /* each frame's problems, for the report's timeline (kinegraph view draws it) */
    flags = ro.frame_flags = calloc((size_t)c->motion->nframes + 1, sizeof *flags);
    int r = kg_retarget_prepared(s->rr, clip, c->motion, &ro, &out, &rep, &c->diags);
    kg_cli_print_diags_from(c, log, c->verbose ? KG_INFO : KG_WARNING, before);
    if (r != 0) goto done;
    run->frames = rep.frames;
    rep.robot_seconds = run->robot_seconds;
    rep.setup_seconds += run->robot_seconds, rep.seconds += run->robot_seconds;
    kg_dyn_filter_result fres, *filtered = NULL;
    if (o->dynamics_filter) { /* after the retargeting, outside its timed figures */
        const kg_feet feet = robot_feet(s->rr);
        before = c->diags.count;
        if (kg_dyn_filter(s->robot, out, &feet, NULL, &fres, &c->diags) == 0) filtered = &fres;
        kg_cli_print_diags_from(c, log, KG_WARNING, before);
    }
    rc = write_clip(s, c, run, out, &rep, flags, filtered, log);
done:
    free(flags);
    if (trace) fclose(trace);
    free(trace_path);
    kg_motion_free(out);
    kg_model_free(clip);
    return rc;
}

/* --skip-existing, the clip's OUT there: said, and its report read back from
 * REPORT for --json. Returns an exit code (1 when REPORT is there but is not
 * a report). */
static int skip_clip(const shared *s, clip_run *run, FILE *log) {
    fprintf(log, "kinegraph retarget: skipped %s: %s exists\n", run->clip, run->out);
    if (!s->cli->json) return KG_EXIT_OK;
    if (!run->report || access(run->report, F_OK) != 0) {
        fprintf(log, "kinegraph retarget: %s: no report to read back (%s%s): left out of --json\n", run->clip,
                run->report ? run->report : "no --report", run->report ? " does not exist" : "");
        return KG_EXIT_OK;
    }
    json_error_t err;
    run->json = json_load_file(run->report, 0, &err);
    if (run->json && json_is_object(run->json)) return KG_EXIT_OK;
    fprintf(log, "%s:%d: error: %s (the report of %s, left out of --json)\n", run->report, run->json ? 1 : err.line,
            run->json ? "not a JSON object" : err.text, run->clip);
    json_decref(run->json);
    run->json = NULL;
    return KG_EXIT_ERRORS;
}

/* --skip-existing with --summary: whether the clip's result is whole, OUT
 * there and REPORT a report of this clip (both are written to a temporary
 * file and renamed, REPORT after OUT: a run killed midway leaves no REPORT, or
 * REPORT from before). The report is kept in run->json. A result that is there
 * but not whole is said. */
static int resumable(clip_run *run, FILE *log) {
    struct stat st;
    int out = stat(run->out, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0;
    int report = access(run->report, F_OK) == 0;
    if (!out && !report) return 0;
    json_error_t err;
    json_t *j = report ? json_load_file(run->report, 0, &err) : NULL;
    json_t *clip = json_object_get(j, "clip"), *frames = json_object_get(j, "frames");
    if (out && json_is_object(j) && json_is_string(clip) && !strcmp(json_string_value(clip), run->clip) &&
        json_is_integer(frames)) {
        fprintf(log, "kinegraph retarget: skipped %s: %s and %s exist\n", run->clip, run->out, run->report);
        run->json = j;
        run->frames = (int)json_integer_value(frames);
        return 1;
    }
    fprintf(log, "kinegraph retarget: %s: redone, its result is not whole (%s)\n", run->clip,
            !out ? "no output, or an empty one"
            : !report ? "no report"
            : !j ? "the report is not JSON"
                 : "the report is not this clip's");
    json_decref(j);
    return 0;
}

/* One clip's run, on whichever thread: its messages collected in run->log
 * (printed whole, in the clips' order, by the main thread) or to stderr. */
static void run_clip(const shared *s, clip_run *run) {
    FILE *log = s->collect ? open_memstream(&run->log, &run->loglen) : NULL;
    if (!log) run->log = NULL; /* not collected, or no memory for it: straight to stderr, a line at a time */
    kg_cli c = *s->cli;        /* its own diagnostics and motion; the options shared */
    kg_diags_init(&c.diags);
    c.motion = NULL;
    if (s->o->summary && s->o->skip_existing) { /* resuming a shard: only whole results are skipped */
        if (resumable(run, log ? log : stderr)) run->rc = KG_EXIT_OK, run->status = "resumed";
        else run->rc = retarget_clip(s, &c, run, log ? log : stderr);
    } else if (s->o->skip_existing && access(run->out, F_OK) == 0) run->rc = skip_clip(s, run, log ? log : stderr);
    else run->rc = retarget_clip(s, &c, run, log ? log : stderr);
    if (!run->status) run->status = run->rc ? "failed" : "done";
    c.model_path = NULL;
    kg_cli_done(&c);
    if (log) fclose(log);
}

/* --print-map: the maps found (over --map's) for the first clip and the robot. */
static int print_maps(kg_cli *c, const opts *o, const kg_model *robot, const kg_retarget_robot *rr, json_t *map) {
    kg_model *clip = load_clip(c, o->clips[0], stderr);
    if (!clip) return KG_EXIT_ERRORS;
    kg_body_map smap;
    int rc = KG_EXIT_ERRORS;
    if (kg_map_read(map ? json_object_get(map, "source") : NULL, "source", clip, &smap, o->map) == 0) {
        size_t before = c->diags.count;
        int missing = kg_body_map_find_clip(clip, c->motion, &smap, &c->diags);
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
        return kg_cli_usage_error("retarget", "cannot tell the format of '%s' (.csv, .json, .bvh, .dae, .glb, .npz, .urdf)", o->out), -1;
    if (o->layout && strcmp(o->layout, "lafan1") && strcmp(o->layout, "kinegraph"))
        return kg_cli_usage_error("retarget", "--csv-layout takes lafan1 or kinegraph"), -1;
    if (o->nclips > 1 && (!strstr(o->out, "%s") || (o->report && !strstr(o->report, "%s"))))
        return kg_cli_usage_error("retarget", "several clips: -o and --report need %%s for each clip's name (-o "
                                              "out/%%s.csv)"), -1;
    if (o->nclips > 1 && o->jobs > 1 && o->trace && !strstr(o->trace, "%s")) /* clips at once: one file each */
        return kg_cli_usage_error("retarget", "several clips on several jobs: --trace needs %%s for each clip's name"),
               -1;
    if (!strcmp(*format, "csv") && (!o->layout || !strcmp(o->layout, "lafan1"))) *format = "lafan1";
    if (o->csv_contacts && strcmp(*format, "csv"))
        return kg_cli_usage_error("retarget", "--csv-contacts needs a .csv OUT in --csv-layout kinegraph"), -1;
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
static kg_retarget_robot *prepare_robot(kg_cli *c, const opts *o, const kg_retarget_options *ro_, kg_model **robot,
                                        json_t **map) {
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
    kg_retarget_options ro = *ro_;
    ro.robot_map = o->map ? &rmap : NULL, ro.ignore_pairs = ignore, ro.nignore_pairs = nignore;
    kg_retarget_robot *rr = kg_retarget_robot_new(*robot, &ro, &c->diags);
    kg_cli_print_diags_from(c, stderr, c->verbose ? KG_INFO : KG_WARNING, before);
    free(ignore);
    return rr;
}

/* The threads' stacks: the main thread's 8 MiB and room to spare, as check's. */
#define KG_RETARGET_STACK (16u << 20)
/* The progress line is redrawn this often (ns: a quarter of a second). */
#define KG_PROGRESS_PERIOD_NS 250000000L
#define KG_NS_PER_S 1000000000L

/* The clips and the threads working through them. */
typedef struct pool {
    const shared *s;
    clip_run *runs;
    int n, next, ndone;               /* next: the next clip to start; all under lock */
    long frames;                      /* retargeted by the clips done */
    pthread_mutex_t lock;
    pthread_cond_t changed;           /* a clip is done */
} pool;

static void *worker(void *arg) {
    pool *p = arg;
    pthread_mutex_lock(&p->lock);
    while (p->next < p->n) {
        clip_run *run = &p->runs[p->next++];
        pthread_mutex_unlock(&p->lock);
        run_clip(p->s, run);
        pthread_mutex_lock(&p->lock);
        run->done = 1, p->ndone++, p->frames += run->frames;
        pthread_cond_signal(&p->changed);
    }
    pthread_mutex_unlock(&p->lock);
    return NULL;
}

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* The progress line on stderr (a terminal): drawn over itself with \r. */
typedef struct progress {
    int on, width; /* width: of the line shown, 0 when none is */
    double t0;
} progress;

static void progress_draw(progress *pg, int done, int n, long frames) {
    if (!pg->on) return;
    char text[128];
    double dt = now() - pg->t0;
    int len = snprintf(text, sizeof text, "kinegraph retarget: %d/%d clips, %.0f frames/s", done, n,
                       dt > 0 ? (double)frames / dt : 0);
    fprintf(stderr, "\r%-*s", pg->width > len ? pg->width : len, text); /* spaces over a longer line */
    fflush(stderr);
    pg->width = len;
}

static void progress_clear(progress *pg) {
    if (!pg->on || !pg->width) return;
    fprintf(stderr, "\r%*s\r", pg->width, "");
    fflush(stderr);
    pg->width = 0;
}

/* Prints the messages of the clips done, in the clips' order from *printed
 * on, as far as they are all done; p->lock held on entry and on return. */
static void print_done(pool *p, int *printed, progress *pg) {
    while (*printed < p->n && p->runs[*printed].done) {
        clip_run *run = &p->runs[(*printed)++];
        pthread_mutex_unlock(&p->lock);
        progress_clear(pg);
        if (run->log) fwrite(run->log, 1, run->loglen, stderr);
        fflush(stderr);
        if (p->s->keep_logs && run->rc) run->kept_log = run->log; /* for the shard summary */
        else free(run->log);
        run->log = NULL;
        pthread_mutex_lock(&p->lock);
    }
}

/* Runs every clip on `jobs` threads (here, if none can start), printing their
 * messages as they come in order and the progress meanwhile. */
static void run_pool(pool *p, int jobs, int show_progress) {
    pthread_t *t = calloc((size_t)jobs, sizeof *t);
    int started = 0;
    for (int k = 0; t && k < jobs; k++) {
        pthread_attr_t attr;
        pthread_attr_init(&attr);
        pthread_attr_setstacksize(&attr, KG_RETARGET_STACK);
        if (pthread_create(&t[k], &attr, worker, p) == 0) started++;
        pthread_attr_destroy(&attr);
    }
    if (!started) worker(p);
    progress pg = {.on = show_progress, .t0 = now()};
    int printed = 0;
    pthread_mutex_lock(&p->lock);
    for (;;) {
        print_done(p, &printed, &pg);
        if (printed == p->n) break;
        progress_draw(&pg, p->ndone, p->n, p->frames);
        if (!pg.on) {
            pthread_cond_wait(&p->changed, &p->lock);
            continue;
        }
        struct timespec until;
        clock_gettime(CLOCK_REALTIME, &until); /* the condition's clock */
        until.tv_nsec += KG_PROGRESS_PERIOD_NS;
        if (until.tv_nsec >= KG_NS_PER_S) until.tv_sec++, until.tv_nsec -= KG_NS_PER_S;
        pthread_cond_timedwait(&p->changed, &p->lock, &until);
    }
    pthread_mutex_unlock(&p->lock);
    for (int k = 0; k < started; k++) pthread_join(t[k], NULL);
    free(t);
    progress_clear(&pg);
}

/* The reports for --json: the one clip's, or an array in the clips' order
 * (those that have one). Returns 0 or KG_EXIT_OUTPUT. */
static int print_reports(const pool *p) {
    json_t *all = json_array();
    for (int k = 0; k < p->n; k++)
        if (p->runs[k].json) json_array_append(all, p->runs[k].json);
    int rc = KG_EXIT_OK;
    if (json_array_size(all) > 0)
        rc = kg_json_print(p->n == 1 ? json_incref(json_array_get(all, 0)) : json_incref(all));
    json_decref(all);
    return rc;
}

/* The shard summary (--summary): the plan, and each clip's status, paths and
 * report. Returns 0 or KG_EXIT_OUTPUT. */
static int write_summary(const opts *o, const kg_shard_plan *plan, const pool *p, double seconds) {
    json_t *j = kg_shard_summary_new("retarget", o->shard_k, plan), *results = json_array();
    long frames = 0;
    for (int k = 0; k < p->n; k++) {
        const clip_run *run = &p->runs[k];
        json_t *e = json_object();
        json_object_set_new(e, "path", kg_json_str(run->clip));
        json_object_set_new(e, "index", json_integer(run->index));
        json_object_set_new(e, "status", json_string(run->status ? run->status : "failed"));
        json_object_set_new(e, "exit", json_integer(run->rc));
        json_object_set_new(e, "frames", json_integer(run->frames));
        json_object_set_new(e, "output", kg_json_str(run->out));
        json_object_set_new(e, "report_file", kg_json_str(run->report));
        json_object_set_new(e, "messages", kg_json_str(run->kept_log));
        json_object_set_new(e, "report", run->json ? json_incref(run->json) : json_null());
        json_array_append_new(results, e);
        frames += run->frames;
    }
    json_object_set_new(j, "robot", kg_json_str(o->robot));
    json_object_set_new(j, "results", results);
    json_object_set_new(j, "frames", json_integer(frames));
    json_object_set_new(j, "seconds", json_real(seconds));
    json_object_set_new(j, "jobs", json_integer(o->jobs));
    int rc = kg_json_write_file(j, o->summary) != 0 ? KG_EXIT_OUTPUT : KG_EXIT_OK;
    if (rc) fprintf(stderr, "kinegraph retarget: cannot write %s\n", o->summary);
    json_decref(j);
    return rc;
}

/* Every clip onto the prepared robot, --jobs at a time; the worst exit code.
 * index: each clip's place among all the CLIP arguments; plan: --shard's. */
static int run_clips(const kg_cli *c, const opts *o, const kg_model *robot, const kg_retarget_robot *rr, json_t *map,
                     const kg_retarget_options *ro, const char *format, char **outs, char **reports,
                     const int *index, const kg_shard_plan *plan) {
    int jobs = o->jobs < o->nclips ? o->jobs : o->nclips, show_progress = o->nclips > 1 && isatty(STDERR_FILENO);
    double t0 = now();
    pool p = {.n = o->nclips};
    shared s = {.cli = c, .o = o, .robot = robot, .rr = rr, .map = map, .map_lock = &p.lock, .ro = ro,
                .format = format, .collect = jobs > 1 || show_progress || o->summary, .keep_logs = !!o->summary};
    p.s = &s;
    if (!(p.runs = calloc((size_t)o->nclips, sizeof *p.runs))) return KG_EXIT_ERRORS;
    for (int k = 0; k < o->nclips; k++) {
        clip_run *run = &p.runs[k];
        run->clip = o->clips[k], run->out = outs[k], run->report = reports[k];
        run->robot_seconds = k == 0 ? kg_retarget_robot_seconds(rr) : 0;
        run->index = index ? index[k] : k;
    }
    pthread_mutex_init(&p.lock, NULL);
    pthread_cond_init(&p.changed, NULL);
    xmlInitParser();   /* once, before threads (a clip may be COLLADA) */
    json_object_seed(0); /* the hash seed jansson would otherwise set on a thread's first object */
    run_pool(&p, jobs, show_progress);
    int rc = KG_EXIT_OK;
    for (int k = 0; k < o->nclips; k++)
        if (p.runs[k].rc > rc) rc = p.runs[k].rc;
    if (c->json && print_reports(&p) != 0) rc = KG_EXIT_OUTPUT;
    if (o->summary) {
        int w = write_summary(o, plan, &p, now() - t0 + kg_retarget_robot_seconds(rr));
        if (w > rc) rc = w;
    }
    for (int k = 0; k < o->nclips; k++) json_decref(p.runs[k].json), free(p.runs[k].kept_log);
    pthread_cond_destroy(&p.changed);
    pthread_mutex_destroy(&p.lock);
    free(p.runs);
    return rc;
}

/* --shard's plan over all the clips, then only the K-th part's clips kept (with
 * their outputs, reports and places in *index); the plan in *plan. Returns an
 * exit code. */
static int shard_select(opts *o, char **outs, char **reports, int **index, kg_shard_plan *plan) {
    long long *work = calloc((size_t)o->nclips + 1, sizeof *work);
    *index = calloc((size_t)o->nclips + 1, sizeof **index);
    if (!work || !*index) return free(work), KG_EXIT_ERRORS;
    for (int k = 0; k < o->nclips; k++) work[k] = kg_shard_clip_work(o->clips[k]);
    if (kg_shard_plan_make(plan, o->nclips, o->clips, work, o->shard_n, "frames") != 0) return KG_EXIT_ERRORS;
    if (o->print_shards) return KG_EXIT_OK;
    /* the plan keeps naming all the clips (o->all_clips); o->clips becomes the part's */
    char **clips = calloc((size_t)o->nclips + 1, sizeof *clips);
    if (!clips) return KG_EXIT_ERRORS;
    int kept = 0;
    for (int k = 0; k < o->nclips; k++) {
        if (plan->shard[k] != o->shard_k) {
            free(outs[k]), free(reports[k]);
            continue;
        }
        clips[kept] = o->clips[k], (*index)[kept] = k, outs[kept] = outs[k], reports[kept] = reports[k];
        kept++;
    }
    for (int k = kept; k < o->nclips; k++) outs[k] = reports[k] = NULL;
    o->all_clips = o->clips, o->clips = clips, o->nclips = kept;
    return KG_EXIT_OK;
}

static int run(int argc, char **argv) {
    opts o = {0};
    o.clips = calloc((size_t)argc + 1, sizeof *o.clips);
    if (!o.clips) return KG_EXIT_ERRORS;
    kg_cli c = {.command = "retarget", .ctx = &o, .operand = operand};
    int rc = kg_cli_parse(&c, &kg_cmd_retarget, argc, argv);
    if (rc < 0 && !o.nclips && !o.print_tuning) rc = kg_cli_usage_error("retarget", "which CLIP?");
    kg_retarget_options ro;
    if (rc < 0) rc = settings(&c, &o, &ro) != 0 || run_settings(&c, &o) != 0 ? KG_EXIT_USAGE : -1;
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
    int *index = NULL;
    kg_shard_plan plan = {0};
    rc = KG_EXIT_USAGE;
    if (o.print_shards) { /* the plan only: no robot, no outputs */
        if (!o.nclips) {
            kg_cli_usage_error("retarget", "no CLIP given");
            goto done;
        }
        rc = shard_select(&o, outs, reports, &index, &plan);
        if (rc == KG_EXIT_OK) rc = kg_json_print(kg_shard_plan_json(&plan)) != 0 ? KG_EXIT_OUTPUT : KG_EXIT_OK;
        goto done;
    }
    if (check_usage(&o, &format) != 0) goto done;
    rc = !outs || !reports ? KG_EXIT_ERRORS : o.print_map ? KG_EXIT_OK : paths(&o, outs, reports);
    if (rc == KG_EXIT_OK && !o.print_map && (o.shard_text || o.summary)) rc = shard_select(&o, outs, reports, &index, &plan);
    if (rc != KG_EXIT_OK) goto done;
    rc = KG_EXIT_ERRORS;
    if (!(rr = prepare_robot(&c, &o, &ro, &robot, &map))) goto done;
    rc = o.print_map ? print_maps(&c, &o, robot, rr, map)
                     : run_clips(&c, &o, robot, rr, map, &ro, format, outs, reports, index, &plan);
done:
    for (int k = 0; outs && reports && k < o.nclips; k++) free(outs[k]), free(reports[k]);
    free(outs), free(reports), free(o.clips), free(o.all_clips), free(index);
    kg_shard_plan_free(&plan);
    json_decref(map);
    kg_retarget_robot_free(rr);
    kg_model_free(robot);
    c.model_path = NULL;
    kg_cli_done(&c);
    return rc;
}
