/* spf.h - sparse LU without pivoting for matrices with a symmetric pattern.
 *
 * The Schur complement S = P W^-1 P^T of kkt_schur.c has a symmetric pattern
 * (rows r and l share a body or not), is symmetric positive definite when
 * W is (half-implicit), and a small perturbation of such a matrix when W
 * carries gyroscopic and geometric-stiffness terms (fully implicit).  For
 * such matrices elimination in a fill-reducing order without pivoting is
 * stable, and everything but the arithmetic can be done once per pattern:
 * AMD ordering, elimination tree, the pattern of L (= that of U^T), the
 * order of every sparse triangular solve.  spf_factor then does
 * nnz(L)-proportional work with no allocation.  A pivot that is not
 * clearly nonzero relative to its diagonal entry makes spf_factor fail:
 * the caller falls back to a pivoting solver (UMFPACK) for that matrix.
 */
#ifndef MBSIM_SPF_H
#define MBSIM_SPF_H

#include <stddef.h>

struct spf;

/* Pattern: n x n in compressed columns (Ap, Ai), sorted, no duplicates,
 * symmetric, with every diagonal entry present; borrowed: Ap and Ai must
 * outlive f and keep their values.  NULL if AMD fails or the pattern is
 * not such. */
struct spf *spf_new(int n, const int *Ap, const int *Ai);
void spf_free(struct spf **f);
/* Entries of L below its diagonal (its fill in the AMD order). */
size_t spf_nnz(const struct spf *f);

/* Numeric factorization of the values Ax (same pattern); sym: the values
 * are symmetric (then U = D L^T and only L is computed).  Returns 0, or
 * -1 when a pivot falls below tol times its diagonal entry (or is not
 * finite); then the factorization is unusable. */
int spf_factor(struct spf *f, const double *Ax, int sym, double tol);
/* x = S^-1 b with the last successful factorization; x may alias b. */
void spf_solve(const struct spf *f, const double *b, double *x);
/* spf_solve for nrhs right sides stored by rows (entry i of side c at
 * b[i * nrhs + c]), x likewise (may alias b); z: n * nrhs of work.  The
 * same operations per side as spf_solve but for multiplying by 1 / D(j)
 * where it divides. */
void spf_solve_many(const struct spf *f, int nrhs, const double *b, double *x, double *z);

#endif
