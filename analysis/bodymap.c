#include "analysis/bodymap.h"

#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/data.h"
#include "core/fk.h"

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
        if ((s[0] == 'l' || s[0] == 'r') && s[1] == '_') *side = s[0] == 'l' ? SIDE_L : SIDE_R, s += 2;
        else if (len > 2 && s[len - 2] == '_' && (s[len - 1] == 'l' || s[len - 1] == 'r'))
            *side = s[len - 1] == 'l' ? SIDE_L : SIDE_R, s[len - 2] = 0;
        else if ((s[0] == 'l' || s[0] == 'r') && s[1]) {
            /* ASF and CMU short forms: lfemur, rtibia, lhipjoint, LThumb */
            static const char *const asf[] = {"femur", "tibia", "foot", "toes", "clavicle", "humerus", "radius",
                                              "wrist", "hand", "hipjoint", "fingers", "thumb", "collar"};
            for (size_t k = 0; k < sizeof asf / sizeof *asf; k++)
                if (!strcmp(s + 1, asf[k])) {
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

static int helper(const char *t) { /* twist and share bones, ends */
    return strstr(t, "twist") || strstr(t, "share") || strstr(t, "end") || strstr(t, "nub");
}

static int in_set(const char *t, const char *const *set) {
    for (; *set; set++)
        if (!strcmp(t, *set)) return 1;
    return 0;
}

static const char *const knee_words[] = {"leg", "tibia", "calf", "lowerleg", "shin", "shank", "lleg", "kny", NULL};
static const char *const elbow_words[] = {"forearm", "radius", "lowerarm", "larm", "ely", NULL};
static const char *const foot_words[] = {"foot", "ankle", "talus", "tarsal", NULL};
static const char *const hand_words[] = {"hand", "wrist", "palm", "gripper", NULL};

/* Does link i (or the joint above it) name a knee (kind 0) or an elbow (kind 1)? */
static int names_part(const kg_model *m, int i, int kind, int *side) {
    const char *names[2] = {m->link[i].name, m->link[i].joint >= 0 ? m->joint[m->link[i].joint].name : NULL};
    for (int k = 0; k < 2; k++) {
        if (!names[k]) continue;
        char t[256];
        int s;
        token(names[k], t, sizeof t, &s);
        if (helper(t)) continue;
        int hit = kind == 0 ? (in_set(t, knee_words) || strstr(t, "knee") != NULL)
                            : (in_set(t, elbow_words) || strstr(t, "elbow") != NULL);
        if (hit && s != SIDE_NONE) {
            *side = s;
            return 1;
        }
    }
    return 0;
}

static int name_matches(const kg_model *m, int i, const char *const *words) {
    char t[256];
    int s;
    token(m->link[i].name, t, sizeof t, &s);
    if (helper(t)) return 0;
    for (const char *const *w = words; *w; w++)
        if (strstr(t, *w)) return 1;
    if (m->link[i].joint >= 0) {
        token(m->joint[m->link[i].joint].name, t, sizeof t, &s);
        if (helper(t)) return 0;
        for (const char *const *w = words; *w; w++)
            if (strstr(t, *w)) return 1;
    }
    return 0;
}

static int depth(const kg_model *m, int i) {
    int d = 0;
    for (; i >= 0; i = m->link[i].parent) d++;
    return d;
}

static int lca(const kg_model *m, int a, int b) {
    while (a != b) {
        if (a > b) a = m->link[a].parent; /* topological order: the deeper has the larger index */
        else b = m->link[b].parent;
        if (a < 0 || b < 0) return -1;
    }
    return a;
}

static int is_below(const kg_model *m, int i, int anc) {
    for (; i >= 0; i = m->link[i].parent)
        if (i == anc) return 1;
    return 0;
}

/* Does link i's joint move (a robot's revolute or prismatic joint)? */
static int moving(const kg_model *m, int i) {
    int j = m->link[i].joint;
    return j >= 0 && m->joint[j].nv > 0;
}

static int one_dof(const kg_model *m, int i) {
    int j = m->link[i].joint;
    return j >= 0 && m->joint[j].nv == 1 && m->joint[j].type != KG_JOINT_COMPOUND;
}

/* The child of anc on the way down to i. */
static int child_towards(const kg_model *m, int anc, int i) {
    while (i >= 0 && m->link[i].parent != anc) i = m->link[i].parent;
    return i;
}

/* The first link below `from` (breadth by depth: the nearest) naming one of words, or -1. */
static int first_below_named(const kg_model *m, int from, const char *const *words) {
    int best = -1, bd = 1 << 30;
    for (int i = from + 1; i < m->nlink; i++)
        if (m->link[i].real < 0 && is_below(m, i, from) && name_matches(m, i, words)) {
            int d = depth(m, i);
            if (d < bd) best = i, bd = d;
        }
    return best;
}

/* The deepest link below `from` (its first child chain's end when equal). */
static int deepest_below(const kg_model *m, int from) {
    int best = from, bd = depth(m, from);
    for (int i = from + 1; i < m->nlink; i++)
        if (m->link[i].real < 0 && is_below(m, i, from)) {
            int d = depth(m, i);
            if (d > bd) best = i, bd = d;
        }
    return best;
}

/* The first child of `from` on a path with moving joints, or its first child. */
static int first_child(const kg_model *m, int from) {
    int any = -1;
    for (int i = from + 1; i < m->nlink; i++)
        if (m->link[i].parent == from && m->link[i].real < 0) {
            if (any < 0) any = i;
            if (moving(m, i)) return i;
        }
    return any;
}

static void set(kg_body_map *map, int part, int link, const char *how) {
    if (map->link[part] >= 0 && map->how[part] && !strcmp(map->how[part], "map")) return;
    map->link[part] = link;
    map->how[part] = link >= 0 ? how : NULL;
}

/* Knees (kind 0) or elbows (kind 1) by name: the one nearest the root per side. */
static void find_by_name(const kg_model *m, int kind, int out[2]) {
    out[0] = out[1] = -1;
    int bd[2] = {1 << 30, 1 << 30};
    for (int i = 0; i < m->nlink; i++) {
        int side;
        if (m->link[i].real >= 0 || !names_part(m, i, kind, &side)) continue;
        int d = depth(m, i), s = side == SIDE_L ? 0 : 1;
        if (d < bd[s]) bd[s] = d, out[s] = i;
    }
}

/* The link on the chain from a (exclusive) to b (inclusive) whose origin is
 * nearest the middle of a's and b's at the rest pose. */
static int middle_of(const kg_model *m, const kg_data *d, int a, int b) {
    double mid[3];
    for (int k = 0; k < 3; k++) mid[k] = 0.5 * (d->link_pos[3 * a + k] + d->link_pos[3 * b + k]);
    int best = -1;
    double bd = INFINITY;
    for (int i = m->link[b].parent; i >= 0 && i != a; i = m->link[i].parent) {
        double dd = 0;
        for (int k = 0; k < 3; k++) dd += (d->link_pos[3 * i + k] - mid[k]) * (d->link_pos[3 * i + k] - mid[k]);
        if (dd < bd) bd = dd, best = i;
    }
    return best;
}

/* Robots without telling names: feet are the two lowest leaves at rest (left:
 * +y), hands the two leaves farthest sideways among those above the knees' level. */
static void by_structure(const kg_model *m, int knee[2], int elbow[2]) {
    kg_data *d = kg_data_new(m);
    kg_fk(m, d);
    int leaf_foot[2] = {-1, -1}, leaf_hand[2] = {-1, -1};
    for (int pass = 0; pass < 2; pass++) {
        double best[2] = {INFINITY, INFINITY};
        for (int i = 0; i < m->nlink; i++) {
            if (m->link[i].real >= 0) continue;
            int leaf = 1;
            for (int c = i + 1; c < m->nlink && leaf; c++) leaf = m->link[c].parent != i;
            if (!leaf) continue;
            const double *p = d->link_pos + 3 * i;
            int s = p[1] >= 0 ? 0 : 1;
            if (pass == 0) {
                if (p[2] < best[s]) best[s] = p[2], leaf_foot[s] = i;
            } else if (leaf_foot[0] >= 0 && leaf_foot[1] >= 0 && i != leaf_foot[0] && i != leaf_foot[1]) {
                int foot_anc = lca(m, leaf_foot[0], leaf_foot[1]);
                if (is_below(m, i, child_towards(m, foot_anc, leaf_foot[0])) ||
                    is_below(m, i, child_towards(m, foot_anc, leaf_foot[1])))
                    continue; /* a toe or sole frame of a leg */
                if (-fabs(p[1]) < best[s]) best[s] = -fabs(p[1]), leaf_hand[s] = i;
            }
        }
    }
    for (int s = 0; s < 2; s++) {
        if (knee[s] < 0 && leaf_foot[0] >= 0 && leaf_foot[1] >= 0) {
            int pel = lca(m, leaf_foot[0], leaf_foot[1]);
            if (pel >= 0) knee[s] = middle_of(m, d, child_towards(m, pel, leaf_foot[s]), leaf_foot[s]);
        }
        if (elbow[s] < 0 && leaf_hand[0] >= 0 && leaf_hand[1] >= 0) {
            int ch = lca(m, leaf_hand[0], leaf_hand[1]);
            if (ch >= 0) elbow[s] = middle_of(m, d, child_towards(m, ch, leaf_hand[s]), leaf_hand[s]);
        }
    }
    kg_data_free(d);
}

static const char *family_of(const kg_model *m) {
    int cmu = 0, asf = 0, mixamo = 0, bandai = 0, rokoko = 0, collar = 0, cc = 0, onedof = 0;
    for (int i = 0; i < m->nlink; i++) {
        const char *n = m->link[i].name;
        cmu |= !strcmp(n, "LHipJoint") || !strcmp(n, "LeftUpLeg");
        asf |= !strcmp(n, "lfemur");
        mixamo |= !strncmp(n, "mixamorig", 9) || !strcmp(n, "Spine2");
        bandai |= !strcmp(n, "UpperLeg_L");
        rokoko |= strstr(n, "InHand") != NULL;
        collar |= !strcmp(n, "LeftCollar");
        cc |= !strncmp(n, "CC_Base_", 8);
        onedof += one_dof(m, i);
    }
    return cc ? "reallusion" : bandai ? "bandai_namco" : rokoko ? "rokoko" : asf ? "cmu_asf" : mixamo ? "mixamo"
         : cmu ? "cmu" : collar ? "mocapbank" : onedof > m->nlink / 3 ? "robot" : "unknown";
}

int kg_body_map_find(const kg_model *m, kg_body_map *map, kg_diags *dg) {
    for (int k = 0; k < KG_NPART; k++)
        if (!(map->link[k] >= 0 && map->how[k] && !strcmp(map->how[k], "map"))) map->link[k] = -1, map->how[k] = NULL;
    map->family = family_of(m);
    int knee[2], elbow[2];
    find_by_name(m, 0, knee);
    find_by_name(m, 1, elbow);
    const char *how_knee = "name", *how_elbow = "name";
    if (knee[0] < 0 || knee[1] < 0 || elbow[0] < 0 || elbow[1] < 0) {
        int k0 = knee[0], k1 = knee[1], e0 = elbow[0], e1 = elbow[1];
        by_structure(m, knee, elbow);
        if (k0 < 0 || k1 < 0) how_knee = "structure";
        if (e0 < 0 || e1 < 0) how_elbow = "structure";
    }
    static const int KNEE[2] = {KG_PART_KNEE_L, KG_PART_KNEE_R}, HIP[2] = {KG_PART_HIP_L, KG_PART_HIP_R},
                     ANKLE[2] = {KG_PART_ANKLE_L, KG_PART_ANKLE_R}, FOOT[2] = {KG_PART_FOOT_L, KG_PART_FOOT_R},
                     ELBOW[2] = {KG_PART_ELBOW_L, KG_PART_ELBOW_R},
                     SHOULDER[2] = {KG_PART_SHOULDER_L, KG_PART_SHOULDER_R}, WRIST[2] = {KG_PART_WRIST_L, KG_PART_WRIST_R};
    for (int s = 0; s < 2; s++) {
        set(map, KNEE[s], knee[s], how_knee);
        set(map, ELBOW[s], elbow[s], how_elbow);
    }
    knee[0] = map->link[KG_PART_KNEE_L], knee[1] = map->link[KG_PART_KNEE_R];
    elbow[0] = map->link[KG_PART_ELBOW_L], elbow[1] = map->link[KG_PART_ELBOW_R];
    if (knee[0] >= 0 && knee[1] >= 0) set(map, KG_PART_PELVIS, lca(m, knee[0], knee[1]), "structure");
    if (elbow[0] >= 0 && elbow[1] >= 0) set(map, KG_PART_CHEST, lca(m, elbow[0], elbow[1]), "structure");
    int pelvis = map->link[KG_PART_PELVIS], chest = map->link[KG_PART_CHEST];
    for (int s = 0; s < 2; s++) {
        if (knee[s] >= 0) {
            /* skeletons have a bone per segment: the hip is the knee's parent; robots chain
             * one-axis joints at the hip: the first moving link below the pelvis */
            int hip = one_dof(m, knee[s]) && pelvis >= 0 ? child_towards(m, pelvis, knee[s]) : m->link[knee[s]].parent;
            if (hip >= 0 && one_dof(m, knee[s]))
                while (hip != knee[s] && !moving(m, hip)) hip = child_towards(m, hip, knee[s]);
            set(map, HIP[s], hip, "structure");
            int ankle = first_below_named(m, knee[s], foot_words);
            if (ankle < 0 || one_dof(m, knee[s])) {
                int c = first_child(m, knee[s]);
                if (one_dof(m, knee[s]) || ankle < 0) ankle = c;
            }
            set(map, ANKLE[s], ankle, "structure");
            /* the foot's end: a skeleton's toe (the ball of the foot), else the deepest link */
            static const char *const toe_words[] = {"toe", NULL};
            int toe = ankle >= 0 && !one_dof(m, knee[s]) ? first_below_named(m, ankle, toe_words) : -1;
            if (ankle >= 0) set(map, FOOT[s], toe >= 0 ? toe : deepest_below(m, ankle), "structure");
        }
        if (elbow[s] >= 0) {
            int sh = one_dof(m, elbow[s]) && chest >= 0 ? child_towards(m, chest, elbow[s]) : m->link[elbow[s]].parent;
            if (sh >= 0 && one_dof(m, elbow[s]))
                while (sh != elbow[s] && !moving(m, sh)) sh = child_towards(m, sh, elbow[s]);
            set(map, SHOULDER[s], sh, "structure");
            int wrist = first_below_named(m, elbow[s], hand_words);
            if (one_dof(m, elbow[s])) { /* a robot's hand: the nearest link named hand, palm or gripper */
                static const char *const grip_words[] = {"hand", "palm", "gripper", NULL};
                int g = first_below_named(m, elbow[s], grip_words);
                if (g >= 0) wrist = g;
            }
            if (wrist < 0) wrist = first_child(m, elbow[s]);
            set(map, WRIST[s], wrist, "structure");
        }
    }
    /* the head: named so, nearest the root; else the deepest link above the chest
     * that is not on an arm */
    int head = -1, hd = 1 << 30;
    for (int i = 0; i < m->nlink; i++) {
        if (m->link[i].real >= 0) continue;
        char t[256];
        int s;
        token(m->link[i].name, t, sizeof t, &s);
        if (strstr(t, "head") && !strstr(t, "top") && !strstr(t, "end") && s == SIDE_NONE && depth(m, i) < hd)
            hd = depth(m, i), head = i;
    }
    set(map, KG_PART_HEAD, head, "name");
    if (map->link[KG_PART_HEAD] < 0 && chest >= 0) {
        /* the highest link at rest below the chest and off the arms */
        kg_data *d = kg_data_new(m);
        kg_fk(m, d);
        double top = -INFINITY;
        for (int i = chest + 1; i < m->nlink; i++) {
            if (m->link[i].real >= 0 || !is_below(m, i, chest)) continue;
            int arm = 0;
            for (int s = 0; s < 2; s++) arm |= map->link[SHOULDER[s]] >= 0 && is_below(m, i, map->link[SHOULDER[s]]);
            if (!arm && d->link_pos[3 * i + 2] > top) top = d->link_pos[3 * i + 2], head = i;
        }
        kg_data_free(d);
        set(map, KG_PART_HEAD, head, "structure");
    }
    int missing = 0;
    for (int k = 0; k < KG_NPART; k++)
        if (map->link[k] < 0) {
            int optional = k == KG_PART_HEAD; /* only steers the head when there is one */
            missing += !optional;
            kg_diag_add(dg, optional ? KG_WARNING : KG_ERROR, "retarget.part_missing", m->source, 0, NULL,
                        "cannot find the %s of '%s' (naming: %s); give it in a map (--map)", part_names[k],
                        m->name ? m->name : "", map->family);
        }
    return missing;
}
