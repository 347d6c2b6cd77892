/* test_kkt.c - saddle-point solvers (la/kkt.c).
 *
 *   [ W  P^T ] [x]   [a]
 *   [ P  0   ] [y] = [b]
 *
 * Random block-diagonal W (symmetric positive definite, nonsymmetric, and
 * symmetric negative definite, which sends the dense path from Cholesky to
 * LU, and nonsymmetric with a negative definite symmetric part, which
 * sends it from the LU without pivoting to the pivoted one) and random rows touching random pairs of blocks, some on the ground
 * (-1).  Each mode is checked against the system itself (residuals), and
 * the modes against each other; never against a second copy of the
 * formulas.  A duplicated row must be found and dropped (multiplier 0)
 * by the Schur paths.  The full one (UMFPACK) has no such fallback and is
 * not tested with it: it need not even report the row (on this problem
 * its factorization succeeds on the round-off of the dependent pivot).
 * kkt_solve_many, for several right sides at once, must give what
 * kkt_solve gives side by side, in every mode (its own sweep on the
 * Cholesky and spf paths, side by side on the others), dropped rows too.
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
#include "la/kkt.h"
#include "la/klu_ex.h"
#include "la/kkt_impl.h"

/* Residual tolerance, relative to the size of the terms of each equation.
 * The Schur-complement solve is not backward stable in the strict sense:
 * its residual is bounded by about cond(S) eps times that size.  W blocks
 * are diagonally dominant and the rows random, so cond(S) stays modest and
 * the residuals seen are 1e-16..1e-15; 1e-10 leaves a wide margin for other
 * seeds and compilers, while any wrong entry of S, a wrong pivot or a
 * skipped update gives a residual of order 1. */
#define RES_TOL 1e-10
/* Modes against each other: all solve the same well-conditioned system, so
 * they agree to cond(KKT) eps; the same margin. */
#define AGREE_TOL 1e-9

enum wkind { W_SPD, W_NONSYM, W_NEGDEF, W_NONSYM_NEG };

struct problem {
	int nb, nc;
	int *bi, *bj;
	double *W, *jac, *a, *b;
};

/* One 3x3 block: SPD = R R^T + 3 I (exactly symmetric in floating point:
 * the products commute), NONSYM = 3 I + R/2 (strictly diagonally dominant:
 * its symmetric part is positive definite), NEGDEF = -(R R^T + 3 I),
 * NONSYM_NEG = -(3 I + R/2). */
static void rand_block(double *B, enum wkind kind)
{
	double R[9];
	for (int e = 0; e < 9; e++)
		R[e] = testutil_urand();
	for (int i = 0; i < 3; i++)
		for (int j = 0; j < 3; j++) {
			double v;
			if (kind == W_NONSYM || kind == W_NONSYM_NEG)
				v = 0.5 * R[3 * i + j];
			else
				v = R[3 * i] * R[3 * j] + R[3 * i + 1] * R[3 * j + 1] +
				    R[3 * i + 2] * R[3 * j + 2];
			if (i == j)
				v += 3.0;
			B[3 * i + j] = kind == W_NEGDEF || kind == W_NONSYM_NEG ? -v : v;
		}
}

/* Row r touches block r % nb on side j, so every block has rows, and a
 * random block or the ground (-1) on side i; sometimes the same block on
 * both sides.  Ground sides get garbage values that every mode must ignore. */
