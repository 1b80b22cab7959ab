#include "formats/zae.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <zip.h>

#include "formats/fileio.h"
#include "formats/limits.h"

/* The archive's word on an entry's size is checked before anything is
 * unpacked, and only that many bytes are ever read (libzip stops there and
 * checks the CRC): a zip bomb is refused up front, whatever its headers. */
static int entry_fits(const zip_stat_t *st, const char *path, kg_diags *d) {
    unsigned long long max = KG_LIMIT(KG_LIMIT_ZAE_SIZE), ratio = KG_LIMIT(KG_LIMIT_ZAE_RATIO);
    if (max > KG_MAX_INPUT_SIZE) max = KG_MAX_INPUT_SIZE;
    if (st->size > max) {
        kg_diag_add(d, KG_ERROR, "zae.too_large", path, 0, NULL,
                    "'%s' in the archive unpacks to %llu bytes, more than %llu (KG_LIMIT_ZAE_SIZE)", st->name,
                    (unsigned long long)st->size, max);
        return 0;
    }
    if ((st->valid & ZIP_STAT_COMP_SIZE) && st->size > (1u << 20) && st->size / ratio > st->comp_size) {
        kg_diag_add(d, KG_ERROR, "zae.ratio", path, 0, NULL,
                    "'%s' in the archive unpacks %llu bytes to %llu, more than %llu times (KG_LIMIT_ZAE_RATIO): "
                    "a zip bomb?", st->name, (unsigned long long)st->comp_size, (unsigned long long)st->size, ratio);
        return 0;
    }
    return 1;
}

/* The entry's bytes, NUL-terminated; NULL after an error diagnostic (*oom set
 * when it is io.memory). */
static char *read_entry(zip_t *z, zip_int64_t index, size_t *len, const char *path, kg_diags *d, int *oom) {
    zip_stat_t st;
    if (zip_stat_index(z, (zip_uint64_t)index, 0, &st) != 0 || !(st.valid & ZIP_STAT_SIZE)) {
        kg_diag_add(d, KG_ERROR, "zae.read", path, 0, NULL, "cannot read an entry of the archive");
        return NULL;
    }
    if (!entry_fits(&st, path, d)) return NULL;
    zip_file_t *f = zip_fopen_index(z, (zip_uint64_t)index, 0);
    if (!f) {
        kg_diag_add(d, KG_ERROR, "zae.read", path, 0, NULL, "cannot open '%s' in the archive: %s", st.name,
                    zip_strerror(z));
        return NULL;
    }
    char *buf = malloc((size_t)st.size + 1);
    if (!buf) {
        zip_fclose(f);
        *oom = 1;
        kg_diag_add(d, KG_ERROR, "io.memory", path, 0, NULL, "out of memory unpacking '%s' from the archive", st.name);
        return NULL;
    }
    zip_int64_t n = zip_fread(f, buf, st.size);
    zip_fclose(f);
    if (n < 0 || (zip_uint64_t)n != st.size) {
        kg_diag_add(d, KG_ERROR, "zae.read", path, 0, NULL, "'%s' in the archive is damaged", st.name);
        free(buf);
        return NULL;
    }
    buf[n] = 0;
    *len = (size_t)n;
    return buf;
}

/* A copy of s[0..n), NULL when memory is exhausted. */
static char *copy(const char *s, size_t n) {
    char *c = malloc(n + 1);
    if (!c) return NULL;
    memcpy(c, s, n);
    c[n] = 0;
    return c;
}

/* The text between <dae_root> and </dae_root>, trimmed, without a leading "./";
 * NULL without one, and with *oom set when memory is exhausted. */
static char *manifest_root(const char *text, int *oom) {
    const char *a = strstr(text, "<dae_root>"), *b = a ? strstr(a, "</dae_root>") : NULL;
    if (!a || !b) return NULL;
    a += 10;
    while (a < b && (*a == ' ' || *a == '\t' || *a == '\r' || *a == '\n')) a++;
    while (b > a && (b[-1] == ' ' || b[-1] == '\t' || b[-1] == '\r' || b[-1] == '\n')) b--;
    if (b - a >= 2 && a[0] == '.' && a[1] == '/') a += 2;
    char *s = copy(a, (size_t)(b - a));
    if (!s) *oom = 1;
    return s;
}

