/* kinegraph ik MODEL --tip LINK --target ...: joint values that put a link at a pose. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/ik.h"
#include "cli/common.h"
#include "core/spatial.h"

typedef struct opts {
    const char *tip, *base, *point, *target, *axes, *tol, *iters, *seed;
} opts;

static int run(int argc, char **argv);

static const kg_cli_option options[] = {
    {"--tip", .value = "LINK", KG_TEXT(opts, tip),
     .help = "the link to place (required)"},
    {"--target", .value = "X,Y,Z[,QW,QX,QY,QZ]", KG_TEXT(opts, target),
     .help = "position (m) and orientation (unit quaternion, w first)"},
    {"--base", .value = "LINK", KG_TEXT(opts, base),
     .help = "the target is in this link's frame (default: the world)"},
    {"--point", .value = "X,Y,Z", KG_TEXT(opts, point),
     .help = "the point on the tip to place, in its frame (default: its origin)"},
    {"--axes", .value = "LIST", KG_TEXT(opts, axes),
     .help = "constrained axes of the target's frame, from x,y,z,rx,ry,rz\n"
             "(default: all six with a quaternion, x,y,z without); e.g.\n"
             "x,y,z,rx,ry leaves the turn about the target's z axis free"},
    {"--tol", .value = "POS[,ROT]", KG_TEXT(opts, tol),
     .help = "tolerances (default 1e-5 m, 1e-5 rad)"},
    {"--max-iterations", .value = "N", KG_TEXT(opts, iters),
     .help = "in all, over restarts (default 1000)"},
    {"--seed", .value = "K", KG_TEXT(opts, seed),
     .help = "for the restarts (default 1)"},
    {0},
};

const kg_cli_command kg_cmd_ik = {
    .name = "ik",
    .summary = "inverse kinematics: joint values that put a link at a pose",
    .usage = "kinegraph ik MODEL --tip LINK --target X,Y,Z[,QW,QX,QY,QZ] [--base LINK] [--point X,Y,Z]\n"
             "                    [--axes LIST] [--tol POS[,ROT]] [--max-iterations N] [--seed K] [--q JSON] [options]\n",
    .description =
        "Numerical inverse kinematics: joint values that put LINK (or --point on it) at the target\n"
        "position, and orientation when a quaternion is given, in the frame of --base (default:\n"
        "the world). Only the joints between the base and the tip move, from the values --q gives\n"
        "(default: the rest pose), within their limits; mimic followers follow, loops stay closed.\n"
        "Weighted damped least squares with joint-limit weighting and manipulability-based damping\n"
        "(irteus), random restarts when stuck (TRAC-IK). Success: position error <= POS (m) and\n"
        "rotation error <= ROT (rad), along the constrained axes.\n"
        "JSON: {\"success\", \"iterations\", \"restarts\", \"position_error\", \"rotation_error\", \"seconds\",\n"
        "       \"joints\": {name: value}, \"tip\": {\"position\": [3], \"rotation\": [[3],[3],[3]]}}\n"
        "(joints: every independent joint coordinate of the model; tip: the reached pose in the\n"
        "base's frame). Exit status 4 when no solution was found (the best pose is printed).\n",
    .options = options,
    .common = KG_CLI_JSON | KG_CLI_MODEL | KG_CLI_POSE,
    .operands = KG_COMPLETE_FILE,
    .run = run,
};

/* "x,y,rz" -> KG_IK_* bits; 0 after a usage error */
static unsigned parse_axes(const char *s) {
    static const char *const names[6] = {"x", "y", "z", "rx", "ry", "rz"};
    unsigned axes = 0;
    char buf[128];
    snprintf(buf, sizeof buf, "%s", s);
    for (char *tok = strtok(buf, ","); tok; tok = strtok(NULL, ",")) {
        int k = 0;
        while (k < 6 && strcmp(tok, names[k])) k++;
        if (k == 6) return 0;
        axes |= 1u << k;
    }
    return axes;
}

