/* kinegraph merge SUMMARY... -o OUT.json: the shard summaries of a batch run
 * split with --shard (retarget, check) joined into the report one process
 * would have written, and what is missing or failed said. */
#define _POSIX_C_SOURCE 200809L
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/check.h"
#include "cli/common.h"
#include "cli/shard.h"
#include "core/strmap.h"
#include "formats/fileio.h"
#include "formats/xml.h"

typedef struct opts {
    const char *out, *junit, *html;
    char **paths; /* the SUMMARY arguments */
    int npaths;
} opts;

static int run(int argc, char **argv);

static int operand(kg_cli *c, char *word) {
    opts *o = c->ctx;
    o->paths[o->npaths++] = word;
    return 0;
}

static const kg_cli_option options[] = {
    {"--output", "-o", "OUT.json", KG_TEXT(opts, out), .complete = KG_COMPLETE_FILE,
     .help = "the merged report (required)"},
    {"--junit", .value = "F", KG_TEXT(opts, junit), .complete = KG_COMPLETE_FILE,
     .help = "a JUnit XML report, one test case per input (check: the one of\n"
             "`check --junit`, of the files there; retarget: a failed clip\n"
             "fails, a missing one is an error)"},
    {"--html", .value = "F", KG_TEXT(opts, html), .complete = KG_COMPLETE_FILE,
     .help = "an HTML report (check: the one of `check --html`; retarget: a\n"
             "table of the clips, their status and main figures)"},
    {0},
};

const kg_cli_command kg_cmd_merge = {
    .name = "merge",
    .summary = "join the shard summaries of a batch split with --shard (retarget, check)",
    .usage = "kinegraph merge SUMMARY... -o OUT.json [--junit F] [--html F]\n",
    .description =
        "Joins the shard summaries of a batch run split with --shard K/N (`kinegraph retarget\n"
        "... --shard K/N --summary S` or `kinegraph check ... --shard K/N --summary S`, one per\n"
        "part: a Slurm job array, contrib/slurm/) into the report the same run in one process\n"
        "makes, timings aside: for retarget the --json array of the clips' reports in the\n"
        "clips' order; for check the --json report (files in sorted order, the summary's\n"
        "counts; \"seconds\" the sum of the parts', \"jobs\" the most any part had), and its JUnit\n"
        "and HTML reports. The summaries must come from one plan (the same inputs and N); a\n"
        "part given twice counts once (the later). Every input of the plan without a result\n"
        "(its part's summary missing or unreadable: a task that did not finish) is named on\n"
        "stdout as missing (and, for check, listed in the JSON summary's \"missing\"), every\n"
        "failed one (retarget: the clip could not be retargeted; check: errors found) as failed;\n"
        "then a line of counts.\n",
    .options = options,
    .exit_status = "exit status: 0 every input there and none failed; 1 inputs missing or failed; 2 usage\n"
                   "error or summaries that do not fit together; 3 a report could not be written.\n",
    .operands = KG_COMPLETE_FILE,
    .run = run,
};

typedef struct input {
    const char *path; /* the plan's */
    int shard;
    const json_t *result; /* its result entry, or NULL: missing */
} input;

typedef struct merged {
    const char *command;
    int nshards, count;
    json_t **summaries; /* [nshards + 1] by part, NULL when missing (borrowed from loaded) */
    json_t **loaded;    /* every summary read, in the arguments' order */
    json_t *plan;       /* the first summary's plan (borrowed) */
    input *in;          /* [count] in the plan's order */
    double seconds;
    int jobs;
} merged;

static const char *str(const json_t *o, const char *key) { return json_string_value(json_object_get(o, key)); }

/* A summary read, NULL (said) when it is not one. */
static json_t *load_summary(const char *path) {
    json_error_t err;
    json_t *j = json_load_file(path, 0, &err);
    if (!j) {
        fprintf(stderr, "%s:%d: error: %s\n", path, err.line, err.text);
        return NULL;
    }
    const json_t *plan = json_object_get(j, "plan");
    if (!json_is_object(j) || !str(j, "kinegraph") || strcmp(str(j, "kinegraph"), KG_SHARD_SUMMARY_KIND) ||
        json_integer_value(json_object_get(j, "version")) != KG_SHARD_SUMMARY_VERSION || !str(j, "command") ||
        !str(j, "shard") || !json_is_array(json_object_get(plan, "inputs")) ||
        !json_is_array(json_object_get(j, "results"))) {
        fprintf(stderr, "%s: error: not a kinegraph shard summary (version %d)\n", path, KG_SHARD_SUMMARY_VERSION);
        json_decref(j);
        return NULL;
    }
    return j;
}

