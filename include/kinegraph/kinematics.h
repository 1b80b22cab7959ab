/* kinegraph public API, kinematics family: forward kinematics, Jacobians
 * (loops closed, mimic folded in), manipulability and velocity ellipsoids,
 * numerical inverse kinematics. None of the per-pose functions allocates: they
 * work in a kg_data (one per thread) and in work objects made once.
 * Rotations are row-major 3x3 matrices, quaternions (w, x, y, z), SI units. */
#ifndef KINEGRAPH_KINEMATICS_H
#define KINEGRAPH_KINEMATICS_H

#include <stdint.h>
#include "kinegraph/model.h"

KG_BEGIN_DECLS

/* Forward kinematics. */

/* Applies the mimic couplings to d->q, then computes the world pose of every
 * link (virtual links included) from d->q and the base pose. Allocates nothing. */
KG_API void kg_fk(const kg_model *m, kg_data *d);

/* Loop-closure error of loop k after kg_fk: position of the virtual link minus
 * position of its real link (world, m) and the angle (rad) of the relative
 * rotation between them. Both are zero when the loop is closed. */
KG_API void kg_loop_residual(const kg_model *m, const kg_data *d, int k, double dpos[3], double *dangle);

/* Jacobians: how link frames move with the joints.
 *
 * Columns are the model's independent coordinates (model->dof of them; joint j's
 * start at joint[j].dofadr): one per revolute, continuous and prismatic joint;
 * for a planar joint the two translations in its plane and the rotation about
 * its normal; for a floating joint three translations along, then three
 * rotations about, the axes of its joint frame (parent frame times origin), the
 * rotations through the child's origin; one per axis of a compound joint. A
 * mimic follower moves with its leader: its motion, times the multiplier, is
 * in the leader's column. Rows: the linear velocity of the reference point,
 * then the angular velocity, in world axes.
 *
 * Use: kg_fk, then kg_jacobian_twists (every joint's unit motion as a world
 * twist, in kg_data.twist: this is the "all-link Jacobian" data, any link's
 * Jacobian is a selection of it), then kg_jacobian for the links wanted. None
 * of these allocates.
 *
 * Closed loops: the coordinates are not independent there. kg_closure picks
 * generalized coordinates theta_G among the columns and expresses the others
 * (theta_S, the cut joints first) through them, theta_S' = H theta_G'
 * (Nakamura and Yamane), so that J_G = J W is the Jacobian with the loops
 * closed. */

/* Fills d->twist from the link poses of kg_fk. */
KG_API void kg_jacobian_twists(const kg_model *m, kg_data *d);

/* J (6 x model->dof, row-major): the motion of link `tip` at `point` (in the
 * tip's frame; NULL: its origin) relative to link `base` (-1: the world), in
 * world axes. Joints between the base and the common ancestor count negatively;
 * columns of joints off the path are zero. */
KG_API void kg_jacobian(const kg_model *m, const kg_data *d, int tip, const double point[3], int base, double *J);

/* Marks (mask[c] = 1) the columns that can move tip relative to base; returns
 * how many. mask: model->dof entries. */
KG_API int kg_jacobian_columns(const kg_model *m, int tip, int base, unsigned char *mask);

/* Loop closure: the generalized coordinates and W (dof x ngen, row-major) with
 * theta' = W theta_G' for all independent coordinates. */
typedef struct kg_closure {
    int ngen;          /* generalized coordinates: dof - rank of the closure constraints */
    int *gen;          /* [ngen] their columns */
    int rank;          /* independent closure constraints */
    double *W;         /* [dof x ngen] */
    double residual;   /* largest |J_C W| entry: 0 up to rounding */
} kg_closure;

/* Works for any model (without loops: W = identity). Allocates its arrays (free
 * with kg_closure_free); needs kg_fk and kg_jacobian_twists. The
 * generalized coordinates are chosen greedily: the cut joints' columns, then the
 * others from the last to the first, become dependent while they add to the
 * rank, so the joints nearest the root stay generalized. Returns 0, -1 when
 * out of memory. */
