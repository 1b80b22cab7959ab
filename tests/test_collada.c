/* COLLADA 1.5 kinematics: the OpenRAVE robots load with the joint counts and
 * couplings SOURCES.md states; forward kinematics agrees with the file's own
 * visual scene (evaluated here, independently of the importer: node transforms
 * composed with the bound joint rotations set to the joint values) at random
 * joint vectors; Khronos conformance files for compound joints, units, loops and
 * limits read to values worked out by hand; bad files are refused, not crashed on.
 * COLLADA 1.4 skeletons and animations: every animated file's node poses agree
 * with assimp's import at its first, middle and last key (tests/reference/collada). */
#define _XOPEN_SOURCE 700
#include "testutil.h"

#include <libxml/parser.h>
#include <glob.h>
#include <jansson.h>
#include <libxml/tree.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/fk.h"
#include "core/spatial.h"
#include "exporters/exporters.h"
#include "io/load.h"
#include "formats/zae.h"

static kg_model *load(const char *path, kg_diags *d) {
    kg_diags_init(d);
    return kg_load(path, NULL, d);
}

/* ---- the OpenRAVE robots -------------------------------------------------------- */

static void test_openrave_robots(void **state) {
    (void)state;
    KG_REQUIRE_DATA(data);
    const struct {
        const char *file;
        int joints, prismatic, formulas, dof;
    } robots[] = {
        {"pr2-beta-static.zae", 87, 5, 6, 81},  {"man1.zae", 63, 0, 0, 63},
        {"shadow-hand.zae", 22, 0, 9, 13},      {"barrett-wam-sensors.zae", 15, 0, 4, 11},
        {"kuka-youbot.zae", 8, 2, 1, 7},        {"neuronics-katana.zae", 8, 0, 1, 7},
        {"mitsubishi-pa10.zae", 7, 0, 0, 7},    {"schunk-lwa3.zae", 7, 0, 0, 7},
        {"pumaarm.zae", 6, 0, 0, 6},            {"pumagripper.zae", 2, 0, 1, 1},
    };
    for (size_t i = 0; i < sizeof robots / sizeof *robots; i++) {
        char path[4096];
        snprintf(path, sizeof path, "%s/collada/openrave/zae/%s", data, robots[i].file);
        kg_diags d;
        kg_model *m = load(path, &d);
        if (!m || kg_diags_count(&d, KG_ERROR)) {
            kg_test_print_diags(&d);
            fail_msg("%s must load", robots[i].file);
        }
        /* the file's joints: not the fixed joints the importer adds to keep link
         * frames exact ("<link>.origin" under a static world, "<link>.fixed") */
        int prismatic = 0, added = 0;
        for (int j = 0; j < m->njoint; j++) {
            prismatic += m->joint[j].type == KG_JOINT_PRISMATIC;
            const char *dot = strrchr(m->joint[j].name, '.');
            added += m->joint[j].type == KG_JOINT_FIXED && dot && (!strcmp(dot, ".origin") || !strcmp(dot, ".fixed"));
        }
        assert_int_equal(m->njoint - added, robots[i].joints);
        assert_int_equal(prismatic, robots[i].prismatic);
        assert_int_equal(m->nmimic, robots[i].formulas);
        assert_int_equal(m->dof, robots[i].dof);
        assert_string_equal(m->format, "collada");
        kg_model_free(m);
        kg_diags_clear(&d);
    }
}

/* OpenRAVE's manipulators and ignored collision pairs become the model's end
 * effectors and pairs (values from pr2-beta-static.zae: manipulator "leftarm",
 * frame_origin link16 = torso_lift_link, frame_tip link50 = l_gripper_palm_link
 * at translate 0.18 0 0, rotate 0 1 0 90 deg, direction 0 0 1; the first
 * ignore_link_pair link1/link8 = base_link/br_caster_l_wheel_link), and they
 * survive our COLLADA. */
static void check_pr2_features(const kg_model *m) {
    assert_int_equal(m->nend_effector, 8);
    assert_int_equal(m->ncollision_ignore, 31);
    const kg_end_effector *e = NULL;
    for (int k = 0; k < m->nend_effector; k++)
        if (!strcmp(m->end_effector[k].name, "leftarm")) e = &m->end_effector[k];
    assert_non_null(e);
    assert_string_equal(m->link[e->base].name, "torso_lift_link");
    assert_string_equal(m->link[e->tip].name, "l_gripper_palm_link");
    double want_r[9] = {0, 0, 1, 0, 1, 0, -1, 0, 0}; /* 90 degrees about y */
    KG_ASSERT_NEAR(e->pos[0], 0.18, 1e-15);
    for (int k = 0; k < 9; k++) KG_ASSERT_NEAR(e->rot[k], want_r[k], 1e-15);
    KG_ASSERT_NEAR(e->direction[2], 1, 0);
    assert_string_equal(m->link[m->collision_ignore[0].a].name, "base_link");
    assert_string_equal(m->link[m->collision_ignore[0].b].name, "br_caster_l_wheel_link");
}

