/* Structure changes at run time (analysis/dynamics/structure.c, digest
 * 1.9-1.12).
 *
 * The impulse equations against the digest's example D8 (point masses,
 * 3-D Jacobians): a rigid join, B = 4/3 E and F1 = (1.5, 1.5, 0) to the last
 * bit; a prismatic new joint; joining the ground. Then connect / cut on the
 * dynamics state:
 *  - the seed's four-bar, open, moving, closed at an instant: the velocity
 *    after keeps the loop closed, the generalised momentum W^T M v of the
 *    closed chain is unchanged (1e-12), kinetic energy is lost, and the
 *    jump equals the seed's same-mechanism equations (P29-P33, corrected
 *    sign) computed here with kg_impulse_join on the open chain's mass
 *    matrix and the loop's planar rows;
 *  - the high-bar figure (digest 1.12, D9): N_F = 12 hanging by both hands,
 *    17 (+ the open grip's massless coordinate) after the right grip is cut,
 *    12 again after it reconnects moving,
 *    with the momentum in the free directions conserved (1e-12). */
#include "testutil.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "kinegraph/dynamics.h"
#include "core/builder.h"
#include "core/fk.h"

/* ---- D8: the impulse equations ------------------------------------------------------ */

static const double E3[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1};

static void test_impulse_rigid(void **state) {
    (void)state;
    const double A1[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1}, A2[9] = {3, 0, 0, 0, 3, 0, 0, 0, 3};
    double v1[3] = {2, 1, 0}, v2[3] = {0, -1, 0}, F1[3];
    double work[64];
    assert_true(kg_impulse_work(3, 0, 3, 3) <= 64);
    assert_int_equal(kg_impulse_join(3, 0, NULL, 3, A1, E3, v1, 3, A2, E3, v2, F1, NULL, work), 0);
    /* v = (2, 2, 0), B = (1 + 1/3) E: F1 = B^-1 v = (1.5, 1.5, 0) exactly */
    const double F[3] = {1.5, 1.5, 0}, after[3] = {0.5, -0.5, 0};
    for (int k = 0; k < 3; k++) {
        assert_true(F1[k] == F[k]);
        assert_true(v1[k] == after[k]); /* perfectly inelastic: both move together */
        assert_true(v2[k] == after[k]);
    }
    /* momentum: 1 (2, 1, 0) + 3 (0, -1, 0) = 4 (0.5, -0.5, 0) */
    for (int k = 0; k < 3; k++) KG_ASSERT_NEAR(v1[k] + 3 * v2[k], (k == 0 ? 2 : k == 1 ? -2 : 0), 0);
}

static void test_impulse_prismatic(void **state) {
    (void)state;
    const double A1[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1}, A2[9] = {3, 0, 0, 0, 3, 0, 0, 0, 3};
    const double Jn[3] = {1, 0, 0}; /* the new joint slides along x */
    double v1[3] = {2, 1, 0}, v2[3] = {0, -1, 0}, F1[3], qdn;
    double work[64];
    assert_int_equal(kg_impulse_join(3, 1, Jn, 3, A1, E3, v1, 3, A2, E3, v2, F1, &qdn, work), 0);
    const double F[3] = {0, 1.5, 0}, a1[3] = {2, -0.5, 0}, a2[3] = {0, -0.5, 0};
    for (int k = 0; k < 3; k++) {
        KG_ASSERT_NEAR(F1[k], F[k], 1e-15);
        KG_ASSERT_NEAR(v1[k], a1[k], 1e-15);
        KG_ASSERT_NEAR(v2[k], a2[k], 1e-15);
        KG_ASSERT_NEAR(v1[k], v2[k] + Jn[k] * qdn, 1e-15); /* (P22) */
    }
    KG_ASSERT_NEAR(qdn, 2, 1e-15);
}

/* Joining the immovable ground: the constrained velocities of body 1 vanish. */
static void test_impulse_ground(void **state) {
    (void)state;
    const double A1[9] = {2, 0.3, 0, 0.3, 1, 0.1, 0, 0.1, 1.5};
    const double J1[6] = {1, 0.5, 0, 0, 1, 2}; /* two constraint rows over three coordinates */
    double v1[3] = {1, -2, 0.5}, F1[2], work[64];
    assert_int_equal(kg_impulse_join(2, 0, NULL, 3, A1, J1, v1, 0, NULL, NULL, NULL, F1, NULL, work), 0);
    for (int r = 0; r < 2; r++) KG_ASSERT_NEAR(J1[3 * r] * v1[0] + J1[3 * r + 1] * v1[1] + J1[3 * r + 2] * v1[2], 0, 1e-14);
    /* a singular B (dependent rows) is refused, the velocities untouched */
    const double Jd[6] = {1, 0, 0, 2, 0, 0};
    double v[3] = {1, 2, 3};
    assert_int_equal(kg_impulse_join(2, 0, NULL, 3, A1, Jd, v, 0, NULL, NULL, NULL, NULL, NULL, work), -1);
    assert_true(v[0] == 1 && v[1] == 2 && v[2] == 3);
}

