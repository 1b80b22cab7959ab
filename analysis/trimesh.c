#include "analysis/trimesh.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

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

/* ---- the tree -------------------------------------------------------------------------- */

/* The triangles are put in the order of their centres' Morton codes (the
 * bits of the three coordinates interleaved, on a cube around the mesh), and
 * each node's run is split where its codes' highest differing bit turns: an
 * octree's cuts, longest side first, found in one sort (Lauterbach et al.'s
 * linear BVH; Karras 2012). Against the median splits of the longest side
 * it had: G1's 393 000 triangles built in about 12 ms instead of 37, and 01_01
 * -> G1's 11 568 exact tests walked 2.18 M node pairs instead of 3.06 M. */

/* x's low 21 bits spread to every third bit. */
static uint64_t spread(uint64_t x) {
    x &= 0x1fffff;
    x = (x | x << 32) & 0x1f00000000ffffULL;
    x = (x | x << 16) & 0x1f0000ff0000ffULL;
    x = (x | x << 8) & 0x100f00f00f00f00fULL;
    x = (x | x << 4) & 0x10c30c30c30c30c3ULL;
    x = (x | x << 2) & 0x1249249249249249ULL;
    return x;
}

/* Sorts key[0 .. n-1] with idx alongside (least significant byte first;
 * bytes all keys share are skipped), passing between them and tkey, tidx
 * (n each). Returns the one holding the result: key (0) or tkey (1). */
static int radix_sort(uint64_t *key, int *idx, uint64_t *tkey, int *tidx, int n) {
    int in_t = 0;
    for (int shift = 0; shift < 64; shift += 8) {
        int count[257] = {0};
        for (int i = 0; i < n; i++) count[(key[i] >> shift & 0xff) + 1]++;
        if (count[(key[0] >> shift & 0xff) + 1] == n) continue;
        for (int b = 0; b < 256; b++) count[b + 1] += count[b];
        for (int i = 0; i < n; i++) {
            int at = count[key[i] >> shift & 0xff]++;
            tkey[at] = key[i], tidx[at] = idx[i];
        }
        uint64_t *k = key;
        int *x = idx;
        key = tkey, idx = tidx, tkey = k, tidx = x, in_t = !in_t;
    }
    return in_t;
}

/* Fills node n with the triangles first .. first+count-1 (in code order),
 * split until a leaf holds at most 4; a node's box is its children's. Runs
 * of equal codes are halved. */
static void build(kg_trimesh *m, const uint64_t *code, int n, int first, int count) {
    kg_trinode *nd = &m->node[n];
    for (int a = 0; a < 3; a++) nd->lo[a] = INFINITY, nd->hi[a] = -INFINITY;
    if (count <= 4) {
        for (int k = first; k < first + count; k++)
            for (int v = 0; v < 3; v++)
                for (int a = 0; a < 3; a++) {
                    double x = m->vert[3 * m->tri[3 * k + v] + a];
                    if (x < nd->lo[a]) nd->lo[a] = x;
                    if (x > nd->hi[a]) nd->hi[a] = x;
                }
        nd->first = first, nd->count = count;
        return;
    }
    uint64_t differ = code[first] ^ code[first + count - 1];
    int half = count / 2;
    if (differ) { /* the first whose highest differing bit is set */
        uint64_t bit = (uint64_t)1 << (63 - __builtin_clzll(differ));
        int lo = first + 1, hi = first + count - 1;
        while (lo < hi) {
            int mid = lo + (hi - lo) / 2;
            if (code[mid] & bit) hi = mid;
            else lo = mid + 1;
        }
        half = lo - first;
    }
    int child = m->nnode;
    m->nnode += 2;
    m->node[child].parent = m->node[child + 1].parent = n;
    build(m, code, child, first, half);
    build(m, code, child + 1, first + half, count - half);
    nd = &m->node[n];
    nd->first = child, nd->count = 0;
    const kg_trinode *u = &m->node[child], *v = &m->node[child + 1];
    for (int b = 0; b < 3; b++) {
        nd->lo[b] = u->lo[b] < v->lo[b] ? u->lo[b] : v->lo[b];
        nd->hi[b] = u->hi[b] > v->hi[b] ? u->hi[b] : v->hi[b];
    }
}

void kg_trimesh_free(kg_trimesh *m) {
    free(m->vert), free(m->tri), free(m->node);
    m->vert = NULL, m->tri = NULL, m->node = NULL, m->nvert = m->ntri = m->nnode = 0;
}

