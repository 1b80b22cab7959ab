/* BVH exporter, from any model.
 *
 * A BVH node per link (virtual links of loops are left out). A joint BVH can
 * hold as it is, a BVH importer's compound joint of x/y/z position channels
 * followed by x/y/z rotation channels with no origin rotation, is written as
 * it was read: same channels, same order, values from the motion. Every other
 * joint (revolute, prismatic, free, fixed with a rotated origin, COLLADA
 * bones, a robot's root) gets channels computed from forward kinematics at each
 * frame: "Xposition Yposition Zposition" when it translates (the full local
 * translation, as BVH importers read position channels; OFFSET is the rest
 * translation) and three rotation channels when it rotates (Euler angles of
 * the local rotation, in the order of the six whose middle angle stays
 * farthest from 90 degrees over the motion, so no frame is near gimbal lock;
 * kept continuous from frame to frame). The FK of
 * the written file is the model's, frame by frame; what BVH cannot say about
 * the joints (axes, limits) is in the ledger.
 *
 * The hierarchy's roots: when the model has a static world above its body
 * (BVH and COLLADA skeletons) the world's children, each a ROOT; otherwise the
 * root link itself, with six channels from the motion's base pose. A
 * skeleton's fixed leaves are End Sites again (unnamed, as BVH readers want
 * them: another name than "<parent>_End" is in the ledger); a robot's leaves are
 * joints with an End Site at their origin added, since BVH joints must have
 * children. Without a motion one frame at the rest pose is written.
 * Numbers are written in the shortest form that reads back as the same double;
 * the frame time is the motion's. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/fk.h"
#include "core/spatial.h"
#include "core/strmap.h"
#include "exporters/exporters.h"
#include "formats/limits.h"
#include "formats/number.h"

#include <ctype.h>

static const char *const names[2][3] = {{"Xrotation", "Yrotation", "Zrotation"},
                                        {"Xposition", "Yposition", "Zposition"}};

/* The channel name of an axis along a coordinate axis, or NULL. */
static const char *channel(const kg_axis *ax) {
    for (int a = 0; a < 3; a++)
        if (ax->dir[a] == 1 && ax->dir[(a + 1) % 3] == 0 && ax->dir[(a + 2) % 3] == 0) return names[ax->kind][a];
    return NULL;
}

static int identity_rotation(const double r[9]) {
    static const double id[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1};
    return !memcmp(r, id, sizeof id);
}

/* A joint BVH holds as it is: channels along x/y/z, each once (a reader
 * takes a repeated one for a broken file), positions first, no origin
 * rotation. */
static int native(const kg_model *m, const kg_joint *J) {
    if (J->type != KG_JOINT_COMPOUND || !identity_rotation(J->rot)) return 0;
    for (int a = 0; a < J->naxis; a++) {
        const kg_axis *ax = &m->axis[J->axis_first + a];
        if (!channel(ax)) return 0;
        for (int b = 0; b < a; b++)
            if (channel(&m->axis[J->axis_first + b]) == channel(ax)) return 0;
        if (a + 1 < J->naxis && ax->kind == KG_AXIS_ROTATION && m->axis[J->axis_first + a + 1].kind == KG_AXIS_TRANSLATION)
            return 0;
    }
    return 1;
}

typedef struct bnode {
    int link;
    int native;      /* channels = the joint's axes */
    int pos, rot;    /* else: computed position and rotation channels */
    int order;       /* rotation channel order (orders[]), the one farthest from gimbal lock */
    int end_site;    /* written as an End Site (no channels) */
    int add_end;     /* a leaf joint: an End Site is added below it */
} bnode;

typedef struct bw {
    const kg_model *m;
    FILE *f;
    const kg_motion *mo;
    kg_data *kd;
    bnode *nodes;    /* in the order written */
    int n;
    int *first, *next; /* real children of each link, in link order (-1 ends) */
    int *order;        /* per link: its rotation channel order (orders[]) */
    char **name;       /* per link: the name written when it is not the link's (bvh_names) */
    int oom;           /* memory ran out while setting up: nothing is written */
} bw;

/* The name link i is written with. */
static const char *wname(const bw *w, int i) { return w->name[i] ? w->name[i] : w->m->link[i].name; }

static int translates(const kg_model *m, const kg_joint *J) {
    if (J->type == KG_JOINT_PRISMATIC || J->type == KG_JOINT_PLANAR || J->type == KG_JOINT_FLOATING) return 1;
    for (int a = 0; J->type == KG_JOINT_COMPOUND && a < J->naxis; a++)
        if (m->axis[J->axis_first + a].kind == KG_AXIS_TRANSLATION) return 1;
    return 0;
}

