/* The importers: each turns the bytes of one file format into a model through
 * the builder (core/builder.h). They are called by kg_load (formats/load.h). */
#ifndef KG_IMPORTERS_H
#define KG_IMPORTERS_H

#include "formats/load.h"

kg_model *kg_import_urdf(const char *file, const char *buf, size_t len, const kg_load_options *o,
                         kg_diags *d);

#endif
