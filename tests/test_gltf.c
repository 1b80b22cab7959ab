/* glTF 2.0 export (exporters/gltf.c): the Khronos validator (npm gltf-validator,
 * run by tests/gltf_validate.js under node; skipped with a notice when it is
 * not installed) finds 0 errors, and assimp reads the file back with every
 * link node where FK puts the link (1e-6 of the model's size: glTF stores
 * float32), at the rest pose and, for a motion, at sampled frames of its
 * animation. On the sample humanoid, the sample walk (a BVH clip, .gltf with
 * its .bin) and every corpus URDF that loads without errors. */
#define _XOPEN_SOURCE 700 /* nftw */
#define _DEFAULT_SOURCE   /* mkdtemp */
#include "testutil.h"

#include <assimp/cimport.h>
#include <assimp/scene.h>
#include <ftw.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

#include "core/fk.h"
#include "core/motion.h"
#include "io/load.h"
#include "io/motion_file.h"
#include "io/save.h"

static char tmpdir[] = "/tmp/kg_gltf_XXXXXX";

static const struct aiNode *find(const struct aiNode *n, const char *name) {
    if (!strcmp(n->mName.data, name)) return n;
    for (unsigned k = 0; k < n->mNumChildren; k++) {
        const struct aiNode *c = find(n->mChildren[k], name);
        if (c) return c;
    }
    return NULL;
}

/* A node's local transform: its animation's key f when it has one, else its own. */
static struct aiMatrix4x4 local(const struct aiScene *s, const struct aiNode *n, int f) {
    for (unsigned a = 0; s->mNumAnimations && a < s->mAnimations[0]->mNumChannels; a++) {
        const struct aiNodeAnim *c = s->mAnimations[0]->mChannels[a];
        if (strcmp(c->mNodeName.data, n->mName.data)) continue;
        struct aiMatrix3x3 r;
        aiMatrix3FromQuaternion(&r, &c->mRotationKeys[f].mValue);
        struct aiVector3D p = c->mPositionKeys[f].mValue;
        struct aiMatrix4x4 m = {r.a1, r.a2, r.a3, p.x, r.b1, r.b2, r.b3, p.y, r.c1, r.c2, r.c3, p.z, 0, 0, 0, 1};
        return m;
    }
    return n->mTransformation;
}

/* Largest difference between assimp's link poses (relative to the root link's
 * parent node) and FK in d, positions over scale. */
static double pose_error(const struct aiScene *s, const kg_model *m, const kg_data *d, int f, double scale) {
    double worst = 0;
    for (int i = 0; i < m->nlink; i++) {
        if (m->link[i].real >= 0) continue;
        const struct aiNode *n = find(s->mRootNode, m->link[i].name);
        if (!n) fail_msg("no node '%s'", m->link[i].name);
        struct aiMatrix4x4 T = local(s, n, f);
        for (const struct aiNode *p = n; strcmp(p->mName.data, m->link[0].name) && p->mParent; p = p->mParent) {
            struct aiMatrix4x4 P = local(s, p->mParent, f);
            aiMultiplyMatrix4(&P, &T);
            T = P;
        }
        const double *R = d->link_rot + 9 * i, *x = d->link_pos + 3 * i;
        const float *t = &T.a1;
        for (int r = 0; r < 3; r++) {
            worst = fmax(worst, fabs(t[4 * r + 3] - x[r]) / scale);
            for (int c = 0; c < 3; c++) worst = fmax(worst, fabs(t[4 * r + c] - R[3 * r + c]));
        }
    }
    return worst;
}

static double model_scale(const kg_model *m, kg_data *d) {
    kg_fk(m, d);
    double s = 1;
    for (int i = 0; i < 3 * m->nlink; i++) s = fmax(s, fabs(d->link_pos[i]));
    return s;
}

/* Every mesh has unit normals, each within 30 degrees (the exporter's crease
 * angle) of its triangle's normal (by the winding): fails the test otherwise. */
