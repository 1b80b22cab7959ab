/* Manipulability of a Jacobian (analysis/jacobian.h): how far the joints can
 * move the reference point and frame, and in which directions.
 *
 * For J with r rows and n columns, with singular values s_1 >= ... >= s_k
 * (k = min(r, n)):
 *   w = s_1 s_2 ... s_k  (Yoshikawa's sqrt(det(J J^T)) for n >= r; for fewer
 *                         columns than rows, sqrt(det(J^T J)), the volume the
 *                         joints can sweep in their own dimensions)
 *   inverse condition = s_k / s_1 (0 at a singularity)
 * The velocity ellipsoids: the image of the unit ball of joint rates under the
 * translational rows (and, apart, the rotational rows): axes are the left
 * singular vectors, semi-axis lengths the singular values. */
#ifndef KG_MANIPULABILITY_H
#define KG_MANIPULABILITY_H

typedef struct kg_ellipsoid {
    double axes[9];   /* unit axes as columns (row-major 3x3), longest first */
    double length[3]; /* semi-axis lengths (m/s or rad/s per unit joint rate) */
} kg_ellipsoid;

typedef struct kg_manipulability {
    int nsigma;            /* min(6, columns) */
    double sigma[6];       /* singular values of J, largest first */
    double w;              /* product of the singular values */
    double inverse_condition;
    kg_ellipsoid translation, rotation;
} kg_manipulability;

/* J: 6 rows (linear, then angular) by n columns, row-major with leading
 * dimension ld. LAPACK's SVD (LAPACKE_dgesdd). Returns 0, -1 on failure. */
int kg_manipulability_svd(const double *J, int n, int ld, kg_manipulability *out);

/* w alone, fast (no allocation, no LAPACK): sqrt(det(J J^T)) through a Cholesky
 * factorisation of the 6x6 (or n x n) Gram matrix; 0 when it is singular. For
 * sampling (workspaces). */
double kg_manipulability_w(const double *J, int n, int ld);

#endif
