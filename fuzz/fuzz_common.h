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

#endif
