/* kkt_schur.c - the saddle-point solvers' Schur-complement paths
 * (kkt.h): S = P W^-1 P^T formed and factored dense (Cholesky or LU) or
 * sparse (spf, UMFPACK as fallback), and the solves of every path.
 *
 * Both Schur paths work from one structure fixed at kkt_new: for each body
 * block b the list of constraint rows touching it (an "entry" e = (b, row),
 * rows ascending).  At kkt_factor each entry gets P_e, the row's 6 values on
 * block b (both sides summed when a row touches b twice); with
 * Z_e = W_b^-1 P_e^T,
 *   S = P W^-1 P^T,   S(r, l) = sum over blocks b of P_{b,r} . Z_{b,l},
 * a sum over the pairs of entries of each block's list; rows that share no
 * block give an exact zero and are never visited.  Z_e is not stored: it
 * is remade from W_b^-1 and P_e where it is used (the same products, so
 * the same values), a block's entries at a time into a scratch of the
 * longest list; stored it would be 48 bytes an entry, a quarter of the
 * solver's memory on a model of one-body joints.
 *
 * Dense path (n <= KKT_DENSE_MAX, or n <= KKT_FILL_MAX with a sparse factor
 * KKT_FILL full: kkt.c): when every W block is symmetric, W^-1 is
 * (inv3 of a symmetric 3x3 is exactly symmetric) and S is symmetric
 * positive semidefinite: only the lower triangle is formed and factored by
 * Cholesky.  Otherwise the whole S is formed and factored by LU, without
 * pivoting in S's envelope first (lu_env_factor), with partial pivoting
 * when that meets a pivot not positive.  The kernels are written out here
 * rather than called from
 * LAPACK: at n ~ 20 the call overhead and unblocked reference paths of
 * dpotrf/dgetrf (dot, axpy, idamax, trsv per column) cost more than the
 * arithmetic, as SUNDIALS notes for its own small dense kernels
 * (sundials_dense.c).  The pivots' reciprocals are kept, so that the
 * solves multiply: a chain of dependent divisions was half the time of a
 * solve at n = 18.  A pivot below KKT_PIVOT_TOL times the largest
 * diagonal entry of S marks the row as linearly dependent on the rows
 * before it (rank deficiency); kkt_bad_row reports that row.
 */
#include "kkt_impl.h"
#include "../util/vec.h"
#include "../util/xalloc.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Relative pivot below which S is taken as singular. */
#define KKT_PIVOT_TOL 1e-13
/* Pivot of the sparse elimination without pivoting, relative to its
 * diagonal entry, below which UMFPACK takes over: far above round-off
 * (so a rank-deficient S always goes to UMFPACK, which says so), far
 * below the pivots of the well-posed Schur complements seen in practice
 * (a chain's S: about 1/k at step k). */
#define KKT_SPF_TOL 1e-8

/* Sums in index order (so the value is that of the plain loop), unrolled
 * by hand: at -O2 the loop overhead would be half the instructions. */
static inline double dot(const double *a, const double *b, int n)
{
	double acc = 0.0;
	int i = 0;
	for (; i + 4 <= n; i += 4)
		acc = acc + a[i] * b[i] + a[i + 1] * b[i + 1] + a[i + 2] * b[i + 2] +
		      a[i + 3] * b[i + 3];
	switch (n - i) {	/* the rest in order, without a loop's overhead */
	case 3:
		return acc + a[i] * b[i] + a[i + 1] * b[i + 1] + a[i + 2] * b[i + 2];
	case 2:
		return acc + a[i] * b[i] + a[i + 1] * b[i + 1];
	case 1:
		return acc + a[i] * b[i];
	default:
		return acc;
	}
}

static inline double dot6(const double *a, const double *b)
{
	return a[0] * b[0] + a[1] * b[1] + a[2] * b[2] + a[3] * b[3] + a[4] * b[4] +
	       a[5] * b[5];
}

