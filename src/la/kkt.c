/* kkt.c - saddle-point solvers (kkt.h). */
#include "kkt.h"
#include "../util/xalloc.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <umfpack.h>

void dgetrf_(const int *m, const int *n, double *a, const int *lda, int *ipiv, int *info);
void dgetrs_(const char *tr, const int *n, const int *nrhs, const double *a,
	     const int *lda, const int *ipiv, double *b, const int *ldb, int *info);

/* Above this many rows the Schur complement is kept sparse. */
#define KKT_DENSE_MAX 64

struct kkt {
	enum kkt_mode mode;
	int nb, nc, n;		/* n: order of the factored matrix */
	int *bi, *bj;
	double *Winv;		/* nb x 18 */
	double *Z;		/* nc x 12: W^-1 P^T by row */
	const double *jac;	/* borrowed from the last kkt_factor */
	/* dense */
	double *S;
	int *ipiv;
	/* sparse (S or full KKT) in CSC */
	int *Ap, *Ai;
	double *Ax;
	int nnz;
	int *map;		/* contribution -> position in Ax */
	int ncontrib;
	int *cb, *ck, *cl;	/* contribution: block, row k, row l (Schur) */
	void *Symbolic, *Numeric;
	double control[UMFPACK_CONTROL], info[UMFPACK_INFO];
	double *rhs, *sol, *tmp;
	int bad_row;
	char err[160];
};

const char *kkt_mode_name(enum kkt_mode m)
{
	static const char *const names[] = { "auto", "dense", "sparse", "umfpack" };
	return names[m];
}

enum kkt_mode kkt_mode_of(const struct kkt *k)
{
	return k->mode;
}

int kkt_bad_row(const struct kkt *k)
{
	return k->bad_row;
}

const char *kkt_error(const struct kkt *k)
{
	return k->err;
}

/* ---- sparse pattern helpers ---- */

struct trip {
	int i, j;
};

static int trip_cmp(const void *a, const void *b)
{
	const struct trip *x = a, *y = b;
	if (x->j != y->j)
		return x->j - y->j;
	return x->i - y->i;
}

/* Build CSC pattern from triplets (duplicates merged); map[t] = position. */
static void build_csc(struct kkt *k, struct trip *t, int nt)
{
	struct trip *s = xmalloc((size_t)(nt + 1) * sizeof(*s));
	int *order = xmalloc((size_t)(nt + 1) * sizeof(int));
	memcpy(s, t, (size_t)nt * sizeof(*s));
	qsort(s, (size_t)nt, sizeof(*s), trip_cmp);
	k->Ap = xcalloc((size_t)k->n + 1, sizeof(int));
	k->Ai = xmalloc((size_t)(nt + 1) * sizeof(int));
	int nnz = 0;
	for (int q = 0; q < nt; q++) {
		if (nnz > 0 && s[q].i == k->Ai[nnz - 1] && q > 0 && s[q].j == s[q - 1].j)
			continue;
		k->Ai[nnz++] = s[q].i;
		k->Ap[s[q].j + 1]++;
	}
	for (int j = 0; j < k->n; j++)
		k->Ap[j + 1] += k->Ap[j];
	k->nnz = nnz;
	k->Ax = xcalloc((size_t)nnz + 1, sizeof(double));
	k->map = xmalloc((size_t)(nt + 1) * sizeof(int));
	for (int q = 0; q < nt; q++) {
		int lo = k->Ap[t[q].j], hi = k->Ap[t[q].j + 1] - 1;
		while (lo < hi) {	/* binary search of row t[q].i */
			int mid = (lo + hi) / 2;
			if (k->Ai[mid] < t[q].i)
				lo = mid + 1;
			else
				hi = mid;
		}
		k->map[q] = lo;
	}
	free(order);
	free(s);
}

static int umf_symbolic(struct kkt *k)
{
	umfpack_di_defaults(k->control);
	k->control[UMFPACK_PRL] = 0;
	int st = umfpack_di_symbolic(k->n, k->n, k->Ap, k->Ai, k->Ax, &k->Symbolic,
				     k->control, k->info);
	if (st != UMFPACK_OK) {
		snprintf(k->err, sizeof k->err, "UMFPACK symbolic analysis failed (status %d)", st);
		return -2;
	}
	return 0;
}

