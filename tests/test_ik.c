/* Inverse kinematics: the TRAC-IK protocol (targets from FK of random joint
 * vectors within limits, seeded at mid-range, 1e-5 m and rad) on the sample's
 * arm and leg and on corpus arms, with an iteration budget so that the result
 * does not depend on timing; every solution within limits and at the target by
 * FK; axes left free; a COM target; a mimic coupling kept; a closed loop kept
 * closed (the four-bar of D7); the COM Jacobian equal to finite differences. */
#define _XOPEN_SOURCE 700
#include "testutil.h"

#include <stdlib.h>
#include <string.h>

#include "analysis/ik.h"
#include "analysis/jacobian.h"
#include "analysis/sampling.h"
#include "core/fk.h"
#include "core/spatial.h"

#define SAMPLE KG_SOURCE_DIR "/samples/humanoid.urdf"

/* The pose of tip relative to base (-1: world). */
static void pose_in(const kg_data *d, int tip, int base, double p[3], double R[9]) {
    if (base < 0) {
        kg_vec3_copy(p, d->link_pos + 3 * tip);
        kg_mat3_copy(R, d->link_rot + 9 * tip);
        return;
    }
    double dp[3];
    for (int a = 0; a < 3; a++) dp[a] = d->link_pos[3 * tip + a] - d->link_pos[3 * base + a];
    kg_mat3_tvec(p, d->link_rot + 9 * base, dp);
    kg_mat3_mul_at(R, d->link_rot + 9 * base, d->link_rot + 9 * tip);
}

/* n targets by FK of random joint vectors; solves from mid-range; returns successes. */
static int protocol(kg_model *m, const char *base_name, const char *tip_name, int n, double *worst_ms) {
    int tip = kg_model_link(m, tip_name), base = base_name ? kg_model_link(m, base_name) : -1;
    assert_true(tip >= 0 && (!base_name || base >= 0));
    unsigned char *mask = calloc((size_t)m->dof + 1, 1);
    kg_jacobian_columns(m, tip, base, mask);
    kg_sample_coord *c = calloc((size_t)m->nq + 1, sizeof *c);
    int nc = kg_sample_coords(m, mask, c);
    double *mid = malloc((size_t)m->nq * sizeof *mid), *lo = malloc((size_t)m->dof * sizeof *lo),
           *hi = malloc((size_t)m->dof * sizeof *hi);
    int *qi = malloc((size_t)m->dof * sizeof *qi);
    kg_dof_coords(m, qi, lo, hi);
    memcpy(mid, m->q_default, (size_t)m->nq * sizeof *mid);
    for (int k = 0; k < nc; k++) mid[c[k].q] = 0.5 * (c[k].lo + c[k].hi);
    kg_data *d = kg_data_new(m);
    kg_ik_work *w = kg_ik_work_new(m, 1);
    kg_ik_options o;
    kg_ik_defaults(&o);
    o.max_iterations = 3000;
    kg_ik_target t = {.link = tip, .base = base, .axes = KG_IK_POSE};
    kg_sampler s;
    kg_sampler_start(&s, KG_SAMPLE_RANDOM, 20261122, nc, 0);
    int ok = 0;
    for (int i = 0; i < n; i++) {
        memcpy(d->q, m->q_default, (size_t)m->nq * sizeof *d->q);
        kg_sampler_draw(&s, c, d->q);
        kg_fk(m, d);
        pose_in(d, tip, base, t.pos, t.rot);
        memcpy(d->q, mid, (size_t)m->nq * sizeof *d->q);
        kg_ik_result r;
        if (!kg_ik_solve(m, d, &t, 1, &o, w, &r)) continue;
        ok++;
        if (1e3 * r.seconds > *worst_ms) *worst_ms = 1e3 * r.seconds;
        /* at the target by FK, within limits */
        double p[3], R[9], Re[9];
        kg_fk(m, d);
        pose_in(d, tip, base, p, R);
        double dp[3] = {p[0] - t.pos[0], p[1] - t.pos[1], p[2] - t.pos[2]};
        assert_true(kg_vec3_norm(dp) <= 1e-5);
        kg_mat3_mul_at(Re, R, t.rot);
        assert_true(kg_rot_angle(Re) <= 1e-5);
        for (int col = 0; col < m->dof; col++)
            if (qi[col] >= 0) assert_true(d->q[qi[col]] >= lo[col] && d->q[qi[col]] <= hi[col]);
    }
    kg_ik_work_free(w);
    kg_data_free(d);
    free(mask), free(c), free(mid), free(lo), free(hi), free(qi);
    return ok;
}

