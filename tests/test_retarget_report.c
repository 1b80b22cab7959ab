/* The retargeting report (analysis/retarget/report.c): every figure on a
 * synthetic clip where its value is known by construction. The sample
 * humanoid stands at rest with its soles on the ground; its source is the
 * robot itself (the source's points are the robot's own, both feet down and
 * standing); each test changes one thing - the robot's root, a joint, a
 * source point, a contact flag, the solve's log - and checks the figures it
 * moves. No corpus needed. */
#include "testutil.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/convex.h"
#include "analysis/ik.h"
#include "analysis/retarget/internal.h"
#include "core/fk.h"
#include "core/motion.h"
#include "core/spatial.h"

#define SAMPLE KG_SOURCE_DIR "/samples/humanoid.urdf"

#define DT 0.02          /* s: 50 frames/s, so the ZMP's 40 ms step is two frames */
#define DT_ONE_STEP 0.04 /* s: 25 frames/s, where it is one frame */
#define MM 1e-3          /* m */
#define TOL_MM 1e-6      /* mm: a figure known exactly, up to rounding */
#define TOL_DEG 1e-9     /* deg: the same for angles */
#define TOL_ACOS_DEG 1e-6 /* deg: directions equal but for rounding (acos resolves ~1e-6 deg near 0) */
#define PI 3.14159265358979323846
#define DEG (PI / 180)

static kg_model *model;
static kg_retarget_robot *robot;

/* A synthetic clip: the source, the output motion, the solve's log, the report. */
typedef struct clip {
    int n;
    rt_source s;
    kg_motion *out;
    rt_frame_log *log;
    kg_retarget_report rep;
} clip;

static int load_robot(void **state) {
    (void)state;
    kg_diags d;
    kg_diags_init(&d);
    model = kg_test_load(SAMPLE);
    robot = kg_retarget_robot_new(model, NULL, &d);
    if (!robot) kg_test_print_diags(&d);
    kg_diags_clear(&d);
    return robot ? 0 : -1;
}

static int free_robot(void **state) {
    (void)state;
    kg_retarget_robot_free(robot);
    kg_model_free(model);
    return 0;
}

/* Frame f's root: at rest (its soles on the ground, z = 0) moved by (dx, dy, dz), turned by R (NULL: not). */
static void set_root(clip *c, int f, double dx, double dy, double dz, const double R[9]) {
    double *b = c->out->base + 7 * f;
    b[0] = dx, b[1] = dy, b[2] = -robot->sole_z + dz;
    if (R) kg_rot_to_quat(R, b + 3);
    else b[3] = 1, b[4] = b[5] = b[6] = 0;
}

/* n frames dt apart of the robot standing at rest, the source standing on both feet. */
static void clip_new(clip *c, int n, double dt) {
    memset(c, 0, sizeof *c);
    c->n = n;
    c->s.nframes = n, c->s.dt = dt, c->s.map = robot->map, c->s.s_leg = c->s.s_arm = 1;
    c->s.f = calloc((size_t)n, sizeof *c->s.f);
    c->log = calloc((size_t)n, sizeof *c->log);
    c->out = kg_motion_new(model->nq, dt, (size_t)n);
    c->out->base = malloc((size_t)n * 7 * sizeof *c->out->base);
    assert_true(c->s.f && c->log && c->out->base);
    for (int f = 0; f < n; f++) {
        kg_motion_append(c->out, model->q_default);
        set_root(c, f, 0, 0, 0, NULL);
        rt_frame_source *F = &c->s.f[f];
        F->contact[0] = F->contact[1] = 1, F->standing = 1;
    }
}

static void clip_free(clip *c) {
    free(c->s.f), free(c->log);
    kg_motion_free(c->out);
}

/* The source's points from the robot's own kinematics at each frame of the
 * output: the source "is" the robot (call after the output is set). */
static void source_from_output(clip *c) {
    kg_data *d = kg_data_new(model);
    assert_non_null(d);
    const int *L = robot->map.link;
    for (int f = 0; f < c->n; f++) {
        rt_frame_source *F = &c->s.f[f];
        kg_motion_pose(c->out, f, d);
        kg_fk(model, d);
        for (int k = 0; k < KG_NPART; k++) {
            if (L[k] < 0) continue;
            double off[3];
            kg_mat3_vec(off, d->link_rot + 9 * L[k], robot->map.point[k]);
            for (int a = 0; a < 3; a++) F->kp[k][a] = d->link_pos[3 * L[k] + a] + off[a];
        }
        kg_mat3_copy(F->pelvis_R, d->link_rot + 9 * L[KG_PART_PELVIS]);
        kg_mat3_vec(F->head_up, d->link_rot + 9 * L[KG_PART_HEAD], robot->head_up);
    }
    kg_data_free(d);
}

/* The report of clip c; each frame's flags into flags when not NULL. */
static void run_report_flags(clip *c, unsigned *flags) {
    kg_retarget_options o;
    kg_retarget_defaults(&o);
    o.frame_flags = flags;
    memset(&c->rep, 0, sizeof c->rep); /* the driver's part: rt_report accumulates */
    rt_report(robot, &c->s, c->out, c->log, &o, &c->rep);
}

static void run_report(clip *c) { run_report_flags(c, NULL); }

/* A joint's coordinate in q. */
static int coord(const char *joint) {
    int j = kg_model_joint(model, joint);
    assert_true(j >= 0);
    return model->joint[j].qadr;
}

/* ---- what the figures should be, from the robot's rest geometry --------------------------- */

/* The COM at rest, the root at the origin. */
static void rest_com(double com[3]) {
    for (int a = 0; a < 3; a++) com[a] = robot->rest_pos[KG_PART_PELVIS][a] + robot->com_off[a];
}

/* The box (x, y) around the soles of the feet down whose foot links are at
 * foot[side], flat and turned as at rest: their support polygon when the soles
 * are aligned rectangles, as the sample's are. */
