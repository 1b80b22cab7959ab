/* kinegraph jacobian MODEL --tip LINK: the geometric Jacobian and manipulability. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/jacobian.h"
#include "analysis/manipulability.h"
#include "cli/common.h"

typedef struct opts {
    const char *tip, *base, *point;
} opts;

static int run(int argc, char **argv);

static const kg_cli_option options[] = {
    {"--tip", .value = "LINK", KG_TEXT(opts, tip),
     .help = "the link whose motion is wanted (required)"},
    {"--base", .value = "LINK", KG_TEXT(opts, base),
     .help = "measure relative to this link (default: the world)"},
    {"--point", .value = "X,Y,Z", KG_TEXT(opts, point),
     .help = "reference point in the tip's frame (m; default: its origin)"},
    {0},
};

const kg_cli_command kg_cmd_jacobian = {
    .name = "jacobian",
    .summary = "geometric Jacobian of a link, manipulability, velocity ellipsoids",
    .usage = "kinegraph jacobian MODEL --tip LINK [--base LINK] [--point X,Y,Z] [--q JSON] [options]\n",
    .description =
        "The geometric Jacobian of link LINK (at its origin, or at --point given in its frame)\n"
        "relative to --base (default: the world), at the given joint values: 6 rows, the\n"
        "linear velocity (m/s) of the reference point then the angular velocity (rad/s), in\n"
        "world axes, one column per joint coordinate that moves the tip (a mimic follower\n"
        "moves with its leader's column; a floating joint has x, y, z, rx, ry, rz). For a model\n"
        "with closed loops, the columns are the generalized coordinates with every loop\n"
        "closed (the other coordinates follow them). Also the manipulability: Yoshikawa's w\n"
        "(the product of the singular values: sqrt(det(J J^T)) for 6 or more columns), the\n"
        "singular values, the inverse condition number, and the translational and rotational\n"
        "velocity ellipsoids (axes and semi-axis lengths).\n"
        "JSON: {\"tip\", \"base\", \"point\": [3], \"joints\": [names], \"J\": [6 rows], \"manipulability\",\n"
        "       \"singular_values\", \"inverse_condition\", \"ellipsoids\": {\"translation\": {\"axes\":\n"
        "       [[3],[3],[3]], \"lengths\": [3]}, \"rotation\": {...}}, \"closure\" (models with loops:\n"
        "       {\"rank\", \"residual\", \"dependent\": [names]})}\n",
    .options = options,
    .common = KG_CLI_JSON | KG_CLI_MODEL | KG_CLI_POSE,
    .operands = KG_COMPLETE_FILE,
    .run = run,
};

static json_t *ellipsoid_json(const kg_ellipsoid *e) {
    json_t *o = json_object(), *axes = json_array();
    for (int k = 0; k < 3; k++) {
        double a[3] = {e->axes[k], e->axes[3 + k], e->axes[6 + k]};
        json_array_append_new(axes, kg_json_vec(a, 3));
    }
    json_object_set_new(o, "axes", axes);
    json_object_set_new(o, "lengths", kg_json_vec(e->length, 3));
    return o;
}

/* A model without loops: the columns of J (6 x n) that move the tip, into cols
 * (*ncol of them); returns their values, 6 x *ncol. */
static double *tree_columns(const kg_model *m, int tip, int base, const double *J, int *cols, int *ncol) {
    const int n = m->dof;
    unsigned char *mask = malloc((size_t)n + 1);
    kg_jacobian_columns(m, tip, base, mask);
    for (int k = 0; k < n; k++)
        if (mask[k]) cols[(*ncol)++] = k;
    free(mask);
    double *Js = malloc((size_t)6 * (*ncol + 1) * sizeof *Js);
    for (int r = 0; r < 6; r++)
        for (int k = 0; k < *ncol; k++) Js[r * *ncol + k] = J[r * n + cols[k]];
    return Js;
}

/* A model with its loops closed by cl: J_G = J W, keeping the generalized
 * coordinates that move the tip (their model columns into cols, *ncol of
 * them); returns their values, 6 x *ncol. */
