/* Validity checks (analysis/validity.c) and `kinegraph check`: every defect
 * check_urdf lets through is caught on a small file written here, each new
 * check fires on its own defect and not on a sound model, the reports keep
 * their contract, and over the corpus every must-fail file of bad/ gets its
 * finding while the good corpus has no error that is not a real defect. */
#define _XOPEN_SOURCE 700
#include "testutil.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analysis/validity.h"
#include "io/load.h"


static char tmpdir[] = "/tmp/kg_check_XXXXXX";

/* ---- the library: one defect per file ---- */

#define HEAD "<?xml version=\"1.0\"?>\n<robot name=\"r\">\n"
#define BASE "<link name=\"base\"/>\n"
#define INERTIAL(m, ixx, iyy, izz)                                                                           \
    "<inertial><mass value=\"" m "\"/><inertia ixx=\"" ixx "\" ixy=\"0\" ixz=\"0\" iyy=\"" iyy "\" iyz=\"0\" izz=\"" izz \
    "\"/></inertial>"
#define ARM(inertial) "<link name=\"arm\">" inertial "</link>\n"
#define HINGE(extra)                                                                                    \
    "<joint name=\"j\" type=\"revolute\"><parent link=\"base\"/><child link=\"arm\"/><axis xyz=\"0 0 1\"/>" \
    extra "</joint>\n"
#define LIMIT "<limit lower=\"-1\" upper=\"1\" effort=\"10\" velocity=\"2\"/>"
#define GOOD_ARM ARM(INERTIAL("1", "0.01", "0.01", "0.01"))

/* Loads and checks a URDF text; returns the diagnostics (to clear). */
static kg_diags check_text(const char *text) {
    kg_diags d;
    kg_diags_init(&d);
    kg_model *m = kg_test_load_string("t.urdf", text, &d);
    if (m) {
        assert_int_equal(kg_check_model(m, NULL, NULL, &d), 0);
        kg_model_free(m);
    }
    return d;
}

/* The text yields `code` at `severity` on `line` (0: any line). */
static void expect(const char *text, const char *code, kg_severity severity, int line) {
    kg_diags d = check_text(text);
    const kg_diag *g = kg_test_find(&d, code);
    if (!g || g->severity != severity || (line && g->line != line)) {
        kg_test_print_diags(&d);
        fail_msg("expected %s (%s) at line %d", code, kg_severity_name(severity), line);
    }
    assert_non_null(kg_diag_hint(code));
    kg_diags_clear(&d);
}

static void test_sound_model_is_clean(void **state) {
    (void)state;
    kg_diags d = check_text(HEAD BASE GOOD_ARM HINGE(LIMIT) "</robot>\n");
    if (kg_diags_count(&d, KG_ERROR) || kg_diags_count(&d, KG_WARNING)) {
        kg_test_print_diags(&d);
        fail_msg("a sound model has findings");
    }
    kg_diags_clear(&d);
}

/* The defects check_urdf 3.0.1 accepts (formats-and-validity.md, verified
 * there) and its endless loop on a joint that is its own parent. */
static void test_what_check_urdf_misses(void **state) {
    (void)state;
    expect(HEAD BASE ARM(INERTIAL("-1", "0.01", "0.01", "0.01")) HINGE(LIMIT) "</robot>\n", "link.mass_negative",
           KG_ERROR, 4);
    /* ixx = -1, ixy = 5: eigenvalues of [[-1 5 0][5 1 0][0 0 1]] are -5.10, 1, 5.10 */
    expect(HEAD BASE
           "<link name=\"arm\"><inertial><mass value=\"1\"/><inertia ixx=\"-1\" ixy=\"5\" ixz=\"0\" iyy=\"1\" "
           "iyz=\"0\" izz=\"1\"/></inertial></link>\n" HINGE(LIMIT) "</robot>\n",
           "link.inertia_not_positive", KG_ERROR, 4);
    expect(HEAD BASE GOOD_ARM HINGE("<limit lower=\"2\" upper=\"-2\" effort=\"1\" velocity=\"1\"/>") "</robot>\n",
           "joint.limit_inverted", KG_ERROR, 5);
    expect(HEAD BASE GOOD_ARM
           "<joint name=\"j\" type=\"revolute\"><parent link=\"base\"/><child link=\"arm\"/><axis xyz=\"0 0 0\"/>" LIMIT
           "</joint>\n</robot>\n",
           "joint.axis_zero", KG_ERROR, 5);
    /* a link with two parents: a loop URDF cannot hold */
    expect(HEAD BASE GOOD_ARM "<link name=\"c\"/>\n" HINGE(LIMIT)
           "<joint name=\"k\" type=\"fixed\"><parent link=\"base\"/><child link=\"c\"/></joint>\n"
           "<joint name=\"l\" type=\"fixed\"><parent link=\"arm\"/><child link=\"c\"/></joint>\n</robot>\n",
           "topology.loop_forbidden", KG_ERROR, 0);
    expect(HEAD BASE GOOD_ARM HINGE(LIMIT "<mimic joint=\"doesnotexist\"/>") "</robot>\n", "mimic.missing_leader",
           KG_ERROR, 5);
    expect(HEAD BASE
           "<link name=\"arm\"><visual><geometry><mesh filename=\"package://nope/x.dae\" scale=\"1000 1000 1000\"/>"
           "</geometry></visual></link>\n" HINGE(LIMIT) "</robot>\n",
           "mesh.unresolved", KG_WARNING, 4);
    /* urdfdom prints this one forever (urdfdom#154) */
    expect(HEAD BASE "<joint name=\"j\" type=\"fixed\"><parent link=\"base\"/><child link=\"base\"/></joint>\n</robot>\n",
           "joint.self_parent", KG_ERROR, 4);
    /* negative effort and velocity */
    expect(HEAD BASE GOOD_ARM HINGE("<limit lower=\"-1\" upper=\"1\" effort=\"-5\" velocity=\"2\"/>") "</robot>\n",
           "joint.effort_negative", KG_ERROR, 5);
    expect(HEAD BASE GOOD_ARM HINGE("<limit lower=\"-1\" upper=\"1\" effort=\"5\" velocity=\"-2\"/>") "</robot>\n",
           "joint.velocity_negative", KG_ERROR, 5);
}

