/* Body parts by structure at a pose (see map.h for the rules). Sections:
 * the thresholds; names (the family, and sides and limb words for ties); the
 * body at a pose (arc lengths down the tree); limbs and their joints; mirror
 * pairs; legs or arms; left or right; the head; filling the map. */
#include "kinegraph/bodymap.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/data.h"
#include "core/fk.h"
#include "core/spatial.h"

/* ---- what "nearly", "short" and "across" mean ------------------------------------ */

/* Mirror limbs (left and right) differ in length by at most this share: a hand
 * with a finger more, a sensor on one side. */
#define MIRROR_TOL 0.2
/* A limb's side branches (fingers, toes, twist and helper bones, sensors) are at
 * most this share of its length; a chain with a longer one is a trunk. */
#define LIMB_SIDE 0.5
/* The arms are at least this share of the legs' length; shorter mirror pairs are
 * eyes, fingers, toes, breasts or sensors. */
#define LIMB_MIN 0.25
/* A one-axis joint whose axis is within 45 degrees of the limb turns the limb
 * about itself (a twist or yaw joint) rather than bending it. */
#define TWIST_COS 0.7071
/* A thigh (upper arm) is about as long as the shank (forearm): the hip
 * (shoulder) is at least this share of the shank's arc above the knee. A joint
 * nearer the knee (a robot's hip yaw partway down the thigh, a twist bone) is
 * not the hip. */
#define HIP_TOP 0.6
/* A link forks (fingers from a hand, toes from a foot) when at least two of its
 * child branches are each at least this share of its longest. */
#define FORK_SHARE 0.25
/* A toe joint (the ball of the foot) is at least this share of the foot's length
 * beyond the ankle. */
#define BALL_SHARE 0.5
/* A hanging leg points within 60 degrees of straight down (standing, walking,
 * running; not sitting or kicking). */
#define HANG_COS 0.5
/* Four limbs within 45 degrees of their mean direction point one way; a spine
 * within 45 degrees of square to them lies across them (a quadruped). */
#define PARALLEL_COS 0.7071
#define ACROSS_COS 0.7071
/* Two hips (shoulders) lie across the body when the line between them is within
 * 60 degrees of the body's left. */
#define SIDE_COS 0.5
/* A knee that bends at least twice as far one way as the other bends one way
 * only; probing it that way by KNEE_PROBE (rad) moves the ankle backward. */
#define KNEE_ONE_WAY 2.0
#define KNEE_PROBE 0.1
/* A point of the foot is ahead of the ankle when its offset across the up axis
 * is at least this share of its distance from the ankle. */
#define FOOT_AHEAD 0.25
/* The feet and knees agree on forward when their offsets, added, keep at least
 * this share of their lengths added; and they show it when that sum is at least
 * FORWARD_MIN of the legs' mean length (a straight leg on a foot without toes
 * shows nothing). */
#define FORWARD_AGREE 0.5
#define FORWARD_MIN 0.05
/* Two points closer than this share of the longest limb are one (a tenth of a
 * millimetre on a metre-long leg). */
#define SAME_POINT 1e-4
/* A skeleton's ball joint whose bone in and bone out stay in line (within
 * about 1.5 degrees) over a whole clip, with the limb going on beyond it at
 * least as far as the bone before it, is taken for a twist or roll bone
 * partway along a limb (a rig's ThighTwist, ForearmRoll): the shank's or
 * forearm's segment goes on through it (end_of), so the ankle or wrist is the
 * segment's true end. Only there: a knee or elbow held straight over a short
 * clip is in line too. STILL_FRAMES frames are sampled. */
#define STILL_COS 0.99966
/* Knee candidates whose distances from the limb's middle differ by at most
 * this share of the limb are equally near (middle). */
#define MIDDLE_TIE 0.1
/* A limb's last link reaches at most this many times the bone before it: a
 * person's forearm and hand are 1.4 times the upper arm; at 1 (the upper arm
 * alone) a servo robot's hand link, fixed at its elbow and drawn 10 cm on,
 * was cut to 4.6 cm, and the elbow mapped one joint up, to the shoulder's
 * second hinge. */
#define LEAF_REACH 1.5
#define STILL_FRAMES 200
/* Knee, hip and ankle depend on each other; they settle in a round or two. */
#define JOINT_ROUNDS 4

/* ---- part names -------------------------------------------------------------------- */

static const char *const part_names[KG_NPART] = {
    "pelvis",        "chest",      "head",        "left_hip",  "left_knee",      "left_ankle",
    "left_foot",     "left_shoulder", "left_elbow", "left_wrist", "right_hip",    "right_knee",
    "right_ankle",   "right_foot", "right_shoulder", "right_elbow", "right_wrist"};

const char *kg_part_name(int part) { return part >= 0 && part < KG_NPART ? part_names[part] : NULL; }

int kg_part_parse(const char *name) {
    for (int k = 0; k < KG_NPART; k++)
        if (!strcmp(name, part_names[k])) return k;
    return -1;
}

/* ---- names: the family, and what breaks ties ------------------------------------- */

enum { SIDE_NONE = 0, SIDE_L = 1, SIDE_R = 2 };

/* The telling part of a name, lower case and without separators, prefixes
 * ("mixamorig:", "cc_base_"), suffixes ("_link", "_joint") and the side, which
 * goes to *side. */
static void token(const char *name, char *out, size_t size, int *side) {
    char buf[256];
    const char *colon = strrchr(name, ':');
    if (colon) name = colon + 1;
    size_t n = 0;
    for (; *name && n + 1 < sizeof buf; name++) buf[n++] = (char)tolower((unsigned char)*name);
    buf[n] = 0;
    char *s = buf;
    if (!strncmp(s, "cc_base_", 8)) s += 8;
    *side = SIDE_NONE;
    char *p;
    if ((p = strstr(s, "left"))) *side = SIDE_L, memmove(p, p + 4, strlen(p + 4) + 1);
    else if ((p = strstr(s, "right"))) *side = SIDE_R, memmove(p, p + 5, strlen(p + 5) + 1);
    size_t len = strlen(s);
    static const char *const suffixes[] = {"_link", "_joint", "link", "joint"};
    for (int k = 0; k < 4; k++) {
        size_t sl = strlen(suffixes[k]);
        if (len > sl && !strcmp(s + len - sl, suffixes[k]) && strcmp(s, "hipjoint")) {
            s[len - sl] = 0;
            len -= sl;
            break;
        }
    }
    if (*side == SIDE_NONE) {
        if ((s[0] == 'l' || s[0] == 'r') && (s[1] == '_' || s[1] == '.')) *side = s[0] == 'l' ? SIDE_L : SIDE_R, s += 2;
        else if (len > 2 && (s[len - 2] == '_' || s[len - 2] == '.') && (s[len - 1] == 'l' || s[len - 1] == 'r'))
            *side = s[len - 1] == 'l' ? SIDE_L : SIDE_R, s[len - 2] = 0;
        else if ((s[0] == 'l' || s[0] == 'r') && s[1]) {
            /* short forms: lfemur, rtibia, LThumb, Poser's lShldr and rThigh */
            static const char *const part[] = {"femur", "tibia", "foot", "toe", "clavicle", "humerus", "radius",
                                               "wrist", "hand", "hip", "finger", "thumb", "collar", "shldr",
                                               "forearm", "thigh", "shin", "knee", "elbow", "shoulder", "ankle",
                                               "arm", "leg", "uarm", "larm", "uleg", "lleg"};
            for (size_t k = 0; k < sizeof part / sizeof *part; k++)
                if (!strncmp(s + 1, part[k], strlen(part[k]))) {
                    *side = s[0] == 'l' ? SIDE_L : SIDE_R;
                    s++;
                    break;
                }
        }
    }
    n = 0;
    for (; *s && n + 1 < size; s++)
        if (isalnum((unsigned char)*s)) out[n++] = *s;
    out[n] = 0;
}

