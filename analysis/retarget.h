/* Motion retargeting: a motion-capture clip onto a humanoid robot, within its
 * joint position and velocity limits, with planted feet and in balance.
 *
 * 1. Body parts of both (analysis/bodymap.h). The source's up axis is the one
 *    its pelvis-above-ankles direction points along over the clip; its facing
 *    at the first frame (from its hips) becomes the robot's +x, its pelvis
 *    there the origin: a clip that starts facing elsewhere gives the same
 *    motion. Lengths: legs and everything placed from the ground by the ratio
 *    of leg lengths (hip-knee-ankle), arms by the ratio of arm lengths from the
 *    shoulders; heights are measured from the source's ankle level and put at
 *    the robot's, so feet that rest on the ground rest on it.
 * 2. Contacts, per foot, on the source: the heel (ankle) within contact_height
 *    of its lowest level over the clip and slower than contact_speed (both in
 *    robot-scaled metres, horizontal speed), or, once down, the ball (toe)
 *    low and slow (a foot rolling off its toes is still down); phases shorter
 *    than min_contact_time are dropped, gaps shorter are filled. A planted foot
 *    is pinned flat where the source's ankle is slowest in the phase's first
 *    0.1 s, turned as it is there; a swinging foot follows the source, eased
 *    off the pin it left and onto the one it lands on over 0.1 s, raised so
 *    that no corner of its sole goes below the ground.
 * 3. Per frame, whole-body IK (analysis/ik.h) with the root floating, warm
 *    started from the previous frame, within position limits narrowed to what
 *    the velocity limits allow in one frame: planted feet (weight 1e4),
 *    swinging feet (100, rising to 1e4 as they land), hip centres and knees,
 *    pelvis and chest orientation, elbows, wrists and shoulders. Then the
 *    legs and the root's position (turning it only a little) in one solve:
 *    planted feet onto their pins (weight 1e4) and the COM onto the balance's
 *    target (1e3), a swinging foot held where it is relative to the root, or
 *    lifted in the world when its leg alone cannot take it out of the ground:
 *    the feet come first, the COM as exactly as the legs allow (the ZMP of a
 *    sampled COM magnifies a millimetre by a hundred). A foot landing where
 *    the robot's legs cannot put it (a stance wider than they span) is pinned
 *    where it came down; one more than 0.1 m from its pin, or one the legs
 *    cannot hold there, keeps swinging (it lands when it gets there). A frame
 *    that leaves a planted foot off its pin or a sole below the ground has its
 *    legs and root solved again from the previous frame's.
 * 4. Balance: the ZMP of the source's motion (its COM estimated from the
 *    pelvis) by the cart-table model, moved into the support polygon (shrunk
 *    by zmp_margin) wherever a foot is down, and the COM estimate itself in
 *    the air (no horizontal force), is the reference of a preview controller
 *    (analysis/preview.h; on the ZMP of the sampled COM when the report's
 *    difference step is one frame) whose COM trajectory the IK follows,
 *    clamped into the polygon on double-support frames. The controller starts
 *    at the first frame's estimate with the velocity and acceleration that
 *    suit the references ahead (a clip starts in mid-motion).
 * 5. Self-collision: after the whole-body solve, link pairs apart at rest
 *    (neither adjacent nor declared) found in penetration (analysis/collision.h:
 *    convex hulls, hits confirmed on the meshes) are pushed apart: the deepest
 *    overlap's point on one link moved out of the other by the depth plus
 *    5 mm, in the other's frame, solved over the joints between the two but
 *    the legs' (which the feet need), before the legs' solve of step 3. A pose
 *    still overlapping moves back towards the frame before's (retreat(), then
 *    fall_back() in retarget.c) where the feet and the balance allow.
 * The clip is processed as a stream with a look-ahead of the preview time plus
 * the contact filter: working memory does not grow with the clip's length. */
#ifndef KG_RETARGET_H
#define KG_RETARGET_H

#include "analysis/bodymap.h"
#include "core/motion.h"

typedef struct kg_retarget_options {
    double contact_height;   /* m, robot-scaled (default 0.04) */
    double contact_speed;    /* m/s (default 0.5) */
    double min_contact_time; /* s (default 0.05) */
    double margin;           /* support polygon margin for the COM on double support, m (default 0.01) */
    double zmp_margin;       /* the ZMP reference is kept this far inside the support polygon, or at
                              * its centre when it is narrower, m (default 0.05): the preview's
                              * tracking error at a change of feet is a few cm */
    double preview_time;     /* s (default 1.0) */
    int iterations;          /* IK iterations per frame and pass (default 8) */
    int balance;             /* the preview-control pass (default 1) */
    int avoid_self_collision; /* push pairs in penetration apart (default 1) */
    double source_yaw;       /* turn the source about its up axis first, rad (for tests) */
    const kg_body_map *source_map, *robot_map; /* parts given (how "map"), or NULL */
    const kg_link_pair *ignore_pairs; /* robot link pairs not to check for self-collision (an
                                       * SRDF's disabled ones), besides the model's own */
    int nignore_pairs;
} kg_retarget_options;

