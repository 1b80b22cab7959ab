#include "analysis/sampling.h"

#include <math.h>

#include "core/spatial.h"

int kg_sample_coords(const kg_model *m, const unsigned char *mask, kg_sample_coord *out) {
    int n = 0;
    for (int j = 0; j < m->njoint; j++) {
        const kg_joint *J = &m->joint[j];
        if (J->dofadr < 0 || (mask && !mask[J->dofadr])) continue;
        for (int k = 0; k < J->nq; k++) {
            int rot = J->type == KG_JOINT_REVOLUTE || J->type == KG_JOINT_CONTINUOUS ||
                      (J->type == KG_JOINT_COMPOUND && m->axis[J->axis_first + k].kind == KG_AXIS_ROTATION);
            double lo = -KG_PI, hi = KG_PI;
            if (J->type == KG_JOINT_COMPOUND) {
                const kg_axis *ax = NULL;
                for (int x = 0; x < J->naxis; x++)
                    if (m->axis[J->axis_first + x].coord == k) ax = &m->axis[J->axis_first + x];
                if (ax && ax->has_limit) lo = ax->lower, hi = ax->upper;
                else if (!rot) continue;
            } else if (kg_joint_is_limited(J) && isfinite(J->lower) && isfinite(J->upper)) {
                lo = J->lower, hi = J->upper;
            } else if (!rot) {
                continue; /* floating, planar, unlimited translation: left where it is */
            }
            out[n].q = J->qadr + k;
            out[n].lo = lo;
            out[n].hi = hi;
            n++;
        }
    }
    return n;
}

static inline uint64_t splitmix64(uint64_t x) {
    x += 0x9e3779b97f4a7c15ull;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

static inline double unit_of(uint64_t x) { return (double)(x >> 11) * (1.0 / 9007199254740992.0); }

static const int primes[32] = {2,  3,  5,  7,  11, 13, 17, 19, 23, 29, 31,  37,  41,  43,  47,  53,
                               59, 61, 67, 71, 73, 79, 83, 89, 97, 101, 103, 107, 109, 113, 127, 131};

double kg_sample_unit(int sequence, uint64_t seed, long i, int k, int n) {
    if (sequence != KG_SAMPLE_HALTON)
        return unit_of(splitmix64(seed * 0x2545f4914f6cdd1dull + (uint64_t)i * (uint64_t)n + (uint64_t)k));
    int base = primes[k % 32];
    double inv = 1.0 / base, f = inv, r = 0;
    for (uint64_t x = (uint64_t)i + 1; x; x /= (uint64_t)base) {
        r += (double)(x % (uint64_t)base) * f;
        f *= inv;
    }
    r += unit_of(splitmix64(seed + 7919 * (uint64_t)(k % 32))); /* Cranley-Patterson shift */
    return r - floor(r);
}
