#define _POSIX_C_SOURCE 200809L
#include "analysis/collision.h"

#include <ccd/ccd.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/gjk.h"
#include "analysis/sampling.h"
#include "core/fk.h"
#include "core/parallel.h"
#include "core/spatial.h"

/* ---- the shapes ------------------------------------------------------------------------ */

static int add_shape(kg_collision_model *cm, int *cap, const kg_convex *c, const kg_trimesh *t) {
    if (cm->nshape == *cap) {
        int nc = *cap ? 2 * *cap : 16;
        kg_convex *s = realloc(cm->shape, (size_t)nc * sizeof *s);
        if (!s) return -1;
        cm->shape = s;
        kg_trimesh *u = realloc(cm->surface, (size_t)nc * sizeof *u);
        if (!u) return -1;
        cm->surface = u;
        *cap = nc;
    }
    cm->surface[cm->nshape] = *t;
    cm->shape[cm->nshape++] = *c;
    return 0;
}

int kg_collision_model_declare(kg_collision_model *cm, const kg_link_pair *pairs, int n) {
    int marked = 0;
    for (int p = 0; p < cm->npair; p++)
        for (int k = 0; k < n && !cm->declared[p]; k++) {
            int x = pairs[k].a, y = pairs[k].b;
            if ((x == cm->pair_a[p] && y == cm->pair_b[p]) || (x == cm->pair_b[p] && y == cm->pair_a[p]))
                cm->declared[p] = 1, marked++;
        }
    return marked;
}

void kg_collision_model_free(kg_collision_model *cm) {
    for (int i = 0; i < cm->nshape; i++) {
        kg_convex_free(&cm->shape[i]);
        kg_trimesh_free(&cm->surface[i]);
    }
    free(cm->shape);
    free(cm->surface);
    free(cm->link_first);
    free(cm->link_count);
    free(cm->pair_a);
    free(cm->pair_b);
    free(cm->adjacent);
    free(cm->declared);
    memset(cm, 0, sizeof *cm);
}

/* Geom g of m as a convex shape (kg_geom_convex), its mesh `me` read already
 * (NULL for a primitive, or when it could not be had: 1). */
static int convex_of(const kg_model *m, int g, const kg_mesh *me, kg_convex *c, double **verts) {
    const kg_geom *G = &m->geom[g];
    memset(c, 0, sizeof *c);
    if (verts) *verts = NULL;
    c->geom = g;
    kg_vec3_copy(c->pos, G->pos);
    kg_mat3_copy(c->rot, G->rot);
    switch (G->type) {
    case KG_GEOM_BOX:
        c->type = KG_CONVEX_BOX;
        for (int a = 0; a < 3; a++) c->size[a] = G->size[a] / 2;
        break;
    case KG_GEOM_SPHERE:
        c->type = KG_CONVEX_SPHERE;
        c->size[0] = G->size[0];
        break;
    case KG_GEOM_CYLINDER:
    case KG_GEOM_CAPSULE:
        c->type = G->type == KG_GEOM_CYLINDER ? KG_CONVEX_CYLINDER : KG_CONVEX_CAPSULE;
        c->size[0] = G->size[0];
        c->size[1] = G->size[1] / 2;
        break;
    case KG_GEOM_MESH: {
        if (!me || me->nvert == 0) return 1;
        double *v = malloc((size_t)me->nvert * 3 * sizeof *v);
        if (!v) return -1;
        for (int k = 0; k < 3 * me->nvert; k++) v[k] = me->vert[k] * G->scale[k % 3];
        if (kg_convex_hull(v, me->nvert, c) != 0) {
            free(v);
            return -1;
        }
        if (verts) *verts = v;
        else free(v);
        return 0;
    }
    }
    kg_convex_bounds(c);
    return 0;
}

/* Geom g's mesh through the cache (NULL for a primitive or when it cannot be had). */
static const kg_mesh *geom_mesh(const kg_model *m, int g, kg_mesh_cache *meshes, kg_diags *d) {
    const kg_geom *G = &m->geom[g];
    if (G->type != KG_GEOM_MESH || !G->mesh_path) return NULL;
    return kg_mesh_get(meshes, G->mesh_path, G->mesh_part, d, m->source, G->line);
}

int kg_geom_convex(const kg_model *m, int g, kg_mesh_cache *meshes, kg_convex *c, double **verts, kg_diags *d) {
    return convex_of(m, g, geom_mesh(m, g, meshes, d), c, verts);
}

/* ---- building the shapes, on several threads ---------------------------------------- */

/* One collision geom's shape, made apart from the model (a thread's share). */
typedef struct geom_job {
    int link, geom;
    const kg_mesh *mesh; /* read before the threads start (the cache is not shared) */
    kg_convex c;
    kg_trimesh t;        /* a mesh's triangles, indexed for exact tests */
    int rc;              /* 0, 1: no shape (its mesh not had), -1: out of memory */
} geom_job;

typedef struct geom_jobs {
    const kg_model *m;
    geom_job *job;
} geom_jobs;

static void make_shape(void *ctx, int i) {
    const geom_jobs *J = ctx;
    geom_job *j = &J->job[i];
    if (j->rc != 0) return; /* its mesh not had */
    double *v = NULL;
    j->rc = convex_of(J->m, j->geom, j->mesh, &j->c, &v);
    j->c.link = j->link;
    if (j->rc != 0 || !v) return;
    const kg_mesh *me = j->mesh;
    if (me->ntri <= 0) {
        free(v);
        return;
    }
    j->t.tri = malloc((size_t)me->ntri * 3 * sizeof *j->t.tri);
    if (!j->t.tri) {
        free(v);
        j->rc = -1;
        return;
    }
    memcpy(j->t.tri, me->tri, (size_t)me->ntri * 3 * sizeof *j->t.tri);
    j->t.vert = v, j->t.nvert = me->nvert, j->t.ntri = me->ntri;
    if (kg_trimesh_index(&j->t) != 0) j->rc = -1;
}

