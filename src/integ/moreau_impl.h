/* moreau_impl.h - what moreau.c (the step) and moreau_pgs.c (its contact
 * problem) share: the active contacts, the family's memory, and the
 * solver's constants (the method: moreau.c's opening comment). */
#ifndef MBSIM_MOREAU_IMPL_H
#define MBSIM_MOREAU_IMPL_H

#include "integ.h"
#include "../contact/contact.h"

/* Projected-gradient iterations of a sliding contact's local solve */
#define MJ_LOCAL 200
/* Sweeps of the Gauss-Seidel iteration at most (per step) */
#define MJ_SWEEPS 10000
/* Projected Gauss-Seidel converges linearly at a rate that tends to 1 as
 * a packing grows (the impulse of a column's bottom learns of its top in
 * as many sweeps as it has layers, and the redundant contacts of a dense
 * pile leave the Delassus matrix singular): on 216 spheres in a box the
 * relative change stalls near 1e-7 within MJ_SWEEPS, short of the default
 * integrator.tolerance (1e-10).  From MJ_ACCEPT_SWEEPS sweeps on, every
 * MJ_RATE_SWEEPS a step measures the rate at which the change falls; when
 * at that rate it would not reach the tolerance within MJ_SWEEPS, the step
 * accepts its iterate if no impulse moves by more than MJ_ACCEPT of the
 * largest in a sweep (the residual of the contact problem in its natural
 * map: a contact's local solve is the projection of its impulse against
 * its own velocity error), and counts it as inexact with that residual
 * (the run's statistics, man mbsim-run(1)).  A small redundant problem
 * that converges slowly but surely (a box on its four corners: some
 * hundreds of sweeps) still goes to the tolerance. */
#define MJ_ACCEPT 1e-4
#define MJ_ACCEPT_SWEEPS 200
#define MJ_RATE_SWEEPS 50
/* Past MJ_ACCEPT_SWEEPS the sweeps are over-relaxed by MJ_OMEGA
 * (projected SOR), for the slowly converging problems only: a larger
 * factor diverged on a pile of spheres, and over-relaxing the fast small
 * problems from the first sweep moved where their iteration stops
 * (bench/README.md has the figures). */
#define MJ_OMEGA 1.3

/* One active contact of a step. */
struct mj_c {
	int a, b;		/* sides (-1 ground), as in pt */
	double fr[9];		/* rows n, t1, t2 of the local frame, global */
	double Ha[18], Hb[18];	/* H's 3 rows x 6 entries for the body of each
				 * side (translational global, rotational body
				 * frame); zero for the ground */
	double Wd[9];		/* Delassus block W_ii */
	double WTi[4];		/* inverse of its tangential 2 x 2 block */
	double mu_s, mu_d, e;
	double tol;		/* integrator.tolerance */
	int slides;		/* slipped at the end of the step */
	double mu;		/* the cone of the step: mu_s while the contact
				 * sticks, mu_d while it slides (-1: undecided) */
	double Um[3];		/* U- = H u_k */
	double gap;		/* at q_M, m */
	double P[3];		/* impulse: normal, t1, t2 */
	struct contact_pt pt;	/* as detected */
};

struct mj {
	struct contact_world *W;
	double margin;		/* contacts within it are active (m) */
	struct ra_state xm;	/* positions at q_M (velocities u_k) */
	double *u, *u0, *a;	/* ng: iterate, u_k, right side */
	double *D;		/* with joints: ng x 3 a contact, by rows (cap
				 * contacts) */
	double *da, *dz;	/* with joints: delassus's right sides, ng x 3
				 * and nc x 3 (zero) */
	struct mj_c *c;
	int n, cap;
	/* the last step's contacts (key, impulse) for the warm start */
	struct mj_c *old;
	int nold, oldcap;
	/* and as the run sees them (mj_contacts) */
	struct integ_contact *out;
	int outcap;
	/* statistics */
	long contact_steps, sweeps;
	int max_contacts, last_sweeps;
	double last_res;
	long inexact;		/* steps accepted at MJ_ACCEPT */
	double max_res;		/* the largest residual accepted */
	/* the pairs that overlap (gap below -margin) in the first step and
	 * their deepest penetration, m: the scheme stops their approach but
	 * does not push them apart, so they stay overlapped (said at the end) */
	long overlaps0;
	double depth0;
	long checked;		/* the first step was looked at */
	int pgs_failed;		/* the last step failed in the contact problem */
};

/* U = H_i u (3) */
void mj_local_vel(const struct mj_c *c, const double *u, double *U);
/* g += H_i^T P (generalized, the two bodies) */
void mj_add_impulse(const struct mj_c *c, const double *P, double *g);
/* The Delassus blocks W_ii of M->c (and with joints the columns D_i) */
void mj_delassus(struct integ *it, struct mj *M);
/* Each contact's impulse from the last step's of the same contact, or 0 */
void mj_warm_start(struct mj *M);
/* Projected Gauss-Seidel on M->c from their impulses, u the free
 * velocity on entry and u_{k+1} on return: 0, or -1 (M->last_res) */
int mj_pgs(struct integ *it, struct mj *M, double *u);

#endif
