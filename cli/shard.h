/* Batch runs split over many processes (a Slurm job array, CI machines):
 * --shard K/N picks the K-th of N disjoint parts of a batch's inputs, balanced
 * by work, and a shard summary (JSON) records the plan and what the shard did,
 * for `kinegraph merge` to join into the one-process report.
 *
 * The plan: inputs sorted by work (largest first; ties by a 64-bit FNV-1a hash
 * of the path, then the path), each given to the shard with the least work so
 * far (ties: the lowest K). It depends only on the set of (path, work) pairs,
 * so every task of an array computes the same plan whatever the order of its
 * arguments, and the largest shard exceeds the mean by at most the largest
 * single input (longest-processing-time scheduling). */
#ifndef KG_CLI_SHARD_H
#define KG_CLI_SHARD_H

#include <jansson.h>
#include <stdint.h>

/* The summary's format: its "kinegraph" key and "version". */
#define KG_SHARD_SUMMARY_KIND "shard-summary"
#define KG_SHARD_SUMMARY_VERSION 1

typedef struct kg_shard_plan {
    int count;          /* inputs */
    int nshards;
    const char *unit;   /* "frames" or "bytes" (static) */
    char *const *path;  /* [count] borrowed */
    long long *work;    /* [count] */
    int *shard;         /* [count] 1..nshards */
    long long *load;    /* [nshards + 1], load[k] the work of shard k */
} kg_shard_plan;

/* "K/N" (1 <= K <= N, N at most 100000): 0, or -1 after a usage error for
 * `command`. */
int kg_shard_parse(const char *command, const char *text, int *k, int *n);

/* A motion clip's work: its frame count, from a BVH header's "Frames:" line
 * (the file is read only that far); for other files or without the line, an
 * estimate from the size (1 frame per 1 000 bytes, a BVH's order). At least 1. */
long long kg_shard_clip_work(const char *path);
/* A file's work for check: its size in bytes (at least 1). */
long long kg_shard_file_work(const char *path);

uint64_t kg_shard_hash(const char *s);

/* Plans paths[0..count) over nshards; work[] is taken over (freed with the
 * plan). 0, or -1 out of memory. */
int kg_shard_plan_make(kg_shard_plan *p, int count, char *const *paths, long long *work, int nshards,
                       const char *unit);
void kg_shard_plan_free(kg_shard_plan *p);

/* {"shards", "unit", "inputs": [{"path", "work", "shard"}] in the inputs'
 * order, "work": [per shard], "mean", "largest_over_mean"}. */
json_t *kg_shard_plan_json(const kg_shard_plan *p);

/* A new summary: {"kinegraph": "shard-summary", "version", "command",
 * "shard": "K/N", "plan": ...}; the caller adds "results" and the rest. */
json_t *kg_shard_summary_new(const char *command, int k, const kg_shard_plan *p);

/* The name of an input's result file in dir: DIR/BASENAME.HASH16.json (the
 * hash of the whole path tells apart inputs of one base name). malloc'd. */
char *kg_shard_result_path(const char *dir, const char *input);

#endif
