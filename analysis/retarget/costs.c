/* The costs of a frame's problem, each task adding w J'J to H and -w J'e to g
 * (e its error, J its Jacobian, w its weight; errors in m, rad, or unit
 * directions): the source's segment directions (thighs, shanks, upper arms,
 * forearms, the trunk from the hips' middle to the shoulders'), the pelvis and
 * chest frames, the head's up direction, the bend of an elbow that bends one
 * way only (its axis across the source's arm), a swinging foot's pose (the source's
 * ankle on the robot's scale, its foot's turn, coming down flat onto the
 * ground as it lands), the hands relative to the shoulders on the robot's arm
 * scale, the COM onto the source's estimate without balance (with it, a row:
 * constraints.c), the pelvis rising and sinking
 * as the source's does, a pull to the previous frame and to the neutral
 * pose, a little damping, and after a cut the pull onto the catch-up's pose. */
#include <math.h>
#include <string.h>

#include "analysis/retarget/step.h"
#include "core/spatial.h"


/* The unit direction from point a (link la) to point b (link lb) onto u_t. */
static void direction_task(rt_step *w, int la, const double a[3], int lb, const double b[3], const double ut[3],
                           double weight) {
    double u[3] = {b[0] - a[0], b[1] - a[1], b[2] - a[2]}, len = kg_vec3_norm(u);
    if (!(len > 1e-6) || !(kg_vec3_norm(ut) > 0.5)) return;
    for (int c = 0; c < 3; c++) u[c] /= len;
    double e[3] = {ut[0] - u[0], ut[1] - u[1], ut[2] - u[2]};
    if (rt_merit_only(w, e, 3, weight)) return;
    const int nx = w->nx;
    rt_point_jacobian(w, lb, b, w->J, NULL);
    rt_point_jacobian(w, la, a, w->J2, NULL);
    for (int i = 0; i < 3 * nx; i++) w->J2[i] = w->J[i] - w->J2[i];
    /* d u = (I - u u') d(b - a) / len */
    for (int c = 0; c < nx; c++) {
        double v[3] = {w->J2[c], w->J2[nx + c], w->J2[2 * nx + c]}, uv = kg_vec3_dot(u, v);
        for (int r = 0; r < 3; r++) w->J[r * nx + c] = (v[r] - u[r] * uv) / len;
    }
    rt_add_cost(w, w->J, e, 3, weight);
}

/* Link l's orientation onto Rt. */
static void orientation_task(rt_step *w, int l, const double Rt[9], double weight) {
    double Re[9], e[3];
    kg_mat3_mul_bt(Re, Rt, w->d->link_rot + 9 * l);
    kg_rot_log(Re, e);
    if (rt_merit_only(w, e, 3, weight)) return;
    rt_point_jacobian(w, l, w->d->link_pos + 3 * l, w->J2, w->J);
    rt_add_cost(w, w->J, e, 3, weight);
}

/* Link l's axis a (in its frame) onto the world direction ut: d(R a) = w x R a. */
static void axis_task(rt_step *w, int l, const double a[3], const double ut[3], double weight) {
    double ra[3];
    kg_mat3_vec(ra, w->d->link_rot + 9 * l, a);
    double e[3] = {ut[0] - ra[0], ut[1] - ra[1], ut[2] - ra[2]};
    if (rt_merit_only(w, e, 3, weight)) return;
    rt_point_jacobian(w, l, w->d->link_pos + 3 * l, w->J2, w->J);
    const int nx = w->nx;
    for (int c = 0; c < nx; c++) { /* -[ra]x times the angular column */
        double om[3] = {w->J[c], w->J[nx + c], w->J[2 * nx + c]}, v[3];
        kg_vec3_cross(v, om, ra);
        for (int r = 0; r < 3; r++) w->J2[r * nx + c] = v[r];
    }
    rt_add_cost(w, w->J2, e, 3, weight);
}

/* Point p_b of link lb onto p_a of link la (la < 0: the world) plus offset off. */
static void position_task(rt_step *w, int lb, const double pb[3], int la, const double pa[3], const double off[3],
                          double weight) {
    const int nx = w->nx;
    double e[3];
    for (int c = 0; c < 3; c++) e[c] = (la >= 0 ? pa[c] : 0) + off[c] - pb[c];
    if (rt_merit_only(w, e, 3, weight)) return;
    rt_point_jacobian(w, lb, pb, w->J, NULL);
    if (la >= 0) {
        rt_point_jacobian(w, la, pa, w->J2, NULL);
        for (int i = 0; i < 3 * nx; i++) w->J[i] -= w->J2[i];
    }
    rt_add_cost(w, w->J, e, 3, weight);
}

