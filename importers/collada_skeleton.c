/* COLLADA node trees as models: the skeletons of animation tools (COLLADA 1.4.1
 * JOINT nodes, also instanced from library_nodes), and plain scenes.
 *
 * Model. A static root link "world" stands for the scene. A node becomes a link
 * when it is a JOINT, when one of its transforms is animated, or when a link
 * hangs below it; its joint is free (floating: x, y, z, then a unit quaternion)
 * for JOINT and animated nodes, fixed otherwise. Joint origins are the rest
 * transforms as written: at q = rest (zero translation, identity rotation) the
 * model stands in the file's pose. Link frames are the nodes' frames without
 * their scale (an ancestor's scale still scales the offsets below it);
 * geometry of other nodes, and the bind-pose mesh of skins, belong to the
 * nearest link above.
 *
 * Motion. Animation channels drive transform elements (a whole <matrix>,
 * <translate>, <rotate> or <scale>, or one member: .X, .ANGLE, (i)(j) = row i,
 * column j). When the file has animation clips, the first is read (the others
 * are listed). Frames are sampled every dt from the first key to the last,
 * dt the coarsest step every key time is a multiple of (the smallest gap or a
 * fraction of it, at least 1 ms; keys further apart than 1/24 s get frames at
 * 30/s or more between them), adjusted so that a whole number of frames spans
 * the keys; between keys values
 * follow the sampler's interpolation (LINEAR, STEP, BEZIER with 2D tangents;
 * others linear, reported). Each frame's free-joint coordinates are the nodes'
 * rigid frames relative to their parents' at that time, exactly, whatever
 * mix of channels produced them.
 *
 * Units: lengths (translations, matrix offsets) are multiplied by <unit meter>;
 * <up_axis> is kept (the file's axes), and reported when it is not Z. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/arena.h"
#include "core/spatial.h"
#include "formats/number.h"
#include "importers/collada.h"

#define MAX_NODES 100000
#define MAX_DEPTH 256
#define MAX_FRAMES 1000000

enum { X_TRANSLATE, X_ROTATE, X_SCALE, X_MATRIX };

typedef struct xform { /* one transform element of a node */
    int kind;
    double v[16];      /* current values, as in the file (degrees, file lengths) */
    xmlNodePtr el;
} xform;

typedef struct snode {
    xmlNodePtr node;
    const char *name;  /* the instance_node's name, else the node's */
    int parent;        /* index in nodes; -1 for a top node */
    int first_x, nx;   /* its transform elements in xs */
    int joint;         /* type="JOINT" */
    int animated;
    int is_link, up;   /* up: the nearest link above (-1: world) */
    int skeleton_free; /* moves: a free joint */
    pose world;        /* affine, at the current time */
    pose frame;        /* the rigid part of world */
    pose origin;       /* joint origin: frame relative to up's frame at rest */
    kg_link *made;
    kg_joint *j;
} snode;

typedef struct channel {
    int *xs, nxs;      /* the transform elements it drives (a library node instanced twice: two) */
    int member;        /* -1: the whole element; else one value */
    int stride, n;     /* values per key, keys */
    double *t, *v;
    int *interp;       /* per key */
    double *tin, *tout; /* BEZIER control points, (time, value) per value, or NULL */
} channel;

enum { I_LINEAR, I_STEP, I_BEZIER };

typedef struct sk {
    cd *c;
    snode *nodes;
    int nnodes;
    xform *xs;
    int nxs;
    channel *ch;
    int nch;
    int odd_interp;     /* keys with interpolations read as linear */
    int shear;          /* frames with shear (warned once) */
    int truncated;
} sk;

/* ---- the node tree ------------------------------------------------------------------ */

