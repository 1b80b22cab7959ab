/* COLLADA 1.5 kinematics importer (libxml2), .dae and .zae.
 *
 * Read: the kinematics model the scene instantiates (through kinematics scene
 * and articulated systems; else the first in the file): joints from
 * library_joints or inline (revolute and prismatic axes; several axes make a
 * compound joint), the link tree (attachment_full), loop closures
 * (attachment_start / attachment_end), formulas (instance_formula too), the
 * articulated systems' axis_info (active, locked, soft limits, speed,
 * acceleration), rigid-body masses and inertias, <unit>, and every <extra> of
 * the kinematics model and articulated systems verbatim (OpenRAVE manipulators,
 * collision sets, ...).
 *
 * Conventions:
 *   - Lengths are multiplied by <unit meter>; revolute limits, speeds and
 *     accelerations are degrees in COLLADA and radians in the model; inertias
 *     scale with the unit squared.
 *   - A COLLADA link may carry transforms of its own (L), applied after its
 *     joint's motion. Motion(q) L = L Motion'(q), with the axis turned by L's
 *     rotation, whenever L does not move the rotation axis off the joint origin
 *     (always for prismatic joints; for revolute ones when L's translation lies
 *     along the axis, as in every OpenRAVE file): then L joins the joint origin
 *     and the model's link frame is the file's. Otherwise the joint moves a
 *     massless link "<link>.joint" and the link hangs from it by a fixed joint
 *     at L. A root link with a transform of its own hangs from a static "world"
 *     link the same way. So every link frame is the file's.
 *   - attachment_start (link A, transforms Ts) and attachment_end (link B, Te)
 *     of a joint close a loop: A Ts Motion(q) = B Te. The model adds a massless
 *     marker link "<joint>.end" on B at Te and a joint from A at Ts to it, which
 *     the builder cuts: a virtual link that must coincide with the marker.
 *   - A formula that is linear in one joint, target = a * leader + b (in
 *     COLLADA units), is a mimic coupling (converted to SI). Others are
 *     evaluated to tell and reported; the joint is then left independent.
 *   - <up_axis> does not change kinematics (frames are relative); it is
 *     reported.
 *   - A rigid body's mass_frame and shapes are given, as the robotics tools
 *     write and read them, in the frame of the node instance_physics_model's
 *     `parent` names (taken as the kinematics model's frame; see
 *     physics_frame) with every joint at zero, not in its link's frame: the
 *     link's inertial is inverse(link at zero) * mass_frame, its collision
 *     geometry inverse(link at zero) * shape.
 *   - A joint whose axes are all zero (urdf_to_collada's URDF fixed joints) is
 *     fixed, with a warning (collada.axis_zero_fixed). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "core/spatial.h"
#include "core/str.h"
#include "formats/mathml.h"
#include "formats/zae.h"
#include "importers/collada.h"
#include "importers/importers.h"

/* A <newparam>'s sid (the first one in document order wins). */
static void index_param(cd *c, xmlNodePtr n) {
    const char *sid = kg_xml_is(n, "newparam") ? kg_xml_attr(&c->x, n, "sid") : NULL;
    if (!sid || kg_strmap_get(&c->params, sid) >= 0) return;
    if (cd_grow(c, (void **)&c->paramnodes, c->nparams, &c->capparams, sizeof *c->paramnodes) != 0) return;
    c->paramnodes[c->nparams] = n;
    cd_put(c, &c->params, sid, c->nparams++);
}

/* Every element's id, and every newparam's sid, at any depth, first in
 * document order wins (looked up per reference, a search of the document would
 * be quadratic): walked with the tree's parent links, so the C stack does not
 * grow with the depth. */
static void index_ids(cd *c, xmlNodePtr root) {
    xmlNodePtr n = root;
    while (n) {
        if (n->type == XML_ELEMENT_NODE) {
            const char *id = kg_xml_attr(&c->x, n, "id");
            if (id && *id && kg_strmap_get(&c->ids, id) < 0 &&
                cd_grow(c, (void **)&c->idnodes, c->nids, &c->capids, sizeof *c->idnodes) == 0) {
                c->idnodes[c->nids] = n;
                cd_put(c, &c->ids, id, c->nids++);
            }
            if (n != root) index_param(c, n);
            if (n->children) {
                n = n->children;
                continue;
            }
        }
        while (n && n != root && !n->next) n = n->parent;
        n = n && n != root ? n->next : NULL;
    }
}

/* ---- joints ------------------------------------------------------------------ */

/* The joint defined at n (read once); NULL when memory runs out (marked). */
static const cjoint *define_joint(cd *c, xmlNodePtr n) {
    for (int i = 0; i < c->ndefs; i++)
        if (c->defs[i]->node == n) return c->defs[i];
    cjoint *j = calloc(1, sizeof *j);
    if (!j || cd_grow(c, (void **)&c->defs, c->ndefs, &c->capdefs, sizeof *c->defs) != 0) return free(j), cd_oom(c);
    c->defs[c->ndefs++] = j;
    j->node = n;
    j->name = kg_xml_attr(&c->x, n, "name");
    for (xmlNodePtr a = kg_xml_first(n); a; a = kg_xml_next(a)) {
        int prismatic = kg_xml_is(a, "prismatic");
        if (!prismatic && !kg_xml_is(a, "revolute")) continue;
        if (j->naxis == MAX_AXES) {
            cd_diag(c, KG_ERROR, "collada.too_many_axes", a, "a joint has more than 6 axes; the rest are ignored%s%s", NULL, NULL);
            break;
        }
        int k = j->naxis++;
        j->axis[k].prismatic = prismatic;
        j->axis[k].sid = kg_xml_attr(&c->x, a, "sid");
        xmlNodePtr ax = kg_xml_child(a, "axis");
        if (!ax || cd_numbers(c, ax, j->axis[k].dir, 3) != 0) {
            if (!ax) cd_diag(c, KG_ERROR, "collada.joint_no_axis", a, "<%s> has no <axis>%s", cd_tag(a), NULL);
            j->axis[k].dir[2] = 1;
        }
        xmlNodePtr lim = kg_xml_child(a, "limits");
        xmlNodePtr mn = lim ? kg_xml_child(lim, "min") : NULL, mxn = lim ? kg_xml_child(lim, "max") : NULL;
        if (mn && mxn && cd_numbers(c, mn, &j->axis[k].min, 1) == 0 && cd_numbers(c, mxn, &j->axis[k].max, 1) == 0) {
            double s = prismatic ? c->unit : KG_PI / 180; /* revolute limits are degrees */
            j->axis[k].min *= s;
            j->axis[k].max *= s;
            j->axis[k].has_limit = 1;
        }
    }
    if (j->naxis == 0) cd_diag(c, KG_ERROR, "collada.joint_no_axis", n, "joint has no <revolute> or <prismatic> axis%s%s", NULL, NULL);
    return j;
}

/* Splits a SIDREF path in place at '/' (empty segments skipped); returns the count. */
static int split_path(char *buf, char **parts, int max) {
    int n = 0;
    for (char *p = buf; *p && n < max;) {
        while (*p == '/') *p++ = 0;
        if (!*p) break;
        parts[n++] = p;
        while (*p && *p != '/') p++;
    }
    return n;
}

static jinst *find_joint(cd *c, const char *sid) {
    int i = kg_strmap_get(&c->joint_sids, sid);
    return i >= 0 ? &c->joints[i] : NULL;
}

/* A SIDREF to a joint ("kmodel/joint0", "kmodel/joint0/axis0"): the joint and,
 * when asked, the axis index (0 when the reference names none). */
static jinst *resolve_joint(cd *c, const char *ref, int *axis) {
    if (axis) *axis = 0;
    char buf[512];
    snprintf(buf, sizeof buf, "%s", ref);
    char *parts[8];
    int n = split_path(buf, parts, 8);
    for (int i = n - 1; i >= 0; i--) {
        jinst *j = find_joint(c, parts[i]);
        if (!j) continue;
        if (axis && i + 1 < n)
            for (int k = 0; k < j->def->naxis; k++)
                if (j->def->axis[k].sid && !strcmp(j->def->axis[k].sid, parts[i + 1])) *axis = k;
        return j;
    }
    return NULL;
}