static inline void axpy6_neg(double *y, double s, const double *x)
{
	y[0] -= s * x[0];
	y[1] -= s * x[1];
	y[2] -= s * x[2];
	y[3] -= s * x[3];
	y[4] -= s * x[4];
	y[5] -= s * x[5];
}

static inline int sym3(const double *M)
{
	return M[1] == M[3] && M[2] == M[6] && M[5] == M[7];
}

/* every W block exactly symmetric (then so is W^-1, and S) */
static int w_symmetric(const struct kkt *k, const double *W)
{
	for (int b = 0; b < k->nb; b++)
		if (!sym3(W + 18 * b) || !sym3(W + 18 * b + 9))
			return 0;
	return 1;
}

/* P_e for every entry */
void kkt_form_p(struct kkt *k, const double *jac)
{
	for (int b = 0; b < k->nb; b++)
		for (int e = k->estart[b]; e < k->estart[b + 1]; e++) {
			int r = k->erow[e];
			long o = row_at(k, r);
			double *P = k->P + 6 * e;
			if (k->ndrop && k->drop[r])
				memset(P, 0, 6 * sizeof(double));
			else if (k->bi[r] == b && k->bj[r] == b)	/* both sides */
				for (int c = 0; c < 6; c++)
					P[c] = jac[o + c] + jac[o + 6 + c];
			else
				memcpy(P, jac + (o + (k->bi[r] == b ? 0 : 6)), 6 * sizeof(double));
		}
}

/* Z_e = W_b^-1 P_e^T */
static inline void form_z(const struct kkt *k, int b, int e, double *Z)
{
	const double *Wi = k->Winv + 18 * b, *P = k->P + 6 * e;
	m3_mulv(Z, Wi, P);
	m3_mulv(Z + 3, Wi + 9, P + 3);
}

/* Z_e of block b's entries, in list order, at the returned address: the
 * scratch k->Zb, or (dense) the block's part of every entry's Z, which
 * the solves then read instead of making it again (the same values: the
 * same products of the same P_e and W_b^-1) */
static double *block_z(struct kkt *k, int b)
{
	double *Zb = k->Zb + (k->zall ? 6 * k->estart[b] : 0);
	for (int e = k->estart[b]; e < k->estart[b + 1]; e++)
		form_z(k, b, e, Zb + 6 * (e - k->estart[b]));
	return Zb;
}

/* S(r, l) = sum over blocks of P_r . Z_l, row-major.  lower: only the
 * envelope of the lower triangle, first[r] <= l <= r (nothing else is read). */
static void form_schur(struct kkt *k, int lower)
{
	int n = k->nc;
	/* row by row: short memsets are a few vector stores, a long one is
	 * a string instruction */
	for (int r = 0; r < n; r++) {
		int f = lower ? k->first[r] : 0, e = lower ? r + 1 : n;
		memset(k->S + (size_t)r * n + f, 0, (size_t)(e - f) * sizeof(double));
	}
	for (int b = 0; b < k->nb; b++) {
		int e0 = k->estart[b], e1 = k->estart[b + 1];
		const double *Zb = block_z(k, b);
		const int *row = k->erow + e0;
		for (int x = e0; x < e1; x++) {
			/* a dropped row's P_e and Z_e are zero: its terms would
			 * add zeros (dense_drop_diag sets its diagonal) */
			if (k->ndrop && k->drop[k->erow[x]])
				continue;
			const double *Px = k->P + 6 * x;
			double *Sr = k->S + (size_t)k->erow[x] * n;
			int m = (lower ? x + 1 : e1) - e0;	/* rows ascending in a list */
			if (!k->ndrop)	/* the common case, without the test in the loop */
				for (int y = 0; y < m; y++)
					Sr[row[y]] += dot6(Px, Zb + 6 * y);
			else
				for (int y = 0; y < m; y++)
					if (!k->drop[row[y]])
						Sr[row[y]] += dot6(Px, Zb + 6 * y);
		}
	}
}

