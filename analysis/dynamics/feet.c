/* The feet of a humanoid for its contacts: which links carry the soles (the
 * body map's foot ends), each sole's rectangle from the foot's shapes, and
 * which feet are down at a pose. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "kinegraph/torques.h"
#include "kinegraph/bodymap.h"
#include "core/fk.h"
#include "core/spatial.h"
#include "formats/mesh.h"

enum { MAX_POINTS = 4096 };

/* A shape's candidate lowest points, in its geom frame, for `down` (world -z
 * in that frame): up to 16 of them. Boxes: their corners; meshes: their
 * bounding boxes' corners; spheres and capsules: the points their ends' balls
 * stand on; cylinders: the same on their rims (a standing one's whole lower
 * rim, sampled every 45 degrees). */
static int shape_points(const kg_model *m, const kg_geom *g, const double down[3], kg_mesh_cache *mc, kg_diags *dg,
                        double (*p)[3]) {
    int n = 0;
    switch (g->type) {
    case KG_GEOM_BOX:
        for (int k = 0; k < 8; k++, n++)
            for (int a = 0; a < 3; a++) p[n][a] = (k >> a & 1 ? 0.5 : -0.5) * g->size[a];
        break;
    case KG_GEOM_MESH: {
        const kg_mesh *me = g->mesh_path ? kg_mesh_get(mc, g->mesh_path, g->mesh_part, dg, m->source, g->line) : NULL;
        double lo[3], hi[3];
        if (!me || kg_mesh_bounds(me, lo, hi) != 0) break;
        for (int k = 0; k < 8; k++, n++)
            for (int a = 0; a < 3; a++) p[n][a] = (k >> a & 1 ? hi[a] : lo[a]) * g->scale[a];
        break;
    }
    case KG_GEOM_SPHERE:
        for (int a = 0; a < 3; a++) p[0][a] = g->size[0] * down[a];
        n = 1;
        break;
    case KG_GEOM_CAPSULE: /* axis z, length between the balls' centres */
        for (int end = -1; end <= 1; end += 2, n++)
            for (int a = 0; a < 3; a++) p[n][a] = g->size[0] * down[a] + (a == 2 ? end * 0.5 * g->size[1] : 0);
        break;
    case KG_GEOM_CYLINDER: { /* axis z */
        const double r = g->size[0], half = 0.5 * g->size[1], dp = hypot(down[0], down[1]);
        if (dp > 1e-6) /* lying or leaning: the lowest line or point of each rim */
            for (int end = -1; end <= 1; end += 2, n++) {
                p[n][0] = r * down[0] / dp, p[n][1] = r * down[1] / dp;
                p[n][2] = end * half;
            }
        else /* standing: its lower rim */
            for (int k = 0; k < 8; k++, n++) {
                p[n][0] = r * cos(k * KG_PI / 4);
                p[n][1] = r * sin(k * KG_PI / 4);
                p[n][2] = down[2] < 0 ? half : -half;
            }
        break;
    }
    }
    return n;
}

static int is_below(const kg_model *m, int l, int anc) {
    for (; l >= 0; l = m->link[l].parent)
        if (l == anc) return 1;
    return 0;
}

/* The points of the shapes of role `role` on the links from the ankle down,
 * relative to the foot link's origin in the world's axes at d's pose. */
static int foot_points(const kg_model *m, const kg_data *d, int ankle, int foot, int role, kg_mesh_cache *mc,
                       kg_diags *dg, double (*pts)[3]) {
    const double *pf = d->link_pos + 3 * foot;
    int np = 0;
    for (int gi = 0; gi < m->ngeom; gi++) {
        const kg_geom *g = &m->geom[gi];
        if ((int)g->role != role || !is_below(m, g->link, ankle) || np + 16 > MAX_POINTS) continue;
        const double *Rl = d->link_rot + 9 * g->link, *pl = d->link_pos + 3 * g->link, wdown[3] = {0, 0, -1};
        double p[16][3], Rg[9], down[3];
        kg_mat3_mul(Rg, Rl, g->rot);
        kg_mat3_tvec(down, Rg, wdown);
        int n = shape_points(m, g, down, mc, dg, p);
        for (int k = 0; k < n; k++) {
            double a[3], b[3];
            kg_mat3_vec(a, g->rot, p[k]);
            for (int e = 0; e < 3; e++) a[e] += g->pos[e];
            kg_mat3_vec(b, Rl, a);
            for (int e = 0; e < 3; e++) pts[np][e] = b[e] + pl[e] - pf[e];
            np++;
        }
    }
    return np;
}

