/* RL motion files (.npz): a model's motion in the layout motion-tracking
 * trainers read (BeyondMimic-style pipelines on Isaac Lab): a zip archive of
 * numpy .npy arrays, one per name,
 *
 *   fps             float32 scalar: frames per second (1 / the motion's frame time,
 *                                   a whole number when within 1e-5 of one)
 *   joint_names     <U  [J]        the coordinates written (kg_coord_name: a joint's
 *                                   name, "joint.label" for joints with several)
 *   joint_pos       float32 [T, J] their values (rad, or model units for lengths)
 *   joint_vel       float32 [T, J] their rates (rad/s, units/s)
 *   body_names      <U  [B]        the real links, in the model's order (parents
 *                                   first: body 0 is the root link)
 *   body_pos_w      float32 [T, B, 3]  world positions of the link frames
 *   body_quat_w     float32 [T, B, 4]  world orientations, quaternions w, x, y, z
 *   body_lin_vel_w  float32 [T, B, 3]  world linear velocities of the link frames' origins
 *   body_ang_vel_w  float32 [T, B, 3]  world angular velocities
 *
 * Frames come first. Poses are kinegraph's forward kinematics of each frame
 * (computed in double, stored as float32). Velocities are finite differences
 * at the motion's rate (its frame time dt): central, (x[t+1] - x[t-1]) / 2 dt,
 * and one-sided at the ends, (x[1] - x[0]) / dt and (x[T-1] - x[T-2]) / dt
 * (an angle's change taken to the nearest turn, so a wrap from pi to -pi is no spike);
 * the angular velocity is the rotation vector of R[t+1] R[t-1]^T over 2 dt
 * (one-sided likewise), so it is the world-frame rate whatever the frame's
 * orientation; a single frame has zero velocities. Quaternions keep the sign
 * of the previous frame's (the first with w >= 0), so they do not flip.
 *
 * The arrays are .npy files (format version 1.0: the magic, a header dict
 * padded to a multiple of 64 bytes, the little-endian data in C order), names
 * as fixed-width UTF-32 ('<U' arrays, numpy's str dtype); libzip writes the
 * archive (entries stored, as numpy.savez does), in memory, then to f. Entry
 * times are SOURCE_DATE_EPOCH when set, else 1980-01-01, so the same motion
 * gives the same bytes. Mimic followers are left out when the options say so
 * (a retargeted robot's actuated joints; FK recomputes them from their
 * leaders). */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <zip.h>

#include "core/fk.h"
#include "core/model.h"
#include "core/spatial.h"
#include "exporters/exporters.h"

typedef struct buf {
    unsigned char *p;
    size_t n, cap;
    int oom; /* memory ran out: what is put from then on is dropped (add_entry fails) */
} buf;

static void put(buf *b, const void *p, size_t n) {
    if (b->oom) return;
    if (b->n + n > b->cap) {
        size_t cap = (b->n + n) * 2 + 256;
        unsigned char *grown = realloc(b->p, cap);
        if (!grown) {
            b->oom = 1;
            return;
        }
        b->p = grown, b->cap = cap;
    }
    memcpy(b->p + b->n, p, n);
    b->n += n;
}

static void put_u32(buf *b, uint32_t v) {
    unsigned char c[4] = {(unsigned char)v, (unsigned char)(v >> 8), (unsigned char)(v >> 16), (unsigned char)(v >> 24)};
    put(b, c, 4);
}

static void put_f32(buf *b, double v) {
    float f = (float)v;
    uint32_t u;
    memcpy(&u, &f, 4);
    put_u32(b, u);
}

