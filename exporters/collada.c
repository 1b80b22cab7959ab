/* COLLADA 1.5 exporter: kinematics, articulated systems, physics, a visual scene
 * bound to the kinematics, and what COLLADA has no element for in extras.
 *
 * Names are kept in `name` attributes; ids and sids are generated (n<i> nodes,
 * l<i> links, j<j> joints, rb<i> rigid bodies), since model names need not be
 * valid XML ids. Units: metres; revolute limits, speeds and accelerations in
 * degrees as COLLADA wants. The parameter chain from the scene to the joint axes
 * follows OpenRAVE's writer (kinematics system -> motion system -> kinematics
 * scene -> bind_joint_axis), so OpenRAVE-style readers find them.
 *
 *   fixed joint       a revolute axis with limits 0..0, locked and inactive (COLLADA
 *                     has no fixed joint); read back as fixed
 *   planar joint      a joint of two prismatic axes and one revolute (exact)
 *   floating joint    three prismatic and three revolute axes x, y, z
 *                     (approximated: Euler angles, not a quaternion)
 *   compound joint    a joint with several axes; rest values are not kept
 *   loop              attachment_start on the cut joint's parent, attachment_end on
 *                     the link it closes onto
 *   mimic             a formula target = a * leader + b, in COLLADA units
 *   velocity, acceleration  the motion system's speed and acceleration
 *   effort, damping, friction, safety controller, calibration
 *                     <joint><extra type="kinegraph"> (SI units), not <acceleration>
 *   inertial          rigid body: mass, mass_frame (the COM, principal axes) in the
 *                     root link's frame at zero joint values (as OpenRAVE and ROS write
 *                     and read it; instance_physics_model's parent is the root's node),
 *                     inertia (principal moments); a diagonal declared tensor keeps its frame
 *   collision boxes, spheres, cylinders, capsules
 *                     rigid-body shapes (exact), placed like mass_frame
 *   URDF extras (transmission, gazebo, ...)
 *                     <kinematics_model><extra type=KIND><technique profile="URDF">
 *   visual geometry   a node under its link's node instancing a <geometry>;
 *                     materials as effects with their diffuse colour
 *   collision meshes  rigid-body shapes instancing a <geometry>
 *   mass, no collision the schema wants a <shape> in every rigid body: one shape
 *                     instancing an empty <geometry> (no vertices, no triangles),
 *                     marked <placeholder/> in a kinegraph extra and read back as
 *                     no geometry; other readers find nothing to collide with
 *   meshes            the file read through assimp (formats/mesh.h), its triangles
 *                     written in the geometry, scaled, with the file's own
 *                     materials; <extra type="kinegraph"> keeps the reference as
 *                     written and the scale, so a kinegraph reader gets them back
 *   visual primitives triangulated (COLLADA geometry has no primitives), the exact
 *                     primitive in <extra type="kinegraph">
 *   motion            an animation per joint axis of the visual scene (degrees or
 *                     lengths, LINEAR between frames; free joints as x, y, z and
 *                     Euler angles about x, y, z, continuous), the base pose as
 *                     the root node's matrix, and one animation clip
 * Dropped (in the ledger): textures (kept in a kinegraph extra), meshes that
 * cannot be read (their geometry is empty but keeps the reference). */
#include <libxml/xmlwriter.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/fk.h"
#include "core/spatial.h"
#include "exporters/exporters.h"
#include "exporters/primitives.h"
#include "formats/mesh.h"
#include "formats/limits.h"
#include "formats/number.h"
#include "kinegraph/version.h"

/* A <geometry> written once and instanced by every geom with the same source. */
typedef struct cgeom {
    const kg_geom *first; /* the geom that defined it */
    const kg_mesh *mesh;  /* NULL: a primitive, or a mesh that could not be read */
} cgeom;

typedef struct cw {
    xmlTextWriterPtr w;
    const kg_model *m;
    kg_ledger *l;
    kg_diags *d;
    kg_mesh_cache *meshes;
    int skip_meshes;   /* dry run: meshes are not read (kg_export_options) */
    cgeom *geoms;
    int ngeoms;
    int *geom_of; /* model geom -> index in geoms */
    const kg_motion *mo;
    char *buf;    /* number arrays are built here */
    size_t cap;
    int *first, *next; /* children of each link (virtual ones too), in link order; -1 ends */
    int placeholder;   /* index of the empty <geometry> of mass-only bodies' shapes; -1: none */
    int oom;           /* memory ran out: what is written from then on is dropped, and the export fails */
} cw;

/* The children lists, in one pass (a scan per link is quadratic); returns the
 * depth of the deepest link (0 and x->oom set when memory runs out). */
static int children(cw *x) {
    const kg_model *m = x->m;
    x->first = malloc(((size_t)m->nlink + 1) * sizeof *x->first);
    x->next = malloc(((size_t)m->nlink + 1) * sizeof *x->next);
    int *depth = calloc((size_t)m->nlink + 1, sizeof *depth), deepest = 0;
    if (!x->first || !x->next || !depth) {
        free(depth);
        x->oom = 1;
        return 0;
    }
    for (int i = 0; i < m->nlink; i++) x->first[i] = x->next[i] = -1;
    for (int c = m->nlink - 1; c > 0; c--) {
        int p = m->link[c].parent;
        if (p < 0) continue;
        x->next[c] = x->first[p];
        x->first[p] = c;
    }
    for (int c = 1; c < m->nlink; c++) { /* parents come before their children */
        if (m->link[c].parent >= 0) depth[c] = depth[m->link[c].parent] + 1;
        if (depth[c] > deepest) deepest = depth[c];
    }
    free(depth);
    return deepest;
}

static void start(cw *x, const char *e) { xmlTextWriterStartElement(x->w, BAD_CAST e); }
static void end(cw *x) { xmlTextWriterEndElement(x->w); }
static void attr(cw *x, const char *n, const char *v) { xmlTextWriterWriteAttribute(x->w, BAD_CAST n, BAD_CAST v); }
static void attrf(cw *x, const char *n, const char *fmt, int i) {
    char b[64];
    snprintf(b, sizeof b, fmt, i);
    attr(x, n, b);
}
static void text(cw *x, const char *e, const char *t) {
    xmlTextWriterWriteElement(x->w, BAD_CAST e, BAD_CAST t);
}

static void nums(cw *x, const char *e, const double *v, int n) {
    char out[400] = "", b[32];
    for (int i = 0; i < n; i++) {
        strcat(out, kg_format_number(b, v[i]));
        if (i + 1 < n) strcat(out, " ");
    }
    text(x, e, out);
}

static void num(cw *x, const char *e, double v) { nums(x, e, &v, 1); }

/* <translate> and <rotate> (axis, degrees) of a pose; an identity writes
 * translate 0 0 0 (some elements need at least one transform). */
static void pose_elements(cw *x, const double p[3], const double r[9]) {
    nums(x, "translate", p, 3);
    double w[3];
    kg_rot_log(r, w);
    double angle = kg_vec3_norm(w);
    if (angle > 0) {
        double v[4] = {w[0] / angle, w[1] / angle, w[2] / angle, angle * 180 / KG_PI};
        nums(x, "rotate", v, 4);
    }
}

/* COLLADA units of a one-coordinate joint: degrees or metres per SI unit. */
static double to_collada(const kg_joint *j) { return j->type == KG_JOINT_PRISMATIC ? 1 : 180 / KG_PI; }

/* The axes a joint is written with: up to 6 of (prismatic?, direction, limits). */
typedef struct axis_out {
    int prismatic, has_limit;
    double dir[3], lo, hi;
} axis_out;

