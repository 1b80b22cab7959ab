/* kinegraph public API, analysis family: mass properties (declared and from
 * geometry), solids, size measures, workspaces, self-collision (pairs at a
 * pose, distances, the allowed-collision matrix) and the model checks that
 * `kinegraph check` runs. Meshes are read through a kg_mesh_cache
 * (kinegraph/io.h). */
#ifndef KINEGRAPH_ANALYSIS_H
#define KINEGRAPH_ANALYSIS_H

#include <stdint.h>
#include "kinegraph/io.h"
#include "kinegraph/model.h"

KG_BEGIN_DECLS

/* Mass properties of solid geometry at unit density: volume, centroid and the
 * inertia tensor about the centroid, for the primitives and for closed triangle
 * meshes (a sum of signed tetrahedra, exact for any closed, consistently
 * oriented mesh). Multiply volume and inertia by a density to get kilograms.
 *
 * Solids add as if they did not overlap: two overlapping geometries of one link
 * count their common volume twice (MuJoCo does the same with its geoms). */

typedef struct kg_solid {
    double volume;      /* m^3 */
    double centroid[3]; /* m; zero when the volume is zero */
    double inertia[9];  /* about the centroid, at density 1 (m^5), row-major */
} kg_solid;

/* Primitives in their own frame, centred at the origin. Sizes as in kg_geom:
 * box full extents; sphere radius; cylinder radius and length along z; capsule
 * radius and the length of its cylindrical part along z. */
KG_API void kg_solid_box(kg_solid *s, const double size[3]);
KG_API void kg_solid_sphere(kg_solid *s, double radius);
KG_API void kg_solid_cylinder(kg_solid *s, double radius, double length);
KG_API void kg_solid_capsule(kg_solid *s, double radius, double length);

/* A triangle mesh scaled per axis. A closed mesh gives its exact properties
 * whatever its orientation: an inside-out mesh (negative signed volume) is
 * turned the right way and *inside_out set. *open_edges receives the number of
 * edges the triangles do not run along as often in one direction as in the
 * other (a hole's rim, or a flipped triangle): when it is not zero the mesh is
 * not a closed surface and the result is not a volume (it depends on where the
 * mesh sits); *uncertainty receives how uncertain the volume is then, relative
 * to it (CAD exports often leave cracks of a few nanometres: their uncertainty
 * is negligible). Returns 0, or -1 when out of memory. */
KG_API int kg_solid_mesh(kg_solid *s, const double *vert, int nvert, const int *tri, int ntri, const double scale[3],
                  int *open_edges, int *inside_out, double *uncertainty);

/* s in a frame where its own frame sits at (rot, pos). */
KG_API void kg_solid_transform(kg_solid *s, const double rot[9], const double pos[3]);

/* acc += s (acc may start zeroed). */
KG_API void kg_solid_add(kg_solid *acc, const kg_solid *s);

/* Mass properties: of a posed model from per-link masses (the declared
 * inertials, or any others), and of the links' geometry at a density, with a
 * comparison of the two. */

typedef struct kg_mass_props {
    double mass;       /* kg */
    double com[3];     /* world, m; NAN when the mass is zero */
    double inertia[9]; /* about com, world axes, kg m^2 (row-major) */
} kg_mass_props;

/* Uses the link poses in d: call kg_fk first. When link_com is not NULL it
 * receives the world COM of every link ([3 * nlink]; a link's origin when it
 * has no mass). Allocates nothing. */
KG_API void kg_mass_properties(const kg_model *m, const kg_data *d, kg_mass_props *out, double *link_com);

/* The same with other per-link values: mass [nlink] kg, com [3 nlink] in the
 * link frame, inertia [9 nlink] about the com in link axes. A NULL array means
 * the declared values. */
