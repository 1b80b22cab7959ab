/* Retargeting: the preview controller; the whole pipeline's report on the
 * sample walk and on corpus clips. (Body parts: test_bodymap.c.) */
#define _XOPEN_SOURCE 700
#include "testutil.h"

#include <glob.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "kinegraph/bodymap.h"
#include "analysis/collision.h"
#include "analysis/preview.h"
#include "analysis/retarget/internal.h"
#include "kinegraph/retarget.h"
#include "core/fk.h"
#include "core/spatial.h"
#include "io/load.h"
#include "formats/mesh.h"

#define SAMPLE KG_SOURCE_DIR "/samples/humanoid.urdf"
#define WALK KG_SOURCE_DIR "/samples/walk.bvh"
#define NO_HANDS KG_SOURCE_DIR "/tests/data/humanoid_no_hands.urdf"

static kg_motion *run(const char *clip_path, const char *robot_path, const kg_retarget_options *o,
                      kg_retarget_report *rep) {
    kg_diags d;
    kg_diags_init(&d);
    kg_motion *clip = NULL, *out = NULL;
    kg_model *src = kg_load_clip(clip_path, NULL, &clip, &d), *robot = kg_load(robot_path, NULL, &d);
    if (!src || !robot || !clip) fail_msg("%s or %s does not load", clip_path, robot_path);
    if (kg_retarget(src, clip, robot, o, &out, rep, &d) != 0) fail_msg("%s onto %s failed", clip_path, robot_path);
    kg_motion_free(clip);
    kg_model_free(src);
    kg_model_free(robot);
    kg_diags_clear(&d);
    return out;
}

/* Two motions the same to the byte: frames, joints and root. */
static void assert_same_motion(const kg_motion *a, const kg_motion *b) {
    assert_int_equal(a->nframes, b->nframes);
    assert_memory_equal(a->q, b->q, (size_t)a->nframes * (size_t)a->nq * sizeof(double));
    assert_memory_equal(a->base, b->base, (size_t)a->nframes * 7 * sizeof(double));
}

static void print_report(const char *clip, const char *robot, const kg_retarget_report *r) {
    printf("  %-36s %-8s %5d frames: pose %4.1f/%5.1f deg, slip %5.2f mm, pen %5.2f mm, hover %4.1f %%, "
           "viol %d/%d, root %5.2f m/s (%d fast), ZMP out %4.1f %%, self-coll %d (%d deep, %.1f mm), "
           "slack frames %d/%d/%d/%d, %5.0f frames/s\n",
           clip, robot, r->frames, r->pose_mean_deg, r->pose_p95_deg, r->slip_max_mm, r->penetration_max_mm,
           r->hover_percent, r->limit_violations, r->velocity_violations, r->root_speed_max, r->root_fast_frames,
           r->zmp_outside_percent, r->self_collision_frames, r->self_collision_deep_frames,
           r->self_collision_depth_max_mm, r->slack_frames[KG_SLACK_STANCE], r->slack_frames[KG_SLACK_GROUND],
           r->slack_frames[KG_SLACK_COLLISION], r->slack_frames[KG_SLACK_BALANCE],
           r->frames / (r->seconds - r->setup_seconds));
}

/* The bars every run is held to (the retargeting issue's). */
static void assert_bars(const kg_retarget_report *r) {
    assert_int_equal(r->limit_violations, 0);
    assert_int_equal(r->velocity_violations, 0);
    assert_true(r->root_fast_frames <= r->source_root_fast_frames);
    assert_true(r->penetration_max_mm <= 5.0);
    assert_true(r->slip_max_mm <= 5.0);
    assert_true(r->hover_percent <= 5.0);
    assert_true(r->pose_p95_deg <= 35.0);
    assert_true(r->zmp_outside_percent <= 5.0);
    assert_true(r->self_collision_deep_frames <= 0);
}

/* The sample walk onto the sample humanoid: every figure, the same bytes twice,
 * and the same motion when the clip starts facing another way. */
static void test_retarget_sample(void **state) {
    (void)state;
    kg_retarget_options o;
    kg_retarget_defaults(&o);
    kg_retarget_report r, r2, r3;
    kg_motion *a = run(WALK, SAMPLE, &o, &r);
    print_report("samples/walk.bvh", "humanoid", &r);
    assert_int_equal(r.frames, 120);
    assert_string_equal(r.source_family, "cmu");
    assert_true(r.contact_phases >= 5); /* four steps: both feet start down */
    assert_true(r.double_support_frames > 0);
    assert_bars(&r);
    kg_motion *b = run(WALK, SAMPLE, &o, &r2);
    assert_same_motion(a, b);
    o.source_yaw = 2.0;
    kg_motion *c = run(WALK, SAMPLE, &o, &r3);
    double worst = 0;
    for (size_t k = 0; k < (size_t)a->nframes * (size_t)a->nq; k++) worst = fmax(worst, fabs(a->q[k] - c->q[k]));
    for (size_t k = 0; k < (size_t)a->nframes * 7; k++) worst = fmax(worst, fabs(a->base[k] - c->base[k]));
    printf("  turned clip: largest difference %.2e\n", worst);
    assert_true(worst < 1e-6);
    kg_motion_free(a);
    kg_motion_free(b);
    kg_motion_free(c);
}

/* A robot prepared once serves several clips (and the same clip again): each
 * gives the bytes of a one-shot kg_retarget; the time spent preparing the robot
 * shows in the one-shot report only. */
static void test_retarget_prepared(void **state) {
    (void)state;
    kg_retarget_options o;
    kg_retarget_defaults(&o);
    kg_retarget_report r1, r2;
    kg_motion *one = run(WALK, SAMPLE, &o, &r1);
    assert_true(r1.robot_seconds > 0 && r1.robot_seconds <= r1.setup_seconds && r1.setup_seconds < r1.seconds);
    /* the solve's CPU time: some, and no more than the clock saw pass (one thread; 1 ms for the clocks' steps) */
    assert_true(r1.solve_cpu_seconds > 0 && r1.solve_cpu_seconds <= r1.seconds - r1.setup_seconds + 1e-3);
    kg_diags d;
    kg_diags_init(&d);
    kg_motion *clip = NULL, *turned = NULL;
    kg_model *src = kg_load_clip(WALK, NULL, &clip, &d), *robot = kg_load(SAMPLE, NULL, &d);
    assert_non_null(src);
    assert_non_null(robot);
    kg_retarget_robot *rr = kg_retarget_robot_new(robot, NULL, &d);
    assert_non_null(rr);
    assert_true(kg_retarget_robot_seconds(rr) > 0);
    kg_retarget_options ot = o;
    ot.source_yaw = 1.0;
    for (int k = 0; k < 2; k++) {
        kg_motion *out = NULL;
        assert_int_equal(kg_retarget_prepared(rr, src, clip, &o, &out, &r2, &d), 0);
        assert_float_equal(r2.robot_seconds, 0, 0);
        assert_same_motion(out, one);
        kg_motion_free(out);
        if (k == 0) { /* another clip in between */
            assert_int_equal(kg_retarget_prepared(rr, src, clip, &ot, &turned, &r2, &d), 0);
            assert_int_equal(turned->nframes, one->nframes);
        }
    }
    kg_motion_free(turned);
    kg_retarget_robot_free(rr);
    kg_motion_free(clip);
    kg_model_free(src);
    kg_model_free(robot);
    kg_diags_clear(&d);
    kg_motion_free(one);
}

static int diag_count(const kg_diags *d, const char *code) {
    int n = 0;
    for (size_t i = 0; i < d->count; i++) n += d->items[i].code && !strcmp(d->items[i].code, code);
    return n;
}

/* The tuning takes no value it cannot hold: negative, not finite, or for a
 * count not whole or beyond an int (a double converted to int past INT_MAX
 * is undefined); t is left as it was. Windows of any length are the clip's at
 * most (rt_window: twice its frames and 16 more): floor_window and
 * preview_time of 1e9 s, which asked for 32 GB or overflowed the frame count,
 * give the bytes of 1e4 s (both past the sample walk's 4 s). */
static void test_tuning_values(void **state) {
    (void)state;
    kg_retarget_options o;
    kg_retarget_defaults(&o);
    const kg_retarget_tuning before = o.tune;
    assert_int_equal(kg_retarget_tuning_set(&o.tune, "w_com", -1), -2);
    assert_int_equal(kg_retarget_tuning_set(&o.tune, "w_com", NAN), -2);
    assert_int_equal(kg_retarget_tuning_set(&o.tune, "preview_time", INFINITY), -2);
    assert_int_equal(kg_retarget_tuning_set(&o.tune, "iterations", 2.5), -2);
    assert_int_equal(kg_retarget_tuning_set(&o.tune, "first_iterations", 1e12), -2);
    assert_int_equal(kg_retarget_tuning_set(&o.tune, "no_such_number", 1), -1);
    assert_memory_equal(&o.tune, &before, sizeof before);
    assert_int_equal(kg_retarget_tuning_set(&o.tune, "iterations", 0), 0);
    assert_int_equal(o.tune.iterations, 0);
    static const char *windows[] = {"floor_window", "preview_time"};
    for (int k = 0; k < 2; k++) {
        kg_retarget_report r;
        kg_retarget_defaults(&o);
        assert_int_equal(kg_retarget_tuning_set(&o.tune, windows[k], 1e9), 0);
        kg_motion *huge = run(WALK, SAMPLE, &o, &r);
        assert_int_equal(kg_retarget_tuning_set(&o.tune, windows[k], 1e4), 0);
        kg_motion *long_ = run(WALK, SAMPLE, &o, &r);
        assert_same_motion(huge, long_);
        kg_motion_free(huge), kg_motion_free(long_);
    }
}

/* The README's table of the tuning (| `name` | unit | default | meaning |,
 * a row may name several fields sharing a unit, their defaults in order)
 * lists every field once, in the order --print-tuning prints them, with the
 * unit and the default value the library has. */
static void test_tuning_readme(void **state) {
    (void)state;
    char *text = kg_test_slurp(KG_SOURCE_DIR "/README.md");
    assert_non_null(text);
    const char *table = strstr(text, "| field | unit | default | meaning |");
    assert_non_null(table);
    int n, next = 0;
    const kg_tuning_field *f = kg_retarget_tuning_fields(&n);
    kg_retarget_options o;
    kg_retarget_defaults(&o);
    for (const char *row = strchr(table, '\n') + 1; *row == '|' && strchr(row, '\n'); row = strchr(row, '\n') + 1) {
        if (!strncmp(row, "|---", 4)) continue;
        const char *unit = strstr(row + 1, " | "), *dflt = unit ? strstr(unit + 3, " | ") : NULL;
        assert_non_null(dflt);
        unit += 3, dflt += 3;
        char *num = (char *)dflt;
        const int ulen = (int)(dflt - 3 - unit);
        for (const char *name = strchr(row, '`'); name && name < unit - 3; name = strchr(name + 1, '`')) {
            const char *end = strchr(name + 1, '`');
            const int len = (int)(end - name - 1);
            if (next >= n) fail_msg("README's tuning table lists '%.*s' past the %d fields", len, name + 1, n);
            if ((size_t)len != strlen(f[next].name) || strncmp(name + 1, f[next].name, (size_t)len))
                fail_msg("README's tuning table has '%.*s' where --print-tuning has '%s'", len, name + 1, f[next].name);
            if ((size_t)ulen != strlen(f[next].unit) || strncmp(unit, f[next].unit, (size_t)ulen))
                fail_msg("'%s': README's unit '%.*s', the library's '%s'", f[next].name, ulen, unit, f[next].unit);
            char *after;
            double v = strtod(num, &after), want = kg_retarget_tuning_get(&o.tune, &f[next]);
            if (after == num || fabs(v - want) > 1e-12 * fabs(want))
                fail_msg("'%s': README's default '%.12s', the library's %g", f[next].name, num, want);
            num = after + strspn(after, ", ");
            next++;
            name = end;
        }
        if (num[strspn(num, " ")] != '|') /* every default read, nothing after it */
            fail_msg("README's tuning row '%.40s': the default cell has more than its fields' values", row);
    }
    assert_int_equal(next, n);
    free(text);
}

/* A clip faster than frame_rate_max is refused, said so, with no motion: its
 * windows (counted in frames) would grow with the rate without bound (a BVH
 * with a frame time of 1e-9 s asked for 32 GB). The sample walk is at 30
 * frames/s: refused under a maximum of 20, taken at its own rate. */
static void test_frame_rate_max(void **state) {
    (void)state;
    kg_diags d;
    kg_diags_init(&d);
    kg_motion *clip = NULL, *out = NULL;
    kg_model *src = kg_load_clip(WALK, NULL, &clip, &d), *robot = kg_load(SAMPLE, NULL, &d);
    assert_non_null(src);
    assert_non_null(robot);
    kg_retarget_options o;
    kg_retarget_defaults(&o);
    kg_retarget_report r;
    o.tune.frame_rate_max = 20;
    assert_int_equal(kg_retarget(src, clip, robot, &o, &out, &r, &d), -1);
    assert_null(out);
    assert_int_equal(diag_count(&d, "retarget.frame_rate"), 1);
    o.tune.frame_rate_max = (1 + 1e-12) / clip->frame_time;
    assert_int_equal(kg_retarget(src, clip, robot, &o, &out, &r, &d), 0);
    assert_int_equal(out->nframes, clip->nframes);
    kg_motion_free(out);
    kg_motion_free(clip);
    kg_model_free(src);
    kg_model_free(robot);
    kg_diags_clear(&d);
}

/* Blanks out the first <tag>...</tag> of link `link` in URDF text t. */
static void cut(char *t, const char *link, const char *tag) {
    char name[64], open[32], close[32];
    snprintf(name, sizeof name, "<link name=\"%s\">", link);
    snprintf(open, sizeof open, "<%s>", tag), snprintf(close, sizeof close, "</%s>", tag);
    char *l = strstr(t, name), *end = l ? strstr(l, "</link>") : NULL, *a = l ? strstr(l, open) : NULL;
    char *b = a ? strstr(a, close) : NULL;
    assert_true(l && a && b && b < end);
    memset(a, ' ', (size_t)(b + strlen(close) - a));
}

/* URDF text t with xml added at the end of link `link` (a new string). */
static char *with_in_link(const char *t, const char *link, const char *xml) {
    char name[64];
    snprintf(name, sizeof name, "<link name=\"%s\">", link);
    const char *l = strstr(t, name), *end = l ? strstr(l, "</link>") : NULL;
    assert_non_null(end);
    size_t a = (size_t)(end - t), n = strlen(t) + strlen(xml) + 1;
    char *u = malloc(n);
    assert_non_null(u);
    memcpy(u, t, a), strcpy(u + a, xml), strcat(u, end);
    return u;
}

static kg_retarget_robot *prepare(const char *t, kg_diags *d, kg_model **robot) {
    *robot = kg_load_buffer(SAMPLE, t, strlen(t), NULL, d);
    assert_non_null(*robot);
    return kg_retarget_robot_new(*robot, NULL, d);
}

