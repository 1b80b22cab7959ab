/* Mass properties from geometry: closed test meshes give their exact volume,
 * centroid and inertia (a unit tetrahedron's from hand integration, a box mesh
 * equal to the box formula, whatever its orientation and placement, inside out
 * or mirrored); finely tessellated spheres, cylinders and capsules converge to
 * the primitive formulas; open and cracked meshes are told apart; links of
 * corpus robots and of the sample equal MuJoCo's inertia from geometry
 * (tests/reference/mass/, by tests/peers/mujoco_mass_reference.cpp); the
 * comparison with declared inertials on hand-made cases. */
#define _XOPEN_SOURCE 700
#include "testutil.h"

#include <glob.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/mass.h"
#include "core/fk.h"
#include "core/spatial.h"
#include "io/load.h"

static const double one[3] = {1, 1, 1};

/* |a - b| <= tol * max(1, |b|) for every entry */
static void assert_close(const double *a, const double *b, int n, double tol, const char *what) {
    for (int i = 0; i < n; i++)
        if (!(fabs(a[i] - b[i]) <= tol * fmax(1, fabs(b[i]))))
            fail_msg("%s[%d] = %.17g, expected %.17g (tolerance %g)", what, i, a[i], b[i], tol);
}

static void assert_solid(const kg_solid *s, const kg_solid *want, double tol) {
    double scale = fmax(want->volume, 1e-300);
    KG_ASSERT_NEAR(s->volume / scale, 1, tol);
    assert_close(s->centroid, want->centroid, 3, tol, "centroid");
    double t = want->inertia[0] + want->inertia[4] + want->inertia[8];
    for (int k = 0; k < 9; k++)
        if (!(fabs(s->inertia[k] - want->inertia[k]) <= tol * t))
            fail_msg("inertia[%d] = %.17g, expected %.17g (tolerance %g of the trace)", k, s->inertia[k],
                     want->inertia[k], tol);
}

static void test_tetrahedron(void **state) {
    (void)state;
    /* the unit corner tetrahedron, moved far from the origin: by hand, about the
     * centroid (1/4, 1/4, 1/4): integral of x^2 = 1/60 - V/16 = 1/160, of xy =
     * 1/120 - V/16 = -1/480; so Ixx = 2/160 = 1/80 and Ixy = +1/480 */
    const double off[3] = {10, -20, 30};
    double v[12] = {0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1};
    for (int i = 0; i < 12; i++) v[i] += off[i % 3];
    const int t[12] = {0, 2, 1, 0, 1, 3, 0, 3, 2, 1, 2, 3};
    kg_solid s;
    int open, inside_out;
    double unc;
    assert_int_equal(kg_solid_mesh(&s, v, 4, t, 4, one, &open, &inside_out, &unc), 0);
    assert_int_equal(open, 0);
    assert_int_equal(inside_out, 0);
    kg_solid want = {.volume = 1.0 / 6, .centroid = {off[0] + 0.25, off[1] + 0.25, off[2] + 0.25}};
    for (int a = 0; a < 3; a++)
        for (int b = 0; b < 3; b++) want.inertia[3 * a + b] = a == b ? 1.0 / 80 : 1.0 / 480;
    assert_solid(&s, &want, 1e-12);
}

/* A box mesh: 8 corners, 12 outward triangles, full extents e. */
static void box_mesh(double v[24], int t[36], const double e[3]) {
    for (int i = 0; i < 8; i++)
        for (int a = 0; a < 3; a++) v[3 * i + a] = ((i >> a) & 1 ? 0.5 : -0.5) * e[a];
    static const int faces[6][4] = {{0, 2, 3, 1}, {4, 5, 7, 6}, {0, 1, 5, 4}, {2, 6, 7, 3}, {0, 4, 6, 2}, {1, 3, 7, 5}};
    for (int f = 0; f < 6; f++) {
        const int *q = faces[f];
        int *o = t + 6 * f;
        o[0] = q[0], o[1] = q[1], o[2] = q[2], o[3] = q[0], o[4] = q[2], o[5] = q[3];
    }
}

