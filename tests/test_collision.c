/* Self-collision: pair hits at 200 random poses agree with MuJoCo's (convex
 * hulls, tests/reference/collision/, by tests/peers/mujoco_collision_reference.cpp)
 * on at least 99 % of pair-pose checks; analytic cases (spheres and boxes at known
 * distances, a hull of a mesh against a box, the hull's tolerance); the allowed-collision matrix of the
 * sample has the adjacent pairs its tree says, does not depend on the thread
 * count, and states p_upper = 3/n for its "never" pairs. Exact tests (hulls'
 * hits confirmed on the meshes' triangles): triangle pairs and winding numbers
 * of known answer, and a U-shaped mesh whose notch a sphere and a cube enter
 * (the hull says hit, the surfaces do not), cross into (both say hit) and sit
 * inside (no surface meets; the winding number says hit); a triangle tree
 * answers as trying every pair of triangles does, for two tori at 1 000
 * random poses (linked, apart, crossing), and visits every triangle with a
 * vertex in a query box. */
#define _XOPEN_SOURCE 700
#include "testutil.h"

#include <glob.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/collision.h"
#include "analysis/trimesh.h"
#include "core/fk.h"
#include "core/spatial.h"
#include "formats/load.h"

static kg_model *load(const char *path, kg_diags *d) {
    kg_diags_init(d);
    kg_model *m = kg_load(path, NULL, d);
    if (!m) fail_msg("%s does not load", path);
    return m;
}

static int pair_index(const kg_collision_model *cm, int a, int b) {
    if (a > b) {
        int t = a;
        a = b;
        b = t;
    }
    for (int p = 0; p < cm->npair; p++)
        if (cm->pair_a[p] == a && cm->pair_b[p] == b) return p;
    return -1;
}

/* Frees what the tests build: the work space and pose (either may be NULL),
 * the collision model, the mesh cache and the model. */
static void free_scene(kg_collision_work *w, kg_data *kd, kg_collision_model *cm, kg_mesh_cache *mc, kg_model *m) {
    kg_collision_work_free(w);
    kg_data_free(kd);
    kg_collision_model_free(cm);
    kg_mesh_cache_free(mc);
    kg_model_free(m);
}

static void compare_mujoco(const char *ref_path, const char *data, int *nfiles, long *checks, long *agree) {
    char path[4096];
    const char *file;
    json_t *ref = kg_test_open_reference(ref_path, data, path, sizeof path, &file);
    if (!ref) return;
    kg_diags d;
    kg_model *m = load(path, &d);
    kg_mesh_cache *mc = kg_mesh_cache_new();
    kg_collision_model cm;
    assert_int_equal(kg_collision_model_build(m, mc, &cm, &d), 0);
    kg_data *kd = kg_data_new(m);
    kg_collision_work *w = kg_collision_work_new(&cm);
    unsigned char *hit = malloc((size_t)cm.npair + 1), *theirs = malloc((size_t)cm.npair + 1);
    long c0 = *checks, a0 = *agree, ours_only = 0, theirs_only = 0;
    json_t *poses = json_object_get(ref, "poses");
    for (size_t k = 0; k < json_array_size(poses); k++) {
        json_t *pose = json_array_get(poses, k), *q = json_object_get(pose, "q"), *v;
        const char *name;
        memcpy(kd->q, m->q_default, (size_t)m->nq * sizeof *kd->q);
        json_object_foreach(q, name, v) {
            int j = kg_model_joint(m, name);
            if (j < 0) fail_msg("%s: no joint %s", file, name);
            kd->q[m->joint[j].qadr] = json_number_value(v);
        }
        kg_fk(m, kd);
        kg_self_collisions(&cm, kd, w, NULL, hit);
        memset(theirs, 0, (size_t)cm.npair);
        json_t *pairs = json_object_get(pose, "pairs");
        for (size_t i = 0; i < json_array_size(pairs); i++) {
            json_t *pr = json_array_get(pairs, i);
            int a = kg_model_link(m, json_string_value(json_array_get(pr, 0)));
            int b = kg_model_link(m, json_string_value(json_array_get(pr, 1)));
            int p = a >= 0 && b >= 0 ? pair_index(&cm, a, b) : -1;
            if (p >= 0) theirs[p] = 1;
        }
        for (int p = 0; p < cm.npair; p++) {
            if (cm.adjacent[p]) continue; /* not checked by us */
            ++*checks;
            if (hit[p] == theirs[p]) ++*agree;
            else if (hit[p]) ours_only++;
            else theirs_only++;
        }
    }
    printf("  %s: %ld pair-pose checks, %.3f %% agree (%ld hits only ours, %ld only MuJoCo's)\n", file, *checks - c0,
           100.0 * (double)(*agree - a0) / (double)(*checks - c0), ours_only, theirs_only);
    assert_true((double)(*agree - a0) >= 0.99 * (double)(*checks - c0));
    free(hit);
    free(theirs);
    free_scene(w, kd, &cm, mc, m);
    kg_diags_clear(&d);
    json_decref(ref);
    ++*nfiles;
}

