/* testutil.h - helpers shared by the cmocka unit tests.
 * Include after <cmocka.h> (which needs stdarg, stddef, setjmp first). */
#ifndef MBSIM_TESTUTIL_H
#define MBSIM_TESTUTIL_H

#include <stdint.h>

/* Fail unless |actual - expected| <= atol + rtol |expected|; the message
 * names both values and what was compared. */
#define assert_near(actual, expected, rtol, atol) \
	testutil_near((actual), (expected), (rtol), (atol), #actual, __FILE__, __LINE__)

void testutil_near(double actual, double expected, double rtol, double atol,
		   const char *what, const char *file, int line);

/* Central finite difference of a scalar function of x (n entries) in
 * direction e_k with step h: (f(x + h e_k) - f(x - h e_k)) / 2h.  The
 * callback evaluates f at x; x is restored on return. */
typedef double (*testutil_fn)(const double *x, void *ctx);
double testutil_fd(testutil_fn f, double *x, int k, double h, void *ctx);

/* Pseudo-random numbers (xorshift64*): a fixed seed makes every run the
 * same.  testutil_seed starts the sequence (seed != 0); testutil_urand is
 * uniform in [-1, 1); testutil_rand_unit draws a unit vector (rejection
 * from the cube: |u| in [0.1, 1] before normalizing). */
void testutil_seed(uint64_t seed);
double testutil_urand(void);
void testutil_rand_unit(double *u);

/* Write text to a temporary file and load it as a deck (deck_load); the
 * file is removed.  NULL after reporting in d. */
struct deck;
struct diag;
struct deck *testutil_load_text(const char *text, struct diag *d);

/* deck_build(dk, m, o), printing its diagnostics and failing the test
 * unless it succeeds. */
struct model;
struct sim_options;
void testutil_build(struct deck *dk, struct model **m, struct sim_options *o);

/* model_finalize(m), failing the test unless it succeeds. */
void testutil_finalize(struct model *m);

#endif
