/* test_curve.c - tabulated curves (model/curve.h): linear and monotone
 * cubic (Fritsch-Carlson) interpolation, the C2 splines, extrapolation,
 * slopes. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "model/curve.h"
#include "testutil.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static void make(struct curve *c, const double *x, const double *y, int n,
		 enum curve_interp in, enum curve_extrap ex)
{
	static double X[16], Y[16];
	int bad;
	memset(c, 0, sizeof(*c));
	memcpy(X, x, (size_t)n * sizeof(double));
	memcpy(Y, y, (size_t)n * sizeof(double));
	c->x = X;
	c->y = Y;
	c->n = n;
	c->interp = in;
	c->extrap = ex;
	assert_int_equal(curve_prepare(c, &bad), 0);
}

/* Data on a straight line: both interpolants reproduce it (the cubic's
 * knot slopes are the common secant, so every Hermite piece is the line),
 * to round-off (1e-14 relative to values of order 10). */
static void test_line_exact(void **state)
{
	const double x[] = { -2, -0.5, 0, 1, 3 }, y[] = { -7, -2.5, -1, 2, 8 };	/* 3x - 1 */
	struct curve c;
	for (int in = 0; in < 2; in++) {
		make(&c, x, y, 5, (enum curve_interp)in, CURVE_EXTRAP_LINEAR);
		for (double t = -4; t <= 5; t += 0.37) {
			double d;
			assert_near(curve_eval(&c, t, &d), 3 * t - 1, 0, 1e-13);
			assert_near(d, 3.0, 1e-13, 0);
		}
		free(c.m);
	}
}

/* Monotone data with a flat stretch and a steep rise: the cubic stays
 * monotone (Fritsch-Carlson's guarantee), never leaves [y_k, y_k+1] on a
 * piece, and passes through every knot exactly. */
static void test_cubic_monotone(void **state)
{
	const double x[] = { 0, 1, 2, 3, 4, 5 }, y[] = { 0, 0.1, 0.1, 0.2, 5, 5.1 };
	struct curve c;
	make(&c, x, y, 6, CURVE_CUBIC, CURVE_EXTRAP_CONSTANT);
	double last = -1;
	for (int i = 0; i <= 5000; i++) {
		double t = 5.0 * i / 5000, v = curve_eval(&c, t, NULL);
		assert_true(v >= last - 1e-15);
		last = v;
	}
	for (int k = 0; k < 6; k++)
		assert_near(curve_eval(&c, x[k], NULL), y[k], 0, 1e-15);
	/* the flat stretch stays flat: both knot slopes are 0 there */
	assert_near(curve_eval(&c, 1.5, NULL), 0.1, 0, 1e-15);
	free(c.m);
}

/* Slopes agree with central differences of the values (step 1e-6: error
 * O(1e-12) for these cubics, well below the 1e-7 allowed). */
static void test_slope_fd(void **state)
{
	const double x[] = { 0, 0.5, 2, 2.5 }, y[] = { 1, 3, 2, 6 };
	struct curve c;
	for (int in = 0; in < 2; in++) {
		make(&c, x, y, 4, (enum curve_interp)in, CURVE_EXTRAP_LINEAR);
		for (double t = 0.05; t < 2.5; t += 0.21) {
			double d, h = 1e-6;
			curve_eval(&c, t, &d);
			double fd = (curve_eval(&c, t + h, NULL) - curve_eval(&c, t - h, NULL)) / (2 * h);
			assert_near(d, fd, 1e-7, 1e-7);
		}
		free(c.m);
	}
}

/* Extrapolation: constant keeps the end value; linear continues with the
 * end slope (the end secant for linear interpolation: (3 - 1) / 0.5). */
