/* Spatial maths on plain double arrays.
 *
 * Conventions used everywhere in kinegraph:
 *   - 3x3 rotation matrices are row-major double[9]: r[3*i + j] is row i, column j.
 *   - A pose is a rotation r[9] and a position p[3]; it maps child coordinates to
 *     parent coordinates: x_parent = r * x_child + p.
 *   - Quaternions are double[4] in the order (w, x, y, z), Hamilton convention.
 *   - Roll-pitch-yaw (URDF "rpy") means R = Rz(yaw) * Ry(pitch) * Rx(roll),
 *     i.e. fixed-axis rotations about X, then Y, then Z.
 * The small functions are inline because forward kinematics and Jacobians call them
 * in their inner loops. */
#ifndef KG_SPATIAL_H
#define KG_SPATIAL_H

#include <math.h>
#include <stdint.h>
#include <string.h>

#define KG_PI 3.14159265358979323846

/* The retargeting solve's hot functions outside the QP (GJK and the hull
 * climbs, the collision pairs, the cost accumulation, the point Jacobians,
 * forward kinematics) compiled twice, for AVX2 and for the base x86-64 ISA,
 * the CPU's chosen when the library loads (GCC's target_clones, as qp.c's
 * KG_QP_HOT): VEX's three-operand forms spare the register copies of scalar
 * code and the row loops run four wide; 5-7 % fewer instructions per frame.
 * AVX2 alone does not enable FMA, and ISO C mode keeps contraction off, so the
 * results are the same bit for bit. Only static functions are cloned: a clone
 * of an extern function exports its dispatcher and resolver, so an exported
 * function that is cloned is a plain wrapper around a static clone. */
#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__) && defined(__linux__)
#define KG_AVX2_CLONE __attribute__((target_clones("avx2", "default")))
#else
#define KG_AVX2_CLONE
#endif

/* fmax and fmin as glibc's x86-64 ones compute them (the first argument on
 * ties, so fmax(+0, -0) is +0 and fmax(-0, +0) -0; the other argument when one
 * is a NaN), inline: GCC calls libm's for fmax() unless NaNs and signed zeros
 * may be ignored, and in GJK's and the solver's inner loops those calls (and
 * the registers spilled around them) cost more than the comparisons. Results
 * are the same bit for bit (tests/test_spatial.c checks every pair of zeros,
 * infinities and NaNs against libm's). */
static inline double kg_fmax(double a, double b) { return b > a || a != a ? b : a; }
static inline double kg_fmin(double a, double b) { return b < a || a != a ? b : a; }

static inline void kg_vec3_copy(double o[3], const double a[3]) {
    o[0] = a[0]; o[1] = a[1]; o[2] = a[2];
}
static inline double kg_vec3_dot(const double a[3], const double b[3]) {
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}
static inline double kg_vec3_norm(const double a[3]) { return sqrt(kg_vec3_dot(a, a)); }
static inline void kg_vec3_cross(double o[3], const double a[3], const double b[3]) {
    double x = a[1] * b[2] - a[2] * b[1];
    double y = a[2] * b[0] - a[0] * b[2];
    double z = a[0] * b[1] - a[1] * b[0];
    o[0] = x; o[1] = y; o[2] = z;
}

static inline void kg_mat3_identity(double r[9]) {
    r[0] = 1; r[1] = 0; r[2] = 0;
    r[3] = 0; r[4] = 1; r[5] = 0;
    r[6] = 0; r[7] = 0; r[8] = 1;
}
static inline void kg_mat3_copy(double o[9], const double a[9]) {
    for (int i = 0; i < 9; i++) o[i] = a[i];
}
/* o = a * b (o may not alias a or b) */
static inline void kg_mat3_mul(double *restrict o, const double *restrict a, const double *restrict b) {
    for (int i = 0; i < 3; i++) {
        const double a0 = a[3 * i], a1 = a[3 * i + 1], a2 = a[3 * i + 2];
        o[3 * i + 0] = a0 * b[0] + a1 * b[3] + a2 * b[6];
        o[3 * i + 1] = a0 * b[1] + a1 * b[4] + a2 * b[7];
        o[3 * i + 2] = a0 * b[2] + a1 * b[5] + a2 * b[8];
    }
}
/* o = a * b^T */
static inline void kg_mat3_mul_bt(double *restrict o, const double *restrict a, const double *restrict b) {
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++)
            o[3 * i + j] = a[3 * i] * b[3 * j] + a[3 * i + 1] * b[3 * j + 1] + a[3 * i + 2] * b[3 * j + 2];
}
/* o = a^T * b */
static inline void kg_mat3_mul_at(double *restrict o, const double *restrict a, const double *restrict b) {
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++)
            o[3 * i + j] = a[i] * b[j] + a[3 + i] * b[3 + j] + a[6 + i] * b[6 + j];
}
/* o = r * v (o may alias v) */
static inline double kg_mat3_det(const double r[9]) {
    return r[0] * (r[4] * r[8] - r[5] * r[7]) - r[1] * (r[3] * r[8] - r[5] * r[6]) + r[2] * (r[3] * r[7] - r[4] * r[6]);
}
static inline void kg_mat3_vec(double o[3], const double r[9], const double v[3]) {
    double x = r[0] * v[0] + r[1] * v[1] + r[2] * v[2];
    double y = r[3] * v[0] + r[4] * v[1] + r[5] * v[2];
    double z = r[6] * v[0] + r[7] * v[1] + r[8] * v[2];
    o[0] = x; o[1] = y; o[2] = z;
}
/* o = r^T * v (o may alias v) */
static inline void kg_mat3_tvec(double o[3], const double r[9], const double v[3]) {
    double x = r[0] * v[0] + r[3] * v[1] + r[6] * v[2];
    double y = r[1] * v[0] + r[4] * v[1] + r[7] * v[2];
    double z = r[2] * v[0] + r[5] * v[1] + r[8] * v[2];
    o[0] = x; o[1] = y; o[2] = z;
}
/* Skew-symmetric matrix [a]x, so that [a]x b = a x b. */
static inline void kg_mat3_skew(double o[9], const double a[3]) {
    o[0] = 0;     o[1] = -a[2]; o[2] = a[1];
    o[3] = a[2];  o[4] = 0;     o[5] = -a[0];
    o[6] = -a[1]; o[7] = a[0];  o[8] = 0;
}

