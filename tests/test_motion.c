/* kg_motion_resample (core/motion.h): linear coordinates interpolated exactly,
 * quaternions slerped along the shorter arc, frames on the new grid kept bit
 * for bit, mimic followers recomputed, bad rates refused. kg_motion_lowpass:
 * a sinusoid scaled by the Butterworth gain computed here, jitter at half the
 * frame rate removed, ramps and constant turns kept to the ends. */
#include "testutil.h"

#include <stdlib.h>
#include <string.h>

#include "core/motion.h"
#include "core/spatial.h"

/* A floating body carrying a revolute joint and its mimic follower
 * (follower = 2 * leader + 0.1) and a prismatic one. q: free x y z qw qx qy qz,
 * lead, follow, slide. */
static const char robot_urdf[] =
    "<robot name=\"r\">\n"
    "  <link name=\"world\"/><link name=\"body\"/><link name=\"a\"/><link name=\"b\"/><link name=\"c\"/>\n"
    "  <joint name=\"free\" type=\"floating\"><parent link=\"world\"/><child link=\"body\"/></joint>\n"
    "  <joint name=\"lead\" type=\"revolute\"><parent link=\"body\"/><child link=\"a\"/><axis xyz=\"0 0 1\"/>\n"
    "    <limit lower=\"-100\" upper=\"100\" effort=\"1\" velocity=\"100\"/></joint>\n"
    "  <joint name=\"follow\" type=\"revolute\"><parent link=\"body\"/><child link=\"b\"/><axis xyz=\"0 1 0\"/>\n"
    "    <limit lower=\"-300\" upper=\"300\" effort=\"1\" velocity=\"300\"/>\n"
    "    <mimic joint=\"lead\" multiplier=\"2\" offset=\"0.1\"/></joint>\n"
    "  <joint name=\"slide\" type=\"prismatic\"><parent link=\"body\"/><child link=\"c\"/><axis xyz=\"1 0 0\"/>\n"
    "    <limit lower=\"-100\" upper=\"100\" effort=\"1\" velocity=\"100\"/></joint>\n"
    "</robot>\n";

#define FPS_SOURCE 30.0
#define ROOT_QUAT 3  /* the root's quaternion in a base pose (x y z qw qx qy qz) */
#define TOL 1e-12    /* a few roundings of values of order 10 */

typedef struct coords {
    int free, lead, follow, slide; /* qadr */
} coords;

static kg_model *robot(coords *c) {
    kg_diags d;
    kg_diags_init(&d);
    kg_model *m = kg_test_load_string("r.urdf", robot_urdf, &d);
    if (kg_diags_count(&d, KG_ERROR)) kg_test_print_diags(&d);
    kg_diags_clear(&d);
    assert_non_null(m);
    assert_int_equal(m->nq, 10);
    c->free = m->joint[kg_model_joint(m, "free")].qadr;
    c->lead = m->joint[kg_model_joint(m, "lead")].qadr;
    c->follow = m->joint[kg_model_joint(m, "follow")].qadr;
    c->slide = m->joint[kg_model_joint(m, "slide")].qadr;
    assert_int_equal(m->joint[kg_model_joint(m, "free")].type, KG_JOINT_FLOATING);
    return m;
}

/* A unit quaternion turned by angle about z, negated when flip (the same turn:
 * slerp must take the shorter arc between a frame and a flipped neighbour). */
static void turn_z(double angle, int flip, double *q) {
    double s = flip ? -1 : 1;
    q[0] = s * cos(angle / 2), q[1] = 0, q[2] = 0, q[3] = s * sin(angle / 2);
}

/* The frames of the tests: every coordinate linear in time (t = frame time
 * times f), the quaternions turning at constant rates about z, flipped every
 * other frame. */
#define LEAD0 0.3
#define LEAD_RATE (-0.7)  /* rad/s */
#define SLIDE0 (-1.25)
#define SLIDE_RATE 2.5    /* m/s */
#define POS_RATE 1.5      /* m/s, the root's and the free joint's positions */
#define ROOT_TURN 15.0    /* rad/s: half a radian a frame at 30 frames/s, where nlerp errs by 1e-3 */
#define FREE_TURN (-4.0)  /* rad/s */

