/* Jacobians and manipulability: every column of every link's Jacobian equals the
 * central finite difference of forward kinematics (1e-7) on corpus robots,
 * skeletons with free joints, BVH clips and a planar joint; chains equal KDL's
 * ChainJntToJacSolver (tests/reference/jacobian/, by
 * tests/peers/kdl_jacobian_reference.cpp) to 1e-9; the four-bar of the
 * closed-chain digest (D7) gives its H; manipulability and ellipsoids of a
 * planar arm and of a 6-DOF arm equal closed forms worked out here. */
#define _XOPEN_SOURCE 700
#include "testutil.h"

#include <glob.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/jacobian.h"
#include "analysis/manipulability.h"
#include "core/fk.h"
#include "core/spatial.h"
#include "io/load.h"

static uint64_t rng = 0x9e3779b97f4a7c15ull;
static double uniform(double lo, double hi) {
    rng ^= rng >> 12, rng ^= rng << 25, rng ^= rng >> 27;
    return lo + (hi - lo) * (double)((rng * 2685821657736338717ull) >> 11) / 9007199254740992.0;
}

static void random_q(const kg_model *m, double *q) {
    for (int j = 0; j < m->njoint; j++) {
        const kg_joint *J = &m->joint[j];
        for (int k = 0; k < J->nq; k++)
            q[J->qadr + k] = kg_joint_is_limited(J) && J->lower < J->upper ? uniform(J->lower, J->upper) : uniform(-2, 2);
        if (J->type == KG_JOINT_FLOATING) {
            double *w = q + J->qadr + 3, n = sqrt(w[0] * w[0] + w[1] * w[1] + w[2] * w[2] + w[3] * w[3]);
            for (int k = 0; k < 4; k++) w[k] /= n;
        }
    }
}

/* Moves independent coordinate c of the model by h (a floating joint's rotations
 * turn its quaternion about the joint frame's axis, left-multiplied). */
static void step(const kg_model *m, double *q, int c, double h) {
    for (int j = 0; j < m->njoint; j++) {
        const kg_joint *J = &m->joint[j];
        if (J->dofadr < 0 || c < J->dofadr || c >= J->dofadr + J->nv) continue;
        int k = c - J->dofadr;
        if (J->type != KG_JOINT_FLOATING || k < 3) {
            q[J->qadr + k] += h;
            return;
        }
        double *w = q + J->qadr + 3, e[4] = {cos(h / 2), 0, 0, 0}, r[4];
        e[1 + (k - 3)] = sin(h / 2);
        r[0] = e[0] * w[0] - e[1] * w[1] - e[2] * w[2] - e[3] * w[3];
        r[1] = e[0] * w[1] + e[1] * w[0] + e[2] * w[3] - e[3] * w[2];
        r[2] = e[0] * w[2] - e[1] * w[3] + e[2] * w[0] + e[3] * w[1];
        r[3] = e[0] * w[3] + e[1] * w[2] - e[2] * w[1] + e[3] * w[0];
        memcpy(w, r, sizeof r);
        return;
    }
}

/* Every link's Jacobian (world base, and relative to a random link) against
 * central differences of FK. Returns the worst relative difference. */
