/* kinegraph view (cli/cmd_view.c, cli/view_page.c) in headless Chromium: the page
 * loads without a script error, console error or warning (body[data-kg-status]
 * "ready", read back with --dump-dom), needs nothing from the network (no src or
 * href, every module of the import map a data: URL), and a screenshot at a given
 * frame (#frame=N&nogrid&noui) shows the model: enough pixels that are not the
 * background, their centre near the image's (the camera frames the model's
 * bounding box at frame 0 and follows it). On the sample humanoid at rest, the
 * sample walk (a BVH skeleton: its lines), the humanoid with a retarget CSV and
 * its report (and with the source clip beside it, --source), and the Unitree G1 with a retarget of the walk (corpus); a page
 * whose three.js is broken is seen as failing (status "error: ..."); a joint
 * driven past its limit on some frames is marked on the timeline there; a
 * retarget report's timeline (contact phases, problems) is marked on the
 * motion's frames and adds up to the report's counts. Without
 * chromium, or in a kinegraph built without three.js, the test is skipped
 * (exit 77, SKIP_RETURN_CODE) saying why. */
#define _DEFAULT_SOURCE /* mkdtemp */
#include "testutil.h"

#include "core/fk.h"
#include "formats/utf8.h"
#include "io/motion_file.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

static char tmpdir[] = "/tmp/kg_view_XXXXXX";
static char chromium[256];
#define W 640
#define H 480

static int find_chromium(void) {
    const char *names[] = {"chromium", "chromium-browser", "google-chrome"};
    for (int i = 0; i < 3; i++) {
        char cmd[300];
        snprintf(cmd, sizeof cmd, "command -v %s >/dev/null 2>&1", names[i]);
        if (system(cmd) == 0) {
            snprintf(chromium, sizeof chromium, "%s", names[i]);
            return 1;
        }
    }
    return 0;
}

/* chromium headless on file://PAGE#FRAGMENT: --dump-dom into DIR/dom.html, or a
 * screenshot into PNG; its log in DIR/chromium.log. */
static int run_chromium(const char *page, const char *fragment, const char *png) {
    char cmd[8192], what[1400];
    if (png) snprintf(what, sizeof what, "--screenshot='%s' >/dev/null", png);
    else snprintf(what, sizeof what, "--dump-dom >'%s/dom.html'", tmpdir);
    snprintf(cmd, sizeof cmd,
             "%s --headless --no-sandbox --disable-gpu --use-angle=swiftshader --enable-unsafe-swiftshader "
             "--no-first-run --mute-audio --hide-scrollbars --user-data-dir='%s/profile' --window-size=%d,%d "
             "--virtual-time-budget=15000 --enable-logging=stderr --v=0 %s 'file://%s#%s' 2>'%s/chromium.log'",
             chromium, tmpdir, W, H, what, page, fragment, tmpdir);
    return system(cmd);
}

/* ---- a PNG's pixels (8-bit RGB or RGBA, not interlaced: what Chromium writes) ---- */
static uint32_t be32(const unsigned char *p) { return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3]; }

static unsigned char *png_read(const char *path, int *w, int *h) {
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    unsigned char *b = malloc((size_t)n), *idat = malloc((size_t)n);
    size_t ni = 0;
    if (fread(b, 1, (size_t)n, f) != (size_t)n) n = 0;
    fclose(f);
    int bpp = 0;
    *w = *h = 0;
    for (long p = 8; p + 12 <= n;) {
        uint32_t len = be32(b + p);
        const unsigned char *type = b + p + 4, *d = b + p + 8;
        if (!memcmp(type, "IHDR", 4)) {
            *w = (int)be32(d), *h = (int)be32(d + 4);
            assert_int_equal(d[8], 8);  /* bit depth */
            assert_int_equal(d[12], 0); /* not interlaced */
            bpp = d[9] == 6 ? 4 : d[9] == 2 ? 3 : 0;
            assert_true(bpp);
        } else if (!memcmp(type, "IDAT", 4)) {
            memcpy(idat + ni, d, len);
            ni += len;
        }
        p += 12 + (long)len;
    }
    uLongf raw_n = (uLongf)(*h) * (uLongf)(1 + *w * bpp);
    unsigned char *raw = malloc(raw_n), *rgb = malloc((size_t)*w * (size_t)*h * 3);
    assert_int_equal(uncompress(raw, &raw_n, idat, ni), Z_OK);
    size_t stride = (size_t)*w * (size_t)bpp;
    for (int y = 0; y < *h; y++) { /* undo the filters in place */
        unsigned char *row = raw + (size_t)y * (stride + 1) + 1, *up = y ? row - stride - 1 : NULL;
        int ft = row[-1];
        for (size_t x = 0; x < stride; x++) {
            int a = x >= (size_t)bpp ? row[x - (size_t)bpp] : 0, u = up ? up[x] : 0,
                c = up && x >= (size_t)bpp ? up[x - (size_t)bpp] : 0, pr;
            switch (ft) {
            case 1: pr = a; break;
            case 2: pr = u; break;
            case 3: pr = (a + u) / 2; break;
            case 4: {
                int pa = abs(u - c), pb = abs(a - c), pc = abs(a + u - 2 * c);
                pr = pa <= pb && pa <= pc ? a : pb <= pc ? u : c;
                break;
            }
            default: pr = 0;
            }
            row[x] = (unsigned char)(row[x] + pr);
        }
        for (int x = 0; x < *w; x++) memcpy(rgb + ((size_t)y * (size_t)*w + (size_t)x) * 3, row + (size_t)x * (size_t)bpp, 3);
    }
    free(b), free(idat), free(raw);
    return rgb;
}

