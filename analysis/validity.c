/* Model validity checks (see validity.h for the list and the thresholds).
 *
 * Each check reads the immutable model and adds diagnostics; none changes
 * anything. Thresholds come from the tools users compare us with: the inertia
 * tolerance of gz-math and Drake, Pinocchio's smallest mass, the density range
 * and the factor of ten of the formats-and-validity survey. */
#include "analysis/validity.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/collision.h"
#include "analysis/jacobian.h"
#include "analysis/mass.h"
#include "analysis/measure.h"
#include "core/arena.h"
#include "core/data.h"
#include "core/fk.h"
#include "core/spatial.h"
#include "exporters/exporters.h"
#include "formats/units.h"

#define PI 3.14159265358979323846
#define MASS_TINY 1e-5         /* kg: Pinocchio's smallest mass for a moving body */
#define DENSITY_LOW 100.0      /* kg/m^3: lighter than any solid material (foam is ~30-100) */
#define DENSITY_HIGH 20000.0   /* kg/m^3: heavier than tungsten (19 300) */
#define INERTIA_FACTOR 10.0    /* declared against geometric inertia: beyond this factor either way */
#define COM_OUTSIDE 2.0        /* COM offset in RMS radii of the geometry: beyond this it is outside */
#define ANGLE_JUMP (PI / 2)    /* rad between two frames: no joint of a body turns that fast */
#define MAX_JUMP_FINDINGS 20   /* per clip; the rest are counted in one more finding */

/* Whether anything moves the link relative to the root: a joint with
 * coordinates on its path up. */
static int link_moves(const kg_model *m, int i) {
    for (; i > 0; i = m->link[i].parent)
        if (m->joint[m->link[i].joint].nq > 0) return 1;
    return 0;
}

/* ---- joints ---- */

static void check_joints(const kg_model *m, kg_diags *d) {
    const char *F = m->source;
    for (int j = 0; j < m->njoint; j++) {
        const kg_joint *J = &m->joint[j];
        if (J->nq == 0) continue;
        if (kg_joint_is_limited(J) && J->lower == J->upper)
            kg_diag_add(d, KG_WARNING, "joint.limit_equal", F, J->line, "limit",
                        "%s joint '%s' has lower == upper (%g): it cannot move, like a fixed joint",
                        kg_joint_type_name(J->type), J->name, J->lower);
        static const char *const what[2] = {"effort", "velocity"};
        double v[2] = {J->effort, J->velocity};
        for (int k = 0; k < 2; k++) {
            if (isnan(v[k])) continue; /* the format has no such value */
            if (v[k] < 0)
                kg_diag_add(d, KG_ERROR, k ? "joint.velocity_negative" : "joint.effort_negative", F, J->line, "limit",
                            "joint '%s' has a negative %s limit (%g)", J->name, what[k], v[k]);
            else if (v[k] == 0 && J->mimic < 0)
                kg_diag_add(d, KG_WARNING, k ? "joint.velocity_zero" : "joint.effort_zero", F, J->line, "limit",
                            "joint '%s' has a zero %s limit: a controller or simulator honouring it cannot move the "
                            "joint", J->name, what[k]);
        }
        if (J->has_safety && kg_joint_is_limited(J) && isfinite(J->lower) && isfinite(J->upper) &&
            (J->soft_lower < J->lower - 1e-12 || J->soft_upper > J->upper + 1e-12))
            kg_diag_add(d, KG_WARNING, "joint.soft_limit_outside", F, J->line, "safety_controller",
                        "joint '%s': soft limits [%g, %g] reach outside the hard limits [%g, %g]", J->name,
                        J->soft_lower, J->soft_upper, J->lower, J->upper);
        if (J->type == KG_JOINT_REVOLUTE && J->has_limit && J->lower <= J->upper &&
            ((isfinite(J->lower) && fabs(J->lower) > 2 * PI + 1e-6) || (isfinite(J->upper) && fabs(J->upper) > 2 * PI + 1e-6)))
            kg_diag_add(d, KG_WARNING, "joint.limit_degrees", F, J->line, "limit",
                        "revolute joint '%s' has limits [%g, %g] rad, beyond a full turn: degrees written as "
                        "radians? (as degrees: [%.4g, %.4g] rad)", J->name, J->lower, J->upper, J->lower * PI / 180,
                        J->upper * PI / 180);
    }
}