/* A swinging foot's target beside a planted foot is moved to its own side of
 * it, sole_gap clear (the sample's soles: 0.2 x 0.1 m, their middle 3 cm ahead
 * of the foot link): the left foot's target over the right sole is moved
 * left until its sole's right edge is 1 cm left of the right sole's left
 * edge; ahead of that sole, already clear, or crossing over (its middle past
 * the right sole's), it stays; the right foot's goes right; and so turned a
 * quarter turn with the planted foot. */
static void test_sole_beside(void **state) {
    (void)state;
    char *text = kg_test_slurp(SAMPLE);
    assert_non_null(text);
    kg_diags d;
    kg_diags_init(&d);
    kg_model *m;
    kg_retarget_robot *rr = prepare(text, &d, &m);
    assert_non_null(rr);
    double R[2][9], right[3] = {0, -0.1, 0}, left[3] = {0, 0.1, 0}, gap = 0.01;
    for (int s = 0; s < 2; s++) kg_mat3_copy(R[s], rr->rest_rot[s ? KG_PART_FOOT_R : KG_PART_FOOT_L]);
    double p[3] = {0.05, -0.05, 0}; /* its sole y in [-0.1, 0], the right's in [-0.15, -0.05] */
    assert_int_equal(rt_sole_beside(rr, 0, p, R[0], right, R[1], gap), 1);
    KG_ASSERT_NEAR(p[0], 0.05, 1e-12);
    KG_ASSERT_NEAR(p[1], -0.05 + 0.06, 1e-12);
    double ahead[3] = {0.3, -0.1, 0}, clear[3] = {0, 0.02, 0};
    assert_int_equal(rt_sole_beside(rr, 0, ahead, R[0], right, R[1], gap), 0);
    assert_int_equal(rt_sole_beside(rr, 0, clear, R[0], right, R[1], gap), 0);
    KG_ASSERT_NEAR(ahead[1], -0.1, 0);
    KG_ASSERT_NEAR(clear[1], 0.02, 0);
    double cross[3] = {0.05, -0.12, 0}; /* its middle right of the right sole's: a crossing step, left alone */
    assert_int_equal(rt_sole_beside(rr, 0, cross, R[0], right, R[1], gap), 0);
    KG_ASSERT_NEAR(cross[1], -0.12, 0);
    double q[3] = {-0.05, 0.08, 0}; /* the right foot over the left sole, y in [0.03, 0.13] */
    assert_int_equal(rt_sole_beside(rr, 1, q, R[1], left, R[0], gap), 1);
    KG_ASSERT_NEAR(q[1], 0.08 - (0.13 - 0.04), 1e-12);
    /* both turned a quarter turn left: the left foot's side is -x */
    double turn[9] = {0, -1, 0, 1, 0, 0, 0, 0, 1}, T[2][9], right_t[3] = {0.1, 0, 0}, pt[3] = {0.05, -0.05, 0};
    for (int s = 0; s < 2; s++) kg_mat3_mul(T[s], turn, R[s]);
    assert_int_equal(rt_sole_beside(rr, 0, pt, T[0], right_t, T[1], gap), 1);
    KG_ASSERT_NEAR(pt[1], -0.05, 1e-12);
    KG_ASSERT_NEAR(pt[0], 0.05 - 0.06, 1e-12);
    kg_retarget_robot_free(rr), kg_model_free(m), kg_diags_clear(&d), free(text);
}

/* A foot without collision geometry stands on its visual geometry's lowest
 * face (the sample's right foot draws the box it collides with: the same
 * sole); without either, on the tuning's default sole scaled to its legs at
 * the foot link's origin, turning on that origin; each says so. A foot whose
 * body has no collision shape keeps its drawn one above the ground. */
static void test_visual_sole(void **state) {
    (void)state;
    char *text = kg_test_slurp(SAMPLE), *vis_text = strdup(text), *none_text = strdup(text);
    assert_non_null(text);
    cut(vis_text, "r_foot", "collision");
    cut(none_text, "r_foot", "collision"), cut(none_text, "r_foot", "visual"), cut(none_text, "r_ankle_link", "visual");
    kg_retarget_options o;
    kg_retarget_defaults(&o);
    kg_diags d0, d1, d2;
    kg_diags_init(&d0), kg_diags_init(&d1), kg_diags_init(&d2);
    kg_model *m0, *m1, *m2;
    kg_retarget_robot *full = prepare(text, &d0, &m0), *vis = prepare(vis_text, &d1, &m1), *none = prepare(none_text, &d2, &m2);
    assert_non_null(full), assert_non_null(vis), assert_non_null(none);
    assert_int_equal(diag_count(&d0, "retarget.visual_sole") + diag_count(&d0, "retarget.no_sole"), 0);
    assert_int_equal(diag_count(&d1, "retarget.visual_sole"), 1);
    assert_int_equal(diag_count(&d2, "retarget.no_sole"), 1);
    for (int k = 0; k < 4; k++)
        for (int a = 0; a < 3; a++) assert_float_equal(vis->sole[1][k][a], full->sole[1][k][a], 1e-12);
    assert_float_equal(vis->foot_h[1], full->foot_h[1], 1e-12);
    /* a foot whose body has no collision shape keeps its drawn one above the ground: its lowest
     * point at rest is the sole's */
    assert_int_equal(full->nfoot_drawn[0] + full->nfoot_drawn[1], 0);
    assert_int_equal(vis->nfoot_drawn[0], 0);
    assert_int_equal(vis->nfoot_drawn[1], 1);
    {
        kg_data *kd = kg_data_new(m1);
        kg_fk(m1, kd);
        double p[3], c[4][3];
        int l = vis->map.link[KG_PART_FOOT_R];
        rt_sole_at(vis, 1, kd->link_pos + 3 * l, kd->link_rot + 9 * l, c);
        assert_float_equal(rt_convex_lowest(&vis->foot_drawn[1][0], kd, p), c[0][2], 1e-9);
        kg_data_free(kd);
    }
    /* the sample's sole box is 0.2 x 0.1 (corners k: bit 0 front, bit 1 left) */
    assert_float_equal(full->sole[1][3][0] - full->sole[1][0][0], 0.2, 1e-12);
    assert_float_equal(full->sole[1][3][1] - full->sole[1][0][1], 0.1, 1e-12);
    assert_float_equal(none->foot_h[1], 0, 1e-12);
    /* the assumed sole is for a leg_reference-long leg, scaled to the robot's (the sample's 0.59 m) */
    double ks = none->leg / o.tune.leg_reference;
    assert_float_equal(none->sole[1][0][0], -ks * o.tune.default_sole_back, 1e-12);
    assert_float_equal(none->sole[1][3][0], ks * o.tune.default_sole_front, 1e-12);
    o.tune.leg_reference = none->leg / 2; /* twice the leg it is given for: twice the sole */
    kg_model *m3 = kg_load_buffer(SAMPLE, none_text, strlen(none_text), NULL, &d2);
    kg_retarget_robot *half = kg_retarget_robot_new(m3, &o, &d2);
    assert_non_null(half);
    assert_float_equal(half->sole[1][0][0], -2 * o.tune.default_sole_back, 1e-12);
    assert_float_equal(half->sole[1][3][1] - half->sole[1][0][1], 4 * o.tune.default_sole_half_width, 1e-12);
    kg_retarget_robot_free(half), kg_model_free(m3);
    /* a foot whose collision box is pitched 0.3 rad at rest is levelled (its ankle turned: the box's
     * face down, its 0.2 x 0.1 sole found); pitched 0.9 rad (farther than the levelling's cone) it has no
     * face down: the assumed sole, and the warning says why (not "no geometry") */
    for (int k = 0; k < 2; k++) {
        char *tilt_text = kg_test_replace_after(strdup(text), "<link name=\"r_foot\">",
                                                "<collision>\n      <origin xyz=\"0.03 0 -0.04\" rpy=\"0 0 0\"/>",
                                                k ? "<collision>\n      <origin xyz=\"0.03 0 -0.04\" rpy=\"0 0.9 0\"/>"
                                                  : "<collision>\n      <origin xyz=\"0.03 0 -0.04\" rpy=\"0 0.3 0\"/>");
        kg_diags d3;
        kg_diags_init(&d3);
        kg_model *mt;
        kg_retarget_robot *tilted = prepare(tilt_text, &d3, &mt);
        assert_non_null(tilted);
        assert_int_equal(diag_count(&d3, "retarget.foot_levelled"), !k);
        assert_int_equal(diag_count(&d3, "retarget.no_sole"), k);
        for (size_t i = 0; i < d3.count; i++)
            if (!strcmp(d3.items[i].code, "retarget.no_sole")) assert_non_null(strstr(d3.items[i].message, "no face"));
        if (!k) {
            double along[3], across[3]; /* corners k: bit 0 front, bit 1 left (in the foot link's frame) */
            for (int a = 0; a < 3; a++)
                along[a] = tilted->sole[1][1][a] - tilted->sole[1][0][a], across[a] = tilted->sole[1][2][a] - tilted->sole[1][0][a];
            KG_ASSERT_NEAR(kg_vec3_norm(along), 0.2, 1e-6);
            KG_ASSERT_NEAR(kg_vec3_norm(across), 0.1, 1e-6);
        }
        kg_retarget_robot_free(tilted), kg_model_free(mt), kg_diags_clear(&d3), free(tilt_text);
    }
    /* a pivot turns a foot on its sole's inner toe or heel corner; on an assumed sole (corners
     * the file does not give), on its link's origin */
    for (int e = 0; e < 2; e++)
        for (int a = 0; a < 3; a++) assert_float_equal(none->sole_end[1][e][a], 0, 0);
    assert_float_equal(full->sole_end[1][0][0], full->sole[1][3][0], 1e-12);
    assert_float_equal(full->sole_end[1][1][0], full->sole[1][0][0], 1e-12);
    /* the foot's collision shape on the ankle's link instead, its bottom 5 mm above the drawn sole:
     * the foot stands on its drawn sole (which the shape would leave 5 mm into the ground), and the
     * warning says why; the shape 1 cm below the drawn sole: on the shape */
    for (int lower = 0; lower < 2; lower++) {
        const char *box = lower ? "<collision><origin xyz=\"0.03 0 -0.05\" rpy=\"0 0 0\"/><geometry><box size=\"0.16 0.06 0.02\"/></geometry></collision>"
                                : "<collision><origin xyz=\"0.03 0 -0.035\" rpy=\"0 0 0\"/><geometry><box size=\"0.16 0.06 0.02\"/></geometry></collision>";
        char *split_text = with_in_link(vis_text, "r_ankle_link", box);
        kg_diags d4;
        kg_diags_init(&d4);
        kg_model *m4;
        kg_retarget_robot *split = prepare(split_text, &d4, &m4);
        assert_non_null(split);
        assert_int_equal(diag_count(&d4, "retarget.visual_sole"), !lower);
        for (size_t i = 0; i < d4.count; i++)
            if (strcmp(d4.items[i].code, "retarget.visual_sole") == 0)
                assert_non_null(strstr(d4.items[i].message, "drawn lower than the ones under its ankle"));
        if (!lower)
            for (int k = 0; k < 4; k++)
                for (int a = 0; a < 3; a++) assert_float_equal(split->sole[1][k][a], full->sole[1][k][a], 1e-12);
        else { /* the shape's bottom, 0.16 x 0.06, 1 cm under the drawn sole's */
            assert_float_equal(split->sole[1][3][0] - split->sole[1][0][0], 0.16, 1e-9);
            assert_float_equal(split->sole[1][3][1] - split->sole[1][0][1], 0.06, 1e-9);
            assert_float_equal(split->foot_h[1] - full->foot_h[1], 0.01, 1e-9);
        }
        kg_retarget_robot_free(split), kg_model_free(m4), kg_diags_clear(&d4), free(split_text);
    }
    kg_retarget_robot_free(full), kg_retarget_robot_free(vis), kg_retarget_robot_free(none);
    kg_model_free(m0), kg_model_free(m1), kg_model_free(m2);
    kg_diags_clear(&d0), kg_diags_clear(&d1), kg_diags_clear(&d2);
    free(text), free(vis_text), free(none_text);
}

/* Corpus clips onto the corpus humanoids, held to the bars every one of
 * them meets (the others, slip, penetration, pose and ZMP, are measured over
 * the whole corpus by bench/retarget_matrix.sh): no joint limit or velocity
 * violated, the root no faster than 4 m/s unless the source is, no overlap
 * deeper than 5 mm, the robot standing when the source stands. */
static void test_retarget_corpus(void **state) {
    (void)state;
    KG_REQUIRE_DATA(data);
    static const char *clips[] = {
        "animated_drawings/animate/Data/BVH/sst/walk_circle.bvh",
        "animated_drawings/examples/bvh/fair1/zombie.bvh",
        "bandai_namco/dataset-2_walk-turn-left_elderly_001.bvh",
        "bandai_namco/dataset-1_walk_normal_001.bvh",
        "bandai_namco/dataset-1_run_normal_001.bvh",
        "bandai_namco/dataset-1_dance-short_normal_001.bvh",
        "cmu_iclone/005_02.bvh",
    };
    static const char *robots[] = {"urdf/unitree_g1/g1_description/g1_29dof_rev_1_0.urdf",
                                   "urdf/jvrc1/jvrc_description/urdf/jvrc1.urdf",
                                   "urdf/talos/example-robot-data/robots/talos_data/robots/talos_reduced.urdf",
                                   /* feet of two cylinders each, which roll on each other when they meet: a
                                    * first-order distance trusted too far let them overlap 7.9 mm */
                                   "urdf/fourier_gr1t2/GRX/GR1/gr1t2/basic_urdf/gr1t2.urdf"},
                      *names[] = {"g1", "jvrc1", "talos", "gr1t2"};
    kg_retarget_options o;
    kg_retarget_defaults(&o);
    for (size_t ri = 0; ri < sizeof robots / sizeof *robots; ri++)
        for (size_t k = 0; k < sizeof clips / sizeof *clips; k++) {
            char cp[4096], rp[4096];
            snprintf(cp, sizeof cp, "%s/bvh/%s", data, clips[k]);
            snprintf(rp, sizeof rp, "%s/%s", data, robots[ri]);
            kg_retarget_report r;
            kg_motion *m = run(cp, rp, &o, &r);
            print_report(strrchr(clips[k], '/') + 1, names[ri], &r);
            fflush(stdout);
            assert_int_equal(r.limit_violations, 0);
            assert_int_equal(r.velocity_violations, 0);
            assert_true(r.root_fast_frames <= r.source_root_fast_frames);
            assert_int_equal(r.self_collision_deep_frames, 0);
            assert_true(r.hover_percent <= 5.0);
            kg_motion_free(m);
        }
}

/* A robot loaded and prepared for retargeting, with data to pose it in:
 * what the tests that measure an output's soles and shapes need. */
