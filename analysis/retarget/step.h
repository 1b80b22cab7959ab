/* The frame's problem as the step's three files share it: step.c solves it,
 * costs.c adds the costs, constraints.c the rows. Internal. */
#ifndef KG_RETARGET_STEP_H
#define KG_RETARGET_STEP_H

#include "analysis/qp.h"
#include "analysis/retarget/internal.h"

/* The pelvis's speed (and the body's turn rate) is held by the planes of a
 * cube's 26 faces, edges and corners, each at root_speed (root_turn_speed) /
 * RT_ROOT_POLYTOPE: the largest |v| / max_n n'v
 * over unit v (1.12802 by a fine grid, rounded up), so that the polytope lies inside
 * the ball of root_speed (constraints.c hub_speed_rows). */
#define RT_ROOT_POLYTOPE 1.13

/* Most rows a step can have, beyond the ones counted from the model. */
#define RT_MAX_EQ 14        /* two planted feet held (6 rows each) and the COM on its reference (2),
                             * all met at once (the equalities approach() writes) */
#define RT_MAX_IN (24 + 8 + 32 + 4 + 6 + 40)
                            /* feet approaching their pins (two rows a component), soles' corners,
                             * soles' corners near the ground kept from sliding (four rows each),
                             * the COM approaching its reference (two rows an axis), the root's
                             * speed where the root is not at the pelvis (two rows an axis), the
                             * pelvis's speed and the body's turn (a row per edge and corner of a
                             * cube each); plus a
                             * row per foot shape (rr->nfoot_shape, nfoot_drawn) and one per shape of the body
                             * near the ground, two per closed loop's component
                             * and the tuning's collision_rows (rt_step_new) */

/* A watched pair as last measured: at frame `frame`, its links' motion bounds
 * summing to `moved`; its distance (reach when farther), normal and world
 * witness points then, and the witness points in their links' frames. */
typedef struct rt_near {
    int k;                     /* a watched pair near */
    double margin;             /* its distance beyond its safe one (m) */
} rt_near;

typedef struct rt_pair {
    int frame, near;
    double moved, dist, n[3], pa[3], pb[3], pa_link[3], pb_link[3];
    double gjk_moved;          /* the bounds' sum when GJK last measured it (moved: when it was last
                                * measured, by GJK or along its normal) */
} rt_pair;

/* x = [dp; dtheta; dq]: the root's displacement and turn (world axes, at the
 * pelvis: hub), then the driven joints' (rr->xcol: model column -> unknown). */
