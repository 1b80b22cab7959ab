/* MJCF export (exporters/mjcf.c) read back by MuJoCo 2.2.2 (libmujoco, linked
 * when found at configure time; skipped with a notice otherwise).
 *
 * Every corpus URDF with inertials that loads without errors is written as MJCF
 * (meshes beside it), MuJoCo compiles the file as written, and at random joint
 * vectors the link poses (MuJoCo's xpos/xmat after mj_forward) and the mass
 * matrix (mj_fullM) equal ours (core/fk.h, kg_dyn_crba) to 1e-9. Where the
 * ledger says an inertia was mended by MuJoCo (balanceinertia: tensors that break
 * A + B >= C), our model takes MuJoCo's tensor for that link before comparing,
 * so the rest is compared on the same numbers; massless moving bodies get
 * 1e-12 kg (in the ledger), far below the tolerance. MuJoCo's free joint takes
 * its angular velocity in the body frame (see include/kinegraph/dynamics.h):
 * converted as test_dynamics does. Also: a four-bar loop (weld equality),
 * mimic couplings (joint equalities), and a BVH skeleton (compound joints,
 * rest values in the "rest" keyframe) have the same poses. */
#define _XOPEN_SOURCE 700 /* nftw */
#define _DEFAULT_SOURCE   /* mkdtemp */
#include "testutil.h"

#include <ftw.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "kinegraph/dynamics.h"
#include "core/fk.h"
#include "core/spatial.h"
#include "exporters/exporters.h"
#include "io/load.h"
#include "io/save.h"

#ifdef KG_HAVE_MUJOCO
#include <mujoco/mujoco.h>

static uint64_t rng = 0x9e3779b97f4a7c15ull;
static double uniform(double lo, double hi) {
    rng ^= rng >> 12, rng ^= rng << 25, rng ^= rng >> 27;
    return lo + (hi - lo) * (double)((rng * 2685821657736338717ull) >> 11) / 9007199254740992.0;
}

static void random_q(const kg_model *m, double *q) {
    for (int j = 0; j < m->njoint; j++) {
        const kg_joint *J = &m->joint[j];
        for (int k = 0; k < J->nq; k++) q[J->qadr + k] = uniform(-2, 2);
        if (J->type == KG_JOINT_FLOATING) {
            double *w = q + J->qadr + 3, n = sqrt(w[0] * w[0] + w[1] * w[1] + w[2] * w[2] + w[3] * w[3]);
            for (int k = 0; k < 4; k++) w[k] /= n;
        }
    }
}

static char tmpdir[] = "/tmp/kg_mjcf_XXXXXX";

/* Writes m as MJCF into the temporary folder and compiles it; NULL (printed)
 * when MuJoCo refuses it. */
static mjModel *export_and_load(const kg_model *m, const char *name, kg_ledger *l) {
    char path[4096], err[1000] = "";
    snprintf(path, sizeof path, "%s/%s.xml", tmpdir, name);
    kg_diags d;
    kg_diags_init(&d);
    int rc = kg_save(path, "mjcf", m, NULL, l, &d);
    if (rc != 0) kg_test_print_diags(&d);
    assert_int_equal(rc, 0);
    kg_diags_clear(&d);
    mjModel *mj = mj_loadXML(path, NULL, err, sizeof err);
    if (!mj) printf("%-28s MuJoCo refuses our MJCF: %s\n", name, err);
    return mj;
}

/* The MuJoCo joint for our joint j (coordinate c of a joint written as several). */
static int mj_joint(const kg_model *m, const mjModel *mj, int j, int c) {
    const kg_joint *J = &m->joint[j];
    char name[600];
    static const char *const fl[] = {"x", "y", "z", "rotation"}, *const pl[] = {"x", "y", "angle"};
    int id = mj_name2id(mj, mjOBJ_JOINT, J->name);
    if (id >= 0) return id;
    if (J->type == KG_JOINT_FLOATING) snprintf(name, sizeof name, "%s.%s", J->name, fl[c < 3 ? c : 3]);
    else if (J->type == KG_JOINT_PLANAR) snprintf(name, sizeof name, "%s.%s", J->name, pl[c]);
    else if (J->type == KG_JOINT_COMPOUND) {
        for (int a = 0; a < J->naxis; a++)
            if (m->axis[J->axis_first + a].coord == c)
                snprintf(name, sizeof name, "%s.%s", J->name, m->axis[J->axis_first + a].label);
    } else return -1;
    return mj_name2id(mj, mjOBJ_JOINT, name);
}