static void test_openrave_manipulators(void **state) {
    (void)state;
    KG_REQUIRE_DATA(data);
    char path[4096];
    snprintf(path, sizeof path, "%s/collada/openrave/zae/pr2-beta-static.zae", data);
    kg_diags d;
    kg_model *m = load(path, &d);
    assert_non_null(m);
    check_pr2_features(m);
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    kg_ledger l;
    kg_ledger_init(&l);
    assert_int_equal(kg_export_collada(m, NULL, NULL, f, &l, &d), 0);
    fclose(f);
    /* what the model does not hold of the extras (grippers, collision states) is in the ledger */
    assert_true(kg_ledger_count(&l, KG_DROPPED) >= 1);
    kg_diags d2;
    kg_diags_init(&d2);
    kg_load_options o = {0};
    o.format = "collada";
    kg_model *b = kg_load_buffer("pr2.dae", buf, len, &o, &d2);
    assert_non_null(b);
    check_pr2_features(b);
    kg_model_free(b);
    kg_model_free(m);
    kg_ledger_clear(&l);
    free(buf);
    kg_diags_clear(&d);
    kg_diags_clear(&d2);
}

static void test_units_limits_speed(void **state) {
    (void)state;
    KG_REQUIRE_DATA(data);
    char path[4096];
    snprintf(path, sizeof path, "%s/collada/openrave/extracted/pumagripper.dae", data);
    kg_diags d;
    kg_model *m = load(path, &d);
    assert_non_null(m);
    /* joint m1: limits -56..8 degrees; motion speed 45.83662361046586 deg/s (= 0.8 rad/s),
     * acceleration 5729577.951308233 deg/s^2 (= 100000 rad/s^2) */
    const kg_joint *j = &m->joint[kg_model_joint(m, "m1")];
    KG_ASSERT_NEAR(j->lower, -56 * KG_PI / 180, 1e-15);
    KG_ASSERT_NEAR(j->upper, 8 * KG_PI / 180, 1e-15);
    KG_ASSERT_NEAR(j->velocity, 0.8, 1e-12);
    KG_ASSERT_NEAR(j->acceleration, 100000, 1e-6);
    assert_false(j->has_safety); /* axis_info limits equal the joint's */
    /* m2 = 0 + m1 (the formula) */
    const kg_joint *j2 = &m->joint[kg_model_joint(m, "m2")];
    assert_true(j2->mimic >= 0);
    KG_ASSERT_NEAR(m->mimic[j2->mimic].multiplier, 1, 0);
    KG_ASSERT_NEAR(m->mimic[j2->mimic].offset, 0, 0);
    /* rigid bodies: 0.1 kg each. RClaw's mass frame, translate 0 0 0.1 (line 619), is in
     * the model's frame (instance_physics_model parent="#v1.node0", the bound node), where
     * RClaw is at zero: 0.1 up, its attachment's 90 deg about x undone by its own -90 deg
     * (lines 305-309). So its COM is at its own origin. */
    const kg_link *claw = &m->link[kg_model_link(m, "RClaw")];
    KG_ASSERT_NEAR(claw->mass, 0.1, 0);
    for (int k = 0; k < 3; k++) KG_ASSERT_NEAR(claw->com[k], 0, 1e-15);
    kg_model_free(m);
    kg_diags_clear(&d);

    /* Khronos: millimetres; prismatic limits -500..0 mm, revolute -15..15 degrees */
    snprintf(path, sizeof path, "%s/collada/khronos_cts/library_kinematics_model/kinematics_model/technique_common/"
                                "link/attachment_end/attachment_end.dae", data);
    m = load(path, &d);
    assert_non_null(m);
    const kg_joint *p = &m->joint[kg_model_joint(m, "j1")], *r = &m->joint[kg_model_joint(m, "j2")];
    assert_int_equal(p->type, KG_JOINT_PRISMATIC);
    KG_ASSERT_NEAR(p->lower, -0.5, 1e-15);
    KG_ASSERT_NEAR(p->upper, 0, 0);
    KG_ASSERT_NEAR(r->upper, 15 * KG_PI / 180, 1e-15);
    /* the loop: j4 from B (attachment_start) to D (attachment_end) */
    assert_int_equal(m->nloop, 1);
    assert_string_equal(m->joint[m->loop[0].cut_joint].name, "j4");
    assert_string_equal(m->link[m->joint[m->loop[0].cut_joint].parent].name, "B");
    assert_string_equal(m->link[m->link[m->loop[0].real_link].parent].name, "D");
    /* where the loop's two ends are at zero: B: A + (0,5,0) + (-6,0,0) (B's own
     * translate, kept in B's frame: prismatic) then start (-3,0,0) turned 45 deg
     * about y; D's end: C at (0,2,0), D at +(3,0,0), end rotated 90 about x then (0,3,0) */
    kg_data *kd = kg_data_new(m);
    kg_fk(m, kd);
    double dp[3], da;
    kg_loop_residual(m, kd, 0, dp, &da);
    const double *pv = kd->link_pos + 3 * m->loop[0].virtual_link, *pr = kd->link_pos + 3 * m->loop[0].real_link;
    KG_ASSERT_NEAR(pv[0], (-6 - 3) * 1e-3, 1e-15);
    KG_ASSERT_NEAR(pv[1], 5e-3, 1e-15);
    KG_ASSERT_NEAR(pr[0], 3e-3, 1e-15);
    KG_ASSERT_NEAR(pr[1], 2e-3, 1e-15);
    KG_ASSERT_NEAR(pr[2], 3e-3, 1e-15); /* Rx(90) (0,3,0) = (0,0,3) */
    kg_data_free(kd);
    kg_model_free(m);
    kg_diags_clear(&d);

    /* a compound joint: two axes, one coordinate each, limits in SI */
    snprintf(path, sizeof path, "%s/collada/khronos_cts/library_joints/joint/compound_joint/compound_joint.dae", data);
    m = load(path, &d);
    assert_non_null(m);
    int compound = -1;
    for (int k = 0; k < m->njoint; k++)
        if (m->joint[k].type == KG_JOINT_COMPOUND) compound = k;
    assert_true(compound >= 0);
    assert_true(m->joint[compound].naxis >= 2);
    kg_model_free(m);
    kg_diags_clear(&d);
}