/* report: add ledger entries (once per joint: the joints library asks first) */
static int axes_of(cw *x, const kg_joint *J, axis_out *a, int report) {
    kg_ledger *ledger = report ? x->l : NULL;
    const kg_model *m = x->m;
    memset(a, 0, 6 * sizeof *a);
    switch (J->type) {
    case KG_JOINT_FIXED:
        a[0].dir[2] = 1;
        a[0].has_limit = 1; /* 0..0, locked */
        return 1;
    case KG_JOINT_REVOLUTE:
    case KG_JOINT_CONTINUOUS:
    case KG_JOINT_PRISMATIC:
        a[0].prismatic = J->type == KG_JOINT_PRISMATIC;
        kg_vec3_copy(a[0].dir, J->axis);
        if (kg_joint_is_limited(J) && isfinite(J->lower) && isfinite(J->upper)) {
            a[0].has_limit = 1;
            a[0].lo = J->lower * to_collada(J);
            a[0].hi = J->upper * to_collada(J);
        }
        return 1;
    case KG_JOINT_PLANAR: { /* the plane's two directions, then the normal */
        const kg_kin *k = &m->kin[J->child];
        double u[3], v[3];
        kg_mat3_tvec(u, J->rot, k->u0);
        kg_mat3_tvec(v, J->rot, k->v0);
        a[0].prismatic = a[1].prismatic = 1;
        kg_vec3_copy(a[0].dir, u);
        kg_vec3_copy(a[1].dir, v);
        kg_vec3_copy(a[2].dir, J->axis);
        return 3;
    }
    case KG_JOINT_FLOATING:
        kg_ledger_add(ledger, KG_APPROXIMATED, "joint", J->name, m->source, J->line,
                      "COLLADA has no free joint: written as three prismatic and three revolute axes x, y, z "
                      "(Euler angles instead of a quaternion)");
        for (int i = 0; i < 6; i++) {
            a[i].prismatic = i < 3;
            a[i].dir[i % 3] = 1;
        }
        return 6;
    case KG_JOINT_COMPOUND:
        for (int i = 0; i < J->naxis && i < 6; i++) {
            const kg_axis *ax = &m->axis[J->axis_first + i];
            a[i].prismatic = ax->kind == KG_AXIS_TRANSLATION;
            kg_vec3_copy(a[i].dir, ax->dir);
            if (ax->has_limit) {
                a[i].has_limit = 1;
                double s = a[i].prismatic ? 1 : 180 / KG_PI;
                a[i].lo = ax->lower * s;
                a[i].hi = ax->upper * s;
            }
            if (ax->rest != 0)
                kg_ledger_add(ledger, KG_DROPPED, "coordinate", ax->label, m->source, J->line,
                              "COLLADA joints have no rest value: the rest value %.17g of '%s' of joint '%s' is not written",
                              ax->rest, ax->label, J->name);
        }
        return J->naxis < 6 ? J->naxis : 6;
    }
    return 0;
}


/* ---- geometry ----------------------------------------------------------------- */

/* Appends to x->buf at *len, growing it. */
static char *reserve(cw *x, size_t len, size_t more) {
    if (len + more + 1 > x->cap) {
        size_t nc = x->cap ? x->cap : 4096;
        while (nc < len + more + 1) nc *= 2;
        char *b = realloc(x->buf, nc);
        if (!b) return x->oom = 1, NULL;
        x->buf = b;
        x->cap = nc;
    }
    return x->buf + len;
}

/* <float_array> of n values, as floats (mesh data) or doubles. */
static void float_array(cw *x, const char *id, const double *v, int n, int as_float) {
    size_t len = 0;
    for (int i = 0; i < n; i++) {
        char *o = reserve(x, len, 34);
        if (!o) break;
        if (as_float) len += (size_t)kg_format_float(o, (float)v[i]);
        else len += strlen(kg_format_number(o, v[i]));
        x->buf[len++] = i + 1 < n ? ' ' : 0;
    }
    if (!reserve(x, len, 1)) return;
    x->buf[n ? len - 1 : 0] = 0;
    start(x, "float_array");
    attr(x, "id", id);
    attrf(x, "count", "%d", n);
    xmlTextWriterWriteRaw(x->w, BAD_CAST x->buf);
    end(x);
}

static void int_list(cw *x, const int *v, int n) {
    size_t len = 0;
    for (int i = 0; i < n; i++) {
        char *o = reserve(x, len, 12), t[12];
        if (!o) break;
        unsigned u = (unsigned)v[i];
        int k = 0;
        do t[k++] = (char)('0' + u % 10); while (u /= 10);
        while (k) x->buf[len++] = t[--k];
        x->buf[len++] = ' ';
    }
    if (!reserve(x, len, 1)) return;
    x->buf[len ? len - 1 : 0] = 0;
    start(x, "p");
    xmlTextWriterWriteRaw(x->w, BAD_CAST x->buf);
    end(x);
}

/* Does geom b have the same source as geom a (and so share its <geometry>)? */
static int same_source(const kg_geom *a, const kg_geom *b) {
    if (a->type != b->type) return 0;
    if (a->type != KG_GEOM_MESH) return !memcmp(a->size, b->size, sizeof a->size);
    if (memcmp(a->scale, b->scale, sizeof a->scale)) return 0;
    if ((a->mesh_uri == NULL) != (b->mesh_uri == NULL) || (a->mesh_uri && strcmp(a->mesh_uri, b->mesh_uri))) return 0;
    if ((a->mesh_path == NULL) != (b->mesh_path == NULL) || (a->mesh_path && strcmp(a->mesh_path, b->mesh_path))) return 0;
    return (a->mesh_part == NULL) == (b->mesh_part == NULL) && (!a->mesh_part || !strcmp(a->mesh_part, b->mesh_part));
}

/* One <geometry> per distinct source; meshes are read here. x->oom when
 * memory runs out (a mesh's too). */
static void collect_geometry(cw *x) {
    const kg_model *m = x->m;
    x->geoms = calloc((size_t)m->ngeom + 1, sizeof *x->geoms);
    x->geom_of = calloc((size_t)m->ngeom + 1, sizeof *x->geom_of);
    if (!x->geoms || !x->geom_of) {
        x->oom = 1;
        return;
    }
    if (!x->skip_meshes) (void)kg_mesh_cache_preload_model(x->meshes, m, -1, 1); /* out of memory: read when asked */
    for (int g = 0; g < m->ngeom; g++) {
        const kg_geom *G = &m->geom[g];
        int k = 0;
        while (k < x->ngeoms && !same_source(x->geoms[k].first, G)) k++;
        x->geom_of[g] = k;
        if (k == x->ngeoms) {
            cgeom *c = &x->geoms[x->ngeoms++];
            c->first = G;
            if (G->type == KG_GEOM_MESH && G->mesh_path && !x->skip_meshes) {
                size_t errors = kg_diags_count(x->d, KG_ERROR);
                c->mesh = kg_mesh_get(x->meshes, G->mesh_path, G->mesh_part, x->d, m->source, G->line);
                if (!c->mesh && kg_diags_count(x->d, KG_ERROR) > errors) { /* mesh.memory */
                    x->oom = 1;
                    return;
                }
                if (c->mesh && c->mesh->nskipped)
                    kg_ledger_add(x->l, KG_DROPPED, "mesh", G->mesh_uri, m->source, G->line,
                                  "%d point and line primitives of mesh '%s' are not written", c->mesh->nskipped,
                                  G->mesh_uri ? G->mesh_uri : "");
            }
        }
        if (G->type == KG_GEOM_MESH && !x->geoms[k].mesh && !(x->skip_meshes && G->mesh_path))
            kg_ledger_add(x->l, KG_DROPPED, kg_geom_role_name(G->role), m->link[G->link].name, m->source, G->line,
                          "mesh '%s' %s: its geometry is written empty, keeping the reference",
                          G->mesh_uri ? G->mesh_uri : "", G->mesh_path ? "cannot be read" : "does not resolve");
    }
}

/* The exact source, for kinegraph readers: the mesh reference or the primitive. */
static void geometry_extra(cw *x, const kg_geom *G) {
    char b[3][32], t[100];
    start(x, "extra");
    attr(x, "type", "kinegraph");
    start(x, "technique");
    attr(x, "profile", "kinegraph");
    start(x, kg_geom_type_name(G->type));
    switch (G->type) {
    case KG_GEOM_MESH:
        attr(x, "uri", G->mesh_uri ? G->mesh_uri : "");
        if (G->mesh_part) attr(x, "part", G->mesh_part);
        snprintf(t, sizeof t, "%s %s %s", kg_format_number(b[0], G->scale[0]), kg_format_number(b[1], G->scale[1]),
                 kg_format_number(b[2], G->scale[2]));
        attr(x, "scale", t);
        break;
    case KG_GEOM_BOX:
        snprintf(t, sizeof t, "%s %s %s", kg_format_number(b[0], G->size[0]), kg_format_number(b[1], G->size[1]),
                 kg_format_number(b[2], G->size[2]));
        attr(x, "size", t);
        break;
    case KG_GEOM_SPHERE:
        attr(x, "radius", kg_format_number(b[0], G->size[0]));
        break;
    default: /* cylinder, capsule */
        attr(x, "radius", kg_format_number(b[0], G->size[0]));
        attr(x, "length", kg_format_number(b[1], G->size[1]));
        break;
    }
    end(x);
    end(x);
    end(x);
}

