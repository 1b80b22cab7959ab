/* Joint torques of a motion with its foot contacts (issue 27, item 4): the
 * torques a robot's joints need to perform a motion, the ground's reaction
 * shared between the feet in contact, the multibody ZMP, and each joint's
 * torque against its effort limit.
 *
 * The robot's root link is its floating base (the retarget output's form: the
 * root pose per frame beside the joint vector). Per frame:
 *   1. the rates: velocities and accelerations of the root and the joints by
 *      finite differences of the motion (kg_motion_rates below);
 *   2. inverse dynamics with the root floating (kg_dyn_rnea_floating): the
 *      joints' torques and the wrench W the base needs to move as it does;
 *   3. W shared between the contact points - the sole corners of the feet in
 *      contact - by a quadratic program (analysis/qp.h): each point's force in
 *      a friction pyramid (|fx|, |fy| <= friction / sqrt 2 * fz, fz >= 0: the
 *      four-sided pyramid inscribed in the Coulomb cone, ground normal +z), the
 *      forces' wrench equal to W, the least sum of squared forces among those
 *      (an even share where the contacts leave it open). When no forces within
 *      the cones make W (the ZMP leaves the support polygon, the base is pulled
 *      up, or nothing is in contact) the forces are the least-squares fit
 *      instead: |wrench - W|^2 (N^2 and (N m)^2 about the contact points'
 *      centroid, + 1e-9 of the mean of that Hessian's diagonal times |f|^2 so it
 *      is strictly convex) within the cones; what they leave of W is the
 *      frame's residual;
 *   4. inverse dynamics again with those forces on the foot links: the joint
 *      torques;
 *   5. the multibody ZMP: the point of the ground plane about which W has no
 *      horizontal moment, (h Fx - Ny, h Fy + Nx) / Fz for W = (F, N about the
 *      world origin) and the ground at height h. It is the ZMP of the contact
 *      wrenches whenever those balance the motion (residual zero), and of the
 *      total wrench the motion needs otherwise (the contacts cannot supply it,
 *      and it lies outside the support polygon); undefined (NAN) when Fz <= 0
 *      (the robot falls or flies).
 *
 * Feet: the body map's (include/kinegraph/bodymap.h) ankles and foot ends, a sole
 * per foot found from collision shapes (kg_feet_find). A foot in contact
 * touches at its sole corners within corner_height of its lowest one (all
 * four when flat, the toes' two when on tiptoe). Contacts come with the
 * motion or are inferred: a foot whose lowest sole corner is within
 * contact_height of the ground is in contact.
 *
 * Torques are reported per actuated coordinate: every velocity coordinate of
 * a moving joint that is not a mimic follower (a follower's torque is carried
 * by its leader through the coupling: tau_leader += multiplier * tau_follower).
 * Effort ratio: max |tau| / effort (URDF <limit effort>); a joint without a
 * positive finite effort has none (NAN).
 *
 * Models with a floating joint in the tree (the root link is the floating
 * base; a quaternion is not differenced coordinate by coordinate) are refused
 * by kg_motion_torques_compute; closed loops get a warning and the spanning
 * tree's torques (the closed chains' torques are item 2 of the issue). */
#ifndef KG_TORQUES_H
#define KG_TORQUES_H

#include "kinegraph/dynamics.h"
#include "kinegraph/model.h"

KG_BEGIN_DECLS

enum { KG_FOOT_LEFT = 0, KG_FOOT_RIGHT = 1, KG_NFOOT = 2, KG_SOLE_CORNERS = 4 };

typedef struct kg_feet {
    int link[KG_NFOOT];                        /* the foot link each sole is fixed to (-1: none) */
    double corner[KG_NFOOT][KG_SOLE_CORNERS][3]; /* the sole's corners in that link's frame, (x, y) =
                                                * (lo, lo), (hi, lo), (lo, hi), (hi, hi) */
    int from_geometry[KG_NFOOT];               /* 1: the lowest face of the foot's collision shapes;
                                                * 0: a default sole (0.2 x 0.1 m, its top at the foot
                                                * link's origin) */
} kg_feet;