static int count_numbers(const char *s) {
    int n = 1;
    for (; *s; s++) n += *s == ',';
    return n;
}

/* --target, --axes and --point into t: 0, or KG_EXIT_USAGE after saying why. */
static int target_settings(kg_cli *c, const opts *o, kg_ik_target *t) {
    double tv[7] = {0, 0, 0, 1, 0, 0, 0};
    int nt = count_numbers(o->target);
    if ((nt != 3 && nt != 7) || kg_cli_numbers(c, "--target", o->target, tv, nt))
        return kg_cli_usage_error(c->command, "--target takes X,Y,Z or X,Y,Z,QW,QX,QY,QZ, not '%s'", o->target);
    memcpy(t->pos, tv, sizeof t->pos);
    kg_rot_from_quat(t->rot, tv + 3);
    t->axes = nt == 7 ? KG_IK_POSE : KG_IK_POSITION;
    if (o->axes && !(t->axes = parse_axes(o->axes)))
        return kg_cli_usage_error(c->command, "--axes takes names from x,y,z,rx,ry,rz separated by commas, not '%s'",
                                  o->axes);
    if (o->point && kg_cli_numbers(c, "--point", o->point, t->point, 3)) return KG_EXIT_USAGE;
    return 0;
}

/* --tol, --max-iterations and --seed into io: 0, or KG_EXIT_USAGE after saying why. */
static int solver_settings(kg_cli *c, const opts *o, kg_ik_options *io) {
    if (o->tol) {
        double tol[2];
        int k = count_numbers(o->tol);
        if (k > 2 || kg_cli_numbers(c, "--tol", o->tol, tol, k) || !(tol[0] > 0) || (k == 2 && !(tol[1] > 0)))
            return kg_cli_usage_error(c->command, "--tol takes POS or POS,ROT (positive), not '%s'", o->tol);
        io->tol_pos = tol[0];
        io->tol_rot = k == 2 ? tol[1] : tol[0];
    }
    if (o->iters) {
        char *end;
        long v = strtol(o->iters, &end, 10);
        if (*end || v < 1 || v > 100000000) return kg_cli_usage_error(c->command, "--max-iterations needs a positive count");
        io->max_iterations = (int)v;
    }
    if (o->seed) {
        char *end;
        io->seed = strtoull(o->seed, &end, 10);
        if (*end || end == o->seed) return kg_cli_usage_error(c->command, "--seed needs a number");
    }
    return 0;
}

/* The pose the target's point reached, in the base's frame: position p, rotation R. */
static void reached(const kg_data *d, const kg_ik_target *t, double p[3], double R[9]) {
    double pw[3];
    kg_mat3_vec(pw, d->link_rot + 9 * t->link, t->point);
    for (int a = 0; a < 3; a++) pw[a] += d->link_pos[3 * t->link + a];
    if (t->base >= 0) {
        double dp[3];
        for (int a = 0; a < 3; a++) dp[a] = pw[a] - d->link_pos[3 * t->base + a];
        kg_mat3_tvec(p, d->link_rot + 9 * t->base, dp);
        kg_mat3_mul_at(R, d->link_rot + 9 * t->base, d->link_rot + 9 * t->link);
    } else {
        kg_vec3_copy(p, pw);
        kg_mat3_copy(R, d->link_rot + 9 * t->link);
    }
}

