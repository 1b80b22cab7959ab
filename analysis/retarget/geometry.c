/* Small geometry the retargeting stages share: frames from directions,
 * headings, soles, support polygons. */
#include <math.h>
#include <string.h>

#include "analysis/retarget/internal.h"
#include "core/spatial.h"

void rt_normalize(double v[3]) {
    double n = kg_vec3_norm(v);
    if (n > 0)
        for (int a = 0; a < 3; a++) v[a] /= n;
}

/* The columns of R: x, y, z. */
static void set_columns(double R[9], const double x[3], const double y[3], const double z[3]) {
    for (int a = 0; a < 3; a++) R[3 * a] = x[a], R[3 * a + 1] = y[a], R[3 * a + 2] = z[a];
}

void rt_frame_xz(double R[9], const double x_[3], const double z_[3]) {
    double x[3], y[3], z[3];
    kg_vec3_copy(x, x_);
    rt_normalize(x);
    kg_vec3_cross(y, z_, x);
    rt_normalize(y);
    kg_vec3_cross(z, x, y);
    set_columns(R, x, y, z);
}

void rt_frame_yz(double R[9], const double y_[3], const double z_[3]) {
    double x[3], y[3], z[3];
    kg_vec3_copy(y, y_);
    rt_normalize(y);
    kg_vec3_cross(x, y, z_);
    rt_normalize(x);
    kg_vec3_cross(z, x, y);
    set_columns(R, x, y, z);
}

void rt_yaw_rot(double R[9], double yaw, const double R0[9]) {
    double z[3] = {0, 0, 1}, Y[9];
    kg_rot_axis_angle(Y, z, yaw);
    kg_mat3_mul(R, Y, R0);
}

const int rt_limb_segment[8][2] = {{KG_PART_HIP_L, KG_PART_KNEE_L},       {KG_PART_KNEE_L, KG_PART_ANKLE_L},
                                   {KG_PART_SHOULDER_L, KG_PART_ELBOW_L}, {KG_PART_ELBOW_L, KG_PART_WRIST_L},
                                   {KG_PART_HIP_R, KG_PART_KNEE_R},       {KG_PART_KNEE_R, KG_PART_ANKLE_R},
                                   {KG_PART_SHOULDER_R, KG_PART_ELBOW_R}, {KG_PART_ELBOW_R, KG_PART_WRIST_R}};

int rt_at_limit(const kg_retarget_robot *rr, const double *q, int l) {
    for (int e = 0; l >= 0 && e < rr->path_count[l]; e++) {
        int c = rr->path[rr->path_first[l] + e].col - 6, qi = c >= 0 ? rr->qidx[c] : -1;
        if (qi >= 0 && (q[qi] <= rr->lower[c] + RT_AT_LIMIT || q[qi] >= rr->upper[c] - RT_AT_LIMIT)) return 1;
    }
    return 0;
}

/* The turn about z of the nearest pure turn about z: the x and y axes'
 * ground projections, the y one turned back by 90 degrees, added. Exact for
 * a frame pitched or rolled only, and continuous as a frame tilts: taking
 * whichever single axis lies nearer the ground switched between two readings
 * of a pitched and rolled foot (a source foot on its toes read 0.58 rad
 * apart in consecutive frames, and the pivoting robot foot turned with it in
 * one frame, 7 cm at its origin). */
double rt_heading(const double R[9]) { return atan2(R[3] - R[1], R[0] + R[4]); }

void rt_sole_at(const kg_retarget_robot *rr, int side, const double pos[3], const double R[9], double out[4][3]) {
    for (int k = 0; k < 4; k++) {
        kg_mat3_vec(out[k], R, rr->sole[side][k]);
        for (int a = 0; a < 3; a++) out[k][a] += pos[a];
    }
}

/* 2-D convex hull (monotone chain) of n <= 8 points in place, counter-clockwise;
 * returns the count. */