static double *closed_columns(const kg_model *m, const kg_closure *cl, const double *J, int *cols, int *ncol) {
    const int n = m->dof;
    double *JG = calloc((size_t)6 * (cl->ngen + 1), sizeof *JG), big = 0;
    for (int r = 0; r < 6; r++)
        for (int g = 0; g < cl->ngen; g++) {
            double v = 0;
            for (int k = 0; k < n; k++) v += J[r * n + k] * cl->W[(size_t)k * cl->ngen + g];
            JG[r * cl->ngen + g] = v;
            big = fmax(big, fabs(v));
        }
    for (int g = 0; g < cl->ngen; g++) {
        int used = 0;
        for (int r = 0; r < 6; r++) used |= fabs(JG[r * cl->ngen + g]) > 1e-12 * big;
        if (used) cols[(*ncol)++] = g;
    }
    double *Js = malloc((size_t)6 * (*ncol + 1) * sizeof *Js);
    for (int r = 0; r < 6; r++)
        for (int k = 0; k < *ncol; k++) Js[r * *ncol + k] = JG[r * cl->ngen + cols[k]];
    for (int k = 0; k < *ncol; k++) cols[k] = cl->gen[cols[k]]; /* back to model columns for names */
    free(JG);
    return Js;
}

/* The loop closure for --json: its rank, residual and dependent coordinates. */
static json_t *closure_json(const kg_model *m, const kg_closure *cl) {
    char name[600];
    json_t *cj = json_object(), *dep = json_array();
    json_object_set_new(cj, "rank", json_integer(cl->rank));
    json_object_set_new(cj, "residual", kg_json_num(cl->residual));
    for (int k = 0, g = 0; k < m->dof; k++) {
        if (g < cl->ngen && cl->gen[g] == k) {
            g++;
            continue;
        }
        json_array_append_new(dep, kg_json_str(kg_jacobian_column_name(m, k, name, sizeof name)));
    }
    json_object_set_new(cj, "dependent", dep);
    return cj;
}

/* The Jacobian Js (6 x ncol, columns cols) at point pw for --json. Returns an exit code. */
static int print_json(const kg_model *m, int tip, int base, const double *pw, const int *cols, int ncol, const double *Js,
                      const kg_manipulability *mp, const kg_closure *cl) {
    char name[600];
    json_t *out = json_object(), *names = json_array(), *rows = json_array();
    json_object_set_new(out, "tip", kg_json_str(m->link[tip].name));
    json_object_set_new(out, "base", base >= 0 ? kg_json_str(m->link[base].name) : json_null());
    json_object_set_new(out, "point", kg_json_vec(pw, 3));
    for (int k = 0; k < ncol; k++)
        json_array_append_new(names, kg_json_str(kg_jacobian_column_name(m, cols[k], name, sizeof name)));
    json_object_set_new(out, "joints", names);
    for (int r = 0; r < 6; r++) json_array_append_new(rows, kg_json_vec(Js + r * ncol, ncol));
    json_object_set_new(out, "J", rows);
    json_object_set_new(out, "manipulability", kg_json_num(mp->w));
    json_object_set_new(out, "singular_values", kg_json_vec(mp->sigma, mp->nsigma));
    json_object_set_new(out, "inverse_condition", kg_json_num(mp->inverse_condition));
    json_t *ell = json_object();
    json_object_set_new(ell, "translation", ellipsoid_json(&mp->translation));
    json_object_set_new(ell, "rotation", ellipsoid_json(&mp->rotation));
    json_object_set_new(out, "ellipsoids", ell);
    if (m->nloop) json_object_set_new(out, "closure", closure_json(m, cl));
    return kg_json_print(out);
}