/* The solution r (joints in d, tip at p, R) for --json. Returns an exit code. */
static int print_json(const kg_model *m, const kg_data *d, const kg_ik_result *r, const double p[3], const double R[9]) {
    json_t *out = json_object(), *joints = json_object(), *tip = json_object();
    json_object_set_new(out, "success", json_boolean(r->success));
    json_object_set_new(out, "iterations", json_integer(r->iterations));
    json_object_set_new(out, "restarts", json_integer(r->restarts));
    json_object_set_new(out, "position_error", kg_json_num(r->pos_error));
    json_object_set_new(out, "rotation_error", kg_json_num(r->rot_error));
    json_object_set_new(out, "seconds", kg_json_num(r->seconds));
    for (int j = 0; j < m->njoint; j++) {
        const kg_joint *J = &m->joint[j];
        if (!kg_joint_is_independent(m, j)) continue;
        json_object_set_new(joints, J->name, J->nq == 1 ? kg_json_num(d->q[J->qadr]) : kg_json_vec(d->q + J->qadr, J->nq));
    }
    json_object_set_new(out, "joints", joints);
    json_object_set_new(tip, "position", kg_json_vec(p, 3));
    json_object_set_new(tip, "rotation", kg_json_mat3(R));
    json_object_set_new(out, "tip", tip);
    return kg_json_print(out);
}

/* The same as print_json, as text. */
static void print_text(const kg_model *m, const kg_data *d, const kg_ik_result *r, const double p[3]) {
    printf("%s after %d iterations (%d restarts, %.3f ms): position error %.3g m, rotation error %.3g rad\n",
           r->success ? "solved" : "NOT solved (best pose shown)", r->iterations, r->restarts, 1e3 * r->seconds,
           r->pos_error, r->rot_error);
    printf("tip at %.6f %.6f %.6f\n", p[0], p[1], p[2]);
    for (int j = 0; j < m->njoint; j++) {
        const kg_joint *J = &m->joint[j];
        if (!kg_joint_is_independent(m, j)) continue;
        printf("%-32s", J->name);
        for (int k = 0; k < J->nq; k++) printf(" %.9g", d->q[J->qadr + k]);
        printf("\n");
    }
}

/* Solves t from d's pose (the answer left in d) and prints it. Returns an exit code. */
static int solve(const kg_cli *c, const kg_model *m, kg_data *d, const kg_ik_target *t, const kg_ik_options *io) {
    int rc = 0;
    kg_ik_work *w = kg_ik_work_new(m, 1);
    kg_ik_result r;
    if (!w) {
        fprintf(stderr, "kinegraph ik: out of memory\n");
        rc = KG_EXIT_ERRORS;
    } else {
        kg_ik_solve(m, d, t, 1, io, w, &r);
    }
    kg_ik_work_free(w);
    double p[3], R[9];
    reached(d, t, p, R);
    if (rc == 0 && c->json) rc = print_json(m, d, &r, p, R);
    else if (rc == 0) print_text(m, d, &r, p);
    if (rc == 0 && !r.success) rc = KG_EXIT_NO_SOLUTION;
    return rc;
}

static int run(int argc, char **argv) {
    opts o = {0};
    kg_cli c = {.command = "ik", .ctx = &o};
    int rc = kg_cli_parse(&c, &kg_cmd_ik, argc, argv);
    if (rc >= 0) return rc;
    if (!o.tip) return kg_cli_usage_error(c.command, "which link? (--tip LINK)");
    if (!o.target) return kg_cli_usage_error(c.command, "where to? (--target X,Y,Z[,QW,QX,QY,QZ])");
    kg_ik_target t = {.base = -1};
    if ((rc = target_settings(&c, &o, &t)) != 0) return rc;
    kg_ik_options io;
    kg_ik_defaults(&io);
    if ((rc = solver_settings(&c, &o, &io)) != 0) return rc;
    kg_model *m;
    kg_data *d;
    rc = kg_cli_pose(&c, &m, &d);
    if (rc == 0 && (t.link = kg_cli_link(&c, m, "--tip", o.tip)) < 0) rc = KG_EXIT_USAGE;
    if (rc == 0 && o.base && (t.base = kg_cli_link(&c, m, "--base", o.base)) < 0) rc = KG_EXIT_USAGE;
    if (rc == 0) rc = solve(&c, m, d, &t, &io);
    if (rc == 0) rc = kg_cli_status(&c);
    kg_data_free(d);
    kg_model_free(m);
    kg_cli_done(&c);
    return rc;
}
