#define _POSIX_C_SOURCE 200809L
#include "analysis/retarget.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "analysis/collision.h"
#include "analysis/ik.h"
#include "analysis/jacobian.h"
#include "analysis/preview.h"
#include "core/fk.h"
#include "core/spatial.h"

#define G 9.80665
#define NTARGET 24
#define FOOT_WEIGHT 1e4
#define COM_WEIGHT 1e3
#define SWING_WEIGHT 100
#define SWING_TURN_WEIGHT 1
#define POSTURE_FIRST 1e-2
#define POSTURE 1e-3
#define FIRST_STEPS 10
#define STANCE_ITERATIONS 30
#define SWING_CLEARANCE 0.01 /* m: a swinging sole this near the ground is held in the world */
#define STALL_GAIN 1e-3 /* the whole-body solve stops when an iteration gains less (of its cost) */
#define STANCE_TURN_WEIGHT 1e-2
#define SOLE_GAP 0.01 /* m: the least gap between a new pin's sole and the planted one's */
#define PREVIEW_R 1e-8
#define AVOID_WEIGHT 1e4
#define AVOID_MARGIN 0.005
#define AVOID_DEPTH 1e-5
#define AVOID_ROUNDS 12
#define AVOID_PAIRS 8
#define PUSH_FEET 10 /* push_all(): the planted feet's weight, times the frame's */
#define LAND_REACH 0.1 /* m: a foot farther than this from its pin as its phase starts keeps swinging */
#define HOLD_TOL 5e-4  /* m: a planted foot off its pin, or a sole below the ground, after a frame's solve */
#define WIDTH_STEP 0.005 /* m: robot_width()'s */
#define FALLBACK_COM 0.002 /* m: how far fall_back() may move the COM sideways (see there) */
#define SPREAD_USE 0.8 /* of the ankle's roll range a wide stance may take (see robot_spread) */

void kg_retarget_defaults(kg_retarget_options *o) {
    memset(o, 0, sizeof *o);
    o->contact_height = 0.04;
    o->contact_speed = 0.5;
    o->min_contact_time = 0.05;
    o->margin = 0.01;
    o->zmp_margin = 0.05;
    o->preview_time = 1.0;
    o->iterations = 8;
    o->balance = 1;
    o->avoid_self_collision = 1;
}

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* ---- small geometry ------------------------------------------------------------------- */

static void normalize(double v[3]) {
    double n = kg_vec3_norm(v);
    if (n > 0)
        for (int a = 0; a < 3; a++) v[a] /= n;
}

/* A rotation from an x direction and a z hint (x kept, z made orthogonal). */
static void frame_xz(double R[9], const double x_[3], const double z_[3]) {
    double x[3], z[3], y[3];
    kg_vec3_copy(x, x_);
    normalize(x);
    kg_vec3_cross(y, z_, x);
    normalize(y);
    kg_vec3_cross(z, x, y);
    for (int a = 0; a < 3; a++) R[3 * a] = x[a], R[3 * a + 1] = y[a], R[3 * a + 2] = z[a];
}

/* A rotation from a y direction and a z hint (y kept). */
static void frame_yz(double R[9], const double y_[3], const double z_[3]) {
    double x[3], y[3], z[3];
    kg_vec3_copy(y, y_);
    normalize(y);
    kg_vec3_cross(x, y, z_);
    normalize(x);
    kg_vec3_cross(z, x, y);
    for (int a = 0; a < 3; a++) R[3 * a] = x[a], R[3 * a + 1] = y[a], R[3 * a + 2] = z[a];
}

/* Turn about z only: the heading of R's x axis, or of its y axis (less 90
 * degrees) when that one is nearer the horizontal (a foot pointing down has
 * no heading along its length, but still one across it). */
static void yaw_only(double out[9], const double R[9]) {
    double yaw = hypot(R[0], R[3]) >= hypot(R[1], R[4]) ? atan2(R[3], R[0]) : atan2(-R[1], R[4]), z[3] = {0, 0, 1};
    kg_rot_axis_angle(out, z, yaw);
}

/* 2-D convex hull (monotone chain) of n points in place; returns the count. */
static int hull2(double (*p)[2], int n) {
    for (int i = 1; i < n; i++) /* insertion sort by x, then y */
        for (int j = i; j > 0 && (p[j - 1][0] > p[j][0] || (p[j - 1][0] == p[j][0] && p[j - 1][1] > p[j][1])); j--) {
            double t0 = p[j][0], t1 = p[j][1];
            p[j][0] = p[j - 1][0], p[j][1] = p[j - 1][1], p[j - 1][0] = t0, p[j - 1][1] = t1;
        }
    if (n < 3) return n;
    double h[32][2];
    int k = 0;
    for (int i = 0; i < n; i++) {
        while (k >= 2 && (h[k - 1][0] - h[k - 2][0]) * (p[i][1] - h[k - 2][1]) -
                                 (h[k - 1][1] - h[k - 2][1]) * (p[i][0] - h[k - 2][0]) <= 0)
            k--;
        h[k][0] = p[i][0], h[k][1] = p[i][1], k++;
    }
    for (int i = n - 2, t = k + 1; i >= 0; i--) {
        while (k >= t && (h[k - 1][0] - h[k - 2][0]) * (p[i][1] - h[k - 2][1]) -
                                 (h[k - 1][1] - h[k - 2][1]) * (p[i][0] - h[k - 2][0]) <= 0)
            k--;
        h[k][0] = p[i][0], h[k][1] = p[i][1], k++;
    }
    k--; /* the first point repeats */
    for (int i = 0; i < k; i++) p[i][0] = h[i][0], p[i][1] = h[i][1];
    return k;
}

/* Signed distance of x into a counter-clockwise convex polygon (> 0 inside),
 * and the nearest point inside it that is `margin` from the edges (or its
 * centroid when the polygon is narrower than that) in *in. */
static double poly_distance(const double (*p)[2], int n, const double x[2], double margin, double in[2]) {
    if (n == 0) {
        if (in) in[0] = x[0], in[1] = x[1];
        return -INFINITY;
    }
    double inside = INFINITY, outside = INFINITY, best[2] = {x[0], x[1]};
    int out = 0;
    for (int i = 0; i < n; i++) {
        const double *a = p[i], *b = p[(i + 1) % n];
        double ex = b[0] - a[0], ey = b[1] - a[1], len = sqrt(ex * ex + ey * ey);
        if (len <= 0) continue;
        double side = (ex * (x[1] - a[1]) - ey * (x[0] - a[0])) / len; /* > 0: left of the edge, inside */
        if (side < inside) inside = side;
        if (side < 0) out = 1;
        double t = ((x[0] - a[0]) * ex + (x[1] - a[1]) * ey) / (len * len);
        t = t < 0 ? 0 : t > 1 ? 1 : t;
        double qx = a[0] + t * ex - x[0], qy = a[1] + t * ey - x[1], dd = sqrt(qx * qx + qy * qy);
        if (dd < outside) outside = dd;
    }
    double dist = out ? -outside : inside;
    if (in) {
        /* pull towards the centroid until margin inside (a few bisection steps) */
        double c[2] = {0, 0};
        for (int i = 0; i < n; i++) c[0] += p[i][0] / n, c[1] += p[i][1] / n;
        if (dist >= margin) {
            in[0] = x[0], in[1] = x[1];
        } else {
            double lo = 0, hi = 1; /* fraction of the way to the centroid */
            for (int it = 0; it < 40; it++) {
                double mid = (lo + hi) / 2, y[2] = {x[0] + mid * (c[0] - x[0]), x[1] + mid * (c[1] - x[1])};
                if (poly_distance(p, n, y, 0, NULL) >= margin) hi = mid;
                else lo = mid;
            }
            best[0] = x[0] + hi * (c[0] - x[0]), best[1] = x[1] + hi * (c[1] - x[1]);
            in[0] = best[0], in[1] = best[1];
        }
    }
    return dist;
}

/* The robot's centre of mass at d's pose (after kg_fk); scratch: 4 nlink doubles. */
static void robot_com(const kg_model *r, kg_data *d, double com[3], double *scratch) {
    kg_jacobian_twists(r, d);
    kg_com_jacobian(r, d, com, NULL, scratch);
}

/* The cart-table ZMP of a COM coordinate c from its values h1 before and h2
 * after (s): c - zc / g * c'' (c'' by second differences; 0 at an end). */
static double cart_table_zmp(double before, double c, double after, double h1, double h2, double zc) {
    double acc = h1 > 0 && h2 > 0 ? 2 * ((after - c) / h2 - (c - before) / h1) / (h1 + h2) : 0;
    return c - zc / G * acc;
}

/* ---- the robot's constants ------------------------------------------------------------ */

/* A robot prepared for retargeting (kg_retarget_robot): immutable once built. */
typedef struct kg_retarget_robot {
    const kg_model *model;
    kg_body_map map;
    double leg, arm;              /* lengths at rest */
    double ankle_h;               /* ankle origin above the sole plane */
    double foot_off[2][3];        /* foot link origin from the ankle, in the foot's rest frame */
    double foot_h[2];             /* foot link origin above the sole plane */
    double sole[2][4][3];         /* sole rectangle corners in the foot link's frame */
    double rest_rot[KG_NPART][9]; /* link rotations at rest */
    double com_h;                 /* COM above the soles at rest */
    double com_off[3];            /* COM from the pelvis link's origin at rest (world axes) */
    unsigned char *leg_cols[2];   /* [dof] the columns that move each foot relative to the root */
    unsigned char *stance_cols;   /* [dof + 6] both legs' columns */
    double *stance_w;             /* [dof + 6] column weights: the root moves, and turns only a little */
    kg_collision_model cm;        /* for the self-collision count */
    int have_cm;
    unsigned char *check;         /* [npair] pairs checked: neither adjacent, declared nor touching at rest
                                   * (NULL: none) */
    double *vmax;                 /* [dof] velocity limit per column (INFINITY: none) */
    double spread;                /* widest lateral distance between planted ankles (robot_spread) */
    double width;                 /* the narrowest stance clear of collisions (robot_width) */
    double seconds;               /* to prepare */
} robot_info;

static double dist3(const double *a, const double *b) {
    double d[3] = {a[0] - b[0], a[1] - b[1], a[2] - b[2]};
    return kg_vec3_norm(d);
}

/* The widest stance the legs hold with flat soles: the ankles' lateral distance
 * at rest plus, for each leg, its height times the sine of the lean its ankle
 * roll allows (a straight leg leaning sideways tilts its sole by the lean, and
 * only the ankle's roll turns it back; the knee bends about the other axis).
 * A dancer's stance can be wider than that: the solver then bows the trunk or
 * tilts the soles, and the planted feet slide (G1's ankle roll is +-15 deg:
 * Bandai's dance-short stood 0.65 m wide where G1 holds 0.57, and slid 8 mm).
 * SPREAD_USE keeps a fifth of the range for the trunk's moves (at the full
 * range the feet still slid 3 mm where the knees straightened). The ankle
 * roll: a limited revolute joint between knee and foot whose axis points
 * forward at rest; INFINITY when there is none or it turns 90 degrees. */
static double robot_spread(const kg_model *r, const kg_data *d, const int *L) {
    double lean = INFINITY;
    for (int s = 0; s < 2; s++) {
        int knee = L[s ? KG_PART_KNEE_R : KG_PART_KNEE_L];
        double side_lean = INFINITY;
        for (int l = L[s ? KG_PART_FOOT_R : KG_PART_FOOT_L]; l > 0 && l != knee; l = r->link[l].parent) {
            const kg_joint *J = &r->joint[l - 1]; /* joint j moves link j + 1 */
            if (J->type != KG_JOINT_REVOLUTE || !kg_joint_is_limited(J)) continue;
            double a[3];
            kg_mat3_vec(a, d->link_rot + 9 * l, J->axis);
            if (fabs(a[0]) > 0.9) side_lean = fmin(fabs(J->lower), fabs(J->upper));
        }
        if (!(side_lean < 1.5707963267948966)) return INFINITY;
        lean = fmin(lean, side_lean);
    }
    const double *P = d->link_pos;
    int al = L[KG_PART_ANKLE_L], ar = L[KG_PART_ANKLE_R], hl = L[KG_PART_HIP_L], hr = L[KG_PART_HIP_R];
    double h = 0.5 * (P[3 * hl + 2] - P[3 * al + 2] + P[3 * hr + 2] - P[3 * ar + 2]);
    return fabs(P[3 * al + 1] - P[3 * ar + 1]) + 2 * h * sin(SPREAD_USE * lean);
}

/* How close the ankles can stand with no pair to watch colliding: from the
 * rest pose both feet moved towards each other, flat, in steps of
 * WIDTH_STEP, the legs and the root solved, until a pair collides (thighs,
 * knees or feet meet) or the legs cannot follow; the ankles' lateral distance
 * at the last step clear (0 without collision geometry): G1 0.077 m, JVRC-1
 * 0.102, Talos 0.150 (its thighs are thick). */
