/* kinegraph check: the results of checking many files, and the reports made of
 * them (cli/check_report.c: text, JSON, JUnit XML, HTML). */
#ifndef KG_CLI_CHECK_H
#define KG_CLI_CHECK_H

#include <stdio.h>

#include <jansson.h>

#include "core/diag.h"

/* What the HTML report draws of a model: its tree. */
typedef struct kg_check_tree {
    int nlink;
    char **name;       /* [nlink] link names */
    int *parent;       /* [nlink] parent link, -1 for the root */
    const char **joint_type; /* [nlink] type of the joint from the parent (static strings), NULL for the root */
    int *real;         /* [nlink] a virtual link's real link (a loop closure), else -1 */
} kg_check_tree;

typedef struct kg_check_result {
    const char *path;
    const char *format;  /* "urdf", "collada", "bvh", or "unknown" (static strings) */
    kg_diags diags;
    size_t count[3];     /* diagnostics by severity */
    int built;           /* a model was built */
    char *name;          /* the model's name */
    int nlink, njoint, dof, nloop, frames;
    double mass, seconds;
    kg_check_tree tree;  /* filled for the HTML report, a shard's results and summary */
    unsigned char *picture; /* the model at rest as a PNG, for the HTML report (NULL: none) */
    size_t picture_size;
    int resumed;         /* read back from a shard's result file (--skip-existing) */
} kg_check_result;

/* "error" when any error, "warning" when any warning, else "ok". */
const char *kg_check_status(const kg_check_result *r);

/* Reports over results[0..n) (in that order). Each returns 0, or -1 when the
 * file cannot be written (the file is written whole or not at all). */
void kg_check_print_text(FILE *f, const kg_check_result *r, int n, int verbose, double seconds);
int kg_check_write_json(const char *path, const kg_check_result *r, int n, double seconds, int jobs,
                        const char *shard);
int kg_check_write_junit(const char *path, const kg_check_result *r, int n, double seconds);
int kg_check_write_html(const char *path, const kg_check_result *r, int n, double seconds);

/* A file's entry of the JSON report ({"path", "format", "status", "findings",
 * "model", "seconds"}). */
json_t *kg_check_file_json(const kg_check_result *x);

/* Strings that outlive results read back: codes, formats and joint types
 * (interned: static strings elsewhere) and paths. */
typedef struct kg_check_pool {
    char **s;
    size_t n, cap;
} kg_check_pool;
const char *kg_check_pool_intern(kg_check_pool *p, const char *s);
const char *kg_check_pool_keep(kg_check_pool *p, const char *s);
void kg_check_pool_free(kg_check_pool *p);

/* One file's whole result, for a shard's result file and summary:
 * {"kinegraph": "check-result", "version", "path", "file": the report's entry,
 * "counts": [notes, warnings, errors], "dropped", "tree"}; read back into r
 * (its strings in pool), 0, or -1 when j is not one. Every report made of
 * results read back is the one made of the results themselves. */
json_t *kg_check_result_json(const kg_check_result *x);
int kg_check_result_read(const json_t *j, kg_check_result *r, kg_check_pool *pool);
/* Frees what a result holds (not its path and format). */
void kg_check_result_free(kg_check_result *r);

#endif
