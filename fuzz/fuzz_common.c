#define _GNU_SOURCE /* open_memstream */
#include "fuzz_common.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/retarget_json.h"
#include "exporters/exporters.h"
#include "io/load.h"
#include "formats/zae.h"

/* The caps on work that grows with a file's numbers rather than its size (a
 * 30 KB COLLADA can ask for 10^6 frames of 300 nodes) are lowered so that one
 * input stays within libFuzzer's timeout under the sanitizers: the fuzzer
 * checks the code at and beyond its caps, not how long the default cap takes
 * (tests/test_robustness.c reads such files at the defaults). */
__attribute__((constructor)) static void lower_caps(void) {
    setenv("KG_LIMIT_COLLADA_SAMPLES", "1000000", 0);
}

kg_model *kg_fuzz_load(const char *format, const uint8_t *data, size_t size, kg_motion **mo) {
    kg_diags d;
    kg_diags_init(&d);
    kg_load_options o = {0};
    o.format = format;
    o.resolver.ignore_env = 1;
    if (mo) *mo = NULL;
    kg_model *m = NULL;
    if (format && !strcmp(format, "zae")) {
        size_t len;
        char *inner = NULL, *doc = kg_zae_read_buffer("fuzz.zae", (const char *)data, size, &len, &inner, &d);
        o.format = "collada";
        if (doc) m = kg_load_clip_buffer("fuzz.dae", doc, len, &o, mo, &d);
        free(doc);
        free(inner);
    } else {
        m = kg_load_clip_buffer(format ? format : "fuzz", (const char *)data, size, &o, mo, &d);
    }
    kg_diags_clear(&d);
    return m;
}

typedef int (*writer)(const kg_model *, const kg_motion *, const kg_export_options *, FILE *, kg_ledger *, kg_diags *);

/* What one writer makes of m, read back as `back` (NULL: not read back). */
static void write_one(const kg_model *m, const kg_motion *mo, writer w, const char *back) {
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (!f) return;
    kg_diags d;
    kg_diags_init(&d);
    kg_export_options eo = {.skip_meshes = 1}; /* no mesh files, no assimp (it forks) */
    int rc = w(m, mo, &eo, f, NULL, &d);
    fclose(f);
    kg_diags_clear(&d);
    if (rc == 0 && back) {
        kg_motion *mo2 = NULL;
        kg_model *m2 = kg_fuzz_load(back, (const uint8_t *)buf, len, &mo2);
        if (!m2) {
            fprintf(stderr, "kinegraph could not read back the %s it wrote:\n%.*s\n", back, (int)(len < 4000 ? len : 4000), buf);
            abort();
        }
        kg_model_free(m2);
        kg_motion_free(mo2);
    }
    free(buf);
}

void kg_fuzz_export_all(const kg_model *m, const kg_motion *mo) {
    write_one(m, mo, kg_export_urdf, "urdf");
    write_one(m, mo, kg_export_collada, "collada");
    write_one(m, mo, kg_export_bvh, "bvh");
    write_one(m, mo, kg_export_mjcf, NULL);
    write_one(m, mo, kg_export_gltf, NULL);
    if (mo) {
        write_one(m, mo, kg_export_csv, NULL);
        write_one(m, mo, kg_export_json, NULL);
    }
}

void kg_fuzz_map(const uint8_t *data, size_t size) {
    static kg_model *robot; /* loaded once: the harness runs millions of inputs */
    if (!robot) {
        kg_diags d;
        kg_diags_init(&d);
        robot = kg_load(KG_SOURCE_DIR "/samples/humanoid.urdf", NULL, &d);
        kg_diags_clear(&d);
        if (!robot) abort();
    }
    json_t *j = json_loadb((const char *)data, size, 0, NULL);
    if (!j) return;
    kg_body_map map;
    kg_map_read(json_object_get(j, "robot"), "robot", robot, &map, "fuzz.json");
    kg_map_read(json_object_get(j, "source"), "source", robot, &map, "fuzz.json");
    json_decref(j);
}