/* MuJoCo's qpos for our pose, and T with v_mujoco = T v_ours (see test_dynamics). */
static void mj_state(const kg_model *m, const kg_data *d, const mjModel *mj, double *qpos, double *T) {
    const int n = m->nv;
    memset(T, 0, (size_t)n * n * sizeof *T);
    for (int j = 0; j < m->njoint; j++) {
        const kg_joint *J = &m->joint[j];
        if (J->nv == 0) continue;
        if (J->type == KG_JOINT_FLOATING) {
            const int id = mj_joint(m, mj, j, 0), i = J->child, free = mj->jnt_type[id] == mjJNT_FREE;
            assert_true(id >= 0);
            const double *R = d->link_rot + 9 * i, *q = d->q + J->qadr;
            double F[9], RtF[9];
            kg_mat3_mul(F, d->link_rot + 9 * m->link[i].parent, m->kin[i].r0);
            kg_mat3_mul_at(RtF, R, F);
            const int lin = mj->jnt_dofadr[id], ang = free ? lin + 3 : mj->jnt_dofadr[mj_joint(m, mj, j, 3)];
            if (free) {
                kg_vec3_copy(qpos + mj->jnt_qposadr[id], d->link_pos + 3 * i);
                kg_rot_to_quat(R, qpos + mj->jnt_qposadr[id] + 3);
            } else {
                for (int c = 0; c < 3; c++) qpos[mj->jnt_qposadr[mj_joint(m, mj, j, c)]] = q[c];
                memcpy(qpos + mj->jnt_qposadr[mj_joint(m, mj, j, 3)], q + 3, 4 * sizeof *q);
            }
            for (int a = 0; a < 3; a++)
                for (int b = 0; b < 3; b++) {
                    if (free) T[(size_t)(lin + a) * n + J->vadr + b] = F[3 * a + b];
                    T[(size_t)(ang + a) * n + J->vadr + 3 + b] = RtF[3 * a + b];
                }
            if (!free)
                for (int a = 0; a < 3; a++) T[(size_t)mj->jnt_dofadr[mj_joint(m, mj, j, a)] * n + J->vadr + a] = 1;
            continue;
        }
        for (int c = 0; c < J->nv; c++) {
            const int id = mj_joint(m, mj, j, c);
            assert_true(id >= 0);
            qpos[mj->jnt_qposadr[id]] = d->q[J->qadr + c];
            T[(size_t)mj->jnt_dofadr[id] * n + J->vadr + c] = 1;
        }
    }
}

/* Our link inertias replaced by MuJoCo's where the ledger says it mended them. */
static void take_mended_inertias(const kg_model *m, const mjModel *mj, const kg_ledger *l) {
    for (size_t k = 0; k < l->count; k++) {
        const kg_ledger_entry *e = &l->items[k];
        if (e->action != KG_APPROXIMATED || strcmp(e->element, "inertial")) continue;
        int i = kg_model_link(m, e->name), b = mj_name2id(mj, mjOBJ_BODY, e->name);
        assert_true(i >= 0 && b > 0);
        kg_link *L = (kg_link *)&m->link[i]; /* test-only: the model is immutable elsewhere */
        double R[9], D[9] = {0};
        kg_rot_from_quat(R, mj->body_iquat + 4 * b);
        for (int c = 0; c < 3; c++) D[4 * c] = mj->body_inertia[3 * b + c];
        kg_inertia_rotate(L->inertia, R, D);
    }
}

typedef struct {
    double fk, mass; /* worst pose difference (m, and rotation matrix entries), relative M difference */
} peer_errors;

