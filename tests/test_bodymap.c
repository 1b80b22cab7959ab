/* The body map by structure: every corpus clip and humanoid robot mapped in
 * full and in order, left parts on the left; the same parts when every name is
 * replaced by an anonymous one (names only break ties, and the corpus leaves
 * none); a Poser-named skeleton and a robot without hands; known answers on a
 * few robots; non-humanoids refused. */
#define _XOPEN_SOURCE 700
#include "testutil.h"

#include <ctype.h>
#include <glob.h>
#include <stdlib.h>
#include <string.h>

#include "kinegraph/bodymap.h"
#include "core/fk.h"
#include "io/load.h"

#define SAMPLE KG_SOURCE_DIR "/samples/humanoid.urdf"
#define WALK KG_SOURCE_DIR "/samples/walk.bvh"
#define POSER KG_SOURCE_DIR "/tests/data/bvh/poser_walk.bvh"
#define ROLL_BONES KG_SOURCE_DIR "/tests/data/bvh/roll_bones.bvh"
#define NO_HANDS KG_SOURCE_DIR "/tests/data/humanoid_no_hands.urdf"
#define KNEE_BY_POSE "the bend nearest the middle of hip and ankle; side from the pose"

/* The corpus's humanoid robots, under the corpus's urdf/ */
static const char *const robots[] = {
    "unitree_g1/g1_description/g1_29dof_rev_1_0.urdf",
    "jvrc1/jvrc_description/urdf/jvrc1.urdf",
    "talos/example-robot-data/robots/talos_data/robots/talos_reduced.urdf",
    "talos/example-robot-data/robots/talos_data/robots/talos_full_v2.urdf",
    "nao/nao_robot/nao_description/urdf/naoV50_generated_urdf/nao.urdf",
    "romeo/example-robot-data/robots/romeo_description/urdf/romeo.urdf",
    "drchubo/drchubo.urdf",
    "jaxon/jaxon_description/urdf/jaxon_jvrc.urdf",
    "fourier_gr1t2/GRX/GR1/gr1t2/basic_urdf/gr1t2.urdf",
    "fourier_gr3/GRX/GR3/gr3v2_1_1/basic_urdf/gr3v2_1_1.urdf",
    "simple_humanoid/example-robot-data/robots/simple_humanoid_description/urdf/simple_humanoid.urdf",
    "atlas_v3/atlas_v3.urdf",
};
#define NROBOT (int)(sizeof robots / sizeof *robots)

static const int side_parts[2][7] = {{KG_PART_HIP_L, KG_PART_KNEE_L, KG_PART_ANKLE_L, KG_PART_FOOT_L,
                                      KG_PART_SHOULDER_L, KG_PART_ELBOW_L, KG_PART_WRIST_L},
                                     {KG_PART_HIP_R, KG_PART_KNEE_R, KG_PART_ANKLE_R, KG_PART_FOOT_R,
                                      KG_PART_SHOULDER_R, KG_PART_ELBOW_R, KG_PART_WRIST_R}};

/* ---- helpers ------------------------------------------------------------------------- */

static kg_model *load_clip(const char *path, kg_motion **mo) {
    kg_diags d;
    kg_diags_init(&d);
    kg_model *m = kg_load_clip(path, NULL, mo, &d);
    kg_diags_clear(&d);
    if (!m || !*mo || (*mo)->nframes < 1) fail_msg("%s does not load as a clip", path);
    return m;
}

/* Maps at q (NULL: the rest pose); fails on a missing part (the head too when
 * want_head). */
static void map_at(const kg_model *m, const double *q, kg_body_map *map, int want_head) {
    kg_diags d;
    kg_diags_init(&d);
    memset(map, 0, sizeof *map);
    for (int k = 0; k < KG_NPART; k++) map->link[k] = -1;
    int missing = q ? kg_body_map_find_at(m, q, map, &d) : kg_body_map_find(m, map, &d);
    if (missing != 0 || (want_head && map->link[KG_PART_HEAD] < 0)) {
        kg_test_print_diags(&d);
        fail_msg("%s: %d parts missing", m->name, missing);
    }
    kg_diags_clear(&d);
}

static int is_below(const kg_model *m, int i, int anc) {
    for (; i >= 0; i = m->link[i].parent)
        if (i == anc) return 1;
    return 0;
}

/* Each limb's parts in order down its chain; the pelvis above the hips, the
 * chest above the shoulders; a point, where there is one, on the last link. */
