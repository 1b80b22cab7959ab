/* COLLADA animations: channels, their samplers, and the frame grid a motion is
 * sampled on. Shared by node trees (collada_skeleton.c) and kinematics models
 * (collada.c), which differ only in what a driven element means to them.
 *
 * A channel drives one transform element (<matrix>, <translate>, <rotate>,
 * <scale>: a whole element, or one member .X/.Y/.Z/.ANGLE or (i)(j) = row i,
 * column j), named "nodeid/sid". When the file has animation clips, the
 * channels of the first are read (the others are listed). Between keys values
 * follow the sampler's interpolation: LINEAR, STEP, BEZIER with 2D tangents;
 * others are read as linear and reported. A whole matrix is interpolated as
 * viewers do: translation and scale linearly, rotation along the shortest arc.
 *
 * The grid: from the first key to the last, every dt, dt the coarsest step
 * every key time is a multiple of (the smallest gap or a fraction of it, at
 * least 1 ms; keys further apart than 1/24 s get frames at 30/s or more
 * between them), adjusted so that a whole number of frames spans the keys. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/spatial.h"
#include "formats/number.h"
#include "importers/collada.h"


enum { I_LINEAR, I_STEP, I_BEZIER };

/* The numbers of a <source>'s <float_array>, with its accessor's count and stride. */
static double *read_floats(cd *c, xmlNodePtr src, int *count, int *stride) {
    xmlNodePtr fa = src ? kg_xml_child(src, "float_array") : NULL;
    xmlNodePtr tc = src ? kg_xml_child(src, "technique_common") : NULL;
    xmlNodePtr acc = tc ? kg_xml_child(tc, "accessor") : NULL;
    double declared = 0, st = 1, ac = 0;
    if (!fa || !acc || kg_xml_double(&c->x, fa, "count", &declared) < 0 || kg_xml_double(&c->x, acc, "stride", &st) < 0 ||
        kg_xml_double(&c->x, acc, "count", &ac) < 0) {
        cd_diag(c, KG_WARNING, "collada.bad_source", src, "source '%s' has no float_array with an accessor; ignored%s",
                src ? kg_xml_attr(&c->x, src, "id") : "?", NULL);
        return NULL;
    }
    if (!(declared >= 0 && declared <= 1e8 && st >= 1 && st <= 64 && ac >= 0 && ac * st <= declared)) {
        cd_diag(c, KG_WARNING, "collada.bad_source", src, "source '%s': accessor count x stride exceeds the array, or "
                "absurd sizes; ignored%s", kg_xml_attr(&c->x, src, "id"), NULL);
        return NULL;
    }
    int n = (int)declared;
    double *v = malloc(((size_t)n + 1) * sizeof *v);
    if (!v) return cd_oom(c);
    const char *p = cd_text(c, fa);
    int got = 0;
    while (*p && got < n) {
        while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r') p++;
        if (!*p) break;
        const char *e = kg_parse_number(p, &v[got]);
        if (!e || !isfinite(v[got])) break;
        got++;
        p = e;
    }
    if (got < (int)(ac * st)) {
        cd_diag(c, KG_WARNING, "collada.bad_source", fa, "float_array '%s' holds fewer numbers than its accessor needs; "
                "ignored%s", kg_xml_attr(&c->x, fa, "id"), NULL);
        free(v);
        return NULL;
    }
    *count = (int)ac;
    *stride = (int)st;
    return v;
}

static int interp_code(const char *w) {
    if (!strcmp(w, "LINEAR")) return I_LINEAR;
    if (!strcmp(w, "STEP")) return I_STEP;
    if (!strcmp(w, "BEZIER")) return I_BEZIER;
    return -1;
}

/* Values per key of a whole element. */
static int element_size(xmlNodePtr el) {
    if (kg_xml_is(el, "matrix")) return 16;
    if (kg_xml_is(el, "rotate")) return 4;
    if (kg_xml_is(el, "translate") || kg_xml_is(el, "scale")) return 3;
    return 0;
}