/* Joints the kinematics model uses: instance_joint (library) and inline joint. */
static void collect_joints(cd *c, xmlNodePtr tc) {
    kg_strmap names;
    kg_strmap_init(&names);
    for (xmlNodePtr n = kg_xml_first(tc); n; n = kg_xml_next(n)) {
        xmlNodePtr def = NULL;
        const char *sid = kg_xml_attr(&c->x, n, "sid"), *name = NULL;
        if (kg_xml_is(n, "instance_joint")) {
            def = cd_by_url(c, kg_xml_attr(&c->x, n, "url"));
            if (!def || !kg_xml_is(def, "joint")) {
                cd_diag(c, KG_ERROR, "collada.bad_ref", n, "instance_joint url '%s' names no joint%s",
                     kg_xml_attr(&c->x, n, "url"), NULL);
                continue;
            }
            name = kg_xml_attr(&c->x, n, "name");
        } else if (kg_xml_is(n, "joint")) {
            def = n;
        } else {
            continue;
        }
        if (!sid) sid = kg_xml_attr(&c->x, def, "sid");
        if (!sid) sid = kg_xml_attr(&c->x, def, "id");
        if (!sid) {
            cd_diag(c, KG_ERROR, "collada.no_sid", n, "a joint of the kinematics model has no sid%s%s", NULL, NULL);
            continue;
        }
        const cjoint *defined = define_joint(c, def);
        if (!defined || cd_grow(c, (void **)&c->joints, c->njoints, &c->capjoints, sizeof *c->joints) != 0) break;
        jinst *j = &c->joints[c->njoints++];
        memset(j, 0, sizeof *j);
        j->sid = sid;
        cd_put(c, &c->joint_sids, sid, c->njoints - 1);
        j->def = defined;
        j->active = 1;
        if (!name) name = j->def->name;
        if (!name) name = sid;
        /* unique names for the model */
        char *u = kg_strmap_unique(&names, name);
        j->name = u ? (char *)cd_strdup(c, u) : cd_oom(c);
        free(u);
        if (!j->name) break;
        cd_put(c, &names, j->name, 0);
    }
    kg_strmap_free(&names);
}

/* ---- links --------------------------------------------------------------------- */

/* A unique link name for <link> n (NULL: the static world link). */
static const char *link_name(cd *c, xmlNodePtr n) {
    const char *name = n ? kg_xml_attr(&c->x, n, "name") : "world";
    const char *sid = n ? kg_xml_attr(&c->x, n, "sid") : NULL;
    const char *want = name && *name ? name : sid && *sid ? sid : "link";
    char *u = kg_strmap_unique(&c->link_names, want);
    const char *r = u ? cd_strdup(c, u) : cd_oom(c);
    free(u);
    return r ? r : "";
}

/* <joint><extra type="kinegraph"><technique profile="kinegraph">: what COLLADA
 * has no element for (kinegraph's own writer puts it there), in SI units. */
static void read_joint_extra(cd *c, xmlNodePtr def, kg_joint *kj) {
    for (xmlNodePtr e = kg_xml_first(def); e; e = kg_xml_next(e)) {
        if (!kg_xml_is(e, "extra")) continue;
        for (xmlNodePtr t = kg_xml_first(e); t; t = kg_xml_next(t)) {
            const char *profile = kg_xml_attr(&c->x, t, "profile");
            if (!kg_xml_is(t, "technique") || !profile || strcmp(profile, "kinegraph")) continue;
            for (xmlNodePtr v = kg_xml_first(t); v; v = kg_xml_next(v)) {
                if (kg_xml_is(v, "effort")) {
                    cd_numbers(c, v, &kj->effort, 1);
                } else if (kg_xml_is(v, "dynamics")) {
                    kj->has_dynamics = 1;
                    kg_xml_double(&c->x, v, "damping", &kj->damping);
                    kg_xml_double(&c->x, v, "friction", &kj->friction);
                } else if (kg_xml_is(v, "safety_controller")) {
                    kj->has_safety = 1;
                    kg_xml_double(&c->x, v, "soft_lower_limit", &kj->soft_lower);
                    kg_xml_double(&c->x, v, "soft_upper_limit", &kj->soft_upper);
                    kg_xml_double(&c->x, v, "k_position", &kj->k_position);
                    kg_xml_double(&c->x, v, "k_velocity", &kj->k_velocity);
                } else if (kg_xml_is(v, "calibration")) {
                    if (kg_xml_double(&c->x, v, "rising", &kj->cal_rising) == 1) kj->calibration |= KG_CAL_RISING;
                    if (kg_xml_double(&c->x, v, "falling", &kj->cal_falling) == 1) kj->calibration |= KG_CAL_FALLING;
                    if (kg_xml_double(&c->x, v, "reference_position", &kj->cal_reference) == 1)
                        kj->calibration |= KG_CAL_REFERENCE;
                }
            }
        }
    }
}

/* Does the joint have axes, all of them zero? ROS's urdf_to_collada writes each
 * URDF fixed joint so (a revolute axis 0 0 0, limits 0..0), and ROS's reader
 * reads them as fixed: so does this one, saying so. */
static int zero_axes(const cjoint *def) {
    for (int k = 0; k < def->naxis; k++)
        if (def->axis[k].dir[0] != 0 || def->axis[k].dir[1] != 0 || def->axis[k].dir[2] != 0) return 0;
    return def->naxis > 0;
}

/* Builds the joint of an attachment, from parent to child; line: where it is. */
static kg_joint *attach(cd *c, jinst *j, const char *parent, const char *child, const pose *origin, int line) {
    const cjoint *def = j->def;
    kg_joint_type type = KG_JOINT_FIXED; /* also for zero axes */
    if (def->naxis == 1 && !zero_axes(def))
        type = def->axis[0].prismatic ? KG_JOINT_PRISMATIC : def->axis[0].has_limit ? KG_JOINT_REVOLUTE : KG_JOINT_CONTINUOUS;
    else if (def->naxis > 1 && !zero_axes(def))
        type = KG_JOINT_COMPOUND;
    const char *name = j->name;
    if (j->uses++) {
        char num[16];
        snprintf(num, sizeof num, "#%d", j->uses);
        name = cd_cat(c, j->name, num);
        kg_diag_add(c->d, KG_WARNING, "collada.joint_reused", c->file, line, "joint",
                    "joint '%s' is attached more than once; this use is '%s'", j->name, name);
    }
    if (zero_axes(def)) { /* said at the axis, where the zero is */
        xmlNodePtr a = kg_xml_first(def->node);
        while (a && !kg_xml_is(a, "revolute") && !kg_xml_is(a, "prismatic")) a = kg_xml_next(a);
        kg_diag_add(c->d, KG_WARNING, "collada.axis_zero_fixed", c->file, cd_line_of(a), cd_tag(a),
                    "joint '%s' has a zero axis; it is read as a fixed joint (urdf_to_collada writes URDF fixed joints so)",
                    name);
    }
    kg_joint *kj = kg_builder_add_joint(c->b, name, type, parent, child, line);
    kg_vec3_copy(kj->pos, origin->p);
    kg_mat3_copy(kj->rot, origin->r); /* exact; rpy only describes it (ill-conditioned near pitch +-90 deg) */
    kg_rot_to_rpy(origin->r, kj->rpy);
    if (type == KG_JOINT_FIXED) {
        /* no axis, no limits: nothing moves */
    } else if (def->naxis == 1) {
        kg_vec3_copy(kj->axis, def->axis[0].dir);
        if (def->axis[0].has_limit) {
            kj->has_limit = 1;
            kj->lower = def->axis[0].min;
            kj->upper = def->axis[0].max;
        }
    } else {
        for (int a = 0; a < def->naxis; a++) {
            kg_builder_add_axis(c->b, kj, def->axis[a].prismatic ? KG_AXIS_TRANSLATION : KG_AXIS_ROTATION,
                                def->axis[a].dir, a, 0, def->axis[a].sid ? def->axis[a].sid : "axis");
        }
    }
    read_joint_extra(c, def->node, kj);
    if (!j->made) j->made = kj;
    return kj;
}

/* Can the link's own transform L join the joint origin (Motion(q) L = L Motion'(q))? */
static int commutes(const cjoint *def, const pose *L) {
    double id[9];
    kg_mat3_identity(id);
    if (!memcmp(L->r, id, sizeof id) && !L->p[0] && !L->p[1] && !L->p[2]) return 1; /* no transform of its own */
    if (zero_axes(def)) return 1; /* read as fixed */
    if (def->naxis != 1) return def->naxis == 0;
    if (def->axis[0].prismatic) return 1;
    const double *a = def->axis[0].dir, *p = L->p;
    double n = kg_vec3_norm(a), along = kg_vec3_dot(a, p) / (n * n), off = 0;
    for (int k = 0; k < 3; k++) off += (p[k] - along * a[k]) * (p[k] - along * a[k]);
    return sqrt(off) <= 1e-12 * fmax(1, kg_vec3_norm(p));
}

/* Each link's pose at the zero joint values, in the kinematics model's frame,
 * indexed as c->links: rigid bodies give their mass frames and shapes in the
 * model's frame (physics_frame), and this takes them to the link's. */
typedef struct zeros {
    pose *at;
    int n, cap;
} zeros;

/* Link `self` at zero: its parent's pose (up; -1: the model's origin), the
 * attachment's transform (the joint's motion is the identity at zero; NULL for
 * a root), then the link's own transform. */
