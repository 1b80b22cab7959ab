/* Inputs for test_oom that the samples do not cover. Each returns 0, or -1
 * when the file cannot be written. */
#ifndef KG_OOM_INPUTS_H
#define KG_OOM_INPUTS_H

/* A COLLADA 1.4 skeleton (a node tree with its animation, a mesh, a material
 * and a skin): the reader's path for files without a kinematics model. */
int oom_write_skeleton(const char *path);
/* A small robot (URDF) with a bit of every element: made a COLLADA file. */
int oom_write_robot(const char *path);
/* A URDF written with internal entities (the XML reader's substitution). */
int oom_write_entities(const char *path);
/* A .zae: the COLLADA file dae stored as `inner`, with a manifest naming it. */
int oom_write_zae(const char *path, const char *dae, const char *inner);

#endif
