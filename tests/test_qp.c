/* The QP solver (analysis/qp.c): problems solved by hand, cvxopt's solutions of
 * random ones (tests/reference/qp/random.json, from tests/peers/qp_reference.py),
 * the KKT conditions of every solution, infeasible and non-convex problems,
 * the iteration cap and warm starts. */
#include "testutil.h"

#include <stdlib.h>
#include <string.h>

#include "analysis/qp.h"

/* ---- helpers ------------------------------------------------------------------ */

/* xorshift64* in [0, 1), and a standard normal (Box-Muller) */
static double uniform(uint64_t *s) {
    *s ^= *s >> 12, *s ^= *s << 25, *s ^= *s >> 27;
    return (double)((*s * 2685821657736338717ull) >> 11) * (1.0 / 9007199254740992.0);
}
static double gauss(uint64_t *s) {
    double u = uniform(s), v = uniform(s);
    return sqrt(-2 * log(u + 1e-300)) * cos(6.283185307179586 * v); /* 2 pi v */
}

/* The KKT conditions' residuals at (x, lambda), each relative to the size of
 * its terms: stationarity H x + g - C'nu - A'lambda_in - lambda_lb + lambda_ub = 0,
 * primal feasibility, dual feasibility (lambda >= 0 but for equalities) and
 * complementary slackness (lambda_i slack_i = 0). */
typedef struct kkt { double stationarity, primal, dual, complementarity; } kkt;

/* Slack of constraint k (index as in qp.h) and the size of its terms. */
static double slack_of(const kg_qp *p, int k, const double *x, double *size) {
    int n = p->n;
    const double *a = NULL;
    double b;
    if (k < p->neq) a = p->C + (size_t)k * n, b = p->d[k];
    else if (k < p->neq + p->nin) a = p->A + (size_t)(k - p->neq) * n, b = p->b[k - p->neq];
    if (a) {
        double s = -b;
        *size = fabs(b);
        for (int j = 0; j < n; j++) s += a[j] * x[j], *size += fabs(a[j] * x[j]);
        return s;
    }
    int i = k - p->neq - p->nin;
    if (i < n) {
        double l = p->lb ? p->lb[i] : -INFINITY;
        *size = l > -INFINITY ? fabs(l) + fabs(x[i]) : 1;
        return l > -INFINITY ? x[i] - l : INFINITY;
    }
    double u = p->ub ? p->ub[i - n] : INFINITY;
    *size = u < INFINITY ? fabs(u) + fabs(x[i - n]) : 1;
    return u < INFINITY ? u - x[i - n] : INFINITY;
}

static kkt kkt_residuals(const kg_qp *p, const double *x, const double *lam) {
    int n = p->n, m = p->neq + p->nin + 2 * n;
    kkt r = {0, 0, 0, 0};
    double lmax = 1, smax = 1e-300;
    for (int k = 0; k < m; k++) lmax = fmax(lmax, fabs(lam[k]));
    double *res = calloc((size_t)n, sizeof *res), *size = calloc((size_t)n, sizeof *size);
    for (int i = 0; i < n; i++) {
        res[i] = p->g[i], size[i] = fabs(p->g[i]);
        for (int j = 0; j < n; j++) res[i] += p->H[i * n + j] * x[j], size[i] += fabs(p->H[i * n + j] * x[j]);
    }
    for (int k = 0; k < p->neq + p->nin; k++) {
        const double *a = k < p->neq ? p->C + (size_t)k * n : p->A + (size_t)(k - p->neq) * n;
        for (int i = 0; i < n; i++) res[i] -= a[i] * lam[k], size[i] += fabs(a[i] * lam[k]);
    }
    for (int i = 0; i < n; i++) {
        double l = lam[p->neq + p->nin + i], u = lam[p->neq + p->nin + n + i];
        res[i] += u - l, size[i] += fabs(l) + fabs(u);
    }
    for (int i = 0; i < n; i++) smax = fmax(smax, size[i]);
    for (int i = 0; i < n; i++) r.stationarity = fmax(r.stationarity, fabs(res[i]) / smax);
    for (int k = 0; k < m; k++) {
        double sz, s = slack_of(p, k, x, &sz), scale = fmax(sz, 1e-300);
        double viol = k < p->neq ? fabs(s) : fmax(-s, 0);
        r.primal = fmax(r.primal, viol / scale);
        if (k >= p->neq) r.dual = fmax(r.dual, fmax(-lam[k], 0) / lmax);
        if (lam[k] != 0 && k >= p->neq) r.complementarity = fmax(r.complementarity, fabs(lam[k] * s) / (lmax * scale));
    }
    free(res), free(size);
    return r;
}