typedef struct kg_retarget_report {
    int frames;
    double frame_time;
    const char *source_family;
    double leg_scale, arm_scale;
    double keypoint_mean_mm, keypoint_max_mm;  /* robot keypoints against their scaled targets */
    int contact_phases;
    int narrowed_stances;                      /* phases whose pin was moved toward the other foot's:
                                                * the source stood wider than the robot's ankles
                                                * allow with flat soles */
    int widened_stances;                       /* phases whose pin was moved out beside the other
                                                * foot's: the source set a foot nearer the other
                                                * (or across it) than the robot's legs stand clear */
    int delayed_landing_frames;                /* frames where a foot the source puts down kept
                                                * swinging: it was over LAND_REACH (0.1 m) from its
                                                * pin, or the legs could not hold it there with the
                                                * other foot (not counted as contact) */
    double slip_max_mm, slip_mean_mm;          /* horizontal travel of a planted sole per phase */
    double penetration_max_mm;                 /* a sole corner below the ground */
    double float_max_mm;                       /* a planted sole above it */
    int limit_violations, velocity_violations; /* joint-frames */
    int self_collision_frames;                 /* frames where a pair apart at rest (neither adjacent
                                                * nor declared) still overlaps, by 10 um or more
                                                * on the hulls, its meshes touching (cm.exact);
                                                * -1: no collision geometry */
    double self_collision_depth_max_mm;        /* the deepest such overlap */
    int self_collision_pushed_frames;          /* frames where such a pair was found and pushed apart */
    int self_collision_retreat_frames;         /* frames where the pushes left a pair overlapping
                                                * and the joints between moved back towards the
                                                * frame before's */
    int self_collision_fallback_frames;        /* frames where one still overlapped and the whole
                                                * pose (root and legs too) moved back towards the
                                                * frame before's, as far as it took */
    int self_collision_turned_frames;          /* frames where one still overlapped with a foot down
                                                * and the root was turned upright, towards the
                                                * feet's heading (turn_root) */
    int self_collision_whole_body_frames;      /* frames where one still overlapped and the whole
                                                * body, root and planted legs too, was pushed
                                                * (push_all) */
    int contact_frames, double_support_frames;
    double com_margin_min_mm;                  /* signed distance into the support polygon (< 0: out) */
    double com_outside_percent;                /* of contact frames */
    double com_outside_double_percent;         /* of double-support frames */
    double zmp_margin_min_mm;
    double zmp_outside_percent;                /* of contact frames */
    double seconds;                            /* in all */
    double setup_seconds;                      /* of which: the robot's preparation and the
                                                * source's levels */
    double robot_seconds;                      /* of which: preparing the robot (its collision
                                                * shapes: meshes read and hulled); 0 when it came
                                                * prepared (kg_retarget_prepared) */
} kg_retarget_report;

void kg_retarget_defaults(kg_retarget_options *o);

/* Retargets clip (frames of src) onto robot: out gets one frame per clip frame,
 * the robot's joint vector and its root pose (out->base). Returns 0, or -1
 * after error diagnostics (parts missing, out of memory). The same as
 * kg_retarget_robot_new, kg_retarget_prepared, kg_retarget_robot_free. */
int kg_retarget(const kg_model *src, const kg_motion *clip, const kg_model *robot, const kg_retarget_options *o,
                kg_motion **out, kg_retarget_report *report, kg_diags *d);

/* A robot prepared for retargeting: its body parts (map: parts given, or
 * NULL), lengths, soles, collision shapes (meshes read and hulled: most of the
 * time it takes) and the pairs to watch. Immutable once built: one prepared
 * robot serves any number of clips, on any number of threads, while robot
 * (which it refers to) lives. NULL after error diagnostics. */
typedef struct kg_retarget_robot kg_retarget_robot;
kg_retarget_robot *kg_retarget_robot_new(const kg_model *robot, const kg_body_map *map, const kg_link_pair *ignore,
                                         int nignore, kg_diags *d);
void kg_retarget_robot_free(kg_retarget_robot *rr);
/* How long kg_retarget_robot_new took (s). */
double kg_retarget_robot_seconds(const kg_retarget_robot *rr);
/* kg_retarget onto a prepared robot (o->robot_map and o->ignore_pairs are not
 * used: they are the prepared robot's). */
int kg_retarget_prepared(const kg_retarget_robot *rr, const kg_model *src, const kg_motion *clip,
                         const kg_retarget_options *o, kg_motion **out, kg_retarget_report *report, kg_diags *d);

#endif
