/* glTF 2.0 exporter (.glb binary, or .gltf with its buffer in "<name>.bin"
 * beside it): what a model looks like and how it moves, for viewers and game
 * engines. jansson writes the JSON; the binary buffer is little-endian as the
 * specification requires, whatever the host.
 *
 * Nodes: one per real link, named as the link, in the link tree, with its pose
 * relative to its parent link at the rest pose (or at the motion's first
 * frame); under each, one node per visual geom (its pose in the link frame)
 * holding a mesh: a mesh file read through assimp (formats/mesh.h), scale
 * baked in, one primitive per material group; primitives (box, sphere,
 * cylinder, capsule) triangulated (exporters/primitives.c). Materials: the
 * geom's colour, else the mesh file's colour per group (baseColorFactor).
 * glTF is +Y up and kinegraph's robots (URDF, COLLADA kinematics) are +Z up:
 * a node "z_up" above the root link turns one into the other, so the link
 * nodes keep the model's frames; BVH skeletons are written as they are
 * (their files are Y up).
 *
 * A motion becomes one animation: per moving link, translation and rotation
 * channels sampled at every frame (LINEAR; the rotation quaternions kept in
 * one hemisphere, so interpolation takes the short way), and the root's when
 * the motion moves the base.
 *
 * What glTF cannot hold goes into the ledger: inertials, joints (their types,
 * axes, limits and dynamics: glTF nodes have poses, not joints), mimic
 * couplings (their effect is in the animated poses), loops (the virtual links
 * are not written), collision geometry, textures, unreadable meshes, end
 * effectors, ignored collision pairs and extras. */
#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "core/fk.h"
#include "core/spatial.h"
#include "exporters/exporters.h"
#include "exporters/primitives.h"
#include "formats/fileio.h"

enum { GL_FLOAT = 5126, GL_UNSIGNED_INT = 5125, GL_ARRAY_BUFFER = 34962, GL_ELEMENT_ARRAY_BUFFER = 34963 };

typedef struct gw {
    const kg_model *m;
    kg_ledger *l;
    kg_diags *d;
    kg_mesh_cache *meshes;
    int skip_meshes;
    kg_files *companions; /* the .bin written beside a .gltf (kg_export_options) */
    json_t *root, *nodes, *meshes_json, *materials, *accessors, *views;
    unsigned char *bin;   /* the buffer */
    size_t nbin, capbin;
    int *node_of;         /* link -> its node, -1 for virtual links */
    double (*mat_rgba)[4]; /* the materials made, by colour */
    int nmat;
    int oom;              /* memory ran out: what follows is dropped, and the export fails */
} gw;

/* jansson's setters, out of memory marked: a NULL value (a json_pack that could
 * not allocate) or jansson's own allocation failing comes back as -1, and the
 * export then fails rather than write a file a node short. */
static void append(gw *x, json_t *array, json_t *v) {
    if (json_array_append_new(array, v) != 0) x->oom = 1;
}

static void set(gw *x, json_t *object, const char *key, json_t *v) {
    if (json_object_set_new(object, key, v) != 0) x->oom = 1;
}

/* ---- the binary buffer ----------------------------------------------------------- */

static void put(gw *x, const void *p, size_t n) {
    if (x->oom) return;
    if (x->nbin + n > x->capbin) {
        size_t cap = (x->nbin + n) * 2 + 1024;
        unsigned char *grown = realloc(x->bin, cap);
        if (!grown) {
            x->oom = 1;
            return;
        }
        x->bin = grown, x->capbin = cap;
    }
    memcpy(x->bin + x->nbin, p, n);
    x->nbin += n;
}

static void put_u32(gw *x, uint32_t v) {
    unsigned char b[4] = {(unsigned char)v, (unsigned char)(v >> 8), (unsigned char)(v >> 16), (unsigned char)(v >> 24)};
    put(x, b, 4);
}

static void put_f32(gw *x, double v) {
    float f = (float)v;
    uint32_t u;
    memcpy(&u, &f, 4);
    put_u32(x, u);
}

