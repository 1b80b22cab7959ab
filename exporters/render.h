/* A model drawn with cairo (pictures for reports and CI: kinegraph view --png,
 * check --html): its visual geometry (meshes, primitives; the collision
 * geometry when it has no visual one) as flat-shaded triangles in an
 * orthographic view, painted far to near, and lines between the link frames
 * for links without geometry (a BVH skeleton). No GPU, no browser. */
#ifndef KG_RENDER_H
#define KG_RENDER_H

#include <cairo.h>

#include "core/data.h"
#include "core/model.h"
#include "formats/mesh.h"

/* The camera: where it looks from (the model's up axis is up in the picture). */
typedef struct kg_render_view {
    double azimuth;   /* rad: the camera's direction from the model about the up axis, from +x
                       * towards +y (-0.95: in front and to the right of a robot facing +x, as
                       * kinegraph view's page starts) */
    double elevation; /* rad: above the ground (0.26) */
    double scale;     /* px per metre */
    double centre[3]; /* a world point ... */
    double px, py;    /* ... drawn at this pixel */
} kg_render_view;

typedef struct kg_render_model kg_render_model;

/* The triangles of m's geometry, in link frames (meshes read through meshes;
 * one that cannot be read is left out with the cache's warning in d). NULL
 * when out of memory. */
kg_render_model *kg_render_model_new(const kg_model *m, kg_mesh_cache *meshes, kg_diags *d);
void kg_render_model_free(kg_render_model *r);
/* The default camera direction (azimuth, elevation); scale and centre 0. */
void kg_render_view_default(kg_render_view *v);
/* The extent of the model at d's pose (after kg_fk) in the picture's axes
 * (metres; x right, y up): lo, hi; its world centre (the middle of its
 * world bounding box) in centre. */
void kg_render_extent(const kg_render_model *r, const kg_data *d, const kg_render_view *v, double lo[2], double hi[2],
                      double centre[3]);
/* Draws the model at d's pose (after kg_fk), the ground grid (z = 0, y = 0
 * for a Y-up BVH skeleton) under it first. */
void kg_render_draw(cairo_t *cr, const kg_render_model *r, const kg_data *d, const kg_render_view *v);
/* The pictures' background (the page's, #eef0f3), as cairo_set_source_rgb's r, g, b. */
#define KG_RENDER_BACKGROUND 0xee / 255.0, 0xf0 / 255.0, 0xf3 / 255.0
/* kg_render_draw's picture into the rectangle (x, y, w, h) of cr (px; v
 * in cr's pixels), on the background, with smooth edges: drawn at twice the
 * size and scaled down. */
void kg_render_picture(cairo_t *cr, const kg_render_model *r, const kg_data *d, const kg_render_view *v, double x,
                       double y, int w, int h);
/* Where the world point p is drawn (px). */
void kg_render_project(const kg_render_model *r, const kg_render_view *v, const double p[3], double *x, double *y);

#endif
