/* What the COLLADA importer's files share: the document context's helpers
 * (owned strings, diagnostics, text and numbers of elements, references by
 * URL) and transforms. collada.c (the document, kinematics, physics) and the
 * scene, skeleton and animation readers all call these; they call none of
 * those, so calls among the importer's files run one way. */
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/str.h"
#include "core/spatial.h"
#include "importers/collada.h"

void *cd_oom(cd *c) { return kg_xml_out_of_memory(&c->x); }

int cd_grow(cd *c, void **p, int n, int *cap, size_t size) {
    if (n < *cap) return 0;
    size_t want = *cap > 0 ? 2 * (size_t)*cap : 8;
    if (want < (size_t)n + 1) want = (size_t)n + 1;
    if (want > INT_MAX) want = INT_MAX; /* counts are ints */
    void *grown = n < INT_MAX && want <= SIZE_MAX / size ? realloc(*p, want * size) : NULL;
    if (!grown) return cd_oom(c), -1;
    *p = grown, *cap = (int)want;
    return 0;
}

void cd_put(cd *c, kg_strmap *m, const char *key, int value) {
    kg_strmap_put(m, key, value);
    if (m->failed) cd_oom(c);
}

const char *cd_own(cd *c, char *s) {
    if (!s || cd_grow(c, (void **)&c->owned, c->nowned, &c->capowned, sizeof *c->owned) != 0) {
        free(s);
        cd_oom(c);
        return "";
    }
    c->owned[c->nowned++] = s;
    return s;
}

const char *cd_strdup(cd *c, const char *s) { return cd_own(c, kg_strdup(s)); }

const char *cd_cat(cd *c, const char *a, const char *b) {
    size_t na = strlen(a), nb = strlen(b);
    char *d = malloc(na + nb + 1);
    if (d) memcpy(d, a, na), memcpy(d + na, b, nb + 1);
    return cd_own(c, d);
}

int cd_line_of(xmlNodePtr n) { return kg_xml_line(n); }
const char *cd_tag(xmlNodePtr n) { return (const char *)n->name; }

void cd_diag(cd *c, kg_severity sev, const char *code, xmlNodePtr n, const char *fmt, const char *a,
                 const char *b) {
    kg_diag_add(c->d, sev, code, c->file, n ? cd_line_of(n) : 0, n ? cd_tag(n) : NULL, fmt, a ? a : "", b ? b : "");
}

/* The trimmed text of an element (owned by c). */
const char *cd_text(cd *c, xmlNodePtr n) {
    xmlChar *t = xmlNodeGetContent(n);
    const char *s = t ? (const char *)t : "";
    while (*s == ' ' || *s == '\t' || *s == '\n' || *s == '\r') s++;
    size_t k = strlen(s);
    while (k && (s[k - 1] == ' ' || s[k - 1] == '\t' || s[k - 1] == '\n' || s[k - 1] == '\r')) k--;
    char *r = malloc(k + 1);
    if (r) memcpy(r, s, k), r[k] = 0;
    if (!t && n->children) cd_oom(c); /* libxml2's copy failed */
    xmlFree(t);
    return cd_own(c, r);
}

int cd_numbers(cd *c, xmlNodePtr n, double *out, int count) {
    if (kg_parse_doubles(cd_text(c, n), out, count) == 0) return 0;
    char want[16];
    snprintf(want, sizeof want, "%d", count);
    cd_diag(c, KG_ERROR, "collada.bad_number", n, "<%s> needs %s finite numbers", cd_tag(n), want);
    return -1;
}

xmlNodePtr cd_by_url(cd *c, const char *url) { return url && url[0] == '#' ? cd_by_id(c, url + 1) : NULL; }

xmlNodePtr cd_by_id(cd *c, const char *id) {
    int i = id ? kg_strmap_get(&c->ids, id) : -1;
    return i >= 0 ? c->idnodes[i] : NULL;
}

/* ---- transforms ------------------------------------------------------------- */

void cd_pose_identity(pose *t) {
    kg_mat3_identity(t->r);
    t->p[0] = t->p[1] = t->p[2] = 0;
}

void cd_pose_mul(pose *o, const pose *a, const pose *b) {
    pose t;
    kg_pose_mul(t.r, t.p, a->r, a->p, b->r, b->p);
    *o = t;
}

/* The translate / rotate / matrix children of n, composed in order. */
void cd_read_pose(cd *c, xmlNodePtr n, pose *out) {
    cd_pose_identity(out);
    for (xmlNodePtr k = kg_xml_first(n); k; k = kg_xml_next(k)) {
        pose step;
        cd_pose_identity(&step);
        if (kg_xml_is(k, "translate")) {
            if (cd_numbers(c, k, step.p, 3) != 0) continue;
            for (int a = 0; a < 3; a++) step.p[a] *= c->unit;
        } else if (kg_xml_is(k, "rotate")) {
            double v[4];
            if (cd_numbers(c, k, v, 4) != 0) continue;
            double len = kg_vec3_norm(v);
            if (len == 0) {
                if (v[3] != 0) cd_diag(c, KG_WARNING, "collada.rotate_zero_axis", k, "<rotate> with a zero axis is ignored%s%s", NULL, NULL);
                continue;
            }
            for (int a = 0; a < 3; a++) v[a] /= len;
            kg_rot_axis_angle(step.r, v, v[3] * KG_PI / 180);
        } else if (kg_xml_is(k, "scale")) {
            double v[3];
            if (cd_numbers(c, k, v, 3) != 0) continue;
            for (int i = 0; i < 9; i++) step.r[i] = i % 4 ? 0 : v[i / 4];
        } else if (kg_xml_is(k, "matrix")) {
            double m[16];
            if (cd_numbers(c, k, m, 16) != 0) continue;
            for (int i = 0; i < 3; i++) {
                for (int j = 0; j < 3; j++) step.r[3 * i + j] = m[4 * i + j];
                step.p[i] = m[4 * i + 3] * c->unit;
            }
        } else {
            continue;
        }
        cd_pose_mul(out, out, &step);
    }
}

int cd_pose_split(const pose *a, pose *rigid, double scale[3]) {
    double col[3][3];
    for (int k = 0; k < 3; k++) {
        for (int i = 0; i < 3; i++) col[k][i] = a->r[3 * i + k];
        scale[k] = kg_vec3_norm(col[k]);
        if (fabs(scale[k] - 1) < 1e-12) scale[k] = 1; /* a rotation's columns, up to rounding */
    }
    kg_vec3_copy(rigid->p, a->p);
    double det = kg_mat3_det(a->r);
    if (det < 0) scale[2] = -scale[2]; /* a mirror: one negative scale keeps the rest a rotation */
    double worst = 0;
    for (int k = 0; k < 3; k++) {
        if (scale[k] == 0) {
            kg_mat3_identity(rigid->r);
            return 1;
        }
        for (int i = 0; i < 3; i++) rigid->r[3 * i + k] = col[k][i] / scale[k];
    }
    for (int k = 0; k < 3; k++)
        for (int l = k + 1; l < 3; l++)
            worst = fmax(worst, fabs(rigid->r[k] * rigid->r[l] + rigid->r[3 + k] * rigid->r[3 + l] + rigid->r[6 + k] * rigid->r[6 + l]));
    /* files print matrices with 6 or 7 digits: make them rotations, and call
     * anything beyond that rounding shear */
    if (worst > 1e-15) kg_mat3_orthonormalize(rigid->r);
    return worst > 1e-4;
}
