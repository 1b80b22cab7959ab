/* COLLADA node trees as models: the skeletons of animation tools (COLLADA 1.4.1
 * JOINT nodes, also instanced from library_nodes), and plain scenes.
 *
 * Model. A static root link "world" stands for the scene. A node becomes a link
 * when it is a JOINT, when one of its transforms is animated, or when a link
 * hangs below it; its joint is free (floating: x, y, z, then a unit quaternion)
 * for JOINT and animated nodes, fixed otherwise. Joint origins are the rest
 * transforms as written: at q = rest (zero translation, identity rotation) the
 * model stands in the file's pose. Link frames are the nodes' frames without
 * their scale (an ancestor's scale still scales the offsets below it);
 * geometry of other nodes, and the bind-pose mesh of skins, belong to the
 * nearest link above (skin and morph controllers are kept as extras
 * "collada:skin" / "collada:morph", for writers to report).
 *
 * Motion. The animation (collada_anim.c) sampled on its grid; at each frame
 * the free joints' coordinates are the nodes' rigid frames relative to their
 * parents' at that time, exactly, whatever mix of channels produced them.
 *
 * Units: lengths (translations, matrix offsets) are multiplied by <unit meter>;
 * <up_axis> is kept (the file's axes), and reported when it is not Z. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/spatial.h"
#include "formats/number.h"
#include "importers/collada.h"


enum { X_TRANSLATE, X_ROTATE, X_SCALE, X_MATRIX };

typedef struct xform { /* one transform element of a node */
    int kind;
    double v[16];      /* current values, as in the file (degrees, file lengths) */
    xmlNodePtr el;
} xform;

typedef struct snode {
    xmlNodePtr node;
    const char *name;  /* the instance_node's name, else the node's */
    int parent;        /* index in nodes; -1 for a top node */
    int first_x, nx;   /* its transform elements in xs */
    int joint;         /* type="JOINT" */
    int animated;
    int is_link, up;   /* up: the nearest link above (-1: world) */
    int skeleton_free; /* moves: a free joint */
    pose world;        /* affine, at the current time */
    pose frame;        /* the rigid part of world */
    pose origin;       /* joint origin: frame relative to up's frame at rest */
    kg_link *made;
    kg_joint *j;
} snode;

typedef struct sk {
    cd *c;
    snode *nodes;
    int nnodes, capnodes;
    xform *xs;
    int nxs, capxs;
    cd_anim anim;
    int *ch_first, *ch_x; /* channel i drives xs[ch_x[ch_first[i] .. ch_first[i+1]-1]] */
    int shear;          /* frames with shear (warned once) */
    int truncated;
} sk;

/* ---- the node tree ------------------------------------------------------------------ */

static int read_xform(sk *s, xmlNodePtr e) {
    cd *c = s->c;
    int kind, n;
    if (kg_xml_is(e, "translate")) kind = X_TRANSLATE, n = 3;
    else if (kg_xml_is(e, "rotate")) kind = X_ROTATE, n = 4;
    else if (kg_xml_is(e, "scale")) kind = X_SCALE, n = 3;
    else if (kg_xml_is(e, "matrix")) kind = X_MATRIX, n = 16;
    else {
        if (kg_xml_is(e, "lookat") || kg_xml_is(e, "skew"))
            cd_diag(c, KG_WARNING, "collada.transform_ignored", e, "<%s> transforms are not read; the node is placed "
                    "without it%s", cd_tag(e), NULL);
        return 0;
    }
    xform x = {kind, {0}, e};
    if (cd_numbers(c, e, x.v, n) != 0) {
        memset(x.v, 0, sizeof x.v);
        if (kind == X_SCALE) x.v[0] = x.v[1] = x.v[2] = 1;
        if (kind == X_MATRIX) x.v[0] = x.v[5] = x.v[10] = x.v[15] = 1;
        if (kind == X_ROTATE) x.v[2] = 1;
    }
    if (cd_grow(c, (void **)&s->xs, s->nxs, &s->capxs, sizeof *s->xs) != 0) return 0;
    s->xs[s->nxs++] = x;
    return 1;
}

