/* The conversion ledger: everything a conversion could not carry over as it was.
 * Each entry says what happened to which element of the source, and where the
 * element was read (file and line). Exporters add to it; `kinegraph convert`
 * prints a summary and writes it whole with --ledger FILE.json. Nothing is
 * dropped, approximated or invented without an entry. */
#ifndef KG_LEDGER_H
#define KG_LEDGER_H

#include <stddef.h>

#include "core/diag.h"

typedef enum {
    KG_DROPPED = 0,      /* not written: the target cannot hold it */
    KG_APPROXIMATED = 1, /* written differently (e.g. a compound joint as a chain of joints) */
    KG_DEFAULTED = 2,    /* the target needs a value the source does not have: a default was written */
} kg_ledger_action;

typedef struct kg_ledger_entry {
    kg_ledger_action action;
    char *element;       /* what kind of thing: "loop", "joint", "geometry", ... */
    char *name;          /* which one (may be NULL) */
    char *detail;        /* what happened, for people */
    char *file;          /* where it was read (may be NULL) */
    int line;
} kg_ledger_entry;

typedef struct kg_ledger {
    kg_ledger_entry *items;
    size_t count, cap;
} kg_ledger;

void kg_ledger_init(kg_ledger *l);
void kg_ledger_clear(kg_ledger *l);
/* No-op when l is NULL (callers that do not keep a ledger). */
void kg_ledger_add(kg_ledger *l, kg_ledger_action action, const char *element, const char *name,
                   const char *file, int line, const char *fmt, ...) KG_PRINTF(7, 8);
size_t kg_ledger_count(const kg_ledger *l, kg_ledger_action action);
const char *kg_ledger_action_name(kg_ledger_action a);

#endif
