// Reference self-collisions from MuJoCo, recorded in tests/reference/collision/
// and compared by tests/test_collision.c.
//
// MuJoCo (Debian libmujoco-dev) compiles the URDF with every link kept as a body
// (fusestatic="false"), collision geometry only (discardvisual="true"), meshes as
// their convex hulls (MuJoCo always collides meshes as hulls), and all contacts
// allowed: parent-child filtering off, zero margins. At each pose (joint values
// drawn here uniformly within limits, mt19937_64, fixed seed, written out),
// mj_kinematics + mj_collision; a pair of bodies collides when MuJoCo reports a
// contact between their geoms at distance <= 0.
//
// usage: kg_mujoco_collision_reference URDF LABEL SEED NPOSES > reference.json
#include "mujoco_urdf.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <random>
#include <set>
#include <sstream>
#include <string>
#include <unistd.h>
#include <utility>

int main(int argc, char **argv) {
    if (argc != 5) {
        fprintf(stderr, "usage: %s URDF LABEL SEED NPOSES\n", argv[0]);
        return 2;
    }
    char err[1000] = "";
    mjModel *m = kg_mj_load_urdf(argv[1], "fusestatic=\"false\" discardvisual=\"true\" balanceinertia=\"true\" "
                                 "boundmass=\"1e-6\" boundinertia=\"1e-9\"", err, sizeof err);
    if (!m) {
        fprintf(stderr, "MuJoCo cannot load %s: %s\n", argv[1], err);
        return 1;
    }
    m->opt.disableflags |= mjDSBL_FILTERPARENT;
    for (int g = 0; g < m->ngeom; g++) {
        m->geom_margin[g] = 0;
        m->geom_gap[g] = 0;
        m->geom_contype[g] = 1;
        m->geom_conaffinity[g] = 1;
    }
    mjData *d = mj_makeData(m);
    std::mt19937_64 rng(std::strtoull(argv[3], nullptr, 10));
    std::uniform_real_distribution<double> unit(0.0, 1.0);
    int nposes = std::atoi(argv[4]);
    printf("{\n \"peer\": \"MuJoCo %s (Debian libmujoco-dev)\",\n \"file\": \"%s\",\n \"seed\": %s,\n \"poses\": [",
           mj_versionString(), argv[2], argv[3]);
    for (int k = 0; k < nposes; k++) {
        printf("%s\n  {\"q\": {", k ? "," : "");
        bool first = true;
        for (int j = 0; j < m->njnt; j++) {
            if (m->jnt_type[j] != mjJNT_HINGE && m->jnt_type[j] != mjJNT_SLIDE) continue;
            double lo = -M_PI, hi = M_PI;
            if (m->jnt_limited[j]) lo = m->jnt_range[2 * j], hi = m->jnt_range[2 * j + 1];
            double v = lo + (hi - lo) * unit(rng);
            d->qpos[m->jnt_qposadr[j]] = v;
            printf("%s\"%s\": %.17g", first ? "" : ", ", mj_id2name(m, mjOBJ_JOINT, j), v);
            first = false;
        }
        mj_kinematics(m, d);
        mj_collision(m, d);
        std::set<std::pair<std::string, std::string>> pairs;
        for (int c = 0; c < d->ncon; c++) {
            if (d->contact[c].dist > 0) continue;
            std::string b1 = mj_id2name(m, mjOBJ_BODY, m->geom_bodyid[d->contact[c].geom1]);
            std::string b2 = mj_id2name(m, mjOBJ_BODY, m->geom_bodyid[d->contact[c].geom2]);
            if (b1 == b2) continue;
            if (b2 < b1) std::swap(b1, b2);
            pairs.insert({b1, b2});
        }
        printf("}, \"pairs\": [");
        first = true;
        for (auto &p : pairs) {
            printf("%s[\"%s\", \"%s\"]", first ? "" : ", ", p.first.c_str(), p.second.c_str());
            first = false;
        }
        printf("]}");
    }
    printf("\n ]\n}\n");
    mj_deleteData(d);
    mj_deleteModel(m);
    return 0;
}
