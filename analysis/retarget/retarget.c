/* The driver: the stages of retarget.h in order. Source and balance work on
 * the whole clip; then each frame is one constrained solve (step.c) from the
 * pose the frame before left, given its pins: a foot the source puts down is
 * pinned flat where the robot's foot is as it lands (so it lands without
 * sliding), and stays pinned until the source lifts it. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/retarget/internal.h"
#include "core/fk.h"
#include "core/spatial.h"

const char *kg_slack_kind_name(int kind) {
    static const char *const names[KG_NSLACK] = {"stance", "ground", "collision", "balance", "loop"};
    return kind >= 0 && kind < KG_NSLACK ? names[kind] : NULL;
}

/* Per clip: the stages' state. */
typedef struct run {
    const kg_retarget_robot *rr;
    const kg_retarget_options *o;
    rt_source s;
    rt_balancer bal;
    rt_step *step;
    int H, K;                /* the ZMP's difference step, the landing's, in frames */
    double (*com)[2];        /* [nframes] the output's COM */
    unsigned char (*down)[2];
    double (*feet)[2][4];    /* [nframes] the pinned feet: x, y, z, yaw */
    rt_pin pin[2];
    double shift[2];         /* the robot's footholds' offset from the source's, at the last landing */
    double miss[2][2];       /* each foot's offset from that, at its own last landing (fading as the shift) */
    double pelvis_z;         /* the pelvis's height target of the frame before */
    int posed;               /* the robot has a pose (settle() has run) */
    rt_frame_log *log;
    kg_collision_work *cw;
    unsigned char *check, *hit;
    rt_step *shadow, *other; /* the catch-up's solves (catch_up()) */
    int catch_end;           /* the frame the running catch-up ends at the latest (-1: none) */
    int stuck_next;          /* the first frame a stuck limb may be solved afresh again */
    int stuck_from;          /* the first frame of the limbs' present stuck run (-1: none stuck) */
} run;

static void standing_pose(const run *R, int side, double pos[3], double Rf[9]) {
    rt_standing_pose(R->rr, rt_step_data(R->step), &R->pin[side], side, pos, Rf);
}

/* Moves side's foot at pos (turned by Rf) off the other foot's sole, gap
 * clear, when the other is planted (rt_sole_clear); returns 1 when it moved. */
static int clear_of_other(const run *R, int side, double pos[3], const double Rf[9], double gap) {
    if (!R->pin[!side].down) return 0;
    double opos[3], oR[9];
    standing_pose(R, !side, opos, oR);
    return rt_sole_clear(R->rr, side, pos, Rf, opos, oR, gap);
}

/* Turning as the source's foot turns, not onto its heading at once: a foot
 * set down turned away from the source's (the robot's legs do not reach
 * every turn) made up the whole difference on its pivot in a frame (up to
 * 0.8 rad in the mini matrix) and slid; held, the difference kept the leg
 * twisted for the whole contact (pose error). */
double rt_pivot_yaw(const rt_pin *p, const rt_source *s, int side, int j, const kg_retarget_tuning *t) {
    const double two_pi = 2 * 3.14159265358979323846, src = s->f[j].foot_yaw[side];
    double off = remainder(p->yaw - p->src_yaw, two_pi);
    double k = t->pivot_catch_up > 0 ? exp(-(j - p->f0) * s->dt / t->pivot_catch_up) : 0;
    return src + k * off;
}

/* A planted foot's push-off begins: its sole's front edge is held where the
 * pin has it, the heel free to rise. */
static void push_off(run *R, int side) {
    rt_pin *p = &R->pin[side];
    const double (*c)[3] = R->rr->sole[side], *fwd = R->rr->rest_rot[side ? KG_PART_FOOT_R : KG_PART_FOOT_L];
    double mid[3] = {0, 0, 0}, along[4]; /* fwd: the world's x at rest in the foot's frame (a row) */
    for (int k = 0; k < 4; k++) along[k] = kg_vec3_dot(c[k], fwd);
    int front[2], nf = 0;
    for (int k = 0; k < 4; k++) {
        int ahead = 0; /* the front edge: the two corners farthest forward */
        for (int j = 0; j < 4; j++) ahead += along[j] > along[k] || (along[j] == along[k] && j < k);
        if (ahead < 2) front[nf++] = k;
    }
    for (int a = 0; a < 3; a++) mid[a] = (c[front[0]][a] + c[front[1]][a]) / 2, p->roll_edge[a] = c[front[1]][a] - c[front[0]][a];
    rt_normalize(p->roll_edge);
    kg_mat3_vec(p->roll_at, p->R, mid);
    for (int a = 0; a < 3; a++) p->roll_at[a] += p->pos[a];
    p->roll = 1;
}

