// Reference poses of animated COLLADA node trees from assimp's COLLADA importer,
// recorded in tests/reference/collada/ and compared by tests/test_collada.c.
//
// assimp (Debian libassimp-dev) reads the file with COLLADA names as node names
// and no post-processing. Its root transform (where it puts <unit> and the
// up-axis rotation) is replaced by the unit scale alone, as kinegraph keeps the
// file's axes. At each requested time every node's local transform is its
// animation channel's keys there (linear position and scale, spherical
// rotation between keys) or its static transformation; world transforms
// compose from the root. Printed are each node's world position and the
// rotation part of its world transform (columns normalised), 10 significant
// digits (the comparison is to 1e-6).
//
// usage: kg_assimp_collada_reference FILE.dae LABEL > reference.json
//        (times: the first, middle and last key of the first channel)
#include <assimp/Importer.hpp>
#include <assimp/config.h>
#include <assimp/scene.h>
#include <assimp/version.h>

#include <cmath>
#include <cstdio>
#include <map>
#include <string>
#include <vector>

static std::map<std::string, const aiNodeAnim *> channels;
static double ticks = 1;

template <class K> static unsigned before(const K *keys, unsigned n, double t) {
    unsigned i = 0;
    while (i + 1 < n && keys[i + 1].mTime <= t) i++;
    return i;
}

static aiVector3D lerp(const aiVectorKey *k, unsigned n, double t, aiVector3D dflt) {
    if (!n) return dflt;
    unsigned i = before(k, n, t);
    if (i + 1 >= n || t <= k[i].mTime) return k[i].mValue;
    double u = (t - k[i].mTime) / (k[i + 1].mTime - k[i].mTime);
    return k[i].mValue + (k[i + 1].mValue - k[i].mValue) * (float)u;
}

static aiMatrix4x4 local(const aiNode *n, double t) {
    auto it = channels.find(n->mName.C_Str());
    if (it == channels.end()) return n->mTransformation;
    const aiNodeAnim *a = it->second;
    aiVector3D s0, p0;
    aiQuaternion q0;
    n->mTransformation.Decompose(s0, q0, p0);
    aiVector3D p = lerp(a->mPositionKeys, a->mNumPositionKeys, t, p0);
    aiVector3D s = lerp(a->mScalingKeys, a->mNumScalingKeys, t, s0);
    aiQuaternion q = q0;
    if (a->mNumRotationKeys) {
        unsigned i = before(a->mRotationKeys, a->mNumRotationKeys, t);
        q = a->mRotationKeys[i].mValue;
        if (i + 1 < a->mNumRotationKeys && t > a->mRotationKeys[i].mTime) {
            double u = (t - a->mRotationKeys[i].mTime) / (a->mRotationKeys[i + 1].mTime - a->mRotationKeys[i].mTime);
            aiQuaternion::Interpolate(q, a->mRotationKeys[i].mValue, a->mRotationKeys[i + 1].mValue, (float)u);
        }
    }
    return aiMatrix4x4(s, q, p);
}

static bool first;

static void walk(const aiNode *n, const aiMatrix4x4 &parent, double t, bool root) {
    aiMatrix4x4 w = root ? parent : parent * local(n, t);
    double r[3][3] = {{w.a1, w.a2, w.a3}, {w.b1, w.b2, w.b3}, {w.c1, w.c2, w.c3}};
    for (int c = 0; c < 3; c++) {
        double len = std::sqrt(r[0][c] * r[0][c] + r[1][c] * r[1][c] + r[2][c] * r[2][c]);
        for (int i = 0; i < 3 && len > 0; i++) r[i][c] /= len;
    }
    printf("%s\n     \"%s\": {\"position\": [%.10g, %.10g, %.10g], \"rotation\": [[%.10g, %.10g, %.10g], [%.10g, %.10g, "
           "%.10g], [%.10g, %.10g, %.10g]]}",
           first ? "" : ",", n->mName.C_Str(), w.a4, w.b4, w.c4, r[0][0], r[0][1], r[0][2], r[1][0], r[1][1], r[1][2],
           r[2][0], r[2][1], r[2][2]);
    first = false;
    for (unsigned i = 0; i < n->mNumChildren; i++) walk(n->mChildren[i], w, t, false);
}

int main(int argc, char **argv) {
    if (argc < 3) {
        fprintf(stderr, "usage: %s FILE.dae LABEL\n", argv[0]);
        return 2;
    }
    Assimp::Importer importer;
    importer.SetPropertyBool(AI_CONFIG_IMPORT_COLLADA_USE_COLLADA_NAMES, true);
    const aiScene *s = importer.ReadFile(argv[1], 0);
    if (!s || !s->mRootNode || s->mNumAnimations == 0) {
        fprintf(stderr, "assimp cannot read an animation in %s: %s\n", argv[1], importer.GetErrorString());
        return 1;
    }
    const aiAnimation *anim = s->mAnimations[0];
    ticks = anim->mTicksPerSecond > 0 ? anim->mTicksPerSecond : 1;
    for (unsigned i = 0; i < anim->mNumChannels; i++) channels[anim->mChannels[i]->mNodeName.C_Str()] = anim->mChannels[i];
    const aiMatrix4x4 &rt = s->mRootNode->mTransformation;
    double det = rt.a1 * (rt.b2 * rt.c3 - rt.b3 * rt.c2) - rt.a2 * (rt.b1 * rt.c3 - rt.b3 * rt.c1) +
                 rt.a3 * (rt.b1 * rt.c2 - rt.b2 * rt.c1);
    float unit = (float)std::cbrt(std::fabs(det));
    aiMatrix4x4 base;
    base.a1 = base.b2 = base.c3 = unit;
    const aiNodeAnim *c0 = anim->mChannels[0];
    std::vector<double> times;
    unsigned n = c0->mNumPositionKeys ? c0->mNumPositionKeys : c0->mNumRotationKeys;
    const aiVectorKey *pk = c0->mPositionKeys;
    const aiQuatKey *rk = c0->mRotationKeys;
    auto key = [&](unsigned i) { return c0->mNumPositionKeys ? pk[i].mTime : rk[i].mTime; };
    times.push_back(key(0));
    if (n > 2) times.push_back(key(n / 2));
    if (n > 1) times.push_back(key(n - 1));
    printf("{\n \"peer\": \"assimp %u.%u.%u (Debian libassimp-dev)\",\n \"file\": \"%s\",\n \"ticks_per_second\": %.10g,\n"
           " \"frames\": [",
           aiGetVersionMajor(), aiGetVersionMinor(), aiGetVersionPatch(), argv[2], ticks);
    for (size_t k = 0; k < times.size(); k++) {
        printf("%s\n  {\"time\": %.10g, \"nodes\": {", k ? "," : "", times[k] / ticks);
        first = true;
        walk(s->mRootNode, base, times[k], true);
        printf("}}");
    }
    printf("\n ]\n}\n");
    return 0;
}
