/* The report: the figures of the whole clip, computed from the output motion
 * itself (the robot's kinematics at every frame) against the source, on every
 * frame: a figure taken only over the frames the solver judged in contact
 * could not see the frames it misjudged. What only the solve knows (slack,
 * the meshes' overlaps) comes from its per-frame log. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/ik.h"
#include "analysis/jacobian.h"
#include "analysis/retarget/internal.h"
#include "core/fk.h"
#include "core/spatial.h"

/* Thresholds of the figures (they define them; the README states them). */
#define FAST_ROOT 4.0       /* m/s: a root faster than this between frames has jumped */
#define ON_GROUND 0.005     /* m: a sole point this near the ground touches it (slip) */
#define NEAR_GROUND 0.02    /* m: hover: no sole this near the ground while the source stands */
#define DEEP_COLLISION 0.005 /* m: an overlap deeper than this */
#define LIMIT_TOL 1e-9      /* rad, m, relative for speeds: rounding */
#define POSE_OFF 20.0       /* deg: a segment this far off its source's direction is "off", and held
                             * by a limit when a joint between the pelvis and it is at one of its
                             * position limits (RT_AT_LIMIT) ... */
#define AT_SPEED 1e-2       /* ... or held by its speed when such a joint moved over the frame within
                             * this fraction of its velocity limit (none at a position limit) */
#define SLIP_SPEED 0.02     /* m/s: a sole on the ground moving faster marks its frame (KG_FRAME_SLIP) */
#define DEEP_GROUND 0.005   /* m: a foot deeper into the ground marks its frame (KG_FRAME_PENETRATION) */
#define LOW_HIPS 0.3        /* leg lengths: the robot's hips this much lower than the source's (on the
                             * robot's scale) are low: the robot fell or sank where the source did not */

const char *kg_retarget_frame_flag_name(int k) {
    static const char *const names[KG_NFRAME_FLAG] = {
        "contact_left", "contact_right", "slip",        "penetration", "hover",    "self_collision",
        "self_collision_deep", "zmp_outside", "com_outside", "limit", "velocity", "root_fast", "seated",
        "hips_low"};
    return k >= 0 && k < KG_NFRAME_FLAG ? names[k] : NULL;
}

const char *kg_retarget_segment_name(int k) {
    static const char *const names[KG_NSEGMENT] = {
        "left_thigh",  "left_shank",  "left_upper_arm",  "left_forearm",  "right_thigh",
        "right_shank", "right_upper_arm", "right_forearm", "trunk",       "head"};
    return k >= 0 && k < KG_NSEGMENT ? names[k] : NULL;
}

static const int (*const SEG)[2] = rt_limb_segment; /* the limbs' segments, in the report's order */

typedef struct acc {
    double prev_root[3];
    double slip_run[2];         /* the current run's travel */
    int run_len[2];
    double slip_sum;
    double corners_prev[2][6][3];
    int touching_prev[2][6];
    double *angles;             /* [nframes * KG_NSEGMENT] */
    int nangles;
    double seg_sum[KG_NSEGMENT];
    int seg_n[KG_NSEGMENT];
    int seg_off[KG_NSEGMENT], seg_held[KG_NSEGMENT]; /* segment-frames off; of them held by a limit */
    int seg_slow[KG_NSEGMENT];  /* ... and of them held by a velocity limit (none by a position limit) */
    double (*com)[2];
    double (*feet)[2][4];       /* [nframes] each foot link's x, y, z, yaw */
    int zmp_frames, zmp_out, double_out, com_out, hover;
    int com_frames, double_frames; /* the contact and double-support frames the source is not seated */
    int zmp_ref_out, zmp_foreseen_out; /* the ZMP out and its reference's too; the foreseen COM's out */
    double kp_sum;
    long kp_n;
    unsigned *flags;            /* o->frame_flags, or NULL */
} acc;

static void flag(acc *A, int f, unsigned what) {
    if (A->flags) A->flags[f] |= what;
}

/* u in the heading frame whose lateral axis is lat (flattened): x forward, y left, z up. */
static void in_heading(const double lat_[3], const double u_[3], double out[3]) {
    double lat[3] = {lat_[0], lat_[1], 0}, fwd[3], z[3] = {0, 0, 1}, u[3];
    rt_normalize(lat);
    kg_vec3_cross(fwd, lat, z);
    kg_vec3_copy(u, u_);
    rt_normalize(u);
    out[0] = kg_vec3_dot(u, fwd), out[1] = kg_vec3_dot(u, lat), out[2] = u[2];
}

