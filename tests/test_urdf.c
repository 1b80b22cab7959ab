/* URDF importer: every URDF 1.0 element read into the model with its values,
 * tolerance of messy files, errors with file:line, package:// resolution. */
#define _XOPEN_SOURCE 700 /* mkdtemp, setenv */
#include "formats/utf8.h"
#include "testutil.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/spatial.h"
#include "io/load.h"

static const char *full_urdf =
    "<?xml version='1.0'?>\n"                                                              /* 1 */
    "<robot name='full' version='1.0'>\n"                                                  /* 2 */
    "  <material name='red'><color rgba='1 0 0 1'/></material>\n"                          /* 3 */
    "  <material name='tex'><texture filename='skin.png'/></material>\n"                   /* 4 */
    "  <link name='base'>\n"                                                               /* 5 */
    "    <inertial><origin xyz='0.1 0.2 0.3' rpy='0 0 1.5707963267948966'/>\n"            /* 6 */
    "      <mass value='2.5'/><inertia ixx='1' ixy='0.1' ixz='0.2' iyy='2' iyz='0.3' izz='3'/></inertial>\n"
    "    <visual name='v1'><origin xyz='1 2 3' rpy='0.1 0.2 0.3'/>\n"                       /* 8 */
    "      <geometry><box size='0.1 0.2 0.3'/></geometry><material name='red'/></visual>\n"
    "    <visual><geometry><mesh filename='m.stl' scale='2 3 4'/></geometry>\n"            /* 10 */
    "      <material name='green'><color rgba='0 1 0 0.5'/></material></visual>\n"
    "    <collision name='c1'><geometry><cylinder radius='0.5' length='2'/></geometry></collision>\n"
    "    <collision><origin xyz='0 0 1'/><geometry><sphere radius='0.25'/></geometry></collision>\n"
    "  </link>\n"
    "  <link name='arm'/>\n"                                                               /* 15 */
    "  <link name='finger'/>\n"
    "  <link name='wheel'/>\n"
    "  <link name='slider'/>\n"
    "  <joint name='shoulder' type='revolute'>\n"                                          /* 19 */
    "    <origin xyz='0 0 0.5' rpy='0 0.5 0'/><parent link='base'/><child link='arm'/>\n"
    "    <axis xyz='0 1 0'/><limit lower='-1.5' upper='2' effort='30' velocity='4'/>\n"
    "    <dynamics damping='0.7' friction='0.05'/>\n"
    "    <safety_controller soft_lower_limit='-1.4' soft_upper_limit='1.9' k_position='100' k_velocity='10'/>\n"
    "    <calibration rising='0.25' reference_position='0.1'/>\n"
    "  </joint>\n"
    "  <joint name='grip' type='prismatic'><parent link='arm'/><child link='finger'/>\n"   /* 26 */
    "    <axis xyz='1 0 0'/><limit lower='0' upper='0.04' effort='10' velocity='0.1'/>\n"
    "    <mimic joint='shoulder' multiplier='0.02' offset='0.01'/></joint>\n"
    "  <joint name='spin' type='continuous'><parent link='base'/><child link='wheel'/>\n"
    "    <axis xyz='0 0 1'/><limit effort='5' velocity='20'/></joint>\n"
    "  <joint name='rail' type='fixed'><parent link='base'/><child link='slider'/></joint>\n"
    "  <transmission name='t1'><type>transmission_interface/SimpleTransmission</type>\n"  /* 32 */
    "    <joint name='shoulder'><hardwareInterface>EffortJointInterface</hardwareInterface></joint></transmission>\n"
    "  <gazebo reference='arm'><mu1>0.5</mu1></gazebo>\n"                                 /* 34 */
    "</robot>\n";

static kg_model *load(const char *name, const char *text, kg_diags *d) {
    kg_diags_init(d);
    return kg_test_load_string(name, text, d);
}

