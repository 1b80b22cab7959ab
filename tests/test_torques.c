#define _XOPEN_SOURCE 700 /* mkstemp, fdopen */
/* Torques of a motion (include/kinegraph/torques.h), against values the test
 * computes on its own: the floating-root inverse dynamics against the same
 * robot hung from the world by a floating joint; the rates of a base turning
 * at a known rate; a static biped on both feet (contact forces sum to m g,
 * the least-squares share worked out from the normal equations, joint torques
 * equal to the static torques summed link by link, the ZMP at the COM's
 * ground projection); a pendulum whose pivot shakes, with its torque from
 * Lagrange's equation; the trajectory CSV read back. */
#include "testutil.h"

#include <stdlib.h>
#include <string.h>

#include "kinegraph/torques.h"
#include "analysis/qp.h"
#include "core/fk.h"
#include "core/motion.h"
#include "core/spatial.h"
#include "exporters/exporters.h"
#include "importers/importers.h"

#define SAMPLE KG_SOURCE_DIR "/samples/humanoid.urdf"

static uint64_t rng = 0x9E3779B97F4A7C15ull;
static double uniform(double lo, double hi) {
    rng ^= rng >> 12, rng ^= rng << 25, rng ^= rng >> 27;
    return lo + (hi - lo) * (double)((rng * 2685821657736338717ull) >> 11) * (1.0 / 9007199254740992.0);
}

static double total_mass(const kg_model *m) {
    double s = 0;
    for (int i = 0; i < m->nlink; i++) s += m->link[i].mass;
    return s;
}

/* Link i's COM in the world, from its pose. */
static void link_com(const kg_model *m, const kg_data *d, int i, double c[3]) {
    kg_mat3_vec(c, d->link_rot + 9 * i, m->link[i].com);
    for (int a = 0; a < 3; a++) c[a] += d->link_pos[3 * i + a];
}

static void com_of(const kg_model *m, const kg_data *d, double com[3]) {
    double M = 0;
    com[0] = com[1] = com[2] = 0;
    for (int i = 0; i < m->nlink; i++) {
        double c[3];
        link_com(m, d, i, c);
        for (int a = 0; a < 3; a++) com[a] += m->link[i].mass * c[a];
        M += m->link[i].mass;
    }
    for (int a = 0; a < 3; a++) com[a] /= M;
}

/* ---- the floating root against a floating joint from the world ---------------- */

static void test_floating_root(void **state) {
    (void)state;
    char *text = kg_test_slurp(SAMPLE);
    const char *tag = strstr(text, "<link name=\"pelvis\">");
    assert_non_null(tag);
    const char *add = "<link name=\"world\"/><joint name=\"float\" type=\"floating\"><parent link=\"world\"/>"
                      "<child link=\"pelvis\"/></joint>\n";
    size_t at = (size_t)(tag - text), len = strlen(text);
    char *wrapped = malloc(len + strlen(add) + 1);
    memcpy(wrapped, text, at);
    strcpy(wrapped + at, add);
    strcat(wrapped, text + at);
    kg_diags dg;
    kg_diags_init(&dg);
    kg_model *m = kg_test_load(SAMPLE), *mf = kg_test_load_string("wrapped.urdf", wrapped, &dg);
    assert_non_null(mf);
    const int jf = kg_model_joint(mf, "float");
    assert_int_equal(mf->joint[jf].type, KG_JOINT_FLOATING);
    kg_data *d = kg_data_new(m), *df = kg_data_new(mf);
    kg_dyn *w = kg_dyn_new(m), *wf = kg_dyn_new(mf);
    double *v = calloc((size_t)m->nv, sizeof *v), *a = calloc((size_t)m->nv, sizeof *a);
    double *tau = calloc((size_t)m->nv, sizeof *tau), *vf = calloc((size_t)mf->nv, sizeof *vf);
    double *af = calloc((size_t)mf->nv, sizeof *af), *tf = calloc((size_t)mf->nv, sizeof *tf);
    double *fext = calloc(6 * (size_t)m->nlink, sizeof *fext), *fextf = calloc(6 * (size_t)mf->nlink, sizeof *fextf);
    for (int trial = 0; trial < 20; trial++) {
        double pos[3] = {uniform(-1, 1), uniform(-1, 1), uniform(0, 1)}, quat[4], vb[6], ab[6], fb[6];
        for (int k = 0; k < 4; k++) quat[k] = uniform(-1, 1);
        for (int k = 0; k < 6; k++) vb[k] = uniform(-2, 2), ab[k] = uniform(-5, 5);
        kg_data_set_base(d, pos, quat);
        for (int j = 0; j < m->njoint; j++) {
            const kg_joint *J = &m->joint[j];
            if (J->nv == 0) continue;
            const kg_joint *K = &mf->joint[kg_model_joint(mf, J->name)];
            d->q[J->qadr] = df->q[K->qadr] = uniform(-1, 1);
            v[J->vadr] = vf[K->vadr] = uniform(-2, 2);
            a[J->vadr] = af[K->vadr] = uniform(-5, 5);
        }
        /* the floating joint's coordinates: the base pose; its rates: vbase, abase (world axes) */
        const kg_joint *F = &mf->joint[jf];
        double R[9], qn[4];
        kg_rot_from_quat(R, quat);
        kg_rot_to_quat(R, qn);
        for (int k = 0; k < 3; k++) df->q[F->qadr + k] = pos[k];
        for (int k = 0; k < 4; k++) df->q[F->qadr + 3 + k] = qn[k];
        for (int k = 0; k < 6; k++) vf[F->vadr + k] = vb[k], af[F->vadr + k] = ab[k];
        /* a wrench on each foot: the same link by name */
        memset(fextf, 0, 6 * (size_t)mf->nlink * sizeof *fextf);
        for (int i = 0; i < m->nlink; i++) {
            const int k = kg_model_link(mf, m->link[i].name);
            for (int e = 0; e < 6; e++) fext[6 * i + e] = fextf[6 * k + e] = uniform(-50, 50);
        }
        kg_fk(m, d);
        kg_fk(mf, df);
        kg_dyn_positions(m, d, w);
        kg_dyn_positions(mf, df, wf);
        kg_dyn_rnea_floating(m, w, NULL, vb, ab, v, a, fext, tau, fb);
        kg_dyn_rnea(mf, wf, NULL, vf, af, fextf, tf);
        double scale = 1;
        for (int k = 0; k < mf->nv; k++) scale = fmax(scale, fabs(tf[k]));
        for (int k = 0; k < 6; k++) KG_ASSERT_NEAR(fb[k], tf[F->vadr + k], 1e-10 * scale);
        for (int j = 0; j < m->njoint; j++) {
            const kg_joint *J = &m->joint[j];
            if (J->nv == 0) continue;
            KG_ASSERT_NEAR(tau[J->vadr], tf[mf->joint[kg_model_joint(mf, J->name)].vadr], 1e-10 * scale);
        }
    }
    free(v), free(a), free(tau), free(vf), free(af), free(tf), free(fext), free(fextf);
    kg_dyn_free(w), kg_dyn_free(wf);
    kg_data_free(d), kg_data_free(df);
    kg_model_free(m), kg_model_free(mf);
    kg_diags_clear(&dg);
    free(text), free(wrapped);
}