static double finite_differences(const kg_model *m, const char *name) {
    kg_data *d = kg_data_new(m), *dp = kg_data_new(m), *dm = kg_data_new(m);
    const int n = m->dof;
    double *J = malloc((size_t)6 * n * sizeof *J + 1), worst = 0;
    const double h = 1e-6;
    for (int s = 0; s < 2; s++) {
        random_q(m, d->q);
        kg_fk(m, d);
        kg_jacobian_twists(m, d);
        for (int tip = 1; tip < m->nlink; tip++) {
            int base = s == 0 ? -1 : (int)uniform(0, m->nlink - 0.001);
            double point[3] = {uniform(-0.2, 0.2), uniform(-0.2, 0.2), uniform(-0.2, 0.2)};
            kg_jacobian(m, d, tip, point, base, J);
            for (int c = 0; c < n; c++) {
                memcpy(dp->q, d->q, (size_t)m->nq * sizeof *d->q);
                memcpy(dm->q, d->q, (size_t)m->nq * sizeof *d->q);
                step(m, dp->q, c, h);
                step(m, dm->q, c, -h);
                kg_fk(m, dp);
                kg_fk(m, dm);
                /* the point, and the tip relative to the base, at q +- h */
                double fd[6], pa[3], pb[3], ra[9], rb[9], rel[9], w[3];
                for (int side = 0; side < 2; side++) {
                    const kg_data *x = side ? dm : dp;
                    double *p = side ? pb : pa, *r = side ? rb : ra, wp[3], R[9], P[3];
                    kg_mat3_vec(wp, x->link_rot + 9 * tip, point);
                    for (int a = 0; a < 3; a++) wp[a] += x->link_pos[3 * tip + a];
                    if (base < 0) {
                        kg_vec3_copy(p, wp);
                        kg_mat3_copy(r, x->link_rot + 9 * tip);
                        continue;
                    }
                    /* expressed in the base frame, then turned to world axes with the base's
                     * orientation at q (the Jacobian's rows are world axes) */
                    double dlt[3];
                    for (int a = 0; a < 3; a++) dlt[a] = wp[a] - x->link_pos[3 * base + a];
                    kg_mat3_tvec(P, x->link_rot + 9 * base, dlt);
                    kg_mat3_vec(p, d->link_rot + 9 * base, P);
                    kg_mat3_mul_at(R, x->link_rot + 9 * base, x->link_rot + 9 * tip);
                    kg_mat3_mul(r, d->link_rot + 9 * base, R);
                }
                for (int a = 0; a < 3; a++) fd[a] = (pa[a] - pb[a]) / (2 * h);
                kg_mat3_mul_bt(rel, ra, rb);
                kg_rot_log(rel, w);
                for (int a = 0; a < 3; a++) fd[3 + a] = w[a] / (2 * h);
                for (int r = 0; r < 6; r++) {
                    double e = fabs(J[r * n + c] - fd[r]) / fmax(1, fabs(fd[r]));
                    if (e > 1e-7)
                        fail_msg("%s: link %s column %d row %d: Jacobian %.12g, finite difference %.12g", name,
                                 m->link[tip].name, c, r, J[r * n + c], fd[r]);
                    worst = fmax(worst, e);
                }
            }
        }
    }
    free(J);
    kg_data_free(d);
    kg_data_free(dp);
    kg_data_free(dm);
    return worst;
}

static kg_model *load(const char *path, kg_diags *d) {
    kg_diags_init(d);
    kg_model *m = kg_load(path, NULL, d);
    if (!m) fail_msg("%s does not load", path);
    return m;
}

/* A planar joint between two boxes, so its three columns are checked too. */
static const char planar_urdf[] =
    "<robot name='p'><link name='a'/><link name='b'/><link name='c'/>"
    "<joint name='pl' type='planar'><parent link='a'/><child link='b'/><origin xyz='0.1 0.2 0.3' rpy='0.3 -0.2 0.5'/>"
    "<axis xyz='0 0.6 0.8'/></joint>"
    "<joint name='r' type='revolute'><parent link='b'/><child link='c'/><origin xyz='0.4 0 0'/><axis xyz='1 0 0'/>"
    "<limit lower='-1' upper='1' effort='1' velocity='1'/></joint></robot>";

static void test_finite_differences(void **state) {
    (void)state;
    kg_diags d;
    double worst = 0;
    kg_model *m = load(KG_SOURCE_DIR "/samples/humanoid.urdf", &d);
    worst = fmax(worst, finite_differences(m, "humanoid"));
    kg_model_free(m);
    kg_diags_clear(&d);
    m = load(KG_SOURCE_DIR "/samples/walk.bvh", &d);
    worst = fmax(worst, finite_differences(m, "walk.bvh"));
    kg_model_free(m);
    kg_diags_clear(&d);
    kg_diags_init(&d);
    m = kg_test_load_string("planar.urdf", planar_urdf, &d);
    assert_non_null(m);
    worst = fmax(worst, finite_differences(m, "planar"));
    kg_model_free(m);
    kg_diags_clear(&d);
    const char *data = kg_test_data_dir();
    if (data) {
        static const char *files[] = {
            "urdf/unitree_g1/g1_description/g1_29dof_rev_1_0.urdf",
            "urdf/pr2/example-robot-data/robots/pr2_description/urdf/pr2.urdf", /* prismatic, mimic grippers */
            "collada/openrave/zae/shadow-hand.zae",                             /* couplings */
            "collada/blender_skinned/leg-with-control-bones.dae",               /* free joints */
            "urdf/anymal_c/example-robot-data/robots/anymal_c_simple_description/urdf/anymal.urdf",
        };
        for (size_t i = 0; i < sizeof files / sizeof *files; i++) {
            char path[4096];
            snprintf(path, sizeof path, "%s/%s", data, files[i]);
            m = load(path, &d);
            worst = fmax(worst, finite_differences(m, files[i]));
            kg_model_free(m);
            kg_diags_clear(&d);
        }
    }
    printf("every link's Jacobian equals central differences of FK: worst %.2e (tolerance 1e-7)\n", worst);
}