static void mesh_element(cw *x, int k, const double *v, int nv, const int *t, const kg_mesh_group *group, int ngroup,
                         int ntri) {
    char id[64], src[64];
    start(x, "mesh");
    snprintf(id, sizeof id, "g%d_pos", k);
    start(x, "source");
    attr(x, "id", id);
    snprintf(src, sizeof src, "g%d_pos_array", k);
    float_array(x, src, v, 3 * nv, 1);
    start(x, "technique_common");
    start(x, "accessor");
    snprintf(src, sizeof src, "#g%d_pos_array", k);
    attr(x, "source", src);
    attrf(x, "count", "%d", nv);
    attr(x, "stride", "3");
    for (int a = 0; a < 3; a++) {
        start(x, "param");
        attr(x, "name", a == 0 ? "X" : a == 1 ? "Y" : "Z");
        attr(x, "type", "float");
        end(x);
    }
    end(x);
    end(x);
    end(x);
    start(x, "vertices");
    snprintf(id, sizeof id, "g%d_vtx", k);
    attr(x, "id", id);
    start(x, "input");
    attr(x, "semantic", "POSITION");
    snprintf(src, sizeof src, "#g%d_pos", k);
    attr(x, "source", src);
    end(x);
    end(x);
    kg_mesh_group all = {0, ntri, NULL, 0, {0, 0, 0, 0}};
    if (!ngroup && ntri) group = &all, ngroup = 1;
    for (int gi = 0; gi < ngroup; gi++) {
        start(x, "triangles");
        attrf(x, "count", "%d", group[gi].ntri);
        attrf(x, "material", "s%d", gi);
        start(x, "input");
        attr(x, "semantic", "VERTEX");
        snprintf(src, sizeof src, "#g%d_vtx", k);
        attr(x, "source", src);
        attr(x, "offset", "0");
        end(x);
        int_list(x, t + 3 * group[gi].tri_first, 3 * group[gi].ntri);
        end(x);
    }
    end(x);
}

/* Mesh vertices with the geom's scale (which may mirror: then the triangles turn). */
static void library_geometries(cw *x) {
    if (x->ngeoms == 0 && x->placeholder < 0) return; /* the schema wants at least one <geometry> */
    start(x, "library_geometries");
    if (x->placeholder >= 0) {
        start(x, "geometry");
        attrf(x, "id", "g%d", x->placeholder);
        attr(x, "name", "placeholder");
        mesh_element(x, x->placeholder, NULL, 0, NULL, NULL, 0, 0);
        end(x);
    }
    for (int k = 0; k < x->ngeoms; k++) {
        const cgeom *c = &x->geoms[k];
        const kg_geom *G = c->first;
        start(x, "geometry");
        attrf(x, "id", "g%d", k);
        if (G->type == KG_GEOM_MESH) {
            const char *u = G->mesh_part ? G->mesh_part : G->mesh_uri ? G->mesh_uri : "";
            attr(x, "name", strrchr(u, '/') ? strrchr(u, '/') + 1 : u);
        } else {
            attr(x, "name", kg_geom_type_name(G->type));
        }
        if (G->type == KG_GEOM_MESH && c->mesh) {
            const kg_mesh *me = c->mesh;
            double *v = malloc((size_t)me->nvert * 3 * sizeof *v + 1);
            int *t = malloc((size_t)me->ntri * 3 * sizeof *t + 1);
            if (!v || !t) {
                free(v), free(t);
                x->oom = 1;
                end(x);
                break;
            }
            for (int i = 0; i < 3 * me->nvert; i++) v[i] = me->vert[i] * G->scale[i % 3];
            int flip = G->scale[0] * G->scale[1] * G->scale[2] < 0;
            for (int i = 0; i < me->ntri; i++) {
                t[3 * i] = me->tri[3 * i];
                t[3 * i + 1] = me->tri[3 * i + (flip ? 2 : 1)];
                t[3 * i + 2] = me->tri[3 * i + (flip ? 1 : 2)];
            }
            mesh_element(x, k, v, me->nvert, t, me->group, me->ngroup, me->ntri);
            free(v);
            free(t);
        } else {
            kg_tris s = {0};
            if (G->type != KG_GEOM_MESH && kg_primitive_tris(G, &s) != 0) x->oom = 1;
            mesh_element(x, k, s.v, s.nv, s.t, NULL, 0, s.nt);
            free(s.v);
            free(s.t);
        }
        geometry_extra(x, G);
        end(x);
    }
    end(x);
}

/* Materials: the model's (mat<k>), and each mesh's own per group (g<k>_s<i>). */
static void effect(cw *x, const char *id, const double rgba[4]) {
    start(x, "effect");
    attr(x, "id", id);
    start(x, "profile_COMMON");
    start(x, "technique");
    attr(x, "sid", "common");
    start(x, "phong");
    start(x, "diffuse");
    nums(x, "color", rgba, 4);
    end(x);
    end(x);
    end(x);
    end(x);
    end(x);
}

static void library_materials(cw *x) {
    const kg_model *m = x->m;
    static const double grey[4] = {0.8, 0.8, 0.8, 1};
    char id[64], url[64];
    int ngroups = 0;
    for (int k = 0; k < x->ngeoms; k++)
        for (int i = 0; x->geoms[k].mesh && i < x->geoms[k].mesh->ngroup; i++)
            ngroups += x->geoms[k].mesh->group[i].material || x->geoms[k].mesh->group[i].has_color;
    if (m->nmaterial == 0 && ngroups == 0) return; /* the schema wants at least one <effect>, one <material> */
    start(x, "library_effects");
    for (int k = 0; k < m->nmaterial; k++) {
        snprintf(id, sizeof id, "mat%d_fx", k);
        effect(x, id, m->material[k].has_color ? m->material[k].rgba : grey);
    }
    for (int k = 0; k < x->ngeoms; k++)
        for (int i = 0; x->geoms[k].mesh && i < x->geoms[k].mesh->ngroup; i++) {
            const kg_mesh_group *g = &x->geoms[k].mesh->group[i];
            if (!g->material && !g->has_color) continue;
            snprintf(id, sizeof id, "g%d_s%d_fx", k, i);
            effect(x, id, g->has_color ? g->rgba : grey);
        }
    end(x);
    start(x, "library_materials");
    for (int k = 0; k < m->nmaterial; k++) {
        const kg_material *M = &m->material[k];
        start(x, "material");
        attrf(x, "id", "mat%d", k);
        attr(x, "name", M->name);
        start(x, "instance_effect");
        snprintf(url, sizeof url, "#mat%d_fx", k);
        attr(x, "url", url);
        end(x);
        start(x, "extra"); /* a material of the model, not of a mesh file */
        attr(x, "type", "kinegraph");
        start(x, "technique");
        attr(x, "profile", "kinegraph");
        start(x, "model_material");
        if (M->texture) attr(x, "texture", M->texture);
        end(x);
        end(x);
        end(x);
        end(x);
        if (M->texture)
            kg_ledger_add(x->l, KG_DROPPED, "texture", M->name, m->source, M->line,
                          "texture '%s' of material '%s' is not written (its colour is)", M->texture, M->name);
    }
    for (int k = 0; k < x->ngeoms; k++)
        for (int i = 0; x->geoms[k].mesh && i < x->geoms[k].mesh->ngroup; i++) {
            const kg_mesh_group *g = &x->geoms[k].mesh->group[i];
            if (!g->material && !g->has_color) continue;
            start(x, "material");
            snprintf(id, sizeof id, "g%d_s%d", k, i);
            attr(x, "id", id);
            if (g->material) attr(x, "name", g->material);
            start(x, "instance_effect");
            snprintf(url, sizeof url, "#g%d_s%d_fx", k, i);
            attr(x, "url", url);
            end(x);
            end(x);
        }
    end(x);
}

/* <instance_geometry> with its material bindings, as rviz shows a mesh: each
 * group in the mesh file's own material when it has one, else in the geom's. */
static void instance_geometry(cw *x, int g) {
    const kg_model *m = x->m;
    const kg_geom *G = &m->geom[g];
    int k = x->geom_of[g];
    const cgeom *c = &x->geoms[k];
    char url[64];
    start(x, "instance_geometry");
    snprintf(url, sizeof url, "#g%d", k);
    attr(x, "url", url);
    int ngroup = c->mesh && c->mesh->ngroup ? c->mesh->ngroup : 1, bound = 0;
    for (int pass = 0; pass < 2; pass++) {
        for (int i = 0; i < ngroup; i++) {
            const kg_mesh_group *mg = c->mesh && c->mesh->ngroup ? &c->mesh->group[i] : NULL;
            int own = mg && (mg->material || mg->has_color);
            if (!own && G->material < 0) continue;
            if (!pass) {
                bound++;
                continue;
            }
            start(x, "instance_material");
            attrf(x, "symbol", "s%d", i);
            if (own) snprintf(url, sizeof url, "#g%d_s%d", k, i);
            else snprintf(url, sizeof url, "#mat%d", G->material);
            attr(x, "target", url);
            end(x);
        }
        if (!bound) break;
        if (!pass) {
            start(x, "bind_material");
            start(x, "technique_common");
        } else {
            end(x);
            end(x);
        }
    }
    end(x);
}