/* Where foot `side`, set down tilted, lies once turned flat (p->R) about the
 * sole corner that touched first: that corner stays where it is (a foot
 * pinned at its link's place was turned flat about the link and slid its
 * touching corner along the ground: 0.46 rad of tilt, over 25 cm of slip). */
static void laid_flat(const run *R, int side, rt_pin *p) {
    const kg_data *d = rt_step_data(R->step);
    int l = R->rr->map.link[side ? KG_PART_FOOT_R : KG_PART_FOOT_L], low = 0;
    double c[4][3], flat[3];
    rt_sole_at(R->rr, side, d->link_pos + 3 * l, d->link_rot + 9 * l, c);
    for (int k = 1; k < 4; k++)
        if (c[k][2] < c[low][2]) low = k;
    kg_mat3_vec(flat, p->R, R->rr->sole[side][low]);
    p->pos[0] = c[low][0] - flat[0], p->pos[1] = c[low][1] - flat[1];
    kg_vec3_copy(p->hold, R->rr->sole[side][low]);
}

/* The first frame of the contact of side that holds frame f. */
static int contact_start(const run *R, int side, int f) {
    while (f > 0 && R->s.f[f - 1].contact[side]) f--;
    return f;
}

/* How near the ground a sole is pinned: pin_height, or as far as a foot
 * coming down at pin_speed goes in a frame when that is farther, up to
 * pin_height_max. Sampled at 30 frames/s, a landing foot is a centimetre or
 * two up in the frame before it would touch, and one lifted that much by the
 * other foot's push-off was never pinned: the source then lifted its other
 * foot and the robot stood on neither (a dance: its pelvis 0.4 m down, pose
 * p95 121 degrees). Capped: a foot pinned far up is dragged down by its
 * pin's rows and slides. */
static double pin_near(const run *R) {
    const kg_retarget_tuning *t = &R->o->tune;
    return kg_fmax(t->pin_height, kg_fmin(t->pin_speed * R->s.dt, t->pin_height_max));
}

/* A foot the source puts down at f is pinned flat where the robot's is, once
 * the robot's sole is within pin_near() of the ground; higher (held back on
 * its way: a stride longer than the robot's legs reach, a shin in the way),
 * it comes straight down (landing()) and is pinned where it arrives: pinned
 * in the air, it was dragged flat onto the ground along its pin's rows and
 * slid (5 cm up, over 10 cm of slip). Flat first: the whole sole within
 * that, for up to landing_time after the source put it down (then as
 * it is, its lowest corner kept): pinned tilted, turned flat by the rows and
 * pivoting at once, a foot slid 70-160 mm. Clear of the other planted sole
 * first, for as long: waiting, the landing's target (cleared of it) takes it
 * aside in the air; a foot pinned there, or moved off it onto a pin where it
 * is not, slid. Returns 1 when one was pinned. */
