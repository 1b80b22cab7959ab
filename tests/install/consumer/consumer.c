/* A program that uses installed kinegraph as a library user would: the
 * umbrella header, the shared or the static library, nothing from the source
 * tree. It reads a model and prints its version, size and mass properties at
 * rest as JSON, for tests/install/run.sh to compare with the command's own
 * output. */
#include <stdio.h>
#include <string.h>

#include <kinegraph/kinegraph.h>

int main(int argc, char **argv) {
    if (argc != 2) {
        fprintf(stderr, "usage: %s MODEL\n", argv[0]);
        return 2;
    }
    if (strcmp(kg_version(), KG_VERSION_STRING) != 0) {
        fprintf(stderr, "headers %s, library %s\n", KG_VERSION_STRING, kg_version());
        return 1;
    }
    kg_diags diags;
    kg_diags_init(&diags);
    kg_load_options options = {0};
    kg_model *m = kg_load(argv[1], &options, &diags);
    for (size_t i = 0; i < diags.count; i++)
        fprintf(stderr, "%s:%d: %s: %s\n", diags.items[i].file ? diags.items[i].file : argv[1], diags.items[i].line,
                kg_severity_name(diags.items[i].severity), diags.items[i].message);
    if (!m || kg_diags_count(&diags, KG_ERROR)) return 1;
    kg_data *d = kg_data_new(m);
    kg_fk(m, d);
    kg_mass_props mp;
    kg_mass_properties(m, d, &mp, NULL);
    printf("{\"version\": \"%s\", \"links\": %d, \"joints\": %d, \"dof\": %d, \"mass\": %.17g, "
           "\"com\": [%.17g, %.17g, %.17g]}\n",
           kg_version(), m->nlink, m->njoint, m->dof, mp.mass, mp.com[0], mp.com[1], mp.com[2]);
    kg_data_free(d);
    kg_model_free(m);
    kg_diags_clear(&diags);
    return 0;
}
