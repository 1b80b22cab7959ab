#define _POSIX_C_SOURCE 200809L
#include "cli/common.h"

#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "core/fk.h"
#include "core/spatial.h"
#include "analysis/mass.h"
#include "formats/fileio.h"
#include "io/motion_file.h"
#include "formats/limits.h"
#include "formats/xml.h"

int kg_cli_resample(const char *command, const char *what, const kg_model *m, const kg_motion *mo, double fps,
                    kg_motion **out, FILE *log) {
    const int per_frame = mo->nq + (mo->base ? 7 : 0);
    double frames = kg_motion_resampled_frames(mo, fps), values = frames * per_frame;
    const unsigned long long limit = KG_LIMIT(KG_LIMIT_RESAMPLE_VALUES);
    const char *why = NULL;
    *out = NULL;
    if (frames < 0 || mo->nq != m->nq) why = "the motion has no frame time, or is not the model's";
    else if (frames > INT_MAX) why = "more frames than a motion holds (2^31 - 1)";
    else if (values > (double)limit) {
        fprintf(log, "kinegraph %s: %s: error: %g frames/s makes %.0f frames of %d values, more than "
                "KG_LIMIT_RESAMPLE_VALUES (%llu; the environment variable of that name raises it) "
                "[resample.too_many_frames]\n", command, what, fps, frames, per_frame, limit);
        return KG_EXIT_ERRORS;
    } else if (!(*out = kg_motion_resample(m, mo, fps))) why = "out of memory";
    if (!why) return 0;
    fprintf(log, "kinegraph %s: %s: error: cannot resample to %g frames/s (%s)\n", command, what, fps, why);
    return KG_EXIT_ERRORS;
}

int kg_cli_usage_error(const char *command, const char *fmt, ...) {
    va_list ap;
    fprintf(stderr, "kinegraph%s%s: ", command ? " " : "", command ? command : "");
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fprintf(stderr, "\n(see 'kinegraph %s%s--help')\n", command ? command : "", command ? " " : "");
    return KG_EXIT_USAGE;
}

void kg_cli_print_diags(const kg_cli *c, FILE *out, kg_severity min_level) {
    kg_cli_print_diags_from(c, out, min_level, 0);
}

void kg_cli_print_diags_from(const kg_cli *c, FILE *out, kg_severity min_level, size_t first) {
    size_t hidden = 0;
    const char *about = NULL; /* the file the hidden warnings are about, when it is one */
    for (size_t i = first; i < c->diags.count; i++) {
        const kg_diag *g = &c->diags.items[i];
        if (g->severity < min_level) {
            if (g->severity == KG_WARNING && hidden++ == 0) about = g->file;
            else if (g->severity == KG_WARNING && about && (!g->file || strcmp(about, g->file))) about = NULL;
            continue;
        }
        if (g->file && g->line) fprintf(out, "%s:%d: ", g->file, g->line);
        else if (g->file) fprintf(out, "%s: ", g->file);
        fprintf(out, "%s: %s [%s]\n", kg_severity_name(g->severity), g->message, g->code);
    }
    if (c->diags.dropped)
        fprintf(out, "kinegraph: %zu more diagnostics not shown\n", c->diags.dropped);
    if (hidden) /* a clip's as well as a robot's: name the file */
        fprintf(out, "kinegraph: %zu warning%s about %s (see 'kinegraph info' or --verbose)\n", hidden,
                hidden == 1 ? "" : "s", about ? about : "the input");
}

kg_load_options kg_cli_load_options(const kg_cli *c) {
    kg_load_options o = {0};
    o.format = c->format;
    o.resolver.package_paths = c->package_paths;
    o.resolver.npackage_paths = c->npackage_paths;
    o.scale = c->scale;
    return o;
}

void kg_cli_done(kg_cli *c) {
    kg_diags_clear(&c->diags);
    kg_motion_free(c->motion);
    c->motion = NULL;
}

kg_model *kg_cli_load(kg_cli *c, kg_severity print_level) {
    kg_load_options o = kg_cli_load_options(c);
    kg_model *m = kg_load_clip(c->model_path, &o, &c->motion, &c->diags);
    kg_cli_print_diags(c, stderr, c->verbose ? KG_INFO : print_level);
    return m;
}

int kg_cli_load_motion(kg_cli *c, const kg_model *m, const char *path, double csv_fps) {
    kg_load_options lo = kg_cli_load_options(c);
    size_t before = c->diags.count;
    kg_motion *mo = kg_load_motion_for(m, path, &lo, csv_fps, &c->diags);
    kg_cli_print_diags_from(c, stderr, KG_WARNING, before);
    kg_motion_free(c->motion);
    c->motion = mo;
    return mo ? 0 : -1;
}

