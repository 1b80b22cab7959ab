/* BVH (Biovision hierarchy) importer: skeleton to model, frames to motion.
 *
 * The file is read as a stream, one line at a time from a fixed buffer: memory
 * is the model plus the motion, never a copy of the text.
 *
 * Model: a static root link (named "world" unless a joint has that name) under
 * which every ROOT hangs; each ROOT/JOINT becomes a link with a compound joint
 * whose axes are the CHANNELS: position channels translate along x, y, z of the
 * parent frame first, rotation channels then rotate in file order (the
 * convention of every BVH writer). A position channel *replaces* the OFFSET
 * component it covers (Mixamo and Bandai Namco files repeat the OFFSET in their
 * joints' position channels; root positions are absolute), so the joint's
 * origin keeps the uncovered components and the covered ones become the rest
 * values of their coordinates: the rest pose is the OFFSETs. An End Site is a
 * link on a fixed joint named "<parent>_End" unless the file names it.
 * Coordinates keep the file's channel order, so frame values map to q one to
 * one. Units: rotations are degrees in the file and radians in the model;
 * lengths are the file's (BVH has none) times `scale`.
 *
 * Frame count: when more complete frame lines follow than `Frames:` declares,
 * all of them are read (with a warning): a line of data is never dropped. Fewer
 * lines than declared is a truncated file: an error, and the complete frames are
 * kept. */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "core/arena.h"
#include "core/builder.h"
#include "core/spatial.h"
#include "core/strmap.h"
#include "formats/limits.h"
#include "formats/utf8.h"
#include "formats/number.h"
#include "importers/importers.h"

#define BVH_MAX_FRAMES 100000000
#define BVH_MAX_LINE (64u << 20)

/* ---- line reader ------------------------------------------------------------ */

typedef struct reader {
    FILE *f;
    char *buf;
    size_t cap, start, end; /* unread bytes are buf[start..end) */
    int eof, line;
    int too_long;
    int oom;       /* the buffer could not grow: next_line said end of file */
    size_t oom_at; /* the diagnostics then (those after are dropped) */
    kg_diags *d;
} reader;

/* The next line, NUL-terminated, without its line end (\n or \r\n); NULL at the
 * end of the file, or when a line exceeds BVH_MAX_LINE (too_long is set) or
 * memory runs out (oom is set). One
 * byte of the buffer is always kept free for the terminating NUL. */
static char *next_line(reader *r) {
    for (;;) {
        char *nl = r->start < r->end ? memchr(r->buf + r->start, '\n', r->end - r->start) : NULL;
        if (nl || (r->eof && r->start < r->end)) {
            char *line = r->buf + r->start;
            size_t len = nl ? (size_t)(nl - line) : r->end - r->start;
            r->start += len + (nl ? 1 : 0);
            while (len && line[len - 1] == '\r') len--;
            line[len] = 0;
            r->line++;
            return line;
        }
        if (r->eof) return NULL;
        if (r->start > 0) { /* keep the partial line, read more after it */
            memmove(r->buf, r->buf + r->start, r->end - r->start);
            r->end -= r->start;
            r->start = 0;
        }
        if (r->end + 1 == r->cap) {
            if (r->cap >= BVH_MAX_LINE) {
                r->too_long = 1;
                return NULL;
            }
            char *grown = realloc(r->buf, 2 * r->cap);
            if (!grown) {
                r->oom = 1;
                r->oom_at = r->d ? r->d->count : 0;
                return NULL;
            }
            r->buf = grown;
            r->cap *= 2;
        }
        size_t n = fread(r->buf + r->end, 1, r->cap - 1 - r->end, r->f);
        r->end += n;
        if (n == 0) r->eof = 1;
    }
}

static inline int blank(char c) { return c == ' ' || c == '\t' || c == '\v' || c == '\f' || c == '\r'; }

static inline char *skip_space(char *s) {
    while (blank(*s)) s++;
    return s;
}

