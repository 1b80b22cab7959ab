#define _GNU_SOURCE /* open_memstream */
#include "fuzz_common.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/retarget_json.h"
#include "exporters/exporters.h"
#include "io/load.h"
#include "formats/fileio.h"
#include "formats/zae.h"
#include "kinegraph/retarget.h"

/* The caps on work that grows with a file's numbers rather than its size (a
 * 30 KB COLLADA can ask for 10^6 frames of 300 nodes) are lowered so that one
 * input stays within libFuzzer's timeout under the sanitizers: the fuzzer
 * checks the code at and beyond its caps, not how long the default cap takes
 * (tests/test_robustness.c reads such files at the defaults). */
__attribute__((constructor)) static void lower_caps(void) {
    setenv("KG_LIMIT_COLLADA_SAMPLES", "1000000", 0);
}

kg_model *kg_fuzz_load(const char *format, const uint8_t *data, size_t size, kg_motion **mo) {
    kg_diags d;
    kg_diags_init(&d);
    kg_load_options o = {0};
    o.format = format;
    o.resolver.ignore_env = 1;
    if (mo) *mo = NULL;
    kg_model *m = NULL;
    if (format && !strcmp(format, "zae")) {
        size_t len;
        char *inner = NULL, *doc = kg_zae_read_buffer("fuzz.zae", (const char *)data, size, &len, &inner, &d);
        o.format = "collada";
        if (doc) m = kg_load_clip_buffer("fuzz.dae", doc, len, &o, mo, &d);
        free(doc);
        free(inner);
    } else {
        m = kg_load_clip_buffer(format ? format : "fuzz", (const char *)data, size, &o, mo, &d);
    }
    kg_diags_clear(&d);
    return m;
}

typedef int (*writer)(const kg_model *, const kg_motion *, const kg_export_options *, FILE *, kg_ledger *, kg_diags *);

/* What one writer makes of m, read back as `back` (NULL: not read back). */
static void write_one(const kg_model *m, const kg_motion *mo, writer w, const char *back) {
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (!f) return;
    kg_diags d;
    kg_diags_init(&d);
    kg_export_options eo = {.skip_meshes = 1}; /* no mesh files, no assimp (it forks) */
    int rc = w(m, mo, &eo, f, NULL, &d);
    fclose(f);
    kg_diags_clear(&d);
    if (rc == 0 && back) {
        kg_motion *mo2 = NULL;
        kg_model *m2 = kg_fuzz_load(back, (const uint8_t *)buf, len, &mo2);
        if (!m2) {
            fprintf(stderr, "kinegraph could not read back the %s it wrote:\n%.*s\n", back, (int)(len < 4000 ? len : 4000), buf);
            abort();
        }
        kg_model_free(m2);
        kg_motion_free(mo2);
    }
    free(buf);
}

void kg_fuzz_export_all(const kg_model *m, const kg_motion *mo) {
    write_one(m, mo, kg_export_urdf, "urdf");
    write_one(m, mo, kg_export_collada, "collada");
    write_one(m, mo, kg_export_bvh, "bvh");
    write_one(m, mo, kg_export_mjcf, NULL);
    write_one(m, mo, kg_export_gltf, NULL);
    if (mo) {
        write_one(m, mo, kg_export_csv, NULL);
        write_one(m, mo, kg_export_json, NULL);
    }
}

void kg_fuzz_map(const uint8_t *data, size_t size) {
    static kg_model *robot; /* loaded once: the harness runs millions of inputs */
    if (!robot) {
        kg_diags d;
        kg_diags_init(&d);
        robot = kg_load(KG_SOURCE_DIR "/samples/humanoid.urdf", NULL, &d);
        kg_diags_clear(&d);
        if (!robot) abort();
    }
    json_t *j = json_loadb((const char *)data, size, 0, NULL);
    if (!j) return;
    kg_body_map map;
    kg_map_read(json_object_get(j, "robot"), "robot", robot, &map, "fuzz.json");
    kg_map_read(json_object_get(j, "source"), "source", robot, &map, "fuzz.json");
    json_decref(j);
}

/* What frame f of a retargeted motion breaks of the retargeting's promises,
 * measured on the motion itself: a coordinate or root pose not finite, a
 * limited joint outside its range, a joint faster than its velocity limit (the
 * model's, else the tuning's default) or the root faster than root_speed since
 * the frame before. NULL when it keeps them. */
