/* What the retargeting stages share (analysis/retarget/retarget.h says what
 * each stage does). Not part of the library's API. */
#ifndef KG_RETARGET_INTERNAL_H
#define KG_RETARGET_INTERNAL_H

#include "analysis/collision.h"
#include "analysis/zmp_window.h"
#include "kinegraph/retarget.h"
#include "core/data.h"

#define RT_G 9.80665

/* ---- the robot, prepared once (robot.c) ------------------------------------------------ */

/* One velocity coordinate on the path from the root to a link: the world
 * twist d->twist[6 vadr] moves the link, counted in Jacobian column col
 * times scale (a mimic follower's motion is its leader's, times the
 * multiplier). */
typedef struct rt_path_entry {
    int vadr, col;
    double scale;
} rt_path_entry;

struct kg_retarget_robot {
    const kg_model *model;
    kg_body_map map;
    int nx;                       /* unknowns of a step: 6 for the root, then the driven columns */
    int *xcol;                    /* [dof] each model column's unknown in a step, -1 when it is not
                                   * driven (held where the first frame set it, and left out of the
                                   * step: a hand's fingers doubled a step's unknowns) */
    double leg, arm;              /* hip-knee-ankle and shoulder-elbow-wrist lengths at rest (mean of sides) */
    double sole[2][4][3];         /* each sole's rectangle corners in its foot link's frame */
    double sole_mid[2][3];        /* ... and its middle */
    double sole_end[2][2][3];     /* each sole's inner front and back corner (RT_PIVOT_* - 1), foot frame */
    double foot_h[2];             /* the foot link's origin above its sole plane at rest */
    double ankle_h;               /* the ankles above the sole plane at rest */
    double foot_off[2][3];        /* the foot link's origin from the ankle's, in the foot's rest frame */
    int rolls_feet;               /* both legs can roll their feet (robot.c ankle_roll_check); else the
                                   * balance holds the COM forward and back only */
    double stand[9];              /* the base's turn at which the robot stands facing +x, z up (the
                                   * identity for a model built so); the rest measures below are taken
                                   * with it */
    double rest_rot[KG_NPART][9]; /* part links' rotations at rest (the robot stands facing +x) */
    double rest_pos[KG_NPART][3];
    double head_up[3];            /* the head link's up axis at rest, in its own frame */
    int elbow_link[2];            /* each arm's elbow: the child link of the joint that bends it (-1: none
                                   * found, robot.c elbows) ... */
    double elbow_axis[2][3];      /* ... its axis in that link's frame, signed so that the forearm turns
                                   * about it from the upper arm as the elbow bends within its range ... */
    int elbow_either[2];          /* ... unless it bends either way (as far, or nearly) */
    double com_h;                 /* the COM above the soles at rest */
    double sole_z;                /* the soles' plane at rest, the root at the origin */
    double com_off[3];            /* the COM from the pelvis at rest (world axes) */
    double *lower, *upper;        /* [dof] position limits per column (mimic followers' folded into their
                                   * leaders'); -+INFINITY where none */
    double *vmax;                 /* [dof] velocity limit per column: the file's; 0 where it gives none
                                   * (the tuning's default applies), INFINITY for a free joint */
    int *qidx;                    /* [dof] the coordinate a column moves (-1: a free joint's rotation) */
    unsigned char *driven;        /* [dof] a column between the root and a body part's link: the others
                                   * (fingers, a gripper) hold their neutral pose */
    double *neutral;              /* [nq] zero within limits */
    int *path_first, *path_count; /* [nlink] each link's path entries */
    rt_path_entry *path;
    kg_collision_model cm;        /* the meshes' hulls (exact: hits confirmed on the triangles), for the report */
    kg_collision_model coarse;    /* cm's coarse hulls, for the solver's distances */
    int have_cm;
    double *link_radius;          /* [nlink] how far a link's collision shapes reach from its origin */
    int *foot_shape[2], nfoot_shape[2]; /* each foot's collision shapes (its ankle link's and those below:
                                   * indices into cm and coarse alike) */
    unsigned char *is_foot_shape; /* [cm.nshape] a shape of either foot */
    kg_convex *foot_drawn[2];     /* a foot whose body (its link and those fixed to it) has no collision
                                   * shape: its visual geometry's hulls (link set), kept above the ground
                                   * as the foot's shapes are (the drawn foot is what a viewer and a
                                   * checker see) */
    int nfoot_drawn[2];
    double *foot_drawn_rest[2];   /* how far each reaches below the sole plane at rest (<= 0): it is kept
                                   * no deeper than that (as built, not the pose's doing) */
    unsigned char *ground_shape;  /* [cm.nshape] a shape kept above the ground besides the feet's: clear
                                   * of the soles' plane by sole_watch at rest (robot.c) */
    double *capsule;              /* [7 nlink] a capsule around each link's coarse shapes, link frame: the
                                   * segment's ends, then the radius (< 0: the link has none) */
    int nwatch;                   /* pairs kept apart: neither adjacent, declared nor touching at rest */
    int *watch;                   /* [nwatch] pair indices in cm */
    double *watch_rest;           /* [nwatch] their distances at the rest pose (m, coarse) */
    double seconds;               /* to prepare */
};