/* ---- the skeleton ------------------------------------------------------------ */

enum { CH_XPOS, CH_YPOS, CH_ZPOS, CH_XROT, CH_YROT, CH_ZROT };
static const char *const channel_names[6] = {"Xposition", "Yposition", "Zposition",
                                             "Xrotation", "Yrotation", "Zrotation"};

typedef struct node {
    char *name;
    int parent;     /* node index, -1 for a ROOT */
    int end_site;
    int line;
    double offset[3];
    int has_offset;
    int has_channels; /* a CHANNELS line was read (CHANNELS 0 included) */
    int nchan;
    int chan[6];
} node;

typedef struct bvh {
    reader r;
    const char *file;
    kg_diags *d;
    double scale;
    node *nodes;
    int nnodes, cap;
    int nchannels; /* per frame */
    char **names;  /* per node: its unique link (and joint) name in the model */
    char **owned;
    int nowned, capowned; /* grown by doubling: one name per node */
    int *stack; /* the open joints while reading HIERARCHY */
    int stack_cap;
    int oom;       /* memory ran out: the file cannot be read (kg_import_bvh says so) */
    size_t oom_at; /* the diagnostics then (those after are dropped) */
} bvh;

/* Marks p out of memory, once; NULL. */
static void *out_of_memory(bvh *p) {
    if (!p->oom) p->oom = 1, p->oom_at = p->d ? p->d->count : 0;
    return NULL;
}

static void err(bvh *p, const char *code, const char *element, const char *fmt, const char *arg) {
    kg_diag_add(p->d, KG_ERROR, code, p->file, p->r.line, element, fmt, arg ? arg : "");
}

static int channel_index(const char *s, size_t n) {
    for (int i = 0; i < 6; i++)
        if (strlen(channel_names[i]) == n && strncmp(s, channel_names[i], n) == 0) return i;
    /* some writers use lower case ("xrotation") */
    for (int i = 0; i < 6; i++)
        if (strlen(channel_names[i]) == n && strncasecmp(s, channel_names[i], n) == 0) return i;
    return -1;
}

static node *add_node(bvh *p, const char *name, size_t len, int parent, int end_site) {
    if (p->nnodes == KG_LIMIT_BVH_NODES) {
        kg_diag_add(p->d, KG_ERROR, "bvh.too_many_joints", p->file, p->r.line, "JOINT",
                    "more than %d joints and End Sites (KG_LIMIT_BVH_NODES)", KG_LIMIT_BVH_NODES);
        return NULL;
    }
    if (p->nnodes == p->cap) {
        int cap = p->cap ? 2 * p->cap : 64;
        node *grown = realloc(p->nodes, (size_t)cap * sizeof *grown);
        if (!grown) return out_of_memory(p);
        p->nodes = grown, p->cap = cap;
    }
    /* BVH says nothing of its encoding: names must still make valid XML and
     * JSON (and JSON keys, which jansson refuses otherwise) */
    int changed;
    char *clean = kg_utf8_clean(name, len, &changed);
    if (!clean) return out_of_memory(p);
    node *n = &p->nodes[p->nnodes++];
    memset(n, 0, sizeof *n);
    n->name = clean;
    if (changed)
        kg_diag_add(p->d, KG_WARNING, "bvh.name_encoding", p->file, p->r.line, end_site ? "End" : "JOINT",
                    "joint name '%s': bytes that are not UTF-8 text were read as Latin-1, control characters as '_'", n->name);
    n->parent = parent;
    n->end_site = end_site;
    n->line = p->r.line;
    return n;
}

/* Puts node `n` at level `depth` of the stack of open joints; 0, or -1 when
 * memory runs out. */
static int push(bvh *p, int depth, int n) {
    if (depth == p->stack_cap) {
        int cap = p->stack_cap ? 2 * p->stack_cap : 64;
        int *grown = realloc(p->stack, (size_t)cap * sizeof *grown);
        if (!grown) return out_of_memory(p), -1;
        p->stack = grown, p->stack_cap = cap;
    }
    p->stack[depth] = n;
    return 0;
}