static int one_dof(const kg_model *m, int i) {
    int j = m->link[i].joint;
    return j >= 0 && m->joint[j].nv == 1 && m->joint[j].type != KG_JOINT_COMPOUND;
}

static const char *family_of(const kg_model *m) {
    int cmu = 0, asf = 0, mixamo = 0, bandai = 0, rokoko = 0, collar = 0, cc = 0, poser = 0, onedof = 0;
    for (int i = 0; i < m->nlink; i++) {
        const char *n = m->link[i].name;
        cmu |= !strcmp(n, "LHipJoint") || !strcmp(n, "LeftUpLeg");
        asf |= !strcmp(n, "lfemur");
        mixamo |= !strncmp(n, "mixamorig", 9) || !strcmp(n, "Spine2");
        bandai |= !strcmp(n, "UpperLeg_L");
        rokoko |= strstr(n, "InHand") != NULL;
        collar |= !strcmp(n, "LeftCollar");
        cc |= !strncmp(n, "CC_Base_", 8);
        poser |= !strcmp(n, "lShldr") || !strcmp(n, "lThigh");
        onedof += one_dof(m, i);
    }
    return cc ? "reallusion" : bandai ? "bandai_namco" : rokoko ? "rokoko" : asf ? "cmu_asf" : mixamo ? "mixamo"
         : cmu ? "cmu" : collar ? "mocapbank" : poser ? "poser" : onedof > m->nlink / 3 ? "robot" : "unknown";
}

/* What the names of a chain's links and joints say: its side (votes for left
 * minus votes for right) and whether it is a leg (leg words minus arm words). */
static void name_votes(const kg_model *m, const int *path, int n, int *side, int *leg) {
    static const char *const leg_words[] = {"leg", "thigh", "knee", "shin", "calf", "tibia", "femur", "foot",
                                            "ankle", "toe", "hip", "shank", NULL};
    static const char *const arm_words[] = {"arm", "shoulder", "shldr", "elbow", "hand", "wrist", "clavicle",
                                            "collar", "humerus", "radius", "finger", "thumb", NULL};
    *side = *leg = 0;
    for (int k = 0; k < n; k++) {
        int j = m->link[path[k]].joint;
        const char *names[2] = {m->link[path[k]].name, j >= 0 ? m->joint[j].name : NULL};
        for (int w = 0; w < 2; w++) {
            if (!names[w]) continue;
            char t[256];
            int s;
            token(names[w], t, sizeof t, &s);
            *side += s == SIDE_L ? 1 : s == SIDE_R ? -1 : 0;
            for (const char *const *x = leg_words; *x; x++) *leg += strstr(t, *x) != NULL;
            for (const char *const *x = arm_words; *x; x++) *leg -= strstr(t, *x) != NULL;
        }
    }
}

/* ---- the body at a pose ---------------------------------------------------------- */

typedef struct body {
    const kg_model *m;
    kg_data *d;     /* the pose */
    double *bone;   /* distance from the parent's origin */
    double *reach;  /* arc length of the longest way down */
    double *mass;   /* of the subtree */
    int *down;      /* the child on the longest way down (the first of equals), -1 at a leaf */
    int *size;      /* links in the subtree */
    double same;    /* points closer than this are one */
    unsigned char *still; /* [nlink] a ball joint in line over the clip (STILL_COS), or NULL */
} body;

static int is_real(const kg_model *m, int i) { return m->link[i].real < 0; }

static const double *pos(const body *b, int i) { return b->d->link_pos + 3 * i; }

static double dist(const double a[3], const double c[3]) {
    double v[3] = {a[0] - c[0], a[1] - c[1], a[2] - c[2]};
    return kg_vec3_norm(v);
}

static int is_below(const kg_model *m, int i, int anc) {
    for (; i >= 0; i = m->link[i].parent)
        if (i == anc) return 1;
    return 0;
}

static int depth(const kg_model *m, int i) {
    int n = 0;
    for (; i >= 0; i = m->link[i].parent) n++;
    return n;
}

static void body_free(body *b) {
    kg_data_free(b->d);
    free(b->bone), free(b->reach), free(b->mass), free(b->down), free(b->size), free(b->still);
}

/* Marks the links whose bone in (from their parent) and bone out (to their
 * child on the longest way down) stay in line at every sampled frame of the
 * clip. Returns -1 when memory runs out. */
static int find_still(body *b, const kg_motion *clip) {
    const kg_model *m = b->m;
    int n = m->nlink, step = clip->nframes > STILL_FRAMES ? clip->nframes / STILL_FRAMES : 1;
    b->still = malloc(n + 1);
    kg_data *d = kg_data_new(m);
    if (!b->still || !d) {
        kg_data_free(d);
        return -1;
    }
    for (int i = 0; i < n; i++) b->still[i] = m->link[i].parent >= 0 && b->down[i] >= 0;
    for (int f = 0; f < clip->nframes; f += step) {
        memcpy(d->q, clip->q + (size_t)f * clip->nq, m->nq * sizeof *d->q);
        kg_fk(m, d);
        for (int i = 0; i < n; i++) {
            if (!b->still[i]) continue;
            const double *p = d->link_pos + 3 * m->link[i].parent, *x = d->link_pos + 3 * i,
                         *c = d->link_pos + 3 * b->down[i];
            double in[3] = {x[0] - p[0], x[1] - p[1], x[2] - p[2]}, out[3] = {c[0] - x[0], c[1] - x[1], c[2] - x[2]};
            double ni = kg_vec3_norm(in), no = kg_vec3_norm(out);
            b->still[i] = ni > b->same && no > b->same && kg_vec3_dot(in, out) >= STILL_COS * ni * no;
        }
    }
    kg_data_free(d);
    /* a roll bone is partway along its limb: the limb goes on beyond it at least as far as the straight
     * run of bones before it (a wrist held straight, its hand shorter than the forearm, is not one) */
    double *run = calloc(n + 1, sizeof *run);
    if (!run) return -1;
    for (int i = 0; i < n; i++) { /* parents first */
        int p = m->link[i].parent;
        run[i] = b->bone[i] + (p >= 0 && b->still[p] ? run[p] : 0);
    }
    for (int i = 0; i < n; i++) b->still[i] = b->still[i] && b->reach[i] >= run[i];
    free(run);
    return 0;
}

/* Forward kinematics at q, then lengths, masses and longest ways down from the
 * leaves up (children come after their parents). */
static int body_init(body *b, const kg_model *m, const double *q) {
    int n = m->nlink;
    memset(b, 0, sizeof *b);
    b->m = m;
    b->d = kg_data_new(m);
    b->bone = calloc(n, sizeof *b->bone), b->reach = calloc(n, sizeof *b->reach);
    b->mass = calloc(n, sizeof *b->mass), b->down = malloc(n * sizeof *b->down), b->size = calloc(n, sizeof *b->size);
    if (!b->d || !b->bone || !b->reach || !b->mass || !b->down || !b->size) return -1;
    if (q) memcpy(b->d->q, q, m->nq * sizeof *q);
    kg_fk(m, b->d);
    for (int i = 0; i < n; i++) {
        b->down[i] = -1;
        b->size[i] = is_real(m, i);
        b->mass[i] = m->link[i].mass;
        if (m->link[i].parent >= 0) b->bone[i] = dist(pos(b, i), pos(b, m->link[i].parent));
    }
    for (int i = n - 1; i > 0; i--) {
        int p = m->link[i].parent;
        if (!is_real(m, i)) continue;
        b->size[p] += b->size[i], b->mass[p] += b->mass[i];
        double r = b->bone[i] + b->reach[i];
        if (b->down[p] < 0 || r >= b->reach[p]) b->reach[p] = r, b->down[p] = i; /* >=: the first of equals */
    }
    return 0;
}