static void test_protocol_sample(void **state) {
    (void)state;
    kg_model *m = kg_test_load(SAMPLE);
    double worst = 0;
    /* the 4-DOF arm cannot reach arbitrary 6-D poses, but FK targets it can */
    int arm = protocol(m, "torso", "r_hand", 300, &worst);
    int leg = protocol(m, "pelvis", "r_sole", 300, &worst);
    printf("  sample: arm %d/300, leg %d/300 (slowest %.2f ms)\n", arm, leg, worst);
    assert_true(arm >= 297 && leg >= 297);
    kg_model_free(m);
}

static void test_protocol_corpus(void **state) {
    (void)state;
    KG_REQUIRE_DATA(data);
    static const struct {
        const char *file, *base, *tip;
    } chains[] = {
        {"urdf/ur5/example-robot-data/robots/ur_description/urdf/ur5_robot.urdf", "base_link", "tool0"},
        {"urdf/panda/example-robot-data/robots/panda_description/urdf/panda.urdf", "panda_link0", "panda_link8"},
        {"urdf/kuka_iiwa7/differentiable-robot-model/diff_robot_data/kuka_iiwa/urdf/iiwa7.urdf", "iiwa_link_0", "iiwa_link_ee"},
        {"urdf/unitree_g1/g1_description/g1_29dof_rev_1_0.urdf", "torso_link", "left_rubber_hand"},
        {"urdf/unitree_g1/g1_description/g1_29dof_rev_1_0.urdf", "pelvis", "right_ankle_roll_link"},
    };
    for (size_t k = 0; k < sizeof chains / sizeof *chains; k++) {
        char path[4096];
        snprintf(path, sizeof path, "%s/%s", data, chains[k].file);
        kg_model *m = kg_test_load(path);
        double worst = 0;
        int ok = protocol(m, chains[k].base, chains[k].tip, 200, &worst);
        printf("  %s %s: %d/200 (slowest %.2f ms)\n", m->name, chains[k].tip, ok, worst);
        assert_true(ok >= 198);
        kg_model_free(m);
    }
}

static void test_axes_and_com(void **state) {
    (void)state;
    kg_model *m = kg_test_load(SAMPLE);
    kg_data *d = kg_data_new(m);
    kg_ik_work *w = kg_ik_work_new(m, 2);
    kg_ik_options o;
    kg_ik_defaults(&o);
    kg_ik_result r;
    int hand = kg_model_link(m, "r_hand"), torso = kg_model_link(m, "torso");
    /* position only: the hand's origin 25 cm in front of the torso */
    kg_ik_target t = {.link = hand, .base = torso, .pos = {0.25, -0.19, 0.0}, .axes = KG_IK_POSITION};
    kg_mat3_identity(t.rot);
    assert_true(kg_ik_solve(m, d, &t, 1, &o, w, &r));
    double p[3], R[9];
    pose_in(d, hand, torso, p, R);
    for (int a = 0; a < 3; a++) KG_ASSERT_NEAR(p[a], t.pos[a], 1e-5);
    /* the hand's x axis along the target's x (0, 0, -1 in the torso), free to turn about it:
     * constrain ry and rz of a target frame whose x is that direction (the 4-DOF arm
     * cannot also hold a position) */
    double tr[9] = {0, 0, 1, 0, 1, 0, -1, 0, 0}; /* columns: x = (0,0,-1), y = (0,1,0), z = (1,0,0) */
    kg_mat3_copy(t.rot, tr);
    t.axes = KG_IK_RY | KG_IK_RZ;
    memcpy(d->q, m->q_default, (size_t)m->nq * sizeof *d->q);
    assert_true(kg_ik_solve(m, d, &t, 1, &o, w, &r));
    pose_in(d, hand, torso, p, R);
    KG_ASSERT_NEAR(R[0], 0, 1e-5); /* the hand's x axis, first column of R */
    KG_ASSERT_NEAR(R[3], 0, 1e-5);
    KG_ASSERT_NEAR(R[6], -1, 1e-5);
    /* the centre of mass 3 cm forward, 2 cm left, with the feet where they are */
    memcpy(d->q, m->q_default, (size_t)m->nq * sizeof *d->q);
    kg_fk(m, d);
    kg_jacobian_twists(m, d);
    double com0[3], scratch[4 * 64], com[3];
    kg_com_jacobian(m, d, com0, NULL, scratch);
    kg_ik_target ct = {.link = KG_IK_COM, .base = -1, .pos = {com0[0] + 0.03, com0[1] + 0.02, 0}, .axes = KG_IK_X | KG_IK_Y};
    o.tol_pos = 1e-6;
    assert_true(kg_ik_solve(m, d, &ct, 1, &o, w, &r));
    kg_com_jacobian(m, d, com, NULL, scratch);
    KG_ASSERT_NEAR(com[0], com0[0] + 0.03, 1e-6);
    KG_ASSERT_NEAR(com[1], com0[1] + 0.02, 1e-6);
    kg_ik_work_free(w);
    kg_data_free(d);
    kg_model_free(m);
}