int kg_cli_status(const kg_cli *c) {
    return kg_diags_count(&c->diags, KG_ERROR) ? KG_EXIT_ERRORS : KG_EXIT_OK;
}

static int set_joint_value(kg_cli *c, const kg_model *m, kg_data *d, const char *name, json_t *v) {
    int j = kg_model_joint(m, name);
    if (j < 0) {
        kg_cli_usage_error(c->command, "--q names joint '%s', which the model does not have", name);
        return -1;
    }
    const kg_joint *J = &m->joint[j];
    if (J->nq == 0) {
        kg_cli_usage_error(c->command, "--q names joint '%s', which is fixed and has no value", name);
        return -1;
    }
    if (J->mimic >= 0) {
        kg_cli_usage_error(c->command,
                           "--q names joint '%s', which mimics joint '%s'; set '%s' instead", name,
                           m->joint[m->mimic[J->mimic].leader].name, m->joint[m->mimic[J->mimic].leader].name);
        return -1;
    }
    if (J->nq == 1) {
        if (!json_is_number(v)) {
            kg_cli_usage_error(c->command, "--q: the value of joint '%s' must be a number", name);
            return -1;
        }
        d->q[J->qadr] = json_number_value(v);
        return 0;
    }
    if (!json_is_array(v) || (int)json_array_size(v) != J->nq) {
        kg_cli_usage_error(c->command, "--q: %s joint '%s' takes an array of %d numbers", kg_joint_type_name(J->type),
                           name, J->nq);
        return -1;
    }
    for (int k = 0; k < J->nq; k++) {
        json_t *x = json_array_get(v, (size_t)k);
        if (!json_is_number(x)) {
            kg_cli_usage_error(c->command, "--q: the values of joint '%s' must be numbers", name);
            return -1;
        }
        d->q[J->qadr + k] = json_number_value(x);
    }
    return 0;
}

int kg_cli_apply_q(kg_cli *c, const kg_model *m, kg_data *d) {
    if (c->q_json && c->q_file)
        return kg_cli_usage_error(c->command, "give either --q or --q-file, not both");
    if (c->frame) {
        char *end;
        long f = strtol(c->frame, &end, 10);
        if (!c->motion) return kg_cli_usage_error(c->command, "--frame: the input has no motion");
        if (end == c->frame || *end || f < 0 || f >= c->motion->nframes)
            return kg_cli_usage_error(c->command, "--frame: '%s' is not a frame from 0 to %d", c->frame,
                                      c->motion->nframes - 1);
        kg_motion_pose(c->motion, (int)f, d);
    }
    json_t *q = NULL;
    json_error_t err;
    if (c->q_json) {
        q = json_loads(c->q_json, 0, &err);
        if (!q) return kg_cli_usage_error(c->command, "--q is not valid JSON: %s", err.text);
    } else if (c->q_file) {
        q = json_load_file(c->q_file, 0, &err);
        if (!q) return kg_cli_usage_error(c->command, "--q-file %s: %s (line %d)", c->q_file, err.text, err.line);
    }
    if (q) {
        if (!json_is_object(q)) {
            json_decref(q);
            return kg_cli_usage_error(c->command, "--q must be a JSON object mapping joint names to values");
        }
        const char *key;
        json_t *v;
        json_object_foreach(q, key, v) {
            if (set_joint_value(c, m, d, key, v) != 0) {
                json_decref(q);
                return KG_EXIT_USAGE;
            }
        }
        json_decref(q);
    }
    if (c->base) {
        double b[7] = {0, 0, 0, 1, 0, 0, 0};
        char *copy = strdup(c->base);
        int n = 0;
        for (char *tok = strtok(copy, ","); tok; tok = strtok(NULL, ",")) {
            double v;
            if (n == 7 || kg_parse_doubles(tok, &v, 1) != 0) {
                n = -1;
                break;
            }
            b[n++] = v;
        }
        free(copy);
        if (n != 3 && n != 7)
            return kg_cli_usage_error(c->command, "--base takes X,Y,Z or X,Y,Z,QW,QX,QY,QZ");
        kg_data_set_base(d, b, b + 3);
    }
    return 0;
}

json_t *kg_json_str(const char *s) {
    if (!s) return json_null();
    json_t *j = json_string(s);
    if (j) return j;
    /* not valid UTF-8 (a truncated message, an odd file name): replace bad bytes */
    char *copy = strdup(s);
    for (unsigned char *p = (unsigned char *)copy; *p; p++)
        if (*p >= 0x80) *p = '?';
    j = json_string(copy);
    free(copy);
    return j;
}

