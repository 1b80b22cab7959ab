/* Meshes through assimp (see mesh.h for the frame and unit policy). */
#include <assimp/cimport.h>
#include <assimp/material.h>
#include <assimp/postprocess.h>
#include <assimp/scene.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/parallel.h"
#include "core/str.h"
#include "formats/fileio.h"
#include "formats/mesh.h"
#include "formats/mesh_child.h"
#include "formats/mesh_dae.h"

#include <errno.h>
#include <stdint.h>
#include <strings.h>
#include <unistd.h>

typedef struct scene_entry {
    char *path;
    const struct aiScene *scene; /* NULL: the file could not be read */
    char *error;
    int pending;                 /* made by kg_mesh_cache_preload and not read: read when asked */
} scene_entry;

typedef struct mesh_entry {
    char *path, *part;
    kg_mesh mesh;
    int ok;
} mesh_entry;

struct kg_mesh_cache {
    scene_entry *scenes;
    int nscenes, capscenes;
    mesh_entry **meshes; /* pointers: the meshes handed out must not move */
    int nmeshes, capmeshes;
};

kg_mesh_cache *kg_mesh_cache_new(void) { return calloc(1, sizeof(kg_mesh_cache)); }

static void mesh_release(kg_mesh *m) {
    free(m->vert);
    free(m->tri);
    for (int g = 0; g < m->ngroup; g++) free((char *)m->group[g].material);
    free(m->group);
    memset(m, 0, sizeof *m); /* released twice (a mesh refused, then its cache entry) is harmless */
}

/* A scene given back to assimp (in it, as for a read: kg_assimp_enter). */
static void release_scene(const struct aiScene *s) {
    kg_assimp_enter();
    aiReleaseImport(s);
    kg_assimp_leave();
}

void kg_mesh_cache_free(kg_mesh_cache *c) {
    if (!c) return;
    for (int i = 0; i < c->nscenes; i++) {
        if (c->scenes[i].scene) release_scene(c->scenes[i].scene);
        free(c->scenes[i].path);
        free(c->scenes[i].error);
    }
    for (int i = 0; i < c->nmeshes; i++) {
        mesh_release(&c->meshes[i]->mesh);
        free(c->meshes[i]->path);
        free(c->meshes[i]->part);
        free(c->meshes[i]);
    }
    free(c->scenes);
    free(c->meshes);
    free(c);
}

/* A copy of s, NULL for NULL or when memory runs out. */
static char *str_dup(const char *s) { return s ? kg_strdup(s) : NULL; }

static int grow(void **a, int *cap, int n, size_t size) {
    if (n < *cap) return 0;
    int nc = *cap ? 2 * *cap : 8;
    void *t = realloc(*a, (size_t)nc * size);
    if (!t) return -1;
    *a = t;
    *cap = nc;
    return 0;
}

#define IMPORT_FLAGS (aiProcess_Triangulate | aiProcess_SortByPType)
#define IMPORT_SECONDS 60

/* path read in a child process (mesh_child.c): the scene, or NULL with *error set. */
static const struct aiScene *import_isolated(const char *path, char **error) {
    const struct aiScene *s;
    kg_mesh_read_isolated(&path, 1, IMPORT_FLAGS, IMPORT_SECONDS, &s, error);
    return s;
}

/* The cache's entry of path, NULL when it has none. */
static scene_entry *scene_find(kg_mesh_cache *c, const char *path) {
    for (int i = 0; i < c->nscenes; i++)
        if (!strcmp(c->scenes[i].path, path)) return &c->scenes[i];
    return NULL;
}

/* A new entry of path, not read (pending); NULL when memory runs out. */
static scene_entry *scene_add(kg_mesh_cache *c, const char *path) {
    char *copy = str_dup(path);
    if (!copy || grow((void **)&c->scenes, &c->capscenes, c->nscenes, sizeof *c->scenes)) {
        free(copy);
        return NULL;
    }
    scene_entry *e = &c->scenes[c->nscenes++];
    memset(e, 0, sizeof *e);
    e->path = copy, e->pending = 1;
    return e;
}

static int is_stl(const char *path) {
    const char *dot = strrchr(path, '.');
    return dot && !strcasecmp(dot, ".stl");
}

