/* A filmstrip: frames of a motion side by side in one PNG (kinegraph view
 * --png), for reports and CI artifacts, drawn with cairo (exporters/render.h):
 * each panel the model at one frame, the same scale in all, centred on it,
 * captioned with its frame and time and the timeline's marks there (a
 * retarget report's contacts and problems, or kinegraph view's own checks). */
#ifndef KG_FILMSTRIP_H
#define KG_FILMSTRIP_H

#include <jansson.h>
#include <stdio.h>

#include "core/motion.h"
#include "exporters/render.h"

typedef struct kg_filmstrip_options {
    int frames;            /* panels: frames evenly spread over the motion, first and last in (8) */
    int columns;           /* panels per row (4) */
    int width, height;     /* px: one panel's picture, its caption below (240, 300) */
    kg_render_view view;   /* the camera's direction (kg_render_view_default); scale and centre
                            * are chosen per strip and panel */
    const char *title;     /* drawn above the panels, may be NULL */
    const json_t *marks;   /* [{"kind", "ranges": [[a, b], ...], "class"}] (kinegraph view's page
                            * data): the kinds at each panel's frame, in its caption; may be NULL */
} kg_filmstrip_options;

void kg_filmstrip_defaults(kg_filmstrip_options *o);
/* The frame panel k of n shows, of a motion of nframes. */
int kg_filmstrip_frame(int k, int n, int nframes);
/* Writes the PNG to f (mo NULL: the model at rest, one panel). Returns 0, or
 * -1 after an error diagnostic (path names the output). */
int kg_filmstrip_png(const kg_model *m, const kg_motion *mo, const kg_filmstrip_options *o, kg_mesh_cache *meshes,
                     FILE *f, const char *path, kg_diags *d);

#endif
