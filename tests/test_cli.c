/* The kinegraph command: its JSON contract (field names and SI values), exit codes,
 * --help on every command, errors on stderr. */
#define _XOPEN_SOURCE 700
#include "testutil.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define SAMPLE KG_SOURCE_DIR "/samples/humanoid.urdf"

static char tmpdir[] = "/tmp/kg_cli_XXXXXX";

/* Runs "kinegraph ARGS" (ARGS is shell text); returns the exit status. */
static int run(const char *args, char **out, char **err) { return kg_test_run_captured(tmpdir, args, out, err); }

static json_t *run_json(const char *args, int expect_status) {
    char *out, *err;
    int st = run(args, &out, &err);
    if (st != expect_status) fail_msg("kinegraph %s: exit %d, expected %d; stderr: %s", args, st, expect_status, err);
    json_error_t e;
    json_t *j = json_loads(out, 0, &e);
    if (!j) fail_msg("kinegraph %s: not JSON (%s): %s", args, e.text, out);
    free(out);
    free(err);
    return j;
}

static char *write_tmp(const char *name, const char *text) {
    static char path[700];
    snprintf(path, sizeof path, "%s/%s", tmpdir, name);
    FILE *f = fopen(path, "w");
    fputs(text, f);
    fclose(f);
    return path;
}

static int setup(void **state) {
    (void)state;
    return mkdtemp(tmpdir) ? 0 : -1;
}

static int teardown(void **state) {
    (void)state;
    return kg_test_remove_dir(tmpdir);
}

static double num(json_t *o, const char *k) { return json_number_value(json_object_get(o, k)); }

/* An option a help text lists: one of its names, and whether a value follows. */
typedef struct listed {
    char name[48];
    int value;
} listed;

/* The options a help text lists: each line's leading "--name", "-x, --name" or
 * "--name, --other" (indented at most 4), every name of it, with whether the
 * names are followed by a value ("--tip LINK"); their count. */
static int list_options(const char *help, listed *out, int max) {
    int n = 0;
    for (const char *l = help; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL) {
        const char *p = l;
        while (*p == ' ') p++;
        if (p == l || p - l > 4 || *p != '-') continue; /* not prose, nor a description's continuation */
        int first = n;
        for (;;) {
            size_t k = strcspn(p, " ,=\n[");
            if (k < sizeof out[0].name && n < max) memcpy(out[n].name, p, k), out[n++].name[k] = '\0';
            if (p[k] != ',' || p[k + 1] != ' ' || p[k + 2] != '-') {
                for (int i = first; i < n; i++) out[i].value = p[k] == ' ' && p[k + 1] && !strchr(" \n", p[k + 1]);
                break;
            }
            p += k + 2;
        }
    }
    return n;
}

/* 0 when a help text lists an option twice (the CLI's contract: every option once). */
static int options_once(const listed *o, int n, const char *cmd) {
    for (int i = 0; i < n; i++)
        for (int k = 0; k < i; k++)
            if (!strcmp(o[i].name, o[k].name)) {
                printf("  %s: %s listed twice\n", cmd, o[i].name);
                return 0;
            }
    return 1;
}

/* Every option cmd's help lists is one the command parses: "CMD OPTION [1]
 * --help" prints the help (an option it did not know would be a usage error
 * first, and a value it did not expect would be taken for an operand). The
 * parser has no other options than the listed ones: they come from one table. */
static void options_parsed(const char *cmd, const listed *o, int n) {
    for (int i = 0; i < n; i++) {
        char args[256], *out, *err;
        snprintf(args, sizeof args, "%.*s %.47s%s --help", (int)strcspn(cmd, " "), cmd, o[i].name, o[i].value ? " 1" : "");
        int st = run(args, &out, &err);
        if (st != 0 || !strstr(out, "usage: kinegraph"))
            fail_msg("kinegraph %s: exit %d, no help (%s): %s lists %s, which it does not parse", args, st, err, cmd,
                     o[i].name);
        free(out);
        free(err);
    }
}

static void test_help(void **state) {
    (void)state;
    const char *cmds[] = {"--help",          "info --help",     "check --help",      "merge --help",   "fk --help",
                          "mass --help",     "jacobian --help", "ik --help",         "dynamics --help", "highbar --help",
                          "retarget --help", "workspace --help", "collisions --help", "view --help",    "convert --help"};
    for (size_t i = 0; i < sizeof cmds / sizeof *cmds; i++) {
        char *out, *err;
        listed o[128];
        assert_int_equal(run(cmds[i], &out, &err), 0);
        assert_non_null(strstr(out, "usage: kinegraph"));
        int n = list_options(out, o, 128);
        assert_true(n >= 2); /* at least -h, --help */
        assert_true(options_once(o, n, cmds[i]));
        if (i > 0) options_parsed(cmds[i], o, n);
        if (i == 0) /* the top level names every command */
            for (size_t k = 1; k < sizeof cmds / sizeof *cmds; k++) {
                char name[32];
                snprintf(name, sizeof name, "  %.*s ", (int)strcspn(cmds[k], " "), cmds[k]);
                if (!strstr(out, name)) fail_msg("kinegraph --help does not list '%s'", name);
            }
        free(out);
        free(err);
    }
    /* the table's names: convert lists --force, check -j and --no-progress, fk --base (--root-pose's first name) */
    char *out, *err;
    assert_int_equal(run("check --help", &out, &err), 0);
    assert_non_null(strstr(out, "\n  -j, --jobs N "));
    assert_non_null(strstr(out, "\n  --no-progress "));
    free(out);
    free(err);
    assert_int_equal(run("fk --help", &out, &err), 0);
    assert_non_null(strstr(out, "\n  --root-pose, --base X,Y,Z[,QW,QX,QY,QZ] "));
    free(out);
    free(err);
    assert_int_equal(run("jacobian --help", &out, &err), 0); /* its own --base (a link) hides --root-pose's */
    assert_non_null(strstr(out, "\n  --base LINK "));
    assert_non_null(strstr(out, "\n  --root-pose X,Y,Z"));
    free(out);
    free(err);
    assert_int_equal(run("", &out, &err), 2); /* no command: usage on stderr */
    assert_non_null(strstr(err, "usage"));
    free(out);
    free(err);
    assert_int_equal(run("frobnicate", &out, &err), 2);
    free(out);
    free(err);
}

static void test_info_json(void **state) {
    (void)state;
    json_t *j = run_json("info --json '" SAMPLE "'", 0);
    assert_string_equal(json_string_value(json_object_get(j, "name")), "kinegraph_humanoid");
    assert_string_equal(json_string_value(json_object_get(j, "format")), "urdf");
    assert_int_equal(json_integer_value(json_object_get(j, "links")), 28);
    assert_int_equal(json_integer_value(json_object_get(j, "joints")), 27);
    assert_int_equal(json_integer_value(json_object_get(j, "dof")), 23);
    assert_string_equal(json_string_value(json_object_get(j, "root")), "pelvis");
    assert_true(json_is_array(json_object_get(j, "loops")));
    assert_int_equal(json_array_size(json_object_get(j, "loops")), 0);
    assert_true(json_is_array(json_object_get(j, "mimic")));
    KG_ASSERT_NEAR(num(j, "mass"), 57.1, 1e-12); /* the sum of the sample's link masses */
    assert_true(json_is_array(json_object_get(j, "diagnostics")));
    assert_int_equal(json_array_size(json_object_get(j, "diagnostics")), 0);
    json_decref(j);
}