int kg_trimesh_index(kg_trimesh *m) {
    free(m->node);
    m->node = NULL, m->nnode = 0;
    if (m->ntri <= 0) return 0;
    size_t n = (size_t)m->ntri;
    uint64_t *code = malloc(2 * n * sizeof *code);
    int *idx = malloc(2 * n * sizeof *idx), *tri = malloc(n * 3 * sizeof *tri);
    m->node = malloc(n * 2 * sizeof *m->node); /* a binary tree of ntri leaves at most */
    if (!code || !idx || !tri || !m->node) {
        free(code), free(idx), free(tri), free(m->node);
        m->node = NULL;
        return -1;
    }
    double lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY}, side = 0;
    for (int v = 0; v < m->nvert; v++)
        for (int a = 0; a < 3; a++) {
            double x = m->vert[3 * v + a];
            lo[a] = x < lo[a] ? x : lo[a], hi[a] = x > hi[a] ? x : hi[a];
        }
    for (int a = 0; a < 3; a++) side = hi[a] - lo[a] > side ? hi[a] - lo[a] : side;
    double scale = side > 0 && side < INFINITY ? 2097151 / side : 0; /* 21 bits a coordinate */
    for (int t = 0; t < m->ntri; t++) {
        const int *v = m->tri + 3 * t;
        idx[t] = t, code[t] = 0;
        for (int a = 0; a < 3; a++) {
            double q = ((m->vert[3 * v[0] + a] + m->vert[3 * v[1] + a] + m->vert[3 * v[2] + a]) / 3 - lo[a]) * scale;
            code[t] |= spread(q > 0 ? (uint64_t)(q < 2097151 ? q : 2097151) : 0) << (2 - a); /* NaN: 0 */
        }
    }
    int moved = radix_sort(code, idx, code + n, idx + n, m->ntri);
    const uint64_t *sorted = code + (moved ? n : 0);
    const int *order = idx + (moved ? n : 0);
    for (int t = 0; t < m->ntri; t++)
        for (int v = 0; v < 3; v++) tri[3 * t + v] = m->tri[3 * order[t] + v];
    free(m->tri);
    m->tri = tri;
    m->nnode = 1;
    m->node[0].parent = -1;
    build(m, sorted, 0, 0, m->ntri);
    free(code), free(idx);
    return 0;
}

/* Are node x's box and the box of centre c, half sides h along the columns of
 * R (A = |R|), apart? The six face axes of the two boxes as separating axes. */
static int apart(const kg_trinode *x, const double c[3], const double R[9], const double A[9], const double h[3]) {
    double t[3], hx[3];
    for (int k = 0; k < 3; k++) t[k] = c[k] - (x->lo[k] + x->hi[k]) / 2, hx[k] = (x->hi[k] - x->lo[k]) / 2;
    for (int i = 0; i < 3; i++)
        if (fabs(t[i]) > hx[i] + A[3 * i] * h[0] + A[3 * i + 1] * h[1] + A[3 * i + 2] * h[2]) return 1;
    for (int j = 0; j < 3; j++)
        if (fabs(t[0] * R[j] + t[1] * R[3 + j] + t[2] * R[6 + j]) > h[j] + hx[0] * A[j] + hx[1] * A[3 + j] + hx[2] * A[6 + j])
            return 1;
    return 0;
}

/* A tree is at most 63 bit splits and 31 halvings deep, so a walk's stack
 * (a pair per level of either) holds at most 2 x 94 + 1 pairs. */
enum { STACK = 192 };

static int box_meets(const double alo[3], const double ahi[3], const double blo[3], const double bhi[3]) {
    for (int k = 0; k < 3; k++)
        if (ahi[k] < blo[k] || bhi[k] < alo[k]) return 0;
    return 1;
}

/* Is the second of two sibling nodes (u[0], u[1]) nearer point c than the
 * first, centre to c? */
static int second_nearer(const kg_trinode *u, const double c[3]) {
    double d0 = 0, d1 = 0;
    for (int k = 0; k < 3; k++) {
        double e0 = (u[0].lo[k] + u[0].hi[k]) / 2 - c[k], e1 = (u[1].lo[k] + u[1].hi[k]) / 2 - c[k];
        d0 += e0 * e0, d1 += e1 * e1;
    }
    return d1 < d0;
}

