/* kinegraph fk MODEL: world pose of every link for a joint vector. */
#include <stdio.h>
#include <string.h>

#include "cli/common.h"
#include "core/fk.h"
#include "core/spatial.h"

static int run(int argc, char **argv);

const kg_cli_command kg_cmd_fk = {
    .name = "fk",
    .summary = "forward kinematics: world pose of every link",
    .usage = "kinegraph fk MODEL [--frame N] [--q JSON | --q-file FILE] [--base POSE] [options]\n",
    .description =
        "Forward kinematics: the world position (m) and rotation matrix of every link frame\n"
        "for the given joint values, with the root link at the base pose (identity unless\n"
        "--base). Mimic followers are computed from their leaders. For models with closed\n"
        "loops, the loop-closure residual of each loop is printed too.\n"
        "JSON: {\"links\": {NAME: {\"position\": [x,y,z], \"rotation\": [[3],[3],[3]]}},\n"
        "       \"loops\": [{\"cut_joint\", \"position_error\", \"rotation_error\"}]}\n",
    .common = KG_CLI_JSON | KG_CLI_MODEL | KG_CLI_POSE,
    .operands = KG_COMPLETE_FILE,
    .run = run,
};

static int run(int argc, char **argv) {
    kg_cli c = {.command = "fk"};
    int rc = kg_cli_parse(&c, &kg_cmd_fk, argc, argv);
    if (rc >= 0) return rc;
    kg_model *m;
    kg_data *d;
    rc = kg_cli_pose(&c, &m, &d);
    if (rc == 0) {
        if (c.json) {
            json_t *o = json_object(), *links = json_object();
            for (int i = 0; i < m->nlink; i++) {
                if (m->link[i].real >= 0) continue; /* virtual links: see loops */
                json_t *l = json_object();
                json_object_set_new(l, "position", kg_json_vec(d->link_pos + 3 * i, 3));
                json_object_set_new(l, "rotation", kg_json_mat3(d->link_rot + 9 * i));
                json_object_set_new(links, m->link[i].name, l);
            }
            json_object_set_new(o, "links", links);
            json_t *loops = json_array();
            for (int k = 0; k < m->nloop; k++) {
                double dp[3], da;
                kg_loop_residual(m, d, k, dp, &da);
                json_t *l = json_object();
                json_object_set_new(l, "cut_joint", kg_json_str(m->joint[m->loop[k].cut_joint].name));
                json_object_set_new(l, "position_error", kg_json_vec(dp, 3));
                json_object_set_new(l, "rotation_error", kg_json_num(da));
                json_array_append_new(loops, l);
            }
            json_object_set_new(o, "loops", loops);
            rc = kg_json_print(o);
        } else {
            printf("%-32s %12s %12s %12s %10s %10s %10s\n", "link", "x [m]", "y [m]", "z [m]", "roll", "pitch",
                   "yaw");
            for (int i = 0; i < m->nlink; i++) {
                if (m->link[i].real >= 0) continue;
                const double *p = d->link_pos + 3 * i;
                double rpy[3];
                kg_rot_to_rpy(d->link_rot + 9 * i, rpy);
                /* + 0.0 turns -0 into 0 for people */
                printf("%-32s %12.6f %12.6f %12.6f %10.6f %10.6f %10.6f\n", m->link[i].name, p[0] + 0.0, p[1] + 0.0,
                       p[2] + 0.0, rpy[0] + 0.0, rpy[1] + 0.0, rpy[2] + 0.0);
            }
            for (int k = 0; k < m->nloop; k++) {
                double dp[3], da;
                kg_loop_residual(m, d, k, dp, &da);
                printf("loop cut at '%s': position error %.3g m, rotation error %.3g rad\n",
                       m->joint[m->loop[k].cut_joint].name, kg_vec3_norm(dp), da);
            }
        }
    }
    if (rc == 0) rc = kg_cli_status(&c);
    kg_data_free(d);
    kg_model_free(m);
    kg_cli_done(&c);
    return rc;
}
