/* kinegraph mass MODEL: total mass, centre of mass, inertia, per-link masses. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/mass.h"
#include "cli/common.h"

int kg_cmd_mass(int argc, char **argv);

static const char help[] =
    "usage: kinegraph mass MODEL [--frame N] [--q JSON | --q-file FILE] [--base POSE] [options]\n"
    "\n"
    "Mass properties at the given joint values: total mass (kg), centre of mass (world,\n"
    "m), inertia about the centre of mass in world axes (kg m^2), and each link's mass\n"
    "and world centre of mass. Uses the declared inertials; virtual links are massless.\n"
    "JSON: {\"mass\", \"com\": [3], \"inertia\": [[3],[3],[3]], \"links\": [{\"name\", \"mass\", \"com\": [3]}]}\n"
    "(com is null when the total mass is zero)\n"
    "\n"
    "options:\n";

int kg_cmd_mass(int argc, char **argv) {
    kg_cli c = {.command = "mass"};
    int rc = kg_cli_parse_args(&c, argc, argv, help, 1);
    if (rc >= 0) return rc;
    kg_model *m;
    kg_data *d;
    rc = kg_cli_pose(&c, &m, &d);
    if (rc == 0) {
        kg_mass_props mp;
        double *lc = malloc((size_t)m->nlink * 3 * sizeof *lc);
        kg_mass_properties(m, d, &mp, lc);
        if (c.json) {
            json_t *o = json_object(), *links = json_array();
            json_object_set_new(o, "mass", json_real(mp.mass));
            json_object_set_new(o, "com", mp.mass > 0 ? kg_json_vec(mp.com, 3) : json_null());
            json_object_set_new(o, "inertia", kg_json_mat3(mp.inertia));
            for (int i = 0; i < m->nlink; i++) {
                if (m->link[i].real >= 0) continue;
                json_t *l = json_object();
                json_object_set_new(l, "name", kg_json_str(m->link[i].name));
                json_object_set_new(l, "mass", json_real(m->link[i].mass));
                json_object_set_new(l, "com", kg_json_vec(lc + 3 * i, 3));
                json_array_append_new(links, l);
            }
            json_object_set_new(o, "links", links);
            rc = kg_json_print(o);
        } else {
            printf("mass:    %.9g kg\n", mp.mass);
            if (mp.mass > 0) printf("com:     %.9f %.9f %.9f m\n", mp.com[0], mp.com[1], mp.com[2]);
            else printf("com:     undefined (zero mass)\n");
            printf("inertia about the com, world axes (kg m^2):\n");
            for (int r = 0; r < 3; r++)
                printf("  %14.9g %14.9g %14.9g\n", mp.inertia[3 * r], mp.inertia[3 * r + 1], mp.inertia[3 * r + 2]);
            printf("%-32s %12s %12s %12s %12s\n", "link", "mass [kg]", "com x", "com y", "com z");
            for (int i = 0; i < m->nlink; i++) {
                if (m->link[i].real >= 0) continue;
                printf("%-32s %12.6g %12.6f %12.6f %12.6f\n", m->link[i].name, m->link[i].mass, lc[3 * i],
                       lc[3 * i + 1], lc[3 * i + 2]);
            }
        }
        free(lc);
    }
    if (rc == 0) rc = kg_cli_status(&c);
    kg_data_free(d);
    kg_model_free(m);
    kg_cli_done(&c);
    return rc;
}
