/* Hostile and mutated inputs against the library built with AddressSanitizer and
 * UndefinedBehaviorSanitizer (label "sanitize"): whatever the bytes, the importer
 * returns a model or NULL with an error, never crashes, leaks or hangs. Mutations
 * are drawn from fixed seeds, so every run tests the same inputs. */
#define _GNU_SOURCE /* open_memstream */
#include "testutil.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analysis/collision.h"
#include "analysis/ik.h"
#include "analysis/jacobian.h"
#include "analysis/manipulability.h"
#include "analysis/mass.h"
#include "analysis/measure.h"
#include "analysis/validity.h"
#include "analysis/workspace.h"
#include "exporters/exporters.h"
#include "core/fk.h"
#include "core/spatial.h"
#include "formats/fileio.h"
#include "io/load.h"
#include "io/motion_file.h"

static uint64_t rng_state;
static uint64_t rnd(void) { /* xorshift64* */
    rng_state ^= rng_state >> 12;
    rng_state ^= rng_state << 25;
    rng_state ^= rng_state >> 27;
    return rng_state * 2685821657736338717ull;
}
static size_t rnd_below(size_t n) { return n ? (size_t)(rnd() % n) : 0; }

static const char *format = "urdf"; /* of the inputs being mutated */

/* The analyses on whatever model was read: Jacobian and manipulability of the
 * last link, mass from geometry, collision geometry and a self-collision test,
 * a small workspace, a few IK iterations. */
static void analyse(const kg_model *m, kg_data *kd, kg_diags *d) {
    int tip = m->nlink - 1;
    kg_jacobian_twists(m, kd);
    double *J = malloc((size_t)6 * (m->dof > 0 ? m->dof : 1) * sizeof *J);
    kg_jacobian(m, kd, tip, NULL, -1, J);
    kg_manipulability mp;
    if (m->dof > 0) kg_manipulability_svd(J, m->dof, m->dof, &mp);
    free(J);
    kg_mesh_cache *mc = kg_mesh_cache_new();
    kg_link_solid *ls = calloc((size_t)m->nlink, sizeof *ls);
    kg_link_solids(m, mc, KG_COLLISION, ls, d);
    for (int i = 0; i < m->nlink; i++) {
        kg_inertial_check c;
        kg_inertial_compare(&m->link[i], &ls[i].solid, &c);
    }
    free(ls);
    kg_collision_model cm;
    if (kg_collision_model_build(m, mc, &cm, d) == 0) {
        kg_collision_work *w = kg_collision_work_new(&cm);
        unsigned char *hit = malloc((size_t)cm.npair + 1);
        if (w && hit) kg_self_collisions(&cm, kd, w, NULL, hit);
        free(hit);
        kg_collision_work_free(w);
        kg_collision_model_free(&cm);
    }
    kg_mesh_cache_free(mc);
    /* IK: the last link to where it is plus 1 cm, and the COM, a few iterations */
    kg_ik_work *ik = kg_ik_work_new(m, 2);
    if (ik) {
        kg_ik_options io;
        kg_ik_defaults(&io);
        io.max_iterations = 20;
        kg_ik_target t[2] = {{.link = tip, .base = -1, .axes = KG_IK_POSE}, {.link = KG_IK_COM, .base = -1, .axes = KG_IK_X}};
        kg_vec3_copy(t[0].pos, kd->link_pos + 3 * tip);
        t[0].pos[0] += 0.01;
        kg_mat3_copy(t[0].rot, kd->link_rot + 9 * tip);
        kg_ik_result r;
        kg_ik_solve(m, kd, t, 2, &io, ik, &r);
        kg_ik_work_free(ik);
    }
    kg_workspace_options wo = {.tip = tip, .base = -1, .samples = 64, .voxel = 0.05, .seed = 1, .manipulability = 1};
    kg_workspace ws;
    if (kg_workspace_compute(m, &wo, &ws) == 0) kg_workspace_free(&ws);
}

/* Loads buf; exercises FK and mass on any model, and on every frame of a motion,
 * and writing it back; checks the error contract. */
