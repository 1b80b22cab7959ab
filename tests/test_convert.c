/* Conversions and the ledger: URDF -> URDF keeps everything for every corpus
 * robot (names, limits, inertials, mimic, geometry, extras; FK and mass at random
 * joint vectors to 1e-9) with an empty ledger; BVH -> URDF keeps the kinematics
 * exactly through chains of one-axis joints; what URDF cannot hold (loops) is in
 * the ledger with its source line. */
#define _XOPEN_SOURCE 700
#include "testutil.h"
#include "core/model.h"

#include <assimp/cimport.h>
#include <libxml/parser.h>
#include <libxml/xpath.h>
#include <libxml/xpathInternals.h>
#include <assimp/postprocess.h>
#include <assimp/scene.h>
#include <ftw.h>
#include <pthread.h>
#include <time.h>
#include <sys/stat.h>
#include <unistd.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "analysis/mass.h"
#include "core/spatial.h"
#include "core/fk.h"
#include "exporters/exporters.h"
#include "io/load.h"
#include "formats/mesh.h"
#include "formats/mesh_child.h"
#include "io/save.h"

static char *write_urdf(const kg_model *m, const kg_motion *mo, kg_ledger *l, size_t *len) {
    char *buf = NULL;
    FILE *f = open_memstream(&buf, len);
    kg_diags d;
    kg_diags_init(&d);
    if (kg_export_urdf(m, mo, NULL, f, l, &d) != 0) fail_msg("cannot write %s as URDF", m->name);
    fclose(f);
    kg_diags_clear(&d);
    return buf;
}

/* The written URDF, read back under the original's name (so relative mesh
 * references resolve the same way). */
static kg_model *reread(const kg_model *m, const kg_motion *mo, const char *name, kg_ledger *l, kg_diags *d) {
    size_t len;
    char *text = write_urdf(m, mo, l, &len);
    kg_load_options o = {0};
    o.format = "urdf";
    o.resolver.ignore_env = 1;
    kg_diags_init(d);
    kg_model *b = kg_load_buffer(name, text, len, &o, d);
    free(text);
    return b;
}

static uint64_t rng = 0x2026112200000001ull;
static double uniform(double lo, double hi) {
    rng ^= rng >> 12;
    rng ^= rng << 25;
    rng ^= rng >> 27;
    return lo + (hi - lo) * (double)((rng * 2685821657736338717ull) >> 11) / 9007199254740992.0;
}

static void random_q(const kg_model *m, double *q) {
    for (int j = 0; j < m->njoint; j++) {
        const kg_joint *J = &m->joint[j];
        for (int k = 0; k < J->nq; k++)
            q[J->qadr + k] = kg_joint_is_limited(J) && J->lower < J->upper ? uniform(J->lower, J->upper) : uniform(-3, 3);
    }
}

/* Equal values (so -0 == 0), element by element. */
static int same(const double *a, const double *b, int n) {
    for (int i = 0; i < n; i++)
        if (!(a[i] == b[i])) return 0;
    return 1;
}

/* Geometry through COLLADA: every geom, visual ones first then collision ones,
 * each in its order; primitives and poses to 1e-12; mesh references as written,
 * and their scale when the reference resolves from the new file (else the copy
 * inside it is used, with the scale applied to its vertices). */
static void compare_geometry(const kg_model *a, const kg_link *la, const kg_model *b, const kg_link *lb, const char *file,
                             double tol) {
    assert_int_equal(la->geom_count, lb->geom_count);
    for (int role = KG_VISUAL; role <= KG_COLLISION; role++) {
        int gb = lb->geom_first;
        for (int g = la->geom_first; g < la->geom_first + la->geom_count; g++) {
            const kg_geom *A = &a->geom[g];
            if ((int)A->role != role) continue;
            while (gb < lb->geom_first + lb->geom_count && (int)b->geom[gb].role != role) gb++;
            if (gb == lb->geom_first + lb->geom_count) fail_msg("%s: link %s lost a geom", file, la->name);
            const kg_geom *B = &b->geom[gb++];
            assert_int_equal(A->type, B->type);
            if ((A->name == NULL) != (B->name == NULL) || (A->name && strcmp(A->name, B->name)))
                fail_msg("%s: geom name '%s' became '%s'", file, A->name ? A->name : "", B->name ? B->name : "");
            for (int c = 0; c < 3; c++) {
                KG_ASSERT_NEAR(B->size[c], A->size[c], 1e-12 * fmax(1, fabs(A->size[c])));
                KG_ASSERT_NEAR(B->pos[c], A->pos[c], tol);
            }
            for (int c = 0; c < 9; c++) KG_ASSERT_NEAR(B->rot[c], A->rot[c], tol);
            if (A->type == KG_GEOM_MESH) {
                if (!A->mesh_part) /* else the mesh was inside a file: where it went depends on the target */
                    assert_string_equal(A->mesh_uri ? A->mesh_uri : "", B->mesh_uri);
                if (!B->mesh_part && A->mesh_path && !same(A->scale, B->scale, 3))
                    fail_msg("%s: mesh %s scale %g %g %g became %g %g %g (%s)", file, A->mesh_uri, A->scale[0], A->scale[1],
                             A->scale[2], B->scale[0], B->scale[1], B->scale[2], B->mesh_path ? B->mesh_path : "unresolved");
            }
            if (role == KG_VISUAL) {
                assert_int_equal(A->material >= 0, B->material >= 0);
                if (A->material >= 0) {
                    assert_string_equal(a->material[A->material].name, b->material[B->material].name);
                    assert_true(same(a->material[A->material].rgba, b->material[B->material].rgba, 4));
                }
            }
        }
    }
}

/* exact: everything bit for bit (URDF -> URDF). Otherwise (through COLLADA, where
 * angles pass through degrees and inertias through principal axes): values to
 * 1e-9, geometry as compare_geometry says. */
static void compare_models(const kg_model *a, const kg_model *b, const char *file, int exact, double tol) {
    assert_string_equal(a->name, b->name);
    assert_int_equal(a->nlink - a->nloop, b->nlink);
    assert_int_equal(a->njoint - a->nloop, b->njoint);
    assert_int_equal(a->nmimic, b->nmimic);
    int nextra = 0; /* COLLADA extras have no place in URDF (the ledger says so) */
    for (int k = 0; k < a->nextra; k++) nextra += strcmp(b->format, "urdf") || strncmp(a->extra[k].kind, "collada:", 8);
    assert_int_equal(nextra, b->nextra);
    for (int i = 0; i < a->nlink; i++) {
        const kg_link *la = &a->link[i];
        if (la->real >= 0) continue;
        int k = kg_model_link(b, la->name);
        if (k < 0) fail_msg("%s: link %s lost", file, la->name);
        const kg_link *lb = &b->link[k];
        assert_int_equal(la->has_inertial, lb->has_inertial);
        const kg_inertial *ia = &la->inertial, *ib = &lb->inertial;
        if (exact) {
            assert_true(ia->mass == ib->mass && same(ia->pos, ib->pos, 3) && same(ia->rpy, ib->rpy, 3) &&
                        same(ia->inertia, ib->inertia, 6));
        } else {
            double scale = 1e-300;
            for (int c = 0; c < 9; c++) scale = fmax(scale, fabs(la->inertia[c]));
            KG_ASSERT_NEAR(lb->mass, la->mass, 0);
            for (int c = 0; c < 3; c++) KG_ASSERT_NEAR(lb->com[c], la->com[c], tol);
            for (int c = 0; c < 9; c++)
                if (fabs(lb->inertia[c] - la->inertia[c]) > 1e-9 * scale)
                    fail_msg("%s: link %s inertia[%d] %.17g became %.17g", file, la->name, c, la->inertia[c], lb->inertia[c]);
            compare_geometry(a, la, b, lb, file, tol);
            continue;
        }
        assert_int_equal(la->geom_count, lb->geom_count);
        for (int g = 0; g < la->geom_count; g++) {
            const kg_geom *ga = &a->geom[la->geom_first + g], *gb = &b->geom[lb->geom_first + g];
            assert_int_equal(ga->role, gb->role);
            assert_int_equal(ga->type, gb->type);
            assert_true(same(ga->size, gb->size, 3) && same(ga->pos, gb->pos, 3) && same(ga->rpy, gb->rpy, 3) &&
                        same(ga->scale, gb->scale, 3));
            if (ga->mesh_uri) assert_string_equal(ga->mesh_uri, gb->mesh_uri);
            assert_int_equal(ga->material >= 0, gb->material >= 0);
            if (ga->material >= 0)
                assert_true(same(a->material[ga->material].rgba, b->material[gb->material].rgba, 4));
        }
    }
    for (int j = 0; j < a->njoint; j++) {
        const kg_joint *ja = &a->joint[j];
        if (ja->loop >= 0) continue;
        int k = kg_model_joint(b, ja->name);
        if (k < 0) fail_msg("%s: joint %s lost", file, ja->name);
        const kg_joint *jb = &b->joint[k];
        assert_int_equal(ja->type, jb->type);
        assert_string_equal(a->link[ja->parent].name, b->link[jb->parent].name);
        if (!exact) {
            for (int c = 0; c < 3; c++) KG_ASSERT_NEAR(jb->pos[c], ja->pos[c], tol);
            for (int c = 0; c < 9; c++) KG_ASSERT_NEAR(jb->rot[c], ja->rot[c], tol);
            if (ja->type != KG_JOINT_FIXED)
                for (int c = 0; c < 3; c++) KG_ASSERT_NEAR(jb->axis[c], ja->axis[c], tol);
            assert_int_equal(kg_joint_is_limited(ja), kg_joint_is_limited(jb));
            if (kg_joint_is_limited(ja)) {
                KG_ASSERT_NEAR(jb->lower, ja->lower, 1e-12);
                KG_ASSERT_NEAR(jb->upper, ja->upper, 1e-12);
            }
            /* absent effort and velocity come back absent, or as URDF's defaulted 0 (in the ledger) */
            assert_true((isnan(ja->effort) && (isnan(jb->effort) || jb->effort == 0)) || ja->effort == jb->effort);
            assert_true((isnan(ja->velocity) && (isnan(jb->velocity) || jb->velocity == 0)) ||
                        fabs(ja->velocity - jb->velocity) <= 1e-12 * fabs(ja->velocity));
            assert_true(ja->damping == jb->damping && ja->friction == jb->friction);
            assert_int_equal(ja->has_safety, jb->has_safety);
            assert_int_equal(ja->calibration, jb->calibration);
            assert_int_equal(ja->mimic >= 0, jb->mimic >= 0);
            if (ja->mimic >= 0) {
                const kg_mimic *ma = &a->mimic[ja->mimic], *mb = &b->mimic[jb->mimic];
                assert_string_equal(a->joint[ma->leader].name, b->joint[mb->leader].name);
                KG_ASSERT_NEAR(mb->multiplier, ma->multiplier, 1e-12);
                KG_ASSERT_NEAR(mb->offset, ma->offset, 1e-12);
            }
            continue;
        }
        if (!(same(ja->pos, jb->pos, 3) && same(ja->rpy, jb->rpy, 3) && same(ja->axis, jb->axis, 3)))
            fail_msg("%s: joint %s (%s) origin or axis changed: axis %g %g %g became %g %g %g", file, ja->name,
                     kg_joint_type_name(ja->type), ja->axis[0], ja->axis[1], ja->axis[2], jb->axis[0], jb->axis[1],
                     jb->axis[2]);
        assert_int_equal(ja->has_limit, jb->has_limit);
        assert_true(ja->lower == jb->lower && ja->upper == jb->upper);
        if (!((isnan(ja->effort) && isnan(jb->effort)) || ja->effort == jb->effort) ||
            !((isnan(ja->velocity) && isnan(jb->velocity)) || ja->velocity == jb->velocity))
            fail_msg("%s: joint %s (%s) effort %g velocity %g became %g %g", file, ja->name,
                     kg_joint_type_name(ja->type), ja->effort, ja->velocity, jb->effort, jb->velocity);
        assert_true(ja->damping == jb->damping && ja->friction == jb->friction);
        assert_int_equal(ja->has_safety, jb->has_safety);
        assert_int_equal(ja->calibration, jb->calibration);
        assert_int_equal(ja->mimic >= 0, jb->mimic >= 0);
        if (ja->mimic >= 0) {
            const kg_mimic *ma = &a->mimic[ja->mimic], *mb = &b->mimic[jb->mimic];
            assert_string_equal(a->joint[ma->leader].name, b->joint[mb->leader].name);
            assert_true(ma->multiplier == mb->multiplier && ma->offset == mb->offset);
        }
    }
    /* FK and mass at random joint vectors (by joint name) */
    kg_data *da = kg_data_new(a), *db = kg_data_new(b);
    for (int s = 0; s < 3; s++) {
        random_q(a, da->q);
        for (int j = 0; j < a->njoint; j++) {
            const kg_joint *ja = &a->joint[j];
            if (ja->loop >= 0) continue;
            const kg_joint *jb = &b->joint[kg_model_joint(b, ja->name)];
            for (int k = 0; k < ja->nq; k++) db->q[jb->qadr + k] = da->q[ja->qadr + k];
        }
        kg_fk(a, da);
        kg_fk(b, db);
        for (int i = 0; i < a->nlink; i++) {
            if (a->link[i].real >= 0) continue;
            int k = kg_model_link(b, a->link[i].name);
            for (int c = 0; c < 3; c++)
                if (fabs(da->link_pos[3 * i + c] - db->link_pos[3 * k + c]) > 1e-9 * fmax(1, fabs(da->link_pos[3 * i + c])))
                    fail_msg("%s: link %s moved", file, a->link[i].name);
            for (int c = 0; c < 9; c++)
                if (fabs(da->link_rot[9 * i + c] - db->link_rot[9 * k + c]) > 1e-9)
                    fail_msg("%s: link %s turned", file, a->link[i].name);
        }
        kg_mass_props pa, pb;
        kg_mass_properties(a, da, &pa, NULL);
        kg_mass_properties(b, db, &pb, NULL);
        KG_ASSERT_NEAR(pb.mass, pa.mass, 1e-9 * fmax(1, pa.mass));
        if (pa.mass > 0)
            for (int c = 0; c < 3; c++) KG_ASSERT_NEAR(pb.com[c], pa.com[c], 1e-9 * fmax(1, fabs(pa.com[c])));
    }
    kg_data_free(da);
    kg_data_free(db);
}