/* What a kinegraph reader needs back exactly: the geom's own material. */
static void geom_node_extra(cw *x, const kg_geom *G) {
    if (G->material < 0) return;
    char url[32];
    start(x, "extra");
    attr(x, "type", "kinegraph");
    start(x, "technique");
    attr(x, "profile", "kinegraph");
    start(x, "material");
    snprintf(url, sizeof url, "#mat%d", G->material);
    attr(x, "url", url);
    end(x);
    end(x);
    end(x);
}

/* ---- kinematics ------------------------------------------------------------------ */

static int naxes(cw *x, int j) {
    axis_out a[6];
    return axes_of(x, &x->m->joint[j], a, 0);
}

static void library_joints(cw *x) {
    const kg_model *m = x->m;
    start(x, "library_joints");
    for (int j = 0; j < m->njoint; j++) {
        const kg_joint *J = &m->joint[j];
        axis_out a[6];
        int n = axes_of(x, J, a, 1);
        start(x, "joint");
        attrf(x, "id", "jd%d", j);
        attr(x, "name", J->name);
        attrf(x, "sid", "jd%d", j);
        for (int k = 0; k < n; k++) {
            start(x, a[k].prismatic ? "prismatic" : "revolute");
            attrf(x, "sid", "axis%d", k);
            nums(x, "axis", a[k].dir, 3);
            if (a[k].has_limit) {
                start(x, "limits");
                num(x, "min", a[k].lo);
                num(x, "max", a[k].hi);
                end(x);
            }
            end(x);
        }
        /* what COLLADA has no element for, in SI units */
        if (!isnan(J->effort) || J->has_dynamics || J->has_safety || J->calibration) {
            char b[32];
            start(x, "extra");
            attr(x, "type", "kinegraph");
            start(x, "technique");
            attr(x, "profile", "kinegraph");
            if (!isnan(J->effort)) num(x, "effort", J->effort);
            if (J->has_dynamics) {
                start(x, "dynamics");
                attr(x, "damping", kg_format_number(b, J->damping));
                attr(x, "friction", kg_format_number(b, J->friction));
                end(x);
            }
            if (J->has_safety) {
                start(x, "safety_controller");
                attr(x, "soft_lower_limit", kg_format_number(b, J->soft_lower));
                attr(x, "soft_upper_limit", kg_format_number(b, J->soft_upper));
                attr(x, "k_position", kg_format_number(b, J->k_position));
                attr(x, "k_velocity", kg_format_number(b, J->k_velocity));
                end(x);
            }
            if (J->calibration) {
                start(x, "calibration");
                if (J->calibration & KG_CAL_RISING) attr(x, "rising", kg_format_number(b, J->cal_rising));
                if (J->calibration & KG_CAL_FALLING) attr(x, "falling", kg_format_number(b, J->cal_falling));
                if (J->calibration & KG_CAL_REFERENCE) attr(x, "reference_position", kg_format_number(b, J->cal_reference));
                end(x);
            }
            end(x);
            end(x);
        }
        end(x);
    }
    end(x);
}

/* Opens link i of the kinematics model: <link> and its attachment_start ends
 * (loops); attachment_full children are written by kin_links. */
static void kin_link_open(cw *x, int i) {
    start(x, "link");
    attrf(x, "sid", "l%d", i);
    attr(x, "name", x->m->link[i].name);
}

/* Closes link i: the attachment_end of loops closing onto it, </link>. */
static void kin_link_close(cw *x, int i) {
    const kg_model *m = x->m;
    for (int k = 0; k < m->nloop; k++)
        if (m->loop[k].real_link == i) {
            char ref[64];
            snprintf(ref, sizeof ref, "kmodel/j%d", m->loop[k].cut_joint);
            start(x, "attachment_end");
            attr(x, "joint", ref);
            double zero[3] = {0, 0, 0}, id[9];
            kg_mat3_identity(id);
            pose_elements(x, zero, id);
            end(x);
        }
    end(x);
}

/* The link tree from the root, depth first in link order, with a stack of its
 * own: a chain of 10^5 links must not need 10^5 C stack frames. A child joined
 * by a loop's cut joint is an attachment_start; any other an attachment_full
 * holding the child's <link>. */
static void kin_links(cw *x) {
    const kg_model *m = x->m;
    typedef struct { int link, child; } frame; /* child: the next child to look at */
    frame *st = malloc(((size_t)m->nlink + 1) * sizeof *st);
    if (!st) {
        x->oom = 1;
        return;
    }
    int top = 0;
    kin_link_open(x, 0);
    st[top++] = (frame){0, x->first[0]};
    while (top > 0) {
        frame *t = &st[top - 1];
        int c = t->child;
        if (c < 0) {
            kin_link_close(x, t->link);
            if (--top > 0) end(x); /* the attachment_full holding it */
            continue;
        }
        t->child = x->next[c];
        const kg_joint *J = &m->joint[m->link[c].joint];
        char ref[64];
        snprintf(ref, sizeof ref, "kmodel/j%d", m->link[c].joint);
        start(x, m->link[c].real >= 0 ? "attachment_start" : "attachment_full"); /* a loop: this end here */
        attr(x, "joint", ref);
        pose_elements(x, J->pos, J->rot);
        if (m->link[c].real >= 0) {
            end(x);
            continue;
        }
        kin_link_open(x, c);
        st[top++] = (frame){c, x->first[c]};
    }
    free(st);
}

static void formula(cw *x, int k) {
    const kg_model *m = x->m;
    const kg_mimic *mm = &m->mimic[k];
    const kg_joint *f = &m->joint[mm->follower], *l = &m->joint[mm->leader];
    double a = mm->multiplier * to_collada(f) / to_collada(l), b = mm->offset * to_collada(f);
    char buf[64], nb[32];
    start(x, "formula");
    attrf(x, "sid", "f%d", k);
    start(x, "target");
    snprintf(buf, sizeof buf, "kmodel/j%d", mm->follower);
    text(x, "param", buf);
    end(x);
    start(x, "technique_common");
    start(x, "math");
    attr(x, "xmlns", "http://www.w3.org/1998/Math/MathML");
    start(x, "apply");
    start(x, "plus");
    end(x);
    start(x, "apply");
    start(x, "times");
    end(x);
    xmlTextWriterStartElement(x->w, BAD_CAST "cn");
    attr(x, "type", "real");
    xmlTextWriterWriteString(x->w, BAD_CAST kg_format_number(nb, a));
    end(x);
    xmlTextWriterStartElement(x->w, BAD_CAST "csymbol");
    attr(x, "encoding", "COLLADA");
    snprintf(buf, sizeof buf, "kmodel/j%d", mm->leader);
    xmlTextWriterWriteString(x->w, BAD_CAST buf);
    end(x);
    end(x);
    xmlTextWriterStartElement(x->w, BAD_CAST "cn");
    attr(x, "type", "real");
    xmlTextWriterWriteString(x->w, BAD_CAST kg_format_number(nb, b));
    end(x);
    end(x);
    end(x);
    end(x);
    end(x);
}

/* ---- extras ------------------------------------------------------------------------ */

/* Does an OpenRAVE manipulator or collision extra hold more than the model took
 * from it (grippers, IK solvers, collision states)? Names the first such element. */
static const char *unmapped_content(const char *xml, const char *type, char *buf, size_t size) {
    xmlDocPtr doc = xmlReadMemory(xml, (int)strlen(xml), "extra.xml", NULL, XML_PARSE_NONET | XML_PARSE_NOERROR | XML_PARSE_NOWARNING);
    xmlNodePtr root = doc ? xmlDocGetRootElement(doc) : NULL, t = root ? root->children : NULL;
    const char *found = NULL;
    while (t && (t->type != XML_ELEMENT_NODE || strcmp((const char *)t->name, "technique"))) t = t->next;
    for (xmlNodePtr k = t ? t->children : NULL; k && !found; k = k->next) {
        if (k->type != XML_ELEMENT_NODE) continue;
        const char *n = (const char *)k->name;
        int known = !strcmp(type, "manipulator") ? !strcmp(n, "frame_origin") || !strcmp(n, "frame_tip") : !strcmp(n, "ignore_link_pair");
        if (!known) found = snprintf(buf, size, "%s", n) > 0 ? buf : NULL;
    }
    xmlFreeDoc(doc);
    return found;
}

