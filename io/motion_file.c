#include "io/motion_file.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "core/fk.h"
#include "core/model.h"
#include "importers/importers.h"

static int is_follower_coord(const kg_model *m, int k) {
    for (int j = 0; j < m->njoint; j++)
        if (k >= m->joint[j].qadr && k < m->joint[j].qadr + m->joint[j].nq) return m->joint[j].mimic >= 0;
    return 0;
}

/* ---- CSV: importers/trajectory.c reads it ----------------------------------------- */

static kg_motion *read_csv(const kg_model *m, const char *path, double csv_fps, kg_diags *d) {
    kg_motion *mo = kg_import_trajectory_csv(m, path, csv_fps, NULL, d);
    if (mo && m->root_body != 0) { /* the root's pose follows from the coordinates (a BVH skeleton's ROOT) */
        free(mo->base);
        mo->base = NULL;
    }
    return mo;
}

/* ---- a clip ----------------------------------------------------------------------- */

static kg_motion *from_clip(const kg_model *m, const char *path, const kg_load_options *o, kg_diags *d) {
    kg_motion *cm = NULL;
    kg_model *src = kg_load_clip(path, o, &cm, d);
    if (!src) return NULL;
    kg_motion *mo = NULL;
    if (!cm || cm->nframes == 0) {
        kg_diag_add(d, KG_ERROR, "motion.none", path, 0, NULL, "'%s' has no motion", path);
        goto done;
    }
    int *from = malloc(((size_t)m->nq + 1) * sizeof *from), matched = 0, missing = 0;
    if (!from) {
        kg_diag_add(d, KG_ERROR, "io.memory", path, 0, NULL, "out of memory reading the motion");
        goto done;
    }
    char **a = kg_coord_names(m), **b = kg_coord_names(src);
    if (!a || !b) {
        kg_coord_names_free(a, m->nq), kg_coord_names_free(b, src->nq);
        free(from);
        kg_diag_add(d, KG_ERROR, "io.memory", path, 0, NULL, "out of memory reading the motion");
        goto done;
    }
    for (int k = 0; k < m->nq; k++) {
        from[k] = -1;
        /* by joint and label first (a name made unique depends on the joints' order), then by name */
        const char *ja, *la, *jb, *lb;
        int parts = kg_coord_parts(m, k, &ja, &la);
        for (int s = 0; parts && s < src->nq && from[k] < 0; s++)
            if (kg_coord_parts(src, s, &jb, &lb) && !strcmp(ja, jb) && (la && lb ? !strcmp(la, lb) : la == lb))
                from[k] = s;
        for (int s = 0; s < src->nq && from[k] < 0; s++)
            if (!strcmp(b[s], a[k])) from[k] = s;
        if (from[k] >= 0) matched++;
        else if (!is_follower_coord(m, k) && missing++ == 0)
            kg_diag_add(d, KG_WARNING, "motion.missing", path, 0, NULL,
                        "the motion has no coordinate '%s': its rest value is used", a[k]);
    }
    kg_coord_names_free(a, m->nq), kg_coord_names_free(b, src->nq);
    if (missing > 1)
        kg_diag_add(d, KG_WARNING, "motion.missing", path, 0, NULL, "%d of the model's coordinates in all are not in the motion",
                    missing);
    if (m->nq > 0 && matched == 0) {
        kg_diag_add(d, KG_ERROR, "motion.mismatch", path, 0, NULL,
                    "the motion's coordinates have none of the model's names: not a motion of this model");
        free(from);
        goto done;
    }
    mo = kg_motion_new(m->nq, cm->frame_time, (size_t)cm->nframes); /* the frames reserved: appends do not fail */
    if (!mo) {
        kg_diag_add(d, KG_ERROR, "io.memory", path, 0, NULL, "out of memory reading the motion");
        free(from);
        goto done;
    }
    mo->start_time = cm->start_time;
    if (cm->base && m->root_body == 0 && !(mo->base = malloc((size_t)cm->nframes * 7 * sizeof(double)))) {
        kg_diag_add(d, KG_ERROR, "io.memory", path, 0, NULL, "out of memory reading the motion");
        kg_motion_free(mo);
        mo = NULL;
        free(from);
        goto done;
    }
    for (int fr = 0; fr < cm->nframes; fr++) {
        double *q = kg_motion_append(mo, m->q_default);
        for (int k = 0; k < m->nq; k++)
            if (from[k] >= 0) q[k] = cm->q[(size_t)fr * cm->nq + from[k]];
        kg_apply_mimic(m, q);
        if (mo->base) memcpy(mo->base + 7 * (size_t)fr, cm->base + 7 * (size_t)fr, 7 * sizeof(double));
    }
    free(from);
done:
    kg_motion_free(cm);
    kg_model_free(src);
    return mo;
}

kg_motion *kg_load_motion_for(const kg_model *m, const char *path, const kg_load_options *o, double csv_fps,
                              kg_diags *d) {
    size_t n = strlen(path);
    if (n > 4 && !strcasecmp(path + n - 4, ".csv")) return read_csv(m, path, csv_fps, d);
    return from_clip(m, path, o, d);
}