/* Schur pattern: every pair of rows sharing a block. */
static void sparse_schur_pattern(struct kkt *k)
{
	int nb = k->nb, nc = k->nc;
	int *cnt = xcalloc((size_t)nb + 1, sizeof(int)), *start, *rows;
	for (int r = 0; r < nc; r++) {
		if (k->bi[r] >= 0)
			cnt[k->bi[r]]++;
		if (k->bj[r] >= 0)
			cnt[k->bj[r]]++;
	}
	start = xcalloc((size_t)nb + 1, sizeof(int));
	for (int b = 0; b < nb; b++)
		start[b + 1] = start[b] + cnt[b];
	rows = xmalloc((size_t)start[nb] * sizeof(int) + 1);
	memset(cnt, 0, (size_t)nb * sizeof(int));
	for (int r = 0; r < nc; r++) {
		if (k->bi[r] >= 0)
			rows[start[k->bi[r]] + cnt[k->bi[r]]++] = r;
		if (k->bj[r] >= 0 && k->bj[r] != k->bi[r])
			rows[start[k->bj[r]] + cnt[k->bj[r]]++] = r;
	}
	int nt = 0;
	for (int b = 0; b < nb; b++)
		nt += cnt[b] * cnt[b];
	nt += nc;	/* diagonal always present */
	struct trip *t = xmalloc((size_t)nt * sizeof(*t));
	k->cb = xmalloc((size_t)nt * sizeof(int));
	k->ck = xmalloc((size_t)nt * sizeof(int));
	k->cl = xmalloc((size_t)nt * sizeof(int));
	int q = 0;
	for (int b = 0; b < nb; b++)
		for (int x = 0; x < cnt[b]; x++)
			for (int y = 0; y < cnt[b]; y++) {
				t[q].i = rows[start[b] + x];
				t[q].j = rows[start[b] + y];
				k->cb[q] = b;
				k->ck[q] = t[q].i;
				k->cl[q] = t[q].j;
				q++;
			}
	k->ncontrib = q;
	for (int r = 0; r < nc; r++, q++) {
		t[q].i = t[q].j = r;
	}
	build_csc(k, t, q);
	free(t);
	free(cnt);
	free(start);
	free(rows);
}

/* Full KKT pattern: W blocks, P, P^T. Contributions are enumerated in the
 * same order by kkt_factor. */
static void full_pattern(struct kkt *k)
{
	int nb = k->nb, nc = k->nc, ng = 6 * nb;
	int nt = nb * 18 + nc * 24;
	struct trip *t = xmalloc((size_t)(nt + 1) * sizeof(*t));
	int q = 0;
	for (int b = 0; b < nb; b++)
		for (int blk = 0; blk < 2; blk++)
			for (int i = 0; i < 3; i++)
				for (int j = 0; j < 3; j++) {
					t[q].i = 6 * b + 3 * blk + i;
					t[q].j = 6 * b + 3 * blk + j;
					q++;
				}
	for (int r = 0; r < nc; r++)
		for (int side = 0; side < 2; side++) {
			int b = side ? k->bj[r] : k->bi[r];
			for (int c = 0; c < 6; c++) {
				int col = b >= 0 ? 6 * b + c : -1;
				/* P entry (ng + r, col) and P^T entry (col, ng + r);
				 * ground entries land on the diagonal of row ng + r
				 * with value 0 so the count stays fixed. */
				t[q].i = ng + r;
				t[q].j = col >= 0 ? col : ng + r;
				q++;
				t[q].i = col >= 0 ? col : ng + r;
				t[q].j = ng + r;
				q++;
			}
		}
	k->ncontrib = q;
	build_csc(k, t, q);
	free(t);
}