static void place_at_zero(cd *c, zeros *z, int self, int up, const pose *attachment, const pose *own) {
    if (self != z->n || cd_grow(c, (void **)&z->at, self, &z->cap, sizeof *z->at) != 0) return;
    pose p;
    if (up >= 0) p = z->at[up];
    else cd_pose_identity(&p);
    if (attachment) cd_pose_mul(&p, &p, attachment);
    cd_pose_mul(&z->at[self], &p, own);
    z->n++;
}

/* Adds <link> `link` (joined to `parent` by `via` at `origin`; the root when
 * via is NULL) to the model and its pose at zero to z; returns its index in
 * c->links, or -1 when memory runs out (marked). */
static int enter_link(cd *c, zeros *z, xmlNodePtr link, const char *parent, int up, jinst *via, const pose *origin,
                      xmlNodePtr at) {
    const char *name = link_name(c, link);
    pose own_t;
    cd_read_pose(c, link, &own_t);
    double id[9];
    kg_mat3_identity(id);
    int moved = memcmp(own_t.r, id, sizeof id) || own_t.p[0] || own_t.p[1] || own_t.p[2];
    if (!via && (moved || c->forest)) {
        /* a root placed away from the model's origin, or one of several: a static
         * "world" link (one for all) holds it there, so the root's frame is the
         * file's too, and the roots make one tree */
        if (!c->world) {
            c->world = link_name(c, NULL);
            cd_put(c, &c->link_names, c->world, -1);
            kg_builder_add_link(c->b, c->world, cd_line_of(link));
        }
        kg_joint *f = kg_builder_add_joint(c->b, cd_cat(c, name, ".origin"), KG_JOINT_FIXED, c->world, name, cd_line_of(link));
        kg_vec3_copy(f->pos, own_t.p);
        kg_mat3_copy(f->rot, own_t.r);
        kg_rot_to_rpy(own_t.r, f->rpy);
    }
    kg_link *made = kg_builder_add_link(c->b, name, cd_line_of(link));
    if (!via && c->nlinks == 0) kg_builder_set_root_body(c->b, made); /* the first root's pose is the body's */
    if (!via) {
        /* the root's own transform went into the world joint above */
    } else if (commutes(via->def, &own_t)) {
        pose o;
        cd_pose_mul(&o, origin, &own_t);
        kg_joint *kj = attach(c, via, parent, name, &o, cd_line_of(at));
        if (via->def->naxis == 1 && kj->type != KG_JOINT_FIXED) { /* the axis, seen from the moved frame: R_L^T a */
            double a[3];
            kg_mat3_tvec(a, own_t.r, via->def->axis[0].dir);
            kg_vec3_copy(kj->axis, a);
        }
    } else { /* the joint's frame on a link of its own, the link fixed to it at L */
        const char *jname = cd_cat(c, name, ".joint");
        cd_put(c, &c->link_names, jname, -1);
        kg_builder_add_link(c->b, jname, cd_line_of(link));
        attach(c, via, parent, jname, origin, cd_line_of(at));
        kg_joint *f = kg_builder_add_joint(c->b, cd_cat(c, name, ".fixed"), KG_JOINT_FIXED, jname, name, cd_line_of(link));
        kg_vec3_copy(f->pos, own_t.p);
        kg_mat3_copy(f->rot, own_t.r);
        kg_rot_to_rpy(own_t.r, f->rpy);
    }
    if (cd_grow(c, (void **)&c->links, c->nlinks, &c->caplinks, sizeof *c->links) != 0) return -1;
    c->links[c->nlinks].name = name;
    c->links[c->nlinks].sid = kg_xml_attr(&c->x, link, "sid");
    c->links[c->nlinks].link = made;
    c->links[c->nlinks].parent = up;
    c->links[c->nlinks].drawn = 0;
    int self = c->nlinks;
    cd_put(c, &c->link_names, name, c->nlinks++);
    place_at_zero(c, z, self, up, via ? origin : NULL, &own_t);
    return self;
}

/* The link tree under a root <link>, depth first in document order, with a
 * stack of its own (a chain of 10^5 links must not need 10^5 C stack frames):
 * attachment_full children are entered, attachment_start and attachment_end
 * mark the ends of loops. Deeper than KG_LIMIT_DEPTH is an error. */
static void walk_link(cd *c, zeros *z, xmlNodePtr root) {
    typedef struct { xmlNodePtr k; int self; } frame; /* k: the next child element to look at */
    int top = 0, cap = 64;
    frame *st = malloc(64 * sizeof *st);
    if (!st) {
        cd_oom(c);
        return;
    }
    st[top++] = (frame){kg_xml_first(root), enter_link(c, z, root, NULL, -1, NULL, NULL, NULL)};
    if (st[0].self < 0) top = 0; /* out of memory */
    while (top > 0) {
        frame *t = &st[top - 1];
        xmlNodePtr k = t->k;
        if (!k) {
            top--;
            continue;
        }
        t->k = kg_xml_next(k);
        int full = kg_xml_is(k, "attachment_full"), start = kg_xml_is(k, "attachment_start"),
            end = kg_xml_is(k, "attachment_end");
        if (!full && !start && !end) continue;
        const char *name = c->links[t->self].name;
        const char *ref = kg_xml_attr(&c->x, k, "joint");
        jinst *j = ref ? resolve_joint(c, ref, NULL) : NULL;
        if (!j) {
            cd_diag(c, KG_ERROR, "collada.bad_ref", k, "<%s joint='%s'> names no joint of the kinematics model", cd_tag(k), ref);
            continue;
        }
        pose o;
        cd_read_pose(c, k, &o);
        if (start) {
            j->start_link = (char *)name;
            j->start = o;
            j->start_line = cd_line_of(k);
        } else if (end) {
            j->end_link = (char *)name;
            j->end = o;
            j->end_line = cd_line_of(k);
        } else if (!kg_xml_child(k, "link")) {
            cd_diag(c, KG_ERROR, "collada.syntax", k, "<attachment_full> without a <link>%s%s", NULL, NULL);
        } else if (top > KG_LIMIT_DEPTH) {
            char limit[16];
            snprintf(limit, sizeof limit, "%d", KG_LIMIT_DEPTH);
            cd_diag(c, KG_ERROR, "collada.too_deep", k, "links nested deeper than %s (KG_LIMIT_DEPTH); the rest is "
                    "ignored%s", limit, NULL);
            t->k = NULL; /* one error, not one per sibling */
        } else {
            xmlNodePtr child = kg_xml_child(k, "link");
            int up = t->self; /* t moves when the stack grows */
            frame *grown = top == cap ? realloc(st, (size_t)(cap *= 2) * sizeof *st) : st;
            if (!grown) {
                cd_oom(c);
                break;
            }
            st = grown;
            st[top] = (frame){kg_xml_first(child), enter_link(c, z, child, name, up, j, &o, k)};
            if (st[top].self < 0) break; /* out of memory */
            top++;
        }
    }
    free(st);
}

/* attachment_start / attachment_end pairs become loop closures. */
static void close_loops(cd *c) {
    for (int i = 0; i < c->njoints; i++) {
        jinst *j = &c->joints[i];
        if (!j->start_link && !j->end_link) continue;
        if (!j->start_link || !j->end_link) {
            kg_diag_add(c->d, KG_ERROR, "collada.loop_incomplete", c->file, j->start_link ? j->start_line : j->end_line,
                        j->start_link ? "attachment_start" : "attachment_end",
                        "joint '%s' has an %s but no %s; the loop is left open", j->name,
                        j->start_link ? "attachment_start" : "attachment_end",
                        j->start_link ? "attachment_end" : "attachment_start");
            continue;
        }
        char marker[700], fixed[720];
        snprintf(marker, sizeof marker, "%s.end", j->name);
        snprintf(fixed, sizeof fixed, "%s.end_fixed", j->name);
        kg_builder_add_link(c->b, marker, j->end_line);
        kg_joint *f = kg_builder_add_joint(c->b, fixed, KG_JOINT_FIXED, j->end_link, marker, j->end_line);
        kg_vec3_copy(f->pos, j->end.p);
        kg_mat3_copy(f->rot, j->end.r);
        kg_rot_to_rpy(j->end.r, f->rpy);
        attach(c, j, j->start_link, marker, &j->start, j->start_line);
        kg_builder_prefer_cut(c->b, j->made);
    }
}

/* ---- formulas ------------------------------------------------------------------ */

/* Units of a joint's coordinate in COLLADA: degrees or file lengths, in SI. */
static double joint_scale(const cd *c, const jinst *j) {
    return j->def->naxis && j->def->axis[0].prismatic ? c->unit : KG_PI / 180;
}

typedef struct fvars {
    cd *c;
    jinst *vars[4];
    int nvars;
    double values[4];
    int unknown;
} fvars;

