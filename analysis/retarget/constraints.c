/* The constraints of a frame's problem. A quantity that must stay on one
 * side of a bound may approach it by a fraction of its margin a step (a
 * velocity damper, Faverjon and Tournassoud); once past it, the step is asked
 * to bring it back, and where the rows of all bounds passed cannot be met
 * together (a limit or a singular leg in the way), they hold it where it is
 * (not further) and a cost of weight w_slack[kind] corrects it (step.c
 * soften): the slack of the constraint, used only as far as the others and
 * the limits leave no way to meet it, and which the report measures per
 * kind. Not the cost alone: its pull is two-sided, holding a quantity at its
 * bound as firmly as back from it, so a bound passed by a hair was held
 * (a sole corner 4e-5 m past the scuff rows' apex stalled the foot's
 * lift-off where one a hair inside rose and stepped: rounding chose the
 * walk). A target (a planted foot's pin) is approached and never left or
 * overshot, its miss corrected by the cost. Standing still meets every row
 * but the bounds asked back, so the problem without them always has a
 * solution. (Rows demanding every correction in one step, never softened,
 * made the problem infeasible wherever a limit or a singular leg stood in
 * the way, and the solves with slack variables that followed alternated
 * between two poses.)
 *
 * The rows: planted feet on their pins (6 components each), closed loops
 * closed, a swinging sole's corners above the ground, watched link pairs
 * collision_safe apart, and the COM on the balance's reference. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/retarget/step.h"
#include "core/fk.h"
#include "core/spatial.h"

/* A target is met exactly below this (m, rad): the row holds it. */
#define MET 1e-9

static double *eq_row(rt_step *w, double rhs) {
    double *row = w->C + w->neq * w->nx;
    w->cd[w->neq++] = rhs;
    return row;
}

static double *in_row(rt_step *w, double rhs) {
    double *row = w->A + w->nin * w->nx;
    w->b[w->nin++] = rhs;
    return row;
}

/* The correction cost of a violation: weight (v + a'x)^2 / 2 towards v = goal. */
static void correct(rt_step *w, int kind, const double *a, double e) {
    if (!rt_merit_only(w, &e, 1, w->t.w_slack[kind])) rt_add_row_cost(w, a, e, w->t.w_slack[kind]);
}

/* v0 + a'x >= 0: approaching the bound by at most gain times the margin a
 * step; past it, back to it (rows w->soft, softened by step.c when they
 * cannot all be met). */
static void keep_above(rt_step *w, int kind, const double *a, double v0, double gain) {
    if (v0 < 0) w->viol[kind] = kg_fmax(w->viol[kind], -v0);
    if (w->eval) {
        if (v0 < 0) rt_merit_only(w, &v0, 1, w->t.w_slack[kind]);
        return;
    }
    memcpy(in_row(w, v0 >= 0 ? -gain * v0 : -v0), a, w->nx * sizeof *a);
    if (v0 >= 0) return;
    rt_merit_only(w, &v0, 1, w->t.w_slack[kind]);
    w->soft_kind[w->nsoft] = (unsigned char)kind, w->soft[w->nsoft++] = w->nin - 1;
}

/* a'x towards e: between 0 and e, never away nor past, and corrected; held
 * when e is met. */
static void approach(rt_step *w, int kind, const double *a, double e) {
    w->viol[kind] = kg_fmax(w->viol[kind], fabs(e));
    if (w->eval) {
        rt_merit_only(w, &e, 1, w->t.w_slack[kind]);
        return;
    }
    if (fabs(e) <= MET) {
        memcpy(eq_row(w, 0), a, w->nx * sizeof *a);
    } else {
        double *lo = in_row(w, kg_fmin(0, e)), *hi = in_row(w, -kg_fmax(0, e));
        for (int c = 0; c < w->nx; c++) lo[c] = a[c], hi[c] = -a[c];
    }
    correct(w, kind, a, e);
}

/* Link lb's pose onto link la's, component by component (a loop closed). */
static void loop_target(rt_step *w, int lb, int la) {
    const int nx = w->nx;
    const double *pb = w->d->link_pos + 3 * lb, *Rb = w->d->link_rot + 9 * lb;
    const double *pos = w->d->link_pos + 3 * la, *R = w->d->link_rot + 9 * la;
    double Re[9], e[6];
    kg_mat3_mul_bt(Re, R, Rb);
    kg_rot_log(Re, e + 3);
    for (int a = 0; a < 3; a++) e[a] = pos[a] - pb[a];
    if (!w->eval) {
        rt_point_jacobian(w, lb, pb, w->J, w->J + 3 * nx);
        rt_point_jacobian(w, la, pb, w->J2, w->J2 + 3 * nx);
        for (int i = 0; i < 6 * nx; i++) w->J[i] -= w->J2[i];
        rt_clear_marks(w);
    }
    for (int r = 0; r < 6; r++) approach(w, KG_SLACK_LOOP, w->J + r * nx, e[r]);
}

/* A planted foot onto its pin, held at its point `hold`: a foot pinned
 * tilted turns flat about the corner it touched with, which stays where it
 * is (the pose approached at the link's origin slid that corner while the
 * ankle turned the foot flat: 21 mm over ten frames at a joint's speed
 * limit). */
static void pin_target(rt_step *w, int side, const rt_pin *pin) {
    const int nx = w->nx, l = w->rr->map.link[side ? KG_PART_FOOT_R : KG_PART_FOOT_L];
    const double *pl = w->d->link_pos + 3 * l, *Rl = w->d->link_rot + 9 * l;
    double Re[9], e[6], at[3], to[3];
    kg_mat3_vec(at, Rl, pin->hold);
    kg_mat3_vec(to, pin->R, pin->hold);
    for (int a = 0; a < 3; a++) at[a] += pl[a], e[a] = pin->pos[a] + to[a] - at[a];
    kg_mat3_mul_bt(Re, pin->R, Rl);
    kg_rot_log(Re, e + 3);
    if (!w->eval) {
        rt_point_jacobian(w, l, at, w->J, w->J + 3 * nx);
        rt_clear_marks(w);
    }
    for (int r = 0; r < 6; r++) approach(w, KG_SLACK_STANCE, w->J + r * nx, e[r]);
}

