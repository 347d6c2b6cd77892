/* spf.c - sparse LU without pivoting on a symmetric pattern (spf.h).
 *
 * Up-looking elimination (the LU form of CSparse's cs_chol, T. Davis,
 * "Direct Methods for Sparse Linear Systems", SIAM 2006, §4.2 and §6.1)
 * on C = A(p, p), p the AMD order.  Step k computes row k of L and column
 * k of U from two sparse triangular solves whose pattern is the reach of
 * row k in the elimination tree (cs_ereach):
 *   L(0:k, 0:k) u = C(0:k, k),   U(0:k, 0:k)^T l = C(k, 0:k)^T,
 *   D(k) = C(k, k) - l . u,
 * L unit lower, U = D + strictly upper.  The pattern of L equals that of
 * U^T, so one index structure (columns of L, rows of U) serves both:
 * entry t of column j holds L(i, j) in Lx[t] and U(j, i) in Ux[t].  With
 * symmetric values U = D L^T and Ux is not used.  All of the pattern work
 * (reaches, positions of the new entries) is done once in spf_new; C's
 * entries are read from the caller's columns through the inverse
 * permutation (the caller's pattern, borrowed, instead of lists of C's
 * entries and their positions: 12 bytes an entry above the diagonal and
 * 8 a row, some 140 bytes a body of a pendulum array).
 */
#include "spf.h"
#include "../util/vec.h"
#include "../util/xalloc.h"

#include <amd.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

struct spf {
	int n;
	int *perm;		/* new k -> old perm[k] */
	int *pinv;		/* old -> new */
	const int *Ap, *Ai;	/* the caller's pattern (spf_new), borrowed */
	int *tq;		/* position in Ax of the transpose of each entry,
				 * made with Ux (values not symmetric) */
	/* reaches: row k of L is R[Rp[k] .. Rp[k+1]-1] in topological order;
	 * Rt[t] is where L(k, R[t]) goes in Lx */
	int *Rp, *R, *Rt;
	/* L by columns (strictly lower) */
	int *Lp, *Li;
	double *Lx, *Ux, *D;
	double *x, *y;		/* work, n + 1: kept zero between uses but for
				 * x[n], y[n], where spf_factor puts what it
				 * does not need */
	size_t len;		/* entries of L; Ux and y are made at the first
				 * factorization with values not symmetric */
	int sym;		/* the last factorization had symmetric values */
};

size_t spf_nnz(const struct spf *f)
{
	return f->len;
}

void spf_free(struct spf **pf)
{
	struct spf *f = *pf;
	if (!f)
		return;
	free(f->perm);
	free(f->pinv);
	free(f->tq);
	free(f->Rp);
	free(f->R);
	free(f->Rt);
	free(f->Lp);
	free(f->Li);
	free(f->Lx);
	free(f->Ux);
	free(f->D);
	free(f->x);
	free(f->y);
	free(f);
	*pf = NULL;
}

/* position of row r in column c of (Ap, Ai), sorted; -1 if absent */
static int find(const int *Ap, const int *Ai, int c, int r)
{
	int lo = Ap[c], hi = Ap[c + 1] - 1;
	while (lo <= hi) {
		int mid = (lo + hi) / 2;
		if (Ai[mid] < r)
			lo = mid + 1;
		else if (Ai[mid] > r)
			hi = mid - 1;
		else
			return mid;
	}
	return -1;
}

/* every diagonal entry present and the pattern symmetric */
static int check_pattern(int n, const int *Ap, const int *Ai)
{
	for (int c = 0; c < n; c++) {
		if (find(Ap, Ai, c, c) < 0)
			return -1;
		for (int q = Ap[c]; q < Ap[c + 1]; q++)
			if (find(Ap, Ai, Ai[q], c) < 0)
				return -1;
	}
	return 0;
}

/* elimination tree of C (cs_etree on the upper part: in column k of C
 * the rows i = pinv[Ai[q]] < k, in the order of the caller's column) */
static void etree(const struct spf *f, int *parent)
{
	int n = f->n, *anc = xmalloc(((size_t)n + 1) * sizeof(int));
	for (int k = 0; k < n; k++) {
		int c = f->perm[k];
		parent[k] = anc[k] = -1;
		for (int q = f->Ap[c]; q < f->Ap[c + 1]; q++)
			for (int i = f->pinv[f->Ai[q]], next; i != -1 && i < k; i = next) {
				next = anc[i];
				anc[i] = k;
				if (next == -1)
					parent[i] = k;
			}
	}
	free(anc);
}