static int set_pins(run *R, int f) {
    const kg_retarget_robot *rr = R->rr;
    const kg_data *d = rt_step_data(R->step);
    int landed = 0;
    for (int side = 0; side < 2; side++) {
        rt_pin *p = &R->pin[side];
        if (!R->s.f[f].contact[side]) {
            p->down = 0, p->roll = 0;
            continue;
        }
        if (p->down && !p->pivot && !p->roll && R->s.f[f].on_toes[side]) push_off(R, side);
        if (p->down) continue;
        double low, high;
        rt_step_sole_span(R->step, side, &low, &high);
        const double near = pin_near(R);
        if (f > 0 && low > near) continue;
        const int waiting = f > 0 && f - contact_start(R, side, f) < R->K; /* within landing_time */
        if (waiting && high > near) continue; /* tilted: flat first */
        int foot = side ? KG_PART_FOOT_R : KG_PART_FOOT_L, l = rr->map.link[foot];
        double yaw, Rr[9];
        if (f == 0 && !R->posed) { /* no pose yet: where the source's foot is planned */
            const double *pl = R->s.f[0].pin[side];
            p->pos[0] = pl[0], p->pos[1] = pl[1], yaw = pl[3];
        } else {
            kg_mat3_mul_bt(Rr, d->link_rot + 9 * l, rr->rest_rot[foot]);
            yaw = rt_heading(Rr);
        }
        p->pos[2] = rr->foot_h[side];
        p->hold[0] = p->hold[1] = p->hold[2] = 0;
        rt_yaw_rot(p->R, yaw, rr->rest_rot[foot]);
        if (f > 0 || R->posed) laid_flat(R, side, p);
        /* not on the other foot's sole (the robot's feet are larger than a person's, set down
         * where the source's landed they can overlap): waiting, the landing's target takes it
         * aside in the air; once the wait is over it is pinned where it is, as any foot (a pin
         * moved off the other sole made the foot slide there, up to 19 mm) */
        double probe[3]; /* clear_of_other moves this copy: only whether it had to counts */
        kg_vec3_copy(probe, p->pos);
        if (waiting && clear_of_other(R, side, probe, p->R, 0)) continue; /* on the other sole: aside first */
        p->down = 1, p->roll = 0, landed = 1;
        /* the next steps are the source's from where the robot now stands: aimed at the source's
         * footholds, a robot that fell behind (a stride its legs or joints cannot make) only
         * fell further behind, its swinging foot stretched towards targets out of reach */
        double was[2] = {R->shift[0], R->shift[1]};
        for (int a = 0; a < 2 && f > 0; a++) R->shift[a] = p->pos[a] - R->s.f[f].pin[side][a];
        p->pivot = R->s.f[f].pivot[side];
        /* where it landed against where the balance foresaw it at the swing's start (the source's
         * foothold moved by the shift): a gait's misses repeat foot by foot (a swinging leg kept
         * clear of the standing one lands out by the same centimetres each step) */
        for (int a = 0; a < 2 && f > 0; a++) R->miss[side][a] = p->pos[a] - (R->s.f[f].pin[side][a] + was[a]);
        p->f0 = f, p->yaw = yaw, p->src_yaw = R->s.f[f].foot_yaw[side];
        if (p->pivot) { /* the point it turns on, where it is set down */
            kg_mat3_vec(p->pivot_at, p->R, rr->sole_end[side][p->pivot - 1]);
            for (int a = 0; a < 3; a++) p->pivot_at[a] += p->pos[a];
        }
    }
    return landed;
}

/* A swinging foot within K frames of landing (or of lifting off flat) comes
 * down onto the ground flat, turned as the source's contact plans. One the
 * source has put down already comes straight down, moved sole_gap clear of
 * the other planted sole where it is over it: aimed only just clear, a foot
 * waiting to be pinned off that sole stopped short of it and was then pinned
 * onto it and slid off (8-10 mm). */
static void landing(run *R, int f, rt_goal *g) {
    const kg_retarget_robot *rr = R->rr;
    for (int side = 0; side < 2; side++) {
        g->landing[side] = 0;
        if (R->pin[side].down) continue;
        if (R->s.f[f].contact[side] && f > 0) { /* down at the source, not yet at the robot: straight down */
            const double *now = R->feet[f - 1][side];
            g->landing[side] = 1;
            g->land_pos[side][0] = now[0], g->land_pos[side][1] = now[1], g->land_pos[side][2] = rr->foot_h[side];
            rt_yaw_rot(g->land_R[side], now[3], rr->rest_rot[side ? KG_PART_FOOT_R : KG_PART_FOOT_L]);
            /* moved aside, through the air: aimed along the ground, a foot already touching it slid
             * there (a landing beside a foot pivoting through a spin: 62 mm) */
            if (clear_of_other(R, side, g->land_pos[side], g->land_R[side], R->o->tune.sole_gap))
                g->land_pos[side][2] += R->o->tune.slide_clearance;
            continue;
        }
        for (int j = 1; j <= R->K; j++) {
            int a = f + j, b = f - j, hit = -1;
            if (a < R->s.nframes && R->s.f[a].contact[side]) hit = a;
            else if (b >= 0 && R->s.f[b].contact[side]) hit = b;
            if (hit < 0) continue;
            if (hit < f && R->s.f[hit].on_toes[side]) break; /* left pushing off, heel up: not pulled flat */
            /* landing: turned as planned; lifting off: as it stood */
            const double *pl = hit > f ? R->s.f[hit].pin[side] : R->feet[hit][side];
            const double *sh = hit > f ? R->shift : (const double[2]){0, 0};
            g->landing[side] = 1 - (double)j / (R->K + 1);
            g->land_pos[side][0] = pl[0] + sh[0], g->land_pos[side][1] = pl[1] + sh[1];
            g->land_pos[side][2] = rr->foot_h[side];
            rt_yaw_rot(g->land_R[side], pl[3], rr->rest_rot[side ? KG_PART_FOOT_R : KG_PART_FOOT_L]);
            clear_of_other(R, side, g->land_pos[side], g->land_R[side], R->o->tune.sole_gap);
            break;
        }
    }
}

