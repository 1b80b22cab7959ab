/* Whole-file reading and atomic writing. A regular-file output is written to a
 * temporary file beside the target (created with O_EXCL) and renamed over it, so
 * a failure, SIGINT, SIGTERM or SIGHUP never leaves half a file; anything else
 * (standard output as "-", /dev/stdout, a FIFO, a device) is written in place. */
#ifndef KG_FILEIO_H
#define KG_FILEIO_H

#include <stddef.h>
#include <stdio.h>

#include "core/diag.h"

/* Largest input file accepted (bytes). */
#define KG_MAX_INPUT_SIZE ((size_t)1 << 30)

/* The name standard input goes by in diagnostics ("-" on the command line). */
#define KG_STDIN_NAME "<stdin>"

/* Reads a whole file into a NUL-terminated malloc'd buffer; NULL (and an error
 * diagnostic "io.read") on failure. */
char *kg_read_file(const char *path, size_t *len, kg_diags *d);

/* All of standard input (up to KG_MAX_INPUT_SIZE), like kg_read_file. */
char *kg_read_stdin(size_t *len, kg_diags *d);

/* Output: kg_out_open returns a stream on "<target>.tmp.<pid>.<n>" (a link to a
 * regular file: its target is replaced, the link kept), or on the target itself
 * when it is not a regular file ("-" is standard output); -1 with errno set when
 * it cannot (ENOMEM: out of memory, nothing created). kg_out_commit flushes, closes and renames the temporary over the
 * target (0 on success; on failure the temporary is removed); kg_out_abort
 * removes it (what was streamed in place stays written). */
typedef struct kg_out {
    FILE *f;
    char *path;   /* the target as named */
    char *tmp;    /* the temporary, NULL when written in place */
    char *dest;   /* what the temporary is renamed to */
    int in_place; /* 1 for standard output, a FIFO or a device */
} kg_out;

int kg_out_open(kg_out *o, const char *path);
int kg_out_commit(kg_out *o);
void kg_out_abort(kg_out *o);

/* Files written beside an output (meshes as STL, a glTF buffer): when the
 * output itself fails they are removed too, so that a conversion is whole or
 * absent. */
typedef struct kg_files {
    char **path;
    int n;
    int failed; /* a file could not be recorded (out of memory): the output must fail */
} kg_files;

/* Records path, a file or a folder made for them (f may be NULL: nothing is
 * kept). 0, or -1 when memory runs out: path is then removed at once (a
 * folder if empty) and f->failed set; the writer should stop, kg_save fails
 * with io.memory. */
int kg_files_add(kg_files *f, const char *path);
/* Removes every recorded file, newest first, and each recorded folder that is then empty. */
void kg_files_remove(kg_files *f);
void kg_files_clear(kg_files *f);

#endif