static char *files[512];
static int nfiles;
static int collect(const char *path, const struct stat *st, int flag, struct FTW *ftw) {
    (void)st;
    (void)ftw;
    size_t n = strlen(path);
    if (flag == FTW_F && n > 5 && strcasecmp(path + n - 5, ".urdf") == 0 && nfiles < 512) files[nfiles++] = strdup(path);
    return 0;
}

static void round_trip(const char *path) {
    kg_diags d, d2;
    kg_diags_init(&d);
    kg_load_options o = {0};
    o.resolver.ignore_env = 1;
    kg_model *a = kg_load(path, &o, &d);
    if (!a) fail_msg("%s does not load", path);
    kg_ledger l;
    kg_ledger_init(&l);
    kg_model *b = reread(a, NULL, path, &l, &d2);
    if (!b || kg_diags_count(&d2, KG_ERROR) > kg_diags_count(&d, KG_ERROR)) {
        kg_test_print_diags(&d2);
        fail_msg("%s: the written URDF does not read back cleanly", path);
    }
    compare_models(a, b, path, 1, 0);
    if (l.count != (size_t)a->nloop) {
        for (size_t i = 0; i < l.count; i++) printf("  %s %s %s\n", kg_ledger_action_name(l.items[i].action), l.items[i].element, l.items[i].detail);
        fail_msg("%s: URDF -> URDF should lose nothing", path);
    }
    kg_ledger_clear(&l);
    kg_model_free(a);
    kg_model_free(b);
    kg_diags_clear(&d);
    kg_diags_clear(&d2);
}

static void test_urdf_round_trip(void **state) {
    (void)state;
    round_trip(KG_SOURCE_DIR "/samples/humanoid.urdf");
    const char *data = kg_test_data_dir();
    if (!data) {
        printf("NOTICE: shared corpus absent; URDF round trip of the sample only\n");
        return;
    }
    char dir[4096];
    snprintf(dir, sizeof dir, "%s/urdf", data);
    nfiles = 0;
    assert_int_equal(nftw(dir, collect, 16, FTW_PHYS), 0);
    /* every URDF the corpus holds, however many that is (robots join it) */
    assert_true(nfiles > 0);
    for (int i = 0; i < nfiles; i++) {
        round_trip(files[i]);
        free(files[i]);
    }
    printf("  %d corpus URDFs round-tripped\n", nfiles);
}

static char *write_with(int (*writer)(const kg_model *, const kg_motion *, const kg_export_options *, FILE *, kg_ledger *, kg_diags *),
                        const kg_model *m, kg_ledger *l, size_t *len) {
    char *buf = NULL;
    FILE *f = open_memstream(&buf, len);
    kg_diags d;
    kg_diags_init(&d);
    if (writer(m, NULL, NULL, f, l, &d) != 0) fail_msg("cannot write %s", m->name);
    fclose(f);
    kg_diags_clear(&d);
    return buf;
}

/* The folders that hold the packages the model's meshes resolved in (the
 * folder above ".../NAME/" of each "package://NAME/rest"), so that the written
 * files, read from elsewhere, resolve them too. */
static int package_roots(const kg_model *m, char roots[][4096], int max) {
    int n = 0;
    for (int g = 0; g < m->ngeom && n < max; g++) {
        const kg_geom *G = &m->geom[g];
        if (!G->mesh_uri || !G->mesh_path || strncmp(G->mesh_uri, "package://", 10)) continue;
        const char *rest = strchr(G->mesh_uri + 10, '/');
        size_t lp = strlen(G->mesh_path), lr = rest ? strlen(rest) : 0, ln = rest ? (size_t)(rest - G->mesh_uri - 10) : 0;
        if (!rest || lp < lr + ln + 1 || strcmp(G->mesh_path + lp - lr, rest)) continue;
        size_t keep = lp - lr - ln - 1; /* drop "/NAME/rest" */
        int seen = 0;
        for (int k = 0; k < n; k++) seen |= strlen(roots[k]) == keep && !strncmp(roots[k], G->mesh_path, keep);
        if (!seen) snprintf(roots[n++], 4096, "%.*s", (int)keep, G->mesh_path);
    }
    return n;
}

static void collada_round_trip(const char *path) {
    kg_diags d, d2;
    kg_diags_init(&d);
    kg_load_options o = {0};
    o.resolver.ignore_env = 1;
    kg_model *a = kg_load(path, &o, &d);
    if (!a) fail_msg("%s does not load", path);
    static char roots[16][4096];
    const char *rootp[16];
    int nroots = package_roots(a, roots, 16);
    for (int k = 0; k < nroots; k++) rootp[k] = roots[k];
    o.resolver.package_paths = rootp;
    o.resolver.npackage_paths = nroots;
    kg_ledger l;
    kg_ledger_init(&l);
    size_t len;
    char *text = write_with(kg_export_collada, a, &l, &len);
    kg_diags_init(&d2);
    o.format = "collada";
    kg_model *b = kg_load_buffer("round.dae", text, len, &o, &d2);
    if (!b || kg_diags_count(&d2, KG_ERROR)) {
        kg_test_print_diags(&d2);
        fail_msg("%s: the written COLLADA does not read back", path);
    }
    compare_models(a, b, path, 0, 1e-12);
    /* and on to URDF: URDF -> DAE -> URDF */
    kg_ledger l2;
    kg_ledger_init(&l2);
    size_t ulen;
    char *urdf = write_with(kg_export_urdf, b, &l2, &ulen);
    kg_diags d3;
    kg_diags_init(&d3);
    o.format = "urdf";
    kg_model *c = kg_load_buffer("round.urdf", urdf, ulen, &o, &d3);
    if (!c) fail_msg("%s: URDF written from the COLLADA does not read back", path);
    compare_models(a, c, path, 0, 1e-9); /* rpy near pitch 90 deg: ill-conditioned */
    kg_model_free(c);
    kg_diags_clear(&d3);
    kg_ledger_clear(&l2);
    free(urdf);
    /* the ledger holds exactly what COLLADA cannot carry: a mesh reference that does
     * not resolve (its geometry is empty), points and lines of meshes, textures */
    size_t unresolved = 0, textures = 0;
    for (int g = 0; g < a->ngeom; g++) unresolved += a->geom[g].type == KG_GEOM_MESH && !a->geom[g].mesh_path;
    for (int k = 0; k < a->nmaterial; k++) textures += a->material[k].texture != NULL;
    size_t said_unresolved = 0, said_textures = 0;
    for (size_t k = 0; k < l.count; k++) {
        const kg_ledger_entry *e = &l.items[k];
        if (strstr(e->detail, "does not resolve")) said_unresolved++;
        else if (!strcmp(e->element, "texture")) said_textures++;
        else if (strcmp(e->element, "mesh") || !strstr(e->detail, "point and line"))
            fail_msg("%s: unexpected ledger entry: %s %s: %s", path, e->element, e->name ? e->name : "", e->detail);
    }
    if (said_unresolved != unresolved || said_textures != textures)
        fail_msg("%s: ledger names %zu unresolved meshes and %zu textures, expected %zu and %zu", path, said_unresolved,
                 said_textures, unresolved, textures);
    free(text);
    kg_ledger_clear(&l);
    kg_model_free(a);
    kg_model_free(b);
    kg_diags_clear(&d);
    kg_diags_clear(&d2);
}

