#include "core/builder.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/arena.h"
#include "core/spatial.h"
#include "core/strmap.h"

/* Builder records wrap the public structs so importers fill the real thing. */
typedef struct blink {
    kg_link l; /* first member: kg_link * and blink * convert */
    int index; /* declaration order */
} blink;

typedef struct bjoint {
    kg_joint j; /* first member */
    const char *parent_name, *child_name;
    int parent, child; /* declaration indices of links, -1 when unresolved */
    int model_index; /* set while laying the model out */
    int prefer_cut;
    int has_mimic;
    const char *mimic_leader;
    double mimic_multiplier, mimic_offset;
    int mimic_line;
} bjoint;

typedef struct baxis {
    kg_axis a;
    bjoint *joint;
} baxis;

typedef struct bmaterial {
    kg_material m; /* first member */
    int index;
} bmaterial;

typedef struct bgeom {
    kg_geom g;
    blink *link;
    const char *material_name; /* by name, or */
    bmaterial *material;       /* directly (anonymous materials) */
} bgeom;

typedef struct bfeature { /* an end effector or an ignored pair: links by pointer until finish */
    kg_end_effector e;
    blink *base, *tip; /* for a pair: its two links */
    int pair;
} bfeature;

static void out_of_memory(struct kg_builder *b);

#define VEC(T) struct { T *v; int n, cap; }
/* Appends x to builder b's vec; when memory runs out x is not kept, and b->oom
 * is set (kg_builder_finish fails). */
#define VEC_PUSH(b, vec, x)                                                       \
    do {                                                                          \
        if ((vec).n == (vec).cap) {                                               \
            int cap_ = (vec).cap ? 2 * (vec).cap : 16;                            \
            void *v_ = realloc((vec).v, (size_t)cap_ * sizeof *(vec).v);          \
            if (!v_) {                                                            \
                out_of_memory(b);                                                     \
                break;                                                            \
            }                                                                     \
            (vec).v = v_, (vec).cap = cap_;                                       \
        }                                                                         \
        (vec).v[(vec).n++] = (x);                                                 \
    } while (0)

struct kg_builder {
    kg_arena *arena; /* becomes the model's */
    kg_diags *diags;
    const char *file, *format, *name, *forbid_loops;
    VEC(blink *) links;
    VEC(bjoint *) joints;
    VEC(bgeom *) geoms;
    VEC(bmaterial *) materials;
    VEC(kg_extra) extras;
    VEC(baxis) axes;
    VEC(bfeature *) features;
    blink *root_body;
    kg_strmap material_map;
    /* Memory ran out: the model cannot be built; kg_builder_finish says so and
     * returns NULL. Until then the adders hand out these spares (what is written
     * into them is dropped), so that importers need not check every call. */
    int oom;
    size_t oom_at; /* the diagnostics from then on are dropped (kg_diag_out_of_memory) */
    struct {
        blink link;
        bjoint joint;
        bgeom geom;
        bmaterial material;
        bfeature feature;
    } spare;
};

static void out_of_memory(kg_builder *b) {
    if (b->oom) return;
    b->oom = 1;
    b->oom_at = b->diags ? b->diags->count : 0;
}

/* size zeroed bytes of the model's arena, or, when memory runs out, spare
 * zeroed and b->oom set. */
static void *add(kg_builder *b, size_t size, void *spare) {
    void *p = kg_arena_alloc(b->arena, size);
    if (p) return p;
    out_of_memory(b);
    return memset(spare, 0, size);
}

/* s in the model's arena (NULL for NULL), or "" and b->oom set. */
static const char *dup(kg_builder *b, const char *s) {
    if (!s) return NULL;
    char *d = kg_arena_strdup(b->arena, s);
    if (!d) out_of_memory(b);
    return d ? d : "";
}

/* Finishing: the arena's memory or the builder's own scratch (freed by the
 * step), NULL and b->oom set when memory runs out; the step then returns. */
static void *keep(kg_builder *b, size_t n, size_t size) {
    void *p = n <= SIZE_MAX / size ? kg_arena_alloc(b->arena, n * size) : NULL;
    if (!p) out_of_memory(b);
    return p;
}

static void *scratch(kg_builder *b, size_t n, size_t size) {
    void *p = calloc(n ? n : 1, size);
    if (!p) out_of_memory(b);
    return p;
}

kg_builder *kg_builder_new(const char *file, const char *format, kg_diags *diags) {
    kg_builder *b = calloc(1, sizeof *b);
    if (b) b->arena = kg_arena_new();
    if (!b || !b->arena) {
        free(b);
        kg_diag_add(diags, KG_ERROR, "io.memory", file, 0, NULL, "out of memory before reading the model");
        return NULL;
    }
    b->diags = diags;
    b->file = dup(b, file);
    b->format = dup(b, format);
    kg_strmap_init(&b->material_map);
    return b;
}

void kg_builder_free(kg_builder *b) {
    if (!b) return;
    kg_arena_free(b->arena);
    free(b->links.v);
    free(b->joints.v);
    free(b->geoms.v);
    free(b->materials.v);
    free(b->extras.v);
    free(b->axes.v);
    free(b->features.v);
    kg_strmap_free(&b->material_map);
    free(b);
}

const char *kg_builder_strdup(kg_builder *b, const char *s) { return dup(b, s); }

void kg_builder_set_name(kg_builder *b, const char *name) { b->name = dup(b, name); }

void kg_builder_forbid_loops(kg_builder *b, const char *format_name) { b->forbid_loops = dup(b, format_name); }

kg_link *kg_builder_add_link(kg_builder *b, const char *name, int line) {
    blink *l = add(b, sizeof *l, &b->spare.link);
    l->l.name = dup(b, name ? name : "");
    l->l.parent = l->l.joint = l->l.real = l->l.loop = -1;
    kg_mat3_identity(l->l.inertial.rot);
    l->l.line = line;
    l->index = b->links.n;
    VEC_PUSH(b, b->links, l);
    return &l->l;
}

kg_joint *kg_builder_add_joint(kg_builder *b, const char *name, kg_joint_type type, const char *parent,
                               const char *child, int line) {
    bjoint *j = add(b, sizeof *j, &b->spare.joint);
    j->j.name = dup(b, name ? name : "");
    j->j.type = type;
    kg_mat3_identity(j->j.rot);
    j->j.axis[0] = 1; /* URDF's default axis */
    j->j.lower = -INFINITY;
    j->j.upper = INFINITY;
    j->j.effort = j->j.velocity = j->j.acceleration = NAN;
    j->j.mimic = j->j.loop = -1;
    j->j.line = line;
    j->parent_name = dup(b, parent ? parent : "");
    j->child_name = dup(b, child ? child : "");
    j->parent = j->child = -1;
    VEC_PUSH(b, b->joints, j);
    return &j->j;
}