/* Resolves "nodeid/sid[.member|(i)(j)]" to the transform element and member. */
static xmlNodePtr target(cd *c, const char *tgt, int *member, xmlNodePtr at) {
    /* c's copy, cut in place after its slash (the "" of memory run out has none) */
    char *buf = (char *)cd_strdup(c, tgt), *slash = strchr(buf, '/');
    if (!slash) return NULL;
    *slash = 0;
    char *sid = slash + 1, *sel = sid + strcspn(sid, ".(");
    *member = -1;
    if (*sel == '.') {
        const char *m = sel + 1;
        *member = !strcmp(m, "X") ? 0 : !strcmp(m, "Y") ? 1 : !strcmp(m, "Z") ? 2 : !strcmp(m, "ANGLE") ? 3 : -2;
    } else if (*sel == '(') {
        int i = -1, j = -1;
        if (sscanf(sel, "(%d)(%d)", &i, &j) == 2 && i >= 0 && i < 4 && j >= 0 && j < 4) *member = 4 * i + j;
        else if (sscanf(sel, "(%d)", &i) == 1 && i >= 0 && i < 16) *member = i;
        else *member = -2;
    }
    if (*member == -2) {
        cd_diag(c, KG_WARNING, "collada.bad_target", at, "animation target '%s': member not understood; ignored%s", tgt, NULL);
        return NULL;
    }
    *sel = 0;
    xmlNodePtr node = cd_by_id(c, buf);
    for (xmlNodePtr k = node ? kg_xml_first(node) : NULL; k; k = kg_xml_next(k)) {
        const char *s = kg_xml_attr(&c->x, k, "sid");
        if (s && !strcmp(s, sid) && element_size(k)) return k;
    }
    return NULL;
}

static void free_channel(cd_channel *ch) {
    free(ch->t);
    free(ch->v);
    free(ch->interp);
    free(ch->tin);
    free(ch->tout);
}

static void read_channel(cd *c, cd_anim *a, xmlNodePtr chn) {
    const char *tgt = kg_xml_attr(&c->x, chn, "target");
    xmlNodePtr smp = cd_by_url(c, kg_xml_attr(&c->x, chn, "source"));
    cd_channel ch;
    memset(&ch, 0, sizeof ch);
    if (!tgt || !smp || !kg_xml_is(smp, "sampler")) {
        cd_diag(c, KG_WARNING, "collada.bad_ref", chn, "channel '%s' has no sampler; ignored%s", tgt ? tgt : "?", NULL);
        return;
    }
    ch.el = target(c, tgt, &ch.member, chn);
    if (!ch.el) {
        cd_diag(c, KG_INFO, "collada.unused_channel", chn, "animation channel '%s' drives no node transform; not "
                "read%s", tgt, NULL);
        return;
    }
    int need = ch.member >= 0 ? 1 : element_size(ch.el);
    if (ch.member >= 0 && !kg_xml_is(ch.el, "matrix") && ch.member >= element_size(ch.el)) {
        cd_diag(c, KG_WARNING, "collada.bad_target", chn, "animation target '%s': no such member; ignored%s", tgt, NULL);
        return;
    }
    xmlNodePtr src[5] = {0}; /* INPUT OUTPUT INTERPOLATION IN_TANGENT OUT_TANGENT */
    static const char *sem[5] = {"INPUT", "OUTPUT", "INTERPOLATION", "IN_TANGENT", "OUT_TANGENT"};
    for (xmlNodePtr in = kg_xml_first(smp); in; in = kg_xml_next(in)) {
        const char *semantic = kg_xml_attr(&c->x, in, "semantic");
        for (int k = 0; k < 5 && semantic; k++)
            if (kg_xml_is(in, "input") && !strcmp(semantic, sem[k])) src[k] = cd_by_url(c, kg_xml_attr(&c->x, in, "source"));
    }
    int nt = 0, nv = 0, st = 1, sv = 1;
    ch.t = read_floats(c, src[0], &nt, &st);
    ch.v = read_floats(c, src[1], &nv, &sv);
    if (!ch.t || !ch.v || nt < 1 || nt != nv || sv != need) {
        cd_diag(c, KG_WARNING, "collada.bad_sampler", smp, "sampler of channel '%s': missing or mismatched INPUT/OUTPUT "
                "(keys, or values per key); ignored%s", tgt, NULL);
        free_channel(&ch);
        return;
    }
    if (st != 1)
        for (int k = 0; k < nt; k++) ch.t[k] = ch.t[k * st];
    for (int k = 1; k < nt; k++)
        if (!(ch.t[k] >= ch.t[k - 1])) {
            cd_diag(c, KG_WARNING, "collada.bad_sampler", smp, "sampler of channel '%s': key times go backwards; "
                    "ignored%s", tgt, NULL);
            free_channel(&ch);
            return;
        }
    ch.n = nt;
    ch.stride = sv;
    if (!(ch.interp = calloc((size_t)nt, sizeof *ch.interp))) {
        free_channel(&ch);
        cd_oom(c);
        return;
    }
    xmlNodePtr na = src[2] ? kg_xml_child(src[2], "Name_array") : NULL;
    if (na) {
        const char *p = cd_text(c, na);
        for (int k = 0; k < nt && *p; k++) {
            while (*p == ' ' || *p == '\n' || *p == '\t' || *p == '\r') p++;
            char w[32];
            int len = (int)strcspn(p, " \n\t\r");
            snprintf(w, sizeof w, "%.*s", len, p);
            p += len;
            int code = interp_code(w);
            if (code < 0) a->odd_interp++, code = I_LINEAR;
            ch.interp[k] = code;
        }
    }
    int n3 = 0, n4 = 0, s3 = 0, s4 = 0;
    double *tin = src[3] ? read_floats(c, src[3], &n3, &s3) : NULL, *tout = src[4] ? read_floats(c, src[4], &n4, &s4) : NULL;
    if (tin && tout && n3 == nt && n4 == nt && s3 == 2 * sv && s4 == 2 * sv) {
        ch.tin = tin;
        ch.tout = tout;
    } else {
        free(tin);
        free(tout);
        for (int k = 0; k < nt; k++)
            if (ch.interp[k] == I_BEZIER) ch.interp[k] = I_LINEAR, a->odd_interp++;
    }
    if (a->t1 > a->t0 && (ch.t[0] > a->t1 || ch.t[nt - 1] < a->t0)) { /* outside the clip */
        free_channel(&ch);
        return;
    }
    if (cd_grow(c, (void **)&a->ch, a->nch, &a->capch, sizeof *a->ch) != 0) {
        free_channel(&ch);
        return;
    }
    a->ch[a->nch++] = ch;
}

