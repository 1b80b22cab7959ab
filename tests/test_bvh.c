/* BVH: every clip of the corpus loads with its dialect's quirks; FK agrees with
 * assimp's BVH import (tests/reference/bvh/, recorded by
 * tests/peers/make_references.sh; assimp computes in single precision, so the
 * tolerance is 1e-6 of the figure's size); BVH -> BVH round trips give the same
 * FK to 1e-9; CSV and JSON trajectories read back exactly; bad files get errors
 * with their line. */
#define _XOPEN_SOURCE 700
#include "testutil.h"

#include <ftw.h>
#include <glob.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/measure.h"
#include "core/fk.h"
#include "core/spatial.h"
#include "exporters/exporters.h"
#include "io/load.h"
#include "formats/number.h"
#include "formats/units.h"

static kg_model *load(const char *path, kg_motion **mo, kg_diags *d) {
    kg_diags_init(d);
    return kg_load_clip(path, NULL, mo, d);
}

static kg_model *load_text(const char *text, kg_motion **mo, kg_diags *d) {
    kg_diags_init(d);
    kg_load_options o = {0};
    o.format = "bvh";
    return kg_load_clip_buffer("t.bvh", text, strlen(text), &o, mo, d);
}

/* ---- the corpus --------------------------------------------------------------- */

