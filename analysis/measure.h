/* Size measures of a model. */
#ifndef KG_MEASURE_H
#define KG_MEASURE_H

#include "core/model.h"

/* Size of the body at joint vector q (NULL: the rest pose, q_default): the
 * largest extent, over the three coordinate axes, of the origins of the links
 * below the body's first branching link (found by going down from
 * model->root_body while links have one child, which skips a ground-level root
 * whose child carries the capture-space position). For a person standing this
 * is the height, in a T-pose the arm span, which is about the same. *axis gets
 * the axis (0, 1, 2 for x, y, z). */
double kg_body_size(const kg_model *m, const double *q, int *axis);

#endif