void kg_builder_add_axis(kg_builder *b, kg_joint *j, kg_axis_kind kind, const double dir[3], int coord,
                         double rest, const char *label) {
    baxis x = {{0}, (bjoint *)j};
    x.a.kind = kind;
    x.a.coord = coord;
    x.a.rest = rest;
    kg_vec3_copy(x.a.dir, dir);
    x.a.label = dup(b, label ? label : "");
    /* a label is the coordinate's name ("joint.label" in every output): unique within its joint
     * (its axes are added one after another) */
    size_t n = strlen(x.a.label) + 16; /* any length: a cut label would stay taken */
    char *buf = NULL;
    int renamed = 0;
    for (int k = 2; x.a.label[0]; k++) {
        int taken = 0;
        for (int i = b->axes.n - 1; i >= 0 && b->axes.v[i].joint == x.joint && !taken; i--)
            taken = !strcmp(b->axes.v[i].a.label, x.a.label);
        if (!taken || (!buf && !(buf = malloc(n)))) break;
        snprintf(buf, n, "%s#%d", label, k);
        x.a.label = dup(b, buf), renamed = 1;
    }
    free(buf);
    if (renamed)
        kg_diag_add(b->diags, KG_WARNING, "joint.duplicate_axis", b->file, j->line, "joint",
                    "joint '%s' has two axes labelled '%s': this one is '%s'", j->name, label, x.a.label);
    VEC_PUSH(b, b->axes, x);
}

void kg_builder_set_root_body(kg_builder *b, kg_link *link) { b->root_body = (blink *)link; }

void kg_builder_prefer_cut(kg_builder *b, kg_joint *j) {
    (void)b;
    if (j) ((bjoint *)j)->prefer_cut = 1;
}

void kg_builder_set_mimic(kg_builder *b, kg_joint *follower, const char *leader, double multiplier,
                          double offset, int line) {
    bjoint *j = (bjoint *)follower;
    j->has_mimic = 1;
    j->mimic_leader = dup(b, leader ? leader : "");
    j->mimic_multiplier = multiplier;
    j->mimic_offset = offset;
    j->mimic_line = line;
}

kg_geom *kg_builder_add_geom(kg_builder *b, kg_link *link, kg_geom_role role, kg_geom_type type,
                             const char *material, int line) {
    bgeom *g = add(b, sizeof *g, &b->spare.geom);
    g->link = (blink *)link;
    g->g.role = role;
    g->g.type = type;
    kg_mat3_identity(g->g.rot);
    g->g.scale[0] = g->g.scale[1] = g->g.scale[2] = 1;
    g->g.material = -1;
    g->g.line = line;
    g->material_name = material ? dup(b, material) : NULL;
    VEC_PUSH(b, b->geoms, g);
    return &g->g;
}

int kg_builder_has_material(const kg_builder *b, const char *name) {
    return kg_strmap_get(&b->material_map, name) >= 0;
}

kg_material *kg_builder_add_material(kg_builder *b, const char *name, int line) {
    bmaterial *m = add(b, sizeof *m, &b->spare.material);
    m->m.name = dup(b, name ? name : "");
    m->m.line = line;
    int first = m->m.name[0] ? kg_strmap_put(&b->material_map, m->m.name, b->materials.n) : -1;
    if (b->material_map.failed) out_of_memory(b);
    if (first >= 0) {
        kg_diag_add(b->diags, KG_ERROR, "material.duplicate", b->file, line, "material",
                    "material '%s' is defined twice", m->m.name);
        return NULL;
    }
    m->index = b->materials.n;
    VEC_PUSH(b, b->materials, m);
    return &m->m;
}

void kg_builder_set_geom_material(kg_builder *b, kg_geom *g, kg_material *m) {
    (void)b;
    ((bgeom *)g)->material_name = NULL;
    ((bgeom *)g)->material = (bmaterial *)m;
}

void kg_builder_add_extra(kg_builder *b, const char *kind, const char *name, const char *xml, int line) {
    kg_extra e = {dup(b, kind), dup(b, name), dup(b, xml), line};
    VEC_PUSH(b, b->extras, e);
}

/* ---- finishing ----------------------------------------------------------- */

static int joint_nq(const kg_joint *j) {
    switch (j->type) {
    case KG_JOINT_FIXED: return 0;
    case KG_JOINT_FLOATING: return 7;
    case KG_JOINT_PLANAR: return 3;
    case KG_JOINT_COMPOUND: return j->naxis;
    default: return 1;
    }
}

static int joint_nv(const kg_joint *j) { return j->type == KG_JOINT_FLOATING ? 6 : joint_nq(j); }

/* Is dir = +-e_a? Then Rot(dir, q) mixes columns ci, cj (cyclic after a). */
static int coordinate_axis(const double dir[3], int *ci, int *cj, double *sign) {
    for (int a = 0; a < 3; a++) {
        int b1 = (a + 1) % 3, b2 = (a + 2) % 3;
        if ((dir[a] == 1 || dir[a] == -1) && dir[b1] == 0 && dir[b2] == 0) {
            *ci = b1;
            *cj = b2;
            *sign = dir[a];
            return 1;
        }
    }
    return 0;
}

static int all_finite(const double *v, int n) {
    for (int i = 0; i < n; i++)
        if (!isfinite(v[i])) return 0;
    return 1;
}

/* Two unit vectors spanning the plane normal to `axis` (planar joints): the basis
 * vector least aligned with the axis, made orthogonal, then axis x u. For the
 * usual axis z this gives u = x, v = y. */
static void plane_basis(const double axis[3], double u[3], double v[3]) {
    int k = 0;
    for (int i = 1; i < 3; i++)
        if (fabs(axis[i]) < fabs(axis[k])) k = i;
    double e[3] = {0, 0, 0};
    e[k] = 1;
    double d = kg_vec3_dot(axis, e);
    for (int i = 0; i < 3; i++) u[i] = e[i] - d * axis[i];
    double n = kg_vec3_norm(u);
    for (int i = 0; i < 3; i++) u[i] /= n;
    kg_vec3_cross(v, axis, u);
}

