/* kkt.c - saddle-point solvers (kkt.h): the patterns fixed at set-up,
 * the lifecycle, the full matrix [W P^T; P 0] (UMFPACK, or KLU with
 * coupling blocks) and the entry of a factorization.  The Schur-complement
 * paths are in kkt_schur.c, redundant rows and rank deficiency in
 * kkt_rank.c, their shared state in kkt_impl.h.
 */
#include "kkt_impl.h"
#include "klu_refac.h"
#include "../util/xalloc.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Up to this many rows the Schur complement is factored dense; up to
 * KKT_FILL_MAX rows too when its sparse factor L, in the AMD order, would
 * hold KKT_FILL of the entries below the diagonal or more.  Then the
 * sparse elimination does about as many operations as the dense one, each
 * through an index: the 14-body vehicle (decks/hmmwv14.yaml, 66 rows,
 * L 49 % full) spent 162 k instructions a factorization in spf_factor and
 * 3.4 % more of its rn4 run than dense (callgrind); the chain of 32
 * (96 rows, 8 %) stays sparse. */
#define KKT_DENSE_MAX 64
#define KKT_FILL_MAX 256
#define KKT_FILL 0.3

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

int kkt_bad_body(const struct kkt *k)
{
	return k->bad_body;
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
	/* dense (at most KKT_FILL_MAX rows, so 2 * KKT_FILL_MAX entries):
	 * every entry's Z_e, made with S and read by the solves */
	k->zall = k->mode == KKT_DENSE;
	k->Zb = xmalloc(((k->zall ? ne : (size_t)k->emax) * 6 + 1) * sizeof(double));
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
	k->last = xmalloc(((size_t)nc + 1) * sizeof(int));
	for (int r = 0; r < nc; r++)
		k->last[r] = r;
	for (int r = 0; r < nc; r++)	/* r ascends: the last r to reach l wins */
		for (int l = k->first[r]; l < r; l++)
			k->last[l] = r;
	k->cstart = xcalloc((size_t)nc + 2, sizeof(int));
	for (int r = 0; r < nc; r++)
		for (int l = k->first[r]; l < r; l++)
			k->cstart[l + 2]++;
	for (int l = 0; l < nc; l++)
		k->cstart[l + 2] += k->cstart[l + 1];
	k->crow = xmalloc(((size_t)k->cstart[nc + 1] + 1) * sizeof(int));
	for (int r = 0; r < nc; r++)	/* r ascends: each column's rows ascend */
		for (int l = k->first[r]; l < r; l++)
			k->crow[k->cstart[l + 1]++] = r;
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
	if (mode == KKT_AUTO && np == 0 && nc > KKT_DENSE_MAX) {
		/* sparse, unless its factor would be KKT_FILL full (above):
		 * then dense, the sparse analysis made once either way */
		struct kkt *t = kkt_new_pairs(nb, nc, bi, bj, KKT_SPARSE, 0, NULL);
		if (nc > KKT_FILL_MAX || !t->spf ||
		    (double)spf_nnz(t->spf) < KKT_FILL * 0.5 * nc * (nc - 1.0))
			return t;
		kkt_free(&t);
		mode = KKT_DENSE;
	}
	struct kkt *k = xcalloc(1, sizeof(*k));
	if (np > 0) {
		mode = KKT_FULL;
		k->np = np;
		k->pairs = xmalloc(2 * (size_t)np * sizeof(int));
		memcpy(k->pairs, pairs, 2 * (size_t)np * sizeof(int));
	}
	if (mode == KKT_AUTO)
		mode = KKT_DENSE;	/* (nc <= KKT_DENSE_MAX: sparse above) */
	k->mode = mode;
	k->nb = nb;
	k->nc = nc;
	k->bad_row = -1;
	k->bad_body = -1;
	k->bi = bi;
	k->bj = bj;
	k->Winv = xmalloc(((size_t)nb * 18 + 1) * sizeof(double));
	if (mode == KKT_DENSE) {
		k->n = nc;
		block_entries(k);	/* (after k->mode is set: k->zall) */
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
	free(k->last);
	free(k->cstart);
	free(k->crow);
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

void kkt_set_rows(struct kkt *k, const int *jo)
{
	k->jo = jo;
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

/* UMFPACK with its pivoting on the Ax of factor_spf (which also tells
 * rank deficiency, at the round-off level) */
int kkt_factor_umf(struct kkt *k)
{
	if (!k->rhs)
		k->rhs = xmalloc(((size_t)k->nc + 1) * sizeof(double));
	if (!k->Symbolic && umf_symbolic(k))
		return -2;
	return umf_numeric(k);
}

/* KLU in the last pivot order while it holds (la/klu_refac.h) */
static int klu_numeric_full(struct kkt *k)
{
	if (!k->ksym) {
		snprintf(k->err, sizeof k->err, "KLU analysis failed (status %d)", k->kc.status);
		return -2;
	}
	if (k->kex.ok) {
		if (la_klu_ex_refactor(&k->kex, k->Ap, k->Ai, k->Ax) == 0)
			return 0;	/* in the copied factors; knum is left behind */
		/* its pivots failed klu_refactor's own test in the same pivot
		 * order: KLU afresh, not that order again */
		klu_free_numeric(&k->knum, &k->kc);
		k->kex.ok = 0;
	}
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

int kkt_factor(struct kkt *k, const double *W, const double *jac)
{
	return kkt_factor_pairs(k, W, NULL, jac);
}

int kkt_factor_pairs(struct kkt *k, const double *W, const double *Wc, const double *jac)
{
	k->bad_row = -1;
	k->bad_body = -1;
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
			k->bad_body = b;
			return -2;
		}
	k->serial++;
	if (k->mode == KKT_FULL)
		return factor_full(k, W, Wc, jac);
	kkt_form_p(k, jac);
	return kkt_factor_schur(k, W, jac);
}
