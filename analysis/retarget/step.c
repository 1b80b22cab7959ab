/* One frame's solve: a few steps of differential IK, each one quadratic
 * program (analysis/qp.h) over x = [dp; dtheta; dq]: the root's displacement
 * (world axes) and turn (about its origin, world axes), then the robot's
 * driven joint coordinates (rr->xcol; the others are held). The pose is then
 * q + dq, the root moved by dp and turned by exp(dtheta). The costs are
 * costs.c's, the rows constraints.c's (a bound already passed asked back,
 * softened when that cannot be met: solve()); the bounds here: joint position
 * limits, joint velocity limits over the frame, the root's speed and turning
 * rate, and a trust region per step. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/ik.h"
#include "analysis/jacobian.h"
#include "analysis/retarget/step.h"
#include "core/fk.h"
#include "core/spatial.h"

/* ---- Jacobians and points ---------------------------------------------------------------- */

/* Rows (3 x nx each, world axes) of the velocity of world point p on link l
 * (Jl) and of the link's angular velocity (Ja, may be NULL); the columns
 * touched are marked. */
KG_AVX2_CLONE static void point_jacobian(rt_step *w, int l, const double p[3], double *Jl, double *Ja) {
    const int nx = w->nx;
    const kg_retarget_robot *rr = w->rr;
    const double *pb = w->hub;
    memset(Jl, 0, 3 * (size_t)nx * sizeof *Jl);
    if (Ja) memset(Ja, 0, 3 * (size_t)nx * sizeof *Ja);
    double r[3] = {p[0] - pb[0], p[1] - pb[1], p[2] - pb[2]};
    for (int a = 0; a < 3; a++) Jl[a * nx + a] = 1;
    /* the root's turn w moves p by w x r = -[r]x w */
    Jl[0 * nx + 4] = r[2], Jl[0 * nx + 5] = -r[1];
    Jl[1 * nx + 3] = -r[2], Jl[1 * nx + 5] = r[0];
    Jl[2 * nx + 3] = r[1], Jl[2 * nx + 4] = -r[0];
    if (Ja)
        for (int a = 0; a < 3; a++) Ja[a * nx + 3 + a] = 1;
    for (int k = 0; k < 6; k++) w->mark[k] = 1;
    const rt_path_entry *e = rr->path + rr->path_first[l];
    for (int i = 0; i < rr->path_count[l]; i++, e++) {
        const int col = rr->xcol[e->col - 6];
        if (col < 0) continue; /* held */
        const double *tw = w->d->twist + 6 * e->vadr;
        double v[3];
        kg_vec3_cross(v, tw + 3, p);
        for (int a = 0; a < 3; a++) {
            Jl[a * nx + col] += e->scale * (tw[a] + v[a]);
            if (Ja) Ja[a * nx + col] += e->scale * tw[3 + a];
        }
        w->mark[col] = 1;
    }
}

/* The exported function around its static clone (KG_AVX2_CLONE). */
void rt_point_jacobian(rt_step *w, int l, const double p[3], double *Jl, double *Ja) { point_jacobian(w, l, p, Jl, Ja); }

/* The columns marked since the last call, in order; clears the marks. */
static int marked(rt_step *w) {
    int n = 0;
    for (int c = 0; c < w->nx; c++)
        if (w->mark[c]) w->cols[n++] = c, w->mark[c] = 0;
    return n;
}

void rt_clear_marks(rt_step *w) { memset(w->mark, 0, (size_t)w->nx); }

int rt_part_point(const rt_step *w, int k, double p[3]) { return rt_body_point(w->rr, w->d, k, p); }

void rt_com_rows(rt_step *w, double *J) {
    const int nx = w->nx, dof = w->m->dof;
    rt_point_jacobian(w, 0, w->com, J, NULL); /* the root's columns at the COM */
    for (int r = 0; r < 3; r++)
        for (int c = 0; c < dof; c++)
            if (w->rr->xcol[c] >= 0) J[r * nx + w->rr->xcol[c]] = w->Jcom[r * dof + c];
    memset(w->mark, 1, (size_t)nx);
}

int rt_merit_only(rt_step *w, const double *e, int k, double weight) {
    for (int r = 0; r < k; r++) w->merit += 0.5 * weight * e[r] * e[r];
    return w->eval;
}