static int read_xform(sk *s, xmlNodePtr e) {
    cd *c = s->c;
    int kind, n;
    if (kg_xml_is(e, "translate")) kind = X_TRANSLATE, n = 3;
    else if (kg_xml_is(e, "rotate")) kind = X_ROTATE, n = 4;
    else if (kg_xml_is(e, "scale")) kind = X_SCALE, n = 3;
    else if (kg_xml_is(e, "matrix")) kind = X_MATRIX, n = 16;
    else {
        if (kg_xml_is(e, "lookat") || kg_xml_is(e, "skew"))
            cd_diag(c, KG_WARNING, "collada.transform_ignored", e, "<%s> transforms are not read; the node is placed "
                    "without it%s", cd_tag(e), NULL);
        return 0;
    }
    xform x = {kind, {0}, e};
    if (cd_numbers(c, e, x.v, n) != 0) {
        memset(x.v, 0, sizeof x.v);
        if (kind == X_SCALE) x.v[0] = x.v[1] = x.v[2] = 1;
        if (kind == X_MATRIX) x.v[0] = x.v[5] = x.v[10] = x.v[15] = 1;
        if (kind == X_ROTATE) x.v[2] = 1;
    }
    s->xs = kg_xrealloc(s->xs, (size_t)(s->nxs + 1) * sizeof *s->xs);
    s->xs[s->nxs++] = x;
    return 1;
}

static void collect(sk *s, xmlNodePtr node, const char *name, int parent, int depth) {
    cd *c = s->c;
    if (depth > MAX_DEPTH || s->nnodes >= MAX_NODES) {
        if (!s->truncated++)
            cd_diag(c, KG_ERROR, "collada.too_deep", node, "the node tree is deeper than %s levels or larger than 100000 "
                    "nodes (instance_node cycles?); the rest is ignored%s", "256", NULL);
        return;
    }
    int self = s->nnodes++;
    s->nodes = kg_xrealloc(s->nodes, (size_t)s->nnodes * sizeof *s->nodes);
    snode *n = &s->nodes[self];
    memset(n, 0, sizeof *n);
    n->node = node;
    n->parent = parent;
    const char *type = kg_xml_attr(&c->x, node, "type");
    n->joint = type && !strcmp(type, "JOINT");
    if (!name || !*name) name = kg_xml_attr(&c->x, node, "name");
    if (!name || !*name) name = kg_xml_attr(&c->x, node, "sid");
    if (!name || !*name) name = kg_xml_attr(&c->x, node, "id");
    n->name = name && *name ? name : "node";
    n->first_x = s->nxs;
    for (xmlNodePtr k = kg_xml_first(node); k; k = kg_xml_next(k)) s->nodes[self].nx += read_xform(s, k);
    for (xmlNodePtr k = kg_xml_first(node); k; k = kg_xml_next(k)) {
        if (kg_xml_is(k, "node")) {
            collect(s, k, NULL, self, depth + 1);
        } else if (kg_xml_is(k, "instance_node")) {
            xmlNodePtr t = cd_by_url(c, kg_xml_attr(&c->x, k, "url"));
            if (t && kg_xml_is(t, "node")) collect(s, t, kg_xml_attr(&c->x, k, "name"), self, depth + 1);
            else cd_diag(c, KG_WARNING, "collada.bad_ref", k, "<instance_node url='%s'> names no node; ignored%s",
                         kg_xml_attr(&c->x, k, "url"), NULL);
        }
    }
}

/* The affine transform of a node's elements at their current values (metres). */
static void local_pose(const sk *s, const snode *n, pose *out) {
    double u = s->c->unit;
    cd_pose_identity(out);
    for (int i = 0; i < n->nx; i++) {
        const xform *x = &s->xs[n->first_x + i];
        pose t;
        cd_pose_identity(&t);
        switch (x->kind) {
        case X_TRANSLATE:
            for (int k = 0; k < 3; k++) t.p[k] = x->v[k] * u;
            break;
        case X_ROTATE: {
            double a[3] = {x->v[0], x->v[1], x->v[2]}, len = kg_vec3_norm(a);
            if (len == 0) continue;
            for (int k = 0; k < 3; k++) a[k] /= len;
            kg_rot_axis_angle(t.r, a, x->v[3] * KG_PI / 180);
            break;
        }
        case X_SCALE:
            for (int k = 0; k < 3; k++) t.r[4 * k] = x->v[k];
            break;
        case X_MATRIX:
            for (int i2 = 0; i2 < 3; i2++) {
                for (int j = 0; j < 3; j++) t.r[3 * i2 + j] = x->v[4 * i2 + j];
                t.p[i2] = x->v[4 * i2 + 3] * u;
            }
            break;
        }
        cd_pose_mul(out, out, &t);
    }
}

