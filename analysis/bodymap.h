/* Body parts of a humanoid skeleton or robot: which link is the pelvis, the
 * chest, the head, and each side's hip, knee, ankle, foot end, shoulder, elbow
 * and wrist, so that a motion-capture skeleton and a robot can be matched.
 *
 * Found by names, then structure. Knees and elbows are recognised by name (the
 * link's, or the joint's above it), in the naming of every skeleton family in
 * the corpus (CMU and its cgspeed and ASF forms, Mixamo with or without its
 * prefix, Bandai Namco, Rokoko, MocapBank, Reallusion) and of robots ("knee",
 * "shank", "elbow", "forearm", ...), twist and helper bones left out; the side
 * from "left"/"right", "l_"/"_l" and ASF's "l" prefix. The rest follows from
 * the tree: a hip is the child of the knees' common ancestor on the way to a
 * knee (the pelvis being that ancestor), the ankle the first link below the
 * knee named like a foot or ankle (else the next link), the foot end the
 * deepest link below it, and the same for shoulders, elbows and wrists; the
 * chest is the elbows' common ancestor. A robot whose knees or elbows have no
 * telling names gets them by structure: the two lowest leaves of the rest pose
 * are the feet, the two leaves farthest sideways above them the hands, and a
 * knee (elbow) is the link of the chain nearest the middle of hip and ankle
 * (shoulder and wrist). */
#ifndef KG_BODYMAP_H
#define KG_BODYMAP_H

#include "core/diag.h"
#include "core/model.h"

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
    int link[KG_NPART];      /* -1 when not found */
    const char *how[KG_NPART]; /* "name", "structure", "map" (given), or NULL */
    const char *family;      /* the skeleton's naming family ("cmu", "cmu_asf", "mixamo",
                              * "bandai_namco", "rokoko", "mocapbank", "reallusion", "robot",
                              * or "unknown") */
} kg_body_map;

/* Fills map from the model; parts already set (link >= 0, how "map") are kept.
 * Returns the number of parts not found (an error diagnostic names each; a
 * missing head is only a warning and not counted: it is optional). */
int kg_body_map_find(const kg_model *m, kg_body_map *map, kg_diags *d);

/* "pelvis", "left_knee", ...; -1 for an unknown name */
const char *kg_part_name(int part);
int kg_part_parse(const char *name);

#endif