static int precompute_kin(kg_builder *b, kg_model *m) {
    m->kin_axis = keep(b, (size_t)m->naxis + 1, sizeof *m->kin_axis);
    m->angle_q = keep(b, (size_t)m->nq + 1, sizeof *m->angle_q);
    if (!m->kin_axis || !m->angle_q) return -1;
    for (int x = 0; x < m->naxis; x++) {
        const kg_axis *ax = &m->axis[x];
        kg_kin_axis *k = &m->kin_axis[x];
        k->kind = ax->kind;
        k->q = m->joint[ax->joint].qadr + ax->coord;
        kg_vec3_copy(k->dir, ax->dir);
        k->aligned = coordinate_axis(ax->dir, &k->ci, &k->cj, &k->sign);
        double sk[9];
        kg_mat3_skew(sk, ax->dir);
        kg_mat3_copy(k->b1, sk);
        kg_mat3_mul(k->b2, sk, sk);
    }
    /* the coordinates that are angles, for the sincos pre-pass of kg_fk */
    for (int j = 0; j < m->njoint; j++) {
        const kg_joint *J = &m->joint[j];
        if (J->type == KG_JOINT_REVOLUTE || J->type == KG_JOINT_CONTINUOUS) m->angle_q[m->nangle++] = J->qadr;
        else if (J->type == KG_JOINT_PLANAR) m->angle_q[m->nangle++] = J->qadr + 2;
        else if (J->type == KG_JOINT_COMPOUND)
            for (int a = 0; a < J->naxis; a++)
                if (m->axis[J->axis_first + a].kind == KG_AXIS_ROTATION)
                    m->angle_q[m->nangle++] = J->qadr + m->axis[J->axis_first + a].coord;
    }
    for (int i = 1; i < m->nlink; i++) {
        const kg_joint *j = &m->joint[m->link[i].joint];
        kg_kin *k = &m->kin[i];
        k->parent = m->link[i].parent;
        k->type = j->type;
        k->qadr = j->qadr;
        kg_vec3_copy(k->p0, j->pos);
        kg_mat3_copy(k->r0, j->rot);
        double id[9];
        kg_mat3_identity(id);
        k->rot_identity = memcmp(id, j->rot, sizeof id) == 0;
        kg_mat3_vec(k->a0, j->rot, j->axis);
        double s[9], s2[9];
        kg_mat3_skew(s, j->axis);
        kg_mat3_mul(s2, s, s);
        kg_mat3_mul(k->b1, j->rot, s);
        kg_mat3_mul(k->b2, j->rot, s2);
        k->aligned = coordinate_axis(j->axis, &k->ci, &k->cj, &k->sign);
        k->axis_first = j->axis_first;
        k->naxis = j->type == KG_JOINT_COMPOUND ? j->naxis : 0;
        if (j->type == KG_JOINT_PLANAR) {
            double u[3], v[3];
            plane_basis(j->axis, u, v);
            kg_mat3_vec(k->u0, j->rot, u);
            kg_mat3_vec(k->v0, j->rot, v);
        }
    }
    return 0;
}

/* Validates what the kinematics and mass computations rely on; fixes nothing
 * silently (normalising an axis is reported). */
static void validate_joint(kg_builder *b, kg_joint *j) {
    const char *f = b->file;
    if (!all_finite(j->pos, 3) || !all_finite(j->rpy, 3) || !all_finite(j->axis, 3))
        kg_diag_add(b->diags, KG_ERROR, "joint.not_finite", f, j->line, "joint",
                    "joint '%s' has a non-finite origin or axis", j->name);
    if (j->nq > 0 && j->type != KG_JOINT_FLOATING && j->type != KG_JOINT_COMPOUND) {
        double n = kg_vec3_norm(j->axis);
        if (n == 0) {
            kg_diag_add(b->diags, KG_ERROR, "joint.axis_zero", f, j->line, "axis",
                        "joint '%s' has a zero axis; it cannot move", j->name);
        } else if (isfinite(n) && fabs(n - 1) > 1e-9) {
            kg_diag_add(b->diags, KG_WARNING, "joint.axis_not_unit", f, j->line, "axis",
                        "joint '%s' axis has length %.9g; normalised", j->name, n);
            for (int i = 0; i < 3; i++) j->axis[i] /= n;
        }
    }
    if (j->has_limit) {
        if (isnan(j->lower) || isnan(j->upper))
            kg_diag_add(b->diags, KG_ERROR, "joint.limit_not_finite", f, j->line, "limit",
                        "joint '%s' has a NaN limit", j->name);
        else if (j->lower > j->upper && (j->type == KG_JOINT_REVOLUTE || j->type == KG_JOINT_PRISMATIC))
            kg_diag_add(b->diags, KG_ERROR, "joint.limit_inverted", f, j->line, "limit",
                        "joint '%s' has lower limit %.17g above upper limit %.17g", j->name, j->lower,
                        j->upper);
    }
}

/* A compound joint's axes: unit directions, and coordinates 0..n-1 each used once. */
static void validate_axes(kg_builder *b, const kg_joint *j, kg_axis *ax) {
    unsigned used = 0;
    for (int a = 0; a < j->naxis; a++) {
        double n = kg_vec3_norm(ax[a].dir);
        if (!(n > 0) || !isfinite(n)) {
            kg_diag_add(b->diags, KG_ERROR, "joint.axis_zero", b->file, j->line, "axis",
                        "axis %d of joint '%s' is zero or not finite", a, j->name);
        } else if (fabs(n - 1) > 1e-9) {
            for (int i = 0; i < 3; i++) ax[a].dir[i] /= n;
        }
        if (ax[a].coord < 0 || ax[a].coord >= j->naxis || ax[a].coord >= 32 || (used >> ax[a].coord & 1)) {
            kg_diag_add(b->diags, KG_ERROR, "joint.axis_coordinate", b->file, j->line, "axis",
                        "axis %d of joint '%s' has a bad coordinate index %d", a, j->name, ax[a].coord);
            ax[a].coord = a;
        }
        used |= 1u << (ax[a].coord & 31);
    }
}

static void validate_link(kg_builder *b, kg_link *l) {
    if (!l->has_inertial) return;
    const kg_inertial *in = &l->inertial;
    if (!isfinite(in->mass) || !all_finite(in->pos, 3) || !all_finite(in->rpy, 3) ||
        !all_finite(in->inertia, 6))
        kg_diag_add(b->diags, KG_ERROR, "link.inertial_not_finite", b->file, l->line, "inertial",
                    "link '%s' has a non-finite mass, inertia or inertial origin", l->name);
    else if (in->mass < 0)
        kg_diag_add(b->diags, KG_ERROR, "link.mass_negative", b->file, l->line, "mass",
                    "link '%s' has negative mass %.17g kg", l->name, in->mass);
}

/* Orders mimic couplings so that leaders are evaluated before their followers
 * (a follower may itself lead). Couplings on a cycle are reported and dropped,
 * which makes their joints independent. Returns the number of couplings kept,
 * or -1 when memory runs out. */