static int fvar(void *ctx, const char *name, double *value) {
    fvars *v = ctx;
    jinst *j = resolve_joint(v->c, name, NULL);
    if (!j) {
        v->unknown = 1;
        return -1;
    }
    for (int i = 0; i < v->nvars; i++)
        if (v->vars[i] == j) {
            *value = v->values[i];
            return 0;
        }
    if (v->nvars < 4) {
        v->vars[v->nvars] = j;
        v->values[v->nvars] = 0;
        v->nvars++;
    }
    *value = 0;
    return 0;
}

/* MathML is often written with a prefix (<math:math>): match by local name. */
static xmlNodePtr math_child(xmlNodePtr n) {
    for (xmlNodePtr k = kg_xml_first(n); k; k = kg_xml_next(k))
        if (!strcmp((const char *)k->name, "math")) return k;
    return NULL;
}

static void read_formula(cd *c, xmlNodePtr f) {
    xmlNodePtr target = kg_xml_child(f, "target"), tc = kg_xml_child(f, "technique_common");
    xmlNodePtr param = target ? kg_xml_child(target, "param") : NULL;
    xmlNodePtr math = tc ? math_child(tc) : NULL;
    const char *sid = kg_xml_attr(&c->x, f, "sid");
    if (!param || !math) {
        cd_diag(c, KG_ERROR, "collada.formula", f, "formula '%s' has no target <param> or no technique_common <math>%s", sid, NULL);
        return;
    }
    jinst *t = resolve_joint(c, cd_text(c, param), NULL);
    if (!t || !t->made) {
        cd_diag(c, KG_ERROR, "collada.bad_ref", param, "formula target '%s' names no attached joint%s", cd_text(c, param), NULL);
        return;
    }
    /* which joints does it read? evaluate once with them all at 0 */
    fvars v = {c, {0}, 0, {0}, 0};
    double y0, y;
    const char *why;
    xmlNodePtr where;
    int rc = kg_mathml_eval(math, fvar, &v, &y0, &why, &where);
    if (rc == -2) {
        cd_oom(c);
        return;
    }
    if (rc != 0) {
        kg_diag_add(c->d, KG_ERROR, "collada.formula", c->file, cd_line_of(where), cd_tag(where),
                    "formula for joint '%s' cannot be evaluated: %s <%s>; the joint is left independent", t->name, why,
                    cd_tag(where));
        return;
    }
    if (v.nvars != 1) {
        kg_diag_add(c->d, KG_WARNING, "collada.formula_unsupported", c->file, cd_line_of(f), "formula",
                    "formula for joint '%s' reads %d joints; couplings of one joint are supported, so '%s' is left "
                    "independent",
                    t->name, v.nvars, t->name);
        return;
    }
    /* linear? y = a x + b, checked at several points (COLLADA units) */
    double xs[3] = {1, -2.5, 7}, ys[3];
    for (int i = 0; i < 3; i++) {
        v.values[0] = xs[i];
        if (kg_mathml_eval(math, fvar, &v, &ys[i], &why, &where) == -2) {
            cd_oom(c);
            return;
        }
    }
    double a = ys[0] - y0, b = y0;
    int linear = isfinite(a) && isfinite(b);
    for (int i = 1; i < 3 && linear; i++) linear = fabs(ys[i] - (a * xs[i] + b)) <= 1e-9 * fmax(1, fabs(ys[i]));
    jinst *l = v.vars[0];
    if (!linear) {
        kg_diag_add(c->d, KG_WARNING, "collada.formula_nonlinear", c->file, cd_line_of(f), "formula",
                    "formula for joint '%s' is not linear in '%s'; the coupling is not applied (the joint is left "
                    "independent)",
                    t->name, l->name);
        return;
    }
    double st = joint_scale(c, t), sl = joint_scale(c, l);
    kg_builder_set_mimic(c->b, t->made, l->made ? l->made->name : l->name, a * st / sl, b * st, cd_line_of(f));
    (void)y;
}

static void read_formulas(cd *c, xmlNodePtr tc) {
    for (xmlNodePtr n = kg_xml_first(tc); n; n = kg_xml_next(n)) {
        if (kg_xml_is(n, "formula")) {
            read_formula(c, n);
        } else if (kg_xml_is(n, "instance_formula")) {
            xmlNodePtr f = cd_by_url(c, kg_xml_attr(&c->x, n, "url"));
            if (f && kg_xml_is(f, "formula")) read_formula(c, f);
            else cd_diag(c, KG_ERROR, "collada.bad_ref", n, "instance_formula url '%s' names no formula%s", kg_xml_attr(&c->x, n, "url"), NULL);
        }
    }
}

/* ---- articulated systems ---------------------------------------------------------- */

/* A value holder (<min>, <speed>, <active>, ...): <float>/<int>/<bool>, a <param>
 * naming a newparam in an enclosing scope, or bare text. Returns 0 when read. */
static int scalar(cd *c, xmlNodePtr holder, double *out) {
    xmlNodePtr v = kg_xml_first(holder);
    if (!v) return kg_parse_doubles(cd_text(c, holder), out, 1);
    if (kg_xml_is(v, "param")) {
        const char *ref = cd_text(c, v);
        for (xmlNodePtr scope = holder->parent; scope && scope->type == XML_ELEMENT_NODE; scope = scope->parent) {
            for (xmlNodePtr np = kg_xml_first(scope); np; np = kg_xml_next(np)) {
                const char *sid = kg_xml_attr(&c->x, np, "sid");
                if (kg_xml_is(np, "newparam") && sid && !strcmp(sid, ref)) return scalar(c, np, out);
            }
            if (kg_xml_is(scope, "articulated_system")) break;
        }
        return -1;
    }
    if (kg_xml_is(v, "bool")) {
        const char *t = cd_text(c, v);
        *out = !strcmp(t, "true") || !strcmp(t, "1");
        return 0;
    }
    if (kg_xml_is(v, "float") || kg_xml_is(v, "int")) return kg_parse_doubles(cd_text(c, v), out, 1);
    return -1;
}

static void kinematics_axis_info(cd *c, xmlNodePtr ai) {
    int axis;
    const char *ref = kg_xml_attr(&c->x, ai, "axis");
    jinst *j = ref ? resolve_joint(c, ref, &axis) : NULL;
    if (!j || !j->made) {
        cd_diag(c, KG_WARNING, "collada.bad_ref", ai, "axis_info axis '%s' names no attached joint; ignored%s", ref, NULL);
        return;
    }
    j->kaxis_sid = kg_xml_attr(&c->x, ai, "sid");
    if (zero_axes(j->def)) return; /* read as fixed: no limits, nothing locked */
    double v;
    xmlNodePtr n;
    if ((n = kg_xml_child(ai, "active")) && scalar(c, n, &v) == 0) j->active = v != 0;
    if ((n = kg_xml_child(ai, "locked")) && scalar(c, n, &v) == 0) j->locked = v != 0;
    xmlNodePtr lim = kg_xml_child(ai, "limits");
    double lo, hi;
    if (lim && kg_xml_child(lim, "min") && kg_xml_child(lim, "max") && scalar(c, kg_xml_child(lim, "min"), &lo) == 0 &&
        scalar(c, kg_xml_child(lim, "max"), &hi) == 0 && j->made->type != KG_JOINT_COMPOUND) {
        double s = joint_scale(c, j);
        kg_joint *k = j->made;
        /* soft limits: kept when they narrow the joint's own (hard) limits */
        if (!k->has_limit || lo * s != k->lower || hi * s != k->upper) {
            k->has_safety = 1;
            k->soft_lower = lo * s;
            k->soft_upper = hi * s;
        }
    }
    kg_joint *k = j->made;
    if (j->locked && k->has_limit && k->lower == 0 && k->upper == 0 && (k->type == KG_JOINT_REVOLUTE || k->type == KG_JOINT_PRISMATIC)) {
        k->type = KG_JOINT_FIXED; /* how COLLADA writes a fixed joint (it has none) */
        k->has_limit = 0;
        k->lower = -INFINITY;
        k->upper = INFINITY;
    } else if (j->locked) {
        kg_diag_add(c->d, KG_INFO, "collada.locked", c->file, cd_line_of(ai), "axis_info",
                    "joint '%s' is locked in the articulated system (kept as a moving joint)", j->name);
    }
}

/* ros: the file is ROS urdf_to_collada's (ros_writer): its speed is URDF's
 * velocity, in rad/s or m/s, and its acceleration URDF's effort. */