/* A foot rolled less than this (rad) lies flat: which edge it rolls down to is
 * the way its leg leans (lean_side). */
#define ROLL_TIE 1e-3

/* May the robot's planted feet roll on their soles' side edges (sole_tilt)?
 * Those its legs cannot roll (robot.c ankle_roll_check). */
static int free_tilt(const rt_step *w) { return !w->rr->rolls_feet && w->t.sole_tilt > 0; }

/* Does a planted foot stand by tilt_target? Planted where it is (not
 * settling, pivoting or pushing off: their rows let it roll themselves). */
static int tilts(const rt_step *w, const rt_pin *p) {
    return p->down && !p->slide && !p->pivot && !p->roll && free_tilt(w);
}

/* A planted foot's roll d (rad, or the sine of one; a'x its change) within
 * [lo, hi], and pulled back to flat by w_sole_tilt: the rows alone let the
 * legs lean as far as the bound allows wherever a cost leans them (a walk's
 * feet stood rolled to the bound on most frames). Two rows of kind stance
 * (w->row used) and a cost. */
static void within(rt_step *w, const double *a, double d, double lo, double hi) {
    double e = -d;
    if (!rt_merit_only(w, &e, 1, w->t.w_sole_tilt)) rt_add_row_cost(w, a, e, w->t.w_sole_tilt);
    if (!w->eval)
        for (int i = 0; i < w->nx; i++) w->row[i] = -a[i];
    keep_above(w, KG_SLACK_STANCE, w->row, hi - d, 1);
    keep_above(w, KG_SLACK_STANCE, a, d - lo, 1);
}

/* A foot turned by R (its rest turn rest): its heading f and its left sd,
 * both level (the world's x at rest is rest's first row, in the foot's frame). */
static void level_axes(const double R[9], const double rest[9], double f[3], double sd[3]) {
    static const double up[3] = {0, 0, 1};
    kg_mat3_vec(f, R, rest);
    f[2] = 0;
    rt_normalize(f);
    kg_vec3_cross(sd, up, f);
}

/* The side (+1 along sd, the foot's left, or -1) a planted foot of side
 * `side` rolls down to, its sole's middle at mid: the way its hip stands off
 * the foot beyond where it stands at rest (a leg whose top is pushed left
 * leans left and puts its foot's left edge down). For a foot lying flat,
 * whose lowest corner is a tie: held on the wrong edge, it could roll back to
 * flat but never past it (a landing foot stood flat while the pelvis turned
 * 20 degrees). */
static int lean_side(rt_step *w, int side, const double mid[3], const double sd[3]) {
    const kg_retarget_robot *rr = w->rr;
    const int foot = side ? KG_PART_FOOT_R : KG_PART_FOOT_L, hip = side ? KG_PART_HIP_R : KG_PART_HIP_L;
    double h[3], m0[3];
    if (rt_part_point(w, hip, h) < 0) return 1;
    kg_mat3_vec(m0, rr->rest_rot[foot], rr->sole_mid[side]);
    const double at_rest = rr->rest_pos[hip][1] - rr->rest_pos[foot][1] - m0[1]; /* facing +x: left is +y */
    const double now = (h[0] - mid[0]) * sd[0] + (h[1] - mid[1]) * sd[1] + (h[2] - mid[2]) * sd[2];
    return now >= at_rest ? 1 : -1;
}

/* A planted foot its leg cannot roll: held as pin_target holds it - its
 * sole's middle across the ground, its heading and pitch - but free to roll
 * on its sole's side edge by up to sole_tilt, its lowest corner on the
 * ground (ground_rows keep the others above). Held flat, such a leg's hip
 * lies in the vertical plane along the foot, and two feet planted a width W
 * apart are stood on only with the pelvis turned by acos(W / hips' width)
 * (wider than the hips: not at all, and the stance took slack and slid): a
 * humanoid whose hips are twice a person's stance apart stood turned 0.3-0.4
 * rad. Rolled a little, the legs lean a little: with w_sole_tilt's pull the
 * turn is about halved (the sample with hips twice as wide: 19 degrees on
 * average against 34) and the stance takes no slack. */