static double robot_width(const kg_model *r, kg_data *d, const robot_info *ri) {
    const int *L = ri->map.link;
    int al = L[KG_PART_ANKLE_L], ar = L[KG_PART_ANKLE_R];
    const double *P = d->link_pos;
    double u[3] = {P[3 * al] - P[3 * ar], P[3 * al + 1] - P[3 * ar + 1], 0};
    double rest = kg_vec3_norm(u), width = 0;
    if (!ri->have_cm || !ri->check || !ri->stance_cols || !(rest > 0)) return width;
    for (int a = 0; a < 2; a++) u[a] /= rest;
    kg_ik_target t[2];
    double x0[2][3]; /* the feet at rest (d moves) */
    memset(t, 0, sizeof t);
    for (int s = 0; s < 2; s++) {
        t[s].link = L[s ? KG_PART_FOOT_R : KG_PART_FOOT_L], t[s].base = -1, t[s].axes = KG_IK_POSE, t[s].weight = 1;
        kg_vec3_copy(t[s].pos, P + 3 * t[s].link);
        kg_vec3_copy(x0[s], P + 3 * t[s].link);
        kg_mat3_copy(t[s].rot, d->link_rot + 9 * t[s].link);
    }
    double *q0 = malloc(((size_t)r->nq + 1) * sizeof *q0);
    kg_ik_work *w = kg_ik_work_new(r, 2);
    kg_collision_work *cw = kg_collision_work_new(&ri->cm);
    unsigned char *hit = malloc((size_t)ri->cm.npair + 1);
    if (q0 && w && cw && hit) {
        memcpy(q0, d->q, (size_t)r->nq * sizeof *q0);
        kg_ik_options io;
        kg_ik_defaults(&io);
        io.restarts = -1, io.max_iterations = 100, io.tol_pos = io.tol_rot = 1e-4;
        io.active = ri->stance_cols, io.weight = ri->stance_w;
        io.floating_base = 1;
        double base[12];
        kg_vec3_copy(base, d->base_pos), kg_mat3_copy(base + 3, d->base_rot);
        width = rest;
        for (double m = WIDTH_STEP; m < rest / 2; m += WIDTH_STEP) {
            for (int a = 0; a < 2; a++) t[0].pos[a] = x0[0][a] - m * u[a], t[1].pos[a] = x0[1][a] + m * u[a];
            kg_ik_result res;
            kg_ik_solve(r, d, t, 2, &io, w, &res);
            kg_fk(r, d);
            if (res.pos_error > 1e-3 || kg_self_collisions(&ri->cm, d, cw, ri->check, hit) > 0) break;
            width = rest - 2 * m;
        }
        memcpy(d->q, q0, (size_t)r->nq * sizeof *q0);
        kg_vec3_copy(d->base_pos, base), kg_mat3_copy(d->base_rot, base + 3);
        kg_fk(r, d);
    }
    free(q0);
    free(hit);
    kg_ik_work_free(w);
    kg_collision_work_free(cw);
    return width;
}

static int robot_setup(const kg_model *r, const kg_body_map *map, const kg_link_pair *ignore, int nignore,
                       robot_info *ri, kg_diags *dg) {
    memset(ri, 0, sizeof *ri);
    ri->model = r;
    for (int k = 0; k < KG_NPART; k++) ri->map.link[k] = -1;
    if (map) ri->map = *map;
    if (kg_body_map_find(r, &ri->map, dg) != 0) return -1;
    const int *L = ri->map.link;
    kg_data *d = kg_data_new(r);
    kg_fk(r, d);
    const double *P = d->link_pos, *R = d->link_rot;
    for (int s = 0; s < 2; s++) {
        int hip = s ? KG_PART_HIP_R : KG_PART_HIP_L;
        ri->leg += 0.5 * (dist3(P + 3 * L[hip], P + 3 * L[hip + 1]) + dist3(P + 3 * L[hip + 1], P + 3 * L[hip + 2]));
        int sh = s ? KG_PART_SHOULDER_R : KG_PART_SHOULDER_L;
        ri->arm += 0.5 * (dist3(P + 3 * L[sh], P + 3 * L[sh + 1]) + dist3(P + 3 * L[sh + 1], P + 3 * L[sh + 2]));
    }
    for (int k = 0; k < KG_NPART; k++)
        if (L[k] >= 0) kg_mat3_copy(ri->rest_rot[k], R + 9 * L[k]);
    /* the soles: the collision shapes of the ankle's subtree, their corners in the
     * foot link's frame; the sole is the lowest level, its rectangle the corners
     * within 2 cm of it */
    kg_mesh_cache *mc = kg_mesh_cache_new();
    int have_cm = ri->have_cm = kg_collision_model_build(r, mc, &ri->cm, dg) == 0;
    if (have_cm && nignore > 0) kg_collision_model_declare(&ri->cm, ignore, nignore);
    double sole_z = INFINITY;
    for (int s = 0; s < 2; s++) {
        int ankle = L[s ? KG_PART_ANKLE_R : KG_PART_ANKLE_L], foot = L[s ? KG_PART_FOOT_R : KG_PART_FOOT_L];
        const double *Rf = R + 9 * foot, *pf = P + 3 * foot;
        double pts[256][3];
        int np = 0;
        for (int l = ankle; have_cm && l < r->nlink; l++) {
            int below = 0;
            for (int u = l; u >= 0; u = r->link[u].parent) below |= u == ankle;
            if (!below) continue;
            for (int k = ri->cm.link_first[l]; k < ri->cm.link_first[l] + ri->cm.link_count[l] && np < 248; k++) {
                const kg_convex *c = &ri->cm.shape[k];
                for (int corner = 0; corner < 8; corner++) {
                    double v[3] = {corner & 1 ? c->hi[0] : c->lo[0], corner & 2 ? c->hi[1] : c->lo[1],
                                   corner & 4 ? c->hi[2] : c->lo[2]}, vl[3], w[3], dw[3];
                    kg_mat3_vec(vl, c->rot, v);
                    for (int a = 0; a < 3; a++) vl[a] += c->pos[a];
                    kg_mat3_vec(w, R + 9 * l, vl);
                    for (int a = 0; a < 3; a++) dw[a] = w[a] + P[3 * l + a] - pf[a];
                    kg_mat3_tvec(pts[np++], Rf, dw);
                }
            }
        }
        double lo[2] = {INFINITY, INFINITY}, hi[2] = {-INFINITY, -INFINITY}, zmin = INFINITY;
        for (int i = 0; i < np; i++) zmin = fmin(zmin, pts[i][2]);
        for (int i = 0; i < np; i++)
            if (pts[i][2] <= zmin + 0.02)
                for (int a = 0; a < 2; a++) lo[a] = fmin(lo[a], pts[i][a]), hi[a] = fmax(hi[a], pts[i][a]);
        if (np == 0 || !(hi[0] > lo[0]) || !(hi[1] > lo[1])) {
            kg_diag_add(dg, KG_WARNING, "retarget.no_sole", r->source, 0, NULL,
                        "the %s foot of '%s' has no collision geometry: a 20 x 10 cm sole at its link's origin "
                        "is assumed", s ? "right" : "left", r->name ? r->name : "");
            lo[0] = -0.08, hi[0] = 0.12, lo[1] = -0.05, hi[1] = 0.05, zmin = 0;
        }
        for (int k = 0; k < 4; k++) {
            ri->sole[s][k][0] = k & 1 ? hi[0] : lo[0];
            ri->sole[s][k][1] = k & 2 ? hi[1] : lo[1];
            ri->sole[s][k][2] = zmin;
        }
        ri->foot_h[s] = -zmin; /* at rest the foot link is level (robots stand on flat feet) */
        double sz = pf[2] + zmin;
        if (sz < sole_z) sole_z = sz;
        double da[3];
        for (int a = 0; a < 3; a++) da[a] = pf[a] - P[3 * ankle + a];
        kg_mat3_tvec(ri->foot_off[s], Rf, da);
        ri->ankle_h += 0.5 * (P[3 * ankle + 2] - sz);
    }
    kg_mesh_cache_free(mc);
    if (have_cm && ri->cm.npair > 0) { /* the pairs to watch: those apart at rest that may meet */
        kg_collision_work *cw = kg_collision_work_new(&ri->cm);
        unsigned char *hit = malloc((size_t)ri->cm.npair);
        ri->check = malloc((size_t)ri->cm.npair);
        if (cw && ri->check && hit) {
            for (int k = 0; k < ri->cm.npair; k++) ri->check[k] = !ri->cm.adjacent[k] && !ri->cm.declared[k];
            kg_self_collisions(&ri->cm, d, cw, ri->check, hit);
            for (int k = 0; k < ri->cm.npair; k++) ri->check[k] &= !hit[k];
            /* from here on hull hits are confirmed on the meshes: JVRC-1's
             * pelvis hull covers the hips' sockets (296 -> 3 frames on
             * walk_circle); the pairs watched stay those apart as hulls at rest */
            ri->cm.exact = 1;
        } else {
            free(ri->check);
            ri->check = NULL;
        }
        kg_collision_work_free(cw);
        free(hit);
    }
    double com[3], *scratch = malloc(((size_t)r->nlink + 1) * 4 * sizeof *scratch);
    robot_com(r, d, com, scratch);
    free(scratch);
    ri->com_h = com[2] - sole_z;
    for (int a = 0; a < 3; a++) ri->com_off[a] = com[a] - P[3 * L[KG_PART_PELVIS] + a];
    for (int s = 0; s < 2; s++) {
        ri->leg_cols[s] = calloc((size_t)r->dof + 6, 1);
        if (ri->leg_cols[s]) kg_jacobian_columns(r, L[s ? KG_PART_FOOT_R : KG_PART_FOOT_L], -1, ri->leg_cols[s]);
    }
    ri->stance_cols = calloc((size_t)r->dof + 6, 1);
    ri->stance_w = malloc(((size_t)r->dof + 6) * sizeof *ri->stance_w);
    if (ri->stance_cols && ri->stance_w && ri->leg_cols[0] && ri->leg_cols[1]) {
        for (int c = 0; c < r->dof + 6; c++) {
            ri->stance_cols[c] = ri->leg_cols[0][c] | ri->leg_cols[1][c];
            ri->stance_w[c] = c < r->dof + 3 ? 1 : STANCE_TURN_WEIGHT;
        }
    }
    ri->vmax = malloc(((size_t)r->dof + 6) * sizeof *ri->vmax);
    for (int c = 0; c < r->dof; c++) ri->vmax[c] = INFINITY;
    for (int j = 0; j < r->njoint; j++) {
        const kg_joint *J = &r->joint[j];
        if (J->dofadr < 0 || !(J->velocity > 0)) continue;
        for (int c = 0; c < J->nv; c++) ri->vmax[J->dofadr + c] = J->velocity;
    }
    ri->spread = robot_spread(r, d, L);
    ri->width = robot_width(r, d, ri);
    kg_data_free(d);
    return 0;
}

/* ---- the source ----------------------------------------------------------------------- */

typedef struct source_info {
    kg_body_map map;
    double align[9];     /* rows: forward, left, up in source coordinates */
    double origin[3];    /* the pelvis at frame 0, on the ankle level */
    double ankle_level, toe_level;
    double foot_pitch[2]; /* the ankle-to-toe line's pitch (down > 0) when the foot is flat */
    double foot_fix[2][9]; /* the flat foot's frame in the ankle link's frame (when foot_fixed) */
    int foot_fixed[2];
    double leg, arm;
    double s_leg, s_arm;
} source_info;

/* Part positions of the source at frame f, aligned (x forward, y left, z up, metres
 * unscaled) relative to the origin. */
static void source_parts(const kg_model *s, const kg_motion *clip, kg_data *d, const source_info *si, int f,
                         double out[KG_NPART][3]) {
    kg_motion_pose(clip, f, d);
    kg_fk(s, d);
    for (int k = 0; k < KG_NPART; k++) {
        int l = si->map.link[k];
        double v[3] = {0, 0, 0};
        if (l >= 0)
            for (int a = 0; a < 3; a++) v[a] = d->link_pos[3 * l + a] - si->origin[a];
        kg_mat3_vec(out[k], si->align, v);
    }
}

