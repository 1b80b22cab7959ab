/* Shared by the benchmark programs: a monotonic clock and the random joint
 * vectors (xorshift64*, fixed seed, uniform within limits; [-pi, pi] when a
 * joint has none) so every program times the same kind of work. */
#ifndef KG_BENCH_COMMON_H
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L
#endif
#define KG_BENCH_COMMON_H

#include <stdint.h>
#include <time.h>

static inline double kg_now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static inline double kg_bench_uniform(uint64_t *s) {
    *s ^= *s >> 12;
    *s ^= *s << 25;
    *s ^= *s >> 27;
    return (double)((*s * 2685821657736338717ull) >> 11) * (1.0 / 9007199254740992.0);
}

/* Sorts t[0..n) and returns the median (t[0] is then the minimum). */
static inline double kg_bench_median(double *t, int n) {
    for (int i = 1; i < n; i++)
        for (int j = i; j > 0 && t[j - 1] > t[j]; j--) {
            double x = t[j];
            t[j] = t[j - 1];
            t[j - 1] = x;
        }
    return n % 2 ? t[n / 2] : 0.5 * (t[n / 2 - 1] + t[n / 2]);
}

#define KG_BENCH_REPS 31
#define KG_BENCH_CONFIGS 1000
#define KG_BENCH_SEED 0x6b696e6567726170ull

#endif
