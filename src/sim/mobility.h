/* mobility.h - degrees of freedom of a model from the rank of its
 * constraint Jacobian (issue 10: `mbsim check` prints the true mobility,
 * not only the Grübler count). */
#ifndef MBSIM_MOBILITY_H
#define MBSIM_MOBILITY_H

#include <stddef.h>

struct model;
struct diag;

struct mobility {
	int ncoord;	/* 6 per body */
	int nrows;	/* constraint rows */
	int rank;	/* of Phi_q at the assembled initial configuration; -1: unknown */
	int grubler;	/* ncoord - nrows */
	int mobility;	/* ncoord - rank */
	int *dependent;	/* rows found dependent (nrows - rank of them) */
	int *drivers;	/* drivers without which the rank is the same */
	int ndrivers;
	char why[256];	/* rank unknown: why */
};

/* The deck's initial configuration at t0 is assembled (Newton, as `run`
 * does) and Phi_q factored there by the saddle-point solver with the mass
 * blocks (la/kkt.h): the rows it drops as dependent (pivoted Cholesky of
 * the scaled Schur complement, an angle of 1e-5 rad) give the rank.  A
 * model of more than 1000 rows whose Jacobian is rank deficient has its
 * rank unknown (the rank-revealing path is dense).  Returns 0, or -1 with
 * mo->rank = -1 and a reason in mo->why.  Free with mobility_release. */
int mobility_compute(const struct model *m, double t0, struct mobility *mo);
/* An error in d, at the driver's place in the deck, for each dependent
 * driver of mo: one without whose rows the constraint Jacobian has the
 * same rank, which prescribes a motion the joints and the other drivers
 * already fix (at a singular initial position, one they fix there); the
 * index-3 schemes would drop it, or a joint's row in its place, and the
 * others fight it.  Which rows the factorization drops does not decide:
 * it may keep the driver's and drop a joint's.  Returns the number of
 * such drivers. */
int mobility_refuse_drivers(const struct model *m, const struct mobility *mo, struct diag *d);
/* The same at the state x of a run (its Jacobian at x->t): run's refusal
 * before the first step. */
struct ra_state;
int mobility_refuse_drivers_at(const struct model *m, const struct ra_state *x, struct diag *d);
void mobility_release(struct mobility *mo);

#endif