static void test_info_loop_and_diagnostics(void **state) {
    (void)state;
    const char *p = write_tmp("loop.urdf",
                              "<robot name='l'>\n"
                              " <link name='base'/><link name='a'/><link name='c'/>\n"
                              " <joint name='ja' type='continuous'><parent link='base'/><child link='a'/></joint>\n"
                              " <joint name='jc' type='continuous'><parent link='a'/><child link='c'/></joint>\n"
                              " <joint name='jbc' type='continuous'><parent link='base'/><child link='c'/><axis xyz='0 0 0'/></joint>\n"
                              "</robot>\n");
    char args[800];
    snprintf(args, sizeof args, "info --json '%s'", p);
    json_t *j = run_json(args, 1); /* errors: a loop in URDF, a zero axis */
    json_t *loops = json_object_get(j, "loops");
    assert_int_equal(json_array_size(loops), 1);
    json_t *l = json_array_get(loops, 0);
    /* breadth-first from the root: base-c is the shorter path, so a-c is cut */
    assert_string_equal(json_string_value(json_object_get(l, "cut_joint")), "jc");
    assert_int_equal(json_array_size(json_object_get(l, "links")), 3);
    json_t *diags = json_object_get(j, "diagnostics");
    int seen = 0;
    for (size_t i = 0; i < json_array_size(diags); i++) {
        json_t *g = json_array_get(diags, i);
        const char *code = json_string_value(json_object_get(g, "code"));
        assert_non_null(json_object_get(g, "severity"));
        assert_non_null(json_object_get(g, "message"));
        assert_string_equal(json_string_value(json_object_get(g, "file")), p);
        if (strcmp(code, "joint.axis_zero") == 0) {
            assert_int_equal(json_integer_value(json_object_get(g, "line")), 5);
            assert_string_equal(json_string_value(json_object_get(g, "severity")), "error");
            seen++;
        }
        if (strcmp(code, "topology.loop_forbidden") == 0) seen++;
    }
    assert_int_equal(seen, 2);
    json_decref(j);

    /* a file that is not XML: exit 1, the diagnostic in the JSON, file:line on stderr in text mode */
    p = write_tmp("junk.urdf", "<robot name='x'>\n<link name='a'>\n</robot>\n");
    snprintf(args, sizeof args, "info --json '%s'", p);
    j = run_json(args, 1);
    json_t *g = json_array_get(json_object_get(j, "diagnostics"), 0);
    assert_string_equal(json_string_value(json_object_get(g, "code")), "xml.malformed");
    json_decref(j);
    char *out, *err;
    snprintf(args, sizeof args, "fk '%s'", p);
    assert_int_equal(run(args, &out, &err), 1);
    char where[800];
    snprintf(where, sizeof where, "%s:3: error:", p);
    assert_non_null(strstr(err, where));
    assert_string_equal(out, "");
    free(out);
    free(err);
    assert_int_equal(run("info /nonexistent/robot.urdf", &out, &err), 1);
    assert_non_null(strstr(err, "/nonexistent/robot.urdf"));
    free(out);
    free(err);
}

static void test_fk_json(void **state) {
    (void)state;
    /* Kajita's D2 through the command: pelvis at 0.65, right knee bent */
    json_t *j = run_json("fk --json '" SAMPLE "' --base 0,0,0.65 --q "
                         "'{\"r_hip_pitch\": -0.43633231299858238, \"r_knee\": 0.87266462599716477, "
                         "\"r_ankle_pitch\": -0.43633231299858238}'",
                         0);
    json_t *links = json_object_get(j, "links");
    assert_int_equal(json_object_size(links), 28);
    json_t *shank = json_object_get(links, "r_shank");
    json_t *p = json_object_get(shank, "position");
    KG_ASSERT_NEAR(json_number_value(json_array_get(p, 0)), 0.126785479, 1e-9);
    KG_ASSERT_NEAR(json_number_value(json_array_get(p, 2)), 0.378107664, 1e-9);
    json_t *r = json_object_get(json_object_get(links, "r_foot"), "rotation");
    assert_int_equal(json_array_size(r), 3);
    KG_ASSERT_NEAR(json_number_value(json_array_get(json_array_get(r, 1), 1)), 1, 1e-15);
    assert_int_equal(json_array_size(json_object_get(j, "loops")), 0);
    json_decref(j);

    /* joints not named are zero; --q-file */
    const char *qf = write_tmp("q.json", "{\"l_knee\": 1.0}");
    char args[800];
    snprintf(args, sizeof args, "fk --json '%s' --q-file '%s'", SAMPLE, qf);
    j = run_json(args, 0);
    p = json_object_get(json_object_get(json_object_get(j, "links"), "l_ankle_link"), "position");
    /* knee at z = -0.3 below the hip, shank 0.3 rotated 1 rad about y */
    KG_ASSERT_NEAR(json_number_value(json_array_get(p, 0)), -0.3 * sin(1.0), 1e-15);
    KG_ASSERT_NEAR(json_number_value(json_array_get(p, 2)), -0.3 - 0.3 * cos(1.0), 1e-15);
    json_decref(j);
}