static double diag_max(const double *S, int n)
{
	double dmax = 0.0;
	for (int r = 0; r < n; r++) {	/* fmax's value (no NaN in dmax), without its call */
		double a = fabs(S[(size_t)r * n + r]);
		dmax = a > dmax ? a : dmax;
	}
	return dmax;
}

static int rank_deficient(struct kkt *k, int row, double piv, double dmax)
{
	k->bad_row = row;
	snprintf(k->err, sizeof k->err,
		 "constraint Jacobian is rank deficient (relative pivot %.2g at row %d)",
		 dmax > 0 ? fabs(piv) / dmax : 0.0, row);
	return -1;
}

/* In-place Cholesky S = L L^T of the lower triangle (row-major).  Pivot d_j
 * (before the square root) below tol: row j depends on rows 0..j-1.
 * Returns 0, -1 (singular, row reported), or 1 when a pivot is clearly
 * negative: S is not positive semidefinite, use LU instead.
 * L keeps the envelope of S (L(i, j) = 0 for j < first[i], by induction
 * on j), so every sum starts at the later of the two rows' first columns;
 * the terms left out are exact zeros, the result is that of the full loop. */
static int chol_factor(struct kkt *k, double tol, double dmax)
{
	int n = k->nc;
	const int *first = k->first;
	double *S = k->S;
	for (int j = 0; j < n; j++) {
		double *Lj = S + (size_t)j * n;
		int fj = first[j];
		double d = Lj[j] - dot(Lj + fj, Lj + fj, j - fj);
		if (!(d > tol))
			return d < -tol ? 1 : rank_deficient(k, j, d, dmax);
		double ljj = sqrt(d), r = 1.0 / ljj;
		Lj[j] = ljj;
		k->dinv[j] = r;
		for (int p = k->cstart[j]; p < k->cstart[j + 1]; p++) {	/* first[i] <= j < i */
			int i = k->crow[p];
			double *Li = S + (size_t)i * n;
			int f = first[i] > fj ? first[i] : fj;
			Li[j] = (Li[j] - dot(Li + f, Lj + f, j - f)) * r;
		}
	}
	return 0;
}

static void chol_solve(const struct kkt *k, double *y)
{
	int n = k->nc;
	const int *first = k->first;
	const double *S = k->S;
	for (int i = 0; i < n; i++) {	/* L z = y */
		const double *Li = S + (size_t)i * n;
		int f = first[i];
		y[i] = (y[i] - dot(Li + f, y + f, i - f)) * k->dinv[i];
	}
	for (int i = n - 1; i >= 0; i--) {	/* L^T y = z, by columns of L^T */
		const double *Li = S + (size_t)i * n;
		int f = first[i];
		y[i] *= k->dinv[i];
		vec_axpy((size_t)(i - f), -y[i], Li + f, y + f);
	}
}

/* In-place LU with partial pivoting, row-major (unit L below, U on and
 * above the diagonal), row swaps in ipiv as LAPACK does.  A pivot below
 * tol at step j: column j of S depends on columns 0..j-1, and since S has
 * the pattern of P W^-1 P^T, constraint row j on the rows before it. */
static int lu_factor(struct kkt *k, double tol, double dmax)
{
	int n = k->nc;
	double *S = k->S;
	for (int j = 0; j < n; j++) {
		int p = j;
		double amax = fabs(S[(size_t)j * n + j]);
		for (int i = j + 1; i < n; i++)
			if (fabs(S[(size_t)i * n + j]) > amax) {
				amax = fabs(S[(size_t)i * n + j]);
				p = i;
			}
		k->ipiv[j] = p;
		if (!(amax > tol))
			return rank_deficient(k, j, amax, dmax);
		double *Uj = S + (size_t)j * n;
		if (p != j) {
			double *Sp = S + (size_t)p * n;
			for (int c = 0; c < n; c++) {
				double t = Uj[c];
				Uj[c] = Sp[c];
				Sp[c] = t;
			}
		}
		double r = 1.0 / Uj[j];
		k->dinv[j] = r;
		for (int i = j + 1; i < n; i++) {
			double *Si = S + (size_t)i * n;
			if (Si[j] == 0.0)	/* S is sparse: rows sharing no body */
				continue;
			double l = Si[j] * r;
			Si[j] = l;
			vec_axpy((size_t)(n - j - 1), -l, Uj + j + 1, Si + j + 1);
		}
	}
	return 0;
}

