/* The source stage: the clip at every frame in the robot's world and on its
 * scale, with the floor under its feet tracked locally and the feet's
 * contacts.
 *
 * Frame: the source's up axis is the one its pelvis-above-ankles direction
 * points along over the clip; its facing at the first frame (from its hips)
 * becomes +x, its pelvis there the origin. Scale: the body and legs by the
 * ratio of leg lengths (hip-knee-ankle), the arms from the shoulders by the
 * ratio of arm lengths. Floor: a capture's floor drifts and tilts, so the
 * ground under the feet at a frame is the running low percentile of the
 * ankles' (and the toes') heights over a window of a few seconds, and every
 * height is measured from it; the ankles' level goes to the robot's ankle
 * height. Contacts: a heel (ankle) or toe comes down when it is near its
 * level above the floor and slow, and stays down until it is higher or faster
 * than looser thresholds (hysteresis); a foot is down while either is, and
 * contacts and gaps shorter than min_contact_time are dropped. Each contact
 * gets one planned stance on the ground (for the balance's support polygons):
 * where the source's ankle is slowest as it lands, the foot flat, turned as
 * the source's. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/retarget/internal.h"
#include "core/fk.h"
#include "core/spatial.h"

static const int ANKLE[2] = {KG_PART_ANKLE_L, KG_PART_ANKLE_R}, TOE[2] = {KG_PART_FOOT_L, KG_PART_FOOT_R};

/* The top of the head: of the links below the head, the one that at the
 * first frame lies most nearly along the trunk's up direction from it (the
 * head's end site; a rig's eyes, jaw and face bones point forward), at least
 * HEAD_TOP_COS of the way; -1 when none does. */
#define HEAD_TOP_COS 0.7
static int head_top_link(const kg_model *m, const kg_motion *clip, kg_data *d, const kg_body_map *map) {
    int head = map->link[KG_PART_HEAD], chest = map->link[KG_PART_CHEST];
    if (head < 0 || chest < 0) return -1;
    kg_motion_pose(clip, 0, d);
    kg_fk(m, d);
    const double *P = d->link_pos;
    double up[3] = {P[3 * head] - P[3 * chest], P[3 * head + 1] - P[3 * chest + 1], P[3 * head + 2] - P[3 * chest + 2]};
    rt_normalize(up);
    int best = -1;
    double bc = HEAD_TOP_COS;
    for (int i = head + 1; i < m->nlink; i++) {
        int u = i;
        while (u > head) u = m->link[u].parent;
        if (u != head || m->link[i].real >= 0) continue;
        double v[3] = {P[3 * i] - P[3 * head], P[3 * i + 1] - P[3 * head + 1], P[3 * i + 2] - P[3 * head + 2]};
        double n = kg_vec3_norm(v);
        if (!(n > 0)) continue;
        double c = kg_vec3_dot(v, up) / n;
        if (c > bc) bc = c, best = i;
    }
    return best;
}

/* Cuts: frames where a limb segment of the source (thigh, shank, upper arm,
 * forearm) turned more than cut_angle since the frame before - a T-pose
 * frame before the take, two takes spliced. The robot cannot follow such a
 * jump within its joints' speeds; tracked greedily from where it was, an arm
 * swung the long way round onto its limits and stayed there for seconds (the
 * frame loop's catch-up). */
static void cuts(rt_source *s, const kg_retarget_tuning *t) {
    const int (*SEG)[2] = rt_limb_segment;
    if (!(t->cut_angle > 0)) return;
    for (int f = 1; f < s->nframes; f++)
        for (int k = 0; k < 8 && !s->f[f].cut; k++) {
            const double *a0 = s->f[f - 1].kp[SEG[k][0]], *b0 = s->f[f - 1].kp[SEG[k][1]];
            const double *a1 = s->f[f].kp[SEG[k][0]], *b1 = s->f[f].kp[SEG[k][1]];
            double u[3], v[3];
            for (int c = 0; c < 3; c++) u[c] = b0[c] - a0[c], v[c] = b1[c] - a1[c];
            double nu = kg_vec3_norm(u), nv = kg_vec3_norm(v);
            if (!(nu > 0) || !(nv > 0)) continue;
            double c = kg_vec3_dot(u, v) / (nu * nv);
            s->f[f].cut = acos(c > 1 ? 1 : c < -1 ? -1 : c) > t->cut_angle;
        }
}

