/* integ.h - the stepper interface shared by every family.
 *
 * A scheme is a registry row (registry.def); the row points to its
 * family's operations (struct integ_ops), whose kernel advances a body
 * state (struct ra_state) by one step:
 *
 *   integ_step(it, h, x, y):  x holds t_n, y receives t_{n+1}.
 *   For schemes with info->lag = 1 (half-implicit) the step also completes
 *   x: its accelerations and multipliers at t_n become known only then.
 *   Otherwise y is complete.
 *
 * integ.c is the shell: what every family shares (struct integ) and the
 * calls into the ops; it names no family.  A family keeps its own state in
 * it->mem; a scheme on the ODE seam steps the struct ode_sys the caller
 * built (it->ode).  A new family is one file defining its integ_ops and
 * its rows in registry.def.  The run loop (sim/) owns the states, the
 * time grid and the output.
 */
#ifndef MBSIM_INTEG_H
#define MBSIM_INTEG_H

#include "../contact/contact.h"
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
	double *p;		/* n: a prediction (in v's allocation, after the ring) */
	int head;
	int sel;		/* the degree is chosen by the values sel .. n-1 */
	int q;			/* rows the next prediction uses */
	double t, h;		/* time of the newest row, step between rows */
};

/* A statistic a family reports at the end of a run (ops->stats): the
 * name is the key of `mbsim run --json` and, with INTEG_STAT_ATTR, the
 * root attribute of the output file. */
enum {
	INTEG_STAT_ATTR = 1,	/* also a root attribute of the HDF5 file (a count: integer) */
	INTEG_STAT_SHARED = 2,	/* other schemes' JSON carries the key too, as null */
};
#define INTEG_STATS_MAX 12	/* statistics of one family at most */

struct integ_stat_key {
	const char *name;
	unsigned flags;
};

struct integ;
struct ode_sys;
struct ckpt;

/* A contact of the last step of a family that steps impulses
 * (ops->contacts, integ_contacts): where it was found (at the step's
 * midpoint positions) and its impulse over the step on side b (-it on
 * side a), N s. */
struct integ_contact {
	struct contact_pt c;
	double pn;		/* normal impulse, along c.n */
	double pt[3];		/* friction impulse, global */
	int slides;		/* the step left it slipping */
};

/* A family: the operations the shell (integ.c) calls, reached from the
 * scheme's registry row.  NULL entries take the shared behaviour named. */
