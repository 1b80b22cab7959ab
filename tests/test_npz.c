/* RL motion files (.npz, exporters/npz.c) read back with numpy (/usr/bin/python3,
 * tests/npz_dump.py; the test is skipped with a notice without it): the arrays
 * and their dtypes (float32, names '<U') and shapes ([T, J], [T, B, 3], ...);
 * every frame's body poses equal kinegraph's FK of the file's own joint_pos
 * (root pose from body 0) to 1e-6 of the motion's size; the velocities are the
 * central differences of the file's positions (one-sided at the ends) to
 * float32 rounding. On the sample walk (a BVH skeleton, by the library), the
 * sample humanoid retargeted (`retarget -o clip.npz`), the same through a CSV
 * (`convert humanoid.urdf clip.npz --motion clip.csv`, both layouts), the rest
 * pose alone, an animated COLLADA file and a mimic-coupled URDF from the
 * corpus, and a corpus clip on the Unitree G1. */
#define _DEFAULT_SOURCE /* mkdtemp */
#include "testutil.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/fk.h"
#include "core/motion.h"
#include "core/spatial.h"
#include "io/load.h"
#include "io/save.h"

static char tmpdir[] = "/tmp/kg_npz_XXXXXX";
static const char *python = "/usr/bin/python3";

/* The arrays of an .npz, through numpy; NULL when numpy cannot run here. */
static json_t *npz_read(const char *npz) {
    char json[4200], cmd[12000];
    snprintf(json, sizeof json, "%s/dump.json", tmpdir);
    snprintf(cmd, sizeof cmd, "%s '%s/tests/npz_dump.py' '%s' '%s'", python, KG_SOURCE_DIR, npz, json);
    if (system(cmd) != 0) fail_msg("numpy cannot read %s", npz);
    json_error_t e;
    json_t *j = json_load_file(json, 0, &e);
    if (!j) fail_msg("%s: %s", json, e.text);
    return j;
}

static int have_numpy(void) {
    char cmd[200];
    snprintf(cmd, sizeof cmd, "%s -c 'import numpy' >/dev/null 2>&1", python);
    return access(python, X_OK) == 0 && system(cmd) == 0;
}

#define REQUIRE_NUMPY()                                                                         \
    do {                                                                                        \
        if (!have_numpy()) {                                                                    \
            printf("SKIPPED: %s needs numpy under %s (apt-get install python3-numpy)\n", __func__, \
                   python);                                                                     \
            skip();                                                                             \
        }                                                                                       \
    } while (0)

/* Array `name`: checks its dtype and number of dimensions, gives its shape and values. */
static const json_t *array(json_t *z, const char *name, const char *dtype, int ndim, size_t *shape) {
    json_t *a = json_object_get(z, name);
    if (!a) fail_msg("no array '%s'", name);
    const char *dt = json_string_value(json_object_get(a, "dtype"));
    if (strncmp(dt, dtype, strlen(dtype))) fail_msg("%s: dtype %s, not %s", name, dt, dtype);
    json_t *s = json_object_get(a, "shape");
    if ((int)json_array_size(s) != ndim) fail_msg("%s: %zu dimensions, not %d", name, json_array_size(s), ndim);
    size_t n = 1;
    for (int k = 0; k < ndim; k++) n *= shape[k] = (size_t)json_integer_value(json_array_get(s, (size_t)k));
    json_t *data = json_object_get(a, "data");
    assert_int_equal(json_array_size(data), n);
    return data;
}

/* An array's values as doubles. */
static double *values(const json_t *data) {
    size_t n = json_array_size(data);
    double *v = malloc((n ? n : 1) * sizeof *v);
    for (size_t i = 0; i < n; i++) v[i] = json_number_value(json_array_get(data, i));
    return v;
}

typedef struct result {
    int frames, joints, bodies;
    double fps;
    double pose;   /* largest FK difference: positions over the motion's size, rotations */
    double vel;    /* largest velocity difference over its float32 tolerance */
} result;