static int rotates(const kg_model *m, const kg_joint *J) {
    if (J->type == KG_JOINT_REVOLUTE || J->type == KG_JOINT_CONTINUOUS || J->type == KG_JOINT_PLANAR ||
        J->type == KG_JOINT_FLOATING || !identity_rotation(J->rot))
        return 1;
    for (int a = 0; J->type == KG_JOINT_COMPOUND && a < J->naxis; a++)
        if (m->axis[J->axis_first + a].kind == KG_AXIS_ROTATION) return 1;
    return 0;
}

/* Rotation channel orders: R = R_a(u) R_b(v) R_c(w) for (a, b, c). */
static const int orders[6][3] = {{2, 0, 1}, {0, 1, 2}, {1, 2, 0}, {2, 1, 0}, {0, 2, 1}, {1, 0, 2}};

/* sin of the middle angle of r in order o: near 1 is gimbal lock. */
static double middle_sin(const double r[9], int o) {
    const int *a = orders[o];
    return fabs(r[3 * a[0] + a[2]]);
}

/* Euler angles (degrees) of r in order o, nearest prev (degrees, or NULL). */
static void euler(const double r[9], int o, const double prev[3], double out[3]) {
    double p[3];
    if (prev)
        for (int k = 0; k < 3; k++) p[k] = prev[k] * KG_PI / 180;
    kg_rot_to_euler(r, orders[o], prev ? p : NULL, out);
    for (int k = 0; k < 3; k++) out[k] *= 180 / KG_PI;
}

/* The link's pose in its parent's frame (the world's for a root). */
static void local_pose(const kg_model *m, const kg_data *kd, int i, double r[9], double t[3]) {
    int p = m->link[i].parent;
    if (p < 0) {
        kg_mat3_copy(r, kd->link_rot + 9 * i);
        kg_vec3_copy(t, kd->link_pos + 3 * i);
        return;
    }
    double dp[3];
    for (int a = 0; a < 3; a++) dp[a] = kd->link_pos[3 * i + a] - kd->link_pos[3 * p + a];
    kg_mat3_tvec(t, kd->link_rot + 9 * p, dp);
    kg_mat3_mul_at(r, kd->link_rot + 9 * p, kd->link_rot + 9 * i);
}

/* Loads frame fr (or the rest pose) and runs FK. */
static void pose_frame(const kg_model *m, const kg_motion *mo, int fr, kg_data *kd) {
    if (mo) kg_motion_pose(mo, fr, kd);
    else memcpy(kd->q, m->q_default, (size_t)m->nq * sizeof *kd->q);
    kg_fk(m, kd); /* applies mimic couplings too */
}

/* Per link, the rotation order whose middle angle stays farthest from 90
 * degrees over the motion: one FK per frame for all links (per link it would
 * be quadratic in the number of links). */
static void rotation_orders(bw *w) {
    const kg_model *m = w->m;
    int nframes = w->mo ? w->mo->nframes : 1;
    double *worst = calloc(6 * (size_t)m->nlink + 1, sizeof *worst), r[9], t[3];
    w->order = calloc((size_t)m->nlink + 1, sizeof *w->order);
    if (!worst || !w->order) {
        free(worst);
        w->oom = 1;
        return;
    }
    for (int fr = 0; fr < nframes; fr++) {
        pose_frame(m, w->mo, fr, w->kd);
        for (int i = 0; i < m->nlink; i++) {
            local_pose(m, w->kd, i, r, t);
            for (int o = 0; o < 6; o++) worst[6 * i + o] = fmax(worst[6 * i + o], middle_sin(r, o));
        }
    }
    for (int i = 0; i < m->nlink; i++)
        for (int o = 1; o < 6; o++)
            if (worst[6 * i + o] < worst[6 * i + w->order[i]] - 1e-9) w->order[i] = o;
    free(worst);
}

/* The children lists: one pass, so a deep or wide model is not quadratic. */
static void children(bw *w) {
    const kg_model *m = w->m;
    w->first = malloc(((size_t)m->nlink + 1) * sizeof *w->first);
    w->next = malloc(((size_t)m->nlink + 1) * sizeof *w->next);
    if (!w->first || !w->next) {
        w->oom = 1;
        return;
    }
    for (int i = 0; i < m->nlink; i++) w->first[i] = w->next[i] = -1;
    for (int c = m->nlink - 1; c > 0; c--)
        if (m->link[c].real < 0 && m->link[c].parent >= 0) {
            w->next[c] = w->first[m->link[c].parent];
            w->first[m->link[c].parent] = c;
        }
}

