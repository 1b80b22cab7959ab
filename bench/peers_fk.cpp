// Full-body forward kinematics with the peers, on the same URDF and the same kind
// of joint vectors as bench_fk (uniform within limits, 1000 pre-drawn configs):
//   kdl_solver   KDL TreeFkSolverPos_recursive::JntToCart once per link (how a KDL
//                user gets every link frame; each call walks from the root)
//   kdl_pass     one root-to-leaf pass composing KDL Segment::pose(q), i.e. KDL's
//                arithmetic without the solver's repeated walks (a lower bound for KDL)
//   mujoco       mj_kinematics (bodies, geoms and sites) on the URDF compiled by
//                MuJoCo with fusestatic="false" so every link stays a body
// With a TIP, also Jacobians ("benchmark": "jacobian"):
//   kdl_chain_jac  ChainJntToJacSolver::JntToJac for the chain from the root to TIP
//                  (it computes the chain's FK inside)
//   mujoco_jac     mj_kinematics + mj_comPos + mj_jacBody(TIP) (the Jacobian of one
//                  body after the FK passes it needs), and the same with mj_jacBody
//                  for every body
// usage: peers_fk URDF [CALLS_PER_REP] [TIP]   (prints one JSON line per tool)
#include <kdl/chainjnttojacsolver.hpp>
#include <kdl/frames.hpp>
#include <kdl/tree.hpp>
#include <kdl/treefksolverpos_recursive.hpp>
#include <kdl_parser/kdl_parser.hpp>
#include "../tests/peers/mujoco_urdf.h"
#include <urdf_parser/urdf_parser.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <unistd.h>
#include <vector>

extern "C" {
#include "bench_common.h"
}

static void report(const char *tool, const char *model, long calls, double *times, const char *note) {
    double median = kg_bench_median(times, KG_BENCH_REPS);
    printf("{\"benchmark\": \"fk\", \"tool\": \"%s\", \"model\": \"%s\", \"calls\": %ld, \"us_per_call_min\": %.4f, "
           "\"us_per_call_median\": %.4f, \"note\": \"%s\"}\n",
           tool, model, calls * KG_BENCH_REPS, times[0] * 1e6, median * 1e6, note);
    fflush(stdout);
}

