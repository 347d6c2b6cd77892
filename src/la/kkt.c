/* kkt.c - saddle-point solvers (kkt.h).
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
 * Dense path (n <= KKT_DENSE_MAX): when every W block is symmetric, W^-1 is
 * (inv3 of a symmetric 3x3 is exactly symmetric) and S is symmetric
 * positive semidefinite: only the lower triangle is formed and factored by
 * Cholesky.  Otherwise the whole S is formed and factored by LU with partial
 * pivoting.  Both kernels are written out here rather than called from
 * LAPACK: at n ~ 20 the call overhead and unblocked reference paths of
 * dpotrf/dgetrf (dot, axpy, idamax, trsv per column) cost more than the
 * arithmetic, as SUNDIALS notes for its own small dense kernels
 * (sundials_dense.c).  The pivots' reciprocals are kept, so that the
 * solves multiply: a chain of dependent divisions was half the time of a
 * solve at n = 18.  A pivot below KKT_PIVOT_TOL times the largest
 * diagonal entry of S marks the row as linearly dependent on the rows
 * before it (rank deficiency); kkt_bad_row reports that row.
 */
#include "kkt.h"
#include "klu_refac.h"
#include "klu_ex.h"
#include "rank.h"
#include "spf.h"
#include "../util/vec.h"
#include "../util/xalloc.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <umfpack.h>

/* Above this many rows the Schur complement is kept sparse. */
#define KKT_DENSE_MAX 64
/* Relative pivot below which S is taken as singular. */
#define KKT_PIVOT_TOL 1e-13
/* Pivot of the sparse elimination without pivoting, relative to its
 * diagonal entry, below which UMFPACK takes over: far above round-off
 * (so a rank-deficient S always goes to UMFPACK, which says so), far
 * below the pivots of the well-posed Schur complements seen in practice
 * (a chain's S: about 1/k at step k). */
#define KKT_SPF_TOL 1e-8
/* Largest Schur complement the rank-revealing fallback forms densely
 * (2 n^2 doubles: 16 MB, some 0.1 s of
 * dpstrf, at 1000 rows). */
#define KKT_RANK_MAX 1000