static void assert_kkt(const kg_qp *p, const double *x, const double *lam, double tol, kkt *worst) {
    kkt r = kkt_residuals(p, x, lam);
    if (!(r.stationarity <= tol && r.primal <= tol && r.dual <= tol && r.complementarity <= tol))
        fail_msg("KKT residuals: stationarity %.3g, primal %.3g, dual %.3g, complementarity %.3g (tolerance %g)",
                 r.stationarity, r.primal, r.dual, r.complementarity, tol);
    if (worst) {
        worst->stationarity = fmax(worst->stationarity, r.stationarity);
        worst->primal = fmax(worst->primal, r.primal);
        worst->dual = fmax(worst->dual, r.dual);
        worst->complementarity = fmax(worst->complementarity, r.complementarity);
    }
}

static int all_finite(const double *v, int n) {
    for (int i = 0; i < n; i++)
        if (!isfinite(v[i])) return 0;
    return 1;
}

/* Solves p (work sized to it), checks the status, returns x and lambda. */
static kg_qp_result solve(const kg_qp *p, double *x, double *lam, int expect) {
    kg_qp_work *w = kg_qp_work_new(p->n, p->neq + p->nin);
    assert_non_null(w);
    kg_qp_result r;
    int st = kg_qp_solve(p, x, lam, w, &r);
    if (st != expect) fail_msg("status %s, expected %s", kg_qp_status_name(st), kg_qp_status_name(expect));
    assert_int_equal(r.status, st);
    kg_qp_work_free(w);
    return r;
}

/* ---- problems solved by hand ---------------------------------------------------- */

static void test_unconstrained(void **state) {
    (void)state;
    /* x = -H^-1 g: H^-1 = [[2, -1], [-1, 4]] / 7 */
    const double H[4] = {4, 1, 1, 2}, g[2] = {1, 1};
    kg_qp p = {.n = 2, .H = H, .g = g};
    double x[2], lam[4];
    kg_qp_result r = solve(&p, x, lam, KG_QP_OK);
    KG_ASSERT_NEAR(x[0], -1.0 / 7, 1e-15);
    KG_ASSERT_NEAR(x[1], -3.0 / 7, 1e-15);
    assert_int_equal(r.iterations, 0);
    assert_int_equal(r.nactive, 0);
    KG_ASSERT_NEAR(r.cost, 0.5 * (g[0] * x[0] + g[1] * x[1]), 1e-15); /* at the minimum: g'x / 2 */
    for (int k = 0; k < 4; k++) assert_true(lam[k] == 0);
}

static void test_one_bound(void **state) {
    (void)state;
    /* min 1/2 |x|^2 - 2 x0 with x0 <= 1: x = (1, 0); H x + g = (-1, 0) = -lambda_ub0 */
    const double H[4] = {1, 0, 0, 1}, g[2] = {-2, 0}, lb[2] = {-INFINITY, -5}, ub[2] = {1, INFINITY};
    kg_qp p = {.n = 2, .H = H, .g = g, .lb = lb, .ub = ub};
    double x[2], lam[4];
    kg_qp_result r = solve(&p, x, lam, KG_QP_OK);
    KG_ASSERT_NEAR(x[0], 1, 1e-15);
    KG_ASSERT_NEAR(x[1], 0, 1e-15);
    KG_ASSERT_NEAR(lam[2], 1, 1e-15); /* the upper bound of x0: neq + nin + n + 0 */
    assert_true(lam[0] == 0 && lam[1] == 0 && lam[3] == 0);
    assert_int_equal(r.nactive, 1);
    KG_ASSERT_NEAR(r.cost, 0.5 - 2, 1e-15);
    const int *idx;
    kg_qp_work *w = kg_qp_work_new(2, 0);
    kg_qp_solve(&p, x, NULL, w, NULL);
    assert_int_equal(kg_qp_active(w, &idx), 1);
    assert_int_equal(idx[0], 2);
    kg_qp_work_free(w);
}