/* ---- inertia ---- */

static void check_inertia(const kg_model *m, kg_diags *d) {
    const char *F = m->source;
    int ninertial = 0;
    for (int i = 0; i < m->nlink; i++) ninertial += m->link[i].has_inertial;
    if (ninertial == 0) {
        if (strcmp(m->format, "bvh") != 0 && m->njoint > 0)
            kg_diag_add(d, KG_INFO, "model.no_inertials", F, 0, NULL,
                        "no link has mass and inertia: a kinematic model (fine to draw, not to simulate or balance)");
        return;
    }
    for (int i = 1; i < m->nlink; i++) {
        const kg_link *L = &m->link[i];
        if (L->real >= 0) continue;
        int moving_joint = m->joint[L->joint].nq > 0;
        if (!L->has_inertial) {
            if (moving_joint)
                kg_diag_add(d, KG_WARNING, "link.no_inertial", F, L->line, "link",
                            "link '%s' has no <inertial> but moves (joint '%s'): simulators drop it or give it "
                            "an invented mass", L->name, m->joint[L->joint].name);
            continue;
        }
        const kg_inertial *in = &L->inertial;
        if (in->mass == 0 && moving_joint)
            kg_diag_add(d, KG_WARNING, "link.mass_zero", F, L->line, "mass",
                        "link '%s' has zero mass but moves (joint '%s'): simulators drop it with what hangs "
                        "below it (sdformat) or refuse it (MuJoCo)", L->name, m->joint[L->joint].name);
        else if (in->mass > 0 && in->mass < MASS_TINY && link_moves(m, i))
            kg_diag_add(d, KG_WARNING, "link.mass_tiny", F, L->line, "mass",
                        "link '%s' has a mass of %g kg, below %g kg: mass matrices become ill-conditioned",
                        L->name, in->mass, MASS_TINY);
    }
    for (int i = 0; i < m->nlink; i++) {
        const kg_link *L = &m->link[i];
        if (!L->has_inertial || L->inertial.mass < 0) continue;
        const double *c = L->inertial.inertia;
        if (c[0] == 0 && c[1] == 0 && c[2] == 0 && c[3] == 0 && c[4] == 0 && c[5] == 0) {
            if (L->inertial.mass > 0 && i > 0 && m->joint[L->joint].nq > 0)
                kg_diag_add(d, KG_WARNING, "link.inertia_zero", F, L->line, "inertia",
                            "link '%s' has mass %g kg but zero inertia (a point mass): a rotating body needs "
                            "moments of inertia", L->name, L->inertial.mass);
            continue;
        }
        double I[9], mom[3], r[9];
        kg_inertia_from6(I, c);
        if (kg_inertia_principal(I, mom, r) != 0) continue; /* not finite: the builder said so */
        /* gz-math MassMatrix3::Epsilon and Drake: 10 machine epsilons of half the trace */
        double eps = 10 * DBL_EPSILON * 0.5 * fabs(I[0] + I[4] + I[8]);
        if (mom[0] < -eps)
            kg_diag_add(d, KG_ERROR, "link.inertia_not_positive", F, L->line, "inertia",
                        "inertia of link '%s' is not positive definite: principal moments %g, %g, %g kg m^2",
                        L->name, mom[0], mom[1], mom[2]);
        else if (mom[0] + mom[1] < mom[2] - eps)
            kg_diag_add(d, KG_ERROR, "link.inertia_triangle", F, L->line, "inertia",
                        "inertia of link '%s' breaks the triangle inequality: principal moments %g + %g < %g "
                        "kg m^2; no rigid body has it", L->name, mom[0], mom[1], mom[2]);
    }
}

/* ---- geometry and names ---- */

