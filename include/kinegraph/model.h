/* kinegraph public API, model family: the model (one link/joint graph for every
 * format), its per-thread data, motions (frames of joint vectors) and the
 * diagnostics every reading and checking function reports into.
 *
 * Structs here are documented and stable: fields are added at the end, never
 * renamed or reordered within a major version. Fields the comments call
 * internal (kg_kin, kg_kin_axis: the forward kinematics' precomputed layout)
 * may change; do not use them.
 *
 * Memory: objects made by a *_new (or kg_load) are freed by the matching
 * *_free; a NULL argument to a *_free does nothing. Allocation failure: today
 * most of the library's set-up allocations abort the process (one policy,
 * "return an error", is still to do: issue 28); functions documented to
 * return NULL or -1 "when out of memory" do so. */
#ifndef KINEGRAPH_MODEL_H
#define KINEGRAPH_MODEL_H

#include <stddef.h>
#include "kinegraph/api.h"

KG_BEGIN_DECLS

/* Diagnostics: every problem found while reading or checking a model.
 *
 * A diagnostic has a severity, a stable code (dotted lower case, e.g.
 * "joint.axis_zero"; codes are part of the public contract and never change
 * meaning), a message for people, and where it comes from: file, line (0 when
 * unknown) and the element (XML tag or entity) concerned. */

typedef enum { KG_INFO = 0, KG_WARNING = 1, KG_ERROR = 2 } kg_severity;

typedef struct kg_diag {
    kg_severity severity;
    const char *code;    /* static string */
    char *message;
    char *file;          /* may be NULL */
    int line;            /* 1-based; 0 when unknown */
    char *element;       /* may be NULL */
} kg_diag;

typedef struct kg_diags {
    kg_diag *items;
    size_t count, cap;
    size_t limit;        /* further diagnostics are counted, not stored (0 = default) */
    size_t dropped;
} kg_diags;

/* How far a long computation has got, for a progress bar: done of at most
 * total units (samples, frames). Called from one thread at a time, now and
 * then (a few hundred times in all at most); user is the caller's pointer. */
typedef void (*kg_progress_fn)(void *user, long done, long total);

KG_API void kg_diags_init(kg_diags *d);
KG_API void kg_diags_clear(kg_diags *d);

KG_API void kg_diag_add(kg_diags *d, kg_severity sev, const char *code, const char *file, int line,
                 const char *element, const char *fmt, ...) KG_PRINTF(7, 8);

KG_API size_t kg_diags_count(const kg_diags *d, kg_severity sev);
KG_API const char *kg_severity_name(kg_severity sev);
/* How to fix what a diagnostic with this code reports (core/hints.c), or NULL. */
KG_API const char *kg_diag_hint(const char *code);

/* The kinegraph model: one link/joint graph for every input format.
 *
 * Like MuJoCo's mjModel, a model is a set of flat arrays built once and never
 * changed afterwards; everything that changes (joint values, poses, scratch
 * space) lives in kg_data (core/data.h), one per thread.
 *
 * Topology. Links are stored in topological order: link 0 is the root and every
 * link comes after its parent. Every non-root link has exactly one parent joint,
 * and joints are stored in the order of their child link, so joint j moves link
 * j + 1. Closed loops are cut at one joint: that joint (the cut joint) hangs a
 * massless *virtual link* from its parent, and the loop is closed by the
 * constraint that the virtual link coincides with its *real* link (Nakamura and
 * Yamane's representation of closed and structure-varying chains). So the graph
 * stored here is always a tree, and kg_loop lists the closures.
 *
 * Joint coordinates. Each joint owns nq consecutive entries of the joint vector q
 * starting at qadr: fixed 0, revolute/continuous/prismatic 1, planar 3 (x, y in
 * the plane normal to the axis, then the angle about it), floating 7 (x, y, z,
 * then a unit quaternion w, x, y, z), compound one per axis (see kg_axis). A
 * mimic follower's coordinate is computed from its leader (follower =
 * multiplier * leader + offset) before kinematics.
 *
 * Units are SI everywhere: m, rad, kg, kg m^2, N, N m, m/s, rad/s. */

typedef enum {
    KG_JOINT_FIXED = 0,
    KG_JOINT_REVOLUTE,
    KG_JOINT_CONTINUOUS,
    KG_JOINT_PRISMATIC,
    KG_JOINT_FLOATING,
    KG_JOINT_PLANAR,
    /* Several elementary axes applied in a given order after the origin:
     * T = origin * A_1(q) * ... * A_n(q), each A_k a rotation about or a
     * translation along a unit vector (a BVH joint's channels, a COLLADA joint
     * with several axes). */
    KG_JOINT_COMPOUND,
} kg_joint_type;

