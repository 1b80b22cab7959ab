/* Workspace of a link: where a point on it can go, found by sampling the joints
 * between a base link and it within their limits and keeping the voxels the
 * point visits, with the manipulability of each visit.
 *
 * Sampling: the coordinates of the joints on the path from the base to the tip
 * (revolute, prismatic and continuous joints, compound joints' axes; other
 * coordinates stay at their rest value), uniform within limits (continuous:
 * one turn, [-pi, pi]); pseudo-random (xorshift64*, seeded) or low-discrepancy
 * (Halton, bases 2, 3, 5, ..., shifted by the seed). A joint without limits that
 * is not a rotation cannot be sampled and is left at rest.
 *
 * Volume: voxels visited times the voxel volume overstates a solid by the
 * voxels its boundary cuts, about half each; `volume` counts a voxel with an
 * empty face neighbour as half (`voxel_volume` is the plain count). Along an
 * axis the workspace does not leave (a planar arm: one layer of voxels) there is
 * no boundary: its volume is then its area times the voxel edge. The
 * convergence curve, voxels after 1, 2, 5, 10, 20, ... samples, shows whether
 * more samples would still add (uniform joint sampling converges slowly near
 * the boundary). */
#ifndef KG_WORKSPACE_H
#define KG_WORKSPACE_H

#include <stdint.h>

#include "analysis/sampling.h"
#include "core/model.h"

typedef struct kg_workspace_options {
    int tip, base;       /* links; base -1: the world (the root at the identity) */
    double point[3];     /* in the tip's frame */
    long samples;
    double voxel;        /* edge (m) */
    uint64_t seed;
    int sequence;        /* KG_SAMPLE_RANDOM or KG_SAMPLE_HALTON */
    int manipulability;  /* compute w (analysis/manipulability.h) at every sample */
    int threads;         /* 0 or 1: this thread; more: split the samples */
    const double *q;     /* [nq] the coordinates that are not sampled (NULL: the rest pose) */
} kg_workspace_options;

typedef struct kg_voxel {
    int32_t x, y, z;     /* index: the voxel spans [x, x + 1) * voxel, ... */
    int32_t count;       /* samples in it */
    float w_min, w_max;  /* manipulability of those samples */
    double w_sum;
} kg_voxel;

typedef struct kg_workspace_point {
    long samples, voxels;
} kg_workspace_point;

typedef struct kg_workspace {
    long samples;
    long nvoxel;
    kg_voxel *voxel;     /* [nvoxel], sorted by (x, y, z) */
    double voxel_edge;
    double volume;       /* boundary voxels counted half */
    double voxel_volume; /* nvoxel * edge^3 */
    double lo[3], hi[3]; /* bounding box of the sampled points */
    double w_min, w_max, w_mean;
    int ncurve;
    kg_workspace_point curve[64];
    int nsampled;        /* coordinates sampled */
} kg_workspace;

/* Returns 0, or -1 (out of memory, or no joint to sample: nsampled 0). */
int kg_workspace_compute(const kg_model *m, const kg_workspace_options *o, kg_workspace *w);
void kg_workspace_free(kg_workspace *w);

#endif
