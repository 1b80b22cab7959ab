/* Closed chains (analysis/dynamics/closed.c, Nakamura and Yamane's method).
 *
 * The seed's four-bar (digest 4.2 D7: N_J = 4, m = 3, N_F = 1): H, W and
 * H' theta_G' against the digest's numbers. Then, with masses on the bars,
 * against a Lagrange-multiplier formulation built here from other parts of
 * the library only (the mass matrix by CRBA, the bias by RNEA, the closure
 * Jacobian by analysis/jacobian.h's kg_jacobian, its derivative by hand for
 * the planar chain):
 *  - tau_A: min |tau_A|^2 subject to M a + c = B tau_A + A^T lambda, whose
 *    optimality conditions are [B B^T A^T; A 0] [mu; lambda] = [M a + c; 0],
 *    tau_A = B^T mu (B the actuated columns of the identity): one actuator
 *    (the crank, S = [1]) and three (redundant, the minimum-norm choice);
 *  - virtual work tau_A . theta_A' = tau_O . theta_O';
 *  - forward dynamics: [M A^T; A 0] [a; -lambda] = [B tau_A - c; -A' v];
 *  - a passive four-bar falling under gravity: the closure stays closed with
 *    Baumgarte's stabilisation, and drifts without it.
 * And a closed chain loaded from a COLLADA file with attachment_full, when
 * the shared corpus has one. */
#include "testutil.h"

#include <stdlib.h>
#include <string.h>

#include <lapacke.h>

#include "kinegraph/dynamics.h"
#include "analysis/jacobian.h"
#include "core/builder.h"
#include "core/fk.h"
#include "core/spatial.h"

#define NV 4
static const char *const JN[4] = {"J1", "J2", "J3", "J4"};
static const kg_dyn_options GY = {{0, -9.81, 0}}; /* in the mechanism's plane */

typedef struct {
    kg_model *m;
    kg_data *d;
    kg_dyn *w;
    kg_diags diags;
    int v[4];   /* velocity coordinate of J1..J4 */
    double l[3]; /* bar lengths: crank a, coupler c, rocker b */
} bar4;

/* Uniform rods along each bar's x axis (the virtual link stays massless). */
static void add_masses(bar4 *b) {
    const char *links[3] = {"L1", "L2", "L3"};
    const double mass[3] = {0.7, 1.9, 1.3};
    for (int k = 0; k < 3; k++) {
        kg_link *L = &b->m->link[kg_model_link(b->m, links[k])];
        const double l = b->l[k], Iz = mass[k] * l * l / 12;
        L->mass = mass[k];
        memset(L->com, 0, sizeof L->com);
        memset(L->inertia, 0, sizeof L->inertia);
        L->com[0] = l / 2;
        L->inertia[0] = 1e-4 * Iz; /* a thin rod: almost nothing about its axis */
        L->inertia[4] = L->inertia[8] = Iz;
    }
}

static void bar4_open(bar4 *b, double a, double c, double rb, double d, int masses) {
    kg_diags_init(&b->diags);
    b->m = kg_test_four_bar(a, c, rb, d, KG_JOINT_CONTINUOUS, &b->diags);
    assert_non_null(b->m);
    assert_int_equal(b->m->nv, NV);
    assert_int_equal(b->m->nloop, 1);
    b->l[0] = a, b->l[1] = c, b->l[2] = rb;
    for (int k = 0; k < 4; k++) {
        const kg_joint *J = &b->m->joint[kg_model_joint(b->m, JN[k])];
        b->v[k] = J->vadr;
        assert_int_equal(J->dofadr, J->vadr); /* kg_jacobian's columns are the same coordinates */
    }
    if (masses) add_masses(b);
    b->d = kg_data_new(b->m);
    b->w = kg_dyn_new(b->m);
}

static void bar4_close(bar4 *b) {
    kg_dyn_free(b->w);
    kg_data_free(b->d);
    kg_model_free(b->m);
    kg_diags_clear(&b->diags);
}

/* q in J1..J4 order */
static void bar4_pose(bar4 *b, const double *q) {
    for (int k = 0; k < 4; k++) b->d->q[b->m->joint[kg_model_joint(b->m, JN[k])].qadr] = q[k];
    kg_fk(b->m, b->d);
    kg_jacobian_twists(b->m, b->d);
    kg_dyn_positions(b->m, b->d, b->w);
}

/* The general four-bar of D7 at theta1 = 60 deg (the digest's 9 digits). */
static const double Q7[4] = {1.047197551, -0.418482424, -1.974532808, 1.345817680};

/* Closes the four-bar exactly at the crank angle q[0] near q: Newton on the
 * three planar closure rows over J2..J4 (the digest's angles carry 9 digits,
 * a closure error of 1e-9 the tests below would see through Baumgarte). */
static void close_loop(bar4 *b, double *q) {
    const kg_loop *lp = &b->m->loop[0];
    for (int it = 0; it < 20; it++) {
        bar4_pose(b, q);
        double J[6 * NV], e[3], A[9];
        const double *pv = b->d->link_pos + 3 * lp->virtual_link, *pr = b->d->link_pos + 3 * lp->real_link;
        double ang = q[0] + q[1] + q[2] + q[3]; /* the virtual link's angle, the ground's being 0 */
        e[0] = pv[0] - pr[0], e[1] = pv[1] - pr[1], e[2] = remainder(ang, 2 * KG_PI);
        kg_jacobian(b->m, b->d, lp->virtual_link, NULL, lp->real_link, J);
        const int rows[3] = {0, 1, 5};
        for (int r = 0; r < 3; r++)
            for (int k = 0; k < 3; k++) A[3 * r + k] = J[rows[r] * NV + b->v[k + 1]];
        int piv[3];
        assert_int_equal(LAPACKE_dgesv(LAPACK_ROW_MAJOR, 3, 1, A, 3, piv, e, 1), 0);
        for (int k = 0; k < 3; k++) q[k + 1] -= e[k];
        if (fabs(e[0]) + fabs(e[1]) + fabs(e[2]) < 1e-15) break;
    }
    bar4_pose(b, q);
}