static void test_every_element(void **state) {
    (void)state;
    kg_diags d;
    kg_model *m = load("full.urdf", full_urdf, &d);
    assert_non_null(m);
    /* only the unresolved mesh m.stl is worth a warning */
    if (d.count != 1) kg_test_print_diags(&d);
    assert_int_equal(d.count, 1);
    assert_int_equal(kg_test_find(&d, "mesh.unresolved")->line, 10);
    assert_string_equal(m->name, "full");
    assert_string_equal(m->format, "urdf");
    assert_int_equal(m->nlink, 5);
    assert_int_equal(m->njoint, 4);
    assert_int_equal(m->dof, 2); /* shoulder, spin; grip follows shoulder */

    /* materials: two global, one defined inline in a visual */
    assert_int_equal(m->nmaterial, 3);
    const kg_material *red = &m->material[kg_model_material(m, "red")];
    assert_true(red->has_color);
    KG_ASSERT_NEAR(red->rgba[0], 1, 0);
    assert_string_equal(m->material[kg_model_material(m, "tex")].texture, "skin.png");
    KG_ASSERT_NEAR(m->material[kg_model_material(m, "green")].rgba[3], 0.5, 0);

    /* inertial as declared, and rotated into the link frame */
    const kg_link *base = &m->link[kg_model_link(m, "base")];
    assert_true(base->has_inertial);
    KG_ASSERT_NEAR(base->mass, 2.5, 0);
    KG_ASSERT_NEAR(base->com[2], 0.3, 0);
    KG_ASSERT_NEAR(base->inertial.inertia[1], 0.1, 0);
    KG_ASSERT_NEAR(base->inertial.rpy[2], KG_PI / 2, 0);
    /* Rz(90) I Rz(90)^T with I = [[1 .1 .2][.1 2 .3][.2 .3 3]]: [[2 -.1 -.3][-.1 1 .2][-.3 .2 3]] */
    const double ir[9] = {2, -0.1, -0.3, -0.1, 1, 0.2, -0.3, 0.2, 3};
    for (int k = 0; k < 9; k++) KG_ASSERT_NEAR(base->inertia[k], ir[k], 1e-15);

    /* geoms: 2 visual + 2 collision, in order, with their values */
    assert_int_equal(base->geom_count, 4);
    const kg_geom *g = &m->geom[base->geom_first];
    assert_int_equal(g[0].role, KG_VISUAL);
    assert_int_equal(g[0].type, KG_GEOM_BOX);
    assert_string_equal(g[0].name, "v1");
    KG_ASSERT_NEAR(g[0].size[2], 0.3, 0);
    KG_ASSERT_NEAR(g[0].pos[1], 2, 0);
    KG_ASSERT_NEAR(g[0].rpy[2], 0.3, 0);
    assert_int_equal(g[0].material, kg_model_material(m, "red"));
    assert_int_equal(g[1].type, KG_GEOM_MESH);
    assert_string_equal(g[1].mesh_uri, "m.stl");
    assert_null(g[1].mesh_path);
    KG_ASSERT_NEAR(g[1].scale[2], 4, 0);
    assert_int_equal(g[1].material, kg_model_material(m, "green"));
    assert_int_equal(g[2].role, KG_COLLISION);
    assert_int_equal(g[2].type, KG_GEOM_CYLINDER);
    KG_ASSERT_NEAR(g[2].size[0], 0.5, 0);
    KG_ASSERT_NEAR(g[2].size[1], 2, 0);
    assert_int_equal(g[3].type, KG_GEOM_SPHERE);
    KG_ASSERT_NEAR(g[3].pos[2], 1, 0);

    /* joints */
    const kg_joint *sh = &m->joint[kg_model_joint(m, "shoulder")];
    assert_int_equal(sh->type, KG_JOINT_REVOLUTE);
    assert_int_equal(sh->line, 19);
    KG_ASSERT_NEAR(sh->pos[2], 0.5, 0);
    KG_ASSERT_NEAR(sh->rpy[1], 0.5, 0);
    KG_ASSERT_NEAR(sh->axis[1], 1, 0);
    assert_true(sh->has_limit);
    KG_ASSERT_NEAR(sh->lower, -1.5, 0);
    KG_ASSERT_NEAR(sh->upper, 2, 0);
    KG_ASSERT_NEAR(sh->effort, 30, 0);
    KG_ASSERT_NEAR(sh->velocity, 4, 0);
    assert_true(sh->has_dynamics);
    KG_ASSERT_NEAR(sh->damping, 0.7, 0);
    KG_ASSERT_NEAR(sh->friction, 0.05, 0);
    assert_true(sh->has_safety);
    KG_ASSERT_NEAR(sh->soft_lower, -1.4, 0);
    KG_ASSERT_NEAR(sh->soft_upper, 1.9, 0);
    KG_ASSERT_NEAR(sh->k_position, 100, 0);
    KG_ASSERT_NEAR(sh->k_velocity, 10, 0);
    assert_int_equal(sh->calibration, KG_CAL_RISING | KG_CAL_REFERENCE);
    KG_ASSERT_NEAR(sh->cal_rising, 0.25, 0);
    KG_ASSERT_NEAR(sh->cal_reference, 0.1, 0);
    const kg_joint *gr = &m->joint[kg_model_joint(m, "grip")];
    assert_int_equal(gr->type, KG_JOINT_PRISMATIC);
    assert_true(gr->mimic >= 0);
    const kg_mimic *mm = &m->mimic[gr->mimic];
    assert_string_equal(m->joint[mm->leader].name, "shoulder");
    KG_ASSERT_NEAR(mm->multiplier, 0.02, 0);
    KG_ASSERT_NEAR(mm->offset, 0.01, 0);
    assert_int_equal(mm->line, 28);
    const kg_joint *sp = &m->joint[kg_model_joint(m, "spin")];
    assert_int_equal(sp->type, KG_JOINT_CONTINUOUS);
    assert_false(sp->has_limit);
    assert_true(isinf(sp->lower) && sp->lower < 0);
    KG_ASSERT_NEAR(sp->velocity, 20, 0);
    const kg_joint *rl = &m->joint[kg_model_joint(m, "rail")];
    assert_int_equal(rl->type, KG_JOINT_FIXED);
    assert_true(isnan(rl->effort)); /* absent, not invented */

    /* transmission and gazebo are kept verbatim */
    assert_int_equal(m->nextra, 2);
    assert_string_equal(m->extra[0].kind, "transmission");
    assert_string_equal(m->extra[0].name, "t1");
    assert_int_equal(m->extra[0].line, 32);
    assert_non_null(strstr(m->extra[0].xml, "<hardwareInterface>EffortJointInterface</hardwareInterface>"));
    assert_string_equal(m->extra[1].kind, "gazebo");
    assert_string_equal(m->extra[1].name, "arm");
    assert_non_null(strstr(m->extra[1].xml, "<mu1>0.5</mu1>"));
    kg_model_free(m);
    kg_diags_clear(&d);
}

