/* Rigid-body dynamics of the link tree: inverse dynamics (RNEA), the
 * joint-space mass matrix (CRBA), forward dynamics (ABA), gravity and bias
 * torques, the centre of mass and the centroidal momentum.
 *
 * Coordinates. The tree's velocity coordinates: model->nv of them, joint j's
 * starting at joint[j].vadr (every moving joint, mimic followers included: the
 * couplings and the loops' closures are constraints on top of the tree, not
 * imposed here; a loop's virtual link is massless). Per joint type:
 *   revolute, continuous  the angle's rate (rad/s), about the joint axis;
 *   prismatic             the displacement's rate (m/s), along the axis;
 *   planar                x', y' in the plane (parent-fixed axes), then the angle's rate;
 *   compound              one rate per axis, in the joint's coordinate order;
 *   floating              (x', y', z', wx, wy, wz): the rates of the three position
 *                         coordinates, i.e. the velocity of the child's origin, and the
 *                         angular velocity of the child, both in the axes of the joint
 *                         frame (parent frame times the joint origin; the world for a
 *                         floating base hanging from a static root at the identity).
 * This is the convention of the rest of kinegraph (Jacobian columns,
 * kg_q_integrate). MuJoCo's free joint differs in the angular part only: its
 * qvel is the world-frame velocity of the body origin and the angular velocity
 * in the *body* frame, so wx..wz here = R * qvel[3..5] (R the body's world
 * rotation); accelerations convert the same way (d/dt of R w_body = R dw_body/dt,
 * as w x w = 0) and generalised forces with R^T. Accelerations are the time
 * derivatives of these velocities; generalised forces (tau) are their duals:
 * N m about an axis, N along one, and for a floating joint the force at the
 * child's origin then the moment about it, in the joint frame's axes.
 *
 * The root link is fixed at the data's base pose (a robot whose base moves has
 * a floating joint, e.g. URDF `floating` from a `world` link). External wrenches,
 * when given, are [6 * nlink]: per link the force (N) then the moment (N m)
 * about the link's origin, world axes, that the environment applies to the link.
 *
 * Use, for one state: kg_fk(m, d); kg_dyn_positions(m, d, w); then any of the
 * functions below with velocities, accelerations, torques. The workspace
 * (kg_dyn_new, once per model and thread) holds everything the algorithms
 * need: none of them allocates. Internally quantities are spatial vectors in
 * world axes about each link's origin (see dynamics/internal.h).
 *
 * One file per family: positions.c (workspace, link inertias and joint
 * subspaces), rnea.c (inverse dynamics, gravity, bias), crba.c (mass matrix),
 * aba.c (forward dynamics), centroidal.c (COM and centroidal momentum); the
 * link-local forms from q in rnea_q.c, crba_q.c and aba_q.c (their frames:
 * local_frames.c). */
#ifndef KG_DYNAMICS_H
#define KG_DYNAMICS_H

#include "kinegraph/model.h"

KG_BEGIN_DECLS

typedef struct kg_dyn_options {
    double gravity[3]; /* m/s^2, world axes; kg_dyn_default: (0, 0, -9.81) */
} kg_dyn_options;

KG_API extern const kg_dyn_options kg_dyn_default;

typedef struct kg_dyn kg_dyn;

/* The workspace for one model (one per thread); NULL when memory is exhausted
 * (the library returns an error, it never aborts). It reads the links'
 * masses, COMs and inertias and the fixed joints' origins once (each body's
 * inertia with the links welded to it by fixed joints, in its own frame): a
 * model whose inertials change afterwards needs a new workspace. */
KG_API kg_dyn *kg_dyn_new(const kg_model *m);
KG_API void kg_dyn_free(kg_dyn *w);

/* Everything that depends on the pose alone: the links' inertias and the joints'
 * motion subspaces in world axes. Needs kg_fk on d first (uses d->q for
 * compound joints, and the link poses). */
KG_API void kg_dyn_positions(const kg_model *m, const kg_data *d, kg_dyn *w);

/* Inverse dynamics: tau [nv] = M(q) a + C(q, v) v + g(q) - sum_links J_i^T fext_i.
 * v, a: [nv], NULL meaning zero; fext as above, NULL for none; opt NULL means
 * kg_dyn_default. */
KG_API void kg_dyn_rnea(const kg_model *m, kg_dyn *w, const kg_dyn_options *opt, const double *v, const double *a,
                 const double *fext, double *tau);
