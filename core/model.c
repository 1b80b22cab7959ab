#include "core/model.h"

#include <string.h>

#include "core/arena.h"

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

static const char *const joint_type_names[] = {"fixed", "revolute", "continuous",
                                               "prismatic", "floating", "planar"};

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
