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
 *      started at rest at 0, the error previewed past the clip's last frame
 *      zero (no correction is asked where there is no motion; holding the last
 *      frame's error, as irteus holds a planned ZMP's last value, had the cart
 *      settle on an error measured with one-sided rates and the passes add it
 *      up): its cart position dc(t) has a cart-table ZMP that follows the
 *      error. The weight is the model's linearisation: a COM correction
 *      changes the ground's moment about the reference by M g dp (the
 *      cart-table ZMP dp = dc - zc/g dc''), and the multibody ZMP by that
 *      moment over the frame's own Fz; so the moment to make up is Fz (ref -
 *      ZMP), which the cart-table ZMP asks as (Fz / M g)(ref - ZMP). Where the
 *      motion unloads the feet (the COM falling, Fz a fraction of M g) the ZMP
 *      error is large but little moment is missing, and the unweighted error
 *      had the cart chase it and disturb the frames around;
 *   4. the COM's height smoothed (height_cutoff): Fz is M (g + z''), and the
 *      retargeted root kinks up and down within a frame (tens of m/s^2 at 60
 *      and 120 frames/s), so that frames with their feet on the ground had Fz
 *      <= 0 (no ZMP at all) or a fraction of M g (a ZMP thrown far by any
 *      horizontal jerk): a third of the frames left outside on the corpus
 *      walks. The smoothing only lowers frames (a leg at its full length, as
 *      the retargeting often leaves the stance leg, cannot raise the hip), by
 *      at most height_lowering_max below the motion given, and not a frame
 *      whose base move the legs could not follow in an earlier pass (the
 *      smoothing then bends around it instead of leaving a kink there);
 *   5. the COM moved horizontally by dc through the upper body's joints (those
 *      that carry no foot: the least change, within limits, damped so that
 *      they take only the part of dc they make at more than about
 *      sqrt(damping) = 10 mm of COM per rad: an upper body with no waist
 *      pitch otherwise swung its arms by radians for a few
 *      centimetres, whose angular momentum the cart-table model
 *      leaves out, and the passes diverged), then what they
 *      could not make, and step 4's height, by moving the base, the legs solved
 *      again so both feet stay where they were (within hold_position and
 *      hold_rotation). The upper body's steps also pull its joints back
 *      towards the motion given, in what leaves the COM where the step puts it
 *      (posture_pull): over many passes the steps otherwise add up differently
 *      from frame to frame. irteus moves the base alone (:move-base-pos); here the
 *      base alone did worse (the corpus walks, bench/dynamics_filter_walks.sh,
 *      20 passes: 13 of 28 runs below 5 %, the sum of the 28 figures 412,
 *      against 16 and 206 with the upper body first; the upper body alone 16
 *      and 276). A base
 *      move the legs cannot follow (a leg at full length, a hip or ankle at a
 *      limit) is tried again with the base free to turn a little about its
 *      position (base_turn_weight, within base_turn_max of the motion given's
 *      orientation: a stance ankle at its roll limit then gets the hip sideways
 *      by a tilt of the pelvis), and failing that halved, up to base_halvings
 *      times, then left out (base_cuts); a foot is never let go of for it.
 *      Where the legs followed only part of a frame's base move, the frames
 *      around it are moved again, from where the pass found them, by no more
 *      of their own move than that part plus the time to that frame over
 *      base_ramp: a move made whole at one frame and halved at the next is a
 *      step in the base's path, and the ZMP from finite differences spikes
 *      there.
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

/* The active-set rounds of step 4's bounded smoothing: it settles within a few
 * tens on the corpus walks; where it cycles, the last round's heights clipped
 * to the bounds are used. */
#define HEIGHT_ROUNDS 50

