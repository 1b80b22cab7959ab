/* The importers: each turns the bytes of one file format into a model through
 * the builder (core/builder.h). They are called by kg_load (io/load.c, the layer above them). */
#ifndef KG_IMPORTERS_H
#define KG_IMPORTERS_H

#include "formats/resolve.h"
#include "kinegraph/io.h"

#include <stdio.h>

/* Reads BVH as a stream from f; file_size (or -1) bounds what a lying frame
 * count may reserve. *motion receives the frames. */
kg_model *kg_import_bvh(const char *file, FILE *f, long file_size, const kg_load_options *o, kg_motion **motion,
                        kg_diags *d);
/* COLLADA: 1.5 kinematics, or a node tree with animations (buf: the .dae
 * document, read from a .zae if need be). *motion (may be NULL) receives the
 * animation, or NULL. */
kg_model *kg_import_collada(const char *file, const char *buf, size_t len, const kg_load_options *o, kg_motion **motion,
                            kg_diags *d);
kg_model *kg_import_urdf(const char *file, const char *buf, size_t len, const kg_load_options *o,
                         kg_diags *d);
/* kg_import_srdf_pairs, kg_import_trajectory_csv: include/kinegraph/io.h */

#endif