/* Each swinging foot's horizontal miss, at the frame before f, of the pose
 * the source's foot asks of it (its ankle on the robot's scale, the foot's
 * offset turned as the source's, moved by the footholds' shift): where its
 * next contact will be pinned is planned, moved by the shift and this. */
static void swing_lag(run *R, int f, double lag[2][2]) {
    const kg_retarget_robot *rr = R->rr;
    memset(lag, 0, 2 * sizeof *lag);
    if (f == 0) return;
    const rt_frame_source *F = &R->s.f[f - 1];
    for (int side = 0; side < 2; side++) {
        if (R->pin[side].down) continue;
        const int foot = side ? KG_PART_FOOT_R : KG_PART_FOOT_L, ankle = side ? KG_PART_ANKLE_R : KG_PART_ANKLE_L;
        double Rf[9], off[3];
        kg_mat3_mul(Rf, F->foot_R[side], rr->rest_rot[foot]);
        kg_mat3_vec(off, Rf, rr->foot_off[side]);
        for (int a = 0; a < 2; a++) lag[side][a] = R->feet[f - 1][side][a] - (F->kp[ankle][a] + off[a] + R->shift[a]);
    }
}

/* How far the source's foot moved sideways into frame f: the farther of its
 * ankle's and toe's moves (robot scale; 0 at the first frame). */
static double src_step(const run *R, int f, int side) {
    double most = 0;
    for (int k = 0; k < 2 && f > 0; k++) {
        int p = k ? (side ? KG_PART_FOOT_R : KG_PART_FOOT_L) : (side ? KG_PART_ANKLE_R : KG_PART_ANKLE_L);
        const double *a = R->s.f[f].kp[p], *b = R->s.f[f - 1].kp[p];
        most = fmax(most, hypot(a[0] - b[0], a[1] - b[1]));
    }
    return most;
}

/* The goal of frame f. */
static void goal_at(run *R, int f, rt_goal *g) {
    memset(g, 0, sizeof *g);
    g->src = &R->s.f[f];
    g->first = f == 0;
    /* the shift fades (the robot makes up what it can: absolute targets are the source's path) and
     * is set again by each landing (what it could not make up) */
    const double fade = R->o->tune.shift_fade > 0 ? exp(-R->s.dt / R->o->tune.shift_fade) : 0;
    R->shift[0] *= fade, R->shift[1] *= fade;
    for (int side = 0; side < 2; side++) R->miss[side][0] *= fade, R->miss[side][1] *= fade;
    int landed = set_pins(R, f);
    double lag[2][2];
    swing_lag(R, f, lag);
    rt_balance_frame(&R->bal, &R->s, R->rr, &R->o->tune, f, R->pin, landed, (const double(*)[2])lag,
                     (const double(*)[2])R->miss, R->shift);
    memcpy(g->pin, R->pin, sizeof g->pin);
    memcpy(g->shift, R->shift, sizeof g->shift);
    for (int side = 0; side < 2; side++)
        if (R->pin[side].down && R->pin[side].pivot)
            g->pivot_yaw[side] = rt_pivot_yaw(&R->pin[side], &R->s, side, f, &R->o->tune);
    landing(R, f, g);
    for (int side = 0; side < 2; side++) g->src_step[side] = src_step(R, f, side);
    g->pelvis_z = NAN;
    if (f > 0) { /* the pelvis rises and falls as the source's: from where it is while both feet
                  * stand (the legs set its height), else from the frame before's target - a swing
                  * foot reaching for its landing, or a landing with no foot down, pulled the
                  * pelvis down 0.2-1 m with nothing to bring it back */
        int l = R->rr->map.link[KG_PART_PELVIS];
        double rise = R->s.f[f].kp[KG_PART_PELVIS][2] - R->s.f[f - 1].kp[KG_PART_PELVIS][2];
        double now = rt_step_data(R->step)->link_pos[3 * l + 2], hold = R->o->tune.height_hold;
        double from = now, k = hold > 0 ? exp(-R->s.dt / hold) : 0;
        if (!(R->pin[0].down && R->pin[1].down) && f > 1) /* the target relaxes onto the pelvis */
            from = now + k * (R->pelvis_z - now);
        if (R->s.f[f].seated) { /* on the floor: onto the source's height, not from where the legs hold it */
            double off[3];
            kg_mat3_vec(off, rt_step_data(R->step)->link_rot + 9 * l, R->rr->map.point[KG_PART_PELVIS]);
            double to = R->s.f[f].kp[KG_PART_PELVIS][2] - off[2]; /* the link's origin under the keypoint */
            g->pelvis_z = R->pelvis_z = to + k * ((f > 1 ? R->pelvis_z : now) - to);
        } else {
            g->pelvis_z = R->pelvis_z = from + rise;
        }
    }
}