/* ---- FK against the visual scene --------------------------------------------------- */

typedef struct scene {
    xmlDocPtr doc;
    const kg_model *m;
    const double *q;
    /* bound transform elements (<rotate sid=...>) and their joints */
    xmlNodePtr bound[256];
    int bound_joint[256];
    int nbound;
    int compared;
    double worst;
    const kg_data *kd;
    int locate;               /* first walk: find where the scene puts the root link */
    double root_r[9], root_p[3];
} scene;

static xmlNodePtr find_id(xmlNodePtr n, const char *id) {
    for (; n; n = n->next) {
        if (n->type != XML_ELEMENT_NODE) continue;
        xmlChar *v = xmlGetProp(n, BAD_CAST "id");
        int hit = v && !strcmp((char *)v, id);
        xmlFree(v);
        if (hit) return n;
        xmlNodePtr r = find_id(n->children, id);
        if (r) return r;
    }
    return NULL;
}

static xmlNodePtr find_sid(xmlNodePtr n, const char *sid, const char *name) {
    for (; n; n = n->next) {
        if (n->type != XML_ELEMENT_NODE) continue;
        xmlChar *v = xmlGetProp(n, BAD_CAST "sid");
        int hit = v && !strcmp((char *)v, sid) && (!name || !strcmp((const char *)n->name, name));
        xmlFree(v);
        if (hit) return n;
        xmlNodePtr r = find_sid(n->children, sid, name);
        if (r) return r;
    }
    return NULL;
}

static xmlNodePtr child(xmlNodePtr n, const char *name) {
    for (n = n ? n->children : NULL; n; n = n->next)
        if (n->type == XML_ELEMENT_NODE && !strcmp((const char *)n->name, name)) return n;
    return NULL;
}

static char *content(xmlNodePtr n) {
    xmlChar *t = xmlNodeGetContent(n);
    char *s = strdup((char *)t);
    xmlFree(t);
    char *a = s;
    while (*a == ' ' || *a == '\n' || *a == '\t') a++;
    memmove(s, a, strlen(a) + 1);
    size_t k = strlen(s);
    while (k && (s[k - 1] == ' ' || s[k - 1] == '\n' || s[k - 1] == '\t')) s[--k] = 0;
    return s;
}

/* Follows a <param> through newparam SIDREFs (kinematics scene -> motion ->
 * kinematics system) to the joint path "model/joint/axis"; returns the joint sid. */
static char *joint_of_param(xmlDocPtr doc, const char *param) {
    char *ref = strdup(param);
    for (int hop = 0; hop < 10; hop++) {
        const char *last = strrchr(ref, '/') ? strrchr(ref, '/') + 1 : ref;
        xmlNodePtr np = find_sid(xmlDocGetRootElement(doc), last, "newparam");
        xmlNodePtr sr = np ? child(np, "SIDREF") : NULL;
        if (!sr) break;
        free(ref);
        ref = content(sr);
    }
    /* ref: ".../joint0/axis0": the joint is the second to last segment */
    char *slash = strrchr(ref, '/');
    if (!slash) return ref;
    *slash = 0;
    char *j = strrchr(ref, '/') ? strrchr(ref, '/') + 1 : ref;
    char *out = strdup(j);
    free(ref);
    return out;
}

