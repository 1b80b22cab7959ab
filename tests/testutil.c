#include "testutil.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "formats/load.h"

const char *kg_test_data_dir(void) {
    static char buf[4096];
    const char *env = getenv("KINEGRAPH_DATA");
    const char *dir = env && *env ? env : KG_SOURCE_DIR "/../shared/data";
    struct stat st;
    if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode)) return NULL;
    snprintf(buf, sizeof buf, "%s", dir);
    return buf;
}

kg_model *kg_test_load_string(const char *name, const char *text, kg_diags *d) {
    kg_load_options o = {0};
    o.resolver.ignore_env = 1;
    return kg_load_buffer(name, text, strlen(text), &o, d);
}

int kg_test_count(const kg_diags *d, const char *code) {
    int n = 0;
    for (size_t i = 0; i < d->count; i++)
        if (strcmp(d->items[i].code, code) == 0) n++;
    return n;
}

const kg_diag *kg_test_find(const kg_diags *d, const char *code) {
    for (size_t i = 0; i < d->count; i++)
        if (strcmp(d->items[i].code, code) == 0) return &d->items[i];
    return NULL;
}

void kg_test_print_diags(const kg_diags *d) {
    for (size_t i = 0; i < d->count; i++) {
        const kg_diag *g = &d->items[i];
        printf("  %s:%d: %s: %s [%s]\n", g->file ? g->file : "-", g->line, kg_severity_name(g->severity),
               g->message, g->code);
    }
}

int kg_test_reference_file(const char *file, const char *data, char *path, size_t size) {
    if (strncmp(file, "@source/", 8) == 0) snprintf(path, size, "%s/%s", KG_SOURCE_DIR, file + 8);
    else if (data) snprintf(path, size, "%s/%s", data, file);
    else return 0;
    return 1;
}