/* Part positions at frame f relative to the origin in aligned axes (source
 * units): each part's link's origin moved by the map's point for it (zero
 * unless a given map says otherwise); the ankle links' aligned rotations,
 * and the head's end. */
static void pose_at(const kg_model *m, const kg_motion *clip, kg_data *d, const rt_source *s, int head_end, int f,
                    double out[KG_NPART][3], double ankle_R[2][9], double head_top[3]) {
    kg_motion_pose(clip, f, d);
    kg_fk(m, d);
    for (int k = 0; k < KG_NPART; k++) {
        int l = s->map.link[k];
        double v[3] = {0, 0, 0}, off[3];
        if (l >= 0) {
            kg_mat3_vec(off, d->link_rot + 9 * l, s->map.point[k]);
            for (int a = 0; a < 3; a++) v[a] = d->link_pos[3 * l + a] + off[a] - s->origin[a];
        }
        kg_mat3_vec(out[k], s->align, v);
    }
    for (int side = 0; side < 2 && ankle_R; side++)
        kg_mat3_mul(ankle_R[side], s->align, d->link_rot + 9 * s->map.link[ANKLE[side]]);
    if (head_top && head_end >= 0) {
        double v[3];
        for (int a = 0; a < 3; a++) v[a] = d->link_pos[3 * head_end + a] - s->origin[a];
        kg_mat3_vec(head_top, s->align, v);
    }
}

/* The up axis (the pelvis above the ankles over the clip, snapped to a
 * coordinate axis), the facing and origin at frame 0, the lengths there. */
static void orient(rt_source *s, const kg_model *m, const kg_motion *clip, kg_data *d, const kg_retarget_options *o) {
    double raw[KG_NPART][3], up[3] = {0, 0, 0}, u[3] = {0, 0, 0};
    kg_mat3_identity(s->align);
    int step = clip->nframes > 400 ? clip->nframes / 400 : 1;
    for (int f = 0; f < clip->nframes; f += step) {
        pose_at(m, clip, d, s, -1, f, raw, NULL, NULL);
        for (int a = 0; a < 3; a++)
            up[a] += raw[KG_PART_PELVIS][a] - 0.5 * (raw[KG_PART_ANKLE_L][a] + raw[KG_PART_ANKLE_R][a]);
    }
    int ax = 0;
    for (int a = 1; a < 3; a++)
        if (fabs(up[a]) > fabs(up[ax])) ax = a;
    u[ax] = up[ax] > 0 ? 1 : -1;
    if (o->source_yaw != 0) kg_rot_axis_angle(d->base_rot, u, o->source_yaw);
    pose_at(m, clip, d, s, -1, 0, raw, NULL, NULL);
    double left[3], fwd[3];
    for (int a = 0; a < 3; a++) left[a] = raw[KG_PART_HIP_L][a] - raw[KG_PART_HIP_R][a];
    double lu = kg_vec3_dot(left, u);
    for (int a = 0; a < 3; a++) left[a] -= lu * u[a];
    rt_normalize(left);
    kg_vec3_cross(fwd, left, u);
    for (int a = 0; a < 3; a++) s->align[a] = fwd[a], s->align[3 + a] = left[a], s->align[6 + a] = u[a];
    kg_vec3_copy(s->origin, raw[KG_PART_PELVIS]);
    for (int side = 0; side < 2; side++) {
        int hip = side ? KG_PART_HIP_R : KG_PART_HIP_L, sh = side ? KG_PART_SHOULDER_R : KG_PART_SHOULDER_L;
        double a1[3], a2[3], b1[3], b2[3];
        for (int a = 0; a < 3; a++) {
            a1[a] = raw[hip][a] - raw[hip + 1][a], a2[a] = raw[hip + 1][a] - raw[hip + 2][a];
            b1[a] = raw[sh][a] - raw[sh + 1][a], b2[a] = raw[sh + 1][a] - raw[sh + 2][a];
        }
        s->leg += 0.5 * (kg_vec3_norm(a1) + kg_vec3_norm(a2));
        s->arm += 0.5 * (kg_vec3_norm(b1) + kg_vec3_norm(b2));
    }
}

/* Sorted-window percentile: the running p-th percentile (linear between
 * ranks, as numpy's) of x over [i - w, i + w]. */
