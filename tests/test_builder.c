/* The builder: spanning tree and loop closures, topological order, joint-vector
 * layout, mimic ordering, and the errors it reports. Expected values are computed
 * by hand here or taken from the four-bar vectors D7 of
 * ../shared/docs/closed-chains-and-kinematics-papers.md. */
#include "testutil.h"

#include <string.h>

#include "core/builder.h"
#include "core/data.h"
#include "core/fk.h"
#include "core/spatial.h"

static kg_joint *revolute(kg_builder *b, const char *name, const char *parent, const char *child, double x,
                          double y, double z) {
    kg_joint *j = kg_builder_add_joint(b, name, KG_JOINT_REVOLUTE, parent, child, 0);
    j->pos[0] = x;
    j->pos[1] = y;
    j->pos[2] = z;
    j->axis[0] = 0;
    j->axis[2] = 1;
    return j;
}

static void set_q(const kg_model *m, kg_data *d, const char *name, double v) {
    int j = kg_model_joint(m, name);
    assert_true(j >= 0);
    d->q[m->joint[j].qadr] = v;
}

static void test_four_bar_loop(void **state) {
    (void)state;
    kg_diags diags;
    kg_diags_init(&diags);
    kg_model *m = kg_test_four_bar(0.2, 0.5, 0.2, 0.5, KG_JOINT_REVOLUTE, &diags);
    assert_non_null(m);
    /* Breadth-first from the ground reaches the pivot through the fixed joint D
     * first, so J4 (from L3, three joints away) is the cut joint. */
    assert_int_equal(m->nloop, 1);
    assert_int_equal(m->nloop, 1);
    assert_int_equal(m->nlink, 6);
    assert_int_equal(m->njoint, 5);
    assert_int_equal(m->dof, 4);
    const kg_loop *lp = &m->loop[0];
    assert_string_equal(m->joint[lp->cut_joint].name, "J4");
    assert_string_equal(m->link[lp->real_link].name, "pivot");
    assert_string_equal(m->link[lp->virtual_link].name, "pivot@J4");
    assert_int_equal(m->link[lp->virtual_link].real, lp->real_link);
    assert_int_equal(m->link[lp->virtual_link].parent, kg_model_link(m, "L3"));
    assert_true(m->link[lp->virtual_link].mass == 0);
    /* cycle: ground, pivot (down to the real link), then L3, L2, L1 back up */
    const char *members[] = {"ground", "pivot", "L3", "L2", "L1"};
    const char *joints[] = {"D", "J4", "J3", "J2", "J1"};
    assert_int_equal(lp->nlink, 5);
    for (int i = 0; i < 5; i++) {
        assert_string_equal(m->link[lp->links[i]].name, members[i]);
        assert_string_equal(m->joint[lp->joints[i]].name, joints[i]);
    }
    /* the builder reports the loop as a note (loops are allowed in general) */
    assert_int_equal(kg_test_count(&diags, "topology.loop"), 1);
    assert_int_equal(kg_diags_count(&diags, KG_ERROR), 0);

    /* D7 parallelogram, theta1 = 60 deg: the loop closes exactly */
    kg_data *d = kg_data_new(m);
    set_q(m, d, "J1", 1.047197551);
    set_q(m, d, "J2", -1.047197551);
    set_q(m, d, "J3", -2.094395102);
    set_q(m, d, "J4", 2.094395102);
    kg_fk(m, d);
    double dp[3], da;
    kg_loop_residual(m, d, 0, dp, &da);
    assert_true(kg_vec3_norm(dp) < 1e-9);
    assert_true(da < 1e-9);
    /* coupler at A = a (cos 60, sin 60) */
    const double *pl2 = d->link_pos + 3 * kg_model_link(m, "L2");
    KG_ASSERT_NEAR(pl2[0], 0.1, 1e-9);
    KG_ASSERT_NEAR(pl2[1], 0.2 * sin(KG_PI / 3), 1e-9);
    /* an open configuration has a residual: J4 off by 0.1 rad leaves the position
     * closed (J4 sits at the pivot) but rotates by 0.1 */
    set_q(m, d, "J4", 2.094395102 + 0.1);
    kg_fk(m, d);
    kg_loop_residual(m, d, 0, dp, &da);
    assert_true(kg_vec3_norm(dp) < 1e-9);
    KG_ASSERT_NEAR(da, 0.1, 1e-9);
    kg_data_free(d);
    kg_model_free(m);

    /* D7 general four-bar a=0.1 c=0.35 b=0.3 d=0.4: closes to the digest's 9 digits */
    kg_diags_clear(&diags);
    m = kg_test_four_bar(0.1, 0.35, 0.3, 0.4, KG_JOINT_REVOLUTE, &diags);
    d = kg_data_new(m);
    set_q(m, d, "J1", 1.047197551);
    set_q(m, d, "J2", -0.418482424);
    set_q(m, d, "J3", -1.974532808);
    set_q(m, d, "J4", 1.345817680);
    kg_fk(m, d);
    kg_loop_residual(m, d, 0, dp, &da);
    assert_true(kg_vec3_norm(dp) < 5e-9);
    assert_true(da < 5e-9);
    kg_data_free(d);
    kg_model_free(m);
    kg_diags_clear(&diags);
}