/* In-place LU without pivoting, in the envelope (unit L below, U on and
 * above the diagonal), right-looking (row j, once its pivot is known, is
 * subtracted from every later row it meets: a contiguous update that the
 * compiler vectorizes), for a non-symmetric S
 * (W has the gyroscopic terms w~ J - (J w)~, not symmetric) whose
 * symmetric part is positive definite: P sym(W^-1) P^T, with sym(W)
 * definite, which kkt_rank.c's fallback takes to hold for every
 * iteration matrix of mbsim (the mass blocks dominate).  Such a matrix
 * has an LU factorization without pivoting whose pivots are positive,
 * those of its Schur complements, and which is stable while the skew part
 * is small against the symmetric one (Golub and Van Loan, Matrix
 * Computations, §4.2 on unsymmetric positive definite systems; here the
 * skew part is of relative size h |w|, the rotation of a step).  Without
 * row swaps L and U keep the envelope of S, as Cholesky does: on the
 * double four-bar (n = 35) about half the instructions of the pivoted
 * LU.  Pivot d_j not above tol (a negative one: the symmetric part is not
 * definite; a small one: row j nearly dependent on the rows before it):
 * returns 1 and the pivoted LU decides, as before this path existed; the
 * smallest relative pivot d_j / S(j, j) is then that of Cholesky's
 * (kkt_rank.c's dense_min_pivot reads it). */
static int lu_env_factor(struct kkt *k, double tol)
{
	int n = k->nc;
	const int *last = k->last;
	double *S = k->S;
	for (int j = 0; j < n; j++) {
		double *Uj = S + (size_t)j * n;
		double d = Uj[j];
		if (!(d > tol))
			return 1;
		double r = 1.0 / d;
		int e = last[j];
		k->dinv[j] = r;
		for (int i = j + 1; i <= e; i++) {
			double *Si = S + (size_t)i * n;
			if (Si[j] == 0.0)	/* rows sharing no body */
				continue;
			double l = Si[j] * r;
			Si[j] = l;
			vec_axpy((size_t)(e - j), -l, Uj + j + 1, Si + j + 1);
		}
	}
	return 0;
}

static void lu_solve(const struct kkt *k, double *y)
{
	int n = k->nc;
	const double *S = k->S;
	if (k->lu_env) {
		const int *first = k->first, *last = k->last;
		for (int i = 1; i < n; i++)
			y[i] -= dot(S + (size_t)i * n + first[i], y + first[i], i - first[i]);
		for (int i = n - 1; i >= 0; i--) {
			const double *Ui = S + (size_t)i * n;
			y[i] = (y[i] - dot(Ui + i + 1, y + i + 1, last[i] - i)) * k->dinv[i];
		}
		return;
	}
	for (int j = 0; j < n; j++)
		if (k->ipiv[j] != j) {
			double t = y[j];
			y[j] = y[k->ipiv[j]];
			y[k->ipiv[j]] = t;
		}
	for (int i = 1; i < n; i++)
		y[i] -= dot(S + (size_t)i * n, y, i);
	for (int i = n - 1; i >= 0; i--) {
		const double *Ui = S + (size_t)i * n;
		y[i] = (y[i] - dot(Ui + i + 1, y + i + 1, n - i - 1)) * k->dinv[i];
	}
}

/* A dropped row r has P_r = 0, so row and column r of S are zero: give
 * it the diagonal c (the largest diagonal entry of the others, so that
 * neither the pivot tolerances nor the scaling of S change), which
 * decouples it: y_r = rhs_r / c = 0 once kkt_solve zeroes rhs_r. */