static void test_joint_checks(void **state) {
    (void)state;
    expect(HEAD BASE GOOD_ARM HINGE("<limit lower=\"0.5\" upper=\"0.5\" effort=\"1\" velocity=\"1\"/>") "</robot>\n",
           "joint.limit_equal", KG_WARNING, 5);
    expect(HEAD BASE GOOD_ARM HINGE("<limit lower=\"-90\" upper=\"90\" effort=\"1\" velocity=\"1\"/>") "</robot>\n",
           "joint.limit_degrees", KG_WARNING, 5);
    expect(HEAD BASE GOOD_ARM HINGE("<limit lower=\"-1\" upper=\"1\" effort=\"0\" velocity=\"1\"/>") "</robot>\n",
           "joint.effort_zero", KG_WARNING, 5);
    expect(HEAD BASE GOOD_ARM
           HINGE(LIMIT "<safety_controller soft_lower_limit=\"-2\" soft_upper_limit=\"0.5\" k_velocity=\"1\"/>")
           "</robot>\n",
           "joint.soft_limit_outside", KG_WARNING, 5);
    /* a typo in an attribute name is named with the nearest URDF one */
    kg_diags d = check_text(HEAD BASE GOOD_ARM HINGE("<limit lower=\"-1\" uper=\"1\" effort=\"1\" velocity=\"1\"/>")
                            "</robot>\n");
    const kg_diag *g = kg_test_find(&d, "urdf.unknown_attribute");
    assert_non_null(g);
    assert_int_equal(g->severity, KG_WARNING);
    assert_non_null(strstr(g->message, "'upper'"));
    kg_diags_clear(&d);
    /* one far from any URDF name is an extension (Franka's friction model) */
    expect(HEAD BASE GOOD_ARM HINGE(LIMIT "<dynamics damping=\"1\" mu_coulomb=\"0.2\"/>") "</robot>\n",
           "urdf.extension_attribute", KG_INFO, 5);
}

