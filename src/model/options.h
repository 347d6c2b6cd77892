/* options.h - run settings read from the deck (integrator, time, output).
 * Plain data: deck/ fills it, sim/ and integ/ read it. */
#ifndef MBSIM_OPTIONS_H
#define MBSIM_OPTIONS_H

#include <stddef.h>

#include "../util/diag.h"

/* integrator.formulation: the coordinates the ODE schemes (rn4, w2,
 * adams) step; the other schemes have ra alone (auto). */
enum sim_formulation {
	FORM_AUTO = 0,		/* the scheme's registry formulation */
	FORM_RP,		/* Euler parameters, coordinate partitioning (form/rp.h) */
	FORM_TREE,		/* recursive joint coordinates (form/tree.h, seed 003 §3) */
};

struct sim_options {
	char method[32];	/* integrator.method, a registry name */
	enum sim_formulation formulation;	/* integrator.formulation */
	struct srcpos formulation_pos;	/* where it was given; line 0: default */
	double step;		/* integrator.step, s, > 0 */
	double tolerance;	/* integrator.tolerance: Newton stop on ||dq|| */
	int max_iterations;	/* integrator.max_iterations */
	char linear_solver[16];	/* integrator.linear_solver: auto | schur | umfpack */
	/* schemes of seed 004 (integ/dae3.c) */
	double rho_inf;		/* integrator.rho_inf in [0, 1] */
	double alpha;		/* integrator.alpha (HHT) in [-1/3, 0]; NAN: from rho_inf */
	int adaptive;		/* integrator.adaptive: control the step (schemes with an estimate) */
	double atol, rtol;	/* integrator.atol, rtol: error weights (001 eq. 13) */
	double safety, facmin, facmax;	/* integrator.safety, facmin, facmax (001 eq. 16) */
	double max_step;	/* integrator.max_step: cap of the step control, s; 0: none */
	int assess_error;	/* integrator.assess_error: a second run at a tenth of
				 * atol and rtol estimates the global error (sim/assess.h) */
	int startup_ss;		/* integrator.startup: 0 trapezoidal, 1 single_step (LMS) */
	int index;		/* integrator.index: 3 (seed 004) or 2 (GGL, dae3.c) */
	int jac_differences;	/* integrator.jacobian: differences (1) or auto (0) */
	int predictor;		/* integrator.predictor (hi, fi): 1 extrapolate, 0 last */
	/* Newmark family of seed 002 (newmark, tangent_newmark): beta and
	 * gamma of q_{n+1} = q_n + h v_n + h^2 ((1/2 - beta) a_n + beta a_{n+1}),
	 * v_{n+1} = v_n + h ((1 - gamma) a_n + gamma a_{n+1}); seed 002 calls
	 * gamma alpha.  Set by integrator.beta/gamma or integrator.variant. */
	double nm_beta, nm_gamma;
	struct srcpos nm_beta_pos;	/* where beta (or the variant) was given; line 0: default */
	double t0, t_end;	/* time.start, time.end */
	int every;		/* output.every: write every k-th step; 0: the
				 * default, at most SIM_AUTO_SAMPLES samples (sim.c) */
	const double *times;	/* output.times: sample times, increasing, in
				 * [t0, t_end]; NULL: every k-th step.  Borrowed
				 * (the deck owns it) */
	long ntimes;
	double flush_interval;	/* output.flush_interval: s of wall time between file writes */
	char euler[4];		/* output.euler: intrinsic sequence ("zyx"), "" none */
	int joint_frame;	/* output.joint_frame_reactions: also in body 2's joint frame */
	int compression;	/* output.compression: deflate level 0-9 */
	int assemble;		/* initial.assemble: make the initial state consistent */
	double assemble_tol;	/* initial.tolerance: Newton stop for assembly */
	unsigned long seed;	/* seed: for urand() in expressions */
	struct srcpos method_pos;	/* where integrator.method was given */
	struct srcpos index_pos;	/* where integrator.index was given */
	/* integrator.method: auto - the scheme, formulation and adaptive
	 * chosen from the model (sim/choose.c) after the deck is built;
	 * method_auto set until then, and why the choice fell as it did */
	int method_auto;
	char method_why[200];
};

/* output.every unset: a run writes at most this many samples besides the
 * start and the end (sim.c's sampling), so that a file's size follows the
 * time simulated, not the step (mbsim-deck(5), output). */
#define SIM_AUTO_SAMPLES 10000

/* Defaults used when the deck omits a key. */
void sim_options_default(struct sim_options *o);

/* The shortest step at time t: 1e-12 max(1 s, |t|), the floor of the
 * step control too (integ/dae3.c).  A shorter step cannot be told from
 * the rounding of t (its length would be known to worse than 2e-4), and
 * it bounds every step count of a run by 2e12 (|t_end - t0| / 1e-12
 * max(1, |t|)). */
double sim_min_step(double t);

/* The limits of the time axis a run needs (t0, t_end finite, the first
 * step and the interval not below sim_min_step of the largest |t|, the
 * step count representable).  0 when they hold; else -1 with a message,
 * and *which says what to point at: 0 time.end, 1 integrator.step. */
int sim_options_check_time(const struct sim_options *o, int *which, char *msg, size_t n);

#endif