static void dense_drop_diag(struct kkt *k)
{
	int n = k->nc;
	double c = diag_max(k->S, n);
	for (int r = 0; r < n; r++)
		if (k->drop[r])
			k->S[(size_t)r * n + r] = c > 0.0 ? c : 1.0;
}

void kkt_form_dense(struct kkt *k, int lower)
{
	form_schur(k, lower);
	if (k->ndrop)
		dense_drop_diag(k);
}

static int factor_dense(struct kkt *k, const double *W)
{
	int n = k->nc;
	k->chol = w_symmetric(k, W);
	k->lu_env = 0;
	kkt_form_dense(k, k->chol);
	double dmax = diag_max(k->S, n), tol = KKT_PIVOT_TOL * dmax;
	if (k->nred)	/* for dense_min_pivot */
		for (int r = 0; r < n; r++)
			k->sd[r] = k->S[(size_t)r * n + r];
	if (k->chol) {
		int rc = chol_factor(k, tol, dmax);
		if (rc <= 0)
			return rc;
		/* indefinite although symmetric (a W block not positive
		 * definite): the LU below still solves it */
		k->chol = 0;
		kkt_form_dense(k, 0);
	} else {
		if (lu_env_factor(k, tol) == 0) {
			k->lu_env = 1;
			return 0;
		}
		kkt_form_dense(k, 0);	/* lu_env_factor overwrote S */
	}
	return lu_factor(k, tol, dmax);
}

int kkt_factor_lu(struct kkt *k)
{
	kkt_form_dense(k, 0);
	double dmax = diag_max(k->S, k->nc);
	k->chol = 0;
	k->lu_env = 0;
	return lu_factor(k, KKT_PIVOT_TOL * dmax, dmax);
}

/* position of S(r, r) in Ax */
static int sparse_diag(const struct kkt *k, int r)
{
	int p = k->Ap[r];
	while (k->Ai[p] != r)
		p++;
	return p;
}

/* the sparse Schur complement in Ax, dropped rows decoupled as in
 * dense_drop_diag */
static void form_sparse(struct kkt *k)
{
	memset(k->Ax, 0, (size_t)k->nnz * sizeof(double));
	/* S(r, l) += P_x . Z_y for the entries x, y of each block b, blocks
	 * ascending: every position sums its terms in block order.  Column l
	 * = erow[y] holds the rows erow[x] (ascending with x) in ascending
	 * order, so one forward walk of the column finds them all. */
	for (int b = 0; b < k->nb; b++) {
		int e0 = k->estart[b], e1 = k->estart[b + 1];
		const double *Zb = block_z(k, b);
		for (int y = e0; y < e1; y++) {
			const double *Z = Zb + 6 * (y - e0);
			int p = k->Ap[k->erow[y]];
			for (int x = e0; x < e1; x++) {
				while (k->Ai[p] != k->erow[x])
					p++;
				k->Ax[p] += dot6(k->P + 6 * x, Z);
			}
		}
	}
	if (!k->ndrop)
		return;
	double c = 0.0;
	for (int r = 0; r < k->nc; r++)
		c = fmax(c, fabs(k->Ax[sparse_diag(k, r)]));
	for (int r = 0; r < k->nc; r++)
		if (k->drop[r])
			k->Ax[sparse_diag(k, r)] = c > 0.0 ? c : 1.0;
}

/* Sparse Schur complement by elimination without pivoting (spf): 0, or
 * -1 when a pivot comes close to zero (relative to its diagonal entry). */
static int factor_spf(struct kkt *k, const double *W)
{
	form_sparse(k);
	k->use_spf = k->spf && spf_factor(k->spf, k->Ax, w_symmetric(k, W), KKT_SPF_TOL) == 0;
	return k->use_spf ? 0 : -1;
}

int kkt_factor_try(struct kkt *k, const double *W)
{
	return k->mode == KKT_DENSE ? factor_dense(k, W) : factor_spf(k, W);
}