static void running_percentile(const double *x, int n, int w, double p, double *out, double *win) {
    int cnt = 0, lo = 0, hi = -1; /* the window's range of frames */
    for (int i = 0; i < n; i++) {
        int want_lo = i - w < 0 ? 0 : i - w, want_hi = i + w >= n ? n - 1 : i + w;
        while (hi < want_hi) { /* insert x[++hi] */
            double v = x[++hi];
            int k = cnt;
            while (k > 0 && win[k - 1] > v) win[k] = win[k - 1], k--;
            win[k] = v, cnt++;
        }
        while (lo < want_lo) { /* remove x[lo++] */
            double v = x[lo++];
            int k = 0;
            while (k < cnt - 1 && win[k] != v) k++;
            memmove(win + k, win + k + 1, (size_t)(cnt - k - 1) * sizeof *win);
            cnt--;
        }
        double r = p / 100 * (cnt - 1);
        int k = (int)floor(r);
        out[i] = k + 1 < cnt ? win[k] + (r - k) * (win[k + 1] - win[k]) : win[cnt - 1];
    }
}

/* The floor under each point kind (0 ankles, 1 toes) at every frame: the
 * running low percentile of the lower foot's height, raised by the same
 * percentile of the heights above it. On a floor that rises or falls (a
 * ramp, a capture's drift) a centred window's low percentile lags it by
 * about the same all along, and that lag is the low percentile of what
 * stands above it: a walk up a 5.7-degree ramp read its feet 4 cm above
 * the floor, lost 140 of its 562 contact frames and left the robot hanging
 * 5-13 cm up. On level ground the second term is about nothing. */
static int floors(const rt_source *s, const kg_retarget_tuning *t, double *floor[2]) {
    int n = s->nframes, w = rt_window(t->floor_window, s->dt, n, 0, 0);
    double *x = malloc((size_t)n * sizeof *x), *lag = malloc((size_t)n * sizeof *lag);
    double *win = malloc(((size_t)2 * w + 2) * sizeof *win);
    if (!x || !lag || !win) {
        free(x), free(lag), free(win);
        return -1;
    }
    for (int kind = 0; kind < 2; kind++) {
        const int *part = kind ? TOE : ANKLE;
        for (int f = 0; f < n; f++) x[f] = fmin(s->f[f].kp[part[0]][2], s->f[f].kp[part[1]][2]);
        running_percentile(x, n, w, t->floor_percentile, floor[kind], win);
        for (int f = 0; f < n; f++) x[f] -= floor[kind][f];
        running_percentile(x, n, w, t->floor_percentile, lag, win);
        for (int f = 0; f < n; f++) floor[kind][f] += lag[f];
    }
    free(x), free(lag), free(win);
    return 0;
}

/* Horizontal speed of part k at frame f (robot-scaled, the positions already
 * scaled), by central differences over +-h frames. */
static double speed(const rt_source *s, int k, int f, int h) {
    int a = f - h < 0 ? 0 : f - h, b = f + h >= s->nframes ? s->nframes - 1 : f + h;
    if (b == a) return 0;
    const double *p = s->f[a].kp[k], *q = s->f[b].kp[k];
    return hypot(q[0] - p[0], q[1] - p[1]) / ((b - a) * s->dt);
}

/* Closes gaps shorter than L frames between contacts (from pass 0), then
 * drops contacts shorter. */
static void filter_runs(rt_source *s, int side, int L, int from) {
    int n = s->nframes;
    for (int pass = from; pass < 2; pass++) {
        unsigned char want = pass == 0 ? 0 : 1; /* runs of this value shorter than L flip */
        for (int a = 0; a < n;) {
            int b = a;
            while (b < n && s->f[b].contact[side] == s->f[a].contact[side]) b++;
            int inner = a > 0 && b < n; /* a gap at either end of the clip is not between contacts */
            if (s->f[a].contact[side] == want && b - a < L && (want || inner))
                for (int f = a; f < b; f++) s->f[f].contact[side] = !want;
            a = b;
        }
    }
}

/* Foot side down and sliding at frame f: heel and toe both faster than
 * slide_speed (a pivoting foot turns on one of them; k: the thresholds'
 * scale, contact_scale). */
static int sliding(const rt_source *s, int side, int f, const kg_retarget_tuning *t, double k, int h) {
    return s->f[f].contact[side] && fmin(speed(s, ANKLE[side], f, h), speed(s, TOE[side], f, h)) * k > t->slide_speed;
}

