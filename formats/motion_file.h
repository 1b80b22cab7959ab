/* A motion for a given model, read from a file of its own (`convert MODEL OUT
 * --motion FILE`):
 *
 *  - a trajectory CSV, read by kg_import_trajectory_csv (importers/importers.h):
 *    kinegraph's layout (a header: time, root_x, root_y, root_z, root_qw,
 *    root_qx, root_qy, root_qz, then coordinates by name, as `convert` and
 *    `retarget --csv-layout kinegraph` write it; the frame time from the time
 *    column), or the headerless LAFAN1 layout `retarget` writes by default (x,
 *    y, z, qx, qy, qz, qw, then the model's coordinates but the mimic
 *    followers', in order; its rate is not in the file: csv_fps);
 *  - any clip kinegraph reads (BVH, COLLADA with an animation): its coordinates
 *    are matched to the model's by name (kg_coord_name), its root pose taken
 *    over when it has one (a robot's floating base).
 *
 * The root columns of a CSV are the world pose of model->root_body: they set the
 * motion's base when that is the root link (a robot), and are implied by the
 * coordinates otherwise (a BVH skeleton's ROOT joint). Mimic followers are
 * recomputed from their leaders. Returns NULL after an error diagnostic. */
#ifndef KG_MOTION_FILE_H
#define KG_MOTION_FILE_H

#include "core/diag.h"
#include "core/model.h"
#include "core/motion.h"
#include "formats/load.h"

/* csv_fps: the frame rate of a CSV (0: a headed one's time column, else 30,
 * LAFAN1's, said in an info diagnostic). o: how the clip is read (may be NULL). */
kg_motion *kg_load_motion_for(const kg_model *m, const char *path, const kg_load_options *o, double csv_fps,
                              kg_diags *d);

#endif