static void test_inertia_checks(void **state) {
    (void)state;
    /* principal moments 0.1 + 0.1 < 0.35: OpenRAVE's pumaarm Puma1 */
    expect(HEAD BASE ARM(INERTIAL("1", "0.1", "0.1", "0.35")) HINGE(LIMIT) "</robot>\n", "link.inertia_triangle",
           KG_ERROR, 4);
    /* on the edge (0.1 + 0.1 = 0.2) a rod is fine: the gz-math tolerance */
    kg_diags d = check_text(HEAD BASE ARM(INERTIAL("1", "0.1", "0.1", "0.2")) HINGE(LIMIT) "</robot>\n");
    assert_int_equal(kg_test_count(&d, "link.inertia_triangle"), 0);
    kg_diags_clear(&d);
    expect(HEAD BASE ARM(INERTIAL("0", "0", "0", "0")) HINGE(LIMIT) "</robot>\n", "link.mass_zero", KG_WARNING, 4);
    expect(HEAD BASE ARM(INERTIAL("1e-7", "1e-9", "1e-9", "1e-9")) HINGE(LIMIT) "</robot>\n", "link.mass_tiny",
           KG_WARNING, 4);
    expect(HEAD BASE ARM(INERTIAL("1", "0", "0", "0")) HINGE(LIMIT) "</robot>\n", "link.inertia_zero", KG_WARNING, 4);
    expect(HEAD "<link name=\"base\">" INERTIAL("1", "0.01", "0.01", "0.01") "</link>\n" ARM("") HINGE(LIMIT)
           "</robot>\n", "link.no_inertial", KG_WARNING, 4);
    expect(HEAD BASE "<link name=\"arm\"/>\n" HINGE(LIMIT) "</robot>\n", "model.no_inertials", KG_INFO, 0);
    /* 1 kg in a 1 cm cube is 1e6 kg/m^3; a 0.1 m cube of 1 kg (1000 kg/m^3,
     * inertia m a^2/6 = 1.667e-3) is sound */
    expect(HEAD BASE
           "<link name=\"arm\">" INERTIAL("1", "1.6667e-5", "1.6667e-5", "1.6667e-5")
           "<collision><geometry><box size=\"0.01 0.01 0.01\"/></geometry></collision></link>\n" HINGE(LIMIT)
           "</robot>\n",
           "link.density_implausible", KG_WARNING, 4);
    d = check_text(HEAD BASE "<link name=\"arm\">" INERTIAL("1", "1.6667e-3", "1.6667e-3", "1.6667e-3")
                   "<collision><geometry><box size=\"0.1 0.1 0.1\"/></geometry></collision></link>\n" HINGE(LIMIT)
                   "</robot>\n");
    assert_int_equal(kg_diags_count(&d, KG_WARNING), 0);
    kg_diags_clear(&d);
    /* the same cube with 100 times the inertia, and with the COM 0.5 m away */
    expect(HEAD BASE
           "<link name=\"arm\">" INERTIAL("1", "0.16667", "0.16667", "0.16667")
           "<collision><geometry><box size=\"0.1 0.1 0.1\"/></geometry></collision></link>\n" HINGE(LIMIT)
           "</robot>\n",
           "link.inertia_implausible", KG_WARNING, 4);
    expect(HEAD BASE
           "<link name=\"arm\"><inertial><origin xyz=\"0.5 0 0\"/><mass value=\"1\"/><inertia ixx=\"1.6667e-3\" "
           "ixy=\"0\" ixz=\"0\" iyy=\"1.6667e-3\" iyz=\"0\" izz=\"1.6667e-3\"/></inertial>"
           "<collision><geometry><box size=\"0.1 0.1 0.1\"/></geometry></collision></link>\n" HINGE(LIMIT)
           "</robot>\n",
           "link.com_outside", KG_WARNING, 4);
}

static void test_geometry_and_collision(void **state) {
    (void)state;
    expect(HEAD BASE "<link name=\"arm\"><visual><geometry><box size=\"0.1 0 0.1\"/></geometry></visual></link>\n"
           HINGE(LIMIT) "</robot>\n",
           "geometry.size_invalid", KG_ERROR, 4);
    expect(HEAD BASE "<link name=\"arm\"><visual><geometry><sphere radius=\"-1\"/></geometry></visual></link>\n"
           HINGE(LIMIT) "</robot>\n",
           "geometry.size_invalid", KG_ERROR, 4);
    /* radius 0 is a point (Drake's contact points), not an error */
    expect(HEAD BASE "<link name=\"arm\"><collision><geometry><sphere radius=\"0\"/></geometry></collision></link>\n"
           HINGE(LIMIT) "</robot>\n",
           "geometry.point", KG_INFO, 4);
    kg_diags pt = check_text(HEAD BASE "<link name=\"arm\"><collision><geometry><sphere radius=\"0\"/></geometry>"
                             "</collision></link>\n" HINGE(LIMIT) "</robot>\n");
    assert_int_equal(kg_test_count(&pt, "geometry.size_invalid"), 0);
    kg_diags_clear(&pt);
    expect(HEAD BASE
           "<link name=\"arm\"><visual><geometry><mesh filename=\"x.stl\" scale=\"1 0 1\"/></geometry></visual></link>\n"
           HINGE(LIMIT) "</robot>\n",
           "geometry.scale_zero", KG_ERROR, 4);
    expect(HEAD BASE "<link name=\"arm\"><visual><geometry><mesh filename=\"x.stl\" scale=\"1 -1 1\"/></geometry>"
           "</visual></link>\n" HINGE(LIMIT) "</robot>\n",
           "geometry.scale_negative", KG_WARNING, 4);
    expect(HEAD "<link name=\"base link\"/>\n" GOOD_ARM
           "<joint name=\"j\" type=\"revolute\"><parent link=\"base link\"/><child link=\"arm\"/>" LIMIT
           "</joint>\n</robot>\n",
           "name.whitespace", KG_WARNING, 3);
    /* two boxes 5 cm apart through a 20 cm long third link: c and a collide,
     * b (between them, adjacent to both) is not checked against either */
    const char *three = HEAD
        "<link name=\"a\"><collision><geometry><box size=\"0.1 0.1 0.1\"/></geometry></collision></link>\n"
        "<link name=\"b\"><collision><origin xyz=\"0 0 1\"/><geometry><box size=\"0.1 0.1 0.1\"/></geometry>"
        "</collision></link>\n"
        "<link name=\"c\"><collision><origin xyz=\"0.05 0 0\"/><geometry><box size=\"0.1 0.1 0.1\"/></geometry>"
        "</collision></link>\n"
        "<joint name=\"j1\" type=\"revolute\"><parent link=\"a\"/><child link=\"b\"/><axis xyz=\"0 0 1\"/>" LIMIT
        "</joint>\n"
        "<joint name=\"j2\" type=\"revolute\"><parent link=\"b\"/><child link=\"c\"/><axis xyz=\"0 0 1\"/>" LIMIT
        "</joint>\n</robot>\n";
    kg_diags d = check_text(three);
    assert_int_equal(kg_test_count(&d, "collision.rest_pose"), 1);
    assert_non_null(strstr(kg_test_find(&d, "collision.rest_pose")->message, "'a' and 'c'"));
    kg_diags_clear(&d);
}

