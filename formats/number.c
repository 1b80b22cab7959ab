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

/* Shortest decimal that reads back as the same float: the smallest precision p
 * (1..9; it always exists, and if p works every larger one does, so a binary
 * search finds it) whose rounding n = round(v 10^k), k = p - 1 - e, converts
 * back to the float. e, the decimal exponent of the leading digit, is
 * estimated from the binary exponent; an estimate one off only changes the
 * number of digits of n, and the printed exponent is taken from n itself.
 * n 10^-k is exactly rounded (n < 2^53, |k| <= 22); values outside that range
 * take snprintf. The digits are written by hand: this is what makes large
 * meshes cheap to write. */
static int float_digits(double v, float a, int p, int e, uint64_t *n, int *k) {
    *k = p - 1 - e;
    if (*k > 22 || *k < -22) return -1;
    double s = *k >= 0 ? v * kg_pow10_exact[*k] : v / kg_pow10_exact[-*k];
    double r = nearbyint(s);
    double back = *k >= 0 ? r / kg_pow10_exact[*k] : r * kg_pow10_exact[-*k];
    *n = (uint64_t)r;
    return (float)back == a;
}

int kg_format_float(char *buf, float f) {
    if (!isfinite(f) || f == 0) {
        if (f == 0) return snprintf(buf, 32, "%s", signbit(f) ? "-0" : "0");
        return snprintf(buf, 32, "%s", isnan(f) ? "nan" : f > 0 ? "inf" : "-inf");
    }
    float a = fabsf(f);
    double v = a;
    int bexp;
    frexp(v, &bexp);
    int e = (int)floor((bexp - 1) * 0.30102999566398120); /* within one of floor(log10(v)) */
    uint64_t n = 0;
    int k = 0, lo = 1, hi = 9;
    /* beyond 1e-13 .. 1e22 some precisions fall out of the exact range: the slow way */
    if (e < -13 || e > 21 || float_digits(v, a, 9, e, &n, &k) != 1) {
        for (int prec = 1; prec <= 9; prec++) {
            int len = snprintf(buf, 32, "%.*g", prec, (double)f);
            if ((float)strtod(buf, NULL) == f || prec == 9) return len;
        }
    }
    uint64_t best_n = n;
    int best_k = k;
    while (lo < hi) { /* the smallest p in [lo, hi] that works; hi works */
        int mid = (lo + hi) / 2, mk;
        uint64_t mn;
        if (float_digits(v, a, mid, e, &mn, &mk) == 1) {
            hi = mid;
            best_n = mn;
            best_k = mk;
        } else {
            lo = mid + 1;
        }
    }
    n = best_n;
    k = best_k;
    char digits[24];
    int nd = 0;
    for (uint64_t t = n; t; t /= 10) digits[nd++] = (char)('0' + t % 10); /* reversed */
    e = nd - 1 - k;                                                     /* the leading digit's exponent */
    int lo_digit = 0;
    while (lo_digit < nd - 1 && digits[lo_digit] == '0') lo_digit++; /* trailing zeros */
    char *o = buf;
    if (f < 0) *o++ = '-';
    if (e >= -5 && e < 10) {
        if (e < 0) {
            *o++ = '0';
            *o++ = '.';
            for (int z = -1; z > e; z--) *o++ = '0';
            for (int i = nd - 1; i >= lo_digit; i--) *o++ = digits[i];
        } else {
            for (int i = nd - 1, pos = 0; i >= lo_digit || pos <= e; i--, pos++) {
                if (pos == e + 1) *o++ = '.';
                *o++ = i >= lo_digit ? digits[i] : '0';
            }
        }
    } else {
        *o++ = digits[nd - 1];
        if (nd - 2 >= lo_digit) {
            *o++ = '.';
            for (int i = nd - 2; i >= lo_digit; i--) *o++ = digits[i];
        }
        o += snprintf(o, 8, "e%d", e);
    }
    *o = 0;
    return (int)(o - buf);
}