/* H += weight J'J and g -= weight J'e over rows J[k x nx], on columns cols[nc] only
 * (the others are zero in every row). */
KG_AVX2_CLONE static void accumulate(rt_step *w, const double *J, const double *e, int k, double weight, int nc) {
    const int nx = w->nx;
    const int *cols = w->cols;
    for (int r = 0; r < k; r++) {
        const double *Jr = J + r * nx;
        for (int i = 0; i < nc; i++) {
            double wi = weight * Jr[cols[i]];
            if (wi == 0) continue;
            w->g[cols[i]] -= wi * e[r];
            double *Hi = w->H + cols[i] * nx;
            for (int j = i; j < nc; j++) Hi[cols[j]] += wi * Jr[cols[j]];
        }
    }
}

void rt_add_cost(rt_step *w, const double *J, const double *e, int k, double weight) {
    accumulate(w, J, e, k, weight, marked(w));
}

/* The row's nonzero columns listed in one pass (rather than marked, then
 * gathered from the marks by marked()); the marks are left clear, as
 * marked() leaves them. */
void rt_add_row_cost(rt_step *w, const double *a, double e, double weight) {
    int nc = 0;
    if (w->nx < 1) return;
    for (int c = 0; c < w->nx; c++)
        if (a[c] != 0) w->cols[nc++] = c;
    rt_clear_marks(w);
    accumulate(w, a, &e, 1, weight, nc);
}

/* ---- bounds, the solve, the update ------------------------------------------------------- */

static void clamp_bounds(double *lb, double *ub, double lo, double hi) {
    /* a coordinate past its window (the rounding of limit - value; a turn's second-order
     * drift past the rate limit over a frame's steps) is held, not pushed back: every
     * bound is met by standing still, or the problem may have no solution */
    *lb = kg_fmax(*lb, kg_fmin(lo, 0)), *ub = kg_fmin(*ub, kg_fmax(hi, 0));
}

/* Joint limits and velocity limits over the frame, the root's speed and
 * turn rate (each axis to root_speed / RT_ROOT_POLYTOPE, root_turn_speed /
 * RT_ROOT_POLYTOPE: with the rows of the cube's edges and corners,
 * constraints.c, a polytope inside each ball), and the trust region of a
 * step. */
static void bounds(rt_step *w) {
    const kg_retarget_robot *rr = w->rr;
    const kg_retarget_tuning *t = &w->t;
    /* limit_margin inside, as the joints' limits: at the bound itself, rounding passed it */
    const double v = t->root_speed * w->dt / RT_ROOT_POLYTOPE - t->limit_margin;
    const double om = t->root_turn_speed * w->dt / RT_ROOT_POLYTOPE;
    for (int a = 0; a < 3; a++) {
        w->lb[a] = -w->trust[a] * t->trust_length, w->ub[a] = w->trust[a] * t->trust_length;
        w->lb[3 + a] = -w->trust[3 + a] * t->trust_angle, w->ub[3 + a] = w->trust[3 + a] * t->trust_angle;
        if (!w->have_prev) continue;
        clamp_bounds(&w->lb[a], &w->ub[a], -v - w->moved[a], v - w->moved[a]);
        clamp_bounds(&w->lb[3 + a], &w->ub[3 + a], -om - w->turned[a], om - w->turned[a]);
    }
    for (int c = 0; c < w->m->dof; c++) {
        int i = rr->xcol[c], qi = rr->qidx[c];
        if (i < 0) continue; /* held where the first frame set it */
        w->lb[i] = -w->trust[i] * t->trust_angle, w->ub[i] = w->trust[i] * t->trust_angle;
        if (qi < 0) continue;
        /* kept limit_margin inside the limits, but where the joint already is (standing still
         * always meets the bounds) */
        double q = w->d->q[qi], lo = kg_fmin(rr->lower[c] + t->limit_margin, kg_fmax(q, rr->lower[c]));
        double hi = kg_fmax(rr->upper[c] - t->limit_margin, kg_fmin(q, rr->upper[c]));
        double vm = rr->vmax[c] > 0 ? rr->vmax[c] : t->joint_speed_default;
        if (w->have_prev && isfinite(vm)) lo = kg_fmax(lo, w->q_prev[qi] - vm * w->dt), hi = kg_fmin(hi, w->q_prev[qi] + vm * w->dt);
        clamp_bounds(&w->lb[i], &w->ub[i], lo - q, hi - q);
    }
}

