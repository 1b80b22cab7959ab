/* A filmstrip of a motion as one PNG: see exporters/filmstrip.h. */
#include "exporters/filmstrip.h"

#include <errno.h>
#include <math.h>
#include <string.h>

#include "core/fk.h"

#define CAPTION_LINE 14 /* px: a caption's line (11 px text) */
#define CAPTION_LINES 3 /* frame and time; feet down; problems */
#define TITLE_H 26      /* px: the title's band */
#define FILL 0.88       /* of a panel: the widest or highest pose of the strip spans this much */

void kg_filmstrip_defaults(kg_filmstrip_options *o) {
    memset(o, 0, sizeof *o);
    o->frames = 8, o->columns = 4, o->width = 240, o->height = 300;
    kg_render_view_default(&o->view);
}

int kg_filmstrip_frame(int k, int n, int nframes) {
    return n > 1 ? (int)lround((double)k * (nframes - 1) / (n - 1)) : 0;
}

static cairo_status_t to_file(void *f, const unsigned char *data, unsigned int n) {
    return fwrite(data, 1, n, f) == n ? CAIRO_STATUS_SUCCESS : CAIRO_STATUS_WRITE_ERROR;
}

/* Does a run of mk hold frame f? */
static int marked(const json_t *mk, int f) {
    size_t i;
    json_t *r;
    json_array_foreach(json_object_get(mk, "ranges"), i, r) {
        if (json_integer_value(json_array_get(r, 0)) <= f && f <= json_integer_value(json_array_get(r, 1))) return 1;
    }
    return 0;
}

/* The kinds marked at frame f: contacts (class "contact") into feet, the rest
 * into problems, comma-separated. Returns the number of problems. */
static int kinds_at(const json_t *marks, int f, char *feet, char *problems, size_t size) {
    size_t i;
    json_t *mk;
    int n = 0;
    feet[0] = problems[0] = '\0';
    json_array_foreach(marks, i, mk) {
        if (!marked(mk, f)) continue;
        const char *kind = json_string_value(json_object_get(mk, "kind")), *cls = json_string_value(json_object_get(mk, "class"));
        int contact = cls && !strcmp(cls, "contact");
        char *to = contact ? feet : problems;
        size_t used = strlen(to);
        snprintf(to + used, size - used, "%s%s", used ? ", " : "", kind ? kind : "?");
        n += !contact;
    }
    return n;
}

static void text(cairo_t *cr, double x, double y, const char *s, double r, double g, double b) {
    cairo_set_source_rgb(cr, r, g, b);
    cairo_move_to(cr, x, y);
    cairo_show_text(cr, s);
}

/* One panel at (x, y): the model at frame f (d posed), its caption below
 * (frame_time < 0: no motion, the model at rest). */
static void panel(cairo_t *cr, const kg_render_model *rm, const kg_data *d, const kg_filmstrip_options *o,
                  kg_render_view *v, double x, double y, int f, int nframes, double frame_time) {
    double lo[2], hi[2];
    kg_render_extent(rm, d, v, lo, hi, v->centre);
    v->px = x + 0.5 * o->width, v->py = y + 0.5 * o->height;
    kg_render_picture(cr, rm, d, v, x, y, o->width, o->height);
    char feet[512], problems[512], line[128];
    int bad = o->marks && kinds_at(o->marks, f, feet, problems, sizeof feet);
    if (!o->marks) feet[0] = problems[0] = '\0';
    if (bad) { /* a frame with a problem is framed in red */
        cairo_set_source_rgb(cr, 0.82, 0.13, 0.13);
        cairo_set_line_width(cr, 3);
        cairo_rectangle(cr, x + 1.5, y + 1.5, o->width - 3, o->height - 3);
        cairo_stroke(cr);
    }
    cairo_save(cr);
    cairo_rectangle(cr, x, y + o->height, o->width - 4, CAPTION_LINES * CAPTION_LINE + 6);
    cairo_clip(cr);
    if (frame_time < 0) snprintf(line, sizeof line, "at rest"); /* no motion */
    else snprintf(line, sizeof line, "frame %d/%d  %.2f s", f + 1, nframes, f * frame_time);
    double ty = y + o->height + CAPTION_LINE;
    text(cr, x + 6, ty, line, 0.1, 0.1, 0.1);
    if (feet[0]) text(cr, x + 6, ty + CAPTION_LINE, feet, 0.25, 0.5, 0.3);
    if (problems[0]) text(cr, x + 6, ty + 2 * CAPTION_LINE, problems, 0.75, 0.1, 0.1);
    cairo_restore(cr);
}