static void check_order(const kg_model *m, const kg_body_map *map) {
    const int *L = map->link;
    for (int s = 0; s < 2; s++) {
        const int *P = side_parts[s];
        for (int k = 0; k < 6; k++) {
            if (k == 3) continue; /* the foot's end, then the shoulder: another limb */
            if (!is_below(m, L[P[k + 1]], L[P[k]]))
                fail_msg("%s: %s is not above %s", m->name, kg_part_name(P[k]), kg_part_name(P[k + 1]));
        }
        if (!is_below(m, L[P[0]], L[KG_PART_PELVIS]) || !is_below(m, L[P[4]], L[KG_PART_CHEST]))
            fail_msg("%s: the %s side's limbs do not hang from pelvis and chest", m->name, s ? "right" : "left");
    }
    for (int k = 0; k < KG_NPART; k++)
        if (L[k] >= 0 && (!map->how[k] || !map->why[k])) fail_msg("%s: %s has no how or why", m->name, kg_part_name(k));
}

/* 'L' or 'R' when a name says its side (left, l_, _L_, lShin, LHip, lfemur,
 * UpperLeg_L, Body_LSP), else 0. */
static int says_side(const char *name) {
    char low[256];
    size_t n = 0;
    for (const char *p = strrchr(name, ':') ? strrchr(name, ':') + 1 : name; *p && n + 1 < sizeof low; p++)
        low[n++] = (char)tolower((unsigned char)*p);
    low[n] = 0;
    if (strstr(low, "left")) return 'L';
    if (strstr(low, "right")) return 'R';
    const char *p = strrchr(name, ':') ? strrchr(name, ':') + 1 : name;
    for (const char *s = p; *s; s++) {
        int start = s == p || s[-1] == '_';
        char c = (char)toupper((unsigned char)*s);
        if ((c == 'L' || c == 'R') && start && (s[1] == '_' || s[1] == 0 || isupper((unsigned char)s[1])))
            return c;
    }
    int lower = 1;
    for (const char *s = p; *s; s++) lower &= !isupper((unsigned char)*s);
    if (lower && (p[0] == 'l' || p[0] == 'r') && isalpha((unsigned char)p[1])) return toupper(p[0]);
    return 0;
}

/* The left parts' names never say right (nor the right ones left), and the hip
 * and shoulder say their side. */
static void check_names(const kg_model *m, const kg_body_map *map) {
    for (int s = 0; s < 2; s++)
        for (int k = 0; k < 7; k++) {
            int part = side_parts[s][k], l = map->link[part], said = says_side(m->link[l].name);
            if (said == (s ? 'L' : 'R') || ((k == 0 || k == 4) && said != (s ? 'R' : 'L')))
                fail_msg("%s: %s is '%s'", m->name, kg_part_name(part), m->link[l].name);
        }
}

/* Robots follow REP 103 (x forward, y left, z up in the root's frame): the
 * left hip and shoulder lie at +y from the right ones at the rest pose. */
static void check_robot_left(const kg_model *m, const kg_body_map *map) {
    kg_data *d = kg_data_new(m);
    kg_fk(m, d);
    const int pairs[2][2] = {{KG_PART_HIP_L, KG_PART_HIP_R}, {KG_PART_SHOULDER_L, KG_PART_SHOULDER_R}};
    for (int k = 0; k < 2; k++) {
        double dy = d->link_pos[3 * map->link[pairs[k][0]] + 1] - d->link_pos[3 * map->link[pairs[k][1]] + 1];
        if (!(dy > 0))
            fail_msg("%s: %s is not left of %s", m->name, kg_part_name(pairs[k][0]), kg_part_name(pairs[k][1]));
    }
    kg_data_free(d);
}

/* Replaces every link and joint name by j0, j1, ... (links first); returns the
 * names to free. */
static char **anonymize(kg_model *m) {
    int n = m->nlink + m->njoint;
    char **names = malloc(n * sizeof *names);
    for (int i = 0; i < n; i++) {
        names[i] = malloc(16);
        snprintf(names[i], 16, "j%d", i);
        if (i < m->nlink) m->link[i].name = names[i];
        else m->joint[i - m->nlink].name = names[i];
    }
    return names;
}

static void free_names(char **names, const kg_model *m) {
    for (int i = 0; i < m->nlink + m->njoint; i++) free(names[i]);
    free(names);
}

/* Named and anonymous, the same links and points; and the named map needed no
 * name (every part "structure"). */
static void check_anonymous(kg_model *m, const double *q, const kg_body_map *named) {
    for (int k = 0; k < KG_NPART; k++)
        if (named->link[k] >= 0 && strcmp(named->how[k], "structure"))
            fail_msg("%s: %s found by %s: %s", m->name, kg_part_name(k), named->how[k], named->why[k]);
    char **names = anonymize(m);
    kg_body_map anon;
    map_at(m, q, &anon, named->link[KG_PART_HEAD] >= 0);
    for (int k = 0; k < KG_NPART; k++)
        if (anon.link[k] != named->link[k] || memcmp(anon.point[k], named->point[k], sizeof anon.point[k]))
            fail_msg("%s: anonymous, %s is link %d, named %d", m->source, kg_part_name(k), anon.link[k],
                     named->link[k]);
    free_names(names, m);
}

