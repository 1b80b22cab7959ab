/* kinegraph check PATH...: validity checks over many files, in parallel, with
 * text, JSON, JUnit and HTML reports. Results come out in the order of the
 * sorted file list whatever the number of jobs. */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <glob.h>
#include <libxml/parser.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "analysis/validity.h"
#include "cli/check.h"
#include "cli/common.h"
#include "cli/shard.h"
#include "cli/xalloc.h"
#include "exporters/filmstrip.h"
#include "formats/mesh.h"

typedef struct opts {
    const char *json, *junit, *html, *shard, *fail_on, *summary, *results;
    int jobs, no_meshes, progress, skip_existing, print_shards;
    char **paths; /* the files the PATHs name */
    int npaths, cap;
    char **args; /* the PATH arguments */
    int nargs;
} opts;

static int run(int argc, char **argv);

static int jobs(kg_cli *c, const kg_cli_option *opt, const char *value) {
    opts *o = c->ctx;
    char *end;
    long n = strtol(value, &end, 10);
    if (end == value || *end || n < 1 || n > 256) {
        kg_cli_usage_error(c->command, "%s needs a number from 1 to 256, not '%s'", opt->name, value);
        return -1;
    }
    o->jobs = (int)n;
    return 0;
}

/* A PATH, expanded after the options (--shard and the rest known). */
static int operand(kg_cli *c, char *word) {
    opts *o = c->ctx;
    o->args[o->nargs++] = word;
    return 0;
}

static const kg_cli_option options[] = {
    {"--json", .value = "F", KG_TEXT(opts, json), .complete = KG_COMPLETE_FILE,
     .help = "write the JSON report to F ('-': stdout, instead of text)"},
    {"--junit", .value = "F", KG_TEXT(opts, junit), .complete = KG_COMPLETE_FILE,
     .help = "write a JUnit XML report (one test case per file; errors fail)"},
    {"--html", .value = "F", KG_TEXT(opts, html), .complete = KG_COMPLETE_FILE,
     .help = "write an HTML report: a summary table, the findings of each\n"
             "model, a picture of it at rest and its kinematic tree drawn"},
    {"--jobs", "-j", "N", KG_CALL(jobs),
     .help = "check N files at a time (default: the number of processors)"},
    {"--shard", .value = "K/N", KG_TEXT(opts, shard),
     .help = "check only the K-th of N parts of the file list (K from 1 to N),\n"
             "to split a corpus across machines: parts balanced by file size\n"
             "(largest first onto the least loaded part), the same whatever\n"
             "the order of the PATHs"},
    {"--summary", .value = "F", KG_TEXT(opts, summary), .complete = KG_COMPLETE_FILE,
     .help = "write the shard's summary for `kinegraph merge` (the plan, each\n"
             "file's whole result), which joins the summaries of all the\n"
             "parts into the reports of one run"},
    {"--results", .value = "DIR", KG_TEXT(opts, results), .complete = KG_COMPLETE_DIR,
     .help = "write each file's result to DIR/NAME.HASH.json as it is done"},
    {"--skip-existing", KG_FLAG(opts, skip_existing, 1),
     .help = "with --results: read back the files whose result is there and\n"
             "whole instead of checking them again (resume a killed run)"},
    {"--print-shards", KG_FLAG(opts, print_shards, 1),
     .help = "print the plan of --shard (each file's size and part) as JSON,\n"
             "and stop"},
    {"--no-meshes", KG_FLAG(opts, no_meshes, 1),
     .help = "do not read mesh files (faster): meshes are still resolved,\n"
             "but closedness, scale and checks that need their shapes are\n"
             "skipped for links with meshes"},
    {"--fail-on", .value = "LEVEL", KG_TEXT(opts, fail_on), .complete = "error warning",
     .help = "exit 1 on errors (default), or on warnings too"},
    {"--progress", KG_FLAG(opts, progress, 1), .help = "a progress bar on stderr (default: when stderr is a terminal)"},
    {"--no-progress", KG_FLAG(opts, progress, 0), .help = "no progress bar, even on a terminal"},
    {0},
};

