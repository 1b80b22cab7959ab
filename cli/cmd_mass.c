/* kinegraph mass MODEL: total mass, centre of mass, inertia, per-link masses;
 * with --from-geometry, the same from the links' geometry and a comparison. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/mass.h"
#include "cli/common.h"

typedef struct opts {
    int from_geometry;
    const char *density, *geometry;
} opts;

static int run(int argc, char **argv);

static const kg_cli_option options[] = {
    {"--from-geometry", KG_FLAG(opts, from_geometry, 1),
     .help = "mass properties from the geometry too"},
    {"--density", .value = "D", KG_TEXT(opts, density),
     .help = "kg/m^3 (default 1000, water)"},
    {"--geometry", .value = "ROLE", KG_TEXT(opts, geometry), .complete = "collision visual",
     .help = "the geometry to use: collision (default) or visual; a link\n"
             "without geometry of that role uses the other"},
    {0},
};

const kg_cli_command kg_cmd_mass = {
    .name = "mass",
    .summary = "total mass, centre of mass and inertia",
    .usage = "kinegraph mass MODEL [--from-geometry [--density D] [--geometry collision|visual]]\n"
             "                      [--frame N] [--q JSON | --q-file FILE] [--base POSE] [options]\n",
    .description =
        "Mass properties at the given joint values: total mass (kg), centre of mass (world,\n"
        "m), inertia about the centre of mass in world axes (kg m^2), and each link's mass\n"
        "and world centre of mass. Uses the declared inertials; virtual links are massless.\n"
        "JSON: {\"mass\", \"com\": [3], \"inertia\": [[3],[3],[3]], \"links\": [{\"name\", \"mass\", \"com\": [3]}]}\n"
        "(com is null when the total mass is zero)\n"
        "\n"
        "With --from-geometry, also the mass properties of the links' solid geometry at a\n"
        "uniform density: primitives exactly, meshes as closed surfaces (signed tetrahedra;\n"
        "a mesh that is not closed gets a warning, overlapping geometries count twice), and\n"
        "how each declared inertial compares: implied density (declared mass / volume), the\n"
        "declared COM's distance to the geometry's centroid (m, and over the geometry's RMS\n"
        "radius), and declared over geometric inertia at the declared mass (trace, and each\n"
        "principal moment; 1 when they agree).\n"
        "JSON adds: \"geometry\": {\"density\", \"prefer\", \"volume\", \"mass\", \"com\", \"inertia\",\n"
        "\"missing_meshes\", \"links_without_geometry\"}, and\n"
        "per link \"geometry\": {\"source\", \"geoms\", \"volume\", \"mass\", \"centroid\", \"inertia\",\n"
        "\"closed\", \"open_edges\", \"volume_uncertainty\", \"inside_out\", \"missing_meshes\"} (centroid and\n"
        "inertia in the link frame, inertia about the centroid at the density; closed: no open\n"
        "edges, or cracks that leave the volume uncertain by at most 0.1 %) and\n"
        "\"check\": {\"implied_density\",\n"
        "\"com_offset\", \"com_offset_ratio\", \"inertia_ratio\", \"principal_ratio\": [3]}\n"
        "(null where undefined: no declared mass, no volume)\n",
    .options = options,
    .common = KG_CLI_JSON | KG_CLI_MODEL | KG_CLI_POSE,
    .operands = KG_COMPLETE_FILE,
    .run = run,
};

/* The geometric mass properties: per-link arrays for kg_mass_combine. */
typedef struct geometric {
    double density;
    int prefer;
    kg_link_solid *solid;
    double *mass, *com, *inertia;
    kg_mass_props total;
    double volume;
} geometric;

static int geometric_compute(kg_cli *c, const kg_model *m, const kg_data *d, geometric *g) {
    int n = m->nlink;
    g->solid = calloc((size_t)n, sizeof *g->solid);
    g->mass = calloc((size_t)n, sizeof *g->mass);
    g->com = calloc((size_t)n * 3, sizeof *g->com);
    g->inertia = calloc((size_t)n * 9, sizeof *g->inertia);
    kg_mesh_cache *mc = kg_mesh_cache_new();
    size_t before = c->diags.count;
    int rc = g->solid && g->mass && g->com && g->inertia && mc ? kg_link_solids(m, mc, g->prefer, g->solid, &c->diags) : -1;
    kg_mesh_cache_free(mc);
    kg_cli_print_diags_from(c, stderr, c->verbose ? KG_INFO : KG_WARNING, before);
    if (rc != 0) {
        fprintf(stderr, "kinegraph mass: out of memory\n");
        return KG_EXIT_ERRORS;
    }
    g->volume = 0;
    for (int i = 0; i < n; i++) {
        const kg_solid *s = &g->solid[i].solid;
        g->volume += s->volume;
        g->mass[i] = g->density * s->volume;
        memcpy(g->com + 3 * i, s->centroid, sizeof s->centroid);
        for (int k = 0; k < 9; k++) g->inertia[9 * i + k] = g->density * s->inertia[k];
    }
    kg_mass_combine(m, d, g->mass, g->com, g->inertia, &g->total, NULL);
    return 0;
}

