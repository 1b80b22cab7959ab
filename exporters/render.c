/* A model drawn with cairo: see exporters/render.h. Painter's algorithm: every
 * triangle projected, sorted by its mean depth and filled far to near, its
 * shade the cosine between its normal and a light from over the camera's
 * shoulder (both sides lit: mesh files do not all wind their triangles
 * alike). Triangles are filled without anti-aliasing: anti-aliased
 * neighbours leave see-through seams along their shared edges (stroking each
 * edge to hide them cost three times the fill on a 400 000-triangle robot);
 * kg_render_picture draws at twice the size and scales down instead. The
 * triangle buffers are sized once, in kg_render_model_new. */
#include "exporters/render.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/spatial.h"
#include "exporters/primitives.h"

#define GREY 0.72 /* the colour of geometry without a material's or a mesh file's */

static void v3_sub(double o[3], const double a[3], const double b[3]) {
    for (int k = 0; k < 3; k++) o[k] = a[k] - b[k];
}
static void v3_add(double o[3], const double a[3], const double b[3]) {
    for (int k = 0; k < 3; k++) o[k] = a[k] + b[k];
}
static void v3_scale(double o[3], const double a[3], double s) {
    for (int k = 0; k < 3; k++) o[k] = a[k] * s;
}

typedef struct depth_key {
    double depth; /* the mean of the corners' distances towards the camera */
    int tri;
} depth_key;

struct kg_render_model {
    const kg_model *m;
    int yup;            /* a BVH skeleton: its files are Y up */
    int ntri, cap;
    double *v;          /* [9 ntri] each triangle's corners in its link's frame */
    int *link;          /* [ntri] */
    float *rgb;         /* [3 ntri] */
    /* scratch of kg_render_draw */
    double *xy;         /* [6 ntri] projected corners */
    float *shade;       /* [ntri] */
    depth_key *order;   /* [ntri] */
};

static int grow(kg_render_model *r, int more) {
    if (r->ntri + more <= r->cap) return 0;
    int cap = r->cap ? r->cap : 1024;
    while (cap < r->ntri + more) cap *= 2;
    double *v = realloc(r->v, (size_t)cap * 9 * sizeof *v);
    if (v) r->v = v;
    int *l = realloc(r->link, (size_t)cap * sizeof *l);
    if (l) r->link = l;
    float *c = realloc(r->rgb, (size_t)cap * 3 * sizeof *c);
    if (c) r->rgb = c;
    if (!v || !l || !c) return -1;
    r->cap = cap;
    return 0;
}

/* Appends triangles t[3 nt] of vertices v (the geom's frame) of geom G, in its link's frame. */
static int add_tris(kg_render_model *r, const kg_geom *G, const double *v, const int *t, int nt, const double rgba[4]) {
    if (grow(r, nt) != 0) return -1;
    for (int i = 0; i < nt; i++) {
        double *out = r->v + 9 * (size_t)r->ntri;
        for (int k = 0; k < 3; k++) {
            const double *p = v + 3 * (size_t)t[3 * i + k];
            double s[3] = {p[0] * G->scale[0], p[1] * G->scale[1], p[2] * G->scale[2]}, q[3];
            kg_mat3_vec(q, G->rot, s);
            for (int a = 0; a < 3; a++) out[3 * k + a] = G->pos[a] + q[a];
        }
        r->link[r->ntri] = G->link;
        for (int a = 0; a < 3; a++) r->rgb[3 * r->ntri + a] = rgba ? (float)rgba[a] : (float)GREY;
        r->ntri++;
    }
    return 0;
}

