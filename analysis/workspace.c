#define _POSIX_C_SOURCE 200809L
#include "analysis/workspace.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/jacobian.h"
#include "analysis/manipulability.h"
#include "analysis/sampling.h"
#include "core/fk.h"
#include "core/parallel.h"
#include "core/spatial.h"

/* ---- voxels --------------------------------------------------------------------------- */

typedef struct cell { /* 32 bytes: the table is the hot, cache-missing part */
    uint64_t key;   /* 0: empty */
    int64_t first;  /* the first sample that reached it */
    int32_t count;
    float w_min, w_max, w_sum;
} cell;

typedef struct table {
    cell *c;
    size_t cap, n;  /* cap a power of two */
} table;

#define BIAS KG_WORKSPACE_GRID_REACH

static inline uint64_t key_of(int32_t x, int32_t y, int32_t z) {
    return ((uint64_t)(uint32_t)(x + BIAS) << 42) | ((uint64_t)(uint32_t)(y + BIAS) << 21) | (uint64_t)(uint32_t)(z + BIAS) | 1ull << 63;
}

static inline size_t hash_key(uint64_t k) { /* splitmix64's finaliser */
    k = (k ^ (k >> 30)) * 0xbf58476d1ce4e5b9ull;
    k = (k ^ (k >> 27)) * 0x94d049bb133111ebull;
    return (size_t)(k ^ (k >> 31));
}

static int table_grow(table *t) {
    size_t cap = t->cap ? 2 * t->cap : 1 << 14;
    cell *c = calloc(cap, sizeof *c);
    if (!c) return -1;
    for (size_t i = 0; i < t->cap; i++) {
        if (!t->c[i].key) continue;
        size_t h = hash_key(t->c[i].key) & (cap - 1);
        while (c[h].key) h = (h + 1) & (cap - 1);
        c[h] = t->c[i];
    }
    free(t->c);
    t->c = c;
    t->cap = cap;
    return 0;
}

/* The cell of key, made (first = sample) when new; NULL when out of memory. */
static inline cell *table_get(table *t, uint64_t key, int64_t sample) {
    if ((t->n + 1) * 2 > t->cap && table_grow(t)) return NULL;
    size_t h = hash_key(key) & (t->cap - 1);
    while (t->c[h].key && t->c[h].key != key) h = (h + 1) & (t->cap - 1);
    if (!t->c[h].key) {
        t->c[h].key = key;
        t->c[h].w_min = INFINITY;
        t->c[h].w_max = -INFINITY;
        t->c[h].first = sample; /* each thread takes its samples in order */
        t->n++;
    }
    return &t->c[h];
}

/* ---- one thread's share --------------------------------------------------------------- */

typedef struct job {
    const kg_model *m;
    const kg_workspace_options *o;
    const kg_sample_coord *coords;
    int ncoord;
    const int *cols;   /* the Jacobian's columns on the path */
    int ncol;
    long from, to;     /* samples */
    table t;
    double lo[3], hi[3], w_min, w_max, w_sum;
    int failed;        /* 0, or why it stopped: KG_WORKSPACE_MEMORY, _TOO_MANY, _OFF_GRID */
    int *stop;         /* shared: set by the first job that fails, so the others stop too */
} job;

/* The voxels allowed (o->max_voxels, or the default). */
static long voxels_allowed(const kg_workspace_options *o) {
    return o->max_voxels > 0 ? o->max_voxels : KG_WORKSPACE_MAX_VOXELS;
}

/* Counts sample i (at voxel key, manipulability w). Nonzero when out of
 * memory or past the voxels allowed (jb->failed says which). */
static int count(job *jb, uint64_t key, double w, long i, long max_voxels) {
    cell *c = table_get(&jb->t, key, i);
    if (!c) jb->failed = KG_WORKSPACE_MEMORY;
    else if ((long)jb->t.n > max_voxels) jb->failed = KG_WORKSPACE_TOO_MANY;
    if (jb->failed) {
        __atomic_store_n(jb->stop, 1, __ATOMIC_RELAXED);
        return 1;
    }
    float wf = (float)w;
    c->count++;
    c->w_min = wf < c->w_min ? wf : c->w_min; /* comparisons: fminf is a library call without -ffast-math */
    c->w_max = wf > c->w_max ? wf : c->w_max;
    c->w_sum += wf;
    return 0;
}

/* The voxel index of a coordinate (in voxels): floor() without a library call.
 * Beyond the keys' range (+-2^20 voxels: 20 km at 2 cm) or NaN, *off is set
 * (the run stops) and an index in range returned, so that a wild model
 * cannot overflow the conversion. */