static void check_geometry(const kg_model *m, kg_diags *d) {
    const char *F = m->source;
    for (int g = 0; g < m->ngeom; g++) {
        const kg_geom *G = &m->geom[g];
        const char *link = m->link[G->link].name;
        int bad = 0;
        switch (G->type) {
        case KG_GEOM_BOX: bad = !(G->size[0] > 0 && G->size[1] > 0 && G->size[2] > 0); break;
        case KG_GEOM_SPHERE:
            bad = !(G->size[0] >= 0);
            if (G->size[0] == 0) /* a point: Drake's files mark a foot's contact points so */
                kg_diag_add(d, KG_INFO, "geometry.point", F, G->line, "sphere",
                            "sphere of link '%s' (%s) has radius 0: a point, with no volume to collide or draw", link,
                            kg_geom_role_name(G->role));
            break;
        case KG_GEOM_CYLINDER: bad = !(G->size[0] > 0 && G->size[1] > 0); break;
        case KG_GEOM_CAPSULE: bad = !(G->size[0] > 0 && G->size[1] >= 0); break;
        case KG_GEOM_MESH:
            if (G->scale[0] == 0 || G->scale[1] == 0 || G->scale[2] == 0)
                kg_diag_add(d, KG_ERROR, "geometry.scale_zero", F, G->line, "mesh",
                            "mesh '%s' of link '%s' (%s) has a zero scale (%g %g %g): it is flat", G->mesh_uri,
                            link, kg_geom_role_name(G->role), G->scale[0], G->scale[1], G->scale[2]);
            else if (G->scale[0] < 0 || G->scale[1] < 0 || G->scale[2] < 0)
                kg_diag_add(d, KG_WARNING, "geometry.scale_negative", F, G->line, "mesh",
                            "mesh '%s' of link '%s' (%s) has a negative scale (%g %g %g): it is mirrored, and "
                            "%s", G->mesh_uri, link, kg_geom_role_name(G->role), G->scale[0], G->scale[1], G->scale[2],
                            G->scale[0] * G->scale[1] * G->scale[2] < 0 ? "its triangles face inwards"
                                                                         : "some tools ignore the sign");
            break;
        }
        if (bad)
            kg_diag_add(d, KG_ERROR, "geometry.size_invalid", F, G->line, kg_geom_type_name(G->type),
                        "%s of link '%s' (%s) has a size that is not positive (%g %g %g)",
                        kg_geom_type_name(G->type), link, kg_geom_role_name(G->role), G->size[0], G->size[1], G->size[2]);
    }
}

static void check_name(const kg_model *m, const char *kind, const char *name, int line, kg_diags *d) {
    if (!name || !*name) return;
    for (const unsigned char *p = (const unsigned char *)name; *p; p++)
        if (*p <= ' ' || *p == 0x7f) {
            kg_diag_add(d, KG_WARNING, "name.whitespace", m->source, line, kind,
                        "%s name '%s' contains white space or control characters: BVH cannot hold it and ROS "
                        "tools split frame names on it", kind, name);
            return;
        }
    if (strstr(name, "::"))
        kg_diag_add(d, KG_WARNING, "name.scope", m->source, line, kind,
                    "%s name '%s' contains '::', which SDFormat reserves for scopes", kind, name);
}

static void check_names(const kg_model *m, kg_diags *d) {
    for (int i = 0; i < m->nlink; i++)
        if (m->link[i].real < 0) check_name(m, "link", m->link[i].name, m->link[i].line, d);
    for (int j = 0; j < m->njoint; j++) check_name(m, "joint", m->joint[j].name, m->joint[j].line, d);
}

/* ---- plausibility against the geometry, and mesh files ---- */

/* The largest extent of the link origins at the rest pose: the robot's size. */
static double model_size(const kg_model *m, const kg_data *d) {
    double lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY}, s = 0;
    for (int i = 0; i < m->nlink; i++)
        for (int a = 0; a < 3; a++) {
            lo[a] = fmin(lo[a], d->link_pos[3 * i + a]);
            hi[a] = fmax(hi[a], d->link_pos[3 * i + a]);
        }
    for (int a = 0; a < 3; a++) s = fmax(s, hi[a] - lo[a]);
    return s;
}

