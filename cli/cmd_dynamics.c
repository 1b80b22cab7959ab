/* kinegraph dynamics MODEL MOTION: the joint torques of a robot's motion with
 * its feet's contacts, the multibody ZMP and each joint's torque against its
 * effort limit (include/kinegraph/torques.h). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kinegraph/torques.h"
#include "analysis/qp.h"
#include "core/model.h"
#include "cli/common.h"
#include "exporters/exporters.h"
#include "formats/fileio.h"
#include "formats/number.h"
#include "importers/importers.h"

typedef struct opts {
    const char *motion, *out, *report, *frames, *fps, *friction, *contact_height, *corner_height, *ground_z;
    const char *lowpass;
} opts;

static int run(int argc, char **argv);

/* MODEL, then MOTION */
static int operand(kg_cli *c, char *word) {
    opts *o = c->ctx;
    if (!c->model_path) c->model_path = word;
    else if (!o->motion) o->motion = word;
    else return kg_cli_usage_error("dynamics", "one MODEL and one MOTION, please"), -1;
    return 0;
}

static const kg_cli_option options[] = {
    {"--output", "-o", "FILE.csv", KG_TEXT(opts, out), .complete = KG_COMPLETE_FILE,
     .help = "the torques, one row per frame"},
    {"--report", .value = "FILE.json", KG_TEXT(opts, report), .complete = KG_COMPLETE_FILE,
     .help = "the report"},
    {"--frames", .value = "FILE.csv", KG_TEXT(opts, frames), .complete = KG_COMPLETE_FILE,
     .help = "per frame: time, contact_left, contact_right, the feet's vertical\n"
             "forces (N), the multibody ZMP (m), its margin in the support polygon\n"
             "(m, < 0 outside) and what the contacts could not supply (N, N m)"},
    {"--fps", .value = "N", KG_TEXT(opts, fps),
     .help = "the motion's frame rate (default: its time column, else 30)"},
    {"--friction", .value = "MU", KG_TEXT(opts, friction),
     .help = "sole-ground friction coefficient (default 0.5)"},
    {"--contact-height", .value = "M", KG_TEXT(opts, contact_height),
     .help = "inferred contact: the lowest sole corner this near the ground, m\n"
             "(default 0.005)"},
    {"--corner-height", .value = "M", KG_TEXT(opts, corner_height),
     .help = "a foot in contact touches at its sole corners this near its\n"
             "lowest, m (default 0.005)"},
    {"--ground-z", .value = "Z", KG_TEXT(opts, ground_z),
     .help = "the ground's height, m (default 0)"},
    {"--lowpass", .value = "HZ", KG_TEXT(opts, lowpass),
     .help = "low-pass the motion at this cutoff first (zero-phase Butterworth,\n"
             "at most 0.4 of the frame rate; default: the motion as given)"},
    {0},
};

const kg_cli_command kg_cmd_dynamics = {
    .name = "dynamics",
    .summary = "joint torques of a robot's motion with its foot contacts, ZMP, effort ratios",
    .usage = "kinegraph dynamics MODEL MOTION [-o TORQUES.csv] [--report REPORT.json] [--frames FRAMES.csv]\n"
             "                          [--fps N] [--friction MU] [--contact-height M] [--corner-height M]\n"
             "                          [--ground-z Z] [--lowpass HZ] [options]\n",
    .description =
        "The joint torques the robot MODEL needs to perform MOTION, by inverse dynamics with its\n"
        "root link as the floating base: velocities and accelerations by central differences of\n"
        "the motion (one-sided second-order differences at its ends; with --lowpass, of the motion\n"
        "low-passed first: second differences of captured or retargeted frames amplify their\n"
        "jitter by the frame rate squared), the wrench the base needs shared between the sole\n"
        "corners of the feet in contact (the least sum of squared forces within friction pyramids\n"
        "that makes it; the least-squares fit when none can), then the torques with those forces.\n"
        "Also the multibody ZMP and whether it is in the support polygon, and per joint the\n"
        "largest |torque| against the URDF effort limit.\n"
        "MOTION: a trajectory CSV as `retarget` and `convert` write it: the headed layout (time,\n"
        "root_x, root_y, root_z, root_qw, root_qx, root_qy, root_qz, coordinates by name; optional\n"
        "contact_left and contact_right columns, 0 or 1, give the contacts) or the headerless LAFAN1\n"
        "one (root x y z qx qy qz qw, the coordinates but mimic followers'; no time: --fps, default\n"
        "30). Without contact columns a foot is in contact when its lowest sole corner is within\n"
        "--contact-height of the ground. The feet are the body map's (as `retarget` finds them); a\n"
        "sole is the lowest face of the foot's collision shapes.\n"
        "TORQUES.csv: time (s), then one column per actuated coordinate named as its joint (N m for\n"
        "rotations, N for translations; a mimic follower's torque is carried by its leader); names\n"
        "are unique as a trajectory's (a name taken before gets #2, #3, ...).\n"
        "REPORT.json and --json: the fields of the README (per joint tau_max, effort, ratio_max,\n"
        "frame_max; zmp_outside_percent, ...). Without -o, --report or --json, a table of the\n"
        "joints goes to stdout. A summary goes to stderr. Exit status 1 when the model or motion\n"
        "cannot be used, 2 on a usage error, 3 when an output cannot be written.\n",
    .options = options,
    .common = KG_CLI_JSON | KG_CLI_MODEL,
    .operands = KG_COMPLETE_FILE,
    .run = run,
};