int main(int argc, char **argv) {
    if (argc < 2) {
        fprintf(stderr, "usage: peers_fk URDF [CALLS_PER_REP]\n");
        return 2;
    }
    std::string path = argv[1];
    long calls = argc > 2 ? atol(argv[2]) : 20000;
    urdf::ModelInterfaceSharedPtr urdf_model = urdf::parseURDFFile(path);
    KDL::Tree tree;
    if (!urdf_model || !kdl_parser::treeFromUrdfModel(*urdf_model, tree)) {
        fprintf(stderr, "peers_fk: KDL cannot read %s\n", argv[1]);
        return 1;
    }
    std::string name = urdf_model->getName();

    // ---- KDL ----
    unsigned nj = tree.getNrOfJoints();
    std::vector<double> lo(nj, -M_PI), hi(nj, M_PI);
    for (auto &seg : tree.getSegments()) {
        const KDL::Joint &j = seg.second.segment.getJoint();
        if (j.getType() == KDL::Joint::None) continue;
        auto uj = urdf_model->getJoint(j.getName());
        if (uj && uj->limits && uj->type != urdf::Joint::CONTINUOUS && uj->limits->lower < uj->limits->upper) {
            lo[seg.second.q_nr] = uj->limits->lower;
            hi[seg.second.q_nr] = uj->limits->upper;
        }
    }
    uint64_t s = KG_BENCH_SEED;
    std::vector<KDL::JntArray> qs(KG_BENCH_CONFIGS, KDL::JntArray(nj));
    for (auto &q : qs)
        for (unsigned k = 0; k < nj; k++) q(k) = lo[k] + (hi[k] - lo[k]) * kg_bench_uniform(&s);
    std::vector<std::string> links;
    for (auto &seg : tree.getSegments())
        if (seg.first != tree.getRootSegment()->first) links.push_back(seg.first);
    KDL::TreeFkSolverPos_recursive solver(tree);
    double times[KG_BENCH_REPS], sink = 0;
    long kcalls = calls / 10 > 0 ? calls / 10 : 1; // the solver is slow; fewer calls per rep
    for (int rep = 0; rep < KG_BENCH_REPS; rep++) {
        double t0 = kg_now();
        for (long i = 0; i < kcalls; i++) {
            KDL::Frame f;
            for (auto &l : links) {
                solver.JntToCart(qs[i % KG_BENCH_CONFIGS], f, l);
                sink += f.p.z();
            }
        }
        times[rep] = (kg_now() - t0) / (double)kcalls;
    }
    report("kdl_solver", name.c_str(), kcalls, times, "TreeFkSolverPos_recursive once per link");

    // one pass in topological order (parents before children)
    std::vector<KDL::SegmentMap::const_iterator> order;
    std::vector<int> parent;
    order.push_back(tree.getRootSegment());
    parent.push_back(-1);
    for (size_t i = 0; i < order.size(); i++)
        for (auto c : order[i]->second.children) {
            order.push_back(c);
            parent.push_back((int)i);
        }
    std::vector<KDL::Frame> frames(order.size());
    for (int rep = 0; rep < KG_BENCH_REPS; rep++) {
        double t0 = kg_now();
        for (long i = 0; i < calls; i++) {
            const KDL::JntArray &q = qs[i % KG_BENCH_CONFIGS];
            frames[0] = KDL::Frame::Identity();
            for (size_t k = 1; k < order.size(); k++) {
                const KDL::TreeElement &e = order[k]->second;
                double v = e.segment.getJoint().getType() == KDL::Joint::None ? 0.0 : q(e.q_nr);
                frames[k] = frames[parent[k]] * e.segment.pose(v);
            }
            sink += frames.back().p.z();
        }
        times[rep] = (kg_now() - t0) / (double)calls;
    }
    report("kdl_pass", name.c_str(), calls, times, "one pass of Frame * Segment::pose(q)");
    const char *tip = argc > 3 ? argv[3] : nullptr;
    KDL::Chain chain;
    if (tip && tree.getChain(tree.getRootSegment()->first, tip, chain)) {
        KDL::ChainJntToJacSolver js(chain);
        unsigned n = chain.getNrOfJoints();
        std::vector<KDL::JntArray> cq(KG_BENCH_CONFIGS, KDL::JntArray(n));
        for (auto &q : cq)
            for (unsigned k = 0; k < n; k++) q(k) = -1 + 2 * kg_bench_uniform(&s);
        KDL::Jacobian jac(n);
        for (int rep = 0; rep < KG_BENCH_REPS; rep++) {
            double t0 = kg_now();
            for (long i = 0; i < calls; i++) {
                js.JntToJac(cq[i % KG_BENCH_CONFIGS], jac);
                sink += jac(0, n - 1);
            }
            times[rep] = (kg_now() - t0) / (double)calls;
        }
        char note[200];
        snprintf(note, sizeof note, "ChainJntToJacSolver, chain to %s, %u joints", tip, n);
        double median = kg_bench_median(times, KG_BENCH_REPS);
        printf("{\"benchmark\": \"jacobian\", \"tool\": \"kdl_chain_jac\", \"model\": \"%s\", \"us_per_call_min\": %.4f, "
               "\"us_per_call_median\": %.4f, \"note\": \"%s\"}\n", name.c_str(), times[0] * 1e6, median * 1e6, note);
    }

    // ---- MuJoCo ----
    char err[1000] = "";
    mjModel *m = kg_mj_load_urdf(path, "fusestatic=\"false\" discardvisual=\"true\" balanceinertia=\"true\"", err,
                                 sizeof err);
    if (!m) {
        printf("{\"benchmark\": \"fk\", \"tool\": \"mujoco\", \"error\": \"%s\"}\n", err);
        return 0;
    }
    mjData *d = mj_makeData(m);
    std::vector<double> mq((size_t)KG_BENCH_CONFIGS * m->nq);
    for (int c = 0; c < KG_BENCH_CONFIGS; c++)
        for (int j = 0; j < m->njnt; j++) {
            double l = -M_PI, h = M_PI;
            if (m->jnt_limited[j]) {
                l = m->jnt_range[2 * j];
                h = m->jnt_range[2 * j + 1];
            }
            mq[(size_t)c * m->nq + m->jnt_qposadr[j]] = l + (h - l) * kg_bench_uniform(&s);
        }
    for (int rep = 0; rep < KG_BENCH_REPS; rep++) {
        double t0 = kg_now();
        for (long i = 0; i < calls; i++) {
            mju_copy(d->qpos, mq.data() + (size_t)(i % KG_BENCH_CONFIGS) * m->nq, m->nq);
            mj_kinematics(m, d);
            sink += d->xpos[3 * (m->nbody - 1) + 2];
        }
        times[rep] = (kg_now() - t0) / (double)calls;
    }
    char note[200];
    snprintf(note, sizeof note, "mj_kinematics, MuJoCo %s, %d bodies, %d geoms", mj_versionString(), m->nbody, m->ngeom);
    report("mujoco", name.c_str(), calls, times, note);
    int body = tip ? mj_name2id(m, mjOBJ_BODY, tip) : -1;
    if (body >= 0) {
        std::vector<double> jp(3 * m->nv), jr(3 * m->nv);
        for (int all = 0; all < 2; all++) {
            for (int rep = 0; rep < KG_BENCH_REPS; rep++) {
                double t0 = kg_now();
                for (long i = 0; i < calls; i++) {
                    mju_copy(d->qpos, mq.data() + (size_t)(i % KG_BENCH_CONFIGS) * m->nq, m->nq);
                    mj_kinematics(m, d);
                    mj_comPos(m, d);
                    for (int bb = all ? 1 : body; bb < (all ? m->nbody : body + 1); bb++) {
                        mj_jacBody(m, d, jp.data(), jr.data(), bb);
                        sink += jp[0];
                    }
                }
                times[rep] = (kg_now() - t0) / (double)calls;
            }
            double median = kg_bench_median(times, KG_BENCH_REPS);
            printf("{\"benchmark\": \"jacobian\", \"tool\": \"%s\", \"model\": \"%s\", \"us_per_call_min\": %.4f, "
                   "\"us_per_call_median\": %.4f, \"note\": \"mj_kinematics + mj_comPos + mj_jacBody (%s), MuJoCo %s\"}\n",
                   all ? "mujoco_jac_all_bodies" : "mujoco_jac", name.c_str(), times[0] * 1e6, median * 1e6,
                   all ? "every body" : tip, mj_versionString());
        }
    }
    mj_deleteData(d);
    mj_deleteModel(m);
    fprintf(stderr, "checksum %g\n", sink);
    return 0;
}
