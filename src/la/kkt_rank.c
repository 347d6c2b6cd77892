/* kkt_rank.c - the saddle-point solvers' redundant rows and rank
 * deficiency (kkt.h): rows dropped at set-up (kkt_fix_dropped) and
 * rechosen, the rank-revealing fallback of the Schur paths, and the
 * rows dropped near a singular position (kkt_set_singular_tol).
 */
#include "kkt_impl.h"
#include "rank.h"
#include "../util/xalloc.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* Largest Schur complement the rank-revealing fallback forms densely
 * (2 n^2 doubles: 16 MB, some 0.1 s of
 * dpstrf, at 1000 rows). */
#define KKT_RANK_MAX 1000

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
		kkt_form_dense(k, 0);	/* the failed factorization overwrote S */
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
		kkt_form_p(k, jac);
	}
	return added;
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
/* A non-symmetric S is factored without pivoting first (kkt_schur.c,
 * lu_env_factor), whose smallest relative pivot is Cholesky's, d_j / S(j,
 * j); the choice above was made (and the IFToMM cases measured) with the
 * pivoted LU's |U(j, j)| / S(j, j) after row swaps.  The two were within
 * a factor 0.085 to 6.2 of each other at every factorization of the
 * four-bar (genalpha at 0.1 ms, lms2 at 8 ms) and Bricard (genalpha at 1
 * and 10 ms); with the unpivoted one alone the four-bar at 0.1 ms passed
 * its singular positions with other rows dropped (28 singular steps
 * instead of 22) and B0 at 10 s moved by 5e-6 m, five times
 * tests/t-redundant.sh's bound on its error.  So below KKT_RECHOOSE_MARGIN
 * times the tolerance (12: the unpivoted pivot may then be up to 1/0.083
 * times the pivoted one) the pivoted LU is made and decides, as before:
 * 126 of the four-bar's 1298 factorizations (lms2, 8 ms), 18 of Bricard's
 * 1001 (genalpha, 10 ms). */
#define KKT_RECHOOSE_MARGIN 12.0
int kkt_factor_schur(struct kkt *k, const double *W, const double *jac)
{
	int rc = kkt_factor_try(k, W), chose = k->nred && !k->nfixed;
	if (rc == 0 && k->nfixed && k->mode == KKT_DENSE) {
		double mp = dense_min_pivot(k);
		if (k->lu_env && mp < KKT_RECHOOSE_MARGIN * KKT_RECHOOSE_TOL) {
			rc = kkt_factor_lu(k);
			if (rc == 0)
				mp = dense_min_pivot(k);
		}
		if (rc == 0 && mp < KKT_RECHOOSE_TOL)
			rc = -1;
	}
	if (rc == -1 && k->nfixed && k->nc <= KKT_RANK_MAX) {
		chose = 1;
		k->nfixed = 0;
		k->ndrop = 0;
		memset(k->drop, 0, (size_t)k->nc);
		kkt_form_p(k, jac);
		rc = kkt_factor_try(k, W);
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
		rc = kkt_factor_try(k, W);
	}
	/* near a singular position (kkt_set_singular_tol): rows close to
	 * dependent are dropped too, for this factorization.  The dense
	 * rank_drop forms S again over the factors: when it drops nothing
	 * (or fails) after a factorization that succeeded, that one is made
	 * again, or the solves would read the unfactored S. */
	if (rc <= 0 && rc >= -1 && k->sing_tol > 0.0) {
		int got = rank_drop(k, jac, k->sing_tol);
		if (got > 0 || (rc == 0 && k->mode == KKT_DENSE))
			rc = kkt_factor_try(k, W);
	}
	if (chose && rc == 0 && k->ndrop == k->nred) {
		memcpy(k->fixed, k->drop, (size_t)k->nc);
		k->nfixed = k->ndrop;
	}
	if (rc == -1 && k->mode == KKT_SPARSE)
		return kkt_factor_umf(k);
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