static void support_box(const double foot[2][3], const int down[2], double lo[2], double hi[2]) {
    lo[0] = lo[1] = INFINITY, hi[0] = hi[1] = -INFINITY;
    for (int side = 0; side < 2; side++) {
        if (!down[side]) continue;
        for (int k = 0; k < 4; k++) {
            double v[3];
            kg_mat3_vec(v, robot->rest_rot[side ? KG_PART_FOOT_R : KG_PART_FOOT_L], robot->sole[side][k]);
            for (int a = 0; a < 2; a++) {
                lo[a] = fmin(lo[a], foot[side][a] + v[a]);
                hi[a] = fmax(hi[a], foot[side][a] + v[a]);
            }
        }
    }
}

/* The rest feet's box. */
static void rest_support_box(int left, int right, double lo[2], double hi[2]) {
    double foot[2][3];
    const int down[2] = {left, right};
    kg_vec3_copy(foot[0], robot->rest_pos[KG_PART_FOOT_L]);
    kg_vec3_copy(foot[1], robot->rest_pos[KG_PART_FOOT_R]);
    support_box((const double(*)[3])foot, down, lo, hi);
}

/* Signed distance (m) of p into the box (> 0 inside). */
static double box_margin(const double lo[2], const double hi[2], const double p[2]) {
    double out[2], inside = INFINITY;
    for (int a = 0; a < 2; a++) {
        out[a] = fmax(0, fmax(lo[a] - p[a], p[a] - hi[a]));
        inside = fmin(inside, fmin(p[a] - lo[a], hi[a] - p[a]));
    }
    return out[0] > 0 || out[1] > 0 ? -hypot(out[0], out[1]) : inside;
}

/* v turned by angle about an axis across it (the angle between them is then angle). */
static void turn_across(double v[3], double angle) {
    int least = 0; /* the world axis least along v */
    for (int a = 1; a < 3; a++)
        if (fabs(v[a]) < fabs(v[least])) least = a;
    double e[3] = {0, 0, 0}, n[3], R[9], w[3];
    e[least] = 1;
    kg_vec3_cross(n, v, e);
    rt_normalize(n);
    kg_rot_axis_angle(R, n, angle);
    kg_mat3_vec(w, R, v);
    kg_vec3_copy(v, w);
}

/* ---- the tests --------------------------------------------------------------------------- */

/* Standing still on both feet: nothing slips, sinks, floats or hovers, the
 * pose is the source's, no limit is passed, nothing moves; the ZMP is the COM,
 * inside the feet's polygon by its distance to the nearest edge. */
static void test_standing(void **state) {
    (void)state;
    const int n = 20;
    clip c;
    clip_new(&c, n, DT);
    source_from_output(&c);
    run_report(&c);
    const kg_retarget_report *r = &c.rep;
    assert_int_equal(r->frames, n);
    KG_ASSERT_NEAR(r->frame_time, DT, 0);
    KG_ASSERT_NEAR(r->slip_max_mm, 0, TOL_MM);
    KG_ASSERT_NEAR(r->slip_mean_mm, 0, TOL_MM);
    assert_int_equal(r->stance_runs, 2);
    KG_ASSERT_NEAR(r->penetration_max_mm, 0, TOL_MM);
    KG_ASSERT_NEAR(r->float_max_mm, 0, TOL_MM);
    KG_ASSERT_NEAR(r->hover_percent, 0, 0);
    KG_ASSERT_NEAR(r->pose_mean_deg, 0, TOL_DEG);
    KG_ASSERT_NEAR(r->pose_p95_deg, 0, TOL_DEG);
    for (int k = 0; k < KG_NSEGMENT; k++) KG_ASSERT_NEAR(r->pose_segment_mean_deg[k], 0, TOL_DEG);
    KG_ASSERT_NEAR(r->keypoint_mean_mm, 0, TOL_MM);
    KG_ASSERT_NEAR(r->keypoint_max_mm, 0, TOL_MM);
    assert_int_equal(r->limit_violations, 0);
    assert_int_equal(r->velocity_violations, 0);
    KG_ASSERT_NEAR(r->root_speed_max, 0, 0);
    KG_ASSERT_NEAR(r->source_root_speed_max, 0, 0);
    assert_int_equal(r->root_fast_frames + r->source_root_fast_frames, 0);
    KG_ASSERT_NEAR(r->hips_drop_max_mm, 0, TOL_MM);
    assert_int_equal(r->hips_low_frames, 0);
    assert_int_equal(r->contact_phases, 2);
    assert_int_equal(r->contact_frames, n);
    assert_int_equal(r->double_support_frames, n);
    double com[3], lo[2], hi[2];
    rest_com(com);
    rest_support_box(1, 1, lo, hi);
    double margin = box_margin(lo, hi, com) / MM;
    assert_true(margin > 0);
    KG_ASSERT_NEAR(r->zmp_margin_min_mm, margin, TOL_MM);
    KG_ASSERT_NEAR(r->com_margin_min_mm, margin, TOL_MM);
    KG_ASSERT_NEAR(r->zmp_outside_percent + r->com_outside_percent + r->com_outside_double_percent, 0, 0);
    assert_true(robot->have_cm && robot->nwatch > 0); /* so the collision figures are counted (not -1) */
    assert_int_equal(r->self_collision_frames, 0);
    assert_int_equal(r->self_collision_deep_frames, 0);
    KG_ASSERT_NEAR(r->self_collision_depth_max_mm, 0, 0);
    for (int k = 0; k < KG_NSLACK; k++) assert_int_equal(r->slack_frames[k], 0);
    assert_int_equal(r->qp_failures, 0);
    clip_free(&c);
}

/* The left foot slides 10 mm along x, 1 mm a frame over 10 frames, on the
 * ground while the source's left foot is down (the robot moved whole: its
 * right foot slides too, but the source swings it: no stance there). */
static void test_slip(void **state) {
    (void)state;
    const int n = 11;
    clip c;
    clip_new(&c, n, DT);
    for (int f = 0; f < n; f++) set_root(&c, f, f * MM, 0, 0, NULL), c.s.f[f].contact[1] = 0;
    source_from_output(&c);
    run_report(&c);
    KG_ASSERT_NEAR(c.rep.slip_max_mm, 10, TOL_MM);
    KG_ASSERT_NEAR(c.rep.slip_mean_mm, 10, TOL_MM);
    assert_int_equal(c.rep.stance_runs, 1);
    assert_int_equal(c.rep.contact_phases, 1);
    assert_int_equal(c.rep.double_support_frames, 0);
    clip_free(&c);
}