static void test_com_jacobian(void **state) {
    (void)state;
    kg_model *m = kg_test_load(SAMPLE);
    kg_data *d = kg_data_new(m);
    for (int k = 0; k < m->nq; k++) d->q[k] = 0.3 * sin(1.7 * k + 0.4);
    kg_fk(m, d);
    kg_jacobian_twists(m, d);
    double *J = malloc((size_t)3 * m->dof * sizeof *J), scratch[4 * 64], c0[3], c1[3], c2[3];
    kg_com_jacobian(m, d, c0, J, scratch);
    int *qi = malloc((size_t)m->dof * sizeof *qi);
    kg_dof_coords(m, qi, NULL, NULL);
    const double h = 1e-6;
    for (int col = 0; col < m->dof; col++) {
        double keep = d->q[qi[col]];
        d->q[qi[col]] = keep + h;
        kg_fk(m, d);
        kg_com_jacobian(m, d, c1, NULL, scratch);
        d->q[qi[col]] = keep - h;
        kg_fk(m, d);
        kg_com_jacobian(m, d, c2, NULL, scratch);
        d->q[qi[col]] = keep;
        for (int a = 0; a < 3; a++) KG_ASSERT_NEAR(J[a * m->dof + col], (c1[a] - c2[a]) / (2 * h), 1e-8);
    }
    free(J), free(qi);
    kg_data_free(d);
    kg_model_free(m);
}

static void test_mimic(void **state) {
    (void)state;
    /* a planar arm whose second joint mimics the first (2 x + 0.1): one degree of
     * freedom; a target on its path is reached and the coupling holds */
    static const char urdf[] =
        "<robot name='m'><link name='base'/><link name='a'/><link name='b'/><link name='tip'/>"
        "<joint name='j1' type='revolute'><parent link='base'/><child link='a'/><axis xyz='0 0 1'/>"
        "<limit lower='-1' upper='1' effort='1' velocity='1'/></joint>"
        "<joint name='j2' type='revolute'><parent link='a'/><child link='b'/><origin xyz='0.5 0 0'/><axis xyz='0 0 1'/>"
        "<limit lower='-3' upper='3' effort='1' velocity='1'/><mimic joint='j1' multiplier='2' offset='0.1'/></joint>"
        "<joint name='f' type='fixed'><parent link='b'/><child link='tip'/><origin xyz='0.3 0 0'/></joint></robot>";
    kg_diags dg;
    kg_diags_init(&dg);
    kg_model *m = kg_test_load_string("mimic.urdf", urdf, &dg);
    assert_non_null(m);
    kg_data *d = kg_data_new(m);
    int j1 = m->joint[kg_model_joint(m, "j1")].qadr, j2 = m->joint[kg_model_joint(m, "j2")].qadr;
    d->q[j1] = 0.4;
    kg_fk(m, d);
    int tip = kg_model_link(m, "tip");
    kg_ik_target t = {.link = tip, .base = -1, .axes = KG_IK_X | KG_IK_Y};
    kg_vec3_copy(t.pos, d->link_pos + 3 * tip);
    kg_mat3_identity(t.rot);
    memset(d->q, 0, (size_t)m->nq * sizeof *d->q);
    kg_ik_work *w = kg_ik_work_new(m, 1);
    kg_ik_options o;
    kg_ik_defaults(&o);
    kg_ik_result r;
    assert_true(kg_ik_solve(m, d, &t, 1, &o, w, &r));
    KG_ASSERT_NEAR(d->q[j1], 0.4, 1e-5);
    KG_ASSERT_NEAR(d->q[j2], 2 * d->q[j1] + 0.1, 1e-15);
    kg_ik_work_free(w);
    kg_data_free(d);
    kg_model_free(m);
    kg_diags_clear(&dg);
}