static void test_topological_order(void **state) {
    (void)state;
    kg_diags diags;
    kg_diags_init(&diags);
    kg_builder *b = kg_builder_new("t", "test", &diags);
    /* declared child before parent, joints in reverse */
    kg_builder_add_link(b, "tip", 1);
    kg_builder_add_link(b, "mid", 2);
    kg_builder_add_link(b, "base", 3);
    kg_builder_add_link(b, "side", 4);
    revolute(b, "j2", "mid", "tip", 0, 0, 1);
    revolute(b, "j1", "base", "mid", 0, 0, 1);
    kg_builder_add_joint(b, "j3", KG_JOINT_PRISMATIC, "base", "side", 0);
    kg_model *m = kg_builder_finish(b);
    assert_non_null(m);
    assert_string_equal(m->link[0].name, "base");
    for (int i = 1; i < m->nlink; i++) {
        assert_true(m->link[i].parent < i);
        assert_int_equal(m->link[i].joint, i - 1);
        assert_int_equal(m->joint[i - 1].child, i);
        assert_int_equal(m->joint[i - 1].parent, m->link[i].parent);
    }
    /* depth-first, children in declaration order: base, mid, tip, side */
    assert_string_equal(m->link[1].name, "mid");
    assert_string_equal(m->link[2].name, "tip");
    assert_string_equal(m->link[3].name, "side");
    assert_int_equal(m->nq, 3);
    kg_model_free(m);
    kg_diags_clear(&diags);
}

static void test_mimic_order_and_errors(void **state) {
    (void)state;
    kg_diags diags;
    kg_diags_init(&diags);
    kg_builder *b = kg_builder_new("mimic", "test", &diags);
    const char *links[] = {"base", "a", "b", "c", "d", "e", "f"};
    for (int i = 0; i < 7; i++) kg_builder_add_link(b, links[i], i + 1);
    kg_joint *ja = revolute(b, "ja", "base", "a", 0, 0, 0);
    kg_joint *jb = revolute(b, "jb", "base", "b", 0, 0, 0);
    kg_joint *jc = revolute(b, "jc", "base", "c", 0, 0, 0);
    kg_joint *jd = revolute(b, "jd", "base", "d", 0, 0, 0);
    kg_joint *je = revolute(b, "je", "base", "e", 0, 0, 0);
    kg_joint *jf = kg_builder_add_joint(b, "jf", KG_JOINT_FIXED, "base", "f", 0);
    (void)ja;
    /* chain declared follower-first: jc = 2 jb + 1, jb = -1 ja + 0.5 */
    kg_builder_set_mimic(b, jc, "jb", 2, 1, 10);
    kg_builder_set_mimic(b, jb, "ja", -1, 0.5, 11);
    /* cycle jd <-> je */
    kg_builder_set_mimic(b, jd, "je", 1, 0, 12);
    kg_builder_set_mimic(b, je, "jd", 1, 0, 13);
    /* fixed follower: no effect, a warning */
    kg_builder_set_mimic(b, jf, "ja", 1, 0, 14);
    kg_model *m = kg_builder_finish(b);
    assert_non_null(m);
    assert_int_equal(m->nmimic, 2);
    assert_string_equal(m->joint[m->mimic[0].follower].name, "jb");
    assert_string_equal(m->joint[m->mimic[1].follower].name, "jc");
    assert_int_equal(kg_test_count(&diags, "mimic.cycle"), 2);
    assert_int_equal(kg_test_count(&diags, "mimic.fixed"), 1);
    assert_int_equal(m->joint[kg_model_joint(m, "jd")].mimic, -1);
    /* dof: ja, jd, je are independent */
    assert_int_equal(m->dof, 3);
    kg_data *d = kg_data_new(m);
    set_q(m, d, "ja", 0.3);
    kg_apply_mimic(m, d->q);
    KG_ASSERT_NEAR(d->q[m->joint[kg_model_joint(m, "jb")].qadr], 0.2, 1e-15);
    KG_ASSERT_NEAR(d->q[m->joint[kg_model_joint(m, "jc")].qadr], 1.4, 1e-15);
    kg_data_free(d);
    kg_model_free(m);
    kg_diags_clear(&diags);

    /* missing leader, self mimic */
    b = kg_builder_new("mimic2", "test", &diags);
    kg_builder_add_link(b, "base", 1);
    kg_builder_add_link(b, "a", 2);
    kg_builder_add_link(b, "b", 3);
    kg_joint *j1 = revolute(b, "j1", "base", "a", 0, 0, 0);
    kg_joint *j2 = revolute(b, "j2", "base", "b", 0, 0, 0);
    kg_builder_set_mimic(b, j1, "nope", 1, 0, 7);
    kg_builder_set_mimic(b, j2, "j2", 1, 0, 8);
    m = kg_builder_finish(b);
    assert_non_null(m);
    assert_int_equal(m->nmimic, 0);
    const kg_diag *g = kg_test_find(&diags, "mimic.missing_leader");
    assert_non_null(g);
    assert_int_equal(g->line, 7);
    assert_int_equal(g->severity, KG_ERROR);
    assert_non_null(kg_test_find(&diags, "mimic.self"));
    kg_model_free(m);
    kg_diags_clear(&diags);
}