/* A sole slips only while on the ground, within 5 mm of it: 10 mm on it, then
 * 5 mm 6 mm above it (not slip, and the stance run ends: a down foot 6 mm up
 * floats), then 8 mm 4 mm above it (a second run). */
static void test_slip_on_ground(void **state) {
    (void)state;
    const int n = 21;
    clip c;
    clip_new(&c, n, DT);
    for (int f = 0; f < n; f++) {
        double x = f <= 15 ? f * MM : (15 + 2 * (f - 15)) * MM, z = f <= 10 ? 0 : f <= 15 ? 6 * MM : 4 * MM;
        set_root(&c, f, x, 0, z, NULL);
        c.s.f[f].contact[1] = 0;
    }
    source_from_output(&c);
    run_report(&c);
    assert_int_equal(c.rep.stance_runs, 2);
    KG_ASSERT_NEAR(c.rep.slip_max_mm, 10, TOL_MM);
    KG_ASSERT_NEAR(c.rep.slip_mean_mm, (10 + 8) / 2.0, TOL_MM);
    KG_ASSERT_NEAR(c.rep.float_max_mm, 6, TOL_MM);
    KG_ASSERT_NEAR(c.rep.penetration_max_mm, 0, TOL_MM);
    assert_int_equal(c.rep.contact_phases, 1);
    clip_free(&c);
}

/* A foot turning on a corner of its sole (a pivot) does not slip: slip is the
 * travel of the sole's point that moves least (its centre travels 0.02 rad a
 * frame times ~0.1 m here, 20 mm in all). */
static void test_pivot_is_not_slip(void **state) {
    (void)state;
    const int n = 11;
    clip c;
    clip_new(&c, n, DT);
    double corner[3], z[3] = {0, 0, 1};
    kg_mat3_vec(corner, robot->rest_rot[KG_PART_FOOT_L], robot->sole[0][0]);
    for (int a = 0; a < 3; a++) corner[a] += robot->rest_pos[KG_PART_FOOT_L][a];
    for (int f = 0; f < n; f++) {
        double R[9], arm[3] = {-corner[0], -corner[1], 0}, moved[3];
        kg_rot_axis_angle(R, z, 0.02 * f);
        kg_mat3_vec(moved, R, arm); /* the root about the corner */
        set_root(&c, f, corner[0] + moved[0], corner[1] + moved[1], 0, R);
        c.s.f[f].contact[1] = 0;
    }
    source_from_output(&c);
    run_report(&c);
    assert_int_equal(c.rep.stance_runs, 1);
    KG_ASSERT_NEAR(c.rep.slip_max_mm, 0, TOL_MM);
    clip_free(&c);
}

/* The robot 3 mm too low: both soles 3 mm in the ground. */
static void test_penetration(void **state) {
    (void)state;
    clip c;
    clip_new(&c, 5, DT);
    for (int f = 0; f < c.n; f++) set_root(&c, f, 0, 0, -3 * MM, NULL);
    source_from_output(&c);
    run_report(&c);
    KG_ASSERT_NEAR(c.rep.penetration_max_mm, 3, TOL_MM);
    KG_ASSERT_NEAR(c.rep.float_max_mm, 0, TOL_MM);
    KG_ASSERT_NEAR(c.rep.hover_percent, 0, 0);
    clip_free(&c);
}

/* The robot raised: 30 mm while the source stands (hover), 30 mm while it
 * does not (its feet still down: float, no hover), 15 mm while it stands
 * (within 2 cm: float, no hover), 50 mm with the source's feet up (neither). */
static void test_hover_and_float(void **state) {
    (void)state;
    const int n = 40;
    clip c;
    clip_new(&c, n, DT);
    for (int f = 0; f < n; f++) {
        rt_frame_source *F = &c.s.f[f];
        int part = f / 10;
        set_root(&c, f, 0, 0, (part == 2 ? 15 : part == 3 ? 50 : 30) * MM, NULL);
        F->standing = part == 0 || part == 2;
        F->contact[0] = F->contact[1] = part < 3;
    }
    source_from_output(&c);
    run_report(&c);
    KG_ASSERT_NEAR(c.rep.hover_percent, 100.0 * 10 / n, 1e-12);
    KG_ASSERT_NEAR(c.rep.float_max_mm, 30, TOL_MM);
    KG_ASSERT_NEAR(c.rep.penetration_max_mm, 0, TOL_MM);
    assert_int_equal(c.rep.contact_frames, 30);
    clip_free(&c);
}

/* The root jumps 100 mm in one frame (5 m/s) and later 78 mm (3.9 m/s, not
 * fast); the source's pelvis moves 90 mm a frame on two frames (4.5 m/s). */
static void test_root_speed(void **state) {
    (void)state;
    const int n = 10;
    clip c;
    clip_new(&c, n, DT);
    for (int f = 0; f < n; f++) set_root(&c, f, (f >= 5) * 0.06 + (f >= 8) * 0.078, (f >= 5) * 0.08, 0, NULL);
    source_from_output(&c);
    for (int f = 0; f < n; f++) {
        double *p = c.s.f[f].kp[KG_PART_PELVIS];
        p[0] = 0.09 * (f < 2 ? 0 : f > 4 ? 2 : f - 2), p[1] = 0;
    }
    run_report(&c);
    KG_ASSERT_NEAR(c.rep.root_speed_max, 5, 1e-9);
    assert_int_equal(c.rep.root_fast_frames, 1);
    KG_ASSERT_NEAR(c.rep.source_root_speed_max, 4.5, 1e-9);
    assert_int_equal(c.rep.source_root_fast_frames, 2);
    clip_free(&c);
}

/* The robot's root, and so its hips, 0.35 leg lengths lower than the
 * source's on frames 3-5 (low), 0.25 on frame 7 (not), 0.1 higher on frame
 * 8 (a robot above the source is not low); the figure is the largest drop. */