static void collect(sk *s, xmlNodePtr node, const char *name, int parent, int depth) {
    cd *c = s->c;
    if (depth > KG_LIMIT_SCENE_DEPTH || s->nnodes >= KG_LIMIT_SCENE_NODES) {
        if (!s->truncated++)
            cd_diag(c, KG_ERROR, "collada.too_deep", node, "the node tree is deeper than %s levels or larger than %s "
                    "nodes (instance_node cycles?); the rest is ignored (KG_LIMIT_SCENE_DEPTH, KG_LIMIT_SCENE_NODES)",
                    KG_STR(KG_LIMIT_SCENE_DEPTH), KG_STR(KG_LIMIT_SCENE_NODES));
        return;
    }
    if (cd_grow(c, (void **)&s->nodes, s->nnodes, &s->capnodes, sizeof *s->nodes) != 0) return;
    int self = s->nnodes++;
    snode *n = &s->nodes[self];
    memset(n, 0, sizeof *n);
    n->node = node;
    n->parent = parent;
    const char *type = kg_xml_attr(&c->x, node, "type");
    n->joint = type && !strcmp(type, "JOINT");
    if (!name || !*name) name = kg_xml_attr(&c->x, node, "name");
    if (!name || !*name) name = kg_xml_attr(&c->x, node, "sid");
    if (!name || !*name) name = kg_xml_attr(&c->x, node, "id");
    n->name = name && *name ? name : "node";
    n->first_x = s->nxs;
    for (xmlNodePtr k = kg_xml_first(node); k; k = kg_xml_next(k)) s->nodes[self].nx += read_xform(s, k);
    for (xmlNodePtr k = kg_xml_first(node); k; k = kg_xml_next(k)) {
        if (kg_xml_is(k, "node")) {
            collect(s, k, NULL, self, depth + 1);
        } else if (kg_xml_is(k, "instance_node")) {
            xmlNodePtr t = cd_by_url(c, kg_xml_attr(&c->x, k, "url"));
            if (t && kg_xml_is(t, "node")) collect(s, t, kg_xml_attr(&c->x, k, "name"), self, depth + 1);
            else cd_diag(c, KG_WARNING, "collada.bad_ref", k, "<instance_node url='%s'> names no node; ignored%s",
                         kg_xml_attr(&c->x, k, "url"), NULL);
        }
    }
}

/* The affine transform of a node's elements at their current values (metres). */
static void local_pose(const sk *s, const snode *n, pose *out) {
    double u = s->c->unit;
    cd_pose_identity(out);
    for (int i = 0; i < n->nx; i++) {
        const xform *x = &s->xs[n->first_x + i];
        pose t;
        cd_pose_identity(&t);
        switch (x->kind) {
        case X_TRANSLATE:
            for (int k = 0; k < 3; k++) t.p[k] = x->v[k] * u;
            break;
        case X_ROTATE: {
            double a[3] = {x->v[0], x->v[1], x->v[2]}, len = kg_vec3_norm(a);
            if (len == 0) continue;
            for (int k = 0; k < 3; k++) a[k] /= len;
            kg_rot_axis_angle(t.r, a, x->v[3] * KG_PI / 180);
            break;
        }
        case X_SCALE:
            for (int k = 0; k < 3; k++) t.r[4 * k] = x->v[k];
            break;
        case X_MATRIX:
            for (int i2 = 0; i2 < 3; i2++) {
                for (int j = 0; j < 3; j++) t.r[3 * i2 + j] = x->v[4 * i2 + j];
                t.p[i2] = x->v[4 * i2 + 3] * u;
            }
            break;
        }
        cd_pose_mul(out, out, &t);
    }
}