/* A four-bar with its joints at the corners of a 1 x 0.5 rectangle, in
 * COLLADA 1.5 (attachment_start/end): spatial Grubler-Kutzbach 4 - 6 = -2,
 * but planar, so it keeps 1 degree of freedom; closed at the rest pose. */
static void test_loop_checks(void **state) {
    (void)state;
    KG_REQUIRE_DATA(data);
    char path[4096];
    snprintf(path, sizeof path, "%s/collada/khronos_cts/library_kinematics_model/kinematics_model/technique_common/"
             "link/attachment_full/attachment_full.dae", data);
    kg_diags d;
    kg_diags_init(&d);
    kg_model *m = kg_load(path, NULL, &d);
    assert_non_null(m);
    assert_int_equal(kg_check_model(m, NULL, NULL, &d), 0);
    assert_int_equal(kg_test_count(&d, "loop.mobility"), m->nloop);
    kg_model_free(m);
    kg_diags_clear(&d);
    /* the conformance suite's attachment_start: its loop does not close at rest */
    snprintf(path, sizeof path, "%s/collada/khronos_cts/library_kinematics_model/kinematics_model/technique_common/"
             "link/attachment_start/attachment_start.dae", data);
    kg_diags_init(&d);
    m = kg_load(path, NULL, &d);
    assert_non_null(m);
    assert_int_equal(kg_check_model(m, NULL, NULL, &d), 0);
    const kg_diag *g = kg_test_find(&d, "loop.mobility");
    assert_non_null(g);
    /* 4 one-axis joints: f = 4, spatial mobility -2 */
    assert_non_null(strstr(g->message, "4 joint freedoms, Grubler-Kutzbach mobility -2"));
    g = kg_test_find(&d, "loop.open");
    assert_non_null(g);
    assert_non_null(strstr(g->message, "0.0127 m"));
    kg_model_free(m);
    kg_diags_clear(&d);
}

static void test_motion_checks(void **state) {
    (void)state;
    /* a small BVH in centimetres (185 tall): a zero-length bone, a wrap of Zrotation
     * from 179 to -179 degrees, and a 100-degree glitch */
    const char *bvh = "HIERARCHY\nROOT Hips\n{\n OFFSET 0 0 0\n CHANNELS 6 Xposition Yposition Zposition "
                      "Zrotation Xrotation Yrotation\n JOINT Spine\n {\n  OFFSET 0 0 0\n  CHANNELS 3 Zrotation "
                      "Xrotation Yrotation\n  JOINT Head\n  {\n   OFFSET 0 80 0\n   CHANNELS 3 Zrotation Xrotation "
                      "Yrotation\n   End Site\n   {\n    OFFSET 0 10 0\n   }\n  }\n }\n JOINT Leg\n {\n  OFFSET 0 "
                      "-90 0\n  CHANNELS 3 Zrotation Xrotation Yrotation\n  End Site\n  {\n   OFFSET 0 -5 0\n  }\n }\n"
                      "}\nMOTION\nFrames: 4\nFrame Time: 0.0333333\n"
                      "0 0 0 0 0 0 179 0 0 0 0 0 0 0 0\n"
                      "0 0 0 0 0 0 -179 0 0 0 0 0 0 0 0\n"
                      "0 0 0 0 0 0 -179 0 0 0 100 0 0 0 0\n"
                      "0 0 0 0 0 0 -179 0 0 0 0 0 0 0 0\n";
    kg_diags d;
    kg_diags_init(&d);
    kg_motion *mo = NULL;
    kg_model *m = kg_load_clip_buffer("t.bvh", bvh, strlen(bvh), NULL, &mo, &d);
    assert_non_null(m);
    assert_int_equal(kg_check_model(m, mo, NULL, &d), 0);
    const kg_diag *g = kg_test_find(&d, "bvh.zero_bone");
    assert_non_null(g);
    assert_non_null(strstr(g->message, "'Spine' sits on its parent 'Hips'"));
    g = kg_test_find(&d, "bvh.unit");
    assert_non_null(g);
    assert_non_null(strstr(g->message, "cm"));
    assert_int_equal(kg_test_count(&d, "motion.angle_jump"), 2);
    g = kg_test_find(&d, "motion.angle_jump");
    assert_non_null(strstr(g->message, "'Spine.Zrotation' jumps by -358.0 degrees between frames 0 and 1"));
    assert_non_null(strstr(g->message, "wrapping"));
    kg_model_free(m);
    kg_motion_free(mo);
    kg_diags_clear(&d);
}