/* World transforms and rigid frames of every node (parents come first). */
static void place(sk *s) {
    for (int i = 0; i < s->nnodes; i++) {
        snode *n = &s->nodes[i];
        pose l;
        local_pose(s, n, &l);
        if (n->parent >= 0) cd_pose_mul(&n->world, &s->nodes[n->parent].world, &l);
        else n->world = l;
        double scale[3];
        if (cd_pose_split(&n->world, &n->frame, scale) && !s->shear++)
            cd_diag(s->c, KG_WARNING, "collada.shear", n->node, "node '%s' is sheared (a non-uniform scale above a rotation, "
                    "at rest or in its animation); its frame is the nearest rotation%s", n->name, NULL);
    }
}

/* ---- animations -------------------------------------------------------------------- */

/* The numbers of a <source>'s <float_array>, with its accessor's stride. */
static double *read_floats(sk *s, xmlNodePtr src, int *count, int *stride) {
    cd *c = s->c;
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
    double *v = kg_xmalloc(((size_t)n + 1) * sizeof *v);
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

/* Resolves a channel target "nodeid/sid[.member|(i)(j)]" to transform elements. */
static int target(sk *s, channel *ch, const char *tgt, xmlNodePtr at) {
    cd *c = s->c;
    char buf[512];
    snprintf(buf, sizeof buf, "%s", tgt);
    char *slash = strchr(buf, '/');
    if (!slash) return -1;
    *slash = 0;
    char *sid = slash + 1, *sel = sid + strcspn(sid, ".(");
    ch->member = -1;
    if (*sel == '.') {
        const char *m = sel + 1;
        ch->member = !strcmp(m, "X") ? 0 : !strcmp(m, "Y") ? 1 : !strcmp(m, "Z") ? 2 : !strcmp(m, "ANGLE") ? 3 : -2;
    } else if (*sel == '(') {
        int i = -1, j = -1;
        if (sscanf(sel, "(%d)(%d)", &i, &j) == 2 && i >= 0 && i < 4 && j >= 0 && j < 4) ch->member = 4 * i + j;
        else if (sscanf(sel, "(%d)", &i) == 1 && i >= 0 && i < 16) ch->member = i;
        else ch->member = -2;
    }
    if (ch->member == -2) {
        cd_diag(c, KG_WARNING, "collada.bad_target", at, "animation target '%s': member not understood; ignored%s", tgt, NULL);
        return -1;
    }
    *sel = 0;
    char url[520];
    snprintf(url, sizeof url, "#%s", buf);
    xmlNodePtr node = cd_by_url(c, url);
    if (!node) return -1;
    for (int i = 0; i < s->nnodes; i++) {
        if (s->nodes[i].node != node) continue;
        for (int k = 0; k < s->nodes[i].nx; k++) {
            const char *xs = kg_xml_attr(&c->x, s->xs[s->nodes[i].first_x + k].el, "sid");
            if (xs && !strcmp(xs, sid)) {
                ch->xs = kg_xrealloc(ch->xs, (size_t)(ch->nxs + 1) * sizeof *ch->xs);
                ch->xs[ch->nxs++] = s->nodes[i].first_x + k;
                s->nodes[i].animated = 1;
            }
        }
    }
    return ch->nxs ? 0 : -1;
}

static void read_channel(sk *s, xmlNodePtr chn, xmlNodePtr anim, double t0, double t1) {
    cd *c = s->c;
    const char *tgt = kg_xml_attr(&c->x, chn, "target");
    xmlNodePtr smp = cd_by_url(c, kg_xml_attr(&c->x, chn, "source"));
    channel ch;
    memset(&ch, 0, sizeof ch);
    if (!tgt || !smp || !kg_xml_is(smp, "sampler")) {
        cd_diag(c, KG_WARNING, "collada.bad_ref", chn, "channel '%s' has no sampler; ignored%s", tgt ? tgt : "?", NULL);
        return;
    }
    if (target(s, &ch, tgt, chn) != 0) {
        cd_diag(c, KG_INFO, "collada.unused_channel", chn, "animation channel '%s' drives nothing of the node tree; "
                "not read%s", tgt, NULL);
        free(ch.xs);
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
    ch.t = read_floats(s, src[0], &nt, &st);
    ch.v = read_floats(s, src[1], &nv, &sv);
    int need = ch.member >= 0 ? 1 : 0;
    if (!need) {
        int kind = s->xs[ch.xs[0]].kind;
        need = kind == X_MATRIX ? 16 : kind == X_ROTATE ? 4 : 3;
    }
    if (!ch.t || !ch.v || nt < 1 || nt != nv || sv != need) {
        cd_diag(c, KG_WARNING, "collada.bad_sampler", smp, "sampler of channel '%s': missing or mismatched INPUT/OUTPUT "
                "(keys, or values per key); ignored%s", tgt, NULL);
        goto drop;
    }
    for (int k = 1; k < nt; k++)
        if (!(ch.t[k * st] >= ch.t[(k - 1) * st])) {
            cd_diag(c, KG_WARNING, "collada.bad_sampler", smp, "sampler of channel '%s': key times go backwards; "
                    "ignored%s", tgt, NULL);
            goto drop;
        }
    if (st != 1) for (int k = 0; k < nt; k++) ch.t[k] = ch.t[k * st];
    ch.n = nt;
    ch.stride = sv;
    ch.interp = kg_xcalloc((size_t)nt, sizeof *ch.interp);
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
            if (code < 0) s->odd_interp++, code = I_LINEAR;
            ch.interp[k] = code;
        }
    }
    int n3 = 0, n4 = 0, s3 = 0, s4 = 0;
    double *tin = src[3] ? read_floats(s, src[3], &n3, &s3) : NULL, *tout = src[4] ? read_floats(s, src[4], &n4, &s4) : NULL;
    if (tin && tout && n3 == nt && n4 == nt && s3 == 2 * sv && s4 == 2 * sv) {
        ch.tin = tin;
        ch.tout = tout;
    } else {
        free(tin);
        free(tout);
        for (int k = 0; k < nt; k++)
            if (ch.interp[k] == I_BEZIER) ch.interp[k] = I_LINEAR, s->odd_interp++;
    }
    /* a clip's time range */
    if (t1 > t0 && (ch.t[0] > t1 || ch.t[nt - 1] < t0)) goto drop;
    if (ch.member >= 0 && s->xs[ch.xs[0]].kind != X_MATRIX && ch.member >= (s->xs[ch.xs[0]].kind == X_ROTATE ? 4 : 3)) {
        cd_diag(c, KG_WARNING, "collada.bad_target", chn, "animation target '%s': no such member; ignored%s", tgt, NULL);
        goto drop;
    }
    (void)anim;
    s->ch = kg_xrealloc(s->ch, (size_t)(s->nch + 1) * sizeof *s->ch);
    s->ch[s->nch++] = ch;
    return;
drop:
    free(ch.xs);
    free(ch.t);
    free(ch.v);
    free(ch.interp);
    free(ch.tin);
    free(ch.tout);
}