/* Slides: within a contact, a stretch sliding over more than slide_length is
 * no contact. */
static void slides(rt_source *s, int side, const kg_retarget_tuning *t, double k, int h) {
    const int a_ = ANKLE[side], t_ = TOE[side];
    if (!(t->slide_length > 0)) return;
    for (int a = 0; a < s->nframes;) {
        if (!sliding(s, side, a, t, k, h)) {
            a++;
            continue;
        }
        int b = a;
        while (b < s->nframes && sliding(s, side, b, t, k, h)) b++;
        const double *p = s->f[a].kp[a_], *q = s->f[b - 1].kp[a_], *pt = s->f[a].kp[t_], *qt = s->f[b - 1].kp[t_];
        double len = fmin(hypot(q[0] - p[0], q[1] - p[1]), hypot(qt[0] - pt[0], qt[1] - pt[1])) * k;
        if (len > t->slide_length)
            for (int f = a; f < b; f++) s->f[f].contact[side] = 0, s->f[f].slid[side] = 1;
        a = b;
    }
}

/* A contact's push-off: its last frames with the heel up (on_toes), after
 * the last with the heel down; a contact without its heel down has none (a
 * foot that lands on its toes and leaves on them is held flat). */
static void push_offs(rt_source *s, int side) {
    for (int a = 0; a < s->nframes;) {
        if (!s->f[a].contact[side]) {
            s->f[a++].on_toes[side] = 0;
            continue;
        }
        int b = a, heel = -1;
        for (; b < s->nframes && s->f[b].contact[side]; b++)
            if (!s->f[b].on_toes[side]) heel = b;
        for (int f = a; f < b; f++) s->f[f].on_toes[side] = (unsigned char)(heel >= 0 && f > heel && b < s->nframes);
        a = b;
    }
}

/* How much longer the contact thresholds' scale (leg_reference) is than the
 * robot's, whose scale the source's positions are on: heights and speeds are
 * multiplied by this before they are compared with the thresholds. */
static double contact_scale(const kg_retarget_tuning *t, const kg_retarget_robot *rr) {
    return t->leg_reference > 0 && rr->leg > 0 ? t->leg_reference / rr->leg : 1;
}

/* Heel and toe down with hysteresis; a foot down while either is; filtered.
 * On the scale of a leg_reference-long leg: a clip's contacts are the same on
 * every robot (on the robot's own scale, a robot a third of a person's size
 * saw a walk's swinging feet slow and low: 2 contact phases instead of 17,
 * both feet down throughout, and it never stepped). */
static void contacts(rt_source *s, const kg_retarget_tuning *t, const kg_retarget_robot *rr, double *floor[2]) {
    const double k = contact_scale(t, rr);
    const int n = s->nframes, h = rt_window(t->speed_window, s->dt, n, 1, 0), L = rt_window(t->min_contact_time, s->dt, n, 1, 1);
    for (int side = 0; side < 2; side++) {
        int down[2] = {0, 0};
        for (int f = 0; f < s->nframes; f++) {
            rt_frame_source *F = &s->f[f];
            int low_slow = 0;
            for (int kind = 0; kind < 2; kind++) {
                int p = kind ? TOE[side] : ANKLE[side];
                /* the ankle's scaled height is ankle_h at its resting level: heights from there */
                double z = F->kp[p][2] - (kind ? floor[1][f] : floor[0][f]), v = speed(s, p, f, h);
                z *= k, v *= k;
                int on = z < t->contact_height && v < t->contact_speed;
                low_slow |= on;
                down[kind] = down[kind] ? z < t->contact_height_off && v < t->contact_speed_off : on;
            }
            F->contact[side] = (unsigned char)(down[0] || down[1]);
            F->on_toes[side] = (unsigned char)!down[0]; /* the heel up; kept below for a contact's tail */
            F->standing |= (unsigned char)low_slow;
        }
        filter_runs(s, side, L, 0);
        slides(s, side, t, k, h);
        filter_runs(s, side, L, 1); /* the gaps slides() made stay */
        push_offs(s, side);
    }
}

/* Seated: the pelvis lower than seat_height leg lengths above the floor (on
 * the robot's scale), for min_contact_time or longer - sitting or lying on
 * the floor, its weight on more than the feet. Such a frame is not standing:
 * the feet's polygon is not its support (the balance lets the COM follow
 * the source's, and the report does not count it). */
