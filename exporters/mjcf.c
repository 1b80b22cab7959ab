/* MJCF (MuJoCo's model format) exporter, from any model; libxml2's text writer
 * does the XML. Written for MuJoCo 2.2.2 and later (the version the tests load).
 *
 * The model becomes a body tree: one <body> per link, named as the link, at its
 * joint's origin; the world is MuJoCo's <worldbody> (a root link named "world",
 * whose name MuJoCo reserves, is merged into it). Joints map one to one:
 * revolute and continuous -> hinge, prismatic -> slide, floating -> free (or,
 * below the top level where MuJoCo allows no free joint, three slides and a
 * ball: the same coordinates), planar -> two slides and a hinge, compound ->
 * one hinge or slide per axis, named "<joint>.<label>" ("#2" added where
 * another joint has that name: the ledger says so), in the axes' order
 * (MuJoCo applies a body's joints in order, each in the frame the previous ones
 * left, as our axes are defined). Joint values are ours one to one (no `ref`),
 * so MuJoCo's qpos is our q, except a top-level free joint's, which is the
 * body's world pose.
 *
 * Inertials are written as the principal moments and axes (diaginertia and
 * quat) that our LAPACK eigen-solver finds, not as fullinertia: MuJoCo would
 * diagonalise a fullinertia with its own solver, which recomposes the tensor to
 * only about 1e-7 (measured by test_dynamics); this way its mass matrix equals
 * ours to rounding. The compiler is told not to make inertias from geoms
 * (inertiafromgeom="false"): a link without an inertial has no mass.
 *
 * What MJCF, or MuJoCo, cannot hold goes into the ledger:
 *   - MuJoCo refuses a moving body whose rigid group (the body and what is
 *     fixed to it) has no mass or inertia: such a body gets 1e-12 kg and
 *     1e-12 kg m^2 (defaulted), which changes the mass matrix by about that;
 *   - inertias that break the triangle inequality (A + B >= C) are mended by
 *     MuJoCo's balanceinertia (approximated);
 *   - velocity and acceleration limits, safety controllers, calibration
 *     (dropped); effort limits become motors with that control range; friction
 *     becomes frictionloss (MuJoCo's own URDF reading does the same);
 *   - one-sided position limits cannot be written (MuJoCo needs both bounds);
 *   - loops: the cut joint and its virtual link are kept, and a weld equality
 *     holds the virtual link on its real link; mimic couplings become joint
 *     equalities (follower = offset + multiplier * leader);
 *   - meshes: STL and OBJ files are referenced where they are; any other mesh
 *     (COLLADA, meshes inside a COLLADA robot) is written beside the MJCF as
 *     binary STL in "<name>_meshes/" (its colours are lost); textures are
 *     dropped (MuJoCo maps PNG textures with its own coordinates);
 *   - end effectors become sites on their tip link (base and direction
 *     dropped); ignored collision pairs become contact exclusions; a motion,
 *     extras and rest values of compound axes that MuJoCo cannot hold go into
 *     the ledger (rest values are kept as the keyframe "rest"). */
#include <libxml/xmlwriter.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include "core/spatial.h"
#include "core/str.h"
#include "core/strmap.h"
#include "exporters/exporters.h"
#include "formats/mesh.h"
#include "formats/number.h"
#include "formats/xml.h"

/* The smallest mass and inertia given to a massless moving body (see above). */
#define MJCF_MIN_MASS 1e-12

typedef struct writer {
    xmlTextWriterPtr w;
    const kg_model *m;
    kg_ledger *l;
    kg_diags *d;
    const char *path;     /* the MJCF being written, or NULL */
    kg_mesh_cache *meshes;
    int skip_meshes;
    kg_files *companions; /* the STL files written (kg_export_options) */
    char **mesh_file;     /* geom -> the file its mesh asset reads, or NULL (no asset) */
    int *mesh_asset;      /* geom -> index of its mesh asset (the first geom with the same file and scale) */
    int *first_child, *next_sibling; /* the link tree */
    int *light;           /* link -> 1 when it is the head of a moving rigid group without mass */
    int unbalanced;       /* some inertia breaks A + B >= C */
    int rest_key;         /* some coordinate's rest value is not MuJoCo's qpos0 */
    double *key;          /* qpos of the "rest" keyframe, in MuJoCo's order */
    int nkey;
    int oom;              /* memory ran out: what follows is dropped, and the export fails */
    kg_names names;       /* MuJoCo joint names: the model's joints', then dotted()'s */
} writer;

/* A copy of s, or NULL and x->oom set. */
static char *copy(writer *x, const char *s) {
    char *c = kg_strdup(s);
    if (!c) x->oom = 1;
    return c;
}

