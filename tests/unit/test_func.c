/* test_func.c - time functions of model/func.h.
 *
 * For every function type: values at points where the closed form is known
 * by hand, and the returned first and second derivatives against central
 * differences of the returned value and first derivative.
 *
 * Finite-difference tolerance.  With step h = 1e-5 the central difference
 * (g(t+h) - g(t-h)) / 2h has truncation error h^2/6 |g'''| and round-off
 * about eps |g| / h.  The functions below have |g| <= 10 and third
 * derivatives <= 10 * 3^3 = 270 (harmonic amplitude 2, omega 3; the ramps
 * and polynomials are smaller), so the error is below
 * 1e-10/6 * 270 + 2.2e-16 * 10 / 1e-5 ~ 5e-9 + 2e-10; FD_TOL = 1e-7 leaves
 * a margin of 20 while a wrong factor (e.g. a missing omega, a sign) is
 * O(1) and fails.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "testutil.h"
#include "model/func.h"
#include "model/texpr.h"

#define FD_H 1e-5	/* see the header comment */
#define FD_TOL 1e-7	/* absolute, and relative to the derivative */
#define EXACT 1e-14	/* closed-form values: a few ulps of O(1) numbers */

static double fval(const struct func *fn, double t, int k)
{
	double f[3];
	func_eval(fn, t, f);
	return f[k];
}

/* f[1] against d f[0]/dt and f[2] against d f[1]/dt at t */
static void check_derivs(const struct func *fn, double t)
{
	double f[3], d1, d2;
	char what[160];
	func_eval(fn, t, f);
	d1 = (fval(fn, t + FD_H, 0) - fval(fn, t - FD_H, 0)) / (2.0 * FD_H);
	d2 = (fval(fn, t + FD_H, 1) - fval(fn, t - FD_H, 1)) / (2.0 * FD_H);
	snprintf(what, sizeof what, "%s f'(%g) vs FD", func_type_names[fn->type], t);
	testutil_near(f[1], d1, FD_TOL, FD_TOL, what, __FILE__, __LINE__);
	snprintf(what, sizeof what, "%s f''(%g) vs FD", func_type_names[fn->type], t);
	testutil_near(f[2], d2, FD_TOL, FD_TOL, what, __FILE__, __LINE__);
}

static void test_constant(void **state)
{
	struct func fn = { .type = FUNC_CONSTANT, .c = { 1.75 } };
	double f[3];
	/* any t: the constant and zero derivatives */
	for (double t = -3.0; t <= 3.0; t += 0.75) {
		func_eval(&fn, t, f);
		assert_near(f[0], 1.75, 0, 0);
		assert_near(f[1], 0.0, 0, 0);
		assert_near(f[2], 0.0, 0, 0);
		check_derivs(&fn, t);
	}
}

static void test_rate(void **state)
{
	/* c0 = 0.5 offset, c1 = -2.5 rate: arbitrary non-trivial numbers */
	struct func fn = { .type = FUNC_RATE, .c = { 0.5, -2.5 } };
	double f[3];
	func_eval(&fn, 0.0, f);
	assert_near(f[0], 0.5, 0, EXACT);	/* c0 at t = 0 */
	func_eval(&fn, 2.0, f);
	assert_near(f[0], 0.5 - 5.0, 0, EXACT);	/* c0 + 2 c1 */
	assert_near(f[1], -2.5, 0, EXACT);
	assert_near(f[2], 0.0, 0, 0);
	for (double t = -2.0; t <= 2.0; t += 0.5)
		check_derivs(&fn, t);
}

static void test_polynomial(void **state)
{
	/* p(t) = 1 - 2 t + 0.5 t^2 + 0.25 t^3 - 0.1 t^4 (arbitrary) */
	struct func fn = { .type = FUNC_POLYNOMIAL, .n = 5,
			   .c = { 1.0, -2.0, 0.5, 0.25, -0.1 } };
	double f[3];
	func_eval(&fn, 0.0, f);	/* p(0) = c0, p'(0) = c1, p''(0) = 2 c2 */
	assert_near(f[0], 1.0, 0, EXACT);
	assert_near(f[1], -2.0, 0, EXACT);
	assert_near(f[2], 1.0, 0, EXACT);
	func_eval(&fn, 2.0, f);
	/* by hand at t = 2: p = 1 - 4 + 2 + 2 - 1.6 = -0.6,
	 * p' = -2 + 2 + 3 - 3.2 = -0.2 (c1 + 2c2 t + 3c3 t^2 + 4c4 t^3),
	 * p'' = 1 + 3 - 4.8 = -0.8 (2c2 + 6c3 t + 12c4 t^2) */
	assert_near(f[0], -0.6, 0, EXACT);
	assert_near(f[1], -0.2, 0, EXACT);
	assert_near(f[2], -0.8, 0, EXACT);
	for (double t = -1.5; t <= 1.5; t += 0.25)
		check_derivs(&fn, t);
	/* n = 0 is the zero polynomial */
	struct func z = { .type = FUNC_POLYNOMIAL, .n = 0 };
	func_eval(&z, 1.3, f);
	assert_near(f[0], 0.0, 0, 0);
	assert_near(f[1], 0.0, 0, 0);
}

