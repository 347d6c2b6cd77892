/* func.h - time functions with two derivatives (drivers, actuators, loads). */
#ifndef MBSIM_FUNC_H
#define MBSIM_FUNC_H

enum func_type {
	FUNC_CONSTANT,		/* c[0] */
	FUNC_RATE,		/* c[0] + c[1] t                       (constant rate) */
	FUNC_POLYNOMIAL,	/* sum c[i] t^i, i < n                 */
	FUNC_HARMONIC,		/* c[0] + c[1] sin(c[2] t + c[3])      offset, amplitude, omega, phase */
	FUNC_COSINE_RAMP,	/* c[0] -> c[1] over [c[2], c[3]], (1 - cos)/2 blend, constant outside */
	FUNC_PIECEWISE,		/* segments: on [knot[i], knot[i+1]) polynomial seg[i] in (t - knot[i]) */
	FUNC_RATE_RAMPS,	/* c[1] + integral from 0 of a rate that starts at c[0] and
				 * moves by (1 - cos)/2 ramps: seg[k] = {start, {end, to}} */
	FUNC_EXPRESSION,	/* ex(t), derivatives by automatic differentiation (texpr.h) */
	FUNC_TABLE,		/* tab(t): a curve (curve.h) of time */
	FUNC_STEP,		/* c[0] -> c[1] over [c[2], c[3]] along Adams' STEP cubic */
	FUNC_STEP5,		/* the same along Adams' STEP5 quintic */
	FUNC_NTYPES
};

#define FUNC_MAXC 8

struct texpr;
struct curve;

struct func_seg {
	double t0;		/* segment start */
	int n;			/* number of coefficients */
	double c[FUNC_MAXC];
	struct func *fn;	/* PIECEWISE: the segment's own law of t, owned, in
				 * place of the polynomial; NULL: the polynomial */
};

struct func {
	enum func_type type;
	int n;			/* POLYNOMIAL: number of coefficients */
	double c[FUNC_MAXC];
	int nseg;		/* PIECEWISE: segments sorted by t0; before the
				 * first the first applies, after the last the last;
				 * RATE_RAMPS: the ramps, starts increasing */
	struct func_seg *seg;	/* owned */
	struct texpr *ex;	/* EXPRESSION, owned */
	struct curve *tab;	/* TABLE, owned */
};

/* f[0] = value, f[1] = d/dt, f[2] = d2/dt2 at t.
 *
 * Breakpoints (the ends of a cosine ramp or of a rate ramp, the knots of
 * a piecewise function), where a derivative or the value may jump, are taken from the
 * side a run proceeds into: side > 0 gives the right limit (runs go
 * forward in time: initial acceleration, output at a breakpoint, step
 * starts), side < 0 the left limit.  A t within FUNC_SNAP_ULPS eps
 * max(|t|, |b|) of a breakpoint b (eps = DBL_EPSILON: 4 to 8 units in the
 * last place) counts as at it, so t0 + n h that lands an ulp short of a
 * knot still sees the knot. */
#define FUNC_SNAP_ULPS 4
void func_eval_side(const struct func *fn, double t, int side, double f[3]);
/* func_eval_side(fn, t, +1, f): the right limit, which every caller in a
 * forward run wants. */
void func_eval(const struct func *fn, double t, double f[3]);
void func_release(struct func *fn);
/* Deep copy. */
void func_copy(struct func *dst, const struct func *src);

extern const char *const func_type_names[FUNC_NTYPES];

#endif