static int add_geom(kg_render_model *r, const kg_model *m, int g, kg_mesh_cache *meshes, kg_diags *d) {
    const kg_geom *G = &m->geom[g];
    const double *own = G->material >= 0 && m->material[G->material].has_color ? m->material[G->material].rgba : NULL;
    if (G->type != KG_GEOM_MESH) {
        kg_tris s = {0};
        if (kg_primitive_tris(G, &s) != 0) return -1; /* out of memory, as add_tris */
        kg_geom P = *G; /* primitives come sized: no scale */
        P.scale[0] = P.scale[1] = P.scale[2] = 1;
        int rc = add_tris(r, &P, s.v, s.t, s.nt, own);
        free(s.v), free(s.t);
        return rc;
    }
    const kg_mesh *me = G->mesh_path && meshes ? kg_mesh_get(meshes, G->mesh_path, G->mesh_part, d, m->source, G->line) : NULL;
    for (int k = 0; me && k < me->ngroup; k++) {
        const kg_mesh_group *gr = &me->group[k];
        if (add_tris(r, G, me->vert, me->tri + 3 * (size_t)gr->tri_first, gr->ntri,
                     own ? own : gr->has_color ? gr->rgba : NULL) != 0)
            return -1;
    }
    return 0;
}

kg_render_model *kg_render_model_new(const kg_model *m, kg_mesh_cache *meshes, kg_diags *d) {
    kg_render_model *r = calloc(1, sizeof *r);
    if (!r) return NULL;
    r->m = m;
    r->yup = m->format && !strcmp(m->format, "bvh");
    int nvis = 0;
    for (int g = 0; g < m->ngeom; g++) nvis += m->geom[g].role == KG_VISUAL;
    kg_geom_role role = nvis ? KG_VISUAL : KG_COLLISION;
    for (int g = 0; g < m->ngeom; g++)
        if (m->geom[g].role == role && add_geom(r, m, g, meshes, d) != 0) goto fail;
    size_t n = (size_t)r->ntri + 1;
    r->xy = malloc(6 * n * sizeof *r->xy);
    r->shade = malloc(n * sizeof *r->shade), r->order = malloc(n * sizeof *r->order);
    if (r->xy && r->shade && r->order) return r;
fail:
    kg_render_model_free(r);
    return NULL;
}

void kg_render_model_free(kg_render_model *r) {
    if (!r) return;
    free(r->v), free(r->link), free(r->rgb), free(r->xy), free(r->shade), free(r->order);
    free(r);
}

void kg_render_view_default(kg_render_view *v) {
    memset(v, 0, sizeof *v);
    v->azimuth = -0.95, v->elevation = 0.26;
}

/* The camera's axes in the world: right, up, towards the camera (Z up, or Y up). */
static void axes(const kg_render_model *r, const kg_render_view *v, double right[3], double up[3], double back[3]) {
    double e[3] = {cos(v->elevation) * cos(v->azimuth), cos(v->elevation) * sin(v->azimuth), sin(v->elevation)};
    double rt[3] = {-e[1], e[0], 0}, u[3]; /* (-e) x z */
    v3_scale(rt, rt, 1 / fmax(1e-12, kg_vec3_norm(rt)));
    kg_vec3_cross(u, rt, e); /* right x (-e), the picture's up */
    v3_scale(u, u, -1);
    if (r->yup) { /* Z-up (x, y, z) is a Y-up file's (x, -z, y): back to the file's axes */
        double *w[3] = {rt, u, e};
        for (int k = 0; k < 3; k++) {
            double y = w[k][1], z = w[k][2];
            w[k][1] = z, w[k][2] = -y;
        }
    }
    kg_vec3_copy(right, rt), kg_vec3_copy(up, u), kg_vec3_copy(back, e);
}

/* The camera's axes once, for projecting many points. */
typedef struct camera {
    double rt[3], up[3], back[3];
    const kg_render_view *v;
} camera;

static void camera_of(const kg_render_model *r, const kg_render_view *v, camera *c) {
    axes(r, v, c->rt, c->up, c->back);
    c->v = v;
}

static void project(const camera *c, const double p[3], double *x, double *y) {
    double q[3];
    v3_sub(q, p, c->v->centre);
    *x = c->v->px + c->v->scale * kg_vec3_dot(q, c->rt);
    *y = c->v->py - c->v->scale * kg_vec3_dot(q, c->up);
}