static void tilt_target(rt_step *w, int side, const rt_pin *pin) {
    const kg_retarget_robot *rr = w->rr;
    const int nx = w->nx, foot = side ? KG_PART_FOOT_R : KG_PART_FOOT_L, l = rr->map.link[foot];
    const double *pl = w->d->link_pos + 3 * l, *Rl = w->d->link_rot + 9 * l;
    const double *mid = rr->sole_mid[side];
    double at[3], to[3], Re[9], er[3], f[3], sd[3], c[4][3];
    kg_mat3_vec(at, Rl, mid), kg_mat3_vec(to, pin->R, mid);
    for (int a = 0; a < 3; a++) at[a] += pl[a], to[a] += pin->pos[a];
    kg_mat3_mul_bt(Re, pin->R, Rl);
    kg_rot_log(Re, er);
    level_axes(pin->R, rr->rest_rot[foot], f, sd);
    rt_sole_at(rr, side, pl, Rl, c);
    const double t = w->t.sole_tilt, ef = kg_vec3_dot(er, f);
    /* the lowest corner; lying flat (within ROLL_TIE), the lowest on the side it leans to */
    const int lean = fabs(ef) < ROLL_TIE ? lean_side(w, side, at, sd) : 0;
    int low = -1;
    for (int k = 0; k < 4; k++) {
        double off = (c[k][0] - at[0]) * sd[0] + (c[k][1] - at[1]) * sd[1] + (c[k][2] - at[2]) * sd[2];
        if (lean && off * lean <= 0) continue;
        if (low < 0 || c[k][2] < c[low][2]) low = k;
    }
    if (low < 0) low = 0;
    if (!w->eval) {
        rt_point_jacobian(w, l, at, w->J, w->J + 3 * nx);
        rt_point_jacobian(w, l, c[low], w->J2, NULL);
        rt_clear_marks(w);
        for (int i = 0; i < nx; i++) { /* rows 3..5: about the foot's side, its heading, up */
            const double wx = w->J[3 * nx + i], wy = w->J[4 * nx + i], wz = w->J[5 * nx + i];
            w->row[i] = sd[0] * wx + sd[1] * wy + sd[2] * wz;
            w->J[4 * nx + i] = f[0] * wx + f[1] * wy + f[2] * wz;
            w->J[3 * nx + i] = w->row[i];
        }
    }
    approach(w, KG_SLACK_STANCE, w->J, to[0] - at[0]);
    approach(w, KG_SLACK_STANCE, w->J + nx, to[1] - at[1]);
    approach(w, KG_SLACK_STANCE, w->J2 + 2 * nx, -c[low][2]);
    approach(w, KG_SLACK_STANCE, w->J + 3 * nx, kg_vec3_dot(er, sd));
    approach(w, KG_SLACK_STANCE, w->J + 5 * nx, er[2]);
    within(w, w->J + 4 * nx, -ef, -t, t); /* the roll from the pin is -er.f, moved by f'omega */
}

/* A settling foot: its height and tilt held, flat on the ground (it slides
 * and turns on it as costs say). */
static void slide_target(rt_step *w, int side, const rt_pin *pin) {
    const kg_retarget_robot *rr = w->rr;
    const int nx = w->nx, foot = side ? KG_PART_FOOT_R : KG_PART_FOOT_L, l = rr->map.link[foot];
    const double *p = w->d->link_pos + 3 * l, *R = w->d->link_rot + 9 * l;
    double Rr[9], Rf[9], Re[9], e[3];
    kg_mat3_mul_bt(Rr, R, rr->rest_rot[foot]); /* flat, turned as it is: the tilt to undo */
    rt_yaw_rot(Rf, rt_heading(Rr), rr->rest_rot[foot]);
    kg_mat3_mul_bt(Re, Rf, R);
    kg_rot_log(Re, e);
    if (!w->eval) {
        rt_point_jacobian(w, l, p, w->J, w->J + 3 * nx);
        rt_clear_marks(w);
    }
    approach(w, KG_SLACK_STANCE, w->J + 2 * nx, pin->pos[2] - p[2]);
    for (int r = 0; r < 2; r++) approach(w, KG_SLACK_STANCE, w->J + (3 + r) * nx, e[r]);
}

/* A pivoting foot: the point it turns on held, its sole flat (its turn is the
 * source's, a cost). */
static void pivot_target(rt_step *w, int side, const rt_pin *pin) {
    const kg_retarget_robot *rr = w->rr;
    const int nx = w->nx, foot = side ? KG_PART_FOOT_R : KG_PART_FOOT_L, l = rr->map.link[foot];
    const double *R = w->d->link_rot + 9 * l;
    double p[3], Rr[9], Rf[9], Re[9], e[6];
    kg_mat3_vec(p, R, rr->sole_end[side][pin->pivot - 1]);
    for (int a = 0; a < 3; a++) p[a] += w->d->link_pos[3 * l + a], e[a] = pin->pivot_at[a] - p[a];
    kg_mat3_mul_bt(Rr, R, rr->rest_rot[foot]); /* flat, turned as it is: the tilt to undo */
    const double h = rt_heading(Rr);
    rt_yaw_rot(Rf, h, rr->rest_rot[foot]);
    kg_mat3_mul_bt(Re, Rf, R);
    kg_rot_log(Re, e + 3);
    if (!w->eval) {
        rt_point_jacobian(w, l, p, w->J, w->J + 3 * nx);
        rt_clear_marks(w);
    }
    if (free_tilt(w)) { /* its pitch held; it may roll down onto its pivot's side within sole_tilt (tilt_target):
                          * the pivot held on the ground, a roll the other way puts its far corners in it */
        const double f[2] = {cos(h), sin(h)}, ef = f[0] * e[3] + f[1] * e[4];
        const double off = -f[1] * (p[0] - w->d->link_pos[3 * l]) + f[0] * (p[1] - w->d->link_pos[3 * l + 1]);
        double o[3];
        kg_mat3_vec(o, R, rr->sole_mid[side]);
        const int pivot_left = off > -f[1] * o[0] + f[0] * o[1]; /* the pivot left of the sole's middle */
        if (!w->eval)
            for (int i = 0; i < nx; i++) {
                const double wx = w->J[3 * nx + i], wy = w->J[4 * nx + i];
                w->J[3 * nx + i] = -f[1] * wx + f[0] * wy, w->J[4 * nx + i] = f[0] * wx + f[1] * wy;
            }
        e[3] = -f[1] * e[3] + f[0] * e[4];
        for (int r = 0; r < 4; r++) approach(w, KG_SLACK_STANCE, w->J + r * nx, e[r]);
        /* a roll about the heading by +a raises the left edge: the pivot's edge down is a < 0 when it is left */
        within(w, w->J + 4 * nx, -ef, pivot_left ? -w->t.sole_tilt : 0, pivot_left ? 0 : w->t.sole_tilt);
        return;
    }
    for (int r = 0; r < 5; r++) approach(w, KG_SLACK_STANCE, w->J + r * nx, e[r]);
}