KG_API int kg_closure_solve(const kg_model *m, const kg_data *d, kg_closure *c);
KG_API void kg_closure_free(kg_closure *c);

/* The name of column c ("joint", or "joint.x" ... for joints with several). */
KG_API const char *kg_jacobian_column_name(const kg_model *m, int c, char *buf, unsigned long size);

/* Manipulability of a Jacobian (analysis/jacobian.h): how far the joints can
 * move the reference point and frame, and in which directions.
 *
 * For J with r rows and n columns, with singular values s_1 >= ... >= s_k
 * (k = min(r, n)):
 *   w = s_1 s_2 ... s_k  (Yoshikawa's sqrt(det(J J^T)) for n >= r; for fewer
 *                         columns than rows, sqrt(det(J^T J)), the volume the
 *                         joints can sweep in their own dimensions)
 *   inverse condition = s_k / s_1 (0 at a singularity)
 * The velocity ellipsoids: the image of the unit ball of joint rates under the
 * translational rows (and, apart, the rotational rows): axes are the left
 * singular vectors, semi-axis lengths the singular values. */

typedef struct kg_ellipsoid {
    double axes[9];   /* unit axes as columns (row-major 3x3), longest first */
    double length[3]; /* semi-axis lengths (m/s or rad/s per unit joint rate) */
} kg_ellipsoid;

typedef struct kg_manipulability {
    int nsigma;            /* min(6, columns) */
    double sigma[6];       /* singular values of J, largest first */
    double w;              /* product of the singular values */
    double inverse_condition;
    kg_ellipsoid translation, rotation;
} kg_manipulability;

/* J: 6 rows (linear, then angular) by n columns, row-major with leading
 * dimension ld. LAPACK's SVD (LAPACKE_dgesdd). Returns 0, -1 on failure. */
KG_API int kg_manipulability_svd(const double *J, int n, int ld, kg_manipulability *out);

/* w alone, fast (no allocation, no LAPACK): sqrt(det(J J^T)) through a Cholesky
 * factorisation of the 6x6 (or n x n) Gram matrix; 0 when it is singular. For
 * sampling (workspaces). */
KG_API double kg_manipulability_w(const double *J, int n, int ld);

/* Numerical inverse kinematics: joint values that put links (or points on them)
 * at target positions and orientations, and the centre of mass at a target,
 * within joint limits, with mimic couplings and closed loops kept.
 *
 * Method (irteus's, ../shared/docs/irteus-motion.md section 2): each iteration
 * stacks the targets' errors and Jacobian rows, expressed in each target's
 * frame so that axes can be left free (a target that constrains only some
 * position or rotation components keeps only those rows); errors larger than
 * a step are clipped. The step is the weighted damped least-squares solution
 *     dq = W J^T (J W J^T + k I)^-1 e
 * (or (J^T J + k W^-1)^-1 J^T e when there are more rows than columns), W the
 * joint-limit weights of Chan and Dubey (a joint moving towards a limit is
 * slowed by 1 / (1 + |dH/dq|)) times the user's, and k the damping that grows
 * as the manipulability w = sqrt(det(J W J^T)) falls below a limit:
 * k = gain (1 - w / limit)^2. Coordinates are clamped to their limits after
 * each step. A loop closure adds the six rows that pull its virtual link onto
 * its real link, with a high weight. When an attempt stalls, the solver
 * restarts from random joint values within limits (TRAC-IK's KDL-RR), keeping
 * the best pose found.
 *
 * Errors: position in m, rotation as the angle of the rotation still to do
 * (rad), both counted only along the constrained axes. */

/* Axes a target constrains, in the target's frame. */
enum {
    KG_IK_X = 1, KG_IK_Y = 2, KG_IK_Z = 4,       /* position components */
    KG_IK_RX = 8, KG_IK_RY = 16, KG_IK_RZ = 32,  /* rotation components (leaving RZ out lets the
                                                  * link turn about the target's z axis while
                                                  * its own z axis is held along it) */
    KG_IK_POSITION = 7, KG_IK_ROTATION = 56, KG_IK_POSE = 63
};