static void indent(FILE *f, int depth) {
    for (int i = 0; i < depth && i < KG_LIMIT_INDENT; i++) fputc('\t', f);
}

static void offset(FILE *f, int depth, const double off[3]) {
    char x[32], y[32], z[32];
    indent(f, depth + 1);
    fprintf(f, "OFFSET %s %s %s\n", kg_format_number(x, off[0]), kg_format_number(y, off[1]), kg_format_number(z, off[2]));
}

/* A name BVH readers take back: one word (assimp splits at white space and
 * takes a leading brace for a token; kinegraph drops a final '{'), at most
 * KG_LIMIT_BVH_NAME bytes cut at a character boundary. NULL when the name is
 * one already, or with *oom set when memory runs out. */
static char *bvh_word(const char *name, int *oom) {
    size_t n = strlen(name);
    int bad = n == 0 || n > KG_LIMIT_BVH_NAME || name[n - 1] == '{' || name[0] == '{' || name[0] == '}';
    for (size_t k = 0; k < n && !bad; k++) bad = isspace((unsigned char)name[k]);
    if (!bad) return NULL;
    size_t cut = n > KG_LIMIT_BVH_NAME - 8 ? KG_LIMIT_BVH_NAME - 8 : n; /* room for a "~N" suffix */
    while (cut < n && ((unsigned char)name[cut] & 0xC0) == 0x80) cut--;  /* not inside a UTF-8 sequence */
    char *out = malloc(cut + 2);
    if (!out) return *oom = 1, NULL;
    for (size_t k = 0; k < cut; k++) out[k] = isspace((unsigned char)name[k]) ? '_' : name[k];
    if (cut == 0) out[cut++] = '_';
    if (out[cut - 1] == '{') out[cut - 1] = '_';
    if (out[0] == '{' || out[0] == '}') out[0] = '_';
    out[cut] = 0;
    return out;
}

/* The names written for links BVH cannot name as they are (bvh_word), made
 * unique against every other name with a "~N" suffix; each in the ledger. */
static void bvh_names(bw *w, kg_ledger *l) {
    const kg_model *m = w->m;
    if (!(w->name = calloc((size_t)m->nlink + 1, sizeof *w->name))) {
        w->oom = 1;
        return;
    }
    kg_strmap taken;
    kg_strmap_init(&taken);
    for (int i = 0; i < m->nlink; i++) kg_strmap_put(&taken, m->link[i].name, i);
    for (int i = 0; i < m->nlink && !taken.failed && !w->oom; i++) {
        char *word = bvh_word(m->link[i].name, &w->oom);
        if (!word) continue;
        size_t len = strlen(word);
        char *u = malloc(len + 16);
        if (!u) {
            free(word);
            w->oom = 1;
            break;
        }
        memcpy(u, word, len + 1);
        for (int k = 2; kg_strmap_get(&taken, u) >= 0; k++) snprintf(u + len, 16, "~%d", k);
        free(word);
        w->name[i] = u;
        kg_strmap_put(&taken, u, i);
        kg_ledger_add(l, KG_APPROXIMATED, "link", m->link[i].name, m->source, m->link[i].line,
                      "BVH names are one word of at most %d bytes: '%s' is written as '%s'", KG_LIMIT_BVH_NAME,
                      m->link[i].name, u);
    }
    if (taken.failed) w->oom = 1; /* a name could be taken twice */
    kg_strmap_free(&taken);
}

/* Writes the head of the node of `link` (root: a ROOT with six channels from
 * the base pose), up to its CHANNELS; returns its index in w->nodes. */
