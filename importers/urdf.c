/* URDF 1.0 importer (libxml2).
 *
 * Reads robot, material, link (inertial, visual, collision, geometry), joint
 * (origin, axis, limit, dynamics, mimic, safety_controller, calibration), and keeps
 * transmission, gazebo and any other top-level element verbatim as extras.
 * Requirements follow urdfdom (the reference parser): what urdfdom rejects is an
 * error here too, and what it silently accepts but is wrong (zero axis, inverted
 * limits, negative mass, dangling mimic, loops) is reported by the builder. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/builder.h"
#include "core/spatial.h"
#include "core/str.h"
#include "formats/xml.h"
#include "importers/importers.h"

typedef struct urdf_ctx {
    kg_xml x;
    kg_builder *b;
    kg_diags *d;
    const char *file;
    const kg_load_options *o;
} urdf_ctx;

static int line_of(xmlNodePtr n) { return kg_xml_line(n); }
static const char *tag(xmlNodePtr n) { return (const char *)n->name; }

static void missing(urdf_ctx *c, xmlNodePtr n, const char *what, const char *owner) {
    kg_diag_add(c->d, KG_ERROR, "urdf.missing_attribute", c->file, line_of(n), tag(n),
                "<%s> of %s has no %s", tag(n), owner, what);
}

static void unknown_child(urdf_ctx *c, xmlNodePtr n, xmlNodePtr parent, const char *owner) {
    kg_diag_add(c->d, KG_WARNING, "urdf.unknown_element", c->file, line_of(n), tag(n),
                "unknown element <%s%s%s> in <%s> of %s; ignored",
                n->ns && n->ns->prefix ? (const char *)n->ns->prefix : "", n->ns && n->ns->prefix ? ":" : "",
                tag(n), tag(parent), owner);
}

/* The attributes URDF 1.0 gives each element (urdfdom's reader and the
 * specification). Every URDF reader ignores others: one within two edits of
 * a known name is a typo (a warning naming it); one far from any is an
 * extension (a note). */
static const struct {
    const char *element;
    const char *attrs[7];
} known_attrs[] = {
    {"axis", {"xyz"}},
    {"box", {"size"}},
    {"calibration", {"rising", "falling", "reference_position"}},
    {"capsule", {"radius", "length"}},
    {"child", {"link"}},
    {"collision", {"name"}},
    {"color", {"rgba"}},
    {"cylinder", {"radius", "length"}},
    {"dynamics", {"damping", "friction"}},
    {"geometry", {NULL}},
    {"inertia", {"ixx", "ixy", "ixz", "iyy", "iyz", "izz"}},
    {"inertial", {NULL}},
    {"joint", {"name", "type"}},
    {"limit", {"lower", "upper", "effort", "velocity"}},
    {"link", {"name"}},
    {"mass", {"value"}},
    {"material", {"name"}},
    {"mesh", {"filename", "scale"}},
    {"mimic", {"joint", "multiplier", "offset"}},
    {"origin", {"xyz", "rpy"}},
    {"parent", {"link"}},
    {"safety_controller", {"soft_lower_limit", "soft_upper_limit", "k_position", "k_velocity"}},
    {"sphere", {"radius"}},
    {"texture", {"filename"}},
    {"visual", {"name"}},
};

/* Edit distance of two short names (typos), capped at 3. */
static int distance(const char *a, const char *b) {
    size_t n = strlen(a), m = strlen(b);
    if (n > 40 || m > 40) return 3;
    int row[41];
    for (size_t j = 0; j <= m; j++) row[j] = (int)j;
    for (size_t i = 1; i <= n; i++) {
        int diag = row[0];
        row[0] = (int)i;
        for (size_t j = 1; j <= m; j++) {
            int up = row[j], best = diag + (a[i - 1] != b[j - 1]);
            if (up + 1 < best) best = up + 1;
            if (row[j - 1] + 1 < best) best = row[j - 1] + 1;
            diag = up;
            row[j] = best;
        }
    }
    return row[m] < 3 ? row[m] : 3;
}

/* Reports attributes the element does not have in URDF, in n and below
 * (elements URDF does not know are reported elsewhere, and skipped). */
