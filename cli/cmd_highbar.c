/* kinegraph highbar: the seed's structure-change example (Nakamura and
 * Yamane, Fig. 14) as a scripted simulation: a 16-DOF figure hanging from a
 * bar by both hands, the right grip cut at an instant, then hanging by the
 * left; its motion as CSV (analysis/dynamics/high_bar.c). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kinegraph/dynamics.h"
#include "cli/common.h"
#include "formats/fileio.h"

typedef struct opts {
    const char *out, *duration, *cut_time, *dt, *swing, *fps;
} opts;

static int run(int argc, char **argv);

static const kg_cli_option options[] = {
    {"--output", "-o", "FILE.csv", KG_TEXT(opts, out), .complete = KG_COMPLETE_FILE, .help = "the motion"},
    {"--duration", .value = "S", KG_TEXT(opts, duration), .help = "simulated time (default 2)"},
    {"--cut-time", .value = "S", KG_TEXT(opts, cut_time), .help = "when the right hand lets go (default 1)"},
    {"--dt", .value = "S", KG_TEXT(opts, dt), .help = "integration step (default 0.0005)"},
    {"--swing", .value = "W", KG_TEXT(opts, swing),
     .help = "angular velocity about the bar at the start, rad/s (default 1)"},
    {"--fps", .value = "N", KG_TEXT(opts, fps), .help = "frames written per second (default 100)"},
    {0},
};

const kg_cli_command kg_cmd_highbar = {
    .name = "highbar",
    .summary = "the seed's structure-change example: a figure on a bar lets go with one hand (CSV)",
    .usage = "kinegraph highbar [-o MOTION.csv] [--duration S] [--cut-time S] [--dt S] [--swing W]\n"
             "                         [--fps N] [--json]\n",
    .description =
        "The high-bar example of Nakamura and Yamane's structure-varying chains: a built-in figure\n"
        "(floating torso; arms and legs of 4 DOF each: pitch, roll, yaw, bend) hangs from a bar\n"
        "along y by both hands, each grip a revolute joint closed as a loop through a virtual link.\n"
        "It starts at the rest pose swinging about the bar; at --cut-time the right grip is cut\n"
        "(the loop is dropped from the closed set, the velocities do not jump) and it hangs by the\n"
        "left hand. The limb joints hold the rest pose by a PD law; the grips and the torso's\n"
        "floating joint are passive. Closed-chain forward dynamics by the unit-vector method with\n"
        "Baumgarte stabilisation, semi-implicit Euler.\n"
        "MOTION.csv (stdout without -o): time (s), grips (closed grips), closure_error (the closed\n"
        "grips' largest, m or rad), then the joint coordinates: base_x, base_y, base_z (m),\n"
        "base_qw, base_qx, base_qy, base_qz (the torso's quaternion), then one column per joint\n"
        "(rad), named as the joint, grips included. A summary goes to stderr; with --json (which\n"
        "needs -o) also to stdout as an object: output, model, frames, frames_after_cut, end_time\n"
        "(the last frame's, s), the settings (duration, cut_time, dt, swing, fps, kp, kd),\n"
        "coordinates (the CSV's joint coordinates) and the largest closure errors hanging by both\n"
        "hands and by the left (closure_error_both_max, closure_error_left_max). Exit status 2 on\n"
        "a usage error, 3 when the output cannot be written, 1 when the simulation fails.\n",
    .options = options,
    .common = KG_CLI_JSON,
    .run = run,
};

typedef struct out_state {
    FILE *f;
    int frames, cut_frames;
    double err_both, err_one, t_last;
} out_state;

static void header(FILE *f, const kg_model *m) {
    fprintf(f, "time,grips,closure_error");
    for (int j = 0; j < m->njoint; j++) {
        const kg_joint *J = &m->joint[j];
        if (J->type == KG_JOINT_FLOATING) {
            static const char *const s[7] = {"x", "y", "z", "qw", "qx", "qy", "qz"};
            for (int k = 0; k < 7; k++) fprintf(f, ",%s_%s", J->name, s[k]);
        } else if (J->nq == 1) fprintf(f, ",%s", J->name);
    }
    fputc('\n', f);
}

static void frame(void *user, double t, const kg_model *m, const kg_data *d, const double *v, int grips, double err) {
    (void)v;
    out_state *o = user;
    if (o->frames++ == 0) header(o->f, m);
    o->t_last = t;
    if (grips == 2) o->err_both = fmax(o->err_both, err);
    else o->err_one = fmax(o->err_one, err), o->cut_frames++;
    fprintf(o->f, "%.6f,%d,%.3e", t, grips, err);
    for (int j = 0; j < m->njoint; j++)
        for (int k = 0; k < m->joint[j].nq; k++) fprintf(o->f, ",%.9g", d->q[m->joint[j].qadr + k]);
    fputc('\n', o->f);
}

/* The built-in figure takes no file. */
static int operand(kg_cli *c, char *word) {
    kg_cli_usage_error(c->command, "unknown argument '%s'", word);
    return -1;
}