/* ---- D7: H, W, H' theta_G' ---------------------------------------------------------- */

static void test_four_bar_vectors(void **state) {
    (void)state;
    bar4 b;
    bar4_open(&b, 0.1, 0.35, 0.3, 0.4, 0);
    bar4_pose(&b, Q7);
    kg_closed *c = kg_closed_new(b.m, -1, NULL, 1, &b.v[0]); /* all loops; the crank is the actuator */
    assert_int_equal(kg_closed_update(b.m, b.d, b.w, c, NULL), 1);
    /* D9 bookkeeping: N_J = 4, m = 3 of the 6 rows (planar), N_F = 1, theta_G = theta1 */
    assert_int_equal(c->nrow, 6);
    assert_int_equal(c->rank, 3);
    assert_int_equal(c->nf, 1);
    assert_int_equal(c->gen[0], b.v[0]);
    assert_true(c->residual < 1e-12);
    const double W[4] = {1, -1.211457636, 0.358758823, -0.147301188};
    for (int k = 0; k < 4; k++) KG_ASSERT_NEAR(c->W[b.v[k]], W[k], 2e-8);
    KG_ASSERT_NEAR(c->S[0], 1, 0);
    /* theta_G' = 1: H' theta_G' = -J_S^-1 J_Cm' theta_J' (the digest: finite differences agree to 4e-8) */
    double v[NV], a[NV];
    for (int k = 0; k < NV; k++) v[k] = c->W[k];
    kg_closed_accel(b.m, b.w, c, v, NULL, a);
    const double Hd[3] = {0.226510745, 0.152144899, -0.378655644};
    KG_ASSERT_NEAR(a[b.v[0]], 0, 0);
    for (int k = 0; k < 3; k++) KG_ASSERT_NEAR(a[b.v[k + 1]], Hd[k], 5e-8);
    kg_closed_free(c);
    bar4_close(&b);

    /* the parallelogram: H = (-1, 1, -1) at any crank angle, H' theta_G' = 0 */
    bar4_open(&b, 0.2, 0.5, 0.2, 0.5, 0);
    const double qp[4] = {1.047197551, -1.047197551, -2.094395102, 2.094395102};
    bar4_pose(&b, qp);
    c = kg_closed_new(b.m, -1, NULL, 1, &b.v[0]);
    assert_int_equal(kg_closed_update(b.m, b.d, b.w, c, NULL), 1);
    const double Wp[4] = {1, -1, 1, -1};
    for (int k = 0; k < 4; k++) KG_ASSERT_NEAR(c->W[b.v[k]], Wp[k], 1e-8);
    for (int k = 0; k < NV; k++) v[k] = 0.8 * c->W[k];
    kg_closed_accel(b.m, b.w, c, v, NULL, a);
    for (int k = 0; k < NV; k++) KG_ASSERT_NEAR(a[k], 0, 1e-8);
    /* the empty set of loops leaves the tree open: W = E, every coordinate free */
    kg_closed *open = kg_closed_new(b.m, 0, (const int[]){0}, 0, NULL);
    assert_int_equal(kg_closed_update(b.m, b.d, b.w, open, NULL), NV);
    for (int r = 0; r < NV; r++)
        for (int k = 0; k < NV; k++) KG_ASSERT_NEAR(open->W[r * NV + k], r == k, 0);
    kg_closed_free(open);
    kg_closed_free(c);
    bar4_close(&b);
}

/* ---- the Lagrange-multiplier reference ------------------------------------------------ */

/* The planar closure rows (v_x, v_y, w_z) of the virtual link relative to the
 * real one (the ground's pivot): A [3 x NV] by kg_jacobian, and A' v by hand:
 * the virtual link's origin is sum_k R(phi_k) (l_k, 0), phi_k = q1 + .. + qk, so
 * with a = 0 its acceleration is -sum_k phi_k'^2 R(phi_k) (l_k, 0); w_z' = 0. */
static void planar_closure(const bar4 *b, const double *q, const double *v, double *A, double *Adv) {
    const kg_loop *lp = &b->m->loop[0];
    double J[6 * NV];
    kg_jacobian(b->m, b->d, lp->virtual_link, NULL, lp->real_link, J);
    const int rows[3] = {0, 1, 5};
    for (int r = 0; r < 3; r++)
        for (int k = 0; k < NV; k++) A[r * NV + k] = J[rows[r] * NV + k];
    double phi = 0, phid = 0;
    Adv[0] = Adv[1] = Adv[2] = 0;
    for (int k = 0; k < 3; k++) {
        phi += q[k];
        phid += v[b->v[k]];
        Adv[0] -= phid * phid * b->l[k] * cos(phi);
        Adv[1] -= phid * phid * b->l[k] * sin(phi);
    }
}

/* M and c = C v + g of the open chain, in b.v order = coordinate order here */
static void open_chain(bar4 *b, const double *v, double *M, double *cb) {
    kg_dyn_crba(b->m, b->w, M);
    kg_dyn_bias(b->m, b->w, &GY, v, cb);
}

/* Minimum-norm actuated torques by the Lagrange conditions (header comment). */
static void lagrange_torques(const double *M, const double *cb, const double *A, const double *a, int na,
                             const int *act, double *tau) {
    enum { N = NV + 3 };
    double K[N * N] = {0}, r[N] = {0};
    for (int k = 0; k < na; k++) K[act[k] * N + act[k]] = 1; /* B B^T */
    for (int i = 0; i < 3; i++)
        for (int k = 0; k < NV; k++) K[k * N + NV + i] = K[(NV + i) * N + k] = A[i * NV + k];
    for (int i = 0; i < NV; i++) {
        r[i] = cb[i];
        for (int k = 0; k < NV; k++) r[i] += M[i * NV + k] * a[k];
    }
    int piv[N];
    assert_int_equal(LAPACKE_dgesv(LAPACK_ROW_MAJOR, N, 1, K, N, piv, r, 1), 0);
    for (int k = 0; k < na; k++) tau[k] = r[act[k]];
}

