/* URDF 1.0 exporter, from any model (libxml2's text writer does the XML).
 *
 * What URDF cannot hold is reported in the ledger:
 *   - loops: the cut joint is dropped (URDF is a tree); the virtual link with it;
 *   - compound joints (BVH channels, COLLADA multi-axis joints) are written as a
 *     chain of one-axis joints named "<joint>.<label>" through massless links of
 *     the same names: the same kinematics, exactly (approximated: more links); a
 *     coordinate with a rest value (a BVH OFFSET moved into a position channel)
 *     becomes zero at the rest pose, its offset going into the joint origin;
 *   - values URDF requires but the model lacks are defaulted: effort and
 *     velocity of a limit (0), prismatic limits of an unlimited axis (+-1e300);
 *     a revolute joint without limits is written as continuous;
 *   - capsules are written as cylinders;
 *   - a mesh that exists only inside another file (a COLLADA <geometry>) is
 *     written beside the URDF as binary STL, in "<name>_meshes/", and referenced
 *     by a relative path (its colours, which STL cannot hold, are reported);
 *   - COLLADA extras (OpenRAVE manipulators, ...) are dropped.
 * Numbers are written in the shortest form that reads back as the same double;
 * origins are written as the xyz and rpy that were read. */
#include <libxml/xmlwriter.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "core/spatial.h"
#include "core/str.h"
#include "core/strmap.h"
#include "exporters/exporters.h"
#include "formats/mesh.h"
#include "formats/number.h"

typedef struct writer {
    xmlTextWriterPtr w;
    const kg_model *m;
    kg_ledger *l;
    kg_diags *d;
    const char *path;     /* the URDF being written, or NULL */
    kg_mesh_cache *meshes;
    char **written;       /* geom -> the relative file its embedded mesh went to, or NULL */
    int skip_meshes;      /* dry run: embedded meshes are not read nor written (kg_export_options) */
    kg_files *companions; /* the STL files written (kg_export_options) */
    kg_names names;       /* link, joint and chain names in use, when a compound joint is split */
    int oom;              /* memory ran out naming a chain */
} writer;

static void attr_num(writer *x, const char *name, double v) {
    char b[32];
    xmlTextWriterWriteAttribute(x->w, BAD_CAST name, BAD_CAST kg_format_number(b, v));
}

static void attr_vec(writer *x, const char *name, const double *v, int n) {
    char b[4][32], out[140];
    out[0] = 0;
    for (int i = 0; i < n; i++) {
        strcat(out, kg_format_number(b[i], v[i]));
        if (i + 1 < n) strcat(out, " ");
    }
    xmlTextWriterWriteAttribute(x->w, BAD_CAST name, BAD_CAST out);
}

static void attr(writer *x, const char *name, const char *v) {
    xmlTextWriterWriteAttribute(x->w, BAD_CAST name, BAD_CAST v);
}

static void start(writer *x, const char *e) { xmlTextWriterStartElement(x->w, BAD_CAST e); }
static void end(writer *x) { xmlTextWriterEndElement(x->w); }

static void origin(writer *x, const double pos[3], const double rpy[3]) {
    if (!pos[0] && !pos[1] && !pos[2] && !rpy[0] && !rpy[1] && !rpy[2]) return;
    start(x, "origin");
    attr_vec(x, "xyz", pos, 3);
    attr_vec(x, "rpy", rpy, 3);
    end(x);
}

static void color(writer *x, const kg_material *mat) {
    if (mat->has_color) {
        start(x, "color");
        attr_vec(x, "rgba", mat->rgba, 4);
        end(x);
    }
    if (mat->texture) {
        start(x, "texture");
        attr(x, "filename", mat->texture);
        end(x);
    }
}