void kg_render_project(const kg_render_model *r, const kg_render_view *v, const double p[3], double *x, double *y) {
    camera c;
    camera_of(r, v, &c);
    project(&c, p, x, y);
}

static void world(const kg_data *d, int link, const double *p, double out[3]) {
    kg_mat3_vec(out, d->link_rot + 9 * link, p);
    v3_add(out, out, d->link_pos + 3 * link);
}

void kg_render_extent(const kg_render_model *r, const kg_data *d, const kg_render_view *v, double lo[2], double hi[2],
                      double centre[3]) {
    double rt[3], up[3], e[3], wlo[3] = {INFINITY, INFINITY, INFINITY}, whi[3] = {-INFINITY, -INFINITY, -INFINITY};
    axes(r, v, rt, up, e);
    lo[0] = lo[1] = INFINITY, hi[0] = hi[1] = -INFINITY;
    int nl = r->m->nlink - r->m->nloop;
    for (int i = 0; i < 3 * r->ntri + nl; i++) { /* every corner, and every link origin */
        double p[3];
        if (i < 3 * r->ntri) world(d, r->link[i / 3], r->v + 3 * (size_t)i, p);
        else kg_vec3_copy(p, d->link_pos + 3 * (i - 3 * r->ntri));
        double x = kg_vec3_dot(p, rt), y = kg_vec3_dot(p, up);
        lo[0] = fmin(lo[0], x), hi[0] = fmax(hi[0], x), lo[1] = fmin(lo[1], y), hi[1] = fmax(hi[1], y);
        for (int a = 0; a < 3; a++) wlo[a] = fmin(wlo[a], p[a]), whi[a] = fmax(whi[a], p[a]);
    }
    for (int a = 0; a < 3; a++) centre[a] = nl ? 0.5 * (wlo[a] + whi[a]) : 0;
    if (!nl) lo[0] = lo[1] = hi[0] = hi[1] = 0;
}

static int by_depth(const void *a, const void *b) {
    const depth_key *x = a, *y = b;
    return x->depth < y->depth ? -1 : x->depth > y->depth ? 1 : x->tri - y->tri;
}

/* The ground (z = 0; y = 0 Y up) as a grid of lines around the model's feet. */
static void ground(cairo_t *cr, const kg_render_model *r, const camera *cam, double size) {
    const kg_render_view *v = cam->v;
    double step = pow(10, floor(log10(fmax(size, 1e-3)))) / 2;
    int n = (int)ceil(1.2 * size / step);
    double c0 = round(v->centre[0] / step) * step, c1 = round(v->centre[r->yup ? 2 : 1] / step) * step;
    cairo_set_source_rgb(cr, 0.75, 0.76, 0.78);
    cairo_set_line_width(cr, 1);
    for (int k = -n; k <= n; k++)
        for (int dir = 0; dir < 2; dir++) {
            double a[3] = {0}, b[3] = {0}, x0, y0, x1, y1;
            int h = r->yup ? 2 : 1; /* the horizontal axis besides x */
            a[0] = dir ? c0 + k * step : c0 - n * step, a[h] = dir ? c1 - n * step : c1 + k * step;
            b[0] = dir ? c0 + k * step : c0 + n * step, b[h] = dir ? c1 + n * step : c1 + k * step;
            project(cam, a, &x0, &y0), project(cam, b, &x1, &y1);
            cairo_move_to(cr, x0, y0), cairo_line_to(cr, x1, y1);
        }
    cairo_stroke(cr);
}