/* e read (its scene, or NULL with why). */
static void scene_read(scene_entry *e, const struct aiScene *s, char *error) {
    e->pending = 0, e->scene = s, e->error = error;
    if (!e->scene || !e->scene->mRootNode) {
        if (!e->error) e->error = str_dup("assimp gave no scene");
        if (e->scene) release_scene(e->scene);
        e->scene = NULL;
    }
}

/* Triangulate polygons; SortByPType splits points and lines off so they can
 * be skipped whole. No degenerate removal: triangle counts stay the file's.
 * (Vertices at the same place are joined here, by exact position: assimp's
 * JoinIdenticalVertices compares every component and takes ten times as
 * long as reading an STL.) STL files are read here, the rest in a child
 * process (mesh_child.c). */
static scene_entry *scene_of(kg_mesh_cache *c, const char *path) {
    scene_entry *e = scene_find(c, path);
    if (!e) e = scene_add(c, path);
    if (!e || !e->pending) return e; /* out of memory, or read */
    char *error = NULL;
    const struct aiScene *s = is_stl(path) ? kg_mesh_read_here(path, IMPORT_FLAGS, &error) : import_isolated(path, &error);
    scene_read(e, s, error);
    return e;
}

/* The unit scale in the root transform (assimp puts the unit and the up-axis
 * rotation there): the cube root of its determinant. */
static double unit_scale(const struct aiScene *s) {
    const struct aiMatrix4x4 *t = &s->mRootNode->mTransformation;
    double det = t->a1 * (t->b2 * t->c3 - t->b3 * t->c2) - t->a2 * (t->b1 * t->c3 - t->b3 * t->c1) +
                 t->a3 * (t->b1 * t->c2 - t->b2 * t->c1);
    double u = cbrt(fabs(det));
    return u > 0 && isfinite(u) ? u : 1;
}

/* Growing arrays while a mesh is assembled. */
typedef struct acc {
    kg_mesh *m;
    int capv, capt, capg;
    int failed;
    int *slot;        /* open-addressing table of vertex indices, for joining equal positions */
    size_t nslot;     /* a power of two, at least twice the vertices */
    int *map;         /* the assimp mesh's vertex i -> our vertex */
    size_t capmap;
} acc;

static uint64_t hash_vertex(const double *v) {
    uint64_t h = 1469598103934665603ull, u;
    for (int k = 0; k < 3; k++) {
        double x = v[k] == 0 ? 0 : v[k]; /* -0 and 0 are the same place */
        memcpy(&u, &x, sizeof u);
        h = (h ^ u) * 1099511628211ull;
        h ^= h >> 29;
    }
    return h;
}

/* Room in the vertex table for nvert vertices at most half full (rehashed
 * when it grows). 0, -1 when out of memory. */
static int reserve_slots(acc *a, size_t nvert) {
    const kg_mesh *m = a->m;
    if (nvert * 2 <= a->nslot) return 0;
    if (nvert > SIZE_MAX / 4 / sizeof(int)) return -1;
    size_t n = a->nslot ? 2 * a->nslot : 1024;
    while (nvert * 2 > n) n *= 2;
    int *t = malloc(n * sizeof *t);
    if (!t) return -1;
    for (size_t i = 0; i < n; i++) t[i] = -1;
    for (int i = 0; i < m->nvert; i++) {
        size_t h = (size_t)hash_vertex(m->vert + 3 * i) & (n - 1);
        while (t[h] >= 0) h = (h + 1) & (n - 1);
        t[h] = i;
    }
    free(a->slot);
    a->slot = t;
    a->nslot = n;
    return 0;
}

/* The index of the vertex at position v: an existing one at exactly that place,
 * or v appended. -1 when out of memory. */
static int join_vertex(acc *a, const double v[3]) {
    kg_mesh *m = a->m;
    if (reserve_slots(a, (size_t)m->nvert + 1) != 0) return -1;
    size_t h = (size_t)hash_vertex(v) & (a->nslot - 1);
    for (; a->slot[h] >= 0; h = (h + 1) & (a->nslot - 1)) {
        const double *w = m->vert + 3 * a->slot[h];
        if (w[0] == v[0] && w[1] == v[1] && w[2] == v[2]) return a->slot[h];
    }
    if (m->nvert == a->capv) {
        a->capv = a->capv ? 2 * a->capv : 1024;
        double *nv = realloc(m->vert, (size_t)a->capv * 3 * sizeof *nv);
        if (!nv) return -1;
        m->vert = nv;
    }
    memcpy(m->vert + 3 * m->nvert, v, 3 * sizeof *v);
    a->slot[h] = m->nvert;
    return m->nvert++;
}