/* The COLLADA extras the model kept from `where` (kinematics_model or
 * articulated_system), written back as they came, except OpenRAVE manipulators
 * and collision pairs, which the model holds itself and writes below. */
static void collada_extras(cw *x, const char *where) {
    const kg_model *m = x->m;
    char prefix[64], buf[64];
    snprintf(prefix, sizeof prefix, "collada:%s:extra:", where);
    for (int k = 0; k < m->nextra; k++) {
        const kg_extra *e = &m->extra[k];
        if (strncmp(e->kind, prefix, strlen(prefix))) continue;
        const char *type = e->kind + strlen(prefix);
        int openrave = strstr(e->xml, "profile=\"OpenRAVE\"") != NULL;
        if (openrave && (!strcmp(type, "manipulator") || !strcmp(type, "collision"))) {
            const char *lost = unmapped_content(e->xml, type, buf, sizeof buf);
            if (lost)
                kg_ledger_add(x->l, KG_DROPPED, "extra", e->name ? e->name : type, m->source, e->line,
                              "OpenRAVE %s written from the model, which holds its %s; <%s> and the rest of it are "
                              "not written", type, !strcmp(type, "manipulator") ? "chain and tool frame" : "ignored pairs", lost);
            continue;
        }
        xmlTextWriterWriteRaw(x->w, BAD_CAST e->xml);
    }
    char b[32], t[100];
    if (!strcmp(where, "articulated_system"))
        for (int i = 0; i < m->nend_effector; i++) { /* OpenRAVE manipulators */
            const kg_end_effector *ee = &m->end_effector[i];
            start(x, "extra");
            attr(x, "type", "manipulator");
            attr(x, "name", ee->name);
            start(x, "technique");
            attr(x, "profile", "OpenRAVE");
            start(x, "frame_origin");
            snprintf(t, sizeof t, "kmodel/l%d", ee->base >= 0 ? ee->base : 0);
            attr(x, "link", t);
            end(x);
            start(x, "frame_tip");
            snprintf(t, sizeof t, "kmodel/l%d", ee->tip);
            attr(x, "link", t);
            pose_elements(x, ee->pos, ee->rot);
            nums(x, "direction", ee->direction, 3);
            end(x);
            end(x);
            end(x);
        }
    if (!strcmp(where, "kinematics_model") && m->ncollision_ignore) {
        start(x, "extra");
        attr(x, "type", "collision");
        start(x, "technique");
        attr(x, "profile", "OpenRAVE");
        for (int i = 0; i < m->ncollision_ignore; i++) {
            start(x, "ignore_link_pair");
            snprintf(t, sizeof t, "kmodel/l%d", m->collision_ignore[i].a);
            attr(x, "link0", t);
            snprintf(t, sizeof t, "kmodel/l%d", m->collision_ignore[i].b);
            attr(x, "link1", t);
            end(x);
        }
        end(x);
        end(x);
    }
    (void)b;
}

static void library_kinematics_models(cw *x) {
    const kg_model *m = x->m;
    start(x, "library_kinematics_models");
    start(x, "kinematics_model");
    attr(x, "id", "kmodel");
    attr(x, "name", m->name);
    start(x, "technique_common");
    for (int j = 0; j < m->njoint; j++) {
        start(x, "instance_joint");
        attrf(x, "url", "#jd%d", j);
        attrf(x, "sid", "j%d", j);
        end(x);
    }
    kin_links(x);
    for (int k = 0; k < m->nmimic; k++) formula(x, k);
    end(x);
    collada_extras(x, "kinematics_model");
    for (int k = 0; k < m->nextra; k++) /* skins and morphs name the source's geometry and joints */
        if (!strcmp(m->extra[k].kind, "collada:skin") || !strcmp(m->extra[k].kind, "collada:morph"))
            kg_ledger_add(x->l, KG_DROPPED, "extra", m->extra[k].name, m->source, m->extra[k].line,
                          "the %s controller is not written: its mesh is, in the bind pose, moving with its link",
                          m->extra[k].kind + 8);
    for (int k = 0; k < m->nextra; k++) { /* URDF extras */
        const kg_extra *e = &m->extra[k];
        if (!strncmp(e->kind, "collada:", 8)) continue;
        start(x, "extra");
        attr(x, "type", e->kind);
        if (e->name) attr(x, "name", e->name);
        start(x, "technique");
        attr(x, "profile", "URDF");
        xmlTextWriterWriteRaw(x->w, BAD_CAST e->xml);
        end(x);
        end(x);
    }
    end(x);
    end(x);
}

/* The parameter chain to every joint axis: a newparam "<prefix>_j<j>_axis<k>"
 * per axis, its SIDREF "<target>j<j>/axis<k>" (target_prefix ends in '/' or '_'),
 * plus, when values is set, a newparam "<prefix>_j<j>_value<k>" of 0. */
static void axis_params(cw *x, const char *prefix, const char *target_prefix, int values) {
    char b[128], r[160];
    for (int j = 0; j < x->m->njoint; j++)
        for (int k = 0; k < naxes(x, j); k++) {
            snprintf(b, sizeof b, "%s_j%d_axis%d", prefix, j, k);
            if (target_prefix[strlen(target_prefix) - 1] == '/') snprintf(r, sizeof r, "%sj%d/axis%d", target_prefix, j, k);
            else snprintf(r, sizeof r, "%sj%d_axis%d", target_prefix, j, k);
            start(x, "newparam");
            attr(x, "sid", b);
            text(x, "SIDREF", r);
            end(x);
            if (!values) continue;
            snprintf(b, sizeof b, "%s_j%d_value%d", prefix, j, k);
            start(x, "newparam");
            attr(x, "sid", b);
            num(x, "float", 0);
            end(x);
        }
}

/* Kinematics system (axis_info) and motion system (speed, acceleration), with the
 * parameter chain the scene binds through. */
static void library_articulated_systems(cw *x) {
    const kg_model *m = x->m;
    char b[128];
    start(x, "library_articulated_systems");
    start(x, "articulated_system");
    attr(x, "id", "as_k");
    start(x, "kinematics");
    start(x, "instance_kinematics_model");
    attr(x, "url", "#kmodel");
    attr(x, "sid", "ikm");
    start(x, "newparam");
    attr(x, "sid", "as_k_ikm");
    text(x, "SIDREF", "as_k/ikm");
    end(x);
    axis_params(x, "as_k", "as_k/ikm/", 0);
    end(x);
    start(x, "technique_common");
    for (int j = 0; j < m->njoint; j++) {
        const kg_joint *J = &m->joint[j];
        for (int k = 0; k < naxes(x, j); k++) {
            start(x, "axis_info");
            snprintf(b, sizeof b, "ai%d_%d", j, k);
            attr(x, "sid", b);
            snprintf(b, sizeof b, "kmodel/j%d/axis%d", j, k);
            attr(x, "axis", b);
            start(x, "active");
            text(x, "bool", J->type != KG_JOINT_FIXED && J->mimic < 0 ? "true" : "false");
            end(x);
            start(x, "locked");
            text(x, "bool", J->type == KG_JOINT_FIXED ? "true" : "false");
            end(x);
            end(x);
        }
    }
    start(x, "frame_origin");
    attr(x, "link", "kmodel/l0");
    end(x);
    start(x, "frame_tip");
    attrf(x, "link", "kmodel/l%d", m->nlink - 1);
    end(x);
    end(x);
    end(x);
    collada_extras(x, "articulated_system");
    end(x);

    start(x, "articulated_system");
    attr(x, "id", "as_m");
    start(x, "motion");
    start(x, "instance_articulated_system");
    attr(x, "url", "#as_k");
    attr(x, "sid", "iask");
    start(x, "newparam");
    attr(x, "sid", "as_m_ikm");
    text(x, "SIDREF", "as_k/as_k_ikm");
    end(x);
    axis_params(x, "as_m", "as_k/as_k_", 0);
    end(x);
    start(x, "technique_common");
    for (int j = 0; j < m->njoint; j++) {
        const kg_joint *J = &m->joint[j];
        if (isnan(J->velocity) && isnan(J->acceleration)) continue;
        axis_out a[6];
        int n = axes_of(x, J, a, 0);
        for (int k = 0; k < n; k++) { /* the joint's speed on each of its axes */
            start(x, "axis_info");
            snprintf(b, sizeof b, "as_k/ai%d_%d", j, k);
            attr(x, "axis", b);
            double s = a[k].prismatic ? 1 : 180 / KG_PI;
            if (!isnan(J->velocity)) {
                start(x, "speed");
                num(x, "float", J->velocity * s);
                end(x);
            }
            if (!isnan(J->acceleration)) {
                start(x, "acceleration");
                num(x, "float", J->acceleration * s);
                end(x);
            }
            end(x);
        }
    }
    end(x);
    end(x);
    end(x);
    end(x);
}