/* A bufferView over the bytes from `from` to the end, and an accessor on it. */
static int accessor(gw *x, size_t from, int count, int component, const char *type, int target, json_t *min,
                    json_t *max) {
    json_t *v = json_pack("{s:i, s:I, s:I}", "buffer", 0, "byteOffset", (json_int_t)from, "byteLength",
                          (json_int_t)(x->nbin - from));
    if (target) set(x, v, "target", json_integer(target));
    append(x, x->views, v);
    json_t *a = json_pack("{s:i, s:i, s:i, s:s}", "bufferView", (int)json_array_size(x->views) - 1, "componentType",
                          component, "count", count, "type", type);
    if (min) set(x, a, "min", min);
    if (max) set(x, a, "max", max);
    append(x, x->accessors, a);
    return (int)json_array_size(x->accessors) - 1;
}

/* Floats with n components per element; min and max as glTF wants them (of the
 * values as stored, i.e. after rounding to float). */
static int float_accessor(gw *x, const double *v, int count, int n, const char *type, int target, int bounds) {
    size_t from = x->nbin;
    float lo[4], hi[4];
    for (int k = 0; k < n; k++) lo[k] = INFINITY, hi[k] = -INFINITY;
    for (int i = 0; i < count; i++)
        for (int k = 0; k < n; k++) {
            float f = (float)v[(size_t)i * n + k];
            put_f32(x, f);
            lo[k] = fminf(lo[k], f), hi[k] = fmaxf(hi[k], f);
        }
    json_t *min = NULL, *max = NULL;
    if (bounds) {
        min = json_array(), max = json_array();
        for (int k = 0; k < n; k++) append(x, min, json_real(lo[k])), append(x, max, json_real(hi[k]));
    }
    return accessor(x, from, count, GL_FLOAT, type, target, min, max);
}

/* ---- materials and meshes -------------------------------------------------------- */

static int material(gw *x, const double rgba[4]) {
    for (int k = 0; k < x->nmat; k++)
        if (!memcmp(x->mat_rgba[k], rgba, sizeof x->mat_rgba[k])) return k;
    double(*grown)[4] = realloc(x->mat_rgba, (size_t)(x->nmat + 1) * sizeof *x->mat_rgba);
    if (!grown) return x->oom = 1, -1;
    x->mat_rgba = grown;
    memcpy(x->mat_rgba[x->nmat], rgba, sizeof x->mat_rgba[0]);
    json_t *c = json_array();
    for (int k = 0; k < 4; k++) append(x, c, json_real(fmin(1, fmax(0, rgba[k]))));
    json_t *mat = json_pack("{s:{s:o, s:f, s:f}}", "pbrMetallicRoughness", "baseColorFactor", c, "metallicFactor", 0.0,
                            "roughnessFactor", 0.8);
    if (rgba[3] < 1) set(x, mat, "alphaMode", json_string("BLEND"));
    append(x, x->materials, mat);
    return x->nmat++;
}

/* Vertex normals: a corner's normal is the area-weighted mean of the normals of
 * the triangles around its vertex that turn less than this from its own, so
 * smooth surfaces (spheres, cylinder sides, fine meshes) are shaded smooth and
 * edges sharper than it (a box's, a cylinder's rim) stay sharp: a vertex is
 * split where its corners' normals differ (as 3-D tools' "auto smooth"); mesh
 * files' vertices at one position are joined by their reader (formats/mesh.c),
 * STL's too, so their triangles' corners are shared. The angle
 * is 30 degrees, as Blender's auto smooth. */
#define KG_GLTF_CREASE_COS 0.86602540378443865 /* cos 30 deg */

/* A vertex on a crease with more triangles than this (a cone's apex, a fan of
 * slivers) gives each corner its own triangle's normal: comparing every pair
 * would be quadratic in the valence. */
#define KG_GLTF_MAX_CREASE_VALENCE 64

/* cos 15 deg: faces all within half the crease angle of their mean are all
 * within the crease angle of each other */
#define KG_GLTF_HALF_CREASE_COS 0.96592582628906829

