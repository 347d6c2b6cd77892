/* rank.c - dense rank-revealing factorizations (rank.h). */
#include "rank.h"
#include "../util/xalloc.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

void dpstrf_(const char *uplo, const int *n, double *a, const int *lda, int *piv, int *rank,
	     const double *tol, double *work, int *info);
void dgeqp3_(const int *m, const int *n, double *a, const int *lda, int *jpvt, double *tau,
	     double *work, const int *lwork, int *info);
void dorgqr_(const int *m, const int *n, const int *k, double *a, const int *lda,
	     const double *tau, double *work, const int *lwork, int *info);

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

int la_rank_qr(int m, int n, const double *A, double rtol, int *piv, double *N)
{
	if (m <= 0 || n <= 0) {
		if (N)
			for (int i = 0; i < n; i++)
				for (int c = 0; c < n; c++)
					N[(size_t)i * n + c] = i == c;
		return 0;
	}
	/* the row-major m x n A is A^T column-major with leading dimension n */
	int k = m < n ? m : n, info = 0, lw = -1;
	double *T = xmalloc((size_t)m * n * sizeof(double));
	for (size_t e = 0; e < (size_t)m * n; e++) {
		if (!isfinite(A[e])) {
			free(T);
			return -1;
		}
		T[e] = A[e];
	}
	int *jp = xcalloc((size_t)m, sizeof(int));
	double *tau = xmalloc((size_t)k * sizeof(double)), q;
	dgeqp3_(&n, &m, T, &n, jp, tau, &q, &lw, &info);
	lw = (int)q + 1;
	double *work = xmalloc((size_t)lw * sizeof(double));
	dgeqp3_(&n, &m, T, &n, jp, tau, work, &lw, &info);
	int rank = 0;
	double r0 = fabs(T[0]);
	while (info == 0 && rank < k && r0 > 0.0 && fabs(T[(size_t)rank * n + rank]) > rtol * r0)
		rank++;
	for (int i = 0; i < m; i++)
		piv[i] = jp[i] - 1;
	if (N && info == 0) {
		/* Q = H_1 ... H_k, all n columns: the reflectors of T's first k
		 * columns in an n x n array */
		double *Q = xcalloc((size_t)n * n, sizeof(double));
		memcpy(Q, T, (size_t)n * k * sizeof(double));
		lw = -1;
		dorgqr_(&n, &n, &k, Q, &n, tau, &q, &lw, &info);
		if ((int)q + 1 > lw) {
			free(work);
			lw = (int)q + 1;
			work = xmalloc((size_t)lw * sizeof(double));
		}
		dorgqr_(&n, &n, &k, Q, &n, tau, work, &lw, &info);
		for (int i = 0; i < n; i++)
			for (int c = 0; c < n - rank; c++)
				N[(size_t)i * n + c] = Q[(size_t)(rank + c) * n + i];
		free(Q);
	}
	free(work);
	free(tau);
	free(jp);
	free(T);
	return info < 0 ? -1 : rank;
}
