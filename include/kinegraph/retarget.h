/* Motion retargeting: a motion-capture clip onto a humanoid robot, as one
 * constrained problem per frame.
 *
 * The stages, each in its own file of this folder:
 *   map.c      body parts found by structure (map.h): the two legs end lowest,
 *              the arms branch from the upper spine, names only break ties;
 *   robot.c    the robot prepared once: body parts (map.c), limb
 *              lengths, soles, velocity limits, the neutral pose, the
 *              collision shapes and the link pairs to keep apart;
 *   source.c   the clip at every frame in the robot's frame (x forward at the
 *              first frame, z up) and on its scale: the segment directions
 *              and body frames the robot copies, its floor tracked locally (a
 *              running low percentile of the feet, so a drifting or sloped
 *              capture floor neither lifts nor sinks the robot), heel and toe
 *              contacts from height and speed with hysteresis;
 *   balance.c  the COM reference: the source's cart-table ZMP moved into the
 *              support polygons (planned, then the robot's pins as its feet
 *              land) as the references of a window solve that keeps the ZMP
 *              inside the polygons ahead (analysis/zmp_window.h), stepped
 *              with the frames' solves;
 *   step.c     one frame: a few iterations of differential IK, each a
 *              quadratic program over the floating base's displacement and
 *              the joints' (analysis/qp.h): costs for the segment directions,
 *              body frames, swinging feet, hands and a pull to the
 *              previous frame and a neutral pose; hard constraints for joint
 *              position and velocity limits, root speed, planted soles fixed
 *              on the ground, swinging soles above it, link pairs kept apart
 *              (velocity dampers on their distances), and the COM on the
 *              balance's reference. A bound already passed is asked back within
 *              the step; where that cannot be met, it is only held (standing
 *              still meets every row then, so the problem has a solution) and a
 *              heavy cost corrects the violation (a bound passed, a target not
 *              reached): its slack, and the report says which kind gave and by
 *              how much.
 *              Nothing is repaired afterwards.
 *   report.c   the figures of the whole clip, computed from the output.
 *   retarget.c the driver: the stages above in order.
 * Every number the method uses is a field of kg_retarget_tuning, with its unit
 * and meaning below; none depends on a robot or a clip. (The report's bars -
 * 5 mm on the ground, 2 cm hover, 5 mm deep, 4 m/s - are the definitions of its
 * figures, in report.c.) */
#ifndef KG_RETARGET_H
#define KG_RETARGET_H

#include "kinegraph/bodymap.h"
#include "kinegraph/model.h"

KG_BEGIN_DECLS

/* Slack used, per kind of constraint that may give. */
enum {
    KG_SLACK_STANCE,    /* a planted sole off its pin */
    KG_SLACK_GROUND,    /* a swinging sole below the ground or sliding on it */
    KG_SLACK_COLLISION, /* a pair nearer than collision_safe */
    KG_SLACK_BALANCE,   /* the COM off the balance's reference (m) */
    KG_SLACK_LOOP,      /* a closed loop open */
    KG_NSLACK
};
KG_API const char *kg_slack_kind_name(int kind);

