/* Workspaces with an analytic answer: a planar 2R arm reaches an annulus (area
 * pi ((l1 + l2)^2 - (l1 - l2)^2)), a yaw-pitch-prismatic arm a spherical shell
 * (4/3 pi (r2^3 - r1^3)); both within 2 %. The samples do not depend on the
 * thread count; the convergence curve counts up to the voxels found. */
#define _XOPEN_SOURCE 700
#include "testutil.h"

#include <stdlib.h>
#include <string.h>

#include "analysis/workspace.h"
#include "core/spatial.h"

static kg_model *model(const char *text) {
    kg_diags d;
    kg_diags_init(&d);
    kg_model *m = kg_test_load_string("arm.urdf", text, &d);
    assert_non_null(m);
    kg_diags_clear(&d);
    return m;
}

static void test_planar_annulus(void **state) {
    (void)state;
    kg_model *m = model("<robot name='r2'><link name='base'/><link name='l1'/><link name='l2'/><link name='tip'/>"
                        "<joint name='j1' type='continuous'><parent link='base'/><child link='l1'/><axis xyz='0 0 1'/></joint>"
                        "<joint name='j2' type='continuous'><parent link='l1'/><child link='l2'/><origin xyz='1 0 0'/>"
                        "<axis xyz='0 0 1'/></joint><joint name='t' type='fixed'><parent link='l2'/><child link='tip'/>"
                        "<origin xyz='0.6 0 0'/></joint></robot>");
    kg_workspace_options o = {.tip = kg_model_link(m, "tip"), .base = -1, .samples = 2000000, .voxel = 0.01, .seed = 3,
                              .sequence = KG_SAMPLE_HALTON, .manipulability = 1};
    kg_workspace w;
    assert_int_equal(kg_workspace_compute(m, &o, &w), 0);
    assert_int_equal(w.nsampled, 2);
    double area = w.volume / o.voxel, want = KG_PI * (1.6 * 1.6 - 0.4 * 0.4);
    printf("2R annulus: area %.4f m^2 from %ld voxels, exact %.4f (%.2f %%); plain voxel count %.4f\n", area, w.nvoxel,
           want, 100 * (area / want - 1), w.voxel_volume / o.voxel);
    assert_true(fabs(area / want - 1) < 0.02);
    KG_ASSERT_NEAR(w.hi[0], 1.6, 1e-3);
    KG_ASSERT_NEAR(w.hi[2], 0, 0);
    /* manipulability: w = sqrt(det(J^T J)) of the 6 x 2 Jacobian (both columns also turn about
     * z): |a|^2 = l1^2 + l2^2 + 2 l1 l2 c2 + 1, |b|^2 = l2^2 + 1, a.b = l2^2 + l1 l2 c2 + 1 */
    double lo = INFINITY, hi = 0;
    for (double t2 = 0; t2 < 2 * KG_PI; t2 += 1e-4) {
        double c2 = cos(t2), aa = 1 + 0.36 + 1.2 * c2 + 1, bb = 0.36 + 1, ab = 0.36 + 0.6 * c2 + 1;
        double wt = sqrt(aa * bb - ab * ab);
        lo = fmin(lo, wt), hi = fmax(hi, wt);
    }
    KG_ASSERT_NEAR(w.w_min, lo, 1e-3 * hi);
    KG_ASSERT_NEAR(w.w_max, hi, 1e-3 * hi);
    /* the same samples on three threads: the same voxels */
    kg_workspace w3;
    o.threads = 3;
    assert_int_equal(kg_workspace_compute(m, &o, &w3), 0);
    assert_int_equal(w3.nvoxel, w.nvoxel);
    assert_true(w3.volume == w.volume);
    assert_int_equal(w3.ncurve, w.ncurve);
    for (int k = 0; k < w.ncurve; k++) assert_int_equal(w3.curve[k].voxels, w.curve[k].voxels);
    assert_int_equal(w.curve[w.ncurve - 1].voxels, w.nvoxel);
    assert_int_equal(w.curve[w.ncurve - 1].samples, o.samples);
    kg_workspace_free(&w);
    kg_workspace_free(&w3);
    kg_model_free(m);
}

static void test_spherical_shell(void **state) {
    (void)state;
    kg_model *m = model("<robot name='s'><link name='base'/><link name='a'/><link name='b'/><link name='tip'/>"
                        "<joint name='yaw' type='continuous'><parent link='base'/><child link='a'/><axis xyz='0 0 1'/></joint>"
                        "<joint name='pitch' type='revolute'><parent link='a'/><child link='b'/><axis xyz='0 1 0'/>"
                        "<limit lower='-1.5707963267948966' upper='1.5707963267948966' effort='1' velocity='1'/></joint>"
                        "<joint name='reach' type='prismatic'><parent link='b'/><child link='tip'/><axis xyz='1 0 0'/>"
                        "<limit lower='0.5' upper='1.0' effort='1' velocity='1'/></joint></robot>");
    kg_workspace_options o = {.tip = kg_model_link(m, "tip"), .base = -1, .samples = 4000000, .voxel = 0.03, .seed = 5,
                              .sequence = KG_SAMPLE_HALTON, .manipulability = 0, .threads = 2};
    kg_workspace w;
    assert_int_equal(kg_workspace_compute(m, &o, &w), 0);
    assert_int_equal(w.nsampled, 3);
    double want = 4.0 / 3 * KG_PI * (1 - 0.125);
    printf("spherical shell: volume %.4f m^3 from %ld voxels, exact %.4f (%.2f %%); plain voxel count %.4f\n", w.volume,
           w.nvoxel, want, 100 * (w.volume / want - 1), w.voxel_volume);
    assert_true(fabs(w.volume / want - 1) < 0.02);
    kg_workspace_free(&w);
    kg_model_free(m);
}

