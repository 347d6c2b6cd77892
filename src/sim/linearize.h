/* linearize.h - the constrained linearized system at a state at rest, and
 * its natural frequencies and damping ratios.
 *
 * About a state x with v = w = 0 and multipliers lambda (a static
 * equilibrium, statics.h), small motions dq (6 per body: dr global, dth
 * body frame, A = A0 exp(dth~)) obey
 *   M dq'' + C dq' + K dq + Phi_q^T dlambda = 0,   Phi_q dq = 0,
 * M = diag(m I, J) per body, K = -dG/dq (G = f - Phi_q^T lambda, lambda
 * fixed: the constraints' geometric stiffness is in K), C = -df/dv, both by
 * the finite differences of statics_fd.  The gyroscopic term w~ J w is
 * quadratic in w and drops out at rest.  With N an orthonormal basis of
 * the null space of Phi_q (LAPACK dgesvd), dq = N y gives the minimal
 * system Mr y'' + Cr y' + Kr y = 0, Mr = N^T M N, ...; its eigenvalues s
 * come from the generalized eigenproblem (LAPACK dggev)
 *   [0 I; -Kr -Cr] z = s [I 0; 0 Mr] z.
 */
#ifndef MBSIM_LINEARIZE_H
#define MBSIM_LINEARIZE_H

#include <stddef.h>

#include "../form/ra.h"

/* One mode: an eigenvalue s = re + i im of the pair (im >= 0 listed once;
 * a real s alone).  freq = |s| / (2 pi) Hz (the undamped natural
 * frequency of an underdamped pair); zeta = -re / |s| (1 for a decaying
 * real s, negative when the mode grows); damped = im / (2 pi) Hz. */
struct mode {
	double re, im;
	double freq, damped, zeta;
	int rigid;		/* |s| below 1e-5 of the largest |s|: a free motion
				 * (s^2 ~ stiffness, whose finite differences err
				 * by ~1e-12 relative: a zero one gives |s| up to
				 * ~1e-6 of the largest) */
};

struct modes {
	int ndof;		/* dimension of the null space of Phi_q */
	int nmodes;
	struct mode *m;		/* sorted by freq, ascending */
	double fmax;		/* largest freq, Hz */
	int damped;		/* C has a nonzero entry */
};

/* Linearize at x (at rest, multipliers in x->lam) at time t and solve the
 * eigenproblem.  0, or -1 with a message. */
int modes_compute(struct ra *s, const struct ra_state *x, double t, struct modes *out,
		  char *msg, size_t n);
void modes_release(struct modes *mo);

#endif
