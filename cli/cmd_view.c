#define _POSIX_C_SOURCE 200809L /* clock_gettime */
/* kinegraph view MODEL [MOTION] [REPORT.json] -o PAGE.html: a page that shows a
 * model and its motion in a browser, with three.js inside it (no network). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "cli/common.h"
#include "exporters/filmstrip.h"
#include "cli/view_page.h"
#include "formats/fileio.h"
#include "io/motion_file.h"

/* The three.js modules, bundled at build time (tools/three_bundle.sh writes
 * three_bundle.c): kg_three_missing says why when they could not be. */
extern const char *const kg_three_version;
extern const char *const kg_three_missing;
extern const char kg_three_imports[];

typedef struct opts {
    const char *out, *png, *png_frames, *png_columns, *png_size, *motion_fps, *source, *motion, *report;
    int no_marks, force;
} opts;

static int run(int argc, char **argv);

static int ends_with(const char *s, const char *ext) {
    size_t n = strlen(s), k = strlen(ext);
    return n > k && strcasecmp(s + n - k, ext) == 0;
}

/* MODEL, then a MOTION and a REPORT.json in either order (told by the extension) */
static int operand(kg_cli *c, char *word) {
    opts *o = c->ctx;
    if (!c->model_path) c->model_path = word;
    else if (ends_with(word, ".json") && !o->report) o->report = word;
    else if (!ends_with(word, ".json") && !o->motion) o->motion = word;
    else return kg_cli_usage_error("view", "give MODEL, at most one MOTION and one REPORT.json"), -1;
    return 0;
}

static const kg_cli_option options[] = {
    {"--output", "-o", "PAGE.html", KG_TEXT(opts, out), .complete = KG_COMPLETE_FILE, .help = "the page to write"},
    {"--png", .value = "STRIP.png", KG_TEXT(opts, png), .complete = KG_COMPLETE_FILE,
     .help = "a filmstrip of the motion as one PNG"},
    {"--png-frames", .value = "N", KG_TEXT(opts, png_frames),
     .help = "its panels (default 8; fewer when the motion has fewer frames)"},
    {"--png-columns", .value = "N", KG_TEXT(opts, png_columns), .help = "panels per row (default 4)"},
    {"--png-size", .value = "W,H", KG_TEXT(opts, png_size),
     .help = "one panel's picture in pixels (default 240,300), its caption below"},
    {"--motion-fps", .value = "N", KG_TEXT(opts, motion_fps),
     .help = "the frame rate of a CSV MOTION (default: a headed CSV's time\n"
             "column, 30 for a headerless one, LAFAN1's and retarget's)"},
    {"--source", .value = "CLIP", KG_TEXT(opts, source), .complete = KG_COMPLETE_FILE,
     .help = "the retarget's source clip (BVH, COLLADA), drawn as blue lines\n"
             "beside the robot at the report's leg scale (else at the robot's\n"
             "height) and played at the same times"},
    {"--no-marks", KG_FLAG(opts, no_marks, 1),
     .help = "leave the timeline bare: no report marks, no check of joint\n"
             "limits and self-collision at every frame"},
    {"--force", KG_FLAG(opts, force, 1), .help = "write the page even when the model has errors"},
    {0},
};