/* The summaries into m: the plan from the first, the others checked against it.
 * Returns an exit code. */
static int gather(merged *m, char **paths, int n) {
    kg_strmap where;
    kg_strmap_init(&where);
    int rc = KG_EXIT_OK;
    for (int s = 0; s < n && rc == KG_EXIT_OK; s++) {
        json_t *j = load_summary(paths[s]);
        if (!j) continue; /* its part's inputs are reported missing */
        int k, nshards;
        char extra;
        const json_t *inputs = json_object_get(json_object_get(j, "plan"), "inputs");
        if (sscanf(str(j, "shard"), "%d/%d%c", &k, &nshards, &extra) != 2 || k < 1 || k > nshards) {
            fprintf(stderr, "%s: error: \"shard\" is not K/N\n", paths[s]);
            rc = KG_EXIT_USAGE;
        } else if (!m->command) { /* the first: its plan is the plan */
            m->command = str(j, "command"), m->nshards = nshards, m->plan = json_object_get(j, "plan");
            m->count = (int)json_array_size(inputs);
            m->summaries = calloc((size_t)nshards + 1, sizeof *m->summaries);
            m->in = calloc((size_t)m->count + 1, sizeof *m->in);
            for (int i = 0; i < m->count; i++) {
                const json_t *e = json_array_get(inputs, (size_t)i);
                m->in[i].path = str(e, "path") ? str(e, "path") : "";
                m->in[i].shard = (int)json_integer_value(json_object_get(e, "shard"));
                if (kg_strmap_put(&where, m->in[i].path, i) >= 0) {
                    fprintf(stderr, "%s: error: %s is twice in the plan\n", paths[s], m->in[i].path);
                    rc = KG_EXIT_USAGE;
                }
            }
        } else if (strcmp(m->command, str(j, "command")) || nshards != m->nshards ||
                   (int)json_array_size(inputs) != m->count) {
            fprintf(stderr, "%s: error: not of the same run as %s (%s, %d parts, %d inputs)\n", paths[s], paths[0],
                    m->command, m->nshards, m->count);
            rc = KG_EXIT_USAGE;
        } else { /* the same inputs in the same parts, in whatever order they were given */
            size_t i;
            const json_t *e;
            json_array_foreach(inputs, i, e) {
                int at = str(e, "path") ? kg_strmap_get(&where, str(e, "path")) : -1;
                if (at < 0 || m->in[at].shard != json_integer_value(json_object_get(e, "shard"))) {
                    fprintf(stderr, "%s: error: its plan is not the one of %s (%s)\n", paths[s], paths[0],
                            str(e, "path") ? str(e, "path") : "an input without a path");
                    rc = KG_EXIT_USAGE;
                    break;
                }
            }
        }
        if (rc != KG_EXIT_OK) {
            json_decref(j);
            break;
        }
        m->loaded[s] = j; /* kept to the end: the plan's strings are the first's */
        if (m->summaries[k])
            fprintf(stderr, "kinegraph merge: part %d/%d given twice: %s counts\n", k, nshards, paths[s]);
        m->summaries[k] = j;
    }
    if (rc == KG_EXIT_OK && !m->command) {
        fprintf(stderr, "kinegraph merge: no summary could be read\n");
        rc = KG_EXIT_USAGE;
    }
    /* the results, part by part */
    for (int k = 1; rc == KG_EXIT_OK && k <= m->nshards; k++) {
        const json_t *j = m->summaries[k];
        if (!j) continue;
        m->seconds += json_number_value(json_object_get(j, "seconds"));
        int jobs = (int)json_integer_value(json_object_get(j, "jobs"));
        if (jobs > m->jobs) m->jobs = jobs;
        size_t i;
        const json_t *e;
        json_array_foreach(json_object_get(j, "results"), i, e) {
            int at = str(e, "path") ? kg_strmap_get(&where, str(e, "path")) : -1;
            if (at < 0 || m->in[at].shard != k) {
                fprintf(stderr, "kinegraph merge: part %d/%d has a result of %s, not one of its inputs\n", k,
                        m->nshards, str(e, "path") ? str(e, "path") : "(no path)");
                rc = KG_EXIT_USAGE;
                break;
            }
            m->in[at].result = e;
        }
    }
    kg_strmap_free(&where);
    return rc;
}