static kg_motion *clip(const kg_model *m, const coords *c, int frames, double frame_time) {
    kg_motion *mo = kg_motion_new(m->nq, frame_time, (size_t)frames);
    mo->base = malloc((size_t)frames * 7 * sizeof(double));
    for (int f = 0; f < frames; f++) {
        double t = f * frame_time, *q = kg_motion_append(mo, NULL), *b = mo->base + 7 * f;
        memcpy(q, m->q_default, (size_t)m->nq * sizeof(double));
        q[c->free] = POS_RATE * t, q[c->free + 1] = 1, q[c->free + 2] = -POS_RATE * t;
        turn_z(FREE_TURN * t, f % 2, q + c->free + 3);
        q[c->lead] = LEAD0 + LEAD_RATE * t;
        q[c->slide] = SLIDE0 + SLIDE_RATE * t;
        kg_apply_mimic(m, q);
        b[0] = -POS_RATE * t, b[1] = 0.5, b[2] = POS_RATE * t;
        turn_z(ROOT_TURN * t, (f + 1) % 2, b + ROOT_QUAT);
    }
    return mo;
}

/* q equals p, or -p (the same turn), to TOL. */
static void assert_same_turn(const double *q, const double *p) {
    double plus = 0, minus = 0;
    for (int k = 0; k < 4; k++) plus = fmax(plus, fabs(q[k] - p[k])), minus = fmax(minus, fabs(q[k] + p[k]));
    if (!(fmin(plus, minus) <= TOL))
        fail_msg("quaternion %.17g %.17g %.17g %.17g, expected +-(%.17g %.17g %.17g %.17g)", q[0], q[1], q[2], q[3],
                 p[0], p[1], p[2], p[3]);
}

/* Frame k of r holds the clip's values at t = k / fps. */
static void assert_frame_at(const kg_model *m, const coords *c, const kg_motion *r, int k, double fps) {
    double t = k / fps, e[4];
    const double *q = r->q + (size_t)k * m->nq, *b = r->base + 7 * (size_t)k;
    KG_ASSERT_NEAR(q[c->free], POS_RATE * t, TOL);
    KG_ASSERT_NEAR(q[c->free + 1], 1, TOL);
    KG_ASSERT_NEAR(q[c->free + 2], -POS_RATE * t, TOL);
    KG_ASSERT_NEAR(q[c->lead], LEAD0 + LEAD_RATE * t, TOL);
    KG_ASSERT_NEAR(q[c->slide], SLIDE0 + SLIDE_RATE * t, TOL);
    assert_true(q[c->follow] == 2 * q[c->lead] + 0.1); /* recomputed from the leader */
    KG_ASSERT_NEAR(b[0], -POS_RATE * t, TOL);
    KG_ASSERT_NEAR(b[1], 0.5, TOL);
    KG_ASSERT_NEAR(b[2], POS_RATE * t, TOL);
    turn_z(FREE_TURN * t, 0, e);
    assert_same_turn(q + c->free + 3, e);
    turn_z(ROOT_TURN * t, 0, e);
    assert_same_turn(b + ROOT_QUAT, e);
}

/* Up (60, 90), down (10) and by an uneven ratio (45, 12.5): the values of the
 * linear motion and the angles of the turning ones at every new frame. */
static void test_values(void **state) {
    (void)state;
    coords c;
    kg_model *m = robot(&c);
    const int frames = 31; /* one second */
    kg_motion *mo = clip(m, &c, frames, 1 / FPS_SOURCE);
    mo->start_time = 0.25;
    const double rates[] = {60, 90, 10, 45, 12.5};
    const int expect[] = {61, 91, 11, 46, 13}; /* 12.5: 12 / 12.5 s is the last before 1 s */
    for (size_t i = 0; i < sizeof rates / sizeof *rates; i++) {
        kg_motion *r = kg_motion_resample(m, mo, rates[i]);
        assert_non_null(r);
        assert_int_equal(r->nframes, expect[i]);
        assert_int_equal(r->nq, m->nq);
        assert_true(r->frame_time == 1 / rates[i]);
        assert_true(r->start_time == 0.25);
        assert_non_null(r->base);
        for (int k = 0; k < r->nframes; k++) assert_frame_at(m, &c, r, k, rates[i]);
        kg_motion_free(r);
    }
    kg_motion_free(mo);
    kg_model_free(m);
}

/* The frames the new grid shares with the old are the old ones, bit for bit
 * (30 -> 60: every other; 30 -> 90: every third); at the clip's own rate every
 * frame is; and so with a frame time written to seven decimals (BVH's
 * 0.0333333 for 1/30 s) at 30 frames/s. */