/* The catch-up after a cut (source.c cuts()) or at a stuck limb
 * (rt_step_stuck): the frame is solved twice more, free of the frame before,
 * from the neutral pose and from the robot's; where the first ends better
 * (its merit; at a stuck limb, at most stuck_gain of the other's: taken at
 * near ties too, the dances' limbs at their limits were pulled about for
 * nothing, ZMP met on 4 runs fewer), that solve follows the source from there and the robot's
 * joints are pulled onto its pose (w_cut) while they are more than
 * cut_tolerance from it, for cut_time at most. Followed at its joints' speeds
 * from where it was, a robot's arm swung the long way round from a T-pose
 * frame onto its limits and stayed there for 15 s of a walk (a cut), another's
 * rolled onto two shoulder limits as the source's arms came forward from a
 * T-pose within half a second (no cut) and stayed there for 10 s; pulled onto
 * the neutral start's pose where that was no better, another robot's arm was
 * taken into a worse branch for 3 s. */
static void catch_up(run *R, int f, rt_goal *g) {
    const kg_retarget_tuning *t = &R->o->tune;
    rt_goal sg = *g;
    rt_step_result res;
    if (!R->shadow || f == 0) return;
    const int window = rt_window(t->stuck_time, R->s.dt, R->s.nframes, 1, 0);
    if (t->stuck_angle > 0 && rt_step_stuck(R->step, &R->s.f[f - 1], t->stuck_angle)) {
        if (R->stuck_from < 0) R->stuck_from = f - 1;
    } else {
        R->stuck_from = -1;
    }
    int stuck = !R->s.f[f].cut && R->catch_end < 0 && R->stuck_from >= 0 && f - R->stuck_from >= window &&
                f >= R->stuck_next;
    if (stuck) R->stuck_next = f + window, R->log[f].stuck = 1;
    if (R->s.f[f].cut || stuck) {
        sg.first = 1;
        rt_step_seed(R->shadow, R->step, 1), rt_step_seed(R->other, R->step, 0);
        rt_step_frame(R->shadow, &sg, &res), rt_step_frame(R->other, &sg, &res);
        R->catch_end = -1;
        double ms = rt_step_merit(R->shadow), mo = rt_step_merit(R->other);
        if (stuck ? ms <= t->stuck_gain * mo : ms < mo)
            R->catch_end = f + rt_window(t->cut_time, R->s.dt, R->s.nframes, 1, 0), R->log[f].stuck *= 2;
    } else if (R->catch_end >= 0) {
        rt_step_frame(R->shadow, &sg, &res);
    }
    if (R->catch_end >= 0) g->pull = rt_step_data(R->shadow)->q, g->pull_weight = t->w_cut;
}

/* The catch-up ends once the robot is near the second solve's pose. */
static void caught_up(run *R, int f) {
    if (R->catch_end < 0) return;
    R->log[f].catching = 1;
    if (f >= R->catch_end || rt_step_joint_gap(R->step, R->shadow) <= R->o->tune.cut_tolerance) R->catch_end = -1;
}