static void check_attributes(urdf_ctx *c, xmlNodePtr n) {
    for (size_t e = 0; e < sizeof known_attrs / sizeof *known_attrs; e++) {
        if (strcmp(tag(n), known_attrs[e].element) != 0) continue;
        for (xmlAttrPtr a = n->properties; a; a = a->next) {
            if (a->ns) continue; /* xacro:, xmlns and other namespaced extensions */
            const char *name = (const char *)a->name, *near = NULL;
            int found = 0, best = 3;
            for (int k = 0; k < 7 && known_attrs[e].attrs[k] && !found; k++) {
                int dist = distance(name, known_attrs[e].attrs[k]);
                if (dist == 0) found = 1;
                else if (dist < best) best = dist, near = known_attrs[e].attrs[k];
            }
            if (found) continue;
            if (near)
                kg_diag_add(c->d, KG_WARNING, "urdf.unknown_attribute", c->file, line_of(n), tag(n),
                            "<%s> has no attribute '%s' in URDF (did you mean '%s'?); ignored", tag(n), name, near);
            else /* nothing near it: an extension (Franka's friction K D, sdformat's dont_collapse) */
                kg_diag_add(c->d, KG_INFO, "urdf.extension_attribute", c->file, line_of(n), tag(n),
                            "<%s> has attribute '%s', which is not URDF (an extension?); ignored", tag(n), name);
        }
        break;
    }
    for (xmlNodePtr k = kg_xml_first(n); k; k = kg_xml_next(k)) check_attributes(c, k);
}

/* A required numeric attribute: 1 when read; otherwise an error (missing, or
 * malformed) and 0. */
static int required(urdf_ctx *c, xmlNodePtr n, const char *attr, double *out, int count, const char *owner) {
    int r = kg_xml_doubles(&c->x, n, attr, out, count);
    if (r == 0) missing(c, n, attr, owner);
    return r == 1;
}

/* <origin xyz rpy>: both optional, default zero. */
static void read_origin(urdf_ctx *c, xmlNodePtr parent, double pos[3], double rpy[3], double rot[9]) {
    xmlNodePtr o = kg_xml_child(parent, "origin");
    if (o) {
        kg_xml_doubles(&c->x, o, "xyz", pos, 3);
        kg_xml_doubles(&c->x, o, "rpy", rpy, 3);
    }
    kg_rot_from_rpy(rot, rpy);
}

static void read_color(urdf_ctx *c, xmlNodePtr mat, kg_material *m) {
    xmlNodePtr col = kg_xml_child(mat, "color");
    if (col) m->has_color = required(c, col, "rgba", m->rgba, 4, "a material");
    xmlNodePtr tex = kg_xml_child(mat, "texture");
    if (tex) {
        const char *f = kg_xml_attr(&c->x, tex, "filename");
        /* an empty <texture/> says nothing: widely used humanoids have one, and
         * refusing the whole robot over it helps no one */
        if (!f || !*f)
            kg_diag_add(c->d, KG_WARNING, "material.texture_empty", c->file, line_of(tex), "texture",
                        "<texture> of material '%s' has no filename; ignored", m->name ? m->name : "");
        else m->texture = kg_builder_strdup(c->b, f);
    }
}

static void read_material_def(urdf_ctx *c, xmlNodePtr n) {
    const char *name = kg_xml_attr(&c->x, n, "name");
    if (!name || !*name) {
        missing(c, n, "name", "the robot");
        return;
    }
    kg_material *m = kg_builder_add_material(c->b, name, line_of(n));
    if (m) read_color(c, n, m);
}