/* The strip's scale: the widest and highest of its poses span FILL of a panel. */
static double strip_scale(const kg_model *m, const kg_motion *mo, const kg_render_model *rm, kg_data *d,
                          const kg_filmstrip_options *o, int n) {
    double w = 1e-6, h = 1e-6, lo[2], hi[2], c[3];
    for (int k = 0; k < n; k++) {
        if (mo) kg_motion_pose(mo, kg_filmstrip_frame(k, n, mo->nframes), d);
        kg_fk(m, d);
        kg_render_extent(rm, d, &o->view, lo, hi, c);
        w = fmax(w, hi[0] - lo[0]), h = fmax(h, hi[1] - lo[1]);
    }
    return fmin(FILL * o->width / w, FILL * o->height / h);
}

int kg_filmstrip_png(const kg_model *m, const kg_motion *mo, const kg_filmstrip_options *o, kg_mesh_cache *meshes,
                     FILE *f, const char *path, kg_diags *d) {
    if (mo && mo->nframes < 1) mo = NULL;
    int nframes = mo ? mo->nframes : 1, n = o->frames < nframes ? o->frames : nframes;
    if (n < 1) n = 1;
    int cols = o->columns > 0 && o->columns < n ? o->columns : n, rows = (n + cols - 1) / cols;
    int title_h = o->title ? TITLE_H : 0, cell_h = o->height + CAPTION_LINES * CAPTION_LINE + 8;
    kg_render_model *rm = kg_render_model_new(m, meshes, d);
    kg_data *kd = kg_data_new(m);
    cairo_surface_t *s = cairo_image_surface_create(CAIRO_FORMAT_RGB24, cols * o->width, title_h + rows * cell_h);
    cairo_t *cr = cairo_create(s);
    int rc = -1;
    if (!rm || !kd || cairo_status(cr) != CAIRO_STATUS_SUCCESS) {
        kg_diag_add(d, KG_ERROR, "io.write", path, 0, NULL, "out of memory for the %dx%d picture", cols * o->width,
                    title_h + rows * cell_h);
        goto done;
    }
    cairo_set_source_rgb(cr, KG_RENDER_BACKGROUND);
    cairo_paint(cr);
    cairo_select_font_face(cr, "sans-serif", CAIRO_FONT_SLANT_NORMAL, CAIRO_FONT_WEIGHT_NORMAL);
    cairo_set_font_size(cr, 11);
    if (o->title) {
        cairo_set_font_size(cr, 13);
        text(cr, 8, 18, o->title, 0.1, 0.1, 0.1);
        cairo_set_font_size(cr, 11);
    }
    kg_render_view v = o->view;
    v.scale = strip_scale(m, mo, rm, kd, o, n);
    for (int k = 0; k < n; k++) {
        int fr = mo ? kg_filmstrip_frame(k, n, mo->nframes) : 0;
        if (mo) kg_motion_pose(mo, fr, kd);
        kg_fk(m, kd);
        panel(cr, rm, kd, o, &v, (k % cols) * o->width, title_h + (k / cols) * cell_h, fr, nframes,
              mo ? mo->frame_time : -1);
    }
    cairo_surface_flush(s);
    if (cairo_surface_write_to_png_stream(s, to_file, f) != CAIRO_STATUS_SUCCESS || ferror(f))
        kg_diag_add(d, KG_ERROR, "io.write", path, 0, NULL, "cannot write the picture: %s", strerror(errno));
    else rc = 0;
done:
    cairo_destroy(cr);
    cairo_surface_destroy(s);
    kg_data_free(kd);
    kg_render_model_free(rm);
    return rc;
}
