/* The balance stage: a COM reference whose ZMP stays in the support polygons
 * of the robot's feet.
 *
 * The COM the source implies (the robot's rest COM offset carried by the
 * source's pelvis) gives a cart-table ZMP (zmp_src); moved into a support
 * polygon (the planted soles' hull) to zmp_margin inside its edges, or to its
 * centre where it is narrower, it is the reference of the window solve
 * (analysis/zmp_window.h): each frame, the ZMPs nearest the references of the
 * frames ahead, each inside its polygon shrunk by zmp_inside, that keep the
 * COM bounded; the frame's own ZMP steps the COM the frame's solve follows.
 * In the air (no foot down) the reference is the COM estimate itself and any
 * ZMP goes (nothing pushes sideways), and so while the source is seated on
 * its floor (its weight on more than the feet).
 *
 * The window is solved with the solve, one frame at a time (rt_balance_frame),
 * because the polygon that counts is the robot's: a foot is pinned where the
 * robot's lands (retarget.c), which is not where the source's contact
 * planned it (its soles are moved clear of each other, a swing lags). At a
 * landing, the references and polygons of the frames ahead are moved again
 * to the pins now down, for as long as their contacts last; later contacts
 * keep their planned pins until they land. Clamped once for the whole clip
 * into the planned polygons, the references of a walk whose feet the robot
 * sets down clear of each other left its soles on a third of the contact
 * frames. The model starts at the first frame's estimate, moving as the
 * references ahead ask (a clip starts in mid-motion). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/retarget/internal.h"
#include "core/spatial.h"

/* The source's cart-table ZMP at every frame (H frames either side; the
 * estimate itself at the clip's ends, where no acceleration is known). */
static void source_zmp(rt_source *s, const kg_retarget_robot *rr, int H) {
    const int n = s->nframes;
    for (int f = 0; f < n; f++) {
        rt_frame_source *F = &s->f[f];
        if (f - H >= 0 && f + H < n)
            rt_cart_table_zmp2(s->f[f - H].com_est, F->com_est, s->f[f + H].com_est, H * s->dt, rr->com_h, F->zmp_src);
        else
            F->zmp_src[0] = F->com_est[0], F->zmp_src[1] = F->com_est[1];
    }
}

/* Frame j's ZMP reference: its source ZMP moved into the polygon of the feet
 * down at j, at pose[side] (x, y, z, yaw), or the COM estimate in the air. */
static void clamp_ref(rt_frame_source *F, const kg_retarget_robot *rr, const kg_retarget_tuning *t,
                      const double pose[2][4]) {
    double poly[8][2];
    int np = rt_support_polygon(rr, F->contact, pose, poly);
    if (np == 0 || F->seated) {
        F->zmp_ref[0] = F->com_est[0], F->zmp_ref[1] = F->com_est[1];
        F->zmp_poly.n = 0;
        return;
    }
    rt_polygon_distance((const double(*)[2])poly, np, F->zmp_src, t->zmp_margin, F->zmp_ref);
    kg_zmp_poly_shrink((const double(*)[2])poly, np, t->zmp_inside, &F->zmp_poly);
}

/* The window from frame f on: its references and polygons (the last frame's
 * past the clip's end). */
static void window(rt_balancer *b, const rt_source *s, int f) {
    for (int j = 0; j < b->N; j++) {
        const rt_frame_source *F = &s->f[f + j < s->nframes ? f + j : s->nframes - 1];
        b->refs[j][0] = F->zmp_ref[0], b->refs[j][1] = F->zmp_ref[1];
        b->polys[j] = F->zmp_poly.n ? &F->zmp_poly : NULL;
    }
}

/* Frame f's COM reference is the state's; its ZMP in the window steps it on.
 * Returns 0 when the polygons could not catch the COM. */
static int balance_step(rt_balancer *b, const rt_source *s, int f, double com_ref[2]) {
    double p[2];
    com_ref[0] = b->c[0], com_ref[1] = b->c[1];
    window(b, s, f);
    int caught = kg_zmp_window_solve(&b->zw, b->c_prev, b->c, (const double(*)[2])b->refs, b->polys, b->m, p);
    kg_zmp_window_advance(&b->zw, b->c_prev, b->c, p);
    return caught;
}

