/* options.c - defaults of struct sim_options. */
#include "options.h"

#include <math.h>
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
	o->predictor = 1;
	o->t0 = 0.0;
	o->t_end = 1.0;
	o->every = 1;
	o->flush_interval = 2.0;
	o->compression = 0;
	o->assemble = 1;
	o->assemble_tol = 1e-12;
	o->seed = 1;
}