/* H's lower triangle from its upper one. */
static void symmetrize(double *H, int n) {
    for (int i = 0; i < n; i++)
        for (int j = i + 1; j < n; j++) H[j * n + i] = H[i * n + j];
}

/* The rows of bounds already passed, when meeting them all in the step is not
 * possible: not further (standing still meets them, the problem has a
 * solution), and each violation corrected by a cost of weight w_slack[kind]. */
static void soften(rt_step *w) {
    for (int k = 0; k < w->nsoft; k++) {
        const int i = w->soft[k];
        rt_add_row_cost(w, w->A + (size_t)i * w->nx, w->b[i], w->t.w_slack[w->soft_kind[k]]);
        w->b[i] = 0;
    }
    symmetrize(w->H, w->nx);
}

/* Solves the step's problem into w->x, warm-started from the last active set;
 * when the rows of bounds already passed cannot all be met (no solution, or
 * none within the solver's cap), solved again with them softened. Returns 0,
 * or -1 when the solver fails (x is then zero: the pose holds). */
static int solve(rt_step *w) {
    symmetrize(w->H, w->nx);
    kg_qp p = {.n = w->nx, .H = w->H, .g = w->g, .neq = w->neq, .C = w->C, .d = w->cd, .nin = w->nin, .A = w->A,
               .b = w->b, .lb = w->lb, .ub = w->ub, .hint = w->hint, .nhint = w->nhint};
    kg_qp_result r;
    kg_qp_solve(&p, w->x, NULL, w->qp, &r);
    if ((r.status == KG_QP_INFEASIBLE || r.status == KG_QP_MAX_ITERATIONS) && w->nsoft > 0) {
        soften(w);
        kg_qp_solve(&p, w->x, NULL, w->qp, &r);
    }
    w->nhint = 0;
    if (r.status != KG_QP_OK) {
        memset(w->x, 0, (size_t)w->nx * sizeof *w->x);
        return -1;
    }
    const int *act;
    w->nhint = kg_qp_active(w->qp, &act);
    memcpy(w->hint, act, (size_t)w->nhint * sizeof *w->hint);
    return 0;
}

/* Each coordinate's trust region after a step: halved where the step turned
 * back on the last one (a linearisation trusted too far - a leg near
 * straight, a pair's nearest points changing - sends a coordinate to and fro
 * while the others converge), widened again where it went on the same way. */
static void adapt_trust(rt_step *w) {
    for (int i = 0; i < w->nx; i++) {
        double p = w->x[i] * w->x_last[i];
        if (p < 0) w->trust[i] *= w->t.trust_shrink;
        else if (p > 0) w->trust[i] = kg_fmin(1, w->trust[i] / w->t.trust_shrink);
        w->x_last[i] = w->x[i];
    }
}

/* The pose moved by x: the body moved by x[0..2] and turned by exp(x[3..5])
 * about the hub (the base's origin with it), each driven joint by its x[xcol]. */
static void integrate(rt_step *w) {
    double R[9], Rn[9], wv[3] = {w->x[3], w->x[4], w->x[5]}, ang = kg_vec3_norm(wv), *b = w->d->base_pos;
    double arm[3] = {b[0] - w->hub[0], b[1] - w->hub[1], b[2] - w->hub[2]}, turned[3];
    kg_vec3_copy(turned, arm);
    if (ang > 0) {
        for (int a = 0; a < 3; a++) wv[a] /= ang;
        kg_rot_axis_angle(R, wv, ang);
        kg_mat3_mul(Rn, R, w->d->base_rot);
        kg_mat3_orthonormalize(Rn);
        kg_mat3_copy(w->d->base_rot, Rn);
        kg_mat3_vec(turned, R, arm);
    }
    for (int a = 0; a < 3; a++) b[a] += w->x[a] + turned[a] - arm[a];
    for (int c = 0; c < w->m->dof; c++) w->dq[c] = w->rr->xcol[c] >= 0 ? w->x[w->rr->xcol[c]] : 0;
    kg_q_integrate(w->m, w->d->q, w->dq, 1.0);
}

