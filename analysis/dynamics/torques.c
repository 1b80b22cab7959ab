/* One frame's torques with the feet's contacts (the method: torques.h):
 * inverse dynamics with the root floating, the base wrench shared between
 * the sole corners in contact, inverse dynamics again with those forces, the
 * multibody ZMP and its margin in the support polygon. Also the actuated
 * coordinates and their effort limits. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/dynamics/contacts.h"
#include "kinegraph/torques.h"
#include "core/spatial.h"

struct kg_torque_work {
    kg_dyn *dyn;
    dyn_contact_work cw;
    double *fext; /* [6 nlink] */
};

void kg_torque_defaults(kg_torque_options *o) {
    memset(o, 0, sizeof *o);
    o->dyn = kg_dyn_default;
    o->friction = 0.5;
    o->ground_z = 0;
    o->contact_height = 0.005;
    o->corner_height = 0.005;
    o->zmp_tolerance = 1e-4;
}

kg_torque_work *kg_torque_work_new(const kg_model *m) {
    kg_torque_work *w = calloc(1, sizeof *w);
    if (!w) return NULL;
    w->dyn = kg_dyn_new(m);
    w->fext = calloc(6 * (size_t)m->nlink + 1, sizeof *w->fext);
    if (!w->dyn || !w->fext || dyn_contact_init(&w->cw) != 0) { /* out of memory */
        kg_torque_work_free(w);
        return NULL;
    }
    return w;
}

void kg_torque_work_free(kg_torque_work *w) {
    if (!w) return;
    kg_dyn_free(w->dyn);
    dyn_contact_clear(&w->cw);
    free(w->fext);
    free(w);
}

/* The root's wrench (force; moment about the root's origin p0) about the world origin. */
static void wrench_at_origin(const double fb[6], const double p0[3], double W[6]) {
    double t[3];
    kg_vec3_cross(t, p0, fb);
    for (int a = 0; a < 3; a++) W[a] = fb[a], W[3 + a] = fb[3 + a] + t[a];
}