/* The .npy header (version 1.0) of an array of dtype descr and the given shape. */
static void npy_header(buf *b, const char *descr, const size_t *shape, int ndim) {
    char dict[256];
    int n = snprintf(dict, sizeof dict, "{'descr': '%s', 'fortran_order': False, 'shape': (", descr);
    for (int k = 0; k < ndim; k++) n += snprintf(dict + n, sizeof dict - (size_t)n, "%s%zu", k ? ", " : "", shape[k]);
    n += snprintf(dict + n, sizeof dict - (size_t)n, "%s), }", ndim == 1 ? "," : ""); /* (3,) is a tuple, (3) not */
    /* magic (6) + version (2) + length (2) + dict + spaces + '\n', a multiple of 64 */
    size_t total = 10 + (size_t)n + 1, pad = (64 - total % 64) % 64;
    put(b, "\x93NUMPY\x01\x00", 8);
    size_t hlen = (size_t)n + pad + 1;
    unsigned char l[2] = {(unsigned char)hlen, (unsigned char)(hlen >> 8)};
    put(b, l, 2);
    put(b, dict, (size_t)n);
    for (size_t k = 0; k < pad; k++) put(b, " ", 1);
    put(b, "\n", 1);
}

/* The next code point of UTF-8 text (U+FFFD for a byte that does not start a
 * valid sequence); advances *s. */
static uint32_t utf8_next(const unsigned char **s) {
    const unsigned char *p = *s;
    uint32_t c = p[0];
    int len = c < 0x80 ? 1 : (c & 0xE0) == 0xC0 ? 2 : (c & 0xF0) == 0xE0 ? 3 : (c & 0xF8) == 0xF0 ? 4 : 0;
    if (len == 1) {
        *s = p + 1;
        return c;
    }
    uint32_t v = len == 2 ? c & 0x1F : len == 3 ? c & 0x0F : c & 0x07;
    for (int k = 1; k < len; k++) {
        if ((p[k] & 0xC0) != 0x80) len = 0;
        else v = v << 6 | (p[k] & 0x3F);
        if (!len) break;
    }
    if (!len || v > 0x10FFFF || (v >= 0xD800 && v < 0xE000) || (len == 2 && v < 0x80) || (len == 3 && v < 0x800) ||
        (len == 4 && v < 0x10000)) {
        *s = p + 1;
        return 0xFFFD;
    }
    *s = p + len;
    return v;
}

static size_t utf8_length(const char *s) {
    size_t n = 0;
    for (const unsigned char *p = (const unsigned char *)s; *p; n++) utf8_next(&p);
    return n;
}

/* A '<U' array of n names: each padded with zeros to the longest. */
static void npy_strings(buf *b, const char *const *names, size_t n) {
    size_t width = 1;
    for (size_t i = 0; i < n; i++)
        if (utf8_length(names[i]) > width) width = utf8_length(names[i]);
    char descr[32];
    snprintf(descr, sizeof descr, "<U%zu", width);
    npy_header(b, descr, &n, 1);
    for (size_t i = 0; i < n; i++) {
        size_t k = 0;
        for (const unsigned char *p = (const unsigned char *)names[i]; *p; k++) put_u32(b, utf8_next(&p));
        for (; k < width; k++) put_u32(b, 0);
    }
}

static void npy_floats(buf *b, const double *v, const size_t *shape, int ndim) {
    npy_header(b, "<f4", shape, ndim);
    size_t n = 1;
    for (int k = 0; k < ndim; k++) n *= shape[k];
    for (size_t i = 0; i < n; i++) put_f32(b, v[i]);
}

/* ---- the arrays ------------------------------------------------------------------- */

/* Is coordinate k written? All are, but a mimic follower's when followers are skipped. */
static int written(const kg_model *m, const kg_export_options *o, int k) {
    if (!o || !o->skip_followers) return 1;
    for (int j = 0; j < m->njoint; j++)
        if (k >= m->joint[j].qadr && k < m->joint[j].qadr + m->joint[j].nq) return m->joint[j].mimic < 0;
    return 1;
}

/* Finite differences along the frames of x ([T][n]): central inside, one-sided
 * at the ends. Columns marked in angle (may be NULL) are angles: their change is
 * taken to the nearest turn, (-pi, pi], so a value wrapping from pi to -pi (BVH
 * Euler channels do) is a small step, not a spike of 2 pi / 2 dt. */