typedef enum { KG_AXIS_ROTATION = 0, KG_AXIS_TRANSLATION = 1 } kg_axis_kind;

typedef enum { KG_GEOM_BOX = 0, KG_GEOM_CYLINDER, KG_GEOM_SPHERE, KG_GEOM_MESH, KG_GEOM_CAPSULE } kg_geom_type;
typedef enum { KG_VISUAL = 0, KG_COLLISION = 1 } kg_geom_role;

/* Calibration flags (kg_joint.calibration) */
enum { KG_CAL_RISING = 1, KG_CAL_FALLING = 2, KG_CAL_REFERENCE = 4 };

typedef struct kg_inertial {
    double mass;       /* kg */
    double pos[3];     /* origin of the inertial frame (the COM) in the link frame */
    double rpy[3];     /* orientation of the inertial frame, as declared */
    double rot[9];     /* the same as a matrix */
    double inertia[6]; /* ixx ixy ixz iyy iyz izz about the COM, inertial-frame axes */
} kg_inertial;

typedef struct kg_link {
    const char *name;
    int parent;        /* parent link, -1 for the root */
    int joint;         /* joint from the parent, -1 for the root */
    int real;          /* for a virtual link: the real link it closes onto; else -1 */
    int loop;          /* for a virtual link: its loop; else -1 */
    int has_inertial;
    kg_inertial inertial; /* as declared (zero when has_inertial is 0) */
    /* Derived from `inertial`: what analyses use. Virtual links have zero mass. */
    double mass;       /* kg */
    double com[3];     /* COM in the link frame */
    double inertia[9]; /* about the COM, link-frame axes */
    int geom_first, geom_count; /* this link's geoms in model->geom */
    int line;          /* source line, 0 when unknown */
} kg_link;

typedef struct kg_joint {
    const char *name;
    kg_joint_type type;
    int parent, child; /* links */
    int qadr, nq;      /* coordinates in q */
    int nv;            /* degrees of freedom (floating: 6) */
    int vadr;          /* its velocity coordinates (nv of them) start here, among model->nv */
    int dofadr;        /* its Jacobian columns start here, among model->dof (the independent
                        * coordinates); -1 for fixed joints and mimic followers */
    double pos[3];     /* origin: child frame at zero in the parent frame */
    double rpy[3];
    double rot[9];
    double axis[3];    /* unit vector in the joint (child) frame; zero if declared zero */
    int has_limit;     /* position limits declared (on any joint type; see kg_joint_is_limited) */
    double lower, upper; /* rad or m; +-inf when absent */
    double effort, velocity; /* N or N m; m/s or rad/s; NAN when absent */
    double acceleration; /* m/s^2 or rad/s^2; NAN when absent (COLLADA motion axis_info) */
    int has_dynamics;
    double damping, friction;
    int has_safety;
    double soft_lower, soft_upper, k_position, k_velocity;
    int calibration;   /* KG_CAL_* flags of the values present */
    double cal_rising, cal_falling, cal_reference;
    int mimic;         /* index in model->mimic when this joint follows another; else -1 */
    int loop;          /* index in model->loop when this is a cut joint; else -1 */
    int axis_first, naxis; /* compound joints: their axes in model->axis, in application order */
    int line;
} kg_joint;

/* One elementary axis of a compound joint. Axes are applied in the order they are
 * stored; `coord` says which of the joint's coordinates drives each (BVH applies
 * position channels before rotations whatever their order in the file, and keeps
 * the file order for the coordinates). */
typedef struct kg_axis {
    int joint;
    kg_axis_kind kind;
    int coord;         /* offset within the joint's coordinates: q[qadr + coord] */
    double dir[3];     /* unit vector in the frame before this axis */
    double rest;       /* the coordinate's value in the rest pose (model->q_default) */
    int has_limit;     /* position limits of this coordinate (COLLADA multi-axis joints) */
    double lower, upper;
    const char *label; /* the coordinate's name within the joint, e.g. "Xrotation" */
} kg_axis;

typedef struct kg_mimic {
    int follower, leader; /* joints */
    double multiplier, offset;
    int line;
} kg_mimic;

