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
#ifndef KG_JACOBIAN_H
#define KG_JACOBIAN_H

#include "core/data.h"

/* Fills d->twist from the link poses of kg_fk. */
void kg_jacobian_twists(const kg_model *m, kg_data *d);

/* J (6 x model->dof, row-major): the motion of link `tip` at `point` (in the
 * tip's frame; NULL: its origin) relative to link `base` (-1: the world), in
 * world axes. Joints between the base and the common ancestor count negatively;
 * columns of joints off the path are zero. */
void kg_jacobian(const kg_model *m, const kg_data *d, int tip, const double point[3], int base, double *J);

/* Marks (mask[c] = 1) the columns that can move tip relative to base; returns
 * how many. mask: model->dof entries. */
int kg_jacobian_columns(const kg_model *m, int tip, int base, unsigned char *mask);

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
int kg_closure_solve(const kg_model *m, const kg_data *d, kg_closure *c);
void kg_closure_free(kg_closure *c);

/* The name of column c ("joint", or "joint.x" ... for joints with several). */
const char *kg_jacobian_column_name(const kg_model *m, int c, char *buf, unsigned long size);

#endif