static void check_normals(const struct aiScene *s, const char *path) {
    for (unsigned k = 0; k < s->mNumMeshes; k++) {
        const struct aiMesh *me = s->mMeshes[k];
        if (!me->mNormals) fail_msg("%s: mesh %u has no normals", path, k);
        for (unsigned f = 0; f < me->mNumFaces; f++) {
            const struct aiFace *F = &me->mFaces[f];
            if (F->mNumIndices != 3) continue;
            const struct aiVector3D *a = &me->mVertices[F->mIndices[0]], *b = &me->mVertices[F->mIndices[1]],
                                    *c = &me->mVertices[F->mIndices[2]];
            double e1[3] = {b->x - a->x, b->y - a->y, b->z - a->z}, e2[3] = {c->x - a->x, c->y - a->y, c->z - a->z};
            double n[3] = {e1[1] * e2[2] - e1[2] * e2[1], e1[2] * e2[0] - e1[0] * e2[2], e1[0] * e2[1] - e1[1] * e2[0]};
            double len = sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]), ext = fmax(sqrt(e1[0] * e1[0] + e1[1] * e1[1] + e1[2] * e1[2]),
                                                                                  sqrt(e2[0] * e2[0] + e2[1] * e2[1] + e2[2] * e2[2]));
            for (int i = 0; i < 3; i++) {
                const struct aiVector3D *N = &me->mNormals[F->mIndices[i]];
                double nl = sqrt(N->x * N->x + N->y * N->y + N->z * N->z);
                if (fabs(nl - 1) > 1e-5) fail_msg("%s: mesh %u: a normal of length %g", path, k, nl);
                /* float32 vertices: the winding's normal is only known for triangles well above rounding */
                if (!(len > 1e-3 * ext * ext)) continue;
                double dot = (N->x * n[0] + N->y * n[1] + N->z * n[2]) / len;
                if (dot < 0.866) fail_msg("%s: mesh %u, triangle %u: its corner's normal is %.1f deg off", path, k, f,
                                          acos(fmax(-1, fmin(1, dot))) * 180 / M_PI);
            }
        }
    }
}

/* Reads path back with assimp; returns the worst pose error against FK of m
 * (at 4 frames of mo when it has several). */
static double read_back(const kg_model *m, const kg_motion *mo, const char *path) {
    const struct aiScene *s = aiImportFile(path, 0);
    if (!s) fail_msg("assimp cannot read %s: %s", path, aiGetErrorString());
    check_normals(s, path);
    kg_data *kd = kg_data_new(m);
    double scale = model_scale(m, kd), worst = 0;
    if (mo && mo->nframes > 1) {
        assert_int_equal(s->mNumAnimations, 1);
        int frames[] = {0, mo->nframes / 3, mo->nframes / 2, mo->nframes - 1};
        for (int k = 0; k < 4; k++) {
            kg_motion_pose(mo, frames[k], kd);
            kg_fk(m, kd);
            worst = fmax(worst, pose_error(s, m, kd, frames[k], scale));
        }
    } else {
        if (mo) kg_motion_pose(mo, 0, kd);
        kg_fk(m, kd);
        worst = pose_error(s, m, kd, 0, scale);
    }
    aiReleaseImport(s);
    kg_data_free(kd);
    return worst;
}

/* Writes m (and mo) to name, reads it back with assimp; returns the worst pose error. */
static double round_trip(const kg_model *m, const kg_motion *mo, const char *name) {
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", tmpdir, name);
    kg_diags d;
    kg_diags_init(&d);
    kg_ledger l;
    kg_ledger_init(&l);
    int rc = kg_save(path, NULL, m, mo, &l, &d);
    if (rc) kg_test_print_diags(&d);
    assert_int_equal(rc, 0);
    kg_ledger_clear(&l);
    kg_diags_clear(&d);
    return read_back(m, mo, path);
}

/* `kinegraph ARGS` (%s in ARGS: the temporary folder) wrote OUT there: its link
 * poses against FK of MODEL with the motion of MOTION (a file kg_load_motion_for
 * reads; NULL: MODEL's own). */
