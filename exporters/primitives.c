/* Primitives (box, sphere, cylinder, capsule) as triangles, for formats whose
 * geometry is triangles only (COLLADA, glTF): SEGMENTS around, RINGS from pole
 * to pole; boxes exactly. */
#include "exporters/primitives.h"

#include <math.h>
#include <stdlib.h>

#include "core/spatial.h"

/* Out of memory: the list is emptied and marked failed (what is added then
 * is dropped). */
static void out_of_memory(kg_tris *s) {
    free(s->v);
    free(s->t);
    *s = (kg_tris){.failed = 1};
}

static int tv(kg_tris *s, double x0, double y0, double z0) {
    if (s->failed) return 0;
    if (s->nv == s->capv) {
        int cap = s->capv ? 2 * s->capv : 64;
        double *grown = realloc(s->v, (size_t)cap * 3 * sizeof *grown);
        if (!grown) return out_of_memory(s), 0;
        s->v = grown, s->capv = cap;
    }
    double *o = s->v + 3 * s->nv;
    o[0] = x0, o[1] = y0, o[2] = z0;
    return s->nv++;
}

static void tt(kg_tris *s, int a, int b, int c) {
    if (s->failed) return;
    if (s->nt == s->capt) {
        int cap = s->capt ? 2 * s->capt : 64;
        int *grown = realloc(s->t, (size_t)cap * 3 * sizeof *grown);
        if (!grown) return out_of_memory(s);
        s->t = grown, s->capt = cap;
    }
    int *o = s->t + 3 * s->nt++;
    o[0] = a, o[1] = b, o[2] = c;
}

enum { SEGMENTS = 32, RINGS = 16 };

/* Room for nv more vertices and nt more triangles at once (a primitive's
 * count is known: one allocation each, not one per doubling). */
static void reserve(kg_tris *s, int nv, int nt) {
    if (s->failed) return;
    if (s->nv + nv > s->capv) {
        double *grown = realloc(s->v, (size_t)(s->nv + nv) * 3 * sizeof *grown);
        if (!grown) return out_of_memory(s);
        s->v = grown, s->capv = s->nv + nv;
    }
    if (s->nt + nt > s->capt) {
        int *grown = realloc(s->t, (size_t)(s->nt + nt) * 3 * sizeof *grown);
        if (!grown) return out_of_memory(s);
        s->t = grown, s->capt = s->nt + nt;
    }
}

/* A surface of revolution about z: rings of (radius, z) from bottom to top, the
 * first and last radius 0 (poles). */
static void revolve(kg_tris *s, const double (*ring)[2], int nring) {
    reserve(s, nring * SEGMENTS, 2 * (nring - 1) * SEGMENTS);
    int first = s->nv;
    for (int r = 0; r < nring; r++)
        for (int k = 0; k < SEGMENTS; k++) {
            double a = 2 * KG_PI * k / SEGMENTS;
            tv(s, ring[r][0] * cos(a), ring[r][0] * sin(a), ring[r][1]);
        }
    for (int r = 0; r + 1 < nring; r++)
        for (int k = 0; k < SEGMENTS; k++) {
            int a = first + r * SEGMENTS + k, b = first + r * SEGMENTS + (k + 1) % SEGMENTS;
            int c = a + SEGMENTS, d = b + SEGMENTS;
            if (ring[r][0] > 0) tt(s, a, b, d);
            if (ring[r + 1][0] > 0) tt(s, a, d, c);
        }
}

/* Triangles of a primitive geom (counter-clockwise seen from outside). */
int kg_primitive_tris(const kg_geom *G, kg_tris *s) {
    double ring[2 * RINGS + 4][2];
    int n = 0;
    switch (G->type) {
    case KG_GEOM_BOX: {
        static const int face[6][4] = {{0, 2, 3, 1}, {4, 5, 7, 6}, {0, 1, 5, 4}, {2, 6, 7, 3}, {0, 4, 6, 2}, {1, 3, 7, 5}};
        reserve(s, 8, 12);
        for (int i = 0; i < 8; i++)
            tv(s, (i & 1 ? 0.5 : -0.5) * G->size[0], (i & 2 ? 0.5 : -0.5) * G->size[1], (i & 4 ? 0.5 : -0.5) * G->size[2]);
        for (int f = 0; f < 6; f++) {
            tt(s, face[f][0], face[f][1], face[f][2]);
            tt(s, face[f][0], face[f][2], face[f][3]);
        }
        break;
    }
    case KG_GEOM_CYLINDER: {
        double r = G->size[0], h = G->size[1] / 2;
        double cyl[4][2] = {{0, -h}, {r, -h}, {r, h}, {0, h}};
        revolve(s, cyl, 4);
        break;
    }
    case KG_GEOM_SPHERE:
    case KG_GEOM_CAPSULE: {
        double r = G->size[0], h = G->type == KG_GEOM_CAPSULE ? G->size[1] / 2 : 0;
        for (int i = 0; i <= RINGS; i++) { /* bottom hemisphere, then top */
            double a = -KG_PI / 2 + KG_PI * i / RINGS;
            double z = r * sin(a);
            if (i == RINGS / 2 && h > 0) {
                ring[n][0] = r, ring[n++][1] = -h;
                ring[n][0] = r, ring[n++][1] = h;
                continue;
            }
            ring[n][0] = i == 0 || i == RINGS ? 0 : r * cos(a);
            ring[n++][1] = z + (i < RINGS / 2 ? -h : i > RINGS / 2 ? h : 0);
        }
        revolve(s, (const double (*)[2])ring, n);
        break;
    }
    default:
        break;
    }
    return s->failed ? -1 : 0;
}