/* ROOT, JOINT or End Site (word, wlen long; rest the line after it): a new
 * node under the open joint, opened at once when the line ends with '{', else
 * pending its '{'. 0, or -1 said. */
static int read_joint(bvh *p, const char *word, size_t wlen, char *rest, int *depth, int *pending) {
    int end_site = word[0] == 'E';
    if (end_site) {
        if (strncmp(rest, "Site", 4) != 0) {
            err(p, "bvh.syntax", "End", "expected 'End Site'%s", NULL);
            return -1;
        }
        rest = skip_space(rest + 4);
    }
    /* the name is the rest of the line (names may hold spaces), minus a '{' */
    size_t len = strlen(rest);
    int brace = 0;
    while (len && isspace((unsigned char)rest[len - 1])) len--;
    if (len && rest[len - 1] == '{') {
        brace = 1;
        len--;
        while (len && isspace((unsigned char)rest[len - 1])) len--;
    }
    if (len > KG_LIMIT_BVH_NAME) {
        char limit[16];
        snprintf(limit, sizeof limit, "%d", KG_LIMIT_BVH_NAME);
        err(p, "bvh.name_too_long", word, "a joint name is longer than %s bytes (KG_LIMIT_BVH_NAME)", limit);
        return -1;
    }
    if (!end_site && len == 0) {
        err(p, "bvh.syntax", word, "%s", wlen == 4 ? "ROOT without a name" : "JOINT without a name");
        return -1;
    }
    if (word[0] == 'R' && *depth != 0) {
        err(p, "bvh.syntax", "ROOT", "ROOT inside another joint%s", NULL);
        return -1;
    }
    if (word[0] != 'R' && *depth == 0) {
        err(p, "bvh.syntax", word, "%s outside any ROOT", end_site ? "End Site" : "JOINT");
        return -1;
    }
    if (*depth > 0 && p->nodes[p->stack[*depth - 1]].end_site) {
        err(p, "bvh.syntax", word, "an End Site cannot have children%s", NULL);
        return -1;
    }
    if (*pending >= 0) {
        err(p, "bvh.syntax", word, "expected '{' after the previous joint%s", NULL);
        return -1;
    }
    node *n = add_node(p, rest, len, *depth ? p->stack[*depth - 1] : -1, end_site);
    if (!n) return -1;
    *pending = p->nnodes - 1;
    if (brace) {
        if (push(p, (*depth)++, *pending) != 0) return -1;
        *pending = -1;
    }
    return 0;
}

/* A '{' opens the pending joint, a '}' closes the innermost open one (which
 * must have had its OFFSET). 0, or -1 said. */
static int read_brace(bvh *p, char brace, int *depth, int *pending) {
    if (brace == '{') {
        if (*pending < 0) {
            err(p, "bvh.syntax", "{", "'{' without a joint%s", NULL);
            return -1;
        }
        if (push(p, (*depth)++, *pending) != 0) return -1;
        *pending = -1;
        return 0;
    }
    if (*depth == 0 || *pending >= 0) {
        err(p, "bvh.syntax", "}", "unbalanced '}'%s", NULL);
        return -1;
    }
    node *n = &p->nodes[p->stack[--*depth]];
    if (!n->has_offset) {
        kg_diag_add(p->d, KG_ERROR, "bvh.no_offset", p->file, n->line, "OFFSET", "joint '%s' has no OFFSET", n->name);
        return -1;
    }
    return 0;
}

