/* ode.h - the seam between formulations and ODE schemes.
 *
 * A formulation that can reduce the equations of motion to an ODE of
 * second order in n minimal coordinates,
 *
 *     y'' = f(t, y, y'),
 *
 * offers it as a struct ode_sys; every ODE scheme (integ/rosenbrock.c:
 * rn4 and w2, integ/adams.c: adams) steps any struct ode_sys and knows
 * nothing else of the formulation.  `rp` (Euler parameters with
 * generalized coordinate partitioning, seed 001 §1) is the first one; the
 * recursive joint coordinates of seed 003 are meant to be the next.
 *
 * The coordinates may be a local chart: after each accepted step the
 * scheme calls accept(), which may choose new coordinates (a
 * repartition, a new chart) and rewrite y, y' in them; a one-step scheme
 * carries on, a multistep scheme restarts.  Body states for output come
 * from bodies(), in the layout every formulation shares (struct
 * ra_state: position, rotation matrix, velocity, body-frame angular
 * velocity, their rates and the multipliers), so the run loop and the
 * HDF5 writer are the same for every formulation.
 *
 * States of first order that the model adds (the integral z of a motor's
 * control error e, z' = e) join y as second-order coordinates w with w' =
 * z, w'' = e (form/ode_ctrl.h): a scheme steps them as any other
 * coordinate, at its own order.
 */
#ifndef MBSIM_ODE_H
#define MBSIM_ODE_H

#include "ra.h"

enum ode_status {
	ODE_OK = 0,
	ODE_NEWTON_FAIL = 1,	/* the dependent coordinates did not converge */
	ODE_SINGULAR = 2,	/* no valid set of independent coordinates */
	ODE_NONFINITE = 3,	/* NaN or Inf in f */
};

struct ckpt;

struct ode_sys {
	int n;			/* minimal coordinates (fixed for a run) */
	void *ctx;
	/* f: y'' at (t, y, y').  Makes the configuration there the current
	 * one (dependent coordinates, velocities, accelerations) for
	 * bodies().  Returns an enum ode_status. */
	int (*rhs)(void *ctx, double t, const double *y, const double *yd, double *ydd);
	/* After an accepted step to (t, y, y'), whose f was the last rhs
	 * call: may change the coordinates (then rewrites y, y' and returns
	 * 1), or fail (a negative enum ode_status), or 0. */
	int (*accept)(void *ctx, double t, double *y, double *yd);
	/* 1 when accept() would change the coordinates, judged from the
	 * last rhs call (a multistep scheme then evaluates f at its
	 * accepted state and calls accept()); cheap. */
	int (*want_new)(void *ctx);
	/* New coordinates at the accepted state (t, y, y') even though
	 * accept() saw no need: a step from it failed (rp: the dependent
	 * coordinates did not converge, Phi_u singular at a stage).  f
	 * there into ydd; 1 when the coordinates changed (y, y', ydd
	 * rewritten), 0 when the same ones came out, < 0 (minus an enum
	 * ode_status) on failure.  May be NULL. */
	int (*renew)(void *ctx, double t, double *y, double *yd, double *ydd);
	/* The coordinates of a consistent body state x (and its f into
	 * ydd): the start of a run.  Returns an enum ode_status. */
	int (*start)(void *ctx, const struct ra_state *x, double *y, double *yd, double *ydd);
	/* Body states of the current configuration into x (x->t set by
	 * the caller). */
	void (*bodies)(void *ctx, struct ra_state *x);
	/* The formulation's own body state of the last f (or resid) call:
	 * positions and velocities, without a copy (accelerations and
	 * multipliers not necessarily made).  May be NULL. */
	const struct ra_state *(*state)(void *ctx);
	/* Analytic integration Jacobians J1 = d f / d y and J2 = d f / d y'
	 * (n x n column-major) at (t, y, y'), which must be the point of the
	 * last f call (rhs); NULL where the formulation has none.  Returns
	 * 0; 1 when not available (a scheme then takes differences); 2 when
	 * the last f call was elsewhere (call rhs at (t, y, y') first). */
	int (*jac)(void *ctx, double t, const double *y, const double *yd, double *J1,
		   double *J2);
	/* 1 when f does not depend on t but through y, y' (no driver with
	 * a function of time, no actuator): f_t = 0, a scheme need not
	 * take its difference.  Only set together with jac. */
	int autonomous;
	/* How often accept() or renew() have changed the coordinates so far
	 * (rp: new partitions; tree: re-based rotation charts).  May be
	 * NULL (none). */
	long (*renewals)(void *ctx);
	/* Restart (util/ckpt.h): save or load everything a later call
	 * depends on (the coordinates, their caches, the factorizations'
	 * pivot orders), so that the calls after a load take the path and
	 * give the bits of the run uninterrupted; a load comes after
	 * nothing else.  NULL: the formulation starts again at the body
	 * state (start), within the scheme's error. */
	void (*ckpt)(void *ctx, struct ckpt *c);
	/* What failed last, for the run's message ("" if nothing). */
	const char *(*why)(void *ctx);
	/* For residual (DAE) schemes (integ/bdf.c); NULL where the
	 * formulation offers none.  resid: the residual of the second-order
	 * rows at (t, y, y', y''), zero on a solution; for coordinates with
	 * inertia y'' - f scaled, for coordinates without (seed 003 eq. 28b)
	 * an equation free of their y'', so that their y' is an algebraic
	 * variable.  Makes the configuration there the current one, with
	 * the given y'' as accelerations, for bodies(). */
	int (*resid)(void *ctx, double t, const double *y, const double *yd, const double *ydd,
		     double *r);
	/* The coordinates without inertia (alg[k] = 1; alg may be NULL),
	 * known after start(); returns their count. */
	int (*massless)(void *ctx, char *alg);
	/* Velocity variables for DAE schemes (seed 003 eq. 29): w = y' + G
	 * y', G's entries (row gi, column ga, value gv; room for n times
	 * the massless count) at the current configuration, nonzero only
	 * in massless columns and rows with inertia, so that y' = w - G w.
	 * Rows whose y'' moves with massless coordinates' y'' get w free
	 * of it.  Returns the count; NULL where not offered. */
	int (*vel_map)(void *ctx, int *gi, int *ga, double *gv);
};

#endif
