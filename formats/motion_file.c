#include "formats/motion_file.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "core/arena.h"
#include "core/fk.h"
#include "formats/fileio.h"
#include "formats/number.h"

/* ---- CSV -------------------------------------------------------------------------- */

/* The fields of the line at *p (RFC 4180 quoting), unquoted in place; advances *p
 * past the line end. Returns the number of fields (at most max; more is -1). */
static int fields(char **p, char **out, int max) {
    char *s = *p;
    int n = 0;
    for (;;) {
        if (n == max) return -1;
        char *w = s;
        out[n++] = w;
        if (*s == '"') {
            for (s++;; s++) {
                if (!*s) break;
                if (*s == '"' && s[1] == '"') *w++ = '"', s++;
                else if (*s == '"') {
                    s++;
                    break;
                } else *w++ = *s;
            }
            while (*s && *s != ',' && *s != '\n' && *s != '\r') s++;
        } else {
            while (*s && *s != ',' && *s != '\n' && *s != '\r') *w++ = *s++;
        }
        char c = *s;
        *w = 0;
        if (c == ',') {
            s++;
            continue;
        }
        if (c == '\r') s++;
        if (c == '\n' || (c == '\r' && *s == '\n')) s++;
        *p = s;
        return n;
    }
}

static int number(const char *s, double *v) {
    while (*s == ' ') s++;
    const char *e = kg_parse_number(s, v);
    if (!e) return -1;
    while (*e == ' ') e++;
    return *e || !isfinite(*v) ? -1 : 0;
}

static int is_follower_coord(const kg_model *m, int k) {
    for (int j = 0; j < m->njoint; j++)
        if (k >= m->joint[j].qadr && k < m->joint[j].qadr + m->joint[j].nq) return m->joint[j].mimic >= 0;
    return 0;
}

static const char *const header[8] = {"time", "root_x", "root_y", "root_z", "root_qw", "root_qx", "root_qy", "root_qz"};

static kg_motion *read_csv(const kg_model *m, const char *path, double csv_fps, kg_diags *d) {
    size_t len;
    char *text = kg_read_file(path, &len, d);
    if (!text) return NULL;
    int max = m->nq + 64, line = 0;
    char **f = kg_xmalloc((size_t)max * sizeof *f);
    int *col = NULL; /* column -> coordinate (-1: not one of m's) */
    int ncol = 0, headed = 0, base = m->root_body == 0;
    kg_motion *mo = NULL;
    double t0 = 0, t_last = 0;
    char *p = text, name[1100];
    if (len >= 3 && !memcmp(p, "\xEF\xBB\xBF", 3)) p += 3; /* a UTF-8 byte order mark (spreadsheets write one) */
    int failed = 0;
    while (*p && !failed) {
        line++;
        int n = fields(&p, f, max);
        if (n == 1 && !f[0][0]) continue; /* an empty line */
        if (n < 0) {
            kg_diag_add(d, KG_ERROR, "motion.csv", path, line, NULL, "more than %d columns", max);
            failed = 1;
            break;
        }
        if (!mo) { /* the first line: a header, or the first frame of the headerless layout */
            double v;
            headed = number(f[0], &v) != 0;
            ncol = n;
            col = kg_xmalloc((size_t)n * sizeof *col);
            for (int c = 0; c < n; c++) col[c] = -1;
            if (headed) {
                for (int c = 0; c < 8; c++)
                    if (c >= n || strcmp(f[c], header[c])) {
                        kg_diag_add(d, KG_ERROR, "motion.csv", path, line, NULL,
                                    "not a trajectory CSV: the header starts with %s, not time, root_x, root_y, root_z, "
                                    "root_qw, root_qx, root_qy, root_qz",
                                    c < n ? f[c] : "fewer columns");
                        failed = 1;
                        break;
                    }
                int unknown = 0;
                for (int c = 8; !failed && c < n; c++) {
                    col[c] = -1;
                    for (int k = 0; k < m->nq && col[c] < 0; k++)
                        if (!strcmp(kg_coord_name(m, k, name, sizeof name), f[c])) col[c] = k;
                    if (col[c] < 0 && unknown++ == 0)
                        kg_diag_add(d, KG_WARNING, "motion.csv_column", path, line, NULL,
                                    "column '%s' is no coordinate of %s: not read", f[c], m->name ? m->name : "the model");
                }
                if (unknown > 1)
                    kg_diag_add(d, KG_WARNING, "motion.csv_column", path, line, NULL,
                                "%d columns in all are no coordinates of the model: not read", unknown);
                for (int k = 0, missing = 0; !failed && k < m->nq; k++) {
                    int found = 0;
                    for (int c = 8; c < n && !found; c++) found = col[c] == k;
                    if (!found && !is_follower_coord(m, k) && missing++ == 0)
                        kg_diag_add(d, KG_WARNING, "motion.csv_missing", path, line, NULL,
                                    "no column for coordinate '%s': its rest value is used",
                                    kg_coord_name(m, k, name, sizeof name));
                }
                if (failed) break;
            } else { /* x y z qx qy qz qw, then the coordinates without followers, or all */
                int leaders = 0;
                for (int k = 0; k < m->nq; k++) leaders += !is_follower_coord(m, k);
                if (n != 7 + leaders && n != 7 + m->nq) {
                    kg_diag_add(d, KG_ERROR, "motion.csv", path, line, NULL,
                                "%d columns: a headerless (LAFAN1 layout) CSV for this model has 7 + %d (root x, y, z, "
                                "qx, qy, qz, qw and its coordinates without the mimic followers) or 7 + %d (all)",
                                n, leaders, m->nq);
                    failed = 1;
                    break;
                }
                for (int c = 0; c < 7; c++) col[c] = -1;
                for (int k = 0, c = 7; k < m->nq; k++)
                    if (n == 7 + m->nq || !is_follower_coord(m, k)) col[c++] = k;
                if (!(csv_fps > 0)) {
                    csv_fps = 30;
                    kg_diag_add(d, KG_INFO, "motion.csv_rate", path, 0, NULL,
                                "a headerless CSV does not say its frame rate: 30 frames/s (LAFAN1's) is assumed");
                }
            }
            mo = kg_motion_new(m->nq, headed ? 0 : 1 / csv_fps, 256);
            if (base) mo->base = kg_xmalloc(mo->cap * 7 * sizeof(double));
            if (headed) continue;
        }
        if (n != ncol) {
            kg_diag_add(d, KG_ERROR, "motion.csv", path, line, NULL, "%d columns where the first line has %d", n, ncol);
            failed = 1;
            break;
        }
        double *q = kg_motion_append(mo, m->q_default), root[7] = {0, 0, 0, 1, 0, 0, 0};
        for (int c = 0; c < n && !failed; c++) {
            double v;
            if (number(f[c], &v) != 0) {
                kg_diag_add(d, KG_ERROR, "motion.csv", path, line, NULL, "column %d: '%s' is not a number", c + 1, f[c]);
                failed = 1;
            } else if (headed && c == 0) {
                if (mo->nframes == 1) t0 = v;
                t_last = v;
            } else if (headed && c < 8) {
                root[c - 1] = v;
            } else if (!headed && c < 7) { /* qw last: w first */
                if (c < 3) root[c] = v;
                else if (c < 6) root[c + 1] = v;
                else root[3] = v;
            } else if (col[c] >= 0) {
                q[col[c]] = v;
            }
        }
        kg_apply_mimic(m, q);
        if (base && !failed) memcpy(mo->base + 7 * (size_t)(mo->nframes - 1), root, sizeof root);
    }
    if (!failed && (!mo || mo->nframes == 0)) {
        kg_diag_add(d, KG_ERROR, "motion.csv", path, line, NULL, "no frames");
        failed = 1;
    }
    if (!failed && headed) {
        mo->start_time = t0;
        mo->frame_time = mo->nframes > 1 ? (t_last - t0) / (mo->nframes - 1) : 1.0 / 30;
        if (!(mo->frame_time > 0)) {
            kg_diag_add(d, KG_ERROR, "motion.csv", path, 0, NULL, "the times do not increase");
            failed = 1;
        }
    }
    free(text), free(f), free(col);
    if (failed) {
        kg_motion_free(mo);
        return NULL;
    }
    kg_motion_shrink(mo);
    return mo;
}