static void library_kinematics_scenes(cw *x) {
    start(x, "library_kinematics_scenes");
    start(x, "kinematics_scene");
    attr(x, "id", "kscene");
    start(x, "instance_articulated_system");
    attr(x, "url", "#as_m");
    attr(x, "sid", "iasm");
    start(x, "newparam");
    attr(x, "sid", "ks_ikm");
    text(x, "SIDREF", "as_m/as_m_ikm");
    end(x);
    axis_params(x, "ks", "as_m/as_m_", 1);
    end(x);
    end(x);
    end(x);
}

/* Opens the node of link i: at its joint origin, its joint's axes as
 * transforms with sids the scene binds, its visual geometry. */
static void visual_node_open(cw *x, int i) {
    const kg_model *m = x->m;
    start(x, "node");
    attrf(x, "id", "n%d", i);
    attr(x, "name", m->link[i].name);
    attrf(x, "sid", "n%d", i);
    if (i == 0 && x->mo && x->mo->base) { /* the motion moves the root: its base pose, animated */
        xmlTextWriterStartElement(x->w, BAD_CAST "matrix");
        attr(x, "sid", "base");
        xmlTextWriterWriteString(x->w, BAD_CAST "1 0 0 0 0 1 0 0 0 0 1 0 0 0 0 1");
        end(x);
    }
    if (i > 0) {
        const kg_joint *J = &m->joint[m->link[i].joint];
        pose_elements(x, J->pos, J->rot);
        axis_out a[6];
        int n = axes_of(x, J, a, 0);
        for (int k = 0; k < n; k++) {
            char sid[64];
            snprintf(sid, sizeof sid, "j%d_axis%d", m->link[i].joint, k);
            if (a[k].prismatic) {
                double zero[3] = {0, 0, 0};
                xmlTextWriterStartElement(x->w, BAD_CAST "translate");
                attr(x, "sid", sid);
                char b[3][32], t[100];
                snprintf(t, sizeof t, "%s %s %s", kg_format_number(b[0], zero[0]), kg_format_number(b[1], zero[1]),
                         kg_format_number(b[2], zero[2]));
                xmlTextWriterWriteString(x->w, BAD_CAST t);
                end(x);
            } else {
                char b[3][32], t[120];
                snprintf(t, sizeof t, "%s %s %s 0", kg_format_number(b[0], a[k].dir[0]), kg_format_number(b[1], a[k].dir[1]),
                         kg_format_number(b[2], a[k].dir[2]));
                xmlTextWriterStartElement(x->w, BAD_CAST "rotate");
                attr(x, "sid", sid);
                xmlTextWriterWriteString(x->w, BAD_CAST t);
                end(x);
            }
        }
    }
    const kg_link *L = &m->link[i];
    for (int g = L->geom_first; g < L->geom_first + L->geom_count; g++) {
        const kg_geom *G = &m->geom[g];
        if (G->role != KG_VISUAL) continue;
        start(x, "node");
        attrf(x, "id", "v%d", g);
        attrf(x, "sid", "v%d", g);
        if (G->name) attr(x, "name", G->name);
        pose_elements(x, G->pos, G->rot);
        instance_geometry(x, g);
        geom_node_extra(x, G);
        end(x);
    }
}

/* The node tree, depth first in link order, with a stack of its own (as
 * kin_links); the virtual links of loops have no node. */
static void visual_nodes(cw *x) {
    const kg_model *m = x->m;
    typedef struct { int link, child; } frame;
    frame *st = malloc(((size_t)m->nlink + 1) * sizeof *st);
    if (!st) {
        x->oom = 1;
        return;
    }
    int top = 0;
    visual_node_open(x, 0);
    st[top++] = (frame){0, x->first[0]};
    while (top > 0) {
        frame *t = &st[top - 1];
        int c = t->child;
        if (c < 0) {
            end(x);
            top--;
            continue;
        }
        t->child = x->next[c];
        if (m->link[c].real >= 0) continue;
        visual_node_open(x, c);
        st[top++] = (frame){c, x->first[c]};
    }
    free(st);
}

/* Collision geometry as rigid-body shapes: primitives as such, meshes instancing
 * their <geometry>; placed where the mass frame is (mass_frame): in the root
 * link's frame with the joints at zero, as OpenRAVE writes them. zero: the
 * links' poses there (zero_poses). */
static void shapes(cw *x, int i, const double *zero) {
    const kg_model *m = x->m;
    const kg_link *L = &m->link[i];
    const double *at = zero + 12 * i;
    for (int g = L->geom_first; g < L->geom_first + L->geom_count; g++) {
        const kg_geom *G = &m->geom[g];
        if (G->role != KG_COLLISION) continue;
        start(x, "shape");
        double half[3] = {G->size[0] / 2, G->size[1] / 2, G->size[2] / 2}, hr[2];
        switch (G->type) {
        case KG_GEOM_MESH: {
            char url[32];
            snprintf(url, sizeof url, "#g%d", x->geom_of[g]);
            start(x, "instance_geometry");
            attr(x, "url", url);
            end(x);
            break;
        }
        case KG_GEOM_BOX:
            start(x, "box");
            nums(x, "half_extents", half, 3);
            end(x);
            break;
        case KG_GEOM_SPHERE:
            start(x, "sphere");
            num(x, "radius", G->size[0]);
            end(x);
            break;
        default: /* cylinder, capsule: height along z, then radii */
            start(x, G->type == KG_GEOM_CAPSULE ? "capsule" : "cylinder");
            num(x, "height", G->size[1]);
            hr[0] = hr[1] = G->size[0];
            nums(x, "radius", hr, 2);
            end(x);
            break;
        }
        double r[9], p[3];
        kg_pose_mul(r, p, at, at + 9, G->rot, G->pos);
        pose_elements(x, p, r);
        if (G->name) {
            start(x, "extra");
            attr(x, "type", "kinegraph");
            start(x, "technique");
            attr(x, "profile", "kinegraph");
            text(x, "name", G->name);
            end(x);
            end(x);
        }
        end(x);
    }
}

static int has_collision(const kg_model *m, int i) {
    const kg_link *L = &m->link[i];
    for (int g = L->geom_first; g < L->geom_first + L->geom_count; g++)
        if (m->geom[g].role == KG_COLLISION) return 1;
    return 0;
}

/* A rigid body carries a link's mass and its collision geometry. */
static int has_body(const kg_model *m, int i) {
    const kg_link *L = &m->link[i];
    if (L->real >= 0) return 0;
    return L->has_inertial || has_collision(m, i);
}

/* A mass without collision geometry still needs one <shape> (the schema's
 * minimum): the empty placeholder geometry, marked so kinegraph reads no geom. */
static void placeholder_shape(cw *x) {
    char url[32];
    snprintf(url, sizeof url, "#g%d", x->placeholder);
    start(x, "shape");
    start(x, "instance_geometry");
    attr(x, "url", url);
    end(x);
    start(x, "extra");
    attr(x, "type", "kinegraph");
    start(x, "technique");
    attr(x, "profile", "kinegraph");
    start(x, "placeholder");
    end(x);
    end(x);
    end(x);
    end(x);
}

/* The index of the placeholder geometry when some body needs it, else -1. */
static int find_placeholder(const cw *x) {
    for (int i = 0; i < x->m->nlink; i++)
        if (has_body(x->m, i) && !has_collision(x->m, i)) return x->ngeoms;
    return -1;
}

/* Each link's pose at the zero joint values in the root link's frame (9
 * rotation then 3 position values per link), or NULL when memory runs out
 * (marked). Every joint's motion is the identity there (mimic offsets too:
 * the COLLADA reader places links from the attachments alone). */
static double *zero_poses(cw *x) {
    const kg_model *m = x->m;
    double *z = malloc((size_t)m->nlink * 12 * sizeof *z);
    if (!z) {
        x->oom = 1;
        return NULL;
    }
    kg_mat3_identity(z);
    z[9] = z[10] = z[11] = 0;
    for (int i = 1; i < m->nlink; i++) { /* parents come before their children */
        const kg_joint *J = &m->joint[m->link[i].joint];
        const double *up = z + 12 * m->link[i].parent;
        kg_pose_mul(z + 12 * i, z + 12 * i + 9, up, up + 9, J->rot, J->pos);
    }
    return z;
}

