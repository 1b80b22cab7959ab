// Inverse kinematics with KDL 1.5.1 (Debian liborocos-kdl-dev) by the same
// protocol as bench_ik, on the same targets: joint vectors drawn by the same
// counter-based generator (splitmix64, KG_BENCH_SEED) within the URDF limits,
// in chain order, their FK as targets, every solve seeded at mid-range, success
// when the reached pose is within 1e-5 m and 1e-5 rad (checked here with the same
// measure as ours, whatever KDL reports), a 5 ms budget:
//   kdl_nr_jl  ChainIkSolverPos_NR_JL (pseudo-inverse velocity solver, eps 1e-5,
//              100 iterations): one try
//   kdl_rr     the same with random restarts until the budget is spent (what
//              TRAC-IK calls KDL-RR)
// usage: peers_ik URDF BASE TIP [N] [BUDGET_MS]
#include <kdl/chainfksolverpos_recursive.hpp>
#include <kdl/chainiksolverpos_nr_jl.hpp>
#include <kdl/chainiksolvervel_pinv.hpp>
#include <kdl/tree.hpp>
#include <kdl_parser/kdl_parser.hpp>
#include <urdf_parser/urdf_parser.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

extern "C" {
#include "bench_common.h"
}

// kg_sample_unit(KG_SAMPLE_RANDOM, seed, i, k, n) of analysis/sampling.c
static double sample_unit(uint64_t seed, long i, int k, int n) {
    uint64_t x = seed * 0x2545f4914f6cdd1dull + (uint64_t)i * (uint64_t)n + (uint64_t)k;
    x += 0x9e3779b97f4a7c15ull;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    x ^= x >> 31;
    return (double)(x >> 11) * (1.0 / 9007199254740992.0);
}

static bool close_enough(const KDL::Frame &a, const KDL::Frame &b) {
    KDL::Vector dp = a.p - b.p;
    KDL::Rotation r = a.M.Inverse() * b.M;
    double angle = r.GetRotAngle(dp /* axis, unused */);
    dp = a.p - b.p;
    return dp.Norm() <= 1e-5 && std::fabs(angle) <= 1e-5;
}

int main(int argc, char **argv) {
    if (argc < 4) {
        fprintf(stderr, "usage: peers_ik URDF BASE TIP [N] [BUDGET_MS]\n");
        return 2;
    }
    int N = argc > 4 ? atoi(argv[4]) : 10000;
    double budget = (argc > 5 ? atof(argv[5]) : 5) * 1e-3;
    urdf::ModelInterfaceSharedPtr model = urdf::parseURDFFile(argv[1]);
    KDL::Tree tree;
    KDL::Chain chain;
    if (!model || !kdl_parser::treeFromUrdfModel(*model, tree) || !tree.getChain(argv[2], argv[3], chain)) {
        fprintf(stderr, "peers_ik: KDL cannot make the chain %s -> %s\n", argv[2], argv[3]);
        return 1;
    }
    unsigned n = chain.getNrOfJoints();
    KDL::JntArray lo(n), hi(n), mid(n), q(n), out(n), seed(n);
    unsigned k = 0;
    for (unsigned s = 0; s < chain.getNrOfSegments(); s++) {
        const KDL::Joint &j = chain.getSegment(s).getJoint();
        if (j.getType() == KDL::Joint::None) continue;
        urdf::JointConstSharedPtr uj = model->getJoint(j.getName());
        double l = -M_PI, h = M_PI;
        if (uj && uj->limits && uj->type != urdf::Joint::CONTINUOUS) l = uj->limits->lower, h = uj->limits->upper;
        lo(k) = l, hi(k) = h, mid(k) = 0.5 * (l + h);
        k++;
    }
    KDL::ChainFkSolverPos_recursive fk(chain);
    KDL::ChainIkSolverVel_pinv vel(chain);
    KDL::ChainIkSolverPos_NR_JL ik(chain, lo, hi, fk, vel, 100, 1e-5);
    uint64_t rs = 12345;
    for (int mode = 0; mode < 2; mode++) {
        int ok = 0;
        double total = 0;
        for (int i = 0; i < N; i++) {
            for (unsigned c = 0; c < n; c++) q(c) = lo(c) + (hi(c) - lo(c)) * sample_unit(KG_BENCH_SEED, i, (int)c, (int)n);
            KDL::Frame target, reached;
            fk.JntToCart(q, target);
            double t0 = kg_now();
            seed = mid;
            bool done = false;
            for (;;) {
                ik.CartToJnt(seed, target, out);
                fk.JntToCart(out, reached);
                if (close_enough(reached, target)) {
                    done = true;
                    break;
                }
                if (mode == 0 || kg_now() - t0 > budget) break;
                for (unsigned c = 0; c < n; c++) seed(c) = lo(c) + (hi(c) - lo(c)) * kg_bench_uniform(&rs);
            }
            total += kg_now() - t0;
            ok += done;
        }
        printf("{\"benchmark\": \"ik\", \"tool\": \"%s\", \"model\": \"%s\", \"base\": \"%s\", \"tip\": \"%s\", "
               "\"dof\": %u, \"solves\": %d, \"budget_ms\": %g, \"success_percent\": %.2f, \"mean_ms\": %.4f, "
               "\"note\": \"KDL 1.5.1 ChainIkSolverPos_NR_JL, pinv, eps 1e-5, 100 iterations%s\"}\n",
               mode ? "kdl_rr" : "kdl_nr_jl", model->getName().c_str(), argv[2], argv[3], n, N, budget * 1e3,
               100.0 * ok / N, 1e3 * total / N, mode ? ", random restarts within the budget" : ", one try");
        fflush(stdout);
    }
    return 0;
}
