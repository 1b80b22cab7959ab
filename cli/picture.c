#include "cli/picture.h"
#include "formats/xml.h"

#include <stdint.h>
#include <stdlib.h>
#include <cairo.h>

#include <errno.h>
#include <math.h>
#include <string.h>

#include "core/spatial.h"
#include "formats/fileio.h"

/* A perceptually ordered ramp (dark blue, teal, green, yellow), as viridis. */
static void ramp(double t, int rgb[3]) {
    static const double stops[5][3] = {{68, 1, 84}, {59, 82, 139}, {33, 145, 140}, {94, 201, 98}, {253, 231, 37}};
    t = fmin(1, fmax(0, isnan(t) ? 0 : t)) * 4;
    int i = (int)fmin(3, floor(t));
    double u = t - i;
    for (int k = 0; k < 3; k++) rgb[k] = (int)lround(stops[i][k] + u * (stops[i + 1][k] - stops[i][k]));
}

static void colour(double t, char *buf) {
    int rgb[3];
    ramp(t, rgb);
    snprintf(buf, 8, "#%02x%02x%02x", rgb[0], rgb[1], rgb[2]);
}

int kg_svg_heatmaps(const char *path, const char *title, const char *value_name, const kg_heatmap *maps, int nmaps,
                    double cell, double vmin, double vmax, kg_diags *d) {
    kg_out out;
    if (kg_out_open(&out, path) != 0) {
        kg_diag_add(d, KG_ERROR, "io.write", path, 0, NULL, "cannot write '%s': %s", path, strerror(errno));
        return -1;
    }
    FILE *f = out.f;
    const double panel = 320, margin = 50, top = 60;
    double width = nmaps * (panel + margin) + margin + 80, height = top + panel + 60;
    fprintf(f, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" "
               "height=\"%.0f\" viewBox=\"0 0 %.0f %.0f\" font-family=\"sans-serif\" font-size=\"12\">\n",
            width, height, width, height);
    fprintf(f, "<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n<text x=\"%.0f\" y=\"24\" font-size=\"16\">", margin);
    kg_xml_escape(f, title);
    fprintf(f, "</text>\n");
    char c[8];
    for (int p = 0; p < nmaps; p++) {
        const kg_heatmap *h = &maps[p];
        double x0 = margin + p * (panel + margin);
        int32_t lx = INT32_MAX, hx = INT32_MIN, ly = INT32_MAX, hy = INT32_MIN;
        for (long i = 0; i < h->n; i++) {
            lx = h->ix[i] < lx ? h->ix[i] : lx;
            hx = h->ix[i] > hx ? h->ix[i] : hx;
            ly = h->iy[i] < ly ? h->iy[i] : ly;
            hy = h->iy[i] > hy ? h->iy[i] : hy;
        }
        double span = h->n ? fmax(hx - lx + 1, hy - ly + 1) : 1, s = panel / span; /* pixels per cell, same in x and y */
        fprintf(f, "<g><text x=\"%.1f\" y=\"%.0f\">", x0, top - 8);
        kg_xml_escape(f, h->title);
        fprintf(f, "</text>\n<rect x=\"%.1f\" y=\"%.0f\" width=\"%.0f\" height=\"%.0f\" fill=\"#f4f4f4\" stroke=\"#999\"/>\n", x0,
                top, panel, panel);
        for (long i = 0; i < h->n; i++) {
            double t = vmax > vmin ? (h->value[i] - vmin) / (vmax - vmin) : 1;
            colour(t, c);
            fprintf(f, "<rect x=\"%.2f\" y=\"%.2f\" width=\"%.2f\" height=\"%.2f\" fill=\"%s\"/>\n", x0 + (h->ix[i] - lx) * s,
                    top + panel - (h->iy[i] - ly + 1) * s, s + 0.05, s + 0.05, c);
        }
        /* the extent in metres along each axis */
        fprintf(f, "<text x=\"%.1f\" y=\"%.0f\">", x0, top + panel + 16);
        kg_xml_escape(f, h->xlabel);
        fprintf(f, " %.3f .. %.3f m</text>\n<text x=\"%.1f\" y=\"%.0f\">", h->n ? lx * cell : 0, h->n ? (hx + 1) * cell : 0,
                x0, top + panel + 32);
        kg_xml_escape(f, h->ylabel);
        fprintf(f, " %.3f .. %.3f m</text></g>\n", h->n ? ly * cell : 0, h->n ? (hy + 1) * cell : 0);
    }
    /* the colour scale */
    double bx = margin + nmaps * (panel + margin);
    for (int k = 0; k < 64; k++) {
        colour(k / 63.0, c);
        fprintf(f, "<rect x=\"%.0f\" y=\"%.2f\" width=\"16\" height=\"%.2f\" fill=\"%s\"/>\n", bx, top + panel - (k + 1) * panel / 64,
                panel / 64 + 0.05, c);
    }
    fprintf(f, "<text x=\"%.0f\" y=\"%.0f\">%.4g</text>\n<text x=\"%.0f\" y=\"%.0f\">%.4g</text>\n<text x=\"%.0f\" y=\"%.0f\">",
            bx + 20, top + 10, vmax, bx + 20, top + panel, vmin, bx - 10, top - 8);
    kg_xml_escape(f, value_name);
    fprintf(f, "</text>\n</svg>\n");
    if (ferror(f) || kg_out_commit(&out) != 0) {
        if (out.f) kg_out_abort(&out);
        kg_diag_add(d, KG_ERROR, "io.write", path, 0, NULL, "cannot write '%s': %s", path, strerror(errno));
        return -1;
    }
    return 0;
}