typedef struct kg_retarget_tuning {
    /* -- source: floor, contacts (lengths on the robot's scale) -- */
    double floor_window;        /* s: the floor under the feet at a frame is a low percentile of the
                                 * feet's heights over this many seconds either side (2) */
    double floor_percentile;    /* % of that window's heights below the floor (1) */
    double contact_height;      /* m: a heel or toe this near its resting level above the floor can
                                 * come down (0.04) */
    double contact_height_off;  /* m: once down, it stays down until higher than this (0.06) */
    double contact_speed;       /* m/s: and slower than this, horizontally (0.5) */
    double contact_speed_off;   /* m/s: once down, it stays down until faster than this (0.8) */
    double slide_speed;         /* m/s: a down foot whose heel and toe both move faster than this
                                 * slides (0.1) ... */
    double slide_length;        /* m: ... and a slide longer than this is no contact: the foot is drawn
                                 * along the floor (into a kneel, a stance changed), which the robot
                                 * steps instead, its foot flat and slide_clearance (m, 0.015) above
                                 * the ground at least (0: never, the default: at 0.05 the pose's bar
                                 * met on one run more and kneeling clips 10-20 degrees nearer, but
                                 * the extra steps left the ZMP outside on 8 runs more: BENCHMARKS) */
    double slide_clearance;     /* m: a stepped slide's foot (above), and a landing foot moved aside off
                                 * the other planted sole, keep at least this above the ground (0.015) */
    double min_contact_time;    /* s: contacts and gaps shorter than this are dropped (0.05) */
    double pivot_turn;          /* rad: a contact in which the source's foot turns more than this is
                                 * a pivot: the robot's foot turns with it on the edge of its sole
                                 * that moves least, toes or heel (0.35) */
    double speed_window;        /* s: speeds are central differences over this either side (0.02) */
    double pivot_catch_up;      /* s: a pivoting foot set down turned away from the source's turns as the
                                 * source's does, the difference closing with this time constant
                                 * (0.3; 0: onto the source's heading at once) */
    double heading_tilt;        /* rad: a source foot tilted more than this from flat has no heading
                                 * of its own (its axes' ground projections disagree): it keeps the
                                 * one it had when flatter (1.05, 60 degrees) */
    double cut_angle;           /* rad: a source limb segment (thigh, shank, upper arm, forearm) turning
                                 * more than this from one frame to the next is a cut (a T-pose frame
                                 * before the take, spliced takes): from there a second solve, from the
                                 * neutral pose and free of the last frame, finds the pose the robot
                                 * would take there, and the robot's joints are pulled to it (w_cut)
                                 * until each is within cut_tolerance (rad, m; 0.05) of it, or for
                                 * cut_time (s; 1) at most: followed greedily at its joints' speeds, an
                                 * arm swung the long way round onto its limits and stayed (1.2; the
                                 * corpus's fastest turn is 0.92 rad in a frame, a 30/s dance; 0: no
                                 * cuts) */
    double w_cut;               /* the pull's weight per joint (1) */
    double cut_tolerance;
    double cut_time;
    double stuck_angle;         /* rad: a limb (thigh, shank, upper arm, forearm) more than this off the
                                 * source's direction with a joint above it at a position limit is
                                 * stuck: the frame is then solved afresh as at a cut, and where that
                                 * does better the robot is pulled there as after a cut (followed frame
                                 * by frame from a T-pose, an arm rolled onto two shoulder limits
                                 * and stayed there for 10 s). 0: never (0.5) */
    double stuck_time;          /* s: a limb is stuck once it has been so for this long, and is solved
                                 * afresh at most once in this (0.5) */
    double stuck_gain;          /* a stuck limb's fresh solve is taken when its merit is at most this
                                 * fraction of the robot's start's (a tie is no way out) (0.5) */
    /* -- balance -- */
    double zmp_margin;          /* m: the ZMP reference is kept this far inside the planned support
                                 * polygon, or at its centre when narrower (0.09: a single sole's middle) */
    double zmp_step;            /* s: the ZMP is the cart-table model's on second differences of the
                                 * COM over this step (0.04); the constraint and the report use it */
    double zmp_replan;          /* m: a swinging foot's next contact is foretold where it is planned,
                                 * moved by the foot's miss of the source's times the fraction of
                                 * the swing done; its ZMP references are moved again when that
                                 * moves this much (0.005) */
    double preview_time;        /* s: the balance's window: the support polygons it looks ahead at (1) */
    double preview_r;           /* unused since the window solve (analysis/zmp_window.h) replaced the
                                 * preview controller, whose jerk weight it was; still accepted (1e-8) */
    double zmp_inside;          /* m: the balance keeps the ZMP this far inside the support polygon's
                                 * edges, or at its centre when narrower (0.005) */
    /* -- the frame's solve -- */
    int iterations;             /* QP steps per frame at most (8): fewer when a step moves nothing
                                 * more than step_tolerance */
    int first_iterations;       /* at the first frame, from the neutral pose (60) */
    double step_tolerance;      /* a frame stops when a step moves no coordinate more than this
                                 * (rad, m) (3e-3): the feet then drift by its square, the COM by
                                 * a fraction of a millimetre */
    double trust_shrink;        /* a coordinate whose step turns back on its last one has its trust region
                                 * multiplied by this, one that goes on the same way divided (0.5) */
    double trust_angle;         /* rad: the most a joint or the root turns in one step (0.1; 0.05
                                 * took 15 % more instructions for fewer bars met, 0.2 let feet slip) */
    double trust_length;        /* m: the most the root moves in one step (0.04): a step is a
                                 * linearisation, a planted foot held by it drifts by the square of
                                 * the step (0.3 rad steps left 3 cm, and the feet slid) */
    /* weights of the costs (a task's error squared, in rad or m) */
    double w_segment;           /* unit directions of thighs, shanks, upper arms, forearms, trunk (1) */
    double w_body;              /* pelvis and chest orientation (1) */
    double w_head;              /* the head's up direction (0.3) */
    double w_swing;             /* a swinging foot's position (10) and ... */
    double w_swing_turn;        /* ... orientation (1) */
    double w_landing;           /* a foot about to land: both, rising to this as it comes down (100) */
    double w_pivot;             /* a pivoting planted foot's heading, onto the source foot's turn (100) */
    double w_hand;              /* a hand relative to its shoulder on the robot's arm scale (0.3) */
    double w_elbow;             /* an elbow that bends one way only: its axis onto the normal of the
                                 * source's upper arm and forearm, signed the way it bends, times the
                                 * sine of the source's bend (0.1) */
    double w_com;               /* the COM (x, y) onto the source's estimate without balance (1000);
                                 * with balance the COM is held on the balance's reference by a row,
                                 * its miss weighed by w_slack[KG_SLACK_BALANCE] */
    double w_height;            /* the pelvis's height: the frame before's plus the source pelvis's rise
                                 * or fall (1) */
    double height_hold;         /* s: unless both feet stand, "the frame before's" is the frame before's
                                 * target, relaxing onto the pelvis with this time constant (0.3): a
                                 * swinging foot reaching for its landing pulled the pelvis down with
                                 * nothing to bring it back (1 m down after a high kick); 0: the
                                 * pelvis's own height, always */
    double w_previous;          /* each coordinate's pull to the previous frame, per frame: also what
                                 * damps the directions the tasks leave free (a hip's yaw beside the
                                 * pelvis' turn) so the steps converge (0.3) */
    double w_neutral;           /* and to the neutral pose: keeps the redundant joints (a shoulder's three
                                 * for an upper arm's direction) off the branches where limits trap them
                                 * (at 1e-4, shoulders sat at their pitch and roll limits for much of a
                                 * clip) (0.05) */
    double w_damping;           /* Levenberg-Marquardt damping of each step (1e-6) */
    double slack_least;         /* m or rad: a frame counts as needing a kind's slack when its violation
                                 * is larger (a planted foot is always off its pin by a few um) (1e-4) */
    double w_slack[KG_NSLACK];  /* a violated constraint's correction (its slack) weighs this, per kind
                                 * (KG_SLACK_*: stance 1e8, ground 1e6, collision 1e6, balance 1e5,
                                 * loop 1e6): the feet on the ground and links apart give last */
    /* limits */
    double joint_speed_default; /* rad/s or m/s for a joint whose file gives no velocity limit (8) */
    double root_speed;          /* m/s: the pelvis's largest speed, and the root link's where it is not at
                                 * the pelvis (4) */
    double root_turn_speed;     /* rad/s: the body's largest turning rate (12) */
    double limit_margin;        /* rad or m kept inside position limits (1e-6) */
    double sole_face;           /* m: a sole is the foot's shapes' lowest points within this of the lowest
                                 * (0.02) */
    double sole_lean;           /* a shape's lowest points are its supports along straight down and down
                                 * tilted this much (tan) towards the four horizontal diagonals: a box
                                 * gives its bottom corners, a sphere the point it stands on (its box's
                                 * corner is off the sphere, and a foot turned on such a corner slides
                                 * on the real sphere), a mesh its lowest vertices (0.1) */
    double roll_depth;          /* m: a pushing-off foot, rolling on its sole's front edge, keeps its
                                 * shapes no deeper than this below the ground: a sphere or a rounded
                                 * sole held at a point of its surface dips a fraction of a mm as it
                                 * rolls; a toe curving up ahead of a flat sole went centimetres in
                                 * (0.001) */
    double sole_tilt;           /* rad: a planted foot its leg cannot roll (no ankle roll) may roll on its
                                 * sole's side edge by this much, so that its leg leans: held flat, two
                                 * such feet planted narrower than the hips were stood on only with the
                                 * pelvis turned (0.3-0.4 rad), wider not at all (0.1; 0: held flat) */
    double w_sole_tilt;         /* such a foot's roll (rad) is pulled back to flat with this weight (a
                                 * limb direction's is w_segment): rolled only as far as it buys; with
                                 * the bound alone a walk's feet stood rolled to it on most frames (100) */
    double default_sole_back, default_sole_front, default_sole_half_width;
                                /* m: without collision or visual geometry under the ankle, a sole reaching
                                 * this far behind, in front of and to each side of the foot link's origin
                                 * (a warning says so) (0.08, 0.12, 0.05); such a foot pivots on that
                                 * origin, the one point of its sole the file gives */
    double sole_watch;          /* m: a swinging foot's sole corners, and its shapes' lowest points below
                                 * those, lower than this get ground rows (0.05) */
    double scuff_height;        /* m: a swinging sole within this of the ground gets scuff rows: its
                                 * corners move sideways faster than the source's foot only once lifted
                                 * above it (a small humanoid's foot released far from its target was
                                 * dragged along the floor, toes down) (0.006) */
    double scuff_release;       /* m: the scuff rows hold until the sole's lowest corner rises above this
                                 * or the foot is pinned (held one frame only, a lifted foot fell back
                                 * onto the ground and was lifted again) (0.012) */
    double scuff_time;          /* s: above scuff_height a corner may move its height above it over this
                                 * (m/s) faster than the source's foot: a cone (0.002; at 0.01 the solve
                                 * stalled at the cone's apex). 0: no scuff rows */
    double collision_safe;      /* m: the distance link pairs are kept apart (0.005) */
    double collision_influence; /* m: pairs nearer than this get a row: about what a step can close
                                 * (trust_angle on a metre of limb); at 0.03 a swinging shank passed
                                 * through the standing one in one step (0.06) */
    double collision_lookahead; /* m: a pair's distance is measured again only once its links may have
                                 * moved this far beyond collision_influence towards each other
                                 * (their origins' travel plus their turn times their reach): GJK on
                                 * every watched pair every step cost most of a frame (0.05) */
    double collision_remeasure; /* m: a near pair's distance is carried by its witness points (to first
                                 * order) until its links may have moved this far since measured (0.03) */
    double collision_replane;   /* m: a near pair due to be measured again is measured along the normal
                                 * GJK last found (two support queries a shape, a lower bound of its
                                 * distance) until its links may have moved this far since (0.1) */
    double collision_hull_width; /* m: the solver measures a mesh's hull without the vertices within this
                                 * of the hull of the others, swelled to hold them all (kg_convex_coarse):
                                 * its distances are lower bounds, at most about this under the mesh
                                 * hull's, at a fraction of the cost (0.002) */
    double collision_tolerance; /* m: pair distances are measured to within this (GJK stops there:
                                 * dense mesh hulls spend most iterations on digits a margin of
                                 * millimetres does not need) (1e-4) */
    int collision_rows;         /* the most watched pairs a step keeps apart, the nearest; a frame that had
                                 * more near is counted in the report (collision_capped_frames) (64) */
    double collision_gain;      /* the damper's xi: a step closes at most this fraction of the gap
                                 * beyond collision_safe (0.5) */
    double shift_fade;          /* s: a swinging foot aims at the source's foothold moved by the offset the
                                 * robot's own footholds took at its last landing (a robot that cannot
                                 * make a stride falls behind, and aimed at the source's footholds it only
                                 * stretched for them); that offset fades with this time constant, so a
                                 * robot that can catch up does (0: absolute footholds) (1) */
    double landing_time;        /* s: a swinging foot comes down onto the ground over this before the
                                 * source's foot lands (0.1) */
    double pin_height;          /* m: a foot the source puts down is pinned once the robot's sole is
                                 * at least this near the ground (pin_speed's distance when that is
                                 * farther), its whole sole (flat) and clear of the other planted sole
                                 * for up to landing_time after the source put it down; until then it
                                 * keeps landing (0.01) */
    double pin_speed;           /* m/s: a foot the source puts down is also pinned once its sole is as
                                 * near the ground as a foot coming down at this speed goes in a frame
                                 * (15 mm at 30 frames/s: a landing foot is a centimetre or two up the
                                 * frame before it would touch), up to pin_height_max (0.45) */
    double pin_height_max;      /* m: the most pin_speed's distance can be (a foot pinned far up is
                                 * dragged down by its pin's rows and slides) (0.02) */
    double sole_gap;            /* m: a foot set down is moved this far clear of the other's sole,
                                 * when the source's feet land nearer than the robot's soles allow;
                                 * a swinging foot passes a planted one this far to its side (0.01) */
    double leg_reference;       /* m: the leg (hip-knee-ankle) the person-sized lengths are given for:
                                 * contact_height, contact_speed and their _off values (the source is
                                 * scaled to this leg to find its contacts, so a clip has the same
                                 * contacts whatever the robot's size) and the assumed sole,
                                 * default_sole_* (scaled by the robot's leg over this). 0: both on the
                                 * robot's own scale (0.6: the legs of the humanoids these were set on;
                                 * a person's is about 0.85) */
    double predict;             /* 1: a frame's solve starts from the last frame's pose moved on by
                                 * this fraction of the last frame's change (joints within their
                                 * limits, the root's pose); the costs, bounds and pins still refer
                                 * to the last frame, so only the iterations change (fewer steps at
                                 * 30 frames/s, where a frame's change is several trust regions).
                                 * 0: start from the last pose (1) */
    double seat_height;         /* 1: the source is seated (sits or lies on its floor) while its pelvis
                                 * is lower than this many leg lengths above it, on the robot's scale:
                                 * the pelvis's height target is then the source's (relaxing onto it
                                 * over height_hold), the balance lets the COM follow the source's,
                                 * and the report leaves those frames out of hover and its balance
                                 * figures; 0: never (0.25) */
    /* the clips it takes (added after the fields above: a struct's new fields go at its end) */
    double position_max;        /* m: a clip whose body points go farther than this from the origin along
                                 * an axis (on the robot's scale) is refused (1e6): a double keeps about
                                 * 1e-16 of a number, so positions of 1e6 m keep 0.1 nm and the solve's
                                 * millimetres hold; a pelvis 1e202 m up left nothing of them (joint
                                 * limits broken). 0: no maximum (points that are not numbers are
                                 * refused whatever it is) */
    double frame_rate_max;      /* frames/s: a faster clip is refused (2000): the tuning's windows
                                 * (floor_window, preview_time, landing_time, ...) are counted in the
                                 * clip's frames, so a clip's memory and time grow with its rate;
                                 * resample one faster than this (motion capture records at up to 1-2
                                 * kHz). 0: no maximum (the windows, in frames, then grow with the rate) */
    /* the robot's feet */
    double sole_level;          /* rad: a foot whose sole (the largest face of its shapes facing down) is
                                 * this far or more off flat at the robot's rest pose is levelled by its
                                 * ankle's joints before its soles are measured, and starts so (0: never)
                                 * (0.05) */
} kg_retarget_tuning;

