#include "core/motion.h"
#include "core/spatial.h"

#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>


/* Bytes of n frames of nq coordinates, or 0 when that overflows size_t. */
static size_t frames_bytes(size_t n, int nq) {
    size_t row = (size_t)(nq > 7 ? nq : 7) * sizeof(double); /* base rows are 7 wide */
    return n <= SIZE_MAX / row ? n * (size_t)(nq ? nq : 1) * sizeof(double) : 0;
}

kg_motion *kg_motion_new(int nq, double frame_time, size_t reserve_frames) {
    kg_motion *mo = calloc(1, sizeof *mo);
    if (!mo) return NULL;
    mo->nq = nq;
    mo->frame_time = frame_time;
    mo->cap = reserve_frames ? reserve_frames : 64;
    size_t bytes = frames_bytes(mo->cap, nq);
    if (!bytes || !(mo->q = malloc(bytes))) {
        free(mo);
        return NULL;
    }
    return mo;
}

void kg_motion_free(kg_motion *mo) {
    if (!mo) return;
    free(mo->q);
    free(mo->base);
    free(mo);
}

double *kg_motion_append(kg_motion *mo, const double *q) {
    if ((size_t)mo->nframes == mo->cap) {
        size_t cap = mo->cap + mo->cap / 4 + 16, bytes = frames_bytes(cap, mo->nq);
        double *grown = bytes ? realloc(mo->q, bytes) : NULL;
        if (!grown) return NULL;
        mo->q = grown; /* holds cap frames now, whatever happens to base */
        if (mo->base) {
            if (!(grown = realloc(mo->base, cap * 7 * sizeof(double)))) return NULL;
            mo->base = grown;
        }
        mo->cap = cap;
    }
    double *f = mo->q + (size_t)mo->nframes * mo->nq;
    if (q) memcpy(f, q, (size_t)mo->nq * sizeof(double));
    mo->nframes++;
    return f;
}

void kg_motion_shrink(kg_motion *mo) {
    size_t n = mo->nframes ? (size_t)mo->nframes : 1;
    if (n == mo->cap) return;
    /* a failed shrink keeps the larger blocks, which is harmless */
    double *q = realloc(mo->q, frames_bytes(n, mo->nq));
    if (!q) return;
    mo->q = q;
    mo->cap = n;
    if (mo->base && (q = realloc(mo->base, n * 7 * sizeof(double)))) mo->base = q;
}

void kg_motion_pose(const kg_motion *mo, int f, kg_data *d) {
    memcpy(d->q, mo->q + (size_t)f * mo->nq, (size_t)mo->nq * sizeof(double));
    if (mo->base) kg_data_set_base(d, mo->base + 7 * (size_t)f, mo->base + 7 * (size_t)f + 3);
}

/* ---- resampling ---- */

/* A resampled time this near a frame's time is that frame. A frame time is
 * written to about six significant digits (BVH: 0.0333333 for 1/30 s), so
 * frame f's time is only known to f times that rounding: 1e-5 of the time
 * covers it; the cap of 1 % of a frame keeps two resampled times from taking
 * the same frame and bounds the shift on long clips. */
#define KG_RESAMPLE_SNAP_RELATIVE 1e-5
#define KG_RESAMPLE_SNAP_FRAMES 0.01
/* Below this angle (rad) between two quaternions slerp's weights are the
 * linear ones to within angle^2 / 6, far under rounding. */
#define KG_SLERP_LINEAR_BELOW 1e-10

/* o = slerp(a, b, w) along the shorter arc, quaternions w x y z. */
static void slerp(const double *a, const double *b, double w, double *o) {
    double dot = a[0] * b[0] + a[1] * b[1] + a[2] * b[2] + a[3] * b[3];
    double sign = dot < 0 ? -1 : 1; /* q and -q are the same turn: take the nearer */
    double diff = 0, sum = 0;
    for (int k = 0; k < 4; k++) {
        double bk = sign * b[k];
        diff += (bk - a[k]) * (bk - a[k]);
        sum += (bk + a[k]) * (bk + a[k]);
    }
    /* the angle between them as 4-vectors; atan2 stays exact where acos(dot) loses
     * half its digits (nearby frames) */
    double theta = 2 * atan2(sqrt(diff), sqrt(sum));
    double wa = 1 - w, wb = w;
    if (theta >= KG_SLERP_LINEAR_BELOW) {
        double s = sin(theta);
        wa = sin((1 - w) * theta) / s;
        wb = sin(w * theta) / s;
    }
    for (int k = 0; k < 4; k++) o[k] = wa * a[k] + wb * sign * b[k];
}