/* The Jacobian as text: a line per column, then the manipulability. */
static void print_text(const kg_model *m, int tip, int base, const double *pw, const int *cols, int ncol, const double *Js,
                       const kg_manipulability *mp, const kg_closure *cl) {
    char name[600];
    printf("Jacobian of '%s' at (%.6f, %.6f, %.6f) relative to %s%s; a line per column: vx vy vz wx wy wz (world)\n",
           m->link[tip].name, pw[0], pw[1], pw[2], base >= 0 ? "link " : "the world", base >= 0 ? m->link[base].name : "");
    for (int k = 0; k < ncol; k++) {
        printf("%-28s", kg_jacobian_column_name(m, cols[k], name, sizeof name));
        for (int r = 0; r < 6; r++) printf(" %11.6f", Js[r * ncol + k] + 0.0);
        printf("\n");
    }
    printf("manipulability w = %.9g, inverse condition = %.9g\nsingular values:", mp->w, mp->inverse_condition);
    for (int k = 0; k < mp->nsigma; k++) printf(" %.9g", mp->sigma[k]);
    printf("\n");
    if (m->nloop) printf("loops closed: rank %d, %d generalized coordinates\n", cl->rank, cl->ngen);
}

/* The Jacobian of tip's point (in its frame) relative to base at d's pose,
 * its manipulability, and the result. Returns an exit code. */
static int jacobian(const kg_cli *c, const kg_model *m, kg_data *d, int tip, int base, const double *point) {
    int rc = 0;
    const int n = m->dof;
    double *J = malloc((size_t)6 * n * sizeof *J + 1);
    kg_jacobian_twists(m, d);
    kg_jacobian(m, d, tip, point, base, J);
    /* the columns to show, and their values */
    int ncol = 0, *cols = malloc((size_t)(n + 1) * sizeof *cols);
    double *Js = NULL;
    kg_closure cl = {0};
    if (m->nloop == 0) {
        Js = tree_columns(m, tip, base, J, cols, &ncol);
    } else if (kg_closure_solve(m, d, &cl) == 0) {
        Js = closed_columns(m, &cl, J, cols, &ncol);
    } else {
        fprintf(stderr, "kinegraph jacobian: the loop closure could not be solved\n");
        rc = KG_EXIT_ERRORS;
    }
    kg_manipulability mp;
    if (rc == 0 && kg_manipulability_svd(Js, ncol, ncol, &mp) != 0) rc = KG_EXIT_ERRORS;
    double pw[3];
    for (int a = 0; a < 3; a++)
        pw[a] = d->link_pos[3 * tip + a] + d->link_rot[9 * tip + 3 * a] * point[0] +
                d->link_rot[9 * tip + 3 * a + 1] * point[1] + d->link_rot[9 * tip + 3 * a + 2] * point[2];
    if (rc == 0 && c->json) rc = print_json(m, tip, base, pw, cols, ncol, Js, &mp, &cl);
    else if (rc == 0) print_text(m, tip, base, pw, cols, ncol, Js, &mp, &cl);
    kg_closure_free(&cl);
    free(J);
    free(Js);
    free(cols);
    return rc;
}

static int run(int argc, char **argv) {
    opts o = {0};
    kg_cli c = {.command = "jacobian", .ctx = &o};
    int rc = kg_cli_parse(&c, &kg_cmd_jacobian, argc, argv);
    if (rc >= 0) return rc;
    if (!o.tip) return kg_cli_usage_error(c.command, "which link? (--tip LINK)");
    double point[3] = {0, 0, 0};
    if (o.point && kg_cli_numbers(&c, "--point", o.point, point, 3)) return KG_EXIT_USAGE;
    kg_model *m;
    kg_data *d;
    rc = kg_cli_pose(&c, &m, &d);
    int tip = -1, base = -1;
    if (rc == 0 && (tip = kg_cli_link(&c, m, "--tip", o.tip)) < 0) rc = KG_EXIT_USAGE;
    if (rc == 0 && o.base && (base = kg_cli_link(&c, m, "--base", o.base)) < 0) rc = KG_EXIT_USAGE;
    if (rc == 0) rc = jacobian(&c, m, d, tip, base, point);
    if (rc == 0) rc = kg_cli_status(&c);
    kg_data_free(d);
    kg_model_free(m);
    kg_cli_done(&c);
    return rc;
}