static int source_setup(const kg_model *s, const kg_motion *clip, const kg_retarget_options *o, source_info *si,
                        kg_data *d, kg_diags *dg) {
    memset(si, 0, sizeof *si);
    for (int k = 0; k < KG_NPART; k++) si->map.link[k] = -1;
    if (o->source_map) si->map = *o->source_map;
    if (kg_body_map_find(s, &si->map, dg) != 0) return -1;
    kg_mat3_identity(si->align);
    double yaw_axis[3] = {0, 0, 0};
    double raw[KG_NPART][3];
    /* the up axis: where the pelvis is above the ankles, over the clip, snapped to
     * the nearest coordinate axis */
    double up[3] = {0, 0, 0};
    int step = clip->nframes > 400 ? clip->nframes / 400 : 1;
    for (int f = 0; f < clip->nframes; f += step) {
        source_parts(s, clip, d, si, f, raw);
        for (int a = 0; a < 3; a++)
            up[a] += raw[KG_PART_PELVIS][a] - 0.5 * (raw[KG_PART_ANKLE_L][a] + raw[KG_PART_ANKLE_R][a]);
    }
    int ax = 0;
    for (int a = 1; a < 3; a++)
        if (fabs(up[a]) > fabs(up[ax])) ax = a;
    double u[3] = {0, 0, 0};
    u[ax] = up[ax] > 0 ? 1 : -1;
    /* the source's own turn about that axis (tests: a clip that starts facing elsewhere) */
    if (o->source_yaw != 0) {
        kg_vec3_copy(yaw_axis, u);
        kg_rot_axis_angle(d->base_rot, yaw_axis, o->source_yaw);
    }
    /* facing at frame 0 */
    source_parts(s, clip, d, si, 0, raw);
    double left[3], fwd[3];
    for (int a = 0; a < 3; a++) left[a] = raw[KG_PART_HIP_L][a] - raw[KG_PART_HIP_R][a];
    double lu = kg_vec3_dot(left, u);
    for (int a = 0; a < 3; a++) left[a] -= lu * u[a];
    normalize(left);
    kg_vec3_cross(fwd, left, u);
    for (int a = 0; a < 3; a++) si->align[a] = fwd[a], si->align[3 + a] = left[a], si->align[6 + a] = u[a];
    /* lengths (frame 0) */
    for (int k = 0; k < 2; k++) {
        int hip = k ? KG_PART_HIP_R : KG_PART_HIP_L, sh = k ? KG_PART_SHOULDER_R : KG_PART_SHOULDER_L;
        si->leg += 0.5 * (dist3(raw[hip], raw[hip + 1]) + dist3(raw[hip + 1], raw[hip + 2]));
        si->arm += 0.5 * (dist3(raw[sh], raw[sh + 1]) + dist3(raw[sh + 1], raw[sh + 2]));
    }
    /* the origin: the pelvis at frame 0 (raw is still in source coordinates) */
    kg_vec3_copy(si->origin, raw[KG_PART_PELVIS]);
    for (int a = 0; a < 3; a++) si->align[a] = fwd[a], si->align[3 + a] = left[a], si->align[6 + a] = u[a];
    /* levels: the lowest ankle and toe over the clip */
    si->ankle_level = si->toe_level = INFINITY;
    for (int f = 0; f < clip->nframes; f++) {
        source_parts(s, clip, d, si, f, raw);
        for (int k = 0; k < 2; k++) {
            si->ankle_level = fmin(si->ankle_level, raw[k ? KG_PART_ANKLE_R : KG_PART_ANKLE_L][2]);
            si->toe_level = fmin(si->toe_level, raw[k ? KG_PART_FOOT_R : KG_PART_FOOT_L][2]);
        }
    }
    /* the flat foot: the ankle-to-toe line's mean pitch over the frames where
     * both are within a few centimetres of their lowest; and, where the ankle's
     * link carries the toe, the flat foot's frame (that line's heading, z up) in
     * the link's frame, averaged over those frames: the foot's turn at
     * any frame then comes from its link, also when it points down */
    double sum[2] = {0, 0}, tol = 0.04 * si->leg, fix[2][9];
    int cnt[2] = {0, 0};
    memset(fix, 0, sizeof fix);
    for (int f = 0; f < clip->nframes; f += step) {
        source_parts(s, clip, d, si, f, raw);
        for (int k = 0; k < 2; k++) {
            const double *an = raw[k ? KG_PART_ANKLE_R : KG_PART_ANKLE_L], *to = raw[k ? KG_PART_FOOT_R : KG_PART_FOOT_L];
            if (an[2] > si->ankle_level + tol || to[2] > si->toe_level + tol) continue;
            sum[k] += atan2(an[2] - to[2], hypot(to[0] - an[0], to[1] - an[1]));
            cnt[k]++;
            double x[3] = {to[0] - an[0], to[1] - an[1], 0}, z[3] = {0, 0, 1}, F[9], Rl[9], O[9];
            int l = si->map.link[k ? KG_PART_ANKLE_R : KG_PART_ANKLE_L];
            if (kg_vec3_norm(x) < 1e-9) continue;
            frame_xz(F, x, z);
            kg_mat3_mul(Rl, si->align, d->link_rot + 9 * l);
            kg_mat3_mul_at(O, Rl, F);
            for (int i = 0; i < 9; i++) fix[k][i] += O[i];
        }
    }
    for (int k = 0; k < 2; k++) {
        si->foot_pitch[k] = cnt[k] ? sum[k] / cnt[k] : 0;
        int an = si->map.link[k ? KG_PART_ANKLE_R : KG_PART_ANKLE_L], to = si->map.link[k ? KG_PART_FOOT_R : KG_PART_FOOT_L];
        for (int l = to; l >= 0 && l != an; l = s->link[l].parent) /* the toe below the ankle's link */
            if (s->link[l].parent == an) si->foot_fixed[k] = cnt[k] > 0;
        if (!si->foot_fixed[k]) continue;
        double x[3] = {fix[k][0], fix[k][3], fix[k][6]}, z[3] = {fix[k][2], fix[k][5], fix[k][8]};
        frame_xz(si->foot_fix[k], x, z);
    }
    return si->leg > 0 && si->arm > 0 ? 0 : -1;
}

/* ---- per-frame state ------------------------------------------------------------------ */

typedef struct slot {
    int frame;
    double kp[KG_NPART][3];     /* mapped keypoints (robot space) */
    double pelvis_rot[9], chest_rot[9], foot_rot[2][9];
    unsigned char raw[2], closed[2], contact[2];
    double ankle_speed[2];               /* horizontal */
    double pin_pos[2][3], pin_R[2][9];   /* a planted foot's pin (its phase's) */
    double foot_pos[2][3], foot_R[2][9]; /* the feet's link targets */
    double near_pin[2];                  /* a swinging foot's blend towards the pin it lands on (0..1) */
    double poly[8][2];                   /* the support polygon (counter-clockwise) */
    int npoly;
    double com_est[2];                   /* the COM the source's motion implies */
    double zmp_ref[2];                   /* its ZMP, moved into the support polygon */
} slot;

typedef struct pipe {
    const kg_model *src, *robot;
    const kg_motion *clip;
    const kg_retarget_options *o;
    source_info si;
    const robot_info *ri;
    kg_collision_work *cw;           /* the self-collision checks' */
    unsigned char *hit;              /* [npair] */
    unsigned char *cols, *pair_cols; /* [dof + 6]: the columns a push may use */
    kg_data *ds, *d;
    kg_ik_work *w;
    slot *ring;
    int W, L, N, H; /* ring size, contact filter, preview steps, ZMP difference step */
    int K;          /* frames over which a foot lands on its pin and leaves it */
    int last_feet;  /* the last frame whose feet targets are set */
    int last_pin;   /* the last frame whose pins are set */
    double dt;
    double *lower, *upper, *prev;
    double *rest;  /* [nq] the posture the IK stays near: zero within limits */
    double *scratch;
    kg_preview pv;
    kg_preview_axis ax[2];
    double *refs;
    int pushed;    /* a solve of this frame pushed a self-collision apart */
    int clear;     /* the pose is as avoid() last left it, with no pair touching */
    int narrowed;  /* pins brought within the robot's widest stance */
    int widened;   /* pins moved beside the other foot's (beside()) */
    int delayed;   /* frames where a foot's landing was put off */
    int retreats;  /* frames where retreat() moved joints back */
    int fallbacks; /* frames where fall_back() moved the whole pose back */
    int turns;     /* frames where turn_root() turned the root */
    int whole_pushes; /* frames where push_all()'s push was kept */
    double prev_base[12]; /* the previous frame's root: position, rotation */
    double *held;  /* [nq] scratch of retreat() */
    double *kept;  /* [nq + 12] scratch of hold_legs() and fall_back(): a pose (save_pose()) */
} pipe;

static slot *at(pipe *p, int f) { return &p->ring[((f % p->W) + p->W) % p->W]; }

/* Stage A: the source at frame f (clamped to the clip) mapped into robot space. */
static void stage_source(pipe *p, int f) {
    slot *s = at(p, f);
    int cf = f < p->clip->nframes ? f : p->clip->nframes - 1;
    double raw[KG_NPART][3];
    source_parts(p->src, p->clip, p->ds, &p->si, cf, raw);
    s->frame = f;
    const double sl = p->si.s_leg, sa = p->si.s_arm;
    for (int k = 0; k < KG_NPART; k++) {
        s->kp[k][0] = sl * raw[k][0];
        s->kp[k][1] = sl * raw[k][1];
        s->kp[k][2] = sl * (raw[k][2] - p->si.ankle_level) + p->ri->ankle_h;
    }
    for (int side = 0; side < 2; side++) { /* arms from the shoulders, by the arm ratio */
        int sh = side ? KG_PART_SHOULDER_R : KG_PART_SHOULDER_L;
        for (int k = sh + 1; k <= sh + 2; k++)
            for (int a = 0; a < 3; a++) s->kp[k][a] = s->kp[sh][a] + sa * (raw[k][a] - raw[sh][a]);
    }
    double y[3], z[3];
    for (int a = 0; a < 3; a++) {
        y[a] = raw[KG_PART_HIP_L][a] - raw[KG_PART_HIP_R][a];
        z[a] = raw[KG_PART_CHEST][a] - raw[KG_PART_PELVIS][a];
    }
    frame_yz(s->pelvis_rot, y, z);
    for (int a = 0; a < 3; a++) y[a] = raw[KG_PART_SHOULDER_L][a] - raw[KG_PART_SHOULDER_R][a];
    frame_yz(s->chest_rot, y, z);
    double up[3] = {0, 0, 1};
    for (int side = 0; side < 2; side++) {
        int ankle = side ? KG_PART_ANKLE_R : KG_PART_ANKLE_L, toe = ankle + 1;
        if (p->si.foot_fixed[side]) { /* the ankle link's turn */
            double Rl[9];
            kg_mat3_mul(Rl, p->si.align, p->ds->link_rot + 9 * p->si.map.link[ankle]);
            kg_mat3_mul(s->foot_rot[side], Rl, p->si.foot_fix[side]);
        } else {
            double x[3];
            for (int a = 0; a < 3; a++) x[a] = raw[toe][a] - raw[ankle][a];
            if (kg_vec3_norm(x) < 1e-9) kg_vec3_copy(x, s->pelvis_rot), x[1] = s->pelvis_rot[3], x[2] = s->pelvis_rot[6];
            /* the toe line lifted by the flat foot's pitch about the foot's lateral
             * axis (normal to the shin and the toe line): a flat source foot gives
             * a flat robot foot */
            double shin[3], lat[3], Rp[9], xf[3];
            for (int a = 0; a < 3; a++) shin[a] = raw[ankle - 1][a] - raw[ankle][a];
            kg_vec3_cross(lat, shin, x);
            if (kg_vec3_norm(lat) > 1e-9 * kg_vec3_norm(shin) * kg_vec3_norm(x)) {
                normalize(lat);
                kg_rot_axis_angle(Rp, lat, -p->si.foot_pitch[side]);
                kg_mat3_vec(xf, Rp, x);
                kg_vec3_copy(x, xf);
            }
            frame_xz(s->foot_rot[side], x, up);
        }
        /* down: the heel (ankle) near its lowest level and slow; or, once down,
         * the ball (toe) near its lowest level and slow (rolling onto the toes
         * before take-off keeps the foot down: double support; a phase that
         * starts on the toes, heel high, is not one a flat robot foot can copy) */
        double ha = sl * (raw[ankle][2] - p->si.ankle_level), ht = sl * (raw[toe][2] - p->si.toe_level), va = 0, vt = 0;
        if (f > 0 && cf == f) {
            const slot *q = at(p, f - 1);
            va = hypot(s->kp[ankle][0] - q->kp[ankle][0], s->kp[ankle][1] - q->kp[ankle][1]) / p->dt;
            vt = hypot(s->kp[toe][0] - q->kp[toe][0], s->kp[toe][1] - q->kp[toe][1]) / p->dt;
        }
        s->ankle_speed[side] = va;
        int heel = ha < p->o->contact_height && va < p->o->contact_speed;
        int ball = ht < p->o->contact_height && vt < p->o->contact_speed;
        s->raw[side] = heel || (ball && f > 0 && at(p, f - 1)->raw[side]);
    }
}

/* Contact filter at frame f (raw known up to f + 2L): close gaps shorter than L,
 * then open: keep runs of at least L. */
static void stage_contact(pipe *p, int f) {
    const int L = p->L;
    for (int side = 0; side < 2; side++) {
        /* closing at frame g: raw, or raw on both sides within L (the first
         * call closes the frames before it too) */
        for (int g = f > 0 ? f + L - 1 : 0; g <= f + L - 1; g++) {
            slot *s = at(p, g);
            int before = 0, after = 0;
            for (int j = 1; j <= L; j++) {
                if (g - j >= 0 && at(p, g - j)->raw[side]) before = 1;
                if (at(p, g + j)->raw[side]) after = 1;
            }
            s->closed[side] = s->raw[side] || (before && after);
        }
        /* opening at f: inside a run of L closed frames */
        int keep = 0;
        for (int start = f - L + 1; start <= f && !keep; start++) {
            if (start < 0) continue;
            int all = 1;
            for (int j = start; j < start + L && all; j++) all = at(p, j)->closed[side];
            keep = all;
        }
        at(p, f)->contact[side] = (unsigned char)keep;
    }
}

/* A foot's heading axis y (horizontal, unit) from its link rotation R. */
static void foot_lateral(const pipe *p, int side, const double R[9], double y[3]) {
    double Ry[9];
    kg_mat3_mul_bt(Ry, R, p->ri->rest_rot[side ? KG_PART_FOOT_R : KG_PART_FOOT_L]);
    y[0] = Ry[1], y[1] = Ry[4], y[2] = 0;
    normalize(y);
}

/* The ankle of side's foot whose link is at pos, turned by R. */
static void foot_ankle(const pipe *p, int side, const double pos[3], const double R[9], double a[3]) {
    double off[3];
    kg_mat3_vec(off, R, p->ri->foot_off[side]);
    for (int k = 0; k < 3; k++) a[k] = pos[k] - off[k];
}

/* How far an ankle at a (of side) must move along the planted other foot's
 * lateral axis y to stand at least the robot's narrowest stance (robot_width) beside that
 * foot's ankle ao, on its own side (the left foot to the left): 0 when it
 * does. A person walking a circle or dancing sets a foot in front of the
 * other, even across it; the robot's thighs and shins are thicker than
 * theirs and met the planted leg (Talos walk_circle: 58 frames). */
static double beside(const pipe *p, int side, const double a[3], const double ao[3], const double y[3]) {
    double sg = side ? -1 : 1, lat = sg * ((a[0] - ao[0]) * y[0] + (a[1] - ao[1]) * y[1]);
    return lat < p->ri->width ? sg * (p->ri->width - lat) : 0;
}

/* The corners of side's sole in the world with its foot link at pos, turned by R. */
static void sole_at(const pipe *p, int side, const double pos[3], const double R[9], double out[4][3]) {
    for (int k = 0; k < 4; k++) {
        kg_mat3_vec(out[k], R, p->ri->sole[side][k]);
        for (int a = 0; a < 3; a++) out[k][a] += pos[a];
    }
}