typedef struct posed {
    kg_diags d;
    kg_model *robot;
    kg_retarget_robot *rr;
    kg_data *kd;
} posed;

static void posed_open(posed *p, const char *robot_path) {
    kg_diags_init(&p->d);
    p->robot = kg_load(robot_path, NULL, &p->d);
    assert_non_null(p->robot);
    p->rr = kg_retarget_robot_new(p->robot, NULL, &p->d);
    assert_non_null(p->rr);
    p->kd = kg_data_new(p->robot);
    assert_non_null(p->kd);
}

/* Frame f of out posed, its links placed. */
static void posed_frame(posed *p, const kg_motion *out, int f) {
    kg_motion_pose(out, f, p->kd);
    kg_fk(p->robot, p->kd);
}

static void posed_close(posed *p) {
    kg_data_free(p->kd);
    kg_retarget_robot_free(p->rr);
    kg_model_free(p->robot);
    kg_diags_clear(&p->d);
}

/* The lowest point of the posed robot's collision shapes but its feet's (m). */
static double body_lowest(const posed *p) {
    double low = INFINITY, at[3];
    for (int k = 0; k < p->rr->cm.nshape; k++)
        if (!p->rr->is_foot_shape[k]) low = fmin(low, rt_shape_lowest(&p->rr->cm, p->kd, k, at));
    return low;
}

/* Column k (from 0) of a trace line, parsed as a number. */
static double trace_col(const char *line, int k) {
    const char *col = line;
    for (int i = 0; i < k && col; i++) col = strchr(col, ',') ? strchr(col, ',') + 1 : NULL;
    assert_non_null(col);
    return atof(col);
}

/* run() with the solve's trace written to a temporary file, *trace (its
 * reader rewinds it; the caller closes it). */
static kg_motion *run_traced(const char *clip_path, const char *robot_path, kg_retarget_options *o,
                             kg_retarget_report *rep, FILE **trace) {
    *trace = tmpfile();
    assert_non_null(*trace);
    o->trace = *trace;
    return run(clip_path, robot_path, o, rep);
}

/* A push-off (the source's heel up at a contact's end): the robot's foot
 * keeps its sole's front edge where it is and raises its heel. The G1 on
 * the Bandai walk, its push-off frames read from the trace (push_off_l,
 * push_off_r); the front edge's middle from the output's poses. */
static void test_push_off(void **state) {
    (void)state;
    KG_REQUIRE_DATA(data);
    char cp[4096], rp[4096];
    snprintf(cp, sizeof cp, "%s/bvh/bandai_namco/dataset-1_walk_normal_001.bvh", data);
    snprintf(rp, sizeof rp, "%s/urdf/unitree_g1/g1_description/g1_29dof_rev_1_0.urdf", data);
    kg_retarget_options o;
    kg_retarget_defaults(&o);
    kg_retarget_report rep;
    FILE *trace;
    kg_motion *out = run_traced(cp, rp, &o, &rep, &trace);
    posed P;
    posed_open(&P, rp);
    const kg_retarget_robot *rr = P.rr;
    rewind(trace);
    char line[8192];
    assert_non_null(fgets(line, sizeof line, trace)); /* the header */
    int pushing[2] = {0, 0}, frames = 0, raised = 0;
    double edge[2][3] = {{0}}, travel_max = 0;
    for (int f = 0; fgets(line, sizeof line, trace); f++) {
        int on[2] = {trace_col(line, 44) != 0, trace_col(line, 45) != 0}; /* push_off_l, push_off_r */
        posed_frame(&P, out, f);
        for (int side = 0; side < 2; side++) {
            int foot = side ? KG_PART_FOOT_R : KG_PART_FOOT_L, l = rr->map.link[foot];
            const double *fwd = rr->rest_rot[foot], (*c)[3] = rr->sole[side];
            double along[4], mid[3] = {0, 0, 0}, w[4][3], heel = INFINITY;
            rt_sole_at(rr, side, P.kd->link_pos + 3 * l, P.kd->link_rot + 9 * l, w);
            for (int k = 0; k < 4; k++) along[k] = kg_vec3_dot(c[k], fwd);
            for (int k = 0; k < 4; k++) {
                int ahead = 0;
                for (int j = 0; j < 4; j++) ahead += along[j] > along[k] || (along[j] == along[k] && j < k);
                if (ahead < 2)
                    for (int a = 0; a < 3; a++) mid[a] += w[k][a] / 2;
                else heel = fmin(heel, w[k][2]);
            }
            if (on[side] && pushing[side]) {
                double dm[3] = {mid[0] - edge[side][0], mid[1] - edge[side][1], mid[2] - edge[side][2]};
                travel_max = fmax(travel_max, kg_vec3_norm(dm));
                frames++;
                raised |= heel > 0.01;
            }
            pushing[side] = on[side];
            kg_vec3_copy(edge[side], mid);
        }
    }
    printf("  push-off: %d frames, front edge moved at most %.3f mm a frame, heel raised: %d\n", frames,
           travel_max * 1e3, raised);
    assert_true(frames >= 5);          /* the walk pushes off at most of its steps */
    assert_true(travel_max <= 0.5e-3); /* held, but for the solve's tolerance */
    assert_true(raised);               /* and the heels rise over it */
    fclose(trace);
    posed_close(&P);
    kg_motion_free(out);
}

/* What the scuff rows bound, measured on the output: for each corner of a
 * swinging sole (its foot not pinned at f, per the trace's pin_l, pin_r:
 * columns 19, 20) that was within h of the ground at f - 1, its sideways move
 * along each axis of the foot's heading at f - 1 beyond the source foot's
 * move (src_step_l, src_step_r: columns 46, 47) plus r (z - h), r = dt /
 * scuff_time. Returns the largest excess (m); *n counts the corners. */
static double scuff_excess(const char *rp, const kg_motion *out, FILE *trace, const kg_retarget_tuning *t, int *n) {
    posed P;
    posed_open(&P, rp);
    const kg_retarget_robot *rr = P.rr;
    const double h = t->scuff_height, r = out->frame_time / 0.002; /* the default scuff_time's cone */
    double was[2][4][3], yaw[2] = {0, 0}, most = 0;
    char line[8192];
    *n = 0;
    rewind(trace);
    assert_non_null(fgets(line, sizeof line, trace)); /* the header */
    assert_non_null(strstr(line, ",push_off_l,push_off_r,src_step_l,src_step_r,")); /* columns 44-47 */
    for (int f = 0; f < out->nframes && fgets(line, sizeof line, trace); f++) {
        posed_frame(&P, out, f);
        for (int side = 0; side < 2; side++) {
            int foot = side ? KG_PART_FOOT_R : KG_PART_FOOT_L, l = rr->map.link[foot];
            int pinned = trace_col(line, 19 + side) != 0;
            double src = trace_col(line, 46 + side), c[4][3], Rr[9];
            rt_sole_at(rr, side, P.kd->link_pos + 3 * l, P.kd->link_rot + 9 * l, c);
            for (int k = 0; k < 4 && f > 0 && !pinned; k++) {
                if (was[side][k][2] >= h) continue;
                const double u[2][2] = {{cos(yaw[side]), sin(yaw[side])}, {-sin(yaw[side]), cos(yaw[side])}};
                for (int a = 0; a < 2; a++) {
                    double move = u[a][0] * (c[k][0] - was[side][k][0]) + u[a][1] * (c[k][1] - was[side][k][1]);
                    most = fmax(most, fabs(move) - (src + r * (c[k][2] - h)));
                }
                ++*n;
            }
            memcpy(was[side], c, sizeof c);
            kg_mat3_mul_bt(Rr, P.kd->link_rot + 9 * l, rr->rest_rot[foot]);
            yaw[side] = rt_heading(Rr);
        }
    }
    posed_close(&P);
    return most;
}

/* A swinging sole near the ground slides on it no faster than the source's
 * foot: a foot released twisted far from its target rises before it is
 * carried (the scuff rows). Without them this clip's small humanoid dragged a
 * foot along the floor, toes down, 10-20 mm a frame faster than the source's
 * and with its sole at the ground. Measured against the rows' own bound, with
 * the default scuff_time, on and off (scuff_time 0). */
static void test_no_scuff(void **state) {
    (void)state;
    KG_REQUIRE_DATA(data);
    char cp[4096], rp[4096];
    snprintf(cp, sizeof cp, "%s/bvh/cmu_cgspeed/01_01.bvh", data);
    snprintf(rp, sizeof rp, "%s/urdf/nao/nao_robot/nao_description/urdf/naoV50_generated_urdf/nao.urdf", data);
    double most[2];
    int n[2];
    for (int on = 0; on < 2; on++) {
        kg_retarget_options o;
        kg_retarget_defaults(&o);
        assert_true(fabs(o.tune.scuff_time - 0.002) < 1e-12); /* scuff_excess's cone */
        if (!on) o.tune.scuff_time = 0;
        kg_retarget_report rep;
        FILE *trace;
        kg_motion *out = run_traced(cp, rp, &o, &rep, &trace);
        most[on] = scuff_excess(rp, out, trace, &o.tune, &n[on]);
        fclose(trace);
        kg_motion_free(out);
    }
    printf("  swinging sole corners that touched the ground: %d with the scuff rows, %d without; their sideways "
           "move beyond the rows' bound at most %.2f mm, %.2f mm without\n",
           n[1], n[0], most[1] * 1e3, most[0] * 1e3);
    assert_true(n[1] >= 100 && n[0] >= 100); /* lift-offs: the rows are exercised */
    assert_true(most[0] > 5e-3);
    assert_true(most[1] <= 0.5e-3);
}

/* A new file at path (a mkstemp template, filled in), open for writing. */
static FILE *temp_file(char path[]) {
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    FILE *f = fdopen(fd, "w");
    assert_non_null(f);
    return f;
}

/* The first frame's feet are pinned where the robot can stand: the sample
 * walk with the source's hips eight times as wide plans footholds wider apart
 * than the sample humanoid's legs reach; pinned there, the stance rows ran on
 * slack from the first frame until a foot lifted. Frame 0's stance slack
 * (the trace's slack_stance column) is the solve's tolerance. */
static void test_first_frame_pins(void **state) {
    (void)state;
    FILE *in = fopen(WALK, "r");
    assert_non_null(in);
    char path[] = "/tmp/kg_wide_hips_XXXXXX", line[8192];
    FILE *out = temp_file(path);
    int wide = 0, leg = 0;
    while (fgets(line, sizeof line, in)) {
        double x, y, z;
        if (leg && sscanf(line, " OFFSET %lf %lf %lf", &x, &y, &z) == 3) { /* the hip's offset from the pelvis */
            fprintf(out, "\t\tOFFSET %.4f %.4f %.4f\n", 8 * x, y, z);
            leg = 0, wide++;
            continue;
        }
        leg = strstr(line, "JOINT LeftUpLeg") || strstr(line, "JOINT RightUpLeg") ? 1 : leg;
        fputs(line, out);
    }
    fclose(in), fclose(out);
    assert_int_equal(wide, 2);
    kg_retarget_options o;
    kg_retarget_defaults(&o);
    kg_retarget_report rep;
    FILE *trace;
    kg_motion *m = run_traced(path, SAMPLE, &o, &rep, &trace);
    rewind(trace);
    assert_non_null(fgets(line, sizeof line, trace)); /* the header: slack_stance is the 24th column */
    assert_non_null(fgets(line, sizeof line, trace));
    double slack = trace_col(line, 23);
    printf("  hips 8x as wide: frame 0's stance slack %.2e (%s)\n", slack, line);
    assert_true(slack <= 1e-4);
    fclose(trace);
    remove(path);
    kg_motion_free(m);
}

/* The sample walk with frames before it - its first frame with each upper
 * arm turned forward (its X rotation -90 degrees) and its forearm bent up
 * (Y 120), then `ramp` frames going over from that pose to the walk's first
 * frame, channel by channel - into a new file at path (a mkstemp template). */
static void walk_after_pose(char path[], int ramp) {
    static const struct { int channel; double value; } pose[] = {{22, -90}, {34, -90}, {25, 120}, {37, 120}};
    FILE *in = fopen(WALK, "r"), *out = temp_file(path);
    assert_non_null(in);
    char line[8192];
    int motion = 0;
    while (fgets(line, sizeof line, in)) {
        int n;
        if (sscanf(line, "Frames: %d", &n) == 1) {
            fprintf(out, "Frames: %d\n", n + 1 + ramp), motion = 1;
            continue;
        }
        if (motion == 2) { /* the first frame: the pose, the ramp, then the frame itself */
            char copy[8192], *tok[512], *save = NULL;
            int k = 0;
            snprintf(copy, sizeof copy, "%s", line);
            for (char *t = strtok_r(copy, " \t\r\n", &save); t && k < 512; t = strtok_r(NULL, " \t\r\n", &save)) tok[k++] = t;
            for (int r = 0; r <= ramp; r++) {
                double u = (double)r / (ramp + 1);
                for (int i = 0; i < k; i++) {
                    double v = strtod(tok[i], NULL);
                    for (size_t p = 0; p < sizeof pose / sizeof *pose; p++)
                        if (pose[p].channel == i) v = pose[p].value + u * (v - pose[p].value);
                    fprintf(out, "%s%.17g", i ? " " : "", v);
                }
                fputc('\n', out);
            }
            motion = 3;
        }
        if (motion == 1 && strstr(line, "Frame Time")) motion = 2;
        fputs(line, out);
    }
    fclose(in), fclose(out);
}

/* A cut (the source's limbs turned more than cut_angle in a frame: a pose
 * before the take): the sample walk after a frame with its arms forward and
 * its forearms up. The frame is solved afresh and the robot pulled onto that
 * solve for at most cut_time where it ends better than the robot's own start;
 * either way the clip's pose error stays within a few degrees of the walk's
 * own and no worse than followed greedily. (Before headings were read
 * continuously, the greedy run's left arm went the long way round onto its
 * limits and stayed there, 65 degrees off on average; test_stuck_limb keeps
 * a limb that does.) */
static void test_cut_catch_up(void **state) {
    (void)state;
    char path[] = "/tmp/kg_walk_after_pose_XXXXXX";
    walk_after_pose(path, 0);
    kg_retarget_options o;
    kg_retarget_defaults(&o);
    kg_retarget_report plain, caught, greedy; /* pose_segment_mean_deg[2]: the left upper arm's */
    kg_motion_free(run(WALK, SAMPLE, &o, &plain));
    kg_motion_free(run(path, SAMPLE, &o, &caught));
    o.tune.cut_angle = 0, o.tune.stuck_angle = 0;
    kg_motion_free(run(path, SAMPLE, &o, &greedy));
    remove(path);
    printf("  pose p95 / left upper arm mean: the walk %.1f / %.1f, after the pose %.1f / %.1f (cuts %d, caught up over "
           "%d frames), without cuts %.1f / %.1f (cuts %d)\n", plain.pose_p95_deg,
           plain.pose_segment_mean_deg[2], caught.pose_p95_deg,
           caught.pose_segment_mean_deg[2], caught.source_cuts, caught.catch_up_frames,
           greedy.pose_p95_deg, greedy.pose_segment_mean_deg[2], greedy.source_cuts);
    assert_int_equal(caught.source_cuts, 1), assert_int_equal(greedy.source_cuts, 0), assert_int_equal(plain.source_cuts, 0);
    assert_true(caught.catch_up_frames <= (int)(o.tune.cut_time * 30 + 1));
    assert_true(caught.pose_p95_deg <= plain.pose_p95_deg + 5);
    assert_true(caught.pose_p95_deg <= greedy.pose_p95_deg + 0.5);
    assert_true(caught.pose_segment_mean_deg[2] <= 10);
    assert_int_equal(caught.limit_violations, 0), assert_int_equal(caught.velocity_violations, 0);
}