/* Option name's text, when given, as a finite number >= lo into *out; 0, or -1 after a usage error. */
static int number(const char *name, const char *text, double lo, double *out) {
    char *end;
    if (!text) return 0;
    double v = strtod(text, &end);
    if (end == text || *end || !isfinite(v) || !(v >= lo))
        return kg_cli_usage_error("highbar", "%s takes a finite number >= %g, not '%s'", name, lo, text), -1;
    *out = v;
    return 0;
}

/* The options into o; 0, or -1 after a usage error. */
static int settings(const opts *t, kg_high_bar_options *o) {
    if (number("--duration", t->duration, 0, &o->duration) || number("--cut-time", t->cut_time, 0, &o->cut_time) ||
        number("--dt", t->dt, 1e-9, &o->dt) || number("--swing", t->swing, -1e9, &o->swing) ||
        number("--fps", t->fps, 1e-9, &o->frame_rate))
        return -1;
    if (!(o->duration / o->dt <= KG_HIGH_BAR_MAX_STEPS))
        return kg_cli_usage_error("highbar", "--duration / --dt is %.3g steps, more than the %d a run takes "
                                  "(KG_HIGH_BAR_MAX_STEPS)", o->duration / o->dt, KG_HIGH_BAR_MAX_STEPS), -1;
    return 0;
}

/* What was written, for --json: the settings, the frames and the closure errors. */
static json_t *summary_json(const kg_model *m, const kg_high_bar_options *o, const out_state *s, const char *path) {
    json_t *r = json_object();
    json_object_set_new(r, "output", kg_json_str(path));
    json_object_set_new(r, "model", kg_json_str(m->name));
    json_object_set_new(r, "frames", json_integer(s->frames));
    json_object_set_new(r, "frames_after_cut", json_integer(s->cut_frames));
    json_object_set_new(r, "end_time", s->frames ? kg_json_num(s->t_last) : json_null());
    json_object_set_new(r, "duration", kg_json_num(o->duration));
    json_object_set_new(r, "cut_time", kg_json_num(o->cut_time));
    json_object_set_new(r, "dt", kg_json_num(o->dt));
    json_object_set_new(r, "swing", kg_json_num(o->swing));
    json_object_set_new(r, "fps", kg_json_num(o->frame_rate));
    json_object_set_new(r, "kp", kg_json_num(o->kp));
    json_object_set_new(r, "kd", kg_json_num(o->kd));
    json_object_set_new(r, "coordinates", json_integer(m->nq));
    json_object_set_new(r, "closure_error_both_max", kg_json_num(s->err_both));
    json_object_set_new(r, "closure_error_left_max", kg_json_num(s->err_one));
    return r;
}

static int run(int argc, char **argv) {
    opts t = {0};
    kg_cli c = {.command = "highbar", .ctx = &t, .operand = operand};
    int rc = kg_cli_parse(&c, &kg_cmd_highbar, argc, argv);
    if (rc >= 0) return rc;
    kg_high_bar_options o = kg_high_bar_default;
    if (settings(&t, &o) != 0) return KG_EXIT_USAGE;
    const char *path = t.out;
    if (c.json && (!path || !strcmp(path, "-") || !strcmp(path, "/dev/stdout")))
        return kg_cli_usage_error("highbar", "--json prints its summary on stdout: write the motion to a file (-o FILE.csv)");
    /* a file is written to a temporary renamed over it when complete (formats/fileio.h) */
    kg_out out = {0};
    if (path && kg_out_open(&out, path) != 0)
        return fprintf(stderr, "kinegraph highbar: cannot write %s\n", path), KG_EXIT_OUTPUT;
    out_state s = {.f = path ? out.f : stdout};
    kg_diags diags;
    kg_diags_init(&diags);
    kg_model *m = kg_high_bar_model(&diags);
    int status = m && kg_high_bar_simulate(m, &o, frame, &s) == 0 ? KG_EXIT_OK : KG_EXIT_ERRORS;
    int written;
    if (!path) {
        written = fflush(stdout) == 0 && !ferror(stdout);
    } else if (status != KG_EXIT_OK || ferror(out.f)) { /* a failed simulation leaves no file behind */
        written = status != KG_EXIT_OK;
        kg_out_abort(&out);
    } else {
        written = kg_out_commit(&out) == 0;
    }
    if (!written && status == KG_EXIT_OK) {
        fprintf(stderr, "kinegraph highbar: cannot write %s\n", path ? path : "stdout");
        status = KG_EXIT_OUTPUT;
    }
    fprintf(stderr, "highbar: %d frames (%d after the cut at %g s); largest closure error %.2e hanging by both "
                    "hands, %.2e by the left%s\n",
            s.frames, s.cut_frames, o.cut_time, s.err_both, s.err_one, status == KG_EXIT_ERRORS ? "; FAILED" : "");
    if (status == KG_EXIT_OK && c.json) status = kg_json_print(summary_json(m, &o, &s, path));
    kg_model_free(m);
    kg_diags_clear(&diags);
    return status;
}