/* Forward dynamics by the Lagrange multipliers: [M A^T; A 0] [a; -lambda] = [B tau - c; -A' v]. */
static void lagrange_forward(const double *M, const double *cb, const double *A, const double *Adv, int na,
                             const int *act, const double *tauA, double *a) {
    enum { N = NV + 3 };
    double K[N * N] = {0}, r[N] = {0};
    for (int i = 0; i < NV; i++)
        for (int k = 0; k < NV; k++) K[i * N + k] = M[i * NV + k];
    for (int i = 0; i < 3; i++)
        for (int k = 0; k < NV; k++) K[k * N + NV + i] = K[(NV + i) * N + k] = A[i * NV + k];
    for (int i = 0; i < NV; i++) r[i] = -cb[i];
    for (int k = 0; k < na; k++) r[act[k]] += tauA[k];
    for (int i = 0; i < 3; i++) r[NV + i] = -Adv[i];
    int piv[N];
    assert_int_equal(LAPACKE_dgesv(LAPACK_ROW_MAJOR, N, 1, K, N, piv, r, 1), 0);
    memcpy(a, r, NV * sizeof *a);
}

static double dot(const double *x, const double *y, int n) {
    double s = 0;
    for (int k = 0; k < n; k++) s += x[k] * y[k];
    return s;
}

/* One actuator set: inverse dynamics against Lagrange, virtual work, and the
 * forward dynamics back. Returns the worst torque difference. */
static double check_actuators(bar4 *b, const double *q, int na, const int *act) {
    kg_closed *c = kg_closed_new(b->m, -1, NULL, na, act);
    assert_int_equal(kg_closed_update(b->m, b->d, b->w, c, NULL), 1);
    /* a closed motion: theta_G' = 1.3, theta_G'' = -0.7 */
    double v[NV], a[NV], aG = -0.7, tauA[3], tauO[NV], M[NV * NV], cb[NV], A[3 * NV], Adv[3], ref[3];
    for (int k = 0; k < NV; k++) v[k] = 1.3 * c->W[k];
    kg_closed_accel(b->m, b->w, c, v, &aG, a);
    const double res = kg_closed_inverse(b->m, b->w, c, &GY, v, a, NULL, tauA, tauO);
    assert_true(res < 1e-12);
    open_chain(b, v, M, cb);
    planar_closure(b, q, v, A, Adv);
    /* the accelerations are closed: A a + A' v = 0 (checks H' theta_G' independently) */
    for (int i = 0; i < 3; i++) KG_ASSERT_NEAR(dot(A + i * NV, a, NV) + Adv[i], 0, 1e-12);
    lagrange_torques(M, cb, A, a, na, act, ref);
    double worst = 0;
    for (int k = 0; k < na; k++) {
        KG_ASSERT_NEAR(tauA[k], ref[k], 1e-9);
        worst = fmax(worst, fabs(tauA[k] - ref[k]));
    }
    /* virtual work of the actuators equals the open chain's */
    double pa = 0;
    for (int k = 0; k < na; k++) pa += tauA[k] * v[act[k]];
    KG_ASSERT_NEAR(pa, dot(tauO, v, NV), 1e-12 * fmax(1, fabs(pa)));
    /* forward dynamics (no stabilisation needed: the pose is closed) returns a */
    const kg_closed_options plain = {0, 0, 1e-10, 1e-12};
    double af[NV], al[NV];
    assert_int_equal(kg_closed_forward(b->m, b->w, c, &GY, &plain, v, tauA, NULL, af), 0);
    lagrange_forward(M, cb, A, Adv, na, act, tauA, al);
    for (int k = 0; k < NV; k++) {
        KG_ASSERT_NEAR(af[k], a[k], 1e-9);
        KG_ASSERT_NEAR(af[k], al[k], 1e-9);
    }
    /* with the default Baumgarte gains the closed pose changes nothing */
    assert_int_equal(kg_closed_forward(b->m, b->w, c, &GY, NULL, v, tauA, NULL, af), 0);
    for (int k = 0; k < NV; k++) KG_ASSERT_NEAR(af[k], a[k], 1e-9);
    printf("  %d actuator(s): tau_A =", na);
    for (int k = 0; k < na; k++) printf(" %.9f", tauA[k]);
    printf(" N m, Lagrange differs by %.1e; virtual work %.9f W\n", worst, pa);
    kg_closed_free(c);
    return worst;
}

static void test_four_bar_lagrange(void **state) {
    (void)state;
    bar4 b;
    bar4_open(&b, 0.1, 0.35, 0.3, 0.4, 1);
    double q[4];
    memcpy(q, Q7, sizeof q);
    close_loop(&b, q);
    check_actuators(&b, q, 1, (const int[]){b.v[0]});                 /* the crank: S = [1] */
    check_actuators(&b, q, 3, (const int[]){b.v[0], b.v[1], b.v[2]}); /* redundant: minimum norm */
    check_actuators(&b, q, 2, (const int[]){b.v[2], b.v[1]});         /* another pair, unordered */
    bar4_close(&b);
}

/* ---- simulation: drift with and without Baumgarte ------------------------------------ */

static double energy(bar4 *b, const double *v) {
    double M[NV * NV], Mv[NV], mass, com[3];
    kg_dyn_crba(b->m, b->w, M);
    for (int i = 0; i < NV; i++) Mv[i] = dot(M + i * NV, v, NV);
    kg_dyn_centroidal(b->m, b->w, v, &mass, com, NULL, NULL);
    return 0.5 * dot(v, Mv, NV) - mass * dot(GY.gravity, com, 3);
}

static void derivative(bar4 *b, kg_closed *c, const kg_closed_options *o, const double *q, const double *v,
                       double *a) {
    bar4_pose(b, q);
    kg_closed_update(b->m, b->d, b->w, c, o);
    assert_int_equal(kg_closed_forward(b->m, b->w, c, &GY, o, v, NULL, NULL, a), 0);
}