static void test_collada_round_trip(void **state) {
    (void)state;
    collada_round_trip(KG_SOURCE_DIR "/samples/humanoid.urdf");
    const char *data = kg_test_data_dir();
    if (!data) {
        printf("NOTICE: shared corpus absent; COLLADA round trip of the sample only\n");
        return;
    }
    char dir[4096];
    snprintf(dir, sizeof dir, "%s/urdf", data);
    nfiles = 0;
    assert_int_equal(nftw(dir, collect, 16, FTW_PHYS), 0);
    for (int i = 0; i < nfiles; i++) {
        if (!strstr(files[i], "atlas_v3.urdf")) collada_round_trip(files[i]); /* atlas has an error */
        free(files[i]);
    }
}

/* Our COLLADA passes the peers: opencolladavalidator finds no error, and the ROS
 * reader (collada_to_urdf) gives back the same joints, limits and masses. */
/* A few frames of random joint values (unit quaternions for free joints). */
static kg_motion *random_motion(const kg_model *m, int nframes) {
    kg_motion *mo = kg_motion_new(m->nq, 0.04, (size_t)nframes);
    for (int f = 0; f < nframes; f++) {
        double *q = kg_motion_append(mo, NULL);
        random_q(m, q);
        for (int j = 0; j < m->njoint; j++) {
            const kg_joint *J = &m->joint[j];
            if (J->type != KG_JOINT_FLOATING) continue;
            double *w = q + J->qadr + 3, n = sqrt(w[0] * w[0] + w[1] * w[1] + w[2] * w[2] + w[3] * w[3]);
            for (int k = 0; k < 4; k++) w[k] /= n;
        }
    }
    return mo;
}

/* Lines of opencolladavalidator's report that name an error (schema or references). */
static int validator_errors(const char *dae, const char *dir) {
    char cmd[2400], out[600];
    snprintf(out, sizeof out, "%s/validator.txt", dir);
    snprintf(cmd, sizeof cmd, "opencolladavalidator '%s' > '%s' 2>&1", dae, out);
    if (system(cmd) != 0) return -1;
    snprintf(cmd, sizeof cmd, "grep -c -i error '%s'", out);
    FILE *p = popen(cmd, "r");
    int errors = -1;
    if (fscanf(p, "%d", &errors) != 1) errors = -1;
    pclose(p);
    return errors;
}

static void test_collada_peers(void **state) {
    (void)state;
    if (system("command -v opencolladavalidator >/dev/null && test -x /usr/lib/collada_urdf/collada_to_urdf") != 0) {
        printf("SKIPPED: opencolladavalidator or collada_to_urdf is not installed (./setup.sh installs them)\n");
        skip();
    }
    char dir[] = "/tmp/kg_peer_XXXXXX";
    assert_non_null(mkdtemp(dir));
    kg_diags d;
    kg_diags_init(&d);
    kg_model *a = kg_load(KG_SOURCE_DIR "/samples/humanoid.urdf", NULL, &d);
    size_t len;
    char *text = write_with(kg_export_collada, a, NULL, &len);
    char dae[600], cmd[2400], out[600];
    snprintf(dae, sizeof dae, "%s/humanoid.dae", dir);
    FILE *f = fopen(dae, "w");
    fwrite(text, 1, len, f);
    fclose(f);
    free(text);
    assert_int_equal(validator_errors(dae, dir), 0);
    snprintf(cmd, sizeof cmd, "cd '%s' && /usr/lib/collada_urdf/collada_to_urdf humanoid.dae >/dev/null 2>&1", dir);
    assert_int_equal(system(cmd), 0);
    snprintf(out, sizeof out, "%s/iasm.urdf", dir); /* it names the robot after our scene instance */
    kg_model *b = kg_load(out, NULL, &d);
    assert_non_null(b);
    assert_int_equal(b->njoint, a->njoint);
    for (int j = 0; j < a->njoint; j++) {
        const kg_joint *ja = &a->joint[j], *jb = &b->joint[kg_model_joint(b, ja->name)];
        assert_string_equal(a->link[ja->parent].name, b->link[jb->parent].name);
        if (ja->type == KG_JOINT_FIXED) {
            /* COLLADA has no fixed joint: collada_to_urdf reads our locked zero-range axis as a
             * revolute joint with limits 0..0 (and invents effort 100, velocity 0.5) */
            assert_int_equal(jb->type, KG_JOINT_REVOLUTE);
            assert_true(jb->lower == 0 && jb->upper == 0);
            continue;
        }
        assert_int_equal(ja->type, jb->type);
        KG_ASSERT_NEAR(jb->lower, ja->lower, 1e-9);
        KG_ASSERT_NEAR(jb->upper, ja->upper, 1e-9);
        /* it does not convert speeds from degrees: our 6 rad/s comes back as 343.77 */
        KG_ASSERT_NEAR(jb->velocity, ja->velocity * 180 / KG_PI, 1e-3);
    }
    for (int i = 0; i < a->nlink; i++) {
        const kg_link *la = &a->link[i], *lb = &b->link[kg_model_link(b, la->name)];
        KG_ASSERT_NEAR(lb->mass, la->mass, 1e-12);
        for (int k = 0; k < 9; k++) KG_ASSERT_NEAR(lb->inertia[k], la->inertia[k], 1e-9);
        /* the COM (its inertial origin): our mass_frame is in the root link's frame at zero,
         * where collada_parser reads it (it once came back with r_foot's at 0.03 0.1 0.56) */
        for (int k = 0; k < 3; k++) KG_ASSERT_NEAR(lb->com[k], la->com[k], 1e-6);
    }
    kg_model_free(a);
    kg_model_free(b);
    kg_diags_clear(&d);
    /* the validator finds errors in the ROS writer's file for the same robot (bindings to nodes that
     * do not exist), and none in ours of a robot with meshes and a motion */
    snprintf(cmd, sizeof cmd, "/usr/lib/collada_urdf/urdf_to_collada '%s' '%s/peer.dae' >/dev/null 2>&1",
             KG_SOURCE_DIR "/samples/humanoid.urdf", dir);
    if (system(cmd) == 0) {
        snprintf(out, sizeof out, "%s/peer.dae", dir);
        assert_true(validator_errors(out, dir) > 0);
    }
    const char *data = kg_test_data_dir();
    if (data) {
        char ur5[4096];
        snprintf(ur5, sizeof ur5, "%s/urdf/ur5/example-robot-data/robots/ur_description/urdf/ur5_robot.urdf", data);
        kg_diags_init(&d);
        kg_model *u = kg_load(ur5, NULL, &d);
        assert_non_null(u);
        kg_motion *mo = random_motion(u, 4);
        snprintf(out, sizeof out, "%s/ur5.dae", dir);
        FILE *uf = fopen(out, "w");
        assert_int_equal(kg_export_collada(u, mo, NULL, uf, NULL, &d), 0);
        fclose(uf);
        assert_int_equal(validator_errors(out, dir), 0);
        kg_motion_free(mo);
        kg_model_free(u);
        kg_diags_clear(&d);
    }
    assert_int_equal(kg_test_remove_dir(dir), 0);
}

/* ---- meshes in COLLADA, counted by assimp ---------------------------------------- */

/* Faces of a mesh file as the peer tool `assimp info` counts them (a point or line
 * counts as a face there too). */
static long assimp_info_faces(const char *path) {
    char cmd[4400];
    snprintf(cmd, sizeof cmd, "assimp info '%s' 2>/dev/null | grep '^Faces:'", path);
    FILE *p = popen(cmd, "r");
    long n = -1;
    if (p && fscanf(p, "Faces: %ld", &n) != 1) n = -1;
    if (p) pclose(p);
    return n;
}

/* Faces of every mesh instance in the node tree of our COLLADA file, read by assimp. */
static long instance_faces(const struct aiScene *s, const struct aiNode *n) {
    long t = 0;
    for (unsigned i = 0; i < n->mNumMeshes; i++) t += s->mMeshes[n->mMeshes[i]]->mNumFaces;
    for (unsigned i = 0; i < n->mNumChildren; i++) t += instance_faces(s, n->mChildren[i]);
    return t;
}

/* Triangles kinegraph writes for a visual primitive (32 segments, 16 rings). */
static long primitive_faces(kg_geom_type t) {
    switch (t) {
    case KG_GEOM_BOX: return 12;
    case KG_GEOM_CYLINDER: return 4 * 32;
    case KG_GEOM_SPHERE: return 2 * 32 + 14 * 64;
    case KG_GEOM_CAPSULE: return 2 * 32 + 15 * 64;
    default: return 0;
    }
}

static void test_collada_meshes_in_assimp(void **state) {
    (void)state;
    const char *data = kg_test_data_dir();
    if (!data || system("command -v assimp >/dev/null") != 0) {
        printf("SKIPPED: shared corpus or the assimp command is absent\n");
        skip();
    }
    static const char *robots[] = {
        "urdf/ur5/example-robot-data/robots/ur_description/urdf/ur5_robot.urdf",
        "urdf/allegro_hand/example-robot-data/robots/allegro_hand_description/urdf/allegro_right_hand.urdf",
        "urdf/pr2/example-robot-data/robots/pr2_description/urdf/pr2.urdf",
        "urdf/jvrc1/jvrc_description/urdf/jvrc1.urdf",
        "urdf/unitree_g1/g1_description/g1_29dof_rev_1_0.urdf",
        "urdf/talos/example-robot-data/robots/talos_data/robots/talos_reduced.urdf",
    };
    for (size_t r = 0; r < sizeof robots / sizeof *robots; r++) {
        char path[4096], dir[] = "/tmp/kg_mesh_XXXXXX", dae[64];
        snprintf(path, sizeof path, "%s/%s", data, robots[r]);
        kg_diags d;
        kg_diags_init(&d);
        kg_model *m = kg_load(path, NULL, &d);
        assert_non_null(m);
        /* the source: every visual instance, its file counted by `assimp info` */
        long expect = 0;
        int nmesh = 0;
        for (int g = 0; g < m->ngeom; g++) {
            const kg_geom *G = &m->geom[g];
            if (G->role != KG_VISUAL) continue;
            if (G->type != KG_GEOM_MESH) {
                expect += primitive_faces(G->type);
                continue;
            }
            assert_non_null(G->mesh_path);
            long f = assimp_info_faces(G->mesh_path);
            assert_true(f > 0);
            expect += f;
            nmesh++;
        }
        assert_non_null(mkdtemp(dir));
        snprintf(dae, sizeof dae, "%s/robot.dae", dir); /* assimp goes by the extension */
        FILE *f = fopen(dae, "w");
        kg_ledger l;
        kg_ledger_init(&l);
        assert_int_equal(kg_export_collada(m, NULL, NULL, f, &l, &d), 0);
        fclose(f);
        assert_int_equal(kg_ledger_count(&l, KG_DROPPED), 0);
        const struct aiScene *s = aiImportFile(dae, aiProcess_Triangulate);
        assert_non_null(s);
        long got = instance_faces(s, s->mRootNode);
        aiReleaseImport(s);
        printf("%s: %d visual meshes, %ld faces in the sources, %ld in our COLLADA as assimp reads it\n",
               m->name, nmesh, expect, got);
        assert_int_equal(got, expect);
        unlink(dae);
        rmdir(dir);
        kg_ledger_clear(&l);
        kg_model_free(m);
        kg_diags_clear(&d);
    }
}