static void test_declaration_typo(void **state) {
    (void)state;
    kg_diags d;
    /* TinyXML accepts this; libxml2 would not. Accepted with a warning. */
    kg_model *m = load("typo.urdf", "<?xml verison=\"1.0\"?>\n<robot name='t'>\n<link name='a'/>\n</robot>\n", &d);
    assert_non_null(m);
    const kg_diag *g = kg_test_find(&d, "xml.declaration");
    assert_non_null(g);
    assert_int_equal(g->severity, KG_WARNING);
    assert_int_equal(g->line, 1);
    assert_int_equal(m->link[0].line, 3); /* line numbers survive the repair */
    kg_model_free(m);
    kg_diags_clear(&d);
    /* a declaration after blank lines */
    m = load("late.urdf", "\n\n<?xml version='1.0'?>\n<robot name='t'><link name='a'/></robot>\n", &d);
    assert_non_null(m);
    assert_int_equal(kg_test_find(&d, "xml.declaration")->line, 3);
    kg_model_free(m);
    kg_diags_clear(&d);
}

static void test_errors_have_lines(void **state) {
    (void)state;
    kg_diags d;
    kg_model *m = load("bad.urdf",
                       "<robot name='b'>\n"
                       "  <link name='a'/>\n"
                       "  <link name='c'><visual><geometry><mesh/></geometry></visual></link>\n"
                       "  <joint name='j' type='revolute'><parent link='a'/><child link='c'/>\n"
                       "    <origin xyz='0 0 nan'/>\n"
                       "    <limit lower='0' upper='1' velocity='1'/></joint>\n"
                       "  <joint name='k' type='hinge'><parent link='a'/><child link='c'/></joint>\n"
                       "  <link name='e'/>\n"
                       "  <joint name='m' type='revolute'><parent link='a'/><child link='e'/>\n"
                       "    <mimic joint='ghost'/></joint>\n"
                       "</robot>\n",
                       &d);
    assert_non_null(m);
    struct {
        const char *code;
        int line;
    } expect[] = {{"urdf.missing_attribute", 3}, /* mesh without filename */
                  {"xml.bad_number", 5},         /* nan */
                  {"joint.unknown_type", 7},     {"mimic.missing_leader", 10},
                  {"joint.no_limit", 9}};
    for (size_t i = 0; i < sizeof expect / sizeof *expect; i++) {
        const kg_diag *g = kg_test_find(&d, expect[i].code);
        if (!g) fail_msg("no diagnostic %s", expect[i].code);
        assert_int_equal(g->severity, KG_ERROR);
        assert_int_equal(g->line, expect[i].line);
        assert_string_equal(g->file, "bad.urdf");
    }
    /* the limit without effort (line 6) */
    int found = 0;
    for (size_t i = 0; i < d.count; i++)
        if (strcmp(d.items[i].code, "urdf.missing_attribute") == 0 && d.items[i].line == 6 &&
            strstr(d.items[i].message, "effort"))
            found = 1;
    assert_true(found);
    /* 'k' also leads into 'c': a second parent, so a loop URDF cannot have */
    assert_non_null(kg_test_find(&d, "topology.loop_forbidden"));
    kg_model_free(m);
    kg_diags_clear(&d);

    /* not well-formed: an error with the line, no model */
    m = load("broken.urdf", "<robot name='b'>\n<link name='a'>\n</joint>\n</robot>\n", &d);
    assert_null(m);
    const kg_diag *g = kg_test_find(&d, "xml.malformed");
    assert_non_null(g);
    assert_int_equal(g->line, 3);
    kg_diags_clear(&d);

    /* not a robot */
    m = load("world.urdf", "<world name='w'/>", &d);
    assert_null(m);
    assert_non_null(kg_test_find(&d, "urdf.not_robot"));
    kg_diags_clear(&d);
}

