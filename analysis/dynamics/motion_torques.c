/* The torques of a whole motion: every frame's rates (rates.c) and torques
 * with contacts (torques.c), and the figures over the motion: per actuated
 * coordinate the largest |torque|, its frame and its ratio to the effort
 * limit; the ZMP outside the support polygon; what the contacts could not
 * supply. */
#define _POSIX_C_SOURCE 200809L /* clock_gettime */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "kinegraph/torques.h"
#include "analysis/qp.h"
#include "core/fk.h"

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* 0 when the model's tree is one this handles, else -1 after an error. */
static int supported(const kg_model *m, const kg_motion *mo, kg_diags *dg) {
    for (int j = 0; j < m->njoint; j++) {
        const kg_joint *J = &m->joint[j];
        if (J->nq != J->nv || J->type == KG_JOINT_FLOATING) {
            kg_diag_add(dg, KG_ERROR, "dynamics.unsupported", m->source, J->line, NULL,
                        "joint '%s' is %s: the torques of a motion take the root link as the floating base and "
                        "joints whose coordinates are their rates' integrals",
                        J->name, J->type == KG_JOINT_FLOATING ? "floating" : "not differentiable coordinate by coordinate");
            return -1;
        }
    }
    if (m->nloop > 0)
        kg_diag_add(dg, KG_WARNING, "dynamics.loops", m->source, 0, NULL,
                    "the model has %d closed loop(s): torques are those of its spanning tree (loop closures carry no "
                    "force)", m->nloop);
    if (mo->nq != m->nq || mo->nframes < 1) {
        kg_diag_add(dg, KG_ERROR, "dynamics.motion", m->source, 0, NULL,
                    "the motion (%d coordinates, %d frames) does not fit the model (%d coordinates)", mo->nq,
                    mo->nframes, m->nq);
        return -1;
    }
    return 0;
}

/* 1 when the n values are all finite. */
static int finite_all(const double *x, int n) {
    for (int i = 0; i < n; i++)
        if (!isfinite(x[i])) return 0;
    return 1;
}

/* 0 when frame f's rates and torques are numbers, else -1 after an error: a
 * frame time too short for the motion (a typo in a frame rate, 1e300
 * frames/s) makes the second differences overflow, and torques of
 * infinities would be printed as figures. */
static int frame_finite(const kg_model *m, const kg_motion *mo, int f, const double vb[6], const double ab[6],
                        const double *v, const double *a, const double *tau, kg_diags *dg) {
    if (finite_all(v, m->nv) && finite_all(a, m->nv) && finite_all(tau, m->nv) &&
        (!mo->base || (finite_all(vb, 6) && finite_all(ab, 6))))
        return 0;
    kg_diag_add(dg, KG_ERROR, "dynamics.rates", m->source, 0, NULL,
                "the motion's velocities, accelerations or torques at frame %d are not finite (frame time %g s): "
                "no torques for it", f, mo->frame_time);
    return -1;
}

void kg_motion_torques_free(kg_motion_torques *t) {
    if (!t) return;
    free(t->act), free(t->tau), free(t->tau_max), free(t->frame_max), free(t->effort), free(t->ratio_max);
    memset(t, 0, sizeof *t);
}