static double cli_round_trip(const char *args, const char *out, const char *model, const char *motion,
                             const char *label) {
    char cmd[16384], path[4200];
    snprintf(cmd, sizeof cmd, args, tmpdir, tmpdir, tmpdir);
    assert_int_equal(kg_test_run_kinegraph(tmpdir, cmd), 0);
    kg_diags d;
    kg_diags_init(&d);
    kg_motion *mo = NULL;
    kg_model *m = kg_load_clip(model, NULL, motion ? NULL : &mo, &d);
    assert_non_null(m);
    if (motion) {
        snprintf(path, sizeof path, motion, tmpdir);
        mo = kg_load_motion_for(m, path, NULL, 0, &d);
    }
    assert_non_null(mo);
    snprintf(path, sizeof path, "%s/%s", tmpdir, out);
    double e = read_back(m, mo, path);
    printf("%-44s %s: link poses at 4 frames of %d: %.1e\n", label, out, mo->nframes, e);
    kg_motion_free(mo);
    kg_model_free(m);
    kg_diags_clear(&d);
    return e;
}

static void test_samples(void **state) {
    (void)state;
    kg_model *m = kg_test_load(KG_SOURCE_DIR "/samples/humanoid.urdf");
    double e = round_trip(m, NULL, "humanoid.glb");
    printf("humanoid.glb: link poses %.1e\n", e);
    assert_true(e <= 1e-6);
    kg_model_free(m);
    kg_diags d;
    kg_diags_init(&d);
    kg_motion *mo = NULL;
    m = kg_load_clip(KG_SOURCE_DIR "/samples/walk.bvh", NULL, &mo, &d);
    assert_non_null(m);
    assert_non_null(mo);
    e = round_trip(m, mo, "walk.gltf");
    printf("walk.gltf: link poses at 4 frames of %d: %.1e\n", mo->nframes, e);
    assert_true(e <= 1e-6);
    kg_motion_free(mo);
    kg_model_free(m);
    kg_diags_clear(&d);
}

/* Runs `kinegraph ARGS` (%s in ARGS: the temporary folder), which must succeed. */
static void run(const char *args) {
    char cmd[16384];
    snprintf(cmd, sizeof cmd, args, tmpdir, tmpdir, tmpdir);
    assert_int_equal(kg_test_run_kinegraph(tmpdir, cmd), 0);
}

/* convert MODEL OUT --motion FILE: a robot motion CSV (both layouts) and a
 * COLLADA animation from retarget; retarget -o OUT.glb itself; a BVH and an
 * animated COLLADA file alone. */
static void test_motion(void **state) {
    (void)state;
#define H "'" KG_SOURCE_DIR "/samples/humanoid.urdf'"
#define HP KG_SOURCE_DIR "/samples/humanoid.urdf"
#define RT "retarget '" KG_SOURCE_DIR "/samples/walk.bvh' --robot " H
    run(RT " -o '%s/walk_h.csv' --csv-layout kinegraph");
    run(RT " -o '%s/walk_l.csv'");
    run(RT " -o '%s/walk_r.dae'");
    double e = cli_round_trip("convert " H " '%s/walk_csv.glb' --motion '%s/walk_h.csv'", "walk_csv.glb", HP,
                              "%s/walk_h.csv", "humanoid --motion (kinegraph CSV)");
    assert_true(e <= 1e-6);
    e = cli_round_trip("convert " H " '%s/walk_lafan1.gltf' --motion '%s/walk_l.csv'", "walk_lafan1.gltf", HP,
                       "%s/walk_l.csv", "humanoid --motion (LAFAN1 CSV)");
    assert_true(e <= 1e-6);
    e = cli_round_trip("convert " H " '%s/walk_dae.glb' --motion '%s/walk_r.dae'", "walk_dae.glb", HP, "%s/walk_r.dae",
                       "humanoid --motion (COLLADA animation)");
    assert_true(e <= 1e-6);
    e = cli_round_trip(RT " -o '%s/walk_r.glb'", "walk_r.glb", HP, "%s/walk_h.csv", "retarget -o .glb");
    assert_true(e <= 1e-6);
    e = cli_round_trip("convert '" KG_SOURCE_DIR "/samples/walk.bvh' '%s/walk_bvh.glb'", "walk_bvh.glb",
                       KG_SOURCE_DIR "/samples/walk.bvh", NULL, "walk.bvh alone");
    assert_true(e <= 1e-6);
#undef RT
#undef HP
#undef H
}