static void test_frames_kept(void **state) {
    (void)state;
    coords c;
    kg_model *m = robot(&c);
    const double frame_times[] = {1 / FPS_SOURCE, 0.0333333};
    for (int ft = 0; ft < 2; ft++) {
        kg_motion *mo = clip(m, &c, 120, frame_times[ft]);
        /* values no formula reproduces, so that only a copy is bit-exact */
        for (int f = 0; f < mo->nframes; f++) mo->q[f * m->nq + c.slide] += sin(1e3 * f) * 1e-3;
        const double rates[] = {60, 90, 1 / frame_times[ft], FPS_SOURCE};
        const int every[] = {2, 3, 1, 1};
        for (size_t i = 0; i < sizeof rates / sizeof *rates; i++) {
            kg_motion *r = kg_motion_resample(m, mo, rates[i]);
            assert_non_null(r);
            assert_int_equal(r->nframes, (mo->nframes - 1) * every[i] + 1); /* the last frame too */
            for (int f = 0; f < mo->nframes; f++) {
                int k = f * every[i];
                assert_memory_equal(r->q + (size_t)k * m->nq, mo->q + (size_t)f * m->nq, m->nq * sizeof(double));
                assert_memory_equal(r->base + 7 * (size_t)k, mo->base + 7 * (size_t)f, 7 * sizeof(double));
            }
            kg_motion_free(r);
        }
        kg_motion_free(mo);
    }
    kg_model_free(m);
}

/* Bad rates, a motion of another model, and the edge cases of length. */
static void test_edges(void **state) {
    (void)state;
    coords c;
    kg_model *m = robot(&c);
    kg_motion *mo = clip(m, &c, 4, 1 / FPS_SOURCE);
    const double bad[] = {0, -30, NAN, INFINITY, -INFINITY, 1e300};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) assert_null(kg_motion_resample(m, mo, bad[i]));
    mo->nq--;
    assert_null(kg_motion_resample(m, mo, 60));
    mo->nq++;
    mo->frame_time = 0;
    assert_null(kg_motion_resample(m, mo, 60)); /* several frames, no time between them */
    mo->nframes = 1;                            /* one frame: no time needed, the frame kept */
    kg_motion *r = kg_motion_resample(m, mo, 60);
    assert_non_null(r);
    assert_int_equal(r->nframes, 1);
    assert_memory_equal(r->q, mo->q, m->nq * sizeof(double));
    kg_motion_free(r);
    mo->nframes = 0;
    r = kg_motion_resample(m, mo, 60);
    assert_non_null(r);
    assert_int_equal(r->nframes, 0);
    kg_motion_free(r);
    kg_motion_free(mo);
    kg_model_free(m);
}

#define LP_FPS 120.0
#define LP_CUTOFF 6.0  /* Hz */
#define LP_WAVE 1.0    /* Hz: the lead joint's sinusoid */
#define LP_AMP 0.2     /* rad */
#define LP_JITTER 0.01 /* rad, alternating from frame to frame */
#define LP_TOL 1e-6

/* The clip of the tests at 120 frames/s with a sinusoid and a frame-to-frame
 * jitter on the lead joint, low-passed at 6 Hz: the sinusoid comes out times
 * the gain 1 / (1 + (tan(pi f dt) / tan(pi fc dt))^4) with no phase, the jitter
 * (half the frame rate, where the gain is zero) is gone, ramps are kept to
 * the ends (the odd reflection continues them), and constant turns (both
 * quaternion components scaled alike and normalised back) away from the ends,
 * where the reflection of a sinusoid bends. */
