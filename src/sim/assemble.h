/* assemble.h - consistent initial conditions. */
#ifndef MBSIM_ASSEMBLE_H
#define MBSIM_ASSEMBLE_H

#include <stddef.h>

#include "../integ/integ.h"
#include "sim.h"

/* Newton on positions (mass-weighted least change), then a projection of
 * velocities onto Phi_q v = nu.  Records the largest change per body in r.
 * Returns 0, or -1 with a message in msg. */
int assemble(struct ra *s, struct integ *it, struct ra_state *x, double tol,
	     struct sim_result *r, char *msg, size_t n);

#endif