static void test_box_mesh(void **state) {
    (void)state;
    const double e[3] = {0.3, 0.2, 0.1};
    double v[24];
    int t[36];
    box_mesh(v, t, e);
    /* the formula by hand: V = abc, Ixx = V (b^2 + c^2) / 12 */
    kg_solid box;
    kg_solid_box(&box, e);
    KG_ASSERT_NEAR(box.volume, 0.006, 1e-18);
    KG_ASSERT_NEAR(box.inertia[0], 0.006 * (0.04 + 0.01) / 12, 1e-18);
    KG_ASSERT_NEAR(box.inertia[4], 0.006 * (0.09 + 0.01) / 12, 1e-18);
    KG_ASSERT_NEAR(box.inertia[8], 0.006 * (0.09 + 0.04) / 12, 1e-18);
    /* the mesh, turned and moved, equals the formula turned and moved */
    double r[9], rpy[3] = {0.3, -1.1, 2.0}, p[3] = {0.5, -0.25, 2};
    kg_rot_from_rpy(r, rpy);
    for (int i = 0; i < 8; i++) {
        double x[3];
        kg_mat3_vec(x, r, v + 3 * i);
        for (int a = 0; a < 3; a++) v[3 * i + a] = x[a] + p[a];
    }
    kg_solid s, want = box;
    kg_solid_transform(&want, r, p);
    int open, inside_out;
    double unc;
    assert_int_equal(kg_solid_mesh(&s, v, 8, t, 12, one, &open, &inside_out, &unc), 0);
    assert_int_equal(open, 0);
    assert_int_equal(inside_out, 0);
    assert_solid(&s, &want, 1e-13);
    /* inside out: the same solid, and said */
    int rt[36];
    for (int k = 0; k < 12; k++) rt[3 * k] = t[3 * k], rt[3 * k + 1] = t[3 * k + 2], rt[3 * k + 2] = t[3 * k + 1];
    assert_int_equal(kg_solid_mesh(&s, v, 8, rt, 12, one, &open, &inside_out, &unc), 0);
    assert_int_equal(inside_out, 1);
    assert_solid(&s, &want, 1e-13);
    /* a mirroring scale is not inside out; scale 2 along x doubles the volume */
    const double mirror[3] = {-2, 1, 1};
    box_mesh(v, t, e);
    assert_int_equal(kg_solid_mesh(&s, v, 8, t, 12, mirror, &open, &inside_out, &unc), 0);
    assert_int_equal(inside_out, 0);
    const double e2[3] = {0.6, 0.2, 0.1};
    kg_solid_box(&want, e2);
    assert_solid(&s, &want, 1e-13);
    /* two halves side by side add up to the whole */
    const double half[3] = {0.15, 0.2, 0.1};
    kg_solid a, b;
    kg_solid_box(&a, half);
    kg_solid_box(&b, half);
    double id[9], pa[3] = {-0.075, 0, 0}, pb[3] = {0.075, 0, 0};
    kg_mat3_identity(id);
    kg_solid_transform(&a, id, pa);
    kg_solid_transform(&b, id, pb);
    kg_solid_add(&a, &b);
    kg_solid_box(&want, e);
    assert_solid(&a, &want, 1e-14);
}

static void test_open_and_cracked(void **state) {
    (void)state;
    const double e[3] = {1, 1, 1};
    double v[27];
    int t[36];
    box_mesh(v, t, e);
    kg_solid s;
    int open, inside_out;
    double unc;
    /* a missing triangle leaves a hole with three open edges; its volume means little */
    assert_int_equal(kg_solid_mesh(&s, v, 8, t, 11, one, &open, &inside_out, &unc), 0);
    assert_int_equal(open, 3);
    assert_true(unc > 0.1);
    /* a crack: one triangle uses a copy of corner 7 a nanometre away */
    for (int a = 0; a < 3; a++) v[24 + a] = v[21 + a] + 1e-9;
    for (int k = 0; k < 3; k++)
        if (t[3 * 2 + k] == 7) t[3 * 2 + k] = 8; /* the triangle (4, 5, 7) */
    assert_int_equal(kg_solid_mesh(&s, v, 9, t, 12, one, &open, &inside_out, &unc), 0);
    assert_true(open > 0);
    assert_true(unc < 1e-8);
    KG_ASSERT_NEAR(s.volume, 1, 1e-8);
}