/* The collision geoms of m in link order, their meshes read (ahead: the files
 * that are not STL by one child process, binary STL on `threads` threads;
 * warnings for those that cannot be had, in link order); NULL when out of memory. */
static geom_job *collision_geoms(const kg_model *m, kg_mesh_cache *meshes, int threads, int *n, kg_diags *d) {
    int count = 0;
    for (int g = 0; g < m->ngeom; g++) count += m->geom[g].role == KG_COLLISION;
    geom_job *job = calloc((size_t)count + 1, sizeof *job);
    if (!job) return NULL;
    /* out of memory there, the meshes are read when asked, which says so */
    (void)kg_mesh_cache_preload_model(meshes, m, KG_COLLISION, threads);
    *n = 0;
    for (int i = 0; i < m->nlink; i++) {
        const kg_link *L = &m->link[i];
        if (L->real >= 0) continue; /* virtual links are not solid */
        for (int g = L->geom_first; g < L->geom_first + L->geom_count; g++) {
            const kg_geom *G = &m->geom[g];
            if (G->role != KG_COLLISION) continue;
            geom_job *j = &job[(*n)++];
            j->link = i, j->geom = g, j->mesh = geom_mesh(m, g, meshes, d);
            if (G->type == KG_GEOM_MESH && (!j->mesh || j->mesh->nvert == 0)) {
                j->rc = 1;
                kg_diag_add(d, KG_WARNING, "collision.mesh_missing", m->source, G->line, "collision",
                            "collision mesh '%s' of link '%s' %s; the link is checked without it",
                            G->mesh_uri ? G->mesh_uri : "", L->name,
                            G->mesh_path ? "cannot be read" : "does not resolve");
            }
        }
    }
    return job;
}

/* reach[] marks the links that link a meets through links without geometry: a
 * breadth-first walk over the tree from a, passing only geometry-less links. */
static void reach_from(const kg_model *m, const kg_collision_model *cm, int a, unsigned char *reach, int *queue) {
    memset(reach, 0, (size_t)m->nlink);
    int qh = 0, qt = 0;
    queue[qt++] = a;
    reach[a] = 1;
    while (qh < qt) {
        int x = queue[qh++];
        if (x != a && cm->link_count[x]) continue; /* a geometric link: reached, not passed */
        /* neighbours: the parent and the children (topological order: children come after) */
        int p = m->link[x].parent;
        if (p >= 0 && !reach[p]) reach[p] = 1, queue[qt++] = p;
        for (int c = x + 1; c < m->nlink; c++)
            if (m->link[c].parent == x && !reach[c]) reach[c] = 1, queue[qt++] = c;
    }
}

/* The link pairs with geometry on both sides, each marked adjacent when its
 * links meet through links without geometry. 0, or -1 when memory runs out. */
static int link_pairs(const kg_model *m, kg_collision_model *cm) {
    int nl = 0;
    for (int i = 0; i < m->nlink; i++) nl += cm->link_count[i] > 0;
    size_t maxp = (size_t)nl * (nl > 0 ? nl - 1 : 0) / 2 + 1;
    cm->pair_a = malloc(maxp * sizeof *cm->pair_a);
    cm->pair_b = malloc(maxp * sizeof *cm->pair_b);
    cm->adjacent = calloc(maxp, 1);
    cm->declared = calloc(maxp, 1);
    unsigned char *reach = calloc((size_t)m->nlink + 1, 1);
    int *queue = malloc(((size_t)m->nlink + 1) * sizeof *queue);
    if (!cm->pair_a || !cm->pair_b || !cm->adjacent || !cm->declared || !reach || !queue) {
        free(reach);
        free(queue);
        return -1;
    }
    for (int a = 0; a < m->nlink; a++) {
        if (!cm->link_count[a]) continue;
        reach_from(m, cm, a, reach, queue);
        for (int b = a + 1; b < m->nlink; b++) {
            if (!cm->link_count[b]) continue;
            cm->pair_a[cm->npair] = a;
            cm->pair_b[cm->npair] = b;
            cm->adjacent[cm->npair] = reach[b];
            cm->npair++;
        }
    }
    free(reach);
    free(queue);
    return 0;
}

int kg_collision_model_build_threads(const kg_model *m, kg_mesh_cache *meshes, kg_collision_model *cm, int threads,
                                     kg_diags *d) {
    memset(cm, 0, sizeof *cm);
    int cap = 0, n = 0, k = 0;
    cm->nlink = m->nlink;
    cm->link_first = calloc((size_t)m->nlink + 1, sizeof *cm->link_first);
    cm->link_count = calloc((size_t)m->nlink + 1, sizeof *cm->link_count);
    geom_job *job = cm->link_first && cm->link_count ? collision_geoms(m, meshes, threads, &n, d) : NULL;
    if (!job) goto fail;
    /* the shapes are each the work of one thread; put in the model in link order after */
    geom_jobs J = {m, job};
    kg_parallel_for(n, threads, make_shape, &J);
    for (int i = 0; i < m->nlink; i++) {
        cm->link_first[i] = cm->nshape;
        for (; k < n && job[k].link == i; k++) {
            if (job[k].rc < 0) goto fail;
            if (job[k].rc > 0) continue;
            if (add_shape(cm, &cap, &job[k].c, &job[k].t) != 0) goto fail;
            job[k].rc = 2; /* the model's now */
            if (m->geom[job[k].geom].type == KG_GEOM_MESH) cm->hull_vertices += job[k].c.nvert;
            cm->link_count[i]++;
        }
    }
    free(job);
    job = NULL;
    if (link_pairs(m, cm) != 0) goto fail;
    kg_collision_model_declare(cm, m->collision_ignore, m->ncollision_ignore);
    return 0;
fail:
    for (int i = 0; job && i < n; i++)
        if (job[i].rc != 2) kg_convex_free(&job[i].c), kg_trimesh_free(&job[i].t);
    free(job);
    kg_collision_model_free(cm);
    return -1;
}