/* Kinematics at the current pose: link poses, twists, the COM and its Jacobian. */
static void kinematics(rt_step *w) {
    kg_fk(w->m, w->d);
    kg_vec3_copy(w->hub, w->d->link_pos + 3 * w->rr->map.link[KG_PART_PELVIS]);
    kg_jacobian_twists(w->m, w->d);
    kg_com_jacobian(w->m, w->d, w->com, w->Jcom, w->scratch);
    rt_track_links(w);
}

KG_AVX2_CLONE static void track_links(rt_step *w) {
    if (!w->link_moved) return;
    const kg_data *d = w->d;
    const double *pb = d->base_pos, *Rb = d->base_rot;
    for (int t = 0; t < w->ntracked; t++) {
        const int l = w->tracked[t];
        /* in the root's frame: a pair's distance depends on the links' poses relative to each
         * other, and the body carrying both along moves neither */
        double *last = w->link_pose + 12 * l, p[3], R[9], dp[3], turn = 0;
        for (int a = 0; a < 3; a++) dp[a] = d->link_pos[3 * l + a] - pb[a];
        kg_mat3_tvec(p, Rb, dp);
        kg_mat3_mul_at(R, Rb, d->link_rot + 9 * l);
        for (int a = 0; a < 3; a++) dp[a] = p[a] - last[a];
        for (int i = 0; i < 9; i++) turn += (R[i] - last[3 + i]) * (R[i] - last[3 + i]);
        /* a point at r from the origin moves at most |dp| + |R - R0|_2 r, and for
         * rotations |R - R0|_2 = 2 sin(a/2) = |R - R0|_F / sqrt(2) */
        w->link_moved[l] += kg_vec3_norm(dp) + sqrt(turn / 2) * w->rr->link_radius[l];
        memcpy(last, p, sizeof p), memcpy(last + 3, R, sizeof R);
        for (int e = 0; e < 2; e++) {
            double *c = w->capsule + 6 * l + 3 * e;
            kg_mat3_vec(c, d->link_rot + 9 * l, w->rr->capsule + 7 * l + 3 * e);
            for (int a = 0; a < 3; a++) c[a] += d->link_pos[3 * l + a];
        }
    }
}

/* The exported function around its static clone (KG_AVX2_CLONE). */
void rt_track_links(rt_step *w) { track_links(w); }

/* The costs and weighted violations at the current pose (links placed, the
 * COM known), without Jacobians. */
static double merit_here(rt_step *w, const rt_goal *g) {
    w->merit = 0;
    w->eval = 1;
    rt_costs(w, g);
    rt_constraints(w, g);
    w->eval = 0;
    return w->merit;
}

/* The pose (joints q[nq]; base: position, then rotation) into q and base. */
static void save_pose(const rt_step *w, double *q, double base[12]) {
    memcpy(q, w->d->q, (size_t)w->m->nq * sizeof *q);
    kg_vec3_copy(base, w->d->base_pos), kg_mat3_copy(base + 3, w->d->base_rot);
}

/* The pose from q and base, as save_pose() left them (kinematics not updated). */
static void load_pose(rt_step *w, const double *q, const double base[12]) {
    memcpy(w->d->q, q, (size_t)w->m->nq * sizeof *q);
    kg_vec3_copy(w->d->base_pos, base), kg_mat3_copy(w->d->base_rot, base + 3);
}

/* The pose as the frame's best iterate when its merit (just evaluated) is the
 * lowest of the frame so far; not the pose the frame starts from: from the
 * last frame's pose (where the pull to it is zero) or its prediction, kept, the
 * robot stood still for frames and then jumped. */
static void keep_if_best(rt_step *w) {
    if (!(w->merit < w->merit_best)) return;
    w->merit_best = w->merit;
    save_pose(w, w->q_best, w->base_best);
}

/* The frame's pose from its last iterate (merit `end`) to its best, unless
 * the best, evaluated again, is no better: a near pair's distance is a
 * first-order estimate carried on its witness points, and the estimates
 * have moved on since the best was recorded. Kinematics and w->viol follow. */
static void end_at_best(rt_step *w, const rt_goal *g, double end) {
    save_pose(w, w->q_end, w->base_end);
    load_pose(w, w->q_best, w->base_best);
    kinematics(w);
    if (merit_here(w, g) <= end) return;
    load_pose(w, w->q_end, w->base_end);
    kinematics(w);
    merit_here(w, g);
}