/* The page's DOM after it ran (chromium --dump-dom), malloc'd. */
static char *load(const char *page, const char *fragment) {
    assert_int_equal(run_chromium(page, fragment, NULL), 0);
    char dom_path[1200];
    snprintf(dom_path, sizeof dom_path, "%s/dom.html", tmpdir);
    return kg_test_slurp(dom_path);
}

/* Writes the page of ARGS (kinegraph view ... -o NAME.html), checks that it loads
 * and that frame N shows the model around the image centre. */
static void check_page(const char *args, const char *name, int frame) {
    char cmd[4096], page[1200], png[1200], frag[64];
    snprintf(page, sizeof page, "%s/%s.html", tmpdir, name);
    snprintf(png, sizeof png, "%s/%s.png", tmpdir, name);
    snprintf(cmd, sizeof cmd, "view %s -o '%s'", args, page);
    int rc = kg_test_run_kinegraph(tmpdir, cmd);
    if (rc != 0) {
        char err[1300];
        snprintf(err, sizeof err, "%s/err", tmpdir);
        char *e = kg_test_slurp(err);
        fail_msg("kinegraph %s: exit %d: %s", cmd, rc, e);
    }
    /* nothing from the network: no src or href, modules as data: URLs */
    char *html = kg_test_slurp(page);
    const char *map = strstr(html, "<script type=\"importmap\">");
    assert_non_null(map);
    const char *end = strstr(map, "</script>");
    json_error_t je;
    json_t *im = json_loadb(map + 25, (size_t)(end - map - 25), 0, &je);
    if (!im) fail_msg("%s: the import map is not JSON: %s", name, je.text);
    const char *k;
    json_t *v;
    int nmod = 0;
    json_object_foreach(json_object_get(im, "imports"), k, v) {
        if (strncmp(json_string_value(v), "data:text/javascript;base64,", 28)) fail_msg("%s: module %s is not a data: URL", name, k);
        nmod++;
    }
    assert_true(nmod >= 3);
    json_decref(im);
    assert_null(strstr(html, " src="));
    assert_null(strstr(html, " href="));
    printf("%s: %.1f MB\n", name, strlen(html) / 1e6);
    free(html);
    /* it loads: no script error, console error or warning */
    snprintf(frag, sizeof frag, "frame=%d", frame);
    char *dom = load(page, frag);
    const char *st = strstr(dom, "data-kg-status=\"");
    if (!st || strncmp(st + 16, "ready\"", 6)) fail_msg("%s: page status %.200s", name, st ? st + 16 : "(none: no <body>?)");
    if (strstr(dom, " data-kg-warnings=\"")) fail_msg("%s: console warnings: %.400s", name, strstr(dom, " data-kg-warnings=\""));
    free(dom);
    char log_path[1200];
    snprintf(log_path, sizeof log_path, "%s/chromium.log", tmpdir);
    char *log = kg_test_slurp(log_path);
    if (strstr(log, "Uncaught")) fail_msg("%s: %s", name, strstr(log, "Uncaught"));
    free(log);
    /* the model near the centre of the picture at that frame */
    snprintf(frag, sizeof frag, "frame=%d&nogrid&noui", frame);
    assert_int_equal(run_chromium(page, frag, png), 0);
    int w, h;
    unsigned char *rgb = png_read(png, &w, &h);
    assert_non_null(rgb);
    assert_int_equal(w, W);
    assert_int_equal(h, H);
    const unsigned char bg[3] = {rgb[0], rgb[1], rgb[2]}; /* a corner: the background */
    assert_true(abs(bg[0] - 0xee) <= 2 && abs(bg[1] - 0xf0) <= 2 && abs(bg[2] - 0xf3) <= 2);
    long count = 0;
    double sx = 0, sy = 0;
    int x0 = w, x1 = -1, y0 = h, y1 = -1;
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) {
            const unsigned char *p = rgb + ((size_t)y * (size_t)w + (size_t)x) * 3;
            if (abs(p[0] - bg[0]) + abs(p[1] - bg[1]) + abs(p[2] - bg[2]) <= 12) continue;
            count++, sx += x, sy += y;
            if (x < x0) x0 = x;
            if (x > x1) x1 = x;
            if (y < y0) y0 = y;
            if (y > y1) y1 = y;
        }
    free(rgb);
    printf("%s, frame %d: %ld model pixels, centre (%.0f, %.0f), box x %d..%d y %d..%d\n", name, frame, count,
           count ? sx / count : 0, count ? sy / count : 0, x0, x1, y0, y1);
    if (count < 300) fail_msg("%s: the picture is blank (%ld pixels not background)", name, count);
    /* the middle of the model's box, within 15 % of the image's centre; the model
     * at least a fifth of the image high (the camera frames it) */
    assert_true(fabs((x0 + x1) / 2.0 - w / 2.0) < 0.15 * w);
    assert_true(fabs((y0 + y1) / 2.0 - h / 2.0) < 0.15 * h);
    assert_true(y1 - y0 > h / 5);
}