int rt_robot_setup(const kg_model *r, const kg_retarget_options *o, kg_retarget_robot *rr, kg_diags *dg);
void rt_robot_clear(kg_retarget_robot *rr);

/* ---- the source over the whole clip (source.c) ----------------------------------------- */

/* The points of a frame the robot follows, on its scale, in its world (x
 * forward at the first frame, z up, the ground at z = 0). */
typedef struct rt_frame_source {
    double kp[KG_NPART][3];       /* part positions: body and legs by the leg ratio, arms from the
                                   * shoulders by the arm ratio; heights from the local floor */
    double pelvis_R[9], chest_R[9]; /* body frames (x forward, y left, z up) */
    double foot_R[2][9];          /* each foot's frame (x along the foot, z up when flat) */
    double foot_yaw[2];           /* each foot's heading as the robot's foot link's are taken: its turn
                                   * from the link's rest turn (rt_heading of foot_R); held while the
                                   * foot is tilted more than heading_tilt from flat */
    double head_up[3];            /* unit: neck towards the top of the head (zero: no head) */
    unsigned char contact[2];     /* the foot is down (heel or toe, filtered) */
    unsigned char pivot[2];       /* a down foot turning on the ground: RT_PIVOT_* */
    unsigned char on_toes[2];     /* a down foot's heel up until it lifts off (the toes' contact only, at a
                                   * contact's end: the push-off) */
    unsigned char standing;       /* a foot planted: low and slow, before filtering, and not seated (the
                                   * report's hover reference) */
    unsigned char seated;         /* the pelvis near the floor (seat_height): sitting or lying on it */
    unsigned char slid[2];        /* a slide along the floor taken out of a contact (slide_length) */
    unsigned char cut;            /* a limb segment turned more than cut_angle since the frame before */
    double pin[2][4];             /* a down foot's planned pin: x, y, yaw of its link on the ground */
    double com_est[2];            /* the COM the source implies (x, y) */
    double com_ref[2];            /* the balance's COM reference (x, y) */
    double com_foreseen[2];       /* the reference had the final zmp_ref been known ahead (rt_balance_replay) */
    double zmp_src[2];            /* the cart-table ZMP of com_est (x, y) */
    double zmp_ref[2];            /* zmp_src moved into the support polygon: the balance's reference */
    kg_zmp_poly zmp_poly;         /* that polygon zmp_inside inside its edges (none: in the air or seated) */
    unsigned char uncaught;       /* the polygons ahead could not catch the balance's COM: its velocity changed */
} rt_frame_source;

typedef struct rt_source {
    int nframes;
    double dt;
    kg_body_map map;
    double align[9];              /* rows: forward, left, up in the source's coordinates */
    double origin[3];             /* the pelvis at frame 0 (source coordinates) */
    double leg, arm;              /* the source's lengths (its units) */
    double s_leg, s_arm;          /* robot over source */
    double foot_fix[2][9];        /* a flat foot's frame in its ankle link's frame */
    int foot_fixed[2];
    double foot_pitch[2];         /* the ankle-to-toe line's pitch when flat (no foot_fix) */
    rt_frame_source *f;           /* [nframes] */
} rt_source;

int rt_source_build(rt_source *s, const kg_model *src, const kg_motion *clip, const kg_retarget_options *o,
                    const kg_retarget_robot *rr, kg_diags *dg);
void rt_source_free(rt_source *s);

/* ---- support polygons (geometry.c) ------------------------------------------------------ */