static void read_animation(sk *s, xmlNodePtr a, double t0, double t1, int depth) {
    if (depth > MAX_DEPTH) return;
    for (xmlNodePtr k = kg_xml_first(a); k; k = kg_xml_next(k)) {
        if (kg_xml_is(k, "channel")) read_channel(s, k, a, t0, t1);
        else if (kg_xml_is(k, "animation")) read_animation(s, k, t0, t1, depth + 1);
    }
}

/* Channels of the first clip, or of every animation when there are no clips. */
static void read_animations(sk *s, xmlNodePtr root, double *t0, double *t1) {
    cd *c = s->c;
    *t0 = *t1 = 0;
    xmlNodePtr clips = kg_xml_child(root, "library_animation_clips");
    xmlNodePtr clip = clips ? kg_xml_child(clips, "animation_clip") : NULL;
    if (clip) {
        kg_xml_double(&c->x, clip, "start", t0);
        kg_xml_double(&c->x, clip, "end", t1);
        int others = 0;
        for (xmlNodePtr k = kg_xml_next(clip); k; k = kg_xml_next(k)) others += kg_xml_is(k, "animation_clip");
        if (others) {
            char n[16];
            snprintf(n, sizeof n, "%d", others);
            cd_diag(c, KG_INFO, "collada.clips", clip, "the file has %s more animation clips; the first, '%s', is read",
                    n, kg_xml_attr(&c->x, clip, "id") ? kg_xml_attr(&c->x, clip, "id") : "");
        }
        for (xmlNodePtr ia = kg_xml_first(clip); ia; ia = kg_xml_next(ia)) {
            xmlNodePtr a = kg_xml_is(ia, "instance_animation") ? cd_by_url(c, kg_xml_attr(&c->x, ia, "url")) : NULL;
            if (a) read_animation(s, a, *t0, *t1, 0);
        }
        return;
    }
    xmlNodePtr lib = kg_xml_child(root, "library_animations");
    if (lib) read_animation(s, lib, 0, 0, 0);
}