static void test_one_equality(void **state) {
    (void)state;
    /* min 1/2 |x|^2 with x0 + x1 = 2: x = (1, 1), H x = nu (1, 1), nu = 1 */
    const double H[4] = {1, 0, 0, 1}, g[2] = {0, 0}, C[2] = {1, 1}, d[1] = {2};
    kg_qp p = {.n = 2, .H = H, .g = g, .neq = 1, .C = C, .d = d};
    double x[2], lam[6]; /* neq + nin + 2n: 5, then 6 for the second problem */
    solve(&p, x, lam, KG_QP_OK);
    KG_ASSERT_NEAR(x[0], 1, 1e-15);
    KG_ASSERT_NEAR(x[1], 1, 1e-15);
    KG_ASSERT_NEAR(lam[0], 1, 1e-15);
    /* the same row twice, consistent: redundant, skipped with multiplier 0 */
    const double C2[4] = {1, 1, 2, 2}, d2[2] = {2, 4};
    kg_qp p2 = {.n = 2, .H = H, .g = g, .neq = 2, .C = C2, .d = d2};
    kg_qp_result r = solve(&p2, x, lam, KG_QP_OK);
    KG_ASSERT_NEAR(x[0], 1, 1e-15);
    KG_ASSERT_NEAR(lam[0], 1, 1e-15);
    assert_true(lam[1] == 0);
    assert_int_equal(r.nactive, 1);
}

static void test_quadprog_example(void **state) {
    (void)state;
    /* quadprog's README (R's solve.QP): Dmat = I3, dvec = (0, 5, 0), Amat =
     * matrix(c(-4,-3,0, 2,1,0, 0,-2,1), 3, 3) (R fills by columns: each column
     * is a constraint), bvec = (-8, 2, 0), subject to Amat' b >= bvec. Here:
     * g = -dvec and the rows of A are Amat's columns. Its solution
     * (0.4761905, 1.0476190, 2.0952381), multipliers (0, 0.2380952, 2.0952381). */
    const double H[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1}, g[3] = {0, -5, 0};
    const double A[9] = {-4, -3, 0, 2, 1, 0, 0, -2, 1}, b[3] = {-8, 2, 0};
    kg_qp p = {.n = 3, .H = H, .g = g, .nin = 3, .A = A, .b = b};
    double x[3], lam[9];
    kg_qp_result r = solve(&p, x, lam, KG_QP_OK);
    KG_ASSERT_NEAR(x[0], 10.0 / 21, 1e-14); /* 0.476190... */
    KG_ASSERT_NEAR(x[1], 22.0 / 21, 1e-14); /* 1.047619... */
    KG_ASSERT_NEAR(x[2], 44.0 / 21, 1e-14); /* 2.095238... */
    KG_ASSERT_NEAR(lam[0], 0, 1e-14);
    KG_ASSERT_NEAR(lam[1], 5.0 / 21, 1e-14); /* 0.2380952 */
    KG_ASSERT_NEAR(lam[2], 44.0 / 21, 1e-14);
    assert_int_equal(r.nactive, 2);
    KG_ASSERT_NEAR(r.cost, 0.5 * (x[0] * x[0] + x[1] * x[1] + x[2] * x[2]) - 5 * x[1], 1e-14);
    assert_kkt(&p, x, lam, 1e-14, NULL);
}

static void test_status_names(void **state) {
    (void)state;
    assert_string_equal(kg_qp_status_name(KG_QP_OK), "ok");
    assert_string_equal(kg_qp_status_name(KG_QP_INFEASIBLE), "infeasible");
    assert_string_equal(kg_qp_status_name(KG_QP_MAX_ITERATIONS), "max_iterations");
    assert_string_equal(kg_qp_status_name(KG_QP_NOT_CONVEX), "not_convex");
    assert_string_equal(kg_qp_status_name(KG_QP_BAD_INPUT), "bad_input");
    assert_string_equal(kg_qp_status_name(42), "unknown");
}

/* ---- cvxopt's solutions of random problems --------------------------------------- */

/* A problem of the reference file, its arrays owned. */
typedef struct ref_problem {
    kg_qp p;
    double *H, *g, *C, *d, *A, *b, *lb, *ub, *x_cvxopt, *x_planted;
    const char *name;
} ref_problem;

