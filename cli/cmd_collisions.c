/* kinegraph collisions MODEL: self-collision pairs, the allowed-collision matrix, SRDF. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "analysis/collision.h"
#include "cli/common.h"
#include "cli/progress.h"
#include "core/fk.h"
#include "formats/fileio.h"
#include "formats/xml.h"

typedef struct opts {
    const char *samples, *min_samples, *seed, *threads, *srdf;
    int pose;
} opts;

static int run(int argc, char **argv);

static const kg_cli_option options[] = {
    {"--samples", .value = "N", KG_TEXT(opts, samples),
     .help = "at most N samples (default 1000000)"},
    {"--min-samples", .value = "N", KG_TEXT(opts, min_samples),
     .help = "no early stop before N samples (default 10000); --min-samples N\n"
             "--samples N draws exactly N"},
    {"--seed", .value = "K", KG_TEXT(opts, seed),
     .help = "sample seed (default 1)"},
    {"--threads", .value = "N", KG_TEXT(opts, threads),
     .help = "threads making the shapes' hulls and drawing the samples (default 1)"},
    {"--srdf", .value = "FILE", KG_TEXT(opts, srdf), .complete = KG_COMPLETE_FILE,
     .help = "write <disable_collisions> for every pair but the 'sometimes' ones,\n"
             "with MoveIt's reasons (Adjacent, Default, Always, Never, User)"},
    {"--pose", KG_FLAG(opts, pose, 1),
     .help = "check only the given pose"},
    {0},
};

const kg_cli_command kg_cmd_collisions = {
    .name = "collisions",
    .summary = "self-collision pairs and the allowed-collision matrix (SRDF)",
    .usage = "kinegraph collisions MODEL [--samples N] [--min-samples N] [--seed K] [--threads N] [--srdf FILE]\n"
             "                            [--pose] [options]\n",
    .description =
        "Which pairs of links can touch. Collision geometry: primitives as they are, meshes as\n"
        "their convex hulls (qhull); a broad phase over bounding boxes, then libccd's MPR test.\n"
        "Every pair of links with collision geometry gets a class, as MoveIt's setup assistant\n"
        "gives them: adjacent (joined by a joint, or through links without geometry; not\n"
        "sampled), declared (the file says to ignore it), default (colliding at the rest pose,\n"
        "or the pose --q gives), always (in at least 95 % of the samples), never (no hit: the\n"
        "chance of a hit at a random pose is below p_upper = 3/n with 95 % confidence), or\n"
        "sometimes (to be checked at run time). Joints are drawn uniformly within their limits\n"
        "in rounds that double the samples, until a round finds no new pair (after at least\n"
        "--min-samples) or --samples is reached. The samples are the same for any --threads.\n"
        "JSON: {\"samples\", \"rounds\", \"pairs\": [{\"a\", \"b\", \"class\", \"hits\", \"p_upper\"}],\n"
        "       \"summary\": {class: count}, \"shapes\", \"hull_vertices\", \"sampled_joints\", \"seed\", \"seconds\"}\n"
        "With --pose, only the pose given by --q/--frame is checked:\n"
        "JSON: {\"pose\": true, \"colliding\": [[a, b], ...]} (adjacent pairs are not checked)\n",
    .options = options,
    .common = KG_CLI_JSON | KG_CLI_MODEL | KG_CLI_POSE,
    .operands = KG_COMPLETE_FILE,
    .run = run,
};

static const char *srdf_reason(int cls) {
    switch (cls) {
    case KG_PAIR_ADJACENT: return "Adjacent";
    case KG_PAIR_DECLARED: return "User";
    case KG_PAIR_DEFAULT: return "Default";
    case KG_PAIR_ALWAYS: return "Always";
    case KG_PAIR_NEVER: return "Never";
    default: return NULL;
    }
}

static int write_srdf(const char *path, const kg_model *m, const kg_collision_model *cm, const kg_acm *a, long samples,
                      kg_diags *d) {
    kg_out out;
    if (kg_out_open(&out, path) != 0) {
        kg_diag_add(d, KG_ERROR, "io.write", path, 0, NULL, "cannot write '%s'", path);
        return -1;
    }
    fprintf(out.f, "<?xml version=\"1.0\"?>\n<!-- kinegraph collisions: %ld samples; 'Never' pairs were not hit, so at a "
                   "random pose they collide with probability below 3/%ld (95 %%) -->\n<robot name=\"",
            samples, samples);
    kg_xml_escape(out.f, m->name);
    fprintf(out.f, "\">\n");
    for (int p = 0; p < cm->npair; p++) {
        const char *reason = srdf_reason(a->cls[p]);
        if (!reason) continue;
        fprintf(out.f, "  <disable_collisions link1=\"");
        kg_xml_escape(out.f, m->link[cm->pair_a[p]].name);
        fprintf(out.f, "\" link2=\"");
        kg_xml_escape(out.f, m->link[cm->pair_b[p]].name);
        fprintf(out.f, "\" reason=\"%s\"/>\n", reason);
    }
    fprintf(out.f, "</robot>\n");
    if (ferror(out.f) || kg_out_commit(&out) != 0) {
        if (out.f) kg_out_abort(&out);
        kg_diag_add(d, KG_ERROR, "io.write", path, 0, NULL, "cannot write '%s'", path);
        return -1;
    }
    return 0;
}

/* The options that shape the sampling: 0, or KG_EXIT_USAGE after saying why. */
static int settings(kg_cli *c, const opts *o, kg_acm_options *ao) {
    double v;
    if (o->samples) {
        if (kg_cli_numbers(c, "--samples", o->samples, &v, 1) || !(v >= 1 && v <= 1e12))
            return kg_cli_usage_error(c->command, "--samples: a count from 1, not '%s'", o->samples);
        ao->max_samples = (long)v;
        ao->first_round = ao->max_samples < 1000 ? ao->max_samples : 1000;
    }
    if (o->min_samples) {
        if (kg_cli_numbers(c, "--min-samples", o->min_samples, &v, 1) || !(v >= 1 && v <= 1e12))
            return kg_cli_usage_error(c->command, "--min-samples: a count from 1, not '%s'", o->min_samples);
        ao->min_samples = (long)v;
    }
    if (o->seed) {
        if (kg_cli_numbers(c, "--seed", o->seed, &v, 1) || v < 0) return KG_EXIT_USAGE;
        ao->seed = (uint64_t)v;
    }
    if (o->threads) {
        if (kg_cli_numbers(c, "--threads", o->threads, &v, 1) || !(v >= 1 && v <= 64))
            return kg_cli_usage_error(c->command, "--threads: 1 to 64, not '%s'", o->threads);
        ao->threads = (int)v;
    }
    return 0;
}