/* <mass_frame>: the COM and the axes `rot` (in link i's frame) in the frame of
 * the node instance_physics_model names as its parent, the root link's, with
 * the joints at zero. That is where OpenRAVE's and ROS's writers put it and
 * where their readers (and kinegraph's) look for it, not in the link's frame. */
static void mass_frame(cw *x, const double *zero, int i, const double rot[9]) {
    const double *at = zero + 12 * i;
    double r[9], p[3];
    kg_pose_mul(r, p, at, at + 9, rot, x->m->link[i].com);
    start(x, "mass_frame");
    pose_elements(x, p, r);
    end(x);
}

static void library_physics(cw *x) {
    const kg_model *m = x->m;
    double *zero = zero_poses(x);
    if (!zero) return;
    start(x, "library_physics_models");
    start(x, "physics_model");
    attr(x, "id", "pmodel");
    attr(x, "name", m->name);
    for (int i = 0; i < m->nlink; i++) {
        const kg_link *L = &m->link[i];
        if (!has_body(m, i)) continue;
        start(x, "rigid_body");
        attrf(x, "sid", "rb%d", i);
        attr(x, "name", L->name);
        start(x, "technique_common");
        if (!L->has_inertial) { /* only collision shapes */
            text(x, "dynamic", "false");
            shapes(x, i, zero);
            end(x);
            end(x);
            continue;
        }
        text(x, "dynamic", "true");
        num(x, "mass", L->mass);
        /* the declared frame when its tensor is diagonal, else the principal axes */
        const double *d6 = L->inertial.inertia;
        double moments[3], rot[9];
        if (d6[1] == 0 && d6[2] == 0 && d6[4] == 0) {
            moments[0] = d6[0];
            moments[1] = d6[3];
            moments[2] = d6[5];
            kg_mat3_copy(rot, L->inertial.rot);
        } else if (kg_inertia_principal(L->inertia, moments, rot) != 0) {
            memset(moments, 0, sizeof moments);
            kg_mat3_identity(rot);
        }
        mass_frame(x, zero, i, rot);
        nums(x, "inertia", moments, 3);
        shapes(x, i, zero);
        if (!has_collision(m, i)) placeholder_shape(x);
        end(x);
        end(x);
    }
    end(x);
    end(x);
    start(x, "library_physics_scenes");
    start(x, "physics_scene");
    attr(x, "id", "pscene");
    start(x, "instance_physics_model");
    attr(x, "url", "#pmodel");
    attr(x, "sid", "ipm");
    attr(x, "parent", "#n0"); /* the root link's node, which the kinematics model is bound to: mass frames are in it */
    for (int i = 0; i < m->nlink; i++) {
        if (!has_body(m, i)) continue;
        char b[32], t[32];
        snprintf(b, sizeof b, "rb%d", i);
        snprintf(t, sizeof t, "#n%d", i);
        start(x, "instance_rigid_body");
        attr(x, "body", b);
        attr(x, "target", t);
        start(x, "technique_common"); /* required by the schema; its children are optional */
        end(x);
        end(x);
    }
    end(x);
    start(x, "technique_common");
    double g[3] = {0, 0, -9.80665};
    nums(x, "gravity", g, 3);
    end(x);
    end(x);
    end(x);
    free(zero);
}

/* ---- animation ------------------------------------------------------------------------ */

/* One animation: a sampler over the frame times and a channel to target. All
 * animations share one set of frame times: the first defines its input and
 * interpolation sources, the others (shared: its id) refer to them. */
static void animation(cw *x, const char *id, const char *target, const double *times, const double *values, int nframes,
                      int stride, const char *shared) {
    char sid[96], url[128];
    static const char *const xyz[3] = {"X", "Y", "Z"};
    start(x, "animation");
    attr(x, "id", id);
    for (int s = 0; s < 3; s++) { /* input, output, interpolation */
        if (shared && s != 1) continue; /* the times and interpolations of an earlier animation */
        snprintf(sid, sizeof sid, "%s_%s", id, s == 0 ? "input" : s == 1 ? "output" : "interp");
        start(x, "source");
        attr(x, "id", sid);
        char arr[110];
        snprintf(arr, sizeof arr, "%s_array", sid);
        int n = s == 1 ? nframes * stride : nframes;
        if (s < 2) {
            float_array(x, arr, s == 0 ? times : values, n, 0);
        } else {
            size_t len = 0;
            for (int k = 0; k < nframes; k++) {
                char *o = reserve(x, len, 8);
                if (!o) break;
                memcpy(o, k ? " LINEAR" : "LINEAR", k ? 7 : 6);
                len += k ? 7 : 6;
            }
            if (reserve(x, len, 1)) x->buf[len] = 0;
            start(x, "Name_array");
            attr(x, "id", arr);
            attrf(x, "count", "%d", nframes);
            xmlTextWriterWriteRaw(x->w, BAD_CAST x->buf);
            end(x);
        }
        start(x, "technique_common");
        start(x, "accessor");
        snprintf(url, sizeof url, "#%s", arr);
        attr(x, "source", url);
        attrf(x, "count", "%d", nframes);
        attrf(x, "stride", "%d", s == 1 ? stride : 1);
        for (int k = 0; k < (s == 1 ? stride : 1); k++) {
            start(x, "param");
            if (s == 1 && stride == 3 && k < 3) attr(x, "name", xyz[k]);
            else if (s == 1 && stride == 16) attr(x, "name", "TRANSFORM");
            else attr(x, "name", s == 0 ? "TIME" : s == 1 ? "VALUE" : "INTERPOLATION");
            attr(x, "type", s == 2 ? "name" : s == 1 && stride == 16 ? "float4x4" : "float");
            end(x);
            if (stride == 16 && s == 1) break;
        }
        end(x);
        end(x);
        end(x);
    }
    snprintf(sid, sizeof sid, "%s_sampler", id);
    start(x, "sampler");
    attr(x, "id", sid);
    static const char *const sem[3] = {"INPUT", "OUTPUT", "INTERPOLATION"};
    static const char *const suffix[3] = {"input", "output", "interp"};
    for (int s = 0; s < 3; s++) {
        start(x, "input");
        attr(x, "semantic", sem[s]);
        snprintf(url, sizeof url, "#%s_%s", shared && s != 1 ? shared : id, suffix[s]);
        attr(x, "source", url);
        end(x);
    }
    end(x);
    start(x, "channel");
    snprintf(url, sizeof url, "#%s", sid);
    attr(x, "source", url);
    attr(x, "target", target);
    end(x);
    end(x);
}

/* The values of joint J's written axes (COLLADA units) in the pose kd; euler:
 * a free joint's angles (radians), the last frame's in (unless first) and this
 * frame's out, so they stay continuous. */
static void axis_values(const kg_model *m, const kg_joint *J, const kg_data *kd, const axis_out *a, int n, double *euler,
                        int first, double *out) {
    const double *q = kd->q + J->qadr;
    switch (J->type) {
    case KG_JOINT_FLOATING: { /* x, y, z, then rotations about x, y, z in turn */
        double r[9], e[3];
        static const int xyz[3] = {0, 1, 2};
        kg_rot_from_quat(r, q + 3);
        kg_rot_to_euler(r, xyz, first ? NULL : euler, e);
        memcpy(euler, e, sizeof e);
        for (int k = 0; k < 3; k++) out[k] = q[k], out[3 + k] = e[k] * 180 / KG_PI;
        return;
    }
    case KG_JOINT_COMPOUND:
        for (int k = 0; k < n; k++) {
            const kg_axis *ax = &m->axis[J->axis_first + k];
            out[k] = q[ax->coord] * (ax->kind == KG_AXIS_ROTATION ? 180 / KG_PI : 1);
        }
        return;
    default: /* revolute, continuous, prismatic; planar: two lengths and an angle */
        for (int k = 0; k < n; k++) out[k] = q[k] * (a[k].prismatic ? 1 : 180 / KG_PI);
    }
}

/* Every moving joint's axes (and the base pose) animated over the motion, and
 * one clip holding them all. */