/* ---- KDL ------------------------------------------------------------------------- */

static double compare_kdl(const char *ref_path, const char *data, int *nchains) {
    char path[4096];
    const char *file;
    json_t *ref = kg_test_open_reference(ref_path, data, path, sizeof path, &file);
    if (!ref) return 0;
    kg_diags d;
    kg_model *m = load(path, &d);
    kg_data *kd = kg_data_new(m);
    double *J = malloc((size_t)6 * m->dof * sizeof *J + 1), worst = 0;
    json_t *chains = json_object_get(ref, "chains");
    for (size_t c = 0; c < json_array_size(chains); c++) {
        json_t *ch = json_array_get(chains, c), *names = json_object_get(ch, "joints");
        int tip = kg_model_link(m, json_string_value(json_object_get(ch, "tip")));
        assert_true(tip >= 0);
        size_t nj = json_array_size(names);
        int *col = malloc(nj * sizeof *col + 1), *qa = malloc(nj * sizeof *qa + 1);
        for (size_t k = 0; k < nj; k++) {
            int j = kg_model_joint(m, json_string_value(json_array_get(names, k)));
            assert_true(j >= 0);
            col[k] = m->joint[j].dofadr;
            qa[k] = m->joint[j].qadr;
        }
        json_t *samples = json_object_get(ch, "samples");
        for (size_t s = 0; s < json_array_size(samples); s++) {
            json_t *sm = json_array_get(samples, s), *q = json_object_get(sm, "q"), *Jr = json_object_get(sm, "J");
            memcpy(kd->q, m->q_default, (size_t)m->nq * sizeof *kd->q);
            for (size_t k = 0; k < nj; k++) kd->q[qa[k]] = json_number_value(json_array_get(q, k));
            kg_fk(m, kd);
            kg_jacobian_twists(m, kd);
            kg_jacobian(m, kd, tip, NULL, -1, J);
            for (int r = 0; r < 6; r++)
                for (size_t k = 0; k < nj; k++) {
                    double want = json_number_value(json_array_get(json_array_get(Jr, (size_t)r), k));
                    double e = fabs(J[r * m->dof + col[k]] - want) / fmax(1, fabs(want));
                    if (e > 1e-9) fail_msg("%s, tip %s, sample %zu: J[%d][%zu] = %.17g, KDL %.17g", file,
                                           m->link[tip].name, s, r, k, J[r * m->dof + col[k]], want);
                    worst = fmax(worst, e);
                }
        }
        free(col);
        free(qa);
        ++*nchains;
    }
    free(J);
    kg_data_free(kd);
    kg_model_free(m);
    kg_diags_clear(&d);
    json_decref(ref);
    return worst;
}

static void test_kdl_chains(void **state) {
    (void)state;
    const char *data = kg_test_data_dir();
    glob_t g;
    assert_int_equal(glob(KG_SOURCE_DIR "/tests/reference/jacobian/*.json", 0, NULL, &g), 0);
    int n = 0;
    double worst = 0;
    for (size_t i = 0; i < g.gl_pathc; i++) worst = fmax(worst, compare_kdl(g.gl_pathv[i], data, &n));
    globfree(&g);
    printf("%d chains equal KDL's ChainJntToJacSolver: worst %.2e (tolerance 1e-9)\n", n, worst);
    assert_true(n >= (data ? 14 : 3));
}