static int seats(rt_source *s, const kg_retarget_tuning *t, const kg_retarget_robot *rr) {
    const int n = s->nframes, L = rt_window(t->min_contact_time, s->dt, n, 1, 1);
    unsigned char *v = malloc((size_t)n + 1);
    if (!v) return -1;
    for (int f = 0; f < n; f++) v[f] = t->seat_height > 0 && s->f[f].kp[KG_PART_PELVIS][2] < t->seat_height * rr->leg;
    rt_drop_short_runs(v, n, L);
    for (int f = 0; f < n; f++) s->f[f].seated = v[f], s->f[f].standing &= (unsigned char)!v[f];
    free(v);
    return 0;
}

/* A flat foot's frame in its ankle link's frame, averaged over the frames
 * where ankle and toe are both near the floor: a foot's turn at any frame then
 * comes from its link, also when it points down. Without a toe below the
 * ankle's link, the ankle-to-toe line's pitch when flat instead. */
static void calibrate_feet(rt_source *s, const kg_model *m, double (*ankle_R)[2][9], double *floor[2],
                           const kg_retarget_tuning *t, const kg_retarget_robot *rr) {
    const double near = t->contact_height / contact_scale(t, rr); /* on the robot's scale */
    for (int side = 0; side < 2; side++) {
        double fix[9] = {0}, pitch = 0;
        int cnt = 0;
        for (int f = 0; f < s->nframes; f++) {
            const double *an = s->f[f].kp[ANKLE[side]], *to = s->f[f].kp[TOE[side]];
            if (an[2] - floor[0][f] > near || to[2] - floor[1][f] > near) continue;
            double x[3] = {to[0] - an[0], to[1] - an[1], 0}, z[3] = {0, 0, 1}, F[9], O[9];
            if (kg_vec3_norm(x) < 1e-9) continue;
            pitch += atan2(an[2] - to[2], hypot(x[0], x[1]));
            rt_frame_xz(F, x, z);
            kg_mat3_mul_at(O, ankle_R[f][side], F);
            for (int i = 0; i < 9; i++) fix[i] += O[i];
            cnt++;
        }
        s->foot_pitch[side] = cnt ? pitch / cnt : 0;
        int an = s->map.link[ANKLE[side]], to = s->map.link[TOE[side]];
        for (int l = to; l >= 0 && l != an; l = m->link[l].parent)
            if (m->link[l].parent == an) s->foot_fixed[side] = cnt > 0;
        if (!s->foot_fixed[side]) continue;
        double x[3] = {fix[0], fix[3], fix[6]}, z[3] = {fix[2], fix[5], fix[8]};
        rt_frame_xz(s->foot_fix[side], x, z);
    }
}

/* A foot's frame at a frame: its ankle link's turn times the calibration, or
 * the toe line lifted by the flat foot's pitch. */
static void foot_frame(const rt_source *s, const rt_frame_source *F, int side, const double ankle_R[9], double R[9]) {
    if (s->foot_fixed[side]) {
        kg_mat3_mul(R, ankle_R, s->foot_fix[side]);
        return;
    }
    const double *an = F->kp[ANKLE[side]], *to = F->kp[TOE[side]], *knee = F->kp[ANKLE[side] - 1];
    double x[3], shin[3], lat[3], P[9], xf[3], up[3] = {0, 0, 1};
    for (int a = 0; a < 3; a++) x[a] = to[a] - an[a], shin[a] = knee[a] - an[a];
    if (kg_vec3_norm(x) < 1e-9) x[0] = F->pelvis_R[0], x[1] = F->pelvis_R[3], x[2] = F->pelvis_R[6];
    kg_vec3_cross(lat, shin, x);
    if (kg_vec3_norm(lat) > 1e-9 * kg_vec3_norm(shin) * kg_vec3_norm(x)) {
        rt_normalize(lat);
        kg_rot_axis_angle(P, lat, -s->foot_pitch[side]);
        kg_mat3_vec(xf, P, x);
        kg_vec3_copy(x, xf);
    }
    rt_frame_xz(R, x, up);
}