static void test_corpus_dialects(void **state) {
    (void)state;
    KG_REQUIRE_DATA(data);
    struct {
        const char *file;
        int frames, channels, joints;
        double frame_time;
        const char *a_joint, *unit;
    } cases[] = {
        {"bvh/animated_drawings/animate/Data/BVH/cmu_new2/bassai.bvh", 6116, 66, 19, 0.008333, "lfemur", "inch"},
        {"bvh/animated_drawings/animate/Data/BVH/mixamo/Boxing_mixamo.com.bvh", 111, 330, 55, 0.0333333, "HeadTop_End", "cm"},
        {"bvh/animated_drawings/examples/bvh/cmu1/jumping_jacks.bvh", 125, 96, 31, 0.03333, "LeftHip", "cmu"},
        {"bvh/animated_drawings/examples/bvh/fair1/jumping.bvh", 654, 84, 27, 0.008342, "Spine3", "inch"},
        {"bvh/animated_drawings/examples/bvh/rokoko/jesse_dance.bvh", 1007, 183, 60, 0.01, "Hips", "cm"},
        /* 3070 data lines, 'Frames: 3069': all read, with a warning */
        {"bvh/assimp_misc/Boxing_Toes.bvh", 3070, 66, 21, 0.01, "Ab", "cm"},
        {"bvh/bandai_namco/dataset-1_dance-short_normal_001.bvh", 1901, 132, 22, 0.0333333, "joint_Root", "cm"},
        {"bvh/bvh_python/test_freebvh.bvh", 69, 168, 55, 0.0333333, "mixamorig:Hips", "cm"},   /* ':' in names */
        {"bvh/bvh_python/test_mocapbank.bvh", 455, 60, 19, 0.033333, "LeftCollar", "cm"},     /* CRLF, tabs */
        {"bvh/cmu_cgspeed/01_03.bvh", 4511, 96, 31, 0.0083333, "LHipJoint", "cmu"},
        {"bvh/cmu_iclone/007_01.bvh", 157, 306, 101, 0.016667, "CC_Base_Hip", "cm"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        char path[4096];
        snprintf(path, sizeof path, "%s/%s", data, cases[i].file);
        kg_diags d;
        kg_motion *mo;
        kg_model *m = load(path, &mo, &d);
        if (!m || kg_diags_count(&d, KG_ERROR)) {
            kg_test_print_diags(&d);
            fail_msg("%s must load", cases[i].file);
        }
        assert_int_equal(mo->nframes, cases[i].frames);
        assert_int_equal(m->nq, cases[i].channels);
        KG_ASSERT_NEAR(mo->frame_time, cases[i].frame_time, 1e-12);
        int njoints = 0; /* BVH joints = compound joints */
        for (int j = 0; j < m->njoint; j++) njoints += m->joint[j].type == KG_JOINT_COMPOUND;
        assert_int_equal(njoints, cases[i].joints);
        if (kg_model_link(m, cases[i].a_joint) < 0) fail_msg("%s: no link %s", cases[i].file, cases[i].a_joint);
        assert_string_equal(kg_guess_unit(kg_body_size(m, NULL, NULL), NULL), cases[i].unit);
        assert_int_equal(m->link[m->root_body].parent, 0); /* the ROOT joint's link, under the static world */
        if (strstr(cases[i].file, "Boxing_Toes")) {
            const kg_diag *g = kg_test_find(&d, "bvh.frame_count");
            assert_non_null(g);
            assert_int_equal(g->severity, KG_WARNING);
            assert_int_equal(g->line, 128);
        } else if (d.count) {
            kg_test_print_diags(&d);
            fail_msg("%s: unexpected diagnostics", cases[i].file);
        }
        kg_motion_free(mo);
        kg_model_free(m);
        kg_diags_clear(&d);
    }
}

static void test_mixed_rotation_orders(void **state) {
    (void)state;
    KG_REQUIRE_DATA(data);
    char path[4096];
    snprintf(path, sizeof path, "%s/bvh/animated_drawings/examples/bvh/cmu1/jumping_jacks.bvh", data);
    kg_diags d;
    kg_motion *mo;
    kg_model *m = load(path, &mo, &d);
    assert_non_null(m);
    /* the root's rotations are Z Y X in this file, but some joints use Z X Y */
    int zyx = 0, zxy = 0;
    for (int j = 0; j < m->njoint; j++) {
        const kg_joint *J = &m->joint[j];
        if (J->type != KG_JOINT_COMPOUND || J->naxis < 3) continue;
        const kg_axis *a = &m->axis[J->axis_first + J->naxis - 3];
        if (!strcmp(a[0].label, "Zrotation") && !strcmp(a[1].label, "Yrotation")) zyx++;
        if (!strcmp(a[0].label, "Zrotation") && !strcmp(a[1].label, "Xrotation")) zxy++;
    }
    assert_true(zyx > 0 && zxy > 0);
    kg_motion_free(mo);
    kg_model_free(m);
    kg_diags_clear(&d);
}

/* ---- FK against assimp ----------------------------------------------------------- */

static double compare_reference(const char *ref_path, const char *data, int *ncompared) {
    char path[4096];
    const char *file;
    json_t *ref = kg_test_open_reference(ref_path, data, path, sizeof path, &file);
    if (!ref) return 0;
    /* assimp drops the channel values of joints with position channels but not six
     * (it keeps their OFFSET): our own test file has one, compared separately */
    int known_wrong = strstr(file, "position_channels") != NULL;
    kg_diags d;
    kg_motion *mo;
    kg_model *m = load(path, &mo, &d);
    if (!m) fail_msg("%s does not load", path);
    kg_data *kd = kg_data_new(m);
    double worst = 0;
    json_t *frames = json_object_get(ref, "frames");
    for (size_t k = 0; k < json_array_size(frames); k++) {
        json_t *fr = json_array_get(frames, k);
        kg_motion_pose(mo, (int)json_integer_value(json_object_get(fr, "frame")), kd);
        kg_fk(m, kd);
        json_t *nodes = json_object_get(fr, "nodes");
        const char *name;
        json_t *nd;
        double scale = kg_test_frame_scale(nodes); /* the figure's size */
        json_object_foreach(nodes, name, nd) {
            char ours[600];
            if (strncmp(name, "EndSite_", 8) == 0) snprintf(ours, sizeof ours, "%s_End", name + 8);
            else snprintf(ours, sizeof ours, "%s", name);
            int i = kg_model_link(m, ours);
            if (i < 0) fail_msg("%s: no link %s", file, ours);
            double e = kg_test_pose_error(kd, i, nd, scale);
            if (known_wrong) continue;
            if (e > 1e-6) fail_msg("%s frame %d link %s: differs from assimp by %.3g", file, (int)k, ours, e);
            worst = fmax(worst, e);
        }
    }
    kg_data_free(kd);
    kg_motion_free(mo);
    kg_model_free(m);
    kg_diags_clear(&d);
    json_decref(ref);
    ++*ncompared;
    return worst;
}

static void test_fk_against_assimp(void **state) {
    (void)state;
    const char *data = kg_test_data_dir();
    if (!data) printf("NOTICE: shared corpus absent; only our own clips are compared with assimp\n");
    glob_t g;
    assert_int_equal(glob(KG_SOURCE_DIR "/tests/reference/bvh/*.json", 0, NULL, &g), 0);
    int n = 0;
    double worst = 0;
    for (size_t i = 0; i < g.gl_pathc; i++) worst = fmax(worst, compare_reference(g.gl_pathv[i], data, &n));
    globfree(&g);
    printf("%d clips agree with assimp: worst difference %.2e of the figure's size (tolerance 1e-6)\n", n, worst);
    assert_true(n >= (data ? 28 : 2));
}

/* Our own file with a joint of three position channels: FK by hand, and assimp's
 * recorded pose shows the translation it drops. */
static void test_position_channels(void **state) {
    (void)state;
    kg_diags d;
    kg_motion *mo;
    kg_model *m = load(KG_SOURCE_DIR "/tests/data/bvh/position_channels.bvh", &mo, &d);
    assert_non_null(m);
    kg_data *kd = kg_data_new(m);
    kg_motion_pose(mo, 1, kd);
    kg_fk(m, kd);
    /* base at (10,0,0) turned 90 deg about z; slider's channels (1,5,3) replace its
     * OFFSET: (10,0,0) + Rz90 (1,5,3) = (5,1,3); arm 1 above: (4,1,3), turned 180;
     * the End Site 2 along the arm's x: (2,1,3) */
    const double expect[3][3] = {{5, 1, 3}, {4, 1, 3}, {2, 1, 3}};
    const char *links[3] = {"slider", "arm", "arm_End"};
    for (int k = 0; k < 3; k++)
        for (int a = 0; a < 3; a++) KG_ASSERT_NEAR(kd->link_pos[3 * kg_model_link(m, links[k]) + a], expect[k][a], 1e-14);
    json_t *ref = json_load_file(KG_SOURCE_DIR "/tests/reference/bvh/source_position_channels.json", 0, NULL);
    assert_non_null(ref);
    json_t *slider = json_object_get(json_object_get(json_array_get(json_object_get(ref, "frames"), 1), "nodes"), "slider");
    /* assimp: (10,0,0) + Rz90 (1,2,3), the OFFSET, not the channels */
    KG_ASSERT_NEAR(json_number_value(json_array_get(json_object_get(slider, "position"), 0)), 8, 1e-6);
    json_decref(ref);
    kg_data_free(kd);
    kg_motion_free(mo);
    kg_model_free(m);
    kg_diags_clear(&d);
}

/* ---- writing ------------------------------------------------------------------- */

static char *write_to_memory(int (*writer)(const kg_model *, const kg_motion *, const kg_export_options *, FILE *, kg_ledger *, kg_diags *),
                             const kg_model *m, const kg_motion *mo, size_t *len) {
    char *buf = NULL;
    FILE *f = open_memstream(&buf, len);
    kg_diags d;
    kg_diags_init(&d);
    assert_int_equal(writer(m, mo, NULL, f, NULL, &d), 0);
    fclose(f);
    kg_diags_clear(&d);
    return buf;
}

/* BVH -> BVH: same hierarchy, channels, frame time; FK within 1e-9 at every
 * frame (radians to degrees and back may move the last bit). */
static void round_trip(const char *path) {
    kg_diags d;
    kg_motion *mo, *mo2;
    kg_model *m = load(path, &mo, &d);
    if (!m) fail_msg("%s does not load", path);
    size_t len;
    char *text = write_to_memory(kg_export_bvh, m, mo, &len);
    kg_diags d2;
    kg_diags_init(&d2);
    kg_load_options o = {0};
    o.format = "bvh";
    kg_model *m2 = kg_load_clip_buffer(path, text, len, &o, &mo2, &d2);
    if (!m2 || kg_diags_count(&d2, KG_ERROR)) {
        kg_test_print_diags(&d2);
        fail_msg("%s: the written BVH does not read back", path);
    }
    assert_int_equal(m2->nlink, m->nlink);
    assert_int_equal(m2->nq, m->nq);
    assert_int_equal(mo2->nframes, mo->nframes);
    assert_true(mo2->frame_time == mo->frame_time);
    for (int i = 1; i < m->nlink; i++) {
        assert_string_equal(m2->link[i].name, m->link[i].name);
        const kg_joint *a = &m->joint[i - 1], *b = &m2->joint[i - 1];
        assert_int_equal(a->naxis, b->naxis);
        for (int x = 0; x < a->naxis; x++)
            assert_string_equal(m->axis[a->axis_first + x].label, m2->axis[b->axis_first + x].label);
    }
    kg_data *k1 = kg_data_new(m), *k2 = kg_data_new(m2);
    double scale = 1;
    for (int f = 0; f < mo->nframes; f++) {
        kg_motion_pose(mo, f, k1);
        kg_motion_pose(mo2, f, k2);
        kg_fk(m, k1);
        kg_fk(m2, k2);
        for (int i = 0; i < 3 * m->nlink; i++) scale = fmax(scale, fabs(k1->link_pos[i]));
        for (int i = 0; i < 3 * m->nlink; i++)
            if (fabs(k1->link_pos[i] - k2->link_pos[i]) > 1e-9 * scale)
                fail_msg("%s frame %d: position differs by %g", path, f, k1->link_pos[i] - k2->link_pos[i]);
        for (int i = 0; i < 9 * m->nlink; i++)
            if (fabs(k1->link_rot[i] - k2->link_rot[i]) > 1e-9)
                fail_msg("%s frame %d: rotation differs by %g", path, f, k1->link_rot[i] - k2->link_rot[i]);
    }
    kg_data_free(k1);
    kg_data_free(k2);
    free(text);
    kg_motion_free(mo);
    kg_motion_free(mo2);
    kg_model_free(m);
    kg_model_free(m2);
    kg_diags_clear(&d);
    kg_diags_clear(&d2);
}

static char *clips[64];
static int nclips;
static int collect_bvh(const char *path, const struct stat *st, int flag, struct FTW *ftw) {
    (void)st;
    (void)ftw;
    size_t n = strlen(path);
    if (flag == FTW_F && n > 4 && strcmp(path + n - 4, ".bvh") == 0 && nclips < 64) clips[nclips++] = strdup(path);
    return 0;
}

static void test_round_trip_all(void **state) {
    (void)state;
    round_trip(KG_SOURCE_DIR "/samples/walk.bvh");
    round_trip(KG_SOURCE_DIR "/tests/data/bvh/position_channels.bvh");
    const char *data = kg_test_data_dir();
    if (!data) {
        printf("NOTICE: shared corpus absent; round trips of our own clips only\n");
        return;
    }
    char dir[4096];
    snprintf(dir, sizeof dir, "%s/bvh", data);
    nclips = 0;
    assert_int_equal(nftw(dir, collect_bvh, 16, FTW_PHYS), 0);
    for (int i = 0; i < nclips; i++) {
        round_trip(clips[i]);
        free(clips[i]);
    }
    assert_int_equal(nclips, 26);
}

/* Trajectory files read back to the same doubles: CSV by strtod, JSON by jansson. */
static void test_trajectories(void **state) {
    (void)state;
    kg_diags d;
    kg_motion *mo;
    kg_model *m = load(KG_SOURCE_DIR "/samples/walk.bvh", &mo, &d);
    assert_non_null(m);
    size_t len;
    char *csv = write_to_memory(kg_export_csv, m, mo, &len);
    char *json = write_to_memory(kg_export_json, m, mo, &len);
    kg_data *kd = kg_data_new(m);
    int ncol = 8 + m->nq;
    double *row = malloc((size_t)ncol * sizeof *row);
    /* CSV: the header, then one line per frame */
    char *line = strtok(csv, "\n");
    assert_non_null(strstr(line, "time,root_x,root_y,root_z,root_qw,root_qx,root_qy,root_qz,Hips.Xposition,"));
    char name[600];
    assert_non_null(strstr(line, kg_coord_name(m, m->nq - 1, name, sizeof name)));
    json_t *j = json_loads(json, 0, NULL);
    assert_non_null(j);
    assert_string_equal(json_string_value(json_object_get(j, "quaternion_order")), "wxyz");
    assert_int_equal(json_array_size(json_object_get(j, "columns")), (size_t)ncol);
    assert_true(json_number_value(json_object_get(j, "frame_time")) == mo->frame_time);
    json_t *rows = json_object_get(j, "data");
    assert_int_equal(json_array_size(rows), (size_t)mo->nframes);
    for (int f = 0; f < mo->nframes; f++) {
        line = strtok(NULL, "\n");
        assert_non_null(line);
        const char *p = line;
        for (int c = 0; c < ncol; c++) {
            p = kg_parse_number(p, &row[c]);
            assert_non_null(p);
            if (*p == ',') p++;
        }
        kg_motion_pose(mo, f, kd);
        kg_fk(m, kd);
        double quat[4];
        kg_rot_to_quat(kd->link_rot + 9 * m->root_body, quat);
        assert_true(row[0] == f * mo->frame_time);
        for (int a = 0; a < 3; a++) assert_true(row[1 + a] == kd->link_pos[3 * m->root_body + a]);
        for (int a = 0; a < 4; a++) assert_true(row[4 + a] == quat[a]);
        for (int k = 0; k < m->nq; k++) assert_true(row[8 + k] == mo->q[(size_t)f * m->nq + k]); /* exact */
        json_t *jr = json_array_get(rows, (size_t)f);
        for (int c = 0; c < ncol; c++) assert_true(json_number_value(json_array_get(jr, (size_t)c)) == row[c]);
    }
    json_decref(j);
    free(row);
    free(csv);
    free(json);
    kg_data_free(kd);
    kg_motion_free(mo);
    kg_model_free(m);
    kg_diags_clear(&d);
}

static void test_units_and_scale(void **state) {
    (void)state;
    const char *clip = "HIERARCHY\nROOT Hips\n{\n OFFSET 0 100 0\n CHANNELS 6 Xposition Yposition Zposition Zrotation Xrotation Yrotation\n"
                       " JOINT Head\n {\n  OFFSET 0 70 0\n  CHANNELS 3 Zrotation Xrotation Yrotation\n"
                       "  End Site\n  {\n   OFFSET 0 10 0\n  }\n }\n JOINT Foot\n {\n  OFFSET 0 -90 0\n  CHANNELS 1 Xrotation\n"
                       "  End Site Toe\n  {\n   OFFSET 0 0 20\n  }\n }\n}\nMOTION\nFrames: 1\nFrame Time: 0.04\n"
                       "5 100 7 90 0 0 0 0 0 0\n";
    kg_diags d;
    kg_motion *mo;
    kg_model *m = load_text(clip, &mo, &d);
    assert_non_null(m);
    assert_int_equal(d.count, 0);
    /* End Sites: "<parent>_End", or the file's own name */
    assert_true(kg_model_link(m, "Head_End") >= 0);
    assert_true(kg_model_link(m, "Toe") >= 0);
    KG_ASSERT_NEAR(kg_body_size(m, NULL, NULL), 170, 1e-12); /* foot and toe at 10, head end at 180 */
    assert_string_equal(kg_guess_unit(170, NULL), "cm");
    /* rotations are radians in the motion; lengths the file's */
    KG_ASSERT_NEAR(mo->q[3], KG_PI / 2, 1e-15);
    KG_ASSERT_NEAR(mo->q[1], 100, 0);
    kg_motion_free(mo);
    kg_model_free(m);
    kg_diags_clear(&d);
    /* --scale 0.01: centimetres to metres; angles unchanged */
    kg_load_options o = {0};
    o.format = "bvh";
    o.scale = 0.01;
    kg_diags_init(&d);
    m = kg_load_clip_buffer("t.bvh", clip, strlen(clip), &o, &mo, &d);
    assert_non_null(m);
    KG_ASSERT_NEAR(kg_body_size(m, NULL, NULL), 1.7, 1e-12);
    KG_ASSERT_NEAR(mo->q[1], 1.0, 1e-15);
    KG_ASSERT_NEAR(mo->q[3], KG_PI / 2, 1e-15);
    kg_data *kd = kg_data_new(m);
    kg_motion_pose(mo, 0, kd);
    kg_fk(m, kd);
    /* Head: hips at (0.05, 1, 0.07) turned 90 deg about z, head 0.7 up the hips' y: -x */
    const double *p = kd->link_pos + 3 * kg_model_link(m, "Head");
    KG_ASSERT_NEAR(p[0], 0.05 - 0.7, 1e-15);
    KG_ASSERT_NEAR(p[1], 1.0, 1e-15);
    kg_data_free(kd);
    kg_motion_free(mo);
    kg_model_free(m);
    kg_diags_clear(&d);
}

/* ---- bad input ------------------------------------------------------------------ */

static void test_errors(void **state) {
    (void)state;
    const char *head = "HIERARCHY\nROOT a\n{\n OFFSET 0 0 0\n CHANNELS 3 Xrotation Yrotation Zrotation\n}\nMOTION\n"; /* 7 lines */
    struct {
        const char *tail, *code;
        int line, has_model;
    } cases[] = {
        {"Frames: 2\nFrame Time: 0.1\n1 2 3\n", "bvh.truncated", 10, 1},
        {"Frames: 1\nFrame Time: 0.1\n1 x 3\n", "bvh.bad_number", 10, 1},
        {"Frames: 1\nFrame Time: 0.1\n1 2\n", "bvh.value_count", 10, 1},
        {"Frames: 1\nFrame Time: 0.1\n1 2 3 4\n", "bvh.value_count", 10, 1},
        {"Frames: 1\nFrame Time: 0.1\n1 nan 3\n", "bvh.bad_number", 10, 1},
        {"Frames: -3\nFrame Time: 0.1\n", "bvh.bad_frames", 8, 0},
        {"Frames: 99999999999\nFrame Time: 0.1\n", "bvh.bad_frames", 8, 0},
        {"Frames: 1\nFrame Time: 0\n1 2 3\n", "bvh.bad_frame_time", 9, 0},
        {"Frames: 1\nFrame Time: -0.1\n1 2 3\n", "bvh.bad_frame_time", 9, 0},
        {"Frames: 1\n", "bvh.bad_frame_time", 8, 0},
        {"", "bvh.no_frames", 7, 0},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        char text[512];
        snprintf(text, sizeof text, "%s%s", head, cases[i].tail);
        kg_diags d;
        kg_motion *mo;
        kg_model *m = load_text(text, &mo, &d);
        const kg_diag *g = kg_test_find(&d, cases[i].code);
        if (!g || g->severity != KG_ERROR || g->line != cases[i].line) {
            kg_test_print_diags(&d);
            fail_msg("case %zu: expected %s at line %d", i, cases[i].code, cases[i].line);
        }
        assert_int_equal(m != NULL, cases[i].has_model);
        kg_motion_free(mo);
        kg_model_free(m);
        kg_diags_clear(&d);
    }
    struct {
        const char *text, *code;
        int line;
    } header[] = {
        {"", "bvh.no_hierarchy", 0},
        {"ROOT a\n", "bvh.no_hierarchy", 1},
        {"HIERARCHY\nROOT a\n{\n OFFSET 0 0 0\n CHANNELS 2 Xrotation Wrotation\n}\nMOTION\n", "bvh.bad_channels", 5},
        {"HIERARCHY\nROOT a\n{\n OFFSET 0 0 0\n CHANNELS 3 Xrotation Yrotation\n}\nMOTION\n", "bvh.bad_channels", 5},
        {"HIERARCHY\nROOT a\n{\n OFFSET 0 0\n}\nMOTION\n", "bvh.bad_number", 4},
        /* issue 26: a second CHANNELS line made a wild heap write when reading frames */
        {"HIERARCHY\nROOT a\n{\n OFFSET 0 0 0\n CHANNELS 1 Xrotation\n CHANNELS 3 Xrotation Yrotation Zrotation\n}\n"
         "MOTION\nFrames: 1\nFrame Time: 0.1\n1 2 3 4\n", "bvh.bad_channels", 6},
        {"HIERARCHY\nROOT a\n{\n OFFSET 0 0 0\n CHANNELS 0\n CHANNELS 0\n}\nMOTION\n", "bvh.bad_channels", 6},
        {"HIERARCHY\nROOT a\n{\n CHANNELS 0\n}\nMOTION\n", "bvh.no_offset", 2},
        {"HIERARCHY\nROOT a\n{\n OFFSET 0 0 0\nMOTION\n", "bvh.syntax", 5},
        {"HIERARCHY\nROOT a\n{\n OFFSET 0 0 0\n}\n}\n", "bvh.syntax", 6},
        {"HIERARCHY\nROOT a\n{\n OFFSET 0 0 0\n}\n", "bvh.no_motion", 5},
        {"HIERARCHY\nROOT a\n{\n OFFSET 0 0 0\n JIONT b\n", "bvh.syntax", 5},
    };
    for (size_t i = 0; i < sizeof header / sizeof *header; i++) {
        kg_diags d;
        kg_motion *mo;
        kg_model *m = load_text(header[i].text, &mo, &d);
        assert_null(m);
        const kg_diag *g = kg_test_find(&d, header[i].code);
        if (!g || g->line != header[i].line) {
            kg_test_print_diags(&d);
            fail_msg("header case %zu: expected %s at line %d", i, header[i].code, header[i].line);
        }
        kg_diags_clear(&d);
    }
    /* nesting has no limit of its own (issue 26: kinegraph wrote 3000-deep chains
     * it then refused past 256): 3000 levels read; unclosed they are an error */
    size_t cap = 1 << 18;
    char *deep = malloc(cap);
    size_t n = (size_t)snprintf(deep, cap, "HIERARCHY\nROOT r\n{\nOFFSET 0 0 0\n");
    for (int i = 0; i < 3000; i++) n += (size_t)snprintf(deep + n, cap - n, "JOINT j%d\n{\nOFFSET 0 0 1\n", i);
    kg_diags d;
    kg_motion *mo;
    assert_null(load_text(deep, &mo, &d));
    assert_non_null(kg_test_find(&d, "bvh.no_motion"));
    kg_diags_clear(&d);
    n += (size_t)snprintf(deep + n, cap - n, "End Site\n{\nOFFSET 0 0 1\n}\n");
    for (int i = 0; i <= 3000; i++) n += (size_t)snprintf(deep + n, cap - n, "}\n");
    snprintf(deep + n, cap - n, "MOTION\nFrames: 0\nFrame Time: 1\n");
    kg_model *m = load_text(deep, &mo, &d);
    assert_non_null(m);
    assert_int_equal(kg_diags_count(&d, KG_ERROR), 0);
    assert_int_equal(m->nlink, 3003);
    kg_model_free(m);
    kg_motion_free(mo);
    kg_diags_clear(&d);
    n = (size_t)snprintf(deep, cap, "HIERARCHY\nROOT ");
    for (int i = 0; i < 600; i++) deep[n++] = 'n';
    snprintf(deep + n, cap - n, "\n{\nOFFSET 0 0 0\n}\nMOTION\nFrames: 0\nFrame Time: 1\n");
    assert_null(load_text(deep, &mo, &d));
    assert_int_equal(kg_test_find(&d, "bvh.name_too_long")->line, 2);
    kg_diags_clear(&d);
    free(deep);
}

/* What a BVH writer makes of names BVH cannot hold (issue 26): white space
 * (assimp splits names there), a leading brace (assimp's token), a final '{'
 * (kinegraph's reader drops it), a name past KG_LIMIT_BVH_NAME bytes (kinegraph
 * refused its own file), a name already taken by the cleaned one, and a named
 * End Site (assimp refused "End Site Toe"). Each is written as one word that
 * reads back (by name, below), and said in the ledger. */
static char *write_bvh(const kg_model *m, const kg_motion *mo, kg_ledger *l, size_t *len) {
    char *buf = NULL;
    FILE *f = open_memstream(&buf, len);
    kg_diags d;
    kg_diags_init(&d);
    assert_int_equal(kg_export_bvh(m, mo, NULL, f, l, &d), 0);
    fclose(f);
    kg_diags_clear(&d);
    return buf;
}

static void test_writer_names(void **state) {
    (void)state;
    char *longname = malloc(701);
    memset(longname, 'L', 700);
    memcpy(longname + 501, "\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9", 10); /* the cut falls inside an 'é' */
    longname[700] = 0;
    const char *names[] = {"with space", "with_space", "{lead", "brace{", "tab\there", longname};
    size_t n = sizeof names / sizeof *names;
    char *text = malloc(8000), *p = text;
    p += sprintf(p, "<robot name='r'><link name='base'/>");
    for (size_t i = 0; i < n; i++)
        p += sprintf(p, "<link name='%s'/><joint name='j%zu' type='continuous'><parent link='%s'/><child link='%s'/>"
                        "<origin xyz='0 0 0.1'/></joint>", !strcmp(names[i], "tab\there") ? "tab&#9;here" : names[i], i,
                     i ? (!strcmp(names[i - 1], "tab\there") ? "tab&#9;here" : names[i - 1]) : "base",
                     !strcmp(names[i], "tab\there") ? "tab&#9;here" : names[i]);
    sprintf(p, "</robot>");
    kg_diags d;
    kg_diags_init(&d);
    kg_model *m = kg_test_load_string("names.urdf", text, &d);
    assert_non_null(m);
    assert_int_equal(m->nlink, 7);
    kg_ledger l;
    kg_ledger_init(&l);
    size_t len;
    char *bvh = write_bvh(m, NULL, &l, &len);
    kg_motion *mo;
    kg_diags d2;
    kg_model *b = load_text(bvh, &mo, &d2);
    assert_non_null(b);
    assert_int_equal(kg_diags_count(&d2, KG_ERROR), 0);
    assert_int_equal(kg_diags_count(&d2, KG_WARNING), 0); /* no duplicate renamed by the reader */
    /* a space and a tab become '_', the clash gets "~2", braces at the ends '_' */
    assert_true(kg_model_link(b, "with_space~2") >= 0);
    assert_true(kg_model_link(b, "with_space") >= 0);
    assert_true(kg_model_link(b, "_lead") >= 0);
    assert_true(kg_model_link(b, "brace_") >= 0);
    assert_true(kg_model_link(b, "tab_here") >= 0);
    /* 700 bytes: cut to 504 (KG_LIMIT_BVH_NAME less room for a suffix), back to 503 so
     * as not to split the 'é' at bytes 503-504 */
    char cut[600];
    memcpy(cut, longname, 503);
    cut[503] = 0;
    assert_true(kg_model_link(b, cut) >= 0);
    /* each renamed link in the ledger, with its old and new names */
    int said = 0;
    for (size_t i = 0; i < l.count; i++)
        if (l.items[i].action == KG_APPROXIMATED && strstr(l.items[i].detail, "BVH names are one word")) said++;
    assert_int_equal(said, 5);
    free(bvh);
    kg_ledger_clear(&l);
    kg_model_free(b);
    kg_motion_free(mo);
    kg_diags_clear(&d2);
    kg_model_free(m);
    kg_diags_clear(&d);
    free(text);
    free(longname);

    /* a named End Site is written unnamed and read back as "<parent>_End" */
    const char *clip = "HIERARCHY\nROOT Hips\n{\n OFFSET 0 100 0\n CHANNELS 6 Xposition Yposition Zposition Zrotation "
                       "Xrotation Yrotation\n JOINT Foot\n {\n  OFFSET 0 -90 0\n  CHANNELS 1 Xrotation\n"
                       "  End Site Toe\n  {\n   OFFSET 0 0 20\n  }\n }\n}\nMOTION\nFrames: 1\nFrame Time: 0.04\n"
                       "5 100 7 90 0 0 0\n";
    m = load_text(clip, &mo, &d);
    assert_non_null(m);
    kg_ledger_init(&l);
    bvh = write_bvh(m, mo, &l, &len);
    assert_null(strstr(bvh, "End Site Toe"));
    assert_non_null(strstr(bvh, "End Site\n"));
    assert_int_equal(l.count, 1);
    assert_string_equal(l.items[0].name, "Toe");
    kg_motion *mo2;
    b = load_text(bvh, &mo2, &d2);
    assert_non_null(b);
    assert_true(kg_model_link(b, "Foot_End") >= 0);
    assert_int_equal(b->nlink, m->nlink);
    free(bvh);
    kg_ledger_clear(&l);
    kg_model_free(b);
    kg_motion_free(mo2);
    kg_diags_clear(&d2);
    kg_model_free(m);
    kg_motion_free(mo);
    kg_diags_clear(&d);
}

/* U+FFFE and U+FFFF are well-formed UTF-8 but no XML characters: a BVH name
 * holding them made every XML output unreadable. */
static void test_names_not_xml_characters(void **state) {
    (void)state;
    const char *clip = "HIERARCHY\nROOT Hips\n{\n OFFSET 0 100 0\n CHANNELS 6 Xposition Yposition Zposition Zrotation "
                       "Xrotation Yrotation\n JOINT a\xef\xbf\xbe" "b\xef\xbf\xbf\xc3\xa9\n {\n  OFFSET 0 -90 0\n"
                       "  CHANNELS 1 Xrotation\n  End Site\n  {\n   OFFSET 0 0 20\n  }\n }\n}\nMOTION\nFrames: 1\n"
                       "Frame Time: 0.04\n5 100 7 90 0 0 0\n";
    kg_diags d;
    kg_motion *mo;
    kg_model *m = load_text(clip, &mo, &d);
    assert_non_null(m);
    assert_true(kg_model_link(m, "a_b_\xc3\xa9") >= 0); /* the é (valid, an XML character) stays */
    assert_non_null(kg_test_find(&d, "bvh.name_encoding"));
    kg_model_free(m);
    kg_motion_free(mo);
    kg_diags_clear(&d);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_corpus_dialects),  cmocka_unit_test(test_mixed_rotation_orders),
        cmocka_unit_test(test_fk_against_assimp), cmocka_unit_test(test_position_channels),
        cmocka_unit_test(test_round_trip_all),   cmocka_unit_test(test_trajectories),
        cmocka_unit_test(test_units_and_scale),  cmocka_unit_test(test_errors),
        cmocka_unit_test(test_writer_names),     cmocka_unit_test(test_names_not_xml_characters),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