static void geom(writer *x, const kg_geom *g) {
    const kg_model *m = x->m;
    start(x, kg_geom_role_name(g->role));
    if (g->name) attr(x, "name", g->name);
    origin(x, g->pos, g->rpy);
    start(x, "geometry");
    switch (g->type) {
    case KG_GEOM_BOX:
        start(x, "box");
        attr_vec(x, "size", g->size, 3);
        break;
    case KG_GEOM_SPHERE:
        start(x, "sphere");
        attr_num(x, "radius", g->size[0]);
        break;
    case KG_GEOM_CAPSULE:
        kg_ledger_add(x->l, KG_APPROXIMATED, "geometry", m->link[g->link].name, m->source, g->line,
                      "URDF 1.0 has no capsule: written as a cylinder of the same radius and length");
        /* fall through */
    case KG_GEOM_CYLINDER:
        start(x, "cylinder");
        attr_num(x, "radius", g->size[0]);
        attr_num(x, "length", g->size[1]);
        break;
    case KG_GEOM_MESH:
        start(x, "mesh");
        if (x->written && x->written[g - m->geom]) attr(x, "filename", x->written[g - m->geom]);
        else attr(x, "filename", g->mesh_uri ? g->mesh_uri : "");
        if (g->scale[0] != 1 || g->scale[1] != 1 || g->scale[2] != 1) attr_vec(x, "scale", g->scale, 3);
        break;
    }
    end(x); /* shape */
    end(x); /* geometry */
    if (g->role == KG_VISUAL && g->material >= 0) {
        const kg_material *mat = &m->material[g->material];
        start(x, "material");
        attr(x, "name", mat->name);
        if (!mat->name[0]) color(x, mat); /* anonymous: defined in place */
        end(x);
    }
    end(x);
}

static void link_element(writer *x, int i) {
    const kg_link *L = &x->m->link[i];
    start(x, "link");
    attr(x, "name", L->name);
    if (L->has_inertial) {
        const kg_inertial *in = &L->inertial;
        start(x, "inertial");
        origin(x, in->pos, in->rpy);
        start(x, "mass");
        attr_num(x, "value", in->mass);
        end(x);
        static const char *const names[6] = {"ixx", "ixy", "ixz", "iyy", "iyz", "izz"};
        start(x, "inertia");
        for (int k = 0; k < 6; k++) attr_num(x, names[k], in->inertia[k]);
        end(x);
        end(x);
    }
    for (int g = L->geom_first; g < L->geom_first + L->geom_count; g++) geom(x, &x->m->geom[g]);
    end(x);
}

/* A limit element; effort and velocity are required by URDF: default 0 when absent. */
static void limit(writer *x, const kg_joint *J, int position) {
    start(x, "limit");
    if (position) { /* only what was declared: an absent bound is infinite */
        if (isfinite(J->lower)) attr_num(x, "lower", J->lower);
        if (isfinite(J->upper)) attr_num(x, "upper", J->upper);
    }
    double effort = J->effort, velocity = J->velocity;
    if (isnan(effort) || isnan(velocity))
        kg_ledger_add(x->l, KG_DEFAULTED, "limit", J->name, x->m->source, J->line,
                      "URDF requires effort and velocity limits; %s%s%s written as 0",
                      isnan(effort) ? "effort" : "", isnan(effort) && isnan(velocity) ? " and " : "",
                      isnan(velocity) ? "velocity" : "");
    attr_num(x, "effort", isnan(effort) ? 0 : effort);
    attr_num(x, "velocity", isnan(velocity) ? 0 : velocity);
    end(x);
}

static void joint_head(writer *x, const char *name, const char *type, const char *parent, const char *child,
                       const double pos[3], const double rpy[3]) {
    start(x, "joint");
    attr(x, "name", name);
    attr(x, "type", type);
    origin(x, pos, rpy);
    start(x, "parent");
    attr(x, "link", parent);
    end(x);
    start(x, "child");
    attr(x, "link", child);
    end(x);
}

static void axis(writer *x, const double a[3]) {
    start(x, "axis");
    attr_vec(x, "xyz", a, 3);
    end(x);
}

