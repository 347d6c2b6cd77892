/* assemble.h - consistent initial conditions, and the saddle-point solves
 * [W P^T; P 0] [x; mu] = [0; b] (P = Phi_q) that assembly shares with the
 * kinematic analysis (kinematic.c) and the residuals shared with output.c. */
#ifndef MBSIM_ASSEMBLE_H
#define MBSIM_ASSEMBLE_H

#include <stddef.h>

#include "../integ/integ.h"
#include "sim.h"

/* Newton on positions (mass-weighted least change), then a projection of
 * velocities onto Phi_q v = nu.  Records the largest change per body in r.
 * Returns 0, or -1 with a message in msg (also when interrupted(): it
 * polls util/interrupt.h once per iteration). */
int assemble(struct ra *s, struct integ *it, struct ra_state *x, double tol,
	     struct sim_result *r, char *msg, size_t n);

/* Largest |v[i]|, its index in *arg (-1 when n = 0).  A NaN is returned
 * as soon as it is met, so that no test "residual < tol" passes on it. */
double assemble_maxabs(const double *v, int n, int *arg);

/* kkt_factor of [W P^T; P 0] at the Jacobian in s (ra_eval(PRIM_JAC) done).
 * 0, or -1 with "DOING: <the solver's reason> near <constraint>" in msg. */
int assemble_factor(struct kkt *k, const double *W, const struct ra *s, const char *doing,
		    char *msg, size_t n);

/* One Newton step on Phi(q) = 0 with the last factorization and s->phi
 * current: [W P^T; P 0] [dq; mu] = [0; -Phi], r += dr, A <- A exp(dtheta~).
 * Scratch b, mu: nc; the step is left in dq (6 nb). */
void assemble_newton_step(struct ra *s, struct kkt *k, struct ra_state *x, double *b,
			  double *dq, double *mu);

/* out = Phi_q (lin, ang) - rhs (nc): the velocity level with (v, w, nu),
 * the acceleration level with (a, wd, gamma).  lin, ang: 3 nb, global
 * translational and body-frame rotational parts.  Needs the Jacobian in
 * s. */
void assemble_residual(const struct ra *s, const double *lin, const double *ang,
		       const double *rhs, double *out);

#endif