/* ---- rates -------------------------------------------------------------------- */

/* A base turning about a fixed tilted axis by theta(t) = w0 t + alpha t^2 / 2 and
 * moving along a parabola, a joint on a parabola: every stencil is exact on
 * quadratics, so the rates are the analytic ones at every frame, ends included. */
static void test_rates(void **state) {
    (void)state;
    kg_model *m = kg_test_load(SAMPLE);
    const double h = 0.01, w0 = 0.7, alpha = -2.5, axis[3] = {0.48, -0.6, 0.64};
    const int n = 9;
    kg_motion *mo = kg_motion_new(m->nq, h, n);
    mo->base = calloc(7 * (size_t)n, sizeof *mo->base);
    for (int f = 0; f < n; f++) {
        const double t = f * h, th = w0 * t + 0.5 * alpha * t * t;
        double *q = kg_motion_append(mo, m->q_default), R[9], *b = mo->base + 7 * f;
        q[0] = 0.3 + 1.5 * t - 4 * t * t; /* q'' = -8 */
        b[0] = 1 + 2 * t, b[1] = -t * t, b[2] = 0.6 + 0.5 * t * t;
        kg_rot_axis_angle(R, axis, th);
        kg_rot_to_quat(R, b + 3);
    }
    const int c0 = m->joint[0].vadr;
    assert_int_equal(m->joint[0].qadr, 0);
    double *v = calloc((size_t)m->nv, sizeof *v), *a = calloc((size_t)m->nv, sizeof *a), vb[6], ab[6];
    for (int f = 0; f < n; f++) {
        const double t = f * h;
        kg_motion_rates(m, mo, f, vb, ab, v, a);
        KG_ASSERT_NEAR(v[c0], 1.5 - 8 * t, 1e-9);
        KG_ASSERT_NEAR(a[c0], -8, 1e-6);
        KG_ASSERT_NEAR(vb[0], 2, 1e-9);
        KG_ASSERT_NEAR(vb[1], -2 * t, 1e-9);
        KG_ASSERT_NEAR(vb[2], t, 1e-9);
        KG_ASSERT_NEAR(ab[0], 0, 1e-6);
        KG_ASSERT_NEAR(ab[1], -2, 1e-6);
        KG_ASSERT_NEAR(ab[2], 1, 1e-6);
        for (int e = 0; e < 3; e++) {
            KG_ASSERT_NEAR(vb[3 + e], axis[e] * (w0 + alpha * t), 1e-9);
            KG_ASSERT_NEAR(ab[3 + e], axis[e] * alpha, 1e-6);
        }
    }
    /* one frame: no rates */
    mo->nframes = 1;
    kg_motion_rates(m, mo, 0, vb, ab, v, a);
    for (int e = 0; e < 6; e++) KG_ASSERT_NEAR(fabs(vb[e]) + fabs(ab[e]), 0, 0);
    KG_ASSERT_NEAR(fabs(v[c0]) + fabs(a[c0]), 0, 0);
    free(v), free(a);
    kg_motion_free(mo);
    kg_model_free(m);
}