static void joint_element(writer *x, int j) {
    const kg_model *m = x->m;
    const kg_joint *J = &m->joint[j];
    const char *parent = m->link[J->parent].name, *child = m->link[J->child].name, *type;
    switch (J->type) {
    case KG_JOINT_REVOLUTE: type = J->has_limit ? "revolute" : "continuous"; break;
    case KG_JOINT_CONTINUOUS: type = "continuous"; break;
    case KG_JOINT_PRISMATIC: type = "prismatic"; break;
    case KG_JOINT_FLOATING: type = "floating"; break;
    case KG_JOINT_PLANAR: type = "planar"; break;
    default: type = "fixed"; break;
    }
    if (J->type == KG_JOINT_REVOLUTE && !J->has_limit)
        kg_ledger_add(x->l, KG_APPROXIMATED, "joint", J->name, m->source, J->line,
                      "a revolute joint without limits is written as continuous");
    joint_head(x, J->name, type, parent, child, J->pos, J->rpy);
    /* moving joints always; others when one was declared (meaningless, but kept) */
    if ((J->type != KG_JOINT_FIXED && J->type != KG_JOINT_FLOATING) || J->axis[0] != 1 || J->axis[1] || J->axis[2])
        axis(x, J->axis);
    if (J->type == KG_JOINT_PRISMATIC && !J->has_limit) {
        kg_ledger_add(x->l, KG_DEFAULTED, "limit", J->name, m->source, J->line,
                      "URDF requires prismatic limits; an unlimited joint is written with +-1e300");
        kg_joint open = *J;
        open.lower = -1e300;
        open.upper = 1e300;
        limit(x, &open, 1);
    } else if (J->has_limit || !isnan(J->effort) || !isnan(J->velocity)) {
        limit(x, J, J->has_limit); /* whatever was declared, on any joint type */
    }
    if (J->has_dynamics) {
        start(x, "dynamics");
        attr_num(x, "damping", J->damping);
        attr_num(x, "friction", J->friction);
        end(x);
    }
    if (J->mimic >= 0) {
        const kg_mimic *mm = &m->mimic[J->mimic];
        start(x, "mimic");
        attr(x, "joint", m->joint[mm->leader].name);
        attr_num(x, "multiplier", mm->multiplier);
        attr_num(x, "offset", mm->offset);
        end(x);
    }
    if (J->has_safety) {
        start(x, "safety_controller");
        attr_num(x, "soft_lower_limit", J->soft_lower);
        attr_num(x, "soft_upper_limit", J->soft_upper);
        attr_num(x, "k_position", J->k_position);
        attr_num(x, "k_velocity", J->k_velocity);
        end(x);
    }
    if (J->calibration) {
        start(x, "calibration");
        if (J->calibration & KG_CAL_RISING) attr_num(x, "rising", J->cal_rising);
        if (J->calibration & KG_CAL_FALLING) attr_num(x, "falling", J->cal_falling);
        if (J->calibration & KG_CAL_REFERENCE) attr_num(x, "reference_position", J->cal_reference);
        end(x);
    }
    end(x);
}

/* The names the model uses, so that a split compound joint's names
 * ("joint.axis") are new: two axes with one label, or a link already named
 * so, made duplicate joints and links the file's readers refuse. Returns -1
 * when memory runs out. */
static int take_names(writer *x) {
    const kg_model *m = x->m;
    for (int i = 0; i < m->nlink; i++) kg_strmap_put(&x->names.taken, m->link[i].name, 0);
    for (int j = 0; j < m->njoint; j++) kg_strmap_put(&x->names.taken, m->joint[j].name, 0);
    return x->names.taken.failed ? -1 : 0;
}

