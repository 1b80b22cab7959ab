/* The preview-control dynamics filter (irteus :preview-control-dynamics-filter,
 * ../shared/docs/irteus-reference.md 4.3; the cart-table controller of
 * analysis/preview.h): a motion corrected so that its multibody ZMP follows a
 * reference. Per pass:
 *   1. the multibody ZMP of every frame (kg_motion_torques_compute: inverse
 *      dynamics of the motion's finite-difference rates);
 *   2. the reference: the ZMP itself where it lies at least `margin` inside the
 *      support polygon, else the point where the segment from it to the contact
 *      points' centroid gets that far in (nearer when the polygon is too thin);
 *      frames without contact or ZMP keep theirs (error 0);
 *   3. the error (reference - ZMP), times the frame's vertical force over the
 *      weight (Fz / M g), fed, per horizontal axis, to the cart-table preview
 *      controller (the sampled ZMP's form, kg_preview_init_sampled: the
 *      multibody ZMP is also taken from second differences of the samples),
 *      started at rest at 0: its cart position dc(t) has a cart-table ZMP that
 *      follows the error. The weight is the model's linearisation: a COM
 *      correction changes the ground's moment about the reference by M g dp
 *      (the cart-table ZMP dp = dc - zc/g dc''), and the multibody ZMP by that
 *      moment over the frame's own Fz; so the moment to make up is Fz (ref -
 *      ZMP), which the cart-table ZMP asks as (Fz / M g)(ref - ZMP). Where the
 *      motion unloads the feet (the COM falling, Fz a fraction of M g: most
 *      frames left outside on the corpus walks are such, around landings) the
 *      ZMP error is large but little moment is missing, and the unweighted error
 *      had the cart chase it and disturb the frames around;
 *   4. the COM moved horizontally by dc through the upper body's joints (those
 *      that carry no foot), the legs and the base left as they were (irteus
 *      moves the base, :move-base-pos; with the feet planted that needs
 *      inverse kinematics of the legs, whose last 1e-5 m of error is
 *      centimetres of ZMP at 30 frames/s, and stance legs at their limits).
 * Passes repeat on the corrected motion until no contact frame's ZMP is
 * outside the support polygon or `passes` are done; the motion returned is the
 * best of them (fewest frames outside, then the largest least margin), as a
 * pass corrects against a linear model and can make a motion worse. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/dynamics/contacts.h"
#include "kinegraph/torques.h"
#include "analysis/ik.h"
#include "analysis/jacobian.h"
#include "analysis/preview.h"
#include "core/fk.h"
#include "core/spatial.h"

void kg_dyn_filter_defaults(kg_dyn_filter_options *o) {
    memset(o, 0, sizeof *o);
    o->delay = 0.8;
    o->q = 1, o->r = 1e-9;
    o->margin = 0.01;
    o->passes = 10;
    o->iterations = 3;
    o->damping = 1e-6;
    o->error_max = 0.1;
    kg_torque_defaults(&o->torque);
}

typedef struct filt {
    const kg_model *m;
    kg_motion *mo;
    const kg_feet *feet;
    const kg_dyn_filter_options *o;
    kg_data *d;
    kg_torque_frame *fr;
    double *err;     /* [2 n] reference - ZMP per frame and axis */
    double *dc;      /* [2 n] the controller's cart positions: the COM's correction */
    double *J, *scratch; /* [3 dof] the COM Jacobian, [4 nlink] its scratch */
    unsigned char *upper; /* [dof] the columns the correction moves */
    double weight;   /* N: the model's, M |g| */
} filt;

/* The reference ZMP of frame f's ZMP z, at d's pose: see the file's comment. */
static void reference(const filt *F, int f, const double z[2], double ref[2]) {
    const kg_torque_frame *fr = &F->fr[f];
    ref[0] = z[0], ref[1] = z[1];
    if (!(fr->contact[0] || fr->contact[1]) || !isfinite(z[0]) || fr->zmp_margin >= F->o->margin) return;
    double p[DYN_MAX_POINTS][3], c[2] = {0, 0};
    int np = 0;
    for (int s = 0; s < KG_NFOOT; s++) {
        if (!fr->contact[s]) continue;
        double k[KG_SOLE_CORNERS][3], zmin = INFINITY;
        kg_feet_corners(F->feet, F->d, s, k);
        for (int i = 0; i < KG_SOLE_CORNERS; i++) zmin = fmin(zmin, k[i][2]);
        for (int i = 0; i < KG_SOLE_CORNERS; i++)
            if (k[i][2] <= zmin + F->o->torque.corner_height) kg_vec3_copy(p[np++], k[i]);
    }
    for (int i = 0; i < np; i++) c[0] += p[i][0] / np, c[1] += p[i][1] / np;
    const double want = fmin(F->o->margin, dyn_support_margin((const double(*)[3])p, np, c));
    double lo = 0, hi = 1; /* the margin along z -> c: bisect for where it first reaches want */
    for (int it = 0; it < 40; it++) {
        const double t = 0.5 * (lo + hi), x[2] = {z[0] + t * (c[0] - z[0]), z[1] + t * (c[1] - z[1])};
        if (dyn_support_margin((const double(*)[3])p, np, x) >= want) hi = t;
        else lo = t;
    }
    ref[0] = z[0] + hi * (c[0] - z[0]), ref[1] = z[1] + hi * (c[1] - z[1]);
}