static int corpus_clips(const char *data, glob_t *g) {
    char pattern[4096];
    const char *dirs[] = {"/bvh/*/*.bvh", "/bvh/*/*/*/*/*/*.bvh", "/bvh/*/*/*/*/*.bvh"};
    int flags = 0;
    for (size_t k = 0; k < 3; k++) {
        snprintf(pattern, sizeof pattern, "%s%s", data, dirs[k]);
        if (glob(pattern, flags, NULL, g) == 0) flags = GLOB_APPEND;
    }
    return flags ? (int)g->gl_pathc : 0;
}

/* ---- the tests ------------------------------------------------------------------------ */

/* One clip: at its first frame and at rest, all parts in order and left on the
 * left; at the first frame, the same anonymous. */
static void check_clip(const char *path) {
    kg_motion *mo = NULL;
    kg_model *m = load_clip(path, &mo);
    kg_body_map first, rest;
    map_at(m, mo->q, &first, 1);
    check_order(m, &first);
    check_names(m, &first);
    map_at(m, NULL, &rest, 1);
    check_order(m, &rest);
    check_names(m, &rest);
    check_anonymous(m, mo->q, &first);
    kg_motion_free(mo);
    kg_model_free(m);
}

static void test_clips(void **state) {
    (void)state;
    check_clip(WALK);
    check_clip(POSER);
    KG_REQUIRE_DATA(data);
    glob_t g;
    int n = corpus_clips(data, &g);
    for (int i = 0; i < n; i++) check_clip(g.gl_pathv[i]);
    if (n) globfree(&g);
    printf("  %d corpus clips\n", n);
    assert_true(n >= 26);
}

static void check_robot(const char *path) {
    kg_model *m = kg_test_load(path);
    kg_body_map map;
    int headless = strstr(path, "simple_humanoid") != NULL; /* it has none */
    map_at(m, NULL, &map, !headless);
    check_order(m, &map);
    check_names(m, &map);
    check_robot_left(m, &map);
    check_anonymous(m, m->q_default, &map);
    kg_model_free(m);
}

static void test_robots(void **state) {
    (void)state;
    check_robot(SAMPLE);
    check_robot(NO_HANDS);
    KG_REQUIRE_DATA(data);
    char path[4096];
    for (int i = 0; i < NROBOT; i++) {
        snprintf(path, sizeof path, "%s/urdf/%s", data, robots[i]);
        check_robot(path);
    }
}

static void expect(const kg_model *m, const kg_body_map *map, int part, const char *name) {
    int l = map->link[part];
    if (l < 0 || strcmp(m->link[l].name, name))
        fail_msg("%s: %s is %s, expected %s", m->name, kg_part_name(part), l >= 0 ? m->link[l].name : "missing", name);
}

static void expect_parts(const kg_model *m, const kg_body_map *map, const char *const names[KG_NPART]) {
    for (int k = 0; k < KG_NPART; k++)
        if (names[k]) expect(m, map, k, names[k]);
}

/* Poser's names (lShldr, lShin) that no word list knew: by structure at rest,
 * at every frame, and anonymous. */
static void test_poser(void **state) {
    (void)state;
    static const char *const want[KG_NPART] = {
        "hip", "chest", "head", "lThigh", "lShin", "lFoot", "lFoot_End", "lShldr", "lForeArm", "lHand",
        "rThigh", "rShin", "rFoot", "rFoot_End", "rShldr", "rForeArm", "rHand"};
    kg_motion *mo = NULL;
    kg_model *m = load_clip(POSER, &mo);
    kg_body_map map;
    map_at(m, NULL, &map, 1);
    expect_parts(m, &map, want);
    assert_string_equal(map.family, "poser");
    for (int f = 0; f < mo->nframes; f++) {
        map_at(m, mo->q + (size_t)f * m->nq, &map, 1);
        expect_parts(m, &map, want);
        assert_string_equal(map.why[KG_PART_KNEE_L], KNEE_BY_POSE);
    }
    map_at(m, mo->q, &map, 1);
    check_anonymous(m, mo->q, &map);
    kg_motion_free(mo);
    kg_model_free(m);
}

/* A rig with a roll bone halfway along each thigh, shank, upper arm and
 * forearm (the sample walk, each such bone in line over the clip: a rig's
 * ThighTwist, ForearmRoll): mapped over the clip, its parts are the sample's;
 * at one frame, the roll bones pass for knees, ankles, elbows and wrists. */