/* ---- retarget ---- */

static int failed_retarget(const json_t *r) {
    return json_integer_value(json_object_get(r, "exit")) != 0 || !json_is_object(json_object_get(r, "report"));
}

static void junit_retarget(FILE *f, const merged *m) {
    int failures = 0, errors = 0;
    for (int i = 0; i < m->count; i++) {
        if (!m->in[i].result) errors++;
        else if (failed_retarget(m->in[i].result)) failures++;
    }
    fprintf(f, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    fprintf(f, "<testsuites name=\"kinegraph retarget\" tests=\"%d\" failures=\"%d\" errors=\"%d\" time=\"%.3f\">\n",
            m->count, failures, errors, m->seconds);
    fprintf(f, " <testsuite name=\"kinegraph retarget\" tests=\"%d\" failures=\"%d\" errors=\"%d\" skipped=\"0\" "
               "time=\"%.3f\">\n", m->count, failures, errors, m->seconds);
    for (int i = 0; i < m->count; i++) {
        const json_t *r = m->in[i].result, *rep = json_object_get(r, "report");
        fprintf(f, "  <testcase classname=\"retarget\" name=\"");
        kg_xml_escape(f, m->in[i].path);
        fprintf(f, "\" time=\"%.4f\">\n", json_number_value(json_object_get(rep, "seconds")));
        if (!r) {
            fprintf(f, "   <error type=\"missing\" message=\"no result: part %d/%d has no summary\"/>\n",
                    m->in[i].shard, m->nshards);
        } else if (failed_retarget(r)) {
            fprintf(f, "   <failure type=\"failed\" message=\"exit %d\">",
                    (int)json_integer_value(json_object_get(r, "exit")));
            kg_xml_escape(f, str(r, "messages") ? str(r, "messages") : "");
            fprintf(f, "</failure>\n");
        }
        fprintf(f, "  </testcase>\n");
    }
    fprintf(f, " </testsuite>\n</testsuites>\n");
}

static void html_retarget(FILE *f, const merged *m) {
    static const char *const cols[][2] = {
        {"frames", "frames"},
        {"pose_error_mean_deg", "pose error mean (deg)"},
        {"keypoint_error_mean_mm", "keypoint error mean (mm)"},
        {"foot_slip_max_mm", "foot slip max (mm)"},
        {"penetration_max_mm", "penetration max (mm)"},
        {"hover_percent", "hover (%)"},
        {"self_collision_frames", "self-collision frames"},
        {"zmp_outside_percent", "ZMP outside (%)"},
        {"hips_low_frames", "hips low frames"},
    };
    int ncol = (int)(sizeof cols / sizeof *cols), done = 0, failed = 0, missing = 0;
    long frames = 0;
    for (int i = 0; i < m->count; i++) {
        const json_t *r = m->in[i].result;
        if (!r) missing++;
        else if (failed_retarget(r)) failed++;
        else done++, frames += (long)json_integer_value(json_object_get(json_object_get(r, "report"), "frames"));
    }
    fprintf(f, "<!DOCTYPE html>\n<html lang=en><head><meta charset=utf-8><title>kinegraph retarget: %d clips</title>"
               "<style>body{font:14px/1.4 system-ui,sans-serif;margin:2em;color:#222}table{border-collapse:collapse}"
               "td,th{border:1px solid #ccc;padding:2px 8px;text-align:left}th{background:#f3f3f3}td.n{text-align:"
               "right}.failed{background:#fdd}.missing{background:#ffd}.done{background:#dfd}</style></head><body>\n"
               "<h1>kinegraph retarget</h1>\n<p>%d clips in %d parts: %d retargeted (%ld frames), %d failed, %d "
               "missing; %.2f s of the parts' time.</p>\n<table><tr><th>clip</th><th>status</th>",
            m->count, m->count, m->nshards, done, frames, failed, missing, m->seconds);
    for (int c = 0; c < ncol; c++) fprintf(f, "<th>%s</th>", cols[c][1]);
    fprintf(f, "</tr>\n");
    for (int i = 0; i < m->count; i++) {
        const json_t *r = m->in[i].result, *rep = json_object_get(r, "report");
        const char *status = !r ? "missing" : failed_retarget(r) ? "failed" : "done";
        fprintf(f, "<tr class=%s><td>", status);
        kg_xml_escape(f, m->in[i].path);
        fprintf(f, "</td><td>%s</td>", status);
        for (int c = 0; c < ncol; c++) {
            const json_t *v = json_object_get(rep, cols[c][0]);
            if (json_is_integer(v)) fprintf(f, "<td class=n>%lld</td>", (long long)json_integer_value(v));
            else if (json_is_number(v)) fprintf(f, "<td class=n>%.4g</td>", json_number_value(v));
            else fprintf(f, "<td></td>");
        }
        fprintf(f, "</tr>\n");
        if (r && failed_retarget(r) && str(r, "messages")) {
            fprintf(f, "<tr class=failed><td colspan=%d><pre>", ncol + 2);
            kg_xml_escape(f, str(r, "messages"));
            fprintf(f, "</pre></td></tr>\n");
        }
    }
    fprintf(f, "</table>\n</body></html>\n");
}

/* Writes a report with `write`, whole or not at all. 0, or -1. */
static int write_report(const char *path, void (*write)(FILE *, const merged *), const merged *m) {
    kg_out out;
    if (kg_out_open(&out, path) != 0) return -1;
    write(out.f, m);
    if (ferror(out.f)) {
        kg_out_abort(&out);
        return -1;
    }
    return kg_out_commit(&out);
}

static int merge_retarget(const merged *m, const char *out, const char *junit, const char *html) {
    json_t *all = json_array();
    int rc = KG_EXIT_OK;
    for (int i = 0; i < m->count; i++) {
        const json_t *rep = json_object_get(m->in[i].result, "report");
        if (m->in[i].result && json_is_object(rep)) json_array_append(all, (json_t *)rep);
    }
    /* as `retarget --json`: one clip's report alone, several in an array */
    json_t *doc = m->count == 1 && json_array_size(all) == 1 ? json_array_get(all, 0) : all;
    if (kg_json_write_file(doc, out) != 0) {
        fprintf(stderr, "kinegraph merge: cannot write %s\n", out);
        rc = KG_EXIT_OUTPUT;
    }
    json_decref(all);
    if (junit && write_report(junit, junit_retarget, m) != 0) {
        fprintf(stderr, "kinegraph merge: cannot write %s\n", junit);
        rc = KG_EXIT_OUTPUT;
    }
    if (html && write_report(html, html_retarget, m) != 0) {
        fprintf(stderr, "kinegraph merge: cannot write %s\n", html);
        rc = KG_EXIT_OUTPUT;
    }
    int failed = 0, missing = 0;
    for (int i = 0; i < m->count; i++) {
        const json_t *r = m->in[i].result;
        if (!r) {
            printf("missing: %s (part %d/%d)\n", m->in[i].path, m->in[i].shard, m->nshards);
            missing++;
        } else if (failed_retarget(r)) {
            printf("failed: %s (exit %d)\n", m->in[i].path, (int)json_integer_value(json_object_get(r, "exit")));
            failed++;
        }
    }
    printf("kinegraph merge: %d clips in %d parts: %d retargeted, %d failed, %d missing\n", m->count, m->nshards,
           m->count - failed - missing, failed, missing);
    if (!rc && (failed || missing)) rc = KG_EXIT_ERRORS;
    return rc;
}

/* ---- check ---- */

/* The JSON report's summary gets "missing": [paths], rewritten whole. */
static int add_missing(const char *out, const merged *m) {
    json_error_t err;
    json_t *j = json_load_file(out, JSON_DECODE_ANY, &err), *missing = json_array();
    for (int i = 0; i < m->count; i++)
        if (!m->in[i].result) json_array_append_new(missing, kg_json_str(m->in[i].path));
    json_object_set_new(json_object_get(j, "summary"), "missing", missing);
    int rc = j ? kg_json_write_file(j, out) : -1;
    json_decref(j);
    return rc;
}

static int merge_check(const merged *m, const char *out, const char *junit, const char *html) {
    kg_check_pool pool = {0};
    kg_check_result *r = calloc((size_t)m->count + 1, sizeof *r);
    int n = 0, rc = KG_EXIT_OK, missing = 0, failed = 0;
    for (int i = 0; i < m->count && rc == KG_EXIT_OK; i++) {
        if (!m->in[i].result) {
            missing++;
            continue;
        }
        if (kg_check_result_read(json_object_get(m->in[i].result, "result"), &r[n], &pool) != 0) {
            fprintf(stderr, "kinegraph merge: the result of %s in part %d/%d is not a check result\n",
                    m->in[i].path, m->in[i].shard, m->nshards);
            rc = KG_EXIT_USAGE;
            break;
        }
        n++;
    }
    if (rc == KG_EXIT_OK) {
        kg_check_print_text(stdout, r, n, 0, m->seconds);
        if (kg_check_write_json(out, r, n, m->seconds, m->jobs, NULL) != 0 || (missing && add_missing(out, m) != 0)) {
            fprintf(stderr, "kinegraph merge: cannot write %s\n", out);
            rc = KG_EXIT_OUTPUT;
        }
        if (junit && kg_check_write_junit(junit, r, n, m->seconds) != 0) {
            fprintf(stderr, "kinegraph merge: cannot write %s\n", junit);
            rc = KG_EXIT_OUTPUT;
        }
        if (html && kg_check_write_html(html, r, n, m->seconds) != 0) {
            fprintf(stderr, "kinegraph merge: cannot write %s\n", html);
            rc = KG_EXIT_OUTPUT;
        }
        for (int i = 0; i < m->count; i++)
            if (!m->in[i].result) printf("missing: %s (part %d/%d)\n", m->in[i].path, m->in[i].shard, m->nshards);
        for (int i = 0; i < n; i++)
            if (r[i].count[KG_ERROR]) printf("failed: %s (%zu errors)\n", r[i].path, r[i].count[KG_ERROR]), failed++;
        printf("kinegraph merge: %d files in %d parts: %d checked, %d with errors, %d missing\n", m->count,
               m->nshards, n, failed, missing);
        if (!rc && (failed || missing)) rc = KG_EXIT_ERRORS;
    }
    for (int i = 0; i < n; i++) kg_check_result_free(&r[i]);
    free(r);
    kg_check_pool_free(&pool);
    return rc;
}

static int run(int argc, char **argv) {
    opts o = {.paths = calloc((size_t)argc + 1, sizeof *o.paths)};
    if (!o.paths) return KG_EXIT_ERRORS;
    kg_cli c = {.ctx = &o, .operand = operand};
    int rc = kg_cli_parse(&c, &kg_cmd_merge, argc, argv);
    char **paths = o.paths;
    int npaths = o.npaths;
    const char *out = o.out, *junit = o.junit, *html = o.html;
    if (rc >= 0) return free(paths), rc;
    if (!npaths || !out) {
        free(paths);
        return kg_cli_usage_error("merge", !npaths ? "which SUMMARY files?" : "-o OUT.json is required");
    }
    merged m = {0};
    if (!(m.loaded = calloc((size_t)npaths, sizeof *m.loaded))) return free(paths), KG_EXIT_ERRORS;
    rc = gather(&m, paths, npaths);
    if (rc == KG_EXIT_OK) {
        for (int k = 1; k <= m.nshards; k++)
            if (!m.summaries[k]) printf("missing: the summary of part %d/%d\n", k, m.nshards);
        if (!strcmp(m.command, "retarget")) rc = merge_retarget(&m, out, junit, html);
        else if (!strcmp(m.command, "check")) rc = merge_check(&m, out, junit, html);
        else rc = kg_cli_usage_error("merge", "summaries of '%s', which merge does not know", m.command);
    }
    for (int s = 0; s < npaths; s++) json_decref(m.loaded[s]);
    free(m.loaded);
    free(m.summaries);
    free(m.in);
    free(paths);
    return rc;
}
