/* Writing a model (and motion) to a file: the format from the name or an
 * explicit one, written to a temporary file and renamed, so a failed write never
 * leaves half a file behind. */
#ifndef KG_SAVE_H
#define KG_SAVE_H

#include "core/diag.h"
#include "core/model.h"
#include "core/motion.h"
#include "formats/ledger.h"

/* "urdf", "collada", "bvh", "csv", "json", "mjcf" (.xml), "gltf", "glb", "npz" from the name's extension, or NULL
 * ("lafan1", the headerless CSV layout of retargeted LAFAN1 clips, is only
 * chosen by name). */
const char *kg_output_format(const char *path);
/* Writes path; what the format cannot hold goes into the ledger (may be NULL).
 * Returns 0, -1 on an error (diagnostic added; no file written). */
int kg_save(const char *path, const char *format, const kg_model *m, const kg_motion *mo, kg_ledger *l,
            kg_diags *d);
/* The same with exporter options (exporters/exporters.h; its path is set here). */
struct kg_export_options;
int kg_save_with(const char *path, const char *format, const kg_model *m, const kg_motion *mo,
                 const struct kg_export_options *o, kg_ledger *l, kg_diags *d);

#endif