static void test_roll_bones(void **state) {
    (void)state;
    static const char *const want[KG_NPART] = {
        "Hips", "Chest", "Head", "LeftUpLeg", "LeftLeg", "LeftFoot", "LeftToeBase", "LeftArm", "LeftForeArm",
        "LeftHand", "RightUpLeg", "RightLeg", "RightFoot", "RightToeBase", "RightArm", "RightForeArm", "RightHand"};
    kg_motion *mo = NULL;
    kg_model *m = load_clip(ROLL_BONES, &mo);
    kg_body_map map;
    kg_diags d;
    kg_diags_init(&d);
    for (int k = 0; k < KG_NPART; k++) map.link[k] = -1;
    assert_int_equal(kg_body_map_find_clip(m, mo, &map, &d), 0);
    expect_parts(m, &map, want);
    for (int k = 0; k < KG_NPART; k++) map.link[k] = -1;
    kg_body_map_find_at(m, mo->q, &map, &d);
    const char *one_frame = map.link[KG_PART_ANKLE_L] >= 0 ? m->link[map.link[KG_PART_ANKLE_L]].name : "none";
    printf("  roll bones: the left ankle over the clip LeftFoot, at the first frame alone %s\n", one_frame);
    assert_string_not_equal(one_frame, "LeftFoot");
    kg_diags_clear(&d);
    kg_motion_free(mo);
    kg_model_free(m);
}

/* The same rig with the left foot 3 cm longer (its toe's end): the roll bone
 * halfway down the left shank is then nearer the middle of the whole leg
 * than the knee, as in a rig whose limbs are cut into segment bones of equal
 * length (thigh, thigh.001, shin, shin.001) and whose legs differ by a little.
 * That leg's hip and knee were its knee and shank roll bone; a roll bone
 * stays in line over the clip, the knee bends: it is the knee. */
static void test_segment_bones_uneven(void **state) {
    (void)state;
    static const char *const want[KG_NPART] = {
        "Hips", "Chest", "Head", "LeftUpLeg", "LeftLeg", "LeftFoot", "LeftToeBase", "LeftArm", "LeftForeArm",
        "LeftHand", "RightUpLeg", "RightLeg", "RightFoot", "RightToeBase", "RightArm", "RightForeArm", "RightHand"};
    char *text = kg_test_replace_after(kg_test_slurp(ROLL_BONES), "JOINT LeftToeBase", "OFFSET 0 0 6", "OFFSET 0 0 9");
    kg_motion *mo = NULL;
    kg_diags d;
    kg_diags_init(&d);
    kg_model *m = kg_load_clip_buffer("uneven_roll_bones.bvh", text, strlen(text), NULL, &mo, &d);
    assert_non_null(m);
    kg_body_map map;
    for (int k = 0; k < KG_NPART; k++) map.link[k] = -1;
    assert_int_equal(kg_body_map_find_clip(m, mo, &map, &d), 0);
    expect_parts(m, &map, want);
    kg_diags_clear(&d);
    kg_motion_free(mo);
    kg_model_free(m);
    free(text);
}

/* Arms that end at the elbow's link: the wrist is the far end of the forearm's
 * cylinder, 0.22 m down its axis. */
static void test_no_hands(void **state) {
    (void)state;
    kg_model *m = kg_test_load(NO_HANDS);
    kg_body_map map;
    map_at(m, NULL, &map, 1);
    expect(m, &map, KG_PART_ELBOW_L, "l_forearm");
    expect(m, &map, KG_PART_WRIST_L, "l_forearm");
    expect(m, &map, KG_PART_WRIST_R, "r_forearm");
    expect(m, &map, KG_PART_SHOULDER_R, "r_shoulder_link");
    for (int s = 0; s < 2; s++) {
        const double *p = map.point[s ? KG_PART_WRIST_R : KG_PART_WRIST_L];
        KG_ASSERT_NEAR(p[0], 0, 1e-12);
        KG_ASSERT_NEAR(p[1], 0, 1e-12);
        KG_ASSERT_NEAR(p[2], -0.22, 1e-12);
    }
    for (int k = 0; k < KG_NPART; k++)
        if (k != KG_PART_WRIST_L && k != KG_PART_WRIST_R) assert_true(map.point[k][2] == 0);
    kg_model_free(m);
}


/* A forearm with its hand longer than the upper arm (a servo robot's hand
 * link, fixed at the elbow and drawn on past the upper arm's length): the
 * arm without hands with each forearm's cylinder reaching 0.32 m below the
 * elbow, 1.28 times its 0.25 m upper arm. The wrist is its far end, the
 * elbow stays the elbow (capped at the upper arm's length, the forearm was
 * cut short and the elbow mapped one joint up). */
