/* Dynamics of the link tree (analysis/dynamics/): RNEA, CRBA, ABA, gravity,
 * bias, COM and centroidal momentum.
 *
 * Against MuJoCo 2.2.2 (linked when libmujoco-dev is there; the comparisons are
 * skipped with a notice otherwise), which reads the *same URDF* with its own
 * URDF compiler (geometry stripped, so meshes need not load; limits, damping
 * and friction switched off with mjDSBL_CONSTRAINT and mjDSBL_PASSIVE): mj_rne
 * with accelerations, mj_fullM after mj_forward, and mj_forward's qacc with
 * qfrc_applied as the torques; external wrenches through mj_applyFT. On every
 * corpus URDF with inertials MuJoCo compiles, and on random robots (random
 * trees of revolute, continuous, prismatic, planar and fixed joints under a
 * floating base, random origins, axes, masses, COMs and rotated inertias). MuJoCo's free
 * joint takes its angular velocity in the body frame, ours in the joint frame:
 * converted here (see dynamics.h).
 *
 * Identities on random states, without a peer: M symmetric positive definite;
 * RNEA(q, v, a) = M a + bias; gravity = -sum_i m_i J_com,i^T g (COM Jacobians
 * from analysis/jacobian.h); ABA(RNEA(q, v, a, fext), fext) = a; the centroidal
 * momentum equals the links' momenta summed through their Jacobians.
 *
 * Against KDL (references recorded in tests/reference/dynamics_kdl/ by
 * tests/peers/kdl_dynamics_reference.cpp): RNEA, CRBA and ABA on chains from the
 * root of corpus URDFs (see test_kdl_chains). */
#define _XOPEN_SOURCE 700 /* nftw */
#define _DEFAULT_SOURCE /* mkstemps */
#include "testutil.h"

#include <ftw.h>
#include <glob.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include <lapacke.h>

#include "kinegraph/dynamics.h"
#include "analysis/jacobian.h"
#include "core/fk.h"
#include "core/spatial.h"
#include "io/load.h"

#ifdef KG_HAVE_MUJOCO
#include <mujoco/mujoco.h>
#endif

static uint64_t rng = 0x2545f4914f6cdd1dull;
static double uniform(double lo, double hi) {
    rng ^= rng >> 12, rng ^= rng << 25, rng ^= rng >> 27;
    return lo + (hi - lo) * (double)((rng * 2685821657736338717ull) >> 11) / 9007199254740992.0;
}

static void random_q(const kg_model *m, double *q) {
    for (int j = 0; j < m->njoint; j++) {
        const kg_joint *J = &m->joint[j];
        for (int k = 0; k < J->nq; k++)
            q[J->qadr + k] = kg_joint_is_limited(J) && J->lower < J->upper ? uniform(J->lower, J->upper) : uniform(-2, 2);
        if (J->type == KG_JOINT_FLOATING) {
            double *w = q + J->qadr + 3, n = sqrt(w[0] * w[0] + w[1] * w[1] + w[2] * w[2] + w[3] * w[3]);
            for (int k = 0; k < 4; k++) w[k] /= n;
        }
    }
}

static void random_vec(double *x, int n, double s) {
    for (int k = 0; k < n; k++) x[k] = uniform(-s, s);
}

static double max_abs(const double *x, size_t n) {
    double s = 0;
    for (size_t k = 0; k < n; k++) s = fmax(s, fabs(x[k]));
    return s;
}

/* max |x - y| / max(|y|, floor) */
static double rel_diff(const double *x, const double *y, size_t n) {
    double d = 0;
    for (size_t k = 0; k < n; k++) d = fmax(d, fabs(x[k] - y[k]));
    return d / fmax(max_abs(y, n), 1e-300);
}

/* ---- random robots ------------------------------------------------------------------ */

static void random_inertial(char *out, size_t size) {
    /* principal moments of a box of random sides: a physical inertia */
    double mass = uniform(0.2, 5), a = uniform(0.02, 0.5), b = uniform(0.02, 0.5), c = uniform(0.02, 0.5);
    snprintf(out, size,
             "<inertial><origin xyz=\"%.17g %.17g %.17g\" rpy=\"%.17g %.17g %.17g\"/><mass value=\"%.17g\"/>"
             "<inertia ixx=\"%.17g\" ixy=\"0\" ixz=\"0\" iyy=\"%.17g\" iyz=\"0\" izz=\"%.17g\"/></inertial>",
             uniform(-0.2, 0.2), uniform(-0.2, 0.2), uniform(-0.2, 0.2), uniform(-3, 3), uniform(-1.5, 1.5),
             uniform(-3, 3), mass, mass * (b * b + c * c) / 12, mass * (a * a + c * c) / 12, mass * (a * a + b * b) / 12);
}

/* A URDF: a static "world", a floating base (when floating), then n links on a
 * random tree of mixed joints. Every link has mass (MuJoCo refuses massless
 * moving bodies). With aligned, as humanoids are built: every axis a
 * coordinate axis (either sign), every joint origin's rotation none or about
 * one coordinate axis, and no planar joints, so that the link-local
 * recursions' frame choice (local_frames.c: angle offsets, a parent's frame
 * turned for its child) has work. Returns a malloc'd string. */