static void test_lowpass(void **state) {
    (void)state;
    coords c;
    kg_model *m = robot(&c);
    const int n = 600;
    kg_motion *mo = clip(m, &c, n, 1 / LP_FPS);
    for (int f = 0; f < n; f++) {
        double *q = mo->q + (size_t)f * m->nq;
        q[c.lead] += LP_AMP * sin(2 * KG_PI * LP_WAVE * f / LP_FPS) + (f % 2 ? -LP_JITTER : LP_JITTER);
        kg_apply_mimic(m, q);
    }
    assert_int_equal(kg_motion_lowpass(m, mo, LP_CUTOFF), 0);
    const double g = 1 / (1 + pow(tan(KG_PI * LP_WAVE / LP_FPS) / tan(KG_PI * LP_CUTOFF / LP_FPS), 4));
    double err_mid = 0, err_lin = 0, err_turn = 0;
    for (int f = 0; f < n; f++) {
        const double t = f / LP_FPS, *q = mo->q + (size_t)f * m->nq, *b = mo->base + 7 * (size_t)f;
        if (f >= n / 6 && f < n - n / 6) {
            const double wave = g * LP_AMP * sin(2 * KG_PI * LP_WAVE * t);
            err_mid = fmax(err_mid, fabs(q[c.lead] - (LEAD0 + LEAD_RATE * t + wave)));
        }
        KG_ASSERT_NEAR(q[c.follow], 2 * q[c.lead] + 0.1, TOL);
        err_lin = fmax(err_lin, fabs(q[c.slide] - (SLIDE0 + SLIDE_RATE * t)));
        err_lin = fmax(err_lin, fabs(b[0] + POS_RATE * t) + fabs(b[2] - POS_RATE * t) + fabs(b[1] - 0.5));
        double e[4], d = 0, d2 = 0;
        turn_z(ROOT_TURN * t, 0, e);
        for (int k = 0; k < 4; k++) d += b[ROOT_QUAT + k] * e[k];
        turn_z(FREE_TURN * t, 0, e);
        for (int k = 0; k < 4; k++) d2 += q[c.free + 3 + k] * e[k];
        if (f >= n / 6 && f < n - n / 6) err_turn = fmax(err_turn, fmax(1 - fabs(d), 1 - fabs(d2)));
    }
    printf("lowpass: gain %.6f, middle %.3g, ramps %.3g, turns %.3g\n", g, err_mid, err_lin, err_turn);
    assert_true(err_mid < LP_TOL && err_lin < LP_TOL && err_turn < LP_TOL);
    /* refused, the motion untouched */
    const size_t bytes = (size_t)n * m->nq * sizeof(double);
    double *keep = malloc(bytes), *keep_base = malloc(7 * (size_t)n * sizeof(double));
    memcpy(keep, mo->q, bytes);
    memcpy(keep_base, mo->base, 7 * (size_t)n * sizeof(double));
    const double bad[] = {0, -6, NAN, INFINITY, 0.41 * LP_FPS, LP_FPS / 2, 1e300};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) assert_int_equal(kg_motion_lowpass(m, mo, bad[i]), -1);
    mo->nq--;
    assert_int_equal(kg_motion_lowpass(m, mo, LP_CUTOFF), -1);
    mo->nq++;
    const double bad_dt[] = {0, -1 / LP_FPS, NAN, 1e-320};
    for (size_t i = 0; i < sizeof bad_dt / sizeof *bad_dt; i++) {
        mo->frame_time = bad_dt[i];
        assert_int_equal(kg_motion_lowpass(m, mo, LP_CUTOFF), -1);
    }
    mo->frame_time = 1 / LP_FPS;
    mo->nframes = 2; /* too short to smooth: left as it is */
    assert_int_equal(kg_motion_lowpass(m, mo, LP_CUTOFF), 0);
    assert_memory_equal(mo->q, keep, bytes);
    assert_memory_equal(mo->base, keep_base, 7 * (size_t)n * sizeof(double));
    free(keep), free(keep_base);
    kg_motion_free(mo);
    kg_model_free(m);
}

/* Ramps come out as they went in on clips of 3, 4 and 600 frames (the
 * padding longer than the clip goes on in a straight line) and at cutoffs
 * from far below the clip's length to 0.4 of the frame rate (the filter then
 * rings longest: its padding is longer). */
static void test_lowpass_ramps(void **state) {
    (void)state;
    coords c;
    kg_model *m = robot(&c);
    const int lengths[] = {3, 4, 600};
    const double cutoffs[] = {0.05, LP_CUTOFF, 0.4 * LP_FPS};
    for (size_t i = 0; i < sizeof lengths / sizeof *lengths; i++)
        for (size_t j = 0; j < sizeof cutoffs / sizeof *cutoffs; j++) {
            kg_motion *mo = clip(m, &c, lengths[i], 1 / LP_FPS);
            assert_int_equal(kg_motion_lowpass(m, mo, cutoffs[j]), 0);
            double err = 0;
            for (int f = 0; f < lengths[i]; f++) {
                const double t = f / LP_FPS, *q = mo->q + (size_t)f * m->nq;
                err = fmax(err, fabs(q[c.slide] - (SLIDE0 + SLIDE_RATE * t)));
                err = fmax(err, fabs(q[c.lead] - (LEAD0 + LEAD_RATE * t)));
            }
            if (!(err < LP_TOL)) fail_msg("%d frames at %g Hz: a ramp off by %g", lengths[i], cutoffs[j], err);
            kg_motion_free(mo);
        }
    kg_model_free(m);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_values),
        cmocka_unit_test(test_frames_kept),
        cmocka_unit_test(test_edges),
        cmocka_unit_test(test_lowpass),
        cmocka_unit_test(test_lowpass_ramps),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