/* Value index k of channel ch at time t. */
static double sample(const channel *ch, int k, double t) {
    const double *T = ch->t;
    int n = ch->n, d = ch->stride;
    if (t <= T[0] || n == 1) return ch->v[k];
    if (t >= T[n - 1]) return ch->v[(n - 1) * d + k];
    int lo = 0, hi = n - 1; /* T[lo] <= t < T[hi] */
    while (hi - lo > 1) {
        int mid = (lo + hi) / 2;
        if (T[mid] <= t) lo = mid;
        else hi = mid;
    }
    double a = ch->v[lo * d + k], b = ch->v[hi * d + k], span = T[hi] - T[lo];
    if (ch->interp[lo] == I_STEP || span <= 0) return a;
    if (ch->interp[lo] == I_BEZIER) {
        /* (T0, a), out tangent of lo, in tangent of hi, (T1, b): find s with x(s) = t */
        double x0 = T[lo], x1 = ch->tout[lo * 2 * d + 2 * k], x2 = ch->tin[hi * 2 * d + 2 * k], x3 = T[hi];
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
    return a + (b - a) * (t - T[lo]) / span;
}

/* A whole matrix between two keys: translation and scale linear, rotation
 * along the shortest arc (as viewers do; interpolating the 16 numbers would
 * shear the frames between keys). STEP holds. */
static void sample_matrix(const channel *ch, double t, double out[16]) {
    const double *T = ch->t;
    int n = ch->n, lo = 0, hi = 0;
    double u = 0;
    if (t >= T[n - 1]) lo = hi = n - 1;
    else if (t > T[0]) {
        hi = n - 1;
        while (hi - lo > 1) {
            int mid = (lo + hi) / 2;
            if (T[mid] <= t) lo = mid;
            else hi = mid;
        }
        u = ch->interp[lo] == I_STEP || T[hi] <= T[lo] ? 0 : (t - T[lo]) / (T[hi] - T[lo]);
    }
    if (u == 0 || lo == hi) {
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

/* Sets every driven element to its value at time t. */
static void apply(sk *s, double t) {
    for (int i = 0; i < s->nch; i++) {
        const channel *ch = &s->ch[i];
        double m16[16];
        int whole_matrix = ch->member < 0 && ch->stride == 16;
        if (whole_matrix) sample_matrix(ch, t, m16);
        for (int e = 0; e < ch->nxs; e++) {
            xform *x = &s->xs[ch->xs[e]];
            if (whole_matrix) memcpy(x->v, m16, sizeof m16);
            else if (ch->member >= 0) x->v[ch->member] = sample(ch, 0, t);
            else for (int k = 0; k < ch->stride; k++) x->v[k] = sample(ch, k, t);
        }
    }
}

/* ---- the model ---------------------------------------------------------------------- */

/* The inverse of a rigid transform. */
static void rigid_inverse(const pose *f, pose *inv) {
    for (int a = 0; a < 3; a++)
        for (int b = 0; b < 3; b++) inv->r[3 * a + b] = f->r[3 * b + a];
    double t[3];
    kg_mat3_vec(t, inv->r, f->p);
    for (int a = 0; a < 3; a++) inv->p[a] = -t[a];
}

/* Node i's frame (rigid) or world transform (affine) seen from link `up`'s frame. */
static void seen_from(const sk *s, int up, const pose *x, pose *out) {
    if (up < 0) {
        *out = *x;
        return;
    }
    pose inv;
    rigid_inverse(&s->nodes[up].frame, &inv);
    cd_pose_mul(out, &inv, x);
}

/* A free joint's coordinates now: origin^-1 (frame of up)^-1 frame, as x, y, z and
 * the quaternion nearest the previous frame's (prev NULL: w >= 0). */
static void joint_coordinates(const sk *s, const snode *n, double *q, const double *prev) {
    pose rel, oinv;
    seen_from(s, n->up, &n->frame, &rel);
    rigid_inverse(&n->origin, &oinv);
    cd_pose_mul(&rel, &oinv, &rel);
    kg_vec3_copy(q, rel.p);
    kg_rot_to_quat(rel.r, q + 3);
    double norm = sqrt(q[3] * q[3] + q[4] * q[4] + q[5] * q[5] + q[6] * q[6]);
    double sign = prev && q[3] * prev[3] + q[4] * prev[4] + q[5] * prev[5] + q[6] * prev[6] < 0 ? -1 : 1;
    for (int k = 3; k < 7; k++) q[k] *= sign / norm;
}

/* Geometry of a node (instance_geometry, and the bind-pose mesh of a skin) on
 * the link `up`. */
static void node_geometry(sk *s, int i, kg_link *L, int up) {
    cd *c = s->c;
    snode *n = &s->nodes[i];
    pose at;
    seen_from(s, up, &n->world, &at);
    const char *holder = n->is_link ? NULL : n->name;
    for (xmlNodePtr k = kg_xml_first(n->node); k; k = kg_xml_next(k)) {
        if (kg_xml_is(k, "instance_geometry")) {
            const char *url = kg_xml_attr(&c->x, k, "url");
            kg_geom *g = cd_add_geometry(c, url, k, L, KG_VISUAL, &at, holder);
            if (g) cd_bind_material(c, n->node, k, url, g);
        } else if (kg_xml_is(k, "instance_controller")) {
            xmlNodePtr ctl = cd_by_url(c, kg_xml_attr(&c->x, k, "url"));
            xmlNodePtr skin = ctl ? kg_xml_child(ctl, "skin") : NULL, morph = ctl ? kg_xml_child(ctl, "morph") : NULL;
            xmlNodePtr holder_el = skin ? skin : morph;
            const char *url = holder_el ? kg_xml_attr(&c->x, holder_el, "source") : NULL;
            if (!url) {
                cd_diag(c, KG_WARNING, "collada.bad_ref", k, "controller '%s' has no skin or morph source; ignored%s",
                        kg_xml_attr(&c->x, k, "url"), NULL);
                continue;
            }
            pose bind = at;
            xmlNodePtr bsm = skin ? kg_xml_child(skin, "bind_shape_matrix") : NULL;
            double m16[16];
            if (bsm && cd_numbers(c, bsm, m16, 16) == 0) {
                pose b;
                for (int r = 0; r < 3; r++) {
                    for (int q = 0; q < 3; q++) b.r[3 * r + q] = m16[4 * r + q];
                    b.p[r] = m16[4 * r + 3] * c->unit;
                }
                cd_pose_mul(&bind, &at, &b);
            }
            kg_geom *g = cd_add_geometry(c, url, k, L, KG_VISUAL, &bind, holder);
            if (g) cd_bind_material(c, n->node, k, url, g);
            cd_diag(c, KG_INFO, "collada.skin", k, "%s '%s' is kept as its mesh in the bind pose, moving rigidly with the "
                    "link (skin weights and morph targets are not used)", skin ? "skin" : "morph",
                    kg_xml_attr(&c->x, k, "url"));
        }
    }
}

static const char *unique_name(cd *c, kg_strmap *names, const char *want) {
    char buf[600];
    snprintf(buf, sizeof buf, "%s", want);
    for (int k = 2; kg_strmap_get(names, buf) >= 0; k++) snprintf(buf, sizeof buf, "%s#%d", want, k);
    const char *r = cd_own(c, kg_xstrdup(buf));
    kg_strmap_put(names, r, 1);
    return r;
}

static void free_sk(sk *s) {
    for (int i = 0; i < s->nch; i++) {
        free(s->ch[i].xs);
        free(s->ch[i].t);
        free(s->ch[i].v);
        free(s->ch[i].interp);
        free(s->ch[i].tin);
        free(s->ch[i].tout);
    }
    free(s->ch);
    free(s->nodes);
    free(s->xs);
}

/* The motion: every channel sampled on one grid, each free joint's coordinates
 * from the frames of its node and of the link above. */
static kg_motion *sample_motion(sk *s, const kg_model *m, const char **jname, double t0, double t1) {
    double lo = INFINITY, hi = -INFINITY, dt = INFINITY;
    for (int i = 0; i < s->nch; i++) {
        const channel *ch = &s->ch[i];
        lo = fmin(lo, ch->t[0]);
        hi = fmax(hi, ch->t[ch->n - 1]);
        for (int k = 1; k < ch->n; k++)
            if (ch->t[k] - ch->t[k - 1] > 1e-9) dt = fmin(dt, ch->t[k] - ch->t[k - 1]);
    }
    if (t1 > t0) lo = fmax(lo, t0), hi = fmin(hi, t1); /* a clip's range */
    if (!isfinite(dt)) dt = 1.0 / 30;                   /* one key per channel: one frame */
    /* the coarsest grid every key is on: the smallest gap, or a fraction of it */
    double base = dt;
    int found = 0;
    for (int k = 1; k <= 240 && !found && base / k >= 1e-3; k++) {
        int ok = 1;
        for (int i = 0; i < s->nch && ok; i++)
            for (int j = 0; j < s->ch[i].n && ok; j++) {
                double f = (s->ch[i].t[j] - lo) * k / base;
                ok = fabs(f - nearbyint(f)) <= 1e-3; /* times are often printed with 6 or 7 digits */
            }
        if (ok) dt = base / k, found = 1;
    }
    if (!found) {
        char b[32];
        kg_format_number(b, dt);
        cd_diag(s->c, KG_INFO, "collada.resampled", NULL, "animation keys are not on one time grid; the motion samples "
                "them every %s s%s", b, NULL);
    }
    if (dt > 1.01 / 24) dt /= ceil(dt * 30 - 1e-3); /* sparse keys (not 24/s): at least 30 frames/s between them */
    if (dt < 1e-3) dt = 1e-3;
    double span = hi > lo ? hi - lo : 0;
    /* keys printed with few digits make uneven gaps: fit the grid to the whole
     * span so the first and last keys are frames */
    if (span > 0) dt = span / fmax(1, nearbyint(span / dt));
    int nframes = (int)fmin(nearbyint(span / dt) + 1, MAX_FRAMES);
    int *qadr = kg_xcalloc((size_t)s->nnodes + 1, sizeof *qadr);
    for (int i = 0; i < s->nnodes; i++) {
        int j = jname[i] ? kg_model_joint(m, jname[i]) : -1;
        qadr[i] = j >= 0 ? m->joint[j].qadr : -1;
    }
    kg_motion *mo = kg_motion_new(m->nq, dt, (size_t)nframes);
    mo->start_time = lo;
    for (int f = 0; f < nframes; f++) {
        apply(s, fmin(lo + f * dt, hi));
        place(s);
        double *q = kg_motion_append(mo, m->q_default);
        const double *prev = f ? q - m->nq : NULL;
        for (int i = 0; i < s->nnodes; i++)
            if (qadr[i] >= 0) joint_coordinates(s, &s->nodes[i], q + qadr[i], prev ? prev + qadr[i] : NULL);
    }
    free(qadr);
    return mo;
}

kg_model *cd_import_node_tree(cd *c, xmlNodePtr root, kg_motion **motion) {
    xmlNodePtr vs = cd_visual_scene(c, root);
    if (!vs) {
        cd_diag(c, KG_ERROR, "collada.empty", root, "this COLLADA file has neither a kinematics model nor a visual "
                "scene: nothing to read%s%s", NULL, NULL);
        return NULL;
    }
    sk s = {c, NULL, 0, NULL, 0, NULL, 0, 0, 0, 0};
    for (xmlNodePtr n = kg_xml_first(vs); n; n = kg_xml_next(n))
        if (kg_xml_is(n, "node")) collect(&s, n, NULL, -1, 0);
    double t0, t1;
    read_animations(&s, root, &t0, &t1);
    if (s.odd_interp)
        cd_diag(c, KG_WARNING, "collada.interpolation", root, "some animation keys use an interpolation other than LINEAR, "
                "STEP or BEZIER with 2D tangents; they are read as LINEAR%s%s", NULL, NULL);
    /* links: JOINT or animated nodes, and the nodes above them */
    for (int i = s.nnodes - 1; i >= 0; i--) {
        snode *n = &s.nodes[i];
        n->skeleton_free = n->joint || n->animated;
        if (n->skeleton_free) n->is_link = 1;
        if (n->is_link && n->parent >= 0) s.nodes[n->parent].is_link = 1;
    }
    for (int i = 0; i < s.nnodes; i++) {
        snode *n = &s.nodes[i];
        int p = n->parent;
        n->up = p < 0 ? -1 : s.nodes[p].is_link ? p : s.nodes[p].up;
    }
    place(&s);
    c->b = kg_builder_new(c->file, "collada", c->d);
    const char *sname = kg_xml_attr(&c->x, vs, "name");
    if (!sname || !*sname) sname = kg_xml_attr(&c->x, vs, "id");
    kg_builder_set_name(c->b, sname && *sname ? sname : "scene");
    kg_strmap names;
    kg_strmap_init(&names);
    const char *world = unique_name(c, &names, "world");
    kg_link *wl = kg_builder_add_link(c->b, world, cd_line_of(vs));
    for (int i = 0; i < s.nnodes; i++) {
        snode *n = &s.nodes[i];
        if (!n->is_link) continue;
        const char *name = unique_name(c, &names, n->name);
        n->made = kg_builder_add_link(c->b, name, cd_line_of(n->node));
        const char *parent = n->up >= 0 ? s.nodes[n->up].made->name : world;
        char jn[640];
        snprintf(jn, sizeof jn, "%s", name); /* joints are named after the node they move */
        n->j = kg_builder_add_joint(c->b, jn, n->skeleton_free ? KG_JOINT_FLOATING : KG_JOINT_FIXED, parent, name,
                                    cd_line_of(n->node));
        seen_from(&s, n->up, &n->frame, &n->origin); /* between rigid frames */
        kg_vec3_copy(n->j->pos, n->origin.p);
        kg_mat3_copy(n->j->rot, n->origin.r);
        kg_rot_to_rpy(n->origin.r, n->j->rpy);

    }
    /* the body's root: the lowest link above every moving one (the skeleton's root) */
    int body = -2;
    for (int i = 0; i < s.nnodes; i++) {
        if (!s.nodes[i].skeleton_free) continue;
        if (body == -2) {
            body = i;
            continue;
        }
        for (int a = body; a >= 0; a = s.nodes[a].up) { /* is a above i? */
            int b = i;
            while (b >= 0 && b != a) b = s.nodes[b].up;
            if (b == a) {
                body = a;
                break;
            }
            if (s.nodes[a].up < 0) body = -1;
        }
    }
    if (body >= 0) kg_builder_set_root_body(c->b, s.nodes[body].made);
    for (int i = 0; i < s.nnodes; i++) {
        snode *n = &s.nodes[i];
        int up = n->is_link ? i : n->up;
        node_geometry(&s, i, up >= 0 ? s.nodes[up].made : wl, up);
    }
    xmlNodePtr asset = kg_xml_child(root, "asset"), ua = asset ? kg_xml_child(asset, "up_axis") : NULL;
    if (ua && strcmp(cd_text(c, ua), "Z_UP"))
        cd_diag(c, KG_INFO, "collada.up_axis", ua, "the file is %s; the model keeps its axes%s", cd_text(c, ua), NULL);
    /* the builder's pointers die with it: keep the joint names */
    const char **jname = kg_xcalloc((size_t)s.nnodes + 1, sizeof *jname);
    for (int i = 0; i < s.nnodes; i++)
        if (s.nodes[i].is_link && s.nodes[i].skeleton_free) jname[i] = s.nodes[i].j->name;
    kg_strmap_free(&names);
    kg_model *m = kg_builder_finish(c->b);
    c->b = NULL;
    if (m && motion && s.nch) *motion = sample_motion(&s, m, jname, t0, t1);
    free(jname);
    free_sk(&s);
    return m;
}