typedef struct kg_retarget_options {
    int balance;                /* the balance's COM reference, held by a row (1) */
    int avoid_self_collision;   /* link pairs kept apart (1) */
    double source_yaw;          /* turn the source about its up axis first, rad (tests) */
    const kg_body_map *source_map, *robot_map; /* parts given (how "map"), or NULL */
    const kg_link_pair *ignore_pairs; /* robot link pairs not to keep apart (an SRDF's disabled ones),
                                       * besides the model's own */
    int nignore_pairs;
    void *trace;                /* a FILE *: one CSV line per frame of what the solve saw and did
                                 * (see rt_trace in retarget.c), or NULL */
    kg_retarget_tuning tune;
    unsigned *frame_flags;      /* the caller's array of one entry per clip frame, or NULL: the report
                                 * sets there the KG_FRAME_* of each frame (the frames its counts
                                 * count), for timelines */
    int prepare_threads;        /* threads making the robot's collision shapes as it is prepared
                                 * (kg_collision_model_build_threads: the same robot whatever the
                                 * number): 1 (the default) this thread only; 0 one per core this
                                 * process may run on, at most KG_RETARGET_PREPARE_THREADS (the
                                 * command's choice) */
} kg_retarget_options;

#define KG_RETARGET_PREPARE_THREADS 8

