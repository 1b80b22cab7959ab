/* The importers: each turns the bytes of one file format into a model through
 * the builder (core/builder.h). They are called by kg_load (formats/load.h). */
#ifndef KG_IMPORTERS_H
#define KG_IMPORTERS_H

#include "formats/load.h"

#include <stdio.h>

/* Reads BVH as a stream from f; file_size (or -1) bounds what a lying frame
 * count may reserve. *motion receives the frames. */
kg_model *kg_import_bvh(const char *file, FILE *f, long file_size, const kg_load_options *o, kg_motion **motion,
                        kg_diags *d);
/* COLLADA: 1.5 kinematics, or a node tree with animations (buf: the .dae
 * document, read from a .zae if need be). *motion (may be NULL) receives the
 * animation, or NULL. */
kg_model *kg_import_collada(const char *file, const char *buf, size_t len, const kg_load_options *o, kg_motion **motion,
                            kg_diags *d);
kg_model *kg_import_urdf(const char *file, const char *buf, size_t len, const kg_load_options *o,
                         kg_diags *d);
/* SRDF: the link pairs its <disable_collisions> name (malloc'd into *pairs).
 * A link the model does not have is a warning and its pair left out. Returns 0,
 * or -1 after error diagnostics (unreadable, not XML, a pair without links). */
int kg_import_srdf_pairs(const char *path, const kg_model *m, kg_link_pair **pairs, int *npairs, kg_diags *d);
/* A motion of model m from a trajectory CSV (exporters/trajectory.c): the
 * headed kinegraph layout (time, root_x, root_y, root_z, root_qw, root_qx,
 * root_qy, root_qz, then coordinates by kg_coord_name, in any order; a
 * coordinate left out keeps its rest value, a mimic follower's follows its
 * leader; other columns are ignored with a warning) or the headerless LAFAN1
 * one (root x y z, qx qy qz qw, then every coordinate but the mimic
 * followers', in the model's order). The root pose goes to the motion's base.
 * Frame time: 1 / fps when fps > 0, else the time column's (last - first) /
 * (frames - 1), else 1/30 s (said in an info). Contacts: when the header has
 * both contact_left and contact_right (0 or 1; any non-zero number is 1),
 * *contacts (may be NULL) gets [2 * nframes] flags, left then right per frame;
 * else *contacts is NULL. NULL after error diagnostics. */
kg_motion *kg_import_trajectory_csv(const kg_model *m, const char *path, double fps, unsigned char **contacts,
                                    kg_diags *d);

#endif
