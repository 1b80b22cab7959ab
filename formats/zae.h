/* .zae archives: a zip holding a COLLADA document (and its resources). The root
 * document is the one manifest.xml names in <dae_root>, or else the only .dae in
 * the archive. */
#ifndef KG_ZAE_H
#define KG_ZAE_H

#include <stddef.h>

#include "core/diag.h"

/* Reads the root document of the archive at path into a malloc'd, NUL-terminated
 * buffer; *inner gets its name inside the archive (malloc'd). NULL on failure,
 * with an error diagnostic. */
char *kg_zae_read(const char *path, size_t *len, char **inner, kg_diags *d);
/* The same for an archive in memory (standard input); `name` for diagnostics. */
char *kg_zae_read_buffer(const char *name, const char *data, size_t size, size_t *len, char **inner, kg_diags *d);

#endif
