#include "core/model.h"
#include "core/str.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/arena.h"
#include "core/strmap.h"

void kg_model_free(kg_model *m) {
    if (m) kg_arena_free(m->mem); /* the model itself lives in its arena */
}

int kg_model_link(const kg_model *m, const char *name) {
    for (int i = 0; i < m->nlink; i++)
        if (strcmp(m->link[i].name, name) == 0) return i;
    return -1;
}

int kg_model_joint(const kg_model *m, const char *name) {
    for (int i = 0; i < m->njoint; i++)
        if (strcmp(m->joint[i].name, name) == 0) return i;
    return -1;
}

int kg_model_material(const kg_model *m, const char *name) {
    for (int i = 0; i < m->nmaterial; i++)
        if (strcmp(m->material[i].name, name) == 0) return i;
    return -1;
}

static const char *const joint_type_names[] = {"fixed", "revolute", "continuous", "prismatic",
                                               "floating", "planar", "compound"};

const char *kg_joint_type_name(kg_joint_type t) {
    return (unsigned)t < sizeof joint_type_names / sizeof *joint_type_names ? joint_type_names[t] : "?";
}

int kg_joint_type_parse(const char *s) {
    for (unsigned i = 0; i < sizeof joint_type_names / sizeof *joint_type_names; i++)
        if (strcmp(s, joint_type_names[i]) == 0) return (int)i;
    return -1;
}

const char *kg_geom_type_name(kg_geom_type t) {
    static const char *const names[] = {"box", "cylinder", "sphere", "mesh", "capsule"};
    return (unsigned)t < sizeof names / sizeof *names ? names[t] : "?";
}

const char *kg_geom_role_name(int role) {
    return role == KG_VISUAL ? "visual" : role == KG_COLLISION ? "collision" : NULL;
}

/* Velocity coordinate c's joint name and label (NULL: the joint's name
 * alone): a one-velocity joint's own name (a one-axis compound joint's too),
 * the position coordinate's label at the same offset where the joint has as
 * many of each, else (a floating joint) its twist's, linear then angular; 0
 * when no joint has it. */
static int velocity_parts(const kg_model *m, int c, const char **joint, const char **label) {
    static const char *const twist[6] = {"vx", "vy", "vz", "wx", "wy", "wz"};
    for (int j = 0; j < m->njoint; j++) {
        const kg_joint *J = &m->joint[j];
        if (c < J->vadr || c >= J->vadr + J->nv) continue;
        *joint = J->name, *label = NULL;
        if (J->nv > 1 && J->nq == J->nv) return kg_coord_parts(m, J->qadr + c - J->vadr, joint, label);
        if (J->nv > 1) *label = c - J->vadr < 6 ? twist[c - J->vadr] : "?";
        return 1;
    }
    return 0;
}

const char *kg_velocity_name(const kg_model *m, int c, char *buf, size_t size) {
    const char *joint, *label;
    if (!velocity_parts(m, c, &joint, &label)) return "";
    if (!label) return joint;
    snprintf(buf, size, "%s.%s", joint, label);
    return buf;
}

int kg_coord_parts(const kg_model *m, int k, const char **joint, const char **label) {
    static const char *const planar[] = {"x", "y", "angle"};
    static const char *const floating[] = {"x", "y", "z", "qw", "qx", "qy", "qz"};
    for (int j = 0; j < m->njoint; j++) {
        const kg_joint *J = &m->joint[j];
        if (k < J->qadr || k >= J->qadr + J->nq) continue;
        int c = k - J->qadr;
        *joint = J->name, *label = "?";
        if (J->type == KG_JOINT_PLANAR) *label = planar[c];
        else if (J->type == KG_JOINT_FLOATING) *label = floating[c];
        else if (J->type == KG_JOINT_COMPOUND)
            for (int a = 0; a < J->naxis; a++)
                if (m->axis[J->axis_first + a].coord == c) *label = m->axis[J->axis_first + a].label;
        if (J->nq == 1 && J->type != KG_JOINT_COMPOUND) *label = NULL;
        return 1;
    }
    return 0;
}

const char *kg_coord_name(const kg_model *m, int k, char *buf, size_t size) {
    const char *joint, *label;
    if (!kg_coord_parts(m, k, &joint, &label)) snprintf(buf, size, "q%d", k);
    else if (!label) snprintf(buf, size, "%s", joint);
    else snprintf(buf, size, "%s.%s", joint, label);
    return buf;
}

void kg_coord_names_free(char **names, int n) {
    for (int k = 0; names && k < n; k++) free(names[k]);
    free(names);
}

/* names[k] = want(m, k) for k < n, line breaks '_', made unique among
 * themselves and against the reserved names (kg_strmap_unique); NULL when
 * memory runs out. */
static char **unique_names(const kg_model *m, int n, const char *const *reserved, size_t nreserved,
                           char *(*want)(const kg_model *, int)) {
    char **names = calloc((size_t)n + 1, sizeof *names);
    kg_strmap taken;
    kg_strmap_init(&taken);
    for (size_t k = 0; k < nreserved; k++) kg_strmap_put(&taken, reserved[k], 0);
    for (int k = 0; names && k < n; k++) {
        char *w = want(m, k);
        for (char *c = w; c && *c; c++) /* a column name stays on its line */
            if (*c == '\n' || *c == '\r') *c = '_';
        names[k] = w ? kg_strmap_unique(&taken, w) : NULL;
        free(w);
        if (!names[k]) kg_coord_names_free(names, k), names = NULL;
        else kg_strmap_put(&taken, names[k], k);
    }
    if (names && taken.failed) kg_coord_names_free(names, n), names = NULL;
    kg_strmap_free(&taken);
    return names;
}

/* "joint" or "joint.label" (malloc'd), or "PREFIX%d" of k when joint is NULL. */
static char *joined(const char *joint, const char *label, const char *prefix, int k) {
    return !joint ? kg_strf("%s%d", prefix, k) : label ? kg_strf("%s.%s", joint, label) : kg_strf("%s", joint);
}

static char *coord_want(const kg_model *m, int k) {
    const char *joint = NULL, *label = NULL;
    if (!kg_coord_parts(m, k, &joint, &label)) joint = NULL;
    return joined(joint, label, "q", k);
}

char **kg_coord_names(const kg_model *m) {
    /* the other columns a trajectory has: a coordinate so named gets "#2" */
    static const char *const fixed[] = {"time",    "root_x",  "root_y",  "root_z",       "root_qw",
                                        "root_qx", "root_qy", "root_qz", "contact_left", "contact_right"};
    return unique_names(m, m->nq, fixed, sizeof fixed / sizeof *fixed, coord_want);
}

/* Velocity coordinate c's name, as kg_velocity_name's ("vC" when no joint has it). */
static char *velocity_want(const kg_model *m, int c) {
    const char *joint = NULL, *label = NULL;
    if (!velocity_parts(m, c, &joint, &label)) joint = NULL;
    return joined(joint, label, "v", c);
}

char **kg_velocity_names(const kg_model *m) {
    static const char *const fixed[] = {"time"}; /* a torques file's other column */
    return unique_names(m, m->nv, fixed, 1, velocity_want);
}
