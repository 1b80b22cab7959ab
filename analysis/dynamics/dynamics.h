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
 * aba.c (forward dynamics), centroidal.c (COM and centroidal momentum). */
#ifndef KG_DYNAMICS_H
#define KG_DYNAMICS_H

#include "core/data.h"

typedef struct kg_dyn_options {
    double gravity[3]; /* m/s^2, world axes; kg_dyn_default: (0, 0, -9.81) */
} kg_dyn_options;

extern const kg_dyn_options kg_dyn_default;

typedef struct kg_dyn kg_dyn;

/* The workspace for one model (one per thread). Never NULL (aborts when out
 * of memory, as the rest of the library's set-up does). */
kg_dyn *kg_dyn_new(const kg_model *m);
void kg_dyn_free(kg_dyn *w);

/* Everything that depends on the pose alone: the links' inertias and the joints'
 * motion subspaces in world axes. Needs kg_fk on d first (uses d->q for
 * compound joints, and the link poses). */
void kg_dyn_positions(const kg_model *m, const kg_data *d, kg_dyn *w);

/* Inverse dynamics: tau [nv] = M(q) a + C(q, v) v + g(q) - sum_links J_i^T fext_i.
 * v, a: [nv], NULL meaning zero; fext as above, NULL for none; opt NULL means
 * kg_dyn_default. */
void kg_dyn_rnea(const kg_model *m, kg_dyn *w, const kg_dyn_options *opt, const double *v, const double *a,
                 const double *fext, double *tau);
/* Inverse dynamics with the root link floating: the root moves at vbase, abase
 * ([6] each, NULL meaning zero: the velocity of the root's origin then its
 * angular velocity, world axes, as a floating joint's coordinates from a
 * static world; abase their time derivatives), the joints at v, a. tau [nv]
 * as kg_dyn_rnea; fbase ([6], may be NULL) the wrench the root needs on top of
 * fext to move so (force, then moment about the root's origin, world axes):
 * what a floating joint between the world and the root would carry, and zero
 * when fext are the contacts that make the motion happen. The root's own
 * pose is the data's base pose. */
void kg_dyn_rnea_floating(const kg_model *m, kg_dyn *w, const kg_dyn_options *opt, const double vbase[6],
                          const double abase[6], const double *v, const double *a, const double *fext, double *tau,
                          double fbase[6]);
/* tau = g(q): the generalised forces that hold the model still against gravity. */
void kg_dyn_gravity(const kg_model *m, kg_dyn *w, const kg_dyn_options *opt, double *tau);
/* tau = C(q, v) v + g(q): Coriolis, centrifugal and gravity. */
void kg_dyn_bias(const kg_model *m, kg_dyn *w, const kg_dyn_options *opt, const double *v, double *tau);

/* The joint-space mass matrix M(q), nv x nv row-major, both triangles filled. */
void kg_dyn_crba(const kg_model *m, kg_dyn *w, double *M);

/* Forward dynamics: a [nv] = M^-1 (tau - C v - g + sum J_i^T fext_i). tau, v:
 * [nv], NULL meaning zero. Returns 0, or the number of joints whose articulated
 * inertia is singular (a moving subtree without mass: a virtual link, a massless
 * end frame on a joint); the singular pivots of their joint's LDL^T are
 * dropped (no acceleration along those directions), so the answer is then one
 * choice among many, not an error. */
int kg_dyn_aba(const kg_model *m, kg_dyn *w, const kg_dyn_options *opt, const double *v, const double *tau,
               const double *fext, double *a);

/* Centre of mass and centroidal momentum. mass (kg) and com ([3], world) are
 * those of every link, the static root included (com NAN when massless). h
 * ([6], may be NULL): the linear momentum (kg m/s) then the angular momentum
 * about the COM (kg m^2/s), world axes, at velocity v. AG ([6 x nv] row-major,
 * may be NULL): the centroidal momentum matrix, h = AG v. */
void kg_dyn_centroidal(const kg_model *m, kg_dyn *w, const double *v, double *mass, double com[3], double h[6],
                       double *AG);

#endif