/* The page's data (the kg-data script's JSON). */
static json_t *page_data(const char *page) {
    char *html = kg_test_slurp(page);
    const char *a = strstr(html, "<script type=\"application/json\" id=\"kg-data\">");
    assert_non_null(a);
    a = strchr(a, '>') + 1;
    const char *b = strstr(a, "</script>");
    assert_non_null(b);
    json_error_t e;
    json_t *j = json_loadb(a, (size_t)(b - a), 0, &e);
    if (!j) fail_msg("%s: kg-data: %s", page, e.text);
    free(html);
    return j;
}

static void test_usage(void **state) {
    (void)state;
    assert_int_equal(kg_test_run_kinegraph(tmpdir, "view --help"), 0);
    char path[1200];
    snprintf(path, sizeof path, "%s/out", tmpdir);
    char *help = kg_test_slurp(path);
    const char *opts[] = {"\n  -o, --output ", "\n  --motion-fps ", "\n  --source ", "\n  --no-marks ", "\n  --force ", "\n  --json ", "\n  --package-path ", "\n  -h, --help "};
    for (int i = 0; i < 8; i++) {
        const char *p = strstr(help, opts[i]);
        if (!p || strstr(p + 1, opts[i])) fail_msg("view --help lists '%s' %s", opts[i] + 3, p ? "twice" : "not at all");
    }
    free(help);
    assert_int_equal(kg_test_run_kinegraph(tmpdir, "view '" KG_SOURCE_DIR "/samples/humanoid.urdf'"), 2); /* no -o */
    assert_int_equal(kg_test_run_kinegraph(tmpdir, "view -o x.html"), 2);
    assert_int_equal(kg_test_run_kinegraph(tmpdir, "view '" KG_SOURCE_DIR "/samples/humanoid.urdf' --bogus -o x.html"), 2);
    char cmd[2000];
    snprintf(cmd, sizeof cmd, "view '%s/nope.urdf' -o '%s/nope.html'", tmpdir, tmpdir);
    assert_int_equal(kg_test_run_kinegraph(tmpdir, cmd), 1);
    snprintf(cmd, sizeof cmd, "view '" KG_SOURCE_DIR "/samples/humanoid.urdf' '%s/nope.csv' -o '%s/nope.html'", tmpdir, tmpdir);
    assert_int_equal(kg_test_run_kinegraph(tmpdir, cmd), 1);
    snprintf(cmd, sizeof cmd, "view '" KG_SOURCE_DIR "/samples/humanoid.urdf' --source '%s/nope.bvh' -o '%s/nope.html'", tmpdir, tmpdir);
    assert_int_equal(kg_test_run_kinegraph(tmpdir, cmd), 1);
    snprintf(path, sizeof path, "%s/nope.html", tmpdir);
    assert_int_not_equal(access(path, F_OK), 0); /* nothing written on failure */
}

/* A model whose file name is Latin-1 (as older tools write): the page is
 * UTF-8, its title the name transcoded (it was written raw, and the page
 * data lost the key). */
static void test_latin1_name(void **state) {
    (void)state;
    char cmd[2400], path[1200];
    snprintf(cmd, sizeof cmd, "cp '" KG_SOURCE_DIR "/samples/humanoid.urdf' '%s/h\xe9t.urdf'", tmpdir);
    assert_int_equal(system(cmd), 0);
    snprintf(cmd, sizeof cmd, "view '%s/h\xe9t.urdf' -o '%s/latin1.html'", tmpdir, tmpdir);
    assert_int_equal(kg_test_run_kinegraph(tmpdir, cmd), 0);
    snprintf(path, sizeof path, "%s/latin1.html", tmpdir);
    char *page = kg_test_slurp(path);
    assert_true(kg_utf8_valid(page, strlen(page)));
    assert_non_null(strstr(page, "<title>kinegraph view: h\xc3\xa9t.urdf</title>"));
    assert_non_null(strstr(page, "\"title\":\"h\\u00E9t.urdf\""));
    free(page);
}

