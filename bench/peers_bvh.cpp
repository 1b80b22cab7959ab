// The same measures as bench_bvh with assimp's BVH importer (Debian
// libassimp-dev): import time (aiProcess flags none), whole-clip "FK" as every
// node's world transform from the animation keys (what a user of assimp does to
// pose a skeleton), and the peak resident-set growth of one import.
// usage: peers_bvh WARMUP.bvh CLIP.bvh...
#include <assimp/Importer.hpp>
#include <assimp/scene.h>
#include <assimp/version.h>
#include <sys/resource.h>
#include <sys/stat.h>

#include <cstdio>
#include <map>
#include <string>
#include <vector>

extern "C" {
#include "bench_common.h"
}

static long peak_kb() {
    struct rusage u;
    getrusage(RUSAGE_SELF, &u);
    return u.ru_maxrss;
}

struct Pose {
    std::vector<const aiNode *> nodes;
    std::vector<int> parent;
    std::vector<const aiNodeAnim *> anim;
    std::vector<aiMatrix4x4> world;
};

static void collect(Pose &p, const aiNode *n, int parent, const std::map<std::string, const aiNodeAnim *> &ch) {
    p.nodes.push_back(n);
    p.parent.push_back(parent);
    auto it = ch.find(n->mName.C_Str());
    p.anim.push_back(it == ch.end() ? nullptr : it->second);
    int me = (int)p.nodes.size() - 1;
    for (unsigned i = 0; i < n->mNumChildren; i++) collect(p, n->mChildren[i], me, ch);
}

int main(int argc, char **argv) {
    if (argc < 2) return 2;
    {
        Assimp::Importer warm; /* touch the code before measuring memory */
        warm.ReadFile(argv[1], 0);
    }
    for (int k = 2; k < argc; k++) {
        struct stat st;
        if (stat(argv[k], &st) != 0) continue;
        long before = peak_kb();
        {
            Assimp::Importer imp;
            imp.ReadFile(argv[k], 0);
        }
        long grown = peak_kb() - before;
        int reps = 11;
        double parse[KG_BENCH_REPS];
        Assimp::Importer keep;
        const aiScene *s = nullptr;
        for (int r = 0; r < reps; r++) {
            Assimp::Importer *imp = r + 1 < reps ? new Assimp::Importer : &keep;
            double t0 = kg_now();
            s = imp->ReadFile(argv[k], 0);
            parse[r] = kg_now() - t0;
            if (imp != &keep) delete imp;
        }
        if (!s || !s->mNumAnimations) {
            fprintf(stderr, "peers_bvh: assimp cannot read %s\n", argv[k]);
            return 1;
        }
        kg_bench_median(parse, reps);
        std::map<std::string, const aiNodeAnim *> ch;
        const aiAnimation *a = s->mAnimations[0];
        for (unsigned i = 0; i < a->mNumChannels; i++) ch[a->mChannels[i]->mNodeName.C_Str()] = a->mChannels[i];
        Pose p;
        collect(p, s->mRootNode, -1, ch);
        p.world.resize(p.nodes.size());
        unsigned frames = a->mChannels[0]->mNumRotationKeys;
        double fk[KG_BENCH_REPS], sink = 0;
        for (int r = 0; r < reps; r++) {
            double t0 = kg_now();
            for (unsigned f = 0; f < frames; f++) {
                for (size_t i = 0; i < p.nodes.size(); i++) {
                    aiMatrix4x4 local = p.nodes[i]->mTransformation;
                    if (const aiNodeAnim *na = p.anim[i]) {
                        local = aiMatrix4x4(na->mRotationKeys[f < na->mNumRotationKeys ? f : 0].mValue.GetMatrix());
                        const aiVector3D &v = na->mPositionKeys[f < na->mNumPositionKeys ? f : 0].mValue;
                        local.a4 = v.x;
                        local.b4 = v.y;
                        local.c4 = v.z;
                    }
                    p.world[i] = p.parent[i] < 0 ? local : p.world[p.parent[i]] * local;
                }
                sink += p.world.back().b4;
            }
            fk[r] = (kg_now() - t0) / frames;
        }
        kg_bench_median(fk, reps);
        printf("{\"benchmark\": \"bvh\", \"tool\": \"assimp %u.%u.%u\", \"file\": \"%s\", \"bytes\": %ld, \"frames\": %u, "
               "\"parse_ms\": %.3f, \"parse_mb_per_s\": %.1f, \"fk_frames_per_s\": %.0f, \"peak_rss_growth_mb\": %.3f, "
               "\"checksum\": %.6g}\n",
               aiGetVersionMajor(), aiGetVersionMinor(), aiGetVersionPatch(), argv[k], (long)st.st_size, frames,
               parse[0] * 1e3, st.st_size / parse[0] / 1e6, 1 / fk[0], grown / 1024.0, sink);
        fflush(stdout);
    }
    return 0;
}
