#include "analysis/mass.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/spatial.h"

void kg_mass_combine(const kg_model *m, const kg_data *d, const double *mass_, const double *com_,
                     const double *inertia_, kg_mass_props *out, double *link_com) {
    double mass = 0, mc[3] = {0, 0, 0};
    memset(out, 0, sizeof *out);
    /* first pass: mass and COM */
    for (int i = 0; i < m->nlink; i++) {
        const kg_link *L = &m->link[i];
        double mi = mass_ ? mass_[i] : L->mass;
        const double *ci = com_ ? com_ + 3 * i : L->com;
        const double *r = d->link_rot + 9 * i, *p = d->link_pos + 3 * i;
        double c[3];
        kg_mat3_vec(c, r, ci);
        for (int a = 0; a < 3; a++) c[a] += p[a];
        if (link_com) kg_vec3_copy(link_com + 3 * i, c);
        mass += mi;
        for (int a = 0; a < 3; a++) mc[a] += mi * c[a];
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
        double mi = mass_ ? mass_[i] : L->mass;
        const double *ci = com_ ? com_ + 3 * i : L->com, *ii = inertia_ ? inertia_ + 9 * i : L->inertia;
        if (mi == 0 && ii[0] == 0 && ii[4] == 0 && ii[8] == 0) continue;
        const double *r = d->link_rot + 9 * i, *p = d->link_pos + 3 * i;
        double iw[9], c[3], x[3];
        kg_inertia_rotate(iw, r, ii);
        kg_mat3_vec(c, r, ci);
        for (int a = 0; a < 3; a++) x[a] = c[a] + p[a] - out->com[a];
        double xx = kg_vec3_dot(x, x);
        for (int a = 0; a < 3; a++)
            for (int b = 0; b < 3; b++)
                out->inertia[3 * a + b] += iw[3 * a + b] + mi * ((a == b ? xx : 0) - x[a] * x[b]);
    }
}

void kg_mass_properties(const kg_model *m, const kg_data *d, kg_mass_props *out, double *link_com) {
    kg_mass_combine(m, d, NULL, NULL, NULL, out, link_com);
}

static int geom_solid(const kg_model *m, const kg_geom *G, kg_mesh_cache *meshes, kg_link_solid *ls, kg_diags *d) {
    const char *link = m->link[G->link].name;
    kg_solid s;
    switch (G->type) {
    case KG_GEOM_BOX: kg_solid_box(&s, G->size); break;
    case KG_GEOM_SPHERE: kg_solid_sphere(&s, G->size[0]); break;
    case KG_GEOM_CYLINDER: kg_solid_cylinder(&s, G->size[0], G->size[1]); break;
    case KG_GEOM_CAPSULE: kg_solid_capsule(&s, G->size[0], G->size[1]); break;
    case KG_GEOM_MESH: {
        if (!meshes) { /* meshes are not read: the caller knows */
            ls->nmissing++;
            return 0;
        }
        const kg_mesh *me = G->mesh_path ? kg_mesh_get(meshes, G->mesh_path, G->mesh_part, d, m->source, G->line) : NULL;
        if (!me) {
            kg_diag_add(d, KG_WARNING, "mass.mesh_missing", m->source, G->line, kg_geom_role_name(G->role),
                        "mesh '%s' of link '%s' %s; the link's geometry is counted without it",
                        G->mesh_uri ? G->mesh_uri : "", link, G->mesh_path ? "cannot be read" : "does not resolve");
            ls->nmissing++;
            return 0;
        }
        int open, inside_out;
        double unc;
        if (kg_solid_mesh(&s, me->vert, me->nvert, me->tri, me->ntri, G->scale, &open, &inside_out, &unc) != 0) return -1;
        if (open && !(unc <= KG_MESH_CRACK))
            kg_diag_add(d, KG_WARNING, "mass.mesh_open", m->source, G->line, kg_geom_role_name(G->role),
                        "mesh '%s' of link '%s' is not a closed surface (%d open edges): its volume is uncertain by "
                        "%.3g %%", G->mesh_uri ? G->mesh_uri : "", link, open, 100 * unc);
        else if (open)
            kg_diag_add(d, KG_INFO, "mass.mesh_cracks", m->source, G->line, kg_geom_role_name(G->role),
                        "mesh '%s' of link '%s' has cracks (%d open edges) too small to matter: its volume is uncertain "
                        "by %.2g %%", G->mesh_uri ? G->mesh_uri : "", link, open, 100 * unc);
        if (inside_out)
            kg_diag_add(d, KG_WARNING, "mass.mesh_inside_out", m->source, G->line, kg_geom_role_name(G->role),
                        "mesh '%s' of link '%s' is inside out (its triangles face inwards); counted the right way",
                        G->mesh_uri ? G->mesh_uri : "", link);
        ls->open_edges += open;
        ls->uncertainty += unc * s.volume;
        ls->inside_out += inside_out;
        break;
    }
    default: return 0;
    }
    kg_solid_transform(&s, G->rot, G->pos);
    kg_solid_add(&ls->solid, &s);
    ls->ngeom++;
    return 0;
}