/* A cone of 100 000 slivers (its apex on 100 000 triangles, a crease all round):
 * normals in linear time (the pairwise comparison would take 10^10 steps), valid. */
static void test_cone(void **state) {
    (void)state;
    char stl[4200], urdf[4200];
    snprintf(stl, sizeof stl, "%s/cone.stl", tmpdir);
    snprintf(urdf, sizeof urdf, "%s/cone.urdf", tmpdir);
    const int n = 100000;
    FILE *f = fopen(stl, "wb");
    assert_non_null(f);
    char header[80] = {0};
    fwrite(header, 1, 80, f);
    uint32_t count = (uint32_t)n; /* little-endian hosts, as the test machines */
    fwrite(&count, 4, 1, f);
    for (int i = 0; i < n; i++) {
        double a = 2 * M_PI * i / n, b = 2 * M_PI * (i + 1) / n;
        float tri[12] = {0, 0, 0, 0, 0, 0.2f, (float)(0.1 * cos(a)), (float)(0.1 * sin(a)), 0,
                         (float)(0.1 * cos(b)), (float)(0.1 * sin(b)), 0};
        uint16_t attr = 0;
        fwrite(tri, 4, 12, f);
        fwrite(&attr, 2, 1, f);
    }
    fclose(f);
    f = fopen(urdf, "w");
    fprintf(f, "<robot name='cone'><link name='base'><visual><geometry><mesh filename='cone.stl'/></geometry>"
               "</visual></link></robot>\n");
    fclose(f);
    kg_model *m = kg_test_load(urdf);
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    double e = round_trip(m, NULL, "cone.glb");
    clock_gettime(CLOCK_MONOTONIC, &t1);
    double s = (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec);
    printf("cone.glb: %d triangles around one apex, written and read back in %.2f s; link poses %.1e\n", n, s, e);
    assert_true(e <= 1e-6);
    assert_true(s < 30);
    kg_model_free(m);
}

static int corpus_files;

static int export_urdf(const char *path, const struct stat *st, int flag, struct FTW *ftw) {
    (void)st, (void)ftw;
    size_t n = strlen(path);
    if (flag != FTW_F || n < 5 || strcasecmp(path + n - 5, ".urdf")) return 0;
    kg_diags d;
    kg_diags_init(&d);
    kg_model *m = kg_load(path, NULL, &d);
    int errors = 0;
    for (size_t k = 0; k < d.count; k++) errors += d.items[k].severity >= KG_ERROR;
    kg_diags_clear(&d);
    if (m && !errors) {
        char name[300];
        snprintf(name, sizeof name, "corpus_%d.glb", corpus_files++);
        double e = round_trip(m, NULL, name);
        printf("%-40s %s: link poses %.1e\n", strrchr(path, '/') + 1, name, e);
        if (!(e <= 1e-6)) fail_msg("%s: %g", path, e);
    }
    kg_model_free(m);
    return 0;
}

static void test_corpus(void **state) {
    (void)state;
    KG_REQUIRE_DATA(data);
    char dir[4096];
    snprintf(dir, sizeof dir, "%s/urdf", data);
    assert_int_equal(nftw(dir, export_urdf, 16, FTW_PHYS), 0);
    assert_true(corpus_files > 20);
}

