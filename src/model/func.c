/* func.c - time functions with two derivatives (func.h). */
#include "func.h"
#include "curve.h"
#include "texpr.h"
#include "../util/xalloc.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

const char *const func_type_names[FUNC_NTYPES] = {
	"constant", "rate", "polynomial", "harmonic", "cosine_ramp", "piecewise",
	"rate_ramps", "expression", "table", "step", "step5"
};

/* Horner for p, p', p'' of sum c[i] x^i */
static void poly(const double *c, int n, double x, double f[3])
{
	double p = 0, d1 = 0, d2 = 0;
	for (int i = n - 1; i >= 0; i--) {
		d2 = d2 * x + 2.0 * d1;
		d1 = d1 * x + p;
		p = p * x + c[i];
	}
	f[0] = p;
	f[1] = d1;
	f[2] = d2;
}

/* Where t stands relative to breakpoint b for a run going to side:
 * -1 before, +1 after; t at b (within FUNC_SNAP_ULPS eps |t|) is on the
 * side the run proceeds into. */
static int where(double t, double b, int side)
{
	double tol = FUNC_SNAP_ULPS * DBL_EPSILON * fmax(fabs(t), fabs(b));
	if (fabs(t - b) <= tol)
		return side > 0 ? 1 : -1;
	return t < b ? -1 : 1;
}

/* The unit blends of a ramp on s in [0, 1]: g[0] = g(s), g[1] = g'(s),
 * g[2] = g''(s), g(0) = 0, g(1) = 1.
 * Adams' STEP: s^2 (3 - 2 s), g' = 0 at both ends, g'' jumps by 6.
 * Adams' STEP5: s^3 (10 - 15 s + 6 s^2), g' and g'' = 0 at both ends
 * (MSC Adams/Solver function reference, STEP and STEP5). */
static void blend_step(int type, double s, double g[3])
{
	if (type == FUNC_STEP) {
		g[0] = s * s * (3.0 - 2.0 * s);
		g[1] = 6.0 * s * (1.0 - s);
		g[2] = 6.0 - 12.0 * s;
	} else {
		double u = 1.0 - s;
		g[0] = s * s * s * (10.0 + s * (6.0 * s - 15.0));
		g[1] = 30.0 * s * s * u * u;
		g[2] = 60.0 * s * u * (1.0 - 2.0 * s);
	}
}

/* (1 - cos)/2 blend from a at t0 to b at t1: value and first derivative
 * are continuous at both ends, the second jumps by +-(b - a) w^2 / 2.
 * type FUNC_STEP, FUNC_STEP5: the polynomial blends of blend_step. */
static void ramp(int type, const double *c, double t, int side, double f[3])
{
	double a = c[0], b = c[1], t0 = c[2], t1 = c[3];
	if (t1 <= t0) {		/* a step at t0 */
		f[0] = where(t, t0, side) < 0 ? a : b;
		f[1] = f[2] = 0.0;
		return;
	}
	if (where(t, t0, side) < 0 || where(t, t1, side) > 0) {
		f[0] = where(t, t0, side) < 0 ? a : b;
		f[1] = f[2] = 0.0;
		return;
	}
	if (type != FUNC_COSINE_RAMP) {
		double L = t1 - t0, g[3];
		blend_step(type, (t - t0) / L, g);
		f[0] = a + (b - a) * g[0];
		f[1] = (b - a) * g[1] / L;
		f[2] = (b - a) * g[2] / (L * L);
		return;
	}
	double w = M_PI / (t1 - t0), s = w * (t - t0);
	f[0] = a + 0.5 * (b - a) * (1.0 - cos(s));
	f[1] = 0.5 * (b - a) * w * sin(s);
	f[2] = 0.5 * (b - a) * w * w * cos(s);
}

/* The antiderivative B(t), zero before t0, of the unit (1 - cos)/2 blend
 * from 0 at t0 to 1 at t1, and the blend and its rate: f[0] = B, f[1] =
 * B' (the blend), f[2] = B''.  B(t) = ((t - t0) - sin(w (t - t0)) / w) / 2
 * on the ramp, (t1 - t0) / 2 + (t - t1) after it. */
static void blend_integral(double t0, double t1, double t, int side, double f[3])
{
	if (where(t, t0, side) < 0) {
		f[0] = f[1] = f[2] = 0.0;
		return;
	}
	if (where(t, t1, side) > 0) {
		f[0] = 0.5 * (t1 - t0) + (t - t1);
		f[1] = 1.0;
		f[2] = 0.0;
		return;
	}
	double w = M_PI / (t1 - t0), s = w * (t - t0);
	f[0] = 0.5 * ((t - t0) - sin(s) / w);
	f[1] = 0.5 * (1.0 - cos(s));
	f[2] = 0.5 * w * sin(s);
}

