/* kkt.h - saddle-point systems of constrained mechanics.
 *
 *   [ W  P^T ] [x]   [a]        W: block diagonal, two 3x3 blocks per body
 *   [ P  0   ] [y] = [b]        P: nc rows, each touching at most two bodies
 *
 * (000 eqs. 10, 12, 13).  Three ways, one interface:
 *   KKT_DENSE   Schur complement S = P W^-1 P^T, dense: Cholesky when every
 *               W block is symmetric, else LU with partial pivoting
 *               (own kernels, n <= 64)
 *   KKT_SPARSE  Schur complement in compressed columns: elimination in
 *               AMD order without pivoting (spf.h, pattern work once),
 *               UMFPACK LU when a pivot comes close to zero
 *   KKT_FULL    the whole (6 nb + nc) matrix, UMFPACK LU
 * The sparsity pattern is fixed at kkt_new; symbolic analysis is done once,
 * numeric factorization at each kkt_factor.  This module knows nothing of
 * mechanics: a "body" is a pair of 3x3 blocks, a "row" a 12-vector.
 */
#ifndef MBSIM_KKT_H
#define MBSIM_KKT_H

enum kkt_mode { KKT_AUTO, KKT_DENSE, KKT_SPARSE, KKT_FULL };

struct kkt;

/* bi, bj: for each row, the two blocks it touches (-1: none); borrowed:
 * they must outlive k and keep their values. */
struct kkt *kkt_new(int nb, int nc, const int *bi, const int *bj, enum kkt_mode mode);
void kkt_free(struct kkt **k);

/* Where the rows of kkt_factor's jac are: block bi[r]'s values of row r
 * at jac[jo[r] + 0..5], block bj[r]'s at jac[jo[r] + 6..11]; only a
 * side with a block (>= 0) is read, so a caller need keep no values for
 * a ground side (form/ra.c).  Borrowed as bi, bj are.  Without it (or
 * with NULL) jo[r] = 12 r. */
void kkt_set_rows(struct kkt *k, const int *jo);

/* W: nb x 18 (translational 3x3 row-major, then rotational 3x3); jac:
 * nc x 12 (row k: d/d block bi[k] (6), d/d block bj[k] (6)), or as
 * kkt_set_rows says.
 * Returns 0, or -1 when the matrix is singular (kkt_bad_row tells the
 * constraint row when known), -2 on another solver failure. */
int kkt_factor(struct kkt *k, const double *W, const double *jac);
/* Solve with the last factorization. a: 6 nb (NULL: zero), b: nc; x: 6 nb, y: nc. */
int kkt_solve(struct kkt *k, const double *a, const double *b, double *x, double *y);

int kkt_bad_row(const struct kkt *k);
enum kkt_mode kkt_mode_of(const struct kkt *k);
const char *kkt_mode_name(enum kkt_mode m);
/* Message for the last failure (static storage in k). */
const char *kkt_error(const struct kkt *k);

#endif
