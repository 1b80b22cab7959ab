/* Shared by the files of the COLLADA importer (not a public interface):
 *   collada.c        the document, kinematics models, articulated systems, physics
 *   collada_scene.c  visual scenes: geometry and materials bound to links
 *   collada_skeleton.c  node trees (COLLADA 1.4 skeletons, static scenes) and
 *                    their animations as a model and a motion
 * See collada.c for the conventions. */
#ifndef KG_IMPORTERS_COLLADA_H
#define KG_IMPORTERS_COLLADA_H

#include "core/builder.h"
#include "core/motion.h"
#include "core/strmap.h"
#include "formats/limits.h"
#include "formats/resolve.h"
#include "kinegraph/io.h"
#include "formats/xml.h"

#define MAX_AXES 6

typedef struct pose {
    double r[9], p[3];
} pose;

typedef struct cjoint { /* a joint definition */
    xmlNodePtr node;
    const char *name;
    int naxis;
    struct {
        int prismatic, has_limit;
        double dir[3], min, max; /* SI */
        const char *sid;
    } axis[MAX_AXES];
} cjoint;

typedef struct jinst { /* a joint as the kinematics model uses it */
    const char *sid;   /* the sid attachments refer to */
    const cjoint *def;
    char *name;        /* unique model joint name */
    kg_joint *made;    /* the builder's joint, once attached */
    int uses;
    /* loop ends */
    char *start_link, *end_link;
    pose start, end;
    int start_line, end_line;
    /* articulated system */
    const char *kaxis_sid; /* the kinematics axis_info sid (motion axis_info refers to it) */
    int active, locked;
} jinst;

typedef struct cd {
    kg_xml x;
    const char *file;
    kg_diags *d;
    kg_builder *b;
    double unit;        /* metres per unit */
    kg_strmap ids;      /* id -> index in idnodes */
    xmlNodePtr *idnodes;
    int nids, capids;
    kg_strmap params;   /* <newparam> sid -> index in paramnodes (the first in document order) */
    xmlNodePtr *paramnodes;
    int nparams, capparams;
    kg_strmap joint_sids; /* joint sid -> index in joints (the first) */
    cjoint **defs; /* each allocated once: jinst points at them */
    int ndefs, capdefs;
    jinst *joints;
    int njoints, capjoints;
    kg_strmap link_names; /* our link names -> index in links (and keeps them unique) */
    struct {
        const char *name, *sid;
        kg_link *link;
        int parent;    /* index in links, -1 for the root */
        int drawn;     /* a visual-scene node has been bound to it */
    } *links;
    int nlinks, caplinks;
    int forest;        /* the kinematics model has several root <link>s */
    const char *world; /* the static link holding the roots (placed or several), once made */
    const kg_load_options *o;
    struct {
        xmlNodePtr node;
        kg_material *made;
    } *materials;      /* COLLADA <material>s read so far */
    int nmaterials, capmaterials;
    char **owned;
    int nowned, capowned;
} cd;


/* helpers (collada_common.c) */

/* Out of memory. An allocation that fails marks the document (c->x.oom, as
 * kg_xml_attr does; kg_import_collada then fails with io.memory, dropping the
 * diagnostics made since) and the reader goes on without what it could not
 * keep, checking nothing more: so every step stays safe to run on, and only
 * what would crash checks. */
void *cd_oom(cd *c);                          /* marks c; NULL */
/* Room for element n of the array *p (*cap elements of `size` bytes, NULL when
 * *cap is 0): *cap doubles when n reaches it (appending one element a realloc
 * copied the whole array every time). 0, or -1 (marked; *p as it was). */
int cd_grow(cd *c, void **p, int n, int *cap, size_t size);
void cd_put(cd *c, kg_strmap *m, const char *key, int value); /* kg_strmap_put, marked on failure */
const char *cd_own(cd *c, char *s);          /* c frees s at the end; s NULL or not kept: "" (marked) */
const char *cd_strdup(cd *c, const char *s); /* a copy owned by c, or "" (marked) */
const char *cd_cat(cd *c, const char *a, const char *b); /* a then b, owned by c, or "" (marked): names have
                                                          * no length limit, a fixed buffer would cut them */
