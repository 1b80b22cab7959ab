/* Contact wrench distribution and support polygons (internal to the torques
 * of a motion, include/kinegraph/torques.h). */
#ifndef KG_DYN_CONTACTS_H
#define KG_DYN_CONTACTS_H

#include "analysis/qp.h"

enum { DYN_MAX_POINTS = 8 }; /* two soles' four corners */

typedef struct dyn_contact_work {
    kg_qp_work *qp;
    double H[9 * DYN_MAX_POINTS * DYN_MAX_POINTS], g[3 * DYN_MAX_POINTS];
    double A[6 * 3 * DYN_MAX_POINTS], C[4 * DYN_MAX_POINTS * 3 * DYN_MAX_POINTS], b[4 * DYN_MAX_POINTS];
    double lb[3 * DYN_MAX_POINTS], ub[3 * DYN_MAX_POINTS];
} dyn_contact_work;

/* 0, or -1 out of memory. */
int dyn_contact_init(dyn_contact_work *w);
void dyn_contact_clear(dyn_contact_work *w);

/* Forces f [3 np] (world) at points p [np][3] on a horizontal ground whose
 * wrench (force; moment about the world origin) is W, each within the
 * friction pyramid of coefficient mu: exactly with the least sum of squares
 * when it can be, else the least-squares fit (see torques.h). Returns the
 * QP's status; *exact says which of the two it is. */
int dyn_contact_share(dyn_contact_work *w, const double (*p)[3], int np, const double W[6], double mu, double *f,
                      int *exact);

/* The signed distance of point z (x, y) into the convex hull of the points'
 * ground projections (> 0 inside, < 0 outside; a hull of one point or a
 * segment has no inside: 0 on it). np >= 1. */
double dyn_support_margin(const double (*p)[3], int np, const double z[2]);

#endif