static kg_geom *read_geometry(urdf_ctx *c, xmlNodePtr owner, kg_link *link, kg_geom_role role,
                              const char *material) {
    const char *what = kg_geom_role_name(role);
    xmlNodePtr g = kg_xml_child(owner, "geometry");
    char ownername[300];
    snprintf(ownername, sizeof ownername, "link '%s'", link->name);
    if (!g) {
        kg_diag_add(c->d, KG_ERROR, "geometry.missing", c->file, line_of(owner), what,
                    "<%s> of link '%s' has no <geometry>", what, link->name);
        return NULL;
    }
    xmlNodePtr s = kg_xml_first(g);
    if (!s) {
        kg_diag_add(c->d, KG_ERROR, "geometry.empty", c->file, line_of(g), "geometry",
                    "<geometry> of a %s of link '%s' has no shape", what, link->name);
        return NULL;
    }
    for (xmlNodePtr extra = kg_xml_next(s); extra; extra = kg_xml_next(extra))
        kg_diag_add(c->d, KG_WARNING, "geometry.extra_shape", c->file, line_of(extra), tag(extra),
                    "<geometry> of a %s of link '%s' has more than one shape; <%s> ignored (only the "
                    "first, <%s>, is used)",
                    what, link->name, tag(extra), tag(s));
    kg_geom_type type;
    if (kg_xml_is(s, "box")) type = KG_GEOM_BOX;
    else if (kg_xml_is(s, "cylinder")) type = KG_GEOM_CYLINDER;
    else if (kg_xml_is(s, "sphere")) type = KG_GEOM_SPHERE;
    else if (kg_xml_is(s, "mesh")) type = KG_GEOM_MESH;
    else if (kg_xml_is(s, "capsule")) type = KG_GEOM_CAPSULE;
    else {
        kg_diag_add(c->d, KG_ERROR, "geometry.unknown", c->file, line_of(s), tag(s),
                    "unknown shape <%s> in a %s of link '%s'", tag(s), what, link->name);
        return NULL;
    }
    double size[3] = {0, 0, 0}, scale[3] = {1, 1, 1};
    const char *uri = NULL;
    int ok = 1;
    switch (type) {
    case KG_GEOM_BOX:
        ok = required(c, s, "size", size, 3, ownername);
        break;
    case KG_GEOM_SPHERE:
        ok = required(c, s, "radius", size, 1, ownername);
        break;
    case KG_GEOM_CAPSULE:
        kg_diag_add(c->d, KG_WARNING, "urdf.capsule", c->file, line_of(s), "capsule",
                    "<capsule> is not part of URDF 1.0 (read as radius and length like a cylinder)");
        /* fall through */
    case KG_GEOM_CYLINDER:
        ok = required(c, s, "radius", size, 1, ownername);
        ok &= required(c, s, "length", size + 1, 1, ownername);
        break;
    case KG_GEOM_MESH:
        uri = kg_xml_attr(&c->x, s, "filename");
        if (!uri || !*uri) {
            missing(c, s, "filename", ownername);
            ok = 0;
        }
        if (kg_xml_doubles(&c->x, s, "scale", scale, 3) < 0) ok = 0;
        break;
    }
    if (!ok) return NULL;
    kg_geom *geom = kg_builder_add_geom(c->b, link, role, type, material, line_of(owner));
    const char *name = kg_xml_attr(&c->x, owner, "name");
    if (name) geom->name = kg_builder_strdup(c->b, name);
    read_origin(c, owner, geom->pos, geom->rpy, geom->rot);
    memcpy(geom->size, size, sizeof size);
    memcpy(geom->scale, scale, sizeof scale);
    if (uri) {
        geom->mesh_uri = kg_builder_strdup(c->b, uri);
        int oom;
        char *p = kg_resolve_uri(c->o ? &c->o->resolver : NULL, c->file, uri, c->d, line_of(s), &oom);
        if (p) {
            geom->mesh_path = kg_builder_strdup(c->b, p);
            free(p);
        } else if (oom) {
            kg_xml_out_of_memory(&c->x); /* the reader fails, io.memory */
        } else {
            kg_diag_add(c->d, KG_WARNING, "mesh.unresolved", c->file, line_of(s), "mesh",
                        "mesh '%s' of link '%s' (%s) was not found", uri, link->name, what);
        }
    }
    return geom;
}

static void read_visual(urdf_ctx *c, xmlNodePtr v, kg_link *link, const char *owner) {
    const char *material = NULL;
    kg_material *anonymous = NULL;
    xmlNodePtr mat = kg_xml_child(v, "material");
    if (mat) {
        material = kg_xml_attr(&c->x, mat, "name");
        int inline_def = kg_xml_child(mat, "color") || kg_xml_child(mat, "texture");
        if (!material || !*material) {
            /* urdfdom needs a name; exporters (SolidWorks) write name="" with a colour */
            if (!inline_def) missing(c, mat, "name", "a visual");
            else if ((anonymous = kg_builder_add_material(c->b, "", line_of(mat)))) read_color(c, mat, anonymous);
            material = NULL;
        } else if (inline_def && !kg_builder_has_material(c->b, material)) {
            kg_material *m = kg_builder_add_material(c->b, material, line_of(mat));
            if (m) read_color(c, mat, m);
        }
    }
    for (xmlNodePtr k = kg_xml_first(v); k; k = kg_xml_next(k))
        if (!kg_xml_is(k, "origin") && !kg_xml_is(k, "geometry") && !kg_xml_is(k, "material"))
            unknown_child(c, k, v, owner);
    kg_geom *g = read_geometry(c, v, link, KG_VISUAL, material);
    if (g && anonymous) kg_builder_set_geom_material(c->b, g, anonymous);
}

