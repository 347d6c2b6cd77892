/* odeint.h - ODE schemes on the seam of form/ode.h: the state they share
 * (odeint.c), the Rosenbrock-Nystrom family rn4 and w2 (rosenbrock.c,
 * seed 001 §2) and the explicit Adams baseline adams (adams.c, SUNDIALS
 * CVODE).  A scheme sees only struct ode_sys; the run loop sees body
 * states (struct ra_state) as from every other scheme. */
#ifndef MBSIM_ODEINT_H
#define MBSIM_ODEINT_H

#include "integ.h"
#include "../form/ode.h"

struct rp;
struct tree;
struct ode_ctrl;

struct odeint {
	struct rp *rp;		/* the formulation rp, or NULL */
	struct tree *tree;	/* the formulation tree, or NULL (both NULL: sys
				 * given by a test) */
	struct ode_ctrl *ctrl;	/* the integral states of controllers around the
				 * formulation (form/ode_ctrl.h), or NULL */
	struct ode_sys *sys;
	int n;
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
	void *ros;		/* rosenbrock.c */
	void *cv;		/* adams.c, bdf.c (dae = 1) */
	int dae;		/* cv is bdf.c's (SUNDIALS IDA) */
	/* bdf: IDA's steps, last order, Newton iterations, error-test and
	 * nonlinear convergence failures, over the run */
	long dae_steps, dae_newton, dae_etf, dae_ncf;
	int dae_order;
};

/* Set up it->ode for scheme it->info on its formulation, made here: rp,
 * or tree when o->formulation says so (integrator.formulation).  0, or -1
 * with records in d (tree: a model that is not a tree rooted at the
 * ground, tree_check). */
int odeint_init(struct integ *it, const struct sim_options *o, struct diag *d);
/* The same on a given system (unit tests); o: step-control settings. */
struct odeint *odeint_new(struct ode_sys *sys, const struct sim_options *o);
void odeint_free(struct odeint **O);

/* The accepted state from x (a new run, or x not the last state given). */
int odeint_begin(struct integ *it, struct odeint *O, const struct ra_state *x);
/* After an accepted step to (t, y, yd) whose f the formulation holds:
 * the coordinate check (accept), then the body state into out (may be
 * NULL).  Returns an integ status. */
int odeint_end(struct integ *it, struct odeint *O, struct ra_state *out);
/* The integ status of a formulation's status (ODE_*). */
int odeint_status(int st);
/* f with its count; maps the formulation's failures to integ statuses. */
int odeint_rhs(struct odeint *O, double t, const double *y, const double *yd, double *ydd);

/* Keep what the formulation said of the last failure (before a renew
 * that may clear it); odeint_why: the formulation's word now, or the one
 * kept when it has none. */
void odeint_keep_why(struct odeint *O);
const char *odeint_why(struct odeint *O);

/* A step of scheme it->info (rn4, w2, adams, bdf) from x (the accepted state
 * at x->t) of size h, or shorter when the step control rejects, into y. */
int odeint_step(struct integ *it, double h, struct ra_state *x, struct ra_state *y);
/* The same on an odeint alone (unit tests): from (O->t, O->y, O->yd),
 * one step of size h (adaptive: at most h); the time reached in *t1. */
int ros_step_ode(struct odeint *O, int id, double h, double *t1, double *h_next);
int adams_step_ode(struct odeint *O, double h, double *t1, double *h_next);
int bdf_step_ode(struct odeint *O, double h, double *t1, double *h_next);
/* bdf: the start from x with consistent initial values (IDACalcIC when
 * there are massless coordinates), the body state there into x: the run's
 * initial accelerations (instead of ra's index-1 solve, which needs
 * regular masses). */
int bdf_begin(struct integ *it, struct ra_state *x);
void bdf_free(struct odeint *O);
void ros_free(struct odeint *O);
void adams_free(struct odeint *O);

#endif
