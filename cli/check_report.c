/* The reports of kinegraph check: grouped text for terminals, JSON for
 * programs, JUnit XML for CI systems, HTML for people browsing a corpus. */
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cli/check.h"
#include "cli/common.h"
#include "cli/xalloc.h"
#include "formats/base64.h"
#include "formats/fileio.h"
#include "formats/xml.h"

const char *kg_check_status(const kg_check_result *r) {
    return r->count[KG_ERROR] ? "error" : r->count[KG_WARNING] ? "warning" : "ok";
}

typedef struct totals {
    int files, status[3];  /* ok, warning, error */
    size_t count[3];       /* notes, warnings, errors */
} totals;

static totals sum(const kg_check_result *r, int n) {
    totals t = {.files = n};
    for (int i = 0; i < n; i++) {
        t.status[r[i].count[KG_ERROR] ? 2 : r[i].count[KG_WARNING] ? 1 : 0]++;
        for (int s = 0; s < 3; s++) t.count[s] += r[i].count[s];
    }
    return t;
}

static void print_diag(FILE *f, const kg_diag *g) {
    fprintf(f, "  ");
    if (g->file && g->line) fprintf(f, "%s:%d: ", g->file, g->line);
    else if (g->file) fprintf(f, "%s: ", g->file);
    fprintf(f, "%s: %s [%s]\n", kg_severity_name(g->severity), g->message, g->code);
    const char *h = kg_diag_hint(g->code);
    if (h && g->severity > KG_INFO) fprintf(f, "      hint: %s\n", h);
}

void kg_check_print_text(FILE *f, const kg_check_result *r, int n, int verbose, double seconds) {
    for (int i = 0; i < n; i++) {
        const kg_check_result *x = &r[i];
        int shown = x->count[KG_ERROR] || x->count[KG_WARNING] || (verbose && x->diags.count);
        if (!shown && !verbose) continue;
        fprintf(f, "%s (%s): %s", x->path, x->format, kg_check_status(x));
        if (x->count[KG_ERROR] || x->count[KG_WARNING] || x->count[KG_INFO])
            fprintf(f, ", %zu errors, %zu warnings, %zu notes", x->count[KG_ERROR], x->count[KG_WARNING],
                    x->count[KG_INFO]);
        fputc('\n', f);
        for (int sev = KG_ERROR; sev >= (verbose ? KG_INFO : KG_WARNING); sev--)
            for (size_t k = 0; k < x->diags.count; k++)
                if ((int)x->diags.items[k].severity == sev) print_diag(f, &x->diags.items[k]);
        if (x->diags.dropped) fprintf(f, "  (%zu more findings not kept)\n", x->diags.dropped);
    }
    totals t = sum(r, n);
    fprintf(f, "%d files: %d ok, %d with warnings, %d with errors; %zu errors, %zu warnings, %zu notes%s (%.2f s)\n",
            t.files, t.status[0], t.status[1], t.status[2], t.count[KG_ERROR], t.count[KG_WARNING], t.count[KG_INFO],
            verbose ? "" : " (notes: --verbose or the JSON report)", seconds);
}

/* ---- JSON ---- */

json_t *kg_check_file_json(const kg_check_result *x) {
    json_t *o = json_object();
    {
        json_object_set_new(o, "path", kg_json_str(x->path));
        json_object_set_new(o, "format", json_string(x->format));
        json_object_set_new(o, "status", json_string(kg_check_status(x)));
        json_object_set_new(o, "findings", kg_json_diags(&x->diags));
        if (x->built) {
            json_t *m = json_object();
            json_object_set_new(m, "name", kg_json_str(x->name));
            json_object_set_new(m, "links", json_integer(x->nlink));
            json_object_set_new(m, "joints", json_integer(x->njoint));
            json_object_set_new(m, "dof", json_integer(x->dof));
            json_object_set_new(m, "loops", json_integer(x->nloop));
            json_object_set_new(m, "mass", kg_json_num(x->mass));
            json_object_set_new(m, "frames", json_integer(x->frames));
            json_object_set_new(o, "model", m);
        } else {
            json_object_set_new(o, "model", json_null());
        }
        json_object_set_new(o, "seconds", kg_json_num(x->seconds));
    }
    return o;
}