static void read_animation(cd *c, cd_anim *a, xmlNodePtr an, int depth) {
    if (depth > KG_LIMIT_ANIMATION_DEPTH) { /* said once: the caller's loop goes on with the siblings */
        char limit[16];
        snprintf(limit, sizeof limit, "%d", KG_LIMIT_ANIMATION_DEPTH);
        if (!a->too_deep++)
            cd_diag(c, KG_ERROR, "collada.too_deep", an, "animations nested deeper than %s "
                    "(KG_LIMIT_ANIMATION_DEPTH); the deeper ones are not read%s", limit, NULL);
        return;
    }
    for (xmlNodePtr k = kg_xml_first(an); k; k = kg_xml_next(k)) {
        if (kg_xml_is(k, "channel")) read_channel(c, a, k);
        else if (kg_xml_is(k, "animation")) read_animation(c, a, k, depth + 1);
    }
}

void cd_read_animations(cd *c, xmlNodePtr root, cd_anim *a) {
    memset(a, 0, sizeof *a);
    xmlNodePtr clips = kg_xml_child(root, "library_animation_clips");
    xmlNodePtr clip = clips ? kg_xml_child(clips, "animation_clip") : NULL;
    if (clip) {
        kg_xml_double(&c->x, clip, "start", &a->t0);
        kg_xml_double(&c->x, clip, "end", &a->t1);
        int others = 0;
        for (xmlNodePtr k = kg_xml_next(clip); k; k = kg_xml_next(k)) others += kg_xml_is(k, "animation_clip");
        if (others) {
            char n[16];
            snprintf(n, sizeof n, "%d", others);
            cd_diag(c, KG_INFO, "collada.clips", clip, "the file has %s more animation clips; the first, '%s', is read",
                    n, kg_xml_attr(&c->x, clip, "id") ? kg_xml_attr(&c->x, clip, "id") : "");
        }
        for (xmlNodePtr ia = kg_xml_first(clip); ia; ia = kg_xml_next(ia)) {
            xmlNodePtr an = kg_xml_is(ia, "instance_animation") ? cd_by_url(c, kg_xml_attr(&c->x, ia, "url")) : NULL;
            if (an) read_animation(c, a, an, 0);
        }
    } else {
        xmlNodePtr lib = kg_xml_child(root, "library_animations");
        if (lib) read_animation(c, a, lib, 0);
    }
    if (a->odd_interp)
        cd_diag(c, KG_WARNING, "collada.interpolation", root, "some animation keys use an interpolation other than LINEAR, "
                "STEP or BEZIER with 2D tangents; they are read as LINEAR%s%s", NULL, NULL);
}

