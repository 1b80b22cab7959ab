/* Out of memory while writing: the one error every exporter gives (the
 * library's policy, README "Out of memory"); io/save.c then removes the
 * temporary and every file written beside it. */
#include "exporters/exporters.h"

int kg_export_oom(const kg_export_options *o, kg_diags *d) {
    if (d && d->count && kg_diags_memory(d, d->count - 1)) return -1; /* said (a mesh that could not be read) */
    const char *path = o ? o->path : NULL;
    if (path) kg_diag_add(d, KG_ERROR, "io.memory", path, 0, NULL, "out of memory writing '%s'", path);
    else kg_diag_add(d, KG_ERROR, "io.memory", NULL, 0, NULL, "out of memory writing the output");
    return -1;
}
