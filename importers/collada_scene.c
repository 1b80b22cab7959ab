/* COLLADA visual scenes: the geometry and materials of a kinematics model's
 * links.
 *
 * Geometry. A <geometry> is a mesh to kinegraph: its triangles stay in the file
 * (geom mesh_path is the file, mesh_part the geometry's id) and are read through
 * assimp when needed (formats/mesh.h). kinegraph's own writer adds an extra to
 * each geometry with the source it came from (a mesh reference and scale, or an
 * exact box, cylinder, sphere or capsule); that source is used when it resolves
 * here, else the copy in the file.
 *
 * Links and nodes. A node named like a link of the kinematics model, directly
 * below the node of that link's parent (the root: anywhere), is the link's node
 * (OpenRAVE and kinegraph name them so); geometry in any other node belongs to
 * the nearest link node above, at that node's transform from it. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/arena.h"
#include "core/spatial.h"
#include "importers/collada.h"


/* The <technique profile="kinegraph"> of n's extras, or NULL. */
static xmlNodePtr kinegraph_technique(cd *c, xmlNodePtr n) {
    for (xmlNodePtr e = kg_xml_first(n); e; e = kg_xml_next(e)) {
        if (!kg_xml_is(e, "extra")) continue;
        for (xmlNodePtr t = kg_xml_first(e); t; t = kg_xml_next(t)) {
            const char *profile = kg_xml_attr(&c->x, t, "profile");
            if (kg_xml_is(t, "technique") && profile && !strcmp(profile, "kinegraph")) return t;
        }
    }
    return NULL;
}

/* ---- materials ------------------------------------------------------------------ */

/* The diffuse colour of a material's effect (profile_COMMON; constant: emission). */
static int effect_color(cd *c, xmlNodePtr mat, double rgba[4]) {
    xmlNodePtr ie = kg_xml_child(mat, "instance_effect");
    xmlNodePtr fx = ie ? cd_by_url(c, kg_xml_attr(&c->x, ie, "url")) : NULL;
    xmlNodePtr prof = fx ? kg_xml_child(fx, "profile_COMMON") : NULL;
    xmlNodePtr tech = prof ? kg_xml_child(prof, "technique") : NULL;
    for (xmlNodePtr sh = tech ? kg_xml_first(tech) : NULL; sh; sh = kg_xml_next(sh)) {
        xmlNodePtr col = kg_xml_child(sh, kg_xml_is(sh, "constant") ? "emission" : "diffuse");
        col = col ? kg_xml_child(col, "color") : NULL;
        if (col && kg_parse_doubles(cd_text(c, col), rgba, 4) == 0) return 1;
    }
    return 0;
}

/* The model's material for a COLLADA <material>, made on first use. Names are
 * the material's name (else id); a name already taken by another COLLADA
 * material makes an anonymous one. */
static kg_material *material(cd *c, xmlNodePtr mat) {
    if (!mat || !kg_xml_is(mat, "material")) return NULL;
    for (int i = 0; i < c->nmaterials; i++)
        if (c->materials[i].node == mat) return c->materials[i].made;
    xmlNodePtr t = kinegraph_technique(c, mat), mm = t ? kg_xml_child(t, "model_material") : NULL;
    const char *name = kg_xml_attr(&c->x, mat, "name");
    if (!name || (!*name && !mm)) name = kg_xml_attr(&c->x, mat, "id"); /* kinegraph's: as the model had it */
    if (!name) name = "";
    kg_material *m = kg_builder_add_material(c->b, kg_builder_has_material(c->b, name) ? "" : name, cd_line_of(mat));
    if (!m) return NULL;
    m->has_color = effect_color(c, mat, m->rgba);
    const char *texture = mm ? kg_xml_attr(&c->x, mm, "texture") : NULL;
    if (texture) m->texture = kg_builder_strdup(c->b, texture);
    c->materials = kg_xgrow(c->materials, c->nmaterials, &c->capmaterials, sizeof *c->materials);
    c->materials[c->nmaterials].node = mat;
    c->materials[c->nmaterials++].made = m;
    return m;
}