int kg_collision_model_build(const kg_model *m, kg_mesh_cache *meshes, kg_collision_model *cm, kg_diags *d) {
    return kg_collision_model_build_threads(m, meshes, cm, 1, d);
}

static void *copy(const void *p, size_t n) {
    void *q = malloc(n ? n : 1);
    if (q && n) memcpy(q, p, n);
    return q;
}

typedef struct coarse_jobs {
    const kg_collision_model *cm;
    kg_collision_model *out;
    double width;
    int *rc; /* [nshape] 0, or -1 when memory ran out */
} coarse_jobs;

static void make_coarse(void *ctx, int i) {
    const coarse_jobs *J = ctx;
    const kg_convex *c = &J->cm->shape[i];
    if (c->type != KG_CONVEX_HULL) J->out->shape[i] = *c; /* a primitive owns no arrays */
    else J->rc[i] = kg_convex_coarse(c, J->width, &J->out->shape[i]);
}

int kg_collision_model_coarse_threads(const kg_collision_model *cm, double width, kg_collision_model *out,
                                      int threads) {
    memset(out, 0, sizeof *out);
    out->nlink = cm->nlink, out->npair = cm->npair;
    out->link_first = copy(cm->link_first, ((size_t)cm->nlink + 1) * sizeof *cm->link_first);
    out->link_count = copy(cm->link_count, ((size_t)cm->nlink + 1) * sizeof *cm->link_count);
    out->pair_a = copy(cm->pair_a, (size_t)cm->npair * sizeof *cm->pair_a);
    out->pair_b = copy(cm->pair_b, (size_t)cm->npair * sizeof *cm->pair_b);
    out->adjacent = copy(cm->adjacent, (size_t)cm->npair);
    out->declared = copy(cm->declared, (size_t)cm->npair);
    out->shape = calloc((size_t)cm->nshape + 1, sizeof *out->shape);
    out->surface = calloc((size_t)cm->nshape + 1, sizeof *out->surface);
    int *rc = calloc((size_t)cm->nshape + 1, sizeof *rc);
    if (!out->link_first || !out->link_count || !out->pair_a || !out->pair_b || !out->adjacent || !out->declared ||
        !out->shape || !out->surface || !rc)
        goto fail;
    coarse_jobs J = {cm, out, width, rc};
    kg_parallel_for(cm->nshape, threads, make_coarse, &J);
    out->nshape = cm->nshape; /* (a failed one is empty: freeing it is a no-op) */
    for (int i = 0; i < cm->nshape; i++) {
        if (rc[i] != 0) goto fail;
        if (cm->shape[i].type == KG_CONVEX_HULL) out->hull_vertices += out->shape[i].nvert;
    }
    free(rc);
    return 0;
fail:
    free(rc);
    kg_collision_model_free(out);
    return -1;
}

int kg_collision_model_coarse(const kg_collision_model *cm, double width, kg_collision_model *out) {
    return kg_collision_model_coarse_threads(cm, width, out, 1);
}

/* ---- one pose ---------------------------------------------------------------------------- */

typedef struct placed { /* a shape in the world, for libccd */
    const kg_convex *c;
    double r[9], p[3], lo[3], hi[3], center[3];
    double half[3];        /* its bounds as an oriented box: centre `center`, axes r's columns */
    int hint;
} placed;

/* Do two oriented boxes overlap? The separating-axis test (Gottschalk's OBBTree):
 * the 3 + 3 face axes and the 9 edge cross products. */
static int boxes_overlap(const placed *a, const placed *b) {
    double R[9], AR[9], t[3], d[3];
    for (int k = 0; k < 3; k++) d[k] = b->center[k] - a->center[k];
    kg_mat3_tvec(t, a->r, d);               /* b's centre in a's axes */
    kg_mat3_mul_at(R, a->r, b->r);          /* b's axes in a's */
    for (int k = 0; k < 9; k++) AR[k] = fabs(R[k]) + 1e-12;
    const double *ha = a->half, *hb = b->half;
    for (int i = 0; i < 3; i++) /* a's axes */
        if (fabs(t[i]) > ha[i] + hb[0] * AR[3 * i] + hb[1] * AR[3 * i + 1] + hb[2] * AR[3 * i + 2]) return 0;
    for (int j = 0; j < 3; j++) { /* b's axes */
        double tj = t[0] * R[j] + t[1] * R[3 + j] + t[2] * R[6 + j];
        if (fabs(tj) > hb[j] + ha[0] * AR[j] + ha[1] * AR[3 + j] + ha[2] * AR[6 + j]) return 0;
    }
    for (int i = 0; i < 3; i++) /* a_i x b_j */
        for (int j = 0; j < 3; j++) {
            int i1 = (i + 1) % 3, i2 = (i + 2) % 3, j1 = (j + 1) % 3, j2 = (j + 2) % 3;
            double ra = ha[i1] * AR[3 * i2 + j] + ha[i2] * AR[3 * i1 + j];
            double rb = hb[j1] * AR[3 * i + j2] + hb[j2] * AR[3 * i + j1];
            if (fabs(t[i2] * R[3 * i1 + j] - t[i1] * R[3 * i2 + j]) > ra + rb) return 0;
        }
    return 1;
}

/* The shapes (i, j) whose GJK measured a pair last, and where it ended. */
typedef struct pair_seed {
    int i, j;
    kg_gjk_seed s;
} pair_seed;