static void test_samples(void **state) {
    (void)state;
    check_page("'" KG_SOURCE_DIR "/samples/humanoid.urdf'", "humanoid", 0);
    check_page("'" KG_SOURCE_DIR "/samples/walk.bvh'", "walk", 60);
    /* the check sees errors: a broken three.js module makes the status an error */
    char cmd[4096];
    snprintf(cmd, sizeof cmd, "sed 's|\"three\":\"data:text/javascript;base64,|&QUJD|' '%s/walk.html' >'%s/broken.html'", tmpdir, tmpdir);
    assert_int_equal(system(cmd), 0);
    snprintf(cmd, sizeof cmd, "%s/broken.html", tmpdir);
    char *dom = load(cmd, "");
    const char *st = strstr(dom, "data-kg-status=\"");
    if (!st || strncmp(st + 16, "error: ", 7)) fail_msg("a broken page: status %.200s", st ? st + 16 : "(none)");
    free(dom);
    /* a retarget run: its CSV and report */
    snprintf(cmd, sizeof cmd,
             "retarget '" KG_SOURCE_DIR "/samples/walk.bvh' --robot '" KG_SOURCE_DIR "/samples/humanoid.urdf' "
             "-o '%s/walk_humanoid.csv' --report '%s/walk_humanoid.json'",
             tmpdir, tmpdir);
    assert_int_equal(kg_test_run_kinegraph(tmpdir, cmd), 0);
    snprintf(cmd, sizeof cmd, "'" KG_SOURCE_DIR "/samples/humanoid.urdf' '%s/walk_humanoid.csv' '%s/walk_humanoid.json'",
             tmpdir, tmpdir);
    check_page(cmd, "retarget_humanoid", 60);
    /* with the source clip beside the robot */
    snprintf(cmd, sizeof cmd, "'" KG_SOURCE_DIR "/samples/humanoid.urdf' '%s/walk_humanoid.csv' '%s/walk_humanoid.json' "
             "--source '" KG_SOURCE_DIR "/samples/walk.bvh'", tmpdir, tmpdir);
    check_page(cmd, "retarget_source", 60);
    char page[1200];
    snprintf(page, sizeof page, "%s/retarget_source.html", tmpdir);
    json_t *d = page_data(page);
    assert_true(json_array_size(json_object_get(json_object_get(d, "source"), "links")) > 10);
    assert_true(json_is_string(json_object_get(d, "source_glb")));
    assert_true(json_real_value(json_object_get(json_object_get(d, "source"), "scale")) > 0); /* the report's leg scale */
    json_decref(d);
}

/* Per-frame problems on the timeline: a joint driven past its limit on frames
 * 10-20 (1-based) of the retargeted walk is marked there, and drawn. */
static void test_marks(void **state) {
    (void)state;
    char cmd[4096], page[1200];
    snprintf(cmd, sizeof cmd,
             "retarget '" KG_SOURCE_DIR "/samples/walk.bvh' --robot '" KG_SOURCE_DIR "/samples/humanoid.urdf' "
             "-o '%s/marks.csv'",
             tmpdir);
    assert_int_equal(kg_test_run_kinegraph(tmpdir, cmd), 0);
    /* headerless: x y z qx qy qz qw, then the coordinates; the first is a limited hinge */
    snprintf(cmd, sizeof cmd, "awk -F, -v OFS=, 'NR >= 10 && NR <= 20 {$8 = 10} {print}' '%s/marks.csv' >'%s/bad.csv'",
             tmpdir, tmpdir);
    assert_int_equal(system(cmd), 0);
    snprintf(cmd, sizeof cmd, "'" KG_SOURCE_DIR "/samples/humanoid.urdf' '%s/bad.csv'", tmpdir);
    check_page(cmd, "marks", 15);
    snprintf(page, sizeof page, "%s/marks.html", tmpdir);
    json_t *d = page_data(page), *marks = json_object_get(d, "marks"), *mk;
    size_t i;
    int found = 0;
    json_array_foreach(marks, i, mk) {
        printf("marks: %s: %s\n", json_string_value(json_object_get(mk, "kind")),
               json_string_value(json_object_get(mk, "detail")));
        if (strcmp(json_string_value(json_object_get(mk, "kind")), "joint limit")) continue;
        json_t *r = json_object_get(mk, "ranges");
        assert_int_equal(json_array_size(r), 1);
        assert_int_equal(json_integer_value(json_array_get(json_array_get(r, 0), 0)), 9);
        assert_int_equal(json_integer_value(json_array_get(json_array_get(r, 0), 1)), 19);
        found = 1;
    }
    assert_true(found);
    json_decref(d);
    char *dom = load(page, "frame=0");
    assert_non_null(strstr(dom, "class=\"mark\""));
    free(dom);
    /* the unchanged motion has no joint-limit marks; --no-marks none at all */
    snprintf(cmd, sizeof cmd, "view '" KG_SOURCE_DIR "/samples/humanoid.urdf' '%s/marks.csv' -o '%s'", tmpdir, page);
    assert_int_equal(kg_test_run_kinegraph(tmpdir, cmd), 0);
    d = page_data(page);
    json_array_foreach(json_object_get(d, "marks"), i, mk) assert_string_not_equal(json_string_value(json_object_get(mk, "kind")), "joint limit");
    json_decref(d);
    snprintf(cmd, sizeof cmd, "view '" KG_SOURCE_DIR "/samples/humanoid.urdf' '%s/bad.csv' --no-marks -o '%s'", tmpdir, page);
    assert_int_equal(kg_test_run_kinegraph(tmpdir, cmd), 0);
    d = page_data(page);
    assert_int_equal(json_array_size(json_object_get(d, "marks")), 0);
    json_decref(d);
}

