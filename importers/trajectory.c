/* Reading a robot's motion back from the trajectory CSV that `retarget` and
 * `convert` write (exporters/trajectory.c), for a model given beside it. */
#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/arena.h"
#include "formats/fileio.h"
#include "importers/importers.h"

/* The next field of line s (up to ',' or the line's end), unquoted into buf;
 * returns the position after its separator, or NULL at the end of the line. */
static const char *field(const char *s, char *buf, size_t size, int *more) {
    size_t n = 0;
    if (*s == '"') {
        for (s++; *s && *s != '\n' && !(*s == '"' && s[1] != '"'); s++) { /* a field stays on its line */
            if (*s == '"') s++;
            if (n + 1 < size) buf[n++] = *s;
        }
        if (*s == '"') s++;
    }
    for (; *s && *s != ',' && *s != '\n' && *s != '\r'; s++)
        if (n + 1 < size) buf[n++] = *s;
    while (n > 0 && isspace((unsigned char)buf[n - 1])) n--;
    buf[n] = 0;
    *more = *s == ',';
    return *s == ',' ? s + 1 : s;
}

/* Skips to the next line; NULL at the end of the text. */
static const char *next_line(const char *s) {
    s = strchr(s, '\n');
    return s ? s + 1 : NULL;
}

static int blank(const char *s) {
    while (*s == ' ' || *s == '\t' || *s == '\r') s++;
    return *s == '\n' || !*s;
}

/* Column roles of the headed layout. */
enum { COL_IGNORED = -1, COL_TIME = -2, COL_ROOT = -10, COL_CONTACT = -20 };

static const char *const root_names[7] = {"root_x", "root_y", "root_z", "root_qw", "root_qx", "root_qy", "root_qz"};