static char *random_robot_ex(int n, int floating, int planar, int aligned) {
    size_t cap = 4096 + (size_t)n * 1024, len = 0;
    char *s = malloc(cap), inert[600];
    len += (size_t)snprintf(s + len, cap - len, "<robot name=\"random\">\n<link name=\"world\"/>\n");
    random_inertial(inert, sizeof inert);
    len += (size_t)snprintf(s + len, cap - len, "<link name=\"l0\">%s</link>\n", inert);
    len += (size_t)snprintf(s + len, cap - len,
                            "<joint name=\"base\" type=\"%s\"><parent link=\"world\"/><child link=\"l0\"/>"
                            "<origin xyz=\"%.17g %.17g %.17g\" rpy=\"%.17g %.17g %.17g\"/></joint>\n",
                            floating ? "floating" : "fixed", uniform(-1, 1), uniform(-1, 1), uniform(-1, 1),
                            uniform(-3, 3), uniform(-1.5, 1.5), uniform(-3, 3));
    for (int i = 1; i <= n; i++) {
        const int parent = (int)uniform(0, i - 0.001);
        const char *types[] = {"revolute", "continuous", "prismatic", "fixed", "revolute", "planar"};
        const char *type = types[(int)uniform(0, planar ? 5.999 : 4.999)];
        double ax[3] = {uniform(-1, 1), uniform(-1, 1), uniform(-1, 1)}, rpy[3] = {uniform(-3, 3), uniform(-1.5, 1.5), uniform(-3, 3)};
        if (strcmp(type, "planar") == 0) ax[0] = 0, ax[1] = 0, ax[2] = 1; /* MuJoCo's URDF planar is the xy plane */
        if (aligned) {
            const int k = (int)uniform(0, 2.999), turn = (int)uniform(0, 3.999);
            ax[0] = ax[1] = ax[2] = 0, ax[k] = uniform(-1, 1) < 0 ? -1 : 1;
            rpy[0] = rpy[1] = rpy[2] = 0;
            if (turn < 3) rpy[turn] = uniform(-1.5, 1.5);
        }
        random_inertial(inert, sizeof inert);
        len += (size_t)snprintf(s + len, cap - len,
                                "<link name=\"l%d\">%s</link>\n<joint name=\"j%d\" type=\"%s\"><parent link=\"l%d\"/>"
                                "<child link=\"l%d\"/><origin xyz=\"%.17g %.17g %.17g\" rpy=\"%.17g %.17g %.17g\"/>"
                                "<axis xyz=\"%.17g %.17g %.17g\"/>%s</joint>\n",
                                i, inert, i, type, parent, i, uniform(-0.5, 0.5), uniform(-0.5, 0.5),
                                uniform(-0.5, 0.5), rpy[0], rpy[1], rpy[2], ax[0], ax[1], ax[2], strcmp(type, "revolute") && strcmp(type, "prismatic")
                                           ? ""
                                           : "<limit lower=\"-1.5\" upper=\"1.5\" effort=\"10\" velocity=\"1\"/>");
    }
    snprintf(s + len, cap - len, "</robot>\n");
    return s;
}

static char *random_robot(int n, int floating, int planar) { return random_robot_ex(n, floating, planar, 0); }

static kg_model *load_text(const char *text) {
    kg_diags d;
    kg_diags_init(&d);
    kg_model *m = kg_test_load_string("random.urdf", text, &d);
    if (!m) kg_test_print_diags(&d);
    kg_diags_clear(&d);
    assert_non_null(m);
    return m;
}

/* ---- identities ------------------------------------------------------------------------ */

/* Cholesky of a copy of M: 0 when positive definite. */
static int cholesky_fails(const double *M, int n) {
    double *L = malloc((size_t)n * n * sizeof *L + 8);
    memcpy(L, M, (size_t)n * n * sizeof *L);
    int bad = 0;
    for (int k = 0; k < n && !bad; k++) {
        double s = L[k * n + k];
        for (int p = 0; p < k; p++) s -= L[k * n + p] * L[k * n + p];
        if (!(s > 0)) bad = 1;
        L[k * n + k] = sqrt(s);
        for (int i = k + 1; i < n; i++) {
            double x = L[i * n + k];
            for (int p = 0; p < k; p++) x -= L[i * n + p] * L[k * n + p];
            L[i * n + k] = x / L[k * n + k];
        }
    }
    free(L);
    return bad;
}

typedef struct {
    double sym, rnea_mab, gravity, aba, aba_backward, momentum, cond, rnea_q, aba_q, crba_q;
    int local; /* kg_dyn_rnea_q, kg_dyn_crba_q and kg_dyn_aba_q took their link-local paths */
} identity_errors;

/* The 2-norm condition number of a symmetric positive definite M. */
static double condition(const double *M, int n) {
    double *A = malloc((size_t)n * n * sizeof *A + 8), *ev = malloc((size_t)n * sizeof *ev + 8);
    memcpy(A, M, (size_t)n * n * sizeof *A);
    double c = LAPACKE_dsyev(LAPACK_ROW_MAJOR, 'N', 'U', n, A, n, ev) == 0 ? ev[n - 1] / ev[0] : INFINITY;
    free(A), free(ev);
    return c;
}

/* gravity = -sum m_i J_com,i^T g and the centroidal momentum, through Jacobians
 * (models without mimic joints, whose Jacobian columns are the tree's). */
static void jacobian_checks(const kg_model *m, kg_data *d, kg_dyn *w, const double *v, const double *g, identity_errors *e) {
    const int n = m->nv;
    double *J = malloc(6 * (size_t)n * sizeof *J + 8), *gj = calloc((size_t)n + 1, sizeof *gj);
    double mass, com[3], h[6], href[6] = {0}, *AG = malloc(6 * (size_t)n * sizeof *AG + 8);
    kg_jacobian_twists(m, d);
    kg_dyn_centroidal(m, w, v, &mass, com, h, AG);
    for (int i = 0; i < m->nlink; i++) {
        const kg_link *L = &m->link[i];
        if (L->mass == 0 && L->inertia[0] == 0) continue;
        kg_jacobian(m, d, i, L->com, -1, J);
        for (int c = 0; c < n; c++) gj[c] -= L->mass * (J[c] * g[0] + J[n + c] * g[1] + J[2 * n + c] * g[2]);
        /* momentum of link i: m cdot, and Iw + (c - G) x m cdot about the COM */
        double cd[3] = {0, 0, 0}, om[3] = {0, 0, 0}, cw[3], Iw[9], l[3], x[3];
        for (int c = 0; c < n; c++)
            for (int a = 0; a < 3; a++) cd[a] += J[a * n + c] * v[c], om[a] += J[(3 + a) * n + c] * v[c];
        kg_mat3_vec(cw, d->link_rot + 9 * i, L->com);
        for (int a = 0; a < 3; a++) cw[a] += d->link_pos[3 * i + a] - com[a];
        kg_inertia_rotate(Iw, d->link_rot + 9 * i, L->inertia);
        kg_mat3_vec(l, Iw, om);
        double p[3] = {L->mass * cd[0], L->mass * cd[1], L->mass * cd[2]};
        kg_vec3_cross(x, cw, p);
        for (int a = 0; a < 3; a++) href[a] += p[a], href[3 + a] += l[a] + x[a];
    }
    double tau[512];
    assert_true(n <= 512);
    kg_dyn_options o = kg_dyn_default;
    kg_vec3_copy(o.gravity, g);
    kg_dyn_gravity(m, w, &o, tau);
    e->gravity = fmax(e->gravity, rel_diff(tau, gj, (size_t)n));
    double hv[6] = {0};
    for (int r = 0; r < 6; r++)
        for (int c = 0; c < n; c++) hv[r] += AG[r * n + c] * v[c];
    e->momentum = fmax(e->momentum, fmax(rel_diff(h, href, 6), rel_diff(hv, href, 6)));
    free(J), free(gj), free(AG);
}