/* c[1] + int_0^t r: the rate r starts at c[0] and ramp k takes it to
 * seg[k].c[1] over [seg[k].t0, seg[k].c[0]]; r = c[0] + sum dk bk(t),
 * dk the change ramp k makes, so the value is c[1] + c[0] t +
 * sum dk (Bk(t) - Bk(0)). */
static void rate_ramps(const struct func *fn, double t, int side, double f[3])
{
	double prev = fn->c[0];
	f[0] = fn->c[1] + fn->c[0] * t;
	f[1] = fn->c[0];
	f[2] = 0.0;
	for (int k = 0; k < fn->nseg; k++) {
		const struct func_seg *g = &fn->seg[k];
		double d = g->c[1] - prev, b[3], b0[3] = { 0.0 };
		prev = g->c[1];
		blend_integral(g->t0, g->c[0], t, side, b);
		if (g->t0 < 0.0)	/* Bk(0) = 0 for a ramp that starts at 0 or later */
			blend_integral(g->t0, g->c[0], 0.0, 1, b0);
		f[0] += d * (b[0] - b0[0]);
		f[1] += d * b[1];
		f[2] += d * b[2];
	}
}

void func_eval_side(const struct func *fn, double t, int side, double f[3])
{
	switch (fn->type) {
	case FUNC_CONSTANT:
		f[0] = fn->c[0];
		f[1] = f[2] = 0.0;
		return;
	case FUNC_RATE:
		f[0] = fn->c[0] + fn->c[1] * t;
		f[1] = fn->c[1];
		f[2] = 0.0;
		return;
	case FUNC_POLYNOMIAL:
		poly(fn->c, fn->n, t, f);
		return;
	case FUNC_HARMONIC: {
		double w = fn->c[2], ph = w * t + fn->c[3];
		f[0] = fn->c[0] + fn->c[1] * sin(ph);
		f[1] = fn->c[1] * w * cos(ph);
		f[2] = -fn->c[1] * w * w * sin(ph);
		return;
	}
	case FUNC_COSINE_RAMP:
	case FUNC_STEP:
	case FUNC_STEP5:
		ramp(fn->type, fn->c, t, side, f);
		return;
	case FUNC_EXPRESSION:
		texpr_eval(fn->ex, t, f);
		return;
	case FUNC_TABLE:
		curve_eval2(fn->tab, t, side, f);
		return;
	case FUNC_PIECEWISE: {
		if (fn->nseg == 0) {
			f[0] = f[1] = f[2] = 0.0;
			return;
		}
		int k = 0;
		while (k + 1 < fn->nseg && where(t, fn->seg[k + 1].t0, side) > 0)
			k++;
		if (fn->seg[k].fn)
			func_eval_side(fn->seg[k].fn, t, side, f);
		else
			poly(fn->seg[k].c, fn->seg[k].n, t - fn->seg[k].t0, f);
		return;
	}
	case FUNC_RATE_RAMPS:
		rate_ramps(fn, t, side, f);
		return;
	default:
		f[0] = f[1] = f[2] = 0.0;
	}
}

void func_eval(const struct func *fn, double t, double f[3])
{
	func_eval_side(fn, t, 1, f);
}

void func_release(struct func *fn)
{
	for (int k = 0; k < fn->nseg; k++)
		if (fn->seg[k].fn) {
			func_release(fn->seg[k].fn);
			free(fn->seg[k].fn);
		}
	free(fn->seg);
	fn->seg = NULL;
	fn->nseg = 0;
	texpr_free(&fn->ex);
	if (fn->tab) {
		curve_release(fn->tab);
		free(fn->tab);
		fn->tab = NULL;
	}
}

static double *dup_doubles(const double *x, int n)
{
	return x ? memcpy(xmalloc((size_t)n * sizeof(double)), x, (size_t)n * sizeof(double))
		 : NULL;
}

void func_copy(struct func *dst, const struct func *src)
{
	*dst = *src;
	if (src->nseg > 0) {
		size_t n = (size_t)src->nseg * sizeof(*src->seg);
		dst->seg = memcpy(xmalloc(n), src->seg, n);
		for (int k = 0; k < src->nseg; k++)
			if (src->seg[k].fn) {
				dst->seg[k].fn = xmalloc(sizeof(struct func));
				func_copy(dst->seg[k].fn, src->seg[k].fn);
			}
	} else {
		dst->seg = NULL;
	}
	dst->ex = texpr_copy(src->ex);
	if (src->tab) {
		const struct curve *c = src->tab;
		struct curve *d = dst->tab = xmalloc(sizeof(*d));
		*d = *c;
		d->name = c->name ? xstrdup(c->name) : NULL;
		d->x = dup_doubles(c->x, c->n);
		d->y = dup_doubles(c->y, c->n);
		d->m = dup_doubles(c->m, c->n);
	}
}
