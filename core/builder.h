/* The one way to make a kg_model. Every importer describes what it read (links,
 * joints by the names of their links, geoms, materials, mimic couplings, opaque
 * extras) and calls kg_builder_finish, which
 *   - resolves names (duplicates and dangling references are errors),
 *   - picks the root and a spanning tree, turning every extra joint into a loop
 *     closure with a virtual link,
 *   - sorts links into topological order and lays out the joint vector,
 *   - orders mimic couplings and rejects cycles,
 *   - validates what the kinematics relies on (finite numbers, unit axes, mass),
 *   - and precomputes the constants forward kinematics needs.
 * All problems go to the diagnostics list with file and line. */
#ifndef KG_BUILDER_H
#define KG_BUILDER_H

#include "core/diag.h"
#include "core/model.h"

typedef struct kg_builder kg_builder;

/* `file` and `format` are recorded in the model and in every diagnostic. */
kg_builder *kg_builder_new(const char *file, const char *format, kg_diags *diags);
void kg_builder_free(kg_builder *b); /* only needed when not finishing */

void kg_builder_set_name(kg_builder *b, const char *name);
/* Asks that this joint be the one cut when it closes a loop (COLLADA names its
 * loop-closing joints): the spanning tree avoids it where it can. */
void kg_builder_prefer_cut(kg_builder *b, kg_joint *j);
/* Loops are first-class in the model, but some formats forbid them (URDF): the
 * builder still builds the model and adds an error naming the format. */
void kg_builder_forbid_loops(kg_builder *b, const char *format_name);

/* Returned pointers stay valid until kg_builder_finish; fill in the fields you
 * have. Names are copied. */
kg_link *kg_builder_add_link(kg_builder *b, const char *name, int line);
/* The joint comes with URDF defaults: axis (1, 0, 0), identity origin, no limit,
 * effort, velocity and acceleration NAN. */
kg_joint *kg_builder_add_joint(kg_builder *b, const char *name, kg_joint_type type,
                               const char *parent, const char *child, int line);
/* Appends an elementary axis to a compound joint (in application order); coord
 * is the coordinate (0-based within the joint) that drives it, rest its value in
 * the rest pose. */
void kg_builder_add_axis(kg_builder *b, kg_joint *j, kg_axis_kind kind, const double dir[3], int coord,
                         double rest, const char *label);
/* The link whose pose is the body's root, for formats with a static world link
 * above it (default: the root link). */
void kg_builder_set_root_body(kg_builder *b, kg_link *link);
void kg_builder_set_mimic(kg_builder *b, kg_joint *follower, const char *leader, double multiplier,
                          double offset, int line);
/* Geoms reference their link by the pointer add_link returned and their material
 * by name (NULL for none). */
kg_geom *kg_builder_add_geom(kg_builder *b, kg_link *link, kg_geom_role role, kg_geom_type type,
                             const char *material, int line);
/* Defines a material; returns NULL (after a diagnostic) if the name is taken.
 * A material with an empty name is anonymous: it is only reachable through
 * kg_builder_set_geom_material. */
kg_material *kg_builder_add_material(kg_builder *b, const char *name, int line);
void kg_builder_set_geom_material(kg_builder *b, kg_geom *g, kg_material *m);
int kg_builder_has_material(const kg_builder *b, const char *name);
void kg_builder_add_extra(kg_builder *b, const char *kind, const char *name, const char *xml, int line);
/* A named frame on link `tip`, at the end of a chain from `base` (NULL: the
 * root); fill in the frame and direction. Links left out of the model take
 * their end effectors and pairs with them (with a warning). */
kg_end_effector *kg_builder_add_end_effector(kg_builder *b, const char *name, kg_link *base, kg_link *tip, int line);
/* Two links whose collisions the file says to ignore. */
void kg_builder_ignore_collision(kg_builder *b, kg_link *a, kg_link *c, int from_extra, int line);
/* Copy a string into the model's memory (for geom names, mesh paths, ...). */
const char *kg_builder_strdup(kg_builder *b, const char *s);

/* Builds the model and frees the builder. Returns NULL when no consistent model
 * can be made (an error diagnostic says why). A returned model may still carry
 * error diagnostics (e.g. a loop in a URDF). */
kg_model *kg_builder_finish(kg_builder *b);

#endif