static double branch_len(const body *b, int i) { return b->bone[i] + b->reach[i]; }

/* A branch without mass on a model with masses: a frame (a sensor's, a
 * kinematic convention's), not a body part. */
static int frame_only(const body *b, int c) { return b->mass[0] > 0 && !(b->mass[c] > 0); }

/* Does link i fork like a hand into fingers or a foot into toes? A frame
 * (frame_only) is not a finger: one fixed 10 cm down a robot's forearm made
 * the forearm's link its hand, the wrist 10 cm short. */
static int forks(const body *b, int i) {
    double longest = b->reach[i];
    int big = 0;
    for (int c = i + 1; c < b->m->nlink; c++)
        if (b->m->link[c].parent == i && is_real(b->m, c) && branch_len(b, c) >= FORK_SHARE * longest &&
            !frame_only(b, c))
            big++;
    return big >= 2;
}

/* ---- limbs --------------------------------------------------------------------- */

typedef struct limb {
    int branch;           /* the trunk link it hangs from */
    int n, *path;         /* its links along the longest way down, the root first */
    double *s;            /* [n + 1] arc length from the root to each; s[n] to the tip */
    double tip[3];        /* the far end of its last link, world */
    double tip_local[3];  /* the same in the last link's frame */
    int top, mid, end;    /* hip, knee, ankle (shoulder, elbow, wrist) as path indices; end == n: the tip */
    int foot;             /* the foot's end (link), or -1 */
    int ball;             /* the foot's end is its toe joint */
} limb;

/* How far a shape reaches from its centre along the unit vector u (link frame). */
static double shape_extent(const kg_geom *g, const double u[3]) {
    double w[3];
    kg_mat3_tvec(w, g->rot, u);
    double across = sqrt(fmax(0, 1 - w[2] * w[2]));
    switch (g->type) {
    case KG_GEOM_BOX: return 0.5 * (fabs(w[0]) * g->size[0] + fabs(w[1]) * g->size[1] + fabs(w[2]) * g->size[2]);
    case KG_GEOM_CYLINDER: return g->size[0] * across + 0.5 * g->size[1] * fabs(w[2]);
    case KG_GEOM_CAPSULE: return g->size[0] + 0.5 * g->size[1] * fabs(w[2]);
    case KG_GEOM_SPHERE: return g->size[0];
    default: return 0; /* a mesh: its origin only (meshes are not read here) */
    }
}

/* The far end of a limb's last link, in its frame: the farthest from its origin
 * of the far sides of its shapes (each along the way from the origin to its
 * centre), else of its centre of mass (its shapes are meshes, not read here);
 * the origin when it has neither (a BVH End Site). Nothing farther than `cap`
 * (LEAF_REACH times the bone before it) counts: a forearm with its hand is
 * not much longer than the upper arm, a finger's last phalanx than the one
 * before, and a centre of mass beyond that is bad data (one written in the
 * model's frame, say). */
static void leaf_tip(const kg_model *m, int l, double cap, double out[3]) {
    double far = 0;
    out[0] = out[1] = out[2] = 0;
    for (int g = m->link[l].geom_first; g < m->link[l].geom_first + m->link[l].geom_count; g++) {
        const kg_geom *G = &m->geom[g];
        double c = kg_vec3_norm(G->pos);
        if (!(c > 0)) continue;
        double u[3] = {G->pos[0] / c, G->pos[1] / c, G->pos[2] / c}, e = c + shape_extent(G, u);
        if (e > far && e <= cap) far = e, out[0] = e * u[0], out[1] = e * u[1], out[2] = e * u[2];
    }
    double c = kg_vec3_norm(m->link[l].com);
    if (far == 0 && m->link[l].mass > 0 && c <= cap) kg_vec3_copy(out, m->link[l].com);
}

static void limb_free(limb *L) { free(L->path), free(L->s); }

static int limb_build(const body *b, int root, limb *L) {
    const kg_model *m = b->m;
    memset(L, 0, sizeof *L);
    L->path = malloc(m->nlink * sizeof *L->path);
    L->s = malloc((m->nlink + 1) * sizeof *L->s);
    if (!L->path || !L->s) return -1;
    L->branch = m->link[root].parent;
    for (int i = root; i >= 0; i = b->down[i]) L->path[L->n++] = i;
    L->s[0] = 0;
    double last_bone = b->bone[root];
    for (int k = 1; k < L->n; k++) {
        L->s[k] = L->s[k - 1] + b->bone[L->path[k]];
        if (b->bone[L->path[k]] > 0) last_bone = b->bone[L->path[k]];
    }
    int leaf = L->path[L->n - 1];
    leaf_tip(m, leaf, LEAF_REACH * last_bone, L->tip_local);
    kg_mat3_vec(L->tip, b->d->link_rot + 9 * leaf, L->tip_local);
    for (int a = 0; a < 3; a++) L->tip[a] += pos(b, leaf)[a];
    L->s[L->n] = L->s[L->n - 1] + kg_vec3_norm(L->tip_local);
    L->foot = -1;
    return 0;
}

/* The point of path index k (k == n: the tip). */
static const double *at(const body *b, const limb *L, int k) { return k < L->n ? pos(b, L->path[k]) : L->tip; }

static int same_point(const body *b, const limb *L, int i, int k) { return dist(at(b, L, i), at(b, L, k)) <= b->same; }

/* Path link k of a skeleton stays in line with its parent over the clip: a
 * roll or segment bone (find_still). */
static int in_line(const body *b, const limb *L, int k) { return b->still && b->still[L->path[k]]; }

/* Can the joint of path link k bend the limb on its way to path index `to`
 * (the knee for a hip, the tip for a knee)? A ball or compound joint can; a
 * one-axis joint can when its axis lies across that way, not along it as a
 * twist or yaw joint's does. */
static int bends(const body *b, const limb *L, int k, int to) {
    const kg_model *m = b->m;
    int l = L->path[k], j = m->link[l].joint;
    if (j < 0) return 0;
    const kg_joint *J = &m->joint[j];
    if (J->type == KG_JOINT_FLOATING || J->type == KG_JOINT_PLANAR) return 1;
    if (J->type == KG_JOINT_COMPOUND) {
        for (int a = J->axis_first; a < J->axis_first + J->naxis; a++)
            if (m->axis[a].kind == KG_AXIS_ROTATION) return 1;
        return 0;
    }
    if (J->type != KG_JOINT_REVOLUTE && J->type != KG_JOINT_CONTINUOUS) return 0;
    if (to <= k || same_point(b, L, to, k)) to = L->n;
    if (same_point(b, L, to, k)) return 1; /* nothing beyond to tell by */
    double axis[3], u[3];
    kg_mat3_vec(axis, b->d->link_rot + 9 * l, J->axis);
    for (int a = 0; a < 3; a++) u[a] = at(b, L, to)[a] - pos(b, l)[a];
    double na = kg_vec3_norm(axis), nu = kg_vec3_norm(u);
    return na <= 0 || fabs(kg_vec3_dot(axis, u)) <= TWIST_COS * na * nu;
}

