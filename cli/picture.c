#include "cli/picture.h"
#include "formats/xml.h"

#include <stdint.h>
#include <stdlib.h>
#include <zlib.h>

#include <errno.h>
#include <math.h>
#include <string.h>

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

/* ---- PNG ------------------------------------------------------------------------- */

static void be32(unsigned char *o, uint32_t v) {
    o[0] = (unsigned char)(v >> 24), o[1] = (unsigned char)(v >> 16), o[2] = (unsigned char)(v >> 8), o[3] = (unsigned char)v;
}

static void chunk(FILE *f, const char *type, const unsigned char *data, uint32_t len) {
    unsigned char h[8];
    be32(h, len);
    memcpy(h + 4, type, 4);
    fwrite(h, 1, 8, f);
    if (len) fwrite(data, 1, len, f);
    uLong crc = crc32(0, (const Bytef *)type, 4);
    if (len) crc = crc32(crc, data, len);
    unsigned char c[4];
    be32(c, (uint32_t)crc);
    fwrite(c, 1, 4, f);
}

int kg_png_heatmaps(const char *path, const kg_heatmap *maps, int nmaps, double vmin, double vmax, kg_diags *d) {
    const int panel = 320, margin = 20, bar = 16;
    const int W = nmaps * (panel + margin) + margin + bar + margin, H = panel + 2 * margin;
    unsigned char *img = malloc((size_t)H * (1 + 3 * (size_t)W));
    if (!img) {
        kg_diag_add(d, KG_ERROR, "io.memory", path, 0, NULL, "out of memory drawing '%s'", path);
        return -1;
    }
    for (int y = 0; y < H; y++) { /* white, each row led by PNG's filter byte 0 */
        img[(size_t)y * (1 + 3 * W)] = 0;
        memset(img + (size_t)y * (1 + 3 * W) + 1, 255, 3 * (size_t)W);
    }
#define PIXEL(x, y) (img + (size_t)(y) * (1 + 3 * (size_t)W) + 1 + 3 * (size_t)(x))
    for (int p = 0; p < nmaps; p++) {
        const kg_heatmap *h = &maps[p];
        int x0 = margin + p * (panel + margin), y0 = margin;
        for (int y = 0; y < panel; y++)
            for (int x = 0; x < panel; x++) memset(PIXEL(x0 + x, y0 + y), 244, 3);
        int32_t lx = INT32_MAX, hx = INT32_MIN, ly = INT32_MAX, hy = INT32_MIN;
        for (long i = 0; i < h->n; i++) {
            lx = h->ix[i] < lx ? h->ix[i] : lx, hx = h->ix[i] > hx ? h->ix[i] : hx;
            ly = h->iy[i] < ly ? h->iy[i] : ly, hy = h->iy[i] > hy ? h->iy[i] : hy;
        }
        double span = h->n ? fmax(hx - lx + 1, hy - ly + 1) : 1, s = panel / span;
        for (long i = 0; i < h->n; i++) {
            int rgb[3];
            ramp(vmax > vmin ? (h->value[i] - vmin) / (vmax - vmin) : 1, rgb);
            int xa = (int)floor((h->ix[i] - lx) * s), xb = (int)ceil((h->ix[i] - lx + 1) * s);
            int ya = (int)floor(panel - (h->iy[i] - ly + 1) * s), yb = (int)ceil(panel - (h->iy[i] - ly) * s);
            for (int y = ya < 0 ? 0 : ya; y < yb && y < panel; y++)
                for (int x = xa < 0 ? 0 : xa; x < xb && x < panel; x++) {
                    unsigned char *px = PIXEL(x0 + x, y0 + y);
                    px[0] = (unsigned char)rgb[0], px[1] = (unsigned char)rgb[1], px[2] = (unsigned char)rgb[2];
                }
        }
    }
    int bx = margin + nmaps * (panel + margin);
    for (int y = 0; y < panel; y++) {
        int rgb[3];
        ramp(1 - (double)y / (panel - 1), rgb);
        for (int x = 0; x < bar; x++) {
            unsigned char *px = PIXEL(bx + x, margin + y);
            px[0] = (unsigned char)rgb[0], px[1] = (unsigned char)rgb[1], px[2] = (unsigned char)rgb[2];
        }
    }
#undef PIXEL
    uLongf zlen = compressBound((uLong)H * (1 + 3 * (uLong)W));
    unsigned char *z = malloc(zlen);
    int rc = z && compress2(z, &zlen, img, (uLong)H * (1 + 3 * (uLong)W), 6) == Z_OK ? 0 : -1;
    free(img);
    kg_out out;
    if (rc == 0 && kg_out_open(&out, path) == 0) {
        static const unsigned char sig[8] = {137, 80, 78, 71, 13, 10, 26, 10};
        unsigned char ihdr[13] = {0};
        be32(ihdr, (uint32_t)W);
        be32(ihdr + 4, (uint32_t)H);
        ihdr[8] = 8; /* bit depth */
        ihdr[9] = 2; /* RGB */
        fwrite(sig, 1, 8, out.f);
        chunk(out.f, "IHDR", ihdr, 13);
        chunk(out.f, "IDAT", z, (uint32_t)zlen);
        chunk(out.f, "IEND", NULL, 0);
        if (ferror(out.f) || kg_out_commit(&out) != 0) {
            if (out.f) kg_out_abort(&out);
            rc = -1;
        }
    } else {
        rc = -1;
    }
    free(z);
    if (rc) kg_diag_add(d, KG_ERROR, "io.write", path, 0, NULL, "cannot write '%s': %s", path, strerror(errno));
    return rc;
}