/* Checks the file against m: layout, FK of joint_pos, velocities. */
static result check(const kg_model *m, const char *npz) {
    json_t *z = npz_read(npz);
    result r = {0};
    size_t s0[1], sj[1], sb[1], sq[2], sv[2], sp[3], so[3], sl[3], sa[3];
    r.fps = json_number_value(json_array_get(array(z, "fps", "<f4", 0, s0), 0));
    assert_true(r.fps > 0);
    const json_t *jn = array(z, "joint_names", "<U", 1, sj), *bn = array(z, "body_names", "<U", 1, sb);
    double *q = values(array(z, "joint_pos", "<f4", 2, sq)), *qv = values(array(z, "joint_vel", "<f4", 2, sv));
    double *pos = values(array(z, "body_pos_w", "<f4", 3, sp)), *quat = values(array(z, "body_quat_w", "<f4", 3, so));
    double *lin = values(array(z, "body_lin_vel_w", "<f4", 3, sl)), *ang = values(array(z, "body_ang_vel_w", "<f4", 3, sa));
    const size_t T = sq[0], J = sj[0], B = sb[0];
    r.frames = (int)T, r.joints = (int)J, r.bodies = (int)B;
    assert_true(T >= 1 && B >= 1);
    assert_true(sq[1] == J && sv[0] == T && sv[1] == J);
    assert_true(sp[0] == T && sp[1] == B && sp[2] == 3 && so[0] == T && so[1] == B && so[2] == 4);
    assert_true(sl[0] == T && sl[1] == B && sl[2] == 3 && sa[0] == T && sa[1] == B && sa[2] == 3);
    /* names: the model's coordinates and real links */
    int *coord = malloc((J + 1) * sizeof *coord), *body = calloc(B, sizeof *body);
    char name[1100];
    for (size_t j = 0; j < J; j++) {
        const char *n = json_string_value(json_array_get(jn, j));
        coord[j] = -1;
        for (int k = 0; k < m->nq && coord[j] < 0; k++)
            if (!strcmp(kg_coord_name(m, k, name, sizeof name), n)) coord[j] = k;
        if (coord[j] < 0) fail_msg("joint_names[%zu] '%s' is no coordinate", j, n);
    }
    for (size_t b = 0; b < B; b++) {
        const char *n = json_string_value(json_array_get(bn, b));
        body[b] = -1;
        for (int i = 0; i < m->nlink && body[b] < 0; i++)
            if (m->link[i].real < 0 && !strcmp(m->link[i].name, n)) body[b] = i;
        if (body[b] < 0) fail_msg("body_names[%zu] '%s' is no link", b, n);
    }
    assert_int_equal(body[0], 0);
    /* FK of joint_pos, the root link where body 0 is */
    double size = 1;
    for (size_t i = 0; i < T * B * 3; i++) size = fmax(size, fabs(pos[i]));
    kg_data *d = kg_data_new(m);
    for (size_t t = 0; t < T; t++) {
        memcpy(d->q, m->q_default, (size_t)m->nq * sizeof(double));
        for (size_t j = 0; j < J; j++) d->q[coord[j]] = q[t * J + j];
        kg_data_set_base(d, pos + t * B * 3, quat + t * B * 4);
        kg_fk(m, d);
        for (size_t b = 0; b < B; b++) {
            const double *x = pos + (t * B + b) * 3, *w = quat + (t * B + b) * 4;
            double R[9];
            kg_rot_from_quat(R, w);
            assert_true(fabs(sqrt(w[0] * w[0] + w[1] * w[1] + w[2] * w[2] + w[3] * w[3]) - 1) < 1e-6);
            for (int k = 0; k < 3; k++) r.pose = fmax(r.pose, fabs(x[k] - d->link_pos[3 * body[b] + k]) / size);
            for (int k = 0; k < 9; k++) r.pose = fmax(r.pose, fabs(R[k] - d->link_rot[9 * body[b] + k]));
        }
    }
    kg_data_free(d);
    /* velocities: differences of the stored positions, to what float32 rounding allows */
    unsigned char *angle = calloc(J + 1, 1);
    for (size_t j = 0; j < J; j++)
        for (int a = 0; a < m->nangle; a++) angle[j] |= m->angle_q[a] == coord[j];
    const double dt = 1 / r.fps, eps = 1.2e-7; /* float32 epsilon, rounded up */
    double qmax = 1;
    for (size_t i = 0; i < T * J; i++) qmax = fmax(qmax, fabs(q[i]));
    for (size_t t = 0; t < T; t++) {
        size_t a = t ? t - 1 : 0, c = t + 1 < T ? t + 1 : T - 1;
        double h = (double)(c - a) * dt;
        for (size_t j = 0; j < J; j++) {
            double dq = q[c * J + j] - q[a * J + j];
            if (angle[j]) dq = remainder(dq, 2 * M_PI); /* angles: the change to the nearest turn */
            double v = c > a ? dq / h : 0, got = qv[t * J + j];
            double tol = 4 * eps * (qmax / (c > a ? h : 1) + fabs(got)) + 1e-12;
            r.vel = fmax(r.vel, fabs(got - v) / tol);
        }
        for (size_t b = 0; b < B; b++) {
            for (int k = 0; k < 3; k++) {
                double v = c > a ? (pos[(c * B + b) * 3 + k] - pos[(a * B + b) * 3 + k]) / h : 0,
                       got = lin[(t * B + b) * 3 + k];
                double tol = 4 * eps * (size / (c > a ? h : 1) + fabs(got)) + 1e-12;
                r.vel = fmax(r.vel, fabs(got - v) / tol);
            }
            double Ra[9], Rc[9], rel[9], w[3] = {0, 0, 0};
            kg_rot_from_quat(Ra, quat + (a * B + b) * 4);
            kg_rot_from_quat(Rc, quat + (c * B + b) * 4);
            kg_mat3_mul_bt(rel, Rc, Ra);
            if (c > a) {
                kg_rot_log(rel, w);
                for (int k = 0; k < 3; k++) w[k] /= h;
            }
            for (int k = 0; k < 3; k++) {
                double got = ang[(t * B + b) * 3 + k], tol = 8 * eps * ((c > a ? 1 / h : 1) + fabs(got)) + 1e-12;
                r.vel = fmax(r.vel, fabs(got - w[k]) / tol);
            }
        }
    }
    free(coord), free(body), free(angle);
    free(q), free(qv), free(pos), free(quat), free(lin), free(ang);
    json_decref(z);
    return r;
}