int kg_check_write_json(const char *path, const kg_check_result *r, int n, double seconds, int jobs,
                        const char *shard) {
    json_t *root = json_object(), *files = json_array(), *codes = json_object();
    for (int i = 0; i < n; i++) {
        const kg_check_result *x = &r[i];
        json_array_append_new(files, kg_check_file_json(x));
        for (size_t k = 0; k < x->diags.count; k++) {
            const char *c = x->diags.items[k].code;
            json_t *v = json_object_get(codes, c);
            json_object_set_new(codes, c, json_integer(v ? json_integer_value(v) + 1 : 1));
        }
    }
    totals t = sum(r, n);
    json_t *s = json_object();
    json_object_set_new(s, "files", json_integer(t.files));
    json_object_set_new(s, "ok", json_integer(t.status[0]));
    json_object_set_new(s, "warning", json_integer(t.status[1]));
    json_object_set_new(s, "error", json_integer(t.status[2]));
    json_object_set_new(s, "errors", json_integer((json_int_t)t.count[KG_ERROR]));
    json_object_set_new(s, "warnings", json_integer((json_int_t)t.count[KG_WARNING]));
    json_object_set_new(s, "notes", json_integer((json_int_t)t.count[KG_INFO]));
    json_object_set_new(s, "codes", codes);
    json_object_set_new(s, "seconds", kg_json_num(seconds));
    json_object_set_new(s, "jobs", json_integer(jobs));
    json_object_set_new(s, "shard", kg_json_str(shard));
    json_object_set_new(root, "files", files);
    json_object_set_new(root, "summary", s);
    int rc;
    if (!strcmp(path, "-")) rc = kg_json_print(root) ? -1 : 0;
    else {
        rc = kg_json_write_file(root, path);
        json_decref(root);
    }
    return rc;
}

/* Commits a report written whole, or removes it. */
static int finish(kg_out *out) {
    if (ferror(out->f)) {
        kg_out_abort(out);
        return -1;
    }
    return kg_out_commit(out);
}

/* ---- XML text ---- */

static void diag_line(FILE *f, const kg_diag *g) {
    if (g->line) fprintf(f, "line %d: ", g->line);
    fprintf(f, "%s: ", kg_severity_name(g->severity));
    kg_xml_escape(f, g->message);
    fprintf(f, " [%s]", g->code);
    const char *h = kg_diag_hint(g->code);
    if (h && g->severity > KG_INFO) {
        fputs(" hint: ", f);
        kg_xml_escape(f, h);
    }
    fputc('\n', f);
}