/* The feet of a humanoid: its body map's foot links (the link of the foot
 * end, KG_PART_FOOT_*) and a sole under each. A sole is the rectangle, along
 * the model's x and y at rest (kept in the foot link's frame, whichever way
 * that link's axes point), around the lowest points of the collision shapes (or
 * visual ones when there are none) on the links from the ankle down, at the
 * rest pose: boxes' corners, meshes' bounding boxes' corners, the points
 * spheres and capsules stand on, cylinders' lowest rim points; the points
 * within 1 mm of the lowest make the face (robots stand on flat feet at rest),
 * its height their mean. Returns 0, or -1 when the model is not a
 * humanoid (the body map's errors are in d). */
KG_API int kg_feet_find(const kg_model *m, kg_feet *feet, kg_diags *d);

/* The sole corners of foot k at d's pose (after kg_fk), world frame. */
KG_API void kg_feet_corners(const kg_feet *feet, const kg_data *d, int k, double out[KG_SOLE_CORNERS][3]);

typedef struct kg_torque_options {
    kg_dyn_options dyn;    /* gravity */
    double friction;       /* Coulomb friction coefficient between sole and ground (0.5) */
    double ground_z;       /* m: the ground's height, world z (0) */
    double contact_height; /* m: inferred contact: the foot's lowest sole corner this near the ground (0.005) */
    double corner_height;  /* m: a foot in contact touches at its corners this near its lowest (0.005) */
    double zmp_tolerance;  /* m: a ZMP farther than this outside the support polygon is outside (1e-4) */
} kg_torque_options;

KG_API void kg_torque_defaults(kg_torque_options *o);

/* The result for one frame. Wrenches are (force N, moment N m about the world
 * origin), world axes. */
typedef struct kg_torque_frame {
    int contact[KG_NFOOT];        /* the feet in contact */
    int npoint;                   /* contact points used */
    double force[KG_NFOOT][KG_SOLE_CORNERS][3]; /* each sole corner's force from the ground (zero when
                                                 * not touching) */
    double required[6];           /* the wrench the environment must apply for the motion (W) */
    double supplied[6];           /* the contacts' wrench */
    double residual_force;        /* |F| of required - supplied, N */
    double residual_moment;       /* |N| of the same about the COM, N m */
    double com[3];                /* the centre of mass, m */
    double zmp[3];                /* the multibody ZMP on the ground, NAN when Fz <= 0 */
    double zmp_margin;            /* its signed distance into the support polygon (the convex hull of
                                   * the contact points), m: < 0 outside; NAN without contact or ZMP */
    int zmp_outside;              /* contact, and the ZMP undefined or more than zmp_tolerance outside */
    int qp_status;                /* KG_QP_* of the distribution (KG_QP_OK without contact) */
    int balanced;                 /* the contact forces make W exactly (within the QP's tolerance) */
} kg_torque_frame;

typedef struct kg_torque_work kg_torque_work;
/* Everything a frame needs (the dynamics and QP workspaces): one per model
 * and thread; NULL when memory is exhausted. */
KG_API kg_torque_work *kg_torque_work_new(const kg_model *m);
KG_API void kg_torque_work_free(kg_torque_work *w);

/* The feet in contact at d's pose (after kg_fk): contact[k] = the foot's
 * lowest sole corner is within o->contact_height of the ground. */
KG_API void kg_feet_contacts(const kg_feet *feet, const kg_data *d, const kg_torque_options *o, int contact[KG_NFOOT]);

/* One frame, at d's pose (after kg_fk): the root moving at vbase, abase (as
 * kg_dyn_rnea_floating; NULL: still), the joints at v, a ([nv], NULL: zero),
 * the feet in contact[] (feet may be NULL: no contacts). tau [nv] gets the
 * generalised forces of every velocity coordinate (followers not folded into
 * leaders: kg_torques_actuated does that); out gets the rest. Allocates
 * nothing. */
KG_API void kg_torques_frame(const kg_model *m, const kg_data *d, kg_torque_work *w, const kg_torque_options *o,
                      const kg_feet *feet, const int contact[KG_NFOOT], const double vbase[6], const double abase[6],
                      const double *v, const double *a, double *tau, kg_torque_frame *out);