/* ---- standing still on both feet ------------------------------------------------ */

/* The sample humanoid at pose q (NULL: rest) with its base turned by yaw about
 * z and placed so its soles are on the ground: nframes identical frames. */
static kg_motion *standing(const kg_model *m, const kg_feet *feet, const double *q, double yaw, int nframes) {
    kg_data *d = kg_data_new(m);
    if (q) memcpy(d->q, q, (size_t)m->nq * sizeof *q);
    double base[7] = {0.2, -0.1, 0, cos(yaw / 2), 0, 0, sin(yaw / 2)};
    kg_data_set_base(d, base, base + 3);
    kg_fk(m, d);
    double zmin = INFINITY;
    for (int s = 0; s < KG_NFOOT; s++) {
        double c[KG_SOLE_CORNERS][3];
        kg_feet_corners(feet, d, s, c);
        for (int k = 0; k < KG_SOLE_CORNERS; k++) zmin = fmin(zmin, c[k][2]);
    }
    base[2] = -zmin;
    kg_motion *mo = kg_motion_new(m->nq, 0.01, (size_t)nframes);
    mo->base = malloc(7 * (size_t)nframes * sizeof *mo->base);
    for (int f = 0; f < nframes; f++) {
        kg_motion_append(mo, d->q);
        memcpy(mo->base + 7 * f, base, sizeof base);
    }
    kg_data_free(d);
    return mo;
}

/* Is link l in the subtree of link top? */
static int below(const kg_model *m, int l, int top) {
    for (; l >= 0; l = m->link[l].parent)
        if (l == top) return 1;
    return 0;
}