static void read_inertial(urdf_ctx *c, xmlNodePtr n, kg_link *link, const char *owner) {
    kg_inertial *in = &link->inertial;
    read_origin(c, n, in->pos, in->rpy, in->rot);
    xmlNodePtr mass = kg_xml_child(n, "mass"), inertia = kg_xml_child(n, "inertia");
    if (!mass) {
        kg_diag_add(c->d, KG_ERROR, "urdf.missing_element", c->file, line_of(n), "inertial",
                    "<inertial> of link '%s' has no <mass>", link->name);
    } else {
        required(c, mass, "value", &in->mass, 1, owner);
    }
    if (!inertia) {
        kg_diag_add(c->d, KG_ERROR, "urdf.missing_element", c->file, line_of(n), "inertial",
                    "<inertial> of link '%s' has no <inertia>", link->name);
    } else {
        static const char *const names[6] = {"ixx", "ixy", "ixz", "iyy", "iyz", "izz"};
        for (int i = 0; i < 6; i++) required(c, inertia, names[i], &in->inertia[i], 1, owner);
    }
    for (xmlNodePtr k = kg_xml_first(n); k; k = kg_xml_next(k))
        if (!kg_xml_is(k, "origin") && !kg_xml_is(k, "mass") && !kg_xml_is(k, "inertia"))
            unknown_child(c, k, n, owner);
    link->has_inertial = 1;
}

/* "what 'name'" for diagnostics, whole: in buf when it fits (most names: no
 * allocation per link and joint), else allocated (free it with unnamed); buf's
 * cut text when memory runs out. */
static char *named(char *buf, size_t size, const char *what, const char *name) {
    int n = snprintf(buf, size, "%s '%s'", what, name);
    char *s = n >= 0 && (size_t)n >= size ? kg_strf("%s '%s'", what, name) : NULL;
    return s ? s : buf;
}

static void unnamed(char *s, const char *buf) {
    if (s != buf) free(s);
}

static void read_link(urdf_ctx *c, xmlNodePtr n) {
    const char *name = kg_xml_attr(&c->x, n, "name");
    if (!name || !*name) missing(c, n, "name", "the robot");
    kg_link *link = kg_builder_add_link(c->b, name, line_of(n));
    char small[300], *owner = named(small, sizeof small, "link", link->name);
    int ninertial = 0;
    for (xmlNodePtr k = kg_xml_first(n); k; k = kg_xml_next(k)) {
        if (kg_xml_is(k, "inertial")) {
            if (ninertial++)
                kg_diag_add(c->d, KG_WARNING, "urdf.duplicate_element", c->file, line_of(k), "inertial",
                            "link '%s' has more than one <inertial>; only the first is used", link->name);
            else read_inertial(c, k, link, owner);
        } else if (kg_xml_is(k, "visual")) {
            read_visual(c, k, link, owner);
        } else if (kg_xml_is(k, "collision")) {
            for (xmlNodePtr g = kg_xml_first(k); g; g = kg_xml_next(g))
                if (!kg_xml_is(g, "origin") && !kg_xml_is(g, "geometry")) unknown_child(c, g, k, owner);
            read_geometry(c, k, link, KG_COLLISION, NULL);
        } else {
            unknown_child(c, k, n, owner);
        }
    }
    unnamed(owner, small);
}

