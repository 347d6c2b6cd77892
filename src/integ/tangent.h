/* tangent.h - Newmark in the tangent space of the constraints (seed 002
 * §5): the `tangent_newmark` family (tangent.c). */
#ifndef MBSIM_TANGENT_H
#define MBSIM_TANGENT_H

#include "integ.h"

#define TAN_MAX_BODIES 100	/* dense: a QR of the 6 nb x m Phi_q^T per iteration */

/* Set up for it (beta, gamma from o); -1 with a message in d. */
int tangent_init(struct integ *it, const struct sim_options *o, struct diag *d);
void tangent_free(struct integ *it);
/* One step x (t_n) -> y (t_n + h); sets it->omega_max. */
int tangent_step(struct integ *it, double h, struct ra_state *x, struct ra_state *y);
/* it->omega_max of the tangent system linearized at the consistent state x
 * (positions, velocities, accelerations, multipliers): the first sample's. */
int tangent_omega_at(struct integ *it, const struct ra_state *x);
/* The rank tolerance of the QR (an angle: a row within it of the span of
 * the others counts as dependent) for the next steps: TAN_RANK_TOL, or
 * angle when larger (a step retried near a singular position, integ.h). */
void tangent_rank_tol(struct integ *it, double angle);

#endif
