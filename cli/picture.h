/* Pictures: heat maps of grid cells (workspace projections and slices), side by
 * side, with a shared colour scale, as SVG (with titles, axis extents and the
 * scale's values) or PNG (drawn with cairo: titles, axes with ticks in metres,
 * the colour bar with its values). Written atomically. */
#ifndef KG_PICTURE_H
#define KG_PICTURE_H

#include <stdint.h>

#include "core/diag.h"

typedef struct kg_heatmap {
    const char *title;          /* e.g. "top (x, y)" */
    const char *xlabel, *ylabel;
    long n;                     /* cells */
    const int32_t *ix, *iy;     /* cell indices: the cell spans [ix, ix + 1) * cell */
    const float *value;
} kg_heatmap;

/* cell: the cells' edge in metres; values from vmin (dark) to vmax (bright). */
int kg_svg_heatmaps(const char *path, const char *title, const char *value_name, const kg_heatmap *maps, int nmaps,
                    double cell, double vmin, double vmax, kg_diags *d);
int kg_png_heatmaps(const char *path, const char *title, const char *value_name, const kg_heatmap *maps, int nmaps,
                    double cell, double vmin, double vmax, kg_diags *d);

#endif
