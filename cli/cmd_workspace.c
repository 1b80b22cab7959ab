/* kinegraph workspace MODEL --tip LINK: the reachable set of a link, sampled and voxelised. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "analysis/workspace.h"
#include "cli/common.h"
#include "cli/picture.h"
#include "cli/ply.h"
#include "cli/progress.h"

typedef struct opts {
    const char *tip, *base, *point, *samples, *voxel, *seed, *sequence, *threads, *max_voxels, *ply, *svg, *png;
    int no_w;
} opts;

static int run(int argc, char **argv);

static const kg_cli_option options[] = {
    {"--tip", .value = "LINK", KG_TEXT(opts, tip),
     .help = "the link (required)"},
    {"--base", .value = "LINK", KG_TEXT(opts, base),
     .help = "positions relative to this link's frame"},
    {"--point", .value = "X,Y,Z", KG_TEXT(opts, point),
     .help = "the point on the tip, in its frame (m; default: its origin)"},
    {"--samples", .value = "N", KG_TEXT(opts, samples),
     .help = "joint vectors to draw (default 1000000)"},
    {"--voxel", .value = "SIZE", KG_TEXT(opts, voxel),
     .help = "voxel edge in m (default 0.02)"},
    {"--seed", .value = "K", KG_TEXT(opts, seed),
     .help = "sequence seed (default 1)"},
    {"--sequence", .value = "S", KG_TEXT(opts, sequence), .complete = "random halton",
     .help = "random (default) or halton (low-discrepancy)"},
    {"--threads", .value = "N", KG_TEXT(opts, threads),
     .help = "split the samples over N threads (default 1)"},
    {"--max-voxels", .value = "N", KG_TEXT(opts, max_voxels),
     .help = "stop with an error past N voxels (default 10000000: 1-1.6 GB a thread while counting)"},
    {"--no-manipulability", KG_FLAG(opts, no_w, 1),
     .help = "skip w (faster)"},
    {"--ply", .value = "FILE", KG_TEXT(opts, ply), .complete = KG_COMPLETE_FILE,
     .help = "the voxels as a PLY point cloud: centres with count, w_min, w_mean, w_max"},
    {"--svg", .value = "FILE", KG_TEXT(opts, svg), .complete = KG_COMPLETE_FILE,
     .help = "three projections (top, front, side), coloured by the best w\n"
             "in each column of voxels, with extents and the colour scale"},
    {"--png", .value = "FILE", KG_TEXT(opts, png), .complete = KG_COMPLETE_FILE,
     .help = "the same projections as a PNG (titles, axes in metres, colour bar)"},
    {0},
};

const kg_cli_command kg_cmd_workspace = {
    .name = "workspace",
    .summary = "reachable set of a link: voxels, volume, convergence, manipulability",
    .usage = "kinegraph workspace MODEL --tip LINK [--base LINK] [--samples N] [--voxel SIZE] [--seed K]\n"
             "                           [--sequence random|halton] [--threads N] [--ply F] [--svg F] [--png F] [options]\n",
    .description =
        "Where a point on LINK can go: the joints between --base (default: the root, at the\n"
        "identity) and the tip are sampled uniformly within their limits (continuous joints over\n"
        "a turn; other joints stay at rest), the point's position in the base frame is voxelised,\n"
        "and the manipulability w (product of the Jacobian's singular values) of every sample is\n"
        "kept per voxel. Prints the voxel count, the volume (voxels on the boundary count half;\n"
        "the plain voxel volume too), the bounding box, w's range, and the convergence curve:\n"
        "voxels reached within the first 1, 2, 5, 10, ... samples. If the curve still climbs at\n"
        "the end, more samples would find more. The samples are the same whatever --threads.\n"
        "JSON: {\"tip\", \"base\", \"samples\", \"voxel\", \"voxels\", \"volume\", \"voxel_volume\",\n"
        "       \"bounding_box\": {\"min\", \"max\"}, \"manipulability\": {\"min\", \"max\", \"mean\"},\n"
        "       \"convergence\": [{\"samples\", \"voxels\"}], \"sampled_joints\", \"sequence\", \"seed\", \"seconds\"}\n",
    .options = options,
    .common = KG_CLI_JSON | KG_CLI_MODEL | KG_CLI_POSE,
    .operands = KG_COMPLETE_FILE,
    .run = run,
};

/* A projection of the voxels onto two axes: the best value in each column. */
static void project(const kg_workspace *w, int ax, int ay, int32_t *ix, int32_t *iy, float *val, long *n) {
    long k = 0;
    /* sort order is (x, y, z): gather then merge equal cells with a small hash */
    size_t cap = 1;
    while (cap < 2 * (size_t)w->nvoxel + 2) cap *= 2;
    long *slot = malloc(cap * sizeof *slot);
    for (size_t i = 0; i < cap; i++) slot[i] = -1;
    for (long i = 0; i < w->nvoxel; i++) {
        const kg_voxel *v = &w->voxel[i];
        int32_t c[3] = {v->x, v->y, v->z}, a = c[ax], b = c[ay];
        size_t h = ((size_t)(uint32_t)a * 2654435761u ^ (size_t)(uint32_t)b * 40503u) & (cap - 1);
        while (slot[h] >= 0 && (ix[slot[h]] != a || iy[slot[h]] != b)) h = (h + 1) & (cap - 1);
        if (slot[h] < 0) {
            slot[h] = k;
            ix[k] = a;
            iy[k] = b;
            val[k++] = v->w_max;
        } else if (v->w_max > val[slot[h]]) {
            val[slot[h]] = v->w_max;
        }
    }
    free(slot);
    *n = k;
}

