#include "analysis/mass.h"

#include <math.h>
#include <string.h>

#include "core/spatial.h"

void kg_mass_properties(const kg_model *m, const kg_data *d, kg_mass_props *out, double *link_com) {
    double mass = 0, mc[3] = {0, 0, 0};
    memset(out, 0, sizeof *out);
    /* first pass: mass and COM */
    for (int i = 0; i < m->nlink; i++) {
        const kg_link *L = &m->link[i];
        const double *r = d->link_rot + 9 * i, *p = d->link_pos + 3 * i;
        double c[3];
        kg_mat3_vec(c, r, L->com);
        for (int a = 0; a < 3; a++) c[a] += p[a];
        if (link_com) kg_vec3_copy(link_com + 3 * i, c);
        mass += L->mass;
        for (int a = 0; a < 3; a++) mc[a] += L->mass * c[a];
    }
    out->mass = mass;
    if (mass == 0) {
        out->com[0] = out->com[1] = out->com[2] = NAN;
        return;
    }
    for (int a = 0; a < 3; a++) out->com[a] = mc[a] / mass;
    /* second pass: inertia about the COM (parallel-axis theorem in world axes);
     * done about the COM rather than the origin to avoid cancellation far away */
    for (int i = 0; i < m->nlink; i++) {
        const kg_link *L = &m->link[i];
        if (L->mass == 0 && L->inertia[0] == 0 && L->inertia[4] == 0 && L->inertia[8] == 0) continue;
        const double *r = d->link_rot + 9 * i, *p = d->link_pos + 3 * i;
        double iw[9], c[3], x[3];
        kg_inertia_rotate(iw, r, L->inertia);
        kg_mat3_vec(c, r, L->com);
        for (int a = 0; a < 3; a++) x[a] = c[a] + p[a] - out->com[a];
        double xx = kg_vec3_dot(x, x);
        for (int a = 0; a < 3; a++)
            for (int b = 0; b < 3; b++)
                out->inertia[3 * a + b] += iw[3 * a + b] + L->mass * ((a == b ? xx : 0) - x[a] * x[b]);
    }
}