/* One step: the problem at the current pose, solved, the pose moved (the
 * pose kept as the best when it is, but the frame's first). Returns the
 * largest coordinate change. */
/* The pelvis's move and the body's turn since the frame before (w->moved,
 * w->turned), for the speed limits' rows and bounds. */
static void since_prev(rt_step *w) {
    double Rd[9];
    memset(w->moved, 0, sizeof w->moved), memset(w->turned, 0, sizeof w->turned);
    if (!w->have_prev) return;
    for (int a = 0; a < 3; a++) w->moved[a] = w->hub[a] - w->hub_prev[a];
    kg_mat3_mul_bt(Rd, w->d->base_rot, w->base_prev + 3);
    kg_rot_log(Rd, w->turned);
}

static double one_step(rt_step *w, const rt_goal *g, int first, rt_step_result *res) {
    kinematics(w);
    since_prev(w);
    memset(w->H, 0, (size_t)w->nx * w->nx * sizeof *w->H);
    memset(w->g, 0, (size_t)w->nx * sizeof *w->g);
    w->merit = 0;
    rt_costs(w, g);
    rt_constraints(w, g);
    if (!first) keep_if_best(w);
    bounds(w);
    res->failed += solve(w) < 0;
    integrate(w);
    adapt_trust(w);
    double big = 0;
    for (int i = 0; i < w->nx; i++) big = kg_fmax(big, fabs(w->x[i]));
    return big;
}

/* The first frame starts from the neutral pose, standing on the ground under
 * the source's pelvis, turned as it is. */
static void start_pose(rt_step *w, const rt_goal *g) {
    const kg_retarget_robot *rr = w->rr;
    const double *kp = g->src->kp[KG_PART_PELVIS];
    double yaw = rt_heading(g->src->pelvis_R), Y[9], I[9];
    kg_mat3_identity(I);
    memcpy(w->d->q, rr->neutral, (size_t)w->m->nq * sizeof *w->d->q);
    rt_yaw_rot(w->d->base_rot, yaw, rr->stand); /* standing, turned as the source's pelvis */
    rt_yaw_rot(Y, yaw, I);
    double off[3];
    kg_mat3_vec(off, Y, rr->rest_pos[KG_PART_PELVIS]); /* rest_pos was measured standing */
    w->d->base_pos[0] = kp[0] - off[0], w->d->base_pos[1] = kp[1] - off[1], w->d->base_pos[2] = -rr->sole_z;
}

/* The solve's start: the last pose moved on by `predict` of the last frame's
 * change, joints kept within their limits (a step of the same size met the
 * velocity bounds), when the last two frames converged without slack (their
 * change is the motion's, not a compromise's). Returns 1 when it moved the
 * pose. Only where the iterations begin moves: the costs and bounds still
 * refer to the last frame. */
static int predict_pose(rt_step *w) {
    const kg_retarget_robot *rr = w->rr;
    double k = w->t.predict, R[9], phi[3], Rk[9];
    if (!(k > 0) || !w->have_prev || !w->have_prev2 || !w->clean[0] || !w->clean[1]) return 0;
    for (int c = 0; c < w->m->dof; c++) {
        int qi = rr->qidx[c];
        if (qi < 0 || !rr->driven[c]) continue;
        double q = w->q_prev[qi] + k * (w->q_prev[qi] - w->q_prev2[qi]);
        w->d->q[qi] = fmin(fmax(q, fmin(rr->lower[c], w->q_prev[qi])), fmax(rr->upper[c], w->q_prev[qi]));
    }
    for (int a = 0; a < 3; a++) w->d->base_pos[a] = w->base_prev[a] + k * (w->base_prev[a] - w->base_prev2[a]);
    kg_mat3_mul_bt(R, w->base_prev + 3, w->base_prev2 + 3);
    kg_rot_log(R, phi);
    double ang = kg_vec3_norm(phi);
    if (ang > 0) {
        for (int a = 0; a < 3; a++) phi[a] /= ang;
        kg_rot_axis_angle(Rk, phi, k * ang);
        kg_mat3_mul(w->d->base_rot, Rk, w->base_prev + 3);
        kg_mat3_orthonormalize(w->d->base_rot);
    }
    return 1;
}