/* Where several links share the point of path index k (a robot's yaw, roll and
 * pitch joints at one place), the first of them (from index lo on) that bends
 * on the way to index `to`. */
static int settle(const body *b, const limb *L, int k, int lo, int to) {
    int first = k;
    while (first - 1 >= lo && same_point(b, L, first - 1, k)) first--;
    for (int i = first; i <= k; i++)
        if (bends(b, L, i, to)) return i;
    return k;
}

/* The knee (elbow): the bending link strictly between path indices lo and hi
 * whose arc position is nearest their middle (the first of equals); of a
 * skeleton's links about as near (MIDDLE_TIE), one that bends over the clip
 * rather than one in line throughout (find_still). A rig's limb cut into
 * segment bones of equal length (thigh, thigh.001, shin, shin.001) has a
 * segment joint as near the middle as the knee: the legs' slightly different
 * lengths took the knee on one side and the shin's segment joint on the
 * other. */
static int middle(const body *b, const limb *L, int lo, int hi) {
    double want = 0.5 * (L->s[lo] + L->s[hi]), tie = MIDDLE_TIE * (L->s[hi] - L->s[lo]);
    int best = -1, any = -1;
    double bd = INFINITY, ad = INFINITY;
    for (int k = lo + 1; k < hi && k < L->n; k++) {
        double dd = fabs(L->s[k] - want);
        if (dd < ad) ad = dd, any = k;
        if (dd < bd && bends(b, L, k, hi)) bd = dd, best = k;
    }
    if (best < 0) return any;
    int moving = -1;
    double md = bd + tie; /* of those as near, the nearest that bends over the clip */
    for (int k = lo + 1; in_line(b, L, best) && k < hi && k < L->n; k++)
        if (!in_line(b, L, k) && fabs(L->s[k] - want) <= md && bends(b, L, k, hi)) md = fabs(L->s[k] - want), moving = k;
    return moving >= 0 ? moving : best;
}

/* The hip (shoulder): the last bending link above the knee at least HIP_TOP of
 * the shank (the arc from knee to ankle) above it (of a skeleton's, the last
 * that bends over the clip when any does), settled to the first bending link
 * at its point; a clavicle before it does not count, being farther up. */
static int top(const body *b, const limb *L, int knee, int ankle) {
    double shank = L->s[ankle] - L->s[knee];
    int best = -1, moving = -1, any = 0;
    for (int k = 0; k < knee; k++) {
        if (L->s[knee] - L->s[k] < HIP_TOP * shank) continue;
        any = k;
        if (!bends(b, L, k, knee)) continue;
        best = k;
        if (!in_line(b, L, k)) moving = k; /* not a segment bone partway down (middle) */
    }
    return settle(b, L, moving >= 0 ? moving : best >= 0 ? best : any, 0, knee);
}

/* The ankle (wrist): the end of the longest segment from the knee to the first
 * fork (toes, fingers), a segment going on through a skeleton's roll bones
 * (still: in line over the clip); a twist joint there (a robot's forearm roll
 * partway down) hands over to the next bending link. n (the tip) when no link lies beyond the knee:
 * an arm that ends at the elbow's own link. */
static int end_of(const body *b, const limb *L, int knee) {
    int stop = L->n - 1;
    for (int k = knee + 1; k < L->n; k++)
        if (forks(b, L->path[k])) {
            stop = k;
            break;
        }
    int best = -1, from = knee;
    double longest = b->same;
    for (int k = knee + 1; k <= stop; k++) {
        if (in_line(b, L, k) && k < stop) continue; /* a roll bone: the segment goes on */
        if (L->s[k] - L->s[from] > longest) longest = L->s[k] - L->s[from], best = k;
        from = k;
    }
    if (best < 0) return L->n;
    if (!bends(b, L, best, L->n))
        for (int k = best + 1; k <= stop; k++)
            if (bends(b, L, k, L->n)) {
                best = k;
                break;
            }
    return settle(b, L, best, knee + 1, L->n);
}

/* The deepest link below i (the ankle); of equally deep ones, the nearest i
 * (a sole's frame under the ankle, not the sensors' frames at the toes and
 * edges); where the nearest are as near (within b->same), the link that holds
 * them all: two anchors of an ankle's linkage fixed either side of the foot
 * link (the first of them made the foot, its assumed sole 14 mm to one side). */
static int deepest_below(const body *b, int i) {
    const kg_model *m = b->m;
    int best = i, bd = depth(m, i);
    double near = INFINITY;
    for (int c = i + 1; c < m->nlink; c++) {
        if (!is_real(m, c) || !is_below(m, c, i)) continue;
        int dc = depth(m, c);
        double r = dist(pos(b, c), pos(b, i));
        if (dc > bd || (dc == bd && r < near - b->same)) best = c, bd = dc, near = r;
        else if (dc == bd && r <= near + b->same)
            while (!is_below(m, c, best)) best = m->link[best].parent;
    }
    return best;
}

/* The foot's end: its toe joint (a bending link at least BALL_SHARE of the foot
 * beyond the ankle), else the deepest link of the foot. */
static void foot_end(const body *b, limb *L) {
    if (L->end >= L->n) {
        L->foot = L->path[L->n - 1], L->ball = 0;
        return;
    }
    double foot = L->s[L->n] - L->s[L->end];
    for (int k = L->end + 1; k < L->n; k++) {
        double from = L->s[k] - L->s[L->end];
        if (from > b->same && from >= BALL_SHARE * foot && bends(b, L, k, L->n)) {
            L->foot = L->path[k], L->ball = 1;
            return;
        }
    }
    L->foot = deepest_below(b, L->path[L->end]), L->ball = 0;
}

/* Knee first (the middle of the whole limb), then ankle and hip from it, then
 * the knee again between them, until they agree. */
static int limb_joints(const body *b, limb *L) {
    L->mid = middle(b, L, 0, L->n);
    if (L->mid < 0) return -1;
    for (int round = 0; round < JOINT_ROUNDS; round++) {
        L->end = end_of(b, L, L->mid);
        L->top = top(b, L, L->mid, L->end);
        int again = middle(b, L, L->top, L->end);
        if (again < 0 || again == L->mid) break;
        L->mid = again;
    }
    L->end = end_of(b, L, L->mid);
    L->top = top(b, L, L->mid, L->end);
    foot_end(b, L);
    return 0;
}

/* ---- mirror pairs ------------------------------------------------------------------ */

typedef struct pair {
    int a, c;        /* the two limbs' roots (a < c) */
    double len;      /* the shorter one's length */
    double score;    /* how unlike they are (0: mirror images) */
} pair;

/* A chain from root whose side branches are all short beside it. */
static int simple_limb(const body *b, int root) {
    const kg_model *m = b->m;
    double len = branch_len(b, root);
    if (len <= 0) return 0;
    for (int i = root; i >= 0; i = b->down[i])
        for (int c = i + 1; c < m->nlink; c++)
            if (m->link[c].parent == i && c != b->down[i] && is_real(m, c) && branch_len(b, c) > LIMB_SIDE * len)
                return 0;
    return 1;
}

