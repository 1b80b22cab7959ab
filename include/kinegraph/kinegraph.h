/* kinegraph: robot and character models read into one link/joint graph,
 * analysed and written out. The umbrella header: every family of the public
 * API. Link with `pkg-config --libs kinegraph` or CMake's
 * find_package(kinegraph) and kinegraph::kinegraph.
 *
 *   kinegraph/version.h     KG_VERSION_*, kg_version()
 *   kinegraph/model.h       the model, its data, motions, diagnostics
 *   kinegraph/io.h          reading and writing files, the conversion ledger
 *   kinegraph/kinematics.h  forward kinematics, Jacobians, manipulability, IK
 *   kinegraph/analysis.h    mass, workspace, self-collision, model checks
 *   kinegraph/retarget.h    motion retargeting onto humanoids (bodymap.h: body parts)
 *   kinegraph/dynamics.h    rigid-body dynamics, closed chains (torques.h: joint
 *                           torques of a motion with foot contacts)
 *
 * Every exported function carries KG_API (kinegraph/api.h); anything else in
 * the library is internal. SI units throughout. */
#ifndef KINEGRAPH_H
#define KINEGRAPH_H

#include "kinegraph/version.h"
#include "kinegraph/model.h"
#include "kinegraph/io.h"
#include "kinegraph/kinematics.h"
#include "kinegraph/analysis.h"
#include "kinegraph/bodymap.h"
#include "kinegraph/retarget.h"
#include "kinegraph/dynamics.h"
#include "kinegraph/torques.h"

#endif