/* The triangles t[nt] over v, re-indexed (only the vertices they use, split by
 * normal): *ov [3 *onv] positions, *on [3 *onv] unit normals, *ot [3 nt].
 * Vertex by vertex: one normal for all its corners when its triangles all lie
 * within half the crease angle of their mean (linear in its valence: a CAD
 * fan's flat centre), else corner by corner. One block, *ov's, holds the
 * three outputs (free *ov alone). 0, or -1 when memory runs out (nothing to
 * free then). */
static int with_normals(const double *v, int nv, const int *t, int nt, double **ov, double **on, int **ot, int *onv) {
    /* one block: the outputs (positions, normals, then indices: *ov owns it)
     * and the scratch after them (doubles first, so every array is aligned) */
    const size_t T = (size_t)nt + 1, C = 3 * (size_t)nt + 1, N = (size_t)nv + 2;
    double *block = malloc((2 * 3 * C + 2 * 3 * T) * sizeof(double) + (C + C + N + N) * sizeof(int));
    if (!block) return -1;
    *ov = block, *on = *ov + 3 * C;
    double *fn = *on + 3 * C, *u = fn + 3 * T;
    *ot = (int *)(u + 3 * T);
    int *adj = *ot + C, *start = adj + C, *fill = start + N;
    memset(start, 0, N * sizeof *start);
    for (int f = 0; f < nt; f++) {
        const double *a = v + 3 * t[3 * f], *b = v + 3 * t[3 * f + 1], *c = v + 3 * t[3 * f + 2];
        double e1[3] = {b[0] - a[0], b[1] - a[1], b[2] - a[2]}, e2[3] = {c[0] - a[0], c[1] - a[1], c[2] - a[2]};
        kg_vec3_cross(fn + 3 * f, e1, e2);
        double n = kg_vec3_norm(fn + 3 * f);
        for (int k = 0; k < 3; k++) u[3 * f + k] = n > 0 ? fn[3 * f + k] / n : 0;
        for (int k = 0; k < 3; k++) start[t[3 * f + k] + 1]++;
    }
    for (int i = 0; i < nv; i++) start[i + 1] += start[i];
    memcpy(fill, start, (size_t)nv * sizeof *fill);
    for (int c = 0; c < 3 * nt; c++) adj[fill[t[c]]++] = c; /* the corners at each vertex */
    int n = 0;
    for (int i = 0; i < nv; i++) {
        const int first = n, *cs = adj + start[i], k = start[i + 1] - start[i];
        if (!k) continue;
        double m[3] = {0, 0, 0};
        for (int a = 0; a < k; a++)
            for (int c = 0; c < 3; c++) m[c] += fn[3 * (cs[a] / 3) + c];
        double len = kg_vec3_norm(m);
        int smooth = len > 0;
        for (int c = 0; c < 3 && smooth; c++) m[c] /= len;
        for (int a = 0; a < k && smooth; a++) {
            const double *ug = u + 3 * (cs[a] / 3);
            smooth = (ug[0] == 0 && ug[1] == 0 && ug[2] == 0) || kg_vec3_dot(ug, m) >= KG_GLTF_HALF_CREASE_COS;
        }
        if (smooth) { /* one vertex for all its corners */
            memcpy(*ov + 3 * n, v + 3 * i, 3 * sizeof(double));
            memcpy(*on + 3 * n, m, sizeof m);
            for (int a = 0; a < k; a++) (*ot)[cs[a]] = n;
            n++;
            continue;
        }
        if (k > KG_GLTF_MAX_CREASE_VALENCE) { /* one vertex per corner, flat */
            for (int a = 0; a < k; a++) {
                const double *uf = u + 3 * (cs[a] / 3);
                double flat[3] = {0, 0, 1};
                if (uf[0] != 0 || uf[1] != 0 || uf[2] != 0) kg_vec3_copy(flat, uf);
                memcpy(*ov + 3 * n, v + 3 * i, 3 * sizeof(double));
                memcpy(*on + 3 * n, flat, sizeof flat);
                (*ot)[cs[a]] = n++;
            }
            continue;
        }
        for (int a = 0; a < k; a++) {
            double s[3];
            {
                const double *uf = u + 3 * (cs[a] / 3);
                int flat = uf[0] == 0 && uf[1] == 0 && uf[2] == 0; /* degenerate: its neighbours' mean */
                s[0] = s[1] = s[2] = 0;
                for (int b = 0; b < k; b++) {
                    int g = cs[b] / 3;
                    if (flat || kg_vec3_dot(uf, u + 3 * g) >= KG_GLTF_CREASE_COS)
                        for (int c = 0; c < 3; c++) s[c] += fn[3 * g + c];
                }
                double l = kg_vec3_norm(s);
                if (l > 0)
                    for (int c = 0; c < 3; c++) s[c] /= l;
                else
                    s[0] = 0, s[1] = 0, s[2] = 1; /* no area around it: any unit vector */
            }
            int j = first;
            while (j < n && memcmp(*on + 3 * j, s, sizeof s)) j++;
            if (j == n) {
                memcpy(*ov + 3 * j, v + 3 * i, 3 * sizeof(double));
                memcpy(*on + 3 * j, s, sizeof s);
                n++;
            }
            (*ot)[cs[a]] = j;
        }
    }
    *onv = n;
    return 0;
}