static int hull2(double (*p)[2], int n) {
    for (int i = 1; i < n; i++) /* insertion sort by x, then y */
        for (int j = i; j > 0 && (p[j - 1][0] > p[j][0] || (p[j - 1][0] == p[j][0] && p[j - 1][1] > p[j][1])); j--) {
            double t0 = p[j][0], t1 = p[j][1];
            p[j][0] = p[j - 1][0], p[j][1] = p[j - 1][1], p[j - 1][0] = t0, p[j - 1][1] = t1;
        }
    if (n < 3) return n;
    double h[17][2];
    int k = 0;
#define TURN(a, b, c) (((b)[0] - (a)[0]) * ((c)[1] - (a)[1]) - ((b)[1] - (a)[1]) * ((c)[0] - (a)[0]))
    for (int i = 0; i < n; i++) {
        while (k >= 2 && TURN(h[k - 2], h[k - 1], p[i]) <= 0) k--;
        h[k][0] = p[i][0], h[k][1] = p[i][1], k++;
    }
    for (int i = n - 2, t = k + 1; i >= 0; i--) {
        while (k >= t && TURN(h[k - 2], h[k - 1], p[i]) <= 0) k--;
        h[k][0] = p[i][0], h[k][1] = p[i][1], k++;
    }
#undef TURN
    k--; /* the first point repeats */
    for (int i = 0; i < k; i++) p[i][0] = h[i][0], p[i][1] = h[i][1];
    return k;
}

int rt_support_polygon(const kg_retarget_robot *rr, const unsigned char down[2], const double pose[2][4],
                       double poly[8][2]) {
    int n = 0;
    for (int s = 0; s < 2; s++) {
        if (!down[s]) continue;
        double c = cos(pose[s][3]), sn = sin(pose[s][3]);
        for (int k = 0; k < 4; k++) { /* the sole's corners, the foot flat, turned by its yaw */
            const double *v = rr->sole[s][k];
            double R0v[3];
            kg_mat3_vec(R0v, rr->rest_rot[s ? KG_PART_FOOT_R : KG_PART_FOOT_L], v);
            poly[n][0] = pose[s][0] + c * R0v[0] - sn * R0v[1];
            poly[n][1] = pose[s][1] + sn * R0v[0] + c * R0v[1];
            n++;
        }
    }
    return hull2(poly, n);
}

/* The distance from x to segment ab. */
static double segment_distance(const double a[2], const double b[2], const double x[2]) {
    double ex = b[0] - a[0], ey = b[1] - a[1], l2 = ex * ex + ey * ey;
    double t = l2 > 0 ? ((x[0] - a[0]) * ex + (x[1] - a[1]) * ey) / l2 : 0;
    t = t < 0 ? 0 : t > 1 ? 1 : t;
    return hypot(a[0] + t * ex - x[0], a[1] + t * ey - x[1]);
}

double rt_polygon_distance(const double (*p)[2], int n, const double x[2], double margin, double in[2]) {
    if (n == 0) {
        if (in) in[0] = x[0], in[1] = x[1];
        return -INFINITY;
    }
    double inside = INFINITY, outside = INFINITY;
    int out = 0;
    for (int i = 0; i < n; i++) {
        const double *a = p[i], *b = p[(i + 1) % n];
        double len = sqrt((b[0] - a[0]) * (b[0] - a[0]) + (b[1] - a[1]) * (b[1] - a[1]));
        if (len <= 0) continue;
        double side = ((b[0] - a[0]) * (x[1] - a[1]) - (b[1] - a[1]) * (x[0] - a[0])) / len; /* > 0: inside */
        inside = fmin(inside, side);
        out |= side < 0;
        outside = fmin(outside, segment_distance(a, b, x));
    }
    if (n < 3) out = 1, inside = 0; /* a point or a segment has no inside */
    double dist = out ? -outside : inside;
    if (!in) return dist;
    in[0] = x[0], in[1] = x[1];
    if (dist >= margin) return dist;
    /* towards the centroid until margin inside: the least fraction t of the way
     * that puts y = x + t (c - x) margin inside every edge (each edge's side is
     * linear in t), the centroid itself when none does */
    double c[2] = {0, 0}, t = 0;
    for (int i = 0; i < n; i++) c[0] += p[i][0] / n, c[1] += p[i][1] / n;
    for (int i = 0; i < n && n >= 3; i++) {
        const double *a = p[i], *b = p[(i + 1) % n];
        double ex = b[0] - a[0], ey = b[1] - a[1], len = sqrt(ex * ex + ey * ey);
        if (len <= 0) continue;
        double s0 = (ex * (x[1] - a[1]) - ey * (x[0] - a[0])) / len; /* the side at x, > 0 inside */
        double ds = (ex * (c[1] - x[1]) - ey * (c[0] - x[0])) / len; /* its change along x -> c */
        if (s0 >= margin) continue;
        t = ds > 0 ? fmax(t, (margin - s0) / ds) : 1;
    }
    if (n < 3) t = 1;
    t = fmin(t, 1);
    in[0] = x[0] + t * (c[0] - x[0]), in[1] = x[1] + t * (c[1] - x[1]);
    return dist;
}