/* The actuated coordinates: velocity indices (model->nv numbering) of every
 * moving joint that is not a mimic follower, in joint order; returns their
 * count (idx may be NULL to count). */
KG_API int kg_torques_actuated(const kg_model *m, int *idx);
/* tau_act[k] for actuated coordinate idx[k]: its own generalised force plus
 * multiplier times each of its followers'. */
KG_API void kg_torques_fold(const kg_model *m, const int *idx, int nact, const double *tau, double *tau_act);
/* The effort limit of velocity coordinate c (its joint's), NAN when it has
 * no positive finite one. */
KG_API double kg_torques_effort(const kg_model *m, int c);

/* Rates of frame f of mo by finite differences, frame time h: root velocity
 * and acceleration (vbase, abase as kg_dyn_rnea_floating; zero when mo has no
 * base), joint velocities and accelerations v, a [nv]. Interior frames:
 * central differences, x' = (x[f+1] - x[f-1]) / 2h and
 * x'' = (x[f+1] - 2 x[f] + x[f-1]) / h^2 (second order). The first and last
 * frames: one-sided second-order differences, x' = -+(3 x[f] - 4 x[f-+1] +
 * x[f-+2]) / 2h and x'' = (2 x[f] - 5 x[f-+1] + 4 x[f-+2] - x[f-+3]) / h^2
 * (lower orders when the motion has fewer than four frames; one frame: all
 * zero). The root's rotation is differenced as rotation vectors relative to
 * frame f, phi_j = log(R_j R_f^T) (world axes): their first and second
 * derivatives at f are the angular velocity and acceleration. Joint
 * coordinates are differenced as they are (a continuous joint's angle must not
 * wrap in the motion). Needs nq == nv (kg_motion_torques checks). */
KG_API void kg_motion_rates(const kg_model *m, const kg_motion *mo, int f, double vbase[6], double abase[6], double *v,
                     double *a);

/* The figures of a whole motion. */
typedef struct kg_motion_torques {
    int nframes;
    int nact;                 /* actuated coordinates */
    int *act;                 /* [nact] their velocity indices (kg_torques_actuated) */
    double *tau;              /* [nframes * nact] torques (N m or N), frame-major */
    double *tau_max;          /* [nact] max over frames of |tau| */
    int *frame_max;           /* [nact] the frame of that maximum */
    double *effort;           /* [nact] the effort limit, NAN when none */
    double *ratio_max;        /* [nact] tau_max / effort, NAN without effort */
    double ratio_max_all;     /* the largest ratio (NAN when no joint has an effort) ... */
    int ratio_max_coord;      /* ... and its actuated index (-1) */
    int contact_frames;       /* frames with a foot in contact */
    int double_support_frames;
    int zmp_outside_frames;   /* of the contact frames, those with the ZMP outside the support polygon */
    double zmp_outside_percent; /* 100 zmp_outside_frames / contact_frames (0 without contact frames) */
    double zmp_margin_min;    /* m: the least zmp_margin over contact frames (NAN when none) */
    int unbalanced_frames;    /* frames whose contacts could not make W (residual above 1e-6 m g) */
    double residual_force_max, residual_moment_max; /* N, N m over all frames */
    int qp_failures;          /* frames the distribution's QP failed outright */
    double mass;              /* kg */
    double seconds;           /* time spent */
} kg_motion_torques;

/* Torques of motion mo of m (with mo->base the root's pose per frame, or
 * NULL: the root stays at the rest). contacts: [2 * nframes] flags (left,
 * right per frame), or NULL to infer them (kg_feet_contacts); feet may be NULL
 * (no contacts: the base wrench is the base's own, a fixed-base arm). frames
 * (may be NULL): [nframes] per-frame results. Returns 0, or -1 after an error
 * diagnostic (model not supported, out of memory, mo not fitting m, a
 * frame's velocities, accelerations or torques not finite: dynamics.rates). This is
 * the function a report calls: it needs only the model and the motion. */
KG_API int kg_motion_torques_compute(const kg_model *m, const kg_motion *mo, const unsigned char *contacts,
                              const kg_feet *feet, const kg_torque_options *o, kg_motion_torques *out,
                              kg_torque_frame *frames, kg_diags *d);