static void test_extrapolation(void **state)
{
	const double x[] = { 0, 0.5, 2 }, y[] = { 1, 3, 2 };
	struct curve c;
	double d;
	make(&c, x, y, 3, CURVE_LINEAR, CURVE_EXTRAP_CONSTANT);
	assert_near(curve_eval(&c, -1, &d), 1, 0, 0);
	assert_near(d, 0, 0, 0);
	assert_near(curve_eval(&c, 9, NULL), 2, 0, 0);
	make(&c, x, y, 3, CURVE_LINEAR, CURVE_EXTRAP_LINEAR);
	assert_near(curve_eval(&c, -1, &d), 1 - 4, 0, 1e-15);
	assert_near(d, 4, 0, 1e-15);
	assert_near(curve_eval(&c, 3, NULL), 2 - 1.0 / 1.5, 1e-15, 0);
}

static void test_not_increasing(void **state)
{
	double x[] = { 0, 1, 1 }, y[] = { 0, 1, 2 };
	struct curve c = { .x = x, .y = y, .n = 3 };
	int bad = 0;
	assert_int_equal(curve_prepare(&c, &bad), -1);
	assert_int_equal(bad, 2);
}

/* The not-a-knot spline reproduces any cubic (the cubic itself meets
 * every condition, and the system is nonsingular: de Boor, ch. IV), with
 * its first and second derivatives; so does the three-knot case for a
 * parabola.  The natural spline reproduces a line, and its second
 * derivative is 0 at both ends.  Uneven knots; 1e-12 relative to values
 * of order 10 leaves room for the round-off of the tridiagonal solve. */
static void test_spline_exact(void **state)
{
	const double x[] = { -1, -0.3, 0.4, 0.9, 1.5, 2.2 };
	double y[6], f[3];
	struct curve c;
	for (int k = 0; k < 6; k++)
		y[k] = x[k] * x[k] * x[k] - 2 * x[k] + 1;
	make(&c, x, y, 6, CURVE_SPLINE, CURVE_EXTRAP_CONSTANT);
	for (double t = -1; t <= 2.2; t += 0.0173) {
		curve_eval2(&c, t, 1, f);
		assert_near(f[0], t * t * t - 2 * t + 1, 1e-12, 1e-12);
		assert_near(f[1], 3 * t * t - 2, 1e-12, 1e-12);
		assert_near(f[2], 6 * t, 1e-12, 1e-12);
	}
	free(c.m);
	const double x3[] = { 0, 0.25, 1 }, y3[] = { 1, 1 - 0.5 + 0.1875, 1 - 2 + 3 };	/* 1 - 2t + 3t^2 */
	make(&c, x3, y3, 3, CURVE_SPLINE, CURVE_EXTRAP_CONSTANT);
	for (double t = 0.01; t <= 1; t += 0.03) {	/* left limits: not at x[0] */
		curve_eval2(&c, t, -1, f);
		assert_near(f[0], 1 - 2 * t + 3 * t * t, 1e-13, 1e-13);
		assert_near(f[1], -2 + 6 * t, 1e-13, 1e-13);
		assert_near(f[2], 6, 1e-12, 1e-12);
	}
	free(c.m);
	for (int k = 0; k < 6; k++)
		y[k] = sin(x[k]);
	make(&c, x, y, 6, CURVE_NATURAL, CURVE_EXTRAP_CONSTANT);
	curve_eval2(&c, x[0], 1, f);
	assert_near(f[2], 0, 0, 1e-13);
	curve_eval2(&c, x[5], -1, f);
	assert_near(f[2], 0, 0, 1e-13);
	/* the knots are interpolated */
	for (int k = 0; k < 6; k++)
		assert_near(curve_eval(&c, x[k], NULL), y[k], 1e-15, 1e-15);
	free(c.m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_line_exact),
		cmocka_unit_test(test_cubic_monotone),
		cmocka_unit_test(test_slope_fd),
		cmocka_unit_test(test_extrapolation),
		cmocka_unit_test(test_not_increasing),
		cmocka_unit_test(test_spline_exact),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
