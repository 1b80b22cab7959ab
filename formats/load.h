/* Reading a model from a file: format detection and dispatch to the importers. */
#ifndef KG_LOAD_H
#define KG_LOAD_H

#include <stddef.h>

#include "core/diag.h"
#include "core/model.h"
#include "core/motion.h"
#include "formats/resolve.h"

typedef struct kg_load_options {
    const char *format;   /* "urdf", ...; NULL to detect from the name and content */
    kg_resolver resolver; /* how package:// and relative paths resolve */
    double scale;         /* BVH: lengths are multiplied by this (0 means 1; the file's units) */
} kg_load_options;

/* Reads the file and builds its model. Returns NULL when no model can be built;
 * diagnostics (with file and line) say why. A model may come back with error
 * diagnostics too (see kg_builder_finish). */
kg_model *kg_load(const char *path, const kg_load_options *o, kg_diags *d);
/* The same for bytes already in memory; `name` is used for diagnostics and to
 * resolve relative paths. */
kg_model *kg_load_buffer(const char *name, const char *buf, size_t len, const kg_load_options *o,
                         kg_diags *d);
/* Model and motion (BVH; NULL motion for formats without one). Either output
 * may be NULL when not wanted. Returns the model (NULL on failure). */
kg_model *kg_load_clip(const char *path, const kg_load_options *o, kg_motion **motion, kg_diags *d);
kg_model *kg_load_clip_buffer(const char *name, const char *buf, size_t len, const kg_load_options *o,
                              kg_motion **motion, kg_diags *d);

/* "urdf", "collada", "bvh", or NULL when unknown. */
const char *kg_detect_format(const char *name, const char *buf, size_t len);

#endif