static identity_errors identities(const kg_model *m, int states) {
    identity_errors e = {0};
    const int n = m->nv;
    kg_data *d = kg_data_new(m), *dq = kg_data_new(m);
    kg_dyn *w = kg_dyn_new(m), *wq = kg_dyn_new(m);
    double *M = malloc((size_t)n * n * sizeof *M + 8), *Mq = malloc((size_t)n * n * sizeof *Mq + 8),
           *v = malloc((size_t)n * sizeof *v + 8),
           *a = malloc((size_t)n * sizeof *a + 8), *tau = malloc((size_t)n * sizeof *tau + 8),
           *b = malloc((size_t)n * sizeof *b + 8), *a2 = malloc((size_t)n * sizeof *a2 + 8),
           *fext = malloc(6 * (size_t)m->nlink * sizeof *fext);
    for (int s = 0; s < states; s++) {
        random_q(m, d->q);
        random_vec(v, n, 2);
        random_vec(a, n, 5);
        random_vec(fext, 6 * m->nlink, 10);
        kg_fk(m, d);
        kg_dyn_positions(m, d, w);
        kg_dyn_crba(m, w, M);
        for (int i = 0; i < n; i++)
            for (int j = 0; j < n; j++) e.sym = fmax(e.sym, fabs(M[i * n + j] - M[j * n + i]) / max_abs(M, (size_t)n * n));
        if (cholesky_fails(M, n)) e.sym = INFINITY;
        /* the same from q alone (link-local frames) */
        memcpy(dq->q, d->q, (size_t)m->nq * sizeof *d->q);
        memcpy(dq->base_pos, d->base_pos, sizeof d->base_pos), memcpy(dq->base_rot, d->base_rot, sizeof d->base_rot);
        kg_dyn_crba_q(m, dq, wq, Mq);
        e.crba_q = fmax(e.crba_q, rel_diff(Mq, M, (size_t)n * n));
        /* RNEA = M a + bias */
        kg_dyn_rnea(m, w, NULL, v, a, NULL, tau);
        kg_dyn_bias(m, w, NULL, v, b);
        for (int i = 0; i < n; i++)
            for (int j = 0; j < n; j++) b[i] += M[i * n + j] * a[j];
        e.rnea_mab = fmax(e.rnea_mab, rel_diff(tau, b, (size_t)n));
        /* the same torques from q alone (link-local frames, no FK): a second data, its poses not computed */
        memcpy(dq->q, d->q, (size_t)m->nq * sizeof *d->q);
        memcpy(dq->base_pos, d->base_pos, sizeof d->base_pos), memcpy(dq->base_rot, d->base_rot, sizeof d->base_rot);
        kg_dyn_rnea_q(m, dq, wq, NULL, v, a, b);
        e.rnea_q = fmax(e.rnea_q, rel_diff(b, tau, (size_t)n));
        /* ABA undoes RNEA, with external wrenches too */
        kg_dyn_rnea(m, w, NULL, v, a, fext, tau);
        assert_int_equal(kg_dyn_aba(m, w, NULL, v, tau, fext, a2), 0);
        e.aba = fmax(e.aba, rel_diff(a2, a, (size_t)n));
        /* the same accelerations from q alone (without external wrenches) */
        kg_dyn_rnea(m, w, NULL, v, a, NULL, tau);
        assert_int_equal(kg_dyn_aba(m, w, NULL, v, tau, NULL, a2), 0);
        assert_int_equal(kg_dyn_aba_q(m, dq, wq, NULL, v, tau, b), 0);
        e.aba_q = fmax(e.aba_q, rel_diff(b, a2, (size_t)n));
        kg_dyn_rnea(m, w, NULL, v, a, fext, tau);
        kg_dyn_aba(m, w, NULL, v, tau, fext, a2);
        /* backward error: how far a2 is from solving the system, in torques */
        kg_dyn_rnea(m, w, NULL, v, a2, fext, b);
        e.aba_backward = fmax(e.aba_backward, rel_diff(b, tau, (size_t)n));
        e.cond = fmax(e.cond, condition(M, n));
        if (m->nmimic == 0) {
            double g[3] = {uniform(-10, 10), uniform(-10, 10), uniform(-10, 10)};
            jacobian_checks(m, d, w, v, g, &e);
        }
    }
    free(M), free(Mq), free(v), free(a), free(tau), free(b), free(a2), free(fext);
    e.local = kg_dyn_rnea_q_local(wq);
    kg_dyn_free(w), kg_dyn_free(wq);
    kg_data_free(d), kg_data_free(dq);
    return e;
}

/* Every link's inertia a physical one: principal moments non-negative and
 * each at most the sum of the other two. */
static int physical_inertias(const kg_model *m) {
    for (int i = 0; i < m->nlink; i++) {
        double p[3], R[9];
        if (kg_inertia_principal(m->link[i].inertia, p, R) != 0) return 0;
        const double tol = 1e-9 * fmax(p[2], 1e-300);
        if (p[0] < -tol || p[0] + p[1] < p[2] - tol) return 0;
    }
    return 1;
}

/* ABA's forward error is bounded (by cond(M) times rounding) only when the articulated inertias it builds
 * are positive definite, i.e. when the links' inertias are physical; with
 * others (a few corpus files) the backward error, the torque residual of its
 * answer, is what stays at rounding level. */