/* Frames in runs [[a, b], ...]; into in[] (when not NULL) 1 for each. */
static int run_frames(json_t *runs, unsigned char *in, int n) {
    size_t i;
    json_t *r;
    int count = 0;
    json_array_foreach(runs, i, r) {
        int a = (int)json_integer_value(json_array_get(r, 0)), b = (int)json_integer_value(json_array_get(r, 1));
        assert_true(0 <= a && a <= b && b < n);
        count += b - a + 1;
        if (in)
            for (int f = a; f <= b; f++) in[f] = 1;
    }
    return count;
}

/* The report's timeline adds up to its counts: both feet's runs are
 * contact_phases, their union contact_frames, their meet
 * double_support_frames; self-collision frames, hover and COM outside as the
 * report counts them; limits flagged exactly when limit_violations > 0. */
static void check_timeline(json_t *r) {
    json_t *tl = json_object_get(r, "timeline");
    assert_true(json_is_object(tl));
    int n = (int)json_integer_value(json_object_get(r, "frames"));
    unsigned char *l = calloc((size_t)n, 1), *rt = calloc((size_t)n, 1);
    run_frames(json_object_get(tl, "contact_left"), l, n);
    run_frames(json_object_get(tl, "contact_right"), rt, n);
    int any = 0, both = 0;
    for (int f = 0; f < n; f++) any += l[f] || rt[f], both += l[f] && rt[f];
    free(l), free(rt);
    assert_int_equal(any, json_integer_value(json_object_get(r, "contact_frames")));
    assert_int_equal(both, json_integer_value(json_object_get(r, "double_support_frames")));
    assert_int_equal(json_array_size(json_object_get(tl, "contact_left")) + json_array_size(json_object_get(tl, "contact_right")),
                     json_integer_value(json_object_get(r, "contact_phases")));
    if (json_is_integer(json_object_get(r, "self_collision_frames")))
        assert_int_equal(run_frames(json_object_get(tl, "self_collision"), NULL, n),
                         json_integer_value(json_object_get(r, "self_collision_frames")));
    assert_int_equal(run_frames(json_object_get(tl, "root_fast"), NULL, n), json_integer_value(json_object_get(r, "root_fast_frames")));
    assert_int_equal(run_frames(json_object_get(tl, "hips_low"), NULL, n), json_integer_value(json_object_get(r, "hips_low_frames")));
    double hover = 100.0 * run_frames(json_object_get(tl, "hover"), NULL, n) / n;
    assert_true(fabs(hover - json_number_value(json_object_get(r, "hover_percent"))) < 1e-9);
    int seated = run_frames(json_object_get(tl, "seated"), NULL, n); /* the sample walk: none */
    assert_int_equal(seated, json_integer_value(json_object_get(r, "seated_frames")));
    double com = 100.0 * run_frames(json_object_get(tl, "com_outside"), NULL, n) / (any - seated > 0 ? any - seated : 1);
    assert_true(fabs(com - json_number_value(json_object_get(r, "com_outside_percent"))) < 1e-9);
    assert_int_equal(run_frames(json_object_get(tl, "limit"), NULL, n) > 0, json_integer_value(json_object_get(r, "limit_violations")) > 0);
    assert_true(run_frames(json_object_get(tl, "zmp_outside"), NULL, n) <= any);
    printf("timeline: %d frames, %d contact, %d double, com outside %.1f %%, hover %.1f %%, zmp outside %d frames, slip %d, "
           "penetration %d, self-collision %d\n", n, any, both, com, hover, run_frames(json_object_get(tl, "zmp_outside"), NULL, n),
           run_frames(json_object_get(tl, "slip"), NULL, n), run_frames(json_object_get(tl, "penetration"), NULL, n),
           run_frames(json_object_get(tl, "self_collision"), NULL, n));
}

/* The page's mark of this kind (NULL: none). */
static json_t *mark_of(json_t *d, const char *kind) {
    size_t i;
    json_t *mk;
    json_array_foreach(json_object_get(d, "marks"), i, mk) if (!strcmp(json_string_value(json_object_get(mk, "kind")), kind)) return mk;
    return NULL;
}

/* The report's timeline on the page: the walk retargeted onto the sample
 * humanoid, its report's runs the page's bars (same frames, and in the DOM);
 * the motion written at 60 frames/s (--fps) gets them on its own frames (a run
 * of report frames [a, b] at 30/s is [2a, 2b + 1]); a motion the report is not
 * of gets none, said on stderr. */
