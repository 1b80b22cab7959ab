#include "analysis/trimesh.h"

#include <math.h>
#include <stdlib.h>

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

/* Reorders triangles lo .. hi-1 (their centres cen, indices idx, moved
 * together) so the k-th holds the one whose centre's coordinate a would be
 * there sorted, none before it larger, none after smaller (Hoare's
 * selection). */
static void select_kth(int *idx, double *cen, int a, int lo, int hi, int k) {
    while (hi - lo > 1) {
        double pivot = cen[3 * ((lo + hi) / 2) + a];
        int i = lo, j = hi - 1;
        while (i <= j) {
            while (cen[3 * i + a] < pivot) i++;
            while (cen[3 * j + a] > pivot) j--;
            if (i <= j) {
                int t = idx[i];
                idx[i] = idx[j], idx[j] = t;
                for (int b = 0; b < 3; b++) {
                    double c = cen[3 * i + b];
                    cen[3 * i + b] = cen[3 * j + b], cen[3 * j + b] = c;
                }
                i++, j--;
            }
        }
        if (k <= j) hi = j + 1;
        else if (k >= i) lo = i;
        else return;
    }
}

/* Fills node n with the triangles idx[first .. first+count-1], halving
 * until a leaf holds at most 4; a node's box is its children's. */
static void build(kg_trimesh *m, double *cen, int *idx, int n, int first, int count) {
    kg_trinode *nd = &m->node[n];
    for (int a = 0; a < 3; a++) nd->lo[a] = INFINITY, nd->hi[a] = -INFINITY;
    if (count <= 4) {
        for (int k = first; k < first + count; k++)
            for (int v = 0; v < 3; v++)
                for (int a = 0; a < 3; a++) {
                    double x = m->vert[3 * m->tri[3 * idx[k] + v] + a];
                    if (x < nd->lo[a]) nd->lo[a] = x;
                    if (x > nd->hi[a]) nd->hi[a] = x;
                }
        nd->first = first, nd->count = count;
        return;
    }
    double lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
    for (int k = first; k < first + count; k++) /* the centres' bounds: split the longest side */
        for (int a = 0; a < 3; a++) {
            double x = cen[3 * k + a];
            if (x < lo[a]) lo[a] = x;
            if (x > hi[a]) hi[a] = x;
        }
    int a = 0;
    for (int b = 1; b < 3; b++)
        if (hi[b] - lo[b] > hi[a] - lo[a]) a = b;
    int half = count / 2, child = m->nnode;
    select_kth(idx, cen, a, first, first + count, first + half);
    m->nnode += 2;
    m->node[child].parent = m->node[child + 1].parent = n;
    build(m, cen, idx, child, first, half);
    build(m, cen, idx, child + 1, first + half, count - half);
    nd->first = child, nd->count = 0;
    for (int b = 0; b < 3; b++) {
        nd->lo[b] = fmin(m->node[child].lo[b], m->node[child + 1].lo[b]);
        nd->hi[b] = fmax(m->node[child].hi[b], m->node[child + 1].hi[b]);
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
    double *cen = malloc((size_t)m->ntri * 3 * sizeof *cen);
    int *idx = malloc((size_t)m->ntri * sizeof *idx), *tri = malloc((size_t)m->ntri * 3 * sizeof *tri);
    m->node = malloc((size_t)m->ntri * 2 * sizeof *m->node); /* a binary tree of ntri leaves at most */
    if (!cen || !idx || !tri || !m->node) {
        free(cen), free(idx), free(tri), free(m->node);
        m->node = NULL;
        return -1;
    }
    for (int t = 0; t < m->ntri; t++) {
        idx[t] = t;
        for (int a = 0; a < 3; a++)
            cen[3 * t + a] = (m->vert[3 * m->tri[3 * t] + a] + m->vert[3 * m->tri[3 * t + 1] + a] +
                              m->vert[3 * m->tri[3 * t + 2] + a]) / 3;
    }
    m->nnode = 1;
    m->node[0].parent = -1;
    build(m, cen, idx, 0, 0, m->ntri);
    for (int t = 0; t < m->ntri; t++)
        for (int v = 0; v < 3; v++) tri[3 * t + v] = m->tri[3 * idx[t] + v];
    free(m->tri);
    m->tri = tri;
    free(cen), free(idx);
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

/* Tree depths stay below 32 (halves), so a walk's stack below 2 x 32 + 1. */
enum { STACK = 128 };

static int box_meets(const double alo[3], const double ahi[3], const double blo[3], const double bhi[3]) {
    for (int k = 0; k < 3; k++)
        if (ahi[k] < blo[k] || bhi[k] < alo[k]) return 0;
    return 1;
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
        for (int s = 0; s < 2; s++) {
            stack[top++] = split_a ? x->first + s : ia;
            stack[top++] = split_a ? ib : y->first + s;
        }
    }
    return 0;
}

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
        walk(a, b, R, A, p, up(a, hint[0], 4), up(b, hint[1], 4), hint))
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