static void exercise(const char *name, const char *buf, size_t len) {
    kg_diags d;
    kg_diags_init(&d);
    kg_load_options o = {0};
    o.format = format;
    o.resolver.ignore_env = 1;
    kg_motion *mo = NULL;
    kg_model *m = kg_load_clip_buffer(name, buf, len, &o, &mo, &d);
    /* no model comes with an error, or the warning that the file holds none */
    if (!m && kg_diags_count(&d, KG_ERROR) == 0 && !kg_test_find(&d, "collada.empty"))
        fail_msg("%s: no model and no error", name);
    for (size_t i = 0; i < d.count; i++) {
        assert_non_null(d.items[i].message);
        assert_non_null(d.items[i].code);
    }
    if (m) {
        kg_data *kd = kg_data_new(m);
        for (int k = 0; k < m->nq; k++) kd->q[k] = 0.3 * (double)(k % 7) - 0.9;
        kg_fk(m, kd);
        kg_mass_props mp;
        kg_mass_properties(m, kd, &mp, NULL);
        for (int k = 0; k < m->nloop; k++) {
            double dp[3], da;
            kg_loop_residual(m, kd, k, dp, &da);
        }
        for (int f = 0; mo && f < mo->nframes; f++) {
            kg_motion_pose(mo, f, kd);
            kg_fk(m, kd);
        }
        if (mo) { /* the writers must cope with whatever was read */
            FILE *null = fopen("/dev/null", "w");
            kg_export_bvh(m, mo, NULL, null, NULL, &d);
            kg_export_csv(m, mo, NULL, null, NULL, &d);
            kg_export_npz(m, mo, NULL, null, NULL, &d);
            fclose(null);
        }
        kg_body_size(m, NULL, NULL);
        analyse(m, kd, &d);
        kg_mesh_cache *mc = kg_mesh_cache_new(); /* the validity checks, motion and meshes too */
        kg_check_options co = {.meshes = mc};
        kg_check_model(m, mo, &co, &d);
        kg_mesh_cache_free(mc);
        kg_ledger ledger; /* URDF can be written from any model */
        kg_ledger_init(&ledger);
        FILE *null = fopen("/dev/null", "w");
        kg_export_urdf(m, mo, NULL, null, &ledger, &d);
        kg_export_options go = {.skip_meshes = 1}; /* glTF: primitives with normals, the animation */
        kg_export_gltf(m, mo, &go, null, &ledger, &d);
        fclose(null);
        kg_ledger_clear(&ledger);
        kg_data_free(kd);
        kg_model_free(m);
    }
    kg_motion_free(mo);
    kg_diags_clear(&d);
}

static const char *const tokens[] = {"<instance_node url='#Armature'/>", "target='Bone/transform(3)(9)'",
                                     "<float_array id='a' count='99999999999'>", "type='JOINT'", "<skew>1 2</skew>",
                                     "<Name_array count='2'>BEZIER HERMITE</Name_array>", "stride='0'", "<scale>0 0 0</scale>",
                                     "<matrix sid='transform'>1 0 0</matrix>", "<animation_clip start='5' end='-1'>",
                                     "<attachment_start joint='kmodel1/joint0'>", "<link sid='x'>", "</link>",
                                     "<revolute sid='a'><axis>0 0 0</axis></revolute>", "<math><apply><divide/>",
                                     "<csymbol>kmodel1/joint0</csymbol>", "<cn>1e400</cn>", "url='#kmodel1'",
                                     "<instance_formula url='#'/>", "{", "}", "JOINT x\n{\n", "End Site", "OFFSET 1 2", "CHANNELS 7 ",
                                     "CHANNELS 3 Xposition Xrotation Wrotation", "MOTION\n", "Frames: 99999999\n",
                                     "Frame Time: 0\n", "\r", "\t", "1e308", "-", ".", "e", "<", ">", "/>", "\"", "'", "&", "&amp;", "&#0;", "<!--", "-->",
                                     "<?xml ", "?>", "<![CDATA[", "]]>", " nan", " inf", "1e999",
                                     "-0", "  ", "\n", "\0", "\xff\xfe", "\xc3", "<joint name='x' type='floating'>",
                                     "<link name='a'/>", "<mimic joint='x'/>", "<parent link='a'/>",
                                     "<child link='a'/>", "<inertial>", "<geometry/>", "package:///"};

