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

static const int primes[KG_HALTON_DIMS] = {
    2,   3,   5,   7,   11,  13,  17,  19,  23,  29,  31,  37,  41,  43,  47,  53,  59,  61,  67,  71,  73,  79,
    83,  89,  97,  101, 103, 107, 109, 113, 127, 131, 137, 139, 149, 151, 157, 163, 167, 173, 179, 181, 191, 193,
    197, 199, 211, 223, 227, 229, 233, 239, 241, 251, 257, 263, 269, 271, 277, 281, 283, 293, 307, 311};

static inline double random_unit(uint64_t seed, long i, int k, int n) {
    return unit_of(splitmix64(seed * 0x2545f4914f6cdd1dull + (uint64_t)i * (uint64_t)n + (uint64_t)k));
}

static inline double halton_shift(uint64_t seed, int k) { return unit_of(splitmix64(seed + 7919 * (uint64_t)k)); }

/* The shifted radical inverse from its digits; the same operations, in the same
 * order, as kg_sample_unit's loop, so the same bits. */
static inline double halton_value(const uint16_t *digit, int ndigit, int base, double shift) {
    double inv = 1.0 / base, f = inv, r = 0;
    for (int t = 0; t < ndigit; t++) {
        r += (double)digit[t] * f;
        f *= inv;
    }
    r += shift;
    return r - floor(r);
}

double kg_sample_unit(int sequence, uint64_t seed, long i, int k, int n) {
    if (sequence != KG_SAMPLE_HALTON || k >= KG_HALTON_DIMS) return random_unit(seed, i, k, n);
    int base = primes[k];
    uint16_t digit[64];
    int nd = 0;
    for (uint64_t x = (uint64_t)i + 1; x; x /= (uint64_t)base) digit[nd++] = (uint16_t)(x % (uint64_t)base);
    return halton_value(digit, nd, base, halton_shift(seed, k));
}

void kg_sampler_start(kg_sampler *s, int sequence, uint64_t seed, int n, long i) {
    s->sequence = sequence;
    s->seed = seed;
    s->n = n;
    s->i = i;
    if (sequence != KG_SAMPLE_HALTON) return;
    for (int k = 0; k < n && k < KG_HALTON_DIMS; k++) {
        s->shift[k] = halton_shift(seed, k);
        s->ndigit[k] = 0;
        for (uint64_t x = (uint64_t)i + 1; x; x /= (uint64_t)primes[k]) s->digit[k][s->ndigit[k]++] = (uint16_t)(x % (uint64_t)primes[k]);
    }
}

/* Value k of sample s->i (Halton: then the digits of the next sample). */
static inline double next_value(kg_sampler *s, int k) {
    if (s->sequence != KG_SAMPLE_HALTON || k >= KG_HALTON_DIMS) return random_unit(s->seed, s->i, k, s->n);
    uint16_t *d = s->digit[k];
    double u = halton_value(d, s->ndigit[k], primes[k], s->shift[k]);
    int t = 0; /* i + 1 -> i + 2: add one with carries */
    while (t < s->ndigit[k] && d[t] == primes[k] - 1) d[t++] = 0;
    if (t == s->ndigit[k]) d[s->ndigit[k]++] = 0;
    d[t]++;
    return u;
}

void kg_sampler_draw(kg_sampler *s, const kg_sample_coord *c, double *q) {
    for (int k = 0; k < s->n; k++) q[c[k].q] = c[k].lo + (c[k].hi - c[k].lo) * next_value(s, k);
    s->i++;
}