/* The corpus humanoids with a clip (retarget -o .glb), and animated COLLADA files alone. */
static void test_corpus_motion(void **state) {
    (void)state;
    KG_REQUIRE_DATA(data);
    static const char *robots[] = {"unitree_g1/g1_description/g1_29dof_rev_1_0.urdf", "jvrc1/jvrc_description/urdf/jvrc1.urdf",
                                   "talos/example-robot-data/robots/talos_data/robots/talos_reduced.urdf"},
                      *names[] = {"g1", "jvrc1", "talos"};
    char args[8192], model[4200], out[300];
    for (int k = 0; k < 3; k++) {
        snprintf(model, sizeof model, "%s/urdf/%s", data, robots[k]);
        snprintf(args, sizeof args,
                 "retarget '%s/bvh/bandai_namco/dataset-1_walk_normal_001.bvh' --robot '%s' -o '%%s/%s_walk.csv' "
                 "--csv-layout kinegraph",
                 data, model, names[k]);
        run(args);
        snprintf(args, sizeof args,
                 "retarget '%s/bvh/bandai_namco/dataset-1_walk_normal_001.bvh' --robot '%s' -o '%%s/%s_walk.glb'", data,
                 model, names[k]);
        snprintf(out, sizeof out, "%s_walk.glb", names[k]);
        char motion[300];
        snprintf(motion, sizeof motion, "%%s/%s_walk.csv", names[k]);
        double e = cli_round_trip(args, out, model, motion, names[k]);
        if (!(e <= 1e-6)) fail_msg("%s: %g", out, e);
    }
    static const char *anims[] = {"blender_skinned/leg-with-control-bones.dae", "blender_skinned/letter-f-animated.dae"};
    for (int k = 0; k < 2; k++) {
        snprintf(model, sizeof model, "%s/collada/%s", data, anims[k]);
        snprintf(args, sizeof args, "convert '%s' '%%s/anim_%d.glb'", model, k);
        snprintf(out, sizeof out, "anim_%d.glb", k);
        double e = cli_round_trip(args, out, model, NULL, strrchr(anims[k], '/') + 1);
        if (!(e <= 1e-6)) fail_msg("%s: %g", out, e);
    }
}

/* Every file written above, through the Khronos validator. */
static void test_validator(void **state) {
    (void)state;
    const char *mod = getenv("KINEGRAPH_GLTF_VALIDATOR"); /* a node_modules folder holding gltf-validator */
    char paths[3][4096], cmd[16384];
    snprintf(paths[0], sizeof paths[0], "%s", mod ? mod : "");
    snprintf(paths[1], sizeof paths[1], "%s/npm/node_modules", KG_BINARY_DIR);
    FILE *p = popen("npm root -g 2>/dev/null", "r");
    paths[2][0] = 0;
    if (p) {
        if (fgets(paths[2], sizeof paths[2], p)) paths[2][strcspn(paths[2], "\n")] = 0;
        pclose(p);
    }
    const char *found = NULL;
    for (int k = 0; k < 3 && !found; k++) {
        char probe[4200 + 4096];
        snprintf(probe, sizeof probe, "%.4000s/gltf-validator/package.json", paths[k]);
        if (paths[k][0] && access(probe, R_OK) == 0) found = paths[k];
    }
    if (!found || system("node --version >/dev/null 2>&1") != 0) {
        printf("SKIPPED: the Khronos glTF validator is not installed (npm install gltf-validator, then set "
               "KINEGRAPH_GLTF_VALIDATOR to its node_modules folder)\n");
        skip();
    }
    snprintf(cmd, sizeof cmd, "cd '%s' && NODE_PATH='%s' node '%s/tests/gltf_validate.js' *.glb *.gltf > report.jsonl",
             tmpdir, found, KG_SOURCE_DIR);
    assert_int_equal(system(cmd), 0);
    char report[4200];
    snprintf(report, sizeof report, "%s/report.jsonl", tmpdir);
    FILE *f = fopen(report, "r");
    assert_non_null(f);
    char line[65536];
    int files = 0, errors = 0, warnings = 0;
    while (fgets(line, sizeof line, f)) {
        json_t *j = json_loads(line, 0, NULL);
        assert_non_null(j);
        int e = (int)json_integer_value(json_object_get(j, "errors"));
        if (e) printf("%s: %s\n", json_string_value(json_object_get(j, "file")), line);
        errors += e != 0, warnings += (int)json_integer_value(json_object_get(j, "warnings"));
        files++;
        json_decref(j);
    }
    fclose(f);
    printf("gltf-validator: %d files, %d with errors, %d warnings in all\n", files, errors, warnings);
    assert_int_equal(errors, 0);
    assert_true(files >= 2);
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
        cmocka_unit_test(test_samples),
        cmocka_unit_test(test_motion),
        cmocka_unit_test(test_cone),
        cmocka_unit_test(test_corpus),
        cmocka_unit_test(test_corpus_motion),
        cmocka_unit_test(test_validator),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
