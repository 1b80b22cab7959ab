#define _POSIX_C_SOURCE 200809L /* fmemopen */
#include "io/load.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include "formats/fileio.h"
#include "formats/zae.h"
#include "importers/importers.h"

static int ends_with(const char *s, const char *suffix) {
    size_t n = strlen(s), k = strlen(suffix);
    return n >= k && strcasecmp(s + n - k, suffix) == 0;
}

/* Finds the first element name in an XML buffer (skipping the declaration,
 * comments, doctype and processing instructions). */
static int root_element_is(const char *buf, size_t len, const char *name) {
    size_t i = 0, nl = strlen(name);
    while (i < len) {
        const char *lt = memchr(buf + i, '<', len - i);
        if (!lt) return 0;
        i = (size_t)(lt - buf) + 1;
        if (i >= len) return 0;
        if (buf[i] == '?' || buf[i] == '!') {
            if (i + 2 < len && buf[i] == '!' && buf[i + 1] == '-' && buf[i + 2] == '-') {
                const char *end = NULL;
                for (size_t k = i + 3; k + 2 < len; k++)
                    if (buf[k] == '-' && buf[k + 1] == '-' && buf[k + 2] == '>') { end = buf + k; break; }
                if (!end) return 0;
                i = (size_t)(end - buf) + 3;
            }
            continue;
        }
        return len - i > nl && memcmp(buf + i, name, nl) == 0 &&
               (buf[i + nl] == '>' || buf[i + nl] == '/' || buf[i + nl] == ' ' || buf[i + nl] == '\t' ||
                buf[i + nl] == '\r' || buf[i + nl] == '\n');
    }
    return 0;
}

const char *kg_detect_format(const char *name, const char *buf, size_t len) {
    if (name) {
        if (ends_with(name, ".urdf") || ends_with(name, ".urdf.xml")) return "urdf";
        if (ends_with(name, ".dae") || ends_with(name, ".zae")) return "collada";
        if (ends_with(name, ".bvh")) return "bvh";
    }
    if (buf) {
        size_t n = len < 4096 ? len : 4096;
        if (root_element_is(buf, n, "robot")) return "urdf";
        if (root_element_is(buf, n, "COLLADA")) return "collada";
        size_t i = 0;
        if (n >= 3 && memcmp(buf, "\xEF\xBB\xBF", 3) == 0) i = 3;
        while (i < n && (buf[i] == ' ' || buf[i] == '\t' || buf[i] == '\r' || buf[i] == '\n')) i++;
        if (n - i >= 9 && memcmp(buf + i, "HIERARCHY", 9) == 0) return "bvh";
    }
    return NULL;
}

static const char *format_of(const char *name, const char *head, size_t n, const kg_load_options *o,
                             kg_diags *d) {
    const char *fmt = o && o->format ? o->format : kg_detect_format(name, head, n);
    if (!fmt)
        kg_diag_add(d, KG_ERROR, "format.unknown", name, 0, NULL,
                    "cannot tell the format of '%s' (expected .urdf, .dae, .zae or .bvh)", name);
    else if (strcmp(fmt, "urdf") != 0 && strcmp(fmt, "bvh") != 0 && strcmp(fmt, "collada") != 0) {
        kg_diag_add(d, KG_ERROR, "format.unsupported", name, 0, NULL, "reading %s files is not implemented yet", fmt);
        fmt = NULL;
    }
    return fmt;
}

kg_model *kg_load_clip_buffer(const char *name, const char *buf, size_t len, const kg_load_options *o,
                              kg_motion **motion, kg_diags *d) {
    if (motion) *motion = NULL;
    const char *fmt = format_of(name, buf, len, o, d);
    if (!fmt) return NULL;
    if (strcmp(fmt, "urdf") == 0) return kg_import_urdf(name, buf, len, o, d);
    if (strcmp(fmt, "collada") == 0) return kg_import_collada(name, buf, len, o, motion, d);
    /* BVH reads a stream: give it one over the bytes */
    FILE *f = len ? fmemopen((void *)buf, len, "r") : tmpfile();
    if (!f) {
        kg_diag_add(d, KG_ERROR, "io.read", name, 0, NULL, "cannot read the buffer");
        return NULL;
    }
    kg_model *m = kg_import_bvh(name, f, (long)len, o, motion, d);
    fclose(f);
    return m;
}

kg_model *kg_load_buffer(const char *name, const char *buf, size_t len, const kg_load_options *o,
                         kg_diags *d) {
    return kg_load_clip_buffer(name, buf, len, o, NULL, d);
}

/* "-": all of standard input, then as a buffer (a zip is a .zae). */
static kg_model *load_stdin(const kg_load_options *o, kg_motion **motion, kg_diags *d) {
    size_t len;
    char *buf = kg_read_stdin(&len, d);
    if (!buf) return NULL;
    kg_model *m = NULL;
    if (len >= 4 && memcmp(buf, "PK\3\4", 4) == 0) {
        size_t n;
        char *inner = NULL, *doc = kg_zae_read_buffer(KG_STDIN_NAME, buf, len, &n, &inner, d);
        if (doc) m = kg_import_collada(KG_STDIN_NAME, doc, n, o, motion, d);
        free(doc);
        free(inner);
    } else {
        m = kg_load_clip_buffer(KG_STDIN_NAME, buf, len, o, motion, d);
    }
    free(buf);
    return m;
}

kg_model *kg_load_clip(const char *path, const kg_load_options *o, kg_motion **motion, kg_diags *d) {
    if (motion) *motion = NULL;
    if (!strcmp(path, "-")) return load_stdin(o, motion, d);
    struct stat st;
    if (stat(path, &st) != 0 || !S_ISREG(st.st_mode)) {
        /* kg_read_file words the error */
        size_t n;
        free(kg_read_file(path, &n, d));
        return NULL;
    }
    FILE *f = fopen(path, "rb");
    if (!f) {
        kg_diag_add(d, KG_ERROR, "io.read", path, 0, NULL, "cannot open '%s'", path);
        return NULL;
    }
    char head[4096];
    size_t n = fread(head, 1, sizeof head, f);
    const char *fmt = format_of(path, head, n, o, d);
    kg_model *m = NULL;
    if (fmt && strcmp(fmt, "bvh") == 0) {
        rewind(f);
        m = kg_import_bvh(path, f, (long)st.st_size, o, motion, d); /* streamed, never held whole */
    } else if (fmt) {
        size_t len;
        char *inner = NULL;
        int zae = n >= 4 && memcmp(head, "PK\3\4", 4) == 0; /* a zip: .zae */
        char *buf = zae ? kg_zae_read(path, &len, &inner, d) : kg_read_file(path, &len, d);
        if (buf && strcmp(fmt, "collada") == 0) m = kg_import_collada(path, buf, len, o, motion, d);
        else if (buf) m = kg_import_urdf(path, buf, len, o, d);
        free(buf);
        free(inner);
    }
    fclose(f);
    return m;
}

kg_model *kg_load(const char *path, const kg_load_options *o, kg_diags *d) {
    return kg_load_clip(path, o, NULL, d);
}