/* RK4 over 2 s of a passive four-bar falling from rest; returns the largest
 * closure error (position, m or rad) and the energy's drift in *de. */
static double simulate(bar4 *b, const kg_closed_options *o, double dt, double *de) {
    double q[4], v[NV] = {0};
    memcpy(q, Q7, sizeof q);
    close_loop(b, q);
    kg_closed *c = kg_closed_new(b->m, -1, NULL, 0, (const int[]){0});
    const double e0 = energy(b, v);
    double worst = 0;
    *de = 0;
    for (int step = 0; step < (int)(2 / dt + 0.5); step++) {
        double k[4][2][NV], qs[NV], vs[NV];
        for (int s = 0; s < 4; s++) {
            const double h = s == 0 ? 0 : s == 3 ? dt : dt / 2;
            for (int i = 0; i < NV; i++) {
                qs[i] = q[i] + (s ? h * k[s - 1][0][i] : 0);
                vs[i] = v[i] + (s ? h * k[s - 1][1][i] : 0);
            }
            memcpy(k[s][0], vs, sizeof vs);
            derivative(b, c, o, qs, vs, k[s][1]);
        }
        for (int i = 0; i < NV; i++) {
            q[i] += dt / 6 * (k[0][0][i] + 2 * k[1][0][i] + 2 * k[2][0][i] + k[3][0][i]);
            v[i] += dt / 6 * (k[0][1][i] + 2 * k[1][1][i] + 2 * k[2][1][i] + k[3][1][i]);
        }
        bar4_pose(b, q);
        kg_closed_update(b->m, b->d, b->w, c, o);
        for (int r = 0; r < c->nrow; r++) worst = fmax(worst, fabs(c->err[r]));
        *de = fmax(*de, fabs(energy(b, v) - e0));
    }
    kg_closed_free(c);
    return worst;
}

static void test_four_bar_simulation(void **state) {
    (void)state;
    bar4 b;
    bar4_open(&b, 0.1, 0.35, 0.3, 0.4, 1);
    const kg_closed_options off = {0, 0, 1e-10, 1e-12};
    double de_on[2], de_off, err_on[2], err_off;
    const double dts[2] = {2e-3, 1e-3};
    for (int k = 0; k < 2; k++) err_on[k] = simulate(&b, NULL, dts[k], &de_on[k]);
    err_off = simulate(&b, &off, dts[0], &de_off);
    printf("  passive four-bar, 2 s of RK4: Baumgarte (alpha = beta = 10/s) dt 2 ms: closure error %.1e, energy "
           "drift %.1e J; dt 1 ms: %.1e, %.1e J; without stabilisation dt 2 ms: %.1e, %.1e J\n",
           err_on[0], de_on[0], err_on[1], de_on[1], err_off, de_off);
    assert_true(err_on[0] < 1e-6);
    assert_true(err_on[1] <= err_on[0]);
    assert_true(de_on[1] < de_on[0]); /* the energy's drift falls with the step */
    bar4_close(&b);
}


/* ---- closed chains from COLLADA (attachment_full links, attachment_start/end loops) ---- */

/* A planar five-bar written the way COLLADA closes a loop: two chains of
 * attachment_full links from the base A, the closing joint j5 from L2's tip
 * (attachment_start) onto L4's (attachment_end). Two degrees of freedom. */
static const char five_bar_dae[] =
    "<?xml version='1.0' encoding='UTF-8'?>"
    "<COLLADA version='1.5.0' xmlns='http://www.collada.org/2008/03/COLLADASchema'>"
    "<asset><unit meter='1' name='meter'/><up_axis>Z_UP</up_axis></asset>"
    "<library_joints><joint id='rev'><revolute sid='axis'><axis>0 0 1</axis></revolute></joint></library_joints>"
    "<library_kinematics_models><kinematics_model id='FIVE'><technique_common>"
    "<instance_joint url='#rev' sid='j1'/><instance_joint url='#rev' sid='j2'/><instance_joint url='#rev' sid='j3'/>"
    "<instance_joint url='#rev' sid='j4'/><instance_joint url='#rev' sid='j5'/>"
    "<link sid='A'>"
    " <attachment_full joint='FIVE/j1'><link sid='L1'>"
    "  <attachment_full joint='FIVE/j2'><translate>0.2 0 0</translate><link sid='L2'>"
    "   <attachment_start joint='FIVE/j5'><translate>0.35 0 0</translate></attachment_start>"
    "  </link></attachment_full></link></attachment_full>"
    " <attachment_full joint='FIVE/j3'><translate>0.25 0 0</translate><link sid='L3'>"
    "  <attachment_full joint='FIVE/j4'><translate>0.2 0 0</translate><link sid='L4'>"
    "   <attachment_end joint='FIVE/j5'><translate>0.3 0 0</translate></attachment_end>"
    "  </link></attachment_full></link></attachment_full>"
    "</link></technique_common></kinematics_model></library_kinematics_models></COLLADA>";

/* Masses on every real link but the root: the COLLADA files carry none. */
static void give_masses(kg_model *m) {
    for (int i = 1; i < m->nlink; i++) {
        kg_link *L = &m->link[i];
        if (L->real >= 0) continue; /* virtual: massless */
        L->mass = 0.5 + 0.37 * i;
        memset(L->inertia, 0, sizeof L->inertia);
        const double c[3] = {0.05 + 0.01 * i, 0.02, -0.01 * i};
        memcpy(L->com, c, sizeof c);
        L->inertia[0] = 0.011 * i, L->inertia[4] = 0.013 + 0.002 * i, L->inertia[8] = 0.017;
        L->inertia[1] = L->inertia[3] = 0.001;
    }
}

/* x [n] = the minimum-norm least-squares solution of K x = r (K n x n,
 * rank-deficient when the closure rows are: a planar loop has 3 of 6). */
static void solve_lsq(int n, double *K, double *r) {
    double sv[64];
    int rank;
    assert_true(n <= 64);
    assert_int_equal(LAPACKE_dgelsd(LAPACK_ROW_MAJOR, n, n, 1, K, n, r, 1, sv, 1e-12, &rank), 0);
}