static void test_low_hips(void **state) {
    (void)state;
    const int n = 10;
    const double leg = robot->leg;
    unsigned flags[10];
    clip c;
    clip_new(&c, n, DT);
    source_from_output(&c);
    for (int f = 0; f < n; f++)
        set_root(&c, f, 0, 0, f >= 3 && f <= 5 ? -0.35 * leg : f == 7 ? -0.25 * leg : f == 8 ? 0.1 * leg : 0, NULL);
    run_report_flags(&c, flags);
    KG_ASSERT_NEAR(c.rep.hips_drop_max_mm, 0.35 * leg / MM, TOL_MM);
    assert_int_equal(c.rep.hips_low_frames, 3);
    for (int f = 0; f < n; f++) assert_int_equal(!!(flags[f] & KG_FRAME_HIPS_LOW), f >= 3 && f <= 5);
    assert_string_equal(kg_retarget_frame_flag_name(13), "hips_low");
    clip_free(&c);
}

/* The left knee 1e-3 rad past its lower limit (0) on 3 frames, and 1e-12 past
 * it on one (rounding: not counted); the left hip pitch moved 0.13 rad in a
 * frame (6.5 rad/s, its limit 6) and then 0.11 (5.5 rad/s). */
static void test_limits(void **state) {
    (void)state;
    const int n = 10, knee = coord("l_knee"), hip = coord("l_hip_pitch");
    clip c;
    clip_new(&c, n, DT);
    assert_true(model->joint[kg_model_joint(model, "l_knee")].lower == 0);
    assert_true(model->joint[kg_model_joint(model, "l_hip_pitch")].velocity == 6);
    for (int f = 2; f <= 4; f++) c.out->q[f * model->nq + knee] = -1e-3;
    c.out->q[6 * model->nq + knee] = -1e-12;
    c.out->q[7 * model->nq + hip] = -0.13;
    for (int f = 8; f < n; f++) c.out->q[f * model->nq + hip] = -0.02;
    source_from_output(&c);
    run_report(&c);
    assert_int_equal(c.rep.limit_violations, 3);
    assert_int_equal(c.rep.velocity_violations, 1);
    clip_free(&c);
}

/* Turns the source's segment a -> b by angle about its start (b moves);
 * returns the segment's length. */
static double turn_segment(rt_frame_source *F, int a, int b, double angle) {
    double u[3];
    for (int i = 0; i < 3; i++) u[i] = F->kp[b][i] - F->kp[a][i];
    turn_across(u, angle);
    for (int i = 0; i < 3; i++) F->kp[b][i] = F->kp[a][i] + u[i];
    return kg_vec3_norm(u);
}

/* The source's left forearm turned 20 degrees on every frame, its right one 40
 * on the first half, its head's up direction 30: of the 100 angles (10
 * segments, 10 frames), 75 are 0, 10 are 20, 10 are 30 and 5 are 40. The
 * wrists are off by the chords. */
static void test_pose_error(void **state) {
    (void)state;
    const int n = 10;
    clip c;
    clip_new(&c, n, DT);
    source_from_output(&c);
    double chord_sum = 0, chord_max = 0;
    for (int f = 0; f < n; f++) {
        rt_frame_source *F = &c.s.f[f];
        double len = turn_segment(F, KG_PART_ELBOW_L, KG_PART_WRIST_L, 20 * DEG);
        chord_sum += 2 * len * sin(10 * DEG);
        if (f < n / 2) {
            len = turn_segment(F, KG_PART_ELBOW_R, KG_PART_WRIST_R, 40 * DEG);
            chord_sum += 2 * len * sin(20 * DEG), chord_max = 2 * len * sin(20 * DEG);
        }
        turn_across(F->head_up, 30 * DEG);
    }
    run_report(&c);
    const kg_retarget_report *r = &c.rep;
    for (int k = 0; k < KG_NSEGMENT; k++) {
        const char *name = kg_retarget_segment_name(k);
        int forearm = !strcmp(name, "left_forearm") || !strcmp(name, "right_forearm");
        double want = forearm ? 20 : !strcmp(name, "head") ? 30 : 0;
        KG_ASSERT_NEAR(r->pose_segment_mean_deg[k], want, TOL_DEG);
    }
    KG_ASSERT_NEAR(r->pose_mean_deg, (10 * 20 + 10 * 30 + 5 * 40) / 100.0, TOL_DEG);
    KG_ASSERT_NEAR(r->pose_p95_deg, 30, TOL_DEG);
    KG_ASSERT_NEAR(r->keypoint_max_mm, chord_max / MM, TOL_MM);
    KG_ASSERT_NEAR(r->keypoint_mean_mm, chord_sum / MM / (8 * n), TOL_MM);
    clip_free(&c);
}

/* Is a joint between the root and part k's link at q within 1e-3 of a
 * position limit? From the model's joints up the tree (not the report's
 * columns). */
static int held_at(const double *q, int k) {
    for (int l = robot->map.link[k]; l > 0; l = model->link[l].parent) {
        const kg_joint *J = &model->joint[model->link[l].joint];
        if (J->qadr < 0 || J->mimic >= 0 || J->type == KG_JOINT_FIXED) continue;
        if (q[J->qadr] <= J->lower + 1e-3 || q[J->qadr] >= J->upper - 1e-3) return 1;
    }
    return 0;
}

/* Both forearms of the source turned by `by` on each of its n frames. */
static void turn_forearms(clip *c, int n, double by) {
    for (int f = 0; f < n; f++) {
        turn_segment(&c->s.f[f], KG_PART_ELBOW_L, KG_PART_WRIST_L, by);
        turn_segment(&c->s.f[f], KG_PART_ELBOW_R, KG_PART_WRIST_R, by);
    }
}

/* The robot's left elbow bent to -1 rad, its right one at rest (0: its upper
 * limit), both forearms of the source turned 40 degrees from the robot's:
 * the two forearms are off on every frame (20 of the 100 segment-frames), the
 * right one held by a limit, the left one as its path's joints say. */
