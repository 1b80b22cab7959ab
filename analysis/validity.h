/* Model validity checks: what is wrong or suspicious in a model that was read
 * without fatal errors, beyond what the importers and the builder already
 * report while reading (syntax, references, topology, limits order, zero axes,
 * negative mass, mimic targets).
 *
 * Every finding is a diagnostic with a stable code (see kg_diag_hint for the
 * fix of each). The checks, by tier:
 *   joints     lower == upper on a moving joint, effort or velocity negative or
 *              zero, soft limits outside the hard ones, revolute limits beyond a
 *              turn (degrees written as radians?)
 *   inertia    missing on a moving link, mass zero or below 1e-5 kg, inertia
 *              not positive definite or breaking the triangle inequality (the
 *              tolerance of gz-math and Drake: 10 eps trace/2), zero inertia
 *   geometry   sizes and scales that are zero or negative, names that other
 *              formats cannot hold
 *   plausible  (needs the links' geometry) implied density outside
 *              [100, 20000] kg/m^3, declared COM outside the geometry's box,
 *              declared inertia over 10 times away from the geometry's
 *   meshes     (when meshes are read) unreadable, open or inside-out meshes,
 *              meshes far larger or smaller than the robot (unit mistakes)
 *   loops      each loop's members, Grubler-Kutzbach mobility against the
 *              mobility the closure constraints leave at the rest pose, and the
 *              closure residual there
 *   collision  link pairs in collision at the rest pose (limits applied),
 *              adjacent and declared pairs excepted
 *   motion     BVH: zero-length bones, the unit guess; any motion: angles that
 *              jump by more than 90 degrees between frames, values outside limits
 */
#ifndef KG_VALIDITY_H
#define KG_VALIDITY_H

#include "core/diag.h"
#include "core/model.h"
#include "core/motion.h"
#include "formats/mesh.h"

typedef struct kg_check_options {
    /* Read mesh files (NULL: leave meshes alone, as a fast structural check
     * does; mesh-dependent checks are then skipped for links with meshes). */
    kg_mesh_cache *meshes;
} kg_check_options;

/* Adds the findings about m (and its motion mo, which may be NULL) to d.
 * Returns 0, or -1 when out of memory. */
int kg_check_model(const kg_model *m, const kg_motion *mo, const kg_check_options *o, kg_diags *d);

#endif
