/* Retargeting speed: a clip onto a robot with every constraint on (contacts,
 * limits, velocity limits, balance, self-collision pushes),
 * single thread. Prints JSON: frames per second over the whole kg_retarget call
 * (the robot prepared in it), per clip onto a robot prepared once
 * (kg_retarget_prepared: what each clip of a batch costs; the source's setup
 * included) and over the stream alone; min, median and max of the runs, the
 * robot's preparation time, and the report's quality figures of the last run.
 * usage: bench_retarget CLIP ROBOT [runs [NAME=VALUE...]] (tuning fields set, as retarget --tune;
 * prepare_threads=N sets kg_retarget_options.prepare_threads) */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kinegraph/retarget.h"
#include "io/load.h"

static int cmp(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int main(int argc, char **argv) {
    if (argc < 3) {
        fprintf(stderr, "usage: bench_retarget CLIP ROBOT [runs [NAME=VALUE...]]\n");
        return 2;
    }
    int runs = argc > 3 ? atoi(argv[3]) : 5;
    if (runs < 1) runs = 1;
    kg_diags d;
    kg_diags_init(&d);
    kg_motion *clip = NULL;
    kg_model *src = kg_load_clip(argv[1], NULL, &clip, &d), *robot = kg_load(argv[2], NULL, &d);
    if (!src || !robot || !clip) {
        fprintf(stderr, "bench_retarget: cannot load %s or %s\n", argv[1], argv[2]);
        return 1;
    }
    kg_retarget_options o;
    kg_retarget_defaults(&o);
    for (int a = 4; a < argc; a++) {
        char name[128];
        const char *eq = strchr(argv[a], '=');
        if (!eq || eq - argv[a] >= (int)sizeof name) return fprintf(stderr, "bench_retarget: NAME=VALUE, not %s\n", argv[a]), 2;
        snprintf(name, sizeof name, "%.*s", (int)(eq - argv[a]), argv[a]);
        if (!strcmp(name, "prepare_threads")) { /* not a tuning number: kg_retarget_options' */
            o.prepare_threads = atoi(eq + 1);
            continue;
        }
        if (kg_retarget_tuning_set(&o.tune, name, atof(eq + 1)) != 0)
            return fprintf(stderr, "bench_retarget: no tuning field %s\n", name), 2;
    }
    double *all = malloc((size_t)runs * sizeof *all), *clipr = malloc((size_t)runs * sizeof *clipr),
           *stream = malloc((size_t)runs * sizeof *stream), *prep = malloc((size_t)runs * sizeof *prep);
    kg_retarget_report r;
    kg_retarget_robot *rr = kg_retarget_robot_new(robot, NULL, &d);
    if (!rr) return 1;
    for (int k = 0; k < runs; k++) { /* alternated, so that the machine's moods hit both alike */
        kg_motion *out = NULL;
        if (kg_retarget(src, clip, robot, &o, &out, &r, &d) != 0) return 1;
        all[k] = r.frames / r.seconds;
        prep[k] = r.robot_seconds;
        kg_motion_free(out);
        if (kg_retarget_prepared(rr, src, clip, &o, &out, &r, &d) != 0) return 1;
        clipr[k] = r.frames / r.seconds;
        stream[k] = r.frames / (r.seconds - r.setup_seconds);
        kg_motion_free(out);
    }
    kg_retarget_robot_free(rr);
    qsort(all, (size_t)runs, sizeof *all, cmp);
    qsort(clipr, (size_t)runs, sizeof *clipr, cmp);
    qsort(stream, (size_t)runs, sizeof *stream, cmp);
    qsort(prep, (size_t)runs, sizeof *prep, cmp);
    printf("{\"bench\": \"retarget\", \"clip\": \"%s\", \"robot\": \"%s\", \"frames\": %d, \"runs\": %d,\n"
           " \"frames_per_second\": {\"min\": %.0f, \"median\": %.0f, \"max\": %.0f},\n"
           " \"prepared_frames_per_second\": {\"min\": %.0f, \"median\": %.0f, \"max\": %.0f},\n"
           " \"stream_frames_per_second\": {\"min\": %.0f, \"median\": %.0f, \"max\": %.0f},\n"
           " \"robot_seconds\": %.4f, \"source_setup_seconds\": %.4f,\n"
           " \"keypoint_error_mean_mm\": %.1f, \"foot_slip_max_mm\": %.2f, \"penetration_max_mm\": %.2f,\n"
           " \"limit_violations\": %d, \"velocity_violations\": %d, \"com_outside_double_support_percent\": %.1f,\n"
           " \"zmp_outside_percent\": %.1f}\n",
           argv[1], argv[2], r.frames, runs, all[0], all[runs / 2], all[runs - 1], clipr[0], clipr[runs / 2],
           clipr[runs - 1], stream[0], stream[runs / 2], stream[runs - 1], prep[runs / 2], r.setup_seconds,
           r.keypoint_mean_mm, r.slip_max_mm, r.penetration_max_mm,
           r.limit_violations, r.velocity_violations, r.com_outside_double_percent, r.zmp_outside_percent);
    free(all), free(clipr), free(stream), free(prep);
    kg_motion_free(clip);
    kg_model_free(src);
    kg_model_free(robot);
    kg_diags_clear(&d);
    return 0;
}