/* A limb stuck without a cut is caught up: the sample walk after the pose of
 * test_cut_catch_up, going over to the walk in RAMP frames (9 degrees a frame
 * at most: no cut). Followed frame by frame, the left arm ends on its limits
 * as after the cut and stays there (its upper arm 64 degrees off on average);
 * stuck for stuck_time, the frame solved afresh finds the walk's pose, and
 * the robot is pulled onto it: the arm is off for that half second of the
 * clip's four. */
static void test_stuck_limb(void **state) {
    (void)state;
    enum { RAMP = 9 };
    char path[] = "/tmp/kg_walk_after_ramp_XXXXXX";
    walk_after_pose(path, RAMP);
    kg_retarget_options o;
    kg_retarget_defaults(&o);
    kg_retarget_report plain, caught, greedy;
    kg_motion_free(run(WALK, SAMPLE, &o, &plain));
    kg_motion_free(run(path, SAMPLE, &o, &caught));
    o.tune.stuck_angle = 0;
    kg_motion_free(run(path, SAMPLE, &o, &greedy));
    remove(path);
    printf("  pose p95 / left upper arm mean: the walk %.1f / %.1f, after the ramp %.1f / %.1f (cuts %d, stuck %d, "
           "caught up %d, over %d frames), not solved afresh %.1f / %.1f\n", plain.pose_p95_deg,
           plain.pose_segment_mean_deg[2], caught.pose_p95_deg, caught.pose_segment_mean_deg[2], caught.source_cuts,
           caught.stuck_limbs, caught.stuck_catch_ups, caught.catch_up_frames, greedy.pose_p95_deg,
           greedy.pose_segment_mean_deg[2]);
    assert_int_equal(caught.source_cuts, 0);
    assert_true(caught.stuck_catch_ups >= 1 && caught.stuck_limbs >= caught.stuck_catch_ups);
    assert_int_equal(greedy.stuck_limbs, 0);
    assert_true(caught.pose_p95_deg <= plain.pose_p95_deg + 20 && greedy.pose_p95_deg >= plain.pose_p95_deg + 40);
    assert_true(caught.pose_segment_mean_deg[2] <= 20 && greedy.pose_segment_mean_deg[2] >= 50);
    assert_int_equal(caught.limit_violations, 0), assert_int_equal(caught.velocity_violations, 0);
}

/* A foot link's own axes do not matter: the sample humanoid with each foot's
 * link (and the sole frame fixed to it) turned a quarter turn about y - x up,
 * z back, its joint axis, shapes and sole frame expressed in the turned axes:
 * the same robot - retargets the sample walk as the sample does. The sole was
 * found along the link's z and the feet's headings from its x: 80 mm into the
 * ground, joints up to 0.3 rad apart. */
static void test_foot_frame_turned(void **state) {
    (void)state;
    char *text = kg_test_slurp(SAMPLE), path[] = "/tmp/kg_turned_feet_XXXXXX";
    assert_non_null(text);
    text = kg_test_turn_sample_feet(text);
    FILE *f = temp_file(path);
    fputs(text, f);
    fclose(f);
    free(text);
    kg_retarget_options o;
    kg_retarget_defaults(&o);
    kg_retarget_report a, b;
    kg_motion *ma = run(WALK, SAMPLE, &o, &a), *mb = run(WALK, path, &o, &b);
    remove(path);
    double most = 0;
    assert_int_equal(ma->nframes, mb->nframes);
    for (size_t i = 0; i < (size_t)ma->nframes * (size_t)ma->nq; i++) most = fmax(most, fabs(ma->q[i] - mb->q[i]));
    for (size_t i = 0; i < (size_t)ma->nframes * 7; i++) most = fmax(most, fabs(ma->base[i] - mb->base[i]));
    printf("  feet's links turned: joints and root at most %.2e apart; penetration %.2f / %.2f mm, pose p95 %.1f / %.1f\n",
           most, a.penetration_max_mm, b.penetration_max_mm, a.pose_p95_deg, b.pose_p95_deg);
    assert_true(most <= 1e-6);
    kg_motion_free(ma), kg_motion_free(mb);
}

/* A map's points are used: a point given for a source part moves it (the
 * same map with the point at zero: the same output as no map); one given for
 * a robot's foot, which stands on its sole, is said to be unused. */
static void test_map_points(void **state) {
    (void)state;
    kg_diags d;
    kg_diags_init(&d);
    kg_motion *clip = NULL;
    kg_model *src = kg_load_clip(WALK, NULL, &clip, &d), *robot = kg_load(SAMPLE, NULL, &d);
    assert_non_null(src), assert_non_null(robot), assert_non_null(clip);
    kg_body_map smap, rmap;
    for (int k = 0; k < KG_NPART; k++) smap.link[k] = rmap.link[k] = -1;
    assert_int_equal(kg_body_map_find_clip(src, clip, &smap, &d), 0);
    assert_int_equal(kg_body_map_find(robot, &rmap, &d), 0);
    kg_retarget_options o;
    kg_retarget_defaults(&o);
    kg_retarget_report r;
    kg_motion *plain = NULL, *zero = NULL, *moved = NULL;
    assert_int_equal(kg_retarget(src, clip, robot, &o, &plain, &r, &d), 0);
    o.source_map = &smap;
    assert_int_equal(kg_retarget(src, clip, robot, &o, &zero, &r, &d), 0);
    smap.point[KG_PART_WRIST_L][0] = 10, smap.how[KG_PART_WRIST_L] = "map"; /* given: 10 cm (the file's unit) across the forearm */
    assert_int_equal(kg_retarget(src, clip, robot, &o, &moved, &r, &d), 0);
    assert_same_motion(plain, zero);
    double most = 0;
    for (size_t i = 0; i < (size_t)plain->nframes * (size_t)plain->nq; i++) most = fmax(most, fabs(plain->q[i] - moved->q[i]));
    printf("  a source wrist's point moved: joints up to %.3f rad from the plain run's\n", most);
    assert_true(most > 0.01);
    kg_diags_clear(&d);
    rmap.point[KG_PART_FOOT_L][0] = 0.1, rmap.how[KG_PART_FOOT_L] = "map";
    o.source_map = NULL, o.robot_map = &rmap;
    kg_motion_free(plain);
    assert_int_equal(kg_retarget(src, clip, robot, &o, &plain, &r, &d), 0);
    assert_int_equal(diag_count(&d, "retarget.point_unused"), 1);
    kg_motion_free(plain), kg_motion_free(zero), kg_motion_free(moved);
    kg_motion_free(clip);
    kg_model_free(src), kg_model_free(robot);
    kg_diags_clear(&d);
}

/* Scales every length of line (an <origin>'s xyz, a box's size, a radius, a
 * length) by k, into out. */
static void scale_line(const char *line, double k, FILE *out) {
    static const char *const keys[] = {"xyz=\"", "size=\"", "radius=\"", "length=\""};
    const char *p = line;
    while (*p) {
        const char *hit = NULL;
        int key = -1;
        for (int i = 0; i < 4; i++) {
            const char *h = strstr(p, keys[i]);
            if (h && (i > 0 || strstr(line, "<origin")) && (!hit || h < hit)) hit = h, key = i;
        }
        if (!hit) break;
        hit += strlen(keys[key]);
        fwrite(p, 1, (size_t)(hit - p), out);
        char *end;
        for (double v = strtod(hit, &end); end != hit; v = strtod(hit, &end)) {
            fprintf(out, "%s%.9g", *hit == ' ' ? " " : "", v * k);
            hit = end;
        }
        p = hit;
    }
    fputs(p, out);
}

/* A clip's contacts are the source's: the same on the sample humanoid and on
 * a copy of it a third of its size (on the robot's own scale, the small
 * robot saw the walk's swinging feet as slow and low, and never stepped). */
static void test_contacts_scale_free(void **state) {
    (void)state;
    FILE *in = fopen(SAMPLE, "r");
    assert_non_null(in);
    char path[] = "/tmp/kg_small_humanoid_XXXXXX", line[8192];
    FILE *out = temp_file(path);
    while (fgets(line, sizeof line, in)) scale_line(line, 1.0 / 3, out);
    fclose(in), fclose(out);
    kg_retarget_report big, small, robot_scale;
    kg_retarget_options o;
    kg_retarget_defaults(&o);
    kg_motion_free(run(WALK, SAMPLE, &o, &big));
    kg_motion_free(run(WALK, path, &o, &small));
    o.tune.leg_reference = 0; /* on the robot's scale, as before */
    kg_motion_free(run(WALK, path, &o, &robot_scale));
    remove(path);
    printf("  contact phases / frames / double support: sample %d/%d/%d, a third of it %d/%d/%d (%d/%d/%d on its "
           "own scale); leg scale %.4f, %.4f\n", big.contact_phases, big.contact_frames, big.double_support_frames,
           small.contact_phases, small.contact_frames, small.double_support_frames, robot_scale.contact_phases,
           robot_scale.contact_frames, robot_scale.double_support_frames, big.leg_scale, small.leg_scale);
    KG_ASSERT_NEAR(small.leg_scale, big.leg_scale / 3, 1e-9 * big.leg_scale);
    assert_int_equal(small.contact_phases, big.contact_phases);
    assert_int_equal(small.contact_frames, big.contact_frames);
    assert_int_equal(small.double_support_frames, big.double_support_frames);
    assert_true(robot_scale.double_support_frames > big.double_support_frames);
}

/* An ankle of three hinges through one point (yaw, pitch, roll), the ankle
 * part on the first one's link: the hinges below it at the ankle's point are
 * the ankle's, not a toe joint. The sample humanoid with an ankle yaw added
 * above its pitch, the map's ankles on the yaw links: its feet are planted by
 * their sole frames and every ankle hinge moves on the walk (taken for a toe
 * joint, the roll was held at 0 throughout). */
static void test_ankle_hinges_at_one_point(void **state) {
    (void)state;
    char *text = kg_test_slurp(SAMPLE);
    assert_non_null(text);
    text = kg_test_replace_sides(text, "<joint name=\"%c_ankle_pitch\"", "<parent link=\"%c_shank\"/>",
                                 "<parent link=\"%c_ankle_yaw_link\"/>");
    text = kg_test_replace_sides(text, "<joint name=\"%c_ankle_pitch\"", "<origin xyz=\"0 0 -0.3\" rpy=\"0 0 0\"/>",
                                 "<origin xyz=\"0 0 0\"/>");
    text = kg_test_replace_sides(text, "<robot", "</robot>",
                                 "<link name=\"%c_ankle_yaw_link\"/><joint name=\"%c_ankle_yaw\" type=\"revolute\">"
                                 "<parent link=\"%c_shank\"/><child link=\"%c_ankle_yaw_link\"/><origin xyz=\"0 0 -0.3\"/>"
                                 "<axis xyz=\"0 0 1\"/><limit lower=\"-0.5\" upper=\"0.5\" effort=\"50\" velocity=\"6\"/>"
                                 "</joint></robot>");
    char path[] = "/tmp/kg_ankle3_XXXXXX";
    FILE *out = temp_file(path);
    fputs(text, out);
    fclose(out);
    free(text);
    kg_diags d;
    kg_diags_init(&d);
    kg_model *robot = kg_load(path, NULL, &d);
    assert_non_null(robot);
    kg_body_map map;
    memset(&map, 0, sizeof map);
    for (int k = 0; k < KG_NPART; k++) map.link[k] = -1;
    map.link[KG_PART_ANKLE_L] = kg_model_link(robot, "l_ankle_yaw_link"), map.how[KG_PART_ANKLE_L] = "map";
    map.link[KG_PART_ANKLE_R] = kg_model_link(robot, "r_ankle_yaw_link"), map.how[KG_PART_ANKLE_R] = "map";
    kg_retarget_options o;
    kg_retarget_defaults(&o);
    o.robot_map = &map;
    kg_retarget_robot *rr = kg_retarget_robot_new(robot, &o, &d);
    assert_non_null(rr);
    assert_string_equal(robot->link[rr->map.link[KG_PART_FOOT_L]].name, "l_sole");
    assert_string_equal(robot->link[rr->map.link[KG_PART_FOOT_R]].name, "r_sole");
    kg_retarget_robot_free(rr);
    kg_retarget_report rep;
    kg_motion *m = run(WALK, path, &o, &rep);
    remove(path);
    const char *names[3] = {"l_ankle_yaw", "l_ankle_pitch", "l_ankle_roll"};
    for (int k = 0; k < 3; k++) {
        int j = kg_model_joint(robot, names[k]);
        assert_true(j >= 0);
        double most = 0;
        for (int f = 0; f < m->nframes; f++) most = fmax(most, fabs(m->q[(size_t)f * (size_t)m->nq + (size_t)robot->joint[j].qadr]));
        printf("  %s moves up to %.3f rad\n", names[k], most);
        assert_true(most > 0.01);
    }
    assert_true(rep.pose_p95_deg <= 15);
    kg_motion_free(m);
    kg_model_free(robot);
    kg_diags_clear(&d);
}

/* Feet pitched at the rest pose: the sample humanoid with each ankle pitch's
 * origin turned 0.26 rad (15 degrees), so that at zero its soles face the
 * ground toe down. The feet are levelled (the ankles turned back by 0.26 rad
 * in the robot's rest and neutral pose, a note says so), and the walk stands
 * on flat soles; without levelling (sole_level 0) the planted feet keep their
 * rest tilt, on the edge of a sole found only partly. Ankles whose limits
 * stop short of level leave the feet tilted, with a warning. */