/* Inverse dynamics from the joint vector alone: the torques of kg_fk +
 * kg_dyn_positions + kg_dyn_rnea (no external wrenches) for d->q (mimic
 * followers set from their leaders) and d's base pose, without either: the
 * recursion runs in each body's own frame with the joint transforms built from
 * q (Featherstone's form; the frames are the links' turned by constants that
 * kg_dyn_new chooses so that most joints turn about a coordinate axis,
 * dynamics/local_frames.c). Models whose moving joints are all revolute,
 * continuous or prismatic take that path; others go through kg_fk,
 * kg_dyn_positions and kg_dyn_rnea. d's link poses are not updated; w's
 * per-link velocities and forces are then in those frames (what
 * kg_dyn_positions computed is kept). */
KG_API void kg_dyn_rnea_q(const kg_model *m, kg_data *d, kg_dyn *w, const kg_dyn_options *opt, const double *v,
                   const double *a, double *tau);
/* 1 when kg_dyn_rnea_q takes its link-local path for w's model. */
KG_API int kg_dyn_rnea_q_local(const kg_dyn *w);
/* Inverse dynamics with the root link floating: the root moves at vbase, abase
 * ([6] each, NULL meaning zero: the velocity of the root's origin then its
 * angular velocity, world axes, as a floating joint's coordinates from a
 * static world; abase their time derivatives), the joints at v, a. tau [nv]
 * as kg_dyn_rnea; fbase ([6], may be NULL) the wrench the root needs on top of
 * fext to move so (force, then moment about the root's origin, world axes):
 * what a floating joint between the world and the root would carry, and zero
 * when fext are the contacts that make the motion happen. The root's own
 * pose is the data's base pose. */
KG_API void kg_dyn_rnea_floating(const kg_model *m, kg_dyn *w, const kg_dyn_options *opt, const double vbase[6],
                          const double abase[6], const double *v, const double *a, const double *fext, double *tau,
                          double fbase[6]);
/* tau = g(q): the generalised forces that hold the model still against gravity. */
KG_API void kg_dyn_gravity(const kg_model *m, kg_dyn *w, const kg_dyn_options *opt, double *tau);
/* tau = C(q, v) v + g(q): Coriolis, centrifugal and gravity. */
KG_API void kg_dyn_bias(const kg_model *m, kg_dyn *w, const kg_dyn_options *opt, const double *v, double *tau);

/* The joint-space mass matrix M(q), nv x nv row-major, both triangles filled. */
KG_API void kg_dyn_crba(const kg_model *m, kg_dyn *w, double *M);

/* The mass matrix from the joint vector alone: kg_fk + kg_dyn_positions +
 * kg_dyn_crba's M for d->q (mimic followers set from their leaders), by the
 * composite-rigid-body algorithm in each body's own frame, as kg_dyn_rnea_q.
 * Same models on the same path (kg_dyn_rnea_q_local); d's link poses are not
 * updated. */
KG_API void kg_dyn_crba_q(const kg_model *m, kg_data *d, kg_dyn *w, double *M);

/* Forward dynamics: a [nv] = M^-1 (tau - C v - g + sum J_i^T fext_i). tau, v:
 * [nv], NULL meaning zero. Returns 0, or the number of joints whose articulated
 * inertia is singular (a moving subtree without mass: a virtual link, a massless
 * end frame on a joint); the singular pivots of their joint's LDL^T are
 * dropped (no acceleration along those directions), so the answer is then one
 * choice among many, not an error. */
KG_API int kg_dyn_aba(const kg_model *m, kg_dyn *w, const kg_dyn_options *opt, const double *v, const double *tau,
               const double *fext, double *a);

/* Forward dynamics from the joint vector alone: the accelerations of kg_fk +
 * kg_dyn_positions + kg_dyn_aba (no external wrenches) for d->q (mimic
 * followers set from their leaders) and d's base pose, without either: the
 * articulated-body algorithm in each body's own frame, the joint transforms
 * built from q, as kg_dyn_rnea_q. Same models on the same path (see
 * kg_dyn_rnea_q_local), same return value. d's link poses are not updated;
 * w's per-link quantities are then in kg_dyn_rnea_q's frames. */
KG_API int kg_dyn_aba_q(const kg_model *m, kg_data *d, kg_dyn *w, const kg_dyn_options *opt, const double *v,
                        const double *tau, double *a);