void kg_dyn_filter_defaults(kg_dyn_filter_options *o) {
    memset(o, 0, sizeof *o);
    o->delay = 0.8;
    o->q = 1, o->r = 1e-9;
    o->margin = 0.02;
    o->passes = 50;
    o->iterations = 3;
    o->damping = 1e-4;
    o->error_max = 0.1;
    o->height_cutoff = 2;
    o->height_lowering_max = 0.03;
    o->move_base = 1;
    o->hold_position = 1e-7, o->hold_rotation = 1e-6;
    o->leg_iterations = 50;
    o->leg_nudge = 0.3;
    o->base_halvings = 3;
    o->base_ramp = 0.0125;
    o->posture_pull = 0.05;
    o->base_turn_weight = 0.1;
    o->base_turn_max = 0.05;
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
    double *dz;      /* [n] step 4: the COM's height change, <= 0 */
    double *z0;      /* [n] the COM's heights in the motion given */
    double *x, *y, *lo, *rhs; /* [n] step 4's heights now, smoothed, lowest allowed, right-hand side */
    double *band;    /* [3 n] its banded factor */
    signed char *pin; /* [n] its active bounds: 1 the upper (the height now), -1 the lower */
    unsigned char *cut; /* [n] frames whose base move the legs could not follow (in any pass) */
    double *reach;   /* [n] the part of its base move a frame's legs followed (1: all) */
    double *ramp;    /* [n] the part of its base move a frame is given (1, or base_ramp's) */
    double *pass_q, *pass_base; /* [n nq], [7 n] the motion as the pass found it */
    int halved;      /* the frame apply() is at has had a base move halved or left out */
    int frame;       /* the frame apply() is at */
    double *J, *scratch; /* [3 dof] the COM Jacobian, [4 nlink] its scratch */
    double *q_save;  /* [nq] the joints before a base move */
    double *turn_w;  /* [dof + 6] turn_base's column weights */
    const double *q0; /* [n nq] the joints of the motion given */
    const double *base0; /* [7 n] its base poses */
    unsigned char *upper; /* [dof] the columns the correction moves */
    kg_ik_work *ik;  /* the legs' solve */
    kg_ik_options iko;
    double weight;   /* N: the model's, M |g| */
    int cuts;        /* base moves halved or left out */
    int turns;       /* base moves the legs followed only with the base turned */
    int turned;      /* the frame apply() is at has had its base turned */
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
            for (int j = 0; j <= N; j++) refs[j] = f + j < n ? F->err[2 * (f + j) + a] : 0;
            kg_preview_axis_step(&pv, &ax, refs);
        }
    }
    free(refs);
    kg_preview_free(&pv);
    return 0;
}

/* Entry (i, i - k) of A = I + lam D^T D, D the second differences of n
 * samples (row r: y[r] - 2 y[r+1] + y[r+2]); k = 0, 1, 2. */
static double band_entry(int n, double lam, int i, int k) {
    static const double c[3] = {1, -2, 1};
    double a = k == 0 ? 1 : 0;
    for (int r = i - 2; r <= i - k; r++)
        if (r >= 0 && r + 2 < n) a += lam * c[i - r] * c[i - k - r];
    return a;
}

/* y minimising |y - x|^2 + lam |D y|^2 with y[i] = b[i] where pin[i] (b: x
 * where pin is 1, lo where it is -1): the pinned unknowns are moved to the
 * right-hand side, which keeps the system symmetric and pentadiagonal; a
 * banded Cholesky factorisation solves it. */