KG_API void kg_mass_combine(const kg_model *m, const kg_data *d, const double *mass, const double *com,
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
KG_API int kg_link_solids(const kg_model *m, kg_mesh_cache *meshes, int prefer, kg_link_solid *out, kg_diags *d);

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
KG_API void kg_inertial_compare(const kg_link *l, const kg_solid *s, kg_inertial_check *c);

/* Size measures of a model. */

/* Size of the body at joint vector q (NULL: the rest pose, q_default): the
 * largest extent, over the three coordinate axes, of the origins of the links
 * below the body's first branching link (found by going down from
 * model->root_body while links have one child, which skips a ground-level root
 * whose child carries the capture-space position). For a person standing this
 * is the height, in a T-pose the arm span, which is about the same. *axis gets
 * the axis (0, 1, 2 for x, y, z). NAN when memory is exhausted. */
KG_API double kg_body_size(const kg_model *m, const double *q, int *axis);

/* Workspace of a link: where a point on it can go, found by sampling the joints
 * between a base link and it within their limits and keeping the voxels the
 * point visits, with the manipulability of each visit.
 *
 * Sampling: the coordinates of the joints on the path from the base to the tip
 * (revolute, prismatic and continuous joints, compound joints' axes; other
 * coordinates stay at their rest value), uniform within limits (continuous:
 * one turn, [-pi, pi]); pseudo-random (xorshift64*, seeded) or low-discrepancy
 * (Halton, bases 2, 3, 5, ..., shifted by the seed). A joint without limits that
 * is not a rotation cannot be sampled and is left at rest.
 *
 * Volume: voxels visited times the voxel volume overstates a solid by the
 * voxels its boundary cuts, about half each; `volume` counts a voxel with an
 * empty face neighbour as half (`voxel_volume` is the plain count). Along an
 * axis the workspace does not leave (a planar arm: one layer of voxels) there is
 * no boundary: its volume is then its area times the voxel edge. The
 * convergence curve, voxels after 1, 2, 5, 10, 20, ... samples, shows whether
 * more samples would still add (uniform joint sampling converges slowly near
 * the boundary). */

/* Sequences that draw joint samples (workspace, collision matrix). */
enum { KG_SAMPLE_RANDOM = 0, KG_SAMPLE_HALTON = 1 };

typedef struct kg_workspace_options {
    int tip, base;       /* links; base -1: the world (the root at the identity) */
    double point[3];     /* in the tip's frame */
    long samples;
    double voxel;        /* edge (m) */
    uint64_t seed;
    int sequence;        /* KG_SAMPLE_RANDOM or KG_SAMPLE_HALTON */
    int manipulability;  /* compute w (analysis/manipulability.h) at every sample */
    int threads;         /* 0 or 1: this thread; more: split the samples */
    const double *q;     /* [nq] the coordinates that are not sampled (NULL: the rest pose) */
    kg_progress_fn progress; /* NULL, or told the samples drawn (estimated from the first
                              * thread's share) of `samples` */
    void *progress_user;
    long max_voxels;     /* at most this many voxels (0: KG_WORKSPACE_MAX_VOXELS); more is refused */
} kg_workspace_options;

/* The voxels a workspace holds unless told otherwise: each costs 64-128 bytes
 * while it is counted (a hash table of 32-byte cells at most half full, the
 * old one beside the new while it doubles), so 10^7 is 1-1.6 GB at the peak,
 * that much per thread (each counts its share, up to the limit) and again for
 * their merge. The first thread past it stops the others. Many samples into
 * small voxels (10^9 samples of 2 um) would otherwise grow until memory runs
 * out. */
#define KG_WORKSPACE_MAX_VOXELS 10000000L
/* The voxel grid's reach: 2^20 voxels from the origin along each axis (20 km
 * at 2 cm, 1 m at 1 um); a point beyond is refused, not counted in the edge voxel. */
#define KG_WORKSPACE_GRID_REACH (1L << 20)

typedef struct kg_voxel {
    int32_t x, y, z;     /* index: the voxel spans [x, x + 1) * voxel, ... */
    int32_t count;       /* samples in it */
    float w_min, w_max;  /* manipulability of those samples */
    double w_sum;
} kg_voxel;

typedef struct kg_workspace_point {
    long samples, voxels;
} kg_workspace_point;

typedef struct kg_workspace {
    long samples;
    long nvoxel;
    kg_voxel *voxel;     /* [nvoxel], sorted by (x, y, z) */
    double voxel_edge;
    double volume;       /* boundary voxels counted half */
    double voxel_volume; /* nvoxel * edge^3 */
    double lo[3], hi[3]; /* bounding box of the sampled points */
    double w_min, w_max, w_mean;
    int ncurve;
    kg_workspace_point curve[64];
    int nsampled;        /* coordinates sampled */
} kg_workspace;

/* Returns 0, or -1 when there is no joint to sample (nsampled 0) or the options
 * are out of range, -2 when memory runs out, -3 when the voxels would be more
 * than max_voxels, -4 when a point is beyond the voxel grid's reach (or not
 * finite: a wild model). */
enum { KG_WORKSPACE_NOTHING = -1, KG_WORKSPACE_MEMORY = -2, KG_WORKSPACE_TOO_MANY = -3, KG_WORKSPACE_OFF_GRID = -4 };
KG_API int kg_workspace_compute(const kg_model *m, const kg_workspace_options *o, kg_workspace *w);
KG_API void kg_workspace_free(kg_workspace *w);

/* Self-collision: which pairs of a model's links touch at a pose, and which
 * pairs can ever touch (the allowed-collision matrix MoveIt's setup assistant
 * makes, with a stated bound for the pairs called "never").
 *
 * Geometry: each link's collision geoms as convex shapes (analysis/convex.h):
 * boxes, spheres, cylinders and capsules as they are, meshes as their convex
 * hulls (so a concave mesh collides as its hull, as in MuJoCo). Broad phase:
 * world bounding boxes of the shapes; narrow phase: libccd's MPR intersection
 * test. Two links collide when any of their shapes do (touching counts).
 * With `exact` set, a hit between hulls of meshes is confirmed on the meshes'
 * triangles (analysis/trimesh.h): their surfaces meet, or one solid holds the
 * other (what MoveIt's FCL tests); a concave link then no longer collides
 * where only its hull reaches.
 *
 * Pair classes (link pairs that both have collision geometry):
 *   adjacent   joined by a joint, or through links that have no geometry;
 *              never sampled (they always touch at the joint)
 *   declared   the model's file says to ignore the pair (OpenRAVE), or an SRDF
 *              disables it (kg_collision_model_declare)
 *   default    colliding at the rest pose
 *   always     colliding in at least 95 % of the samples
 *   never      no hit in n samples: the chance of a hit at a random pose is then
 *              below 3/n with 95 % confidence (the rule of three)
 *   sometimes  hit, but not always: must be checked at run time
 * Sampling draws every independent coordinate uniformly within its limits
 * (continuous: a turn; unlimited translations and free joints stay at rest),
 * in rounds that double the total, and stops when a round finds no pair that
 * had not been hit before (once at least min_samples are drawn), or at the maximum. The samples are the same for any
 * number of threads. */

enum { KG_PAIR_ADJACENT, KG_PAIR_DECLARED, KG_PAIR_DEFAULT, KG_PAIR_ALWAYS, KG_PAIR_NEVER, KG_PAIR_SOMETIMES };

struct kg_convex;  /* internal: convex shapes (analysis/convex.h) */
struct kg_trimesh; /* internal: mesh surfaces (analysis/trimesh.h) */

typedef struct kg_collision_model {
    int nshape;
    struct kg_convex *shape;      /* grouped by link */
    int nlink;
    int *link_first, *link_count; /* [nlink] a link's shapes */
    int npair;             /* link pairs that both have shapes */
    int *pair_a, *pair_b;  /* links, a < b */
    unsigned char *adjacent; /* [npair] */
    unsigned char *declared; /* [npair] the model says to ignore it */
    int hull_vertices;     /* over all hulls */
    struct kg_trimesh *surface;   /* [nshape] a mesh shape's triangles in the shape's frame (ntri 0: a primitive) */
    int exact;             /* 0 (as built): hulls, as MuJoCo; 1: hull hits confirmed on the triangles */
} kg_collision_model;

/* Shapes of every collision geom (meshes read through the cache; a mesh that
 * cannot be read is left out, with a warning). Returns 0, -1 when out of memory. */
KG_API int kg_collision_model_build(const kg_model *m, kg_mesh_cache *meshes, kg_collision_model *cm, kg_diags *d);
/* The same, the binary STL meshes read and the shapes (hulls, triangle trees)
 * made on up to `threads` threads (other meshes read on this one): the same
 * model and warnings whatever the number, each shape the work of one thread.
 * assimp reads on those threads: a log stream the caller attached to assimp
 * (aiAttachLogStream) is then written from several at once. */
KG_API int kg_collision_model_build_threads(const kg_model *m, kg_mesh_cache *meshes, kg_collision_model *cm,
                                            int threads, kg_diags *d);
KG_API void kg_collision_model_free(kg_collision_model *cm);
/* out: cm with every hull replaced by kg_convex_coarse's (vertices within
 * width of the hull of the others left out, swelled to hold the hull),
 * primitives and pairs as they are, no triangles (exact 0): distances
 * measured on it are lower bounds of cm's, for a controller that keeps links
 * apart at many poses a second. Returns 0, -1 when out of memory. */
KG_API int kg_collision_model_coarse(const kg_collision_model *cm, double width, kg_collision_model *out);
/* The same on up to `threads` threads (the same model whatever the number). */
KG_API int kg_collision_model_coarse_threads(const kg_collision_model *cm, double width, kg_collision_model *out,
                                             int threads);
/* Marks the pairs among pairs[n] (links, either order; an SRDF's disabled
 * ones, importers/importers.h) declared, as the model's own ignored pairs are.
 * Returns how many of cm's pairs it marked. */
KG_API int kg_collision_model_declare(kg_collision_model *cm, const kg_link_pair *pairs, int n);

/* Per-thread work space for kg_self_collisions and kg_pair_distance. */
typedef struct kg_collision_work kg_collision_work;
KG_API kg_collision_work *kg_collision_work_new(const kg_collision_model *cm);
KG_API void kg_collision_work_free(kg_collision_work *w);
/* kg_pair_distance's distances between apart shapes to within tol (m; 0, as
 * made: to KG_GJK_RELATIVE): an upper bound at most tol above the distance. */
KG_API void kg_collision_work_tolerance(kg_collision_work *w, double tol);

/* At the pose of d (after kg_fk): hit[p] = 1 for every pair p that collides,
 * among the pairs with check[p] set (NULL: all but adjacent ones). Returns the
 * number of colliding pairs. Allocates nothing. */
KG_API int kg_self_collisions(const kg_collision_model *cm, const kg_data *d, kg_collision_work *w, const unsigned char *check,
                       unsigned char *hit);

/* After kg_self_collisions at the same pose: how far the links of pair p
 * interpenetrate, the deepest over their shapes (libccd's MPR penetration):
 * moving link pair_b[p] by depth (m) along dir (unit, world axes) leaves them
 * touching; pos is a world point in the overlap. Returns 0 when they do not
 * touch. Allocates nothing. */
KG_API int kg_pair_penetration(const kg_collision_model *cm, kg_collision_work *w, int p, double *depth, double dir[3],
                        double pos[3]);

/* The world bounding box (lo, hi) of link's collision shapes at d's pose (after
 * kg_fk; their shapes' boxes, each the box of the shape's own box turned):
 * a caller can drop pairs whose boxes are farther apart than it cares about
 * without asking more. Returns 0 when the link has no shapes. Places the
 * link's shapes in w, once per pose. Allocates nothing. */
KG_API int kg_link_box(const kg_collision_model *cm, const kg_data *d, kg_collision_work *w, int link, double lo[3],
                double hi[3]);

/* The signed distance between the links of pair p at d's pose (after kg_fk),
 * for keeping them apart: the least over their shapes' pairs (hulls and
 * primitives, as kg_self_collisions without exact). Apart: GJK's distance
 * (analysis/gjk.h; to KG_GJK_RELATIVE, exact for spheres and capsules, and for
 * them still exact while only their radii overlap); intersecting: minus
 * libccd's MPR penetration depth (the deepest shape pair), pa and pb then a
 * depth apart about MPR's contact point. n (unit, world) points from link
 * pair_a[p]'s witness point pa towards pair_b[p]'s pb (world points on the
 * shapes when apart): moving link pair_b[p] along n increases the distance,
 * and always pb = pa + dist n.
 * Shape pairs whose world boxes are max_dist or more apart are not measured;
 * when all are (the links' boxes first), it returns 0 at the cost of a box
 * test. Returns 1 when dist < max_dist (dist, n, pa, pb filled), else 0 with
 * dist a lower bound of the distance, at least max_dist (the links' boxes'
 * gap when larger: a caller that bounds how fast links move learns when to
 * ask again), n, pa and pb not written. Places the two links' shapes in w once per pose (their
 * poses in d are compared with the last placed), so asking every watched
 * pair of one pose places each link once; the pair's last GJK simplex (of
 * the shapes that were nearest), else its last n, starts the next GJK, so a
 * distance depends on the pair's earlier calls by up to the tolerance
 * (kg_collision_work_tolerance). Allocates nothing. */
KG_API int kg_pair_distance(const kg_collision_model *cm, const kg_data *d, kg_collision_work *w, int p, double max_dist,
                     double *dist, double n[3], double pa[3], double pb[3]);

/* A lower bound on pair p's distance at the pose in d, cheaper than
 * kg_pair_distance: how far the plane normal to n (unit, world, pointing from
 * link pair_a[p] towards pair_b[p], as kg_pair_distance's n) separates the two
 * links' shapes (margins included): the least, over b's shapes, of their
 * extent along n, less the most of a's. Negative when that plane does not
 * separate them (the pair may still be apart). Two support queries a shape,
 * warm-started as GJK's are; no GJK. A caller carrying a pair's last
 * kg_pair_distance from pose to pose learns whether it is still at least a
 * margin apart without measuring it again. pa, pb (world; NULL: not wanted):
 * the points of a's and b's shapes the gap is measured between (the extreme
 * ones along n). Allocates nothing. */
KG_API double kg_pair_gap_along(const kg_collision_model *cm, const kg_data *d, kg_collision_work *w, int p,
                                const double n[3], double pa[3], double pb[3]);

typedef struct kg_acm_options {
    long max_samples;      /* default 1 000 000 when 0 */
    long first_round;      /* default 1 000 */
    long min_samples;      /* no early stop before this many (default 10 000) */
    uint64_t seed;
    int threads;
    double always;         /* fraction for "always" (default 0.95) */
    const double *q;       /* [nq] the rest pose and the value of what is not sampled (NULL: q_default) */
    kg_progress_fn progress; /* NULL, or told the samples drawn (within a round, estimated from
                              * the first thread's share) of max_samples, the most there can be
                              * (rounds may stop well before) */
    void *progress_user;
} kg_acm_options;

typedef struct kg_acm {
    long samples;
    int rounds;
    int npair;
    int *cls;              /* [npair] KG_PAIR_* */
    long *hits;            /* [npair] over the samples (0 for adjacent pairs: not sampled) */
    double *p_upper;       /* [npair] 95 % upper bound of the chance of a hit at a random pose */
    int nsampled;          /* coordinates sampled */
} kg_acm;

KG_API int kg_collision_matrix(const kg_model *m, const kg_collision_model *cm, const kg_acm_options *o, kg_acm *out);
KG_API void kg_acm_free(kg_acm *a);
KG_API const char *kg_pair_class_name(int cls);

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

typedef struct kg_check_options {
    /* Read mesh files (NULL: leave meshes alone, as a fast structural check
     * does; mesh-dependent checks are then skipped for links with meshes). */
    kg_mesh_cache *meshes;
} kg_check_options;

/* Adds the findings about m (and its motion mo, which may be NULL) to d.
 * Returns 0, or -1 when out of memory. */
KG_API int kg_check_model(const kg_model *m, const kg_motion *mo, const kg_check_options *o, kg_diags *d);

KG_END_DECLS

#endif