struct rt_step {
    const kg_retarget_robot *rr;
    const kg_model *m;
    kg_retarget_tuning t;
    int balance, avoid;
    double dt;
    kg_data *d;
    int nx, meq, min;          /* unknowns; most equality and inequality rows */
    double *H, *g, *x;         /* the costs: 1/2 x'Hx + g'x (H's upper triangle built) */
    double *C, *cd, *A, *b, *lb, *ub;
    int neq, nin;
    int *soft, nsoft;          /* [min] inequality rows whose bound was already passed: tried met
                                * (rhs the violation), else not further and corrected (step.c) */
    unsigned char *soft_kind;  /* [min] their kinds */
    double *J, *J2, *row;      /* [6 nx], [6 nx], [nx] scratch */
    double *dq;                /* [dof] a step's joint part in the model's columns (integrate) */
    double *Jcom, *scratch;    /* [3 dof] the COM's Jacobian, [4 nlink] */
    unsigned char *mark;       /* [nx] columns a task touches */
    int *cols;
    kg_qp_work *qp;
    int *hint, nhint;          /* the last solve's active set */
    double *q_prev, base_prev[12]; /* the previous frame's pose */
    double hub[3], hub_prev[3];  /* the pelvis now and at the previous frame: the root's twist is taken
                                 * there (x[0..2] moves it, x[3..5] turns the body about it), and the
                                 * root's speed limits bound its motion */
    double moved[3], turned[3];  /* the pelvis's move and the body's turn (a rotation vector) since the
                                 * previous frame, the frame's steps so far included (one_step; zero
                                 * without a previous frame): the speed limits' bounds and rows */
    int have_prev;
    double sole_prev[2][4][3]; /* each sole's corners at the previous frame's end (rt_sole_at) ... */
    double heading_prev[2];    /* ... and its foot's heading then (rt_heading) */
    unsigned char scuff[2];    /* each foot's sole corners get scuff rows: its lowest was within
                                * scuff_height of the ground at a frame's end since it last rose
                                * above scuff_release */
    double *q_prev2, base_prev2[12]; /* the frame before the previous one: the start's prediction */
    int have_prev2;
    double *q_best, base_best[12], merit_best; /* the frame's best iterate so far (iterate()) */
    double *q_end, base_end[12];  /* the frame's last iterate, while the best is tried */
    int clean[2];              /* the last two frames converged without slack: their change is a
                                * prediction; a frame that needed slack or stopped at the cap
                                * moved as far as its compromise took it */
    double *trust, *x_last;    /* [nx] each coordinate's trust region this step (a fraction of
                                * trust_angle or trust_length), and its last step */
    double com[3];
    kg_collision_work *cw;
    /* conservative advancement of the watched pairs: a link's cumulated motion
     * bound (travel plus turn times reach), and per pair the distance last
     * measured with its links' bounds then */
    double *link_moved, *link_pose; /* [nlink], [12 nlink] the poses the bounds were last updated at */
    double *capsule;           /* [6 nlink] each link's capsule's ends at the pose (world) */
    int *tracked, ntracked;    /* the links of the watched pairs, each once: the ones rt_track_links
                                * updates (the others' bounds and capsules are never read) */
    rt_pair *pairs;            /* [nwatch] */
    int *pair_links;           /* [2 nwatch] each watched pair's links */
    double *wake;              /* [nwatch] the sum of its links' motion bounds (link_moved) below
                                * which a far pair stays farther than collision_influence (by a
                                * hair, for rounding): -INFINITY when near or not yet measured.
                                * The scan of every pair every step reads only these */
    rt_near *near;             /* [nwatch] the step's near pairs */
    int frame;                 /* frames solved so far */
    int eval;                  /* evaluating the merit only (no Jacobians) */
    int collision_capped;      /* a step this frame left near pairs out (more than collision_rows) */
    double merit;              /* costs and weighted violations at the pose */
    double viol[KG_NSLACK];    /* each kind's largest violation at the step's pose (m, rad) */
};

/* Jacobians and points (step.c). */
void rt_point_jacobian(rt_step *w, int l, const double p[3], double *Jl, double *Ja);
int rt_part_point(const rt_step *w, int k, double p[3]);
/* The COM's rows (x, y, z) into J (3 x nx), all columns marked. */
void rt_com_rows(rt_step *w, double *J);
/* H += weight J'J, g -= weight J'e over k rows of J (stride nx), on the marked
 * columns (then cleared); the task's cost goes to the merit. In merit-only
 * mode nothing else is done. */
void rt_add_cost(rt_step *w, const double *J, const double *e, int k, double weight);
/* The same for one row a (its nonzero columns marked here): weight (a'x - e)^2 / 2. */
void rt_add_row_cost(rt_step *w, const double *a, double e, double weight);
/* Adds weight |e|^2 / 2 to the merit; 1 when only the merit is wanted. */
int rt_merit_only(rt_step *w, const double *e, int k, double weight);
void rt_clear_marks(rt_step *w);
/* Adds each link's motion since the last call to its cumulated bound. */
void rt_track_links(rt_step *w);

/* The costs of a frame (costs.c) and its rows (constraints.c). */
void rt_costs(rt_step *w, const rt_goal *g);
/* Resets the rows and w->viol; in merit-only mode adds the violations' costs. */
void rt_constraints(rt_step *w, const rt_goal *g);

#endif
