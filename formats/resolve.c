#define _XOPEN_SOURCE 700 /* realpath */
#include "formats/resolve.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static int is_file(const char *p) {
    struct stat st;
    return stat(p, &st) == 0 && S_ISREG(st.st_mode);
}

/* Out of memory, the functions below return NULL with *oom set: not a
 * reference that does not resolve. */

/* A copy of s[0..n). */
static char *copy(const char *s, size_t n, int *oom) {
    char *c = malloc(n + 1);
    if (!c) return *oom = 1, NULL;
    memcpy(c, s, n);
    c[n] = 0;
    return c;
}

static char *join(const char *a, size_t alen, const char *b, int *oom) {
    size_t blen = strlen(b);
    char *s = malloc(alen + blen + 2);
    if (!s) return *oom = 1, NULL;
    memcpy(s, a, alen);
    size_t n = alen;
    if (n && s[n - 1] != '/') s[n++] = '/';
    memcpy(s + n, b, blen + 1);
    return s;
}

/* Does the last component of dir[0..len) equal name? */
static int basename_is(const char *dir, size_t len, const char *name) {
    while (len > 1 && dir[len - 1] == '/') len--;
    size_t s = len;
    while (s > 0 && dir[s - 1] != '/') s--;
    size_t nl = strlen(name);
    return len - s == nl && memcmp(dir + s, name, nl) == 0;
}

/* DIR/NAME/rest, or DIR/rest when DIR is named NAME. */
static char *try_dir(const char *dir, size_t len, const char *name, const char *rest, int *oom) {
    if (len == 0) return NULL;
    char *pkg = join(dir, len, name, oom);
    char *p = pkg ? join(pkg, strlen(pkg), rest, oom) : NULL;
    free(pkg);
    if (!p) return NULL;
    if (is_file(p)) return p;
    free(p);
    if (basename_is(dir, len, name)) {
        if (!(p = join(dir, len, rest, oom))) return NULL;
        if (is_file(p)) return p;
        free(p);
    }
    return NULL;
}

static char *resolve_package(const kg_resolver *r, const char *model_file, const char *name,
                             const char *rest, int *oom) {
    char *p;
    for (int i = 0; r && i < r->npackage_paths && !*oom; i++)
        if ((p = try_dir(r->package_paths[i], strlen(r->package_paths[i]), name, rest, oom))) return p;
    const char *env = (r && r->ignore_env) ? NULL : getenv("ROS_PACKAGE_PATH");
    while (env && *env && !*oom) {
        const char *colon = strchr(env, ':');
        size_t len = colon ? (size_t)(colon - env) : strlen(env);
        if ((p = try_dir(env, len, name, rest, oom))) return p;
        env = colon ? colon + 1 : NULL;
    }
    /* the model's folder and its ancestors */
    const char *mf = model_file ? model_file : "";
    char *dir = *oom ? NULL : copy(mf, strlen(mf) + 1, oom); /* room for "." */
    if (!dir) return NULL;
    char *slash = strrchr(dir, '/');
    if (slash) *slash = 0;
    else strcpy(dir, ".");
    errno = 0;
    char *abs = realpath(dir, NULL);
    free(dir);
    if (!abs && errno == ENOMEM) *oom = 1;
    if (!abs) return NULL;
    size_t len = strlen(abs);
    for (;;) {
        if ((p = try_dir(abs, len ? len : 1, name, rest, oom)) || *oom) break;
        if (len <= 1) break;
        while (len > 1 && abs[len - 1] != '/') len--;
        if (len > 1) len--; /* drop the slash */
    }
    free(abs);
    return p;
}

char *kg_resolve_uri(const kg_resolver *r, const char *model_file, const char *uri, kg_diags *d,
                     int line, int *oom) {
    *oom = 0;
    if (!uri || !*uri) return NULL;
    if (strncmp(uri, "package://", 10) == 0) {
        const char *s = uri + 10;
        if (*s == '/') {
            kg_diag_add(d, KG_WARNING, "uri.empty_package", model_file, line, "mesh",
                        "'%s' has an empty package name; read as 'package://%s'", uri, s + 1);
            while (*s == '/') s++;
        }
        const char *slash = strchr(s, '/');
        if (!slash || slash == s || !slash[1]) return NULL;
        char *name = copy(s, (size_t)(slash - s), oom);
        char *p = name ? resolve_package(r, model_file, name, slash + 1, oom) : NULL;
        free(name);
        return p;
    }
    const char *path = uri;
    if (strncmp(uri, "file://", 7) == 0) path = uri + 7;
    else if (strstr(uri, "://")) return NULL; /* remote or unknown scheme: never fetched */
    char *p;
    if (path[0] == '/') {
        p = copy(path, strlen(path), oom);
    } else {
        const char *slash = model_file ? strrchr(model_file, '/') : NULL;
        p = slash ? join(model_file, (size_t)(slash - model_file), path, oom) : copy(path, strlen(path), oom);
    }
    if (!p) return NULL;
    if (is_file(p)) return p;
    free(p);
    return NULL;
}