static int order_mimics(kg_builder *b, kg_model *m, int *mleader, kg_mimic *out) {
    int nj = m->njoint, n = 0, maxd = 0;
    int *state = scratch(b, (size_t)nj + 1, sizeof *state); /* 0 new, 1 on path, 2 done */
    int *depth = scratch(b, (size_t)nj + 1, sizeof *depth);
    int *path = scratch(b, (size_t)nj + 1, sizeof *path);
    if (!state || !depth || !path) {
        free(state), free(depth), free(path);
        return -1;
    }
    for (int j = 0; j < nj; j++) {
        if (mleader[j] < 0 || state[j]) continue;
        int np = 0, k = j, d;
        while (mleader[k] >= 0 && state[k] == 0) {
            state[k] = 1;
            path[np++] = k;
            k = mleader[k];
        }
        if (mleader[k] < 0) {
            d = 0;
        } else if (state[k] == 2) {
            d = depth[k] + 1;
        } else { /* k is on this path: path[s..np) is a cycle */
            int s = 0;
            while (path[s] != k) s++;
            for (int i = s; i < np; i++) {
                kg_diag_add(b->diags, KG_ERROR, "mimic.cycle", b->file, m->joint[path[i]].line, "mimic",
                            "joint '%s' is part of a cycle of mimic couplings; coupling ignored",
                            m->joint[path[i]].name);
                mleader[path[i]] = -1;
                state[path[i]] = 2;
            }
            np = s;
            d = 0;
        }
        for (int i = np - 1; i >= 0; i--) {
            depth[path[i]] = d++;
            state[path[i]] = 2;
            if (depth[path[i]] > maxd) maxd = depth[path[i]];
        }
    }
    for (int d = 0; d <= maxd; d++)
        for (int j = 0; j < nj; j++)
            if (mleader[j] >= 0 && depth[j] == d) {
                out[n].follower = j;
                out[n].leader = mleader[j];
                n++;
            }
    free(state);
    free(depth);
    free(path);
    return n;
}

/* The joint graph while it is turned into a tree. Indices are declaration
 * indices of the builder's (compacted) lists. */
typedef struct graph {
    int nl, nj;
    int *out_start, *out_list; /* joints leaving each link, declaration order (CSR) */
    int *tree_joint;           /* per link: its tree joint; -1 root, -2 unreached */
    char *cut;                 /* per joint: closes a loop */
    int ncut;
    int *order;                /* topological order of nodes (nl + ncut of them) */
    int *newidx;               /* node -> model link index; node nl + j is cut joint j's virtual link */
} graph;

static void graph_free(graph *g) {
    free(g->out_start);
    free(g->out_list);
    free(g->tree_joint);
    free(g->cut);
    free(g->order);
    free(g->newidx);
}

/* Step 1: names. Links and joints whose definitions are unusable (no name, a
 * duplicate, a missing or self link) are reported and left out, so the rest of
 * the model can still be built and checked. */
static void resolve_names(kg_builder *b) {
    kg_diags *D = b->diags;
    const char *F = b->file;
    int nl = b->links.n, nj = b->joints.n;
    kg_strmap lmap, jmap;
    kg_strmap_init(&lmap);
    kg_strmap_init(&jmap);
    char *skip = scratch(b, (size_t)nj + 1, 1);
    if (!skip) return;
    for (int i = 0; i < nl; i++) {
        blink *l = b->links.v[i];
        if (!l->l.name[0]) {
            kg_diag_add(D, KG_ERROR, "link.no_name", F, l->l.line, "link", "a link has no name; left out");
            l->index = -1;
        } else if (kg_strmap_put(&lmap, l->l.name, i) >= 0) {
            int first = kg_strmap_get(&lmap, l->l.name);
            kg_diag_add(D, KG_ERROR, "link.duplicate", F, l->l.line, "link",
                        "link '%s' is defined twice (first at line %d); the second definition is left out",
                        l->l.name, b->links.v[first]->l.line);
            l->index = -1;
        }
    }
    /* a name the map could not hold would read as missing below */
    for (int i = 0; !lmap.failed && i < nj; i++) {
        bjoint *j = b->joints.v[i];
        if (!j->j.name[0]) {
            kg_diag_add(D, KG_ERROR, "joint.no_name", F, j->j.line, "joint", "a joint has no name");
        } else if (kg_strmap_put(&jmap, j->j.name, i) >= 0) {
            int first = kg_strmap_get(&jmap, j->j.name);
            kg_diag_add(D, KG_ERROR, "joint.duplicate", F, j->j.line, "joint",
                        "joint '%s' is defined twice (first at line %d); the second definition is left out",
                        j->j.name, b->joints.v[first]->j.line);
            skip[i] = 1;
            continue;
        }
        int parent = kg_strmap_get(&lmap, j->parent_name), child = kg_strmap_get(&lmap, j->child_name);
        if (parent < 0) {
            kg_diag_add(D, KG_ERROR, "joint.missing_link", F, j->j.line, "parent",
                        "joint '%s' names parent link '%s', which is not defined; joint left out",
                        j->j.name, j->parent_name);
            skip[i] = 1;
        }
        if (child < 0) {
            kg_diag_add(D, KG_ERROR, "joint.missing_link", F, j->j.line, "child",
                        "joint '%s' names child link '%s', which is not defined; joint left out",
                        j->j.name, j->child_name);
            skip[i] = 1;
        }
        if (!skip[i] && parent == child) {
            kg_diag_add(D, KG_ERROR, "joint.self_parent", F, j->j.line, "joint",
                        "joint '%s' has link '%s' as both parent and child; joint left out", j->j.name,
                        j->parent_name);
            skip[i] = 1;
        }
    }
    if (lmap.failed || jmap.failed) {
        out_of_memory(b);
        free(skip);
        kg_strmap_free(&lmap);
        kg_strmap_free(&jmap);
        return;
    }
    /* compact the lists and index the survivors */
    int n = 0;
    for (int i = 0; i < nl; i++)
        if (b->links.v[i]->index >= 0) b->links.v[n++] = b->links.v[i];
    b->links.n = n;
    kg_strmap_free(&lmap);
    kg_strmap_init(&lmap);
    for (int i = 0; i < n; i++) {
        b->links.v[i]->index = i;
        kg_strmap_put(&lmap, b->links.v[i]->l.name, i);
    }
    n = 0;
    for (int i = 0; i < nj; i++)
        if (!skip[i] && !lmap.failed) {
            bjoint *j = b->joints.v[i];
            j->parent = kg_strmap_get(&lmap, j->parent_name);
            j->child = kg_strmap_get(&lmap, j->child_name);
            b->joints.v[n++] = j;
        }
    b->joints.n = n;
    n = 0; /* the geoms of a left-out link go with it */
    for (int g = 0; g < b->geoms.n; g++)
        if (b->geoms.v[g]->link->index >= 0) b->geoms.v[n++] = b->geoms.v[g];
    b->geoms.n = n;
    if (lmap.failed) out_of_memory(b);
    free(skip);
    kg_strmap_free(&lmap);
    kg_strmap_free(&jmap);
}