/* The robot's soles' support polygon from feet at (x, y, yaw): corners,
 * counter-clockwise; returns their count (0: no foot down). */
int rt_support_polygon(const kg_retarget_robot *rr, const unsigned char down[2], const double pose[2][4],
                       double poly[8][2]);
/* Signed distance of x into a counter-clockwise convex polygon (> 0 inside),
 * and the point `margin` inside nearest x (the centroid when narrower). */
double rt_polygon_distance(const double (*p)[2], int n, const double x[2], double margin, double in[2]);
/* The distance between segments p0-p1 and q0-q1. */
double rt_segment_distance(const double p0[3], const double p1[3], const double q0[3], const double q1[3]);
/* Body part k's point (world) at the pose d; returns its link (-1: the robot
 * has no such part, p untouched). */
int rt_body_point(const kg_retarget_robot *rr, const kg_data *d, int k, double p[3]);
/* The lowest point (world) of shape k of collision model cm at the pose d
 * (its support along -z, margin included); returns its height. */
double rt_shape_lowest(const kg_collision_model *cm, const kg_data *d, int k, double p[3]);
/* The same of convex c on its link c->link. */
double rt_convex_lowest(const kg_convex *c, const kg_data *d, double p[3]);
/* The cart-table ZMP of one COM coordinate from its values h before and after. */
double rt_cart_table_zmp(double before, double c, double after, double h, double zc);
/* The same of a COM path's points b, c, e (x, y) into z (x, y). */
void rt_cart_table_zmp2(const double b[2], const double c[2], const double e[2], double h, double zc, double z[2]);

/* ---- one frame's solve (step.c) -------------------------------------------------------- */

/* A planted foot's pin: its link's pose on the ground. */
enum { RT_PIVOT_NONE = 0, RT_PIVOT_FRONT, RT_PIVOT_BACK };

/* A planted foot's pin: its link's pose on the ground; a pivoting foot keeps
 * only the point it turns on (pivot_at, world) and its sole flat. */
typedef struct rt_pin {           /* its fields but down mean nothing while it is not down */
    int down, pivot;
    int slide;                    /* flat on the ground, free to slide and turn on it (its height and tilt
                                   * held), pulled onto pos and R by a cost: the first frame's settling */
    double pos[3], R[9];
    double hold[3];               /* the point (in the foot link's frame) whose place the pin holds: the
                                   * sole corner that touched first (laid_flat), else the link's origin */
    double pivot_at[3];
    int roll;                     /* pushing off: the sole's front edge held (its middle at roll_at), the
                                   * foot free to pitch about it, heel up */
    double roll_at[3], roll_edge[3]; /* ... and the edge's direction in the foot link's frame */
    int f0;                       /* pivoting: the frame it was set down at, ... */
    double yaw, src_yaw;          /* ... the heading it was set down with, the source's foot's then */
} rt_pin;
/* The heading side's pivoting foot turns to at frame j: turned as the
 * source's foot turns, the difference it was set down with closing with time
 * constant pivot_catch_up. */
double rt_pivot_yaw(const rt_pin *p, const rt_source *s, int side, int j, const kg_retarget_tuning *t);
/* Where planted foot p (side's) stands now, flat (pos, R): its pin, or, turning
 * on it, the foot as d has it - a pivoting foot's pin keeps the pose it was set
 * down in, and a foot cleared of that one was moved off a sole no longer
 * there (by centimetres, then slid onto its pin). */
void rt_standing_pose(const kg_retarget_robot *rr, const kg_data *d, const rt_pin *p, int side, double pos[3],
                      double R[9]);

/* What a frame asks of the robot. */
typedef struct rt_goal {
    const rt_frame_source *src;
    rt_pin pin[2];
    double landing[2];            /* 0..1: how near a swinging foot is to landing (its weight rises) */
    double land_pos[2][3], land_R[2][9]; /* where it will land */
    double pivot_yaw[2];          /* a pivoting planted foot's heading (rt_pivot_yaw) */
    double pelvis_z;              /* the pelvis's height target (NAN: none) */
    double src_step[2];           /* each source foot's horizontal move since the frame before (the
                                   * farther of its ankle's and toe's, robot scale; m) */
    double shift[2];              /* the robot's footholds' offset from the source's (x, y): a swinging
                                   * foot aims at the source's plus this */
    int first;                    /* the first frame: no previous one, more iterations (from the neutral
                                   * pose when nothing was solved before) */
    const double *pull;           /* joint positions (nq) each driven joint is pulled to with pull_weight
                                   * (the catch-up after a cut: retarget.c); NULL: none */
    double pull_weight;
} rt_goal;

