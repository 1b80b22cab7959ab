#include "analysis/solid.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/spatial.h"

/* Inertia about the centroid from the second moment C = integral of x x^T
 * (about the centroid): I = trace(C) E - C. */
static void inertia_from_moment(double i[9], const double c[9]) {
    double t = c[0] + c[4] + c[8];
    for (int k = 0; k < 9; k++) i[k] = -c[k];
    i[0] += t, i[4] += t, i[8] += t;
}

/* A solid whose second moment about the centroid is diagonal (v * d). */
static void diagonal(kg_solid *s, double v, double dx, double dy, double dz) {
    double c[9] = {v * dx, 0, 0, 0, v * dy, 0, 0, 0, v * dz};
    memset(s, 0, sizeof *s);
    s->volume = v;
    inertia_from_moment(s->inertia, c);
}

void kg_solid_box(kg_solid *s, const double size[3]) {
    diagonal(s, size[0] * size[1] * size[2], size[0] * size[0] / 12, size[1] * size[1] / 12,
             size[2] * size[2] / 12);
}

void kg_solid_sphere(kg_solid *s, double r) {
    double r2 = r * r / 5;
    diagonal(s, 4 * KG_PI * r * r * r / 3, r2, r2, r2);
}

void kg_solid_cylinder(kg_solid *s, double r, double h) {
    diagonal(s, KG_PI * r * r * h, r * r / 4, r * r / 4, h * h / 12);
}

void kg_solid_capsule(kg_solid *s, double r, double h) {
    /* the cylinder, and two hemispheres of volume vh whose flat faces sit at
     * z = +-h/2: about its flat face a hemisphere has integral u^2 = integral
     * x^2 = 2 pi r^5 / 15 and integral u = vh 3r/8 along its axis */
    double vc = KG_PI * r * r * h, vh = 2 * KG_PI * r * r * r / 3, z0 = h / 2;
    double x2 = vc * r * r / 4 + 2 * (2 * KG_PI * pow(r, 5) / 15);
    double z2 = vc * h * h / 12 + 2 * (vh * z0 * z0 + 2 * z0 * vh * 3 * r / 8 + 2 * KG_PI * pow(r, 5) / 15);
    double v = vc + 2 * vh;
    if (v > 0) diagonal(s, v, x2 / v, x2 / v, z2 / v);
    else memset(s, 0, sizeof *s);
}

typedef struct edge {
    uint32_t lo, hi;
    int forward; /* the triangle runs lo -> hi */
} edge;


static int edge_cmp(const void *pa, const void *pb) {
    const edge *a = pa, *b = pb;
    if (a->lo != b->lo) return a->lo < b->lo ? -1 : 1;
    if (a->hi != b->hi) return a->hi < b->hi ? -1 : 1;
    return a->forward - b->forward;
}

/* Edges that the triangles do not run along as often one way as the other.
 * With none, the surface is closed (a cycle: each edge of a triangle is undone
 * by another's) and the divergence theorem gives its volume whatever the
 * reference point; edges shared by four triangles, as in meshes that touch
 * themselves, are fine. */
static int count_open_edges(const int *tri, int ntri) {
    edge *e = malloc((size_t)ntri * 3 * sizeof *e + 1);
    if (!e) return -1;
    size_t n = 0;
    for (int t = 0; t < ntri; t++)
        for (int k = 0; k < 3; k++) {
            int a = tri[3 * t + k], b = tri[3 * t + (k + 1) % 3];
            if (a == b) continue; /* a collapsed edge bounds nothing */
            e[n].lo = (uint32_t)(a < b ? a : b);
            e[n].hi = (uint32_t)(a < b ? b : a);
            e[n].forward = a < b;
            n++;
        }
    qsort(e, n, sizeof *e, edge_cmp);
    int open = 0;
    for (size_t i = 0; i < n;) {
        size_t j = i;
        int balance = 0;
        for (; j < n && e[j].lo == e[i].lo && e[j].hi == e[i].hi; j++) balance += e[j].forward ? 1 : -1;
        if (balance) open++;
        i = j;
    }
    free(e);
    return open;
}