/* A foot pushing off: its sole's front edge held - its middle at roll_at,
 * its direction as set down - so the foot pitches about the edge only (its
 * heel is kept above the ground by the ground rows). The direction's rows
 * are the two components across it (along it, a unit vector cannot move). */
static void roll_target(rt_step *w, int side, const rt_pin *pin) {
    const kg_retarget_robot *rr = w->rr;
    const int nx = w->nx, l = rr->map.link[side ? KG_PART_FOOT_R : KG_PART_FOOT_L];
    const double *R = w->d->link_rot + 9 * l, up[3] = {0, 0, 1};
    double dp[3], mid[3], p[3], u[3], u0[3], across[2][3], e[5];
    for (int a = 0; a < 3; a++) dp[a] = pin->roll_at[a] - pin->pos[a];
    kg_mat3_tvec(mid, pin->R, dp); /* the edge's middle in the foot's frame */
    kg_mat3_vec(p, R, mid);
    for (int a = 0; a < 3; a++) p[a] += w->d->link_pos[3 * l + a], e[a] = pin->roll_at[a] - p[a];
    kg_mat3_vec(u, R, pin->roll_edge), kg_mat3_vec(u0, pin->R, pin->roll_edge);
    kg_vec3_cross(across[0], u, up); /* the edge lies near level: up is never along it */
    rt_normalize(across[0]);
    kg_vec3_cross(across[1], u, across[0]);
    for (int k = 0; k < 2; k++) e[3 + k] = kg_vec3_dot(across[k], u0) - kg_vec3_dot(across[k], u);
    if (!w->eval) {
        rt_point_jacobian(w, l, p, w->J, w->J + 3 * nx);
        rt_clear_marks(w);
        for (int k = 0; k < 2; k++) { /* d(a . u) = a . (omega x u) = (u x a) . omega */
            double ua[3];
            kg_vec3_cross(ua, u, across[k]);
            for (int i = 0; i < nx; i++)
                w->row[i] = ua[0] * w->J[3 * nx + i] + ua[1] * w->J[4 * nx + i] + ua[2] * w->J[5 * nx + i];
            memcpy(w->J2 + k * nx, w->row, nx * sizeof *w->row);
        }
        memcpy(w->J + 3 * nx, w->J2, 2 * nx * sizeof *w->J2);
    }
    if (free_tilt(w)) { /* the edge may tilt within sole_tilt, its lower end on the ground (tilt_target) */
        double half = 0, end[3], q[3];
        for (int k = 0; k < 4; k++) {
            for (int a = 0; a < 3; a++) q[a] = rr->sole[side][k][a] - mid[a];
            half = fmax(half, fabs(kg_vec3_dot(q, pin->roll_edge)));
        }
        double sg = u[2] > 0 ? -1 : 1; /* towards the edge's lower end; level, the end the leg leans to */
        if (fabs(u[2]) < ROLL_TIE) {
            double fw[3], sd[3], m[3];
            level_axes(R, rr->rest_rot[side ? KG_PART_FOOT_R : KG_PART_FOOT_L], fw, sd);
            kg_mat3_vec(m, R, rr->sole_mid[side]);
            for (int a = 0; a < 3; a++) m[a] += w->d->link_pos[3 * l + a];
            sg = lean_side(w, side, m, sd) * kg_vec3_dot(u, sd) > 0 ? 1 : -1;
        }
        for (int a = 0; a < 3; a++) q[a] = mid[a] + sg * half * pin->roll_edge[a];
        kg_mat3_vec(end, R, q);
        for (int a = 0; a < 3; a++) end[a] += w->d->link_pos[3 * l + a];
        if (!w->eval) {
            rt_point_jacobian(w, l, end, w->J2, NULL);
            rt_clear_marks(w);
        }
        approach(w, KG_SLACK_STANCE, w->J, e[0]);
        approach(w, KG_SLACK_STANCE, w->J + nx, e[1]);
        approach(w, KG_SLACK_STANCE, w->J2 + 2 * nx, -end[2]);
        approach(w, KG_SLACK_STANCE, w->J + 3 * nx, e[3]);
        within(w, w->J + 4 * nx, -e[4], -sin(w->t.sole_tilt), sin(w->t.sole_tilt));
        return;
    }
    for (int r = 0; r < 5; r++) approach(w, KG_SLACK_STANCE, w->J + r * nx, e[r]);
}

/* Planted feet on their pins (or turning on them); closed loops closed. */
static void stance_rows(rt_step *w, const rt_goal *g) {
    for (int side = 0; side < 2; side++) {
        if (!g->pin[side].down) continue;
        if (g->pin[side].slide) {
            slide_target(w, side, &g->pin[side]);
            continue;
        }
        if (g->pin[side].pivot) {
            pivot_target(w, side, &g->pin[side]);
            continue;
        }
        if (g->pin[side].roll) {
            roll_target(w, side, &g->pin[side]);
            continue;
        }
        if (tilts(w, &g->pin[side])) tilt_target(w, side, &g->pin[side]);
        else pin_target(w, side, &g->pin[side]);
    }
    for (int k = 0; k < w->m->nloop; k++)
        loop_target(w, w->m->loop[k].virtual_link, w->m->loop[k].real_link);
}

/* A point of link l at height p[2] stays on or above the ground. */
static void above_ground(rt_step *w, int l, const double p[3]) {
    if (!w->eval) {
        rt_point_jacobian(w, l, p, w->J, NULL);
        rt_clear_marks(w);
    }
    keep_above(w, KG_SLACK_GROUND, w->J + 2 * w->nx, p[2], 1);
}