typedef struct rt_step_result {
    int iterations;
    int capped;                   /* the steps stopped at the cap, not converged */
    int collision_capped;         /* a step had more near pairs than collision_rows */
    int failed;                   /* steps the QP could not solve (the pose held) */
    int restarted;                /* the predicted start needed slack or the cap: solved again from
                                   * the last pose (iterations counts both) */
    double slack[KG_NSLACK];      /* each kind's violation left at the frame's end (m, rad) */
} rt_step_result;

typedef struct rt_step rt_step;
rt_step *rt_step_new(const kg_retarget_robot *rr, const kg_retarget_options *o, double dt);
void rt_step_free(rt_step *w);
/* The robot's state: its data (q, base, poses after a frame). */
kg_data *rt_step_data(rt_step *w);
/* The COM after the last frame. */
const double *rt_step_com(const rt_step *w);
/* The heights of foot side's lowest and highest sole corners after the last frame. */
void rt_step_sole_span(const rt_step *w, int side, double *low, double *high);
/* Solves one frame from the state the last one left (or the neutral pose at
 * the source's pelvis for the first). */
void rt_step_frame(rt_step *w, const rt_goal *g, rt_step_result *res);
void rt_step_seed(rt_step *w, const rt_step *from, int neutral);
double rt_step_merit(const rt_step *w);
double rt_step_joint_gap(const rt_step *a, const rt_step *b);
/* Whether a limb is stuck after the last frame: a thigh, shank, upper arm or
 * forearm more than `angle` (rad) off the source's direction in F while a joint
 * between the root and its lower end is at a position limit. */
int rt_step_stuck(const rt_step *w, const rt_frame_source *F, double angle);

/* ---- balance (balance.c) --------------------------------------------------------------- */

/* The balance's COM, run one frame at a time with the solve (analysis/zmp_window.h). */
typedef struct rt_balancer {
    kg_zmp_window zw;
    double c_prev[2], c[2], m[2]; /* the COM's last two samples; the window's multiplier */
    int N, on;                    /* window steps; balancing */
    double (*refs)[2];            /* [N] the window's references ... */
    const kg_zmp_poly **polys;    /* [N] ... and polygons */
    int landing[2];               /* a swinging foot's next landing frame, and ... */
    double moved[2][2];           /* ... how far its planned pin was moved for the references */
} rt_balancer;

/* The source's ZMP and the references in the planned polygons at every frame,
 * com_ref the COM estimate (all of it without balance), and the window
 * solve started. Returns 0, -1 after a diagnostic. */
int rt_balance(rt_source *s, const kg_retarget_robot *rr, const kg_retarget_options *o, rt_balancer *b,
               kg_diags *dg);
/* Frame f's com_ref, the pins of frame f set (landed: one was set at f; lag:
 * each swinging foot's horizontal miss of the source's foot at the frame
 * before; miss: how far each foot's last landing was from the source's
 * foothold moved by the shift): the references ahead moved into their
 * polygons, the window solved and the COM stepped on. */
void rt_balance_frame(rt_balancer *b, rt_source *s, const kg_retarget_robot *rr, const kg_retarget_tuning *t, int f,
                      const rt_pin pin[2], int landed, const double lag[2][2], const double miss[2][2],
                      const double shift[2]);
/* After the last frame: every frame's com_foreseen, the window solve started
 * (moving as the references ask) and run again on the final references and
 * polygons, the first frame's stance and every landing as the robot made
 * them (com_ref without balance). b's window is used as scratch. */
void rt_balance_replay(rt_balancer *b, rt_source *s);
void rt_balance_free(rt_balancer *b);

/* ---- geometry shared by the stages ------------------------------------------------------ */

/* The limbs' segments, each from its upper part to its lower, in the report's
 * segment order (kg_retarget_segment_name): left thigh, shank, upper arm,
 * forearm, then the right's. */
extern const int rt_limb_segment[8][2];

/* A joint this near a position limit is at it (rad, m): the solver meets its
 * bounds to rounding, so a joint held by one is within this. */