/* What converting would lose: a URDF's mimic survives COLLADA; a BVH's motion
 * does not survive URDF. */
static void test_conversion_findings(void **state) {
    (void)state;
    kg_diags d = check_text(HEAD BASE GOOD_ARM HINGE(LIMIT) "</robot>\n");
    assert_int_equal(kg_test_count(&d, "conversion.dropped"), 0);
    kg_diags_clear(&d);
    const char *bvh = "HIERARCHY\nROOT Hips\n{\n OFFSET 0 0 0\n CHANNELS 6 Xposition Yposition Zposition "
                      "Zrotation Xrotation Yrotation\n End Site\n {\n  OFFSET 0 1 0\n }\n}\nMOTION\nFrames: 1\n"
                      "Frame Time: 0.1\n0 0 0 0 0 0\n";
    kg_diags_init(&d);
    kg_motion *mo = NULL;
    kg_model *m = kg_load_clip_buffer("t.bvh", bvh, strlen(bvh), NULL, &mo, &d);
    assert_non_null(m);
    assert_int_equal(kg_check_model(m, mo, NULL, &d), 0);
    int to_urdf = 0;
    for (size_t k = 0; k < d.count; k++)
        if (!strncmp(d.items[k].code, "conversion.", 11) && strstr(d.items[k].message, "converting to URDF")) to_urdf++;
    assert_true(to_urdf > 0);
    kg_model_free(m);
    kg_motion_free(mo);
    kg_diags_clear(&d);
}

/* ---- the command ---- */

/* kinegraph check ARGS */
static int run(const char *args) {
    char cmd[8192];
    snprintf(cmd, sizeof cmd, "check %s", args);
    return kg_test_run_kinegraph(tmpdir, cmd);
}

static void write_file(const char *name, const char *text) {
    char path[700];
    snprintf(path, sizeof path, "%s/%s", tmpdir, name);
    FILE *f = fopen(path, "w");
    fputs(text, f);
    fclose(f);
}

static json_t *load_json(const char *name) {
    char path[700];
    snprintf(path, sizeof path, "%s/%s", tmpdir, name);
    json_error_t e;
    json_t *j = json_load_file(path, 0, &e);
    if (!j) fail_msg("%s: %s", path, e.text);
    return j;
}

