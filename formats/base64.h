/* Base64 (RFC 4648, with padding) written to a stream: the data: URLs of the
 * HTML kinegraph writes (the viewer's glTF and scripts, check --html's
 * pictures). */
#ifndef KG_BASE64_H
#define KG_BASE64_H

#include <stddef.h>
#include <stdio.h>

/* Writes n bytes of p to f as base64. */
void kg_base64_write(FILE *f, const unsigned char *p, size_t n);

#endif