static void read_joint(urdf_ctx *c, xmlNodePtr n) {
    const char *name = kg_xml_attr(&c->x, n, "name");
    const char *type = kg_xml_attr(&c->x, n, "type");
    if (!name || !*name) missing(c, n, "name", "the robot");
    char small[300], *owner = named(small, sizeof small, "joint", name ? name : "");
    int t = type ? kg_joint_type_parse(type) : -1;
    if (!type) {
        missing(c, n, "type", owner);
    } else if (t < 0) {
        kg_diag_add(c->d, KG_ERROR, "joint.unknown_type", c->file, line_of(n), "joint",
                    "joint '%s' has unknown type '%s' (read as fixed)", name ? name : "", type);
    }
    if (t < 0) t = KG_JOINT_FIXED;
    xmlNodePtr pn = kg_xml_child(n, "parent"), cn = kg_xml_child(n, "child");
    const char *parent = pn ? kg_xml_attr(&c->x, pn, "link") : NULL;
    const char *child = cn ? kg_xml_attr(&c->x, cn, "link") : NULL;
    if (!pn) kg_diag_add(c->d, KG_ERROR, "urdf.missing_element", c->file, line_of(n), "joint",
                         "joint '%s' has no <parent>", name ? name : "");
    else if (!parent) missing(c, pn, "link", owner);
    if (!cn) kg_diag_add(c->d, KG_ERROR, "urdf.missing_element", c->file, line_of(n), "joint",
                         "joint '%s' has no <child>", name ? name : "");
    else if (!child) missing(c, cn, "link", owner);

    kg_joint *j = kg_builder_add_joint(c->b, name, (kg_joint_type)t, parent, child, line_of(n));
    read_origin(c, n, j->pos, j->rpy, j->rot);
    for (xmlNodePtr k = kg_xml_first(n); k; k = kg_xml_next(k)) {
        if (kg_xml_is(k, "origin") || kg_xml_is(k, "parent") || kg_xml_is(k, "child")) {
            continue;
        } else if (kg_xml_is(k, "axis")) {
            required(c, k, "xyz", j->axis, 3, owner);
        } else if (kg_xml_is(k, "limit")) {
            /* URDF: lower and upper default to 0 on revolute and prismatic joints;
             * on other types they have no meaning, but what is declared is kept */
            int moving = t == KG_JOINT_REVOLUTE || t == KG_JOINT_PRISMATIC;
            int has_lo = kg_xml_attr(&c->x, k, "lower") != NULL, has_hi = kg_xml_attr(&c->x, k, "upper") != NULL;
            j->lower = has_lo || !moving ? -INFINITY : 0;
            j->upper = has_hi || !moving ? INFINITY : 0;
            kg_xml_double(&c->x, k, "lower", &j->lower);
            kg_xml_double(&c->x, k, "upper", &j->upper);
            j->has_limit = moving || has_lo || has_hi;
            required(c, k, "effort", &j->effort, 1, owner);
            required(c, k, "velocity", &j->velocity, 1, owner);
            if (!moving && (has_lo || has_hi))
                kg_diag_add(c->d, KG_INFO, "joint.limit_ignored", c->file, line_of(k), "limit",
                            "position limits of %s joint '%s' have no meaning; kept, not used", type, j->name);
        } else if (kg_xml_is(k, "dynamics")) {
            j->has_dynamics = 1;
            kg_xml_double(&c->x, k, "damping", &j->damping);
            kg_xml_double(&c->x, k, "friction", &j->friction);
        } else if (kg_xml_is(k, "mimic")) {
            const char *leader = kg_xml_attr(&c->x, k, "joint");
            double mult = 1, off = 0;
            kg_xml_double(&c->x, k, "multiplier", &mult);
            kg_xml_double(&c->x, k, "offset", &off);
            if (!leader || !*leader) missing(c, k, "joint", owner);
            else kg_builder_set_mimic(c->b, j, leader, mult, off, line_of(k));
        } else if (kg_xml_is(k, "safety_controller")) {
            j->has_safety = 1;
            kg_xml_double(&c->x, k, "soft_lower_limit", &j->soft_lower);
            kg_xml_double(&c->x, k, "soft_upper_limit", &j->soft_upper);
            kg_xml_double(&c->x, k, "k_position", &j->k_position);
            required(c, k, "k_velocity", &j->k_velocity, 1, owner);
        } else if (kg_xml_is(k, "calibration")) {
            if (kg_xml_double(&c->x, k, "rising", &j->cal_rising) == 1) j->calibration |= KG_CAL_RISING;
            if (kg_xml_double(&c->x, k, "falling", &j->cal_falling) == 1) j->calibration |= KG_CAL_FALLING;
            if (kg_xml_double(&c->x, k, "reference_position", &j->cal_reference) == 1)
                j->calibration |= KG_CAL_REFERENCE;
        } else {
            unknown_child(c, k, n, owner);
        }
    }
    if ((t == KG_JOINT_REVOLUTE || t == KG_JOINT_PRISMATIC) && !kg_xml_child(n, "limit"))
        kg_diag_add(c->d, KG_ERROR, "joint.no_limit", c->file, line_of(n), "joint",
                    "%s joint '%s' has no <limit> (URDF requires one)", type, j->name);
    unnamed(owner, small);
}

