// Reference values from independent tools, recorded in tests/reference/ and
// compared by tests/test_corpus.c.
//
// urdfdom parses the URDF (its own parser, not ours), kdl_parser turns it into a
// KDL tree, KDL's TreeFkSolverPos_recursive gives every link's world frame, and
// KDL's RigidBodyInertia algebra adds up the inertials. Joint vectors are drawn
// here (mt19937_64, fixed seed) within the joint limits and written out with the
// results, so the test does not depend on how they were drawn. Mimic followers
// are set to multiplier * leader + offset (KDL itself ignores mimic).
//
// usage: kg_kdl_reference URDF LABEL SEED NSAMPLES > reference.json
#include <kdl/frames.hpp>
#include <kdl/rigidbodyinertia.hpp>
#include <kdl/rotationalinertia.hpp>
#include <kdl/tree.hpp>
#include <kdl/treefksolverpos_recursive.hpp>
#include <kdl_parser/kdl_parser.hpp>
#include <urdf_parser/urdf_parser.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "peer_versions.h" /* KG_PEER_VERSIONS, written by CMake from dpkg */

static void vec(const KDL::Vector &v) { printf("[%.17g, %.17g, %.17g]", v.x(), v.y(), v.z()); }

static void mat(const KDL::Rotation &r) {
    printf("[[%.17g, %.17g, %.17g], [%.17g, %.17g, %.17g], [%.17g, %.17g, %.17g]]", r(0, 0), r(0, 1), r(0, 2),
           r(1, 0), r(1, 1), r(1, 2), r(2, 0), r(2, 1), r(2, 2));
}

int main(int argc, char **argv) {
    if (argc != 5) {
        fprintf(stderr, "usage: %s URDF LABEL SEED NSAMPLES\n", argv[0]);
        return 2;
    }
    urdf::ModelInterfaceSharedPtr model = urdf::parseURDFFile(argv[1]);
    if (!model) {
        fprintf(stderr, "urdfdom cannot parse %s\n", argv[1]);
        return 1;
    }
    KDL::Tree tree;
    if (!kdl_parser::treeFromUrdfModel(*model, tree)) {
        fprintf(stderr, "kdl_parser cannot build a tree from %s\n", argv[1]);
        return 1;
    }
    KDL::TreeFkSolverPos_recursive fk(tree);
    std::mt19937_64 rng(std::strtoull(argv[3], nullptr, 10));
    std::uniform_real_distribution<double> unit(0.0, 1.0);
    int nsamples = std::atoi(argv[4]);

    // joints with a coordinate, in a fixed (name) order
    std::vector<urdf::JointSharedPtr> joints;
    for (auto &kv : model->joints_) {
        int t = kv.second->type;
        if (t == urdf::Joint::REVOLUTE || t == urdf::Joint::CONTINUOUS || t == urdf::Joint::PRISMATIC)
            joints.push_back(kv.second);
    }

    printf("{\n \"peer\": \"%s\",\n \"file\": \"%s\",\n \"seed\": %s,\n \"samples\": [\n", KG_PEER_VERSIONS,
           argv[2], argv[3]);
    for (int s = 0; s < nsamples; s++) {
        std::map<std::string, double> q;
        for (auto &j : joints) {
            double lo = -M_PI, hi = M_PI;
            if (j->type != urdf::Joint::CONTINUOUS && j->limits && j->limits->lower < j->limits->upper) {
                lo = j->limits->lower;
                hi = j->limits->upper;
            }
            q[j->name] = s == 0 ? 0.0 : lo + (hi - lo) * unit(rng); // sample 0: the zero pose
        }
        // mimic followers, resolved through chains (bounded: no cycles in the corpus)
        for (int pass = 0; pass < 8; pass++)
            for (auto &j : joints)
                if (j->mimic && q.count(j->mimic->joint_name))
                    q[j->name] = j->mimic->multiplier * q[j->mimic->joint_name] + j->mimic->offset;

        KDL::JntArray qa(tree.getNrOfJoints());
        for (auto &seg : tree.getSegments()) {
            const KDL::Joint &kj = seg.second.segment.getJoint();
            if (kj.getType() != KDL::Joint::None && q.count(kj.getName()))
                qa(seg.second.q_nr) = q[kj.getName()];
        }

        printf("  {\"q\": {");
        bool first = true;
        for (auto &j : joints) {
            printf("%s\"%s\": %.17g", first ? "" : ", ", j->name.c_str(), q[j->name]);
            first = false;
        }
        printf("},\n   \"links\": {");
        KDL::RigidBodyInertia total = KDL::RigidBodyInertia::Zero();
        first = true;
        for (auto &kv : model->links_) {
            KDL::Frame f = KDL::Frame::Identity();
            if (tree.getNrOfJoints() == 0) {
                // TreeFkSolverPos_recursive reads q(q_nr) even for fixed segments and
                // asserts on an empty array: compose the fixed segment poses directly
                for (auto it = tree.getSegment(kv.first); it != tree.getRootSegment(); it = it->second.parent)
                    f = it->second.segment.pose(0.0) * f;
            } else if (kv.first != tree.getRootSegment()->first && fk.JntToCart(qa, f, kv.first) < 0) {
                fprintf(stderr, "KDL FK failed for link %s\n", kv.first.c_str());
                return 1;
            }
            printf("%s\n    \"%s\": {\"position\": ", first ? "" : ",", kv.first.c_str());
            vec(f.p);
            printf(", \"rotation\": ");
            mat(f.M);
            printf("}");
            first = false;
            urdf::InertialSharedPtr in = kv.second->inertial;
            if (in) {
                double r, p, y;
                in->origin.rotation.getRPY(r, p, y);
                KDL::Frame fi(KDL::Rotation::RPY(r, p, y),
                              KDL::Vector(in->origin.position.x, in->origin.position.y, in->origin.position.z));
                KDL::RigidBodyInertia local(in->mass, KDL::Vector::Zero(),
                                            KDL::RotationalInertia(in->ixx, in->iyy, in->izz, in->ixy, in->ixz, in->iyz));
                total = total + f * (fi * local);
            }
        }
        KDL::Vector com = total.getCOG();
        KDL::RotationalInertia ic = total.RefPoint(com).getRotationalInertia();
        printf("},\n   \"mass\": %.17g, \"com\": ", total.getMass());
        vec(com);
        printf(", \"inertia\": [[%.17g, %.17g, %.17g], [%.17g, %.17g, %.17g], [%.17g, %.17g, %.17g]]}%s\n",
               ic.data[0], ic.data[1], ic.data[2], ic.data[3], ic.data[4], ic.data[5], ic.data[6], ic.data[7],
               ic.data[8], s + 1 < nsamples ? "," : "");
    }
    printf(" ]\n}\n");
    return 0;
}