/* A JSON array of numbers into a new array; null is `missing` (an absent bound). */
static double *numbers(json_t *doc, const char *key, size_t expect, double missing) {
    json_t *a = json_object_get(doc, key);
    assert_non_null(a);
    assert_int_equal(json_array_size(a), expect);
    double *v = malloc((expect + 1) * sizeof *v);
    for (size_t i = 0; i < expect; i++) {
        json_t *e = json_array_get(a, i);
        v[i] = json_is_null(e) ? missing : json_number_value(e);
    }
    return v;
}

static void ref_load(ref_problem *r, json_t *j) {
    memset(r, 0, sizeof *r);
    size_t n = (size_t)json_integer_value(json_object_get(j, "n"));
    size_t neq = (size_t)json_integer_value(json_object_get(j, "neq"));
    size_t nin = (size_t)json_integer_value(json_object_get(j, "nin"));
    r->name = json_string_value(json_object_get(j, "name"));
    r->H = numbers(j, "H", n * n, 0), r->g = numbers(j, "g", n, 0);
    r->C = numbers(j, "C", neq * n, 0), r->d = numbers(j, "d", neq, 0);
    r->A = numbers(j, "A", nin * n, 0), r->b = numbers(j, "b", nin, 0);
    r->lb = numbers(j, "lb", n, -INFINITY), r->ub = numbers(j, "ub", n, INFINITY);
    r->x_cvxopt = numbers(j, "x_cvxopt", n, 0), r->x_planted = numbers(j, "x_planted", n, 0);
    kg_qp p = {.n = (int)n, .H = r->H, .g = r->g, .neq = (int)neq, .C = r->C, .d = r->d, .nin = (int)nin,
               .A = r->A, .b = r->b, .lb = r->lb, .ub = r->ub};
    r->p = p;
}

static void ref_free(ref_problem *r) {
    free(r->H), free(r->g), free(r->C), free(r->d), free(r->A), free(r->b);
    free(r->lb), free(r->ub), free(r->x_cvxopt), free(r->x_planted);
}

static json_t *reference(void) {
    json_error_t e;
    json_t *doc = json_load_file(KG_SOURCE_DIR "/tests/reference/qp/random.json", 0, &e);
    if (!doc) fail_msg("tests/reference/qp/random.json: %s (line %d)", e.text, e.line);
    return doc;
}

static double norm2(const double *v, int n) {
    double s = 0;
    for (int i = 0; i < n; i++) s += v[i] * v[i];
    return sqrt(s);
}

/* |a - b|_2 / |b|_2 and |a - b|_inf / max(1, |b|_inf) */
static void differences(const double *a, const double *b, int n, double *rel2, double *relinf) {
    double d2 = 0, dinf = 0, binf = 1;
    for (int i = 0; i < n; i++) {
        d2 += (a[i] - b[i]) * (a[i] - b[i]);
        dinf = fmax(dinf, fabs(a[i] - b[i]));
        binf = fmax(binf, fabs(b[i]));
    }
    *rel2 = sqrt(d2) / fmax(norm2(b, n), 1e-300);
    *relinf = dinf / binf;
}

/* Every problem: x as cvxopt's within 1e-6 relative (|dx|_2 / |x|_2: cvxopt's
 * interior point stops there, on the degenerate problems up to 1.5e-6 from the
 * planted solution in single components), as the planted solution within
 * 1e-9, and the KKT conditions of our own (x, lambda) to 1e-8. */