struct integ_ops {
	/* Family memory in it->mem from the shared part made by integ_new
	 * (and it->ode, the formulation's ODE for schemes that step one);
	 * 0, or -1 with a record in d. */
	int (*init)(struct integ *it, const struct sim_options *o, struct diag *d);
	int (*step)(struct integ *it, double h, struct ra_state *x, struct ra_state *y);
	/* Accelerations and multipliers at t0 (NULL: integ_accel_index1). */
	int (*accel)(struct integ *it, struct ra_state *x);
	/* Start the formulation at x, so that its own coordinates are those
	 * of x before the first step (NULL: nothing to start). */
	int (*begin)(struct integ *it, const struct ra_state *x);
	/* Rows dropped as redundant for the family's own solvers besides
	 * it->kkt (NULL: none). */
	void (*fix_redundant)(struct integ *it, const int *rows, int n);
	/* The rank tolerance tol (an angle squared, 0: back to normal) of the
	 * next steps: 0, or -1 when the family cannot retry (NULL: it->kkt's,
	 * kkt_set_singular_tol). */
	int (*singular_tol)(struct integ *it, double tol);
	/* The failure message of status st when the family has its own (0),
	 * else -1 and the shell's (sim). */
	int (*fail)(const struct integ *it, int st, double t, long step, double h, char *msg,
		    size_t n);
	/* A value of the step just taken that each output sample records
	 * (/solver/<sample_name>), or NULL. */
	const char *sample_name, *sample_unit, *sample_doc;
	double (*sample)(struct integ *it);
	/* Statistics: keys (NULL-terminated, at most INTEG_STATS_MAX), and
	 * the values of the first of them at the end of a run, in that
	 * order; returns how many it gave (those that apply to the run). */
	const struct integ_stat_key *stat_keys;
	int (*stats)(const struct integ *it, const struct sim_options *o, double *v);
	/* Lines for the run's summary on stderr, each ending in a newline
	 * (NULL: none). */
	void (*notes)(const struct integ *it, const struct sim_options *o, const double *v,
		      char *buf, size_t n);
	/* The unit of mean_newton_iterations in the summary ("Newton it",
	 * "f evaluations"), and 1 when the scheme chooses its own steps even
	 * without integrator.adaptive. */
	const char *iter_unit;
	int own_steps;
	/* 1 when its Newton matrix takes the coupling blocks of beams */
	int beams;
	/* 1 when it steps the formulation's residual form (ode_sys.resid),
	 * which only tree offers: it does not take rp (integ_takes) */
	int resid;
	/* 1 when it steps the nonsmooth contact model (impulses), and the
	 * contacts of its last step (NULL: none kept) */
	int nonsmooth;
	/* Restart (util/ckpt.h): save or load everything of it->mem that a
	 * later step depends on, one walk for both directions (NULL: no
	 * memory of its own).  Loaded after init and integ_accel at the
	 * restart's state, so that a load only overwrites.  ckpt_inexact: a
	 * family that cannot come back bit for bit (CVODE's and IDA's
	 * histories are SUNDIALS' own) and restarts cleanly instead; its
	 * restart agrees within the scheme's error (man mbsim-run(1)). */
	void (*ckpt)(struct integ *it, struct ckpt *c);
	int ckpt_inexact;
	const struct integ_contact *(*contacts)(const struct integ *it, size_t *n);
	void (*free)(struct integ *it);
};

struct integ {
	const struct integ_info *info;
	const struct integ_ops *ops;	/* info->ops */
	struct ra *sys;
	struct kkt *kkt;
	struct ode_sys *ode;	/* the formulation's ODE (built by the caller) or NULL */
	int ode_cap;		/* coordinates it may take at most (0: ode->n) */
	double tol;
	int maxit;
	double *W;		/* nb x 18 iteration-matrix blocks */
	double *g, *dg, *rhs, *F, *dl, *dl2, *lam;	/* scratch */
	/* statistics of the last step and of the run */
	int iters;
	long total_iters, steps, factorizations, rejected;
	double h_next;		/* step the step control proposes next (adaptive schemes) */
	/* failure detail of the last step */
	int bad_row;		/* constraint row with the largest residual, or -1 */
	double bad_value;	/* its residual */
	int eom_body;		/* body of the largest equation-of-motion residual
				 * (force or torque, of the last Newton iterate of
				 * fi and the dae3 schemes), or -1 when not noted */
	double eom_value;	/* that residual, N or N m */
	double last_norm;	/* last correction norm */
	/* work of the impulses of the last step (contact impacts and
	 * friction of a nonsmooth family), J: the run adds it to the
	 * energy balance */
	double impulse_work;
	struct integ_hist hist;	/* the predictor a family may take (integ_hist_init) */
	void *mem;		/* the family's own state */
};

/* The checks of scheme info against the model and options that need no
 * system: beams (integ_check_beams), contact (integ_check_contact) and
 * integrator.index (at its key).  The deck's load for check and run makes
 * them (cli/common.c), so that check refuses what run would stop at.  0,
 * or -1 with a record in d. */
int integ_check(const struct model *m, const struct integ_info *info,
		const struct sim_options *o, struct diag *d);
/* 1 when the run's steps are the scheme's choice, not integrator.step:
 * adaptive, or a scheme with internal steps of its own (own_steps:
 * adams, bdf).  info may be NULL (not a scheme). */
int integ_chooses_steps(const struct integ_info *info, const struct sim_options *o);
/* The saddle-point solver of a run on sys (integrator.linear_solver). */
struct kkt *integ_kkt_new(const struct ra *sys, const struct sim_options *o);
/* Create for scheme info on system sys with the solver kkt (taken over)
 * and, for the schemes on the ODE seam, the formulation's ode (cap: its
 * coordinates at most, 0 when they are ode->n); NULL with a record in d. */
