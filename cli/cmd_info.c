/* kinegraph info MODEL: what the model is made of, and what is wrong with it. */
#include <stdio.h>
#include <string.h>

#include "analysis/mass.h"
#include "analysis/measure.h"
#include "cli/common.h"
#include "core/fk.h"
#include "formats/units.h"

static int run(int argc, char **argv);

const kg_cli_command kg_cmd_info = {
    .name = "info",
    .summary = "what a model is made of, and its diagnostics",
    .usage = "kinegraph info MODEL [options]\n",
    .description =
        "Reads MODEL (URDF, COLLADA .dae/.zae, or BVH) and prints its name, format, link and\n"
        "joint counts, degrees of freedom (moving joint coordinates that are not mimic\n"
        "followers), root link, closed loops with their members, mimic couplings, end\n"
        "effectors and ignored collision pairs (OpenRAVE), total mass, and every diagnostic\n"
        "with its file and line. For a motion (BVH, COLLADA animation) also the frames,\n"
        "frame time, channels per frame, the skeleton's height (largest extent of the rest\n"
        "pose: the height when it stands, the arm span in a T-pose) and a guess of the\n"
        "length unit from it.\n"
        "Exit status 1 when the model has errors.\n",
    .common = KG_CLI_JSON | KG_CLI_MODEL,
    .operands = KG_COMPLETE_FILE,
    .run = run,
};

static json_t *name_list(const kg_model *m, const int *idx, int n, int links) {
    json_t *a = json_array();
    for (int i = 0; i < n; i++)
        json_array_append_new(a, kg_json_str(links ? m->link[idx[i]].name : m->joint[idx[i]].name));
    return a;
}

/* What info says about a motion: frames, frame time, channels, height, unit. */
typedef struct clip_info {
    int present;
    double height;
    const char *unit;
} clip_info;

static clip_info clip_of(const kg_model *m, const kg_cli *c) {
    clip_info ci = {0};
    if (!c->motion) return ci;
    ci.present = 1;
    ci.height = kg_body_size(m, NULL, NULL);
    ci.unit = c->scale > 0 && c->scale != 1 ? "scaled" : kg_guess_unit(ci.height, NULL);
    return ci;
}