static double angle_deg(const double a[3], const double b[3]) {
    double c = kg_vec3_dot(a, b);
    return acos(c > 1 ? 1 : c < -1 ? -1 : c) * (180 / 3.14159265358979323846);
}

/* Is a joint on the way from the root to link l (its path's columns) within
 * RT_AT_LIMIT of a position limit (1), or else, with the frame before's pose qp,
 * moving within AT_SPEED of its velocity limit (2)? 0: neither. (Joints above
 * the pelvis turn the whole body, which the heading frames leave out; they are
 * rarely at a limit.) */
static int held_by(const kg_retarget_robot *rr, const kg_data *d, const double *qp, double vdefault, double dt,
                         int l) {
    if (rt_at_limit(rr, d->q, l)) return 1;
    for (int e = 0; qp && l >= 0 && e < rr->path_count[l]; e++) {
        int c = rr->path[rr->path_first[l] + e].col - 6, qi = c >= 0 ? rr->qidx[c] : -1;
        double vm = c >= 0 && rr->vmax[c] > 0 ? rr->vmax[c] : vdefault;
        if (qi >= 0 && isfinite(vm) && fabs(d->q[qi] - qp[qi]) >= (1 - AT_SPEED) * vm * dt) return 2;
    }
    return 0;
}

/* The link whose joints above it turn segment k: its distal part's (the trunk: both shoulders'). */
static int held_segment(const kg_retarget_robot *rr, const kg_data *d, const double *qp, double vdefault, double dt,
                        int k) {
    if (k < 8) return held_by(rr, d, qp, vdefault, dt, rr->map.link[SEG[k][1]]);
    if (k == 8) {
        int a = held_by(rr, d, qp, vdefault, dt, rr->map.link[KG_PART_SHOULDER_L]);
        int b = held_by(rr, d, qp, vdefault, dt, rr->map.link[KG_PART_SHOULDER_R]);
        return a == 1 || b == 1 ? 1 : a | b ? 2 : 0;
    }
    return held_by(rr, d, qp, vdefault, dt, rr->map.link[KG_PART_HEAD]);
}

/* The pose figures of one frame. */
static void pose_frame(const kg_retarget_robot *rr, const kg_data *d, const double *qp, double vdefault, double dt,
                       const rt_frame_source *F, acc *A) {
    double hl[3], hr[3], slat[3], rlat[3], u[3], v[3], su[3], ru[3];
    rt_body_point(rr, d, KG_PART_HIP_L, hl), rt_body_point(rr, d, KG_PART_HIP_R, hr);
    for (int a = 0; a < 3; a++) slat[a] = F->kp[KG_PART_HIP_L][a] - F->kp[KG_PART_HIP_R][a], rlat[a] = hl[a] - hr[a];
    for (int k = 0; k < KG_NSEGMENT; k++) {
        if (k < 8) {
            double pa[3], pb[3];
            rt_body_point(rr, d, SEG[k][0], pa), rt_body_point(rr, d, SEG[k][1], pb);
            for (int a = 0; a < 3; a++) u[a] = F->kp[SEG[k][1]][a] - F->kp[SEG[k][0]][a], v[a] = pb[a] - pa[a];
        } else if (k == 8) {
            double sl[3], sr[3];
            rt_body_point(rr, d, KG_PART_SHOULDER_L, sl), rt_body_point(rr, d, KG_PART_SHOULDER_R, sr);
            for (int a = 0; a < 3; a++) {
                u[a] = 0.5 * (F->kp[KG_PART_SHOULDER_L][a] + F->kp[KG_PART_SHOULDER_R][a] - F->kp[KG_PART_HIP_L][a] -
                              F->kp[KG_PART_HIP_R][a]);
                v[a] = 0.5 * (sl[a] + sr[a] - hl[a] - hr[a]);
            }
        } else {
            if (rr->map.link[KG_PART_HEAD] < 0 || !(kg_vec3_norm(F->head_up) > 0.5)) continue;
            kg_vec3_copy(u, F->head_up);
            kg_mat3_vec(v, d->link_rot + 9 * rr->map.link[KG_PART_HEAD], rr->head_up);
        }
        if (!(kg_vec3_norm(u) > 0) || !(kg_vec3_norm(v) > 0)) continue;
        in_heading(slat, u, su), in_heading(rlat, v, ru);
        double ang = angle_deg(su, ru);
        A->angles[A->nangles++] = ang;
        A->seg_sum[k] += ang, A->seg_n[k]++;
        if (ang > POSE_OFF) {
            int held = held_segment(rr, d, qp, vdefault, dt, k);
            A->seg_off[k]++, A->seg_held[k] += held == 1, A->seg_slow[k] += held == 2;
        }
    }
}

