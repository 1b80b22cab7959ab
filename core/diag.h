/* Diagnostics: every problem found while reading or checking a model.
 *
 * A diagnostic has a severity, a stable code (dotted lower case, e.g.
 * "joint.axis_zero"; codes are part of the public contract and never change
 * meaning), a message for people, and where it comes from: file, line (0 when
 * unknown) and the element (XML tag or entity) concerned. */
#ifndef KG_DIAG_H
#define KG_DIAG_H

#include <stddef.h>

typedef enum { KG_INFO = 0, KG_WARNING = 1, KG_ERROR = 2 } kg_severity;

typedef struct kg_diag {
    kg_severity severity;
    const char *code;    /* static string */
    char *message;
    char *file;          /* may be NULL */
    int line;            /* 1-based; 0 when unknown */
    char *element;       /* may be NULL */
} kg_diag;

typedef struct kg_diags {
    kg_diag *items;
    size_t count, cap;
    size_t limit;        /* further diagnostics are counted, not stored (0 = default) */
    size_t dropped;
} kg_diags;

void kg_diags_init(kg_diags *d);
void kg_diags_clear(kg_diags *d);

#if defined(__GNUC__)
#define KG_PRINTF(a, b) __attribute__((format(printf, a, b)))
#else
#define KG_PRINTF(a, b)
#endif

void kg_diag_add(kg_diags *d, kg_severity sev, const char *code, const char *file, int line,
                 const char *element, const char *fmt, ...) KG_PRINTF(7, 8);

size_t kg_diags_count(const kg_diags *d, kg_severity sev);
const char *kg_severity_name(kg_severity sev);
/* How to fix what a diagnostic with this code reports (core/hints.c), or NULL. */
const char *kg_diag_hint(const char *code);

#endif
