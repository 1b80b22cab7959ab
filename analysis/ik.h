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
#ifndef KG_IK_H
#define KG_IK_H

#include <stdint.h>

#include "core/data.h"

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
kg_ik_work *kg_ik_work_new(const kg_model *m, int max_targets);
void kg_ik_work_free(kg_ik_work *w);

/* Defaults for every field. */
void kg_ik_defaults(kg_ik_options *o);

/* Solves from d->q; leaves d->q at the solution, or at the best pose found when
 * it fails (and d's link poses at that pose). Returns r->success. */
int kg_ik_solve(const kg_model *m, kg_data *d, const kg_ik_target *t, int nt, const kg_ik_options *o,
                kg_ik_work *w, kg_ik_result *r);

/* The centre of mass (world) and its Jacobian (3 x dof, row-major, world axes)
 * from the poses and twists in d (kg_fk, kg_jacobian_twists). NULL J: the COM
 * only. Returns the total mass. Allocates nothing: scratch holds 4 * nlink
 * doubles. */
double kg_com_jacobian(const kg_model *m, const kg_data *d, double com[3], double *J, double *scratch);

#endif