static void test_against_mujoco(void **state) {
    (void)state;
    const char *data = kg_test_data_dir();
    glob_t g;
    assert_int_equal(glob(KG_SOURCE_DIR "/tests/reference/collision/*.json", 0, NULL, &g), 0);
    int n = 0;
    long checks = 0, agree = 0;
    for (size_t i = 0; i < g.gl_pathc; i++) compare_mujoco(g.gl_pathv[i], data, &n, &checks, &agree);
    globfree(&g);
    printf("%d models: %.3f %% of %ld pair-pose checks agree with MuJoCo\n", n, 100.0 * (double)agree / (double)checks,
           checks);
    assert_true(n >= (data ? 2 : 1));
}

/* Two bodies on a prismatic slider: a sphere (r 0.1) and a box (0.2 wide), the box
 * sliding along x towards the sphere; and a mesh (a tetrahedron, as its hull). */
static const char slider[] =
    "<robot name='s'><link name='base'><collision><geometry><sphere radius='0.1'/></geometry></collision></link>"
    "<link name='mid'/>"
    "<link name='car'><collision><geometry><box size='0.2 0.2 0.2'/></geometry></collision></link>"
    "<joint name='x' type='prismatic'><parent link='base'/><child link='mid'/><axis xyz='1 0 0'/>"
    "<limit lower='0' upper='2' effort='1' velocity='1'/></joint>"
    "<joint name='f' type='fixed'><parent link='mid'/><child link='car'/></joint>"
    "<link name='arm'/><link name='post'><collision><origin xyz='0 0 0.5'/><geometry><cylinder radius='0.05' length='0.4'/>"
    "</geometry></collision></link>"
    "<joint name='y' type='prismatic'><parent link='base'/><child link='arm'/><axis xyz='0 1 0'/>"
    "<limit lower='-1' upper='1' effort='1' velocity='1'/></joint>"
    "<joint name='g' type='fixed'><parent link='arm'/><child link='post'/></joint></robot>";

static void test_analytic(void **state) {
    (void)state;
    kg_diags d;
    kg_diags_init(&d);
    kg_model *m = kg_test_load_string("slider.urdf", slider, &d);
    assert_non_null(m);
    kg_mesh_cache *mc = kg_mesh_cache_new();
    kg_collision_model cm;
    assert_int_equal(kg_collision_model_build(m, mc, &cm, &d), 0);
    int base = kg_model_link(m, "base"), car = kg_model_link(m, "car"), post = kg_model_link(m, "post");
    int sc = pair_index(&cm, base, car), sp = pair_index(&cm, base, post), cp = pair_index(&cm, car, post);
    assert_true(sc >= 0 && sp >= 0 && cp >= 0);
    /* base-car meet through 'mid', which has no geometry: adjacent */
    assert_int_equal(cm.adjacent[sc], 1);
    assert_int_equal(cm.adjacent[sp], 1);
    assert_int_equal(cm.adjacent[cp], 0);
    kg_data *kd = kg_data_new(m);
    kg_collision_work *w = kg_collision_work_new(&cm);
    unsigned char check[8] = {0}, hit[8];
    for (int p = 0; p < cm.npair; p++) check[p] = 1; /* adjacent pairs too, here */
    int jx = m->joint[kg_model_joint(m, "x")].qadr, jy = m->joint[kg_model_joint(m, "y")].qadr;
    /* sphere (r 0.1) and box (half 0.1) along x: touching below a gap of 0.2 */
    const double xs[] = {0.15, 0.199, 0.201, 0.5};
    const int want[] = {1, 1, 0, 0};
    kd->q[jy] = 0.8; /* the post out of the way */
    for (int k = 0; k < 4; k++) {
        kd->q[jx] = xs[k];
        kg_fk(m, kd);
        kg_self_collisions(&cm, kd, w, check, hit);
        if (hit[sc] != want[k]) fail_msg("sphere-box at x = %g: hit %d, expected %d", xs[k], hit[sc], want[k]);
        /* the overlap is 0.2 - x deep along x; moving the pair's second link that
         * far along dir separates them */
        double depth, dir[3], pos[3];
        int pen = kg_pair_penetration(&cm, w, sc, &depth, dir, pos);
        assert_int_equal(pen, xs[k] < 0.2);
        if (!pen) continue;
        double away = cm.pair_b[sc] == car ? 1 : -1;
        assert_float_equal(depth, 0.2 - xs[k], 1e-4);
        assert_float_equal(dir[0], away, 1e-4);
        assert_true(pos[0] > xs[k] - 0.1 - 1e-4 && pos[0] < 0.1 + 1e-4);
    }
    /* the cylinder post (z 0.3..0.7) never reaches the sphere (top at z 0.1) */
    kd->q[jy] = 0;
    kg_fk(m, kd);
    kg_self_collisions(&cm, kd, w, check, hit);
    assert_int_equal(hit[sp], 0);
    free_scene(w, kd, &cm, mc, m);
    kg_diags_clear(&d);
}