static void test_loop_in_urdf(void **state) {
    (void)state;
    kg_diags d;
    kg_model *m = load("loop.urdf",
                       "<robot name='l'>\n"
                       " <link name='base'/><link name='a'/><link name='b'/><link name='c'/>\n"
                       " <joint name='ja' type='revolute'><parent link='base'/><child link='a'/><limit effort='1' velocity='1'/></joint>\n"
                       " <joint name='jb' type='revolute'><parent link='base'/><child link='b'/><limit effort='1' velocity='1'/></joint>\n"
                       " <joint name='jac' type='revolute'><parent link='a'/><child link='c'/><limit effort='1' velocity='1'/></joint>\n"
                       " <joint name='jbc' type='revolute'><parent link='b'/><child link='c'/><limit effort='1' velocity='1'/></joint>\n"
                       "</robot>\n",
                       &d);
    assert_non_null(m); /* built, with an error: URDF forbids loops */
    const kg_diag *g = kg_test_find(&d, "topology.loop_forbidden");
    assert_non_null(g);
    assert_int_equal(g->severity, KG_ERROR);
    assert_int_equal(g->line, 6);
    assert_int_equal(m->nloop, 1);
    const kg_loop *lp = &m->loop[0];
    assert_string_equal(m->joint[lp->cut_joint].name, "jbc");
    assert_string_equal(m->link[lp->real_link].name, "c");
    const char *members[] = {"base", "a", "c", "b"};
    assert_int_equal(lp->nlink, 4);
    for (int i = 0; i < 4; i++) assert_string_equal(m->link[lp->links[i]].name, members[i]);
    assert_int_equal(m->dof, 4);
    kg_model_free(m);
    kg_diags_clear(&d);
}

