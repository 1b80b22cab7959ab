/* What formats without physical models (BVH, trajectories) leave out. */
#include <string.h>

#include "exporters/exporters.h"

void kg_ledger_model_only(const kg_model *m, kg_ledger *l, const char *target) {
    if (!l) return;
    const char *f = m->source;
    int trajectory = strcmp(target, "a trajectory") == 0;
    if (trajectory)
        kg_ledger_add(l, KG_DROPPED, "structure", m->name, f, 0,
                      "%s holds joint values only: the %d links and %d joints (origins, axes) are not written",
                      target, m->nlink - m->nloop, m->njoint);
    for (int i = 0; i < m->nlink; i++)
        if (m->link[i].has_inertial)
            kg_ledger_add(l, KG_DROPPED, "inertial", m->link[i].name, f, m->link[i].line,
                          "%s cannot hold mass and inertia", target);
    for (int g = 0; g < m->ngeom; g++)
        kg_ledger_add(l, KG_DROPPED, kg_geom_role_name(m->geom[g].role),
                      m->link[m->geom[g].link].name, f, m->geom[g].line, "%s cannot hold geometry", target);
    for (int k = 0; k < m->nmaterial; k++)
        kg_ledger_add(l, KG_DROPPED, "material", m->material[k].name, f, m->material[k].line,
                      "%s cannot hold materials", target);
    for (int j = 0; j < m->njoint; j++) {
        const kg_joint *J = &m->joint[j];
        if (J->has_limit || J->has_dynamics || J->has_safety || J->calibration)
            kg_ledger_add(l, KG_DROPPED, "joint", J->name, f, J->line,
                          "%s cannot hold joint limits, dynamics, safety controllers or calibration", target);
    }
    for (int k = 0; k < m->nmimic; k++)
        kg_ledger_add(l, KG_DROPPED, "mimic", m->joint[m->mimic[k].follower].name, f, m->mimic[k].line,
                      "%s cannot hold couplings; the follower's values are written as they are", target);
    for (int k = 0; k < m->nloop; k++)
        kg_ledger_add(l, KG_DROPPED, "loop", m->joint[m->loop[k].cut_joint].name, f, m->joint[m->loop[k].cut_joint].line,
                      "%s cannot hold closed loops", target);
    for (int k = 0; k < m->nend_effector; k++)
        if (!m->end_effector[k].from_extra)
            kg_ledger_add(l, KG_DROPPED, "end_effector", m->end_effector[k].name, f, m->end_effector[k].line,
                          "%s cannot hold end effectors", target);
    for (int k = 0; k < m->ncollision_ignore; k++)
        if (!m->collision_ignore[k].from_extra)
            kg_ledger_add(l, KG_DROPPED, "collision_ignore", m->link[m->collision_ignore[k].a].name, f,
                          m->collision_ignore[k].line, "%s cannot hold ignored collision pairs", target);
    for (int k = 0; k < m->nextra; k++)
        kg_ledger_add(l, KG_DROPPED, m->extra[k].kind, m->extra[k].name, f, m->extra[k].line,
                      "%s cannot hold <%s>", target, m->extra[k].kind);
}