static void check_identities(const kg_model *m, const char *name, int states) {
    identity_errors e = identities(m, states);
    const int physical = physical_inertias(m);
    printf("%-28s nv %3d  M sym %.1e  RNEA-(Ma+b) %.1e  gravity %.1e  ABA(RNEA) %.1e (backward %.1e, cond(M) %.1e)  "
           "momentum %.1e  from q: RNEA %.1e CRBA %.1e ABA %.1e%s%s\n", name, m->nv, e.sym, e.rnea_mab, e.gravity, e.aba, e.aba_backward, e.cond, e.momentum,
           e.rnea_q, e.crba_q, e.aba_q, e.local ? " (link-local)" : "", physical ? "" : "  (inertias not physical)");
    if (m->nmimic) printf("    (mimic joints: the gravity and momentum checks through Jacobians are skipped)\n");
    assert_true(e.sym <= 1e-12);
    assert_true(e.rnea_mab <= 1e-10);
    assert_true(e.gravity <= 1e-10);
    assert_true(e.aba_backward <= 1e-12);
    /* 1e-10, or the bound any solver has on an ill-conditioned M: cond(M) times
     * the backward error, ~1e-13 cond(M) (Nao: cond 1.1e8 gives 1.1e-6) */
    if (physical) assert_true(e.aba <= fmax(1e-10, 1e-13 * e.cond));
    assert_true(e.momentum <= 1e-10);
    assert_true(e.rnea_q <= 1e-12);
    assert_true(e.crba_q <= 1e-12);
    /* the same algorithm in other frames: the two differ by rounding,
     * amplified as ABA's own forward error is (2.9e-13 at most on the corpus) */
    assert_true(e.aba_q <= fmax(1e-10, 1e-13 * e.cond));
}

static void test_identities_random(void **state) {
    (void)state;
    for (int r = 0; r < 20; r++) {
        char *text = random_robot(3 + r * 2, r % 2, 1);
        kg_model *m = load_text(text);
        char name[64];
        snprintf(name, sizeof name, "random %d (%s)", r, r % 2 ? "floating" : "fixed");
        check_identities(m, name, 5);
        kg_model_free(m);
        free(text);
    }
    /* built as humanoids are (coordinate axes, single-axis origin rotations):
     * the link-local paths with their frame choice */
    for (int r = 0; r < 20; r++) {
        char *text = random_robot_ex(3 + r * 2, 0, 0, 1);
        kg_model *m = load_text(text);
        char name[64];
        snprintf(name, sizeof name, "random aligned %d", r);
        check_identities(m, name, 5);
        kg_dyn *w = kg_dyn_new(m);
        assert_true(kg_dyn_rnea_q_local(w));
        kg_dyn_free(w);
        kg_model_free(m);
        free(text);
    }
}


/* ---- the corpus --------------------------------------------------------------------- */

static char *found[512];
static int nfound;

static int collect_urdf(const char *path, const struct stat *st, int flag, struct FTW *ftw) {
    (void)st, (void)ftw;
    size_t n = strlen(path);
    if (flag == FTW_F && n > 5 && strcasecmp(path + n - 5, ".urdf") == 0 && nfound < 512) found[nfound++] = strdup(path);
    return 0;
}