/* Triangles of every geom of one role, read through the mesh cache. */
static long model_triangles(const kg_model *m, kg_geom_role role, kg_mesh_cache *mc, kg_diags *d) {
    long t = 0;
    for (int g = 0; g < m->ngeom; g++) {
        const kg_geom *G = &m->geom[g];
        if (G->role != role || G->type != KG_GEOM_MESH) continue;
        const kg_mesh *me = G->mesh_path ? kg_mesh_get(mc, G->mesh_path, G->mesh_part, d, NULL, 0) : NULL;
        if (!me) fail_msg("%s: mesh %s unreadable", m->name, G->mesh_uri);
        t += me->ntri;
    }
    return t;
}

/* A robot whose meshes exist only inside its COLLADA file, to URDF: the meshes go
 * beside it as STL, with the same triangles, and the model is the same. */
static void test_embedded_meshes_to_urdf(void **state) {
    (void)state;
    const char *data = kg_test_data_dir();
    if (!data) {
        printf("SKIPPED: shared corpus absent\n");
        skip();
    }
    char path[4096], dir[] = "/tmp/kg_stl_XXXXXX", out[64];
    snprintf(path, sizeof path, "%s/collada/openrave/zae/mitsubishi-pa10.zae", data);
    assert_non_null(mkdtemp(dir));
    snprintf(out, sizeof out, "%s/pa10.urdf", dir);
    kg_diags d;
    kg_diags_init(&d);
    kg_model *a = kg_load(path, NULL, &d);
    assert_non_null(a);
    kg_ledger l;
    kg_ledger_init(&l);
    assert_int_equal(kg_save(out, NULL, a, NULL, &l, &d), 0);
    kg_model *b = kg_load(out, NULL, &d);
    assert_non_null(b);
    assert_int_equal(kg_diags_count(&d, KG_ERROR), 0);
    compare_models(a, b, path, 0, 1e-9);
    int written = 0;
    for (int g = 0; g < b->ngeom; g++)
        if (b->geom[g].type == KG_GEOM_MESH) {
            assert_non_null(strstr(b->geom[g].mesh_uri, "pa10_meshes/"));
            assert_non_null(b->geom[g].mesh_path); /* the STL is there */
            written++;
        }
    assert_int_equal(written, 16); /* 8 links, each a visual and a collision mesh */
    kg_mesh_cache *mc = kg_mesh_cache_new();
    for (int role = KG_VISUAL; role <= KG_COLLISION; role++) {
        long ta = model_triangles(a, role, mc, &d), tb = model_triangles(b, role, mc, &d);
        assert_true(ta > 0);
        assert_int_equal(ta, tb);
    }
    kg_mesh_cache_free(mc);
    kg_ledger_clear(&l);
    kg_model_free(a);
    kg_model_free(b);
    kg_diags_clear(&d);
    assert_int_equal(kg_test_remove_dir(dir), 0);
}

/* ---- motion through other formats -------------------------------------------------- */

/* Writes model and motion in a format and reads them back: every link of the
 * source is in the result by name, at the same pose in every frame (1e-9 of
 * the figure's size, rotations 1e-9). */
static void motion_through(const char *path, const char *format,
                           int (*writer)(const kg_model *, const kg_motion *, const kg_export_options *, FILE *, kg_ledger *, kg_diags *)) {
    kg_diags d;
    kg_diags_init(&d);
    kg_motion *mo = NULL;
    kg_model *a = kg_load_clip(path, NULL, &mo, &d);
    if (!a) fail_msg("%s does not load", path);
    if (!mo) mo = random_motion(a, 5);
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    kg_ledger l;
    kg_ledger_init(&l);
    assert_int_equal(writer(a, mo, NULL, f, &l, &d), 0);
    fclose(f);
    kg_load_options o = {0};
    o.format = format;
    kg_motion *mo2 = NULL;
    kg_diags d2;
    kg_diags_init(&d2);
    kg_model *b = kg_load_clip_buffer("through", buf, len, &o, &mo2, &d2);
    if (!b || !mo2 || kg_diags_count(&d2, KG_ERROR)) {
        kg_test_print_diags(&d2);
        fail_msg("%s: the written %s does not read back with its motion", path, format);
    }
    assert_int_equal(mo2->nframes, mo->nframes);
    KG_ASSERT_NEAR(mo2->frame_time, mo->frame_time, 1e-12);
    kg_data *da = kg_data_new(a), *db = kg_data_new(b);
    double worst = 0;
    for (int fr = 0; fr < mo->nframes; fr++) {
        kg_motion_pose(mo, fr, da);
        kg_motion_pose(mo2, fr, db);
        kg_fk(a, da);
        kg_fk(b, db);
        double scale = 1;
        for (int i = 0; i < 3 * a->nlink; i++) scale = fmax(scale, fabs(da->link_pos[i]));
        for (int i = 0; i < a->nlink; i++) {
            if (a->link[i].real >= 0) continue;
            int k = kg_model_link(b, a->link[i].name);
            if (k < 0) {
                if (i == 0 && a->root_body != 0) continue; /* a static world is the file's frame */
                fail_msg("%s: link %s is not in the %s", path, a->link[i].name, format);
            }
            for (int c = 0; c < 3; c++) worst = fmax(worst, fabs(da->link_pos[3 * i + c] - db->link_pos[3 * k + c]) / scale);
            for (int c = 0; c < 9; c++) worst = fmax(worst, fabs(da->link_rot[9 * i + c] - db->link_rot[9 * k + c]));
        }
    }
    if (worst > 1e-9) fail_msg("%s through %s: link poses differ by %g", path, format, worst);
    printf("%s through %s: %d frames, %d links, worst %.1e\n", strrchr(path, '/') + 1, format, mo->nframes,
           a->nlink - a->nloop, worst);
    kg_data_free(da);
    kg_data_free(db);
    kg_ledger_clear(&l);
    free(buf);
    kg_motion_free(mo);
    kg_motion_free(mo2);
    kg_model_free(a);
    kg_model_free(b);
    kg_diags_clear(&d);
    kg_diags_clear(&d2);
}

/* Our samples, and corpus files of every kind, through a format. */
static void through(const char *format,
                    int (*writer)(const kg_model *, const kg_motion *, const kg_export_options *, FILE *, kg_ledger *, kg_diags *)) {
    motion_through(KG_SOURCE_DIR "/samples/humanoid.urdf", format, writer);
    motion_through(KG_SOURCE_DIR "/samples/walk.bvh", format, writer);
    const char *data = kg_test_data_dir();
    if (!data) return;
    static const char *models[] = {
        "urdf/unitree_g1/g1_description/g1_29dof_rev_1_0.urdf",
        "urdf/pr2/example-robot-data/robots/pr2_description/urdf/pr2.urdf",
        "bvh/bandai_namco/dataset-1_dash_normal_001.bvh",
        "bvh/animated_drawings/animate/Data/BVH/mixamo/Boxing_mixamo.com.bvh",
        "collada/openrave/zae/shadow-hand.zae",
        "collada/blender_skinned/leg-with-control-bones.dae",
        "collada/assimp_tests/anims_with_full_rotations_between_keys.DAE",
    };
    for (size_t i = 0; i < sizeof models / sizeof *models; i++) {
        char path[4096];
        snprintf(path, sizeof path, "%s/%s", data, models[i]);
        motion_through(path, format, writer);
    }
}

static void test_any_model_through_bvh(void **state) {
    (void)state;
    through("bvh", kg_export_bvh);
}

static void test_any_model_through_collada(void **state) {
    (void)state;
    through("collada", kg_export_collada);
}

static void test_collada_loops(void **state) {
    (void)state;
    /* a loop survives URDF-model -> COLLADA (attachment_start/end) -> model, cut at the same joint */
    const char *text = "<robot name='l'>\n"
                       " <link name='base'/><link name='a'/><link name='b'/><link name='c'/>\n"
                       " <joint name='ja' type='continuous'><parent link='base'/><child link='a'/><axis xyz='0 0 1'/></joint>\n"
                       " <joint name='jb' type='continuous'><origin xyz='1 0 0'/><parent link='base'/><child link='b'/><axis xyz='0 0 1'/></joint>\n"
                       " <joint name='jac' type='continuous'><origin xyz='0 1 0'/><parent link='a'/><child link='c'/><axis xyz='0 0 1'/></joint>\n"
                       " <joint name='jbc' type='continuous'><origin xyz='-1 1 0'/><parent link='b'/><child link='c'/><axis xyz='0 0 1'/></joint>\n"
                       "</robot>\n";
    kg_diags d, d2;
    kg_diags_init(&d);
    kg_model *a = kg_test_load_string("loop.urdf", text, &d);
    assert_non_null(a);
    size_t len;
    kg_ledger l;
    kg_ledger_init(&l);
    char *dae = write_with(kg_export_collada, a, &l, &len);
    assert_int_equal(l.count, 0);
    assert_non_null(strstr(dae, "<attachment_start"));
    assert_non_null(strstr(dae, "<attachment_end"));
    kg_diags_init(&d2);
    kg_load_options o = {0};
    o.format = "collada";
    kg_model *b = kg_load_buffer("loop.dae", dae, len, &o, &d2);
    assert_non_null(b);
    assert_int_equal(b->nloop, 1);
    assert_string_equal(b->joint[b->loop[0].cut_joint].name, "jbc");
    kg_data *db = kg_data_new(b);
    kg_fk(b, db); /* the square closes at zero */
    double dp[3], da;
    kg_loop_residual(b, db, 0, dp, &da);
    assert_true(kg_vec3_norm(dp) < 1e-12 && da < 1e-12);
    kg_data_free(db);
    free(dae);
    kg_ledger_clear(&l);
    kg_model_free(a);
    kg_model_free(b);
    kg_diags_clear(&d);
    kg_diags_clear(&d2);
}