static void motion_axis_info(cd *c, xmlNodePtr ai, int ros) {
    const char *ref = kg_xml_attr(&c->x, ai, "axis");
    const char *last = ref ? strrchr(ref, '/') : NULL;
    last = last ? last + 1 : ref;
    jinst *j = NULL;
    for (int i = 0; last && i < c->njoints && !j; i++)
        if (c->joints[i].kaxis_sid && !strcmp(c->joints[i].kaxis_sid, last)) j = &c->joints[i];
    if (!j || !j->made) {
        cd_diag(c, KG_WARNING, "collada.bad_ref", ai, "motion axis_info axis '%s' names no kinematics axis_info; ignored%s", ref, NULL);
        return;
    }
    if (zero_axes(j->def)) return; /* read as fixed: no speed */
    double v, s = joint_scale(c, j);
    if (ros) s = j->made->type == KG_JOINT_PRISMATIC ? c->unit : 1;
    xmlNodePtr n;
    if ((n = kg_xml_child(ai, "speed")) && scalar(c, n, &v) == 0) j->made->velocity = v * s;
    if ((n = kg_xml_child(ai, "acceleration")) && scalar(c, n, &v) == 0) {
        if (ros) j->made->effort = v;
        else j->made->acceleration = v * s;
    }
}

/* ---- physics ------------------------------------------------------------------------ */

/* The link a rigid body belongs to: the link of the same name, else the link
 * named like the visual node its instance_rigid_body targets. -1 if none. */
static int body_link(cd *c, xmlNodePtr rb, xmlNodePtr pscene_model) {
    const char *name = kg_xml_attr(&c->x, rb, "name"), *sid = kg_xml_attr(&c->x, rb, "sid");
    int i = name ? kg_strmap_get(&c->link_names, name) : -1;
    for (xmlNodePtr irb = pscene_model ? kg_xml_first(pscene_model) : NULL; i < 0 && irb; irb = kg_xml_next(irb)) {
        const char *body = kg_xml_attr(&c->x, irb, "body");
        if (!kg_xml_is(irb, "instance_rigid_body") || !body || !sid || strcmp(body, sid)) continue;
        xmlNodePtr node = cd_by_url(c, kg_xml_attr(&c->x, irb, "target"));
        const char *nn = node ? kg_xml_attr(&c->x, node, "name") : NULL;
        if (nn) i = kg_strmap_get(&c->link_names, nn);
    }
    return i;
}

/* The child `what` of a shape's kinegraph extra, or NULL. */
static xmlNodePtr shape_extra(cd *c, xmlNodePtr sh, const char *what) {
    for (xmlNodePtr e = kg_xml_first(sh); e; e = kg_xml_next(e)) {
        xmlNodePtr t = kg_xml_is(e, "extra") ? kg_xml_child(e, "technique") : NULL;
        const char *profile = t ? kg_xml_attr(&c->x, t, "profile") : NULL;
        xmlNodePtr n = profile && !strcmp(profile, "kinegraph") ? kg_xml_child(t, what) : NULL;
        if (n) return n;
    }
    return NULL;
}

/* A shape's name, from kinegraph's extra (URDF collision names). */
static const char *shape_name(cd *c, xmlNodePtr sh) {
    xmlNodePtr n = shape_extra(c, sh, "name");
    return n ? cd_text(c, n) : NULL;
}

/* The shapes of a rigid body are collision geometry of its link: analytic ones
 * (box, sphere, cylinder, capsule) and instanced geometries. Their transforms
 * are given where mass frames are: place takes them to the link's frame. */
static void read_shapes(cd *c, xmlNodePtr tc, kg_link *L, const pose *place) {
    for (xmlNodePtr sh = kg_xml_first(tc); sh; sh = kg_xml_next(sh)) {
        if (!kg_xml_is(sh, "shape")) continue;
        /* kinegraph's stand-in for "no geometry" in a body with a mass (the schema
         * wants a shape in every rigid body): not a geom */
        if (shape_extra(c, sh, "placeholder")) continue;
        xmlNodePtr prim = NULL, ig = kg_xml_child(sh, "instance_geometry");
        if (ig) {
            pose at;
            cd_read_pose(c, sh, &at);
            cd_pose_mul(&at, place, &at); /* at keeps its scale, on the right */
            cd_add_geometry(c, kg_xml_attr(&c->x, ig, "url"), ig, L, KG_COLLISION, &at, shape_name(c, sh));
            continue;
        }
        kg_geom_type type = KG_GEOM_BOX;
        double size[3] = {0, 0, 0}, r2[2];
        if ((prim = kg_xml_child(sh, "box"))) {
            xmlNodePtr h = kg_xml_child(prim, "half_extents");
            if (!h || cd_numbers(c, h, size, 3) != 0) continue;
            for (int a = 0; a < 3; a++) size[a] *= 2 * c->unit;
        } else if ((prim = kg_xml_child(sh, "sphere"))) {
            xmlNodePtr r = kg_xml_child(prim, "radius");
            if (!r || cd_numbers(c, r, size, 1) != 0) continue;
            size[0] *= c->unit;
            type = KG_GEOM_SPHERE;
        } else if ((prim = kg_xml_child(sh, "cylinder")) || (prim = kg_xml_child(sh, "capsule"))) {
            xmlNodePtr h = kg_xml_child(prim, "height"), r = kg_xml_child(prim, "radius");
            if (!h || !r || cd_numbers(c, h, size + 1, 1) != 0 || cd_numbers(c, r, r2, 2) != 0) continue;
            if (r2[0] != r2[1])
                cd_diag(c, KG_WARNING, "collada.elliptic", prim, "an elliptic %s (radii differ) is read as circular with the "
                     "first radius%s", cd_tag(prim), NULL);
            size[0] = r2[0] * c->unit;
            size[1] *= c->unit;
            type = kg_xml_is(prim, "capsule") ? KG_GEOM_CAPSULE : KG_GEOM_CYLINDER;
        } else {
            continue;
        }
        pose t;
        cd_read_pose(c, sh, &t);
        cd_pose_mul(&t, place, &t);
        kg_geom *g = kg_builder_add_geom(c->b, L, KG_COLLISION, type, NULL, cd_line_of(sh));
        g->name = shape_name(c, sh) ? kg_builder_strdup(c->b, shape_name(c, sh)) : NULL;
        memcpy(g->size, size, sizeof size);
        kg_vec3_copy(g->pos, t.p);
        kg_mat3_copy(g->rot, t.r);
        kg_rot_to_rpy(t.r, g->rpy);
    }
}

/* Where link i's body places its mass frame and shapes, given in `frame` (in
 * the model's frame), in the link's frame: inverse(link i at zero) * frame. */
static void body_place(const zeros *z, int i, const pose *frame, pose *out) {
    pose link;
    if (i < z->n) link = z->at[i];
    else cd_pose_identity(&link); /* memory ran out placing it: the import fails anyway */
    kg_mat3_mul_at(out->r, link.r, frame->r);
    double d[3] = {frame->p[0] - link.p[0], frame->p[1] - link.p[1], frame->p[2] - link.p[2]};
    kg_mat3_tvec(out->p, link.r, d);
}

/* One rigid body of an instance_physics_model (instance; NULL when read from the
 * library), its mass frame given in `frame`. */
static void read_body(cd *c, xmlNodePtr rb, xmlNodePtr instance, const zeros *z, const pose *frame) {
    xmlNodePtr tc = kg_xml_child(rb, "technique_common");
    if (!tc) return;
    int i = body_link(c, rb, instance);
    if (i < 0) {
        cd_diag(c, KG_WARNING, "collada.unbound_body", rb, "rigid body '%s' belongs to no link of the kinematics model; "
             "its mass is not used%s", kg_xml_attr(&c->x, rb, "sid"), NULL);
        return;
    }
    kg_link *L = c->links[i].link;
    if (L->has_inertial) return; /* the first body bound to a link wins */
    kg_inertial *in = &L->inertial;
    xmlNodePtr mass = kg_xml_child(tc, "mass"), inertia = kg_xml_child(tc, "inertia"), mf = kg_xml_child(tc, "mass_frame");
    double I[3] = {0, 0, 0};
    pose place;
    body_place(z, i, frame, &place);
    if (!mass) { /* a body of collision shapes only */
        read_shapes(c, tc, L, &place);
        return;
    }
    if (cd_numbers(c, mass, &in->mass, 1) != 0) return;
    if (inertia && cd_numbers(c, inertia, I, 3) != 0) return;
    pose t; /* no mass_frame: the COM at the link's origin, as the schema's default and ROS's reader have it */
    cd_pose_identity(&t);
    if (mf) {
        cd_read_pose(c, mf, &t);
        cd_pose_mul(&t, &place, &t);
    }
    kg_vec3_copy(in->pos, t.p);
    kg_mat3_copy(in->rot, t.r);
    kg_rot_to_rpy(t.r, in->rpy);
    double u2 = c->unit * c->unit; /* principal moments, in the mass frame */
    in->inertia[0] = I[0] * u2;
    in->inertia[3] = I[1] * u2;
    in->inertia[5] = I[2] * u2;
    L->has_inertial = 1;
    read_shapes(c, tc, L, &place);
    if (!inertia)
        cd_diag(c, KG_WARNING, "collada.no_inertia", tc, "rigid body '%s' has a mass but no inertia; zero inertia is used%s",
             kg_xml_attr(&c->x, rb, "sid"), NULL);
}

