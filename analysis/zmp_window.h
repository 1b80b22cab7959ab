/* The ZMP of a frame that keeps the centre of mass bounded: a window of
 * support polygons ahead, the ZMP nearest their references inside them.
 *
 * The model is the cart-table (linear inverted pendulum) model sampled at
 * step dt, per horizontal axis:
 *
 *     c[k+1] - (2 + a) c[k] + c[k-1] = -a p[k],   a = (g / z_c) dt^2,
 *
 * so that the ZMP a sampled COM shows, c[k] - (z_c / g) (c[k+1] - 2 c[k] +
 * c[k-1]) / dt^2, is p[k] exactly. Its roots are l and 1/l (l > 1); with
 * u[k] = c[k] - c[k-1] / l, u[k+1] = l u[k] - a p[k], and the COM stays
 * bounded if and only if
 *
 *     sum_j l^-j p[k+j] = u[k] l / a                                   (1)
 *
 * (the divergent component of motion, sampled: Englsberger et al., "Three-
 * dimensional bipedal walking control based on divergent component of
 * motion", IEEE T-RO 2015). Over a window of n steps, the last ZMP held
 * beyond it, the frame's ZMPs p[j] minimise sum |p[j] - r[j]|^2 subject to (1)
 * and p[j] inside polygon j: p[j] = proj_j(r[j] + w[j] m) (w[j] = l^-j, the
 * last with the held tail's) for the (x, y)
 * multiplier m that meets (1), found by Newton's method on that monotone
 * piecewise-linear equation from the last frame's m. When no m meets (1) (the
 * COM is beyond what the polygons can catch) the ZMPs go as far as the
 * polygons allow and the COM's velocity is changed to what they can catch. Unlike a preview controller, which
 * tracks a point reference and spreads the error over the window (a quick
 * change of feet left its ZMP centimetres off the sole), nothing here leaves
 * a polygon while one way of staying inside exists. */
#ifndef KG_ZMP_WINDOW_H
#define KG_ZMP_WINDOW_H

#define KG_ZMP_POLY_MAX 8

/* A support polygon: vertices counter-clockwise, n = 0 none (in the air), 1 a
 * point, 2 a segment. */
typedef struct kg_zmp_poly {
    int n;
    double v[KG_ZMP_POLY_MAX][2];
} kg_zmp_poly;

typedef struct kg_zmp_window {
    double a, l;      /* a = (g / z_c) dt^2; l the unstable root */
    int n;            /* window steps */
    double *w;        /* [n] l^-j, the last with the held tail's */
    double w2;        /* sum of w[j]^2: the scale of Newton's derivative */
} kg_zmp_window;

/* Returns 0, -1 for a bad argument or when memory runs out. */
int kg_zmp_window_init(kg_zmp_window *z, double dt, double zc, double g, int n);
void kg_zmp_window_free(kg_zmp_window *z);

/* The convex polygon v[0..n) (counter-clockwise) shrunk by margin into out:
 * the point at its centroid when it is narrower than twice the margin. */
void kg_zmp_poly_shrink(const double (*v)[2], int n, double margin, kg_zmp_poly *out);

/* The point of polygon q nearest x (x itself when q has none). */
void kg_zmp_poly_project(const kg_zmp_poly *q, const double x[2], double out[2]);

/* The frame's ZMP p (the window's first), given the last two COM samples
 * c_prev and c, the window's references refs[0..n) and polygons polys[0..n)
 * (pointers; NULL: no polygon, any ZMP, as in the air, where the cart-table
 * model holds nothing). m: the multiplier, in the last frame's, out this
 * one's. Returns 1 when (1) is met to 1e-9 m; 0 when it is not (the polygons
 * cannot catch the COM, or, rarely, Newton's steps stalled at a kink of the
 * projections), c_prev then moved so that it is met with the ZMPs found (the
 * COM's velocity changed: it would run away otherwise). */
int kg_zmp_window_solve(const kg_zmp_window *z, double c_prev[2], const double c[2], const double (*refs)[2],
                        const kg_zmp_poly *const *polys, double m[2], double p[2]);

/* The next COM sample of the model, given the frame's ZMP p. */
void kg_zmp_window_advance(const kg_zmp_window *z, double c_prev[2], double c[2], const double p[2]);

/* The previous sample that starts c moving as the references ask (m = 0, no
 * polygon binding): a clip that starts in mid-motion. */
void kg_zmp_window_start(const kg_zmp_window *z, const double c[2], const double (*refs)[2], double c_prev[2]);

#endif