static void bind_axes(scene *s) {
    xmlNodePtr root = xmlDocGetRootElement(s->doc), sc = child(root, "scene");
    xmlNodePtr iks = child(sc, "instance_kinematics_scene");
    for (xmlNodePtr b = iks ? iks->children : NULL; b; b = b->next) {
        if (b->type != XML_ELEMENT_NODE || strcmp((const char *)b->name, "bind_joint_axis")) continue;
        xmlChar *target = xmlGetProp(b, BAD_CAST "target");
        char *t = strdup((char *)target), *slash = strchr(t, '/');
        xmlFree(target);
        if (!slash) {
            free(t);
            continue;
        }
        *slash = 0;
        /* the target's first segment is a node id; the element may sit in an
         * instanced library node, so fall back to the whole document */
        xmlNodePtr top = find_id(root, t), el = top ? find_sid(top->children, slash + 1, NULL) : NULL;
        if (!el) el = find_sid(root, slash + 1, NULL);
        char *param = content(child(child(b, "axis"), "param"));
        char *jsid = joint_of_param(s->doc, param);
        /* our joint: the one whose name the kinematics model gives this sid */
        xmlNodePtr jdef = find_sid(child(root, "library_kinematics_models"), jsid, "joint");
        xmlChar *jname = jdef ? xmlGetProp(jdef, BAD_CAST "name") : NULL;
        int j = kg_model_joint(s->m, jname ? (char *)jname : jsid);
        if (el && j >= 0 && s->nbound < 256) {
            s->bound[s->nbound] = el;
            s->bound_joint[s->nbound++] = j;
        }
        xmlFree(jname);
        free(jsid);
        free(param);
        free(t);
    }
}

/* The node's transform elements composed, bound rotations set to their joint's angle. */
static void node_local(scene *s, xmlNodePtr node, double r[9], double p[3]) {
    kg_mat3_identity(r);
    p[0] = p[1] = p[2] = 0;
    for (xmlNodePtr k = node->children; k; k = k->next) {
        if (k->type != XML_ELEMENT_NODE) continue;
        double v[16], sr[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1}, sp[3] = {0, 0, 0};
        char *t = content(k);
        const char *name = (const char *)k->name;
        if (!strcmp(name, "translate")) {
            sscanf(t, "%lf %lf %lf", &sp[0], &sp[1], &sp[2]);
        } else if (!strcmp(name, "rotate")) {
            sscanf(t, "%lf %lf %lf %lf", &v[0], &v[1], &v[2], &v[3]);
            double angle = v[3] * KG_PI / 180;
            for (int b = 0; b < s->nbound; b++)
                if (s->bound[b] == k) angle = s->q[s->m->joint[s->bound_joint[b]].qadr]; /* radians */
            double n = sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
            if (n > 0) {
                v[0] /= n;
                v[1] /= n;
                v[2] /= n;
                kg_rot_axis_angle(sr, v, angle);
            }
        } else {
            free(t);
            continue;
        }
        free(t);
        double nr[9], np[3];
        kg_pose_mul(nr, np, r, p, sr, sp);
        kg_mat3_copy(r, nr);
        kg_vec3_copy(p, np);
    }
}

static void walk_nodes(scene *s, xmlNodePtr node, const double pr[9], const double pp[3], int depth) {
    if (depth > 64) return;
    double lr[9], lp[3], r[9], p[3];
    node_local(s, node, lr, lp);
    kg_pose_mul(r, p, pr, pp, lr, lp);
    xmlChar *name = xmlGetProp(node, BAD_CAST "name");
    int i = name ? kg_model_link(s->m, (char *)name) : -1;
    xmlFree(name);
    if (s->locate) {
        if (i == s->m->root_body) {
            kg_mat3_copy(s->root_r, r);
            kg_vec3_copy(s->root_p, p);
        }
    } else if (i >= 0) {
        for (int a = 0; a < 3; a++) s->worst = fmax(s->worst, fabs(s->kd->link_pos[3 * i + a] - p[a]));
        for (int a = 0; a < 9; a++) s->worst = fmax(s->worst, fabs(s->kd->link_rot[9 * i + a] - r[a]));
        s->compared++;
    }
    for (xmlNodePtr k = node->children; k; k = k->next) {
        if (k->type != XML_ELEMENT_NODE) continue;
        if (!strcmp((const char *)k->name, "node")) walk_nodes(s, k, r, p, depth + 1);
        if (!strcmp((const char *)k->name, "instance_node")) {
            xmlChar *url = xmlGetProp(k, BAD_CAST "url");
            xmlNodePtr target = url && url[0] == '#' ? find_id(xmlDocGetRootElement(s->doc), (char *)url + 1) : NULL;
            xmlFree(url);
            if (target) walk_nodes(s, target, r, p, depth + 1);
        }
    }
}

