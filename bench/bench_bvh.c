/* BVH clips: parse throughput (MB/s, kg_load_clip, best of several reads),
 * whole-clip forward kinematics (frames/s), and the memory a read takes (growth
 * of the peak resident set over the process's baseline, against the size of the
 * decoded motion, frames x channels x 8 bytes; a small clip is read first so
 * that code pages touched for the first time do not count). One JSON line per clip.
 * usage: bench_bvh WARMUP.bvh CLIP.bvh... */
#include "bench_common.h" /* first: feature macros */

#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/stat.h>

#include "core/fk.h"
#include "io/load.h"

static long peak_kb(void) {
    struct rusage u;
    getrusage(RUSAGE_SELF, &u);
    return u.ru_maxrss;
}

int main(int argc, char **argv) {
    if (argc < 2) {
        fprintf(stderr, "usage: bench_bvh WARMUP.bvh CLIP.bvh...\n");
        return 2;
    }
    kg_diags w;
    kg_diags_init(&w);
    kg_motion *wm;
    kg_model_free(kg_load_clip(argv[1], NULL, &wm, &w));
    kg_motion_free(wm);
    kg_diags_clear(&w);
    for (int k = 2; k < argc; k++) {
        struct stat st;
        if (stat(argv[k], &st) != 0) continue;
        /* memory first, on a fresh process state: one read */
        long before = peak_kb();
        kg_diags d;
        kg_diags_init(&d);
        kg_motion *mo;
        kg_model *m = kg_load_clip(argv[k], NULL, &mo, &d);
        long grown = peak_kb() - before;
        if (!m || !mo) {
            fprintf(stderr, "bench_bvh: cannot read %s\n", argv[k]);
            return 1;
        }
        double motion_mb = (double)mo->nframes * mo->nq * 8 / 1e6;
        kg_motion_free(mo);
        kg_model_free(m);
        kg_diags_clear(&d);
        double parse[KG_BENCH_REPS];
        int reps = 11;
        for (int r = 0; r < reps; r++) {
            kg_diags_init(&d);
            double t0 = kg_now();
            m = kg_load_clip(argv[k], NULL, &mo, &d);
            parse[r] = kg_now() - t0;
            if (r + 1 < reps) {
                kg_motion_free(mo);
                kg_model_free(m);
            }
            kg_diags_clear(&d);
        }
        kg_bench_median(parse, reps);
        kg_data *kd = kg_data_new(m);
        double fk[KG_BENCH_REPS], sink = 0;
        for (int r = 0; r < reps; r++) {
            double t0 = kg_now();
            for (int f = 0; f < mo->nframes; f++) {
                kg_motion_pose(mo, f, kd);
                kg_fk(m, kd);
                sink += kd->link_pos[3 * (m->nlink - 1)];
            }
            fk[r] = (kg_now() - t0) / mo->nframes;
        }
        kg_bench_median(fk, reps);
        printf("{\"benchmark\": \"bvh\", \"tool\": \"kinegraph\", \"file\": \"%s\", \"bytes\": %ld, \"frames\": %d, "
               "\"channels\": %d, \"parse_ms\": %.3f, \"parse_mb_per_s\": %.1f, \"fk_frames_per_s\": %.0f, "
               "\"motion_mb\": %.3f, \"peak_rss_growth_mb\": %.3f, \"checksum\": %.6g}\n",
               argv[k], (long)st.st_size, mo->nframes, mo->nq, parse[0] * 1e3, st.st_size / parse[0] / 1e6,
               1 / fk[0], motion_mb, grown / 1024.0, sink);
        kg_data_free(kd);
        kg_motion_free(mo);
        kg_model_free(m);
    }
    return 0;
}