/* A number for option opt, >= lo (lo NAN: any finite); 0, or -1 after a usage error. */
static int number(kg_cli *c, const char *opt, const char *text, double lo, double *out) {
    if (!text) return 0;
    if (kg_cli_numbers(c, opt, text, out, 1) != 0) return -1;
    if (isfinite(*out) && (isnan(lo) || *out >= lo)) return 0;
    kg_cli_usage_error("dynamics", "%s takes a finite number%s, not '%s'", opt, isnan(lo) ? "" : " >= 0", text);
    return -1;
}

/* names: kg_velocity_names of the model, as every output here names joints. */
static int write_torques(const char *path, char **names, const kg_motion *mo, const kg_motion_torques *t) {
    kg_out out;
    char num[32];
    if (kg_out_open(&out, path) != 0) return -1;
    fputs("time", out.f);
    for (int k = 0; k < t->nact; k++) {
        fputc(',', out.f);
        kg_csv_field(out.f, names[t->act[k]]);
    }
    fputc('\n', out.f);
    for (int f = 0; f < t->nframes; f++) {
        fputs(kg_format_number(num, mo->start_time + f * mo->frame_time), out.f);
        for (int k = 0; k < t->nact; k++) {
            fputc(',', out.f);
            fputs(kg_format_number(num, t->tau[(size_t)f * t->nact + k]), out.f);
        }
        fputc('\n', out.f);
    }
    if (ferror(out.f)) {
        kg_out_abort(&out);
        return -1;
    }
    return kg_out_commit(&out);
}

static int write_frames(const char *path, const kg_motion *mo, const kg_torque_frame *fr) {
    kg_out out;
    if (kg_out_open(&out, path) != 0) return -1;
    fputs("time,contact_left,contact_right,fz_left,fz_right,zmp_x,zmp_y,zmp_margin,residual_force,residual_moment\n",
          out.f);
    char num[32];
    for (int f = 0; f < mo->nframes; f++) {
        const kg_torque_frame *r = &fr[f];
        double fz[2] = {0, 0};
        for (int s = 0; s < KG_NFOOT; s++)
            for (int k = 0; k < KG_SOLE_CORNERS; k++) fz[s] += r->force[s][k][2];
        const double v[] = {fz[0], fz[1], r->zmp[0], r->zmp[1], r->zmp_margin, r->residual_force, r->residual_moment};
        fprintf(out.f, "%s,%d,%d", kg_format_number(num, mo->start_time + f * mo->frame_time), r->contact[0],
                r->contact[1]);
        for (size_t k = 0; k < sizeof v / sizeof *v; k++) {
            fputc(',', out.f);
            if (!isnan(v[k])) fputs(kg_format_number(num, v[k]), out.f);
        }
        fputc('\n', out.f);
    }
    if (ferror(out.f)) {
        kg_out_abort(&out);
        return -1;
    }
    return kg_out_commit(&out);
}

