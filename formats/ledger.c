#include "formats/ledger.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void kg_ledger_init(kg_ledger *l) { memset(l, 0, sizeof *l); }

/* An entry's strings share one block, the element's (one allocation an entry:
 * the ledger of a large model holds thousands). */
void kg_ledger_clear(kg_ledger *l) {
    for (size_t i = 0; i < l->count; i++) free(l->items[i].element);
    free(l->items);
    memset(l, 0, sizeof *l);
}

/* Copies s (may be NULL) to *at, advancing it. */
static char *put(char **at, const char *s) {
    if (!s) return NULL;
    size_t n = strlen(s) + 1;
    char *d = memcpy(*at, s, n);
    *at += n;
    return d;
}

void kg_ledger_add(kg_ledger *l, kg_ledger_action action, const char *element, const char *name,
                   const char *file, int line, const char *fmt, ...) {
    if (!l) return;
    if (l->count == l->cap) {
        size_t cap = l->cap ? 2 * l->cap : 16;
        kg_ledger_entry *items = realloc(l->items, cap * sizeof *items);
        if (!items) { /* out of memory: counted, and the conversion fails (io/save.c) */
            l->lost++;
            return;
        }
        l->items = items, l->cap = cap;
    }
    char buf[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    size_t size = strlen(element) + strlen(buf) + 2 + (name ? strlen(name) + 1 : 0) + (file ? strlen(file) + 1 : 0);
    char *block = malloc(size), *at = block;
    if (!block) {
        l->lost++;
        return;
    }
    kg_ledger_entry *e = &l->items[l->count++];
    e->action = action;
    e->element = put(&at, element); /* first: the block's own address */
    e->name = put(&at, name);
    e->detail = put(&at, buf);
    e->file = put(&at, file);
    e->line = line;
}

size_t kg_ledger_count(const kg_ledger *l, kg_ledger_action action) {
    size_t n = 0;
    for (size_t i = 0; i < l->count; i++) n += l->items[i].action == action;
    return n;
}

const char *kg_ledger_action_name(kg_ledger_action a) {
    static const char *const names[] = {"dropped", "approximated", "defaulted"};
    return (unsigned)a < 3 ? names[a] : "?";
}