static void smooth(filt *F, int n, double lam) {
    double *d0 = F->band, *d1 = d0 + n, *d2 = d1 + n, *y = F->y;
    for (int i = 0; i < n; i++) {
        const int pi = F->pin[i] != 0;
        double a[3];
        for (int k = 0; k < 3; k++) {
            const int free_pair = i - k >= 0 && !pi && !F->pin[i - k];
            a[k] = k == 0 ? (pi ? 1 : band_entry(n, lam, i, 0)) : free_pair ? band_entry(n, lam, i, k) : 0;
        }
        F->rhs[i] = pi ? (F->pin[i] > 0 ? F->x[i] : F->lo[i]) : F->x[i];
        for (int k = -2; k <= 2 && !pi; k++) { /* the pinned neighbours' columns */
            const int j = i + k;
            if (k == 0 || j < 0 || j >= n || !F->pin[j]) continue;
            const double b = F->pin[j] > 0 ? F->x[j] : F->lo[j];
            F->rhs[i] -= (k < 0 ? band_entry(n, lam, i, -k) : band_entry(n, lam, j, k)) * b;
        }
        const double l2 = i >= 2 ? a[2] / d0[i - 2] : 0;
        const double l1 = i >= 1 ? (a[1] - (i >= 2 ? l2 * d1[i - 1] : 0)) / d0[i - 1] : 0;
        d2[i] = l2, d1[i] = l1, d0[i] = sqrt(a[0] - l1 * l1 - l2 * l2);
    }
    for (int i = 0; i < n; i++)
        y[i] = (F->rhs[i] - (i >= 1 ? d1[i] * y[i - 1] : 0) - (i >= 2 ? d2[i] * y[i - 2] : 0)) / d0[i];
    for (int i = n - 1; i >= 0; i--)
        y[i] = (y[i] - (i + 1 < n ? d1[i + 1] * y[i + 1] : 0) - (i + 2 < n ? d2[i + 2] * y[i + 2] : 0)) / d0[i];
}

/* The unconstrained objective's gradient at frame i, ((A y) - x)[i]: where a
 * bound holds y, minus (upper) or plus (lower) its multiplier. */
static double gradient(const filt *F, int n, double lam, int i) {
    double g = -F->x[i];
    for (int j = i - 2; j <= i + 2; j++)
        if (j >= 0 && j < n) g += (j <= i ? band_entry(n, lam, i, i - j) : band_entry(n, lam, j, j - i)) * F->y[j];
    return g;
}

/* Step 4: F->dz. The smoother's cutoff is where its gain is one half, lam (2
 * pi f_c dt)^4 = 1; the bounds lo <= y <= x are kept by primal-dual active
 * sets (a bound held while its multiplier pushes, taken where it is crossed). */
static void height_correction(filt *F) {
    const int n = F->mo->nframes;
    memset(F->dz, 0, (size_t)n * sizeof *F->dz);
    if (!(F->o->height_cutoff > 0) || n < 3) return;
    const double w = 2 * KG_PI * F->o->height_cutoff * F->mo->frame_time, lam = 1 / (w * w * w * w);
    for (int f = 0; f < n; f++) {
        F->x[f] = F->fr[f].com[2], F->pin[f] = 0;
        F->lo[f] = fmin(F->x[f], F->z0[f] - F->o->height_lowering_max);
        if (F->cut[f]) F->lo[f] = F->x[f]; /* the legs could not lower it before */
    }
    for (int round = 0; round < HEIGHT_ROUNDS; round++) {
        smooth(F, n, lam);
        int changed = 0;
        for (int f = 0; f < n; f++) {
            const double g = gradient(F, n, lam, f);
            int p = F->pin[f] > 0 ? (g < 0) : F->pin[f] < 0 ? -(g > 0) : 0;
            if (!p) p = F->y[f] > F->x[f] ? 1 : F->y[f] < F->lo[f] ? -1 : 0;
            changed |= p != F->pin[f];
            F->pin[f] = (signed char)p;
        }
        if (!changed) break;
    }
    for (int f = 0; f < n; f++) F->dz[f] = fmin(0, fmax(F->lo[f], F->y[f]) - F->x[f]);
}

/* The COM at d's pose, its link poses brought up to date. */
static void com_now(filt *F, double com[3]) {
    kg_fk(F->m, F->d);
    kg_com_jacobian(F->m, F->d, com, NULL, F->scratch);
}

/* The angle between the base's orientation at d and the motion given's at
 * the frame apply() is at. */
static double turn_from_given(const filt *F) {
    double q[4];
    kg_rot_to_quat(F->d->base_rot, q);
    const double *b = F->base0 + 7 * (size_t)F->frame + 3;
    return 2 * acos(fmin(1, fabs(q[0] * b[0] + q[1] * b[1] + q[2] * b[2] + q[3] * b[3])));
}