/* World transforms and rigid frames of every node (parents come first). */
static void place(sk *s) {
    for (int i = 0; i < s->nnodes; i++) {
        snode *n = &s->nodes[i];
        pose l;
        local_pose(s, n, &l);
        if (n->parent >= 0) cd_pose_mul(&n->world, &s->nodes[n->parent].world, &l);
        else n->world = l;
        double scale[3];
        if (cd_pose_split(&n->world, &n->frame, scale) && !s->shear++)
            cd_diag(s->c, KG_WARNING, "collada.shear", n->node, "node '%s' is sheared (a non-uniform scale above a rotation, "
                    "at rest or in its animation); its frame is the nearest rotation%s", n->name, NULL);
    }
}

/* Sets every animated element (of every instance of its node) to its value at time t. */
static void apply(sk *s, double t) {
    for (int i = 0; i < s->anim.nch; i++) {
        const cd_channel *ch = &s->anim.ch[i];
        double v[16];
        int whole_matrix = ch->member < 0 && ch->stride == 16;
        if (whole_matrix) cd_channel_matrix(ch, t, v);
        else
            for (int k = 0; k < ch->stride; k++) v[k] = cd_channel_value(ch, k, t);
        for (int e = s->ch_first[i]; e < s->ch_first[i + 1]; e++) {
            xform *x = &s->xs[s->ch_x[e]];
            if (ch->member >= 0) x->v[ch->member] = v[0];
            else memcpy(x->v, v, (size_t)ch->stride * sizeof *v);
        }
    }
}

typedef struct el_x { /* a transform element and its index in xs */
    xmlNodePtr el;
    int x;
} el_x;

static int by_el(const void *a, const void *b) {
    const el_x *p = a, *q = b;
    uintptr_t u = (uintptr_t)p->el, v = (uintptr_t)q->el;
    return u < v ? -1 : u > v ? 1 : p->x - q->x;
}

/* The first pair at or after el in the sorted pairs. */
static int first_of(const el_x *sorted, int n, xmlNodePtr el) {
    int lo = 0, hi = n;
    while (lo < hi) {
        int mid = lo + (hi - lo) / 2;
        if ((uintptr_t)sorted[mid].el < (uintptr_t)el) lo = mid + 1;
        else hi = mid;
    }
    return lo;
}

/* Which elements each channel drives (ch_first, ch_x: sorting the elements
 * once keeps a frame linear in channels and elements), and the nodes with
 * animated elements. Returns 0 when out of memory. */
static int link_channels(sk *s) {
    int nch = s->anim.nch, total = 0;
    el_x *sorted = malloc(((size_t)s->nxs + 1) * sizeof *sorted);
    int *owner = malloc(((size_t)s->nxs + 1) * sizeof *owner);
    s->ch_first = calloc((size_t)nch + 1, sizeof *s->ch_first);
    if (!sorted || !owner || !s->ch_first) goto fail;
    for (int i = 0; i < s->nxs; i++) sorted[i] = (el_x){s->xs[i].el, i};
    qsort(sorted, (size_t)s->nxs, sizeof *sorted, by_el);
    for (int i = 0; i < s->nnodes; i++)
        for (int k = 0; k < s->nodes[i].nx; k++) owner[s->nodes[i].first_x + k] = i;
    for (int c = 0; c < nch; c++) {
        s->ch_first[c] = total;
        for (int e = first_of(sorted, s->nxs, s->anim.ch[c].el); e < s->nxs && sorted[e].el == s->anim.ch[c].el; e++)
            total++;
    }
    s->ch_first[nch] = total;
    if (!(s->ch_x = malloc(((size_t)total + 1) * sizeof *s->ch_x))) goto fail;
    for (int c = 0; c < nch; c++) {
        int e = first_of(sorted, s->nxs, s->anim.ch[c].el);
        for (int k = s->ch_first[c]; k < s->ch_first[c + 1]; k++, e++) {
            s->ch_x[k] = sorted[e].x;
            s->nodes[owner[sorted[e].x]].animated = 1;
        }
    }
    free(sorted);
    free(owner);
    return 1;
fail:
    free(sorted);
    free(owner);
    return 0;
}