/* The first frame's pose, before its feet are pinned: from the neutral pose
 * under the source's pelvis, the feet the source has down stand flat on the
 * ground, free to slide and turn on it, pulled onto their planned footholds
 * (rt_pin.slide); set_pins() then pins them where they are. Pinned at the
 * plan, a foothold the legs cannot reach together with the other (a stance
 * wider than the hips and ankles allow) held the stance rows on slack for as
 * long as the contact lasted, and the root jumped at the robot's speed limit
 * to make it up when the other foot lifted. */
static void settle(run *R) {
    const kg_retarget_robot *rr = R->rr;
    rt_goal g;
    rt_step_result res;
    memset(&g, 0, sizeof g);
    g.src = &R->s.f[0], g.first = 1, g.pelvis_z = NAN;
    for (int side = 0; side < 2; side++) {
        if (!R->s.f[0].contact[side]) continue;
        const double *pl = R->s.f[0].pin[side];
        rt_pin *p = &g.pin[side];
        p->down = p->slide = 1;
        p->pos[0] = pl[0], p->pos[1] = pl[1], p->pos[2] = rr->foot_h[side];
        rt_yaw_rot(p->R, pl[3], rr->rest_rot[side ? KG_PART_FOOT_R : KG_PART_FOOT_L]);
    }
    rt_step_frame(R->step, &g, &res);
    R->posed = 1;
}

/* The deepest overlap of a watched pair at the pose (meshes confirming hull hits). */
static double overlap(run *R) {
    const kg_retarget_robot *rr = R->rr;
    if (!R->cw) return 0;
    double deepest = 0;
    if (kg_self_collisions(&rr->cm, rt_step_data(R->step), R->cw, R->check, R->hit) == 0) return 0;
    for (int k = 0; k < rr->nwatch; k++) {
        int p = rr->watch[k];
        double depth, dir[3], pos[3];
        if (R->hit[p] && kg_pair_penetration(&rr->cm, R->cw, p, &depth, dir, pos)) deepest = fmax(deepest, fmax(depth, 1e-9));
    }
    return deepest;
}

/* Frame f's output, and what the next frames' goals need of it; -1 when
 * memory runs out. */
static int record(run *R, int f, kg_motion *out, const rt_step_result *res) {
    const kg_data *d = rt_step_data(R->step);
    const kg_retarget_robot *rr = R->rr;
    if (!kg_motion_append(out, d->q)) return -1; /* the motion was made for every frame: not expected */
    double *base = out->base + 7 * f;
    kg_vec3_copy(base, d->base_pos);
    kg_rot_to_quat(d->base_rot, base + 3);
    const double *com = rt_step_com(R->step);
    R->com[f][0] = com[0], R->com[f][1] = com[1];
    for (int side = 0; side < 2; side++) {
        int foot = side ? KG_PART_FOOT_R : KG_PART_FOOT_L, l = rr->map.link[foot];
        double Rr[9];
        kg_mat3_mul_bt(Rr, d->link_rot + 9 * l, rr->rest_rot[foot]);
        R->down[f][side] = (unsigned char)R->pin[side].down;
        R->feet[f][side][0] = d->link_pos[3 * l], R->feet[f][side][1] = d->link_pos[3 * l + 1];
        R->feet[f][side][2] = d->link_pos[3 * l + 2], R->feet[f][side][3] = rt_heading(Rr);
    }
    rt_frame_log *lg = &R->log[f];
    memcpy(lg->slack, res->slack, sizeof lg->slack);
    lg->failed = res->failed;
    lg->iterations = res->iterations, lg->capped = res->capped, lg->collision_capped = res->collision_capped;
    lg->collision_depth = overlap(R);
    return 0;
}

/* The trace: per frame, the source's contacts and pelvis, the balance's COM
 * reference, the robot's root, COM and feet, the pins, the solve's effort. */