/* OFFSET x y z (rest) of the innermost open joint. 0, or -1 said. */
static int read_offset(bvh *p, const char *rest, int depth, int pending) {
    if (depth == 0 || pending >= 0) {
        err(p, "bvh.syntax", "OFFSET", "OFFSET outside a joint%s", NULL);
        return -1;
    }
    node *n = &p->nodes[p->stack[depth - 1]];
    const char *q = rest;
    for (int k = 0; k < 3; k++) {
        q = q ? kg_parse_number(skip_space((char *)q), &n->offset[k]) : NULL;
        if (q && !isfinite(n->offset[k])) q = NULL;
    }
    if (!q || *skip_space((char *)q)) {
        err(p, "bvh.bad_number", "OFFSET", "OFFSET needs three finite numbers: '%s'", rest);
        return -1;
    }
    n->has_offset = 1;
    return 0;
}

/* CHANNELS N name... (rest) of the innermost open joint, counted into
 * p->nchannels. 0, or -1 said. */
static int read_channels(bvh *p, char *rest, int depth, int pending) {
    if (depth == 0 || pending >= 0 || p->nodes[p->stack[depth - 1]].end_site) {
        err(p, "bvh.syntax", "CHANNELS", "CHANNELS outside a joint%s", NULL);
        return -1;
    }
    node *n = &p->nodes[p->stack[depth - 1]];
    /* a second CHANNELS line would leave the per-frame count (p->nchannels)
     * disagreeing with the joints' channels, and which line the frame
     * values follow is ambiguous: refuse it rather than guess */
    if (n->has_channels) {
        err(p, "bvh.bad_channels", "CHANNELS", "joint '%s' has a second CHANNELS line", n->name);
        return -1;
    }
    n->has_channels = 1;
    char *q = rest, *e;
    long count = strtol(q, &e, 10);
    if (e == q || count < 0 || count > 6) {
        err(p, "bvh.bad_channels", "CHANNELS", "a joint has 0 to 6 channels: '%s'", rest);
        return -1;
    }
    q = e;
    n->nchan = 0;
    unsigned used = 0;
    for (long k = 0; k < count; k++) {
        q = skip_space(q);
        char *t = q;
        while (*q && !isspace((unsigned char)*q)) q++;
        int c = channel_index(t, (size_t)(q - t));
        if (c < 0) {
            err(p, "bvh.bad_channels", "CHANNELS", "unknown or missing channel name in '%s'", rest);
            return -1;
        }
        if (used >> c & 1) {
            err(p, "bvh.bad_channels", "CHANNELS", "a channel is repeated in '%s'", rest);
            return -1;
        }
        used |= 1u << c;
        n->chan[n->nchan++] = c;
    }
    if (*skip_space(q)) {
        err(p, "bvh.bad_channels", "CHANNELS", "more channel names than the count in '%s'", rest);
        return -1;
    }
    p->nchannels += n->nchan;
    return 0;
}

/* The MOTION line: the hierarchy must be whole and hold a joint. 0, or -1 said. */
static int read_motion_word(bvh *p, int depth, int pending) {
    if (depth != 0 || pending >= 0) {
        err(p, "bvh.syntax", "MOTION", "MOTION before every joint is closed with '}'%s", NULL);
        return -1;
    }
    if (p->nnodes == 0) {
        err(p, "bvh.syntax", "MOTION", "no ROOT before MOTION%s", NULL);
        return -1;
    }
    return 0;
}

/* The first line that is not blank (s, after any UTF-8 byte order mark) must
 * be HIERARCHY: 1 when it is, 0 for a blank line, -1 said. */
static int read_header(bvh *p, char *s) {
    if ((unsigned char)s[0] == 0xEF && (unsigned char)s[1] == 0xBB && (unsigned char)s[2] == 0xBF) s += 3;
    s = skip_space(s);
    if (!*s) return 0;
    if (strncmp(s, "HIERARCHY", 9) != 0) {
        err(p, "bvh.no_hierarchy", NULL, "a BVH file starts with HIERARCHY%s", NULL);
        return -1;
    }
    return 1;
}