static void start(writer *x, const char *e) { xmlTextWriterStartElement(x->w, BAD_CAST e); }
static void end(writer *x) { xmlTextWriterEndElement(x->w); }
static void attr(writer *x, const char *name, const char *v) {
    xmlTextWriterWriteAttribute(x->w, BAD_CAST name, BAD_CAST v);
}

static void attr_vec(writer *x, const char *name, const double *v, int n) {
    char b[32], small[16 * 33 + 1]; /* a pose, a colour, an inertia: no allocation */
    char *out = n <= 16 ? small : malloc((size_t)n * 33 + 1), *p = out;
    if (!out) {
        x->oom = 1;
        return;
    }
    *p = 0;
    for (int i = 0; i < n; i++) p += sprintf(p, "%s%s", i ? " " : "", kg_format_number(b, v[i]));
    attr(x, name, out);
    if (out != small) free(out);
}

static void attr_num(writer *x, const char *name, double v) { attr_vec(x, name, &v, 1); }

/* pos and quat attributes of a pose, left out when they are the identity. */
static void pose(writer *x, const double pos[3], const double rot[9]) {
    if (pos[0] || pos[1] || pos[2]) attr_vec(x, "pos", pos, 3);
    double q[4];
    kg_rot_to_quat(rot, q);
    if (q[0] != 1 || q[1] || q[2] || q[3]) attr_vec(x, "quat", q, 4);
}

/* ---- what is known before writing ------------------------------------------------- */

/* MuJoCo 2.2 reads at most this many triangles from a mesh file. */
#define MJCF_MAX_FACES 200000

/* A file MuJoCo reads as it is: OBJ, or binary STL (MuJoCo 2.2 reads no ASCII
 * STL) of 1 to MJCF_MAX_FACES triangles. */
static int mujoco_reads(const char *path) {
    size_t n = strlen(path);
    if (n > 4 && !strcasecmp(path + n - 4, ".obj")) return 1;
    if (!(n > 4 && !strcasecmp(path + n - 4, ".stl"))) return 0;
    FILE *f = fopen(path, "rb");
    unsigned char h[84];
    long size = -1;
    int ok = f && fread(h, 1, 84, f) == 84 && fseek(f, 0, SEEK_END) == 0 && (size = ftell(f)) >= 0;
    if (f) fclose(f);
    if (!ok) return 0;
    unsigned long faces = h[80] | (unsigned long)h[81] << 8 | (unsigned long)h[82] << 16 | (unsigned long)h[83] << 24;
    return faces >= 1 && faces <= MJCF_MAX_FACES && (unsigned long)size == 84 + 50 * faces;
}

/* Massless moving rigid groups: MuJoCo refuses a body with joints whose mass
 * and inertia, with those of the bodies fixed below it, are zero. */
static void find_light_groups(writer *x) {
    const kg_model *m = x->m;
    double *group = calloc((size_t)m->nlink, sizeof *group); /* mass + inertia trace of each group head */
    int *head = malloc((size_t)m->nlink * sizeof *head);
    if (!group || !head) {
        free(group), free(head);
        x->oom = 1;
        return;
    }
    for (int i = 0; i < m->nlink; i++) {
        const kg_link *L = &m->link[i];
        int j = L->joint;
        head[i] = i == 0 ? 0 : (m->joint[j].nv > 0 ? i : head[L->parent]);
        group[head[i]] += L->mass + L->inertia[0] + L->inertia[4] + L->inertia[8];
    }
    for (int i = 1; i < m->nlink; i++) x->light[i] = head[i] == i && !(group[i] > MJCF_MIN_MASS);
    free(group);
    free(head);
}

/* One mesh asset per distinct file and scale. */
static void plan_meshes(writer *x) {
    const kg_model *m = x->m;
    for (int g = 0; g < m->ngeom; g++) {
        const kg_geom *G = &m->geom[g];
        x->mesh_asset[g] = -1;
        if (G->type != KG_GEOM_MESH) continue;
        if (!G->mesh_path) {
            kg_ledger_add(x->l, KG_DROPPED, "mesh", G->mesh_uri, m->source, G->line,
                          "mesh '%s' did not resolve to a file: the %s geometry of '%s' is not written",
                          G->mesh_uri ? G->mesh_uri : "", kg_geom_role_name(G->role), m->link[G->link].name);
            continue;
        }
        for (int k = 0; k < g && x->mesh_asset[g] < 0; k++) {
            const kg_geom *K = &m->geom[k];
            if (x->mesh_asset[k] == k && !strcmp(K->mesh_path, G->mesh_path) &&
                !strcmp(K->mesh_part ? K->mesh_part : "", G->mesh_part ? G->mesh_part : "") &&
                !memcmp(K->scale, G->scale, sizeof G->scale))
                x->mesh_asset[g] = k;
        }
        if (x->mesh_asset[g] >= 0) continue;
        x->mesh_asset[g] = g;
    }
}