struct kkt *kkt_new(int nb, int nc, const int *bi, const int *bj, enum kkt_mode mode)
{
	struct kkt *k = xcalloc(1, sizeof(*k));
	if (mode == KKT_AUTO)
		mode = nc <= KKT_DENSE_MAX ? KKT_DENSE : KKT_SPARSE;
	k->mode = mode;
	k->nb = nb;
	k->nc = nc;
	k->bad_row = -1;
	k->bi = xmalloc(((size_t)nc + 1) * sizeof(int));
	k->bj = xmalloc(((size_t)nc + 1) * sizeof(int));
	memcpy(k->bi, bi, (size_t)nc * sizeof(int));
	memcpy(k->bj, bj, (size_t)nc * sizeof(int));
	k->Winv = xmalloc(((size_t)nb * 18 + 1) * sizeof(double));
	k->Z = xmalloc(((size_t)nc * 12 + 1) * sizeof(double));
	k->tmp = xmalloc(((size_t)6 * nb + nc + 1) * sizeof(double));
	k->rhs = xmalloc(((size_t)6 * nb + nc + 1) * sizeof(double));
	k->sol = xmalloc(((size_t)6 * nb + nc + 1) * sizeof(double));
	if (mode == KKT_DENSE) {
		k->n = nc;
		k->S = xmalloc(((size_t)nc * nc + 1) * sizeof(double));
		k->ipiv = xmalloc(((size_t)nc + 1) * sizeof(int));
	} else if (mode == KKT_SPARSE) {
		k->n = nc;
		sparse_schur_pattern(k);
	} else {
		k->n = 6 * nb + nc;
		full_pattern(k);
	}
	if (mode != KKT_DENSE && k->n > 0)
		umf_symbolic(k);
	return k;
}

void kkt_free(struct kkt **pk)
{
	struct kkt *k = *pk;
	if (!k)
		return;
	if (k->Numeric)
		umfpack_di_free_numeric(&k->Numeric);
	if (k->Symbolic)
		umfpack_di_free_symbolic(&k->Symbolic);
	free(k->bi);
	free(k->bj);
	free(k->Winv);
	free(k->Z);
	free(k->S);
	free(k->ipiv);
	free(k->Ap);
	free(k->Ai);
	free(k->Ax);
	free(k->map);
	free(k->cb);
	free(k->ck);
	free(k->cl);
	free(k->rhs);
	free(k->sol);
	free(k->tmp);
	free(k);
	*pk = NULL;
}

static int inv3(double *B, const double *A)
{
	double c0 = A[4] * A[8] - A[5] * A[7], c1 = A[5] * A[6] - A[3] * A[8],
	       c2 = A[3] * A[7] - A[4] * A[6];
	double det = A[0] * c0 + A[1] * c1 + A[2] * c2;
	if (det == 0.0 || !isfinite(det))
		return -1;
	double id = 1.0 / det;
	B[0] = c0 * id;
	B[1] = (A[2] * A[7] - A[1] * A[8]) * id;
	B[2] = (A[1] * A[5] - A[2] * A[4]) * id;
	B[3] = c1 * id;
	B[4] = (A[0] * A[8] - A[2] * A[6]) * id;
	B[5] = (A[2] * A[3] - A[0] * A[5]) * id;
	B[6] = c2 * id;
	B[7] = (A[1] * A[6] - A[0] * A[7]) * id;
	B[8] = (A[0] * A[4] - A[1] * A[3]) * id;
	return 0;
}

static inline void mv3(double *y, const double *M, const double *x)
{
	y[0] = M[0] * x[0] + M[1] * x[1] + M[2] * x[2];
	y[1] = M[3] * x[0] + M[4] * x[1] + M[5] * x[2];
	y[2] = M[6] * x[0] + M[7] * x[1] + M[8] * x[2];
}

/* y = W^-1 g for a generalized vector g */
static void winv_apply(const struct kkt *k, const double *g, double *y)
{
	for (int b = 0; b < k->nb; b++) {
		mv3(y + 6 * b, k->Winv + 18 * b, g + 6 * b);
		mv3(y + 6 * b + 3, k->Winv + 18 * b + 9, g + 6 * b + 3);
	}
}