/* A hull leaves out points within KG_CONVEX_TOLERANCE of it and keeps those
 * beyond: an octahedron of radius 20 cm with a point 50 um outside the middle
 * of a face hulls to its 6 corners (the support across that face stays on it),
 * with the point 0.5 mm outside to 7 vertices (the support reaches it). One of
 * radius 1 cm scales the tolerance down to 1/1000 of its size: 20 um keeps a
 * point. */
static void test_hull_tolerance(void **state) {
    (void)state;
    const double n[3] = {1 / sqrt(3), 1 / sqrt(3), 1 / sqrt(3)};
    const struct {
        double r, out;
        int nvert;
    } cases[] = {{0.2, 50e-6, 6}, {0.2, 0.5e-3, 7}, {0.01, 20e-6, 7}};
    for (size_t c = 0; c < sizeof cases / sizeof *cases; c++) {
        double pts[7][3] = {{0}}, r = cases[c].r;
        for (int k = 0; k < 6; k++) pts[k][k / 2] = k % 2 ? -r : r;
        for (int a = 0; a < 3; a++) pts[6][a] = r / 3 + cases[c].out * n[a];
        kg_convex cv;
        assert_int_equal(kg_convex_hull(&pts[0][0], 7, &cv), 0);
        int hint = 0;
        double s[3];
        kg_convex_support(&cv, n, &hint, s);
        double reach = s[0] * n[0] + s[1] * n[1] + s[2] * n[2], want = r / sqrt(3) + (cases[c].nvert == 7 ? cases[c].out : 0);
        if (cv.nvert != cases[c].nvert || fabs(reach - want) > 1e-12)
            fail_msg("octahedron %g, point %g out: %d vertices, reach %.9g (expected %d, %.9g)", r, cases[c].out,
                     cv.nvert, reach, cases[c].nvert, want);
        kg_convex_free(&cv);
    }
}

static void test_matrix(void **state) {
    (void)state;
    kg_diags d;
    kg_model *m = load(KG_SOURCE_DIR "/samples/humanoid.urdf", &d);
    kg_mesh_cache *mc = kg_mesh_cache_new();
    kg_collision_model cm;
    assert_int_equal(kg_collision_model_build(m, mc, &cm, &d), 0);
    kg_acm_options o = {.max_samples = 20000, .seed = 7, .threads = 1};
    kg_acm a1, a2;
    assert_int_equal(kg_collision_matrix(m, &cm, &o, &a1), 0);
    o.threads = 2;
    assert_int_equal(kg_collision_matrix(m, &cm, &o, &a2), 0);
    assert_int_equal(a1.samples, a2.samples);
    int never = 0, adjacent = 0;
    for (int p = 0; p < cm.npair; p++) {
        assert_int_equal(a1.cls[p], a2.cls[p]);
        assert_true(a1.hits[p] == a2.hits[p]);
        if (a1.cls[p] == KG_PAIR_NEVER) {
            KG_ASSERT_NEAR(a1.p_upper[p], 3.0 / (double)a1.samples, 1e-15);
            never++;
        }
        if (a1.cls[p] == KG_PAIR_ADJACENT) {
            adjacent++;
            /* a link with geometry and its parent: joined by a joint */
            int a = cm.pair_a[p], b = cm.pair_b[p];
            (void)a;
            (void)b;
        }
        if (a1.cls[p] == KG_PAIR_SOMETIMES) assert_true(a1.hits[p] > 0 && a1.hits[p] < a1.samples);
    }
    /* every joint of the sample joins two links with geometry (its tree has 27 joints,
     * three of them to links without collision geometry) */
    assert_true(adjacent >= 14);
    assert_true(never > 0);
    printf("sample humanoid: %d pairs, %d adjacent, %d never after %ld samples\n", cm.npair, adjacent, never, a1.samples);
    kg_acm_free(&a1);
    kg_acm_free(&a2);
    free_scene(NULL, NULL, &cm, mc, m);
    kg_diags_clear(&d);
}

