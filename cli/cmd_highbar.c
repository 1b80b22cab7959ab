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

int kg_cmd_highbar(int argc, char **argv);

static const char help[] =
    "usage: kinegraph highbar [-o MOTION.csv] [--duration S] [--cut-time S] [--dt S] [--swing W]\n"
    "                         [--fps N]\n"
    "\n"
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
    "(rad), named as the joint, grips included. A summary goes to stderr. Exit status 2 on a\n"
    "usage error, 3 when the output cannot be written, 1 when the simulation fails.\n"
    "\n"
    "options:\n"
    "  -o, --output FILE.csv  the motion\n"
    "  --duration S           simulated time (default 2)\n"
    "  --cut-time S           when the right hand lets go (default 1)\n"
    "  --dt S                 integration step (default 0.0005)\n"
    "  --swing W              angular velocity about the bar at the start, rad/s (default 1)\n"
    "  --fps N                frames written per second (default 100)\n";

typedef struct out_state {
    FILE *f;
    int frames, cut_frames;
    double err_both, err_one;
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
    if (grips == 2) o->err_both = fmax(o->err_both, err);
    else o->err_one = fmax(o->err_one, err), o->cut_frames++;
    fprintf(o->f, "%.6f,%d,%.3e", t, grips, err);
    for (int j = 0; j < m->njoint; j++)
        for (int k = 0; k < m->joint[j].nq; k++) fprintf(o->f, ",%.9g", d->q[m->joint[j].qadr + k]);
    fputc('\n', o->f);
}

/* --name VALUE for a number >= lo; 1 when consumed, 0 when not this option, -1 on error */
static int number_option(int argc, char **argv, int *i, const char *name, double lo, double *out) {
    if (strcmp(argv[*i], name) != 0) return 0;
    char *end;
    if (*i + 1 >= argc) return kg_cli_usage_error("highbar", "option %s needs a value", name), -1;
    const char *text = argv[++*i];
    *out = strtod(text, &end);
    if (end == text || *end || !isfinite(*out) || !(*out >= lo))
        return kg_cli_usage_error("highbar", "%s takes a finite number >= %g, not '%s'", name, lo, text), -1;
    return 1;
}

static int parse(int argc, char **argv, kg_high_bar_options *o, const char **path) {
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "-o") == 0 || strcmp(a, "--output") == 0) {
            if (i + 1 >= argc) return kg_cli_usage_error("highbar", "option %s needs a value", a);
            *path = argv[++i];
            continue;
        }
        int r = number_option(argc, argv, &i, "--duration", 0, &o->duration);
        if (!r) r = number_option(argc, argv, &i, "--cut-time", 0, &o->cut_time);
        if (!r) r = number_option(argc, argv, &i, "--dt", 1e-9, &o->dt);
        if (!r) r = number_option(argc, argv, &i, "--swing", -1e9, &o->swing);
        if (!r) r = number_option(argc, argv, &i, "--fps", 1e-9, &o->frame_rate);
        if (r < 0) return KG_EXIT_USAGE;
        if (!r) return kg_cli_usage_error("highbar", "unknown argument '%s'", a);
    }
    return 0;
}

int kg_cmd_highbar(int argc, char **argv) {
    for (int i = 1; i < argc; i++)
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) return fputs(help, stdout), KG_EXIT_OK;
    kg_high_bar_options o = kg_high_bar_default;
    const char *path = NULL;
    const int st = parse(argc, argv, &o, &path);
    if (st) return st;
    out_state s = {.f = path ? fopen(path, "w") : stdout};
    if (!s.f) return fprintf(stderr, "kinegraph highbar: cannot write %s\n", path), KG_EXIT_OUTPUT;
    kg_diags diags;
    kg_diags_init(&diags);
    kg_model *m = kg_high_bar_model(&diags);
    int status = m && kg_high_bar_simulate(m, &o, frame, &s) == 0 ? KG_EXIT_OK : KG_EXIT_ERRORS;
    if ((path ? fclose(s.f) : fflush(s.f)) != 0 && status == KG_EXIT_OK) {
        fprintf(stderr, "kinegraph highbar: cannot write %s\n", path ? path : "stdout");
        status = KG_EXIT_OUTPUT;
    }
    fprintf(stderr, "highbar: %d frames (%d after the cut at %g s); largest closure error %.2e hanging by both "
                    "hands, %.2e by the left%s\n",
            s.frames, s.cut_frames, o.cut_time, s.err_both, s.err_one, status == KG_EXIT_ERRORS ? "; FAILED" : "");
    kg_model_free(m);
    kg_diags_clear(&diags);
    return status;
}