static void differences(const double *x, double *v, int T, size_t n, double dt, const unsigned char *angle) {
    for (int t = 0; t < T; t++) {
        int a = t > 0 ? t - 1 : 0, b = t < T - 1 ? t + 1 : T - 1;
        for (size_t k = 0; k < n; k++) {
            double dx = b > a ? x[(size_t)b * n + k] - x[(size_t)a * n + k] : 0;
            if (angle && angle[k]) dx = remainder(dx, 2 * 3.14159265358979323846);
            v[(size_t)t * n + k] = b > a ? dx / ((b - a) * dt) : 0;
        }
    }
}

/* ---- the archive ------------------------------------------------------------------ */

/* Adds name.npy holding b's bytes (which libzip then owns); 0 or -1 (*oom set
 * when b could not hold them). */
static int add_entry(zip_t *z, const char *name, buf *b, time_t mtime, int *oom) {
    if (b->oom) {
        free(b->p);
        *b = (buf){0};
        *oom = 1;
        return -1;
    }
    zip_source_t *s = zip_source_buffer(z, b->p, b->n, 1);
    if (!s) return -1;
    b->p = NULL, b->n = b->cap = 0;
    char entry[64];
    snprintf(entry, sizeof entry, "%s.npy", name);
    zip_int64_t i = zip_file_add(z, entry, s, ZIP_FL_ENC_UTF_8);
    if (i < 0) {
        zip_source_free(s);
        return -1;
    }
    if (zip_set_file_compression(z, (zip_uint64_t)i, ZIP_CM_STORE, 0) != 0) return -1;
    return zip_file_set_mtime(z, (zip_uint64_t)i, mtime, 0);
}

/* What is written: the names and the arrays. */
typedef struct npz {
    int T, J, B;           /* frames, coordinates, bodies */
    double fps;
    int *coord, *body;     /* [J] coordinate indices, [B] link indices */
    char **jn;             /* [J] coordinate names (owned) */
    const char **bn;       /* [B] link names */
    double *q, *qv;        /* [T J] */
    double *pos, *quat, *lin, *ang; /* [T B 3], [T B 4], [T B 3], [T B 3] */
} npz;

static void npz_free(npz *n) {
    for (int k = 0; n->jn && k < n->J; k++) free(n->jn[k]);
    free(n->jn), free(n->bn), free(n->coord), free(n->body);
    free(n->q), free(n->qv), free(n->pos), free(n->quat), free(n->lin), free(n->ang);
}

/* The coordinates and bodies written, by index and name. 0, or -1 when memory
 * runs out (npz_free frees what was taken). */
static int names(const kg_model *m, const kg_export_options *o, npz *n) {
    n->coord = malloc(((size_t)m->nq + 1) * sizeof *n->coord), n->body = malloc((size_t)m->nlink * sizeof *n->body);
    n->jn = calloc((size_t)m->nq + 1, sizeof *n->jn), n->bn = malloc((size_t)m->nlink * sizeof *n->bn);
    char **all = kg_coord_names(m);
    if (!n->coord || !n->body || !n->jn || !n->bn || !all) return kg_coord_names_free(all, m->nq), -1;
    for (int k = 0; k < m->nq; k++)
        if (written(m, o, k)) n->jn[n->J] = all[k], all[k] = NULL, n->coord[n->J++] = k; /* taken over */
    kg_coord_names_free(all, m->nq);
    for (int i = 0; i < m->nlink; i++)
        if (m->link[i].real < 0) n->body[n->B] = i, n->bn[n->B++] = m->link[i].name;
    return 0;
}

/* The poses of every frame (forward kinematics) and their rates. 0, or -1
 * when memory runs out. */