/* Tessellated surfaces of revolution about z: the profile (r_k, z_k) from the
 * bottom pole to the top one, n segments around. */
static kg_solid revolve(const double *r, const double *z, int np, int n) {
    int nv = np * n, nt = 2 * (np - 1) * n;
    double *v = malloc((size_t)nv * 3 * sizeof *v);
    int *t = malloc((size_t)nt * 3 * sizeof *t), k = 0;
    for (int i = 0; i < np; i++)
        for (int j = 0; j < n; j++) {
            double a = 2 * KG_PI * j / n;
            v[3 * (i * n + j)] = r[i] * cos(a), v[3 * (i * n + j) + 1] = r[i] * sin(a), v[3 * (i * n + j) + 2] = z[i];
        }
    for (int i = 0; i + 1 < np; i++)
        for (int j = 0; j < n; j++) {
            int a = i * n + j, b = i * n + (j + 1) % n, c = (i + 1) * n + (j + 1) % n, d = (i + 1) * n + j;
            t[k++] = a, t[k++] = b, t[k++] = c;
            t[k++] = a, t[k++] = c, t[k++] = d;
        }
    kg_solid s;
    int open, inside_out;
    double unc;
    assert_int_equal(kg_solid_mesh(&s, v, nv, t, nt, one, &open, &inside_out, &unc), 0);
    /* the poles are rings of coincident points: degenerate triangles close them */
    free(v);
    free(t);
    return s;
}

static void test_tessellated_primitives(void **state) {
    (void)state;
    enum { N = 512, NP = 257 };
    static double r[NP + 2], z[NP + 2];
    kg_solid want, s;
    /* sphere of radius 0.2 */
    for (int i = 0; i < NP; i++) {
        double th = KG_PI * i / (NP - 1);
        r[i] = 0.2 * sin(th), z[i] = -0.2 * cos(th);
    }
    s = revolve(r, z, NP, N);
    kg_solid_sphere(&want, 0.2);
    assert_solid(&s, &want, 1e-4);
    /* cylinder: radius 0.1, length 0.5 (profile: bottom centre, rim, rim, top centre) */
    double rc[4] = {0, 0.1, 0.1, 0}, zc[4] = {-0.25, -0.25, 0.25, 0.25};
    s = revolve(rc, zc, 4, N);
    kg_solid_cylinder(&want, 0.1, 0.5);
    assert_solid(&s, &want, 1e-4);
    /* capsule: radius 0.05, cylindrical part 0.3 */
    int n = 0;
    for (int i = 0; i < NP / 2 + 1; i++, n++) {
        double th = KG_PI / 2 * i / (NP / 2);
        r[n] = 0.05 * sin(th), z[n] = -0.15 - 0.05 * cos(th);
    }
    for (int i = 0; i < NP / 2 + 1; i++, n++) {
        double th = KG_PI / 2 + KG_PI / 2 * i / (NP / 2);
        r[n] = 0.05 * sin(th), z[n] = 0.15 - 0.05 * cos(th);
    }
    s = revolve(r, z, n, N);
    kg_solid_capsule(&want, 0.05, 0.3);
    assert_solid(&s, &want, 1e-4);
}