/* Reads HIERARCHY up to and including the MOTION line. Returns 0 on success.
 * The open joints are on a stack of their own (p->stack), as deep as the file
 * nests: no depth limit but the joint count (a level is a joint). */
static int read_hierarchy(bvh *p) {
    char *line;
    int depth = 0, pending = -1, seen_header = 0;
    while ((line = next_line(&p->r))) {
        char *s = skip_space(line);
        if (!seen_header) {
            if ((seen_header = read_header(p, s)) < 0) return -1;
            continue;
        }
        if (!*s) continue;
        char *word = s;
        while (*s && !isspace((unsigned char)*s) && *s != '{' && *s != '}') s++;
        size_t wlen = (size_t)(s - word);
        char *rest = skip_space(s);
        if (wlen == 0 && (*word == '{' || *word == '}')) {
            wlen = 1;
            rest = skip_space(word + 1);
        }
        int rc;
        if ((wlen == 4 && strncmp(word, "ROOT", 4) == 0) || (wlen == 5 && strncmp(word, "JOINT", 5) == 0) ||
            (wlen == 3 && strncmp(word, "End", 3) == 0)) {
            rc = read_joint(p, word, wlen, rest, &depth, &pending);
        } else if (wlen == 1 && (word[0] == '{' || word[0] == '}')) {
            rc = read_brace(p, word[0], &depth, &pending);
        } else if (wlen == 6 && strncmp(word, "OFFSET", 6) == 0) {
            rc = read_offset(p, rest, depth, pending);
        } else if (wlen == 8 && strncmp(word, "CHANNELS", 8) == 0) {
            rc = read_channels(p, rest, depth, pending);
        } else if (wlen == 6 && strncmp(word, "MOTION", 6) == 0) {
            return read_motion_word(p, depth, pending);
        } else {
            char shown[64];
            snprintf(shown, sizeof shown, "%.*s", (int)(wlen < 60 ? wlen : 60), word);
            err(p, "bvh.syntax", NULL, "unexpected '%s' in HIERARCHY", shown);
            return -1;
        }
        if (rc != 0) return -1;
    }
    if (p->r.oom) return -1; /* said by kg_import_bvh */
    if (p->r.too_long) err(p, "bvh.line_too_long", NULL, "a line is longer than 64 MB%s", NULL);
    else if (!seen_header) err(p, "bvh.no_hierarchy", NULL, "empty file: a BVH file starts with HIERARCHY%s", NULL);
    else err(p, "bvh.no_motion", NULL, "the file ends before MOTION%s", NULL);
    return -1;
}

/* ---- motion header ------------------------------------------------------------ */

/* "Frames: N" / "Frame Time: T": the value after the colon (tabs and spaces). */
static char *after_label(char *line, const char *label) {
    char *s = skip_space(line);
    size_t n = strlen(label);
    if (strncasecmp(s, label, n) != 0) return NULL;
    return skip_space(s + n);
}

/* Makes `name` unique among the names already in `names` (BVH does not require
 * unique joint names; the model does): "name#2", "name#3", ... Returns a string
 * owned by p->owned, or NULL when memory runs out. */
static char *unique(bvh *p, kg_strmap *names, const char *name, int *renamed) {
    size_t n = strlen(name) + 16;
    char *s = malloc(n);
    if (s && p->nowned == p->capowned) {
        int cap = p->capowned ? 2 * p->capowned : 64;
        char **owned = realloc(p->owned, (size_t)cap * sizeof *owned);
        if (owned) p->owned = owned, p->capowned = cap;
    }
    if (!s || p->nowned == p->capowned) return free(s), out_of_memory(p);
    p->owned[p->nowned++] = s;
    snprintf(s, n, "%s", name);
    *renamed = 0;
    for (int k = 2; kg_strmap_get(names, s) >= 0; k++) {
        snprintf(s, n, "%s#%d", name, k);
        *renamed = 1;
    }
    kg_strmap_put(names, s, 0);
    if (names->failed) return out_of_memory(p);
    return s;
}