/* ---- PNG (cairo: the same panels and scale as the SVG, with their text) ------------ */

/* A round tick step for a range: 1, 2 or 5 times a power of ten, about 5 ticks. */
static double tick_step(double range) {
    double raw = range / 5, p = pow(10, floor(log10(raw > 0 ? raw : 1))), m = raw / p;
    return (m < 1.5 ? 1 : m < 3.5 ? 2 : m < 7.5 ? 5 : 10) * p;
}

static void label(cairo_t *cr, double x, double y, const char *s, double align_x) {
    cairo_text_extents_t e;
    cairo_text_extents(cr, s, &e);
    cairo_move_to(cr, x - align_x * e.x_advance, y);
    cairo_show_text(cr, s);
}

/* Ticks and their values (m) along one side of a panel: from v0 at p0 to v1 at p1 (px). */
static void axis(cairo_t *cr, int vertical, double at, double p0, double p1, double v0, double v1) {
    double step = tick_step(v1 - v0);
    char buf[32];
    cairo_set_source_rgb(cr, 0.2, 0.2, 0.2);
    cairo_set_line_width(cr, 1);
    for (double v = ceil(v0 / step - 1e-9) * step; v <= v1 + 1e-9 * step; v += step) {
        double p = p0 + (v - v0) / (v1 - v0) * (p1 - p0);
        snprintf(buf, sizeof buf, "%.3g", fabs(v) < 1e-9 * step ? 0 : v);
        if (vertical) {
            cairo_move_to(cr, at, p), cairo_line_to(cr, at - 5, p), cairo_stroke(cr);
            label(cr, at - 7, p + 4, buf, 1);
        } else {
            cairo_move_to(cr, p, at), cairo_line_to(cr, p, at + 5), cairo_stroke(cr);
            label(cr, p, at + 17, buf, 0.5);
        }
    }
}

/* One heat map in the square (x0, y0, panel): cells, frame, axes in metres, titles. */
static void heatmap(cairo_t *cr, const kg_heatmap *h, double x0, double y0, double panel, double cell, double vmin,
                    double vmax) {
    int32_t lx = INT32_MAX, hx = INT32_MIN, ly = INT32_MAX, hy = INT32_MIN;
    for (long i = 0; i < h->n; i++) {
        lx = h->ix[i] < lx ? h->ix[i] : lx, hx = h->ix[i] > hx ? h->ix[i] : hx;
        ly = h->iy[i] < ly ? h->iy[i] : ly, hy = h->iy[i] > hy ? h->iy[i] : hy;
    }
    if (!h->n) lx = hx = ly = hy = 0;
    double span = fmax(hx - lx + 1, hy - ly + 1), s = panel / span; /* px per cell, the same in x and y */
    cairo_set_source_rgb(cr, 244 / 255.0, 244 / 255.0, 244 / 255.0);
    cairo_rectangle(cr, x0, y0, panel, panel);
    cairo_fill(cr);
    for (long i = 0; i < h->n; i++) {
        int rgb[3];
        ramp(vmax > vmin ? (h->value[i] - vmin) / (vmax - vmin) : 1, rgb);
        cairo_set_source_rgb(cr, rgb[0] / 255.0, rgb[1] / 255.0, rgb[2] / 255.0);
        cairo_rectangle(cr, x0 + (h->ix[i] - lx) * s, y0 + panel - (h->iy[i] - ly + 1) * s, s + 0.3, s + 0.3);
        cairo_fill(cr);
    }
    cairo_set_source_rgb(cr, 0.6, 0.6, 0.6);
    cairo_set_line_width(cr, 1);
    cairo_rectangle(cr, x0 + 0.5, y0 + 0.5, panel - 1, panel - 1);
    cairo_stroke(cr);
    /* the axes: metres of the cells' extent, x along the bottom, y up the left */
    axis(cr, 0, y0 + panel, x0, x0 + panel, lx * cell, (lx + span) * cell);
    axis(cr, 1, x0, y0 + panel, y0, ly * cell, (ly + span) * cell);
    char buf[160];
    cairo_set_source_rgb(cr, 0.1, 0.1, 0.1);
    label(cr, x0, y0 - 8, h->title ? h->title : "", 0);
    snprintf(buf, sizeof buf, "%s (m)", h->xlabel ? h->xlabel : "");
    label(cr, x0 + panel / 2, y0 + panel + 34, buf, 0.5);
    snprintf(buf, sizeof buf, "%s (m)", h->ylabel ? h->ylabel : "");
    cairo_save(cr);
    cairo_translate(cr, x0 - 44, y0 + panel / 2);
    cairo_rotate(cr, -KG_PI / 2);
    label(cr, 0, 0, buf, 0.5);
    cairo_restore(cr);
}

