/* kinegraph check PATH...: validity checks over many files, in parallel, with
 * text, JSON, JUnit and HTML reports. Results come out in the order of the
 * sorted file list whatever the number of jobs. */
#define _GNU_SOURCE
#include <dirent.h>
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
#include "core/arena.h"
#include "formats/mesh.h"

int kg_cmd_check(int argc, char **argv);

static const char help[] =
    "usage: kinegraph check PATH... [--json F] [--junit F] [--html F] [--jobs N] [--shard I/N]\n"
    "                       [--no-meshes] [--fail-on error|warning] [options]\n"
    "\n"
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
    "\"codes\": {code: count}, \"seconds\", \"jobs\", \"shard\"}}\n"
    "\n"
    "options:\n"
    "  --json F               write the JSON report to F ('-': stdout, instead of text)\n"
    "  --junit F              write a JUnit XML report (one test case per file; errors fail)\n"
    "  --html F               write an HTML report: a summary table, the findings of each\n"
    "                         model and its kinematic tree drawn\n"
    "  --jobs N               check N files at a time (default: the number of processors)\n"
    "  --shard I/N            check only the I-th of N parts of the sorted file list\n"
    "                         (I from 1 to N), to split a corpus across CI machines\n"
    "  --no-meshes            do not read mesh files (faster): meshes are still resolved,\n"
    "                         but closedness, scale and checks that need their shapes are\n"
    "                         skipped for links with meshes\n"
    "  --fail-on LEVEL        exit 1 on errors (default), or on warnings too\n"
    "  --progress, --no-progress  progress bar on stderr (default: when stderr is a terminal)\n"
    "\n"
    "exit status: 0 no errors (no warnings either with --fail-on warning), 1 findings at\n"
    "that level, 2 usage error (unknown option, path not found), 3 a report could not be\n"
    "written.\n";

typedef struct opts {
    const char *json, *junit, *html, *shard, *fail_on;
    int jobs, no_meshes, progress;
    char **paths;
    int npaths, cap;
} opts;

static int option(kg_cli *c, int argc, char **argv, int *i) {
    opts *o = c->ctx;
    const char *a = argv[*i];
    if (!strcmp(a, "--no-meshes")) return o->no_meshes = 1;
    if (!strcmp(a, "--progress")) return o->progress = 1, 1;
    if (!strcmp(a, "--no-progress")) return o->progress = 0, 1;
    const char **slot = !strcmp(a, "--json")      ? &o->json
                        : !strcmp(a, "--junit")   ? &o->junit
                        : !strcmp(a, "--html")    ? &o->html
                        : !strcmp(a, "--shard")   ? &o->shard
                        : !strcmp(a, "--fail-on") ? &o->fail_on
                                                  : NULL;
    if (slot) return (*slot = kg_cli_value(c, argc, argv, i)) ? 1 : -1;
    if (!strcmp(a, "--jobs") || !strcmp(a, "-j")) {
        const char *v = kg_cli_value(c, argc, argv, i);
        char *end;
        long n = v ? strtol(v, &end, 10) : 0;
        if (!v || end == v || *end || n < 1 || n > 256) {
            if (v) kg_cli_usage_error(c->command, "--jobs needs a number from 1 to 256, not '%s'", v);
            return -1;
        }
        o->jobs = (int)n;
        return 1;
    }
    return 0;
}

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
    atomic_int next, done;
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
        kg_mesh_cache_free(meshes);
        if (w->o->html) keep_tree(r, m);
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

static void *worker(void *arg) {
    work *w = arg;
    for (;;) {
        int i = atomic_fetch_add(&w->next, 1);
        if (i >= w->n) break;
        check_one(w, i);
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

static void run(work *w, int jobs, int progress) {
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

static void result_free(kg_check_result *r) {
    kg_diags_clear(&r->diags);
    free(r->name);
    for (int i = 0; i < r->tree.nlink; i++) free(r->tree.name[i]);
    free(r->tree.name);
    free(r->tree.parent);
    free(r->tree.joint_type);
    free(r->tree.real);
}

int kg_cmd_check(int argc, char **argv) {
    opts o = {.progress = -1};
    kg_cli c = {.command = "check", .option = option, .ctx = &o};
    int rc = KG_EXIT_OK;
    char **args = calloc((size_t)argc + 1, sizeof *args);
    int nargs = 0;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            printf("%s%s", help, kg_cli_model_options_help);
            free(args);
            return KG_EXIT_OK;
        }
        int r = option(&c, argc, argv, &i);
        if (r == 0) r = kg_cli_common_option(&c, argc, argv, &i, 0);
        if (r < 0) {
            free(args);
            return KG_EXIT_USAGE;
        }
        if (r) continue;
        if (argv[i][0] == '-' && argv[i][1]) {
            free(args);
            return kg_cli_usage_error(c.command, "unknown option %s", argv[i]);
        }
        args[nargs++] = argv[i];
    }
    int fail_warnings = 0, shard_i = 1, shard_n = 1;
    if (o.fail_on && !strcmp(o.fail_on, "warning")) fail_warnings = 1;
    else if (o.fail_on && strcmp(o.fail_on, "error") != 0)
        rc = kg_cli_usage_error(c.command, "--fail-on takes error or warning, not '%s'", o.fail_on);
    if (!rc && o.shard) {
        char extra;
        if (sscanf(o.shard, "%d/%d%c", &shard_i, &shard_n, &extra) != 2 || shard_n < 1 || shard_i < 1 ||
            shard_i > shard_n)
            rc = kg_cli_usage_error(c.command, "--shard takes I/N with 1 <= I <= N, not '%s'", o.shard);
    }
    if (!rc && nargs == 0) rc = kg_cli_usage_error(c.command, "which PATHs?");
    for (int k = 0; !rc && k < nargs; k++)
        if (expand(&c, &o, args[k]) != 0) rc = KG_EXIT_USAGE;
    free(args);
    if (rc) goto out;

    /* sorted, without repeats, then this shard's share */
    qsort(o.paths, (size_t)o.npaths, sizeof *o.paths, cmp_str);
    int n = 0;
    for (int k = 0; k < o.npaths; k++) {
        if (n && !strcmp(o.paths[k], o.paths[n - 1])) free(o.paths[k]);
        else o.paths[n++] = o.paths[k];
    }
    int kept = 0;
    for (int k = 0; k < n; k++) {
        if (k % shard_n == shard_i - 1) o.paths[kept++] = o.paths[k];
        else free(o.paths[k]);
    }
    o.npaths = kept;
    kg_check_result *results = calloc((size_t)kept + 1, sizeof *results);
    for (int k = 0; k < kept; k++) results[k].path = o.paths[k];

    int jobs = o.jobs ? o.jobs : (int)sysconf(_SC_NPROCESSORS_ONLN);
    if (jobs < 1) jobs = 1;
    if (o.progress < 0) o.progress = isatty(STDERR_FILENO);
    xmlInitParser(); /* once, before threads */
    work w = {.c = &c, .o = &o, .results = results, .n = kept};
    double t0 = now();
    run(&w, jobs, o.progress);
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
    if (!rc)
        for (int k = 0; k < kept; k++)
            if (results[k].count[KG_ERROR] || (fail_warnings && results[k].count[KG_WARNING])) rc = KG_EXIT_ERRORS;
    for (int k = 0; k < kept; k++) result_free(&results[k]);
    free(results);
out:
    for (int k = 0; k < o.npaths; k++) free(o.paths[k]);
    free(o.paths);
    kg_cli_done(&c);
    return rc;
}