static void check_meshes(const kg_model *m, const kg_data *pose, kg_mesh_cache *meshes, kg_diags *d) {
    double size = model_size(m, pose);
    (void)kg_mesh_cache_preload_model(meshes, m, -1, 1); /* out of memory: read when asked, which says so */
    for (int g = 0; g < m->ngeom; g++) {
        const kg_geom *G = &m->geom[g];
        if (G->type != KG_GEOM_MESH || !G->mesh_path) continue;
        const kg_mesh *me = kg_mesh_get(meshes, G->mesh_path, G->mesh_part, d, m->source, G->line);
        double lo[3], hi[3], extent = 0;
        if (!me || kg_mesh_bounds(me, lo, hi) != 0) continue;
        for (int a = 0; a < 3; a++) extent = fmax(extent, (hi[a] - lo[a]) * fabs(G->scale[a]));
        if (!(size > 0) || m->nlink < 3) continue;
        if (extent > 20 * size)
            kg_diag_add(d, KG_WARNING, "mesh.scale_large", m->source, G->line, "mesh",
                        "mesh '%s' of link '%s' (%s) is %.3g m across, %.0f times the robot (%.3g m between its "
                        "link frames): a unit mistake (millimetres read as metres?)", G->mesh_uri,
                        m->link[G->link].name, kg_geom_role_name(G->role), extent, extent / size, size);
        else if (extent > 0 && extent * 300 < size)
            kg_diag_add(d, KG_WARNING, "mesh.scale_small", m->source, G->line, "mesh",
                        "mesh '%s' of link '%s' (%s) is %.3g m across, 1/%.0f of the robot (%.3g m between its "
                        "link frames): a unit mistake (metres read as millimetres?)", G->mesh_uri,
                        m->link[G->link].name, kg_geom_role_name(G->role), extent, size / extent, size);
    }
}

/* Solids of the links (meshes NULL: links with meshes are left out) and the
 * declared inertials against them. Mesh warnings of kg_link_solids that say
 * a mesh is missing are not repeated: the importer reported the mesh. */
static int check_plausibility(const kg_model *m, kg_mesh_cache *meshes, kg_diags *d) {
    kg_link_solid *ls = calloc((size_t)m->nlink, sizeof *ls);
    if (!ls) return -1;
    kg_diags tmp;
    kg_diags_init(&tmp);
    int rc = kg_link_solids(m, meshes, KG_COLLISION, ls, &tmp);
    for (size_t k = 0; k < tmp.count; k++) {
        const kg_diag *g = &tmp.items[k];
        if (!strcmp(g->code, "mass.mesh_missing")) continue;
        kg_diag_add(d, g->severity, g->code, g->file, g->line, g->element, "%s", g->message);
    }
    kg_diags_clear(&tmp);
    for (int i = 0; rc == 0 && i < m->nlink; i++) {
        const kg_link *L = &m->link[i];
        const kg_link_solid *s = &ls[i];
        if (!L->has_inertial || !(L->mass > 0) || s->nmissing || s->ngeom == 0 || !(s->solid.volume > 0)) continue;
        if (s->open_edges && !(s->uncertainty <= KG_MESH_CRACK * s->solid.volume)) continue; /* no volume to trust */
        kg_inertial_check c;
        kg_inertial_compare(L, &s->solid, &c);
        const char *role = kg_geom_role_name(s->role);
        if (c.implied_density < DENSITY_LOW || c.implied_density > DENSITY_HIGH)
            kg_diag_add(d, KG_WARNING, "link.density_implausible", m->source, L->line, "mass",
                        "link '%s': mass %g kg in %g m^3 of %s geometry is %.4g kg/m^3, outside [%g, %g] (no "
                        "solid material): mass or geometry scale is off", L->name, L->mass, s->solid.volume, role,
                        c.implied_density, DENSITY_LOW, DENSITY_HIGH);
        if (c.com_offset_ratio > COM_OUTSIDE)
            kg_diag_add(d, KG_WARNING, "link.com_outside", m->source, L->line, "inertial",
                        "link '%s': the declared centre of mass is %.3g m from the centroid of its %s geometry, "
                        "%.2g times the geometry's radius of gyration: outside the body", L->name, c.com_offset, role,
                        c.com_offset_ratio);
        if (c.inertia_ratio > INERTIA_FACTOR || c.inertia_ratio < 1 / INERTIA_FACTOR)
            kg_diag_add(d, KG_WARNING, "link.inertia_implausible", m->source, L->line, "inertia",
                        "link '%s': the declared inertia is %.3g times that of its %s geometry at the same mass "
                        "(expected within a factor of %g)", L->name, c.inertia_ratio, role, INERTIA_FACTOR);
    }
    free(ls);
    return rc;
}