/* One primitive: the vertices (already in the geom's frame) and triangles, with
 * normals; NULL when memory runs out (x->oom). */
static json_t *primitive(gw *x, const double *v, int nv, const int *t, int nt, int mat) {
    double *pv, *pn;
    int *pt, pnv;
    if (x->oom || with_normals(v, nv, t, nt, &pv, &pn, &pt, &pnv) != 0) return x->oom = 1, NULL;
    int pos = float_accessor(x, pv, pnv, 3, "VEC3", GL_ARRAY_BUFFER, 1);
    int nrm = float_accessor(x, pn, pnv, 3, "VEC3", GL_ARRAY_BUFFER, 0);
    size_t from = x->nbin;
    for (int i = 0; i < 3 * nt; i++) put_u32(x, (uint32_t)pt[i]);
    int idx = accessor(x, from, 3 * nt, GL_UNSIGNED_INT, "SCALAR", GL_ELEMENT_ARRAY_BUFFER, NULL, NULL);
    free(pv); /* the block holding pn and pt too */
    json_t *p = json_pack("{s:{s:i, s:i}, s:i, s:i}", "attributes", "POSITION", pos, "NORMAL", nrm, "indices", idx,
                          "mode", 4);
    if (mat >= 0) set(x, p, "material", json_integer(mat));
    return p;
}

/* The glTF mesh of a visual geom; -1 (in the ledger) when it has no triangles. */
static int geom_mesh(gw *x, int g) {
    const kg_model *m = x->m;
    const kg_geom *G = &m->geom[g];
    const double *own = G->material >= 0 && m->material[G->material].has_color ? m->material[G->material].rgba : NULL;
    json_t *prims = json_array();
    if (G->type != KG_GEOM_MESH) {
        kg_tris s = {0};
        if (kg_primitive_tris(G, &s) != 0) x->oom = 1;
        append(x, prims, primitive(x, s.v, s.nv, s.t, s.nt, own ? material(x, own) : -1));
        free(s.v), free(s.t);
    } else {
        size_t errors = kg_diags_count(x->d, KG_ERROR);
        const kg_mesh *me = G->mesh_path && !x->skip_meshes
                                ? kg_mesh_get(x->meshes, G->mesh_path, G->mesh_part, x->d, m->source, G->line)
                                : NULL;
        if (!me && kg_diags_count(x->d, KG_ERROR) > errors) x->oom = 1; /* mesh.memory */
        if (!me || me->ntri == 0) {
            if (!x->skip_meshes)
                kg_ledger_add(x->l, KG_DROPPED, "mesh", G->mesh_uri, m->source, G->line,
                              "mesh '%s' of '%s' %s: not written", G->mesh_uri ? G->mesh_uri : "",
                              m->link[G->link].name, G->mesh_path ? "cannot be read or is empty" : "did not resolve");
            json_decref(prims);
            return -1;
        }
        double *v = malloc((size_t)3 * me->nvert * sizeof *v);
        int *t = malloc((size_t)3 * me->ntri * sizeof *t), flip = G->scale[0] * G->scale[1] * G->scale[2] < 0;
        if (!v || !t) {
            free(v), free(t);
            json_decref(prims);
            x->oom = 1;
            return -1;
        }
        for (int i = 0; i < 3 * me->nvert; i++) v[i] = me->vert[i] * G->scale[i % 3];
        for (int i = 0; i < me->ntri; i++) /* a mirroring scale turns the triangles */
            t[3 * i] = me->tri[3 * i], t[3 * i + 1] = me->tri[3 * i + (flip ? 2 : 1)],
                  t[3 * i + 2] = me->tri[3 * i + (flip ? 1 : 2)];
        for (int k = 0; k < me->ngroup; k++) {
            const kg_mesh_group *gr = &me->group[k];
            const double *c = own ? own : gr->has_color ? gr->rgba : NULL;
            append(x, prims, primitive(x, v, me->nvert, t + 3 * gr->tri_first, gr->ntri, c ? material(x, c) : -1));
        }
        free(v), free(t);
    }
    append(x, x->meshes_json, json_pack("{s:o}", "primitives", prims));
    return (int)json_array_size(x->meshes_json) - 1;
}