/* --pose: the pairs that collide at the given pose. Returns an exit code. */
static int check_pose(const kg_cli *c, const kg_model *m, const kg_data *d, const kg_collision_model *cm) {
    int rc = 0;
    kg_collision_work *w = kg_collision_work_new(cm);
    unsigned char *hit = malloc((size_t)cm->npair + 1);
    kg_self_collisions(cm, d, w, NULL, hit);
    if (c->json) {
        json_t *j = json_object(), *list = json_array();
        json_object_set_new(j, "pose", json_true());
        for (int p = 0; p < cm->npair; p++) {
            if (!hit[p]) continue;
            json_t *pr = json_array();
            json_array_append_new(pr, kg_json_str(m->link[cm->pair_a[p]].name));
            json_array_append_new(pr, kg_json_str(m->link[cm->pair_b[p]].name));
            json_array_append_new(list, pr);
        }
        json_object_set_new(j, "colliding", list);
        rc = kg_json_print(j);
    } else {
        int n = 0;
        for (int p = 0; p < cm->npair; p++)
            if (hit[p]) printf("colliding: %s %s\n", m->link[cm->pair_a[p]].name, m->link[cm->pair_b[p]].name), n++;
        printf("%d colliding pairs (of %d pairs of links with collision geometry; adjacent ones not checked)\n", n,
               cm->npair);
    }
    free(hit);
    kg_collision_work_free(w);
    return rc;
}

/* The allowed-collision matrix for --json; count holds the pairs of each class.
 * Returns an exit code. */
static int print_matrix_json(const kg_model *m, const kg_collision_model *cm, const kg_acm_options *ao, const kg_acm *a,
                             const int *count, double secs) {
    json_t *j = json_object(), *pairs = json_array(), *sum = json_object();
    json_object_set_new(j, "samples", json_integer(a->samples));
    json_object_set_new(j, "rounds", json_integer(a->rounds));
    for (int p = 0; p < cm->npair; p++) {
        json_t *x = json_object();
        json_object_set_new(x, "a", kg_json_str(m->link[cm->pair_a[p]].name));
        json_object_set_new(x, "b", kg_json_str(m->link[cm->pair_b[p]].name));
        json_object_set_new(x, "class", json_string(kg_pair_class_name(a->cls[p])));
        json_object_set_new(x, "hits", cm->adjacent[p] ? json_null() : json_integer(a->hits[p]));
        json_object_set_new(x, "p_upper", kg_json_num(a->p_upper[p]));
        json_array_append_new(pairs, x);
    }
    json_object_set_new(j, "pairs", pairs);
    for (int k = 0; k <= KG_PAIR_SOMETIMES; k++) json_object_set_new(sum, kg_pair_class_name(k), json_integer(count[k]));
    json_object_set_new(j, "summary", sum);
    json_object_set_new(j, "shapes", json_integer(cm->nshape));
    json_object_set_new(j, "hull_vertices", json_integer(cm->hull_vertices));
    json_object_set_new(j, "sampled_joints", json_integer(a->nsampled));
    json_object_set_new(j, "seed", json_integer((json_int_t)ao->seed));
    json_object_set_new(j, "seconds", kg_json_num(secs));
    return kg_json_print(j);
}