/* Step 2: the root is the link no joint leads to. Returns it, or -1 when there is
 * no single tree (an error says why). With no root at all (every link is a
 * child: a pure cycle) the parent of the first joint is used, with an error. */
static int find_root(kg_builder *b) {
    int nl = b->links.n, nj = b->joints.n, root = -1, nroot = 0;
    int *in = scratch(b, (size_t)nl, sizeof *in);
    if (!in) return -1;
    for (int i = 0; i < nj; i++) in[b->joints.v[i]->child]++;
    for (int i = 0; i < nl; i++)
        if (in[i] == 0 && nroot++ == 0) root = i;
    if (nroot > 1) {
        char list[512] = "";
        size_t len = 0;
        int shown = 0;
        for (int i = 0; i < nl && shown < 8; i++)
            if (in[i] == 0)
                len += (size_t)snprintf(list + len, sizeof list - len, "%s'%.40s'", shown++ ? ", " : "",
                                        b->links.v[i]->l.name);
        kg_diag_add(b->diags, KG_ERROR, "topology.multiple_roots", b->file, b->links.v[root]->l.line, "link",
                    "the model has %d root links (links no joint leads to): %s%s; it must have one", nroot,
                    list, nroot > shown ? ", ..." : "");
        root = -1;
    } else if (nroot == 0) {
        root = b->joints.v[0]->parent;
        kg_diag_add(b->diags, KG_ERROR, "topology.no_root", b->file, b->links.v[root]->l.line, "link",
                    "every link is the child of a joint, so there is no root link; "
                    "'%s' (parent of the first joint) is used as the root",
                    b->links.v[root]->l.name);
    }
    free(in);
    return root;
}

/* Step 3: a breadth-first spanning tree from the root, joints in declaration
 * order; a joint into an already reached link is cut (it closes a loop). Joints
 * marked prefer_cut are used only for links nothing else reaches (a second
 * pass). Returns 0, or -1 when links cannot be reached or memory runs out. */
static int spanning_tree(kg_builder *b, int root, graph *g) {
    int nl = g->nl = b->links.n, nj = g->nj = b->joints.n;
    g->out_start = scratch(b, (size_t)nl + 1, sizeof *g->out_start);
    g->out_list = scratch(b, (size_t)nj + 1, sizeof *g->out_list);
    g->tree_joint = scratch(b, (size_t)nl, sizeof *g->tree_joint);
    g->cut = scratch(b, (size_t)nj + 1, 1);
    int *fill = scratch(b, (size_t)nl + 1, sizeof *fill), *queue = scratch(b, (size_t)nl, sizeof *queue), qh = 0, qt = 0;
    char *decided = scratch(b, (size_t)nj + 1, 1); /* preferred-cut joints already placed */
    if (b->oom) { /* graph_free frees g's */
        free(fill), free(queue), free(decided);
        return -1;
    }
    for (int i = 0; i < nj; i++) g->out_start[b->joints.v[i]->parent + 1]++;
    for (int i = 0; i < nl; i++) g->out_start[i + 1] += g->out_start[i];
    memcpy(fill, g->out_start, (size_t)nl * sizeof *fill);
    for (int i = 0; i < nj; i++) g->out_list[fill[b->joints.v[i]->parent]++] = i;
    free(fill);

    for (int i = 0; i < nl; i++) g->tree_joint[i] = -2;
    g->tree_joint[root] = -1;
    queue[qt++] = root;
    for (;;) {
        while (qh < qt) {
            int u = queue[qh++];
            for (int k = g->out_start[u]; k < g->out_start[u + 1]; k++) {
                int j = g->out_list[k], c = b->joints.v[j]->child;
                if (b->joints.v[j]->prefer_cut) continue;
                if (g->tree_joint[c] == -2) {
                    g->tree_joint[c] = j;
                    queue[qt++] = c;
                } else {
                    g->cut[j] = 1;
                    g->ncut++;
                }
            }
        }
        /* nothing else reaches further: place preferred-cut joints from reached
         * links, until one reaches a new link (then explore from it) */
        int grew = 0;
        for (int j = 0; j < nj && !grew; j++) {
            const bjoint *bj = b->joints.v[j];
            if (!bj->prefer_cut || decided[j] || g->tree_joint[bj->parent] == -2) continue;
            decided[j] = 1;
            if (g->tree_joint[bj->child] == -2) {
                g->tree_joint[bj->child] = j;
                queue[qt++] = bj->child;
                grew = 1;
            } else {
                g->cut[j] = 1;
                g->ncut++;
            }
        }
        if (!grew) break;
    }
    free(decided);
    free(queue);
    int unreached = 0;
    for (int i = 0; i < nl; i++)
        if (g->tree_joint[i] == -2 && unreached++ < 8)
            kg_diag_add(b->diags, KG_ERROR, "topology.unreachable", b->file, b->links.v[i]->l.line, "link",
                        "link '%s' cannot be reached from the root link '%s'", b->links.v[i]->l.name,
                        b->links.v[root]->l.name);
    return unreached ? -1 : 0;
}

/* Step 4: topological order by depth-first preorder, children in declaration
 * order; a cut joint's virtual link is a leaf under the joint's parent. 0, or -1
 * when memory runs out. */
static int topological_order(kg_builder *b, int root, graph *g) {
    int nl = g->nl, n = nl + g->ncut;
    g->order = scratch(b, (size_t)n, sizeof *g->order);
    g->newidx = scratch(b, (size_t)nl + (size_t)g->nj, sizeof *g->newidx);
    int *stack = scratch(b, (size_t)n + 1, sizeof *stack), sp = 0, norder = 0;
    if (b->oom) return free(stack), -1;
    stack[sp++] = root;
    while (sp) {
        int u = stack[--sp];
        g->newidx[u] = norder;
        g->order[norder++] = u;
        if (u >= nl) continue;
        for (int k = g->out_start[u + 1] - 1; k >= g->out_start[u]; k--) {
            int j = g->out_list[k];
            stack[sp++] = g->cut[j] ? nl + j : b->joints.v[j]->child;
        }
    }
    free(stack);
    return 0;
}