static void test_bvh_to_urdf(void **state) {
    (void)state;
    kg_diags d, d2;
    kg_diags_init(&d);
    kg_motion *mo;
    kg_model *a = kg_load_clip(KG_SOURCE_DIR "/samples/walk.bvh", NULL, &mo, &d);
    assert_non_null(a);
    kg_ledger l;
    kg_ledger_init(&l);
    kg_model *b = reread(a, mo, "walk.urdf", &l, &d2);
    assert_non_null(b);
    assert_int_equal(kg_diags_count(&d2, KG_ERROR), 0);
    /* 21 compound joints approximated as chains; one coordinate (the root's height,
     * OFFSET y = 95) has a rest value that moves into its joint's origin */
    assert_int_equal(kg_ledger_count(&l, KG_APPROXIMATED), 21 + 1);
    assert_int_equal(kg_ledger_count(&l, KG_DROPPED), 1); /* the motion */
    assert_string_equal(l.items[0].element, "motion");
    kg_data *da = kg_data_new(a), *db = kg_data_new(b);
    for (int f = 0; f < mo->nframes; f += 7) {
        kg_motion_pose(mo, f, da);
        for (int x = 0; x < a->naxis; x++) { /* "<joint>.<label>" = the coordinate minus its rest value */
            const kg_axis *ax = &a->axis[x];
            char name[600];
            snprintf(name, sizeof name, "%s.%s", a->joint[ax->joint].name, ax->label);
            int jb = kg_model_joint(b, name);
            assert_true(jb >= 0);
            db->q[b->joint[jb].qadr] = da->q[a->joint[ax->joint].qadr + ax->coord] - ax->rest;
        }
        kg_fk(a, da);
        kg_fk(b, db);
        for (int i = 0; i < a->nlink; i++) {
            int k = kg_model_link(b, a->link[i].name);
            assert_true(k >= 0);
            for (int c = 0; c < 3; c++) KG_ASSERT_NEAR(db->link_pos[3 * k + c], da->link_pos[3 * i + c], 1e-9);
            for (int c = 0; c < 9; c++) KG_ASSERT_NEAR(db->link_rot[9 * k + c], da->link_rot[9 * i + c], 1e-12);
        }
    }
    kg_data_free(da);
    kg_data_free(db);
    kg_ledger_clear(&l);
    kg_motion_free(mo);
    kg_model_free(a);
    kg_model_free(b);
    kg_diags_clear(&d);
    kg_diags_clear(&d2);
}

static void test_loops_and_defaults_in_ledger(void **state) {
    (void)state;
    const char *text = "<robot name='l'>\n"
                       " <link name='base'/><link name='a'/><link name='c'/>\n"
                       " <joint name='ja' type='continuous'><parent link='base'/><child link='a'/></joint>\n"
                       " <joint name='jc' type='continuous'><parent link='a'/><child link='c'/></joint>\n"
                       " <joint name='jbc' type='continuous'><parent link='base'/><child link='c'/></joint>\n"
                       "</robot>\n";
    kg_diags d, d2;
    kg_diags_init(&d);
    kg_model *a = kg_test_load_string("loop.urdf", text, &d);
    assert_non_null(a);
    kg_ledger l;
    kg_ledger_init(&l);
    kg_model *b = reread(a, NULL, "loop2.urdf", &l, &d2);
    assert_non_null(b);
    assert_int_equal(b->nloop, 0); /* a tree now */
    assert_int_equal(l.count, 1);
    assert_int_equal(l.items[0].action, KG_DROPPED);
    assert_string_equal(l.items[0].element, "loop");
    assert_string_equal(l.items[0].name, "jc");
    assert_string_equal(l.items[0].file, "loop.urdf");
    assert_int_equal(l.items[0].line, 4);
    kg_ledger_clear(&l);
    kg_model_free(a);
    kg_model_free(b);
    kg_diags_clear(&d);
    kg_diags_clear(&d2);
}

/* How many nodes an XPath expression selects. */
static int xpath_count(xmlXPathContextPtr xp, const char *expr) {
    xmlXPathObjectPtr r = xmlXPathEvalExpression(BAD_CAST expr, xp);
    assert_non_null(r);
    int n = r->nodesetval ? r->nodesetval->nodeNr : 0;
    xmlXPathFreeObject(r);
    return n;
}

/* A link with a mass but no collision geometry (issue 26): the COLLADA 1.5 schema
 * wants a <shape> in every <rigid_body>, so the body gets one shape instancing an
 * empty placeholder geometry, which kinegraph reads back as no geom at all. */
static void test_collada_mass_only_body(void **state) {
    (void)state;
    const char *text = "<robot name='b'>\n"
                       " <link name='base'><inertial><mass value='2'/>"
                       "<inertia ixx='0.1' iyy='0.2' izz='0.3' ixy='0' ixz='0' iyz='0'/></inertial></link>\n"
                       " <link name='a'><inertial><mass value='1'/>"
                       "<inertia ixx='0.01' iyy='0.01' izz='0.01' ixy='0' ixz='0' iyz='0'/></inertial>"
                       "<collision><geometry><box size='0.1 0.2 0.3'/></geometry></collision></link>\n"
                       " <link name='c'><collision><geometry><sphere radius='0.05'/></geometry></collision></link>\n"
                       " <joint name='ja' type='continuous'><parent link='base'/><child link='a'/></joint>\n"
                       " <joint name='jc' type='fixed'><parent link='a'/><child link='c'/></joint>\n"
                       "</robot>\n";
    kg_diags d;
    kg_diags_init(&d);
    kg_model *a = kg_test_load_string("massonly.urdf", text, &d);
    assert_non_null(a);
    size_t len;
    char *dae = write_with(kg_export_collada, a, NULL, &len);
    xmlDocPtr doc = xmlReadMemory(dae, (int)len, "massonly.dae", NULL, XML_PARSE_NONET);
    assert_non_null(doc);
    xmlXPathContextPtr xp = xmlXPathNewContext(doc);
    xmlXPathRegisterNs(xp, BAD_CAST "c", BAD_CAST "http://www.collada.org/2008/03/COLLADASchema");
    /* three bodies, none without a shape; base's is the placeholder, of no vertices */
    assert_int_equal(xpath_count(xp, "//c:rigid_body"), 3);
    assert_int_equal(xpath_count(xp, "//c:rigid_body[not(c:technique_common/c:shape)]"), 0);
    assert_int_equal(xpath_count(xp, "//c:rigid_body[@name='base']//c:shape//c:placeholder"), 1);
    assert_int_equal(xpath_count(xp, "//c:shape//c:placeholder"), 1);
    assert_int_equal(xpath_count(xp, "//c:geometry[@name='placeholder']//c:float_array[@count='0']"), 1);
    assert_int_equal(xpath_count(xp, "//c:geometry[@name='placeholder']//c:triangles"), 0);
    xmlXPathFreeContext(xp);
    xmlFreeDoc(doc);
    kg_diags d2;
    kg_diags_init(&d2);
    kg_load_options o = {0};
    o.format = "collada";
    kg_model *b = kg_load_buffer("massonly.dae", dae, len, &o, &d2);
    assert_non_null(b);
    assert_int_equal(b->ngeom, a->ngeom); /* the placeholder is no geom */
    for (int i = 0; i < a->nlink; i++) {
        int j = kg_model_link(b, a->link[i].name);
        assert_true(j >= 0);
        assert_int_equal(b->link[j].geom_count, a->link[i].geom_count);
        assert_int_equal(b->link[j].has_inertial, a->link[i].has_inertial);
        assert_true(fabs(b->link[j].inertial.mass - a->link[i].inertial.mass) <= 1e-12);
    }
    free(dae);
    kg_model_free(a);
    kg_model_free(b);
    kg_diags_clear(&d);
    kg_diags_clear(&d2);
}

/* OpenRAVE's wam.dae gives each rigid body's mass_frame in the frame of the node
 * its instance_physics_model names as parent (line 1297: parent="#v1.node0", the
 * node the kinematics model is bound to), with the arm at zero: the translations
 * rise along the arm to z 1.25 m. Each link's COM in its own frame is
 * inverse(link at zero) * mass_frame, worked out here from the file's numbers:
 *   the links at zero (kinematics model, lines 609-653): wam0 at the identity;
 *   attachment to wam1 translate 0.22 0.14 0.346, wam1's own rotate -1 0 0 90;
 *   wam2's own rotate 1 0 0 90 (undoing wam1's); wam3's own translate 0.045 0
 *   0.55 then rotate -1 0 0 90; wam4's own translate -0.045 0 0 then rotate 1 0
 *   0 90. So wam3 is at (0.265, 0.14, 0.896) turned -90 deg about x, and wam4 at
 *   (0.22, 0.14, 0.896) unturned.
 *   mass frames (library_physics_models): wam3 translate 0.226741 0.140033
 *   0.6884919999999998 (line 1367), wam4 translate 0.224985 0.139771 1.02872
 *   (line 1383), wam0 translate 0.199823 0.14 0.07995289999999999 (line 1319).
 *   wam4: (0.224985 - 0.22, 0.139771 - 0.14, 1.02872 - 0.896).
 *   wam3: Rx(90) (0.226741 - 0.265, 0.140033 - 0.14, 0.688492 - 0.896), Rx(90)
 *   taking (x, y, z) to (x, -z, y).
 * Read in each link's own frame instead, the COMs once climbed to z 1.92 (wam4)
 * and 2.42 m (wam6) on a 1.3 m arm. The bodies' shapes are placed the same way:
 * wam3's at translate 0.265 0.14 0.896 rotate -1 0 0 90 (lines 1373-1374) and
 * wam4's at translate 0.22 0.14 0.896 (line 1389), where the links are: each
 * link's collision mesh (the geometry its visual node draws) at its origin. */
static void test_collada_mass_frames_openrave(void **state) {
    (void)state;
    KG_REQUIRE_DATA(data);
    char path[4096];
    snprintf(path, sizeof path, "%s/collada/pycollada/wam.dae", data);
    kg_diags d;
    kg_diags_init(&d);
    kg_model *m = kg_load(path, NULL, &d);
    assert_non_null(m);
    assert_int_equal(kg_diags_count(&d, KG_ERROR), 0);
    const kg_link *w0 = &m->link[kg_model_link(m, "wam0")], *w3 = &m->link[kg_model_link(m, "wam3")],
                  *w4 = &m->link[kg_model_link(m, "wam4")];
    const double c0[3] = {0.199823, 0.14, 0.07995289999999999};
    const double c3[3] = {0.226741 - 0.265, -(0.6884919999999998 - 0.896), 0.140033 - 0.14};
    const double c4[3] = {0.224985 - 0.22, 0.139771 - 0.14, 1.02872 - 0.896};
    for (int k = 0; k < 3; k++) {
        KG_ASSERT_NEAR(w0->com[k], c0[k], 1e-12);
        KG_ASSERT_NEAR(w3->com[k], c3[k], 1e-12);
        KG_ASSERT_NEAR(w4->com[k], c4[k], 1e-12);
    }
    for (int k = 0; k < 2; k++) {
        const kg_link *L = k ? w4 : w3;
        int g = L->geom_first;
        while (g < L->geom_first + L->geom_count && m->geom[g].role != KG_COLLISION) g++;
        assert_true(g < L->geom_first + L->geom_count);
        for (int c = 0; c < 3; c++) KG_ASSERT_NEAR(m->geom[g].pos[c], 0, 1e-12);
        for (int c = 0; c < 9; c++) KG_ASSERT_NEAR(m->geom[g].rot[c], c % 4 == 0, 1e-12);
    }
    /* and where the arm holds them at zero: the file's translations (wam6's 1.22068, line 1415) */
    kg_data *kd = kg_data_new(m);
    for (int k = 0; k < m->nq; k++) kd->q[k] = 0;
    kg_fk(m, kd);
    int w6 = kg_model_link(m, "wam6");
    double at[3];
    kg_mat3_vec(at, kd->link_rot + 9 * w6, m->link[w6].com);
    KG_ASSERT_NEAR(kd->link_pos[3 * w6 + 2] + at[2], 1.22068, 1e-12);
    kg_data_free(kd);
    kg_model_free(m);
    kg_diags_clear(&d);
}