struct kg_collision_work {
    placed *s;
    double *axis; /* [3 npair] per pair, the direction (world axes) that last separated
                   * its links' shapes, or zeros */
    int *hint;    /* [2 npair] per pair, the tree leaves that last met (exact tests), or -1 */
    double *box;  /* [6 nlink] per link with shapes, the world box of them all (lo, hi) */
    double *stamp; /* [12 nlink] the link pose (position, rotation) its shapes were last placed
                    * at: the pair queries of one pose place each link once (NaN: never) */
    double *normal; /* [3 npair] per pair, kg_pair_distance's last n, or zeros: GJK's first guess */
    pair_seed *seed; /* [npair] per pair, the simplex its nearest shapes' last GJK ended with */
    double tol;     /* kg_pair_distance's absolute tolerance (m), 0 as made */
    int nlink;
};

kg_collision_work *kg_collision_work_new(const kg_collision_model *cm) {
    kg_collision_work *w = calloc(1, sizeof *w);
    if (!w) return NULL;
    w->s = calloc((size_t)cm->nshape + 1, sizeof *w->s);
    w->axis = calloc(3 * (size_t)cm->npair + 1, sizeof *w->axis);
    w->hint = malloc((2 * (size_t)cm->npair + 1) * sizeof *w->hint);
    int nlink = cm->nshape ? cm->shape[cm->nshape - 1].link + 1 : 0; /* shapes are grouped by link, in order */
    w->box = malloc((6 * (size_t)nlink + 1) * sizeof *w->box);
    w->stamp = malloc((12 * (size_t)nlink + 1) * sizeof *w->stamp);
    w->normal = calloc(3 * (size_t)cm->npair + 1, sizeof *w->normal);
    w->seed = calloc((size_t)cm->npair + 1, sizeof *w->seed); /* n = 0: none yet */
    w->nlink = nlink;
    if (!w->s || !w->axis || !w->hint || !w->box || !w->stamp || !w->normal || !w->seed) {
        kg_collision_work_free(w);
        return NULL;
    }
    for (int k = 0; k < 2 * cm->npair; k++) w->hint[k] = -1;
    for (int k = 0; k < 12 * nlink; k++) w->stamp[k] = NAN;
    return w;
}

void kg_collision_work_tolerance(kg_collision_work *w, double tol) {
    w->tol = tol > 0 ? tol : 0;
}

void kg_collision_work_free(kg_collision_work *w) {
    if (!w) return;
    free(w->s);
    free(w->axis);
    free(w->hint);
    free(w->box);
    free(w->stamp);
    free(w->normal);
    free(w->seed);
    free(w);
}

static void support(const void *obj, const ccd_vec3_t *dir, ccd_vec3_t *out) {
    placed *s = (placed *)obj;
    double d[3], l[3];
    kg_mat3_tvec(d, s->r, dir->v);
    kg_convex_support(s->c, d, &s->hint, l);
    kg_mat3_vec(out->v, s->r, l);
    for (int a = 0; a < 3; a++) out->v[a] += s->p[a];
}

static void center(const void *obj, ccd_vec3_t *out) {
    const placed *s = obj;
    memcpy(out->v, s->center, sizeof s->center);
}

static int near(const placed *a, const placed *b) {
    for (int k = 0; k < 3; k++)
        if (a->hi[k] < b->lo[k] || b->hi[k] < a->lo[k]) return 0;
    return boxes_overlap(a, b);
}

static void mpr_setup(ccd_t *ccd) {
    CCD_INIT(ccd);
    ccd->support1 = support;
    ccd->support2 = support;
    ccd->center1 = center;
    ccd->center2 = center;
    ccd->mpr_tolerance = 1e-7;
    ccd->max_iterations = 200;
}

/* Does direction d (world axes) separate a from b: a's support along d short of
 * b's support along -d? Exact, and two support calls against MPR's dozen. */
static int separates(placed *a, placed *b, const double d[3]) {
    ccd_vec3_t dir, pa, pb;
    for (int k = 0; k < 3; k++) dir.v[k] = d[k];
    support(a, &dir, &pa);
    for (int k = 0; k < 3; k++) dir.v[k] = -d[k];
    support(b, &dir, &pb);
    return pa.v[0] * d[0] + pa.v[1] * d[1] + pa.v[2] * d[2] < pb.v[0] * d[0] + pb.v[1] * d[1] + pb.v[2] * d[2];
}

/* Do a and b touch? Their boxes first; then the direction that last separated
 * the pair (axis: poses change little from one call to the next, so it mostly
 * still does) and the one between their centres, which when it separates them
 * becomes the pair's; then libccd's MPR. */
static int touch(placed *a, placed *b, double axis[3]) {
    if (!near(a, b)) return 0;
    if ((axis[0] != 0 || axis[1] != 0 || axis[2] != 0) && separates(a, b, axis)) return 0;
    double d[3];
    for (int k = 0; k < 3; k++) d[k] = b->center[k] - a->center[k];
    if (separates(a, b, d)) {
        kg_vec3_copy(axis, d);
        return 0;
    }
    ccd_t ccd;
    mpr_setup(&ccd);
    return ccdMPRIntersect(a, b, &ccd);
}

/* ---- exact tests ---------------------------------------------------------------------- */

typedef struct triangle { /* one of a mesh's in the world, for libccd */
    double v[3][3], c[3];
} triangle;

static void triangle_support(const void *obj, const ccd_vec3_t *dir, ccd_vec3_t *out) {
    const triangle *t = obj;
    int best = 0;
    double d[3];
    for (int k = 0; k < 3; k++) d[k] = t->v[k][0] * dir->v[0] + t->v[k][1] * dir->v[1] + t->v[k][2] * dir->v[2];
    if (d[1] > d[best]) best = 1;
    if (d[2] > d[best]) best = 2;
    memcpy(out->v, t->v[best], 3 * sizeof(double));
}