static void test_report_timeline(void **state) {
    (void)state;
    char cmd[4096], page[1200], path[1200];
    snprintf(cmd, sizeof cmd,
             "retarget '" KG_SOURCE_DIR "/samples/walk.bvh' --robot '" KG_SOURCE_DIR "/samples/humanoid.urdf' "
             "-o '%s/tl.csv' --report '%s/tl.json'", tmpdir, tmpdir);
    assert_int_equal(kg_test_run_kinegraph(tmpdir, cmd), 0);
    snprintf(path, sizeof path, "%s/tl.json", tmpdir);
    json_t *r = json_load_file(path, 0, NULL), *tl = json_object_get(r, "timeline");
    check_timeline(r);
    assert_true(json_array_size(json_object_get(tl, "contact_left")) > 1); /* the walk's steps */
    snprintf(cmd, sizeof cmd, "'" KG_SOURCE_DIR "/samples/humanoid.urdf' '%s/tl.csv' '%s/tl.json'", tmpdir, tmpdir);
    check_page(cmd, "timeline", 30);
    snprintf(page, sizeof page, "%s/timeline.html", tmpdir);
    json_t *d = page_data(page);
    static const char *const flags[][2] = {{"contact_left", "left foot down"}, {"contact_right", "right foot down"},
                                           {"com_outside", "COM outside"}, {"self_collision", "self-collision"}};
    for (int k = 0; k < 4; k++) {
        json_t *runs = json_object_get(tl, flags[k][0]), *mk = mark_of(d, flags[k][1]);
        if (!json_array_size(runs)) {
            assert_null(mk);
            continue;
        }
        assert_non_null(mk);
        assert_true(json_equal(runs, json_object_get(mk, "ranges")));
        assert_int_equal(json_integer_value(json_object_get(mk, "frames")), run_frames(runs, NULL, 1 << 30));
    }
    assert_null(mark_of(d, "joint limit")); /* the report's figures only: none there */
    json_decref(d);
    char *dom = load(page, "frame=0");
    assert_non_null(strstr(dom, "data-kind=\"left foot down\""));
    assert_non_null(strstr(dom, "data-kind=\"right foot down\""));
    free(dom);
    /* at 60 frames/s */
    snprintf(cmd, sizeof cmd,
             "retarget '" KG_SOURCE_DIR "/samples/walk.bvh' --robot '" KG_SOURCE_DIR "/samples/humanoid.urdf' "
             "-o '%s/tl60.csv' --fps 60", tmpdir);
    assert_int_equal(kg_test_run_kinegraph(tmpdir, cmd), 0);
    snprintf(cmd, sizeof cmd, "view '" KG_SOURCE_DIR "/samples/humanoid.urdf' '%s/tl60.csv' '%s/tl.json' --motion-fps 60 -o '%s'",
             tmpdir, tmpdir, page);
    assert_int_equal(kg_test_run_kinegraph(tmpdir, cmd), 0);
    d = page_data(page);
    json_t *runs = json_object_get(tl, "contact_left"), *mk = mark_of(d, "left foot down"), *x;
    assert_non_null(mk);
    size_t i;
    int nf = (int)json_integer_value(json_object_get(d, "frames"));
    json_array_foreach(runs, i, x) {
        json_t *y = json_array_get(json_object_get(mk, "ranges"), i);
        int a = (int)json_integer_value(json_array_get(x, 0)), b = (int)json_integer_value(json_array_get(x, 1));
        assert_int_equal(json_integer_value(json_array_get(y, 0)), 2 * a);
        assert_int_equal(json_integer_value(json_array_get(y, 1)), 2 * b + 1 < nf ? 2 * b + 1 : nf - 1);
    }
    json_decref(d);
    /* a motion of another length: no report marks, a warning */
    snprintf(cmd, sizeof cmd, "head -n 60 '%s/tl.csv' >'%s/half.csv'", tmpdir, tmpdir);
    assert_int_equal(system(cmd), 0);
    snprintf(cmd, sizeof cmd, "view '" KG_SOURCE_DIR "/samples/humanoid.urdf' '%s/half.csv' '%s/tl.json' -o '%s'",
             tmpdir, tmpdir, page);
    char *out = NULL, *err = NULL;
    assert_int_equal(kg_test_run_captured(tmpdir, cmd, &out, &err), 0);
    assert_non_null(strstr(err, "view.report_motion"));
    free(out), free(err);
    d = page_data(page);
    assert_null(mark_of(d, "left foot down"));
    json_decref(d);
    json_decref(r);
}

/* The robot where FK puts it: the page of MODEL and its MOTION (a retarget
 * CSV) at frame N with the skeleton only (#skeleton&nomesh: red lines between
 * the link frames, drawn over everything), against the link frames of
 * kinegraph's FK at that frame projected through the page's camera
 * (body[data-kg-camera]): every link frame that ends a line of the skeleton
 * has red pixels within 2 px of its projection, and nearly all red pixels
 * (99 %) are within 2.5 px of a projected line. */
