/* options.h - run settings read from the deck (integrator, time, output).
 * Plain data: deck/ fills it, sim/ and integ/ read it. */
#ifndef MBSIM_OPTIONS_H
#define MBSIM_OPTIONS_H

#include "../util/diag.h"

struct sim_options {
	char method[32];	/* integrator.method, a registry name */
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
	int startup_ss;		/* integrator.startup: 0 trapezoidal, 1 single_step (LMS) */
	int predictor;		/* integrator.predictor (hi, fi): 1 extrapolate, 0 last */
	double t0, t_end;	/* time.start, time.end */
	int every;		/* output.every: write every k-th step */
	double flush_interval;	/* output.flush_interval: s of wall time between file writes */
	int compression;	/* output.compression: deflate level 0-9 */
	int assemble;		/* initial.assemble: make the initial state consistent */
	double assemble_tol;	/* initial.tolerance: Newton stop for assembly */
	unsigned long seed;	/* seed: for urand() in expressions */
	struct srcpos method_pos;	/* where integrator.method was given */
};

/* Defaults used when the deck omits a key. */
void sim_options_default(struct sim_options *o);

#endif
