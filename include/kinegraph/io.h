/* kinegraph public API, io family: reading models and motions (URDF, COLLADA
 * .dae/.zae, BVH, trajectory CSV, SRDF pairs) and writing them (URDF, COLLADA,
 * BVH, MJCF, glTF, CSV/JSON trajectories, RL .npz) with the conversion ledger
 * of what the target cannot hold. Outputs are written whole or not at all. */
#ifndef KINEGRAPH_IO_H
#define KINEGRAPH_IO_H

#include <stddef.h>
#include "kinegraph/model.h"

KG_BEGIN_DECLS

/* Resolution of the file references inside a model (meshes, textures).
 *
 *   package://NAME/rest  searched, in this order, in
 *       1. every --package-path DIR: DIR/NAME/rest, or DIR/rest when DIR is named NAME;
 *       2. every entry of ROS_PACKAGE_PATH (colon-separated), the same way;
 *       3. the model file's folder and its ancestors A: A/rest when A is named NAME,
 *          or A/NAME/rest.
 *   package:///rest      (empty package name) is read as package://rest with a
 *                        warning: the first path segment becomes the package name.
 *   file://PATH          PATH.
 *   anything else        a path, relative to the model file's folder.
 * Only existing regular files count as resolved. */

typedef struct kg_resolver {
    const char *const *package_paths;
    int npackage_paths;
    int ignore_env; /* do not read ROS_PACKAGE_PATH */
} kg_resolver;

/* Meshes (STL, OBJ, COLLADA, ... through assimp) are read once per file and
 * kept by a cache that the functions reading geometry share. A cache is not
 * thread-safe: use one per thread. */
typedef struct kg_mesh_cache kg_mesh_cache;

KG_API kg_mesh_cache *kg_mesh_cache_new(void);
KG_API void kg_mesh_cache_free(kg_mesh_cache *c);

/* Reading a model from a file: format detection and dispatch to the importers. */

typedef struct kg_load_options {
    const char *format;   /* "urdf", ...; NULL to detect from the name and content */
    kg_resolver resolver; /* how package:// and relative paths resolve */
    double scale;         /* BVH: lengths are multiplied by this (0 means 1; the file's units) */
} kg_load_options;

/* Reads the file and builds its model. Returns NULL when no model can be built;
 * diagnostics (with file and line) say why. A model may come back with error
 * diagnostics too (see kg_builder_finish). */
KG_API kg_model *kg_load(const char *path, const kg_load_options *o, kg_diags *d);
/* The same for bytes already in memory; `name` is used for diagnostics and to
 * resolve relative paths. */
KG_API kg_model *kg_load_buffer(const char *name, const char *buf, size_t len, const kg_load_options *o,
                         kg_diags *d);
/* Model and motion (BVH; NULL motion for formats without one). Either output
 * may be NULL when not wanted. Returns the model (NULL on failure). */
KG_API kg_model *kg_load_clip(const char *path, const kg_load_options *o, kg_motion **motion, kg_diags *d);
KG_API kg_model *kg_load_clip_buffer(const char *name, const char *buf, size_t len, const kg_load_options *o,
                              kg_motion **motion, kg_diags *d);

/* "urdf", "collada", "bvh", or NULL when unknown. */
KG_API const char *kg_detect_format(const char *name, const char *buf, size_t len);

/* A motion for a given model, read from a file of its own (`convert MODEL OUT
 * --motion FILE`):
 *
 *  - a trajectory CSV, read by kg_import_trajectory_csv (importers/importers.h):
 *    kinegraph's layout (a header: time, root_x, root_y, root_z, root_qw,
 *    root_qx, root_qy, root_qz, then coordinates by name, as `convert` and
 *    `retarget --csv-layout kinegraph` write it; the frame time from the time
 *    column), or the headerless LAFAN1 layout `retarget` writes by default (x,
 *    y, z, qx, qy, qz, qw, then the model's coordinates but the mimic
 *    followers', in order; its rate is not in the file: csv_fps);
 *  - any clip kinegraph reads (BVH, COLLADA with an animation): its coordinates
 *    are matched to the model's by name (kg_coord_name), its root pose taken
 *    over when it has one (a robot's floating base).
 *
 * The root columns of a CSV are the world pose of model->root_body: they set the
 * motion's base when that is the root link (a robot), and are implied by the
 * coordinates otherwise (a BVH skeleton's ROOT joint). Mimic followers are
 * recomputed from their leaders. Returns NULL after an error diagnostic. */

/* csv_fps: the frame rate of a CSV (0: a headed one's time column, else 30,
 * LAFAN1's, said in an info diagnostic). o: how the clip is read (may be NULL). */
KG_API kg_motion *kg_load_motion_for(const kg_model *m, const char *path, const kg_load_options *o, double csv_fps,
                              kg_diags *d);