/* Steps 2 and 3: F->err and F->dc. Returns -1 when the controller cannot be
 * had, -2 when memory runs out. */
static int correction(filt *F) {
    const int n = F->mo->nframes;
    double zc = 0;
    int nz = 0;
    for (int f = 0; f < n; f++) {
        kg_motion_pose(F->mo, f, F->d);
        kg_fk(F->m, F->d);
        double ref[2];
        reference(F, f, F->fr[f].zmp, ref);
        for (int a = 0; a < 2; a++) {
            const double fz = F->fr[f].required[2]; /* the ZMP is defined only for fz > 0 */
            const double e = isfinite(F->fr[f].zmp[0]) ? (fz / F->weight) * (ref[a] - F->fr[f].zmp[a]) : 0;
            F->err[2 * f + a] = fmax(-F->o->error_max, fmin(F->o->error_max, e));
        }
        if (isfinite(F->fr[f].com[2])) zc += F->fr[f].com[2] - F->o->torque.ground_z, nz++;
    }
    const double *g = F->o->torque.dyn.gravity, gz = sqrt(g[0] * g[0] + g[1] * g[1] + g[2] * g[2]);
    const double dt = F->mo->frame_time;
    const int N = (int)lround(F->o->delay / dt);
    kg_preview pv;
    if (nz == 0 || !(zc > 0) || !(gz > 0) || N < 1) return -1;
    int rc = kg_preview_init_sampled(&pv, dt, zc / nz, gz, F->o->q, F->o->r, N);
    if (rc != 0) return rc;
    double *refs = calloc((size_t)N + 1, sizeof *refs);
    if (!refs) {
        kg_preview_free(&pv);
        return -2;
    }
    for (int a = 0; a < 2; a++) {
        kg_preview_axis ax;
        kg_preview_axis_start(&pv, &ax, 0);
        for (int f = 0; f < n; f++) {
            F->dc[2 * f + a] = ax.x[0]; /* the state is this frame's; its step gives the next */
            for (int j = 0; j <= N; j++) refs[j] = F->err[2 * (f + j < n ? f + j : n - 1) + a];
            kg_preview_axis_step(&pv, &ax, refs);
        }
    }
    free(refs);
    kg_preview_free(&pv);
    return 0;
}

/* Step 4 for frame f: the COM moved horizontally by dc through the upper
 * body's joints (F->upper: one-coordinate joints that carry no foot, mimic
 * followers excepted), the least change that does it (damped least squares on
 * the COM Jacobian's horizontal rows, a Newton step per iteration), within the
 * joints' limits. The legs and the base are not touched, so the feet stay
 * where they were to the last bit: a foot put back by inverse kinematics
 * within even 1e-5 m moves the ZMP of second differences by centimetres. */
static void apply(filt *F, int f, const double dc[2], kg_dyn_filter_result *res) {
    const kg_model *m = F->m;
    const int nd = m->dof;
    kg_motion_pose(F->mo, f, F->d);
    double com[3];
    kg_fk(m, F->d);
    kg_com_jacobian(m, F->d, com, NULL, F->scratch);
    const double target[2] = {com[0] + dc[0], com[1] + dc[1]};
    for (int it = 0; it < F->o->iterations; it++) {
        if (it > 0) kg_fk(m, F->d);
        kg_jacobian_twists(m, F->d);
        kg_com_jacobian(m, F->d, com, F->J, F->scratch);
        const double e[2] = {target[0] - com[0], target[1] - com[1]};
        /* dq = Ju^T (Ju Ju^T + lambda E)^-1 e over the upper body's columns */
        double A[3] = {F->o->damping, 0, F->o->damping};
        for (int k = 0; k < nd; k++)
            if (F->upper[k]) {
                const double a = F->J[k], b = F->J[nd + k];
                A[0] += a * a, A[1] += a * b, A[2] += b * b;
            }
        const double det = A[0] * A[2] - A[1] * A[1];
        if (!(det > 0)) break;
        const double y0 = (A[2] * e[0] - A[1] * e[1]) / det, y1 = (A[0] * e[1] - A[1] * e[0]) / det;
        for (int j = 0; j < m->njoint; j++) {
            const kg_joint *J = &m->joint[j];
            if (J->dofadr < 0 || !F->upper[J->dofadr]) continue;
            double *q = F->d->q + J->qadr;
            *q += F->J[J->dofadr] * y0 + F->J[nd + J->dofadr] * y1;
            if (kg_joint_is_limited(J)) *q = fmin(J->upper, fmax(J->lower, *q));
        }
    }
    kg_fk(m, F->d);
    kg_com_jacobian(m, F->d, com, NULL, F->scratch);
    res->com_error_max = fmax(res->com_error_max, hypot(target[0] - com[0], target[1] - com[1]));
    memcpy(F->mo->q + (size_t)f * m->nq, F->d->q, (size_t)m->nq * sizeof *F->d->q);
}