static void expect(const kg_model *m, const char *npz, int frames, const char *label) {
    result r = check(m, npz);
    printf("%-28s %4d frames at %g fps, %3d joints, %3d bodies: FK of joint_pos %.1e, velocities %.2f of tolerance\n",
           label, r.frames, r.fps, r.joints, r.bodies, r.pose, r.vel);
    if (frames) assert_int_equal(r.frames, frames);
    if (!(r.pose <= 1e-6)) fail_msg("%s: body poses %g from FK of joint_pos", label, r.pose);
    if (!(r.vel <= 1)) fail_msg("%s: velocities %g times the tolerance from the positions' differences", label, r.vel);
}

static void path_in(char *p, size_t n, const char *name) { snprintf(p, n, "%s/%s", tmpdir, name); }

static void save(const kg_model *m, const kg_motion *mo, const char *path) {
    kg_diags d;
    kg_diags_init(&d);
    int rc = kg_save(path, NULL, m, mo, NULL, &d);
    if (rc) kg_test_print_diags(&d);
    assert_int_equal(rc, 0);
    kg_diags_clear(&d);
}

static void test_bvh(void **state) {
    (void)state;
    REQUIRE_NUMPY();
    kg_diags d;
    kg_diags_init(&d);
    kg_motion *mo = NULL;
    kg_model *m = kg_load_clip(KG_SOURCE_DIR "/samples/walk.bvh", NULL, &mo, &d);
    assert_non_null(mo);
    char p[4200];
    path_in(p, sizeof p, "walk.npz");
    save(m, mo, p);
    expect(m, p, mo->nframes, "walk.bvh");
    assert_true(check(m, p).fps == 30); /* Frame Time: 0.0333333 */
    /* the rest pose alone: one frame, zero velocities */
    kg_model *h = kg_test_load(KG_SOURCE_DIR "/samples/humanoid.urdf");
    path_in(p, sizeof p, "rest.npz");
    save(h, NULL, p);
    expect(h, p, 1, "humanoid.urdf (rest)");
    kg_model_free(h);
    kg_motion_free(mo);
    kg_model_free(m);
    kg_diags_clear(&d);
}

