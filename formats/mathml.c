#include "formats/mathml.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "formats/number.h"
#include "formats/xml.h"

#define MAX_DEPTH 64

typedef struct ev {
    kg_mathml_var var;
    void *ctx;
    const char *why;
    xmlNodePtr where;
    int oom; /* memory ran out (kg_mathml_eval returns -2) */
} ev;

static int fail(ev *e, xmlNodePtr n, const char *why) {
    e->why = why;
    e->where = n;
    return -1;
}

/* The element's text, trimmed: in small (64 bytes) when it fits, else
 * malloc'd (free it when it is not small); NULL with e->oom set when memory
 * runs out. */
static char *text_of(ev *e, xmlNodePtr n, char *small) {
    xmlChar *t = xmlNodeGetContent(n);
    if (!t && n->children) return e->oom = 1, NULL; /* libxml2's copy */
    const char *s = t ? (const char *)t : "";
    while (*s == ' ' || *s == '\t' || *s == '\n' || *s == '\r') s++;
    size_t k = strlen(s);
    while (k && (s[k - 1] == ' ' || s[k - 1] == '\t' || s[k - 1] == '\n' || s[k - 1] == '\r')) k--;
    char *r = k < 64 ? small : malloc(k + 1);
    if (r) memcpy(r, s, k), r[k] = 0;
    else e->oom = 1;
    xmlFree(t);
    return r;
}

static int eval(ev *e, xmlNodePtr n, int depth, double *out);

static int eval_apply(ev *e, xmlNodePtr n, int depth, double *out) {
    xmlNodePtr op = kg_xml_first(n);
    if (!op) return fail(e, n, "an empty <apply>");
    double a[16], degree = 2;
    int na = 0;
    for (xmlNodePtr c = kg_xml_next(op); c; c = kg_xml_next(c)) {
        if (!strcmp((const char *)c->name, "degree")) { /* the qualifier of <root/> */
            xmlNodePtr v = kg_xml_first(c);
            if (!v || eval(e, v, depth + 1, &degree) != 0) return fail(e, c, "a <degree> without a value");
            continue;
        }
        if (na == 16) return fail(e, c, "more than 16 arguments");
        if (eval(e, c, depth + 1, &a[na++]) != 0) return -1;
    }
    const char *o = (const char *)op->name;
    if (!strcmp(o, "plus")) {
        double s = 0;
        for (int i = 0; i < na; i++) s += a[i];
        *out = s;
    } else if (!strcmp(o, "times")) {
        double s = 1;
        for (int i = 0; i < na; i++) s *= a[i];
        *out = s;
    } else if (!strcmp(o, "minus")) {
        if (na == 1) *out = -a[0];
        else if (na == 2) *out = a[0] - a[1];
        else return fail(e, op, "<minus> takes one or two arguments");
    } else if (na == 2 && !strcmp(o, "divide")) {
        *out = a[0] / a[1];
    } else if (na == 2 && !strcmp(o, "power")) {
        *out = pow(a[0], a[1]);
    } else if (na == 1 && !strcmp(o, "root")) {
        *out = degree == 2 ? sqrt(a[0]) : pow(a[0], 1 / degree);
    } else if (na == 1) {
        static const struct {
            const char *name;
            double (*f)(double);
        } fns[] = {{"abs", fabs}, {"exp", exp},    {"ln", log},       {"sin", sin},       {"cos", cos},
                   {"tan", tan},  {"arcsin", asin}, {"arccos", acos}, {"arctan", atan}};
        for (unsigned i = 0; i < sizeof fns / sizeof *fns; i++)
            if (!strcmp(o, fns[i].name)) {
                *out = fns[i].f(a[0]);
                return 0;
            }
        return fail(e, op, "an operator that is not supported");
    } else {
        return fail(e, op, "an operator that is not supported, or the wrong number of arguments");
    }
    return 0;
}

static int eval(ev *e, xmlNodePtr n, int depth, double *out) {
    if (depth > MAX_DEPTH) return fail(e, n, "an expression nested too deeply");
    const char *name = (const char *)n->name;
    if (!strcmp(name, "math")) {
        xmlNodePtr c = kg_xml_first(n);
        if (!c || kg_xml_next(c)) return fail(e, n, "<math> must hold one expression");
        return eval(e, c, depth + 1, out);
    }
    if (!strcmp(name, "apply")) return eval_apply(e, n, depth, out);
    if (!strcmp(name, "pi")) {
        *out = 3.14159265358979323846;
        return 0;
    }
    if (!strcmp(name, "exponentiale")) {
        *out = 2.71828182845904523536;
        return 0;
    }
    char small[64];
    if (!strcmp(name, "cn")) {
        char *t = text_of(e, n, small);
        if (!t) return fail(e, n, "out of memory");
        const char *end = kg_parse_number(t, out);
        int ok = end && !*end;
        if (t != small) free(t);
        return ok ? 0 : fail(e, n, "a <cn> that is not a number");
    }
    if (!strcmp(name, "csymbol") || !strcmp(name, "ci")) {
        char *t = text_of(e, n, small);
        if (!t) return fail(e, n, "out of memory");
        int rc = e->var(e->ctx, t, out);
        if (t != small) free(t);
        return rc == 0 ? 0 : fail(e, n, "a variable that names no joint");
    }
    return fail(e, n, "an element that is not supported");
}

int kg_mathml_eval(xmlNodePtr n, kg_mathml_var var, void *ctx, double *out, const char **why, xmlNodePtr *where) {
    ev e = {var, ctx, NULL, NULL, 0};
    int rc = eval(&e, n, 0, out);
    if (rc != 0) {
        *why = e.why;
        *where = e.where;
    }
    return e.oom ? -2 : rc;
}
