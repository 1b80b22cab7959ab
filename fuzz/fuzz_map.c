/* libFuzzer: the bytes as a retarget body map (--map MAP.json) applied to the
 * sample humanoid (both sides). */
#include <jansson.h>
#include <stdint.h>
#include <stdlib.h>

#include "cli/retarget_json.h"
#include "io/load.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static kg_model *robot;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (!robot) {
        kg_diags d;
        kg_diags_init(&d);
        robot = kg_load(KG_SOURCE_DIR "/samples/humanoid.urdf", NULL, &d);
        kg_diags_clear(&d);
        if (!robot) abort();
    }
    json_t *j = json_loadb((const char *)data, size, 0, NULL);
    if (!j) return 0;
    kg_body_map map;
    kg_map_read(json_object_get(j, "robot"), "robot", robot, &map, "fuzz.json");
    kg_map_read(json_object_get(j, "source"), "source", robot, &map, "fuzz.json");
    json_decref(j);
    return 0;
}
