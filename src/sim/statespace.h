/* statespace.h - A, B, C, D of the linearized system in minimal
 * coordinates (mbsim linearize).
 *
 * About a state x (the initial state of a run, the state a run reaches,
 * or a static equilibrium), with M, K, C of linearize.h (K with the
 * geometric stiffness of x's multipliers; the system frozen at x as for
 * mbsim modes --at), the coordinates are partitioned (Wehage and Haug's
 * generalized coordinate partitioning): a pivoted QR of the constraint
 * rows (Phi_q, and theta = 0 for each particle), P Pi = Q [R11 R12],
 * makes the first rank(P) pivot columns dependent and the rest, y (d of
 * them, in the order of the model's coordinates: 6 per body, dr global
 * then dth body frame), independent: dq = N y with N's rows of y the
 * identity and those of the dependent ones -R11^-1 R12.  A coordinate
 * that no constraint row involves (a slider's travel along its axis) is
 * always independent.  Then
 *   Mr y'' + Cr y' + Kr y = Br u,   Mr = N^T M N, ..., Br = N^T dG/du,
 *   x = [y; y'],  A = [0 I; -Mr^-1 Kr  -Mr^-1 Cr],  B = [0; Mr^-1 Br],
 *   z = C x + D u.
 * Inputs u: an amount added to the magnitude of every force and torque
 * element (the multiplier of its vector), of every spring-damper with an
 * actuator or an expression (its tension or moment, N or N m) and of
 * every motor (its effort after the limit, N or N m), in the deck's order
 * (ra_input; dG/du by a central difference, exact: G is affine in u).
 * Outputs z: the deck's measures (C and D by fourth-order central
 * differences of their expressions, as statics_fd takes K), or, without
 * measures, the states themselves (C = I, D = 0).
 */
#ifndef MBSIM_STATESPACE_H
#define MBSIM_STATESPACE_H

#include <stddef.h>

#include "../form/ra.h"

struct statespace {
	int d;			/* independent coordinates */
	int nx, nu, nz;		/* states (2 d), inputs, outputs */
	double *A, *B, *C, *D;	/* row-major nx x nx, nx x nu, nz x nx, nz x nu */
	int *coord;		/* d: the model coordinate (6 body + k) of each */
	int *input;		/* nu: the force element of each input */
	int measures;		/* 1: the outputs are the deck's measures, 0:
				 * the states */
	unsigned flags;		/* LIN_DAMPED, LIN_GYROSCOPIC (linearize.h) */
};

/* 1 when force element f is an input of the linearization */
int ss_is_input(const struct force *f);

/* A, B, C, D at x (multipliers in x->lam) at time t.  0, or -1 with a
 * message. */
int ss_compute(struct ra *s, const struct ra_state *x, double t, struct statespace *L,
	       char *msg, size_t len);
void ss_release(struct statespace *L);

/* The name of state k (0 <= k < nx) of L in buf: "BODY.x" ... "BODY.rz"
 * for the coordinates (rz: the rotation about the body's z axis), "BODY.vx"
 * ... "BODY.wz" for their rates. */
void ss_state_name(const struct model *m, const struct statespace *L, int k, char *buf,
		   size_t n);

#endif