void kg_torques_frame(const kg_model *m, const kg_data *d, kg_torque_work *w, const kg_torque_options *o,
                      const kg_feet *feet, const int contact[KG_NFOOT], const double vbase[6], const double abase[6],
                      const double *v, const double *a, double *tau, kg_torque_frame *out) {
    kg_torque_options dflt;
    if (!o) kg_torque_defaults(&dflt), o = &dflt;
    memset(out, 0, sizeof *out);
    kg_dyn_positions(m, d, w->dyn);
    double mass, fb[6];
    kg_dyn_centroidal(m, w->dyn, NULL, &mass, out->com, NULL, NULL);
    kg_dyn_rnea_floating(m, w->dyn, &o->dyn, vbase, abase, v, a, NULL, tau, fb);
    wrench_at_origin(fb, d->link_pos, out->required);

    /* the contact points: each foot down touches at its corners near its lowest */
    double p[DYN_MAX_POINTS][3];
    int foot_of[DYN_MAX_POINTS], corner_of[DYN_MAX_POINTS], np = 0;
    for (int s = 0; s < KG_NFOOT; s++) {
        out->contact[s] = feet && contact && contact[s] && feet->link[s] >= 0;
        if (!out->contact[s]) continue;
        double c[KG_SOLE_CORNERS][3], zmin = INFINITY;
        kg_feet_corners(feet, d, s, c);
        for (int k = 0; k < KG_SOLE_CORNERS; k++) zmin = fmin(zmin, c[k][2]);
        for (int k = 0; k < KG_SOLE_CORNERS; k++)
            if (c[k][2] <= zmin + o->corner_height) {
                kg_vec3_copy(p[np], c[k]);
                foot_of[np] = s, corner_of[np] = k, np++;
            }
    }
    out->npoint = np;

    /* the multibody ZMP of W, and the support polygon's margin around it */
    const double *F = out->required, *N = out->required + 3, h = o->ground_z;
    if (F[2] > 0) {
        out->zmp[0] = (h * F[0] - N[1]) / F[2];
        out->zmp[1] = (h * F[1] + N[0]) / F[2];
        out->zmp[2] = h;
    } else
        out->zmp[0] = out->zmp[1] = out->zmp[2] = NAN;
    out->zmp_margin = np > 0 && F[2] > 0 ? dyn_support_margin((const double (*)[3])p, np, out->zmp) : NAN;
    out->zmp_outside = np > 0 && !(out->zmp_margin >= -o->zmp_tolerance);

    double f[3 * DYN_MAX_POINTS];
    out->qp_status = KG_QP_OK;
    if (np > 0) {
        out->qp_status = dyn_contact_share(&w->cw, (const double (*)[3])p, np, out->required, o->friction, f,
                                           &out->balanced);
        if (out->qp_status != KG_QP_OK) memset(f, 0, sizeof f), out->balanced = 0;
        memset(w->fext, 0, 6 * (size_t)m->nlink * sizeof *w->fext);
        for (int i = 0; i < np; i++) {
            const int l = feet->link[foot_of[i]];
            double *fe = w->fext + 6 * l, r[3], t[3];
            for (int e = 0; e < 3; e++) r[e] = p[i][e] - d->link_pos[3 * l + e];
            kg_vec3_cross(t, r, f + 3 * i);
            for (int e = 0; e < 3; e++) fe[e] += f[3 * i + e], fe[3 + e] += t[e];
            kg_vec3_copy(out->force[foot_of[i]][corner_of[i]], f + 3 * i);
            kg_vec3_cross(t, p[i], f + 3 * i);
            for (int e = 0; e < 3; e++) out->supplied[e] += f[3 * i + e], out->supplied[3 + e] += t[e];
        }
        kg_dyn_rnea_floating(m, w->dyn, &o->dyn, vbase, abase, v, a, w->fext, tau, fb);
    }
    /* what the contacts leave of W, its moment about the COM */
    double dF[3], dN[3], t[3];
    for (int e = 0; e < 3; e++) dF[e] = out->required[e] - out->supplied[e];
    kg_vec3_cross(t, out->com, dF);
    for (int e = 0; e < 3; e++) dN[e] = out->required[3 + e] - out->supplied[3 + e] - t[e];
    out->residual_force = kg_vec3_norm(dF);
    out->residual_moment = mass > 0 ? kg_vec3_norm(dN) : 0;
}

int kg_torques_actuated(const kg_model *m, int *idx) {
    int n = 0;
    for (int j = 0; j < m->njoint; j++) {
        const kg_joint *J = &m->joint[j];
        if (J->mimic >= 0 || J->nv == 0) continue;
        for (int c = 0; c < J->nv; c++, n++)
            if (idx) idx[n] = J->vadr + c;
    }
    return n;
}

void kg_torques_fold(const kg_model *m, const int *idx, int nact, const double *tau, double *tau_act) {
    for (int k = 0; k < nact; k++) tau_act[k] = tau[idx[k]];
    for (int i = 0; i < m->nmimic; i++) {
        const kg_mimic *mi = &m->mimic[i];
        const kg_joint *F = &m->joint[mi->follower], *L = &m->joint[mi->leader];
        if (F->nv != 1 || L->nv != 1) continue;
        /* a leader may itself follow: carry down the chain to the actuated one */
        double mult = mi->multiplier;
        const kg_joint *top = L;
        while (top->mimic >= 0) {
            mult *= m->mimic[top->mimic].multiplier;
            top = &m->joint[m->mimic[top->mimic].leader];
        }
        for (int k = 0; k < nact; k++)
            if (idx[k] == top->vadr) tau_act[k] += mult * tau[F->vadr];
    }
}

double kg_torques_effort(const kg_model *m, int c) {
    for (int j = 0; j < m->njoint; j++) {
        const kg_joint *J = &m->joint[j];
        if (c >= J->vadr && c < J->vadr + J->nv) return J->effort > 0 && isfinite(J->effort) ? J->effort : NAN;
    }
    return NAN;
}