/* urdf_to_collada's file of the URDF at `urdf` (written as DIR/NAME.dae), read
 * by kinegraph, against the URDF: the same links and joints, each joint of the
 * same type (fixed stays fixed: urdf_to_collada writes it as a revolute axis 0 0
 * 0, read back with a warning each), limits, velocity and effort (which it
 * writes, unconverted, in <speed> and <acceleration>), masses, COMs (its mass
 * frames are in the root link's frame: the parent node "#visual0" holds the node
 * the model is bound to, whose transform is the root's visual origin, not
 * kinematics) and inertia tensors. */
static void check_urdf_to_collada(const char *urdf, const char *dir, const char *name) {
    char dae[600], cmd[2400];
    snprintf(dae, sizeof dae, "%s/%s.dae", dir, name);
    snprintf(cmd, sizeof cmd, "/usr/lib/collada_urdf/urdf_to_collada '%s' '%s' >/dev/null 2>&1", urdf, dae);
    assert_int_equal(system(cmd), 0);
    kg_diags d, d2;
    kg_diags_init(&d);
    kg_diags_init(&d2);
    kg_model *a = kg_load(urdf, NULL, &d), *b = kg_load(dae, NULL, &d2);
    assert_non_null(a);
    assert_non_null(b);
    if (kg_diags_count(&d2, KG_ERROR)) kg_test_print_diags(&d2);
    assert_int_equal(kg_diags_count(&d2, KG_ERROR), 0);
    assert_int_equal(kg_test_count(&d2, "collada.ros_writer"), 1);
    assert_int_equal(b->nlink, a->nlink);
    assert_int_equal(b->njoint, a->njoint);
    int fixed = 0;
    for (int j = 0; j < a->njoint; j++) {
        const kg_joint *ja = &a->joint[j];
        int k = kg_model_joint(b, ja->name);
        if (k < 0) fail_msg("%s: joint %s lost", name, ja->name);
        const kg_joint *jb = &b->joint[k];
        if (ja->type != jb->type)
            fail_msg("%s: joint %s: %s became %s", name, ja->name, kg_joint_type_name(ja->type), kg_joint_type_name(jb->type));
        assert_string_equal(a->link[ja->parent].name, b->link[jb->parent].name);
        fixed += ja->type == KG_JOINT_FIXED;
        if (ja->type == KG_JOINT_FIXED) continue;
        assert_int_equal(kg_joint_is_limited(jb), kg_joint_is_limited(ja));
        if (kg_joint_is_limited(ja)) {
            KG_ASSERT_NEAR(jb->lower, ja->lower, 1e-12);
            KG_ASSERT_NEAR(jb->upper, ja->upper, 1e-12);
        }
        KG_ASSERT_NEAR(jb->velocity, ja->velocity, 0);
        KG_ASSERT_NEAR(jb->effort, ja->effort, 0);
    }
    assert_int_equal(kg_test_count(&d2, "collada.axis_zero_fixed"), fixed);
    for (int i = 0; i < a->nlink; i++) {
        const kg_link *la = &a->link[i];
        int k = kg_model_link(b, la->name);
        if (k < 0) fail_msg("%s: link %s lost", name, la->name);
        const kg_link *lb = &b->link[k];
        KG_ASSERT_NEAR(lb->mass, la->mass, 1e-12);
        for (int c = 0; c < 3; c++)
            if (fabs(lb->com[c] - la->com[c]) > 1e-9)
                fail_msg("%s: link %s: COM[%d] %.17g, the URDF's %.17g", name, la->name, c, lb->com[c], la->com[c]);
        for (int c = 0; c < 9; c++)
            if (fabs(lb->inertia[c] - la->inertia[c]) > 1e-9)
                fail_msg("%s: link %s: inertia[%d] %.17g, the URDF's %.17g", name, la->name, c, lb->inertia[c], la->inertia[c]);
    }
    kg_model_free(a);
    kg_model_free(b);
    kg_diags_clear(&d);
    kg_diags_clear(&d2);
}

/* The sample humanoid (four fixed joints), and a small arm of tilted links and
 * inertial frames (a prismatic joint, a fixed one with an offset, a continuous
 * one). Inertias are diagonal in their frames: urdf_to_collada writes the
 * principal axes of a tensor with products transposed (its eigenvectors as
 * rows), which no reader can undo in general (README, "Reading COLLADA"). */
static void test_urdf_to_collada_file(void **state) {
    (void)state;
    if (system("test -x /usr/lib/collada_urdf/urdf_to_collada") != 0) {
        printf("SKIPPED: /usr/lib/collada_urdf/urdf_to_collada is not installed (./setup.sh test installs it)\n");
        skip();
    }
    char dir[] = "/tmp/kg_u2c_XXXXXX", arm[600];
    assert_non_null(mkdtemp(dir));
    check_urdf_to_collada(KG_SOURCE_DIR "/samples/humanoid.urdf", dir, "humanoid");
    snprintf(arm, sizeof arm, "%s/arm.urdf", dir);
    FILE *f = fopen(arm, "w");
    assert_non_null(f);
    fputs("<robot name='arm'>\n"
          " <link name='base'><inertial><origin xyz='0.01 0.02 0.03' rpy='0.1 0.2 0.3'/><mass value='3'/>"
          "<inertia ixx='0.05' ixy='0' ixz='0' iyy='0.04' iyz='0' izz='0.03'/></inertial></link>\n"
          " <link name='upper'><inertial><origin xyz='0.1 -0.02 0.25' rpy='-0.4 0.1 0.7'/><mass value='2'/>"
          "<inertia ixx='0.02' ixy='0' ixz='0' iyy='0.025' iyz='0' izz='0.01'/></inertial></link>\n"
          " <link name='slider'><inertial><origin xyz='0 0.05 0.1' rpy='1.2 0 0'/><mass value='1'/>"
          "<inertia ixx='0.003' ixy='0' ixz='0' iyy='0.002' iyz='0' izz='0.004'/></inertial></link>\n"
          " <link name='tool'><inertial><origin xyz='0.03 0 0.01' rpy='0 0.5 0'/><mass value='0.5'/>"
          "<inertia ixx='0.001' ixy='0' ixz='0' iyy='0.0012' iyz='0' izz='0.0008'/></inertial></link>\n"
          " <link name='wheel'><inertial><mass value='0.2'/>"
          "<inertia ixx='0.0001' ixy='0' ixz='0' iyy='0.0001' iyz='0' izz='0.0002'/></inertial></link>\n"
          " <joint name='shoulder' type='revolute'><parent link='base'/><child link='upper'/>"
          "<origin xyz='0 0 0.2' rpy='0.3 -0.2 0.5'/><axis xyz='0 1 0'/>"
          "<limit lower='-1.5' upper='2' effort='30' velocity='3'/></joint>\n"
          " <joint name='slide' type='prismatic'><parent link='upper'/><child link='slider'/>"
          "<origin xyz='0 0 0.5' rpy='0 0.4 0'/><axis xyz='0 0 1'/>"
          "<limit lower='0' upper='0.3' effort='200' velocity='0.5'/></joint>\n"
          " <joint name='mount' type='fixed'><parent link='slider'/><child link='tool'/>"
          "<origin xyz='0.05 0 0.2' rpy='0 0 1.2'/></joint>\n"
          " <joint name='spin' type='continuous'><parent link='tool'/><child link='wheel'/>"
          "<origin xyz='0 0.1 0' rpy='0.7 0 0'/><axis xyz='1 0 0'/><limit effort='2' velocity='10'/></joint>\n"
          "</robot>\n",
          f);
    fclose(f);
    check_urdf_to_collada(arm, dir, "arm");
    assert_int_equal(kg_test_remove_dir(dir), 0);
}

/* A revolute and a prismatic joint whose axis is 0 0 0 are fixed joints, each
 * with a warning at its axis (line and joint named); URDF keeps refusing a zero
 * axis. */
static void test_collada_zero_axis_fixed(void **state) {
    (void)state;
    const char *doc = "<?xml version=\"1.0\"?>\n"                                                     /* 1 */
                      "<COLLADA xmlns=\"http://www.collada.org/2008/03/COLLADASchema\" version=\"1.5.0\">\n" /* 2 */
                      " <library_kinematics_models>\n"                                                /* 3 */
                      "  <kinematics_model id=\"k\" name=\"k\">\n"                                    /* 4 */
                      "   <technique_common>\n"                                                       /* 5 */
                      "    <joint sid=\"weld\" name=\"weld\">\n"                                       /* 6 */
                      "     <revolute sid=\"a\"><axis>0 0 0</axis>"                                    /* 7 */
                      "<limits><min>0</min><max>0</max></limits></revolute>\n"
                      "    </joint>\n"                                                                /* 8 */
                      "    <joint sid=\"slide\" name=\"slide\">\n"                                     /* 9 */
                      "     <prismatic sid=\"a\"><axis>0 0 0</axis></prismatic>\n"                    /* 10 */
                      "    </joint>\n"
                      "    <link sid=\"base\" name=\"base\">\n"
                      "     <attachment_full joint=\"k/weld\"><translate>0 0 1</translate>\n"
                      "      <link sid=\"tip\" name=\"tip\">\n"
                      "       <attachment_full joint=\"k/slide\"><translate>0 2 0</translate>"
                      "<link sid=\"end\" name=\"end\"/></attachment_full>\n"
                      "      </link>\n"
                      "     </attachment_full>\n"
                      "    </link>\n"
                      "   </technique_common>\n"
                      "  </kinematics_model>\n"
                      " </library_kinematics_models>\n"
                      "</COLLADA>\n";
    kg_diags d;
    kg_diags_init(&d);
    kg_load_options o = {0};
    o.format = "collada";
    kg_model *m = kg_load_buffer("zero_axis.dae", doc, strlen(doc), &o, &d);
    assert_non_null(m);
    if (kg_diags_count(&d, KG_ERROR)) kg_test_print_diags(&d);
    assert_int_equal(kg_diags_count(&d, KG_ERROR), 0);
    assert_int_equal(m->joint[kg_model_joint(m, "weld")].type, KG_JOINT_FIXED);
    assert_int_equal(m->joint[kg_model_joint(m, "slide")].type, KG_JOINT_FIXED);
    assert_int_equal(m->nq, 0);
    assert_int_equal(kg_test_count(&d, "collada.axis_zero_fixed"), 2);
    const kg_diag *g = kg_test_find(&d, "collada.axis_zero_fixed");
    assert_int_equal(g->severity, KG_WARNING);
    assert_int_equal(g->line, 7);
    assert_string_equal(g->file, "zero_axis.dae");
    assert_non_null(strstr(g->message, "'weld'"));
    kg_data *kd = kg_data_new(m);
    kg_fk(m, kd);
    int end = kg_model_link(m, "end");
    KG_ASSERT_NEAR(kd->link_pos[3 * end + 1], 2, 0);
    KG_ASSERT_NEAR(kd->link_pos[3 * end + 2], 1, 0);
    kg_data_free(kd);
    kg_model_free(m);
    kg_diags_clear(&d);
    /* URDF: the same joint is an error there */
    kg_diags_init(&d);
    m = kg_test_load_string("zero_axis.urdf",
                            "<robot name='z'><link name='base'/><link name='tip'/><joint name='weld' type='revolute'>"
                            "<parent link='base'/><child link='tip'/><axis xyz='0 0 0'/>"
                            "<limit lower='0' upper='0' effort='1' velocity='1'/></joint></robot>",
                            &d);
    assert_int_equal(kg_test_count(&d, "joint.axis_zero"), 1);
    assert_int_equal(kg_test_find(&d, "joint.axis_zero")->severity, KG_ERROR);
    kg_model_free(m);
    kg_diags_clear(&d);
}

