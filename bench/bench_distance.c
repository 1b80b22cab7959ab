#include "bench_common.h" /* first: feature macros */
/* Signed distances between link pairs (kg_pair_distance), single thread, as a
 * whole-body QP asks them: every pair that is not adjacent, at each of 1000
 * pre-drawn joint vectors within limits (default model the Unitree G1), with
 * max_dist the damper's influence distance (MAX_DIST, default 0.05 m). Per
 * pose, kg_fk (not timed), then (timed):
 *   place   kg_link_box of every link with shapes: places its shapes in the
 *           work space, which the pair queries of the pose then reuse (us per pose);
 *   far     the pairs whose links' boxes are max_dist or more apart: a box test each;
 *   near    the others: GJK on their shapes (MPR where they overlap);
 *   warm    the near pairs again after a small step (every joint by up to
 *           0.005 rad), as successive QP iterations ask: GJK starts from the
 *           pair's last direction;
 *   warm_apart, warm_overlap   the same split by the near pass's answer: apart
 *           (GJK alone) and overlapping (GJK finds the cores meet, then MPR).
 * All but place are microseconds per pair query. Prints JSON.
 * usage: bench_distance [URDF] [MAX_DIST] */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "analysis/collision.h"
#include "core/fk.h"
#include "io/load.h"

typedef struct timing {
    double place, far, near, warm, warm_apart, warm_overlap; /* seconds over one rep */
    long nfar, nnear, noverlap;
} timing;

/* Are links a and b's boxes at least max_dist apart? */
static int far_apart(const double *lo, const double *hi, int a, int b, double max_dist) {
    double g = 0;
    for (int k = 0; k < 3; k++) {
        double e = fmax(lo[3 * b + k] - hi[3 * a + k], lo[3 * a + k] - hi[3 * b + k]);
        if (e > 0) g += e * e;
    }
    return g >= max_dist * max_dist;
}

/* One rep over every pose: times the four phases; sink keeps the answers used. */
static void rep(const kg_model *m, const kg_collision_model *cm, kg_data *kd, kg_collision_work *w, const double *qs,
                const double *steps, double max_dist, int *list, unsigned char *overlap, double *lo, double *hi,
                timing *t, double *sink) {
    double dist, n[3], pa[3], pb[3];
    for (int c = 0; c < KG_BENCH_CONFIGS; c++) {
        for (int k = 0; k < m->nq; k++) kd->q[k] = qs[(size_t)c * m->nq + k];
        kg_fk(m, kd);
        double t0 = kg_now();
        for (int l = 0; l < m->nlink; l++) kg_link_box(cm, kd, w, l, lo + 3 * l, hi + 3 * l);
        double t1 = kg_now();
        int nfar = 0, nnear = 0;
        for (int p = 0; p < cm->npair; p++) /* sorted outside the clock: near ones first */
            if (!cm->adjacent[p]) {
                if (far_apart(lo, hi, cm->pair_a[p], cm->pair_b[p], max_dist)) list[cm->npair - 1 - nfar++] = p;
                else list[nnear++] = p;
            }
        double t2 = kg_now();
        for (int i = 0; i < nfar; i++)
            *sink += kg_pair_distance(cm, kd, w, list[cm->npair - 1 - i], max_dist, &dist, n, pa, pb);
        double t3 = kg_now();
        for (int i = 0; i < nnear; i++) {
            int found = kg_pair_distance(cm, kd, w, list[i], max_dist, &dist, n, pa, pb);
            overlap[i] = found && dist < 0;
            *sink += found ? dist : 0;
        }
        double t4 = kg_now();
        for (int k = 0; k < m->nq; k++) kd->q[k] += steps[(size_t)c * m->nq + k];
        kg_fk(m, kd);
        for (int l = 0; l < m->nlink; l++) kg_link_box(cm, kd, w, l, lo + 3 * l, hi + 3 * l);
        double t5 = kg_now();
        for (int i = 0; i < nnear; i++)
            if (!overlap[i] && kg_pair_distance(cm, kd, w, list[i], max_dist, &dist, n, pa, pb)) *sink += dist;
        double t6 = kg_now();
        int nover = 0;
        for (int i = 0; i < nnear; i++)
            if (overlap[i] && (nover++, kg_pair_distance(cm, kd, w, list[i], max_dist, &dist, n, pa, pb))) *sink += dist;
        double t7 = kg_now();
        t->place += t1 - t0, t->far += t3 - t2, t->near += t4 - t3, t->warm += t7 - t5;
        t->warm_apart += t6 - t5, t->warm_overlap += t7 - t6;
        t->nfar += nfar, t->nnear += nnear, t->noverlap += nover;
    }
}