static json_t *report_json(const kg_model *m, char **names, const kg_motion *mo, const char *motion_path,
                           const kg_motion_torques *t, const kg_torque_options *to, int have_feet, int given_contacts,
                           double cutoff) {
    json_t *r = json_object(), *joints = json_array(), *none = json_array();
    json_object_set_new(r, "model", kg_json_str(m->name));
    json_object_set_new(r, "motion", kg_json_str(motion_path));
    json_object_set_new(r, "frames", json_integer(t->nframes));
    json_object_set_new(r, "frame_time", json_real(mo->frame_time));
    json_object_set_new(r, "mass", json_real(t->mass));
    json_object_set_new(r, "gravity", kg_json_vec(to->dyn.gravity, 3));
    json_object_set_new(r, "friction", json_real(to->friction));
    json_object_set_new(r, "feet", json_boolean(have_feet));
    json_object_set_new(r, "contacts", json_string(!have_feet ? "none" : given_contacts ? "motion" : "inferred"));
    json_object_set_new(r, "contact_height", json_real(to->contact_height));
    json_object_set_new(r, "lowpass_hz", cutoff > 0 ? json_real(cutoff) : json_null());
    for (int k = 0; k < t->nact; k++) {
        json_t *j = json_object();
        const char *nm = names[t->act[k]];
        json_object_set_new(j, "name", kg_json_str(nm));
        json_object_set_new(j, "tau_max", json_real(t->tau_max[k]));
        json_object_set_new(j, "frame_max", json_integer(t->frame_max[k]));
        json_object_set_new(j, "time_max", json_real(mo->start_time + t->frame_max[k] * mo->frame_time));
        json_object_set_new(j, "effort", kg_json_num(t->effort[k]));
        json_object_set_new(j, "ratio_max", kg_json_num(t->ratio_max[k]));
        json_array_append_new(joints, j);
        if (isnan(t->effort[k])) json_array_append_new(none, kg_json_str(nm));
    }
    json_object_set_new(r, "joints", joints);
    json_object_set_new(r, "joints_without_effort", none);
    json_object_set_new(r, "ratio_max", kg_json_num(t->ratio_max_all));
    json_object_set_new(r, "ratio_max_joint", t->ratio_max_coord >= 0
                                                   ? kg_json_str(names[t->act[t->ratio_max_coord]])
                                                   : json_null());
    json_object_set_new(r, "contact_frames", json_integer(t->contact_frames));
    json_object_set_new(r, "double_support_frames", json_integer(t->double_support_frames));
    json_object_set_new(r, "zmp_outside_frames", json_integer(t->zmp_outside_frames));
    json_object_set_new(r, "zmp_outside_percent", json_real(t->zmp_outside_percent));
    json_object_set_new(r, "zmp_margin_min", kg_json_num(t->zmp_margin_min));
    json_object_set_new(r, "unbalanced_frames", json_integer(t->unbalanced_frames));
    json_object_set_new(r, "residual_force_max", json_real(t->residual_force_max));
    json_object_set_new(r, "residual_moment_max", json_real(t->residual_moment_max));
    json_object_set_new(r, "qp_failures", json_integer(t->qp_failures));
    json_object_set_new(r, "seconds", json_real(t->seconds));
    return r;
}

static void print_table(char **names, const kg_motion *mo, const kg_motion_torques *t) {
    printf("%-32s %12s %12s %8s %10s\n", "joint", "max |tau|", "effort", "ratio", "at [s]");
    for (int k = 0; k < t->nact; k++) {
        char e[32] = "-", r[32] = "-";
        if (!isnan(t->effort[k])) snprintf(e, sizeof e, "%.6g", t->effort[k]), snprintf(r, sizeof r, "%.3f", t->ratio_max[k]);
        printf("%-32s %12.6g %12s %8s %10.4f\n", names[t->act[k]], t->tau_max[k], e, r,
               mo->start_time + t->frame_max[k] * mo->frame_time);
    }
}

/* mo low-passed at cutoff Hz; freed, NULL and said why when it cannot be. */
static kg_motion *lowpassed(const kg_model *m, kg_motion *mo, double cutoff, const char *path, kg_diags *d) {
    int lp = kg_motion_lowpass(m, mo, cutoff);
    if (lp == 0) return mo;
    const double most = KG_LOWPASS_MAX_FRACTION / mo->frame_time;
    if (lp == -1 && cutoff > most) /* the motion fits the model (it was read for it): the cutoff does not */
        kg_diag_add(d, KG_ERROR, "dynamics.lowpass", path, 0, NULL,
                    "cannot low-pass at %g Hz: the cutoff must be at most %g of the frame rate (%g Hz)", cutoff,
                    KG_LOWPASS_MAX_FRACTION, most);
    else if (lp == -1)
        kg_diag_add(d, KG_ERROR, "dynamics.lowpass", path, 0, NULL,
                    "cannot low-pass at %g Hz: so far below the frame rate (%g frames/s) the filter vanishes in "
                    "double precision", cutoff, 1 / mo->frame_time);
    else
        kg_diag_add(d, KG_ERROR, "dynamics.memory", path, 0, NULL, "out of memory low-passing the motion");
    kg_motion_free(mo);
    return NULL;
}