static void test_cvxopt_reference(void **state) {
    (void)state;
    json_t *doc = reference(), *list = json_object_get(doc, "problems");
    assert_true(json_array_size(list) >= 20);
    double worst_cvx = 0, worst_cvx_inf = 0, worst_planted = 0;
    kkt worst = {0, 0, 0, 0};
    kg_qp_work *w = kg_qp_work_new(60, 200);
    assert_non_null(w);
    for (size_t k = 0; k < json_array_size(list); k++) {
        ref_problem r;
        ref_load(&r, json_array_get(list, k));
        int n = r.p.n, m = r.p.neq + r.p.nin + 2 * n;
        double *x = malloc((size_t)n * sizeof *x), *lam = malloc((size_t)m * sizeof *lam);
        int st = kg_qp_solve(&r.p, x, lam, w, NULL);
        if (st != KG_QP_OK) fail_msg("%s: %s", r.name, kg_qp_status_name(st));
        double rel2, relinf, pl2, plinf;
        differences(x, r.x_cvxopt, n, &rel2, &relinf);
        differences(x, r.x_planted, n, &pl2, &plinf);
        if (!(rel2 <= 1e-6)) fail_msg("%s: |x - x_cvxopt| / |x_cvxopt| = %.3g", r.name, rel2);
        if (!(plinf <= 1e-9)) fail_msg("%s: x differs from the planted solution by %.3g", r.name, plinf);
        assert_kkt(&r.p, x, lam, 1e-8, &worst);
        worst_cvx = fmax(worst_cvx, rel2), worst_cvx_inf = fmax(worst_cvx_inf, relinf);
        worst_planted = fmax(worst_planted, plinf);
        free(x), free(lam);
        ref_free(&r);
    }
    printf("%zu problems (%s): x against cvxopt's worst %.2g relative (2-norm; %.2g in one component), "
           "against the planted solution %.2g; KKT residuals: stationarity %.2g, primal %.2g, dual %.2g, "
           "complementarity %.2g\n",
           json_array_size(list), json_string_value(json_object_get(doc, "peer")), worst_cvx, worst_cvx_inf,
           worst_planted, worst.stationarity, worst.primal, worst.dual, worst.complementarity);
    kg_qp_work_free(w);
    json_decref(doc);
}

/* ---- warm starts ----------------------------------------------------------------- */

/* Solves p warm with the hint and checks x against x_ref and the KKT conditions. */
static kg_qp_result solve_hinted(const kg_qp *p, const int *hint, int nhint, kg_qp_work *w, const double *x_ref,
                                 const char *name, double *worst) {
    int n = p->n;
    double *x = malloc((size_t)n * sizeof *x), *lam = malloc((size_t)(p->neq + p->nin + 2 * n) * sizeof *lam);
    kg_qp ph = *p;
    ph.hint = hint, ph.nhint = nhint;
    kg_qp_result res;
    if (kg_qp_solve(&ph, x, lam, w, &res) != KG_QP_OK) fail_msg("%s: %s warm", name, kg_qp_status_name(res.status));
    double rel2, relinf;
    differences(x, x_ref, n, &rel2, &relinf);
    if (!(relinf <= 1e-10)) fail_msg("%s: the warm-started x differs by %.3g", name, relinf);
    assert_kkt(&ph, x, lam, 1e-8, NULL);
    *worst = fmax(*worst, relinf);
    free(x), free(lam);
    return res;
}

/* The reference problems again, hinted with their own active sets: the same
 * x in no more iterations (the hinted constraints are added without drops). */
static void test_warm_start(void **state) {
    (void)state;
    json_t *doc = reference(), *list = json_object_get(doc, "problems");
    kg_qp_work *w = kg_qp_work_new(60, 200);
    long cold = 0, warm = 0;
    double worst = 0;
    for (size_t k = 0; k < json_array_size(list); k++) {
        ref_problem r;
        ref_load(&r, json_array_get(list, k));
        double *x = malloc((size_t)r.p.n * sizeof *x);
        kg_qp_result res;
        assert_int_equal(kg_qp_solve(&r.p, x, NULL, w, &res), KG_QP_OK);
        const int *idx;
        int na = kg_qp_active(w, &idx), *hint = malloc((size_t)(na + 1) * sizeof *hint);
        memcpy(hint, idx, (size_t)na * sizeof *hint);
        kg_qp_result res2 = solve_hinted(&r.p, hint, na, w, x, r.name, &worst);
        if (res2.iterations > res.iterations)
            fail_msg("%s: %d iterations warm, %d cold", r.name, res2.iterations, res.iterations);
        cold += res.iterations, warm += res2.iterations;
        free(hint), free(x);
        ref_free(&r);
    }
    printf("warm starts: %ld iterations against %ld cold, x within %.2g\n", warm, cold, worst);
    kg_qp_work_free(w);
    json_decref(doc);
}

/* Hints that do not fit: each reference problem changed (g moved, the slack
 * rows relaxed) and hinted with the old active set, as consecutive frames of
 * a motion are; and random hints (inactive constraints, duplicates, equality
 * indices, indices out of range). The same x as cold, the KKT conditions. */
