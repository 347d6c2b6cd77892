/* test_options.c - the limits of the time axis (model/options.c) and the
 * output.times key as the deck hands it to the run loop. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "testutil.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "deck/deck.h"
#include "model/options.h"

/* The floor is 1e-12 max(1 s, |t|): absolute near 0, relative beyond 1 s,
 * symmetric in t. */
static void test_min_step(void **state)
{
	(void)state;
	assert_true(sim_min_step(0.0) == 1e-12);
	assert_true(sim_min_step(0.5) == 1e-12);
	assert_true(sim_min_step(1e12) == 1.0);
	assert_true(sim_min_step(-1e12) == 1.0);
}

static int check(double t0, double t_end, double step, int *which)
{
	struct sim_options o;
	char msg[512];
	sim_options_default(&o);
	o.t0 = t0;
	o.t_end = t_end;
	o.step = step;
	*which = -1;
	int rc = sim_options_check_time(&o, which, msg, sizeof msg);
	assert_true(rc == 0 || strlen(msg) > 0);
	return rc;
}

/* Each limit is exact: the floor itself passes, the next double below it
 * fails, and the failure says which key to point at. */
static void test_check_time(void **state)
{
	(void)state;
	int which;
	assert_int_equal(check(0, 1, 1e-3, &which), 0);
	/* step at the floor of t = 1e12 + 10 (1e-12 (1e12 + 10) s) */
	double h = sim_min_step(1e12 + 10);
	assert_int_equal(check(1e12, 1e12 + 10, h, &which), 0);
	assert_int_equal(check(1e12, 1e12 + 10, nextafter(h, 0), &which), -1);
	assert_int_equal(which, 1);
	/* the issue-17 decks */
	assert_int_equal(check(0, 1e30, 1e-3, &which), -1);
	assert_int_equal(which, 1);
	assert_int_equal(check(0, 1e-300, 1e-3, &which), -1);
	assert_int_equal(which, 0);
	/* an interval at the floor near 0 runs (one step of 1e-12 s) */
	assert_int_equal(check(0, 1e-12, 1e-3, &which), 0);
	assert_int_equal(check(0, nextafter(1e-12, 0), 1e-3, &which), -1);
	assert_int_equal(which, 0);
	/* an interval that overflows, and non-finite ends */
	assert_int_equal(check(-DBL_MAX, DBL_MAX, 1e300, &which), -1);
	assert_int_equal(which, 0);
	assert_int_equal(check(0, INFINITY, 1, &which), -1);
	assert_int_equal(check(NAN, 1, 1e-3, &which), -1);
	assert_int_equal(check(0, 1, NAN, &which), -1);
	assert_int_equal(which, 1);
}

/* output.times arrives as the values written (expressions evaluated), in
 * order, in an array freed with the deck; without it the options carry no
 * times.  A deck is built once (its tree is freed then): a second build
 * is an error, not a second array. */
static void test_output_times(void **state)
{
	(void)state;
	struct diag d;
	diag_init(&d);
	struct deck *dk = testutil_load_text("parameters: {T: 2}\n"
				    "bodies: [{name: b, mass: 1, inertia: [1, 1, 1]}]\n"
				    "time: {end: T}\n"
				    "output: {times: [0, T/4, 1.5, T]}\n", &d);
	assert_non_null(dk);
	struct model *m = NULL;
	struct sim_options o;
	assert_int_equal(deck_build(dk, &m, &o, &d), 0);
	assert_int_equal(o.ntimes, 4);
	assert_true(o.times[0] == 0 && o.times[1] == 0.5 && o.times[2] == 1.5 && o.times[3] == 2);
	model_free(&m);
	assert_int_equal(deck_build(dk, &m, &o, &d), -1);
	assert_null(m);
	deck_free(&dk);
	diag_release(&d);

	diag_init(&d);
	dk = testutil_load_text("bodies: [{name: b, mass: 1, inertia: [1, 1, 1]}]\n"
		       "time: {end: 1}\n", &d);
	assert_int_equal(deck_build(dk, &m, &o, &d), 0);
	assert_null(o.times);
	assert_int_equal(o.ntimes, 0);
	model_free(&m);
	deck_free(&dk);
	diag_release(&d);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_min_step),
		cmocka_unit_test(test_check_time),
		cmocka_unit_test(test_output_times),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