/* Appends one assimp mesh, its vertices mapped by the affine transform (r row-major, p). */
static void add_mesh(acc *a, const struct aiScene *s, const struct aiMesh *am, const double r[9], const double p[3]) {
    kg_mesh *m = a->m;
    int ntri = 0;
    for (unsigned f = 0; f < am->mNumFaces; f++) {
        if (am->mFaces[f].mNumIndices == 3) ntri++;
        else m->nskipped++;
    }
    if (!ntri) return;
    if (am->mNumVertices > a->capmap) {
        int *mp = realloc(a->map, am->mNumVertices * sizeof *mp);
        if (!mp) { a->failed = 1; return; }
        a->map = mp;
        a->capmap = am->mNumVertices;
    }
    /* the table sized once for this mesh's new vertices: no more than its corners, nor (closed
     * surfaces have about half as many vertices as triangles) than its triangles; rehashing as
     * it grew took a fifth of reading G1's meshes */
    size_t fresh = am->mNumVertices < (unsigned)ntri ? am->mNumVertices : (size_t)ntri;
    if (reserve_slots(a, (size_t)m->nvert + fresh) != 0) { a->failed = 1; return; }
    for (unsigned i = 0; i < am->mNumVertices; i++) {
        double x = am->mVertices[i].x, y = am->mVertices[i].y, z = am->mVertices[i].z, o[3];
        for (int k = 0; k < 3; k++) o[k] = r[3 * k] * x + r[3 * k + 1] * y + r[3 * k + 2] * z + p[k];
        if ((a->map[i] = join_vertex(a, o)) < 0) { a->failed = 1; return; }
    }
    if (m->ntri + ntri > a->capt) {
        a->capt = 2 * (m->ntri + ntri);
        int *t = realloc(m->tri, (size_t)a->capt * 3 * sizeof *t);
        if (!t) { a->failed = 1; return; }
        m->tri = t;
    }
    /* a mirroring transform turns triangles inside out: swap two corners back */
    double det = r[0] * (r[4] * r[8] - r[5] * r[7]) - r[1] * (r[3] * r[8] - r[5] * r[6]) + r[2] * (r[3] * r[7] - r[4] * r[6]);
    int flip = det < 0, first = m->ntri;
    for (unsigned f = 0; f < am->mNumFaces; f++) {
        const struct aiFace *fc = &am->mFaces[f];
        if (fc->mNumIndices != 3) continue;
        int *t = m->tri + 3 * m->ntri++;
        unsigned i0 = fc->mIndices[0], i1 = fc->mIndices[flip ? 2 : 1], i2 = fc->mIndices[flip ? 1 : 2];
        if (i0 >= am->mNumVertices || i1 >= am->mNumVertices || i2 >= am->mNumVertices) { /* not assimp's to give */
            m->ntri--;
            m->nskipped++;
            continue;
        }
        t[0] = a->map[i0];
        t[1] = a->map[i1];
        t[2] = a->map[i2];
    }
    ntri = m->ntri - first;
    if (!ntri) return;
    /* one group per run of triangles of the same material */
    const struct aiMaterial *mat = am->mMaterialIndex < s->mNumMaterials ? s->mMaterials[am->mMaterialIndex] : NULL;
    struct aiString name;
    const char *mname = mat && aiGetMaterialString(mat, AI_MATKEY_NAME, &name) == AI_SUCCESS && name.length ? name.data : NULL;
    if (mname && !strcmp(mname, AI_DEFAULT_MATERIAL_NAME)) mat = NULL, mname = NULL; /* assimp's, not the file's */
    kg_mesh_group *last = m->ngroup ? &m->group[m->ngroup - 1] : NULL;
    if (last && ((!last->material && !mname) || (last->material && mname && !strcmp(last->material, mname)))) {
        last->ntri += ntri;
        return;
    }
    if (m->ngroup == a->capg) {
        a->capg = a->capg ? 2 * a->capg : 4;
        kg_mesh_group *g = realloc(m->group, (size_t)a->capg * sizeof *g);
        if (!g) { a->failed = 1; return; }
        m->group = g;
    }
    kg_mesh_group *g = &m->group[m->ngroup++];
    memset(g, 0, sizeof *g);
    g->tri_first = m->ntri - ntri;
    g->ntri = ntri;
    g->material = str_dup(mname);
    struct aiColor4D col;
    if (mat && aiGetMaterialColor(mat, AI_MATKEY_COLOR_DIFFUSE, &col) == AI_SUCCESS) {
        g->has_color = 1;
        g->rgba[0] = col.r;
        g->rgba[1] = col.g;
        g->rgba[2] = col.b;
        g->rgba[3] = col.a;
    }
}