/* The skeleton as a model: see the comment at the top of the file. */
static kg_model *build_model(bvh *p) {
    kg_strmap names;
    kg_strmap_init(&names);
    int renamed;
    char **link_names = p->names = calloc((size_t)p->nnodes + 1, sizeof *link_names);
    if (!link_names) return out_of_memory(p);
    /* the static root first, under a name no joint uses */
    for (int i = 0; i < p->nnodes; i++)
        if (!p->nodes[i].end_site) kg_strmap_put(&names, p->nodes[i].name, 0);
    char *world = names.failed ? out_of_memory(p) : unique(p, &names, "world", &renamed);
    kg_strmap_free(&names);
    kg_builder *b = world ? kg_builder_new(p->file, "bvh", p->d) : NULL;
    if (!b) return NULL; /* out of memory (kg_builder_new said so, or kg_import_bvh will) */
    kg_strmap_put(&names, world, 0);
    const char *base = strrchr(p->file, '/');
    base = base ? base + 1 : p->file;
    int changed;
    char *model_name = kg_utf8_clean(base, strlen(base), &changed); /* file names have no encoding either */
    if (!model_name) out_of_memory(p);
    kg_builder_set_name(b, model_name);
    free(model_name);
    kg_builder_add_link(b, world, 1);
    for (int i = 0; i < p->nnodes; i++) {
        node *n = &p->nodes[i];
        char endname[2 * KG_LIMIT_BVH_NAME + 8]; /* a name read as Latin-1 is up to twice as long in UTF-8: cut, it
                                                   * ended inside a character (invalid UTF-8 in every output) */
        const char *want = n->name;
        if (n->end_site && !n->name[0]) {
            snprintf(endname, sizeof endname, "%s_End", p->nodes[n->parent].name);
            want = endname;
        }
        if (!(link_names[i] = unique(p, &names, want, &renamed))) break;
        if (renamed)
            kg_diag_add(p->d, KG_WARNING, "bvh.duplicate_name", p->file, n->line, n->end_site ? "End Site" : "JOINT",
                        "the name '%s' is used twice; this one is called '%s'", want, link_names[i]);
        kg_link *l = kg_builder_add_link(b, link_names[i], n->line);
        if (n->parent < 0 && i == 0) kg_builder_set_root_body(b, l);
        const char *parent = n->parent < 0 ? world : link_names[n->parent];
        kg_joint *j = kg_builder_add_joint(b, link_names[i], n->nchan ? KG_JOINT_COMPOUND : KG_JOINT_FIXED, parent,
                                           link_names[i], n->line);
        for (int k = 0; k < 3; k++) j->pos[k] = n->offset[k] * p->scale;
        /* translations first (in file order), then rotations (in file order) */
        for (int pass = 0; pass < 2; pass++)
            for (int c = 0; c < n->nchan; c++) {
                int ch = n->chan[c];
                if ((ch < CH_XROT) != (pass == 0)) continue;
                double dir[3] = {0, 0, 0}, rest = 0;
                dir[ch % 3] = 1;
                if (ch < CH_XROT) { /* the channel replaces this OFFSET component */
                    rest = j->pos[ch];
                    j->pos[ch] = 0;
                }
                kg_builder_add_axis(b, j, ch < CH_XROT ? KG_AXIS_TRANSLATION : KG_AXIS_ROTATION, dir, c, rest,
                                    channel_names[ch]);
            }
    }
    kg_strmap_free(&names);
    if (p->oom) { /* a name is missing: kg_import_bvh says so */
        kg_builder_free(b);
        return NULL;
    }
    return kg_builder_finish(b);
}

/* File channel c drives model coordinate (*qmap)[c], times (*factor)[c] (degrees
 * to radians, or the scale); 0, or -1 when memory runs out. */