/* Keypoints: hips, knees, elbows, wrists against the source's on the robot's scale. */
static void keypoint_frame(const kg_retarget_robot *rr, const kg_data *d, const rt_frame_source *F, acc *A,
                           kg_retarget_report *rep) {
    static const int parts[8] = {KG_PART_HIP_L, KG_PART_HIP_R, KG_PART_KNEE_L, KG_PART_KNEE_R,
                                 KG_PART_ELBOW_L, KG_PART_ELBOW_R, KG_PART_WRIST_L, KG_PART_WRIST_R};
    for (int k = 0; k < 8; k++) {
        double p[3], e[3];
        rt_body_point(rr, d, parts[k], p);
        for (int a = 0; a < 3; a++) e[a] = p[a] - F->kp[parts[k]][a];
        double mm = kg_vec3_norm(e) * 1e3;
        A->kp_sum += mm, A->kp_n++;
        rep->keypoint_max_mm = fmax(rep->keypoint_max_mm, mm);
    }
}

/* How far the robot's hips (their middle) are below the source's, on the
 * robot's scale; low beyond LOW_HIPS leg lengths. A robot lying on the floor
 * can keep its feet on it, its sole figures clean: this is what says so. */
static void hips_frame(const kg_retarget_robot *rr, const kg_data *d, const rt_frame_source *F, int f, acc *A,
                       kg_retarget_report *rep) {
    double l[3], r[3];
    if (rt_body_point(rr, d, KG_PART_HIP_L, l) < 0 || rt_body_point(rr, d, KG_PART_HIP_R, r) < 0) return;
    double drop = (F->kp[KG_PART_HIP_L][2] + F->kp[KG_PART_HIP_R][2]) / 2 - (l[2] + r[2]) / 2;
    rep->hips_drop_max_mm = fmax(rep->hips_drop_max_mm, drop * 1e3);
    if (drop > LOW_HIPS * rr->leg) rep->hips_low_frames++, flag(A, f, KG_FRAME_HIPS_LOW);
}

/* Slip and penetration of one frame; hover. */
static void feet_frame(const kg_retarget_robot *rr, const kg_data *d, const rt_frame_source *F, int f, acc *A,
                       kg_retarget_report *rep) {
    double lowest_any = INFINITY;
    for (int side = 0; side < 2; side++) {
        int l = rr->map.link[side ? KG_PART_FOOT_R : KG_PART_FOOT_L];
        /* the sole's corners and the points a foot turns on (of its shapes: the rectangle's
         * corners need not be, and a foot turned on one of them moves all four) */
        const double *pl = d->link_pos + 3 * l;
        double c[6][3], low = INFINITY;
        int touch[6];
        rt_sole_at(rr, side, pl, d->link_rot + 9 * l, c);
        for (int e = 0; e < 2; e++) {
            kg_mat3_vec(c[4 + e], d->link_rot + 9 * l, rr->sole_end[side][e]);
            for (int a = 0; a < 3; a++) c[4 + e][a] += pl[a];
        }
        for (int k = 0; k < 6; k++) low = fmin(low, c[k][2]), touch[k] = c[k][2] < ON_GROUND;
        double deepest = low, p[3]; /* the foot's shapes reach lower than the sole when it turns */
        for (int k = 0; k < rr->nfoot_shape[side]; k++) deepest = fmin(deepest, rt_shape_lowest(&rr->cm, d, rr->foot_shape[side][k], p));
        for (int k = 0; k < rr->nfoot_drawn[side]; k++) /* below what it reaches at rest */
            deepest = fmin(deepest, rt_convex_lowest(&rr->foot_drawn[side][k], d, p) - rr->foot_drawn_rest[side][k]);
        lowest_any = fmin(lowest_any, deepest);
        if (F->contact[side]) rep->float_max_mm = fmax(rep->float_max_mm, deepest * 1e3);
        rep->penetration_max_mm = fmax(rep->penetration_max_mm, -deepest * 1e3);
        if (-deepest > DEEP_GROUND) flag(A, f, KG_FRAME_PENETRATION);
        int on = low < ON_GROUND && F->contact[side];
        if (on) {
            if (A->run_len[side] > 0) { /* the least travel of the points touching in both frames */
                double step = INFINITY;
                for (int k = 0; k < 6; k++)
                    if (touch[k] && A->touching_prev[side][k])
                        step = fmin(step, hypot(c[k][0] - A->corners_prev[side][k][0],
                                                c[k][1] - A->corners_prev[side][k][1]));
                if (isfinite(step)) A->slip_run[side] += step;
                if (isfinite(step) && step > SLIP_SPEED * rep->frame_time) flag(A, f, KG_FRAME_SLIP);
            }
            A->run_len[side]++;
        }
        if ((!on || f + 1 == rep->frames) && A->run_len[side] > 0) { /* a run ends */
            if (A->run_len[side] >= 2) {
                rep->slip_max_mm = fmax(rep->slip_max_mm, A->slip_run[side] * 1e3);
                A->slip_sum += A->slip_run[side] * 1e3, rep->stance_runs++;
            }
            A->run_len[side] = 0, A->slip_run[side] = 0;
        }
        memcpy(A->corners_prev[side], c, sizeof c);
        memcpy(A->touching_prev[side], touch, sizeof touch);
    }
    A->hover += F->standing && lowest_any > NEAR_GROUND;
    if (F->standing && lowest_any > NEAR_GROUND) flag(A, f, KG_FRAME_HOVER);
}