/* A swinging sole's corner c (link l, foot side, corner k) near the ground
 * does not slide on it: its sideways move since the frame before, along
 * each axis of the foot's heading then, is at most the source's foot's move
 * (a foot the source drags or turns on the ground is followed) plus (its
 * height - scuff_height) dt / scuff_time; below scuff_height that is less
 * than the source's, and the ground's slack lifts the corner. A foot faster
 * than the source's is thus lifted before it is carried (a small humanoid's
 * foot released twisted far from its target was dragged along the floor,
 * toes down, 20 cm). The rows hold from a frame whose end left the sole
 * within scuff_height of the ground until it rises above scuff_release or is
 * pinned (w->scuff): held only for the frame after, a lifted foot fell back
 * onto the ground and was lifted again. A foot coming down from higher is
 * free: between two frames it may have come down anywhere (rows on it held
 * landing feet in the air). Four rows, a square for the circle. */
static void no_scuff(rt_step *w, const rt_goal *g, int l, int side, int k, const double c[3]) {
    const int nx = w->nx;
    const double r = w->dt / w->t.scuff_time, h = w->t.scuff_height, *was = w->sole_prev[side][k];
    if (fmin(was[2], c[2]) >= w->t.scuff_release) return; /* far above: the rows would be slack */
    const double yaw = w->heading_prev[side], ax[2][2] = {{cos(yaw), sin(yaw)}, {-sin(yaw), cos(yaw)}};
    if (!w->eval) {
        rt_point_jacobian(w, l, c, w->J, NULL);
        rt_clear_marks(w);
    }
    for (int a = 0; a < 2; a++)
        for (int sg = -1; sg <= 1; sg += 2) { /* src + r (z - h) - sg u.(c - was) >= 0, u the axis a */
            const double *u = ax[a];
            double v0 = g->src_step[side] + r * (c[2] - h) - sg * (u[0] * (c[0] - was[0]) + u[1] * (c[1] - was[1]));
            if (!w->eval)
                for (int i = 0; i < nx; i++)
                    w->row[i] = r * w->J[2 * nx + i] - sg * (u[0] * w->J[i] + u[1] * w->J[nx + i]);
            keep_above(w, KG_SLACK_GROUND, w->row, v0, 1);
        }
}

/* A swinging foot near the ground stays on or above it: its sole's corners,
 * and each of its shapes' lowest point where that is lower still (a foot
 * turned toes down reaches below its sole's corners). The corners always: a
 * shape's lowest point jumps from one end to the other as the foot levels,
 * and rows on it alone sent a foot to and fro. A pushing-off foot (rolling
 * on its sole's front edge) keeps its shapes above the ground too: a toe
 * curving up ahead of the flat sole went 10-37 mm into the ground as the foot
 * rolled. The shapes themselves rather than their swelled hulls, which reach
 * below the held edge, and down to roll_depth below the ground: a sphere or a
 * rounded sole held at a point of its surface dips a fraction of a millimetre
 * as it rolls, and rows holding it at the ground fought the edge's own rows
 * (stance slack, capped iterations, 1 mm of slip; a dance diverged). */
static void ground_rows(rt_step *w, const rt_goal *g) {
    const kg_retarget_robot *rr = w->rr;
    for (int side = 0; side < 2; side++) {
        const int tilt = tilts(w, &g->pin[side]) || (g->pin[side].down && g->pin[side].pivot && free_tilt(w));
        if (g->pin[side].down && !g->pin[side].roll && !tilt) continue;
        int l = rr->map.link[side ? KG_PART_FOOT_R : KG_PART_FOOT_L];
        double c[4][3], low = INFINITY;
        rt_sole_at(rr, side, w->d->link_pos + 3 * l, w->d->link_rot + 9 * l, c);
        for (int k = 0; k < 4; k++) {
            low = fmin(low, c[k][2]);
            if (c[k][2] < w->t.sole_watch) above_ground(w, l, c[k]);
            if (w->have_prev && w->scuff[side] && !g->pin[side].down && w->t.scuff_time > 0)
                no_scuff(w, g, l, side, k, c[k]);
        }
        const double dip = g->pin[side].roll || tilt ? w->t.roll_depth : 0;
        for (int k = 0; k < rr->nfoot_shape[side]; k++) {
            double p[3];
            int s = rr->foot_shape[side][k];
            /* the coarse hull is swelled by its margin: lower than the corners by more than that. A
             * swinging foot keeps the swelled hull above the ground; a rolling one the hull's own
             * lowest vertex (the swelled point raised by the margin: a point's row on its height
             * does not depend on that height) down to roll_depth */
            double z = rt_shape_lowest(&rr->coarse, w->d, s, p) + rr->coarse.shape[s].margin;
            if (g->pin[side].roll || tilt) p[2] = z + dip;
            if (z < low && p[2] < w->t.sole_watch) above_ground(w, rr->coarse.shape[s].link, p);
        }
        for (int k = 0; k < rr->nfoot_drawn[side]; k++) { /* its drawn shapes likewise */
            double p[3], rest = rr->foot_drawn_rest[side][k];
            if (rt_convex_lowest(&rr->foot_drawn[side][k], w->d, p) - rest >= fmin(low, w->t.sole_watch)) continue;
            p[2] += dip - rest; /* held no deeper than it reaches at rest, and roll_depth (above_ground keeps p[2] >= 0) */
            above_ground(w, rr->foot_drawn[side][k].link, p);
        }
    }
}

/* The body's other shapes stay above the ground too: a hand, a knee or an
 * elbow reaching lower than the floor where the source's stopped on it (a
 * crouching boxer's hand 107 mm into the floor on the sample humanoid). A link
 * whose shapes reach within sole_watch of the ground (its origin's height less
 * their reach) gets a row on each shape's lowest point that is (the coarse
 * hull's: swelled, it keeps the mesh clear). The feet's shapes are
 * ground_rows' business, and shapes not clear of the ground at rest are left
 * alone (robot.c ground_shapes). */