/* The state at frame 0: the COM estimate, moving as the references ask. */
static void balance_start(rt_balancer *b, const rt_source *s) {
    window(b, s, 0);
    memcpy(b->c, s->f[0].com_est, sizeof b->c);
    kg_zmp_window_start(&b->zw, b->c, (const double(*)[2])b->refs, b->c_prev);
    b->m[0] = b->m[1] = 0;
}

int rt_balance(rt_source *s, const kg_retarget_robot *rr, const kg_retarget_options *o, rt_balancer *b,
               kg_diags *dg) {
    const kg_retarget_tuning *t = &o->tune;
    const int n = s->nframes;
    /* the window's j-th ZMP weighs l^-j (analysis/zmp_window.h): past 1e-12 of the first, in doubles
     * they change nothing, so the window ends there (not at the clip, which changes the sum) */
    const double a = RT_G / rr->com_h * s->dt * s->dt, l = (2 + a + sqrt(a * a + 4 * a)) / 2;
    const double vanish = ceil(log(1e12) / log(l)); /* a COM 0.7 m up: ~220 frames at 30 frames/s, ~890 at 120 */
    double k = fmin(floor(t->preview_time / s->dt + 0.5), vanish); /* fmin: a NaN vanish leaves k */
    /* with frame_rate_max off, the weights may vanish only past millions of frames (or never, for
     * a COM height that is no number): past a million frames (24 MB of window) the clip's cap
     * (rt_window) bounds the arrays instead, the sum changed where the window passes the clip */
    if (!(k <= vanish) || !(k <= 1e6)) k = rt_window(t->preview_time, s->dt, n, 2, 0);
    int H = rt_window(t->zmp_step, s->dt, n, 1, 0), N = k < 2 ? 2 : (int)k;
    memset(b, 0, sizeof *b);
    b->landing[0] = b->landing[1] = -1;
    source_zmp(s, rr, H);
    for (int f = 0; f < n; f++) { /* the planned polygons, until the robot's feet land */
        clamp_ref(&s->f[f], rr, t, (const double(*)[4])s->f[f].pin);
        s->f[f].com_ref[0] = s->f[f].com_est[0], s->f[f].com_ref[1] = s->f[f].com_est[1];
    }
    if (!o->balance) return 0;
    b->N = N, b->on = 1;
    b->refs = malloc((size_t)N * sizeof *b->refs);
    b->polys = malloc((size_t)N * sizeof *b->polys);
    if (!b->refs || !b->polys || kg_zmp_window_init(&b->zw, s->dt, rr->com_h, RT_G, N) != 0) {
        rt_balance_free(b);
        kg_diag_add(dg, KG_ERROR, "retarget.memory", rr->model->source, 0, NULL, "out of memory");
        return -1;
    }
    balance_start(b, s);
    return 0;
}

/* A pin's pose as the polygons take it: x, y, z, yaw of its foot link. */
static void pin_pose(const kg_retarget_robot *rr, int side, const rt_pin *p, double pose[4]) {
    double Rr[9];
    kg_mat3_mul_bt(Rr, p->R, rr->rest_rot[side ? KG_PART_FOOT_R : KG_PART_FOOT_L]);
    pose[0] = p->pos[0], pose[1] = p->pos[1], pose[2] = p->pos[2], pose[3] = rt_heading(Rr);
}

/* The references of frames [a, b]: a foot pinned now counts where its pin is
 * for as long as its contact lasts (turning as the source's when it pivots);
 * a swinging foot's next contact where it is planned, moved by the footholds'
 * shift and its foretold miss (lag: rt_balance_frame); a contact after that
 * where it is planned, moved by the shift and by how far its foot's last
 * landing missed. */
