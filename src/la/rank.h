/* rank.h - dense rank-revealing factorization (LAPACK).
 *
 * Redundant constraints (a Jacobian Phi_q rank deficient everywhere) and
 * singular positions (rank deficient at an instant) need the numerical
 * rank of a matrix and which of its rows are independent:
 *
 *   la_rank_psd   pivoted Cholesky (dpstrf) of a symmetric positive
 *                 semidefinite matrix after scaling it to unit diagonal:
 *                 a row is dependent when the part of it not explained by
 *                 the rows chosen before (in the metric the matrix
 *                 defines) is below sqrt(rtol) of its length.  Used on the
 *                 Schur complement P W^-1 P^T (kkt_rank.c): O(n^3 / 3).
 *
 * The tangent space of the constraint manifold (N_H of seed 002 eq. 44)
 * comes from a QR with column pivoting of Phi_q^T that tangent.c makes
 * itself, since its solves need R and the reflectors; LA_RANK_QR_TOL is
 * its rank tolerance, |R(i,i)| > rtol |R(0,0)|.
 *
 * Matrices are row-major, as everywhere in mbsim; nothing is kept between
 * calls.  la_rank_psd returns the rank, or -1 when LAPACK reports an
 * error or the input is not finite.
 */
#ifndef MBSIM_RANK_H
#define MBSIM_RANK_H

/* Default relative tolerances: la_rank_psd compares squared quantities
 * (its pivots are squared sines of angles between rows), the QR of
 * tangent.c plain ones; 1e-10 and 1e-5 mean the same angle, about 1e-5
 * rad. */
#define LA_RANK_PSD_TOL 1e-10
#define LA_RANK_QR_TOL 1e-5

/* A: n x n symmetric (only the lower triangle is read), positive
 * semidefinite up to round-off; not modified.  piv (n): on return
 * piv[0 .. rank-1] are the independent rows in the order chosen,
 * piv[rank .. n-1] the dependent ones.  Rows with a zero diagonal are
 * dependent.  work: NULL or n^2 + 4 n doubles of scratch. */
int la_rank_psd(int n, const double *A, double rtol, int *piv, double *work);

#endif
