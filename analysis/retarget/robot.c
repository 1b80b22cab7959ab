/* The robot, prepared once for any number of clips: its body parts, limb
 * lengths, soles, per-column limits, the paths Jacobians are read along, its
 * collision shapes and the link pairs the solver keeps apart. */
#define _GNU_SOURCE /* sched_getaffinity */
#include <math.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "analysis/convex.h"
#include "analysis/ik.h"
#include "analysis/jacobian.h"
#include "analysis/retarget/internal.h"
#include "core/fk.h"
#include "core/spatial.h"

/* A sole is the lowest face of the foot's collision shapes (tuning
 * sole_face, sole_lean), or of its visual shapes when it has no collision
 * shape; without either under the ankle, one of the tuning's
 * default_sole_* size (for a leg_reference-long leg, scaled to the robot's)
 * is assumed at the foot link's origin (a warning says so). */

/* Clock `id` in seconds, NaN where the system does not have it. */
static double clock_seconds(clockid_t id) {
    struct timespec t;
    if (clock_gettime(id, &t) != 0) return NAN;
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

double rt_now(void) { return clock_seconds(CLOCK_MONOTONIC); }

double rt_cpu_now(void) { return clock_seconds(CLOCK_THREAD_CPUTIME_ID); }

static double dist3(const double *a, const double *b) {
    double d[3] = {a[0] - b[0], a[1] - b[1], a[2] - b[2]};
    return kg_vec3_norm(d);
}

static int is_below(const kg_model *m, int l, int anc) {
    for (; l >= 0; l = m->link[l].parent)
        if (l == anc) return 1;
    return 0;
}

/* Convex c's lowest points (straight down and tilted by lean towards the
 * four horizontal diagonals) on link l, relative to pf in the world's axes
 * (standing: the foot's level frame, whatever its link's axes): five to pts. */
/* Convex c's support (on link l at pose d) along the world direction dir, in
 * the world. */
static void support_world(const kg_convex *c, const kg_data *d, int l, const double dir[3], double out[3]) {
    double Rs[9], ds[3], v[3], vl[3];
    int hint = -1;
    kg_mat3_mul(Rs, d->link_rot + 9 * l, c->rot); /* the shape's axes in the world */
    kg_mat3_tvec(ds, Rs, dir);
    kg_convex_support(c, ds, &hint, v);
    kg_mat3_vec(vl, c->rot, v);
    for (int a = 0; a < 3; a++) vl[a] += c->pos[a];
    kg_mat3_vec(out, d->link_rot + 9 * l, vl);
    for (int a = 0; a < 3; a++) out[a] += d->link_pos[3 * l + a];
}

static void lowest_points(const kg_convex *c, const kg_data *d, int l, const double *pf, double lean,
                          double (*pts)[3]) {
    static const double diag[5][2] = {{0, 0}, {1, 1}, {1, -1}, {-1, 1}, {-1, -1}};
    for (int dir = 0; dir < 5; dir++) {
        const double down[3] = {lean * diag[dir][0], lean * diag[dir][1], -1};
        support_world(c, d, l, down, pts[dir]);
        for (int a = 0; a < 3; a++) pts[dir][a] -= pf[a];
    }
}

/* The link l is rigidly attached to: up through fixed joints. */
static int rigid_root(const kg_model *m, int l) {
    while (m->link[l].parent >= 0 && m->link[l].joint >= 0 && m->joint[m->link[l].joint].type == KG_JOINT_FIXED)
        l = m->link[l].parent;
    return l;
}

/* The lowest points of the visual shapes of the links below the ankle (all:
 * 0; only those moving with the foot link: 1), as foot_points; returns how
 * many, up to max. */
static int visual_points(const kg_retarget_robot *rr, const kg_data *d, kg_mesh_cache *mc, int side, int body_only,
                         double lean, double (*pts)[3], int max) {
    const kg_model *r = rr->model;
    const int *L = rr->map.link;
    int ankle = L[side ? KG_PART_ANKLE_R : KG_PART_ANKLE_L], foot = L[side ? KG_PART_FOOT_R : KG_PART_FOOT_L];
    const double *pf = d->link_pos + 3 * foot;
    int np = 0, body = rigid_root(r, foot);
    for (int l = ankle; l < r->nlink; l++) {
        if (!is_below(r, l, ankle) || (body_only && rigid_root(r, l) != body)) continue;
        const kg_link *Lk = &r->link[l];
        for (int g = Lk->geom_first; g < Lk->geom_first + Lk->geom_count && np + 5 <= max; g++) {
            kg_convex c;
            if (r->geom[g].role != KG_VISUAL || kg_geom_convex(r, g, mc, &c, NULL, NULL) != 0) continue;
            lowest_points(&c, d, l, pf, lean, pts + np), np += 5;
            kg_convex_free(&c);
        }
    }
    return np;
}

/* Whether a link moving with the foot link (its rigid body) has a collision shape. */
static int body_has_shapes(const kg_retarget_robot *rr, int foot) {
    const kg_model *r = rr->model;
    for (int l = 0, g = rigid_root(r, foot); rr->have_cm && l < r->nlink; l++)
        if (rigid_root(r, l) == g && rr->cm.link_count[l] > 0) return 1;
    return 0;
}

static double lowest_z(const double (*pts)[3], int n) {
    double z = INFINITY;
    for (int i = 0; i < n; i++) z = fmin(z, pts[i][2]);
    return z;
}

/* The lowest points (lowest_points), in the foot's level frame, of the collision
 * shapes of every link below the ankle: pts gets up to max of them. A foot
 * without collision geometry stands on its visual geometry's (a file that
 * draws a foot but gives it no collision shape still says where its sole is):
 * *visual = 1. So does a foot whose own body (the foot link and the links
 * fixed to it) has no collision shape and is drawn reaching below the
 * collision shapes under the ankle (by more than the hulls' tolerance;
 * *visual = 2): a file whose right foot's collision cylinders sit on the
 * ankle's pitch link, its roll link (the foot) only drawn, 1.5 mm lower and
 * with a curved toe: standing on the cylinders, the foot turned on a point 11
 * mm from the nearest point of its drawn sole touching the ground, and those
 * points slid up to 30 mm over a stance. */
static int foot_points(const kg_retarget_robot *rr, const kg_data *d, kg_mesh_cache *mc, int side, double lean,
                       double (*pts)[3], int max, int *visual) {
    const kg_model *r = rr->model;
    const int *L = rr->map.link;
    int ankle = L[side ? KG_PART_ANKLE_R : KG_PART_ANKLE_L], foot = L[side ? KG_PART_FOOT_R : KG_PART_FOOT_L];
    const double *pf = d->link_pos + 3 * foot;
    int np = 0;
    *visual = 0;
    for (int l = ankle; rr->have_cm && l < r->nlink; l++) {
        if (!is_below(r, l, ankle)) continue;
        for (int k = rr->cm.link_first[l]; k < rr->cm.link_first[l] + rr->cm.link_count[l] && np + 5 <= max; k++)
            lowest_points(&rr->cm.shape[k], d, l, pf, lean, pts + np), np += 5;
    }
    if (np == 0) {
        np = visual_points(rr, d, mc, side, 0, lean, pts, max);
        *visual = np > 0;
    } else if (!body_has_shapes(rr, foot)) {
        double drawn[256][3];
        int nd = visual_points(rr, d, mc, side, 1, lean, drawn, max < 256 ? max : 256);
        if (nd > 0 && lowest_z((const double(*)[3])drawn, nd) < lowest_z((const double(*)[3])pts, np) - KG_CONVEX_TOLERANCE) {
            memcpy(pts, drawn, (size_t)nd * sizeof *drawn);
            np = nd, *visual = 2;
        }
    }
    return np;
}

/* Each foot's drawn shapes (kg_retarget_robot.foot_drawn): the visual hulls
 * of its body's links when none of them has a collision shape (a humanoid
 * whose right foot's collision cylinders sit on the ankle's pitch link, its
 * roll link only drawn: the drawn toe, 18 cm ahead of the ankle, went 24 mm
 * into the ground as the swinging foot pitched down). 0, or -1 when memory
 * runs out. */
static int drawn_feet(kg_retarget_robot *rr, kg_mesh_cache *mc, const kg_data *d, double sole_z) {
    const kg_model *r = rr->model;
    for (int side = 0; side < 2; side++) {
        int foot = rr->map.link[side ? KG_PART_FOOT_R : KG_PART_FOOT_L], g = rigid_root(r, foot), n = 0;
        if (body_has_shapes(rr, foot)) continue;
        for (int l = 0; l < r->nlink; l++) /* the links moving with g: those whose rigid root it is */
            if (rigid_root(r, l) == g) n += r->link[l].geom_count;
        rr->foot_drawn[side] = calloc((size_t)n + 1, sizeof *rr->foot_drawn[side]);
        rr->foot_drawn_rest[side] = calloc((size_t)n + 1, sizeof *rr->foot_drawn_rest[side]);
        if (!rr->foot_drawn[side] || !rr->foot_drawn_rest[side]) return -1;
        for (int l = 0; l < r->nlink; l++) {
            for (int k = r->link[l].geom_first; rigid_root(r, l) == g && k < r->link[l].geom_first + r->link[l].geom_count; k++) {
                kg_convex *c = &rr->foot_drawn[side][rr->nfoot_drawn[side]];
                if (r->geom[k].role != KG_VISUAL) continue;
                int rc = kg_geom_convex(r, k, mc, c, NULL, NULL);
                if (rc < 0) return -1;
                if (rc != 0) continue;
                double p[3];
                c->link = l;
                rr->foot_drawn_rest[side][rr->nfoot_drawn[side]++] = fmin(0, rt_convex_lowest(c, d, p) - sole_z);
            }
        }
    }
    return 0;
}

/* Each foot's collision shapes: its ankle link's and those of the links below
 * (and which shapes are a foot's). */
static int foot_shapes(kg_retarget_robot *rr) {
    const kg_model *r = rr->model;
    rr->is_foot_shape = calloc((size_t)rr->cm.nshape + 1, 1), rr->ground_shape = calloc((size_t)rr->cm.nshape + 1, 1);
    if (!rr->is_foot_shape || !rr->ground_shape) return -1;
    for (int side = 0; side < 2; side++) {
        int ankle = rr->map.link[side ? KG_PART_ANKLE_R : KG_PART_ANKLE_L], n = 0;
        rr->foot_shape[side] = malloc(((size_t)rr->cm.nshape + 1) * sizeof(int));
        if (!rr->foot_shape[side]) return -1;
        for (int l = ankle; rr->have_cm && ankle >= 0 && l < r->nlink; l++)
            for (int k = rr->cm.link_first[l]; is_below(r, l, ankle) && k < rr->cm.link_first[l] + rr->cm.link_count[l]; k++)
                rr->foot_shape[side][n++] = k, rr->is_foot_shape[k] = 1;
        rr->nfoot_shape[side] = n;
    }
    return 0;
}

/* ---- level feet ------------------------------------------------------------------------ */

/* A foot whose sole faces the ground tilted at the robot's rest pose (its
 * zero pose pitches the foot: a kid-size robot's 15 degrees, a simulation
 * model's 10) was planted as it is at rest: tilted, on its heel's edge, its
 * sole rectangle the part within sole_face of the lowest point (ZMP outside
 * the soles on 76-89 % of a walk's frames). The sole's face is the largest
 * face of the foot's shapes facing down within LEVEL_MAX (rad) of straight
 * down: the points of the shapes' supports along directions in that cone
 * (LEVEL_RINGS rings of LEVEL_AZIMUTHS), searched on a grid of LEVEL_STEP
 * (rad) for the direction whose points within LEVEL_BAND (m) of the lowest
 * span the largest face (at least LEVEL_SPAN (m) both ways), then fitted by
 * a plane. Tilted sole_level (tuning) or more, the foot is levelled
 * (level_foot) before its soles, COM and rest frames are measured (its legs'
 * lengths and axes, measured before, do not depend on it), and the robot
 * starts so. */
#define LEVEL_MAX 0.6
#define LEVEL_RINGS 6
#define LEVEL_AZIMUTHS 12
#define LEVEL_STEP 0.01
#define LEVEL_BAND 0.002
#define LEVEL_SPAN 0.02
/* Support directions per shape (the cone's rings and azimuths, and straight down). */
#define LEVEL_SHAPE_POINTS (LEVEL_RINGS * LEVEL_AZIMUTHS + 1)
/* Faces whose sizes differ by less than this share are equal (the nearest
 * straight down is taken). */
#define LEVEL_TIE 1e-9
/* Joints an ankle may turn a foot by (two or three, a toe below them). */
#define LEVEL_JOINTS 8
/* Gauss-Newton steps turning the ankle's joints, the numeric Jacobian's step
 * (rad), and the damping of its 2 x 2 solve (keeps an ankle that cannot turn
 * the sole one way from dividing by zero). */
#define LEVEL_ITERATIONS 20
#define LEVEL_DELTA 1e-6
#define LEVEL_DAMPING 1e-12

/* The world points of the supports of side's foot shapes (those of the links
 * below the ankle) along the cone's directions; returns how many. */
static int foot_cloud(const kg_retarget_robot *rr, const kg_data *d, int side, double (*pts)[3], int max) {
    const kg_model *r = rr->model;
    int ankle = rr->map.link[side ? KG_PART_ANKLE_R : KG_PART_ANKLE_L], np = 0;
    for (int l = ankle; rr->have_cm && ankle >= 0 && l < r->nlink; l++) {
        if (!is_below(r, l, ankle)) continue;
        for (int k = rr->cm.link_first[l]; k < rr->cm.link_first[l] + rr->cm.link_count[l]; k++) {
            const kg_convex *c = &rr->cm.shape[k];
            for (int i = 0; i <= LEVEL_RINGS; i++)
                for (int j = 0; j < (i ? LEVEL_AZIMUTHS : 1) && np < max; j++) {
                    const double t = LEVEL_MAX * i / LEVEL_RINGS, az = 2 * KG_PI * j / LEVEL_AZIMUTHS;
                    const double down[3] = {sin(t) * cos(az), sin(t) * sin(az), -cos(t)};
                    support_world(c, d, l, down, pts[np++]);
                }
        }
    }
    return np;
}

/* The face of the points within LEVEL_BAND of the lowest along n (in[]
 * marks them): its size, the product of its two spreads across n (the
 * in-plane covariance's axes; a rectangle's corners give its sides), 0 unless
 * the lesser spans LEVEL_SPAN (an edge or a corner, whichever way it lies,
 * is no face). */
static double face_along(const double (*pts)[3], int np, const double n[3], unsigned char *in) {
    double u[3], v[3], low = INFINITY, m[2] = {0, 0}, c[3] = {0, 0, 0}, x[3] = {1, 0, 0}, y[3] = {0, 1, 0};
    kg_vec3_cross(u, n, fabs(n[0]) < 0.9 ? x : y);
    rt_normalize(u);
    kg_vec3_cross(v, n, u);
    for (int i = 0; i < np; i++) low = fmin(low, -kg_vec3_dot(pts[i], n)); /* along n is down: heights are -p.n */
    int k = 0;
    for (int i = 0; i < np; i++)
        if ((in[i] = -kg_vec3_dot(pts[i], n) <= low + LEVEL_BAND)) k++, m[0] += kg_vec3_dot(pts[i], u), m[1] += kg_vec3_dot(pts[i], v);
    m[0] /= k, m[1] /= k;
    for (int i = 0; i < np; i++) {
        if (!in[i]) continue;
        const double a = kg_vec3_dot(pts[i], u) - m[0], b = kg_vec3_dot(pts[i], v) - m[1];
        c[0] += a * a / k, c[1] += a * b / k, c[2] += b * b / k;
    }
    const double mid = 0.5 * (c[0] + c[2]), r = hypot(0.5 * (c[0] - c[2]), c[1]); /* eigenvalues mid -+ r */
    const double lesser = 2 * sqrt(fmax(mid - r, 0)), greater = 2 * sqrt(mid + r); /* a side: twice its spread */
    return lesser >= LEVEL_SPAN ? lesser * greater : 0;
}

/* n (set) refitted: the plane through the points in[] marks (their
 * covariance's least axis), turned as n; kept where they span no plane. */
static void plane_fit(const double (*pts)[3], int np, const unsigned char *in, double n[3]) {
    double mean[3] = {0, 0, 0}, C[9] = {0}, mom[3], axes[9];
    int k = 0;
    for (int i = 0; i < np; i++)
        for (int a = 0; a < 3 && in[i]; a++) mean[a] += pts[i][a], k += a == 0;
    for (int a = 0; a < 3 && k > 0; a++) mean[a] /= k;
    for (int i = 0; i < np; i++)
        for (int a = 0; a < 3 && in[i]; a++)
            for (int b = 0; b < 3; b++) C[3 * a + b] += (pts[i][a] - mean[a]) * (pts[i][b] - mean[b]);
    if (kg_inertia_principal(C, mom, axes) != 0 || !(mom[1] > 0)) return;
    const double m[3] = {axes[0], axes[3], axes[6]}, sg = kg_vec3_dot(m, n) < 0 ? -1 : 1; /* the least axis */
    for (int a = 0; a < 3; a++) n[a] = sg * m[a];
}

/* The sole's outward normal (world, pointing down) from the cloud: straight
 * down when the face there lies within `flat` of it (a foot flat at rest: one
 * look), else the grid's best direction (the nearest straight down of
 * equals), refitted. 0, or -1 when no face spans a rectangle. */
static int sole_normal(const double (*pts)[3], int np, unsigned char *in, double flat, double n[3]) {
    n[0] = n[1] = 0, n[2] = -1;
    if (face_along(pts, np, n, in) > 0) {
        plane_fit(pts, np, in, n);
        if (acos(fmin(1, -n[2])) < flat) return 0;
    }
    const int g = (int)(tan(LEVEL_MAX) / LEVEL_STEP);
    double best = 0, tilt = INFINITY;
    for (int i = -g; i <= g; i++)
        for (int j = -g; j <= g; j++) {
            double c[3] = {i * LEVEL_STEP, j * LEVEL_STEP, -1}, t = hypot(c[0], c[1]);
            if (atan(t) > LEVEL_MAX) continue;
            rt_normalize(c);
            double area = face_along(pts, np, c, in);
            if (area > best * (1 + LEVEL_TIE) || (area >= best * (1 - LEVEL_TIE) && area > 0 && t < tilt))
                best = area, tilt = t, kg_vec3_copy(n, c);
        }
    if (!(best > 0)) return -1;
    face_along(pts, np, n, in);
    plane_fit(pts, np, in, n);
    return 0;
}

/* The world x and y of the foot's sole normal nf (its link's frame): zero when
 * it points straight down. */
static void tilt_error(const kg_data *d, int foot, const double nf[3], double e[2]) {
    double w[3];
    kg_mat3_vec(w, d->link_rot + 9 * foot, nf);
    e[0] = w[0], e[1] = w[1];
}

/* The joints from the foot's link up to the ankle's (Jacobian columns into
 * col, at most LEVEL_JOINTS): one-axis, driven. Returns how many. */
static int ankle_columns(const kg_retarget_robot *rr, int side, int col[LEVEL_JOINTS]) {
    const kg_model *r = rr->model;
    const int foot = rr->map.link[side ? KG_PART_FOOT_R : KG_PART_FOOT_L], ankle = rr->map.link[side ? KG_PART_ANKLE_R : KG_PART_ANKLE_L];
    int n = 0;
    for (int l = foot; l >= 0 && n < LEVEL_JOINTS; l = r->link[l].parent) {
        const int j = r->link[l].joint;
        if (j >= 0 && (r->joint[j].type == KG_JOINT_REVOLUTE || r->joint[j].type == KG_JOINT_CONTINUOUS) &&
            r->joint[j].dofadr >= 0 && rr->qidx[r->joint[j].dofadr] >= 0)
            col[n++] = r->joint[j].dofadr;
        if (l == ankle) break;
    }
    return n;
}

/* Turns the ankle's joints (ankle_columns: *joints of them), within their
 * limits, until the sole's normal nf (the foot link's frame) points straight
 * down: Gauss-Newton on its world x and y (the least change of the joints),
 * the Jacobian by differences; the best iterate is kept. Its values go into
 * d (kinematics updated) and the neutral pose; returns the tilt left (rad). */
static double level_foot(kg_retarget_robot *rr, kg_data *d, int side, const double nf[3], int *joints) {
    const kg_model *r = rr->model;
    const int foot = rr->map.link[side ? KG_PART_FOOT_R : KG_PART_FOOT_L];
    int col[LEVEL_JOINTS];
    const int n = *joints = ankle_columns(rr, side, col);
    double e[2], J[2][LEVEL_JOINTS], best_q[LEVEL_JOINTS], best = INFINITY;
    for (int it = 0; it <= LEVEL_ITERATIONS && n > 0; it++) {
        tilt_error(d, foot, nf, e);
        if (hypot(e[0], e[1]) < best)
            for (int k = (best = hypot(e[0], e[1]), 0); k < n; k++) best_q[k] = d->q[rr->qidx[col[k]]];
        if (it == LEVEL_ITERATIONS) break;
        for (int k = 0; k < n; k++) {
            double *q = &d->q[rr->qidx[col[k]]], q0 = *q, e1[2];
            *q = q0 + LEVEL_DELTA;
            kg_fk(r, d);
            tilt_error(d, foot, nf, e1);
            *q = q0;
            J[0][k] = (e1[0] - e[0]) / LEVEL_DELTA, J[1][k] = (e1[1] - e[1]) / LEVEL_DELTA;
        }
        double A[3] = {LEVEL_DAMPING, 0, LEVEL_DAMPING}, y[2]; /* J J^T, damped: a 2 x 2 solve */
        for (int k = 0; k < n; k++) A[0] += J[0][k] * J[0][k], A[1] += J[0][k] * J[1][k], A[2] += J[1][k] * J[1][k];
        double det = A[0] * A[2] - A[1] * A[1];
        y[0] = (A[2] * e[0] - A[1] * e[1]) / det, y[1] = (A[0] * e[1] - A[1] * e[0]) / det;
        for (int k = 0; k < n; k++) {
            double *q = &d->q[rr->qidx[col[k]]];
            *q = fmin(fmax(*q - (J[0][k] * y[0] + J[1][k] * y[1]), rr->lower[col[k]]), rr->upper[col[k]]);
        }
        kg_fk(r, d);
    }
    for (int k = 0; k < n; k++) d->q[rr->qidx[col[k]]] = rr->neutral[rr->qidx[col[k]]] = best_q[k];
    kg_fk(r, d);
    tilt_error(d, foot, nf, e);
    return asin(fmin(1, hypot(e[0], e[1])));
}

/* Levels each foot whose sole faces the ground sole_level or more off flat
 * at rest (above); a foot its ankle cannot level (no joints there, or at
 * their limits) is said to stay tilted. 0, or -1 when memory runs out. */
static int level_feet(kg_retarget_robot *rr, kg_data *d, const kg_retarget_tuning *t, kg_diags *dg) {
    const kg_model *r = rr->model;
    for (int side = 0; side < 2 && t->sole_level > 0 && rr->have_cm; side++) {
        const int foot = rr->map.link[side ? KG_PART_FOOT_R : KG_PART_FOOT_L], ankle = rr->map.link[side ? KG_PART_ANKLE_R : KG_PART_ANKLE_L];
        int shapes = 0;
        for (int l = ankle; foot >= 0 && ankle >= 0 && l < r->nlink; l++)
            if (is_below(r, l, ankle)) shapes += rr->cm.link_count[l];
        if (shapes == 0) continue;
        const int max = shapes * LEVEL_SHAPE_POINTS;
        double (*pts)[3] = malloc((size_t)max * sizeof *pts), n[3], nf[3];
        unsigned char *in = malloc((size_t)max);
        if (!pts || !in) {
            free(pts), free(in);
            return -1;
        }
        const int np = foot_cloud(rr, d, side, pts, max);
        const int found = np >= 3 && sole_normal((const double(*)[3])pts, np, in, t->sole_level, n) == 0;
        free(pts), free(in);
        const double tilt = found ? acos(fmin(1, -n[2])) : 0;
        if (!(tilt >= t->sole_level)) continue;
        kg_mat3_tvec(nf, d->link_rot + 9 * foot, n);
        int joints;
        const double left = level_foot(rr, d, side, nf, &joints);
        const char *who = r->name ? r->name : "", *which = side ? "right" : "left";
        if (left < t->sole_level)
            kg_diag_add(dg, KG_INFO, "retarget.foot_levelled", r->source, 0, NULL,
                        "the %s foot of '%s' faces the ground %.1f degrees off flat at the rest pose: its ankle's joints "
                        "are turned to level it (%.1f degrees left)", which, who, tilt * 180 / KG_PI, left * 180 / KG_PI);
        else
            kg_diag_add(dg, KG_WARNING, "retarget.foot_tilted", r->source, 0, NULL,
                        "the %s foot of '%s' faces the ground %.1f degrees off flat at the rest pose, and its ankle's "
                        "joints (%d one-axis joints below the ankle part) leave %.1f degrees (at their limits, or none "
                        "turns it that way): it is planted tilted", which, who, tilt * 180 / KG_PI,
                        joints, left * 180 / KG_PI);
    }
    return 0;
}

/* Each sole's rectangle (the lowest face of the foot's shapes), the feet's
 * heights and offsets; returns the sole plane's height at rest. The sole is
 * found in the foot's level frame (the world's axes, standing: x forward, z
 * up) and kept in its link's frame, whatever way that points (a robot whose
 * ankle link has x up and z forward stood on a sole found along its link's
 * z: its feet planned backwards, slip 180-250 mm). */
static double soles(kg_retarget_robot *rr, const kg_data *d, kg_mesh_cache *mc, const kg_retarget_tuning *t, kg_diags *dg) {
    const kg_model *r = rr->model;
    /* the assumed sole is a person-sized foot's on a leg_reference-long leg: scaled to the robot's */
    const double ks = t->leg_reference > 0 && rr->leg > 0 ? rr->leg / t->leg_reference : 1;
    const double dflt[4] = {-ks * t->default_sole_back, ks * t->default_sole_front, -ks * t->default_sole_half_width,
                            ks * t->default_sole_half_width}; /* x lo, hi, y lo, hi */
    const int *L = rr->map.link;
    double sole_z = INFINITY;
    for (int s = 0; s < 2; s++) {
        int ankle = L[s ? KG_PART_ANKLE_R : KG_PART_ANKLE_L], foot = L[s ? KG_PART_FOOT_R : KG_PART_FOOT_L];
        double pts[256][3], lo[2] = {INFINITY, INFINITY}, hi[2] = {-INFINITY, -INFINITY}, zmin = INFINITY;
        int visual, np = foot_points(rr, d, mc, s, t->sole_lean, pts, 256, &visual);
        for (int i = 0; i < np; i++) zmin = fmin(zmin, pts[i][2]);
        for (int i = 0; i < np; i++)
            if (pts[i][2] <= zmin + t->sole_face)
                for (int a = 0; a < 2; a++) lo[a] = fmin(lo[a], pts[i][a]), hi[a] = fmax(hi[a], pts[i][a]);
        if (np == 0 || !(hi[0] > lo[0]) || !(hi[1] > lo[1])) {
            kg_diag_add(dg, KG_WARNING, "retarget.no_sole", r->source, 0, NULL,
                        "the %s foot of '%s' has %s: a %.0f x %.0f cm sole at its link's origin is assumed",
                        s ? "right" : "left", r->name ? r->name : "",
                        np == 0 ? "no collision or visual geometry"
                                : "no face of its geometry facing the ground at the rest pose (its lowest points are "
                                  "a point or a line: a foot tilted more than sole_lean there)",
                        100 * (dflt[1] - dflt[0]), 100 * (dflt[3] - dflt[2]));
            lo[0] = dflt[0], hi[0] = dflt[1], lo[1] = dflt[2], hi[1] = dflt[3];
            zmin = 0, np = 0; /* the rectangle's corners are its points */
        } else if (visual) {
            kg_diag_add(dg, KG_WARNING, "retarget.visual_sole", r->source, 0, NULL,
                        "the %s foot of '%s' has %s: its sole is its visual geometry's lowest face",
                        s ? "right" : "left", r->name ? r->name : "",
                        visual == 1 ? "no collision geometry"
                                    : "no collision shape on its own links, and is drawn lower than the ones under "
                                      "its ankle");
        }
        const double *Rf = d->link_rot + 9 * foot; /* level frame -> the link's: its transpose */
        double c[4][3], mid[3] = {0.5 * (lo[0] + hi[0]), 0.5 * (lo[1] + hi[1]), zmin};
        for (int k = 0; k < 4; k++) {
            c[k][0] = k & 1 ? hi[0] : lo[0], c[k][1] = k & 2 ? hi[1] : lo[1], c[k][2] = zmin;
            kg_mat3_tvec(rr->sole[s][k], Rf, c[k]);
        }
        kg_mat3_tvec(rr->sole_mid[s], Rf, mid);
        /* the inner corners of the front and the back of the sole (forward: x; inner: towards the
         * other foot, y on the right, -y on the left): a foot turns on its ball's corner or its heel's */
        for (int e = 0; e < 2; e++) { /* a point it stands on: of the face's, or the rectangle's corners */
            double best = -INFINITY, end[3] = {0, 0, 0};
            for (int k = 0; k < (np > 0 ? np : 4); k++) {
                const double *pk = np > 0 ? pts[k] : c[k];
                if (np > 0 && pts[k][2] > zmin + t->sole_face) continue;
                double v = (e ? -pk[0] : pk[0]) + 1e-3 * (s ? pk[1] : -pk[1]);
                if (v > best) best = v, end[0] = pk[0], end[1] = pk[1], end[2] = zmin;
            }
            /* an assumed sole's ends are guesses: a foot turns on the one point the file gives,
             * its link's origin */
            if (np == 0) memset(end, 0, sizeof end);
            kg_mat3_tvec(rr->sole_end[s][e], Rf, end);
        }
        const double *pf = d->link_pos + 3 * foot;
        rr->foot_h[s] = -zmin; /* the link's origin above its flat sole */
        sole_z = fmin(sole_z, pf[2] + zmin);
        double da[3];
        for (int a = 0; a < 3; a++) da[a] = pf[a] - d->link_pos[3 * ankle + a];
        kg_mat3_tvec(rr->foot_off[s], d->link_rot + 9 * foot, da);
    }
    for (int s = 0; s < 2; s++)
        rr->ankle_h += 0.5 * (d->link_pos[3 * L[s ? KG_PART_ANKLE_R : KG_PART_ANKLE_L] + 2] - sole_z);
    return sole_z;
}

/* Per column: position limits (a mimic follower's limits bound its leader
 * through the coupling), velocity limits (the file's; 0 where it gives none,
 * INFINITY for a free joint's), and the coordinate it moves. */
static void column_limits(kg_retarget_robot *rr) {
    const kg_model *r = rr->model;
    kg_dof_coords(r, rr->qidx, rr->lower, rr->upper);
    for (int c = 0; c < r->dof; c++) rr->vmax[c] = 0;
    for (int j = 0; j < r->njoint; j++) {
        const kg_joint *J = &r->joint[j];
        if (J->type == KG_JOINT_FLOATING) /* a free joint in the tree floats like the root */
            for (int c = 0; c < 6; c++) rr->vmax[J->dofadr + c] = INFINITY;
        else if (J->dofadr >= 0 && J->velocity > 0)
            for (int c = 0; c < J->nv; c++) rr->vmax[J->dofadr + c] = J->velocity;
        if (J->mimic < 0 || !kg_joint_is_limited(J)) continue;
        const kg_mimic *mm = &r->mimic[J->mimic];
        int col = r->joint[mm->leader].dofadr;
        if (col < 0 || mm->multiplier == 0) continue;
        double a = (J->lower - mm->offset) / mm->multiplier, b = (J->upper - mm->offset) / mm->multiplier;
        rr->lower[col] = fmax(rr->lower[col], fmin(a, b));
        rr->upper[col] = fmin(rr->upper[col], fmax(a, b));
        if (rr->lower[col] > rr->upper[col]) rr->lower[col] = rr->upper[col] = 0.5 * (rr->lower[col] + rr->upper[col]);
        if (J->velocity > 0) {
            double v = J->velocity / fabs(mm->multiplier);
            rr->vmax[col] = rr->vmax[col] > 0 ? fmin(rr->vmax[col], v) : v;
        }
    }
    for (int k = 0; k < r->nq; k++) rr->neutral[k] = r->q_default[k];
    for (int c = 0; c < r->dof; c++)
        if (rr->qidx[c] >= 0) rr->neutral[rr->qidx[c]] = fmin(fmax(0, rr->lower[c]), rr->upper[c]);
}

/* Each link's path entries: the velocity coordinates of the joints from the
 * root down to it, with the column and factor each is counted in. */
static int paths(kg_retarget_robot *rr) {
    const kg_model *r = rr->model;
    int total = 0;
    for (int l = 0; l < r->nlink; l++)
        for (int u = l; u > 0; u = r->link[u].parent) total += r->joint[r->link[u].joint].nv;
    rr->path = malloc(((size_t)total + 1) * sizeof *rr->path);
    rr->path_first = malloc(((size_t)r->nlink + 1) * sizeof *rr->path_first);
    rr->path_count = malloc(((size_t)r->nlink + 1) * sizeof *rr->path_count);
    if (!rr->path || !rr->path_first || !rr->path_count) return -1;
    int n = 0;
    for (int l = 0; l < r->nlink; l++) {
        rr->path_first[l] = n;
        for (int u = l; u > 0; u = r->link[u].parent) {
            const kg_joint *J = &r->joint[r->link[u].joint];
            int col = J->dofadr;
            double scale = 1;
            if (J->mimic >= 0) {
                const kg_mimic *mm = &r->mimic[J->mimic];
                col = r->joint[mm->leader].dofadr, scale = mm->multiplier;
            }
            for (int c = 0; c < J->nv && col >= 0; c++)
                rr->path[n++] = (rt_path_entry){J->vadr + c, 6 + col + c, scale};
        }
        rr->path_count[l] = n - rr->path_first[l];
    }
    return 0;
}

/* The columns on the way from the root to a body part's link: no task moves
 * the others (a gripper beyond the wrist; a neck without a head part), which
 * the COM's pull alone would swing about. */
static int driven_columns(kg_retarget_robot *rr) {
    const kg_model *r = rr->model;
    rr->driven = calloc((size_t)r->dof + 1, 1);
    if (!rr->driven) return -1;
    for (int k = 0; k < KG_NPART; k++) {
        int l = rr->map.link[k];
        for (int e = 0; l >= 0 && e < rr->path_count[l]; e++) rr->driven[rr->path[rr->path_first[l] + e].col - 6] = 1;
    }
    /* a floating joint the model itself declares (a URDF's world link and a floating joint to the
     * pelvis) moves the body as the solve's own root does: two roots would share one motion, split
     * by the regularisation, and the output's root link drift; it is held, the root moves */
    for (int j = 0; j < r->njoint; j++)
        if (r->joint[j].type == KG_JOINT_FLOATING && r->joint[j].dofadr >= 0)
            for (int c = 0; c < r->joint[j].nv; c++) rr->driven[r->joint[j].dofadr + c] = 0;
    rr->xcol = malloc(((size_t)r->dof + 1) * sizeof *rr->xcol);
    if (!rr->xcol) return -1;
    rr->nx = 6;
    for (int c = 0; c < r->dof; c++) rr->xcol[c] = rr->driven[c] ? rr->nx++ : -1;
    return 0;
}

/* Can the solve change the pose of link b relative to link a: a driven
 * column on the tree path between them? */
static int movable(const kg_retarget_robot *rr, int a, int b) {
    const kg_model *r = rr->model;
    while (a != b) { /* up from the deeper of the two (topological order: the larger index) */
        int *u = a > b ? &a : &b;
        const kg_joint *J = &r->joint[r->link[*u].joint];
        int col = J->mimic >= 0 ? r->joint[r->mimic[J->mimic].leader].dofadr : J->dofadr;
        for (int c = 0; c < J->nv && col >= 0; c++)
            if (rr->driven[col + c]) return 1;
        *u = r->link[*u].parent;
    }
    return 0;
}

/* The pairs to keep apart: those the collision matrix says can touch - neither
 * adjacent, declared, nor touching at rest (a pair touching at rest is part of
 * the robot's build), nor held together by columns the solve does not move - with their distances at rest (a pair the build holds
 * nearer than collision_safe is kept apart by less: step.h). From here on
 * hull hits are confirmed on the meshes for the report (a concave link's hull
 * covers what the link does not). */
static int watched_pairs(kg_retarget_robot *rr, const kg_data *d) {
    kg_collision_model *cm = &rr->cm;
    unsigned char *check = malloc((size_t)cm->npair + 1), *hit = malloc((size_t)cm->npair + 1);
    kg_collision_work *cw = kg_collision_work_new(cm), *cwc = kg_collision_work_new(&rr->coarse);
    rr->watch = malloc(((size_t)cm->npair + 1) * sizeof *rr->watch);
    rr->watch_rest = malloc(((size_t)cm->npair + 1) * sizeof *rr->watch_rest);
    int rc = -1;
    if (check && hit && cw && cwc && rr->watch && rr->watch_rest) {
        for (int k = 0; k < cm->npair; k++) check[k] = !cm->adjacent[k] && !cm->declared[k];
        kg_self_collisions(cm, d, cw, check, hit);
        for (int k = 0; k < cm->npair; k++) {
            double n[3], pa[3], pb[3], dist = INFINITY;
            if (!check[k] || hit[k] || !movable(rr, cm->pair_a[k], cm->pair_b[k])) continue;
            kg_pair_distance(&rr->coarse, d, cwc, k, INFINITY, &dist, n, pa, pb);
            rr->watch_rest[rr->nwatch] = dist;
            rr->watch[rr->nwatch++] = k;
        }
        cm->exact = 1;
        rc = 0;
    }
    free(check), free(hit);
    kg_collision_work_free(cw), kg_collision_work_free(cwc);
    return rc;
}

/* How many points bound a shape (shape_point): a hull's vertices, a
 * sphere's centre, a capsule's ends, the 8 corners of other shapes' bounds. */
static int shape_points(const kg_convex *c) {
    return c->type == KG_CONVEX_HULL ? c->nvert : c->type == KG_CONVEX_SPHERE ? 1 : c->type == KG_CONVEX_CAPSULE ? 2 : 8;
}

/* Point i of those, in its link's frame, into p; returns the radius it is
 * swelled by (a hull's margin, a sphere's or capsule's radius, else 0). */
static double shape_point(const kg_convex *c, int i, double p[3]) {
    double v[3], r = 0;
    if (c->type == KG_CONVEX_HULL) kg_vec3_copy(v, c->vert + 3 * i), r = c->margin;
    else if (c->type == KG_CONVEX_SPHERE) v[0] = v[1] = v[2] = 0, r = c->size[0];
    else if (c->type == KG_CONVEX_CAPSULE) v[0] = v[1] = 0, v[2] = i ? c->size[1] : -c->size[1], r = c->size[0];
    else
        for (int a = 0; a < 3; a++) v[a] = i >> a & 1 ? c->hi[a] : c->lo[a];
    kg_mat3_vec(p, c->rot, v);
    for (int a = 0; a < 3; a++) p[a] += c->pos[a];
    return r;
}

/* The capsule (segment ends e0, e1 and a radius, link frame) around link l's
 * shapes: its axis their points' principal one, its radius their farthest
 * from that axis, its ends drawn in as far as every point stays inside. */
static void link_capsule(const kg_collision_model *cm, int l, double cap[7]) {
    double c[3] = {0, 0, 0}, C[9] = {0}, p[3];
    int n = 0;
    for (int k = cm->link_first[l]; k < cm->link_first[l] + cm->link_count[l]; k++)
        for (int i = 0; i < shape_points(&cm->shape[k]); i++, n++) {
            shape_point(&cm->shape[k], i, p);
            for (int a = 0; a < 3; a++) c[a] += p[a];
        }
    cap[6] = -1; /* none: no bound */
    if (n == 0) return;
    for (int a = 0; a < 3; a++) c[a] /= n;
    for (int k = cm->link_first[l]; k < cm->link_first[l] + cm->link_count[l]; k++)
        for (int i = 0; i < shape_points(&cm->shape[k]); i++) {
            shape_point(&cm->shape[k], i, p);
            for (int a = 0; a < 3; a++)
                for (int b = 0; b < 3; b++) C[3 * a + b] += (p[a] - c[a]) * (p[b] - c[b]);
        }
    double ev[3], V[9], u[3], r = 0, lo = INFINITY, hi = -INFINITY;
    if (kg_inertia_principal(C, ev, V) != 0) return;
    for (int a = 0; a < 3; a++) u[a] = V[3 * a + 2]; /* the largest spread's axis */
    for (int pass = 0; pass < 2; pass++)
        for (int k = cm->link_first[l]; k < cm->link_first[l] + cm->link_count[l]; k++)
            for (int i = 0; i < shape_points(&cm->shape[k]); i++) {
                double rad = shape_point(&cm->shape[k], i, p), d[3], t, rho2 = 0;
                for (int a = 0; a < 3; a++) d[a] = p[a] - c[a];
                t = kg_vec3_dot(d, u);
                for (int a = 0; a < 3; a++) rho2 += (d[a] - t * u[a]) * (d[a] - t * u[a]);
                if (pass == 0) {
                    r = fmax(r, sqrt(rho2) + rad);
                    continue;
                }
                double reach = sqrt(fmax(0, (r - rad) * (r - rad) - rho2)); /* along the axis, within r */
                hi = fmax(hi, t - reach), lo = fmin(lo, t + reach);
            }
    if (lo > hi) lo = hi = (lo + hi) / 2; /* a sphere does */
    for (int a = 0; a < 3; a++) cap[a] = c[a] + lo * u[a], cap[3 + a] = c[a] + hi * u[a];
    cap[6] = r;
}

/* How far each link's collision shapes reach from its origin (their bounding
 * boxes' corners): a link turned by an angle a moves none of its shapes'
 * points farther than a times this; and the capsule around them. */
static int link_bounds(kg_retarget_robot *rr) {
    const kg_collision_model *cm = &rr->coarse;
    const size_t nl = (size_t)rr->model->nlink;
    rr->link_radius = calloc(nl + 1, sizeof *rr->link_radius);
    rr->capsule = malloc(7 * (nl + 1) * sizeof *rr->capsule);
    if (!rr->link_radius || !rr->capsule) return -1;
    for (int l = 0; l < rr->model->nlink; l++) {
        rr->capsule[7 * l + 6] = -1;
        if (!rr->have_cm) continue;
        link_capsule(cm, l, rr->capsule + 7 * l);
        for (int k = cm->link_first[l]; k < cm->link_first[l] + cm->link_count[l]; k++) {
            const kg_convex *c = &cm->shape[k];
            for (int corner = 0; corner < 8; corner++) {
                double v[3] = {corner & 1 ? c->hi[0] : c->lo[0], corner & 2 ? c->hi[1] : c->lo[1],
                               corner & 4 ? c->hi[2] : c->lo[2]}, vl[3];
                kg_mat3_vec(vl, c->rot, v);
                for (int a = 0; a < 3; a++) vl[a] += c->pos[a];
                rr->link_radius[l] = fmax(rr->link_radius[l], kg_vec3_norm(vl));
            }
        }
    }
    return 0;
}

/* The leg (hip-knee-ankle) and arm (shoulder-elbow-wrist) lengths at rest. */
static void limb_lengths(kg_retarget_robot *rr, const kg_data *d) {
    const int *L = rr->map.link;
    const double *P = d->link_pos;
    for (int s = 0; s < 2; s++) {
        int hip = s ? KG_PART_HIP_R : KG_PART_HIP_L, sh = s ? KG_PART_SHOULDER_R : KG_PART_SHOULDER_L;
        rr->leg += 0.5 * (dist3(P + 3 * L[hip], P + 3 * L[hip + 1]) + dist3(P + 3 * L[hip + 1], P + 3 * L[hip + 2]));
        rr->arm += 0.5 * (dist3(P + 3 * L[sh], P + 3 * L[sh + 1]) + dist3(P + 3 * L[sh + 1], P + 3 * L[sh + 2]));
    }
}

/* The shapes kept above the ground besides the feet's (constraints.c
 * body_ground_rows): those clear of the soles' plane by sole_watch at rest,
 * standing, on links whose shapes reach no farther than a leg is long. A
 * shape lower at rest is part of a foot the map did not put below the ankle;
 * one reaching farther is not a body's shape (a 1 m test cylinder around a
 * pelvis, left in a published model): held above the ground, it held the
 * pelvis within 15 degrees of upright and the robot off its feet. */
static void ground_shapes(kg_retarget_robot *rr, const kg_data *d, double sole_z, double watch) {
    for (int k = 0; k < rr->cm.nshape; k++) {
        double p[3];
        int l = rr->cm.shape[k].link; /* a link reaching farther than a leg is long is not a body's part */
        rr->ground_shape[k] = !rr->is_foot_shape[k] && rt_shape_lowest(&rr->coarse, d, k, p) >= sole_z + watch &&
                              rr->link_radius[l] <= rr->leg;
    }
}

/* The sine of the bend of arm `side` at the pose d (upper arm from the
 * shoulder's point to the elbow's, forearm on to the wrist's), signed by the
 * elbow axis ax (world): > 0 when the forearm turns about +ax from the upper
 * arm; *along: the cosine (1: straight, -1: folded back). */
static double arm_bend(const kg_retarget_robot *rr, const kg_data *d, int side, const double ax[3], double *along) {
    int sh = side ? KG_PART_SHOULDER_R : KG_PART_SHOULDER_L;
    double p[3][3], ua[3], fa[3], n[3];
    for (int k = 0; k < 3; k++) rt_body_point(rr, d, sh + k, p[k]);
    for (int a = 0; a < 3; a++) ua[a] = p[1][a] - p[0][a], fa[a] = p[2][a] - p[1][a];
    kg_vec3_cross(n, ua, fa);
    double nn = kg_vec3_norm(ua) * kg_vec3_norm(fa);
    *along = nn > 0 ? kg_vec3_dot(ua, fa) / nn : 1;
    return nn > 0 ? kg_vec3_dot(n, ax) / nn : 0;
}

/* Arm side's elbow joint: of the revolute joints between its shoulder's link
 * and its wrist's, those whose axis is at least ELBOW_ACROSS (a sine) across
 * the upper arm at rest (a twist turns about it), the one nearest the elbow's
 * point; -1 when none. */
#define ELBOW_ACROSS 0.7
static int elbow_joint(const kg_retarget_robot *rr, const kg_data *d, int side) {
    const kg_model *r = rr->model;
    int sh = side ? KG_PART_SHOULDER_R : KG_PART_SHOULDER_L;
    int ls = rr->map.link[sh], le = rr->map.link[sh + 1], lw = rr->map.link[sh + 2], best = -1;
    if (ls < 0 || le < 0 || lw < 0) return -1;
    double pe[3], ua[3], bd = INFINITY;
    rt_body_point(rr, d, sh + 1, pe);
    for (int a = 0; a < 3; a++) ua[a] = pe[a] - d->link_pos[3 * ls + a];
    if (!(kg_vec3_norm(ua) > 0)) return -1;
    rt_normalize(ua);
    for (int l = lw; l > ls && l > 0; l = r->link[l].parent) {
        const kg_joint *J = &r->joint[r->link[l].joint];
        if (J->type != KG_JOINT_REVOLUTE || J->dofadr < 0 || J->mimic >= 0) continue;
        double ax[3], *p = d->link_pos + 3 * l;
        kg_mat3_vec(ax, d->link_rot + 9 * l, J->axis);
        double c = kg_vec3_dot(ax, ua), dist = hypot(hypot(p[0] - pe[0], p[1] - pe[1]), p[2] - pe[2]);
        if (sqrt(fmax(0, 1 - c * c)) >= ELBOW_ACROSS && dist < bd) bd = dist, best = l;
    }
    return best;
}

/* Each arm's elbow (elbow_joint), its axis signed by the way it bends: swept
 * over ELBOW_SAMPLES angles, the arm is straightest at one; the side of it
 * with more of the joint's range is the bend's (measured bent ELBOW_PROBE rad
 * that way), unless the other side has at least ELBOW_EITHER as much: it
 * bends either way. d is left at its pose. */
#define ELBOW_SAMPLES 72
#define ELBOW_PROBE 0.5
#define ELBOW_EITHER 0.5
static void elbows(kg_retarget_robot *rr, kg_data *d) {
    const kg_model *r = rr->model;
    for (int side = 0; side < 2; side++) {
        int l = rr->elbow_link[side] = elbow_joint(rr, d, side);
        if (l < 0) continue;
        const kg_joint *J = &r->joint[r->link[l].joint];
        double lo = J->has_limit ? fmax(J->lower, -KG_PI) : -KG_PI, hi = J->has_limit ? fmin(J->upper, KG_PI) : KG_PI;
        double q0 = d->q[J->qadr], straight = 0, least = INFINITY, ax[3], along, bend;
        for (int k = 0; k < ELBOW_SAMPLES; k++) { /* the straightest angle, over the whole turn */
            d->q[J->qadr] = -KG_PI + 2 * KG_PI * k / ELBOW_SAMPLES;
            kg_fk(r, d);
            kg_mat3_vec(ax, d->link_rot + 9 * l, J->axis);
            double sb = fabs(arm_bend(rr, d, side, ax, &along));
            if (along > 0 && sb < least) least = sb, straight = d->q[J->qadr];
        }
        double below = fmax(0, fmin(hi, straight) - lo), above = fmax(0, hi - fmax(lo, straight));
        d->q[J->qadr] = straight + (above >= below ? ELBOW_PROBE : -ELBOW_PROBE);
        kg_fk(r, d);
        kg_mat3_vec(ax, d->link_rot + 9 * l, J->axis);
        bend = arm_bend(rr, d, side, ax, &along);
        d->q[J->qadr] = q0;
        kg_fk(r, d);
        rr->elbow_either[side] = fmin(below, above) >= ELBOW_EITHER * fmax(below, above);
        for (int a = 0; a < 3; a++) rr->elbow_axis[side][a] = bend < 0 ? -J->axis[a] : J->axis[a];
    }
}

/* Rest frames, the head's up axis, the COM at rest. */
static void measures(kg_retarget_robot *rr, kg_data *d, double sole_z) {
    const kg_model *r = rr->model;
    const int *L = rr->map.link;
    const double *P = d->link_pos;
    for (int k = 0; k < KG_NPART; k++)
        if (L[k] >= 0) kg_mat3_copy(rr->rest_rot[k], d->link_rot + 9 * L[k]), kg_vec3_copy(rr->rest_pos[k], P + 3 * L[k]);
    double z[3] = {0, 0, 1};
    if (L[KG_PART_HEAD] >= 0) kg_mat3_tvec(rr->head_up, rr->rest_rot[KG_PART_HEAD], z);
    double com[3], *scratch = malloc(((size_t)r->nlink + 1) * 4 * sizeof *scratch);
    if (scratch) {
        kg_jacobian_twists(r, d);
        kg_com_jacobian(r, d, com, NULL, scratch);
        free(scratch);
    } else {
        kg_vec3_copy(com, P + 3 * L[KG_PART_PELVIS]);
    }
    rr->com_h = com[2] - sole_z;
    rr->sole_z = sole_z;
    for (int a = 0; a < 3; a++) rr->com_off[a] = com[a] - P[3 * L[KG_PART_PELVIS] + a];
}

/* The foot the retargeting plants: the body below the ankle down to its toe
 * joint (a moving joint below the ankle away from the ankle's point: more
 * than TOE_AWAY of the hip-to-ankle length). The body map's foot part is the
 * foot's far end, a toe link when the foot has a toe joint; planted by its
 * toe link, such a foot's heel (the link above the toe joint, carrying most of
 * the sole) turned freely about the toe joint, through the ground (17-41 mm on
 * a copy of the sample humanoid with toe joints). The toe joint is then on no
 * part's path, so it is held at its neutral pose and the foot is one rigid
 * sole. Joints at the ankle's point are the ankle's: taken for a toe joint, an
 * ankle of three hinges through one point (yaw first) was planted by its
 * middle link and its last hinge held still (pose p95 7 -> 85 degrees). */
#define TOE_AWAY 0.05
static void plant_feet(kg_retarget_robot *rr, const kg_data *d) {
    const kg_model *r = rr->model;
    for (int side = 0; side < 2; side++) {
        int foot = side ? KG_PART_FOOT_R : KG_PART_FOOT_L, ankle = side ? KG_PART_ANKLE_R : KG_PART_ANKLE_L;
        int l = rr->map.link[foot], a = rr->map.link[ankle], hip = rr->map.link[side ? KG_PART_HIP_R : KG_PART_HIP_L];
        if (l < 0 || a < 0 || hip < 0) continue;
        const double *pa = d->link_pos + 3 * a, away = TOE_AWAY * dist3(d->link_pos + 3 * hip, pa);
        int body = -1;
        for (int k = l; k >= 0 && k != a; k = r->link[k].parent) /* the highest toe joint's parent */
            if (r->link[k].joint >= 0 && r->joint[r->link[k].joint].type != KG_JOINT_FIXED &&
                dist3(d->link_pos + 3 * k, pa) > away)
                body = r->link[k].parent;
        if (body < 0 || body == a) continue;
        rr->map.link[foot] = body;
        for (int c = 0; c < 3; c++) rr->map.point[foot][c] = 0;
    }
}

/* The unit coordinate axis nearest v (none among those where skip is set). */
static void snap_axis(const double v[3], const int skip[3], double out[3]) {
    int best = -1;
    for (int a = 0; a < 3; a++)
        if (!skip[a] && (best < 0 || fabs(v[a]) > fabs(v[best]))) best = a;
    out[0] = out[1] = out[2] = 0;
    out[best] = v[best] < 0 ? -1 : 1;
}

/* The base's turn at which the robot stands as the retargeting takes it,
 * facing +x with z up (T's rows: its forward, left and up at rest): up from
 * the ankles' middle to the shoulders', left from the right hip to the left
 * (the body map's sides), each snapped to the nearest coordinate axis. A model
 * built facing +y or -x, or with y up, is turned (facing +y, the sample
 * humanoid's pose p95 on a walk went 9 -> 50 degrees); one built as REP 103
 * has it keeps the identity, exactly. */
static void stand_turn(const kg_retarget_robot *rr, const kg_data *d, double T[9]) {
    const int *L = rr->map.link, parts[6] = {KG_PART_SHOULDER_L, KG_PART_SHOULDER_R, KG_PART_ANKLE_L,
                                             KG_PART_ANKLE_R, KG_PART_HIP_L, KG_PART_HIP_R};
    kg_mat3_identity(T);
    for (int k = 0; k < 6; k++)
        if (L[parts[k]] < 0) return;
    const double *P = d->link_pos;
    double up[3], left[3], u[3], l[3], f[3];
    for (int a = 0; a < 3; a++) {
        up[a] = 0.5 * (P[3 * L[parts[0]] + a] + P[3 * L[parts[1]] + a] - P[3 * L[parts[2]] + a] - P[3 * L[parts[3]] + a]);
        left[a] = P[3 * L[parts[4]] + a] - P[3 * L[parts[5]] + a];
    }
    if (!(kg_vec3_norm(up) > 0) || !(kg_vec3_norm(left) > 0)) return;
    int none[3] = {0, 0, 0}, used[3];
    snap_axis(up, none, u);
    for (int a = 0; a < 3; a++) used[a] = u[a] != 0;
    snap_axis(left, used, l);
    kg_vec3_cross(f, l, u);
    for (int a = 0; a < 3; a++) T[a] = f[a], T[3 + a] = l[a], T[6 + a] = u[a];
}

/* A leg that cannot roll its foot: no joint between its knee and its foot
 * whose axis (at rest, standing) lies within 45 degrees of the foot's forward
 * axis. Planted flat, such a foot holds its leg upright sideways, so the COM
 * moves over one foot only by rolling the trunk: the balance then holds the
 * COM forward and back only (constraints.c); the warning says so once. */
static void ankle_roll_check(kg_retarget_robot *rr, const kg_data *d, kg_diags *dg) {
    const kg_model *r = rr->model;
    int rolls[2] = {0, 0};
    for (int side = 0; side < 2; side++) {
        int knee = rr->map.link[side ? KG_PART_KNEE_R : KG_PART_KNEE_L];
        for (int l = rr->map.link[side ? KG_PART_FOOT_R : KG_PART_FOOT_L]; l >= 0 && l != knee; l = r->link[l].parent) {
            int j = r->link[l].joint;
            if (j < 0 || (r->joint[j].type != KG_JOINT_REVOLUTE && r->joint[j].type != KG_JOINT_CONTINUOUS)) {
                rolls[side] |= j >= 0 && r->joint[j].type != KG_JOINT_FIXED && r->joint[j].type != KG_JOINT_PRISMATIC;
                continue;
            }
            double a[3];
            kg_mat3_vec(a, d->link_rot + 9 * l, r->joint[j].axis); /* world axes, standing: x is forward */
            rolls[side] |= fabs(a[0]) >= 0.7071 * kg_vec3_norm(a);
        }
    }
    rr->rolls_feet = rolls[0] && rolls[1];
    if (!rr->rolls_feet)
        kg_diag_add(dg, KG_WARNING, "retarget.no_ankle_roll", r->source, 0, NULL,
                    "the %s of '%s' cannot roll its foot: a planted foot holds its leg upright sideways, and the "
                    "COM moves over one foot only by rolling the trunk: the balance holds it forward and back only",
                    !rolls[0] && !rolls[1] ? "legs" : rolls[0] ? "right leg" : "left leg", r->name ? r->name : "");
}

/* The threads that make the collision shapes (kg_retarget_options.prepare_threads):
 * 0, the cores this process may run on (its affinity: taskset, a batch system's
 * allotment), else those online. */
static int prepare_threads(const kg_retarget_options *o) {
    if (o->prepare_threads > 0) return o->prepare_threads;
    cpu_set_t set;
    long cores = sched_getaffinity(0, sizeof set, &set) == 0 ? CPU_COUNT(&set) : sysconf(_SC_NPROCESSORS_ONLN);
    return cores < 1 ? 1 : cores > KG_RETARGET_PREPARE_THREADS ? KG_RETARGET_PREPARE_THREADS : (int)cores;
}

int rt_robot_setup(const kg_model *r, const kg_retarget_options *o, kg_retarget_robot *rr, kg_diags *dg) {
    const kg_body_map *map = o->robot_map;
    memset(rr, 0, sizeof *rr);
    rr->model = r;
    for (int k = 0; k < KG_NPART; k++) rr->map.link[k] = -1;
    if (map) rr->map = *map;
    if (kg_body_map_find(r, &rr->map, dg) != 0) return -1;
    for (int side = 0; side < 2 && map; side++) { /* a foot stands on its sole: a point for it is not used */
        const int k = side ? KG_PART_FOOT_R : KG_PART_FOOT_L;
        if (map->link[k] >= 0 && (map->point[k][0] != 0 || map->point[k][1] != 0 || map->point[k][2] != 0))
            kg_diag_add(dg, KG_WARNING, "retarget.point_unused", r->source, 0, NULL,
                        "the map's point for the robot's %s is not used: a foot stands on its sole, found from the "
                        "shapes below its ankle", kg_part_name(k));
    }
    size_t n = (size_t)r->dof + 1;
    rr->lower = malloc(n * sizeof *rr->lower), rr->upper = malloc(n * sizeof *rr->upper);
    rr->vmax = malloc(n * sizeof *rr->vmax), rr->qidx = malloc(n * sizeof *rr->qidx);
    rr->neutral = malloc(((size_t)r->nq + 1) * sizeof *rr->neutral);
    kg_data *d = kg_data_new(r);
    if (!rr->lower || !rr->upper || !rr->vmax || !rr->qidx || !rr->neutral || !d || paths(rr) != 0) goto oom;
    column_limits(rr);
    kg_fk(r, d);
    plant_feet(rr, d);
    stand_turn(rr, d, rr->stand); /* then everything at rest is measured standing so */
    kg_mat3_copy(d->base_rot, rr->stand);
    kg_fk(r, d);
    limb_lengths(rr, d);
    ankle_roll_check(rr, d, dg);
    kg_mesh_cache *mc = kg_mesh_cache_new();
    const int threads = prepare_threads(o);
    rr->have_cm = kg_collision_model_build_threads(r, mc, &rr->cm, threads, dg) == 0;
    if (rr->have_cm && o->nignore_pairs > 0) kg_collision_model_declare(&rr->cm, o->ignore_pairs, o->nignore_pairs);
    if (level_feet(rr, d, &o->tune, dg) != 0) {
        kg_mesh_cache_free(mc);
        goto oom;
    }
    double sole_z = soles(rr, d, mc, &o->tune, dg);
    int drawn = drawn_feet(rr, mc, d, sole_z);
    kg_mesh_cache_free(mc);
    if (drawn != 0) goto oom;
    if (driven_columns(rr) != 0) goto oom;
    const double width = o->tune.collision_hull_width;
    if (rr->have_cm && (kg_collision_model_coarse_threads(&rr->cm, width, &rr->coarse, threads) != 0 ||
                        (rr->cm.npair > 0 && watched_pairs(rr, d) != 0)))
        goto oom;
    if (link_bounds(rr) != 0 || foot_shapes(rr) != 0) goto oom;
    measures(rr, d, sole_z);
    elbows(rr, d);
    ground_shapes(rr, d, sole_z, o->tune.sole_watch);
    kg_data_free(d);
    return 0;
oom:
    kg_data_free(d);
    kg_diag_add(dg, KG_ERROR, "retarget.memory", r->source, 0, NULL, "out of memory");
    return -1;
}

void rt_robot_clear(kg_retarget_robot *rr) {
    free(rr->lower), free(rr->upper), free(rr->vmax), free(rr->qidx), free(rr->neutral);
    free(rr->path), free(rr->path_first), free(rr->path_count), free(rr->watch), free(rr->watch_rest), free(rr->driven), free(rr->xcol), free(rr->link_radius), free(rr->capsule);
    free(rr->foot_shape[0]), free(rr->foot_shape[1]), free(rr->is_foot_shape), free(rr->ground_shape);
    for (int side = 0; side < 2; side++) {
        for (int k = 0; k < rr->nfoot_drawn[side]; k++) kg_convex_free(&rr->foot_drawn[side][k]);
        free(rr->foot_drawn[side]), free(rr->foot_drawn_rest[side]);
    }
    if (rr->have_cm) kg_collision_model_free(&rr->cm), kg_collision_model_free(&rr->coarse);
    memset(rr, 0, sizeof *rr);
}

kg_retarget_robot *kg_retarget_robot_new(const kg_model *robot, const kg_retarget_options *o, kg_diags *d) {
    double t0 = rt_now();
    kg_retarget_robot *rr = calloc(1, sizeof *rr);
    if (!rr) {
        kg_diag_add(d, KG_ERROR, "retarget.memory", robot->source, 0, NULL, "out of memory");
        return NULL;
    }
    kg_retarget_options dflt;
    if (!o) kg_retarget_defaults(&dflt), o = &dflt;
    if (rt_robot_setup(robot, o, rr, d) != 0) {
        kg_retarget_robot_free(rr);
        return NULL;
    }
    rr->seconds = rt_now() - t0;
    return rr;
}

void kg_retarget_robot_free(kg_retarget_robot *rr) {
    if (!rr) return;
    rt_robot_clear(rr);
    free(rr);
}

double kg_retarget_robot_seconds(const kg_retarget_robot *rr) { return rr->seconds; }

const kg_body_map *kg_retarget_robot_map(const kg_retarget_robot *rr) { return &rr->map; }

int kg_retarget_robot_sole(const kg_retarget_robot *rr, int side, double corners[4][3]) {
    memcpy(corners, rr->sole[side], 4 * sizeof *corners);
    return rr->map.link[side ? KG_PART_FOOT_R : KG_PART_FOOT_L];
}