/* One random state: poses of every link, and M. */
static void compare_state(const kg_model *m, kg_data *d, kg_dyn *w, const mjModel *mj, mjData *md, double *buf,
                          peer_errors *e) {
    const int n = m->nv;
    double *T = buf, *M = T + (size_t)n * n, *Mmj = M + (size_t)n * n, *TM = Mmj + (size_t)n * n;
    random_q(m, d->q);
    kg_fk(m, d); /* applies the mimic couplings to d->q before MuJoCo gets it */
    mj_state(m, d, mj, md->qpos, T);
    mj_forward(mj, md);
    for (int i = 0; i < m->nlink; i++) {
        int b = mj_name2id(mj, mjOBJ_BODY, m->link[i].name);
        if (b < 0 && i == 0) continue; /* "world": MuJoCo's world body */
        assert_true(b >= 0);
        for (int k = 0; k < 3; k++) e->fk = fmax(e->fk, fabs(md->xpos[3 * b + k] - d->link_pos[3 * i + k]));
        for (int k = 0; k < 9; k++) e->fk = fmax(e->fk, fabs(md->xmat[9 * b + k] - d->link_rot[9 * i + k]));
    }
    kg_dyn_positions(m, d, w);
    kg_dyn_crba(m, w, M);
    mj_fullM(mj, Mmj, md->qM);
    for (int r = 0; r < n; r++) /* T^T Mmj T */
        for (int c = 0; c < n; c++) {
            double s = 0;
            for (int k = 0; k < n; k++) s += Mmj[(size_t)r * n + k] * T[(size_t)k * n + c];
            TM[(size_t)r * n + c] = s;
        }
    double scale = 0, diff = 0;
    for (int r = 0; r < n; r++)
        for (int c = 0; c < n; c++) {
            double s = 0;
            for (int k = 0; k < n; k++) s += T[(size_t)k * n + r] * TM[(size_t)k * n + c];
            diff = fmax(diff, fabs(s - M[(size_t)r * n + c]));
            scale = fmax(scale, fabs(M[(size_t)r * n + c]));
        }
    e->mass = fmax(e->mass, diff / fmax(scale, 1e-300));
}

/* Writes, compiles, compares at `states` random states; -1 when MuJoCo refuses it. */
static int compare(const kg_model *m, const char *name, int states, peer_errors *e, kg_ledger *l) {
    memset(e, 0, sizeof *e);
    mjModel *mj = export_and_load(m, name, l);
    if (!mj) return -1;
    assert_int_equal(mj->nv, m->nv);
    assert_int_equal(mj->neq, m->nloop + m->nmimic);
    take_mended_inertias(m, mj, l);
    mjData *md = mj_makeData(mj);
    kg_data *d = kg_data_new(m);
    kg_dyn *w = kg_dyn_new(m);
    const size_t n = (size_t)m->nv;
    double *buf = malloc((4 * n * n + 1) * sizeof *buf);
    for (int s = 0; s < states; s++) compare_state(m, d, w, mj, md, buf, e);
    free(buf);
    kg_dyn_free(w);
    kg_data_free(d);
    mj_deleteData(md);
    mj_deleteModel(mj);
    return 0;
}

/* ---- the corpus ------------------------------------------------------------------ */

static char *found[512];
static int nfound;

static int collect_urdf(const char *path, const struct stat *st, int flag, struct FTW *ftw) {
    (void)st, (void)ftw;
    size_t n = strlen(path);
    if (flag == FTW_F && n > 5 && strcasecmp(path + n - 5, ".urdf") == 0 && nfound < 512) found[nfound++] = strdup(path);
    return 0;
}

