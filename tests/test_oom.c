/* Out of memory: the library returns an error, it does not abort (README, "Out
 * of memory"). This test is linked with -Wl,--wrap for malloc, calloc, realloc
 * and aligned_alloc, so every allocation the library makes goes through the
 * wrappers below, which fail the N-th one on request. For each case (a load,
 * a conversion, a workspace) and each N from the first to the last allocation
 * it makes, a child process runs it with allocation N failing: it must end
 * normally (not abort, not crash; under ASan, without a leak) with either
 *   - the same result as without a failure (an allocation whose failure is
 *     harmless: a shrink, a diagnostic counted as dropped), or
 *   - the error: NULL or -1 with io.memory as the only error (the diagnostics
 *     made after the failure, which may be false, dropped), and for a
 *     conversion no file left behind (neither the output, its temporary, nor
 *     a file written beside it). */
#define _POSIX_C_SOURCE 200809L
#include "testutil.h"

#include <dirent.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "io/load.h"
#include "kinegraph/dynamics.h"
#include "kinegraph/torques.h"
#include "oom_inputs.h"

void *__real_malloc(size_t n);
void *__real_calloc(size_t n, size_t size);
void *__real_realloc(void *p, size_t n);
void *__real_aligned_alloc(size_t align, size_t n);

static long allocations, fail_at = -1;
static int paused; /* the test's own allocations, between a case's: neither counted nor failed */

static int failing(void) { return !paused && allocations++ == fail_at; }
void *__wrap_malloc(size_t n) { return failing() ? NULL : __real_malloc(n); }
void *__wrap_calloc(size_t n, size_t size) { return failing() ? NULL : __real_calloc(n, size); }
void *__wrap_realloc(void *p, size_t n) { return failing() ? NULL : __real_realloc(p, n); }
void *__wrap_aligned_alloc(size_t align, size_t n) { return failing() ? NULL : __real_aligned_alloc(align, n); }

/* the child's exit statuses: apart from ASan's (1 after an error or a leak) */
enum { DONE = 10, SAID, WRONG };

typedef struct oom_case {
    const char *name;
    int (*run)(const struct oom_case *); /* in the child: DONE (got filled in), SAID or WRONG */
    const char *in;                      /* what is read */
    const char *format;                  /* conversions: the output format */
} oom_case;

static char tmp[256], out_dir[300]; /* conversions write to out_dir/<slot>/ */
static int slot;
static kg_model *sample;        /* the sample humanoid */
static kg_motion *sample_clip;  /* a few frames of it moving, with a base */
static kg_feet sample_feet;     /* its feet */
static char got[512], reference[512]; /* what a run made (DONE), and what the run without a failure made */

static long current = -1; /* the allocation failing in this child (for messages) */

/* An out-of-memory code: io.memory, or a module's own (dynamics.memory, ...). */
static int is_memory(const char *code) {
    size_t n = strlen(code);
    return n >= 7 && !strcmp(code + n - 7, ".memory");
}

/* 1 when d holds one out-of-memory error and no other error (printed otherwise). */
static int said(const kg_diags *d) {
    size_t errors = kg_diags_count(d, KG_ERROR), memory = 0;
    for (size_t i = 0; i < d->count; i++) memory += d->items[i].severity == KG_ERROR && is_memory(d->items[i].code);
    if (memory == 1 && errors == 1) return 1;
    for (size_t i = 0; i < d->count; i++)
        printf("  allocation %ld failing: %s: %s [%s]\n", current, kg_severity_name(d->items[i].severity),
               d->items[i].message, d->items[i].code);
    if (!d->count) printf("  allocation %ld failing: an error without a diagnostic\n", current);
    return 0;
}

/* ---- the cases ---- */