static int run(int argc, char **argv) {
    opts o = {0};
    kg_cli c = {.command = "dynamics", .ctx = &o, .operand = operand};
    int rc = kg_cli_parse(&c, &kg_cmd_dynamics, argc, argv);
    if (rc >= 0) return rc;
    if (!c.model_path) return kg_cli_usage_error("dynamics", "which MODEL?");
    if (!o.motion) return kg_cli_usage_error("dynamics", "which MOTION? (a trajectory CSV of the model)");
    kg_torque_options to;
    kg_torque_defaults(&to);
    double fps = 0, cutoff = 0;
    if (number(&c, "--fps", o.fps, 0, &fps) || number(&c, "--friction", o.friction, 0, &to.friction) ||
        number(&c, "--contact-height", o.contact_height, 0, &to.contact_height) ||
        number(&c, "--corner-height", o.corner_height, 0, &to.corner_height) ||
        number(&c, "--ground-z", o.ground_z, NAN, &to.ground_z) || number(&c, "--lowpass", o.lowpass, 0, &cutoff))
        return KG_EXIT_USAGE;
    if (o.fps && !(fps > 0)) return kg_cli_usage_error("dynamics", "--fps takes a number > 0, not '%s'", o.fps);
    if (o.lowpass && !(cutoff > 0))
        return kg_cli_usage_error("dynamics", "--lowpass takes a number > 0, not '%s'", o.lowpass);

    kg_model *m = kg_cli_load(&c, KG_ERROR);
    if (!m) {
        kg_cli_done(&c);
        return KG_EXIT_ERRORS;
    }
    size_t before = c.diags.count;
    unsigned char *contacts = NULL;
    kg_motion *mo = kg_import_trajectory_csv(m, o.motion, fps, &contacts, &c.diags);
    if (mo && o.lowpass) mo = lowpassed(m, mo, cutoff, o.motion, &c.diags);
    kg_feet feet;
    kg_diags fd;
    kg_diags_init(&fd);
    int have_feet = mo && kg_feet_find(m, &feet, &fd) == 0;
    if (mo && !have_feet) {
        const char *why = "not a humanoid";
        for (size_t k = fd.count; k-- > 0;)
            if (fd.items[k].severity == KG_ERROR) why = fd.items[k].message;
        kg_diag_add(&c.diags, KG_WARNING, "dynamics.no_feet", m->source, 0, NULL,
                    "no feet found (%s): the torques are those without ground contact, the base's wrench its own", why);
    }
    for (size_t k = 0; k < fd.count; k++)
        if (fd.items[k].severity < KG_ERROR)
            kg_diag_add(&c.diags, fd.items[k].severity, fd.items[k].code, fd.items[k].file, fd.items[k].line, NULL, "%s",
                        fd.items[k].message);
    kg_diags_clear(&fd);
    kg_motion_torques t = {0};
    kg_torque_frame *frames = mo && o.frames ? calloc((size_t)mo->nframes, sizeof *frames) : NULL;
    rc = !mo || kg_motion_torques_compute(m, mo, contacts, have_feet ? &feet : NULL, &to, &t, frames, &c.diags) != 0
             ? KG_EXIT_ERRORS
             : 0;
    kg_cli_print_diags_from(&c, stderr, c.verbose ? KG_INFO : KG_WARNING, before);
    char **names = rc == 0 ? kg_velocity_names(m) : NULL;
    if (rc == 0 && !names) {
        fprintf(stderr, "kinegraph dynamics: out of memory\n");
        rc = KG_EXIT_ERRORS;
    }
    if (rc == 0 && o.out && write_torques(o.out, names, mo, &t) != 0) {
        fprintf(stderr, "kinegraph dynamics: cannot write %s\n", o.out);
        rc = KG_EXIT_OUTPUT;
    }
    if (rc == 0 && o.frames && write_frames(o.frames, mo, frames) != 0) {
        fprintf(stderr, "kinegraph dynamics: cannot write %s\n", o.frames);
        rc = KG_EXIT_OUTPUT;
    }
    if (rc == 0) {
        json_t *r = report_json(m, names, mo, o.motion, &t, &to, have_feet, contacts != NULL, cutoff);
        if (o.report && kg_json_write_file(r, o.report) != 0) {
            fprintf(stderr, "kinegraph dynamics: cannot write %s\n", o.report);
            rc = KG_EXIT_OUTPUT;
        }
        if (rc == 0 && c.json) rc = kg_json_print(json_incref(r));
        json_decref(r);
        if (rc == 0 && !c.json && !o.out && !o.report && !o.frames) print_table(names, mo, &t);
        fprintf(stderr,
                "kinegraph dynamics: %d frames, largest torque ratio %.3g (%s), ZMP outside support on %.1f %% of %d "
                "contact frames, %d frames the contacts could not balance\n",
                t.nframes, t.ratio_max_all,
                t.ratio_max_coord >= 0 ? names[t.act[t.ratio_max_coord]] : "no effort limits",
                t.zmp_outside_percent, t.contact_frames, t.unbalanced_frames);
    }
    if (rc == 0) rc = kg_cli_status(&c);
    kg_coord_names_free(names, m ? m->nv : 0);
    free(frames);
    free(contacts);
    kg_motion_torques_free(&t);
    kg_motion_free(mo);
    kg_model_free(m);
    kg_cli_done(&c);
    return rc;
}