static void test_harmonic(void **state)
{
	/* offset 0.5, amplitude 2, omega 3, phase 0.4 (arbitrary; omega 3 sets
	 * the FD bound in the header comment) */
	struct func fn = { .type = FUNC_HARMONIC, .c = { 0.5, 2.0, 3.0, 0.4 } };
	double f[3];
	func_eval(&fn, 0.0, f);
	/* t = 0: c0 + c1 sin c3, c1 c2 cos c3, -c1 c2^2 sin c3 */
	assert_near(f[0], 0.5 + 2.0 * sin(0.4), 0, EXACT);
	assert_near(f[1], 6.0 * cos(0.4), 0, EXACT);
	assert_near(f[2], -18.0 * sin(0.4), 0, EXACT);
	/* t = (pi/2 - 0.4)/3: phase pi/2, value at its maximum c0 + c1 = 2.5 */
	func_eval(&fn, (M_PI / 2 - 0.4) / 3.0, f);
	assert_near(f[0], 2.5, 0, EXACT);
	assert_near(f[1], 0.0, 0, EXACT);
	assert_near(f[2], -18.0, 0, EXACT);
	for (double t = -1.0; t <= 2.0; t += 0.15)
		check_derivs(&fn, t);
}

static void test_cosine_ramp(void **state)
{
	/* from -1 to 3 over [0.5, 2.5] (arbitrary; width 2) */
	struct func fn = { .type = FUNC_COSINE_RAMP, .c = { -1.0, 3.0, 0.5, 2.5 } };
	double f[3];
	func_eval(&fn, 0.0, f);		/* before: a, at rest */
	assert_near(f[0], -1.0, 0, 0);
	assert_near(f[1], 0.0, 0, 0);
	func_eval(&fn, 0.5, f);		/* start point: a */
	assert_near(f[0], -1.0, 0, EXACT);
	func_eval(&fn, 2.5, f);		/* end point: b, at rest */
	assert_near(f[0], 3.0, 0, EXACT);
	assert_near(f[1], 0.0, 0, EXACT);
	func_eval(&fn, 4.0, f);		/* after: b */
	assert_near(f[0], 3.0, 0, 0);
	assert_near(f[2], 0.0, 0, 0);
	/* midpoint 1.5: (a+b)/2 = 1, steepest slope (b-a)/2 * pi/(t1-t0) = pi,
	 * zero curvature */
	func_eval(&fn, 1.5, f);
	assert_near(f[0], 1.0, 0, EXACT);
	assert_near(f[1], M_PI, 0, EXACT);
	assert_near(f[2], 0.0, 0, EXACT);
	/* derivatives inside and outside (not at the ends, where f'' jumps) */
	const double ts[] = { -0.5, 0.2, 0.6, 1.0, 1.4, 1.9, 2.4, 2.8, 5.0 };
	for (size_t i = 0; i < sizeof ts / sizeof ts[0]; i++)
		check_derivs(&fn, ts[i]);
	/* degenerate interval t1 <= t0: a step at t0 */
	struct func st = { .type = FUNC_COSINE_RAMP, .c = { 2.0, 5.0, 1.0, 1.0 } };
	func_eval(&st, 0.9, f);
	assert_near(f[0], 2.0, 0, 0);
	func_eval(&st, 1.1, f);
	assert_near(f[0], 5.0, 0, 0);
	assert_near(f[1], 0.0, 0, 0);
}

