#include "core/motion.h"

#include <stdlib.h>
#include <string.h>

#include "core/arena.h"

kg_motion *kg_motion_new(int nq, double frame_time, size_t reserve_frames) {
    kg_motion *mo = kg_xcalloc(1, sizeof *mo);
    mo->nq = nq;
    mo->frame_time = frame_time;
    mo->cap = reserve_frames ? reserve_frames : 64;
    mo->q = kg_xmalloc(mo->cap * (size_t)(nq ? nq : 1) * sizeof(double));
    return mo;
}

void kg_motion_free(kg_motion *mo) {
    if (!mo) return;
    free(mo->q);
    free(mo->base);
    free(mo);
}

double *kg_motion_append(kg_motion *mo, const double *q) {
    if ((size_t)mo->nframes == mo->cap) {
        mo->cap += mo->cap / 4 + 16;
        mo->q = kg_xrealloc(mo->q, mo->cap * (size_t)(mo->nq ? mo->nq : 1) * sizeof(double));
        if (mo->base) mo->base = kg_xrealloc(mo->base, mo->cap * 7 * sizeof(double));
    }
    double *f = mo->q + (size_t)mo->nframes * mo->nq;
    if (q) memcpy(f, q, (size_t)mo->nq * sizeof(double));
    mo->nframes++;
    return f;
}

void kg_motion_shrink(kg_motion *mo) {
    size_t n = mo->nframes ? (size_t)mo->nframes : 1;
    if (n == mo->cap) return;
    mo->q = kg_xrealloc(mo->q, n * (size_t)(mo->nq ? mo->nq : 1) * sizeof(double));
    if (mo->base) mo->base = kg_xrealloc(mo->base, n * 7 * sizeof(double));
    mo->cap = n;
}

void kg_motion_pose(const kg_motion *mo, int f, kg_data *d) {
    memcpy(d->q, mo->q + (size_t)f * mo->nq, (size_t)mo->nq * sizeof(double));
    if (mo->base) kg_data_set_base(d, mo->base + 7 * (size_t)f, mo->base + 7 * (size_t)f + 3);
}
