/* ode_ctrl.h - the integral states of controllers on the ODE seam.
 *
 * A motor with integral action (control: pi or pid, ki > 0) carries a
 * state of first order, the integral z of its control error,
 *
 *     u = kp e + kd e' + ki z,   z' = e(t, q, q'),
 *
 * which the seam's y'' = f(t, y, y') has no room for.  It gets room as a
 * second-order coordinate w whose rate is the integral, w' = z, so that
 * w'' = e: the wrapped system has coordinates (y, w), n + nz of them,
 * and f is the formulation's f with z = w' in the efforts, plus e.  w
 * itself (the integral of the integral) enters nothing.  A scheme then
 * integrates z at its own order, within its own stages, Jacobians and
 * error estimate, with nothing changed between steps behind its back.
 */
#ifndef MBSIM_ODE_CTRL_H
#define MBSIM_ODE_CTRL_H

#include "ode.h"

struct ode_ctrl;

/* in wrapped for the integral states of s's model (in must offer
 * state()), or NULL when the model has none (then use in itself).  Sets
 * s->ctrl_ode: the integrals are the ODE's from then on. */
struct ode_ctrl *ode_ctrl_new(struct ra *s, struct ode_sys *in);
void ode_ctrl_free(struct ode_ctrl **c);
struct ode_sys *ode_ctrl_sys(struct ode_ctrl *c);
/* The number of integral states added. */
int ode_ctrl_count(const struct ode_ctrl *c);

#endif