/* The colour bar at (x, y), panel high, its values from vmin to vmax. */
static void colour_bar(cairo_t *cr, double x, double y, double panel, double vmin, double vmax, const char *name) {
    for (int k = 0; k < 128; k++) {
        int rgb[3];
        ramp(k / 127.0, rgb);
        cairo_set_source_rgb(cr, rgb[0] / 255.0, rgb[1] / 255.0, rgb[2] / 255.0);
        cairo_rectangle(cr, x, y + panel - (k + 1) * panel / 128, 16, panel / 128 + 0.5);
        cairo_fill(cr);
    }
    char buf[32];
    cairo_set_source_rgb(cr, 0.1, 0.1, 0.1);
    label(cr, x, y - 8, name ? name : "", 0);
    if (!(vmax > vmin)) {
        snprintf(buf, sizeof buf, "%.4g", vmax);
        label(cr, x + 20, y + 4, buf, 0);
        return;
    }
    double step = tick_step(vmax - vmin);
    cairo_set_line_width(cr, 1);
    for (double v = ceil(vmin / step - 1e-9) * step; v <= vmax + 1e-9 * step; v += step) {
        double p = y + panel - (v - vmin) / (vmax - vmin) * panel;
        cairo_move_to(cr, x + 16, p), cairo_line_to(cr, x + 20, p), cairo_stroke(cr);
        snprintf(buf, sizeof buf, "%.3g", fabs(v) < 1e-9 * step ? 0 : v);
        label(cr, x + 22, p + 4, buf, 0);
    }
}

static cairo_status_t to_file(void *f, const unsigned char *data, unsigned int n) {
    return fwrite(data, 1, n, f) == n ? CAIRO_STATUS_SUCCESS : CAIRO_STATUS_WRITE_ERROR;
}

int kg_png_heatmaps(const char *path, const char *title, const char *value_name, const kg_heatmap *maps, int nmaps,
                    double cell, double vmin, double vmax, kg_diags *d) {
    const double panel = 320, left = 70, gap = 80, top = 60, bottom = 50;
    const int W = (int)(left + nmaps * (panel + gap) + 70), H = (int)(top + panel + bottom);
    cairo_surface_t *s = cairo_image_surface_create(CAIRO_FORMAT_RGB24, W, H);
    cairo_t *cr = cairo_create(s);
    cairo_set_source_rgb(cr, 1, 1, 1);
    cairo_paint(cr);
    cairo_select_font_face(cr, "sans-serif", CAIRO_FONT_SLANT_NORMAL, CAIRO_FONT_WEIGHT_NORMAL);
    cairo_set_font_size(cr, 16);
    cairo_set_source_rgb(cr, 0.1, 0.1, 0.1);
    label(cr, left, 24, title ? title : "", 0);
    cairo_set_font_size(cr, 12);
    for (int p = 0; p < nmaps; p++) heatmap(cr, &maps[p], left + p * (panel + gap), top, panel, cell, vmin, vmax);
    colour_bar(cr, left + nmaps * (panel + gap) - gap + 30, top, panel, vmin, vmax, value_name);
    cairo_surface_flush(s);
    int rc = cairo_status(cr) == CAIRO_STATUS_SUCCESS ? 0 : -1;
    kg_out out;
    if (rc == 0 && kg_out_open(&out, path) == 0) {
        if (cairo_surface_write_to_png_stream(s, to_file, out.f) != CAIRO_STATUS_SUCCESS || ferror(out.f) ||
            kg_out_commit(&out) != 0) {
            if (out.f) kg_out_abort(&out);
            rc = -1;
        }
    } else {
        rc = -1;
    }
    cairo_destroy(cr);
    cairo_surface_destroy(s);
    if (rc) kg_diag_add(d, KG_ERROR, "io.write", path, 0, NULL, "cannot write '%s': %s", path, strerror(errno));
    return rc;
}
