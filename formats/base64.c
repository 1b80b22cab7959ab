/* Base64 to a stream (see base64.h). */
#include "formats/base64.h"

static const char b64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

void kg_base64_write(FILE *f, const unsigned char *p, size_t n) {
    char buf[4096];
    size_t k = 0;
    for (size_t i = 0; i < n; i += 3) {
        unsigned v = (unsigned)p[i] << 16 | (i + 1 < n ? (unsigned)p[i + 1] << 8 : 0) | (i + 2 < n ? p[i + 2] : 0);
        buf[k++] = b64[v >> 18 & 63];
        buf[k++] = b64[v >> 12 & 63];
        buf[k++] = i + 1 < n ? b64[v >> 6 & 63] : '=';
        buf[k++] = i + 2 < n ? b64[v & 63] : '=';
        if (k + 4 > sizeof buf) {
            fwrite(buf, 1, k, f);
            k = 0;
        }
    }
    fwrite(buf, 1, k, f);
}
