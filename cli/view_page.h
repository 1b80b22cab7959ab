/* A self-contained HTML page that shows a model and its motion in a browser
 * (kinegraph view): the model as glTF (exporters/gltf.c, embedded as base64)
 * loaded by three.js, whose modules the caller supplies as an import map of
 * data: URLs (built from npm's "three" at build time: tools/three_bundle.js), so
 * the page needs no network. */
#ifndef KG_CLI_VIEW_PAGE_H
#define KG_CLI_VIEW_PAGE_H

#include <jansson.h>
#include <stdio.h>

#include "exporters/exporters.h"

typedef struct kg_view_options {
    const char *title;        /* the page's title (the model's file), may be NULL */
    const char *three_imports; /* the import map's "imports" object (JSON), required */
    const char *three_version; /* said in the page, may be NULL */
    const char *report_json;  /* a retarget report (JSON text) shown beside the timeline, may be NULL;
                               * its "timeline" (retarget writes it) is marked on the page's */
    const char *report_name;  /* its file, for diagnostics (may be NULL) */
    const char *motion_name;  /* the motion's file, may be NULL */
    const kg_model *source;   /* a retarget's source clip, drawn as lines beside the model (may be NULL) */
    const kg_motion *source_motion;
    const char *source_name;
    double source_scale;      /* its lengths times this on the page (0: the model's height over its) */
    int no_marks;             /* leave out the per-frame marks on the timeline: the report's, or
                               * without one joint limits and self-collision (the collision geometry
                               * checked at every frame) */
    json_t *marks;            /* those marks, from kg_view_marks (borrowed), or NULL: computed */
} kg_view_options;

/* The page's per-frame marks: [{"kind", "ranges": [[first, last], ...] (the
 * motion's frames), "frames", "detail", "class" ("contact": a report's feet
 * down), "from" ("report")}]; empty with no_marks. */
json_t *kg_view_marks(const kg_model *m, const kg_motion *mo, const kg_view_options *v, const kg_export_options *o,
                      kg_diags *d);

/* Writes the page to f; what the glTF cannot hold goes into the ledger l (may
 * be NULL). Returns 0, or -1 after an error diagnostic. */
int kg_export_view(const kg_model *m, const kg_motion *mo, const kg_view_options *v, const kg_export_options *o,
                   FILE *f, kg_ledger *l, kg_diags *d);

#endif