static int channel_map(bvh *p, const kg_model *m, int **qmap, double **factor) {
    int nc = p->nchannels;
    *qmap = malloc(((size_t)nc + 1) * sizeof **qmap);
    *factor = malloc(((size_t)nc + 1) * sizeof **factor);
    kg_strmap joints;
    kg_strmap_init(&joints);
    for (int j = 0; j < m->njoint; j++) kg_strmap_put(&joints, m->joint[j].name, j);
    if (!*qmap || !*factor || joints.failed) {
        free(*qmap), free(*factor), kg_strmap_free(&joints);
        return -1;
    }
    for (int i = 0, c = 0; i < p->nnodes; i++) {
        const node *n = &p->nodes[i];
        const kg_joint *J = n->nchan ? &m->joint[kg_strmap_get(&joints, p->names[i])] : NULL;
        for (int k = 0; k < n->nchan; k++, c++) {
            (*qmap)[c] = J->qadr + k; /* the axis made from channel k drives coordinate k */
            (*factor)[c] = n->chan[k] >= CH_XROT ? KG_PI / 180 : p->scale;
        }
    }
    kg_strmap_free(&joints);
    return 0;
}

/* Reads the frames into a motion whose coordinates are the model's. */
static kg_motion *read_motion(bvh *p, const kg_model *m, long file_size) {
    char *line, *v;
    long declared = -1;
    double frame_time = 0;
    /* "Frames:" and "Frame Time:" (blank lines allowed before them) */
    while ((line = next_line(&p->r)) && !*skip_space(line)) {}
    if (!line || !(v = after_label(line, "Frames:"))) {
        err(p, "bvh.no_frames", "Frames", "expected 'Frames: N' after MOTION%s", NULL);
        return NULL;
    }
    char *e;
    declared = strtol(v, &e, 10);
    if (e == v || *skip_space(e) || declared < 0 || declared > BVH_MAX_FRAMES) {
        err(p, "bvh.bad_frames", "Frames", "the frame count must be a whole number from 0 to 10^8: '%s'", v);
        return NULL;
    }
    while ((line = next_line(&p->r)) && !*skip_space(line)) {}
    const char *end;
    if (!line || !(v = after_label(line, "Frame Time:")) || !(end = kg_parse_number(v, &frame_time)) ||
        *skip_space((char *)end)) {
        err(p, "bvh.bad_frame_time", "Frame Time", "expected 'Frame Time: T' after Frames%s", NULL);
        return NULL;
    }
    if (!(frame_time > 0) || !isfinite(frame_time)) {
        err(p, "bvh.bad_frame_time", "Frame Time", "the frame time must be positive: '%s'", v);
        return NULL;
    }
    /* file channel c drives model coordinate qmap[c], times factor[c] */
    int nc = p->nchannels, *qmap;
    double *factor;
    if (channel_map(p, m, &qmap, &factor) != 0) return out_of_memory(p);
    /* reserve the declared frames, but never more than the rest of the file can
     * hold (two bytes per value at least): a lying header cannot exhaust memory */
    size_t reserve = (size_t)declared;
    if (file_size > 0 && nc > 0 && reserve > (size_t)file_size / (2 * (size_t)nc) + 1)
        reserve = (size_t)file_size / (2 * (size_t)nc) + 1;
    kg_motion *mo = kg_motion_new(m->nq, frame_time, reserve ? reserve : 1);
    if (!mo) {
        free(qmap), free(factor);
        return out_of_memory(p);
    }
    int first_line = p->r.line + 1;
    while ((line = next_line(&p->r))) {
        char *s = skip_space(line);
        if (!*s) continue;
        double *q = kg_motion_append(mo, NULL);
        if (!q) {
            out_of_memory(p);
            break;
        }
        int c = 0;
        while (*s) {
            double x;
            const char *after = kg_parse_number(s, &x);
            if (!after || (*after && !blank(*after)) || !isfinite(x)) {
                char shown[40];
                snprintf(shown, sizeof shown, "%.30s", s);
                kg_diag_add(p->d, KG_ERROR, "bvh.bad_number", p->file, p->r.line, "MOTION",
                            "frame %d: '%s' is not a finite number", mo->nframes - 1, shown);
                goto bad_frame;
            }
            if (c < nc) q[qmap[c]] = x * factor[c];
            c++;
            s = skip_space((char *)after);
        }
        if (c != nc) {
            kg_diag_add(p->d, KG_ERROR, "bvh.value_count", p->file, p->r.line, "MOTION",
                        "frame %d has %d values; the hierarchy has %d channels", mo->nframes - 1, c, nc);
            goto bad_frame;
        }
        if (mo->nframes > BVH_MAX_FRAMES) {
            kg_diag_add(p->d, KG_ERROR, "bvh.bad_frames", p->file, p->r.line, "MOTION", "more than 10^8 frames");
            goto bad_frame;
        }
        continue;
    bad_frame:
        mo->nframes--; /* keep only complete frames; stop at the first bad line */
        break;
    }
    if (p->r.too_long)
        kg_diag_add(p->d, KG_ERROR, "bvh.line_too_long", p->file, p->r.line + 1, "MOTION", "a line is longer than 64 MB");
    if (p->oom || p->r.oom) { /* kg_import_bvh says so */
        free(qmap), free(factor), kg_motion_free(mo);
        return NULL;
    }
    if (mo->nframes > declared)
        kg_diag_add(p->d, KG_WARNING, "bvh.frame_count", p->file, first_line - 2, "Frames",
                    "'Frames: %ld' but %d complete frame lines follow; all %d are read", declared, mo->nframes,
                    mo->nframes);
    else if (mo->nframes < declared && kg_diags_count(p->d, KG_ERROR) == 0)
        kg_diag_add(p->d, KG_ERROR, "bvh.truncated", p->file, p->r.line, "MOTION",
                    "'Frames: %ld' but the file ends after %d complete frames", declared, mo->nframes);
    kg_motion_shrink(mo);
    free(qmap);
    free(factor);
    return mo;
}