static void make_problem(struct problem *p, int nb, int nc, enum wkind kind, uint64_t seed)
{
	testutil_seed(seed);
	p->nb = nb;
	p->nc = nc;
	p->bi = malloc((size_t)nc * sizeof(int));
	p->bj = malloc((size_t)nc * sizeof(int));
	p->W = malloc((size_t)nb * 18 * sizeof(double));
	p->jac = malloc((size_t)nc * 12 * sizeof(double));
	p->a = malloc((size_t)nb * 6 * sizeof(double));
	p->b = malloc((size_t)nc * sizeof(double));
	for (int q = 0; q < nb; q++) {
		rand_block(p->W + 18 * q, kind);
		rand_block(p->W + 18 * q + 9, kind);
	}
	for (int r = 0; r < nc; r++) {
		p->bj[r] = r % nb;
		p->bi[r] = (int)floor((testutil_urand() + 1.0) * 0.5 * (nb + 1)) - 1;
		if (p->bi[r] >= nb)
			p->bi[r] = nb - 1;
		for (int c = 0; c < 12; c++)
			p->jac[12 * r + c] = testutil_urand();
	}
	for (int i = 0; i < 6 * nb; i++)
		p->a[i] = testutil_urand();
	for (int r = 0; r < nc; r++)
		p->b[r] = testutil_urand();
}

static void free_problem(struct problem *p)
{
	free(p->bi);
	free(p->bj);
	free(p->W);
	free(p->jac);
	free(p->a);
	free(p->b);
}

static double maxabs(const double *v, int n)
{
	double m = 0.0;
	for (int i = 0; i < n; i++)
		m = fmax(m, fabs(v[i]));
	return m;
}

/* ||W x + P^T y - a||, ||P x - b||, each relative to the largest term of its
 * equation (sum of absolute values of the products). */
static void check_residual(const struct problem *p, const double *x, const double *y)
{
	int nb = p->nb, nc = p->nc, ng = 6 * nb;
	double *r1 = calloc((size_t)ng, sizeof(double)), *s1 = calloc((size_t)ng, sizeof(double));
	for (int q = 0; q < nb; q++)
		for (int h = 0; h < 2; h++)
			for (int i = 0; i < 3; i++)
				for (int j = 0; j < 3; j++) {
					double t = p->W[18 * q + 9 * h + 3 * i + j] * x[6 * q + 3 * h + j];
					r1[6 * q + 3 * h + i] += t;
					s1[6 * q + 3 * h + i] += fabs(t);
				}
	double res2 = 0.0, scale2 = maxabs(p->b, nc);
	for (int r = 0; r < nc; r++) {
		double acc = -p->b[r], sc = fabs(p->b[r]);
		int blk[2] = { p->bi[r], p->bj[r] };
		for (int side = 0; side < 2; side++) {
			if (blk[side] < 0)
				continue;
			for (int c = 0; c < 6; c++) {
				double J = p->jac[12 * r + 6 * side + c];
				acc += J * x[6 * blk[side] + c];
				sc += fabs(J * x[6 * blk[side] + c]);
				r1[6 * blk[side] + c] += J * y[r];
				s1[6 * blk[side] + c] += fabs(J * y[r]);
			}
		}
		res2 = fmax(res2, fabs(acc));
		scale2 = fmax(scale2, sc);
	}
	double res1 = 0.0, scale1 = maxabs(p->a, ng);
	for (int i = 0; i < ng; i++) {
		res1 = fmax(res1, fabs(r1[i] - p->a[i]));
		scale1 = fmax(scale1, s1[i]);
	}
	assert_near(res1 / scale1, 0.0, 0.0, RES_TOL);
	assert_near(res2 / scale2, 0.0, 0.0, RES_TOL);
	free(r1);
	free(s1);
}

/* kkt_solve_many with NSIDES right sides (side 0 p's, the others random;
 * stored by rows) against kkt_solve side by side, with the factorization
 * in k.  The sweep does the same operations in another order (and
 * multiplies by the reciprocal of a pivot where spf_solve divides): the
 * two agree to round-off, AGREE_TOL of each side's largest entry. */