static void compare_visual_scene(const char *path) {
    kg_diags d;
    kg_model *m = load(path, &d);
    if (!m) fail_msg("%s does not load", path);
    size_t len;
    char *inner = NULL, *text = strstr(path, ".zae") ? kg_zae_read(path, &len, &inner, &d) : NULL;
    xmlDocPtr doc = text ? xmlReadMemory(text, (int)len, "x.dae", NULL, XML_PARSE_NONET | XML_PARSE_HUGE)
                         : xmlReadFile(path, NULL, XML_PARSE_NONET | XML_PARSE_HUGE);
    assert_non_null(doc);
    kg_data *kd = kg_data_new(m);
    scene s = {.doc = doc, .m = m, .q = kd->q, .kd = kd};
    bind_axes(&s);
    assert_true(s.nbound > 0);
    uint64_t rng = 0x5eed;
    for (int trial = 0; trial < 3; trial++) {
        for (int j = 0; j < m->njoint; j++) { /* revolute joints at random, prismatic at 0 */
            const kg_joint *J = &m->joint[j];
            rng = rng * 6364136223846793005ull + 1442695040888963407ull;
            double u = (double)(rng >> 11) / 9007199254740992.0;
            if (J->type == KG_JOINT_REVOLUTE) kd->q[J->qadr] = J->lower + (J->upper - J->lower) * u;
            else if (J->type == KG_JOINT_CONTINUOUS) kd->q[J->qadr] = -3 + 6 * u;
            else if (J->nq == 1) kd->q[J->qadr] = 0;
        }
        kg_fk(m, kd); /* mimic followers are set here, then drive their bound nodes too */
        xmlNodePtr root = xmlDocGetRootElement(doc), sc = child(root, "scene");
        xmlChar *url = xmlGetProp(child(sc, "instance_visual_scene"), BAD_CAST "url");
        xmlNodePtr vs = find_id(root, (char *)url + 1);
        xmlFree(url);
        double id[9], zero[3] = {0, 0, 0};
        kg_mat3_identity(id);
        /* the scene may place the robot anywhere: put our base where it puts the
         * root link (our root link is at the base pose) */
        for (s.locate = 1; s.locate >= 0; s.locate--) {
            for (xmlNodePtr n = vs->children; n; n = n->next)
                if (n->type == XML_ELEMENT_NODE && !strcmp((const char *)n->name, "node")) walk_nodes(&s, n, id, zero, 0);
            if (s.locate) {
                kg_vec3_copy(kd->base_pos, s.root_p);
                kg_mat3_copy(kd->base_rot, s.root_r);
                if (m->root_body != 0) { /* a static world above the root: take the root's offset out */
                    const kg_joint *wj = &m->joint[m->link[m->root_body].joint];
                    double pt[3], inv_r[9], inv_p[3];
                    kg_mat3_mul_bt(inv_r, s.root_r, wj->rot); /* R_root R_j^T */
                    kg_mat3_vec(pt, inv_r, wj->pos);
                    for (int a = 0; a < 3; a++) inv_p[a] = s.root_p[a] - pt[a];
                    kg_mat3_copy(kd->base_rot, inv_r);
                    kg_vec3_copy(kd->base_pos, inv_p);
                }
                kg_fk(m, kd);
            }
        }
    }
    if (s.worst > 1e-9) fail_msg("%s: FK differs from the visual scene by %g", path, s.worst);
    int file_links = 0; /* not the links added to keep frames exact ("world", "<link>.joint") */
    for (int i = 0; i < m->nlink; i++) {
        const char *dot = strrchr(m->link[i].name, '.');
        file_links += m->link[i].real < 0 && i >= m->root_body && !(dot && !strcmp(dot, ".joint"));
    }
    if (s.compared != 3 * file_links) fail_msg("%s: %d of %d link poses compared", path, s.compared, 3 * file_links);
    printf("%s: %d link poses equal the visual scene's (worst %.1e)\n", strrchr(path, '/') + 1, s.compared, s.worst);
    xmlFreeDoc(doc);
    free(text);
    free(inner);
    kg_data_free(kd);
    kg_model_free(m);
    kg_diags_clear(&d);
}

static void test_fk_against_visual_scene(void **state) {
    (void)state;
    KG_REQUIRE_DATA(data);
    const char *files[] = {"openrave/zae/pumaarm.zae",         "openrave/zae/pumagripper.zae",
                           "openrave/zae/pr2-beta-static.zae", "openrave/zae/man1.zae",
                           "openrave/zae/kuka-youbot.zae",     "openrave/zae/neuronics-katana.zae",
                           "openrave/zae/mitsubishi-pa10.zae", "openrave/zae/schunk-lwa3.zae",
                           "openrave/zae/shadow-hand.zae",     "openrave/zae/barrett-wam-sensors.zae",
                           "pycollada/wam.dae"};
    for (size_t i = 0; i < sizeof files / sizeof *files; i++) {
        char path[4096];
        snprintf(path, sizeof path, "%s/collada/%s", data, files[i]);
        compare_visual_scene(path);
    }
}