/* What the report found at one frame (kg_retarget_options.frame_flags). Each
 * is the per-frame side of one of the report's figures and uses its
 * definition (analysis/retarget/report.c), so the frames flagged add up to
 * its counts: contact_frames, self_collision_frames, ... */
enum {
    KG_FRAME_CONTACT_LEFT = 1u << 0,   /* the source's left foot is down (its contact phases) */
    KG_FRAME_CONTACT_RIGHT = 1u << 1,
    KG_FRAME_SLIP = 1u << 2,           /* a sole on the ground, its source foot down, moved faster than
                                        * 2 cm/s since the frame before */
    KG_FRAME_PENETRATION = 1u << 3,    /* a foot's lowest point more than 5 mm below the ground */
    KG_FRAME_HOVER = 1u << 4,          /* counted in hover_percent */
    KG_FRAME_SELF_COLLISION = 1u << 5, /* counted in self_collision_frames */
    KG_FRAME_SELF_COLLISION_DEEP = 1u << 6,
    KG_FRAME_ZMP_OUTSIDE = 1u << 7,    /* counted in zmp_outside_percent */
    KG_FRAME_COM_OUTSIDE = 1u << 8,    /* counted in com_outside_percent */
    KG_FRAME_LIMIT = 1u << 9,          /* a joint outside its position limits */
    KG_FRAME_VELOCITY = 1u << 10,      /* a joint faster than its velocity limit since the frame before */
    KG_FRAME_ROOT_FAST = 1u << 11,     /* counted in root_fast_frames */
    KG_FRAME_SEATED = 1u << 12,        /* counted in seated_frames */
    KG_FRAME_HIPS_LOW = 1u << 13,      /* counted in hips_low_frames */
};
#define KG_NFRAME_FLAG 14
/* Flag 1 << k's name in the report's "timeline" ("contact_left", ..., "root_fast", "seated", "hips_low"). */
KG_API const char *kg_retarget_frame_flag_name(int k);