#define NSIDES 7
static void check_many(struct kkt *k, const struct problem *p)
{
	int ng = 6 * p->nb, nc = p->nc;
	double *A = malloc((size_t)ng * NSIDES * sizeof(double));
	double *B = malloc((size_t)nc * NSIDES * sizeof(double));
	double *X = malloc((size_t)ng * NSIDES * sizeof(double));
	double *a = malloc((size_t)ng * sizeof(double)), *b = malloc((size_t)nc * sizeof(double));
	double *x = malloc((size_t)ng * sizeof(double)), *y = malloc((size_t)nc * sizeof(double));
	for (int c = 0; c < NSIDES; c++) {
		for (int i = 0; i < ng; i++)
			A[i * NSIDES + c] = c ? testutil_urand() : p->a[i];
		for (int r = 0; r < nc; r++)
			B[r * NSIDES + c] = c ? testutil_urand() : p->b[r];
	}
	assert_int_equal(kkt_solve_many(k, NSIDES, A, B, X), 0);
	for (int c = 0; c < NSIDES; c++) {
		for (int i = 0; i < ng; i++)
			a[i] = A[i * NSIDES + c];
		for (int r = 0; r < nc; r++)
			b[r] = B[r * NSIDES + c];
		assert_int_equal(kkt_solve(k, a, b, x, y), 0);
		double xs = maxabs(x, ng);
		for (int i = 0; i < ng; i++)
			assert_near(X[i * NSIDES + c], x[i], 0.0, AGREE_TOL * xs);
	}
	free(A);
	free(B);
	free(X);
	free(a);
	free(b);
	free(x);
	free(y);
}

/* Factor and solve in every mode, twice (the second time with new values on
 * the same pattern: the symbolic analysis is reused), check residuals and
 * agreement with the dense solution. */
static void solve_all_modes(int nb, int nc, enum wkind kind, uint64_t seed)
{
	static const enum kkt_mode modes[] = { KKT_DENSE, KKT_SPARSE, KKT_FULL };
	int ng = 6 * nb;
	struct problem p;
	make_problem(&p, nb, nc, kind, seed);
	struct kkt *k[3];
	for (int m = 0; m < 3; m++) {
		k[m] = kkt_new(nb, nc, p.bi, p.bj, modes[m]);
		assert_int_equal(kkt_mode_of(k[m]), modes[m]);
	}
	double *x = malloc((size_t)3 * ng * sizeof(double));
	double *y = malloc((size_t)3 * nc * sizeof(double));
	for (int round = 0; round < 2; round++) {
		if (round == 1) {	/* new values, same pattern */
			struct problem q;
			make_problem(&q, nb, nc, kind, seed * 7 + 1);
			/* kkt_new borrowed p's bi and bj: q takes them over */
			int *bi = q.bi, *bj = q.bj;
			q.bi = p.bi;
			q.bj = p.bj;
			p.bi = bi;
			p.bj = bj;
			free_problem(&p);
			p = q;
		}
		for (int m = 0; m < 3; m++) {
			assert_int_equal(kkt_factor(k[m], p.W, p.jac), 0);
			assert_int_equal(kkt_bad_row(k[m]), -1);
			assert_int_equal(kkt_solve(k[m], p.a, p.b, x + m * ng, y + m * nc), 0);
			check_residual(&p, x + m * ng, y + m * nc);
			check_many(k[m], &p);
		}
		double xs = maxabs(x, ng), ys = maxabs(y, nc);
		for (int m = 1; m < 3; m++) {
			for (int i = 0; i < ng; i++)
				assert_near(x[m * ng + i], x[i], 0.0, AGREE_TOL * xs);
			for (int r = 0; r < nc; r++)
				assert_near(y[m * nc + r], y[r], 0.0, AGREE_TOL * ys);
		}
	}
	for (int m = 0; m < 3; m++) {
		kkt_free(&k[m]);
		assert_null(k[m]);
	}
	free(x);
	free(y);
	free_problem(&p);
}

/* (bodies, rows): a few rows; the slider-crank shape (3 bodies, 18 rows);
 * and more rows than KKT_DENSE_MAX would put on the dense path by default */
static const int sizes[][2] = { { 4, 7 }, { 3, 18 }, { 8, 30 }, { 16, 70 } };