/* Are the soles of feet a and b (their links at pa, pb, turned by Ra, Rb; flat)
 * apart on the ground by gap or more? Their rectangles' four axes as
 * separating axes. */
static int soles_apart(const pipe *p, int a, const double pa[3], const double Ra[9], int b, const double pb[3],
                       const double Rb[9], double gap) {
    double c[2][4][3];
    sole_at(p, a, pa, Ra, c[0]);
    sole_at(p, b, pb, Rb, c[1]);
    const double *R[2] = {Ra, Rb};
    for (int i = 0; i < 4; i++) {
        double u[2] = {R[i / 2][i % 2], R[i / 2][3 + i % 2]}, n = hypot(u[0], u[1]);
        if (!(n > 0)) continue;
        double lo[2] = {INFINITY, INFINITY}, hi[2] = {-INFINITY, -INFINITY};
        for (int f = 0; f < 2; f++)
            for (int k = 0; k < 4; k++) {
                double t = (c[f][k][0] * u[0] + c[f][k][1] * u[1]) / n;
                lo[f] = fmin(lo[f], t), hi[f] = fmax(hi[f], t);
            }
        if (hi[0] + gap <= lo[1] || hi[1] + gap <= lo[0]) return 1;
    }
    return 0;
}

/* A new pin (of side, at frame g) brought beside the other foot's (beside(),
 * along that foot's lateral axis) and within the robot's widest stance of it,
 * when the other foot is down (its pin set: down the frame before, or landing
 * now and staged first): the ankles' distance along either sole's lateral
 * axis at most ri->spread, the new pin moved along that axis. Returns 1 when
 * it moved the pin in, 2 out (beside), 0 neither. */
static int narrow(pipe *p, int g, int side) {
    int other = !side;
    slot *s = at(p, g);
    const slot *q = g > 0 && at(p, g - 1)->contact[other] ? at(p, g - 1) : other < side ? s : NULL;
    if (!isfinite(p->ri->spread) || !s->contact[other] || !q) return 0;
    double ao[3], an[3], d[2], y[2][3];
    foot_ankle(p, other, q->pin_pos[other], q->pin_R[other], ao);
    foot_ankle(p, side, s->pin_pos[side], s->pin_R[side], an);
    d[0] = an[0] - ao[0], d[1] = an[1] - ao[1];
    foot_lateral(p, other, q->pin_R[other], y[0]);
    foot_lateral(p, side, s->pin_R[side], y[1]);
    double in = beside(p, side, an, ao, y[0]);
    int out = in != 0;
    for (int a = 0; a < 2; a++) s->pin_pos[side][a] += in * y[0][a];
    /* beside the other's ankle, but a foot turned across its front can still
     * tread on it: moved on out until the soles are SOLE_GAP apart */
    const double sg = side ? -1 : 1;
    for (int k = 0; k < 30 && !soles_apart(p, side, s->pin_pos[side], s->pin_R[side], other, q->pin_pos[other],
                                             q->pin_R[other], SOLE_GAP); k++, out = 1)
        for (int a = 0; a < 2; a++) s->pin_pos[side][a] += sg * 0.01 * y[0][a];
    if (out) return 2;
    int k = fabs(d[0] * y[1][0] + d[1] * y[1][1]) > fabs(d[0] * y[0][0] + d[1] * y[0][1]);
    double lat = d[0] * y[k][0] + d[1] * y[k][1], excess = fabs(lat) - p->ri->spread;
    if (excess <= 0) return 0;
    for (int a = 0; a < 2; a++) s->pin_pos[side][a] -= (lat > 0 ? excess : -excess) * y[k][a];
    return 1;
}

/* The pin of a contact phase starting at frame g (contacts known up to g + K):
 * where the source's ankle is when it is slowest in the phase's first K
 * frames (a heel strike is still moving), flat, turned as it is there. */
static void stage_pins(pipe *p, int g) {
    slot *s = at(p, g);
    for (int side = 0; side < 2; side++) {
        if (!s->contact[side]) continue;
        if (g > 0 && at(p, g - 1)->contact[side]) {
            kg_vec3_copy(s->pin_pos[side], at(p, g - 1)->pin_pos[side]);
            kg_mat3_copy(s->pin_R[side], at(p, g - 1)->pin_R[side]);
            continue;
        }
        int ankle = side ? KG_PART_ANKLE_R : KG_PART_ANKLE_L, foot = side ? KG_PART_FOOT_R : KG_PART_FOOT_L;
        const slot *best = s;
        for (int j = 1; j <= p->K && at(p, g + j)->contact[side]; j++)
            if (at(p, g + j)->ankle_speed[side] < best->ankle_speed[side]) best = at(p, g + j);
        double Ry[9], off[3];
        yaw_only(Ry, best->foot_rot[side]);
        kg_mat3_mul(s->pin_R[side], Ry, p->ri->rest_rot[foot]);
        kg_mat3_vec(off, s->pin_R[side], p->ri->foot_off[side]);
        for (int a = 0; a < 2; a++) s->pin_pos[side][a] = best->kp[ankle][a] + off[a];
        s->pin_pos[side][2] = p->ri->foot_h[side];
        int moved = narrow(p, g, side);
        p->narrowed += moved == 1, p->widened += moved == 2;
    }
}

/* Moves pose (pos, R) the fraction u of the way to (pos2, R2): positions
 * along the line, the rotation about the axis of the turn between them. */
static void blend_pose(double pos[3], double R[9], const double pos2[3], const double R2[9], double u) {
    double Rd[9], w[3], Ru[9], R0[9];
    for (int a = 0; a < 3; a++) pos[a] += u * (pos2[a] - pos[a]);
    kg_mat3_mul_at(Rd, R, R2);
    kg_rot_log(Rd, w);
    double ang = kg_vec3_norm(w);
    if (ang <= 0) return;
    for (int a = 0; a < 3; a++) w[a] /= ang;
    kg_rot_axis_angle(Ru, w, u * ang);
    kg_mat3_copy(R0, R);
    kg_mat3_mul(R, R0, Ru);
}

static void support_polygon(const pipe *p, slot *s);

/* How far a foot's sole reaches below its link's origin, turned by R: the
 * lowest corner's height relative to the origin. */
static double sole_drop(const pipe *p, int side, const double R[9]) {
    double lowest = INFINITY, c[3];
    for (int k = 0; k < 4; k++) {
        kg_mat3_vec(c, R, p->ri->sole[side][k]);
        lowest = fmin(lowest, c[2]);
    }
    return lowest;
}

/* The feet's link targets at frame f (contacts and pins known up to f + K):
 * a planted foot on its pin; a swinging foot follows the source, moving
 * smoothly off the pin it left and onto the one it lands on over K frames,
 * raised so that no sole corner is below the ground. */
static void feet_targets(pipe *p, int f) {
    slot *s = at(p, f);
    for (int side = 0; side < 2; side++) {
        int ankle = side ? KG_PART_ANKLE_R : KG_PART_ANKLE_L, foot = side ? KG_PART_FOOT_R : KG_PART_FOOT_L;
        if (s->contact[side]) {
            kg_vec3_copy(s->foot_pos[side], s->pin_pos[side]);
            kg_mat3_copy(s->foot_R[side], s->pin_R[side]);
            continue;
        }
        double Rl[9], off[3], pos[3];
        kg_mat3_mul(Rl, s->foot_rot[side], p->ri->rest_rot[foot]);
        kg_mat3_vec(off, Rl, p->ri->foot_off[side]);
        for (int a = 0; a < 3; a++) pos[a] = s->kp[ankle][a] + off[a];
        s->near_pin[side] = 0;
        for (int dir = -1; dir <= 1; dir += 2) /* the pin it left, then the pin it lands on */
            for (int j = 1; j <= p->K; j++) {
                int g = f + dir * j;
                if (g < 0 || g >= p->clip->nframes || !at(p, g)->contact[side]) continue;
                double u = 1 - (double)j / (p->K + 1);
                blend_pose(pos, Rl, at(p, g)->pin_pos[side], at(p, g)->pin_R[side], u);
                if (dir > 0) s->near_pin[side] = u;
                break;
            }
        if (s->contact[!side]) { /* beside the planted foot */
            double a[3], ao[3], y[3];
            /* off is from the source foot's turn, before the blend towards the
             * pins turned Rl: the blended turn's offset would be the consistent
             * one, but it changed which frames touch (JVRC-1 dance-short 122 ->
             * 172, G1 walk-turn 0 -> 1; feet and ZMP met either way) */
            for (int k = 0; k < 3; k++) a[k] = pos[k] - off[k];
            foot_ankle(p, !side, s->pin_pos[!side], s->pin_R[!side], ao);
            foot_lateral(p, !side, s->pin_R[!side], y);
            double in = beside(p, side, a, ao, y);
            for (int k = 0; k < 2; k++) pos[k] += in * y[k];
        }
        double lowest = pos[2] + sole_drop(p, side, Rl);
        if (lowest < 0) pos[2] -= lowest;
        kg_vec3_copy(s->foot_pos[side], pos);
        kg_mat3_copy(s->foot_R[side], Rl);
    }
    support_polygon(p, s);
}

/* The support polygon of a slot: the corners of its planted soles. */
static void support_polygon(const pipe *p, slot *s) {
    double pts[8][2];
    int n = 0;
    for (int side = 0; side < 2; side++) {
        if (!s->contact[side]) continue;
        for (int k = 0; k < 4; k++) {
            double c[3];
            kg_mat3_vec(c, s->foot_R[side], p->ri->sole[side][k]); /* corners are in the link frame */
            pts[n][0] = s->foot_pos[side][0] + c[0];
            pts[n][1] = s->foot_pos[side][1] + c[1];
            n++;
        }
    }
    s->npoly = hull2(pts, n);
    for (int i = 0; i < s->npoly; i++) s->poly[i][0] = pts[i][0], s->poly[i][1] = pts[i][1];
}

/* A swinging foot's weight: w while it swings, rising to a planted foot's as
 * it lands (u: how far it has come onto its pin). */
static double landing_weight(double w, double u, double planted) { return w + u * u * (planted - w); }

/* The COM over com (x, y), as the balance wants it. */
static void com_target(kg_ik_target *T, const double com[2]) {
    memset(T, 0, sizeof *T);
    T->link = KG_IK_COM, T->base = -1, T->axes = KG_IK_X | KG_IK_Y, T->weight = COM_WEIGHT;
    T->pos[0] = com[0], T->pos[1] = com[1];
    kg_mat3_identity(T->rot);
}

/* The IK targets of a frame; com: the COM target (x, y) or NULL; foot_weight:
 * the feet's (lowered for the first frame's approach); yield: a foot touching
 * down while the other stands yields to it (SWING_WEIGHT), for the frame's
 * first solve: pulled onto a pin it could not reach in one frame it dragged
 * the standing foot along (JVRC-1's dance-short: worst slip 315 -> 64-90 mm,
 * still far from met; no other clip changed beyond noise); repin() then sets
 * its pin where it came down. */
static int targets(pipe *p, const slot *s, kg_ik_target *t, const double *com, double foot_weight, int yield) {
    const int *L = p->ri->map.link;
    int n = 0;
    for (int side = 0; side < 2; side++) { /* a planted foot's pose; a swinging foot's position, and
                                            * its turn only as far as the legs allow it easily */
        kg_ik_target *T = &t[n++];
        memset(T, 0, sizeof *T);
        T->link = L[side ? KG_PART_FOOT_R : KG_PART_FOOT_L], T->base = -1;
        T->axes = s->contact[side] ? KG_IK_POSE : KG_IK_POSITION, T->weight = foot_weight;
        if (yield && s->contact[side] && s->contact[!side] && s->frame > 0 && !at(p, s->frame - 1)->contact[side] &&
            at(p, s->frame - 1)->contact[!side])
            T->weight = SWING_WEIGHT;
        kg_vec3_copy(T->pos, s->foot_pos[side]);
        kg_mat3_copy(T->rot, s->foot_R[side]);
        if (!s->contact[side]) {
            /* a swinging foot yields to the planted ones, less so as it lands */
            T->weight = landing_weight(SWING_WEIGHT, s->near_pin[side], foot_weight);
            /* raised for the sole turned as the foot is now, too: its turn weighs
             * little, and a foot tilted past its target's turn went 44 mm under
             * where the leg could not lift it in a frame (Talos 005_02, 10.8 mm left) */
            double lowest = T->pos[2] + sole_drop(p, side, p->d->link_rot + 9 * T->link);
            if (lowest < 0) T->pos[2] -= lowest;
        }
    }
    for (int side = 0; side < 2; side++) {
        kg_ik_target *T = &t[n++];
        *T = t[side];
        T->axes = KG_IK_ROTATION, T->weight = landing_weight(SWING_TURN_WEIGHT, s->near_pin[side], foot_weight);
        if (s->contact[side]) n--;
    }
    static const struct {
        int part;
        double weight;
    } pos_parts[] = {{KG_PART_HIP_L, 3}, {KG_PART_HIP_R, 3}, {KG_PART_KNEE_L, 3}, {KG_PART_KNEE_R, 3},
                     {KG_PART_SHOULDER_L, 0.1}, {KG_PART_SHOULDER_R, 0.1}, {KG_PART_ELBOW_L, 1},
                     {KG_PART_ELBOW_R, 1}, {KG_PART_WRIST_L, 1}, {KG_PART_WRIST_R, 1}};
    for (size_t k = 0; k < sizeof pos_parts / sizeof *pos_parts; k++) {
        kg_ik_target *T = &t[n++];
        memset(T, 0, sizeof *T);
        T->link = L[pos_parts[k].part], T->base = -1, T->axes = KG_IK_POSITION, T->weight = pos_parts[k].weight;
        kg_vec3_copy(T->pos, s->kp[pos_parts[k].part]);
        kg_mat3_identity(T->rot);
    }
    kg_ik_target *T = &t[n++];
    memset(T, 0, sizeof *T);
    T->link = L[KG_PART_PELVIS], T->base = -1, T->axes = KG_IK_ROTATION, T->weight = 1;
    kg_mat3_mul(T->rot, s->pelvis_rot, p->ri->rest_rot[KG_PART_PELVIS]);
    T = &t[n++];
    memset(T, 0, sizeof *T);
    T->link = L[KG_PART_CHEST], T->base = -1, T->axes = KG_IK_ROTATION, T->weight = 1;
    kg_mat3_mul(T->rot, s->chest_rot, p->ri->rest_rot[KG_PART_CHEST]);
    if (com) com_target(&t[n++], com);
    return n;
}

