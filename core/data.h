/* Per-thread working state for one model (like MuJoCo's mjData): the joint
 * vector, the pose of the root, and the results of kinematics. A model can have
 * any number of kg_data; nothing in a kg_data is shared. */
#ifndef KG_DATA_H
#define KG_DATA_H

#include "core/model.h"

typedef struct kg_data {
    const kg_model *model;
    double *q;           /* [nq] joint coordinates (see core/model.h) */
    double base_pos[3];  /* world pose of the root link; identity by default */
    double base_rot[9];
    double *link_pos;    /* [3 * nlink] world position of each link frame, after kg_fk */
    double *link_rot;    /* [9 * nlink] world rotation of each link frame (row-major) */
    double *sincos;      /* [2 * nq] scratch: sin and cos of the angular coordinates */
    double *twist;       /* [6 * nv] per velocity coordinate, its unit motion as a world twist:
                          * linear velocity of the point at the world origin, then angular
                          * velocity (analysis/jacobian.h fills it after kg_fk) */
} kg_data;

/* q starts at model->q_default (zero, identity quaternions). */
kg_data *kg_data_new(const kg_model *m);
void kg_data_free(kg_data *d);

/* Sets the root's world pose from a position and a quaternion (w, x, y, z); the
 * quaternion is normalised. */
void kg_data_set_base(kg_data *d, const double pos[3], const double quat[4]);

/* follower = multiplier * leader + offset for every mimic coupling, in order. */
void kg_apply_mimic(const kg_model *m, double *q);

/* q += dt * v, v a velocity of the independent coordinates (model->dof values,
 * ordered as Jacobian columns, analysis/jacobian.h). Coordinates add; a
 * floating joint's rotation (columns 4-6: angular velocity in its joint frame)
 * composes with its quaternion, which stays unit. Mimic followers are then
 * recomputed. */
void kg_q_integrate(const kg_model *m, double *q, const double *v, double dt);

/* For every Jacobian column: the coordinate it moves (an index in q; -1 for the
 * rotation columns of floating joints) and its position limits (-inf/+inf
 * when it has none: continuous joints, unlimited axes, floating and planar
 * joints). Any of the arrays may be NULL. */
void kg_dof_coords(const kg_model *m, int *qidx, double *lower, double *upper);

#endif