/* sizes[first .. last] with W of the given kind; seeds seed0 + 1, + 2, ...
 * (arbitrary, distinct) */
static void solve_sizes(enum wkind kind, int first, int last, uint64_t seed0)
{
	for (int i = first; i <= last; i++)
		solve_all_modes(sizes[i][0], sizes[i][1], kind, seed0 + 1 + (uint64_t)(i - first));
}

static void test_spd(void **state)
{
	(void)state;
	solve_sizes(W_SPD, 0, 3, 10);
}

static void test_nonsymmetric(void **state)
{
	(void)state;
	solve_sizes(W_NONSYM, 0, 3, 20);
}

/* symmetric but not positive definite: the dense Cholesky meets a clearly
 * negative pivot and must fall back to LU, not report rank deficiency */
static void test_symmetric_indefinite(void **state)
{
	(void)state;
	solve_sizes(W_NEGDEF, 1, 2, 30);
}

/* not symmetric, symmetric part negative definite: the dense LU without
 * pivoting (kkt_schur.c, lu_env_factor) meets a negative first pivot and
 * must fall back to the pivoted LU, not report rank deficiency */
static void test_nonsymmetric_negative(void **state)
{
	(void)state;
	solve_sizes(W_NONSYM_NEG, 0, 2, 40);
}

/* Which dense kernel factored S: a gyroscopic W with a positive definite
 * symmetric part takes the LU without pivoting in the envelope (lu_env);
 * a negative definite one falls back to the pivoted LU; both solve. */
static void envelope_used(enum wkind kind, int want)
{
	struct problem p;
	make_problem(&p, 4, 14, kind, 51);
	struct kkt *k = kkt_new(p.nb, p.nc, p.bi, p.bj, KKT_DENSE);
	double x[24], y[14];
	assert_int_equal(kkt_factor(k, p.W, p.jac), 0);
	assert_int_equal(k->lu_env, want);
	assert_int_equal(k->chol, 0);
	assert_int_equal(kkt_solve(k, p.a, p.b, x, y), 0);
	check_residual(&p, x, y);
	kkt_free(&k);
	free_problem(&p);
}

static void test_lu_envelope(void **state)
{
	(void)state;
	envelope_used(W_NONSYM, 1);
	envelope_used(W_NONSYM_NEG, 0);
}

/* Row 9 a copy of row 4 (b[9] = b[4], a consistent system): S has two
 * equal rows and columns.  The plain dense kernels meet the dependency at
 * row 9; the rank-revealing fallback (kkt.h, kkt_dropped) drops one of
 * the two copies, which gets multiplier 0, and the solution satisfies
 * every row including the dropped one.  Then, with kkt_fix_dropped, the row is dropped before
 * factoring (no fallback) and the solution is the same.  An inconsistent
 * b (b[9] != b[4]) leaves the dropped row unsatisfied: not tested, what
 * is solved then is the kept rows. */
