/* test_balance.c - the energy balance's bound and warning (src/sim/balance.c)
 * on the numbers of real runs: the PID pendulum of
 * tests/forces/pid_pendulum_energy.yaml whose motor rn4 mishandled (max K
 * 0.511 J, V range 5.01 J, work exchanged 2.49e3 J, drift 2.49e3 J: warns),
 * the same deck under lms2 (0.301, 4.13, 4.16, drift 4.05e-3 J against a bound of 4.8 J: silent),
 * and a bar held at rest (energies at round-off: silent, no scale). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <math.h>
#include <string.h>

#include "sim/balance.h"

/* A run of constant power P over [0, T] in n steps, with samples of K, V. */
static void run(struct balance *b, double P, double T, int n, double kmax, double vmin,
		double vmax, double G)
{
	memset(b, 0, sizeof(*b));
	for (int k = 0; k <= n; k++) {
		double p[3] = { P, P, 0 };
		balance_power(b, T * k / n, p);
	}
	balance_energy(b, 0, vmin, G);
	balance_energy(b, kmax, vmax, G);
}

static void test_work(void **state)
{
	struct balance b;
	run(&b, 2.0, 3.0, 30, 1, 0, 1, 0);
	assert_true(fabs(b.work[0] - 6.0) < 1e-12);	/* int P dt */
	assert_true(fabs(b.work[1] - 6.0) < 1e-12);	/* the motors' part */
	assert_true(fabs(b.work[2]) == 0.0);
	assert_true(fabs(b.abs_work - 6.0) < 1e-12);
	assert_true(fabs(balance_scale(&b) - 8.0) < 1e-12);
}

/* Impulses' work (a nonsmooth scheme's impacts) joins the loads' work: a
 * ball losing 3 J and then 1 J at two impacts between power samples of
 * 2 W over 1 s: work 2 - 3 - 1 = -2 J, exchanged |2| + 3 + 1 = 6 J. */
static void test_impulse(void **state)
{
	(void)state;
	struct balance b;
	memset(&b, 0, sizeof b);
	double p[3] = { 2, 0, 0 };
	balance_power(&b, 0, p);
	balance_impulse(&b, -3);
	balance_power(&b, 1, p);
	balance_impulse(&b, -1);
	assert_true(fabs(b.work[0] - (-2)) <= 1e-15);
	assert_true(fabs(b.abs_work - 6) <= 1e-15);
	assert_true(b.work[1] == 0 && b.work[2] == 0);	/* neither motors' nor drivers' */
}

static void test_pid_rn4_warns(void **state)
{
	struct balance b;
	char msg[512] = "";
	run(&b, 2.49e3 / 2, 2.0, 2000, 0.511, -5.01, 0, 9.81);
	assert_true(balance_bound(&b) < 260);	/* 0.511 + 5.01 + 249 */
	assert_int_equal(balance_check(&b, 2.49e3, msg, sizeof msg), 1);
	assert_non_null(strstr(msg, "energy balance off by 2.49e+03 J"));
}

static void test_pid_lms2_silent(void **state)
{
	struct balance b;
	char msg[512] = "";
	run(&b, 4.16 / 2, 2.0, 2000, 0.301, -4.13, 0, 9.81);
	assert_int_equal(balance_check(&b, 4.05e-3, msg, sizeof msg), 0);
	assert_string_equal(msg, "");
}

static void test_rest_silent(void **state)
{
	/* a bar held level: K 1e-66, V at round-off of m g |r| = 9.81 J */
	struct balance b;
	char msg[512] = "";
	run(&b, 1e-33, 0.1, 100, 1e-66, -1e-35, 1e-35, 9.81);
	assert_true(balance_scale(&b) < balance_floor(&b));
	assert_int_equal(balance_check(&b, 7.4e-35, msg, sizeof msg), 0);
}

static void test_kinetic_from_nowhere(void **state)
{
	/* a ball dropped from rest (K0 = 0, V range 0.3 x 9.81 x 0.5 =
	 * 1.47 J, no work) that a contact of stiffness 1e30 threw off at
	 * 1e22 m/s: its max K cannot excuse its drift, only the 1.47 J the
	 * potential can have given it (bound 2 x 1.47 J + the floor, 1e-9
	 * of the largest energy) */
	struct balance b;
	char msg[512] = "";
	run(&b, 0, 0.2, 20, 1.5e43, 0, 1.47, 1.47);
	assert_true(balance_bound(&b) < 1e-8 * 1.5e43);	/* the floor, 1e-9 of the energies */
	assert_int_equal(balance_check(&b, 1.5e43, msg, sizeof msg), 1);
	assert_non_null(strstr(msg, "max kinetic 1.47 J"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_work),
		cmocka_unit_test(test_impulse),
		cmocka_unit_test(test_pid_rn4_warns),
		cmocka_unit_test(test_pid_lms2_silent),
		cmocka_unit_test(test_rest_silent),
		cmocka_unit_test(test_kinetic_from_nowhere),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