/* Root speed; joint limits and speeds. */
static void motion_frame(const kg_retarget_robot *rr, const kg_motion *out, const rt_source *s, int f, acc *A,
                         kg_retarget_report *rep) {
    const kg_model *m = rr->model;
    const double *q = out->q + (size_t)f * out->nq, *qp = f > 0 ? q - out->nq : NULL, *root = out->base + 7 * f;
    if (f > 0) {
        double v = hypot(hypot(root[0] - A->prev_root[0], root[1] - A->prev_root[1]), root[2] - A->prev_root[2]) / s->dt;
        const double *a = s->f[f - 1].kp[KG_PART_PELVIS], *b = s->f[f].kp[KG_PART_PELVIS];
        double vs = hypot(hypot(b[0] - a[0], b[1] - a[1]), b[2] - a[2]) / s->dt;
        rep->root_speed_max = fmax(rep->root_speed_max, v), rep->root_fast_frames += v > FAST_ROOT;
        if (v > FAST_ROOT) flag(A, f, KG_FRAME_ROOT_FAST);
        rep->source_root_speed_max = fmax(rep->source_root_speed_max, vs), rep->source_root_fast_frames += vs > FAST_ROOT;
    }
    kg_vec3_copy(A->prev_root, root);
    for (int c = 0; c < m->dof; c++) {
        int qi = rr->qidx[c];
        if (qi < 0) continue;
        if (q[qi] < rr->lower[c] - LIMIT_TOL || q[qi] > rr->upper[c] + LIMIT_TOL)
            rep->limit_violations++, flag(A, f, KG_FRAME_LIMIT);
        double vm = rr->vmax[c];
        if (qp && vm > 0 && isfinite(vm) && fabs(q[qi] - qp[qi]) > vm * s->dt * (1 + LIMIT_TOL) + LIMIT_TOL)
            rep->velocity_violations++, flag(A, f, KG_FRAME_VELOCITY);
    }
}

/* The ZMP of every frame with a foot down and the source not seated (the cart-table model on the
 * output's COM, zmp_step differences), against the support polygon of the
 * robot's soles whose source feet are down; the COM on double support; the
 * ZMPs of the balance's COM reference and of its foreseen one against the
 * same polygon (why the output's was out). */