static void library_animations(cw *x, const kg_motion *mo) {
    const kg_model *m = x->m;
    int nf = mo->nframes;
    if (nf == 0) return;
    kg_data *kd = kg_data_new(m);
    double *times = malloc((size_t)nf * sizeof *times);
    double *vals = malloc((size_t)nf * 6 * sizeof *vals), *all = malloc((size_t)nf * 16 * sizeof *all);
    if (!kd || !times || !vals || !all) {
        free(times), free(vals), free(all);
        kg_data_free(kd);
        x->oom = 1;
        return;
    }
    for (int f = 0; f < nf; f++) times[f] = mo->start_time + f * mo->frame_time;
    int nanim = 0;
    char id[64], target[96], first[64] = "";
    start(x, "library_animations");
    for (int j = 0; j < m->njoint; j++) {
        const kg_joint *J = &m->joint[j];
        if (J->loop >= 0 || J->type == KG_JOINT_FIXED) continue;
        axis_out a[6];
        int n = axes_of(x, J, a, 0);
        double euler[3] = {0, 0, 0};
        for (int f = 0; f < nf; f++) {
            kg_motion_pose(mo, f, kd);
            if (J->mimic >= 0) kg_apply_mimic(m, kd->q); /* a follower's value comes from its leader */
            axis_values(m, J, kd, a, n, euler, f == 0, vals + 6 * f);
        }
        for (int k = 0; k < n; k++) {
            snprintf(id, sizeof id, "anim_j%d_axis%d", j, k);
            double *v = all;
            int stride = a[k].prismatic ? 3 : 1;
            for (int f = 0; f < nf; f++)
                for (int c = 0; c < stride; c++) v[stride * f + c] = stride == 3 ? a[k].dir[c] * vals[6 * f + k] : vals[6 * f + k];
            snprintf(target, sizeof target, "n%d/j%d_axis%d%s", J->child, j, k, a[k].prismatic ? "" : ".ANGLE");
            animation(x, id, target, times, v, nf, stride, nanim ? first : NULL);
            if (!nanim) snprintf(first, sizeof first, "%s", id);
            nanim++;
        }
    }
    if (mo->base) {
        for (int f = 0; f < nf; f++) {
            const double *b = mo->base + 7 * (size_t)f;
            double r[9];
            kg_rot_from_quat(r, b + 3);
            double *M = all + 16 * f;
            for (int i = 0; i < 3; i++) {
                for (int c = 0; c < 3; c++) M[4 * i + c] = r[3 * i + c];
                M[4 * i + 3] = b[i];
            }
            M[12] = M[13] = M[14] = 0;
            M[15] = 1;
        }
        animation(x, "anim_base", "n0/base", times, all, nf, 16, nanim ? first : NULL);
        nanim++;
    }
    end(x);
    start(x, "library_animation_clips");
    start(x, "animation_clip");
    attr(x, "id", "motion");
    char b[32];
    attr(x, "start", kg_format_number(b, times[0]));
    attr(x, "end", kg_format_number(b, times[nf - 1]));
    for (int j = 0, k = 0; k < nanim; j++) { /* in the order written */
        const kg_joint *J = j < m->njoint ? &m->joint[j] : NULL;
        char url[64];
        if (!J) {
            start(x, "instance_animation");
            attr(x, "url", "#anim_base");
            end(x);
            k++;
            continue;
        }
        if (J->loop >= 0 || J->type == KG_JOINT_FIXED) continue;
        axis_out a[6];
        int n = axes_of(x, J, a, 0);
        for (int c = 0; c < n; c++, k++) {
            snprintf(url, sizeof url, "#anim_j%d_axis%d", j, c);
            start(x, "instance_animation");
            attr(x, "url", url);
            end(x);
        }
    }
    end(x);
    end(x);
    free(times);
    free(vals);
    free(all);
    kg_data_free(kd);
}

static void scene(cw *x) {
    const kg_model *m = x->m;
    start(x, "scene");
    start(x, "instance_physics_scene");
    attr(x, "url", "#pscene");
    end(x);
    start(x, "instance_visual_scene");
    attr(x, "url", "#vscene");
    end(x);
    start(x, "instance_kinematics_scene");
    attr(x, "url", "#kscene");
    start(x, "bind_kinematics_model");
    attr(x, "node", "n0");
    text(x, "param", "ks_ikm");
    end(x);
    for (int j = 0; j < m->njoint; j++) {
        if (m->joint[j].loop >= 0) continue; /* no node: the virtual link is not drawn */
        for (int k = 0; k < naxes(x, j); k++) {
            char t[64], p[64];
            snprintf(t, sizeof t, "n%d/j%d_axis%d", m->joint[j].child, j, k);
            start(x, "bind_joint_axis");
            attr(x, "target", t);
            start(x, "axis");
            snprintf(p, sizeof p, "ks_j%d_axis%d", j, k);
            text(x, "param", p);
            end(x);
            start(x, "value");
            snprintf(p, sizeof p, "ks_j%d_value%d", j, k);
            text(x, "param", p);
            end(x);
            end(x);
        }
    }
    end(x);
    end(x);
}

int kg_export_collada(const kg_model *m, const kg_motion *mo, const kg_export_options *o, FILE *f, kg_ledger *l,
                      kg_diags *d) {
    cw x = {.m = m, .l = l, .d = d, .mo = mo, .skip_meshes = o && o->skip_meshes};
    int deepest = children(&x);
    if (x.oom) {
        free(x.first);
        free(x.next);
        return kg_export_oom(o, d);
    }
    if (deepest > KG_LIMIT_DEPTH) { /* the COLLADA reader would refuse it */
        kg_diag_add(d, KG_ERROR, "collada.too_deep", m->source, 0, NULL,
                    "links nested %d deep; COLLADA is written up to %d (KG_LIMIT_DEPTH)", deepest, KG_LIMIT_DEPTH);
        free(x.first);
        free(x.next);
        return -1;
    }
    xmlOutputBufferPtr out = xmlOutputBufferCreateFile(f, NULL);
    xmlTextWriterPtr w = out ? xmlNewTextWriter(out) : NULL;
    if (!w) {
        kg_diag_add(d, KG_ERROR, "io.write", NULL, 0, NULL, "cannot start an XML writer");
        free(x.first);
        free(x.next);
        return -1;
    }
    kg_mesh_cache *own = o && o->meshes ? NULL : kg_mesh_cache_new();
    x.w = w;
    x.meshes = own ? own : o ? o->meshes : NULL;
    if (x.meshes) collect_geometry(&x);
    if (!x.meshes || x.oom) { /* out of memory before a byte was written */
        xmlFreeTextWriter(w);
        kg_mesh_cache_free(own);
        free(x.geoms), free(x.geom_of), free(x.first), free(x.next);
        return kg_export_oom(o, d);
    }
    x.placeholder = find_placeholder(&x);
    /* indentation grows with the depth: past KG_LIMIT_INDENT links deep it is
     * left out, so the file's size stays linear in the number of links */
    xmlTextWriterSetIndent(w, deepest <= KG_LIMIT_INDENT);
    xmlTextWriterSetIndentString(w, BAD_CAST " ");
    xmlTextWriterStartDocument(w, "1.0", "UTF-8", NULL);
    start(&x, "COLLADA");
    attr(&x, "xmlns", "http://www.collada.org/2008/03/COLLADASchema");
    attr(&x, "version", "1.5.0");
    start(&x, "asset");
    start(&x, "contributor");
    text(&x, "authoring_tool", "kinegraph " KG_VERSION_STRING);
    end(&x);
    char now[32];
    const char *epoch = getenv("SOURCE_DATE_EPOCH"); /* reproducible outputs */
    time_t t = epoch && *epoch ? (time_t)strtoll(epoch, NULL, 10) : time(NULL);
    strftime(now, sizeof now, "%Y-%m-%dT%H:%M:%SZ", gmtime(&t));
    text(&x, "created", now);
    text(&x, "modified", now);
    start(&x, "unit");
    attr(&x, "meter", "1");
    attr(&x, "name", "meter");
    end(&x);
    text(&x, "up_axis", "Z_UP");
    end(&x);
    library_materials(&x);
    library_geometries(&x);
    if (mo) library_animations(&x, mo);
    start(&x, "library_visual_scenes");
    start(&x, "visual_scene");
    attr(&x, "id", "vscene");
    attr(&x, "name", m->name);
    visual_nodes(&x);
    end(&x);
    end(&x);
    library_joints(&x);
    library_kinematics_models(&x);
    library_articulated_systems(&x);
    library_kinematics_scenes(&x);
    library_physics(&x);
    scene(&x);
    end(&x);
    int rc = xmlTextWriterEndDocument(w);
    xmlFreeTextWriter(w);
    kg_mesh_cache_free(own);
    free(x.geoms);
    free(x.geom_of);
    free(x.buf);
    free(x.first);
    free(x.next);
    if (x.oom) return kg_export_oom(o, d);
    return rc < 0 || ferror(f) ? -1 : 0;
}