static void body_ground_rows(rt_step *w) {
    const kg_retarget_robot *rr = w->rr;
    if (!rr->have_cm) return;
    for (int l = 0; l < w->m->nlink; l++) {
        int first = rr->cm.link_first[l], count = rr->cm.link_count[l];
        if (count == 0 || w->d->link_pos[3 * l + 2] - rr->link_radius[l] >= w->t.sole_watch) continue;
        for (int k = first; k < first + count; k++) {
            double p[3];
            if (!rr->ground_shape[k]) continue;
            rt_shape_lowest(&rr->coarse, w->d, k, p);
            if (p[2] < w->t.sole_watch) above_ground(w, l, p);
        }
    }
}

/* Pair s's wake (step.h): pair_state() measures a far pair again once
 * since > dist - collision_influence; 1e-9 m inside that, rounding aside. */
static void set_wake(rt_step *w, const rt_pair *s) {
    w->wake[s - w->pairs] = s->near ? -INFINITY : s->moved + s->dist - w->t.collision_influence - 1e-9;
}

/* A pair's witness points in its links' frames. */
static void witnesses_on_links(rt_step *w, rt_pair *s, int la, int lb) {
    double d[3];
    for (int a = 0; a < 3; a++) d[a] = s->pa[a] - w->d->link_pos[3 * la + a];
    kg_mat3_tvec(s->pa_link, w->d->link_rot + 9 * la, d);
    for (int a = 0; a < 3; a++) d[a] = s->pb[a] - w->d->link_pos[3 * lb + a];
    kg_mat3_tvec(s->pb_link, w->d->link_rot + 9 * lb, d);
}

/* A pair measured at the pose (GJK): its distance (when farther than reach, a
 * lower bound: its links' boxes' gap), normal
 * and witness points, world and in their links' frames. */
static void measure(rt_step *w, rt_pair *s, int p, double moved) {
    const kg_retarget_robot *rr = w->rr;
    const double reach = w->t.collision_influence + w->t.collision_lookahead;
    const int la = rr->cm.pair_a[p], lb = rr->cm.pair_b[p];
    s->frame = w->frame, s->moved = moved;
    s->near = kg_pair_distance(&rr->coarse, w->d, w->cw, p, reach, &s->dist, s->n, s->pa, s->pb);
    s->gjk_moved = moved;
    set_wake(w, s);
    witnesses_on_links(w, s, la, lb);
}

/* A near pair measured again along its normal (kg_pair_gap_along), the plane's
 * gap its distance and the points it is measured between its witnesses, when
 * that gap is at least `safe`: a lower bound, exact while the normal is still
 * the pair's, for two support queries a shape. Returns 0, the pair unchanged,
 * when the plane no longer separates them by that much. */
static int measure_along(rt_step *w, rt_pair *s, int p, double moved, double safe) {
    const kg_retarget_robot *rr = w->rr;
    double pa[3], pb[3], gap = kg_pair_gap_along(&rr->coarse, w->d, w->cw, p, s->n, pa, pb);
    if (!(gap >= safe)) return 0;
    s->frame = w->frame, s->moved = moved, s->dist = gap;
    /* gone beyond GJK's reach: far, the gap its bound (set_wake) */
    s->near = gap < w->t.collision_influence + w->t.collision_lookahead;
    set_wake(w, s);
    kg_vec3_copy(s->pa, pa), kg_vec3_copy(s->pb, pb);
    witnesses_on_links(w, s, rr->cm.pair_a[p], rr->cm.pair_b[p]);
    return 1;
}

/* When links la and lb's capsules are collision_influence apart, their gap
 * becomes the pair's bound (it is not near) and 1 is returned. The gap of the
 * spheres around them first, a lower bound (three roots against a segment
 * distance): most pairs woken are that far apart, and a bound the pair sleeps
 * on need not be tight (an earlier wake only tests again). */
static int bound(rt_step *w, rt_pair *s, int la, int lb, double moved) {
    const double *ca = w->capsule + 6 * la, *cb = w->capsule + 6 * lb;
    double ra = w->rr->capsule[7 * la + 6], rb = w->rr->capsule[7 * lb + 6];
    if (ra < 0 || rb < 0) return 0;
    double m[3], ha = 0, hb = 0;
    for (int a = 0; a < 3; a++) {
        m[a] = 0.5 * (ca[a] + ca[3 + a] - cb[a] - cb[3 + a]);
        ha += (ca[3 + a] - ca[a]) * (ca[3 + a] - ca[a]), hb += (cb[3 + a] - cb[a]) * (cb[3 + a] - cb[a]);
    }
    double gap = sqrt(kg_vec3_dot(m, m)) - 0.5 * (sqrt(ha) + sqrt(hb)) - ra - rb;
    if (!(gap >= w->t.collision_influence)) gap = rt_segment_distance(ca, ca + 3, cb, cb + 3) - ra - rb;
    if (!(gap >= w->t.collision_influence)) return 0;
    s->frame = w->frame, s->near = 0, s->dist = gap, s->moved = moved;
    set_wake(w, s);
    return 1;
}

/* The distance a watched pair is kept at: collision_safe, or half its rest
 * distance when the robot's build holds it nearer than that (a pair kept at a
 * distance it is built at pushed its links to and fro); overlapping at rest, as
 * the coarse hulls may, half as much again. */
static double safe_distance(const rt_step *w, int k) {
    double rest = w->rr->watch_rest[k];
    return kg_fmin(w->t.collision_safe, rest - 0.5 * fabs(rest));
}