static void balance_figures(const kg_retarget_robot *rr, const rt_source *s, const kg_retarget_options *o, acc *A,
                            kg_retarget_report *rep) {
    int n = s->nframes, H = rt_window(o->tune.zmp_step, s->dt, n, 1, 0);
    rep->zmp_margin_min_mm = rep->com_margin_min_mm = INFINITY;
    for (int f = 0; f < n; f++) {
        const rt_frame_source *F = &s->f[f];
        int down = F->contact[0] + F->contact[1];
        if (!down || F->seated) continue;
        A->com_frames++, A->double_frames += down == 2;
        double poly[8][2];
        int np = rt_support_polygon(rr, F->contact, (const double(*)[4])A->feet[f], poly);
        double dc = rt_polygon_distance((const double(*)[2])poly, np, A->com[f], 0, NULL);
        rep->com_margin_min_mm = fmin(rep->com_margin_min_mm, dc * 1e3);
        A->com_out += dc < 0, A->double_out += down == 2 && dc < 0;
        if (dc < 0) flag(A, f, KG_FRAME_COM_OUTSIDE);
        if (f - H < 0 || f + H >= n) continue;
        double z[2], zr[2], zf[2];
        const rt_frame_source *B = &s->f[f - H], *E = &s->f[f + H];
        rt_cart_table_zmp2(A->com[f - H], A->com[f], A->com[f + H], H * s->dt, rr->com_h, z);
        rt_cart_table_zmp2(B->com_ref, F->com_ref, E->com_ref, H * s->dt, rr->com_h, zr);
        rt_cart_table_zmp2(B->com_foreseen, F->com_foreseen, E->com_foreseen, H * s->dt, rr->com_h, zf);
        double dz = rt_polygon_distance((const double(*)[2])poly, np, z, 0, NULL) * 1e3;
        rep->zmp_margin_min_mm = fmin(rep->zmp_margin_min_mm, dz);
        A->zmp_out += dz < 0, A->zmp_frames++;
        A->zmp_ref_out += dz < 0 && rt_polygon_distance((const double(*)[2])poly, np, zr, 0, NULL) < 0;
        A->zmp_foreseen_out += rt_polygon_distance((const double(*)[2])poly, np, zf, 0, NULL) < 0;
        if (dz < 0) flag(A, f, KG_FRAME_ZMP_OUTSIDE);
    }
    if (!isfinite(rep->zmp_margin_min_mm)) rep->zmp_margin_min_mm = 0;
    if (!isfinite(rep->com_margin_min_mm)) rep->com_margin_min_mm = 0;
    rep->com_outside_percent = A->com_frames ? 100.0 * A->com_out / A->com_frames : 0;
    rep->zmp_outside_percent = A->zmp_frames ? 100.0 * A->zmp_out / A->zmp_frames : 0;
    rep->com_outside_double_percent = A->double_frames ? 100.0 * A->double_out / A->double_frames : 0;
    rep->zmp_outside_reference_outside_percent = !o->balance ? -1 : A->zmp_out ? 100.0 * A->zmp_ref_out / A->zmp_out : NAN;
    rep->zmp_outside_foreseen_percent = !o->balance ? -1 : A->zmp_frames ? 100.0 * A->zmp_foreseen_out / A->zmp_frames : 0;
    rep->balance_uncaught_frames = o->balance ? 0 : -1;
    for (int f = 0; f < n && o->balance; f++) rep->balance_uncaught_frames += s->f[f].uncaught;
}

