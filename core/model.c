#include "core/model.h"

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

const char *kg_velocity_name(const kg_model *m, int c, char *buf, size_t size) {
    for (int j = 0; j < m->njoint; j++) {
        const kg_joint *J = &m->joint[j];
        if (c >= J->vadr && c < J->vadr + J->nv)
            return J->nv == 1 ? J->name : kg_coord_name(m, J->qadr + c - J->vadr, buf, size);
    }
    return "";
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

char **kg_coord_names(const kg_model *m) {
    /* the other columns a trajectory has: a coordinate so named gets "#2" */
    static const char *const fixed[] = {"time",    "root_x",  "root_y",  "root_z",       "root_qw",
                                        "root_qx", "root_qy", "root_qz", "contact_left", "contact_right"};
    char **names = calloc((size_t)m->nq + 1, sizeof *names);
    kg_strmap taken;
    kg_strmap_init(&taken);
    for (size_t k = 0; k < sizeof fixed / sizeof *fixed; k++) kg_strmap_put(&taken, fixed[k], 0);
    for (int k = 0; names && k < m->nq; k++) {
        const char *joint = "", *label = NULL;
        int known = kg_coord_parts(m, k, &joint, &label);
        size_t n = strlen(joint) + (label ? strlen(label) : 0) + 24;
        char *want = malloc(n);
        if (want && !known) snprintf(want, n, "q%d", k);
        else if (want) snprintf(want, n, label ? "%s.%s" : "%s", joint, label);
        for (char *c = want; c && *c; c++) /* a column name stays on its line */
            if (*c == '\n' || *c == '\r') *c = '_';
        names[k] = want ? kg_strmap_unique(&taken, want) : NULL;
        free(want);
        if (!names[k]) kg_coord_names_free(names, k), names = NULL;
        else kg_strmap_put(&taken, names[k], k);
    }
    if (names && taken.failed) kg_coord_names_free(names, m->nq), names = NULL;
    kg_strmap_free(&taken);
    return names;
}