/* Every check of check_actuators on any model, the closure rows from
 * kg_jacobian (6 per loop), their derivative by central differences. */
static void check_general(const char *what, kg_model *m, kg_data *d, kg_dyn *w, int nl, const int *loops, int na,
                          const int *act) {
    const int nv = m->nv, L = loops ? nl : m->nloop, N = nv + 6 * L;
    assert_int_equal(m->nmimic, 0);
    for (int j = 0; j < m->njoint; j++) assert_true(m->joint[j].nv == 0 || m->joint[j].dofadr == m->joint[j].vadr);
    kg_closed *c = kg_closed_new(m, nl, loops, na, act);
    const int nf = kg_closed_update(m, d, w, c, NULL);
    assert_true(nf > 0 && c->residual < 1e-12);
#define LOOP(k) m->loop[loops ? loops[k] : (k)]
    double *v = calloc((size_t)nv, sizeof *v), *a = calloc((size_t)nv, sizeof *a), *aG = calloc((size_t)nf, sizeof *aG);
    double *tauA = calloc((size_t)na, sizeof *tauA), *tauO = calloc((size_t)nv, sizeof *tauO);
    double *M = calloc((size_t)nv * nv, sizeof *M), *cb = calloc((size_t)nv, sizeof *cb);
    double *A = calloc((size_t)6 * L * nv, sizeof *A), *K = calloc((size_t)N * N, sizeof *K), *r = calloc((size_t)N, sizeof *r);
    for (int x = 0; x < nv; x++)
        for (int g = 0; g < nf; g++) v[x] += c->W[x * nf + g] * (0.9 - 0.6 * g);
    for (int g = 0; g < nf; g++) aG[g] = 0.4 + 0.5 * g;
    kg_closed_accel(m, w, c, v, aG, a);
    assert_true(kg_closed_inverse(m, w, c, &GY, v, a, NULL, tauA, tauO) < 1e-12);
    kg_dyn_crba(m, w, M);
    kg_dyn_bias(m, w, &GY, v, cb);
    kg_jacobian_twists(m, d);
    for (int k = 0; k < L; k++) kg_jacobian(m, d, LOOP(k).virtual_link, NULL, LOOP(k).real_link, A + 6 * k * nv);
    /* Lagrange: [B B^T A^T; A 0] [mu; lambda] = [M a + c; 0], tau_A = B^T mu */
    for (int k = 0; k < na; k++) K[act[k] * N + act[k]] = 1;
    for (int i = 0; i < 6 * L; i++)
        for (int x = 0; x < nv; x++) K[x * N + nv + i] = K[(nv + i) * N + x] = A[i * nv + x];
    for (int i = 0; i < nv; i++) r[i] = cb[i] + dot(M + i * nv, a, nv);
    solve_lsq(N, K, r);
    double worst = 0, scale = 0, pa = 0;
    for (int k = 0; k < na; k++) {
        worst = fmax(worst, fabs(tauA[k] - r[act[k]]));
        scale = fmax(scale, fabs(tauA[k]));
        pa += tauA[k] * v[act[k]];
    }
    printf("  %s, %d actuators: N_J = %d, m = %d, N_F = %d; |tau_A| up to %.3f, Lagrange differs by %.1e; virtual "
           "work %.9f vs %.9f W\n",
           what, na, nv, c->rank, nf, scale, worst, pa, dot(tauO, v, nv));
    assert_true(worst <= 1e-9 * fmax(1, scale));
    KG_ASSERT_NEAR(pa, dot(tauO, v, nv), 1e-12 * fmax(1, fabs(pa)));
    /* the accelerations keep the loops closed: A a + A' v = 0, A' v by central differences */
    const double h = 1e-5;
    double *Ap = calloc((size_t)6 * L * nv, sizeof *Ap), *Am = calloc((size_t)6 * L * nv, sizeof *Am);
    double *q0 = malloc((size_t)m->nq * sizeof *q0);
    memcpy(q0, d->q, (size_t)m->nq * sizeof *q0);
    for (int s = 0; s < 2; s++) {
        memcpy(d->q, q0, (size_t)m->nq * sizeof *q0);
        kg_q_integrate(m, d->q, v, s ? -h : h);
        kg_fk(m, d);
        kg_jacobian_twists(m, d);
        for (int k = 0; k < L; k++)
            kg_jacobian(m, d, LOOP(k).virtual_link, NULL, LOOP(k).real_link, (s ? Am : Ap) + 6 * k * nv);
    }
    memcpy(d->q, q0, (size_t)m->nq * sizeof *q0);
    kg_fk(m, d);
    for (int i = 0; i < 6 * L; i++) {
        double Adv = 0;
        for (int x = 0; x < nv; x++) Adv += (Ap[i * nv + x] - Am[i * nv + x]) / (2 * h) * v[x];
        KG_ASSERT_NEAR(dot(A + i * nv, a, nv) + Adv, 0, 1e-7);
    }
    /* forward dynamics returns the motion; where a generalised coordinate moves
     * no mass (an open loop's cut joint) it takes none of it, and the torques
     * of what it returns are the same */
    const kg_closed_options plain = {0, 0, 1e-10, 1e-12};
    double *af = calloc((size_t)nv, sizeof *af), *tau2 = calloc((size_t)na, sizeof *tau2);
    const int massless = kg_closed_forward(m, w, c, &GY, &plain, v, tauA, NULL, af);
    assert_true(massless >= 0);
    for (int x = 0; x < nv && massless == 0; x++) KG_ASSERT_NEAR(af[x], a[x], 1e-9 * fmax(1, fabs(a[x])));
    kg_closed_inverse(m, w, c, &GY, v, af, NULL, tau2, tauO);
    for (int k = 0; k < na; k++) KG_ASSERT_NEAR(tau2[k], tauA[k], 1e-9 * fmax(1, scale));
    if (massless) printf("  (forward dynamics: %d massless generalised coordinate(s), held)\n", massless);
    free(af), free(tau2), free(Ap), free(Am), free(q0);
    free(v), free(a), free(aG), free(tauA), free(tauO), free(M), free(cb), free(A), free(K), free(r);
    kg_closed_free(c);
#undef LOOP
}

