/* Trajectory files (CSV and JSON) for any model and its motion (without a
 * motion: one frame at the rest pose, in the ledger).
 *
 * One row per frame: time (s, from the source's first frame time), the world position of the body's root link
 * (model->root_body: the pelvis of a robot, the ROOT joint of a BVH skeleton),
 * its orientation as a unit quaternion in the order w, x, y, z, then every
 * coordinate of the joint vector under its name (kg_coord_name: a joint's name,
 * or "joint.label" for joints with several coordinates). Angles are radians;
 * lengths are in the model's units (metres, or a BVH file's units times its
 * scale). Numbers are written in the shortest form that reads back exactly. */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "core/fk.h"
#include "core/model.h"
#include "core/spatial.h"
#include "exporters/exporters.h"
#include "formats/number.h"

/* Is coordinate k written? All are, but a mimic follower's when followers are skipped. */
static int written(const kg_model *m, const kg_export_options *o, int k) {
    if (!o || !o->skip_followers) return 1;
    for (int j = 0; j < m->njoint; j++)
        if (k >= m->joint[j].qadr && k < m->joint[j].qadr + m->joint[j].nq) return m->joint[j].mimic < 0;
    return 1;
}

/* Says in the ledger which followers' coordinates are left out. */
static void ledger_followers(const kg_model *m, const kg_export_options *o, kg_ledger *l) {
    if (!o || !o->skip_followers) return;
    for (int j = 0; j < m->njoint; j++)
        if (m->joint[j].mimic >= 0 && m->joint[j].nq > 0)
            kg_ledger_add(l, KG_DROPPED, "joint", m->joint[j].name, m->source, m->joint[j].line,
                          "a mimic follower: its coordinate follows from its leader's and is not written");
}

static const char *const root_columns[8] = {"time",    "root_x",  "root_y",  "root_z",
                                            "root_qw", "root_qx", "root_qy", "root_qz"};

/* The values of frame f: time, root pose, coordinates ([8 + nq]). */
static void row(const kg_model *m, const kg_motion *mo, kg_data *d, int f, double *out) {
    kg_motion_pose(mo, f, d);
    kg_fk(m, d);
    out[0] = mo->start_time + f * mo->frame_time;
    kg_vec3_copy(out + 1, d->link_pos + 3 * m->root_body);
    kg_rot_to_quat(d->link_rot + 9 * m->root_body, out + 4);
    memcpy(out + 8, d->q, (size_t)m->nq * sizeof(double));
}

/* What writing a trajectory needs: the motion (the given one, or one frame at
 * the rest pose, owned), a pose and a row. */
typedef struct frames {
    const kg_motion *mo;
    kg_motion *owned;
    kg_data *kd;
    double *v; /* [8 + nq] */
} frames;

static void frames_free(frames *t) {
    kg_motion_free(t->owned);
    kg_data_free(t->kd);
    free(t->v);
}

/* 0, or -1 when memory runs out (frames_free frees what was taken). */
static int frames_new(const kg_model *m, const kg_motion *mo, kg_ledger *l, frames *t) {
    *t = (frames){.mo = mo};
    if (!mo) {
        kg_ledger_add(l, KG_DEFAULTED, "motion", m->name, m->source, 0,
                      "the input has no motion: one frame at the rest pose is written");
        if (!(t->mo = t->owned = kg_motion_new(m->nq, 1.0 / 30, 1))) return -1;
        kg_motion_append(t->owned, m->q_default); /* its frame is reserved */
    }
    t->kd = kg_data_new(m);
    t->v = malloc(((size_t)m->nq + 8) * sizeof *t->v);
    return t->kd && t->v ? 0 : -1;
}

void kg_csv_field(FILE *f, const char *s) {
    size_t n = strlen(s); /* quoted also with space at either end: a reader keeps it only so */
    int edge = n > 0 && (isspace((unsigned char)s[0]) || isspace((unsigned char)s[n - 1]));
    if (!edge && !strpbrk(s, ",\"\r\n")) {
        fputs(s, f);
        return;
    }
    fputc('"', f);
    for (; *s; s++) {
        if (*s == '"') fputc('"', f);
        fputc(*s, f);
    }
    fputc('"', f);
}

/* One writer for both CSV layouts: kinegraph's (a header of names; time, root
 * position, root quaternion w first, coordinates) and the LAFAN1 one (no header,
 * no time; root position, root quaternion w last, coordinates). */
