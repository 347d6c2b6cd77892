/* rank.c - dense rank-revealing factorizations (rank.h). */
#include "rank.h"
#include "../util/xalloc.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

void dpstrf_(const char *uplo, const int *n, double *a, const int *lda, int *piv, int *rank,
	     const double *tol, double *work, int *info);

/* Scaling to unit diagonal makes the test independent of the rows' units
 * (metres against radians, masses against inertias): after it, the pivot
 * dpstrf compares with rtol is 1 - cos^2 of the angle between a row and
 * the span of the rows chosen before it.  A row whose diagonal is zero up
 * to round-off of the largest (a Jacobian row of relative size 1e-14 or
 * less: squared, 1e-28) carries no constraint and is dependent. */
int la_rank_psd(int n, const double *A, double rtol, int *piv, double *work)
{
	if (n <= 0)
		return 0;
	double *own = work ? NULL : xmalloc(((size_t)n * n + 4 * (size_t)n) * sizeof(double));
	double *B = work ? work : own, *w = B + (size_t)n * n, *d = w + 2 * (size_t)n;
	int *idx = (int *)(d + n);	/* n ints in the last n doubles */
	double dmax = 0.0;
	for (int i = 0; i < n; i++) {
		d[i] = A[(size_t)i * n + i];
		if (!isfinite(d[i])) {
			free(own);
			return -1;
		}
		dmax = fmax(dmax, d[i]);
	}
	int m = 0, z = n;	/* kept rows 0 .. m-1 of idx; zero rows at the end of piv */
	for (int i = 0; i < n; i++)
		if (d[i] > 1e-28 * dmax && d[i] > 0.0)
			idx[m++] = i;
	for (int i = n - 1; i >= 0; i--)
		if (!(d[i] > 1e-28 * dmax && d[i] > 0.0))
			piv[--z] = i;
	for (int c = 0; c < m; c++)	/* column-major, full: B(a, c) */
		for (int a = 0; a < m; a++) {
			int i = idx[a > c ? a : c], j = idx[a > c ? c : a];	/* i >= j */
			double v = A[(size_t)i * n + j];
			if (!isfinite(v)) {
				free(own);
				return -1;
			}
			B[(size_t)c * m + a] = v / sqrt(d[i] * d[j]);
		}
	int rank = 0, info = 0;
	if (m > 0) {
		int *p = xmalloc((size_t)m * sizeof(int));
		dpstrf_("L", &m, B, &m, p, &rank, &rtol, w, &info);
		for (int a = 0; a < m; a++)
			piv[a] = idx[p[a] - 1];
		free(p);
	}
	free(own);
	return info < 0 ? -1 : rank;
}