static void geometric_free(geometric *g) {
    free(g->solid);
    free(g->mass);
    free(g->com);
    free(g->inertia);
}

static json_t *link_geometry_json(const geometric *g, int i) {
    const kg_link_solid *ls = &g->solid[i];
    json_t *o = json_object();
    json_object_set_new(o, "source", kg_json_str(kg_geom_role_name(ls->role)));
    json_object_set_new(o, "geoms", json_integer(ls->ngeom));
    json_object_set_new(o, "volume", kg_json_num(ls->solid.volume));
    json_object_set_new(o, "mass", kg_json_num(g->mass[i]));
    json_object_set_new(o, "centroid", ls->solid.volume > 0 ? kg_json_vec(ls->solid.centroid, 3) : json_null());
    json_object_set_new(o, "inertia", kg_json_mat3(g->inertia + 9 * i));
    double unc = ls->solid.volume > 0 ? ls->uncertainty / ls->solid.volume : 0;
    json_object_set_new(o, "closed", json_boolean(ls->open_edges == 0 || unc <= KG_MESH_CRACK));
    json_object_set_new(o, "open_edges", json_integer(ls->open_edges));
    json_object_set_new(o, "volume_uncertainty", kg_json_num(unc));
    json_object_set_new(o, "inside_out", json_integer(ls->inside_out));
    json_object_set_new(o, "missing_meshes", json_integer(ls->nmissing));
    return o;
}

static json_t *check_json(const kg_inertial_check *k) {
    json_t *o = json_object();
    json_object_set_new(o, "implied_density", kg_json_num(k->implied_density));
    json_object_set_new(o, "com_offset", kg_json_num(k->com_offset));
    json_object_set_new(o, "com_offset_ratio", kg_json_num(k->com_offset_ratio));
    json_object_set_new(o, "inertia_ratio", kg_json_num(k->inertia_ratio));
    json_object_set_new(o, "principal_ratio", kg_json_vec(k->principal_ratio, 3));
    return o;
}

/* A number, or "-" when it is undefined (NaN). */
static void fmt_or_dash(char out[32], const char *fmt, double v) {
    if (isnan(v)) snprintf(out, 32, "-");
    else snprintf(out, 32, fmt, v);
}

/* Without a title, the lines are not indented (the plain output of earlier versions). */
static void print_props(const char *title, const kg_mass_props *mp) {
    const char *in = title ? "  " : "";
    if (title) printf("%s\n", title);
    printf("%smass:    %.9g kg\n", in, mp->mass);
    if (mp->mass > 0) printf("%scom:     %.9f %.9f %.9f m\n", in, mp->com[0], mp->com[1], mp->com[2]);
    else printf("%scom:     undefined (zero mass)\n", in);
    printf("%sinertia about the com, world axes (kg m^2):\n", in);
    for (int r = 0; r < 3; r++)
        printf("%s  %14.9g %14.9g %14.9g\n", in, mp->inertia[3 * r], mp->inertia[3 * r + 1], mp->inertia[3 * r + 2]);
}

/* --density and --geometry into g: 0, or KG_EXIT_USAGE after saying why. */
static int settings(const opts *o, geometric *g) {
    if (o->density) {
        char *end;
        g->density = strtod(o->density, &end);
        if (*end || end == o->density || !(g->density > 0) || !isfinite(g->density))
            return kg_cli_usage_error("mass", "--density needs a positive number of kg/m^3, not '%s'", o->density);
    }
    if (o->geometry) {
        if (!strcmp(o->geometry, "visual")) g->prefer = KG_VISUAL;
        else if (strcmp(o->geometry, "collision"))
            return kg_cli_usage_error("mass", "--geometry is 'collision' or 'visual', not '%s'", o->geometry);
    }
    if ((o->density || o->geometry) && !o->from_geometry)
        return kg_cli_usage_error("mass", "--density and --geometry go with --from-geometry");
    return 0;
}

/* The whole model's geometric mass properties for --json. */
static json_t *geometric_json(const kg_model *m, const geometric *g) {
    json_t *go = json_object();
    json_object_set_new(go, "density", kg_json_num(g->density));
    json_object_set_new(go, "prefer", json_string(kg_geom_role_name(g->prefer)));
    json_object_set_new(go, "volume", kg_json_num(g->volume));
    json_object_set_new(go, "mass", kg_json_num(g->total.mass));
    json_object_set_new(go, "com", g->total.mass > 0 ? kg_json_vec(g->total.com, 3) : json_null());
    json_object_set_new(go, "inertia", kg_json_mat3(g->total.inertia));
    int missing = 0, none = 0;
    for (int i = 0; i < m->nlink; i++) {
        missing += g->solid[i].nmissing;
        none += m->link[i].real < 0 && g->solid[i].role < 0;
    }
    json_object_set_new(go, "missing_meshes", json_integer(missing));
    json_object_set_new(go, "links_without_geometry", json_integer(none));
    return go;
}

/* The mass properties mp, the links' com lc and, with g (--from-geometry), the
 * geometric ones for --json. Returns an exit code. */