static int run_load(const oom_case *c) {
    kg_diags d;
    kg_diags_init(&d);
    kg_load_options o = {0};
    o.resolver.ignore_env = 1;
    kg_motion *mo = NULL;
    kg_model *m = kg_load_clip(c->in, &o, &mo, &d);
    fail_at = -1; /* what follows is the test's */
    int rc = m ? DONE : said(&d) ? SAID : WRONG;
    if (m) /* what a harmless failure must leave as it was */
        snprintf(got, sizeof got, "%d links, %d joints, %d geoms, %d extras, %d q, %d frames, %zu diagnostics",
                 m->nlink, m->njoint, m->ngeom, m->nextra, m->nq, mo ? mo->nframes : -1, d.count + d.dropped);
    kg_model_free(m);
    kg_motion_free(mo);
    kg_diags_clear(&d);
    return rc;
}

/* A hash of the file's bytes and its size, in got; -1 when it cannot be read. */
static int file_print(const char *path) {
    FILE *f = fopen(path, "rb");
    if (!f) return -1;
    uint64_t h = 1469598103934665603ull;
    long n = 0;
    for (int ch; (ch = getc(f)) != EOF; n++) h = (h ^ (unsigned char)ch) * 1099511628211ull;
    fclose(f);
    snprintf(got, sizeof got, "%ld bytes, hash %016llx", n, (unsigned long long)h);
    return 0;
}

static int run_convert(const oom_case *c) {
    char path[400];
    snprintf(path, sizeof path, "%s/%d/out.%s", out_dir, slot, c->format);
    kg_diags d;
    kg_diags_init(&d);
    kg_ledger l;
    kg_ledger_init(&l);
    int rc = kg_save(path, c->format, sample, !strcmp(c->in, "clip") ? sample_clip : NULL, &l, &d);
    fail_at = -1;
    rc = rc == 0 ? DONE : said(&d) ? SAID : WRONG;
    if (rc == DONE && file_print(path) != 0) rc = WRONG;
    size_t n = strlen(got);
    if (rc == DONE) snprintf(got + n, sizeof got - n, ", %zu ledger entries", l.count);
    kg_ledger_clear(&l);
    kg_diags_clear(&d);
    return rc;
}

static int run_data(const oom_case *c) {
    (void)c;
    kg_data *d = kg_data_new(sample);
    fail_at = -1;
    kg_data_free(d);
    return d ? DONE : SAID;
}

static int run_dyn(const oom_case *c) {
    (void)c;
    kg_dyn *w = kg_dyn_new(sample);
    fail_at = -1;
    kg_dyn_free(w);
    return w ? DONE : SAID;
}

static int run_torque_work(const oom_case *c) {
    (void)c;
    kg_torque_work *w = kg_torque_work_new(sample);
    fail_at = -1;
    kg_torque_work_free(w);
    return w ? DONE : SAID;
}

static int run_structure(const oom_case *c) {
    (void)c;
    kg_structure *s = kg_structure_new(sample);
    kg_closed *k = s ? kg_closed_new(sample, -1, NULL, 0, NULL) : NULL;
    fail_at = -1;
    int rc = s && k ? DONE : SAID;
    kg_structure_free(s);
    kg_closed_free(k);
    return rc;
}

/* The torques of the clip (the feet found beforehand: the body map is the
 * retargeting's, analysis/retarget/map.c). */
static int run_torques(const oom_case *c) {
    (void)c;
    kg_diags d;
    kg_diags_init(&d);
    kg_motion_torques t;
    int rc = kg_motion_torques_compute(sample, sample_clip, NULL, &sample_feet, NULL, &t, NULL, &d);
    fail_at = -1;
    rc = rc == 0 ? DONE : said(&d) ? SAID : WRONG;
    if (rc == DONE) snprintf(got, sizeof got, "%d frames, %d actuated, %.9g kg", t.nframes, t.nact, t.mass);
    if (rc == DONE) kg_motion_torques_free(&t);
    kg_diags_clear(&d);
    return rc;
}