/* ---- closed loops: the four-bar of D7 ----------------------------------------------- */

static void test_four_bar_closure(void **state) {
    (void)state;
    kg_diags diags;
    kg_diags_init(&diags);
    kg_model *m = kg_test_four_bar(0.1, 0.35, 0.3, 0.4, KG_JOINT_CONTINUOUS, &diags);
    assert_non_null(m);
    kg_data *d = kg_data_new(m);
    const char *jn[] = {"J1", "J2", "J3", "J4"};
    const double q[] = {1.047197551, -0.418482424, -1.974532808, 1.345817680};
    for (int k = 0; k < 4; k++) d->q[m->joint[kg_model_joint(m, jn[k])].qadr] = q[k];
    kg_fk(m, d);
    kg_jacobian_twists(m, d);
    kg_closure cl;
    assert_int_equal(kg_closure_solve(m, d, &cl), 0);
    /* planar: three independent closure rows, one generalized coordinate, the crank */
    assert_int_equal(cl.rank, 3);
    assert_int_equal(cl.ngen, 1);
    assert_int_equal(cl.gen[0], m->joint[kg_model_joint(m, "J1")].dofadr);
    /* W = [1, H] with the digest's H (9 digits) */
    const double W[] = {1, -1.211457636, 0.358758823, -0.147301188};
    for (int k = 0; k < 4; k++) KG_ASSERT_NEAR(cl.W[m->joint[kg_model_joint(m, jn[k])].dofadr], W[k], 2e-8);
    assert_true(cl.residual < 1e-12);
    kg_closure_free(&cl);
    kg_data_free(d);
    kg_model_free(m);
    kg_diags_clear(&diags);
}

/* ---- manipulability --------------------------------------------------------------- */

/* A planar 2R arm (links 1.0 and 0.6 along x, axes z): J is 6 x 2 with columns
 * [-l1 s1 - l2 s12, l1 c1 + l2 c12, 0, 0, 0, 1] and [-l2 s12, l2 c12, 0, 0, 0, 1]. */
static void test_planar_arm(void **state) {
    (void)state;
    static const char urdf[] =
        "<robot name='r2'><link name='base'/><link name='l1'/><link name='l2'/><link name='tip'/>"
        "<joint name='j1' type='continuous'><parent link='base'/><child link='l1'/><axis xyz='0 0 1'/></joint>"
        "<joint name='j2' type='continuous'><parent link='l1'/><child link='l2'/><origin xyz='1 0 0'/>"
        "<axis xyz='0 0 1'/></joint>"
        "<joint name='t' type='fixed'><parent link='l2'/><child link='tip'/><origin xyz='0.6 0 0'/></joint></robot>";
    kg_diags d;
    kg_diags_init(&d);
    kg_model *m = kg_test_load_string("r2.urdf", urdf, &d);
    assert_non_null(m);
    kg_data *kd = kg_data_new(m);
    const double l1 = 1.0, l2 = 0.6, t1 = 0.4, t2 = 1.1;
    kd->q[0] = t1;
    kd->q[1] = t2;
    kg_fk(m, kd);
    kg_jacobian_twists(m, kd);
    double J[12];
    kg_jacobian(m, kd, kg_model_link(m, "tip"), NULL, -1, J);
    double s1 = sin(t1), c1 = cos(t1), s12 = sin(t1 + t2), c12 = cos(t1 + t2);
    double a[6] = {-l1 * s1 - l2 * s12, l1 * c1 + l2 * c12, 0, 0, 0, 1}, b[6] = {-l2 * s12, l2 * c12, 0, 0, 0, 1};
    for (int r = 0; r < 6; r++) {
        KG_ASSERT_NEAR(J[2 * r], a[r], 1e-15);
        KG_ASSERT_NEAR(J[2 * r + 1], b[r], 1e-15);
    }
    /* G = J^T J (2x2): w = sqrt(det G); singular values from its eigenvalues */
    double g11 = 0, g12 = 0, g22 = 0;
    for (int r = 0; r < 6; r++) g11 += a[r] * a[r], g12 += a[r] * b[r], g22 += b[r] * b[r];
    double det = g11 * g22 - g12 * g12, tr = g11 + g22, disc = sqrt(tr * tr / 4 - det);
    double e1 = tr / 2 + disc, e2 = tr / 2 - disc;
    kg_manipulability mp;
    assert_int_equal(kg_manipulability_svd(J, 2, 2, &mp), 0);
    assert_int_equal(mp.nsigma, 2);
    KG_ASSERT_NEAR(mp.w, sqrt(det), 1e-14);
    KG_ASSERT_NEAR(mp.sigma[0], sqrt(e1), 1e-14);
    KG_ASSERT_NEAR(mp.sigma[1], sqrt(e2), 1e-14);
    KG_ASSERT_NEAR(mp.inverse_condition, sqrt(e2 / e1), 1e-14);
    KG_ASSERT_NEAR(kg_manipulability_w(J, 2, 2), sqrt(det), 1e-14);
    /* the translational ellipsoid: J_v^T J_v has the position-only Gram entries; its
     * product of semi-axes is Yoshikawa's classic l1 l2 |sin t2| */
    KG_ASSERT_NEAR(mp.translation.length[0] * mp.translation.length[1], l1 * l2 * fabs(sin(t2)), 1e-14);
    KG_ASSERT_NEAR(mp.translation.length[2], 0, 1e-15);
    /* the rotational ellipsoid: both columns turn about z at unit rate: one axis, length sqrt(2) */
    KG_ASSERT_NEAR(mp.rotation.length[0], sqrt(2), 1e-14);
    KG_ASSERT_NEAR(fabs(mp.rotation.axes[6]), 1, 1e-14); /* the first axis (column 0) along z */
    kg_data_free(kd);
    kg_model_free(m);
    kg_diags_clear(&d);
}

