/* odeint.h - ODE schemes on the seam of form/ode.h: the state they share
 * (odeint.c), on which the Rosenbrock-Nystrom family rn4 and w2
 * (rosenbrock.c, seed 001 §2), the explicit Adams baseline adams (adams.c,
 * SUNDIALS CVODE) and bdf (bdf.c, SUNDIALS IDA) build their ops.  A scheme
 * sees only the struct ode_sys the run hands it (it->ode); the run loop
 * sees body states (struct ra_state) as from every other scheme.  odeint.c
 * calls no scheme: each calls it. */
#ifndef MBSIM_ODEINT_H
#define MBSIM_ODEINT_H

#include "integ.h"
#include "../form/ode.h"

struct odeint {
	struct ode_sys *sys;	/* the formulation's ODE, built by the caller */
	int n;
	int cap;		/* room in y, yd, ydd (and the schemes' memory): n at most */
	double t;		/* time of the accepted state y, yd */
	double *y, *yd, *ydd;	/* n each: the accepted state and its f */
	int started;
	int restart;		/* the coordinates changed at the last accept */
	double atol, rtol, safety, facmin, facmax, h_max;	/* h_max: integrator.max_step or the run */
	double span;		/* the run's length */
	int adaptive;
	long nrhs;		/* f evaluations */
	long njac;		/* Jacobian evaluations */
	long njac_analytic;	/* of them analytic (ode_sys.jac) */
	int no_analytic;	/* take differences even where ode_sys.jac is
				 * (integrator.jacobian: differences) */
	long rejected;		/* rejected steps */
	long rejected_before;	/* adams: those before CVODE's last restart */
	char why[600];		/* the formulation's word on a failure before a renew */
	const char *detail;	/* what the formulation said of the last failure, or NULL */
	void *mem;		/* the scheme's own state (rosenbrock.c, adams.c, bdf.c) */
	void (*mem_free)(struct odeint *O);	/* frees it */
};

/* The schemes' one step on an odeint: from (O->t, O->y, O->yd), one step
 * of size h (adaptive: at most h); the time reached in *t1, the next
 * step proposed in *h_next. */
typedef int (*odeint_kernel)(struct odeint *O, const struct integ_info *info, double h,
			     double *t1, double *h_next);

/* The shared part of the ODE families' ops (ros_ops, adams_ops, bdf_ops):
 * it->mem, an odeint on it->ode (room for it->ode_cap coordinates); -1
 * with a record in d when the caller gave no ODE. */
int odeint_init(struct integ *it, const struct sim_options *o, struct diag *d);
void odeint_free_op(struct integ *it);
int odeint_begin_op(struct integ *it, const struct ra_state *x);
int odeint_no_retry(struct integ *it, double tol);
int odeint_fail(const struct integ *it, int st, double t, long step, double h, char *msg,
		size_t n);
/* The statistics every ODE scheme reports (ODEINT_STATS of them, keys in
 * odeint_keys order) */
#define ODEINT_STATS 4
#define ODEINT_KEYS { "rhs_evaluations", INTEG_STAT_ATTR | INTEG_STAT_SHARED }, \
	{ "jacobian_evaluations", INTEG_STAT_ATTR | INTEG_STAT_SHARED }, \
	{ "analytic_jacobians", INTEG_STAT_ATTR | INTEG_STAT_SHARED }, \
	{ "repartitions", INTEG_STAT_ATTR | INTEG_STAT_SHARED }
int odeint_stats(const struct integ *it, const struct sim_options *o, double *v);
void odeint_notes(const struct integ *it, const struct sim_options *o, const double *v,
		  char *buf, size_t n);
/* ODEINT_KEYS alone, NULL-terminated */
extern const struct integ_stat_key odeint_keys[];
/* The ops every ODE scheme takes from here; a scheme adds its .step
 * (odeint_step with its kernel), its statistics (ODEINT_STATS_OPS, or
 * its own that begin with them) and .accel when it has its own. */
