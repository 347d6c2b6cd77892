/* tangent.h - Newmark in the tangent space of the constraints (seed 002
 * §5): the `tangent_newmark` family (tangent.c). */
#ifndef MBSIM_TANGENT_H
#define MBSIM_TANGENT_H

#include "integ.h"

#define TAN_MAX_BODIES 100	/* dense: a QR of the 6 nb x m Phi_q^T per iteration */

/* The family's operations (tangent_ops, registry.def): set-up (beta,
 * gamma from o), one step x (t_n) -> y (t_n + h) with the growth test of
 * newmark.h, omega_max of each step's linearized tangent system (of the
 * consistent state at t0 for the first sample) recorded with each sample
 * as /solver/omega_max, and the rank tolerance of the QR for a step
 * retried near a singular position: an angle (a row within it of the
 * span of the others counts as dependent), TAN_RANK_TOL or larger. */

#endif
