/* A motion: frames of joint vectors for one model, sampled at a fixed rate.
 * Frame f's coordinates are q[f * nq ... f * nq + nq - 1], in the model's
 * coordinate order and units (rad; lengths in model units). When the root's
 * world pose is not part of q (a robot's floating base), `base` holds it per
 * frame as x, y, z, qw, qx, qy, qz; it is NULL otherwise. */
#ifndef KG_MOTION_H
#define KG_MOTION_H

#include <stddef.h>

#include "core/data.h"

typedef struct kg_motion {
    int nframes, nq;
    double frame_time; /* s */
    double start_time; /* s: the time of frame 0 in the source (COLLADA keys need not start at 0) */
    double *q;
    double *base;
    size_t cap;        /* frames allocated */
} kg_motion;

kg_motion *kg_motion_new(int nq, double frame_time, size_t reserve_frames);
void kg_motion_free(kg_motion *mo);
/* Appends a frame (copied); returns its pointer for filling when q is NULL.
 * Grows by a quarter at a time so memory stays close to the data. */
double *kg_motion_append(kg_motion *mo, const double *q);
/* Gives back unused capacity. */
void kg_motion_shrink(kg_motion *mo);
/* Loads frame f into d (q and, when the motion has it, the base pose). */
void kg_motion_pose(const kg_motion *mo, int f, kg_data *d);

/* mo (a motion of model m) resampled to fps frames per second: frames at
 * t = start_time + k / fps up to the last frame's time, each coordinate
 * interpolated linearly between the two frames around t but the quaternions
 * (the root pose's in base, floating joints' w x y z in q), which are slerped
 * along the shorter arc; the mimic followers of an interpolated frame are then
 * recomputed from their leaders. A time within the frame time's precision of
 * a frame (1e-5 of t, at most 1 % of a frame: BVH writes 1/30 s as 0.0333333)
 * is that frame, copied bit for bit; so fps equal to the clip's rate gives the
 * same frames, and the last frame is kept where the grid reaches it. The
 * result has frame_time 1 / fps and mo's start_time. NULL when fps is not a
 * finite positive number, mo does not fit m, mo has several frames but no
 * positive frame time, or memory runs out. */
kg_motion *kg_motion_resample(const kg_model *m, const kg_motion *mo, double fps);

#endif
