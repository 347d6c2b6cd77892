/* test_rosenbrock.c - the Rosenbrock-Nystrom family (integ/rosenbrock.c)
 * on ODEs given directly through the seam of form/ode.h.
 *
 * 1. The Nystrom coefficients that ros_make derives by Theorem 2.1 of
 *    seed 001 from the defining Rosenbrock coefficients against the
 *    seed's printed table of them (25 digits; the two misprints that
 *    rosenbrock.c names, a_21 and the sign behind gamma_21, excepted: a_21
 *    must be alpha_21 / gamma = 2), and the W-method's 15-digit table.
 * 2. Order: fixed steps on a pendulum y'' = -sin(y) - c y' + F cos(t)
 *    (time-dependent, damped, so that f_t, J1 and J2 all enter), errors
 *    at t = 1 against a step of h/8 (Richardson), slopes 4 (rn4) and 2
 *    (w2).
 * 3. Step control: the adaptive rn4 meets atol = rtol = 1e-6 on that
 *    problem at t = 1.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <string.h>

#include "testutil.h"
#include "integ/odeint.h"
#include "integ/rosenbrock.h"
#include "model/options.h"

/* The printed values carry 24 to 25 digits; double rounding of the
 * long-double derivation gives about 1e-16 relative: 1e-14 leaves room
 * for a few roundings. */
#define RN_TOL 1e-14
/* The W-method's table is printed with 14 digits after the point. */
#define W_TOL 1e-13

static void test_rn4_table(void **state)
{
	(void)state;
	struct ros_coef C;
	ros_make(INTEG_RN4, &C);
	assert_int_equal(C.s, 4);
	assert_int_equal(C.q, 3);
	/* 001 §2, the table after "The full set of coefficients" */
	const double th[][3] = { { 1.14563212 }, { 0.789509162815638629626980,
						   0.134294186842504800149232 },
				 { 0.789509162815638629626980, 0.134294186842504800149232, 0.0 } };
	const double a[][3] = { { 2.0 /* printed 0.2 */ },
				{ 1.86794814949823713234476, 0.23444556851723885002322 },
				{ 1.86794814949823713234476, 0.23444556851723885002322, 0.0 } };
	const double c[][3] = { { -7.137649943349979830369260 },
				{ 2.580923666509657714488050, 0.651629887302032023387417 },
				{ -2.137115266506619116806370, -0.321469531339951070769241,
				  -0.694966049282445225157329 } };
	const double d[][3] = { { -1.196361007112013949170520 },
				{ 1.470280254409780714633870, 0.348105837679204490016704 },
				{ 0.003765094355556165798974, -0.109762486758103255675398,
				  -0.228031035973133829477744 } };
	const double m[] = { 2.255566228604565243728840, 0.287055063194157607662630,
			     0.435311963379983213402707, 1.093507656403247803214820 };
	const double mh[] = { 2.068399160527583734258670, 0.238681352067532797956493,
			      0.363373345435391708261747, 0.366557127936155144309163 };
	const double mu[] = { 1.592750819409585342074900, 0.195938266310250609693329, 0.0,
			      0.626378747320742177841171 };
	const double muh[] = { 1.434903971848209472627100, 0.222978672588698369045153,
			       0.124559686414702049774897, 0.209969809789304321311906 };
	const double gi[] = { 0.57281606, -1.769177067112013949170520, 0.759293964293209853670967,
			      -0.104894621490955803206743 };
	const double al[] = { 0.0, 1.14563212, 0.655214975973133829477748,
			      0.655214975973133829477748 };
	for (int i = 1; i < 4; i++)
		for (int j = 0; j < i; j++) {
			assert_near(C.th[i][j], th[i - 1][j], RN_TOL, RN_TOL);
			assert_near(C.a[i][j], a[i - 1][j], RN_TOL, RN_TOL);
			assert_near(C.c[i][j], c[i - 1][j], RN_TOL, RN_TOL);
			assert_near(C.d[i][j], d[i - 1][j], RN_TOL, RN_TOL);
		}
	for (int i = 0; i < 4; i++) {
		assert_near(C.m[i], m[i], RN_TOL, RN_TOL);
		assert_near(C.mh[i], mh[i], RN_TOL, RN_TOL);
		assert_near(C.mu[i], mu[i], RN_TOL, RN_TOL);
		assert_near(C.muh[i], muh[i], RN_TOL, RN_TOL);
		assert_near(C.gi[i], gi[i], RN_TOL, RN_TOL);
		assert_near(C.alpha[i], al[i], RN_TOL, RN_TOL);
	}
	/* the fourth stage is evaluated where the third was (Algorithm 1,
	 * step 11) */
	assert_int_equal(C.reuse[3], 1);
	assert_int_equal(C.reuse[1] + C.reuse[2], 0);
}