double rt_cart_table_zmp(double before, double c, double after, double h, double zc) {
    return c - zc / RT_G * (after - 2 * c + before) / (h * h);
}

void rt_cart_table_zmp2(const double b[2], const double c[2], const double e[2], double h, double zc, double z[2]) {
    for (int a = 0; a < 2; a++) z[a] = rt_cart_table_zmp(b[a], c[a], e[a], h, zc);
}

/* The extent of 2-D points p[n] along unit axis u. */
static void extent(const double (*p)[3], int n, const double u[2], double *lo, double *hi) {
    *lo = INFINITY, *hi = -INFINITY;
    for (int k = 0; k < n; k++) {
        double t = p[k][0] * u[0] + p[k][1] * u[1];
        *lo = fmin(*lo, t), *hi = fmax(*hi, t);
    }
}

/* Column col of turn Rt (its x or y axis) on the ground, unit: 0 when it is
 * vertical. */
static int ground_axis(const double Rt[9], int col, double u[2]) {
    double n = hypot(Rt[col], Rt[3 + col]);
    if (!(n > 1e-9)) return 0;
    u[0] = Rt[col] / n, u[1] = Rt[3 + col] / n;
    return 1;
}

int rt_sole_clear(const kg_retarget_robot *rr, int side, double pos[3], const double R[9], const double opos[3],
                  const double oR[9], double gap) {
    double a[4][3], b[4][3], best = INFINITY, move[2] = {0, 0};
    rt_sole_at(rr, side, pos, R, a);
    rt_sole_at(rr, !side, opos, oR, b);
    /* the sole rectangles' edges as separating axes (their projections on the ground): the
     * world's x and y at rest, turned as each foot is turned from its rest */
    double Ra[9], Rb[9];
    kg_mat3_mul_bt(Ra, R, rr->rest_rot[side ? KG_PART_FOOT_R : KG_PART_FOOT_L]);
    kg_mat3_mul_bt(Rb, oR, rr->rest_rot[side ? KG_PART_FOOT_L : KG_PART_FOOT_R]);
    for (int k = 0; k < 4; k++) {
        double u[2], alo, ahi, blo, bhi;
        if (!ground_axis(k < 2 ? Ra : Rb, k % 2, u)) continue;
        extent((const double(*)[3])a, 4, u, &alo, &ahi);
        extent((const double(*)[3])b, 4, u, &blo, &bhi);
        double up = bhi + gap - alo, down = ahi + gap - blo; /* moves along +u, -u that clear */
        if (up <= 0 || down <= 0) return 0;                  /* apart along u already */
        double m = fmin(up, down), sg = up < down ? 1 : -1;
        if (m < best) best = m, move[0] = sg * m * u[0], move[1] = sg * m * u[1];
    }
    pos[0] += move[0], pos[1] += move[1];
    return 1;
}

void rt_standing_pose(const kg_retarget_robot *rr, const kg_data *d, const rt_pin *p, int side, double pos[3],
                      double Rf[9]) {
    kg_vec3_copy(pos, p->pos);
    memcpy(Rf, p->R, 9 * sizeof *Rf);
    if (!p->pivot) return;
    const int foot = side ? KG_PART_FOOT_R : KG_PART_FOOT_L, l = rr->map.link[foot];
    double Rr[9];
    kg_mat3_mul_bt(Rr, d->link_rot + 9 * l, rr->rest_rot[foot]);
    pos[0] = d->link_pos[3 * l], pos[1] = d->link_pos[3 * l + 1];
    rt_yaw_rot(Rf, rt_heading(Rr), rr->rest_rot[foot]);
}

int rt_sole_beside(const kg_retarget_robot *rr, int side, double pos[3], const double R[9], const double opos[3],
                   const double oR[9], double gap) {
    double a[4][3], b[4][3], Rb[9], alo, ahi, blo, bhi;
    rt_sole_at(rr, side, pos, R, a);
    rt_sole_at(rr, !side, opos, oR, b);
    /* the other foot's heading: the world's x and y at rest, turned as it is turned from its rest */
    kg_mat3_mul_bt(Rb, oR, rr->rest_rot[side ? KG_PART_FOOT_L : KG_PART_FOOT_R]);
    double fwd[2], lat[2];
    if (!ground_axis(Rb, 0, fwd) || !ground_axis(Rb, 1, lat)) return 0;
    extent((const double(*)[3])a, 4, fwd, &alo, &ahi);
    extent((const double(*)[3])b, 4, fwd, &blo, &bhi);
    if (ahi + gap <= blo || bhi + gap <= alo) return 0; /* ahead of it or behind */
    extent((const double(*)[3])a, 4, lat, &alo, &ahi);
    extent((const double(*)[3])b, 4, lat, &blo, &bhi);
    if (side ? alo + ahi > blo + bhi : alo + ahi < blo + bhi) return 0; /* crossing over: its middle past */
    double move = side ? fmin(0, blo - gap - ahi) : fmax(0, bhi + gap - alo); /* the left foot on the left */
    pos[0] += move * lat[0], pos[1] += move * lat[1];
    return move != 0;
}