static void test_closed_loop(void **state) {
    (void)state;
    /* the four-bar of D7 (ground 0.4, crank 0.1, coupler 0.35, rocker 0.3), closed at
     * crank 60 degrees; the crank's orientation asked at 70 degrees: the loop stays closed */
    kg_diags diags;
    kg_diags_init(&diags);
    kg_model *m = kg_test_four_bar(0.1, 0.35, 0.3, 0.4, KG_JOINT_CONTINUOUS, &diags);
    assert_non_null(m);
    assert_int_equal(m->nloop, 1);
    kg_data *d = kg_data_new(m);
    const char *jn[] = {"J1", "J2", "J3", "J4"};
    const double q[] = {1.047197551, -0.418482424, -1.974532808, 1.345817680};
    for (int k = 0; k < 4; k++) d->q[m->joint[kg_model_joint(m, jn[k])].qadr] = q[k];
    int l1 = kg_model_link(m, "L1");
    kg_ik_target t = {.link = l1, .base = -1, .axes = KG_IK_RZ};
    double z[3] = {0, 0, 1};
    kg_rot_axis_angle(t.rot, z, 70 * KG_PI / 180);
    kg_ik_work *w = kg_ik_work_new(m, 1);
    kg_ik_options o;
    kg_ik_defaults(&o);
    kg_ik_result r;
    assert_true(kg_ik_solve(m, d, &t, 1, &o, w, &r));
    KG_ASSERT_NEAR(d->q[m->joint[kg_model_joint(m, "J1")].qadr], 70 * KG_PI / 180, 1e-5);
    kg_fk(m, d);
    double dp[3], da;
    kg_loop_residual(m, d, 0, dp, &da);
    assert_true(kg_vec3_norm(dp) <= 1e-5 && da <= 1e-5);
    kg_ik_work_free(w);
    kg_data_free(d);
    kg_model_free(m);
    kg_diags_clear(&diags);
}

static void test_floating_base(void **state) {
    (void)state;
    /* the sample squats 8 cm and turns 0.3 rad with its feet where they were: the
     * root floats, the legs make up for it */
    kg_model *m = kg_test_load(SAMPLE);
    kg_data *d = kg_data_new(m);
    double p0[3] = {0, 0, 0.65}, qz[4] = {1, 0, 0, 0};
    kg_data_set_base(d, p0, qz);
    kg_fk(m, d);
    int feet[2] = {kg_model_link(m, "l_sole"), kg_model_link(m, "r_sole")}, pelvis = kg_model_link(m, "pelvis");
    kg_ik_target t[3];
    memset(t, 0, sizeof t);
    for (int k = 0; k < 2; k++) {
        t[k].link = feet[k], t[k].base = -1, t[k].axes = KG_IK_POSE;
        kg_vec3_copy(t[k].pos, d->link_pos + 3 * feet[k]);
        kg_mat3_copy(t[k].rot, d->link_rot + 9 * feet[k]);
    }
    double z[3] = {0, 0, 1};
    t[2].link = pelvis, t[2].base = -1, t[2].axes = KG_IK_POSE;
    t[2].pos[2] = 0.57;
    kg_rot_axis_angle(t[2].rot, z, 0.3);
    kg_ik_work *w = kg_ik_work_new(m, 3);
    kg_ik_options o;
    kg_ik_defaults(&o);
    o.floating_base = 1;
    kg_ik_result r;
    assert_true(kg_ik_solve(m, d, t, 3, &o, w, &r));
    kg_fk(m, d);
    KG_ASSERT_NEAR(d->base_pos[2], 0.57, 1e-5);
    for (int k = 0; k < 2; k++)
        for (int a = 0; a < 3; a++) KG_ASSERT_NEAR(d->link_pos[3 * feet[k] + a], t[k].pos[a], 1e-5);
    /* the knees bent to get there */
    assert_true(fabs(d->q[m->joint[kg_model_joint(m, "r_knee")].qadr]) > 0.2);
    kg_ik_work_free(w);
    kg_data_free(d);
    kg_model_free(m);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_protocol_sample), cmocka_unit_test(test_protocol_corpus),
        cmocka_unit_test(test_axes_and_com),    cmocka_unit_test(test_com_jacobian),
        cmocka_unit_test(test_mimic),           cmocka_unit_test(test_closed_loop),
        cmocka_unit_test(test_floating_base),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