static void test_trajectory_ledger(void **state) {
    (void)state;
    /* a URDF has nothing a BVH-style motion file can hold but the skeleton */
    kg_diags d;
    kg_diags_init(&d);
    kg_model *m = kg_load(KG_SOURCE_DIR "/samples/humanoid.urdf", NULL, &d);
    kg_ledger l;
    kg_ledger_init(&l);
    kg_ledger_model_only(m, &l, "a trajectory");
    /* structure, 28 inertials (the soles have none: 26), 38 geoms, 3 materials, 23 limited joints */
    assert_int_equal(kg_ledger_count(&l, KG_DROPPED), 1 + 26 + m->ngeom + 3 + 23);
    kg_ledger_clear(&l);
    kg_model_free(m);
    kg_diags_clear(&d);
}

/* Found by fuzz_export: a COLLADA joint with two axes of one sid wrote two
 * URDF joints "j1.axis2", which URDF readers refuse. The builder now makes an
 * axis label unique within its joint (warning joint.duplicate_axis), and the
 * URDF writer a split compound joint's names unique among every link and
 * joint (a BVH joint, so a link, already named "Hips.Zrotation" below the Hips chain). */
static void test_compound_names_unique(void **state) {
    (void)state;
    const char *bvh = "HIERARCHY\nROOT Hips\n{\n OFFSET 0 0 0\n CHANNELS 6 Xposition Yposition Zposition Zrotation "
                      "Xrotation Yrotation\n JOINT Hips.Zrotation\n {\n  OFFSET 0 0 1\n  CHANNELS 3 Zrotation Xrotation "
                      "Yrotation\n  End Site\n  {\n   OFFSET 0 0 1\n  }\n }\n}\nMOTION\nFrames: 1\nFrame Time: 0.1\n"
                      "0 0 0 0 0 0 0 0 0\n";
    kg_diags d;
    kg_diags_init(&d);
    kg_load_options o = {0};
    o.format = "bvh";
    kg_model *m = kg_load_buffer("names.bvh", bvh, strlen(bvh), &o, &d);
    assert_non_null(m);
    kg_ledger l;
    kg_ledger_init(&l);
    size_t len;
    char *text = write_urdf(m, NULL, &l, &len);
    kg_load_options u = {0};
    u.format = "urdf";
    kg_model *back = kg_load_buffer("names.urdf", text, len, &u, &d);
    assert_non_null(back);
    assert_int_equal(kg_diags_count(&d, KG_ERROR), 0);
    assert_int_equal(back->dof, m->dof);
    assert_true(kg_model_link(back, "Hips.Zrotation") >= 0);    /* the BVH joint's link keeps its name */
    assert_true(kg_model_joint(back, "Hips.Zrotation#2") >= 0); /* the chain's joint and link are renamed */
    assert_true(kg_model_link(back, "Hips.Zrotation#2") >= 0);
    int said = 0;
    for (size_t k = 0; k < l.count; k++) said += l.items[k].name && !strcmp(l.items[k].name, "Hips.Zrotation");
    assert_true(said >= 1);
    free(text);
    kg_model_free(back);
    kg_model_free(m);
    kg_ledger_clear(&l);
    /* the fuzzer's file: axes labelled axis1, axis2, axis2 */
    FILE *f = fopen(KG_SOURCE_DIR "/tests/data/fuzz-regressions/export/duplicate_axis_sid.dae", "rb");
    assert_non_null(f);
    char dae[4096];
    size_t n = fread(dae, 1, sizeof dae, f);
    fclose(f);
    o.format = "collada";
    m = kg_load_buffer("greifer.dae", dae, n, &o, &d);
    assert_non_null(m);
    assert_non_null(kg_test_find(&d, "joint.duplicate_axis"));
    kg_ledger_init(&l);
    text = write_urdf(m, NULL, &l, &len);
    back = kg_load_buffer("greifer.urdf", text, len, &u, &d);
    assert_non_null(back);
    assert_true(kg_model_joint(back, "j1.axis2#2") >= 0);
    free(text);
    kg_model_free(back);
    kg_model_free(m);
    kg_ledger_clear(&l);
    kg_diags_clear(&d);
}

/* The CSV of motion mo of m (kg_export_csv), read back onto m; checks each
 * coordinate's values came back to the same coordinate. Returns the header. */
static char *csv_round_trip(const kg_model *m, const kg_motion *mo) {
    char dir[] = "/tmp/kg_names_XXXXXX", path[64];
    assert_non_null(mkdtemp(dir));
    snprintf(path, sizeof path, "%s/motion.csv", dir);
    FILE *f = fopen(path, "w");
    kg_diags d;
    kg_diags_init(&d);
    kg_export_options eo = {.skip_meshes = 1};
    assert_int_equal(kg_export_csv(m, mo, &eo, f, NULL, &d), 0);
    fclose(f);
    f = fopen(path, "r");
    char *line = NULL;
    size_t cap = 0;
    assert_true(getline(&line, &cap, f) > 0);
    fclose(f);
    kg_motion *back = kg_load_motion_for(m, path, NULL, 0, &d);
    assert_non_null(back);
    assert_int_equal(kg_diags_count(&d, KG_WARNING), 0); /* every column matched */
    for (int k = 0; k < m->nq; k++)
        if (fabs(back->q[back->nq + k] - mo->q[mo->nq + k]) > 1e-12)
            fail_msg("coordinate %d came back as %g, written %g", k, back->q[back->nq + k], mo->q[mo->nq + k]);
    kg_motion_free(back);
    unlink(path);
    rmdir(dir);
    kg_diags_clear(&d);
    return line;
}

/* A trajectory's coordinate columns are unique and of any length, and read
 * back onto the coordinates they were written from: a compound joint j1's
 * axis "axis1" and a one-axis joint literally named "j1.axis1" were both
 * written "j1.axis1" (the reader took both columns for the first), and names
 * were cut at 1 099 bytes, in the middle of a UTF-8 character perhaps. */
static void test_coordinate_columns(void **state) {
    (void)state;
    kg_model *m = kg_test_load(KG_SOURCE_DIR "/tests/data/taken_axis_name.dae");
    assert_int_equal(m->nq, 3);
    kg_motion *mo = kg_motion_new(m->nq, 0.1, 2);
    for (int fr = 0; fr < 2; fr++) {
        double *q = kg_motion_append(mo, NULL);
        for (int k = 0; k < m->nq; k++) q[k] = 0.1 * (k + 1) + fr;
    }
    char *head = csv_round_trip(m, mo);
    assert_non_null(strstr(head, ",j1.axis1,"));
    assert_non_null(strstr(head, "j1.axis1#2"));
    free(head);
    kg_motion_free(mo);
    kg_model_free(m);
    /* joints named as a trajectory's own column, or with a space at the end (a reader trims an
     * unquoted field): "time#2", and "a " quoted */
    const char *urdf3 = "<robot name=\"r\"><link name=\"l0\"/><link name=\"l1\"/><link name=\"l2\"/><link name=\"l3\"/>"
                        "<joint name=\"time\" type=\"continuous\"><parent link=\"l0\"/><child link=\"l1\"/></joint>"
                        "<joint name=\"a \" type=\"continuous\"><parent link=\"l1\"/><child link=\"l2\"/></joint>"
                        "<joint name=\"a\" type=\"continuous\"><parent link=\"l2\"/><child link=\"l3\"/></joint></robot>";
    kg_diags d;
    kg_diags_init(&d);
    kg_load_options o = {0};
    o.format = "urdf";
    m = kg_load_buffer("columns.urdf", urdf3, strlen(urdf3), &o, &d);
    assert_non_null(m);
    assert_int_equal(m->nq, 3);
    mo = kg_motion_new(m->nq, 0.1, 2);
    for (int fr = 0; fr < 2; fr++) {
        double *q = kg_motion_append(mo, NULL);
        for (int k = 0; k < m->nq; k++) q[k] = 0.1 * (k + 1) + fr;
    }
    head = csv_round_trip(m, mo);
    assert_non_null(strstr(head, ",time#2,"));
    assert_non_null(strstr(head, ",\"a \","));
    free(head);
    kg_motion_free(mo);
    kg_model_free(m);
    /* a joint named by 3 000 bytes, 1 500 two-byte characters */
    size_t n = 3000;
    char *name = malloc(n + 1), *urdf = malloc(n + 400);
    for (size_t k = 0; k < n; k += 2) name[k] = (char)0xc3, name[k + 1] = (char)0xa9; /* U+00E9 */
    name[n] = 0;
    snprintf(urdf, n + 400, "<robot name=\"r\"><link name=\"a\"/><link name=\"b\"/><joint name=\"%s\" type=\"revolute\">"
                            "<parent link=\"a\"/><child link=\"b\"/><axis xyz=\"0 0 1\"/>"
                            "<limit lower=\"-1\" upper=\"1\" effort=\"1\" velocity=\"1\"/></joint></robot>", name);
    o.format = "urdf";
    m = kg_load_buffer("long.urdf", urdf, strlen(urdf), &o, &d);
    assert_non_null(m);
    mo = kg_motion_new(m->nq, 0.1, 2);
    for (int fr = 0; fr < 2; fr++) kg_motion_append(mo, NULL)[0] = 0.5 * fr + 0.25;
    head = csv_round_trip(m, mo);
    assert_non_null(strstr(head, name)); /* the whole name */
    free(head);
    free(name);
    free(urdf);
    kg_motion_free(mo);
    kg_model_free(m);
    kg_diags_clear(&d);
}