/* The builder joint behind model joint j (the tree joint of link j + 1, or the
 * cut joint of a virtual link). */
static const bjoint *source_joint(const kg_builder *b, const graph *g, int j) {
    int u = g->order[j + 1];
    return b->joints.v[u < g->nl ? g->tree_joint[u] : u - g->nl];
}

/* Step 5a: the links and their tree joints in topological order; a cut joint's
 * virtual link is kinematic only. */
static void place_links(kg_builder *b, const graph *g, kg_model *m) {
    int loop = 0;
    for (int i = 0; i < m->nlink; i++) {
        int u = g->order[i];
        kg_link *L = &m->link[i];
        if (u < g->nl) {
            *L = b->links.v[u]->l;
            L->real = L->loop = -1;
        } else { /* a virtual link: kinematic only, no mass */
            const bjoint *cj = b->joints.v[u - g->nl];
            const char *child = b->links.v[cj->child]->l.name;
            size_t n = strlen(child) + strlen(cj->j.name) + 2; /* any length: a cut name could stay taken */
            char *name = malloc(n);
            if (name) snprintf(name, n, "%s@%s", child, cj->j.name);
            else out_of_memory(b);
            memset(L, 0, sizeof *L);
            L->name = dup(b, name ? name : "");
            free(name);
            kg_mat3_identity(L->inertial.rot);
            L->real = g->newidx[cj->child];
            L->loop = loop++;
            L->line = cj->j.line;
        }
        L->geom_first = L->geom_count = 0;
        L->parent = L->joint = -1;
        if (i == 0) continue;
        const bjoint *bj = source_joint(b, g, i - 1);
        kg_joint *J = &m->joint[i - 1];
        *J = bj->j;
        J->parent = L->parent = g->newidx[bj->parent];
        J->child = i;
        J->mimic = -1;
        J->loop = L->loop;
        L->joint = i - 1;
    }
}

/* Step 5b: virtual link names must not collide with real ones (name#2, ...). */
static void unique_names(kg_builder *b, kg_model *m) {
    kg_strmap names;
    kg_strmap_init(&names);
    for (int i = 0; i < m->nlink; i++)
        if (m->link[i].real < 0) kg_strmap_put(&names, m->link[i].name, i);
    for (int i = 0; i < m->nlink; i++) {
        if (m->link[i].real < 0) continue;
        if (kg_strmap_put(&names, m->link[i].name, i) < 0) continue;
        char *name = kg_strmap_unique(&names, m->link[i].name);
        if (!name) {
            out_of_memory(b);
            break;
        }
        m->link[i].name = dup(b, name);
        free(name);
        kg_strmap_put(&names, m->link[i].name, i);
    }
    if (names.failed) out_of_memory(b);
    kg_strmap_free(&names);
}

/* Step 5c: compound joints' axes, grouped by joint in model order (counting
 * sort; axes of left-out joints are dropped with them). 0, or -1 when memory
 * runs out. */
static int group_axes(kg_builder *b, const graph *g, kg_model *m) {
    for (int k = 0; k < b->joints.n; k++) b->joints.v[k]->model_index = -1;
    for (int j = 0; j < m->njoint; j++) ((bjoint *)source_joint(b, g, j))->model_index = j;
    int *start = scratch(b, (size_t)m->njoint + 2, sizeof *start);
    if (!start) return -1;
    for (int x = 0; x < b->axes.n; x++)
        if (b->axes.v[x].joint->model_index >= 0) start[b->axes.v[x].joint->model_index + 1]++;
    for (int j = 0; j < m->njoint; j++) start[j + 1] += start[j];
    m->naxis = start[m->njoint];
    if (!(m->axis = keep(b, (size_t)m->naxis + 1, sizeof *m->axis))) return free(start), -1;
    for (int j = 0; j < m->njoint; j++) {
        m->joint[j].axis_first = start[j];
        m->joint[j].naxis = 0;
    }
    for (int x = 0; x < b->axes.n; x++) {
        int j = b->axes.v[x].joint->model_index;
        if (j < 0) continue;
        kg_axis *ax = &m->axis[start[j] + m->joint[j].naxis++];
        *ax = b->axes.v[x].a;
        ax->joint = j;
    }
    free(start);
    return 0;
}

/* Step 5d: the joints checked (a compound joint's axes; elementary axes on any
 * other joint are dropped) and given their place in the joint vector. */
static void place_joints(kg_builder *b, kg_model *m) {
    for (int j = 0; j < m->njoint; j++) {
        kg_joint *J = &m->joint[j];
        if (J->type == KG_JOINT_COMPOUND) {
            validate_axes(b, J, m->axis + J->axis_first);
        } else if (J->naxis) {
            kg_diag_add(b->diags, KG_ERROR, "joint.axes_not_compound", b->file, J->line, "joint",
                        "%s joint '%s' was given elementary axes; they are ignored",
                        kg_joint_type_name(J->type), J->name);
            J->naxis = 0; /* its axes stay in the table, unused */
        }
    }
    for (int j = 0; j < m->njoint; j++) {
        kg_joint *J = &m->joint[j];
        J->nq = joint_nq(J);
        J->nv = joint_nv(J);
        J->qadr = m->nq;
        J->vadr = m->nv;
        m->nq += J->nq;
        m->nv += J->nv;
        validate_joint(b, J);
    }
}

/* Step 5e: each real link's inertial checked, and its mass, com and inertia
 * (about the com, link axes) derived from it. */
static void link_inertias(kg_builder *b, kg_model *m) {
    for (int i = 0; i < m->nlink; i++) {
        kg_link *L = &m->link[i];
        if (L->real >= 0 || !L->has_inertial) continue;
        validate_link(b, L);
        L->mass = L->inertial.mass;
        kg_vec3_copy(L->com, L->inertial.pos);
        double ii[9];
        kg_inertia_from6(ii, L->inertial.inertia);
        kg_inertia_rotate(L->inertia, L->inertial.rot, ii);
    }
}

/* Step 5: links and joints in topological order, the joint vector, validation
 * and derived inertias. NULL when memory runs out. */
static kg_model *layout(kg_builder *b, const graph *g) {
    kg_arena *A = b->arena;
    kg_model *m = keep(b, 1, sizeof *m);
    if (!m) return NULL;
    m->mem = A;
    m->name = b->name ? b->name : "";
    m->format = b->format;
    m->source = b->file;
    m->nlink = g->nl + g->ncut;
    m->njoint = m->nlink - 1;
    m->nloop = g->ncut;
    m->link = keep(b, (size_t)m->nlink, sizeof *m->link);
    m->joint = keep(b, (size_t)m->njoint + 1, sizeof *m->joint);
    m->loop = keep(b, (size_t)m->nloop + 1, sizeof *m->loop);
    m->kin = keep(b, (size_t)m->nlink, sizeof *m->kin);
    if (b->oom) return NULL;
    place_links(b, g, m);
    unique_names(b, m);
    if (b->oom || group_axes(b, g, m) != 0) return NULL;
    place_joints(b, m);
    link_inertias(b, m);
    return m;
}