static json_t *info_json(const kg_model *m, const kg_cli *c, double mass) {
    json_t *o = json_object();
    json_object_set_new(o, "name", kg_json_str(m->name));
    json_object_set_new(o, "format", json_string(m->format));
    json_object_set_new(o, "source", kg_json_str(m->source));
    json_object_set_new(o, "links", json_integer(m->nlink - m->nloop));
    json_object_set_new(o, "joints", json_integer(m->njoint));
    json_object_set_new(o, "dof", json_integer(m->dof));
    json_object_set_new(o, "nq", json_integer(m->nq));
    json_object_set_new(o, "virtual_links", json_integer(m->nloop));
    json_object_set_new(o, "root", kg_json_str(m->link[0].name));
    json_t *types = json_object();
    for (int t = KG_JOINT_FIXED; t <= KG_JOINT_COMPOUND; t++) {
        int n = 0;
        for (int j = 0; j < m->njoint; j++) n += m->joint[j].type == (kg_joint_type)t;
        json_object_set_new(types, kg_joint_type_name((kg_joint_type)t), json_integer(n));
    }
    json_object_set_new(o, "joint_types", types);
    json_t *loops = json_array();
    for (int k = 0; k < m->nloop; k++) {
        const kg_loop *lp = &m->loop[k];
        json_t *l = json_object();
        json_object_set_new(l, "cut_joint", kg_json_str(m->joint[lp->cut_joint].name));
        json_object_set_new(l, "real_link", kg_json_str(m->link[lp->real_link].name));
        json_object_set_new(l, "virtual_link", kg_json_str(m->link[lp->virtual_link].name));
        json_object_set_new(l, "links", name_list(m, lp->links, lp->nlink, 1));
        json_object_set_new(l, "joints", name_list(m, lp->joints, lp->njoint, 0));
        json_array_append_new(loops, l);
    }
    json_object_set_new(o, "loops", loops);
    json_t *mimic = json_array();
    for (int k = 0; k < m->nmimic; k++) {
        const kg_mimic *mm = &m->mimic[k];
        json_t *x = json_object();
        json_object_set_new(x, "joint", kg_json_str(m->joint[mm->follower].name));
        json_object_set_new(x, "leader", kg_json_str(m->joint[mm->leader].name));
        json_object_set_new(x, "multiplier", kg_json_num(mm->multiplier));
        json_object_set_new(x, "offset", kg_json_num(mm->offset));
        json_array_append_new(mimic, x);
    }
    json_object_set_new(o, "mimic", mimic);
    json_object_set_new(o, "mass", kg_json_num(mass));
    int nvis = 0, ncol = 0, nmesh = 0, nunres = 0;
    for (int g = 0; g < m->ngeom; g++) {
        if (m->geom[g].role == KG_VISUAL) nvis++;
        else ncol++;
        if (m->geom[g].type == KG_GEOM_MESH) {
            nmesh++;
            nunres += m->geom[g].mesh_path == NULL;
        }
    }
    json_t *geoms = json_object();
    json_object_set_new(geoms, "visual", json_integer(nvis));
    json_object_set_new(geoms, "collision", json_integer(ncol));
    json_object_set_new(geoms, "meshes", json_integer(nmesh));
    json_object_set_new(geoms, "unresolved_meshes", json_integer(nunres));
    json_object_set_new(o, "geoms", geoms);
    json_object_set_new(o, "materials", json_integer(m->nmaterial));
    json_object_set_new(o, "extras", json_integer(m->nextra));
    json_t *ees = json_array();
    for (int k = 0; k < m->nend_effector; k++) {
        const kg_end_effector *e = &m->end_effector[k];
        json_t *x = json_object();
        json_object_set_new(x, "name", kg_json_str(e->name));
        json_object_set_new(x, "base", e->base >= 0 ? kg_json_str(m->link[e->base].name) : json_null());
        json_object_set_new(x, "tip", kg_json_str(m->link[e->tip].name));
        json_object_set_new(x, "position", kg_json_vec(e->pos, 3));
        json_object_set_new(x, "rotation", kg_json_mat3(e->rot));
        json_object_set_new(x, "direction", kg_json_vec(e->direction, 3));
        json_array_append_new(ees, x);
    }
    json_object_set_new(o, "end_effectors", ees);
    json_t *pairs = json_array();
    for (int k = 0; k < m->ncollision_ignore; k++) {
        json_t *pr = json_array();
        json_array_append_new(pr, kg_json_str(m->link[m->collision_ignore[k].a].name));
        json_array_append_new(pr, kg_json_str(m->link[m->collision_ignore[k].b].name));
        json_array_append_new(pairs, pr);
    }
    json_object_set_new(o, "collision_ignore", pairs);
    clip_info ci = clip_of(m, c);
    if (ci.present) {
        json_object_set_new(o, "frames", json_integer(c->motion->nframes));
        json_object_set_new(o, "frame_time", kg_json_num(c->motion->frame_time));
        json_object_set_new(o, "channels", json_integer(m->nq));
        json_object_set_new(o, "height", kg_json_num(ci.height));
        json_object_set_new(o, "unit_guess", json_string(ci.unit));
        json_object_set_new(o, "duration", kg_json_num(c->motion->nframes * c->motion->frame_time));
    }
    json_object_set_new(o, "diagnostics", kg_json_diags(&c->diags));
    return o;
}