/* Closes the model's loops by Newton on kg_closed's closure error, moving only
 * the coordinates not in `fixed`. Returns the largest error left. */
static double close_loops(const kg_model *m, kg_data *d, kg_dyn *w, int nfixed, const int *fixed) {
    kg_closed *c = kg_closed_new(m, -1, NULL, 0, (const int[]){0});
    const int nv = m->nv, nr = c->nrow;
    double *J = calloc((size_t)nr * nv, sizeof *J), *e = calloc((size_t)(nr > nv ? nr : nv), sizeof *e), err = 0;
    for (int it = 0; it < 30; it++) {
        kg_fk(m, d);
        kg_dyn_positions(m, d, w);
        kg_closed_update(m, d, w, c, NULL);
        err = 0;
        for (int i = 0; i < nr; i++) err = fmax(err, fabs(e[i] = c->err[i]));
        if (err < 1e-14) break;
        memcpy(J, c->JC, (size_t)nr * nv * sizeof *J);
        for (int k = 0; k < nfixed; k++)
            for (int i = 0; i < nr; i++) J[i * nv + fixed[k]] = 0;
        double sv[64];
        int rank;
        assert_int_equal(LAPACKE_dgelsd(LAPACK_ROW_MAJOR, nr, nv, 1, J, nv, e, 1, sv, 1e-12, &rank), 0);
        kg_q_integrate(m, d->q, e, -1);
    }
    kg_fk(m, d);
    kg_dyn_positions(m, d, w);
    kg_closed_free(c);
    free(J);
    free(e);
    return err;
}

static void test_collada_five_bar(void **state) {
    (void)state;
    kg_diags diags;
    kg_diags_init(&diags);
    kg_model *m = kg_test_load_string("five_bar.dae", five_bar_dae, &diags);
    if (!m) kg_test_print_diags(&diags);
    assert_non_null(m);
    assert_int_equal(m->nloop, 1);
    assert_int_equal(m->nv, 5);
    give_masses(m);
    kg_data *d = kg_data_new(m);
    kg_dyn *w = kg_dyn_new(m);
    int v[5];
    const char *names[5] = {"j1", "j2", "j3", "j4", "j5"};
    for (int k = 0; k < 5; k++) v[k] = m->joint[kg_model_joint(m, names[k])].vadr;
    /* the cranks at 100 and 70 degrees, the rest closed from the circles' upper intersection */
    const double t1 = 100 * KG_PI / 180, t3 = 70 * KG_PI / 180, l1 = 0.2, l2 = 0.35, dd = 0.25, l3 = 0.2, l4 = 0.3;
    const double P[2] = {l1 * cos(t1), l1 * sin(t1)}, R[2] = {dd + l3 * cos(t3), l3 * sin(t3)};
    const double D = hypot(R[0] - P[0], R[1] - P[1]), x = (D * D + l2 * l2 - l4 * l4) / (2 * D), y = sqrt(l2 * l2 - x * x);
    const double u[2] = {(R[0] - P[0]) / D, (R[1] - P[1]) / D}, E[2] = {P[0] + x * u[0] - y * u[1], P[1] + x * u[1] + y * u[0]};
    const double t2 = atan2(E[1] - P[1], E[0] - P[0]) - t1, t4 = atan2(E[1] - R[1], E[0] - R[0]) - t3;
    const double q[5] = {t1, t2, t3, t4, t3 + t4 - t1 - t2};
    for (int k = 0; k < 5; k++) d->q[m->joint[kg_model_joint(m, names[k])].qadr] = q[k];
    const double err = close_loops(m, d, w, 2, (const int[]){v[0], v[2]});
    printf("  five-bar from COLLADA: closure error %.1e after Newton from the circles' intersection\n", err);
    assert_true(err < 1e-12);
    check_general("five-bar (COLLADA)", m, d, w, -1, NULL, 2, (const int[]){v[0], v[2]});
    check_general("five-bar (COLLADA)", m, d, w, -1, NULL, 4, (const int[]){v[0], v[1], v[2], v[3]}); /* redundant */
    kg_dyn_free(w);
    kg_data_free(d);
    kg_model_free(m);
    kg_diags_clear(&diags);
}

/* The corpus's COLLADA loop, the Khronos conformance file: attachment_full
 * links and a loop by attachment_start/end, 2 prismatic + 2 revolute joints
 * in space against 6 closure rows. The rows are independent on all 4
 * coordinates, so nothing can move (and the loop does not close as drawn):
 * the checks of check_general need a freedom and are skipped, saying so. */
static void test_collada_corpus_loop(void **state) {
    (void)state;
    KG_REQUIRE_DATA(data);
    char path[4096];
    snprintf(path, sizeof path,
             "%s/collada/khronos_cts/library_kinematics_model/kinematics_model/technique_common/link/attachment_end/"
             "attachment_end.dae",
             data);
    kg_model *m = kg_test_load(path);
    assert_int_equal(m->nloop, 1);
    give_masses(m);
    kg_data *d = kg_data_new(m);
    kg_dyn *w = kg_dyn_new(m);
    kg_fk(m, d);
    kg_dyn_positions(m, d, w);
    kg_closed *c = kg_closed_new(m, -1, NULL, 0, (const int[]){0});
    const int nf = kg_closed_update(m, d, w, c, NULL);
    printf("  attachment_end.dae: N_J = %d, m = %d, N_F = %d\n", m->nv, c->rank, nf);
    int gen[16];
    for (int g = 0; g < nf && g < 16; g++) gen[g] = c->gen[g]; /* actuate the free coordinates */
    kg_closed_free(c);
    if (nf > 0) check_general("attachment_end.dae", m, d, w, -1, NULL, nf, gen);
    kg_dyn_free(w);
    kg_data_free(d);
    kg_model_free(m);
    if (nf == 0) {
        printf("SKIPPED: the closure rows of attachment_end.dae leave no freedom (over-constrained loop)\n");
        skip();
    }
}

