/* The exporters: each writes a model (and its motion) in one file format to an
 * open stream; io/save.c picks one and makes the write atomic. What the
 * format cannot hold goes into the ledger (which may be NULL) as dropped,
 * approximated or defaulted. They return 0, or -1 after an error diagnostic when
 * nothing sensible can be written. Dates in outputs (COLLADA <created>) come from
 * SOURCE_DATE_EPOCH when it is set, so builds can be byte-for-byte reproducible. */
#ifndef KG_EXPORTERS_H
#define KG_EXPORTERS_H

#include <stdio.h>

#include "core/diag.h"
#include "core/model.h"
#include "core/motion.h"
#include "formats/fileio.h"
#include "kinegraph/io.h"
#include "formats/mesh.h"

/* kg_export_options: include/kinegraph/io.h */

/* BVH: the model must be a BVH skeleton (a static root link, compound joints of
 * x/y/z position and rotation channels, End Sites as fixed leaf joints). */
int kg_export_bvh(const kg_model *m, const kg_motion *mo, const kg_export_options *o, FILE *f, kg_ledger *l,
                      kg_diags *d);
/* Trajectories of any model with a motion (see the README for the columns). */
int kg_export_csv(const kg_model *m, const kg_motion *mo, const kg_export_options *o, FILE *f, kg_ledger *l,
                      kg_diags *d);
/* The same frames in the headerless LAFAN1 layout: x, y, z, qx, qy, qz, qw, joints. */
int kg_export_csv_lafan1(const kg_model *m, const kg_motion *mo, const kg_export_options *o, FILE *f, kg_ledger *l,
                         kg_diags *d);
int kg_export_json(const kg_model *m, const kg_motion *mo, const kg_export_options *o, FILE *f, kg_ledger *l,
                      kg_diags *d);
/* COLLADA 1.5 (kinematics, articulated systems, physics, visual scene). */
int kg_export_collada(const kg_model *m, const kg_motion *mo, const kg_export_options *o, FILE *f, kg_ledger *l,
                      kg_diags *d);
/* MJCF (MuJoCo 2.2.2 and later) from any model: bodies, joints, inertials, geoms
 * (meshes MuJoCo cannot read written as STL beside path), motors from effort
 * limits, contact exclusions, loops and couplings as equalities. */
int kg_export_mjcf(const kg_model *m, const kg_motion *mo, const kg_export_options *o, FILE *f, kg_ledger *l,
                   kg_diags *d);
/* glTF 2.0 (.glb, or .gltf with "<name>.bin" beside path): link nodes, visual
 * geometry with materials, the motion as an animation. */
int kg_export_gltf(const kg_model *m, const kg_motion *mo, const kg_export_options *o, FILE *f, kg_ledger *l,
                   kg_diags *d);
/* RL motion files (.npz, numpy arrays in a zip): per frame the coordinates and
 * their rates, every real link's world pose and velocity, float32, frames first
 * (the layout of BeyondMimic-style motion-tracking trainers; see exporters/npz.c). */
int kg_export_npz(const kg_model *m, const kg_motion *mo, const kg_export_options *o, FILE *f, kg_ledger *l,
                  kg_diags *d);
/* URDF 1.0 from any model: loops, compound joints and the like are reported. */
int kg_export_urdf(const kg_model *m, const kg_motion *mo, const kg_export_options *o, FILE *f, kg_ledger *l,
                      kg_diags *d);

/* For targets that hold a skeleton and its motion (BVH) or motion only
 * (trajectories): records what of the model is not written (inertials,
 * geometry, materials, limits and dynamics, mimic couplings, loops, extras, and
 * for trajectories the structure itself). */
void kg_ledger_model_only(const kg_model *m, kg_ledger *l, const char *target);

/* Out of memory while writing (README, "Out of memory"): adds error io.memory
 * naming the output (unless the last diagnostic already says out of memory,
 * a mesh's mesh.memory) and returns -1, for `return kg_export_oom(o, d);`.
 * The writer frees what it took; kg_save removes what was written. */
int kg_export_oom(const kg_export_options *o, kg_diags *d);

/* A CSV field: quoted when it holds a comma, quote or line end (RFC 4180). */
void kg_csv_field(FILE *f, const char *s);

#endif