KG_API void kg_motion_torques_free(kg_motion_torques *t);

KG_END_DECLS

/* ---- The preview-control dynamics filter (filter.c) ------------------------------
 *
 * irteus's :preview-control-dynamics-filter: the motion corrected so that its
 * multibody ZMP follows a reference, by the cart-table preview controller
 * (analysis/preview.h) fed with the ZMP error, its cart position applied as a
 * horizontal move of the centre of mass by the joints that carry no foot and,
 * for what they cannot make, by a move of the base with the legs solved again
 * so that the feet stay where they were. The COM's height is smoothed (only
 * lowered) so that the frames' vertical force stays near the weight. The
 * reference is the ZMP itself where it is at least `margin` inside the support
 * polygon, else the nearest point that far in along the way to the contact
 * points' centroid; the error fed is the ZMP's times the frame's vertical
 * force over the weight (the ground moment missing, in the cart-table's
 * units). The best of the passes is returned. The steps and their choices are
 * in filter.c's comment; each default's measurements on the corpus walks are in
 * BENCHMARKS.md ("The dynamics filter's options: what each default was chosen on"). */
typedef struct kg_dyn_filter_options {
    double delay;          /* s: preview horizon (0.8, irteus's for this filter). Past the clip's last
                            * frame the previewed error is zero, not the last frame's held (irteus's
                            * padding for a planned ZMP, whose last value is where the robot stands):
                            * the last frames' error comes from one-sided rates and is often clipped
                            * at error_max; held over a horizon, it asked the cart to settle on it */
    double q, r;           /* preview weights on the ZMP error and the jerk's change (1, 1e-9; irteus
                            * has r = 1e-6 for a planned ZMP: an error measured per frame changes at
                            * the frame rate, which r = 1e-6 lets the cart follow only in part) */
    double margin;         /* m: how far inside the support polygon the reference is kept (0.02: the
                            * corpus walks met the 5 % bar on most runs near it, fewer at 0.01 or
                            * 0.04; nearer the edge the ZMP's misses leave the polygon, deeper the
                            * reference asks the body to move further) */
    int passes;            /* at most this many, each on the motion the last one corrected; the best
                            * is kept (50). More passes never make the motion returned worse, they cost
                            * time: a pass costs, per frame, its inverse dynamics and up to
                            * `iterations` solves of the legs */
    int iterations;        /* Newton steps of the upper body's move per frame, and steps of the base's
                            * (the COM follows the base by a little less than one) (3) */
    double damping;        /* m^2: damped least squares of that move (1e-4): the upper body makes of the
                            * COM's correction the part along which it moves the COM by more than about
                            * sqrt(damping) = 10 mm per rad, the base the rest. Undamped, an upper body
                            * without a waist pitch swung its arms by radians for centimetres of COM,
                            * whose angular momentum the cart-table model leaves out, and the passes
                            * diverged */
    double error_max;      /* m: per axis, a larger error (the ZMP's, times Fz / M g) is clipped to this
                            * (0.1): a foot landing (its speed gone in a frame) or the end frames'
                            * one-sided differences ask decimetres of ZMP at full weight, which no
                            * smooth move of the COM follows; chasing them disturbs the frames around */
    double height_cutoff;  /* Hz: the COM's height is smoothed to this cutoff (half gain; a penalty on its
                            * second differences) and only lowered (2; 0: not smoothed): Fz = M (g + z''),
                            * and a retargeted root kinks within a frame, which leaves frames with Fz
                            * near zero or below */
    double height_lowering_max; /* m: the smoothing lowers no frame's COM further than this below the
                            * motion given (0.03; unbounded, it lowered a COM by decimetres); the upper
                            * body's moves lower it too (bending forward), so the report's
                            * com_lowered_max can be larger */
    int move_base;         /* 1: what the upper body cannot make of the COM's horizontal correction, the
                            * base makes (1; 0: the upper body alone) */
    double hold_position, hold_rotation; /* m, rad: the feet held within these when the base moves (the
                            * legs solved again; 1e-7, 1e-6: a foot's error of 1e-7 m in a frame is an
                            * acceleration of 1e-7 / dt^2 of a few kilograms, nothing at 120 frames/s) */
    int leg_iterations;    /* at most this many steps per solve of the legs (50) */
    double leg_nudge;      /* rad: a failed solve of the legs starts again with each leg joint moved this
                            * far towards the middle of its range (0.3): a knee at full length gives
                            * no first-order way to shorten the leg (the solve straightens it against
                            * its limit) */
    int base_halvings;     /* a base move the legs cannot follow is halved up to this many times, then
                            * left out (3) */
    double base_ramp;      /* s: where the legs follow only part of a frame's base move (halved or
                            * left out), the frames around it are moved again, from where the pass
                            * found them, by no more of their own move than that part plus the time
                            * to that frame over base_ramp (0.0125; 0: off). A move made whole at one
                            * frame and halved at the next is a step in the base's path, which finite
                            * differences turn into a spike of the ZMP (Fz swinging between 0 and many
                            * times the weight from frame to frame); ramped, the moves shrink towards
                            * such a frame over its neighbours. The move includes step 4's lowering */
    double posture_pull;   /* per step of the upper body's move, its joints are pulled this part of the
                            * way back to the motion given, within what leaves the COM's correction
                            * as it is (0.05): the steps of many passes otherwise add up differently
                            * from frame to frame, and the joints jitter */
    double base_turn_weight; /* a base move the legs cannot follow (after leg_nudge) is tried again with
                            * the base free to turn about its position: this is the weight of its
                            * rotation's columns in that solve of the legs, against the leg joints' 1
                            * (0.1; the least weighted change: the smaller, the more of the move the
                            * legs make and the less the pelvis tilts). A stance ankle at its roll limit
                            * or a leg at full length otherwise blocks the base: the move is halved,
                            * then left out. 0: the base never turns */
    double base_turn_max;  /* rad: a turn that leaves the base farther than this from its orientation in
                            * the motion given is refused (the move halved as without turning) (0.05):
                            * uncapped, the turns of many passes add up to tens of degrees */
    kg_torque_options torque; /* contacts, friction, ground, gravity (kg_torque_defaults) */
} kg_dyn_filter_options;