/* Sibling limbs of nearly one length, the likest first (the first found of equals). */
static int mirror_pairs(const body *b, pair **out) {
    const kg_model *m = b->m;
    int n = 0, cap = 16;
    pair *P = malloc(cap * sizeof *P);
    char *ok = malloc(m->nlink);
    if (!P || !ok) return free(P), free(ok), -1;
    for (int i = 0; i < m->nlink; i++) ok[i] = i > 0 && is_real(m, i) && simple_limb(b, i);
    for (int a = 1; a < m->nlink; a++)
        for (int c = a + 1; c < m->nlink && ok[a]; c++) {
            if (!ok[c] || m->link[c].parent != m->link[a].parent) continue;
            double la = branch_len(b, a), lc = branch_len(b, c), rel = fabs(la - lc) / fmax(la, lc);
            if (rel > MIRROR_TOL) continue;
            if (n == cap) {
                pair *more = realloc(P, (cap *= 2) * sizeof *P);
                if (!more) return free(P), free(ok), -1;
                P = more;
            }
            double sz = fmax(b->size[a], b->size[c]);
            P[n++] = (pair){a, c, fmin(la, lc), rel + abs(b->size[a] - b->size[c]) / sz};
        }
    for (int i = 1; i < n; i++) /* insertion sort: stable */
        for (int k = i; k > 0 && P[k].score < P[k - 1].score; k--) {
            pair t = P[k];
            P[k] = P[k - 1], P[k - 1] = t;
        }
    free(ok);
    *out = P;
    return n;
}

/* The two longest pairs of limbs, each limb in one pair only, neither inside
 * the other's limbs and neither shorter than LIMB_MIN of the longest. */
static int limb_pairs(const body *b, pair best[2]) {
    const kg_model *m = b->m;
    pair *P;
    int n = mirror_pairs(b, &P), kept = 0;
    if (n < 0) return -1;
    char *used = calloc(m->nlink, 1);
    if (!used) return free(P), -1;
    for (int i = 0; i < n; i++) { /* each limb to its likest mirror */
        if (used[P[i].a] || used[P[i].c]) {
            P[i].len = -1;
            continue;
        }
        used[P[i].a] = used[P[i].c] = 1;
    }
    double longest = 0;
    for (int i = 0; i < n; i++) longest = fmax(longest, P[i].len);
    for (int pass = 0; pass < 2; pass++) {
        int pick = -1;
        for (int i = 0; i < n; i++) {
            if (P[i].len < LIMB_MIN * longest || P[i].len <= 0) continue;
            if (kept && (is_below(m, P[i].a, best[0].a) || is_below(m, P[i].a, best[0].c) ||
                         is_below(m, best[0].a, P[i].a) || is_below(m, best[0].a, P[i].c)))
                continue; /* fingers of an arm, or an arm of a "limb" made of two */
            if (pick < 0 || P[i].len > P[pick].len) pick = i;
        }
        if (pick < 0) break;
        best[kept++] = P[pick];
        P[pick].len = -1;
    }
    free(used), free(P);
    return kept;
}

/* ---- legs or arms ------------------------------------------------------------------- */

enum { BY_POSE, BY_TREE, BY_NAME, BY_GUESS };

static void midpoint(double out[3], const double a[3], const double c[3]) {
    for (int k = 0; k < 3; k++) out[k] = 0.5 * (a[k] + c[k]);
}

static int unit(double v[3]) {
    double n = kg_vec3_norm(v);
    if (!(n > 0)) return 0;
    for (int k = 0; k < 3; k++) v[k] /= n;
    return 1;
}

/* The longest branch of link `at` that is neither a limb nor the way to link
 * `away`: at the chest, the neck and head; at the pelvis, little (a sensor). */
static double other_branch(const body *b, int at, int away, const limb *leg, const limb *arm) {
    const kg_model *m = b->m;
    double longest = 0;
    for (int c = at + 1; c < m->nlink; c++) {
        if (m->link[c].parent != at || !is_real(m, c) || is_below(m, away, c)) continue;
        if (c == leg[0].path[0] || c == leg[1].path[0] || c == arm[0].path[0] || c == arm[1].path[0]) continue;
        longest = fmax(longest, branch_len(b, c));
    }
    return longest;
}

/* Does the pose stand on legs leg[0..1], arms arm[0..1]? Up runs from the legs'
 * roots to the arms' (from the feet to the legs' roots when both hang from one
 * link); both legs hang, and end below both arms; and the head is not down:
 * the pelvis carries no longer other branch than the chest (a rest pose with
 * every bone along one axis looks like a handstand on the arms). */
static int stands(const body *b, const limb *leg, const limb *arm) {
    double rl[3], ra[3], up[3], feet[3];
    int pelvis = leg[0].branch, chest = arm[0].branch;
    if (other_branch(b, pelvis, chest, leg, arm) > other_branch(b, chest, pelvis, leg, arm)) return 0;
    midpoint(rl, pos(b, leg[0].path[0]), pos(b, leg[1].path[0]));
    midpoint(ra, pos(b, arm[0].path[0]), pos(b, arm[1].path[0]));
    midpoint(feet, leg[0].tip, leg[1].tip);
    for (int k = 0; k < 3; k++) up[k] = ra[k] - rl[k];
    if (kg_vec3_norm(up) <= b->same)
        for (int k = 0; k < 3; k++) up[k] = rl[k] - feet[k];
    if (!unit(up)) return 0;
    double low = -INFINITY, high = INFINITY;
    for (int s = 0; s < 2; s++) {
        double v[3];
        for (int k = 0; k < 3; k++) v[k] = leg[s].tip[k] - pos(b, leg[s].path[0])[k];
        if (kg_vec3_dot(v, up) > -HANG_COS * kg_vec3_norm(v)) return 0;
        low = fmax(low, kg_vec3_dot(leg[s].tip, up));
        high = fmin(high, kg_vec3_dot(arm[s].tip, up));
    }
    return low < high;
}

/* Four limbs that point one way, across the line between the pairs' roots: a
 * quadruped standing. */
static int quadruped(const body *b, const limb *L) {
    double dir[4][3], mean[3] = {0, 0, 0}, spine[3], r0[3], r1[3];
    for (int i = 0; i < 4; i++) {
        for (int k = 0; k < 3; k++) dir[i][k] = L[i].tip[k] - pos(b, L[i].path[0])[k];
        if (!unit(dir[i])) return 0;
        for (int k = 0; k < 3; k++) mean[k] += dir[i][k];
    }
    if (!unit(mean)) return 0;
    for (int i = 0; i < 4; i++)
        if (kg_vec3_dot(dir[i], mean) < PARALLEL_COS) return 0;
    midpoint(r0, pos(b, L[0].path[0]), pos(b, L[1].path[0]));
    midpoint(r1, pos(b, L[2].path[0]), pos(b, L[3].path[0]));
    for (int k = 0; k < 3; k++) spine[k] = r1[k] - r0[k];
    return unit(spine) && fabs(kg_vec3_dot(spine, mean)) <= ACROSS_COS;
}

/* Which pair (0: L[0..1], 1: L[2..3]) are the legs, and by what (*by); -1 with
 * *why when it cannot be told: the model is not a humanoid. */
static int which_legs(const body *b, const limb *L, int *by, const char **why) {
    int s0 = stands(b, L, L + 2), s1 = stands(b, L + 2, L);
    if (s0 != s1) return *by = BY_POSE, s0 ? 0 : 1;
    if (quadruped(b, L)) {
        *why = "its four limbs point one way, across the line between their roots: a quadruped";
        return -1;
    }
    int d0 = depth(b->m, L[0].branch), d1 = depth(b->m, L[2].branch);
    if (d0 != d1) return *by = BY_TREE, d0 < d1 ? 0 : 1;
    int side, leg0, leg1, v;
    name_votes(b->m, L[0].path, L[0].n, &side, &leg0), name_votes(b->m, L[1].path, L[1].n, &side, &v), leg0 += v;
    name_votes(b->m, L[2].path, L[2].n, &side, &leg1), name_votes(b->m, L[3].path, L[3].n, &side, &v), leg1 += v;
    if (leg0 != leg1) return *by = BY_NAME, leg0 > leg1 ? 0 : 1;
    *why = "its two pairs of limbs branch from one link, the pose shows no legs hanging below arms, "
           "and no names tell them apart";
    return -1;
}