static struct func make_piecewise(void)
{
	/* three segments, knots 0, 1, 3, deliberately discontinuous:
	 *   [0,1): 1 + 2x      [1,3): -1 + x^2     [3,..): 4 - x + 0.5 x^3
	 * with x = t - knot */
	struct func fn = { .type = FUNC_PIECEWISE, .nseg = 3 };
	fn.seg = calloc(3, sizeof(*fn.seg));
	assert_non_null(fn.seg);
	fn.seg[0] = (struct func_seg){ .t0 = 0.0, .n = 2, .c = { 1.0, 2.0 } };
	fn.seg[1] = (struct func_seg){ .t0 = 1.0, .n = 3, .c = { -1.0, 0.0, 1.0 } };
	fn.seg[2] = (struct func_seg){ .t0 = 3.0, .n = 4, .c = { 4.0, -1.0, 0.0, 0.5 } };
	return fn;
}

static void test_piecewise(void **state)
{
	struct func fn = make_piecewise();
	double f[3];
	func_eval(&fn, 0.5, f);		/* seg 0, x = 0.5: 1 + 1 = 2, slope 2 */
	assert_near(f[0], 2.0, 0, EXACT);
	assert_near(f[1], 2.0, 0, EXACT);
	func_eval(&fn, 1.0, f);		/* knot belongs to the segment it starts: seg 1, x = 0 */
	assert_near(f[0], -1.0, 0, EXACT);
	/* just before the knot, farther than FUNC_SNAP_ULPS (1e-12 is ~4500
	 * ulps of 1): seg 0, 3 - 2e-12 */
	func_eval(&fn, 1.0 - 1e-12, f);
	assert_near(f[0], 3.0, 0, 1e-11);
	func_eval(&fn, 2.5, f);		/* seg 1, x = 1.5: -1 + 2.25, slope 3, curvature 2 */
	assert_near(f[0], 1.25, 0, EXACT);
	assert_near(f[1], 3.0, 0, EXACT);
	assert_near(f[2], 2.0, 0, EXACT);
	func_eval(&fn, 3.0, f);		/* seg 2, x = 0 */
	assert_near(f[0], 4.0, 0, EXACT);
	assert_near(f[1], -1.0, 0, EXACT);
	func_eval(&fn, 5.0, f);		/* after the last: seg 2, x = 2: 4 - 2 + 4 = 6, -1 + 6 = 5, 6 */
	assert_near(f[0], 6.0, 0, EXACT);
	assert_near(f[1], 5.0, 0, EXACT);
	assert_near(f[2], 6.0, 0, EXACT);
	func_eval(&fn, -1.0, f);	/* before the first: seg 0 extrapolated, x = -1 */
	assert_near(f[0], -1.0, 0, EXACT);
	/* derivatives inside each segment, away from the knots */
	const double ts[] = { -0.5, 0.3, 0.7, 1.4, 2.2, 2.9, 3.5, 4.7 };
	for (size_t i = 0; i < sizeof ts / sizeof ts[0]; i++)
		check_derivs(&fn, ts[i]);
	/* deep copy: independent of the source */
	struct func cp;
	func_copy(&cp, &fn);
	assert_ptr_not_equal(cp.seg, fn.seg);
	fn.seg[1].c[0] = 100.0;
	func_eval(&cp, 1.0, f);
	assert_near(f[0], -1.0, 0, EXACT);
	func_release(&cp);
	func_release(&fn);
	assert_null(fn.seg);
	/* no segments: zero */
	func_eval(&fn, 1.0, f);
	assert_near(f[0], 0.0, 0, 0);
}

/* Breakpoints (func.h): func_eval is the right limit, the side a forward
 * run proceeds into; func_eval_side(-1) the left limit.  For each type
 * without breakpoints the left limit agrees with func_eval everywhere
 * (func_eval is func_eval_side(+1) by definition: comparing those two
 * could not fail). */
static void sides_agree(const struct func *fn, const double *ts, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		double l[3], f[3];
		func_eval_side(fn, ts[i], -1, l);
		func_eval(fn, ts[i], f);
		for (int k = 0; k < 3; k++)
			assert_near(l[k], f[k], 0, 0);	/* same formula: bit-equal */
	}
}