/* Body frames (pelvis, chest) and the COM estimate. */
static void body_frames(rt_frame_source *F, const kg_retarget_robot *rr) {
    double y[3], z[3], off[3];
    const double (*kp)[3] = (const double(*)[3])F->kp;
    for (int a = 0; a < 3; a++) {
        y[a] = kp[KG_PART_HIP_L][a] - kp[KG_PART_HIP_R][a];
        z[a] = kp[KG_PART_CHEST][a] - kp[KG_PART_PELVIS][a];
    }
    rt_frame_yz(F->pelvis_R, y, z);
    for (int a = 0; a < 3; a++) y[a] = kp[KG_PART_SHOULDER_L][a] - kp[KG_PART_SHOULDER_R][a];
    rt_frame_yz(F->chest_R, y, z);
    kg_mat3_vec(off, F->pelvis_R, rr->com_off);
    for (int a = 0; a < 2; a++) F->com_est[a] = kp[KG_PART_PELVIS][a] + off[a];
}

/* Every frame's positions on the robot's scale: horizontally by the leg
 * ratio, heights from the ankles' floor by it onto the robot's ankle height,
 * arms from the shoulders by the arm ratio. */
static void scale_frames(rt_source *s, double *floor[2], const kg_retarget_robot *rr) {
    for (int f = 0; f < s->nframes; f++) {
        rt_frame_source *F = &s->f[f];
        double raw[KG_NPART][3];
        memcpy(raw, F->kp, sizeof raw);
        for (int k = 0; k < KG_NPART; k++) {
            F->kp[k][0] = s->s_leg * raw[k][0];
            F->kp[k][1] = s->s_leg * raw[k][1];
            F->kp[k][2] = s->s_leg * (raw[k][2] - floor[0][f]) + rr->ankle_h;
        }
        for (int side = 0; side < 2; side++) {
            int sh = side ? KG_PART_SHOULDER_R : KG_PART_SHOULDER_L;
            for (int k = sh + 1; k <= sh + 2; k++)
                for (int a = 0; a < 3; a++) F->kp[k][a] = F->kp[sh][a] + s->s_arm * (raw[k][a] - raw[sh][a]);
        }
        floor[1][f] = s->s_leg * (floor[1][f] - floor[0][f]) + rr->ankle_h; /* the toes' level, scaled */
        floor[0][f] = rr->ankle_h;
    }
}

/* The horizontal path length of part k over frames [a, b). */
static double path_length(const rt_source *s, int k, int a, int b) {
    double len = 0;
    for (int f = a + 1; f < b; f++)
        len += hypot(s->f[f].kp[k][0] - s->f[f - 1].kp[k][0], s->f[f].kp[k][1] - s->f[f - 1].kp[k][1]);
    return len;
}

/* Each foot's heading, frame by frame. A foot tilted more than heading_tilt
 * from flat (kneeling on its instep, on the tip of its toes) has no heading
 * of its own: its forward and sideways axes both stand steep, and their
 * ground projections disagree by up to a right angle, so the heading taken
 * from the longer one jumped 1.5 rad from frame to frame as they traded
 * places (a kneeling foot read as a pivot: the robot's planted foot turned to
 * and fro on its edge and slid 4 cm). It keeps the heading it had when last
 * flat enough; before any such frame, the first one's. */
static void foot_yaws(rt_source *s, const kg_retarget_tuning *t) {
    const double up = cos(t->heading_tilt);
    for (int side = 0; side < 2; side++) {
        int first = -1;
        double held = 0;
        for (int f = 0; f < s->nframes; f++) {
            rt_frame_source *F = &s->f[f];
            if (F->foot_R[side][8] >= up || (first < 0 && f + 1 == s->nframes)) {
                held = rt_heading(F->foot_R[side]); /* the link's turn from its rest, as the robot's are taken */
                if (first < 0) first = f;
            }
            F->foot_yaw[side] = held;
        }
        for (int f = 0; f < first; f++) s->f[f].foot_yaw[side] = s->f[first].foot_yaw[side];
    }
}

/* Contacts in which the source's foot turns more than pivot_turn are pivots,
 * on the toes or the heel, whichever travels less over the contact. */
static void pivots(rt_source *s, const kg_retarget_tuning *t) {
    for (int side = 0; side < 2; side++)
        for (int a = 0; a < s->nframes;) {
            if (!s->f[a].contact[side]) {
                a++;
                continue;
            }
            int b = a;
            double yaw = s->f[a].foot_yaw[side], lo = 0, hi = 0, turn = 0;
            for (; b < s->nframes && s->f[b].contact[side]; b++) { /* the heading unwrapped */
                double h = s->f[b].foot_yaw[side], dh = remainder(h - yaw, 2 * 3.14159265358979323846);
                turn += dh, yaw = h;
                lo = fmin(lo, turn), hi = fmax(hi, turn);
            }
            int kind = RT_PIVOT_NONE;
            if (hi - lo > t->pivot_turn)
                kind = path_length(s, TOE[side], a, b) <= path_length(s, ANKLE[side], a, b) ? RT_PIVOT_FRONT : RT_PIVOT_BACK;
            for (int f = a; f < b; f++) s->f[f].pivot[side] = (unsigned char)kind;
            a = b;
        }
}

