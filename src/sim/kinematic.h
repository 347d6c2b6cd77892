/* kinematic.h - kinematic analysis of fully driven mechanisms (000 §3.1).
 *
 * For a model with zero degrees of freedom (constraint rows = 6 per rigid body
 * and 3 per particle, drivers included) the motion follows from the constraints alone:
 *   Phi(q, t) = 0,   Phi_q v = nu,   Phi_q a = gamma.
 * kinematic_solve marches through the requested times, solving the first
 * by Newton from the previous solution (extrapolated), the other two as
 * linear systems, all with the saddle-point solver of la/kkt.h with
 * W = identity (the minimum-norm step; the exact Newton step when Phi_q
 * is square and regular).  This is the reference of `mbsim converge
 * --reference kinematic`.
 */
#ifndef MBSIM_KINEMATIC_H
#define MBSIM_KINEMATIC_H

#include <stddef.h>

#include "../model/model.h"

/* Solutions at nt times.  Sample i of body b: r[3 (i nb + b)], etc.
 * Positions, velocities, accelerations global; q the unit quaternion
 * (w,x,y,z) of the body-to-global rotation; w and wd the angular velocity
 * and acceleration in the body frame (the layout of man/mbsim-output.5). */
struct kin_series {
	int nb, nt;
	double *t;
	double *r, *v, *a, *q, *w, *wd;
	int np;			/* the model's body-fixed points */
	double *pp, *pv, *pa;	/* their global position, velocity, acceleration: 3 (i np + p) */
	double max_res[3];	/* largest |Phi|, |Phi_q v - nu|, |Phi_q a - gamma| (inf-norms) */
};

/* Degrees of freedom left by the constraints: 6 per rigid body and 3 per
 * particle (model_nq) less ncons. */
int kinematic_dof(const struct model *m);
/* 0 when m can be analysed (at least one body, 0 degrees of freedom);
 * else -1 with the reason and a remedy in msg. */
int kinematic_check(const struct model *m, char *msg, size_t n);

/* Solve at times t[0..nt) (ascending, >= t0), starting from the model's
 * initial pose at t0 (made consistent first).  Between requested times
 * the march takes internal steps of at most max_dt (s) so Newton starts
 * close.  Returns 0, or -1 with a message in msg (kinematic_check, singular
 * Jacobian, Newton failure: the time and the constraint are named). */
int kinematic_solve(const struct model *m, double t0, const double *t, int nt,
		    double max_dt, struct kin_series *k, char *msg, size_t n);
void kinematic_release(struct kin_series *k);

/* Write k in mbsim's HDF5 layout: /time, /bodies/names and
 * /bodies/{position,velocity,acceleration,orientation,angular_velocity,
 * angular_acceleration} (output_body_series; particles in /particles),
 * /points/{position,velocity,acceleration}; root attributes
 * status = "complete" and integrator = "kinematic".  0, or -1 with a
 * message in err. */
int kinematic_write(const struct model *m, const struct kin_series *k, const char *path,
		    char *err, size_t n);

#endif