static int by_name(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

/* The corpus URDFs (sorted), collected once. */
static void collect_corpus(const char *data) {
    if (nfound) return;
    char dir[4096];
    snprintf(dir, sizeof dir, "%s/urdf", data);
    assert_int_equal(nftw(dir, collect_urdf, 16, FTW_PHYS), 0);
    qsort(found, (size_t)nfound, sizeof *found, by_name);
}

/* A robot with inertials that loads without errors; NULL otherwise. */
static kg_model *load_dynamic(const char *path) {
    kg_diags d;
    kg_diags_init(&d);
    kg_model *m = kg_load(path, NULL, &d);
    int errors = 0;
    for (size_t k = 0; k < d.count; k++) errors += d.items[k].severity >= KG_ERROR;
    kg_diags_clear(&d);
    double mass = 0;
    for (int i = 0; m && i < m->nlink; i++) mass += m->link[i].mass;
    if (m && (errors || mass == 0 || m->nv == 0)) {
        kg_model_free(m);
        m = NULL;
    }
    return m;
}

static const char *short_name(const char *path, const char *data) {
    size_t n = strlen(data);
    return strncmp(path, data, n) == 0 ? path + n + 1 : path;
}

/* Massless moving subtrees make M singular: those robots get the identities
 * that do not invert M. */
static int singular_links(const kg_model *m) {
    kg_data *d = kg_data_new(m);
    kg_dyn *w = kg_dyn_new(m);
    double *a = calloc((size_t)m->nv + 1, sizeof *a);
    kg_fk(m, d);
    kg_dyn_positions(m, d, w);
    int s = kg_dyn_aba(m, w, NULL, NULL, NULL, NULL, a);
    free(a);
    kg_dyn_free(w);
    kg_data_free(d);
    return s;
}

static void test_identities_corpus(void **state) {
    (void)state;
    KG_REQUIRE_DATA(data);
    collect_corpus(data);
    int tested = 0;
    for (int f = 0; f < nfound; f++) {
        kg_model *m = load_dynamic(found[f]);
        if (!m) continue;
        int s = singular_links(m);
        if (s) {
            printf("%-28s nv %3d  %d joints carry no mass: M singular, identities skipped\n",
                   short_name(found[f], data), m->nv, s);
        } else {
            check_identities(m, short_name(found[f], data), 3);
            tested++;
        }
        kg_model_free(m);
    }
    printf("identities on %d corpus robots\n", tested);
    assert_true(tested > 10);
}

#ifdef KG_HAVE_MUJOCO

/* Removes every <tag ...>...</tag> and <tag .../> element from s, in place. */
static void strip_elements(char *s, const char *tag) {
    char open[64], close[64];
    snprintf(open, sizeof open, "<%s", tag);
    snprintf(close, sizeof close, "</%s>", tag);
    char *p = s;
    while ((p = strstr(p, open))) {
        char c = p[strlen(open)];
        if (c != ' ' && c != '>' && c != '/' && c != '\n' && c != '\t' && c != '\r') {
            p++;
            continue;
        }
        char *gt = strchr(p, '>'), *end;
        if (!gt) break;
        if (gt[-1] == '/') end = gt + 1;
        else {
            end = strstr(gt, close);
            if (!end) break;
            end += strlen(close);
        }
        memmove(p, end, strlen(end) + 1);
    }
}

/* MuJoCo's own URDF compiler on the file's text, geometry removed (dynamics
 * needs none, and MuJoCo 2.2 reads no COLLADA meshes). */
static mjModel *mj_from_urdf(const char *text, char *err, int errsz) {
    size_t n = strlen(text);
    char *s = malloc(n + 256);
    memcpy(s, text, n + 1);
    strip_elements(s, "visual");
    strip_elements(s, "collision");
    strip_elements(s, "mujoco");
    /* every link its own body: MuJoCo's fusing of fixed children re-diagonalises
     * the merged inertias, which costs it 1e-9 */
    char *robot = strstr(s, "<robot"), *gt = robot ? strchr(robot, '>') : NULL;
    if (gt) {
        const char *compiler = "<mujoco><compiler fusestatic=\"false\" balanceinertia=\"true\"/></mujoco>";
        memmove(gt + 1 + strlen(compiler), gt + 1, strlen(gt + 1) + 1);
        memcpy(gt + 1, compiler, strlen(compiler));
    }
    char tmp[] = "/tmp/kg_dyn_XXXXXX.urdf";
    int fd = mkstemps(tmp, 5);
    assert_true(fd >= 0);
    ssize_t len = (ssize_t)strlen(s);
    assert_true(write(fd, s, (size_t)len) == len);
    close(fd);
    free(s);
    mjModel *mj = mj_loadXML(tmp, NULL, err, errsz);
    unlink(tmp);
    if (mj) mj->opt.disableflags |= mjDSBL_CONSTRAINT | mjDSBL_PASSIVE;
    return mj;
}

/* For every velocity coordinate of ours, MuJoCo's dof (planar joints become
 * name_TX, name_TY, name_RZ in MuJoCo's URDF compiler). -1 when a joint is missing. */
static int map_dofs(const kg_model *m, const mjModel *mj, int *dof) {
    for (int j = 0; j < m->njoint; j++) {
        const kg_joint *J = &m->joint[j];
        if (J->nv == 0) continue;
        if (J->type == KG_JOINT_PLANAR) {
            const char *suffix[] = {"_TX", "_TY", "_RZ"};
            for (int c = 0; c < 3; c++) {
                char name[512];
                snprintf(name, sizeof name, "%s%s", J->name, suffix[c]);
                int id = mj_name2id(mj, mjOBJ_JOINT, name);
                if (id < 0) return -1;
                dof[J->vadr + c] = mj->jnt_dofadr[id];
            }
            continue;
        }
        int id = mj_name2id(mj, mjOBJ_JOINT, J->name);
        if (id < 0 || mj->jnt_type[id] == mjJNT_BALL) return -1;
        for (int c = 0; c < J->nv; c++) dof[J->vadr + c] = mj->jnt_dofadr[id] + c;
    }
    return 0;
}

/* MuJoCo's qpos for our pose, and T with v_mujoco = T v_ours (n x n): a
 * permutation, and for a free joint its linear part F (the joint frame's axes)
 * and angular part R^T F (MuJoCo's angular velocity is in the body frame). T
 * is orthogonal, so T^-1 = T^T. */
static void mj_state(const kg_model *m, const kg_data *d, const mjModel *mj, const int *dof, double *qpos, double *T) {
    const int n = m->nv;
    memset(T, 0, (size_t)n * n * sizeof *T);
    for (int j = 0; j < m->njoint; j++) {
        const kg_joint *J = &m->joint[j];
        if (J->nv == 0) continue;
        if (J->type == KG_JOINT_FLOATING) {
            const int id = mj_name2id(mj, mjOBJ_JOINT, J->name), qa = mj->jnt_qposadr[id], i = J->child;
            const double *R = d->link_rot + 9 * i;
            double F[9], RtF[9];
            kg_mat3_mul(F, d->link_rot + 9 * m->link[i].parent, m->kin[i].r0);
            kg_mat3_mul_at(RtF, R, F);
            kg_vec3_copy(qpos + qa, d->link_pos + 3 * i);
            kg_rot_to_quat(R, qpos + qa + 3);
            for (int a = 0; a < 3; a++)
                for (int b = 0; b < 3; b++) {
                    T[(size_t)dof[J->vadr + a] * n + J->vadr + b] = F[3 * a + b];
                    T[(size_t)dof[J->vadr + 3 + a] * n + J->vadr + 3 + b] = RtF[3 * a + b];
                }
            continue;
        }
        for (int c = 0; c < J->nv; c++) {
            const int mjd = dof[J->vadr + c], jid = mj->dof_jntid[mjd];
            qpos[mj->jnt_qposadr[jid] + (mjd - mj->jnt_dofadr[jid])] = d->q[J->qadr + c];
            T[(size_t)mjd * n + J->vadr + c] = 1;
        }
    }
}

/* y = T x, or T^T x */
static void mulT(const double *T, int n, const double *x, double *y, int transpose) {
    for (int r = 0; r < n; r++) {
        double s = 0;
        for (int c = 0; c < n; c++) s += (transpose ? T[(size_t)c * n + r] : T[(size_t)r * n + c]) * x[c];
        y[r] = s;
    }
}

/* MuJoCo's body for link i: its own, or (fused by MuJoCo's fusestatic) the nearest ancestor's. */
static int mj_body_of(const kg_model *m, const mjModel *mj, int i) {
    for (; i >= 0; i = m->link[i].parent) {
        int b = mj_name2id(mj, mjOBJ_BODY, m->link[i].name);
        if (b >= 0) return b;
    }
    return 0;
}

typedef struct {
    double rnea, rnea_fext, crba, aba, rnea_q, crba_q, aba_q; /* _q: kg_dyn_rnea_q, kg_dyn_crba_q, kg_dyn_aba_q */
} peer_errors;

/* One random state through both. */
static void mj_compare_state(const kg_model *m, kg_data *d, kg_dyn *w, const mjModel *mj, mjData *md, const int *dof,
                             const int *body, double *buf, peer_errors *e) {
    const int n = m->nv;
    double *T = buf, *v = T + (size_t)n * n, *a = v + n, *tau = a + n, *x = tau + n, *y = x + n, *ref = y + n,
           *M = ref + n, *Mmj = M + (size_t)n * n, *TM = Mmj + (size_t)n * n, *fext = TM + (size_t)n * n;
    random_q(m, d->q);
    random_vec(v, n, 2);
    random_vec(a, n, 5);
    random_vec(tau, n, 20);
    random_vec(fext, 6 * m->nlink, 10);
    kg_fk(m, d); /* applies the mimic couplings to d->q before MuJoCo gets it */
    kg_dyn_positions(m, d, w);
    mj_state(m, d, mj, dof, md->qpos, T);
    mulT(T, n, v, md->qvel, 0);
    mulT(T, n, tau, md->qfrc_applied, 0);
    mj_forward(mj, md);
    /* ABA against mj_forward's qacc */
    mulT(T, n, md->qacc, ref, 1);
    kg_dyn_aba(m, w, NULL, v, tau, NULL, x);
    e->aba = fmax(e->aba, rel_diff(x, ref, (size_t)n));
    /* and from q alone (it leaves the world-frame stage of w as it was) */
    kg_dyn_aba_q(m, d, w, NULL, v, tau, x);
    e->aba_q = fmax(e->aba_q, rel_diff(x, ref, (size_t)n));
    /* CRBA against mj_fullM: T^T M T */
    mj_fullM(mj, Mmj, md->qM);
    for (int r = 0; r < n; r++)
        for (int c = 0; c < n; c++) {
            double s = 0;
            for (int k = 0; k < n; k++) s += Mmj[(size_t)r * n + k] * T[(size_t)k * n + c];
            TM[(size_t)r * n + c] = s;
        }
    for (int r = 0; r < n; r++)
        for (int c = 0; c < n; c++) {
            double s = 0;
            for (int k = 0; k < n; k++) s += T[(size_t)k * n + r] * TM[(size_t)k * n + c];
            Mmj[(size_t)r * n + c] = s;
        }
    kg_dyn_crba(m, w, M);
    e->crba = fmax(e->crba, rel_diff(M, Mmj, (size_t)n * n));
    kg_dyn_crba_q(m, d, w, M);
    e->crba_q = fmax(e->crba_q, rel_diff(M, Mmj, (size_t)n * n));
    /* RNEA against mj_rne with accelerations */
    mulT(T, n, a, md->qacc, 0);
    mj_rne(mj, md, 1, y);
    mulT(T, n, y, ref, 1);
    kg_dyn_rnea(m, w, NULL, v, a, NULL, x);
    e->rnea = fmax(e->rnea, rel_diff(x, ref, (size_t)n));
    kg_dyn_rnea_q(m, d, w, NULL, v, a, x);
    e->rnea_q = fmax(e->rnea_q, rel_diff(x, ref, (size_t)n));
    /* with external wrenches: minus their generalised forces by mj_applyFT */
    double *qf = md->qfrc_applied;
    memset(qf, 0, (size_t)mj->nv * sizeof *qf);
    for (int i = 1; i < m->nlink; i++)
        mj_applyFT(mj, md, fext + 6 * i, fext + 6 * i + 3, d->link_pos + 3 * i, body[i], qf);
    for (int k = 0; k < n; k++) y[k] -= qf[k];
    mulT(T, n, y, ref, 1);
    kg_dyn_rnea(m, w, NULL, v, a, fext, x);
    e->rnea_fext = fmax(e->rnea_fext, rel_diff(x, ref, (size_t)n));
}

/* MuJoCo keeps an inertia as principal moments and a quaternion from its 3x3
 * eigen-solver, which recomposes non-diagonal tensors to about 3e-7 (T12's
 * hips), and balanceinertia mends the tensors that break the triangle
 * inequality: so our model takes MuJoCo's inertias (R diag R^T; the masses and
 * COMs are the same), and the algorithms are compared on the same numbers.
 * Returns the largest change, relative to the link's largest entry. */
static double use_mujoco_inertias(const kg_model *m, const mjModel *mj) {
    double worst = 0;
    for (int i = 0; i < m->nlink; i++) {
        int b = mj_name2id(mj, mjOBJ_BODY, m->link[i].name);
        if (b <= 0) continue;
        kg_link *L = (kg_link *)&m->link[i]; /* test-only: the model is immutable elsewhere */
        double R[9], D[9] = {0}, In[9];
        kg_rot_from_quat(R, mj->body_iquat + 4 * b);
        for (int k = 0; k < 3; k++) D[4 * k] = mj->body_inertia[3 * b + k];
        kg_inertia_rotate(In, R, D);
        double d = 0;
        for (int k = 0; k < 9; k++) d = fmax(d, fabs(In[k] - L->inertia[k]));
        worst = fmax(worst, d / fmax(max_abs(L->inertia, 9), 1e-300));
        assert_true(fabs(mj->body_mass[b] - L->mass) <= 1e-12 * L->mass);
        for (int k = 0; k < 3 && L->mass > 0; k++)
            if (!(fabs(mj->body_ipos[3 * b + k] - L->com[k]) <= 1e-12))
                fail_msg("%s: MuJoCo's COM %g %g %g, ours %g %g %g", L->name, mj->body_ipos[3 * b], mj->body_ipos[3 * b + 1],
                         mj->body_ipos[3 * b + 2], L->com[0], L->com[1], L->com[2]);
        memcpy(L->inertia, In, sizeof In);
    }
    return worst;
}

/* Returns 0 when compared, -1 when MuJoCo cannot read the model (printed). */
static int mj_compare(const kg_model *m, const char *text, const char *name, int states, peer_errors *e) {
    char err[1000] = "";
    memset(e, 0, sizeof *e);
    mjModel *mj = mj_from_urdf(text, err, sizeof err);
    if (!mj) {
        printf("%-28s MuJoCo does not compile it: %s\n", name, err);
        return -1;
    }
    const int n = m->nv;
    int *dof = calloc((size_t)n + 1, sizeof *dof), *body = calloc((size_t)m->nlink, sizeof *body);
    if (mj->nv != n || map_dofs(m, mj, dof) < 0) {
        printf("%-28s MuJoCo has %d dofs for our %d (joints it merged or lacks): not compared\n", name, mj->nv, n);
        free(dof), free(body);
        mj_deleteModel(mj);
        return -1;
    }
    for (int i = 0; i < m->nlink; i++) body[i] = mj_body_of(m, mj, i);
    const double dinertia = use_mujoco_inertias(m, mj);
    mjData *md = mj_makeData(mj);
    kg_data *d = kg_data_new(m);
    kg_dyn *w = kg_dyn_new(m);
    double *buf = malloc(((size_t)4 * n * n + 7 * (size_t)n + 6 * (size_t)m->nlink) * sizeof *buf);
    for (int s = 0; s < states; s++) mj_compare_state(m, d, w, mj, md, dof, body, buf, e);
    printf("%-28s nv %3d  MuJoCo: RNEA %.1e  RNEA+fext %.1e  CRBA %.1e  ABA %.1e  from q: RNEA %.1e CRBA %.1e ABA %.1e  (its "
           "inertias differ by %.1e)\n", name, n, e->rnea, e->rnea_fext, e->crba, e->aba, e->rnea_q, e->crba_q, e->aba_q, dinertia);
    free(buf), free(dof), free(body);
    kg_dyn_free(w);
    kg_data_free(d);
    mj_deleteData(md);
    mj_deleteModel(mj);
    return 0;
}

static void assert_peer(const peer_errors *e, double tol) {
    assert_true(e->rnea <= tol);
    assert_true(e->rnea_fext <= tol);
    assert_true(e->crba <= tol);
    assert_true(e->aba <= tol);
    assert_true(e->rnea_q <= tol);
    assert_true(e->crba_q <= tol);
    assert_true(e->aba_q <= tol);
}

static void test_mujoco_random(void **state) {
    (void)state;
    int compared = 0;
    for (int r = 0; r < 30; r++) {
        /* every third one fixed and built as humanoids are (link-local paths) */
        char *text = r % 3 ? random_robot(2 + r, 1, 1) : random_robot_ex(2 + r, 0, 0, 1), name[64];
        kg_model *m = load_text(text);
        snprintf(name, sizeof name, "random %d (%s)", r, r % 3 ? "floating" : "fixed, aligned");
        peer_errors e;
        if (mj_compare(m, text, name, 5, &e) == 0) {
            assert_peer(&e, 1e-9);
            compared++;
        }
        kg_model_free(m);
        free(text);
    }
    assert_int_equal(compared, 30);
}

static void test_mujoco_corpus(void **state) {
    (void)state;
    KG_REQUIRE_DATA(data);
    collect_corpus(data);
    int compared = 0, skipped = 0;
    for (int f = 0; f < nfound; f++) {
        kg_model *m = load_dynamic(found[f]);
        if (!m) continue;
        char *text = kg_test_slurp(found[f]);
        peer_errors e;
        if (mj_compare(m, text, short_name(found[f], data), 3, &e) == 0) {
            assert_peer(&e, 1e-9);
            compared++;
        } else {
            skipped++;
        }
        free(text);
        kg_model_free(m);
    }
    printf("MuJoCo: %d corpus robots compared, %d it cannot compile as they are\n", compared, skipped);
    assert_true(compared > 10);
}

#else

static void test_mujoco_random(void **state) {
    (void)state;
    printf("SKIPPED: MuJoCo (libmujoco-dev) was not found at configure time\n");
    skip();
}

static void test_mujoco_corpus(void **state) { test_mujoco_random(state); }

#endif

/* ---- KDL: chains from the root ---------------------------------------------------------
 *
 * tests/reference/dynamics_kdl/ (tests/peers/kdl_dynamics_reference.cpp): KDL's
 * ChainIdSolver_RNE torques and ChainDynParam mass matrices of chains from the
 * URDF's root link to a tip, gravity (0, 0, -9.81), the root fixed at the
 * identity. A KDL chain holds the links on the path only (fixed joints become
 * segments without a joint, their links' inertias kept): the same system here is
 * the whole tree with every link off the path made massless and the joints off
 * the path held at zero velocity and acceleration. Relative error: the largest
 * difference over the largest reference entry, per torque vector and per matrix.
 * Forward dynamics: KDL's ChainFdSolver_RNE at (q, qdot) under the RNEA torques
 * and under random torques, against kg_dyn_aba with the joints off the path at
 * zero velocity and torque (their massless subtrees give singular pivots,
 * dropped: no acceleration there, nothing passed to the path); only the path's
 * accelerations are compared. */

typedef struct kdl_errors {
    double tau, M, fd;
} kdl_errors;

static void compare_kdl_file(const char *ref_path, const char *data, int *nchains) {
    char path[4096];
    const char *file;
    json_t *ref = kg_test_open_reference(ref_path, data, path, sizeof path, &file);
    if (!ref) return;
    kg_model *m = kg_test_load(path);
    int root = -1;
    for (int i = 0; i < m->nlink; i++)
        if (m->link[i].parent < 0) root = i;
    if (strcmp(m->link[root].name, json_string_value(json_object_get(ref, "root"))) != 0)
        fail_msg("%s: our root %s, KDL's %s", file, m->link[root].name, json_string_value(json_object_get(ref, "root")));
    kg_data *d = kg_data_new(m);
    size_t nv = (size_t)m->nv;
    double *v = calloc(nv + 1, sizeof *v), *a = calloc(nv + 1, sizeof *a), *tau = calloc(nv + 1, sizeof *tau);
    double *tin = calloc(nv + 1, sizeof *tin), *acc = calloc(nv + 1, sizeof *acc);
    double *M = calloc(nv * nv + 1, sizeof *M), *mass = calloc((size_t)m->nlink, sizeof *mass);
    double(*inertia)[9] = calloc((size_t)m->nlink, sizeof *inertia);
    for (int i = 0; i < m->nlink; i++) mass[i] = m->link[i].mass, memcpy(inertia[i], m->link[i].inertia, sizeof *inertia);
    json_t *chains = json_object_get(ref, "chains");
    for (size_t c = 0; c < json_array_size(chains); c++) {
        json_t *ch = json_array_get(chains, c), *names = json_object_get(ch, "joints");
        const char *tipname = json_string_value(json_object_get(ch, "tip"));
        int tip = kg_model_link(m, tipname);
        assert_true(tip >= 0);
        /* links off the path from the root to the tip: massless (test-only, restored below) */
        char *on = calloc((size_t)m->nlink, 1);
        for (int i = tip; i >= 0; i = m->link[i].parent) on[i] = 1;
        for (int i = 0; i < m->nlink; i++) {
            kg_link *L = (kg_link *)&m->link[i];
            L->mass = on[i] ? mass[i] : 0;
            for (int k = 0; k < 9; k++) L->inertia[k] = on[i] ? inertia[i][k] : 0;
        }
        kg_dyn *w = kg_dyn_new(m); /* after the masses: it reads them */
        size_t n = json_array_size(names);
        int *va = malloc(n * sizeof *va + 1), *qa = malloc(n * sizeof *qa + 1);
        for (size_t k = 0; k < n; k++) {
            int j = kg_model_joint(m, json_string_value(json_array_get(names, k)));
            assert_true(j >= 0 && on[m->joint[j].child] && m->joint[j].nv == 1);
            va[k] = m->joint[j].vadr;
            qa[k] = m->joint[j].qadr;
        }
        kdl_errors e = {0, 0, 0};
        double *t = malloc(n * sizeof *t + 1), *tr = malloc(n * sizeof *tr + 1), *Mc = malloc(n * n * sizeof *Mc + 1),
               *Mr = malloc(n * n * sizeof *Mr + 1);
        json_t *samples = json_object_get(ch, "samples");
        for (size_t s = 0; s < json_array_size(samples); s++) {
            json_t *sm = json_array_get(samples, s);
            memcpy(d->q, m->q_default, (size_t)m->nq * sizeof *d->q);
            memset(v, 0, nv * sizeof *v);
            memset(a, 0, nv * sizeof *a);
            for (size_t k = 0; k < n; k++) {
                d->q[qa[k]] = json_number_value(json_array_get(json_object_get(sm, "q"), k));
                v[va[k]] = json_number_value(json_array_get(json_object_get(sm, "qdot"), k));
                a[va[k]] = json_number_value(json_array_get(json_object_get(sm, "qddot"), k));
            }
            kg_fk(m, d);
            kg_dyn_positions(m, d, w);
            kg_dyn_rnea(m, w, NULL, v, a, NULL, tau);
            kg_dyn_crba(m, w, M);
            for (size_t r = 0; r < n; r++) {
                t[r] = tau[va[r]];
                tr[r] = json_number_value(json_array_get(json_object_get(sm, "tau"), r));
                for (size_t k = 0; k < n; k++) {
                    Mc[r * n + k] = M[(size_t)va[r] * nv + (size_t)va[k]];
                    Mr[r * n + k] = json_number_value(json_array_get(json_array_get(json_object_get(sm, "M"), r), k));
                }
            }
            e.tau = fmax(e.tau, rel_diff(t, tr, n));
            e.M = fmax(e.M, rel_diff(Mc, Mr, n * n));
            static const char *const fdkey[2][2] = {{"tau", "qddot_fd"}, {"tau_rand", "qddot_fd_rand"}};
            for (int f = 0; f < 2; f++) {
                json_t *tj = json_object_get(sm, fdkey[f][0]), *aj = json_object_get(sm, fdkey[f][1]);
                if (!aj) fail_msg("%s: no %s (regenerate with tests/peers/make_references.sh)", file, fdkey[f][1]);
                memset(tin, 0, nv * sizeof *tin);
                for (size_t k = 0; k < n; k++) tin[va[k]] = json_number_value(json_array_get(tj, k));
                kg_dyn_aba(m, w, NULL, v, tin, NULL, acc);
                for (size_t r = 0; r < n; r++) {
                    t[r] = acc[va[r]];
                    tr[r] = json_number_value(json_array_get(aj, r));
                }
                e.fd = fmax(e.fd, rel_diff(t, tr, n));
            }
        }
        printf("KDL %-8s root %-12s -> %-22s %2zu joints: RNEA %.1e  CRBA %.1e  ABA %.1e\n",
               strrchr(ref_path, '/') + 1, m->link[root].name, tipname, n, e.tau, e.M, e.fd);
        if (!(e.tau <= 1e-9 && e.M <= 1e-9 && e.fd <= 1e-9)) fail_msg("%s, chain to %s: not within 1e-9 of KDL", file, tipname);
        ++*nchains;
        free(t), free(tr), free(Mc), free(Mr), free(va), free(qa), free(on);
        kg_dyn_free(w);
    }
    for (int i = 0; i < m->nlink; i++) {
        kg_link *L = (kg_link *)&m->link[i];
        L->mass = mass[i];
        memcpy(L->inertia, inertia[i], sizeof *inertia);
    }
    free(v), free(a), free(tau), free(tin), free(acc), free(M), free(mass), free(inertia);
    kg_data_free(d);
    kg_model_free(m);
    json_decref(ref);
}

static void test_kdl_chains(void **state) {
    (void)state;
    KG_REQUIRE_DATA(data);
    glob_t g;
    assert_int_equal(glob(KG_SOURCE_DIR "/tests/reference/dynamics_kdl/*.json", 0, NULL, &g), 0);
    int n = 0;
    for (size_t i = 0; i < g.gl_pathc; i++) compare_kdl_file(g.gl_pathv[i], data, &n);
    globfree(&g);
    printf("KDL: %d chains within 1e-9 (RNEA, CRBA and ABA)\n", n);
    assert_true(n >= 7);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_identities_random),
        cmocka_unit_test(test_identities_corpus),
        cmocka_unit_test(test_mujoco_random),
        cmocka_unit_test(test_mujoco_corpus),
        cmocka_unit_test(test_kdl_chains),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
