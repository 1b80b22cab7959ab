/* The balance stage: a COM reference for the whole clip whose ZMP stays in
 * the support polygons the source's contacts plan.
 *
 * The COM the source implies (the robot's rest COM offset carried by the
 * source's pelvis) gives a cart-table ZMP; moved into the planned support
 * polygon (the planted soles' hull) to zmp_margin inside its edges, or to its
 * centre where it is narrower, it is the reference of Kajita's preview
 * controller (analysis/preview.h), whose COM the frame's solve follows; in the
 * air (no foot down) the reference is the COM estimate itself (nothing pushes
 * sideways). When the ZMP's difference step is one frame (clips at 25-30
 * frames/s) the controller is the one for the ZMP a sampled COM shows, so a
 * change of feet between two frames does not leave the sampled ZMP between
 * them. The controller starts at the first frame's estimate with the velocity
 * and acceleration that suit the references ahead (a clip starts in
 * mid-motion). */
#include <math.h>
#include <stdlib.h>

#include "analysis/preview.h"
#include "analysis/retarget/internal.h"

/* The ZMP reference of every frame. */
static void zmp_references(rt_source *s, const kg_retarget_robot *rr, const kg_retarget_tuning *t, int H) {
    const int n = s->nframes;
    for (int f = 0; f < n; f++) {
        rt_frame_source *F = &s->f[f];
        int a = f - H < 0 ? 0 : f - H, b = f + H >= n ? n - 1 : f + H;
        for (int ax = 0; ax < 2; ax++) {
            /* one-sided at the clip's ends: no acceleration is known there */
            F->zmp_ref[ax] = a == f - H && b == f + H
                                 ? rt_cart_table_zmp(s->f[a].com_est[ax], F->com_est[ax], s->f[b].com_est[ax], H * s->dt,
                                                     rr->com_h)
                                 : F->com_est[ax];
        }
        double poly[8][2], in[2];
        int np = rt_support_polygon(rr, F->contact, (const double(*)[4])F->pin, poly);
        if (np == 0) {
            F->zmp_ref[0] = F->com_est[0], F->zmp_ref[1] = F->com_est[1];
            continue;
        }
        rt_polygon_distance((const double(*)[2])poly, np, F->zmp_ref, t->zmp_margin, in);
        F->zmp_ref[0] = in[0], F->zmp_ref[1] = in[1];
    }
}

int rt_balance(rt_source *s, const kg_retarget_robot *rr, const kg_retarget_options *o, kg_diags *dg) {
    const kg_retarget_tuning *t = &o->tune;
    const int n = s->nframes;
    int H = (int)lround(t->zmp_step / s->dt), N = (int)lround(t->preview_time / s->dt);
    if (H < 1) H = 1;
    if (N < 2) N = 2;
    zmp_references(s, rr, t, H);
    if (!o->balance) {
        for (int f = 0; f < n; f++) s->f[f].com_ref[0] = s->f[f].com_est[0], s->f[f].com_ref[1] = s->f[f].com_est[1];
        return 0;
    }
    kg_preview pv;
    double *refs = malloc(((size_t)2 * N + 2) * sizeof *refs);
    if (!refs || (H == 1 ? kg_preview_init_sampled : kg_preview_init)(&pv, s->dt, rr->com_h, RT_G, 1, t->preview_r, N) != 0) {
        free(refs);
        kg_diag_add(dg, KG_ERROR, "retarget.preview", rr->model->source, 0, NULL,
                    "the preview control gains do not converge (or out of memory)");
        return -1;
    }
    for (int ax = 0; ax < 2; ax++) {
        kg_preview_axis st;
        for (int j = 0; j <= 2 * N; j++) refs[j] = s->f[j < n ? j : n - 1].zmp_ref[ax];
        kg_preview_axis_start_moving(&pv, &st, s->f[0].com_est[ax], refs, N);
        for (int f = 0; f < n; f++) {
            s->f[f].com_ref[ax] = st.x[0]; /* the state is this frame's COM; its step gives the next */
            for (int j = 0; j <= N; j++) refs[j] = s->f[f + j < n ? f + j : n - 1].zmp_ref[ax];
            kg_preview_axis_step(&pv, &st, refs);
        }
    }
    kg_preview_free(&pv);
    free(refs);
    return 0;
}