static void compare_mujoco(const char *ref_path, const char *data, int *nlinks, double *worst) {
    char path[4096];
    const char *file;
    json_t *ref = kg_test_open_reference(ref_path, data, path, sizeof path, &file);
    if (!ref) return;
    kg_diags d;
    kg_diags_init(&d);
    kg_model *m = kg_load(path, NULL, &d);
    if (!m) fail_msg("%s does not load", path);
    kg_mesh_cache *mc = kg_mesh_cache_new();
    kg_link_solid *ls = calloc((size_t)m->nlink, sizeof *ls);
    assert_int_equal(kg_link_solids(m, mc, KG_COLLISION, ls, &d), 0);
    double density = json_number_value(json_object_get(ref, "density")), w = 0;
    json_t *links = json_object_get(ref, "links");
    for (size_t k = 0; k < json_array_size(links); k++) {
        json_t *l = json_array_get(links, k);
        const char *name = json_string_value(json_object_get(l, "name"));
        int i = kg_model_link(m, name);
        if (i < 0) fail_msg("%s: no link %s", file, name);
        assert_int_equal(ls[i].role, KG_COLLISION);
        assert_int_equal(ls[i].ngeom, json_integer_value(json_object_get(l, "geoms")));
        double mass = json_number_value(json_object_get(l, "mass"));
        if (mass <= 1e-9 * 1.0001) continue; /* MuJoCo's boundmass: no geometry volume */
        const kg_solid *s = &ls[i].solid;
        /* MuJoCo keeps mesh vertices in single precision: 1e-6 relative; a mesh with
         * cracks is as uncertain as kg_solid_mesh says (MuJoCo puts the apex of its
         * tetrahedra elsewhere) */
        double unc = ls[i].uncertainty / s->volume, tol = 1e-6 + unc;
        double e = fabs(density * s->volume - mass) / mass;
        w = fmax(w, e);
        if (e > tol) fail_msg("%s %s: mass %.9g, MuJoCo %.9g", file, name, density * s->volume, mass);
        json_t *com = json_object_get(l, "com");
        double size = cbrt(s->volume);
        for (int a = 0; a < 3; a++) {
            double ea = fabs(s->centroid[a] - json_number_value(json_array_get(com, (size_t)a))) / size;
            w = fmax(w, ea);
            if (ea > tol) fail_msg("%s %s: centroid[%d] %.9g, MuJoCo %.9g", file, name, a, s->centroid[a],
                                    json_number_value(json_array_get(com, (size_t)a)));
        }
        double pm[3], r[9];
        assert_int_equal(kg_inertia_principal(s->inertia, pm, r), 0);
        json_t *pr = json_object_get(l, "principal");
        double big = json_number_value(json_array_get(pr, 2));
        for (int a = 0; a < 3; a++) {
            double ea = fabs(density * pm[a] - json_number_value(json_array_get(pr, (size_t)a))) / big;
            w = fmax(w, ea);
            if (ea > 1e-5 + 2 * unc)
                fail_msg("%s %s: principal moment %d %.9g, MuJoCo %.9g", file, name, a, density * pm[a],
                         json_number_value(json_array_get(pr, (size_t)a)));
        }
        ++*nlinks;
    }
    printf("  %s: %zu links, worst relative difference %.2g\n", file, json_array_size(links), w);
    *worst = fmax(*worst, w);
    free(ls);
    kg_mesh_cache_free(mc);
    kg_model_free(m);
    kg_diags_clear(&d);
    json_decref(ref);
}

static void test_mujoco_reference(void **state) {
    (void)state;
    const char *data = kg_test_data_dir();
    glob_t g;
    assert_int_equal(glob(KG_SOURCE_DIR "/tests/reference/mass/*.json", 0, NULL, &g), 0);
    int n = 0;
    double worst = 0;
    for (size_t i = 0; i < g.gl_pathc; i++) compare_mujoco(g.gl_pathv[i], data, &n, &worst);
    globfree(&g);
    printf("  %d links agree with MuJoCo's inertia from geometry (worst %.2g)\n", n, worst);
    assert_true(n >= (data ? 20 : 15)); /* the sample alone has 15 */
}