/* ---- nodes ----------------------------------------------------------------------- */

static void set_pose(gw *x, json_t *node, const double p[3], const double r[9]) {
    double q[4];
    kg_rot_to_quat(r, q);
    if (p[0] || p[1] || p[2]) set(x, node, "translation", json_pack("[f, f, f]", p[0], p[1], p[2]));
    if (q[0] != 1) set(x, node, "rotation", json_pack("[f, f, f, f]", q[1], q[2], q[3], q[0]));
}

/* Link i's pose in its parent's frame, from the poses in d. */
static void local_pose(const kg_model *m, const kg_data *d, int i, double p[3], double r[9]) {
    const int a = m->link[i].parent;
    if (a < 0) {
        kg_vec3_copy(p, d->link_pos);
        kg_mat3_copy(r, d->link_rot);
        return;
    }
    double dp[3] = {d->link_pos[3 * i] - d->link_pos[3 * a], d->link_pos[3 * i + 1] - d->link_pos[3 * a + 1],
                    d->link_pos[3 * i + 2] - d->link_pos[3 * a + 2]};
    kg_mat3_tvec(p, d->link_rot + 9 * a, dp);
    kg_mat3_mul_at(r, d->link_rot + 9 * a, d->link_rot + 9 * i);
}

/* The link nodes (in link order, so a parent's node comes first) with their
 * geom nodes; d holds the pose they are written at. */
static void link_nodes(gw *x, const kg_data *d) {
    const kg_model *m = x->m;
    for (int i = 0; i < m->nlink; i++) {
        if (m->link[i].real >= 0) {
            x->node_of[i] = -1;
            continue;
        }
        json_t *node = json_pack("{s:s}", "name", m->link[i].name);
        double p[3], r[9];
        local_pose(m, d, i, p, r);
        set_pose(x, node, p, r);
        append(x, x->nodes, node);
        x->node_of[i] = (int)json_array_size(x->nodes) - 1;
        if (i > 0) {
            json_t *parent = json_array_get(x->nodes, (size_t)x->node_of[m->link[i].parent]), *ch = json_object_get(parent, "children");
            if (!ch) set(x, parent, "children", ch = json_array());
            append(x, ch, json_integer(x->node_of[i]));
        }
    }
    for (int g = 0; g < m->ngeom; g++) {
        const kg_geom *G = &m->geom[g];
        if (G->role != KG_VISUAL) continue;
        int mesh = geom_mesh(x, g);
        if (mesh < 0) continue;
        /* any length: a name cut to a fixed buffer could end inside a UTF-8 character */
        size_t n = strlen(m->link[G->link].name) + 32;
        char *name = malloc(n);
        json_t *node = NULL;
        if (name) {
            snprintf(name, n, "%s.visual%d", m->link[G->link].name, g - m->link[G->link].geom_first);
            node = json_pack("{s:s, s:i}", "name", name, "mesh", mesh);
            free(name);
        }
        set_pose(x, node, G->pos, G->rot);
        append(x, x->nodes, node);
        json_t *parent = json_array_get(x->nodes, (size_t)x->node_of[G->link]), *ch = json_object_get(parent, "children");
        if (!ch) set(x, parent, "children", ch = json_array());
        append(x, ch, json_integer((int)json_array_size(x->nodes) - 1));
    }
}