typedef struct kg_loop {
    int cut_joint;     /* the joint whose child is the virtual link */
    int virtual_link;
    int real_link;     /* the link the virtual link must coincide with */
    /* The cycle, in order: the common ancestor of both ends, the tree path down to
     * the real link, then (across the cut joint) the path from the cut joint's
     * parent back up. joints[i] connects links[i] and links[(i + 1) % nlink]. */
    int nlink;
    const int *links;
    int njoint;        /* == nlink */
    const int *joints;
} kg_loop;

typedef struct kg_material {
    const char *name;
    int has_color;
    double rgba[4];
    const char *texture; /* as written, or NULL */
    int line;
} kg_material;

typedef struct kg_geom {
    int link;
    kg_geom_role role;
    kg_geom_type type;
    const char *name;  /* may be NULL */
    double pos[3], rpy[3], rot[9]; /* pose in the link frame */
    double size[3];    /* box: x y z; cylinder/capsule: radius length; sphere: radius */
    const char *mesh_uri;  /* mesh reference as written */
    const char *mesh_path; /* resolved file, or NULL when it did not resolve */
    const char *mesh_part; /* one geometry inside mesh_path (a COLLADA <geometry> id), or NULL
                            * for the whole file (see formats/mesh.h) */
    double scale[3];
    int material;      /* index in model->material, or -1 */
    int line;
} kg_geom;

/* Something the model keeps but does not interpret (URDF <transmission>, <gazebo>,
 * unknown top-level elements): exporters write it back verbatim. */
typedef struct kg_extra {
    const char *kind;  /* element name */
    const char *name;  /* its name or reference attribute, or NULL */
    const char *xml;   /* the element, serialised */
    int line;
} kg_extra;

/* A named frame on a link that tasks refer to (OpenRAVE manipulators: a tool
 * frame on the tip of a chain from a base link). */
typedef struct kg_end_effector {
    const char *name;
    int base, tip;        /* links: the chain's base (-1: the root) and the link carrying the frame */
    double pos[3], rot[9]; /* the frame in the tip link */
    double direction[3];  /* approach direction in that frame; zero when not given */
    int from_extra;       /* read from an <extra> the model also keeps verbatim */
    int line;
} kg_end_effector;

/* Two links whose collisions the model's file says to ignore (OpenRAVE
 * ignore_link_pair). */
typedef struct kg_link_pair {
    int a, b;
    int from_extra;
    int line;
} kg_link_pair;

/* Precomputed per-link constants for forward kinematics (internal layout). */
typedef struct kg_kin_axis {
    int kind, q;       /* q: absolute coordinate index */
    int aligned, ci, cj;
    double sign;
    double dir[3];
    double b1[9], b2[9]; /* [dir]x and [dir]x^2 for an axis that is not a coordinate axis */
} kg_kin_axis;

typedef struct kg_kin {
    int parent, type, qadr, rot_identity;
    int axis_first, naxis; /* compound joints: model->kin_axis */
    /* Revolute about a coordinate axis k of the joint frame (nearly every URDF):
     * R = (R_parent r0) Rot_k(sign q), which only mixes the columns ci and cj. */
    int aligned, ci, cj;
    double sign;
    double p0[3];      /* joint origin position */
    double r0[9];      /* joint origin rotation */
    double a0[3];      /* r0 * axis */
    double b1[9];      /* r0 * [axis]x   : r0 * Rot(axis, q) = r0 + sin(q) b1 + (1 - cos(q)) b2 */
    double b2[9];      /* r0 * [axis]x^2 */
    double u0[3], v0[3]; /* planar: r0 * (in-plane basis) */
} kg_kin;

typedef struct kg_model {
    const char *name;     /* robot name */
    const char *format;   /* "urdf", ... */
    const char *source;   /* file it was read from, or NULL */

    int nlink, njoint, nq, nv, dof;
    int nloop;            /* closed loops, each with one virtual link (links nlink - nloop are real) */
    int nmimic, ngeom, nmaterial, nextra;

    kg_link *link;
    kg_joint *joint;
    kg_mimic *mimic;      /* in evaluation order: leaders before followers */
    kg_loop *loop;
    kg_geom *geom;        /* grouped by link */
    kg_material *material;
    kg_extra *extra;
    kg_axis *axis;        /* [naxis] axes of the compound joints, grouped by joint */
    int naxis;
    kg_end_effector *end_effector;
    int nend_effector;
    kg_link_pair *collision_ignore;
    int ncollision_ignore;
    kg_kin *kin;          /* [nlink]; kin[0] unused */
    kg_kin_axis *kin_axis; /* [naxis] */
    int *angle_q;         /* [nangle] coordinates that are angles (their sincos is precomputed) */
    int nangle;
    double *q_default;    /* [nq] the rest pose: zero, identity quaternions for floating joints,
                           * and the axes' rest values for compound joints */
    int root_body;        /* the link whose pose is the body's root (trajectories); 0 unless the
                           * format has a static world above it (BVH: the ROOT joint's link) */

    void *mem;            /* the arena owning all of the above */
} kg_model;