/* The pose a swinging foot's link aims at: from the source's ankle (its
 * position relative to the pelvis, its height) and foot frame, passing a
 * planted foot on its own side, coming down onto the ground flat, at its
 * landing pose's height and turn, as it lands. A person's ankles pass a
 * centimetre or two apart; aimed there, a robot's wider foot met the standing
 * one and stopped behind it, the collision rows holding it there (a walk's
 * step lost, the ZMP out on 60 % of frames; the corpus's worst walk, ZMP out
 * 43 %, was the same). */
static void swing_target(const rt_step *w, const rt_goal *g, int side, double pos[3], double R[9]) {
    const kg_retarget_robot *rr = w->rr;
    const rt_frame_source *F = g->src;
    const int ankle = side ? KG_PART_ANKLE_R : KG_PART_ANKLE_L, foot = side ? KG_PART_FOOT_R : KG_PART_FOOT_L;
    double off[3];
    kg_mat3_mul(R, F->foot_R[side], rr->rest_rot[foot]);
    kg_mat3_vec(off, R, rr->foot_off[side]);
    for (int a = 0; a < 3; a++) pos[a] = F->kp[ankle][a] + off[a] + (a < 2 ? g->shift[a] : 0);
    if (F->slid[side]) { /* drawn along the floor: stepped flat, clear of it */
        rt_yaw_rot(R, F->foot_yaw[side], rr->rest_rot[foot]);
        pos[2] = fmax(pos[2], rr->foot_h[side] + w->t.slide_clearance);
    }
    if (g->pin[!side].down) {
        double opos[3], oR[9];
        rt_standing_pose(rr, w->d, &g->pin[!side], !side, opos, oR);
        rt_sole_beside(rr, side, pos, R, opos, oR, w->t.sole_gap);
    }
    double u = g->landing[side];
    if (u <= 0) return;
    double Rd[9], wv[3], Ru[9], R0[9];
    for (int a = 0; a < 3; a++) pos[a] += u * (g->land_pos[side][a] - pos[a]);
    kg_mat3_mul_at(Rd, R, g->land_R[side]); /* R turned the fraction u of the way to land_R */
    kg_rot_log(Rd, wv);
    for (int a = 0; a < 3; a++) wv[a] *= u;
    double ang = kg_vec3_norm(wv);
    if (!(ang > 0)) return;
    for (int a = 0; a < 3; a++) wv[a] /= ang;
    kg_rot_axis_angle(Ru, wv, ang);
    kg_mat3_copy(R0, R);
    kg_mat3_mul(R, R0, Ru);
}

/* The limbs' and the trunk's directions. */
static void segment_tasks(rt_step *w, const rt_frame_source *F) {
    const int (*seg)[2] = rt_limb_segment;
    for (int k = 0; k < 8; k++) {
        double a[3], b[3], ut[3];
        int la = rt_part_point(w, seg[k][0], a), lb = rt_part_point(w, seg[k][1], b);
        for (int c = 0; c < 3; c++) ut[c] = F->kp[seg[k][1]][c] - F->kp[seg[k][0]][c];
        rt_normalize(ut);
        /* both ends may be on one link (an arm that ends at its elbow's link: the wrist is a point
         * on it): the link's turn still sets the direction; direction_task skips a zero length */
        if (la >= 0 && lb >= 0) direction_task(w, la, a, lb, b, ut, w->t.w_segment);
    }
}

/* The trunk: the hips' middle to the shoulders' middle. Its Jacobian is the
 * mean of the four points', taken as two direction tasks of half weight
 * each side would not be the same: the middle points are built here. */
static void trunk_task(rt_step *w, const rt_frame_source *F) {
    const int nx = w->nx;
    double hl[3], hr[3], sl[3], sr[3], a[3], b[3], ut[3];
    int l[4] = {rt_part_point(w, KG_PART_HIP_L, hl), rt_part_point(w, KG_PART_HIP_R, hr),
                rt_part_point(w, KG_PART_SHOULDER_L, sl), rt_part_point(w, KG_PART_SHOULDER_R, sr)};
    for (int c = 0; c < 3; c++) {
        a[c] = 0.5 * (hl[c] + hr[c]), b[c] = 0.5 * (sl[c] + sr[c]);
        ut[c] = 0.5 * (F->kp[KG_PART_SHOULDER_L][c] + F->kp[KG_PART_SHOULDER_R][c] - F->kp[KG_PART_HIP_L][c] -
                       F->kp[KG_PART_HIP_R][c]);
    }
    rt_normalize(ut);
    double u[3] = {b[0] - a[0], b[1] - a[1], b[2] - a[2]}, len = kg_vec3_norm(u);
    if (!(len > 1e-6)) return;
    for (int c = 0; c < 3; c++) u[c] /= len;
    double e[3] = {ut[0] - u[0], ut[1] - u[1], ut[2] - u[2]};
    if (rt_merit_only(w, e, 3, w->t.w_segment)) return;
    double *acc = w->J2;
    memset(acc, 0, 3 * (size_t)nx * sizeof *acc);
    const double *pts[4] = {hl, hr, sl, sr};
    for (int k = 0; k < 4; k++) { /* d(b - a) = (dsl + dsr - dhl - dhr) / 2 */
        rt_point_jacobian(w, l[k], pts[k], w->J, NULL);
        double sg = k < 2 ? -0.5 : 0.5;
        for (int i = 0; i < 3 * nx; i++) acc[i] += sg * w->J[i];
    }
    for (int c = 0; c < nx; c++) {
        double v[3] = {acc[c], acc[nx + c], acc[2 * nx + c]}, uv = kg_vec3_dot(u, v);
        for (int r = 0; r < 3; r++) w->J[r * nx + c] = (v[r] - u[r] * uv) / len;
    }
    rt_add_cost(w, w->J, e, 3, w->t.w_segment);
}

