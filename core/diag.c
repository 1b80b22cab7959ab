#include "core/diag.h"
#include "core/str.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A hostile file can produce one diagnostic per line; keep memory bounded. */
#define KG_DIAG_DEFAULT_LIMIT 10000

void kg_diags_init(kg_diags *d) { memset(d, 0, sizeof *d); }

void kg_diags_clear(kg_diags *d) {
    for (size_t i = 0; i < d->count; i++) {
        free(d->items[i].message);
        free(d->items[i].file);
        free(d->items[i].element);
    }
    free(d->items);
    memset(d, 0, sizeof *d);
}

void kg_diag_add(kg_diags *d, kg_severity sev, const char *code, const char *file, int line,
                 const char *element, const char *fmt, ...) {
    if (!d) return;
    size_t limit = d->limit ? d->limit : KG_DIAG_DEFAULT_LIMIT;
    if (d->count >= limit) {
        /* Keep errors visible even past the limit by overwriting the last slot. */
        d->dropped++;
        if (sev != KG_ERROR || d->items[d->count - 1].severity == KG_ERROR) return;
        kg_diag *last = &d->items[--d->count];
        free(last->message);
        free(last->file);
        free(last->element);
    }
    if (d->count == d->cap) {
        size_t cap = d->cap ? 2 * d->cap : 16;
        kg_diag *items = realloc(d->items, cap * sizeof *items);
        if (!items) { /* out of memory: counted, as past the limit */
            d->dropped++;
            return;
        }
        d->items = items, d->cap = cap;
    }
    va_list ap; /* the message whole, of any length (names in it are the input's) */
    va_start(ap, fmt);
    char *message = kg_vstrf(fmt, ap);
    va_end(ap);
    if (!message) {
        d->dropped++;
        return;
    }
    kg_diag *g = &d->items[d->count++];
    g->severity = sev;
    g->code = code;
    g->message = message;
    g->file = file ? kg_strdup(file) : NULL; /* out of memory: without its file, rather than not at all */
    g->line = line;
    g->element = element ? kg_strdup(element) : NULL;
}

void kg_diag_out_of_memory(kg_diags *d, size_t since, const char *file, const char *doing) {
    if (!d) return;
    while (d->count > since) {
        kg_diag *g = &d->items[--d->count];
        free(g->message);
        free(g->file);
        free(g->element);
    }
    /* said once: a step below (the builder, a reader's helper) may have said it
     * already, when its failure came first */
    const kg_diag *last = d->count ? &d->items[d->count - 1] : NULL;
    if (last && last->severity == KG_ERROR && !strcmp(last->code, "io.memory")) return;
    kg_diag_add(d, KG_ERROR, "io.memory", file, 0, NULL, "out of memory %s", doing);
}

int kg_diags_memory(const kg_diags *d, size_t since) {
    for (size_t k = since; d && k < d->count; k++) {
        const char *c = d->items[k].code;
        size_t n = strlen(c);
        if (d->items[k].severity == KG_ERROR && n >= 7 && !strcmp(c + n - 7, ".memory")) return 1;
    }
    return 0;
}

size_t kg_diags_count(const kg_diags *d, kg_severity sev) {
    size_t n = 0;
    for (size_t i = 0; d && i < d->count; i++)
        if (d->items[i].severity == sev) n++;
    return n;
}

const char *kg_severity_name(kg_severity sev) {
    switch (sev) {
    case KG_ERROR: return "error";
    case KG_WARNING: return "warning";
    default: return "info";
    }
}