void cd_anim_free(cd_anim *a) {
    for (int i = 0; i < a->nch; i++) free_channel(&a->ch[i]);
    free(a->ch);
    memset(a, 0, sizeof *a);
}

/* The key interval of t: T[lo] <= t < T[hi] (lo == hi outside the keys). */
static void interval(const cd_channel *ch, double t, int *lo, int *hi) {
    const double *T = ch->t;
    int n = ch->n;
    if (t <= T[0] || n == 1) {
        *lo = *hi = 0;
        return;
    }
    if (t >= T[n - 1]) {
        *lo = *hi = n - 1;
        return;
    }
    int a = 0, b = n - 1;
    while (b - a > 1) {
        int mid = (a + b) / 2;
        if (T[mid] <= t) a = mid;
        else b = mid;
    }
    *lo = a;
    *hi = b;
}

double cd_channel_value(const cd_channel *ch, int k, double t) {
    int lo, hi, d = ch->stride;
    interval(ch, t, &lo, &hi);
    double a = ch->v[lo * d + k], b = ch->v[hi * d + k], span = ch->t[hi] - ch->t[lo];
    if (lo == hi || ch->interp[lo] == I_STEP || span <= 0) return a;
    if (ch->interp[lo] == I_BEZIER) {
        /* (T0, a), the out tangent of lo, the in tangent of hi, (T1, b): find s with x(s) = t */
        double x0 = ch->t[lo], x1 = ch->tout[lo * 2 * d + 2 * k], x2 = ch->tin[hi * 2 * d + 2 * k], x3 = ch->t[hi];
        double y1 = ch->tout[lo * 2 * d + 2 * k + 1], y2 = ch->tin[hi * 2 * d + 2 * k + 1];
        double s0 = 0, s1 = 1, u = 0.5;
        for (int it = 0; it < 60; it++) {
            u = (s0 + s1) / 2;
            double w = 1 - u, x = w * w * w * x0 + 3 * w * w * u * x1 + 3 * w * u * u * x2 + u * u * u * x3;
            if (x < t) s0 = u;
            else s1 = u;
        }
        double w = 1 - u;
        return w * w * w * a + 3 * w * w * u * y1 + 3 * w * u * u * y2 + u * u * u * b;
    }
    return a + (b - a) * (t - ch->t[lo]) / span;
}

void cd_channel_matrix(const cd_channel *ch, double t, double out[16]) {
    int lo, hi;
    interval(ch, t, &lo, &hi);
    double span = ch->t[hi] - ch->t[lo];
    double u = lo == hi || ch->interp[lo] == I_STEP || span <= 0 ? 0 : (t - ch->t[lo]) / span;
    if (u == 0) {
        memcpy(out, ch->v + 16 * lo, 16 * sizeof *out);
        return;
    }
    pose a, b, ra, rb;
    double sa[3], sb[3], qa[4], qb[4];
    for (int i = 0; i < 3; i++) {
        for (int j = 0; j < 3; j++) a.r[3 * i + j] = ch->v[16 * lo + 4 * i + j], b.r[3 * i + j] = ch->v[16 * hi + 4 * i + j];
        a.p[i] = ch->v[16 * lo + 4 * i + 3];
        b.p[i] = ch->v[16 * hi + 4 * i + 3];
    }
    cd_pose_split(&a, &ra, sa);
    cd_pose_split(&b, &rb, sb);
    kg_rot_to_quat(ra.r, qa);
    kg_rot_to_quat(rb.r, qb);
    double dot = qa[0] * qb[0] + qa[1] * qb[1] + qa[2] * qb[2] + qa[3] * qb[3], q[4], r[9];
    if (dot < 0) {
        dot = -dot;
        for (int k = 0; k < 4; k++) qb[k] = -qb[k];
    }
    double wa = 1 - u, wb = u;
    if (dot < 0.9999) {
        double th = acos(dot), st = sin(th);
        wa = sin((1 - u) * th) / st;
        wb = sin(u * th) / st;
    }
    double len = 0;
    for (int k = 0; k < 4; k++) q[k] = wa * qa[k] + wb * qb[k], len += q[k] * q[k];
    for (int k = 0; k < 4; k++) q[k] /= sqrt(len);
    kg_rot_from_quat(r, q);
    memset(out, 0, 16 * sizeof *out);
    for (int i = 0; i < 3; i++) {
        for (int j = 0; j < 3; j++) out[4 * i + j] = r[3 * i + j] * ((1 - u) * sa[j] + u * sb[j]);
        out[4 * i + 3] = (1 - u) * a.p[i] + u * b.p[i];
    }
    out[15] = 1;
}