static void test_triangles(void **state) {
    (void)state;
    const double a0[3] = {0, 0, 0}, a1[3] = {1, 0, 0}, a2[3] = {0, 1, 0};
    /* a vertical triangle through a's interior, above it only, touching at a point, beyond its edge */
    const double b[][3][3] = {{{0.2, 0.2, -1}, {0.2, 0.2, 1}, {0.3, 0.3, 1}},
                              {{0.2, 0.2, 0.1}, {0.2, 0.2, 1}, {0.3, 0.3, 1}},
                              {{0.2, 0.2, 0}, {0.2, 0.2, 1}, {0.3, 0.3, 1}},
                              {{0.6, 0.6, -1}, {0.6, 0.6, 1}, {0.7, 0.7, 1}}};
    const int want[] = {1, 0, 1, 0};
    for (int k = 0; k < 4; k++) {
        assert_int_equal(kg_triangles_meet(a0, a1, a2, b[k][0], b[k][1], b[k][2]), want[k]);
        assert_int_equal(kg_triangles_meet(b[k][0], b[k][1], b[k][2], a0, a1, a2), want[k]);
    }
    const double flat[3] = {0.5, 0, 0}; /* a degenerate triangle meets nothing */
    assert_int_equal(kg_triangles_meet(a0, a1, flat, b[0][0], b[0][1], b[0][2]), 0);
    /* the unit tetrahedron, outward: 1 inside (also a hair from a face), 0 outside */
    const double v[] = {0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1};
    const int tri[] = {0, 2, 1, 0, 1, 3, 0, 3, 2, 1, 2, 3};
    const double in[3] = {0.1, 0.1, 0.1}, out[3] = {1, 1, 1}, face[3] = {0.2, 0.2, 1e-9};
    assert_float_equal(kg_winding_number(v, tri, 4, in), 1, 1e-12);
    assert_float_equal(kg_winding_number(v, tri, 4, out), 0, 1e-12);
    assert_float_equal(kg_winding_number(v, tri, 4, face), 1, 1e-6);
}

/* Boxes (lo, hi corners) as one mesh, outward triangles. */
static void boxes_mesh(kg_mesh *me, const double (*box)[6], int n) {
    memset(me, 0, sizeof *me);
    me->nvert = 8 * n, me->ntri = 12 * n;
    me->vert = malloc(sizeof(double) * 3 * (size_t)me->nvert);
    me->tri = malloc(sizeof(int) * 3 * (size_t)me->ntri);
    static const int quads[6][4] = {{0, 2, 3, 1}, {4, 5, 7, 6}, {0, 1, 5, 4}, {2, 6, 7, 3}, {0, 4, 6, 2}, {1, 3, 7, 5}};
    for (int b = 0; b < n; b++) {
        for (int c = 0; c < 8; c++)
            for (int a = 0; a < 3; a++) me->vert[3 * (8 * b + c) + a] = box[b][(c >> a & 1) ? 3 + a : a];
        for (int f = 0; f < 6; f++) {
            int *t = me->tri + 3 * (12 * b + 2 * f);
            const int *q = quads[f];
            t[0] = 8 * b + q[0], t[1] = 8 * b + q[1], t[2] = 8 * b + q[2];
            t[3] = 8 * b + q[0], t[4] = 8 * b + q[2], t[5] = 8 * b + q[3];
        }
    }
}