struct kkt {
	enum kkt_mode mode;
	int nb, nc, n;		/* n: order of the factored matrix */
	const int *bi, *bj;	/* the caller's (kkt_new) */
	const int *jo;		/* the caller's (kkt_set_rows), or NULL */
	double *Winv;		/* nb x 18 */
	/* block -> rows lists: entries estart[b] .. estart[b + 1] - 1 */
	int *estart, *erow;
	int *first;		/* envelope: S(r, l) = 0 for l < first[r] */
	double *P;		/* ne x 6: P_e */
	double *Zb;		/* emax x 6: Z_e of one block's entries */
	int emax;		/* longest list */
	/* dense: S row-major; Cholesky L in the lower triangle, or LU */
	double *S;
	double *dinv;		/* reciprocals of the pivots (L(j, j) or U(j, j)) */
	int *ipiv;
	int chol;		/* the last dense factorization was Cholesky */
	/* sparse (S or full KKT) in CSC */
	int *Ap, *Ai;
	double *Ax;
	int nnz;
	int *map;		/* KKT_FULL: contribution -> position in Ax */
	int ncontrib;
	void *Symbolic, *Numeric;
	struct spf *spf;	/* sparse Schur: LU without pivoting (spf.h) */
	int use_spf;		/* the last factorization is spf's */
	double control[UMFPACK_CONTROL], info[UMFPACK_INFO];
	double *rhs, *sol;
	int bad_row;
	char err[160];
	/* dropped rows (redundant or dependent): P_e = 0, S(r, r) = a
	 * positive constant, y_r = 0.  fixed: those of kkt_fix_dropped;
	 * drop: those of the last factorization (fixed plus the ones the
	 * rank-revealing fallback found); NULL while none. */
	unsigned char *fixed, *drop;
	int nfixed, ndrop;
	int nred;		/* rows redundant everywhere (kkt_fix_dropped) */
	double *sd;		/* diagonal of S before the dense factorization */
	double sing_tol;	/* kkt_set_singular_tol */
	double *R;		/* fallback scratch: n^2 + 4 n */
	int *rpiv;
	int np, *pairs;		/* coupling blocks (kkt_new_pairs), KKT_FULL */
	/* with coupling blocks the full matrix is factored by KLU (refactor
	 * in the last pivot order while its pivots hold): at the size of a
	 * beam model (a few hundred unknowns) UMFPACK's numeric phase was
	 * most of the run */
	klu_common kc;
	klu_symbolic *ksym;
	klu_numeric *knum;
	struct la_klu_ex kex;	/* knum's factors copied out (klu_ex.h) */
	long serial;		/* kkt_serial */
	double *many;		/* kkt_solve_many's work, nmany doubles */
	size_t nmany;
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

/* Build CSC pattern from triplets (duplicates merged); with_map:
 * map[t] = position of triplet t. */
static void build_csc(struct kkt *k, struct trip *t, int nt, int with_map)
{
	struct trip *s = xmalloc((size_t)(nt + 1) * sizeof(*s));
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
	free(s);
	if (!with_map)
		return;
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

/* Entries: for each block the rows touching it, rows ascending. */
static void block_entries(struct kkt *k)
{
	int nb = k->nb, nc = k->nc;
	int *cnt = xcalloc((size_t)nb + 1, sizeof(int));
	for (int r = 0; r < nc; r++) {
		if (k->bi[r] >= 0)
			cnt[k->bi[r]]++;
		if (k->bj[r] >= 0 && k->bj[r] != k->bi[r])
			cnt[k->bj[r]]++;
	}
	k->estart = xcalloc((size_t)nb + 1, sizeof(int));
	for (int b = 0; b < nb; b++)
		k->estart[b + 1] = k->estart[b] + cnt[b];
	size_t ne = (size_t)k->estart[nb];
	k->erow = xmalloc((ne + 1) * sizeof(int));
	k->P = xmalloc((ne * 6 + 1) * sizeof(double));
	k->emax = 0;
	for (int b = 0; b < nb; b++)
		if (cnt[b] > k->emax)
			k->emax = cnt[b];
	k->Zb = xmalloc(((size_t)k->emax * 6 + 1) * sizeof(double));
	memset(cnt, 0, (size_t)nb * sizeof(int));
	for (int r = 0; r < nc; r++) {
		int b0 = k->bi[r], b1 = k->bj[r];
		if (b0 >= 0)
			k->erow[k->estart[b0] + cnt[b0]++] = r;
		if (b1 >= 0 && b1 != b0)
			k->erow[k->estart[b1] + cnt[b1]++] = r;
	}
	free(cnt);
	if (k->mode != KKT_DENSE)
		return;
	/* the dense envelope: row r meets no row before the first row of
	 * each of its blocks */
	k->first = xmalloc(((size_t)nc + 1) * sizeof(int));
	for (int r = 0; r < nc; r++)
		k->first[r] = r;
	for (int b = 0; b < nb; b++)
		for (int e = k->estart[b]; e < k->estart[b + 1]; e++)
			if (k->first[k->erow[e]] > k->erow[k->estart[b]])
				k->first[k->erow[e]] = k->erow[k->estart[b]];
}

/* Schur pattern: every pair of rows sharing a block, plus the diagonal. */
static void sparse_schur_pattern(struct kkt *k)
{
	int nb = k->nb, nc = k->nc, nt = 0;
	for (int b = 0; b < nb; b++) {
		int m = k->estart[b + 1] - k->estart[b];
		nt += m * m;
	}
	struct trip *t = xmalloc(((size_t)nt + nc + 1) * sizeof(*t));
	int q = 0;
	/* contribution q: entries (x, y) of block b; factor_sparse walks
	 * the blocks' lists instead of storing the contributions or their
	 * positions (8 and 4 bytes each, some 200 and 100 bytes per body of
	 * a pendulum array) */
	for (int b = 0; b < nb; b++)
		for (int x = k->estart[b]; x < k->estart[b + 1]; x++)
			for (int y = k->estart[b]; y < k->estart[b + 1]; y++) {
				t[q].i = k->erow[x];
				t[q].j = k->erow[y];
				q++;
			}
	k->ncontrib = q;
	for (int r = 0; r < nc; r++, q++)
		t[q].i = t[q].j = r;
	build_csc(k, t, q, 0);
	free(t);
}

/* Full KKT pattern: W blocks, P, P^T. Contributions are enumerated in the
 * same order by kkt_factor. */
static void full_pattern(struct kkt *k)
{
	int nb = k->nb, nc = k->nc, ng = 6 * nb;
	int nt = nb * 18 + nc * 24 + 36 * k->np;
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
	/* the coupling blocks last, so that without them the pattern and
	 * the sums are those of before */
	for (int p = 0; p < k->np; p++)
		for (int i = 0; i < 6; i++)
			for (int j = 0; j < 6; j++) {
				t[q].i = 6 * k->pairs[2 * p] + i;
				t[q].j = 6 * k->pairs[2 * p + 1] + j;
				q++;
			}
	k->ncontrib = q;
	build_csc(k, t, q, 1);
	free(t);
}

struct kkt *kkt_new(int nb, int nc, const int *bi, const int *bj, enum kkt_mode mode)
{
	return kkt_new_pairs(nb, nc, bi, bj, mode, 0, NULL);
}

long kkt_serial(const struct kkt *k)
{
	return k->serial;
}

int kkt_npairs(const struct kkt *k)
{
	return k->np;
}

struct kkt *kkt_new_pairs(int nb, int nc, const int *bi, const int *bj, enum kkt_mode mode,
			  int np, const int *pairs)
{
	if (np > 0 && (mode == KKT_DENSE || mode == KKT_SPARSE))
		return NULL;
	struct kkt *k = xcalloc(1, sizeof(*k));
	if (np > 0) {
		mode = KKT_FULL;
		k->np = np;
		k->pairs = xmalloc(2 * (size_t)np * sizeof(int));
		memcpy(k->pairs, pairs, 2 * (size_t)np * sizeof(int));
	}
	if (mode == KKT_AUTO)
		mode = nc <= KKT_DENSE_MAX ? KKT_DENSE : KKT_SPARSE;
	k->mode = mode;
	k->nb = nb;
	k->nc = nc;
	k->bad_row = -1;
	k->bi = bi;
	k->bj = bj;
	k->Winv = xmalloc(((size_t)nb * 18 + 1) * sizeof(double));
	if (mode == KKT_DENSE) {
		k->n = nc;
		block_entries(k);
		k->S = xmalloc(((size_t)nc * nc + 1) * sizeof(double));
		k->ipiv = xmalloc(((size_t)nc + 1) * sizeof(int));
		k->dinv = xmalloc(((size_t)nc + 1) * sizeof(double));
	} else if (mode == KKT_SPARSE) {
		k->n = nc;
		block_entries(k);
		sparse_schur_pattern(k);	/* rhs: at the first UMFPACK solve */
	} else {
		k->n = 6 * nb + nc;
		full_pattern(k);
		k->rhs = xmalloc(((size_t)k->n + 1) * sizeof(double));
		k->sol = xmalloc(((size_t)k->n + 1) * sizeof(double));
	}
	if (mode == KKT_SPARSE && k->n > 0)
		k->spf = spf_new(k->n, k->Ap, k->Ai);
	if (mode == KKT_FULL && k->n > 0 && k->np > 0) {
		klu_defaults(&k->kc);
		k->ksym = klu_analyze(k->n, k->Ap, k->Ai, &k->kc);
	} else if (mode == KKT_FULL && k->n > 0) {
		umf_symbolic(k);	/* KKT_SPARSE: on the first fallback */
	}
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
	if (k->knum)
		klu_free_numeric(&k->knum, &k->kc);
	la_klu_ex_free(&k->kex);
	if (k->ksym)
		klu_free_symbolic(&k->ksym, &k->kc);
	spf_free(&k->spf);
	free(k->many);
	free(k->Winv);
	free(k->estart);
	free(k->erow);
	free(k->P);
	free(k->Zb);
	free(k->first);
	free(k->S);
	free(k->ipiv);
	free(k->dinv);
	free(k->Ap);
	free(k->Ai);
	free(k->Ax);
	free(k->map);
	free(k->rhs);
	free(k->sol);
	free(k->fixed);
	free(k->sd);
	free(k->drop);
	free(k->R);
	free(k->rpiv);
	free(k->pairs);
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

/* Sums in index order (so the value is that of the plain loop), unrolled
 * by hand: at -O2 the loop overhead would be half the instructions. */
static inline double dot(const double *a, const double *b, int n)
{
	double acc = 0.0;
	int i = 0;
	for (; i + 4 <= n; i += 4)
		acc = acc + a[i] * b[i] + a[i + 1] * b[i + 1] + a[i + 2] * b[i + 2] +
		      a[i + 3] * b[i + 3];
	for (; i < n; i++)
		acc += a[i] * b[i];
	return acc;
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

/* y -= s x, n entries */
static inline void axpy_neg(double *y, double s, const double *x, int n)
{
	int i = 0;
	for (; i + 4 <= n; i += 4) {
		y[i] -= s * x[i];
		y[i + 1] -= s * x[i + 1];
		y[i + 2] -= s * x[i + 2];
		y[i + 3] -= s * x[i + 3];
	}
	for (; i < n; i++)
		y[i] -= s * x[i];
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

void kkt_set_rows(struct kkt *k, const int *jo)
{
	k->jo = jo;
}

/* where row r's values start in the jac of kkt_factor (kkt_set_rows) */
static inline long row_at(const struct kkt *k, int r)
{
	return k->jo ? k->jo[r] : 12L * r;
}

/* P_e for every entry */
static void form_p(struct kkt *k, const double *jac)
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

/* k->Zb: Z_e of block b's entries, in list order */
static void block_z(struct kkt *k, int b)
{
	for (int e = k->estart[b]; e < k->estart[b + 1]; e++)
		form_z(k, b, e, k->Zb + 6 * (e - k->estart[b]));
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
		block_z(k, b);
		for (int x = e0; x < e1; x++) {
			const double *Px = k->P + 6 * x;
			double *Sr = k->S + (size_t)k->erow[x] * n;
			int yend = lower ? x + 1 : e1;	/* rows ascending in a list */
			for (int y = e0; y < yend; y++)
				Sr[k->erow[y]] += dot6(Px, k->Zb + 6 * (y - e0));
		}
	}
}

static double diag_max(const double *S, int n)
{
	double dmax = 0.0;
	for (int r = 0; r < n; r++)
		dmax = fmax(dmax, fabs(S[(size_t)r * n + r]));
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
		for (int i = j + 1; i < n; i++) {
			if (first[i] > j)
				continue;
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
		axpy_neg(y + f, y[i], Li + f, i - f);
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
			axpy_neg(Si + j + 1, l, Uj + j + 1, n - j - 1);
		}
	}
	return 0;
}

static void lu_solve(const struct kkt *k, double *y)
{
	int n = k->nc;
	const double *S = k->S;
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

static void form_dense(struct kkt *k, int lower)
{
	form_schur(k, lower);
	if (k->ndrop)
		dense_drop_diag(k);
}

static int factor_dense(struct kkt *k, const double *W)
{
	int n = k->nc;
	k->chol = w_symmetric(k, W);
	form_dense(k, k->chol);
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
		form_dense(k, 0);
	}
	return lu_factor(k, tol, dmax);
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
		block_z(k, b);
		for (int y = e0; y < e1; y++) {
			const double *Z = k->Zb + 6 * (y - e0);
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

/* UMFPACK with its pivoting on the Ax of factor_spf (which also tells
 * rank deficiency, at the round-off level) */
static int factor_umf(struct kkt *k)
{
	if (!k->rhs)
		k->rhs = xmalloc(((size_t)k->nc + 1) * sizeof(double));
	if (!k->Symbolic && umf_symbolic(k))
		return -2;
	return umf_numeric(k);
}

/* Smallest pivot of the dense factorization relative to the diagonal
 * entry of its row (k->sd, saved by factor_dense): 1 for orthogonal rows,
 * the squared sine of the angle a row makes with the span of the rows
 * before it (Cholesky). */
static double dense_min_pivot(const struct kkt *k)
{
	double m = 1.0;
	for (int j = 0; j < k->nc; j++) {
		if (k->drop[j])
			continue;
		double u = 1.0 / k->dinv[j], r = k->chol ? u * u / k->sd[j] : fabs(u) / k->sd[j];
		m = fmin(m, r);
	}
	return m;
}

/* KLU in the last pivot order while it holds (la/klu_refac.h) */
static int klu_numeric_full(struct kkt *k)
{
	if (!k->ksym) {
		snprintf(k->err, sizeof k->err, "KLU analysis failed (status %d)", k->kc.status);
		return -2;
	}
	if (k->kex.ok && la_klu_ex_refactor(&k->kex, k->Ap, k->Ai, k->Ax) == 0)
		return 0;	/* in the copied factors; knum is left behind */
	k->kex.ok = 0;
	if (la_klu_refactor(k->Ap, k->Ai, k->Ax, k->ksym, &k->knum, &k->kc)) {
		if (k->knum)
			klu_free_numeric(&k->knum, &k->kc);
		snprintf(k->err, sizeof k->err, "iteration matrix singular (KLU)");
		return -1;
	}
	la_klu_ex_load(&k->kex, k->ksym, k->knum, &k->kc);	/* else klu_solve */
	return 0;
}

static int factor_full(struct kkt *k, const double *W, const double *Wc, const double *jac)
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
				double v = b >= 0 ? jac[row_at(k, r) + 6 * side + c] : 0.0;
				k->Ax[k->map[q++]] += v;
				k->Ax[k->map[q++]] += v;
			}
		}
	for (int e = 0; Wc && e < 36 * k->np; e++)
		k->Ax[k->map[q++]] += Wc[e];
	if (k->np > 0)
		return klu_numeric_full(k);
	return umf_numeric(k);
}

/* The rank-revealing fallback, used when the plain factorization meets a
 * pivot at zero.  Choice (issue 10): the dependent rows are found by a
 * pivoted Cholesky factorization of the Schur complement, scaled to unit
 * diagonal (la_rank_psd; its symmetric part when W is not symmetric:
 * P sym(W^-1) P^T has the same null space as long as sym(W) is definite,
 * which holds for every iteration matrix of mbsim, dominated by the mass
 * blocks), and dropped: P_r = 0, multiplier 0.  That is the basic
 * solution of the singular saddle-point system: the rows kept determine
 * the motion and the constraint forces P^T lambda exactly, the multipliers
 * are unique on the rows kept and 0 on the dropped ones.  A row is
 * dependent when the part of it (in the metric W^-1) outside the span of
 * the rows chosen before is below sqrt(KKT_RANK_TOL) = 1e-5 of its length.
 * Why this and not the alternatives: QR of P (nc x 6 nb) would cost more
 * than S (nc x nc) for every model with more coordinates than rows, and
 * an augmented Lagrangian (Bayo and Ledesma) would change the equations
 * of every scheme, and so their results on every non-redundant model;
 * here a model whose factorization succeeds never reaches this code.  A
 * row redundant everywhere (found at set-up, kkt_fix_dropped) is dropped
 * before factoring, so that only instants of lost rank pay for this.
 * Returns the number of rows newly dropped, 0 when none is found (or n is
 * above KKT_RANK_MAX), -1 on failure. */
#define KKT_RANK_TOL LA_RANK_PSD_TOL
static int rank_drop(struct kkt *k, const double *jac, double tol)
{
	int n = k->nc;
	if (n > KKT_RANK_MAX || k->mode == KKT_FULL)
		return 0;
	if (!k->R) {
		k->R = xmalloc(((size_t)2 * n * n + 4 * (size_t)n + 1) * sizeof(double));
		k->rpiv = xmalloc(((size_t)n + 1) * sizeof(int));
	}
	if (!k->drop)
		k->drop = xcalloc((size_t)n + 1, 1);
	double *R = k->R, tr = 0.0;
	if (k->mode == KKT_DENSE) {
		form_dense(k, 0);	/* the failed factorization overwrote S */
		memcpy(R, k->S, (size_t)n * n * sizeof(double));
	} else {
		memset(R, 0, (size_t)n * n * sizeof(double));
		for (int j = 0; j < n; j++)
			for (int p = k->Ap[j]; p < k->Ap[j + 1]; p++)
				R[(size_t)k->Ai[p] * n + j] = k->Ax[p];
	}
	for (int i = 0; i < n; i++) {
		tr += R[(size_t)i * n + i];
		for (int j = 0; j < i; j++)
			R[(size_t)i * n + j] = 0.5 * (R[(size_t)i * n + j] + R[(size_t)j * n + i]);
	}
	if (tr < 0.0)	/* W negative definite: so is S */
		for (size_t e = 0; e < (size_t)n * n; e++)
			R[e] = -R[e];
	int rank = la_rank_psd(n, R, tol, k->rpiv, R + (size_t)n * n);
	if (rank < 0)
		return -1;
	int added = 0;
	for (int a = rank; a < n; a++)
		if (!k->drop[k->rpiv[a]]) {
			k->drop[k->rpiv[a]] = 1;
			added++;
		}
	if (added) {
		k->ndrop += added;
		form_p(k, jac);
	}
	return added;
}

static int factor_try(struct kkt *k, const double *W)
{
	return k->mode == KKT_DENSE ? factor_dense(k, W) : factor_spf(k, W);
}

/* The Schur paths with redundant rows and singular positions.  Rows
 * redundant everywhere (kkt_fix_dropped, nred of them) are dropped first
 * (nfixed: those dropped now).  Which rows of a redundant set are
 * dependent can change along the motion (in Bricard's mechanism every
 * row takes its turn): when the rows kept lose rank, or come within
 * KKT_RECHOOSE_TOL of it (the smallest relative pivot of the dense
 * path: an angle of 1e-2 rad; the sparse path rechooses when spf fails,
 * at 1e-8), the choice is made again from
 * all rows, and kept when it drops exactly nred rows (more: a singular
 * position on top of the redundancy; then every factorization chooses
 * until one drops nred again).  A plain failure without fixed rows goes
 * to rank_drop, up to three rounds (each finds the dependent rows of the
 * last; one is the rule).  The sparse path ends in UMFPACK as before. */
/* Early enough that the multipliers of the rows kept, which grow as one
 * over that angle, stay of the size of the forces (Bricard: 32 N at most
 * with it, 1400 N at a relative pivot of 1e-8). */
#define KKT_RECHOOSE_TOL 1e-4
static int factor_schur(struct kkt *k, const double *W, const double *jac)
{
	int rc = factor_try(k, W), chose = k->nred && !k->nfixed;
	if (rc == 0 && k->nfixed && k->mode == KKT_DENSE && dense_min_pivot(k) < KKT_RECHOOSE_TOL)
		rc = -1;
	if (rc == -1 && k->nfixed && k->nc <= KKT_RANK_MAX) {
		chose = 1;
		k->nfixed = 0;
		k->ndrop = 0;
		memset(k->drop, 0, (size_t)k->nc);
		form_p(k, jac);
		rc = factor_try(k, W);
	}
	int bad = k->bad_row;
	char err[sizeof k->err];
	memcpy(err, k->err, sizeof err);
	for (int round = 0; rc == -1 && round < 3; round++) {
		int got = rank_drop(k, jac, KKT_RANK_TOL);
		if (got < 0) {
			snprintf(k->err, sizeof k->err, "rank-revealing factorization failed");
			return -2;
		}
		if (got == 0)
			break;	/* keep the plain factorization's report */
		rc = factor_try(k, W);
	}
	/* near a singular position (kkt_set_singular_tol): rows close to
	 * dependent are dropped too, for this factorization */
	if (rc <= 0 && rc >= -1 && k->sing_tol > 0.0 && rank_drop(k, jac, k->sing_tol) > 0)
		rc = factor_try(k, W);
	if (chose && rc == 0 && k->ndrop == k->nred) {
		memcpy(k->fixed, k->drop, (size_t)k->nc);
		k->nfixed = k->ndrop;
	}
	if (rc == -1 && k->mode == KKT_SPARSE)
		return factor_umf(k);
	if (rc == -1 && k->bad_row < 0) {
		k->bad_row = bad;
		memcpy(k->err, err, sizeof err);
	}
	return rc;
}

int kkt_set_singular_tol(struct kkt *k, double tol)
{
	if (k->mode == KKT_FULL || k->nc > KKT_RANK_MAX || k->nc == 0)
		return -1;
	k->sing_tol = tol;
	return 0;
}

void kkt_fix_dropped(struct kkt *k, const int *rows, int n)
{
	if (k->mode == KKT_FULL)
		return;
	if (!k->fixed)
		k->fixed = xcalloc((size_t)k->nc + 1, 1);
	if (!k->drop)
		k->drop = xcalloc((size_t)k->nc + 1, 1);
	if (!k->sd)
		k->sd = xcalloc((size_t)k->nc + 1, sizeof(double));
	memset(k->fixed, 0, (size_t)k->nc);
	k->nfixed = 0;
	for (int i = 0; i < n; i++)
		if (rows[i] >= 0 && rows[i] < k->nc && !k->fixed[rows[i]]) {
			k->fixed[rows[i]] = 1;
			k->nfixed++;
		}
	k->nred = k->nfixed;
}

void kkt_zero_dropped(const struct kkt *k, double *lam)
{
	for (int r = 0; k->nfixed && r < k->nc; r++)
		if (k->fixed[r])
			lam[r] = 0.0;
}

int kkt_dropped(const struct kkt *k, int *rows)
{
	int c = 0;
	for (int r = 0; k->ndrop && r < k->nc; r++)
		if (k->drop[r]) {
			if (rows)
				rows[c] = r;
			c++;
		}
	return c;
}

int kkt_factor(struct kkt *k, const double *W, const double *jac)
{
	return kkt_factor_pairs(k, W, NULL, jac);
}

int kkt_factor_pairs(struct kkt *k, const double *W, const double *Wc, const double *jac)
{
	k->bad_row = -1;
	k->err[0] = 0;
	k->ndrop = k->nfixed;
	if (k->nfixed)
		memcpy(k->drop, k->fixed, (size_t)k->nc);
	else if (k->drop)
		memset(k->drop, 0, (size_t)k->nc);
	for (int b = 0; b < k->nb; b++)
		if (inv3(k->Winv + 18 * b, W + 18 * b) ||
		    inv3(k->Winv + 18 * b + 9, W + 18 * b + 9)) {
			snprintf(k->err, sizeof k->err, "singular mass block of body %d", b);
			return -2;
		}
	k->serial++;
	if (k->mode == KKT_FULL)
		return factor_full(k, W, Wc, jac);
	form_p(k, jac);
	return factor_schur(k, W, jac);
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
			double Z[6];
			form_z(k, q, e, Z);
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
			double Z[6];
			form_z(k, q, e, Z);
			for (int i = 0; i < 6; i++)
				vec_axpy(m, -Z[i], y + (size_t)k->erow[e] * m, xq + (size_t)i * m);
		}
	}
	return 0;
}