typedef struct kg_retarget_report {
    int frames;
    double frame_time;
    const char *source_family;
    double leg_scale, arm_scale;
    /* the root */
    double root_speed_max;                     /* m/s, between two frames */
    int root_fast_frames;                      /* faster than 4 m/s */
    double source_root_speed_max;              /* the source's pelvis, on the robot's scale */
    int source_root_fast_frames;
    /* limits: joint-frames outside position limits, and steps faster than velocity limits */
    int limit_violations, velocity_violations;
    /* the feet */
    int contact_phases;                        /* the source's, both feet */
    int contact_frames, double_support_frames; /* frames with one or two feet down */
    double penetration_max_mm;                 /* the lowest sole point below the ground, any frame */
    double slip_max_mm, slip_mean_mm;          /* per stance run: the horizontal travel of a sole on the
                                                * ground (within 5 mm) while the source's foot is down */
    int stance_runs;
    double float_max_mm;                       /* a down foot's lowest sole point above the ground */
    double hover_percent;                      /* of frames: the source stands on its floor but no robot
                                                * sole is within 2 cm of the ground */
    /* the pose: angles between the source's and the robot's segment directions, each in its
     * own heading frame (deg) */
    double pose_mean_deg, pose_p95_deg;
    double keypoint_mean_mm, keypoint_max_mm;  /* hips, knees, elbows, wrists from the source's points on
                                                * the robot's scale (a pose differs in proportions: mm) */
    double pose_segment_mean_deg[10];          /* per segment, kg_retarget_segment_name order (NAN:
                                                * not measured: no head) */
    double pose_off_percent;                   /* of segment-frames, those more than 20 deg off */
    double pose_held_percent;                  /* of those, the ones with a joint between the pelvis and
                                                * the segment within 1e-3 of a position limit: the robot
                                                * could not follow there (joint ranges below a person's) */
    double pose_segment_held_percent[10];      /* the same per segment (NAN: none off) */
    /* balance: the cart-table ZMP of the output's COM (zmp_step differences) */
    double zmp_outside_percent;                /* of frames with a foot down and the source not seated,
                                                * but the first and last zmp_step (no central
                                                * difference there) */
    double zmp_margin_min_mm;                  /* signed distance into the polygon (< 0: out) */
    double com_outside_double_percent;         /* of double-support frames, the source not seated: the
                                                * COM out of the polygon */
    double com_outside_percent;                /* of frames with a foot down, the source not seated */
    double com_margin_min_mm;
    /* self-collision of the watched pairs, on the meshes */
    int self_collision_frames;                 /* -1: no collision geometry */
    int self_collision_deep_frames;            /* deeper than 5 mm */
    double self_collision_depth_max_mm;
    /* slack: frames where each kind gave more than tune.slack_least, and the most it gave (m or rad) */
    int slack_frames[KG_NSLACK];
    double slack_max[KG_NSLACK];
    int qp_failures;                           /* steps the QP could not solve at all (the step is skipped) */
    double iterations_mean;                    /* QP steps per frame */
    int capped_frames;                         /* frames whose steps stopped at the cap (tune.iterations)
                                                * before they converged (step_tolerance) */
    int collision_capped_frames;               /* frames where a step had more watched pairs near than
                                                * tune.collision_rows: the others were not kept apart */
    int source_cuts;                           /* frames where the source jumps (a segment turning more
                                                * than tune.cut_angle since the frame before) */
    int catch_up_frames;                       /* frames the robot was pulled onto the pose a solve
                                                * started afresh at a cut or a stuck limb takes
                                                * (tune.w_cut) */
    int stuck_limbs;                           /* frames where a stuck limb (tune.stuck_angle) had
                                                * the frame solved afresh ... */
    int stuck_catch_ups;                       /* ... and of them, where that did better (a
                                                * catch-up began) */
    double seconds;                            /* in all */
    double setup_seconds;                      /* of which: the robot's preparation and the source's
                                                * clip-level stages */
    double robot_seconds;                      /* of which: preparing the robot; 0 when it came
                                                * prepared */
    double pose_slow_percent;                  /* of the segment-frames off (pose_off_percent), the ones
                                                * with a joint between the pelvis and the segment (none at
                                                * a position limit) moving within 1 % of its velocity
                                                * limit over the frame: the robot could not follow as fast */
    double pose_segment_slow_percent[10];      /* the same per segment (NAN: none off) */
    /* why the ZMP left the polygon (-1 without balance) */
    double zmp_outside_reference_outside_percent;          /* of the frames with the ZMP outside, those where the
                                                * balance's COM reference had its ZMP outside the
                                                * robot's polygon too (the robot followed a reference
                                                * that was out; the others: its COM left a reference
                                                * that was in; NAN: none out) */
    double zmp_outside_foreseen_percent;       /* the ZMP outside share of the COM the same
                                                * balance gives on the final references, every
                                                * landing known a preview_time ahead: what remains
                                                * once references moved late (a foot landing away
                                                * from where the balance foresaw it) are taken out */
    int balance_uncaught_frames;               /* frames whose support polygons ahead (preview_time)
                                                * could not catch the balance's COM, whatever their
                                                * ZMPs: its velocity was changed to what they can
                                                * (analysis/zmp_window.h; -1 without balance) */
    int seated_frames;                         /* the source sits or lies on its floor (seat_height):
                                                * left out of hover_percent and the balance figures */
    double hips_drop_max_mm;                   /* the most the robot's hips (their middle) were below the
                                                * source's, on the robot's scale (0: never below) */
    int hips_low_frames;                       /* frames where that was more than 0.3 leg lengths: the
                                                * robot fell or sank where the source did not (its feet
                                                * may still be clean on the ground) */
    double solve_cpu_seconds;                  /* the CPU time the calling thread spent after the setup
                                                * (seconds - setup_seconds of it on a core of its own):
                                                * what the solve costs one core, whatever else ran beside
                                                * it; 0 where the system cannot tell */
} kg_retarget_report;

