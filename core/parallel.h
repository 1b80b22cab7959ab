/* A loop over n independent jobs on a few threads. Internal. */
#ifndef KG_PARALLEL_H
#define KG_PARALLEL_H

/* The most threads kg_parallel_for starts. */
#define KG_PARALLEL_MAX_THREADS 64

/* Runs fn(ctx, i) for every i in [0, n) on up to `threads` threads, the
 * calling one among them, each taking the next i; a thread that cannot be
 * started leaves its share to the others. fn must touch only job i's own
 * data (and read what no job writes). */
void kg_parallel_for(int n, int threads, void (*fn)(void *ctx, int i), void *ctx);

#endif