void kg_render_draw(cairo_t *cr, const kg_render_model *r, const kg_data *d, const kg_render_view *v) {
    const kg_model *m = r->m;
    double lo[2], hi[2], c[3];
    camera cam;
    camera_of(r, v, &cam);
    const double *rt = cam.rt, *up = cam.up, *e = cam.back;
    kg_render_extent(r, d, v, lo, hi, c);
    ground(cr, r, &cam, fmax(hi[0] - lo[0], hi[1] - lo[1]));
    /* the light: from the camera, raised and to its left */
    double light[3];
    for (int a = 0; a < 3; a++) light[a] = e[a] + 0.6 * up[a] - 0.4 * rt[a];
    v3_scale(light, light, 1 / kg_vec3_norm(light));
    for (int i = 0; i < r->ntri; i++) {
        double p[3][3], u[3], w[3], n[3];
        for (int k = 0; k < 3; k++) {
            world(d, r->link[i], r->v + 9 * (size_t)i + 3 * k, p[k]);
            project(&cam, p[k], &r->xy[6 * i + 2 * k], &r->xy[6 * i + 2 * k + 1]);
        }
        r->order[i].depth = (kg_vec3_dot(p[0], e) + kg_vec3_dot(p[1], e) + kg_vec3_dot(p[2], e)) / 3;
        r->order[i].tri = i;
        v3_sub(u, p[1], p[0]), v3_sub(w, p[2], p[0]), kg_vec3_cross(n, u, w);
        double len = kg_vec3_norm(n);
        r->shade[i] = len > 0 ? (float)(0.35 + 0.65 * fabs(kg_vec3_dot(n, light)) / len) : 0.35f;
    }
    qsort(r->order, (size_t)r->ntri, sizeof *r->order, by_depth); /* far (small depth) first */
    cairo_save(cr);
    cairo_set_antialias(cr, CAIRO_ANTIALIAS_NONE); /* no seams between neighbours (see the top) */
    for (int k = 0; k < r->ntri; k++) {
        int i = r->order[k].tri;
        const double *q = r->xy + 6 * i;
        float s = r->shade[i];
        cairo_set_source_rgb(cr, s * r->rgb[3 * i], s * r->rgb[3 * i + 1], s * r->rgb[3 * i + 2]);
        cairo_move_to(cr, q[0], q[1]), cairo_line_to(cr, q[2], q[3]), cairo_line_to(cr, q[4], q[5]);
        cairo_close_path(cr);
        cairo_fill(cr);
    }
    cairo_restore(cr);
    if (r->ntri) return;
    /* no geometry: the skeleton, lines between the link frames */
    cairo_set_source_rgb(cr, 0.82, 0.19, 0.19);
    cairo_set_line_width(cr, 2);
    cairo_set_line_cap(cr, CAIRO_LINE_CAP_ROUND);
    for (int l = 1; l < m->nlink - m->nloop; l++) {
        int p = m->link[l].parent;
        if (p < 0) continue;
        double x0, y0, x1, y1;
        project(&cam, d->link_pos + 3 * p, &x0, &y0), project(&cam, d->link_pos + 3 * l, &x1, &y1);
        cairo_move_to(cr, x0, y0), cairo_line_to(cr, x1, y1);
    }
    cairo_stroke(cr);
}

void kg_render_picture(cairo_t *cr, const kg_render_model *r, const kg_data *d, const kg_render_view *v, double x,
                       double y, int w, int h) {
    cairo_surface_t *big = cairo_image_surface_create(CAIRO_FORMAT_RGB24, 2 * w, 2 * h);
    cairo_t *c2 = cairo_create(big);
    kg_render_view v2 = *v;
    v2.px -= x, v2.py -= y;
    cairo_scale(c2, 2, 2);
    cairo_set_source_rgb(c2, KG_RENDER_BACKGROUND);
    cairo_paint(c2);
    kg_render_draw(c2, r, d, &v2);
    cairo_destroy(c2);
    cairo_save(cr);
    cairo_rectangle(cr, x, y, w, h);
    cairo_clip(cr);
    cairo_translate(cr, x, y);
    cairo_scale(cr, 0.5, 0.5);
    cairo_set_source_surface(cr, big, 0, 0);
    cairo_pattern_set_filter(cairo_get_source(cr), CAIRO_FILTER_GOOD);
    cairo_paint(cr);
    cairo_restore(cr);
    cairo_surface_destroy(big);
}