/* ---- loops ---- */

static int check_loops(const kg_model *m, kg_data *pose, kg_diags *d) {
    if (m->nloop == 0) return 0;
    kg_jacobian_twists(m, pose);
    kg_closure cl;
    int have = kg_closure_solve(m, pose, &cl) == 0;
    for (int k = 0; k < m->nloop; k++) {
        const kg_loop *L = &m->loop[k];
        const kg_joint *cut = &m->joint[L->cut_joint];
        int f = 0;
        char members[600];
        size_t used = 0;
        members[0] = 0;
        for (int i = 0; i < L->njoint; i++) f += m->joint[L->joints[i]].nv;
        for (int i = 0; i < L->nlink && used + 4 < sizeof members; i++)
            used += (size_t)snprintf(members + used, sizeof members - used, "%s'%s'", i ? ", " : "",
                                     m->link[L->links[i]].name);
        if (used >= sizeof members) strcpy(members + sizeof members - 5, "...");
        double dp[3], da;
        kg_loop_residual(m, pose, k, dp, &da);
        double dpos = kg_vec3_norm(dp);
        char mobility[200] = "";
        if (have)
            snprintf(mobility, sizeof mobility, "; at the rest pose the closures leave the model %d of its %d "
                     "degrees of freedom", cl.ngen, m->dof);
        kg_diag_add(d, KG_INFO, "loop.mobility", m->source, cut->line, "joint",
                    "loop %d, cut at joint '%s', through %d links (%s): %d joint freedoms, Grubler-Kutzbach "
                    "mobility %d (spatial: f - 6; a planar or spherical loop moves more)%s; closure residual at "
                    "the rest pose %.3g m, %.3g rad", k, cut->name, L->nlink, members, f, f - 6, mobility, dpos, da);
        if (dpos > 1e-3 || da > 1e-2)
            kg_diag_add(d, KG_WARNING, "loop.open", m->source, cut->line, "joint",
                        "loop %d (cut at joint '%s') is not closed at the rest pose: its ends are %.3g m and %.3g "
                        "rad apart", k, cut->name, dpos, da);
    }
    if (have && cl.ngen == 0 && m->dof > 0)
        kg_diag_add(d, KG_WARNING, "loop.rigid", m->source, m->joint[m->loop[0].cut_joint].line, "joint",
                    "the loop closures leave no degree of freedom at the rest pose: the mechanism cannot move");
    if (have) kg_closure_free(&cl);
    return 0;
}

/* ---- self-collision at the rest pose ---- */

static int check_collisions(const kg_model *m, const kg_data *pose, kg_mesh_cache *meshes, kg_diags *d) {
    int ncol = 0;
    for (int g = 0; g < m->ngeom; g++)
        if (m->geom[g].role == KG_COLLISION) {
            if (m->geom[g].type == KG_GEOM_MESH && !meshes) return 0; /* needs the meshes */
            ncol++;
        }
    if (ncol < 2) return 0;
    kg_collision_model cm;
    kg_diags tmp; /* missing meshes were reported by the importer */
    kg_diags_init(&tmp);
    int rc = kg_collision_model_build(m, meshes, &cm, &tmp);
    kg_diags_clear(&tmp);
    if (rc != 0) return -1;
    kg_collision_work *w = kg_collision_work_new(&cm);
    unsigned char *check = calloc((size_t)cm.npair + 1, 1), *hit = calloc((size_t)cm.npair + 1, 1);
    if (!w || !check || !hit) rc = -1;
    for (int p = 0; rc == 0 && p < cm.npair; p++) check[p] = !cm.adjacent[p] && !cm.declared[p];
    if (rc == 0 && kg_self_collisions(&cm, pose, w, check, hit) > 0)
        for (int p = 0; p < cm.npair; p++)
            if (hit[p]) {
                const kg_link *a = &m->link[cm.pair_a[p]], *b = &m->link[cm.pair_b[p]];
                kg_diag_add(d, KG_WARNING, "collision.rest_pose", m->source, b->line, "collision",
                            "links '%s' and '%s' collide at the rest pose (collision geometry, meshes as convex "
                            "hulls): overlapping geometry, or a pair to disable (SRDF disable_collisions)",
                            a->name, b->name);
            }
    free(check);
    free(hit);
    kg_collision_work_free(w);
    kg_collision_model_free(&cm);
    return rc;
}