/* Each elbow that bends one way only: its axis onto the normal of the
 * source's upper arm and forearm, signed the way it bends, by w_elbow times
 * the sine of the source's bend (a straight arm has no plane). The segments'
 * directions alone leave a straight robot arm's twist where it is (twisting
 * it moves neither): such an elbow, its twist on the wrong side, stayed
 * straight at its limit, and the forearm was reached by turning the upper arm
 * instead (35 degrees off on average on a walk). An elbow that bends either
 * way has no wrong side: the segments' directions suffice. */
static void elbow_tasks(rt_step *w, const rt_frame_source *F) {
    const kg_retarget_robot *rr = w->rr;
    if (!(w->t.w_elbow > 0)) return;
    for (int side = 0; side < 2; side++) {
        int l = rr->elbow_link[side], sh = side ? KG_PART_SHOULDER_R : KG_PART_SHOULDER_L;
        if (l < 0 || rr->elbow_either[side]) continue;
        double ua[3], fa[3], n[3];
        for (int a = 0; a < 3; a++) ua[a] = F->kp[sh + 1][a] - F->kp[sh][a], fa[a] = F->kp[sh + 2][a] - F->kp[sh + 1][a];
        kg_vec3_cross(n, ua, fa);
        double s = kg_vec3_norm(n) / (kg_vec3_norm(ua) * kg_vec3_norm(fa));
        if (!(s > 1e-3)) continue;
        rt_normalize(n);
        axis_task(w, l, rr->elbow_axis[side], n, w->t.w_elbow * s);
    }
}

/* Body frames, the head, the hands. */
static void body_tasks(rt_step *w, const rt_frame_source *F) {
    const kg_retarget_robot *rr = w->rr;
    const int *L = rr->map.link;
    double Rt[9];
    kg_mat3_mul(Rt, F->pelvis_R, rr->rest_rot[KG_PART_PELVIS]);
    orientation_task(w, L[KG_PART_PELVIS], Rt, w->t.w_body);
    if (L[KG_PART_CHEST] != L[KG_PART_PELVIS]) {
        kg_mat3_mul(Rt, F->chest_R, rr->rest_rot[KG_PART_CHEST]);
        orientation_task(w, L[KG_PART_CHEST], Rt, w->t.w_body);
    }
    if (L[KG_PART_HEAD] >= 0 && kg_vec3_norm(F->head_up) > 0.5)
        axis_task(w, L[KG_PART_HEAD], rr->head_up, F->head_up, w->t.w_head);
    for (int side = 0; side < 2; side++) {
        int sh = side ? KG_PART_SHOULDER_R : KG_PART_SHOULDER_L, wr = sh + 2;
        double ps[3], pw[3], off[3];
        int ls = rt_part_point(w, sh, ps), lw = rt_part_point(w, wr, pw);
        if (ls < 0 || lw < 0) continue;
        for (int a = 0; a < 3; a++) off[a] = F->kp[wr][a] - F->kp[sh][a];
        position_task(w, lw, pw, ls, ps, off, w->t.w_hand);
    }
}

