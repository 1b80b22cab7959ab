/* libFuzzer: the bytes as a retarget body map (--map MAP.json) applied to the
 * sample humanoid (both sides); fuzz_common.c holds the code, which
 * test_fuzz_regressions runs too. */
#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    kg_fuzz_map(data, size);
    return 0;
}