KG_API void kg_model_free(kg_model *m);

/* Lookups by name; -1 when absent. Linear time: for set-up, not inner loops. */
KG_API int kg_model_link(const kg_model *m, const char *name);
KG_API int kg_model_joint(const kg_model *m, const char *name);
KG_API int kg_model_material(const kg_model *m, const char *name);

KG_API const char *kg_joint_type_name(kg_joint_type t);
/* Parse a URDF joint type name; returns -1 when unknown. */
KG_API int kg_joint_type_parse(const char *s);
KG_API const char *kg_geom_type_name(kg_geom_type t);
/* "visual" or "collision" (KG_VISUAL, KG_COLLISION); NULL for anything else
 * (kg_link_solid.role -1: no geometry). */
KG_API const char *kg_geom_role_name(int role);
/* Name of coordinate k of q: the joint's name for one-coordinate joints, else
 * "joint.label" (planar x, y, angle; floating x, y, z, qw, qx, qy, qz; compound
 * the axis label). Writes into buf (cut to size) and returns it. Trajectory
 * files name their columns so, whole and made unique ("#2", "#3", ... after a
 * name an earlier coordinate took: README, trajectory CSV). */
KG_API const char *kg_coord_name(const kg_model *m, int k, char *buf, size_t size);
/* The name of velocity coordinate c: its joint's name when the joint has one,
 * else kg_coord_name of the position coordinate at the same offset where the
 * joint has as many of each, else (a floating joint's twist) "joint.vx", ".vy",
 * ".vz", ".wx", ".wy", ".wz". Writes into buf (cut to size) when it builds one. */
KG_API const char *kg_velocity_name(const kg_model *m, int c, char *buf, size_t size);

/* Position limits that constrain motion: declared on a revolute or prismatic
 * joint (URDF gives other types' limits no meaning; they are kept, not used). */
static inline int kg_joint_is_limited(const kg_joint *j) {
    return j->has_limit && (j->type == KG_JOINT_REVOLUTE || j->type == KG_JOINT_PRISMATIC);
}

/* Joints that move and are not mimic followers, i.e. the model's independent coordinates. */
static inline int kg_joint_is_independent(const kg_model *m, int j) {
    return m->joint[j].nq > 0 && m->joint[j].mimic < 0;
}

/* Per-thread working state for one model (like MuJoCo's mjData): the joint
 * vector, the pose of the root, and the results of kinematics. A model can have
 * any number of kg_data; nothing in a kg_data is shared. */

typedef struct kg_data {
    const kg_model *model;
    double *q;           /* [nq] joint coordinates (see core/model.h) */
    double base_pos[3];  /* world pose of the root link; identity by default */
    double base_rot[9];
    double *link_pos;    /* [3 * nlink] world position of each link frame, after kg_fk */
    double *link_rot;    /* [9 * nlink] world rotation of each link frame (row-major) */
    double *sincos;      /* [2 * nq] scratch: sin and cos of the angular coordinates */
    double *twist;       /* [6 * nv] per velocity coordinate, its unit motion as a world twist:
                          * linear velocity of the point at the world origin, then angular
                          * velocity (analysis/jacobian.h fills it after kg_fk) */
} kg_data;

/* q starts at model->q_default (zero, identity quaternions). NULL when memory
 * is exhausted (the library's policy: an error, never an abort). */
KG_API kg_data *kg_data_new(const kg_model *m);
KG_API void kg_data_free(kg_data *d);

/* Sets the root's world pose from a position and a quaternion (w, x, y, z); the
 * quaternion is normalised. */
KG_API void kg_data_set_base(kg_data *d, const double pos[3], const double quat[4]);

/* follower = multiplier * leader + offset for every mimic coupling, in order. */
KG_API void kg_apply_mimic(const kg_model *m, double *q);

/* q += dt * v, v a velocity of the independent coordinates (model->dof values,
 * ordered as Jacobian columns, analysis/jacobian.h). Coordinates add; a
 * floating joint's rotation (columns 4-6: angular velocity in its joint frame)
 * composes with its quaternion, which stays unit. Mimic followers are then
 * recomputed. */
KG_API void kg_q_integrate(const kg_model *m, double *q, const double *v, double dt);