static void test_topology_errors(void **state) {
    (void)state;
    kg_diags diags;
    kg_diags_init(&diags);
    /* two roots: no model */
    kg_builder *b = kg_builder_new("roots", "test", &diags);
    kg_builder_add_link(b, "a", 1);
    kg_builder_add_link(b, "b", 2);
    assert_null(kg_builder_finish(b));
    assert_non_null(kg_test_find(&diags, "topology.multiple_roots"));
    kg_diags_clear(&diags);

    /* a cycle not connected to the root: its links are unreachable */
    b = kg_builder_new("island", "test", &diags);
    kg_builder_add_link(b, "root", 1);
    kg_builder_add_link(b, "x", 2);
    kg_builder_add_link(b, "y", 3);
    revolute(b, "xy", "x", "y", 0, 0, 0);
    revolute(b, "yx", "y", "x", 0, 0, 0);
    assert_null(kg_builder_finish(b));
    assert_int_equal(kg_test_count(&diags, "topology.unreachable"), 2);
    kg_diags_clear(&diags);

    /* a pure cycle: no root; the parent of the first joint becomes the root and
     * the model is still built (with an error) */
    b = kg_builder_new("ring", "test", &diags);
    kg_builder_add_link(b, "x", 1);
    kg_builder_add_link(b, "y", 2);
    revolute(b, "xy", "x", "y", 0, 0, 0);
    revolute(b, "yx", "y", "x", 0, 0, 0);
    kg_model *m = kg_builder_finish(b);
    assert_non_null(m);
    assert_non_null(kg_test_find(&diags, "topology.no_root"));
    assert_string_equal(m->link[0].name, "x");
    assert_int_equal(m->nloop, 1);
    assert_string_equal(m->joint[m->loop[0].cut_joint].name, "yx");
    kg_model_free(m);
    kg_diags_clear(&diags);

    /* no links */
    b = kg_builder_new("empty", "test", &diags);
    assert_null(kg_builder_finish(b));
    assert_non_null(kg_test_find(&diags, "model.no_links"));
    kg_diags_clear(&diags);
}