static void duplicated_row(enum wkind kind, enum kkt_mode mode)
{
	struct problem p;
	make_problem(&p, 4, 14, kind, 41);
	p.bi[9] = p.bi[4];
	p.bj[9] = p.bj[4];
	memcpy(p.jac + 12 * 9, p.jac + 12 * 4, 12 * sizeof(double));
	p.b[9] = p.b[4];
	struct kkt *k = kkt_new(p.nb, p.nc, p.bi, p.bj, mode);
	double x[24], y[14], x2[24], y2[14];
	int rows[14];
	assert_int_equal(kkt_factor(k, p.W, p.jac), 0);
	assert_int_equal(kkt_dropped(k, rows), 1);
	assert_true(rows[0] == 4 || rows[0] == 9);
	assert_int_equal(kkt_solve(k, p.a, p.b, x, y), 0);
	check_residual(&p, x, y);
	assert_true(y[rows[0]] == 0.0);
	check_many(k, &p);
	kkt_fix_dropped(k, rows, 1);
	assert_int_equal(kkt_factor(k, p.W, p.jac), 0);
	assert_int_equal(kkt_dropped(k, NULL), 1);
	assert_int_equal(kkt_solve(k, p.a, p.b, x2, y2), 0);
	for (int i = 0; i < 24; i++)
		assert_near(x2[i], x[i], 0.0, AGREE_TOL * maxabs(x, 24));
	for (int r = 0; r < 14; r++)
		assert_near(y2[r], y[r], 0.0, AGREE_TOL * maxabs(y, 14));
	kkt_fix_dropped(k, NULL, 0);
	/* the same structure with independent values factors again with
	 * nothing dropped (k borrows p's bi and bj, so p lives on until k
	 * is freed) */
	struct problem q;
	make_problem(&q, 4, 14, kind, 41);
	assert_int_equal(kkt_factor(k, q.W, q.jac), 0);
	assert_int_equal(kkt_bad_row(k), -1);
	assert_int_equal(kkt_dropped(k, NULL), 0);
	kkt_free(&k);
	free_problem(&q);
	free_problem(&p);
}

/* la_klu_ex_solve against klu_solve: random sparse nonsymmetric matrices
 * with a strong diagonal, KLU with and without the block triangular
 * form.  The copied-out factors are solved with the same operations in
 * the same order, so the answers agree to the last bit (asserted to
 * 1e-15 relative: any difference in the permutations or the scaling
 * shows as O(1)); a reducible matrix under BTF has several blocks and
 * must be refused (load -1), leaving klu_solve to the caller. */
static void test_klu_ex(void **state)
{
	testutil_seed(31337);
	for (int rep = 0; rep < 40; rep++) {
		int n = 5 + rep % 23, btf = rep % 2, nz = 0;
		int *Ap = malloc((size_t)(n + 1) * sizeof(int)), *Ai = malloc((size_t)n * n * sizeof(int));
		double *Ax = malloc((size_t)n * n * sizeof(double));
		double *x = malloc((size_t)n * sizeof(double)), *y = malloc((size_t)n * sizeof(double));
		for (int j = 0; j < n; j++) {
			Ap[j] = nz;
			for (int i = 0; i < n; i++) {
				double r = 0.5 * (testutil_urand() + 1.0);	/* [0, 1) */
				/* rep % 4 == 3: upper triangular pattern, reducible */
				if (i != j && (r < 0.7 || (rep % 4 == 3 && i > j)))
					continue;
				Ai[nz] = i;
				Ax[nz++] = (i == j ? 4.0 + 10.0 * r : 2.0 * r - 1.0) * (1.0 + (i % 3) * 100.0);
			}
		}
		Ap[n] = nz;
		klu_common kc;
		klu_defaults(&kc);
		kc.btf = btf;
		klu_symbolic *sym = klu_analyze(n, Ap, Ai, &kc);
		klu_numeric *num = klu_factor(Ap, Ai, Ax, sym, &kc);
		assert_non_null(num);
		struct la_klu_ex ex = { 0 };
		int st = la_klu_ex_load(&ex, sym, num, &kc);
		if (sym->nblocks > 1) {
			assert_int_equal(st, -1);
			assert_int_equal(ex.ok, 0);
			assert_int_equal(la_klu_ex_refactor(&ex, Ap, Ai, Ax), -1);
		} else {
			assert_int_equal(st, 0);
			for (int i = 0; i < n; i++)
				x[i] = y[i] = testutil_urand();
			klu_solve(sym, num, n, 1, x, &kc);
			la_klu_ex_solve(&ex, y);
			double m = 0.0;
			for (int i = 0; i < n; i++)
				m = fmax(m, fabs(x[i]));
			for (int i = 0; i < n; i++)
				assert_near(y[i], x[i], 0, 1e-15 * m);
			/* the same pattern with other numbers (entries moved by
			 * up to 20 %: the pivot order stays good), refactored in
			 * the copied factors, against KLU's own refactor: the
			 * two do the same eliminations, so they agree to
			 * round-off (1e-12 of the largest entry of x; the
			 * matrices' condition numbers are below 1e3) */
			for (int p = 0; p < nz; p++)
				Ax[p] *= 1.0 + 0.2 * testutil_urand();
			assert_int_equal(la_klu_ex_refactor(&ex, Ap, Ai, Ax), 0);
			assert_true(klu_refactor(Ap, Ai, Ax, sym, num, &kc));
			for (int i = 0; i < n; i++)
				x[i] = y[i] = testutil_urand();
			klu_solve(sym, num, n, 1, x, &kc);
			la_klu_ex_solve(&ex, y);
			m = 0.0;
			for (int i = 0; i < n; i++)
				m = fmax(m, fabs(x[i]));
			for (int i = 0; i < n; i++)
				assert_near(y[i], x[i], 0, 1e-12 * m);
			/* a zero column: no pivot, refused */
			for (int p = Ap[n / 2]; p < Ap[n / 2 + 1]; p++)
				Ax[p] = 0.0;
			assert_int_equal(la_klu_ex_refactor(&ex, Ap, Ai, Ax), -1);
			assert_int_equal(ex.ok, 0);
		}
		if (rep % 4 == 3 && btf)
			assert_true(sym->nblocks > 1);
		la_klu_ex_free(&ex);
		klu_free_numeric(&num, &kc);
		klu_free_symbolic(&sym, &kc);
		free(Ap);
		free(Ai);
		free(Ax);
		free(x);
		free(y);
	}
}