/* Position limits for this frame: the model's, narrowed to what the velocity
 * limits allow in one frame from prev. */
static void frame_limits(pipe *p, const double *prev) {
    const kg_model *r = p->robot;
    for (int c = 0; c < r->dof; c++) p->lower[c] = -INFINITY, p->upper[c] = INFINITY;
    for (int j = 0; j < r->njoint; j++) {
        const kg_joint *J = &r->joint[j];
        if (J->dofadr < 0 || J->type == KG_JOINT_FLOATING) continue;
        for (int c = 0; c < J->nv; c++) {
            int col = J->dofadr + c;
            double lo = -INFINITY, hi = INFINITY;
            if (kg_joint_is_limited(J)) lo = J->lower, hi = J->upper;
            if (prev) {
                double v = p->ri->vmax[col] * p->dt, x = prev[J->qadr + c];
                if (isfinite(v)) lo = fmax(lo, x - v), hi = fmin(hi, x + v);
                if (lo > hi) lo = hi = fmin(fmax(x, lo), hi);
            }
            p->lower[col] = lo, p->upper[col] = hi;
        }
    }
}

/* The corners of a foot's sole in the world. */
static void sole_corners(const pipe *p, const kg_data *d, int side, double out[4][3]) {
    int foot = p->ri->map.link[side ? KG_PART_FOOT_R : KG_PART_FOOT_L];
    sole_at(p, side, d->link_pos + 3 * foot, d->link_rot + 9 * foot, out);
}

/* The lowest corner of a foot's sole above the ground (negative: below). */
static double sole_low(const pipe *p, int side) {
    int foot = p->ri->map.link[side ? KG_PART_FOOT_R : KG_PART_FOOT_L];
    return p->d->link_pos[3 * foot + 2] + sole_drop(p, side, p->d->link_rot + 9 * foot);
}

/* A swinging foot below the ground raised by its leg alone, turned as it is
 * (t[0], t[1]: the feet's targets; planted ones are left to stance()). */
static void lift_swinging(pipe *p, const kg_ik_target *t, kg_ik_options *io) {
    kg_ik_result res;
    for (int side = 0; side < 2; side++) {
        if (!p->ri->leg_cols[side]) continue;
        io->active = p->ri->leg_cols[side];
        if (t[side].axes == KG_IK_POSE) continue;
        double low = sole_low(p, side);
        if (low >= 0) continue;
        kg_ik_target up = t[side];
        up.axes = KG_IK_POSE;
        kg_vec3_copy(up.pos, p->d->link_pos + 3 * up.link);
        kg_mat3_copy(up.rot, p->d->link_rot + 9 * up.link);
        up.pos[2] -= low;
        kg_ik_solve(p->robot, p->d, &up, 1, io, p->w, &res);
    }
}

/* The IK options every solve of a frame shares: no restarts, within the
 * frame's limits, no joint-limit weighting (the limits are hard), light
 * damping, 0.1 mm / 0.1 mrad. */
static void frame_ik_options(const pipe *p, kg_ik_options *io, int iterations) {
    kg_ik_defaults(io);
    io->restarts = -1;
    io->max_iterations = iterations;
    io->tol_pos = 1e-4, io->tol_rot = 1e-4;
    io->limit_gain = -1;
    io->damping_gain = 1e-4;
    io->lower = p->lower, io->upper = p->upper;
}

/* The planted feet (t[0], t[1] with a pose) put back onto their pins by their
 * legs alone, the root and the rest of the body as they are. */
static void pin_planted(pipe *p, const kg_ik_target *t) {
    kg_ik_options io;
    frame_ik_options(p, &io, 8);
    io.tol_pos = 1e-5, io.tol_rot = 1e-5;
    kg_ik_result res;
    for (int side = 0; side < 2; side++) {
        if (!p->ri->leg_cols[side] || t[side].axes != KG_IK_POSE) continue;
        io.active = p->ri->leg_cols[side];
        kg_ik_solve(p->robot, p->d, &t[side], 1, &io, p->w, &res);
    }
    kg_fk(p->robot, p->d);
}

/* The columns between pair k's links but the legs' marked in legs (p->pair_cols).
 * Returns how many. */
static int pair_columns(pipe *p, int k, const int legs[2]) {
    const robot_info *ri = p->ri;
    kg_jacobian_columns(p->robot, ri->cm.pair_b[k], ri->cm.pair_a[k], p->pair_cols);
    int n = 0;
    for (int c = 0; c < p->robot->dof; c++) {
        if ((legs[0] && ri->leg_cols[0][c]) || (legs[1] && ri->leg_cols[1][c])) p->pair_cols[c] = 0;
        n += p->pair_cols[c] != 0;
    }
    return n;
}

/* Are self-collisions avoided (the option on, the robot's pairs to watch and
 * the scratch there)? */
static int watching(const pipe *p) {
    return p->o->avoid_self_collision && p->cw && p->ri->check && p->hit;
}

/* After kg_self_collisions(): a push for each pair found in penetration by
 * AVOID_DEPTH or more appended to targets t[n..] (up to AVOID_PAIRS): a point
 * target on its second link, in its first link's frame, at the deepest
 * overlap's point moved out by the depth plus AVOID_MARGIN. With legs (the
 * legs held), only pairs with columns between them but those legs', the
 * columns gathered in p->cols. Returns the new count. */
static int add_pushes(pipe *p, kg_ik_target *t, int n, const int *legs) {
    const robot_info *ri = p->ri;
    const kg_model *r = p->robot;
    const int n0 = n;
    if (legs) memset(p->cols, 0, (size_t)r->dof + 6);
    for (int k = 0; k < ri->cm.npair && n < n0 + AVOID_PAIRS; k++) {
        int a = ri->cm.pair_a[k], b = ri->cm.pair_b[k];
        double depth, dir[3], pos[3], d[3];
        if (!p->hit[k] || !kg_pair_penetration(&ri->cm, p->cw, k, &depth, dir, pos) || depth < AVOID_DEPTH) continue;
        if (legs) {
            if (!pair_columns(p, k, legs)) continue;
            for (int c = 0; c < r->dof; c++) p->cols[c] |= p->pair_cols[c];
        }
        kg_ik_target *T = &t[n++];
        memset(T, 0, sizeof *T);
        T->link = b, T->base = a, T->axes = KG_IK_POSITION, T->weight = AVOID_WEIGHT;
        kg_mat3_identity(T->rot);
        for (int i = 0; i < 3; i++) d[i] = pos[i] - p->d->link_pos[3 * b + i];
        kg_mat3_tvec(T->point, p->d->link_rot + 9 * b, d);
        for (int i = 0; i < 3; i++) d[i] = pos[i] + dir[i] * (depth + AVOID_MARGIN) - p->d->link_pos[3 * a + i];
        kg_mat3_tvec(T->pos, p->d->link_rot + 9 * a, d);
    }
    return n;
}

/* Self-collision: each pair found in penetration (among those apart at rest)
 * pushed apart: a point target on its second link, in its first link's frame,
 * at the deepest overlap's point moved out by the depth plus AVOID_MARGIN,
 * solved with the frame's targets t over only the columns between the two
 * links but the planted legs' (the root and a planted leg stay as its pin
 * needs them: a pair between two planted legs, feet set crossing as the
 * source's are, is left). A swinging leg moves, its foot's targets kept:
 * a knee swinging into the other shin is pushed off it (Talos walk_circle
 * 264 -> 72 frames left touching, JVRC-1 jesse_dance 99 -> 10).
 * Overlaps shallower than AVOID_DEPTH (10 um) are left (the push is a
 * decision: a threshold keeps rounding-level differences from changing it).
 * Up to AVOID_ROUNDS rounds, each checking again: a push solved against the
 * frame's other targets lands short of its margin, and a hand deep in a thigh's
 * hull (Bandai's elderly walk on G1: 30-60 mm) can need ten; with three rounds
 * and a 0.5 mm threshold 76 of that clip's 190 frames were left touching, now
 * none (frames that come clear early stop early: no slower on 01_01).
 * Returns 1 when it pushed. */
static int avoid(pipe *p, const kg_ik_target *t, int nt) {
    const robot_info *ri = p->ri;
    const kg_model *r = p->robot;
    p->clear = 0;
    if (!watching(p) || !ri->leg_cols[0] || !ri->leg_cols[1] || !p->cols || !p->pair_cols) return 0;
    /* the frame's targets but the planted feet's (planted legs do not move here) */
    const int planted[2] = {t[0].axes == KG_IK_POSE, t[1].axes == KG_IK_POSE};
    kg_ik_target all[NTARGET + AVOID_PAIRS];
    int nt0 = 0;
    for (int k = 0; k < nt; k++)
        if (!(planted[0] && t[k].link == t[0].link) && !(planted[1] && t[k].link == t[1].link)) all[nt0++] = t[k];
    kg_ik_options io;
    frame_ik_options(p, &io, 10);
    io.active = p->cols;
    int pushed = 0;
    for (int round = 0; round < AVOID_ROUNDS; round++) {
        if (kg_self_collisions(&ri->cm, p->d, p->cw, ri->check, p->hit) == 0) {
            p->clear = 1;
            break;
        }
        int n = add_pushes(p, all, nt0, planted);
        if (n == nt0) break;
        kg_ik_result res;
        kg_ik_solve(r, p->d, all, n, &io, p->w, &res);
        kg_fk(r, p->d);
        pushed = 1;
    }
    return pushed;
}

/* The deepest overlap of the pairs to watch (0: none). */
static double overlap(pipe *p) {
    const robot_info *ri = p->ri;
    double worst = 0, depth, dir[3], pos[3];
    if (!p->cw || !ri->check || !p->hit || kg_self_collisions(&ri->cm, p->d, p->cw, ri->check, p->hit) == 0) return 0;
    for (int k = 0; k < ri->cm.npair; k++)
        if (p->hit[k] && kg_pair_penetration(&ri->cm, p->cw, k, &depth, dir, pos)) worst = fmax(worst, depth);
    return worst;
}

/* The legs and the root's position (its turn only a little: STANCE_TURN_WEIGHT)
 * in one solve: planted feet onto their pins and the COM onto its target, a
 * swinging foot held where the whole-body solve placed it, relative to the
 * root (whose move carries it along) or, within SWING_CLEARANCE of the ground,
 * in the world (the root's moves would take it into the ground). Planted feet
 * end on their pins and the COM where the balance wants it, as far as the legs
 * reach (feet first: ten times the COM's weight). A swinging foot below the
 * ground is raised by its leg before and after, and by the root within. */
static void stance(pipe *p, const kg_ik_target *t, const double *com) {
    const kg_model *r = p->robot;
    kg_ik_options io;
    frame_ik_options(p, &io, 8);
    io.tol_pos = 1e-5, io.tol_rot = 1e-5;
    lift_swinging(p, t, &io);
    if (!p->ri->stance_cols || !p->ri->stance_w) return;
    kg_ik_target st[3];
    int n = 0;
    for (int side = 0; side < 2; side++) {
        kg_ik_target *T = &st[n++];
        *T = t[side];
        if (T->axes == KG_IK_POSE) continue;
        T->axes = KG_IK_POSE;
        double low = sole_low(p, side);
        if (low < SWING_CLEARANCE) { /* near the ground, held in the world (the root's moves would
                                       * take it into the ground); below it (its leg alone could
                                       * not lift it), raised: the root rises */
            kg_vec3_copy(T->pos, p->d->link_pos + 3 * T->link);
            kg_mat3_copy(T->rot, p->d->link_rot + 9 * T->link);
            T->pos[2] -= fmin(low, 0);
            T->weight = low < 0 ? FOOT_WEIGHT : 1;
            continue;
        }
        const double *R0 = p->d->link_rot, *x0 = p->d->link_pos;
        double d[3];
        for (int a = 0; a < 3; a++) d[a] = p->d->link_pos[3 * T->link + a] - x0[a];
        kg_mat3_tvec(T->pos, R0, d);
        kg_mat3_mul_at(T->rot, R0, p->d->link_rot + 9 * T->link);
        T->base = 0, T->weight = 1;
    }
    if (com) com_target(&st[n++], com);
    io.max_iterations = STANCE_ITERATIONS;
    io.floating_base = 1;
    io.active = p->ri->stance_cols, io.weight = p->ri->stance_w;
    kg_ik_result res;
    kg_ik_solve(r, p->d, st, n, &io, p->w, &res);
    kg_fk(r, p->d);
    io.floating_base = 0, io.weight = NULL;
    io.max_iterations = 8;
    lift_swinging(p, t, &io);
    kg_fk(r, p->d);
}

/* The legs and the root onto the feet and the COM (stance()), then what
 * still overlaps pushed and the stance solved again, up to twice: the
 * stance's leg moves can bring a hip into a swinging hand, or carry a
 * swinging foot (held relative to the root) into the planted one, and a push
 * can leave the COM off its target (G1: leftover frames 9 -> 1 on the elderly
 * walk, 4 -> 0 on 005_02; a push without the second stance moved the COM, and
 * the ZMP left the polygon on 26 % of JVRC-1's walk-back). The swinging leg
 * may move in these pushes too (session 13 held both legs: Talos's feet then
 * touched in swing on the walks, 18 -> 10 frames on dance-short, JVRC-1's
 * 45 -> 14). */