static void test_pose_at_limit(void **state) {
    (void)state;
    const int n = 10;
    clip c;
    clip_new(&c, n, DT);
    for (int f = 0; f < n; f++) c.out->q[f * model->nq + coord("l_elbow")] = -1.0;
    source_from_output(&c);
    turn_forearms(&c, n, 40 * DEG);
    run_report(&c);
    const kg_retarget_report *r = &c.rep;
    int held_l = held_at(c.out->q, KG_PART_WRIST_L), held_r = held_at(c.out->q, KG_PART_WRIST_R);
    assert_true(held_r); /* the elbow at 0, its upper limit */
    KG_ASSERT_NEAR(r->pose_off_percent, 20, 1e-9);
    KG_ASSERT_NEAR(r->pose_held_percent, 50.0 * (held_l + held_r), 1e-9);
    for (int k = 0; k < KG_NSEGMENT; k++) {
        const char *name = kg_retarget_segment_name(k);
        if (!strcmp(name, "left_forearm")) KG_ASSERT_NEAR(r->pose_segment_held_percent[k], 100.0 * held_l, 1e-9);
        else if (!strcmp(name, "right_forearm")) KG_ASSERT_NEAR(r->pose_segment_held_percent[k], 100, 1e-9);
        else assert_true(isnan(r->pose_segment_held_percent[k]));
    }
    clip_free(&c);
}

/* As test_pose_at_limit, the left elbow now moving between -1 and -1 + v dt
 * at its velocity limit v on every frame after the first: of the 20 forearm
 * segment-frames off, the left one's last 9 are held by its speed (the first
 * has no frame before), the right one's 10 by its position limit. */
static void test_pose_at_speed_limit(void **state) {
    (void)state;
    const int n = 10, qi = coord("l_elbow");
    int col = -1;
    for (int c = 0; c < model->dof; c++)
        if (robot->qidx[c] == qi) col = c;
    assert_true(col >= 0);
    double step = robot->vmax[col] * DT;
    assert_true(step > 0 && -1 + step < robot->upper[col] - 1e-2 && -1 > robot->lower[col] + 1e-2);
    clip c;
    clip_new(&c, n, DT);
    for (int f = 0; f < n; f++) c.out->q[f * model->nq + qi] = f % 2 ? -1 + step : -1;
    source_from_output(&c);
    turn_forearms(&c, n, 40 * DEG);
    run_report(&c);
    const kg_retarget_report *r = &c.rep;
    assert_false(held_at(c.out->q, KG_PART_WRIST_L));
    KG_ASSERT_NEAR(r->pose_off_percent, 20, 1e-9);
    KG_ASSERT_NEAR(r->pose_held_percent, 50, 1e-9);
    KG_ASSERT_NEAR(r->pose_slow_percent, 100.0 * 9 / 20, 1e-9);
    for (int k = 0; k < KG_NSEGMENT; k++) {
        const char *name = kg_retarget_segment_name(k);
        if (!strcmp(name, "left_forearm")) KG_ASSERT_NEAR(r->pose_segment_slow_percent[k], 90, 1e-9);
        else if (!strcmp(name, "right_forearm")) KG_ASSERT_NEAR(r->pose_segment_slow_percent[k], 0, 1e-9);
        else assert_true(isnan(r->pose_segment_slow_percent[k]));
    }
    clip_free(&c);
}

/* The robot's limbs bent (hanging straight, they would not turn) and the
 * whole source turned a quarter turn about the vertical: each pose angle is
 * measured in its own heading frame, so none changes; the keypoints, in the
 * world, move by their chords (radius times sqrt 2). Without a head direction
 * the head is not measured (NAN). */
static void test_pose_in_heading_frame(void **state) {
    (void)state;
    const int n = 5, kps[8] = {KG_PART_HIP_L,   KG_PART_HIP_R,   KG_PART_KNEE_L,  KG_PART_KNEE_R,
                               KG_PART_ELBOW_L, KG_PART_ELBOW_R, KG_PART_WRIST_L, KG_PART_WRIST_R};
    static const struct {
        const char *joint;
        double q;
    } bent[] = {{"l_hip_pitch", -0.6},      {"r_hip_pitch", -0.3},      {"l_knee", 0.9},    {"r_knee", 0.4},
                {"l_shoulder_pitch", -0.7}, {"r_shoulder_pitch", -0.3}, {"l_elbow", -1.0}, {"r_elbow", -0.5}};
    clip c;
    clip_new(&c, n, DT);
    for (int f = 0; f < n; f++)
        for (size_t k = 0; k < sizeof bent / sizeof *bent; k++)
            c.out->q[f * model->nq + coord(bent[k].joint)] = bent[k].q;
    source_from_output(&c);
    double R[9], z[3] = {0, 0, 1}, chord_sum = 0;
    kg_rot_axis_angle(R, z, PI / 2);
    for (int f = 0; f < n; f++) {
        rt_frame_source *F = &c.s.f[f];
        for (int k = 0; k < 8; k++) chord_sum += sqrt(2) * hypot(F->kp[kps[k]][0], F->kp[kps[k]][1]);
        for (int k = 0; k < KG_NPART; k++) {
            double p[3];
            kg_mat3_vec(p, R, F->kp[k]);
            kg_vec3_copy(F->kp[k], p);
        }
        memset(F->head_up, 0, sizeof F->head_up);
    }
    run_report(&c);
    KG_ASSERT_NEAR(c.rep.pose_mean_deg, 0, TOL_ACOS_DEG);
    KG_ASSERT_NEAR(c.rep.pose_p95_deg, 0, TOL_ACOS_DEG);
    for (int k = 0; k < KG_NSEGMENT - 1; k++) KG_ASSERT_NEAR(c.rep.pose_segment_mean_deg[k], 0, TOL_ACOS_DEG);
    assert_true(isnan(c.rep.pose_segment_mean_deg[KG_NSEGMENT - 1]));
    KG_ASSERT_NEAR(c.rep.keypoint_mean_mm, chord_sum / MM / (8 * n), TOL_MM);
    clip_free(&c);
}

/* SWAY_FRAMES frames at 25 frames/s, the root accelerated sideways on 6 so
 * that the cart-table ZMP, c - (com_h / g) c'', is 20 mm outside the feet's
 * polygon on its left edge (3 frames) and as far on the other side of the COM
 * (3 frames): the ZMP's 40 ms step is one frame, so a frame's second
 * difference is its own acceleration. 23 frames have both neighbours. The
 * root's sideways path into y; returns the ZMP's shift. */
