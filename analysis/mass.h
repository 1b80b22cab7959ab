/* Mass properties: of a posed model from per-link masses (the declared
 * inertials, or any others), and of the links' geometry at a density, with a
 * comparison of the two. */
#ifndef KG_MASS_H
#define KG_MASS_H

#include "analysis/solid.h"
#include "core/data.h"
#include "formats/mesh.h"

typedef struct kg_mass_props {
    double mass;       /* kg */
    double com[3];     /* world, m; NAN when the mass is zero */
    double inertia[9]; /* about com, world axes, kg m^2 (row-major) */
} kg_mass_props;

/* Uses the link poses in d: call kg_fk first. When link_com is not NULL it
 * receives the world COM of every link ([3 * nlink]; a link's origin when it
 * has no mass). Allocates nothing. */
void kg_mass_properties(const kg_model *m, const kg_data *d, kg_mass_props *out, double *link_com);

/* The same with other per-link values: mass [nlink] kg, com [3 nlink] in the
 * link frame, inertia [9 nlink] about the com in link axes. A NULL array means
 * the declared values. */
void kg_mass_combine(const kg_model *m, const kg_data *d, const double *mass, const double *com,
                     const double *inertia, kg_mass_props *out, double *link_com);

/* The solid geometry of one link, in the link frame, at unit density. */
typedef struct kg_link_solid {
    int role;        /* the geometry used: KG_COLLISION, KG_VISUAL, or -1 when the link has none */
    int ngeom;       /* geometries counted */
    int nmissing;    /* meshes left out because they could not be read */
    int open_edges;  /* over its meshes: edges of surfaces that are not closed (see kg_solid_mesh) */
    double uncertainty; /* how uncertain the volume is (m^3) because of those edges */
    int inside_out;  /* meshes whose triangles face inwards (counted turned the right way) */
    kg_solid solid;
} kg_link_solid;

/* A mesh whose volume is uncertain by at most this fraction (kg_solid_mesh)
 * counts as closed: its open edges are cracks (an info diagnostic, not a
 * warning). */
#define KG_MESH_CRACK 1e-3

/* The solid of every link ([nlink]) from its geometry of role `prefer`, or of
 * the other role when it has none of that role (robots often give only visual
 * meshes). Virtual links have none. Missing, open and inside-out meshes get a
 * warning. With meshes NULL no mesh is read: they count as missing, silently.
 * Returns 0, or -1 when out of memory. */
int kg_link_solids(const kg_model *m, kg_mesh_cache *meshes, int prefer, kg_link_solid *out, kg_diags *d);

/* A link's declared inertial against its geometry. */
typedef struct kg_inertial_check {
    double implied_density;    /* declared mass / geometric volume, kg/m^3 */
    double com_offset;         /* distance from the declared COM to the geometry's centroid, m */
    double com_offset_ratio;   /* com_offset over the geometry's RMS radius about its centroid */
    double inertia_ratio;      /* trace of the declared inertia over the trace of the geometry's
                                * at the declared mass (uniform density): 1 when they agree */
    double principal_ratio[3]; /* declared over geometric principal moments, both ascending */
} kg_inertial_check;

/* Fills c; a value that is undefined (no mass, no volume) is NAN. */
void kg_inertial_compare(const kg_link *l, const kg_solid *s, kg_inertial_check *c);

#endif