/* ---- mimic couplings are constraint rows too ------------------------------------------- */

/* A planar 2R arm whose elbow follows the shoulder twice over: one
 * generalised coordinate, W = (1, 2), and the shoulder's motor carries both
 * joints' torques, tau_A = tau_1 + 2 tau_2 (virtual work). */
static void test_mimic_rows(void **state) {
    (void)state;
    static const char urdf[] =
        "<robot name='m2'><link name='base'/>"
        "<link name='l1'><inertial><mass value='1.2'/><origin xyz='0.3 0 0'/>"
        "<inertia ixx='0.01' ixy='0' ixz='0' iyy='0.04' iyz='0' izz='0.04'/></inertial></link>"
        "<link name='l2'><inertial><mass value='0.8'/><origin xyz='0.2 0.05 0'/>"
        "<inertia ixx='0.01' ixy='0' ixz='0' iyy='0.02' iyz='0' izz='0.03'/></inertial></link>"
        "<joint name='j1' type='continuous'><parent link='base'/><child link='l1'/><axis xyz='0 0 1'/></joint>"
        "<joint name='j2' type='continuous'><parent link='l1'/><child link='l2'/><origin xyz='0.6 0 0'/>"
        "<axis xyz='0 0 1'/><mimic joint='j1' multiplier='2' offset='0.1'/></joint></robot>";
    kg_diags diags;
    kg_diags_init(&diags);
    kg_model *m = kg_test_load_string("m2.urdf", urdf, &diags);
    assert_non_null(m);
    assert_int_equal(m->nmimic, 1);
    const int v1 = m->joint[kg_model_joint(m, "j1")].vadr, v2 = m->joint[kg_model_joint(m, "j2")].vadr;
    kg_data *d = kg_data_new(m);
    kg_dyn *w = kg_dyn_new(m);
    d->q[m->joint[kg_model_joint(m, "j1")].qadr] = 0.3;
    kg_fk(m, d); /* the follower at 2 (0.3) + 0.1 */
    kg_dyn_positions(m, d, w);
    kg_closed *c = kg_closed_new(m, -1, NULL, 0, NULL); /* default actuators: j1 (a follower is passive) */
    assert_int_equal(c->na, 1);
    assert_int_equal(c->act[0], v1);
    assert_int_equal(kg_closed_update(m, d, w, c, NULL), 1);
    KG_ASSERT_NEAR(c->err[0], 0, 1e-15);
    KG_ASSERT_NEAR(c->W[v1], 1, 0);
    KG_ASSERT_NEAR(c->W[v2], 2, 1e-15);
    double v[2], a[2], aG = 1.5, tauA, tauO[2];
    v[v1] = 0.7, v[v2] = 1.4;
    kg_closed_accel(m, w, c, v, &aG, a);
    KG_ASSERT_NEAR(a[v2], 2 * a[v1], 1e-15);
    assert_true(kg_closed_inverse(m, w, c, &GY, v, a, NULL, &tauA, tauO) < 1e-12);
    KG_ASSERT_NEAR(tauA, tauO[v1] + 2 * tauO[v2], 1e-12);
    double af[2];
    assert_int_equal(kg_closed_forward(m, w, c, &GY, NULL, v, &tauA, NULL, af), 0);
    for (int k = 0; k < 2; k++) KG_ASSERT_NEAR(af[k], a[k], 1e-12);
    kg_closed_free(c);
    kg_dyn_free(w);
    kg_data_free(d);
    kg_model_free(m);
    kg_diags_clear(&diags);
}

/* ---- two loops, closed together or one at a time ------------------------------------- */

/* Two four-bars on one crank: ground -J1-> L1, then L1 -J2-> L2 -J3-> L3 -J4->
 * pivot1 (on the ground at (0.4, 0)) and L1 -K2-> M2 -K3-> M3 -K4-> pivot2 (at
 * (0.45, 0)). N_J = 7; both loops: m = 6, N_F = 1; one loop: m = 3, N_F = 4. */
static kg_model *double_four_bar(kg_diags *diags) {
    kg_builder *bl = kg_builder_new("double_four_bar", "test", diags);
    kg_builder_set_name(bl, "double_four_bar");
    const char *links[] = {"ground", "L1", "L2", "L3", "pivot1", "M2", "M3", "pivot2"};
    for (int i = 0; i < 8; i++) kg_builder_add_link(bl, links[i], i + 1);
    struct { const char *name, *parent, *child; double x; } j[] = {
        {"J1", "ground", "L1", 0}, {"J2", "L1", "L2", 0.1}, {"J3", "L2", "L3", 0.35}, {"J4", "L3", "pivot1", 0.3},
        {"K2", "L1", "M2", 0.1},   {"K3", "M2", "M3", 0.3},  {"K4", "M3", "pivot2", 0.35}};
    for (int k = 0; k < 7; k++) {
        kg_joint *J = kg_builder_add_joint(bl, j[k].name, KG_JOINT_CONTINUOUS, j[k].parent, j[k].child, 10 + k);
        J->pos[0] = j[k].x;
        J->axis[0] = 0;
        J->axis[2] = 1;
    }
    kg_builder_add_joint(bl, "D1", KG_JOINT_FIXED, "ground", "pivot1", 20)->pos[0] = 0.4;
    kg_builder_add_joint(bl, "D2", KG_JOINT_FIXED, "ground", "pivot2", 21)->pos[0] = 0.45;
    return kg_builder_finish(bl);
}