int cd_anim_grid(cd *c, const cd_anim *a, size_t per_frame, double *start, double *step) {
    double lo = INFINITY, hi = -INFINITY, dt = INFINITY;
    for (int i = 0; i < a->nch; i++) {
        const cd_channel *ch = &a->ch[i];
        lo = fmin(lo, ch->t[0]);
        hi = fmax(hi, ch->t[ch->n - 1]);
        for (int k = 1; k < ch->n; k++)
            if (ch->t[k] - ch->t[k - 1] > 1e-9) dt = fmin(dt, ch->t[k] - ch->t[k - 1]);
    }
    if (a->t1 > a->t0) lo = fmax(lo, a->t0), hi = fmin(hi, a->t1); /* a clip's range */
    if (!isfinite(dt)) dt = 1.0 / 30;                               /* one key per channel: one frame */
    /* the coarsest grid every key is on: the smallest gap, or a fraction of it */
    double base = dt;
    int found = 0;
    for (int k = 1; k <= 240 && !found && base / k >= 1e-3; k++) {
        int ok = 1;
        for (int i = 0; i < a->nch && ok; i++)
            for (int j = 0; j < a->ch[i].n && ok; j++) {
                double f = (a->ch[i].t[j] - lo) * k / base;
                ok = fabs(f - nearbyint(f)) <= 1e-3; /* times are often printed with 6 or 7 digits */
            }
        if (ok) dt = base / k, found = 1;
    }
    if (!found) {
        char b[32];
        kg_format_number(b, dt);
        cd_diag(c, KG_INFO, "collada.resampled", NULL, "animation keys are not on one time grid; the motion samples "
                "them every %s s%s", b, NULL);
    }
    if (dt > 1.01 / 24) dt /= ceil(dt * 30 - 1e-3); /* sparse keys (not 24/s): at least 30 frames/s between them */
    if (dt < 1e-3) dt = 1e-3;
    double span = hi > lo ? hi - lo : 0;
    /* keys printed with few digits make uneven gaps: fit the grid to the whole
     * span so the first and last keys are frames */
    if (span > 0) dt = span / fmax(1, nearbyint(span / dt));
    *start = lo;
    *step = dt;
    double frames = nearbyint(span / dt) + 1;
    double samples = (double)KG_LIMIT(KG_LIMIT_COLLADA_SAMPLES), most = fmin(KG_LIMIT_COLLADA_FRAMES,
                                                                             fmax(1, floor(samples / fmax(1, per_frame))));
    if (frames > most) { /* a cut motion is data dropped: an error, never silent */
        char n[32], limit[128];
        kg_format_number(n, frames);
        kg_format_number(limit, most);
        strcat(limit, most < KG_LIMIT_COLLADA_FRAMES ? " (KG_LIMIT_COLLADA_SAMPLES over the values of a frame)"
                                                     : " (KG_LIMIT_COLLADA_FRAMES)");
        cd_diag(c, KG_ERROR, "collada.too_many_frames", a->nch ? a->ch[0].el : NULL, "the animations make %s frames; "
                "only the first %s are read", n, limit);
        return (int)most;
    }
    return (int)frames;
}