static xmlNodePtr bound_node(cd *c, xmlNodePtr root);

/* The frame, in the model's, that the mass frames and shapes of an
 * instance_physics_model's bodies (ipm; NULL when read from the library) are
 * given in. The schema puts them in their body's own frame, but the robotics
 * writers and readers of COLLADA 1.5 (OpenRAVE, ROS collada_urdf and
 * collada_parser, OpenHRP) give mass frames in the frame of the node
 * instance_physics_model's `parent` names, with the robot at its zero joint
 * values, and OpenRAVE's writer its shapes too (wam.dae: wam1's shape sits at
 * 0.22 0.14 0.346 turned -90 deg about x, where wam1 is). That node is the one
 * the kinematics model is bound to (OpenRAVE, kinegraph) or one holding it
 * (ROS, whose link nodes carry the visual origin, so their transforms are not
 * the kinematics'; OpenRAVE's man1 and katana, whose mass frames are the
 * model's all the same): both are the model's frame. Without a parent,
 * OpenRAVE's and ROS's readers take the (first) root link's frame. Any other
 * node is reported and read as the model's. */
static void physics_frame(cd *c, xmlNodePtr root, xmlNodePtr ipm, const zeros *z, pose *frame) {
    const char *url = ipm ? kg_xml_attr(&c->x, ipm, "parent") : NULL;
    cd_pose_identity(frame);
    if (!url) {
        if (z->n) *frame = z->at[0];
        return;
    }
    xmlNodePtr parent = cd_by_url(c, url), bound = bound_node(c, root);
    if (!parent || !kg_xml_is(parent, "node")) {
        cd_diag(c, KG_WARNING, "collada.bad_ref", ipm, "instance_physics_model parent '%s' names no node; its bodies' mass "
                "frames and shapes are read in the kinematics model's frame%s", url, NULL);
        return;
    }
    for (xmlNodePtr n = bound; n; n = n->parent)
        if (n == parent) return;
    if (bound)
        cd_diag(c, KG_WARNING, "collada.physics_parent", ipm, "instance_physics_model parent '%s' is not the node the "
                "kinematics model is bound to, nor one holding it; its bodies' mass frames and shapes are read in the "
                "model's frame%s", url, NULL);
}

/* Rigid bodies of the physics models the scene instantiates (else of all). z:
 * the links at zero, where mass frames are given. */
static void read_physics(cd *c, xmlNodePtr root, const zeros *z) {
    xmlNodePtr scene = kg_xml_child(root, "scene");
    xmlNodePtr ips = scene ? kg_xml_child(scene, "instance_physics_scene") : NULL;
    xmlNodePtr ps = ips ? cd_by_url(c, kg_xml_attr(&c->x, ips, "url")) : NULL;
    int n = 0;
    pose frame;
    for (xmlNodePtr ipm = ps ? kg_xml_first(ps) : NULL; ipm; ipm = kg_xml_next(ipm)) {
        if (!kg_xml_is(ipm, "instance_physics_model")) continue;
        xmlNodePtr pm = cd_by_url(c, kg_xml_attr(&c->x, ipm, "url"));
        physics_frame(c, root, ipm, z, &frame);
        for (xmlNodePtr rb = pm ? kg_xml_first(pm) : NULL; rb; rb = kg_xml_next(rb))
            if (kg_xml_is(rb, "rigid_body")) read_body(c, rb, ipm, z, &frame), n++;
    }
    if (n) return;
    xmlNodePtr lib = kg_xml_child(root, "library_physics_models");
    physics_frame(c, root, NULL, z, &frame);
    for (xmlNodePtr pm = lib ? kg_xml_first(lib) : NULL; pm; pm = kg_xml_next(pm))
        for (xmlNodePtr rb = kg_xml_first(pm); rb; rb = kg_xml_next(rb))
            if (kg_xml_is(rb, "rigid_body")) read_body(c, rb, NULL, z, &frame);
}

/* ---- the whole file ------------------------------------------------------------------- */

typedef struct chain {
    xmlNodePtr kmodel;
    xmlNodePtr ksystem, msystem; /* articulated systems (kinematics, motion), may be NULL */
} chain;

/* Follows an articulated system (motion -> kinematics) to its kinematics model. */
static void follow_system(cd *c, xmlNodePtr as, chain *ch, int depth) {
    if (!as || depth > 8) return;
    xmlNodePtr k = kg_xml_child(as, "kinematics"), m = kg_xml_child(as, "motion");
    if (k) {
        ch->ksystem = k;
        xmlNodePtr ikm = kg_xml_child(k, "instance_kinematics_model");
        if (ikm) ch->kmodel = cd_by_url(c, kg_xml_attr(&c->x, ikm, "url"));
    } else if (m) {
        ch->msystem = m;
        xmlNodePtr ias = kg_xml_child(m, "instance_articulated_system");
        if (ias) follow_system(c, cd_by_url(c, kg_xml_attr(&c->x, ias, "url")), ch, depth + 1);
    }
}

/* The kinematics model the scene instantiates, with its articulated systems. */
static chain find_model(cd *c, xmlNodePtr root) {
    chain ch = {0};
    xmlNodePtr scene = kg_xml_child(root, "scene");
    xmlNodePtr iks = scene ? kg_xml_child(scene, "instance_kinematics_scene") : NULL;
    xmlNodePtr ks = iks ? cd_by_url(c, kg_xml_attr(&c->x, iks, "url")) : NULL;
    if (ks) {
        xmlNodePtr ias = kg_xml_child(ks, "instance_articulated_system");
        xmlNodePtr ikm = kg_xml_child(ks, "instance_kinematics_model");
        if (ias) follow_system(c, cd_by_url(c, kg_xml_attr(&c->x, ias, "url")), &ch, 0);
        else if (ikm) ch.kmodel = cd_by_url(c, kg_xml_attr(&c->x, ikm, "url"));
    }
    if (!ch.kmodel) { /* no scene chain: the first kinematics model, and a system instancing it */
        xmlNodePtr lib = kg_xml_child(root, "library_kinematics_models");
        ch.kmodel = lib ? kg_xml_child(lib, "kinematics_model") : NULL;
        xmlNodePtr las = kg_xml_child(root, "library_articulated_systems");
        for (xmlNodePtr as = las ? kg_xml_first(las) : NULL; as && ch.kmodel; as = kg_xml_next(as)) {
            chain t = {0};
            follow_system(c, as, &t, 0);
            if (t.kmodel == ch.kmodel && t.msystem) ch = t;
            else if (t.kmodel == ch.kmodel && !ch.ksystem) ch.ksystem = t.ksystem;
        }
    }
    return ch;
}

/* The link a SIDREF like "kmodel1/link16" names (its last segment is the link's sid). */
static kg_link *link_by_ref(cd *c, const char *ref) {
    if (!ref) return NULL;
    const char *sid = strrchr(ref, '/') ? strrchr(ref, '/') + 1 : ref;
    for (int i = 0; i < c->nlinks; i++)
        if (c->links[i].sid && !strcmp(c->links[i].sid, sid)) return c->links[i].link;
    return NULL;
}

/* What of OpenRAVE's extras the model holds itself: manipulators as end
 * effectors, ignore_link_pair as ignored collision pairs. The extras are kept
 * verbatim too (grippers, IK solvers, collision states). */
static void openrave_extra(cd *c, xmlNodePtr e, const char *type, xmlNodePtr t) {
    if (!strcmp(type, "manipulator")) {
        xmlNodePtr fo = kg_xml_child(t, "frame_origin"), ft = kg_xml_child(t, "frame_tip");
        kg_link *base = fo ? link_by_ref(c, kg_xml_attr(&c->x, fo, "link")) : NULL;
        kg_link *tip = ft ? link_by_ref(c, kg_xml_attr(&c->x, ft, "link")) : NULL;
        if (!tip) {
            cd_diag(c, KG_WARNING, "collada.bad_ref", e, "manipulator '%s' names no link of the model as its tip; "
                    "kept only as an extra%s", kg_xml_attr(&c->x, e, "name"), NULL);
            return;
        }
        kg_end_effector *ee = kg_builder_add_end_effector(c->b, kg_xml_attr(&c->x, e, "name"), base, tip, cd_line_of(e));
        pose p;
        cd_read_pose(c, ft, &p);
        kg_vec3_copy(ee->pos, p.p);
        kg_mat3_copy(ee->rot, p.r);
        xmlNodePtr dir = kg_xml_child(ft, "direction");
        if (dir) cd_numbers(c, dir, ee->direction, 3);
        ee->from_extra = 1;
    } else if (!strcmp(type, "collision")) {
        for (xmlNodePtr p = kg_xml_first(t); p; p = kg_xml_next(p)) {
            if (!kg_xml_is(p, "ignore_link_pair")) continue;
            kg_link *a = link_by_ref(c, kg_xml_attr(&c->x, p, "link0")), *b = link_by_ref(c, kg_xml_attr(&c->x, p, "link1"));
            if (a && b) kg_builder_ignore_collision(c->b, a, b, 1, cd_line_of(p));
            else cd_diag(c, KG_WARNING, "collada.bad_ref", p, "ignore_link_pair names a link that is not in the "
                         "model%s%s", NULL, NULL);
        }
    }
}