int cd_line_of(xmlNodePtr n);
const char *cd_tag(xmlNodePtr n);
/* fmt has two %s, filled with a and b (NULL: empty) */
void cd_diag(cd *c, kg_severity sev, const char *code, xmlNodePtr n, const char *fmt, const char *a, const char *b);
const char *cd_text(cd *c, xmlNodePtr n);    /* trimmed, owned by c */
int cd_numbers(cd *c, xmlNodePtr n, double *out, int count); /* 0, or -1 after a diagnostic */
xmlNodePtr cd_by_url(cd *c, const char *url); /* "#id" in this document */
xmlNodePtr cd_by_id(cd *c, const char *id);    /* "id" in this document */

/* Transforms. A pose's r may carry scale (<scale>, or a <matrix> with it);
 * cd_pose_split separates it. */
void cd_pose_identity(pose *t);
void cd_pose_mul(pose *o, const pose *a, const pose *b);
/* The translate / rotate / matrix / scale children of n, composed in order (lengths in metres). */
void cd_read_pose(cd *c, xmlNodePtr n, pose *out);
/* a = rigid * diag(scale); returns 0, or 1 when a has shear (rigid is then the
 * nearest rotation and the scale approximate). */
int cd_pose_split(const pose *a, pose *rigid, double scale[3]);

/* collada_scene.c */
/* The visual scene the <scene> instantiates, else the first; NULL if none. */
xmlNodePtr cd_visual_scene(cd *c, xmlNodePtr root);

/* Visual geometry and materials of the links, from the visual scene's nodes
 * (a node named like a link is that link's; geometry in other nodes goes to the
 * nearest link above). */
void cd_read_visual_scene(cd *c, xmlNodePtr root);
/* The <geometry> at url, instanced by a link (inst: the element that does it,
 * for diagnostics): adds the geom (exact primitive or mesh reference from
 * kinegraph's extra, else the geometry inside this file). at is the instance's
 * frame in the link frame, with scale. Returns the geom or NULL. */
kg_geom *cd_add_geometry(cd *c, const char *url, xmlNodePtr inst, kg_link *L, kg_geom_role role, const pose *at,
                         const char *name);
/* Sets g's material: kinegraph's extra on <node>, else the <bind_material> in
 * inst (unless url, the geometry, is kinegraph's). */
void cd_bind_material(cd *c, xmlNodePtr node, xmlNodePtr inst, const char *url, kg_geom *g);

/* collada_anim.c */
typedef struct cd_channel {
    xmlNodePtr el;     /* the transform element it drives */
    int member;        /* -1: the whole element; else one of its values */
    int stride, n;     /* values per key, keys */
    double *t, *v;     /* key times (s), values as in the file (degrees, file lengths) */
    int *interp;       /* per key */
    double *tin, *tout; /* BEZIER control points, (time, value) per value, or NULL */
} cd_channel;

typedef struct cd_anim {
    cd_channel *ch;
    int nch, capch;
    double t0, t1;     /* the clip's range (t1 <= t0: none) */
    int odd_interp;
    int too_deep;      /* nested animations past the limit were met (said once) */
} cd_anim;

/* The channels of the first animation clip, or of every animation. */
void cd_read_animations(cd *c, xmlNodePtr root, cd_anim *a);
void cd_anim_free(cd_anim *a);
/* Value k of a channel at time t; a whole matrix (16 values) interpolated as viewers do. */
double cd_channel_value(const cd_channel *ch, int k, double t);
void cd_channel_matrix(const cd_channel *ch, double t, double out[16]);
/* The frames to sample: returns their number, frame 0's time and the step.
 * per_frame: the values computed per frame (nodes placed, coordinates), for
 * the cap on frames times values (KG_LIMIT_COLLADA_SAMPLES). */
int cd_anim_grid(cd *c, const cd_anim *a, size_t per_frame, double *start, double *step);

/* collada_skeleton.c */
/* A file without a kinematics model: its visual scene's node tree as a model
 * (JOINT nodes and animated nodes move, as free joints), its animation (the
 * first clip, if there are clips) as the motion. */
kg_model *cd_import_node_tree(cd *c, xmlNodePtr root, kg_motion **motion);

#endif