/* ---- the animation --------------------------------------------------------------- */

/* Translation and rotation samplers and channels for the links that move. */
static void animation(gw *x, const kg_motion *mo) {
    const kg_model *m = x->m;
    const int n = mo->nframes;
    kg_data *d = kg_data_new(m);
    double *t = malloc((size_t)n * sizeof *t), *pos = malloc((size_t)n * m->nlink * 3 * sizeof *pos),
           *rot = malloc((size_t)n * m->nlink * 4 * sizeof *rot);
    if (!d || !t || !pos || !rot) {
        free(t), free(pos), free(rot);
        kg_data_free(d);
        x->oom = 1;
        return;
    }
    for (int f = 0; f < n; f++) {
        t[f] = f * mo->frame_time;
        kg_motion_pose(mo, f, d);
        kg_fk(m, d);
        for (int i = 0; i < m->nlink; i++) {
            double p[3], r[9], q[4], *o = rot + ((size_t)i * n + f) * 4;
            local_pose(m, d, i, p, r);
            kg_rot_to_quat(r, q);
            const double *prev = f ? o - 4 : NULL; /* same hemisphere as the previous key */
            double s = prev && q[1] * prev[0] + q[2] * prev[1] + q[3] * prev[2] + q[0] * prev[3] < 0 ? -1 : 1;
            o[0] = s * q[1], o[1] = s * q[2], o[2] = s * q[3], o[3] = s * q[0];
            kg_vec3_copy(pos + ((size_t)i * n + f) * 3, p);
        }
    }
    int input = float_accessor(x, t, n, 1, "SCALAR", 0, 1);
    json_t *samplers = json_array(), *channels = json_array();
    for (int i = 0; i < m->nlink; i++) {
        if (x->node_of[i] < 0) continue;
        int moves = i == 0 ? mo->base != NULL : m->joint[m->link[i].joint].nv > 0;
        if (!moves) continue;
        int tr = float_accessor(x, pos + (size_t)i * n * 3, n, 3, "VEC3", 0, 0);
        int ro = float_accessor(x, rot + (size_t)i * n * 4, n, 4, "VEC4", 0, 0);
        for (int k = 0; k < 2; k++) {
            append(x, samplers, json_pack("{s:i, s:i, s:s}", "input", input, "output", k ? ro : tr,
                                                      "interpolation", "LINEAR"));
            append(x, channels, json_pack("{s:i, s:{s:i, s:s}}", "sampler", (int)json_array_size(samplers) - 1,
                                                      "target", "node", x->node_of[i], "path",
                                                      k ? "rotation" : "translation"));
        }
    }
    if (json_array_size(channels))
        set(x, x->root, "animations",
                            json_pack("[{s:s, s:o, s:o}]", "name", "motion", "samplers", samplers, "channels", channels));
    else
        json_decref(samplers), json_decref(channels);
    free(t), free(pos), free(rot);
    kg_data_free(d);
}

/* ---- the ledger ------------------------------------------------------------------ */