/* The frame's steps from the current pose, until one moves no coordinate
 * step_tolerance (or the steps shrink so that the next would not: the tail
 * converges linearly, one solve fewer a frame) or `iters` were taken. The
 * frame ends at its best iterate by the merit (costs and weighted
 * violations), as SQP methods return theirs: a step is linear in a pose that
 * is not, and the last one can make things worse (two feet's cylinders rolling
 * on each other moved 6.5 cm in one step, from 5.5 mm apart to 5.7 mm deep,
 * and the iterations ended there). Leaves the kinematics and w->viol at the
 * end pose; returns the largest violation. */
static double iterate(rt_step *w, const rt_goal *g, int iters, rt_step_result *res) {
    res->capped = 1;
    for (int i = 0; i < w->nx; i++) w->trust[i] = 1, w->x_last[i] = 0;
    w->merit_best = INFINITY;
    double last = 0, most = 0;
    for (int it = 0; it < iters && res->capped; it++) {
        res->iterations++;
        double big = one_step(w, g, it == 0, res), next = last > 0 && big < last ? big * big / last : INFINITY;
        res->capped = big >= w->t.step_tolerance && next >= w->t.step_tolerance;
        last = big;
    }
    kinematics(w);
    double end = merit_here(w, g); /* the violations left: the slack each kind took */
    if (end > w->merit_best) end_at_best(w, g, end);
    for (int k = 0; k < KG_NSLACK; k++) most = fmax(most, w->viol[k]);
    return most;
}

void rt_step_frame(rt_step *w, const rt_goal *g, rt_step_result *res) {
    memset(res, 0, sizeof *res);
    if (g->first) { /* from the neutral pose, unless a first solve has posed the robot already */
        if (w->frame == 0) start_pose(w, g);
        w->have_prev = 0, w->have_prev2 = 0, w->nhint = 0;
    }
    int iters = g->first ? w->t.first_iterations : w->t.iterations;
    w->collision_capped = 0;
    double most;
    if (predict_pose(w)) {
        most = iterate(w, g, iters, res);
        /* a frame that needs slack or the cap ends where its path took it: such a frame
         * starts again from the last pose, so that prediction only saves steps */
        if (res->capped || most > w->t.step_tolerance) {
            load_pose(w, w->q_prev, w->base_prev);
            res->restarted = 1;
            most = iterate(w, g, iters, res);
        }
    } else {
        most = iterate(w, g, iters, res);
    }
    w->frame++;
    memcpy(res->slack, w->viol, sizeof res->slack);
    w->clean[1] = w->clean[0], w->clean[0] = !res->capped && most <= w->t.step_tolerance;
    res->collision_capped = w->collision_capped;
    memcpy(w->q_prev2, w->q_prev, (size_t)w->m->nq * sizeof *w->q_prev);
    memcpy(w->base_prev2, w->base_prev, sizeof w->base_prev);
    w->have_prev2 = w->have_prev;
    save_pose(w, w->q_prev, w->base_prev);
    kg_vec3_copy(w->hub_prev, w->hub);
    for (int side = 0; side < 2; side++) { /* what the next frame's scuff rows start from */
        const int foot = side ? KG_PART_FOOT_R : KG_PART_FOOT_L, l = w->rr->map.link[foot];
        const double *R = w->d->link_rot + 9 * l;
        double Rr[9];
        rt_sole_at(w->rr, side, w->d->link_pos + 3 * l, R, w->sole_prev[side]);
        kg_mat3_mul_bt(Rr, R, w->rr->rest_rot[foot]);
        w->heading_prev[side] = rt_heading(Rr);
        double low, high;
        rt_step_sole_span(w, side, &low, &high);
        w->scuff[side] = low < w->t.scuff_height || (w->scuff[side] && low < w->t.scuff_release);
    }
    w->have_prev = 1;
}

/* Starts w over at `from`'s body pose, its joints at the neutral pose or at
 * from's: its next frame (a goal with `first` set) is solved from there, free
 * of the frames before (the catch-up after a cut: retarget.c). */
void rt_step_seed(rt_step *w, const rt_step *from, int neutral) {
    memcpy(w->d->q, neutral ? w->rr->neutral : from->d->q, (size_t)w->m->nq * sizeof *w->d->q);
    kg_vec3_copy(w->d->base_pos, from->d->base_pos);
    kg_mat3_copy(w->d->base_rot, from->d->base_rot);
    if (w->frame == 0) w->frame = 1; /* not the clip's first frame: no start_pose() */
}

