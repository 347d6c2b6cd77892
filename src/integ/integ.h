/* integ.h - the integrator interface shared by every family.
 *
 * A scheme is a registry row (registry.def); its family kernel advances a
 * state of the ra formulation by one step:
 *
 *   integ_step(it, h, x, y):  x holds t_n, y receives t_{n+1}.
 *   For schemes with info->lag = 1 (half-implicit) the step also completes
 *   x: its accelerations and multipliers at t_n become known only then.
 *   Otherwise y is complete.
 *
 * The run loop (sim/) owns the states, the time grid and the output.
 */
#ifndef MBSIM_INTEG_H
#define MBSIM_INTEG_H

#include "../form/ra.h"
#include "../la/kkt.h"
#include "../model/options.h"
#include "registry.h"

enum integ_status {
	INTEG_OK = 0,
	INTEG_NEWTON_FAIL = 1,	/* no convergence in max_iterations */
	INTEG_SINGULAR = 2,	/* iteration matrix singular */
	INTEG_NONFINITE = 3,	/* NaN or Inf in the iterate */
	INTEG_STEP_TOO_SMALL = 4,	/* step control went below its floor */
	INTEG_UNSTABLE = 5,	/* the growth detector of newmark.h tripped */
	INTEG_INTERRUPTED = 6,	/* a stop request (util/interrupt.h) seen inside
				 * a Newton iteration: no retry, the run ends */
};

/* Values of a step's unknowns at the last few steps of equal size, newest
 * first, for the predictor of hi and fi (integ_hist_*). */
#define INTEG_HIST_MAX 6		/* rows integ_hist can extrapolate from */

struct integ_hist {
	int n;			/* length of one row */
	int n0;			/* a row is v0[0 .. n0-1], then v1[0 .. n-n0-1] */
	int cap, rows;		/* rows kept at most, rows valid */
	double *v;		/* cap x n, a ring: the newest row at head */
	int head;
	int sel;		/* the degree is chosen by the values sel .. n-1 */
	int q;			/* rows the next prediction uses */
	double t, h;		/* time of the newest row, step between rows */
};

struct integ {
	const struct integ_info *info;
	struct ra *sys;
	struct kkt *kkt;
	double tol;
	int maxit;
	double *W;		/* nb x 18 iteration-matrix blocks */
	double *Wc;		/* beams: 36 per pair of sys->pairs (dae3), or NULL */
	double *g, *dg, *rhs, *F, *F2, *dl, *dl2, *lam;	/* scratch */
	/* statistics of the last step and of the run */
	int iters;
	long total_iters, steps, factorizations, rejected;
	double h_next;		/* step the step control proposes next (adaptive schemes) */
	void *eng;		/* family state (dae3.c) */
	/* failure detail of the last step */
	int bad_row;		/* constraint row with the largest residual, or -1 */
	double bad_value;	/* its residual */
	int eom_body;		/* body of the largest equation-of-motion residual
				 * (force or torque, of the last Newton iterate of
				 * fi and the dae3 schemes), or -1 when not noted */
	double eom_value;	/* that residual, N or N m */
	double last_norm;	/* last correction norm */
	struct integ_hist hist;	/* predictor of hi and fi */
	/* Newmark family of seed 002 (newmark.c, tangent.c) */
	struct tangent *tan;	/* tangent_newmark's state */
	struct nm_growth *growth;	/* growth detector (newmark.h) */
	int bad_body;		/* body named when the detector trips */
	/* ODE schemes on the seam of form/ode.h (odeint.h): rn4, w2, adams */
	struct odeint *ode;
	const char *detail;	/* what the formulation said of the last failure, or NULL */
	double omega_max;	/* tangent_newmark: largest natural frequency of the
				 * last step's linearized tangent system, rad/s
				 * (NAN for other schemes) */
};

/* Create for scheme info on system sys; NULL with diag record on failure. */
/* A model with beams takes the dae3 schemes only, and a linear solver
 * that serves coupling blocks (kkt_new_pairs): 0, or -1 with a record at
 * the first beam. */
int integ_check_beams(const struct model *m, const struct integ_info *info,
		      const struct sim_options *o, struct diag *d);
struct integ *integ_new(const struct integ_info *info, struct ra *sys,
			const struct sim_options *o, struct diag *d);
void integ_free(struct integ **it);

/* Consistent accelerations and multipliers at x (index-1 solve with the
 * mass matrix): fills x->a, x->wd, x->lam.  Requires nothing evaluated. */