#define RT_AT_LIMIT 1e-3
/* Whether a driven joint between the root and link l is at a position limit in q. */
int rt_at_limit(const kg_retarget_robot *rr, const double *q, int l);

void rt_normalize(double v[3]);
/* A rotation from an x direction and a z hint (x kept, z made orthogonal). */
void rt_frame_xz(double R[9], const double x[3], const double z[3]);
/* A rotation from a y direction and a z hint (y kept). */
void rt_frame_yz(double R[9], const double y[3], const double z[3]);
/* The rotation about z by yaw, times R0. */
void rt_yaw_rot(double R[9], double yaw, const double R0[9]);
/* The heading (rad) of a frame: the turn about z of the pure turn about z
 * nearest it (continuous as the frame tilts; exact when it only pitches or rolls). */
double rt_heading(const double R[9]);
/* The corners of side's sole in the world, its foot link at pos turned by R. */
void rt_sole_at(const kg_retarget_robot *rr, int side, const double pos[3], const double R[9], double out[4][3]);
/* The pose (x, y, z, yaw of its link) of side's foot flat on the ground,
 * turned by yaw about the end of its sole (RT_PIVOT_*) held at `at`. */
void rt_pivot_pose(const kg_retarget_robot *rr, int side, int pivot, const double at[3], double yaw, double pose[4]);
/* v[0..n) with each run of nonzero entries shorter than L cleared. */
void rt_drop_short_runs(unsigned char *v, int n, int L);
/* Moves side's foot link at pos (turned by R) the least horizontal way that
 * leaves its sole gap or more from the other foot's (at opos, oR) on the
 * ground: the soles' rectangles overlap as the soles of feet set down there
 * would. Returns 1 when it moved it. */
int rt_sole_clear(const kg_retarget_robot *rr, int side, double pos[3], const double R[9], const double opos[3],
                  const double oR[9], double gap);
/* Moves side's foot at pos (turned by R) across the other foot's heading to
 * its own side of that foot's sole (at opos, turned by oR: the left foot to
 * its left), gap clear, when the two are beside each other (their extents
 * along that heading overlap by more than -gap) and its middle is not past
 * the other's (a crossing step is left to the collision rows). Returns 1 when
 * it moved it. */
int rt_sole_beside(const kg_retarget_robot *rr, int side, double pos[3], const double R[9], const double opos[3],
                   const double oR[9], double gap);

/* ---- the report (report.c) ---------------------------------------------------------------- */

/* Per frame, what only the solve knows. */
typedef struct rt_frame_log {
    double collision_depth;       /* the deepest overlap of a watched pair on the meshes (m; 0: none) */
    double slack[KG_NSLACK];
    int failed;
    int iterations, capped;       /* the solve's steps; stopped by the cap, not converged */
    int collision_capped;         /* near pairs left out of a step (more than collision_rows) */
    int catching;                 /* pulled onto the catch-up's pose (retarget.c catch_up) */
    int stuck;                    /* a stuck limb had a fresh solve tried here (1), which won (2) */
} rt_frame_log;

/* The figures of the whole clip from the output motion, the source and the
 * frames' logs (report.c). */
void rt_report(const kg_retarget_robot *rr, const rt_source *s, const kg_motion *out, const rt_frame_log *log,
               const kg_retarget_options *o, kg_retarget_report *rep);

double rt_now(void);
/* The calling thread's CPU time (s), NaN where the system cannot tell. */
double rt_cpu_now(void);

/* A window of `seconds` in frames of dt (rounded; up with round_up), at least lo
 * and at most 2 n + 16 for a clip of n frames, so that the count fits an int
 * and its arrays the clip whatever the tuning says (--tune floor_window=1e9
 * asked for 32 GB). For the windows that only look at frames (the floor's
 * percentile, a contact's speed and length, the landing's search) one
 * reaching the clip's length each way already sees all of it; the landing's
 * ramp (1 - j / (K + 1)) would differ, at lengths past any use. The balance's
 * preview window ends where its weights vanish instead (balance.c): past the
 * clip's end its ZMPs still differ. */
static inline int rt_window(double seconds, double dt, int n, int lo, int round_up) {
    double k = round_up ? ceil(seconds / dt) : floor(seconds / dt + 0.5), most = 2.0 * n + 16;
    if (!(k <= most)) k = most; /* NaN too */
    return k < lo ? lo : (int)k;
}

#endif