static void test_long_forearm(void **state) {
    (void)state;
    char *text = kg_test_slurp(NO_HANDS);
    for (int side = 0; side < 2; side++) {
        const char *at = side ? "<link name=\"r_forearm\">" : "<link name=\"l_forearm\">";
        for (int k = 0; k < 3; k++) /* inertial, visual, collision */
            text = kg_test_replace_after(text, at, "<origin xyz=\"0 0 -0.11\"", "<origin xyz=\"0 0 -0.16\"");
        for (int k = 0; k < 2; k++)
            text = kg_test_replace_after(text, at, "length=\"0.22\"", "length=\"0.32\"");
    }
    kg_diags d;
    kg_diags_init(&d);
    kg_model *m = kg_test_load_string("long_forearm.urdf", text, &d);
    assert_non_null(m);
    kg_body_map map;
    map_at(m, NULL, &map, 1);
    expect(m, &map, KG_PART_ELBOW_L, "l_forearm");
    expect(m, &map, KG_PART_ELBOW_R, "r_forearm");
    for (int s = 0; s < 2; s++) KG_ASSERT_NEAR(map.point[s ? KG_PART_WRIST_R : KG_PART_WRIST_L][2], -0.32, 1e-12);
    kg_model_free(m);
    kg_diags_clear(&d);
    free(text);
}

static kg_model *corpus_robot(const char *data, const char *rel) {
    char path[4096];
    snprintf(path, sizeof path, "%s/urdf/%s", data, rel);
    return kg_test_load(path);
}

/* What a person would call each part, on robots whose joints sit apart. */
static void test_known_answers(void **state) {
    (void)state;
    static const char *const sample[KG_NPART] = {
        "pelvis", "torso", "head", "l_hip_roll_link", "l_shank", "l_ankle_link", "l_sole", "l_shoulder_link",
        "l_forearm", "l_hand", "r_hip_roll_link", "r_shank", "r_ankle_link", "r_sole", "r_shoulder_link",
        "r_forearm", "r_hand"};
    static const char *const g1[KG_NPART] = {
        "pelvis", "torso_link", "head_link", "left_hip_roll_link", "left_knee_link", "left_ankle_pitch_link",
        "left_ankle_roll_link", "left_shoulder_roll_link", "left_elbow_link", "left_wrist_pitch_link",
        "right_hip_roll_link", "right_knee_link", "right_ankle_pitch_link", "right_ankle_roll_link",
        "right_shoulder_roll_link", "right_elbow_link", "right_wrist_pitch_link"};
    static const struct { const char *path, *parts[KG_NPART]; } corpus[] = {
        {"unitree_g1/g1_description/g1_29dof_rev_1_0.urdf", {NULL}},
        {"talos/example-robot-data/robots/talos_data/robots/talos_reduced.urdf",
         {"base_link", "torso_2_link", "head_2_link", "leg_left_2_link", "leg_left_4_link", "leg_left_5_link",
          "left_sole_link", "arm_left_2_link", "arm_left_4_link", "arm_left_6_link"}},
        {"nao/nao_robot/nao_description/urdf/naoV50_generated_urdf/nao.urdf",
         {"torso", "torso", "Head", "LHip", "LTibia", "LAnklePitch", "l_sole", "LShoulder", "LForeArm", "l_wrist"}},
        {"jvrc1/jvrc_description/urdf/jvrc1.urdf",
         {"PELVIS_S", "WAIST_R_S", "NECK_P_S", "L_HIP_P_S", "L_KNEE_S", "L_ANKLE_R_S", "L_ANKLE_P_S", "L_SHOULDER_P_S",
          "L_ELBOW_P_S", "L_WRIST_R_S"}},
        {"drchubo/drchubo.urdf",
         {"Body_TSY", "Body_Torso", "Body_NK1", "Body_LHR", "Body_LKP", "Body_LAP", "Body_LAR", "Body_LSR", "Body_LEP",
          "Body_LWP"}},
        {"atlas_v3/atlas_v3.urdf",
         {"pelvis", "utorso", NULL, "l_uleg", "l_lleg", "l_talus", "l_foot", "l_scap", "l_larm", "l_hand"}},
    };
    kg_model *m = kg_test_load(SAMPLE);
    kg_body_map map;
    map_at(m, NULL, &map, 1);
    expect_parts(m, &map, sample);
    kg_model_free(m);
    KG_REQUIRE_DATA(data);
    for (size_t i = 0; i < sizeof corpus / sizeof *corpus; i++) {
        m = corpus_robot(data, corpus[i].path);
        map_at(m, NULL, &map, 1);
        expect_parts(m, &map, i == 0 ? g1 : corpus[i].parts);
        assert_string_equal(map.family, "robot");
        kg_model_free(m);
    }
}

/* The model of a changed sample humanoid's text (freed), its diagnostics dropped. */
static kg_model *loaded(char *text) {
    kg_diags d;
    kg_diags_init(&d);
    kg_model *m = kg_test_load_string("humanoid.urdf", text, &d);
    assert_non_null(m);
    kg_diags_clear(&d);
    free(text);
    return m;
}

/* The sample humanoid with `extra` inserted before each side's sole frame
 * (its joint and link come after it in the file), printed with the side's
 * letter for each %c. */
