/* Helpers shared by the cmocka tests. */
#ifndef KG_TESTUTIL_H
#define KG_TESTUTIL_H

#include <setjmp.h> /* cmocka needs these first */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>

#include <jansson.h>

#include "core/data.h"
#include "core/diag.h"
#include "core/model.h"

/* The third-party corpus: $KINEGRAPH_DATA, else ../shared/data beside the
 * checkout. NULL (and a printed notice) when it is absent. */
const char *kg_test_data_dir(void);
/* Skip the current test, saying why, when the corpus is absent. */
#define KG_REQUIRE_DATA(dir)                                                                \
    const char *dir = kg_test_data_dir();                                                   \
    do {                                                                                    \
        if (!dir) {                                                                         \
            printf("SKIPPED: %s needs the shared corpus (set KINEGRAPH_DATA)\n", __func__); \
            skip();                                                                         \
        }                                                                                   \
    } while (0)

/* The file a peer reference names: "@source/..." is in this source tree, anything
 * else under the corpus (data, which may be NULL). Returns 0 when the file
 * cannot be there (corpus absent). */
int kg_test_reference_file(const char *file, const char *data, char *path, size_t size);
/* A peer reference (tests/reference/...): its JSON, with *file its "file" and
 * path the file itself; NULL when that file cannot be there (corpus absent). */
json_t *kg_test_open_reference(const char *ref_path, const char *data, char *path, size_t size, const char **file);
/* A reference frame's size: its largest position coordinate (at least 1). */
double kg_test_frame_scale(json_t *nodes);
/* How far link i's pose in kd is from a reference node {"position", "rotation"}:
 * the largest position difference divided by scale, or rotation difference. */
double kg_test_pose_error(const kg_data *kd, int i, json_t *node, double scale);
/* Loads a model from a file, failing the test when it does not load. */
kg_model *kg_test_load(const char *path);
/* The planar four-bar: ground -J1-> L1 (crank a) -J2-> L2 (coupler c) -J3-> L3
 * (rocker b) -J4-> pivot, the pivot fixed to the ground at (d, 0, 0); joints of
 * the given type (revolute or continuous) about z. */
kg_model *kg_test_four_bar(double a, double c, double b, double d, kg_joint_type type, kg_diags *diags);
/* Loads a model from a string (named `name` for diagnostics). */
kg_model *kg_test_load_string(const char *name, const char *text, kg_diags *d);
/* Number of diagnostics with this code (and at least this severity). */
int kg_test_count(const kg_diags *d, const char *code);
/* First diagnostic with this code, or NULL. */
const kg_diag *kg_test_find(const kg_diags *d, const char *code);
/* Runs "kinegraph ARGS" (ARGS is shell text) with stdout and stderr in
 * DIR/out and DIR/err; returns its exit status, or -1 when it did not exit. */
int kg_test_run_kinegraph(const char *dir, const char *args);
/* The same, then its standard output and error read into *out and *err
 * (malloc'd, "" when empty). */
int kg_test_run_captured(const char *dir, const char *args, char **out, char **err);
/* Removes a directory and what it holds (rm -rf); returns the shell's status. */
int kg_test_remove_dir(const char *dir);
/* A whole file as a malloc'd string ("" when it cannot be read). */
char *kg_test_slurp(const char *path);
/* text (reallocated) with the first `from` after `at` replaced by `to`; fails the test when there is none. */
char *kg_test_replace_after(char *text, const char *at, const char *from, const char *to);
/* The same for each side of a humanoid, left then right: each %c in at, from and to stands for the side's
 * letter ('l', 'r'; at most 8 of them). */
char *kg_test_replace_sides(char *text, const char *at, const char *from, const char *to);
/* The sample humanoid's text (reallocated) with each foot's link, and the sole frame fixed to it, turned
 * a quarter turn about y (x up, z back): its joint axis, shapes and sole frame in the turned axes - the
 * same robot. */
char *kg_test_turn_sample_feet(char *text);
/* Prints all diagnostics (for failing tests). */
void kg_test_print_diags(const kg_diags *d);

/* |a - b| <= tol, with a message naming what was compared. */
#define KG_ASSERT_NEAR(a, b, tol)                                                                 \
    do {                                                                                          \
        double a_ = (a), b_ = (b), t_ = (tol);                                                    \
        if (!(fabs(a_ - b_) <= t_)) {                                                             \
            fail_msg("%s = %.17g, expected %s = %.17g (tolerance %g)", #a, a_, #b, b_, t_);       \
        }                                                                                         \
    } while (0)

#endif