int kkt_solve(struct kkt *k, const double *a, const double *b, double *x, double *y)
{
	int nb = k->nb, nc = k->nc, ng = 6 * nb;
	if (k->mode == KKT_FULL) {
		if (a)
			memcpy(k->rhs, a, (size_t)ng * sizeof(double));
		else
			memset(k->rhs, 0, (size_t)ng * sizeof(double));
		memcpy(k->rhs + ng, b, (size_t)nc * sizeof(double));
		if (k->np > 0) {
			if (k->kex.ok)
				la_klu_ex_solve(&k->kex, k->rhs);
			else if (!k->knum || !klu_solve(k->ksym, k->knum, k->n, 1, k->rhs, &k->kc))
				return -2;
			memcpy(x, k->rhs, (size_t)ng * sizeof(double));
			memcpy(y, k->rhs + ng, (size_t)nc * sizeof(double));
			return 0;
		}
		int st = umfpack_di_solve(UMFPACK_A, k->Ap, k->Ai, k->Ax, k->sol, k->rhs,
					  k->Numeric, k->control, k->info);
		if (st != UMFPACK_OK)
			return -2;
		memcpy(x, k->sol, (size_t)ng * sizeof(double));
		memcpy(y, k->sol + ng, (size_t)nc * sizeof(double));
		return 0;
	}
	/* y = S^-1 (P W^-1 a - b);  x = W^-1 a - Z y, with x holding W^-1 a
	 * meanwhile.  P is the one factored (P_e of the entries): a modified
	 * Newton method that refactors now and then must solve with one
	 * matrix, not the caller's newer Jacobian against an older S.  The
	 * dense right side is built in y and solved in place (y may alias b:
	 * every b[r] is read before anything is added to y); so is spf's, whose
	 * solve copies its right side first. */
	double *rhs = k->mode == KKT_DENSE || k->use_spf ? y : k->rhs;
	for (int r = 0; r < nc; r++)
		rhs[r] = k->ndrop && k->drop[r] ? 0.0 : -b[r];
	if (!a)		/* the constraint-only solves of Newton: x = -Z y */
		memset(x, 0, (size_t)ng * sizeof(double));
	for (int q = 0; a && q < nb; q++) {
		double *xq = x + 6 * q;
		m3_mulv(xq, k->Winv + 18 * q, a + 6 * q);
		m3_mulv(xq + 3, k->Winv + 18 * q + 9, a + 6 * q + 3);
		for (int e = k->estart[q]; e < k->estart[q + 1]; e++)
			rhs[k->erow[e]] += dot6(k->P + 6 * e, xq);
	}
	if (k->mode == KKT_DENSE) {
		if (k->chol)
			chol_solve(k, y);
		else
			lu_solve(k, y);
	} else if (k->use_spf) {
		spf_solve(k->spf, rhs, y);
	} else if (nc > 0) {
		int st = umfpack_di_solve(UMFPACK_A, k->Ap, k->Ai, k->Ax, y, rhs,
					  k->Numeric, k->control, k->info);
		if (st != UMFPACK_OK)
			return -2;
	}
	for (int q = 0; q < nb; q++) {
		double *xq = x + 6 * q;
		for (int e = k->estart[q]; e < k->estart[q + 1]; e++) {
			double Zs[6];
			const double *Z = k->zall ? k->Zb + 6 * e : Zs;
			if (!k->zall)
				form_z(k, q, e, Zs);
			axpy6_neg(xq, y[k->erow[e]], Z);
		}
	}
	return 0;
}

