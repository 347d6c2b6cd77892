/* coupler.h - the coupling row of gear, rack_pinion, coupler and screw
 * joints: sum over the terms k of c_k (q_k - q0_k) = 0, q_k a joint
 * coordinate (joint_cpl in model.h).
 *
 * A rotation coordinate is the angle of marker 1's x about marker 0's z,
 * theta = atan2(x1 . y0, x1 . x0) (joint_coordinate), followed through
 * turns: the branch within pi of a reference, the unwrapped angle at the
 * last accepted state (form/ra.c keeps it, ra_cpl_commit).  Its gradient
 * in the virtual rotations (global) of the two bodies is exact:
 *   d theta = g . (d phi_1 - d phi_0),  g = x1 x (p y0 - s x0) / (p^2 + s^2),
 * p = x1 . x0, s = x1 . y0 (g is the joint axis when x1 lies in the plane
 * of x0, y0), so Phi_q qdot = g . (omega_1 - omega_0) (nu = 0) and gamma =
 * -g' . (omega_1 - omega_0).  A translation coordinate is the DP2 of the
 * joint's marker 0 z (prim.h).  Rows are written against the row's two
 * sides, the joint's body[0] and body[1]. */
#ifndef MBSIM_COUPLER_H
#define MBSIM_COUPLER_H

#include "model.h"
#include "prim.h"

/* Row of coupling joint j (its PRIM_CPL primitive) at the states of its
 * sides si, sj (joint body[0], body[1]), what a mask of PRIM_*; ref[k]:
 * the reference of rotation term k (ra_cpl_commit).  o->J as prim_eval's:
 * d Phi / d (r_i, theta_i, r_j, theta_j). */
void cpl_eval(const struct model *m, const struct joint *j, const struct bstate *si,
	      const struct bstate *sj, const double *ref, unsigned what, struct prim_out *o);
/* Wrapped coordinate of term k at the sides' states (the value to unwrap
 * against ref[k]); a rotation term's rate into *rate when not NULL. */
double cpl_coord(const struct model *m, const struct joint *j, int k, const struct bstate *si,
		 const struct bstate *sj, double *rate);
/* a within pi of ref: ref + (a - ref) wrapped to [-pi, pi) */
double cpl_unwrap(double a, double ref);

#endif
