#include "formats/load.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "formats/fileio.h"
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
        while (i < n && (buf[i] == ' ' || buf[i] == '\t' || buf[i] == '\r' || buf[i] == '\n')) i++;
        if (n - i >= 9 && memcmp(buf + i, "HIERARCHY", 9) == 0) return "bvh";
    }
    return NULL;
}

kg_model *kg_load_buffer(const char *name, const char *buf, size_t len, const kg_load_options *o,
                         kg_diags *d) {
    const char *fmt = o && o->format ? o->format : kg_detect_format(name, buf, len);
    if (!fmt) {
        kg_diag_add(d, KG_ERROR, "format.unknown", name, 0, NULL,
                    "cannot tell the format of '%s' (expected .urdf, .dae, .zae or .bvh)", name);
        return NULL;
    }
    if (strcmp(fmt, "urdf") == 0) return kg_import_urdf(name, buf, len, o, d);
    kg_diag_add(d, KG_ERROR, "format.unsupported", name, 0, NULL,
                "reading %s files is not implemented yet", fmt);
    return NULL;
}

kg_model *kg_load(const char *path, const kg_load_options *o, kg_diags *d) {
    size_t len;
    char *buf = kg_read_file(path, &len, d);
    if (!buf) return NULL;
    kg_model *m = kg_load_buffer(path, buf, len, o, d);
    free(buf);
    return m;
}