/* Top-level elements that are conventional extensions, kept verbatim without a
 * warning. */
static int known_extension(xmlNodePtr n) {
    static const char *const names[] = {"transmission", "gazebo", "mujoco", "sensor", "drake", NULL};
    if (n->ns && n->ns->prefix) return 0;
    for (int i = 0; names[i]; i++)
        if (strcmp(tag(n), names[i]) == 0) return 1;
    return 0;
}

kg_model *kg_import_urdf(const char *file, const char *buf, size_t len, const kg_load_options *o,
                         kg_diags *d) {
    urdf_ctx c = {.d = d, .file = file, .o = o};
    if (kg_xml_parse(&c.x, buf, len, file, d) != 0) return NULL;
    xmlNodePtr robot = xmlDocGetRootElement(c.x.doc);
    if (!kg_xml_is(robot, "robot")) {
        kg_diag_add(d, KG_ERROR, "urdf.not_robot", file, line_of(robot), tag(robot),
                    "the root element is <%s>; a URDF file has <robot>", tag(robot));
        kg_xml_close(&c.x);
        return NULL;
    }
    if (!(c.b = kg_builder_new(file, "urdf", d))) { /* out of memory, said */
        kg_xml_close(&c.x);
        return NULL;
    }
    kg_builder_forbid_loops(c.b, "URDF");
    const char *name = kg_xml_attr(&c.x, robot, "name");
    if (!name) missing(&c, robot, "name", "the file");
    kg_builder_set_name(c.b, name ? name : "");
    const char *version = kg_xml_attr(&c.x, robot, "version");
    if (version && strcmp(version, "1.0") != 0)
        kg_diag_add(d, KG_WARNING, "urdf.version", file, line_of(robot), "robot",
                    "URDF version '%s' is not 1.0; read as 1.0", version);

    /* materials first: links may refer to them before they are defined */
    for (xmlNodePtr n = kg_xml_first(robot); n; n = kg_xml_next(n))
        if (kg_xml_is(n, "material")) {
            read_material_def(&c, n);
            check_attributes(&c, n);
        }
    for (xmlNodePtr n = kg_xml_first(robot); n; n = kg_xml_next(n)) {
        if (kg_xml_is(n, "material")) continue;
        if (kg_xml_is(n, "link")) {
            read_link(&c, n);
            check_attributes(&c, n);
        } else if (kg_xml_is(n, "joint")) {
            read_joint(&c, n);
            check_attributes(&c, n);
        } else {
            const char *ref = kg_xml_attr(&c.x, n, "name");
            if (!ref) ref = kg_xml_attr(&c.x, n, "reference");
            char *xml = kg_xml_dump(&c.x, n);
            /* the element's name whole (cut to a fixed buffer it could end inside a UTF-8 character,
             * and the COLLADA written from it did not parse) */
            const char *prefix = n->ns && n->ns->prefix ? (const char *)n->ns->prefix : "";
            char *kind = kg_strf("%s%s%s", prefix, *prefix ? ":" : "", tag(n));
            if (!kind) {
                free(xml);
                kg_xml_out_of_memory(&c.x);
                break;
            }
            kg_builder_add_extra(c.b, kind, ref, xml, line_of(n));
            free(xml);
            if (!known_extension(n))
                kg_diag_add(d, KG_WARNING, "urdf.unknown_element", file, line_of(n), kind,
                            "unknown element <%s> in <robot>; kept verbatim, not interpreted", kind);
            free(kind);
        }
    }
    kg_model *m = kg_builder_finish(c.b);
    if (c.x.oom) { /* a name or an extension could not be copied */
        kg_model_free(m);
        m = NULL;
        kg_diag_out_of_memory(d, c.x.oom_at, file, "while reading the URDF");
    }
    kg_xml_close(&c.x);
    return m;
}