kg_motion *kg_import_trajectory_csv(const kg_model *m, const char *path, double fps, unsigned char **contacts,
                                    kg_diags *d) {
    if (contacts) *contacts = NULL;
    char *text = kg_read_file(path, NULL, d);
    if (!text) return NULL;
    const char *s = text;
    if (!strncmp(s, "\xEF\xBB\xBF", 3)) s += 3; /* a UTF-8 byte order mark (spreadsheets write one) */
    while (s && blank(s)) s = next_line(s);
    if (!s) {
        kg_diag_add(d, KG_ERROR, "trajectory.empty", path, 0, NULL, "no frames");
        free(text);
        return NULL;
    }
    /* a header when the first field is not a number */
    char buf[1100];
    int more, line = 1;
    field(s, buf, sizeof buf, &more);
    char *end;
    strtod(buf, &end);
    const int headed = end == buf || *end;
    int ncol = 0, *role = NULL, ncontact = 0;
    int *qcol = NULL; /* headerless: coordinate of each column past the root's 7 */
    const int nq = m->nq;
    /* allocated below; out of memory at any point: freed at out_of_memory */
    kg_motion *mo = NULL;
    double *base = NULL, *vals = NULL;
    unsigned char *cflags = NULL;
    if (headed) {
        int cap = 16;
        if (!(role = calloc((size_t)cap, sizeof *role))) goto out_of_memory;
        const char *p = s;
        char name[1100];
        do {
            p = field(p, buf, sizeof buf, &more);
            if (ncol == cap) {
                int *grown = realloc(role, (size_t)(cap *= 2) * sizeof *role);
                if (!grown) goto out_of_memory;
                role = grown;
            }
            int r = COL_IGNORED;
            if (!strcmp(buf, "time")) r = COL_TIME;
            for (int k = 0; k < 7; k++)
                if (!strcmp(buf, root_names[k])) r = COL_ROOT - k;
            if (!strcmp(buf, "contact_left")) r = COL_CONTACT, ncontact |= 1;
            if (!strcmp(buf, "contact_right")) r = COL_CONTACT - 1, ncontact |= 2;
            for (int k = 0; k < nq && r == COL_IGNORED; k++)
                if (!strcmp(buf, kg_coord_name(m, k, name, sizeof name))) r = k;
            if (r == COL_IGNORED)
                kg_diag_add(d, KG_WARNING, "trajectory.column", path, 1, NULL,
                            "column '%s' is neither time, the root's pose, a contact nor a coordinate of the model: "
                            "ignored", buf);
            role[ncol++] = r;
        } while (more);
        if (ncontact && ncontact != 3) {
            kg_diag_add(d, KG_WARNING, "trajectory.contacts", path, 1, NULL,
                        "only one of contact_left, contact_right: contacts are inferred instead");
            for (int c = 0; c < ncol; c++)
                if (role[c] <= COL_CONTACT) role[c] = COL_IGNORED;
            ncontact = 0;
        }
        s = next_line(s), line++;
    } else { /* LAFAN1: x y z qx qy qz qw, then every coordinate but the mimic followers' */
        if (!(qcol = calloc((size_t)nq + 1, sizeof *qcol))) goto out_of_memory;
        for (int j = 0; j < m->njoint; j++)
            if (m->joint[j].mimic < 0)
                for (int c = 0; c < m->joint[j].nq; c++) qcol[ncol++] = m->joint[j].qadr + c;
        ncol += 7;
    }
    mo = kg_motion_new(nq, fps > 0 ? 1.0 / fps : 1.0 / 30, 256);
    size_t bcap = 256, ccap = 256;
    double t0 = NAN, t1 = NAN;
    base = calloc(7 * bcap, sizeof *base);
    cflags = ncontact ? calloc(2 * ccap, 1) : NULL;
    vals = calloc((size_t)ncol + 1, sizeof *vals);
    if (!mo || !base || (ncontact && !cflags) || !vals) goto out_of_memory;
    int bad = 0;
    for (; s; s = next_line(s), line++) {
        if (blank(s)) continue;
        int n = 0;
        const char *p = s;
        do {
            p = field(p, buf, sizeof buf, &more);
            double v = strtod(buf, &end);
            if (end == buf || *end || !isfinite(v)) {
                kg_diag_add(d, KG_ERROR, "trajectory.number", path, line, NULL, "'%s' is not a number", buf);
                bad = 1;
                break;
            }
            if (n < ncol) vals[n] = v;
            n++;
        } while (more);
        if (bad) break;
        if (n != ncol) {
            kg_diag_add(d, KG_ERROR, "trajectory.columns", path, line, NULL,
                        "%d values where %s has %d columns%s", n, headed ? "the header" : "the model", ncol,
                        headed ? "" : " (7 for the root, then the coordinates of the joints but mimic followers)");
            bad = 1;
            break;
        }
        const int f = mo->nframes;
        double *q = kg_motion_append(mo, m->q_default);
        if (!q) goto out_of_memory;
        if ((size_t)f >= bcap) {
            double *grown = realloc(base, 7 * (bcap *= 2) * sizeof *base);
            if (!grown) goto out_of_memory;
            base = grown;
        }
        if (cflags && (size_t)f >= ccap) {
            unsigned char *grown = realloc(cflags, 2 * (ccap *= 2));
            if (!grown) goto out_of_memory;
            cflags = grown;
        }
        double *b = base + 7 * (size_t)f;
        b[0] = b[1] = b[2] = 0, b[3] = 1, b[4] = b[5] = b[6] = 0;
        if (headed) {
            for (int c = 0; c < ncol; c++) {
                const int r = role[c];
                if (r >= 0) q[r] = vals[c];
                else if (r == COL_TIME) {
                    if (f == 0) t0 = vals[c];
                    t1 = vals[c];
                }
                else if (r <= COL_ROOT && r > COL_ROOT - 7) b[COL_ROOT - r] = vals[c];
                else if (r <= COL_CONTACT && r > COL_CONTACT - 2) cflags[2 * (size_t)f + COL_CONTACT - r] = vals[c] != 0;
            }
        } else {
            b[0] = vals[0], b[1] = vals[1], b[2] = vals[2];
            b[3] = vals[6], b[4] = vals[3], b[5] = vals[4], b[6] = vals[5];
            for (int c = 7; c < ncol; c++) q[qcol[c - 7]] = vals[c];
        }
        kg_apply_mimic(m, q);
    }
    free(vals), free(role), free(qcol), free(text);
    if (!bad && mo->nframes == 0) {
        kg_diag_add(d, KG_ERROR, "trajectory.empty", path, 0, NULL, "no frames");
        bad = 1;
    }
    if (bad) {
        free(base), free(cflags);
        kg_motion_free(mo);
        return NULL;
    }
    mo->base = base;
    if (headed && !isnan(t0)) {
        mo->start_time = t0;
        if (mo->nframes > 1 && !isnan(t1)) {
            if (fps > 0)
                kg_diag_add(d, KG_INFO, "trajectory.rate", path, 0, NULL,
                            "the frame rate given (%g /s) is used, not the time column's", fps);
            else mo->frame_time = (t1 - t0) / (mo->nframes - 1);
        }
    } else if (!(fps > 0))
        kg_diag_add(d, KG_INFO, "trajectory.rate", path, 0, NULL,
                    "no time column: %g frames/s assumed (the LAFAN1 rate)", 1 / mo->frame_time);
    if (!(mo->frame_time > 0) && mo->nframes > 1) {
        kg_diag_add(d, KG_ERROR, "trajectory.time", path, 0, NULL, "the time column does not increase");
        free(cflags);
        kg_motion_free(mo);
        return NULL;
    }
    if (contacts) *contacts = cflags;
    else free(cflags);
    return mo;
out_of_memory:
    free(vals), free(role), free(qcol), free(text), free(base), free(cflags);
    kg_motion_free(mo);
    kg_diag_add(d, KG_ERROR, "io.memory", path, 0, NULL, "out of memory reading the motion");
    return NULL;
}