#define ODEINT_OPS_BASE .init = odeint_init, .begin = odeint_begin_op, \
	.singular_tol = odeint_no_retry, .fail = odeint_fail, .notes = odeint_notes, \
	.iter_unit = "f evaluations", .free = odeint_free_op
/* ODEINT_OPS_BASE with the restart of the counters alone (adams, bdf);
 * rn4 and w2 take the base and their own ckpt (rosenbrock.c) */
#define ODEINT_OPS ODEINT_OPS_BASE, .ckpt = odeint_ckpt, .ckpt_inexact = 1
/* Restart: the counters only.  The formulation starts again at the
 * restart's body state (a new partition or chart, ode_sys.start) and the
 * scheme with it, as after a repartition: within the scheme's error of
 * the run continued, not bit for bit (man mbsim-run(1)).
 * odeint_ckpt_state: the counters, then, where the formulation saves its
 * own state (ode_sys.ckpt), the accepted state and the formulation's:
 * returns 1 then (the scheme's memory follows), 0 when it starts again. */
void odeint_ckpt(struct integ *it, struct ckpt *c);
int odeint_ckpt_state(struct integ *it, struct ckpt *c);
#define ODEINT_STATS_OPS .stat_keys = odeint_keys, .stats = odeint_stats
/* A step of it's scheme (kernel) from x (the accepted state at x->t) of
 * size h, or shorter when the step control rejects, into y. */
int odeint_step(struct integ *it, double h, struct ra_state *x, struct ra_state *y,
		odeint_kernel kernel);
struct odeint *odeint_of(const struct integ *it);

/* An odeint on a given system; o: step-control settings; room for cap
 * coordinates, or sys->n when that is more (0: sys->n). */
struct odeint *odeint_new(struct ode_sys *sys, const struct sim_options *o, int cap);
void odeint_free(struct odeint **O);

/* The accepted state from x (a new run, or x not the last state given). */
int odeint_begin(struct odeint *O, const struct ra_state *x);
/* After an accepted step to (t, y, yd) whose f the formulation holds:
 * the coordinate check (accept), then the body state into out (may be
 * NULL).  Returns an integ status. */
int odeint_end(struct odeint *O, struct ra_state *out);
/* The integ status of a formulation's status (ODE_*). */
int odeint_status(int st);
/* f with its count; maps the formulation's failures to integ statuses. */
int odeint_rhs(struct odeint *O, double t, const double *y, const double *yd, double *ydd);

/* The pieces of a scheme that SUNDIALS steps on the first-order form
 * Y = (y, y') (adams.c: CVODE, erk.c: ARKODE's ERKStep); start makes the
 * library's integrator at the accepted state (O->t, O->y, O->yd), or
 * starts it again there.
 * odeint_f1: Y' = (y', f(t, y, y')) into out from y (2 O->n each), f
 * counted; an integ status.
 * odeint_reached: a step of the library reached (t, Y): the state into
 * O, and where the formulation wants new coordinates there, f at it, the
 * change (accept) and start.  An integ status.
 * odeint_renew: a step failed with st: where that is the formulation's
 * (singular, not converged) and it can renew its coordinates, new ones
 * at the last accepted state and start there; INTEG_OK then, to try the
 * step once more, st otherwise (or start's failure). */
int odeint_f1(struct odeint *O, double t, const double *y, double *out);
int odeint_reached(struct odeint *O, double t, const double *Y, int (*start)(struct odeint *O));
int odeint_renew(struct odeint *O, int st, int (*start)(struct odeint *O));

/* Keep what the formulation said of the last failure (before a renew
 * that may clear it); odeint_why: the formulation's word now, or the one
 * kept when it has none. */
void odeint_keep_why(struct odeint *O);
const char *odeint_why(struct odeint *O);

/* The kernels on an odeint alone (unit tests); ros_step_ode steps scheme
 * id (INTEG_RN4, INTEG_W2). */
int ros_step_ode(struct odeint *O, int id, double h, double *t1, double *h_next);
int adams_step_ode(struct odeint *O, double h, double *t1, double *h_next);
int bdf_step_ode(struct odeint *O, double h, double *t1, double *h_next);

#endif