static int open_node(bw *w, int link, int depth, int root, kg_ledger *l) {
    const kg_model *m = w->m;
    FILE *f = w->f;
    const kg_joint *J = link > 0 ? &m->joint[m->link[link].joint] : NULL;
    bnode b = {link, 0, 0, 0, 0, 0, 0};
    double off[3] = {0, 0, 0};
    if (J) kg_vec3_copy(off, J->pos);
    if (!root && m->root_body != 0 && J && J->type == KG_JOINT_FIXED && identity_rotation(J->rot) && w->first[link] < 0) {
        b.end_site = 1; /* a skeleton's leaf: an End Site, as BVH importers read them */
    } else if (J && native(m, J) && !(root && J->nq == 0)) {
        b.native = 1;
        for (int a = 0; a < J->naxis; a++) { /* the importer moved position channels' OFFSET part to their rest */
            const kg_axis *ax = &m->axis[J->axis_first + a];
            if (ax->kind == KG_AXIS_TRANSLATION)
                for (int k = 0; k < 3; k++) off[k] += ax->rest * ax->dir[k];
        }
    } else {
        b.pos = root || translates(m, J);
        b.rot = root || rotates(m, J);
        if (b.rot) b.order = w->order[link];
        if (J && J->type != KG_JOINT_FIXED)
            kg_ledger_add(l, KG_APPROXIMATED, "joint", J->name, m->source, J->line,
                          "%s joint written as BVH %s%s%s channels computed from its motion (its axis is not kept)",
                          kg_joint_type_name(J->type), b.pos ? "position" : "", b.pos && b.rot ? " and " : "",
                          b.rot ? "rotation" : "");
    }
    b.add_end = !b.end_site && !b.native && w->first[link] < 0; /* a BVH file's own leaf joints stay as they were */
    w->nodes[w->n++] = b;
    indent(f, depth);
    if (b.end_site) {
        /* never "End Site NAME": assimp and most readers refuse a name there */
        fprintf(f, "End Site\n");
        const char *name = m->link[link].name, *parent = wname(w, J->parent);
        size_t n = strlen(parent);
        if (strncmp(name, parent, n) || strcmp(name + n, "_End"))
            kg_ledger_add(l, KG_APPROXIMATED, "link", name, m->source, m->link[link].line,
                          "BVH End Sites have no name: '%s' is written as an End Site of '%s', read back as '%s_End'",
                          name, parent, parent);
    } else {
        fprintf(f, "%s %s\n", root ? "ROOT" : "JOINT", wname(w, link));
    }
    indent(f, depth);
    fprintf(f, "{\n");
    offset(f, depth, off);
    if (!b.end_site) {
        indent(f, depth + 1);
        if (b.native) {
            fprintf(f, "CHANNELS %d", J->nq);
            for (int c = 0; c < J->nq; c++)
                for (int a = 0; a < J->naxis; a++)
                    if (m->axis[J->axis_first + a].coord == c) fprintf(f, " %s", channel(&m->axis[J->axis_first + a]));
        } else {
            fprintf(f, "CHANNELS %d%s", 3 * (b.pos + b.rot), b.pos ? " Xposition Yposition Zposition" : "");
            for (int a = 0; b.rot && a < 3; a++) fprintf(f, " %s", names[0][orders[b.order][a]]);
        }
        fputc('\n', f);
    }
    return w->n - 1;
}

/* Closes node k of w->nodes (at depth): its added End Site, its '}'. */
static void close_node(bw *w, int k, int depth, kg_ledger *l) {
    const kg_model *m = w->m;
    FILE *f = w->f;
    const bnode b = w->nodes[k];
    int link = b.link;
    if (b.add_end) {
        double zero[3] = {0, 0, 0};
        indent(f, depth + 1);
        fprintf(f, "End Site\n");
        indent(f, depth + 1);
        fprintf(f, "{\n");
        offset(f, depth + 1, zero);
        indent(f, depth + 1);
        fprintf(f, "}\n");
        kg_ledger_add(l, KG_APPROXIMATED, "link", m->link[link].name, m->source, m->link[link].line,
                      "BVH joints need children: an End Site at the origin of leaf '%s' is added", m->link[link].name);
    }
    indent(f, depth);
    fprintf(f, "}\n");
}

/* Writes the hierarchy under `root` depth first, with a stack of its own: a
 * chain of 10^5 links must not need 10^5 C stack frames (st: room for every
 * link). */
static void write_tree(bw *w, int root, kg_ledger *l, void *stack) {
    typedef struct { int node, child; } frame; /* child: the next child to write */
    frame *st = stack;
    int top = 0;
    st[top++] = (frame){open_node(w, root, 0, 1, l), w->first[root]};
    while (top > 0) {
        frame *t = &st[top - 1];
        if (t->child >= 0) {
            int c = t->child;
            t->child = w->next[c];
            st[top] = (frame){open_node(w, c, top, 0, l), w->first[c]};
            top++;
        } else {
            close_node(w, t->node, top - 1, l);
            top--;
        }
    }
}