static int print_json(const kg_model *m, const kg_mass_props *mp, const double *lc, const geometric *g) {
    json_t *out = json_object(), *links = json_array();
    json_object_set_new(out, "mass", kg_json_num(mp->mass));
    json_object_set_new(out, "com", mp->mass > 0 ? kg_json_vec(mp->com, 3) : json_null());
    json_object_set_new(out, "inertia", kg_json_mat3(mp->inertia));
    for (int i = 0; i < m->nlink; i++) {
        if (m->link[i].real >= 0) continue;
        json_t *l = json_object();
        json_object_set_new(l, "name", kg_json_str(m->link[i].name));
        json_object_set_new(l, "mass", kg_json_num(m->link[i].mass));
        json_object_set_new(l, "com", kg_json_vec(lc + 3 * i, 3));
        if (g) {
            kg_inertial_check k;
            kg_inertial_compare(&m->link[i], &g->solid[i].solid, &k);
            json_object_set_new(l, "geometry", link_geometry_json(g, i));
            json_object_set_new(l, "check", check_json(&k));
        }
        json_array_append_new(links, l);
    }
    json_object_set_new(out, "links", links);
    if (g) json_object_set_new(out, "geometry", geometric_json(m, g));
    return kg_json_print(out);
}

/* --from-geometry as text: each link's geometry against its declared inertial. */
static void print_checks(const kg_model *m, const geometric *g) {
    printf("\n%-32s %-9s %12s %10s %12s %11s %8s %7s\n", "link", "geometry", "volume [m3]", "closed", "density",
           "com offset", "ratio", "inertia");
    for (int i = 0; i < m->nlink; i++) {
        if (m->link[i].real >= 0) continue;
        const kg_link_solid *ls = &g->solid[i];
        kg_inertial_check k;
        kg_inertial_compare(&m->link[i], &ls->solid, &k);
        const char *closed = ls->role < 0 ? "-"
                             : !ls->open_edges ? "yes"
                             : ls->uncertainty <= KG_MESH_CRACK * ls->solid.volume ? "cracks"
                                                                                   : "no";
        char v[4][32];
        fmt_or_dash(v[0], "%12.6g", k.implied_density);
        fmt_or_dash(v[1], "%11.4g", k.com_offset);
        fmt_or_dash(v[2], "%8.3g", k.com_offset_ratio);
        fmt_or_dash(v[3], "%7.3g", k.inertia_ratio);
        printf("%-32s %-9s %12.6g %10s %12s %11s %8s %7s\n", m->link[i].name,
               ls->role < 0 ? "none" : kg_geom_role_name(ls->role), ls->solid.volume, closed, v[0], v[1], v[2], v[3]);
    }
}

/* The same as print_json, as text. */
static void print_text(const kg_model *m, const kg_mass_props *mp, const double *lc, const geometric *g) {
    print_props(g ? "declared inertials:" : NULL, mp);
    if (g) {
        char title[128];
        snprintf(title, sizeof title, "geometry at %g kg/m^3 (%s preferred), volume %.6g m^3:", g->density,
                 kg_geom_role_name(g->prefer), g->volume);
        print_props(title, &g->total);
    }
    printf("%-32s %12s %12s %12s %12s\n", "link", "mass [kg]", "com x", "com y", "com z");
    for (int i = 0; i < m->nlink; i++) {
        if (m->link[i].real >= 0) continue;
        printf("%-32s %12.6g %12.6f %12.6f %12.6f\n", m->link[i].name, m->link[i].mass, lc[3 * i], lc[3 * i + 1],
               lc[3 * i + 2]);
    }
    if (g) print_checks(m, g);
}

static int run(int argc, char **argv) {
    opts o = {0};
    kg_cli c = {.command = "mass", .ctx = &o};
    int rc = kg_cli_parse(&c, &kg_cmd_mass, argc, argv);
    if (rc >= 0) return rc;
    geometric g = {.density = 1000, .prefer = KG_COLLISION};
    if ((rc = settings(&o, &g)) != 0) return rc;
    kg_model *m;
    kg_data *d;
    rc = kg_cli_pose(&c, &m, &d);
    if (rc == 0 && o.from_geometry) rc = geometric_compute(&c, m, d, &g);
    if (rc == 0) {
        kg_mass_props mp;
        double *lc = malloc((size_t)m->nlink * 3 * sizeof *lc);
        kg_mass_properties(m, d, &mp, lc);
        size_t before = c.diags.count;
        if (!kg_cli_mass_overflow(&c, &mp) && o.from_geometry) kg_cli_mass_overflow(&c, &g.total); /* exit 1 */
        kg_cli_print_diags_from(&c, stderr, KG_ERROR, before);
        if (c.json) rc = print_json(m, &mp, lc, o.from_geometry ? &g : NULL);
        else print_text(m, &mp, lc, o.from_geometry ? &g : NULL);
        free(lc);
    }
    if (rc == 0) rc = kg_cli_status(&c);
    geometric_free(&g);
    kg_data_free(d);
    kg_model_free(m);
    kg_cli_done(&c);
    return rc;
}