static void test_command(void **state) {
    (void)state;
    char cmd[2048];
    snprintf(cmd, sizeof cmd, "mkdir -p '%s/m/sub' '%s/m/.hidden'", tmpdir, tmpdir);
    assert_int_equal(system(cmd), 0);
    write_file("m/good.urdf", HEAD BASE GOOD_ARM HINGE(LIMIT) "</robot>\n");
    write_file("m/sub/bad.urdf", HEAD BASE ARM(INERTIAL("-1", "0.01", "0.01", "0.01")) HINGE(LIMIT) "</robot>\n");
    write_file("m/sub/warn.urdf", HEAD BASE GOOD_ARM HINGE("<limit lower=\"-90\" upper=\"90\" effort=\"1\" "
                                                         "velocity=\"1\"/>") "</robot>\n");
    write_file("m/notes.txt", "not a model");
    write_file("m/.hidden/skip.urdf", "<robot");
    /* a folder: the three models, sorted; errors give exit 1 */
    snprintf(cmd, sizeof cmd, "'%s/m' --json '%s/r1.json' --junit '%s/r.xml' --html '%s/r.html' --jobs 1", tmpdir,
             tmpdir, tmpdir, tmpdir);
    assert_int_equal(run(cmd), 1);
    json_t *j = load_json("r1.json");
    json_t *files = json_object_get(j, "files");
    assert_int_equal(json_array_size(files), 3);
    const char *want[3][2] = {{"/m/good.urdf", "ok"}, {"/m/sub/bad.urdf", "error"}, {"/m/sub/warn.urdf", "warning"}};
    for (int k = 0; k < 3; k++) {
        json_t *f = json_array_get(files, (size_t)k);
        const char *p = json_string_value(json_object_get(f, "path"));
        assert_non_null(strstr(p, want[k][0]));
        assert_string_equal(json_string_value(json_object_get(f, "status")), want[k][1]);
        assert_string_equal(json_string_value(json_object_get(f, "format")), "urdf");
    }
    json_t *g = json_array_get(json_object_get(json_array_get(files, 1), "findings"), 0);
    const char *fields[] = {"code", "severity", "message", "file", "line", "element", "hint"};
    for (size_t k = 0; k < sizeof fields / sizeof *fields; k++) assert_non_null(json_object_get(g, fields[k]));
    assert_string_equal(json_string_value(json_object_get(g, "code")), "link.mass_negative");
    assert_int_equal(json_integer_value(json_object_get(g, "line")), 4);
    json_t *s = json_object_get(j, "summary");
    assert_int_equal(json_integer_value(json_object_get(s, "files")), 3);
    assert_int_equal(json_integer_value(json_object_get(s, "error")), 1);
    assert_int_equal(json_integer_value(json_object_get(s, "warning")), 1);
    assert_int_equal(json_integer_value(json_object_get(s, "ok")), 1);
    /* the same results in the same order with two jobs (times aside) */
    snprintf(cmd, sizeof cmd, "'%s/m' --json '%s/r2.json' --jobs 2", tmpdir, tmpdir);
    assert_int_equal(run(cmd), 1);
    json_t *j2 = load_json("r2.json");
    json_t *f1 = json_object_get(j, "files"), *f2 = json_object_get(j2, "files");
    for (size_t k = 0; k < 3; k++) {
        json_object_del(json_array_get(f1, k), "seconds");
        json_object_del(json_array_get(f2, k), "seconds");
    }
    assert_true(json_equal(f1, f2));
    json_decref(j2);
    /* JUnit: one test case per file, the error file fails */
    char path[700];
    snprintf(path, sizeof path, "%s/r.xml", tmpdir);
    char *x = kg_test_slurp(path);
    assert_non_null(strstr(x, "tests=\"3\" failures=\"1\""));
    assert_non_null(strstr(x, "<failure type=\"error\" message=\"1 errors, 0 warnings\">line 4: error:"));
    free(x);
    snprintf(path, sizeof path, "%s/r.html", tmpdir);
    x = kg_test_slurp(path);
    assert_non_null(strstr(x, "<svg class=tree"));
    assert_non_null(strstr(x, "link.mass_negative"));
    assert_non_null(strstr(x, ">arm</text>"));
    /* each model's picture at rest, a PNG (its signature's base64) with its panel's size in IHDR
     * (240 x 300 + the caption: width 0x000000F0, "AAAA8A" after "IHDR" = "SUhEUg") */
    int pictures = 0;
    for (const char *p = strstr(x, "src=\"data:image/png;base64,iVBORw0KGgo"); p; p = strstr(p + 1, "src=\"data:image/png;base64,iVBORw0KGgo"))
        pictures++;
    assert_int_equal(pictures, 3);
    assert_non_null(strstr(x, "data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAPA"));
    free(x);
    json_decref(j);
    /* shards: 1/2 and 2/2 split the files (balanced by size), disjoint and
     * together all of them, the same whatever the PATHs' order; the part
     * with bad.urdf exits 1 */
    int seen[3] = {0}, bad_part = 0;
    const char *names[3] = {"good.urdf", "bad.urdf", "warn.urdf"};
    for (int k = 1; k <= 2; k++) {
        for (int order = 0; order < 2; order++) {
            if (order == 0)
                snprintf(cmd, sizeof cmd, "'%s/m' --json '%s/s%d.json' --shard %d/2", tmpdir, tmpdir, k, k);
            else /* the same files named otherwise ordered */
                snprintf(cmd, sizeof cmd, "'%s/m/sub/warn.urdf' '%s/m/sub/bad.urdf' '%s/m/good.urdf' --json "
                         "'%s/t%d.json' --shard %d/2", tmpdir, tmpdir, tmpdir, tmpdir, k, k);
            int st = run(cmd);
            char name[16];
            snprintf(name, sizeof name, "%c%d.json", order ? 't' : 's', k);
            j = load_json(name);
            files = json_object_get(j, "files");
            assert_true(json_array_size(files) >= 1);
            int has_bad = 0;
            for (size_t i = 0; i < json_array_size(files); i++) {
                const char *p = json_string_value(json_object_get(json_array_get(files, i), "path"));
                for (int f = 0; f < 3; f++)
                    if (strstr(p, names[f])) {
                        if (order == 0) seen[f] += k;
                        else assert_int_equal(seen[f], k); /* the same part as before */
                        if (f == 1) has_bad = 1;
                    }
            }
            assert_int_equal(st, has_bad ? 1 : 0);
            if (has_bad) bad_part = k;
            json_decref(j);
        }
    }
    for (int f = 0; f < 3; f++) assert_true(seen[f] == 1 || seen[f] == 2); /* in exactly one part */
    assert_true(bad_part == 1 || bad_part == 2);
    /* warnings only: exit 0, or 1 with --fail-on warning; globs */
    snprintf(cmd, sizeof cmd, "'%s/m/sub/w*.urdf'", tmpdir);
    assert_int_equal(run(cmd), 0);
    snprintf(cmd, sizeof cmd, "'%s/m/sub/w*.urdf' --fail-on warning", tmpdir);
    assert_int_equal(run(cmd), 1);
    /* usage errors: 2, on stderr */
    snprintf(cmd, sizeof cmd, "'%s/nothing-here'", tmpdir);
    assert_int_equal(run(cmd), 2);
    snprintf(path, sizeof path, "%s/err", tmpdir);
    x = kg_test_slurp(path);
    assert_non_null(strstr(x, "does not exist"));
    free(x);
    snprintf(cmd, sizeof cmd, "'%s/m' --shard 3/2", tmpdir);
    assert_int_equal(run(cmd), 2);
    assert_int_equal(run("--jobs 0 x.urdf"), 2);
    assert_int_equal(run("--help"), 0);
    /* a report that cannot be written: 3, and nothing half-written */
    snprintf(cmd, sizeof cmd, "'%s/m/good.urdf' --json '%s/no/such/dir/r.json'", tmpdir, tmpdir);
    assert_int_equal(run(cmd), 3);
}