static size_t mutate(const char *src, size_t n, char *out, size_t cap) {
    memcpy(out, src, n);
    size_t len = n;
    int edits = 1 + (int)rnd_below(8);
    for (int e = 0; e < edits && len > 0; e++) {
        size_t at = rnd_below(len);
        switch (rnd_below(6)) {
        case 0: /* flip bits */
            out[at] ^= (char)(1 << rnd_below(8));
            break;
        case 1: { /* delete a span */
            size_t k = 1 + rnd_below(64);
            if (at + k > len) k = len - at;
            memmove(out + at, out + at + k, len - at - k);
            len -= k;
            break;
        }
        case 2: { /* insert a token */
            const char *t = tokens[rnd_below(sizeof tokens / sizeof *tokens)];
            size_t k = strlen(t) ? strlen(t) : 1;
            if (len + k >= cap) break;
            memmove(out + at + k, out + at, len - at);
            memcpy(out + at, t, k);
            len += k;
            break;
        }
        case 3: /* truncate */
            len = at;
            break;
        case 4: { /* duplicate a span elsewhere */
            size_t k = 1 + rnd_below(200), to = rnd_below(len);
            if (at + k > len) k = len - at;
            if (len + k >= cap) break;
            memmove(out + to + k, out + to, len - to);
            memmove(out + to, out + (at < to ? at : at + k), k);
            len += k;
            break;
        }
        default: /* replace a digit by another character */
            for (size_t i = at; i < len; i++)
                if (out[i] >= '0' && out[i] <= '9') {
                    out[i] = "9.-eE x"[rnd_below(7)];
                    break;
                }
        }
    }
    return len;
}

static void mutate_file(const char *path, int count, uint64_t seed) {
    kg_diags d;
    kg_diags_init(&d);
    size_t n;
    char *src = kg_read_file(path, &n, &d);
    kg_diags_clear(&d);
    if (!src) fail_msg("cannot read %s", path);
    size_t cap = 2 * n + 4096;
    char *buf = malloc(cap);
    rng_state = seed;
    for (int i = 0; i < count; i++) {
        size_t len = mutate(src, n, buf, cap);
        exercise(path, buf, len);
    }
    free(buf);
    free(src);
}

static void test_mutated_sample(void **state) {
    (void)state;
    mutate_file(KG_SOURCE_DIR "/samples/humanoid.urdf", 3000, 0x5eed0001);
}

static void test_mutated_corpus(void **state) {
    (void)state;
    KG_REQUIRE_DATA(data);
    const char *files[] = {
        "urdf/ur5/example-robot-data/robots/ur_description/urdf/ur5_robot.urdf",
        "urdf/unitree_g1/g1_description/g1_29dof_rev_1_0.urdf",
        "urdf/talos/example-robot-data/robots/talos_data/robots/talos_full_v2.urdf",
        "urdf/nao/nao_robot/nao_description/urdf/naoV50_generated_urdf/nao.urdf",
        "urdf/fetch/differentiable-robot-model/diff_robot_data/fetch_description/urdf/fetch.urdf",
        "urdf/robotiq_2f85/robotiq_arg85_description/robots/robotiq_arg85_description.URDF",
        "bad/urdf/ros_urdf_tests/test_robot.urdf",
    };
    for (size_t i = 0; i < sizeof files / sizeof *files; i++) {
        char path[4096];
        snprintf(path, sizeof path, "%s/%s", data, files[i]);
        mutate_file(path, 250, 0xc0ffee00 + i);
    }
}

/* Appends to a growing buffer. */
typedef struct sbuf {
    char *s;
    size_t n, cap;
} sbuf;
static void put(sbuf *b, const char *t) {
    size_t k = strlen(t);
    if (b->n + k + 1 > b->cap) {
        b->cap = 2 * (b->n + k + 1);
        b->s = realloc(b->s, b->cap);
    }
    memcpy(b->s + b->n, t, k + 1);
    b->n += k;
}

static void test_mutated_bvh(void **state) {
    (void)state;
    format = "bvh";
    mutate_file(KG_SOURCE_DIR "/samples/walk.bvh", 2000, 0xb0b0001);
    mutate_file(KG_SOURCE_DIR "/tests/data/bvh/position_channels.bvh", 1000, 0xb0b0002);
    const char *data = kg_test_data_dir();
    if (!data) {
        printf("NOTICE: shared corpus absent; BVH mutations of our own clips only\n");
    } else {
        const char *files[] = {"bvh/bvh_python/test_mocapbank.bvh", "bvh/bvh_python/test_freebvh.bvh",
                               "bvh/bandai_namco/dataset-1_run_normal_001.bvh",
                               "bvh/animated_drawings/examples/bvh/cmu1/jumping_jacks.bvh"};
        for (size_t i = 0; i < sizeof files / sizeof *files; i++) {
            char path[4096];
            snprintf(path, sizeof path, "%s/%s", data, files[i]);
            mutate_file(path, 150, 0xb0b0100 + i);
        }
    }
    format = "urdf";
}