/* reaches of every row (cs_ereach), the column counts and positions of L */
static void symbolic(struct spf *f)
{
	int n = f->n;
	int *parent = xmalloc(((size_t)n + 1) * sizeof(int));
	int *w = xmalloc(((size_t)n + 1) * sizeof(int));
	int *s = xmalloc(((size_t)n + 1) * sizeof(int));
	etree(f, parent);
	f->Rp = xcalloc((size_t)n + 1, sizeof(int));
	size_t cap = (size_t)f->Ap[n] + 1, len = 0;
	f->R = xmalloc(cap * sizeof(int));
	for (int k = 0; k < n; k++)
		w[k] = -1;
	for (int k = 0; k < n; k++) {
		int top = n, c = f->perm[k];
		w[k] = k;
		for (int q = f->Ap[c]; q < f->Ap[c + 1]; q++) {
			int i = f->pinv[f->Ai[q]], l = 0;
			if (i >= k)
				continue;
			for (; w[i] != k; i = parent[i]) {
				s[l++] = i;
				w[i] = k;
			}
			while (l > 0)
				s[--top] = s[--l];
		}
		if (len + (size_t)(n - top) > cap) {
			cap = 2 * cap + (size_t)(n - top);
			f->R = xrealloc(f->R, cap * sizeof(int));
		}
		memcpy(f->R + len, s + top, (size_t)(n - top) * sizeof(int));
		len += (size_t)(n - top);
		f->Rp[k + 1] = (int)len;
	}
	/* column j of L gets row k for every reach holding j, k ascending */
	f->Lp = xcalloc((size_t)n + 1, sizeof(int));
	for (size_t t = 0; t < len; t++)
		f->Lp[f->R[t] + 1]++;
	for (int j = 0; j < n; j++)
		f->Lp[j + 1] += f->Lp[j];
	f->Li = xmalloc((len + 1) * sizeof(int));
	f->Rt = xmalloc((len + 1) * sizeof(int));
	memcpy(w, f->Lp, (size_t)n * sizeof(int));
	for (int k = 0; k < n; k++)
		for (int t = f->Rp[k]; t < f->Rp[k + 1]; t++) {
			int pos = w[f->R[t]]++;
			f->Li[pos] = k;
			f->Rt[t] = pos;
		}
	f->Lx = xcalloc(len + 1, sizeof(double));
	f->len = len;
	free(parent);
	free(w);
	free(s);
}

struct spf *spf_new(int n, const int *Ap, const int *Ai)
{
	struct spf *f = xcalloc(1, sizeof(*f));
	double info[AMD_INFO];
	f->n = n;
	f->Ap = Ap;
	f->Ai = Ai;
	f->perm = xmalloc(((size_t)n + 1) * sizeof(int));
	f->pinv = xmalloc(((size_t)n + 1) * sizeof(int));
	int st = amd_order(n, Ap, Ai, f->perm, NULL, info);
	if ((st != AMD_OK && st != AMD_OK_BUT_JUMBLED) || check_pattern(n, Ap, Ai)) {
		spf_free(&f);
		return NULL;
	}
	for (int k = 0; k < n; k++)
		f->pinv[f->perm[k]] = k;
	symbolic(f);
	f->D = xcalloc((size_t)n + 1, sizeof(double));
	f->x = xcalloc((size_t)n + 1, sizeof(double));
	return f;
}