/* ---- left or right ----------------------------------------------------------------- */

/* The point of a limb's path index k (the tip's world point when k == n), in a pose d. */
static void point_in(const kg_data *d, const limb *L, int k, double out[3]) {
    int l = L->path[k < L->n ? k : L->n - 1];
    kg_vec3_copy(out, d->link_pos + 3 * l);
    if (k < L->n) return;
    double w[3];
    kg_mat3_vec(w, d->link_rot + 9 * l, L->tip_local);
    for (int a = 0; a < 3; a++) out[a] += w[a];
}

static void flatten(double v[3], const double up[3]) {
    double h = kg_vec3_dot(v, up);
    for (int k = 0; k < 3; k++) v[k] -= h * up[k];
}

/* A knee that bends one way only (limits far apart on one side of its value)
 * moves the ankle backward when probed that way: forward is the other way
 * (a unit vector across up). */
static int knee_vote(const body *b, const limb *L, const double up[3], double v[3]) {
    const kg_model *m = b->m;
    int j = m->link[L->path[L->mid]].joint;
    if (j < 0 || m->joint[j].type != KG_JOINT_REVOLUTE || !m->joint[j].has_limit || m->joint[j].mimic >= 0) return 0;
    const kg_joint *J = &m->joint[j];
    double q0 = b->d->q[J->qadr], more = J->upper - q0, less = q0 - J->lower, dir;
    if (more > KNEE_PROBE && more >= KNEE_ONE_WAY * fmax(less, 0)) dir = 1;
    else if (less > KNEE_PROBE && less >= KNEE_ONE_WAY * fmax(more, 0)) dir = -1;
    else return 0;
    kg_data *t = kg_data_new(m);
    if (!t) return 0;
    memcpy(t->q, b->d->q, m->nq * sizeof *t->q);
    t->q[J->qadr] += dir * KNEE_PROBE;
    kg_fk(m, t);
    double before[3], after[3];
    point_in(b->d, L, L->end, before);
    point_in(t, L, L->end, after);
    kg_data_free(t);
    for (int k = 0; k < 3; k++) v[k] = before[k] - after[k];
    flatten(v, up);
    return unit(v);
}

/* Keeps x as v when it lies farther ahead of pa across the up axis than *best
 * so far, and well ahead (not below). */
static void ahead(const double pa[3], const double x[3], const double up[3], double *best, double v[3]) {
    double w[3] = {x[0] - pa[0], x[1] - pa[1], x[2] - pa[2]}, nw = kg_vec3_norm(w);
    flatten(w, up);
    double h = kg_vec3_norm(w);
    if (h > *best && h >= FOOT_AHEAD * nw) *best = h, kg_vec3_copy(v, w);
}

/* Toes, and a robot foot's mass, reach ahead of the ankle: the offset across
 * up of the point of the foot farthest ahead (the links below the ankle
 * without mass by their origins, those with mass by their centres of mass,
 * the limb's far end when it is more than its last link's origin),
 * when it is well ahead; else zero. A link's origin is where its joint is, and
 * an ankle link's mass its motor's, not how far the foot reaches: a small
 * robot's ankle roll axis 24 mm behind the pitch axis and its pitch motor 21
 * mm behind, its foot's mass and sole centred under the ankle, read as toes
 * behind and turned the robot round (left and right swapped). */
static void foot_ahead(const body *b, const limb *L, const double up[3], double v[3]) {
    const kg_model *m = b->m;
    v[0] = v[1] = v[2] = 0;
    if (L->end >= L->n) return;
    int ankle = L->path[L->end];
    const double *pa = pos(b, ankle);
    double best = 0;
    if (kg_vec3_norm(L->tip_local) > 0 || !(m->link[L->path[L->n - 1]].mass > 0)) /* not just a joint's place */
        ahead(pa, L->tip, up, &best, v);
    for (int i = ankle; i < m->nlink; i++) {
        if (!is_real(m, i) || !is_below(m, i, ankle)) continue;
        if (!(m->link[i].mass > 0)) {
            if (i != ankle) ahead(pa, pos(b, i), up, &best, v);
            continue;
        }
        if (i == ankle) continue; /* the ankle link's own mass: its motor's */
        double c[3];
        kg_mat3_vec(c, b->d->link_rot + 9 * i, m->link[i].com);
        for (int k = 0; k < 3; k++) c[k] += pos(b, i)[k];
        ahead(pa, c, up, &best, v);
    }
}

/* A knee bends forward: the offset across up of the knee from the line from
 * hip to ankle (zero on a straight leg). */
static void knee_ahead(const body *b, const limb *L, const double up[3], double v[3]) {
    const double *h = at(b, L, L->top), *k = at(b, L, L->mid), *a = at(b, L, L->end);
    double ha[3] = {a[0] - h[0], a[1] - h[1], a[2] - h[2]}, hk[3] = {k[0] - h[0], k[1] - h[1], k[2] - h[2]};
    double n2 = kg_vec3_dot(ha, ha), t = n2 > 0 ? kg_vec3_dot(hk, ha) / n2 : 0;
    for (int c = 0; c < 3; c++) v[c] = hk[c] - t * ha[c];
    flatten(v, up);
}

/* Forward across up: from the knees when both bend one way only and agree (a
 * robot's joint limits); else from where the feet reach and the knees bend,
 * added by length, when they agree and show it. 0 when the pose does not tell. */
static int forward(const body *b, const limb *leg, const double up[3], double fwd[3]) {
    double v[2][3], sum = 0, legs = 0;
    if (knee_vote(b, &leg[0], up, v[0]) && knee_vote(b, &leg[1], up, v[1]) && kg_vec3_dot(v[0], v[1]) > 0) {
        for (int k = 0; k < 3; k++) fwd[k] = v[0][k] + v[1][k];
        return unit(fwd);
    }
    fwd[0] = fwd[1] = fwd[2] = 0;
    for (int s = 0; s < 2; s++) {
        double f[3], k[3];
        foot_ahead(b, &leg[s], up, f);
        knee_ahead(b, &leg[s], up, k);
        for (int c = 0; c < 3; c++) fwd[c] += f[c] + k[c];
        sum += kg_vec3_norm(f) + kg_vec3_norm(k);
        legs += 0.5 * leg[s].s[leg[s].n];
    }
    double n = kg_vec3_norm(fwd);
    return n >= FORWARD_AGREE * sum && n >= FORWARD_MIN * legs && unit(fwd);
}

/* Left from the pose: up from the hips to the shoulders, forward as above.
 * Fills left = up x forward whenever it can and returns 1 when the pose tells. */
static int body_left(const body *b, const limb *leg, const limb *arm, double left[3]) {
    double hips[3], shoulders[3], up[3], fwd[3];
    midpoint(hips, at(b, &leg[0], leg[0].top), at(b, &leg[1], leg[1].top));
    midpoint(shoulders, at(b, &arm[0], arm[0].top), at(b, &arm[1], arm[1].top));
    for (int k = 0; k < 3; k++) up[k] = shoulders[k] - hips[k];
    if (!unit(up)) return 0;
    int told = forward(b, leg, up, fwd);
    if (!(kg_vec3_norm(fwd) > 0)) return 0;
    kg_vec3_cross(left, up, fwd);
    return unit(left) && told;
}