/* The merit (costs and weighted violations) at the last frame's pose. */
double rt_step_merit(const rt_step *w) { return w->merit; }

/* The largest difference of a driven joint between a and b (rad, m). */
double rt_step_joint_gap(const rt_step *a, const rt_step *b) {
    const kg_retarget_robot *rr = a->rr;
    double most = 0;
    for (int c = 0; c < a->m->dof; c++) {
        int qi = rr->qidx[c];
        if (qi >= 0 && rr->driven[c]) most = fmax(most, fabs(a->d->q[qi] - b->d->q[qi]));
    }
    return most;
}

int rt_step_stuck(const rt_step *w, const rt_frame_source *F, double angle) {
    for (int k = 0; k < 8; k++) {
        const int *seg = rt_limb_segment[k];
        double a[3], b[3], u[3], ut[3];
        if (rt_part_point(w, seg[0], a) < 0 || rt_part_point(w, seg[1], b) < 0) continue;
        for (int c = 0; c < 3; c++) u[c] = b[c] - a[c], ut[c] = F->kp[seg[1]][c] - F->kp[seg[0]][c];
        double nu = kg_vec3_norm(u), nt = kg_vec3_norm(ut);
        if (!(nu > 1e-9 && nt > 1e-9) || kg_vec3_dot(u, ut) >= cos(angle) * nu * nt) continue;
        if (rt_at_limit(w->rr, w->d->q, w->rr->map.link[seg[1]])) return 1;
    }
    return 0;
}

kg_data *rt_step_data(rt_step *w) { return w->d; }

const double *rt_step_com(const rt_step *w) { return w->com; }

void rt_step_sole_span(const rt_step *w, int side, double *low, double *high) {
    *low = INFINITY, *high = -INFINITY;
    for (int k = 0; k < 4; k++) *low = fmin(*low, w->sole_prev[side][k][2]), *high = fmax(*high, w->sole_prev[side][k][2]);
}