/* ---- motion ---- */

static void check_skeleton(const kg_model *m, const kg_data *pose, kg_diags *d) {
    double size = kg_body_size(m, NULL, NULL), to_m;
    const char *unit = kg_guess_unit(size, &to_m);
    if (strcmp(unit, "unknown") != 0)
        kg_diag_add(d, KG_INFO, "bvh.unit", m->source, 0, NULL,
                    "the skeleton is %.4g units tall: its unit looks like %s (1 unit = %.6g m); BVH declares "
                    "none, so lengths are kept as they are unless --scale is given", size, unit, to_m);
    else
        kg_diag_add(d, KG_WARNING, "bvh.unit_unknown", m->source, 0, NULL,
                    "the skeleton is %.4g units tall, no usual size for a body in m, cm, mm or inches: give "
                    "--scale to say what a unit is", size);
    for (int j = 0; j < m->njoint; j++) {
        int c = m->joint[j].child, p = m->joint[j].parent;
        if (c <= m->root_body || p < m->root_body) continue;
        double dx[3];
        for (int a = 0; a < 3; a++) dx[a] = pose->link_pos[3 * c + a] - pose->link_pos[3 * p + a];
        if (kg_vec3_norm(dx) > 1e-9 * (size > 0 ? size : 1)) continue;
        if (m->joint[j].type == KG_JOINT_FIXED) /* an End Site: only marks where the bone ends */
            kg_diag_add(d, KG_INFO, "bvh.zero_end_site", m->source, m->joint[j].line, "End Site",
                        "the End Site of '%s' has a zero offset: the last bone has no length or direction",
                        m->link[p].name);
        else
            kg_diag_add(d, KG_WARNING, "bvh.zero_bone", m->source, m->joint[j].line, "JOINT",
                        "'%s' sits on its parent '%s' (zero-length bone): its direction is undefined, which "
                        "breaks retargeting and IK that use bone directions", m->link[c].name, m->link[p].name);
    }
}

static void check_motion(const kg_model *m, const kg_motion *mo, kg_diags *d) {
    if (!mo || mo->nframes < 2) return;
    int reported = 0, more = 0;
    long more_jumps = 0;
    for (int k = 0; k < m->nangle; k++) {
        int q = m->angle_q[k];
        long jumps = 0;
        int first = -1;
        double first_delta = 0;
        for (int f = 1; f < mo->nframes; f++) {
            double delta = mo->q[(size_t)f * mo->nq + q] - mo->q[(size_t)(f - 1) * mo->nq + q];
            if (fabs(delta) > ANGLE_JUMP) {
                if (first < 0) first = f, first_delta = delta;
                jumps++;
            }
        }
        if (!jumps) continue;
        if (reported == MAX_JUMP_FINDINGS) {
            more++;
            more_jumps += jumps;
            continue;
        }
        reported++;
        char name[256];
        int j = 0;
        while (j + 1 < m->njoint && m->joint[j + 1].qadr <= q) j++;
        kg_coord_name(m, q, name, sizeof name);
        int wrap = fabs(fabs(first_delta) - 2 * PI) < 0.35;
        kg_diag_add(d, KG_WARNING, "motion.angle_jump", m->source, m->joint[j].line, "motion",
                    "'%s' jumps by %.1f degrees between frames %d and %d (%ld such jumps in %d frames)%s", name,
                    first_delta * 180 / PI, first - 1, first, jumps, mo->nframes,
                    wrap ? ": an angle wrapping around +-180 degrees (the same rotation; interpolating across it "
                           "spins the joint)"
                         : ": a flip, or a glitch in the capture");
    }
    if (more)
        kg_diag_add(d, KG_WARNING, "motion.angle_jump", m->source, 0, "motion",
                    "%d more coordinates jump by more than 90 degrees between frames (%ld jumps)", more, more_jumps);
    for (int j = 0; j < m->njoint; j++) {
        const kg_joint *J = &m->joint[j];
        if (!kg_joint_is_limited(J) || J->mimic >= 0) continue;
        long out = 0;
        int first = -1;
        for (int f = 0; f < mo->nframes; f++) {
            double v = mo->q[(size_t)f * mo->nq + J->qadr];
            if (v < J->lower - 1e-9 || v > J->upper + 1e-9) {
                if (first < 0) first = f;
                out++;
            }
        }
        if (out)
            kg_diag_add(d, KG_WARNING, "motion.outside_limits", m->source, J->line, "motion",
                        "joint '%s' is outside its limits [%g, %g] in %ld of %d frames (first: frame %d, %g)",
                        J->name, J->lower, J->upper, out, mo->nframes, first, mo->q[(size_t)first * mo->nq + J->qadr]);
    }
}