#define KG_IK_COM (-2) /* kg_ik_target.link: the model's centre of mass (position only) */

typedef struct kg_ik_target {
    int link;          /* the moving link, or KG_IK_COM */
    int base;          /* the target is in this link's frame (-1: the world) */
    double point[3];   /* on the link, in its frame */
    double pos[3];     /* target position, in the base's frame */
    double rot[9];     /* target orientation of the link, in the base's frame */
    unsigned axes;     /* KG_IK_* */
    double weight;     /* of its rows against other targets' (0 means 1) */
} kg_ik_target;

typedef struct kg_ik_options {
    double tol_pos, tol_rot;   /* success: every error below these (defaults 1e-5 m, 1e-5 rad) */
    int max_iterations;        /* in all (default 1000) */
    int attempt_iterations;    /* before a restart when the error stops falling (default 100) */
    double time_budget;        /* seconds (0: none); a budget makes the result depend on timing */
    double step_pos, step_rot; /* largest error used per iteration (defaults 0.1 m, 0.5 rad) */
    double damping_gain;       /* k's maximum (default 1e-6; irteus uses 1e-3 with its 1 mm
                                * tolerance, which at 1e-5 makes convergence slow: 97 % of UR5
                                * poses in 5 ms against 100 %) */
    double manipulability_limit; /* w below which damping starts (default 0.1) */
    double limit_gain;         /* joint-limit weighting gain (default 1; negative: none) */
    uint64_t seed;             /* for restarts */
    const unsigned char *active; /* [dof] columns allowed to move (NULL: those that move a target
                                  * relative to its base, and the loops they touch) */
    const double *weight;      /* [dof + 6] the user's weights (NULL: 1); the last six weigh the
                                * base's columns when it floats */
    const double *lower, *upper; /* [dof] limits for this solve instead of the model's (e.g.
                                  * narrowed by velocity limits); NULL: the model's */
    int floating_base;         /* move the root's pose (kg_data.base_pos, base_rot) too: six
                                * columns, translations along and rotations about the world axes */
    int restarts;              /* at most this many random restarts (0: no limit; -1: none) */
    double stall_gain;         /* stop once a step lowers the weighted cost by less than this
                                * fraction of it (0: never; for warm-started tracking, where
                                * the targets are not all reachable and the last iterations
                                * only polish) */
    const double *posture;     /* [nq] a pose to stay near where the targets leave freedom
                                * (NULL: none): adds posture_weight * |q - posture|^2 (rad,
                                * m) to the weighted cost, a target of weight 1 counting
                                * |error|^2; it resolves redundancy and keeps a first solve
                                * from a distant start out of twisted limb configurations */
    double posture_weight;
} kg_ik_options;

typedef struct kg_ik_result {
    int success;
    int iterations, restarts;
    double pos_error, rot_error; /* the worst over the targets (and loop closures), at the end */
    double seconds;
} kg_ik_result;

/* Scratch for a model and up to max_targets targets; reuse it across calls (the
 * solver allocates nothing). */
typedef struct kg_ik_work kg_ik_work;
KG_API kg_ik_work *kg_ik_work_new(const kg_model *m, int max_targets);
KG_API void kg_ik_work_free(kg_ik_work *w);

/* Defaults for every field. */
KG_API void kg_ik_defaults(kg_ik_options *o);

/* Solves from d->q; leaves d->q at the solution, or at the best pose found when
 * it fails (and d's link poses at that pose). Returns r->success. */
KG_API int kg_ik_solve(const kg_model *m, kg_data *d, const kg_ik_target *t, int nt, const kg_ik_options *o,
                kg_ik_work *w, kg_ik_result *r);

/* The centre of mass (world) and its Jacobian (3 x dof, row-major, world axes)
 * from the poses and twists in d (kg_fk, kg_jacobian_twists). NULL J: the COM
 * only. Returns the total mass. Allocates nothing: scratch holds 4 * nlink
 * doubles. */
KG_API double kg_com_jacobian(const kg_model *m, const kg_data *d, double com[3], double *J, double *scratch);

KG_END_DECLS

#endif