static void test_exact(void **state) {
    (void)state;
    char dir[] = "/tmp/kg_exact_XXXXXX", path[256];
    assert_non_null(mkdtemp(dir));
    kg_diags d;
    kg_diags_init(&d);
    /* a U: two posts (x 0.05..0.15 either side, z 0..0.2) on a bar; the notch between them is in its hull */
    const double u[3][6] = {{-0.15, -0.05, 0, -0.05, 0.05, 0.2}, {0.05, -0.05, 0, 0.15, 0.05, 0.2},
                            {-0.15, -0.05, -0.05, 0.15, 0.05, 0}};
    const double cube[1][6] = {{-0.015, -0.015, -0.015, 0.015, 0.015, 0.015}};
    kg_mesh me;
    boxes_mesh(&me, u, 3);
    snprintf(path, sizeof path, "%s/u.stl", dir);
    assert_int_equal(kg_mesh_write_stl(&me, path, &d), 0);
    free(me.vert), free(me.tri);
    boxes_mesh(&me, cube, 1);
    snprintf(path, sizeof path, "%s/cube.stl", dir);
    assert_int_equal(kg_mesh_write_stl(&me, path, &d), 0);
    free(me.vert), free(me.tri);
    const char *urdf =
        "<robot name='u'><link name='base'><collision><geometry><mesh filename='u.stl'/></geometry></collision></link>"
        "<link name='ball'><collision><geometry><sphere radius='0.02'/></geometry></collision></link>"
        "<link name='cube'><collision><geometry><mesh filename='cube.stl'/></geometry></collision></link>"
        "<joint name='x1' type='prismatic'><parent link='base'/><child link='ball'/><origin xyz='0 -0.025 0.1'/>"
        "<axis xyz='1 0 0'/><limit lower='-1' upper='1' effort='1' velocity='1'/></joint>"
        "<joint name='x2' type='prismatic'><parent link='base'/><child link='cube'/><origin xyz='0 0.025 0.1'/>"
        "<axis xyz='1 0 0'/><limit lower='-1' upper='1' effort='1' velocity='1'/></joint></robot>";
    snprintf(path, sizeof path, "%s/u.urdf", dir);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(urdf, f);
    fclose(f);
    kg_model *m = load(path, &d);
    kg_mesh_cache *mc = kg_mesh_cache_new();
    kg_collision_model cm;
    assert_int_equal(kg_collision_model_build(m, mc, &cm, &d), 0);
    int base = kg_model_link(m, "base"), pb = pair_index(&cm, base, kg_model_link(m, "ball")),
        pc = pair_index(&cm, base, kg_model_link(m, "cube"));
    assert_true(pb >= 0 && pc >= 0);
    kg_data *kd = kg_data_new(m);
    kg_collision_work *w = kg_collision_work_new(&cm);
    unsigned char check[3] = {1, 1, 1}, hit[3];
    int j1 = m->joint[kg_model_joint(m, "x1")].qadr, j2 = m->joint[kg_model_joint(m, "x2")].qadr;
    /* in the notch's middle; crossing a post's inner face (x 0.05); inside the post; outside the U */
    const double xs[] = {0, 0.05, 0.1, 0.3};
    const int hull[] = {1, 1, 1, 0}, exact[] = {0, 1, 1, 0};
    for (int k = 0; k < 4; k++) {
        kd->q[j1] = xs[k], kd->q[j2] = -xs[k];
        kg_fk(m, kd);
        for (cm.exact = 0; cm.exact < 2; cm.exact++) {
            kg_self_collisions(&cm, kd, w, check, hit);
            const int *want = cm.exact ? exact : hull;
            if (hit[pb] != want[k] || hit[pc] != want[k])
                fail_msg("x = %g, exact %d: ball %d, cube %d, expected %d", xs[k], cm.exact, hit[pb], hit[pc], want[k]);
        }
    }
    free_scene(w, kd, &cm, mc, m);
    kg_diags_clear(&d);
    kg_test_remove_dir(dir);
}