/* Centre of mass and centroidal momentum. mass (kg) and com ([3], world) are
 * those of every link, the static root included (com NAN when massless). h
 * ([6], may be NULL): the linear momentum (kg m/s) then the angular momentum
 * about the COM (kg m^2/s), world axes, at velocity v. AG ([6 x nv] row-major,
 * may be NULL): the centroidal momentum matrix, h = AG v. */
KG_API void kg_dyn_centroidal(const kg_model *m, kg_dyn *w, const double *v, double *mass, double com[3], double h[6],
                       double *AG);

/* ---- Closed chains (Nakamura and Yamane's method) ------------------------------
 *
 * The model is already the virtual open chain: each loop is cut at its cut
 * joint, whose child is a massless virtual link that must coincide with its
 * real link. theta_J = theta_O = the nv tree coordinates (all assumed driven by
 * the open-chain RNEA); the closures of a chosen set of loops, plus one row
 * per moving mimic follower (follower' = multiplier * leader'), are the
 * constraints J_C theta' = 0. Of those rows m are independent; N_F = nv - m
 * coordinates theta_G stay free, the other m (theta_S) follow, theta_S' =
 * H theta_G' with H = -J_S^-1 J_G, so theta' = W theta_G' and the actuated
 * coordinates theta_A' = S theta_G' (W, S: the rows of [H; E] of each
 * coordinate).
 *
 * Choices the paper leaves open, made here:
 *  - theta_S is picked greedily per state (kg_closed_update), column by column
 *    while the column adds to the rank (relative tolerance rank_tol): the cut
 *    joints first, then the mimic followers, then the other passive
 *    coordinates from the last, then the actuated ones from the last; so the
 *    actuated coordinates nearest the root are the generalised ones and S is
 *    the identity whenever N_A = N_F and the actuators can drive the chain.
 *    The choice is the same at every pose until a preferred column stops
 *    adding to the rank (a singular J_S), where the next one takes over: the
 *    accelerations and torques returned are of all coordinates, so a switch
 *    between two calls changes nothing for an integrator.
 *  - Redundant rows (a planar loop has 3 of its 6) are not removed: H solves
 *    J_S H = -J_G in least squares over all rows (exact, the system is
 *    consistent), through J_S = Q R from the Gram-Schmidt of the selection.
 *  - tau_A: the minimum-norm least-squares solution of S^T tau_A = tau_G
 *    (LAPACK dgelss, singular values below rcond times the largest dropped).
 *    With N_A > N_F (redundant actuation) it is the solution with the least
 *    sum of squared torques (N and N m mixed as they come: weight the
 *    coordinates yourself if that matters); with N_A = N_F it is S^-T tau_G;
 *    with too few actuators the residual is returned.
 *  - Forward dynamics by the unit-vector method: column i of A = W^T M_O W is
 *    W^T RNEA(v = 0, a = W e_i, g = 0) (the paper's f_i - b without the
 *    cancellation of the velocity and gravity terms, one pass fewer each), b =
 *    W^T RNEA(v, W' theta_G', g); A theta_G'' = S^T tau_A - b by Cholesky.
 *  - Drift: Baumgarte stabilisation. The closure error e (per loop the
 *    rotation vector of R_virtual R_real^T, then p_virtual - p_real, world;
 *    a mimic row's q_f - multiplier q_l - offset) obeys e'' + 2 alpha e' +
 *    beta^2 e = 0 in the forward dynamics instead of e'' = 0, so an
 *    integrator's drift decays instead of growing. Inverse dynamics and
 *    kg_closed_accel impose e'' = 0 exactly (a desired motion is taken as
 *    closed). */
typedef struct kg_closed_options {
    double alpha;    /* 1/s, Baumgarte velocity gain; kg_closed_default: 10 */
    double beta;     /* 1/s, Baumgarte position gain (beta^2 multiplies e); default 10 (critical with alpha) */
    double rank_tol; /* relative tolerance for an independent constraint column; default 1e-10 */
    double rcond;    /* dgelss cut-off for tau_A; default 1e-12 */
} kg_closed_options;

KG_API extern const kg_closed_options kg_closed_default;

/* A closed chain's state-dependent matrices. Read-only for callers; filled by
 * kg_closed_update. Coordinates are the dynamics' nv velocity coordinates. */
