/* Reading a robot's motion back from the trajectory CSV that `retarget` and
 * `convert` write (exporters/trajectory.c), for a model given beside it. */
#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/arena.h"
#include "core/model.h"
#include "formats/fileio.h"
#include "importers/importers.h"

/* The next field of line s (up to ',' or the line's end), unquoted into buf;
 * returns the position after its separator, or NULL at the end of the line. */
static const char *field(const char *s, char *buf, size_t size, int *more) {
    size_t n = 0;
    const int quoted = *s == '"'; /* kept whole; after its closing quote, nothing but space */
    if (quoted) {
        for (s++; *s && *s != '\n' && !(*s == '"' && s[1] != '"'); s++) { /* a field stays on its line */
            if (*s == '"') s++;
            if (n + 1 < size) buf[n++] = *s;
        }
        if (*s == '"') s++;
    }
    for (; *s && *s != ',' && *s != '\n' && *s != '\r'; s++)
        if (!quoted && n + 1 < size) buf[n++] = *s;
    while (!quoted && n > 0 && isspace((unsigned char)buf[n - 1])) n--;
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

/* What is being read: the columns' meaning and the frames so far. */
typedef struct reader {
    const kg_model *m;
    const char *path;
    kg_diags *d;
    int headed, ncol, ncontact;
    int *role;              /* headed: each column's role (COL_* or a coordinate) */
    int *qcol;              /* headerless: coordinate of each column past the root's 7 */
    kg_motion *mo;
    double *base, *vals;    /* the frames' root poses (7 each); one line's values */
    unsigned char *cflags;  /* the frames' contacts (2 each), when the header has both */
    size_t bcap, ccap;
    double t0, t1;          /* the time column's first and last values */
} reader;

/* The header line s: each column's role into r->role (names that are none
 * warned about; a lone contact column dropped). 0, or -1 when memory runs out. */
static int read_header(reader *r, const char *s) {
    int cap = 16, more;
    if (!(r->role = calloc((size_t)cap, sizeof *r->role))) return -1;
    /* names of any length: the header's fields in a buffer as long as its line */
    const char *eol = strchr(s, '\n');
    size_t cap_buf = (eol ? (size_t)(eol - s) : strlen(s)) + 1;
    char *buf = malloc(cap_buf), **names = kg_coord_names(r->m);
    if (!buf || !names) return free(buf), kg_coord_names_free(names, r->m->nq), -1;
    do {
        s = field(s, buf, cap_buf, &more);
        if (r->ncol == cap) {
            int *grown = realloc(r->role, (size_t)(cap *= 2) * sizeof *r->role);
            if (!grown) return free(buf), kg_coord_names_free(names, r->m->nq), -1;
            r->role = grown;
        }
        int c = COL_IGNORED;
        if (!strcmp(buf, "time")) c = COL_TIME;
        for (int k = 0; k < 7; k++)
            if (!strcmp(buf, root_names[k])) c = COL_ROOT - k;
        if (!strcmp(buf, "contact_left")) c = COL_CONTACT, r->ncontact |= 1;
        if (!strcmp(buf, "contact_right")) c = COL_CONTACT - 1, r->ncontact |= 2;
        for (int k = 0; k < r->m->nq && c == COL_IGNORED; k++)
            if (!strcmp(buf, names[k])) c = k;
        if (c == COL_IGNORED)
            kg_diag_add(r->d, KG_WARNING, "trajectory.column", r->path, 1, NULL,
                        "column '%s' is neither time, the root's pose, a contact nor a coordinate of the model: "
                        "ignored", buf);
        r->role[r->ncol++] = c;
    } while (more);
    free(buf);
    kg_coord_names_free(names, r->m->nq);
    if (r->ncontact && r->ncontact != 3) {
        kg_diag_add(r->d, KG_WARNING, "trajectory.contacts", r->path, 1, NULL,
                    "only one of contact_left, contact_right: contacts are inferred instead");
        for (int c = 0; c < r->ncol; c++)
            if (r->role[c] <= COL_CONTACT) r->role[c] = COL_IGNORED;
        r->ncontact = 0;
    }
    return 0;
}

/* Without a header (LAFAN1): x y z qx qy qz qw, then every coordinate but the
 * mimic followers'. 0, or -1 when memory runs out. */
static int lafan_columns(reader *r) {
    const kg_model *m = r->m;
    if (!(r->qcol = calloc((size_t)m->nq + 1, sizeof *r->qcol))) return -1;
    for (int j = 0; j < m->njoint; j++)
        if (m->joint[j].mimic < 0)
            for (int c = 0; c < m->joint[j].nq; c++) r->qcol[r->ncol++] = m->joint[j].qadr + c;
    r->ncol += 7;
    return 0;
}

/* Line s's numbers into r->vals. 0, or 1 said (not a number, or not one per column). */
static int read_values(reader *r, const char *s, int line) {
    char buf[1100], *end;
    int n = 0, more;
    do {
        s = field(s, buf, sizeof buf, &more);
        double v = strtod(buf, &end);
        if (end == buf || *end || !isfinite(v)) {
            kg_diag_add(r->d, KG_ERROR, "trajectory.number", r->path, line, NULL, "'%s' is not a number", buf);
            return 1;
        }
        if (n < r->ncol) r->vals[n] = v;
        n++;
    } while (more);
    if (n != r->ncol) {
        kg_diag_add(r->d, KG_ERROR, "trajectory.columns", r->path, line, NULL, "%d values where %s has %d columns%s", n,
                    r->headed ? "the header" : "the model", r->ncol,
                    r->headed ? "" : " (7 for the root, then the coordinates of the joints but mimic followers)");
        return 1;
    }
    return 0;
}

/* A frame from r->vals: its coordinates, root pose, contacts and time. 0, or
 * -1 when memory runs out. */
static int add_frame(reader *r) {
    const int f = r->mo->nframes;
    double *q = kg_motion_append(r->mo, r->m->q_default);
    if (!q) return -1;
    if ((size_t)f >= r->bcap) {
        double *grown = realloc(r->base, 7 * (r->bcap *= 2) * sizeof *r->base);
        if (!grown) return -1;
        r->base = grown;
    }
    if (r->cflags && (size_t)f >= r->ccap) {
        unsigned char *grown = realloc(r->cflags, 2 * (r->ccap *= 2));
        if (!grown) return -1;
        r->cflags = grown;
    }
    const double *vals = r->vals;
    double *b = r->base + 7 * (size_t)f;
    b[0] = b[1] = b[2] = 0, b[3] = 1, b[4] = b[5] = b[6] = 0;
    if (r->headed) {
        for (int c = 0; c < r->ncol; c++) {
            const int k = r->role[c];
            if (k >= 0) q[k] = vals[c];
            else if (k == COL_TIME) {
                if (f == 0) r->t0 = vals[c];
                r->t1 = vals[c];
            }
            else if (k <= COL_ROOT && k > COL_ROOT - 7) b[COL_ROOT - k] = vals[c];
            else if (k <= COL_CONTACT && k > COL_CONTACT - 2) r->cflags[2 * (size_t)f + COL_CONTACT - k] = vals[c] != 0;
        }
    } else {
        b[0] = vals[0], b[1] = vals[1], b[2] = vals[2];
        b[3] = vals[6], b[4] = vals[3], b[5] = vals[4], b[6] = vals[5];
        for (int c = 7; c < r->ncol; c++) q[r->qcol[c - 7]] = vals[c];
    }
    kg_apply_mimic(r->m, q);
    return 0;
}

/* The frames from line s (number line) on. 0, 1 after a line said to be
 * wrong, or -1 when memory runs out. */
static int read_frames(reader *r, const char *s, int line) {
    for (; s; s = next_line(s), line++) {
        if (blank(s)) continue;
        if (read_values(r, s, line)) return 1;
        if (add_frame(r) != 0) return -1;
    }
    return 0;
}

/* The frame time: fps when given, else the time column's steps, else
 * LAFAN1's rate (said). 0, or 1 said when the time column does not increase. */
static int frame_rate(reader *r, double fps) {
    kg_motion *mo = r->mo;
    if (r->headed && !isnan(r->t0)) {
        mo->start_time = r->t0;
        if (mo->nframes > 1 && !isnan(r->t1)) {
            if (fps > 0)
                kg_diag_add(r->d, KG_INFO, "trajectory.rate", r->path, 0, NULL,
                            "the frame rate given (%g /s) is used, not the time column's", fps);
            else mo->frame_time = (r->t1 - r->t0) / (mo->nframes - 1);
        }
    } else if (!(fps > 0))
        kg_diag_add(r->d, KG_INFO, "trajectory.rate", r->path, 0, NULL,
                    "no time column: %g frames/s assumed (the LAFAN1 rate)", 1 / mo->frame_time);
    if (!(mo->frame_time > 0) && mo->nframes > 1) {
        kg_diag_add(r->d, KG_ERROR, "trajectory.time", r->path, 0, NULL, "the time column does not increase");
        return 1;
    }
    return 0;
}

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
    char buf[1100], *end;
    int more, line = 1;
    field(s, buf, sizeof buf, &more);
    strtod(buf, &end);
    /* allocated below; out of memory at any point: freed at out_of_memory */
    reader r = {.m = m, .path = path, .d = d, .headed = end == buf || *end, .bcap = 256, .ccap = 256, .t0 = NAN, .t1 = NAN};
    if (r.headed ? read_header(&r, s) : lafan_columns(&r)) goto out_of_memory;
    if (r.headed) s = next_line(s), line++;
    r.mo = kg_motion_new(m->nq, fps > 0 ? 1.0 / fps : 1.0 / 30, 256);
    r.base = calloc(7 * r.bcap, sizeof *r.base);
    r.cflags = r.ncontact ? calloc(2 * r.ccap, 1) : NULL;
    r.vals = calloc((size_t)r.ncol + 1, sizeof *r.vals);
    if (!r.mo || !r.base || (r.ncontact && !r.cflags) || !r.vals) goto out_of_memory;
    int bad = read_frames(&r, s, line);
    if (bad < 0) goto out_of_memory;
    free(r.vals), free(r.role), free(r.qcol), free(text);
    if (!bad && r.mo->nframes == 0) {
        kg_diag_add(d, KG_ERROR, "trajectory.empty", path, 0, NULL, "no frames");
        bad = 1;
    }
    if (bad) {
        free(r.base), free(r.cflags);
        kg_motion_free(r.mo);
        return NULL;
    }
    r.mo->base = r.base;
    if (frame_rate(&r, fps) != 0) {
        free(r.cflags);
        kg_motion_free(r.mo);
        return NULL;
    }
    if (contacts) *contacts = r.cflags;
    else free(r.cflags);
    return r.mo;
out_of_memory:
    free(r.vals), free(r.role), free(r.qcol), free(text), free(r.base), free(r.cflags);
    kg_motion_free(r.mo);
    kg_diag_add(d, KG_ERROR, "io.memory", path, 0, NULL, "out of memory reading the motion");
    return NULL;
}