/* Contact f of side's planned stance: the foot flat where the source's ankle
 * is slowest over its first landing_time, turned as the source's foot there,
 * and moved clear of the other foot's planned sole when that one is down
 * (sole_gap): the driver sets the robot's foot down clear of the other's, so
 * the balance plans on the polygon the robot will stand on. */
static void plan_pin(rt_source *s, const kg_retarget_tuning *t, const kg_retarget_robot *rr, int side, int g, int K,
                     int h) {
    rt_frame_source *F = &s->f[g];
    const int foot = side ? KG_PART_FOOT_R : KG_PART_FOOT_L, other = side ? KG_PART_FOOT_L : KG_PART_FOOT_R;
    int best = g;
    double vb = speed(s, ANKLE[side], g, h);
    for (int j = g + 1; j <= g + K && j < s->nframes && s->f[j].contact[side]; j++) {
        double v = speed(s, ANKLE[side], j, h);
        if (v < vb) vb = v, best = j;
    }
    double R[9], off[3], pos[3], oR[9], opos[3];
    double yaw = s->f[best].foot_yaw[side];
    rt_yaw_rot(R, yaw, rr->rest_rot[foot]);
    kg_mat3_vec(off, R, rr->foot_off[side]);
    pos[0] = s->f[best].kp[ANKLE[side]][0] + off[0];
    pos[1] = s->f[best].kp[ANKLE[side]][1] + off[1];
    pos[2] = rr->foot_h[side];
    if (F->contact[!side] && (g == 0 || s->f[g - 1].contact[!side])) { /* the other one stands: clear of it */
        const double *op = F->pin[!side];
        rt_yaw_rot(oR, op[3], rr->rest_rot[other]);
        opos[0] = op[0], opos[1] = op[1], opos[2] = op[2];
        rt_sole_clear(rr, side, pos, R, opos, oR, t->sole_gap);
    }
    F->pin[side][0] = pos[0], F->pin[side][1] = pos[1], F->pin[side][2] = pos[2], F->pin[side][3] = yaw;
}

/* Each contact's planned stance (plan_pin), held over the contact; frame by
 * frame, so a landing foot sees where the other's contact was planned. */
static void plan_pins(rt_source *s, const kg_retarget_tuning *t, const kg_retarget_robot *rr) {
    const int n = s->nframes, K = rt_window(t->landing_time, s->dt, n, 1, 0), h = rt_window(t->speed_window, s->dt, n, 1, 0);
    for (int g = 0; g < s->nframes; g++)
        for (int side = 0; side < 2; side++) {
            rt_frame_source *F = &s->f[g];
            if (!F->contact[side]) continue;
            if (g > 0 && s->f[g - 1].contact[side]) memcpy(F->pin[side], s->f[g - 1].pin[side], sizeof F->pin[side]);
            else plan_pin(s, t, rr, side, g, K, h);
        }
}

/* A pivot's planned stance turns: its foot flat, turned as the source's at
 * each frame, about the end of its sole where it was planned to land (the
 * driver holds that point and turns the foot as the source's). */
static void turn_pivot_pins(rt_source *s, const kg_retarget_robot *rr) {
    for (int side = 0; side < 2; side++) {
        const int foot = side ? KG_PART_FOOT_R : KG_PART_FOOT_L;
        double at[3];
        for (int f = 0; f < s->nframes; f++) {
            rt_frame_source *F = &s->f[f];
            if (!F->contact[side] || !F->pivot[side]) continue;
            if (f == 0 || !s->f[f - 1].contact[side]) { /* the point it turns on */
                double R[9], e[3];
                rt_yaw_rot(R, F->pin[side][3], rr->rest_rot[foot]);
                kg_mat3_vec(e, R, rr->sole_end[side][F->pivot[side] - 1]);
                for (int a = 0; a < 3; a++) at[a] = F->pin[side][a] + e[a];
            }
            rt_pivot_pose(rr, side, F->pivot[side], at, F->foot_yaw[side], F->pin[side]);
        }
    }
}

