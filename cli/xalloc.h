/* Allocation for the command alone: on exhaustion it says so and stops the
 * program (a command has nothing to go on with). The library never stops: its
 * functions return an error (README, "Out of memory"), so these are not in it. */
#ifndef KG_CLI_XALLOC_H
#define KG_CLI_XALLOC_H

#include <stddef.h>

void *kg_xmalloc(size_t size);
void *kg_xcalloc(size_t n, size_t size);
void *kg_xrealloc(void *p, size_t size);
char *kg_xstrdup(const char *s);

#endif