/* ---- connect / cut on the dynamics state ----------------------------------------------- */

typedef struct {
    kg_model *m;
    kg_data *d;
    kg_dyn *w;
    kg_closed *c;
    kg_structure *s;
    kg_diags diags;
} chain;

static void chain_open(chain *ch, kg_model *m) {
    assert_non_null(m);
    ch->m = m;
    ch->d = kg_data_new(m);
    ch->w = kg_dyn_new(m);
    ch->s = kg_structure_new(m);
}

static void chain_pose(chain *ch) {
    kg_fk(ch->m, ch->d);
    kg_dyn_positions(ch->m, ch->d, ch->w);
}

static void chain_close(chain *ch) {
    kg_closed_free(ch->c);
    kg_structure_free(ch->s);
    kg_dyn_free(ch->w);
    kg_data_free(ch->d);
    kg_model_free(ch->m);
    kg_diags_clear(&ch->diags);
}

static double kinetic(chain *ch, const double *v) {
    const int nv = ch->m->nv;
    double *tau = malloc(sizeof *tau * (size_t)nv), e = 0;
    kg_dyn_rnea(ch->m, ch->w, &(kg_dyn_options){{0, 0, 0}}, NULL, v, NULL, tau);
    for (int i = 0; i < nv; i++) e += 0.5 * v[i] * tau[i];
    free(tau);
    return e;
}

/* |J_C v| over the closed loops' rows */
static double closure_rate(const kg_closed *c, const double *v) {
    double r = 0;
    for (int i = 0; i < c->nrow; i++) {
        double s = 0;
        for (int x = 0; x < c->nv; x++) s += c->JC[(size_t)i * c->nv + x] * v[x];
        r = fmax(r, fabs(s));
    }
    return r;
}

/* W^T M v before and after a connection, with the new W */
static void assert_momentum_kept(chain *ch, const double *before, const double *after) {
    const int nf = ch->c->nf;
    double *p0 = malloc(sizeof *p0 * (size_t)(nf + 1)), *p1 = malloc(sizeof *p1 * (size_t)(nf + 1)), scale = 1;
    kg_structure_momentum(ch->m, ch->w, ch->c, ch->s, before, p0);
    kg_structure_momentum(ch->m, ch->w, ch->c, ch->s, after, p1);
    for (int g = 0; g < nf; g++) scale = fmax(scale, fabs(p0[g]));
    for (int g = 0; g < nf; g++) KG_ASSERT_NEAR(p1[g], p0[g], 1e-12 * scale);
    free(p0);
    free(p1);
}

static void four_bar_masses(kg_model *m) {
    const char *links[3] = {"L1", "L2", "L3"};
    const double mass[3] = {0.7, 1.9, 1.3}, len[3] = {0.1, 0.35, 0.3};
    for (int k = 0; k < 3; k++) {
        kg_link *L = &m->link[kg_model_link(m, links[k])];
        const double Iz = mass[k] * len[k] * len[k] / 12;
        L->mass = mass[k];
        memset(L->com, 0, sizeof L->com);
        memset(L->inertia, 0, sizeof L->inertia);
        L->com[0] = len[k] / 2;
        L->inertia[0] = 1e-4 * Iz;
        L->inertia[4] = L->inertia[8] = Iz;
    }
}