static void test_loop_sets(void **state) {
    (void)state;
    kg_diags diags;
    kg_diags_init(&diags);
    kg_model *m = double_four_bar(&diags);
    assert_non_null(m);
    assert_int_equal(m->nloop, 2);
    assert_int_equal(m->nv, 7);
    give_masses(m);
    kg_data *d = kg_data_new(m);
    kg_dyn *w = kg_dyn_new(m);
    const char *names[7] = {"J1", "J2", "J3", "J4", "K2", "K3", "K4"};
    int v[7];
    for (int k = 0; k < 7; k++) v[k] = m->joint[kg_model_joint(m, names[k])].vadr;
    /* near D7's pose for both (the second a mirror-like guess), closed by Newton with the crank held */
    const double guess[7] = {Q7[0], Q7[1], Q7[2], Q7[3], -0.3, -1.9, 1.2};
    for (int k = 0; k < 7; k++) d->q[m->joint[kg_model_joint(m, names[k])].qadr] = guess[k];
    const double err = close_loops(m, d, w, 1, &v[0]);
    assert_true(err < 1e-12);
    kg_closed *c = kg_closed_new(m, -1, NULL, 1, &v[0]);
    assert_int_equal(kg_closed_update(m, d, w, c, NULL), 1);
    assert_int_equal(c->rank, 6);
    kg_closed_free(c);
    check_general("two loops on one crank", m, d, w, -1, NULL, 1, &v[0]);
    check_general("two loops on one crank", m, d, w, -1, NULL, 3, (const int[]){v[0], v[1], v[4]});
    /* each loop alone: the other chain is open, its three joints free and driven */
    for (int k = 0; k < 2; k++) {
        const int other = m->joint[m->loop[1 - k].cut_joint].name[0] == 'J' ? 1 : 4; /* J2..J4 or K2..K4 */
        c = kg_closed_new(m, 1, &k, 1, &v[0]);
        assert_int_equal(kg_closed_update(m, d, w, c, NULL), 4);
        assert_int_equal(c->rank, 3);
        kg_closed_free(c);
        check_general("one loop of two", m, d, w, 1, &k, 4, (const int[]){v[0], v[other], v[other + 1], v[other + 2]});
    }
    kg_dyn_free(w);
    kg_data_free(d);
    kg_model_free(m);
    kg_diags_clear(&diags);
}

/* ---- a pseudo-closed chain: a floating base joined to the ground (digest 1.9) ---------- */

/* world -floating-> Base -R1-> Link1 -N-> anchor@N, the anchor fixed on the
 * world: physically an open chain of two revolute joints from the ground, kept
 * as a loop through the 6-DOF free joint. N_J = 6 + 1 + 1 = 8, m = 6, N_F = 2. */
static kg_model *pseudo_closed(kg_diags *diags) {
    kg_builder *bl = kg_builder_new("pseudo_closed", "test", diags);
    kg_builder_set_name(bl, "pseudo_closed");
    const char *links[] = {"world", "anchor", "Base", "Link1"};
    for (int i = 0; i < 4; i++) kg_builder_add_link(bl, links[i], i + 1);
    kg_builder_add_joint(bl, "A", KG_JOINT_FIXED, "world", "anchor", 10)->pos[0] = 0.7;
    kg_builder_add_joint(bl, "F", KG_JOINT_FLOATING, "world", "Base", 11);
    kg_joint *r1 = kg_builder_add_joint(bl, "R1", KG_JOINT_CONTINUOUS, "Base", "Link1", 12);
    r1->pos[0] = 0.3, r1->axis[0] = 0, r1->axis[2] = 1;
    kg_joint *n = kg_builder_add_joint(bl, "N", KG_JOINT_CONTINUOUS, "Link1", "anchor", 13);
    n->pos[0] = 0.4, n->axis[0] = 0, n->axis[1] = 1;
    return kg_builder_finish(bl);
}

static void test_pseudo_closed(void **state) {
    (void)state;
    kg_diags diags;
    kg_diags_init(&diags);
    kg_model *m = pseudo_closed(&diags);
    assert_non_null(m);
    assert_int_equal(m->nloop, 1);
    assert_string_equal(m->joint[m->loop[0].cut_joint].name, "N");
    assert_int_equal(m->nv, 8);
    give_masses(m);
    kg_data *d = kg_data_new(m);
    kg_dyn *w = kg_dyn_new(m);
    const int r1 = m->joint[kg_model_joint(m, "R1")].vadr, nj = m->joint[kg_model_joint(m, "N")].vadr;
    d->q[m->joint[kg_model_joint(m, "R1")].qadr] = 0.4;
    d->q[m->joint[kg_model_joint(m, "N")].qadr] = -0.3;
    /* the base moves to close the loop around the two joints' angles */
    assert_true(close_loops(m, d, w, 2, (const int[]){r1, nj}) < 1e-12);
    kg_closed *c = kg_closed_new(m, -1, NULL, 0, NULL);
    assert_int_equal(c->na, 1); /* the default: R1 (the free joint and the cut joint are passive) */
    assert_int_equal(kg_closed_update(m, d, w, c, NULL), 2);
    assert_int_equal(c->rank, 6);
    /* one actuator for two freedoms: a generic motion's torques cannot be had */
    double v[8] = {0}, a[8], tauA, aG[2] = {0.3, -0.2};
    for (int x = 0; x < 8; x++) v[x] = c->W[x * 2] * 0.5 + c->W[x * 2 + 1] * 0.7;
    kg_closed_accel(m, w, c, v, aG, a);
    const double res = kg_closed_inverse(m, w, c, &GY, v, a, NULL, &tauA, NULL);
    printf("  pseudo-closed chain, R1 alone: |S^T tau_A - tau_G| = %.3f\n", res);
    assert_true(res > 1e-3);
    kg_closed_free(c);
    check_general("pseudo-closed chain (floating base)", m, d, w, -1, NULL, 2, (const int[]){r1, nj});
    kg_dyn_free(w);
    kg_data_free(d);
    kg_model_free(m);
    kg_diags_clear(&diags);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_four_bar_vectors),
        cmocka_unit_test(test_four_bar_lagrange),
        cmocka_unit_test(test_four_bar_simulation),
        cmocka_unit_test(test_mimic_rows),
        cmocka_unit_test(test_loop_sets),
        cmocka_unit_test(test_pseudo_closed),
        cmocka_unit_test(test_collada_five_bar),
        cmocka_unit_test(test_collada_corpus_loop),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
