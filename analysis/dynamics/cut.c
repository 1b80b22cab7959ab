/* A cut at a joint without a virtual link (digest 1.10, the seed's second
 * kind of cut): the cut-off part becomes a free-floating child of the base.
 * The model changes (the joint becomes a floating joint from the root link),
 * so this makes a new model through the builder, everything else carried
 * over, and moves a state onto it with every link's pose and velocity kept. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/dynamics/internal.h"
#include "core/arena.h"
#include "core/builder.h"
#include "core/fk.h"

static const char *dup(kg_builder *b, const char *s) { return s ? kg_builder_strdup(b, s) : NULL; }

/* Links (real ones: the builder makes the virtual links again from the
 * loops), their inertials and geoms, and the materials. */
static void copy_links(kg_builder *b, const kg_model *m, kg_link **L) {
    for (int k = 0; k < m->nmaterial; k++) {
        const kg_material *s = &m->material[k];
        if (!s->name || !*s->name) continue; /* anonymous: made with its geom below */
        kg_material *t = kg_builder_add_material(b, s->name, s->line);
        if (t) t->has_color = s->has_color, memcpy(t->rgba, s->rgba, sizeof t->rgba), t->texture = dup(b, s->texture);
    }
    for (int i = 0; i < m->nlink; i++) {
        const kg_link *s = &m->link[i];
        L[i] = NULL;
        if (s->real >= 0) continue;
        kg_link *t = L[i] = kg_builder_add_link(b, s->name, s->line);
        t->has_inertial = s->has_inertial, t->inertial = s->inertial;
        t->mass = s->mass, memcpy(t->com, s->com, sizeof t->com), memcpy(t->inertia, s->inertia, sizeof t->inertia);
        for (int g = s->geom_first; g < s->geom_first + s->geom_count; g++) {
            const kg_geom *sg = &m->geom[g];
            const kg_material *mat = sg->material >= 0 ? &m->material[sg->material] : NULL;
            const int named = mat && mat->name && *mat->name;
            kg_geom *tg = kg_builder_add_geom(b, t, sg->role, sg->type, named ? mat->name : NULL, sg->line);
            tg->name = dup(b, sg->name);
            memcpy(tg->pos, sg->pos, sizeof tg->pos), memcpy(tg->rpy, sg->rpy, sizeof tg->rpy);
            memcpy(tg->rot, sg->rot, sizeof tg->rot), memcpy(tg->size, sg->size, sizeof tg->size);
            memcpy(tg->scale, sg->scale, sizeof tg->scale);
            tg->mesh_uri = dup(b, sg->mesh_uri), tg->mesh_path = dup(b, sg->mesh_path);
            tg->mesh_part = dup(b, sg->mesh_part);
            if (mat && !named) {
                kg_material *am = kg_builder_add_material(b, "", mat->line);
                am->has_color = mat->has_color, memcpy(am->rgba, mat->rgba, sizeof am->rgba);
                am->texture = dup(b, mat->texture);
                kg_builder_set_geom_material(b, tg, am);
            }
        }
    }
}

/* Joint s copied as a joint of the builder, between the same real links. */
static kg_joint *copy_joint(kg_builder *b, const kg_model *m, const kg_joint *s) {
    const int child = m->link[s->child].real >= 0 ? m->link[s->child].real : s->child;
    kg_joint *t = kg_builder_add_joint(b, s->name, s->type, m->link[s->parent].name, m->link[child].name, s->line);
    const char *name = t->name;
    const int mimic = t->mimic, loop = t->loop;
    *t = *s; /* every declared field; the builder's own ones restored */
    t->name = name, t->mimic = mimic, t->loop = loop;
    for (int x = 0; x < s->naxis; x++) {
        const kg_axis *a = &m->axis[s->axis_first + x];
        kg_builder_add_axis(b, t, a->kind, a->dir, a->coord, a->rest, dup(b, a->label));
    }
    t->axis_first = t->naxis = 0; /* the builder's, from the axes just added */
    if (s->loop >= 0) kg_builder_prefer_cut(b, t);
    return t;
}