static void test_four_bar_connect(void **state) {
    (void)state;
    chain ch;
    kg_diags_init(&ch.diags);
    kg_model *m = kg_test_four_bar(0.1, 0.35, 0.3, 0.4, KG_JOINT_CONTINUOUS, &ch.diags);
    assert_non_null(m);
    four_bar_masses(m); /* before the workspace, which reads them (kg_dyn_new) */
    chain_open(&ch, m);
    const char *jn[4] = {"J1", "J2", "J3", "J4"};
    const double q[4] = {1.047197551, -0.418482424, -1.974532808, 1.345817680}; /* D7, closed to 1e-9 */
    int vi[4];
    for (int k = 0; k < 4; k++) {
        const kg_joint *J = &ch.m->joint[kg_model_joint(ch.m, jn[k])];
        vi[k] = J->vadr;
        ch.d->q[J->qadr] = q[k];
    }
    chain_pose(&ch);
    ch.c = kg_closed_new(ch.m, -1, NULL, 1, &vi[0]);
    assert_int_equal(kg_closed_set_loops(ch.m, ch.c, 2, (const int[]){0, 0}), -1); /* more than created for */
    assert_int_equal(kg_closed_set_loops(ch.m, ch.c, 1, (const int[]){1}), -1);    /* not a loop */
    assert_int_equal(kg_closed_set_loops(ch.m, ch.c, 0, NULL), 0);
    assert_int_equal(kg_closed_update(ch.m, ch.d, ch.w, ch.c, NULL), 4); /* open: every coordinate free */
    double v[4], v0[4];
    const double vj[4] = {0.7, -1.3, 0.4, 2.1};
    for (int k = 0; k < 4; k++) v[vi[k]] = vj[k];
    memcpy(v0, v, sizeof v);
    assert_int_equal(kg_structure_cut(ch.m, ch.d, ch.w, ch.c, 0), -1); /* not closed */
    assert_int_equal(kg_structure_connect(ch.m, ch.d, ch.w, ch.c, ch.s, 0, v), 1);
    assert_int_equal(ch.c->nloop, 1);
    assert_true(closure_rate(ch.c, v) < 1e-12);
    assert_momentum_kept(&ch, v0, v);
    assert_true(kinetic(&ch, v) < kinetic(&ch, v0));

    /* The seed's equations for both links in one mechanism: mechanism 1 the
     * massive coordinates J1..J3, J1 - J2 the loop's planar rows over them,
     * the new joint J4 (its column enters the constraint on the virtual
     * side, so J_n = -that column in P22's form). */
    const int rows[3] = {0, 1, 5};
    double M[16], A1[9], Jr[9], Jn[3], qd[3], qdn, work[128];
    kg_dyn_crba(ch.m, ch.w, M);
    for (int a = 0; a < 3; a++) {
        for (int b = 0; b < 3; b++) A1[3 * a + b] = M[4 * vi[a] + vi[b]];
        for (int b = 0; b < 3; b++) Jr[3 * a + b] = ch.c->JC[4 * rows[a] + vi[b]];
        Jn[a] = -ch.c->JC[4 * rows[a] + vi[3]];
        qd[a] = v0[vi[a]];
    }
    assert_true(kg_impulse_work(3, 1, 3, 0) <= 128);
    assert_int_equal(kg_impulse_join(3, 1, Jn, 3, A1, Jr, qd, 0, NULL, NULL, NULL, NULL, &qdn, work), 0);
    for (int a = 0; a < 3; a++) KG_ASSERT_NEAR(v[vi[a]], qd[a], 1e-12);
    KG_ASSERT_NEAR(v[vi[3]], qdn, 1e-12);

    /* cut again: the loop opens, nothing jumps */
    memcpy(v0, v, sizeof v);
    assert_int_equal(kg_structure_cut(ch.m, ch.d, ch.w, ch.c, 0), 4);
    assert_int_equal(ch.c->nloop, 0);
    assert_memory_equal(v, v0, sizeof v);
    chain_close(&ch);
}

static int grip_loop(const kg_model *m, const char *grip) {
    for (int k = 0; k < m->nloop; k++)
        if (strcmp(m->joint[m->loop[k].cut_joint].name, grip) == 0) return k;
    fail_msg("no loop cut at %s", grip);
    return -1;
}

