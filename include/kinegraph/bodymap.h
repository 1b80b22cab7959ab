/* Body parts of a humanoid skeleton or robot: which link is the pelvis, the
 * chest, the head, and each side's hip, knee, ankle, foot end, shoulder, elbow
 * and wrist, so that a motion-capture skeleton and a robot can be matched.
 *
 * Found by structure, at a pose; names only break the ties that structure and
 * the pose leave (so a model whose every link is called "j12" maps the same):
 *
 * - Limbs. A limb is a chain hanging from the trunk whose side branches
 *   (fingers, toes, twist bones, sensors) are short beside it; the legs and the
 *   arms are the two longest pairs of mirror limbs (sibling limbs of nearly one
 *   length). A model without two such pairs is not a humanoid.
 * - Legs and arms. At a standing pose the legs hang below their roots (within
 *   60 degrees of down), end below the arms, and the chest, not the pelvis,
 *   carries the longer other branch (the head: else it is a handstand). When
 *   the pose does not stand (a rest pose with every bone along one axis), the
 *   legs are the pair that branches nearer the root; failing that, the pair
 *   whose names say leg. Four limbs that point one way, across the line between
 *   the pairs' roots, make a quadruped: not a humanoid.
 * - Along a limb, lengths are arc lengths (bone by bone, the same in any pose).
 *   The knee (elbow) is the joint that bends the limb (a one-axis joint whose
 *   axis lies across the limb, or a ball joint) nearest the middle of hip and
 *   ankle (shoulder and wrist). The hip (shoulder) is the last bending joint at
 *   least 0.6 of the shank's (forearm's) length above the knee: of a robot's
 *   yaw-roll-pitch chain at the top of the thigh, the last joint across it; not
 *   a yaw joint partway down the thigh, nor a clavicle. The ankle (wrist) ends
 *   the longest segment between the knee and the first fork of toes or fingers
 *   (a twist joint there hands over to the next bending one); an arm without a
 *   wrist link ends at the far end of its last link's geometry (point[]). The
 *   foot end is the toe joint (the ball of the foot) when the foot has one,
 *   else the deepest link of the foot. Where several links share a part's point
 *   (a robot's two or three one-axis joints at one place), the part is the
 *   first of them that bends.
 * - Pelvis and chest are where the legs and the arms branch; the head is the
 *   heaviest link of the chest's heaviest other branch (without masses, as in
 *   a skeleton: the top joint of its longest other branch, before the face).
 * - Left and right. Up runs from the hips to the shoulders; forward is where
 *   knees that bend one way only (a robot's joint limits) move the ankles away
 *   from, else where the feet reach ahead of the ankles and the knees bend; the
 *   left hip and shoulder lie on the side of up x forward. A pose that does not
 *   stand or show forward leaves the sides to names ("left", "L_", "_l", ...),
 *   and failing those to a guess (warning "retarget.side_guessed"). */
#ifndef KG_RETARGET_MAP_H
#define KG_RETARGET_MAP_H

#include "kinegraph/model.h"

KG_BEGIN_DECLS

enum {
    KG_PART_PELVIS,
    KG_PART_CHEST,
    KG_PART_HEAD,
    KG_PART_HIP_L, KG_PART_KNEE_L, KG_PART_ANKLE_L, KG_PART_FOOT_L,
    KG_PART_SHOULDER_L, KG_PART_ELBOW_L, KG_PART_WRIST_L,
    KG_PART_HIP_R, KG_PART_KNEE_R, KG_PART_ANKLE_R, KG_PART_FOOT_R,
    KG_PART_SHOULDER_R, KG_PART_ELBOW_R, KG_PART_WRIST_R,
    KG_NPART
};

typedef struct kg_body_map {
    int link[KG_NPART];         /* -1 when not found */
    double point[KG_NPART][3];  /* the part's point in its link's frame: zero (the link's
                                 * origin) but for a wrist on the elbow's own link */
    const char *how[KG_NPART];  /* "structure", "name" (names broke a tie), "map" (given), or NULL */
    const char *why[KG_NPART];  /* a short reason, e.g. "the bend nearest the middle of hip and
                                 * ankle; side from the pose" (static text), or NULL */
    const char *family;         /* the skeleton's naming family ("cmu", "cmu_asf", "mixamo",
                                 * "bandai_namco", "rokoko", "mocapbank", "reallusion", "poser",
                                 * "robot", or "unknown"); told, not used */
} kg_body_map;

/* Fills map at the pose q (model->nq values, e.g. a clip's frame where the body
 * stands; NULL: the rest pose). Parts already set (link >= 0, how "map") keep
 * their link and point (a map entry may give {"link", "point"}).
 * Returns the number of parts not found: an error "retarget.part_missing"
 * names each (a missing head is only a warning and not counted: it is
 * optional); a model that is not a humanoid gets one error
 * "retarget.not_humanoid" saying why instead, and sides that neither the pose
 * nor names tell a warning "retarget.side_guessed". */
KG_API int kg_body_map_find_at(const kg_model *m, const double *q, kg_body_map *map, kg_diags *d);

/* The same at the rest pose (model->q_default). */
KG_API int kg_body_map_find(const kg_model *m, kg_body_map *map, kg_diags *d);

/* The same at a clip's first frame, the whole clip telling roll bones: a ball
 * joint (a skeleton's) whose bone in and bone out stay in line (within about
 * 1.5 degrees) at every one of up to 200 frames sampled over the clip, the
 * limb going on beyond it at least as far as the straight run of bones before
 * it, is a twist or roll bone partway along a limb (a rig's ThighTwist,
 * ForearmRoll): the shank or forearm goes on through it to the ankle or wrist
 * (at one frame such a bone ends them, and the parts are wrong). */
KG_API int kg_body_map_find_clip(const kg_model *m, const kg_motion *clip, kg_body_map *map, kg_diags *d);

/* "pelvis", "left_knee", ... (NULL for no part); kg_part_parse: the part, or -1
 * for an unknown name */
KG_API const char *kg_part_name(int part);
KG_API int kg_part_parse(const char *name);

KG_END_DECLS

#endif