static void clamp_window(rt_source *s, const kg_retarget_robot *rr, const kg_retarget_tuning *t, int f, int a, int b,
                         const rt_pin pin[2], const int last[2], const int next_end[2], const double lag[2][2],
                         const double miss[2][2], const double shift[2]) {
    double now[2][4];
    for (int side = 0; side < 2; side++)
        if (pin[side].down) pin_pose(rr, side, &pin[side], now[side]);
    for (int j = a; j <= b && j < s->nframes; j++) {
        rt_frame_source *F = &s->f[j];
        double pose[2][4];
        for (int side = 0; side < 2; side++) {
            memcpy(pose[side], F->pin[side], sizeof pose[side]);
            if (j <= last[side] && !pin[side].pivot) memcpy(pose[side], now[side], sizeof pose[side]);
            else if (j <= last[side]) /* turning on its pin as the source's foot turns */
                rt_pivot_pose(rr, side, pin[side].pivot, pin[side].pivot_at, rt_pivot_yaw(&pin[side], s, side, j, t),
                              pose[side]);
            else if (j <= next_end[side])
                pose[side][0] += lag[side][0], pose[side][1] += lag[side][1];
            else /* a later contact: as its foot's last landing missed */
                pose[side][0] += shift[0] + miss[side][0], pose[side][1] += shift[1] + miss[side][1];
        }
        clamp_ref(F, rr, t, (const double(*)[4])pose);
    }
    (void)f;
}

/* The end of the contact run of side that holds frame j (j itself when none). */
static int run_end(const rt_source *s, int side, int j) {
    while (j + 1 < s->nframes && s->f[j + 1].contact[side]) j++;
    return j;
}

void rt_balance_frame(rt_balancer *b, rt_source *s, const kg_retarget_robot *rr, const kg_retarget_tuning *t, int f,
                      const rt_pin pin[2], int landed, const double lag[2][2], const double miss[2][2],
                      const double shift[2]) {
    if (!b->on) return;
    const int n = s->nframes, N = b->N;
    /* a landing moves the references ahead, a swinging foot those of its next contact; otherwise
     * only the frame entering the horizon is new */
    int from = landed || f == 0 ? f : f + N, last[2], next_end[2];
    double moved[2][2] = {{0, 0}, {0, 0}};
    for (int side = 0; side < 2; side++) {
        last[side] = next_end[side] = -1;
        if (pin[side].down) {
            last[side] = run_end(s, side, f);
            continue;
        }
        int L = f;
        while (L < n && L <= f + N && !s->f[L].contact[side]) L++;
        if (L >= n || L > f + N) continue;
        next_end[side] = run_end(s, side, L);
        /* the foot's miss now foretells the landing the more, the nearer it is (the fraction of the
         * swing done); before, how far its last landing missed does (a gait's misses repeat) */
        int lift = f;
        while (lift > 0 && !s->f[lift - 1].contact[side]) lift--;
        double u = (double)(f - lift + 1) / (L - lift + 1);
        for (int a = 0; a < 2; a++) moved[side][a] = shift[a] + (1 - u) * miss[side][a] + u * lag[side][a];
        /* its references are moved again when the foretold pin moved by zmp_replan or more */
        if (L == b->landing[side] && hypot(moved[side][0] - b->moved[side][0], moved[side][1] - b->moved[side][1]) <
                                         t->zmp_replan)
            memcpy(moved[side], b->moved[side], sizeof moved[side]);
        else if (L < from) from = L;
        b->landing[side] = L;
        memcpy(b->moved[side], moved[side], sizeof moved[side]);
    }
    clamp_window(s, rr, t, f, from, f + N, pin, last, next_end, (const double(*)[2])moved, miss, shift);
    s->f[f].uncaught = !balance_step(b, s, f, s->f[f].com_ref);
}

void rt_balance_replay(rt_balancer *b, rt_source *s) {
    const int n = s->nframes;
    for (int f = 0; f < n; f++) memcpy(s->f[f].com_foreseen, s->f[f].com_ref, sizeof s->f[f].com_foreseen);
    if (!b->on) return;
    balance_start(b, s); /* the run's state, no longer needed by it */
    for (int f = 0; f < n; f++) balance_step(b, s, f, s->f[f].com_foreseen);
}

void rt_balance_free(rt_balancer *b) {
    kg_zmp_window_free(&b->zw);
    free(b->refs), free(b->polys);
    b->refs = NULL, b->polys = NULL, b->on = 0;
}