/* A torques file's columns (kinegraph dynamics) are named like a
 * trajectory's, per velocity coordinate: unique among themselves and against
 * "time", whole. */
static void test_velocity_names(void **state) {
    (void)state;
    kg_model *m = kg_test_load(KG_SOURCE_DIR "/tests/data/taken_axis_name.dae");
    char **v = kg_velocity_names(m), **q = kg_coord_names(m);
    assert_non_null(v);
    assert_non_null(q);
    assert_int_equal(m->nv, m->nq);
    for (int c = 0; c < m->nv; c++) assert_string_equal(v[c], q[c]); /* one velocity per coordinate here */
    int plain = 0, second = 0;
    for (int c = 0; c < m->nv; c++) plain += !strcmp(v[c], "j1.axis1"), second += !strcmp(v[c], "j1.axis1#2");
    assert_int_equal(plain, 1);
    assert_int_equal(second, 1);
    kg_coord_names_free(v, m->nv), kg_coord_names_free(q, m->nq);
    kg_model_free(m);
    const char *urdf = "<robot name=\"r\"><link name=\"l0\"/><link name=\"l1\"/>"
                       "<joint name=\"time\" type=\"continuous\"><parent link=\"l0\"/><child link=\"l1\"/></joint></robot>";
    kg_diags d;
    kg_diags_init(&d);
    kg_load_options o = {0};
    o.format = "urdf";
    m = kg_load_buffer("time.urdf", urdf, strlen(urdf), &o, &d);
    assert_non_null(m);
    v = kg_velocity_names(m);
    assert_non_null(v);
    assert_string_equal(v[0], "time#2");
    kg_coord_names_free(v, m->nv);
    kg_model_free(m);
    /* a floating joint: seven coordinates, six velocities, its twist */
    const char *floating = "<robot name=\"r\"><link name=\"l0\"/><link name=\"l1\"/><link name=\"l2\"/>"
                           "<joint name=\"h\" type=\"continuous\"><parent link=\"l0\"/><child link=\"l1\"/></joint>"
                           "<joint name=\"f\" type=\"floating\"><parent link=\"l1\"/><child link=\"l2\"/></joint></robot>";
    m = kg_load_buffer("floating.urdf", floating, strlen(floating), &o, &d);
    assert_non_null(m);
    assert_int_equal(m->nv, 7);
    v = kg_velocity_names(m);
    assert_non_null(v);
    static const char *const want[7] = {"h", "f.vx", "f.vy", "f.vz", "f.wx", "f.wy", "f.wz"};
    char buf[64];
    for (int c = 0; c < 7; c++) {
        assert_string_equal(v[c], want[c]);
        assert_string_equal(kg_velocity_name(m, c, buf, sizeof buf), want[c]);
    }
    kg_coord_names_free(v, m->nv);
    kg_model_free(m);
    kg_diags_clear(&d);
}

/* Mesh files other than STL read by assimp in one child process
 * (formats/mesh_child.c): each file answered in order; a file assimp cannot
 * read gets its error and the next are read on; a file that hangs (a FIFO no
 * one writes) costs that file only, named with the time allowed (3 s), and a
 * fresh child reads the rest. Then the same files through kg_mesh_cache_preload (one
 * child for all) and through kg_mesh_get alone (a child each): the same meshes
 * and the same warnings. */
static void test_meshes_in_child(void **state) {
    (void)state;
    char dir[] = "/tmp/kg_child_XXXXXX", p[4][300];
    assert_non_null(mkdtemp(dir));
    const char *name[4] = {"cube.obj", "bad.dae", "hang.obj", "tet.obj"};
    for (int k = 0; k < 4; k++) snprintf(p[k], sizeof p[k], "%s/%s", dir, name[k]);
    FILE *f = fopen(p[0], "w");
    assert_non_null(f);
    fputs("v 0 0 0\nv 1 0 0\nv 1 1 0\nv 0 1 0\nv 0 0 1\nv 1 0 1\nv 1 1 1\nv 0 1 1\n"
          "f 1 4 3 2\nf 5 6 7 8\nf 1 2 6 5\nf 2 3 7 6\nf 3 4 8 7\nf 4 1 5 8\n", f);
    fclose(f);
    assert_non_null(f = fopen(p[1], "w"));
    fputs("this is not a mesh\n", f);
    fclose(f);
    assert_int_equal(mkfifo(p[2], 0600), 0);
    assert_non_null(f = fopen(p[3], "w"));
    fputs("v 0 0 0\nv 1 0 0\nv 0 1 0\nv 0 0 1\nf 1 3 2\nf 1 2 4\nf 1 4 3\nf 2 3 4\n", f);
    fclose(f);
    const char *paths[4] = {p[0], p[1], p[2], p[3]};
    const struct aiScene *sc[4];
    char *err[4];
    kg_mesh_read_isolated(paths, 4, aiProcess_Triangulate | aiProcess_SortByPType, 3, sc, err);
    assert_non_null(sc[0]), assert_null(err[0]);
    assert_int_equal(sc[0]->mNumMeshes, 1), assert_int_equal(sc[0]->mMeshes[0]->mNumFaces, 12);
    assert_null(sc[1]), assert_non_null(err[1]); /* assimp 5.2.5: "Unable to read file, malformed XML" */
    assert_null(sc[2]), assert_string_equal(err[2], "assimp did not finish reading it in 3 s");
    assert_non_null(sc[3]), assert_null(err[3]);
    assert_int_equal(sc[3]->mMeshes[0]->mNumFaces, 4);
    for (int k = 0; k < 4; k++) {
        if (sc[k]) aiReleaseImport(sc[k]);
        free(err[k]);
    }
    /* without the FIFO: kg_mesh_get would wait for it the full minute */
    const char *three[3] = {p[0], p[1], p[3]};
    kg_mesh_cache *batch = kg_mesh_cache_new(), *alone = kg_mesh_cache_new();
    kg_diags d1, d2;
    kg_diags_init(&d1), kg_diags_init(&d2);
    assert_int_equal(kg_mesh_cache_preload(batch, three, 3, 1), 0);
    for (int k = 0; k < 3; k++) {
        const kg_mesh *a = kg_mesh_get(batch, three[k], NULL, &d1, NULL, 0), *b = kg_mesh_get(alone, three[k], NULL, &d2, NULL, 0);
        assert_int_equal(a != NULL, k != 1), assert_int_equal(b != NULL, k != 1);
        if (!a) continue;
        assert_int_equal(a->nvert, b->nvert), assert_int_equal(a->ntri, b->ntri);
        assert_int_equal(a->ntri, k ? 4 : 12);
        assert_memory_equal(a->vert, b->vert, 3 * (size_t)a->nvert * sizeof *a->vert);
        assert_memory_equal(a->tri, b->tri, 3 * (size_t)a->ntri * sizeof *a->tri);
    }
    assert_int_equal(kg_test_count(&d1, "mesh.unreadable"), 1), assert_int_equal(kg_test_count(&d2, "mesh.unreadable"), 1);
    assert_int_equal(d1.count, d2.count);
    kg_mesh_cache_free(batch), kg_mesh_cache_free(alone);
    kg_diags_clear(&d1), kg_diags_clear(&d2);
    kg_test_remove_dir(dir);
}

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

typedef struct inside_assimp {
    pthread_mutex_t lock;
    pthread_cond_t entered_cond;
    int entered;
    double left; /* when it left assimp */
} inside_assimp;

static void *stay_inside(void *arg) {
    inside_assimp *a = arg;
    kg_assimp_enter();
    pthread_mutex_lock(&a->lock);
    a->entered = 1;
    pthread_cond_signal(&a->entered_cond);
    pthread_mutex_unlock(&a->lock);
    nanosleep(&(struct timespec){0, 300000000}, NULL);
    a->left = now();
    kg_assimp_leave();
    return NULL;
}

/* A child reader is not forked while another thread is inside assimp (a fork
 * then copies the locks that thread holds, and the child can wait on them for
 * ever): the read waits until the thread has left, then reads the file. */
static void test_fork_waits_for_assimp(void **state) {
    (void)state;
    char dir[] = "/tmp/kg_fork_XXXXXX", path[300];
    assert_non_null(mkdtemp(dir));
    snprintf(path, sizeof path, "%s/tet.obj", dir);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs("v 0 0 0\nv 1 0 0\nv 0 1 0\nv 0 0 1\nf 1 3 2\nf 1 2 4\nf 1 4 3\nf 2 3 4\n", f);
    fclose(f);
    inside_assimp a = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, 0, 0};
    pthread_t t;
    assert_int_equal(pthread_create(&t, NULL, stay_inside, &a), 0);
    pthread_mutex_lock(&a.lock);
    while (!a.entered) pthread_cond_wait(&a.entered_cond, &a.lock);
    pthread_mutex_unlock(&a.lock);
    const char *paths[1] = {path};
    const struct aiScene *sc[1];
    char *err[1];
    kg_mesh_read_isolated(paths, 1, aiProcess_Triangulate, 3, sc, err);
    double done = now();
    pthread_join(t, NULL);
    assert_true(done >= a.left && a.left > 0);
    assert_non_null(sc[0]), assert_null(err[0]);
    assert_int_equal(sc[0]->mMeshes[0]->mNumFaces, 4);
    aiReleaseImport(sc[0]);
    kg_test_remove_dir(dir);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_meshes_in_child),
        cmocka_unit_test(test_fork_waits_for_assimp),
        cmocka_unit_test(test_urdf_round_trip),
        cmocka_unit_test(test_bvh_to_urdf),
        cmocka_unit_test(test_loops_and_defaults_in_ledger),
        cmocka_unit_test(test_trajectory_ledger),
        cmocka_unit_test(test_compound_names_unique),
        cmocka_unit_test(test_coordinate_columns),
        cmocka_unit_test(test_velocity_names),
        cmocka_unit_test(test_collada_round_trip),
        cmocka_unit_test(test_collada_peers),
        cmocka_unit_test(test_collada_mass_only_body),
        cmocka_unit_test(test_collada_mass_frames_openrave),
        cmocka_unit_test(test_urdf_to_collada_file),
        cmocka_unit_test(test_collada_zero_axis_fixed),
        cmocka_unit_test(test_collada_loops),
        cmocka_unit_test(test_collada_meshes_in_assimp),
        cmocka_unit_test(test_embedded_meshes_to_urdf),
        cmocka_unit_test(test_any_model_through_bvh),
        cmocka_unit_test(test_any_model_through_collada),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
