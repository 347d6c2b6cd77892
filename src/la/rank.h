/* rank.h - dense rank-revealing factorizations (LAPACK).
 *
 * Redundant constraints (a Jacobian Phi_q rank deficient everywhere) and
 * singular positions (rank deficient at an instant) need the numerical
 * rank of a matrix, which of its rows are independent, and a basis of its
 * null space.  Two routines serve them:
 *
 *   la_rank_psd   pivoted Cholesky (dpstrf) of a symmetric positive
 *                 semidefinite matrix after scaling it to unit diagonal:
 *                 a row is dependent when the part of it not explained by
 *                 the rows chosen before (in the metric the matrix
 *                 defines) is below sqrt(rtol) of its length.  Used on the
 *                 Schur complement P W^-1 P^T (kkt.c): O(n^3 / 3).
 *   la_rank_qr    QR with column pivoting (dgeqp3) of A^T for an m x n
 *                 matrix A: rank from |R(i,i)| > rtol |R(0,0)|, the
 *                 independent rows of A (the first `rank` pivots), and,
 *                 on request, an orthonormal basis of the null space of A
 *                 (the last n - rank columns of Q).  For the tangent space
 *                 of the constraint manifold, N_H of seed 002 eq. 44.
 *
 * Matrices are row-major, as everywhere in mbsim; nothing is kept between
 * calls.  Both return the rank, or -1 when LAPACK reports an error or the
 * input is not finite.
 */
#ifndef MBSIM_RANK_H
#define MBSIM_RANK_H

/* Default relative tolerances: la_rank_psd compares squared quantities
 * (its pivots are squared sines of angles between rows), la_rank_qr plain
 * ones; 1e-10 and 1e-5 mean the same angle, about 1e-5 rad. */
#define LA_RANK_PSD_TOL 1e-10
#define LA_RANK_QR_TOL 1e-5

/* A: n x n symmetric (only the lower triangle is read), positive
 * semidefinite up to round-off; not modified.  piv (n): on return
 * piv[0 .. rank-1] are the independent rows in the order chosen,
 * piv[rank .. n-1] the dependent ones.  Rows with a zero diagonal are
 * dependent.  work: NULL or n^2 + 4 n doubles of scratch. */
int la_rank_psd(int n, const double *A, double rtol, int *piv, double *work);

/* A: m x n, not modified.  piv (m): independent rows first, as above.
 * N: NULL, or n x n (row-major) receiving in its first n - rank columns
 * an orthonormal basis of {v : A v = 0}; the other columns are left
 * undefined.  An empty A (m = 0) has rank 0 and N = identity. */
int la_rank_qr(int m, int n, const double *A, double rtol, int *piv, double *N);

#endif
