#include "cli/ply.h"

#include <errno.h>
#include <stdint.h>
#include <string.h>

#include "formats/fileio.h"

static void put_float(FILE *f, float v) { /* little-endian whatever the host */
    uint32_t u;
    memcpy(&u, &v, 4);
    unsigned char b[4] = {(unsigned char)u, (unsigned char)(u >> 8), (unsigned char)(u >> 16), (unsigned char)(u >> 24)};
    fwrite(b, 1, 4, f);
}

int kg_ply_write(const char *path, long n, const float *xyz, int nprop, const char *const *names, const float *props,
                 const char *comment, kg_diags *d) {
    kg_out out;
    if (kg_out_open(&out, path) != 0) {
        kg_diag_add(d, KG_ERROR, "io.write", path, 0, NULL, "cannot write '%s': %s", path, strerror(errno));
        return -1;
    }
    fprintf(out.f, "ply\nformat binary_little_endian 1.0\n");
    if (comment) fprintf(out.f, "comment %s\n", comment);
    fprintf(out.f, "element vertex %ld\nproperty float x\nproperty float y\nproperty float z\n", n);
    for (int k = 0; k < nprop; k++) fprintf(out.f, "property float %s\n", names[k]);
    fprintf(out.f, "end_header\n");
    for (long i = 0; i < n; i++) {
        for (int a = 0; a < 3; a++) put_float(out.f, xyz[3 * i + a]);
        for (int k = 0; k < nprop; k++) put_float(out.f, props[i * nprop + k]);
    }
    if (ferror(out.f) || kg_out_commit(&out) != 0) {
        if (out.f) kg_out_abort(&out);
        kg_diag_add(d, KG_ERROR, "io.write", path, 0, NULL, "cannot write '%s': %s", path, strerror(errno));
        return -1;
    }
    return 0;
}
