/* prim.h - scalar constraint primitives (seed 001 §3; Haug's DP1, DP2, D, CD).
 *
 * Each primitive is one constraint row Phi(r_i, A_i, r_j, A_j, t) = 0.
 * Jacobians are with respect to r (global) and to a virtual rotation
 * theta in the body frame, A <- A exp(theta~): dA s = -A s~ dtheta, the
 * Pi-bar of 000 eq. 2b.  Velocity and acceleration equations:
 *   Phi_q qdot = nu,   Phi_q qddot = gamma,
 * with qdot = (rdot_i, w_i, rdot_j, w_j), w in body frames.
 *
 *   DP1:  a_i . a_j - f(t)                      a = A abar
 *   DP2:  a_i . d_ij - f(t)                     d_ij = r_j + A_j s_j - r_i - A_i s_i
 *   D:    d_ij . d_ij - f(t)                    (squared distance)
 *   CD:   c . d_ij - f(t)                       c global
 *   ROT:  u(t) . a_j with u = A_i (y_i cos f - x_i sin f): relative angle
 *         of a_j = x-axis of marker j about z of marker i equals f(t)
 *         (revolute/cylindrical rotation driver; Phi = sin(angle - f))
 */
#ifndef MBSIM_PRIM_H
#define MBSIM_PRIM_H

#include "func.h"

/* PRIM_CPL: the row of a coupling joint (gear, rack_pinion, coupler,
 * screw), which couples joint coordinates and is evaluated from the joint
 * itself (model/coupler.h, with the angle references form/ra.c keeps); it
 * has no vectors, and prim_eval, prim_phi, prim_hess and prim_lin do not
 * take it. */
enum prim_type { PRIM_DP1, PRIM_DP2, PRIM_D, PRIM_CD, PRIM_ROT, PRIM_CPL, PRIM_NTYPES };

/* No type uses more than three of the six vectors, so they share three
 * slots: DP1 (ai, aj), DP2 (ai, si, sj), D (si, sj), CD (c, si, sj), ROT
 * (ai, aj, yi).  Write only the vectors of the primitive's type.  104
 * bytes instead of 184: a revolute joint has five rows, and 1e5 of them
 * must fit issue 17's 4 KB per body. */
struct prim {
	enum prim_type type;
	int bi, bj;		/* body indices or -1 (ground) */
	int owner;		/* joint index, or njoints + driver index */
	union {
		double ai[3];	/* body-frame vector on i (ROT: marker x) */
		double c[3];	/* CD: global direction */
	};
	union {
		double aj[3];	/* body-frame vector on j (ROT: x of marker j) */
		double si[3];	/* body-frame point on i */
	};
	union {
		double yi[3];	/* ROT: marker y on body i */
		double sj[3];	/* body-frame point on j */
	};
	double f0;		/* constant target */
	const struct func *f;	/* time function added to f0, or NULL */
};

/* Kinematic state of one body seen by a primitive (ground: r = 0, A = I,
 * v = w = 0). */
struct bstate {
	const double *r, *A, *v, *w;
};

struct prim_out {
	double phi;		/* Phi */
	double J[4][3];		/* d Phi / d (r_i, theta_i, r_j, theta_j) */
	double nu;		/* right side of Phi_q qdot = nu */
	double gamma;		/* right side of Phi_q qddot = gamma */
};

enum { PRIM_PHI = 1, PRIM_JAC = 2, PRIM_NU = 4, PRIM_GAMMA = 8, PRIM_ALL = 15 };

/* Evaluate what (a mask of PRIM_*) at time t. */
void prim_eval(const struct prim *p, const struct bstate *bi,
	       const struct bstate *bj, double t, unsigned what,
	       struct prim_out *o);
/* Phi alone, the value prim_eval gives (the Newton iterations' path). */
double prim_phi(const struct prim *p, const struct bstate *bi, const struct bstate *bj,
		double t);

/* Local second derivatives of lam Phi (geometric stiffness), one body at a
 * time: Ki = d(lam grad_theta_i Phi)/d theta_i and likewise Kj (3x3 row-major,
 * K[a][b] = d g_a / d theta_b, theta the body-frame rotation of A <- A
 * exp(theta~)), and kri, krj with d(lam grad_r Phi)/dr = k I on each side.
 * Left out: couplings between r and theta of one body and between the two
 * bodies of the row (DP2, D), and between sides when bi == bj.  Ground
 * sides are returned but meaningless. */
void prim_hess(const struct prim *p, const struct bstate *bi, const struct bstate *bj,
	       double t, double lam, double Ki[9], double Kj[9], double *kri, double *krj);

/* Derivatives for analytic integration Jacobians (seed 001 §3, eqs.
 * 26-35), with z = (r_i, theta_i, r_j, theta_j) and zdot = (v_i, w_i, v_j,
 * w_j) (w body-frame, theta as in prim_eval):
 *   phi, J   Phi and d Phi / d z (as prim_eval);
 *   H        12 x 12 row-major, H[a][b] = d J_a / d z_b, J taken at the
 *            moved state (A <- A exp(theta~)): the derivative of prim_eval's
 *            J along a motion, couplings between r and theta and between
 *            the two bodies included (prim_hess's blocks are the diagonal
 *            theta-theta and r-r blocks of lam H);
 *   gamma, gz, gd   gamma (as prim_eval) and its gradients in z and zdot;
 *   nu, nz   nu (as prim_eval) and its gradient in z (nonzero for ROT
 *            only: its nu turns with the bodies).
 * A ground side's entries are 0. */
struct prim_lin {
	double phi, J[12], H[144];
	double gamma, gz[12], gd[12];
	double nu, nz[12];
};
void prim_lin(const struct prim *p, const struct bstate *bi, const struct bstate *bj,
	      double t, struct prim_lin *o);
/* prim_lin of the np primitives p[0 .. np) of one joint, all between the
 * bodies of bi and bj, into o[0 .. np): the same values, with the point
 * difference and its rates made once for consecutive primitives on the
 * same two points (the three rows of a spherical joint). */
void prim_lin_joint(const struct prim *p, int np, const struct bstate *bi,
		    const struct bstate *bj, double t, struct prim_lin *o);

extern const char *const prim_type_names[PRIM_NTYPES];

#endif