/* ---- geometry --------------------------------------------------------------------- */

static const char *base_name(const char *path) {
    const char *s = strrchr(path, '/');
    return s ? s + 1 : path;
}

kg_geom *cd_add_geometry(cd *c, const char *url, xmlNodePtr inst, kg_link *L, kg_geom_role role, const pose *at,
                         const char *name) {
    xmlNodePtr geo = cd_by_url(c, url);
    if (!geo || !kg_xml_is(geo, "geometry")) {
        cd_diag(c, KG_WARNING, "collada.bad_ref", inst, "<%s> names no geometry ('%s'); ignored", cd_tag(inst), url);
        return NULL;
    }
    pose rigid;
    double s[3];
    if (cd_pose_split(at, &rigid, s))
        cd_diag(c, KG_WARNING, "collada.shear", inst, "geometry '%s' is under a sheared transform; it is placed with "
                "the nearest rotation and scale%s", url, NULL);
    /* the exact source, when kinegraph wrote the file */
    xmlNodePtr t = kinegraph_technique(c, geo), spec = t ? kg_xml_first(t) : NULL;
    kg_geom_type type = KG_GEOM_MESH;
    double size[3] = {0, 0, 0}, scale[3] = {1, 1, 1};
    const char *uri = NULL, *part = NULL;
    if (spec) {
        if (kg_xml_is(spec, "box")) {
            type = KG_GEOM_BOX;
            kg_xml_doubles(&c->x, spec, "size", size, 3);
        } else if (kg_xml_is(spec, "sphere")) {
            type = KG_GEOM_SPHERE;
            kg_xml_double(&c->x, spec, "radius", &size[0]);
        } else if (kg_xml_is(spec, "cylinder") || kg_xml_is(spec, "capsule")) {
            type = kg_xml_is(spec, "cylinder") ? KG_GEOM_CYLINDER : KG_GEOM_CAPSULE;
            kg_xml_double(&c->x, spec, "radius", &size[0]);
            kg_xml_double(&c->x, spec, "length", &size[1]);
        } else if (kg_xml_is(spec, "mesh")) {
            uri = kg_xml_attr(&c->x, spec, "uri");
            part = kg_xml_attr(&c->x, spec, "part");
            kg_xml_doubles(&c->x, spec, "scale", scale, 3);
        }
    }
    kg_geom *g = kg_builder_add_geom(c->b, L, role, type, NULL, cd_line_of(inst));
    if (name) g->name = kg_builder_strdup(c->b, name);
    kg_vec3_copy(g->pos, rigid.p);
    kg_mat3_copy(g->rot, rigid.r);
    kg_rot_to_rpy(rigid.r, g->rpy);
    int uniform = fabs(s[0] - s[1]) <= 1e-12 * fabs(s[0]) && fabs(s[1] - s[2]) <= 1e-12 * fabs(s[1]);
    if (type != KG_GEOM_MESH) {
        memcpy(g->size, size, sizeof size);
        if (s[0] != 1 || s[1] != 1 || s[2] != 1) { /* primitives under a scaled node */
            if (type == KG_GEOM_BOX) {
                for (int k = 0; k < 3; k++) g->size[k] *= fabs(s[k]);
            } else {
                if (!uniform)
                    cd_diag(c, KG_WARNING, "collada.scaled_primitive", inst, "a %s under a non-uniform scale stays a %s "
                            "(scaled by its x factor)", kg_geom_type_name(type), kg_geom_type_name(type));
                g->size[0] *= fabs(s[0]);
                g->size[1] *= fabs(type == KG_GEOM_SPHERE ? s[0] : s[2]);
            }
        }
        return g;
    }
    char *resolved = uri && *uri ? kg_resolve_uri(&c->o->resolver, c->file, uri, c->d, cd_line_of(inst)) : NULL;
    if (resolved) { /* the mesh kinegraph was given, found here too */
        g->mesh_uri = kg_builder_strdup(c->b, uri);
        g->mesh_path = kg_builder_strdup(c->b, resolved);
        if (part) g->mesh_part = kg_builder_strdup(c->b, part);
        for (int k = 0; k < 3; k++) g->scale[k] = scale[k] * s[k];
        free(resolved);
        return g;
    }
    /* the triangles in this file */
    const char *id = kg_xml_attr(&c->x, geo, "id");
    if (uri && *uri)
        cd_diag(c, KG_INFO, "collada.embedded_mesh", inst, "mesh '%s' does not resolve here; the copy in this file "
                "(geometry '%s') is used", uri, id);
    g->mesh_uri = kg_builder_strdup(c->b, uri && *uri ? uri : base_name(c->file));
    g->mesh_path = kg_builder_strdup(c->b, c->file);
    g->mesh_part = kg_builder_strdup(c->b, id);
    kg_vec3_copy(g->scale, s);
    return g;
}