static int by_value(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* Means, the 95th percentile, contact counts, the solve's log. */
static void summaries(const rt_source *s, const rt_frame_log *log, double slack_least, acc *A,
                      kg_retarget_report *rep) {
    int n = s->nframes;
    double sum = 0;
    for (int i = 0; i < A->nangles; i++) sum += A->angles[i];
    rep->pose_mean_deg = A->nangles ? sum / A->nangles : 0;
    qsort(A->angles, (size_t)A->nangles, sizeof *A->angles, by_value);
    rep->pose_p95_deg = A->nangles ? A->angles[(int)floor(0.95 * (A->nangles - 1))] : 0;
    int off = 0, held = 0, slow = 0;
    for (int k = 0; k < KG_NSEGMENT; k++) {
        rep->pose_segment_mean_deg[k] = A->seg_n[k] ? A->seg_sum[k] / A->seg_n[k] : NAN;
        rep->pose_segment_held_percent[k] = A->seg_off[k] ? 100.0 * A->seg_held[k] / A->seg_off[k] : NAN;
        rep->pose_segment_slow_percent[k] = A->seg_off[k] ? 100.0 * A->seg_slow[k] / A->seg_off[k] : NAN;
        off += A->seg_off[k], held += A->seg_held[k], slow += A->seg_slow[k];
    }
    rep->pose_off_percent = A->nangles ? 100.0 * off / A->nangles : 0;
    rep->pose_held_percent = off ? 100.0 * held / off : 0;
    rep->pose_slow_percent = off ? 100.0 * slow / off : 0;
    rep->slip_mean_mm = rep->stance_runs ? A->slip_sum / rep->stance_runs : 0;
    rep->keypoint_mean_mm = A->kp_n ? A->kp_sum / (double)A->kp_n : 0;
    rep->hover_percent = n ? 100.0 * A->hover / n : 0;
    for (int f = 0; f < n; f++) {
        const rt_frame_source *F = &s->f[f];
        for (int side = 0; side < 2; side++) rep->contact_phases += F->contact[side] && (f == 0 || !s->f[f - 1].contact[side]);
        rep->contact_frames += F->contact[0] || F->contact[1];
        rep->double_support_frames += F->contact[0] && F->contact[1];
        rep->seated_frames += F->seated;
        rep->source_cuts += F->cut;
        if (F->seated) flag(A, f, KG_FRAME_SEATED);
        flag(A, f, (F->contact[0] ? KG_FRAME_CONTACT_LEFT : 0) | (F->contact[1] ? KG_FRAME_CONTACT_RIGHT : 0));
        if (!log) continue;
        const rt_frame_log *L = &log[f];
        if (L->collision_depth > 0) rep->self_collision_frames++, flag(A, f, KG_FRAME_SELF_COLLISION);
        if (L->collision_depth > DEEP_COLLISION) rep->self_collision_deep_frames++, flag(A, f, KG_FRAME_SELF_COLLISION_DEEP);
        rep->self_collision_depth_max_mm = fmax(rep->self_collision_depth_max_mm, L->collision_depth * 1e3);
        for (int k = 0; k < KG_NSLACK; k++) {
            rep->slack_frames[k] += L->slack[k] > slack_least;
            rep->slack_max[k] = fmax(rep->slack_max[k], L->slack[k]);
        }
        rep->qp_failures += L->failed;
        rep->iterations_mean += (double)L->iterations / n;
        rep->capped_frames += L->capped;
        rep->collision_capped_frames += L->collision_capped;
        rep->catch_up_frames += L->catching;
        rep->stuck_limbs += L->stuck > 0, rep->stuck_catch_ups += L->stuck == 2;
    }
}

void rt_report(const kg_retarget_robot *rr, const rt_source *s, const kg_motion *out, const rt_frame_log *log,
               const kg_retarget_options *o, kg_retarget_report *rep) {
    const kg_model *m = rr->model;
    const int n = out->nframes;
    rep->frames = n, rep->frame_time = s->dt;
    rep->source_family = s->map.family, rep->leg_scale = s->s_leg, rep->arm_scale = s->s_arm;
    rep->self_collision_frames = rr->have_cm && rr->nwatch > 0 ? 0 : -1;
    acc A;
    memset(&A, 0, sizeof A);
    A.flags = o->frame_flags;
    if (A.flags) memset(A.flags, 0, (size_t)n * sizeof *A.flags);
    kg_data *d = kg_data_new(m);
    double *scratch = malloc(4 * ((size_t)m->nlink + 1) * sizeof *scratch), com[3];
    A.angles = malloc(((size_t)n * KG_NSEGMENT + 1) * sizeof *A.angles);
    A.com = malloc(((size_t)n + 1) * sizeof *A.com), A.feet = malloc(((size_t)n + 1) * sizeof *A.feet);
    if (d && scratch && A.angles && A.com && A.feet) {
        for (int f = 0; f < n; f++) {
            kg_motion_pose(out, f, d);
            kg_fk(m, d);
            motion_frame(rr, out, s, f, &A, rep);
            feet_frame(rr, d, &s->f[f], f, &A, rep);
            pose_frame(rr, d, f > 0 ? out->q + (size_t)(f - 1) * out->nq : NULL, o->tune.joint_speed_default, s->dt,
                       &s->f[f], &A);
            keypoint_frame(rr, d, &s->f[f], &A, rep);
            hips_frame(rr, d, &s->f[f], f, &A, rep);
            kg_com_jacobian(m, d, com, NULL, scratch);
            A.com[f][0] = com[0], A.com[f][1] = com[1];
            for (int side = 0; side < 2; side++) {
                int foot = side ? KG_PART_FOOT_R : KG_PART_FOOT_L, l = rr->map.link[foot];
                double Rr[9];
                kg_mat3_mul_bt(Rr, d->link_rot + 9 * l, rr->rest_rot[foot]);
                A.feet[f][side][0] = d->link_pos[3 * l], A.feet[f][side][1] = d->link_pos[3 * l + 1];
                A.feet[f][side][2] = d->link_pos[3 * l + 2], A.feet[f][side][3] = rt_heading(Rr);
            }
        }
        summaries(s, log, o->tune.slack_least, &A, rep);
        balance_figures(rr, s, o, &A, rep);
    }
    kg_data_free(d);
    free(scratch), free(A.angles), free(A.com), free(A.feet);
}