static const char *frame_fault(const kg_model *robot, const kg_motion *out, int f, const kg_retarget_tuning *t) {
    const double *q = out->q + (size_t)f * out->nq, *qp = f > 0 ? q - out->nq : NULL, dt = out->frame_time;
    const double *b = out->base ? out->base + 7 * (size_t)f : NULL;
    for (int i = 0; i < out->nq; i++)
        if (!isfinite(q[i])) return "coordinate not finite";
    for (int i = 0; b && i < 7; i++)
        if (!isfinite(b[i])) return "root pose not finite";
    for (int j = 0; j < robot->njoint; j++) {
        const kg_joint *J = &robot->joint[j];
        if (J->nq != 1) continue;
        const double x = q[J->qadr], tol = 1e-9 * (1 + fabs(x));
        if (kg_joint_is_limited(J) && (x < J->lower - tol || x > J->upper + tol)) return "coordinate outside its limits";
        /* speeds of joints in a mimic pair are bounded through both (the solver's column limits):
         * the plain test is for the others */
        int paired = J->mimic >= 0;
        for (int k = 0; k < robot->nmimic && !paired; k++) paired = robot->mimic[k].leader == j;
        const double v = J->velocity > 0 ? J->velocity : t->joint_speed_default;
        if (qp && !paired && fabs(x - qp[J->qadr]) > v * dt * (1 + 1e-6) + 1e-9) return "joint faster than its velocity limit";
    }
    if (b && f > 0) {
        const double *a = b - 7, d = hypot(hypot(b[0] - a[0], b[1] - a[1]), b[2] - a[2]);
        if (d > t->root_speed * dt * (1 + 1e-6) + 1e-9) return "root faster than the tuning's root_speed";
    }
    return NULL;
}

/* Aborts (a finding) when the motion breaks a promise or its report says it
 * did: what and where. */
static void check_retargeted(const kg_model *robot, const kg_motion *out, const kg_retarget_report *r, int nframes,
                             const kg_retarget_tuning *t) {
    const char *why = out->nframes != nframes || out->nq != robot->nq ? "frame or coordinate count" : NULL;
    int f = 0;
    for (; !why && f < out->nframes; f++) why = frame_fault(robot, out, f, t);
    if (why) {
        fprintf(stderr, "kg_fuzz_retarget: %s (frame %d)\n", why, f - 1);
        abort();
    }
    if (r->limit_violations != 0 || r->velocity_violations != 0 || !(r->root_speed_max >= 0)) {
        fprintf(stderr, "kg_fuzz_retarget: the report counts %d limit and %d velocity violations, root speed %g\n",
                r->limit_violations, r->velocity_violations, r->root_speed_max);
        abort();
    }
}

/* The sample humanoid (stiff 0), or the same with its ankle roll joints fixed
 * (stiff 1: legs that cannot roll their feet, whose planted feet tilt on
 * their soles' edges), prepared; aborts when it cannot be. */
static kg_retarget_robot *fuzz_robot(int stiff, const kg_retarget_options *o, kg_model **robot) {
    kg_diags d;
    kg_diags_init(&d);
    const char *path = KG_SOURCE_DIR "/samples/humanoid.urdf";
    size_t n = 0;
    char *text = kg_read_file(path, &n, &d);
    if (!text) abort();
    for (int side = 0; side < 2 && stiff; side++) {
        char *j = strstr(text, side ? "<joint name=\"r_ankle_roll\" type=\"revolute\">" : "<joint name=\"l_ankle_roll\" type=\"revolute\">");
        if (!j) abort();
        memcpy(strstr(j, "\"revolute\""), "\"fixed\"   ", 10);
    }
    *robot = kg_load_buffer(path, text, n, NULL, &d);
    kg_retarget_robot *rr = *robot ? kg_retarget_robot_new(*robot, o, &d) : NULL;
    kg_diags_clear(&d);
    free(text);
    if (!rr) abort();
    return rr;
}

int kg_fuzz_retarget(const uint8_t *data, size_t size) {
    static kg_model *robots[2]; /* prepared once: the harness runs millions of inputs */
    static kg_retarget_robot *rrs[2];
    static kg_retarget_options o;
    if (!rrs[0]) {
        kg_retarget_defaults(&o);
        for (int k = 0; k < 2; k++) rrs[k] = fuzz_robot(k, &o, &robots[k]);
    }
    const int stiff = (int)(size & 1); /* inputs of odd sizes go to the robot whose feet tilt */
    kg_model *robot = robots[stiff];
    kg_retarget_robot *rr = rrs[stiff];
    kg_motion *mo = NULL, *out = NULL;
    kg_model *src = kg_fuzz_load("bvh", data, size, &mo);
    int rc = -1;
    if (src && mo && mo->nframes > 0) {
        if (mo->nframes > KG_FUZZ_RETARGET_FRAMES) mo->nframes = KG_FUZZ_RETARGET_FRAMES;
        kg_retarget_report r;
        kg_diags d;
        kg_diags_init(&d);
        rc = kg_retarget_prepared(rr, src, mo, &o, &out, &r, &d) == 0;
        if (rc) check_retargeted(robot, out, &r, mo->nframes, &o.tune);
        else if (kg_diags_count(&d, KG_ERROR) == 0) { /* a refusal says why */
            fprintf(stderr, "kg_fuzz_retarget: refused without an error diagnostic\n");
            abort();
        }
        kg_diags_clear(&d);
    }
    kg_motion_free(out);
    kg_motion_free(mo);
    kg_model_free(src);
    return rc;
}