const kg_cli_command kg_cmd_view = {
    .name = "view",
    .summary = "a web page that shows a model and plays its motion (three.js inside, no network)",
    .usage = "kinegraph view MODEL [MOTION] [REPORT.json] [-o PAGE.html] [--png STRIP.png [--png-frames N]\n"
             "                      [--png-columns N] [--png-size W,H]] [--source CLIP] [--motion-fps N]\n"
             "                      [--no-marks] [options]\n",
    .description =
        "Writes one self-contained HTML page that shows MODEL (its visual meshes and primitives,\n"
        "as glTF) on a ground grid, and plays its motion: MODEL's own (a BVH, an animated\n"
        "COLLADA file) or MOTION's, a trajectory CSV (what retarget writes, or convert's layout)\n"
        "or a BVH or COLLADA animation whose coordinates have MODEL's names. A retarget report\n"
        "(REPORT.json, from retarget --report) puts its figures beside the model. The page holds\n"
        "three.js (bundled into kinegraph at build time from npm) and needs no network: open it\n"
        "from disk in a browser with WebGL. Play/pause (space), the time slider, frame stepping\n"
        "(arrow keys), 'follow' (the camera keeps the robot in view), 'skeleton' (lines between\n"
        "link frames; on for models without geometry); drag to orbit, wheel to zoom.\n"
        "Under the slider, bars mark frames: with a retarget report that has a timeline (retarget\n"
        "writes one), its contact phases (each foot down) and the frames its counts count (foot slip,\n"
        "penetration, hover, self-collision, ZMP and COM outside, joint limit and speed, root jump,\n"
        "hips low);\n"
        "without, the frames where a joint is outside its position limits and where links'\n"
        "collision geometry meets (pairs not adjacent, not declared ignored, apart at the rest\n"
        "pose; convex hulls). A click goes to the first frame of a bar. The URL's\n"
        "fragment sets the start: page.html#frame=N shows frame N paused; #nogrid hides the grid,\n"
        "#noui the panels (page.html#frame=30&nogrid&noui, for pictures), #skeleton draws the lines\n"
        "between link frames, #nomesh hides the meshes, #size=WxH draws a picture of that size.\n"
        "A build without three.js writes no page and exits with status 3, saying so.\n"
        "--png writes a filmstrip instead of, or besides, the page: frames spread evenly over\n"
        "the motion (the first and the last among them), drawn with cairo (no browser), the same\n"
        "scale in every panel, each centred on the model and captioned with its frame, time and\n"
        "marks (feet down; problems in red, the panel framed in red).\n",
    .options = options,
    .common = KG_CLI_JSON | KG_CLI_MODEL,
    .operands = KG_COMPLETE_FILE,
    .run = run,
};

/* The page to out (atomically); its size in *bytes. Returns 0, or -1 said. */
static int write_page(kg_cli *c, const kg_model *m, const kg_view_options *v, const kg_export_options *eo,
                      const char *out, long *bytes) {
    kg_out o;
    if (kg_out_open(&o, out) != 0) {
        perror(out);
        return -1;
    }
    if (kg_export_view(m, c->motion, v, eo, o.f, NULL, &c->diags) != 0) {
        kg_out_abort(&o);
        fprintf(stderr, "kinegraph view: cannot write %s\n", out);
        return -1;
    }
    *bytes = ftell(o.f);
    if (kg_out_commit(&o) != 0) {
        perror(out);
        return -1;
    }
    return 0;
}

/* The filmstrip to png (atomically). Returns 0, or -1 said. */
static int write_strip(kg_cli *c, const kg_model *m, const kg_filmstrip_options *strip, kg_mesh_cache *meshes,
                       const char *png) {
    kg_out o;
    if (kg_out_open(&o, png) != 0) {
        perror(png);
        return -1;
    }
    if (kg_filmstrip_png(m, c->motion, strip, meshes, o.f, png, &c->diags) != 0) {
        kg_out_abort(&o);
        fprintf(stderr, "kinegraph view: cannot write %s\n", png);
        return -1;
    }
    if (kg_out_commit(&o) != 0) {
        perror(png);
        return -1;
    }
    return 0;
}

/* Option name's text, when given, as a whole number from 1 to 1000 into *out; 0, or -1 after a usage error. */
static int panels(kg_cli *c, const char *name, const char *text, int *out) {
    char *end;
    if (!text) return 0;
    long v = strtol(text, &end, 10);
    if (end == text || *end || v < 1 || v > 1000)
        return kg_cli_usage_error(c->command, "%s needs a whole number from 1 to 1000", name), -1;
    *out = (int)v;
    return 0;
}

/* "W,H" (px, each 16 to 4096) into w, h; 0, -1 when malformed. */
static int parse_size(const char *s, int *w, int *h) {
    char *end;
    long a = strtol(s, &end, 10), b = *end == ',' ? strtol(end + 1, &end, 10) : 0;
    if (*end || a < 16 || b < 16 || a > 4096 || b > 4096) return -1;
    *w = (int)a, *h = (int)b;
    return 0;
}