/* A watched pair's distance, normal and witness points at the pose. GJK on
 * every watched pair at every step cost most of a frame, so a far pair is
 * measured only when it may have come within collision_influence since it was
 * last (its links' motion bounds against the distance then: conservative
 * advancement); a near pair's witness points, fixed on their links, carry its
 * distance to first order, and it is measured again once its links may have
 * moved collision_remeasure with that estimate within collision_influence, or
 * collision_lookahead whatever it says: along its last normal while that
 * plane keeps them the safe distance apart, else by GJK. Before a measure, the links' capsules:
 * when they are collision_influence apart, their gap is the pair's new bound
 * (a segment distance against a GJK; it spares most measures of a walk's swinging
 * legs, which move too far between two steps for the last bound to hold).
 * Returns 0 when the pair is not near. */
KG_AVX2_CLONE static int pair_state(rt_step *w, int k, double *dist, double n[3], double pa[3], double pb[3]) {
    const kg_retarget_robot *rr = w->rr;
    rt_pair *s = &w->pairs[k];
    int p = rr->watch[k], la = rr->cm.pair_a[p], lb = rr->cm.pair_b[p];
    double moved = w->link_moved[la] + w->link_moved[lb], since = moved - s->moved;
    if (s->frame < 0 || (!s->near && s->dist - since < w->t.collision_influence)) {
        if (bound(w, s, la, lb, moved)) return 0;
        measure(w, s, p, moved), since = 0;
    }
    for (int again = 1; s->near; again = 0) {
        kg_mat3_vec(pa, w->d->link_rot + 9 * la, s->pa_link), kg_mat3_vec(pb, w->d->link_rot + 9 * lb, s->pb_link);
        *dist = s->dist;
        for (int a = 0; a < 3; a++) {
            pa[a] += w->d->link_pos[3 * la + a], pb[a] += w->d->link_pos[3 * lb + a], n[a] = s->n[a];
            *dist += s->n[a] * ((pb[a] - s->pb[a]) - (pa[a] - s->pa[a]));
        }
        /* the estimate is first order in the links' motion: once they may have moved farther
         * than the last measure was beyond the safe distance, it guarantees nothing (two feet's
         * cylinders rolling on each other: 5.1 mm estimated, 7.9 mm deep) */
        double safe = safe_distance(w, k);
        int unsure = since > w->t.collision_tolerance && s->dist - since < safe;
        int stale = since >= w->t.collision_lookahead || unsure ||
                    (since >= w->t.collision_remeasure && *dist < w->t.collision_influence);
        if (!again || !stale) return 1;
        if (bound(w, s, la, lb, moved)) return 0;
        /* along the last normal, while it still separates them by the safe distance and the
         * links may have moved less than collision_replane since GJK found it: a lower bound, so
         * a pair is never let nearer than it may come (pairs resting near their safe distance
         * were measured by GJK at every step); beyond, the plane may be one a limb turning
         * about the body should have left long ago, and the rows keeping to it hold the limb */
        if (moved - s->gjk_moved < w->t.collision_replane && measure_along(w, s, p, moved, safe)) {
            since = 0;
            continue;
        }
        measure(w, s, p, moved), since = 0;
    }
    return 0;
}

static int by_margin(const void *a, const void *b) {
    double x = ((const rt_near *)a)->margin, y = ((const rt_near *)b)->margin;
    return (x > y) - (x < y);
}

/* A row keeping watched pair k its safe distance apart (velocity damper). */
KG_AVX2_CLONE static void pair_row(rt_step *w, int k) {
    const kg_retarget_robot *rr = w->rr;
    const int nx = w->nx, p = rr->watch[k];
    double dist, nv[3], pa[3], pb[3], norm = 0;
    pair_state(w, k, &dist, nv, pa, pb); /* as just measured: carried, not measured again */
    rt_point_jacobian(w, rr->cm.pair_b[p], pb, w->J, NULL);
    rt_point_jacobian(w, rr->cm.pair_a[p], pa, w->J2, NULL);
    rt_clear_marks(w);
    /* the distance's rate: n'(J_b - J_a), summed as ((0 + x) + y) + z. Through restrict
     * pointers and a local sum, not w->row[c] +=: the compiler may then assume the row
     * aliases neither Jacobian, and the loop over c vectorises (the same operations) */
    double *restrict row = w->row;
    const double *restrict jb = w->J, *restrict ja = w->J2;
    for (int c = 0; c < nx; c++) {
        double r = 0;
        for (int i = 0; i < 3; i++) r += nv[i] * (jb[i * nx + c] - ja[i * nx + c]);
        row[c] = r;
    }
    for (int c = 0; c < nx; c++) norm += row[c] * row[c];
    if (norm > 1e-12) /* else nothing between them moves */
        keep_above(w, KG_SLACK_COLLISION, w->row, dist - safe_distance(w, k), w->t.collision_gain);
}

/* Watched pairs nearer than collision_influence stay their safe distance
 * apart: at most collision_rows of them, the nearest to it (w->collision_capped
 * says when some were left out). Evaluating the merit, the violations only. */
KG_AVX2_CLONE static void collision_rows(rt_step *w) {
    const kg_retarget_robot *rr = w->rr;
    const kg_retarget_tuning *t = &w->t;
    if (!w->avoid) return;
    int nn = 0;
    for (int k = 0; k < rr->nwatch; k++) {
        double dist, nv[3], pa[3], pb[3];
        const int *ab = w->pair_links + 2 * k;
        if (w->link_moved[ab[0]] + w->link_moved[ab[1]] < w->wake[k]) continue; /* far, as pair_state() says */
        if (!pair_state(w, k, &dist, nv, pa, pb) || dist >= t->collision_influence) continue;
        if (w->eval) keep_above(w, KG_SLACK_COLLISION, NULL, dist - safe_distance(w, k), t->collision_gain);
        else w->near[nn++] = (rt_near){k, dist - safe_distance(w, k)};
    }
    if (nn > t->collision_rows) {
        qsort(w->near, (size_t)nn, sizeof *w->near, by_margin);
        nn = t->collision_rows, w->collision_capped = 1;
    }
    for (int i = 0; i < nn; i++) pair_row(w, w->near[i].k);
}

