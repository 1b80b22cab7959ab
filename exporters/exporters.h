/* The exporters: each writes a model (and its motion) in one file format to an
 * open stream; formats/save.c picks one and makes the write atomic. They return
 * 0, or -1 after an error diagnostic saying what the format cannot hold. */
#ifndef KG_EXPORTERS_H
#define KG_EXPORTERS_H

#include <stdio.h>

#include "core/diag.h"
#include "core/model.h"
#include "core/motion.h"

/* BVH: the model must be a BVH skeleton (a static root link, compound joints of
 * x/y/z position and rotation channels, End Sites as fixed leaf joints). */
int kg_export_bvh(const kg_model *m, const kg_motion *mo, FILE *f, kg_diags *d);
/* Trajectories of any model with a motion (see the README for the columns). */
int kg_export_csv(const kg_model *m, const kg_motion *mo, FILE *f, kg_diags *d);
int kg_export_json(const kg_model *m, const kg_motion *mo, FILE *f, kg_diags *d);

#endif