static void test_tolerated_oddities(void **state) {
    (void)state;
    kg_diags d;
    kg_model *m = load("odd.urdf",
                       "<robot name='o' xmlns:xacro='http://ros.org/wiki/xacro'>\n"
                       " <link name='a'><visual><geometry><sphere radius='1'/><box size='1 1 1'/></geometry>\n"
                       "   <material name=''><color rgba='0 0 1 1'/></material></visual>\n"
                       "   <contact><lateral_friction value='1'/></contact></link>\n"
                       " <sensor:camera name='cam'/>\n"
                       " <mujoco><compiler meshdir='m'/></mujoco>\n"
                       " <lnk name='typo'/>\n"
                       "</robot>\n",
                       &d);
    assert_non_null(m);
    assert_int_equal(kg_diags_count(&d, KG_ERROR), 0);
    assert_int_equal(kg_test_find(&d, "geometry.extra_shape")->line, 2);
    assert_int_equal(kg_test_find(&d, "xml.namespace")->line, 5);
    /* unknown <contact> in a link and unknown <lnk> at the top: warnings; <mujoco> is a
     * known extension, kept silently */
    assert_int_equal(kg_test_count(&d, "urdf.unknown_element"), 3);
    assert_int_equal(m->nextra, 3);
    /* the anonymous material keeps its colour */
    const kg_geom *g = &m->geom[m->link[0].geom_first];
    assert_int_equal(g->type, KG_GEOM_SPHERE);
    assert_true(g->material >= 0);
    KG_ASSERT_NEAR(m->material[g->material].rgba[2], 1, 0);
    kg_model_free(m);
    kg_diags_clear(&d);
}

/* ---- package:// resolution ------------------------------------------------ */