rt_step *rt_step_new(const kg_retarget_robot *rr, const kg_retarget_options *o, double dt) {
    rt_step *w = calloc(1, sizeof *w);
    if (!w) return NULL;
    const kg_model *m = rr->model;
    w->rr = rr, w->m = m, w->t = o->tune, w->dt = dt;
    w->balance = o->balance, w->avoid = o->avoid_self_collision && rr->nwatch > 0;
    w->nx = rr->nx;
    w->meq = RT_MAX_EQ + 6 * m->nloop;
    w->min = RT_MAX_IN + rr->nfoot_shape[0] + rr->nfoot_shape[1] + rr->nfoot_drawn[0] + rr->nfoot_drawn[1] + (rr->have_cm ? rr->cm.nshape : 0) + 12 * m->nloop +
             (o->tune.collision_rows <= 0 ? 0 : o->tune.collision_rows < rr->nwatch ? o->tune.collision_rows : rr->nwatch); /* a row a pair at most */
    const size_t nx = (size_t)w->nx;
    w->d = kg_data_new(m);
    w->H = malloc(nx * nx * sizeof(double)), w->g = malloc(nx * sizeof(double)), w->x = malloc(nx * sizeof(double));
    w->C = malloc((size_t)w->meq * nx * sizeof(double)), w->cd = malloc((size_t)w->meq * sizeof(double));
    w->A = malloc((size_t)w->min * nx * sizeof(double)), w->b = malloc((size_t)w->min * sizeof(double));
    w->soft = malloc(((size_t)w->min + 1) * sizeof(int)), w->soft_kind = malloc((size_t)w->min + 1);
    w->lb = malloc(nx * sizeof(double)), w->ub = malloc(nx * sizeof(double));
    w->J = malloc(6 * nx * sizeof(double)), w->J2 = malloc(6 * nx * sizeof(double)), w->row = malloc(nx * sizeof(double));
    w->Jcom = malloc(3 * ((size_t)m->dof + 1) * sizeof(double)), w->dq = malloc(((size_t)m->dof + 1) * sizeof(double));
    w->scratch = malloc(4 * ((size_t)m->nlink + 1) * sizeof(double));
    w->mark = calloc(nx, 1), w->cols = malloc(nx * sizeof(int));
    w->hint = malloc(((size_t)w->meq + (size_t)w->min + 2 * nx) * sizeof(int));
    w->q_prev = malloc(((size_t)m->nq + 1) * sizeof(double));
    w->q_prev2 = malloc(((size_t)m->nq + 1) * sizeof(double));
    w->q_best = malloc(((size_t)m->nq + 1) * sizeof(double)), w->q_end = malloc(((size_t)m->nq + 1) * sizeof(double));
    w->trust = malloc(nx * sizeof(double)), w->x_last = malloc(nx * sizeof(double));
    w->qp = kg_qp_work_new(w->nx, w->meq + w->min);
    if (w->avoid) {
        w->cw = kg_collision_work_new(&rr->coarse);
        if (w->cw) kg_collision_work_tolerance(w->cw, w->t.collision_tolerance);
        w->link_moved = calloc((size_t)m->nlink + 1, sizeof(double));
        w->link_pose = calloc(12 * (size_t)m->nlink + 1, sizeof(double));
        w->capsule = calloc(6 * (size_t)m->nlink + 1, sizeof(double));
        w->pairs = calloc((size_t)rr->nwatch + 1, sizeof *w->pairs);
        w->near = malloc(((size_t)rr->nwatch + 1) * sizeof *w->near);
        w->pair_links = malloc(2 * ((size_t)rr->nwatch + 1) * sizeof *w->pair_links);
        w->wake = malloc(((size_t)rr->nwatch + 1) * sizeof *w->wake);
        for (int k = 0; w->pairs && k < rr->nwatch; k++) w->pairs[k].frame = -1, w->pairs[k].dist = -INFINITY;
        for (int k = 0; w->pair_links && w->wake && k < rr->nwatch; k++) {
            int p = rr->watch[k];
            w->pair_links[2 * k] = rr->cm.pair_a[p], w->pair_links[2 * k + 1] = rr->cm.pair_b[p], w->wake[k] = -INFINITY;
        }
        w->tracked = malloc(((size_t)m->nlink + 1) * sizeof *w->tracked);
        unsigned char *in = calloc((size_t)m->nlink + 1, 1); /* a link of a watched pair */
        for (int k = 0; w->tracked && in && k < rr->nwatch; k++) {
            int p = rr->watch[k];
            in[rr->cm.pair_a[p]] = in[rr->cm.pair_b[p]] = 1;
        }
        for (int l = 0; w->tracked && in && l < m->nlink; l++)
            if (in[l]) w->tracked[w->ntracked++] = l;
        if (!in) free(w->tracked), w->tracked = NULL;
        free(in);
    }
    if (!w->d || !w->H || !w->g || !w->x || !w->C || !w->cd || !w->A || !w->b || !w->lb || !w->ub || !w->soft || !w->soft_kind || !w->J ||
        !w->J2 || !w->row || !w->Jcom || !w->dq || !w->scratch || !w->mark || !w->cols || !w->hint || !w->q_prev || !w->q_prev2 || !w->q_best || !w->q_end || !w->trust || !w->x_last ||
        !w->qp || (w->avoid && (!w->cw || !w->link_moved || !w->link_pose || !w->capsule || !w->pairs || !w->near || !w->pair_links || !w->wake || !w->tracked))) {
        rt_step_free(w);
        return NULL;
    }
    return w;
}

void rt_step_free(rt_step *w) {
    if (!w) return;
    kg_data_free(w->d);
    free(w->H), free(w->g), free(w->x), free(w->C), free(w->cd), free(w->A), free(w->b), free(w->lb), free(w->ub), free(w->soft), free(w->soft_kind);
    free(w->J), free(w->J2), free(w->row), free(w->Jcom), free(w->dq), free(w->scratch), free(w->mark), free(w->cols);
    free(w->hint), free(w->q_prev), free(w->q_prev2), free(w->q_best), free(w->q_end), free(w->trust), free(w->x_last);
    kg_qp_work_free(w->qp);
    kg_collision_work_free(w->cw);
    free(w->link_moved), free(w->link_pose), free(w->capsule), free(w->tracked), free(w->pairs), free(w->near), free(w->pair_links), free(w->wake);
    free(w);
}