/* ---- the corpus ---- */

static json_t *check_corpus(const char *data) {
    char cmd[4096];
    snprintf(cmd, sizeof cmd, "'%s' --json '%s/corpus.json' --jobs 2 --no-progress", data, tmpdir);
    int st = run(cmd);
    assert_true(st == 0 || st == 1);
    return load_json("corpus.json");
}

static json_t *file_result(json_t *files, const char *suffix) {
    size_t i, n = strlen(suffix);
    json_t *f;
    json_array_foreach(files, i, f) {
        const char *p = json_string_value(json_object_get(f, "path"));
        size_t m = strlen(p);
        if (m >= n && !strcmp(p + m - n, suffix)) return f;
    }
    fail_msg("%s is not in the report", suffix);
    return NULL;
}

static int has_code(json_t *f, const char *code, const char *severity) {
    size_t i;
    json_t *g;
    json_array_foreach(json_object_get(f, "findings"), i, g)
        if (!strcmp(json_string_value(json_object_get(g, "code")), code) &&
            (!severity || !strcmp(json_string_value(json_object_get(g, "severity")), severity)))
            return 1;
    return 0;
}

static void test_corpus(void **state) {
    (void)state;
    KG_REQUIRE_DATA(data);
    json_t *j = check_corpus(data);
    json_t *files = json_object_get(j, "files");
    /* bad/: SOURCES.md's must-fail list (ros/urdf test_robot_model_parser.launch
     * and DART's tests), each with the right finding */
    const struct {
        const char *file, *code, *severity;
    } must[] = {
        {"bad/urdf/ros_urdf_tests/fail_pr2_desc_bracket.urdf", "xml.bad_number", "error"},
        {"bad/urdf/ros_urdf_tests/fail_three_links_one_joint.urdf", "xml.malformed", "error"},
        {"bad/urdf/ros_urdf_tests/fail_pr2_desc_double_joint.urdf", "joint.duplicate", "error"},
        {"bad/urdf/ros_urdf_tests/fail_pr2_desc_loop.urdf", "topology.loop_forbidden", "error"},
        {"bad/urdf/ros_urdf_tests/fail_pr2_desc_no_filename_in_mesh.urdf", "urdf.missing_attribute", "error"},
        {"bad/urdf/ros_urdf_tests/fail_pr2_desc_no_joint2.urdf", "xml.malformed", "error"},
        {"bad/urdf/ros_urdf_tests/fail_pr2_desc_two_trees.urdf", "topology.multiple_roots", "error"},
        {"bad/urdf/ros_urdf_tests/fail_pr2_desc_double.urdf", "link.duplicate", "error"},
        {"bad/urdf/ros_urdf_tests/fail_pr2_desc_parent_itself.urdf", "joint.self_parent", "error"},
        {"bad/urdf/dart_tests/invalid.urdf", "xml.malformed", "error"},
        {"bad/urdf/dart_tests/missing_mesh.urdf", "mesh.unresolved", "warning"},
        {"bad/urdf/dart_tests/missing_package.urdf", "mesh.unresolved", "warning"},
        {"bad/urdf/dart_tests/invalid_mesh.urdf", "mesh.unresolved", "warning"},
        {"bad/urdf/dart_tests/primitive_geometry.urdf", "geometry.extra_shape", "warning"},
        {"bad/urdf/dart_tests/testWorld.urdf", "urdf.not_robot", "error"},
        /* sdformat rejects a massless link under a moving joint */
        {"bad/urdf/sdformat_tests/invalid_force_torque_sensor_massless_child_link.urdf", "link.no_inertial", "warning"},
    };
    for (size_t k = 0; k < sizeof must / sizeof *must; k++) {
        json_t *f = file_result(files, must[k].file);
        if (!has_code(f, must[k].code, must[k].severity))
            fail_msg("%s: no %s %s", must[k].file, must[k].severity, must[k].code);
    }
    /* must pass (ros/urdf): no error */
    const char *pass[] = {"test_robot.urdf", "no_visual.urdf", "one_link.urdf", "two_links_one_joint.urdf",
                          "pr2_desc.urdf", "pr2_desc_no_joint.urdf", "singularity.urdf"};
    for (size_t k = 0; k < sizeof pass / sizeof *pass; k++) {
        char s[200];
        snprintf(s, sizeof s, "bad/urdf/ros_urdf_tests/%s", pass[k]);
        json_t *f = file_result(files, s);
        size_t i;
        json_t *g;
        /* parseable, as the launch file wants; PR2's sensor_mount_link and
         * double_stereo_link inertias (0.001, 0.001, 0.01) are really impossible */
        json_array_foreach(json_object_get(f, "findings"), i, g)
            if (!strcmp(json_string_value(json_object_get(g, "severity")), "error") &&
                (strncmp(pass[k], "pr2_desc", 8) ||
                 strcmp(json_string_value(json_object_get(g, "code")), "link.inertia_triangle")))
                fail_msg("%s: %s", s, json_string_value(json_object_get(g, "message")));
    }
    /* assimp's crash reproducer does not crash us */
    assert_non_null(file_result(files, "bad/collada/assimp_invalid/box_nested_animation_4286.dae"));
    /* the good corpus: errors only where the file really is wrong (README,
     * "Checking models") */
    const struct {
        const char *file, *code;
    } real[] = {
        {"urdf/atlas_v3/atlas_v3.urdf", "joint.missing_link"}, /* neck_ry's child 'head' is not defined */
        {"formula/formula.dae", "xml.malformed"}, /* the conformance suite's files are not well-formed */
        {"formula_in_kinematics/formula_in_kinematics.dae", "xml.malformed"},
        {"formula_in_library/formula_in_library.dae", "xml.malformed"},
    };
    size_t i;
    json_t *f;
    json_array_foreach(files, i, f) {
        const char *p = json_string_value(json_object_get(f, "path"));
        if (strstr(p, "/bad/")) continue;
        size_t k2;
        json_t *g;
        json_array_foreach(json_object_get(f, "findings"), k2, g) {
            if (strcmp(json_string_value(json_object_get(g, "severity")), "error")) continue;
            const char *code = json_string_value(json_object_get(g, "code"));
            int known = 0;
            double a, b, c;
            /* impossible inertias are real defects: every one in the corpus
             * misses the triangle inequality by more than 2 % */
            if (!strcmp(code, "link.inertia_triangle")) {
                const char *msg = strstr(json_string_value(json_object_get(g, "message")), "moments ");
                known = msg && sscanf(msg, "moments %lf + %lf < %lf", &a, &b, &c) == 3 && c - a - b > 0.02 * c;
            }
            for (size_t r = 0; r < sizeof real / sizeof *real && !known; r++) {
                size_t n = strlen(real[r].file), m = strlen(p);
                known = m >= n && !strcmp(p + m - n, real[r].file) && !strcmp(code, real[r].code);
            }
            if (!known)
                fail_msg("%s: error %s not explained: %s", p, code,
                         json_string_value(json_object_get(g, "message")));
        }
    }
    json_decref(j);
}

static int setup(void **state) {
    (void)state;
    return mkdtemp(tmpdir) ? 0 : -1;
}

static int teardown(void **state) {
    (void)state;
    return kg_test_remove_dir(tmpdir);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sound_model_is_clean),
        cmocka_unit_test(test_what_check_urdf_misses),
        cmocka_unit_test(test_joint_checks),
        cmocka_unit_test(test_inertia_checks),
        cmocka_unit_test(test_geometry_and_collision),
        cmocka_unit_test(test_loop_checks),
        cmocka_unit_test(test_motion_checks),
        cmocka_unit_test(test_conversion_findings),
        cmocka_unit_test(test_command),
        cmocka_unit_test(test_corpus),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