/* The legs solved again from the joints before the move (q_save) with the
 * base free to turn about its position (the translations' columns weigh 0,
 * the rotations' base_turn_weight against the legs' joints' 1): a stance
 * ankle at its roll limit or a leg at full length blocks a move of the base's
 * position alone, and a small tilt of the pelvis lets the legs follow. The
 * base's pose is restored when this fails too. */
static int turn_base(filt *F, const kg_ik_target *t, int nt) {
    kg_ik_result r;
    double R[9];
    kg_mat3_copy(R, F->d->base_rot);
    memcpy(F->d->q, F->q_save, (size_t)F->m->nq * sizeof *F->q_save);
    kg_ik_options o = F->iko;
    o.floating_base = 1, o.weight = F->turn_w;
    const double *b = F->d->base_pos, b0[3] = {b[0], b[1], b[2]};
    if (kg_ik_solve(F->m, F->d, t, nt, &o, F->ik, &r) && turn_from_given(F) <= F->o->base_turn_max)
        return F->turns++, F->turned = 1;
    kg_vec3_copy(F->d->base_pos, b0);
    kg_mat3_copy(F->d->base_rot, R);
    return 0;
}

/* The legs solved again (from d's pose) so the feet are at t; a failed solve
 * starts again from the legs of the frame before as this pass left them (the
 * branch of the legs' solution its neighbour took: from the nudge below
 * alone, a knee bent there by 0.5 rad and straight on the frames either side
 * jumped between them in a frame, G1's walk_circle at 120 frames/s: 7.1 %
 * of its frames outside, 5.8 % so), then once more with each leg joint moved
 * leg_nudge towards the middle of its range (at a knee at full length the
 * solve sees no first-order way to shorten the leg and straightens it against
 * its limit instead of bending it), and then with the base free to turn
 * (turn_base). */
static int hold_feet(filt *F, const kg_ik_target *t, int nt) {
    kg_ik_result r;
    if (kg_ik_solve(F->m, F->d, t, nt, &F->iko, F->ik, &r)) return 1;
    if (F->frame > 0) { /* from the legs of the frame before, as this pass left them */
        memcpy(F->d->q, F->q_save, (size_t)F->m->nq * sizeof *F->q_save);
        const double *prev = F->mo->q + (size_t)(F->frame - 1) * F->m->nq;
        for (int j = 0; j < F->m->njoint; j++) {
            const kg_joint *J = &F->m->joint[j];
            if (J->dofadr >= 0 && !F->upper[J->dofadr] && J->nq == 1) F->d->q[J->qadr] = prev[J->qadr];
        }
        if (kg_ik_solve(F->m, F->d, t, nt, &F->iko, F->ik, &r)) return 1;
    }
    memcpy(F->d->q, F->q_save, (size_t)F->m->nq * sizeof *F->q_save);
    for (int j = 0; j < F->m->njoint; j++) {
        const kg_joint *J = &F->m->joint[j];
        if (J->dofadr < 0 || F->upper[J->dofadr] || J->nq != 1 || !kg_joint_is_limited(J)) continue;
        double *q = F->d->q + J->qadr;
        *q += fmax(-F->o->leg_nudge, fmin(F->o->leg_nudge, 0.5 * (J->lower + J->upper) - *q));
    }
    if (kg_ik_solve(F->m, F->d, t, nt, &F->iko, F->ik, &r)) return 1;
    return F->o->base_turn_weight > 0 && turn_base(F, t, nt);
}

/* The base moved by e with the feet held, halved while the legs cannot
 * follow, up to base_halvings times; left where it was when they never can. */
static void shift_base(filt *F, const double e[3], const kg_ik_target *t, int nt) {
    double b[3];
    kg_vec3_copy(b, F->d->base_pos);
    memcpy(F->q_save, F->d->q, (size_t)F->m->nq * sizeof *F->q_save);
    double s = 1;
    for (int h = 0; h <= F->o->base_halvings; h++, s *= 0.5) {
        for (int a = 0; a < 3; a++) F->d->base_pos[a] = b[a] + s * e[a];
        if (hold_feet(F, t, nt)) return;
        F->cuts += h == 0;
        F->cut[F->frame] = 1, F->halved = 1;
        memcpy(F->d->q, F->q_save, (size_t)F->m->nq * sizeof *F->q_save);
    }
    kg_vec3_copy(F->d->base_pos, b);
}