int kg_cli_mass_overflow(kg_cli *c, const struct kg_mass_props *mp) {
    int ok = isfinite(mp->mass);
    for (int k = 0; k < 3; k++) ok = ok && (!(mp->mass > 0) || isfinite(mp->com[k]));
    for (int k = 0; k < 9; k++) ok = ok && isfinite(mp->inertia[k]);
    if (ok) return 0;
    /* doubles overflow past 1.8e308: a mass of 1e308 twice, or m d^2 of one */
    kg_diag_add(&c->diags, KG_ERROR, "mass.overflow", c->model_path, 0, NULL,
                "the model's mass properties overflow (masses or inertias near the largest double): "
                "the total mass, centre of mass or inertia is not a finite number (null in JSON)");
    return 1;
}

json_t *kg_json_num(double v) { return isfinite(v) ? json_real(v) : json_null(); }

json_t *kg_json_vec(const double *v, int n) {
    json_t *a = json_array();
    for (int i = 0; i < n; i++) json_array_append_new(a, kg_json_num(v[i]));
    return a;
}

json_t *kg_json_mat3(const double *r) {
    json_t *a = json_array();
    for (int i = 0; i < 3; i++) json_array_append_new(a, kg_json_vec(r + 3 * i, 3));
    return a;
}

json_t *kg_json_diags(const kg_diags *d) {
    json_t *a = json_array();
    for (size_t i = 0; i < d->count; i++) {
        const kg_diag *g = &d->items[i];
        json_t *o = json_object();
        json_object_set_new(o, "severity", json_string(kg_severity_name(g->severity)));
        json_object_set_new(o, "code", json_string(g->code));
        json_object_set_new(o, "message", kg_json_str(g->message));
        json_object_set_new(o, "file", kg_json_str(g->file));
        json_object_set_new(o, "line", g->line ? json_integer(g->line) : json_null());
        json_object_set_new(o, "element", kg_json_str(g->element));
        json_object_set_new(o, "hint", kg_json_str(kg_diag_hint(g->code)));
        json_array_append_new(a, o);
    }
    return a;
}

int kg_json_print(json_t *j) {
    /* 17 significant digits: every double reads back exactly */
    int rc = json_dumpf(j, stdout, JSON_INDENT(1) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(17));
    json_decref(j);
    if (rc != 0 || fputc('\n', stdout) == EOF || fflush(stdout) != 0) return KG_EXIT_OUTPUT;
    return 0;
}

int kg_json_write_file(const json_t *j, const char *path) {
    kg_out f;
    if (kg_out_open(&f, path) != 0) return -1;
    if (json_dumpf(j, f.f, JSON_INDENT(1) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(17)) != 0 || fputc('\n', f.f) == EOF) {
        kg_out_abort(&f);
        return -1;
    }
    return kg_out_commit(&f);
}

int kg_cli_pose(kg_cli *c, kg_model **m, kg_data **d) {
    *m = kg_cli_load(c, KG_ERROR);
    *d = NULL;
    if (!*m) return KG_EXIT_ERRORS;
    *d = kg_data_new(*m);
    int rc = kg_cli_apply_q(c, *m, *d);
    if (rc) return rc;
    kg_fk(*m, *d);
    return 0;
}

int kg_cli_numbers(kg_cli *c, const char *name, const char *text, double *out, int n) {
    char buf[512];
    snprintf(buf, sizeof buf, "%s", text);
    for (char *p = buf; *p; p++)
        if (*p == ',') *p = ' ';
    if (kg_parse_doubles(buf, out, n) == 0) return 0;
    if (n == 1) kg_cli_usage_error(c->command, "%s needs a finite number, not '%s'", name, text);
    else kg_cli_usage_error(c->command, "%s needs %d finite numbers separated by commas, not '%s'", name, n, text);
    return -1;
}

int kg_cli_positive(kg_cli *c, const char *name, const char *text, double *out) {
    char *end;
    if (!text) return 0;
    double v = strtod(text, &end);
    if (end == text || *end || !(v > 0) || !isfinite(v)) {
        kg_cli_usage_error(c->command, "%s needs a positive number, not '%s'", name, text);
        return -1;
    }
    *out = v;
    return 0;
}

int kg_cli_link(kg_cli *c, const kg_model *m, const char *option, const char *name) {
    int i = kg_model_link(m, name);
    if (i < 0) kg_cli_usage_error(c->command, "%s: the model has no link '%s'", option, name);
    return i;
}