static int frames(const kg_model *m, const kg_motion *mo, npz *n) {
    const int T = n->T, J = n->J, B = n->B;
    const double dt = 1 / n->fps;
    size_t TJ = (size_t)T * J, TB = (size_t)T * B;
    n->q = calloc(TJ ? TJ : 1, sizeof *n->q), n->qv = malloc((TJ ? TJ : 1) * sizeof *n->qv);
    n->pos = calloc(TB * 3 + 1, sizeof *n->pos), n->quat = malloc(TB * 4 * sizeof *n->quat);
    n->lin = malloc(TB * 3 * sizeof *n->lin), n->ang = malloc(TB * 3 * sizeof *n->ang);
    kg_data *kd = kg_data_new(m);
    unsigned char *angle = calloc((size_t)J + 1, 1);
    if (!n->q || !n->qv || !n->pos || !n->quat || !n->lin || !n->ang || !kd || !angle) {
        kg_data_free(kd);
        free(angle);
        return -1;
    }
    for (int t = 0; t < T; t++) {
        kg_motion_pose(mo, t, kd);
        kg_fk(m, kd);
        for (int k = 0; k < J; k++) n->q[(size_t)t * J + k] = kd->q[n->coord[k]];
        for (int b = 0; b < B; b++) {
            size_t tb = (size_t)t * B + b;
            const double *R = kd->link_rot + 9 * n->body[b];
            kg_vec3_copy(n->pos + 3 * tb, kd->link_pos + 3 * n->body[b]);
            double *w = n->quat + 4 * tb;
            kg_rot_to_quat(R, w);
            const double *prev = t ? w - 4 * (size_t)B : NULL;
            double dot = prev ? w[0] * prev[0] + w[1] * prev[1] + w[2] * prev[2] + w[3] * prev[3] : w[0];
            if (dot < 0)
                for (int k = 0; k < 4; k++) w[k] = -w[k];
        }
    }
    kg_data_free(kd);
    for (int k = 0; k < J; k++)
        for (int a = 0; a < m->nangle; a++) angle[k] |= m->angle_q[a] == n->coord[k];
    differences(n->q, n->qv, T, (size_t)J, dt, angle);
    free(angle);
    differences(n->pos, n->lin, T, (size_t)B * 3, dt, NULL);
    for (int t = 0; t < T; t++) {
        int a = t > 0 ? t - 1 : 0, c = t < T - 1 ? t + 1 : T - 1;
        for (int b = 0; b < B; b++) {
            double *w = n->ang + 3 * ((size_t)t * B + b);
            if (c == a) {
                w[0] = w[1] = w[2] = 0;
                continue;
            }
            double rel[9], Ra[9], Rc[9]; /* from the quaternions (double): no [T, B, 9] array kept */
            kg_rot_from_quat(Ra, n->quat + 4 * ((size_t)a * B + b));
            kg_rot_from_quat(Rc, n->quat + 4 * ((size_t)c * B + b));
            kg_mat3_mul_bt(rel, Rc, Ra);
            kg_rot_log(rel, w);
            for (int k = 0; k < 3; k++) w[k] /= (c - a) * dt;
        }
    }
    return 0;
}

/* The arrays' entries in z; 0 or -1 (*oom set when memory ran out). */
static int entries(zip_t *z, const npz *n, time_t mtime, int *oom) {
    buf b = {0};
    size_t shape[3];
    int rc = 0;
    npy_floats(&b, &n->fps, shape, 0);
    rc |= add_entry(z, "fps", &b, mtime, oom);
    npy_strings(&b, (const char *const *)n->jn, (size_t)n->J);
    rc |= add_entry(z, "joint_names", &b, mtime, oom);
    shape[0] = (size_t)n->T, shape[1] = (size_t)n->J;
    npy_floats(&b, n->q, shape, 2);
    rc |= add_entry(z, "joint_pos", &b, mtime, oom);
    npy_floats(&b, n->qv, shape, 2);
    rc |= add_entry(z, "joint_vel", &b, mtime, oom);
    npy_strings(&b, n->bn, (size_t)n->B);
    rc |= add_entry(z, "body_names", &b, mtime, oom);
    shape[1] = (size_t)n->B, shape[2] = 3;
    npy_floats(&b, n->pos, shape, 3);
    rc |= add_entry(z, "body_pos_w", &b, mtime, oom);
    shape[2] = 4;
    npy_floats(&b, n->quat, shape, 3);
    rc |= add_entry(z, "body_quat_w", &b, mtime, oom);
    shape[2] = 3;
    npy_floats(&b, n->lin, shape, 3);
    rc |= add_entry(z, "body_lin_vel_w", &b, mtime, oom);
    npy_floats(&b, n->ang, shape, 3);
    rc |= add_entry(z, "body_ang_vel_w", &b, mtime, oom);
    free(b.p);
    return rc;
}

