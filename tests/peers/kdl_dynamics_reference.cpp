// Reference inverse dynamics and mass matrices from KDL, recorded in
// tests/reference/dynamics_kdl/ and compared by tests/test_dynamics.c.
//
// urdfdom parses the URDF, kdl_parser builds the KDL tree, Tree::getChain gives
// the chain from the root link to each tip asked for (fixed joints become
// segments without a joint, carrying their link's inertia; links off the chain
// are not in it). At random states (mt19937_64, fixed seed: q uniform within the
// limits, or in [-pi, pi] without them; qdot, qddot uniform in [-2, 2])
// ChainIdSolver_RNE gives the torques (no external wrenches) and
// ChainDynParam::JntToMass the joint-space mass matrix, gravity (0, 0, -9.81) in
// the chain base's axes (the root's, at the identity). ChainFdSolver_RNE gives
// the forward dynamics at (q, qdot) twice: under the RNEA torques of the state
// ("qddot_fd", which should give back qddot) and under random torques
// ("tau_rand", uniform in [-20, 20] N m from a second mt19937_64 seeded SEED + 1,
// so the states are those drawn before it was added; "qddot_fd_rand"). Chains
// with mimic joints are skipped: KDL gives a follower its own coordinate.
//
// usage: kg_kdl_dynamics_reference URDF LABEL SEED NSAMPLES TIP... > reference.json
//
// With --bench first, it times the three solvers instead (KDL has no tree mass
// matrix or forward dynamics, so chains only; bench/bench_dynamics.c is C and
// times whole models): per chain, 1 000 pre-drawn states (q within the limits,
// qdot, qddot and the torques uniform in [-1, 1]), 31 repetitions, min and median
// per call in µs, each solver from q (KDL does its own FK).
//
// Then TreeIdSolver_RNE on the whole tree ("tree": KDL's one tree solver).
//
// usage: kg_kdl_dynamics_reference --bench URDF TIP... > timings.json
#include <kdl/chain.hpp>
#include <kdl/chaindynparam.hpp>
#include <kdl/chainfdsolver_recursive_newton_euler.hpp>
#include <kdl/chainidsolver_recursive_newton_euler.hpp>
#include <kdl/jntspaceinertiamatrix.hpp>
#include <kdl/tree.hpp>
#include <kdl/treeidsolver_recursive_newton_euler.hpp>
#include <kdl_parser/kdl_parser.hpp>
#include <urdf_parser/urdf_parser.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#include "peer_versions.h"

static void vec(const char *key, const KDL::JntArray &x) {
    printf("\"%s\": [", key);
    for (unsigned i = 0; i < x.rows(); i++) printf("%s%.17g", i ? ", " : "", x(i));
    printf("]");
}

static bool random_q(const urdf::ModelInterfaceSharedPtr &model, const KDL::Chain &chain, std::mt19937_64 &rng,
                     KDL::JntArray &q);

// TreeIdSolver_RNE, KDL's one tree solver, on the whole tree (same protocol;
// q within each joint's limits, qdot and qddot uniform in [-1, 1]).
static void bench_tree(const urdf::ModelInterfaceSharedPtr &model, const KDL::Tree &tree, std::mt19937_64 &rng, int N,
                       int R) {
    std::uniform_real_distribution<double> unit(0.0, 1.0), sym(-1.0, 1.0);
    const unsigned n = tree.getNrOfJoints();
    std::vector<KDL::JntArray> q(N, KDL::JntArray(n)), qd(q), qdd(q);
    for (int s = 0; s < N; s++) {
        for (const auto &el : tree.getSegments()) {
            const KDL::Joint &j = el.second.segment.getJoint();
            if (j.getType() == KDL::Joint::None) continue;
            auto uj = model->getJoint(j.getName());
            double lo = -M_PI, hi = M_PI;
            if (uj && uj->type != urdf::Joint::CONTINUOUS && uj->limits && uj->limits->lower < uj->limits->upper)
                lo = uj->limits->lower, hi = uj->limits->upper;
            q[s](el.second.q_nr) = lo + (hi - lo) * unit(rng);
        }
        for (unsigned i = 0; i < n; i++) qd[s](i) = sym(rng), qdd[s](i) = sym(rng);
    }
    KDL::TreeIdSolver_RNE rne(tree, KDL::Vector(0, 0, -9.81));
    KDL::WrenchMap fext;
    KDL::JntArray out(n);
    std::vector<double> us(R);
    for (int r = 0; r < R; r++) {
        auto t0 = std::chrono::steady_clock::now();
        for (int s = 0; s < N; s++) rne.CartToJnt(q[s], qd[s], qdd[s], fext, out);
        us[r] = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() / N * 1e6;
    }
    std::sort(us.begin(), us.end());
    printf("{\"joints\": %u, \"segments\": %u, \"kdl_tree_rne\": [%.3f, %.3f]}", n, tree.getNrOfSegments(), us[0],
           us[R / 2]);
}