/* For every Jacobian column: the coordinate it moves (an index in q; -1 for the
 * rotation columns of floating joints) and its position limits (-inf/+inf
 * when it has none: continuous joints, unlimited axes, floating and planar
 * joints). Any of the arrays may be NULL. */
KG_API void kg_dof_coords(const kg_model *m, int *qidx, double *lower, double *upper);

/* A motion: frames of joint vectors for one model, sampled at a fixed rate.
 * Frame f's coordinates are q[f * nq ... f * nq + nq - 1], in the model's
 * coordinate order and units (rad; lengths in model units). When the root's
 * world pose is not part of q (a robot's floating base), `base` holds it per
 * frame as x, y, z, qw, qx, qy, qz; it is NULL otherwise. */

typedef struct kg_motion {
    int nframes, nq;
    double frame_time; /* s */
    double start_time; /* s: the time of frame 0 in the source (COLLADA keys need not start at 0) */
    double *q;
    double *base;
    size_t cap;        /* frames allocated */
} kg_motion;

/* NULL when memory is exhausted (as every allocating function of the library:
 * it returns an error, it does not abort). */
KG_API kg_motion *kg_motion_new(int nq, double frame_time, size_t reserve_frames);
KG_API void kg_motion_free(kg_motion *mo);
/* Appends a frame (copied); returns its pointer for filling when q is NULL.
 * Grows by a quarter at a time so memory stays close to the data. NULL when
 * memory is exhausted: the frame is not appended, the motion stays as it was. */
KG_API double *kg_motion_append(kg_motion *mo, const double *q);
/* Gives back unused capacity. */
KG_API void kg_motion_shrink(kg_motion *mo);
/* Loads frame f into d (q and, when the motion has it, the base pose). */
KG_API void kg_motion_pose(const kg_motion *mo, int f, kg_data *d);

/* mo (a motion of model m) low-passed in place at cutoff Hz, zero-phase:
 * every coordinate and the root's position through a second-order Butterworth
 * filter forwards and then backwards (gain 1 / (1 + (tan(pi f dt) / tan(pi
 * cutoff dt))^4) at frequency f: one half at the cutoff, zero at half the
 * frame rate), the ends padded by odd reflection (continued in a straight
 * line past the clip's length) until the filter's start has settled to 1e-9
 * (at most four clips' length: a cutoff whose period is longer than the clip
 * leaves its ends less exact); quaternions (the root's, floating joints')
 * filtered componentwise on one side of the sphere and normalised again;
 * mimic followers recomputed. For the rates of a captured or retargeted
 * motion (inverse dynamics of motion capture is done on a low-passed motion:
 * second differences of the raw frames amplify their jitter by 1 / dt^2).
 * Values are not clamped to joint limits. Returns 0 (a motion of fewer than 3
 * frames is left as it is), or, mo unchanged, -1 when cutoff is not a positive
 * number at most KG_LOWPASS_MAX_FRACTION of the frame rate (nearer half of it
 * the filter rings and hardly smooths; or so small the filter's coefficients
 * vanish in doubles), the frame time is not positive or mo does not fit m,
 * and -2 when memory runs out. */
KG_API int kg_motion_lowpass(const kg_model *m, kg_motion *mo, double cutoff);
#define KG_LOWPASS_MAX_FRACTION 0.4 /* kg_motion_lowpass's largest cutoff over the frame rate */

/* mo (a motion of model m) resampled to fps frames per second: frames at
 * t = start_time + k / fps up to the last frame's time, each coordinate
 * interpolated linearly between the two frames around t but the quaternions
 * (the root pose's in base, floating joints' w x y z in q), which are slerped
 * along the shorter arc; the mimic followers of an interpolated frame are then
 * recomputed from their leaders. A time within the frame time's precision of
 * a frame (1e-5 of t, at most 1 % of a frame: BVH writes 1/30 s as 0.0333333)
 * is that frame, copied bit for bit; so fps equal to the clip's rate gives the
 * same frames, and the last frame is kept where the grid reaches it. The
 * result has frame_time 1 / fps and mo's start_time. NULL when fps is not a
 * finite positive number, mo does not fit m, mo has several frames but no
 * positive frame time, or memory runs out. */
KG_API kg_motion *kg_motion_resample(const kg_model *m, const kg_motion *mo, double fps);
/* How many frames kg_motion_resample makes of mo at fps (what a caller checks
 * against its limits before asking), or -1 when it refuses fps or mo's frame
 * time. */
KG_API double kg_motion_resampled_frames(const kg_motion *mo, double fps);

KG_END_DECLS

#endif
