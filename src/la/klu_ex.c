/* klu_ex.c - triangular solves with a KLU factorization copied out (klu_ex.h). */
#include "klu_ex.h"
#include "klu_refac.h"
#include "../util/xalloc.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static void grow(struct la_klu_ex *ex, int n, int lnz, int unz)
{
	if (ex->n != n) {
		free(ex->Lp);
		free(ex->Up);
		free(ex->P);
		free(ex->Q);
		free(ex->Pinv);
		free(ex->Rs);
		free(ex->w);
		ex->Lp = xmalloc(((size_t)n + 1) * sizeof(int));
		ex->Up = xmalloc(((size_t)n + 1) * sizeof(int));
		ex->P = xmalloc(((size_t)n + 1) * sizeof(int));
		ex->Q = xmalloc(((size_t)n + 1) * sizeof(int));
		ex->Pinv = xmalloc(((size_t)n + 1) * sizeof(int));
		ex->R = xrealloc(ex->R, ((size_t)n + 2) * sizeof(int));
		ex->Rs = xmalloc(((size_t)n + 1) * sizeof(double));
		ex->w = xmalloc(((size_t)n + 1) * sizeof(double));
		ex->n = n;
	}
	if (lnz > ex->cap_l) {
		ex->Li = xrealloc(ex->Li, (size_t)lnz * sizeof(int));
		ex->Lx = xrealloc(ex->Lx, (size_t)lnz * sizeof(double));
		ex->cap_l = lnz;
	}
	if (unz > ex->cap_u) {
		ex->Ui = xrealloc(ex->Ui, (size_t)unz * sizeof(int));
		ex->Ux = xrealloc(ex->Ux, (size_t)unz * sizeof(double));
		ex->cap_u = unz;
	}
}

int la_klu_ex_load(struct la_klu_ex *ex, klu_symbolic *sym, klu_numeric *num, klu_common *kc)
{
	ex->ok = 0;
	if (!sym || !num || sym->nblocks != 1 || num->nzoff != 0)
		return -1;
	int n = sym->n;
	grow(ex, n, num->lnz, num->unz);
	if (!klu_extract(num, sym, ex->Lp, ex->Li, ex->Lx, ex->Up, ex->Ui, ex->Ux, NULL, NULL, NULL,
			 ex->P, ex->Q, ex->Rs, ex->R, kc))
		return -1;
	/* klu_extract puts L's unit diagonal first in each column and U's
	 * diagonal last (checked here: a KLU that did otherwise falls back) */
	for (int j = 0; j < n; j++)
		if (ex->Lp[j] >= ex->Lp[j + 1] || ex->Li[ex->Lp[j]] != j ||
		    ex->Up[j] >= ex->Up[j + 1] || ex->Ui[ex->Up[j + 1] - 1] != j ||
		    ex->Ux[ex->Up[j + 1] - 1] == 0.0)
			return -1;
	/* U's columns in ascending rows (insertion sort: short columns),
	 * the order la_klu_ex_refactor eliminates in; the diagonal, the
	 * largest row, stays last */
	for (int j = 0; j < n; j++)
		for (int p = ex->Up[j] + 1; p < ex->Up[j + 1]; p++) {
			int i = ex->Ui[p], q = p;
			double x = ex->Ux[p];
			for (; q > ex->Up[j] && ex->Ui[q - 1] > i; q--) {
				ex->Ui[q] = ex->Ui[q - 1];
				ex->Ux[q] = ex->Ux[q - 1];
			}
			ex->Ui[q] = i;
			ex->Ux[q] = x;
		}
	for (int k = 0; k < n; k++)
		ex->Pinv[ex->P[k]] = k;
	ex->ok = 1;
	return 0;
}

int la_klu_ex_refactor(struct la_klu_ex *ex, const int *Ap, const int *Ai, const double *Ax)
{
	int n = ex->n;
	double *restrict w = ex->w, *restrict Lx = ex->Lx, *restrict Ux = ex->Ux;
	const int *restrict Lp = ex->Lp, *restrict Li = ex->Li;
	const int *restrict Up = ex->Up, *restrict Ui = ex->Ui;
	double dmin = INFINITY, dmax = 0.0;
	if (!ex->ok)
		return -1;
	memset(w, 0, (size_t)n * sizeof(double));	/* the solves' scratch */
	for (int j = 0; j < n; j++) {
		int c = ex->Q[j];
		for (int p = Ap[c]; p < Ap[c + 1]; p++) {	/* w = column, scaled */
			int k = ex->Pinv[Ai[p]];
			w[k] = Ax[p] / ex->Rs[k];
		}
		int d = Up[j + 1] - 1;
		for (int p = Up[j]; p < d; p++) {	/* U(:, j) = L^-1 w, ascending */
			int k = Ui[p];
			double u = w[k];
			w[k] = 0.0;
			Ux[p] = u;
			if (u != 0.0)
				for (int q = Lp[k] + 1; q < Lp[k + 1]; q++)
					w[Li[q]] -= Lx[q] * u;
		}
		double piv = w[j];
		w[j] = 0.0;
		Ux[d] = piv;
		dmin = fmin(dmin, fabs(piv));
		dmax = fmax(dmax, fabs(piv));
		if (!(piv != 0.0) || !isfinite(piv))
			break;
		for (int q = Lp[j] + 1; q < Lp[j + 1]; q++) {
			Lx[q] = w[Li[q]] / piv;
			w[Li[q]] = 0.0;
		}
	}
	if (!(dmin > LA_KLU_RCOND * dmax)) {	/* also NaN, and a break above */
		ex->ok = 0;
		return -1;
	}
	return 0;
}

void la_klu_ex_solve(const struct la_klu_ex *ex, double *b)
{
	int n = ex->n;
	double *restrict w = ex->w;
	const int *restrict Lp = ex->Lp, *restrict Li = ex->Li;
	const int *restrict Up = ex->Up, *restrict Ui = ex->Ui;
	const double *restrict Lx = ex->Lx, *restrict Ux = ex->Ux;
	for (int k = 0; k < n; k++)	/* Rs in pivot order (klu_ex.h) */
		w[k] = b[ex->P[k]] / ex->Rs[k];
	for (int j = 0; j < n; j++) {	/* L by columns, its unit diagonal first */
		double x = w[j];
		if (x != 0.0)
			for (int p = Lp[j] + 1; p < Lp[j + 1]; p++)
				w[Li[p]] -= Lx[p] * x;
	}
	for (int j = n - 1; j >= 0; j--) {	/* U by columns, its diagonal last */
		int d = Up[j + 1] - 1;
		double x = w[j] /= Ux[d];
		if (x != 0.0)
			for (int p = Up[j]; p < d; p++)
				w[Ui[p]] -= Ux[p] * x;
	}
	for (int k = 0; k < n; k++)
		b[ex->Q[k]] = w[k];
}

void la_klu_ex_free(struct la_klu_ex *ex)
{
	free(ex->Lp);
	free(ex->Li);
	free(ex->Lx);
	free(ex->Up);
	free(ex->Ui);
	free(ex->Ux);
	free(ex->P);
	free(ex->Q);
	free(ex->Pinv);
	free(ex->R);
	free(ex->Rs);
	free(ex->w);
	memset(ex, 0, sizeof *ex);
}
