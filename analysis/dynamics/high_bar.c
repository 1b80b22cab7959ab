/* The seed's high-bar figure (digest 1.12, Fig. 14): a 16-DOF human figure
 * (4 DOF per limb) on a floating torso, hanging from a bar by both hands,
 * each hand's grip a 1-DOF revolute joint about the bar. The grips are the
 * model's loops (virtual links of the bar), so cutting one is
 * kg_structure_cut. Sizes and masses are round numbers of an adult's
 * proportions, not from the paper (which gives none). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kinegraph/dynamics.h"
#include "core/builder.h"
#include "core/fk.h"
#include "core/spatial.h"

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
    if (!b) return NULL; /* out of memory, said */
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

/* ---- the scripted simulation --------------------------------------------------------- */

const kg_high_bar_options kg_high_bar_default = {2.0, 5e-4, 1.0, 1.0, 100, 3, 100};

typedef struct sim {
    const kg_model *m;
    kg_data *d;
    kg_dyn *w;
    kg_closed *c;
    kg_structure *s;
    double *v, *a, *tau;
    int *qof; /* [nv] a 1-DOF coordinate's index in q, else -1 */
} sim;

static int loop_of(const kg_model *m, const char *cut_joint) {
    for (int k = 0; k < m->nloop; k++)
        if (strcmp(m->joint[m->loop[k].cut_joint].name, cut_joint) == 0) return k;
    return -1;
}

static void sim_pose(sim *S) {
    kg_fk(S->m, S->d);
    kg_dyn_positions(S->m, S->d, S->w);
    kg_closed_update(S->m, S->d, S->w, S->c, NULL);
}

/* The start: a rigid swing about the bar at `swing` rad/s (the floating
 * base's velocity, the grips turning back against it), made exactly
 * consistent with both grips by the connection's projection (a no-op up
 * to rounding). */
static void sim_start(sim *S, double swing) {
    const kg_model *m = S->m;
    memset(S->v, 0, (size_t)m->nv * sizeof *S->v);
    const kg_joint *base = &m->joint[kg_model_joint(m, "base")];
    const double *p = S->d->link_pos + 3 * base->child, w[3] = {0, swing, 0};
    double *vb = S->v + base->vadr;
    kg_vec3_cross(vb, w, p); /* the torso's origin moving with the swing */
    vb[4] = swing;
    for (int k = 0; k < m->nloop; k++) S->v[m->joint[m->loop[k].cut_joint].vadr] = -swing;
    for (int k = 0; k < m->nloop; k++) kg_structure_connect(m, S->d, S->w, S->c, S->s, k, S->v);
}

/* The limbs hold the rest pose (q = 0) by a PD law, so the figure is not
 * limp; the actuated coordinates are kg_closed's default (the limb joints). */
static void sim_torques(sim *S, const kg_high_bar_options *o) {
    for (int k = 0; k < S->c->na; k++) {
        const int x = S->c->act[k];
        S->tau[k] = S->qof[x] < 0 ? 0 : -o->kp * S->d->q[S->qof[x]] - o->kd * S->v[x];
    }
}

static double closure_error(const kg_closed *c) {
    double e = 0;
    for (int i = 0; i < c->nrow; i++) e = fmax(e, fabs(c->err[i]));
    return e;
}

static void sim_free(sim *S) {
    kg_closed_free(S->c);
    kg_structure_free(S->s);
    kg_dyn_free(S->w);
    kg_data_free(S->d);
    free(S->v), free(S->a), free(S->tau), free(S->qof);
}

/* 0, or -1 when memory runs out (sim_free frees what was taken). */
static int sim_init(sim *S, const kg_model *m) {
    const size_t V = (size_t)m->nv + 1;
    memset(S, 0, sizeof *S);
    S->m = m;
    S->d = kg_data_new(m);
    S->w = kg_dyn_new(m);
    S->c = kg_closed_new(m, -1, NULL, 0, NULL);
    S->s = kg_structure_new(m);
    S->v = calloc(V, sizeof *S->v), S->a = calloc(V, sizeof *S->a), S->tau = calloc(V, sizeof *S->tau);
    S->qof = calloc(V, sizeof *S->qof);
    if (!S->d || !S->w || !S->c || !S->s || !S->v || !S->a || !S->tau || !S->qof) return -1;
    for (int x = 0; x < m->nv; x++) S->qof[x] = -1;
    for (int j = 0; j < m->njoint; j++)
        if (m->joint[j].nv == 1 && m->joint[j].nq == 1) S->qof[m->joint[j].vadr] = m->joint[j].qadr;
    return 0;
}

int kg_high_bar_simulate(const kg_model *m, const kg_high_bar_options *o, kg_high_bar_frame frame, void *user) {
    if (!o) o = &kg_high_bar_default;
    const int right = loop_of(m, "grip_r");
    if (right < 0 || m->dof != m->nv || !(o->dt > 0)) return -1;
    if (!(o->duration / o->dt <= KG_HIGH_BAR_MAX_STEPS)) return -1;
    sim S;
    if (sim_init(&S, m) != 0) { /* out of memory */
        sim_free(&S);
        return -1;
    }
    sim_pose(&S);
    sim_start(&S, o->swing);
    const long steps = lround(o->duration / o->dt);
    /* a cut outside [0, duration] is never made (and its step count never overflows) */
    const long cut = o->cut_time >= 0 && o->cut_time <= o->duration ? lround(o->cut_time / o->dt) : -1;
    const long every = o->frame_rate > 0 ? lround(1 / (o->frame_rate * o->dt)) : 1;
    int status = 0;
    for (long i = 0; i <= steps && status == 0; i++) {
        if (i == cut) {
            kg_structure_cut(m, S.d, S.w, S.c, right);
            /* the open grip moves only its massless virtual link: stop it */
            S.v[m->joint[m->loop[right].cut_joint].vadr] = 0;
        }
        if (frame && i % (every > 0 ? every : 1) == 0) frame(user, i * o->dt, m, S.d, S.v, S.c->nloop, closure_error(S.c));
        sim_torques(&S, o);
        if (kg_closed_forward(m, S.w, S.c, NULL, NULL, S.v, S.tau, NULL, S.a) < 0) status = -1;
        for (int x = 0; x < m->nv; x++) S.v[x] += o->dt * S.a[x]; /* semi-implicit Euler */
        kg_q_integrate(m, S.d->q, S.v, o->dt);
        sim_pose(&S);
    }
    sim_free(&S);
    return status;
}