static void triangle_center(const void *obj, ccd_vec3_t *out) {
    memcpy(out->v, ((const triangle *)obj)->c, 3 * sizeof(double));
}

typedef struct primitive_test { /* a mesh's triangles against a primitive */
    const kg_trimesh *m;
    const placed *s, *prim; /* the mesh's shape, the primitive */
} primitive_test;

/* Does triangle t meet the primitive (MPR, in the world)? */
static int triangle_meets(void *ctx, int t) {
    const primitive_test *q = ctx;
    triangle tr;
    for (int k = 0; k < 3; k++) {
        kg_mat3_vec(tr.v[k], q->s->r, q->m->vert + 3 * q->m->tri[3 * t + k]);
        for (int a = 0; a < 3; a++) tr.v[k][a] += q->s->p[a];
    }
    for (int a = 0; a < 3; a++) tr.c[a] = (tr.v[0][a] + tr.v[1][a] + tr.v[2][a]) / 3;
    ccd_t ccd;
    mpr_setup(&ccd);
    ccd.support1 = triangle_support, ccd.center1 = triangle_center;
    return ccdMPRIntersect(&tr, q->prim, &ccd);
}

/* Is world point x inside shape s's mesh m (winding number)? Only when a's
 * world box, holding x's shape, lies within s's: a shape inside another is
 * inside its box (the winding number costs a pass over every triangle). */
static int inside(const kg_trimesh *m, const placed *s, const placed *a, const double x[3]) {
    for (int k = 0; k < 3; k++)
        if (a->lo[k] < s->lo[k] || a->hi[k] > s->hi[k]) return 0;
    double d[3], l[3];
    for (int k = 0; k < 3; k++) d[k] = x[k] - s->p[k];
    kg_mat3_tvec(l, s->r, d);
    return fabs(kg_winding_number(m->vert, m->tri, m->ntri, l)) > 0.5;
}

/* After the hulls of shapes i and j touch: do the shapes? Two meshes: a
 * triangle of each meet (their trees, analysis/trimesh.h), or a vertex of one
 * is inside the other (winding number); a mesh and a primitive: a triangle
 * near the primitive's box meets its solid (MPR), or the primitive's centre
 * is inside the mesh; two primitives: yes (their hulls are themselves). */
static int solids_touch(const kg_collision_model *cm, const kg_collision_work *w, int i, int j, int hint[2]) {
    const kg_trimesh *m[2] = {&cm->surface[i], &cm->surface[j]};
    const placed *s[2] = {&w->s[i], &w->s[j]};
    if (!m[0]->ntri && !m[1]->ntri) return 1;
    if (m[0]->ntri && m[1]->ntri) { /* j's mesh in i's frame: R = Ri' Rj, p = Ri' (pj - pi) */
        double R[9], d[3], p[3];
        kg_mat3_mul_at(R, s[0]->r, s[1]->r);
        for (int k = 0; k < 3; k++) d[k] = s[1]->p[k] - s[0]->p[k];
        kg_mat3_tvec(p, s[0]->r, d);
        if (kg_trimeshes_meet(m[0], m[1], R, p, hint)) return 1;
        double x0[3], x1[3]; /* a vertex of each, in the world */
        kg_mat3_vec(x0, s[0]->r, m[0]->vert), kg_mat3_vec(x1, s[1]->r, m[1]->vert);
        for (int k = 0; k < 3; k++) x0[k] += s[0]->p[k], x1[k] += s[1]->p[k];
        return inside(m[0], s[0], s[1], x1) || inside(m[1], s[1], s[0], x0);
    }
    int h = m[0]->ntri ? 0 : 1; /* the mesh; the other is a primitive */
    const placed *ms = s[h], *ps = s[1 - h];
    double R[9], c[3], d[3]; /* the primitive's box in the mesh's frame */
    kg_mat3_mul_at(R, ms->r, ps->r);
    for (int k = 0; k < 3; k++) d[k] = ps->center[k] - ms->p[k];
    kg_mat3_tvec(c, ms->r, d);
    primitive_test q = {m[h], ms, ps};
    if (kg_trimesh_visit(m[h], c, R, ps->half, triangle_meets, &q)) return 1;
    return inside(m[h], ms, ps, ps->p);
}

/* Places link l's shapes, and its box, at d's pose (unless force is 0 and
 * they are there already: the link's pose is the same as when last placed). */
KG_AVX2_CLONE static void place_link(const kg_collision_model *cm, const kg_data *d, kg_collision_work *w, int l, int force) {
    const double *R = d->link_rot + 9 * l, *P = d->link_pos + 3 * l;
    double *stamp = w->stamp + 12 * l, *box = w->box + 6 * l;
    if (!force && !memcmp(stamp, P, 3 * sizeof *P) && !memcmp(stamp + 3, R, 9 * sizeof *R)) return;
    memcpy(stamp, P, 3 * sizeof *P);
    memcpy(stamp + 3, R, 9 * sizeof *R);
    for (int i = cm->link_first[l]; i < cm->link_first[l] + cm->link_count[l]; i++) {
        placed *s = &w->s[i];
        const kg_convex *c = &cm->shape[i];
        s->c = c;
        kg_mat3_mul(s->r, R, c->rot);
        kg_mat3_vec(s->p, R, c->pos);
        for (int a = 0; a < 3; a++) s->p[a] += P[a];
        double lc[3], lh[3], wc[3];
        for (int a = 0; a < 3; a++) lc[a] = (c->lo[a] + c->hi[a]) / 2, lh[a] = (c->hi[a] - c->lo[a]) / 2;
        kg_mat3_vec(wc, s->r, lc);
        kg_vec3_copy(s->half, lh);
        for (int a = 0; a < 3; a++) {
            double h = fabs(s->r[3 * a]) * lh[0] + fabs(s->r[3 * a + 1]) * lh[1] + fabs(s->r[3 * a + 2]) * lh[2];
            s->center[a] = wc[a] + s->p[a];
            s->lo[a] = s->center[a] - h;
            s->hi[a] = s->center[a] + h;
        }
        int first = i == cm->link_first[l];
        for (int a = 0; a < 3; a++) {
            box[a] = first || s->lo[a] < box[a] ? s->lo[a] : box[a];
            box[3 + a] = first || s->hi[a] > box[3 + a] ? s->hi[a] : box[3 + a];
        }
    }
}