/* Names beyond ASCII: '<U' holds code points, so numpy gives the UTF-8 names
 * back; and an angle that wraps at pi keeps its rate. */
static void test_unicode_names(void **state) {
    (void)state;
    REQUIRE_NUMPY();
    static const char urdf[] =
        "<robot name='r'><link name='base'/><link name='bras_\xc3\xa9paule'/><link name='\xe5\x85\xb3\xe8\x8a\x82'/>"
        "<joint name='\xc3\xa9paule' type='revolute'><parent link='base'/><child link='bras_\xc3\xa9paule'/>"
        "<axis xyz='0 0 1'/><limit lower='-1' upper='1' effort='1' velocity='1'/></joint>"
        "<joint name='\xf0\x9f\xa6\xbe' type='continuous'><parent link='bras_\xc3\xa9paule'/>"
        "<child link='\xe5\x85\xb3\xe8\x8a\x82'/><origin xyz='0.3 0 0'/><axis xyz='0 1 0'/></joint></robot>";
    kg_diags d;
    kg_diags_init(&d);
    kg_model *m = kg_test_load_string("unicode.urdf", urdf, &d);
    assert_non_null(m);
    kg_motion *mo = kg_motion_new(m->nq, 0.02, 10);
    for (int t = 0; t < 10; t++) {
        double *q = kg_motion_append(mo, NULL);
        q[0] = 0.1 * t, q[1] = -0.05 * t * t;
    }
    char p[4200];
    path_in(p, sizeof p, "unicode.npz");
    save(m, mo, p);
    expect(m, p, 10, "unicode names");
    json_t *z = npz_read(p);
    json_t *bn = json_object_get(json_object_get(z, "body_names"), "data"),
           *jn = json_object_get(json_object_get(z, "joint_names"), "data");
    assert_string_equal(json_string_value(json_array_get(bn, 1)), "bras_\xc3\xa9paule");
    assert_string_equal(json_string_value(json_array_get(bn, 2)), "\xe5\x85\xb3\xe8\x8a\x82");
    assert_string_equal(json_string_value(json_array_get(jn, 1)), "\xf0\x9f\xa6\xbe");
    assert_string_equal(json_string_value(json_object_get(json_object_get(z, "body_names"), "dtype")), "<U11"); /* bras_épaule */
    json_decref(z);
    kg_motion_free(mo);
    /* an angle wrapping from pi to -pi (BVH Euler channels do): its rate stays the same */
    mo = kg_motion_new(m->nq, 0.02, 10);
    for (int t = 0; t < 10; t++) {
        double *q = kg_motion_append(mo, NULL);
        q[0] = 0, q[1] = remainder(2.9 + 0.1 * t, 2 * M_PI);
    }
    path_in(p, sizeof p, "wrap.npz");
    save(m, mo, p);
    expect(m, p, 10, "an angle wrapping at pi");
    z = npz_read(p);
    json_t *qv = json_object_get(json_object_get(z, "joint_vel"), "data");
    for (int t = 0; t < 10; t++) assert_true(fabs(json_number_value(json_array_get(qv, 2 * (size_t)t + 1)) - 5) < 1e-4);
    json_decref(z);
    kg_motion_free(mo);
    kg_model_free(m);
    kg_diags_clear(&d);
}

/* The arrays of two files are equal: names exactly, numbers to 1e-6 (a CSV
 * holds the root quaternion, not the rotation FK gives; fps aside when its
 * flag is 0, and velocities, which scale with it). */
