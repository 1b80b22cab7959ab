/* Triangle meshes read through assimp, for export, collision and geometry
 * analyses.
 *
 * A mesh file is flattened into one triangle list in the file's frame: its node
 * transforms are applied, and its root transform is replaced by the file's unit
 * scale alone. That is what ROS (rviz, geometric_shapes) does with robot meshes:
 * COLLADA's <unit> is honoured and <up_axis> is not, because robot meshes are
 * drawn in the link frame whatever the modelling tool called "up". Degenerate
 * triangles are kept (viewers and assimp's own counts include them); points and
 * lines are left out and counted.
 *
 * A *part* names one geometry inside a file (COLLADA <geometry id>): its
 * triangles in the geometry's own frame, with the file's unit scale.
 *
 * Meshes are owned by a cache, so that a file used by many links, or a COLLADA
 * robot whose geometries all live in one file, is read once. A cache is not
 * thread-safe: use one per thread. */
#ifndef KG_MESH_H
#define KG_MESH_H

#include "kinegraph/io.h"

/* The triangles of one material. */
typedef struct kg_mesh_group {
    int tri_first, ntri;
    const char *material; /* the file's material name, or NULL */
    int has_color;
    double rgba[4];       /* diffuse colour */
} kg_mesh_group;

typedef struct kg_mesh {
    int nvert, ntri, ngroup;
    double *vert;         /* [3 nvert] metres */
    int *tri;             /* [3 ntri] vertex indices, counter-clockwise seen from outside */
    kg_mesh_group *group; /* [ngroup], covering the triangles in order */
    int nskipped;         /* point and line primitives left out */
} kg_mesh;

/* kg_mesh_cache, kg_mesh_cache_new, kg_mesh_cache_free: include/kinegraph/io.h */

/* The mesh of a file, or of one part of it (part NULL: the whole file). Returns
 * NULL after a warning (mesh.unreadable, mesh.no_part, naming ref_file:ref_line,
 * the element that refers to the mesh) when the file cannot be read or has no
 * such part: a model stays usable without the mesh. The mesh stays valid until
 * the cache is freed. */
const kg_mesh *kg_mesh_get(kg_mesh_cache *c, const char *path, const char *part, kg_diags *d,
                           const char *ref_file, int ref_line);

/* Reads the files among paths[0 .. n) (NULL entries skipped) that the cache
 * has not read yet: those that are not STL together in one child process
 * (as kg_mesh_get reads each: a crash costs its file only), then the binary
 * STL files on up to `threads` threads, assimp's reader of one file on each.
 * Only those on threads: assimp's C API keeps one error string for the
 * process, which every failing read writes, and its binary STL reader fails on
 * nothing but memory; ASCII STL files are read when kg_mesh_get asks. Warnings
 * (files that did not read) come out when kg_mesh_get asks, where they always
 * did, and it finds each file read as it would have made it. Returns 0, -1
 * when memory runs out (the cache as it was but for files read). */
int kg_mesh_cache_preload(kg_mesh_cache *c, const char *const *paths, int n, int threads);

/* kg_mesh_cache_preload of the mesh files of m's mesh geoms g for which
 * wanted(ctx, g) is non-zero (an STL file asked for by part is not read
 * ahead: it has no parts): before a loop that asks for them one by one. */
int kg_mesh_cache_preload_geoms(kg_mesh_cache *c, const kg_model *m, int (*wanted)(const void *ctx, int g),
                                const void *ctx, int threads);

/* The same for m's geoms of role `role` (-1: every geom). */
int kg_mesh_cache_preload_model(kg_mesh_cache *c, const kg_model *m, int role, int threads);

/* Writes the mesh as binary STL (atomically). 0, or -1 after an error diagnostic. */
int kg_mesh_write_stl(const kg_mesh *m, const char *path, kg_diags *d);

/* Axis-aligned bounds of a mesh; returns -1 for an empty mesh. */
int kg_mesh_bounds(const kg_mesh *m, double lo[3], double hi[3]);

#endif
