/* test_newmark.c - the growth detector of newmark.h on acceleration
 * sequences whose nature is known:
 *
 * 1. modes of constant amplitude sampled at any frequency up to the
 *    Nyquist frequency (what a stable Newmark run produces, near Nyquist
 *    just below the seed-002 eq. 11 bound) never trip it, nor do slowly
 *    decaying ones;
 * 2. the weak instability of the index-3 trapezoidal rule, growth like
 *    n (-1)^n, does not trip it;
 * 3. an amplification by -1.2538 per step (Fox-Goodwin at 0.79 s on the
 *    stiff pendulum of seed 002: Omega^2 = (0.79 sqrt(g/L))^2 = 6.116, the
 *    root of largest modulus of lambda^2 - 2 a lambda + 1 with
 *    a = 1 - Omega^2 / (2 (1 + Omega^2/12))) trips it after 12 steps;
 * 4. the tenfold growth of the classical index-3 Fox-Goodwin (seed 002
 *    eq. 30: 5 + sqrt(24) = 9.9 per step) trips it after 4 steps, before
 *    the Newton iteration would fail;
 * 5. pairs of stable modes (random frequencies up to Nyquist, phases and
 *    amplitude ratios from 1e-3 to 1e3) never trip it once a beat has been
 *    seen (after step 100); before, rarely (measured 7 in 20000, all
 *    within 41 steps; the test allows 0.1%).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <string.h>

#include "testutil.h"
#include "integ/newmark.h"

/* A one-body system: mass 1, J = I (all nm_growth_check reads of it). */
static double mass1[1] = { 1.0 }, J1[9] = { 1, 0, 0, 0, 1, 0, 0, 0, 1 };

static struct ra one_body(void)
{
	struct ra s;
	memset(&s, 0, sizeof s);
	s.nb = 1;
	s.ng = 6;
	s.mass = mass1;
	s.J = J1;
	return s;
}

/* Feed a_x = f(n) for n = 0 .. steps-1; the step it tripped at, or -1. */
static int feed(double (*f)(int, const double *), const double *par, int steps)
{
	struct ra s = one_body();
	struct nm_growth *gr = nm_growth_new(&s);
	double a[3] = { 0, 0, 0 }, wd[3] = { 0, 0, 0 };
	struct ra_state y;
	memset(&y, 0, sizeof y);
	y.a = a;
	y.wd = wd;
	int at = -1;
	for (int n = 0; n < steps && at < 0; n++) {
		a[0] = f(n, par);
		a[1] = 0.3 * f(n, par);	/* the direction should not matter */
		if (nm_growth_check(gr, &s, &y))
			at = n;
	}
	nm_growth_free(&gr);
	return at;
}

/* par: phase advance per step, phase, decay per step */
static double sinusoid(int n, const double *p)
{
	return 2.0 + pow(p[2], n) * cos(p[0] * n + p[1]);
}

static double geometric(int n, const double *p)
{
	return 1.0 + 1e-3 * pow(p[0], n);
}

static double linear(int n, const double *p)
{
	return 1.0 + 1e-3 * (n + 1) * ((n & 1) ? -1.0 : 1.0) * p[0];
}

static void test_constant_amplitude(void **state)
{
	(void)state;
	/* phase advances from 0.001 rad (6283 steps a period) to pi
	 * (Nyquist), denser near pi where a stable Newmark mode sits at its
	 * bound; 16 phases each */
	int trips = 0;
	for (int i = 0; i <= 400; i++) {
		double phi = i < 200 ? M_PI * i / 200.0 + 1e-3 : M_PI - pow(10.0, -4.0 + 3.0 * (i - 200) / 200.0);
		for (int k = 0; k < 16; k++) {
			double p[3] = { phi, 2.0 * M_PI * k / 16.0 + 0.01, 1.0 };
			if (feed(sinusoid, p, 3000) >= 0)
				trips++;
			p[2] = 0.999;	/* decaying */
			if (feed(sinusoid, p, 3000) >= 0)
				trips++;
		}
	}
	assert_int_equal(trips, 0);
}

static void test_trapezoid_weak(void **state)
{
	(void)state;
	double p[1] = { 1.0 };
	assert_int_equal(feed(linear, p, 5000), -1);
}

static void test_fox_goodwin_079(void **state)
{
	(void)state;
	double W2 = pow(0.79 * sqrt(9.8), 2), a = 1.0 - W2 / (2.0 * (1.0 + W2 / 12.0));
	double lam = a - sqrt(a * a - 1.0);	/* the root below -1 */
	assert_true(lam < -1.25 && lam > -1.26);
	double p[1] = { lam };
	int at = feed(geometric, p, 100);
	/* the change z_n of step n needs steps n and n+1: the first growing
	 * reversal is at n = 2, the 12th at n = 13 */
	assert_int_equal(at, NM_GROWTH_STEPS + 1);
}

static void test_classical_fox_goodwin(void **state)
{
	(void)state;
	double p[1] = { -(5.0 + sqrt(24.0)) };
	int at = feed(geometric, p, 100);
	assert_true(at > 0 && at <= 5);
}

/* par: phase advances, phases, amplitude of the second mode */
static double two_modes(int n, const double *p)
{
	return cos(p[0] * n + p[2]) + p[4] * cos(p[1] * n + p[3]);
}

static void test_two_modes(void **state)
{
	(void)state;
	unsigned long x = 12345;	/* a fixed LCG, the same runs everywhere */
	int early = 0, late = 0, runs = 4000;
	for (int t = 0; t < runs; t++) {
		double u[5];
		for (int i = 0; i < 5; i++) {
			x = x * 6364136223846793005ul + 1442695040888963407ul;
			u[i] = (double)(x >> 11) / 9007199254740992.0;
		}
		double p[5] = { M_PI * u[0], M_PI - pow(10.0, -4.0 + 3.5 * u[1]), 6.3 * u[2],
				6.3 * u[3], pow(10.0, -3.0 + 6.0 * u[4]) };
		int at = feed(two_modes, p, 1000);
		if (at >= 100)
			late++;
		else if (at >= 0)
			early++;
	}
	assert_int_equal(late, 0);
	assert_true(early <= runs / 1000);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_constant_amplitude),
		cmocka_unit_test(test_trapezoid_weak),
		cmocka_unit_test(test_fox_goodwin_079),
		cmocka_unit_test(test_classical_fox_goodwin),
		cmocka_unit_test(test_two_modes),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