/* The segments of the pose figures: left thigh, shank, upper arm, forearm,
 * the same on the right, then the trunk (the hips' middle to the
 * shoulders') and the head's up direction ("left_thigh", ...). */
#define KG_NSEGMENT 10
KG_API const char *kg_retarget_segment_name(int k);

KG_API void kg_retarget_defaults(kg_retarget_options *o);

/* The tuning's fields by name (analysis/retarget/tuning.c), for setting them
 * from outside: name as in the struct (w_slack's per kind: w_slack_stance,
 * ...), unit. */
typedef struct kg_tuning_field {
    const char *name;
    unsigned long offset;
    int is_int;
    const char *unit;
} kg_tuning_field;
KG_API const kg_tuning_field *kg_retarget_tuning_fields(int *n);
KG_API double kg_retarget_tuning_get(const kg_retarget_tuning *t, const kg_tuning_field *f);
/* Returns 0, -1 for an unknown name, -2 for a value it cannot take (not finite,
 * negative, or for a count not a whole number up to INT_MAX): t is then as it was. */
KG_API int kg_retarget_tuning_set(kg_retarget_tuning *t, const char *name, double value);

/* Retargets clip (frames of src) onto robot: out gets one frame per clip frame,
 * the robot's joint vector and its root pose (out->base). Returns 0, or -1
 * after error diagnostics (parts missing, out of memory). The same as
 * kg_retarget_robot_new, kg_retarget_prepared, kg_retarget_robot_free. */