typedef struct kg_closed {
    int nv;
    int nloop, *loops;   /* the loops closed (indices in model->loop) */
    int nmimic, *mimics; /* moving mimic followers constrained (indices in model->mimic) */
    int nrow;            /* 6 nloop + nmimic constraint rows */
    int na, *act;        /* the actuated coordinates theta_A */
    int rank;            /* m: independent constraint rows */
    int nf;              /* N_F = nv - rank */
    int *gen;            /* [nf] the coordinates theta_G */
    int *dep;            /* [rank] the coordinates theta_S, in pivot order */
    double *JC;          /* [nrow x nv] row-major: per loop the relative motion of the virtual
                          * link with respect to the real link, at the virtual link's origin
                          * (linear velocity, then angular, world axes); then the mimic rows */
    double *err;         /* [nrow] the closure error e (same layout; loops: linear then angular) */
    double *W;           /* [nv x nf] row-major, theta' = W theta_G' */
    double *S;           /* [na x nf] row-major, theta_A' = S theta_G' */
    double residual;     /* largest |J_C W| entry (0 up to rounding) */
    struct kg_closed_ws *ws; /* internal: the per-call workspace */
} kg_closed;

/* Allocates for the loops loops[0..nloop) (loops NULL: all of the model's)
 * and the actuated coordinates act[0..na) (act NULL: every coordinate except
 * the closed loops' cut joints', mimic followers' and floating and planar
 * joints'). NULL when memory is exhausted. */
KG_API kg_closed *kg_closed_new(const kg_model *m, int nloop, const int *loops, int na, const int *act);
KG_API void kg_closed_free(kg_closed *c);

/* At one pose (after kg_fk and kg_dyn_positions on the same d and w): J_C,
 * the closure error, theta_G / theta_S, H, W, S. Returns N_F. */
KG_API int kg_closed_update(const kg_model *m, const kg_data *d, const kg_dyn *w, kg_closed *c, const kg_closed_options *o);

/* All coordinates' accelerations a [nv] from theta_G'' (aG [nf], NULL: zero)
 * at velocity v [nv] (closed: v = W theta_G'): a = W aG + W' theta_G', the
 * dependent coordinates taking the velocity products that keep the loops
 * closed (J_C a + J_C' v = 0). Uses w's RNEA buffers. */
KG_API void kg_closed_accel(const kg_model *m, kg_dyn *w, kg_closed *c, const double *v, const double *aG, double *a);

/* Inverse dynamics of the closed chain at v, a [nv] (a closed motion):
 * tau_O = RNEA(v, a, fext) [nv] (may be NULL), tau_G = W^T tau_O, tau_A [na]
 * the minimum-norm solution of S^T tau_A = tau_G. Returns |S^T tau_A - tau_G|
 * (0 up to rounding unless the actuators cannot produce tau_G). */
KG_API double kg_closed_inverse(const kg_model *m, kg_dyn *w, kg_closed *c, const kg_dyn_options *opt, const double *v,
                         const double *a, const double *fext, double *tauA, double *tauO);

/* Forward dynamics of the closed chain by the unit-vector method: a [nv] from
 * the actuated torques tauA [na] (NULL: zero) at v [nv], with Baumgarte
 * stabilisation of the closure error (o NULL: kg_closed_default). Returns 0;
 * or, like kg_dyn_aba, the number of generalised coordinates that move no
 * mass (A = W^T M W singular there: an open loop's cut joint, a massless
 * end), whose pivots are dropped and accelerations set to zero; -1 when A is
 * not positive semi-definite (negative masses). */
KG_API int kg_closed_forward(const kg_model *m, kg_dyn *w, kg_closed *c, const kg_dyn_options *opt,
                      const kg_closed_options *o, const double *v, const double *tauA, const double *fext, double *a);

/* Changes the set of loops closed to loops[0..nloop), without allocating (a
 * structure change during a simulation): the set must fit what c was created
 * for (create it with all loops, loops NULL, to be able to close any). The
 * actuators stay as created. Call kg_closed_update before using c again.
 * Returns 0, or -1 (c unchanged) when the set is too large or an index is
 * not a loop of m. */
KG_API int kg_closed_set_loops(const kg_model *m, kg_closed *c, int nloop, const int *loops);

