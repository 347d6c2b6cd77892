/* options.c - defaults of struct sim_options. */
#include "options.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

void sim_options_default(struct sim_options *o)
{
	memset(o, 0, sizeof(*o));
	strcpy(o->method, "hi");
	o->step = 1e-3;
	o->tolerance = 1e-10;
	o->max_iterations = 50;
	strcpy(o->linear_solver, "auto");
	o->rho_inf = 0.6;
	o->alpha = NAN;
	o->adaptive = 0;
	o->atol = 1e-6;
	o->rtol = 1e-6;
	o->safety = 0.9;
	o->facmin = 0.2;
	o->facmax = 5.0;
	o->startup_ss = 0;
	o->index = 3;
	o->predictor = 1;
	o->nm_beta = 0.25;	/* trapezoidal */
	o->nm_gamma = 0.5;
	o->t0 = 0.0;
	o->t_end = 1.0;
	o->every = 0;	/* SIM_AUTO_SAMPLES */
	o->flush_interval = 2.0;
	o->compression = 0;
	o->assemble = 1;
	o->assemble_tol = 1e-12;
	o->seed = 1;
}

double sim_min_step(double t)
{
	return 1e-12 * fmax(1.0, fabs(t));
}

int sim_options_check_time(const struct sim_options *o, int *which, char *msg, size_t n)
{
	double T = o->t_end - o->t0, tmax = fmax(fabs(o->t0), fabs(o->t_end));
	double hmin = sim_min_step(tmax);
	*which = 0;
	if (!isfinite(o->t0) || !isfinite(o->t_end) || !isfinite(T)) {
		snprintf(msg, n, "the interval from time.start (%g) to time.end (%g) is not finite",
			 o->t0, o->t_end);
		return -1;
	}
	if (T < hmin) {
		snprintf(msg, n, "the interval time.end - time.start = %g s is shorter than the "
			 "shortest step at t = %g (%g s = 1e-12 max(1 s, |t|)), below which "
			 "steps cannot be resolved; lengthen the interval", T, tmax, hmin);
		return -1;
	}
	*which = 1;
	if (!(o->step >= hmin)) {
		snprintf(msg, n, "integrator.step (%g s) is below the resolution of time at "
			 "t = %g: steps shorter than %g s (1e-12 max(1 s, |t|)) cannot be told "
			 "from the rounding of t; raise the step or shift time.start and "
			 "time.end towards 0", o->step, tmax, hmin);
		return -1;
	}
	return 0;
}