/* sin and cos of x together, to within about one ulp of libm, several times
 * faster (it inlines): forward kinematics calls it once per moving joint.
 * Cody-Waite reduction by pi/2 in three parts (exact for |x| < 2^20 pi/2), then
 * fdlibm's minimax kernels on [-pi/4, pi/4]; huge or non-finite x go to libm. */
void kg_sincos_libm(double x, double *s, double *c);
static inline void kg_sincos(double x, double *s, double *c) {
    if (!(fabs(x) < 1e5)) {
        kg_sincos_libm(x, s, c);
        return;
    }
    const double invpio2 = 6.36619772367581382433e-01, shift = 6755399441055744.0; /* 1.5 * 2^52 */
    const double p1 = 1.57079632673412561417e+00, p2 = 6.07710050630396597660e-11,
                 p3 = 2.02226624871116645580e-21;
    double fn = (x * invpio2 + shift) - shift; /* round to nearest */
    long n = (long)fn;
    double r = ((x - fn * p1) - fn * p2) - fn * p3;
    double z = r * r, w = z * z;
    double sr = r + r * z * (-1.66666666666666324348e-01 +
                             z * (8.33333333332248946124e-03 + z * (-1.98412698298579493134e-04 +
                             z * (2.75573137070700676789e-06 + z * (-2.50507602534068634195e-08 +
                             z * 1.58969099521155010221e-10)))));
    double cz = z * (4.16666666666666019037e-02 + z * (-1.38888888888741095749e-03 + z * 2.48015872894767294178e-05)) +
                w * w * (-2.75573143513906633035e-07 + z * (2.08757232129817482790e-09 + z * -1.13596475577881948265e-11));
    double hz = 0.5 * z, one_hz = 1.0 - hz;
    double cr = one_hz + (((1.0 - one_hz) - hz) + z * cz);
    /* quadrant n mod 4 without branches (random joint angles mispredict them):
     * odd quadrants swap sin and cos, then sin flips in 2, 3 and cos in 1, 2 */
    uint64_t bs, bc, swap = (uint64_t)0 - (uint64_t)(n & 1);
    memcpy(&bs, &sr, 8);
    memcpy(&bc, &cr, 8);
    uint64_t ts = (bs & ~swap) | (bc & swap), tc = (bc & ~swap) | (bs & swap);
    ts ^= (uint64_t)(n & 2) << 62;
    tc ^= (uint64_t)((n + 1) & 2) << 62;
    memcpy(s, &ts, 8);
    memcpy(c, &tc, 8);
}

/* Rotation of `angle` radians about the unit vector `axis` (Rodrigues). */
void kg_rot_axis_angle(double r[9], const double axis[3], double angle);
void kg_rot_from_rpy(double r[9], const double rpy[3]);
/* Inverse of kg_rot_from_rpy; pitch in [-pi/2, pi/2]. */
void kg_rot_to_rpy(const double r[9], double rpy[3]);
/* Normalises q (w, x, y, z) first; a zero quaternion gives the identity. */
void kg_rot_from_quat(double r[9], const double q[4]);
/* w >= 0 */
void kg_rot_to_quat(const double r[9], double q[4]);
/* Rotation vector (axis * angle, angle in [0, pi]) of r: the matrix logarithm. */
void kg_rot_log(const double r[9], double w[3]);
/* Euler angles of r = R_a(u) R_b(v) R_c(w), axes = (a, b, c) distinct x/y/z
 * indices: the solution of the two nearest prev (radians, each angle unwrapped
 * next to it; NULL: nearest zero). At gimbal lock w keeps prev's value. */
void kg_rot_to_euler(const double r[9], const int axes[3], const double prev[3], double out[3]);
/* Replaces a nearly orthonormal matrix by a rotation close to it (through its quaternion). */
void kg_mat3_orthonormalize(double r[9]);
/* Angle of the rotation r, in [0, pi]. */
double kg_rot_angle(const double r[9]);

/* Symmetric 3x3 inertia from URDF's six numbers (ixx ixy ixz iyy iyz izz). */
void kg_inertia_from6(double o[9], const double i6[6]);
/* Principal moments (ascending) and axes of a symmetric inertia tensor:
 * i = r diag(moments) r^T, r a rotation (its columns are the axes). Returns 0,
 * or -1 if the eigen-decomposition fails (non-finite input). */
int kg_inertia_principal(const double i[9], double moments[3], double r[9]);
/* o = r * i * r^T: an inertia tensor expressed in rotated axes. */
void kg_inertia_rotate(double o[9], const double r[9], const double i[9]);

/* Pose composition: (ro, po) = (ra, pa) * (rb, pb). Outputs may not alias inputs. */
static inline void kg_pose_mul(double *restrict ro, double *restrict po, const double *restrict ra,
                               const double *restrict pa, const double *restrict rb,
                               const double *restrict pb) {
    kg_mat3_mul(ro, ra, rb);
    kg_mat3_vec(po, ra, pb);
    po[0] += pa[0]; po[1] += pa[1]; po[2] += pa[2];
}

#endif