/* rate_ramps: rate 0.5 before, to 2 over [0, 1], to -1 over [1.5, 3],
 * value 0.25 at t = 0.  By hand (a ramp by d over [a, b] adds d (b - a) / 2
 * to the integral while it runs, d per s after it): F(1) = 0.25 + 0.5 +
 * 1.5 / 2 = 1.5; F(1.5) = 1.5 + 2 * 0.5 = 2.5; F(3) = 2.5 + 2 * 1.5 - 3 *
 * 1.5 / 2 = 3.25; F(4) = 3.25 - 1 = 2.25; before 0 the initial rate alone,
 * F(-1) = -0.25.  Rates 0.5, 1.25 (half way up the first ramp), 2, -1;
 * F'' mid-ramp d (pi / (b - a)) / 2 = 0.75 pi.  |F'''| <= 3 pi^2 / 2 < 270
 * and |F| < 10, so the header's finite-difference bound holds. */
static void test_rate_ramps(void **state)
{
	struct func_seg seg[2] = { { .t0 = 0.0, .n = 2, .c = { 1.0, 2.0 } },
				   { .t0 = 1.5, .n = 2, .c = { 3.0, -1.0 } } };
	struct func fn = { .type = FUNC_RATE_RAMPS, .c = { 0.5, 0.25 }, .nseg = 2, .seg = seg };
	const double t[] = { -1.0, 0.0, 0.5, 1.0, 1.5, 3.0, 4.0 };
	const double F[] = { -0.25, 0.25, NAN, 1.5, 2.5, 3.25, 2.25 };
	const double R[] = { 0.5, 0.5, 1.25, 2.0, 2.0, -1.0, -1.0 };
	double f[3];
	(void)state;
	for (int i = 0; i < 7; i++) {
		func_eval(&fn, t[i], f);
		if (!isnan(F[i]))
			testutil_near(f[0], F[i], EXACT, EXACT, "rate_ramps value", __FILE__, __LINE__);
		testutil_near(f[1], R[i], EXACT, EXACT, "rate_ramps rate", __FILE__, __LINE__);
	}
	func_eval(&fn, 0.5, f);
	testutil_near(f[2], 0.75 * M_PI, EXACT, EXACT, "rate_ramps F'' mid-ramp", __FILE__, __LINE__);
	for (double tt = -0.7; tt < 4.5; tt += 0.3)
		check_derivs(&fn, tt);

	/* a ramp that starts before t = 0: the value is still 'value' at 0.
	 * Rate 1 - cos(pi (t + 1) / 2) on [-1, 1] (0 -> 2), so F(1) - F(0) =
	 * 1 + 2 / pi. */
	struct func_seg s1 = { .t0 = -1.0, .n = 2, .c = { 1.0, 2.0 } };
	struct func g = { .type = FUNC_RATE_RAMPS, .nseg = 1, .seg = &s1 };
	func_eval(&g, 0.0, f);
	testutil_near(f[0], 0.0, EXACT, EXACT, "rate_ramps F(0) = value", __FILE__, __LINE__);
	func_eval(&g, 1.0, f);
	testutil_near(f[0], 1.0 + 2.0 / M_PI, EXACT, EXACT, "rate_ramps across t = 0", __FILE__, __LINE__);
}

static void test_breakpoints_smooth(void **state)
{
	/* the functions of the tests above; any t, including 0 */
	const double ts[] = { -1.0, 0.0, 0.5, 1.0, 2.0 };
	const size_t n = sizeof ts / sizeof ts[0];
	struct func c = { .type = FUNC_CONSTANT, .c = { 1.75 } };
	struct func r = { .type = FUNC_RATE, .c = { 0.5, -2.5 } };
	struct func p = { .type = FUNC_POLYNOMIAL, .n = 5, .c = { 1.0, -2.0, 0.5, 0.25, -0.1 } };
	struct func h = { .type = FUNC_HARMONIC, .c = { 0.5, 2.0, 3.0, 0.4 } };
	sides_agree(&c, ts, n);
	sides_agree(&r, ts, n);
	sides_agree(&p, ts, n);
	sides_agree(&h, ts, n);
}