/* The options that shape the sampling: 0, or KG_EXIT_USAGE after saying why. */
static int settings(kg_cli *c, const opts *o, kg_workspace_options *wo) {
    double v;
    if (o->point && kg_cli_numbers(c, "--point", o->point, wo->point, 3)) return KG_EXIT_USAGE;
    if (o->samples) {
        if (kg_cli_numbers(c, "--samples", o->samples, &v, 1) || !(v >= 1 && v <= 1e12))
            return kg_cli_usage_error(c->command, "--samples: a count from 1, not '%s'", o->samples);
        wo->samples = (long)v;
    }
    if (o->voxel && (kg_cli_numbers(c, "--voxel", o->voxel, &wo->voxel, 1) || !(wo->voxel > 1e-6)))
        return kg_cli_usage_error(c->command, "--voxel: an edge in metres above 1e-6, not '%s'", o->voxel);
    if (o->seed) {
        if (kg_cli_numbers(c, "--seed", o->seed, &v, 1) || v < 0) return KG_EXIT_USAGE;
        wo->seed = (uint64_t)v;
    }
    if (o->threads) {
        if (kg_cli_numbers(c, "--threads", o->threads, &v, 1) || !(v >= 1 && v <= 64))
            return kg_cli_usage_error(c->command, "--threads: 1 to 64, not '%s'", o->threads);
        wo->threads = (int)v;
    }
    if (o->max_voxels) {
        if (kg_cli_numbers(c, "--max-voxels", o->max_voxels, &v, 1) || !(v >= 1 && v <= 1e12) || v != floor(v))
            return kg_cli_usage_error(c->command, "--max-voxels: a whole number from 1, not '%s'", o->max_voxels);
        wo->max_voxels = (long)v;
    }
    if (o->sequence && strcmp(o->sequence, "random") && strcmp(o->sequence, "halton"))
        return kg_cli_usage_error(c->command, "--sequence: random or halton, not '%s'", o->sequence);
    wo->sequence = o->sequence && !strcmp(o->sequence, "halton") ? KG_SAMPLE_HALTON : KG_SAMPLE_RANDOM;
    return 0;
}

/* --ply: the voxel centres with their count and w. Returns an exit code. */
static int write_ply(const char *path, const kg_workspace *w, double voxel, kg_diags *d) {
    int rc = 0;
    float *xyz = malloc((size_t)(w->nvoxel + 1) * 3 * sizeof *xyz), *pr = malloc((size_t)(w->nvoxel + 1) * 4 * sizeof *pr);
    for (long i = 0; i < w->nvoxel; i++) {
        const kg_voxel *vx = &w->voxel[i];
        xyz[3 * i] = (float)((vx->x + 0.5) * voxel);
        xyz[3 * i + 1] = (float)((vx->y + 0.5) * voxel);
        xyz[3 * i + 2] = (float)((vx->z + 0.5) * voxel);
        pr[4 * i] = (float)vx->count;
        pr[4 * i + 1] = vx->w_min;
        pr[4 * i + 2] = (float)(vx->w_sum / vx->count);
        pr[4 * i + 3] = vx->w_max;
    }
    static const char *const names[4] = {"count", "w_min", "w_mean", "w_max"};
    if (kg_ply_write(path, w->nvoxel, xyz, 4, names, pr, "kinegraph workspace: voxel centres (m)", d)) rc = KG_EXIT_OUTPUT;
    free(xyz);
    free(pr);
    return rc;
}

