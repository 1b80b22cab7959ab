/* The triangles of one COLLADA <geometry>, read directly. assimp builds meshes
 * only for geometries the visual scene instances; a geometry that only a
 * physics shape instances (the collision meshes kinegraph's COLLADA writer
 * carries inline) is not in its scene, and without this reader a URDF -> DAE
 * -> URDF round trip outside the robot's folder lost every collision mesh. */
#include "formats/mesh_dae.h"

#include <stdlib.h>
#include <string.h>

#include "formats/fileio.h"
#include "formats/number.h"
#include "formats/xml.h"

typedef struct nums {
    double *v;
    size_t n, cap;
} nums;

/* Out of memory, the functions below return -2 (kg_dae_geometry too). */

/* The numbers of an element's text (at most `max`); -1 when one is malformed. */
static int read_numbers(xmlNodePtr n, nums *out, size_t max) {
    xmlChar *t = xmlNodeGetContent(n);
    const char *p = t ? (const char *)t : "";
    int rc = t || !n->children ? 0 : -2; /* libxml2's own copy failed */
    for (;;) {
        while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r') p++;
        if (!*p || out->n >= max) break;
        double x;
        const char *end = kg_parse_number(p, &x);
        if (!end) { rc = -1; break; }
        if (out->n == out->cap) {
            size_t cap = out->cap ? 2 * out->cap : 256;
            double *grown = realloc(out->v, cap * sizeof *grown);
            if (!grown) { rc = -2; break; }
            out->v = grown, out->cap = cap;
        }
        out->v[out->n++] = x;
        p = end;
    }
    xmlFree(t);
    return rc;
}

static xmlNodePtr child_with(xmlNodePtr n, const char *tag, const char *attr, const char *value) {
    for (xmlNodePtr c = kg_xml_first(n); c; c = kg_xml_next(c)) {
        if (!kg_xml_is(c, tag)) continue;
        xmlChar *v = attr ? xmlGetProp(c, BAD_CAST attr) : NULL;
        int hit = !attr || (v && !strcmp((const char *)v, value));
        xmlFree(v);
        if (hit) return c;
    }
    return NULL;
}

/* "#id" of an <input> with this semantic, as the id (or NULL); *offset its offset. */
static const char *input_source(xmlNodePtr prim, const char *semantic, int *offset, xmlChar **hold) {
    xmlNodePtr in = child_with(prim, "input", "semantic", semantic);
    if (!in) return NULL;
    xmlChar *o = xmlGetProp(in, BAD_CAST "offset");
    *offset = o ? atoi((const char *)o) : 0;
    xmlFree(o);
    *hold = xmlGetProp(in, BAD_CAST "source");
    return *hold && (*hold)[0] == '#' ? (const char *)*hold + 1 : NULL;
}

/* Positions of the mesh: <vertices><input semantic="POSITION" source="#s"> and
 * that <source>'s float_array, three a vertex (the accessor's stride). */
static int positions(xmlNodePtr mesh, double unit, kg_dae_mesh *out) {
    xmlNodePtr vx = kg_xml_child(mesh, "vertices");
    int off;
    xmlChar *hold = NULL;
    const char *id = vx ? input_source(vx, "POSITION", &off, &hold) : NULL;
    xmlNodePtr src = id ? child_with(mesh, "source", "id", id) : NULL;
    xmlFree(hold);
    xmlNodePtr fa = src ? kg_xml_child(src, "float_array") : NULL;
    if (!fa) return -1;
    xmlNodePtr tc = kg_xml_child(src, "technique_common"), acc = tc ? kg_xml_child(tc, "accessor") : NULL;
    xmlChar *st = acc ? xmlGetProp(acc, BAD_CAST "stride") : NULL;
    int stride = st ? atoi((const char *)st) : 3;
    xmlFree(st);
    nums f = {0};
    int rc = stride < 3 ? -1 : read_numbers(fa, &f, (size_t)1 << 28);
    if (rc != 0) {
        free(f.v);
        return rc;
    }
    out->nvert = (int)(f.n / (size_t)stride);
    out->vert = malloc((size_t)(out->nvert ? out->nvert : 1) * 3 * sizeof *out->vert);
    if (!out->vert) {
        free(f.v);
        return -2;
    }
    for (int i = 0; i < out->nvert; i++)
        for (int k = 0; k < 3; k++) out->vert[3 * i + k] = unit * f.v[(size_t)stride * (size_t)i + (size_t)k];
    free(f.v);
    return 0;
}

