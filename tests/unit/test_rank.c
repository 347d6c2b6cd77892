/* test_rank.c - dense rank-revealing factorization (la/rank.c).
 *
 * A random 6 x 9 matrix whose row 4 is row 0 + 2 row 1 and whose row 5 is
 * zero has rank 4 (the other rows are random, so independent with
 * probability one); its Gram matrix A A^T has the same rank, which
 * la_rank_psd must find, with row 5 and one of rows 0, 1, 4 dependent.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"
#include "la/rank.h"

#define M 6
#define N 9

static void make(double *A)
{
	testutil_seed(17);
	for (int e = 0; e < M * N; e++)
		A[e] = testutil_urand();
	for (int j = 0; j < N; j++) {
		A[4 * N + j] = A[j] + 2.0 * A[N + j];
		A[5 * N + j] = 0.0;
	}
}

static int dependent_ok(const int *piv, int rank)
{
	/* the dependent rows: row 5 and one of 0, 1, 4 */
	int zero = 0, other = 0;
	for (int i = rank; i < M; i++) {
		if (piv[i] == 5)
			zero++;
		else if (piv[i] == 0 || piv[i] == 1 || piv[i] == 4)
			other++;
	}
	return zero == 1 && other == 1;
}

/* G = A A^T (M x M) */
static void gram(const double *A, double *G)
{
	for (int i = 0; i < M; i++)
		for (int k = 0; k < M; k++) {
			double s = 0.0;
			for (int j = 0; j < N; j++)
				s += A[i * N + j] * A[k * N + j];
			G[i * M + k] = s;
		}
}

static void test_psd(void **state)
{
	(void)state;
	double A[M * N], G[M * M];
	int piv[M];
	make(A);
	/* rows of different units: scale row 2 by 1e6, which must not change
	 * the rank (la_rank_psd scales to unit diagonal) */
	for (int j = 0; j < N; j++)
		A[2 * N + j] *= 1e6;
	gram(A, G);
	int r = la_rank_psd(M, G, LA_RANK_PSD_TOL, piv, NULL);
	assert_int_equal(r, 4);
	assert_true(dependent_ok(piv, r));
	/* full rank once the dependent row is perturbed by 1e-3 (an angle of
	 * about 1e-3 rad, well above the 1e-5 of the tolerance) */
	A[4 * N] += 1e-3;
	gram(A, G);
	assert_int_equal(la_rank_psd(M, G, LA_RANK_PSD_TOL, piv, NULL), 5);
	G[0] = NAN;
	assert_int_equal(la_rank_psd(M, G, LA_RANK_PSD_TOL, piv, NULL), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_psd),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
