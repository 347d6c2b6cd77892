/* statics.h - static equilibrium of the "ra" formulation and the
 * finite-difference Jacobians that it shares with the linearization
 * (linearize.c).
 *
 * Static equations (000 eq. 2 at rest, v = w = 0, no inertia):
 *   G(q, lambda) = f(q) - Phi_q^T lambda = 0   (6 per body: global force,
 *                                               body-frame torque)
 *   Phi(q, t) = 0.
 * q is perturbed as in the integrators: r += dr (global), A <- A exp(dth~)
 * (dth in the body frame), so a generalized vector has 6 entries per body.
 * Dense linear algebra (LAPACK), cubic in the number of bodies: meant for
 * models of up to about a hundred bodies (the 64-link chain: 5 s).
 */
#ifndef MBSIM_STATICS_H
#define MBSIM_STATICS_H

#include <stddef.h>

#include "../form/ra.h"

struct statics_result {
	int converged;		/* 1: both residuals below their tolerances */
	int iterations;		/* Newton iterations taken */
	double res_force;	/* max |G| at the end, N (a moment over
				 * statics_length: norms in statics.c) */
	double res_phi;		/* max |Phi| at the end, constraint units */
	double tol_force, tol_phi;	/* the tolerances applied */
	int worst_body;		/* body with the largest |G| (-1: none) */
	int worst_row;		/* constraint row with the largest |Phi| (-1: none) */
	double load_factor;	/* the load factor of the last equilibrium (1: full loads) */
	int load_steps;		/* load steps taken (0: the full load at once) */
	int stalled;		/* the last iterations stopped: no step lowered the residual */
	int stopped;		/* interrupted (SIGINT, SIGTERM: util/interrupt.h) */
	char message[640];	/* failure: what and where */
};

/* Options: Newton iterations per load step (200), load steps (0: the
 * full load first, continuation from 1/4 of it when that fails; 1: the
 * full load only; n > 1: continuation from 1/n), force tolerance
 * relative to the force scale (1e-10). */
struct statics_options {
	int max_iterations;
	int load_steps;
	double tolerance;
	double load_factor;	/* the loads' factor (1); another value: that load
				 * alone, no continuation (buckling's unloaded
				 * state, 0) */
};
void statics_options_default(struct statics_options *o);

/* Applied loads, which the load factor scales: gravity and the force and
 * torque elements.  1 when the model has any. */
int statics_has_loads(const struct model *m);

/* statics_residual with the applied loads times lf. */
void statics_residual_lf(struct ra *s, const struct ra_state *x, double t, const double *lam,
			 double lf, double *G);

/* D = dG/dq at x under the load factor lf (statics_jac.c): the beams'
 * analytic element stiffness, differences with steps scaled to each
 * variable for the rest. */
void statics_tangent(struct ra *s, const struct ra_state *x, double t, const double *lam,
		     double lf, double *D);

/* statics_tangent without the beams' internal forces (the rest: loads,
 * springs, motors, the constraints' geometric stiffness). */
void statics_tangent_rest(struct ra *s, const struct ra_state *x, double t, const double *lam,
			  double lf, double *D);

/* Minimum-norm least-squares solution of A x = b (A m x n column-major,
 * destroyed; b of max(m, n) entries, x returned in its first n),
 * singular values below 1e-13 of the largest taken as zero (LAPACK
 * dgelsd).  0, or -1. */
int statics_lsq(int m, int n, double *A, double *b);

/* Characteristic length of the model (m): the largest distance of a
 * centroid from the origin, of a joint marker or force attachment from its
 * centroid, of a spring's free length; 1 when all are 0.  Sets the
 * finite-difference steps and the constraint tolerance. */
double statics_length(const struct model *m);

/* G = f(x) - Phi_q^T lam at time t (ra_eval(PRIM_JAC) is left at x). */
void statics_residual(struct ra *s, const struct ra_state *x, double t, const double *lam,
		      double *G);

/* Dense Phi_q (nc x 6 nb, column-major) from s->jac (ra_eval(PRIM_JAC) done). */
void statics_jacobian(const struct ra *s, double *P);

/* x = base with coordinate j moved by d (vel = 0: r by d, or the
 * rotation of body j / 6 by exp(d e~) in its body frame; vel = 1: v or w
 * by d). */
void statics_perturb(const struct ra *s, struct ra_state *x, const struct ra_state *base, int j,
		     double d, int vel);

/* dG/dq (vel = 0) or dG/dv (vel = 1) at x, lam fixed: 6 nb x 6 nb,
 * column-major, by fourth-order central differences
 *   D = [8 (G(+h) - G(-h)) - (G(+2h) - G(-2h))] / (12 h),
 * h = 1e-3 L (translations, m; velocities, m/s) or 1e-3 rad (rotations,
 * rad/s), L = statics_length: truncation O(h^4) ~ 1e-12 relative, rounding
 * ~ 1e-16 / 1e-3 relative to the forces.  Leaves ra_eval at x. */
void statics_fd(struct ra *s, const struct ra_state *x, double t, const double *lam,
		int vel, double *D);

/* Equilibrium at time t from the state in x (positions; velocities are set
 * to 0) with the options o (NULL: statics_options_default).  The iterates
 * are kept on the constraints (Gauss-Newton projection, minimum-norm
 * steps) with the multipliers that balance the loads best (lambda =
 * argmin |f - Phi_q^T lambda|), so that G is the unbalanced force along
 * the motions the constraints allow.  Each iteration solves
 *   [M / tau^2 - dG/dq   Phi_q^T] [dq     ]   [ G  ]
 *   [Phi_q                0     ] [dlambda] = [-Phi]
 * with dG/dq the tangent stiffness (statics_tangent) and 1 / tau^2 = 0
 * (Newton's step) first: taken when it lowers |G| and, for conservative
 * loads (gravity, springs), does not raise the potential; with beams also
 * shortened by a backtracking line search, and taken in full whatever
 * its residual for up to 10 iterations from a watch point (a watchdog);
 * else the pseudo-transient step (Kelley and Keyes 1998;
 * docs/REFERENCES.md) with tau shortened until the potential falls (other
 * loads: until the residual is at most twice the least so far), tau^2
 * then doubled at least.  When the full load fails, continuation in a
 * load factor on gravity and the force and torque elements from the
 * state in x (statics_options).  Linear solves are dense least squares
 * (LAPACK dgelsd: redundant constraints and free directions are allowed).
 * On return x holds the last iterate and its multipliers.  0 on
 * convergence, -1 with r->message naming the worst body (the constraint
 * furthest from being met, if one is not; a motor saturated there) and
 * r->load_factor the last load factor reached. */
int statics_solve(struct ra *s, struct ra_state *x, double t, const struct statics_options *o,
		  struct statics_result *r);

/* "joint 'NAME'" or "driver 'NAME'" for constraint row k (static storage). */
const char *statics_row_name(const struct model *m, int k);

#endif