int kg_self_collisions(const kg_collision_model *cm, const kg_data *d, kg_collision_work *w, const unsigned char *check,
                       unsigned char *hit) {
    for (int l = 0; l < w->nlink; l++)
        if (cm->link_count[l]) place_link(cm, d, w, l, 1);
    int n = 0;
    for (int p = 0; p < cm->npair; p++) {
        hit[p] = 0;
        if (check ? !check[p] : cm->adjacent[p]) continue;
        int a = cm->pair_a[p], b = cm->pair_b[p], h = 0;
        const double *ba = w->box + 6 * a, *bb = w->box + 6 * b; /* the links' boxes first: most pairs end here */
        if (ba[3] < bb[0] || bb[3] < ba[0] || ba[4] < bb[1] || bb[4] < ba[1] || ba[5] < bb[2] || bb[5] < ba[2]) continue;
        int i0 = cm->link_first[a], i1 = i0 + cm->link_count[a], j0 = cm->link_first[b], j1 = j0 + cm->link_count[b];
        for (int i = i0; i < i1 && !h; i++)
            for (int j = j0; j < j1 && !h; j++)
                h = touch(&w->s[i], &w->s[j], w->axis + 3 * p) &&
                    (!cm->exact || solids_touch(cm, w, i, j, w->hint + 2 * p));
        hit[p] = (unsigned char)h;
        n += h;
    }
    return n;
}

int kg_pair_penetration(const kg_collision_model *cm, kg_collision_work *w, int p, double *depth, double dir[3],
                        double pos[3]) {
    int a = cm->pair_a[p], b = cm->pair_b[p], found = 0;
    *depth = 0;
    for (int i = cm->link_first[a]; i < cm->link_first[a] + cm->link_count[a]; i++)
        for (int j = cm->link_first[b]; j < cm->link_first[b] + cm->link_count[b]; j++) {
            if (!near(&w->s[i], &w->s[j])) continue;
            ccd_t ccd;
            mpr_setup(&ccd);
            ccd_real_t dp;
            ccd_vec3_t dv, pv;
            if (ccdMPRPenetration(&w->s[i], &w->s[j], &ccd, &dp, &dv, &pv) != 0 || (found && dp <= *depth)) continue;
            found = 1;
            *depth = dp;
            for (int k = 0; k < 3; k++) dir[k] = dv.v[k], pos[k] = pv.v[k];
        }
    return found;
}

/* ---- distances ------------------------------------------------------------------------- */

int kg_link_box(const kg_collision_model *cm, const kg_data *d, kg_collision_work *w, int link, double lo[3],
                double hi[3]) {
    if (link < 0 || link >= w->nlink || !cm->link_count[link]) return 0;
    place_link(cm, d, w, link, 0);
    memcpy(lo, w->box + 6 * link, 3 * sizeof *lo);
    memcpy(hi, w->box + 6 * link + 3, 3 * sizeof *hi);
    return 1;
}

/* The squared distance between boxes (lo, hi corners); 0 when they overlap. */
static double box_gap2(const double alo[3], const double ahi[3], const double blo[3], const double bhi[3]) {
    double g = 0;
    for (int k = 0; k < 3; k++) {
        double e = kg_fmax(blo[k] - ahi[k], alo[k] - bhi[k]);
        if (e > 0) g += e * e;
    }
    return g;
}

/* Does a box gap (squared) prove a distance of at least bound? (A distance
 * bound <= 0 needs boxes that do not even touch.) */
static int beyond(double gap2, double bound) { return bound > 0 ? gap2 >= bound * bound : gap2 > 0; }

/* The signed distance of shapes i and j, as kg_pair_distance states it: GJK
 * on their cores; where those meet, libccd's MPR penetration depth with pos
 * the midpoint of its witnesses (pa = pos + depth/2 n, pb = pos - depth/2 n). */
static void shape_distance(kg_collision_work *w, int i, int j, const double guess[3], double bound, kg_gjk_seed *seed,
                           kg_gjk_result *r) {
    placed *a = &w->s[i], *b = &w->s[j];
    const kg_gjk_shape ga = {a->c, a->r, a->p, &a->hint}, gb = {b->c, b->r, b->p, &b->hint};
    if (kg_gjk_distance_from(&ga, &gb, guess, bound, w->tol, seed, r)) return; /* apart, or proven at least bound */
    ccd_t ccd;
    mpr_setup(&ccd);
    ccd_real_t depth = 0;
    ccd_vec3_t dir = {{0, 0, 0}}, pos;
    if (ccdMPRPenetration(a, b, &ccd, &depth, &dir, &pos) != 0) { /* touching within GJK's tolerance */
        depth = 0;
        for (int k = 0; k < 3; k++) pos.v[k] = (r->pa[k] + r->pb[k]) / 2;
    }
    double len = sqrt(dir.v[0] * dir.v[0] + dir.v[1] * dir.v[1] + dir.v[2] * dir.v[2]);
    if (len > 0.5) { /* MPR's direction; a touching contact has none: GJK's, else the centres' */
        for (int k = 0; k < 3; k++) r->n[k] = dir.v[k] / len;
    } else if (!(kg_vec3_dot(r->n, r->n) > 0.5)) {
        double c[3] = {b->center[0] - a->center[0], b->center[1] - a->center[1], b->center[2] - a->center[2]};
        double cl = kg_vec3_norm(c);
        for (int k = 0; k < 3; k++) r->n[k] = cl > 0 ? c[k] / cl : k == 2;
    }
    r->dist = -depth;
    for (int k = 0; k < 3; k++) r->pa[k] = pos.v[k] + depth / 2 * r->n[k], r->pb[k] = pos.v[k] - depth / 2 * r->n[k];
}