static void keep_extras(cd *c, xmlNodePtr n, const char *where) {
    for (xmlNodePtr e = kg_xml_first(n); e; e = kg_xml_next(e)) {
        if (!kg_xml_is(e, "extra")) continue;
        const char *type = kg_xml_attr(&c->x, e, "type");
        xmlNodePtr t = kg_xml_child(e, "technique");
        const char *profile = t ? kg_xml_attr(&c->x, t, "profile") : NULL;
        if (profile && !strcmp(profile, "URDF") && kg_xml_first(t)) {
            /* a URDF element (transmission, gazebo, ...) carried through COLLADA: as it was */
            char *xml = kg_xml_dump(&c->x, kg_xml_first(t));
            kg_builder_add_extra(c->b, type ? type : cd_tag(kg_xml_first(t)), kg_xml_attr(&c->x, e, "name"), xml, cd_line_of(e));
            free(xml);
            continue;
        }
        /* the type whole: cut to a fixed buffer, it could end inside a UTF-8 character */
        char *kind = kg_strf("collada:%s:extra:%s", where, type ? type : "");
        if (!kind) {
            kg_xml_out_of_memory(&c->x);
            return;
        }
        char *xml = kg_xml_dump(&c->x, e);
        kg_builder_add_extra(c->b, kind, kg_xml_attr(&c->x, e, "name"), xml, cd_line_of(e));
        free(xml);
        free(kind);
        if (profile && !strcmp(profile, "OpenRAVE") && type) openrave_extra(c, e, type, t);
    }
}

/* ---- motion -------------------------------------------------------------------------- */

/* What the scene binds to the visual scene's transform elements: joint axes,
 * and the node the kinematics model is placed at. */
typedef struct bindings {
    struct {
        xmlNodePtr el;       /* <rotate> or <translate> */
        const char *joint;   /* the model's joint name */
        int axis;            /* which of its axes */
        double dir[3];       /* the axis in the file */
        int prismatic;
    } *axis;
    int naxis, capaxis;
    xmlNodePtr root_node;    /* bind_kinematics_model's node */
} bindings;

/* An element by a path "id/sid/sid...": the id's element, then each sid among
 * the descendants of the last (through instance_node). */
static xmlNodePtr sid_descendant(cd *c, xmlNodePtr n, const char *sid, int depth) {
    for (xmlNodePtr k = n ? kg_xml_first(n) : NULL; k && depth < 64; k = kg_xml_next(k)) {
        const char *s = kg_xml_attr(&c->x, k, "sid");
        if (s && !strcmp(s, sid)) return kg_xml_is(k, "instance_node") ? cd_by_url(c, kg_xml_attr(&c->x, k, "url")) : k;
        xmlNodePtr r = sid_descendant(c, kg_xml_is(k, "instance_node") ? cd_by_url(c, kg_xml_attr(&c->x, k, "url")) : k,
                                      sid, depth + 1);
        if (r) return r;
    }
    return NULL;
}

static xmlNodePtr by_path(cd *c, const char *path) {
    /* c's copy, cut in place at its slashes (the "" of memory run out has none) */
    char *buf = (char *)cd_strdup(c, path ? path : ""), *parts[16];
    int n = split_path(buf, parts, 16);
    if (!n) return NULL;
    xmlNodePtr e = cd_by_id(c, parts[0]);
    for (int i = 1; e && i < n; i++) e = sid_descendant(c, e, parts[i], 0);
    return e;
}

/* A <newparam> anywhere, by sid (indexed by index_ids). */
static xmlNodePtr find_newparam(cd *c, const char *sid) {
    int i = kg_strmap_get(&c->params, sid);
    return i >= 0 ? c->paramnodes[i] : NULL;
}

/* The joint axis a bind_joint_axis <param> stands for: newparam SIDREFs are
 * followed (kinematics scene -> motion system -> kinematics system) to a path
 * ending in ".../joint/axis". */
static jinst *param_joint(cd *c, const char *param, int *axis) {
    const char *ref = param; /* of any length (cd_text's are c's) */
    for (int hop = 0; hop < 12; hop++) {
        const char *last = strrchr(ref, '/') ? strrchr(ref, '/') + 1 : ref;
        xmlNodePtr np = find_newparam(c, last), sr = np ? kg_xml_child(np, "SIDREF") : NULL;
        if (!sr) break;
        ref = cd_text(c, sr);
    }
    *axis = 0;
    return resolve_joint(c, ref, axis);
}

/* The node the scene binds the kinematics model to (the first
 * bind_kinematics_model's), or NULL. */
static xmlNodePtr bound_node(cd *c, xmlNodePtr root) {
    xmlNodePtr scene = kg_xml_child(root, "scene"), iks = scene ? kg_xml_child(scene, "instance_kinematics_scene") : NULL;
    xmlNodePtr b = iks ? kg_xml_child(iks, "bind_kinematics_model") : NULL;
    return b ? by_path(c, kg_xml_attr(&c->x, b, "node")) : NULL;
}

static void scene_bindings(cd *c, xmlNodePtr root, bindings *bd) {
    memset(bd, 0, sizeof *bd);
    bd->root_node = bound_node(c, root);
    xmlNodePtr scene = kg_xml_child(root, "scene"), iks = scene ? kg_xml_child(scene, "instance_kinematics_scene") : NULL;
    for (xmlNodePtr b = iks ? kg_xml_first(iks) : NULL; b; b = kg_xml_next(b)) {
        if (!kg_xml_is(b, "bind_joint_axis")) continue;
        xmlNodePtr el = by_path(c, kg_xml_attr(&c->x, b, "target")), ax = kg_xml_child(b, "axis");
        xmlNodePtr p = ax ? kg_xml_child(ax, "param") : NULL;
        int k = 0;
        jinst *j = p ? param_joint(c, cd_text(c, p), &k) : NULL;
        if (!el || !j || !j->made || !(kg_xml_is(el, "rotate") || kg_xml_is(el, "translate"))) continue;
        if (cd_grow(c, (void **)&bd->axis, bd->naxis, &bd->capaxis, sizeof *bd->axis) != 0) return;
        bd->axis[bd->naxis].el = el;
        bd->axis[bd->naxis].joint = cd_strdup(c, j->made->name);
        bd->axis[bd->naxis].axis = k;
        kg_vec3_copy(bd->axis[bd->naxis].dir, j->def->axis[k].dir);
        bd->axis[bd->naxis++].prismatic = j->def->axis[k].prismatic;
    }
}

/* The animation of the bound joint axes (and of a matrix on the model's node,
 * its base pose) as the motion; NULL when nothing bound is animated. */
static kg_motion *kinematics_motion(cd *c, xmlNodePtr root, const kg_model *m, const bindings *bd) {
    cd_anim a;
    cd_read_animations(c, root, &a);
    int used = 0, base = -1;
    int *coord = calloc((size_t)a.nch + 1, sizeof *coord), *which = calloc((size_t)a.nch + 1, sizeof *which);
    int ok = coord && which;
    if (!ok) cd_oom(c);
    for (int i = 0; ok && i < a.nch; i++) {
        coord[i] = which[i] = -1;
        const cd_channel *ch = &a.ch[i];
        if (bd->root_node && ch->el->parent == bd->root_node && kg_xml_is(ch->el, "matrix") && ch->member < 0) {
            base = i;
            used++;
            continue;
        }
        for (int k = 0; k < bd->naxis && coord[i] < 0; k++) {
            if (bd->axis[k].el != ch->el) continue;
            int j = kg_model_joint(m, bd->axis[k].joint);
            if (j < 0 || m->joint[j].nq == 0) continue;
            coord[i] = m->joint[j].qadr + (m->joint[j].type == KG_JOINT_COMPOUND ? bd->axis[k].axis : 0);
            which[i] = k;
            used++;
        }
    }
    kg_motion *mo = NULL;
    double start = 0, dt = 0;
    int nframes = used ? cd_anim_grid(c, &a, (size_t)(m->nq > a.nch ? m->nq : a.nch), &start, &dt) : 0;
    if (used && !(mo = kg_motion_new(m->nq, dt, (size_t)nframes))) cd_oom(c);
    if (mo && base >= 0 && !(mo->base = malloc((size_t)nframes * 7 * sizeof *mo->base))) {
        kg_motion_free(mo);
        mo = cd_oom(c);
    }
    if (mo) { /* its frames are reserved: the appends below do not fail */
        mo->start_time = start;
        for (int f = 0; f < nframes; f++) {
            double t = start + f * dt, *q = kg_motion_append(mo, m->q_default);
            for (int i = 0; i < a.nch; i++) {
                const cd_channel *ch = &a.ch[i];
                if (i == base) {
                    double v[16];
                    cd_channel_matrix(ch, t, v);
                    pose p, rigid;
                    double sc[3];
                    for (int r = 0; r < 3; r++) {
                        for (int k = 0; k < 3; k++) p.r[3 * r + k] = v[4 * r + k];
                        p.p[r] = v[4 * r + 3] * c->unit;
                    }
                    cd_pose_split(&p, &rigid, sc);
                    double *b = mo->base + 7 * (size_t)f;
                    kg_vec3_copy(b, rigid.p);
                    kg_rot_to_quat(rigid.r, b + 3);
                    continue;
                }
                if (coord[i] < 0) continue;
                const double *dir = bd->axis[which[i]].dir;
                if (!bd->axis[which[i]].prismatic) { /* degrees: the angle, whole or as its member */
                    q[coord[i]] = cd_channel_value(ch, ch->member >= 0 ? 0 : 3, t) * KG_PI / 180;
                } else if (ch->member >= 0) { /* one component of the translation along the axis */
                    double d = dir[ch->member];
                    if (d != 0) q[coord[i]] = cd_channel_value(ch, 0, t) / d * c->unit;
                } else {
                    double v = 0, n2 = kg_vec3_dot(dir, dir);
                    for (int k = 0; k < 3; k++) v += cd_channel_value(ch, k, t) * dir[k];
                    q[coord[i]] = n2 > 0 ? v / n2 * c->unit : 0;
                }
            }
        }
    }
    free(coord);
    free(which);
    cd_anim_free(&a);
    return mo;
}