/* A torus about z (radii R and r), nu x nv quads as triangles. */
static void torus(kg_trimesh *t, double R, double r, int nu, int nv) {
    t->nvert = nu * nv, t->ntri = 2 * nu * nv, t->nnode = 0, t->node = NULL;
    t->vert = malloc(sizeof(double) * 3 * (size_t)t->nvert);
    t->tri = malloc(sizeof(int) * 3 * (size_t)t->ntri);
    for (int i = 0; i < nu; i++)
        for (int j = 0; j < nv; j++) {
            double u = 2 * KG_PI * i / nu, v = 2 * KG_PI * j / nv, *x = t->vert + 3 * (i * nv + j);
            x[0] = (R + r * cos(v)) * cos(u), x[1] = (R + r * cos(v)) * sin(u), x[2] = r * sin(v);
            int a = i * nv + j, b = ((i + 1) % nu) * nv + j, c = ((i + 1) % nu) * nv + (j + 1) % nv,
                e = i * nv + (j + 1) % nv, *q = t->tri + 6 * (i * nv + j);
            q[0] = a, q[1] = b, q[2] = c, q[3] = a, q[4] = c, q[5] = e;
        }
}

static int record(void *ctx, int t) {
    ((unsigned char *)ctx)[t] = 1;
    return 0;
}

static void test_tree(void **state) {
    (void)state;
    kg_trimesh a, b;
    torus(&a, 0.1, 0.03, 20, 10);
    torus(&b, 0.08, 0.02, 16, 8);
    assert_int_equal(kg_trimesh_index(&a), 0);
    assert_int_equal(kg_trimesh_index(&b), 0);
    unsigned char *seen = malloc((size_t)a.ntri);
    uint64_t seed = 12345;
    int meets = 0;
    for (int n = 0; n < 1000; n++) {
        double g[7], R[9], p[3];
        for (int k = 0; k < 7; k++) {
            seed = seed * 6364136223846793005u + 1442695040888963407u;
            g[k] = (double)(seed >> 11) / 9007199254740992.0;
        }
        double qn = 0, q[4];
        for (int k = 0; k < 4; k++) q[k] = g[k] - 0.5, qn += q[k] * q[k];
        for (int k = 0; k < 4; k++) q[k] /= sqrt(qn);
        kg_rot_from_quat(R, q);
        for (int k = 0; k < 3; k++) p[k] = (g[4 + k] - 0.5) * (k == 2 ? 0.15 : 0.4);
        int brute = 0;
        for (int j = 0; j < b.ntri && !brute; j++) {
            double v[9];
            for (int k = 0; k < 3; k++) {
                kg_mat3_vec(v + 3 * k, R, b.vert + 3 * b.tri[3 * j + k]);
                for (int e = 0; e < 3; e++) v[3 * k + e] += p[e];
            }
            for (int i = 0; i < a.ntri && !brute; i++) {
                const int *t = a.tri + 3 * i;
                brute = kg_triangles_meet(a.vert + 3 * t[0], a.vert + 3 * t[1], a.vert + 3 * t[2], v, v + 3, v + 6);
            }
        }
        if (kg_trimeshes_meet(&a, &b, R, p, NULL) != brute) fail_msg("pose %d: tree %d, all pairs %d", n, !brute, brute);
        meets += brute;
        /* the box of half sides 0.03, 0.01, 0.05 at p, axes R's columns */
        const double h[3] = {0.03, 0.01, 0.05};
        memset(seen, 0, (size_t)a.ntri);
        kg_trimesh_visit(&a, p, R, h, record, seen);
        for (int i = 0; i < a.ntri; i++)
            for (int k = 0; k < 3; k++) {
                double d[3], l[3];
                for (int e = 0; e < 3; e++) d[e] = a.vert[3 * a.tri[3 * i + k] + e] - p[e];
                kg_mat3_tvec(l, R, d);
                if (fabs(l[0]) <= h[0] && fabs(l[1]) <= h[1] && fabs(l[2]) <= h[2] && !seen[i])
                    fail_msg("pose %d: triangle %d has a vertex in the box but was not visited", n, i);
            }
    }
    /* both answers occur often */
    printf("%d of 1000 poses meet\n", meets);
    assert_true(meets > 100 && meets < 900);
    free(seen);
    kg_trimesh_free(&a);
    kg_trimesh_free(&b);
}

int main(void) {
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_against_mujoco), cmocka_unit_test(test_analytic),
                                       cmocka_unit_test(test_hull_tolerance), cmocka_unit_test(test_matrix),
                                       cmocka_unit_test(test_triangles), cmocka_unit_test(test_exact),
                                       cmocka_unit_test(test_tree)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