/* The archive, made in memory, then copied to f. 0, or -1 (after npz.write, or
 * with *oom set when memory ran out). */
static int archive(const npz *n, FILE *f, const kg_export_options *o, kg_diags *d, int *oom) {
    zip_error_t ze;
    zip_error_init(&ze);
    zip_source_t *mem = zip_source_buffer_create(NULL, 0, 0, &ze);
    zip_t *z = mem ? zip_open_from_source(mem, ZIP_TRUNCATE, &ze) : NULL;
    int rc = z ? 0 : -1;
    if (z) zip_source_keep(mem);
    const char *epoch = getenv("SOURCE_DATE_EPOCH");
    time_t mtime = epoch && *epoch ? (time_t)strtoll(epoch, NULL, 10) : (time_t)315532800; /* 1980-01-01 */
    if (!rc) {
        rc = entries(z, n, mtime, oom);
        if (!rc && zip_close(z) == 0) z = NULL;
        else rc = -1;
    }
    if (rc && !*oom)
        kg_diag_add(d, KG_ERROR, "npz.write", o ? o->path : NULL, 0, NULL, "cannot make the .npz archive: %s",
                    z ? zip_strerror(z) : zip_error_strerror(&ze));
    if (rc && z) zip_discard(z);
    /* copy the archive's bytes to the stream */
    if (!rc && zip_source_open(mem) == 0) {
        char chunk[65536];
        zip_int64_t k;
        while ((k = zip_source_read(mem, chunk, sizeof chunk)) > 0) fwrite(chunk, 1, (size_t)k, f);
        if (k < 0) rc = -1;
        zip_source_close(mem);
    } else if (!rc) {
        rc = -1;
    }
    if (mem) zip_source_free(mem);
    zip_error_fini(&ze);
    return rc;
}

int kg_export_npz(const kg_model *m, const kg_motion *mo, const kg_export_options *o, FILE *f, kg_ledger *l,
                  kg_diags *d) {
    kg_motion *owned = NULL;
    if (!mo || mo->nframes == 0) {
        kg_ledger_add(l, KG_DEFAULTED, "motion", m->name, m->source, 0,
                      "the input has no motion: one frame at the rest pose is written");
        if (!(owned = kg_motion_new(m->nq, 1.0 / 30, 1))) return kg_export_oom(o, d);
        kg_motion_append(owned, m->q_default); /* its frame is reserved */
        mo = owned;
    }
    kg_ledger_model_only(m, l, "an RL motion file");
    for (int j = 0; o && o->skip_followers && j < m->njoint; j++)
        if (m->joint[j].mimic >= 0 && m->joint[j].nq > 0)
            kg_ledger_add(l, KG_DROPPED, "joint", m->joint[j].name, m->source, m->joint[j].line,
                          "a mimic follower: its coordinate follows from its leader's and is not written");
    npz n = {.T = mo->nframes};
    /* the rate, snapped to a whole number within 1e-5 of it (BVH writes 1/30 s as
     * 0.0333333: 30 fps, not 30.00003); velocities at that rate */
    n.fps = mo->frame_time > 0 && isfinite(mo->frame_time) ? 1 / mo->frame_time : 30;
    if (fabs(n.fps - round(n.fps)) <= 1e-5 * n.fps) n.fps = round(n.fps);
    if (!(mo->frame_time > 0 && isfinite(mo->frame_time)) && n.T > 1)
        kg_ledger_add(l, KG_DEFAULTED, "motion", m->name, m->source, 0, "the motion has no frame time: 30 fps written");
    int oom = names(m, o, &n) != 0 || frames(m, mo, &n) != 0;
    int rc = oom ? -1 : archive(&n, f, o, d, &oom);
    npz_free(&n);
    kg_motion_free(owned);
    if (oom) return kg_export_oom(o, d);
    return rc || ferror(f) ? -1 : 0;
}