static void test_high_bar(void **state) {
    (void)state;
    chain ch;
    kg_diags_init(&ch.diags);
    chain_open(&ch, kg_high_bar_model(&ch.diags));
    const kg_model *m = ch.m;
    assert_int_equal(m->nv, 24); /* N_J = 6 + 16 + 2 */
    assert_int_equal(m->nloop, 2);
    const int right = grip_loop(m, "grip_r");
    chain_pose(&ch);
    ch.c = kg_closed_new(m, -1, NULL, 0, NULL);
    assert_int_equal(kg_closed_update(m, ch.d, ch.w, ch.c, NULL), 12); /* D9: m = 12, N_F = 12 */
    for (int i = 0; i < ch.c->nrow; i++) assert_true(fabs(ch.c->err[i]) < 1e-12); /* q = 0 hangs closed */
    /* hanging by the left hand: the seed's N_F = 17 (N_J = 23 without the cut
     * grip), plus the open grip's own coordinate, which stays in the model and
     * moves only its massless virtual link (the forward dynamics drops it) */
    assert_int_equal(kg_structure_cut(m, ch.d, ch.w, ch.c, right), 18);
    assert_int_equal(ch.c->nloop, 1);
    double a[24];
    assert_int_equal(kg_closed_forward(m, ch.w, ch.c, NULL, NULL, NULL, NULL, NULL, a), 1);

    /* a motion hanging by the left hand (v = W x), then the right hand grips */
    double v[24], v0[24];
    for (int i = 0; i < 24; i++) {
        double s = 0;
        for (int g = 0; g < ch.c->nf; g++) s += ch.c->W[(size_t)i * ch.c->nf + g] * sin(1.7 * g + 1);
        v[i] = s;
    }
    assert_true(closure_rate(ch.c, v) < 1e-12);
    memcpy(v0, v, sizeof v);
    assert_int_equal(kg_structure_connect(m, ch.d, ch.w, ch.c, ch.s, right, v), 12);
    assert_true(closure_rate(ch.c, v) < 1e-12);
    assert_momentum_kept(&ch, v0, v);
    const double e0 = kinetic(&ch, v0), e1 = kinetic(&ch, v);
    assert_true(e1 < e0 && e1 > 0);
    /* connecting an already closed loop with a closed velocity changes nothing */
    memcpy(v0, v, sizeof v);
    assert_int_equal(kg_structure_connect(m, ch.d, ch.w, ch.c, ch.s, right, v), 12);
    for (int i = 0; i < 24; i++) KG_ASSERT_NEAR(v[i], v0[i], 1e-12);
    chain_close(&ch);
}

/* The scripted high-bar run: closed while both hands hold, the left still
 * closed after the right lets go, the right hand leaving the bar. */
typedef struct {
    int frames, cut_frame;
    double err_both, err_left, right_gap, tmax;
    int right_link, right_bar;
} run;

static void on_frame(void *user, double t, const kg_model *m, const kg_data *d, const double *v, int grips,
                     double err) {
    (void)v;
    run *r = user;
    r->frames++;
    r->tmax = t;
    if (grips == 2) r->err_both = fmax(r->err_both, err);
    else {
        if (!r->cut_frame) r->cut_frame = r->frames;
        r->err_left = fmax(r->err_left, err);
        double g = 0;
        for (int k = 0; k < 3; k++) {
            const double e = d->link_pos[3 * r->right_link + k] - d->link_pos[3 * r->right_bar + k];
            g += e * e;
        }
        r->right_gap = sqrt(g);
    }
    (void)m;
}

static void test_high_bar_run(void **state) {
    (void)state;
    kg_diags diags;
    kg_diags_init(&diags);
    kg_model *m = kg_high_bar_model(&diags);
    assert_non_null(m);
    run r = {0};
    r.right_link = m->loop[grip_loop(m, "grip_r")].virtual_link;
    r.right_bar = m->loop[grip_loop(m, "grip_r")].real_link;
    kg_high_bar_options o = kg_high_bar_default;
    o.duration = 0.6, o.cut_time = 0.3;
    assert_int_equal(kg_high_bar_simulate(m, &o, on_frame, &r), 0);
    assert_int_equal(r.frames, 61); /* 100 frames a second, both ends */
    assert_int_equal(r.cut_frame, 31);
    KG_ASSERT_NEAR(r.tmax, 0.6, 1e-9);
    assert_true(r.err_both < 1e-4); /* Baumgarte keeps the grips closed */
    assert_true(r.err_left < 1e-4);
    assert_true(r.right_gap > 0.01); /* the right hand has left the bar */
    kg_model_free(m);
    kg_diags_clear(&diags);
}

/* A cut without a virtual link (kg_structure_cut_joint): the high-bar figure's
 * right hip cut, the leg a free body. The new model: one floating joint more
 * (nv + 5), the loops kept; the state moved onto it keeps every link's pose
 * (1e-12 m) and the kinetic energy and centroidal momentum (1e-12
 * relative); and at rest without torques the freed leg falls as one body:
 * its floating joint's acceleration is gravity, its own joints' zero
 * (1e-10), as a free body's must be. */