/* Marks the coordinates of q that start a quaternion (floating joints' w). */
static void mark_quaternions(const kg_model *m, unsigned char *quat) {
    memset(quat, 0, (size_t)m->nq);
    for (int j = 0; j < m->njoint; j++)
        if (m->joint[j].type == KG_JOINT_FLOATING) quat[m->joint[j].qadr + 3] = 1;
}

/* n values interpolated at w from a to b, quaternions (quat[k] set) slerped. */
static void lerp_values(const double *a, const double *b, double w, int n, const unsigned char *quat, double *o) {
    for (int k = 0; k < n; k++) {
        if (quat && quat[k]) {
            slerp(a + k, b + k, w, o + k);
            k += 3;
        } else {
            o[k] = a[k] + w * (b[k] - a[k]);
        }
    }
}

/* An empty motion of nframes frames, or NULL when memory runs out (the library's
 * allocators abort; a caller asking for a rate can ask for too much). */
static kg_motion *motion_alloc(int nq, int nframes, int with_base) {
    size_t n = nframes ? (size_t)nframes : 1, width = nq ? (size_t)nq : 1;
    if (n > SIZE_MAX / sizeof(double) / (width > 7 ? width : 7)) return NULL;
    kg_motion *r = calloc(1, sizeof *r);
    if (!r) return NULL;
    r->q = malloc(n * width * sizeof(double));
    r->base = with_base ? malloc(n * 7 * sizeof(double)) : NULL;
    if (!r->q || (with_base && !r->base)) {
        kg_motion_free(r);
        return NULL;
    }
    r->nq = nq, r->nframes = nframes, r->cap = n;
    return r;
}

/* How far from a frame time t may be and still be that frame (s). */
static double snap_window(double t, double frame_time, double fps) {
    double period = frame_time < 1 / fps ? frame_time : 1 / fps;
    double rel = KG_RESAMPLE_SNAP_RELATIVE * t, cap = KG_RESAMPLE_SNAP_FRAMES * period;
    return rel < cap ? rel : cap;
}

/* Output frame k of r: mo at time k / fps after its first frame. */
static void resample_frame(const kg_model *m, const kg_motion *mo, kg_motion *r, int k, double fps,
                           const unsigned char *quat) {
    int nq = mo->nq, last = mo->nframes - 1;
    double t = k / fps, s = last > 0 ? t / mo->frame_time : 0;
    double *q = r->q + (size_t)k * nq, *base = r->base ? r->base + 7 * (size_t)k : NULL;
    double near = fmin(round(s), last);
    int i = (int)near;
    if (fabs(t - near * mo->frame_time) <= snap_window(t, mo->frame_time, fps)) { /* on a frame: copy it */
        memcpy(q, mo->q + (size_t)i * nq, (size_t)nq * sizeof(double));
        if (base) memcpy(base, mo->base + 7 * (size_t)i, 7 * sizeof(double));
        return;
    }
    i = (int)floor(s);
    double w = s - i;
    if (i >= last) i = last - 1, w = 1; /* beyond the end by rounding: the last frame */
    lerp_values(mo->q + (size_t)i * nq, mo->q + (size_t)(i + 1) * nq, w, nq, quat, q);
    if (base) {
        lerp_values(mo->base + 7 * (size_t)i, mo->base + 7 * (size_t)(i + 1), w, 3, NULL, base);
        slerp(mo->base + 7 * (size_t)i + 3, mo->base + 7 * (size_t)(i + 1) + 3, w, base + 3);
    }
    kg_apply_mimic(m, q);
}