/* ---- a clip ----------------------------------------------------------------------- */

static kg_motion *from_clip(const kg_model *m, const char *path, const kg_load_options *o, kg_diags *d) {
    kg_motion *cm = NULL;
    kg_model *src = kg_load_clip(path, o, &cm, d);
    if (!src) return NULL;
    kg_motion *mo = NULL;
    if (!cm || cm->nframes == 0) {
        kg_diag_add(d, KG_ERROR, "motion.none", path, 0, NULL, "'%s' has no motion", path);
        goto done;
    }
    int *from = kg_xmalloc(((size_t)m->nq + 1) * sizeof *from), matched = 0, missing = 0;
    char a[1100], b[1100];
    for (int k = 0; k < m->nq; k++) {
        from[k] = -1;
        kg_coord_name(m, k, a, sizeof a);
        for (int s = 0; s < src->nq && from[k] < 0; s++)
            if (!strcmp(kg_coord_name(src, s, b, sizeof b), a)) from[k] = s;
        if (from[k] >= 0) matched++;
        else if (!is_follower_coord(m, k) && missing++ == 0)
            kg_diag_add(d, KG_WARNING, "motion.missing", path, 0, NULL,
                        "the motion has no coordinate '%s': its rest value is used", a);
    }
    if (missing > 1)
        kg_diag_add(d, KG_WARNING, "motion.missing", path, 0, NULL, "%d of the model's coordinates in all are not in the motion",
                    missing);
    if (m->nq > 0 && matched == 0) {
        kg_diag_add(d, KG_ERROR, "motion.mismatch", path, 0, NULL,
                    "the motion's coordinates have none of the model's names: not a motion of this model");
        free(from);
        goto done;
    }
    mo = kg_motion_new(m->nq, cm->frame_time, (size_t)cm->nframes);
    mo->start_time = cm->start_time;
    if (cm->base && m->root_body == 0) mo->base = kg_xmalloc((size_t)cm->nframes * 7 * sizeof(double));
    for (int fr = 0; fr < cm->nframes; fr++) {
        double *q = kg_motion_append(mo, m->q_default);
        for (int k = 0; k < m->nq; k++)
            if (from[k] >= 0) q[k] = cm->q[(size_t)fr * cm->nq + from[k]];
        kg_apply_mimic(m, q);
        if (mo->base) memcpy(mo->base + 7 * (size_t)fr, cm->base + 7 * (size_t)fr, 7 * sizeof(double));
    }
    free(from);
done:
    kg_motion_free(cm);
    kg_model_free(src);
    return mo;
}

kg_motion *kg_load_motion_for(const kg_model *m, const char *path, const kg_load_options *o, double csv_fps,
                              kg_diags *d) {
    size_t n = strlen(path);
    if (n > 4 && !strcasecmp(path + n - 4, ".csv")) return read_csv(m, path, csv_fps, d);
    return from_clip(m, path, o, d);
}