#define SWAY_FRAMES 25
static double sway_clip(clip *c, double y[SWAY_FRAMES]) {
    const double h = DT_ONE_STEP;
    clip_new(c, SWAY_FRAMES, h);
    double com[3], lo[2], hi[2];
    rest_com(com);
    rest_support_box(1, 1, lo, hi);
    double D = hi[1] - com[1] + 20 * MM, A = RT_G * D / robot->com_h; /* the ZMP's shift, the acceleration */
    y[0] = y[1] = 0;
    for (int f = 1; f + 1 < SWAY_FRAMES; f++) {
        double a = f >= 5 && f <= 7 ? -A : f >= 12 && f <= 14 ? A : 0;
        y[f + 1] = 2 * y[f] - y[f - 1] + a * h * h;
    }
    for (int f = 0; f < SWAY_FRAMES; f++) set_root(c, f, 0, y[f], 0, NULL);
    source_from_output(c);
    return D;
}

/* The ZMP out on sway_clip()'s 6 frames of 23. */
static void test_zmp(void **state) {
    (void)state;
    clip c;
    double y[SWAY_FRAMES], com[3], lo[2], hi[2], D = sway_clip(&c, y);
    rest_com(com);
    rest_support_box(1, 1, lo, hi);
    run_report(&c);
    double left[2] = {com[0], com[1] + D}, right[2] = {com[0], com[1] - D};
    double want = fmin(box_margin(lo, hi, com), fmin(box_margin(lo, hi, left), box_margin(lo, hi, right)));
    KG_ASSERT_NEAR(box_margin(lo, hi, left), -20 * MM, 1e-12);
    KG_ASSERT_NEAR(c.rep.zmp_outside_percent, 100.0 * 6 / 23, 1e-9);
    KG_ASSERT_NEAR(c.rep.zmp_margin_min_mm, want / MM, TOL_MM);
    KG_ASSERT_NEAR(c.rep.com_outside_percent, 0, 0); /* the COM moves with the feet */
    clip_free(&c);
}

/* Seated frames (the source on its floor) are not the balance's: sway_clip()
 * with the source seated on the second sway's 3 frames leaves 3 out of 20. */
static void test_zmp_seated(void **state) {
    (void)state;
    clip c;
    double y[SWAY_FRAMES];
    sway_clip(&c, y);
    for (int f = 12; f <= 14; f++) c.s.f[f].seated = 1, c.s.f[f].standing = 0;
    run_report(&c);
    KG_ASSERT_NEAR(c.rep.zmp_outside_percent, 100.0 * 3 / 20, 1e-9);
    assert_int_equal(c.rep.seated_frames, 3);
    clip_free(&c);
}

/* A state's runs shorter than L frames are dropped whole, longer ones kept
 * (the seated state's filter); a run's first entry cleared must not stop
 * the rest of it. */
static void test_drop_short_runs(void **state) {
    (void)state;
    unsigned char v[] = {0, 1, 1, 1, 0, 0, 0, 1, 1, 1, 1, 1, 0, 1}, want[] = {0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 0, 0};
    rt_drop_short_runs(v, (int)sizeof v, 5);
    assert_memory_equal(v, want, sizeof v);
}

/* Why the ZMP was out, on sway_clip() (6 of 23 frames out): with the
 * balance's COM reference the robot's COM itself, every frame out was out on
 * the reference too (100 %), and the foreseen COM standing still is never out;
 * then the other way round (0 %, and 6 of 23); -1 for both without balance;
 * standing still, none out: the first undefined (NAN). */
static void test_zmp_why(void **state) {
    (void)state;
    const int n = SWAY_FRAMES;
    clip c;
    double y[SWAY_FRAMES], com[3];
    sway_clip(&c, y);
    rest_com(com);
    for (int pass = 0; pass < 2; pass++) {
        for (int f = 0; f < n; f++) {
            double *moving = pass ? c.s.f[f].com_foreseen : c.s.f[f].com_ref;
            double *still = pass ? c.s.f[f].com_ref : c.s.f[f].com_foreseen;
            moving[0] = com[0], moving[1] = com[1] + y[f];
            still[0] = com[0], still[1] = com[1];
        }
        run_report(&c);
        KG_ASSERT_NEAR(c.rep.zmp_outside_percent, 100.0 * 6 / 23, 1e-9);
        KG_ASSERT_NEAR(c.rep.zmp_outside_reference_outside_percent, pass ? 0 : 100, 0);
        KG_ASSERT_NEAR(c.rep.zmp_outside_foreseen_percent, pass ? 100.0 * 6 / 23 : 0, 1e-9);
    }
    kg_retarget_options o;
    kg_retarget_defaults(&o);
    o.balance = 0;
    memset(&c.rep, 0, sizeof c.rep);
    rt_report(robot, &c.s, c.out, c.log, &o, &c.rep);
    KG_ASSERT_NEAR(c.rep.zmp_outside_percent, 100.0 * 6 / 23, 1e-9);
    KG_ASSERT_NEAR(c.rep.zmp_outside_reference_outside_percent, -1, 0);
    KG_ASSERT_NEAR(c.rep.zmp_outside_foreseen_percent, -1, 0);
    for (int f = 0; f < n; f++) set_root(&c, f, 0, 0, 0, NULL);
    run_report(&c);
    KG_ASSERT_NEAR(c.rep.zmp_outside_percent, 0, 0);
    assert_true(isnan(c.rep.zmp_outside_reference_outside_percent));
    clip_free(&c);
}

/* rt_balance_replay on a clip whose references never move late (both feet
 * down where they were planned, the COM estimate swaying 3 cm sideways at
 * 0.5 Hz): the replay is the controller's own run, to rounding. */