int spf_factor(struct spf *f, const double *Ax, int sym, double tol)
{
	const int *Ap = f->Ap, *Ai = f->Ai, *pinv = f->pinv;
	if (!sym && !f->Ux) {
		f->Ux = xcalloc(f->len + 1, sizeof(double));
		f->y = xcalloc((size_t)f->n + 1, sizeof(double));
		f->tq = xmalloc(((size_t)Ap[f->n] + 1) * sizeof(int));
		for (int c = 0; c < f->n; c++)
			for (int q = Ap[c]; q < Ap[c + 1]; q++)
				f->tq[q] = find(Ap, Ai, Ai[q], c);
	}
	double *x = f->x, *y = f->y;
	const int *Lp = f->Lp, *Li = f->Li;
	double *Lx = f->Lx, *Ux = f->Ux;
	f->sym = sym;
	for (int k = 0; k < f->n; k++) {
		/* column k of C: C(i, k) for i < k (x) and C(k, i) (y), C(k, k) */
		int c = f->perm[k];
		double akk = 0.0;
		/* without branches on i (AMD's order makes them a coin toss):
		 * entries i >= k go to x[n], which nothing reads */
		int n = f->n;
		if (sym) {	/* L from the upper values */
			for (int q = Ap[c]; q < Ap[c + 1]; q++) {
				int i = pinv[Ai[q]];
				x[i < k ? i : n] = Ax[q];
				akk = i == k ? Ax[q] : akk;
			}
		} else {
			for (int q = Ap[c]; q < Ap[c + 1]; q++) {
				int i = pinv[Ai[q]];
				x[i < k ? i : n] = Ax[q];
				y[i < k ? i : n] = Ax[f->tq[q]];
				akk = i == k ? Ax[q] : akk;
			}
		}
		double d = akk;
		for (int t = f->Rp[k]; t < f->Rp[k + 1]; t++) {
			int j = f->R[t], end = f->Rt[t];
			double u = x[j], l;
			x[j] = 0.0;
			if (sym) {
				l = u / f->D[j];
				for (int p = Lp[j]; p < end; p++)
					x[Li[p]] -= Lx[p] * u;
			} else {
				l = y[j] / f->D[j];
				for (int p = Lp[j]; p < end; p++) {
					x[Li[p]] -= Lx[p] * u;
					y[Li[p]] -= Ux[p] * l;
				}
				Ux[end] = u;
				y[j] = 0.0;
			}
			Lx[end] = l;
			d -= l * u;
		}
		f->D[k] = d;
		if (!(fabs(d) > tol * fabs(akk)) || !isfinite(d)) {
			/* leave the work vectors zero for the next call */
			memset(x, 0, (size_t)f->n * sizeof(double));
			if (y)
				memset(y, 0, (size_t)f->n * sizeof(double));
			return -1;
		}
	}
	return 0;
}

void spf_solve(const struct spf *f, const double *b, double *xout)
{
	int n = f->n;
	double *z = f->x;	/* zero on entry, zeroed on exit */
	const int *Lp = f->Lp, *Li = f->Li;
	for (int k = 0; k < n; k++)
		z[k] = b[f->perm[k]];
	for (int j = 0; j < n; j++) {	/* L z = b */
		double zj = z[j];
		if (zj != 0.0)
			for (int p = Lp[j]; p < Lp[j + 1]; p++)
				z[Li[p]] -= f->Lx[p] * zj;
	}
	for (int j = n - 1; j >= 0; j--) {	/* U x = z */
		double acc = 0.0;
		if (f->sym) {	/* U(j, i) = D(j) L(i, j) */
			for (int p = Lp[j]; p < Lp[j + 1]; p++)
				acc += f->Lx[p] * z[Li[p]];
			z[j] = z[j] / f->D[j] - acc;
		} else {
			for (int p = Lp[j]; p < Lp[j + 1]; p++)
				acc += f->Ux[p] * z[Li[p]];
			z[j] = (z[j] - acc) / f->D[j];
		}
	}
	for (int k = 0; k < n; k++) {
		xout[f->perm[k]] = z[k];
		z[k] = 0.0;
	}
}

void spf_solve_many(const struct spf *f, int nrhs, const double *b, double *xout, double *z)
{
	int n = f->n;
	size_t m = (size_t)nrhs;
	const int *Lp = f->Lp, *Li = f->Li;
	for (int k = 0; k < n; k++)
		memcpy(z + (size_t)k * m, b + (size_t)f->perm[k] * m, m * sizeof(double));
	for (int j = 0; j < n; j++) {	/* L z = b, a row of sides at a time */
		const double *zj = z + (size_t)j * m;
		for (int p = Lp[j]; p < Lp[j + 1]; p++)
			vec_axpy(m, -f->Lx[p], zj, z + (size_t)Li[p] * m);
	}
	for (int j = n - 1; j >= 0; j--) {	/* U x = z */
		double *zj = z + (size_t)j * m, d = 1.0 / f->D[j];
		const double *U = f->sym ? f->Lx : f->Ux;
		if (f->sym)	/* U(j, i) = D(j) L(i, j) */
			for (size_t c = 0; c < m; c++)
				zj[c] *= d;
		for (int p = Lp[j]; p < Lp[j + 1]; p++)
			vec_axpy(m, -U[p], z + (size_t)Li[p] * m, zj);
		if (!f->sym)
			for (size_t c = 0; c < m; c++)
				zj[c] *= d;
	}
	for (int k = 0; k < n; k++)
		memcpy(xout + (size_t)f->perm[k] * m, z + (size_t)k * m, m * sizeof(double));
}