int kg_check_write_junit(const char *path, const kg_check_result *r, int n, double seconds) {
    kg_out out;
    if (kg_out_open(&out, path) != 0) return -1;
    FILE *f = out.f;
    totals t = sum(r, n);
    fprintf(f, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    fprintf(f, "<testsuites name=\"kinegraph check\" tests=\"%d\" failures=\"%d\" errors=\"0\" time=\"%.3f\">\n",
            t.files, t.status[2], seconds);
    fprintf(f, " <testsuite name=\"kinegraph check\" tests=\"%d\" failures=\"%d\" errors=\"0\" skipped=\"0\" "
               "time=\"%.3f\">\n", t.files, t.status[2], seconds);
    for (int i = 0; i < n; i++) {
        const kg_check_result *x = &r[i];
        fprintf(f, "  <testcase classname=\"%s\" name=\"", x->format);
        kg_xml_escape(f, x->path);
        fprintf(f, "\" time=\"%.4f\">\n", x->seconds);
        if (x->count[KG_ERROR]) {
            fprintf(f, "   <failure type=\"error\" message=\"%zu errors, %zu warnings\">", x->count[KG_ERROR],
                    x->count[KG_WARNING]);
            for (size_t k = 0; k < x->diags.count; k++)
                if (x->diags.items[k].severity == KG_ERROR) diag_line(f, &x->diags.items[k]);
            fprintf(f, "</failure>\n");
        }
        if (x->count[KG_WARNING] || x->count[KG_ERROR]) {
            fprintf(f, "   <system-out>");
            for (size_t k = 0; k < x->diags.count; k++)
                if (x->diags.items[k].severity == KG_WARNING) diag_line(f, &x->diags.items[k]);
            fprintf(f, "</system-out>\n");
        }
        fprintf(f, "  </testcase>\n");
    }
    fprintf(f, " </testsuite>\n</testsuites>\n");
    return finish(&out);
}

/* ---- HTML ---- */

/* The tree as an SVG drawing: depth across, leaves down, one row per leaf. */
static void draw_tree(FILE *f, const kg_check_tree *t) {
    int n = t->nlink;
    if (n == 0) return;
    if (n > 600) {
        fprintf(f, "<p class=note>%d links: too many to draw.</p>\n", n);
        return;
    }
    int *depth = calloc((size_t)n, sizeof *depth), *row = calloc((size_t)n, sizeof *row);
    int *nchild = calloc((size_t)n, sizeof *nchild);
    if (!depth || !row || !nchild) goto done;
    int maxdepth = 0;
    for (int i = 1; i < n; i++) { /* topological order: parents first */
        depth[i] = depth[t->parent[i]] + 1;
        if (depth[i] > maxdepth) maxdepth = depth[i];
        nchild[t->parent[i]]++;
    }
    /* rows in depth-first order: leaves take consecutive rows, a parent sits
     * at its first child's row (links are stored parents first) */
    int rows = 0;
    int *stack = calloc((size_t)n, sizeof *stack), top = 0;
    if (!stack) goto done;
    stack[top++] = 0;
    while (top) {
        int i = stack[--top];
        row[i] = rows;
        if (nchild[i] == 0) rows++;
        for (int k = n - 1; k > i; k--) /* children, pushed last-first */
            if (t->parent[k] == i) stack[top++] = k;
    }
    free(stack);
    if (rows == 0) rows = 1;
    int W = 170, H = 18;
    int width = (maxdepth + 1) * W + 40, height = rows * H + 20;
    fprintf(f, "<svg class=tree width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\">\n", width, height, width, height);
    for (int i = 1; i < n; i++) {
        int p = t->parent[i];
        double x0 = 10 + depth[p] * W + 6, y0 = 14 + row[p] * H - 4, x1 = 10 + depth[i] * W, y1 = 14 + row[i] * H - 4;
        const char *type = t->joint_type[i] ? t->joint_type[i] : "";
        fprintf(f, "<path class=\"j %s\" d=\"M%.0f %.0fV%.0fH%.0f\"><title>", type, x0, y0, y1, x1);
        kg_xml_escape(f, type);
        fprintf(f, " joint</title></path>\n");
        if (t->real[i] >= 0) { /* a loop closure: dashed to the real link */
            int r = t->real[i];
            fprintf(f, "<path class=\"loop\" d=\"M%d %dL%d %d\"><title>loop closure</title></path>\n",
                    10 + depth[i] * W, 14 + row[i] * H - 4, 10 + depth[r] * W, 14 + row[r] * H - 4);
        }
    }
    for (int i = 0; i < n; i++) {
        fprintf(f, "<circle cx=\"%d\" cy=\"%d\" r=\"3\"%s/><text x=\"%d\" y=\"%d\">", 10 + depth[i] * W,
                14 + row[i] * H - 4, t->real[i] >= 0 ? " class=virtual" : "", 16 + depth[i] * W, 14 + row[i] * H);
        kg_xml_escape(f, t->name[i]);
        fprintf(f, "</text>\n");
    }
    fprintf(f, "</svg>\n");
done:
    free(depth);
    free(row);
    free(nchild);
}

static const char css[] =
    "body{font:14px/1.4 system-ui,sans-serif;margin:2em;color:#222}"
    "table{border-collapse:collapse;margin:1em 0}td,th{border:1px solid #ccc;padding:2px 8px;text-align:left}"
    "th{background:#f3f3f3}td.n{text-align:right}.error{background:#fdd}.warning{background:#ffd}.ok{background:#dfd}"
    ".sev-error{color:#b00;font-weight:bold}.sev-warning{color:#a60}.sev-info{color:#666}"
    "code{font-size:12px}.hint{color:#355;font-size:12px}section{border-top:2px solid #ddd;margin-top:2em}"
    "svg.tree text{font:11px monospace}svg.tree path{fill:none;stroke:#888}svg.tree path.fixed{stroke-dasharray:2 2}"
    "svg.tree path.loop{stroke:#c00;stroke-dasharray:5 3}svg.tree circle{fill:#248}svg.tree circle.virtual{fill:#c00}"
    "details{margin:.5em 0}.note{color:#666}";

int kg_check_write_html(const char *path, const kg_check_result *r, int n, double seconds) {
    kg_out out;
    if (kg_out_open(&out, path) != 0) return -1;
    FILE *f = out.f;
    totals t = sum(r, n);
    fprintf(f, "<!DOCTYPE html>\n<html lang=en><head><meta charset=utf-8><title>kinegraph check: %d files</title>"
               "<style>%s</style></head><body>\n", t.files, css);
    fprintf(f, "<h1>kinegraph check</h1>\n<p>%d files: %d ok, %d with warnings, %d with errors; %zu errors, %zu "
               "warnings, %zu notes; %.2f s.</p>\n", t.files, t.status[0], t.status[1], t.status[2],
            t.count[KG_ERROR], t.count[KG_WARNING], t.count[KG_INFO], seconds);
    fprintf(f, "<table><tr><th>file</th><th>format</th><th>status</th><th>model</th><th>links</th><th>joints</th>"
               "<th>dof</th><th>loops</th><th>mass (kg)</th><th>frames</th><th>errors</th><th>warnings</th>"
               "<th>notes</th></tr>\n");
    for (int i = 0; i < n; i++) {
        const kg_check_result *x = &r[i];
        fprintf(f, "<tr class=%s><td><a href=\"#f%d\">", kg_check_status(x), i);
        kg_xml_escape(f, x->path);
        fprintf(f, "</a></td><td>%s</td><td>%s</td><td>", x->format, kg_check_status(x));
        kg_xml_escape(f, x->name);
        if (x->built)
            fprintf(f, "</td><td class=n>%d</td><td class=n>%d</td><td class=n>%d</td><td class=n>%d</td>"
                       "<td class=n>%.4g</td><td class=n>%d</td>", x->nlink, x->njoint, x->dof, x->nloop, x->mass,
                    x->frames);
        else fprintf(f, "</td><td colspan=6 class=note>not built</td>");
        fprintf(f, "<td class=n>%zu</td><td class=n>%zu</td><td class=n>%zu</td></tr>\n", x->count[KG_ERROR],
                x->count[KG_WARNING], x->count[KG_INFO]);
    }
    fprintf(f, "</table>\n");
    for (int i = 0; i < n; i++) {
        const kg_check_result *x = &r[i];
        fprintf(f, "<section id=f%d><h2>", i);
        kg_xml_escape(f, x->path);
        fprintf(f, "</h2>\n<p>%s, <b>%s</b>", x->format, kg_check_status(x));
        if (x->built) {
            fprintf(f, "; model '");
            kg_xml_escape(f, x->name);
            fprintf(f, "': %d links, %d joints, %d dof, %d loops, %.4g kg", x->nlink, x->njoint, x->dof, x->nloop,
                    x->mass);
            if (x->frames) fprintf(f, ", %d frames", x->frames);
        }
        fprintf(f, "</p>\n");
        if (x->diags.count) {
            fprintf(f, "<table><tr><th>severity</th><th>code</th><th>line</th><th>element</th><th>message</th></tr>\n");
            for (int sev = KG_ERROR; sev >= KG_INFO; sev--)
                for (size_t k = 0; k < x->diags.count; k++) {
                    const kg_diag *g = &x->diags.items[k];
                    if ((int)g->severity != sev) continue;
                    fprintf(f, "<tr><td class=sev-%s>%s</td><td><code>%s</code></td><td class=n>", kg_severity_name(sev),
                            kg_severity_name(sev), g->code);
                    if (g->line) fprintf(f, "%d", g->line);
                    if (g->file && strcmp(g->file, x->path) != 0) {
                        fprintf(f, " <span class=note>");
                        kg_xml_escape(f, g->file);
                        fprintf(f, "</span>");
                    }
                    fprintf(f, "</td><td>");
                    kg_xml_escape(f, g->element);
                    fprintf(f, "</td><td>");
                    kg_xml_escape(f, g->message);
                    const char *h = kg_diag_hint(g->code);
                    if (h) {
                        fprintf(f, "<div class=hint>");
                        kg_xml_escape(f, h);
                        fprintf(f, "</div>");
                    }
                    fprintf(f, "</td></tr>\n");
                }
            fprintf(f, "</table>\n");
        } else {
            fprintf(f, "<p class=note>No findings.</p>\n");
        }
        if (x->picture) {
            fprintf(f, "<figure><img alt=\"the model at rest\" src=\"data:image/png;base64,");
            kg_base64_write(f, x->picture, x->picture_size);
            fprintf(f, "\"><figcaption>at rest (joints at zero), its visual geometry</figcaption></figure>\n");
        }
        if (x->tree.nlink) {
            fprintf(f, "<details%s><summary>kinematic tree (%d links; dotted: fixed joints, red: loop "
                       "closures)</summary>\n", x->tree.nlink <= 80 ? " open" : "", x->tree.nlink);
            draw_tree(f, &x->tree);
            fprintf(f, "</details>\n");
        }
        fprintf(f, "</section>\n");
    }
    fprintf(f, "</body></html>\n");
    return finish(&out);
}

/* ---- one file's result as JSON and back (shards and merge) ---- */

json_t *kg_check_result_json(const kg_check_result *x) {
    json_t *j = json_object(), *counts = json_array();
    json_object_set_new(j, "kinegraph", json_string("check-result"));
    json_object_set_new(j, "version", json_integer(1));
    json_object_set_new(j, "path", kg_json_str(x->path));
    json_object_set_new(j, "file", kg_check_file_json(x));
    for (int s = 0; s < 3; s++) json_array_append_new(counts, json_integer((json_int_t)x->count[s]));
    json_object_set_new(j, "counts", counts);
    json_object_set_new(j, "dropped", json_integer((json_int_t)x->diags.dropped));
    if (x->tree.nlink) {
        const kg_check_tree *t = &x->tree;
        json_t *tree = json_object(), *name = json_array(), *parent = json_array(), *type = json_array(),
               *real = json_array();
        for (int i = 0; i < t->nlink; i++) {
            json_array_append_new(name, kg_json_str(t->name[i]));
            json_array_append_new(parent, json_integer(t->parent[i]));
            json_array_append_new(type, kg_json_str(t->joint_type[i]));
            json_array_append_new(real, json_integer(t->real[i]));
        }
        json_object_set_new(tree, "name", name);
        json_object_set_new(tree, "parent", parent);
        json_object_set_new(tree, "joint_type", type);
        json_object_set_new(tree, "real", real);
        json_object_set_new(j, "tree", tree);
    } else {
        json_object_set_new(j, "tree", json_null());
    }
    return j;
}

const char *kg_check_pool_intern(kg_check_pool *p, const char *s) {
    for (size_t k = 0; k < p->n; k++)
        if (p->s[k][0] == 'i' && !strcmp(p->s[k] + 1, s)) return p->s[k] + 1;
    const char *kept = kg_check_pool_keep(p, s);
    p->s[p->n - 1][0] = 'i';
    return kept;
}

const char *kg_check_pool_keep(kg_check_pool *p, const char *s) {
    if (p->n == p->cap) {
        p->cap = p->cap ? 2 * p->cap : 64;
        p->s = kg_xrealloc(p->s, p->cap * sizeof *p->s);
    }
    size_t len = strlen(s);
    char *c = kg_xmalloc(len + 2);
    c[0] = 'k'; /* kept; 'i': interned, looked up */
    memcpy(c + 1, s, len + 1);
    p->s[p->n++] = c;
    return c + 1;
}

void kg_check_pool_free(kg_check_pool *p) {
    for (size_t k = 0; k < p->n; k++) free(p->s[k]);
    free(p->s);
    memset(p, 0, sizeof *p);
}

static const char *str(const json_t *o, const char *key) { return json_string_value(json_object_get(o, key)); }
static long long integer(const json_t *o, const char *key) { return json_integer_value(json_object_get(o, key)); }

int kg_check_result_read(const json_t *j, kg_check_result *r, kg_check_pool *pool) {
    memset(r, 0, sizeof *r);
    const json_t *f = json_object_get(j, "file"), *findings = json_object_get(f, "findings"),
                 *counts = json_object_get(j, "counts"), *model = json_object_get(f, "model");
    if (!json_is_object(j) || !str(j, "kinegraph") || strcmp(str(j, "kinegraph"), "check-result") ||
        !json_is_object(f) || !str(f, "path") || !str(f, "format") || !json_is_array(findings) ||
        json_array_size(counts) != 3 || !(json_is_object(model) || json_is_null(model)) ||
        strcmp(str(j, "path") ? str(j, "path") : "", str(f, "path")))
        return -1;
    r->path = kg_check_pool_keep(pool, str(f, "path"));
    r->format = kg_check_pool_intern(pool, str(f, "format"));
    size_t k;
    json_t *g;
    json_array_foreach(findings, k, g) {
        const char *sev = str(g, "severity"), *code = str(g, "code"), *msg = str(g, "message");
        if (!sev || !code || !msg) return kg_check_result_free(r), -1;
        if (r->diags.count == r->diags.cap) {
            r->diags.cap = r->diags.cap ? 2 * r->diags.cap : 16;
            r->diags.items = kg_xrealloc(r->diags.items, r->diags.cap * sizeof *r->diags.items);
        }
        kg_diag *d = &r->diags.items[r->diags.count++];
        d->severity = !strcmp(sev, "error") ? KG_ERROR : !strcmp(sev, "warning") ? KG_WARNING : KG_INFO;
        d->code = kg_check_pool_intern(pool, code);
        d->message = kg_xstrdup(msg);
        d->file = str(g, "file") ? kg_xstrdup(str(g, "file")) : NULL;
        d->line = (int)integer(g, "line");
        d->element = str(g, "element") ? kg_xstrdup(str(g, "element")) : NULL;
    }
    for (int s = 0; s < 3; s++) r->count[s] = (size_t)json_integer_value(json_array_get(counts, (size_t)s));
    r->diags.dropped = (size_t)integer(j, "dropped");
    if (json_is_object(model)) {
        r->built = 1;
        r->name = kg_xstrdup(str(model, "name") ? str(model, "name") : "");
        r->nlink = (int)integer(model, "links");
        r->njoint = (int)integer(model, "joints");
        r->dof = (int)integer(model, "dof");
        r->nloop = (int)integer(model, "loops");
        json_t *mass = json_object_get(model, "mass");
        r->mass = json_is_number(mass) ? json_number_value(mass) : NAN;
        r->frames = (int)integer(model, "frames");
    }
    r->seconds = json_number_value(json_object_get(f, "seconds"));
    const json_t *tree = json_object_get(j, "tree"), *name = json_object_get(tree, "name"),
                 *parent = json_object_get(tree, "parent"), *type = json_object_get(tree, "joint_type"),
                 *real = json_object_get(tree, "real");
    size_t n = json_array_size(name);
    if (n && json_array_size(parent) == n && json_array_size(type) == n && json_array_size(real) == n) {
        kg_check_tree *t = &r->tree;
        t->name = calloc(n, sizeof *t->name);
        t->parent = calloc(n, sizeof *t->parent);
        t->joint_type = calloc(n, sizeof *t->joint_type);
        t->real = calloc(n, sizeof *t->real);
        if (!t->name || !t->parent || !t->joint_type || !t->real) return kg_check_result_free(r), -1;
        t->nlink = (int)n;
        for (size_t i = 0; i < n; i++) {
            const char *nm = json_string_value(json_array_get(name, i)), *ty = json_string_value(json_array_get(type, i));
            long long pa = json_integer_value(json_array_get(parent, i));
            t->name[i] = kg_xstrdup(nm ? nm : "");
            t->parent[i] = i == 0 ? -1 : pa >= 0 && (size_t)pa < i ? (int)pa : 0; /* parents first */
            t->joint_type[i] = ty ? kg_check_pool_intern(pool, ty) : NULL;
            t->real[i] = (int)json_integer_value(json_array_get(real, i));
            if (t->real[i] < -1 || t->real[i] >= (int)n) t->real[i] = -1;
        }
    }
    return 0;
}

void kg_check_result_free(kg_check_result *r) {
    kg_diags_clear(&r->diags);
    free(r->name);
    for (int i = 0; i < r->tree.nlink; i++) free(r->tree.name[i]);
    free(r->tree.name);
    free(r->tree.parent);
    free(r->tree.joint_type);
    free(r->tree.real);
    memset(&r->tree, 0, sizeof r->tree);
    free(r->picture);
    r->name = NULL, r->picture = NULL, r->picture_size = 0;
}