static kg_model *sample_with(const char *extra) {
    char *text = kg_test_slurp(SAMPLE);
    assert_non_null(text);
    for (int side = 0; side < 2; side++) {
        char add[2048], c = side ? 'r' : 'l';
        snprintf(add, sizeof add, extra, c, c, c, c, c, c, c, c);
        char *at = strstr(text, side ? "<joint name=\"r_sole_fixed\"" : "<joint name=\"l_sole_fixed\"");
        assert_non_null(at);
        size_t head = (size_t)(at - text), n = strlen(text) + strlen(add) + 1;
        char *out = malloc(n);
        assert_non_null(out);
        memcpy(out, text, head);
        snprintf(out + head, n - head, "%s%s", add, at);
        free(text);
        text = out;
    }
    return loaded(text);
}

/* The foot is the deepest link below the ankle; of equally deep ones the
 * nearest the ankle (the sole's frame under it, not a sensor's frame at the
 * toes, first in the file), and where the deepest are as near - a linkage's
 * anchors either side of the foot - the link that holds them. */
static void test_foot_frames(void **state) {
    (void)state;
    static const char *const sensor =
        "<link name='%cfsr_front'/><joint name='%cfsr_front_fixed' type='fixed'><parent link='%c_foot'/>"
        "<child link='%cfsr_front'/><origin xyz='0.12 0.03 -0.05'/></joint>";
    static const char *const anchors = /* on the sole's frame: then the deepest, mirror images */
        "<link name='%c_anchor_a'/><joint name='%c_anchor_a_fixed' type='fixed'><parent link='%c_sole'/>"
        "<child link='%c_anchor_a'/><origin xyz='0.02 0.014 0.01'/></joint>"
        "<link name='%c_anchor_b'/><joint name='%c_anchor_b_fixed' type='fixed'><parent link='%c_sole'/>"
        "<child link='%c_anchor_b'/><origin xyz='0.02 -0.014 0.01'/></joint>";
    const char *const *cases[2] = {&sensor, &anchors};
    for (int k = 0; k < 2; k++) {
        kg_model *m = sample_with(*cases[k]);
        kg_body_map map;
        map_at(m, NULL, &map, 1);
        expect(m, &map, KG_PART_FOOT_L, "l_sole");
        expect(m, &map, KG_PART_FOOT_R, "r_sole");
        kg_model_free(m);
    }
}

/* A massless, shapeless frame fixed partway down a robot's forearm (a
 * kinematic convention's) is no finger: the sample humanoid with a forearm
 * roll link 5 cm below each elbow, the hand fixed 17 cm below that, and a
 * frame fixed to the roll link 10 cm down: the wrist is still the hand's
 * link (the frame made the roll link a hand). */
static void test_forearm_frame(void **state) {
    (void)state;
    char *text = kg_test_slurp(SAMPLE);
    assert_non_null(text);
    text = kg_test_replace_sides(text, "<joint name=\"%c_wrist_fixed\"", "<parent link=\"%c_forearm\"/>",
                                 "<parent link=\"%c_forearm_roll\"/>");
    text = kg_test_replace_sides(text, "<joint name=\"%c_wrist_fixed\"", "xyz=\"0 0 -0.22\"", "xyz=\"0 0 -0.17\"");
    text = kg_test_replace_sides(text, "<robot", "</robot>",
                                 "<link name='%c_forearm_roll'><inertial><mass value='0.5'/>"
                                 "<inertia ixx='1e-3' iyy='1e-3' izz='1e-3' ixy='0' ixz='0' iyz='0'/></inertial></link>"
                                 "<joint name='%c_forearm_roll_joint' type='revolute'><parent link='%c_forearm'/>"
                                 "<child link='%c_forearm_roll'/><origin xyz='0 0 -0.05'/><axis xyz='0 0 1'/>"
                                 "<limit lower='-1' upper='1' effort='10' velocity='5'/></joint>"
                                 "<link name='%c_forearm_frame'/><joint name='%c_forearm_frame_fixed' type='fixed'>"
                                 "<parent link='%c_forearm_roll'/><child link='%c_forearm_frame'/>"
                                 "<origin xyz='0 0 -0.1'/></joint></robot>");
    kg_model *m = loaded(text);
    kg_body_map map;
    map_at(m, NULL, &map, 1);
    expect(m, &map, KG_PART_WRIST_L, "l_hand");
    expect(m, &map, KG_PART_WRIST_R, "r_hand");
    kg_model_free(m);
}

/* A head lies above the shoulders: the sample humanoid with its neck moved
 * down the torso, below them (as a chest's IMU is on a humanoid without a
 * head), has none (a warning, not an error: the head is optional). */