const kg_cli_command kg_cmd_check = {
    .name = "check",
    .summary = "validity checks over many files (text, JSON, JUnit, HTML reports)",
    .usage = "kinegraph check PATH... [--json F] [--junit F] [--html F] [--jobs N] [--shard K/N]\n"
             "                       [--summary F] [--results DIR] [--skip-existing] [--print-shards]\n"
             "                       [--no-meshes] [--fail-on error|warning] [options]\n",
    .description =
        "Checks URDF, COLLADA (.dae, .zae) and BVH files and explains every problem found:\n"
        "syntax and schema (typos in element and attribute names), names and references,\n"
        "topology (roots, orphans, loops with their members, mobility and closure residual),\n"
        "joints (limits, effort, velocity, axes, soft limits, degrees for radians), inertia\n"
        "(missing, mass, positive definite, triangle inequality, plausibility against the\n"
        "geometry), geometry and meshes (resolve, load, closed, oriented, scale), self-\n"
        "collision at the rest pose, what converting to URDF or COLLADA would lose, and for\n"
        "motion files value counts, frame time, zero-length bones, the unit and angle jumps.\n"
        "Each finding has a stable code, a severity, a message, file:line, the element and a\n"
        "hint for the fix.\n"
        "\n"
        "PATHs are files, folders (searched recursively for .urdf, .dae, .zae, .bvh) and\n"
        "globs (quote them: 'robots/*/*.urdf'). Files are checked in sorted order.\n"
        "\n"
        "The text report on stdout lists each file with errors or warnings and its findings\n"
        "(notes too with --verbose), then a summary.\n"
        "JSON: {\"files\": [{\"path\", \"format\", \"status\" (ok|warning|error), \"findings\":\n"
        "[{\"code\", \"severity\", \"message\", \"file\", \"line\", \"element\", \"hint\"}], \"model\":\n"
        "{\"name\", \"links\", \"joints\", \"dof\", \"loops\", \"mass\", \"frames\"} or null, \"seconds\"}],\n"
        "\"summary\": {\"files\", \"ok\", \"warning\", \"error\", \"errors\", \"warnings\", \"notes\",\n"
        "\"codes\": {code: count}, \"seconds\", \"jobs\", \"shard\"}}\n",
    .options = options,
    .common = KG_CLI_MODEL,
    .exit_status = "exit status: 0 no errors (no warnings either with --fail-on warning), 1 findings at\n"
                   "that level, 2 usage error (unknown option, path not found), 3 a report could not be\n"
                   "written.\n",
    .operands = KG_COMPLETE_FILE,
    .run = run,
};

/* ---- the file list ---- */

static void add_path(opts *o, const char *p) {
    if (o->npaths == o->cap) {
        o->cap = o->cap ? 2 * o->cap : 64;
        o->paths = kg_xrealloc(o->paths, (size_t)o->cap * sizeof *o->paths);
    }
    o->paths[o->npaths++] = kg_xstrdup(p);
}

static int model_extension(const char *name) {
    const char *dot = strrchr(name, '.');
    if (!dot) return 0;
    static const char *const ext[] = {".urdf", ".dae", ".zae", ".bvh"};
    for (size_t k = 0; k < sizeof ext / sizeof *ext; k++)
        if (!strcasecmp(dot, ext[k])) return 1;
    return 0;
}

/* Folders: every model file below, hidden folders excepted. */
static void add_folder(opts *o, const char *dir, int depth) {
    if (depth > 64) return;
    DIR *d = opendir(dir);
    if (!d) return;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (e->d_name[0] == '.') continue;
        size_t n = strlen(dir) + strlen(e->d_name) + 2;
        char *p = malloc(n);
        if (!p) break;
        snprintf(p, n, "%s%s%s", dir, dir[strlen(dir) - 1] == '/' ? "" : "/", e->d_name);
        struct stat st;
        if (stat(p, &st) == 0) {
            if (S_ISDIR(st.st_mode)) add_folder(o, p, depth + 1);
            else if (S_ISREG(st.st_mode) && model_extension(e->d_name)) add_path(o, p);
        }
        free(p);
    }
    closedir(d);
}