static void test_warm_start_mismatched(void **state) {
    (void)state;
    json_t *doc = reference(), *list = json_object_get(doc, "problems");
    kg_qp_work *w = kg_qp_work_new(60, 200);
    uint64_t s = 0x7761726d73746172ull;
    double worst = 0;
    for (size_t k = 0; k < json_array_size(list); k++) {
        ref_problem r;
        ref_load(&r, json_array_get(list, k));
        int n = r.p.n, m = r.p.neq + r.p.nin + 2 * n;
        double *x = malloc((size_t)n * sizeof *x);
        assert_int_equal(kg_qp_solve(&r.p, x, NULL, w, NULL), KG_QP_OK);
        const int *idx;
        int na = kg_qp_active(w, &idx), *hint = malloc((size_t)(m + 8) * sizeof *hint);
        memcpy(hint, idx, (size_t)na * sizeof *hint);
        for (int i = 0; i < n; i++) r.g[i] += 0.3 * gauss(&s);
        for (int i = 0; i < r.p.nin; i++) r.b[i] -= 0.05 * uniform(&s); /* x* stays feasible */
        assert_int_equal(kg_qp_solve(&r.p, x, NULL, w, NULL), KG_QP_OK); /* cold, the reference */
        solve_hinted(&r.p, hint, na, w, x, r.name, &worst);
        int nh = 0;
        for (int i = 0; i < n / 2 + 3; i++) hint[nh++] = (int)(uniform(&s) * m);
        hint[nh++] = -1, hint[nh++] = m, hint[nh++] = hint[0], hint[nh++] = 0;
        solve_hinted(&r.p, hint, nh, w, x, r.name, &worst);
        free(hint), free(x);
        ref_free(&r);
    }
    printf("mismatched warm starts: x within %.2g of the cold solutions\n", worst);
    kg_qp_work_free(w);
    json_decref(doc);
}

/* ---- infeasible problems ----------------------------------------------------------- */

/* A random problem feasible at a random x0: H = M'M / n + 0.1 I, rows through
 * or short of x0, bounds x0 -+ 1. Arrays in one block (free(r->H)). */
typedef struct rnd { kg_qp p; double *H, *g, *C, *d, *A, *b, *lb, *ub, *x0; } rnd;

static void rnd_make(rnd *r, uint64_t *s, int n, int neq, int nin) {
    double *v = malloc((size_t)(n * n + 5 * n + (neq + nin) * (n + 1) + 1) * sizeof *v);
    r->H = v, r->g = v + n * n, r->lb = r->g + n, r->ub = r->lb + n, r->x0 = r->ub + n;
    r->C = r->x0 + n, r->A = r->C + neq * n, r->d = r->A + nin * n, r->b = r->d + neq; /* C, A contiguous */
    double *M = malloc((size_t)n * n * sizeof *M);
    for (int i = 0; i < n * n; i++) M[i] = gauss(s);
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++) {
            double h = i == j ? 0.1 : 0;
            for (int k = 0; k < n; k++) h += M[k * n + i] * M[k * n + j] / n;
            r->H[i * n + j] = h;
        }
    free(M);
    for (int i = 0; i < n; i++) {
        r->g[i] = 3 * gauss(s), r->x0[i] = gauss(s);
        r->lb[i] = r->x0[i] - 1, r->ub[i] = r->x0[i] + 1;
    }
    for (int k = 0; k < neq + nin; k++) {
        double *a = r->C + (size_t)k * n, t = 0; /* C and A are contiguous */
        for (int j = 0; j < n; j++) a[j] = gauss(s), t += a[j] * r->x0[j];
        if (k < neq) r->d[k] = t;
        else r->b[k - neq] = t - uniform(s);
    }
    kg_qp p = {.n = n, .H = r->H, .g = r->g, .neq = neq, .C = r->C, .d = r->d, .nin = nin, .A = r->A,
               .b = r->b, .lb = r->lb, .ub = r->ub};
    r->p = p;
}

/* Contradictions of four kinds at several sizes: KG_QP_INFEASIBLE, a finite
 * x, and few iterations (no constraint needs adding more than about twice). */