static void test_sampler(void **state) {
    (void)state;
    /* drawing in order gives the counter-based values to the bit, from any start,
     * for both sequences and past the Halton dimensions */
    enum { N = 70 };
    kg_sample_coord c[N];
    for (int k = 0; k < N; k++) c[k].q = N - 1 - k, c[k].lo = 0, c[k].hi = 1;
    for (int seq = 0; seq < 2; seq++) {
        const long starts[3] = {0, 7, 123456789};
        for (int st = 0; st < 3; st++) {
            kg_sampler s;
            kg_sampler_start(&s, seq, 42, N, starts[st]);
            double q[N];
            for (long i = starts[st]; i < starts[st] + 3000; i++) {
                kg_sampler_draw(&s, c, q);
                for (int k = 0; k < N; k++)
                    if (q[N - 1 - k] != kg_sample_unit(seq, 42, i, k, N))
                        fail_msg("sequence %d, sample %ld, value %d: %.17g != %.17g", seq, i, k, q[N - 1 - k],
                                 kg_sample_unit(seq, 42, i, k, N));
            }
        }
    }
    /* base 2 is van der Corput's sequence, shifted modulo 1: samples 0 and 1 are
     * 1/2 and 1/4 before the shift */
    double a = kg_sample_unit(KG_SAMPLE_HALTON, 42, 0, 0, 1), b = kg_sample_unit(KG_SAMPLE_HALTON, 42, 1, 0, 1);
    KG_ASSERT_NEAR(a - b + (a < b), 0.25, 1e-15);
}

/* The progress callback: told the samples drawn of the total, never going
 * back, from the first thread's share (2 of 3 threads: shares of 50 000 each,
 * a report every 8192 samples of the first, scaled to the whole). */
typedef struct progress_log {
    int calls;
    long last, total;
    int backwards;
} progress_log;

static void log_progress(void *user, long done, long total) {
    progress_log *l = user;
    l->backwards |= done < l->last;
    l->calls++, l->last = done, l->total = total;
}

static void test_progress(void **state) {
    (void)state;
    kg_model *m = model("<robot name='r1'><link name='base'/><link name='tip'/>"
                        "<joint name='j1' type='continuous'><parent link='base'/><child link='tip'/><origin xyz='1 0 0'/>"
                        "<axis xyz='0 0 1'/></joint></robot>");
    progress_log l = {0};
    kg_workspace_options o = {.tip = kg_model_link(m, "tip"), .base = -1, .samples = 100000, .voxel = 0.01, .seed = 1,
                              .threads = 2, .progress = log_progress, .progress_user = &l};
    kg_workspace w;
    assert_int_equal(kg_workspace_compute(m, &o, &w), 0);
    assert_int_equal(l.calls, 50000 / 8192); /* 6 reports: samples 8192 ... 49152 of the first share */
    assert_int_equal(l.total, 100000);
    assert_int_equal(l.last, 49152 * 2);
    assert_false(l.backwards);
    kg_workspace_free(&w);
    kg_model_free(m);
}

/* Past max_voxels the run stops with KG_WORKSPACE_TOO_MANY, on one thread or
 * several (their voxels merged); a point beyond the voxel grid's reach (2^20
 * voxels from the origin) stops it with KG_WORKSPACE_OFF_GRID rather than
 * being counted in the edge voxel. The arm of test_progress with the point
 * 1 m out on its tip: a circle of radius 1 m about (1, 0, 0), so 0.001 m
 * voxels from 100 000 samples are nearly the 8 000 it crosses (a circle of
 * radius r crosses 8 r / voxel of them: 7 674 reached), and at 2e-6 m its
 * farthest points are a million voxels out. */
static void test_limits(void **state) {
    (void)state;
    kg_model *m = model("<robot name='r1'><link name='base'/><link name='tip'/>"
                        "<joint name='j1' type='continuous'><parent link='base'/><child link='tip'/><origin xyz='1 0 0'/>"
                        "<axis xyz='0 0 1'/></joint></robot>");
    kg_workspace w;
    for (int threads = 1; threads <= 2; threads++) {
        kg_workspace_options o = {.tip = kg_model_link(m, "tip"), .base = -1, .point = {1, 0, 0}, .samples = 100000,
                                  .voxel = 0.001, .seed = 1, .threads = threads};
        assert_int_equal(kg_workspace_compute(m, &o, &w), 0);
        const long n = w.nvoxel;
        kg_workspace_free(&w);
        printf("  %d thread(s): %ld voxels\n", threads, n);
        assert_true(n > 7000 && n <= 8000);
        o.max_voxels = n;
        assert_int_equal(kg_workspace_compute(m, &o, &w), 0);
        kg_workspace_free(&w);
        o.max_voxels = n - 1;
        assert_int_equal(kg_workspace_compute(m, &o, &w), KG_WORKSPACE_TOO_MANY);
        assert_null(w.voxel);
        o.max_voxels = 0, o.voxel = 1.8e-6; /* x reaches 2 m: 1.11 million voxels */
        assert_int_equal(kg_workspace_compute(m, &o, &w), KG_WORKSPACE_OFF_GRID);
        o.voxel = 2.1e-6; /* 0.95 million: inside, and 100 000 voxels */
        assert_int_equal(kg_workspace_compute(m, &o, &w), 0);
        kg_workspace_free(&w);
    }
    kg_model_free(m);
}

int main(void) {
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_planar_annulus), cmocka_unit_test(test_spherical_shell),
                                       cmocka_unit_test(test_sampler), cmocka_unit_test(test_progress),
                                       cmocka_unit_test(test_limits)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