/* The geom's material: kinegraph's node extra when the geometry is kinegraph's
 * (a mesh's own materials are then the mesh file's), else the first binding. */
void cd_bind_material(cd *c, xmlNodePtr node, xmlNodePtr inst, const char *url, kg_geom *g) {
    xmlNodePtr t = kinegraph_technique(c, node), m = t ? kg_xml_child(t, "material") : NULL;
    kg_material *made = NULL;
    if (m) {
        made = material(c, cd_by_url(c, kg_xml_attr(&c->x, m, "url")));
    } else if (!kinegraph_technique(c, cd_by_url(c, url))) {
        xmlNodePtr bm = kg_xml_child(inst, "bind_material");
        xmlNodePtr tc = bm ? kg_xml_child(bm, "technique_common") : NULL;
        xmlNodePtr im = tc ? kg_xml_child(tc, "instance_material") : NULL;
        if (im) made = material(c, cd_by_url(c, kg_xml_attr(&c->x, im, "target")));
    }
    if (made) kg_builder_set_geom_material(c->b, g, made);
}

/* ---- the visual scene ------------------------------------------------------------- */

typedef struct walk {
    int outside; /* geometry instances above every link node */
    xmlNodePtr first_outside;
} walk;

/* A <node> being walked: k is its next child element to look at. */
typedef struct wframe {
    xmlNodePtr k;
    int cur;            /* the link whose frame `here` is relative to (-1: none yet) */
    pose here;          /* this node's frame in link cur's */
    const char *holder; /* the node's name when it is not a link's node */
} wframe;

/* Enters <node> `node` (inst_name: the name of the <instance_node> that brought
 * it) below the frame `up` (NULL at the top): the link it is, or its pose. */
static void enter_node(cd *c, xmlNodePtr node, const char *inst_name, const wframe *up, wframe *f) {
    const char *name = inst_name ? inst_name : kg_xml_attr(&c->x, node, "name");
    int L = name ? kg_strmap_get(&c->link_names, name) : -1, cur = up ? up->cur : -1;
    f->k = kg_xml_first(node);
    f->holder = NULL;
    if (L >= 0 && !c->links[L].drawn && c->links[L].parent == cur) {
        c->links[L].drawn = 1;
        f->cur = L;
        cd_pose_identity(&f->here);
    } else {
        pose local, id;
        cd_pose_identity(&id);
        cd_read_pose(c, node, &local);
        cd_pose_mul(&f->here, up ? &up->here : &id, &local);
        f->cur = cur;
        f->holder = name;
    }
}

/* A top <node> and what it holds, depth first in document order, with a stack
 * of its own (a chain of 10^5 links must not need 10^5 C stack frames).
 * Deeper than KG_LIMIT_DEPTH (instance_node cycles too) is an error. */