struct integ *integ_new_on(const struct integ_info *info, struct ra *sys, struct kkt *kkt,
			   struct ode_sys *ode, int cap, const struct sim_options *o,
			   struct diag *d);
/* integ_new_on with a solver of its own and no ODE (the ra schemes). */
/* A model with beams takes the dae3 schemes only, and a linear solver
 * that serves coupling blocks (kkt_new_pairs): 0, or -1 with a record at
 * the first beam. */
int integ_check_beams(const struct model *m, const struct integ_info *info,
		      const struct sim_options *o, struct diag *d);
/* A model whose contact model is nonsmooth takes the schemes whose
 * family steps impulses (ops->nonsmooth) only: 0, or -1 with a record
 * naming them. */
int integ_check_contact(const struct model *m, const struct integ_info *info,
			const struct sim_options *o, struct diag *d);
struct integ *integ_new(const struct integ_info *info, struct ra *sys,
			const struct sim_options *o, struct diag *d);
void integ_free(struct integ **it);

/* Save or load (c->load) the state of it a step depends on: the step
 * proposed, the predictor's history, the counters, then the family's
 * (ops->ckpt). */
void integ_ckpt(struct integ *it, struct ckpt *c);

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
/* The same with the rows given (rows[0 .. n-1], as integ_fix_redundant
 * found them at the first run's set-up): a restart drops what its first
 * run dropped. */
void integ_drop_rows(struct integ *it, const int *rows, int n);

/* Singular positions: a step whose Newton iteration failed is taken again
 * with the rows within sqrt(tol) rad of dependence dropped
 * (kkt_set_singular_tol) for that step, tol = INTEG_SINGULAR_TOL at level
 * 1, 100 times more at each of the INTEG_SINGULAR_LEVELS levels;
 * integ_singular_retry(it, level) before it, (it, 0) after.  Returns 0
 * when the retry can be made (ops->singular_tol: a family whose steps use
 * no kkt takes the same angle its own way, one with its own partitioning
 * declines). */
#define INTEG_SINGULAR_TOL 1e-4
#define INTEG_SINGULAR_LEVELS 2
int integ_singular_retry(struct integ *it, int level);

/* The multipliers the forces read in a Newton iteration whose unknowns
 * are lam = theta lambda: with friction (s->needs_lambda) the iterate's
 * own, copied to y->lam (the Newton blocks and ra_lr_make read them
 * there), so that the normal force is that of the state being solved for
 * and not of the last step (matrix.md finding 4); without it, lagged. */
const double *integ_lamf(struct integ *it, struct ra_state *y, const double *lam, double theta,
			 const double *lagged);
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

/* The family's word on a failure of status st (ops->fail): 0 with the
 * message in msg, or -1 when the shell's message applies. */
int integ_fail(const struct integ *it, int st, double t, long step, double h, char *msg,
	       size_t n);
/* The contacts of the last step (ops->contacts): *n of them (0 and NULL
 * for a family without). */
const struct integ_contact *integ_contacts(const struct integ *it, size_t *n);
/* Start the formulation at x (ops->begin): an integ status. */
int integ_begin(struct integ *it, const struct ra_state *x);
/* The value of ops->sample after the last step (NAN when the family
 * records none). */
double integ_sample(struct integ *it);
/* The family's statistics into v (INTEG_STATS_MAX; in the order of
 * info->ops->stat_keys): their count. */
int integ_stats(const struct integ *it, const struct sim_options *o, double *v);

/* Shared helpers for the family kernels (kernel.c) */
/* integ_accel's index-1 solve with the mass matrix (ra_accel) */
int integ_accel_index1(struct integ *it, struct ra_state *x);
/* it->hist for rows of n values, the first n0 from v0, the degree chosen
 * by the values sel .. n-1 (integ_hist_push); cap 0 when
 * integrator.predictor is off. */
void integ_hist_init(struct integ *it, int n, int n0, int sel, const struct sim_options *o);
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