static inline int32_t voxel_index(double x, int *off) {
    if (!(x > -BIAS) || !(x < BIAS - 1)) {
        *off = 1;
        return 0;
    }
    int32_t i = (int32_t)x;
    return i - (x < (double)i);
}

/* Samples between progress reports, less one (a power of two less one: a mask). */
#define PROGRESS_EVERY 8191

static void *run(void *arg) {
    job *jb = arg;
    const kg_model *m = jb->m;
    const kg_workspace_options *o = jb->o;
    kg_data *d = kg_data_new(m);
    double *J = malloc((size_t)6 * (m->dof + 1) * sizeof *J), *Jc = malloc((size_t)6 * (jb->ncol + 1) * sizeof *Jc);
    if (!d || !J || !Jc) {
        jb->failed = KG_WORKSPACE_MEMORY;
        kg_data_free(d);
        free(J);
        free(Jc);
        return NULL;
    }
    if (o->q) memcpy(d->q, o->q, (size_t)m->nq * sizeof *d->q);
    for (int a = 0; a < 3; a++) jb->lo[a] = INFINITY, jb->hi[a] = -INFINITY;
    jb->w_min = INFINITY, jb->w_max = -INFINITY, jb->w_sum = 0;
    const double inv = 1 / o->voxel;
    const long max_voxels = voxels_allowed(o);
    uint64_t pend_key = 0;
    double pend_w = 0;
    kg_sampler s;
    kg_sampler_start(&s, o->sequence, o->seed, jb->ncoord, jb->from);
    for (long i = jb->from; i < jb->to; i++) {
        kg_sampler_draw(&s, jb->coords, d->q);
        kg_fk(m, d);
        double p[3], wp[3];
        kg_mat3_vec(wp, d->link_rot + 9 * o->tip, o->point);
        for (int a = 0; a < 3; a++) wp[a] += d->link_pos[3 * o->tip + a];
        if (o->base >= 0) { /* in the base's frame */
            double dl[3];
            for (int a = 0; a < 3; a++) dl[a] = wp[a] - d->link_pos[3 * o->base + a];
            kg_mat3_tvec(p, d->link_rot + 9 * o->base, dl);
        } else {
            kg_vec3_copy(p, wp);
        }
        double w = 0;
        if (o->manipulability && jb->ncol) {
            kg_jacobian_twists(m, d);
            kg_jacobian(m, d, o->tip, o->point, o->base, J);
            for (int r = 0; r < 6; r++)
                for (int c = 0; c < jb->ncol; c++) Jc[r * jb->ncol + c] = J[r * m->dof + jb->cols[c]];
            w = kg_manipulability_w(Jc, jb->ncol, jb->ncol);
        }
        for (int a = 0; a < 3; a++) {
            jb->lo[a] = p[a] < jb->lo[a] ? p[a] : jb->lo[a];
            jb->hi[a] = p[a] > jb->hi[a] ? p[a] : jb->hi[a];
        }
        jb->w_min = w < jb->w_min ? w : jb->w_min;
        jb->w_max = w > jb->w_max ? w : jb->w_max;
        jb->w_sum += w;
        /* the voxel is counted one sample late: its slot is fetched from memory
         * while the next sample's kinematics run (the table outgrows the caches) */
        int off = 0;
        uint64_t key = key_of(voxel_index(p[0] * inv, &off), voxel_index(p[1] * inv, &off), voxel_index(p[2] * inv, &off));
        if (off) {
            jb->failed = KG_WORKSPACE_OFF_GRID;
            __atomic_store_n(jb->stop, 1, __ATOMIC_RELAXED);
            break;
        }
        if (jb->t.cap) __builtin_prefetch(&jb->t.c[hash_key(key) & (jb->t.cap - 1)], 1);
        if (i > jb->from && count(jb, pend_key, pend_w, i - 1, max_voxels)) break;
        pend_key = key;
        pend_w = w;
        /* the first share tells the progress for all (the shares run at about one speed) */
        if (((i + 1) & PROGRESS_EVERY) == 0) {
            if (__atomic_load_n(jb->stop, __ATOMIC_RELAXED)) break; /* another job failed: the run has */
            if (o->progress && jb->from == 0)
                o->progress(o->progress_user, (long)((double)(i + 1) * (double)o->samples / (double)jb->to), o->samples);
        }
    }
    if (!jb->failed && jb->to > jb->from) count(jb, pend_key, pend_w, jb->to - 1, max_voxels);
    kg_data_free(d);
    free(J);
    free(Jc);
    return NULL;
}

static int by_index(const void *a, const void *b) {
    const kg_voxel *x = a, *y = b;
    if (x->x != y->x) return x->x < y->x ? -1 : 1;
    if (x->y != y->y) return x->y < y->y ? -1 : 1;
    return (x->z > y->z) - (x->z < y->z);
}