/* The dynamics filter on a copy of the clip. */
static int run_filter(const oom_case *c) {
    (void)c;
    paused = 1; /* the copy is the test's */
    kg_motion *mo = kg_motion_new(sample->nq, sample_clip->frame_time, (size_t)sample_clip->nframes);
    mo->base = malloc((size_t)sample_clip->nframes * 7 * sizeof *mo->base);
    for (int f = 0; f < sample_clip->nframes; f++) kg_motion_append(mo, sample_clip->q + (size_t)f * sample->nq);
    memcpy(mo->base, sample_clip->base, (size_t)sample_clip->nframes * 7 * sizeof *mo->base);
    paused = 0;
    kg_diags d;
    kg_diags_init(&d);
    kg_dyn_filter_result res;
    int rc = kg_dyn_filter(sample, mo, &sample_feet, NULL, &res, &d);
    fail_at = -1;
    rc = rc == 0 ? DONE : said(&d) ? SAID : WRONG;
    if (rc == DONE) snprintf(got, sizeof got, "%d passes, %.9g %% outside", res.passes, res.outside_after);
    kg_motion_free(mo);
    kg_diags_clear(&d);
    return rc;
}

/* ---- failing each allocation in turn ---- */

/* Children run side by side, one per processor, each writing into a folder
 * of its own (out_dir/<slot>). */
enum { MAX_SLOTS = 8 };

/* Files and folders left in dir (removed); -1 when it cannot be read. */
static int leftovers(const char *dir) {
    DIR *d = opendir(dir);
    if (!d) return -1;
    int n = 0;
    for (struct dirent *e; (e = readdir(d));) n += strcmp(e->d_name, ".") && strcmp(e->d_name, "..");
    closedir(d);
    if (n) {
        kg_test_remove_dir(dir);
        mkdir(dir, 0755);
    }
    return n;
}

/* How child n of case c ended (st from waitpid, left: files left in its
 * folder); 0 when as it should, 1 (printed) when wrong. *said_count counts
 * the errors said. */
static int judge(const oom_case *c, long n, int st, int left, long *said_count) {
    if (!WIFEXITED(st)) {
        printf("%s: allocation %ld failing killed it (signal %d)\n", c->name, n, WTERMSIG(st));
    } else if (WEXITSTATUS(st) != DONE && WEXITSTATUS(st) != SAID) {
        printf("%s: allocation %ld failing: exit %d (%d: wrong; 1: ASan found an error or a leak)\n", c->name, n,
               WEXITSTATUS(st), WRONG);
    } else if (WEXITSTATUS(st) == SAID && left) {
        printf("%s: allocation %ld failing: said out of memory but left %d files behind\n", c->name, n, left);
    } else {
        *said_count += WEXITSTATUS(st) == SAID;
        return 0;
    }
    fflush(stdout);
    return 1;
}

/* In the child: case c with allocation n failing; exits with its status. */
static void child(const oom_case *c, long n, int k) {
    /* a crash kills the child (cmocka's handlers would run the next tests in it) */
    for (int sig = 1; sig < 32; sig++) signal(sig, SIG_DFL);
    slot = k, current = n;
    fail_at = n, allocations = 0, got[0] = 0;
    int rc = c->run(c);
    if (rc == DONE && strcmp(got, reference) != 0) {
        printf("  allocation %ld failing: made %s, not %s\n", n, got, reference);
        rc = WRONG;
    }
    fflush(stdout);
    exit(rc); /* exit, not _exit: LeakSanitizer checks at exit */
}

/* Runs case c with each of its allocations failing in turn, each in a child;
 * returns how many went wrong (printed). */
