#include "core/data.h"

#include <stdlib.h>
#include <string.h>

#include "core/arena.h"
#include "core/spatial.h"

kg_data *kg_data_new(const kg_model *m) {
    /* One block: the struct, then the arrays, each 64-byte aligned. */
    size_t head = (sizeof(kg_data) + 63) & ~(size_t)63;
    size_t nq = ((size_t)(m->nq ? m->nq : 1) * sizeof(double) + 63) & ~(size_t)63;
    size_t np = ((size_t)m->nlink * 3 * sizeof(double) + 63) & ~(size_t)63;
    size_t nr = ((size_t)m->nlink * 9 * sizeof(double) + 63) & ~(size_t)63;
    size_t ns = (((size_t)m->nq + 1) * 2 * sizeof(double) + 63) & ~(size_t)63;
    size_t nt = ((size_t)m->nv + 1) * 6 * sizeof(double);
    size_t total = (head + nq + np + nr + ns + nt + 63) & ~(size_t)63;
    char *mem = aligned_alloc(64, total);
    if (!mem) mem = kg_xmalloc(total); /* unreachable in practice */
    memset(mem, 0, total);
    kg_data *d = (kg_data *)mem;
    d->model = m;
    d->q = (double *)(mem + head);
    d->link_pos = (double *)(mem + head + nq);
    d->link_rot = (double *)(mem + head + nq + np);
    d->sincos = (double *)(mem + head + nq + np + nr);
    d->twist = (double *)(mem + head + nq + np + nr + ns);
    if (m->nq) memcpy(d->q, m->q_default, (size_t)m->nq * sizeof(double));
    kg_mat3_identity(d->base_rot);
    for (int i = 0; i < m->nlink; i++) kg_mat3_identity(d->link_rot + 9 * i);
    return d;
}

void kg_data_free(kg_data *d) { free(d); }

void kg_data_set_base(kg_data *d, const double pos[3], const double quat[4]) {
    kg_vec3_copy(d->base_pos, pos);
    kg_rot_from_quat(d->base_rot, quat);
}

void kg_apply_mimic(const kg_model *m, double *q) {
    for (int k = 0; k < m->nmimic; k++) {
        const kg_mimic *mm = &m->mimic[k];
        q[m->joint[mm->follower].qadr] = mm->multiplier * q[m->joint[mm->leader].qadr] + mm->offset;
    }
}