/* A swinging foot's pose; the COM; the pelvis's rise and fall. */
static void feet_com_tasks(rt_step *w, const rt_goal *g) {
    const kg_retarget_robot *rr = w->rr;
    const int *L = rr->map.link;
    const kg_retarget_tuning *t = &w->t;
    for (int side = 0; side < 2; side++) {
        int l = L[side ? KG_PART_FOOT_R : KG_PART_FOOT_L];
        if (g->pin[side].down && g->pin[side].pivot) { /* turning on the ground as the source's foot does, flat */
            double R[9];
            rt_yaw_rot(R, g->pivot_yaw[side], rr->rest_rot[side ? KG_PART_FOOT_R : KG_PART_FOOT_L]);
            orientation_task(w, l, R, t->w_pivot);
        }
        if (g->pin[side].down && g->pin[side].slide) { /* settling: onto its pin, flat on the ground */
            double zero[3] = {0, 0, 0};
            position_task(w, l, w->d->link_pos + 3 * l, -1, zero, g->pin[side].pos, t->w_landing);
            orientation_task(w, l, g->pin[side].R, t->w_landing);
        }
        if (g->pin[side].down) continue;
        double pos[3], R[9], zero[3] = {0, 0, 0}, u = g->landing[side];
        swing_target(w, g, side, pos, R);
        double wp = t->w_swing + u * u * (t->w_landing - t->w_swing), wr = t->w_swing_turn + u * u * (t->w_landing - t->w_swing_turn);
        position_task(w, l, w->d->link_pos + 3 * l, -1, zero, pos, wp);
        orientation_task(w, l, R, wr);
    }
    if (g->src && !w->balance) { /* the COM, x and y, without balance (a row with it: constraints.c) */
        double e[2] = {g->src->com_ref[0] - w->com[0], g->src->com_ref[1] - w->com[1]};
        if (rt_merit_only(w, e, 2, t->w_com)) return;
        rt_com_rows(w, w->J);
        rt_add_cost(w, w->J, e, 2, t->w_com);
    }
}

/* The pelvis's height: as the source's rises and falls (the driver's target). */
static void height_task(rt_step *w, const rt_goal *g) {
    if (!isfinite(g->pelvis_z)) return;
    int l = w->rr->map.link[KG_PART_PELVIS];
    double e = g->pelvis_z - w->d->link_pos[3 * l + 2];
    if (rt_merit_only(w, &e, 1, w->t.w_height)) return;
    rt_point_jacobian(w, l, w->d->link_pos + 3 * l, w->J, NULL);
    rt_add_cost(w, w->J + 2 * w->nx, &e, 1, w->t.w_height);
}

/* The pull to the previous frame and to the neutral pose, and the damping
 * that keeps H positive definite and each linearised step short. */
static void regularize(rt_step *w) {
    const kg_retarget_robot *rr = w->rr;
    const kg_retarget_tuning *t = &w->t;
    const double wp = w->have_prev ? t->w_previous : 0;
    double dp[3] = {0, 0, 0}, phi[3] = {0, 0, 0};
    if (w->have_prev) {
        double Rd[9];
        for (int a = 0; a < 3; a++) dp[a] = w->hub[a] - w->hub_prev[a];
        kg_mat3_mul_bt(Rd, w->d->base_rot, w->base_prev + 3);
        kg_rot_log(Rd, phi);
    }
    for (int a = 0; a < 3; a++) {
        w->merit += 0.5 * wp * (dp[a] * dp[a] + phi[a] * phi[a]);
        if (w->eval) continue;
        w->H[a * w->nx + a] += wp + t->w_damping, w->g[a] += wp * dp[a];
        w->H[(3 + a) * w->nx + 3 + a] += wp + t->w_damping, w->g[3 + a] += wp * phi[a];
    }
    for (int c = 0; c < w->m->dof; c++) {
        int i = rr->xcol[c], qi = rr->qidx[c];
        if (!w->eval && i >= 0) /* every unknown, whatever qidx says: H stays definite */
            w->H[i * w->nx + i] += wp + t->w_neutral + t->w_damping;
        if (qi < 0) continue;
        double q = w->d->q[qi], dq = w->have_prev ? q - w->q_prev[qi] : 0, dn = q - rr->neutral[qi];
        w->merit += 0.5 * (wp * dq * dq + t->w_neutral * dn * dn);
        if (w->eval || i < 0) continue;
        w->g[i] += wp * dq + t->w_neutral * dn;
    }
}

/* Each driven joint pulled onto g->pull (the catch-up after a cut). */
static void pull_task(rt_step *w, const rt_goal *g) {
    const kg_retarget_robot *rr = w->rr;
    const double k = g->pull_weight;
    if (!g->pull || !(k > 0)) return;
    for (int c = 0; c < w->m->dof; c++) {
        int i = rr->xcol[c], qi = rr->qidx[c];
        if (i < 0 || qi < 0 || !rr->driven[c]) continue;
        double e = w->d->q[qi] - g->pull[qi];
        w->merit += 0.5 * k * e * e;
        if (w->eval) continue;
        w->H[i * w->nx + i] += k, w->g[i] += k * e;
    }
}

void rt_costs(rt_step *w, const rt_goal *g) {
    segment_tasks(w, g->src);
    trunk_task(w, g->src);
    body_tasks(w, g->src);
    elbow_tasks(w, g->src);
    feet_com_tasks(w, g);
    height_task(w, g);
    regularize(w);
    pull_task(w, g);
}
