/* The JSON of `kinegraph retarget`: body maps (--map reads one side of a map
 * file, --print-map writes the maps found in the same form) and the report
 * (a public contract: README, "Retargeting"). */
#ifndef KG_CLI_RETARGET_JSON_H
#define KG_CLI_RETARGET_JSON_H

#include <jansson.h>

#include "kinegraph/bodymap.h"
#include "kinegraph/retarget.h"

/* One side ("source" or "robot") of a map file into map: {PART: LINK} or
 * {PART: {"link": LINK, "point": [x, y, z]}} (the point in the link's frame,
 * m). Returns 0, or -1 after an error message naming path. */
int kg_map_read(json_t *side, const char *which, const kg_model *m, kg_body_map *map, const char *path);
/* A map as {PART: LINK} (the object form where a part has a point). */
json_t *kg_map_json(const kg_model *m, const kg_body_map *map);
/* Why each part is where it is: {PART: "structure: the bend nearest ..."}. */
json_t *kg_map_why_json(const kg_body_map *map);
/* The report of one clip. */
json_t *kg_retarget_report_json(const kg_retarget_report *r, const char *clip, const char *robot);
/* The report's "timeline": {FLAG: [[first, last], ...]} for every KG_FRAME_*
 * flag (kg_retarget_frame_flag_name), the runs of frames (0-based, inclusive)
 * of flags[0..n) that have it. */
json_t *kg_retarget_timeline_json(const unsigned *flags, int n);

#endif