static double seg_dist(double px, double py, const double a[2], const double b[2]) {
    double dx = b[0] - a[0], dy = b[1] - a[1], l2 = dx * dx + dy * dy;
    double t = l2 > 0 ? ((px - a[0]) * dx + (py - a[1]) * dy) / l2 : 0;
    t = t < 0 ? 0 : t > 1 ? 1 : t;
    return hypot(px - a[0] - t * dx, py - a[1] - t * dy);
}

static void check_fk_projection(const char *model_path, const char *motion_path, const char *name, int frame) {
    char cmd[4096], page[1200], png[1200], frag[80];
    snprintf(page, sizeof page, "%s/%s_fk.html", tmpdir, name);
    snprintf(png, sizeof png, "%s/%s_fk.png", tmpdir, name);
    snprintf(cmd, sizeof cmd, "view '%s' '%s' --no-marks -o '%s'", model_path, motion_path, page);
    assert_int_equal(kg_test_run_kinegraph(tmpdir, cmd), 0);
    snprintf(frag, sizeof frag, "frame=%d&nogrid&noui&skeleton&nomesh&size=%dx%d", frame, W, H);
    char *dom = load(page, frag);
    const char *cam = strstr(dom, "data-kg-camera=\"");
    assert_non_null(cam);
    cam += 16;
    /* the attribute's JSON, its quotes as &quot; */
    char *json = malloc(strlen(cam) + 1);
    size_t n = 0;
    for (const char *c = cam; *c && *c != '"'; c++) {
        if (!strncmp(c, "&quot;", 6)) json[n++] = '"', c += 5;
        else json[n++] = *c;
    }
    json[n] = '\0';
    json_t *camera = json_loads(json, 0, NULL);
    assert_non_null(camera);
    free(json), free(dom);
    double M[16];
    for (int k = 0; k < 16; k++) M[k] = json_number_value(json_array_get(json_object_get(camera, "matrix"), (size_t)k));
    int W0 = (int)json_integer_value(json_object_get(camera, "width")), H0 = (int)json_integer_value(json_object_get(camera, "height"));
    json_decref(camera);
    /* FK at that frame */
    kg_diags d;
    kg_diags_init(&d);
    kg_model *m = kg_load(model_path, NULL, &d);
    assert_non_null(m);
    kg_motion *mo = kg_load_motion_for(m, motion_path, NULL, 0, &d);
    assert_non_null(mo);
    kg_data *kd = kg_data_new(m);
    int nl = m->nlink - m->nloop;
    double (*px)[2] = malloc((size_t)nl * sizeof *px);
    /* a control: FK of a frame 40 before (as far as the picture is concerned, another
     * motion) leaves most red pixels off its lines */
    for (int pass = 0; pass < 2; pass++) {
        kg_motion_pose(mo, pass ? frame : frame - 40, kd);
        kg_fk(m, kd);
        for (int l = 0; l < nl; l++) {
            const double *p = kd->link_pos + 3 * l;
            double w[4] = {p[0], p[2], -p[1], 1}, c[4] = {0}; /* Z up to three.js's Y up (the glTF's z_up node) */
            for (int r = 0; r < 4; r++)
                for (int k = 0; k < 4; k++) c[r] += M[4 * k + r] * w[k];
            px[l][0] = (c[0] / c[3] + 1) / 2 * W0, px[l][1] = (1 - c[1] / c[3]) / 2 * H0;
        }
        if (!pass) {
            /* the screenshot's red pixels */
            assert_int_equal(run_chromium(page, frag, png), 0);
        }
        int w, h;
        unsigned char *rgb = png_read(png, &w, &h);
        assert_int_equal(w, W0);
        assert_int_equal(h, H0);
        long red = 0, near = 0;
        unsigned char *is_red = calloc((size_t)w * (size_t)h, 1);
        for (int y = 0; y < h; y++)
            for (int x = 0; x < w; x++) {
                const unsigned char *c = rgb + ((size_t)y * (size_t)w + (size_t)x) * 3;
                if (!(c[0] - c[1] > 30 && c[0] - c[2] > 30)) continue; /* the line, anti-aliased */
                is_red[(size_t)y * (size_t)w + (size_t)x] = 1, red++;
                double best = INFINITY;
                for (int l = 1; l < nl; l++)
                    if (m->link[l].parent >= 0) best = fmin(best, seg_dist(x + 0.5, y + 0.5, px[m->link[l].parent], px[l]));
                near += best <= 2.5;
            }
        int ends = 0, found = 0;
        for (int l = 1; l < nl; l++) {
            int p = m->link[l].parent;
            if (p < 0 || hypot(px[l][0] - px[p][0], px[l][1] - px[p][1]) < 4) continue; /* a line too short to see */
            for (int e = 0; e < 2; e++) {
                const double *q = px[e ? p : l];
                int hit = 0;
                for (int y = (int)q[1] - 2; y <= (int)q[1] + 2 && !hit; y++)
                    for (int x = (int)q[0] - 2; x <= (int)q[0] + 2 && !hit; x++)
                        hit = x >= 0 && y >= 0 && x < w && y < h && is_red[(size_t)y * (size_t)w + (size_t)x];
                ends++, found += hit;
                if (!hit && pass) printf("%s: no line at %s's frame (%.1f, %.1f)\n", name, m->link[e ? p : l].name, q[0], q[1]);
            }
        }
        printf("%s, frame %d: %ld red pixels, %.2f %% within 2.5 px of FK's projected lines at frame %d; %d/%d line ends found\n", name,
               frame, red, 100.0 * near / (red ? red : 1), pass ? frame : frame - 40, found, ends);
        if (!pass) {
            assert_true(near < 0.9 * red);
            free(is_red), free(rgb);
            continue;
        }
        assert_true(red > 200);
        assert_true(near >= 0.99 * red);
        assert_true(ends > 10);
        assert_int_equal(found, ends);
        free(is_red), free(rgb);
    }
    free(px);
    kg_data_free(kd);
    kg_motion_free(mo);
    kg_model_free(m);
    kg_diags_clear(&d);
}