static void test_feet_levelled(void **state) {
    (void)state;
    char *text = kg_test_slurp(SAMPLE);
    assert_non_null(text);
    text = kg_test_replace_sides(text, "<joint name=\"%c_ankle_pitch\"", "<origin xyz=\"0 0 -0.3\" rpy=\"0 0 0\"/>",
                                 "<origin xyz=\"0 0 -0.3\" rpy=\"0 0.26 0\"/>");
    char path[] = "/tmp/kg_pitched_feet_XXXXXX";
    FILE *out = temp_file(path);
    fputs(text, out);
    fclose(out);
    free(text);
    kg_diags d;
    kg_diags_init(&d);
    kg_model *robot = kg_load(path, NULL, &d);
    assert_non_null(robot);
    kg_retarget_options o;
    kg_retarget_defaults(&o);
    kg_retarget_robot *rr = kg_retarget_robot_new(robot, &o, &d);
    assert_non_null(rr);
    assert_int_equal(diag_count(&d, "retarget.foot_levelled"), 2);
    for (int side = 0; side < 2; side++) { /* the neutral pose turns each ankle pitch back */
        int j = kg_model_joint(robot, side ? "r_ankle_pitch" : "l_ankle_pitch");
        KG_ASSERT_NEAR(rr->neutral[robot->joint[j].qadr], -0.26, 1e-6);
    }
    kg_retarget_robot_free(rr);
    { /* ankles that cannot turn that far back (their pitch down to -0.1 rad): a warning says the feet stay tilted */
        char *stiff = kg_test_replace_sides(kg_test_slurp(path), "<joint name=\"%c_ankle_pitch\"",
                                            "<limit lower=\"-1.2\"", "<limit lower=\"-0.1\"");
        kg_diags ds;
        kg_diags_init(&ds);
        kg_model *ms = kg_load_buffer(path, stiff, strlen(stiff), NULL, &ds);
        assert_non_null(ms);
        kg_retarget_robot *rs = kg_retarget_robot_new(ms, &o, &ds);
        assert_non_null(rs);
        assert_int_equal(diag_count(&ds, "retarget.foot_tilted"), 2);
        assert_int_equal(diag_count(&ds, "retarget.foot_levelled"), 0);
        kg_retarget_robot_free(rs), kg_model_free(ms), kg_diags_clear(&ds), free(stiff);
    }
    kg_retarget_report level, tilted;
    double tilt[2]; /* the left foot link's tilt at frame 0, both feet planted (its sole box is along its axes) */
    for (int k = 0; k < 2; k++) {
        if (k) o.tune.sole_level = 0;
        kg_motion *m = run(WALK, path, &o, k ? &tilted : &level);
        kg_data *kd = kg_data_new(robot);
        kg_motion_pose(m, 0, kd);
        kg_fk(robot, kd);
        tilt[k] = acos(fmin(1, kd->link_rot[9 * kg_model_link(robot, "l_foot") + 8]));
        kg_data_free(kd);
        kg_motion_free(m);
    }
    remove(path);
    printf("  feet pitched 15 degrees at rest: levelled: planted %.4f rad off flat, pose p95 %.1f, ZMP outside %.1f %%; "
           "as they are: %.4f rad, %.1f, %.1f %%\n", tilt[0], level.pose_p95_deg, level.zmp_outside_percent, tilt[1],
           tilted.pose_p95_deg, tilted.zmp_outside_percent);
    assert_bars(&level);
    assert_true(tilt[0] < 0.01);
    assert_true(tilt[1] > 0.2);
    kg_model_free(robot);
    kg_diags_clear(&d);
}

/* The sample walk into a new file at path (a mkstemp template), each frame's
 * root channels (X Y Z position, Z X Y rotation: the file's units, Y up)
 * changed by edit(v, frame, ctx), the rest of its line kept. */
static void walk_root_edited(char path[], void (*edit)(double v[6], int f, void *ctx), void *ctx) {
    FILE *in = fopen(WALK, "r"), *out = temp_file(path);
    char line[8192];
    assert_non_null(in);
    int motion = 0, f = 0;
    while (fgets(line, sizeof line, in)) {
        if (motion && strlen(line) > 1) {
            char *p = line, *end;
            double v[6];
            for (int k = 0; k < 6; k++) v[k] = strtod(p, &end), p = end;
            edit(v, f++, ctx);
            fprintf(out, "%.6f %.6f %.6f %.6f %.6f %.6f%s", v[0], v[1], v[2], v[3], v[4], v[5], p);
            continue;
        }
        if (strstr(line, "Frame Time")) motion = 1;
        fputs(line, out);
    }
    fclose(in), fclose(out);
}

/* The path across the ground (X, Z) stretched by k[0] about frame 0's
 * (k[1], k[2]: frame 0's X and Z, set there). */
static void stretch(double v[6], int f, void *ctx) {
    double *k = ctx;
    if (f == 0) k[1] = v[0], k[2] = v[2];
    v[0] = k[1] + k[0] * (v[0] - k[1]), v[2] = k[2] + k[0] * (v[2] - k[2]);
}

/* A sprint: the sample walk with its pelvis's path across the ground
 * stretched so that it runs at 3.4 m/s. The root follows (its speed held
 * within root_speed, 4 m/s, whichever way it goes): each axis bounded by a
 * third of the square held a straight run to 2.31 m/s, and the robot fell
 * behind, its feet ahead of its pelvis. */
static void test_root_sprint(void **state) {
    (void)state;
    kg_retarget_options o;
    kg_retarget_defaults(&o);
    kg_retarget_report walk, sprint;
    kg_motion_free(run(WALK, SAMPLE, &o, &walk));
    const double k = 3.4 / walk.source_root_speed_max;
    double ctx[3] = {k, 0, 0};
    char path[] = "/tmp/kg_sprint_XXXXXX";
    walk_root_edited(path, stretch, ctx);
    kg_motion_free(run(path, SAMPLE, &o, &sprint));
    remove(path);
    printf("  the walk stretched %.2fx: source pelvis %.2f m/s, robot root %.2f m/s (%d frames over 4), pose p95 %.1f, "
           "ZMP outside %.1f %%\n", k, sprint.source_root_speed_max, sprint.root_speed_max, sprint.root_fast_frames,
           sprint.pose_p95_deg, sprint.zmp_outside_percent);
    assert_true(sprint.root_speed_max > 3.0);
    assert_int_equal(sprint.root_fast_frames, 0);
    assert_true(sprint.pose_p95_deg <= 35);
}

/* The root's Y rotation (about up, degrees) turned at *rate rad/s from
 * frame 30 to 60 of the 30 frames/s walk. */
static void spin(double v[6], int f, void *ctx) {
    const double t = (f < 30 ? 0 : f < 60 ? f - 30 : 30) / 30.0;
    v[5] += *(double *)ctx * t * 180 / KG_PI;
}

/* The root raised by a tenth of the way across the ground from frame 0's
 * (ctx: frame 0's X and Z, set there). */
static void ramp_up(double v[6], int f, void *ctx) {
    double *o = ctx;
    if (f == 0) o[0] = v[0], o[1] = v[2];
    v[1] += 0.1 * hypot(v[0] - o[0], v[2] - o[1]);
}

/* A spin: the sample walk turned about its up axis at 10 rad/s for a second
 * (its root's Y rotation channel). The body follows (its turn rate held
 * within root_turn_speed, 12 rad/s, whichever way it turns): each axis
 * bounded by a third of the square held a turn about one axis to 6.9. */
static void test_root_spin(void **state) {
    (void)state;
    double rate = 10; /* rad/s */
    char path[] = "/tmp/kg_spin_XXXXXX";
    walk_root_edited(path, spin, &rate);
    kg_retarget_options o;
    kg_retarget_defaults(&o);
    kg_retarget_report rep;
    kg_motion *m = run(path, SAMPLE, &o, &rep);
    remove(path);
    double most = 0, R0[9], R1[9], Rd[9];
    for (int k = 1; k < m->nframes; k++) {
        kg_rot_from_quat(R0, m->base + 7 * (size_t)(k - 1) + 3), kg_rot_from_quat(R1, m->base + 7 * (size_t)k + 3);
        kg_mat3_mul_bt(Rd, R1, R0);
        most = fmax(most, kg_rot_angle(Rd) / m->frame_time);
    }
    printf("  a 10 rad/s spin: the body turns at up to %.2f rad/s, pose p95 %.1f\n", most, rep.pose_p95_deg);
    assert_true(most > 8 && most <= o.tune.root_turn_speed * 1.001);
    kg_motion_free(m);
}

/* A landing foot the source has put down, moved aside off the other
 * planted sole, goes through the air: GR1-T2 on the Bandai dance, whose
 * right foot lands beside a left foot pivoting through a 2-rad spin, slid
 * 62 mm along the ground while it was moved (the corpus). */
static void test_landing_aside(void **state) {
    (void)state;
    const char *data = kg_test_data_dir();
    if (!data) {
        printf("SKIPPED: test_landing_aside needs the shared corpus (set KINEGRAPH_DATA)\n");
        skip();
    }
    char clip[4096], robot[4096];
    snprintf(clip, sizeof clip, "%s/bvh/bandai_namco/dataset-1_dance-short_normal_001.bvh", data);
    snprintf(robot, sizeof robot, "%s/urdf/fourier_gr1t2/GRX/GR1/gr1t2/basic_urdf/gr1t2.urdf", data);
    kg_retarget_options o;
    kg_retarget_defaults(&o);
    kg_retarget_report rep;
    kg_motion_free(run(clip, robot, &o, &rep));
    printf("  GR1-T2, Bandai dance: slip %.2f mm, pose p95 %.1f, ZMP outside %.1f %%\n", rep.slip_max_mm, rep.pose_p95_deg,
           rep.zmp_outside_percent);
    assert_true(rep.slip_max_mm <= 5);
}

/* A walk up a ramp: the sample walk with its pelvis raised by a tenth of the
 * distance it has gone (a 5.7-degree slope). Its feet are down as often as on
 * level ground: the floor's low percentile, which lags a rising floor, is
 * raised by what stands above it (without, 69 of its 120 frames had a foot
 * down, the robot hanging in between). */
static void test_floor_ramp(void **state) {
    (void)state;
    kg_retarget_options o;
    kg_retarget_defaults(&o);
    kg_retarget_report level, ramp;
    kg_motion_free(run(WALK, SAMPLE, &o, &level));
    char path[] = "/tmp/kg_ramp_XXXXXX";
    double origin[2];
    walk_root_edited(path, ramp_up, origin);
    kg_motion_free(run(path, SAMPLE, &o, &ramp));
    remove(path);
    printf("  up a 5.7-degree ramp: %d contact frames (level: %d), pose p95 %.1f, hover %.1f %%\n", ramp.contact_frames,
           level.contact_frames, ramp.pose_p95_deg, ramp.hover_percent);
    assert_true(ramp.contact_frames >= 0.9 * level.contact_frames);
    assert_bars(&ramp);
}

/* A foot with a toe joint is planted by its body (the link above the toe
 * joint, most of its sole), the toe held at its neutral pose: planted by its
 * toe link, the heel turned about the toe joint through the ground (17-41 mm
 * on the corpus walks). The sample humanoid with each foot's box split into a
 * heel and a toe on a revolute joint. */
static void test_toe_joint(void **state) {
    (void)state;
    char *text = kg_test_slurp(SAMPLE);
    assert_non_null(text);
    size_t cap = strlen(text) + 8192;
    char *toes = malloc(cap);
    assert_non_null(toes);
    toes[0] = 0;
    const char *at = text;
    int r_first = strstr(text, "<link name=\"r_foot\">") < strstr(text, "<link name=\"l_foot\">");
    for (int k = 0; k < 2; k++) { /* in the file's order */
        const char *s = (k == 0) == r_first ? "r" : "l";
        char name[64];
        snprintf(name, sizeof name, "<link name=\"%s_foot\">", s);
        const char *a = strstr(at, name), *b = a ? strstr(a, "</link>") : NULL;
        assert_true(a && b);
        strncat(toes, at, (size_t)(a - at));
        snprintf(toes + strlen(toes), cap - strlen(toes),
                 "<link name=\"%s_foot\"><inertial><origin xyz=\"0 0 -0.04\"/><mass value=\"1.5\"/>"
                 "<inertia ixx=\"0.0013\" ixy=\"0\" ixz=\"0\" iyy=\"0.003\" iyz=\"0\" izz=\"0.004\"/></inertial>"
                 "<collision><origin xyz=\"0 0 -0.04\"/><geometry><box size=\"0.14 0.1 0.02\"/></geometry></collision>"
                 "</link><joint name=\"%s_toe\" type=\"revolute\"><parent link=\"%s_foot\"/><child link=\"%s_toe_link\"/>"
                 "<origin xyz=\"0.07 0 -0.04\"/><axis xyz=\"0 1 0\"/>"
                 "<limit lower=\"-0.6\" upper=\"0.3\" effort=\"20\" velocity=\"6\"/></joint>"
                 "<link name=\"%s_toe_link\"><inertial><origin xyz=\"0.03 0 0\"/><mass value=\"0.3\"/>"
                 "<inertia ixx=\"0.0003\" ixy=\"0\" ixz=\"0\" iyy=\"0.0003\" iyz=\"0\" izz=\"0.0003\"/></inertial>"
                 "<collision><origin xyz=\"0.03 0 0\"/><geometry><box size=\"0.06 0.1 0.02\"/></geometry></collision>"
                 "</link>",
                 s, s, s, s, s);
        at = b + strlen("</link>");
    }
    strcat(toes, at);
    char path[] = "/tmp/kg_toes_XXXXXX";
    FILE *out = temp_file(path);
    fputs(toes, out);
    fclose(out);
    kg_diags d;
    kg_diags_init(&d);
    kg_model *robot = kg_load(path, NULL, &d);
    assert_non_null(robot);
    kg_retarget_robot *rr = kg_retarget_robot_new(robot, NULL, &d);
    assert_non_null(rr);
    assert_string_equal(robot->link[rr->map.link[KG_PART_FOOT_L]].name, "l_foot");
    assert_string_equal(robot->link[rr->map.link[KG_PART_FOOT_R]].name, "r_foot");
    kg_retarget_options o;
    kg_retarget_defaults(&o);
    kg_retarget_report rep;
    kg_motion *m = run(WALK, path, &o, &rep);
    int toe = -1;
    for (int j = 0; j < robot->njoint; j++)
        if (!strcmp(robot->joint[j].name, "l_toe")) toe = robot->joint[j].qadr;
    assert_true(toe >= 0);
    double bend = 0;
    for (int f = 0; f < m->nframes; f++) bend = fmax(bend, fabs(m->q[(size_t)f * m->nq + toe]));
    printf("  toe joints: penetration %.2f mm, slip %.2f mm, toe bent at most %.2g rad\n", rep.penetration_max_mm,
           rep.slip_max_mm, bend);
    assert_true(rep.penetration_max_mm <= 1.0);
    assert_true(rep.slip_max_mm <= 1.0);
    assert_true(bend <= 1e-9);
    kg_motion_free(m);
    kg_retarget_robot_free(rr);
    kg_model_free(robot);
    kg_diags_clear(&d);
    remove(path);
    free(toes), free(text);
}

/* A model built facing another way (+y, -x) or lying (y up) is stood up as
 * the retargeting takes robots (x forward, z up), and a root link away from
 * the pelvis moves the body as one at the pelvis does (the root's twist is
 * taken at the pelvis), and a floating joint the model declares is held (the
 * root moves the body): the sample humanoid under a root turned or moved by a
 * fixed joint, or floating under a world link, moves its joints as the sample
 * does (but for rounding). Facing +y, its pose p95 on the sample walk was 50
 * degrees. */
