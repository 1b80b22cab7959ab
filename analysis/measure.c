#include "analysis/measure.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/data.h"
#include "core/fk.h"

double kg_body_size(const kg_model *m, const double *q, int *axis) {
    kg_data *d = kg_data_new(m);
    /* subtree sizes and child counts: children come after parents */
    int *size = calloc((size_t)m->nlink + 1, sizeof *size), *nchild = calloc((size_t)m->nlink + 1, sizeof *nchild);
    if (!d || !size || !nchild) { /* out of memory */
        kg_data_free(d), free(size), free(nchild);
        if (axis) *axis = 2;
        return NAN;
    }
    if (q) memcpy(d->q, q, (size_t)m->nq * sizeof *q);
    kg_fk(m, d);
    for (int i = m->nlink - 1; i >= 0; i--) {
        size[i]++;
        if (m->link[i].parent >= 0) {
            size[m->link[i].parent] += size[i];
            nchild[m->link[i].parent]++;
        }
    }
    int top = m->root_body;
    while (nchild[top] == 1) top++; /* a single child is the next link in topological order */
    double lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
    for (int i = top; i < top + size[top]; i++) { /* a subtree is a contiguous range */
        if (m->link[i].real >= 0) continue;
        for (int a = 0; a < 3; a++) {
            lo[a] = fmin(lo[a], d->link_pos[3 * i + a]);
            hi[a] = fmax(hi[a], d->link_pos[3 * i + a]);
        }
    }
    int best = 1;
    for (int a = 0; a < 3; a++)
        if (hi[a] - lo[a] > hi[best] - lo[best]) best = a;
    free(size);
    free(nchild);
    kg_data_free(d);
    if (axis) *axis = best;
    return hi[best] >= lo[best] ? hi[best] - lo[best] : 0;
}