static void test_fk_projection(void **state) {
    (void)state;
    char cmd[4096], csv[1200], model[1200];
    snprintf(csv, sizeof csv, "%s/fk_humanoid.csv", tmpdir);
    snprintf(cmd, sizeof cmd, "retarget '" KG_SOURCE_DIR "/samples/walk.bvh' --robot '" KG_SOURCE_DIR "/samples/humanoid.urdf' -o '%s'", csv);
    assert_int_equal(kg_test_run_kinegraph(tmpdir, cmd), 0);
    check_fk_projection(KG_SOURCE_DIR "/samples/humanoid.urdf", csv, "humanoid", 45);
    KG_REQUIRE_DATA(data);
    static const char *const robots[][2] = {{"g1", "urdf/unitree_g1/g1_description/g1_29dof_rev_1_0.urdf"},
                                            {"jvrc1", "urdf/jvrc1/jvrc_description/urdf/jvrc1.urdf"}};
    for (int r = 0; r < 2; r++) {
        snprintf(model, sizeof model, "%s/%s", data, robots[r][1]);
        snprintf(csv, sizeof csv, "%s/fk_%s.csv", tmpdir, robots[r][0]);
        snprintf(cmd, sizeof cmd, "retarget '" KG_SOURCE_DIR "/samples/walk.bvh' --robot '%s' -o '%s'", model, csv);
        assert_int_equal(kg_test_run_kinegraph(tmpdir, cmd), 0);
        check_fk_projection(model, csv, robots[r][0], 75);
    }
}

static void test_g1(void **state) {
    (void)state;
    KG_REQUIRE_DATA(data);
    char cmd[4096];
    snprintf(cmd, sizeof cmd,
             "retarget '" KG_SOURCE_DIR "/samples/walk.bvh' --robot '%s/urdf/unitree_g1/g1_description/g1_29dof_rev_1_0.urdf' "
             "-o '%s/g1.csv' --report '%s/g1.json'",
             data, tmpdir, tmpdir);
    assert_int_equal(kg_test_run_kinegraph(tmpdir, cmd), 0);
    snprintf(cmd, sizeof cmd, "'%s/urdf/unitree_g1/g1_description/g1_29dof_rev_1_0.urdf' '%s/g1.csv' '%s/g1.json'", data,
             tmpdir, tmpdir);
    check_page(cmd, "retarget_g1", 90);
    char path[1200];
    snprintf(path, sizeof path, "%s/g1.json", tmpdir);
    json_t *r = json_load_file(path, 0, NULL);
    check_timeline(r);
    json_decref(r);
}

int main(void) {
    if (!mkdtemp(tmpdir)) return 1;
    int skip = 0;
    if (!find_chromium()) {
        printf("SKIPPED: test_view needs headless Chromium (apt-get install chromium)\n");
        skip = 1;
    } else {
        char cmd[2000], err[1200];
        snprintf(cmd, sizeof cmd, "view '" KG_SOURCE_DIR "/samples/humanoid.urdf' -o '%s/probe.html'", tmpdir);
        snprintf(err, sizeof err, "%s/err", tmpdir);
        if (kg_test_run_kinegraph(tmpdir, cmd) == 3) {
            char *e = kg_test_slurp(err);
            if (strstr(e, "three.js")) {
                printf("SKIPPED: test_view: this kinegraph has no three.js: %s", e);
                skip = 1;
            }
            free(e);
        }
    }
    if (skip) {
        kg_test_remove_dir(tmpdir);
        return 77;
    }
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_usage),
        cmocka_unit_test(test_latin1_name),
        cmocka_unit_test(test_samples),
        cmocka_unit_test(test_marks),
        cmocka_unit_test(test_report_timeline),
        cmocka_unit_test(test_fk_projection),
        cmocka_unit_test(test_g1),
    };
    int rc = cmocka_run_group_tests(tests, NULL, NULL);
    kg_test_remove_dir(tmpdir);
    return rc;
}