static void settle(pipe *p, const kg_ik_target *t, int nt, const double *com) {
    stance(p, t, com);
    int again = 0;
    for (; again < 2 && avoid(p, t, nt); again++) {
        p->pushed = 1;
        stance(p, t, com);
    }
    if (again == 2) p->clear = 0;
}

/* Whole-body IK with the root floating (stopping when it stalls), the
 * self-collision push, then the legs and the root's position onto the feet
 * and the COM with what that brings together pushed again (settle()).
 * iterations: of the whole-body solve; t[0] and t[1] are the feet. */
static void solve(pipe *p, const kg_ik_target *t, int nt, int iterations, double posture, const double *com) {
    const kg_model *r = p->robot;
    kg_ik_options io;
    frame_ik_options(p, &io, iterations);
    io.floating_base = 1;
    io.posture = p->rest, io.posture_weight = posture;
    io.stall_gain = STALL_GAIN;
    kg_ik_result res;
    kg_ik_solve(r, p->d, t, nt, &io, p->w, &res);
    kg_fk(r, p->d);
    p->pushed |= avoid(p, t, nt);
    settle(p, t, nt, com);
}

/* A foot that lands where the robot cannot put it (with the other foot down,
 * the source's stance can be wider than the robot's legs span): the pin of
 * the phase starting at f moves to where the foot is, flat on the ground,
 * turned as it is, for the frames whose targets are set. Returns 1 when it
 * moved. */
static int repin(pipe *p, int f, int side) {
    slot *s = at(p, f);
    int part = side ? KG_PART_FOOT_R : KG_PART_FOOT_L, foot = p->ri->map.link[part];
    const double *x = p->d->link_pos + 3 * foot, *R = p->d->link_rot + 9 * foot;
    if (!s->contact[side] || (f > 0 && at(p, f - 1)->contact[side]) || dist3(x, s->pin_pos[side]) < 1e-3) return 0;
    double Rr[9], Ry[9], pos[3], Rp[9];
    kg_mat3_mul_bt(Rr, R, p->ri->rest_rot[part]);
    yaw_only(Ry, Rr);
    kg_mat3_mul(Rp, Ry, p->ri->rest_rot[part]);
    pos[0] = x[0], pos[1] = x[1], pos[2] = p->ri->foot_h[side];
    for (int g = f; g <= p->last_pin && at(p, g)->contact[side]; g++) {
        slot *q = at(p, g);
        kg_vec3_copy(q->pin_pos[side], pos), kg_mat3_copy(q->pin_R[side], Rp);
        if (g > p->last_feet) continue;
        kg_vec3_copy(q->foot_pos[side], pos), kg_mat3_copy(q->foot_R[side], Rp);
        support_polygon(p, q);
    }
    return 1;
}

/* How far the feet are from where they must be after a frame's solve: a
 * planted foot from its pin, a swinging sole below the ground (m). */
static double feet_miss(const pipe *p, const slot *s) {
    double miss = 0;
    for (int side = 0; side < 2; side++) {
        int foot = p->ri->map.link[side ? KG_PART_FOOT_R : KG_PART_FOOT_L];
        miss = fmax(miss, s->contact[side] ? dist3(p->d->link_pos + 3 * foot, s->pin_pos[side]) : -sole_low(p, side));
    }
    return miss;
}

/* A foot whose phase starts at f but which is farther than reach from its pin
 * keeps swinging this frame (towards the pin, yielding to the other foot): it
 * lands when it gets there. The source can step faster than the robot's joints
 * move, and a foot pinned out of its reach dragged the other one off its pin
 * or into the ground (the dance clip on JVRC-1 and Talos: slip 55-78 mm).
 * Returns the number of feet put off. */
static int delay_landing(pipe *p, int f, double reach) {
    slot *s = at(p, f);
    int n = 0;
    for (int side = 0; side < 2; side++) {
        int foot = p->ri->map.link[side ? KG_PART_FOOT_R : KG_PART_FOOT_L];
        if (f == 0 || !s->contact[side] || at(p, f - 1)->contact[side] ||
            dist3(p->d->link_pos + 3 * foot, s->pin_pos[side]) <= reach)
            continue;
        s->contact[side] = 0, s->near_pin[side] = 0;
        n++;
    }
    if (n) support_polygon(p, s);
    return n;
}

/* The joints whose columns are set in cols (not the root) moved the fraction
 * u of the way from the previous frame's values to p->held's (u = 0: the
 * previous values themselves). */
static void blend_joints(pipe *p, const unsigned char *cols, double u) {
    const kg_model *r = p->robot;
    for (int j = 0; j < r->njoint; j++) {
        const kg_joint *J = &r->joint[j];
        if (J->dofadr < 0 || J->type == KG_JOINT_FLOATING || !cols[J->dofadr]) continue;
        for (int i = J->qadr; i < J->qadr + J->nq; i++)
            p->d->q[i] = u == 0 ? p->prev[i] : p->prev[i] + u * (p->held[i] - p->prev[i]);
    }
}

/* The pose of p->d (joints, then the root's position and rotation) into x
 * [nq + 12], and back (with its FK). */
static void save_pose(const pipe *p, double *x) {
    int nq = p->robot->nq;
    memcpy(x, p->d->q, (size_t)nq * sizeof *x);
    kg_vec3_copy(x + nq, p->d->base_pos), kg_mat3_copy(x + nq + 3, p->d->base_rot);
}

static void load_pose(pipe *p, const double *x) {
    int nq = p->robot->nq;
    memcpy(p->d->q, x, (size_t)nq * sizeof *x);
    kg_vec3_copy(p->d->base_pos, x + nq), kg_mat3_copy(p->d->base_rot, x + nq + 3);
    kg_fk(p->robot, p->d);
}

/* Every joint and the root moved the fraction u of the way from the previous
 * frame's pose to pose x (save_pose()'s layout). */
static void blend_all(pipe *p, const double *x, double u) {
    const kg_model *r = p->robot;
    for (int i = 0; i < r->nq; i++) p->d->q[i] = u == 0 ? p->prev[i] : p->prev[i] + u * (x[i] - p->prev[i]);
    kg_vec3_copy(p->d->base_pos, p->prev_base), kg_mat3_copy(p->d->base_rot, p->prev_base + 3);
    if (u > 0) blend_pose(p->d->base_pos, p->d->base_rot, x + r->nq, x + r->nq + 3, u);
    kg_fk(r, p->d);
}

/* The legs and the root solved again (stance()) from where they were the
 * frame before, when the frame's solve left the feet off (feet_miss() above
 * HOLD_TOL): there the planted feet were on their pins and the swinging ones
 * above the ground, and the stance's solve, started from a pose the
 * whole-body solve moved too far for the legs' velocity limits, can end in a
 * compromise between the feet and the COM. The pose that misses less is kept. */
static void hold_legs(pipe *p, const slot *s, const kg_ik_target *t, const double *com) {
    const kg_model *r = p->robot;
    const robot_info *ri = p->ri;
    double miss = feet_miss(p, s);
    if (miss <= HOLD_TOL || !ri->stance_cols) return;
    save_pose(p, p->kept);
    blend_joints(p, ri->stance_cols, 0); /* the legs' columns */
    kg_vec3_copy(p->d->base_pos, p->prev_base), kg_mat3_copy(p->d->base_rot, p->prev_base + 3);
    kg_fk(r, p->d);
    stance(p, t, com);
    if (feet_miss(p, s) < miss) {
        p->clear = 0; /* not the pose avoid() checked */
        return;
    }
    load_pose(p, p->kept);
}

/* The joints between the pairs a frame's pushes left overlapping moved back
 * towards where they were the frame before, as far as they must: the largest
 * step u of q_prev + u (q - q_prev) over those joints that leaves no pair
 * overlapping (bisected, to 1/32), or none when even the previous values
 * leave an overlap as deep. The relative pose of two links depends only on
 * the joints between them, so a pair apart the frame before is apart again
 * at u = 0 (other pairs are checked with it). A deep overlap (an arm swung
 * into the chest faster than the pushes could take it out: G1's dance clip,
 * 45-107 mm) otherwise stays, each frame starting inside. The planted legs
 * and the root stay. Returns 1 when it moved. */
static int retreat(pipe *p) {
    const kg_model *r = p->robot;
    const robot_info *ri = p->ri;
    if (p->clear || !watching(p) || !p->cols || !p->pair_cols || !ri->leg_cols[0] || !ri->leg_cols[1]) return 0;
    double worst = overlap(p), depth, dir[3], pos[3];
    if (worst < AVOID_DEPTH) return 0;
    const int legs[2] = {1, 1};
    memset(p->cols, 0, (size_t)r->dof + 6);
    for (int k = 0; k < ri->cm.npair; k++) {
        if (!p->hit[k] || !kg_pair_penetration(&ri->cm, p->cw, k, &depth, dir, pos) || depth < AVOID_DEPTH) continue;
        pair_columns(p, k, legs);
        for (int c = 0; c < r->dof; c++) p->cols[c] |= p->pair_cols[c];
    }
    memcpy(p->held, p->d->q, (size_t)r->nq * sizeof *p->held);
    double lo = 0, hi = 1, best = 1;
    for (int step = 0; step <= 5; step++) {
        double u = step == 0 ? 0 : (lo + hi) / 2;
        blend_joints(p, p->cols, u);
        kg_fk(r, p->d);
        double o = overlap(p);
        if (step == 0 && o >= worst) break;
        if (o < AVOID_DEPTH) lo = best = u;
        else if (step == 0) { /* shallower, not clear: the previous values */
            best = 0;
            break;
        } else hi = u;
    }
    blend_joints(p, p->cols, best);
    kg_fk(r, p->d);
    p->clear = 0;
    return best < 1;
}

/* The heading (yaw) of a part's rotation R relative to the part's at rest. */
static double heading(const pipe *p, int part, const double R[9]) {
    double Rr[9], Ry[9];
    kg_mat3_mul_bt(Rr, R, p->ri->rest_rot[part]);
    yaw_only(Ry, Rr);
    return atan2(Ry[3], Ry[0]);
}

/* A foot down and a pair still overlapping: most often the pelvis against a
 * planted leg's thigh or hip link (Talos's base_link and leg_3, JVRC-1's
 * PELVIS_S and HIP_Y_S) where the source's pelvis turns or tilts far from its
 * feet (a lunge, a pivot, a kick): with the foot fixed the hip's angles follow
 * the pelvis, and put the thigh into it. The root turned towards upright,
 * heading where the planted feet point (else its own heading, else square to
 * the line between both feet), half, then all the way (the upper body turns
 * along), and the legs and root solved onto the pins and the COM again
 * (settle(): with a push of what the turn brought together, Talos's 005_02
 * 2 -> 0 frames left); the first such pose that leaves nothing overlapping and the
 * feet on their pins is kept, else the pose as it was. Returns 1 when it
 * turned. */
static int turn_root(pipe *p, const slot *s, const kg_ik_target *t, int nt, const double *com) {
    if (p->clear || !watching(p) || !(s->contact[0] || s->contact[1]) || overlap(p) < AVOID_DEPTH) return 0;
    const double *Rp = p->d->link_rot + 9 * p->ri->map.link[KG_PART_PELVIS];
    /* headings to try: where the planted feet point; the pelvis's own; with
     * both feet down, square to the line between them (the left foot to the
     * left: a split stance taken as a wide one) */
    double sn = 0, cs = 0, head[3];
    for (int side = 0; side < 2; side++) {
        if (!s->contact[side]) continue;
        double h = heading(p, side ? KG_PART_FOOT_R : KG_PART_FOOT_L, s->pin_R[side]);
        sn += sin(h), cs += cos(h);
    }
    int nh = 0;
    head[nh++] = atan2(sn, cs);
    head[nh++] = heading(p, KG_PART_PELVIS, Rp);
    if (s->contact[0] && s->contact[1])
        head[nh++] = atan2(s->pin_pos[0][1] - s->pin_pos[1][1], s->pin_pos[0][0] - s->pin_pos[1][0]) - KG_PI / 2;
    double z[3] = {0, 0, 1}, miss = feet_miss(p, s);
    save_pose(p, p->kept);
    for (int c = 0; c < nh; c++) {
        double Rz[9], Rt[9], Rd[9], w[3];
        load_pose(p, p->kept);
        kg_rot_axis_angle(Rz, z, head[c]);
        kg_mat3_mul(Rt, Rz, p->ri->rest_rot[KG_PART_PELVIS]); /* upright, heading head[c] */
        kg_mat3_mul_bt(Rd, Rt, Rp);
        kg_rot_log(Rd, w);
        double angle = kg_vec3_norm(w);
        if (!(angle > 1e-6)) continue;
        for (int a = 0; a < 3; a++) w[a] /= angle;
        for (int k = 1; k <= 2; k++) {
            double Rk[9], R[9];
            load_pose(p, p->kept);
            kg_rot_axis_angle(Rk, w, angle * k / 2);
            kg_mat3_mul(R, Rk, p->d->base_rot);
            kg_mat3_copy(p->d->base_rot, R);
            kg_fk(p->robot, p->d);
            settle(p, t, nt, com); /* a swinging foot the turn carried into something, pushed off */
            if (overlap(p) < AVOID_DEPTH && feet_miss(p, s) <= fmax(HOLD_TOL, miss)) return 1;
        }
    }
    load_pose(p, p->kept);
    p->clear = 0; /* a candidate's settle() may have found its own pose clear */
    return 0;
}