/* Every mesh instance of the node tree, with the node transforms applied. */
static void flatten(acc *a, const struct aiScene *s, const struct aiNode *n, const double r[9], const double p[3], int depth) {
    if (depth > 256 || a->failed) return;
    for (unsigned i = 0; i < n->mNumMeshes; i++)
        if (n->mMeshes[i] < s->mNumMeshes) add_mesh(a, s, s->mMeshes[n->mMeshes[i]], r, p);
    for (unsigned i = 0; i < n->mNumChildren; i++) {
        const struct aiMatrix4x4 *t = &n->mChildren[i]->mTransformation;
        double lr[9] = {t->a1, t->a2, t->a3, t->b1, t->b2, t->b3, t->c1, t->c2, t->c3}, lp[3] = {t->a4, t->b4, t->c4};
        double cr[9], cp[3];
        for (int row = 0; row < 3; row++) {
            for (int col = 0; col < 3; col++)
                cr[3 * row + col] = r[3 * row] * lr[col] + r[3 * row + 1] * lr[3 + col] + r[3 * row + 2] * lr[6 + col];
            cp[row] = r[3 * row] * lp[0] + r[3 * row + 1] * lp[1] + r[3 * row + 2] * lp[2] + p[row];
        }
        flatten(a, s, n->mChildren[i], cr, cp, depth + 1);
    }
}

/* A COLLADA geometry assimp left out (only a physics shape instances it): read
 * directly, its vertices joined like assimp's. 0 when it gave triangles. */
static int add_dae_geometry(acc *a, const char *path, const char *part) {
    const char *dot = strrchr(path, '.');
    kg_dae_mesh g;
    int rc = !dot || strcasecmp(dot, ".dae") ? -1 : kg_dae_geometry(path, part, &g);
    if (rc == -2) a->failed = 1; /* out of memory: said as such, not as a missing part */
    if (rc != 0) return rc == -2 ? 0 : -1;
    kg_mesh *m = a->m;
    int *map = malloc((size_t)g.nvert * sizeof *map);
    m->tri = malloc((size_t)g.ntri * 3 * sizeof *m->tri);
    a->failed = !map || !m->tri || reserve_slots(a, (size_t)m->nvert + (size_t)g.nvert) != 0;
    for (int i = 0; i < g.nvert && !a->failed; i++)
        if ((map[i] = join_vertex(a, g.vert + 3 * i)) < 0) a->failed = 1;
    for (int t = 0; t < 3 * g.ntri && !a->failed; t++) m->tri[t] = map[g.tri[t]];
    if (!a->failed) m->ntri = g.ntri;
    m->group = a->failed ? NULL : calloc(1, sizeof *m->group);
    if (m->group) { /* one group, no material: the geometry's colours are the visual scene's */
        m->ngroup = 1;
        m->group[0].ntri = m->ntri;
    }
    free(map);
    free(g.vert);
    free(g.tri);
    return 0;
}

/* A vertex farther than this (m, as read) from its mesh's origin, or not a
 * number, is no part of a robot: the file is broken (a converter's COLLADA,
 * its float_array's count short of its numbers, read as vertices 4.7e30 m
 * out, and a retargeting's penetration of 5e36 mm). */
#define MESH_EXTENT_MAX 1e6

/* The farthest coordinate of m's vertices (INFINITY when one is not finite). */
static double mesh_extent(const kg_mesh *m) {
    double far = 0;
    for (int i = 0; i < 3 * m->nvert; i++) far = isfinite(m->vert[i]) ? fmax(far, fabs(m->vert[i])) : INFINITY;
    return far;
}