/* +1 when limb A's hip (shoulder) lies to the left of B's, -1 to the right, 0
 * when the line between them is not across the body. */
static int pose_side(const body *b, const limb *A, const limb *B, const double left[3]) {
    double w[3];
    for (int k = 0; k < 3; k++) w[k] = at(b, A, A->top)[k] - at(b, B, B->top)[k];
    double n = kg_vec3_norm(w), c = n > 0 ? kg_vec3_dot(w, left) / n : 0;
    return c >= SIDE_COS ? 1 : c <= -SIDE_COS ? -1 : 0;
}

/* Is limb A of a pair the left one? By the pose when it stands and tells, else
 * by names, else a guess (*by says which). */
static int a_is_left(const body *b, const limb *A, const limb *B, int pose_ok, const double left[3], int *by) {
    int p = pose_side(b, A, B, left);
    if (pose_ok && p) return *by = BY_POSE, p > 0;
    int sa, sb, leg;
    name_votes(b->m, A->path, A->n, &sa, &leg);
    name_votes(b->m, B->path, B->n, &sb, &leg);
    if (sa != sb) return *by = BY_NAME, sa > sb;
    return *by = BY_GUESS, p >= 0;
}

/* ---- the head ------------------------------------------------------------------- */

/* The chest's heaviest branch other than the limbs and the way down to the
 * pelvis (the longest among equals: skeletons have no masses), or -1. */
static int head_branch(const body *b, int chest, int pelvis, const limb *L) {
    const kg_model *m = b->m;
    int best = -1;
    for (int c = chest + 1; c < m->nlink; c++) {
        if (m->link[c].parent != chest || !is_real(m, c) || is_below(m, pelvis, c)) continue;
        int limb_root = 0;
        for (int i = 0; i < 4; i++) limb_root |= c == L[i].path[0];
        if (limb_root || (!(branch_len(b, c) > 0) && !(b->mass[c] > 0))) continue;
        if (frame_only(b, c)) continue; /* a sensor's, an IMU's */
        if (best < 0 || b->mass[c] > b->mass[best] ||
            (b->mass[c] == b->mass[best] && branch_len(b, c) > branch_len(b, best)))
            best = c;
    }
    return best;
}

/* The head: the heaviest link of the head branch (the skull, not the neck's
 * joints nor a lidar on top; a branch without mass on a robot with masses is
 * a sensor's frame, an IMU, not a head); without masses, the branch's top joint: the last
 * moving link before its first fork (eyes, jaw), settled to the first bending
 * link at its point. -1 when the chest has no other branch. */
static int find_head(const body *b, int chest, int pelvis, const limb *L, int *heaviest) {
    const kg_model *m = b->m;
    int c = head_branch(b, chest, pelvis, L), heavy = -1;
    if (c < 0) return -1;
    for (int i = c; i < m->nlink; i++)
        if (is_real(m, i) && m->link[i].mass > 0 && is_below(m, i, c) &&
            (heavy < 0 || m->link[i].mass > m->link[heavy].mass))
            heavy = i;
    *heaviest = heavy >= 0;
    if (heavy >= 0) return heavy;
    limb H;
    if (limb_build(b, c, &H) != 0) return limb_free(&H), c;
    int stop = H.n - 1, top_joint = 0;
    for (int k = 0; k < H.n; k++)
        if (forks(b, H.path[k])) {
            stop = k;
            break;
        }
    for (int k = 0; k <= stop; k++) {
        int j = m->link[H.path[k]].joint;
        if (j >= 0 && m->joint[j].nv > 0) top_joint = k;
    }
    int head = H.path[settle(b, &H, top_joint, 0, H.n)];
    limb_free(&H);
    return head;
}

/* ---- filling the map -------------------------------------------------------------- */

#define SIDED(text) {text "; side from the pose", text "; side by name", text "; side guessed"}
static const char *const why_hip[3] = SIDED("the last joint across the thigh at its top");
static const char *const why_knee[3] = SIDED("the bend nearest the middle of hip and ankle");
static const char *const why_ankle[3] = SIDED("the end of the shank's long segment");
static const char *const why_leg_tip[3] = SIDED("the far end of the leg's last link (no ankle link)");
static const char *const why_ball[3] = SIDED("the toe joint (the ball of the foot)");
static const char *const why_sole[3] = SIDED("the deepest link of the foot (of equally deep ones, the nearest the ankle)");
static const char *const why_shoulder[3] = SIDED("the last joint across the upper arm at its top");
static const char *const why_elbow[3] = SIDED("the bend nearest the middle of shoulder and wrist");
static const char *const why_wrist[3] = SIDED("the end of the forearm's long segment");
static const char *const why_arm_tip[3] = SIDED("the far end of the arm's last link (no wrist link)");
static const char *const why_pelvis[3] = {"where the legs branch (the pair that hangs lowest)",
                                          "where the legs branch (the pair nearer the root)",
                                          "where the legs branch (the pair named as legs)"};
static const char *const why_chest[3] = {"where the arms branch (the pair above the legs)",
                                         "where the arms branch (the pair farther from the root)",
                                         "where the arms branch (the pair named as arms)"};
static const char *const why_head[2] = {"the top joint of the chest's longest other branch (no masses)",
                                        "the heaviest link of the chest's heaviest other branch"};
static const char *const why_map = "given in a map";

static int given(const kg_body_map *map, int k) {
    return map->link[k] >= 0 && map->how[k] && !strcmp(map->how[k], "map");
}

static void put(kg_body_map *map, int k, int link, const double *point, const char *how, const char *why) {
    if (given(map, k)) return;
    map->link[k] = link;
    for (int a = 0; a < 3; a++) map->point[k][a] = point ? point[a] : 0;
    map->how[k] = link >= 0 ? how : NULL;
    map->why[k] = link >= 0 ? why : NULL;
}

/* A leg's hip, knee, ankle and foot, or an arm's shoulder, elbow and wrist, from
 * part `first` on. */
static void put_limb(kg_body_map *map, const limb *L, int first, int leg, int side_by, const char *how) {
    int w = side_by == BY_POSE ? 0 : side_by == BY_NAME ? 1 : 2, last = L->path[L->n - 1];
    put(map, first, L->path[L->top], NULL, how, (leg ? why_hip : why_shoulder)[w]);
    put(map, first + 1, L->path[L->mid], NULL, how, (leg ? why_knee : why_elbow)[w]);
    if (L->end < L->n) put(map, first + 2, L->path[L->end], NULL, how, (leg ? why_ankle : why_wrist)[w]);
    else put(map, first + 2, last, L->tip_local, how, (leg ? why_leg_tip : why_arm_tip)[w]);
    if (leg) put(map, first + 3, L->foot, NULL, how, (L->ball ? why_ball : why_sole)[w]);
}

/* Whether link h (its centre of mass; a skeleton's: its origin) lies above the
 * shoulders' middle, up being from the hips' middle to the shoulders': a
 * head does, an IMU fixed to the chest below them (a humanoid without a head)
 * does not. */
static int above_shoulders(const body *b, int h, const limb *leg, const limb *arm) {
    double c[3], up[3], s[3];
    kg_mat3_vec(c, b->d->link_rot + 9 * h, b->m->link[h].mass > 0 ? b->m->link[h].com : (double[3]){0, 0, 0});
    for (int a = 0; a < 3; a++) {
        s[a] = 0.5 * (pos(b, arm[0].path[arm[0].top])[a] + pos(b, arm[1].path[arm[1].top])[a]);
        up[a] = s[a] - 0.5 * (pos(b, leg[0].path[leg[0].top])[a] + pos(b, leg[1].path[leg[1].top])[a]);
        c[a] += pos(b, h)[a] - s[a];
    }
    return kg_vec3_dot(c, up) > 0;
}

