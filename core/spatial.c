#define _GNU_SOURCE /* sincos */
#include "core/spatial.h"

#include <lapacke.h>

void kg_sincos_libm(double x, double *s, double *c) { sincos(x, s, c); }

void kg_rot_axis_angle(double r[9], const double a[3], double angle) {
    const double s = sin(angle), c = cos(angle), v = 1.0 - c;
    const double x = a[0], y = a[1], z = a[2];
    r[0] = c + x * x * v;     r[1] = x * y * v - z * s; r[2] = x * z * v + y * s;
    r[3] = y * x * v + z * s; r[4] = c + y * y * v;     r[5] = y * z * v - x * s;
    r[6] = z * x * v - y * s; r[7] = z * y * v + x * s; r[8] = c + z * z * v;
}

void kg_rot_from_rpy(double r[9], const double rpy[3]) {
    const double sr = sin(rpy[0]), cr = cos(rpy[0]);
    const double sp = sin(rpy[1]), cp = cos(rpy[1]);
    const double sy = sin(rpy[2]), cy = cos(rpy[2]);
    r[0] = cy * cp; r[1] = cy * sp * sr - sy * cr; r[2] = cy * sp * cr + sy * sr;
    r[3] = sy * cp; r[4] = sy * sp * sr + cy * cr; r[5] = sy * sp * cr - cy * sr;
    r[6] = -sp;     r[7] = cp * sr;                r[8] = cp * cr;
}

void kg_rot_to_rpy(const double r[9], double rpy[3]) {
    double sp = -r[6];
    if (sp > 1) sp = 1;
    if (sp < -1) sp = -1;
    rpy[1] = asin(sp);
    if (fabs(sp) < 1.0 - 1e-12) {
        rpy[0] = atan2(r[7], r[8]);
        rpy[2] = atan2(r[3], r[0]);
    } else {
        /* Gimbal lock: only roll -/+ yaw is defined; put it all in roll. With
         * yaw = 0, r[4] = cos(roll) and r[5] = -sin(roll) for either pitch sign. */
        rpy[2] = 0;
        rpy[0] = atan2(-r[5], r[4]);
    }
}

void kg_rot_from_quat(double r[9], const double qin[4]) {
    double n = sqrt(qin[0] * qin[0] + qin[1] * qin[1] + qin[2] * qin[2] + qin[3] * qin[3]);
    if (n == 0 || !isfinite(n)) {
        kg_mat3_identity(r);
        return;
    }
    const double w = qin[0] / n, x = qin[1] / n, y = qin[2] / n, z = qin[3] / n;
    r[0] = 1 - 2 * (y * y + z * z); r[1] = 2 * (x * y - w * z);     r[2] = 2 * (x * z + w * y);
    r[3] = 2 * (x * y + w * z);     r[4] = 1 - 2 * (x * x + z * z); r[5] = 2 * (y * z - w * x);
    r[6] = 2 * (x * z - w * y);     r[7] = 2 * (y * z + w * x);     r[8] = 1 - 2 * (x * x + y * y);
}

void kg_rot_to_quat(const double r[9], double q[4]) {
    /* Shepperd's method: pick the largest of the four squared components. */
    const double t = r[0] + r[4] + r[8];
    double w, x, y, z;
    if (t >= r[0] && t >= r[4] && t >= r[8]) {
        double s = sqrt(1 + t) * 2;
        w = 0.25 * s;
        x = (r[7] - r[5]) / s;
        y = (r[2] - r[6]) / s;
        z = (r[3] - r[1]) / s;
    } else if (r[0] >= r[4] && r[0] >= r[8]) {
        double s = sqrt(1 + r[0] - r[4] - r[8]) * 2;
        w = (r[7] - r[5]) / s;
        x = 0.25 * s;
        y = (r[1] + r[3]) / s;
        z = (r[2] + r[6]) / s;
    } else if (r[4] >= r[8]) {
        double s = sqrt(1 + r[4] - r[0] - r[8]) * 2;
        w = (r[2] - r[6]) / s;
        x = (r[1] + r[3]) / s;
        y = 0.25 * s;
        z = (r[5] + r[7]) / s;
    } else {
        double s = sqrt(1 + r[8] - r[0] - r[4]) * 2;
        w = (r[3] - r[1]) / s;
        x = (r[2] + r[6]) / s;
        y = (r[5] + r[7]) / s;
        z = 0.25 * s;
    }
    if (w < 0) { w = -w; x = -x; y = -y; z = -z; }
    double n = sqrt(w * w + x * x + y * y + z * z);
    q[0] = w / n; q[1] = x / n; q[2] = y / n; q[3] = z / n;
}