void kg_workspace_free(kg_workspace *w) {
    free(w->voxel);
    memset(w, 0, sizeof *w);
}

static void run_job(void *jobs, int t) { run((job *)jobs + t); }

/* Splits the samples into nt jobs, run on nt threads (kg_parallel_for: this
 * one among them) and waits for them. The jobs, or NULL when out of memory. */
static job *run_jobs(const kg_model *m, const kg_workspace_options *o, const kg_sample_coord *coords, int ncoord,
                     const int *cols, int ncol, int nt) {
    job *jobs = calloc((size_t)nt + 1, sizeof *jobs); /* the last one's failed is the shared stop flag */
    if (!jobs) return NULL;
    for (int t = 0; t < nt; t++) {
        memset(&jobs[t], 0, sizeof jobs[t]);
        jobs[t].m = m, jobs[t].o = o, jobs[t].coords = coords, jobs[t].ncoord = ncoord;
        jobs[t].cols = cols, jobs[t].ncol = ncol, jobs[t].stop = &jobs[nt].failed;
        jobs[t].from = o->samples * t / nt, jobs[t].to = o->samples * (t + 1) / nt;
    }
    kg_parallel_for(nt, nt, run_job, jobs);
    return jobs;
}

/* The jobs' bounds and w into w (their sum of w into *wsum) and, for more than
 * one job, their voxels into all. 0, or why a job or the merge stopped
 * (KG_WORKSPACE_MEMORY, _TOO_MANY, _OFF_GRID). */
static int merge(const job *jobs, int nt, long max_voxels, kg_workspace *w, table *all, double *wsum) {
    int failed = 0;
    for (int a = 0; a < 3; a++) w->lo[a] = INFINITY, w->hi[a] = -INFINITY;
    w->w_min = INFINITY, w->w_max = -INFINITY;
    *wsum = 0;
    for (int t = 0; t < nt; t++) {
        if (!failed) failed = jobs[t].failed;
        for (int a = 0; a < 3; a++) w->lo[a] = fmin(w->lo[a], jobs[t].lo[a]), w->hi[a] = fmax(w->hi[a], jobs[t].hi[a]);
        w->w_min = fmin(w->w_min, jobs[t].w_min);
        w->w_max = fmax(w->w_max, jobs[t].w_max);
        *wsum += jobs[t].w_sum;
        for (size_t i = 0; i < jobs[t].t.cap && !failed; i++) {
            const cell *s = &jobs[t].t.c[i];
            if (!s->key) continue;
            cell *c = nt == 1 ? NULL : table_get(all, s->key, s->first);
            if (nt > 1 && (!c || (long)all->n > max_voxels)) {
                failed = c ? KG_WORKSPACE_TOO_MANY : KG_WORKSPACE_MEMORY;
                break;
            }
            if (!c) continue;
            c->count += s->count;
            c->w_min = fminf(c->w_min, s->w_min);
            c->w_max = fmaxf(c->w_max, s->w_max);
            c->w_sum += s->w_sum;
            if (s->first < c->first) c->first = s->first;
        }
    }
    return failed;
}

/* The cells of T as w's voxels, sorted by index; first[] gets each cell's first
 * sample, in the cells' order (not sorted). */
static void list_voxels(const table *T, kg_workspace *w, int64_t *first) {
    for (size_t i = 0; i < T->cap; i++) {
        const cell *c = &T->c[i];
        if (!c->key) continue;
        kg_voxel *v = &w->voxel[w->nvoxel];
        v->x = (int32_t)((c->key >> 42) & 0x1fffff) - BIAS;
        v->y = (int32_t)((c->key >> 21) & 0x1fffff) - BIAS;
        v->z = (int32_t)(c->key & 0x1fffff) - BIAS;
        v->count = c->count;
        v->w_min = c->w_min;
        v->w_max = c->w_max;
        v->w_sum = c->w_sum;
        first[w->nvoxel++] = c->first;
    }
    qsort(w->voxel, (size_t)w->nvoxel, sizeof *w->voxel, by_index);
}

/* Convergence: voxels reached within the first n samples, n = 1, 2, 5, 10, ...
 * (a histogram of the voxels' first samples over those steps). */
