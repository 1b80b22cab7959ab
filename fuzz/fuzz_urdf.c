/* libFuzzer: the bytes as urdf. */
#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    kg_motion *mo = NULL;
    kg_model *m = kg_fuzz_load("urdf", data, size, &mo);
    kg_model_free(m);
    kg_motion_free(mo);
    return 0;
}