KG_API void kg_dyn_filter_defaults(kg_dyn_filter_options *o);

typedef struct kg_dyn_filter_result {
    double outside_before, outside_after;       /* % of contact frames with the multibody ZMP outside */
    double margin_min_before, margin_min_after; /* m: its least margin in the support polygon */
    int passes;                                 /* corrections applied to the motion returned (the
                                                 * best pass's: fewer than were run when a later
                                                 * one did worse) */
    double shift_max;                           /* m: the largest COM correction asked */
    double com_error_max;                       /* m: the largest part of one the upper body and the
                                                 * base could not make (or base_ramp left out) */
    double base_shift_max;                      /* m: the base's largest move, the motion returned */
    double com_lowered_max;                     /* m: the most a frame's COM is lower than in the
                                                 * motion given, the motion returned */
    int base_cuts;                              /* base moves the legs could not follow (halved or
                                                 * left out), over all passes run (a frame moved
                                                 * again for base_ramp counts both tries) */
    int base_turns;                             /* base moves the legs followed only with the base
                                                 * turned (base_turn_weight), over all passes run
                                                 * (a frame moved again counts both tries) */
    double base_turn_max;                       /* rad: the base's largest turn from the motion
                                                 * given, the motion returned */
} kg_dyn_filter_result;

/* Filters mo (a motion of m with its base pose per frame) in place: the
 * one-coordinate joints that carry no foot change, and the base's position
 * (and its orientation where base_turn_weight lets it turn) and the legs'
 * joints with it (the feet held within hold_position and
 * hold_rotation). feet: the robot's
 * (kg_feet_find, or a retargeting's). o NULL: defaults. Returns 0, or -1 after
 * an error diagnostic (no base or feet, a model the torques refuse; when a
 * later pass fails, or memory runs out, mo is the best motion until then). */
KG_API int kg_dyn_filter(const kg_model *m, kg_motion *mo, const kg_feet *feet, const kg_dyn_filter_options *o,
                  kg_dyn_filter_result *res, kg_diags *d);

#endif