/* Z_k = W^-1 P_k^T per row (12 values, block sides) */
static void form_z(struct kkt *k, const double *jac)
{
	for (int r = 0; r < k->nc; r++) {
		const double *J = jac + 12 * r;
		double *Zr = k->Z + 12 * r;
		int b[2] = { k->bi[r], k->bj[r] };
		for (int s = 0; s < 2; s++) {
			if (b[s] < 0) {
				memset(Zr + 6 * s, 0, 6 * sizeof(double));
				continue;
			}
			mv3(Zr + 6 * s, k->Winv + 18 * b[s], J + 6 * s);
			mv3(Zr + 6 * s + 3, k->Winv + 18 * b[s] + 9, J + 6 * s + 3);
		}
	}
}

/* (P_r restricted to block b) . (Z_l restricted to block b) */
static double pz(const struct kkt *k, const double *jac, int r, int l, int b)
{
	const double *J = jac + 12 * r, *Zl = k->Z + 12 * l;
	double acc = 0.0;
	for (int s = 0; s < 2; s++) {
		int br = s ? k->bj[r] : k->bi[r];
		if (br != b)
			continue;
		for (int t = 0; t < 2; t++) {
			int bl = t ? k->bj[l] : k->bi[l];
			if (bl != b)
				continue;
			for (int c = 0; c < 6; c++)
				acc += J[6 * s + c] * Zl[6 * t + c];
		}
	}
	return acc;
}

static int factor_dense(struct kkt *k, const double *jac)
{
	int n = k->nc, info = 0;
	for (int l = 0; l < n; l++)
		for (int r = 0; r < n; r++) {
			double acc = 0.0;
			int bl0 = k->bi[l], bl1 = k->bj[l];
			if (bl0 >= 0 && (bl0 == k->bi[r] || bl0 == k->bj[r]))
				acc += pz(k, jac, r, l, bl0);
			if (bl1 >= 0 && bl1 != bl0 && (bl1 == k->bi[r] || bl1 == k->bj[r]))
				acc += pz(k, jac, r, l, bl1);
			k->S[(size_t)l * n + r] = acc;	/* column-major */
		}
	double dmax = 0.0;
	for (int r = 0; r < n; r++)
		dmax = fmax(dmax, fabs(k->S[(size_t)r * n + r]));
	if (n > 0)
		dgetrf_(&n, &n, k->S, &n, k->ipiv, &info);
	if (info > 0) {
		k->bad_row = info - 1;
		snprintf(k->err, sizeof k->err, "constraint Jacobian is rank deficient (singular Schur complement)");
		return -1;
	}
	for (int r = 0; r < n; r++)
		if (fabs(k->S[(size_t)r * n + r]) < 1e-13 * dmax) {
			k->bad_row = r;
			snprintf(k->err, sizeof k->err, "constraint Jacobian is rank deficient (pivot %.2g)",
				 fabs(k->S[(size_t)r * n + r]) / dmax);
			return -1;
		}
	return 0;
}

static int umf_numeric(struct kkt *k)
{
	if (k->Numeric)
		umfpack_di_free_numeric(&k->Numeric);
	int st = umfpack_di_numeric(k->Ap, k->Ai, k->Ax, k->Symbolic, &k->Numeric,
				    k->control, k->info);
	if (st == UMFPACK_WARNING_singular_matrix) {
		snprintf(k->err, sizeof k->err, "constraint Jacobian is rank deficient (UMFPACK: singular matrix)");
		return -1;
	}
	if (st != UMFPACK_OK) {
		snprintf(k->err, sizeof k->err, "UMFPACK numeric factorization failed (status %d)", st);
		return -2;
	}
	return 0;
}

static int factor_sparse(struct kkt *k, const double *jac)
{
	memset(k->Ax, 0, (size_t)k->nnz * sizeof(double));
	for (int q = 0; q < k->ncontrib; q++)
		k->Ax[k->map[q]] += pz(k, jac, k->ck[q], k->cl[q], k->cb[q]);
	return umf_numeric(k);
}