static void test_refused_not_crashed(void **state) {
    (void)state;
    KG_REQUIRE_DATA(data);
    const struct {
        const char *file, *code;
    } cases[] = {
        {"collada/khronos_cts/library_kinematics_model/kinematics_model/technique_common/link/formula/formula.dae",
         "xml.malformed"}, /* the conformance suite's own file is not well-formed */
        {"collada/khronos_cts/library_formulas/formula/one_formula/one_formula.dae", "collada.empty"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        char path[4096];
        snprintf(path, sizeof path, "%s/%s", data, cases[i].file);
        kg_diags d;
        kg_model *m = load(path, &d);
        assert_null(m);
        const kg_diag *g = kg_test_find(&d, cases[i].code);
        if (!g) {
            kg_test_print_diags(&d);
            fail_msg("%s: expected %s", cases[i].file, cases[i].code);
        }
        assert_true(g->line > 0);
        kg_diags_clear(&d);
    }
    /* assimp's crash reproducer (a float_array shorter than its count) loads: the
     * skeleton and animation are sound, the mesh is read only when needed */
    char path[4096];
    snprintf(path, sizeof path, "%s/bad/collada/assimp_invalid/box_nested_animation_4286.dae", data);
    kg_diags d;
    kg_diags_init(&d);
    kg_motion *mo = NULL;
    kg_model *m = kg_load_clip(path, NULL, &mo, &d);
    assert_non_null(m);
    assert_non_null(mo);
    assert_int_equal(mo->nframes, 40); /* 40 keys, 1/24 s apart */
    kg_motion_free(mo);
    kg_model_free(m);
    kg_diags_clear(&d);
}

/* ---- skeletons and animations against assimp --------------------------------------- */

static double compare_animation(const char *ref_path, const char *data, int *ncompared) {
    char path[4096];
    const char *file;
    json_t *ref = kg_test_open_reference(ref_path, data, path, sizeof path, &file);
    if (!ref) return 0;
    kg_diags d;
    kg_diags_init(&d);
    kg_motion *mo = NULL;
    kg_model *m = kg_load_clip(path, NULL, &mo, &d);
    if (!m || !mo) fail_msg("%s: no model or no motion", file);
    kg_data *kd = kg_data_new(m);
    double worst = 0;
    json_t *frames = json_object_get(ref, "frames");
    for (size_t k = 0; k < json_array_size(frames); k++) {
        json_t *fr = json_array_get(frames, k);
        double t = json_number_value(json_object_get(fr, "time")), f = (t - mo->start_time) / mo->frame_time;
        if (fabs(f - nearbyint(f)) > 1e-3) fail_msg("%s: key time %g is not on the motion's frames", file, t);
        int frame = (int)nearbyint(f);
        assert_true(frame >= 0 && frame < mo->nframes);
        kg_motion_pose(mo, frame, kd);
        kg_fk(m, kd);
        json_t *nodes = json_object_get(fr, "nodes"), *nd;
        const char *name;
        double scale = kg_test_frame_scale(nodes);
        int compared = 0;
        json_object_foreach(nodes, name, nd) {
            int i = kg_model_link(m, name);
            if (i < 0) continue; /* geometry nodes, cameras: not links */
            double e = kg_test_pose_error(kd, i, nd, scale);
            /* assimp turns angles into rotations in single precision: a box spun through 64
             * turns (anims_with_full_rotations_between_keys) is 4e-5 rad off there */
            if (e > 1e-4) fail_msg("%s at %g s: link %s differs from assimp by %.3g", file, t, name, e);
            worst = fmax(worst, e);
            compared++;
        }
        assert_true(compared >= 1);
    }
    printf("  %s: worst %.2e\n", file, worst);
    kg_data_free(kd);
    kg_motion_free(mo);
    kg_model_free(m);
    kg_diags_clear(&d);
    json_decref(ref);
    ++*ncompared;
    return worst;
}

static void test_animations_against_assimp(void **state) {
    (void)state;
    KG_REQUIRE_DATA(data);
    glob_t g;
    assert_int_equal(glob(KG_SOURCE_DIR "/tests/reference/collada/*.json", 0, NULL, &g), 0);
    int n = 0;
    double worst = 0;
    for (size_t i = 0; i < g.gl_pathc; i++) worst = fmax(worst, compare_animation(g.gl_pathv[i], data, &n));
    globfree(&g);
    printf("%d animated COLLADA files agree with assimp: worst %.2e (of the scene's size; rotations absolute)\n", n, worst);
    assert_int_equal(n, 7);
}

/* Replaces the first `from` in *text by `to` (a new string; the old is freed). */
static void replace_first(char **text, const char *from, const char *to) {
    char *at = strstr(*text, from);
    assert_non_null(at);
    size_t n = strlen(*text) + strlen(to) + 1, head = (size_t)(at - *text);
    char *out = malloc(n);
    snprintf(out, n, "%.*s%s%s", (int)head, *text, to, at + strlen(from));
    free(*text);
    *text = out;
}

/* A COLLADA document's start and one animation: node NODE's rotate "r" turned
 * 0, 10, 20 degrees at the three TIMES; the caller writes the scene after it. */
static void one_channel(FILE *f, const char *times, const char *node) {
    fprintf(f, "<?xml version=\"1.0\"?><COLLADA xmlns=\"http://www.collada.org/2005/11/COLLADASchema\" "
               "version=\"1.4.1\"><library_animations><animation id=\"a\"><source id=\"t\">"
               "<float_array id=\"ta\" count=\"3\">%s</float_array><technique_common><accessor "
               "source=\"#ta\" count=\"3\"><param name=\"TIME\" type=\"float\"/></accessor></technique_common>"
               "</source><source id=\"v\"><float_array id=\"va\" count=\"3\">0 10 20</float_array><technique_common>"
               "<accessor source=\"#va\" count=\"3\"><param name=\"ANGLE\" type=\"float\"/></accessor>"
               "</technique_common></source><sampler id=\"s\"><input semantic=\"INPUT\" source=\"#t\"/>"
               "<input semantic=\"OUTPUT\" source=\"#v\"/></sampler><channel source=\"#s\" target=\"%s/r.ANGLE\"/>"
               "</animation></library_animations>",
            times, node);
}

/* Issue 26: an animation making more than 10^6 frames was cut there without a
 * word. Now the cut is an error with its code (the first 10^6 are kept). */
static void test_frame_cap_said(void **state) {
    (void)state;
    const char *clip = "HIERARCHY\nROOT a\n{\n OFFSET 0 0 0\n CHANNELS 1 Xrotation\n End Site\n {\n  OFFSET 0 0 1\n }\n}\n"
                       "MOTION\nFrames: 3\nFrame Time: 0.5\n1\n2\n3\n";
    kg_diags d;
    kg_diags_init(&d);
    kg_load_options o = {0};
    o.format = "bvh";
    kg_motion *mo = NULL;
    kg_model *m = kg_load_clip_buffer("tiny.bvh", clip, strlen(clip), &o, &mo, &d);
    assert_non_null(m);
    char *text = NULL;
    size_t size = 0;
    FILE *f = open_memstream(&text, &size);
    assert_int_equal(kg_export_collada(m, mo, NULL, f, NULL, &d), 0);
    fclose(f);
    kg_model_free(m);
    kg_motion_free(mo);
    /* keys at 0, 1 ms and 2000 s: a 1 ms grid over 2000 s, 2 000 001 frames */
    replace_first(&text, ">0 0.5 1</float_array>", ">0 0.001 2000</float_array>");
    replace_first(&text, "start=\"0\" end=\"1\"", "start=\"0\" end=\"3000\"");
    o.format = "collada";
    m = kg_load_clip_buffer("big.dae", text, strlen(text), &o, &mo, &d);
    free(text);
    assert_non_null(m);
    assert_non_null(mo);
    const kg_diag *g = kg_test_find(&d, "collada.too_many_frames");
    assert_non_null(g);
    assert_int_equal(g->severity, KG_ERROR);
    assert_true(g->line > 0);
    assert_int_equal(mo->nframes, 1000000);
    kg_model_free(m);
    kg_motion_free(mo);
    kg_diags_clear(&d);
}

/* Found by fuzz_collada: a 28 KB scene of 300 nested animated nodes whose
 * keys make a 1 ms grid over 999 s asked for 10^6 frames of 300 nodes and
 * 1 800 coordinates (14 GB, minutes). Frames times the values of a frame are
 * capped (KG_LIMIT_COLLADA_SAMPLES, lowered here through its environment
 * variable to keep the test short): an error with its code, the first frames
 * kept. */
static void test_sample_cap_said(void **state) {
    (void)state;
    int nodes = 50;
    size_t cap = 100000;
    char *doc = NULL;
    size_t size = 0;
    FILE *f = open_memstream(&doc, &size);
    one_channel(f, "0 0.001 99", "n0");
    fputs("<library_visual_scenes><visual_scene id=\"vs\">\n", f);
    for (int i = 0; i < nodes; i++)
        fprintf(f, "<node id=\"n%d\" sid=\"n%d\" name=\"n%d\" type=\"JOINT\"><rotate sid=\"r\">0 0 1 0</rotate>\n", i, i, i);
    for (int i = 0; i < nodes; i++) fputs("</node>", f);
    fputs("</visual_scene></library_visual_scenes><scene><instance_visual_scene url=\"#vs\"/></scene></COLLADA>", f);
    fclose(f);
    setenv("KG_LIMIT_COLLADA_SAMPLES", "100000", 1);
    kg_diags d;
    kg_diags_init(&d);
    kg_load_options o = {0};
    o.format = "collada";
    kg_motion *mo = NULL;
    kg_model *m = kg_load_clip_buffer("nodes.dae", doc, strlen(doc), &o, &mo, &d);
    unsetenv("KG_LIMIT_COLLADA_SAMPLES");
    free(doc);
    assert_non_null(m);
    assert_non_null(mo);
    const kg_diag *g = kg_test_find(&d, "collada.too_many_frames");
    assert_non_null(g);
    assert_int_equal(g->severity, KG_ERROR);
    assert_non_null(strstr(g->message, "KG_LIMIT_COLLADA_SAMPLES"));
    /* a frame: 50 nodes and 50 elements placed (100 < 350 coordinates: 50
     * free joints of 7) and one channel */
    assert_int_equal(m->nq, 7 * nodes);
    assert_int_equal(mo->nframes, cap / (size_t)(7 * nodes + 1));
    kg_model_free(m);
    kg_motion_free(mo);
    kg_diags_clear(&d);
}

/* An animation's target names its node by id, of any length: the importer
 * copied targets and ids into 512-byte buffers, so a node whose id was longer
 * was never found and its channel did nothing. */
static void test_long_id_target(void **state) {
    (void)state;
    size_t n = 700;
    char *id = malloc(n + 1), *doc = NULL;
    for (size_t k = 0; k < n; k++) id[k] = (char)('a' + k % 26);
    id[n] = 0;
    size_t size = 0;
    FILE *f = open_memstream(&doc, &size);
    one_channel(f, "0 1 2", id);
    fprintf(f, "<library_visual_scenes><visual_scene id=\"vs\"><node id=\"root\" sid=\"root\" name=\"root\" "
               "type=\"JOINT\"><node id=\"%s\" sid=\"j\" name=\"j\" type=\"JOINT\"><translate>0 0 1</translate>"
               "<rotate sid=\"r\">0 0 1 0</rotate></node></node></visual_scene></library_visual_scenes><scene>"
               "<instance_visual_scene url=\"#vs\"/></scene></COLLADA>",
            id);
    fclose(f);
    kg_diags d;
    kg_diags_init(&d);
    kg_load_options o = {0};
    o.format = "collada";
    kg_motion *mo = NULL;
    kg_model *m = kg_load_clip_buffer("long_id.dae", doc, strlen(doc), &o, &mo, &d);
    free(doc);
    free(id);
    assert_non_null(m);
    assert_non_null(mo);
    assert_true(mo->nframes >= 2);
    int turned = 0; /* the node's quaternion's z, from 0 to sin(10 degrees) as the channel turns it 20 */
    for (int k = 0; k < mo->nq; k++) {
        double lo = INFINITY, hi = -INFINITY;
        for (int fr = 0; fr < mo->nframes; fr++)
            lo = fmin(lo, mo->q[(size_t)fr * mo->nq + k]), hi = fmax(hi, mo->q[(size_t)fr * mo->nq + k]);
        turned += fabs(hi - lo - sin(10 * 3.14159265358979323846 / 180)) < 1e-6;
    }
    assert_int_equal(turned, 1);
    kg_model_free(m);
    kg_motion_free(mo);
    kg_diags_clear(&d);
}

/* Issue 26: two root <link>s in one kinematics model (a CATIA export) gave
 * error collada.several_roots and the second was dropped. Now both load, each
 * fixed to one static world link (a note says so). */
static void test_two_roots_make_a_forest(void **state) {
    (void)state;
    const char *urdf = "<robot name=\"two\"><link name=\"base\"/><link name=\"arm\"/>"
                       "<joint name=\"j\" type=\"revolute\"><parent link=\"base\"/><child link=\"arm\"/>"
                       "<origin xyz=\"0 0 1\"/><axis xyz=\"0 0 1\"/>"
                       "<limit lower=\"-1\" upper=\"1\" effort=\"1\" velocity=\"1\"/></joint></robot>";
    kg_diags d;
    kg_diags_init(&d);
    kg_model *m = kg_test_load_string("two.urdf", urdf, &d);
    assert_non_null(m);
    char *text = NULL;
    size_t size = 0;
    FILE *f = open_memstream(&text, &size);
    assert_int_equal(kg_export_collada(m, NULL, NULL, f, NULL, &d), 0);
    fclose(f);
    kg_model_free(m);
    replace_first(&text, "   </technique_common>\n  </kinematics_model>",
                  "    <link sid=\"l9\" name=\"stand\"><translate>2 0 0</translate></link>\n"
                  "   </technique_common>\n  </kinematics_model>");
    kg_diags_clear(&d);
    kg_diags_init(&d);
    kg_load_options o = {0};
    o.format = "collada";
    m = kg_load_buffer("forest.dae", text, strlen(text), &o, &d);
    free(text);
    assert_non_null(m);
    if (kg_diags_count(&d, KG_ERROR)) kg_test_print_diags(&d);
    assert_int_equal(kg_diags_count(&d, KG_ERROR), 0);
    const kg_diag *g = kg_test_find(&d, "collada.several_roots");
    assert_non_null(g);
    assert_int_equal(g->severity, KG_INFO);
    int stand = kg_model_link(m, "stand"), arm = kg_model_link(m, "arm"), base = kg_model_link(m, "base");
    assert_true(stand > 0 && arm > 0 && base > 0);
    assert_int_equal(m->link[stand].parent, 0);
    assert_int_equal(m->link[base].parent, 0);
    assert_string_equal(m->link[0].name, "world");
    kg_data *kd = kg_data_new(m);
    kg_fk(m, kd);
    KG_ASSERT_NEAR(kd->link_pos[3 * stand], 2, 1e-12);
    KG_ASSERT_NEAR(kd->link_pos[3 * arm + 2], 1, 1e-12);
    kg_data_free(kd);
    kg_model_free(m);
    kg_diags_clear(&d);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_openrave_robots),
        cmocka_unit_test(test_openrave_manipulators),
        cmocka_unit_test(test_units_limits_speed),
        cmocka_unit_test(test_fk_against_visual_scene),
        cmocka_unit_test(test_refused_not_crashed),
        cmocka_unit_test(test_animations_against_assimp),
        cmocka_unit_test(test_frame_cap_said),
        cmocka_unit_test(test_sample_cap_said),
        cmocka_unit_test(test_long_id_target),
        cmocka_unit_test(test_two_roots_make_a_forest),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
