/* Dynamics: RNEA, CRBA and ABA (analysis/dynamics/) against MuJoCo's mj_rne,
 * mj_crb + mj_fullM and mj_forward in the same process, one thread, over 1 000
 * pre-drawn states (joint values within limits, velocities and accelerations
 * uniform in [-1, 1]), 31 repetitions, min and median per call in µs.
 *
 * kinegraph_rnea_q, kinegraph_crba_q, kinegraph_aba_q: kg_dyn_rnea_q,
 * kg_dyn_crba_q and kg_dyn_aba_q, inverse dynamics, mass matrix and forward
 * dynamics from the joint vector without FK (link-local frames), the same
 * results.
 *
 * Each algorithm is timed from the joint vector (FK and the pose-dependent
 * stage included: kg_fk + kg_dyn_positions; MuJoCo's mj_kinematics + mj_comPos,
 * and mj_comVel for mj_rne, which reads the velocities it computes), and also
 * alone, as the difference from its stage timed on the same states. MuJoCo
 * compiles the same URDF with its own URDF compiler (its default fusestatic),
 * geometry removed and constraints and passive forces off, so mj_forward has
 * no collision or constraint work.
 *
 * With --once each (or the one named, as in the JSON) is run over the states
 * once, untimed: for valgrind --tool=callgrind, whose instruction counts
 * (inclusive per function, divided by the 1 000 states) do not depend on the
 * machine's load.
 *
 * usage: bench_dynamics MODEL.urdf [--once [NAME]]  (JSON on stdout) */
#define _DEFAULT_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kinegraph/dynamics.h"
#include "bench_common.h"
#include "core/fk.h"
#include "io/load.h"

#ifdef KG_HAVE_MUJOCO
#include <mujoco/mujoco.h>
#endif

enum { N = KG_BENCH_CONFIGS };

typedef struct {
    const kg_model *m;
    kg_data *d;
    kg_dyn *w;
    double *q, *v, *a, *out; /* [N * nq], [N * nv], [N * nv], [nv * nv] */
#ifdef KG_HAVE_MUJOCO
    mjModel *mj;
    mjData *md;
    double *mq, *M; /* [N * mj->nq], [nv * nv] */
#endif
} bench;

typedef enum { KG_STAGE, KG_RNEA, KG_CRBA, KG_ABA, KG_RNEA_Q, KG_CRBA_Q, KG_ABA_Q, MJ_STAGE, MJ_STAGE_VEL, MJ_RNE, MJ_CRB, MJ_FORWARD, NWORK } work;

static void run(bench *b, work k, int s) {
    const kg_model *m = b->m;
    const int nv = m->nv;
    if (k == KG_RNEA_Q) { /* from q without FK: the link-local recursion */
        memcpy(b->d->q, b->q + (size_t)s * m->nq, (size_t)m->nq * sizeof *b->q);
        kg_dyn_rnea_q(m, b->d, b->w, NULL, b->v + (size_t)s * nv, b->a + (size_t)s * nv, b->out);
        return;
    }
    if (k == KG_CRBA_Q) {
        memcpy(b->d->q, b->q + (size_t)s * m->nq, (size_t)m->nq * sizeof *b->q);
        kg_dyn_crba_q(m, b->d, b->w, b->out);
        return;
    }
    if (k == KG_ABA_Q) { /* the same, forward: a in the role of tau as for KG_ABA */
        memcpy(b->d->q, b->q + (size_t)s * m->nq, (size_t)m->nq * sizeof *b->q);
        kg_dyn_aba_q(m, b->d, b->w, NULL, b->v + (size_t)s * nv, b->a + (size_t)s * nv, b->out);
        return;
    }
    if (k <= KG_ABA) {
        memcpy(b->d->q, b->q + (size_t)s * m->nq, (size_t)m->nq * sizeof *b->q);
        kg_fk(m, b->d);
        kg_dyn_positions(m, b->d, b->w);
        if (k == KG_RNEA) kg_dyn_rnea(m, b->w, NULL, b->v + (size_t)s * nv, b->a + (size_t)s * nv, NULL, b->out);
        if (k == KG_CRBA) kg_dyn_crba(m, b->w, b->out);
        if (k == KG_ABA) kg_dyn_aba(m, b->w, NULL, b->v + (size_t)s * nv, b->a + (size_t)s * nv, NULL, b->out);
        return;
    }
#ifdef KG_HAVE_MUJOCO
    mjData *md = b->md;
    const mjModel *mj = b->mj;
    memcpy(md->qpos, b->mq + (size_t)s * mj->nq, (size_t)mj->nq * sizeof *md->qpos);
    memcpy(md->qvel, b->v + (size_t)s * nv, (size_t)nv * sizeof *md->qvel);
    if (k == MJ_FORWARD) {
        memcpy(md->qfrc_applied, b->a + (size_t)s * nv, (size_t)nv * sizeof *md->qvel);
        mj_forward(mj, md);
        return;
    }
    mj_kinematics(mj, md);
    mj_comPos(mj, md);
    if (k == MJ_STAGE_VEL || k == MJ_RNE) mj_comVel(mj, md);
    if (k == MJ_RNE) {
        memcpy(md->qacc, b->a + (size_t)s * nv, (size_t)nv * sizeof *md->qacc);
        mj_rne(mj, md, 1, b->out);
    }
    if (k == MJ_CRB) {
        mj_crb(mj, md);
        mj_fullM(mj, b->M, md->qM);
    }
#endif
}