static char *read_root(zip_t *z, const char *path, size_t *len, char **inner, kg_diags *d);

char *kg_zae_read(const char *path, size_t *len, char **inner, kg_diags *d) {
    int err = 0;
    zip_t *z = zip_open(path, ZIP_RDONLY, &err);
    *inner = NULL;
    if (!z) {
        zip_error_t ze;
        zip_error_init_with_code(&ze, err);
        kg_diag_add(d, KG_ERROR, "zae.read", path, 0, NULL, "not a readable zip archive: %s", zip_error_strerror(&ze));
        zip_error_fini(&ze);
        return NULL;
    }
    return read_root(z, path, len, inner, d);
}

char *kg_zae_read_buffer(const char *name, const char *data, size_t size, size_t *len, char **inner, kg_diags *d) {
    zip_error_t ze;
    zip_error_init(&ze);
    *inner = NULL;
    zip_source_t *src = zip_source_buffer_create(data, size, 0, &ze);
    zip_t *z = src ? zip_open_from_source(src, ZIP_RDONLY, &ze) : NULL;
    if (!z) {
        kg_diag_add(d, KG_ERROR, "zae.read", name, 0, NULL, "not a readable zip archive: %s", zip_error_strerror(&ze));
        if (src) zip_source_free(src);
        zip_error_fini(&ze);
        return NULL;
    }
    zip_error_fini(&ze);
    return read_root(z, name, len, inner, d);
}

/* The root document (see zae.h); closes z. */
static char *read_root(zip_t *z, const char *path, size_t *len, char **inner, kg_diags *d) {
    zip_int64_t root = -1, n = zip_get_num_entries(z, 0), ndae = 0, dae = -1;
    zip_int64_t manifest = zip_name_locate(z, "manifest.xml", ZIP_FL_NOCASE);
    int oom = 0;
    if (manifest >= 0) {
        size_t ml;
        char *text = read_entry(z, manifest, &ml, path, d, &oom);
        char *name = text ? manifest_root(text, &oom) : NULL;
        if (text && oom) kg_diag_add(d, KG_ERROR, "io.memory", path, 0, NULL, "out of memory reading the archive");
        if (name) root = zip_name_locate(z, name, 0);
        if (name && root < 0)
            kg_diag_add(d, KG_WARNING, "zae.manifest", path, 0, NULL,
                        "manifest.xml names '%s', which is not in the archive", name);
        free(name);
        free(text);
    }
    if (oom) { /* which document is the root is unknown (said) */
        zip_close(z);
        return NULL;
    }
    for (zip_int64_t i = 0; root < 0 && i < n; i++) {
        const char *name = zip_get_name(z, (zip_uint64_t)i, 0);
        size_t k = name ? strlen(name) : 0;
        if (k > 4 && strcasecmp(name + k - 4, ".dae") == 0) {
            ndae++;
            dae = i;
        }
    }
    if (root < 0 && ndae == 1) root = dae;
    char *buf = NULL;
    if (root < 0) {
        kg_diag_add(d, KG_ERROR, "zae.no_root", path, 0, NULL,
                    ndae ? "the archive holds %lld .dae files and no manifest.xml says which is the root"
                         : "the archive holds no .dae file (%lld entries)",
                    (long long)(ndae ? ndae : n));
    } else {
        buf = read_entry(z, root, len, path, d, &oom);
        const char *name = buf ? zip_get_name(z, (zip_uint64_t)root, 0) : NULL;
        if (buf && !(*inner = copy(name ? name : "", name ? strlen(name) : 0))) {
            kg_diag_add(d, KG_ERROR, "io.memory", path, 0, NULL, "out of memory reading the archive");
            free(buf);
            buf = NULL;
        }
    }
    zip_close(z);
    return buf;
}