static void test_q_errors(void **state) {
    (void)state;
    const char *mimic = write_tmp("mimic.urdf",
                                  "<robot name='m'><link name='a'/><link name='b'/><link name='c'/>\n"
                                  "<joint name='lead' type='continuous'><parent link='a'/><child link='b'/></joint>\n"
                                  "<joint name='follow' type='continuous'><parent link='a'/><child link='c'/>\n"
                                  "<mimic joint='lead' multiplier='2'/></joint></robot>\n");
    struct {
        const char *args, *stderr_has;
    } cases[] = {
        {"fk '" SAMPLE "' --q '{\"no_such_joint\": 1}'", "no_such_joint"},
        {"fk '" SAMPLE "' --q '{\"r_sole_fixed\": 1}'", "fixed"},
        {"fk '" SAMPLE "' --q '{\"r_knee\": \"x\"}'", "number"},
        {"fk '" SAMPLE "' --q '[1, 2]'", "object"},
        {"fk '" SAMPLE "' --q '{bad json'", "JSON"},
        {"fk '" SAMPLE "' --base 1,2", "--base"},
        {"fk '" SAMPLE "' --frobnicate", "unknown option"},
        {"mass", "MODEL"},
        {"fk '" SAMPLE "' --q", "needs a value"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        char *out, *err;
        int st = run(cases[i].args, &out, &err);
        if (st != 2 || !strstr(err, cases[i].stderr_has))
            fail_msg("kinegraph %s: exit %d, stderr '%s'", cases[i].args, st, err);
        free(out);
        free(err);
    }
    char args[800], *out, *err;
    snprintf(args, sizeof args, "fk '%s' --q '{\"follow\": 1}'", mimic);
    assert_int_equal(run(args, &out, &err), 2);
    assert_non_null(strstr(err, "mimics joint 'lead'"));
    free(out);
    free(err);
    /* the follower is computed from its leader */
    snprintf(args, sizeof args, "fk --json '%s' --q '{\"lead\": 0.25}'", mimic);
    json_t *j = run_json(args, 0);
    json_t *r = json_object_get(json_object_get(json_object_get(j, "links"), "c"), "rotation");
    /* follower = 2 * 0.25 about the default axis x */
    KG_ASSERT_NEAR(json_number_value(json_array_get(json_array_get(r, 1), 1)), cos(0.5), 1e-15);
    KG_ASSERT_NEAR(json_number_value(json_array_get(json_array_get(r, 2), 1)), sin(0.5), 1e-15);
    json_decref(j);
}

static void test_mass_json(void **state) {
    (void)state;
    json_t *j = run_json("mass --json '" SAMPLE "' --base 0,0,0.65", 0);
    KG_ASSERT_NEAR(num(j, "mass"), 57.1, 1e-12);
    json_t *com = json_object_get(j, "com");
    assert_int_equal(json_array_size(com), 3);
    /* the sample is left-right symmetric: the com is on the sagittal plane */
    KG_ASSERT_NEAR(json_number_value(json_array_get(com, 1)), 0, 1e-15);
    json_t *in = json_object_get(j, "inertia");
    assert_int_equal(json_array_size(in), 3);
    KG_ASSERT_NEAR(json_number_value(json_array_get(json_array_get(in, 0), 1)),
                   json_number_value(json_array_get(json_array_get(in, 1), 0)), 0);
    json_t *links = json_object_get(j, "links");
    assert_int_equal(json_array_size(links), 28);
    json_t *l0 = json_array_get(links, 0);
    assert_string_equal(json_string_value(json_object_get(l0, "name")), "pelvis");
    KG_ASSERT_NEAR(num(l0, "mass"), 10, 0);
    KG_ASSERT_NEAR(json_number_value(json_array_get(json_object_get(l0, "com"), 2)), 0.70, 1e-15);
    json_decref(j);
    /* readable text without --json */
    char *out, *err;
    assert_int_equal(run("mass '" SAMPLE "'", &out, &err), 0);
    assert_non_null(strstr(out, "mass:    57.1 kg"));
    free(out);
    free(err);
    assert_int_equal(run("info '" SAMPLE "'", &out, &err), 0);
    assert_non_null(strstr(out, "links:   28 (root 'pelvis')"));
    assert_non_null(strstr(out, "23 dof"));
    free(out);
    free(err);
}

static void test_jacobian_json(void **state) {
    (void)state;
    /* straight leg at the zero pose: the knee (axis y, through the r_shank origin) moves
     * the sole, d below it, at (-d, 0, 0) and turns it about y */
    json_t *fk = run_json("fk --json '" SAMPLE "'", 0), *links = json_object_get(fk, "links");
    double zk = json_number_value(json_array_get(json_object_get(json_object_get(links, "r_shank"), "position"), 2));
    double zs = json_number_value(json_array_get(json_object_get(json_object_get(links, "r_sole"), "position"), 2));
    json_decref(fk);
    json_t *j = run_json("jacobian --json '" SAMPLE "' --tip r_sole", 0);
    json_t *names = json_object_get(j, "joints"), *J = json_object_get(j, "J");
    assert_int_equal(json_array_size(names), 6);
    assert_int_equal(json_array_size(J), 6);
    int knee = -1;
    for (size_t k = 0; k < json_array_size(names); k++)
        if (!strcmp(json_string_value(json_array_get(names, k)), "r_knee")) knee = (int)k;
    assert_true(knee >= 0);
    const double want[6] = {-(zk - zs), 0, 0, 0, 1, 0};
    for (int r = 0; r < 6; r++)
        KG_ASSERT_NEAR(json_number_value(json_array_get(json_array_get(J, (size_t)r), (size_t)knee)), want[r], 1e-15);
    /* a straight leg is singular: hip and ankle pitch and the knee all move the sole along x only */
    KG_ASSERT_NEAR(num(j, "manipulability"), 0, 1e-12);
    assert_int_equal(json_array_size(json_object_get(j, "singular_values")), 6);
    assert_non_null(json_object_get(json_object_get(j, "ellipsoids"), "translation"));
    json_decref(j);
    char *out, *err;
    assert_int_equal(run("jacobian '" SAMPLE "'", &out, &err), 2); /* which tip? */
    free(out);
    free(err);
    assert_int_equal(run("jacobian '" SAMPLE "' --tip nowhere", &out, &err), 2);
    assert_non_null(strstr(err, "no link 'nowhere'"));
    free(out);
    free(err);
}

static void test_mass_from_geometry(void **state) {
    (void)state;
    json_t *j = run_json("mass --json '" SAMPLE "' --from-geometry --density 500", 0);
    KG_ASSERT_NEAR(num(j, "mass"), 57.1, 1e-12); /* the declared values stay where they were */
    json_t *g = json_object_get(j, "geometry");
    KG_ASSERT_NEAR(num(g, "density"), 500, 0);
    assert_string_equal(json_string_value(json_object_get(g, "prefer")), "collision");
    KG_ASSERT_NEAR(num(g, "mass"), 500 * num(g, "volume"), 1e-12);
    assert_int_equal(json_integer_value(json_object_get(g, "missing_meshes")), 0);
    /* the pelvis: a 0.24 x 0.26 x 0.12 collision box (MuJoCo's 3.744 kg at 1000 kg/m^3,
     * tests/reference/mass/sample_humanoid.json), 10 kg declared */
    json_t *l0 = json_array_get(json_object_get(j, "links"), 0), *lg = json_object_get(l0, "geometry");
    assert_string_equal(json_string_value(json_object_get(lg, "source")), "collision");
    KG_ASSERT_NEAR(num(lg, "volume"), 0.003744, 1e-15);
    KG_ASSERT_NEAR(num(lg, "mass"), 1.872, 1e-12);
    assert_true(json_is_true(json_object_get(lg, "closed")));
    KG_ASSERT_NEAR(num(json_object_get(l0, "check"), "implied_density"), 10 / 0.003744, 1e-9);
    /* links without geometry have no volume to compare with: nulls */
    json_t *links = json_object_get(j, "links");
    int sole = 0;
    for (size_t k = 0; k < json_array_size(links); k++) {
        json_t *l = json_array_get(links, k);
        if (strcmp(json_string_value(json_object_get(l, "name")), "r_sole")) continue;
        sole = 1;
        assert_true(json_is_null(json_object_get(json_object_get(l, "geometry"), "source")));
        assert_true(json_is_null(json_object_get(json_object_get(l, "check"), "implied_density")));
    }
    assert_true(sole);
    json_decref(j);
    char *out, *err;
    assert_int_equal(run("mass '" SAMPLE "' --from-geometry --density 0", &out, &err), 2);
    assert_non_null(strstr(err, "--density"));
    free(out);
    free(err);
    assert_int_equal(run("mass '" SAMPLE "' --density 800", &out, &err), 2); /* without --from-geometry */
    free(out);
    free(err);
    assert_int_equal(run("mass '" SAMPLE "' --from-geometry --geometry solid", &out, &err), 2);
    free(out);
    free(err);
}

static void test_workspace_json(void **state) {
    (void)state;
    char args[1200];
    snprintf(args, sizeof args, "workspace --json '" SAMPLE "' --tip r_hand --samples 20000 --voxel 0.05 --seed 3 --ply '%s/w.ply' --png '%s/w.png'",
             tmpdir, tmpdir);
    json_t *j = run_json(args, 0);
    KG_ASSERT_NEAR(num(j, "samples"), 20000, 0);
    KG_ASSERT_NEAR(num(j, "voxel"), 0.05, 0);
    double nvox = num(j, "voxels");
    assert_true(nvox > 100 && nvox <= 20000);
    /* the boundary-corrected volume lies below the voxels' total */
    assert_true(num(j, "volume") > 0 && num(j, "volume") <= num(j, "voxel_volume"));
    KG_ASSERT_NEAR(num(j, "voxel_volume"), nvox * 0.05 * 0.05 * 0.05, 1e-12);
    json_t *bb = json_object_get(j, "bounding_box");
    for (size_t a = 0; a < 3; a++)
        assert_true(json_number_value(json_array_get(json_object_get(bb, "min"), a)) <
                    json_number_value(json_array_get(json_object_get(bb, "max"), a)));
    /* the convergence curve ends at the totals and never decreases */
    json_t *cv = json_object_get(j, "convergence");
    assert_true(json_array_size(cv) > 5);
    double last = 0;
    for (size_t k = 0; k < json_array_size(cv); k++) {
        double v = num(json_array_get(cv, k), "voxels");
        assert_true(v >= last);
        last = v;
    }
    KG_ASSERT_NEAR(last, nvox, 0);
    KG_ASSERT_NEAR(num(json_array_get(cv, json_array_size(cv) - 1), "samples"), 20000, 0);
    json_t *mp = json_object_get(j, "manipulability");
    assert_true(num(mp, "min") <= num(mp, "mean") && num(mp, "mean") <= num(mp, "max"));
    json_decref(j);
    char p[800];
    snprintf(p, sizeof p, "%s/w.ply", tmpdir);
    char *ply = kg_test_slurp(p);
    assert_int_equal(strncmp(ply, "ply\n", 4), 0);
    char want[64];
    snprintf(want, sizeof want, "element vertex %.0f\n", nvox);
    assert_non_null(strstr(ply, want));
    free(ply);
    snprintf(p, sizeof p, "%s/w.png", tmpdir);
    char *png = kg_test_slurp(p);
    assert_int_equal(memcmp(png, "\x89PNG", 4), 0);
    free(png);
    char *out, *err;
    assert_int_equal(run("workspace '" SAMPLE "' --tip r_hand --voxel -1", &out, &err), 2);
    free(out);
    free(err);
}

static void test_collisions_json(void **state) {
    (void)state;
    char args[1200];
    snprintf(args, sizeof args, "collisions --json '" SAMPLE "' --samples 20000 --min-samples 20000 --srdf '%s/s.srdf'", tmpdir);
    json_t *j = run_json(args, 0);
    KG_ASSERT_NEAR(num(j, "samples"), 20000, 0);
    json_t *pairs = json_object_get(j, "pairs");
    /* 15 links with collision geometry: every pair once */
    assert_int_equal(json_array_size(pairs), 15 * 14 / 2);
    int never = 0, adjacent = 0, sometimes = 0;
    for (size_t k = 0; k < json_array_size(pairs); k++) {
        json_t *pr = json_array_get(pairs, k);
        const char *cls = json_string_value(json_object_get(pr, "class"));
        assert_non_null(json_object_get(pr, "a"));
        assert_non_null(json_object_get(pr, "b"));
        if (!strcmp(cls, "never")) {
            never++;
            KG_ASSERT_NEAR(num(pr, "hits"), 0, 0);
            KG_ASSERT_NEAR(num(pr, "p_upper"), 3.0 / 20000, 1e-15); /* the rule of three */
        } else if (!strcmp(cls, "adjacent")) {
            adjacent++;
        } else if (!strcmp(cls, "sometimes")) {
            sometimes++;
            assert_true(num(pr, "hits") > 0);
        }
    }
    /* the sample's tree: 14 joints between links with geometry, or through
     * geometry-less links (hip and shoulder yaw/roll links carry visual geometry only) */
    assert_int_equal(adjacent, 14);
    assert_true(never > 0 && sometimes > 0);
    json_decref(j);
    char p[800];
    snprintf(p, sizeof p, "%s/s.srdf", tmpdir);
    char *srdf = kg_test_slurp(p);
    assert_non_null(strstr(srdf, "<disable_collisions"));
    assert_non_null(strstr(srdf, "reason=\"Adjacent\""));
    assert_non_null(strstr(srdf, "reason=\"Never\""));
    free(srdf);
}

static void test_ik_json(void **state) {
    (void)state;
    /* the right hand 30 cm in front of the torso's origin, 20 cm to the right, 10 cm up */
    json_t *j = run_json("ik --json '" SAMPLE "' --tip r_hand --base torso --target 0.3,-0.2,0.1", 0);
    assert_true(json_is_true(json_object_get(j, "success")));
    assert_true(num(j, "position_error") <= 1e-5);
    json_t *p = json_object_get(json_object_get(j, "tip"), "position");
    KG_ASSERT_NEAR(json_number_value(json_array_get(p, 0)), 0.3, 1e-5);
    KG_ASSERT_NEAR(json_number_value(json_array_get(p, 1)), -0.2, 1e-5);
    KG_ASSERT_NEAR(json_number_value(json_array_get(p, 2)), 0.1, 1e-5);
    /* only the arm between torso and hand moved */
    json_t *joints = json_object_get(j, "joints");
    KG_ASSERT_NEAR(num(joints, "r_knee"), 0, 0);
    KG_ASSERT_NEAR(num(joints, "waist_yaw"), 0, 0);
    assert_true(fabs(num(joints, "r_elbow")) > 0.1);
    json_decref(j);
    /* out of reach: exit 4, the best pose still printed */
    j = run_json("ik --json '" SAMPLE "' --tip r_hand --base torso --target 2,0,0 --max-iterations 200", 4);
    assert_true(json_is_false(json_object_get(j, "success")));
    assert_true(num(j, "position_error") > 1);
    json_decref(j);
    char *out, *err;
    assert_int_equal(run("ik '" SAMPLE "' --tip r_hand --target 1,2", &out, &err), 2);
    free(out);
    free(err);
    assert_int_equal(run("ik '" SAMPLE "' --tip r_hand --target 0,0,0 --axes x,q", &out, &err), 2);
    free(out);
    free(err);
}

#define WALK KG_SOURCE_DIR "/samples/walk.bvh"

static void test_bvh_commands(void **state) {
    (void)state;
    json_t *j = run_json("info --json '" WALK "'", 0);
    assert_int_equal(json_integer_value(json_object_get(j, "frames")), 120);
    KG_ASSERT_NEAR(num(j, "frame_time"), 1.0 / 30, 1e-7);
    assert_int_equal(json_integer_value(json_object_get(j, "channels")), 66);
    KG_ASSERT_NEAR(num(j, "height"), 175, 1e-9); /* toe end to head end in the rest pose, cm */
    assert_string_equal(json_string_value(json_object_get(j, "unit_guess")), "cm");
    assert_string_equal(json_string_value(json_object_get(j, "format")), "bvh");
    assert_string_equal(json_string_value(json_object_get(j, "root")), "world");
    json_decref(j);
    /* fk --frame: joints and End Sites, same schema as for URDF */
    j = run_json("fk --json '" WALK "' --frame 0", 0);
    json_t *links = json_object_get(j, "links");
    assert_non_null(json_object_get(links, "Head_End"));
    json_t *hips = json_object_get(json_object_get(links, "Hips"), "position");
    KG_ASSERT_NEAR(json_number_value(json_array_get(hips, 1)), 88, 1e-12); /* frame 0: 89 - cos 0 */
    json_decref(j);
    char *out, *err;
    assert_int_equal(run("fk '" WALK "' --frame 120", &out, &err), 2); /* frames are 0..119 */
    assert_non_null(strstr(err, "0 to 119"));
    free(out);
    free(err);
    /* convert: BVH, CSV, JSON; atomic; exit codes */
    char args[1200];
    const char *outs[] = {"w.bvh", "w.csv", "w.json"};
    for (int k = 0; k < 3; k++) {
        snprintf(args, sizeof args, "convert '%s' '%s/%s'", WALK, tmpdir, outs[k]);
        assert_int_equal(run(args, &out, &err), 0);
        free(out);
        free(err);
    }
    snprintf(args, sizeof args, "info --json '%s/w.bvh'", tmpdir);
    j = run_json(args, 0);
    assert_int_equal(json_integer_value(json_object_get(j, "frames")), 120);
    json_decref(j);
    snprintf(args, sizeof args, "convert '%s' '%s/w.xyz'", WALK, tmpdir);
    assert_int_equal(run(args, &out, &err), 2);
    free(out);
    free(err);
    snprintf(args, sizeof args, "convert '%s' '%s/no/such/dir/w.csv'", WALK, tmpdir);
    assert_int_equal(run(args, &out, &err), 3);
    assert_non_null(strstr(err, "cannot write"));
    free(out);
    free(err);
    /* a URDF has no motion: the trajectory is one frame at the rest pose, and says so */
    snprintf(args, sizeof args, "convert '%s' '%s/h.csv'", SAMPLE, tmpdir);
    assert_int_equal(run(args, &out, &err), 0);
    assert_non_null(strstr(err, "1 defaulted"));
    free(out);
    free(err);
    snprintf(args, sizeof args, "%s/h.csv", tmpdir);
    FILE *hf = fopen(args, "r");
    assert_non_null(hf);
    int lines = 0;
    for (int ch; (ch = fgetc(hf)) != EOF;) lines += ch == '\n';
    fclose(hf);
    assert_int_equal(lines, 2); /* the header and the rest frame */
    /* an input with errors is not converted (and nothing is left behind) */
    const char *bad = write_tmp("bad.bvh", "HIERARCHY\nROOT a\n{\n OFFSET 0 0 0\n CHANNELS 1 Xrotation\n}\nMOTION\n"
                                           "Frames: 3\nFrame Time: 0.1\n1\n2\n");
    snprintf(args, sizeof args, "convert '%s' '%s/bad.csv'", bad, tmpdir);
    assert_int_equal(run(args, &out, &err), 1);
    assert_non_null(strstr(err, ":11: error:"));
    free(out);
    free(err);
    char cmd[1400];
    snprintf(cmd, sizeof cmd, "ls '%s' | grep -c -e bad.csv -e '\\.tmp\\.'", tmpdir);
    FILE *p = popen(cmd, "r");
    int count = -1;
    assert_int_equal(fscanf(p, "%d", &count), 1);
    pclose(p);
    assert_int_equal(count, 0);
    snprintf(args, sizeof args, "convert --force '%s' '%s/bad.csv'", bad, tmpdir);
    assert_int_equal(run(args, &out, &err), 1); /* written, but the input had errors */
    free(out);
    free(err);
}


/* retarget: the report's fields, the LAFAN1 CSV layout (no header; 7 + joints
 * per row), usage and output errors. */
static void test_retarget(void **state) {
    (void)state;
    char args[2048], path[800];
    snprintf(path, sizeof path, "%s/walk.csv", tmpdir);
    snprintf(args, sizeof args, "retarget --json '%s' --robot '%s' -o '%s'", WALK, SAMPLE, path);
    json_t *j = run_json(args, 0);
    assert_int_equal(json_integer_value(json_object_get(j, "frames")), 120);
    assert_string_equal(json_string_value(json_object_get(j, "source_family")), "cmu");
    assert_int_equal(json_integer_value(json_object_get(j, "limit_violations")), 0);
    assert_int_equal(json_integer_value(json_object_get(j, "velocity_violations")), 0);
    assert_true(num(j, "foot_slip_max_mm") <= 2);
    assert_true(num(j, "penetration_max_mm") <= 5);
    assert_true(num(j, "zmp_outside_percent") <= 5);
    assert_true(num(j, "com_outside_double_support_percent") == 0);
    assert_int_equal(json_integer_value(json_object_get(j, "narrowed_stances")), 0); /* a walk */
    assert_int_equal(json_integer_value(json_object_get(j, "delayed_landing_frames")), 0);
    const char *fields[] = {"keypoint_error_mean_mm", "keypoint_error_max_mm", "contact_phases", "float_max_mm",
                            "self_collision_frames", "self_collision_depth_max_mm", "com_margin_min_mm",
                            "zmp_margin_min_mm", "seconds"};
    for (size_t k = 0; k < sizeof fields / sizeof *fields; k++) assert_non_null(json_object_get(j, fields[k]));
    json_decref(j);
    char *csv = kg_test_slurp(path);
    assert_non_null(csv);
    int rows = 0, commas = 0;
    for (char *c = csv; *c; c++) {
        if (*c == '\n') rows++;
        if (*c == ',' && rows == 0) commas++;
    }
    assert_int_equal(rows, 120);
    assert_int_equal(commas + 1, 7 + 23); /* root x y z qx qy qz qw, 23 joints */
    assert_true(csv[0] == '-' || (csv[0] >= '0' && csv[0] <= '9')); /* no header */
    /* the same frame as the headed layout: x y z qx qy qz qw q... = its root_x.. root_qw.., q... */
    char path2[800];
    snprintf(path2, sizeof path2, "%s/walk_kg.csv", tmpdir);
    snprintf(args, sizeof args, "retarget '%s' --robot '%s' -o '%s' --csv-layout kinegraph", WALK, SAMPLE, path2);
    char *o2, *e2;
    assert_int_equal(run(args, &o2, &e2), 0);
    free(o2), free(e2);
    char *kg = kg_test_slurp(path2);
    assert_non_null(kg);
    double la[30], kv[31];
    char *p = csv, *q = strchr(kg, '\n') + 1;
    for (int k = 0; k < 30; k++) la[k] = strtod(p, &p), p += *p == ',';
    for (int k = 0; k < 31; k++) kv[k] = strtod(q, &q), q += *q == ',';
    const int from[7] = {1, 2, 3, 5, 6, 7, 4};
    for (int k = 0; k < 7; k++) assert_true(la[k] == kv[from[k]]);
    for (int k = 7; k < 30; k++) assert_true(la[k] == kv[k + 1]);
    free(kg);
    free(csv);
    char *out, *err;
    snprintf(args, sizeof args, "retarget '%s' -o '%s'", WALK, path);
    assert_int_equal(run(args, &out, &err), 2);
    assert_non_null(strstr(err, "--robot"));
    free(out), free(err);
    snprintf(args, sizeof args, "retarget '%s' --robot '%s' -o /nonexistent/dir/x.csv", WALK, SAMPLE);
    assert_int_equal(run(args, &out, &err), 3);
    free(out), free(err);
    /* several clips onto one prepared robot: each clip's bytes as alone, one
     * report per clip and an array on stdout; a clip that fails does not stop
     * the others (exit status 1) */
    char *walk = kg_test_slurp(WALK);
    assert_non_null(walk);
    const char *copy = write_tmp("step.bvh", walk);
    free(walk);
    snprintf(args, sizeof args,
             "retarget --json '%s' /nonexistent.bvh '%s' --robot '%s' -o '%s/b_%%s.csv' --report '%s/b_%%s.json'", WALK,
             copy, SAMPLE, tmpdir, tmpdir);
    assert_int_equal(run(args, &out, &err), 1);
    assert_non_null(strstr(err, "/nonexistent.bvh"));
    json_error_t jerr;
    json_t *arr = json_loads(out, 0, &jerr);
    assert_true(json_is_array(arr) && json_array_size(arr) == 2);
    json_decref(arr);
    free(out), free(err);
    char *alone = kg_test_slurp(path);
    const char *names[] = {"b_walk", "b_step"};
    for (int k = 0; k < 2; k++) {
        char f[900];
        snprintf(f, sizeof f, "%s/%s.csv", tmpdir, names[k]);
        char *b = kg_test_slurp(f);
        assert_non_null(b);
        assert_string_equal(b, alone);
        free(b);
        snprintf(f, sizeof f, "%s/%s.json", tmpdir, names[k]);
        json_t *r = json_load_file(f, 0, &jerr);
        assert_int_equal(json_integer_value(json_object_get(r, "frames")), 120);
        json_decref(r);
    }
    free(alone);
    snprintf(args, sizeof args, "retarget '%s' '%s' --robot '%s' -o '%s/x.csv'", WALK, copy, SAMPLE, tmpdir);
    assert_int_equal(run(args, &out, &err), 2); /* no %s */
    free(out), free(err);
    snprintf(args, sizeof args, "retarget '%s' '%s' --robot '%s' -o '%s/%%s.csv'", WALK, WALK, SAMPLE, tmpdir);
    assert_int_equal(run(args, &out, &err), 2); /* one name twice */
    assert_non_null(strstr(err, "both"));
    free(out), free(err);
    /* --srdf: a link the model lacks is a warning; a pair without links an
     * error, and nothing is written (that the pairs an SRDF disables are
     * neither kept apart nor counted, test_retarget shows on a corpus robot:
     * the sample's arms touch nothing but what they touch at rest) */
    const char *srdf = write_tmp("humanoid.srdf",
                                 "<?xml version=\"1.0\"?>\n<robot name=\"humanoid\">\n"
                                 "  <disable_collisions link1=\"torso\" link2=\"l_forearm\" reason=\"Never\"/>\n"
                                 "  <disable_collisions link1=\"r_forearm\" link2=\"torso\"/>\n"
                                 "  <disable_collisions link1=\"torso\" link2=\"tail\"/>\n</robot>\n");
    snprintf(args, sizeof args, "retarget --json --no-avoidance '%s' --robot '%s' --srdf '%s' -o '%s/n.csv'", WALK,
             SAMPLE, srdf, tmpdir);
    assert_int_equal(run(args, &out, &err), 0);
    assert_non_null(strstr(err, "humanoid.srdf:5: warning: 'tail' is not a link"));
    j = json_loads(out, 0, &jerr);
    assert_int_equal(json_integer_value(json_object_get(j, "self_collision_frames")), 0);
    json_decref(j);
    free(out), free(err);
    const char *bad = write_tmp("bad.srdf", "<robot>\n<disable_collisions link1=\"torso\"/>\n</robot>\n");
    snprintf(args, sizeof args, "retarget '%s' --robot '%s' --srdf '%s' -o '%s/never.csv'", WALK, SAMPLE, bad, tmpdir);
    assert_int_equal(run(args, &out, &err), 1);
    assert_non_null(strstr(err, "bad.srdf:2: error"));
    free(out), free(err);
    snprintf(args, sizeof args, "%s/never.csv", tmpdir);
    assert_int_equal(access(args, F_OK), -1);
}

/* The frames of a headed CSV (--csv-layout kinegraph): its lines after the
 * header, each without its time column into rest[] (when not NULL) and its
 * time into times[]. Returns the number of frames. */
static int csv_frames(char *csv, double *times, char **rest, int max) {
    char *line = strchr(csv, '\n');
    int n = 0;
    while (line && line[1] && n < max) {
        line++;
        char *end = strchr(line, '\n');
        if (end) *end = 0;
        times[n] = strtod(line, NULL);
        if (rest) rest[n] = strchr(line, ',');
        n++;
        line = end;
    }
    return n;
}

/* retarget --fps, --jobs and --skip-existing. */
static void test_retarget_batch(void **state) {
    (void)state;
    char args[2048], path[800], *out, *err;
    /* --fps 60 on the sample walk (120 frames, "Frame Time: 0.0333333": 30 frames/s
     * to seven decimals): 239 frames, the time column stepping by 1/60 s from 0,
     * and every other one the clip-rate frame itself */
    enum { WALK_FRAMES = 120, AT_60 = 2 * (WALK_FRAMES - 1) + 1, MAX_ROWS = 512 };
    snprintf(path, sizeof path, "%s/f60.csv", tmpdir);
    snprintf(args, sizeof args, "retarget '%s' --robot '%s' -o '%s' --csv-layout kinegraph --fps 60", WALK, SAMPLE,
             path);
    assert_int_equal(run(args, &out, &err), 0);
    assert_non_null(strstr(err, "written as 239 frames at 60 frames/s"));
    free(out), free(err);
    static double t60[MAX_ROWS], t30[MAX_ROWS];
    static char *r60[MAX_ROWS], *r30[MAX_ROWS];
    char *f60 = kg_test_slurp(path);
    assert_int_equal(csv_frames(f60, t60, r60, MAX_ROWS), AT_60);
    for (int k = 0; k < AT_60; k++) KG_ASSERT_NEAR(t60[k], k / 60.0, 1e-12);
    for (int k = 1; k < AT_60; k++) KG_ASSERT_NEAR(t60[k] - t60[k - 1], 1 / 60.0, 1e-12);
    snprintf(path, sizeof path, "%s/f30.csv", tmpdir);
    snprintf(args, sizeof args, "retarget '%s' --robot '%s' -o '%s' --csv-layout kinegraph", WALK, SAMPLE, path);
    assert_int_equal(run(args, &out, &err), 0);
    free(out), free(err);
    char *f30 = kg_test_slurp(path);
    assert_int_equal(csv_frames(f30, t30, r30, MAX_ROWS), WALK_FRAMES);
    for (int k = 0; k < WALK_FRAMES; k++) assert_string_equal(r60[2 * k], r30[k]);
    free(f60), free(f30);
    const char *bad[] = {"--fps 0", "--fps -30", "--fps abc", "--fps nan", "--jobs 0", "--jobs 2.5", "--jobs x",
                         "--jobs 100000", "--fps", "--jobs", "--csv-contacts" /* LAFAN1 has no columns for them */};
    for (size_t k = 0; k < sizeof bad / sizeof *bad; k++) {
        snprintf(args, sizeof args, "retarget '%s' --robot '%s' -o '%s/never.csv' %s", WALK, SAMPLE, tmpdir, bad[k]);
        if (run(args, &out, &err) != 2) fail_msg("%s: not a usage error: %s", bad[k], err);
        free(out), free(err);
    }
    /* a rate that would make more values than KG_LIMIT_RESAMPLE_VALUES (10^8): --fps 1e7 on the 4 s
     * walk is 4 * 10^7 frames of 30 values (the 23 coordinates, the root's 7); the limit lowered through
     * the environment refuses --fps 60 (239 frames, 7 170 values) too: refused before any frame is
     * made, nothing written, for retarget and convert alike */
    for (int k = 0; k < 3; k++) {
        const char *fps = k == 0 ? "1e7" : "60";
        if (k > 0) setenv("KG_LIMIT_RESAMPLE_VALUES", "7000", 1);
        snprintf(path, sizeof path, "%s/too_many.csv", tmpdir);
        if (k < 2)
            snprintf(args, sizeof args, "retarget '%s' --robot '%s' -o '%s' --fps %s", WALK, SAMPLE, path, fps);
        else snprintf(args, sizeof args, "convert '%s' '%s' --fps %s", WALK, path, fps);
        int st = run(args, &out, &err);
        unsetenv("KG_LIMIT_RESAMPLE_VALUES"); /* before any assert: a failure must not leave it to later tests */
        assert_int_equal(st, 1);
        assert_non_null(strstr(err, "[resample.too_many_frames]"));
        assert_int_equal(access(path, F_OK), -1);
        free(out), free(err);
    }
    /* --jobs 2 on three clips: the bytes of --jobs 1, reports and messages in
     * the clips' order */
    char *walk = kg_test_slurp(WALK), clips[3 * 800] = "";
    const char *names[] = {"c1", "c2", "c3"};
    for (int k = 0; k < 3; k++) {
        char name[16];
        snprintf(name, sizeof name, "%s.bvh", names[k]);
        snprintf(clips + strlen(clips), sizeof clips - strlen(clips), "'%s' ", write_tmp(name, walk));
    }
    free(walk);
    for (int jobs = 1; jobs <= 2; jobs++) {
        snprintf(args, sizeof args,
                 "retarget --json %s --robot '%s' -o '%s/j%d_%%s.csv' --report '%s/j%d_%%s.json' --jobs %d", clips,
                 SAMPLE, tmpdir, jobs, tmpdir, jobs, jobs);
        assert_int_equal(run(args, &out, &err), 0);
        json_t *arr = json_loads(out, 0, NULL);
        assert_int_equal(json_array_size(arr), 3);
        const char *at = err;
        for (int k = 0; k < 3; k++) {
            assert_non_null(strstr(json_string_value(json_object_get(json_array_get(arr, k), "clip")), names[k]));
            char wrote[64];
            snprintf(wrote, sizeof wrote, "j%d_%s.csv: ", jobs, names[k]);
            assert_non_null(at = strstr(at, wrote)); /* after the clip before's */
        }
        json_decref(arr);
        free(out), free(err);
    }
    for (int k = 0; k < 3; k++) {
        char f[900];
        snprintf(f, sizeof f, "%s/j1_%s.csv", tmpdir, names[k]);
        char *one = kg_test_slurp(f);
        snprintf(f, sizeof f, "%s/j2_%s.csv", tmpdir, names[k]);
        char *two = kg_test_slurp(f);
        assert_true(one[0] && !strcmp(one, two));
        free(one), free(two);
    }
    /* --skip-existing: clips whose output is there are skipped and their
     * reports read back for --json; one whose report is gone is left out and
     * said; one whose output is gone is retargeted */
    snprintf(path, sizeof path, "%s/j2_c2.csv", tmpdir);
    assert_int_equal(remove(path), 0);
    snprintf(path, sizeof path, "%s/j2_c3.json", tmpdir);
    assert_int_equal(remove(path), 0);
    snprintf(args, sizeof args,
             "retarget --json %s --robot '%s' -o '%s/j2_%%s.csv' --report '%s/j2_%%s.json' --jobs 2 --skip-existing",
             clips, SAMPLE, tmpdir, tmpdir);
    assert_int_equal(run(args, &out, &err), 0);
    json_t *arr = json_loads(out, 0, NULL);
    assert_int_equal(json_array_size(arr), 2); /* c1 read back, c2 retargeted */
    assert_non_null(strstr(json_string_value(json_object_get(json_array_get(arr, 0), "clip")), "c1"));
    assert_non_null(strstr(json_string_value(json_object_get(json_array_get(arr, 1), "clip")), "c2"));
    json_decref(arr);
    assert_non_null(strstr(err, "skipped"));
    assert_non_null(strstr(err, "j2_c1.csv exists"));
    assert_non_null(strstr(err, "j2_c3.csv exists"));
    assert_non_null(strstr(err, "left out of --json"));
    assert_non_null(strstr(err, "wrote"));
    assert_null(strstr(strstr(err, "wrote") + 1, "wrote")); /* c2 only */
    assert_null(strchr(err, '\r')); /* no progress line: stderr is not a terminal */
    free(out), free(err);
    snprintf(path, sizeof path, "%s/j1_c2.csv", tmpdir);
    char *one = kg_test_slurp(path);
    snprintf(path, sizeof path, "%s/j2_c2.csv", tmpdir);
    char *again = kg_test_slurp(path);
    assert_string_equal(one, again);
    free(one), free(again);
}

/* Issue 26: a write that fails (disk full, here a file size limit) made
 * convert read the diagnostics with a count of 0 and crash. Now: exit 3, the
 * reason on stderr, no file and no temporary file left. */
static void test_convert_write_fails(void **state) {
    (void)state;
    char args[2048], *out, *err;
    /* ulimit -f counts 1024-byte blocks: 8 KB, far less than the sample's COLLADA */
    snprintf(args, sizeof args, "convert '%s' '%s/full.dae'", SAMPLE, tmpdir);
    char shell[2400];
    /* run() puts the binary first: a harmless --version, then the limited subshell */
    snprintf(shell, sizeof shell, "--version >/dev/null; (ulimit -f 8; '%s/kinegraph' %s)", KG_BINARY_DIR, args);
    int st = run(shell, &out, &err);
    if (st != 3) fail_msg("exit %d, expected 3; stderr: %s", st, err);
    assert_non_null(strstr(err, "[io.write]"));
    assert_non_null(strstr(err, "full.dae"));
    free(out);
    free(err);
    /* nothing left: neither the target nor a temporary beside it */
    snprintf(shell, sizeof shell, "ls -A '%s' | grep -c full > '%s/count'", tmpdir, tmpdir);
    assert_int_equal(system(shell) != -1, 1);
    snprintf(shell, sizeof shell, "%s/count", tmpdir);
    char *count = kg_test_slurp(shell);
    assert_string_equal(count, "0\n");
    free(count);
}

/* highbar: the CSV's header and one row per frame, the cut visible in the
 * grips column; a bad number is a usage error. */
static void test_highbar_csv(void **state) {
    (void)state;
    char *out, *err;
    assert_int_equal(run("highbar --duration 0.1 --cut-time 0.05 --fps 100", &out, &err), 0);
    assert_true(strncmp(out, "time,grips,closure_error,base_x,", 32) == 0);
    int rows = 0, one = 0;
    for (const char *l = strchr(out, '\n'); l && l[1]; l = strchr(l + 1, '\n')) {
        rows++;
        if (strstr(l + 1, ",1,") == strchr(l + 1, ',')) one++; /* grips == 1 */
    }
    assert_int_equal(rows, 11);
    assert_int_equal(one, 6);
    assert_non_null(strstr(err, "11 frames"));
    free(out);
    free(err);
    assert_int_equal(run("highbar --dt nope", &out, &err), 2);
    free(out);
    free(err);
    /* more steps than KG_HIGH_BAR_MAX_STEPS (10^7): refused, not run for days; a cut after the end:
     * never made (both grips held to the end) */
    assert_int_equal(run("highbar --duration 1e9", &out, &err), 2);
    assert_non_null(strstr(err, "KG_HIGH_BAR_MAX_STEPS"));
    free(out);
    free(err);
    assert_int_equal(run("highbar --duration 0.1 --cut-time 1e300 --fps 100", &out, &err), 0);
    assert_non_null(strstr(err, "11 frames (0 after the cut"));
    free(out);
    free(err);
}

/* highbar --json: a summary of what it wrote (the CSV of -o), which it needs:
 * without a file the motion would go to stdout with it. */
static void test_highbar_json(void **state) {
    (void)state;
    char args[900], csv[700], *out, *err;
    snprintf(csv, sizeof csv, "%s/highbar.csv", tmpdir);
    snprintf(args, sizeof args, "highbar --duration 0.1 --cut-time 0.05 --fps 100 -o '%s' --json", csv);
    json_t *j = run_json(args, 0);
    assert_string_equal(json_string_value(json_object_get(j, "output")), csv);
    assert_string_equal(json_string_value(json_object_get(j, "model")), "high_bar");
    assert_int_equal(json_integer_value(json_object_get(j, "frames")), 11);
    assert_int_equal(json_integer_value(json_object_get(j, "frames_after_cut")), 6);
    KG_ASSERT_NEAR(num(j, "end_time"), 0.1, 1e-9);
    KG_ASSERT_NEAR(num(j, "duration"), 0.1, 0);
    KG_ASSERT_NEAR(num(j, "cut_time"), 0.05, 0);
    KG_ASSERT_NEAR(num(j, "dt"), 0.0005, 0); /* the defaults of kg_high_bar_default */
    KG_ASSERT_NEAR(num(j, "swing"), 1, 0);
    KG_ASSERT_NEAR(num(j, "fps"), 100, 0);
    KG_ASSERT_NEAR(num(j, "kp"), 100, 0);
    KG_ASSERT_NEAR(num(j, "kd"), 3, 0);
    const char *closure[] = {"closure_error_both_max", "closure_error_left_max"};
    for (int k = 0; k < 2; k++) { /* the grips stay closed */
        assert_true(json_is_number(json_object_get(j, closure[k])));
        assert_true(num(j, closure[k]) >= 0 && num(j, closure[k]) < 1e-3);
    }
    /* the file holds what the summary says: the frames, and its coordinates after time, grips, closure_error */
    char *text = kg_test_slurp(csv);
    int rows = -1, columns = 1;
    for (const char *l = text; *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : l + strlen(l)) rows++;
    for (const char *p = text; *p && *p != '\n'; p++) columns += *p == ',';
    assert_int_equal(rows, 11);
    assert_int_equal(columns, 3 + json_integer_value(json_object_get(j, "coordinates")));
    free(text);
    json_decref(j);
    /* a usage error without -o, or to stdout: nothing on stdout */
    const char *bad[] = {"highbar --duration 0.1 --json", "highbar --duration 0.1 -o - --json"};
    for (int k = 0; k < 2; k++) {
        assert_int_equal(run(bad[k], &out, &err), 2);
        assert_string_equal(out, "");
        assert_non_null(strstr(err, "--json"));
        free(out);
        free(err);
    }
    /* a folder that is not there: exit 3, no summary */
    snprintf(args, sizeof args, "highbar --duration 0.1 -o '%s/no/such/dir/h.csv' --json", tmpdir);
    assert_int_equal(run(args, &out, &err), 3);
    assert_string_equal(out, "");
    free(out);
    free(err);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_help),    cmocka_unit_test(test_highbar_csv),    cmocka_unit_test(test_highbar_json),
        cmocka_unit_test(test_info_json),
        cmocka_unit_test(test_info_loop_and_diagnostics),
        cmocka_unit_test(test_fk_json), cmocka_unit_test(test_q_errors),
        cmocka_unit_test(test_mass_json), cmocka_unit_test(test_bvh_commands), cmocka_unit_test(test_retarget),
        cmocka_unit_test(test_retarget_batch),
        cmocka_unit_test(test_jacobian_json), cmocka_unit_test(test_mass_from_geometry),
        cmocka_unit_test(test_workspace_json), cmocka_unit_test(test_collisions_json),
        cmocka_unit_test(test_ik_json), cmocka_unit_test(test_convert_write_fails),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