/* ---- the model ---------------------------------------------------------------------- */

/* The inverse of a rigid transform. */
static void rigid_inverse(const pose *f, pose *inv) {
    for (int a = 0; a < 3; a++)
        for (int b = 0; b < 3; b++) inv->r[3 * a + b] = f->r[3 * b + a];
    double t[3];
    kg_mat3_vec(t, inv->r, f->p);
    for (int a = 0; a < 3; a++) inv->p[a] = -t[a];
}

/* Node i's frame (rigid) or world transform (affine) seen from link `up`'s frame. */
static void seen_from(const sk *s, int up, const pose *x, pose *out) {
    if (up < 0) {
        *out = *x;
        return;
    }
    pose inv;
    rigid_inverse(&s->nodes[up].frame, &inv);
    cd_pose_mul(out, &inv, x);
}

/* A free joint's coordinates now: origin^-1 (frame of up)^-1 frame, as x, y, z and
 * the quaternion nearest the previous frame's (prev NULL: w >= 0). */
static void joint_coordinates(const sk *s, const snode *n, double *q, const double *prev) {
    pose rel, oinv;
    seen_from(s, n->up, &n->frame, &rel);
    rigid_inverse(&n->origin, &oinv);
    cd_pose_mul(&rel, &oinv, &rel);
    kg_vec3_copy(q, rel.p);
    kg_rot_to_quat(rel.r, q + 3);
    double norm = sqrt(q[3] * q[3] + q[4] * q[4] + q[5] * q[5] + q[6] * q[6]);
    double sign = prev && q[3] * prev[3] + q[4] * prev[4] + q[5] * prev[5] + q[6] * prev[6] < 0 ? -1 : 1;
    for (int k = 3; k < 7; k++) q[k] *= sign / norm;
}

/* Geometry of a node (instance_geometry, and the bind-pose mesh of a skin) on
 * the link `up`. */
static void node_geometry(sk *s, int i, kg_link *L, int up) {
    cd *c = s->c;
    snode *n = &s->nodes[i];
    pose at;
    seen_from(s, up, &n->world, &at);
    const char *holder = n->is_link ? NULL : n->name;
    for (xmlNodePtr k = kg_xml_first(n->node); k; k = kg_xml_next(k)) {
        if (kg_xml_is(k, "instance_geometry")) {
            const char *url = kg_xml_attr(&c->x, k, "url");
            kg_geom *g = cd_add_geometry(c, url, k, L, KG_VISUAL, &at, holder);
            if (g) cd_bind_material(c, n->node, k, url, g);
        } else if (kg_xml_is(k, "instance_controller")) {
            xmlNodePtr ctl = cd_by_url(c, kg_xml_attr(&c->x, k, "url"));
            xmlNodePtr skin = ctl ? kg_xml_child(ctl, "skin") : NULL, morph = ctl ? kg_xml_child(ctl, "morph") : NULL;
            xmlNodePtr holder_el = skin ? skin : morph;
            const char *url = holder_el ? kg_xml_attr(&c->x, holder_el, "source") : NULL;
            if (!url) {
                cd_diag(c, KG_WARNING, "collada.bad_ref", k, "controller '%s' has no skin or morph source; ignored%s",
                        kg_xml_attr(&c->x, k, "url"), NULL);
                continue;
            }
            pose bind = at;
            xmlNodePtr bsm = skin ? kg_xml_child(skin, "bind_shape_matrix") : NULL;
            double m16[16];
            if (bsm && cd_numbers(c, bsm, m16, 16) == 0) {
                pose b;
                for (int r = 0; r < 3; r++) {
                    for (int q = 0; q < 3; q++) b.r[3 * r + q] = m16[4 * r + q];
                    b.p[r] = m16[4 * r + 3] * c->unit;
                }
                cd_pose_mul(&bind, &at, &b);
            }
            kg_geom *g = cd_add_geometry(c, url, k, L, KG_VISUAL, &bind, holder);
            if (g) cd_bind_material(c, n->node, k, url, g);
            if (ctl) { /* kept, so that writers can say what they leave out */
                char *xml = kg_xml_dump(&c->x, ctl);
                kg_builder_add_extra(c->b, skin ? "collada:skin" : "collada:morph", kg_xml_attr(&c->x, ctl, "id"), xml,
                                     cd_line_of(ctl));
                free(xml);
            }
            cd_diag(c, KG_INFO, "collada.skin", k, "%s '%s' is kept as its mesh in the bind pose, moving rigidly with the "
                    "link (skin weights and morph targets are not used)", skin ? "skin" : "morph",
                    kg_xml_attr(&c->x, k, "url"));
        }
    }
}