/* A 6-DOF arm: w is |det J|, computed here by Gaussian elimination. */
static void test_six_dof_det(void **state) {
    (void)state;
    kg_diags d;
    kg_model *m = load(KG_SOURCE_DIR "/samples/humanoid.urdf", &d);
    kg_data *kd = kg_data_new(m);
    random_q(m, kd->q);
    kg_fk(m, kd);
    kg_jacobian_twists(m, kd);
    int tip = kg_model_link(m, "r_sole");
    double *J = malloc((size_t)6 * m->dof * sizeof *J);
    kg_jacobian(m, kd, tip, NULL, -1, J);
    unsigned char mask[64];
    assert_int_equal(kg_jacobian_columns(m, tip, -1, mask), 6);
    double A[36];
    for (int r = 0, k; r < 6; r++) {
        k = 0;
        for (int c = 0; c < m->dof; c++)
            if (mask[c]) A[6 * r + k++] = J[r * m->dof + c];
    }
    double M[36], det = 1;
    memcpy(M, A, sizeof M);
    for (int c = 0; c < 6; c++) {
        int p = c;
        for (int r = c + 1; r < 6; r++)
            if (fabs(M[6 * r + c]) > fabs(M[6 * p + c])) p = r;
        if (p != c) {
            for (int k = 0; k < 6; k++) {
                double t = M[6 * c + k];
                M[6 * c + k] = M[6 * p + k];
                M[6 * p + k] = t;
            }
            det = -det;
        }
        det *= M[6 * c + c];
        for (int r = c + 1; r < 6; r++) {
            double f = M[6 * r + c] / M[6 * c + c];
            for (int k = c; k < 6; k++) M[6 * r + k] -= f * M[6 * c + k];
        }
    }
    kg_manipulability mp;
    assert_int_equal(kg_manipulability_svd(A, 6, 6, &mp), 0);
    KG_ASSERT_NEAR(mp.w, fabs(det), 1e-12 * fmax(1, fabs(det)));
    KG_ASSERT_NEAR(kg_manipulability_w(A, 6, 6), fabs(det), 1e-12 * fmax(1, fabs(det)));
    free(J);
    kg_data_free(kd);
    kg_model_free(m);
    kg_diags_clear(&d);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_finite_differences), cmocka_unit_test(test_kdl_chains),
        cmocka_unit_test(test_four_bar_closure),   cmocka_unit_test(test_planar_arm),
        cmocka_unit_test(test_six_dof_det),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