KG_AVX2_CLONE static int pair_distance(const kg_collision_model *cm, const kg_data *d, kg_collision_work *w, int p,
                                       double max_dist, double *dist, double n[3], double pa[3], double pb[3]) {
    int la = cm->pair_a[p], lb = cm->pair_b[p];
    place_link(cm, d, w, la, 0);
    place_link(cm, d, w, lb, 0);
    const double *ba = w->box + 6 * la, *bb = w->box + 6 * lb;
    double gap2 = box_gap2(ba, ba + 3, bb, bb + 3);
    if (beyond(gap2, max_dist)) { /* most pairs end here */
        *dist = sqrt(gap2);
        return 0;
    }
    double *last = w->normal + 3 * p;
    int warm = last[0] != 0 || last[1] != 0 || last[2] != 0;
    kg_gjk_result best = {INFINITY, {0, 0, 0}, {0, 0, 0}, {0, 0, 0}, 0}, r;
    pair_seed *ps = &w->seed[p], found = *ps;
    for (int i = cm->link_first[la]; i < cm->link_first[la] + cm->link_count[la]; i++)
        for (int j = cm->link_first[lb]; j < cm->link_first[lb] + cm->link_count[lb]; j++) {
            const placed *a = &w->s[i], *b = &w->s[j];
            double bound = kg_fmin(best.dist, max_dist); /* what this shape pair must beat */
            if (beyond(box_gap2(a->lo, a->hi, b->lo, b->hi), bound)) continue;
            double guess[3]; /* from b towards a: the last answer's, else the boxes' centres' */
            for (int k = 0; k < 3; k++) guess[k] = warm ? -last[k] : a->center[k] - b->center[k];
            pair_seed seed = {i, j, {0}};
            if (ps->i == i && ps->j == j) seed.s = ps->s; /* the shapes nearest last time */
            shape_distance(w, i, j, guess, bound, &seed.s, &r);
            if (r.dist < best.dist) best = r, found = seed;
        }
    *ps = found;
    if (!(best.dist < max_dist)) {
        *dist = kg_fmax(max_dist, sqrt(gap2));
        return 0;
    }
    *dist = best.dist;
    kg_vec3_copy(n, best.n);
    kg_vec3_copy(pa, best.pa);
    kg_vec3_copy(pb, best.pb);
    kg_vec3_copy(last, best.n);
    return 1;
}

/* The exported function around its static clone (KG_AVX2_CLONE). */
int kg_pair_distance(const kg_collision_model *cm, const kg_data *d, kg_collision_work *w, int p, double max_dist,
                     double *dist, double n[3], double pa[3], double pb[3]) {
    return pair_distance(cm, d, w, p, max_dist, dist, n, pa, pb);
}

KG_AVX2_CLONE static double gap_along(const kg_collision_model *cm, const kg_data *d, kg_collision_work *w, int p,
                                      const double n[3], double pa[3], double pb[3]) {
    int la = cm->pair_a[p], lb = cm->pair_b[p];
    place_link(cm, d, w, la, 0);
    place_link(cm, d, w, lb, 0);
    double hi = -INFINITY, lo = INFINITY;
    ccd_vec3_t up = {{n[0], n[1], n[2]}}, down = {{-n[0], -n[1], -n[2]}}, q;
    for (int i = cm->link_first[la]; i < cm->link_first[la] + cm->link_count[la]; i++) {
        support(&w->s[i], &up, &q);
        double h = kg_vec3_dot(q.v, n);
        if (h > hi && pa) kg_vec3_copy(pa, q.v);
        hi = kg_fmax(hi, h);
    }
    for (int j = cm->link_first[lb]; j < cm->link_first[lb] + cm->link_count[lb]; j++) {
        support(&w->s[j], &down, &q);
        double h = kg_vec3_dot(q.v, n);
        if (h < lo && pb) kg_vec3_copy(pb, q.v);
        lo = kg_fmin(lo, h);
    }
    return lo - hi;
}

/* The exported function around its static clone (KG_AVX2_CLONE). */
double kg_pair_gap_along(const kg_collision_model *cm, const kg_data *d, kg_collision_work *w, int p,
                         const double n[3], double pa[3], double pb[3]) {
    return gap_along(cm, d, w, p, n, pa, pb);
}

/* ---- the matrix -------------------------------------------------------------------------- */

const char *kg_pair_class_name(int cls) {
    static const char *const names[] = {"adjacent", "declared", "default", "always", "never", "sometimes"};
    return cls >= 0 && cls <= KG_PAIR_SOMETIMES ? names[cls] : "?";
}

void kg_acm_free(kg_acm *a) {
    free(a->cls);
    free(a->hits);
    free(a->p_upper);
    memset(a, 0, sizeof *a);
}

typedef struct job {
    const kg_model *m;
    const kg_collision_model *cm;
    const kg_acm_options *o;
    const kg_sample_coord *coords;
    int ncoord;
    const unsigned char *check;
    long from, to;
    long *hits;     /* [npair], this thread's */
    int failed;
    long round_from, round_size, round_max; /* the first share's: its round, for the progress */
} job;

/* Samples between progress reports, less one (a mask). */
#define PROGRESS_EVERY 4095

