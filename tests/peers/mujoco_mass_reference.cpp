// Reference mass properties from geometry, from MuJoCo, recorded in
// tests/reference/mass/ and compared by tests/test_mass.c.
//
// MuJoCo (Debian libmujoco-dev) compiles the URDF with every link kept as a body
// (fusestatic="false"), collision geometry only (discardvisual="true") and the
// inertials replaced by those of the geoms at MuJoCo's default density, 1000
// kg/m^3 (inertiafromgeom="true"). For every body with geometry: its mass, its
// COM in the link frame, and its principal moments (ascending).
//
// usage: kg_mujoco_mass_reference URDF LABEL > reference.json
#include "mujoco_urdf.h"

#include <algorithm>
#include <cstdio>

int main(int argc, char **argv) {
    if (argc != 3) {
        fprintf(stderr, "usage: %s URDF LABEL\n", argv[0]);
        return 2;
    }
    char err[1000] = "";
    mjModel *m = kg_mj_load_urdf(argv[1], "fusestatic=\"false\" discardvisual=\"true\" inertiafromgeom=\"true\" exactmeshinertia=\"true\" balanceinertia=\"true\" "
                                 "boundmass=\"1e-9\" boundinertia=\"1e-15\"", err, sizeof err);
    if (!m) {
        fprintf(stderr, "MuJoCo cannot load %s: %s\n", argv[1], err);
        return 1;
    }
    printf("{\n \"peer\": \"MuJoCo %s (Debian libmujoco-dev)\",\n \"file\": \"%s\",\n \"density\": 1000,\n \"links\": [",
           mj_versionString(), argv[2]);
    bool first = true;
    for (int b = 1; b < m->nbody; b++) {
        if (m->body_geomnum[b] == 0) continue;
        double in[3] = {m->body_inertia[3 * b], m->body_inertia[3 * b + 1], m->body_inertia[3 * b + 2]};
        std::sort(in, in + 3);
        const double *c = m->body_ipos + 3 * b;
        printf("%s\n  {\"name\": \"%s\", \"geoms\": %d, \"mass\": %.17g, \"com\": [%.17g, %.17g, %.17g], "
               "\"principal\": [%.17g, %.17g, %.17g]}",
               first ? "" : ",", mj_id2name(m, mjOBJ_BODY, b), m->body_geomnum[b], m->body_mass[b], c[0], c[1], c[2],
               in[0], in[1], in[2]);
        first = false;
    }
    printf("\n ]\n}\n");
    mj_deleteModel(m);
    return 0;
}