/* SRDF: the link pairs its <disable_collisions> name (malloc'd into *pairs).
 * A link the model does not have is a warning and its pair left out. Returns 0,
 * or -1 after error diagnostics (unreadable, not XML, a pair without links). */
KG_API int kg_import_srdf_pairs(const char *path, const kg_model *m, kg_link_pair **pairs, int *npairs, kg_diags *d);
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
KG_API kg_motion *kg_import_trajectory_csv(const kg_model *m, const char *path, double fps, unsigned char **contacts,
                                    kg_diags *d);

/* The conversion ledger: everything a conversion could not carry over as it was.
 * Each entry says what happened to which element of the source, and where the
 * element was read (file and line). Exporters add to it; `kinegraph convert`
 * prints a summary and writes it whole with --ledger FILE.json. Nothing is
 * dropped, approximated or invented without an entry. */

typedef enum {
    KG_DROPPED = 0,      /* not written: the target cannot hold it */
    KG_APPROXIMATED = 1, /* written differently (e.g. a compound joint as a chain of joints) */
    KG_DEFAULTED = 2,    /* the target needs a value the source does not have: a default was written */
} kg_ledger_action;

typedef struct kg_ledger_entry { /* its strings are one block, freed by kg_ledger_clear */
    kg_ledger_action action;
    char *element;       /* what kind of thing: "loop", "joint", "geometry", ... */
    char *name;          /* which one (may be NULL) */
    char *detail;        /* what happened, for people */
    char *file;          /* where it was read (may be NULL) */
    int line;
} kg_ledger_entry;

typedef struct kg_ledger {
    kg_ledger_entry *items;
    size_t count, cap;
    size_t lost; /* entries that could not be stored (out of memory): kg_save then fails with io.memory */
} kg_ledger;

KG_API void kg_ledger_init(kg_ledger *l);
KG_API void kg_ledger_clear(kg_ledger *l);
/* No-op when l is NULL (callers that do not keep a ledger). An entry that
 * cannot be stored (out of memory) is counted in lost. */
KG_API void kg_ledger_add(kg_ledger *l, kg_ledger_action action, const char *element, const char *name,
                   const char *file, int line, const char *fmt, ...) KG_PRINTF(7, 8);
KG_API size_t kg_ledger_count(const kg_ledger *l, kg_ledger_action action);
KG_API const char *kg_ledger_action_name(kg_ledger_action a);

/* Writing a model (and motion) to a file: the format from the name or an
 * explicit one, written to a temporary file and renamed, so a failed write never
 * leaves half a file behind. */

/* "urdf", "collada", "bvh", "csv", "json", "mjcf" (.xml), "gltf", "glb", "npz" from the name's extension, or NULL
 * ("lafan1", the headerless CSV layout of retargeted LAFAN1 clips, is only
 * chosen by name). */
KG_API const char *kg_output_format(const char *path);
/* Writes path; what the format cannot hold goes into the ledger (may be NULL).
 * Returns 0, -1 on an error (diagnostic added; no file written). */
KG_API int kg_save(const char *path, const char *format, const kg_model *m, const kg_motion *mo, kg_ledger *l,
            kg_diags *d);
/* What an exporter may need besides the stream (all optional: o may be NULL). */
typedef struct kg_export_options {
    /* The file being written (the stream goes to a temporary beside it). Formats
     * that write companion files (URDF: meshes that only exist inside a COLLADA
     * file) put them next to it; without it they cannot, and say so in the ledger. */
    const char *path;
    /* Meshes are read through this cache when given (shared with the caller);
     * otherwise the exporter keeps its own. */
    kg_mesh_cache *meshes;
    /* A dry run that only wants the ledger (kinegraph check): no mesh file is
     * read, so mesh payloads are neither written nor reported. */
    int skip_meshes;
    /* Trajectories: leave out the coordinates of mimic followers (they follow
     * from their leaders): a robot's motion as its actuated joints, as motion
     * datasets list them. */
    int skip_followers;
    /* The companion files written (kg_save removes them when the output fails). */
    struct kg_files *companions;
    /* Trajectories: [2 nframes] per frame of the motion, the left then the right
     * foot's contact (0 or 1), or NULL. The headed CSV layout writes them as the
     * columns contact_left and contact_right, which kg_import_trajectory_csv and
     * `kinegraph dynamics` read back (a motion's contacts are then its own, not
     * inferred again from other soles); the LAFAN1 layout has no place for them
     * and says so in the ledger; the other exporters do not read them. */
    const unsigned char *contacts;
} kg_export_options;

/* kg_save with exporter options (o->path is set to path here; o may be NULL). */
KG_API int kg_save_with(const char *path, const char *format, const kg_model *m, const kg_motion *mo,
                 const struct kg_export_options *o, kg_ledger *l, kg_diags *d);

KG_END_DECLS

#endif