/* The allowed-collision matrix as text: the counts by class, then the pairs that were hit. */
static void print_matrix_text(const kg_model *m, const kg_collision_model *cm, const kg_acm *a, const int *count,
                              double secs) {
    printf("%d pairs of links with collision geometry (%d shapes, %d hull vertices); %ld samples in %d rounds, "
           "%.2f s\n",
           cm->npair, cm->nshape, cm->hull_vertices, a->samples, a->rounds, secs);
    for (int k = 0; k <= KG_PAIR_SOMETIMES; k++) printf("  %-10s %d\n", kg_pair_class_name(k), count[k]);
    printf("'never' pairs: no hit in %ld samples, so p < %.3g at a random pose (95 %%)\n", a->samples,
           3.0 / (double)a->samples);
    for (int p = 0; p < cm->npair; p++)
        if (a->cls[p] == KG_PAIR_SOMETIMES || a->cls[p] == KG_PAIR_ALWAYS || a->cls[p] == KG_PAIR_DEFAULT)
            printf("%-10s %-28s %-28s %ld hits\n", kg_pair_class_name(a->cls[p]), m->link[cm->pair_a[p]].name,
                   m->link[cm->pair_b[p]].name, a->hits[p]);
}

/* The allowed-collision matrix by sampling, then --srdf and the result.
 * Returns an exit code. */
static int matrix(kg_cli *c, const opts *o, const kg_model *m, const kg_collision_model *cm, kg_acm_options *ao) {
    int rc = 0;
    kg_acm a;
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    kg_cli_progress pg;
    kg_cli_progress_start(&pg, "collisions", "samples at most");
    ao->progress = pg.on ? kg_cli_progress_update : NULL, ao->progress_user = &pg;
    int failed = kg_collision_matrix(m, cm, ao, &a) != 0;
    kg_cli_progress_end(&pg);
    if (failed) {
        fprintf(stderr, "kinegraph collisions: out of memory\n");
        rc = KG_EXIT_ERRORS;
    }
    clock_gettime(CLOCK_MONOTONIC, &t1);
    double secs = (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec);
    if (rc == 0 && o->srdf && write_srdf(o->srdf, m, cm, &a, a.samples, &c->diags) != 0) {
        kg_cli_print_diags(c, stderr, KG_ERROR);
        rc = KG_EXIT_OUTPUT;
    }
    int count[KG_PAIR_SOMETIMES + 1] = {0};
    for (int p = 0; rc == 0 && p < cm->npair; p++) count[a.cls[p]]++;
    if (rc == 0 && c->json) rc = print_matrix_json(m, cm, ao, &a, count, secs);
    else if (rc == 0) print_matrix_text(m, cm, &a, count, secs);
    kg_acm_free(&a);
    return rc;
}

static int run(int argc, char **argv) {
    opts o = {0};
    kg_cli c = {.command = "collisions", .ctx = &o};
    int rc = kg_cli_parse(&c, &kg_cmd_collisions, argc, argv);
    if (rc >= 0) return rc;
    kg_acm_options ao = {.max_samples = 1000000, .seed = 1};
    if ((rc = settings(&c, &o, &ao)) != 0) return rc;
    kg_model *m;
    kg_data *d;
    rc = kg_cli_pose(&c, &m, &d);
    kg_collision_model cm = {0};
    kg_mesh_cache *mc = kg_mesh_cache_new();
    if (rc == 0) {
        size_t before = c.diags.count;
        if (kg_collision_model_build_threads(m, mc, &cm, ao.threads > 0 ? ao.threads : 1, &c.diags) != 0) {
            fprintf(stderr, "kinegraph collisions: out of memory\n");
            rc = KG_EXIT_ERRORS;
        }
        kg_cli_print_diags_from(&c, stderr, KG_WARNING, before); /* meshes that could not be read */
    }
    if (rc == 0 && o.pose) {
        rc = check_pose(&c, m, d, &cm);
    } else if (rc == 0) {
        ao.q = d->q;
        rc = matrix(&c, &o, m, &cm, &ao);
    }
    kg_collision_model_free(&cm);
    kg_mesh_cache_free(mc);
    if (rc == 0) rc = kg_cli_status(&c);
    kg_data_free(d);
    kg_model_free(m);
    kg_cli_done(&c);
    return rc;
}
