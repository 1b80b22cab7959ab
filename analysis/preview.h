/* ZMP preview control (Kajita et al., ICRA 2003; ../shared/docs/irteus-motion.md
 * section 5): a centre-of-mass trajectory whose cart-table ZMP follows a
 * reference known some time ahead.
 *
 * Cart-table model, per horizontal axis: state x = (c, c', c''), input the
 * jerk, ZMP p = c - (z_c / g) c''. The controller is the optimal one of the
 * extended (error) system with cost sum Q (p_ref - p)^2 + R du^2: a state
 * feedback K and preview gains f_1..f_N on the next N references. The gains
 * come from the stationary Riccati equation, iterated from P = 0 as irteus
 * does. sum f_j = K[0] (f_0 included), so a constant reference is tracked
 * without error. */
#ifndef KG_PREVIEW_H
#define KG_PREVIEW_H

typedef struct kg_preview {
    double dt, zc, g, q, r;
    int n;           /* preview steps */
    double K[4];     /* on (p, dc, dc', dc'') of the extended state */
    double *f;       /* [n] f_1 .. f_n */
    double f0;       /* on the current reference (sampled output only; else 0) */
    double A[9], b[3], c[3];
} kg_preview;

/* Gains for time step dt (s), COM height zc (m), gravity g (m/s^2), weights
 * q and r, n preview steps. Returns 0, -1 when the Riccati iteration does
 * not converge, -2 when memory runs out. */
int kg_preview_init(kg_preview *p, double dt, double zc, double g, double q, double r, int n);

/* The same for the ZMP a sampled trajectory shows: c - (z_c / g) times the
 * second difference of c over one step, which is the state's ZMP plus
 * -(z_c dt / 6 g) times the change of jerk at the step. A controller on the
 * state's ZMP may switch feet between two samples with a jump of jerk that
 * puts the sampled ZMP between the feet; this one weighs what the samples
 * show. */
int kg_preview_init_sampled(kg_preview *p, double dt, double zc, double g, double q, double r, int n);
void kg_preview_free(kg_preview *p);

/* One axis's controller state. */
typedef struct kg_preview_axis {
    double x[3];     /* c, c', c'' */
    double dx[3];    /* the last change of x */
    double zmp;      /* p of the current state */
} kg_preview_axis;

/* Starts at rest at position c (its ZMP there too). */
void kg_preview_axis_start(const kg_preview *p, kg_preview_axis *a, double c);

/* Starts at position c moving with the velocity and acceleration that keep
 * the ZMP closest to the references over the next m steps (least squares;
 * refs[0..m + n]; the controller's own steps simulated): a clip that starts
 * in mid-motion has no state before its first frame to respect. */
void kg_preview_axis_start_moving(const kg_preview *p, kg_preview_axis *a, double c, const double *refs, int m);

/* Advances one step given the references p_ref[0..n] (p_ref[0] the current
 * step's, p_ref[j] j steps ahead); a->x[0] is then the COM position. */
void kg_preview_axis_step(const kg_preview *p, kg_preview_axis *a, const double *p_ref);

#endif
