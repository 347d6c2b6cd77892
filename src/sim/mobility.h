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
	int *dependent;	/* rows found dependent (rank_nrows - rank of them) */
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
/* An error in d, at the driver's place in the deck, for each of the n
 * rows[] that is a driver's: a dependent driver row prescribes a motion
 * the joints and the other drivers already fix (at a singular initial
 * position, one they fix there), which the index-3 schemes would drop and
 * the others fight.  Returns the number of such drivers. */
int mobility_refuse_drivers(const struct model *m, const int *rows, int n, struct diag *d);
void mobility_release(struct mobility *mo);

#endif