/* F->upper: the Jacobian columns of one-coordinate joints that carry no foot. */
static void find_upper(filt *F) {
    const kg_model *m = F->m;
    for (int j = 0; j < m->njoint; j++) {
        const kg_joint *J = &m->joint[j];
        if (J->dofadr < 0 || J->nq != 1 || J->nv != 1) continue;
        int carries_foot = 0;
        for (int s = 0; s < KG_NFOOT; s++)
            for (int l = F->feet->link[s]; l >= 0 && !carries_foot; l = m->link[l].parent)
                carries_foot = l == J->child;
        F->upper[J->dofadr] = !carries_foot;
    }
}

static int measure(filt *F, kg_motion_torques *t, kg_diags *dg) {
    return kg_motion_torques_compute(F->m, F->mo, NULL, F->feet, &F->o->torque, t, F->fr, dg);
}

int kg_dyn_filter(const kg_model *m, kg_motion *mo, const kg_feet *feet, const kg_dyn_filter_options *o,
                  kg_dyn_filter_result *res, kg_diags *dg) {
    kg_dyn_filter_options dflt;
    if (!o) kg_dyn_filter_defaults(&dflt), o = &dflt;
    memset(res, 0, sizeof *res);
    if (!mo->base || !feet || (feet->link[0] < 0 && feet->link[1] < 0)) {
        kg_diag_add(dg, KG_ERROR, "dynamics.filter", m->source, 0, NULL,
                    "the dynamics filter needs a motion with its base pose and the robot's feet");
        return -1;
    }
    const size_t n = (size_t)mo->nframes, nd = (size_t)m->dof + 1, nq = (size_t)m->nq;
    filt F = {.m = m, .mo = mo, .feet = feet, .o = o, .d = kg_data_new(m)};
    F.fr = calloc(n + 1, sizeof *F.fr);
    double *blk = calloc(4 * n + 3 * nd + 4 * (size_t)m->nlink, sizeof *blk);
    F.upper = calloc(nd, 1);
    /* the best motion so far */
    double *best_q = calloc(n * nq + 1, sizeof *best_q), *best_base = calloc(7 * n + 1, sizeof *best_base);
    if (!F.d || !F.fr || !blk || !F.upper || !best_q || !best_base) {
        kg_diag_add(dg, KG_ERROR, "dynamics.memory", m->source, 0, NULL, "out of memory filtering the motion");
        free(best_q), free(best_base), free(blk), free(F.fr), free(F.upper);
        kg_data_free(F.d);
        return -1;
    }
    F.err = blk, F.dc = blk + 2 * n, F.J = blk + 4 * n, F.scratch = F.J + 3 * nd;
    find_upper(&F);
    double com[3];
    kg_motion_pose(mo, 0, F.d);
    kg_fk(m, F.d);
    const double *g = o->torque.dyn.gravity;
    F.weight = kg_com_jacobian(m, F.d, com, NULL, F.scratch) * sqrt(g[0] * g[0] + g[1] * g[1] + g[2] * g[2]);
    kg_motion_torques t;
    int rc = measure(&F, &t, dg);
    int best_out = -1, oom = 0; /* and its figures */
    if (rc == 0) {
        res->outside_before = t.zmp_outside_percent, res->margin_min_before = t.zmp_margin_min;
        for (int pass = 0;; pass++) {
            if (best_out < 0 || t.zmp_outside_frames < best_out ||
                (t.zmp_outside_frames == best_out && t.zmp_margin_min > res->margin_min_after)) {
                best_out = t.zmp_outside_frames, res->passes = pass;
                res->outside_after = t.zmp_outside_percent, res->margin_min_after = t.zmp_margin_min;
                memcpy(best_q, mo->q, n * nq * sizeof *best_q);
                memcpy(best_base, mo->base, 7 * n * sizeof *best_base);
            }
            if (pass >= o->passes || t.zmp_outside_frames == 0 || !(F.weight > 0)) break;
            const int c = correction(&F);
            oom = c == -2;
            if (c != 0) break;
            for (size_t f = 0; f < n; f++) {
                res->shift_max = fmax(res->shift_max, hypot(F.dc[2 * f], F.dc[2 * f + 1]));
                apply(&F, (int)f, F.dc + 2 * f, res);
            }
            kg_motion_torques_free(&t);
            if ((rc = measure(&F, &t, dg)) != 0) break;
        }
    }
    if (rc == 0) {
        memcpy(mo->q, best_q, n * nq * sizeof *best_q);
        memcpy(mo->base, best_base, 7 * n * sizeof *best_base);
        kg_motion_torques_free(&t);
    }
    if (oom) { /* the motion is the best one until then, but the filter did not finish */
        kg_diag_add(dg, KG_ERROR, "dynamics.memory", m->source, 0, NULL, "out of memory filtering the motion");
        rc = -1;
    }
    free(best_q), free(best_base);
    free(blk);
    free(F.fr);
    free(F.upper);
    kg_data_free(F.d);
    return rc;
}