void rt_pivot_pose(const kg_retarget_robot *rr, int side, int pivot, const double at[3], double yaw, double pose[4]) {
    double R[9], e[3];
    rt_yaw_rot(R, yaw, rr->rest_rot[side ? KG_PART_FOOT_R : KG_PART_FOOT_L]);
    kg_mat3_vec(e, R, rr->sole_end[side][pivot - 1]);
    pose[0] = at[0] - e[0], pose[1] = at[1] - e[1], pose[2] = at[2] - e[2], pose[3] = yaw;
}

/* The closest points' parameters s on p0-p1 and t on q0-q1, from the
 * unconstrained ones clamped in turn (Ericson, Real-Time Collision Detection
 * 5.1.9), then their distance. */
double rt_segment_distance(const double p0[3], const double p1[3], const double q0[3], const double q1[3]) {
    double d1[3], d2[3], r[3];
    for (int a = 0; a < 3; a++) d1[a] = p1[a] - p0[a], d2[a] = q1[a] - q0[a], r[a] = p0[a] - q0[a];
    double a = kg_vec3_dot(d1, d1), e = kg_vec3_dot(d2, d2), f = kg_vec3_dot(d2, r), s = 0, t = 0;
    if (a <= 1e-18 && e <= 1e-18) s = t = 0;
    else if (a <= 1e-18) s = 0, t = fmin(fmax(f / e, 0), 1);
    else {
        double c = kg_vec3_dot(d1, r);
        if (e <= 1e-18) t = 0, s = fmin(fmax(-c / a, 0), 1);
        else {
            double b = kg_vec3_dot(d1, d2), den = a * e - b * b;
            s = den > 0 ? fmin(fmax((b * f - c * e) / den, 0), 1) : 0;
            t = (b * s + f) / e;
            if (t < 0) t = 0, s = fmin(fmax(-c / a, 0), 1);
            else if (t > 1) t = 1, s = fmin(fmax((b - c) / a, 0), 1);
        }
    }
    double d[3];
    for (int k = 0; k < 3; k++) d[k] = p0[k] + s * d1[k] - q0[k] - t * d2[k];
    return kg_vec3_norm(d);
}

double rt_convex_lowest(const kg_convex *c, const kg_data *d, double p[3]) {
    const double *Rl = d->link_rot + 9 * c->link, down[3] = {0, 0, -1};
    double Rs[9], ds[3], v[3], vl[3];
    int hint = -1;
    kg_mat3_mul(Rs, Rl, c->rot);
    kg_mat3_tvec(ds, Rs, down);
    kg_convex_support(c, ds, &hint, v);
    kg_mat3_vec(vl, c->rot, v);
    for (int a = 0; a < 3; a++) vl[a] += c->pos[a];
    kg_mat3_vec(p, Rl, vl);
    for (int a = 0; a < 3; a++) p[a] += d->link_pos[3 * c->link + a];
    return p[2];
}

double rt_shape_lowest(const kg_collision_model *cm, const kg_data *d, int k, double p[3]) {
    return rt_convex_lowest(&cm->shape[k], d, p);
}

void rt_drop_short_runs(unsigned char *v, int n, int L) {
    for (int a = 0; a < n;) {
        int b = a + 1;
        while (b < n && v[b] == v[a]) b++;
        const int drop = v[a] && b - a < L; /* read before the run's first entry is cleared */
        for (int f = a; drop && f < b; f++) v[f] = 0;
        a = b;
    }
}

int rt_body_point(const kg_retarget_robot *rr, const kg_data *d, int k, double p[3]) {
    int l = rr->map.link[k];
    if (l < 0) return -1;
    double off[3];
    kg_mat3_vec(off, d->link_rot + 9 * l, rr->map.point[k]);
    for (int a = 0; a < 3; a++) p[a] = d->link_pos[3 * l + a] + off[a];
    return l;
}