static int by_name(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

/* A robot with inertials that loads without errors; NULL otherwise. */
static kg_model *load_dynamic(const char *path) {
    kg_diags d;
    kg_diags_init(&d);
    kg_model *m = kg_load(path, NULL, &d);
    int errors = 0;
    for (size_t k = 0; k < d.count; k++) errors += d.items[k].severity >= KG_ERROR;
    kg_diags_clear(&d);
    int inertials = 0;
    for (int i = 0; m && i < m->nlink; i++) inertials += m->link[i].has_inertial && m->link[i].mass > 0;
    if (m && (errors || !inertials || m->nv == 0)) {
        kg_model_free(m);
        m = NULL;
    }
    return m;
}

static size_t count(const kg_ledger *l, kg_ledger_action a, const char *element) {
    size_t c = 0;
    for (size_t k = 0; k < l->count; k++) c += l->items[k].action == a && !strcmp(l->items[k].element, element);
    return c;
}

static void test_corpus(void **state) {
    (void)state;
    KG_REQUIRE_DATA(data);
    char dir[4096];
    snprintf(dir, sizeof dir, "%s/urdf", data);
    assert_int_equal(nftw(dir, collect_urdf, 16, FTW_PHYS), 0);
    qsort(found, (size_t)nfound, sizeof *found, by_name);
    int compared = 0, refused = 0;
    double worst_fk = 0, worst_m = 0;
    for (int f = 0; f < nfound; f++) {
        kg_model *m = load_dynamic(found[f]);
        if (!m) continue;
        const char *slash = strrchr(found[f], '/');
        char name[256];
        snprintf(name, sizeof name, "%.*s", (int)(strlen(slash + 1) - 5), slash + 1);
        kg_ledger l;
        kg_ledger_init(&l);
        peer_errors e;
        if (compare(m, name, 3, &e, &l) == 0) {
            printf("%-28s nv %3d  FK %.1e  M %.1e  ledger: %zu mended inertias, %zu massless bodies, %zu meshes as "
                   "STL, %zu dropped\n",
                   name, m->nv, e.fk, e.mass, count(&l, KG_APPROXIMATED, "inertial"), count(&l, KG_DEFAULTED, "inertial"),
                   count(&l, KG_APPROXIMATED, "mesh"), kg_ledger_count(&l, KG_DROPPED));
            if (!(e.fk <= 1e-9 && e.mass <= 1e-9)) fail_msg("%s: FK %g, M %g (tolerance 1e-9)", name, e.fk, e.mass);
            worst_fk = fmax(worst_fk, e.fk), worst_m = fmax(worst_m, e.mass);
            compared++;
        } else {
            refused++;
        }
        kg_ledger_clear(&l);
        kg_model_free(m);
    }
    printf("MJCF: %d corpus robots compiled by MuJoCo and compared (worst FK %.1e, M %.1e), %d refused\n", compared,
           worst_fk, worst_m, refused);
    assert_int_equal(refused, 0);
    assert_true(compared > 20);
}

/* A loop: the cut joint and its virtual link are kept, a weld holds it on the
 * real link; every link massless, so only the poses are compared. */
static void test_four_bar(void **state) {
    (void)state;
    kg_diags d;
    kg_diags_init(&d);
    kg_model *m = kg_test_four_bar(0.3, 1.0, 0.8, 0.9, KG_JOINT_REVOLUTE, &d);
    assert_non_null(m);
    kg_ledger l;
    kg_ledger_init(&l);
    peer_errors e;
    assert_int_equal(compare(m, "four_bar", 5, &e, &l), 0);
    printf("four-bar: FK %.1e, %zu massless bodies in the ledger\n", e.fk, count(&l, KG_DEFAULTED, "inertial"));
    assert_true(e.fk <= 1e-9);
    assert_true(count(&l, KG_DEFAULTED, "inertial") >= 4);
    char path[4096];
    snprintf(path, sizeof path, "%s/four_bar.xml", tmpdir);
    char *text = kg_test_slurp(path);
    assert_non_null(strstr(text, "<weld name=\"J4\""));
    free(text);
    kg_ledger_clear(&l);
    kg_model_free(m);
    kg_diags_clear(&d);
}

/* A BVH skeleton: compound joints (one MuJoCo joint per channel), rest values
 * in the keyframe "rest", which puts MuJoCo's bodies where our rest pose is. */
static void test_bvh(void **state) {
    (void)state;
    kg_model *m = kg_test_load(KG_SOURCE_DIR "/samples/walk.bvh");
    kg_ledger l;
    kg_ledger_init(&l);
    peer_errors e;
    assert_int_equal(compare(m, "walk", 5, &e, &l), 0);
    printf("BVH walk: FK %.1e at random channel values\n", e.fk);
    assert_true(e.fk <= 1e-9);
    /* the rest keyframe */
    char path[4096], err[1000];
    snprintf(path, sizeof path, "%s/walk.xml", tmpdir);
    mjModel *mj = mj_loadXML(path, NULL, err, sizeof err);
    assert_non_null(mj);
    int key = mj_name2id(mj, mjOBJ_KEY, "rest");
    assert_true(key >= 0);
    mjData *md = mj_makeData(mj);
    mj_resetDataKeyframe(mj, md, key);
    mj_forward(mj, md);
    kg_data *d = kg_data_new(m);
    kg_fk(m, d);
    double worst = 0;
    for (int i = 1; i < m->nlink; i++) {
        int b = mj_name2id(mj, mjOBJ_BODY, m->link[i].name);
        for (int k = 0; k < 3; k++) worst = fmax(worst, fabs(md->xpos[3 * b + k] - d->link_pos[3 * i + k]));
    }
    printf("BVH walk: rest keyframe poses %.1e\n", worst);
    assert_true(worst <= 1e-9);
    kg_data_free(d);
    mj_deleteData(md);
    mj_deleteModel(mj);
    kg_ledger_clear(&l);
    kg_model_free(m);
}

/* A compound joint j1's axis axis1 and a one-axis joint named "j1.axis1":
 * both MuJoCo joints were named "j1.axis1", which MuJoCo refuses ("repeated
 * name"); the axis's is now "j1.axis1#2", in the ledger. */
static void test_names_unique(void **state) {
    (void)state;
    kg_model *m = kg_test_load(KG_SOURCE_DIR "/tests/data/taken_axis_name.dae");
    kg_ledger l;
    kg_ledger_init(&l);
    mjModel *mj = export_and_load(m, "names", &l);
    assert_non_null(mj);
    assert_true(mj_name2id(mj, mjOBJ_JOINT, "j1.axis1") >= 0 && mj_name2id(mj, mjOBJ_JOINT, "j1.axis1#2") >= 0);
    int said = 0;
    for (size_t k = 0; k < l.count; k++) said += l.items[k].name && !strcmp(l.items[k].name, "j1");
    assert_true(said >= 1);
    mj_deleteModel(mj);
    kg_ledger_clear(&l);
    kg_model_free(m);
}

/* The sample humanoid: motors from effort limits, the ledger. */
static void test_sample_ledger(void **state) {
    (void)state;
    kg_model *m = kg_test_load(KG_SOURCE_DIR "/samples/humanoid.urdf");
    kg_ledger l;
    kg_ledger_init(&l);
    mjModel *mj = export_and_load(m, "humanoid", &l);
    assert_non_null(mj);
    int efforts = 0;
    for (int j = 0; j < m->njoint; j++) efforts += m->joint[j].effort > 0 && m->joint[j].nv == 1;
    assert_int_equal(mj->nu, efforts);
    for (int u = 0; u < mj->nu; u++) {
        const kg_joint *J = &m->joint[kg_model_joint(m, mj_id2name(mj, mjOBJ_ACTUATOR, u))];
        KG_ASSERT_NEAR(mj->actuator_ctrlrange[2 * u + 1], J->effort, 0);
    }
    /* every velocity limit is in the ledger */
    int velocities = 0;
    for (int j = 0; j < m->njoint; j++) velocities += !isnan(m->joint[j].velocity);
    assert_int_equal((int)count(&l, KG_DROPPED, "limit"), velocities);
    mj_deleteModel(mj);
    kg_ledger_clear(&l);
    kg_model_free(m);
}

/* The command: .xml and --to mjcf, the ledger file; an output that cannot be
 * written leaves nothing behind (exit 3). */
static void test_cli(void **state) {
    (void)state;
    char cmd[8192], path[4096];
    snprintf(cmd, sizeof cmd, "convert '%s/samples/humanoid.urdf' '%s/cli.xml' --ledger '%s/cli.json'", KG_SOURCE_DIR,
             tmpdir, tmpdir);
    assert_int_equal(kg_test_run_kinegraph(tmpdir, cmd), 0);
    snprintf(path, sizeof path, "%s/cli.json", tmpdir);
    json_t *j = json_load_file(path, 0, NULL);
    assert_non_null(j);
    assert_int_equal(json_integer_value(json_object_get(json_object_get(j, "summary"), "dropped")), 23);
    json_decref(j);
    snprintf(cmd, sizeof cmd, "convert '%s/samples/humanoid.urdf' '%s/cli.mjcf' --to mjcf", KG_SOURCE_DIR, tmpdir);
    assert_int_equal(kg_test_run_kinegraph(tmpdir, cmd), 0);
    snprintf(cmd, sizeof cmd, "convert '%s/samples/humanoid.urdf' '%s/no/such/dir/x.xml'", KG_SOURCE_DIR, tmpdir);
    assert_int_equal(kg_test_run_kinegraph(tmpdir, cmd), 3);
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
        cmocka_unit_test(test_sample_ledger),
        cmocka_unit_test(test_cli),
        cmocka_unit_test(test_four_bar),
        cmocka_unit_test(test_bvh),
        cmocka_unit_test(test_names_unique),
        cmocka_unit_test(test_corpus),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}

#else

static void test_skipped(void **state) {
    (void)state;
    printf("SKIPPED: MuJoCo (libmujoco-dev) was not found at configure time\n");
    skip();
}

int main(void) {
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_skipped)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}

#endif
