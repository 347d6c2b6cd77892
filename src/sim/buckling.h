/* buckling.h - linearized (eigenvalue) buckling of the deck's loads.
 *
 * About the unloaded equilibrium x0 (load factor 0: gravity and the
 * force and torque elements off, statics.h), the loads times a factor mu
 * make the tangent stiffness K0 + mu KG, to first order in mu; a
 * buckling load factor is a mu at which it becomes singular on the
 * motions the constraints allow:
 *   (K0 + mu KG) phi = 0,   Phi_q phi = 0
 * (Bathe, Finite Element Procedures, §6.8.2; docs/REFERENCES.md).  K0 =
 * -dG/dq at x0 (statics_tangent).  KG, the geometric stiffness of the
 * reference loads (the deck's, mu = 1), is the derivative of the tangent
 * along the linear prebuckling state u' (K0 u' = the loads, with the
 * reactions lambda' that balance them):
 *   - beams: the stress stiffness of their prebuckling resultants,
 *     d/dq of the element forces with the section resultants held at
 *     those of u' (beam_element_frozen) at x0's geometry: the
 *     prebuckling deformation is neglected, as in the classical
 *     theory (Timoshenko and Gere; lateral-torsional buckling 4.013
 *     sqrt(EI GJ) / L^2 of a cantilever under a tip load);
 *   - the rest (loads that turn with their body, the reactions lambda'
 *     through the constraints' curvature, springs): the central
 *     difference of their tangent (statics_tangent_rest) at x0 +- eps u',
 *     lambda0 +- eps lambda', load factor +- eps, eps moving no
 *     coordinate by more than 1e-4 (m per model length, or rad).
 * Both are reduced to d = dim null(Phi_q) coordinates by the orthonormal
 * basis of lin_null_space and the pencil (K0r, -KGr) solved by LAPACK
 * dggev; the real, positive, finite factors are kept, ascending, but
 * for those whose KG along the mode is within the bound of the rest's
 * differences' error (TANGENT_RTOL), which are counted in noise.
 */
#ifndef MBSIM_BUCKLING_H
#define MBSIM_BUCKLING_H

#include <stddef.h>

#include "../form/ra.h"

struct buckling {
	int ndof;		/* dimension of the null space of Phi_q */
	int n;			/* positive load factors kept */
	int noise;		/* positive factors dropped as the noise of KG */
	int ncoord;		/* coordinates of a shape: 6 per body */
	double *mu;		/* n load factors, ascending */
	double **shape;		/* n shapes: phi, (re, im) per coordinate (im 0),
				 * 1 at its largest entry */
};

/* The count smallest buckling load factors at x0, the equilibrium of
 * the unloaded model (statics_solve with load_factor 0), at time t.  0, or -1 with a
 * message (the unloaded structure not stable: K0 singular on the allowed
 * motions). */
int buckling_compute(struct ra *s, const struct ra_state *x0, double t, int count,
		     struct buckling *b, char *msg, size_t len);
void buckling_release(struct buckling *b);

#endif