/* Motion CSVs (convert --motion) of the sample humanoid (a floating base) and
 * the sample walk's skeleton (compound joints), in both layouts, mutated: the
 * reader returns a motion of the model or NULL with an error, and the motion
 * can be written (npz, glTF). */
static void mutate_motion_csv(const kg_model *m, const kg_motion *mo, int lafan1, int count, uint64_t seed) {
    char *src = NULL;
    size_t n = 0;
    FILE *f = open_memstream(&src, &n);
    (lafan1 ? kg_export_csv_lafan1 : kg_export_csv)(m, mo, NULL, f, NULL, NULL);
    fclose(f);
    char path[] = "/tmp/kg_robust_motion_XXXXXX.csv";
    int fd = mkstemps(path, 4);
    assert_true(fd >= 0);
    close(fd);
    size_t cap = 2 * n + 4096;
    char *buf = malloc(cap);
    rng_state = seed;
    for (int i = 0; i < count; i++) {
        size_t len = mutate(src, n, buf, cap);
        f = fopen(path, "wb");
        fwrite(buf, 1, len, f);
        fclose(f);
        kg_diags d;
        kg_diags_init(&d);
        kg_motion *r = kg_load_motion_for(m, path, NULL, i % 3 ? 0 : 60, &d);
        if (!r && kg_diags_count(&d, KG_ERROR) == 0) fail_msg("mutation %d: no motion and no error", i);
        if (r) {
            assert_int_equal(r->nq, m->nq);
            assert_true(r->nframes > 0);
            FILE *null = fopen("/dev/null", "w");
            kg_export_options eo = {.skip_meshes = 1};
            kg_export_npz(m, r, &eo, null, NULL, &d);
            fclose(null);
        }
        kg_motion_free(r);
        kg_diags_clear(&d);
    }
    remove(path);
    free(buf);
    free(src);
}

static void test_mutated_motion_csv(void **state) {
    (void)state;
    kg_model *h = kg_test_load(KG_SOURCE_DIR "/samples/humanoid.urdf");
    kg_motion *mo = kg_motion_new(h->nq, 1.0 / 30, 40);
    mo->base = malloc(40 * 7 * sizeof(double));
    for (int t = 0; t < 40; t++) {
        double *q = kg_motion_append(mo, NULL);
        for (int k = 0; k < h->nq; k++) q[k] = 0.4 * sin(0.1 * t + k);
        double b[7] = {0.01 * t, 0, 0.65, cos(0.01 * t), 0, 0, sin(0.01 * t)};
        memcpy(mo->base + 7 * t, b, sizeof b);
    }
    mutate_motion_csv(h, mo, 0, 1500, 0xc5f0001);
    mutate_motion_csv(h, mo, 1, 1500, 0xc5f0002);
    kg_motion_free(mo);
    kg_model_free(h);
    kg_diags d;
    kg_diags_init(&d);
    kg_model *w = kg_load_clip(KG_SOURCE_DIR "/samples/walk.bvh", NULL, &mo, &d);
    assert_non_null(w);
    mo->nframes = 20; /* a shorter file: more mutations per second */
    mutate_motion_csv(w, mo, 0, 500, 0xc5f0003);
    kg_motion_free(mo);
    kg_model_free(w);
    kg_diags_clear(&d);
}

static void test_mutated_collada(void **state) {
    (void)state;
    KG_REQUIRE_DATA(data);
    format = "collada";
    const char *files[] = {
        "collada/openrave/extracted/pumagripper.dae",
        "collada/khronos_cts/library_kinematics_model/kinematics_model/technique_common/link/attachment_end/attachment_end.dae",
        "collada/khronos_cts/library_joints/joint/compound_joint/compound_joint.dae",
        "collada/pycollada/wam.dae",
        "collada/blender_skinned/leg-with-control-bones.dae",
        "collada/assimp_tests/box_nested_animation.dae",
        "collada/khronos_cts/library_nodes/node/JointsInLN/JointsInLN.dae",
    };
    for (size_t i = 0; i < sizeof files / sizeof *files; i++) {
        char path[4096];
        snprintf(path, sizeof path, "%s/%s", data, files[i]);
        mutate_file(path, i == 0 ? 150 : 300, 0xc011ada0 + i);
    }
    format = "urdf";
}