static void test_breakpoints_ramp(void **state)
{
	/* issue 16 item 4: a pi/2 ramp over [0, 2] s starting at the run's
	 * t0.  Right limit at t0: f'' = (b - a)/2 (pi/T)^2 = pi/4 (pi/2)^2 =
	 * pi^3/16 = 1.938 rad/s^2; left limit 0 (at rest before). */
	struct func fn = { .type = FUNC_COSINE_RAMP, .c = { 0.0, M_PI / 2, 0.0, 2.0 } };
	double l[3], r[3];
	func_eval_side(&fn, 0.0, 1, r);
	func_eval_side(&fn, 0.0, -1, l);
	assert_near(r[0], 0.0, 0, 0);
	assert_near(r[1], 0.0, 0, 0);
	assert_near(r[2], M_PI * M_PI * M_PI / 16, EXACT, 0);
	assert_near(l[2], 0.0, 0, 0);
	func_eval(&fn, 0.0, r);			/* func_eval is the right limit */
	assert_near(r[2], M_PI * M_PI * M_PI / 16, EXACT, 0);
	/* end t1 = 2: left limit -pi^3/16 (cos pi), right limit 0; value and
	 * slope continuous (b and 0 on both sides) */
	func_eval_side(&fn, 2.0, -1, l);
	func_eval_side(&fn, 2.0, 1, r);
	assert_near(l[2], -M_PI * M_PI * M_PI / 16, EXACT, 0);
	assert_near(r[2], 0.0, 0, 0);
	assert_near(l[0], M_PI / 2, 0, EXACT);
	assert_near(r[0], M_PI / 2, 0, 0);
	assert_near(l[1], 0.0, 0, EXACT);
	assert_near(r[1], 0.0, 0, 0);
	/* a t two ulps short of t1 = 2 is at it (FUNC_SNAP_ULPS = 4) */
	func_eval(&fn, nextafter(nextafter(2.0, 0.0), 0.0), r);
	assert_near(r[2], 0.0, 0, 0);
	/* the snap is 4 eps max(|t|, |b|) = 8 eps here, 8 ulps below 2 (an ulp
	 * of [1, 2) is eps): at 8 ulps the knot, at 9 inside the ramp, whose
	 * f'' there is -pi^3/16 to 1e-13 (cos of pi - 9 eps pi/2) */
	double t8 = 2.0, t9;
	for (int i = 0; i < 8; i++)
		t8 = nextafter(t8, 0.0);
	t9 = nextafter(t8, 0.0);
	func_eval(&fn, t8, r);
	assert_near(r[2], 0.0, 0, 0);
	func_eval(&fn, t9, r);
	assert_near(r[2], -M_PI * M_PI * M_PI / 16, 1e-13, 0);
	/* ramp starting at 0.5 (the function of test_cosine_ramp): right
	 * limit at the start (b - a)/2 (pi/2)^2 = 2 * pi^2/4 */
	struct func g = { .type = FUNC_COSINE_RAMP, .c = { -1.0, 3.0, 0.5, 2.5 } };
	func_eval_side(&g, 0.5, 1, r);
	func_eval_side(&g, 0.5, -1, l);
	assert_near(r[2], M_PI * M_PI / 2, EXACT, 0);
	assert_near(l[2], 0.0, 0, 0);
	assert_near(r[0], -1.0, 0, EXACT);
	assert_near(l[0], -1.0, 0, 0);
	/* degenerate step at t = 1: right limit the new value, left the old */
	struct func st = { .type = FUNC_COSINE_RAMP, .c = { 2.0, 5.0, 1.0, 1.0 } };
	func_eval_side(&st, 1.0, 1, r);
	func_eval_side(&st, 1.0, -1, l);
	assert_near(r[0], 5.0, 0, 0);
	assert_near(l[0], 2.0, 0, 0);
}

static void test_breakpoints_piecewise(void **state)
{
	/* make_piecewise: at knot 1 the left limit is segment 0 at x = 1
	 * (1 + 2 = 3, slope 2, curvature 0), the right limit segment 1 at x = 0
	 * (-1, slope 0, curvature 2); at knot 3 segment 1 at x = 2 (3, 4, 2)
	 * on the left and segment 2 at x = 0 (4, -1, 0) on the right */
	struct func fn = make_piecewise();
	double l[3], r[3];
	func_eval_side(&fn, 1.0, -1, l);
	func_eval_side(&fn, 1.0, 1, r);
	assert_near(l[0], 3.0, 0, EXACT);
	assert_near(l[1], 2.0, 0, EXACT);
	assert_near(l[2], 0.0, 0, EXACT);
	assert_near(r[0], -1.0, 0, EXACT);
	assert_near(r[1], 0.0, 0, EXACT);
	assert_near(r[2], 2.0, 0, EXACT);
	func_eval_side(&fn, 3.0, -1, l);
	func_eval_side(&fn, 3.0, 1, r);
	assert_near(l[0], 3.0, 0, EXACT);
	assert_near(l[1], 4.0, 0, EXACT);
	assert_near(l[2], 2.0, 0, EXACT);
	assert_near(r[0], 4.0, 0, EXACT);
	assert_near(r[1], -1.0, 0, EXACT);
	assert_near(r[2], 0.0, 0, EXACT);
	/* one ulp short of knot 3 (3 * (1 - 2^-53) rounds there when a run
	 * computes t0 + k h): at the knot, the right limit */
	func_eval(&fn, nextafter(3.0, 0.0), r);
	assert_near(r[0], 4.0, 0, EXACT);
	func_release(&fn);
}