kg_model *kg_import_bvh(const char *file, FILE *f, long file_size, const kg_load_options *o, kg_motion **motion,
                        kg_diags *d) {
    bvh p = {.file = file, .d = d, .scale = o && o->scale > 0 ? o->scale : 1.0};
    p.r.f = f;
    p.r.d = d;
    p.r.cap = 1 << 16;
    if (!(p.r.buf = malloc(p.r.cap))) p.r.oom = 1, p.r.oom_at = d ? d->count : 0, p.r.eof = 1;
    if (o && o->scale < 0)
        kg_diag_add(d, KG_ERROR, "bvh.bad_scale", file, 0, NULL, "the scale must be positive");
    kg_model *m = NULL;
    kg_motion *mo = NULL;
    if (read_hierarchy(&p) == 0 && (m = build_model(&p)) != NULL) {
        mo = read_motion(&p, m, file_size);
        if (!mo) { /* no usable MOTION header: the skeleton alone is not a clip */
            kg_model_free(m);
            m = NULL;
        }
    }
    if (p.oom || p.r.oom) {
        kg_model_free(m), kg_motion_free(mo);
        m = NULL, mo = NULL;
        size_t at = p.oom && p.r.oom ? (p.oom_at < p.r.oom_at ? p.oom_at : p.r.oom_at) : p.oom ? p.oom_at : p.r.oom_at;
        kg_diag_out_of_memory(d, at, file, "while reading the BVH file");
    }
    for (int i = 0; i < p.nnodes; i++) free(p.nodes[i].name);
    free(p.nodes);
    for (int i = 0; i < p.nowned; i++) free(p.owned[i]);
    free(p.owned);
    free(p.names);
    free(p.stack);
    free(p.r.buf);
    if (motion) *motion = mo;
    else kg_motion_free(mo);
    return m;
}