static void test_duplicated_row_spd(void **state)
{
	(void)state;
	duplicated_row(W_SPD, KKT_DENSE);
	duplicated_row(W_SPD, KKT_SPARSE);
}

static void test_duplicated_row_nonsym(void **state)
{
	(void)state;
	duplicated_row(W_NONSYM, KKT_DENSE);
	duplicated_row(W_NONSYM, KKT_SPARSE);
}

/* KKT_AUTO: dense up to 64 rows; above, dense while the sparse factor of S
 * would be at least 30 % full (up to 256 rows), else sparse (kkt.c).  A
 * hub (body 0, every row on it and on one of 8 others: S fully coupled)
 * with 70 rows is dense; a chain of 70 bodies, one row between each
 * neighbour and one to the ground (S tridiagonal, L 1/69 full), sparse;
 * the hub with 300 rows, above 256, sparse. */
static void test_auto_fill(void **state)
{
	(void)state;
	int bi[300], bj[300];
	for (int r = 0; r < 300; r++) {
		bi[r] = 0;
		bj[r] = 1 + r % 8;
	}
	struct kkt *k = kkt_new(9, 70, bi, bj, KKT_AUTO);
	assert_int_equal(kkt_mode_of(k), KKT_DENSE);
	kkt_free(&k);
	k = kkt_new(9, 300, bi, bj, KKT_AUTO);
	assert_int_equal(kkt_mode_of(k), KKT_SPARSE);
	kkt_free(&k);
	for (int r = 0; r < 70; r++) {
		bi[r] = r - 1;	/* -1: the ground */
		bj[r] = r;
	}
	k = kkt_new(70, 70, bi, bj, KKT_AUTO);
	assert_int_equal(kkt_mode_of(k), KKT_SPARSE);
	kkt_free(&k);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_spd),
		cmocka_unit_test(test_nonsymmetric),
		cmocka_unit_test(test_symmetric_indefinite),
		cmocka_unit_test(test_nonsymmetric_negative),
		cmocka_unit_test(test_lu_envelope),
		cmocka_unit_test(test_duplicated_row_spd),
		cmocka_unit_test(test_duplicated_row_nonsym),
		cmocka_unit_test(test_klu_ex),
		cmocka_unit_test(test_auto_fill),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