static void test_balance_replay(void **state) {
    (void)state;
    const int n = 120;
    rt_source s;
    memset(&s, 0, sizeof s);
    s.nframes = n, s.dt = DT, s.map = robot->map, s.s_leg = s.s_arm = 1;
    s.f = calloc((size_t)n, sizeof *s.f);
    assert_non_null(s.f);
    rt_pin pin[2];
    memset(pin, 0, sizeof pin);
    for (int side = 0; side < 2; side++) {
        double pose[4] = {0, side ? -0.1 : 0.1, robot->foot_h[side], 0};
        for (int f = 0; f < n; f++) memcpy(s.f[f].pin[side], pose, sizeof pose), s.f[f].contact[side] = 1;
        pin[side].down = 1;
        kg_vec3_copy(pin[side].pos, pose);
        rt_yaw_rot(pin[side].R, 0, robot->rest_rot[side ? KG_PART_FOOT_R : KG_PART_FOOT_L]);
    }
    for (int f = 0; f < n; f++) s.f[f].com_est[1] = 0.03 * sin(3.141592653589793 * f * DT);
    kg_retarget_options o;
    kg_retarget_defaults(&o);
    kg_diags dg;
    kg_diags_init(&dg);
    rt_balancer b;
    assert_int_equal(rt_balance(&s, robot, &o, &b, &dg), 0);
    const double none[2][2] = {{0, 0}, {0, 0}}, shift[2] = {0, 0};
    for (int f = 0; f < n; f++) rt_balance_frame(&b, &s, robot, &o.tune, f, pin, f == 0, none, none, shift);
    rt_balance_replay(&b, &s);
    double most = 0, moved = 0;
    for (int f = 0; f < n; f++)
        for (int a = 0; a < 2; a++) {
            most = fmax(most, fabs(s.f[f].com_foreseen[a] - s.f[f].com_ref[a]));
            moved = fmax(moved, fabs(s.f[f].com_ref[a]));
        }
    assert_true(moved > 1e-3); /* the controller did move the COM */
    KG_ASSERT_NEAR(most, 0, 1e-12);
    rt_balance_free(&b);
    kg_diags_clear(&dg);
    free(s.f);
}

/* The ZMP's second differences span zmp_step (40 ms, two frames at 50
 * frames/s), not a frame: the root zig-zagging 1 mm at the frame rate has no
 * acceleration over 40 ms (over one frame, its ZMP would swing by 0.6 m). */
static void test_zmp_step(void **state) {
    (void)state;
    const int n = 20;
    clip c;
    clip_new(&c, n, DT);
    for (int f = 0; f < n; f++) set_root(&c, f, 0, (f % 2) * MM, 0, NULL);
    source_from_output(&c);
    run_report(&c);
    double com[3], lo[2], hi[2];
    rest_com(com);
    rest_support_box(1, 1, lo, hi);
    KG_ASSERT_NEAR(c.rep.zmp_outside_percent, 0, 0);
    KG_ASSERT_NEAR(c.rep.zmp_margin_min_mm, box_margin(lo, hi, com) / MM, TOL_MM);
    clip_free(&c);
}

/* The COM out of the polygon: the robot rolled 0.4 rad about its root on 5
 * double-support frames (the feet swing out from under it; the polygon is
 * the flat soles' at the feet's places), and upright on the left foot alone
 * on 5 (the COM between the feet, off the left sole). */
static void test_com_outside(void **state) {
    (void)state;
    const int n = 20;
    const double roll = 0.4, x[3] = {1, 0, 0};
    clip c;
    clip_new(&c, n, DT);
    double R[9], com[3], rolled[3], feet[2][3], lo[2], hi[2];
    kg_rot_axis_angle(R, x, roll);
    for (int f = 10; f < 15; f++) set_root(&c, f, 0, 0, 0, R);
    for (int f = 15; f < n; f++) c.s.f[f].contact[1] = 0;
    source_from_output(&c);
    run_report(&c);
    rest_com(com);
    rest_support_box(1, 1, lo, hi);
    double upright = box_margin(lo, hi, com);
    rest_support_box(1, 0, lo, hi);
    double single = box_margin(lo, hi, com);
    kg_mat3_vec(rolled, R, com); /* the rest points turned about the root, at the origin at rest */
    kg_mat3_vec(feet[0], R, robot->rest_pos[KG_PART_FOOT_L]);
    kg_mat3_vec(feet[1], R, robot->rest_pos[KG_PART_FOOT_R]);
    support_box((const double(*)[3])feet, (const int[2]){1, 1}, lo, hi);
    double tilted = box_margin(lo, hi, rolled);
    assert_true(upright > 0 && single < 0 && tilted < 0);
    KG_ASSERT_NEAR(c.rep.com_outside_double_percent, 100.0 * 5 / 15, 1e-9);
    KG_ASSERT_NEAR(c.rep.com_outside_percent, 100.0 * 10 / 20, 1e-9);
    KG_ASSERT_NEAR(c.rep.com_margin_min_mm, fmin(upright, fmin(single, tilted)) / MM, TOL_MM);
    clip_free(&c);
}

/* The source's contacts: left down on frames 0-3 and 6-9, right on 0-1, 5 and
 * 8-9: 5 phases, 9 frames with a foot down, 4 on both; 4 stance runs (a
 * one-frame contact has no travel to measure). The COM (between the feet) is
 * off the one sole on the 5 single-support frames, and so is the ZMP (the
 * robot stands still) on the 5 of them with both 40 ms neighbours. */
static void test_contacts(void **state) {
    (void)state;
    const int n = 10;
    static const unsigned char left[10] = {1, 1, 1, 1, 0, 0, 1, 1, 1, 1}, right[10] = {1, 1, 0, 0, 0, 1, 0, 0, 1, 1};
    clip c;
    clip_new(&c, n, DT);
    for (int f = 0; f < n; f++) c.s.f[f].contact[0] = left[f], c.s.f[f].contact[1] = right[f];
    source_from_output(&c);
    run_report(&c);
    assert_int_equal(c.rep.contact_phases, 5);
    assert_int_equal(c.rep.contact_frames, 9);
    assert_int_equal(c.rep.double_support_frames, 4);
    assert_int_equal(c.rep.stance_runs, 4);
    KG_ASSERT_NEAR(c.rep.slip_max_mm, 0, TOL_MM);
    KG_ASSERT_NEAR(c.rep.com_outside_percent, 100.0 * 5 / 9, 1e-9);
    KG_ASSERT_NEAR(c.rep.com_outside_double_percent, 0, 0);
    KG_ASSERT_NEAR(c.rep.zmp_outside_percent, 100, 0);
    clip_free(&c);
}

/* What only the solve knows, from its log: overlaps of 2 mm on 3 frames, 7 mm
 * on one and exactly 5 mm on one (not deeper than 5 mm); slack per kind (a
 * frame counts when it is larger than slack_least, 1e-4: exactly that does
 * not); steps the QP could not solve. */
