/* The progress line (progress.h). */
#define _POSIX_C_SOURCE 200809L /* clock_gettime */
#include "cli/progress.h"

#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

/* Redraws at most this often (s): a terminal cannot show more, and a line per
 * report would cost the sampling itself. */
#define REDRAW_INTERVAL 0.25

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

void kg_cli_progress_start(kg_cli_progress *p, const char *what, const char *unit) {
    const char *ci = getenv("CI");
    p->on = isatty(STDERR_FILENO) && !(ci && *ci);
    p->what = what;
    p->unit = unit;
    p->t0 = p->last = now();
    p->drawn = 0;
}

void kg_cli_progress_update(void *user, long done, long total) {
    kg_cli_progress *p = user;
    double t = now();
    if (!p->on || t - p->last < REDRAW_INTERVAL || total <= 0) return;
    p->last = t;
    double f = (double)done / (double)total;
    if (f > 1) f = 1;
    char bar[21];
    for (int k = 0; k < 20; k++) bar[k] = k < (int)(20 * f) ? '#' : '.';
    bar[20] = 0;
    fprintf(stderr, "\r%s [%s] %3.0f %% of %ld %s, %.1f s\033[K", p->what, bar, 100 * f, total, p->unit, t - p->t0);
    fflush(stderr);
    p->drawn = 1;
}

void kg_cli_progress_end(kg_cli_progress *p) {
    if (p->drawn) fputs("\r\033[K", stderr);
    fflush(stderr);
    p->drawn = 0;
}