/* A pair still overlapping after the pushes, retreat() and turn_root(), most
 * often one avoid() may not move: the pelvis against a planted leg (the root
 * and the planted legs stay there). The whole body pushed instead, the root
 * floating, every column free, against all the frame's targets, the planted
 * feet weighted PUSH_FEET times more (they stay on their pins while the
 * pelvis turns away from the thigh above them: Talos's dance-short, the pelvis
 * tilted 45° over both feet, and JVRC-1's PELVIS_S against a hip), up to
 * AVOID_ROUNDS rounds; then the legs and the root onto the pins and the COM
 * again (settle()). Kept when that leaves nothing overlapping and the feet on
 * their pins, else the pose as it was. Returns 1 when it kept the push. */
static int push_all(pipe *p, const slot *s, const kg_ik_target *t, int nt, const double *com) {
    const robot_info *ri = p->ri;
    const kg_model *r = p->robot;
    if (p->clear || !watching(p) || overlap(p) < AVOID_DEPTH) return 0;
    double miss = feet_miss(p, s);
    save_pose(p, p->kept);
    kg_ik_target all[NTARGET + AVOID_PAIRS];
    memcpy(all, t, (size_t)nt * sizeof *t);
    for (int side = 0; side < 2; side++)
        if (all[side].axes == KG_IK_POSE) all[side].weight *= PUSH_FEET;
    kg_ik_options io;
    frame_ik_options(p, &io, 10);
    io.floating_base = 1;
    for (int round = 0; round < AVOID_ROUNDS; round++) {
        if (kg_self_collisions(&ri->cm, p->d, p->cw, ri->check, p->hit) == 0) break;
        int n = add_pushes(p, all, nt, NULL);
        if (n == nt) break;
        kg_ik_result res;
        kg_ik_solve(r, p->d, all, n, &io, p->w, &res);
        kg_fk(r, p->d);
    }
    settle(p, t, nt, com);
    if (overlap(p) < AVOID_DEPTH && feet_miss(p, s) <= fmax(HOLD_TOL, miss)) return 1;
    load_pose(p, p->kept);
    p->clear = 0;
    return 0;
}

/* The last resort, when a pair still overlaps after the pushes, retreat(),
 * turn_root() and push_all(): the whole pose, root and legs too, moved back
 * towards the frame before's (which was clear, or the first frame's
 * "before", the rest pose it starts from), the largest step u of
 * prev + u (pose - prev) that leaves no pair overlapping with the planted
 * feet put back on their pins by their legs (the path between two poses with
 * a foot on its pin bends off it a little: Talos's dance-short, 1.7 mm)
 * (bisected, to 1/64); then the legs and the root solved
 * onto the feet's pins and the COM's target again (stance()) if that stays
 * clear. The robot stops at the contact, as a body would: the cost is
 * tracking. Without the stance the pose is kept only when the planted feet
 * are on their pins and the COM within FALLBACK_COM of where it was: a COM
 * moved for a frame is a jump of the cart-table ZMP (h / g times its
 * acceleration: 2 mm at 30 frames/s moves it 0.17 m; without the bound Talos's
 * elderly walk had its ZMP out on 9 % of its contact frames, with it 0). In
 * the air nothing holds the COM but the root: it is moved so that the COM
 * stays where it was (G1's dash, a hip against the pelvis in a leap).
 * Otherwise the pose stays as it was. Returns 1 when it moved. */
static int fall_back(pipe *p, const slot *s, const kg_ik_target *t, const double *com) {
    const kg_model *r = p->robot;
    if (p->clear || !watching(p)) return 0;
    double worst = overlap(p);
    if (worst < AVOID_DEPTH) return 0;
    double lo = 0, hi = 1, best = 1, miss = feet_miss(p, s), c0[3], c1[3];
    robot_com(r, p->d, c0, p->scratch);
    save_pose(p, p->kept);
    for (int step = 0; step <= 6; step++) {
        double u = step == 0 ? 0 : (lo + hi) / 2;
        blend_all(p, p->kept, u);
        pin_planted(p, t);
        if (overlap(p) < AVOID_DEPTH) lo = best = u;
        else if (step == 0) { /* the frame before overlaps too (it cannot, but for rounding) */
            best = 1;
            break;
        } else hi = u;
    }
    p->clear = 0;
    if (best < 1) {
        blend_all(p, p->kept, best);
        /* the feet back on their pins and the COM on its target if that stays clear */
        stance(p, t, com);
        if (overlap(p) < AVOID_DEPTH) return 1;
        blend_all(p, p->kept, best);
        pin_planted(p, t);
        robot_com(r, p->d, c1, p->scratch);
        if (!s->contact[0] && !s->contact[1]) { /* in the air: the root carries the COM where it was */
            for (int a = 0; a < 3; a++) p->d->base_pos[a] += c0[a] - c1[a];
            kg_fk(r, p->d);
            robot_com(r, p->d, c1, p->scratch);
        }
        if (feet_miss(p, s) <= fmax(HOLD_TOL, miss) && hypot(c1[0] - c0[0], c1[1] - c0[1]) <= FALLBACK_COM) return 1;
    }
    /* not without taking a foot off its pin: the pose as it was */
    load_pose(p, p->kept);
    return 0;
}

/* A pair still overlapping after turn_root(): the whole body pushed, else the
 * fall-back. */
static void last_resorts(pipe *p, const slot *s, const kg_ik_target *t, int nt, const double *com) {
    if (push_all(p, s, t, nt, com)) p->whole_pushes++;
    else p->fallbacks += fall_back(p, s, t, com);
}

/* ---- metrics -------------------------------------------------------------------------- */

typedef struct metrics {
    double kp_sum, kp_max;
    long kp_n;
    double slip_start[2][2];
    double slip_phase[2];
    double slip_sum;
    int phases;
    double (*com_hist)[3]; /* final COMs, a ring of 2H + 1 */
    int have;
} metrics;

/* The COM the source's motion implies at frame f: the robot's rest offset from
 * its pelvis, carried by the source's pelvis. */
static void stage_com(pipe *p, int f) {
    slot *s = at(p, f);
    double off[3];
    kg_mat3_vec(off, s->pelvis_rot, p->ri->com_off);
    for (int a = 0; a < 2; a++) s->com_est[a] = s->kp[KG_PART_PELVIS][a] + off[a];
}

/* The ZMP reference at frame f (COM estimates known up to f + H): the cart-table
 * ZMP of the estimate, moved into the support polygon shrunk by zmp_margin. */
static void stage_zmp(pipe *p, int f, int last) {
    slot *s = at(p, f);
    int kp = f - p->H >= 0 ? f - p->H : 0, kn = f + p->H <= last ? f + p->H : last;
    const slot *sp = at(p, kp), *sn = at(p, kn);
    for (int a = 0; a < 2; a++)
        s->zmp_ref[a] = cart_table_zmp(sp->com_est[a], s->com_est[a], sn->com_est[a], (f - kp) * p->dt,
                                       (kn - f) * p->dt, p->ri->com_h);
    if (s->npoly > 0) {
        double in[2];
        poly_distance((const double(*)[2])s->poly, s->npoly, s->zmp_ref, p->o->zmp_margin, in);
        s->zmp_ref[0] = in[0], s->zmp_ref[1] = in[1];
    } else { /* in the air nothing pushes sideways: no horizontal acceleration, the ZMP on the COM */
        s->zmp_ref[0] = s->com_est[0], s->zmp_ref[1] = s->com_est[1];
    }
}

kg_retarget_robot *kg_retarget_robot_new(const kg_model *robot, const kg_body_map *map, const kg_link_pair *ignore,
                                         int nignore, kg_diags *d) {
    double t0 = now();
    kg_retarget_robot *rr = calloc(1, sizeof *rr);
    if (!rr) {
        kg_diag_add(d, KG_ERROR, "retarget.memory", robot->source, 0, NULL, "out of memory");
        return NULL;
    }
    if (robot_setup(robot, map, ignore, nignore, rr, d) != 0) {
        kg_retarget_robot_free(rr);
        return NULL;
    }
    rr->seconds = now() - t0;
    return rr;
}

double kg_retarget_robot_seconds(const kg_retarget_robot *rr) { return rr->seconds; }

void kg_retarget_robot_free(kg_retarget_robot *rr) {
    if (!rr) return;
    free(rr->vmax), free(rr->leg_cols[0]), free(rr->leg_cols[1]);
    free(rr->stance_cols), free(rr->stance_w), free(rr->check);
    if (rr->have_cm) kg_collision_model_free(&rr->cm);
    free(rr);
}

int kg_retarget(const kg_model *src, const kg_motion *clip, const kg_model *robot, const kg_retarget_options *o,
                kg_motion **out, kg_retarget_report *rep, kg_diags *dg) {
    kg_retarget_options dflt;
    if (!o) kg_retarget_defaults(&dflt), o = &dflt;
    double t0 = now();
    kg_retarget_robot *rr = kg_retarget_robot_new(robot, o->robot_map, o->ignore_pairs, o->nignore_pairs, dg);
    if (!rr) {
        memset(rep, 0, sizeof *rep);
        *out = NULL;
        rep->seconds = now() - t0;
        return -1;
    }
    int rc = kg_retarget_prepared(rr, src, clip, o, out, rep, dg);
    rep->robot_seconds = rr->seconds;
    rep->setup_seconds += rep->robot_seconds;
    kg_retarget_robot_free(rr);
    rep->seconds = now() - t0;
    return rc;
}

