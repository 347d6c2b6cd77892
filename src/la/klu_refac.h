/* klu_refac.h - a KLU numeric factorization that keeps its pivot order.
 *
 * la_klu_refactor factors the matrix (Ap, Ai, Ax) analysed in sym into
 * *num: in the pivot order of the *num it is given while that holds up
 * (klu_refactor, then KLU's crude reciprocal condition estimate, the ratio
 * of the smallest and largest pivots of U, above LA_KLU_RCOND), else
 * afresh with pivoting (klu_factor; the old *num freed).  Returns 0, or -1
 * when the factorization failed (*num then NULL or singular: the caller
 * decides whether to keep it).  la_klu_refactor_fresh also says in *fresh
 * whether the pivot order is new (klu_factor): a restart (form/rp.c)
 * replays that factorization to get the same order back.  Used by form/rp.c (Phi_u) and la/kkt.c
 * (the full matrix with coupling blocks).
 */
#ifndef MBSIM_KLU_REFAC_H
#define MBSIM_KLU_REFAC_H

#include <klu.h>

#define LA_KLU_RCOND 1e-12

static inline int la_klu_refactor_fresh(int *Ap, int *Ai, double *Ax, klu_symbolic *sym,
					klu_numeric **num, klu_common *kc, int *fresh)
{
	if (fresh)
		*fresh = 0;
	if (*num && klu_refactor(Ap, Ai, Ax, sym, *num, kc) && klu_rcond(sym, *num, kc) &&
	    kc->rcond > LA_KLU_RCOND)
		return 0;
	if (*num)
		klu_free_numeric(num, kc);
	*num = klu_factor(Ap, Ai, Ax, sym, kc);
	if (fresh)
		*fresh = 1;
	return *num && kc->status == KLU_OK ? 0 : -1;
}

static inline int la_klu_refactor(int *Ap, int *Ai, double *Ax, klu_symbolic *sym,
				  klu_numeric **num, klu_common *kc)
{
	return la_klu_refactor_fresh(Ap, Ai, Ax, sym, num, kc, NULL);
}

#endif
