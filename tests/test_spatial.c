/* Spatial maths against independently computed values: the [DERIVED] vectors D6 of
 * ../shared/docs/closed-chains-and-kinematics-papers.md (Kajita's Rodrigues,
 * rot2omega, rpy2rot) and closed-form identities. */
#include "testutil.h"

#include "core/spatial.h"

static void assert_mat_near(const double *a, const double *b, double tol) {
    for (int i = 0; i < 9; i++) KG_ASSERT_NEAR(a[i], b[i], tol);
}

static void test_rodrigues_d6(void **state) {
    (void)state;
    double axis[3] = {1, 2, 3}, n = sqrt(14.0);
    for (int i = 0; i < 3; i++) axis[i] /= n;
    double r[9];
    kg_rot_axis_angle(r, axis, 0.5);
    const double expect[9] = {0.886326665, -0.366907389, 0.282496038, 0.401883800, 0.912558973,
                              -0.075667249, -0.230031422, 0.180596481, 0.956279486};
    assert_mat_near(r, expect, 1e-9);
    /* rot2omega: 0.5 * [1,2,3] / sqrt(14) */
    double w[3];
    kg_rot_log(r, w);
    KG_ASSERT_NEAR(w[0], 0.133630621, 1e-9);
    KG_ASSERT_NEAR(w[1], 0.267261242, 1e-9);
    KG_ASSERT_NEAR(w[2], 0.400891863, 1e-9);
}

static void test_rpy_d6(void **state) {
    (void)state;
    /* rpy2rot(0.1, 0.2, 0.3) of the digest is R = Rz(0.3) Ry(0.2) Rx(0.1): URDF's convention */
    double rpy[3] = {0.1, 0.2, 0.3}, r[9], back[3];
    kg_rot_from_rpy(r, rpy);
    const double expect[9] = {0.936293364, -0.275095847, 0.218350663, 0.289629478, 0.956425086,
                              -0.036957014, -0.198669331, 0.097843395, 0.975170327};
    assert_mat_near(r, expect, 1e-9);
    kg_rot_to_rpy(r, back);
    for (int i = 0; i < 3; i++) KG_ASSERT_NEAR(back[i], rpy[i], 1e-14);
}

static void test_rpy_gimbal_lock(void **state) {
    (void)state;
    /* pitch = +-pi/2: only roll -+ yaw is defined; the round trip must give the same matrix */
    for (int s = -1; s <= 1; s += 2) {
        double rpy[3] = {0.3, s * KG_PI / 2, -0.2}, r[9], back[3], r2[9];
        kg_rot_from_rpy(r, rpy);
        kg_rot_to_rpy(r, back);
        kg_rot_from_rpy(r2, back);
        assert_mat_near(r, r2, 1e-12);
    }
}

static void test_rot_log_special(void **state) {
    (void)state;
    double w[3], z[3] = {0, 0, 1}, x[3] = {1, 0, 0}, r[9];
    kg_rot_axis_angle(r, z, KG_PI / 2);
    kg_rot_log(r, w);
    KG_ASSERT_NEAR(w[2], 1.570796327, 1e-9);
    /* diag(1, -1, -1): pi about x (the digest's rot2omega gives [pi, 0, 0] too) */
    const double flip[9] = {1, 0, 0, 0, -1, 0, 0, 0, -1};
    kg_rot_log(flip, w);
    KG_ASSERT_NEAR(fabs(w[0]), KG_PI, 1e-12);
    KG_ASSERT_NEAR(w[1], 0, 1e-12);
    /* pi about (1,1,0)/sqrt2: exact here (the digest notes Kajita's approximation gives norm 2.2214) */
    const double r110[9] = {0, 1, 0, 1, 0, 0, 0, 0, -1};
    kg_rot_log(r110, w);
    KG_ASSERT_NEAR(kg_vec3_norm(w), KG_PI, 1e-12);
    KG_ASSERT_NEAR(fabs(w[0]), KG_PI / sqrt(2), 1e-12);
    KG_ASSERT_NEAR(fabs(w[1]), KG_PI / sqrt(2), 1e-12);
    /* identity and tiny angles */
    kg_rot_axis_angle(r, x, 1e-9);
    kg_rot_log(r, w);
    KG_ASSERT_NEAR(w[0], 1e-9, 1e-20);
}

static void test_integration_d6(void **state) {
    (void)state;
    /* (P34): R' = Rodrigues(w dt) R, w = (0,0,1), dt = pi/2, R = Rx(0.3) */
    double x[3] = {1, 0, 0}, z[3] = {0, 0, 1}, rx[9], rz[9], r[9];
    kg_rot_axis_angle(rx, x, 0.3);
    kg_rot_axis_angle(rz, z, KG_PI / 2);
    kg_mat3_mul(r, rz, rx);
    const double expect[9] = {0, -0.955336489, 0.295520207, 1, 0, 0, 0, 0.295520207, 0.955336489};
    assert_mat_near(r, expect, 1e-9);
}