static void trace(run *R, int f, const rt_step_result *res) {
    FILE *t = R->o->trace;
    if (!t) return;
    const rt_frame_source *F = &R->s.f[f];
    const kg_data *d = rt_step_data(R->step);
    if (f == 0)
        fprintf(t, "frame,contact_l,contact_r,src_pelvis_x,src_pelvis_y,src_pelvis_z,com_ref_x,com_ref_y,root_x,root_y,"
                   "root_z,com_x,com_y,foot_l_x,foot_l_y,foot_l_z,foot_r_x,foot_r_y,foot_r_z,pin_l,pin_r,iterations,"
                   "failed,slack_stance,slack_ground,slack_collision,slack_balance,collision_mm,src_ankle_l_x,src_ankle_l_y,"
                   "src_ankle_l_z,src_ankle_r_x,src_ankle_r_y,src_ankle_r_z,foot_l_yaw,foot_r_yaw,zmp_ref_x,zmp_ref_y,"
                   "plan_l_x,plan_l_y,plan_l_yaw,plan_r_x,plan_r_y,plan_r_yaw,push_off_l,push_off_r,src_step_l,src_step_r,"
                   "uncaught\n");
    fprintf(t, "%d,%d,%d,%.4f,%.4f,%.4f,%.4f,%.4f,%.4f,%.4f,%.4f,%.4f,%.4f", f, F->contact[0], F->contact[1],
            F->kp[KG_PART_PELVIS][0], F->kp[KG_PART_PELVIS][1], F->kp[KG_PART_PELVIS][2], F->com_ref[0], F->com_ref[1],
            d->base_pos[0], d->base_pos[1], d->base_pos[2], R->com[f][0], R->com[f][1]);
    for (int s = 0; s < 2; s++) fprintf(t, ",%.4f,%.4f,%.4f", R->feet[f][s][0], R->feet[f][s][1], R->feet[f][s][2]);
    fprintf(t, ",%d,%d,%d,%d,%.5f,%.5f,%.5f,%.5f,%.3f", R->pin[0].down, R->pin[1].down, res->iterations,
            res->failed, res->slack[0], res->slack[1], res->slack[2], res->slack[3],
            R->log[f].collision_depth * 1e3);
    for (int s = 0; s < 2; s++) {
        const double *a = F->kp[s ? KG_PART_ANKLE_R : KG_PART_ANKLE_L];
        fprintf(t, ",%.4f,%.4f,%.4f", a[0], a[1], a[2]);
    }
    fprintf(t, ",%.4f,%.4f,%.4f,%.4f", R->feet[f][0][3], R->feet[f][1][3], F->zmp_ref[0], F->zmp_ref[1]);
    for (int s = 0; s < 2; s++) fprintf(t, ",%.4f,%.4f,%.4f", F->pin[s][0], F->pin[s][1], F->pin[s][3]);
    fprintf(t, ",%d,%d,%.5f,%.5f,%d\n", R->pin[0].roll, R->pin[1].roll, src_step(R, f, 0), src_step(R, f, 1), F->uncaught);
}

static int run_alloc(run *R, int n) {
    const kg_retarget_robot *rr = R->rr;
    R->com = malloc((size_t)n * sizeof *R->com), R->down = malloc((size_t)n * sizeof *R->down);
    R->feet = malloc((size_t)n * sizeof *R->feet), R->log = calloc((size_t)n, sizeof *R->log);
    if (!R->com || !R->down || !R->feet || !R->log) return -1;
    if (rr->have_cm && rr->nwatch > 0) {
        R->cw = kg_collision_work_new(&rr->cm);
        R->check = calloc((size_t)rr->cm.npair, 1), R->hit = malloc((size_t)rr->cm.npair);
        if (!R->cw || !R->check || !R->hit) return -1;
        for (int k = 0; k < rr->nwatch; k++) R->check[rr->watch[k]] = 1;
    }
    return 0;
}

static void run_free(run *R) {
    rt_source_free(&R->s);
    rt_balance_free(&R->bal);
    rt_step_free(R->step);
    rt_step_free(R->shadow), rt_step_free(R->other);
    free(R->com), free(R->down), free(R->feet), free(R->log), free(R->check), free(R->hit);
    kg_collision_work_free(R->cw);
}