/* ---- conversion ---- */

/* What writing the model to `target` would drop, approximate or invent: the
 * exporter runs into /dev/null and its ledger becomes findings. */
static void check_conversion(const kg_model *m, const kg_motion *mo, const char *target, kg_mesh_cache *meshes,
                             kg_diags *d) {
    FILE *f = fopen("/dev/null", "w");
    if (!f) return;
    kg_ledger l;
    kg_ledger_init(&l);
    kg_diags tmp;
    kg_diags_init(&tmp);
    kg_export_options eo = {.meshes = meshes, .skip_meshes = meshes == NULL};
    int urdf = !strcmp(target, "urdf");
    if (urdf) kg_export_urdf(m, mo, &eo, f, &l, &tmp);
    else kg_export_collada(m, mo, &eo, f, &l, &tmp);
    fclose(f);
    kg_diags_clear(&tmp);
    static const char *const codes[3] = {"conversion.dropped", "conversion.approximated", "conversion.defaulted"};
    for (size_t k = 0; k < l.count; k++) {
        const kg_ledger_entry *e = &l.items[k];
        kg_diag_add(d, KG_INFO, codes[e->action], e->file, e->line, e->element, "converting to %s: %s%s%s%s%s",
                    urdf ? "URDF" : "COLLADA", e->name ? e->element : "", e->name ? " '" : "", e->name ? e->name : "",
                    e->name ? "': " : "", e->detail);
    }
    kg_ledger_clear(&l);
}

int kg_check_model(const kg_model *m, const kg_motion *mo, const kg_check_options *o, kg_diags *d) {
    kg_mesh_cache *meshes = o ? o->meshes : NULL;
    int bvh = !strcmp(m->format, "bvh");
    check_joints(m, d);
    check_inertia(m, d);
    check_geometry(m, d);
    check_names(m, d);
    kg_data *pose = kg_data_new(m);
    if (!pose) return -1;
    /* the rest pose, inside the limits */
    for (int j = 0; j < m->njoint; j++)
        if (kg_joint_is_limited(&m->joint[j])) {
            double *v = &pose->q[m->joint[j].qadr];
            *v = fmin(fmax(*v, m->joint[j].lower), m->joint[j].upper);
        }
    kg_apply_mimic(m, pose->q);
    kg_fk(m, pose);
    int rc = 0;
    if (meshes) check_meshes(m, pose, meshes, d);
    if (!bvh && check_plausibility(m, meshes, d) != 0) rc = -1;
    if (check_loops(m, pose, d) != 0) rc = -1;
    if (check_collisions(m, pose, meshes, d) != 0) rc = -1;
    if (bvh) check_skeleton(m, pose, d);
    check_motion(m, mo, d);
    if (strcmp(m->format, "urdf") != 0) check_conversion(m, mo, "urdf", meshes, d);
    if (strcmp(m->format, "collada") != 0) check_conversion(m, mo, "collada", meshes, d);
    kg_data_free(pose);
    return rc;
}