/* --png-frames, --png-columns and --png-size into strip; 0, or -1 after a usage error. */
static int strip_settings(kg_cli *c, const opts *o, kg_filmstrip_options *strip) {
    if (panels(c, "--png-frames", o->png_frames, &strip->frames) || panels(c, "--png-columns", o->png_columns, &strip->columns))
        return -1;
    if (o->png_size && parse_size(o->png_size, &strip->width, &strip->height) != 0)
        return kg_cli_usage_error(c->command, "--png-size needs W,H in pixels (16 to 4096)"), -1;
    return 0;
}

/* The retarget's source clip, with its own motion, into *src and *src_motion.
 * Returns 0, or -1 said (nothing kept). */
static int load_source(kg_cli *c, const char *source_path, kg_model **src, kg_motion **src_motion) {
    kg_load_options lo = kg_cli_load_options(c);
    size_t before = c->diags.count, errors = kg_diags_count(&c->diags, KG_ERROR);
    *src = kg_load_clip(source_path, &lo, src_motion, &c->diags);
    kg_cli_print_diags_from(c, stderr, KG_WARNING, before);
    if (!*src || kg_diags_count(&c->diags, KG_ERROR) > errors) {
        fprintf(stderr, "kinegraph view: cannot read the source clip %s\n", source_path);
        kg_motion_free(*src_motion);
        kg_model_free(*src);
        *src_motion = NULL, *src = NULL;
        return -1;
    }
    return 0;
}

/* The retarget report, checked to be JSON and passed on as it is (*report,
 * compact), and its source scale. Returns 0, or -1 said. */
static int load_report(const char *report_path, char **report, double *source_scale) {
    json_error_t err;
    json_t *j = json_load_file(report_path, 0, &err);
    if (!j || !json_is_object(j)) {
        fprintf(stderr, "%s:%d: error: %s\n", report_path, j ? 1 : err.line,
                j ? "a retarget report is a JSON object" : err.text);
        json_decref(j);
        return -1;
    }
    *report = json_dumps(j, JSON_COMPACT | JSON_ENSURE_ASCII);
    *source_scale = json_number_value(json_object_get(j, "leg_scale")); /* the source's lengths onto the robot's */
    json_decref(j);
    return 0;
}

/* What was written, on stderr, and for --json on stdout; t0 is when the run
 * started. Returns an exit code. */
static int print_summary(const kg_cli *c, const kg_model *m, const char *out, const char *png, long bytes,
                         const kg_filmstrip_options *strip, const struct timespec *t0) {
    int rc = 0;
    struct timespec t1;
    clock_gettime(CLOCK_MONOTONIC, &t1);
    double s = (double)(t1.tv_sec - t0->tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0->tv_nsec);
    int frames = c->motion ? c->motion->nframes : 0;
    int panels = png ? (frames < strip->frames ? (frames ? frames : 1) : strip->frames) : 0;
    if (out)
        fprintf(stderr, "kinegraph view: wrote %s (%.1f MB, %d links, %d frames, three.js %s)\n", out, bytes / 1e6,
                m->nlink - m->nloop, frames, kg_three_version);
    if (png) fprintf(stderr, "kinegraph view: wrote %s (%d frames)\n", png, panels);
    fprintf(stderr, "kinegraph view: in %.3f s\n", s);
    if (c->json) {
        json_t *j = json_pack("{s:s?, s:I, s:i, s:i, s:s, s:f, s:s?, s:i}", "page", out, "bytes", (json_int_t)bytes,
                              "links", m->nlink - m->nloop, "frames", frames, "three", kg_three_version, "seconds", s,
                              "png", png, "png_frames", panels);
        if (kg_json_print(j) != 0) rc = KG_EXIT_OUTPUT; /* it releases j */
    }
    return rc;
}

/* The page (-o) and the filmstrip (--png) of m with view options v, then what
 * was written. Returns an exit code. */
