/* kkt.h - saddle-point systems of constrained mechanics.
 *
 *   [ W  P^T ] [x]   [a]        W: block diagonal, two 3x3 blocks per body
 *   [ P  0   ] [y] = [b]        P: nc rows, each touching at most two bodies
 *
 * (000 eqs. 10, 12, 13).  Three ways, one interface:
 *   KKT_DENSE   Schur complement S = P W^-1 P^T, dense: Cholesky when every
 *               W block is symmetric, else LU without pivoting in S's
 *               envelope, LU with partial pivoting when a pivot is not
 *               positive (own kernels, n <= 64, or n <= 256 when a
 *               sparse factor would be 30 % full: kkt.c)
 *   KKT_SPARSE  Schur complement in compressed columns: elimination in
 *               AMD order without pivoting (spf.h, pattern work once),
 *               UMFPACK LU when a pivot comes close to zero
 *   KKT_FULL    the whole (6 nb + nc) matrix, UMFPACK LU
 * Rank-deficient P (redundant rows, singular positions): below,
 * kkt_dropped.
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
/* With coupling blocks: np ordered pairs of blocks (pairs[2p], pairs[2p
 * + 1]) = (row body, column body), (b, b) included, whose dense 6x6
 * blocks kkt_factor_pairs adds to W (a pair may repeat: the blocks are
 * summed).  Served by KKT_FULL only (the Schur paths need W^-1 block
 * diagonal): AUTO becomes FULL when np > 0, and DENSE or SPARSE with np
 * > 0 returns NULL.  pairs is copied.  np = 0: kkt_new. */
struct kkt *kkt_new_pairs(int nb, int nc, const int *bi, const int *bj, enum kkt_mode mode,
			  int np, const int *pairs);
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
/* The same with the coupling blocks Wc (36 per pair of kkt_new_pairs,
 * row-major; NULL: zero) added to W. */
int kkt_factor_pairs(struct kkt *k, const double *W, const double *Wc, const double *jac);
int kkt_npairs(const struct kkt *k);
/* Count of successful factorizations so far: a caller that keeps a
 * factorization across solves sees whether another has replaced it. */
long kkt_serial(const struct kkt *k);
/* Solve with the last factorization. a: 6 nb (NULL: zero), b: nc; x: 6 nb, y: nc. */
int kkt_solve(struct kkt *k, const double *a, const double *b, double *x, double *y);
/* kkt_solve for nrhs right sides stored by rows: entry i of side c at
 * a[i * nrhs + c] (a: 6 nb x nrhs, b: nc x nrhs), x likewise (6 nb x
 * nrhs); the multipliers are not returned.  The Schur paths with the
 * sparse elimination or a Cholesky factor sweep every side at once (the
 * same operations as kkt_solve per side); the others solve side by side. */
int kkt_solve_many(struct kkt *k, int nrhs, const double *a, const double *b, double *x);

int kkt_bad_row(const struct kkt *k);
/* The body whose mass block was singular (kkt_factor -2), or -1. */
int kkt_bad_body(const struct kkt *k);

/* Redundant constraints and singular positions.  When the plain
 * factorization meets a pivot at zero (P rank deficient), kkt_factor
 * finds the dependent rows by a pivoted Cholesky factorization of the
 * Schur complement scaled to unit diagonal (la_rank_psd, relative pivot
 * 1e-10: a row within about 1e-5 rad of the span of the others, in the
 * metric W^-1) and drops them: their multipliers are 0 and their
 * equations are left out, the basic solution of the singular system
 * (the rows kept fix x and P^T y uniquely).  Dense (KKT_DENSE) and sparse
 * Schur paths up to 1000 rows; KKT_FULL does not look for dependent rows
 * (UMFPACK calls the matrix singular only at an exact zero pivot).  kkt_dropped: the rows dropped by the last factorization (rows:
 * NULL, or room for nc), their count.  kkt_fix_dropped: rows to drop at
 * every later factorization before factoring (rows redundant everywhere,
 * found once at set-up), so that the plain path stays the fast one;
 * n = 0 clears them. */
int kkt_dropped(const struct kkt *k, int *rows);
/* Zero the multipliers (nc) of the redundant rows (kkt_fix_dropped, as
 * chosen again).  Solves leave the multipliers of dropped rows as they
 * were; an integrator calls this before it evaluates P^T lambda, so that
 * a row that becomes the redundant one in the course of a run does not
 * keep its value, which the rows kept would then have to balance.  Rows
 * dropped only for a step near a singular position are left alone: their
 * multipliers, held at the value of the step before, carry the force
 * along the nearly dependent direction that the rows kept cannot. */
void kkt_zero_dropped(const struct kkt *k, double *lam);
/* Near a singular position the rows are independent but nearly not, and
 * Newton's iteration can stall or diverge (the multipliers grow as 1/angle
 * and the constraints bend the fastest there).  With tol > 0, every
 * factorization also drops the rows whose relative pivot in la_rank_psd
 * falls below tol (an angle below sqrt(tol)); 0 restores the default.
 * -1 (and nothing set) where the rank-revealing path does not serve. */
int kkt_set_singular_tol(struct kkt *k, double tol);
void kkt_fix_dropped(struct kkt *k, const int *rows, int n);
enum kkt_mode kkt_mode_of(const struct kkt *k);
const char *kkt_mode_name(enum kkt_mode m);
/* Message for the last failure (static storage in k). */
const char *kkt_error(const struct kkt *k);

#endif
