/* Conversions and the ledger: URDF -> URDF keeps everything for every corpus
 * robot (names, limits, inertials, mimic, geometry, extras; FK and mass at random
 * joint vectors to 1e-9) with an empty ledger; BVH -> URDF keeps the kinematics
 * exactly through chains of one-axis joints; what URDF cannot hold (loops) is in
 * the ledger with its source line. */
#define _XOPEN_SOURCE 700
#include "testutil.h"

#include <ftw.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "analysis/mass.h"
#include "core/fk.h"
#include "exporters/exporters.h"
#include "formats/load.h"

static char *write_urdf(const kg_model *m, const kg_motion *mo, kg_ledger *l, size_t *len) {
    char *buf = NULL;
    FILE *f = open_memstream(&buf, len);
    kg_diags d;
    kg_diags_init(&d);
    if (kg_export_urdf(m, mo, f, l, &d) != 0) fail_msg("cannot write %s as URDF", m->name);
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

static void compare_models(const kg_model *a, const kg_model *b, const char *file) {
    assert_string_equal(a->name, b->name);
    assert_int_equal(a->nlink - a->nloop, b->nlink);
    assert_int_equal(a->njoint - a->nloop, b->njoint);
    assert_int_equal(a->nmimic, b->nmimic);
    assert_int_equal(a->nextra, b->nextra);
    for (int i = 0; i < a->nlink; i++) {
        const kg_link *la = &a->link[i];
        if (la->real >= 0) continue;
        int k = kg_model_link(b, la->name);
        if (k < 0) fail_msg("%s: link %s lost", file, la->name);
        const kg_link *lb = &b->link[k];
        assert_int_equal(la->has_inertial, lb->has_inertial);
        const kg_inertial *ia = &la->inertial, *ib = &lb->inertial; /* exactly */
        assert_true(ia->mass == ib->mass && same(ia->pos, ib->pos, 3) && same(ia->rpy, ib->rpy, 3) &&
                    same(ia->inertia, ib->inertia, 6));
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
    compare_models(a, b, path);
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
    for (int i = 0; i < nfiles; i++) {
        round_trip(files[i]);
        free(files[i]);
    }
    assert_int_equal(nfiles, 43);
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

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_urdf_round_trip),
        cmocka_unit_test(test_bvh_to_urdf),
        cmocka_unit_test(test_loops_and_defaults_in_ledger),
        cmocka_unit_test(test_trajectory_ledger),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