int kg_retarget_prepared(const kg_retarget_robot *rr, const kg_model *src, const kg_motion *clip,
                         const kg_retarget_options *o_, kg_motion **out, kg_retarget_report *rep, kg_diags *dg) {
    kg_retarget_options o;
    if (o_) o = *o_;
    else kg_retarget_defaults(&o);
    double t0 = rt_now();
    memset(rep, 0, sizeof *rep);
    *out = NULL;
    if (!clip || clip->nframes < 1) {
        kg_diag_add(dg, KG_ERROR, "retarget.no_motion", src->source, 0, NULL, "'%s' has no motion to retarget",
                    src->name ? src->name : "");
        return -1;
    }
    if (o.tune.frame_rate_max > 0 && clip->frame_time > 0 && clip->frame_time * o.tune.frame_rate_max < 1) {
        kg_diag_add(dg, KG_ERROR, "retarget.frame_rate", src->source, 0, NULL,
                    "'%s' has %.6g frames/s (frame time %.6g s), more than the retargeting takes (frame_rate_max "
                    "%.6g: its windows are counted in frames); resample it (kinegraph convert CLIP OUT.bvh --fps N)",
                    src->name ? src->name : "", 1 / clip->frame_time, clip->frame_time, o.tune.frame_rate_max);
        return -1;
    }
    run R;
    memset(&R, 0, sizeof R);
    R.rr = rr, R.o = &o;
    int rc = -1, n = clip->nframes;
    if (rt_source_build(&R.s, src, clip, &o, rr, dg) != 0 || rt_balance(&R.s, rr, &o, &R.bal, dg) != 0) goto done;
    R.H = rt_window(o.tune.zmp_step, R.s.dt, n, 1, 0), R.K = rt_window(o.tune.landing_time, R.s.dt, n, 1, 0);
    R.step = rt_step_new(rr, &o, R.s.dt);
    R.catch_end = -1, R.stuck_from = -1;
    int fresh = o.tune.stuck_angle > 0; /* frames may be solved afresh (catch_up()) */
    for (int f = 1; f < n; f++) fresh += R.s.f[f].cut;
    if (fresh) R.shadow = rt_step_new(rr, &o, R.s.dt), R.other = rt_step_new(rr, &o, R.s.dt);
    *out = kg_motion_new(rr->model->nq, R.s.dt, (size_t)n);
    if (!R.step || (fresh && (!R.shadow || !R.other)) || !*out || run_alloc(&R, n) != 0 ||
        !((*out)->base = malloc((size_t)n * 7 * sizeof(double)))) {
        kg_diag_add(dg, KG_ERROR, "retarget.memory", src->source, 0, NULL, "out of memory");
        goto done;
    }
    rep->setup_seconds = rt_now() - t0;
    double c0 = rt_cpu_now();
    for (int f = 0; f < n; f++) {
        rt_goal g;
        rt_step_result res;
        if (f == 0) settle(&R);
        goal_at(&R, f, &g);
        catch_up(&R, f, &g);
        rt_step_frame(R.step, &g, &res);
        caught_up(&R, f);
        if (record(&R, f, *out, &res) != 0) {
            kg_diag_add(dg, KG_ERROR, "retarget.memory", src->source, 0, NULL, "out of memory");
            goto done;
        }
        trace(&R, f, &res);
    }
    rt_balance_replay(&R.bal, &R.s);
    rt_report(rr, &R.s, *out, R.log, &o, rep);
    double c1 = rt_cpu_now();
    rep->solve_cpu_seconds = isfinite(c1 - c0) ? c1 - c0 : 0;
    rc = 0;
done:
    run_free(&R);
    if (rc != 0 && *out) {
        kg_motion_free(*out);
        *out = NULL;
    }
    rep->seconds = rt_now() - t0;
    return rc;
}

int kg_retarget(const kg_model *src, const kg_motion *clip, const kg_model *robot, const kg_retarget_options *o,
                kg_motion **out, kg_retarget_report *rep, kg_diags *dg) {
    kg_retarget_options dflt;
    if (!o) kg_retarget_defaults(&dflt), o = &dflt;
    double t0 = rt_now();
    kg_retarget_robot *rr = kg_retarget_robot_new(robot, o, dg);
    if (!rr) {
        memset(rep, 0, sizeof *rep);
        *out = NULL;
        rep->seconds = rt_now() - t0;
        return -1;
    }
    int rc = kg_retarget_prepared(rr, src, clip, o, out, rep, dg);
    rep->robot_seconds = rr->seconds;
    rep->setup_seconds += rep->robot_seconds;
    kg_retarget_robot_free(rr);
    rep->seconds = rt_now() - t0;
    return rc;
}