static void test_head_above_shoulders(void **state) {
    (void)state;
    char *text = kg_test_replace_after(kg_test_slurp(SAMPLE), "<joint name=\"neck_yaw\"", "xyz=\"0 0 0.38\"",
                                       "xyz=\"0 0 0.05\"");
    kg_model *m = loaded(text);
    kg_diags d;
    kg_diags_init(&d);
    kg_body_map map;
    for (int k = 0; k < KG_NPART; k++) map.link[k] = -1;
    assert_int_equal(kg_body_map_find(m, &map, &d), 0);
    assert_int_equal(map.link[KG_PART_HEAD], -1);
    assert_int_equal(kg_test_count(&d, "retarget.part_missing"), 1);
    kg_model_free(m);
    kg_diags_clear(&d);
}

/* An upper body (a torso with two arms of a shoulder, an elbow and a hand,
 * no legs) is refused, naming the one pair of mirror limbs it has. */
static void test_upper_body_refused(void **state) {
    (void)state;
    char urdf[4096];
    int n = snprintf(urdf, sizeof urdf,
                     "<robot name='torso'><link name='base'><inertial><mass value='5'/>"
                     "<inertia ixx='0.1' iyy='0.1' izz='0.1' ixy='0' ixz='0' iyz='0'/></inertial></link>");
    for (int side = 0; side < 2; side++) {
        const char *s = side ? "r" : "l";
        double y = side ? -0.2 : 0.2;
        n += snprintf(urdf + n, sizeof urdf - (size_t)n,
                      "<link name='%s_upper_arm'/><link name='%s_forearm'/><link name='%s_hand'/>"
                      "<joint name='%s_shoulder' type='revolute'><parent link='base'/><child link='%s_upper_arm'/>"
                      "<origin xyz='0 %g 0.5'/><axis xyz='0 1 0'/>"
                      "<limit lower='-2' upper='2' effort='1' velocity='1'/></joint>"
                      "<joint name='%s_elbow' type='revolute'><parent link='%s_upper_arm'/><child link='%s_forearm'/>"
                      "<origin xyz='0 0 -0.3'/><axis xyz='0 1 0'/>"
                      "<limit lower='0' upper='2' effort='1' velocity='1'/></joint>"
                      "<joint name='%s_wrist' type='fixed'><parent link='%s_forearm'/><child link='%s_hand'/>"
                      "<origin xyz='0 0 -0.3'/></joint>",
                      s, s, s, s, s, y, s, s, s, s, s, s);
    }
    snprintf(urdf + n, sizeof urdf - (size_t)n, "</robot>");
    kg_diags d;
    kg_diags_init(&d);
    kg_model *m = kg_test_load_string("torso.urdf", urdf, &d);
    assert_non_null(m);
    kg_body_map map = {0};
    assert_int_equal(kg_body_map_find(m, &map, &d), KG_NPART - 1);
    const kg_diag *why = kg_test_find(&d, "retarget.not_humanoid");
    assert_non_null(why);
    assert_non_null(strstr(why->message, "one pair found, from 'l_upper_arm' and 'r_upper_arm'"));
    kg_diags_clear(&d);
    kg_model_free(m);
}

/* An arm robot and a quadruped are refused, saying why. */
static void test_not_humanoid(void **state) {
    (void)state;
    KG_REQUIRE_DATA(data);
    const char *const paths[] = {"ur5/example-robot-data/robots/ur_description/urdf/ur5_robot.urdf",
                                 "anymal_c/example-robot-data/robots/anymal_c_simple_description/urdf/anymal.urdf"};
    const char *const why[] = {"no two pairs of mirror limbs", "a quadruped"};
    for (int i = 0; i < 2; i++) {
        kg_model *m = corpus_robot(data, paths[i]);
        kg_body_map map = {0};
        kg_diags d;
        kg_diags_init(&d);
        assert_int_equal(kg_body_map_find(m, &map, &d), KG_NPART - 1);
        assert_int_equal(kg_test_count(&d, "retarget.not_humanoid"), 1);
        assert_int_equal(kg_test_count(&d, "retarget.part_missing"), 0);
        assert_non_null(strstr(kg_test_find(&d, "retarget.not_humanoid")->message, why[i]));
        for (int k = 0; k < KG_NPART; k++) assert_int_equal(map.link[k], -1);
        kg_diags_clear(&d);
        kg_model_free(m);
    }
}

/* Parts given in a map stay as given; the rest are found around them. */
static void test_given(void **state) {
    (void)state;
    kg_model *m = kg_test_load(SAMPLE);
    kg_body_map map;
    memset(&map, 0, sizeof map);
    for (int k = 0; k < KG_NPART; k++) map.link[k] = -1;
    map.link[KG_PART_KNEE_L] = kg_model_link(m, "l_thigh"), map.how[KG_PART_KNEE_L] = "map";
    map.point[KG_PART_KNEE_L][0] = 1; /* kept: a map may name a point on the link */
    kg_diags d;
    kg_diags_init(&d);
    assert_int_equal(kg_body_map_find(m, &map, &d), 0);
    expect(m, &map, KG_PART_KNEE_L, "l_thigh");
    assert_string_equal(map.how[KG_PART_KNEE_L], "map");
    assert_string_equal(map.why[KG_PART_KNEE_L], "given in a map");
    assert_true(map.point[KG_PART_KNEE_L][0] == 1);
    expect(m, &map, KG_PART_KNEE_R, "r_shank");
    kg_diags_clear(&d);
    kg_model_free(m);
}