int main(int argc, char **argv) {
    const char *path = argc > 1 ? argv[1] : "../shared/data/urdf/unitree_g1/g1_description/g1_29dof_rev_1_0.urdf";
    double max_dist = argc > 2 ? atof(argv[2]) : 0.05;
    kg_diags d;
    kg_diags_init(&d);
    kg_model *m = kg_load(path, NULL, &d);
    kg_mesh_cache *mc = kg_mesh_cache_new();
    kg_collision_model cm;
    if (!m || kg_collision_model_build(m, mc, &cm, &d) != 0) {
        fprintf(stderr, "bench_distance: cannot load %s\n", path);
        return 1;
    }
    kg_data *kd = kg_data_new(m);
    kg_collision_work *w = kg_collision_work_new(&cm);
    double *qs = malloc(sizeof(double) * (size_t)m->nq * KG_BENCH_CONFIGS);
    double *steps = malloc(sizeof(double) * (size_t)m->nq * KG_BENCH_CONFIGS);
    double *lo = malloc(sizeof(double) * 3 * (size_t)m->nlink), *hi = malloc(sizeof(double) * 3 * (size_t)m->nlink);
    int *list = malloc(sizeof(int) * ((size_t)cm.npair + 1));
    unsigned char *overlap = malloc((size_t)cm.npair + 1);
    uint64_t s = KG_BENCH_SEED;
    for (int c = 0; c < KG_BENCH_CONFIGS; c++)
        for (int j = 0; j < m->njoint; j++) {
            const kg_joint *J = &m->joint[j];
            for (int k = 0; k < J->nq; k++) {
                double a = kg_joint_is_limited(J) ? J->lower : -3.14159265358979323846;
                double b = kg_joint_is_limited(J) ? J->upper : 3.14159265358979323846;
                qs[(size_t)c * m->nq + J->qadr + k] = a + (b - a) * kg_bench_uniform(&s);
                steps[(size_t)c * m->nq + J->qadr + k] = 0.005 * (2 * kg_bench_uniform(&s) - 1);
            }
        }
    double times[6][KG_BENCH_REPS], sink = 0;
    timing t;
    for (int r = 0; r < KG_BENCH_REPS; r++) {
        t = (timing){0, 0, 0, 0, 0, 0, 0, 0, 0};
        rep(m, &cm, kd, w, qs, steps, max_dist, list, overlap, lo, hi, &t, &sink);
        long apart = t.nnear - t.noverlap;
        times[0][r] = t.place / KG_BENCH_CONFIGS;
        times[1][r] = t.far / (double)(t.nfar > 0 ? t.nfar : 1);
        times[2][r] = t.near / (double)(t.nnear > 0 ? t.nnear : 1);
        times[3][r] = t.warm / (double)(t.nnear > 0 ? t.nnear : 1);
        times[4][r] = t.warm_apart / (double)(apart > 0 ? apart : 1);
        times[5][r] = t.warm_overlap / (double)(t.noverlap > 0 ? t.noverlap : 1);
    }
    int checked = 0;
    for (int p = 0; p < cm.npair; p++) checked += !cm.adjacent[p];
    printf("{\"benchmark\": \"distance\", \"tool\": \"kinegraph\", \"model\": \"%s\", \"pairs\": %d, \"max_dist\": %g, "
           "\"near_per_pose\": %.1f, \"overlap_per_pose\": %.1f, \"far_per_pose\": %.1f",
           m->name, checked, max_dist, (double)t.nnear / KG_BENCH_CONFIGS, (double)t.noverlap / KG_BENCH_CONFIGS,
           (double)t.nfar / KG_BENCH_CONFIGS);
    const char *names[6] = {"place", "far", "near", "warm", "warm_apart", "warm_overlap"};
    for (int k = 0; k < 6; k++) {
        double med = kg_bench_median(times[k], KG_BENCH_REPS);
        printf(", \"%s_us_min\": %.4f, \"%s_us_median\": %.4f", names[k], times[k][0] * 1e6, names[k], med * 1e6);
    }
    printf(", \"checksum\": %.6g}\n", sink);
    free(qs);
    free(steps);
    free(lo);
    free(hi);
    free(list);
    free(overlap);
    kg_collision_work_free(w);
    kg_data_free(kd);
    kg_collision_model_free(&cm);
    kg_mesh_cache_free(mc);
    kg_model_free(m);
    kg_diags_clear(&d);
    return 0;
}