/* --svg and --png: the three projections of the voxels. Returns an exit code. */
static int write_pictures(const opts *o, const kg_model *m, const kg_workspace_options *wo, const kg_workspace *w,
                          kg_diags *d) {
    int rc = 0;
    int32_t *ix = malloc(3 * (size_t)(w->nvoxel + 1) * sizeof *ix), *iy = malloc(3 * (size_t)(w->nvoxel + 1) * sizeof *iy);
    float *val = malloc(3 * (size_t)(w->nvoxel + 1) * sizeof *val);
    kg_heatmap maps[3] = {{"top (x, y)", "x", "y", 0, 0, 0, 0},
                          {"front (x, z)", "x", "z", 0, 0, 0, 0},
                          {"side (y, z)", "y", "z", 0, 0, 0, 0}};
    const int axes[3][2] = {{0, 1}, {0, 2}, {1, 2}};
    for (int p = 0; p < 3; p++) {
        size_t off = (size_t)p * (size_t)(w->nvoxel + 1);
        project(w, axes[p][0], axes[p][1], ix + off, iy + off, val + off, &maps[p].n);
        maps[p].ix = ix + off;
        maps[p].iy = iy + off;
        maps[p].value = val + off;
    }
    char title[700];
    snprintf(title, sizeof title, "workspace of %s (%ld samples, %.3g m voxels)", m->link[wo->tip].name, w->samples,
             wo->voxel);
    double lo = wo->manipulability ? w->w_min : 0, hi = wo->manipulability ? w->w_max : 1;
    if (o->svg && kg_svg_heatmaps(o->svg, title, wo->manipulability ? "best w" : "reached", maps, 3, wo->voxel, lo, hi, d))
        rc = KG_EXIT_OUTPUT;
    if (rc == 0 && o->png &&
        kg_png_heatmaps(o->png, title, wo->manipulability ? "best w" : "reached", maps, 3, wo->voxel, lo, hi, d))
        rc = KG_EXIT_OUTPUT;
    free(ix);
    free(iy);
    free(val);
    return rc;
}

/* The result for --json. Returns an exit code. */
static int print_json(const kg_model *m, const kg_workspace_options *wo, const kg_workspace *w, double secs) {
    json_t *j = json_object(), *bb = json_object(), *wj = json_object(), *curve = json_array();
    json_object_set_new(j, "tip", kg_json_str(m->link[wo->tip].name));
    json_object_set_new(j, "base", wo->base >= 0 ? kg_json_str(m->link[wo->base].name) : json_null());
    json_object_set_new(j, "samples", json_integer(w->samples));
    json_object_set_new(j, "voxel", kg_json_num(wo->voxel));
    json_object_set_new(j, "voxels", json_integer(w->nvoxel));
    json_object_set_new(j, "volume", kg_json_num(w->volume));
    json_object_set_new(j, "voxel_volume", kg_json_num(w->voxel_volume));
    json_object_set_new(bb, "min", kg_json_vec(w->lo, 3));
    json_object_set_new(bb, "max", kg_json_vec(w->hi, 3));
    json_object_set_new(j, "bounding_box", bb);
    json_object_set_new(wj, "min", wo->manipulability ? kg_json_num(w->w_min) : json_null());
    json_object_set_new(wj, "max", wo->manipulability ? kg_json_num(w->w_max) : json_null());
    json_object_set_new(wj, "mean", wo->manipulability ? kg_json_num(w->w_mean) : json_null());
    json_object_set_new(j, "manipulability", wj);
    for (int k = 0; k < w->ncurve; k++) {
        json_t *pt = json_object();
        json_object_set_new(pt, "samples", json_integer(w->curve[k].samples));
        json_object_set_new(pt, "voxels", json_integer(w->curve[k].voxels));
        json_array_append_new(curve, pt);
    }
    json_object_set_new(j, "convergence", curve);
    json_object_set_new(j, "sampled_joints", json_integer(w->nsampled));
    json_object_set_new(j, "sequence", json_string(wo->sequence == KG_SAMPLE_HALTON ? "halton" : "random"));
    json_object_set_new(j, "seed", json_integer((json_int_t)wo->seed));
    json_object_set_new(j, "seconds", kg_json_num(secs));
    return kg_json_print(j);
}

