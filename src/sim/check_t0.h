/* check_t0.h - a deck's force expressions evaluated at its initial state. */
#ifndef MBSIM_SIM_CHECK_T0_H
#define MBSIM_SIM_CHECK_T0_H

#include "../model/model.h"
#include "../util/diag.h"

/* Evaluate the expression of every force element of m (but a tire's,
 * its road height) at the initial state of the deck at time t0, and
 * report each one that is not finite at the element's position, naming
 * the element and the text.  Returns the number reported.  Such an
 * expression makes the first accelerations non-finite, which a run
 * would otherwise blame on the initial values. */
int sim_check_t0(const struct model *m, double t0, struct diag *d);

#endif
