/* Strings of any length: formatted into memory of their own size. Names come
 * from the input whole; cut to a fixed buffer, one could end inside a UTF-8
 * character (invalid XML and JSON in every output). Internal. */
#ifndef KG_STR_H
#define KG_STR_H

#include <stdarg.h>

#include "kinegraph/api.h"

/* printf's fmt, ... formatted whole, malloc'd (the caller frees it); NULL when
 * memory runs out. */
char *kg_strf(const char *fmt, ...) KG_PRINTF(1, 2);
/* The same of a va_list (ap is left as it was given). */
char *kg_vstrf(const char *fmt, va_list ap);
/* A malloc'd copy of s, NULL when memory runs out (malloc, not strdup: the
 * tests make the library's own allocations fail, tests/test_oom.c). */
char *kg_strdup(const char *s);

#endif
