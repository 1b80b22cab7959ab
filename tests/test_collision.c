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
 * vertex in a query box. Distances (analysis/gjk.h, kg_pair_distance): exact
 * on primitives in known configurations, within 1e-7 m of cvxopt's on random
 * point clouds and on G1 link pairs (tests/reference/distance/), positive
 * exactly where kg_self_collisions finds no hit on G1 at random poses, with
 * witnesses on the hulls' supporting planes, and 1e-5 farther after a move of
 * 1e-5 along n. */
#define _XOPEN_SOURCE 700
#include "testutil.h"

#include <glob.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analysis/collision.h"
#include "analysis/gjk.h"
#include "analysis/sampling.h"
#include "analysis/trimesh.h"
#include "core/fk.h"
#include "core/spatial.h"
#include "io/load.h"

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
 * sliding along x towards the sphere; and a cylinder on a post sliding along y. */
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

/* The slider above, loaded, its collision model built. */
static kg_model *slider_scene(kg_diags *d, kg_mesh_cache **mc, kg_collision_model *cm) {
    kg_model *m = kg_test_load_string("slider.urdf", slider, d);
    assert_non_null(m);
    *mc = kg_mesh_cache_new();
    assert_int_equal(kg_collision_model_build(m, *mc, cm, d), 0);
    return m;
}