/* The mesh of scene s (read from path) into m: the whole file's (part NULL),
 * or its meshes named part (a COLLADA geometry assbin left out, read from the
 * file). 0, 1 when it has no such part, 2 when a vertex is out of range
 * (MESH_EXTENT_MAX; m released), -1 when memory runs out (m keeps what it
 * had). */
static int mesh_of_scene(const struct aiScene *s, const char *path, const char *part, kg_mesh *m) {
    double u = unit_scale(s), r[9] = {u, 0, 0, 0, u, 0, 0, 0, u}, p[3] = {0, 0, 0};
    acc a = {m, 0, 0, 0, 0, NULL, 0, NULL, 0};
    int missing = 0;
    if (!part) {
        flatten(&a, s, s->mRootNode, r, p, 0);
    } else {
        int found = 0;
        for (unsigned i = 0; i < s->mNumMeshes; i++)
            if (!strcmp(s->mMeshes[i]->mName.data, part)) add_mesh(&a, s, s->mMeshes[i], r, p), found = 1;
        missing = !found && add_dae_geometry(&a, path, part) != 0;
    }
    free(a.slot);
    free(a.map);
    if (!missing && !a.failed && !(mesh_extent(m) <= MESH_EXTENT_MAX)) {
        mesh_release(m);
        return 2;
    }
    return missing ? 1 : a.failed ? -1 : 0;
}

const kg_mesh *kg_mesh_get(kg_mesh_cache *c, const char *path, const char *part, kg_diags *d, const char *ref_file,
                           int ref_line) {
    for (int i = 0; i < c->nmeshes; i++) {
        mesh_entry *e = c->meshes[i];
        if (!strcmp(e->path, path) && ((!part && !e->part) || (part && e->part && !strcmp(part, e->part))))
            return e->ok ? &e->mesh : NULL; /* reported when first asked */
    }
    mesh_entry *e = calloc(1, sizeof *e);
    if (!e || grow((void **)&c->meshes, &c->capmeshes, c->nmeshes, sizeof *c->meshes)) {
        free(e);
        return NULL;
    }
    e->path = str_dup(path);
    e->part = str_dup(part);
    scene_entry *se = e->path && (e->part || !part) ? scene_of(c, path) : NULL;
    if (!se) { /* out of memory: an error (a writer stops), not a mesh that is not there */
        free(e->path), free(e->part), free(e);
        kg_diag_add(d, KG_ERROR, "mesh.memory", ref_file, ref_line, path, "out of memory reading mesh '%s'", path);
        return NULL;
    }
    c->meshes[c->nmeshes++] = e;
    if (!se->scene) {
        kg_diag_add(d, KG_WARNING, "mesh.unreadable", ref_file, ref_line, path, "cannot read mesh '%s': %s", path,
                    se->error ? se->error : "assimp gave no reason");
        return NULL;
    }
    int rc = mesh_of_scene(se->scene, path, part, &e->mesh);
    if (rc == 2) {
        kg_diag_add(d, KG_WARNING, "mesh.out_of_range", ref_file, ref_line, path,
                    "mesh '%s'%s%s has a vertex more than %g m from its origin, or not a number: a broken file; it is "
                    "left out", path, part ? " part " : "", part ? part : "", MESH_EXTENT_MAX);
        return NULL;
    }
    if (rc > 0) {
        kg_diag_add(d, KG_WARNING, "mesh.no_part", ref_file, ref_line, part, "'%s' has no mesh named '%s'", path, part);
        return NULL;
    }
    if (rc < 0) {
        kg_diag_add(d, KG_ERROR, "mesh.memory", ref_file, ref_line, path, "out of memory reading mesh '%s'", path);
        return NULL;
    }
    e->ok = 1;
    return &e->mesh;
}

/* One STL file read by kg_mesh_cache_preload (a thread's share). */
typedef struct preload_job {
    const char *path;
    int scene;                    /* its entry in the cache (an index: the array may move) */
    const struct aiScene *read;   /* NULL: not read (read again when asked) */
    mesh_entry *mesh;             /* the whole file's mesh, NULL when it could not be made */
} preload_job;

/* Whether path is a binary STL as assimp decides it (84 bytes of header and
 * count, then 50 a triangle, exactly): its reader cannot fail on it but for
 * memory, so it may run outside the lock (kg_assimp_errors) beside others. */