int integ_accel(struct integ *it, struct ra_state *x);

int integ_step(struct integ *it, double h, struct ra_state *x, struct ra_state *y);

/* Redundant constraints: the rows the last factorization of it->kkt
 * dropped as dependent (kkt_dropped) are dropped before every later
 * factorization of every saddle-point solver of the scheme (kkt_fix_
 * dropped), so that the fast path serves a model redundant everywhere.
 * Called once at set-up, after integ_accel at the assembled initial state.
 * rows: room for nc.  Returns their count. */
int integ_fix_redundant(struct integ *it, int *rows);

/* Singular positions: a step whose Newton iteration failed is taken again
 * with the rows within sqrt(tol) rad of dependence dropped
 * (kkt_set_singular_tol) for that step, tol = INTEG_SINGULAR_TOL at level
 * 1, 100 times more at each of the INTEG_SINGULAR_LEVELS levels;
 * integ_singular_retry(it, level) before it, (it, 0) after.  Returns 0
 * when the retry can be made (not for the ODE schemes).  tangent_newmark,
 * whose steps use no kkt, takes sqrt(tol) as the rank tolerance of its QR
 * for the step (tangent_rank_tol): close to a singular position a step
 * whose rank decision falls among nearly dependent rows (1e-5 rad, its
 * TAN_RANK_TOL) fails, and with them dropped it passes. */
#define INTEG_SINGULAR_TOL 1e-4
#define INTEG_SINGULAR_LEVELS 2
int integ_singular_retry(struct integ *it, int level);

/* Residual of the implicit solves of fi and dae3 at y (time t) for the
 * accelerations g = (r-ddot, w-dot) and multipliers lam: it->rhs = theta F
 * - P^T lam - (M r-ddot, J w-dot), F the applied forces (friction from
 * lamf) less w x J w, and it->dl = -Phi / cq.  Leaves Phi and its
 * Jacobian at y evaluated in it->sys. */
void integ_residual(struct integ *it, const struct ra_state *y, double t, const double *lamf,
		    const double *g, const double *lam, double theta, double cq);

/* Predictor (integrator.predictor).  integ_hist_push records the solved
 * unknowns of time t, the row (v0[0 .. n0-1], v1[0 .. n-n0-1]) (v1 unused
 * when n0 = n), so that a caller whose unknowns live in two arrays needs
 * no copy of them; integ_hist_predict writes the first iterate for time t
 * to out0 and out1 the same way: the polynomial through the newest q kept rows (equally
 * spaced, t the next point of their grid).  q (2 to hist.cap) is the one
 * whose prediction of the last pushed row was best, as multistep codes
 * pick an order: a smooth solution favours a high degree, the noise of
 * the Newton tolerance a low one.  Returns q, or 0 with out untouched
 * when there is nothing to extrapolate (the caller starts from the last
 * step's values).  integ_hist_reset forgets them all. */
void integ_hist_push(struct integ *it, double t, const double *v0, const double *v1);
int integ_hist_predict(const struct integ *it, double t, double *out0, double *out1);
void integ_hist_reset(struct integ *it);

/* Family kernels */
int hi_step(struct integ *it, double h, struct ra_state *x, struct ra_state *y);
int fi_step(struct integ *it, double h, struct ra_state *x, struct ra_state *y);

int dae3_step(struct integ *it, double h, struct ra_state *x, struct ra_state *y);
int newmark_step(struct integ *it, double h, struct ra_state *x, struct ra_state *y);
int tangent_step(struct integ *it, double h, struct ra_state *x, struct ra_state *y);

/* Shared helpers for kernels */
/* (W = diag(m I, J): ra_mass_blocks; F_rot -= w x J w: ra_gyro, ra.h) */
/* W_rot += f (w~ J - (J w)~): derivative of w x J w times f, per body */
void integ_gyro_blocks(struct integ *it, const struct ra_state *y, double f);
void integ_note_worst(struct integ *it);	/* bad_row from sys->phi */
/* eom_body, eom_value from the residual it->rhs of integ_residual */
void integ_note_eom(struct integ *it);
/* g (6 per body) = (a, w-dot) of x, and back */
void integ_acc_get(const struct ra *s, const struct ra_state *x, double *g);
void integ_acc_put(const struct ra *s, const double *g, struct ra_state *x);
double integ_norm2(const double *a, int n, const double *b, int m);

#endif
