/* kkt_impl.h - the state of the saddle-point solvers (kkt.h), shared by
 * their files: kkt.c (patterns, set-up, the full matrix by UMFPACK or
 * KLU, the factorization's entry), kkt_schur.c (the Schur-complement
 * paths, dense and sparse, and the solves) and kkt_rank.c (redundant
 * rows and rank deficiency).  Not for use outside src/la/kkt*.c.
 */
#ifndef MBSIM_KKT_IMPL_H
#define MBSIM_KKT_IMPL_H

#include "kkt.h"
#include "klu_ex.h"
#include "spf.h"

#include <klu.h>
#include <umfpack.h>

struct kkt {
	enum kkt_mode mode;
	int nb, nc, n;		/* n: order of the factored matrix */
	const int *bi, *bj;	/* the caller's (kkt_new) */
	const int *jo;		/* the caller's (kkt_set_rows), or NULL */
	double *Winv;		/* nb x 18 */
	/* block -> rows lists: entries estart[b] .. estart[b + 1] - 1 */
	int *estart, *erow;
	int *first;		/* envelope: S(r, l) = 0 for l < first[r] */
	int *last;		/* the same by columns: S(l, r) = 0 for l > last[r]
				 * (lu_env_factor's reach) */
	int *cstart, *crow;	/* the rows i > j of the envelope's column j
				 * (first[i] <= j), ascending, at crow[cstart[j] ..
				 * cstart[j + 1] - 1]: chol_factor's loop */
	double *P;		/* ne x 6: P_e */
	double *Zb;		/* emax x 6: Z_e of one block's entries; dense:
				 * ne x 6, every entry's, kept for the solves */
	int emax;		/* longest list */
	int zall;		/* Zb holds every entry (dense) */
	/* dense: S row-major; Cholesky L in the lower triangle, or LU */
	double *S;
	double *dinv;		/* reciprocals of the pivots (L(j, j) or U(j, j)) */
	int *ipiv;
	int chol;		/* the last dense factorization was Cholesky */
	int lu_env;		/* ... was LU without pivoting, in the envelope */
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
	int bad_body;		/* a singular mass block's body, or -1 */
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

/* where row r's values start in the jac of kkt_factor (kkt_set_rows) */
static inline long row_at(const struct kkt *k, int r)
{
	return k->jo ? k->jo[r] : 12L * r;
}

/* kkt.c: the sparse Schur complement's fallback, UMFPACK with its
 * pivoting on the Ax of kkt_schur.c's factor_spf */
int kkt_factor_umf(struct kkt *k);

/* kkt_schur.c: P_e of every entry from jac; the dense Schur complement
 * (lower: its lower envelope only), dropped rows decoupled; the Schur
 * path's plain factorization (dense or spf) */
void kkt_form_p(struct kkt *k, const double *jac);
void kkt_form_dense(struct kkt *k, int lower);
int kkt_factor_try(struct kkt *k, const double *W);
/* the dense S again, factored by LU with partial pivoting (a W not
 * symmetric): kkt_rank.c's smallest pivot as before lu_env_factor */
int kkt_factor_lu(struct kkt *k);

/* kkt_rank.c: the Schur paths' factorization with redundant rows and
 * singular positions */
int kkt_factor_schur(struct kkt *k, const double *W, const double *jac);

#endif