static void *run(void *arg) {
    job *jb = arg;
    const kg_model *m = jb->m;
    kg_data *d = kg_data_new(m);
    kg_collision_work *w = kg_collision_work_new(jb->cm);
    unsigned char *hit = malloc((size_t)jb->cm->npair + 1);
    if (!d || !w || !hit) {
        jb->failed = 1;
    } else {
        if (jb->o->q) memcpy(d->q, jb->o->q, (size_t)m->nq * sizeof *d->q);
        kg_sampler s;
        kg_sampler_start(&s, KG_SAMPLE_RANDOM, jb->o->seed, jb->ncoord, jb->from);
        for (long i = jb->from; i < jb->to; i++) {
            kg_sampler_draw(&s, jb->coords, d->q);
            kg_fk(m, d);
            kg_self_collisions(jb->cm, d, w, jb->check, hit);
            for (int p = 0; p < jb->cm->npair; p++) jb->hits[p] += hit[p];
            if (jb->o->progress && jb->round_size && ((i + 1 - jb->from) & PROGRESS_EVERY) == 0)
                jb->o->progress(jb->o->progress_user,
                                jb->round_from + (long)((double)(i + 1 - jb->from) * (double)jb->round_size /
                                                        (double)(jb->to - jb->from)),
                                jb->round_max);
        }
    }
    kg_data_free(d);
    kg_collision_work_free(w);
    free(hit);
    return NULL;
}

static void run_job(void *jobs, int t) { run((job *)jobs + t); }

static double wilson_upper(long hits, long n) {
    if (n <= 0) return 1;
    if (hits == 0) return fmin(1, 3.0 / (double)n); /* the rule of three */
    const double z = 1.959963984540054;
    double p = (double)hits / (double)n, z2 = z * z / (double)n;
    return fmin(1, (p + z2 / 2 + z * sqrt(p * (1 - p) / (double)n + z2 / (4 * (double)n))) / (1 + z2));
}

int kg_collision_matrix(const kg_model *m, const kg_collision_model *cm, const kg_acm_options *o, kg_acm *out) {
    memset(out, 0, sizeof *out);
    const int np = cm->npair;
    long max = o->max_samples > 0 ? o->max_samples : 1000000;
    long first = o->first_round > 0 ? o->first_round : 1000;
    double always = o->always > 0 ? o->always : 0.95;
    long least = o->min_samples > 0 ? o->min_samples : 10000;
    int nt = o->threads > 1 ? (o->threads > KG_PARALLEL_MAX_THREADS ? KG_PARALLEL_MAX_THREADS : o->threads) : 1;
    out->npair = np;
    out->cls = calloc((size_t)np + 1, sizeof *out->cls);
    out->hits = calloc((size_t)np + 1, sizeof *out->hits);
    out->p_upper = calloc((size_t)np + 1, sizeof *out->p_upper);
    kg_sample_coord *coords = calloc((size_t)m->nq + 1, sizeof *coords);
    unsigned char *check = calloc((size_t)np + 1, 1), *rest = calloc((size_t)np + 1, 1);
    long *thread_hits = calloc((size_t)nt * (np + 1), sizeof *thread_hits);
    job *jobs = calloc((size_t)nt, sizeof *jobs);
    kg_data *d = kg_data_new(m);
    kg_collision_work *w = kg_collision_work_new(cm);
    int rc = -1;
    if (!out->cls || !out->hits || !out->p_upper || !coords || !check || !rest || !thread_hits || !jobs || !d || !w)
        goto done;
    int ncoord = kg_sample_coords(m, NULL, coords);
    out->nsampled = ncoord;
    /* the rest pose */
    if (o->q) memcpy(d->q, o->q, (size_t)m->nq * sizeof *d->q);
    kg_fk(m, d);
    kg_self_collisions(cm, d, w, NULL, rest);
    for (int p = 0; p < np; p++) check[p] = !cm->adjacent[p];
    /* rounds that double the samples, until one finds no new pair (after at least 10 000) */
    long total = 0, size = first < max ? first : max;
    while (size > 0) {
        for (int t = 0; t < nt; t++) {
            jobs[t] = (job){m, cm, o, coords, ncoord, check, total + size * t / nt, total + size * (t + 1) / nt,
                            thread_hits + (size_t)t * (np + 1), 0, 0, 0, 0};
            memset(jobs[t].hits, 0, (size_t)(np + 1) * sizeof *jobs[t].hits);
        }
        jobs[0].round_from = total, jobs[0].round_size = size, jobs[0].round_max = max;
        kg_parallel_for(nt, nt, run_job, jobs);
        int fresh = 0;
        for (int t = 0; t < nt; t++) {
            if (jobs[t].failed) goto done;
            for (int p = 0; p < np; p++) {
                if (jobs[t].hits[p] && !out->hits[p]) fresh = 1;
                out->hits[p] += jobs[t].hits[p];
            }
        }
        /* (a pair first hit in this round by two threads still counts once as fresh) */
        total += size;
        out->rounds++;
        if (o->progress) o->progress(o->progress_user, total, max);
        if ((!fresh && out->rounds > 1 && total >= least) || total >= max) break;
        size = total < max - total ? total : max - total;
    }
    out->samples = total;
    for (int p = 0; p < np; p++) {
        int c = KG_PAIR_SOMETIMES;
        if (cm->adjacent[p]) c = KG_PAIR_ADJACENT;
        else if (cm->declared[p]) c = KG_PAIR_DECLARED;
        else if (rest[p]) c = KG_PAIR_DEFAULT;
        else if ((double)out->hits[p] >= always * (double)total) c = KG_PAIR_ALWAYS;
        else if (out->hits[p] == 0) c = KG_PAIR_NEVER;
        out->cls[p] = c;
        out->p_upper[p] = cm->adjacent[p] ? 1 : wilson_upper(out->hits[p], total);
    }
    rc = 0;
done:
    free(coords);
    free(check);
    free(rest);
    free(thread_hits);
    free(jobs);
    kg_data_free(d);
    kg_collision_work_free(w);
    if (rc) kg_acm_free(out);
    return rc;
}