static void same_arrays(const char *a, const char *b, int fps_too) {
    json_t *x = npz_read(a), *y = npz_read(b);
    const char *k;
    json_t *v;
    json_object_foreach(x, k, v) {
        if (!fps_too && !strcmp(k, "fps")) continue;
        if (!fps_too && (!strcmp(k, "joint_vel") || strstr(k, "_vel_w"))) continue;
        json_t *w = json_object_get(y, k), *dv = json_object_get(v, "data"), *dw = json_object_get(w, "data");
        if (!w || !json_equal(json_object_get(v, "shape"), json_object_get(w, "shape")))
            fail_msg("%s: not the same shape in %s and %s", k, a, b);
        for (size_t i = 0; i < json_array_size(dv); i++) {
            json_t *p = json_array_get(dv, i), *q = json_array_get(dw, i);
            if (json_is_string(p) ? !json_equal(p, q) : !(fabs(json_number_value(p) - json_number_value(q)) <= 1e-6))
                fail_msg("%s[%zu] differs between %s and %s", k, i, a, b);
        }
    }
    json_decref(x), json_decref(y);
}

static void test_retarget(void **state) {
    (void)state;
    REQUIRE_NUMPY();
    kg_model *m = kg_test_load(KG_SOURCE_DIR "/samples/humanoid.urdf");
    char cmd[8192], p[4200], q[4200];
    const char *args = "retarget '" KG_SOURCE_DIR "/samples/walk.bvh' --robot '" KG_SOURCE_DIR "/samples/humanoid.urdf'";
    snprintf(cmd, sizeof cmd, "%s -o '%s/walk_humanoid.npz'", args, tmpdir);
    assert_int_equal(kg_test_run_kinegraph(tmpdir, cmd), 0);
    path_in(p, sizeof p, "walk_humanoid.npz");
    expect(m, p, 120, "retarget -o walk_humanoid.npz");
    /* --fps: velocities at the output rate */
    snprintf(cmd, sizeof cmd, "%s -o '%s/walk_50.npz' --fps 50", args, tmpdir);
    assert_int_equal(kg_test_run_kinegraph(tmpdir, cmd), 0);
    path_in(q, sizeof q, "walk_50.npz");
    result r = check(m, q);
    assert_true(fabs(r.fps - 50) < 1e-4);
    expect(m, q, 0, "retarget --fps 50");
    /* the same through the retargeted CSVs and convert --motion */
    snprintf(cmd, sizeof cmd, "%s -o '%s/walk_humanoid.csv' --csv-layout kinegraph", args, tmpdir);
    assert_int_equal(kg_test_run_kinegraph(tmpdir, cmd), 0);
    snprintf(cmd, sizeof cmd, "convert '" KG_SOURCE_DIR "/samples/humanoid.urdf' '%s/via_csv.npz' --motion '%s/walk_humanoid.csv'",
             tmpdir, tmpdir);
    assert_int_equal(kg_test_run_kinegraph(tmpdir, cmd), 0);
    path_in(q, sizeof q, "via_csv.npz");
    expect(m, q, 120, "convert --motion (kinegraph)");
    same_arrays(p, q, 1);
    /* the same CSV as a spreadsheet saves it: a byte order mark, CRLF line ends */
    snprintf(cmd, sizeof cmd, "(printf '\\357\\273\\277'; sed 's/$/\\r/' '%s/walk_humanoid.csv') > '%s/bom.csv'", tmpdir,
             tmpdir);
    assert_int_equal(system(cmd), 0);
    snprintf(cmd, sizeof cmd, "convert '" KG_SOURCE_DIR "/samples/humanoid.urdf' '%s/bom.npz' --motion '%s/bom.csv'",
             tmpdir, tmpdir);
    assert_int_equal(kg_test_run_kinegraph(tmpdir, cmd), 0);
    path_in(q, sizeof q, "bom.npz");
    same_arrays(p, q, 1);
    snprintf(cmd, sizeof cmd, "%s -o '%s/walk_lafan1.csv'", args, tmpdir);
    assert_int_equal(kg_test_run_kinegraph(tmpdir, cmd), 0);
    snprintf(cmd, sizeof cmd,
             "convert '" KG_SOURCE_DIR "/samples/humanoid.urdf' '%s/via_lafan1.npz' --motion '%s/walk_lafan1.csv' --motion-fps 30",
             tmpdir, tmpdir);
    assert_int_equal(kg_test_run_kinegraph(tmpdir, cmd), 0);
    path_in(q, sizeof q, "via_lafan1.npz");
    expect(m, q, 120, "convert --motion (lafan1)");
    assert_true(check(m, q).fps == 30);
    same_arrays(p, q, 1); /* 1 / 0.0333333 s is 30 fps in both */
    /* a CSV that is not this model's: an error, nothing written */
    snprintf(cmd, sizeof cmd, "convert '" KG_SOURCE_DIR "/samples/walk.bvh' '%s/bad.npz' --motion '%s/walk_lafan1.csv'",
             tmpdir, tmpdir);
    assert_int_equal(kg_test_run_kinegraph(tmpdir, cmd), 1);
    path_in(q, sizeof q, "bad.npz");
    assert_int_not_equal(access(q, F_OK), 0);
    kg_model_free(m);
}