static long fail_each(const oom_case *c) {
    char dir[MAX_SLOTS][400];
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    int slots = cpus < 1 ? 1 : cpus > MAX_SLOTS ? MAX_SLOTS : (int)cpus;
    for (int k = 0; k < slots; k++) {
        snprintf(dir[k], sizeof dir[k], "%s/%d", out_dir, k);
        mkdir(dir[k], 0755);
    }
    fail_at = -1, allocations = 0, got[0] = 0, slot = 0;
    assert_int_equal(c->run(c), DONE);
    long total = allocations, said_count = 0, wrong = 0, next = 0, running = 0;
    snprintf(reference, sizeof reference, "%s", got);
    leftovers(dir[0]);
    fflush(stdout);
    pid_t pid[MAX_SLOTS] = {0};
    long which[MAX_SLOTS];
    while (next < total || running) {
        for (int k = 0; k < slots && next < total; k++) {
            if (pid[k]) continue;
            pid[k] = fork();
            assert_true(pid[k] >= 0);
            if (pid[k] == 0) child(c, next, k);
            which[k] = next++, running++;
        }
        int st;
        pid_t done = wait(&st);
        assert_true(done > 0);
        for (int k = 0; k < slots; k++)
            if (pid[k] == done) {
                pid[k] = 0, running--;
                wrong += judge(c, which[k], st, leftovers(dir[k]), &said_count);
            }
    }
    printf("%s: %ld allocations, each failed in turn: %ld said out of memory, %ld made it anyway, %ld wrong\n",
           c->name, total, said_count, total - said_count - wrong, wrong);
    /* nearly all are needed: only a shrink or a diagnostic may fail harmlessly */
    if (said_count <= total / 2) printf("%s: fewer than half said out of memory\n", c->name), wrong++;
    return wrong;
}

/* Every case, then the verdict: all that goes wrong is printed at once. */
static void run_cases(const oom_case *cases, size_t n) {
    long wrong = 0;
    for (size_t i = 0; i < n; i++) wrong += fail_each(&cases[i]);
    assert_int_equal(wrong, 0);
}

/* ---- the tests ---- */

static char robot_dae[300], skeleton_zae[300], skeleton_dae[300], entities_urdf[300];

static void test_load(void **state) {
    (void)state;
    const oom_case cases[] = {
        {"humanoid.urdf", run_load, KG_SOURCE_DIR "/samples/humanoid.urdf", NULL},
        {"walk.bvh", run_load, KG_SOURCE_DIR "/samples/walk.bvh", NULL},
        {"entities.urdf", run_load, entities_urdf, NULL},
        {"robot.dae (kinematics, physics, a motion)", run_load, robot_dae, NULL},
        {"skeleton.dae (a node tree, its animation)", run_load, skeleton_dae, NULL},
        {"skeleton.zae", run_load, skeleton_zae, NULL},
    };
    run_cases(cases, sizeof cases / sizeof *cases);
}

/* The sample humanoid to every format with its clip, and to those that then
 * write a rest frame of their own without it. */
static void test_convert(void **state) {
    (void)state;
    const oom_case cases[] = {
        {"humanoid -> urdf", run_convert, "clip", "urdf"},
        {"humanoid -> dae", run_convert, "clip", "dae"},
        {"humanoid -> mjcf", run_convert, "clip", "mjcf"},
        {"humanoid -> gltf (and its .bin)", run_convert, "clip", "gltf"},
        {"humanoid -> glb", run_convert, "clip", "glb"},
        {"humanoid -> npz", run_convert, "clip", "npz"},
        {"humanoid -> bvh", run_convert, "clip", "bvh"},
        {"humanoid -> csv", run_convert, "clip", "csv"},
        {"humanoid -> json", run_convert, "clip", "json"},
        {"humanoid at rest -> npz", run_convert, "model", "npz"},
        {"humanoid at rest -> bvh", run_convert, "model", "bvh"},
        {"humanoid at rest -> csv", run_convert, "model", "csv"},
    };
    run_cases(cases, sizeof cases / sizeof *cases);
}