static int write_outputs(kg_cli *c, const opts *o, const kg_model *m, kg_view_options *v, kg_filmstrip_options *strip,
                         const struct timespec *t0) {
    kg_mesh_cache *meshes = kg_mesh_cache_new(); /* the page's glTF and the filmstrip read them once */
    kg_export_options eo = {.path = o->out, .meshes = meshes};
    size_t before = c->diags.count;
    v->marks = kg_view_marks(m, c->motion, v, &eo, &c->diags);
    long bytes = 0;
    int rc = kg_cli_status(c);
    if (o->out && write_page(c, m, v, &eo, o->out, &bytes) != 0) rc = KG_EXIT_OUTPUT;
    strip->title = v->title;
    strip->marks = v->marks;
    if (rc != KG_EXIT_OUTPUT && o->png && write_strip(c, m, strip, meshes, o->png) != 0) rc = KG_EXIT_OUTPUT;
    kg_cli_print_diags_from(c, stderr, KG_WARNING, before);
    json_decref(v->marks);
    kg_mesh_cache_free(meshes);
    if (rc != KG_EXIT_OUTPUT && print_summary(c, m, o->out, o->png, bytes, strip, t0) != 0) rc = KG_EXIT_OUTPUT;
    return rc;
}

static int run(int argc, char **argv) {
    opts o = {0};
    kg_cli c = {.command = "view", .ctx = &o, .operand = operand};
    int rc = kg_cli_parse(&c, &kg_cmd_view, argc, argv);
    if (rc >= 0) return rc;
    kg_filmstrip_options strip;
    kg_filmstrip_defaults(&strip);
    const char *out = o.out, *png = o.png, *motion_path = o.motion, *report_path = o.report, *source_path = o.source;
    double motion_fps = 0;
    if (strip_settings(&c, &o, &strip) != 0 || kg_cli_positive(&c, "--motion-fps", o.motion_fps, &motion_fps) != 0)
        return KG_EXIT_USAGE;
    if (!c.model_path) return kg_cli_usage_error("view", "give MODEL");
    if (!out && !png) return kg_cli_usage_error("view", "give the page to write with -o PAGE.html, or --png STRIP.png");
    if (out && kg_three_missing) {
        fprintf(stderr, "kinegraph view: %s; no page written\n", kg_three_missing);
        return KG_EXIT_OUTPUT;
    }
    struct timespec t0;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    kg_model *m = kg_cli_load(&c, KG_ERROR), *src = NULL;
    kg_motion *src_motion = NULL;
    double source_scale = 0;
    char *report = NULL;
    if ((m && motion_path && kg_cli_load_motion(&c, m, motion_path, motion_fps) != 0) ||
        (m && source_path && load_source(&c, source_path, &src, &src_motion) != 0) ||
        (m && report_path && load_report(report_path, &report, &source_scale) != 0)) {
        kg_motion_free(src_motion);
        kg_model_free(src);
        kg_model_free(m);
        kg_cli_done(&c);
        return KG_EXIT_ERRORS;
    }
    if (!m) {
        rc = KG_EXIT_ERRORS;
    } else if (kg_cli_status(&c) != 0 && !o.force) {
        fprintf(stderr, "kinegraph view: %s has errors; nothing written (--force to write the page anyway)\n",
                c.model_path);
        rc = KG_EXIT_ERRORS;
    } else {
        const char *slash = strrchr(c.model_path, '/'), *mslash = motion_path ? strrchr(motion_path, '/') : NULL;
        kg_view_options v = {.title = slash ? slash + 1 : c.model_path,
                             .three_imports = kg_three_imports,
                             .three_version = kg_three_version,
                             .report_json = report,
                             .report_name = report_path,
                             .motion_name = mslash ? mslash + 1 : motion_path,
                             .no_marks = o.no_marks,
                             .source = src,
                             .source_motion = src_motion,
                             .source_name = source_path,
                             .source_scale = source_scale};
        rc = write_outputs(&c, &o, m, &v, &strip, &t0);
    }
    free(report);
    kg_motion_free(src_motion);
    kg_model_free(src);
    kg_model_free(m);
    kg_cli_done(&c);
    return rc;
}