double kg_motion_resampled_frames(const kg_motion *mo, double fps) {
    if (!mo || !(fps > 0) || !isfinite(fps)) return -1;
    if (mo->nframes <= 1) return mo->nframes > 0; /* an empty motion stays empty, one frame stays one */
    if (!(mo->frame_time > 0) || !isfinite(mo->frame_time)) return -1;
    double span = (mo->nframes - 1) * mo->frame_time;
    return floor((span + snap_window(span, mo->frame_time, fps)) * fps) + 1;
}

kg_motion *kg_motion_resample(const kg_model *m, const kg_motion *mo, double fps) {
    if (!m || !mo || mo->nq != m->nq) return NULL;
    double frames = kg_motion_resampled_frames(mo, fps);
    if (!(frames >= 0 && frames <= INT_MAX)) return NULL;
    kg_motion *r = motion_alloc(mo->nq, (int)frames, mo->base != NULL);
    unsigned char *quat = malloc(mo->nq ? (size_t)mo->nq : 1);
    if (!r || !quat) {
        kg_motion_free(r);
        free(quat);
        return NULL;
    }
    mark_quaternions(m, quat);
    r->frame_time = 1 / fps;
    r->start_time = mo->start_time;
    for (int k = 0; k < r->nframes; k++) resample_frame(m, mo, r, k, fps, quat);
    free(quat);
    return r;
}

/* kg_motion_lowpass: a second-order Butterworth low-pass (bilinear transform,
 * the cutoff prewarped) run forwards and then backwards over each coordinate,
 * so the phase is zero and the gain at a frequency f is 1 / (1 + (tan(pi f /
 * fs) / tan(pi fc / fs))^4): one half at the cutoff, zero at half the frame
 * rate. Each pass starts in the steady state of the line through its first
 * two values; the ends are padded so that what is left of the start's
 * transient (the input's bend from that line) has died out (LOWPASS_SETTLE)
 * before the motion's frames: by odd reflection (2 x_end - x mirrored: a
 * motion that moves at its ends keeps its slope there instead of being pulled
 * to rest), continued in a straight line where the padding is longer than the
 * clip. */

/* What is left of the start's transient where the frames begin: the padding
 * is log(LOWPASS_SETTLE) / log|z| samples for the filter's poles z. */
#define LOWPASS_SETTLE 1e-9
/* The padding at most this many clips long each side (a cutoff whose period
 * is longer than the clip needs more: its ends are then less exact). */
#define LOWPASS_PAD_CLIPS 4
/* KG_LOWPASS_MAX_FRACTION (model.h): nearer half the frame rate the filter's
 * poles approach z = -1, it rings for hundreds of samples and hardly smooths. */

typedef struct lowpass {
    double b[3], a[3];
    int n, pad;
    double *buf; /* [n + 2 pad] */
} lowpass;

/* One pass over x[0..len) stepping by step (1 forwards, -1 backwards from
 * x[len - 1]), started as if its first two values' line had always been the
 * input: a ramp then passes with no transient at all (the output of the line
 * c + s k is c + s (k - tau), tau the filter's delay at zero frequency). */
static void lowpass_pass(const lowpass *L, double *x, int len, int step) {
    double *p = step > 0 ? x : x + len - 1;
    const double sl = len > 1 ? p[step] - p[0] : 0;
    const double tau = 1 - (L->a[1] + 2 * L->a[2]) / (1 + L->a[1] + L->a[2]); /* b's delay is 1 */
    double x1 = *p - sl, x2 = *p - 2 * sl, y1 = x1 - sl * tau, y2 = x2 - sl * tau;
    for (int i = 0; i < len; i++, p += step) {
        const double y = L->b[0] * *p + L->b[1] * x1 + L->b[2] * x2 - L->a[1] * y1 - L->a[2] * y2;
        x2 = x1, x1 = *p, y2 = y1, y1 = y, *p = y;
    }
}

