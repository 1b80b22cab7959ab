#include "core/str.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

char *kg_strdup(const char *s) {
    size_t n = strlen(s) + 1;
    char *c = malloc(n);
    return c ? memcpy(c, s, n) : NULL;
}

char *kg_vstrf(const char *fmt, va_list ap) {
    va_list measure, again;
    va_copy(measure, ap);
    int n = vsnprintf(NULL, 0, fmt, measure);
    va_end(measure);
    char *s = n >= 0 ? malloc((size_t)n + 1) : NULL;
    if (s) {
        va_copy(again, ap);
        vsnprintf(s, (size_t)n + 1, fmt, again);
        va_end(again);
    }
    return s;
}

char *kg_strf(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    char *s = kg_vstrf(fmt, ap);
    va_end(ap);
    return s;
}
