/* The model (include/kinegraph/model.h holds its declarations: the public API). */
#ifndef KG_MODEL_H
#define KG_MODEL_H

#include "kinegraph/model.h"

/* Every coordinate's name as trajectories write it (kg_coord_name's, of any
 * length), unique: a name an earlier coordinate took (a compound joint a's
 * axis b, "a.b", and a joint literally named "a.b"), or a trajectory's own
 * column's ("time", "root_x", ... "contact_right"), gets "#2", "#3", ... as
 * kg_strmap_unique makes it; a line break in a name is written '_'. names[k] for k < m->nq, freed by
 * kg_coord_names_free; NULL when memory runs out. Writers and readers of
 * trajectories use it alike, so a file reads back onto the coordinates it was
 * written from. */
char **kg_coord_names(const kg_model *m);
/* Coordinate k's joint name and, for a joint of several coordinates, its
 * label (NULL: the joint's name alone); 0 when no joint has it. */
int kg_coord_parts(const kg_model *m, int k, const char **joint, const char **label);
void kg_coord_names_free(char **names, int n);
/* Every velocity coordinate's name as torques files write their columns, of
 * any length and unique among themselves and against "time" (as
 * kg_coord_names); names[c] for c < m->nv, freed by kg_coord_names_free(names,
 * m->nv); NULL when memory runs out. */
char **kg_velocity_names(const kg_model *m);

#endif