static const char *unique_name(cd *c, kg_strmap *names, const char *want) {
    char *u = kg_strmap_unique(names, want);
    const char *r = u ? cd_strdup(c, u) : "";
    if (!u) cd_oom(c);
    free(u);
    cd_put(c, names, r, 1);
    return r;
}

static void free_sk(sk *s) {
    cd_anim_free(&s->anim);
    free(s->ch_first);
    free(s->ch_x);
    free(s->nodes);
    free(s->xs);
}

/* The motion: every channel sampled on one grid, each free joint's coordinates
 * from the frames of its node and of the link above. */
static kg_motion *sample_motion(sk *s, const kg_model *m, const char **jname) {
    double lo, dt;
    size_t placed = (size_t)s->nnodes + (size_t)s->nxs, per_frame = (placed > (size_t)m->nq ? placed : (size_t)m->nq) + (size_t)s->anim.nch;
    int nframes = cd_anim_grid(s->c, &s->anim, per_frame, &lo, &dt);
    int *qadr = calloc((size_t)s->nnodes + 1, sizeof *qadr);
    kg_motion *mo = qadr ? kg_motion_new(m->nq, dt, (size_t)nframes) : NULL; /* the frames reserved: appends do not fail */
    if (!mo) {
        free(qadr);
        return cd_oom(s->c);
    }
    mo->start_time = lo;
    for (int i = 0; i < s->nnodes; i++) {
        int j = jname[i] ? kg_model_joint(m, jname[i]) : -1;
        qadr[i] = j >= 0 ? m->joint[j].qadr : -1;
    }
    for (int f = 0; f < nframes; f++) {
        apply(s, lo + f * dt);
        place(s);
        double *q = kg_motion_append(mo, m->q_default);
        const double *prev = f ? q - m->nq : NULL;
        for (int i = 0; i < s->nnodes; i++)
            if (qadr[i] >= 0) joint_coordinates(s, &s->nodes[i], q + qadr[i], prev ? prev + qadr[i] : NULL);
    }
    free(qadr);
    return mo;
}