static int factor_full(struct kkt *k, const double *W, const double *jac)
{
	int q = 0;
	memset(k->Ax, 0, (size_t)k->nnz * sizeof(double));
	for (int b = 0; b < k->nb; b++)
		for (int e = 0; e < 18; e++)
			k->Ax[k->map[q++]] += W[18 * b + e];
	for (int r = 0; r < k->nc; r++)
		for (int side = 0; side < 2; side++) {
			int b = side ? k->bj[r] : k->bi[r];
			for (int c = 0; c < 6; c++) {
				double v = b >= 0 ? jac[12 * r + 6 * side + c] : 0.0;
				k->Ax[k->map[q++]] += v;
				k->Ax[k->map[q++]] += v;
			}
		}
	return umf_numeric(k);
}

int kkt_factor(struct kkt *k, const double *W, const double *jac)
{
	k->bad_row = -1;
	k->err[0] = 0;
	for (int b = 0; b < k->nb; b++)
		if (inv3(k->Winv + 18 * b, W + 18 * b) ||
		    inv3(k->Winv + 18 * b + 9, W + 18 * b + 9)) {
			snprintf(k->err, sizeof k->err, "singular mass block of body %d", b);
			return -2;
		}
	k->jac = jac;
	if (k->mode == KKT_FULL)
		return factor_full(k, W, jac);
	form_z(k, jac);
	return k->mode == KKT_DENSE ? factor_dense(k, jac) : factor_sparse(k, jac);
}

int kkt_solve(struct kkt *k, const double *a, const double *b, double *x, double *y)
{
	int nb = k->nb, nc = k->nc, ng = 6 * nb;
	if (k->mode == KKT_FULL) {
		memcpy(k->rhs, a, (size_t)ng * sizeof(double));
		memcpy(k->rhs + ng, b, (size_t)nc * sizeof(double));
		int st = umfpack_di_solve(UMFPACK_A, k->Ap, k->Ai, k->Ax, k->sol, k->rhs,
					  k->Numeric, k->control, k->info);
		if (st != UMFPACK_OK)
			return -2;
		memcpy(x, k->sol, (size_t)ng * sizeof(double));
		memcpy(y, k->sol + ng, (size_t)nc * sizeof(double));
		return 0;
	}
	/* y = S^-1 (P W^-1 a - b);  x = W^-1 (a - P^T y) */
	const double *jac = k->jac;
	double *wa = k->tmp;
	winv_apply(k, a, wa);
	for (int r = 0; r < nc; r++) {
		const double *J = jac + 12 * r;
		double acc = -b[r];
		if (k->bi[r] >= 0)
			for (int c = 0; c < 6; c++)
				acc += J[c] * wa[6 * k->bi[r] + c];
		if (k->bj[r] >= 0)
			for (int c = 0; c < 6; c++)
				acc += J[6 + c] * wa[6 * k->bj[r] + c];
		k->rhs[r] = acc;
	}
	if (nc > 0) {
		if (k->mode == KKT_DENSE) {
			int one = 1, info = 0;
			memcpy(y, k->rhs, (size_t)nc * sizeof(double));
			dgetrs_("N", &nc, &one, k->S, &nc, k->ipiv, y, &nc, &info);
		} else {
			int st = umfpack_di_solve(UMFPACK_A, k->Ap, k->Ai, k->Ax, y, k->rhs,
						  k->Numeric, k->control, k->info);
			if (st != UMFPACK_OK)
				return -2;
		}
	}
	/* x = W^-1 a - Z y */
	memcpy(x, wa, (size_t)ng * sizeof(double));
	for (int r = 0; r < nc; r++) {
		const double *Zr = k->Z + 12 * r;
		if (k->bi[r] >= 0)
			for (int c = 0; c < 6; c++)
				x[6 * k->bi[r] + c] -= Zr[c] * y[r];
		if (k->bj[r] >= 0)
			for (int c = 0; c < 6; c++)
				x[6 * k->bj[r] + c] -= Zr[6 + c] * y[r];
	}
	return 0;
}