/* The COM (x, y) onto the balance's reference: approached, never left, its
 * miss corrected at w_slack[KG_SLACK_BALANCE]. A row, not a cost: the ZMP of
 * a sampled COM magnifies its error about fifty times at 30 frames/s, and as
 * a cost (w_com) the COM gave way to the tasks it competes with (a foot
 * turning, a limb's direction) by centimetres for a frame or two: a dance's
 * ZMP left the soles on 21 % of its contact frames as a cost, 8 % as a row. */
static void com_rows(rt_step *w, const rt_goal *g) {
    if (!w->balance || !g->src) return;
    if (!w->eval) rt_com_rows(w, w->J);
    if (!w->rr->rolls_feet) { /* forward only: sideways, the feet cannot carry it (robot.c) */
        const double *P = g->src->pelvis_R;
        double f[2] = {P[0], P[3]}, n = hypot(f[0], f[1]);
        if (!(n > 0)) return;
        f[0] /= n, f[1] /= n;
        if (!w->eval) {
            for (int c = 0; c < w->nx; c++) w->row[c] = f[0] * w->J[c] + f[1] * w->J[w->nx + c];
            memset(w->mark, 1, (size_t)w->nx);
        }
        approach(w, KG_SLACK_BALANCE, w->row, f[0] * (g->src->com_ref[0] - w->com[0]) + f[1] * (g->src->com_ref[1] - w->com[1]));
        if (!w->eval) rt_clear_marks(w);
        return;
    }
    for (int a = 0; a < 2; a++) {
        if (!w->eval) memset(w->mark, 1, (size_t)w->nx);
        approach(w, KG_SLACK_BALANCE, w->J + a * w->nx, g->src->com_ref[a] - w->com[a]);
    }
    if (!w->eval) rt_clear_marks(w);
}

/* The root link's speed, where it is not at the pelvis (the hub, whose speed
 * the bounds hold): its way since the frame before stays within root_speed dt
 * on each axis, a third of the square of it (as the bounds), to first order
 * in the step: x[0..2] + x[3..5] x (base - hub). A row standing still meets. */
static void root_rows(rt_step *w) {
    if (w->eval || !w->have_prev) return;
    const double *b = w->d->base_pos, v = w->t.root_speed * w->dt / sqrt(3);
    const double arm[3] = {b[0] - w->hub[0], b[1] - w->hub[1], b[2] - w->hub[2]};
    if (!(kg_vec3_norm(arm) > 1e-9)) return;
    for (int a = 0; a < 3; a++) {
        double *lo, *hi, dp = b[a] - w->base_prev[a];
        lo = in_row(w, fmin(-v - dp, 0));
        hi = in_row(w, -fmax(v - dp, 0));
        memset(lo, 0, w->nx * sizeof *lo);
        lo[a] = 1; /* (w x arm)_a */
        lo[3 + (a + 1) % 3] = arm[(a + 2) % 3], lo[3 + (a + 2) % 3] = -arm[(a + 1) % 3];
        for (int c = 0; c < w->nx; c++) hi[c] = -lo[c];
    }
}

/* A polytope inside the ball of radius v about -d, on the three unknowns
 * from x[first]: n'(d + x) <= v / RT_ROOT_POLYTOPE over the 20 edges' and
 * corners' directions n of a cube (its faces' are the bounds on x, step.c):
 * the polytope's farthest point is RT_ROOT_POLYTOPE of its planes'
 * distance, and it holds a straight move in any direction to at least
 * 1 / 1.13 of v. Each axis bounded by a third of the square (a box inside
 * the ball) held a straight run to 2.31 m/s of the 4: a sprint's robot fell
 * 0.67 m behind its source in 19 frames. A row standing still meets. */
static void ball_rows(rt_step *w, int first, const double d[3], double v) {
    const double lim = v / RT_ROOT_POLYTOPE - w->t.limit_margin;
    for (int i = -1; i <= 1; i++)
        for (int j = -1; j <= 1; j++)
            for (int k = -1; k <= 1; k++) {
                if (abs(i) + abs(j) + abs(k) < 2) continue; /* the faces' are the bounds */
                const double s = 1 / sqrt(abs(i) + abs(j) + abs(k)), n[3] = {i * s, j * s, k * s};
                double *row = in_row(w, -fmax(lim - kg_vec3_dot(n, d), 0)); /* -n'x >= -(lim - n'd) */
                memset(row, 0, w->nx * sizeof *row);
                for (int a = 0; a < 3; a++) row[first + a] = -n[a];
            }
}

/* The pelvis's move and the body's turn since the frame before (w->moved,
 * w->turned) within root_speed dt and root_turn_speed dt (ball_rows). */
static void hub_speed_rows(rt_step *w) {
    if (w->eval || !w->have_prev) return;
    ball_rows(w, 0, w->moved, w->t.root_speed * w->dt);
    ball_rows(w, 3, w->turned, w->t.root_turn_speed * w->dt);
}

void rt_constraints(rt_step *w, const rt_goal *g) {
    w->neq = w->nin = w->nsoft = 0;
    memset(w->viol, 0, sizeof w->viol);
    stance_rows(w, g);
    ground_rows(w, g);
    body_ground_rows(w);
    collision_rows(w);
    com_rows(w, g);
    root_rows(w);
    hub_speed_rows(w);
}
