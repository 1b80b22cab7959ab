#include "io/save.h"

#include <errno.h>
#include <string.h>
#include <strings.h>

#include "exporters/exporters.h"
#include "formats/fileio.h"

static const struct {
    const char *name, *ext;
    int (*write)(const kg_model *, const kg_motion *, const kg_export_options *, FILE *, kg_ledger *, kg_diags *);
} writers[] = {
    {"urdf", ".urdf", kg_export_urdf},
    {"collada", ".dae", kg_export_collada},
    {"bvh", ".bvh", kg_export_bvh},
    {"csv", ".csv", kg_export_csv},
    {"json", ".json", kg_export_json},
    {"lafan1", ".lafan1.csv", kg_export_csv_lafan1}, /* by name only: .csv is the first's */
    {"mjcf", ".xml", kg_export_mjcf},
    {"gltf", ".gltf", kg_export_gltf}, /* the buffer beside it */
    {"glb", ".glb", kg_export_gltf},
    {"npz", ".npz", kg_export_npz},
};

const char *kg_output_format(const char *path) {
    size_t n = strlen(path);
    for (unsigned i = 0; i < sizeof writers / sizeof *writers; i++) {
        size_t k = strlen(writers[i].ext);
        if (n > k && strcasecmp(path + n - k, writers[i].ext) == 0) return writers[i].name;
    }
    return NULL;
}

int kg_save(const char *path, const char *format, const kg_model *m, const kg_motion *mo, kg_ledger *l,
            kg_diags *d) {
    return kg_save_with(path, format, m, mo, NULL, l, d);
}

/* An error with this code among the diagnostics from `first` on (io.write: a
 * companion file, a mesh beside a URDF, that could not be written). */
static int error_since(const kg_diags *d, size_t first, const char *code) {
    for (size_t k = first; k < d->count; k++)
        if (d->items[k].severity == KG_ERROR && !strcmp(d->items[k].code, code)) return 1;
    return 0;
}

static int write_with(int i, const char *path, const kg_model *m, const kg_motion *mo, const kg_export_options *o,
                      kg_ledger *l, kg_diags *d) {
    kg_out out;
    kg_files companions = {0};
    kg_export_options eo = {0};
    if (o) eo = *o;
    eo.path = strcmp(path, "-") ? path : NULL; /* nothing can go "beside" standard output */
    eo.companions = &companions;
    if (kg_out_open(&out, path) != 0) {
        if (errno == ENOMEM) kg_diag_add(d, KG_ERROR, "io.memory", path, 0, NULL, "out of memory writing '%s'", path);
        else kg_diag_add(d, KG_ERROR, "io.write", path, 0, NULL, "cannot write '%s': %s", path, strerror(errno));
        return -1;
    }
    size_t errors = kg_diags_count(d, KG_ERROR), first = d->count, lost = l ? l->lost : 0;
    errno = 0;
    int rc = writers[i].write(m, mo, &eo, out.f, l, d);
    /* a ledger entry or a companion that could not be recorded: the
     * conversion would not be what the ledger says, or leave a file behind */
    int oom = companions.failed || (l && l->lost > lost);
    if (rc != 0 || oom || error_since(d, first, "io.write")) {
        /* a writer that failed on its stream (disk full, file size limit)
         * says nothing itself: the caller still gets an error to show */
        int e = errno, failed = ferror(out.f);
        kg_out_abort(&out);
        if (oom || kg_diags_memory(d, first)) {
            /* one error: the writer's own io.memory, else this one */
            if (!kg_diags_memory(d, first))
                kg_diag_add(d, KG_ERROR, "io.memory", path, 0, NULL, "out of memory writing '%s'", path);
        } else if (kg_diags_count(d, KG_ERROR) == errors) {
            kg_diag_add(d, KG_ERROR, "io.write", path, 0, NULL, "cannot write '%s': %s", path,
                        failed && e ? strerror(e) : "write error");
        } else if (rc == 0) { /* the output is fine, a file beside it is not: neither is kept */
            kg_diag_add(d, KG_ERROR, "io.write", path, 0, NULL,
                        "'%s' not written: a file it refers to could not be written", path);
        }
        rc = -1;
    } else if (kg_out_commit(&out) != 0) {
        kg_diag_add(d, KG_ERROR, "io.write", path, 0, NULL, "cannot write '%s': %s", path, strerror(errno));
        rc = -1;
    }
    if (rc != 0) kg_files_remove(&companions);
    kg_files_clear(&companions);
    return rc;
}

int kg_save_with(const char *path, const char *format, const kg_model *m, const kg_motion *mo,
                 const kg_export_options *o, kg_ledger *l, kg_diags *d) {
    if (!format) format = kg_output_format(path);
    for (int i = 0; format && i < (int)(sizeof writers / sizeof *writers); i++)
        if (!strcmp(format, writers[i].name) || !strcmp(format, writers[i].ext + 1)) /* "dae" too */
            return write_with(i, path, m, mo, o, l, d);
    kg_diag_add(d, KG_ERROR, "format.unknown_output", path, 0, NULL,
                "cannot tell the output format of '%s' (.urdf, .dae, .bvh, .csv, .json, .xml, .gltf, .glb or .npz)", path);
    return -1;
}
