/* Joint-space sampling shared by the analyses that draw poses (workspace,
 * collision matrix): which coordinates can be drawn and within what range, and
 * sequences that give sample i the same values whatever thread draws it.
 *
 * Drawable: revolute and prismatic joints within their limits, continuous joints
 * over one turn [-pi, pi], compound joints' axes (rotations over a turn unless
 * limited; translations only when limited). Floating and planar joints and
 * unlimited translations cannot be drawn uniformly and stay where they are. */
#ifndef KG_SAMPLING_H
#define KG_SAMPLING_H

#include <stdint.h>

#include "core/model.h"

typedef struct kg_sample_coord {
    int q;          /* index in the joint vector */
    double lo, hi;
} kg_sample_coord;

/* The drawable coordinates of the independent joints whose first Jacobian
 * column is set in mask (NULL: every joint), in joint order. out: model->nq
 * entries at most. Returns how many. */
int kg_sample_coords(const kg_model *m, const unsigned char *mask, kg_sample_coord *out);

enum { KG_SAMPLE_RANDOM = 0, KG_SAMPLE_HALTON = 1 };

/* Value k (of n per sample) of sample i, in [0, 1): counter-based
 * pseudo-random (splitmix64 of seed, i, k), or a Halton sequence (bases 2, 3, 5,
 * ...) shifted by the seed. */
double kg_sample_unit(int sequence, uint64_t seed, long i, int k, int n);

#endif