static void convergence(kg_workspace *w, const int64_t *first, long samples) {
    static const double steps[3] = {1, 2, 5};
    for (int e = 0; w->ncurve < 63; e++) {
        double n = steps[e % 3] * pow(10, e / 3);
        long ns = (long)fmin(nearbyint(n), (double)samples);
        w->curve[w->ncurve].samples = ns;
        w->curve[w->ncurve++].voxels = 0;
        if (ns == samples) break;
    }
    for (long i = 0; i < w->nvoxel; i++) {
        int lo = 0, hi = w->ncurve - 1; /* the first step whose samples include first[i] */
        while (lo < hi) {
            int mid = (lo + hi) / 2;
            if (first[i] < w->curve[mid].samples) hi = mid;
            else lo = mid + 1;
        }
        w->curve[lo].voxels++;
    }
    for (int c = 1; c < w->ncurve; c++) w->curve[c].voxels += w->curve[c - 1].voxels;
}

/* Volume: a voxel with an empty face neighbour counts half. The voxels are
 * sorted, so the neighbour at a fixed offset of each voxel is found by a
 * cursor that only moves forward (no random lookups in a table far larger
 * than the caches). */
static void volumes(kg_workspace *w, double voxel) {
    double e3 = voxel * voxel * voxel, half = 0;
    static const int nb[6][3] = {{-1, 0, 0}, {1, 0, 0}, {0, -1, 0}, {0, 1, 0}, {0, 0, -1}, {0, 0, 1}};
    int flat[3]; /* axes the workspace does not leave one layer of voxels along: no boundary there */
    for (int a = 0; a < 3; a++) flat[a] = floor(w->lo[a] / voxel) == floor(w->hi[a] / voxel);
    long cursor[6] = {0, 0, 0, 0, 0, 0};
    for (long i = 0; i < w->nvoxel; i++) {
        const kg_voxel *v = &w->voxel[i];
        int open = 0;
        for (int f = 0; f < 6; f++) {
            if (flat[f / 2]) continue;
            kg_voxel t = {.x = v->x + nb[f][0], .y = v->y + nb[f][1], .z = v->z + nb[f][2]};
            while (cursor[f] < w->nvoxel && by_index(&w->voxel[cursor[f]], &t) < 0) cursor[f]++;
            open |= cursor[f] == w->nvoxel || by_index(&w->voxel[cursor[f]], &t) != 0;
        }
        half += open;
    }
    w->voxel_volume = (double)w->nvoxel * e3;
    w->volume = ((double)w->nvoxel - 0.5 * half) * e3;
}

int kg_workspace_compute(const kg_model *m, const kg_workspace_options *o, kg_workspace *w) {
    memset(w, 0, sizeof *w);
    w->voxel_edge = o->voxel;
    /* the coordinates between base and tip (and the leaders of mimic followers there) */
    kg_sample_coord *coords = calloc((size_t)m->nq + 1, sizeof *coords);
    unsigned char *mask = calloc((size_t)m->dof + 1, 1);
    int *cols = calloc((size_t)m->dof + 1, sizeof *cols), ncoord = 0, ncol = 0, rc = KG_WORKSPACE_MEMORY;
    if (!coords || !mask || !cols) goto fail;
    kg_jacobian_columns(m, o->tip, o->base, mask);
    for (int c = 0; c < m->dof; c++)
        if (mask[c]) cols[ncol++] = c;
    ncoord = kg_sample_coords(m, mask, coords);
    w->nsampled = ncoord;
    rc = KG_WORKSPACE_NOTHING;
    if (!ncoord || !(o->voxel > 0) || o->samples <= 0) goto fail;
    int nt = o->threads > 1 ? o->threads : 1;
    if (nt > KG_PARALLEL_MAX_THREADS) nt = KG_PARALLEL_MAX_THREADS;
    job *jobs = run_jobs(m, o, coords, ncoord, cols, ncol, nt);
    if (!jobs) {
        rc = KG_WORKSPACE_MEMORY;
        goto fail;
    }
    table all = {0};
    double wsum;
    int failed = merge(jobs, nt, voxels_allowed(o), w, &all, &wsum);
    table *T = nt == 1 ? &jobs[0].t : &all;
    w->samples = o->samples;
    w->w_mean = wsum / (double)o->samples;
    w->voxel = failed ? NULL : malloc((T->n + 1) * sizeof *w->voxel);
    int64_t *first = failed ? NULL : malloc((T->n + 1) * sizeof *first);
    if (w->voxel && first) {
        list_voxels(T, w, first);
        convergence(w, first, o->samples);
        volumes(w, o->voxel);
    } else if (!failed) {
        failed = KG_WORKSPACE_MEMORY;
    }
    free(first);
    for (int t = 0; t < nt; t++) free(jobs[t].t.c);
    free(all.c);
    free(jobs);
    free(coords);
    free(mask);
    free(cols);
    if (failed) kg_workspace_free(w);
    return failed;
fail:
    free(coords);
    free(mask);
    free(cols);
    return rc;
}
