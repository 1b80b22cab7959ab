/* Forward kinematics on the sample humanoid (samples/humanoid.urdf), whose legs are
 * the 12-DOF biped of Kajita's textbook, against the [DERIVED] vectors D1-D3 of
 * ../shared/docs/closed-chains-and-kinematics-papers.md (pure-Python
 * re-implementation of Kajita's FK, pelvis at z = 0.65). */
#include "testutil.h"

#include <string.h>

#include "analysis/mass.h"
#include "core/fk.h"
#include "core/spatial.h"
#include "io/load.h"

static kg_model *humanoid(void) {
    kg_diags d;
    kg_diags_init(&d);
    kg_model *m = kg_load(KG_SOURCE_DIR "/samples/humanoid.urdf", NULL, &d);
    if (d.count) kg_test_print_diags(&d);
    assert_int_equal(d.count, 0);
    kg_diags_clear(&d);
    assert_non_null(m);
    return m;
}

static void set(const kg_model *m, kg_data *d, const char *joint, double v) {
    int j = kg_model_joint(m, joint);
    assert_true(j >= 0);
    d->q[m->joint[j].qadr] = v;
}

static const double *pos(const kg_model *m, const kg_data *d, const char *link) {
    int i = kg_model_link(m, link);
    assert_true(i >= 0);
    return d->link_pos + 3 * i;
}

static const double *rot(const kg_model *m, const kg_data *d, const char *link) {
    return d->link_rot + 9 * kg_model_link(m, link);
}

static void assert_vec(const double *a, double x, double y, double z, double tol) {
    KG_ASSERT_NEAR(a[0], x, tol);
    KG_ASSERT_NEAR(a[1], y, tol);
    KG_ASSERT_NEAR(a[2], z, tol);
}

static void test_d1_zero_pose(void **state) {
    (void)state;
    kg_model *m = humanoid();
    kg_data *d = kg_data_new(m);
    d->base_pos[2] = 0.65;
    kg_fk(m, d);
    for (int s = 0; s < 2; s++) {
        double y = s ? 0.1 : -0.1;
        const char *p = s ? "l" : "r";
        char name[64];
        const char *hips[] = {"hip_yaw_link", "hip_roll_link", "thigh"};
        for (int k = 0; k < 3; k++) {
            snprintf(name, sizeof name, "%s_%s", p, hips[k]);
            assert_vec(pos(m, d, name), 0, y, 0.65, 1e-15);
        }
        snprintf(name, sizeof name, "%s_shank", p);
        assert_vec(pos(m, d, name), 0, y, 0.35, 1e-15);
        snprintf(name, sizeof name, "%s_ankle_link", p);
        assert_vec(pos(m, d, name), 0, y, 0.05, 1e-15);
        snprintf(name, sizeof name, "%s_foot", p);
        assert_vec(pos(m, d, name), 0, y, 0.05, 1e-15);
        snprintf(name, sizeof name, "%s_sole", p); /* the sole touches the ground */
        assert_vec(pos(m, d, name), 0, y, 0, 1e-15);
    }
    for (int i = 0; i < m->nlink; i++) {
        double id[9];
        kg_mat3_identity(id);
        for (int k = 0; k < 9; k++) KG_ASSERT_NEAR(d->link_rot[9 * i + k], id[k], 0);
    }
    kg_data_free(d);
    kg_model_free(m);
}

static void test_d2_bent_knee(void **state) {
    (void)state;
    kg_model *m = humanoid();
    kg_data *d = kg_data_new(m);
    d->base_pos[2] = 0.65;
    double deg = KG_PI / 180;
    set(m, d, "r_hip_pitch", -25 * deg);
    set(m, d, "r_knee", 50 * deg);
    set(m, d, "r_ankle_pitch", -25 * deg);
    kg_fk(m, d);
    assert_vec(pos(m, d, "r_shank"), 0.126785479, -0.1, 0.378107664, 1e-9);      /* p5 */
    assert_vec(pos(m, d, "r_ankle_link"), 0, -0.1, 0.106215328, 1e-9);          /* p6 */
    assert_vec(pos(m, d, "r_foot"), 0, -0.1, 0.106215328, 1e-9);                /* p7 */
    const double *r7 = rot(m, d, "r_foot");
    for (int k = 0; k < 9; k++) KG_ASSERT_NEAR(r7[k], (k % 4 == 0) ? 1 : 0, 1e-15); /* R7 = E */
    kg_data_free(d);
    kg_model_free(m);
}

static void test_d3_general_leg(void **state) {
    (void)state;
    kg_model *m = humanoid();
    kg_data *d = kg_data_new(m);
    d->base_pos[2] = 0.65;
    set(m, d, "r_hip_yaw", 0.1);
    set(m, d, "r_hip_roll", 0.2);
    set(m, d, "r_hip_pitch", -0.4);
    set(m, d, "r_knee", 0.8);
    set(m, d, "r_ankle_pitch", -0.3);
    set(m, d, "r_ankle_roll", -0.1);
    kg_fk(m, d);
    assert_vec(pos(m, d, "r_foot"), -0.010960905, 0.009243440, 0.108379342, 1e-9);
    const double r7[9] = {0.988053209, -0.109241692, 0.108706525, 0.119069417, 0.988939687,
                          -0.088435119, -0.097843395, 0.100322226, 0.990132375};
    const double *r = rot(m, d, "r_foot");
    for (int k = 0; k < 9; k++) KG_ASSERT_NEAR(r[k], r7[k], 1e-9);
    kg_data_free(d);
    kg_model_free(m);
}