/* min and median over the repetitions of the mean time per state, µs */
static void timeit(bench *b, work k, double *mn, double *med) {
    double t[KG_BENCH_REPS];
    for (int r = 0; r < KG_BENCH_REPS; r++) {
        double t0 = kg_now();
        for (int s = 0; s < N; s++) run(b, k, s);
        t[r] = (kg_now() - t0) / N * 1e6;
    }
    *med = kg_bench_median(t, KG_BENCH_REPS);
    *mn = t[0];
}

static void draw_states(bench *b, uint64_t *seed) {
    const kg_model *m = b->m;
    for (int s = 0; s < N; s++) {
        double *q = b->q + (size_t)s * m->nq;
        memcpy(q, m->q_default, (size_t)m->nq * sizeof *q);
        for (int j = 0; j < m->njoint; j++) {
            const kg_joint *J = &m->joint[j];
            if (J->nq != 1) continue;
            const int lim = kg_joint_is_limited(J) && J->lower < J->upper;
            const double lo = lim ? J->lower : -3.14159, hi = lim ? J->upper : 3.14159;
            q[J->qadr] = lo + (hi - lo) * kg_bench_uniform(seed);
        }
        for (int k = 0; k < m->nv; k++) b->v[(size_t)s * m->nv + k] = 2 * kg_bench_uniform(seed) - 1;
        for (int k = 0; k < m->nv; k++) b->a[(size_t)s * m->nv + k] = 2 * kg_bench_uniform(seed) - 1;
    }
}

#ifdef KG_HAVE_MUJOCO
/* Removes the <tag>...</tag> and <tag/> elements (geometry is not dynamics). */
static void strip(char *s, const char *tag) {
    char open[32], close[32];
    snprintf(open, sizeof open, "<%s", tag);
    snprintf(close, sizeof close, "</%s>", tag);
    for (char *p = s; (p = strstr(p, open));) {
        char *gt = strchr(p, '>'), *end = gt && gt[-1] == '/' ? gt + 1 : gt ? strstr(gt, close) : NULL;
        if (!end) break;
        if (end != gt + 1) end += strlen(close);
        memmove(p, end, strlen(end) + 1);
    }
}

/* MuJoCo's model of the same file, and its qpos for every drawn state (joints
 * matched by name; this benchmark's models have hinges and slides only). */
static int mujoco_setup(bench *b, const char *path) {
    FILE *f = fopen(path, "rb");
    if (!f) return -1;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    rewind(f);
    char *s = calloc((size_t)n + 1, 1);
    if (fread(s, 1, (size_t)n, f) != (size_t)n) n = 0;
    fclose(f);
    strip(s, "visual");
    strip(s, "collision");
    strip(s, "mujoco");
    char tmp[] = "/tmp/kg_bench_dyn_XXXXXX.urdf", err[1000] = "";
    int fd = mkstemps(tmp, 5);
    if (fd < 0 || write(fd, s, strlen(s)) < 0) return -1;
    close(fd);
    free(s);
    b->mj = mj_loadXML(tmp, NULL, err, sizeof err);
    unlink(tmp);
    if (!b->mj) {
        fprintf(stderr, "MuJoCo: %s\n", err);
        return -1;
    }
    b->mj->opt.disableflags |= mjDSBL_CONSTRAINT | mjDSBL_PASSIVE | mjDSBL_CONTACT;
    if (b->mj->nv != b->m->nv) return -1;
    b->md = mj_makeData(b->mj);
    b->mq = calloc((size_t)N * b->mj->nq, sizeof *b->mq);
    b->M = calloc((size_t)b->mj->nv * b->mj->nv, sizeof *b->M);
    for (int j = 0; j < b->m->njoint; j++) {
        const kg_joint *J = &b->m->joint[j];
        if (J->nv == 0) continue;
        const int id = mj_name2id(b->mj, mjOBJ_JOINT, J->name);
        if (id < 0 || J->nq != 1) return -1;
        for (int st = 0; st < N; st++) b->mq[(size_t)st * b->mj->nq + b->mj->jnt_qposadr[id]] = b->q[(size_t)st * b->m->nq + J->qadr];
    }
    return 0;
}
#endif