static void ledger(gw *x) {
    const kg_model *m = x->m;
    const char *f = m->source;
    for (int i = 0; i < m->nlink; i++)
        if (m->link[i].has_inertial)
            kg_ledger_add(x->l, KG_DROPPED, "inertial", m->link[i].name, f, m->link[i].line, "glTF holds no mass");
    for (int j = 0; j < m->njoint; j++)
        if (m->joint[j].nq > 0 || m->joint[j].has_limit || m->joint[j].has_dynamics)
            kg_ledger_add(x->l, KG_DROPPED, "joint", m->joint[j].name, f, m->joint[j].line,
                          "glTF nodes have poses, not joints: its type, axis, limits and dynamics are not written");
    for (int k = 0; k < m->nmimic; k++)
        kg_ledger_add(x->l, KG_DROPPED, "mimic", m->joint[m->mimic[k].follower].name, f, m->mimic[k].line,
                      "glTF holds no couplings (the animated poses follow them)");
    for (int k = 0; k < m->nloop; k++)
        kg_ledger_add(x->l, KG_DROPPED, "loop", m->joint[m->loop[k].cut_joint].name, f,
                      m->joint[m->loop[k].cut_joint].line, "glTF is a node tree: the virtual link is not written");
    for (int g = 0; g < m->ngeom; g++)
        if (m->geom[g].role == KG_COLLISION)
            kg_ledger_add(x->l, KG_DROPPED, "collision", m->link[m->geom[g].link].name, f, m->geom[g].line,
                          "glTF is for looking at: collision geometry is not written");
    for (int k = 0; k < m->nmaterial; k++)
        if (m->material[k].texture)
            kg_ledger_add(x->l, KG_DROPPED, "texture", m->material[k].texture, f, m->material[k].line,
                          "textures are not written (the material's colour is)");
    for (int k = 0; k < m->nend_effector; k++)
        kg_ledger_add(x->l, KG_DROPPED, "end_effector", m->end_effector[k].name, f, m->end_effector[k].line,
                      "glTF has no end effectors");
    for (int k = 0; k < m->ncollision_ignore; k++)
        kg_ledger_add(x->l, KG_DROPPED, "collision_ignore", m->link[m->collision_ignore[k].a].name, f,
                      m->collision_ignore[k].line, "glTF has no collision pairs");
    for (int k = 0; k < m->nextra; k++)
        kg_ledger_add(x->l, KG_DROPPED, m->extra[k].kind, m->extra[k].name, f, m->extra[k].line,
                      "glTF has no place for <%s>", m->extra[k].kind);
}

/* ---- the file -------------------------------------------------------------------- */

static int is_glb(const char *path) {
    size_t n = path ? strlen(path) : 0;
    return !(n > 5 && !strcasecmp(path + n - 5, ".gltf"));
}

/* .gltf: the buffer goes to "<stem>.bin" beside it (atomically too). */
static int write_bin_beside(gw *x, const char *path, json_t *buffer) {
    const char *slash = strrchr(path, '/'), *base = slash ? slash + 1 : path;
    char file[4200], rel[1100];
    snprintf(rel, sizeof rel, "%.*s.bin", (int)(strrchr(base, '.') ? strrchr(base, '.') - base : (long)strlen(base)), base);
    snprintf(file, sizeof file, "%.*s%s", slash ? (int)(slash - path + 1) : 0, path, rel);
    kg_out out;
    if (kg_out_open(&out, file) != 0 && errno == ENOMEM) return x->oom = 1, -1;
    if (!out.f || fwrite(x->bin, 1, x->nbin, out.f) != x->nbin || kg_out_commit(&out) != 0) {
        if (out.f) kg_out_abort(&out);
        kg_diag_add(x->d, KG_ERROR, "io.write", file, 0, NULL, "cannot write '%s'", file);
        return -1;
    }
    if (kg_files_add(x->companions, file) != 0) return x->oom = 1, -1; /* removed: kg_save says io.memory */
    set(x, buffer, "uri", json_string(rel));
    return 0;
}

