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

/* Shortest decimal that reads back as the same float: the first precision p
 * whose rounding n = round(v 10^k) (k = p - 1 - e, e the decimal exponent of the
 * leading digit) converts back to the float. n 10^-k is computed exactly
 * rounded (n < 2^53, |k| <= 22); values outside that range take snprintf. The
 * digits are then written by hand, which is what makes large meshes cheap. */
int kg_format_float(char *buf, float f) {
    if (!isfinite(f) || f == 0) {
        if (f == 0) return snprintf(buf, 32, "%s", signbit(f) ? "-0" : "0");
        return snprintf(buf, 32, "%s", isnan(f) ? "nan" : f > 0 ? "inf" : "-inf");
    }
    float a = fabsf(f);
    double v = a;
    int e = (int)floor(log10(v));
    if (v < kg_pow10_exact[0] * pow(10, e)) e--; /* log10 rounded up at a power of ten */
    uint64_t n = 0;
    int p = 1;
    for (;; p++) {
        int k = p - 1 - e;
        if (k > 22 || k < -22 || p > 9) {
            for (int prec = 6; prec <= 9; prec++) {
                int len = snprintf(buf, 32, "%.*g", prec, (double)f);
                if ((float)strtod(buf, NULL) == f || prec == 9) return len;
            }
        }
        double s = k >= 0 ? v * kg_pow10_exact[k] : v / kg_pow10_exact[-k];
        double r = nearbyint(s);
        double back = k >= 0 ? r / kg_pow10_exact[k] : r * kg_pow10_exact[-k];
        if ((float)back == a) {
            n = (uint64_t)r;
            break;
        }
    }
    char digits[24];
    int nd = 0;
    for (uint64_t t = n; t; t /= 10) digits[nd++] = (char)('0' + t % 10); /* reversed */
    if (nd > p) e++;                    /* rounding carried into a new digit (9.99 -> 10) */
    int lo = 0;
    while (lo < nd - 1 && digits[lo] == '0') lo++; /* trailing zeros */
    char *o = buf;
    if (f < 0) *o++ = '-';
    if (e >= -5 && e < 10) {
        if (e < 0) {
            *o++ = '0';
            *o++ = '.';
            for (int z = -1; z > e; z--) *o++ = '0';
            for (int i = nd - 1; i >= lo; i--) *o++ = digits[i];
        } else {
            for (int i = nd - 1, pos = 0; i >= lo || pos <= e; i--, pos++) {
                if (pos == e + 1) *o++ = '.';
                *o++ = i >= lo ? digits[i] : '0';
            }
        }
    } else {
        *o++ = digits[nd - 1];
        if (nd - 2 >= lo) {
            *o++ = '.';
            for (int i = nd - 2; i >= lo; i--) *o++ = digits[i];
        }
        o += snprintf(o, 8, "e%d", e);
    }
    *o = 0;
    return (int)(o - buf);
}
