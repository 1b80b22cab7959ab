/* kinegraph view --png (exporters/filmstrip.c, exporters/render.c): the
 * filmstrip's size is its layout's (columns x panel width; title, rows of
 * panel and caption), every panel shows the model (pixels that are not the
 * background), and the panels framed in red are exactly those whose frame the
 * retarget report's timeline marks with a problem (the sample walk on the
 * sample humanoid: its COM leaves the support polygon on some frames). The
 * PNG is read back with cairo. No browser. And workspace --png's picture
 * (axes, colour bar, title: cairo too). */
#define _DEFAULT_SOURCE /* mkdtemp */
#include "testutil.h"

#include <cairo.h>
#include <stdlib.h>
#include <string.h>

static char tmpdir[] = "/tmp/kg_strip_XXXXXX";

typedef struct picture {
    cairo_surface_t *s;
    int w, h, stride;
    const unsigned char *px;
} picture;

static picture read_png(const char *path) {
    picture p = {.s = cairo_image_surface_create_from_png(path)};
    assert_int_equal(cairo_surface_status(p.s), CAIRO_STATUS_SUCCESS);
    p.w = cairo_image_surface_get_width(p.s), p.h = cairo_image_surface_get_height(p.s);
    p.stride = cairo_image_surface_get_stride(p.s), p.px = cairo_image_surface_get_data(p.s);
    return p;
}

/* (r, g, b) of a pixel (cairo's native-endian xRGB). */
static void rgb(const picture *p, int x, int y, int c[3]) {
    uint32_t v = *(const uint32_t *)(p->px + (size_t)y * (size_t)p->stride + 4 * (size_t)x);
    c[0] = v >> 16 & 255, c[1] = v >> 8 & 255, c[2] = v & 255;
}

/* Pixels of the rectangle that are neither the background (#eef0f3), the
 * ground grid's grey (0.75, 0.76, 0.78) nor a blend of the two: off the line
 * between them in RGB, or darker than the grid by a margin. */
static long model_pixels(const picture *p, int x0, int y0, int w, int h) {
    const double bg[3] = {0xee, 0xf0, 0xf3}, grid[3] = {0.75 * 255, 0.76 * 255, 0.78 * 255};
    double u[3], uu = 0;
    for (int a = 0; a < 3; a++) u[a] = bg[a] - grid[a], uu += u[a] * u[a];
    long n = 0;
    for (int y = y0 + 4; y < y0 + h - 4; y++)
        for (int x = x0 + 4; x < x0 + w - 4; x++) {
            int c[3];
            rgb(p, x, y, c);
            double t = 0, off = 0;
            for (int a = 0; a < 3; a++) t += (bg[a] - c[a]) * u[a] / uu;
            for (int a = 0; a < 3; a++) off += pow(bg[a] - c[a] - t * u[a], 2);
            n += sqrt(off) > 20 || t > 1.4;
        }
    return n;
}

static int red(const picture *p, int x, int y) {
    int c[3];
    rgb(p, x, y, c);
    return c[0] > 180 && c[1] < 60 && c[2] < 60;
}

static int frame_of(int k, int n, int nframes) { return (int)lround((double)k * (nframes - 1) / (n - 1)); }

static void test_layout(void **state) {
    (void)state;
    char cmd[2000], path[1200];
    snprintf(cmd, sizeof cmd,
             "view '" KG_SOURCE_DIR "/samples/walk.bvh' --png '%s/walk.png' --png-frames 6 --png-columns 3 --png-size 200,260",
             tmpdir);
    assert_int_equal(kg_test_run_kinegraph(tmpdir, cmd), 0);
    snprintf(path, sizeof path, "%s/walk.png", tmpdir);
    picture p = read_png(path);
    const int title = 26, cell = 260 + 3 * 14 + 8;
    assert_int_equal(p.w, 3 * 200);
    assert_int_equal(p.h, title + 2 * cell);
    for (int k = 0; k < 6; k++) {
        long n = model_pixels(&p, (k % 3) * 200, title + (k / 3) * cell, 200, 260);
        printf("walk panel %d: %ld skeleton pixels\n", k, n);
        assert_true(n > 200); /* the skeleton's lines */
    }
    cairo_surface_destroy(p.s);
    /* usage: no output, bad numbers */
    assert_int_equal(kg_test_run_kinegraph(tmpdir, "view '" KG_SOURCE_DIR "/samples/walk.bvh'"), 2);
    assert_int_equal(kg_test_run_kinegraph(tmpdir, "view '" KG_SOURCE_DIR "/samples/walk.bvh' --png x.png --png-frames 0"), 2);
    assert_int_equal(kg_test_run_kinegraph(tmpdir, "view '" KG_SOURCE_DIR "/samples/walk.bvh' --png x.png --png-size 10"), 2);
}

