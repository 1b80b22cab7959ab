// Reference Jacobians from KDL, recorded in tests/reference/jacobian/ and
// compared by tests/test_jacobian.c.
//
// urdfdom parses the URDF, kdl_parser builds the KDL tree, Tree::getChain gives
// the chain from the root link to each tip asked for, and
// ChainJntToJacSolver::JntToJac its Jacobian (reference point: the tip's origin;
// axes: the chain base's, which is the root here, at the identity). Joint values
// are drawn here (mt19937_64, fixed seed) uniformly within the limits and written
// out with the results. Chains with mimic joints are skipped: KDL gives a
// follower its own column.
//
// usage: kg_kdl_jacobian_reference URDF LABEL SEED NSAMPLES TIP... > reference.json
#include <kdl/chain.hpp>
#include <kdl/chainjnttojacsolver.hpp>
#include <kdl/jacobian.hpp>
#include <kdl/tree.hpp>
#include <kdl_parser/kdl_parser.hpp>
#include <urdf_parser/urdf_parser.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>

#include "peer_versions.h"

int main(int argc, char **argv) {
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
    std::uniform_real_distribution<double> unit(0.0, 1.0);
    int nsamples = std::atoi(argv[4]);
    std::string root = model->getRoot()->name;
    printf("{\n \"peer\": \"%s\",\n \"file\": \"%s\",\n \"seed\": %s,\n \"root\": \"%s\",\n \"chains\": [", KG_PEER_VERSIONS,
           argv[2], argv[3], root.c_str());
    bool first_chain = true;
    for (int t = 5; t < argc; t++) {
        KDL::Chain chain;
        if (!tree.getChain(root, argv[t], chain)) {
            fprintf(stderr, "no chain from %s to %s\n", root.c_str(), argv[t]);
            return 1;
        }
        bool mimic = false;
        for (unsigned s = 0; s < chain.getNrOfSegments(); s++) {
            const KDL::Joint &j = chain.getSegment(s).getJoint();
            auto uj = model->getJoint(j.getName());
            if (uj && uj->mimic) mimic = true;
        }
        if (mimic) {
            fprintf(stderr, "skipped (mimic joints): %s\n", argv[t]);
            continue;
        }
        KDL::ChainJntToJacSolver solver(chain);
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
            KDL::JntArray q(n);
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
            KDL::Jacobian jac(n);
            solver.JntToJac(q, jac);
            printf("%s\n   {\"q\": [", k ? "," : "");
            for (unsigned i = 0; i < n; i++) printf("%s%.17g", i ? ", " : "", q(i));
            printf("], \"J\": [");
            for (unsigned r = 0; r < 6; r++) {
                printf("%s[", r ? ", " : "");
                for (unsigned i = 0; i < n; i++) printf("%s%.17g", i ? ", " : "", jac(r, i));
                printf("]");
            }
            printf("]}");
        }
        printf("]}");
    }
    printf("\n ]\n}\n");
    return 0;
}
