/* PLY point clouds (binary little-endian, float properties), written atomically. */
#ifndef KG_PLY_H
#define KG_PLY_H

#include "core/diag.h"

/* n points: xyz [3n], then nprop properties per point in props [n * nprop] named
 * by names. 0, or -1 after an error diagnostic. */
int kg_ply_write(const char *path, long n, const float *xyz, int nprop, const char *const *names, const float *props,
                 const char *comment, kg_diags *d);

#endif
