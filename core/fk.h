/* Forward kinematics. */
#ifndef KG_FK_H
#define KG_FK_H

#include "core/data.h"

/* Applies the mimic couplings to d->q, then computes the world pose of every
 * link (virtual links included) from d->q and the base pose. Allocates nothing. */
void kg_fk(const kg_model *m, kg_data *d);

/* Loop-closure error of loop k after kg_fk: position of the virtual link minus
 * position of its real link (world, m) and the angle (rad) of the relative
 * rotation between them. Both are zero when the loop is closed. */
void kg_loop_residual(const kg_model *m, const kg_data *d, int k, double dpos[3], double *dangle);

#endif
