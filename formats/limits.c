#include "formats/limits.h"

#include <errno.h>
#include <stdlib.h>

/* The environment is read on every call (cheap next to reading a file) so that
 * a test or a long-running program can change a limit between loads. */
unsigned long long kg_limit(const char *name, unsigned long long value) {
    const char *s = getenv(name);
    if (!s || !*s) return value;
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    return errno || *end || v == 0 ? value : v; /* a typo keeps the default, never "no limit" */
}