static void test_model_turned(void **state) {
    (void)state;
    static const char *const rpy[] = {"0 0 1.5707963267948966", "0 0 3.141592653589793", "1.5707963267948966 0 0",
                                      "0 0 0", "0 0 0"},
                             *xyz[] = {"0 0 0", "0 0 0", "0 0 0", "0.1 -0.05 0.65", "0 0 0.65"},
                             *type[] = {"fixed", "fixed", "fixed", "fixed", "floating"}; /* a root on the floor; a
                                                                                           * world link floating */
    char *text = kg_test_slurp(SAMPLE);
    assert_non_null(text);
    kg_retarget_options o;
    kg_retarget_defaults(&o);
    kg_retarget_report rep0;
    kg_motion *m0 = run(WALK, SAMPLE, &o, &rep0);
    char *at = strstr(text, "<link name=\"pelvis\">");
    assert_non_null(at);
    for (int k = 0; k < 5; k++) {
        char path[] = "/tmp/kg_turned_XXXXXX";
        FILE *out = temp_file(path);
        fwrite(text, 1, (size_t)(at - text), out);
        fprintf(out, "<link name=\"turned_root\"/><joint name=\"turn\" type=\"%s\"><parent link=\"turned_root\"/>"
                     "<child link=\"pelvis\"/><origin xyz=\"%s\" rpy=\"%s\"/></joint>\n%s", type[k], xyz[k], rpy[k], at);
        fclose(out);
        kg_retarget_report rep;
        kg_motion *m = run(WALK, path, &o, &rep);
        remove(path);
        int extra = m->nq - m0->nq; /* a floating joint's 7 coordinates come first, held at rest */
        assert_int_equal(extra, k == 4 ? 7 : 0);
        double diff = 0;
        for (int f = 0; f < m->nframes; f++)
            for (int i = 0; i < m0->nq; i++)
                diff = fmax(diff, fabs(m->q[(size_t)f * m->nq + extra + i] - m0->q[(size_t)f * m0->nq + i]));
        printf("  %s root at xyz (%s) turned rpy (%s): pose p95 %.1f deg (%.1f as built), joints within %.1e rad, root %.2f "
               "m/s\n", type[k], xyz[k], rpy[k], rep.pose_p95_deg, rep0.pose_p95_deg, diff, rep.root_speed_max);
        assert_int_equal(rep.root_fast_frames, 0);
        /* rounding apart, the same solve: but a frame's path (tune.predict's restart, the
         * steps' stop) turns on thresholds, so rounding may take another path to the
         * same point, within step_tolerance */
        assert_true(diff <= o.tune.step_tolerance / 3);
        KG_ASSERT_NEAR(rep.pose_p95_deg, rep0.pose_p95_deg, 0.1);
        kg_motion_free(m);
    }
    kg_motion_free(m0);
    free(text);
}

/* A joint no body part's path goes through (a camera's tilt on the head, a
 * lid on the torso) is held at its neutral value and is no unknown of the
 * step: the sample humanoid with two such joints (massless links, no shapes)
 * moves every other joint as the sample does (but for rounding, as above),
 * and the two stay at 0 on every frame. */
static void test_undriven_held(void **state) {
    (void)state;
    char *text = kg_test_slurp(SAMPLE);
    assert_non_null(text);
    char *end = strstr(text, "</robot>"), path[] = "/tmp/kg_undriven_XXXXXX";
    assert_non_null(end);
    FILE *out = temp_file(path);
    fwrite(text, 1, (size_t)(end - text), out);
    fprintf(out, "<link name=\"camera\"/><joint name=\"camera_tilt\" type=\"revolute\"><parent link=\"head\"/>"
                 "<child link=\"camera\"/><origin xyz=\"0.05 0 0.02\"/><axis xyz=\"0 1 0\"/>"
                 "<limit lower=\"-1\" upper=\"1\" effort=\"1\" velocity=\"1\"/></joint>\n"
                 "<link name=\"lid\"/><joint name=\"lid_hinge\" type=\"revolute\"><parent link=\"torso\"/>"
                 "<child link=\"lid\"/><origin xyz=\"-0.1 0 0.1\"/><axis xyz=\"0 1 0\"/>"
                 "<limit lower=\"-0.5\" upper=\"1.5\" effort=\"1\" velocity=\"1\"/></joint>\n</robot>\n");
    fclose(out);
    kg_retarget_options o;
    kg_retarget_defaults(&o);
    kg_retarget_report rep0, rep;
    kg_motion *m0 = run(WALK, SAMPLE, &o, &rep0), *m = run(WALK, path, &o, &rep);
    kg_diags d;
    kg_diags_init(&d);
    kg_model *r0 = kg_load(SAMPLE, NULL, &d), *r = kg_load(path, NULL, &d);
    remove(path);
    assert_non_null(r0), assert_non_null(r);
    assert_int_equal(m->nq, m0->nq + 2);
    assert_int_equal(m->nframes, m0->nframes);
    double diff = 0;
    int held = 0;
    for (int j = 0; j < r->njoint; j++) {
        const kg_joint *J = &r->joint[j];
        if (J->nq != 1) continue;
        int j0 = kg_model_joint(r0, J->name);
        for (int f = 0; f < m->nframes; f++) {
            double q = m->q[(size_t)f * m->nq + J->qadr];
            if (j0 < 0) assert_true(q == 0), held += f == 0;
            else diff = fmax(diff, fabs(q - m0->q[(size_t)f * m0->nq + r0->joint[j0].qadr]));
        }
    }
    printf("  two undriven joints: held %d, others within %.1e rad of the sample's, pose p95 %.2f (%.2f)\n", held, diff,
           rep.pose_p95_deg, rep0.pose_p95_deg);
    assert_int_equal(held, 2);
    assert_true(diff <= o.tune.step_tolerance / 3);
    /* and they are no unknowns of the step: six for the root and one per driven column */
    kg_retarget_robot *rr0 = kg_retarget_robot_new(r0, NULL, &d), *rr = kg_retarget_robot_new(r, NULL, &d);
    assert_non_null(rr0), assert_non_null(rr);
    assert_int_equal(rr->nx, rr0->nx);
    int driven = 0;
    for (int c = 0; c < r->dof; c++) driven += rr->xcol[c] >= 0;
    assert_int_equal(rr->nx, 6 + driven);
    for (int j = 0; j < r->njoint; j++)
        if (kg_model_joint(r0, r->joint[j].name) < 0 && r->joint[j].dofadr >= 0)
            assert_int_equal(rr->xcol[r->joint[j].dofadr], -1);
    kg_retarget_robot_free(rr0), kg_retarget_robot_free(rr);
    KG_ASSERT_NEAR(rep.pose_p95_deg, rep0.pose_p95_deg, 0.1);
    kg_model_free(r0), kg_model_free(r);
    kg_diags_clear(&d);
    kg_motion_free(m0), kg_motion_free(m);
    free(text);
}

/* An elbow that bends one way only is twisted to bend the source's way: the
 * sample humanoid with each elbow's frame turned 1.9 rad about the upper arm
 * (bending it now swings the forearm back and out; the shoulder's yaw turns
 * it back by 1.5 rad at most). The segments' directions alone leave a
 * straight arm's twist where it is: the elbow stays straight at its limit and
 * the upper arm turns to point the forearm. With the elbow's task (w_elbow)
 * the arm twists round and bends (6.9 degrees off on the sample walk, arms
 * as built 1.4); without it 11.6. The sample as built is not moved by it. */
static void test_elbow_twist(void **state) {
    (void)state;
    char *text = kg_test_slurp(SAMPLE);
    assert_non_null(text);
    char path[] = "/tmp/kg_elbows_XXXXXX";
    FILE *out = temp_file(path);
    for (const char *t = text; *t;) {
        const char *j = strstr(t, "_elbow\" type=\"revolute\">");
        if (!j) {
            fputs(t, out);
            break;
        }
        const char *o = strstr(j, "rpy=\"0 0 0\"");
        assert_non_null(o);
        fwrite(t, 1, (size_t)(o - t), out);
        fputs(j[-2] == 'l' ? "rpy=\"0 0 1.9\"" : "rpy=\"0 0 -1.9\"", out);
        t = o + strlen("rpy=\"0 0 0\"");
    }
    fclose(out);
    kg_retarget_options on, off;
    kg_retarget_defaults(&on), kg_retarget_defaults(&off);
    off.tune.w_elbow = 0;
    kg_retarget_report r_on, r_off, b_on, b_off;
    kg_motion_free(run(WALK, path, &on, &r_on));
    kg_motion_free(run(WALK, path, &off, &r_off));
    kg_motion_free(run(WALK, SAMPLE, &on, &b_on));
    kg_motion_free(run(WALK, SAMPLE, &off, &b_off));
    remove(path);
    static const int arm[4] = {2, 3, 6, 7}; /* upper arms and forearms (kg_retarget_segment_name) */
    double arm_on = 0, arm_off = 0;
    for (int k = 0; k < 4; k++)
        arm_on += r_on.pose_segment_mean_deg[arm[k]] / 4, arm_off += r_off.pose_segment_mean_deg[arm[k]] / 4;
    double built = 0;
    for (int k = 0; k < 4; k++) built += b_on.pose_segment_mean_deg[arm[k]] / 4;
    printf("  elbows turned 1.9 rad: arms %.1f deg off with the elbow's task, %.1f without, %.1f as built (pose p95 "
           "%.1f, %.1f)\n", arm_on, arm_off, built, b_on.pose_p95_deg, b_off.pose_p95_deg);
    assert_true(arm_on < 0.75 * arm_off);
    KG_ASSERT_NEAR(b_on.pose_p95_deg, b_off.pose_p95_deg, 0.5);
    free(text);
}

/* An arm that ends at its elbow's link (no wrist link: the wrist is a point
 * on the forearm's link) follows the source's forearm: both ends of that
 * segment are on one link, and its direction task was left out (the
 * forearms 18 degrees off on the sample walk, the same as the upper arms
 * now). */
static void test_forearm_one_link(void **state) {
    (void)state;
    kg_retarget_options o;
    kg_retarget_defaults(&o);
    kg_retarget_report rep;
    kg_motion_free(run(WALK, NO_HANDS, &o, &rep));
    double fl = rep.pose_segment_mean_deg[3], fr = rep.pose_segment_mean_deg[7];
    printf("  arms without hands: forearms %.1f and %.1f deg off (upper arms %.1f, %.1f), pose p95 %.1f\n", fl, fr,
           rep.pose_segment_mean_deg[2], rep.pose_segment_mean_deg[6], rep.pose_p95_deg);
    assert_true(fl <= 5 && fr <= 5);
    assert_true(rep.pose_p95_deg <= 15);
}

/* The sample's text with its ankle roll joints made fixed, in place. */
static void fix_ankle_rolls(char *text) {
    for (int side = 0; side < 2; side++) {
        char *j = strstr(text, side ? "<joint name=\"r_ankle_roll\" type=\"revolute\">" : "<joint name=\"l_ankle_roll\" type=\"revolute\">");
        assert_non_null(j);
        memcpy(strstr(j, "\"revolute\""), "\"fixed\"   ", 10); /* type="fixed"   > */
    }
}

/* A robot whose legs cannot roll their feet is told so (a planted foot holds
 * its leg upright sideways: balance then bends the trunk): the sample
 * humanoid with its ankle roll joints fixed; the sample as it is is not. */
static void test_no_ankle_roll(void **state) {
    (void)state;
    char *text = kg_test_slurp(SAMPLE);
    assert_non_null(text);
    kg_diags d0, d1;
    kg_diags_init(&d0), kg_diags_init(&d1);
    kg_model *m0, *m1;
    kg_retarget_robot *full = prepare(text, &d0, &m0);
    fix_ankle_rolls(text);
    kg_retarget_robot *stiff = prepare(text, &d1, &m1);
    assert_non_null(full), assert_non_null(stiff);
    assert_int_equal(diag_count(&d0, "retarget.no_ankle_roll"), 0);
    assert_int_equal(diag_count(&d1, "retarget.no_ankle_roll"), 1);
    kg_retarget_robot_free(full), kg_retarget_robot_free(stiff);
    kg_model_free(m0), kg_model_free(m1);
    kg_diags_clear(&d0), kg_diags_clear(&d1);
    free(text);
}

/* The sample humanoid with its ankle roll joints fixed (its legs cannot roll
 * its feet) and its hips twice as wide (0.2 m each side): a stance a person
 * makes is half its hips' width. */
static char *stiff_wide_sample(void) {
    char *text = kg_test_slurp(SAMPLE);
    assert_non_null(text);
    fix_ankle_rolls(text);
    for (int side = 0; side < 2; side++) {
        char *h = strstr(text, side ? "<joint name=\"r_hip_yaw\"" : "<joint name=\"l_hip_yaw\"");
        assert_non_null(h);
        char *y = strstr(h, side ? "xyz=\"0 -0.1 0\"" : "xyz=\"0 0.1 0\"");
        assert_non_null(y);
        y[side ? 10 : 9] = '2'; /* 0.1 -> 0.2 */
    }
    return text;
}

/* clip onto the stiff wide sample, its feet rolling (the defaults) and held
 * flat (sole_tilt 0): the two reports. */
static void rolled_and_flat(const char *clip_path, kg_retarget_report *rolled, kg_retarget_report *flat) {
    char *text = stiff_wide_sample();
    kg_diags d;
    kg_diags_init(&d);
    kg_motion *clip = NULL;
    kg_model *src = kg_load_clip(clip_path, NULL, &clip, &d), *robot = kg_load_buffer(SAMPLE, text, strlen(text), NULL, &d);
    assert_non_null(src), assert_non_null(clip), assert_non_null(robot);
    for (int k = 0; k < 2; k++) {
        kg_retarget_options o;
        kg_retarget_defaults(&o);
        if (k) o.tune.sole_tilt = 0;
        kg_motion *out = NULL;
        assert_int_equal(kg_retarget(src, clip, robot, &o, &out, k ? flat : rolled, &d), 0);
        kg_motion_free(out);
    }
    printf("  feet that cannot roll, hips 0.4 m apart: rolled: stance slack %.2f mm, slip %.2f mm, pose p95 %.1f; "
           "flat: %.2f mm, %.2f mm, %.1f\n", 1e3 * rolled->slack_max[KG_SLACK_STANCE], rolled->slip_max_mm,
           rolled->pose_p95_deg, 1e3 * flat->slack_max[KG_SLACK_STANCE], flat->slip_max_mm, flat->pose_p95_deg);
    kg_motion_free(clip);
    kg_model_free(src), kg_model_free(robot);
    kg_diags_clear(&d);
    free(text);
}

/* A planted foot its leg cannot roll rolls on its sole's side edge (up to
 * sole_tilt): held flat, two such feet a stance narrower than the hips apart
 * are stood on only with the pelvis turned, and no pose stands on them wider.
 * The stiff wide sample on the sample walk: flat, its stance takes slack
 * (33 mm: the feet slide) and the pose suffers; rolled (as little as
 * w_sole_tilt lets it), no slack, and the pose nearer the source's. */