static void test_generated_extremes(void **state) {
    (void)state;
    char line[256];
    /* empty, BOM only, binary, a lone declaration */
    exercise("empty.urdf", "", 0);
    exercise("bom.urdf", "\xef\xbb\xbf", 3);
    exercise("bin.urdf", "\x00\x01\x02\xff<robot", 10);
    exercise("decl.urdf", "<?xml version='1.0'?>", 21);
    exercise("utf16.urdf", "\xff\xfe<\0r\0o\0b\0o\0t\0/\0>\0", 16);
    /* issue 26: two CHANNELS lines on one joint wrote outside the frame (ASan) */
    format = "bvh";
    const char *two = "HIERARCHY\nROOT a\n{\n OFFSET 0 0 0\n CHANNELS 3 Xrotation Yrotation Zrotation\n"
                      " CHANNELS 3 Xposition Yposition Zposition\n}\nMOTION\nFrames: 2\nFrame Time: 0.1\n"
                      "1e9 2e9 3e9 4e9 5e9 6e9\n1 2 3 4 5 6\n";
    exercise("two_channels.bvh", two, strlen(two));
    format = "urdf";

    /* a 20 000-link chain: no recursion may depend on the depth of the tree */
    sbuf b = {0};
    put(&b, "<robot name='chain'>\n");
    for (int i = 0; i < 20000; i++) {
        snprintf(line, sizeof line, "<link name='l%d'/>\n", i);
        put(&b, line);
        if (i)
            snprintf(line, sizeof line,
                     "<joint name='j%d' type='continuous'><parent link='l%d'/><child link='l%d'/>"
                     "<origin xyz='0 0 0.01'/></joint>\n",
                     i, i - 1, i);
        put(&b, i ? line : "");
    }
    put(&b, "</robot>\n");
    kg_diags d;
    kg_diags_init(&d);
    kg_model *m = kg_load_buffer("chain.urdf", b.s, b.n, NULL, &d);
    assert_non_null(m);
    assert_int_equal(m->nlink, 20000);
    kg_data *kd = kg_data_new(m);
    kg_fk(m, kd);
    KG_ASSERT_NEAR(kd->link_pos[3 * 19999 + 2], 199.99, 1e-9);
    kg_data_free(kd);
    kg_model_free(m);
    kg_diags_clear(&d);
    free(b.s);

    /* 3000 joints into one link: 2999 loops */
    b = (sbuf){0};
    put(&b, "<robot name='star'><link name='hub'/><link name='rim'/>\n");
    for (int i = 0; i < 3000; i++) {
        snprintf(line, sizeof line, "<joint name='s%d' type='fixed'><parent link='hub'/><child link='rim'/></joint>\n", i);
        put(&b, line);
    }
    put(&b, "</robot>\n");
    m = kg_load_buffer("star.urdf", b.s, b.n, NULL, &d);
    assert_non_null(m);
    assert_int_equal(m->nloop, 2999);
    kg_model_free(m);
    kg_diags_clear(&d);
    free(b.s);

    /* a 3000-long mimic chain, and a mimic cycle through 1000 joints */
    b = (sbuf){0};
    put(&b, "<robot name='mimic'><link name='base'/>\n");
    for (int i = 0; i < 3000; i++) {
        snprintf(line, sizeof line,
                 "<link name='m%d'/><joint name='j%d' type='continuous'><parent link='base'/><child link='m%d'/>"
                 "<mimic joint='j%d' multiplier='1' offset='0.001'/></joint>\n",
                 i, i, i, i < 1000 ? (i + 1) % 1000 : (i > 1000 ? i - 1 : 0));
        put(&b, line);
    }
    put(&b, "</robot>\n");
    m = kg_load_buffer("mimic.urdf", b.s, b.n, NULL, &d);
    assert_non_null(m);
    assert_int_equal(kg_test_count(&d, "mimic.cycle"), 1000);
    assert_int_equal(m->nmimic, 2000);
    kg_model_free(m);
    kg_diags_clear(&d);
    free(b.s);

    /* deep element nesting (libxml2 limits it), a huge name, many diagnostics */
    b = (sbuf){0};
    put(&b, "<robot name='deep'><link name='a'>");
    for (int i = 0; i < 5000; i++) put(&b, "<x>");
    put(&b, "</link></robot>");
    exercise("deep.urdf", b.s, b.n);
    free(b.s);
    b = (sbuf){0};
    put(&b, "<robot name='");
    for (int i = 0; i < 200000; i++) put(&b, "nnnnnnnnnn");
    put(&b, "'><link name='a'/>");
    for (int i = 0; i < 30000; i++) put(&b, "<bogus/>");
    put(&b, "</robot>");
    exercise("huge.urdf", b.s, b.n);
    free(b.s);
}