static void test_w2_table(void **state)
{
	(void)state;
	struct ros_coef C;
	ros_make(INTEG_W2, &C);
	assert_int_equal(C.s, 2);
	assert_int_equal(C.q, 1);
	assert_near(C.gamma, 1.70710678118650, W_TOL, W_TOL);
	assert_near(C.alpha[1], 1.0, W_TOL, W_TOL);
	assert_near(C.gi[0], 1.70710678118650, W_TOL, W_TOL);
	assert_near(C.gi[1], -1.70710678118650, W_TOL, W_TOL);
	assert_near(C.a[1][0], 0.58578643762690, W_TOL, W_TOL);
	assert_near(C.c[1][0], -1.17157287525380, W_TOL, W_TOL);
	assert_near(C.d[1][0], -2.41421356237310, W_TOL, W_TOL);
	assert_near(C.th[1][0], 1.0, W_TOL, W_TOL);
	assert_near(C.m[0], 0.87867965644040, W_TOL, W_TOL);
	assert_near(C.m[1], 0.29289321881340, W_TOL, W_TOL);
	assert_near(C.mh[0], 1.17157287525380, W_TOL, W_TOL);
	assert_near(C.mh[1], 0.58578643762690, W_TOL, W_TOL);
	assert_near(C.mu[0], 0.79289321881340, W_TOL, W_TOL);
	assert_near(C.mu[1], 0.5, W_TOL, W_TOL);
	assert_near(C.muh[0], 0.58578643762690, W_TOL, W_TOL);
	assert_near(C.muh[1], 1.0, W_TOL, W_TOL);
}

/* y'' = -sin(y) - c y' + F cos(t), one coordinate */
struct pend {
	struct ode_sys sys;
	double y, yd;
};

static int pend_rhs(void *ctx, double t, const double *y, const double *yd, double *ydd)
{
	(void)ctx;
	ydd[0] = -sin(y[0]) - 0.3 * yd[0] + 0.5 * cos(t);
	return 0;
}

static int pend_accept(void *ctx, double t, double *y, double *yd)
{
	return 0;
}

static void pend_init(struct pend *P)
{
	memset(P, 0, sizeof(*P));
	P->sys.n = 1;
	P->sys.ctx = P;
	P->sys.rhs = pend_rhs;
	P->sys.accept = pend_accept;
}

/* y(1) from y(0) = 1, y'(0) = 0 with n fixed steps (n = 0: adaptive,
 * tolerance tol), the steps taken into *steps */
static double pend_run(int id, int n, double tol, long *steps)
{
	struct pend P;
	struct sim_options o;
	sim_options_default(&o);
	o.t0 = 0;
	o.t_end = 1;
	o.adaptive = n == 0;
	o.atol = o.rtol = tol;
	pend_init(&P);
	struct odeint *O = odeint_new(&P.sys, &o, 0);
	O->y[0] = 1.0;
	O->yd[0] = 0.0;
	pend_rhs(NULL, 0, O->y, O->yd, O->ydd);
	O->restart = 1;
	double h = n ? 1.0 / n : 1e-3, t1 = 0, hn = h;
	*steps = 0;
	/* fixed: exactly n steps (a test on the accumulated t could take
	 * one more) */
	for (long k = 0; n ? k < n : O->t < 1.0; k++) {
		double hh = n ? h : fmin(hn, 1.0 - O->t);
		assert_int_equal(ros_step_ode(O, id, hh, &t1, &hn), 0);
		(*steps)++;
	}
	double y = O->y[0];
	odeint_free(&O);
	return y;
}

static void order_of(int id, double expect)
{
	long st;
	const int N[] = { 80, 160, 320 };
	double ref = pend_run(id, 8 * N[2], 0, &st), e[3];
	for (int k = 0; k < 3; k++)
		e[k] = fabs(pend_run(id, N[k], 0, &st) - ref);
	double p = log2(e[1] / e[2]);
	print_message("scheme %d: errors %.3e %.3e %.3e, slope %.3f\n", id, e[0], e[1], e[2], p);
	/* the bands: rn4 4 +- 0.3, w2 2 +- 0.2 */
	assert_true(fabs(p - expect) <= (expect > 3 ? 0.3 : 0.2));
}

static void test_rn4_order(void **state)
{
	(void)state;
	order_of(INTEG_RN4, 4.0);
}

static void test_w2_order(void **state)
{
	(void)state;
	order_of(INTEG_W2, 2.0);
}

static void test_rn4_adaptive(void **state)
{
	(void)state;
	long st, st2;
	double ref = pend_run(INTEG_RN4, 4000, 0, &st2);
	double y = pend_run(INTEG_RN4, 0, 1e-6, &st);
	print_message("adaptive rn4: error %.3e in %ld steps\n", fabs(y - ref), st);
	/* eq. 13-14: an accepted step's error estimate per component is at
	 * most sqrt(2) (RMS over y and y') times atol + rtol |y| <= 2e-6
	 * (|y| <= 1 on this damped run); the global error is at most their
	 * sum over the steps (the damped pendulum does not amplify them) */
	assert_true(fabs(y - ref) <= (double)st * sqrt(2.0) * 2e-6);
	/* from h = 1e-3, steps that grow at most 5-fold (facmax) cover 0.78 s
	 * in 5 steps: reaching t = 1 takes 6 or more */
	assert_true(st >= 6);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rn4_table),
		cmocka_unit_test(test_w2_table),
		cmocka_unit_test(test_rn4_order),
		cmocka_unit_test(test_w2_order),
		cmocka_unit_test(test_rn4_adaptive),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