static void test_analytic(void **state) {
    (void)state;
    kg_diags d;
    kg_diags_init(&d);
    kg_mesh_cache *mc;
    kg_collision_model cm;
    kg_model *m = slider_scene(&d, &mc, &cm);
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

/* A kg_progress_fn that keeps its reports (in test_matrix's struct). */
static void report(void *user, long done, long total) {
    struct { long last, total; int calls, backwards; } *pg = user;
    pg->backwards |= done < pg->last;
    pg->last = done, pg->total = total, pg->calls++;
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
    /* the progress: the last report is the samples drawn, of max_samples, never going back */
    struct { long last, total; int calls, backwards; } pg = {0};
    o.progress = report, o.progress_user = &pg;
    assert_int_equal(kg_collision_matrix(m, &cm, &o, &a2), 0);
    assert_true(pg.calls >= a2.rounds);
    assert_int_equal(pg.last, a2.samples);
    assert_int_equal(pg.total, 20000);
    assert_false(pg.backwards);
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

/* dir/u.stl, a U: two posts (x 0.05..0.15 either side, z 0..0.2) on a bar, the
 * notch between them in its hull; and dir/cube.stl, a 3 cm cube. */
static void write_u_and_cube(const char *dir, kg_diags *d) {
    const double u[3][6] = {{-0.15, -0.05, 0, -0.05, 0.05, 0.2}, {0.05, -0.05, 0, 0.15, 0.05, 0.2},
                            {-0.15, -0.05, -0.05, 0.15, 0.05, 0}};
    const double cube[1][6] = {{-0.015, -0.015, -0.015, 0.015, 0.015, 0.015}};
    char path[256];
    kg_mesh me;
    boxes_mesh(&me, u, 3);
    snprintf(path, sizeof path, "%s/u.stl", dir);
    assert_int_equal(kg_mesh_write_stl(&me, path, d), 0);
    free(me.vert), free(me.tri);
    boxes_mesh(&me, cube, 1);
    snprintf(path, sizeof path, "%s/cube.stl", dir);
    assert_int_equal(kg_mesh_write_stl(&me, path, d), 0);
    free(me.vert), free(me.tri);
}

static void test_exact(void **state) {
    (void)state;
    char dir[] = "/tmp/kg_exact_XXXXXX", path[256];
    assert_non_null(mkdtemp(dir));
    kg_diags d;
    kg_diags_init(&d);
    write_u_and_cube(dir, &d);
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

/* ---- distances --------------------------------------------------------------------------- */

static const double eye[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1}, origin[3] = {0, 0, 0};

/* A primitive of type t with sizes s (half extents; radius, half length). */
static kg_convex primitive(kg_convex_type t, double s0, double s1, double s2) {
    kg_convex c;
    memset(&c, 0, sizeof c);
    c.type = t, c.size[0] = s0, c.size[1] = s1, c.size[2] = s2;
    kg_mat3_identity(c.rot);
    kg_convex_bounds(&c);
    return c;
}

/* How far c placed at (R, p) reaches along world direction n: max n.x over it. */
static double reach(const kg_convex *c, const double R[9], const double p[3], const double n[3]) {
    double l[3], s[3], x[3];
    int hint = 0;
    kg_mat3_tvec(l, R, n);
    kg_convex_support(c, l, &hint, s);
    kg_mat3_vec(x, R, s);
    return kg_vec3_dot(x, n) + kg_vec3_dot(p, n);
}

static int gjk(const kg_convex *a, const double Ra[9], const double pa[3], const kg_convex *b, const double Rb[9],
               const double pb[3], const double *guess, kg_gjk_result *r) {
    int ha = 0, hb = 0;
    kg_gjk_shape A = {a, Ra, pa, &ha}, B = {b, Rb, pb, &hb};
    return kg_gjk_distance(&A, &B, guess, INFINITY, 0, r);
}

/* The witnesses agree with the distance: n unit, pb = pa + dist n, and pa on
 * a's supporting plane along n (a reaches along n to n.pa: max_a), pb on b's
 * along -n (min_b = -(b's reach along -n)). */
static void check_witnesses(const char *what, const kg_gjk_result *r, double max_a, double min_b, double tol) {
    double e = fabs(kg_vec3_norm(r->n) - 1);
    for (int k = 0; k < 3; k++) e = fmax(e, fabs(r->pb[k] - r->pa[k] - r->dist * r->n[k]));
    e = fmax(e, fmax(fabs(kg_vec3_dot(r->n, r->pa) - max_a), fabs(kg_vec3_dot(r->n, r->pb) - min_b)));
    if (e > tol) fail_msg("%s: witnesses off by %.3g", what, e);
}

/* GJK between two shapes placed in the world gives want (m) to 1e-9, either
 * way round, with witnesses on the shapes; returns the error. */
static double expect_distance(const char *what, const kg_convex *a, const double Ra[9], const double pa[3],
                              const kg_convex *b, const double Rb[9], const double pb[3], double want) {
    kg_gjk_result r, s;
    if (!gjk(a, Ra, pa, b, Rb, pb, NULL, &r) || !gjk(b, Rb, pb, a, Ra, pa, NULL, &s))
        fail_msg("%s: GJK says the shapes meet (expected %.12g apart)", what, want);
    double err = fmax(fabs(r.dist - want), fabs(s.dist - want));
    if (err > 1e-9) fail_msg("%s: %.15g and %.15g, expected %.15g", what, r.dist, s.dist, want);
    for (int k = 0; k < 3; k++)
        if (fabs(r.n[k] + s.n[k]) > 1e-6 && r.dist > 0) fail_msg("%s: the normals either way are not opposite", what);
    double m[3] = {-r.n[0], -r.n[1], -r.n[2]};
    check_witnesses(what, &r, reach(a, Ra, pa, r.n), -reach(b, Rb, pb, m), 1e-9);
    return err;
}

/* kg_convex_coarse on a sphere's hull (2 000 points of a Fibonacci lattice,
 * radius 0.1 m): fewer vertices; it holds the fine hull (its support, margin
 * included, reaches at least as far as the fine one's in 2 000 directions of
 * another lattice, and not farther than the margin beyond it); the margin
 * is about the width asked (at most twice); a distance between two coarse
 * hulls is at most the fine hulls' and at least that less both margins. */
static void test_coarse(void **state) {
    (void)state;
    enum { N = 2000 };
    static double pts[N][3];
    const double R = 0.1, golden = 2.399963229728653, width = 0.002;
    for (int i = 0; i < N; i++) {
        double z = 1 - (2.0 * i + 1) / N, r = sqrt(1 - z * z);
        pts[i][0] = R * r * cos(i * golden), pts[i][1] = R * r * sin(i * golden), pts[i][2] = R * z;
    }
    kg_convex fine, coarse;
    assert_int_equal(kg_convex_hull(&pts[0][0], N, &fine), 0);
    kg_mat3_identity(fine.rot);
    assert_int_equal(kg_convex_coarse(&fine, width, &coarse), 0);
    if (!(coarse.nvert < fine.nvert / 3) || !(coarse.margin > 0 && coarse.margin <= 2 * width))
        fail_msg("coarse: %d of %d vertices, margin %.3g m", coarse.nvert, fine.nvert, coarse.margin);
    double worst_in = INFINITY, worst_out = 0;
    for (int i = 0; i < N; i++) { /* directions between the points' (half a step along the lattice) */
        double z = 1 - (2.0 * i + 1.5) / N, r = sqrt(1 - z * z), u[3] = {r * cos(i * golden + 1), r * sin(i * golden + 1), z};
        double gap = reach(&coarse, eye, origin, u) - reach(&fine, eye, origin, u);
        worst_in = fmin(worst_in, gap), worst_out = fmax(worst_out, gap);
    }
    if (worst_in < -1e-12 || worst_out > coarse.margin + 1e-12)
        fail_msg("coarse reaches %.3g .. %.3g beyond the fine hull (margin %.3g)", worst_in, worst_out, coarse.margin);
    const double pb[3] = {0.23, 0.05, -0.02};
    kg_gjk_result f, c;
    assert_true(gjk(&fine, eye, origin, &fine, eye, pb, NULL, &f));
    assert_true(gjk(&coarse, eye, origin, &coarse, eye, pb, NULL, &c));
    if (!(c.dist <= f.dist + 1e-12 && c.dist >= f.dist - 2 * coarse.margin - 1e-12))
        fail_msg("coarse distance %.9g, fine %.9g, margin %.3g", c.dist, f.dist, coarse.margin);
    kg_convex_free(&fine), kg_convex_free(&coarse);
}

/* GJK on primitives and a hull in configurations of known distance: spheres
 * apart and overlapping (their cores apart: the exact negative distance),
 * a sphere off a turned box's face, edge and corner, boxes face to face, corner
 * to corner, edge to face and edge across edge, a tetrahedron's vertex over a
 * face, capsules parallel (beside each other and beyond their ends), crossing,
 * skew and overlapping, a cylinder beside a sphere; boxes that meet say so. */
static void test_distance_analytic(void **state) {
    (void)state;
    const double s2 = sqrt(2.0);
    kg_convex ball = primitive(KG_CONVEX_SPHERE, 0.1, 0, 0), bead = primitive(KG_CONVEX_SPHERE, 0.05, 0, 0);
    kg_convex slab = primitive(KG_CONVEX_BOX, 0.1, 0.2, 0.3), cube = primitive(KG_CONVEX_BOX, 0.1, 0.1, 0.1);
    kg_convex dice = primitive(KG_CONVEX_BOX, 0.05, 0.05, 0.05), rod = primitive(KG_CONVEX_CAPSULE, 0.05, 0.2, 0);
    kg_convex pin = primitive(KG_CONVEX_CAPSULE, 0.07, 0.25, 0), can = primitive(KG_CONVEX_CYLINDER, 0.05, 0.1, 0);
    double worst = 0, Rt[9], Rz[9], Rx[9], Ry[9], Rs[9], Rq[9];
    const double zaxis[3] = {0, 0, 1}, xaxis[3] = {1, 0, 0}, yaxis[3] = {0, 1, 0}, tilt[3] = {1, 2, 3};
    kg_rot_axis_angle(Rz, zaxis, KG_PI / 4);
    kg_rot_axis_angle(Rx, xaxis, KG_PI / 4);
    kg_rot_axis_angle(Ry, yaxis, KG_PI / 4);
    worst = fmax(worst, expect_distance("sphere-sphere", &ball, eye, origin, &bead, eye, (double[]){0.3, 0.2, -0.1},
                                        sqrt(0.14) - 0.15));
    worst = fmax(worst, expect_distance("spheres overlapping", &ball, eye, origin, &bead, eye, (double[]){0.1, 0, 0}, -0.05));
    /* a sphere off a box turned about (1 2 3): the distance from its centre to the box, in the box's frame */
    double nt[3] = {tilt[0] / sqrt(14), tilt[1] / sqrt(14), tilt[2] / sqrt(14)};
    kg_rot_axis_angle(Rt, nt, 0.7);
    const double at[3] = {0.2, -0.1, 0.3}, local[3][3] = {{0.35, 0.05, -0.1}, {0.3, 0.4, 0.1}, {-0.3, 0.45, -0.5}};
    for (int c = 0; c < 3; c++) {
        double w[3], g = 0;
        kg_mat3_vec(w, Rt, local[c]);
        for (int k = 0; k < 3; k++) {
            w[k] += at[k];
            double e = fabs(local[c][k]) - slab.size[k];
            g += e > 0 ? e * e : 0;
        }
        worst = fmax(worst, expect_distance("sphere-box", &slab, Rt, at, &bead, eye, w, sqrt(g) - 0.05));
    }
    worst = fmax(worst, expect_distance("box-box faces", &slab, eye, origin, &dice, eye, (double[]){0.4, 0.1, 0.05}, 0.25));
    worst = fmax(worst, expect_distance("box-box corners", &slab, eye, origin, &dice, eye, (double[]){0.3, 0.4, 0.5},
                                        sqrt(3) * 0.15));
    worst = fmax(worst, expect_distance("box edge to face", &cube, eye, origin, &cube, Rz, (double[]){0.5, 0.03, 0.02},
                                        0.4 - 0.1 * s2));
    worst = fmax(worst, expect_distance("box edge across edge", &cube, Rx, origin, &cube, Ry, (double[]){0.01, 0.02, 0.5},
                                        0.5 - 0.2 * s2));
    const double tet[4][3] = {{0, 0, -0.1}, {0.1, 0, 0.05}, {-0.05, 0.0866, 0.05}, {-0.05, -0.0866, 0.05}};
    kg_convex hull;
    assert_int_equal(kg_convex_hull(&tet[0][0], 4, &hull), 0);
    assert_int_equal(hull.nvert, 4);
    worst = fmax(worst, expect_distance("vertex to face", &cube, eye, origin, &hull, eye, (double[]){0.02, 0.01, 0.4}, 0.2));
    worst = fmax(worst, expect_distance("capsules side by side", &rod, eye, origin, &pin, eye, (double[]){0.5, 0, 0.05}, 0.38));
    worst = fmax(worst, expect_distance("capsules end to end", &rod, eye, origin, &pin, eye, (double[]){0.3, 0, 0.6},
                                        sqrt(0.09 + 0.0225) - 0.12));
    kg_rot_axis_angle(Rq, yaxis, KG_PI / 2); /* its axis along x */
    worst = fmax(worst, expect_distance("capsules crossing", &rod, eye, origin, &pin, Rq, (double[]){0, 0.4, 0.05}, 0.28));
    /* skew: b's axis (cos 30, sin 30, 0) through (0.05, 0.3, 0.1); the closest points of the
     * lines (z = 0.1 on a, t = -0.193 on b) lie within both segments */
    kg_rot_axis_angle(Rs, zaxis, KG_PI / 6);
    double Rk[9], skew = fabs(-0.05 * 0.5 + 0.3 * cos(KG_PI / 6)) - 0.12;
    kg_mat3_mul(Rk, Rs, Rq);
    worst = fmax(worst, expect_distance("capsules skew", &rod, eye, origin, &pin, Rk, (double[]){0.05, 0.3, 0.1}, skew));
    worst = fmax(worst, expect_distance("capsules overlapping", &rod, eye, origin, &pin, eye, (double[]){0.1, 0, 0}, -0.02));
    worst = fmax(worst, expect_distance("cylinder-sphere", &can, eye, origin, &bead, eye, (double[]){0.3, 0, 0.02}, 0.2));
    kg_gjk_result r;
    assert_int_equal(gjk(&cube, eye, origin, &cube, Rz, (double[]){0.15, 0, 0}, NULL, &r), 0);
    printf("analytic distances: worst error %.3g m\n", worst);
    kg_convex_free(&hull);
}

/* Skips a file's '#' lines. */
static void skip_comments(FILE *f) {
    int c;
    while ((c = fgetc(f)) == '#')
        while ((c = fgetc(f)) != '\n' && c != EOF) {}
    if (c != EOF) ungetc(c, f);
}

/* n points and a pose (rotation row-major, position) as distance_reference.py writes them. */
static void read_cloud(FILE *f, int n, double *pts, double R[9], double p[3]) {
    for (int k = 0; k < 3 * n; k++) assert_int_equal(fscanf(f, "%lf", &pts[k]), 1);
    for (int k = 0; k < 9; k++) assert_int_equal(fscanf(f, "%lf", &R[k]), 1);
    for (int k = 0; k < 3; k++) assert_int_equal(fscanf(f, "%lf", &p[k]), 1);
}

/* max n.x over n points placed at (R, p) */
static double cloud_reach(const double *pts, int n, const double R[9], const double p[3], const double dir[3]) {
    double best = -INFINITY, x[3];
    for (int i = 0; i < n; i++) {
        kg_mat3_vec(x, R, pts + 3 * i);
        best = fmax(best, kg_vec3_dot(x, dir) + kg_vec3_dot(p, dir));
    }
    return best;
}

typedef struct cloud_stats {
    int apart, meet;
    double worst, witness, shift; /* against cvxopt; witnesses off their planes; distance after a shift along n */
    double seeded;                /* seeded GJK against cvxopt */
    long cold_calls, seeded_calls; /* support queries, cold and seeded (tol 0) */
    int seeds, meet_seeds;        /* seeded starts (apart cases; meeting ones, seeded from 1 m away) */
} cloud_stats;

/* kg_gjk_distance_from at the case's pose (tolerance tol), seeded with the
 * simplex GJK ended with at another pose: b moved `away` along a fixed
 * direction and turned 0.05 rad about its origin (a pair measured again after
 * a step; far enough, and shapes that meet are apart there). *used: the seed
 * had a simplex (the other pose was apart). Returns apart or not; r the result. */
static int seeded_case(const kg_convex *A, const double Ra[9], const double pa[3], const kg_convex *B, const double Rb[9],
                       const double pb[3], double away, double tol, kg_gjk_result *r, int *used) {
    double R[9], Rm[9], pm[3], axis[3] = {0.6, -0.48, 0.64};
    kg_rot_axis_angle(R, axis, 0.05);
    kg_mat3_mul(Rm, R, Rb);
    for (int c = 0; c < 3; c++) pm[c] = pb[c] + away * axis[c];
    int ha = 0, hb = 0;
    kg_gjk_seed seed = {0};
    kg_gjk_shape a = {A, Ra, pa, &ha}, bm = {B, Rm, pm, &hb}, b = {B, Rb, pb, &hb};
    kg_gjk_distance_from(&a, &bm, NULL, INFINITY, tol, &seed, r);
    *used = seed.n > 0;
    return kg_gjk_distance_from(&a, &b, NULL, INFINITY, tol, &seed, r);
}

/* One case of the cloud reference: hulls with the vertices distance_reference.py
 * says (so they are the clouds' hulls: qhull's tolerance dropped no corner),
 * GJK's distance from a cold and a warm start, its witnesses on the clouds'
 * supporting planes (each cloud's points checked), and moving b by 1e-4 along
 * n adds 1e-4 (exact: the closest points stay). */
static void cloud_case(int k, int na, int nb, int ha, int hb, double want, const double *a, const double Ra[9],
                       const double pa[3], const double *b, const double Rb[9], const double pb[3], cloud_stats *st) {
    kg_convex A, B;
    assert_int_equal(kg_convex_hull(a, na, &A), 0);
    assert_int_equal(kg_convex_hull(b, nb, &B), 0);
    if (A.nvert != ha || B.nvert != hb) fail_msg("case %d: hulls of %d and %d vertices, expected %d and %d", k, A.nvert, B.nvert, ha, hb);
    kg_gjk_result r, w;
    const double warm[3] = {0.3, -0.7, 0.2};
    int apart = gjk(&A, Ra, pa, &B, Rb, pb, NULL, &r), apart2 = gjk(&A, Ra, pa, &B, Rb, pb, warm, &w);
    if (want == 0) {
        if (apart || apart2) fail_msg("case %d: the hulls meet (cvxopt), GJK says %.3g apart", k, r.dist);
        kg_gjk_result sr;
        int used;
        if (seeded_case(&A, Ra, pa, &B, Rb, pb, 1.0, 0, &sr, &used)) fail_msg("case %d: the hulls meet, seeded GJK says %.3g apart", k, sr.dist);
        st->meet_seeds += used;
        st->meet++;
    } else {
        if (!apart || !apart2) fail_msg("case %d: GJK says the hulls meet, cvxopt %.9g apart", k, want);
        double err = fmax(fabs(r.dist - want), fabs(w.dist - want));
        if (err > 1e-7) fail_msg("case %d: GJK %.12g (warm %.12g), cvxopt %.12g", k, r.dist, w.dist, want);
        st->worst = fmax(st->worst, err);
        kg_gjk_result sr;
        int used;
        if (!seeded_case(&A, Ra, pa, &B, Rb, pb, 0.005, 0, &sr, &used) || fabs(sr.dist - want) > 1e-7)
            fail_msg("case %d: seeded GJK %.12g, cvxopt %.12g", k, sr.dist, want);
        const double sm[3] = {-sr.n[0], -sr.n[1], -sr.n[2]};
        check_witnesses("seeded cloud", &sr, cloud_reach(a, na, Ra, pa, sr.n), -cloud_reach(b, nb, Rb, pb, sm), 1e-9);
        st->seeded = fmax(st->seeded, fabs(sr.dist - want));
        st->cold_calls += r.iterations, st->seeded_calls += sr.iterations, st->seeds += used;
        /* at a tolerance, an upper bound within it (the seeded start's own stop is tighter) */
        if (!seeded_case(&A, Ra, pa, &B, Rb, pb, 0.005, 1e-4, &sr, &used) || sr.dist < want - 1e-7 || sr.dist > want + 1e-4)
            fail_msg("case %d: seeded GJK to 1e-4: %.12g, cvxopt %.12g", k, sr.dist, want);
        double m[3] = {-r.n[0], -r.n[1], -r.n[2]}, max_a = cloud_reach(a, na, Ra, pa, r.n), min_b = -cloud_reach(b, nb, Rb, pb, m);
        check_witnesses("cloud", &r, max_a, min_b, 1e-9);
        st->witness = fmax(st->witness, fmax(fabs(kg_vec3_dot(r.n, r.pa) - max_a), fabs(kg_vec3_dot(r.n, r.pb) - min_b)));
        double moved[3], delta = 1e-4;
        for (int c = 0; c < 3; c++) moved[c] = pb[c] + delta * r.n[c];
        assert_int_equal(gjk(&A, Ra, pa, &B, Rb, moved, r.n, &w), 1);
        st->shift = fmax(st->shift, fabs(w.dist - r.dist - delta));
        if (fabs(w.dist - r.dist - delta) > 1e-9) fail_msg("case %d: moved by %g along n, the distance grew by %.9g", k, delta, w.dist - r.dist);
        st->apart++;
    }
    kg_convex_free(&A);
    kg_convex_free(&B);
}

/* Random convex clouds (ellipsoid points with interior ones, flat polygons,
 * points, segments) at random poses: GJK's distance agrees with cvxopt's
 * minimum-norm point of the Minkowski difference
 * (tests/reference/distance/clouds.txt, tests/peers/distance_reference.py) to
 * 1e-7 m, and says "meet" where cvxopt finds 0. */
static void test_distance_clouds(void **state) {
    (void)state;
    FILE *f = fopen(KG_SOURCE_DIR "/tests/reference/distance/clouds.txt", "r");
    assert_non_null(f);
    skip_comments(f);
    int k, na, nb, ha, hb;
    double want;
    cloud_stats st = {0};
    while (fscanf(f, " case %d %d %d %d %d %lf", &k, &na, &nb, &ha, &hb, &want) == 6) {
        double *a = malloc(sizeof(double) * 3 * (size_t)na), *b = malloc(sizeof(double) * 3 * (size_t)nb);
        double Ra[9], pa[3], Rb[9], pb[3];
        read_cloud(f, na, a, Ra, pa);
        read_cloud(f, nb, b, Rb, pb);
        cloud_case(k, na, nb, ha, hb, want, a, Ra, pa, b, Rb, pb, &st);
        free(a);
        free(b);
    }
    fclose(f);
    printf("clouds: %d apart (worst %.3g m from cvxopt, witnesses %.3g m off their planes, a 1e-4 shift off by %.3g m), "
           "%d meeting; seeded from a pose 5 mm and 0.05 rad away (%d of the apart ones had a seed): worst %.3g m, %ld "
           "support queries against %ld cold; meeting ones seeded from 1 m away (%d): all meet\n",
           st.apart, st.worst, st.witness, st.shift, st.meet, st.seeds, st.seeded, st.seeded_calls, st.cold_calls, st.meet_seeds);
    assert_true(st.apart >= 50 && st.meet >= 10 && st.seeds >= st.apart - 5 && st.meet_seeds >= st.meet - 2);
}

/* kg_pair_gap_along on the slider's sphere and box: along GJK's normal the
 * plane's gap is the distance and its points are GJK's witnesses; along any
 * other direction it is at most the distance, measured between its points;
 * overlapping, it is negative. */
static void test_pair_gap_along(void **state) {
    (void)state;
    kg_diags d;
    kg_diags_init(&d);
    kg_mesh_cache *mc;
    kg_collision_model cm;
    kg_model *m = slider_scene(&d, &mc, &cm);
    int sc = pair_index(&cm, kg_model_link(m, "base"), kg_model_link(m, "car"));
    int jx = m->joint[kg_model_joint(m, "x")].qadr, jy = m->joint[kg_model_joint(m, "y")].qadr;
    kg_data *kd = kg_data_new(m);
    kg_collision_work *w = kg_collision_work_new(&cm);
    double dist, n[3], pa[3], pb[3], ga[3], gb[3];
    kd->q[jy] = 0.8, kd->q[jx] = 0.5;
    kg_fk(m, kd);
    assert_int_equal(kg_pair_distance(&cm, kd, w, sc, INFINITY, &dist, n, pa, pb), 1);
    double gap = kg_pair_gap_along(&cm, kd, w, sc, n, ga, gb);
    assert_true(fabs(gap - dist) < 1e-12);
    assert_true(fabs(kg_vec3_dot(gb, n) - kg_vec3_dot(pb, n)) < 1e-12 && fabs(kg_vec3_dot(ga, n) - kg_vec3_dot(pa, n)) < 1e-12);
    uint64_t seed = 7;
    for (int k = 0; k < 200; k++) { /* random directions */
        double u[3];
        for (int a = 0; a < 3; a++) {
            seed = seed * 6364136223846793005u + 1442695040888963407u;
            u[a] = (double)(seed >> 11) / 9007199254740992.0 - 0.5;
        }
        double un = kg_vec3_norm(u);
        for (int a = 0; a < 3; a++) u[a] /= un;
        double g = kg_pair_gap_along(&cm, kd, w, sc, u, ga, gb);
        if (!(g <= dist + 1e-12) || fabs(kg_vec3_dot(gb, u) - kg_vec3_dot(ga, u) - g) > 1e-12)
            fail_msg("along (%g %g %g): gap %.12g, distance %.12g", u[0], u[1], u[2], g, dist);
    }
    kd->q[jx] = 0.05; /* the sphere's centre inside the box */
    kg_fk(m, kd);
    assert_true(kg_pair_gap_along(&cm, kd, w, sc, n, NULL, NULL) < 0);
    free_scene(w, kd, &cm, mc, m);
    kg_diags_clear(&d);
}

/* kg_pair_distance on the slider (a sphere of 0.1 at the base, a box of half
 * 0.1 sliding along x, a cylinder post): apart (GJK, the sphere's witness
 * exact), with only the sphere's radius in the box (its centre outside: exact
 * negative), the centre inside (MPR's depth), max_dist cut-offs, the links'
 * boxes, and moving the box by 1e-3 along n adding 1e-3 in each regime. */
static void test_pair_distance(void **state) {
    (void)state;
    kg_diags d;
    kg_diags_init(&d);
    kg_mesh_cache *mc;
    kg_collision_model cm;
    kg_model *m = slider_scene(&d, &mc, &cm);
    int base = kg_model_link(m, "base"), car = kg_model_link(m, "car"), post = kg_model_link(m, "post");
    int sc = pair_index(&cm, base, car), cp = pair_index(&cm, car, post);
    int jx = m->joint[kg_model_joint(m, "x")].qadr, jy = m->joint[kg_model_joint(m, "y")].qadr;
    kg_data *kd = kg_data_new(m);
    kg_collision_work *w = kg_collision_work_new(&cm);
    double dist, n[3], pa[3], pb[3], lo[3], hi[3], away = cm.pair_b[sc] == car ? 1 : -1;
    kd->q[jy] = 0.8;
    /* x: the box's centre; the distance 0.2 - ... is x - 0.2; tolerance: GJK exact, MPR 1e-6 */
    const double xs[] = {0.5, 0.15, 0.05}, tol[] = {1e-12, 1e-12, 1e-6};
    for (int c = 0; c < 3; c++) {
        kd->q[jx] = xs[c];
        kg_fk(m, kd);
        assert_int_equal(kg_pair_distance(&cm, kd, w, sc, INFINITY, &dist, n, pa, pb), 1);
        double want = xs[c] - 0.2; /* the box moves out of the sphere along x */
        if (fabs(dist - want) > tol[c] || fabs(n[0] - away) > 1e-9)
            fail_msg("sphere-box at x = %g: %.12g along (%g %g %g), expected %.12g along x", xs[c], dist, n[0], n[1], n[2], want);
        for (int k = 0; k < 3; k++) assert_true(fabs(pb[k] - pa[k] - dist * n[k]) < 1e-12);
        if (c < 2) assert_true(fabs(pa[0] - (away > 0 ? 0.1 : xs[c] - 0.1)) < 1e-12); /* on the sphere / the box face */
        /* moved by 1e-3 along n: 1e-3 farther */
        double d2, n2[3], a2[3], b2[3], step = 1e-3;
        kd->q[jx] = xs[c] + step * n[0] * away;
        kg_fk(m, kd);
        assert_int_equal(kg_pair_distance(&cm, kd, w, sc, INFINITY, &d2, n2, a2, b2), 1);
        if (fabs(d2 - dist - step) > tol[c]) fail_msg("x = %g: a step of %g along n changed the distance by %.9g", xs[c], step, d2 - dist);
    }
    /* max_dist: 0.3 apart */
    kd->q[jx] = 0.5;
    kg_fk(m, kd);
    assert_int_equal(kg_pair_distance(&cm, kd, w, sc, 0.2, &dist, n, pa, pb), 0);     /* boxes 0.2 apart: cut */
    assert_int_equal(kg_pair_distance(&cm, kd, w, sc, 0.3 - 1e-9, &dist, n, pa, pb), 0); /* measured, not below */
    assert_int_equal(kg_pair_distance(&cm, kd, w, sc, 0.3 + 1e-9, &dist, n, pa, pb), 1);
    assert_int_equal(kg_link_box(&cm, kd, w, car, lo, hi), 1);
    for (int k = 0; k < 3; k++) {
        assert_true(fabs(lo[k] - (k == 0 ? 0.4 : -0.1)) < 1e-12);
        assert_true(fabs(hi[k] - (k == 0 ? 0.6 : 0.1)) < 1e-12);
    }
    assert_int_equal(kg_link_box(&cm, kd, w, kg_model_link(m, "mid"), lo, hi), 0); /* no shapes */
    /* the post's flat bottom (z 0.3) over the box's top (z 0.1) */
    kd->q[jx] = 0, kd->q[jy] = 0.02;
    kg_fk(m, kd);
    assert_int_equal(kg_pair_distance(&cm, kd, w, cp, 1, &dist, n, pa, pb), 1);
    assert_true(fabs(dist - 0.2) < 1e-9 && fabs(fabs(n[2]) - 1) < 1e-9);
    free_scene(w, kd, &cm, mc, m);
    kg_diags_clear(&d);
}

#define G1_URDF "/urdf/unitree_g1/g1_description/g1_29dof_rev_1_0.urdf"

/* Shapes a and b hold the same numbers (hulls' vertices and graphs, triangle trees). */
static void assert_same_shapes(const kg_collision_model *a, const kg_collision_model *b) {
    assert_int_equal(a->nshape, b->nshape);
    assert_int_equal(a->hull_vertices, b->hull_vertices);
    assert_memory_equal(a->link_first, b->link_first, (size_t)a->nlink * sizeof *a->link_first);
    assert_memory_equal(a->link_count, b->link_count, (size_t)a->nlink * sizeof *a->link_count);
    for (int i = 0; i < a->nshape; i++) {
        const kg_convex *x = &a->shape[i], *y = &b->shape[i];
        assert_int_equal(x->type, y->type);
        assert_int_equal(x->link, y->link), assert_int_equal(x->geom, y->geom), assert_int_equal(x->nvert, y->nvert);
        assert_memory_equal(x->size, y->size, sizeof x->size);
        assert_true(x->margin == y->margin);
        assert_memory_equal(x->lo, y->lo, sizeof x->lo), assert_memory_equal(x->hi, y->hi, sizeof x->hi);
        if (x->nvert) assert_memory_equal(x->vert, y->vert, 3 * (size_t)x->nvert * sizeof *x->vert);
        assert_true(!x->adj_first == !y->adj_first);
        if (x->adj_first) {
            assert_memory_equal(x->adj_first, y->adj_first, ((size_t)x->nvert + 1) * sizeof *x->adj_first);
            assert_memory_equal(x->adj, y->adj, (size_t)x->adj_first[x->nvert] * sizeof *x->adj);
            assert_memory_equal(x->start, y->start, 6 * KG_CONVEX_GRID * KG_CONVEX_GRID * sizeof *x->start);
        }
        const kg_trimesh *s = &a->surface[i], *t = &b->surface[i];
        assert_int_equal(s->ntri, t->ntri), assert_int_equal(s->nvert, t->nvert), assert_int_equal(s->nnode, t->nnode);
        if (s->ntri) {
            assert_memory_equal(s->vert, t->vert, 3 * (size_t)s->nvert * sizeof *s->vert);
            assert_memory_equal(s->tri, t->tri, 3 * (size_t)s->ntri * sizeof *s->tri);
            for (int k = 0; k < s->nnode; k++) { /* field by field: a node has padding */
                const kg_trinode *u = &s->node[k], *v = &t->node[k];
                assert_memory_equal(u->lo, v->lo, sizeof u->lo), assert_memory_equal(u->hi, v->hi, sizeof u->hi);
                assert_int_equal(u->first, v->first), assert_int_equal(u->count, v->count);
                assert_int_equal(u->parent, v->parent);
            }
        }
    }
}

/* The diagnostics a and b hold the same codes and messages, in order. */
static void assert_same_diags(const kg_diags *a, const kg_diags *b) {
    assert_int_equal(a->count, b->count);
    for (size_t k = 0; k < a->count; k++) {
        assert_string_equal(a->items[k].code, b->items[k].code);
        assert_string_equal(a->items[k].message, b->items[k].message);
    }
}

/* A mesh with a vertex far out of range (a broken file: 1e30 m) is left out
 * with a warning, on the threads' reading (STL) as on the child's (OBJ), and
 * the robot's other shapes stay. */
static void test_mesh_out_of_range(void **state) {
    (void)state;
    char dir[] = "/tmp/kg_far_XXXXXX", path[256];
    assert_non_null(mkdtemp(dir));
    kg_diags d, d1, d4;
    kg_diags_init(&d), kg_diags_init(&d1), kg_diags_init(&d4);
    write_u_and_cube(dir, &d);
    const double far[1][6] = {{-0.015, -0.015, -0.015, 0.015, 0.015, 1e30}};
    kg_mesh me;
    boxes_mesh(&me, far, 1);
    snprintf(path, sizeof path, "%s/far.stl", dir);
    assert_int_equal(kg_mesh_write_stl(&me, path, &d), 0);
    free(me.vert), free(me.tri);
    snprintf(path, sizeof path, "%s/far.obj", dir);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs("v 0 0 0\nv 0.1 0 0\nv 0 0.1 0\nv 0 0 4.7e30\nf 1 3 2\nf 1 2 4\nf 2 3 4\nf 3 1 4\n", f);
    fclose(f);
    snprintf(path, sizeof path, "%s/r.urdf", dir);
    f = fopen(path, "w");
    assert_non_null(f);
    fputs("<robot name='r'><link name='base'><collision><geometry><mesh filename='u.stl'/></geometry></collision>"
          "<collision><geometry><mesh filename='far.stl'/></geometry></collision>"
          "<collision><geometry><mesh filename='far.obj'/></geometry></collision></link></robot>",
          f);
    fclose(f);
    kg_model *m = load(path, &d);
    kg_collision_model one, four;
    kg_mesh_cache *mc1 = kg_mesh_cache_new(), *mc4 = kg_mesh_cache_new();
    assert_int_equal(kg_collision_model_build_threads(m, mc1, &one, 1, &d1), 0);
    assert_int_equal(kg_collision_model_build_threads(m, mc4, &four, 4, &d4), 0);
    assert_int_equal(one.nshape, 1), assert_int_equal(four.nshape, 1); /* the U */
    assert_int_equal(kg_test_count(&d1, "mesh.out_of_range"), 2);
    assert_same_diags(&d1, &d4);
    kg_collision_model_free(&one), kg_collision_model_free(&four);
    kg_mesh_cache_free(mc1), kg_mesh_cache_free(mc4);
    kg_model_free(m);
    kg_diags_clear(&d), kg_diags_clear(&d1), kg_diags_clear(&d4);
    assert_int_equal(kg_test_remove_dir(dir), 0);
}

/* The shapes made on several threads are those made on one, in the same
 * order, with the same warnings in the same order: a robot of two STL meshes
 * (a U of three boxes, a cube), a sphere, a mesh that is not there and one
 * assimp cannot read (read again on the calling thread); and,
 * with the corpus, G1 (36 shapes, 24 of them STL meshes: their hulls and
 * triangle trees, and the coarse hulls made of them). */
static void test_build_threads(void **state) {
    (void)state;
    char dir[] = "/tmp/kg_threads_XXXXXX", path[256];
    assert_non_null(mkdtemp(dir));
    kg_diags d, d1, d4;
    kg_diags_init(&d), kg_diags_init(&d1), kg_diags_init(&d4);
    write_u_and_cube(dir, &d);
    snprintf(path, sizeof path, "%s/junk.stl", dir); /* 100 bytes assimp cannot read */
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    for (int k = 0; k < 100; k++) fputc("kinegraph"[k % 9], f);
    fclose(f);
    snprintf(path, sizeof path, "%s/r.urdf", dir);
    f = fopen(path, "w");
    assert_non_null(f);
    fputs("<robot name='r'><link name='base'><collision><geometry><mesh filename='u.stl'/></geometry></collision>"
          "<collision><geometry><mesh filename='missing.stl'/></geometry></collision>"
          "<collision><geometry><mesh filename='junk.stl'/></geometry></collision></link>"
          "<link name='ball'><collision><geometry><sphere radius='0.02'/></geometry></collision></link>"
          "<link name='cube'><collision><geometry><mesh filename='cube.stl'/></geometry></collision></link>"
          "<joint name='x1' type='prismatic'><parent link='base'/><child link='ball'/><origin xyz='0 -0.025 0.1'/>"
          "<axis xyz='1 0 0'/><limit lower='-1' upper='1' effort='1' velocity='1'/></joint>"
          "<joint name='x2' type='prismatic'><parent link='base'/><child link='cube'/><origin xyz='0 0.025 0.1'/>"
          "<axis xyz='1 0 0'/><limit lower='-1' upper='1' effort='1' velocity='1'/></joint></robot>",
          f);
    fclose(f);
    kg_model *m = load(path, &d);
    kg_collision_model one, four, coarse_one, coarse_four;
    kg_mesh_cache *mc1 = kg_mesh_cache_new(), *mc4 = kg_mesh_cache_new();
    assert_int_equal(kg_collision_model_build_threads(m, mc1, &one, 1, &d1), 0);
    assert_int_equal(kg_collision_model_build_threads(m, mc4, &four, 4, &d4), 0);
    assert_int_equal(one.nshape, 3);
    assert_int_equal(one.surface[0].ntri, 36), assert_int_equal(one.surface[2].ntri, 12);
    assert_same_shapes(&one, &four);
    assert_int_equal(kg_test_count(&d1, "collision.mesh_missing"), 2);
    assert_int_equal(kg_test_count(&d1, "mesh.unreadable"), 1);
    assert_same_diags(&d1, &d4);
    assert_int_equal(kg_collision_model_coarse_threads(&one, 0.005, &coarse_one, 1), 0);
    assert_int_equal(kg_collision_model_coarse_threads(&one, 0.005, &coarse_four, 4), 0);
    assert_same_shapes(&coarse_one, &coarse_four);
    kg_collision_model_free(&one), kg_collision_model_free(&four);
    kg_collision_model_free(&coarse_one), kg_collision_model_free(&coarse_four);
    kg_mesh_cache_free(mc1), kg_mesh_cache_free(mc4);
    kg_model_free(m);
    kg_diags_clear(&d1), kg_diags_clear(&d4);
    kg_test_remove_dir(dir);
    const char *data = kg_test_data_dir();
    char g1[4096];
    snprintf(g1, sizeof g1, "%s%s", data ? data : "", G1_URDF);
    if (!data || access(g1, R_OK) != 0) {
        printf("SKIPPED (in part): %s: G1's meshes need the shared corpus (set KINEGRAPH_DATA)\n", __func__);
        kg_diags_clear(&d);
        return;
    }
    m = load(g1, &d);
    kg_mesh_cache *mc = kg_mesh_cache_new();
    assert_int_equal(kg_collision_model_build_threads(m, mc, &one, 1, &d), 0);
    assert_int_equal(kg_collision_model_build_threads(m, mc, &four, 4, &d), 0);
    assert_true(one.hull_vertices > 1000);
    assert_same_shapes(&one, &four);
    assert_int_equal(kg_collision_model_coarse_threads(&one, 0.005, &coarse_one, 1), 0);
    assert_int_equal(kg_collision_model_coarse_threads(&one, 0.005, &coarse_four, 4), 0);
    assert_true(coarse_one.hull_vertices < one.hull_vertices);
    assert_same_shapes(&coarse_one, &coarse_four);
    printf("  G1: %d shapes, %d hull vertices (coarse %d), the same on 1 and 4 threads\n", one.nshape,
           one.hull_vertices, coarse_one.hull_vertices);
    kg_collision_model_free(&one), kg_collision_model_free(&four);
    kg_collision_model_free(&coarse_one), kg_collision_model_free(&coarse_four);
    kg_mesh_cache_free(mc);
    kg_model_free(m);
    kg_diags_clear(&d);
}

/* max n.x over link l's shapes at kd's pose, every hull vertex tried; *count: how many. */
static double link_reach(const kg_collision_model *cm, const kg_data *kd, int l, const double dir[3], int *count) {
    double best = -INFINITY;
    *count = 0;
    for (int i = cm->link_first[l]; i < cm->link_first[l] + cm->link_count[l]; i++) {
        const kg_convex *c = &cm->shape[i];
        const double *R = kd->link_rot + 9 * l, *P = kd->link_pos + 3 * l;
        double Rs[9], ps[3], x[3];
        kg_mat3_mul(Rs, R, c->rot);
        kg_mat3_vec(ps, R, c->pos);
        for (int k = 0; k < 3; k++) ps[k] += P[k];
        if (c->type != KG_CONVEX_HULL) {
            best = fmax(best, reach(c, Rs, ps, dir));
            continue;
        }
        for (int v = 0; v < c->nvert; v++) {
            kg_mat3_vec(x, Rs, c->vert + 3 * v);
            best = fmax(best, kg_vec3_dot(x, dir) + kg_vec3_dot(ps, dir));
        }
        *count += c->nvert;
    }
    return best;
}

/* World hull vertices of link l's one shape into out (3 nvert). */
static void link_vertices(const kg_collision_model *cm, const kg_data *kd, int l, double *out) {
    const kg_convex *c = &cm->shape[cm->link_first[l]];
    const double *R = kd->link_rot + 9 * l, *P = kd->link_pos + 3 * l;
    double Rs[9], ps[3];
    kg_mat3_mul(Rs, R, c->rot);
    kg_mat3_vec(ps, R, c->pos);
    for (int v = 0; v < c->nvert; v++) {
        kg_mat3_vec(out + 3 * v, Rs, c->vert + 3 * v);
        for (int k = 0; k < 3; k++) out[3 * v + k] += ps[k] + P[k];
    }
}

/* Writes links a and b's world hull vertices and the pose for distance_reference.py. */
static void export_pair(FILE *f, const kg_model *m, const kg_collision_model *cm, const kg_data *kd, int a, int b) {
    int na = cm->shape[cm->link_first[a]].nvert, nb = cm->shape[cm->link_first[b]].nvert;
    fprintf(f, "pair %s %s %d %d\nq %d", m->link[a].name, m->link[b].name, na, nb, m->nq);
    for (int k = 0; k < m->nq; k++) fprintf(f, " %.17g", kd->q[k]);
    double *v = malloc(sizeof(double) * 3 * (size_t)(na > nb ? na : nb));
    for (int s = 0; s < 2; s++) {
        link_vertices(cm, kd, s ? b : a, v);
        for (int i = 0; i < (s ? nb : na); i++) fprintf(f, "\n%.17g %.17g %.17g", v[3 * i], v[3 * i + 1], v[3 * i + 2]);
    }
    fprintf(f, "\n");
    free(v);
}

typedef struct corpus_stats {
    long checks, apart, mismatch, brute, mpr_shifts, mpr_within;
    int exported[8], nexported; /* pairs written for KG_DISTANCE_EXPORT */
    double plane, pair_gap, shift_err, shift_mpr;
} corpus_stats;

/* One pair at one pose of the corpus test (see test_distance_corpus). */
static void corpus_pair(const kg_collision_model *cm, kg_data *kd, kg_collision_work *w, int p, int hit, int pose,
                        FILE *export_file, const kg_model *m, corpus_stats *st) {
    int a = cm->pair_a[p], b = cm->pair_b[p], na, nb;
    double dist, n[3], pa[3], pb[3];
    assert_int_equal(kg_pair_distance(cm, kd, w, p, INFINITY, &dist, n, pa, pb), 1);
    st->checks++;
    if ((dist > 0) == hit) {
        st->mismatch++;
        printf("  pose %d, %s-%s: distance %.3g, kg_self_collisions says %s\n", pose, m->link[a].name, m->link[b].name,
               dist, hit ? "hit" : "apart");
    }
    for (int k = 0; k < 3; k++) assert_true(fabs(pb[k] - pa[k] - dist * n[k]) < 1e-12);
    if (dist > 0 && cm->link_count[a] == 1 && cm->link_count[b] == 1) {
        /* exact: pa, pb (points of the hulls) are dist apart, and the planes through them
         * normal to n bound each hull (every vertex tried): nothing is closer */
        double m_n[3] = {-n[0], -n[1], -n[2]}, max_a = link_reach(cm, kd, a, n, &na), min_b = -link_reach(cm, kd, b, m_n, &nb);
        double e = fmax(fabs(kg_vec3_dot(n, pa) - max_a), fabs(kg_vec3_dot(n, pb) - min_b));
        st->plane = fmax(st->plane, e);
        st->pair_gap = fmax(st->pair_gap, fabs(min_b - max_a - dist));
        if (e > 1e-9 || fabs(min_b - max_a - dist) > 1e-9)
            fail_msg("pose %d, %s-%s: witnesses %.3g off the supporting planes, plane gap %.12g, distance %.12g", pose,
                     m->link[a].name, m->link[b].name, e, min_b - max_a, dist);
        st->apart++;
        /* hulls, near, a new pair, at most two a pose */
        int fresh = st->nexported < 8 && st->nexported < 2 * (pose + 1) && na > 0 && nb > 0 && na + nb <= 4000 && dist < 0.1;
        for (int x = 0; x < st->nexported && fresh; x++) fresh = st->exported[x] != p;
        if (export_file && fresh) {
            st->exported[st->nexported++] = p;
            export_pair(export_file, m, cm, kd, a, b);
        }
        if (pose < 3 && (long)na * nb <= 2000000) { /* every vertex pair: none closer than dist */
            double *va = malloc(sizeof(double) * 3 * (size_t)na), *vb = malloc(sizeof(double) * 3 * (size_t)nb), best = INFINITY;
            link_vertices(cm, kd, a, va);
            link_vertices(cm, kd, b, vb);
            for (int i = 0; i < na; i++)
                for (int j = 0; j < nb; j++) {
                    double e3[3] = {va[3 * i] - vb[3 * j], va[3 * i + 1] - vb[3 * j + 1], va[3 * i + 2] - vb[3 * j + 2]};
                    best = fmin(best, kg_vec3_dot(e3, e3));
                }
            if (dist > sqrt(best) + 1e-12) fail_msg("%s-%s: distance %.12g beyond two vertices' %.12g", m->link[a].name, m->link[b].name, dist, sqrt(best));
            st->brute++;
            free(va);
            free(vb);
        }
    }
    if (fabs(dist) < 0.05) { /* link b moved 1e-5 along n: 1e-5 farther (kd's pose changed: w re-places it) */
        double *P = kd->link_pos + 3 * b, keep[3], d2, n2[3], a2[3], b2[3], step = 1e-5;
        kg_vec3_copy(keep, P);
        for (int k = 0; k < 3; k++) P[k] += step * n[k];
        assert_int_equal(kg_pair_distance(cm, kd, w, p, INFINITY, &d2, n2, a2, b2), 1);
        kg_vec3_copy(P, keep);
        double off = fabs(d2 - dist - step);
        if (dist > 0) {
            st->shift_err = fmax(st->shift_err, off);
            if (off > 1e-9) fail_msg("pose %d, %s-%s: %.12g, moved %g along n: %.12g", pose, m->link[a].name, m->link[b].name, dist, step, d2);
        } else { /* MPR's depth is along the ray from the centres through the origin: where that
                  * ray crosses to another face of the difference, it jumps (see the report) */
            st->mpr_shifts++;
            st->mpr_within += off <= 0.1 * step;
            st->shift_mpr = fmax(st->shift_mpr, off);
            if (dist < -1e-3) assert_true(d2 < 0);
        }
    }
}

/* The robot link pairs of tests/reference/distance/g1.txt: their hulls' distance
 * at the pose written there agrees with cvxopt's to 1e-7 m. Returns how many. */
static int compare_g1_reference(const kg_model *m, const kg_collision_model *cm, kg_data *kd, kg_collision_work *w,
                                double *worst) {
    FILE *f = fopen(KG_SOURCE_DIR "/tests/reference/distance/g1.txt", "r");
    if (!f) return 0;
    skip_comments(f);
    char la[128], lb[128];
    int na, nb, nq, count = 0;
    double want;
    while (fscanf(f, " pair %127s %127s %d %d %lf q %d", la, lb, &na, &nb, &want, &nq) == 6) {
        assert_int_equal(nq, m->nq);
        for (int k = 0; k < nq; k++) assert_int_equal(fscanf(f, "%lf", &kd->q[k]), 1);
        int a = kg_model_link(m, la), b = kg_model_link(m, lb), p = pair_index(cm, a, b);
        assert_true(a >= 0 && b >= 0 && p >= 0);
        /* the same hulls (else qhull changed, and the reference is of other shapes) */
        assert_int_equal(cm->shape[cm->link_first[a]].nvert, na);
        assert_int_equal(cm->shape[cm->link_first[b]].nvert, nb);
        kg_fk(m, kd);
        double dist, n[3], pa[3], pb[3];
        assert_int_equal(kg_pair_distance(cm, kd, w, p, INFINITY, &dist, n, pa, pb), 1);
        if (fabs(dist - want) > 1e-7) fail_msg("%s-%s: %.12g, cvxopt %.12g", la, lb, dist, want);
        *worst = fmax(*worst, fabs(dist - want));
        count++;
    }
    fclose(f);
    return count;
}

/* G1 at 40 random poses, every pair that is not adjacent: kg_pair_distance is
 * positive exactly where kg_self_collisions (hulls) finds no hit; apart, its
 * witnesses are the supports of the hulls along n and the planes there are
 * dist apart (every vertex tried: the distance is exact), and no two hull
 * vertices are closer; near pairs moved 1e-5 along n are 1e-5 farther (to
 * 1e-9 apart, to 10 % when they overlap, MPR); a few pairs agree with
 * cvxopt's distance of their exported hull vertices (g1.txt). With
 * KG_DISTANCE_EXPORT=FILE set, writes those vertices for
 * tests/peers/distance_reference.py. */
static void test_distance_corpus(void **state) {
    (void)state;
    KG_REQUIRE_DATA(data);
    char path[4096];
    snprintf(path, sizeof path, "%s%s", data, G1_URDF);
    kg_diags d;
    kg_model *m = load(path, &d);
    kg_mesh_cache *mc = kg_mesh_cache_new();
    kg_collision_model cm;
    assert_int_equal(kg_collision_model_build(m, mc, &cm, &d), 0);
    kg_data *kd = kg_data_new(m);
    kg_collision_work *w = kg_collision_work_new(&cm);
    unsigned char *hit = malloc((size_t)cm.npair + 1);
    kg_sample_coord *coords = malloc(sizeof *coords * ((size_t)m->nq + 1));
    int nc = kg_sample_coords(m, NULL, coords);
    kg_sampler s;
    kg_sampler_start(&s, KG_SAMPLE_RANDOM, 2026, nc, 0);
    const char *export_path = getenv("KG_DISTANCE_EXPORT");
    FILE *export_file = export_path ? fopen(export_path, "w") : NULL;
    corpus_stats st;
    memset(&st, 0, sizeof st);
    for (int pose = 0; pose < 40; pose++) {
        memcpy(kd->q, m->q_default, (size_t)m->nq * sizeof *kd->q);
        kg_sampler_draw(&s, coords, kd->q);
        kg_fk(m, kd);
        kg_self_collisions(&cm, kd, w, NULL, hit);
        for (int p = 0; p < cm.npair; p++)
            if (!cm.adjacent[p]) corpus_pair(&cm, kd, w, p, hit[p], pose, export_file, m, &st);
    }
    if (export_file) fclose(export_file);
    double worst = 0;
    int nref = compare_g1_reference(m, &cm, kd, w, &worst);
    printf("G1: %ld pair-pose checks, %ld apart (witnesses %.3g m off the hulls' supporting planes, planes %.3g m from "
           "the distance; %ld pairs against every vertex pair), %ld disagree with kg_self_collisions; a 1e-5 shift "
           "along n off by %.3g m apart; overlapping (MPR) %ld of %ld within 10 %%, worst off by %.3g m; %d pairs %.3g m "
           "from cvxopt\n",
           st.checks, st.apart, st.plane, st.pair_gap, st.brute, st.mismatch, st.shift_err, st.mpr_within,
           st.mpr_shifts, st.shift_mpr, nref, worst);
    assert_int_equal(st.mismatch, 0);
    assert_true(nref >= 4);
    free(hit);
    free(coords);
    free_scene(w, kd, &cm, mc, m);
    kg_diags_clear(&d);
}

int main(void) {
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_against_mujoco), cmocka_unit_test(test_analytic),
                                       cmocka_unit_test(test_hull_tolerance), cmocka_unit_test(test_matrix),
                                       cmocka_unit_test(test_triangles), cmocka_unit_test(test_exact),
                                       cmocka_unit_test(test_tree), cmocka_unit_test(test_distance_analytic),
                                       cmocka_unit_test(test_distance_clouds), cmocka_unit_test(test_pair_distance), cmocka_unit_test(test_pair_gap_along), cmocka_unit_test(test_coarse),
                                       cmocka_unit_test(test_distance_corpus),
                                       cmocka_unit_test(test_build_threads), cmocka_unit_test(test_mesh_out_of_range)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