int kg_solid_mesh(kg_solid *s, const double *vert, int nvert, const int *tri, int ntri, const double scale[3],
                  int *open_edges, int *inside_out, double *uncertainty) {
    memset(s, 0, sizeof *s);
    *inside_out = 0;
    *uncertainty = 0;
    *open_edges = count_open_edges(tri, ntri);
    if (*open_edges < 0) return -1;
    if (nvert == 0 || ntri == 0) return 0;
    /* Tetrahedra from a vertex of the mesh rather than the frame's origin: a mesh
     * far from its origin would otherwise lose digits to cancellation. */
    double r0[3] = {vert[0] * scale[0], vert[1] * scale[1], vert[2] * scale[2]};
    /* a mirroring scale turns the triangles inside out; undo that here so that
     * inside_out reports the file's own orientation */
    double sign = scale[0] * scale[1] * scale[2] < 0 ? -1 : 1;
    double v6 = 0, m24[3] = {0, 0, 0}, c120[9] = {0};
    double area2[3] = {0, 0, 0}; /* twice the vector area; zero for a closed surface */
    double lo[3] = {0, 0, 0}, hi[3] = {0, 0, 0};
    for (int t = 0; t < ntri; t++) {
        double p[3][3], sum[3];
        for (int k = 0; k < 3; k++) {
            const double *x = vert + 3 * tri[3 * t + k];
            for (int a = 0; a < 3; a++) p[k][a] = x[a] * scale[a] - r0[a];
        }
        double bc[3], e1[3], e2[3], n[3];
        kg_vec3_cross(bc, p[1], p[2]);
        for (int a = 0; a < 3; a++) {
            e1[a] = p[1][a] - p[0][a], e2[a] = p[2][a] - p[0][a];
            for (int k = 0; k < 3; k++) lo[a] = fmin(lo[a], p[k][a]), hi[a] = fmax(hi[a], p[k][a]);
        }
        kg_vec3_cross(n, e1, e2);
        for (int a = 0; a < 3; a++) area2[a] += sign * n[a];
        double det = sign * kg_vec3_dot(p[0], bc); /* six times the signed volume */
        for (int a = 0; a < 3; a++) sum[a] = p[0][a] + p[1][a] + p[2][a];
        v6 += det;
        for (int a = 0; a < 3; a++) m24[a] += det * sum[a];
        /* integral of x x^T over the tetrahedron (0, p0, p1, p2) is
         * det/120 (sum_k p_k p_k^T + sum sum^T) */
        for (int a = 0; a < 3; a++)
            for (int b = a; b < 3; b++)
                c120[3 * a + b] += det * (p[0][a] * p[0][b] + p[1][a] * p[1][b] + p[2][a] * p[2][b] + sum[a] * sum[b]);
    }
    if (v6 < 0) {
        *inside_out = 1;
        v6 = -v6;
        for (int a = 0; a < 3; a++) m24[a] = -m24[a];
        for (int k = 0; k < 9; k++) c120[k] = -c120[k];
    }
    double v = v6 / 6;
    s->volume = v;
    if (*open_edges) {
        /* Moving the tetrahedra's apex by r changes the volume of an open surface
         * by r . A / 3 (A its vector area, the holes' area with a sign): over
         * apexes within the mesh's bounds, the volume is this uncertain. */
        double diag[3] = {hi[0] - lo[0], hi[1] - lo[1], hi[2] - lo[2]};
        double dv = kg_vec3_norm(area2) / 2 * kg_vec3_norm(diag) / 3;
        *uncertainty = v > 0 ? dv / v : INFINITY;
    }
    if (v == 0) return 0;
    double c[3], mom[9];
    for (int a = 0; a < 3; a++) c[a] = m24[a] / 24 / v;
    for (int a = 0; a < 3; a++)
        for (int b = a; b < 3; b++) {
            mom[3 * a + b] = c120[3 * a + b] / 120 - v * c[a] * c[b]; /* about the centroid */
            mom[3 * b + a] = mom[3 * a + b];
        }
    inertia_from_moment(s->inertia, mom);
    for (int a = 0; a < 3; a++) s->centroid[a] = c[a] + r0[a];
    return 0;
}

void kg_solid_transform(kg_solid *s, const double rot[9], const double pos[3]) {
    double c[3], i[9];
    kg_mat3_vec(c, rot, s->centroid);
    for (int a = 0; a < 3; a++) s->centroid[a] = c[a] + pos[a];
    kg_inertia_rotate(i, rot, s->inertia);
    memcpy(s->inertia, i, sizeof i);
}

/* Adds v (|d|^2 E - d d^T): the parallel-axis term of volume v at offset d. */
static void parallel_axis(double i[9], double v, const double d[3]) {
    double dd = kg_vec3_dot(d, d);
    for (int a = 0; a < 3; a++)
        for (int b = 0; b < 3; b++) i[3 * a + b] += v * ((a == b ? dd : 0) - d[a] * d[b]);
}

void kg_solid_add(kg_solid *acc, const kg_solid *s) {
    double v = acc->volume + s->volume;
    if (v == 0) return;
    double c[3], da[3], ds[3];
    for (int a = 0; a < 3; a++) {
        c[a] = (acc->volume * acc->centroid[a] + s->volume * s->centroid[a]) / v;
        da[a] = acc->centroid[a] - c[a];
        ds[a] = s->centroid[a] - c[a];
    }
    double i[9];
    for (int k = 0; k < 9; k++) i[k] = acc->inertia[k] + s->inertia[k];
    parallel_axis(i, acc->volume, da);
    parallel_axis(i, s->volume, ds);
    acc->volume = v;
    kg_vec3_copy(acc->centroid, c);
    memcpy(acc->inertia, i, sizeof i);
}