/* Is geom g's mesh one MuJoCo cannot read, which write_stl() reads? */
static int rewritten(const void *ctx, int g) {
    const writer *x = ctx;
    const kg_geom *G = &x->m->geom[g];
    return x->mesh_asset[g] == g && (G->mesh_part || !mujoco_reads(G->mesh_path));
}

/* The STL beside the MJCF for a mesh MuJoCo cannot read: "<dir>/<stem>_meshes/<name>.stl". */
static char *write_stl(writer *x, int g) {
    const kg_model *m = x->m;
    const kg_geom *G = &m->geom[g];
    const char *what = G->mesh_part ? G->mesh_part : G->mesh_path;
    if (x->skip_meshes) return NULL;
    if (!x->path) {
        kg_ledger_add(x->l, KG_DROPPED, "mesh", what, m->source, G->line,
                      "MuJoCo reads binary STL and OBJ only, and no output path was given to write '%s' as STL beside "
                      "the MJCF: the geometry is not written", what);
        return NULL;
    }
    size_t errors = kg_diags_count(x->d, KG_ERROR);
    const kg_mesh *me = kg_mesh_get(x->meshes, G->mesh_path, G->mesh_part, x->d, m->source, G->line);
    if (!me && kg_diags_count(x->d, KG_ERROR) > errors) return x->oom = 1, NULL; /* mesh.memory */
    if (!me || me->ntri == 0 || me->ntri > MJCF_MAX_FACES) {
        kg_ledger_add(x->l, KG_DROPPED, "mesh", what, m->source, G->line,
                      me && me->ntri ? "mesh '%s' has more triangles than MuJoCo reads (200000): the geometry is not written"
                                     : "mesh '%s' cannot be read (or has no triangles): the geometry is not written",
                      what);
        return NULL;
    }
    const char *slash = strrchr(x->path, '/'), *base = slash ? slash + 1 : x->path, *dot = strrchr(base, '.');
    char dir[4096], name[300], full[4700], rel[4400];
    snprintf(dir, sizeof dir, "%.*s%.*s_meshes", slash ? (int)(slash - x->path + 1) : 0, x->path,
             (int)(dot ? dot - base : (long)strlen(base)), base);
    const char *leaf = strrchr(what, '/') ? strrchr(what, '/') + 1 : what;
    snprintf(name, sizeof name, "%d_%s", g, leaf); /* the geom's index keeps names unique */
    for (char *c = name; *c; c++)
        if (!((*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') || (*c >= '0' && *c <= '9') || *c == '-' || *c == '_'))
            *c = '_';
    snprintf(full, sizeof full, "%s/%s.stl", dir, name);
    snprintf(rel, sizeof rel, "%s/%s.stl", strrchr(dir, '/') ? strrchr(dir, '/') + 1 : dir, name);
    if (mkdir(dir, 0777) == 0) {
        if (kg_files_add(x->companions, dir) != 0) return x->oom = 1, NULL;
    } else if (errno != EEXIST) {
        kg_diag_add(x->d, KG_ERROR, "io.write", dir, 0, NULL, "cannot make folder '%s': %s", dir, strerror(errno));
        return NULL;
    }
    if (kg_mesh_write_stl(me, full, x->d) != 0) return NULL; /* an io.write error: kg_save fails the whole */
    if (kg_files_add(x->companions, full) != 0) return x->oom = 1, NULL;
    int colours = 0;
    for (int k = 0; k < me->ngroup; k++) colours += me->group[k].has_color;
    kg_ledger_add(x->l, KG_APPROXIMATED, "mesh", what, m->source, G->line,
                  "MuJoCo reads binary STL and OBJ only: '%s' written to '%s'%s", what, rel,
                  colours ? " (STL keeps no colours: its materials are lost)" : "");
    return copy(x, rel);
}

/* <asset>: materials, then one mesh per distinct file. */
static void assets(writer *x) {
    const kg_model *m = x->m;
    start(x, "asset");
    for (int k = 0; k < m->nmaterial; k++) {
        const kg_material *mat = &m->material[k];
        char name[64];
        if (!mat->name[0]) snprintf(name, sizeof name, "material_%d", k);
        start(x, "material");
        attr(x, "name", mat->name[0] ? mat->name : name);
        if (mat->has_color) attr_vec(x, "rgba", mat->rgba, 4);
        end(x);
        if (mat->texture)
            kg_ledger_add(x->l, KG_DROPPED, "texture", mat->texture, m->source, mat->line,
                          "the texture of material '%s' is not written (MuJoCo maps textures its own way)", mat->name);
    }
    /* read ahead (one child process for the files that are not STL); out of memory, when asked */
    if (!x->skip_meshes && x->path) (void)kg_mesh_cache_preload_geoms(x->meshes, m, rewritten, x, 1);
    for (int g = 0; g < m->ngeom; g++) {
        const kg_geom *G = &m->geom[g];
        if (x->mesh_asset[g] != g) continue;
        x->mesh_file[g] = !G->mesh_part && mujoco_reads(G->mesh_path) ? copy(x, G->mesh_path) : write_stl(x, g);
        if (!x->mesh_file[g]) continue;
        char name[32];
        snprintf(name, sizeof name, "mesh_%d", g);
        start(x, "mesh");
        attr(x, "name", name);
        attr(x, "file", x->mesh_file[g]);
        if (G->scale[0] != 1 || G->scale[1] != 1 || G->scale[2] != 1) attr_vec(x, "scale", G->scale, 3);
        end(x);
    }
    end(x);
}

/* ---- bodies ---------------------------------------------------------------------- */

static void geom(writer *x, int g) {
    const kg_model *m = x->m;
    const kg_geom *G = &m->geom[g];
    double size[3];
    const char *type;
    int n = 1;
    switch (G->type) {
    case KG_GEOM_BOX: type = "box", n = 3, size[0] = G->size[0] / 2, size[1] = G->size[1] / 2, size[2] = G->size[2] / 2; break;
    case KG_GEOM_SPHERE: type = "sphere", size[0] = G->size[0]; break;
    case KG_GEOM_CYLINDER: type = "cylinder", n = 2, size[0] = G->size[0], size[1] = G->size[1] / 2; break;
    case KG_GEOM_CAPSULE: type = "capsule", n = 2, size[0] = G->size[0], size[1] = G->size[1] / 2; break;
    default: type = "mesh", n = 0; break;
    }
    if (G->type == KG_GEOM_MESH && (x->mesh_asset[g] < 0 || !x->mesh_file[x->mesh_asset[g]])) return; /* in the ledger */
    start(x, "geom");
    attr(x, "class", kg_geom_role_name(G->role));
    attr(x, "type", type);
    if (n) attr_vec(x, "size", size, n);
    if (G->type == KG_GEOM_MESH) {
        char name[32];
        snprintf(name, sizeof name, "mesh_%d", x->mesh_asset[g]);
        attr(x, "mesh", name);
    }
    pose(x, G->pos, G->rot);
    if (G->material >= 0) {
        char name[64];
        snprintf(name, sizeof name, "material_%d", G->material);
        attr(x, "material", m->material[G->material].name[0] ? m->material[G->material].name : name);
    }
    end(x);
}

/* <inertial>: COM, principal axes and moments (see the file's comment). */
static void inertial(writer *x, int i) {
    const kg_model *m = x->m;
    const kg_link *L = &m->link[i];
    double mass = L->mass, moments[3] = {0, 0, 0}, axes[9], com[3] = {L->com[0], L->com[1], L->com[2]};
    kg_mat3_identity(axes);
    if (x->light[i]) {
        kg_ledger_add(x->l, KG_DEFAULTED, "inertial", L->name, m->source, L->line,
                      "MuJoCo refuses a moving body without mass: written with %g kg and %g kg m^2", MJCF_MIN_MASS,
                      MJCF_MIN_MASS);
        mass = MJCF_MIN_MASS;
        moments[0] = moments[1] = moments[2] = MJCF_MIN_MASS;
        com[0] = com[1] = com[2] = 0;
    } else if (!L->has_inertial) {
        return;
    } else if (!L->inertia[1] && !L->inertia[2] && !L->inertia[5]) { /* diagonal: kept as it reads */
        for (int k = 0; k < 3; k++) moments[k] = L->inertia[4 * k];
    } else if (kg_inertia_principal(L->inertia, moments, axes) != 0) {
        kg_ledger_add(x->l, KG_DROPPED, "inertial", L->name, m->source, L->line, "its inertia is not finite");
        return;
    }
    for (int k = 0; k < 3; k++) moments[k] = fmax(moments[k], 0); /* -1e-20 from rounding */
    double tol = 1e-12 * (moments[0] + moments[1] + moments[2]);
    int big = 0; /* the largest moment, and the sum of the two others */
    for (int k = 1; k < 3; k++)
        if (moments[k] > moments[big]) big = k;
    double others = moments[(big + 1) % 3] + moments[(big + 2) % 3];
    if (others < moments[big] - tol) {
        x->unbalanced = 1;
        kg_ledger_add(x->l, KG_APPROXIMATED, "inertial", L->name, m->source, L->line,
                      "principal moments %.17g %.17g %.17g break A + B >= C: MuJoCo mends them (balanceinertia)",
                      moments[0], moments[1], moments[2]);
    } else if (others < moments[big]) {
        moments[big] = others; /* equal within rounding (a thin plate): MuJoCo would refuse */
    }
    start(x, "inertial");
    attr_vec(x, "pos", com, 3);
    double q[4];
    kg_rot_to_quat(axes, q);
    if (q[0] != 1 || q[1] || q[2] || q[3]) attr_vec(x, "quat", q, 4);
    attr_num(x, "mass", mass);
    attr_vec(x, "diaginertia", moments, 3);
    end(x);
}

static void joint_attrs(writer *x, const kg_joint *J, const char *name, const char *type, const double axis[3]) {
    start(x, "joint");
    attr(x, "name", name);
    attr(x, "type", type);
    if (axis) attr_vec(x, "axis", axis, 3);
}

/* A hinge or slide for a one-coordinate joint, with its limits and dynamics. */
static void simple_joint(writer *x, const kg_joint *J) {
    const kg_model *m = x->m;
    joint_attrs(x, J, J->name, J->type == KG_JOINT_PRISMATIC ? "slide" : "hinge", J->axis);
    if (kg_joint_is_limited(J) && isfinite(J->lower) && isfinite(J->upper) && J->lower < J->upper) {
        attr(x, "limited", "true");
        double r[2] = {J->lower, J->upper};
        attr_vec(x, "range", r, 2);
    } else {
        attr(x, "limited", "false");
        if (kg_joint_is_limited(J))
            kg_ledger_add(x->l, KG_DROPPED, "limit", J->name, m->source, J->line,
                          "MuJoCo needs a range with two bounds, lower < upper: [%.17g, %.17g] is not written",
                          J->lower, J->upper);
    }
    if (J->has_dynamics) {
        if (J->damping) attr_num(x, "damping", J->damping);
        if (J->friction) attr_num(x, "frictionloss", J->friction);
    }
    end(x);
    x->key[x->nkey++] = x->m->q_default[J->qadr];
}

/* The MuJoCo joint name "joint.b" for one of joint J's coordinates, unique
 * among the MuJoCo joints ("#2", ... and a ledger entry when taken), owned by
 * x until teardown; "" with x->oom set when memory runs out. Names have no
 * length limit (one cut to a fixed buffer could end inside a UTF-8 character). */
static const char *dotted(writer *x, const kg_joint *J, const char *b) {
    int renamed = 0;
    const char *name = kg_names_join(&x->names, J->name, b, &renamed);
    if (!name) return x->oom = 1, "";
    if (renamed)
        kg_ledger_add(x->l, KG_APPROXIMATED, "joint", J->name, x->m->source, J->line,
                      "MuJoCo joint '%s.%s' is named '%s': another joint has that name", J->name, b, name);
    return name;
}

/* Joints that become several MuJoCo joints in one body. */
static void multi_joint(writer *x, const kg_joint *J, int top) {
    const kg_model *m = x->m;
    const double *q0 = m->q_default + J->qadr;
    const char *name;
    if (J->type == KG_JOINT_FLOATING && top) {
        start(x, "freejoint");
        attr(x, "name", J->name);
        end(x);
        double p[3], r[9], rq[9]; /* qpos0: the body's world pose at rest (the root is at the identity) */
        kg_mat3_vec(p, J->rot, q0);
        kg_rot_from_quat(rq, q0 + 3);
        kg_mat3_mul(r, J->rot, rq);
        for (int k = 0; k < 3; k++) x->key[x->nkey++] = J->pos[k] + p[k];
        kg_rot_to_quat(r, x->key + x->nkey);
        x->nkey += 4;
        return;
    }
    if (J->type == KG_JOINT_FLOATING || J->type == KG_JOINT_PLANAR) {
        double dir[3][3] = {{1, 0, 0}, {0, 1, 0}, {0, 0, 1}};
        int nslide = 3;
        static const char *const fl[] = {"x", "y", "z"}, *const pl[] = {"x", "y"};
        if (J->type == KG_JOINT_PLANAR) { /* the in-plane basis FK uses: r0^T u0, r0^T v0 */
            kg_mat3_tvec(dir[0], J->rot, m->kin[J->child].u0);
            kg_mat3_tvec(dir[1], J->rot, m->kin[J->child].v0);
            nslide = 2;
        } else {
            kg_ledger_add(x->l, KG_APPROXIMATED, "joint", J->name, m->source, J->line,
                          "MuJoCo allows free joints at the top level only: written as slides \"%s.x\", \".y\", "
                          "\".z\" and a ball \"%s.rotation\" (the same coordinates)", J->name, J->name);
        }
        for (int k = 0; k < nslide; k++) {
            name = dotted(x, J, J->type == KG_JOINT_PLANAR ? pl[k] : fl[k]);
            joint_attrs(x, J, name, "slide", dir[k]);
            attr(x, "limited", "false");
            end(x);
            x->key[x->nkey++] = q0[k];
        }
        name = dotted(x, J, J->type == KG_JOINT_PLANAR ? "angle" : "rotation");
        joint_attrs(x, J, name, J->type == KG_JOINT_PLANAR ? "hinge" : "ball", J->type == KG_JOINT_PLANAR ? J->axis : NULL);
        attr(x, "limited", "false");
        end(x);
        for (int k = nslide; k < J->nq; k++) x->key[x->nkey++] = q0[k];
        return;
    }
    for (int a = 0; a < J->naxis; a++) { /* compound */
        const kg_axis *ax = &m->axis[J->axis_first + a];
        name = dotted(x, J, ax->label);
        joint_attrs(x, J, name, ax->kind == KG_AXIS_ROTATION ? "hinge" : "slide", ax->dir);
        if (ax->has_limit && isfinite(ax->lower) && isfinite(ax->upper) && ax->lower < ax->upper) {
            attr(x, "limited", "true");
            double r[2] = {ax->lower, ax->upper};
            attr_vec(x, "range", r, 2);
        } else {
            attr(x, "limited", "false");
            if (ax->has_limit)
                kg_ledger_add(x->l, KG_DROPPED, "limit", name, m->source, J->line,
                              "MuJoCo needs a range with two bounds, lower < upper: [%.17g, %.17g] is not written",
                              ax->lower, ax->upper);
        }
        end(x);
        x->key[x->nkey++] = ax->rest;
        if (ax->rest != 0) x->rest_key = 1;
    }
}

static void body(writer *x, int i, int top);

/* The children of link i; a floating child of the root goes to the top level
 * instead (top: 1 for those, written by worldbody()). */
static void children(writer *x, int i, int skip_floating) {
    for (int c = x->first_child[i]; c >= 0; c = x->next_sibling[c])
        if (!(skip_floating && x->m->joint[x->m->link[c].joint].type == KG_JOINT_FLOATING)) body(x, c, 0);
}

static void body(writer *x, int i, int top) {
    const kg_model *m = x->m;
    const kg_link *L = &m->link[i];
    const kg_joint *J = &m->joint[L->joint];
    start(x, "body");
    attr(x, "name", L->name);
    pose(x, J->pos, J->rot);
    inertial(x, i);
    switch (J->type) {
    case KG_JOINT_FIXED: break;
    case KG_JOINT_REVOLUTE: case KG_JOINT_CONTINUOUS: case KG_JOINT_PRISMATIC: simple_joint(x, J); break;
    default: multi_joint(x, J, top); break;
    }
    for (int g = L->geom_first; g < L->geom_first + L->geom_count; g++) geom(x, g);
    for (int k = 0; k < m->nend_effector; k++) {
        const kg_end_effector *e = &m->end_effector[k];
        if (e->tip != i) continue;
        start(x, "site");
        attr(x, "name", e->name);
        pose(x, e->pos, e->rot);
        end(x);
        if (!e->from_extra)
            kg_ledger_add(x->l, KG_APPROXIMATED, "end_effector", e->name, m->source, e->line,
                          "written as a site on '%s' (its tool frame); MJCF has no place for its base link "
                          "and direction", L->name);
    }
    children(x, i, 0);
    end(x);
}

/* <worldbody>: the root link (as a body fixed to the world, or merged into the
 * world when named so), then the root's floating children at the top level. */
static void worldbody(writer *x) {
    const kg_model *m = x->m;
    const kg_link *R = &m->link[0];
    start(x, "worldbody");
    int merged = !strcmp(R->name, "world");
    if (merged) {
        if (R->has_inertial && R->mass > 0)
            kg_ledger_add(x->l, KG_DROPPED, "inertial", R->name, m->source, R->line,
                          "MuJoCo's world body has no mass: the root link 'world' is merged into it");
        for (int g = R->geom_first; g < R->geom_first + R->geom_count; g++) geom(x, g);
        children(x, 0, 1);
    } else {
        start(x, "body");
        attr(x, "name", R->name);
        inertial(x, 0);
        for (int g = R->geom_first; g < R->geom_first + R->geom_count; g++) geom(x, g);
        children(x, 0, 1);
        end(x);
    }
    for (int c = x->first_child[0]; c >= 0; c = x->next_sibling[c])
        if (m->joint[m->link[c].joint].type == KG_JOINT_FLOATING) body(x, c, 1);
    end(x);
}

/* ---- constraints, actuators, the rest --------------------------------------------- */

static void equalities(writer *x) {
    const kg_model *m = x->m;
    if (!m->nmimic && !m->nloop) return;
    start(x, "equality");
    for (int k = 0; k < m->nloop; k++) {
        const kg_loop *lp = &m->loop[k];
        start(x, "weld");
        attr(x, "name", m->joint[lp->cut_joint].name);
        attr(x, "body1", m->link[lp->virtual_link].name);
        attr(x, "body2", m->link[lp->real_link].name);
        attr(x, "relpose", "0 0 0 1 0 0 0"); /* coincide */
        end(x);
    }
    for (int k = 0; k < m->nmimic; k++) {
        const kg_mimic *mm = &m->mimic[k];
        const kg_joint *F = &m->joint[mm->follower], *Ld = &m->joint[mm->leader];
        if (F->nq != 1 || Ld->nq != 1 || F->type == KG_JOINT_COMPOUND || Ld->type == KG_JOINT_COMPOUND) {
            kg_ledger_add(x->l, KG_DROPPED, "mimic", F->name, m->source, mm->line,
                          "MuJoCo couples one-coordinate joints only: the coupling to '%s' is not written", Ld->name);
            continue;
        }
        start(x, "joint");
        attr(x, "joint1", F->name);
        attr(x, "joint2", Ld->name);
        double poly[5] = {mm->offset, mm->multiplier, 0, 0, 0};
        attr_vec(x, "polycoef", poly, 5);
        end(x);
    }
    end(x);
}

static void actuators(writer *x) {
    const kg_model *m = x->m;
    int any = 0;
    for (int j = 0; j < m->njoint; j++) {
        const kg_joint *J = &m->joint[j];
        int simple = J->type == KG_JOINT_REVOLUTE || J->type == KG_JOINT_CONTINUOUS || J->type == KG_JOINT_PRISMATIC;
        if (isnan(J->effort)) continue;
        if (!simple || !(J->effort > 0) || !isfinite(J->effort)) {
            kg_ledger_add(x->l, KG_DROPPED, "limit", J->name, m->source, J->line,
                          "effort limit %g: no motor written (motors are written for positive limits on hinges "
                          "and slides)", J->effort);
            continue;
        }
        if (!any++) start(x, "actuator");
        start(x, "motor");
        attr(x, "name", J->name);
        attr(x, "joint", J->name);
        attr(x, "ctrllimited", "true");
        double r[2] = {-J->effort, J->effort};
        attr_vec(x, "ctrlrange", r, 2);
        end(x);
    }
    if (any) end(x);
}

static void contacts(writer *x) {
    const kg_model *m = x->m;
    if (!m->ncollision_ignore) return;
    start(x, "contact");
    for (int k = 0; k < m->ncollision_ignore; k++) {
        const kg_link_pair *p = &m->collision_ignore[k];
        const char *a = m->link[p->a].name, *b = m->link[p->b].name;
        start(x, "exclude");
        attr(x, "body1", p->a == 0 && !strcmp(a, "world") ? "world" : a);
        attr(x, "body2", b);
        end(x);
    }
    end(x);
}

/* Everything of the model MJCF has no place for. */
static void ledger_rest(writer *x, const kg_motion *mo) {
    const kg_model *m = x->m;
    const char *f = m->source;
    if (mo)
        kg_ledger_add(x->l, KG_DROPPED, "motion", m->name, f, 0,
                      "MJCF holds no motion: %d frames of %d coordinates are not written (write a .csv or .json)",
                      mo->nframes, mo->nq);
    for (int j = 0; j < m->njoint; j++) {
        const kg_joint *J = &m->joint[j];
        if (!isnan(J->velocity) || !isnan(J->acceleration))
            kg_ledger_add(x->l, KG_DROPPED, "limit", J->name, f, J->line,
                          "MJCF has no velocity or acceleration limits");
        if (J->has_safety || J->calibration)
            kg_ledger_add(x->l, KG_DROPPED, "joint", J->name, f, J->line,
                          "MJCF has no safety controller or calibration");
        if (J->has_limit && !kg_joint_is_limited(J) && J->type != KG_JOINT_COMPOUND)
            kg_ledger_add(x->l, KG_DROPPED, "limit", J->name, f, J->line,
                          "position limits on a %s joint mean nothing and are not written", kg_joint_type_name(J->type));
    }
    for (int k = 0; k < m->nextra; k++)
        kg_ledger_add(x->l, KG_DROPPED, m->extra[k].kind, m->extra[k].name, f, m->extra[k].line,
                      "MJCF has no place for <%s>", m->extra[k].kind);
    if (x->rest_key)
        kg_ledger_add(x->l, KG_APPROXIMATED, "rest pose", m->name, f, 0,
                      "MuJoCo's reference pose is zero on every axis: the model's rest values are the keyframe "
                      "\"rest\"");
}

/* x->oom when memory runs out (teardown frees what was taken). */
static void setup(writer *x) {
    const kg_model *m = x->m;
    x->mesh_file = calloc((size_t)m->ngeom + 1, sizeof *x->mesh_file);
    x->mesh_asset = calloc((size_t)m->ngeom + 1, sizeof *x->mesh_asset);
    x->first_child = malloc((size_t)m->nlink * sizeof *x->first_child);
    x->next_sibling = malloc((size_t)m->nlink * sizeof *x->next_sibling);
    x->light = calloc((size_t)m->nlink, sizeof *x->light);
    x->key = calloc((size_t)m->nq + 1, sizeof *x->key);
    if (!x->mesh_file || !x->mesh_asset || !x->first_child || !x->next_sibling || !x->light || !x->key) {
        x->oom = 1;
        return;
    }
    for (int i = 0; i < m->nlink; i++) x->first_child[i] = x->next_sibling[i] = -1;
    for (int j = 0; j < m->njoint; j++) { /* the joints written under their own names */
        kg_joint_type t = m->joint[j].type;
        if (t == KG_JOINT_REVOLUTE || t == KG_JOINT_CONTINUOUS || t == KG_JOINT_PRISMATIC || t == KG_JOINT_FLOATING)
            kg_strmap_put(&x->names.taken, m->joint[j].name, j);
    }
    if (x->names.taken.failed) x->oom = 1;
    for (int i = m->nlink - 1; i > 0; i--) { /* backwards, so siblings stay in the model's order */
        x->next_sibling[i] = x->first_child[m->link[i].parent];
        x->first_child[m->link[i].parent] = i;
    }
    find_light_groups(x);
    plan_meshes(x);
}

static void teardown(writer *x) {
    for (int g = 0; x->mesh_file && g < x->m->ngeom; g++) free(x->mesh_file[g]);
    free(x->mesh_file), free(x->mesh_asset), free(x->first_child), free(x->next_sibling), free(x->light), free(x->key);
    kg_names_free(&x->names);
}

/* The document; the body tree is written first into its own buffer because the
 * compiler options (balanceinertia) depend on what it finds. */
int kg_export_mjcf(const kg_model *m, const kg_motion *mo, const kg_export_options *o, FILE *f, kg_ledger *l,
                   kg_diags *d) {
    kg_mesh_cache *own = o && o->meshes ? NULL : kg_mesh_cache_new();
    writer x = {.m = m, .l = l, .d = d, .path = o ? o->path : NULL, .meshes = own ? own : o ? o->meshes : NULL,
                .skip_meshes = o && o->skip_meshes, .companions = o ? o->companions : NULL};
    if (x.meshes) setup(&x);
    xmlBufferPtr body_buf = x.meshes && !x.oom ? xmlBufferCreate() : NULL;
    x.w = body_buf ? xmlNewTextWriterMemory(body_buf, 0) : NULL;
    if (!x.w) { /* out of memory (libxml2's too) */
        if (body_buf) xmlBufferFree(body_buf);
        teardown(&x);
        kg_mesh_cache_free(own);
        return kg_export_oom(o, d);
    }
    xmlTextWriterSetIndent(x.w, 1);
    xmlTextWriterSetIndentString(x.w, BAD_CAST "  ");
    start(&x, "mujoco"); /* a wrapper, so the pieces indent as they will sit */
    assets(&x);
    worldbody(&x);
    contacts(&x);
    equalities(&x);
    actuators(&x);
    if (x.rest_key) {
        start(&x, "keyframe");
        start(&x, "key");
        attr(&x, "name", "rest");
        attr_vec(&x, "qpos", x.key, x.nkey);
        end(&x);
        end(&x);
    }
    end(&x);
    xmlTextWriterEndDocument(x.w);
    xmlFreeTextWriter(x.w);
    ledger_rest(&x, mo);
    if (x.oom) { /* nothing written to f: kg_save fails the whole */
        xmlBufferFree(body_buf);
        teardown(&x);
        kg_mesh_cache_free(own);
        return kg_export_oom(o, d);
    }
    /* the head, then the pieces without the wrapper's tags */
    const char *text = (const char *)xmlBufferContent(body_buf);
    const char *open = strstr(text, "<mujoco>"), *close = strstr(text, "</mujoco>");
    fprintf(f, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<mujoco model=\"");
    kg_xml_escape(f, m->name ? m->name : "robot"); /* a line feed too, which the attribute keeps */
    fprintf(f, "\">\n  <compiler angle=\"radian\" inertiafromgeom=\"false\" boundmass=\"0\" boundinertia=\"0\"%s/>\n",
            x.unbalanced ? " balanceinertia=\"true\"" : "");
    fprintf(f, "  <default>\n    <default class=\"visual\">\n      <geom contype=\"0\" conaffinity=\"0\" group=\"2\"/>\n"
               "    </default>\n    <default class=\"collision\">\n      <geom group=\"3\"/>\n    </default>\n"
               "  </default>\n");
    if (open && close) fwrite(open + 9, 1, (size_t)(close - open - 9), f);
    fprintf(f, "</mujoco>\n");
    xmlBufferFree(body_buf);
    teardown(&x);
    kg_mesh_cache_free(own);
    return ferror(f) ? -1 : 0;
}