/* chol_solve on rows of m sides */
static void chol_solve_many(const struct kkt *k, size_t m, double *y)
{
	int n = k->nc;
	const double *S = k->S;
	for (int i = 0; i < n; i++) {	/* L z = y */
		const double *Li = S + (size_t)i * n;
		double *yi = y + (size_t)i * m;
		for (int l = k->first[i]; l < i; l++)
			vec_axpy(m, -Li[l], y + (size_t)l * m, yi);
		for (size_t c = 0; c < m; c++)
			yi[c] *= k->dinv[i];
	}
	for (int i = n - 1; i >= 0; i--) {	/* L^T y = z */
		const double *Li = S + (size_t)i * n;
		double *yi = y + (size_t)i * m;
		for (size_t c = 0; c < m; c++)
			yi[c] *= k->dinv[i];
		for (int l = k->first[i]; l < i; l++)
			vec_axpy(m, -Li[l], yi, y + (size_t)l * m);
	}
}

int kkt_solve_many(struct kkt *k, int nrhs, const double *a, const double *b, double *x)
{
	int nb = k->nb, nc = k->nc, ng = 6 * nb;
	if (nrhs <= 0)	/* no columns: nothing to solve, and no buffer to clear */
		return 0;
	size_t m = (size_t)nrhs;
	int sweep = k->mode == KKT_DENSE ? k->chol : k->mode == KKT_SPARSE && k->use_spf;
	size_t need = sweep ? 2 * (size_t)nc * m : (size_t)ng + 2 * (size_t)nc + (size_t)ng;
	if (need > k->nmany) {
		free(k->many);
		k->many = xmalloc((need + 1) * sizeof(double));
		k->nmany = need;
	}
	if (!sweep) {
		double *ca = k->many, *cb = ca + ng, *cy = cb + nc, *cx = cy + nc;
		for (size_t c = 0; c < m; c++) {
			for (int i = 0; i < ng; i++)
				ca[i] = a[(size_t)i * m + c];
			for (int r = 0; r < nc; r++)
				cb[r] = b[(size_t)r * m + c];
			int st = kkt_solve(k, ca, cb, cx, cy);
			if (st)
				return st;
			for (int i = 0; i < ng; i++)
				x[(size_t)i * m + c] = cx[i];
		}
		return 0;
	}
	/* as kkt_solve: y = S^-1 (P W^-1 a - b), x = W^-1 a - Z y */
	double *y = k->many, *z = y + (size_t)nc * m;
	for (int r = 0; r < nc; r++) {
		double *yr = y + (size_t)r * m;
		if (k->ndrop && k->drop[r])
			memset(yr, 0, m * sizeof(double));
		else
			for (size_t c = 0; c < m; c++)
				yr[c] = -b[(size_t)r * m + c];
	}
	for (int q = 0; q < nb; q++) {
		double *xq = x + 6 * (size_t)q * m;
		const double *aq = a + 6 * (size_t)q * m;
		memset(xq, 0, 6 * m * sizeof(double));
		for (int h = 0; h < 2; h++) {
			const double *Wi = k->Winv + 18 * q + 9 * h;
			for (int i = 0; i < 3; i++)
				for (int j = 0; j < 3; j++)
					vec_axpy(m, Wi[3 * i + j], aq + (size_t)(3 * h + j) * m,
					      xq + (size_t)(3 * h + i) * m);
		}
		for (int e = k->estart[q]; e < k->estart[q + 1]; e++) {
			const double *P = k->P + 6 * e;
			for (int i = 0; i < 6; i++)
				vec_axpy(m, P[i], xq + (size_t)i * m, y + (size_t)k->erow[e] * m);
		}
	}
	if (k->mode == KKT_DENSE)
		chol_solve_many(k, m, y);
	else
		spf_solve_many(k->spf, nrhs, y, y, z);
	for (int q = 0; q < nb; q++) {
		double *xq = x + 6 * (size_t)q * m;
		for (int e = k->estart[q]; e < k->estart[q + 1]; e++) {
			double Zs[6];
			const double *Z = k->zall ? k->Zb + 6 * e : Zs;
			if (!k->zall)
				form_z(k, q, e, Zs);
			for (int i = 0; i < 6; i++)
				vec_axpy(m, -Z[i], y + (size_t)k->erow[e] * m, xq + (size_t)i * m);
		}
	}
	return 0;
}