static void test_dynamics(void **state) {
    (void)state;
    const oom_case cases[] = {
        {"kg_data_new", run_data, NULL, NULL},
        {"kg_dyn_new", run_dyn, NULL, NULL},
        {"kg_torque_work_new", run_torque_work, NULL, NULL},
        {"kg_structure_new, kg_closed_new", run_structure, NULL, NULL},
        {"kg_motion_torques_compute", run_torques, NULL, NULL},
        {"kg_dyn_filter", run_filter, NULL, NULL},
    };
    run_cases(cases, sizeof cases / sizeof *cases);
}

/* The sample humanoid and a short clip of it (a base, joints moving), and the
 * inputs made from them. */
static int setup(void **state) {
    (void)state;
    setenv("SOURCE_DATE_EPOCH", "0", 1); /* the same COLLADA file every time */
    snprintf(tmp, sizeof tmp, "/tmp/kg_oom_XXXXXX");
    assert_non_null(mkdtemp(tmp));
    snprintf(out_dir, sizeof out_dir, "%s/out", tmp);
    assert_int_equal(mkdir(out_dir, 0755), 0);
    sample = kg_test_load(KG_SOURCE_DIR "/samples/humanoid.urdf");
    sample_clip = kg_motion_new(sample->nq, 1.0 / 30, 6);
    sample_clip->base = calloc(6 * 7, sizeof(double));
    for (int f = 0; f < 6; f++) {
        double *q = kg_motion_append(sample_clip, sample->q_default), *b = sample_clip->base + 7 * f;
        for (int k = 0; k < sample->nq; k++) q[k] += 0.02 * f * (k % 3 - 1);
        b[0] = 0.01 * f, b[2] = 0.65, b[3] = 1;
    }
    kg_diags fd;
    kg_diags_init(&fd);
    assert_int_equal(kg_feet_find(sample, &sample_feet, &fd), 0);
    kg_diags_clear(&fd);
    char robot_urdf[300];
    snprintf(robot_urdf, sizeof robot_urdf, "%s/robot.urdf", tmp);
    snprintf(robot_dae, sizeof robot_dae, "%s/robot.dae", tmp);
    snprintf(skeleton_dae, sizeof skeleton_dae, "%s/skeleton.dae", tmp);
    snprintf(skeleton_zae, sizeof skeleton_zae, "%s/skeleton.zae", tmp);
    snprintf(entities_urdf, sizeof entities_urdf, "%s/entities.urdf", tmp);
    assert_int_equal(oom_write_robot(robot_urdf), 0);
    assert_int_equal(oom_write_skeleton(skeleton_dae), 0);
    assert_int_equal(oom_write_entities(entities_urdf), 0);
    assert_int_equal(oom_write_zae(skeleton_zae, skeleton_dae, "scene/skeleton.dae"), 0);
    /* the robot as COLLADA, with three frames of a motion */
    kg_model *robot = kg_test_load(robot_urdf);
    kg_motion *mo = kg_motion_new(robot->nq, 0.1, 3);
    for (int f = 0; f < 3; f++) {
        double *q = kg_motion_append(mo, robot->q_default);
        for (int k = 0; k < robot->nq; k++) q[k] += 0.05 * f;
    }
    kg_diags d;
    kg_diags_init(&d);
    assert_int_equal(kg_save(robot_dae, NULL, robot, mo, NULL, &d), 0);
    kg_diags_clear(&d);
    kg_motion_free(mo);
    kg_model_free(robot);
    return 0;
}

static int teardown(void **state) {
    (void)state;
    kg_model_free(sample);
    kg_motion_free(sample_clip);
    kg_test_remove_dir(tmp);
    return 0;
}

int main(void) {
    const char *only = getenv("KG_OOM_TEST"); /* e.g. test_load, when working on one */
    if (only) cmocka_set_test_filter(only);
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_load), cmocka_unit_test(test_convert),
                                       cmocka_unit_test(test_dynamics)};
    return cmocka_run_group_tests(tests, setup, teardown);
}