void kg_rot_log(const double r[9], double w[3]) {
    /* Via the quaternion: accurate near 0 and near pi, unlike acos of the trace. */
    double q[4];
    kg_rot_to_quat(r, q);
    double s = sqrt(q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
    double angle = 2 * atan2(s, q[0]);
    double k = s > 1e-300 ? angle / s : 2.0;
    w[0] = k * q[1]; w[1] = k * q[2]; w[2] = k * q[3];
}

double kg_rot_angle(const double r[9]) {
    double w[3];
    kg_rot_log(r, w);
    return kg_vec3_norm(w);
}

void kg_inertia_from6(double o[9], const double i6[6]) {
    o[0] = i6[0]; o[1] = i6[1]; o[2] = i6[2];
    o[3] = i6[1]; o[4] = i6[3]; o[5] = i6[4];
    o[6] = i6[2]; o[7] = i6[4]; o[8] = i6[5];
}

void kg_inertia_rotate(double o[9], const double r[9], const double i[9]) {
    double t[9];
    kg_mat3_mul(t, r, i);
    kg_mat3_mul_bt(o, t, r);
    /* Keep it exactly symmetric. */
    o[3] = o[1] = 0.5 * (o[1] + o[3]);
    o[6] = o[2] = 0.5 * (o[2] + o[6]);
    o[7] = o[5] = 0.5 * (o[5] + o[7]);
}

int kg_inertia_principal(const double i[9], double moments[3], double r[9]) {
    for (int k = 0; k < 9; k++)
        if (!isfinite(i[k])) return -1;
    double a[9];
    for (int k = 0; k < 9; k++) a[k] = i[k];
    a[1] = a[3] = 0.5 * (i[1] + i[3]); /* exactly symmetric */
    a[2] = a[6] = 0.5 * (i[2] + i[6]);
    a[5] = a[7] = 0.5 * (i[5] + i[7]);
    if (LAPACKE_dsyev(LAPACK_ROW_MAJOR, 'V', 'U', 3, a, 3, moments) != 0) return -1;
    /* a's columns are the eigenvectors; make them a right-handed rotation */
    double c0[3] = {a[0], a[3], a[6]}, c1[3] = {a[1], a[4], a[7]}, c2[3];
    kg_vec3_cross(c2, c0, c1);
    for (int k = 0; k < 3; k++) {
        r[3 * k] = c0[k];
        r[3 * k + 1] = c1[k];
        r[3 * k + 2] = c2[k];
    }
    return 0;
}

void kg_mat3_orthonormalize(double r[9]) {
    double q[4];
    kg_rot_to_quat(r, q);
    double n = sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
    if (!(n > 0)) {
        kg_mat3_identity(r);
        return;
    }
    for (int k = 0; k < 4; k++) q[k] /= n;
    kg_rot_from_quat(r, q);
}

/* For axes (i, j, k), s = +1 when they are cyclic: sin v = s r_ik,
 * u = atan2(-s r_jk, r_kk), w = atan2(-s r_ij, r_ii). */
void kg_rot_to_euler(const double r[9], const int axes[3], const double prev[3], double out[3]) {
    const int i = axes[0], j = axes[1], k = axes[2];
    double s = (j == (i + 1) % 3) ? 1 : -1;
    double sv = fmax(-1, fmin(1, s * r[3 * i + k])), cv = sqrt(fmax(0, 1 - sv * sv)), u, v = atan2(sv, cv), w;
    if (cv > 1e-12) {
        u = atan2(-s * r[3 * j + k], r[3 * k + k]);
        w = atan2(-s * r[3 * i + j], r[3 * i + i]);
    } else { /* gimbal lock: keep w, the first axis takes the rest: R_a(u) = r R_c(w)^T R_b(v)^T */
        w = prev ? prev[2] : 0;
        double rb[9], rc[9], t[9], m[9], ax[3] = {0, 0, 0};
        ax[j] = 1;
        kg_rot_axis_angle(rb, ax, v);
        ax[j] = 0;
        ax[k] = 1;
        kg_rot_axis_angle(rc, ax, w);
        kg_mat3_mul_bt(t, r, rc);
        kg_mat3_mul_bt(m, t, rb);
        u = atan2(m[3 * ((i + 2) % 3) + (i + 1) % 3], m[3 * ((i + 1) % 3) + (i + 1) % 3]);
    }
    double sol[2][3] = {{u, v, w}, {u + KG_PI, KG_PI - v, w + KG_PI}}; /* both describe r */
    double best = INFINITY;
    for (int n = 0; n < 2; n++) {
        double c[3], cost = 0;
        for (int a = 0; a < 3; a++) {
            double ref = prev ? prev[a] : 0;
            c[a] = sol[n][a] + 2 * KG_PI * nearbyint((ref - sol[n][a]) / (2 * KG_PI));
            cost += fabs(c[a] - ref);
        }
        if (cost < best) {
            best = cost;
            memcpy(out, c, sizeof c);
        }
    }
}