static void test_sole_tilt(void **state) {
    (void)state;
    kg_retarget_report rolled, flat;
    rolled_and_flat(WALK, &rolled, &flat);
    assert_true(rolled.slack_max[KG_SLACK_STANCE] <= 1e-3);
    assert_true(rolled.slip_max_mm <= 1 && rolled.pose_p95_deg < flat.pose_p95_deg);
    assert_true(flat.slack_max[KG_SLACK_STANCE] >= 0.01 && flat.pose_p95_deg >= 15);
}

/* ... and on a CMU clip that turns on its feet (pivots: a pivoting foot of
 * such a leg may roll down onto its pivot's side): held flat, the feet need
 * stance slack (0.5 mm; they slid 50 mm until a swinging foot passed the
 * standing one on its own side: 1.4 mm), rolled none. */
static void test_sole_tilt_turns(void **state) {
    (void)state;
    KG_REQUIRE_DATA(data);
    char cp[4096];
    snprintf(cp, sizeof cp, "%s/bvh/cmu_iclone/005_02.bvh", data);
    kg_retarget_report rolled, flat;
    rolled_and_flat(cp, &rolled, &flat);
    assert_true(rolled.slack_max[KG_SLACK_STANCE] <= 1e-3 && rolled.slack_max[KG_SLACK_GROUND] <= 1e-3);
    assert_true(rolled.slip_max_mm <= 5);
    assert_true(flat.slack_max[KG_SLACK_STANCE] >= 1e-4);
}

/* tune.predict starts each frame's solve from the last pose moved on by the
 * last frame's change; a frame that then needs slack or the step cap starts
 * again from the last pose. Only the number of steps may change: the motion
 * agrees with the unpredicted one to a few step_tolerance (steps stop when
 * none moves a coordinate by more), and it takes fewer steps. */
static void test_predict(void **state) {
    (void)state;
    kg_retarget_options o;
    kg_retarget_defaults(&o);
    kg_retarget_report r0, r1;
    o.tune.predict = 0;
    kg_motion *a = run(WALK, SAMPLE, &o, &r0);
    o.tune.predict = 1;
    kg_motion *b = run(WALK, SAMPLE, &o, &r1);
    double worst = 0, base = 0;
    for (size_t k = 0; k < (size_t)a->nframes * (size_t)a->nq; k++) worst = fmax(worst, fabs(a->q[k] - b->q[k]));
    for (int f = 0; f < a->nframes; f++)
        for (int k = 0; k < 3; k++) base = fmax(base, fabs(a->base[7 * f + k] - b->base[7 * f + k]));
    printf("  predict: steps per frame %.2f -> %.2f, joints differ by %.2e rad at most, the base by %.2e m\n",
           r0.iterations_mean, r1.iterations_mean, worst, base);
    assert_true(r1.iterations_mean < 0.95 * r0.iterations_mean); /* 2.09 -> 1.89 on this easy walk */
    assert_true(worst < 10 * o.tune.step_tolerance);
    assert_true(base < 10 * o.tune.step_tolerance);
    assert_bars(&r1);
    kg_motion_free(a);
    kg_motion_free(b);
}

/* The two foot weights apart: w_pivot weighs a pivoting planted foot's
 * heading and nothing else, w_landing a landing foot's pose. The sample walk
 * has no pivoting contact: w_pivot leaves its output the same to the byte,
 * w_landing does not. */
static void test_pivot_weight(void **state) {
    (void)state;
    kg_retarget_options o;
    kg_retarget_defaults(&o);
    kg_retarget_report r;
    kg_motion *base = run(WALK, SAMPLE, &o, &r);
    o.tune.w_pivot = 1;
    kg_motion *pivot = run(WALK, SAMPLE, &o, &r);
    assert_same_motion(pivot, base);
    kg_retarget_defaults(&o);
    o.tune.w_landing = 1;
    kg_motion *landing = run(WALK, SAMPLE, &o, &r);
    assert_int_equal(landing->nframes, base->nframes);
    assert_true(memcmp(landing->q, base->q, (size_t)base->nframes * (size_t)base->nq * sizeof *base->q) != 0);
    kg_motion_free(base), kg_motion_free(pivot), kg_motion_free(landing);
}

/* ... and on a CMU clip that turns on its feet, w_pivot changes the output. */
/* rt_heading: a frame turned by yaw, then pitched and rolled. Pitched or
 * rolled alone it reads the yaw exactly; pitched and rolled together it moves
 * smoothly as the pitch grows to nearly vertical (reading whichever axis lies
 * nearer the ground jumped 0.3-0.6 rad where the two axes' ground shadows
 * crossed). */
static void test_heading_continuous(void **state) {
    (void)state;
    const double yaw = -1.9, roll = 0.35, z[3] = {0, 0, 1}, y[3] = {0, 1, 0}, x[3] = {1, 0, 0};
    double Z[9], P[9], X[9], ZP[9], R[9], prev = NAN;
    kg_rot_axis_angle(Z, z, yaw);
    for (int deg = 0; deg <= 85; deg++) {
        kg_rot_axis_angle(P, y, deg * KG_PI / 180);
        kg_mat3_mul(ZP, Z, P);
        KG_ASSERT_NEAR(rt_heading(ZP), yaw, 1e-12); /* pitched only */
        kg_rot_axis_angle(X, x, deg * KG_PI / 180);
        kg_mat3_mul(R, Z, X);
        KG_ASSERT_NEAR(rt_heading(R), yaw, 1e-12); /* rolled only */
        kg_rot_axis_angle(X, x, roll);
        kg_mat3_mul(R, ZP, X);
        double h = rt_heading(R);
        if (deg > 0) assert_true(fabs(remainder(h - prev, 2 * KG_PI)) < 0.02); /* under 1.2 deg per degree of pitch */
        prev = h;
    }
}

static void test_pivot_weight_turns(void **state) {
    (void)state;
    KG_REQUIRE_DATA(data);
    kg_retarget_options o;
    kg_retarget_report r;
    char cp[4096];
    snprintf(cp, sizeof cp, "%s/bvh/cmu_iclone/005_02.bvh", data);
    kg_retarget_defaults(&o);
    kg_motion *a = run(cp, SAMPLE, &o, &r);
    o.tune.w_pivot = 1;
    kg_motion *b = run(cp, SAMPLE, &o, &r);
    assert_int_equal(b->nframes, a->nframes);
    assert_true(memcmp(a->q, b->q, (size_t)a->nframes * (size_t)a->nq * sizeof *a->q) != 0);
    kg_motion_free(a), kg_motion_free(b);
}

/* The body stays above the ground, not only the feet: a crouching boxer's
 * hands reached 107 mm into the floor on the sample humanoid (its arms are
 * longer for its legs than a person's). Every collision shape but the feet's,
 * over the whole output, at most 1 mm below the ground. */
static void test_body_above_ground(void **state) {
    (void)state;
    KG_REQUIRE_DATA(data);
    char cp[4096];
    snprintf(cp, sizeof cp, "%s/bvh/assimp_misc/Boxing_Toes.bvh", data);
    kg_retarget_options o;
    kg_retarget_defaults(&o);
    kg_retarget_report rep;
    kg_motion *out = run(cp, SAMPLE, &o, &rep);
    posed P;
    posed_open(&P, SAMPLE);
    double low = INFINITY;
    for (int f = 0; f < out->nframes; f++) {
        posed_frame(&P, out, f);
        low = fmin(low, body_lowest(&P));
    }
    printf("  the body's lowest point but the feet: %.2f mm\n", low * 1e3);
    assert_true(low >= -1e-3);
    posed_close(&P);
    kg_motion_free(out);
}

/* A source that sits down on the floor (a boxer knocked down, on the clip's
 * frames 2420-2780) seats the robot: on the frames the report counts as
 * seated, the robot's body (its feet apart) is within 2 cm of the ground (the
 * report's near-ground height: the robot sits where the source sits, its
 * pelvis as high as the source's), and those frames are counted. */
static void test_seated(void **state) {
    (void)state;
    KG_REQUIRE_DATA(data);
    char cp[4096];
    snprintf(cp, sizeof cp, "%s/bvh/assimp_misc/Boxing_Toes.bvh", data);
    kg_retarget_options o;
    kg_retarget_defaults(&o);
    kg_retarget_report rep;
    kg_diags d;
    kg_diags_init(&d);
    kg_motion *clip = NULL;
    kg_model *src = kg_load_clip(cp, NULL, &clip, &d);
    assert_true(src && clip);
    unsigned *flags = calloc((size_t)clip->nframes + 1, sizeof *flags); /* one per clip frame */
    assert_non_null(flags);
    kg_motion_free(clip), kg_model_free(src), kg_diags_clear(&d);
    o.frame_flags = flags;
    kg_motion *out = run(cp, SAMPLE, &o, &rep);
    posed P;
    posed_open(&P, SAMPLE);
    int seated = 0, down = 0;
    for (int f = 0; f < out->nframes; f++) {
        if (!(flags[f] & KG_FRAME_SEATED)) continue;
        posed_frame(&P, out, f);
        seated++, down += body_lowest(&P) < 0.02;
    }
    printf("  seated on %d frames (report %d): the body on the ground on %d\n", seated, rep.seated_frames, down);
    assert_int_equal(seated, rep.seated_frames);
    assert_true(seated >= 300);
    assert_true(down >= 0.95 * seated);
    posed_close(&P);
    kg_motion_free(out);
    free(flags);
}

#define LOW_FRACTION 0.6 /* a root or pelvis below this part of its first frame's height is low */
#define LOW_MARGIN 0.5   /* s: a robot fell when its root is low this much longer than the source's pelvis */

/* Below LOW_FRACTION of its first frame's height: the robot's root on *robot
 * frames, the source's pelvis on *source frames, read from a trace. */
static void root_low_frames(FILE *trace, int *robot, int *source) {
    char line[8192];
    rewind(trace);
    assert_non_null(fgets(line, sizeof line, trace)); /* the header */
    double src0 = NAN, root0 = NAN;
    *robot = *source = 0;
    while (fgets(line, sizeof line, trace)) {
        double src = trace_col(line, 5), root = trace_col(line, 10);
        if (isnan(src0)) src0 = src, root0 = root;
        *source += src < LOW_FRACTION * src0, *robot += root < LOW_FRACTION * root0;
    }
}

/* The frames whose trace column `name` reads 1. */
static int trace_ones(FILE *trace, const char *name) {
    char line[8192];
    rewind(trace);
    assert_non_null(fgets(line, sizeof line, trace));
    int col = 0, n = 0;
    for (const char *c = line; strncmp(c, name, strlen(name)) || (c[strlen(name)] != ',' && c[strlen(name)] != '\n');
         c = strchr(c, ',') + 1, col++)
        assert_non_null(strchr(c, ','));
    while (fgets(line, sizeof line, trace)) n += trace_col(line, col) == 1;
    return n;
}

/* A dance of 63 s on two humanoids that fell on it: a foot the source put
 * down hung a centimetre or two up (at 30 frames/s, lifted by the other
 * foot's push-off) and was never pinned, and the source then lifted its
 * other foot (one robot's root below 0.6 of its height on 1 326 frames, the
 * source's pelvis on 44; the other's on 312 on some runs with w_damping
 * changed in its tenth digit: bench/retarget_robustness.sh). The robot's root
 * is that low at most LOW_MARGIN longer than the source's pelvis is: a fall
 * the robot stays in, counted over the clip. (The report's hips_low_frames counts
 * the frames the hips are low against the source's at the same frame, which
 * also sees collapses of a few frames; on these chaotic runs its count moves
 * with the build, so it is not asserted here.) */
static void test_dance_no_fall(void **state) {
    (void)state;
    KG_REQUIRE_DATA(data);
    static const char *robots[] = {
        "simple_humanoid/example-robot-data/robots/simple_humanoid_description/urdf/simple_humanoid.urdf",
        "romeo/example-robot-data/robots/romeo_description/urdf/romeo.urdf"};
    char cp[4096], rp[4096];
    snprintf(cp, sizeof cp, "%s/bvh/bandai_namco/dataset-1_dance-short_normal_001.bvh", data);
    for (int k = 0; k < 2; k++) {
        snprintf(rp, sizeof rp, "%s/urdf/%s", data, robots[k]);
        kg_retarget_options o;
        kg_retarget_defaults(&o);
        kg_retarget_report rep;
        FILE *trace;
        kg_motion *out = run_traced(cp, rp, &o, &rep, &trace);
        int robot, source;
        root_low_frames(trace, &robot, &source);
        printf("  %s: below %.1f of the first frame's height: the source's pelvis on %d frames, the root on %d; "
               "pose p95 %.1f deg\n", robots[k], LOW_FRACTION, source, robot, rep.pose_p95_deg);
        assert_true(robot <= source + LOW_MARGIN / out->frame_time);
        /* the trace's uncaught frames are the report's (both robots have some on this dance) */
        assert_int_equal(trace_ones(trace, "uncaught"), rep.balance_uncaught_frames);
        assert_true(rep.balance_uncaught_frames > 0);
        fclose(trace);
        kg_motion_free(out);
    }
}

/* A foot whose own link is only drawn (its collision shapes sit on the ankle's
 * pitch link, above the drawn sole) stands on its drawn sole, and pushing off
 * keeps its drawn toe above the ground: one maker's humanoid whose right
 * foot's curved toe reaches 4.5 cm ahead of its flat sole, rolled about that
 * sole's front edge, went 10-37 mm into the ground; standing on the cylinders
 * it turned on a point 11 mm from its drawn sole's touching points, which
 * slid 19 mm over a stance of the CMU clip. Over that clip and a walk in
 * circles: the right foot's drawn shapes at most roll_depth below the ground,
 * and the slip of the drawn sole (the report's, the sole it now stands on). */
static void test_drawn_toe_push_off(void **state) {
    (void)state;
    KG_REQUIRE_DATA(data);
    static const char *clips[] = {"animated_drawings/animate/Data/BVH/sst/walk_circle.bvh", "cmu_iclone/005_02.bvh"};
    char rp[4096];
    snprintf(rp, sizeof rp, "%s/urdf/fourier_gr3/GRX/GR3/gr3v2_1_1/basic_urdf/gr3v2_1_1.urdf", data);
    kg_retarget_options o;
    kg_retarget_defaults(&o);
    posed P;
    posed_open(&P, rp);
    assert_int_equal(diag_count(&P.d, "retarget.visual_sole"), 1);
    assert_true(P.rr->nfoot_drawn[1] > 0);
    for (size_t c = 0; c < sizeof clips / sizeof *clips; c++) {
        char cp[4096];
        snprintf(cp, sizeof cp, "%s/bvh/%s", data, clips[c]);
        kg_retarget_report rep;
        kg_motion *out = run(cp, rp, &o, &rep);
        double low = INFINITY;
        for (int f = 0; f < out->nframes; f++) {
            posed_frame(&P, out, f);
            for (int k = 0; k < P.rr->nfoot_drawn[1]; k++) {
                double p[3];
                low = fmin(low, rt_convex_lowest(&P.rr->foot_drawn[1][k], P.kd, p));
            }
        }
        printf("  %s: the drawn right foot's lowest point %.2f mm; slip %.2f mm\n", clips[c], low * 1e3,
               rep.slip_max_mm);
        assert_true(low >= -o.tune.roll_depth - 1e-4); /* rolling, down to roll_depth; else on or above */
        assert_true(rep.slip_max_mm <= 5.0);
        kg_motion_free(out);
    }
    posed_close(&P);
}