/* F->ramp from this pass's F->reach (base_ramp): the least over all frames
 * of their reach plus the time to them over base_ramp (a sweep each way). */
static void ramp_base_moves(filt *F) {
    const int n = F->mo->nframes;
    const double r = F->mo->frame_time / F->o->base_ramp;
    double *v = F->ramp;
    for (int f = 0; f < n; f++) v[f] = f > 0 ? fmin(F->reach[f], v[f - 1] + r) : F->reach[f];
    for (int f = n - 2; f >= 0; f--) v[f] = fmin(v[f], v[f + 1] + r);
}

/* The COM brought the frame's ramp of the way to target (horizontally only
 * where horiz) by base moves: the COM follows the base by a little less than
 * one (the legs' mass stays behind), so the remaining error is taken again,
 * up to `iterations` times (an error within hold_position is left: the feet
 * are held no closer). F->reach: the part of the way made when a move was
 * halved or left out, else 1. */
static void base_to(filt *F, const double target[3], int horiz, const kg_ik_target *t, int nt) {
    double com[3], com0[3], goal[3], aim[3];
    com_now(F, com0);
    for (int a = 0; a < 3; a++) goal[a] = a < 2 && !horiz ? 0 : F->ramp[F->frame] * (target[a] - com0[a]);
    for (int a = 0; a < 3; a++) aim[a] = com0[a] + goal[a];
    F->halved = 0;
    for (int it = 0; it < F->o->iterations; it++) {
        com_now(F, com);
        const double e[3] = {horiz ? aim[0] - com[0] : 0, horiz ? aim[1] - com[1] : 0, aim[2] - com[2]};
        if (kg_vec3_norm(e) <= F->o->hold_position) break; /* made, or nothing to make */
        shift_base(F, e, t, nt);
    }
    const double gg = kg_vec3_dot(goal, goal);
    F->reach[F->frame] = 1;
    if (F->halved && gg > 0) {
        com_now(F, com);
        const double made[3] = {com[0] - com0[0], com[1] - com0[1], com[2] - com0[2]};
        F->reach[F->frame] = fmax(0, fmin(1, kg_vec3_dot(made, goal) / gg));
    }
}

/* The pull of the upper body's joints back to the motion given's (posture_pull
 * of the way per step) as p, its part along the COM's horizontal rows, (Ju
 * Ju^T + lambda E)^-1 Ju r: r - Ju^T p leaves the COM where the step puts it. */
static void pull_back(const filt *F, const double A[3], double det, double p[2]) {
    const kg_model *m = F->m;
    const int nd = m->dof;
    const double *q0 = F->q0 + (size_t)F->frame * m->nq;
    double u[2] = {0, 0};
    for (int j = 0; j < m->njoint; j++) {
        const kg_joint *J = &m->joint[j];
        if (J->dofadr < 0 || !F->upper[J->dofadr]) continue;
        const double r = F->o->posture_pull * (q0[J->qadr] - F->d->q[J->qadr]);
        u[0] += F->J[J->dofadr] * r, u[1] += F->J[nd + J->dofadr] * r;
    }
    p[0] = (A[2] * u[0] - A[1] * u[1]) / det, p[1] = (A[0] * u[1] - A[1] * u[0]) / det;
}

/* The COM moved horizontally towards target through the upper body's joints
 * (F->upper: one-coordinate joints that carry no foot, mimic followers
 * excepted), the least change that does it (damped least squares on the COM
 * Jacobian's horizontal rows, a Newton step per iteration), within the joints'
 * limits, and in the rows' null space a pull back to the motion given
 * (pull_back): the steps of many passes otherwise add up differently from one
 * frame to the next. The feet do not move. */