static int write_csv(const kg_model *m, const kg_motion *mo, const kg_export_options *o, FILE *f, kg_ledger *l,
                     kg_diags *d, int lafan1) {
    frames t;
    if (frames_new(m, mo, l, &t) != 0) {
        frames_free(&t);
        return kg_export_oom(o, d);
    }
    mo = t.mo;
    kg_data *kd = t.kd;
    double *v = t.v;
    kg_ledger_model_only(m, l, "a trajectory");
    ledger_followers(m, o, l);
    char num[32], **names = lafan1 ? NULL : kg_coord_names(m);
    if (!lafan1 && !names) {
        frames_free(&t);
        return kg_export_oom(o, d);
    }
    const unsigned char *contacts = o && o->contacts && !lafan1 && !t.owned ? o->contacts : NULL;
    if (lafan1) {
        kg_ledger_add(l, KG_DROPPED, "motion", m->name, m->source, 0,
                      "the LAFAN1 layout has no header and no time column: names and the frame time are not written");
        if (o && o->contacts)
            kg_ledger_add(l, KG_DROPPED, "motion", m->name, m->source, 0,
                          "the LAFAN1 layout has no contact columns: the feet's contacts are not written");
    } else {
        for (int c = 0; c < 8; c++) fprintf(f, "%s%s", c ? "," : "", root_columns[c]);
        for (int k = 0; k < m->nq; k++) {
            if (!written(m, o, k)) continue;
            fputc(',', f);
            kg_csv_field(f, names[k]);
        }
        if (contacts) fputs(",contact_left,contact_right", f);
        fputc('\n', f);
        kg_coord_names_free(names, m->nq);
    }
    for (int fr = 0; fr < mo->nframes; fr++) {
        row(m, mo, kd, fr, v);
        if (lafan1) { /* x y z qx qy qz qw in the place of time x y z qw qx qy qz */
            double qw = v[4];
            memmove(v, v + 1, 3 * sizeof *v);
            memmove(v + 3, v + 5, 3 * sizeof *v);
            v[6] = qw;
            memmove(v + 7, v + 8, (size_t)m->nq * sizeof *v);
        }
        for (int c = 0; c < 8 + m->nq - lafan1; c++) {
            if (c >= 8 - lafan1 && !written(m, o, c - 8 + lafan1)) continue;
            if (c) fputc(',', f);
            fputs(kg_format_number(num, v[c]), f);
        }
        if (contacts) fprintf(f, ",%d,%d", contacts[2 * fr] != 0, contacts[2 * fr + 1] != 0);
        fputc('\n', f);
    }
    frames_free(&t);
    return ferror(f) ? -1 : 0;
}

int kg_export_csv(const kg_model *m, const kg_motion *mo, const kg_export_options *o, FILE *f, kg_ledger *l,
                      kg_diags *d) {
    return write_csv(m, mo, o, f, l, d, 0);
}

/* The layout of the retargeted LAFAN1 clips humanoid-learning projects share
 * (e.g. Unitree's LAFAN1_Retargeting_Dataset): no header, one row per frame of
 * the root's position x, y, z, its orientation as a quaternion x, y, z, w (w
 * last), then the joint coordinates in the model's order (for a robot of hinge
 * joints, its joint positions in the order of its file). */
int kg_export_csv_lafan1(const kg_model *m, const kg_motion *mo, const kg_export_options *o, FILE *f, kg_ledger *l,
                         kg_diags *d) {
    return write_csv(m, mo, o, f, l, d, 1);
}

/* A JSON string (names are UTF-8 from the input files). */
static void json_string(FILE *f, const char *s) {
    fputc('"', f);
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        if (*p == '"' || *p == '\\') fprintf(f, "\\%c", *p);
        else if (*p < 0x20) fprintf(f, "\\u%04x", *p);
        else fputc(*p, f);
    }
    fputc('"', f);
}

int kg_export_json(const kg_model *m, const kg_motion *mo, const kg_export_options *o, FILE *f, kg_ledger *l,
                      kg_diags *d) {
    frames t;
    if (frames_new(m, mo, l, &t) != 0) {
        frames_free(&t);
        return kg_export_oom(o, d);
    }
    mo = t.mo;
    kg_data *kd = t.kd;
    double *v = t.v;
    kg_ledger_model_only(m, l, "a trajectory");
    ledger_followers(m, o, l);
    char num[32], **names = kg_coord_names(m);
    if (!names) {
        frames_free(&t);
        return kg_export_oom(o, d);
    }
    fprintf(f, "{\"format\": \"kinegraph-trajectory\", \"version\": 1, \"model\": ");
    json_string(f, m->name);
    fprintf(f, ", \"frame_time\": %s, \"frames\": %d, \"quaternion_order\": \"wxyz\", \"angle_unit\": \"rad\",\n \"columns\": [",
            kg_format_number(num, mo->frame_time), mo->nframes);
    for (int c = 0; c < 8; c++) fprintf(f, "%s\"%s\"", c ? ", " : "", root_columns[c]);
    for (int k = 0; k < m->nq; k++) {
        if (!written(m, o, k)) continue;
        fputs(", ", f);
        json_string(f, names[k]);
    }
    kg_coord_names_free(names, m->nq);
    fprintf(f, "],\n \"data\": [");
    for (int fr = 0; fr < mo->nframes; fr++) {
        row(m, mo, kd, fr, v);
        fprintf(f, "%s\n  [", fr ? "," : "");
        for (int c = 0; c < 8 + m->nq; c++)
            if (c < 8 || written(m, o, c - 8)) fprintf(f, "%s%s", c ? ", " : "", kg_format_number(num, v[c]));
        fputc(']', f);
    }
    fprintf(f, "\n ]}\n");
    frames_free(&t);
    return ferror(f) ? -1 : 0;
}