static void test_report_frames(void **state) {
    (void)state;
    char cmd[4000], path[1200];
    snprintf(cmd, sizeof cmd,
             "retarget '" KG_SOURCE_DIR "/samples/walk.bvh' --robot '" KG_SOURCE_DIR "/samples/humanoid.urdf' "
             "-o '%s/w.csv' --report '%s/w.json'", tmpdir, tmpdir);
    assert_int_equal(kg_test_run_kinegraph(tmpdir, cmd), 0);
    snprintf(cmd, sizeof cmd, "view '" KG_SOURCE_DIR "/samples/humanoid.urdf' '%s/w.csv' '%s/w.json' --png '%s/w.png' --png-frames 6",
             tmpdir, tmpdir, tmpdir);
    assert_int_equal(kg_test_run_kinegraph(tmpdir, cmd), 0);
    snprintf(path, sizeof path, "%s/w.json", tmpdir);
    json_t *r = json_load_file(path, 0, NULL), *tl = json_object_get(r, "timeline"), *runs;
    assert_non_null(tl);
    int nframes = (int)json_integer_value(json_object_get(r, "frames"));
    snprintf(path, sizeof path, "%s/w.png", tmpdir);
    picture p = read_png(path);
    const int W = 240, H = 300, title = 26, cell = H + 3 * 14 + 8;
    assert_int_equal(p.w, 4 * W);
    assert_int_equal(p.h, title + 2 * cell);
    int framed = 0;
    for (int k = 0; k < 6; k++) {
        int f = frame_of(k, 6, nframes), problem = 0, x = (k % 4) * W, y = title + (k / 4) * cell;
        const char *key;
        json_object_foreach(tl, key, runs) {
            if (!strncmp(key, "contact", 7)) continue;
            size_t i;
            json_t *run;
            json_array_foreach(runs, i, run) problem |= json_integer_value(json_array_get(run, 0)) <= f &&
                                                        f <= json_integer_value(json_array_get(run, 1));
        }
        long n = model_pixels(&p, x, y, W, H);
        printf("panel %d, frame %d: %s, %ld model pixels\n", k, f, problem ? "a problem" : "no problem", n);
        assert_true(n > 2000);
        /* the red frame: on its four sides */
        int border = red(&p, x + W / 2, y + 1) && red(&p, x + 1, y + H / 2) && red(&p, x + W - 2, y + H / 2) &&
                     red(&p, x + W / 2, y + H - 2);
        assert_int_equal(border, problem);
        framed += problem;
    }
    assert_true(framed > 0); /* the sample walk has COM-outside frames among these */
    cairo_surface_destroy(p.s);
    json_decref(r);
}

/* workspace --png (cli/picture.c, cairo): the layout's size, the colour bar's
 * ends the ramp's (viridis: dark violet at the bottom, yellow at the top), and
 * text in the title band (dark pixels there). */
static void test_workspace_png(void **state) {
    (void)state;
    char cmd[2000], path[1200];
    snprintf(cmd, sizeof cmd, "workspace '" KG_SOURCE_DIR "/samples/humanoid.urdf' --tip r_hand --base torso --samples 20000 "
             "--voxel 0.05 --png '%s/ws.png'", tmpdir);
    assert_int_equal(kg_test_run_kinegraph(tmpdir, cmd), 0);
    snprintf(path, sizeof path, "%s/ws.png", tmpdir);
    picture p = read_png(path);
    assert_int_equal(p.w, 70 + 3 * (320 + 80) + 70);
    assert_int_equal(p.h, 60 + 320 + 50);
    int bar = 70 + 3 * (320 + 80) - 80 + 30 + 8, top[3], bottom[3];
    rgb(&p, bar, 60 + 1, top), rgb(&p, bar, 60 + 318, bottom);
    assert_true(abs(top[0] - 253) < 6 && abs(top[1] - 231) < 6 && abs(top[2] - 37) < 6);
    assert_true(abs(bottom[0] - 68) < 6 && abs(bottom[1] - 1) < 6 && abs(bottom[2] - 84) < 6);
    long dark = 0;
    for (int y = 0; y < 30; y++)
        for (int x = 0; x < p.w; x++) {
            int c[3];
            rgb(&p, x, y, c);
            dark += c[0] + c[1] + c[2] < 300;
        }
    printf("workspace picture %dx%d, %ld dark pixels in the title band\n", p.w, p.h, dark);
    assert_true(dark > 100);
    cairo_surface_destroy(p.s);
}

int main(void) {
    if (!mkdtemp(tmpdir)) return 1;
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_layout),
        cmocka_unit_test(test_report_frames),
        cmocka_unit_test(test_workspace_png),
    };
    int rc = cmocka_run_group_tests(tests, NULL, NULL);
    kg_test_remove_dir(tmpdir);
    return rc;
}
