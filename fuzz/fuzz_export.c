/* libFuzzer: the bytes as a URDF, COLLADA or BVH (told apart by their
 * content, as kinegraph does for a file without an extension), then every
 * writer on the model, and what the URDF, COLLADA and BVH writers wrote read
 * back: a model kinegraph read must be one it can write and read again.
 *
 * Two caps keep the harness near a thousand inputs a second rather than a
 * hundred (measured 2026-11-28 on the grown corpus; the issue asks for 10^7
 * runs). Both are said when the harness starts and counted when it ends;
 * test_fuzz_regressions writes its inputs whole, without them.
 *  - Models of more than KG_FUZZ_EXPORT_COORDS coordinates are loaded (every
 *    reader still sees the bytes) but not written. The 132-coordinate BVH
 *    skeletons of the corpus (22 joints of 6 channels) were 4 % of the runs
 *    and two thirds of the time: 40 ms each, most of it the 250 KB of COLLADA
 *    written and read back. Each writer and reader handles every joint with
 *    the same code; the cap keeps the sample walk.bvh (66) and the corpus
 *    robots (up to 54 here), and fuzz/seeds/export/six_channels.bvh keeps a
 *    small skeleton of 6-channel joints.
 *  - A motion is written for its first KG_FUZZ_EXPORT_FRAMES frames (a view,
 *    not a copy): every frame goes through the same code, and the fuzzer puts
 *    any value it likes in the first frames as well; walk.bvh's 120 frames took
 *    55 ms, 8 take 20. Long motions are read whole by fuzz_bvh and
 *    fuzz_collada; test_limits holds the key-count limits. */
#include <stdio.h>
#include <stdlib.h>

#include "fuzz_common.h"

#define KG_FUZZ_EXPORT_COORDS 96
#define KG_FUZZ_EXPORT_FRAMES 8

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static long loaded, too_large, trimmed;

static void report(void) {
    fprintf(stderr, "fuzz_export: %ld inputs made a model: %ld written, %ld over KG_FUZZ_EXPORT_COORDS (not written), "
            "%ld motions written for their first %d frames\n", loaded, loaded - too_large, too_large, trimmed,
            KG_FUZZ_EXPORT_FRAMES);
}

int LLVMFuzzerInitialize(int *argc, char ***argv) {
    (void)argc;
    (void)argv;
    fprintf(stderr, "fuzz_export: models of more than %d coordinates are loaded but not written "
            "(KG_FUZZ_EXPORT_COORDS); motions are written for their first %d frames (KG_FUZZ_EXPORT_FRAMES); "
            "fuzz/fuzz_export.c says why\n", KG_FUZZ_EXPORT_COORDS, KG_FUZZ_EXPORT_FRAMES);
    atexit(report); /* libFuzzer ends a timed run with exit() */
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    kg_motion *mo = NULL;
    kg_model *m = kg_fuzz_load(NULL, data, size, &mo);
    if (m) {
        loaded++;
        if (m->nq > KG_FUZZ_EXPORT_COORDS) {
            too_large++;
        } else {
            kg_motion first;
            const kg_motion *w = mo;
            if (mo && mo->nframes > KG_FUZZ_EXPORT_FRAMES) {
                first = *mo;
                first.nframes = KG_FUZZ_EXPORT_FRAMES;
                w = &first;
                trimmed++;
            }
            kg_fuzz_export_all(m, w);
        }
    }
    kg_model_free(m);
    kg_motion_free(mo);
    return 0;
}
