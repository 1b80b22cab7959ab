#include "formats/ledger.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/arena.h"

void kg_ledger_init(kg_ledger *l) { memset(l, 0, sizeof *l); }

void kg_ledger_clear(kg_ledger *l) {
    for (size_t i = 0; i < l->count; i++) {
        free(l->items[i].element);
        free(l->items[i].name);
        free(l->items[i].detail);
        free(l->items[i].file);
    }
    free(l->items);
    memset(l, 0, sizeof *l);
}

void kg_ledger_add(kg_ledger *l, kg_ledger_action action, const char *element, const char *name,
                   const char *file, int line, const char *fmt, ...) {
    if (!l) return;
    if (l->count == l->cap) {
        l->cap = l->cap ? 2 * l->cap : 16;
        l->items = kg_xrealloc(l->items, l->cap * sizeof *l->items);
    }
    char buf[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    kg_ledger_entry *e = &l->items[l->count++];
    e->action = action;
    e->element = kg_xstrdup(element);
    e->name = name ? kg_xstrdup(name) : NULL;
    e->detail = kg_xstrdup(buf);
    e->file = file ? kg_xstrdup(file) : NULL;
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