static void test_infeasible(void **state) {
    (void)state;
    uint64_t s = 0x71706e6f74666561ull;
    int most = 0, count = 0;
    kg_qp_work *w = kg_qp_work_new(40, 60);
    for (int n = 5; n <= 40; n *= 2)
        for (int kind = 0; kind < 5; kind++)
            for (int trial = 0; trial < 4; trial++) {
                rnd r;
                int neq = kind == 2 ? 3 : n / 5, nin = n;
                rnd_make(&r, &s, n, neq, nin);
                double x[40], lam[60 + 80];
                kg_qp_result res;
                assert_int_equal(kg_qp_solve(&r.p, x, lam, w, &res), KG_QP_OK); /* before the contradiction */
                int i = (int)(uniform(&s) * n);
                double *a0 = r.A, *a1 = r.A + n;
                if (kind == 0) { /* x_i >= 1 and x_i <= 0 as bounds */
                    r.lb[i] = 1, r.ub[i] = 0;
                } else if (kind == 1 || kind == 4) { /* as rows (kind 4: x_i >= 1 a bound, x_i <= 0 a row) */
                    for (int j = 0; j < n; j++) a0[j] = a1[j] = 0;
                    a0[i] = 1, a1[i] = -1, r.b[0] = 1, r.b[1] = 0;
                    r.lb[i] = kind == 4 ? 1 : -INFINITY, r.ub[i] = INFINITY;
                } else if (kind == 2) { /* C_2 = C_0 + C_1 but d_2 != d_0 + d_1 */
                    for (int j = 0; j < n; j++) r.C[2 * n + j] = r.C[j] + r.C[n + j];
                    r.d[2] = r.d[0] + r.d[1] + 0.5;
                } else { /* a row beyond the box 0 <= x <= 1: a'x >= sum of its positive entries + 0.5 */
                    double top = 0.5;
                    for (int j = 0; j < n; j++) r.lb[j] = 0, r.ub[j] = 1, top += fmax(a0[j], 0);
                    r.b[0] = top;
                    r.p.neq = 0;
                }
                int st = kg_qp_solve(&r.p, x, lam, w, &res);
                if (st != KG_QP_INFEASIBLE)
                    fail_msg("n %d, kind %d, trial %d: %s", n, kind, trial, kg_qp_status_name(st));
                assert_true(all_finite(x, n) && isfinite(res.cost));
                assert_true(all_finite(lam, r.p.neq + nin + 2 * n));
                if (res.iterations > 2 * (n + neq) + 4)
                    fail_msg("n %d, kind %d: %d iterations", n, kind, res.iterations);
                most = res.iterations > most ? res.iterations : most;
                count++;
                free(r.H);
            }
    printf("%d infeasible problems, at most %d iterations\n", count, most);
    kg_qp_work_free(w);
}

/* ---- other statuses ------------------------------------------------------------------ */

static void test_not_convex(void **state) {
    (void)state;
    const double g[3] = {1, 2, 3};
    const double indefinite[9] = {1, 0, 0, 0, -1, 0, 0, 0, 2};
    const double singular[9] = {1, 1, 0, 1, 1, 0, 0, 0, 1};   /* PSD, rank 2 */
    const double tiny[9] = {1, 0, 0, 0, 1e-20, 0, 0, 0, 1};   /* numerically singular */
    const double *cases[3] = {indefinite, singular, tiny};
    for (int c = 0; c < 3; c++) {
        kg_qp p = {.n = 3, .H = cases[c], .g = g};
        double x[3] = {7, 7, 7}, lam[6];
        kg_qp_result r = solve(&p, x, lam, KG_QP_NOT_CONVEX);
        assert_true(x[0] == 0 && x[1] == 0 && x[2] == 0);
        assert_int_equal(r.iterations, 0);
    }
}

static void test_bad_input(void **state) {
    (void)state;
    double H[4] = {2, 0, 0, 2}, g[2] = {1, 1}, A[2] = {1, 1}, b[1] = {0}, lb[2] = {0, 0}, x[2], lam[6];
    kg_qp p = {.n = 2, .H = H, .g = g, .nin = 1, .A = A, .b = b, .lb = lb};
    solve(&p, x, lam, KG_QP_OK);
    H[1] = NAN;
    solve(&p, x, lam, KG_QP_BAD_INPUT);
    H[1] = 0, H[3] = INFINITY;
    solve(&p, x, lam, KG_QP_BAD_INPUT);
    H[3] = 2, g[0] = NAN;
    solve(&p, x, lam, KG_QP_BAD_INPUT);
    g[0] = 1, A[1] = INFINITY;
    solve(&p, x, lam, KG_QP_BAD_INPUT);
    A[1] = 1, b[0] = NAN;
    solve(&p, x, lam, KG_QP_BAD_INPUT);
    b[0] = -INFINITY; /* an absent row */
    solve(&p, x, lam, KG_QP_OK);
    b[0] = 0, lb[1] = NAN;
    solve(&p, x, lam, KG_QP_BAD_INPUT);
    lb[1] = 0;
    /* sizes beyond the work's */
    kg_qp_work *w = kg_qp_work_new(1, 1);
    assert_int_equal(kg_qp_solve(&p, x, lam, w, NULL), KG_QP_BAD_INPUT);
    kg_qp_work_free(w);
    w = kg_qp_work_new(2, 0);
    assert_int_equal(kg_qp_solve(&p, x, lam, w, NULL), KG_QP_BAD_INPUT);
    p.n = 0;
    assert_int_equal(kg_qp_solve(&p, x, lam, w, NULL), KG_QP_BAD_INPUT);
    kg_qp_work_free(w);
    assert_null(kg_qp_work_new(-1, 3));
}

