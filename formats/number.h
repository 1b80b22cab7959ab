/* Decimal number parsing, correctly rounded (the same double as strtod in the C
 * locale), fast for the numbers model and motion files are made of: when the
 * digits form an integer significand of at most 2^53 and the decimal exponent
 * is within +-22, one multiplication or division by an exact power of ten gives
 * the correctly rounded result (Clinger's fast path); everything else goes to
 * strtod. Inline: BVH motion data is millions of these. */
#ifndef KG_NUMBER_H
#define KG_NUMBER_H

#include <stdint.h>

/* The general case (strtod); kg_parse_number calls it when the fast path does not apply. */
const char *kg_parse_number_slow(const char *s, double *out);

extern const double kg_pow10_exact[23];

/* Parses a number at s (no leading space). Returns the character after it, or
 * NULL when there is no number at s. */
static inline const char *kg_parse_number(const char *s, double *out) {
    const char *p = s;
    int neg = *p == '-';
    p += neg || *p == '+';
    uint64_t mant = 0;
    int nd = 0, exp10 = 0;
    for (; (unsigned)(*p - '0') < 10; p++, nd++) mant = mant * 10 + (uint64_t)(*p - '0');
    if (*p == '.') {
        const char *f = ++p;
        for (; (unsigned)(*p - '0') < 10; p++) mant = mant * 10 + (uint64_t)(*p - '0');
        nd += (int)(p - f);
        exp10 = -(int)(p - f);
    }
    if (nd == 0 || nd > 19 || *p == 'e' || *p == 'E' || mant > ((uint64_t)1 << 53) || exp10 < -22)
        return kg_parse_number_slow(s, out); /* no digits, long, exponent, or large */
    double v = (double)mant / kg_pow10_exact[-exp10];
    *out = neg ? -v : v;
    return p;
}

/* Writes v in the shortest %g form that reads back as the same double (at most
 * 17 significant digits; "nan"/"inf" for non-finite values). buf needs 32 bytes.
 * Returns buf. */
char *kg_format_number(char *buf, double v);

/* Writes f in the shortest decimal form that reads back as the same float (mesh
 * vertices). buf needs 32 bytes. Returns the length. */
int kg_format_float(char *buf, float f);

#endif