kg_model *cd_import_node_tree(cd *c, xmlNodePtr root, kg_motion **motion) {
    xmlNodePtr vs = cd_visual_scene(c, root);
    if (!vs) {
        cd_diag(c, KG_WARNING, "collada.empty", root, "this COLLADA file has neither a kinematics model nor a visual "
                "scene: nothing to read%s%s", NULL, NULL);
        return NULL;
    }
    sk s;
    memset(&s, 0, sizeof s);
    s.c = c;
    for (xmlNodePtr n = kg_xml_first(vs); n; n = kg_xml_next(n))
        if (kg_xml_is(n, "node")) collect(&s, n, NULL, -1, 0);
    cd_read_animations(c, root, &s.anim);
    if (!link_channels(&s)) {
        cd_oom(c);
        free_sk(&s);
        return NULL;
    }
    /* links: JOINT or animated nodes, and the nodes above them */
    for (int i = s.nnodes - 1; i >= 0; i--) {
        snode *n = &s.nodes[i];
        n->skeleton_free = n->joint || n->animated;
        if (n->skeleton_free) n->is_link = 1;
        if (n->is_link && n->parent >= 0) s.nodes[n->parent].is_link = 1;
    }
    for (int i = 0; i < s.nnodes; i++) {
        snode *n = &s.nodes[i];
        int p = n->parent;
        n->up = p < 0 ? -1 : s.nodes[p].is_link ? p : s.nodes[p].up;
    }
    place(&s);
    if (!(c->b = kg_builder_new(c->file, "collada", c->d))) { /* out of memory, said */
        free_sk(&s);
        return NULL;
    }
    const char *sname = kg_xml_attr(&c->x, vs, "name");
    if (!sname || !*sname) sname = kg_xml_attr(&c->x, vs, "id");
    kg_builder_set_name(c->b, sname && *sname ? sname : "scene");
    kg_strmap names;
    kg_strmap_init(&names);
    const char *world = unique_name(c, &names, "world");
    kg_link *wl = kg_builder_add_link(c->b, world, cd_line_of(vs));
    for (int i = 0; i < s.nnodes; i++) {
        snode *n = &s.nodes[i];
        if (!n->is_link) continue;
        const char *name = unique_name(c, &names, n->name);
        n->made = kg_builder_add_link(c->b, name, cd_line_of(n->node));
        const char *parent = n->up >= 0 ? s.nodes[n->up].made->name : world;
        n->j = kg_builder_add_joint(c->b, name, /* joints are named after the node they move */ n->skeleton_free ? KG_JOINT_FLOATING : KG_JOINT_FIXED, parent, name,
                                    cd_line_of(n->node));
        seen_from(&s, n->up, &n->frame, &n->origin); /* between rigid frames */
        kg_vec3_copy(n->j->pos, n->origin.p);
        kg_mat3_copy(n->j->rot, n->origin.r);
        kg_rot_to_rpy(n->origin.r, n->j->rpy);

    }
    /* the body's root: the lowest link above every moving one (the skeleton's root) */
    int body = -2;
    for (int i = 0; i < s.nnodes; i++) {
        if (!s.nodes[i].skeleton_free) continue;
        if (body == -2) {
            body = i;
            continue;
        }
        for (int a = body; a >= 0; a = s.nodes[a].up) { /* is a above i? */
            int b = i;
            while (b >= 0 && b != a) b = s.nodes[b].up;
            if (b == a) {
                body = a;
                break;
            }
            if (s.nodes[a].up < 0) body = -1;
        }
    }
    if (body >= 0) kg_builder_set_root_body(c->b, s.nodes[body].made);
    for (int i = 0; i < s.nnodes; i++) {
        snode *n = &s.nodes[i];
        int up = n->is_link ? i : n->up;
        node_geometry(&s, i, up >= 0 ? s.nodes[up].made : wl, up);
    }
    xmlNodePtr asset = kg_xml_child(root, "asset"), ua = asset ? kg_xml_child(asset, "up_axis") : NULL;
    if (ua && strcmp(cd_text(c, ua), "Z_UP"))
        cd_diag(c, KG_INFO, "collada.up_axis", ua, "the file is %s; the model keeps its axes%s", cd_text(c, ua), NULL);
    /* the builder's pointers die with it: keep the joint names */
    const char **jname = calloc((size_t)s.nnodes + 1, sizeof *jname);
    for (int i = 0; jname && i < s.nnodes; i++)
        if (s.nodes[i].is_link && s.nodes[i].skeleton_free) jname[i] = s.nodes[i].j->name;
    if (!jname) cd_oom(c);
    kg_strmap_free(&names);
    kg_model *m = kg_builder_finish(c->b);
    c->b = NULL;
    if (m && jname && motion && s.anim.nch) *motion = sample_motion(&s, m, jname);
    free(jname);
    free_sk(&s);
    return m;
}
