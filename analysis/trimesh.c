#include "analysis/trimesh.h"

#include <math.h>

#include "core/spatial.h"

static void sub(double o[3], const double *a, const double *b) {
    for (int k = 0; k < 3; k++) o[k] = a[k] - b[k];
}

/* Does segment p-q meet triangle t (normal n)? The segment's ends on the two
 * sides of the plane (or on it), then the crossing point inside the three edges. */
static int segment_meets(const double *p, const double *q, const double *t0, const double *t1, const double *t2,
                         const double n[3]) {
    double d[3];
    sub(d, p, t0);
    double sp = kg_vec3_dot(d, n);
    sub(d, q, t0);
    double sq = kg_vec3_dot(d, n);
    if ((sp > 0 && sq > 0) || (sp < 0 && sq < 0) || sp == sq) return 0;
    double s = sp / (sp - sq), x[3];
    for (int k = 0; k < 3; k++) x[k] = p[k] + s * (q[k] - p[k]);
    const double *v[3] = {t0, t1, t2};
    int pos = 0, neg = 0;
    for (int e = 0; e < 3; e++) {
        double ed[3], xd[3], c[3];
        sub(ed, v[(e + 1) % 3], v[e]);
        sub(xd, x, v[e]);
        kg_vec3_cross(c, ed, xd);
        double side = kg_vec3_dot(c, n);
        pos |= side > 0, neg |= side < 0;
    }
    return !(pos && neg);
}

/* Two triangles in general position meet exactly when an edge of one crosses
 * the other; first each one's plane is tried as a separating plane. */
int kg_triangles_meet(const double *a0, const double *a1, const double *a2, const double *b0, const double *b1,
                      const double *b2) {
    double e1[3], e2[3], na[3], nb[3], d[3];
    sub(e1, a1, a0), sub(e2, a2, a0), kg_vec3_cross(na, e1, e2);
    sub(e1, b1, b0), sub(e2, b2, b0), kg_vec3_cross(nb, e1, e2);
    if (kg_vec3_dot(na, na) == 0 || kg_vec3_dot(nb, nb) == 0) return 0;
    const double *A[3] = {a0, a1, a2}, *B[3] = {b0, b1, b2};
    int pos = 0, neg = 0; /* counts: all three strictly on one side separate */
    for (int k = 0; k < 3; k++) sub(d, B[k], a0), pos += kg_vec3_dot(d, na) > 0, neg += kg_vec3_dot(d, na) < 0;
    if (pos == 3 || neg == 3) return 0;
    pos = neg = 0;
    for (int k = 0; k < 3; k++) sub(d, A[k], b0), pos += kg_vec3_dot(d, nb) > 0, neg += kg_vec3_dot(d, nb) < 0;
    if (pos == 3 || neg == 3) return 0;
    for (int e = 0; e < 3; e++) {
        if (segment_meets(A[e], A[(e + 1) % 3], b0, b1, b2, nb)) return 1;
        if (segment_meets(B[e], B[(e + 1) % 3], a0, a1, a2, na)) return 1;
    }
    return 0;
}

double kg_winding_number(const double *vert, const int *tri, int ntri, const double p[3]) {
    double sum = 0;
    for (int t = 0; t < ntri; t++) {
        double a[3], b[3], c[3], bc[3];
        sub(a, vert + 3 * tri[3 * t], p);
        sub(b, vert + 3 * tri[3 * t + 1], p);
        sub(c, vert + 3 * tri[3 * t + 2], p);
        double la = kg_vec3_norm(a), lb = kg_vec3_norm(b), lc = kg_vec3_norm(c);
        kg_vec3_cross(bc, b, c);
        /* Van Oosterom and Strackee's solid angle of a triangle */
        sum += 2 * atan2(kg_vec3_dot(a, bc),
                         la * lb * lc + kg_vec3_dot(a, b) * lc + kg_vec3_dot(b, c) * la + kg_vec3_dot(c, a) * lb);
    }
    return sum / (4 * KG_PI);
}