static void check_standing(const kg_model *m, const kg_feet *feet, const double *q, double yaw) {
    const int n = 5;
    kg_motion *mo = standing(m, feet, q, yaw, n);
    kg_torque_options o;
    kg_torque_defaults(&o);
    kg_motion_torques t;
    kg_torque_frame fr[5];
    kg_diags dg;
    kg_diags_init(&dg);
    assert_int_equal(kg_motion_torques_compute(m, mo, NULL, feet, &o, &t, fr, &dg), 0);
    const double M = total_mass(m), g = 9.81;
    kg_data *d = kg_data_new(m);
    kg_motion_pose(mo, 2, d);
    kg_fk(m, d);
    double com[3];
    com_of(m, d, com);
    for (int f = 0; f < n; f++) {
        const kg_torque_frame *r = &fr[f];
        assert_true(r->contact[0] && r->contact[1]);
        assert_int_equal(r->npoint, 8);
        assert_true(r->balanced);
        /* the contact forces hold the weight */
        double F[3] = {0, 0, 0};
        for (int s = 0; s < KG_NFOOT; s++)
            for (int k = 0; k < KG_SOLE_CORNERS; k++)
                for (int e = 0; e < 3; e++) F[e] += r->force[s][k][e];
        KG_ASSERT_NEAR(F[0], 0, 1e-9 * M * g);
        KG_ASSERT_NEAR(F[1], 0, 1e-9 * M * g);
        KG_ASSERT_NEAR(F[2], M * g, 1e-9 * M * g);
        /* the ZMP of a still robot: the COM's ground projection */
        KG_ASSERT_NEAR(r->zmp[0], com[0], 1e-9);
        KG_ASSERT_NEAR(r->zmp[1], com[1], 1e-9);
        KG_ASSERT_NEAR(r->zmp[2], 0, 1e-12);
        assert_true(r->zmp_margin > 0 && !r->zmp_outside);
    }
    /* the least sum of squares of vertical forces with the wrench of the weight:
     * f = A^T (A A^T)^-1 b over the rows sum fz = M g, sum fz (y - Gy) = 0,
     * sum fz (x - Gx) = 0 (moments about the COM's projection G) */
    double P[8][3], fz[8];
    int np = 0;
    for (int s = 0; s < KG_NFOOT; s++) {
        double c[KG_SOLE_CORNERS][3];
        kg_feet_corners(feet, d, s, c);
        for (int k = 0; k < KG_SOLE_CORNERS; k++, np++) memcpy(P[np], c[k], sizeof c[k]);
    }
    double A[3][8], N[3][3] = {{0}}, b[3] = {M * g, 0, 0}, y[3];
    for (int i = 0; i < 8; i++) A[0][i] = 1, A[1][i] = P[i][1] - com[1], A[2][i] = P[i][0] - com[0];
    for (int r = 0; r < 3; r++)
        for (int c = 0; c < 3; c++)
            for (int i = 0; i < 8; i++) N[r][c] += A[r][i] * A[c][i];
    /* solve N y = b (Cramer) */
    const double det = N[0][0] * (N[1][1] * N[2][2] - N[1][2] * N[2][1]) - N[0][1] * (N[1][0] * N[2][2] - N[1][2] * N[2][0]) +
                       N[0][2] * (N[1][0] * N[2][1] - N[1][1] * N[2][0]);
    for (int k = 0; k < 3; k++) {
        double Nk[3][3];
        memcpy(Nk, N, sizeof N);
        for (int r = 0; r < 3; r++) Nk[r][k] = b[r];
        y[k] = (Nk[0][0] * (Nk[1][1] * Nk[2][2] - Nk[1][2] * Nk[2][1]) - Nk[0][1] * (Nk[1][0] * Nk[2][2] - Nk[1][2] * Nk[2][0]) +
                Nk[0][2] * (Nk[1][0] * Nk[2][1] - Nk[1][1] * Nk[2][0])) / det;
    }
    for (int i = 0; i < 8; i++) {
        fz[i] = A[0][i] * y[0] + A[1][i] * y[1] + A[2][i] * y[2];
        assert_true(fz[i] > 0); /* inside the cones: the QP's answer is this one */
        KG_ASSERT_NEAR(fr[2].force[i / 4][i % 4][2], fz[i], 1e-7 * M * g);
        KG_ASSERT_NEAR(fr[2].force[i / 4][i % 4][0], 0, 1e-7 * M * g);
        KG_ASSERT_NEAR(fr[2].force[i / 4][i % 4][1], 0, 1e-7 * M * g);
    }
    /* each joint's torque: what holds the links beyond it still under their
     * weights and the ground's forces on them, about its axis */
    for (int k = 0; k < t.nact; k++) {
        int j = -1;
        for (int jj = 0; jj < m->njoint; jj++)
            if (m->joint[jj].nv == 1 && m->joint[jj].vadr == t.act[k]) j = jj;
        assert_true(j >= 0);
        const kg_joint *J = &m->joint[j];
        const int child = J->child;
        const double *p = d->link_pos + 3 * child;
        double axis[3], moment[3] = {0, 0, 0};
        kg_mat3_vec(axis, d->link_rot + 9 * child, J->axis);
        for (int i = 0; i < m->nlink; i++) {
            if (!below(m, i, child)) continue;
            double c[3], r[3], wgt[3] = {0, 0, -m->link[i].mass * g}, x[3];
            link_com(m, d, i, c);
            for (int e = 0; e < 3; e++) r[e] = c[e] - p[e];
            kg_vec3_cross(x, r, wgt);
            for (int e = 0; e < 3; e++) moment[e] += x[e];
        }
        for (int i = 0; i < 8; i++) {
            if (!below(m, feet->link[i / 4], child)) continue;
            double r[3], x[3], f3[3] = {0, 0, fz[i]};
            for (int e = 0; e < 3; e++) r[e] = P[i][e] - p[e];
            kg_vec3_cross(x, r, f3);
            for (int e = 0; e < 3; e++) moment[e] += x[e];
        }
        const double expect = -kg_vec3_dot(axis, moment);
        for (int f = 0; f < n; f++) KG_ASSERT_NEAR(t.tau[(size_t)f * t.nact + k], expect, 1e-6);
        if (isfinite(J->effort)) KG_ASSERT_NEAR(t.ratio_max[k], fabs(expect) / J->effort, 1e-6 / J->effort);
    }
    assert_int_equal(t.contact_frames, n);
    assert_int_equal(t.double_support_frames, n);
    assert_int_equal(t.zmp_outside_frames, 0);
    assert_int_equal(t.unbalanced_frames, 0);
    kg_motion_torques_free(&t);
    kg_data_free(d);
    kg_motion_free(mo);
    kg_diags_clear(&dg);
}

static void test_standing(void **state) {
    (void)state;
    kg_model *m = kg_test_load(SAMPLE);
    kg_feet feet;
    kg_diags dg;
    kg_diags_init(&dg);
    assert_int_equal(kg_feet_find(m, &feet, &dg), 0);
    /* the sample's soles: the foot boxes' bottoms, on the foot ends (l_sole, r_sole) */
    for (int s = 0; s < KG_NFOOT; s++) {
        assert_true(feet.from_geometry[s]);
        KG_ASSERT_NEAR(feet.corner[s][3][0] - feet.corner[s][0][0], 0.2, 1e-12);
        KG_ASSERT_NEAR(feet.corner[s][3][1] - feet.corner[s][0][1], 0.1, 1e-12);
        assert_string_equal(m->link[feet.link[s]].name, s ? "r_sole" : "l_sole"); /* the foot end: the deepest link */
    }
    kg_diags_clear(&dg);
    check_standing(m, &feet, NULL, 0);
    /* arms forward, a knee bent a little, turned: still on both feet */
    double *q = calloc((size_t)m->nq, sizeof *q);
    q[m->joint[kg_model_joint(m, "l_shoulder_pitch")].qadr] = -0.6;
    q[m->joint[kg_model_joint(m, "r_shoulder_pitch")].qadr] = -0.3;
    q[m->joint[kg_model_joint(m, "r_elbow")].qadr] = -0.8;
    q[m->joint[kg_model_joint(m, "waist_yaw")].qadr] = 0.2;
    check_standing(m, &feet, q, 0.4);
    free(q);
    kg_model_free(m);
}

