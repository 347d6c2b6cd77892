/* linearize.h - the constrained linearized system at a state, and its
 * natural frequencies and damping ratios.
 *
 * About a state x with velocities v, w and multipliers lambda (a static
 * equilibrium, statics.h, or the state a run reaches, mbsim modes --at),
 * small motions dq (6 per body: dr global, dth body frame,
 * A = A0 exp(dth~)) obey, frozen at x,
 *   M dq'' + C dq' + K dq + Phi_q^T dlambda = 0,   Phi_q dq = 0,
 * M = diag(m I, J) per body, K = -dG/dq (G = f - Phi_q^T lambda, lambda
 * fixed: the constraints' geometric stiffness, and with it the centripetal
 * reactions a moving state's lambda carries, is in K), C = -df/dv + the
 * gyroscopic d(w~ J w)/dw = w~ J - (J w)~ (body frame); -dG/dq and -df/dv
 * by the finite differences of statics_fd at x's velocities, the
 * gyroscopic block exactly.  At rest the gyroscopic block is zero.  The
 * velocity perturbation is taken as dq' (dw = dth'), which neglects the
 * term w x dth of the rotation's kinematics and the motion of Phi_q along
 * the run: at a moving state the frequencies are those of the system
 * frozen at x (exact for a steady motion whose perturbations are measured
 * in the body frame, e.g. the wobble of a free body spinning about a
 * principal axis, Omega sqrt((J3-J1)(J3-J2)/(J1 J2))).  With N an
 * orthonormal basis of the null space of Phi_q (LAPACK dgesvd), dq = N y
 * gives the minimal system Mr y'' + Cr y' + Kr y = 0, Mr = N^T M N, ...;
 * its eigenvalues s come from the generalized eigenproblem (LAPACK dggev)
 *   [0 I; -Kr -Cr] z = s [I 0; 0 Mr] z.
 */
#ifndef MBSIM_LINEARIZE_H
#define MBSIM_LINEARIZE_H

#include <stddef.h>

#include "../form/ra.h"

/* One mode: an eigenvalue s = re + i im of the pair (im >= 0 listed once;
 * a real s alone).  freq = |s| / (2 pi) Hz (the undamped natural
 * frequency of an underdamped pair); zeta = -re / |s| (1 for a decaying
 * real s, negative when the mode grows); damped = im / (2 pi) Hz. */
struct mode {
	double re, im;
	double freq, damped, zeta;
	int rigid;		/* |s| below 1e-5 of the largest |s|: a free motion
				 * (s^2 ~ stiffness, whose finite differences err
				 * by ~1e-12 relative: a zero one gives |s| up to
				 * ~1e-6 of the largest) */
	double *shape;		/* 2 ncoord: the eigenvector's dq = N y, (re, im)
				 * per coordinate, scaled to 1 at its largest
				 * entry */
};

struct modes {
	int ndof;		/* dimension of the null space of Phi_q */
	int nmodes;
	int ncoord;		/* coordinates of a shape: 6 per body */
	struct mode *m;		/* sorted by freq, ascending */
	double fmax;		/* largest freq, Hz */
	int damped;		/* -df/dv has a nonzero entry */
	int gyroscopic;		/* the gyroscopic block has one (w != 0) */
};

/* Linearize at x (multipliers in x->lam) at time t and solve the
 * eigenproblem.  0, or -1 with a message. */
int modes_compute(struct ra *s, const struct ra_state *x, double t, struct modes *out,
		  char *msg, size_t n);
void modes_release(struct modes *mo);

/* The linearized system at x (linearize.h, top): M, K, C (6 nb x 6 nb,
 * column-major) by statics_fd and the exact gyroscopic block; LIN_DAMPED
 * when -df/dv has a nonzero entry, LIN_GYROSCOPIC when the gyroscopic
 * block has one. */
#define LIN_DAMPED 1u
#define LIN_GYROSCOPIC 2u
unsigned lin_matrices(struct ra *s, const struct ra_state *x, double t, double *M, double *K,
		      double *C);

/* Phi_q at x with three rows theta = 0 per particle (*nrows rows,
 * column-major, malloc'd); ra_eval left at x. */
double *lin_motion_rows(struct ra *s, const struct ra_state *x, double t, int *nrows);

/* Orthonormal basis N (6 nb x d, column-major, malloc'd) of the motions
 * allowed at x: the null space of Phi_q with three rows theta = 0 per
 * particle (LAPACK dgesvd, rank tolerance 1e-10 of the largest singular
 * value).  d, or -1 with a message. */
int lin_null_space(struct ra *s, const struct ra_state *x, double t, double **N, char *msg,
		   size_t len);

/* R = N^T X N (X n x n, N n x d, R d x d, all column-major) */
void lin_project(const double *X, const double *N, int n, int d, double *R);

/* The shape of column j of the eigenvectors VR (leading dimension ld;
 * with j + 1 its imaginary part when im) in the model's coordinates: N
 * times its first d entries, scaled so that the largest |entry| is 1 and
 * real; 2 n values, re and im by coordinate (malloc'd). */
double *lin_shape(const double *VR, int ld, int j, int im, const double *N, int n, int d);

#endif
