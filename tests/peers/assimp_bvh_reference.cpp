// Reference poses of BVH clips from assimp's BVH importer, recorded in
// tests/reference/bvh/ and compared by tests/test_bvh.c.
//
// assimp (Debian libassimp-dev) reads the file with no post-processing; for each
// requested frame every node's local transform is its animation channel's
// position and rotation keys at that frame (key f is frame f), or the node's
// static transformation when it has no channel; world transforms compose from
// the root. Printed with 10 significant digits (the comparison is to 1e-6).
//
// usage: kg_assimp_bvh_reference CLIP.bvh LABEL FRAME... > reference.json
//        (FRAME "auto": the first, middle and last frame)
#include <assimp/Importer.hpp>
#include <assimp/scene.h>
#include <assimp/version.h>

#include <algorithm>
#include <cstdio>
#include <vector>
#include <cstdlib>
#include <map>
#include <string>

static std::map<std::string, const aiNodeAnim *> channels;

static aiMatrix4x4 local(const aiNode *n, unsigned frame) {
    auto it = channels.find(n->mName.C_Str());
    if (it == channels.end()) return n->mTransformation;
    const aiNodeAnim *a = it->second;
    aiVector3D p = a->mNumPositionKeys ? a->mPositionKeys[frame < a->mNumPositionKeys ? frame : 0].mValue
                                       : aiVector3D(n->mTransformation.a4, n->mTransformation.b4, n->mTransformation.c4);
    aiQuaternion q = a->mNumRotationKeys ? a->mRotationKeys[frame < a->mNumRotationKeys ? frame : 0].mValue : aiQuaternion();
    aiMatrix4x4 m(q.GetMatrix());
    m.a4 = p.x;
    m.b4 = p.y;
    m.c4 = p.z;
    return m;
}

static bool first;

static void walk(const aiNode *n, const aiMatrix4x4 &parent, unsigned frame) {
    aiMatrix4x4 w = parent * local(n, frame);
    printf("%s\n     \"%s\": {\"position\": [%.10g, %.10g, %.10g], \"rotation\": [[%.10g, %.10g, %.10g], [%.10g, %.10g, "
           "%.10g], [%.10g, %.10g, %.10g]]}",
           first ? "" : ",", n->mName.C_Str(), w.a4, w.b4, w.c4, w.a1, w.a2, w.a3, w.b1, w.b2, w.b3, w.c1, w.c2, w.c3);
    first = false;
    for (unsigned i = 0; i < n->mNumChildren; i++) walk(n->mChildren[i], w, frame);
}

int main(int argc, char **argv) {
    if (argc < 4) {
        fprintf(stderr, "usage: %s CLIP.bvh LABEL FRAME...\n", argv[0]);
        return 2;
    }
    Assimp::Importer importer;
    const aiScene *s = importer.ReadFile(argv[1], 0);
    if (!s || !s->mRootNode || s->mNumAnimations == 0) {
        fprintf(stderr, "assimp cannot read %s: %s\n", argv[1], importer.GetErrorString());
        return 1;
    }
    const aiAnimation *anim = s->mAnimations[0];
    for (unsigned i = 0; i < anim->mNumChannels; i++) channels[anim->mChannels[i]->mNodeName.C_Str()] = anim->mChannels[i];
    printf("{\n \"peer\": \"assimp %u.%u.%u (Debian libassimp-dev)\",\n \"file\": \"%s\",\n \"frames\": [", aiGetVersionMajor(),
           aiGetVersionMinor(), aiGetVersionPatch(), argv[2]);
    unsigned nkeys = ~0u;
    for (auto &c : channels) nkeys = std::min(nkeys, std::max(c.second->mNumPositionKeys, c.second->mNumRotationKeys));
    std::vector<unsigned> frames;
    for (int k = 3; k < argc; k++) {
        if (std::string(argv[k]) == "auto") {
            frames.push_back(0);
            if (nkeys > 2) frames.push_back(nkeys / 2);
            if (nkeys > 1) frames.push_back(nkeys - 1);
        } else {
            frames.push_back((unsigned)atoi(argv[k]));
        }
    }
    for (size_t k = 0; k < frames.size(); k++) {
        printf("%s\n  {\"frame\": %u, \"nodes\": {", k ? "," : "", frames[k]);
        first = true;
        walk(s->mRootNode, aiMatrix4x4(), frames[k]);
        printf("}}");
    }
    printf("\n ]\n}\n");
    return 0;
}