/* 0, or -2 (the triangle not added). */
static int add_triangle(kg_dae_mesh *m, int *cap, int a, int b, int c) {
    if (a < 0 || b < 0 || c < 0 || a >= m->nvert || b >= m->nvert || c >= m->nvert) return 0;
    if (m->ntri == *cap) {
        int n = *cap ? 2 * *cap : 256;
        int *grown = realloc(m->tri, (size_t)n * 3 * sizeof *grown);
        if (!grown) return -2;
        m->tri = grown, *cap = n;
    }
    int *t = m->tri + 3 * m->ntri++;
    t[0] = a, t[1] = b, t[2] = c;
    return 0;
}

/* <triangles> and <polylist> (fans): the VERTEX index of each corner. 0, or -2. */
static int primitives(xmlNodePtr mesh, kg_dae_mesh *out) {
    int cap = 0, rc = 0;
    for (xmlNodePtr pr = kg_xml_first(mesh); pr && !rc; pr = kg_xml_next(pr)) {
        int tris = kg_xml_is(pr, "triangles"), poly = kg_xml_is(pr, "polylist");
        if (!tris && !poly) continue;
        int stride = 1, voff = 0, o;
        for (xmlNodePtr in = kg_xml_first(pr); in; in = kg_xml_next(in)) {
            xmlChar *s = kg_xml_is(in, "input") ? xmlGetProp(in, BAD_CAST "offset") : NULL;
            if (s && (o = atoi((const char *)s)) + 1 > stride) stride = o + 1;
            xmlFree(s);
        }
        xmlChar *hold = NULL;
        if (!input_source(pr, "VERTEX", &voff, &hold) && !hold) continue;
        xmlFree(hold);
        nums p = {0}, vc = {0};
        xmlNodePtr pe = kg_xml_child(pr, "p"), vce = kg_xml_child(pr, "vcount");
        int rp = pe ? read_numbers(pe, &p, (size_t)1 << 28) : -1, rv = 0;
        if (rp == 0 && stride <= 64 && voff < stride && (tris || (vce && (rv = read_numbers(vce, &vc, (size_t)1 << 26)) == 0))) {
            size_t corners = p.n / (size_t)stride, at = 0;
#define CORNER(i) ((int)p.v[(size_t)stride * (i) + (size_t)voff])
            if (tris)
                for (size_t i = 0; i + 2 < corners && !rc; i += 3)
                    rc = add_triangle(out, &cap, CORNER(i), CORNER(i + 1), CORNER(i + 2));
            for (size_t k = 0; poly && k < vc.n && !rc; k++) {
                size_t n = vc.v[k] > 0 && vc.v[k] < 1e6 ? (size_t)vc.v[k] : 0;
                if (at + n > corners) break;
                for (size_t i = 1; i + 1 < n && !rc; i++)
                    rc = add_triangle(out, &cap, CORNER(at), CORNER(at + i), CORNER(at + i + 1));
                at += n;
            }
#undef CORNER
        }
        if (rp == -2 || rv == -2) rc = -2;
        free(p.v);
        free(vc.v);
    }
    return rc;
}

int kg_dae_geometry(const char *path, const char *id, kg_dae_mesh *out) {
    memset(out, 0, sizeof *out);
    kg_diags d;
    kg_diags_init(&d);
    size_t len;
    char *buf = kg_read_file(path, &len, &d);
    kg_xml x;
    int rc = -1;
    int parsed = buf ? kg_xml_parse(&x, buf, len, path, &d) : -1;
    if (parsed != 0 && kg_diags_memory(&d, 0)) rc = -2; /* not a file without the geometry */
    if (parsed == 0) {
        xmlNodePtr root = xmlDocGetRootElement(x.doc), asset = kg_xml_child(root, "asset");
        xmlNodePtr unit = asset ? kg_xml_child(asset, "unit") : NULL;
        double u = 1;
        if (unit && kg_xml_double(&x, unit, "meter", &u) != 1) u = 1;
        xmlNodePtr geo = NULL;
        for (xmlNodePtr lib = kg_xml_first(root); lib && !geo; lib = kg_xml_next(lib))
            if (kg_xml_is(lib, "library_geometries")) geo = child_with(lib, "geometry", "id", id);
        xmlNodePtr mesh = geo ? kg_xml_child(geo, "mesh") : NULL;
        if (mesh && u > 0 && (rc = positions(mesh, u, out)) == 0 && (rc = primitives(mesh, out)) == 0)
            rc = out->ntri > 0 ? 0 : -1;
        if (x.oom) rc = -2;
        kg_xml_close(&x);
    }
    free(buf);
    kg_diags_clear(&d);
    if (rc != 0) {
        free(out->vert);
        free(out->tri);
        memset(out, 0, sizeof *out);
    }
    return rc;
}