/* A foot link's own axes do not matter: the sample with each foot's link
 * (and its sole frame) turned a quarter turn about y has the same soles in
 * the world at rest, corner by corner, and stands as the sample does (found
 * in the link's axes, the sole was the foot box's side: 0.2 x 0.02 m, 6 cm
 * to one side of the sole frame). */
static void test_turned_feet(void **state) {
    (void)state;
    kg_diags dg;
    kg_diags_init(&dg);
    char *text = kg_test_turn_sample_feet(kg_test_slurp(SAMPLE));
    kg_model *a = kg_test_load(SAMPLE), *b = kg_test_load_string("humanoid.urdf", text, &dg);
    assert_non_null(b);
    kg_feet fa, fb;
    assert_int_equal(kg_feet_find(a, &fa, &dg), 0);
    assert_int_equal(kg_feet_find(b, &fb, &dg), 0);
    kg_data *da = kg_data_new(a), *db = kg_data_new(b);
    kg_fk(a, da), kg_fk(b, db);
    double most = 0;
    for (int s = 0; s < KG_NFOOT; s++) {
        double ca[KG_SOLE_CORNERS][3], cb[KG_SOLE_CORNERS][3];
        kg_feet_corners(&fa, da, s, ca), kg_feet_corners(&fb, db, s, cb);
        for (int k = 0; k < KG_SOLE_CORNERS; k++)
            for (int c = 0; c < 3; c++) most = fmax(most, fabs(ca[k][c] - cb[k][c]));
    }
    printf("  feet's links turned: sole corners at rest at most %.2e m from the sample's\n", most);
    assert_true(most <= 1e-12);
    check_standing(b, &fb, NULL, 0);
    kg_data_free(da), kg_data_free(db);
    kg_model_free(a), kg_model_free(b);
    kg_diags_clear(&dg);
    free(text);
}

/* Standing, the whole robot accelerating forwards at a (its joints still, the
 * feet flagged down): the ground must push M a forwards. Within friction
 * (a = 0.05 g, the ZMP 4 cm ahead of the COM) the contacts make it exactly;
 * at a = 0.8 g no forces within the cones can (the pyramid inscribed in
 * mu = 0.5 holds 0.35 M g along x): each corner's force stays in its pyramid
 * and the frame is unbalanced, its ZMP outside. */
static void test_pushed(void **state) {
    (void)state;
    kg_model *m = kg_test_load(SAMPLE);
    kg_feet feet;
    kg_diags dg;
    kg_diags_init(&dg);
    assert_int_equal(kg_feet_find(m, &feet, &dg), 0);
    const double M = total_mass(m), g = 9.81, h = 0.01;
    const int n = 7;
    for (int hard = 0; hard < 2; hard++) {
        const double acc = (hard ? 0.8 : 0.05) * g;
        kg_motion *mo = standing(m, &feet, NULL, 0, n);
        for (int f = 0; f < n; f++) mo->base[7 * f] += 0.5 * acc * (f * h) * (f * h);
        mo->frame_time = h;
        unsigned char contacts[2 * 7];
        memset(contacts, 1, sizeof contacts);
        kg_torque_options o;
        kg_torque_defaults(&o);
        kg_motion_torques t;
        kg_torque_frame fr[7];
        assert_int_equal(kg_motion_torques_compute(m, mo, contacts, &feet, &o, &t, fr, &dg), 0);
        for (int f = 0; f < n; f++) {
            const kg_torque_frame *r = &fr[f];
            KG_ASSERT_NEAR(r->required[0], M * acc, 1e-6 * M * g);
            KG_ASSERT_NEAR(r->required[2], M * g, 1e-6 * M * g);
            double F[3] = {0, 0, 0};
            for (int s = 0; s < KG_NFOOT; s++)
                for (int k = 0; k < KG_SOLE_CORNERS; k++) {
                    const double *c = r->force[s][k];
                    assert_true(c[2] >= -1e-9 * M * g);
                    assert_true(fabs(c[0]) <= o.friction / sqrt(2) * c[2] + 1e-9 * M * g);
                    assert_true(fabs(c[1]) <= o.friction / sqrt(2) * c[2] + 1e-9 * M * g);
                    for (int e = 0; e < 3; e++) F[e] += c[e];
                }
            /* the ZMP: the COM's projection moved back by its height times a / g */
            KG_ASSERT_NEAR(r->zmp[0], r->com[0] - r->com[2] * acc / g, 1e-6);
            if (!hard) {
                assert_true(r->balanced && !r->zmp_outside);
                KG_ASSERT_NEAR(F[0], M * acc, 1e-9 * M * g);
                KG_ASSERT_NEAR(F[2], M * g, 1e-9 * M * g);
                KG_ASSERT_NEAR(r->residual_force, 0, 1e-9 * M * g);
            } else {
                assert_true(!r->balanced && r->zmp_outside);
                assert_true(F[0] <= o.friction / sqrt(2) * F[2] + 1e-9 * M * g);
                assert_true(r->residual_force > 0.1 * M * g);
            }
        }
        assert_int_equal(t.unbalanced_frames, hard ? n : 0);
        KG_ASSERT_NEAR(t.zmp_outside_percent, hard ? 100 : 0, 0);
        kg_motion_torques_free(&t);
        kg_motion_free(mo);
    }
    kg_diags_clear(&dg);
    kg_model_free(m);
}