/* Every target met at once is a row of equality each: two planted feet (6
 * each) and the COM (2). The step had room for the feet only, and a heavy
 * stance slack weight (the feet always met) wrote past it: the heap corrupted
 * on Romeo and NAO (glibc aborted). The run ends, its motion whole. */
static void test_all_targets_met(void **state) {
    (void)state;
    KG_REQUIRE_DATA(data);
    char cp[4096], rp[4096];
    snprintf(cp, sizeof cp, "%s/bvh/cmu_iclone/007_01.bvh", data);
    snprintf(rp, sizeof rp, "%s/urdf/romeo/example-robot-data/robots/romeo_description/urdf/romeo.urdf", data);
    kg_retarget_options o;
    kg_retarget_defaults(&o);
    o.tune.w_slack[KG_SLACK_STANCE] = 1e9;
    kg_retarget_report rep;
    kg_motion *out = run(cp, rp, &o, &rep);
    assert_int_equal(out->nframes, rep.frames);
    for (size_t i = 0; i < (size_t)out->nframes * (size_t)out->nq; i++) assert_true(isfinite(out->q[i]));
    kg_motion_free(out);
}

static void test_preview_gains(void **state) {
    (void)state;
    /* the digest's derived gains (Q 1, R 1e-6, z_c 800 mm, g 9806.65 mm/s^2) */
    kg_preview p;
    assert_int_equal(kg_preview_init(&p, 0.1, 800, 9806.65, 1, 1e-6, 16), 0);
    const double K[4] = {84.5596, 572.283, 222.269, 20.0882}, f[5] = {-57.1387, 37.9951, 31.7298, 21.4569, 14.9748};
    for (int i = 0; i < 4; i++) KG_ASSERT_NEAR(p.K[i], K[i], 1e-4 * fabs(K[i]));
    for (int i = 0; i < 5; i++) KG_ASSERT_NEAR(p.f[i], f[i], 1e-4 * fabs(f[i]));
    KG_ASSERT_NEAR(p.f[15], 1.05353, 1e-4);
    double sum = 0;
    for (int i = 0; i < 16; i++) sum += p.f[i];
    KG_ASSERT_NEAR(sum, p.K[0], 1e-6 * p.K[0]); /* constant references are tracked exactly */
    kg_preview_free(&p);
    /* dt 0.01, N 160, in metres: the same gains (they do not depend on the length unit) */
    assert_int_equal(kg_preview_init(&p, 0.01, 0.8, 9.80665, 1, 1e-6, 160), 0);
    KG_ASSERT_NEAR(p.K[0], 500.228, 1e-3);
    KG_ASSERT_NEAR(p.K[1], 29442.4, 0.5);
    KG_ASSERT_NEAR(p.f[0], -204.088, 1e-3);
    KG_ASSERT_NEAR(p.f[159], 3.99201, 1e-4);
    /* a ZMP step of 10 cm at t = 1 s: the COM moves before it (preview) and settles on it */
    kg_preview_axis a;
    kg_preview_axis_start(&p, &a, 0);
    double ref[161], moved_early = 0;
    for (int k = 0; k < 400; k++) {
        for (int j = 0; j <= 160; j++) ref[j] = (k + j) >= 100 ? 0.1 : 0;
        kg_preview_axis_step(&p, &a, ref);
        if (k == 95) moved_early = a.x[0];
    }
    assert_true(moved_early > 0.005);
    KG_ASSERT_NEAR(a.x[0], 0.1, 1e-4);
    KG_ASSERT_NEAR(a.zmp, 0.1, 1e-4);
    kg_preview_free(&p);
    /* the ZMP a 30 Hz sampled COM shows (second differences) across a 10 cm step
     * with no time between feet: 17 mm off the step at worst for the controller
     * of the state's ZMP, 4 mm for the one of the sampled ZMP */
    for (int sampled = 0; sampled < 2; sampled++) {
        const double dt = 1.0 / 30, zc = 0.6, g = 9.80665;
        assert_int_equal((sampled ? kg_preview_init_sampled : kg_preview_init)(&p, dt, zc, g, 1, 1e-8, 30), 0);
        kg_preview_axis_start(&p, &a, 0);
        double c[200], worst = 0;
        for (int k = 0; k < 200; k++) {
            c[k] = a.x[0];
            for (int j = 0; j <= 30; j++) ref[j] = (k + j) >= 60 ? 0.1 : 0;
            kg_preview_axis_step(&p, &a, ref);
        }
        for (int k = 1; k < 199; k++) {
            double z = c[k] - zc / g * (c[k + 1] - 2 * c[k] + c[k - 1]) / (dt * dt);
            worst = fmax(worst, fabs(z - (k >= 60 ? 0.1 : 0)));
        }
        KG_ASSERT_NEAR(c[199], 0.1, 1e-6);
        if (sampled) assert_true(worst < 0.005);
        else assert_true(worst > 0.015);
        kg_preview_free(&p);
    }
}

/* A box polygon [x0, x1] x [y0, y1], counter-clockwise. */
static void box_poly(kg_zmp_poly *q, double x0, double x1, double y0, double y1) {
    const double v[4][2] = {{x0, y0}, {x1, y0}, {x1, y1}, {x0, y1}};
    q->n = 4;
    memcpy(q->v, v, sizeof v);
}

/* One axis of the window problem over boxes, solved apart from the library's
 * Newton: p_j = clamp(r_j + w_j m) with m by bisection on the monotone sum. */
static double window_axis_bisect(const double *w, int n, const double *r, const double *lo, const double *hi, double U) {
    double a = -100, b = 100;
    for (int it = 0; it < 200; it++) {
        double m = (a + b) / 2, sum = 0;
        for (int j = 0; j < n; j++) sum += w[j] * fmin(fmax(r[j] + w[j] * m, lo[j]), hi[j]);
        if (sum < U) a = m;
        else b = m;
    }
    double m = (a + b) / 2;
    return fmin(fmax(r[0] + w[0] * m, lo[0]), hi[0]);
}

static void test_zmp_window(void **state) {
    (void)state;
    const double dt = 1.0 / 30, zc = 0.6, g = 9.80665;
    kg_zmp_window z;
    assert_int_equal(kg_zmp_window_init(&z, dt, zc, g, 30), 0);
    /* shrinking: a 10 x 20 cm sole by 1.5 cm is 7 x 17 cm; by 6 cm, its centre */
    kg_zmp_poly q, sole;
    const double rect[4][2] = {{0, 0}, {0.2, 0}, {0.2, 0.1}, {0, 0.1}};
    kg_zmp_poly_shrink(rect, 4, 0.015, &q);
    assert_int_equal(q.n, 4);
    KG_ASSERT_NEAR(q.v[0][0], 0.015, 1e-12);
    KG_ASSERT_NEAR(q.v[0][1], 0.015, 1e-12);
    KG_ASSERT_NEAR(q.v[2][0], 0.185, 1e-12);
    KG_ASSERT_NEAR(q.v[2][1], 0.085, 1e-12);
    /* a 10 x 10 cm square with one corner cut by 2 mm: by 5 mm, the cut's edge vanishes and
     * the rest is the 9 x 9 cm square (not the centroid) */
    const double cut[5][2] = {{0, 0}, {0.098, 0}, {0.1, 0.002}, {0.1, 0.1}, {0, 0.1}};
    kg_zmp_poly_shrink(cut, 5, 0.005, &q);
    assert_int_equal(q.n, 4);
    for (int i = 0; i < 4; i++) {
        assert_true(fabs(q.v[i][0] - 0.005) < 1e-12 || fabs(q.v[i][0] - 0.095) < 1e-12);
        assert_true(fabs(q.v[i][1] - 0.005) < 1e-12 || fabs(q.v[i][1] - 0.095) < 1e-12);
    }
    kg_zmp_poly_shrink(rect, 4, 0.06, &q);
    assert_int_equal(q.n, 1);
    KG_ASSERT_NEAR(q.v[0][0], 0.1, 1e-12);
    KG_ASSERT_NEAR(q.v[0][1], 0.05, 1e-12);
    /* feet changing from a sole around x = 0 to one around x = 0.1 at frame 60 with no time
     * between them, the references at their middles: every ZMP the sampled COM shows is
     * inside its sole (exactly the solved one), and the COM settles on the second */
    kg_zmp_poly feet[2];
    box_poly(&feet[0], -0.04, 0.04, -0.03, 0.03), box_poly(&feet[1], 0.06, 0.14, -0.03, 0.03);
    double refs[30][2], c_prev[2], c[2] = {0, 0}, m[2] = {0, 0}, cs[301], ps[301];
    const kg_zmp_poly *polys[30];
    for (int k = 0; k <= 300; k++) {
        for (int j = 0; j < 30; j++) {
            int second = k + j >= 60;
            refs[j][0] = second ? 0.1 : 0, refs[j][1] = 0, polys[j] = &feet[second];
        }
        if (k == 0) kg_zmp_window_start(&z, c, (const double(*)[2])refs, c_prev);
        double p[2];
        cs[k] = c[0];
        assert_int_equal(kg_zmp_window_solve(&z, c_prev, c, (const double(*)[2])refs, polys, m, p), 1);
        ps[k] = p[0];
        const kg_zmp_poly *here = &feet[k >= 60];
        assert_true(p[0] >= here->v[0][0] - 1e-12 && p[0] <= here->v[1][0] + 1e-12);
        kg_zmp_window_advance(&z, c_prev, c, p);
    }
    for (int k = 1; k < 300; k++)
        KG_ASSERT_NEAR(cs[k] - zc / g * (cs[k + 1] - 2 * cs[k] + cs[k - 1]) / (dt * dt), ps[k], 1e-9);
    KG_ASSERT_NEAR(cs[300], 0.1, 1e-6);
    /* the first ZMP against the problem solved per axis by bisection (boxes separate the
     * axes), the COM moving across windows of mixed soles */
    box_poly(&sole, -0.05, 0.05, -0.1, 0.1);
    for (int trial = 0; trial < 20; trial++) {
        double r[30][2], lo[2][30], hi[2][30], rx[2][30], cp[2], cc[2] = {0.002 * trial, 0.01}, mm[2] = {0, 0}, p[2];
        kg_zmp_poly boxes[30];
        for (int j = 0; j < 30; j++) {
            double x0 = 0.02 * ((j * 7 + trial) % 5) - 0.04, y0 = 0.03 * ((j * 3 + trial) % 4) - 0.06;
            box_poly(&boxes[j], x0, x0 + 0.08, y0, y0 + 0.06);
            polys[j] = &boxes[j];
            r[j][0] = x0 + 0.04 + 0.01 * (j % 3), r[j][1] = y0 + 0.03;
            lo[0][j] = x0, hi[0][j] = x0 + 0.08, lo[1][j] = y0, hi[1][j] = y0 + 0.06;
            rx[0][j] = r[j][0], rx[1][j] = r[j][1];
        }
        cp[0] = cc[0] - 0.05 * dt, cp[1] = cc[1] - 0.01 * dt;
        double U[2] = {(cc[0] - cp[0] / z.l) * z.l / z.a, (cc[1] - cp[1] / z.l) * z.l / z.a};
        assert_int_equal(kg_zmp_window_solve(&z, cp, cc, (const double(*)[2])r, polys, mm, p), 1);
        for (int a = 0; a < 2; a++) KG_ASSERT_NEAR(p[a], window_axis_bisect(z.w, 30, rx[a], lo[a], hi[a], U[a]), 1e-9);
    }
    /* beyond what the soles can catch (3 m/s sideways): not met, the ZMPs at the sole's far
     * edge, and the velocity changed so that they meet it */
    for (int j = 0; j < 30; j++) refs[j][0] = refs[j][1] = 0, polys[j] = &sole;
    c[0] = c[1] = 0, c_prev[0] = 0, c_prev[1] = -3 * dt, m[0] = m[1] = 0;
    double p[2];
    assert_int_equal(kg_zmp_window_solve(&z, c_prev, c, (const double(*)[2])refs, polys, m, p), 0);
    KG_ASSERT_NEAR(p[1], 0.1, 1e-9);
    assert_int_equal(kg_zmp_window_solve(&z, c_prev, c, (const double(*)[2])refs, polys, m, p), 1);
    kg_zmp_window_free(&z);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_predict), cmocka_unit_test(test_preview_gains), cmocka_unit_test(test_zmp_window),
        cmocka_unit_test(test_retarget_sample),
        cmocka_unit_test(test_retarget_prepared),
        cmocka_unit_test(test_frame_rate_max),
        cmocka_unit_test(test_tuning_values),
        cmocka_unit_test(test_tuning_readme),
        cmocka_unit_test(test_visual_sole),
        cmocka_unit_test(test_retarget_corpus),
        cmocka_unit_test(test_push_off),
        cmocka_unit_test(test_no_scuff),
        cmocka_unit_test(test_first_frame_pins),
        cmocka_unit_test(test_contacts_scale_free),
        cmocka_unit_test(test_cut_catch_up),
        cmocka_unit_test(test_stuck_limb),
        cmocka_unit_test(test_sole_beside),
        cmocka_unit_test(test_ankle_hinges_at_one_point),
        cmocka_unit_test(test_foot_frame_turned),
        cmocka_unit_test(test_map_points),
        cmocka_unit_test(test_toe_joint),
        cmocka_unit_test(test_model_turned),
        cmocka_unit_test(test_undriven_held),
        cmocka_unit_test(test_seated),
        cmocka_unit_test(test_dance_no_fall),
        cmocka_unit_test(test_forearm_one_link),
        cmocka_unit_test(test_elbow_twist),
        cmocka_unit_test(test_no_ankle_roll), cmocka_unit_test(test_sole_tilt), cmocka_unit_test(test_sole_tilt_turns),
        cmocka_unit_test(test_body_above_ground), cmocka_unit_test(test_drawn_toe_push_off), cmocka_unit_test(test_all_targets_met),
        cmocka_unit_test(test_pivot_weight), cmocka_unit_test(test_pivot_weight_turns), cmocka_unit_test(test_heading_continuous), cmocka_unit_test(test_feet_levelled), cmocka_unit_test(test_root_sprint), cmocka_unit_test(test_root_spin), cmocka_unit_test(test_landing_aside), cmocka_unit_test(test_floor_ramp),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
