/* libFuzzer: the bytes as a URDF, COLLADA or BVH (told apart by their
 * content, as kinegraph does for a file without an extension), then every
 * writer on the model, and what the URDF, COLLADA and BVH writers wrote read
 * back: a model kinegraph read must be one it can write and read again. */
#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    kg_motion *mo = NULL;
    kg_model *m = kg_fuzz_load(NULL, data, size, &mo);
    if (m) kg_fuzz_export_all(m, mo);
    kg_model_free(m);
    kg_motion_free(mo);
    return 0;
}