/* The geoms link i is made of: its `prefer` ones, else the others (-1: none, or a virtual link). */
static int link_role(const kg_model *m, int i, int prefer) {
    const kg_link *L = &m->link[i];
    if (L->real >= 0) return -1; /* virtual links are not solid */
    int has[2] = {0, 0};
    for (int g = L->geom_first; g < L->geom_first + L->geom_count; g++) has[m->geom[g].role] = 1;
    int other = prefer == KG_COLLISION ? KG_VISUAL : KG_COLLISION;
    return has[prefer] ? prefer : has[other] ? other : -1;
}

typedef struct preferring {
    const kg_model *m;
    int prefer;
} preferring;

/* Is geom g one its link is made of? */
static int makes_link(const void *ctx, int g) {
    const preferring *p = ctx;
    const kg_geom *G = &p->m->geom[g];
    return (int)G->role == link_role(p->m, G->link, p->prefer);
}

int kg_link_solids(const kg_model *m, kg_mesh_cache *meshes, int prefer, kg_link_solid *out, kg_diags *d) {
    const preferring p = {m, prefer};
    /* read ahead (one child process for the files that are not STL); out of memory, when asked */
    if (meshes) (void)kg_mesh_cache_preload_geoms(meshes, m, makes_link, &p, 1);
    for (int i = 0; i < m->nlink; i++) {
        const kg_link *L = &m->link[i];
        kg_link_solid *ls = &out[i];
        memset(ls, 0, sizeof *ls);
        int role = link_role(m, i, prefer);
        ls->role = role;
        if (role < 0) continue;
        for (int g = L->geom_first; g < L->geom_first + L->geom_count; g++)
            if ((int)m->geom[g].role == role && geom_solid(m, &m->geom[g], meshes, ls, d) != 0) return -1;
    }
    return 0;
}

void kg_inertial_compare(const kg_link *l, const kg_solid *s, kg_inertial_check *c) {
    c->implied_density = c->com_offset = c->com_offset_ratio = c->inertia_ratio = NAN;
    c->principal_ratio[0] = c->principal_ratio[1] = c->principal_ratio[2] = NAN;
    if (s->volume <= 0) return;
    c->implied_density = l->mass / s->volume;
    double dx[3];
    for (int a = 0; a < 3; a++) dx[a] = l->com[a] - s->centroid[a];
    c->com_offset = kg_vec3_norm(dx);
    /* trace(I) = 2 * integral of |x|^2 at unit density */
    double trace = s->inertia[0] + s->inertia[4] + s->inertia[8];
    double rms = sqrt(trace / (2 * s->volume));
    if (rms > 0) c->com_offset_ratio = c->com_offset / rms;
    if (l->mass <= 0 || trace <= 0) return;
    double scale = l->mass / s->volume; /* geometry at the declared mass */
    c->inertia_ratio = (l->inertia[0] + l->inertia[4] + l->inertia[8]) / (scale * trace);
    double md[3], mg[3], r[9];
    if (kg_inertia_principal(l->inertia, md, r) != 0 || kg_inertia_principal(s->inertia, mg, r) != 0) return;
    for (int a = 0; a < 3; a++)
        if (mg[a] > 0) c->principal_ratio[a] = md[a] / (scale * mg[a]);
}