static void test_base_pose(void **state) {
    (void)state;
    /* turning the base 90 degrees about z turns every link about the base origin */
    kg_model *m = humanoid();
    kg_data *a = kg_data_new(m), *b = kg_data_new(m);
    set(m, a, "r_knee", 0.7);
    set(m, b, "r_knee", 0.7);
    double p[3] = {1, 2, 3}, q[4] = {cos(KG_PI / 4), 0, 0, sin(KG_PI / 4)};
    kg_data_set_base(b, p, q);
    kg_fk(m, a);
    kg_fk(m, b);
    for (int i = 0; i < m->nlink; i++) {
        const double *pa = a->link_pos + 3 * i, *pb = b->link_pos + 3 * i;
        KG_ASSERT_NEAR(pb[0], 1 - pa[1], 1e-15);
        KG_ASSERT_NEAR(pb[1], 2 + pa[0], 1e-15);
        KG_ASSERT_NEAR(pb[2], 3 + pa[2], 1e-15);
    }
    kg_data_free(a);
    kg_data_free(b);
    kg_model_free(m);
}

static void test_mass_by_hand(void **state) {
    (void)state;
    /* Two point-like boxes on a prismatic joint along x, and an inertial frame
     * rotated 90 degrees about z: expected values follow from the definitions. */
    const char *urdf =
        "<robot name='m'>\n"
        " <link name='a'><inertial><origin xyz='0 0 0' rpy='0 0 1.5707963267948966'/><mass value='2'/>\n"
        "   <inertia ixx='1' ixy='0' ixz='0' iyy='3' iyz='0' izz='5'/></inertial></link>\n"
        " <link name='b'><inertial><origin xyz='0 1 0'/><mass value='6'/>\n"
        "   <inertia ixx='0' ixy='0' ixz='0' iyy='0' iyz='0' izz='0'/></inertial></link>\n"
        " <joint name='s' type='prismatic'><parent link='a'/><child link='b'/><axis xyz='1 0 0'/>\n"
        "   <limit lower='-1' upper='1' effort='1' velocity='1'/></joint>\n"
        "</robot>\n";
    kg_diags diags;
    kg_diags_init(&diags);
    kg_model *m = kg_test_load_string("m.urdf", urdf, &diags);
    assert_non_null(m);
    kg_data *d = kg_data_new(m);
    set(m, d, "s", 0.8);
    kg_fk(m, d);
    kg_mass_props mp;
    double lc[6];
    kg_mass_properties(m, d, &mp, lc);
    KG_ASSERT_NEAR(mp.mass, 8, 0);
    /* com = (2*(0,0,0) + 6*(0.8,1,0)) / 8 */
    KG_ASSERT_NEAR(mp.com[0], 0.6, 1e-15);
    KG_ASSERT_NEAR(mp.com[1], 0.75, 1e-15);
    KG_ASSERT_NEAR(mp.com[2], 0, 0);
    KG_ASSERT_NEAR(lc[3], 0.8, 1e-15);
    /* link a's inertia, rotated: diag(3, 1, 5). Point masses at r_a = (-0.6, -0.75, 0)
     * and r_b = (0.2, 0.25, 0) from the com add m (|r|^2 I - r r^T). */
    double ra[3] = {-0.6, -0.75, 0}, rb[3] = {0.2, 0.25, 0};
    double ia[9] = {3, 0, 0, 0, 1, 0, 0, 0, 5}, expect[9];
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++)
            expect[3 * i + j] = ia[3 * i + j] +
                                2 * ((i == j) * kg_vec3_dot(ra, ra) - ra[i] * ra[j]) +
                                6 * ((i == j) * kg_vec3_dot(rb, rb) - rb[i] * rb[j]);
    for (int k = 0; k < 9; k++) KG_ASSERT_NEAR(mp.inertia[k], expect[k], 1e-14);
    /* sanity of the hand values: ixx = 3 + 2*0.5625 + 6*0.0625 = 4.5 */
    KG_ASSERT_NEAR(expect[0], 4.5, 1e-15);
    kg_data_free(d);
    kg_model_free(m);
    kg_diags_clear(&diags);
}

static void test_zero_mass(void **state) {
    (void)state;
    kg_diags diags;
    kg_diags_init(&diags);
    kg_model *m = kg_test_load_string("z.urdf", "<robot name='z'><link name='a'/></robot>", &diags);
    assert_non_null(m);
    kg_data *d = kg_data_new(m);
    kg_fk(m, d);
    kg_mass_props mp;
    kg_mass_properties(m, d, &mp, NULL);
    KG_ASSERT_NEAR(mp.mass, 0, 0);
    assert_true(isnan(mp.com[0])); /* undefined, not invented */
    kg_data_free(d);
    kg_model_free(m);
    kg_diags_clear(&diags);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_d1_zero_pose), cmocka_unit_test(test_d2_bent_knee),
        cmocka_unit_test(test_d3_general_leg), cmocka_unit_test(test_base_pose),
        cmocka_unit_test(test_mass_by_hand), cmocka_unit_test(test_zero_mass),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
