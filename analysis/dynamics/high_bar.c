/* The seed's high-bar figure (digest 1.12, Fig. 14): a 16-DOF human figure
 * (4 DOF per limb) on a floating torso, hanging from a bar by both hands,
 * each hand's grip a 1-DOF revolute joint about the bar. The grips are the
 * model's loops (virtual links of the bar), so cutting one is
 * kg_structure_cut. Sizes and masses are round numbers of an adult's
 * proportions, not from the paper (which gives none). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "analysis/dynamics/dynamics.h"
#include "core/builder.h"

static kg_link *body(kg_builder *b, const char *name, double mass, double cz, double len) {
    kg_link *L = kg_builder_add_link(b, name, 0);
    L->mass = mass;
    memset(L->com, 0, sizeof L->com);
    memset(L->inertia, 0, sizeof L->inertia);
    L->com[2] = cz;
    /* a rod of length len along z with a small radius (0.05 m) */
    const double Ir = mass * len * len / 12, Ia = mass * 0.05 * 0.05 / 2;
    L->inertia[0] = L->inertia[4] = Ir + Ia, L->inertia[8] = Ia;
    return L;
}

static kg_joint *joint(kg_builder *b, const char *name, kg_joint_type t, const char *parent, const char *child, double x,
                  double y, double z, int axis) {
    kg_joint *j = kg_builder_add_joint(b, name, t, parent, child, 0);
    j->pos[0] = x, j->pos[1] = y, j->pos[2] = z;
    j->axis[0] = axis == 0, j->axis[1] = axis == 1, j->axis[2] = axis == 2;
    return j;
}

/* A 4-DOF limb from `parent` at (0, y, z): three axes (y, x, z: pitch, roll,
 * yaw) through massless links, the upper segment, a pitch joint at its end,
 * the lower segment; dir = +1 up (arms), -1 down (legs).
 *
 * Both hands on the bar at q = 0 must not be a singular pose (the grips'
 * closures would lose a rank, N_F 13 instead of 12), so the arms differ from
 * a straight symmetric hang in three ways: the bend joint sits `bend` in
 * front of the upper arm's axis (the arm is not stretched), `splay` outward,
 * and a bent arm's bend axis is turned a little about z (a carrying angle).
 * Without the last, a force along the line through both shoulders is
 * carried by the structure with no joint torque (every arm axis is either
 * parallel to that line or meets it at a shoulder): one closure row is
 * dependent. */
static void limb(kg_builder *b, const char *parent, const char *n, double y, double z, double dir, double m1,
                 double m2, double len, double bend, double splay) {
    char a[64], c[64], u[64], l[64], j[64];
    snprintf(a, sizeof a, "%s_a", n), snprintf(c, sizeof c, "%s_b", n);
    snprintf(u, sizeof u, "%s_upper", n), snprintf(l, sizeof l, "%s_lower", n);
    kg_builder_add_link(b, a, 0), kg_builder_add_link(b, c, 0);
    body(b, u, m1, dir * len / 2, len), body(b, l, m2, dir * len / 2, len);
    snprintf(j, sizeof j, "%s_pitch", n), joint(b, j, KG_JOINT_CONTINUOUS, parent, a, 0, y, z, 1);
    snprintf(j, sizeof j, "%s_roll", n), joint(b, j, KG_JOINT_CONTINUOUS, a, c, 0, 0, 0, 0);
    snprintf(j, sizeof j, "%s_yaw", n), joint(b, j, KG_JOINT_CONTINUOUS, c, u, 0, 0, 0, 2);
    snprintf(j, sizeof j, "%s_bend", n);
    kg_joint *J = joint(b, j, KG_JOINT_CONTINUOUS, u, l, bend, splay, dir * len, 1);
    if (bend != 0) { /* a carrying angle: the bend axis turned by atan(0.2) about z */
        const double k = 1 / sqrt(1.04);
        J->axis[0] = 0.2 * k, J->axis[1] = k;
    }
}

kg_model *kg_high_bar_model(kg_diags *diags) {
    kg_builder *b = kg_builder_new("high_bar", "builtin", diags);
    kg_builder_set_name(b, "high_bar");
    kg_builder_add_link(b, "world", 0);
    kg_builder_add_link(b, "bar_r", 0), kg_builder_add_link(b, "bar_l", 0);
    body(b, "torso", 30, -0.25, 0.6);
    joint(b, "bar_r_mount", KG_JOINT_FIXED, "world", "bar_r", 0, -0.3, 0, 1);
    joint(b, "bar_l_mount", KG_JOINT_FIXED, "world", "bar_l", 0, 0.3, 0, 1);
    /* the torso's origin between the shoulders, the hands at the bar; the
     * shoulders 5 cm in front of the bar, else the shoulders' yaw axes pass
     * through the hands and the closures lose a rank */
    joint(b, "base", KG_JOINT_FLOATING, "world", "torso", 0.05, 0, -0.6, 0);
    limb(b, "torso", "arm_r", -0.2, 0, 1, 2, 1.5, 0.3, 0.08, -0.05);
    limb(b, "torso", "arm_l", 0.2, 0, 1, 2, 1.5, 0.3, 0.08, 0.05);
    limb(b, "torso", "leg_r", -0.1, -0.5, -1, 7, 4, 0.4, 0, 0);
    limb(b, "torso", "leg_l", 0.1, -0.5, -1, 7, 4, 0.4, 0, 0);
    kg_joint *gr = kg_builder_add_joint(b, "grip_r", KG_JOINT_CONTINUOUS, "arm_r_lower", "bar_r", 0);
    kg_joint *gl = kg_builder_add_joint(b, "grip_l", KG_JOINT_CONTINUOUS, "arm_l_lower", "bar_l", 0);
    gr->pos[0] = gl->pos[0] = -0.13; /* the forearm leans back to the bar */
    gr->pos[1] = -0.05, gl->pos[1] = 0.05;
    gr->pos[2] = gl->pos[2] = 0.3;
    gr->axis[0] = gl->axis[0] = 0, gr->axis[1] = gl->axis[1] = 1;
    kg_builder_prefer_cut(b, gr);
    kg_builder_prefer_cut(b, gl);
    return kg_builder_finish(b);
}