static void test_corpus(void **state) {
    (void)state;
    REQUIRE_NUMPY();
    KG_REQUIRE_DATA(data);
    char in[4200], p[4200], cmd[12000];
    /* an animated COLLADA file alone */
    snprintf(in, sizeof in, "%s/collada/blender_skinned/leg-with-control-bones.dae", data);
    kg_diags d;
    kg_diags_init(&d);
    kg_motion *mo = NULL;
    kg_model *m = kg_load_clip(in, NULL, &mo, &d);
    assert_non_null(m);
    assert_non_null(mo);
    snprintf(cmd, sizeof cmd, "convert '%s' '%s/leg.npz'", in, tmpdir);
    assert_int_equal(kg_test_run_kinegraph(tmpdir, cmd), 0);
    path_in(p, sizeof p, "leg.npz");
    expect(m, p, mo->nframes, "leg-with-control-bones.dae");
    kg_motion_free(mo);
    kg_model_free(m);
    kg_diags_clear(&d);
    /* mimic followers: a motion of the leader only (convert's CSV layout) */
    snprintf(in, sizeof in, "%s/urdf/jsk_euscollada_mimic_tests/test-revolute-mimic-2.urdf", data);
    m = kg_test_load(in);
    assert_true(m->nmimic > 0);
    char csv[4200];
    path_in(csv, sizeof csv, "mimic.csv");
    FILE *f = fopen(csv, "w");
    char name[1100];
    fprintf(f, "time,root_x,root_y,root_z,root_qw,root_qx,root_qy,root_qz");
    for (int k = 0; k < m->nq; k++) fprintf(f, ",%s", kg_coord_name(m, k, name, sizeof name));
    fprintf(f, "\n");
    for (int t = 0; t < 40; t++) {
        fprintf(f, "%g,0,0,0,1,0,0,0", t / 20.0);
        for (int k = 0; k < m->nq; k++) fprintf(f, ",%.17g", 0.6 * sin(0.2 * t + k));
        fprintf(f, "\n");
    }
    fclose(f);
    snprintf(cmd, sizeof cmd, "convert '%s' '%s/mimic.npz' --motion '%s'", in, tmpdir, csv);
    assert_int_equal(kg_test_run_kinegraph(tmpdir, cmd), 0);
    path_in(p, sizeof p, "mimic.npz");
    expect(m, p, 40, "test-revolute-mimic-2.urdf");
    kg_model_free(m);
    /* a corpus clip on the Unitree G1 */
    snprintf(in, sizeof in, "%s/urdf/unitree_g1/g1_description/g1_29dof_rev_1_0.urdf", data);
    snprintf(cmd, sizeof cmd, "retarget '%s/bvh/bandai_namco/dataset-1_kick_normal_001.bvh' --robot '%s' -o '%s/g1.npz' --fps 50",
             data, in, tmpdir);
    assert_int_equal(kg_test_run_kinegraph(tmpdir, cmd), 0);
    m = kg_test_load(in);
    path_in(p, sizeof p, "g1.npz");
    expect(m, p, 0, "G1 kick (retarget --fps 50)");
    kg_model_free(m);
}

static int setup(void **state) {
    (void)state;
    return mkdtemp(tmpdir) ? 0 : -1;
}

static int teardown(void **state) {
    (void)state;
    kg_test_remove_dir(tmpdir);
    return 0;
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_bvh),
        cmocka_unit_test(test_retarget),
        cmocka_unit_test(test_unicode_names),
        cmocka_unit_test(test_corpus),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
