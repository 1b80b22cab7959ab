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
 *   inertial          rigid body: mass, mass_frame (the COM, principal axes), inertia
 *                     (principal moments); a diagonal declared tensor keeps its frame
 *   collision boxes, spheres, cylinders, capsules
 *                     rigid-body shapes (exact)
 *   URDF extras (transmission, gazebo, ...)
 *                     <kinematics_model><extra type=KIND><technique profile="URDF">
 * Dropped (in the ledger): visual geometry, meshes, materials, motion (not written
 * yet). */
#include <libxml/xmlwriter.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "core/spatial.h"
#include "exporters/exporters.h"
#include "formats/number.h"

typedef struct cw {
    xmlTextWriterPtr w;
    const kg_model *m;
    kg_ledger *l;
    int *jindex; /* model joint -> index of its COLLADA joint (-1: not written) */
} cw;

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

static void kin_link(cw *x, int i) {
    const kg_model *m = x->m;
    start(x, "link");
    attrf(x, "sid", "l%d", i);
    attr(x, "name", m->link[i].name);
    for (int c = i + 1; c < m->nlink; c++) {
        if (m->link[c].parent != i) continue;
        const kg_joint *J = &m->joint[m->link[c].joint];
        char ref[64];
        snprintf(ref, sizeof ref, "kmodel/j%d", m->link[c].joint);
        if (m->link[c].real >= 0) { /* a loop: this end here, the other on the real link */
            start(x, "attachment_start");
            attr(x, "joint", ref);
            pose_elements(x, J->pos, J->rot);
            end(x);
            continue;
        }
        start(x, "attachment_full");
        attr(x, "joint", ref);
        pose_elements(x, J->pos, J->rot);
        kin_link(x, c);
        end(x);
    }
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
    kin_link(x, 0);
    for (int k = 0; k < m->nmimic; k++) formula(x, k);
    end(x);
    for (int k = 0; k < m->nextra; k++) { /* URDF extras; COLLADA extras go back as they came */
        const kg_extra *e = &m->extra[k];
        if (!strncmp(e->kind, "collada:", 8)) {
            if (strstr(e->kind, ":kinematics_model:")) xmlTextWriterWriteRaw(x->w, BAD_CAST e->xml);
            continue;
        }
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

/* Kinematics system (axis_info) and motion system (speed, acceleration), with the
 * parameter chain the scene binds through. */
static void library_articulated_systems(cw *x) {
    const kg_model *m = x->m;
    char b[128], r[160];
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
    for (int j = 0; j < m->njoint; j++) {
        snprintf(b, sizeof b, "as_k_j%d_axis0", j);
        snprintf(r, sizeof r, "as_k/ikm/j%d/axis0", j);
        start(x, "newparam");
        attr(x, "sid", b);
        text(x, "SIDREF", r);
        end(x);
    }
    end(x);
    start(x, "technique_common");
    for (int j = 0; j < m->njoint; j++) {
        const kg_joint *J = &m->joint[j];
        start(x, "axis_info");
        attrf(x, "sid", "ai%d", j);
        snprintf(b, sizeof b, "kmodel/j%d/axis0", j);
        attr(x, "axis", b);
        start(x, "active");
        text(x, "bool", J->type != KG_JOINT_FIXED && J->mimic < 0 ? "true" : "false");
        end(x);
        start(x, "locked");
        text(x, "bool", J->type == KG_JOINT_FIXED ? "true" : "false");
        end(x);
        end(x);
    }
    start(x, "frame_origin");
    attr(x, "link", "kmodel/l0");
    end(x);
    start(x, "frame_tip");
    attrf(x, "link", "kmodel/l%d", m->nlink - 1);
    end(x);
    end(x);
    end(x);
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
    for (int j = 0; j < m->njoint; j++) {
        snprintf(b, sizeof b, "as_m_j%d_axis0", j);
        snprintf(r, sizeof r, "as_k/as_k_j%d_axis0", j);
        start(x, "newparam");
        attr(x, "sid", b);
        text(x, "SIDREF", r);
        end(x);
    }
    end(x);
    start(x, "technique_common");
    for (int j = 0; j < m->njoint; j++) {
        const kg_joint *J = &m->joint[j];
        if (isnan(J->velocity) && isnan(J->acceleration)) continue;
        start(x, "axis_info");
        attrf(x, "axis", "as_k/ai%d", j);
        double s = J->type == KG_JOINT_PRISMATIC ? 1 : 180 / KG_PI;
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
    end(x);
    end(x);
    end(x);
    end(x);
}

static void library_kinematics_scenes(cw *x) {
    const kg_model *m = x->m;
    char b[128], r[160];
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
    for (int j = 0; j < m->njoint; j++) {
        snprintf(b, sizeof b, "ks_j%d_axis0", j);
        snprintf(r, sizeof r, "as_m/as_m_j%d_axis0", j);
        start(x, "newparam");
        attr(x, "sid", b);
        text(x, "SIDREF", r);
        end(x);
        snprintf(b, sizeof b, "ks_j%d_value", j);
        start(x, "newparam");
        attr(x, "sid", b);
        num(x, "float", 0);
        end(x);
    }
    end(x);
    end(x);
    end(x);
}

/* The node tree: each link a node at its joint origin, its joint's axes as
 * transforms with sids the scene binds. */
static void visual_node(cw *x, int i) {
    const kg_model *m = x->m;
    start(x, "node");
    attrf(x, "id", "n%d", i);
    attr(x, "name", m->link[i].name);
    attrf(x, "sid", "n%d", i);
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
    for (int c = i + 1; c < m->nlink; c++)
        if (m->link[c].parent == i && m->link[c].real < 0) visual_node(x, c);
    end(x);
}

/* Collision primitives as rigid-body shapes. */
static void shapes(cw *x, int i) {
    const kg_model *m = x->m;
    const kg_link *L = &m->link[i];
    for (int g = L->geom_first; g < L->geom_first + L->geom_count; g++) {
        const kg_geom *G = &m->geom[g];
        if (G->role != KG_COLLISION || G->type == KG_GEOM_MESH) continue;
        start(x, "shape");
        double half[3] = {G->size[0] / 2, G->size[1] / 2, G->size[2] / 2}, hr[2];
        switch (G->type) {
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
        pose_elements(x, G->pos, G->rot);
        end(x);
    }
}

/* A rigid body carries a link's mass and its collision primitives. */
static int has_body(const kg_model *m, int i) {
    const kg_link *L = &m->link[i];
    if (L->real >= 0) return 0;
    if (L->has_inertial) return 1;
    for (int g = L->geom_first; g < L->geom_first + L->geom_count; g++)
        if (m->geom[g].role == KG_COLLISION && m->geom[g].type != KG_GEOM_MESH) return 1;
    return 0;
}

static void library_physics(cw *x) {
    const kg_model *m = x->m;
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
            shapes(x, i);
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
        start(x, "mass_frame");
        pose_elements(x, L->com, rot);
        end(x);
        nums(x, "inertia", moments, 3);
        shapes(x, i);
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
    attr(x, "parent", "#n0");
    for (int i = 0; i < m->nlink; i++) {
        if (!has_body(m, i)) continue;
        char b[32], t[32];
        snprintf(b, sizeof b, "rb%d", i);
        snprintf(t, sizeof t, "#n%d", i);
        start(x, "instance_rigid_body");
        attr(x, "body", b);
        attr(x, "target", t);
        end(x);
    }
    end(x);
    start(x, "technique_common");
    double g[3] = {0, 0, -9.80665};
    nums(x, "gravity", g, 3);
    end(x);
    end(x);
    end(x);
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
        char t[64], p[64];
        snprintf(t, sizeof t, "n%d/j%d_axis0", m->joint[j].child, j);
        start(x, "bind_joint_axis");
        attr(x, "target", t);
        start(x, "axis");
        snprintf(p, sizeof p, "ks_j%d_axis0", j);
        text(x, "param", p);
        end(x);
        start(x, "value");
        snprintf(p, sizeof p, "ks_j%d_value", j);
        text(x, "param", p);
        end(x);
        end(x);
    }
    end(x);
    end(x);
}

int kg_export_collada(const kg_model *m, const kg_motion *mo, FILE *f, kg_ledger *l, kg_diags *d) {
    if (mo)
        kg_ledger_add(l, KG_DROPPED, "motion", m->name, m->source, 0,
                      "animations are not written yet: %d frames of %d coordinates dropped", mo->nframes, mo->nq);
    for (int g = 0; g < m->ngeom; g++) {
        const kg_geom *G = &m->geom[g];
        if (G->role == KG_VISUAL || G->type == KG_GEOM_MESH)
            kg_ledger_add(l, KG_DROPPED, G->role == KG_VISUAL ? "visual" : "collision", m->link[G->link].name, m->source,
                          G->line, "%s %s geometry is not written yet (collision primitives are, as rigid-body shapes)",
                          kg_geom_type_name(G->type), G->role == KG_VISUAL ? "visual" : "collision");
    }
    for (int k = 0; k < m->nmaterial; k++)
        kg_ledger_add(l, KG_DROPPED, "material", m->material[k].name, m->source, m->material[k].line,
                      "materials are not written yet");
    xmlOutputBufferPtr out = xmlOutputBufferCreateFile(f, NULL);
    xmlTextWriterPtr w = out ? xmlNewTextWriter(out) : NULL;
    if (!w) {
        kg_diag_add(d, KG_ERROR, "io.write", NULL, 0, NULL, "cannot start an XML writer");
        return -1;
    }
    cw x = {w, m, l, NULL};
    xmlTextWriterSetIndent(w, 1);
    xmlTextWriterSetIndentString(w, BAD_CAST " ");
    xmlTextWriterStartDocument(w, "1.0", "UTF-8", NULL);
    start(&x, "COLLADA");
    attr(&x, "xmlns", "http://www.collada.org/2008/03/COLLADASchema");
    attr(&x, "version", "1.5.0");
    start(&x, "asset");
    start(&x, "contributor");
    text(&x, "authoring_tool", "kinegraph 0.1.0");
    end(&x);
    char now[32];
    time_t t = time(NULL);
    strftime(now, sizeof now, "%Y-%m-%dT%H:%M:%SZ", gmtime(&t));
    text(&x, "created", now);
    text(&x, "modified", now);
    start(&x, "unit");
    attr(&x, "meter", "1");
    attr(&x, "name", "meter");
    end(&x);
    text(&x, "up_axis", "Z_UP");
    end(&x);
    start(&x, "library_visual_scenes");
    start(&x, "visual_scene");
    attr(&x, "id", "vscene");
    attr(&x, "name", m->name);
    visual_node(&x, 0);
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
    return rc < 0 || ferror(f) ? -1 : 0;
}
