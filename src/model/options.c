/* options.c - defaults of struct sim_options. */
#include "options.h"

#include <string.h>

void sim_options_default(struct sim_options *o)
{
	memset(o, 0, sizeof(*o));
	strcpy(o->method, "hi");
	o->step = 1e-3;
	o->tolerance = 1e-10;
	o->max_iterations = 50;
	strcpy(o->linear_solver, "auto");
	o->t0 = 0.0;
	o->t_end = 1.0;
	o->every = 1;
	o->assemble = 1;
	o->assemble_tol = 1e-12;
	o->seed = 1;
}