/* ---- Structure changes at run time (digest 1.9-1.10) ---------------------------
 *
 * Every connection is a loop closed through a virtual link, every cut at a
 * virtual link the loop reopened (the seed's "every link connection is the
 * creation of a closed loop"). The model is built once with a virtual link
 * for each place that may ever connect (e.g. a hand's grip on a bar, a foot
 * on the ground, as loops of the model: the builder cuts them); which of them
 * are closed at an instant is the kg_closed's loop set. The cut joint, the
 * joint above a virtual link, is the seed's new joint theta_n: revolute for
 * a grip on a bar, fixed for a rigid attachment, floating for a
 * pseudo-closed chain.
 *
 * Connecting when the two links move differently is a collision: the
 * velocities jump. The impulse equations (P20-P33) are kg_impulse_join. On
 * the dynamics state, kg_structure_connect applies the same jump in the
 * closed chain's own coordinates: the velocity after is the one closest to
 * the velocity before in the kinetic-energy metric among those that keep the
 * new set of loops closed, i.e. v' = W x with (W^T M W) x = W^T M v; so the
 * generalised momentum W^T M v of the chain after the connection (its free
 * directions) is unchanged, and the impulse is along the constraint only
 * (J_n^T F = 0: none along the new joint's free axes, which are among W's
 * columns). This is the seed's solution (a perfectly inelastic joint),
 * written without the split into mechanisms 1 and 2: both in one chain is
 * the general case (P29-P33), two chains joined through the static root are
 * one chain here. A cut at a virtual link (kg_structure_cut) is the inverse:
 * the loop is dropped from the set, and the velocities do not jump (the
 * seed takes the relative velocity at separation as zero).
 *
 * A cut at a joint without a virtual link (the seed's "make the cut-off
 * part a free-floating child of the base") changes the model:
 * kg_structure_cut_joint makes the model with that joint turned floating,
 * from the root link, and kg_structure_cut_state moves a state onto it with
 * every link's pose and velocity as they were (so every momentum is kept;
 * nothing jumps at a cut). */

/* The impulse at a connection (P24-P28, and P29-P33 with the corrected sign
 * of the digest). nc constraint rows (6; 3 for a point contact), p the new
 * joint's degrees of freedom (0: rigid), Jn [nc x p] row-major its Jacobian.
 * Mechanism i: ni coordinates, Ai [ni x ni] its inertia matrix (symmetric
 * positive definite), Ji [nc x ni] the Jacobian of the joining point, qdi
 * [ni] its velocities, replaced by those after the connection. n2 = 0 (A2,
 * J2, qd2 NULL) joins an immovable body (the ground); both links in one
 * mechanism: pass J1 - J2 as J1 and n2 = 0. F1 [nc] (may be NULL): the
 * impulse on mechanism 1 (F2 = -F1); qdn [p] (may be NULL): the new joint's
 * velocity after, v1 = v2 + Jn qdn at the joining point. work: at least
 * kg_impulse_work(nc, p, n1, n2) doubles. Returns 0, or -1 when B or Jn^T
 * B^-1 Jn is singular (velocities unchanged). Factorisations are LDL^T
 * without square roots: a diagonal B gives F1 = v / b to the last bit. */
KG_API int kg_impulse_join(int nc, int p, const double *Jn, int n1, const double *A1, const double *J1, double *qd1, int n2,
                    const double *A2, const double *J2, double *qd2, double *F1, double *qdn, double *work);
KG_API int kg_impulse_work(int nc, int p, int n1, int n2);

typedef struct kg_structure kg_structure;

/* The workspace of kg_structure_* for a model (one per thread); NULL when
 * memory is exhausted. */
KG_API kg_structure *kg_structure_new(const kg_model *m);
KG_API void kg_structure_free(kg_structure *s);

/* The generalised momentum p [c->nf] = W^T M v of the chain at velocity v [nv],
 * after kg_closed_update (the state's kg_dyn_positions). */
KG_API void kg_structure_momentum(const kg_model *m, kg_dyn *w, const kg_closed *c, kg_structure *s, const double *v,
                           double *p);

/* Connects: closes loop `loop` of m (adds it to c's set; c created for all
 * loops), updates c at the pose (kg_fk and kg_dyn_positions done on d and w;
 * the virtual link should be at its real link: c->err shows how far it is),
 * and replaces v [nv] by the velocity after the collision (above). Massless
 * generalised directions (an open loop's cut joint) keep their velocity.
 * Returns the new N_F, or -1 when loop is not a loop of m or the set is full. */
KG_API int kg_structure_connect(const kg_model *m, const kg_data *d, kg_dyn *w, kg_closed *c, kg_structure *s, int loop,
                         double *v);

