#include "formats/number.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

const double kg_pow10_exact[23] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,  1e8,  1e9,  1e10, 1e11,
                                   1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};

/* Numbers with an exponent or many digits: the exact fast path when it still
 * applies (significand <= 2^53, |exponent| <= 22), else strtod. */
const char *kg_parse_number_slow(const char *s, double *out) {
    const char *p = s;
    int neg = 0;
    if (*p == '-' || *p == '+') neg = *p++ == '-';
    uint64_t mant = 0;
    int digits = 0, exp10 = 0, any = 0;
    while (*p >= '0' && *p <= '9') {
        any = 1;
        if (mant || *p != '0') {
            if (digits < 19) mant = mant * 10 + (uint64_t)(*p - '0');
            else exp10++;
            digits++;
        }
        p++;
    }
    if (*p == '.') {
        p++;
        while (*p >= '0' && *p <= '9') {
            any = 1;
            if (mant || *p != '0') {
                if (digits < 19) {
                    mant = mant * 10 + (uint64_t)(*p - '0');
                    exp10--;
                }
                digits++;
            } else {
                exp10--;
            }
            p++;
        }
    }
    if (!any) goto slow; /* inf, nan, or not a number */
    if (*p == 'e' || *p == 'E') {
        const char *q = p + 1;
        int eneg = 0, e = 0, edigits = 0;
        if (*q == '-' || *q == '+') eneg = *q++ == '-';
        while (*q >= '0' && *q <= '9') {
            if (e < 10000) e = e * 10 + (*q - '0');
            q++;
            edigits++;
        }
        if (!edigits) goto slow;
        exp10 += eneg ? -e : e;
        p = q;
    }
    if (digits <= 15 && exp10 >= -22 && exp10 <= 22) {
        double v = (double)mant; /* exact: mant < 10^15 < 2^53 */
        v = exp10 < 0 ? v / kg_pow10_exact[-exp10] : v * kg_pow10_exact[exp10];
        *out = neg ? -v : v;
        return p;
    }
slow:;
    char *end;
    double v = strtod(s, &end);
    if (end == s) return NULL;
    *out = v;
    return end;
}

char *kg_format_number(char *buf, double v) {
    if (!isfinite(v)) {
        snprintf(buf, 32, "%s", isnan(v) ? "nan" : v > 0 ? "inf" : "-inf");
        return buf;
    }
    if (v == 0) { /* keep the sign of zero */
        snprintf(buf, 32, "%s", signbit(v) ? "-0" : "0");
        return buf;
    }
    for (int prec = 15; prec <= 17; prec++) {
        snprintf(buf, 32, "%.*g", prec, v);
        double back;
        if (prec == 17 || (kg_parse_number(buf, &back) && back == v)) break;
    }
    return buf;
}