static void upper_to(filt *F, const double target[2]) {
    const kg_model *m = F->m;
    const int nd = m->dof;
    const double *q0 = F->q0 + (size_t)F->frame * m->nq;
    double com[3];
    for (int it = 0; it < F->o->iterations; it++) {
        kg_fk(m, F->d);
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
        double p[2];
        pull_back(F, A, det, p);
        for (int j = 0; j < m->njoint; j++) {
            const kg_joint *J = &m->joint[j];
            if (J->dofadr < 0 || !F->upper[J->dofadr]) continue;
            double *q = F->d->q + J->qadr;
            const double a = F->J[J->dofadr], b = F->J[nd + J->dofadr];
            *q += a * (y0 - p[0]) + b * (y1 - p[1]) + F->o->posture_pull * (q0[J->qadr] - *q);
            if (kg_joint_is_limited(J)) *q = fmin(J->upper, fmax(J->lower, *q));
        }
    }
}

/* The feet's poses at d's pose (after kg_fk), as targets that hold them. */
static int feet_targets(const filt *F, kg_ik_target t[KG_NFOOT]) {
    int nt = 0;
    for (int s = 0; s < KG_NFOOT; s++) {
        const int l = F->feet->link[s];
        if (l < 0) continue;
        memset(&t[nt], 0, sizeof t[nt]);
        t[nt].link = l, t[nt].base = -1, t[nt].axes = KG_IK_POSE;
        kg_vec3_copy(t[nt].pos, F->d->link_pos + 3 * l);
        kg_mat3_copy(t[nt].rot, F->d->link_rot + 9 * l);
        nt++;
    }
    return nt;
}

/* Step 5 for frame f: the upper body first, then the base for the rest and
 * for step 4's height (the file's comment). */
static void apply(filt *F, int f, kg_dyn_filter_result *res) {
    const kg_model *m = F->m;
    const double *dc = F->dc + 2 * (size_t)f;
    kg_motion_pose(F->mo, f, F->d);
    F->frame = f, F->turned = 0;
    double com[3];
    com_now(F, com);
    kg_ik_target t[KG_NFOOT];
    const int nt = feet_targets(F, t);
    double target[3] = {com[0] + dc[0], com[1] + dc[1], 0};
    upper_to(F, target);
    com_now(F, com);
    target[2] = com[2] + F->dz[f]; /* the height the upper body's move left, lowered */
    if (nt > 0 && (F->o->move_base || F->dz[f] < 0)) base_to(F, target, F->o->move_base, t, nt);
    com_now(F, com);
    res->com_error_max = fmax(res->com_error_max, hypot(target[0] - com[0], target[1] - com[1]));
    memcpy(F->mo->q + (size_t)f * m->nq, F->d->q, (size_t)m->nq * sizeof *F->d->q);
    kg_vec3_copy(F->mo->base + 7 * (size_t)f, F->d->base_pos);
    if (F->turned) kg_rot_to_quat(F->d->base_rot, F->mo->base + 7 * (size_t)f + 3); /* else bit for bit */
}

/* Step 5 for every frame; then, where a frame's legs followed only part of
 * its base move, the frames whose ramp is below their own reach moved again
 * from where the pass found them, by their ramp's part (base_ramp). */
