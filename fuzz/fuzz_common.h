/* Shared by the libFuzzer harnesses: load bytes as one format, then (for the
 * export harness) write every format and read each back. Whatever the bytes,
 * nothing may crash, leak or hang; diagnostics are the only way to say no. */
#ifndef KG_FUZZ_COMMON_H
#define KG_FUZZ_COMMON_H

#include <stddef.h>
#include <stdint.h>

#include "core/model.h"
#include "core/motion.h"

/* The model (and motion) `format` ("urdf", "collada", "zae", "bvh"; NULL: told
 * by the content) makes of the bytes, or NULL; mo may be NULL. */
kg_model *kg_fuzz_load(const char *format, const uint8_t *data, size_t size, kg_motion **mo);
/* Writes m (and mo) in every format to memory; each XML/BVH output is read
 * back, and a failure to read back what kinegraph wrote aborts (a finding). */
void kg_fuzz_export_all(const kg_model *m, const kg_motion *mo);
/* The bytes as a retarget body map (--map MAP.json), both sides read against
 * the sample humanoid. */
void kg_fuzz_map(const uint8_t *data, size_t size);
/* The bytes as a BVH clip, its first KG_FUZZ_RETARGET_FRAMES frames (a few
 * steps: each frame is a constrained solve, slow under the sanitizers)
 * retargeted onto the sample humanoid (inputs of odd sizes: the sample with
 * its ankle roll joints fixed, whose planted feet tilt on their edges): a clip the retargeting takes comes out
 * finite and inside the robot's joint limits, as its report says; one it
 * refuses says why. Aborts otherwise (a finding). Returns 1 when the clip was
 * retargeted, 0 when the retargeting refused it, -1 when it is no BVH clip. */
#define KG_FUZZ_RETARGET_FRAMES 24
int kg_fuzz_retarget(const uint8_t *data, size_t size);

#endif