/* A compound joint as a chain of one-axis joints through massless links. */
static void compound_chain(writer *x, int j) {
    const kg_model *m = x->m;
    const kg_joint *J = &m->joint[j];
    kg_ledger_add(x->l, KG_APPROXIMATED, "joint", J->name, m->source, J->line,
                  "compound joint with %d axes written as %d one-axis joints \"%s.<axis>\" and %d massless links "
                  "(translations as prismatic joints with limits +-1e300, effort and velocity 0)",
                  J->naxis, J->naxis, J->name, J->naxis - 1);
    const char *prev = m->link[J->parent].name;
    double pos[3], rot[9];
    kg_vec3_copy(pos, J->pos);
    kg_mat3_copy(rot, J->rot);
    for (int a = 0; a < J->naxis; a++) {
        const kg_axis *ax = &m->axis[J->axis_first + a];
        int renamed;
        const char *name = kg_names_join(&x->names, J->name, ax->label, &renamed);
        if (!name) {
            x->oom = 1;
            return;
        }
        if (renamed)
            kg_ledger_add(x->l, KG_APPROXIMATED, "joint", J->name, m->source, J->line,
                          "the name \"%s.%s\" is taken (another axis with its label, or a link or joint so named): "
                          "written as \"%s\"", J->name, ax->label, name);
        /* a rest value moves into the origin, so the coordinate is zero at rest */
        if (ax->rest != 0) {
            kg_ledger_add(x->l, KG_APPROXIMATED, "coordinate", name, m->source, J->line,
                          "its rest value %.17g is written into the joint origin: URDF values of this joint "
                          "are the source's minus that",
                          ax->rest);
            if (ax->kind == KG_AXIS_TRANSLATION) {
                double o[3];
                kg_mat3_vec(o, rot, ax->dir);
                for (int k = 0; k < 3; k++) pos[k] += ax->rest * o[k];
            } else {
                double r[9], t[9];
                kg_rot_axis_angle(r, ax->dir, ax->rest);
                kg_mat3_mul(t, rot, r);
                kg_mat3_copy(rot, t);
            }
        }
        double rpy[3];
        kg_rot_to_rpy(rot, rpy);
        const char *child = a + 1 == J->naxis ? m->link[J->child].name : name;
        joint_head(x, name, ax->kind == KG_AXIS_ROTATION ? "continuous" : "prismatic", prev, child, pos, rpy);
        axis(x, ax->dir);
        if (ax->kind == KG_AXIS_TRANSLATION) {
            kg_joint open = *J;
            open.lower = -1e300;
            open.upper = 1e300;
            open.effort = open.velocity = 0;
            limit(x, &open, 1); /* the ledger entry for the chain covers this default */
        }
        end(x);
        if (a + 1 < J->naxis) {
            start(x, "link");
            attr(x, "name", name);
            end(x);
        }
        prev = name;
        pos[0] = pos[1] = pos[2] = 0;
        kg_mat3_identity(rot);
    }
}

/* Is geom g's mesh a part of a file (ctx: the model)? */
static int is_part(const void *ctx, int g) { return ((const kg_model *)ctx)->geom[g].mesh_part != NULL; }

/* Meshes that live inside another file (mesh_part) become STL files beside the
 * URDF: "<dir>/<stem>_meshes/<part>.stl", one per distinct mesh. 0, or -1
 * when memory runs out (said) or a file beside it could not be recorded. */