static int binary_stl(const char *path) {
    FILE *f = fopen(path, "rb");
    unsigned char h[84] = {0};
    int ok = f && fread(h, 1, sizeof h, f) == sizeof h && fseek(f, 0, SEEK_END) == 0;
    long size = ok ? ftell(f) : -1;
    if (f) fclose(f);
    uint32_t n = (uint32_t)h[80] | (uint32_t)h[81] << 8 | (uint32_t)h[82] << 16 | (uint32_t)h[83] << 24;
    return ok && n > 0 && size == 84 + 50 * (long)n;
}

static void preload_one(void *ctx, int i) {
    preload_job *j = (preload_job *)ctx + i;
    if (!binary_stl(j->path)) return; /* read when asked, under the lock */
    kg_assimp_enter();
    const struct aiScene *s = aiImportFile(j->path, IMPORT_FLAGS);
    kg_assimp_leave();
    if (s && !s->mRootNode) release_scene(s), s = NULL;
    if (!(j->read = s)) return;
    mesh_entry *e = calloc(1, sizeof *e);
    if (!e || !(e->path = str_dup(j->path))) {
        free(e);
        return;
    }
    if (mesh_of_scene(s, j->path, NULL, &e->mesh) != 0) { /* made again when asked, which says so */
        mesh_release(&e->mesh), free(e->path), free(e);
        return;
    }
    e->ok = 1;
    j->mesh = e;
}

/* Whether paths[i] is a file to read ahead: given, not read nor asked for
 * before index i (a file read once), and STL or not as `stl` says. */
static int to_preload(kg_mesh_cache *c, const char *const *paths, int i, int stl) {
    if (!paths[i] || is_stl(paths[i]) != stl || scene_find(c, paths[i])) return 0;
    for (int k = 0; k < i; k++)
        if (paths[k] && !strcmp(paths[k], paths[i])) return 0;
    return 1;
}

/* The files among paths[0 .. n) that are not STL and not read yet, read
 * together by one child process (mesh_child.c: a fork per file cost more than
 * the reading). 0, -1 when memory runs out (none read). */
static int preload_isolated(kg_mesh_cache *c, const char *const *paths, int n) {
    const char **batch = calloc((size_t)n + 1, sizeof *batch);
    int *entry = malloc(((size_t)n + 1) * sizeof *entry), nb = 0, rc = 0;
    const struct aiScene **scenes = malloc(((size_t)n + 1) * sizeof *scenes);
    char **errors = malloc(((size_t)n + 1) * sizeof *errors);
    if (!batch || !entry || !scenes || !errors) rc = -1;
    for (int i = 0; i < n && rc == 0; i++) {
        if (!to_preload(c, paths, i, 0)) continue;
        if (!scene_add(c, paths[i])) rc = -1;
        else batch[nb] = paths[i], entry[nb++] = c->nscenes - 1;
    }
    if (rc == 0) {
        kg_mesh_read_isolated(batch, nb, IMPORT_FLAGS, IMPORT_SECONDS, scenes, errors);
        for (int k = 0; k < nb; k++) scene_read(&c->scenes[entry[k]], scenes[k], errors[k]);
    }
    free(batch), free(entry), free(scenes), free(errors);
    return rc;
}

int kg_mesh_cache_preload(kg_mesh_cache *c, const char *const *paths, int n, int threads) {
    if (preload_isolated(c, paths, n) != 0) return -1;
    preload_job *job = calloc((size_t)n + 1, sizeof *job);
    if (!job) return -1;
    int nj = 0, rc = 0;
    for (int i = 0; i < n && rc == 0; i++) {
        if (!to_preload(c, paths, i, 1)) continue;
        if (!scene_add(c, paths[i])) rc = -1;
        else job[nj++] = (preload_job){paths[i], c->nscenes - 1, NULL, NULL};
    }
    kg_parallel_for(nj, threads, preload_one, job);
    for (int k = 0; k < nj; k++) {
        scene_entry *e = &c->scenes[job[k].scene];
        if (job[k].read) e->scene = job[k].read, e->pending = 0;
        if (!job[k].mesh) continue;
        if (rc == 0 && grow((void **)&c->meshes, &c->capmeshes, c->nmeshes, sizeof *c->meshes) == 0) {
            c->meshes[c->nmeshes++] = job[k].mesh;
        } else { /* made again when asked */
            mesh_release(&job[k].mesh->mesh), free(job[k].mesh->path), free(job[k].mesh);
            rc = -1;
        }
    }
    free(job);
    return rc;
}