static int write_file(gw *x, const kg_export_options *o, FILE *f) {
    while (x->nbin % 4) put(x, "", 1);
    json_t *buffer = json_pack("{s:I}", "byteLength", (json_int_t)x->nbin);
    const char *path = o ? o->path : NULL;
    int glb = is_glb(path);
    if (!glb && write_bin_beside(x, path, buffer) != 0) {
        json_decref(buffer);
        return -1;
    }
    if (x->nbin) set(x, x->root, "buffers", json_pack("[o]", buffer));
    else json_decref(buffer);
    char *text = json_dumps(x->root, JSON_COMPACT | JSON_REAL_PRECISION(9));
    if (!text) return x->oom = 1, -1; /* jansson's memory */
    size_t n = strlen(text), pad = (4 - n % 4) % 4;
    if (!glb) {
        fwrite(text, 1, n, f);
    } else { /* header, JSON chunk (padded with spaces), BIN chunk (padded with zeros) */
        gw h = {0};
        size_t total = 12 + 8 + n + pad + (x->nbin ? 8 + x->nbin : 0);
        put_u32(&h, 0x46546C67), put_u32(&h, 2), put_u32(&h, (uint32_t)total);
        put_u32(&h, (uint32_t)(n + pad)), put_u32(&h, 0x4E4F534A);
        if (h.oom) { /* the header's 1 kB */
            free(text);
            return x->oom = 1, -1;
        }
        fwrite(h.bin, 1, h.nbin, f);
        fwrite(text, 1, n, f);
        fwrite("   ", 1, pad, f);
        if (x->nbin) {
            h.nbin = 0;
            put_u32(&h, (uint32_t)x->nbin), put_u32(&h, 0x004E4942);
            fwrite(h.bin, 1, h.nbin, f);
            fwrite(x->bin, 1, x->nbin, f);
        }
        free(h.bin);
    }
    free(text);
    return ferror(f) ? -1 : 0;
}

int kg_export_gltf(const kg_model *m, const kg_motion *mo, const kg_export_options *o, FILE *f, kg_ledger *l,
                   kg_diags *d) {
    kg_mesh_cache *own = o && o->meshes ? NULL : kg_mesh_cache_new();
    gw x = {.m = m, .l = l, .d = d, .meshes = own ? own : o ? o->meshes : NULL, .skip_meshes = o && o->skip_meshes,
            .companions = o ? o->companions : NULL};
    x.node_of = malloc(((size_t)m->nlink + 1) * sizeof *x.node_of);
    kg_data *d0 = kg_data_new(m);
    if (!x.meshes || !x.node_of || !d0) {
        free(x.node_of);
        kg_data_free(d0);
        kg_mesh_cache_free(own);
        return kg_export_oom(o, d);
    }
    if (!x.skip_meshes) (void)kg_mesh_cache_preload_model(x.meshes, m, KG_VISUAL, 1); /* out of memory: read when asked */
    x.root = json_pack("{s:{s:s, s:s}}", "asset", "version", "2.0", "generator", "kinegraph");
    set(&x, x.root, "nodes", x.nodes = json_array());
    set(&x, x.root, "meshes", x.meshes_json = json_array());
    set(&x, x.root, "materials", x.materials = json_array());
    set(&x, x.root, "accessors", x.accessors = json_array());
    set(&x, x.root, "bufferViews", x.views = json_array());
    if (mo && mo->nframes > 0) kg_motion_pose(mo, 0, d0);
    kg_fk(m, d0);
    /* a Z-up robot under a node that makes it Y-up (see the top of the file) */
    int z_up = strcmp(m->format ? m->format : "", "bvh") != 0;
    if (z_up) append(&x, x.nodes, json_pack("{s:s, s:[f, f, f, f], s:[i]}", "name", "z_up", "rotation",
                                                       -sqrt(0.5), 0.0, 0.0, sqrt(0.5), "children", 1));
    link_nodes(&x, d0);
    kg_data_free(d0);
    set(&x, x.root, "scene", json_integer(0));
    set(&x, x.root, "scenes", json_pack("[{s:s, s:[i]}]", "name", m->name ? m->name : "model", "nodes", 0));
    if (mo && mo->nframes > 1) animation(&x, mo);
    ledger(&x);
    static const char *const empty[] = {"meshes", "materials", "accessors", "bufferViews"};
    for (int k = 0; k < 4; k++) /* glTF wants no empty arrays */
        if (!json_array_size(json_object_get(x.root, empty[k]))) json_object_del(x.root, empty[k]);
    int rc = x.oom ? -1 : write_file(&x, o, f); /* nothing beside it when it cannot be whole */
    json_decref(x.root);
    free(x.bin), free(x.node_of), free(x.mat_rgba);
    kg_mesh_cache_free(own);
    return x.oom ? kg_export_oom(o, d) : rc;
}