/* The column x[0], x[stride], ... of n values low-passed in place. */
static void lowpass_column(const lowpass *L, double *x, size_t stride) {
    const int n = L->n, p = L->pad;
    double *b = L->buf;
    for (int i = 0; i < n; i++) b[p + i] = x[i * stride];
    for (int k = 1; k <= p; k++) {
        if (k < n) {
            b[p - k] = 2 * x[0] - x[k * stride];
            b[p + n - 1 + k] = 2 * x[(size_t)(n - 1) * stride] - x[(size_t)(n - 1 - k) * stride];
        } else { /* beyond the mirrored clip: on in a straight line */
            b[p - k] = 2 * b[p - k + 1] - b[p - k + 2];
            b[p + n - 1 + k] = 2 * b[p + n - 2 + k] - b[p + n - 3 + k];
        }
    }
    lowpass_pass(L, b, n + 2 * p, 1);
    lowpass_pass(L, b, n + 2 * p, -1);
    for (int i = 0; i < n; i++) x[i * stride] = b[p + i];
}

/* The quaternion columns q[0..3], q[stride], ... of n frames: each frame's
 * sign set to its predecessor's side (q and -q are one turn), the four
 * components low-passed, each frame normalised again. */
static void lowpass_quaternions(const lowpass *L, double *q, size_t stride) {
    for (int f = 1; f < L->n; f++) {
        double *c = q + f * stride, *prev = c - stride;
        if (c[0] * prev[0] + c[1] * prev[1] + c[2] * prev[2] + c[3] * prev[3] < 0)
            for (int k = 0; k < 4; k++) c[k] = -c[k];
    }
    for (int k = 0; k < 4; k++) lowpass_column(L, q + k, stride);
    for (int f = 0; f < L->n; f++) {
        double *c = q + f * stride, s = sqrt(c[0] * c[0] + c[1] * c[1] + c[2] * c[2] + c[3] * c[3]);
        for (int k = 0; k < 4 && s > 0; k++) c[k] /= s;
    }
}

int kg_motion_lowpass(const kg_model *m, kg_motion *mo, double cutoff) {
    if (!m || !mo || mo->nq != m->nq || !(cutoff > 0) || !isfinite(cutoff)) return -1;
    if (mo->nframes < 2) return 0; /* no rate, nothing to smooth */
    const double fs = 1 / mo->frame_time;
    if (!(mo->frame_time > 0) || !isfinite(fs) || !(cutoff <= KG_LOWPASS_MAX_FRACTION * fs)) return -1;
    if (mo->nframes < 3) return 0;
    lowpass L = {.n = mo->nframes};
    const double K = tan(KG_PI * cutoff / fs), d = 1 + sqrt(2) * K + K * K;
    L.b[0] = K * K / d, L.b[1] = 2 * L.b[0], L.b[2] = L.b[0];
    L.a[0] = 1, L.a[1] = 2 * (K * K - 1) / d, L.a[2] = (1 - sqrt(2) * K + K * K) / d;
    if (!(L.b[0] > 0) || !(L.a[2] < 1)) return -1; /* a cutoff too small for doubles */
    const double settle = ceil(log(LOWPASS_SETTLE) / log(sqrt(L.a[2]))); /* |z|^2 = a2 */
    L.pad = (int)fmin(settle, (double)LOWPASS_PAD_CLIPS * mo->nframes);
    unsigned char *quat = malloc(m->nq ? (size_t)m->nq : 1);
    L.buf = malloc(((size_t)mo->nframes + 2 * (size_t)L.pad) * sizeof *L.buf);
    if (!quat || !L.buf) {
        free(quat), free(L.buf);
        return -2;
    }
    mark_quaternions(m, quat);
    const size_t nq = (size_t)mo->nq;
    for (size_t k = 0; k < nq; k++) {
        if (quat[k]) lowpass_quaternions(&L, mo->q + k, nq), k += 3;
        else lowpass_column(&L, mo->q + k, nq);
    }
    if (mo->base) {
        for (int k = 0; k < 3; k++) lowpass_column(&L, mo->base + k, 7);
        lowpass_quaternions(&L, mo->base + 3, 7);
    }
    for (int f = 0; f < mo->nframes; f++) kg_apply_mimic(m, mo->q + (size_t)f * nq);
    free(quat), free(L.buf);
    return 0;
}
