#define _XOPEN_SOURCE 700 /* realpath */
#include "formats/resolve.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "core/arena.h"

static int is_file(const char *p) {
    struct stat st;
    return stat(p, &st) == 0 && S_ISREG(st.st_mode);
}

static char *join(const char *a, size_t alen, const char *b) {
    size_t blen = strlen(b);
    char *s = kg_xmalloc(alen + blen + 2);
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
static char *try_dir(const char *dir, size_t len, const char *name, const char *rest) {
    if (len == 0) return NULL;
    char *pkg = join(dir, len, name);
    char *p = join(pkg, strlen(pkg), rest);
    free(pkg);
    if (is_file(p)) return p;
    free(p);
    if (basename_is(dir, len, name)) {
        p = join(dir, len, rest);
        if (is_file(p)) return p;
        free(p);
    }
    return NULL;
}

static char *resolve_package(const kg_resolver *r, const char *model_file, const char *name,
                             const char *rest) {
    char *p;
    for (int i = 0; r && i < r->npackage_paths; i++)
        if ((p = try_dir(r->package_paths[i], strlen(r->package_paths[i]), name, rest))) return p;
    const char *env = (r && r->ignore_env) ? NULL : getenv("ROS_PACKAGE_PATH");
    while (env && *env) {
        const char *colon = strchr(env, ':');
        size_t len = colon ? (size_t)(colon - env) : strlen(env);
        if ((p = try_dir(env, len, name, rest))) return p;
        env = colon ? colon + 1 : NULL;
    }
    /* the model's folder and its ancestors */
    char *dir = kg_xstrdup(model_file ? model_file : "");
    char *slash = strrchr(dir, '/');
    if (slash) *slash = 0;
    else strcpy(dir, ".");
    char *abs = realpath(dir, NULL);
    free(dir);
    if (!abs) return NULL;
    size_t len = strlen(abs);
    for (;;) {
        if ((p = try_dir(abs, len ? len : 1, name, rest))) break;
        if (len <= 1) break;
        while (len > 1 && abs[len - 1] != '/') len--;
        if (len > 1) len--; /* drop the slash */
    }
    free(abs);
    return p;
}

char *kg_resolve_uri(const kg_resolver *r, const char *model_file, const char *uri, kg_diags *d,
                     int line) {
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
        char *name = kg_xmalloc((size_t)(slash - s) + 1);
        memcpy(name, s, (size_t)(slash - s));
        name[slash - s] = 0;
        char *p = resolve_package(r, model_file, name, slash + 1);
        free(name);
        return p;
    }
    const char *path = uri;
    if (strncmp(uri, "file://", 7) == 0) path = uri + 7;
    else if (strstr(uri, "://")) return NULL; /* remote or unknown scheme: never fetched */
    char *p;
    if (path[0] == '/') {
        p = kg_xstrdup(path);
    } else {
        const char *slash = model_file ? strrchr(model_file, '/') : NULL;
        p = slash ? join(model_file, (size_t)(slash - model_file), path) : kg_xstrdup(path);
    }
    if (is_file(p)) return p;
    free(p);
    return NULL;
}