kg_model *kg_structure_cut_joint(const kg_model *m, int joint, kg_diags *d) {
    if (joint < 0 || joint >= m->njoint || m->link[m->joint[joint].child].real >= 0) {
        kg_diag_add(d, KG_ERROR, "dynamics.cut", m->source, 0, NULL,
                    "kg_structure_cut_joint: joint %d is not a joint of the tree (a loop's cut joint is cut by "
                    "kg_structure_cut)", joint);
        return NULL;
    }
    kg_builder *b = kg_builder_new(m->source, m->format, d);
    kg_link **L = b ? calloc((size_t)m->nlink, sizeof *L) : NULL;
    if (!L) { /* out of memory */
        if (b) kg_diag_add(d, KG_ERROR, "io.memory", m->source, 0, NULL, "out of memory while cutting the structure");
        kg_builder_free(b);
        return NULL;
    }
    kg_builder_set_name(b, m->name);
    copy_links(b, m, L);
    for (int j = 0; j < m->njoint; j++) {
        const kg_joint *s = &m->joint[j];
        if (j != joint) {
            kg_joint *t = copy_joint(b, m, s);
            if (s->mimic >= 0) {
                const kg_mimic *mm = &m->mimic[s->mimic];
                kg_builder_set_mimic(b, t, m->joint[mm->leader].name, mm->multiplier, mm->offset, mm->line);
            }
            continue;
        }
        /* the cut: a floating joint from the root, at the root's origin */
        kg_builder_add_joint(b, s->name, KG_JOINT_FLOATING, m->link[0].name, m->link[s->child].name, s->line);
    }
    for (int k = 0; k < m->nextra; k++)
        kg_builder_add_extra(b, m->extra[k].kind, m->extra[k].name, m->extra[k].xml, m->extra[k].line);
    for (int k = 0; k < m->ncollision_ignore; k++) {
        const kg_link_pair *p = &m->collision_ignore[k];
        if (L[p->a] && L[p->b]) kg_builder_ignore_collision(b, L[p->a], L[p->b], p->from_extra, p->line);
    }
    for (int k = 0; k < m->nend_effector; k++) {
        const kg_end_effector *s = &m->end_effector[k];
        kg_end_effector *t = kg_builder_add_end_effector(b, s->name, s->base >= 0 ? L[s->base] : NULL, L[s->tip], s->line);
        memcpy(t->pos, s->pos, sizeof t->pos), memcpy(t->rot, s->rot, sizeof t->rot);
        memcpy(t->direction, s->direction, sizeof t->direction);
        t->from_extra = s->from_extra;
    }
    if (m->root_body > 0 && L[m->root_body]) kg_builder_set_root_body(b, L[m->root_body]);
    free(L);
    return kg_builder_finish(b);
}

int kg_structure_cut_state(const kg_model *m, const kg_data *d, kg_dyn *w, const double *v, int joint,
                           const kg_model *mc, kg_data *dc, double *vc) {
    const kg_joint *J = &m->joint[joint];
    const int cj = kg_model_joint(mc, J->name);
    if (cj < 0 || mc->joint[cj].type != KG_JOINT_FLOATING) return -1;
    kg_vec3_copy(dc->base_pos, d->base_pos);
    kg_mat3_copy(dc->base_rot, d->base_rot);
    memcpy(dc->q, mc->q_default, (size_t)mc->nq * sizeof *dc->q);
    if (vc) memset(vc, 0, (size_t)mc->nv * sizeof *vc);
    for (int j = 0; j < mc->njoint; j++) {
        const kg_joint *t = &mc->joint[j];
        const int s = kg_model_joint(m, t->name);
        if (j == cj || s < 0) continue;
        memcpy(dc->q + t->qadr, d->q + m->joint[s].qadr, (size_t)t->nq * sizeof *dc->q);
        if (vc && v) memcpy(vc + t->vadr, v + m->joint[s].vadr, (size_t)t->nv * sizeof *vc);
    }
    /* the floating joint: the child's pose and velocity in the root's frame */
    const int child = J->child, root = 0;
    const double *R0 = d->link_rot + 9 * root, *p0 = d->link_pos + 3 * root;
    const double *Rc = d->link_rot + 9 * child, *pc = d->link_pos + 3 * child;
    const kg_joint *F = &mc->joint[cj];
    double *q = dc->q + F->qadr, dp[3] = {pc[0] - p0[0], pc[1] - p0[1], pc[2] - p0[2]}, Rrel[9];
    kg_mat3_tvec(q, R0, dp);
    kg_mat3_mul_at(Rrel, R0, Rc);
    kg_rot_to_quat(Rrel, q + 3);
    if (vc && v) {
        double V[6]; /* (w; velocity of the child's origin), world; the root does not move */
        kg_dyn_rnea(m, w, &(kg_dyn_options){{0, 0, 0}}, v, NULL, NULL, w->u); /* for w->vel; u: ABA's scratch */
        dyn_link_motion(w, w->vel, child, V);
        kg_mat3_tvec(vc + F->vadr, R0, V + 3);
        kg_mat3_tvec(vc + F->vadr + 3, R0, V);
    }
    return cj;
}