static void walk_node(cd *c, walk *w, xmlNodePtr top_node) {
    int top = 0, cap = 64;
    wframe *st = kg_xmalloc((size_t)cap * sizeof *st);
    enter_node(c, top_node, NULL, NULL, &st[top++]);
    while (top > 0) {
        wframe *t = &st[top - 1];
        xmlNodePtr k = t->k, into = NULL;
        if (!k) {
            top--;
            continue;
        }
        t->k = kg_xml_next(k);
        if (kg_xml_is(k, "instance_geometry")) {
            if (t->cur < 0) {
                if (!w->outside++) w->first_outside = k;
                continue;
            }
            const char *url = kg_xml_attr(&c->x, k, "url");
            kg_geom *g = cd_add_geometry(c, url, k, c->links[t->cur].link, KG_VISUAL, &t->here, t->holder);
            if (g) cd_bind_material(c, k->parent, k, url, g);
            continue;
        }
        const char *inst_name = NULL;
        if (kg_xml_is(k, "node")) {
            into = k;
        } else if (kg_xml_is(k, "instance_node")) {
            xmlNodePtr target = cd_by_url(c, kg_xml_attr(&c->x, k, "url"));
            if (target && kg_xml_is(target, "node")) into = target, inst_name = kg_xml_attr(&c->x, k, "name");
            else cd_diag(c, KG_WARNING, "collada.bad_ref", k, "<instance_node url='%s'> names no node; ignored%s",
                         kg_xml_attr(&c->x, k, "url"), NULL);
        }
        if (!into) continue;
        if (top > KG_LIMIT_DEPTH) {
            char limit[16];
            snprintf(limit, sizeof limit, "%d", KG_LIMIT_DEPTH);
            cd_diag(c, KG_ERROR, "collada.too_deep", k, "visual-scene nodes nested deeper than %s (KG_LIMIT_DEPTH), or "
                    "instancing each other in a cycle; the rest is ignored%s", limit, NULL);
            t->k = NULL; /* one error, not one per sibling */
            continue;
        }
        if (top == cap) st = kg_xrealloc(st, (size_t)(cap *= 2) * sizeof *st);
        t = &st[top - 1];
        enter_node(c, into, inst_name, t, &st[top]);
        top++;
    }
    free(st);
}

/* The visual scene the <scene> instantiates, else the first. */
xmlNodePtr cd_visual_scene(cd *c, xmlNodePtr root) {
    xmlNodePtr scene = kg_xml_child(root, "scene");
    xmlNodePtr ivs = scene ? kg_xml_child(scene, "instance_visual_scene") : NULL;
    xmlNodePtr vs = ivs ? cd_by_url(c, kg_xml_attr(&c->x, ivs, "url")) : NULL;
    if (!vs) {
        xmlNodePtr lib = kg_xml_child(root, "library_visual_scenes");
        vs = lib ? kg_xml_child(lib, "visual_scene") : NULL;
    }
    return vs;
}

void cd_read_visual_scene(cd *c, xmlNodePtr root) {
    /* the model's own materials first, in their order (kinegraph files) */
    xmlNodePtr lib = kg_xml_child(root, "library_materials");
    for (xmlNodePtr m = lib ? kg_xml_first(lib) : NULL; m; m = kg_xml_next(m)) {
        xmlNodePtr t = kg_xml_is(m, "material") ? kinegraph_technique(c, m) : NULL;
        if (t && kg_xml_child(t, "model_material")) material(c, m);
    }
    xmlNodePtr vs = cd_visual_scene(c, root);
    if (!vs) return;
    walk w = {0, NULL};
    for (xmlNodePtr n = kg_xml_first(vs); n; n = kg_xml_next(n))
        if (kg_xml_is(n, "node")) walk_node(c, &w, n);
    if (w.outside) {
        char count[16];
        snprintf(count, sizeof count, "%d", w.outside);
        cd_diag(c, KG_INFO, "collada.unbound_geometry", w.first_outside, "%s geometry instances of the visual scene are "
                "outside every link's node; they are not part of the model%s", count, NULL);
    }
}