static void write_file(const char *path, const char *text) {
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

static void mkdirs(const char *path) {
    char buf[2200];
    snprintf(buf, sizeof buf, "%s", path);
    for (char *p = buf + 1; *p; p++)
        if (*p == '/') {
            *p = 0;
            mkdir(buf, 0755);
            *p = '/';
        }
    mkdir(buf, 0755);
}

static void test_package_resolution(void **state) {
    (void)state;
    char root[] = "/tmp/kg_pkg_XXXXXX";
    assert_non_null(mkdtemp(root));
    char p[2100], urdf[1024], e1[1024], e2[1024];
    /* <root>/ws/robot_pkg/urdf/r.urdf; meshes in robot_pkg (an ancestor named like
     * the package), in <root>/ws/side_pkg (a sibling folder of an ancestor), in a
     * --package-path folder and in a ROS_PACKAGE_PATH folder */
    snprintf(p, sizeof p, "%s/ws/robot_pkg/urdf", root); mkdirs(p);
    snprintf(p, sizeof p, "%s/ws/robot_pkg/meshes", root); mkdirs(p);
    snprintf(p, sizeof p, "%s/ws/robot_pkg/meshes/a.stl", root); write_file(p, "solid a\nendsolid a\n");
    snprintf(p, sizeof p, "%s/ws/side_pkg", root); mkdirs(p);
    snprintf(p, sizeof p, "%s/ws/side_pkg/b.stl", root); write_file(p, "x");
    snprintf(e1, sizeof e1, "%s/opt/shared_pkg", root); mkdirs(e1);
    snprintf(p, sizeof p, "%s/c.stl", e1); write_file(p, "x");
    snprintf(e2, sizeof e2, "%s/env/shared_pkg", root); mkdirs(e2);
    snprintf(p, sizeof p, "%s/c.stl", e2); write_file(p, "x");
    snprintf(p, sizeof p, "%s/env/shared_pkg/d.stl", root); write_file(p, "x");
    snprintf(p, sizeof p, "%s/ws/robot_pkg/urdf/rel.stl", root); write_file(p, "x");
    snprintf(urdf, sizeof urdf, "%s/ws/robot_pkg/urdf/r.urdf", root);
    write_file(urdf,
               "<robot name='r'><link name='a'>\n"
               " <visual><geometry><mesh filename='package://robot_pkg/meshes/a.stl'/></geometry></visual>\n"
               " <visual><geometry><mesh filename='package://side_pkg/b.stl'/></geometry></visual>\n"
               " <visual><geometry><mesh filename='package://shared_pkg/c.stl'/></geometry></visual>\n"
               " <visual><geometry><mesh filename='package://shared_pkg/d.stl'/></geometry></visual>\n"
               " <visual><geometry><mesh filename='package:///robot_pkg/meshes/a.stl'/></geometry></visual>\n"
               " <visual><geometry><mesh filename='rel.stl'/></geometry></visual>\n"
               " <visual><geometry><mesh filename='package://nowhere/x.stl'/></geometry></visual>\n"
               "</link></robot>\n");
    char opt_dir[1024], env_dir[1024];
    snprintf(opt_dir, sizeof opt_dir, "%s/opt", root);
    snprintf(env_dir, sizeof env_dir, "/nonexistent:%s/env", root);
    setenv("ROS_PACKAGE_PATH", env_dir, 1);
    const char *paths[] = {opt_dir};
    kg_load_options o = {0};
    o.resolver.package_paths = paths;
    o.resolver.npackage_paths = 1;
    kg_diags d;
    kg_diags_init(&d);
    kg_model *m = kg_load(urdf, &o, &d);
    assert_non_null(m);
    assert_int_equal(m->ngeom, 7);
    char expect[2100];
    const kg_geom *g = m->geom;
    assert_non_null(g[0].mesh_path);
    assert_non_null(strstr(g[0].mesh_path, "/ws/robot_pkg/meshes/a.stl"));
    assert_non_null(g[1].mesh_path);
    assert_non_null(strstr(g[1].mesh_path, "/ws/side_pkg/b.stl"));
    snprintf(expect, sizeof expect, "%s/c.stl", e1); /* --package-path wins over ROS_PACKAGE_PATH */
    assert_string_equal(g[2].mesh_path, expect);
    snprintf(expect, sizeof expect, "%s/d.stl", e2); /* only in ROS_PACKAGE_PATH */
    assert_string_equal(g[3].mesh_path, expect);
    assert_non_null(g[4].mesh_path); /* package:/// resolved, with a warning */
    assert_non_null(strstr(g[4].mesh_path, "/ws/robot_pkg/meshes/a.stl"));
    assert_int_equal(kg_test_find(&d, "uri.empty_package")->line, 6);
    snprintf(expect, sizeof expect, "%s/ws/robot_pkg/urdf/rel.stl", root);
    assert_string_equal(g[5].mesh_path, expect);
    assert_null(g[6].mesh_path);
    const kg_diag *u = kg_test_find(&d, "mesh.unresolved");
    assert_non_null(u);
    assert_int_equal(u->severity, KG_WARNING);
    assert_int_equal(u->line, 8);
    assert_int_equal(kg_test_count(&d, "mesh.unresolved"), 1);
    kg_model_free(m);
    kg_diags_clear(&d);
    unsetenv("ROS_PACKAGE_PATH");
    assert_int_equal(kg_test_remove_dir(root), 0);
}

/* Issue 26: a <texture/> without filename (a widely used humanoid has one)
 * was an error and refused the robot; now a warning, and the colour stays. */
static void test_texture_without_filename(void **state) {
    (void)state;
    const char *text = "<robot name=\"t\">\n"
                       "  <material name=\"m\"><color rgba=\"1 0 0 1\"/><texture/></material>\n"
                       "  <link name=\"a\"><visual><geometry><box size=\"1 1 1\"/></geometry>"
                       "<material name=\"m\"/></visual></link>\n</robot>\n";
    kg_diags d;
    kg_diags_init(&d);
    kg_model *m = kg_test_load_string("texture.urdf", text, &d);
    assert_non_null(m);
    assert_int_equal(kg_diags_count(&d, KG_ERROR), 0);
    const kg_diag *g = kg_test_find(&d, "material.texture_empty");
    assert_non_null(g);
    assert_int_equal(g->severity, KG_WARNING);
    assert_int_equal(g->line, 2);
    int k = kg_model_material(m, "m");
    assert_true(k >= 0);
    assert_true(m->material[k].has_color);
    assert_null(m->material[k].texture);
    kg_model_free(m);
    kg_diags_clear(&d);
}

/* A loop's virtual link is named "child@cut joint" whatever their length: cut
 * to 512 bytes, the name could end inside a UTF-8 character (invalid XML and
 * JSON in every output). When a real link is already so named, the virtual
 * one is renamed. */
static void test_long_names_in_loop(void **state) {
    (void)state;
    char c[2001], jbc[1401], clash[3500], *text = malloc(20000);
    for (int i = 0; i < 1000; i++) memcpy(c + 2 * i, "\xc3\xa9", 2); /* e acute */
    c[2000] = 0;
    for (int i = 0; i < 700; i++) memcpy(jbc + 2 * i, "\xc3\xbc", 2); /* u umlaut */
    jbc[1400] = 0;
    snprintf(clash, sizeof clash, "%s@%s", c, jbc);
    snprintf(text, 20000,
             "<robot name='l'><link name='base'/><link name='a'/><link name='b'/><link name='%s'/><link name='%s'/>"
             "<joint name='ja' type='revolute'><parent link='base'/><child link='a'/><limit effort='1' velocity='1'/></joint>"
             "<joint name='jb' type='revolute'><parent link='base'/><child link='b'/><limit effort='1' velocity='1'/></joint>"
             "<joint name='jx' type='fixed'><parent link='base'/><child link='%s'/></joint>"
             "<joint name='jac' type='revolute'><parent link='a'/><child link='%s'/><limit effort='1' velocity='1'/></joint>"
             "<joint name='%s' type='revolute'><parent link='b'/><child link='%s'/><limit effort='1' velocity='1'/></joint>"
             "</robot>",
             c, clash, clash, c, jbc, c);
    kg_diags d;
    kg_model *m = load("long.urdf", text, &d);
    assert_non_null(m);
    assert_int_equal(m->nloop, 1);
    int virt = -1, renamed = -1; /* renamed: the real link named as the virtual one would be */
    for (int i = 0; i < m->nlink; i++) {
        assert_true(kg_utf8_valid(m->link[i].name, strlen(m->link[i].name)));
        if (m->link[i].real >= 0) virt = i;
        if (m->link[i].real < 0 && strncmp(m->link[i].name, clash, strlen(clash)) == 0) renamed = i;
    }
    assert_true(virt >= 0 && renamed >= 0);
    assert_true(strcmp(m->link[renamed].name, clash) == 0); /* the real one, whole */
    assert_int_equal(strlen(m->link[virt].name), strlen(clash) + 2);
    assert_true(strncmp(m->link[virt].name, clash, strlen(clash)) == 0);
    assert_string_equal(m->link[virt].name + strlen(clash), "#2");
    kg_model_free(m);
    kg_diags_clear(&d);
    free(text);
}

/* A diagnostic names a link or joint whole, whatever its length: owners were
 * written into 300-byte buffers and messages into 1 024 bytes, cut perhaps
 * inside a UTF-8 character. */
static void test_long_names_in_diagnostics(void **state) {
    (void)state;
    char name[3001], *text = malloc(12000);
    for (int i = 0; i < 1500; i++) memcpy(name + 2 * i, "\xc3\xa9", 2); /* e acute */
    name[3000] = 0;
    snprintf(text, 12000, "<robot name='r'><link name='%s'><bogus/></link><link name='b'/>"
                         "<joint name='%s' type='fixed'><parent link='%s'/><child link='b'/><weird/></joint></robot>",
             name, name, name);
    kg_diags d;
    kg_model *m = load("names.urdf", text, &d);
    assert_non_null(m);
    int seen = 0;
    for (size_t k = 0; k < d.count; k++) {
        if (strcmp(d.items[k].code, "urdf.unknown_element")) continue;
        assert_true(kg_utf8_valid(d.items[k].message, strlen(d.items[k].message)));
        assert_non_null(strstr(d.items[k].message, name));
        seen++;
    }
    assert_int_equal(seen, 2);
    kg_model_free(m);
    kg_diags_clear(&d);
    free(text);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_element),     cmocka_unit_test(test_declaration_typo),
        cmocka_unit_test(test_errors_have_lines), cmocka_unit_test(test_loop_in_urdf), cmocka_unit_test(test_long_names_in_loop),
        cmocka_unit_test(test_tolerated_oddities), cmocka_unit_test(test_package_resolution),
        cmocka_unit_test(test_texture_without_filename),
        cmocka_unit_test(test_long_names_in_diagnostics),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