/* step and step5 (Adams' STEP, STEP5): at the middle of the ramp both
 * are halfway, with slopes 1.5 and 1.875 times the mean rate (6 s (1 - s)
 * and 30 s^2 (1 - s)^2 at s = 1/2) and second derivative 0 (by symmetry);
 * outside constant; derivatives against differences inside. */
static void test_steps(void **state)
{
	double f[3];
	for (int q = 0; q < 2; q++) {
		struct func fn = { .type = q ? FUNC_STEP5 : FUNC_STEP, .c = { 1, 3, 0.5, 2.5 } };
		func_eval(&fn, 1.5, f);
		assert_near(f[0], 2.0, EXACT, EXACT);
		assert_near(f[1], (q ? 1.875 : 1.5) * 2.0 / 2.0, EXACT, EXACT);
		assert_near(f[2], 0.0, 0, EXACT);
		func_eval(&fn, 0.2, f);
		assert_near(f[0], 1.0, EXACT, EXACT);
		func_eval(&fn, 2.7, f);
		assert_near(f[0], 3.0, EXACT, EXACT);
		assert_near(f[1], 0.0, 0, EXACT);
		for (double t = 0.6; t < 2.5; t += 0.37)
			check_derivs(&fn, t);
	}
}

/* expression: derivatives of t^3 - 2 sin(3t) + exp(-t)/(1 + t^2) written
 * by hand, to round-off of values of order 10-100. */
static void test_expression(void **state)
{
	struct func fn = { .type = FUNC_EXPRESSION };
	struct tx_err err;
	const char *names[] = { "k" };
	double vals[] = { 3 }, f[3];
	assert_int_equal(texpr_compile("t^3 - 2*sin(k*t) + exp(-t)/(1 + t^2)", names, vals, 1,
				       &fn.ex, &err), 0);
	for (double t = -1.3; t < 2.0; t += 0.29) {
		double g = 1 + t * t, e = exp(-t);
		/* h = e/g: h' = -e/g - 2 t e/g^2, h'' = e/g + 4 t e/g^2 - 2 e/g^2 + 8 t^2 e/g^3 */
		double h = e / g, h1 = -e / g - 2 * t * e / (g * g);
		double h2 = e / g + 4 * t * e / (g * g) - 2 * e / (g * g) + 8 * t * t * e / (g * g * g);
		func_eval(&fn, t, f);
		assert_near(f[0], t * t * t - 2 * sin(3 * t) + h, 1e-14, 1e-14);
		assert_near(f[1], 3 * t * t - 6 * cos(3 * t) + h1, 1e-14, 1e-14);
		assert_near(f[2], 6 * t + 18 * sin(3 * t) + h2, 1e-13, 1e-13);
	}
	struct func cp;
	func_copy(&cp, &fn);
	func_release(&fn);
	func_eval(&cp, 0.5, f);	/* the copy stands alone */
	assert_near(f[0], 0.125 - 2 * sin(1.5) + exp(-0.5) / 1.25, 1e-14, 1e-14);
	func_release(&cp);
	/* a name it does not know, at its offset */
	assert_int_equal(texpr_compile("2*tau", names, vals, 1, &fn.ex, &err), -1);
	assert_int_equal(err.pos, 2);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_constant),
		cmocka_unit_test(test_rate),
		cmocka_unit_test(test_polynomial),
		cmocka_unit_test(test_harmonic),
		cmocka_unit_test(test_cosine_ramp),
		cmocka_unit_test(test_piecewise),
		cmocka_unit_test(test_rate_ramps),
		cmocka_unit_test(test_breakpoints_smooth),
		cmocka_unit_test(test_breakpoints_ramp),
		cmocka_unit_test(test_breakpoints_piecewise),
		cmocka_unit_test(test_steps),
		cmocka_unit_test(test_expression),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