/* Newton and Euler on the whole body, for a smooth 3-D motion of the sample
 * (every joint and the base on sinusoids, no contacts): the wrench the base
 * needs is the rate of the body's momentum less its weight. Both sides apart:
 * W from the library's rates and floating-root RNEA; the momentum from the
 * links' poses alone (each link's COM velocity and angular velocity by
 * central differences of its pose, m v and I w + m (c - G) x v summed), its
 * rate by central differences again. They agree to the differences' O(h^2). */
static void test_momentum(void **state) {
    (void)state;
    kg_model *m = kg_test_load(SAMPLE);
    const double h = 0.002;
    const int n = 41, L = m->nlink;
    kg_motion *mo = kg_motion_new(m->nq, h, n);
    mo->base = calloc(7 * (size_t)n, sizeof *mo->base);
    double amp[64], freq[64], phase[64];
    for (int k = 0; k < m->nq; k++) amp[k] = uniform(0.1, 0.4), freq[k] = uniform(2, 8), phase[k] = uniform(0, 6);
    const double axis[3] = {0.6, 0, 0.8};
    for (int f = 0; f < n; f++) {
        const double t = f * h;
        double *q = kg_motion_append(mo, NULL), R[9], *b = mo->base + 7 * f;
        for (int k = 0; k < m->nq; k++) q[k] = amp[k] * sin(freq[k] * t + phase[k]);
        b[0] = 0.3 * sin(3 * t), b[1] = 0.2 * cos(2 * t), b[2] = 0.7 + 0.05 * sin(5 * t);
        kg_rot_axis_angle(R, axis, 0.5 * sin(4 * t));
        kg_rot_to_quat(R, b + 3);
    }
    kg_torque_frame *fr = calloc((size_t)n, sizeof *fr);
    kg_motion_torques t;
    kg_diags dg;
    kg_diags_init(&dg);
    assert_int_equal(kg_motion_torques_compute(m, mo, NULL, NULL, NULL, &t, fr, &dg), 0);
    /* per frame: the links' rotations and COMs, the whole COM */
    double *R = malloc(sizeof(double) * 9 * L * n), *C = malloc(sizeof(double) * 3 * L * n), *G = calloc(3 * (size_t)n, sizeof *G);
    double *P = calloc(3 * (size_t)n, sizeof *P), *H = calloc(3 * (size_t)n, sizeof *H);
    const double M = total_mass(m), g = 9.81;
    kg_data *d = kg_data_new(m);
    for (int f = 0; f < n; f++) {
        kg_motion_pose(mo, f, d);
        kg_fk(m, d);
        memcpy(R + 9 * (size_t)f * L, d->link_rot, 9 * (size_t)L * sizeof *R);
        for (int i = 0; i < L; i++) link_com(m, d, i, C + 3 * ((size_t)f * L + i));
        com_of(m, d, G + 3 * f);
    }
    /* momenta at frames 1 .. n-2: linear (kg m/s) and angular about the COM */
    for (int f = 1; f < n - 1; f++)
        for (int i = 0; i < L; i++) {
            const double mi = m->link[i].mass;
            double D[9], w[3], v[3], r[3], x[3], Iw[9], Iwx[3];
            kg_mat3_mul_bt(D, R + 9 * ((size_t)(f + 1) * L + i), R + 9 * ((size_t)(f - 1) * L + i));
            kg_rot_log(D, w);
            for (int a = 0; a < 3; a++) {
                w[a] /= 2 * h;
                v[a] = (C[3 * ((size_t)(f + 1) * L + i) + a] - C[3 * ((size_t)(f - 1) * L + i) + a]) / (2 * h);
                r[a] = C[3 * ((size_t)f * L + i) + a] - G[3 * f + a];
            }
            kg_inertia_rotate(Iw, R + 9 * ((size_t)f * L + i), m->link[i].inertia);
            kg_mat3_vec(Iwx, Iw, w);
            kg_vec3_cross(x, r, v);
            for (int a = 0; a < 3; a++) P[3 * f + a] += mi * v[a], H[3 * f + a] += Iwx[a] + mi * x[a];
        }
    double fscale = M * g, nscale = 0;
    for (int f = 2; f < n - 2; f++) nscale = fmax(nscale, kg_vec3_norm(fr[f].required + 3));
    for (int f = 2; f < n - 2; f++) {
        double NG[3], x[3];
        kg_vec3_cross(x, fr[f].com, fr[f].required);
        for (int a = 0; a < 3; a++) NG[a] = fr[f].required[3 + a] - x[a];
        KG_ASSERT_NEAR(fr[f].com[0], G[3 * f], 1e-12);
        for (int a = 0; a < 3; a++) {
            const double dP = (P[3 * (f + 1) + a] - P[3 * (f - 1) + a]) / (2 * h) - (a == 2 ? -M * g : 0);
            const double dH = (H[3 * (f + 1) + a] - H[3 * (f - 1) + a]) / (2 * h);
            KG_ASSERT_NEAR(fr[f].required[a], dP, 1e-4 * fscale);
            KG_ASSERT_NEAR(NG[a], dH, 1e-4 * fmax(nscale, 1));
        }
    }
    kg_data_free(d);
    free(R), free(C), free(G), free(P), free(H), free(fr);
    kg_motion_torques_free(&t);
    kg_motion_free(mo);
    kg_diags_clear(&dg);
    kg_model_free(m);
}