/* The result as text. */
static void print_text(const kg_model *m, const kg_workspace_options *wo, const kg_workspace *w, double secs) {
    printf("workspace of '%s'%s%s: %ld samples of %d joint coordinates in %.2f s\n", m->link[wo->tip].name,
           wo->base >= 0 ? " relative to " : "", wo->base >= 0 ? m->link[wo->base].name : "", w->samples, w->nsampled,
           secs);
    printf("voxels:  %ld of %.3g m: volume %.6g m^3 (plain voxel count: %.6g m^3)\n", w->nvoxel, wo->voxel, w->volume,
           w->voxel_volume);
    printf("box:     x %.4f .. %.4f, y %.4f .. %.4f, z %.4f .. %.4f m\n", w->lo[0], w->hi[0], w->lo[1], w->hi[1], w->lo[2],
           w->hi[2]);
    if (wo->manipulability) printf("w:       %.6g .. %.6g, mean %.6g\n", w->w_min, w->w_max, w->w_mean);
    printf("convergence (samples: voxels):");
    for (int k = 0; k < w->ncurve; k++) printf(" %ld:%ld", w->curve[k].samples, w->curve[k].voxels);
    printf("\n");
}

/* Samples the workspace into w, with the progress line; *secs is the time it
 * took. Returns an exit code. */
static int compute(const kg_model *m, kg_workspace_options *wo, kg_workspace *w, double *secs) {
    int rc = 0;
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    kg_cli_progress pg;
    kg_cli_progress_start(&pg, "workspace", "samples");
    wo->progress = pg.on ? kg_cli_progress_update : NULL, wo->progress_user = &pg;
    int failed = kg_workspace_compute(m, wo, w);
    kg_cli_progress_end(&pg);
    if (failed == KG_WORKSPACE_TOO_MANY)
        fprintf(stderr, "kinegraph workspace: more than %ld voxels of %g m: a larger --voxel, fewer --samples, or "
                "--max-voxels\n", wo->max_voxels, wo->voxel);
    else if (failed == KG_WORKSPACE_OFF_GRID)
        fprintf(stderr, "kinegraph workspace: a point is %s: the voxel grid reaches %ld voxels of %g m from the "
                "origin (a larger --voxel)\n", "beyond the voxel grid or not finite", KG_WORKSPACE_GRID_REACH,
                wo->voxel);
    else if (failed)
        fprintf(stderr, "kinegraph workspace: %s\n", failed == KG_WORKSPACE_NOTHING ?
                "no joint between the base and the tip can be sampled" : "out of memory");
    if (failed) rc = KG_EXIT_ERRORS;
    clock_gettime(CLOCK_MONOTONIC, &t1);
    *secs = (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec);
    return rc;
}

static int run(int argc, char **argv) {
    opts o = {0};
    kg_cli c = {.command = "workspace", .ctx = &o};
    int rc = kg_cli_parse(&c, &kg_cmd_workspace, argc, argv);
    if (rc >= 0) return rc;
    if (!o.tip) return kg_cli_usage_error(c.command, "which link? (--tip LINK)");
    kg_workspace_options wo = {.base = -1, .samples = 1000000, .voxel = 0.02, .seed = 1, .manipulability = !o.no_w,
                               .max_voxels = KG_WORKSPACE_MAX_VOXELS};
    if ((rc = settings(&c, &o, &wo)) != 0) return rc;
    kg_model *m;
    kg_data *d;
    rc = kg_cli_pose(&c, &m, &d); /* --q sets the joints that are not sampled */
    if (rc == 0 && (wo.tip = kg_cli_link(&c, m, "--tip", o.tip)) < 0) rc = KG_EXIT_USAGE;
    if (rc == 0 && o.base && (wo.base = kg_cli_link(&c, m, "--base", o.base)) < 0) rc = KG_EXIT_USAGE;
    kg_workspace w = {0};
    if (rc == 0) {
        wo.q = d->q; /* the joints that are not sampled stay where --q / --frame put them */
        double secs;
        rc = compute(m, &wo, &w, &secs);
        if (rc == 0 && o.ply) rc = write_ply(o.ply, &w, wo.voxel, &c.diags);
        if (rc == 0 && (o.svg || o.png)) rc = write_pictures(&o, m, &wo, &w, &c.diags);
        if (rc == KG_EXIT_OUTPUT) kg_cli_print_diags(&c, stderr, KG_ERROR);
        if (rc == 0 && c.json) rc = print_json(m, &wo, &w, secs);
        else if (rc == 0) print_text(m, &wo, &w, secs);
    }
    kg_workspace_free(&w);
    if (rc == 0) rc = kg_cli_status(&c);
    kg_data_free(d);
    kg_model_free(m);
    kg_cli_done(&c);
    return rc;
}
