#include "cli/xalloc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void oom(void) {
    fputs("kinegraph: out of memory\n", stderr);
    abort();
}

void *kg_xmalloc(size_t size) {
    void *p = malloc(size ? size : 1);
    if (!p) oom();
    return p;
}

void *kg_xcalloc(size_t n, size_t size) {
    void *p = calloc(n ? n : 1, size ? size : 1);
    if (!p) oom();
    return p;
}

void *kg_xrealloc(void *p, size_t size) {
    void *q = realloc(p, size ? size : 1);
    if (!q) oom();
    return q;
}

char *kg_xstrdup(const char *s) {
    size_t n = strlen(s) + 1;
    char *d = kg_xmalloc(n);
    memcpy(d, s, n);
    return d;
}
