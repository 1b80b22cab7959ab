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

#include "kinegraph/analysis.h"

typedef struct kg_sample_coord {
    int q;          /* index in the joint vector */
    double lo, hi;
} kg_sample_coord;

/* The drawable coordinates of the independent joints whose first Jacobian
 * column is set in mask (NULL: every joint), in joint order. out: model->nq
 * entries at most. Returns how many. */
int kg_sample_coords(const kg_model *m, const unsigned char *mask, kg_sample_coord *out);

/* KG_SAMPLE_RANDOM, KG_SAMPLE_HALTON: include/kinegraph/analysis.h */

#define KG_HALTON_DIMS 64

/* Value k (of n per sample) of sample i, in [0, 1): counter-based
 * pseudo-random (splitmix64 of seed, i, k), or a Halton sequence (bases 2, 3, 5,
 * ..., the first 64 primes) shifted by the seed (Cranley-Patterson); values
 * k >= 64 of a Halton sample are pseudo-random. */
double kg_sample_unit(int sequence, uint64_t seed, long i, int k, int n);

/* Draws samples in order: a Halton value costs a digit increment and a sum
 * rather than divisions. Sample i puts coordinate c[k] at lo + (hi - lo) *
 * kg_sample_unit(sequence, seed, i, k, n), to the bit. */
typedef struct kg_sampler {
    int sequence, n;
    uint64_t seed;
    long i;                               /* the sample kg_sampler_next draws */
    double shift[KG_HALTON_DIMS];
    uint16_t digit[KG_HALTON_DIMS][64];   /* i + 1 in each base, least significant first */
    int ndigit[KG_HALTON_DIMS];
} kg_sampler;

/* Starts at sample i, for n coordinates. */
void kg_sampler_start(kg_sampler *s, int sequence, uint64_t seed, int n, long i);
/* Sets q[c[k].q] for k < n from sample s->i; then s->i++. */
void kg_sampler_draw(kg_sampler *s, const kg_sample_coord *c, double *q);

#endif