static int write_embedded_meshes(writer *x) {
    const kg_model *m = x->m;
    if (!(x->written = calloc((size_t)m->ngeom + 1, sizeof *x->written))) return -1;
    char dir[4096] = "", stem[512] = "mesh";
    if (x->path) {
        const char *slash = strrchr(x->path, '/'), *base = slash ? slash + 1 : x->path;
        snprintf(stem, sizeof stem, "%.*s", (int)(strrchr(base, '.') ? strrchr(base, '.') - base : (long)strlen(base)), base);
        snprintf(dir, sizeof dir, "%.*s%s_meshes", slash ? (int)(slash - x->path + 1) : 0, x->path, stem);
    }
    /* the files of the parts, read ahead (one child process); out of memory, when asked */
    if (x->path && !x->skip_meshes) (void)kg_mesh_cache_preload_geoms(x->meshes, m, is_part, m, 1);
    for (int g = 0; g < m->ngeom; g++) {
        const kg_geom *G = &m->geom[g];
        if (G->type != KG_GEOM_MESH || !G->mesh_part || !G->mesh_path) continue;
        int same = -1; /* written already for an earlier geom? */
        for (int k = 0; k < g && same < 0; k++)
            if (x->written[k] && m->geom[k].mesh_part && !strcmp(m->geom[k].mesh_part, G->mesh_part) &&
                !strcmp(m->geom[k].mesh_path, G->mesh_path))
                same = k;
        if (same >= 0) {
            if (!(x->written[g] = kg_strdup(x->written[same]))) return -1;
            continue;
        }
        if (x->skip_meshes) continue;
        if (!x->path) {
            kg_ledger_add(x->l, KG_DROPPED, "mesh", G->mesh_part, m->source, G->line,
                          "mesh '%s' exists only inside '%s' and no output path was given to write it beside the URDF; "
                          "the reference names the file it is in", G->mesh_part, G->mesh_path);
            continue;
        }
        size_t errors = kg_diags_count(x->d, KG_ERROR);
        const kg_mesh *me = kg_mesh_get(x->meshes, G->mesh_path, G->mesh_part, x->d, m->source, G->line);
        if (!me && kg_diags_count(x->d, KG_ERROR) > errors) return -1; /* out of memory (mesh.memory) */
        if (!me) {
            kg_ledger_add(x->l, KG_DROPPED, "mesh", G->mesh_part, m->source, G->line,
                          "mesh '%s' inside '%s' cannot be read; the reference names the file it is in", G->mesh_part,
                          G->mesh_path);
            continue;
        }
        char name[300], rel[900], full[4600];
        snprintf(name, sizeof name, "%s", G->mesh_part);
        for (char *c = name; *c; c++)
            if (!((*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') || (*c >= '0' && *c <= '9') || *c == '-' || *c == '_'))
                *c = '_';
        snprintf(rel, sizeof rel, "%s_meshes/%s.stl", stem, name);
        snprintf(full, sizeof full, "%s/%s.stl", dir, name);
        if (mkdir(dir, 0777) == 0) {
            if (kg_files_add(x->companions, dir) != 0) return -1;
        } else if (errno != EEXIST) {
            kg_diag_add(x->d, KG_ERROR, "io.write", dir, 0, NULL, "cannot make folder '%s': %s", dir, strerror(errno));
            continue;
        }
        if (kg_mesh_write_stl(me, full, x->d) != 0) continue; /* an io.write error: kg_save fails the whole */
        if (kg_files_add(x->companions, full) != 0 || !(x->written[g] = kg_strdup(rel))) return -1;
        int colours = 0;
        for (int k = 0; k < me->ngroup; k++) colours += me->group[k].has_color;
        kg_ledger_add(x->l, KG_APPROXIMATED, "mesh", G->mesh_part, m->source, G->line,
                      "mesh '%s' inside '%s' written to '%s'%s", G->mesh_part, G->mesh_path, rel,
                      colours ? " (STL keeps no colours: its materials are lost)" : "");
    }
    return 0;
}

int kg_export_urdf(const kg_model *m, const kg_motion *mo, const kg_export_options *o, FILE *f, kg_ledger *l,
                      kg_diags *d) {
    if (mo)
        kg_ledger_add(l, KG_DROPPED, "motion", m->name, m->source, 0,
                      "URDF holds no motion: %d frames of %d coordinates are not written (write a .bvh, .csv or "
                      ".json for them)",
                      mo->nframes, mo->nq);
    xmlOutputBufferPtr out = xmlOutputBufferCreateFile(f, NULL);
    xmlTextWriterPtr w = out ? xmlNewTextWriter(out) : NULL;
    if (!w) {
        kg_diag_add(d, KG_ERROR, "io.write", NULL, 0, NULL, "cannot start an XML writer");
        return -1;
    }
    kg_mesh_cache *own = o && o->meshes ? NULL : kg_mesh_cache_new();
    writer x = {.w = w, .m = m, .l = l, .d = d, .path = o ? o->path : NULL, .meshes = own ? own : o ? o->meshes : NULL,
                .skip_meshes = o && o->skip_meshes, .companions = o ? o->companions : NULL};
    if (!x.meshes || write_embedded_meshes(&x) != 0) { /* out of memory */
        xmlFreeTextWriter(w);
        for (int g = 0; x.written && g < m->ngeom; g++) free(x.written[g]);
        free(x.written);
        kg_mesh_cache_free(own);
        return kg_export_oom(o, d);
    }
    xmlTextWriterSetIndent(w, 1);
    xmlTextWriterSetIndentString(w, BAD_CAST "  ");
    xmlTextWriterStartDocument(w, "1.0", "UTF-8", NULL);
    start(&x, "robot");
    attr(&x, "name", m->name);
    for (int k = 0; k < m->nmaterial; k++) {
        if (!m->material[k].name[0]) continue; /* anonymous: written where used */
        start(&x, "material");
        attr(&x, "name", m->material[k].name);
        color(&x, &m->material[k]);
        end(&x);
    }
    for (int i = 0; i < m->nlink; i++)
        if (m->link[i].real < 0) link_element(&x, i);
    int compound = 0;
    for (int j = 0; j < m->njoint; j++) compound |= m->joint[j].type == KG_JOINT_COMPOUND;
    if (compound && take_names(&x) != 0) x.oom = 1;
    for (int j = 0; j < m->njoint && !x.oom; j++) {
        const kg_joint *J = &m->joint[j];
        if (J->loop >= 0) {
            kg_ledger_add(l, KG_DROPPED, "loop", J->name, m->source, J->line,
                          "URDF is a tree: joint '%s' (%s, '%s' to '%s') closing a loop is not written", J->name,
                          kg_joint_type_name(J->type), m->link[J->parent].name,
                          m->link[m->link[J->child].real].name);
            continue;
        }
        if (J->type == KG_JOINT_COMPOUND) compound_chain(&x, j);
        else joint_element(&x, j);
    }
    for (int k = 0; k < m->nend_effector; k++) /* those read from COLLADA extras are in the ledger with them */
        if (!m->end_effector[k].from_extra)
            kg_ledger_add(l, KG_DROPPED, "end_effector", m->end_effector[k].name, m->source, m->end_effector[k].line,
                          "URDF has no end effectors (an SRDF group would hold the chain)");
    for (int k = 0; k < m->ncollision_ignore; k++)
        if (!m->collision_ignore[k].from_extra)
            kg_ledger_add(l, KG_DROPPED, "collision_ignore", m->link[m->collision_ignore[k].a].name, m->source,
                          m->collision_ignore[k].line, "URDF has no ignored collision pairs (SRDF's disable_collisions)");
    for (int k = 0; k < m->nextra; k++) {
        const kg_extra *e = &m->extra[k];
        if (!strncmp(e->kind, "collada:", 8)) {
            kg_ledger_add(l, KG_DROPPED, "extra", e->name ? e->name : e->kind + 8, m->source, e->line,
                          "COLLADA <%s> has no place in URDF", strrchr(e->kind, ':') + 1);
            continue;
        }
        xmlTextWriterWriteRaw(w, BAD_CAST e->xml);
    }
    end(&x);
    int rc = xmlTextWriterEndDocument(w);
    xmlFreeTextWriter(w); /* flushes; the FILE stays open */
    for (int g = 0; g < m->ngeom; g++) free(x.written[g]);
    free(x.written);
    kg_mesh_cache_free(own);
    kg_names_free(&x.names);
    if (x.oom) return kg_export_oom(o, d);
    return rc < 0 || ferror(f) ? -1 : 0;
}