/* A PATH argument: 0, or -1 (usage error printed) when it names nothing. */
static int expand(kg_cli *c, opts *o, const char *arg) {
    struct stat st;
    if (!strcmp(arg, "-")) { /* standard input */
        add_path(o, arg);
        return 0;
    }
    if (stat(arg, &st) == 0) {
        if (S_ISDIR(st.st_mode)) add_folder(o, arg, 0);
        else add_path(o, arg);
        return 0;
    }
    if (strpbrk(arg, "*?[")) {
        glob_t g;
        int rc = glob(arg, GLOB_NOSORT, NULL, &g);
        if (rc == 0) {
            for (size_t k = 0; k < g.gl_pathc; k++)
                if (stat(g.gl_pathv[k], &st) == 0) {
                    if (S_ISDIR(st.st_mode)) add_folder(o, g.gl_pathv[k], 0);
                    else add_path(o, g.gl_pathv[k]);
                }
            globfree(&g);
            return 0;
        }
        globfree(&g);
        kg_cli_usage_error(c->command, "'%s' matches no file", arg);
        return -1;
    }
    kg_cli_usage_error(c->command, "'%s' does not exist", arg);
    return -1;
}

static int cmp_str(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

/* ---- checking one file ---- */

typedef struct work {
    kg_cli *c;
    opts *o;
    kg_check_result *results;
    int n;
    atomic_int next, done, write_failed;
} work;

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static void keep_tree(kg_check_result *r, const kg_model *m) {
    kg_check_tree *t = &r->tree;
    t->nlink = m->nlink;
    t->name = calloc((size_t)m->nlink, sizeof *t->name);
    t->parent = calloc((size_t)m->nlink, sizeof *t->parent);
    t->joint_type = calloc((size_t)m->nlink, sizeof *t->joint_type);
    t->real = calloc((size_t)m->nlink, sizeof *t->real);
    if (!t->name || !t->parent || !t->joint_type || !t->real) {
        t->nlink = 0;
        return;
    }
    for (int i = 0; i < m->nlink; i++) {
        t->name[i] = kg_xstrdup(m->link[i].name);
        t->parent[i] = m->link[i].parent;
        t->joint_type[i] = i ? kg_joint_type_name(m->joint[m->link[i].joint].type) : NULL;
        t->real[i] = m->link[i].real;
    }
}

/* The model at rest as a PNG in r->picture (the HTML report's): left out,
 * silently, when it cannot be drawn - the report still has the tree. The
 * meshes' warnings are check's own already. */
static void keep_picture(kg_check_result *r, const kg_model *m, kg_mesh_cache *meshes) {
    kg_filmstrip_options fo;
    kg_filmstrip_defaults(&fo);
    fo.frames = 1, fo.columns = 1;
    kg_diags scratch = {0};
    char *buf = NULL;
    size_t size = 0;
    FILE *f = open_memstream(&buf, &size);
    int rc = f ? kg_filmstrip_png(m, NULL, &fo, meshes, f, r->path, &scratch) : -1;
    if (f && fclose(f) != 0) rc = -1;
    kg_diags_clear(&scratch);
    if (rc == 0 && size) r->picture = (unsigned char *)buf, r->picture_size = size;
    else free(buf);
}

static void check_one(work *w, int i) {
    kg_check_result *r = &w->results[i];
    double t0 = now();
    kg_load_options lo = kg_cli_load_options(w->c);
    kg_motion *mo = NULL;
    kg_model *m = kg_load_clip(r->path, &lo, &mo, &r->diags);
    r->format = "unknown";
    if (m) {
        static const char *const formats[] = {"urdf", "collada", "bvh"}; /* outlive the model */
        for (size_t k = 0; k < sizeof formats / sizeof *formats; k++)
            if (!strcmp(m->format, formats[k])) r->format = formats[k];
        r->built = 1;
        r->name = kg_xstrdup(m->name ? m->name : "");
        r->nlink = m->nlink - m->nloop;
        r->njoint = m->njoint;
        r->dof = m->dof;
        r->nloop = m->nloop;
        r->frames = mo ? mo->nframes : 0;
        for (int k = 0; k < m->nlink; k++) r->mass += m->link[k].mass;
        kg_mesh_cache *meshes = w->o->no_meshes ? NULL : kg_mesh_cache_new();
        kg_check_options co = {.meshes = meshes};
        if (kg_check_model(m, mo, &co, &r->diags) != 0)
            kg_diag_add(&r->diags, KG_ERROR, "io.memory", r->path, 0, NULL, "out of memory while checking");
        if (w->o->html) keep_picture(r, m, meshes);
        kg_mesh_cache_free(meshes);
        if (w->o->html || w->o->summary || w->o->results) keep_tree(r, m); /* merge may draw it */
        kg_model_free(m);
    } else {
        /* the format, for the report, even when nothing could be built */
        const char *f = kg_detect_format(r->path, NULL, 0);
        if (f) r->format = f;
    }
    kg_motion_free(mo);
    for (size_t k = 0; k < r->diags.count; k++) r->count[r->diags.items[k].severity]++;
    if (r->diags.dropped) r->count[KG_WARNING] += r->diags.dropped; /* counted, not stored */
    r->seconds = now() - t0;
}

/* --results: a file's result to DIR, written whole or not at all (a
 * temporary file renamed), as soon as it is checked. */
static void write_result(work *w, int i) {
    char *path = kg_shard_result_path(w->o->results, w->results[i].path);
    json_t *j = kg_check_result_json(&w->results[i]);
    if (!path || kg_json_write_file(j, path) != 0) {
        fprintf(stderr, "kinegraph check: cannot write %s\n", path ? path : w->o->results);
        atomic_store(&w->write_failed, 1);
    }
    json_decref(j);
    free(path);
}

/* --skip-existing: the results already in DIR, whole and of the same file,
 * read back (here, before the threads); a result file there but not whole is
 * said, and the file checked again. */
static void read_results(const opts *o, kg_check_result *results, int n, kg_check_pool *pool) {
    for (int i = 0; i < n; i++) {
        char *path = kg_shard_result_path(o->results, results[i].path);
        if (!path || access(path, F_OK) != 0) {
            free(path);
            continue;
        }
        json_error_t err;
        json_t *j = json_load_file(path, 0, &err);
        kg_check_result r;
        if (j && kg_check_result_read(j, &r, pool) == 0 && !strcmp(r.path, results[i].path)) {
            r.path = results[i].path;
            r.resumed = 1;
            results[i] = r;
        } else {
            fprintf(stderr, "kinegraph check: %s: checked again, its result %s is not whole\n", results[i].path,
                    path);
        }
        json_decref(j);
        free(path);
    }
}

static void *worker(void *arg) {
    work *w = arg;
    for (;;) {
        int i = atomic_fetch_add(&w->next, 1);
        if (i >= w->n) break;
        if (!w->results[i].resumed) {
            check_one(w, i);
            if (w->o->results) write_result(w, i);
        }
        atomic_fetch_add(&w->done, 1);
    }
    return NULL;
}

static void progress_bar(int done, int n, double elapsed) {
    int width = 40, fill = n ? (int)((long)width * done / n) : width;
    char bar[41];
    for (int k = 0; k < width; k++) bar[k] = k < fill ? '#' : '.';
    bar[width] = 0;
    fprintf(stderr, "\r[%s] %d/%d files, %.1f s", bar, done, n, elapsed);
    fflush(stderr);
}

static void run_workers(work *w, int jobs, int progress) {
    if (jobs > w->n) jobs = w->n > 0 ? w->n : 1;
    pthread_t *t = calloc((size_t)jobs, sizeof *t);
    int started = 0;
    for (int k = 0; t && k < jobs; k++) {
        pthread_attr_t attr;
        pthread_attr_init(&attr);
        pthread_attr_setstacksize(&attr, 16u << 20); /* deep XML and model trees */
        if (pthread_create(&t[k], &attr, worker, w) == 0) started++;
        pthread_attr_destroy(&attr);
    }
    if (!started) worker(w); /* no threads: do it here */
    double t0 = now();
    while (progress && started && atomic_load(&w->done) < w->n) {
        progress_bar(atomic_load(&w->done), w->n, now() - t0);
        struct timespec ts = {0, 100000000};
        nanosleep(&ts, NULL);
    }
    for (int k = 0; k < started; k++) pthread_join(t[k], NULL);
    if (progress) {
        progress_bar(w->n, w->n, now() - t0);
        fputc('\n', stderr);
    }
    free(t);
}

/* --summary: the plan and every file's whole result. 0, or -1. */
static int write_summary(const opts *o, const kg_shard_plan *plan, int shard_k, const kg_check_result *r, int n,
                         double seconds, int jobs) {
    json_t *j = kg_shard_summary_new("check", shard_k, plan), *results = json_array();
    for (int i = 0; i < n; i++) {
        json_t *e = json_object();
        json_object_set_new(e, "path", kg_json_str(r[i].path));
        json_object_set_new(e, "status", json_string(r[i].resumed ? "resumed" : "done"));
        char *file = o->results ? kg_shard_result_path(o->results, r[i].path) : NULL;
        json_object_set_new(e, "result_file", kg_json_str(file));
        free(file);
        json_object_set_new(e, "result", kg_check_result_json(&r[i]));
        json_array_append_new(results, e);
    }
    json_object_set_new(j, "results", results);
    json_object_set_new(j, "seconds", json_real(seconds));
    json_object_set_new(j, "jobs", json_integer(jobs));
    int rc = kg_json_write_file(j, o->summary);
    json_decref(j);
    return rc;
}

static int run(int argc, char **argv) {
    opts o = {.progress = -1, .args = calloc((size_t)argc + 1, sizeof *o.args)};
    kg_cli c = {.command = "check", .ctx = &o, .operand = operand};
    if (!o.args) return KG_EXIT_ERRORS;
    int rc = kg_cli_parse(&c, &kg_cmd_check, argc, argv);
    if (rc >= 0) return free(o.args), rc;
    rc = KG_EXIT_OK;
    int fail_warnings = 0, shard_i = 1, shard_n = 1;
    if (o.fail_on && !strcmp(o.fail_on, "warning")) fail_warnings = 1;
    else if (o.fail_on && strcmp(o.fail_on, "error") != 0)
        rc = kg_cli_usage_error(c.command, "--fail-on takes error or warning, not '%s'", o.fail_on);
    if (!rc && o.shard && kg_shard_parse(c.command, o.shard, &shard_i, &shard_n) != 0) rc = KG_EXIT_USAGE;
    if (!rc && o.skip_existing && !o.results) rc = kg_cli_usage_error(c.command, "--skip-existing needs --results DIR");
    if (!rc && o.nargs == 0) rc = kg_cli_usage_error(c.command, "which PATHs?");
    for (int k = 0; !rc && k < o.nargs; k++)
        if (expand(&c, &o, o.args[k]) != 0) rc = KG_EXIT_USAGE;
    free(o.args);
    if (rc) goto out;

    /* sorted, without repeats, then this shard's share */
    qsort(o.paths, (size_t)o.npaths, sizeof *o.paths, cmp_str);
    int n = 0;
    for (int k = 0; k < o.npaths; k++) {
        if (n && !strcmp(o.paths[k], o.paths[n - 1])) free(o.paths[k]);
        else o.paths[n++] = o.paths[k];
    }
    o.npaths = n;
    /* the plan over all of them, by size: the same whatever the PATHs' order */
    kg_shard_plan plan;
    long long *size = kg_xmalloc(((size_t)n + 1) * sizeof *size);
    for (int k = 0; k < n; k++) size[k] = kg_shard_file_work(o.paths[k]);
    if (kg_shard_plan_make(&plan, n, o.paths, size, shard_n, "bytes") != 0) {
        rc = KG_EXIT_ERRORS;
        goto out;
    }
    if (o.print_shards) {
        rc = kg_json_print(kg_shard_plan_json(&plan)) != 0 ? KG_EXIT_OUTPUT : KG_EXIT_OK;
        kg_shard_plan_free(&plan);
        goto out;
    }
    if (o.results && mkdir(o.results, 0777) != 0 && errno != EEXIST) {
        fprintf(stderr, "kinegraph check: cannot make %s: %s\n", o.results, strerror(errno));
        kg_shard_plan_free(&plan);
        rc = KG_EXIT_OUTPUT;
        goto out;
    }
    int kept = 0;
    kg_check_result *results = calloc((size_t)n + 1, sizeof *results);
    for (int k = 0; k < n; k++)
        if (plan.shard[k] == shard_i) results[kept++].path = o.paths[k];
    kg_check_pool pool = {0};
    if (o.skip_existing) read_results(&o, results, kept, &pool);

    int jobs = o.jobs ? o.jobs : (int)sysconf(_SC_NPROCESSORS_ONLN);
    if (jobs < 1) jobs = 1;
    if (o.progress < 0) o.progress = isatty(STDERR_FILENO);
    xmlInitParser(); /* once, before threads */
    json_object_seed(0); /* the hash seed jansson would otherwise set on a thread's first object */
    work w = {.c = &c, .o = &o, .results = results, .n = kept};
    double t0 = now();
    run_workers(&w, jobs, o.progress);
    double seconds = now() - t0;

    int json_stdout = o.json && !strcmp(o.json, "-");
    if (!json_stdout) kg_check_print_text(stdout, results, kept, c.verbose, seconds);
    char shard[64] = "";
    if (o.shard) snprintf(shard, sizeof shard, "%d/%d", shard_i, shard_n);
    if (o.json && kg_check_write_json(o.json, results, kept, seconds, jobs, o.shard ? shard : NULL) != 0) {
        fprintf(stderr, "kinegraph check: cannot write '%s'\n", o.json);
        rc = KG_EXIT_OUTPUT;
    }
    if (o.junit && kg_check_write_junit(o.junit, results, kept, seconds) != 0) {
        fprintf(stderr, "kinegraph check: cannot write '%s'\n", o.junit);
        rc = KG_EXIT_OUTPUT;
    }
    if (o.html && kg_check_write_html(o.html, results, kept, seconds) != 0) {
        fprintf(stderr, "kinegraph check: cannot write '%s'\n", o.html);
        rc = KG_EXIT_OUTPUT;
    }
    if (atomic_load(&w.write_failed)) rc = KG_EXIT_OUTPUT;
    if (o.summary && write_summary(&o, &plan, shard_i, results, kept, seconds, jobs) != 0) {
        fprintf(stderr, "kinegraph check: cannot write '%s'\n", o.summary);
        rc = KG_EXIT_OUTPUT;
    }
    if (!rc)
        for (int k = 0; k < kept; k++)
            if (results[k].count[KG_ERROR] || (fail_warnings && results[k].count[KG_WARNING])) rc = KG_EXIT_ERRORS;
    for (int k = 0; k < kept; k++) kg_check_result_free(&results[k]);
    free(results);
    kg_check_pool_free(&pool);
    kg_shard_plan_free(&plan);
out:
    for (int k = 0; k < o.npaths; k++) free(o.paths[k]);
    free(o.paths);
    kg_cli_done(&c);
    return rc;
}