static void test_floating_and_planar(void **state) {
    (void)state;
    kg_diags diags;
    kg_diags_init(&diags);
    kg_builder *b = kg_builder_new("fp", "test", &diags);
    kg_builder_add_link(b, "world", 1);
    kg_builder_add_link(b, "body", 2);
    kg_builder_add_link(b, "slider", 3);
    kg_builder_add_link(b, "cart", 4);
    kg_joint *fl = kg_builder_add_joint(b, "free", KG_JOINT_FLOATING, "world", "body", 0);
    fl->pos[0] = 1;
    fl->pos[1] = 2;
    fl->pos[2] = 3;
    fl->rpy[2] = KG_PI / 2;
    kg_rot_from_rpy(fl->rot, fl->rpy);
    kg_joint *pl = kg_builder_add_joint(b, "plane", KG_JOINT_PLANAR, "body", "slider", 0);
    pl->axis[0] = 0;
    pl->axis[2] = 1;
    kg_joint *px = kg_builder_add_joint(b, "plane_x", KG_JOINT_PLANAR, "world", "cart", 0); /* axis x */
    (void)px;
    kg_model *m = kg_builder_finish(b);
    assert_non_null(m);
    assert_int_equal(m->nq, 7 + 3 + 3);
    assert_int_equal(m->nv, 6 + 3 + 3);
    assert_int_equal(m->dof, 12);
    kg_data *d = kg_data_new(m);
    const kg_joint *jf = &m->joint[kg_model_joint(m, "free")];
    KG_ASSERT_NEAR(d->q[jf->qadr + 3], 1, 0); /* identity quaternion by default */
    double th = 0.5;
    double qf[7] = {0.1, 0.2, 0.3, cos(th / 2), 0, sin(th / 2), 0}; /* rotation th about y */
    memcpy(d->q + jf->qadr, qf, sizeof qf);
    const kg_joint *jp = &m->joint[kg_model_joint(m, "plane")];
    d->q[jp->qadr] = 0.4;
    d->q[jp->qadr + 1] = -0.3;
    d->q[jp->qadr + 2] = 0.25;
    const kg_joint *jx = &m->joint[kg_model_joint(m, "plane_x")];
    d->q[jx->qadr] = 0.7;
    d->q[jx->qadr + 1] = 0.9;
    d->q[jx->qadr + 2] = 0.0;
    kg_fk(m, d);
    /* body: p = (1,2,3) + Rz(90)(0.1,0.2,0.3) = (0.8, 2.1, 3.3); R = Rz(90) Ry(th) */
    int ib = kg_model_link(m, "body");
    const double *p = d->link_pos + 3 * ib, *r = d->link_rot + 9 * ib;
    KG_ASSERT_NEAR(p[0], 0.8, 1e-15);
    KG_ASSERT_NEAR(p[1], 2.1, 1e-15);
    KG_ASSERT_NEAR(p[2], 3.3, 1e-15);
    double c = cos(th), s = sin(th);
    const double rb[9] = {0, -1, 0, c, 0, s, -s, 0, c};
    for (int i = 0; i < 9; i++) KG_ASSERT_NEAR(r[i], rb[i], 1e-15);
    /* slider: p = p_body + R_body (0.4, -0.3, 0); R = R_body Rz(0.25) */
    int is = kg_model_link(m, "slider");
    double ex[3] = {0.8 + 0.3, 2.1 + 0.4 * c, 3.3 - 0.4 * s};
    for (int a = 0; a < 3; a++) KG_ASSERT_NEAR(d->link_pos[3 * is + a], ex[a], 1e-15);
    double rz[9], z[3] = {0, 0, 1}, rs[9];
    kg_rot_axis_angle(rz, z, 0.25);
    kg_mat3_mul(rs, rb, rz);
    for (int i = 0; i < 9; i++) KG_ASSERT_NEAR(d->link_rot[9 * is + i], rs[i], 1e-15);
    /* planar about x: in-plane coordinates move along y, then z (README) */
    int ic = kg_model_link(m, "cart");
    KG_ASSERT_NEAR(d->link_pos[3 * ic + 0], 0, 0);
    KG_ASSERT_NEAR(d->link_pos[3 * ic + 1], 0.7, 1e-15);
    KG_ASSERT_NEAR(d->link_pos[3 * ic + 2], 0.9, 1e-15);
    kg_data_free(d);
    kg_model_free(m);
    kg_diags_clear(&diags);
}

static void test_validation(void **state) {
    (void)state;
    kg_diags diags;
    kg_diags_init(&diags);
    kg_builder *b = kg_builder_new("v", "test", &diags);
    kg_link *base = kg_builder_add_link(b, "base", 1);
    base->has_inertial = 1;
    base->inertial.mass = -2;
    kg_builder_add_link(b, "a", 2);
    kg_builder_add_link(b, "b", 3);
    kg_joint *j = revolute(b, "zero_axis", "base", "a", 0, 0, 0);
    j->axis[2] = 0;
    kg_joint *k = revolute(b, "long_axis", "base", "b", 0, 0, 0);
    k->axis[2] = 2;
    k->has_limit = 1;
    k->lower = 1;
    k->upper = -1;
    kg_model *m = kg_builder_finish(b);
    assert_non_null(m);
    assert_int_equal(kg_test_find(&diags, "joint.axis_zero")->severity, KG_ERROR);
    assert_int_equal(kg_test_find(&diags, "joint.axis_not_unit")->severity, KG_WARNING);
    assert_int_equal(kg_test_find(&diags, "joint.limit_inverted")->severity, KG_ERROR);
    assert_int_equal(kg_test_find(&diags, "link.mass_negative")->severity, KG_ERROR);
    const kg_joint *lj = &m->joint[kg_model_joint(m, "long_axis")];
    KG_ASSERT_NEAR(lj->axis[2], 1, 0);
    kg_model_free(m);
    kg_diags_clear(&diags);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_four_bar_loop),     cmocka_unit_test(test_topological_order),
        cmocka_unit_test(test_mimic_order_and_errors), cmocka_unit_test(test_topology_errors),
        cmocka_unit_test(test_floating_and_planar), cmocka_unit_test(test_validation),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