int kg_retarget_prepared(const kg_retarget_robot *rr, const kg_model *src, const kg_motion *clip,
                         const kg_retarget_options *o_, kg_motion **out, kg_retarget_report *rep, kg_diags *dg) {
    kg_retarget_options o;
    if (o_) o = *o_;
    else kg_retarget_defaults(&o);
    double t0 = now();
    const kg_model *robot = rr->model;
    memset(rep, 0, sizeof *rep);
    *out = NULL;
    if (!clip || clip->nframes < 1) {
        kg_diag_add(dg, KG_ERROR, "retarget.no_motion", src->source, 0, NULL, "'%s' has no motion to retarget",
                    src->name ? src->name : "");
        return -1;
    }
    pipe p;
    memset(&p, 0, sizeof p);
    p.src = src, p.robot = robot, p.clip = clip, p.o = &o;
    p.dt = clip->frame_time > 0 ? clip->frame_time : 1.0 / 30;
    p.ds = kg_data_new(src);
    p.ri = rr;
    int rc = -1;
    if (source_setup(src, clip, &o, &p.si, p.ds, dg) != 0) goto done;
    if (p.ri->check) {
        p.cw = kg_collision_work_new(&p.ri->cm);
        p.hit = malloc((size_t)p.ri->cm.npair);
        p.cols = malloc((size_t)robot->dof + 6), p.pair_cols = malloc((size_t)robot->dof + 6);
        if (!p.cw || !p.hit || !p.cols || !p.pair_cols) {
            kg_diag_add(dg, KG_ERROR, "retarget.memory", src->source, 0, NULL, "out of memory");
            goto done;
        }
    }
    rep->setup_seconds = now() - t0;
    p.si.s_leg = p.ri->leg / p.si.leg;
    p.si.s_arm = p.ri->arm / p.si.arm;
    rep->source_family = p.si.map.family;
    rep->leg_scale = p.si.s_leg, rep->arm_scale = p.si.s_arm;
    rep->frame_time = p.dt;
    p.L = (int)ceil(o.min_contact_time / p.dt);
    if (p.L < 1) p.L = 1;
    p.N = o.balance ? (int)lround(o.preview_time / p.dt) : 0;
    if (o.balance && p.N < 2) p.N = 2;
    p.H = (int)lround(0.04 / p.dt);
    if (p.H < 1) p.H = 1;
    p.K = (int)lround(0.1 / p.dt);
    if (p.K < 1) p.K = 1;
    p.W = p.N + 2 * p.L + 2 * p.H + 3 * p.K + 8;
    p.ring = calloc((size_t)p.W, sizeof *p.ring);
    p.d = kg_data_new(robot);
    p.w = kg_ik_work_new(robot, NTARGET + AVOID_PAIRS);
    p.lower = malloc(((size_t)robot->dof + 1) * sizeof *p.lower);
    p.upper = malloc(((size_t)robot->dof + 1) * sizeof *p.upper);
    p.prev = malloc(((size_t)robot->nq + 1) * sizeof *p.prev);
    p.held = malloc(((size_t)robot->nq + 1) * sizeof *p.held);
    p.kept = malloc(((size_t)robot->nq + 12) * sizeof *p.kept);
    p.rest = calloc((size_t)robot->nq + 1, sizeof *p.rest);
    p.scratch = malloc(((size_t)robot->nlink + 1) * 4 * sizeof *p.scratch);
    p.refs = malloc(((size_t)2 * p.N + 2) * sizeof *p.refs);
    *out = kg_motion_new(robot->nq, p.dt, (size_t)clip->nframes);
    if (!p.ring || !p.d || !p.w || !p.lower || !p.upper || !p.prev || !p.held || !p.kept || !p.rest || !p.scratch || !p.refs || !*out) {
        kg_diag_add(dg, KG_ERROR, "retarget.memory", src->source, 0, NULL, "out of memory");
        goto done;
    }
    for (int j = 0; j < robot->njoint; j++) {
        const kg_joint *J = &robot->joint[j];
        if (J->dofadr < 0 || J->type == KG_JOINT_FLOATING || !kg_joint_is_limited(J)) continue;
        for (int c = 0; c < J->nv; c++) p.rest[J->qadr + c] = fmin(fmax(0, J->lower), J->upper);
    }
    (*out)->base = malloc((size_t)clip->nframes * 7 * sizeof *(*out)->base);
    if (!(*out)->base) {
        kg_diag_add(dg, KG_ERROR, "retarget.memory", src->source, 0, NULL, "out of memory");
        goto done;
    }
    /* the report's ZMP is the second difference over H frames; at H = 1 the
     * controller weighs what one-frame samples show */
    if (o.balance && (p.H == 1 ? kg_preview_init_sampled : kg_preview_init)(&p.pv, p.dt, p.ri->com_h, G, 1, PREVIEW_R,
                                                                            p.N) != 0) {
        kg_diag_add(dg, KG_ERROR, "retarget.preview", robot->source, 0, NULL, "the preview control gains do not converge");
        goto done;
    }
    const int nf = clip->nframes, A = 2 * p.L + 1 + 2 * p.K, lag = A + p.H + p.N;
    kg_ik_target t[NTARGET];
    metrics mt;
    memset(&mt, 0, sizeof mt);
    rep->com_margin_min_mm = rep->zmp_margin_min_mm = INFINITY;
    int com_out = 0, com_out2 = 0, zmp_out = 0, zmp_frames = 0;
    mt.com_hist = malloc(((size_t)2 * p.H + 1) * sizeof *mt.com_hist);
    /* the stream: the source at a; contacts at c = a - 2L + 1; pins at c - K;
     * feet and the COM estimate at b = a - A = c - 2K - 2; the ZMP reference
     * at z = b - H; the preview and the IK at f = z - N */
    for (int a = 0; a < nf + lag + 1; a++) {
        stage_source(&p, a);
        int c = a - 2 * p.L + 1;
        if (c >= 0) stage_contact(&p, c);
        if (c - p.K >= 0) stage_pins(&p, c - p.K), p.last_pin = c - p.K;
        int b = a - A;
        if (b >= 0) {
            feet_targets(&p, b);
            p.last_feet = b;
            stage_com(&p, b);
        }
        int z = b - p.H;
        if (z >= 0) stage_zmp(&p, z, b);
        int f = z - p.N;
        if (f < 0 || f >= nf) continue;
        slot *s = at(&p, f);
        double comt[2], *comp = NULL;
        p.pushed = 0;
        if (o.balance) {
            if (f == 0) /* where the estimate is, moving as suits the references ahead */
                for (int ax = 0; ax < 2; ax++) {
                    for (int j = 0; j <= 2 * p.N; j++) p.refs[j] = at(&p, j < p.N ? j : p.N)->zmp_ref[ax];
                    kg_preview_axis_start_moving(&p.pv, &p.ax[ax], s->com_est[ax], p.refs, p.N);
                }
            /* the controller's state is this frame's COM; its step (on the
             * references from here on) gives the next frame's */
            for (int ax = 0; ax < 2; ax++) {
                comt[ax] = p.ax[ax].x[0];
                for (int j = 0; j <= p.N; j++) p.refs[j] = at(&p, f + j)->zmp_ref[ax];
                kg_preview_axis_step(&p.pv, &p.ax[ax], p.refs);
            }
            if (s->contact[0] && s->contact[1] && s->npoly > 0) { /* double support: the COM stays over the feet */
                double in[2];
                poly_distance((const double(*)[2])s->poly, s->npoly, comt, o.margin, in);
                comt[0] = in[0], comt[1] = in[1];
            }
            comp = comt;
        }
        if (f == 0) {
            /* the first frame: from the rest pose over the pelvis, the targets moved
             * from where the rest pose has them to where they are in steps, each
             * solve starting where the last ended (a direct solve from the rest pose
             * can end with a leg twisted the wrong way round) */
            double qz[4] = {1, 0, 0, 0}, pz[3];
            kg_vec3_copy(pz, s->kp[KG_PART_PELVIS]);
            kg_data_set_base(p.d, pz, qz);
            memcpy(p.d->q, p.rest, (size_t)robot->nq * sizeof *p.rest);
            kg_fk(robot, p.d);
            memcpy(p.prev, p.rest, (size_t)robot->nq * sizeof *p.rest); /* fall_back()'s "before" */
            kg_vec3_copy(p.prev_base, pz), kg_mat3_copy(p.prev_base + 3, p.d->base_rot);
            frame_limits(&p, NULL);
            kg_ik_target goal[NTARGET], from[NTARGET];
            int nt = targets(&p, s, goal, comp, FOOT_WEIGHT, 0);
            for (int k = 0; k < nt; k++) {
                from[k] = goal[k];
                if (goal[k].link < 0) continue;
                kg_vec3_copy(from[k].pos, p.d->link_pos + 3 * goal[k].link);
                kg_mat3_copy(from[k].rot, p.d->link_rot + 9 * goal[k].link);
            }
            if (comp) {
                robot_com(robot, p.d, from[nt - 1].pos, p.scratch);
            }
            for (int step = 1; step <= FIRST_STEPS; step++) {
                double u = (double)step / FIRST_STEPS;
                for (int k = 0; k < nt; k++) {
                    t[k] = from[k];
                    blend_pose(t[k].pos, t[k].rot, goal[k].pos, goal[k].rot, u);
                }
                solve(&p, t, nt, 20, POSTURE_FIRST, NULL);
            }
        } else {
            frame_limits(&p, p.prev);
        }
        int delayed = delay_landing(&p, f, LAND_REACH);
        int nt = targets(&p, s, t, comp, FOOT_WEIGHT, 1);
        solve(&p, t, nt, f == 0 ? 100 : o.iterations, POSTURE, comp);
        if (repin(&p, f, 0) + repin(&p, f, 1)) {
            nt = targets(&p, s, t, comp, FOOT_WEIGHT, 0);
            solve(&p, t, nt, o.iterations, POSTURE, comp);
        }
        if (f > 0) {
            hold_legs(&p, s, t, comp);
            /* a landing foot the legs still cannot hold on its pin (it came down
             * tilted, or with the other foot far) lands a frame later */
            if (feet_miss(&p, s) > HOLD_TOL && delay_landing(&p, f, 0)) {
                delayed = 1;
                nt = targets(&p, s, t, comp, FOOT_WEIGHT, 1);
                solve(&p, t, nt, o.iterations, POSTURE, comp);
                hold_legs(&p, s, t, comp);
            }
        }
        p.delayed += delayed > 0;
        /* a pair the pushes left overlapping (checked once here: each step
         * below checks again, and most frames need none of them) */
        if (watching(&p) && !p.clear && overlap(&p) >= AVOID_DEPTH) {
            if (f > 0) p.retreats += retreat(&p);
            p.turns += turn_root(&p, s, t, nt, comp);
            last_resorts(&p, s, t, nt, comp);
            /* still overlapping with a foot landing: it lands a frame later, and
             * the last resorts run once more (the landing foot held them off
             * its pin: JVRC-1's dance-short, Talos's) */
            if (f > 0 && !p.clear && overlap(&p) >= AVOID_DEPTH && delay_landing(&p, f, 0)) {
                p.delayed += !delayed;
                nt = targets(&p, s, t, comp, FOOT_WEIGHT, 1);
                last_resorts(&p, s, t, nt, comp);
            }
        }
        if (p.pushed) rep->self_collision_pushed_frames++;
        double depth = p.clear ? 0 : overlap(&p);
        if (depth >= AVOID_DEPTH) rep->self_collision_frames++;
        rep->self_collision_depth_max_mm = fmax(rep->self_collision_depth_max_mm, depth * 1e3);
        /* the frame */
        kg_motion_append(*out, p.d->q);
        double *base = (*out)->base + 7 * f;
        kg_vec3_copy(base, p.d->base_pos);
        kg_rot_to_quat(p.d->base_rot, base + 3);
        /* metrics */
        const int *Lk = p.ri->map.link;
        static const int kp_parts[] = {KG_PART_HIP_L, KG_PART_HIP_R, KG_PART_KNEE_L, KG_PART_KNEE_R,
                                       KG_PART_ELBOW_L, KG_PART_ELBOW_R, KG_PART_WRIST_L, KG_PART_WRIST_R};
        for (size_t k = 0; k < sizeof kp_parts / sizeof *kp_parts; k++) {
            double e = dist3(p.d->link_pos + 3 * Lk[kp_parts[k]], s->kp[kp_parts[k]]) * 1e3;
            mt.kp_sum += e, mt.kp_n++;
            if (e > mt.kp_max) mt.kp_max = e;
        }
        for (int j = 0; j < robot->njoint; j++) {
            const kg_joint *J = &robot->joint[j];
            if (J->dofadr < 0) continue;
            for (int cc = 0; cc < J->nv && J->type != KG_JOINT_FLOATING; cc++) {
                double x = p.d->q[J->qadr + cc];
                if (kg_joint_is_limited(J) && (x < J->lower - 1e-9 || x > J->upper + 1e-9)) rep->limit_violations++;
                double v = p.ri->vmax[J->dofadr + cc];
                if (f > 0 && isfinite(v) && fabs(x - p.prev[J->qadr + cc]) > v * p.dt * (1 + 1e-9) + 1e-12)
                    rep->velocity_violations++;
            }
        }
        memcpy(p.prev, p.d->q, (size_t)robot->nq * sizeof *p.prev);
        kg_vec3_copy(p.prev_base, p.d->base_pos), kg_mat3_copy(p.prev_base + 3, p.d->base_rot);
        int ncontact = 0;
        for (int side = 0; side < 2; side++) {
            double corner[4][3], low = INFINITY, cx = 0, cy = 0;
            sole_corners(&p, p.d, side, corner);
            for (int k = 0; k < 4; k++) low = fmin(low, corner[k][2]), cx += corner[k][0] / 4, cy += corner[k][1] / 4;
            if (low < 0 && -low * 1e3 > rep->penetration_max_mm) rep->penetration_max_mm = -low * 1e3;
            if (s->contact[side]) {
                ncontact++;
                if (low > 0 && low * 1e3 > rep->float_max_mm) rep->float_max_mm = low * 1e3;
                if (f == 0 || !at(&p, f - 1)->contact[side]) {
                    mt.slip_start[side][0] = cx, mt.slip_start[side][1] = cy, mt.slip_phase[side] = 0;
                    rep->contact_phases++;
                }
                double dx = cx - mt.slip_start[side][0], dy = cy - mt.slip_start[side][1];
                double sl = sqrt(dx * dx + dy * dy) * 1e3;
                if (sl > mt.slip_phase[side]) mt.slip_phase[side] = sl;
                if (f + 1 >= nf || !at(&p, f + 1)->contact[side]) {
                    mt.slip_sum += mt.slip_phase[side], mt.phases++;
                    if (mt.slip_phase[side] > rep->slip_max_mm) rep->slip_max_mm = mt.slip_phase[side];
                }
            }
        }
        /* COM and ZMP against the support polygon of this frame */
        double com[3];
        robot_com(robot, p.d, com, p.scratch);
        if (ncontact) {
            rep->contact_frames++;
            double dcm = poly_distance((const double(*)[2])s->poly, s->npoly, com, 0, NULL) * 1e3;
            if (dcm < rep->com_margin_min_mm) rep->com_margin_min_mm = dcm;
            if (dcm < 0) com_out++;
            if (ncontact == 2) {
                rep->double_support_frames++;
                if (dcm < -1e-6) com_out2++;
            }
        }
        /* the ZMP of frame f - H from the final COM at f - 2H, f - H, f */
        int R = 2 * p.H + 1;
        kg_vec3_copy(mt.com_hist[f % R], com);
        if (mt.have >= 2 * p.H) {
            int k = f - p.H;
            slot *sp = at(&p, k);
            if (sp->contact[0] + sp->contact[1]) {
                double zz[2], hh = p.H * p.dt;
                for (int ax = 0; ax < 2; ax++)
                    zz[ax] = cart_table_zmp(mt.com_hist[(f - 2 * p.H) % R][ax], mt.com_hist[k % R][ax], com[ax], hh, hh,
                                            p.ri->com_h);
                double dz = poly_distance((const double(*)[2])sp->poly, sp->npoly, zz, 0, NULL) * 1e3;
                if (dz < rep->zmp_margin_min_mm) rep->zmp_margin_min_mm = dz;
                if (dz < 0) zmp_out++;
                zmp_frames++;
            }
        }
        mt.have++;
    }
    rep->frames = (*out)->nframes;
    rep->narrowed_stances = p.narrowed;
    rep->widened_stances = p.widened;
    rep->delayed_landing_frames = p.delayed;
    rep->self_collision_retreat_frames = p.retreats;
    rep->self_collision_fallback_frames = p.fallbacks;
    rep->self_collision_turned_frames = p.turns;
    rep->self_collision_whole_body_frames = p.whole_pushes;
    if (!p.cw) rep->self_collision_frames = -1;
    rep->keypoint_mean_mm = mt.kp_n ? mt.kp_sum / (double)mt.kp_n : 0;
    rep->keypoint_max_mm = mt.kp_max;
    rep->slip_mean_mm = mt.phases ? mt.slip_sum / mt.phases : 0;
    rep->com_outside_percent = rep->contact_frames ? 100.0 * com_out / rep->contact_frames : 0;
    rep->com_outside_double_percent = rep->double_support_frames ? 100.0 * com_out2 / rep->double_support_frames : 0;
    rep->zmp_outside_percent = zmp_frames ? 100.0 * zmp_out / zmp_frames : 0;
    free(mt.com_hist);
    if (!isfinite(rep->com_margin_min_mm)) rep->com_margin_min_mm = 0;
    if (!isfinite(rep->zmp_margin_min_mm)) rep->zmp_margin_min_mm = 0;
    rc = 0;
done:
    kg_data_free(p.ds);
    kg_data_free(p.d);
    kg_ik_work_free(p.w);
    free(p.ring), free(p.lower), free(p.upper), free(p.prev), free(p.held), free(p.kept), free(p.rest), free(p.scratch), free(p.refs);
    free(p.hit), free(p.cols), free(p.pair_cols);
    kg_collision_work_free(p.cw);
    if (o.balance && p.pv.f) kg_preview_free(&p.pv);
    if (rc != 0 && *out) {
        kg_motion_free(*out);
        *out = NULL;
    }
    rep->seconds = now() - t0;
    return rc;
}