/* The cap stops the solve with a finite, dual feasible x. */
static void test_max_iterations(void **state) {
    (void)state;
    uint64_t s = 0x6d61786974657273ull;
    rnd r;
    rnd_make(&r, &s, 20, 4, 30);
    for (int i = 0; i < 20; i++) r.lb[i] = r.x0[i] - 0.05, r.ub[i] = r.x0[i] + 0.05; /* many bounds bind */
    double x[20], lam[4 + 30 + 40];
    kg_qp_result full = solve(&r.p, x, lam, KG_QP_OK);
    assert_true(full.iterations > 6);
    r.p.max_iterations = 6;
    kg_qp_result capped = solve(&r.p, x, lam, KG_QP_MAX_ITERATIONS);
    assert_int_equal(capped.iterations, 6);
    assert_true(all_finite(x, 20) && isfinite(capped.cost) && capped.cost <= full.cost);
    free(r.H);
}

/* A feasible problem whose solution is 1e-4 the size of its unconstrained
 * minimum (H's condition 2.5e7): rounding of a constraint (4e-14) once
 * counted as a violation and the solve ended "infeasible"
 * (tests/reference/qp/cancelling.json). Solved: stationarity and dual
 * feasibility to 1e-8, each constraint met to 1e-12 (absolute: x's entries
 * are about 1e-4 and the terms of some rows are rounding alone, so the
 * relative residual of assert_kkt means nothing there), and its cost no more
 * than python3-cvxopt's (which stops at about 1e-7 absolute). */
static void test_cancelling(void **state) {
    (void)state;
    json_error_t e;
    json_t *doc = json_load_file(KG_SOURCE_DIR "/tests/reference/qp/cancelling.json", 0, &e);
    if (!doc) fail_msg("tests/reference/qp/cancelling.json: %s (line %d)", e.text, e.line);
    ref_problem r;
    ref_load(&r, doc);
    double x[64], lam[64 + 64 + 2 * 64];
    assert_true(r.p.n <= 64 && r.p.neq + r.p.nin <= 64);
    kg_qp_result res = solve(&r.p, x, lam, KG_QP_OK);
    kkt k = kkt_residuals(&r.p, x, lam);
    double worst = 0, size;
    for (int c = 0; c < r.p.neq + r.p.nin + 2 * r.p.n; c++) {
        double s = slack_of(&r.p, c, x, &size);
        worst = fmax(worst, c < r.p.neq ? fabs(s) : -s);
    }
    if (!(k.stationarity <= 1e-8 && k.dual <= 1e-8 && worst <= 1e-12))
        fail_msg("stationarity %.3g, dual %.3g, worst violation %.3g", k.stationarity, k.dual, worst);
    double peer = json_number_value(json_object_get(doc, "cost_cvxopt"));
    if (!(res.cost <= peer + 1e-9)) fail_msg("cost %.9g, cvxopt's %.9g", res.cost, peer);
    ref_free(&r);
    json_decref(doc);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_unconstrained),
        cmocka_unit_test(test_one_bound),
        cmocka_unit_test(test_one_equality),
        cmocka_unit_test(test_quadprog_example),
        cmocka_unit_test(test_status_names),
        cmocka_unit_test(test_cvxopt_reference),
        cmocka_unit_test(test_warm_start), cmocka_unit_test(test_cancelling),
        cmocka_unit_test(test_warm_start_mismatched),
        cmocka_unit_test(test_infeasible),
        cmocka_unit_test(test_not_convex),
        cmocka_unit_test(test_bad_input),
        cmocka_unit_test(test_max_iterations),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