static void test_log(void **state) {
    (void)state;
    const int n = 10;
    clip c;
    clip_new(&c, n, DT);
    source_from_output(&c);
    for (int f = 1; f <= 3; f++) c.log[f].collision_depth = 2 * MM;
    c.log[6].collision_depth = 7 * MM, c.log[8].collision_depth = 5 * MM;
    c.log[2].slack[KG_SLACK_STANCE] = 1e-4, c.log[3].slack[KG_SLACK_STANCE] = 2e-4;
    c.log[5].slack[KG_SLACK_GROUND] = 3e-3;
    c.log[7].slack[KG_SLACK_BALANCE] = 0.02, c.log[8].slack[KG_SLACK_BALANCE] = 0.01;
    c.log[4].failed = 2, c.log[9].failed = 1;
    run_report(&c);
    const kg_retarget_report *r = &c.rep;
    assert_int_equal(r->self_collision_frames, 5);
    assert_int_equal(r->self_collision_deep_frames, 1);
    KG_ASSERT_NEAR(r->self_collision_depth_max_mm, 7, TOL_MM);
    static const int frames[KG_NSLACK] = {[KG_SLACK_STANCE] = 1, [KG_SLACK_GROUND] = 1, [KG_SLACK_BALANCE] = 2};
    static const double most[KG_NSLACK] = {[KG_SLACK_STANCE] = 2e-4, [KG_SLACK_GROUND] = 3e-3,
                                           [KG_SLACK_BALANCE] = 0.02};
    for (int k = 0; k < KG_NSLACK; k++) {
        assert_int_equal(r->slack_frames[k], frames[k]);
        KG_ASSERT_NEAR(r->slack_max[k], most[k], 0);
    }
    assert_int_equal(r->qp_failures, 3);
    clip_free(&c);
}

/* Every link's capsule holds its shapes: each shape's farthest point along
 * 500 directions (kg_convex_support, margins included) lies within the
 * capsule's radius of its segment. */
static void test_capsules(void **state) {
    (void)state;
    const kg_collision_model *cm = &robot->coarse;
    int checked = 0;
    srand(7);
    for (int l = 0; l < model->nlink; l++) {
        const double *cap = robot->capsule + 7 * l;
        if (cap[6] < 0) continue;
        for (int k = cm->link_first[l]; k < cm->link_first[l] + cm->link_count[l]; k++)
            for (int t = 0; t < 500; t++, checked++) {
                double u[3], ul[3], p[3], pl[3];
                for (int a = 0; a < 3; a++) u[a] = rand() / (double)RAND_MAX - 0.5;
                kg_mat3_tvec(ul, cm->shape[k].rot, u);
                int hint = -1;
                kg_convex_support(&cm->shape[k], ul, &hint, p);
                kg_mat3_vec(pl, cm->shape[k].rot, p);
                for (int a = 0; a < 3; a++) pl[a] += cm->shape[k].pos[a];
                assert_true(rt_segment_distance(pl, pl, cap, cap + 3) <= cap[6] + 1e-12);
            }
    }
    assert_true(checked > 0);
}

/* rt_segment_distance against the least distance of 200 x 200 points along
 * the two segments (which it may undercut by the sampling's step only). */
static void test_segment_distance(void **state) {
    (void)state;
    srand(11);
    for (int t = 0; t < 200; t++) {
        double s[4][3];
        for (int i = 0; i < 4; i++)
            for (int a = 0; a < 3; a++) s[i][a] = rand() / (double)RAND_MAX;
        if (t % 4 == 1) memcpy(s[3], s[2], sizeof s[2]); /* a point */
        if (t % 8 == 3) memcpy(s[1], s[0], sizeof s[0]); /* the first a point */
        if (t % 8 == 7) memcpy(s[1], s[0], sizeof s[0]), memcpy(s[3], s[2], sizeof s[2]); /* both */
        if (t % 4 == 2) /* parallel */
            for (int a = 0; a < 3; a++) s[3][a] = s[2][a] + s[1][a] - s[0][a];
        double d = rt_segment_distance(s[0], s[1], s[2], s[3]), best = INFINITY, step = 0;
        for (int i = 0; i <= 200; i++)
            for (int j = 0; j <= 200; j++) {
                double e = 0;
                for (int a = 0; a < 3; a++) {
                    double x = s[0][a] + i / 200.0 * (s[1][a] - s[0][a]) - s[2][a] - j / 200.0 * (s[3][a] - s[2][a]);
                    e += x * x;
                }
                best = fmin(best, sqrt(e));
            }
        for (int i = 0; i < 2; i++) {
            double l = 0;
            for (int a = 0; a < 3; a++) l += (s[2 * i + 1][a] - s[2 * i][a]) * (s[2 * i + 1][a] - s[2 * i][a]);
            step += sqrt(l) / 200;
        }
        assert_true(d <= best + 1e-12);
        assert_true(d >= best - step);
    }
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_standing),        cmocka_unit_test(test_slip),
        cmocka_unit_test(test_slip_on_ground),  cmocka_unit_test(test_pivot_is_not_slip),
        cmocka_unit_test(test_penetration),     cmocka_unit_test(test_hover_and_float),
        cmocka_unit_test(test_root_speed),      cmocka_unit_test(test_low_hips), cmocka_unit_test(test_limits),
        cmocka_unit_test(test_pose_error), cmocka_unit_test(test_pose_at_limit), cmocka_unit_test(test_pose_at_speed_limit),      cmocka_unit_test(test_pose_in_heading_frame),
        cmocka_unit_test(test_zmp),
        cmocka_unit_test(test_zmp_seated), cmocka_unit_test(test_drop_short_runs), cmocka_unit_test(test_zmp_why), cmocka_unit_test(test_balance_replay), cmocka_unit_test(test_zmp_step),
        cmocka_unit_test(test_com_outside),
        cmocka_unit_test(test_contacts),        cmocka_unit_test(test_log),
        cmocka_unit_test(test_capsules),        cmocka_unit_test(test_segment_distance),
    };
    return cmocka_run_group_tests(tests, load_robot, free_robot);
}