static void test_quat_round_trip(void **state) {
    (void)state;
    /* quaternions for many rotations, including near 180 degrees (Shepperd branches) */
    double axes[5][3] = {{1, 0, 0}, {0, 1, 0}, {0, 0, 1}, {1, 1, 1}, {-0.3, 0.5, 0.81}};
    double angles[6] = {0, 0.1, 1.0, 2.5, KG_PI - 1e-9, KG_PI};
    for (int a = 0; a < 5; a++)
        for (int k = 0; k < 6; k++) {
            double ax[3], n = kg_vec3_norm(axes[a]), r[9], q[4], r2[9];
            for (int i = 0; i < 3; i++) ax[i] = axes[a][i] / n;
            kg_rot_axis_angle(r, ax, angles[k]);
            kg_rot_to_quat(r, q);
            assert_true(q[0] >= 0);
            KG_ASSERT_NEAR(q[0], cos(angles[k] / 2), 1e-12);
            kg_rot_from_quat(r2, q);
            assert_mat_near(r, r2, 1e-12);
        }
    /* a zero quaternion is read as the identity, not NaN */
    double zero[4] = {0, 0, 0, 0}, r[9], id[9];
    kg_rot_from_quat(r, zero);
    kg_mat3_identity(id);
    assert_mat_near(r, id, 0);
}

static void test_inertia_rotate(void **state) {
    (void)state;
    /* a box's inertia rotated 90 degrees about z swaps ixx and iyy */
    double i6[6] = {1, 0, 0, 2, 0, 3}, ii[9], r[9], o[9], z[3] = {0, 0, 1};
    kg_inertia_from6(ii, i6);
    kg_rot_axis_angle(r, z, KG_PI / 2);
    kg_inertia_rotate(o, r, ii);
    KG_ASSERT_NEAR(o[0], 2, 1e-15);
    KG_ASSERT_NEAR(o[4], 1, 1e-15);
    KG_ASSERT_NEAR(o[8], 3, 1e-15);
    KG_ASSERT_NEAR(o[1], 0, 1e-15);
    /* 45 degrees: ixy = (ixx - iyy)/2 * sin(90) with the sign of R I R^T */
    kg_rot_axis_angle(r, z, KG_PI / 4);
    kg_inertia_rotate(o, r, ii);
    KG_ASSERT_NEAR(o[0], 1.5, 1e-15);
    KG_ASSERT_NEAR(o[4], 1.5, 1e-15);
    KG_ASSERT_NEAR(o[1], -0.5, 1e-15);
    KG_ASSERT_NEAR(o[3], o[1], 0);
}

static void test_sincos_accuracy(void **state) {
    (void)state;
    /* against libm over the joint range and beyond, quadrant boundaries included */
    double worst = 0;
    for (int i = -400000; i <= 400000; i++) {
        double x = i * 1.0e-4 * KG_PI; /* [-40 pi, 40 pi] in steps hitting multiples of pi/4 */
        double s, c;
        kg_sincos(x, &s, &c);
        double es = fabs(s - sin(x)), ec = fabs(c - cos(x));
        if (es > worst) worst = es;
        if (ec > worst) worst = ec;
    }
    assert_true(worst <= 4.5e-16); /* two ulp of numbers near 1 */
    /* large, tiny, signed zero, and the libm fallback for huge and non-finite values */
    const double xs[] = {0.0, -0.0, 1e-300, -1e-12, 1.0, 99999.9, 1e5, -3.5e7, 1e300, INFINITY, NAN};
    for (size_t i = 0; i < sizeof xs / sizeof *xs; i++) {
        double s, c;
        kg_sincos(xs[i], &s, &c);
        if (isnan(sin(xs[i]))) {
            assert_true(isnan(s) && isnan(c));
        } else {
            KG_ASSERT_NEAR(s, sin(xs[i]), 1e-15 * fmax(1, fabs(xs[i]) * 1e-5));
            KG_ASSERT_NEAR(c, cos(xs[i]), 1e-15 * fmax(1, fabs(xs[i]) * 1e-5));
        }
    }
}

/* kg_fmax / kg_fmin return what libm's fmax / fmin return, bit for bit, on
 * every pair of signed zeros, ones, infinities and NaNs (the ties of +0 and -0
 * included: the hot loops use them in place of libm's and must not change a
 * result). */
static void test_fmax_fmin_as_libm(void **state) {
    (void)state;
    const double v[] = {0.0, -0.0, 1.0, -1.0, 2.5, INFINITY, -INFINITY, NAN};
    const int n = (int)(sizeof v / sizeof *v);
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++) {
            volatile double a = v[i], b = v[j]; /* volatile: libm's, not folded at compile time */
            double want[2] = {fmax(a, b), fmin(a, b)}, got[2] = {kg_fmax(a, b), kg_fmin(a, b)};
            assert_memory_equal(want, got, sizeof want);
        }
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_rodrigues_d6),   cmocka_unit_test(test_rpy_d6),
        cmocka_unit_test(test_rpy_gimbal_lock), cmocka_unit_test(test_rot_log_special),
        cmocka_unit_test(test_integration_d6), cmocka_unit_test(test_quat_round_trip),
        cmocka_unit_test(test_inertia_rotate), cmocka_unit_test(test_sincos_accuracy),
        cmocka_unit_test(test_fmax_fmin_as_libm),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