/* Bandai Namco's rest pose lays every bone along one axis: the legs are told by
 * the tree (they branch nearer the root) and the sides by names; anonymous, the
 * sides are a guess, and said to be; the first frame, which stands, tells all. */
static void test_odd_rest_pose(void **state) {
    (void)state;
    KG_REQUIRE_DATA(data);
    char path[4096];
    snprintf(path, sizeof path, "%s/bvh/bandai_namco/dataset-1_walk_normal_001.bvh", data);
    kg_motion *mo = NULL;
    kg_model *m = load_clip(path, &mo);
    kg_body_map map;
    map_at(m, NULL, &map, 1);
    expect(m, &map, KG_PART_KNEE_L, "LowerLeg_L");
    expect(m, &map, KG_PART_ELBOW_R, "LowerArm_R");
    assert_string_equal(map.how[KG_PART_KNEE_L], "name");
    assert_string_equal(map.why[KG_PART_PELVIS], "where the legs branch (the pair nearer the root)");
    char **names = anonymize(m);
    kg_diags d;
    kg_diags_init(&d);
    memset(&map, 0, sizeof map);
    assert_int_equal(kg_body_map_find(m, &map, &d), 0);
    assert_int_equal(kg_test_count(&d, "retarget.side_guessed"), 1);
    assert_int_equal(map.link[KG_PART_PELVIS], kg_model_link(m, "j2")); /* Hips, after world and joint_Root */
    kg_diags_clear(&d);
    map_at(m, mo->q, &map, 1);
    assert_string_equal(map.why[KG_PART_KNEE_L], KNEE_BY_POSE);
    free_names(names, m);
    kg_motion_free(mo);
    kg_model_free(m);
}

/* A small servo robot's ankle (ROBOTIS OP3's): its knees bend both ways (no
 * forward from their limits), its ankle roll axis 24 mm behind the pitch axis
 * and the pitch motor's mass 21 mm behind, its foot's mass, sole and sole frame
 * centred under the ankle. Those joint places and that motor are not toes:
 * the pose shows no forward, the names tell the sides (read as toes behind,
 * the robot was turned round, its left leg mapped as the right). */
static void test_ankle_behind(void **state) {
    (void)state;
    char *text = kg_test_slurp(SAMPLE);
    assert_non_null(text);
    text = kg_test_replace_sides(text, "<joint name=\"%c_knee\"", "lower=\"0\" upper=\"2.6\"", "lower=\"-2.6\" upper=\"2.6\"");
    text = kg_test_replace_sides(text, "<link name=\"%c_ankle_link\"", "xyz=\"0 0 0\"", "xyz=\"-0.021 0 0\"");
    text = kg_test_replace_sides(text, "<joint name=\"%c_ankle_roll\"", "xyz=\"0 0 0\"", "xyz=\"-0.024 0 0\"");
    for (int k = 0; k < 3; k++) /* its inertial, visual and collision origins */
        text = kg_test_replace_sides(text, "<link name=\"%c_foot\"", "xyz=\"0.03 0 -0.04\"", "xyz=\"0.024 0 -0.04\"");
    text = kg_test_replace_sides(text, "<joint name=\"%c_sole_fixed\"", "xyz=\"0 0 -0.05\"", "xyz=\"0.024 0 -0.05\"");
    kg_model *m = loaded(text);
    kg_body_map map;
    map_at(m, NULL, &map, 1);
    expect(m, &map, KG_PART_KNEE_L, "l_shank");
    expect(m, &map, KG_PART_KNEE_R, "r_shank");
    expect(m, &map, KG_PART_ELBOW_L, "l_forearm");
    assert_non_null(strstr(map.why[KG_PART_KNEE_L], "side by name"));
    kg_model_free(m);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_clips),          cmocka_unit_test(test_robots),
        cmocka_unit_test(test_poser),
        cmocka_unit_test(test_roll_bones),     cmocka_unit_test(test_segment_bones_uneven),
        cmocka_unit_test(test_no_hands),       cmocka_unit_test(test_long_forearm),
        cmocka_unit_test(test_known_answers),  cmocka_unit_test(test_not_humanoid),
        cmocka_unit_test(test_upper_body_refused),
        cmocka_unit_test(test_given),          cmocka_unit_test(test_odd_rest_pose),
        cmocka_unit_test(test_foot_frames),    cmocka_unit_test(test_forearm_frame),
        cmocka_unit_test(test_head_above_shoulders), cmocka_unit_test(test_ankle_behind),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