int main(int argc, char **argv) {
    const int once = (argc == 3 || argc == 4) && strcmp(argv[2], "--once") == 0;
    if (argc != 2 && !once) {
        fprintf(stderr, "usage: %s MODEL.urdf [--once [NAME]]\n", argv[0]);
        return 2;
    }
    kg_diags diags;
    kg_diags_init(&diags);
    kg_model *m = kg_load(argv[1], NULL, &diags);
    kg_diags_clear(&diags);
    if (!m) return 1;
    bench b = {.m = m, .d = kg_data_new(m), .w = kg_dyn_new(m)};
    b.q = calloc((size_t)N * m->nq + 1, sizeof *b.q);
    b.v = calloc((size_t)N * m->nv + 1, sizeof *b.v);
    b.a = calloc((size_t)N * m->nv + 1, sizeof *b.a);
    b.out = calloc((size_t)m->nv * m->nv + 1, sizeof *b.out);
    uint64_t seed = KG_BENCH_SEED;
    draw_states(&b, &seed);
    int have_mj = 0;
#ifdef KG_HAVE_MUJOCO
    have_mj = mujoco_setup(&b, argv[1]) == 0;
#endif
    const char *names[NWORK] = {"kinegraph_fk_positions", "kinegraph_rnea", "kinegraph_crba", "kinegraph_aba",
                                "kinegraph_rnea_q", "kinegraph_crba_q", "kinegraph_aba_q",
                                "mujoco_kinematics_compos", "mujoco_kinematics_compos_comvel", "mujoco_rne",
                                "mujoco_crb_fullM", "mujoco_forward"};
    double mn[NWORK] = {0}, med[NWORK] = {0};
    if (once) {
        for (int k = 0; k < NWORK; k++)
            if ((k < MJ_STAGE || have_mj) && (argc == 3 || strcmp(argv[3], names[k]) == 0))
                for (int s = 0; s < N; s++) run(&b, (work)k, s);
        return 0;
    }
    for (int k = 0; k < NWORK; k++)
        if (k < MJ_STAGE || have_mj) timeit(&b, (work)k, &mn[k], &med[k]);
    printf("{\"model\": \"%s\", \"links\": %d, \"nv\": %d, \"states\": %d, \"unit\": \"us\",\n", m->name, m->nlink,
           m->nv, N);
#ifdef KG_HAVE_MUJOCO
    if (have_mj) printf(" \"mujoco\": \"%s\", \"mujoco_bodies\": %d,\n", mj_versionString(), b.mj->nbody);
#endif
    printf(" \"full\": {");
    for (int k = 0; k < NWORK; k++)
        if (k < MJ_STAGE || have_mj) printf("%s\"%s\": [%.3f, %.3f]", k ? ", " : "", names[k], mn[k], med[k]);
    /* alone: minus the stage each needs */
    const int stage[NWORK] = {-1, KG_STAGE, KG_STAGE, KG_STAGE, -1, -1, -1, -1, -1, MJ_STAGE_VEL, MJ_STAGE, -1};
    printf("},\n \"alone\": {");
    int first = 1;
    for (int k = 0; k < NWORK; k++) {
        if (stage[k] < 0 || (k >= MJ_STAGE && !have_mj)) continue;
        printf("%s\"%s\": [%.3f, %.3f]", first ? "" : ", ", names[k], mn[k] - mn[stage[k]], med[k] - med[stage[k]]);
        first = 0;
    }
    printf("}}\n");
    return 0;
}