/* Step 6: each loop is the two tree paths from the cut joint's ends to their
 * common ancestor, joined by the cut joint. 0, or -1 when memory runs out. */
static int build_loops(kg_builder *b, kg_model *m) {
    int *depth = scratch(b, (size_t)m->nlink, sizeof *depth);
    if (!depth) return -1;
    for (int i = 1; i < m->nlink; i++) depth[i] = depth[m->link[i].parent] + 1;
    for (int v = 0; v < m->nlink; v++) {
        if (m->link[v].loop < 0) continue;
        kg_loop *lp = &m->loop[m->link[v].loop];
        lp->virtual_link = v;
        lp->cut_joint = m->link[v].joint;
        lp->real_link = m->link[v].real;
        int a = lp->real_link, c = m->link[v].parent;
        while (depth[a] > depth[c]) a = m->link[a].parent;
        while (depth[c] > depth[a]) c = m->link[c].parent;
        while (a != c) {
            a = m->link[a].parent;
            c = m->link[c].parent;
        }
        int down = depth[lp->real_link] - depth[a], up = depth[m->link[v].parent] - depth[a];
        int n = 1 + down + up;
        int *links = keep(b, (size_t)n, sizeof *links), *joints = keep(b, (size_t)n, sizeof *joints);
        if (!links || !joints) return free(depth), -1;
        links[0] = a;
        for (int i = down, x = lp->real_link; i >= 1; i--, x = m->link[x].parent) {
            links[i] = x;
            joints[i - 1] = m->link[x].joint;
        }
        joints[down] = lp->cut_joint;
        for (int i = 0, x = m->link[v].parent; i < up; i++, x = m->link[x].parent) {
            links[1 + down + i] = x;
            joints[1 + down + i] = m->link[x].joint;
        }
        lp->nlink = lp->njoint = n;
        lp->links = links;
        lp->joints = joints;

        char list[768];
        size_t len = 0;
        for (int i = 0; i < n && len < sizeof list - 80; i++)
            len += (size_t)snprintf(list + len, sizeof list - len, "%s'%.60s'", i ? ", " : "", m->link[links[i]].name);
        const kg_joint *cj = &m->joint[lp->cut_joint];
        if (b->forbid_loops)
            kg_diag_add(b->diags, KG_ERROR, "topology.loop_forbidden", b->file, cj->line, "joint",
                        "%s does not allow closed loops: joint '%s' closes a loop through links %s "
                        "(built with a loop closure at that joint)",
                        b->forbid_loops, cj->name, list);
        else
            kg_diag_add(b->diags, KG_INFO, "topology.loop", b->file, cj->line, "joint",
                        "closed loop through links %s, cut at joint '%s'", list, cj->name);
    }
    free(depth);
    return 0;
}

/* Step 7: mimic couplings by leader name, checked and ordered. 0, or -1 when
 * memory runs out. */
static int resolve_mimics(kg_builder *b, kg_model *m, const graph *g) {
    kg_diags *D = b->diags;
    kg_strmap jmap;
    kg_strmap_init(&jmap);
    for (int j = 0; j < m->njoint; j++) kg_strmap_put(&jmap, m->joint[j].name, j);
    int *leader = scratch(b, (size_t)m->njoint + 1, sizeof *leader);
    m->mimic = keep(b, (size_t)m->njoint + 1, sizeof *m->mimic);
    if (!leader || !m->mimic || jmap.failed) {
        out_of_memory(b);
        free(leader);
        kg_strmap_free(&jmap);
        return -1;
    }
    for (int j = 0; j < m->njoint; j++) {
        leader[j] = -1;
        const bjoint *bj = source_joint(b, g, j);
        if (!bj->has_mimic) continue;
        const kg_joint *J = &m->joint[j];
        int lead = kg_strmap_get(&jmap, bj->mimic_leader);
        if (lead < 0)
            kg_diag_add(D, KG_ERROR, "mimic.missing_leader", b->file, bj->mimic_line, "mimic",
                        "joint '%s' mimics joint '%s', which is not defined; coupling ignored", J->name,
                        bj->mimic_leader);
        else if (lead == j)
            kg_diag_add(D, KG_ERROR, "mimic.self", b->file, bj->mimic_line, "mimic",
                        "joint '%s' mimics itself; coupling ignored", J->name);
        else if (J->type == KG_JOINT_FIXED)
            kg_diag_add(D, KG_WARNING, "mimic.fixed", b->file, bj->mimic_line, "mimic",
                        "fixed joint '%s' mimics joint '%s'; a fixed joint cannot move, so the coupling has "
                        "no effect",
                        J->name, bj->mimic_leader);
        else if (J->nq != 1 || m->joint[lead].nq != 1)
            kg_diag_add(D, KG_ERROR, "mimic.type", b->file, bj->mimic_line, "mimic",
                        "mimic coupling of joint '%s' (%s) to '%s' (%s) needs two one-coordinate joints; "
                        "coupling ignored",
                        J->name, kg_joint_type_name(J->type), m->joint[lead].name,
                        kg_joint_type_name(m->joint[lead].type));
        else if (!isfinite(bj->mimic_multiplier) || !isfinite(bj->mimic_offset))
            kg_diag_add(D, KG_ERROR, "mimic.not_finite", b->file, bj->mimic_line, "mimic",
                        "joint '%s' has a non-finite mimic multiplier or offset; coupling ignored", J->name);
        else
            leader[j] = lead;
    }
    m->nmimic = order_mimics(b, m, leader, m->mimic);
    for (int k = 0; k < m->nmimic; k++) {
        kg_mimic *mm = &m->mimic[k];
        const bjoint *bj = source_joint(b, g, mm->follower);
        mm->multiplier = bj->mimic_multiplier;
        mm->offset = bj->mimic_offset;
        mm->line = bj->mimic_line;
        m->joint[mm->follower].mimic = k;
    }
    for (int j = 0; j < m->njoint; j++) {
        m->joint[j].dofadr = kg_joint_is_independent(m, j) ? m->dof : -1;
        if (kg_joint_is_independent(m, j)) m->dof += m->joint[j].nv;
    }
    free(leader);
    kg_strmap_free(&jmap);
    return m->nmimic < 0 ? -1 : 0;
}

