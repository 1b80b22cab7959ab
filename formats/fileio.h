/* Whole-file reading and atomic writing. Outputs are written to a temporary file
 * beside the target and renamed over it, so a failure never leaves half a file. */
#ifndef KG_FILEIO_H
#define KG_FILEIO_H

#include <stddef.h>
#include <stdio.h>

#include "core/diag.h"

/* Largest input file accepted (bytes). */
#define KG_MAX_INPUT_SIZE ((size_t)1 << 30)

/* Reads a whole file into a NUL-terminated malloc'd buffer; NULL (and an error
 * diagnostic "io.read") on failure. */
char *kg_read_file(const char *path, size_t *len, kg_diags *d);

/* Atomic output: kg_out_open returns a stream on "<path>.tmp.<pid>"; kg_out_commit
 * flushes, closes and renames it to path (0 on success); kg_out_abort removes it. */
typedef struct kg_out {
    FILE *f;
    char *path, *tmp;
} kg_out;

int kg_out_open(kg_out *o, const char *path);
int kg_out_commit(kg_out *o);
void kg_out_abort(kg_out *o);

#endif