int kg_feet_find(const kg_model *m, kg_feet *feet, kg_diags *dg) {
    memset(feet, 0, sizeof *feet);
    feet->link[0] = feet->link[1] = -1;
    kg_body_map map;
    for (int k = 0; k < KG_NPART; k++) map.link[k] = -1, map.how[k] = map.why[k] = NULL;
    if (kg_body_map_find(m, &map, dg) != 0) return -1;
    kg_data *d = kg_data_new(m);
    kg_mesh_cache *mc = kg_mesh_cache_new();
    double (*pts)[3] = calloc(MAX_POINTS, sizeof *pts);
    size_t errors = kg_diags_count(dg, KG_ERROR);
    if (!d || !mc || !pts) goto out_of_memory;
    kg_fk(m, d);
    for (int s = 0; s < KG_NFOOT; s++) {
        const int ankle = map.link[s ? KG_PART_ANKLE_R : KG_PART_ANKLE_L];
        const int foot = map.link[s ? KG_PART_FOOT_R : KG_PART_FOOT_L];
        feet->link[s] = foot;
        int np = foot_points(m, d, ankle, foot, KG_COLLISION, mc, dg, pts);
        if (np == 0) np = foot_points(m, d, ankle, foot, KG_VISUAL, mc, dg, pts);
        if (kg_diags_count(dg, KG_ERROR) > errors) goto out_of_memory; /* a mesh's mesh.memory: said */
        /* the lowest points in the world's axes at rest (the foot link's own axes may point any
         * way: a link with x up and z forward has the same sole), the rectangle turned into the
         * link's frame below */
        const double *Rf = d->link_rot + 9 * foot;
        double zmin = INFINITY, lo[2] = {INFINITY, INFINITY}, hi[2] = {-INFINITY, -INFINITY}, zf = 0;
        for (int k = 0; k < np; k++) zmin = fmin(zmin, pts[k][2]);
        int nface = 0;
        for (int k = 0; k < np; k++) {
            if (pts[k][2] > zmin + 0.001) continue;
            for (int a = 0; a < 2; a++) lo[a] = fmin(lo[a], pts[k][a]), hi[a] = fmax(hi[a], pts[k][a]);
            zf += pts[k][2], nface++;
        }
        feet->from_geometry[s] = nface > 0 && hi[0] > lo[0] && hi[1] > lo[1];
        if (feet->from_geometry[s]) zf /= nface;
        else {
            lo[0] = -0.08, hi[0] = 0.12, lo[1] = -0.05, hi[1] = 0.05, zf = 0;
            kg_diag_add(dg, KG_WARNING, "dynamics.no_sole", m->source, 0, NULL,
                        "the %s foot ('%s') has no geometry to stand on: a 20 x 10 cm sole at its origin is assumed",
                        s ? "right" : "left", m->link[foot].name);
        }
        for (int k = 0; k < KG_SOLE_CORNERS; k++) {
            double c[3] = {k & 1 ? hi[0] : lo[0], k & 2 ? hi[1] : lo[1], zf};
            kg_mat3_tvec(feet->corner[s][k], Rf, c);
        }
        kg_diag_add(dg, KG_INFO, "dynamics.sole", m->source, 0, NULL,
                    "the %s sole: on '%s', x %.4g to %.4g, y %.4g to %.4g, z %.4g m from its origin in the "
                    "model's axes at rest (%s)",
                    s ? "right" : "left", m->link[foot].name, lo[0], hi[0], lo[1], hi[1], zf,
                    feet->from_geometry[s] ? "from its shapes" : "assumed");
    }
    free(pts);
    kg_mesh_cache_free(mc);
    kg_data_free(d);
    return 0;
out_of_memory:
    if (kg_diags_count(dg, KG_ERROR) == errors)
        kg_diag_add(dg, KG_ERROR, "dynamics.memory", m->source, 0, NULL, "out of memory finding the feet");
    free(pts);
    kg_mesh_cache_free(mc);
    kg_data_free(d);
    return -1;
}

void kg_feet_corners(const kg_feet *feet, const kg_data *d, int s, double out[KG_SOLE_CORNERS][3]) {
    const int l = feet->link[s];
    for (int k = 0; k < KG_SOLE_CORNERS; k++) {
        kg_mat3_vec(out[k], d->link_rot + 9 * l, feet->corner[s][k]);
        for (int a = 0; a < 3; a++) out[k][a] += d->link_pos[3 * l + a];
    }
}

void kg_feet_contacts(const kg_feet *feet, const kg_data *d, const kg_torque_options *o, int contact[KG_NFOOT]) {
    for (int s = 0; s < KG_NFOOT; s++) {
        contact[s] = 0;
        if (!feet || feet->link[s] < 0) continue;
        double c[KG_SOLE_CORNERS][3], zmin = INFINITY;
        kg_feet_corners(feet, d, s, c);
        for (int k = 0; k < KG_SOLE_CORNERS; k++) zmin = fmin(zmin, c[k][2]);
        contact[s] = zmin - o->ground_z <= o->contact_height;
    }
}