/* Step 8: materials, geoms grouped by link (declaration order within a link),
 * extras. 0, or -1 when memory runs out. */
static int place_geometry(kg_builder *b, kg_model *m, const graph *g) {
    m->nmaterial = b->materials.n;
    m->ngeom = b->geoms.n;
    m->nextra = b->extras.n;
    m->material = keep(b, (size_t)m->nmaterial + 1, sizeof *m->material);
    m->geom = keep(b, (size_t)m->ngeom + 1, sizeof *m->geom);
    m->extra = keep(b, (size_t)m->nextra + 1, sizeof *m->extra);
    int *count = scratch(b, (size_t)m->nlink + 1, sizeof *count);
    if (b->oom) return free(count), -1;
    for (int i = 0; i < m->nmaterial; i++) m->material[i] = b->materials.v[i]->m;
    for (int k = 0; k < m->ngeom; k++) count[g->newidx[b->geoms.v[k]->link->index] + 1]++;
    for (int i = 0; i < m->nlink; i++) count[i + 1] += count[i];
    for (int i = 0; i < m->nlink; i++) m->link[i].geom_first = count[i];
    free(count);
    for (int k = 0; k < m->ngeom; k++) {
        const bgeom *bg = b->geoms.v[k];
        int li = g->newidx[bg->link->index];
        kg_geom *G = &m->geom[m->link[li].geom_first + m->link[li].geom_count++];
        *G = bg->g;
        G->link = li;
        G->material = bg->material ? bg->material->index : -1;
        if (bg->material_name) {
            G->material = kg_strmap_get(&b->material_map, bg->material_name);
            if (G->material < 0)
                kg_diag_add(b->diags, KG_WARNING, "material.undefined", b->file, bg->g.line, "material",
                            "link '%s' uses material '%s', which is not defined", m->link[li].name,
                            bg->material_name);
        }
    }
    if (m->nextra) memcpy(m->extra, b->extras.v, (size_t)m->nextra * sizeof *m->extra);
    return 0;
}

kg_end_effector *kg_builder_add_end_effector(kg_builder *b, const char *name, kg_link *base, kg_link *tip, int line) {
    bfeature *f = add(b, sizeof *f, &b->spare.feature);
    f->e.name = dup(b, name ? name : "");
    f->base = (blink *)base;
    f->tip = (blink *)tip;
    kg_mat3_identity(f->e.rot);
    f->e.line = line;
    VEC_PUSH(b, b->features, f);
    return &f->e;
}

void kg_builder_ignore_collision(kg_builder *b, kg_link *a, kg_link *c, int from_extra, int line) {
    bfeature *f = add(b, sizeof *f, &b->spare.feature);
    f->pair = 1;
    f->base = (blink *)a;
    f->tip = (blink *)c;
    f->e.from_extra = from_extra;
    f->e.line = line;
    VEC_PUSH(b, b->features, f);
}

/* Step 9: end effectors and ignored collision pairs, by the links' new indices.
 * 0, or -1 when memory runs out. */
static int place_features(kg_builder *b, kg_model *m, const graph *g) {
    m->end_effector = keep(b, (size_t)b->features.n + 1, sizeof *m->end_effector);
    m->collision_ignore = keep(b, (size_t)b->features.n + 1, sizeof *m->collision_ignore);
    if (b->oom) return -1;
    for (int k = 0; k < b->features.n; k++) {
        const bfeature *f = b->features.v[k];
        int base = f->base && f->base->index >= 0 ? g->newidx[f->base->index] : -1;
        int tip = f->tip && f->tip->index >= 0 ? g->newidx[f->tip->index] : -1;
        if (tip < 0 || (f->base && base < 0)) {
            kg_diag_add(b->diags, KG_WARNING, f->pair ? "model.pair_dropped" : "model.end_effector_dropped", b->file,
                        f->e.line, f->pair ? "ignore_link_pair" : "end effector",
                        f->pair ? "an ignored collision pair names a link that is not in the model; dropped"
                                : "end effector '%s' is on a link that is not in the model; dropped",
                        f->e.name);
            continue;
        }
        if (f->pair) {
            kg_link_pair *p = &m->collision_ignore[m->ncollision_ignore++];
            p->a = base;
            p->b = tip;
            p->from_extra = f->e.from_extra;
            p->line = f->e.line;
        } else {
            kg_end_effector *e = &m->end_effector[m->nend_effector++];
            *e = f->e;
            e->base = base;
            e->tip = tip;
        }
    }
    return 0;
}

/* Steps 1 to 9, and the model's default pose and kinematic tables; NULL when
 * the links do not make one tree (errors say why) or memory runs out (b->oom). */
static kg_model *build(kg_builder *b, graph *g) {
    resolve_names(b);
    if (b->oom) return NULL;
    int root = b->links.n ? find_root(b) : -1;
    if (b->links.n == 0)
        kg_diag_add(b->diags, KG_ERROR, "model.no_links", b->file, 0, NULL, "the model has no usable links");
    kg_model *m;
    if (root < 0 || spanning_tree(b, root, g) != 0 || topological_order(b, root, g) != 0 || !(m = layout(b, g)) ||
        build_loops(b, m) != 0 || resolve_mimics(b, m, g) != 0 || place_geometry(b, m, g) != 0 ||
        place_features(b, m, g) != 0)
        return NULL;
    m->root_body = b->root_body && b->root_body->index >= 0 ? g->newidx[b->root_body->index] : 0;
    if (!(m->q_default = keep(b, (size_t)m->nq + 1, sizeof *m->q_default))) return NULL;
    for (int j = 0; j < m->njoint; j++)
        if (m->joint[j].type == KG_JOINT_FLOATING) m->q_default[m->joint[j].qadr + 3] = 1;
    for (int j = 0; j < m->njoint; j++)
        for (int a = 0; a < m->joint[j].naxis; a++) {
            const kg_axis *ax = &m->axis[m->joint[j].axis_first + a];
            m->q_default[m->joint[j].qadr + ax->coord] = ax->rest;
        }
    return precompute_kin(b, m) == 0 ? m : NULL;
}

kg_model *kg_builder_finish(kg_builder *b) {
    if (!b) return NULL; /* kg_builder_new ran out of memory, and said so */
    graph g = {0};
    kg_model *m = b->oom ? NULL : build(b, &g);
    if (b->oom) {
        m = NULL; /* it lives in the arena, freed with the builder */
        kg_diag_out_of_memory(b->diags, b->oom_at, b->file, "while building the model");
    }
    if (m) b->arena = NULL; /* the arena now belongs to the model */
    graph_free(&g);
    kg_builder_free(b);
    return m;
}