static void info_text(const kg_model *m, const kg_cli *c, double mass) {
    printf("name:    %s\n", m->name);
    printf("format:  %s\n", m->format);
    printf("source:  %s\n", m->source ? m->source : "-");
    printf("links:   %d (root '%s')\n", m->nlink - m->nloop, m->link[0].name);
    printf("joints:  %d, %d dof", m->njoint, m->dof);
    for (int t = KG_JOINT_FIXED; t <= KG_JOINT_COMPOUND; t++) {
        int n = 0;
        for (int j = 0; j < m->njoint; j++) n += m->joint[j].type == (kg_joint_type)t;
        if (n) printf(", %d %s", n, kg_joint_type_name((kg_joint_type)t));
    }
    printf("\nmass:    %.6g kg\n", mass);
    printf("loops:   %d\n", m->nloop);
    for (int k = 0; k < m->nloop; k++) {
        const kg_loop *lp = &m->loop[k];
        printf("  cut at joint '%s' (virtual link '%s' closes on '%s'): links", m->joint[lp->cut_joint].name,
               m->link[lp->virtual_link].name, m->link[lp->real_link].name);
        for (int i = 0; i < lp->nlink; i++) printf(" %s", m->link[lp->links[i]].name);
        printf("\n");
    }
    clip_info ci = clip_of(m, c);
    if (ci.present)
        printf("motion:  %d frames of %d channels, frame time %.9g s (%.3f s); height %.6g (unit: %s)\n",
               c->motion->nframes, m->nq, c->motion->frame_time, c->motion->nframes * c->motion->frame_time,
               ci.height, ci.unit);
    if (m->nend_effector) {
        printf("end effectors: %d\n", m->nend_effector);
        for (int k = 0; k < m->nend_effector; k++) {
            const kg_end_effector *e = &m->end_effector[k];
            printf("  %s: %s -> %s\n", e->name, e->base >= 0 ? m->link[e->base].name : m->link[0].name,
                   m->link[e->tip].name);
        }
    }
    if (m->ncollision_ignore) printf("ignored collision pairs: %d\n", m->ncollision_ignore);
    printf("mimic:   %d\n", m->nmimic);
    for (int k = 0; k < m->nmimic; k++) {
        const kg_mimic *mm = &m->mimic[k];
        printf("  %s = %.17g * %s + %.17g\n", m->joint[mm->follower].name, mm->multiplier,
               m->joint[mm->leader].name, mm->offset);
    }
}

static int run(int argc, char **argv) {
    kg_cli c = {.command = "info"};
    int rc = kg_cli_parse(&c, &kg_cmd_info, argc, argv);
    if (rc >= 0) return rc;
    /* info shows all diagnostics itself (in the report or the JSON) */
    kg_load_options o = kg_cli_load_options(&c);
    kg_model *m = kg_load_clip(c.model_path, &o, &c.motion, &c.diags);
    int status = kg_cli_status(&c);
    rc = 0;
    if (!m) {
        if (c.json) {
            json_t *j = json_object();
            json_object_set_new(j, "source", kg_json_str(c.model_path));
            json_object_set_new(j, "diagnostics", kg_json_diags(&c.diags));
            rc = kg_json_print(j);
        } else {
            kg_cli_print_diags(&c, stderr, KG_INFO);
        }
        kg_cli_done(&c);
        return rc ? rc : KG_EXIT_ERRORS;
    }
    kg_data *d = kg_data_new(m);
    kg_fk(m, d);
    kg_mass_props mp;
    kg_mass_properties(m, d, &mp, NULL);
    if (kg_cli_mass_overflow(&c, &mp)) status = KG_EXIT_ERRORS;
    if (c.json) {
        rc = kg_json_print(info_json(m, &c, mp.mass));
    } else {
        info_text(m, &c, mp.mass);
        printf("diagnostics: %zu errors, %zu warnings, %zu notes\n", kg_diags_count(&c.diags, KG_ERROR),
               kg_diags_count(&c.diags, KG_WARNING), kg_diags_count(&c.diags, KG_INFO));
        kg_cli_print_diags(&c, stdout, KG_INFO);
    }
    kg_data_free(d);
    kg_model_free(m);
    kg_cli_done(&c);
    return rc ? rc : status;
}