/* Writes m with `export` into memory and reads it back as `format`. */
static kg_model *write_and_read(const kg_model *m, const char *as, const char *name,
                                int (*export)(const kg_model *, const kg_motion *, const kg_export_options *, FILE *,
                                              kg_ledger *, kg_diags *),
                                size_t *size, kg_diags *d) {
    char *text = NULL;
    FILE *f = open_memstream(&text, size);
    kg_export_options eo = {.skip_meshes = 1};
    assert_int_equal(export(m, NULL, &eo, f, NULL, d), 0);
    fclose(f);
    kg_load_options o = {0};
    o.format = as;
    o.resolver.ignore_env = 1;
    kg_motion *mo = NULL;
    kg_model *back = kg_load_clip_buffer(name, text, *size, &o, &mo, d);
    kg_motion_free(mo);
    free(text);
    return back;
}

/* Issue 26: the BVH and COLLADA writers recursed per link (a 10 000-link chain
 * overflowed the stack) and the readers refused what the writers wrote past 256
 * levels. Both ways are iterative now; the files stay linear in size (the
 * indentation stops growing). */
static void test_deep_chain_round_trip(void **state) {
    (void)state;
    char line[256];
    const int n = 10000;
    sbuf b = {0};
    put(&b, "<robot name='chain'>\n");
    for (int i = 0; i < n; i++) {
        snprintf(line, sizeof line, "<link name='l%d'/>\n", i);
        put(&b, line);
        if (!i) continue;
        snprintf(line, sizeof line,
                 "<joint name='j%d' type='continuous'><parent link='l%d'/><child link='l%d'/>"
                 "<origin xyz='0 0 0.01'/><axis xyz='0 1 0'/></joint>\n",
                 i, i - 1, i);
        put(&b, line);
    }
    put(&b, "</robot>\n");
    kg_diags d;
    kg_diags_init(&d);
    kg_model *m = kg_load_buffer("chain.urdf", b.s, b.n, NULL, &d);
    free(b.s);
    assert_non_null(m);
    struct {
        const char *format, *name;
        int (*export)(const kg_model *, const kg_motion *, const kg_export_options *, FILE *, kg_ledger *, kg_diags *);
        int extra_links; /* BVH: a static world above, an End Site below */
    } kinds[] = {{"bvh", "chain.bvh", kg_export_bvh, 2}, {"collada", "chain.dae", kg_export_collada, 0}};
    for (size_t k = 0; k < 2; k++) {
        size_t size = 0;
        kg_model *back = write_and_read(m, kinds[k].format, kinds[k].name, kinds[k].export, &size, &d);
        if (!back || kg_diags_count(&d, KG_ERROR)) kg_test_print_diags(&d);
        assert_non_null(back);
        assert_int_equal(kg_diags_count(&d, KG_ERROR), 0);
        assert_int_equal(back->nlink, n + kinds[k].extra_links);
        assert_true(size < (size_t)n * 2000); /* indented in full: 100 times more */
        kg_data *kd = kg_data_new(back);
        kg_fk(back, kd);
        int last = -1;
        for (int i = 0; i < back->nlink; i++)
            if (!strcmp(back->link[i].name, "l9999")) last = i;
        assert_true(last >= 0);
        KG_ASSERT_NEAR(kd->link_pos[3 * last + 2], 99.99, 1e-9);
        kg_data_free(kd);
        kg_model_free(back);
        kg_diags_clear(&d);
    }
    kg_model_free(m);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_mutated_sample),
        cmocka_unit_test(test_mutated_corpus),
        cmocka_unit_test(test_mutated_bvh),
        cmocka_unit_test(test_mutated_collada),
        cmocka_unit_test(test_mutated_motion_csv),
        cmocka_unit_test(test_generated_extremes),
        cmocka_unit_test(test_deep_chain_round_trip),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
