/* testutil.c - see testutil.h */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>

#include "testutil.h"
#include "util/vec.h"
#include "deck/deck.h"
#include "model/model.h"
#include "util/diag.h"

#include <stdlib.h>
#include <unistd.h>

void testutil_near(double actual, double expected, double rtol, double atol,
		   const char *what, const char *file, int line)
{
	double tol = atol + rtol * fabs(expected);
	if (!(fabs(actual - expected) <= tol)) {
		char msg[512];
		snprintf(msg, sizeof msg,
			 "%s = %.17g, expected %.17g (|diff| %.3g > tol %.3g)",
			 what, actual, expected, fabs(actual - expected), tol);
		print_error("%s:%d: %s\n", file, line, msg);
		_fail(file, line);
	}
}

double testutil_fd(testutil_fn f, double *x, int k, double h, void *ctx)
{
	double x0 = x[k];
	x[k] = x0 + h;
	double fp = f(x, ctx);
	x[k] = x0 - h;
	double fm = f(x, ctx);
	x[k] = x0;
	return (fp - fm) / (2.0 * h);
}

static uint64_t rng_state;

void testutil_seed(uint64_t seed)
{
	rng_state = seed;
}

double testutil_urand(void)
{
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	uint64_t x = rng_state * 2685821657736338717ULL;
	return (double)(x >> 11) * (2.0 / 9007199254740992.0) - 1.0;
}

void testutil_rand_unit(double *u)
{
	double n;
	do {
		/* last component first: the order in which GCC evaluated the
		 * arguments of the tests' former v3_set(u, urand(), urand(),
		 * urand()), so their random cases stay the same */
		u[2] = testutil_urand();
		u[1] = testutil_urand();
		u[0] = testutil_urand();
		n = v3_norm(u);
	} while (n < 0.1 || n > 1.0);
	v3_scale(u, 1.0 / n, u);
}

void testutil_finalize(struct model *m)
{
	struct diag d;
	diag_init(&d);
	assert_int_equal(model_finalize(m, &d), 0);
	diag_release(&d);
}

struct deck *testutil_load_text(const char *text, struct diag *d)
{
	char path[] = "/tmp/mbsim-test-deck-XXXXXX";
	int fd = mkstemp(path);
	assert_true(fd >= 0);
	FILE *f = fdopen(fd, "w");
	fputs(text, f);
	fclose(f);
	struct deck *dk = deck_load(path, d);
	unlink(path);
	return dk;
}

void testutil_build(struct deck *dk, struct model **m, struct sim_options *o)
{
	struct diag d;
	diag_init(&d);
	assert_non_null(dk);
	int rc = deck_build(dk, m, o, &d);
	for (int i = 0; i < d.n; i++) {
		char *s = diag_format(&d, i);
		print_error("%s\n", s);
		free(s);
	}
	assert_int_equal(rc, 0);
	diag_release(&d);
}