static void test_cut_joint(void **state) {
    (void)state;
    kg_diags dg;
    kg_diags_init(&dg);
    kg_model *m = kg_high_bar_model(&dg);
    assert_non_null(m);
    const int joint = kg_model_joint(m, "leg_r_pitch");
    assert_true(joint >= 0);
    kg_model *mc = kg_structure_cut_joint(m, joint, &dg);
    assert_non_null(mc);
    assert_int_equal(mc->nv, m->nv + 5);
    assert_int_equal(mc->nloop, m->nloop);
    const int cj = kg_model_joint(mc, "leg_r_pitch");
    assert_int_equal(mc->joint[cj].type, KG_JOINT_FLOATING);
    assert_int_equal(mc->joint[cj].parent, 0);

    kg_data *d = kg_data_new(m), *dc = kg_data_new(mc);
    kg_dyn *w = kg_dyn_new(m), *wc = kg_dyn_new(mc);
    const int nv = m->nv, ncv = mc->nv;
    double *v = calloc((size_t)nv, sizeof *v), *vc = calloc((size_t)ncv, sizeof *vc);
    double *M = calloc((size_t)nv * nv, sizeof *M), *Mc = calloc((size_t)ncv * ncv, sizeof *Mc);
    for (int j = 0; j < m->njoint; j++) /* a general pose: every 1-DOF joint turned, by fixed numbers */
        if (m->joint[j].nq == 1) d->q[m->joint[j].qadr] = 0.4 * sin(1.7 * j + 0.3);
    for (int k = 0; k < nv; k++) v[k] = cos(2.3 * k + 0.1);
    kg_fk(m, d);
    kg_dyn_positions(m, d, w);
    assert_int_equal(kg_structure_cut_state(m, d, w, v, joint, mc, dc, vc), cj);
    kg_fk(mc, dc);
    for (int i = 0; i < m->nlink; i++) {
        if (m->link[i].real >= 0) continue;
        const int k = kg_model_link(mc, m->link[i].name);
        assert_true(k >= 0);
        for (int e = 0; e < 3; e++) KG_ASSERT_NEAR(dc->link_pos[3 * k + e], d->link_pos[3 * i + e], 1e-12);
        for (int e = 0; e < 9; e++) KG_ASSERT_NEAR(dc->link_rot[9 * k + e], d->link_rot[9 * i + e], 1e-12);
    }
    kg_dyn_positions(mc, dc, wc);
    kg_dyn_crba(m, w, M);
    kg_dyn_crba(mc, wc, Mc);
    double T = 0, Tc = 0, h[6], hc[6], mass, com[3];
    for (int a = 0; a < nv; a++)
        for (int b = 0; b < nv; b++) T += 0.5 * v[a] * M[(size_t)a * nv + b] * v[b];
    for (int a = 0; a < ncv; a++)
        for (int b = 0; b < ncv; b++) Tc += 0.5 * vc[a] * Mc[(size_t)a * ncv + b] * vc[b];
    KG_ASSERT_NEAR(Tc, T, 1e-12 * T);
    kg_dyn_centroidal(m, w, v, &mass, com, h, NULL);
    kg_dyn_centroidal(mc, wc, vc, &mass, com, hc, NULL);
    for (int e = 0; e < 6; e++) KG_ASSERT_NEAR(hc[e], h[e], 1e-12 * mass);

    /* at rest, no torque: the leg falls freely */
    double *a = calloc((size_t)ncv, sizeof *a);
    kg_dyn_aba(mc, wc, NULL, NULL, NULL, NULL, a);
    const kg_joint *F = &mc->joint[cj];
    for (int e = 0; e < 3; e++) KG_ASSERT_NEAR(a[F->vadr + e], kg_dyn_default.gravity[e], 1e-10);
    for (int e = 3; e < 6; e++) KG_ASSERT_NEAR(a[F->vadr + e], 0, 1e-10);
    for (int j = 0; j < mc->njoint; j++) /* the leg's own joints */
        if (!strncmp(mc->joint[j].name, "leg_r_", 6) && j != cj)
            for (int c = 0; c < mc->joint[j].nv; c++) KG_ASSERT_NEAR(a[mc->joint[j].vadr + c], 0, 1e-10);
    free(a), free(v), free(vc), free(M), free(Mc);
    kg_dyn_free(w), kg_dyn_free(wc);
    kg_data_free(d), kg_data_free(dc);
    kg_model_free(mc), kg_model_free(m);
    kg_diags_clear(&dg);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_impulse_rigid),
        cmocka_unit_test(test_impulse_prismatic),
        cmocka_unit_test(test_impulse_ground),
        cmocka_unit_test(test_four_bar_connect),
        cmocka_unit_test(test_high_bar),
        cmocka_unit_test(test_high_bar_run),
        cmocka_unit_test(test_cut_joint),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