KG_API int kg_retarget(const kg_model *src, const kg_motion *clip, const kg_model *robot, const kg_retarget_options *o,
                kg_motion **out, kg_retarget_report *report, kg_diags *d);

/* A robot prepared for retargeting: its body parts (o->robot_map: parts
 * given, or NULL), lengths, soles, collision shapes (meshes read and hulled:
 * most of the time it takes; coarse hulls of o->tune.collision_hull_width
 * for the solver) and the pairs to keep apart (less o->ignore_pairs). o NULL:
 * the defaults. Immutable once built: one prepared robot serves any number of
 * clips, on any number of threads, while robot (which it refers to) lives.
 * NULL after error diagnostics. */
typedef struct kg_retarget_robot kg_retarget_robot;
KG_API kg_retarget_robot *kg_retarget_robot_new(const kg_model *robot, const kg_retarget_options *o, kg_diags *d);
KG_API void kg_retarget_robot_free(kg_retarget_robot *rr);
/* How long kg_retarget_robot_new took (s). */
KG_API double kg_retarget_robot_seconds(const kg_retarget_robot *rr);
/* The robot's body map. */
KG_API const kg_body_map *kg_retarget_robot_map(const kg_retarget_robot *rr);
/* Side's sole (0 left, 1 right): the rectangle's corners in its foot link's
 * frame ((x, y) = (lo, lo), (hi, lo), (lo, hi), (hi, hi)), the one the
 * retargeting keeps on the ground; returns the foot link (the map's). */
KG_API int kg_retarget_robot_sole(const kg_retarget_robot *rr, int side, double corners[4][3]);
/* kg_retarget onto a prepared robot (o->robot_map and o->ignore_pairs are not
 * used: they are the prepared robot's). */
KG_API int kg_retarget_prepared(const kg_retarget_robot *rr, const kg_model *src, const kg_motion *clip,
                         const kg_retarget_options *o, kg_motion **out, kg_retarget_report *report, kg_diags *d);

KG_END_DECLS

#endif
