/* Mesh files read by assimp in a child process (see mesh_child.c for why). */
#ifndef KG_MESH_CHILD_H
#define KG_MESH_CHILD_H

#include <pthread.h>

struct aiScene;

/* assimp's C API keeps one error string for the whole process, written by every
 * read that fails: reads that may fail, and the reading of that string, hold
 * this lock (meshes may be read on several threads: check --jobs). */
extern pthread_mutex_t kg_assimp_errors;

/* Around every call into assimp in this process (reading, releasing a scene):
 * a fork for a child reader waits until none is inside (see mesh_child.c). */
void kg_assimp_enter(void);
void kg_assimp_leave(void);

/* path read by assimp in this process, the lock held: the scene, or NULL with
 * *error set (when it was not yet). */
const struct aiScene *kg_mesh_read_here(const char *path, unsigned flags, char **error);

/* Reads paths[0 .. n) with assimp's flags `flags`, one after another in a child
 * process (a fresh one after a file that crashed it or took more than `seconds`):
 * scenes[k] the scene of paths[k] or NULL, errors[k] NULL or (malloc'd) why it
 * could not be read (the scene may still be there without a root node when
 * the files were read in this process, fork failing). A file that crashes or
 * hangs costs that file only. */
void kg_mesh_read_isolated(const char *const *paths, int n, unsigned flags, unsigned seconds,
                           const struct aiScene **scenes, char **errors);

#endif