static int bench(int argc, char **argv) {
    urdf::ModelInterfaceSharedPtr model = urdf::parseURDFFile(argv[2]);
    KDL::Tree tree;
    if (!model || !kdl_parser::treeFromUrdfModel(*model, tree)) {
        fprintf(stderr, "cannot read %s\n", argv[2]);
        return 1;
    }
    const int N = 1000, R = 31;
    std::mt19937_64 rng(0x6b696e6567726170ull);
    std::uniform_real_distribution<double> sym(-1.0, 1.0);
    std::string root = model->getRoot()->name;
    const KDL::Vector gravity(0, 0, -9.81);
    printf("{\"peer\": \"%s\", \"file\": \"%s\", \"states\": %d, \"unit\": \"us\", \"chains\": [", KG_PEER_VERSIONS,
           argv[2], N);
    for (int t = 3; t < argc; t++) {
        KDL::Chain chain;
        if (!tree.getChain(root, argv[t], chain)) {
            fprintf(stderr, "no chain from %s to %s\n", root.c_str(), argv[t]);
            return 1;
        }
        unsigned n = chain.getNrOfJoints();
        std::vector<KDL::JntArray> q(N, KDL::JntArray(n)), qd(q), qdd(q), tau(q);
        for (int s = 0; s < N; s++) {
            random_q(model, chain, rng, q[s]);
            for (unsigned i = 0; i < n; i++) qd[s](i) = sym(rng), qdd[s](i) = sym(rng), tau[s](i) = sym(rng);
        }
        KDL::ChainIdSolver_RNE rne(chain, gravity);
        KDL::ChainDynParam dyn(chain, gravity);
        KDL::ChainFdSolver_RNE fd(chain, gravity);
        KDL::Wrenches fext(chain.getNrOfSegments(), KDL::Wrench::Zero());
        KDL::JntArray out(n);
        KDL::JntSpaceInertiaMatrix M(n);
        const char *names[3] = {"kdl_rne", "kdl_jnttomass", "kdl_fd_rne"};
        printf("%s\n {\"tip\": \"%s\", \"joints\": %u, \"segments\": %u", t > 3 ? "," : "", argv[t], n,
               chain.getNrOfSegments());
        for (int k = 0; k < 3; k++) {
            std::vector<double> us(R);
            for (int r = 0; r < R; r++) {
                auto t0 = std::chrono::steady_clock::now();
                for (int s = 0; s < N; s++) {
                    if (k == 0) rne.CartToJnt(q[s], qd[s], qdd[s], fext, out);
                    if (k == 1) dyn.JntToMass(q[s], M);
                    if (k == 2) fd.CartToJnt(q[s], qd[s], tau[s], fext, out);
                }
                us[r] = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() / N * 1e6;
            }
            std::sort(us.begin(), us.end());
            printf(", \"%s\": [%.3f, %.3f]", names[k], us[0], us[R / 2]);
        }
        printf("}");
    }
    printf("\n], \"tree\": ");
    bench_tree(model, tree, rng, N, R);
    printf("}\n");
    return 0;
}

static bool random_q(const urdf::ModelInterfaceSharedPtr &model, const KDL::Chain &chain, std::mt19937_64 &rng,
                     KDL::JntArray &q) {
    std::uniform_real_distribution<double> unit(0.0, 1.0);
    unsigned c = 0;
    for (unsigned s = 0; s < chain.getNrOfSegments(); s++) {
        const KDL::Joint &j = chain.getSegment(s).getJoint();
        if (j.getType() == KDL::Joint::None) continue;
        auto uj = model->getJoint(j.getName());
        double lo = -M_PI, hi = M_PI;
        if (uj && uj->type != urdf::Joint::CONTINUOUS && uj->limits && uj->limits->lower < uj->limits->upper) {
            lo = uj->limits->lower;
            hi = uj->limits->upper;
        }
        q(c++) = lo + (hi - lo) * unit(rng);
    }
    return true;
}