int kg_motion_torques_compute(const kg_model *m, const kg_motion *mo, const unsigned char *contacts,
                              const kg_feet *feet, const kg_torque_options *o, kg_motion_torques *out,
                              kg_torque_frame *frames, kg_diags *dg) {
    const double t0 = now();
    memset(out, 0, sizeof *out);
    if (supported(m, mo, dg) != 0) return -1;
    kg_torque_options dflt;
    if (!o) kg_torque_defaults(&dflt), o = &dflt;
    const int n = mo->nframes, nact = kg_torques_actuated(m, NULL);
    const size_t nv = (size_t)m->nv + 1;
    out->nframes = n, out->nact = nact;
    out->act = malloc(((size_t)nact + 1) * sizeof *out->act);
    out->tau = malloc(((size_t)n * nact + 1) * sizeof *out->tau);
    out->tau_max = calloc((size_t)nact + 1, sizeof *out->tau_max);
    out->frame_max = calloc((size_t)nact + 1, sizeof *out->frame_max);
    out->effort = malloc(((size_t)nact + 1) * sizeof *out->effort);
    out->ratio_max = malloc(((size_t)nact + 1) * sizeof *out->ratio_max);
    double *buf = malloc(5 * nv * sizeof *buf);
    kg_data *d = kg_data_new(m);
    kg_torque_work *w = kg_torque_work_new(m);
    if (!out->act || !out->tau || !out->tau_max || !out->frame_max || !out->effort || !out->ratio_max || !buf || !d ||
        !w) {
        free(buf), kg_data_free(d), kg_torque_work_free(w), kg_motion_torques_free(out);
        kg_diag_add(dg, KG_ERROR, "dynamics.memory", m->source, 0, NULL, "out of memory");
        return -1;
    }
    double *v = buf, *a = buf + nv, *tau = buf + 2 * nv;
    kg_torques_actuated(m, out->act);
    const double g = sqrt(o->dyn.gravity[0] * o->dyn.gravity[0] + o->dyn.gravity[1] * o->dyn.gravity[1] +
                          o->dyn.gravity[2] * o->dyn.gravity[2]);
    out->zmp_margin_min = NAN;
    for (int i = 0; i < m->nlink; i++) out->mass += m->link[i].mass;
    for (int f = 0; f < n; f++) {
        double vb[6], ab[6];
        int contact[KG_NFOOT] = {0, 0};
        kg_motion_pose(mo, f, d);
        kg_fk(m, d);
        kg_motion_rates(m, mo, f, vb, ab, v, a);
        if (contacts)
            for (int s = 0; s < KG_NFOOT; s++) contact[s] = contacts[2 * (size_t)f + s] != 0;
        else kg_feet_contacts(feet, d, o, contact);
        kg_torque_frame fr;
        kg_torques_frame(m, d, w, o, feet, contact, mo->base ? vb : NULL, mo->base ? ab : NULL, v, a, tau, &fr);
        if (frame_finite(m, mo, f, vb, ab, v, a, tau, dg) != 0) {
            kg_torque_work_free(w), kg_data_free(d), free(buf), kg_motion_torques_free(out);
            return -1;
        }
        if (frames) frames[f] = fr;
        double *ta = out->tau + (size_t)f * nact;
        kg_torques_fold(m, out->act, nact, tau, ta);
        for (int k = 0; k < nact; k++)
            if (fabs(ta[k]) > out->tau_max[k] || f == 0) out->tau_max[k] = fabs(ta[k]), out->frame_max[k] = f;
        if (fr.npoint > 0) {
            out->contact_frames++;
            out->double_support_frames += fr.contact[0] && fr.contact[1];
            out->zmp_outside_frames += fr.zmp_outside;
            if (!isnan(fr.zmp_margin) && !(fr.zmp_margin >= out->zmp_margin_min)) out->zmp_margin_min = fr.zmp_margin;
            out->qp_failures += fr.qp_status != KG_QP_OK;
        }
        out->residual_force_max = fmax(out->residual_force_max, fr.residual_force);
        out->residual_moment_max = fmax(out->residual_moment_max, fr.residual_moment);
        out->unbalanced_frames += fr.residual_force > 1e-6 * out->mass * g || fr.residual_moment > 1e-6 * out->mass * g;
    }
    out->zmp_outside_percent = out->contact_frames ? 100.0 * out->zmp_outside_frames / out->contact_frames : 0;
    out->ratio_max_all = NAN, out->ratio_max_coord = -1;
    for (int k = 0; k < nact; k++) {
        out->effort[k] = kg_torques_effort(m, out->act[k]);
        out->ratio_max[k] = out->tau_max[k] / out->effort[k];
        if (!isnan(out->ratio_max[k]) && !(out->ratio_max[k] <= out->ratio_max_all))
            out->ratio_max_all = out->ratio_max[k], out->ratio_max_coord = k;
    }
    kg_torque_work_free(w);
    kg_data_free(d);
    free(buf);
    out->seconds = now() - t0;
    return 0;
}