/* The walk of kg_trimeshes_meet from nodes ia of a and ib of b down. */
static int walk(const kg_trimesh *a, const kg_trimesh *b, const double R[9], const double A[9], const double p[3],
                int ia, int ib, int hint[2]) {
    int stack[2 * STACK], top = 0;
    stack[top++] = ia, stack[top++] = ib;
    while (top) {
        ib = stack[--top], ia = stack[--top];
        const kg_trinode *x = &a->node[ia], *y = &b->node[ib];
        double cy[3], c[3], h[3];
        for (int k = 0; k < 3; k++) cy[k] = (y->lo[k] + y->hi[k]) / 2, h[k] = (y->hi[k] - y->lo[k]) / 2;
        kg_mat3_vec(c, R, cy);
        for (int k = 0; k < 3; k++) c[k] += p[k];
        if (apart(x, c, R, A, h)) continue;
        if (x->count && y->count) { /* two leaves: their triangles, b's in a's frame */
            for (int j = y->first; j < y->first + y->count; j++) {
                double v[9], lo[3], hi[3];
                for (int k = 0; k < 3; k++) {
                    kg_mat3_vec(v + 3 * k, R, b->vert + 3 * b->tri[3 * j + k]);
                    for (int e = 0; e < 3; e++) v[3 * k + e] += p[e];
                }
                for (int e = 0; e < 3; e++) {
                    lo[e] = v[e] < v[3 + e] ? v[e] : v[3 + e], hi[e] = v[e] < v[3 + e] ? v[3 + e] : v[e];
                    if (v[6 + e] < lo[e]) lo[e] = v[6 + e];
                    if (v[6 + e] > hi[e]) hi[e] = v[6 + e];
                }
                if (!box_meets(x->lo, x->hi, lo, hi)) continue;
                for (int i = x->first; i < x->first + x->count; i++) {
                    const int *t = a->tri + 3 * i;
                    const double *u0 = a->vert + 3 * t[0], *u1 = a->vert + 3 * t[1], *u2 = a->vert + 3 * t[2];
                    int out = 0; /* a's triangle wholly on one side of b's box */
                    for (int e = 0; e < 3 && !out; e++)
                        out = (u0[e] < lo[e] && u1[e] < lo[e] && u2[e] < lo[e]) ||
                              (u0[e] > hi[e] && u1[e] > hi[e] && u2[e] > hi[e]);
                    if (out) continue;
                    if (kg_triangles_meet(u0, u1, u2, v, v + 3, v + 6)) {
                        if (hint) hint[0] = ia, hint[1] = ib;
                        return 1;
                    }
                }
            }
            continue;
        }
        /* split the larger (a leaf never) */
        int split_a = !x->count && (y->count || (x->hi[0] - x->lo[0]) + (x->hi[1] - x->lo[1]) + (x->hi[2] - x->lo[2]) >=
                                                    2 * (h[0] + h[1] + h[2]));
        /* the child nearer the other node is walked first (pushed last): where
         * surfaces cross, the nearer halves hold the crossing more often */
        int first;
        if (split_a) {
            first = second_nearer(&a->node[x->first], c);
        } else {
            double t[3], xb[3]; /* x's centre in b's frame */
            for (int k = 0; k < 3; k++) t[k] = (x->lo[k] + x->hi[k]) / 2 - p[k];
            kg_mat3_tvec(xb, R, t);
            first = second_nearer(&b->node[y->first], xb);
        }
        for (int s = 0; s < 2; s++) { /* pushed: the other child, then the first */
            int ch = s ? first : 1 - first;
            stack[top++] = split_a ? x->first + ch : ia;
            stack[top++] = split_a ? ib : y->first + ch;
        }
    }
    return 0;
}

/* How far above the leaves that met last a walk starts first: on 01_01 -> G1
 * (9 700 confirmations, median-split trees) 2 levels walked 3.35 M node pairs, 4 3.16 M, 6 3.06 M,
 * 8 3.17 M, 10 3.90 M (a hint that fails costs its walk). */
enum { HINT_UP = 6 };

/* Node n's ancestor k levels up (or the root). */
static int up(const kg_trimesh *m, int n, int k) {
    while (k-- > 0 && n > 0) n = m->node[n].parent;
    return n;
}

int kg_trimeshes_meet(const kg_trimesh *a, const kg_trimesh *b, const double R[9], const double p[3], int hint[2]) {
    if (!a->nnode || !b->nnode) return 0;
    double A[9];
    for (int k = 0; k < 9; k++) A[k] = fabs(R[k]);
    /* poses change little between calls: near the leaves that met last (a few
     * levels up: the surfaces slide) they mostly still do */
    if (hint && hint[0] > 0 && hint[0] < a->nnode && hint[1] > 0 && hint[1] < b->nnode &&
        walk(a, b, R, A, p, up(a, hint[0], HINT_UP), up(b, hint[1], HINT_UP), hint))
        return 1;
    return walk(a, b, R, A, p, 0, 0, hint);
}

int kg_trimesh_visit(const kg_trimesh *m, const double c[3], const double R[9], const double h[3],
                     int (*visit)(void *ctx, int t), void *ctx) {
    if (!m->nnode) return 0;
    double A[9];
    for (int k = 0; k < 9; k++) A[k] = fabs(R[k]);
    int stack[STACK], top = 0;
    stack[top++] = 0;
    while (top) {
        const kg_trinode *x = &m->node[stack[--top]];
        if (apart(x, c, R, A, h)) continue;
        if (!x->count) {
            stack[top++] = x->first, stack[top++] = x->first + 1;
            continue;
        }
        for (int t = x->first; t < x->first + x->count; t++) {
            int r = visit(ctx, t);
            if (r) return r;
        }
    }
    return 0;
}