/* ---- a pendulum whose pivot shakes ------------------------------------------------ */

static const char pendulum[] =
    "<robot name=\"pendulum\">"
    "<link name=\"pivot\"/>"
    "<joint name=\"hinge\" type=\"continuous\"><parent link=\"pivot\"/><child link=\"bob\"/><axis xyz=\"0 1 0\"/>"
    "<limit effort=\"20\" velocity=\"10\"/></joint>"
    "<link name=\"bob\"><inertial><origin xyz=\"0 0 -0.4\"/><mass value=\"2\"/>"
    "<inertia ixx=\"0.01\" ixy=\"0\" ixz=\"0\" iyy=\"0.03\" iyz=\"0\" izz=\"0.02\"/></inertial></link>"
    "</robot>";

/* q = A sin(w t), the pivot at x = B sin(u t): tau = (Ic + m l^2) q'' + m g l sin q - m l x'' cos q
 * (Lagrange: the COM at (x - l sin q, -l cos q)). */
static void test_pendulum(void **state) {
    (void)state;
    kg_diags dg;
    kg_diags_init(&dg);
    kg_model *m = kg_test_load_string("pendulum.urdf", pendulum, &dg);
    assert_non_null(m);
    const double A = 0.8, w = 3.0, B = 0.05, u = 5.0, mass = 2, l = 0.4, Ic = 0.03, g = 9.81, h = 0.002;
    const int n = 1001;
    for (int shake = 0; shake < 2; shake++) {
        kg_motion *mo = kg_motion_new(m->nq, h, n);
        mo->base = calloc(7 * (size_t)n, sizeof *mo->base);
        for (int f = 0; f < n; f++) {
            const double t = f * h;
            double *q = kg_motion_append(mo, NULL);
            q[0] = A * sin(w * t);
            mo->base[7 * f] = shake ? B * sin(u * t) : 0;
            mo->base[7 * f + 3] = 1;
        }
        kg_motion_torques t;
        assert_int_equal(kg_motion_torques_compute(m, mo, NULL, NULL, NULL, &t, NULL, &dg), 0);
        assert_int_equal(t.nact, 1);
        /* finite differences err by about h^2 q''''/12 (11/12 at the ends' one-sided ones) */
        const double err = h * h * (A * pow(w, 4) * (Ic + mass * l * l) + mass * l * B * pow(u, 4));
        double tmax = 0;
        for (int f = 0; f < n; f++) {
            const double tt = f * h, q = A * sin(w * tt), qdd = -A * w * w * sin(w * tt);
            const double xdd = shake ? -B * u * u * sin(u * tt) : 0;
            const double expect = (Ic + mass * l * l) * qdd + mass * g * l * sin(q) - mass * l * xdd * cos(q);
            KG_ASSERT_NEAR(t.tau[f], expect, 1.5 * err);
            tmax = fmax(tmax, fabs(expect));
        }
        KG_ASSERT_NEAR(t.tau_max[0], tmax, 2 * err);
        KG_ASSERT_NEAR(t.effort[0], 20, 0);
        KG_ASSERT_NEAR(t.ratio_max[0], t.tau_max[0] / 20, 1e-15);
        assert_int_equal(t.contact_frames, 0);
        kg_motion_torques_free(&t);
        kg_motion_free(mo);
    }
    kg_model_free(m);
    kg_diags_clear(&dg);
}

/* ---- the trajectory CSV read back ------------------------------------------------- */

