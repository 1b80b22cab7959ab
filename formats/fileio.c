#define _POSIX_C_SOURCE 200809L
#include "formats/fileio.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/arena.h"

char *kg_read_file(const char *path, size_t *len, kg_diags *d) {
    struct stat st;
    if (stat(path, &st) != 0) {
        kg_diag_add(d, KG_ERROR, "io.read", path, 0, NULL, "cannot open '%s': %s", path, strerror(errno));
        return NULL;
    }
    if (!S_ISREG(st.st_mode)) {
        kg_diag_add(d, KG_ERROR, "io.read", path, 0, NULL, "'%s' is not a regular file", path);
        return NULL;
    }
    if ((size_t)st.st_size > KG_MAX_INPUT_SIZE) {
        kg_diag_add(d, KG_ERROR, "io.too_large", path, 0, NULL, "'%s' is larger than %zu bytes", path,
                    KG_MAX_INPUT_SIZE);
        return NULL;
    }
    FILE *f = fopen(path, "rb");
    if (!f) {
        kg_diag_add(d, KG_ERROR, "io.read", path, 0, NULL, "cannot open '%s': %s", path, strerror(errno));
        return NULL;
    }
    size_t cap = (size_t)st.st_size + 1, n = 0;
    char *buf = kg_xmalloc(cap);
    for (;;) {
        if (n + 1 >= cap) {
            if (cap > KG_MAX_INPUT_SIZE) {
                kg_diag_add(d, KG_ERROR, "io.too_large", path, 0, NULL, "'%s' is larger than %zu bytes",
                            path, KG_MAX_INPUT_SIZE);
                free(buf);
                fclose(f);
                return NULL;
            }
            cap *= 2;
            buf = kg_xrealloc(buf, cap);
        }
        size_t r = fread(buf + n, 1, cap - 1 - n, f);
        n += r;
        if (r == 0) break;
    }
    int err = ferror(f);
    fclose(f);
    if (err) {
        kg_diag_add(d, KG_ERROR, "io.read", path, 0, NULL, "error reading '%s'", path);
        free(buf);
        return NULL;
    }
    buf[n] = 0;
    if (len) *len = n;
    return buf;
}

int kg_out_open(kg_out *o, const char *path) {
    memset(o, 0, sizeof *o);
    size_t n = strlen(path) + 32;
    o->path = kg_xstrdup(path);
    o->tmp = kg_xmalloc(n);
    snprintf(o->tmp, n, "%s.tmp.%ld", path, (long)getpid());
    o->f = fopen(o->tmp, "wb");
    if (!o->f) {
        free(o->path);
        free(o->tmp);
        memset(o, 0, sizeof *o);
        return -1;
    }
    return 0;
}

int kg_out_commit(kg_out *o) {
    int rc = 0;
    if (fflush(o->f) != 0 || ferror(o->f)) rc = -1;
    if (fclose(o->f) != 0) rc = -1;
    if (rc == 0 && rename(o->tmp, o->path) != 0) rc = -1;
    if (rc != 0) remove(o->tmp);
    free(o->path);
    free(o->tmp);
    memset(o, 0, sizeof *o);
    return rc;
}

void kg_out_abort(kg_out *o) {
    if (!o->f) return;
    fclose(o->f);
    remove(o->tmp);
    free(o->path);
    free(o->tmp);
    memset(o, 0, sizeof *o);
}
