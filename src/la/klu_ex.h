/* klu_ex.h - triangular solves with a KLU factorization copied out.
 *
 * klu_solve walks KLU's packed factors (an index and a value interleaved
 * per entry, per column a case on the number of right sides): about 11
 * instructions an entry, measured by callgrind on the beam models, where
 * the solves of the Newton iteration were a third of the run (the
 * rotating shaft of seed 004, 220 unknowns, 5351 entries in L and U).
 * la_klu_ex_load copies the factors of one numeric factorization out by
 * klu_extract into plain compressed columns; la_klu_ex_solve then solves
 * with them, about half the instructions (bitwise the same result: the
 * same operations in the same order).  Only
 * for a factorization of one block (no block triangular form: nblocks ==
 * 1); otherwise load returns -1 and the caller keeps klu_solve.
 * la_klu_ex_refactor redoes the numbers of the copied factors for a new
 * matrix of the same pattern in the same pivot order, as klu_refactor
 * does, in about half its instructions (the beam models refactor their
 * Newton matrix every step or two: on the lateral buckling beam
 * klu_refactor and its row scaling were a fifth of the run).
 *
 * KLU factors P (R \ A) Q = L U with R the row scaling; klu_extract
 * gives its factors Rs in pivot order (row P[k] of A is divided by Rs[k]:
 * found by test, tests/unit/test_kkt.c), so A x = b is w_k = b_P[k] /
 * Rs[k], w = U^-1 L^-1 w, x_Q[k] = w_k.
 */
#ifndef MBSIM_KLU_EX_H
#define MBSIM_KLU_EX_H

#include <klu.h>

struct la_klu_ex {
	int n, ok, cap_l, cap_u;
	int *Lp, *Li, *Up, *Ui, *P, *Q, *R, *Pinv;
	double *Lx, *Ux, *Rs, *w;
};

/* Copies num's factors into ex (growing its arrays); 0, or -1 when they
 * cannot serve (ex->ok = 0: the caller solves with klu_solve). */
int la_klu_ex_load(struct la_klu_ex *ex, klu_symbolic *sym, klu_numeric *num, klu_common *kc);
/* A new matrix of the same pattern (Ap, Ai, Ax: the one KLU analysed)
 * factored into ex in ex's pivot order and row scaling, without KLU: a
 * left-looking LU over the known patterns (U's columns in ascending rows,
 * a topological order for L's solve).  0, or -1 when the pivots fall
 * below LA_KLU_RCOND of the largest (klu_refac.h's test; then ex->ok = 0
 * and the caller factors afresh with KLU and loads again). */
int la_klu_ex_refactor(struct la_klu_ex *ex, const int *Ap, const int *Ai, const double *Ax);
/* b (size n) overwritten by the solution of A x = b */
void la_klu_ex_solve(const struct la_klu_ex *ex, double *b);
void la_klu_ex_free(struct la_klu_ex *ex);

#endif