static void test_read_csv(void **state) {
    (void)state;
    kg_model *m = kg_test_load(SAMPLE);
    const int n = 6;
    kg_motion *mo = kg_motion_new(m->nq, 0.02, n);
    mo->base = calloc(7 * (size_t)n, sizeof *mo->base);
    for (int f = 0; f < n; f++) {
        double *q = kg_motion_append(mo, NULL);
        for (int k = 0; k < m->nq; k++) q[k] = uniform(-0.5, 0.5);
        double *b = mo->base + 7 * f, R[9], ax[3] = {0, 0, 1};
        b[0] = uniform(-1, 1), b[1] = uniform(-1, 1), b[2] = uniform(0.5, 0.7);
        kg_rot_axis_angle(R, ax, uniform(-1, 1));
        kg_rot_to_quat(R, b + 3);
    }
    char path[2][64] = {"/tmp/kg_torques_XXXXXX", "/tmp/kg_torques_XXXXXX"};
    kg_diags dg;
    kg_diags_init(&dg);
    for (int lafan = 0; lafan < 2; lafan++) {
        int fd = mkstemp(path[lafan]);
        FILE *f = fdopen(fd, "w");
        kg_export_options eo = {.skip_followers = 1};
        assert_int_equal((lafan ? kg_export_csv_lafan1 : kg_export_csv)(m, mo, &eo, f, NULL, &dg), 0);
        fclose(f);
        unsigned char *contacts;
        kg_motion *back = kg_import_trajectory_csv(m, path[lafan], lafan ? 50 : 0, &contacts, &dg);
        if (!back) kg_test_print_diags(&dg);
        assert_non_null(back);
        assert_null(contacts);
        assert_int_equal(back->nframes, n);
        KG_ASSERT_NEAR(back->frame_time, 0.02, 1e-12);
        for (int k = 0; k < n * m->nq; k++) KG_ASSERT_NEAR(back->q[k], mo->q[k], 0);
        for (int k = 0; k < 7 * n; k++) KG_ASSERT_NEAR(back->base[k], mo->base[k], 1e-15);
        kg_motion_free(back);
        remove(path[lafan]);
    }
    /* contact columns */
    char cpath[] = "/tmp/kg_torques_XXXXXX";
    int fd = mkstemp(cpath);
    FILE *f = fdopen(fd, "w");
    fprintf(f, "time,root_x,root_y,root_z,root_qw,root_qx,root_qy,root_qz,r_knee,contact_left,contact_right\n"
               "0,0,0,0.6,1,0,0,0,0.1,1,0\n0.5,0,0,0.6,1,0,0,0,0.2,1,1\n1,0,0,0.6,1,0,0,0,0.3,0,1\n");
    fclose(f);
    unsigned char *contacts;
    kg_motion *back = kg_import_trajectory_csv(m, cpath, 0, &contacts, &dg);
    assert_non_null(back);
    assert_non_null(contacts);
    const unsigned char expect[6] = {1, 0, 1, 1, 0, 1};
    assert_memory_equal(contacts, expect, 6);
    KG_ASSERT_NEAR(back->frame_time, 0.5, 0);
    KG_ASSERT_NEAR(back->q[2 * m->nq + m->joint[kg_model_joint(m, "r_knee")].qadr], 0.3, 0);
    free(contacts);
    kg_motion_free(back);
    /* broken files: an error each, no motion */
    static const char *const bad[][2] = {
        {"time,root_x\n", "trajectory.empty"},
        {"", "trajectory.empty"},
        {"time,root_x,r_knee\n0,1,2\n0.1,1\n", "trajectory.columns"},
        {"time,root_x,r_knee\n0,1,nan\n", "trajectory.number"},
        {"time,root_x,r_knee\n0,1,1e999\n", "trajectory.number"},
        {"time,\"root_x,r_knee\n0,1,2\n", "trajectory.columns"},
        {"time,r_knee\n0,1\n0,2\n", "trajectory.time"},
        {"1,2,3\n", "trajectory.columns"},
    };
    for (size_t k = 0; k < sizeof bad / sizeof *bad; k++) {
        f = fopen(cpath, "w");
        fputs(bad[k][0], f);
        fclose(f);
        kg_diags bd;
        kg_diags_init(&bd);
        back = kg_import_trajectory_csv(m, cpath, 0, &contacts, &bd);
        if (back || !kg_test_find(&bd, bad[k][1])) {
            kg_test_print_diags(&bd);
            fail_msg("bad file %zu: expected %s", k, bad[k][1]);
        }
        assert_null(contacts);
        kg_diags_clear(&bd);
    }
    remove(cpath);
    kg_motion_free(mo);
    kg_model_free(m);
    kg_diags_clear(&dg);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_floating_root), cmocka_unit_test(test_rates),   cmocka_unit_test(test_standing),
        cmocka_unit_test(test_pushed),        cmocka_unit_test(test_pendulum), cmocka_unit_test(test_read_csv),
        cmocka_unit_test(test_momentum),      cmocka_unit_test(test_turned_feet),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
