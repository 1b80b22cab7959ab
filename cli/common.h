/* Shared pieces of the kinegraph command: option handling, model loading,
 * diagnostics printing and JSON output. The commands stay thin: parse
 * arguments, call the library, print. */
#ifndef KG_CLI_COMMON_H
#define KG_CLI_COMMON_H

#include <jansson.h>
#include <stdio.h>

#include "core/data.h"
#include "core/diag.h"
#include "core/model.h"
#include "core/motion.h"
#include "io/load.h"
#include "cli/options.h"

/* Exit codes (documented in the README and in `kinegraph --help`). */
enum {
    KG_EXIT_OK = 0,     /* done, and the input has no error diagnostics */
    KG_EXIT_ERRORS = 1, /* the input has errors (output is still printed when a model was built) */
    KG_EXIT_USAGE = 2,  /* bad command line (unknown option, bad --q, unknown joint, ...) */
    KG_EXIT_OUTPUT = 3, /* an output file could not be written */
    KG_EXIT_NO_SOLUTION = 4, /* a search found no answer (ik: no joint values reach the target) */
};

#define KG_MAX_PACKAGE_PATHS 64

typedef struct kg_cli {
    const char *command;
    const char *model_path;
    int json, verbose;
    const char *format;
    const char *package_paths[KG_MAX_PACKAGE_PATHS];
    int npackage_paths;
    double scale;       /* --scale (BVH lengths) */
    /* joint values and base pose (fk, mass) */
    const char *q_json, *q_file, *base, *frame;
    kg_motion *motion;  /* the input's motion, if it has one (BVH) */
    kg_diags diags;
    void *ctx;          /* the command's options struct, which its table's fields are in */
    /* A word that is not an option (kg_cli_parse): 0, or -1 after a usage error.
     * NULL: the word is the MODEL (one, required). */
    int (*operand)(struct kg_cli *c, char *word); /* word: one of argv */
} kg_cli;

/* Parses "x,y,z" (n numbers separated by commas) for option `name`; 0, or -1
 * after a usage error. */
int kg_cli_numbers(kg_cli *c, const char *name, const char *text, double *out, int n);
/* Option name's value text, when given (not NULL), as a positive finite number
 * into *out; 0, or -1 after a usage error. */
int kg_cli_positive(kg_cli *c, const char *name, const char *text, double *out);
/* A link of the model by name; -1 after a usage error naming the option. */
int kg_cli_link(kg_cli *c, const kg_model *m, const char *option, const char *name);

int kg_cli_usage_error(const char *command, const char *fmt, ...);

/* mo (of m) resampled to fps frames/s (--fps) into *out: 0, or KG_EXIT_ERRORS
 * after saying why on log, prefixed "kinegraph COMMAND: WHAT: " (more values,
 * coordinates and root pose, than KG_LIMIT_RESAMPLE_VALUES: code
 * resample.too_many_frames; no frame time; out of memory). */
int kg_cli_resample(const char *command, const char *what, const kg_model *m, const kg_motion *mo, double fps,
                    kg_motion **out, FILE *log);

/* Loads c->model_path (and its motion into c->motion); prints diagnostics to
 * stderr per `print_level` (errors always; warnings and info when at or above
 * print_level, all with --verbose). */
kg_model *kg_cli_load(kg_cli *c, kg_severity print_level);
/* c->motion becomes model m's motion read from path (a trajectory CSV at
 * csv_fps when it has no time column, a BVH or COLLADA file with m's
 * coordinates: io/motion_file.c), its warnings printed. Returns 0, or -1
 * after the errors were printed (c->motion is then NULL). */
int kg_cli_load_motion(kg_cli *c, const kg_model *m, const char *path, double csv_fps);
kg_load_options kg_cli_load_options(const kg_cli *c);
/* Frees what the command line state holds (diagnostics, motion). */
void kg_cli_done(kg_cli *c);
/* Compiler-style lines "file:line: severity: message [code]". */
void kg_cli_print_diags(const kg_cli *c, FILE *out, kg_severity min_level);
/* The same for the diagnostics from index `first` on (those an analysis added). */
void kg_cli_print_diags_from(const kg_cli *c, FILE *out, kg_severity min_level, size_t first);
/* Exit code for the loaded input: KG_EXIT_ERRORS if any error diagnostic. */
int kg_cli_status(const kg_cli *c);

/* Fills d->q and the base pose from --frame, then --q / --q-file / --base on
 * top. Returns 0, or KG_EXIT_USAGE after printing why. */
int kg_cli_apply_q(kg_cli *c, const kg_model *m, kg_data *d);

/* A JSON string (null for NULL); bytes that are not valid UTF-8 become '?'. */
json_t *kg_json_str(const char *s);
/* Numbers; null for NaN and infinities (JSON has neither). */
json_t *kg_json_num(double v);
struct kg_mass_props;
/* Adds error "mass.overflow" when the mass properties are not finite (returns 1). */
int kg_cli_mass_overflow(kg_cli *c, const struct kg_mass_props *mp);
json_t *kg_json_vec(const double *v, int n);
json_t *kg_json_mat3(const double *r);
json_t *kg_json_diags(const kg_diags *d);
/* Writes JSON to path (a temporary file renamed: all or nothing); 0 or -1. */
int kg_json_write_file(const json_t *j, const char *path);
/* Prints JSON to stdout; returns 0 or KG_EXIT_OUTPUT. Steals the reference. */
int kg_json_print(json_t *j);

/* Loads the model, applies --q/--q-file/--base and runs forward kinematics.
 * Returns 0, or an exit code (*m and *d may be set and must be freed). */
int kg_cli_pose(kg_cli *c, kg_model **m, kg_data **d);

#endif