/* The number of nodes the file would have (links, added End Sites): a file the
 * BVH reader would refuse is not written. */
static long count_nodes(const bw *w) {
    long n = 0;
    for (int i = 1; i < w->m->nlink; i++)
        if (w->m->link[i].real < 0) n += 1 + (w->first[i] < 0);
    return n + 2;
}

static void bw_free(bw *w) {
    free(w->nodes);
    free(w->first);
    free(w->next);
    free(w->order);
    for (int i = 0; w->name && i < w->m->nlink; i++) free(w->name[i]);
    free(w->name);
    kg_data_free(w->kd);
}

int kg_export_bvh(const kg_model *m, const kg_motion *mo, const kg_export_options *o, FILE *f, kg_ledger *l,
                  kg_diags *d) {
    kg_ledger_model_only(m, l, "BVH");
    bw w = {.m = m, .f = f, .mo = mo};
    children(&w);
    if (!w.oom && count_nodes(&w) > KG_LIMIT_BVH_NODES) {
        kg_diag_add(d, KG_ERROR, "bvh.too_many_joints", m->source, 0, NULL,
                    "%ld BVH joints and End Sites; a BVH file holds at most %d (KG_LIMIT_BVH_NODES)", count_nodes(&w),
                    KG_LIMIT_BVH_NODES);
        bw_free(&w);
        return -1;
    }
    /* everything the writing needs, before a byte is written */
    if (!w.oom && !(w.kd = kg_data_new(m))) w.oom = 1;
    if (!w.oom) rotation_orders(&w);
    if (!w.oom) bvh_names(&w, l);
    w.nodes = calloc((size_t)m->nlink + 1, sizeof(bnode));
    double *deg = calloc((size_t)m->nq + 1, sizeof *deg), *angles = calloc(3 * ((size_t)m->nlink + 1), sizeof *angles);
    void *stack = malloc(((size_t)m->nlink + 1) * 2 * sizeof(int));
    if (w.oom || !w.nodes || !deg || !angles || !stack) {
        free(deg), free(angles), free(stack);
        bw_free(&w);
        return kg_export_oom(o, d);
    }
    fprintf(f, "HIERARCHY\n");
    if (m->root_body != 0) { /* a static world: its children are the hierarchies */
        for (int c = w.first[0]; c >= 0; c = w.next[c]) write_tree(&w, c, l, stack);
    } else {
        write_tree(&w, 0, l, stack);
    }
    free(stack);
    int nframes = mo ? mo->nframes : 1;
    if (!mo)
        kg_ledger_add(l, KG_DEFAULTED, "motion", m->name, m->source, 0,
                      "BVH needs a motion: one frame at the rest pose is written");
    char buf[32];
    fprintf(f, "MOTION\nFrames: %d\nFrame Time: %s\n", nframes, kg_format_number(buf, mo ? mo->frame_time : 1.0 / 30));
    kg_data *kd = w.kd;
    for (int k = 0; k < m->nq; k++) deg[k] = 1;
    for (int a = 0; a < m->nangle; a++) deg[m->angle_q[a]] = 180 / KG_PI;
    for (int fr = 0; fr < nframes; fr++) {
        pose_frame(m, mo, fr, kd);
        int first = 1;
        for (int k = 0; k < w.n; k++) {
            const bnode *b = &w.nodes[k];
            double v[6];
            int nv = 0;
            if (b->native) {
                const kg_joint *J = &m->joint[m->link[b->link].joint];
                for (int c = 0; c < J->nq; c++) v[nv++] = kd->q[J->qadr + c] * deg[J->qadr + c];
            } else if (b->pos || b->rot) {
                double r[9], t[3];
                local_pose(m, kd, b->link, r, t);
                if (b->pos) v[nv++] = t[0], v[nv++] = t[1], v[nv++] = t[2];
                if (b->rot) {
                    euler(r, b->order, fr ? angles + 3 * k : NULL, angles + 3 * k);
                    v[nv++] = angles[3 * k], v[nv++] = angles[3 * k + 1], v[nv++] = angles[3 * k + 2];
                }
            }
            for (int c = 0; c < nv; c++) {
                if (!first) fputc(' ', f);
                fputs(kg_format_number(buf, v[c]), f);
                first = 0;
            }
        }
        fputc('\n', f);
    }
    free(deg);
    free(angles);
    bw_free(&w);
    return ferror(f) ? -1 : 0;
}