/* The first frame with a body point farther than `most` from the origin along
 * an axis (on the robot's scale) or not finite, into *part; -1 when none. */
static int far_frame(const rt_source *s, double most, int *part) {
    for (int f = 0; f < s->nframes; f++)
        for (int k = 0; k < KG_NPART; k++)
            for (int a = 0; a < 3; a++)
                if (!(fabs(s->f[f].kp[k][a]) <= most)) return *part = k, f;
    return -1;
}

int rt_source_build(rt_source *s, const kg_model *m, const kg_motion *clip, const kg_retarget_options *o,
                    const kg_retarget_robot *rr, kg_diags *dg) {
    memset(s, 0, sizeof *s);
    s->nframes = clip->nframes;
    s->dt = clip->frame_time > 0 ? clip->frame_time : 1.0 / 30;
    for (int k = 0; k < KG_NPART; k++) s->map.link[k] = -1;
    if (o->source_map) s->map = *o->source_map;
    /* the first frame's pose: a skeleton's rest pose need not stand (some exporters' do not) */
    if (kg_body_map_find_clip(m, clip, &s->map, dg) != 0) return -1;
    int n = s->nframes;
    kg_data *d = kg_data_new(m);
    s->f = calloc((size_t)n, sizeof *s->f);
    double (*ankle_R)[2][9] = malloc((size_t)n * sizeof *ankle_R);
    double *floor[2] = {malloc((size_t)n * sizeof(double)), malloc((size_t)n * sizeof(double))};
    int rc = -1;
    if (!d || !s->f || !ankle_R || !floor[0] || !floor[1]) goto done;
    int head_end = d ? head_top_link(m, clip, d, &s->map) : -1;
    orient(s, m, clip, d, o);
    if (!(s->leg > 0) || !(s->arm > 0)) {
        kg_diag_add(dg, KG_ERROR, "retarget.degenerate", m->source, 0, NULL,
                    "the legs or arms of '%s' have no length at its first frame", m->name ? m->name : "");
        goto done;
    }
    s->s_leg = rr->leg / s->leg, s->s_arm = rr->arm / s->arm;
    for (int f = 0; f < n; f++) {
        rt_frame_source *F = &s->f[f];
        double top[3];
        pose_at(m, clip, d, s, head_end, f, F->kp, ankle_R[f], top);
        if (head_end >= 0) { /* a direction: the same before and after scaling */
            for (int a = 0; a < 3; a++) F->head_up[a] = top[a] - F->kp[KG_PART_HEAD][a];
            rt_normalize(F->head_up);
        }
    }
    if (floors(s, &o->tune, floor) != 0) goto done;
    scale_frames(s, floor, rr);
    int part, far = far_frame(s, o->tune.position_max > 0 ? o->tune.position_max : INFINITY, &part); /* NaN always */
    if (far >= 0) {
        kg_diag_add(dg, KG_ERROR, "retarget.far", m->source, 0, NULL,
                    "frame %d of '%s': its %s is farther than position_max (%g m) from the origin along an axis on "
                    "the robot's scale, or not a number: the solve's positions would lose their precision", far,
                    m->name ? m->name : "", kg_part_name(part), o->tune.position_max);
        goto done;
    }
    contacts(s, &o->tune, rr, floor);
    cuts(s, &o->tune);
    if (seats(s, &o->tune, rr) != 0) goto done;
    calibrate_feet(s, m, ankle_R, floor, &o->tune, rr);
    for (int f = 0; f < n; f++) {
        body_frames(&s->f[f], rr);
        for (int side = 0; side < 2; side++) foot_frame(s, &s->f[f], side, ankle_R[f][side], s->f[f].foot_R[side]);
    }
    foot_yaws(s, &o->tune);
    plan_pins(s, &o->tune, rr);
    pivots(s, &o->tune);
    turn_pivot_pins(s, rr);
    rc = 0;
done:
    if (rc != 0 && !dg->count) kg_diag_add(dg, KG_ERROR, "retarget.memory", m->source, 0, NULL, "out of memory");
    kg_data_free(d);
    free(ankle_R), free(floor[0]), free(floor[1]);
    return rc;
}

void rt_source_free(rt_source *s) {
    free(s->f);
    s->f = NULL;
}