/* Is the file ROS collada_urdf's (urdf_to_collada: authoring tool "URDF Collada
 * Writer")? That writer puts URDF's velocity (rad/s, m/s) in <speed>, which
 * COLLADA has in degrees, and URDF's effort in <acceleration>; ROS's reader
 * (collada_parser) reads them back so, and so does this one (read as degrees,
 * the G1's 20 rad/s knee became 0.35 rad/s). A note says so. */
static int ros_writer(cd *c, xmlNodePtr asset) {
    xmlNodePtr who = asset ? kg_xml_child(asset, "contributor") : NULL, tool = who ? kg_xml_child(who, "authoring_tool") : NULL;
    if (!tool || strncmp(cd_text(c, tool), "URDF Collada Writer", 19)) return 0;
    cd_diag(c, KG_INFO, "collada.ros_writer", tool, "written by ROS urdf_to_collada: <speed> is read as URDF's velocity "
            "(rad/s, m/s) and <acceleration> as its effort, as that writer means them%s%s", NULL, NULL);
    return 1;
}

static kg_model *import_doc(cd *c, kg_motion **motion) {
    xmlNodePtr root = xmlDocGetRootElement(c->x.doc);
    if (!kg_xml_is(root, "COLLADA")) {
        cd_diag(c, KG_ERROR, "collada.not_collada", root, "the root element is <%s>; a COLLADA file has <COLLADA>%s", cd_tag(root), NULL);
        return NULL;
    }
    index_ids(c, root);
    c->unit = 1;
    xmlNodePtr asset = kg_xml_child(root, "asset");
    xmlNodePtr unit = asset ? kg_xml_child(asset, "unit") : NULL;
    const char *meter = unit ? kg_xml_attr(&c->x, unit, "meter") : NULL;
    if (meter && (kg_parse_doubles(meter, &c->unit, 1) != 0 || !(c->unit > 0))) {
        cd_diag(c, KG_ERROR, "collada.unit", unit, "<unit meter='%s'> is not a positive number; metres are used%s", meter, NULL);
        c->unit = 1;
    }
    chain ch = find_model(c, root);
    if (!ch.kmodel) return cd_import_node_tree(c, root, motion); /* skeletons, scenes */
    /* a kinematics model's own <asset><unit> overrides the file's */
    xmlNodePtr kasset = kg_xml_child(ch.kmodel, "asset"), kunit = kasset ? kg_xml_child(kasset, "unit") : NULL;
    if (kunit && kg_xml_attr(&c->x, kunit, "meter")) kg_parse_doubles(kg_xml_attr(&c->x, kunit, "meter"), &c->unit, 1);
    xmlNodePtr up = asset ? kg_xml_child(asset, "up_axis") : NULL;
    if (kasset && kg_xml_child(kasset, "up_axis")) up = kg_xml_child(kasset, "up_axis");
    if (up && strcmp(cd_text(c, up), "Z_UP") != 0)
        cd_diag(c, KG_INFO, "collada.up_axis", up, "the file is %s; kinematics are kept in its axes (the root link is placed at "
             "the identity)%s", cd_text(c, up), NULL);
    int ros = ros_writer(c, asset);
    xmlNodePtr tc = kg_xml_child(ch.kmodel, "technique_common");
    if (!tc) {
        cd_diag(c, KG_ERROR, "collada.syntax", ch.kmodel, "kinematics model without technique_common%s%s", NULL, NULL);
        return NULL;
    }
    const char *name = kg_xml_attr(&c->x, ch.kmodel, "name");
    if (!name) name = kg_xml_attr(&c->x, ch.kmodel, "id");
    if (!(c->b = kg_builder_new(c->file, "collada", c->d))) return NULL; /* out of memory, said */
    kg_builder_set_name(c->b, name ? name : "");
    kg_strmap_init(&c->link_names);
    collect_joints(c, tc);
    /* several root <link>s (the schema allows them; CATIA writes them): a forest,
     * each root fixed to one static world link */
    int nroots = 0;
    for (xmlNodePtr l = kg_xml_first(tc); l; l = kg_xml_next(l)) nroots += kg_xml_is(l, "link");
    c->forest = nroots > 1;
    if (c->forest) {
        char n[16];
        snprintf(n, sizeof n, "%d", nroots);
        cd_diag(c, KG_INFO, "collada.several_roots", tc, "the kinematics model has %s root <link>s; each is fixed "
                "to a static world link%s", n, NULL);
    }
    zeros z = {0};
    for (xmlNodePtr l = kg_xml_first(tc); l; l = kg_xml_next(l))
        if (kg_xml_is(l, "link")) walk_link(c, &z, l);
    close_loops(c);
    read_formulas(c, tc);
    if (ch.ksystem) {
        xmlNodePtr t = kg_xml_child(ch.ksystem, "technique_common");
        for (xmlNodePtr ai = t ? kg_xml_first(t) : NULL; ai; ai = kg_xml_next(ai))
            if (kg_xml_is(ai, "axis_info")) kinematics_axis_info(c, ai);
        keep_extras(c, ch.ksystem->parent, "articulated_system");
    }
    if (ch.msystem) {
        xmlNodePtr t = kg_xml_child(ch.msystem, "technique_common");
        for (xmlNodePtr ai = t ? kg_xml_first(t) : NULL; ai; ai = kg_xml_next(ai))
            if (kg_xml_is(ai, "axis_info")) motion_axis_info(c, ai, ros);
        keep_extras(c, ch.msystem->parent, "articulated_system");
    }
    keep_extras(c, ch.kmodel, "kinematics_model");
    cd_read_visual_scene(c, root);
    read_physics(c, root, &z);
    free(z.at);
    kg_strmap_free(&c->link_names);
    bindings bd;
    if (motion) scene_bindings(c, root, &bd);
    kg_model *m = kg_builder_finish(c->b);
    if (motion) {
        if (m) *motion = kinematics_motion(c, root, m, &bd);
        free(bd.axis);
    }
    return m;
}

kg_model *kg_import_collada(const char *file, const char *buf, size_t len, const kg_load_options *o, kg_motion **motion,
                            kg_diags *d) {
    if (motion) *motion = NULL;
    cd c = {.file = file, .d = d, .o = o};
    kg_strmap_init(&c.ids);
    kg_strmap_init(&c.params);
    kg_strmap_init(&c.joint_sids);
    kg_model *m = NULL;
    if (kg_xml_parse(&c.x, buf, len, file, d) == 0) m = import_doc(&c, motion);
    if (c.x.oom) { /* an attribute could not be copied: what was read may be wrong */
        kg_model_free(m);
        m = NULL;
        if (motion) kg_motion_free(*motion), *motion = NULL;
        kg_diag_out_of_memory(d, c.x.oom_at, file, "while reading the COLLADA file");
    }
    kg_xml_close(&c.x);
    kg_strmap_free(&c.ids);
    kg_strmap_free(&c.params);
    kg_strmap_free(&c.joint_sids);
    free(c.idnodes);
    free(c.paramnodes);
    for (int i = 0; i < c.ndefs; i++) free(c.defs[i]);
    free(c.defs);
    free(c.joints);
    free(c.links);
    free(c.materials);
    for (int i = 0; i < c.nowned; i++) free(c.owned[i]);
    free(c.owned);
    return m;
}