int main(int argc, char **argv) {
    if (argc >= 4 && std::string(argv[1]) == "--bench") return bench(argc, argv);
    if (argc < 6) {
        fprintf(stderr, "usage: %s URDF LABEL SEED NSAMPLES TIP...\n", argv[0]);
        return 2;
    }
    urdf::ModelInterfaceSharedPtr model = urdf::parseURDFFile(argv[1]);
    KDL::Tree tree;
    if (!model || !kdl_parser::treeFromUrdfModel(*model, tree)) {
        fprintf(stderr, "cannot read %s\n", argv[1]);
        return 1;
    }
    std::mt19937_64 rng(std::strtoull(argv[3], nullptr, 10));
    std::mt19937_64 rng_tau(std::strtoull(argv[3], nullptr, 10) + 1);
    std::uniform_real_distribution<double> unit(0.0, 1.0);
    int nsamples = std::atoi(argv[4]);
    std::string root = model->getRoot()->name;
    const KDL::Vector gravity(0, 0, -9.81);
    printf("{\n \"peer\": \"%s\",\n \"file\": \"%s\",\n \"seed\": %s,\n \"root\": \"%s\",\n \"gravity\": [0, 0, -9.81],\n"
           " \"chains\": [",
           KG_PEER_VERSIONS, argv[2], argv[3], root.c_str());
    bool first_chain = true;
    for (int t = 5; t < argc; t++) {
        KDL::Chain chain;
        if (!tree.getChain(root, argv[t], chain)) {
            fprintf(stderr, "no chain from %s to %s\n", root.c_str(), argv[t]);
            return 1;
        }
        bool mimic = false;
        for (unsigned s = 0; s < chain.getNrOfSegments(); s++) {
            auto uj = model->getJoint(chain.getSegment(s).getJoint().getName());
            if (uj && uj->mimic) mimic = true;
        }
        if (mimic) {
            fprintf(stderr, "skipped (mimic joints): %s\n", argv[t]);
            continue;
        }
        KDL::ChainIdSolver_RNE rne(chain, gravity);
        KDL::ChainDynParam dyn(chain, gravity);
        KDL::ChainFdSolver_RNE fd(chain, gravity);
        unsigned n = chain.getNrOfJoints();
        printf("%s\n  {\"tip\": \"%s\", \"joints\": [", first_chain ? "" : ",", argv[t]);
        first_chain = false;
        bool first = true;
        for (unsigned s = 0; s < chain.getNrOfSegments(); s++) {
            const KDL::Joint &j = chain.getSegment(s).getJoint();
            if (j.getType() == KDL::Joint::None) continue;
            printf("%s\"%s\"", first ? "" : ", ", j.getName().c_str());
            first = false;
        }
        printf("], \"samples\": [");
        for (int k = 0; k < nsamples; k++) {
            KDL::JntArray q(n), qd(n), qdd(n), tau(n);
            unsigned c = 0;
            for (unsigned s = 0; s < chain.getNrOfSegments(); s++) {
                const KDL::Joint &j = chain.getSegment(s).getJoint();
                if (j.getType() == KDL::Joint::None) continue;
                auto uj = model->getJoint(j.getName());
                double lo = -M_PI, hi = M_PI;
                if (uj && uj->type != urdf::Joint::CONTINUOUS && uj->limits && uj->limits->lower < uj->limits->upper) {
                    lo = uj->limits->lower;
                    hi = uj->limits->upper;
                }
                q(c++) = lo + (hi - lo) * unit(rng);
            }
            for (unsigned i = 0; i < n; i++) qd(i) = -2 + 4 * unit(rng);
            for (unsigned i = 0; i < n; i++) qdd(i) = -2 + 4 * unit(rng);
            KDL::Wrenches fext(chain.getNrOfSegments(), KDL::Wrench::Zero());
            KDL::JntSpaceInertiaMatrix M(n);
            KDL::JntArray tau_rand(n), qdd_fd(n), qdd_fd_rand(n);
            for (unsigned i = 0; i < n; i++) tau_rand(i) = -20 + 40 * unit(rng_tau);
            if (rne.CartToJnt(q, qd, qdd, fext, tau) < 0 || dyn.JntToMass(q, M) < 0 ||
                fd.CartToJnt(q, qd, tau, fext, qdd_fd) < 0 || fd.CartToJnt(q, qd, tau_rand, fext, qdd_fd_rand) < 0) {
                fprintf(stderr, "KDL failed on the chain to %s\n", argv[t]);
                return 1;
            }
            printf("%s\n   {", k ? "," : "");
            vec("q", q);
            printf(", ");
            vec("qdot", qd);
            printf(", ");
            vec("qddot", qdd);
            printf(", ");
            vec("tau", tau);
            printf(", ");
            vec("qddot_fd", qdd_fd);
            printf(", ");
            vec("tau_rand", tau_rand);
            printf(", ");
            vec("qddot_fd_rand", qdd_fd_rand);
            printf(", \"M\": [");
            for (unsigned r = 0; r < n; r++) {
                printf("%s[", r ? ", " : "");
                for (unsigned i = 0; i < n; i++) printf("%s%.17g", i ? ", " : "", M(r, i));
                printf("]");
            }
            printf("]}");
        }
        printf("]}");
    }
    printf("\n ]\n}\n");
    return 0;
}
