/* Sharding of batch runs: the plan (cli/shard.h) and the shard summary. */
#define _POSIX_C_SOURCE 200809L
#include "cli/shard.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include "cli/common.h"

#define KG_SHARD_MAX 100000
/* How far into a clip the "Frames:" line is looked for (a big skeleton's
 * hierarchy is tens of KB). */
#define KG_SHARD_HEADER_MAX (4u << 20)
/* Bytes per frame of a clip whose header does not say (a BVH's order). */
#define KG_SHARD_BYTES_PER_FRAME 1000

int kg_shard_parse(const char *command, const char *text, int *k, int *n) {
    char extra;
    if (!text || sscanf(text, "%d/%d%c", k, n, &extra) != 2 || *n < 1 || *n > KG_SHARD_MAX || *k < 1 || *k > *n) {
        kg_cli_usage_error(command, "--shard takes K/N with 1 <= K <= N <= %d, not '%s'", KG_SHARD_MAX,
                           text ? text : "");
        return -1;
    }
    return 0;
}

uint64_t kg_shard_hash(const char *s) {
    uint64_t h = 14695981039346656037ull; /* FNV-1a, 64 bits */
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) h = (h ^ *p) * 1099511628211ull;
    return h;
}

long long kg_shard_file_work(const char *path) {
    struct stat st;
    return stat(path, &st) == 0 && st.st_size > 0 ? (long long)st.st_size : 1;
}

long long kg_shard_clip_work(const char *path) {
    long long size = kg_shard_file_work(path), frames = -1;
    const char *dot = strrchr(path, '.');
    FILE *f = dot && !strcasecmp(dot, ".bvh") ? fopen(path, "rb") : NULL;
    if (f) {
        char line[512];
        size_t read = 0;
        int motion = 0;
        while (read < KG_SHARD_HEADER_MAX && fgets(line, sizeof line, f)) {
            read += strlen(line);
            const char *s = line + strspn(line, " \t");
            if (!strncmp(s, "MOTION", 6)) motion = 1;
            else if (motion && !strncasecmp(s, "Frames:", 7)) {
                char *end;
                long long v = strtoll(s + 7, &end, 10);
                if (end != s + 7 && v >= 0) frames = v;
                break;
            } else if (motion && *s && *s != '\r' && *s != '\n') break; /* past the header */
        }
        fclose(f);
    }
    if (frames < 0) frames = size / KG_SHARD_BYTES_PER_FRAME;
    return frames > 0 ? frames : 1;
}

typedef struct item {
    long long work;
    uint64_t hash;
    const char *path;
    int index;
} item;

static int by_work(const void *a_, const void *b_) {
    const item *a = a_, *b = b_;
    if (a->work != b->work) return a->work > b->work ? -1 : 1;
    if (a->hash != b->hash) return a->hash < b->hash ? -1 : 1;
    int c = strcmp(a->path, b->path);
    return c ? c : (a->index > b->index) - (a->index < b->index);
}

int kg_shard_plan_make(kg_shard_plan *p, int count, char *const *paths, long long *work, int nshards,
                       const char *unit) {
    memset(p, 0, sizeof *p);
    p->count = count, p->nshards = nshards, p->unit = unit, p->path = paths, p->work = work;
    p->shard = calloc((size_t)count + 1, sizeof *p->shard);
    p->load = calloc((size_t)nshards + 1, sizeof *p->load);
    item *it = calloc((size_t)count + 1, sizeof *it);
    if (!p->shard || !p->load || !it) {
        free(it);
        kg_shard_plan_free(p);
        return -1;
    }
    for (int i = 0; i < count; i++) it[i] = (item){work[i], kg_shard_hash(paths[i]), paths[i], i};
    qsort(it, (size_t)count, sizeof *it, by_work);
    /* largest first, each to the least loaded shard: a linear scan is enough
     * for the shard counts of a cluster (count x nshards steps) */
    for (int i = 0; i < count; i++) {
        int best = 1;
        for (int k = 2; k <= nshards; k++)
            if (p->load[k] < p->load[best]) best = k;
        p->shard[it[i].index] = best;
        p->load[best] += it[i].work;
    }
    free(it);
    return 0;
}

void kg_shard_plan_free(kg_shard_plan *p) {
    free(p->shard);
    free(p->load);
    free(p->work);
    memset(p, 0, sizeof *p);
}

json_t *kg_shard_plan_json(const kg_shard_plan *p) {
    json_t *j = json_object(), *inputs = json_array(), *loads = json_array();
    long long total = 0, largest = 0;
    for (int i = 0; i < p->count; i++) {
        json_t *e = json_object();
        json_object_set_new(e, "path", kg_json_str(p->path[i]));
        json_object_set_new(e, "work", json_integer(p->work[i]));
        json_object_set_new(e, "shard", json_integer(p->shard[i]));
        json_array_append_new(inputs, e);
        total += p->work[i];
    }
    for (int k = 1; k <= p->nshards; k++) {
        json_array_append_new(loads, json_integer(p->load[k]));
        if (p->load[k] > largest) largest = p->load[k];
    }
    double mean = (double)total / p->nshards;
    json_object_set_new(j, "shards", json_integer(p->nshards));
    json_object_set_new(j, "unit", json_string(p->unit));
    json_object_set_new(j, "work", loads);
    json_object_set_new(j, "mean", json_real(mean));
    json_object_set_new(j, "largest_over_mean", json_real(mean > 0 ? (double)largest / mean : 1));
    json_object_set_new(j, "inputs", inputs);
    return j;
}

json_t *kg_shard_summary_new(const char *command, int k, const kg_shard_plan *p) {
    json_t *j = json_object();
    char shard[32];
    snprintf(shard, sizeof shard, "%d/%d", k, p->nshards);
    json_object_set_new(j, "kinegraph", json_string(KG_SHARD_SUMMARY_KIND));
    json_object_set_new(j, "version", json_integer(KG_SHARD_SUMMARY_VERSION));
    json_object_set_new(j, "command", json_string(command));
    json_object_set_new(j, "shard", json_string(shard));
    json_object_set_new(j, "plan", kg_shard_plan_json(p));
    return j;
}

char *kg_shard_result_path(const char *dir, const char *input) {
    const char *base = strrchr(input, '/');
    base = base ? base + 1 : input;
    size_t n = strlen(dir) + strlen(base) + 32;
    char *out = malloc(n);
    if (out)
        snprintf(out, n, "%s%s%s.%016llx.json", dir, *dir && dir[strlen(dir) - 1] != '/' ? "/" : "", base,
                 (unsigned long long)kg_shard_hash(input));
    return out;
}