static void fill(const body *b, kg_body_map *map, kg_diags *dg, const limb *leg, const limb *arm, int legs_by) {
    double left[3] = {0, 0, 0};
    int pose_ok = body_left(b, leg, arm, left) && legs_by == BY_POSE, leg_by, arm_by;
    int l0 = a_is_left(b, &leg[0], &leg[1], pose_ok, left, &leg_by);
    int a0 = a_is_left(b, &arm[0], &arm[1], pose_ok, left, &arm_by);
    const char *how = legs_by == BY_NAME ? "name" : "structure";
    put_limb(map, &leg[!l0], KG_PART_HIP_L, 1, leg_by, leg_by == BY_NAME ? "name" : how);
    put_limb(map, &leg[l0], KG_PART_HIP_R, 1, leg_by, leg_by == BY_NAME ? "name" : how);
    put_limb(map, &arm[!a0], KG_PART_SHOULDER_L, 0, arm_by, arm_by == BY_NAME ? "name" : how);
    put_limb(map, &arm[a0], KG_PART_SHOULDER_R, 0, arm_by, arm_by == BY_NAME ? "name" : how);
    int w = legs_by == BY_POSE ? 0 : legs_by == BY_TREE ? 1 : 2;
    put(map, KG_PART_PELVIS, leg[0].branch, NULL, how, why_pelvis[w]);
    put(map, KG_PART_CHEST, arm[0].branch, NULL, how, why_chest[w]);
    const limb all[4] = {leg[0], leg[1], arm[0], arm[1]};
    int heaviest = 0, head = find_head(b, arm[0].branch, leg[0].branch, all, &heaviest);
    if (head >= 0 && !above_shoulders(b, head, leg, arm)) head = -1;
    put(map, KG_PART_HEAD, head, NULL, "structure", why_head[heaviest]);
    if (leg_by == BY_GUESS || arm_by == BY_GUESS)
        kg_diag_add(dg, KG_WARNING, "retarget.side_guessed", b->m->source, 0, NULL,
                    "left and right of '%s' are a guess: the pose %s and no names tell; give a pose where "
                    "the body stands (a clip's frame) or the parts in a map (--map)",
                    b->m->name ? b->m->name : "", legs_by == BY_POSE ? "does not show forward" : "does not stand");
}

/* What the body map found of a body it cannot read, for the refusal: the
 * pairs of mirror limbs by their roots' links, into buf. */
static const char *found_pairs(const body *b, const pair *P, int np, const char *why, char *buf, size_t size) {
    const kg_link *L = b->m->link;
    if (np == 0) snprintf(buf, size, "%s: no mirror limbs found", why);
    else if (np == 1)
        snprintf(buf, size, "%s: one pair found, from '%s' and '%s' (an upper body without legs, or legs without arms, "
                 "is not retargeted)", why, L[P[0].a].name, L[P[0].c].name);
    else
        snprintf(buf, size, "%s (the pairs found: from '%s' and '%s', and from '%s' and '%s')", why, L[P[0].a].name,
                 L[P[0].c].name, L[P[1].a].name, L[P[1].c].name);
    return buf;
}

/* The humanoid's parts into map; 0, or -1 with *why (in buf, or a constant) when it is not one. */
static int map_body(body *b, kg_body_map *map, kg_diags *dg, const char **why, char *buf, size_t size) {
    pair P[2];
    int np = limb_pairs(b, P);
    if (np < 2) {
        *why = np < 0 ? "out of memory"
                      : found_pairs(b, P, np, "it has no two pairs of mirror limbs (legs and arms)", buf, size);
        return -1;
    }
    limb L[4];
    int roots[4] = {P[0].a, P[0].c, P[1].a, P[1].c}, built = 0, ok = 1;
    double longest = 0;
    for (; built < 4 && ok; built++) {
        ok = limb_build(b, roots[built], &L[built]) == 0;
        longest = fmax(longest, L[built].s[L[built].n]);
    }
    b->same = SAME_POINT * longest;
    for (int i = 0; i < 4 && ok; i++)
        if (limb_joints(b, &L[i]) != 0)
            ok = 0, *why = found_pairs(b, P, 2, "a limb has no joint that bends", buf, size);
    int legs_by = BY_POSE, li = ok ? which_legs(b, L, &legs_by, why) : -1;
    if (!ok && !*why) *why = "out of memory";
    if (li >= 0) fill(b, map, dg, L + 2 * li, L + 2 * (1 - li), legs_by);
    for (int i = 0; i < built; i++) limb_free(&L[i]);
    return li >= 0 ? 0 : -1;
}

static int report_missing(const kg_model *m, const kg_body_map *map, kg_diags *dg, int refused) {
    int missing = 0;
    for (int k = 0; k < KG_NPART; k++) {
        if (map->link[k] >= 0) continue;
        int optional = k == KG_PART_HEAD; /* only steers the head when there is one */
        missing += !optional;
        if (refused) continue; /* retarget.not_humanoid said why */
        kg_diag_add(dg, optional ? KG_WARNING : KG_ERROR, "retarget.part_missing", m->source, 0, NULL,
                    "cannot find the %s of '%s' (naming: %s); give it in a map (--map)", part_names[k],
                    m->name ? m->name : "", map->family);
    }
    return missing;
}

static int map_find(const kg_model *m, const double *q, const kg_motion *clip, kg_body_map *map, kg_diags *dg) {
    int need = 0;
    for (int k = 0; k < KG_NPART; k++) {
        if (given(map, k)) { /* a part given keeps its point (the map's, zero unless it says) */
            map->why[k] = why_map;
            continue;
        }
        for (int a = 0; a < 3; a++) map->point[k][a] = 0;
        map->link[k] = -1, map->how[k] = NULL, map->why[k] = NULL, need |= k != KG_PART_HEAD;
    }
    map->family = family_of(m);
    const char *why = NULL;
    char buf[512];
    if (need) {
        body b;
        int bad = body_init(&b, m, q) != 0 || (clip && clip->nframes > 0 && find_still(&b, clip) != 0);
        if (!bad) map_body(&b, map, dg, &why, buf, sizeof buf);
        body_free(&b);
        if (bad || (why && !strcmp(why, "out of memory"))) {
            kg_diag_add(dg, KG_ERROR, "retarget.memory", m->source, 0, NULL, "out of memory mapping '%s'",
                        m->name ? m->name : "");
            why = "out of memory";
        } else if (why)
            kg_diag_add(dg, KG_ERROR, "retarget.not_humanoid", m->source, 0, NULL,
                        "'%s' is not a humanoid the body map can read: %s; give its parts in a map (--map)",
                        m->name ? m->name : "", why);
    }
    return report_missing(m, map, dg, why != NULL);
}

int kg_body_map_find_at(const kg_model *m, const double *q, kg_body_map *map, kg_diags *dg) {
    return map_find(m, q, NULL, map, dg);
}

int kg_body_map_find_clip(const kg_model *m, const kg_motion *clip, kg_body_map *map, kg_diags *dg) {
    return map_find(m, clip && clip->nframes > 0 ? clip->q : m->q_default, clip, map, dg);
}

int kg_body_map_find(const kg_model *m, kg_body_map *map, kg_diags *d) {
    return kg_body_map_find_at(m, m->q_default, map, d);
}
