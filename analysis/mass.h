/* Mass properties of a posed model: total mass, centre of mass and the inertia
 * tensor about it (world axes), from the links' declared inertials. */
#ifndef KG_MASS_H
#define KG_MASS_H

#include "core/data.h"

typedef struct kg_mass_props {
    double mass;       /* kg */
    double com[3];     /* world, m; NAN when the mass is zero */
    double inertia[9]; /* about com, world axes, kg m^2 (row-major) */
} kg_mass_props;

/* Uses the link poses in d: call kg_fk first. When link_com is not NULL it
 * receives the world COM of every link ([3 * nlink]; a link's origin when it
 * has no mass). Allocates nothing. */
void kg_mass_properties(const kg_model *m, const kg_data *d, kg_mass_props *out, double *link_com);

#endif