static void apply_all(filt *F, kg_dyn_filter_result *res) {
    const size_t n = (size_t)F->mo->nframes, nq = (size_t)F->m->nq;
    memcpy(F->pass_q, F->mo->q, n * nq * sizeof *F->pass_q);
    memcpy(F->pass_base, F->mo->base, 7 * n * sizeof *F->pass_base);
    int partial = 0;
    for (size_t f = 0; f < n; f++) {
        res->shift_max = fmax(res->shift_max, hypot(F->dc[2 * f], F->dc[2 * f + 1]));
        F->ramp[f] = 1, F->reach[f] = 1; /* reach stays 1 where the base is not moved */
        apply(F, (int)f, res);
        partial |= F->reach[f] < 1;
    }
    if (!partial || !(F->o->base_ramp > 0)) return;
    ramp_base_moves(F);
    for (size_t f = 0; f < n; f++) {
        if (!(F->ramp[f] < F->reach[f])) continue;
        memcpy(F->mo->q + f * nq, F->pass_q + f * nq, nq * sizeof *F->pass_q);
        memcpy(F->mo->base + 7 * f, F->pass_base + 7 * f, 7 * sizeof *F->pass_base);
        apply(F, (int)f, res);
    }
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

/* F's arrays (the doubles one block that F->err heads, its parts set here)
 * and the legs' solver; 0, or -1 when memory runs out (what was had is freed
 * by filt_free). */
static int filt_alloc(filt *F) {
    const kg_model *m = F->m;
    const size_t n = (size_t)F->mo->nframes, nd = (size_t)m->dof + 1;
    F->d = kg_data_new(m);
    F->fr = calloc(n + 1, sizeof *F->fr);
    F->err = calloc(15 * n + 4 * nd + 6 + 4 * (size_t)m->nlink + (size_t)m->nq + 1, sizeof *F->err);
    F->upper = calloc(nd, 1);
    F->pass_q = calloc(n * ((size_t)m->nq + 7) + 1, sizeof *F->pass_q);
    F->pin = calloc(n + 1, 1);
    F->cut = calloc(n + 1, 1);
    F->ik = kg_ik_work_new(m, KG_NFOOT);
    if (!F->d || !F->fr || !F->err || !F->upper || !F->pass_q || !F->pin || !F->cut || !F->ik) return -1;
    F->pass_base = F->pass_q + n * (size_t)m->nq;
    F->dc = F->err + 2 * n, F->dz = F->dc + 2 * n, F->z0 = F->dz + n;
    F->x = F->z0 + n, F->y = F->x + n, F->lo = F->y + n, F->rhs = F->lo + n, F->band = F->rhs + n;
    F->reach = F->band + 3 * n, F->ramp = F->reach + n;
    F->J = F->ramp + n, F->scratch = F->J + 3 * nd, F->q_save = F->scratch + 4 * (size_t)m->nlink;
    F->turn_w = F->q_save + m->nq;
    for (int k = 0; k < m->dof; k++) F->turn_w[k] = 1;
    for (int k = 0; k < 3; k++) F->turn_w[m->dof + 3 + k] = F->o->base_turn_weight; /* translations: 0 */
    kg_ik_defaults(&F->iko);
    F->iko.tol_pos = F->o->hold_position, F->iko.tol_rot = F->o->hold_rotation;
    F->iko.max_iterations = F->o->leg_iterations;
    F->iko.restarts = -1;    /* a random restart would put the leg anywhere */
    F->iko.limit_gain = -1;  /* Newton steps clamped to the limits: the moves are small */
    return 0;
}

static void filt_free(filt *F) {
    free(F->fr), free(F->err), free(F->upper), free(F->pass_q), free(F->pin), free(F->cut);
    kg_ik_work_free(F->ik);
    kg_data_free(F->d);
}

/* The motion returned against the one given (its first pass's figures in
 * F->z0 and base0): the largest base move and turn, and the most a frame's
 * COM sits lower. */
static void final_figures(filt *F, const double *base0, kg_dyn_filter_result *res) {
    for (int f = 0; f < F->mo->nframes; f++) {
        double com[3], d2 = 0;
        for (int a = 0; a < 3; a++) d2 += pow(F->mo->base[7 * (size_t)f + a] - base0[7 * (size_t)f + a], 2);
        res->base_shift_max = fmax(res->base_shift_max, sqrt(d2));
        kg_motion_pose(F->mo, f, F->d);
        com_now(F, com);
        res->com_lowered_max = fmax(res->com_lowered_max, F->z0[f] - com[2]);
        const double *a = F->mo->base + 7 * (size_t)f + 3, *b = base0 + 7 * (size_t)f + 3;
        const double dot = fabs(a[0] * b[0] + a[1] * b[1] + a[2] * b[2] + a[3] * b[3]);
        res->base_turn_max = fmax(res->base_turn_max, 2 * acos(fmin(1, dot)));
    }
    res->base_cuts = F->cuts, res->base_turns = F->turns;
}

/* The passes (the file's comment), the best motion kept in best_q and
 * best_base; t holds the last pass's figures. Returns 0, -1 when a measure
 * fails (after its diagnostic), -2 when memory runs out. */
static int passes(filt *F, kg_motion_torques *t, double *best_q, double *best_base, kg_dyn_filter_result *res,
                  kg_diags *dg) {
    const size_t n = (size_t)F->mo->nframes, nq = (size_t)F->m->nq;
    int best_out = -1;
    for (int pass = 0;; pass++) {
        if (best_out < 0 || t->zmp_outside_frames < best_out ||
            (t->zmp_outside_frames == best_out && t->zmp_margin_min > res->margin_min_after)) {
            best_out = t->zmp_outside_frames, res->passes = pass;
            res->outside_after = t->zmp_outside_percent, res->margin_min_after = t->zmp_margin_min;
            memcpy(best_q, F->mo->q, n * nq * sizeof *best_q);
            memcpy(best_base, F->mo->base, 7 * n * sizeof *best_base);
        }
        if (pass >= F->o->passes || t->zmp_outside_frames == 0 || !(F->weight > 0)) return 0;
        const int c = correction(F);
        if (c != 0) return c == -2 ? -2 : 0;
        height_correction(F);
        apply_all(F, res);
        kg_motion_torques_free(t);
        if (measure(F, t, dg) != 0) return -1;
    }
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
    const size_t n = (size_t)mo->nframes, nq = (size_t)m->nq;
    filt F = {.m = m, .mo = mo, .feet = feet, .o = o};
    /* the best motion so far, and the motion given */
    double *best_q = calloc(2 * n * nq + 1, sizeof *best_q), *best_base = calloc(14 * n + 1, sizeof *best_base);
    if (filt_alloc(&F) != 0 || !best_q || !best_base) {
        kg_diag_add(dg, KG_ERROR, "dynamics.memory", m->source, 0, NULL, "out of memory filtering the motion");
        free(best_q), free(best_base), filt_free(&F);
        return -1;
    }
    double *base0 = best_base + 7 * n, *q0 = best_q + n * nq;
    memcpy(base0, mo->base, 7 * n * sizeof *base0);
    memcpy(q0, mo->q, n * nq * sizeof *q0);
    F.q0 = q0, F.base0 = base0;
    find_upper(&F);
    double com[3];
    kg_motion_pose(mo, 0, F.d);
    kg_fk(m, F.d);
    const double *g = o->torque.dyn.gravity;
    F.weight = kg_com_jacobian(m, F.d, com, NULL, F.scratch) * sqrt(g[0] * g[0] + g[1] * g[1] + g[2] * g[2]);
    kg_motion_torques t;
    int rc = measure(&F, &t, dg), oom = 0;
    if (rc == 0) {
        res->outside_before = t.zmp_outside_percent, res->margin_min_before = t.zmp_margin_min;
        for (size_t f = 0; f < n; f++) F.z0[f] = F.fr[f].com[2];
        const int p = passes(&F, &t, best_q, best_base, res, dg);
        rc = p == -1 ? -1 : 0, oom = p == -2;
        /* the best motion, also when a pass's measure failed (a frame not finite) or memory ran out */
        memcpy(mo->q, best_q, n * nq * sizeof *best_q);
        memcpy(mo->base, best_base, 7 * n * sizeof *best_base);
    }
    if (rc == 0) {
        kg_motion_torques_free(&t);
        final_figures(&F, base0, res);
    }
    if (oom) { /* the motion is the best one until then, but the filter did not finish */
        kg_diag_add(dg, KG_ERROR, "dynamics.memory", m->source, 0, NULL, "out of memory filtering the motion");
        rc = -1;
    }
    free(best_q), free(best_base);
    filt_free(&F);
    return rc;
}
