/* Text from files that do not say their encoding (BVH) made fit for the
 * formats kinegraph writes (XML and JSON need UTF-8 without control
 * characters). */
#ifndef KG_UTF8_H
#define KG_UTF8_H

#include <stddef.h>

/* 1 when s (n bytes) is well-formed UTF-8 (no overlong forms, no surrogates). */
int kg_utf8_valid(const char *s, size_t n);

/* A malloc'd, NUL-terminated copy of s (n bytes) that is valid UTF-8 without
 * control characters: when s is not UTF-8 it is read as Latin-1 (what older
 * motion-capture tools write) and transcoded; control characters and U+FFFE,
 * U+FFFF (not XML characters) become '_'.
 * *changed is set to 1 when the copy differs from s. NULL when memory is exhausted. */
char *kg_utf8_clean(const char *s, size_t n, int *changed);

#endif
