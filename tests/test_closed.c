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

#include "analysis/dynamics/dynamics.h"
#include "analysis/jacobian.h"
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

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_four_bar_vectors),
        cmocka_unit_test(test_four_bar_lagrange),
        cmocka_unit_test(test_four_bar_simulation),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
