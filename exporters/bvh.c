/* BVH exporter: the inverse of importers/bvh.c. The hierarchy, the channel
 * order per joint and the frame time come back as they were read; numbers are
 * written in the shortest form that reads back as the same double. OFFSETs are
 * the joints' origins plus the rest values of their position channels (the
 * importer moved the components a position channel covers there). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/spatial.h"
#include "exporters/exporters.h"
#include "formats/number.h"

static const char *const names[2][3] = {{"Xrotation", "Yrotation", "Zrotation"},
                                        {"Xposition", "Yposition", "Zposition"}};

/* The channel name of an axis along a coordinate axis, or NULL. */
static const char *channel(const kg_axis *ax) {
    for (int a = 0; a < 3; a++)
        if (ax->dir[a] == 1 && ax->dir[(a + 1) % 3] == 0 && ax->dir[(a + 2) % 3] == 0) return names[ax->kind][a];
    return NULL;
}

static int check(const kg_model *m, kg_diags *d) {
    if (m->link[0].geom_count || m->link[0].mass != 0 || m->nloop) {
        kg_diag_add(d, KG_ERROR, "export.bvh_unsupported", m->source, 0, NULL,
                    "only BVH skeletons can be written as BVH (a static root link, x/y/z channels)");
        return -1;
    }
    for (int j = 0; j < m->njoint; j++) {
        const kg_joint *J = &m->joint[j];
        int ok = J->type == KG_JOINT_FIXED || J->type == KG_JOINT_COMPOUND;
        for (int a = 0; ok && a < J->naxis; a++) ok = channel(&m->axis[J->axis_first + a]) != NULL;
        for (int a = 0; ok && a + 1 < J->naxis; a++) /* positions before rotations */
            ok = !(m->axis[J->axis_first + a].kind == KG_AXIS_ROTATION &&
                   m->axis[J->axis_first + a + 1].kind == KG_AXIS_TRANSLATION);
        if (ok && J->type == KG_JOINT_FIXED && (J->rpy[0] || J->rpy[1] || J->rpy[2])) ok = 0;
        if (ok && J->type == KG_JOINT_COMPOUND && (J->rpy[0] || J->rpy[1] || J->rpy[2])) ok = 0;
        if (!ok) {
            kg_diag_add(d, KG_ERROR, "export.bvh_unsupported", m->source, J->line, "joint",
                        "joint '%s' (%s) cannot be written as BVH channels", J->name, kg_joint_type_name(J->type));
            return -1;
        }
    }
    return 0;
}

static void indent(FILE *f, int depth) {
    for (int i = 0; i < depth; i++) fputc('\t', f);
}

static void write_node(const kg_model *m, FILE *f, int link, int depth) {
    const kg_joint *J = &m->joint[m->link[link].joint];
    int leaf = 1;
    for (int c = link + 1; c < m->nlink; c++)
        if (m->link[c].parent == link) leaf = 0;
    double off[3];
    kg_vec3_copy(off, J->pos);
    for (int a = 0; a < J->naxis; a++) {
        const kg_axis *ax = &m->axis[J->axis_first + a];
        if (ax->kind == KG_AXIS_TRANSLATION)
            for (int k = 0; k < 3; k++) off[k] += ax->rest * ax->dir[k];
    }
    char x[32], y[32], z[32];
    indent(f, depth);
    if (J->type == KG_JOINT_FIXED && leaf) fprintf(f, "End Site\n");
    else fprintf(f, "%s %s\n", depth == 0 ? "ROOT" : "JOINT", m->link[link].name);
    indent(f, depth);
    fprintf(f, "{\n");
    indent(f, depth + 1);
    fprintf(f, "OFFSET %s %s %s\n", kg_format_number(x, off[0]), kg_format_number(y, off[1]),
            kg_format_number(z, off[2]));
    if (!(J->type == KG_JOINT_FIXED && leaf)) {
        indent(f, depth + 1);
        fprintf(f, "CHANNELS %d", J->nq);
        for (int c = 0; c < J->nq; c++)
            for (int a = 0; a < J->naxis; a++)
                if (m->axis[J->axis_first + a].coord == c) fprintf(f, " %s", channel(&m->axis[J->axis_first + a]));
        fputc('\n', f);
    }
    for (int c = link + 1; c < m->nlink; c++)
        if (m->link[c].parent == link) write_node(m, f, c, depth + 1);
    indent(f, depth);
    fprintf(f, "}\n");
}

int kg_export_bvh(const kg_model *m, const kg_motion *mo, const kg_export_options *o, FILE *f, kg_ledger *l,
                      kg_diags *d) {
    if (check(m, d) != 0) return -1;
    kg_ledger_model_only(m, l, "BVH");
    fprintf(f, "HIERARCHY\n");
    for (int c = 1; c < m->nlink; c++)
        if (m->link[c].parent == 0) write_node(m, f, c, 0);
    /* coordinates are in topological order, which is the order written above */
    char buf[32];
    fprintf(f, "MOTION\nFrames: %d\nFrame Time: %s\n", mo ? mo->nframes : 0,
            kg_format_number(buf, mo ? mo->frame_time : 1.0 / 30));
    double *deg = NULL; /* per coordinate: 180/pi for angles, 1 for lengths */
    if (mo && mo->nframes) {
        deg = calloc((size_t)m->nq + 1, sizeof *deg);
        for (int k = 0; k < m->nq; k++) deg[k] = 1;
        for (int a = 0; a < m->nangle; a++) deg[m->angle_q[a]] = 180 / KG_PI;
    }
    for (int fr = 0; mo && fr < mo->nframes; fr++) {
        const double *q = mo->q + (size_t)fr * mo->nq;
        for (int k = 0; k < m->nq; k++) {
            fputs(kg_format_number(buf, q[k] * deg[k]), f);
            fputc(k + 1 < m->nq ? ' ' : '\n', f);
        }
        if (m->nq == 0) fputc('\n', f);
    }
    free(deg);
    return ferror(f) ? -1 : 0;
}
