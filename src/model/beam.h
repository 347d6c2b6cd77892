/* beam.h - the three-node finite-volume beam element (seed 004 §3.1: the
 * formulation of MBDyn, Ghiringhelli, Masarati and Mantegazza; see
 * docs/REFERENCES.md), independent of the formulation that stores the
 * node states.
 *
 * Element: nodes 0, 1, 2 at xi = -1, 0, 1 with positions x_i (global) and
 * section frames R_i (section -> global, axis 1 along the beam).
 * Interpolation (quadratic Lagrange N_i(xi)): x(xi) = sum N_i x_i; the
 * rotations relative to the middle node, psi_i = log(R_1^T R_i) (psi_1 =
 * 0), R(xi) = R_1 exp(sum N_i psi_i): objective, independent of the
 * path, regular below a relative rotation of pi.  Evaluation points
 * xi = -+1/sqrt(3) (p = 0, 1); there the material strains
 *   Gamma = R^T x' - Gamma0,   kappa = Jr(psi) psi' - kappa0
 * (' = d/ds = (d/dxi) / j, j = ds/dxi of the initial mesh; Gamma0, kappa0
 * those of the initial mesh, so that it is free of stress), the
 * resultants (n, m) = C (Gamma, kappa) + mu C (Gamma-dot, kappa-dot) in
 * the section frame, and their spatial values F = R n, M = R m.
 * Finite volumes: node 0 owns [-1, xi_0], node 1 [xi_0, xi_1], node 2
 * [xi_1, 1], each in equilibrium under the resultants on its faces:
 *   f_0 = F_0,        m_0 = M_0 + (x(xi_0) - x_0) x F_0,
 *   f_1 = F_1 - F_0,  m_1 = M_1 - M_0 + (x(xi_1) - x_1) x F_1 - (x(xi_0) - x_1) x F_0,
 *   f_2 = -F_1,       m_2 = -M_1 - (x(xi_1) - x_2) x F_1
 * (forces global; the moments about the nodes, global).  The element's
 * forces are in equilibrium (sum f = 0, sum x_i x f_i + m_i = 0) in any
 * configuration.  Strain energy U = sum_p j_p (1/2) eps^T C eps (the
 * two-point Gauss rule, weights 1), put in the potential energy; the
 * finite-volume forces are not its exact gradient (they tend to it as the
 * mesh is refined), so a conservative scheme keeps the total energy
 * bounded rather than constant.
 */
#ifndef MBSIM_BEAM_H
#define MBSIM_BEAM_H

#include "model.h"

#define BEAM_REF 14		/* doubles of bm->ref per element */

/* What an element does at one evaluation point. */
struct beam_pt {
	double eps[6];		/* Gamma, kappa (section frame) */
	double epsd[6];		/* their rates (mu > 0 only, else 0) */
	double res[6];		/* n, m: internal force and moment, section frame */
	double x[3], R[9];	/* the point and its section frame */
};

/* Internal generalized forces of element e of bm: F (18: per node the
 * force, global, then the moment in the node's section frame), the
 * negative of what the element's stresses need from outside (the load the
 * beam exerts on its nodes).  r[i], A[i] the node positions and frames;
 * v[i], w[i] velocities (global, section frame), read only when bm->mu > 0.
 * pt: NULL, or room for the two points.  Returns the strain energy. */
double beam_element(const struct beam *bm, int e, const double *const r[3],
		    const double *const A[3], const double *const v[3],
		    const double *const w[3], double *F, struct beam_pt *pt);

/* The part of the element's geometry that depends on the node frames
 * alone: at each point the section frame R and Jr(psi) dpsi/dxi.  A
 * change of the node positions only keeps it (ra_beam.c's differences in
 * r reuse it: no trigonometry). */
struct beam_rot {
	double R[2][9], kd[2][3];
	double psi[2][3];	/* log(R_1^T R_0), log(R_1^T R_2) */
};
void beam_rot_of(const double *const A[3], struct beam_rot *g);
/* The same from g->psi given and the middle node's frame A1 (a change of
 * the frame of node 0 or 2 alone moves one of the two logarithms:
 * ra_beam.c's differences take the other from the state's). */
void beam_rot_psi(const double *A1, struct beam_rot *g);
/* dF/dr of beam_element at the state whose points pt (from
 * beam_element_rot) gives: dF[3 b + k] the 18 forces' derivatives in
 * node b's position coordinate k, frames fixed; exact, for bm->mu = 0. */
void beam_element_dr(const struct beam *bm, int e, const double *const r[3],
		     const double *const A[3], const struct beam_pt pt[2], double dF[9][18]);
/* dF/dtheta of beam_element at the same state, g = beam_rot_of(A), F0 its
 * forces: dF[3 b + k] the 18 forces' derivatives in node b's body-frame
 * rotation k (A_b exp(d th~)); exact, for bm->mu = 0. */
void beam_element_dth(const struct beam *bm, int e, const double *const r[3],
		      const double *const A[3], const struct beam_rot *g,
		      const struct beam_pt pt[2], const double *F0, double dF[9][18]);
/* beam_element with g = beam_rot_of(A) given. */
double beam_element_rot(const struct beam *bm, int e, const double *const r[3],
			const double *const A[3], const double *const v[3],
			const double *const w[3], const struct beam_rot *g, double *F,
			struct beam_pt *pt);

/* The forces of beam_element (F, 18) with the resultants res (n, m in
 * the section frame, at the two points) given instead of made from the
 * strains: their derivative in the node coordinates at fixed res is the
 * element's stress (geometric) stiffness, which linear buckling
 * (sim/buckling.c) takes with the resultants of the prebuckling state. */
void beam_element_frozen(const struct beam *bm, int e, const double *const r[3],
			 const double *const A[3], const double res[2][6], double *F);

/* Set bm->ref from the initial poses of its nodes (model_finalize): 0, or
 * -1 with a record in d when an element is degenerate. */
int beam_reference(const struct model *m, struct beam *bm, struct diag *d);

#endif