/* The model m with joint `joint` (a joint of the tree, not a loop's cut
 * joint) replaced by a floating joint of the same name from the root link to
 * its child, at the root's origin: the cut-off subtree is a free body hanging
 * from nothing. Everything else is carried over (links, inertials, geoms,
 * materials, the other joints, mimic couplings, loops, extras, end effectors,
 * ignored pairs). NULL after an error diagnostic. A new kg_data, kg_dyn and
 * kg_closed are needed for it. */
KG_API kg_model *kg_structure_cut_joint(const kg_model *m, int joint, kg_diags *d);

/* The state (d after kg_fk, w after kg_dyn_positions, velocity v [nv]; v and
 * vc may be NULL: positions only) of m moved onto mc = kg_structure_cut_joint(m,
 * joint): dc's base pose and q (every other joint's coordinates by name; the
 * floating joint's: the child's position and orientation quaternion in the
 * root's frame) and vc [mc->nv] (the floating joint's: the child origin's
 * velocity, then its angular velocity, root axes). Uses w's RNEA buffers.
 * Returns the floating joint's index in mc, or -1 when mc is not that model. */
KG_API int kg_structure_cut_state(const kg_model *m, const kg_data *d, kg_dyn *w, const double *v, int joint,
                           const kg_model *mc, kg_data *dc, double *vc);

/* Cuts: reopens loop `loop` (drops it from c's set) and updates c. v does
 * not change. Returns the new N_F, or -1 when the loop was not closed. */
KG_API int kg_structure_cut(const kg_model *m, const kg_data *d, const kg_dyn *w, kg_closed *c, int loop);

/* The seed's high-bar figure (high_bar.c): a floating torso, arms and legs
 * of 4 DOF each (pitch, roll, yaw, bend), the hands on a bar along y through
 * the world origin by revolute grips "grip_r", "grip_l" (the model's loops;
 * q = 0 hangs with both loops closed). nv = N_J = 24: N_F = 12 with both
 * grips; with one, the seed's 17 plus the open grip's coordinate, which
 * stays in the model moving only its massless virtual link (18 in
 * kg_closed, one dropped by the forward dynamics). NULL after diagnostics
 * on failure. */
KG_API kg_model *kg_high_bar_model(kg_diags *diags);

/* The seed's high-bar example, scripted: the figure starts at q = 0 swinging
 * rigidly about the bar at `swing` rad/s, hanging by both hands; at cut_time
 * the right grip is cut (kg_structure_cut) and it hangs by the left. The
 * limb joints hold q = 0 by a PD law (tau = -kp q - kd q'); the grips and
 * the floating torso are passive. Semi-implicit Euler at dt on
 * kg_closed_forward (Baumgarte's default gains keep the grips closed). */
typedef struct kg_high_bar_options {
    double duration;   /* s; kg_high_bar_default: 2 */
    double dt;         /* s; 5e-4 */
    double cut_time;   /* s, when the right hand lets go; 1 */
    double swing;      /* rad/s about the bar at the start; 1 */
    double kp, kd;     /* N m/rad, N m s/rad; 100, 3 */
    double frame_rate; /* frames passed to the callback per second (<= 0: every step); 100 */
} kg_high_bar_options;

KG_API extern const kg_high_bar_options kg_high_bar_default;

/* Called per frame: time (s), the state (d->q; v [nv]), how many grips are
 * closed, and the largest closure error of those (m or rad). */
typedef void (*kg_high_bar_frame)(void *user, double t, const kg_model *m, const kg_data *d, const double *v,
                                  int grips, double closure_error);

/* The most integration steps (duration / dt) a simulation takes: about 6
 * minutes of one core (some 37 us a step), 5 000 s of motion at the default
 * dt. A longer one is refused before its first step rather than left to run
 * for days (--duration 1e9 asked for 2e12 steps). */
#define KG_HIGH_BAR_MAX_STEPS 10000000

/* m: kg_high_bar_model's. o NULL: the defaults. Returns 0, or -1 (not that
 * model, dt <= 0, more than KG_HIGH_BAR_MAX_STEPS steps, the forward dynamics
 * failed, or out of memory). Allocates once, not per step. */
KG_API int kg_high_bar_simulate(const kg_model *m, const kg_high_bar_options *o, kg_high_bar_frame frame, void *user);

KG_END_DECLS

#endif