static void test_inertial_compare(void **state) {
    (void)state;
    /* a link declaring 12 kg at (0.01, 0, 0) with the inertia of a uniform box of
     * 0.3 x 0.2 x 0.1 of that mass, whose geometry is that box at the origin */
    const double e[3] = {0.3, 0.2, 0.1};
    kg_solid box;
    kg_solid_box(&box, e);
    kg_link l;
    memset(&l, 0, sizeof l);
    l.mass = 12;
    l.com[0] = 0.01;
    for (int k = 0; k < 9; k++) l.inertia[k] = box.inertia[k] * 12 / box.volume;
    kg_inertial_check c;
    kg_inertial_compare(&l, &box, &c);
    KG_ASSERT_NEAR(c.implied_density, 2000, 1e-9);
    KG_ASSERT_NEAR(c.com_offset, 0.01, 1e-15);
    /* RMS radius: sqrt((0.09 + 0.04 + 0.01) / 12) */
    KG_ASSERT_NEAR(c.com_offset_ratio, 0.01 / sqrt(0.14 / 12), 1e-12);
    KG_ASSERT_NEAR(c.inertia_ratio, 1, 1e-12);
    for (int a = 0; a < 3; a++) KG_ASSERT_NEAR(c.principal_ratio[a], 1, 1e-12);
    /* a point-like inertia (a tenth of the box's) */
    for (int k = 0; k < 9; k++) l.inertia[k] /= 10;
    kg_inertial_compare(&l, &box, &c);
    KG_ASSERT_NEAR(c.inertia_ratio, 0.1, 1e-12);
    /* no geometry: nothing to compare */
    kg_solid none = {0};
    kg_inertial_compare(&l, &none, &c);
    assert_true(isnan(c.implied_density) && isnan(c.inertia_ratio));
}

static void test_model_from_geometry(void **state) {
    (void)state;
    /* two boxes on a prismatic joint: the body's mass properties from geometry at
     * 500 kg/m^3 are those of the union, by hand */
    const char *urdf =
        "<robot name='r'>"
        " <link name='a'><collision><geometry><box size='0.2 0.2 0.2'/></geometry></collision></link>"
        " <link name='b'><visual><origin xyz='0 0 0.1'/><geometry><box size='0.2 0.2 0.2'/></geometry></visual></link>"
        " <joint name='j' type='prismatic'><parent link='a'/><child link='b'/><origin xyz='0 0 0.1'/>"
        "  <axis xyz='0 0 1'/><limit lower='0' upper='1' effort='1' velocity='1'/></joint>"
        "</robot>";
    kg_diags d;
    kg_diags_init(&d);
    kg_model *m = kg_test_load_string("two_boxes.urdf", urdf, &d);
    assert_non_null(m);
    kg_link_solid ls[2];
    kg_mesh_cache *mc = kg_mesh_cache_new();
    assert_int_equal(kg_link_solids(m, mc, KG_COLLISION, ls, &d), 0);
    kg_mesh_cache_free(mc);
    assert_int_equal(ls[0].role, KG_COLLISION);
    assert_int_equal(ls[1].role, KG_VISUAL); /* b has no collision geometry */
    double mass[2], com[6], in[18];
    for (int i = 0; i < 2; i++) {
        mass[i] = 500 * ls[i].solid.volume;
        memcpy(com + 3 * i, ls[i].solid.centroid, sizeof ls[i].solid.centroid);
        for (int k = 0; k < 9; k++) in[9 * i + k] = 500 * ls[i].solid.inertia[k];
    }
    kg_data *kd = kg_data_new(m);
    kg_fk(m, kd); /* q = 0: b sits on a, together a 0.2 x 0.2 x 0.4 box centred at z = 0.1 */
    kg_mass_props mp;
    kg_mass_combine(m, kd, mass, com, in, &mp, NULL);
    KG_ASSERT_NEAR(mp.mass, 8, 1e-12);
    KG_ASSERT_NEAR(mp.com[2], 0.1, 1e-15);
    KG_ASSERT_NEAR(mp.inertia[0], 8 * (0.04 + 0.16) / 12, 1e-14);
    KG_ASSERT_NEAR(mp.inertia[8], 8 * (0.04 + 0.04) / 12, 1e-14);
    kg_data_free(kd);
    kg_model_free(m);
    kg_diags_clear(&d);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_tetrahedron),      cmocka_unit_test(test_box_mesh),
        cmocka_unit_test(test_open_and_cracked), cmocka_unit_test(test_tessellated_primitives),
        cmocka_unit_test(test_mujoco_reference), cmocka_unit_test(test_inertial_compare),
        cmocka_unit_test(test_model_from_geometry),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
