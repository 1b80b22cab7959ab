#include "formats/utf8.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* Length of the UTF-8 sequence at s (at most n bytes), 0 when malformed. */
static size_t sequence(const unsigned char *s, size_t n) {
    unsigned c = s[0];
    size_t len = c < 0x80 ? 1 : (c & 0xE0) == 0xC0 ? 2 : (c & 0xF0) == 0xE0 ? 3 : (c & 0xF8) == 0xF0 ? 4 : 0;
    if (!len || len > n) return 0;
    unsigned cp = len == 1 ? c : len == 2 ? c & 0x1F : len == 3 ? c & 0x0F : c & 0x07;
    for (size_t k = 1; k < len; k++) {
        if ((s[k] & 0xC0) != 0x80) return 0;
        cp = (cp << 6) | (s[k] & 0x3F);
    }
    static const unsigned min[5] = {0, 0, 0x80, 0x800, 0x10000};
    if (cp < min[len] || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return 0;
    return len;
}

int kg_utf8_valid(const char *s, size_t n) {
    const unsigned char *p = (const unsigned char *)s;
    for (size_t i = 0; i < n;) {
        size_t k = sequence(p + i, n - i);
        if (!k) return 0;
        i += k;
    }
    return 1;
}

char *kg_utf8_clean(const char *s, size_t n, int *changed) {
    const unsigned char *p = (const unsigned char *)s;
    int utf8 = kg_utf8_valid(s, n);
    char *out = n < SIZE_MAX / 2 ? malloc(2 * n + 1) : NULL, *o = out; /* Latin-1: two bytes a character at most */
    if (!out) return NULL;
    for (size_t i = 0; i < n;) {
        unsigned char c = p[i];
        if (c >= 0x80 && utf8) {
            size_t k = sequence(p + i, n - i);
            /* U+FFFE and U+FFFF are well-formed UTF-8 but no XML characters */
            if (k == 3 && c == 0xEF && p[i + 1] == 0xBF && p[i + 2] >= 0xBE) *o++ = '_';
            else memcpy(o, s + i, k), o += k;
            i += k;
            continue;
        }
        if (c < 0x20 || c == 0x7F) *o++ = '_';
        else if (c < 0x80) *o++ = (char)c;
        else if (c < 0xA0) *o++ = '_'; /* C1 controls: no character in XML either */
        else {
            *o++ = (char)(0xC0 | (c >> 6));
            *o++ = (char)(0x80 | (c & 0x3F));
        }
        i++;
    }
    *o = 0;
    *changed = (size_t)(o - out) != n || memcmp(out, s, n) != 0;
    return out;
}