int kg_mesh_cache_preload_geoms(kg_mesh_cache *c, const kg_model *m, int (*wanted)(const void *ctx, int g),
                                const void *ctx, int threads) {
    const char **paths = calloc((size_t)m->ngeom + 1, sizeof *paths);
    if (!paths) return -1;
    for (int g = 0; g < m->ngeom; g++) {
        const kg_geom *G = &m->geom[g];
        /* an STL file has no parts: one asked for by part is not made whole here */
        if (G->type == KG_GEOM_MESH && G->mesh_path && !(G->mesh_part && is_stl(G->mesh_path)) && wanted(ctx, g))
            paths[g] = G->mesh_path;
    }
    int rc = kg_mesh_cache_preload(c, paths, m->ngeom, threads);
    free(paths);
    return rc;
}

typedef struct role_of {
    const kg_model *m;
    int role;
} role_of;

static int has_role(const void *ctx, int g) {
    const role_of *r = ctx;
    return r->role < 0 || (int)r->m->geom[g].role == r->role;
}

int kg_mesh_cache_preload_model(kg_mesh_cache *c, const kg_model *m, int role, int threads) {
    const role_of r = {m, role};
    return kg_mesh_cache_preload_geoms(c, m, has_role, &r, threads);
}

int kg_mesh_bounds(const kg_mesh *m, double lo[3], double hi[3]) {
    if (!m->nvert) return -1;
    for (int k = 0; k < 3; k++) lo[k] = INFINITY, hi[k] = -INFINITY;
    for (int i = 0; i < m->nvert; i++)
        for (int k = 0; k < 3; k++) {
            lo[k] = fmin(lo[k], m->vert[3 * i + k]);
            hi[k] = fmax(hi[k], m->vert[3 * i + k]);
        }
    return 0;
}

static void put32(unsigned char *o, uint32_t v) {
    for (int k = 0; k < 4; k++) o[k] = (unsigned char)(v >> (8 * k)); /* STL is little-endian */
}

static void putf(unsigned char *o, double v) {
    float f = (float)v;
    uint32_t u;
    memcpy(&u, &f, 4);
    put32(o, u);
}

int kg_mesh_write_stl(const kg_mesh *m, const char *path, kg_diags *d) {
    kg_out out;
    if (kg_out_open(&out, path) != 0) {
        if (errno == ENOMEM) kg_diag_add(d, KG_ERROR, "io.memory", path, 0, NULL, "out of memory writing '%s'", path);
        else kg_diag_add(d, KG_ERROR, "io.write", path, 0, NULL, "cannot write '%s': %s", path, strerror(errno));
        return -1;
    }
    unsigned char head[84] = "binary STL written by kinegraph", rec[50];
    put32(head + 80, (uint32_t)m->ntri);
    fwrite(head, 1, sizeof head, out.f);
    for (int t = 0; t < m->ntri; t++) {
        const double *a = m->vert + 3 * m->tri[3 * t], *b = m->vert + 3 * m->tri[3 * t + 1], *c = m->vert + 3 * m->tri[3 * t + 2];
        double u[3] = {b[0] - a[0], b[1] - a[1], b[2] - a[2]}, v[3] = {c[0] - a[0], c[1] - a[1], c[2] - a[2]};
        double n[3] = {u[1] * v[2] - u[2] * v[1], u[2] * v[0] - u[0] * v[2], u[0] * v[1] - u[1] * v[0]};
        double len = sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
        for (int k = 0; k < 3; k++) putf(rec + 4 * k, len > 0 ? n[k] / len : 0);
        for (int k = 0; k < 3; k++) {
            putf(rec + 12 + 4 * k, a[k]);
            putf(rec + 24 + 4 * k, b[k]);
            putf(rec + 36 + 4 * k, c[k]);
        }
        rec[48] = rec[49] = 0;
        fwrite(rec, 1, sizeof rec, out.f);
    }
    if (ferror(out.f) || kg_out_commit(&out) != 0) {
        if (out.f) kg_out_abort(&out);
        kg_diag_add(d, KG_ERROR, "io.write", path, 0, NULL, "cannot write '%s': %s", path, strerror(errno));
        return -1;
    }
    return 0;
}
