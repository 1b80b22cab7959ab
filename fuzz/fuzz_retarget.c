/* libFuzzer: the bytes as a BVH clip retargeted onto the sample humanoid;
 * fuzz_common.c holds the code, which test_fuzz_regressions runs too. How
 * many inputs were clips and how many of those were retargeted is said at the
 * end: a run where none was says nothing about the retargeting. */
#include <stdio.h>
#include <stdlib.h>

#include "fuzz_common.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static long clips, retargeted;

static void report(void) {
    fprintf(stderr, "fuzz_retarget: %ld inputs were BVH clips: %ld retargeted (first %d frames), %ld refused\n", clips,
            retargeted, KG_FUZZ_RETARGET_FRAMES, clips - retargeted);
}

int LLVMFuzzerInitialize(int *argc, char ***argv) {
    (void)argc;
    (void)argv;
    atexit(report); /* libFuzzer ends a timed run with exit() */
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    int rc = kg_fuzz_retarget(data, size);
    clips += rc >= 0, retargeted += rc > 0;
    return 0;
}
