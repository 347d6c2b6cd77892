/* tree.c - recursive joint coordinates on a tree rooted at the ground, as
 * an ODE (tree.h; seed 003 §3).
 *
 * Frames and quantities.  Everything in the recursion is global: for
 * body i its centroid r_i, rotation A_i (body -> global), centroid
 * velocity v_i, angular velocity om_i = A_i w_i (w_i the body-frame one of
 * struct ra_state), and the 6-vectors
 *
 *   V_i = (v_i, om_i),   Vdot_i = (a_i, al_i)   (centroid acceleration,
 *                                                angular acceleration)
 *
 * - the seed's absolute coordinates p_i (§3.1) in velocity form, with
 * the body's centroid as reference point.  A wrench (F, N) is a force and
 * a moment about the body's centroid.  The body mass matrix (seed 003
 * eq. 11) is M_i = diag(m_i I, A_i J_i A_i^T), the applied wrench
 * f_i = (F_i, A_i (n_i - w_i x J_i w_i)) from ra_forces (force global,
 * torque in the body frame) with the gyroscopic term.
 *
 * Joint kinematics (seed 003 eqs. 7-9 with K_i = I: the child's pose is
 * an explicit function of its parent's and its joint coordinates).  With
 * the parent marker frame P (rotation R_P = A_p F_p, origin o_p = r_p +
 * A_p s_p) and the joint's R(q), d(q) of tree.h,
 *
 *   A_c = R_P R(q) F_c^T,   o_c = o_p + R_P d(q),   r_c = o_c - A_c s_c.
 *
 * The relative angular velocity and the rate of d, in P, are H(q) q-dot
 * and D(q) q-dot; hq = H-dot q-dot and dq = D-dot q-dot (q-dot fixed) are
 * their rates at q-ddot = 0 (dq = 0 for every joint type here).  With H_g = R_P H, D_g = R_P D, w_r = H_g
 * q-dot, v_r = D_g q-dot, e = r_c - o_c and d_cp = r_c - r_p:
 *
 *   V_c = Phi V_p + S q-dot,                              (eq. 8)
 *   Vdot_c = Phi Vdot_p + S q-ddot + c,                   (eq. 9)
 *
 *   Phi = [I  -d_cp~; 0  I]  (rigid transport from r_p to r_c),
 *   S_k = (D_g,k + H_g,k x e,  H_g,k),
 *   c   = (om_p x (v_c - v_p) + om_p x v_r + R_P dq + c_w x e
 *          + w_r x (om_c x e),   c_w),   c_w = om_p x w_r + R_P hq,
 *
 * so the seed's J_i is S_i and H_i is -Phi (K_i = I), and c is -k_i^(II).
 *
 * Equilibrium (seed 003 eq. 11): M_i Vdot_i - f_i = lam_i - sum over the
 * children j of Phi_j^T lam_j, lam_i the wrench the parent joint
 * transmits to body i, with S_i^T lam_i = 0 (eq. 12).
 *
 * Backward pass (eqs. 13-17, regular masses: (J^T M J)^+ = (J^T M J)^-1).
 * From the leaves to the root, each body's subtree satisfies
 * Ihat_i Vdot_i + phat_i = lam_i (eq. 13: Ihat_i is the condensed mass
 * matrix Mbar_i of eq. 17a, -phat_i the condensed force fbar_i of eq. 17b)
 * with, from the body's own M_i, -f_i and its children j,
 *
 *   U_j = Ihat_j S_j,  D_j = S_j^T U_j,  u_j = -S_j^T (Ihat_j c_j + phat_j),
 *   Ihat_i = M_i + sum Phi_j^T (Ihat_j - U_j D_j^-1 U_j^T) Phi_j,   (17a)
 *   phat_i = -f_i + sum Phi_j^T (phat_j + Ihat_j c_j + U_j D_j^-1 u_j).  (17b)
 *
 * Forward pass (eqs. 18, 24a, 25a): from the root (Vdot = 0 at the ground)
 *
 *   q-ddot_i = D_i^-1 (u_i - U_i^T Phi_i Vdot_p),
 *   Vdot_i = Phi_i Vdot_p + S_i q-ddot_i + c_i,
 *   lam_i = Ihat_i Vdot_i + phat_i.
 *
 * Each step costs a fixed number of 6x6 products per body: O(N).  The
 * seed's generalized inverses for singular body masses (eqs. 19-28) are
 * not taken here: D_i must be positive definite (it is for positive
 * masses and inertias).
 */
#include "tree.h"
#include "../util/vec.h"
#include "../util/xalloc.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum tj { TJ_REVOLUTE, TJ_CYLINDRICAL, TJ_TRANSLATIONAL, TJ_UNIVERSAL, TJ_SPHERICAL, TJ_FIXED,
	  TJ_FREE, TJ_POINT, TJ_PLANAR };
static const int tj_n[] = { 1, 2, 1, 2, 3, 0, 6, 3, 3 };

/* A body and its joint towards the ground, in the order of the tree
 * (parents first): what every pass of f reads, packed (60 bytes) so
 * that the passes stream few cache lines; the joint's markers and
 * reference rotation are in struct tgeo, what the forward pass reads of
 * them in struct tkin and T->CF, the body's mass in struct tmass. */
struct tnode {
	int body, parent;	/* parent: node index, -1 the ground */
	int joint;		/* model joint, -1 free body */
	enum tj type;
	int q0;			/* its first coordinate */
	int ko, bo;		/* its parts of T->fw, T->bw (struct twork) */
	int ki, mi;		/* its entries of T->kin, T->ms */
	unsigned char n;	/* coordinates */
	/* rank-deficient masses (seed 003 §3.3-3.4): alg[k] = 1 for a
	 * coordinate without inertia (first order), nr of the n have it
	 * (second order), their indices ri */
	unsigned char nr, alg[6], ri[6];
	/* drivers (rheonomic coordinates): drv[a] the model driver of
	 * coordinate a or -1; ndrv of them.  A driven coordinate is neither
	 * with inertia (ri) nor massless: its q, q-dot, q-ddot come from the
	 * driver's function, and the recursion takes it as locked with the
	 * known bias S_a q-ddot_a added to c (tree_drivers). */
	signed char drv[6];
	unsigned char ndrv;
	/* the passes' sums over children and values for them (forward,
	 * backward): first, this is its parent's last child in tree order
	 * (the first the backward pass meets, which starts the parent's sums
	 * from its own M and -f); kids, the node has children; far, one of
	 * them is not the next node (which the passes reach at once and
	 * serve from locals) */
	unsigned char first, kids, far;
};

/* The joint's markers (P on the parent in the parent's body frame, Q on
 * the child in the child's) and reference rotation C (tree.h). */
struct tgeo {
	double sp[3], Fp[9];
	double sc[3], Fc[9];
	double C[9];
};

/* What the forward pass reads of the markers besides CF = C Fc^T (T->CF,
 * per node: the child's rotation is R_P R(q) F_c^T = R_P (E(q) CF), one
 * product less; kin_update after every change of C).  One entry for a
 * run of consecutive nodes with the same markers (a repeated link), so
 * that a long chain reads one. */
struct tkin {
	double Fp[9], sp[3], sc[3];
};

/* A body's mass and body-frame inertia, one entry for a run of
 * consecutive nodes with the same (ra_inertia) */
struct tmass {
	double m, J[9];
};

/* A driven coordinate (tree_drivers): q = sig (f(t) + offset) + kap,
 * in the tree's coordinate of tree.h's table; f and offset as model.h's
 * struct driver (ra's coordinate, joint_coordinate), sig = +-1 the sign
 * between the two, kap a whole number of turns for a rotation. */
struct tdrv {
	int node, a, q;		/* node, its coordinate, the full index */
	double sig, kap;
};

/* What one evaluation keeps per node (tw: pointers into the tree's
 * arrays), by the pass that makes it, so that each pass streams only the
 * bytes it reads or writes: the forward pass makes dcp, c, S (T->fw),
 * the backward pass K, k (T->bw), the forward pass of accelerations
 * acc, each contiguous in tree order, sized by the joint's n coordinates
 * (27 + 21 doubles for a spherical joint).  The body's own mass matrix and
 * forces and the condensed Ihat, phat are made in the backward pass and
 * kept only when asked for (T->keep: residuals of massless
 * coordinates, joint_wrenches). */
struct twork {
	double *dcp;		/* 3: r_c - r_p */
	double *c;		/* 6 */
	double *S;		/* 6 x n, column k at 6 k: (linear, angular) */
	double *K;		/* D^-1 U^T, D = S^T Ihat S, U = Ihat S: nr x 6 row-major */
	double *k;		/* D^-1 u, u = -S^T (Ihat c + phat): nr */
	double *acc;		/* 6: Vdot */
};

/* doubles of T->fw, T->bw a node of n coordinates */
#define FW_SIZE(n) (9 + 6 * (n))
#define BW_SIZE(n) (7 * (n))

struct tree {
	struct ra *s;		/* borrowed */
	struct ode_sys ode;
	int nb, nq;
	int ns;			/* state coordinates: nq less the driven ones */
	int ndv;		/* driven coordinates */
	struct tdrv *dv;	/* ndv */
	int *sx;		/* nq: the state index of a coordinate, -1 driven */
	double *Yf, *Ydf, *Yddf;	/* nq: full vectors from a state (drivers) */
	double *Rf;		/* nq: a residual in full (drivers) */
	double *Pdd;		/* nq: q-ddot of the driven coordinates, 0 elsewhere */
	struct tnode *nd;	/* nb, in tree order */
	struct tgeo *geo;	/* nb */
	struct tkin *kin;	/* per run of nodes with the same markers (ki) */
	double *CF;		/* 9 nb */
	struct tmass *ms;	/* per run of nodes with the same mass (mi) */
	double *fw, *bw;	/* the nodes' dcp, c, S and K, k (struct twork) */
	double *acc;		/* 6 nb (struct twork) */
	double *om;		/* 3 nb: a node's angular velocity, global, for
				 * children other than the next node (forward) */
	/* nb x 42: a node's Ihat (36, row-major) and phat (6): the sums of
	 * children that are not the next node (backward), and every node's
	 * when keep is set (node_lam: massless residuals, joint_wrenches) */
	double *ih;
	int keep;		/* the next backward pass keeps Ihat, phat in ih */
	int have_ih;		/* ih holds those of the last f */
	int resid_last;		/* the last f was a residual (joint_wrenches) */
	double *lam;		/* 6 nb: the joints' wrenches (joint_wrenches) */
	struct ra_state x;	/* the body state of the last f */
	double *F;		/* 6 nb: applied forces (ra_forces) */
	/* no force elements and no beams: ra_forces would store gravity
	 * alone, m g, which own_init makes where it needs it instead */
	int gravity_only;
	double *y;		/* nq: the coordinates of the last f */
	double *yd;		/* nq: their rates */
	int *jnode;		/* njoints: the node of each model joint */
	double *R0;		/* 9 nb: a spherical joint's relative rotation
				 * at the start (tree_joint_coords) */
	long rebases;
	int singular;		/* a body mass or inertia is singular (tree_new) */
	int masked;		/* alg, nr, ri decided (the first backward pass) */
	int nalg;		/* coordinates without inertia */
	char why[600];
};

static inline struct twork tw(const struct tree *T, int i)
{
	const struct tnode *J = &T->nd[i];
	double *f = T->fw + J->ko, *b = T->bw + J->bo;
	struct twork W = { f, f + 3, f + 9, b, b + 6 * J->n, T->acc + 6 * (size_t)i };
	return W;
}

static const double I3[9] = { 1, 0, 0, 0, 1, 0, 0, 0, 1 };
static const double EZ[3] = { 0, 0, 1 };

/* The backward pass is a chain of dependent operations from node to
 * node, several hundred instructions a node, so the out-of-order core
 * does not reach the loads of the nodes ahead by itself: at N >= 1e4,
 * where the per-node data no longer fit the caches, each node would wait
 * for its misses.  It asks for the data of the node TREE_AHEAD places
 * ahead (GCC's __builtin_prefetch, a hint: no effect on the numbers).
 * The two forward passes run up the addresses, which the hardware
 * prefetcher follows: asking there measured no gain (bench/README.md). */
#define TREE_AHEAD 8

static inline void prefetch_range(const void *p, size_t bytes, int write)
{
	const char *c = p;
	if (!bytes)
		return;
	for (size_t o = 0; o < bytes; o += 64) {
		if (write)
			__builtin_prefetch(c + o, 1, 3);
		else
			__builtin_prefetch(c + o, 0, 3);
	}
	if (write)
		__builtin_prefetch(c + bytes - 1, 1, 3);
	else
		__builtin_prefetch(c + bytes - 1, 0, 3);
}

/* node i's parts of T->fw and T->bw */
static inline void prefetch_node(const struct tree *T, int i)
{
	const struct tnode *J = &T->nd[i];
	prefetch_range(T->fw + J->ko, FW_SIZE((size_t)J->n) * sizeof(double), 0);
	prefetch_range(T->bw + J->bo, BW_SIZE((size_t)J->n) * sizeof(double), 1);
}

/* ---- small kernels ---- */

/* C = A B^T */
static inline void m3_mult(double *C, const double *A, const double *B)
{
	for (int i = 0; i < 3; i++)
		for (int j = 0; j < 3; j++)
			C[3 * i + j] = A[3 * i] * B[3 * j] + A[3 * i + 1] * B[3 * j + 1] +
				       A[3 * i + 2] * B[3 * j + 2];
}

static void rot_z(double *R, double a)
{
	double c = cos(a), s = sin(a);
	double r[9] = { c, -s, 0, s, c, 0, 0, 0, 1 };
	memcpy(R, r, sizeof r);
}

/* Cholesky L L^T = D (n x n row-major; L lower, row-major); -1 when D is
 * not positive definite. */
static int chol(int n, const double *D, double *L)
{
	for (int i = 0; i < n; i++)
		for (int j = 0; j <= i; j++) {
			double s = D[n * i + j];
			for (int k = 0; k < j; k++)
				s -= L[n * i + k] * L[n * j + k];
			if (i == j) {
				if (!(s > 0))
					return -1;
				L[n * i + i] = sqrt(s);
			} else {
				L[n * i + j] = s / L[n * j + j];
			}
		}
	return 0;
}

/* L Dg L^T = D (n x n row-major), L unit lower with 1 / Dg in place of its
 * diagonal; -1 when D is not positive definite (a pivot not > 0).  The
 * backward pass's factor: no square roots, one division a pivot (they lie
 * on the pass's chain of dependent operations from node to node). */
static inline __attribute__((always_inline)) int ldl_inv(int n, const double *D, double *L)
{
	double ld[6];	/* L_ik Dg_k of the row being made */
	for (int i = 0; i < n; i++) {
		for (int j = 0; j < i; j++) {
			double s = D[n * i + j];
			for (int k = 0; k < j; k++)
				s -= ld[k] * L[n * j + k];
			ld[j] = s;
			L[n * i + j] = s * L[n * j + j];
		}
		double s = D[n * i + i];
		for (int k = 0; k < i; k++)
			s -= ld[k] * L[n * i + k];
		if (!(s > 0))
			return -1;
		L[n * i + i] = 1.0 / s;
	}
	return 0;
}

static void chol_solve(int n, const double *L, double *b)
{
	for (int i = 0; i < n; i++) {
		for (int k = 0; k < i; k++)
			b[i] -= L[n * i + k] * b[k];
		b[i] /= L[n * i + i];
	}
	for (int i = n - 1; i >= 0; i--) {
		for (int k = i + 1; k < n; k++)
			b[i] -= L[n * k + i] * b[k];
		b[i] /= L[n * i + i];
	}
}

/* y = X x, X 6x6 row-major */
static void m6_mulv(double *y, const double *X, const double *x)
{
	for (int i = 0; i < 6; i++) {
		double s = 0.0;
		for (int j = 0; j < 6; j++)
			s += X[6 * i + j] * x[j];
		y[i] = s;
	}
}

/* Phi x for a motion x = (lin, ang): (lin + ang x d, ang) */
static void phi_motion(double *y, const double *d, const double *x)
{
	double t[3];
	v3_cross(t, x + 3, d);
	v3_add(y, x, t);
	v3_copy(y + 3, x + 3);
}

/* y += Phi^T f for a wrench f = (F, N) at r_c: (F, N + d x F) about r_p */
static void phit_add(double *y, const double *d, const double *f)
{
	double t[3];
	v3_cross(t, d, f);
	for (int i = 0; i < 3; i++) {
		y[i] += f[i];
		y[3 + i] += f[3 + i] + t[i];
	}
}

/* Y += Phi^T X Phi, X symmetric 6x6: with P = -d~ and X = [A B; B^T E],
 * Phi^T X Phi = [A, A P + B; (A P + B)^T, P^T A P + P^T B + B^T P + E].
 * By the skew structure, row i of A P is d x (row i of A), so G = A P +
 * B has rows d x a_i + b_i, and P^T G + B^T P = d~ G + (d~ B)^T: columns
 * d x g_j and d x b_j. */
static inline void phit_x_phi_add(double *Y, const double *d, const double *X)
{
	double G[9], H1[9], H2[9];
	for (int i = 0; i < 3; i++) {
		const double *a = X + 6 * i, *b = X + 6 * i + 3;
		G[3 * i] = d[1] * a[2] - d[2] * a[1] + b[0];
		G[3 * i + 1] = d[2] * a[0] - d[0] * a[2] + b[1];
		G[3 * i + 2] = d[0] * a[1] - d[1] * a[0] + b[2];
	}
	for (int j = 0; j < 3; j++) {
		/* column j of G and of B */
		double g0 = G[j], g1 = G[3 + j], g2 = G[6 + j];
		double b0 = X[3 + j], b1 = X[9 + j], b2 = X[15 + j];
		H1[j] = d[1] * g2 - d[2] * g1;
		H1[3 + j] = d[2] * g0 - d[0] * g2;
		H1[6 + j] = d[0] * g1 - d[1] * g0;
		H2[j] = d[1] * b2 - d[2] * b1;
		H2[3 + j] = d[2] * b0 - d[0] * b2;
		H2[6 + j] = d[0] * b1 - d[1] * b0;
	}
	for (int i = 0; i < 3; i++)
		for (int j = 0; j < 3; j++) {
			Y[6 * i + j] += X[6 * i + j];
			Y[6 * i + 3 + j] += G[3 * i + j];
			Y[6 * (3 + j) + i] += G[3 * i + j];
			Y[6 * (3 + i) + 3 + j] += H1[3 * i + j] + H2[3 * j + i] + X[6 * (3 + i) + 3 + j];
		}
}

/* ---- joint kinematics in the parent marker frame P ---- */

struct jk {
	double R[9], d[3];
	double H[18], D[18];	/* 3 x n, column k at 3 k */
	double hq[3];
};

/* The left Jacobian of the exponential, exp((phi + dphi)~) = exp((H
 * dphi)~) exp(phi~) to first order, H = I + a phi~ + b phi~^2 with a = (1 -
 * cos t)/t^2, b = (t - sin t)/t^3, t = |phi|, into columns H[3 k]; and
 * hq = H-dot phid at phi-dot = phid:
 *   hq = a' t-dot phi x phid + b' t-dot phi x (phi x phid) + b phid x (phi x phid),
 * t-dot = phi . phid / t. */
static void chart_jac_ab(const double *phi, const double *phid, double a, double b, double ga,
			 double gb, double *H, double hq[3]);

/* a, b and ga = a'/t, gb = b'/t from t = |phi| past the series' range,
 * with s = sin t, c = cos t */
#define CHART_SERIES_MAX 0.1
static void chart_coef(double t2, double t, double s, double c, double *a, double *b, double *ga,
		       double *gb)
{
	*a = (1.0 - c) / t2;
	*b = (t - s) / (t2 * t);
	*ga = (t * s - 2.0 * (1.0 - c)) / (t2 * t2);
	*gb = (t * (1.0 - c) - 3.0 * (t - s)) / (t2 * t2 * t);
}

static void chart_jac(const double *phi, const double *phid, double *H, double hq[3])
{
	double t2 = v3_dot(phi, phi), t = sqrt(t2), a, b, ga, gb;	/* ga = a'/t, gb = b'/t */
	if (t < CHART_SERIES_MAX) {
		double t4 = t2 * t2, t6 = t4 * t2, t8 = t4 * t4;
		a = 0.5 - t2 / 24.0 + t4 / 720.0 - t6 / 40320.0 + t8 / 3628800.0;
		b = 1.0 / 6.0 - t2 / 120.0 + t4 / 5040.0 - t6 / 362880.0 + t8 / 39916800.0;
		ga = -1.0 / 12.0 + t2 / 180.0 - t4 / 6720.0 + t6 / 453600.0 - t8 / 47900160.0;
		gb = -1.0 / 60.0 + t2 / 1260.0 - t4 / 60480.0 + t6 / 4989600.0 - t8 / 622702080.0;
	} else {
		chart_coef(t2, t, sin(t), cos(t), &a, &b, &ga, &gb);
	}
	chart_jac_ab(phi, phid, a, b, ga, gb, H, hq);
}

/* exp(phi~) into E and the chart Jacobian: so3_exp and chart_jac with one
 * sqrt, sin and cos between them (the same numbers) */
static void chart_eval(const double *phi, const double *phid, double *E, double *H, double hq[3])
{
	double t2 = v3_dot(phi, phi), t = sqrt(t2);
	if (t < CHART_SERIES_MAX) {
		so3_exp(E, phi);
		chart_jac(phi, phid, H, hq);
		return;
	}
	double s = sin(t), c = cos(t), a, b, ga, gb;
	/* so3_exp's Rodrigues form, past its series (t >= 1e-4) */
	so3_rodrigues(E, phi, s / t, (1.0 - c) / t2);
	chart_coef(t2, t, s, c, &a, &b, &ga, &gb);
	chart_jac_ab(phi, phid, a, b, ga, gb, H, hq);
}

static void chart_jac_ab(const double *phi, const double *phid, double a, double b, double ga,
			 double gb, double *H, double hq[3])
{
	for (int k = 0; k < 3; k++) {
		double e[3] = { 0, 0, 0 }, pe[3], ppe[3];
		e[k] = 1.0;
		v3_cross(pe, phi, e);
		v3_cross(ppe, phi, pe);
		for (int i = 0; i < 3; i++)
			H[3 * k + i] = e[i] + a * pe[i] + b * ppe[i];
	}
	double pd[3], ppd[3], dpd[3], td = v3_dot(phi, phid);
	v3_cross(pd, phi, phid);
	v3_cross(ppd, phi, pd);
	v3_cross(dpd, phid, pd);
	for (int i = 0; i < 3; i++)
		hq[i] = ga * td * pd[i] + gb * td * ppd[i] + b * dpd[i];
}

/* Which of a joint's R(q), d(q), D's columns can be other than I, 0: the
 * forward pass skips products with what is zero (the same numbers: a sum
 * with a zero term is the sum of the others in the same order). */
static int has_d(enum tj t)
{
	return t == TJ_CYLINDRICAL || t == TJ_TRANSLATIONAL || t == TJ_FREE || t == TJ_POINT ||
	       t == TJ_PLANAR;
}

/* The joint's kinematics at q, q-dot: R = R(q) F_c^T (the child's
 * rotation relative to P, with its marker's), d, H, D (the columns of its
 * n coordinates; D only where has_d: forward reads it only there), hq (dq
 * is 0 for every type: d is linear in q with constant columns). */
static void joint_eval(const struct tnode *J, const double *CF, const struct tgeo *G,
		       const double *q, const double *qd, struct jk *k)
{
	double Rz[9], T[9];
	k->d[0] = k->d[1] = k->d[2] = 0.0;
	k->hq[0] = k->hq[1] = k->hq[2] = 0.0;
	if (has_d(J->type)) {	/* the columns these types leave 0 */
		for (int e = 0; e < 18; e++)
			k->H[e] = k->D[e] = 0.0;
	}
	switch (J->type) {
	case TJ_REVOLUTE:
		rot_z(Rz, q[0]);
		m3_mul(k->R, Rz, CF);
		v3_copy(k->H, EZ);
		break;
	case TJ_CYLINDRICAL:
		rot_z(Rz, q[0]);
		m3_mul(k->R, Rz, CF);
		k->d[2] = q[1];
		v3_copy(k->H, EZ);
		v3_copy(k->D + 3, EZ);
		break;
	case TJ_TRANSLATIONAL:
		memcpy(k->R, CF, sizeof k->R);
		k->d[2] = q[0];
		v3_copy(k->D, EZ);
		break;
	case TJ_PLANAR:	/* x, y in P's plane, the turn a about its normal */
		rot_z(Rz, q[2]);
		m3_mul(k->R, Rz, CF);
		k->d[0] = q[0];
		k->d[1] = q[1];
		k->D[0] = 1.0;
		k->D[4] = 1.0;
		v3_copy(k->H + 6, EZ);
		break;
	case TJ_UNIVERSAL: {
		/* R = Rz(a) C Rz(b): omega = a-dot e_z + b-dot u, u = Rz(a) C e_z */
		double u[3], Cz[3] = { G->C[2], G->C[5], G->C[8] }, R[9];
		rot_z(Rz, q[0]);
		m3_mul(T, Rz, G->C);
		m3_mulv(u, Rz, Cz);
		rot_z(Rz, q[1]);
		m3_mul(R, T, Rz);
		m3_mult(k->R, R, G->Fc);
		v3_copy(k->H, EZ);
		v3_copy(k->H + 3, u);
		v3_cross(k->hq, EZ, u);		/* u-dot = a-dot e_z x u */
		v3_scale(k->hq, qd[0] * qd[1], k->hq);
		break;
	}
	case TJ_SPHERICAL:
		chart_eval(q, qd, T, k->H, k->hq);
		m3_mul(k->R, T, CF);
		break;
	case TJ_FIXED:
	default:
		memcpy(k->R, CF, sizeof k->R);
		break;
	case TJ_POINT:	/* a free particle: its position, no rotation */
		memcpy(k->R, CF, sizeof k->R);
		v3_copy(k->d, q);
		for (int i = 0; i < 3; i++)
			k->D[3 * i + i] = 1.0;
		break;
	case TJ_FREE:
		v3_copy(k->d, q);
		chart_eval(q + 3, qd + 3, T, k->H + 9, k->hq);
		m3_mul(k->R, T, CF);
		for (int i = 0; i < 3; i++)
			k->D[3 * i + i] = 1.0;
		break;
	}
}

/* The forward pass's CF = C Fc^T of node i */
static void kin_update(struct tree *T, int i)
{
	const struct tgeo *G = &T->geo[i];
	m3_mult(T->CF + 9 * (size_t)i, G->C, G->Fc);
}

/* The forward pass (eqs. 7-9): positions, velocities, S, c of every
 * node from its parent's, with y, y' copied into T->y, T->yd on the way
 * (the last f's coordinates, tree.h) */
static void forward(struct tree *T, const double *y, const double *yd)
{
	struct ra_state *x = &T->x;
	double oml[3] = { 0, 0, 0 };	/* the last node's angular velocity */
	for (int i = 0; i < T->nb; i++) {
		const struct tnode *J = &T->nd[i];
		const struct tkin *K = &T->kin[J->ki];
		struct twork Wv = tw(T, i);
		struct twork *W = &Wv;
		int c = J->body, pb = J->parent >= 0 ? T->nd[J->parent].body : -1;
		static const double z3[3] = { 0, 0, 0 };
		const double *rp = pb >= 0 ? x->r + 3 * pb : z3, *Ap = pb >= 0 ? x->A + 9 * pb : I3;
		const double *vp = pb >= 0 ? x->v + 3 * pb : z3;
		/* the parent's angular velocity: the last node's in a chain */
		const double *omp = J->parent < 0 ? z3 : J->parent == i - 1 ? oml : T->om + 3 * J->parent;
		const double *q = y + J->q0, *qd = yd + J->q0;
		for (int a = 0; a < J->n; a++) {
			T->y[J->q0 + a] = q[a];
			T->yd[J->q0 + a] = qd[a];
		}
		struct jk k;
		joint_eval(J, T->CF + 9 * (size_t)i, &T->geo[i], q, qd, &k);
		double RP[9], op[3], oc[3], t[3];
		m3_mul(RP, Ap, K->Fp);
		m3_mulv(op, Ap, K->sp);
		v3_add(op, op, rp);
		double *A = x->A + 9 * c, *r = x->r + 3 * c, *v = x->v + 3 * c;
		m3_mul(A, RP, k.R);
		int dk = has_d(J->type);
		if (dk) {
			m3_mulv(t, RP, k.d);
			v3_add(oc, op, t);
		} else {
			v3_copy(oc, op);
		}
		m3_mulv(t, A, K->sc);
		v3_sub(r, oc, t);
		double e[3], wr[3] = { 0, 0, 0 }, vr[3] = { 0, 0, 0 };
		v3_sub(e, r, oc);
		v3_sub(W->dcp, r, rp);
		for (int j = 0; j < J->n; j++) {
			double Hg[3], Dg[3], *Sj = W->S + 6 * j;
			m3_mulv(Hg, RP, k.H + 3 * j);
			v3_cross(t, Hg, e);
			if (dk) {
				m3_mulv(Dg, RP, k.D + 3 * j);
				v3_add(Sj, Dg, t);
				v3_axpy(vr, qd[j], Dg);
			} else {
				v3_copy(Sj, t);
			}
			v3_copy(Sj + 3, Hg);
			v3_axpy(wr, qd[j], Hg);
		}
		/* velocities (eq. 8) */
		double om[3];
		v3_add(om, omp, wr);
		m3_tmulv(x->w + 3 * c, A, om);
		v3_cross(t, omp, W->dcp);
		v3_add(v, vp, t);
		v3_add(v, v, vr);
		v3_cross(t, wr, e);
		v3_add(v, v, t);
		/* c (eq. 9 at q-ddot = 0, Vdot_p = 0) */
		double cw[3], RPh[3], dv[3], oe[3];
		m3_mulv(RPh, RP, k.hq);
		v3_cross(cw, omp, wr);
		v3_add(cw, cw, RPh);
		v3_copy(W->c + 3, cw);
		v3_sub(dv, v, vp);
		v3_cross(W->c, omp, dv);
		v3_cross(t, omp, vr);
		v3_add(W->c, W->c, t);
		v3_cross(t, cw, e);
		v3_add(W->c, W->c, t);
		v3_cross(oe, om, e);
		v3_cross(t, wr, oe);
		v3_add(W->c, W->c, t);
		v3_copy(oml, om);
		if (J->far)
			v3_copy(T->om + 3 * i, om);
		if (J->ndrv)	/* the known q-ddot of driven coordinates */
			for (int a = 0; a < J->n; a++)
				if (J->drv[a] >= 0)
					for (int k2 = 0; k2 < 6; k2++)
						W->c[k2] += W->S[6 * a + k2] * T->Pdd[J->q0 + a];
	}
}

/* Node i's body's own mass matrix M_i = diag(m I, A J A^T) into I (6x6, eq. 11)
 * and -f_i into p, f_i = (F, A (n - w x J w)) its applied wrench with the
 * gyroscopic term (ra_forces' force global, torque n in the body frame):
 * the start of the backward pass's sums, made there (backward) */
static __attribute__((noinline)) void own_init(const struct tree *T, int i, double I[36],
						 double p[6])
{
	const struct ra_state *x = &T->x;
	int b = T->nd[i].body;
	const struct tmass *ms = &T->ms[T->nd[i].mi];
	const double *A = x->A + 9 * b, *J = ms->J, *wb = x->w + 3 * b;
	double AJ[9], Ig[9], m = ms->m;
	m3_mul(AJ, A, J);
	m3_mult(Ig, AJ, A);
	for (int r = 0; r < 3; r++)	/* every entry stored (no memset: rep stos) */
		for (int c = 0; c < 3; c++) {
			I[6 * r + c] = r == c ? m : 0.0;
			I[6 * r + 3 + c] = 0.0;
			I[6 * (3 + r) + c] = 0.0;
			I[6 * (3 + r) + 3 + c] = Ig[3 * r + c];
		}
	if (!p)
		return;
	double Jw[3], g[3], n[3], ng[3], Fg[6] = { 0, 0, 0, 0, 0, 0 };
	const double *F = T->F + 6 * b;
	if (T->gravity_only) {	/* ra_forces' gravity, m g, made here */
		v3_scale(Fg, m, T->s->m->gravity);
		F = Fg;
	}
	m3_mulv(Jw, J, wb);
	v3_cross(g, wb, Jw);
	v3_sub(n, F + 3, g);
	m3_mulv(ng, A, n);
	for (int k = 0; k < 3; k++) {
		p[k] = -F[k];
		p[3 + k] = -ng[k];
	}
}

/* ---- f: the articulated-body recursion ---- */

static int fail(struct tree *T, int st, const char *fmt, const char *name)
{
	snprintf(T->why, sizeof T->why, fmt, name);
	return st;
}

static const char *node_name(const struct tree *T, const struct tnode *J)
{
	const struct model *m = T->s->m;
	return J->joint >= 0 ? m->joints[J->joint].name : m->bodies[J->body].name;
}

/* Positions, velocities (forward pass) and applied forces at (t, y, y') */
static void prepare(struct tree *T, double t, const double *y, const double *yd)
{
	struct ra_state *x = &T->x;
	T->why[0] = 0;
	x->t = t;
	forward(T, y, yd);
	if (!T->gravity_only)
		ra_forces(T->s, x, t, NULL, T->F);
	T->have_ih = 0;
}

/* Which coordinates have no inertia (seed 003 §3.3: rank (J^T Mbar J) <
 * n): coordinate k of node i is massless when its diagonal entry of the
 * condensed joint-space inertia D = S^T Ihat S is at most TREE_RANK_TOL
 * times that of the composite (rigid-subtree) inertia, S_k^T Ic S_k,
 * Ic_i = M_i + sum Phi_j^T Ic_j Phi_j: the condensation subtracts what a
 * child's own coordinates carry, so a massless direction is left with
 * round-off of the subtree's inertia.  D is positive semi-definite, so a
 * zero diagonal entry is a zero row and column: the rank deficiency lies
 * along coordinate k.  The remaining block must then be positive
 * definite (checked in backward): the pseudo-inverse (J^T Mbar J)^+ of
 * eqs. 16-18 is its inverse padded with zeros, X_i of eq. 27 a
 * permutation.  Decided once, at the start (the first f). */
static double *composite(const struct tree *T)
{
	double *Ic = xcalloc(36 * (size_t)T->nb + 1, sizeof(double));
	for (int i = T->nb - 1; i >= 0; i--) {
		double *C = Ic + 36 * i, M[36];
		own_init(T, i, M, NULL);
		for (int k = 0; k < 36; k++)
			C[k] += M[k];
		if (T->nd[i].parent >= 0)
			phit_x_phi_add(Ic + 36 * T->nd[i].parent, tw(T, i).dcp, C);
	}
	return Ic;
}

/* The backward pass (eq. 17), with D = L Dg L^T (L unit lower) and V =
 * L^-1 U^T, z = L^-1 u: U D^-1 U^T = V^T Dg^-1 V, U D^-1 u = V^T Dg^-1
 * z; the forward pass takes K = D^-1 U^T and k = D^-1 u.  For a node
 * with massless coordinates D, U, u are those of its nr coordinates with
 * inertia (the pseudo-inverse, above). */
/* One node of the backward pass (eq. 17, above) from its Ihat and phat
 * in ih (36 + 6), adding its share to its parent's: into car when the
 * parent is the node before (the next the pass takes), else into the
 * parent's row of T->ih.  n and nr are the node's coordinates and those
 * with inertia; inlined with constant values for the common joints
 * (backward), so that the compiler unrolls the small loops (the same
 * operations in the same order).  nr < 0: read J->nr after the massless
 * coordinates are marked (Ic, the first pass). */
static inline __attribute__((always_inline)) int node_backward(struct tree *T, int i, double *Ic,
								int n, int nr, const double *ih,
								double car[42])
{
	struct tnode *J = &T->nd[i];
	struct twork Wv = tw(T, i);
	struct twork *W = &Wv;
	const double *I = ih, *p = ih + 36;
	double Ic6[6], pa[6], Ia[36], Dm[36], U[36], zu[6];
	m6_mulv(Ic6, I, W->c);
	for (int k = 0; k < 6; k++)
		pa[k] = p[k] + Ic6[k];
	for (int j = 0; j < n; j++)
		m6_mulv(U + 6 * j, I, W->S + 6 * j);
	if (Ic) {	/* the start of a model with singular masses */
		J->nr = 0;
		for (int a = 0; a < n; a++) {
			double d = 0.0, ref = 0.0, CS[6];
			const double *Sa = W->S + 6 * a;
			if (J->drv[a] >= 0) {	/* driven: locked, known q-ddot */
				J->alg[a] = 0;
				continue;
			}
			m6_mulv(CS, Ic + 36 * i, Sa);
			for (int k = 0; k < 6; k++) {
				d += Sa[k] * U[6 * a + k];
				ref += Sa[k] * CS[k];
			}
			J->alg[a] = !(d > TREE_RANK_TOL * ref);
			if (!J->alg[a])
				J->ri[J->nr++] = a;
			T->nalg += J->alg[a];
		}
	}
	if (nr < 0)
		nr = J->nr;
	for (int a = 0; a < nr; a++) {
		const double *Sa = W->S + 6 * J->ri[a];
		double su = 0.0;
		for (int k = 0; k < 6; k++)
			su += Sa[k] * pa[k];
		zu[a] = -su;
		for (int b2 = 0; b2 <= a; b2++) {
			double sd = 0.0;
			for (int k = 0; k < 6; k++)
				sd += Sa[k] * U[6 * J->ri[b2] + k];
			Dm[nr * a + b2] = Dm[nr * b2 + a] = sd;
		}
	}
	if (nr > 0) {
		/* D = L Dg L^T, V = L^-1 U^T, z = L^-1 u: U D^-1 U^T = V^T
		 * Dg^-1 V and U D^-1 u = V^T Dg^-1 z; made in locals (no
		 * aliasing with the node's block), stored for the forward pass */
		double L[36], V[36], Y[36], z[6], yz[6];
		if (ldl_inv(nr, Dm, L))
			return fail(T, ODE_SINGULAR, nr < n ?
				    "the articulated inertia of joint '%s' is singular off its "
				    "massless coordinates (a rank deficiency of J^T Mbar J not "
				    "along the joint's coordinates: not taken yet)" :
				    "the articulated inertia of joint '%s' "
				    "is singular (S^T I S not positive definite)",
				    node_name(T, J));
		for (int a = 0; a < nr; a++) {	/* forward substitutions */
			const double *Ua = U + 6 * J->ri[a];
			double ia = L[nr * a + a];
			for (int k = 0; k < 6; k++) {
				double sm = Ua[k];
				for (int b2 = 0; b2 < a; b2++)
					sm -= L[nr * a + b2] * V[6 * b2 + k];
				V[6 * a + k] = sm;
				Y[6 * a + k] = sm * ia;
			}
			double sz = zu[a];
			for (int b2 = 0; b2 < a; b2++)
				sz -= L[nr * a + b2] * z[b2];
			z[a] = sz;
			yz[a] = sz * ia;
		}
		for (int r = 0; r < 6; r++) {
			for (int c = r; c < 6; c++) {
				double sm = 0.0;
				for (int a = 0; a < nr; a++)
					sm += V[6 * a + r] * Y[6 * a + c];
				Ia[6 * r + c] = I[6 * r + c] - sm;
				if (c != r)
					Ia[6 * c + r] = I[6 * c + r] - sm;
			}
			for (int a = 0; a < nr; a++)
				pa[r] += V[6 * a + r] * yz[a];
		}
		/* for the forward pass: K = D^-1 U^T = L^-T Y and k = D^-1 u =
		 * L^-T yz (back substitutions, off the chain of dependent
		 * operations from node to node) */
		for (int a = nr - 1; a >= 0; a--) {
			for (int k = 0; k < 6; k++) {
				double sm = Y[6 * a + k];
				for (int b2 = a + 1; b2 < nr; b2++)
					sm -= L[nr * b2 + a] * Y[6 * b2 + k];
				Y[6 * a + k] = W->K[6 * a + k] = sm;
			}
			double sz = yz[a];
			for (int b2 = a + 1; b2 < nr; b2++)
				sz -= L[nr * b2 + a] * yz[b2];
			yz[a] = W->k[a] = sz;
		}
	} else {
		memcpy(Ia, I, sizeof Ia);
	}
	double *mine = T->ih + 42 * (size_t)i;
	if (T->keep && ih != mine)
		memcpy(mine, ih, 42 * sizeof(double));
	if (J->parent >= 0) {
		/* the parent's sums: its own M and -f, then its children's
		 * shares from the last in tree order to the first */
		int pi = J->parent;
		double *sum = T->ih + 42 * (size_t)pi, *dst = pi == i - 1 ? car : sum;
		if (J->first)
			own_init(T, pi, dst, dst + 36);
		else if (dst != sum)
			memcpy(dst, sum, 42 * sizeof(double));
		phit_x_phi_add(dst, W->dcp, Ia);
		phit_add(dst + 36, W->dcp, pa);
	}
	return ODE_OK;
}

static int backward(struct tree *T)
{
	double *Ic = T->singular && !T->masked ? composite(T) : NULL;
	if (Ic)		/* counted afresh: a failed first pass leaves masked 0 */
		T->nalg = 0;
	/* the sums of node i - 1 while the pass is at its child i: a
	 * chain's are carried from node to node, never stored */
	double cars[2][42], own[42];
	for (int i = T->nb - 1; i >= 0; i--) {
		const struct tnode *J = &T->nd[i];
		const double *ih;
		if (i >= TREE_AHEAD) {	/* own_init's and node_backward's data */
			int k = i - TREE_AHEAD, b = T->nd[k].body;
			prefetch_node(T, k);
			prefetch_range(T->x.A + 9 * b, 9 * sizeof(double), 0);
			prefetch_range(T->x.w + 3 * b, 3 * sizeof(double), 0);
			if (!T->gravity_only)
				prefetch_range(T->F + 6 * b, 6 * sizeof(double), 0);
		}
		double *car = cars[(i - 1) & 1];	/* node k's in cars[k & 1] */
		if (!J->kids) {
			own_init(T, i, own, own + 36);
			ih = own;
		} else if (i + 1 < T->nb && T->nd[i + 1].parent == i) {
			ih = cars[i & 1];
		} else {
			ih = T->ih + 42 * (size_t)i;
		}
		int st;
		if (Ic || J->nr != J->n)
			st = node_backward(T, i, Ic, J->n, -1, ih, car);
		else if (J->n == 1)
			st = node_backward(T, i, NULL, 1, 1, ih, car);
		else if (J->n == 2)
			st = node_backward(T, i, NULL, 2, 2, ih, car);
		else if (J->n == 3)
			st = node_backward(T, i, NULL, 3, 3, ih, car);
		else
			st = node_backward(T, i, NULL, J->n, J->n, ih, car);
		if (st) {
			free(Ic);
			return st;
		}
	}
	if (Ic) {
		free(Ic);
		T->masked = 1;
	}
	T->have_ih = T->keep;
	return ODE_OK;
}

/* The coordinates with inertia of node J: q-ddot_r = D^+ (u - U^T Phi
 * Vdot_p) = k - K pA, pA = Phi Vdot_p (eq. 18), into qdd[ri[a]]. */
static inline __attribute__((always_inline)) void
joint_accel(const struct tnode *J, const struct twork *W, const double *pA, double *qdd, int nr)
{
	for (int a = 0; a < nr; a++) {
		double sm = 0.0;
		for (int k = 0; k < 6; k++)
			sm += W->K[6 * a + k] * pA[k];
		qdd[J->ri[a]] = W->k[a] - sm;
	}
}

/* The wrench the parent joint transmits to node i's body, lam = Ihat
 * Vdot + phat (seed 003 eq. 13), after a backward pass that kept Ihat
 * and phat (T->keep) and the forward pass. */
static void node_lam(const struct tree *T, int i, double lam[6])
{
	const double *ih = T->ih + 42 * (size_t)i;
	m6_mulv(lam, ih, tw(T, i).acc);
	for (int k = 0; k < 6; k++)
		lam[k] += ih[36 + k];
}

/* Body accelerations of node i from its q-ddot (into the body state
 * only when asked for, tree_bodies). */
static inline __attribute__((always_inline)) void
body_accel(struct tree *T, int i, const double *pA, const double *qdd, int n)
{
	struct twork Wv = tw(T, i);
	struct twork *W = &Wv;
	for (int k = 0; k < 6; k++) {
		double sm = pA[k] + W->c[k];
		for (int a = 0; a < n; a++)
			sm += W->S[6 * a + k] * qdd[a];
		W->acc[k] = sm;
	}
}

/* One node of the forward pass: the q-ddot of its coordinates with
 * inertia from its parent's Vdot (eq. 18) into qdd (a massless one's 0),
 * then its Vdot from the q-ddot given (NULL: qdd).  n, nr as in
 * node_backward (constants for the common joints, node_accel). */
static inline __attribute__((always_inline)) void
node_accel_n(struct tree *T, int i, const double *given, double qdd[6], int n, int nr)
{
	const struct tnode *J = &T->nd[i];
	double pA[6] = { 0, 0, 0, 0, 0, 0 };
	struct twork Wv = tw(T, i);
	const struct twork *W = &Wv;
	for (int a = 0; a < 6; a++)
		qdd[a] = 0.0;
	if (J->parent >= 0)
		phi_motion(pA, W->dcp, tw(T, J->parent).acc);
	joint_accel(J, W, pA, qdd, nr);
	body_accel(T, i, pA, given ? given : qdd, n);
}

static void node_accel(struct tree *T, int i, const double *given, double qdd[6])
{
	const struct tnode *J = &T->nd[i];
	if (J->nr != J->n)
		node_accel_n(T, i, given, qdd, J->n, J->nr);
	else if (J->n == 1)
		node_accel_n(T, i, given, qdd, 1, 1);
	else if (J->n == 2)
		node_accel_n(T, i, given, qdd, 2, 2);
	else if (J->n == 3)
		node_accel_n(T, i, given, qdd, 3, 3);
	else
		node_accel_n(T, i, given, qdd, J->n, J->n);
}

static int rhs_full(struct tree *T, double t, const double *y, const double *yd, double *ydd)
{
	prepare(T, t, y, yd);
	T->resid_last = 0;
	int st = backward(T);
	if (st)
		return st;
	/* forward pass (eqs. 18, 24a, 25a); a massless coordinate's q-ddot
	 * is not determined (eq. 28b holds no q-ddot): 0 here, the forward
	 * recursion skipping it as eq. 19 allows (it does not reach the
	 * successors' absolute accelerations, §3.3) */
	for (int i = 0; i < T->nb; i++) {
		const struct tnode *J = &T->nd[i];
		int n = J->n;
		double qdd[6];
		node_accel(T, i, NULL, qdd);
		for (int a = 0; a < n; a++) {
			if (!isfinite(qdd[a]))
				return fail(T, ODE_NONFINITE, "non-finite acceleration of joint '%s'",
					    node_name(T, J));
			ydd[J->q0 + a] = qdd[a];
		}
	}
	return ODE_OK;
}

/* The residual of the second-order rows at (t, y, y', y''), seed 003
 * eqs. 25-28 in residual form (§3.4, "the residuals in (25) may be used
 * ... by general purpose DAE solvers"): the forward pass takes the given
 * y'' (every body's Vdot from its parent's and its own q-ddot, eq. 9),
 * and per node
 *   coordinate with inertia:  r = q-ddot - D^+ (u - U^T Phi Vdot_p)   (28a / eq. 18,
 *                                                                    scaled by D^-1)
 *   massless coordinate:      r = -S_k^T lam_i, lam_i = Ihat Vdot_i + phat   (28b:
 *                             S^T lam = 0, eq. 12; no q-ddot_k in it, since Ihat S_k = 0)
 * With regular masses r = y'' - f(t, y, y') at the solution. */
static int resid_full(struct tree *T, double t, const double *y, const double *yd,
		      const double *ydd, double *res)
{
	prepare(T, t, y, yd);
	T->resid_last = 1;
	T->keep = T->nalg > 0 || (T->singular && !T->masked);
	int st = backward(T);
	T->keep = 0;
	if (st)
		return st;
	for (int i = 0; i < T->nb; i++) {
		const struct tnode *J = &T->nd[i];
		struct twork Wv = tw(T, i);
		const struct twork *W = &Wv;
		int n = J->n;
		double qdd[6], lam[6] = { 0, 0, 0, 0, 0, 0 };
		node_accel(T, i, ydd + J->q0, qdd);
		if (T->nalg)
			node_lam(T, i, lam);
		for (int a = 0; a < n; a++) {
			double r;
			if (J->drv[a] >= 0) {
				r = 0.0;	/* not in the state */
			} else if (J->alg[a]) {
				r = 0.0;
				for (int k = 0; k < 6; k++)
					r -= W->S[6 * a + k] * lam[k];
			} else {
				r = ydd[J->q0 + a] - qdd[a];
			}
			if (!isfinite(r))
				return fail(T, ODE_NONFINITE, "non-finite residual of joint '%s'",
					    node_name(T, J));
			res[J->q0 + a] = r;
		}
	}
	return ODE_OK;
}

/* ---- drivers: the state and the full coordinates ---- */

/* The driven coordinates at t into Y, Yd (either may be NULL) and their
 * q-ddot into Pdd (forward adds S_a q-ddot_a to c). */
static void drv_eval(struct tree *T, double t, double *Y, double *Yd)
{
	const struct model *m = T->s->m;
	for (int k = 0; k < T->ndv; k++) {
		const struct tdrv *D = &T->dv[k];
		const struct driver *dv = &m->drivers[T->nd[D->node].drv[D->a]];
		double f[3];
		func_eval(&dv->f, t, f);
		if (Y)
			Y[D->q] = D->sig * (f[0] + dv->offset) + D->kap;
		if (Yd)
			Yd[D->q] = D->sig * f[1];
		T->Pdd[D->q] = D->sig * f[2];
	}
}

/* state -> full (the driven entries left as they are) and back */
static void expand(const struct tree *T, const double *y, double *Y)
{
	for (int i = 0; i < T->nq; i++)
		if (T->sx[i] >= 0)
			Y[i] = y[T->sx[i]];
}

static void gather(const struct tree *T, const double *Y, double *y)
{
	for (int i = 0; i < T->nq; i++)
		if (T->sx[i] >= 0)
			y[T->sx[i]] = Y[i];
}

static int tree_rhs(void *ctx, double t, const double *y, const double *yd, double *ydd)
{
	struct tree *T = ctx;
	if (!T->ndv)
		return rhs_full(T, t, y, yd, ydd);
	expand(T, y, T->Yf);
	expand(T, yd, T->Ydf);
	drv_eval(T, t, T->Yf, T->Ydf);
	int st = rhs_full(T, t, T->Yf, T->Ydf, T->Yddf);
	if (!st)
		gather(T, T->Yddf, ydd);
	return st;
}

/* The residual in the state's rows; the driven coordinates' entries of
 * the full y'' are 0 for the forward pass (their q-ddot is in c). */
static int tree_resid(void *ctx, double t, const double *y, const double *yd, const double *ydd,
		      double *res)
{
	struct tree *T = ctx;
	if (!T->ndv)
		return resid_full(T, t, y, yd, ydd, res);
	expand(T, y, T->Yf);
	expand(T, yd, T->Ydf);
	drv_eval(T, t, T->Yf, T->Ydf);
	for (int k = 0; k < T->ndv; k++)
		T->Yddf[T->dv[k].q] = 0.0;
	expand(T, ydd, T->Yddf);
	int st = resid_full(T, t, T->Yf, T->Ydf, T->Yddf, T->Rf);
	if (!st)
		gather(T, T->Rf, res);
	return st;
}

static int tree_massless(void *ctx, char *alg)
{
	struct tree *T = ctx;
	if (alg)
		for (int i = 0; i < T->nb; i++)
			for (int a = 0; a < T->nd[i].n; a++) {
				int k = T->sx[T->nd[i].q0 + a];
				if (k >= 0)
					alg[k] = (char)T->nd[i].alg[a];
			}
	return T->nalg;
}

/* Seed 003 eq. 29 for the DAE schemes (ode.h, vel_map): the joint rates of
 * a body below a massless coordinate a carry its motion.  q-ddot_j =
 * D_j^-1 (u_j - U_j^T Phi_j Vdot_p), and Vdot_p holds X_p q-ddot_a: X = S_a
 * at a's node, and down the tree X_m = Phi_m X_p - S_m G_m,a with G_m,a =
 * D_m^-1 U_m^T Phi_m X_p over m's coordinates with inertia (a massless
 * coordinate of m takes none of it).  The velocity w_m = q-dot_m + G_m,a
 * q-dot_a (the seed's v_j = X_j^T q-dot_j - T_j q-dot_i, T_j = -G_j, X =
 * I) is then free of a's motion: for a slide on a slide, j's absolute
 * velocity along it.  Below a body with inertia X vanishes (Ihat_i S_a =
 * 0 puts Phi_m X_p - S_m G_m,a in the null space of a regular Ihat_m,
 * assumption 23 of the seed); below a chain of massless bodies it
 * does not, which is why the seed assumes (23) and this follows X on
 * until it vanishes (to round-off of S_a).  From the last backward pass
 * (D^-1 U^T = L^-T Dg^-1 V); entries (row, column, value) into gi, ga, gv (room
 * for nq * nalg); returns their count.  O(nalg N) at most. */
static int tree_vel_map(void *ctx, int *gi, int *ga, double *gv)
{
	struct tree *T = ctx;
	int cnt = 0;
	double *X = NULL;
	char *on = NULL;
	for (int k = 0; k < T->nb; k++) {
		const struct tnode *K = &T->nd[k];
		for (int a = 0; a < K->n; a++) {
			if (!K->alg[a])
				continue;
			if (!X) {
				X = xcalloc(6 * (size_t)T->nb + 1, sizeof(double));
				on = xcalloc((size_t)T->nb + 1, 1);
			}
			memset(on, 0, (size_t)T->nb);
			const double *Sa = tw(T, k).S + 6 * a;
			double tiny = 0.0;
			for (int e = 0; e < 6; e++)
				tiny += Sa[e] * Sa[e];
			tiny = 1e-24 * tiny;	/* (1e-12 |S_a|)^2 */
			memcpy(X + 6 * k, Sa, 6 * sizeof(double));
			on[k] = 1;
			for (int m = k + 1; m < T->nb; m++) {	/* parents first */
				const struct tnode *M = &T->nd[m];
				if (M->parent < 0 || !on[M->parent])
					continue;
				struct twork Wv = tw(T, m);
				const struct twork *W = &Wv;
				double *Xm = X + 6 * m, tq[6];
				phi_motion(Xm, W->dcp, X + 6 * M->parent);
				int nr = M->nr;
				for (int r = 0; r < nr; r++) {	/* G = K Phi X_p */
					double sm = 0.0;
					for (int e = 0; e < 6; e++)
						sm += W->K[6 * r + e] * Xm[e];
					tq[r] = sm;
				}
				for (int r = 0; r < nr; r++) {
					const double *Sr = W->S + 6 * M->ri[r];
					for (int e = 0; e < 6; e++)
						Xm[e] -= Sr[e] * tq[r];
					gi[cnt] = M->q0 + M->ri[r];
					ga[cnt] = K->q0 + a;
					gv[cnt++] = tq[r];
				}
				double x2 = 0.0;
				for (int e = 0; e < 6; e++)
					x2 += Xm[e] * Xm[e];
				on[m] = x2 > tiny;
			}
		}
	}
	free(X);
	free(on);
	if (T->ndv)	/* full -> state indices (neither is a driven one) */
		for (int c = 0; c < cnt; c++) {
			gi[c] = T->sx[gi[c]];
			ga[c] = T->sx[ga[c]];
		}
	return cnt;
}

/* ---- charts ---- */

static int has_chart(const struct tnode *J)
{
	return J->type == TJ_SPHERICAL || J->type == TJ_FREE;
}

static const double *chart_of(const struct tnode *J, const double *y)
{
	return y + J->q0 + (J->type == TJ_FREE ? 3 : 0);
}

static int tree_want_new(void *ctx)
{
	struct tree *T = ctx;
	for (int i = 0; i < T->nb; i++)
		if (has_chart(&T->nd[i]) && v3_norm(chart_of(&T->nd[i], T->y)) > TREE_CHART_MAX)
			return 1;
	return 0;
}

/* C <- exp(phi~) C, phi-dot <- H(phi) phi-dot (the relative angular
 * velocity in P, the rate of the new chart at 0), phi <- 0. */
static int accept_full(struct tree *T, double *y, double *yd)
{
	int changed = 0;
	for (int i = 0; i < T->nb; i++) {
		struct tnode *J = &T->nd[i];
		if (!has_chart(J))
			continue;
		int o = J->q0 + (J->type == TJ_FREE ? 3 : 0);
		double *phi = y + o, *phid = yd + o;
		if (!(v3_norm(phi) > TREE_CHART_MAX))
			continue;
		double E[9], C[9], H[9], hq[3], w[3], *Cj = T->geo[i].C;
		so3_exp(E, phi);
		m3_mul(C, E, Cj);
		m3_orthonormalize(C);
		memcpy(Cj, C, sizeof C);
		kin_update(T, i);
		chart_jac(phi, phid, H, hq);
		m3_tmulv(w, H, phid);	/* H's columns at H[3 k] */
		v3_copy(phid, w);
		v3_set(phi, 0, 0, 0);
		T->rebases++;
		changed = 1;
	}
	if (changed) {	/* the last f's coordinates in the new charts */
		memcpy(T->y, y, (size_t)T->nq * sizeof(double));
		memcpy(T->yd, yd, (size_t)T->nq * sizeof(double));
	}
	return changed;
}

static int tree_accept(void *ctx, double t, double *y, double *yd)
{
	struct tree *T = ctx;
	if (!T->ndv)
		return accept_full(T, y, yd);
	expand(T, y, T->Yf);
	expand(T, yd, T->Ydf);
	drv_eval(T, t, T->Yf, T->Ydf);
	int changed = accept_full(T, T->Yf, T->Ydf);
	if (changed) {
		gather(T, T->Yf, y);
		gather(T, T->Ydf, yd);
	}
	return changed;
}

/* ---- the start: the coordinates of a body state ---- */

static double sgn(double a)
{
	return a < 0 ? -1.0 : 1.0;
}

/* The reference of a universal joint from the relative rotation Rr: its
 * columns x, y, z with z = Rr e_z made normal to e_z. */
static void universal_ref(double *C, const double *Rr)
{
	double z[3] = { Rr[2], Rr[5], 0.0 }, x[3] = { Rr[0], Rr[3], Rr[6] }, yv[3];
	if (v3_norm(z) < 1e-12)
		v3_set(z, 1, 0, 0);
	v3_scale(z, 1.0 / v3_norm(z), z);
	v3_axpy(x, -v3_dot(x, z), z);
	if (v3_norm(x) < 1e-12)
		v3_set(x, 0, 0, 1);
	v3_scale(x, 1.0 / v3_norm(x), x);
	v3_cross(yv, z, x);
	for (int i = 0; i < 3; i++) {
		C[3 * i] = x[i];
		C[3 * i + 1] = yv[i];
		C[3 * i + 2] = z[i];
	}
}

/* C and q of node J from the relative rotation Rr = P^T Q and offset dl
 * (in P) of a body state: the nearest pose on the joint's manifold. */
static void project_joint(const struct tnode *J, struct tgeo *G, const double *Rr, const double *dl, const double *rc,
			  const double *Ac, double *q)
{
	static const double flip[9] = { 1, 0, 0, 0, -1, 0, 0, 0, -1 };
	switch (J->type) {
	case TJ_REVOLUTE:
	case TJ_CYLINDRICAL:
		memcpy(G->C, Rr[8] >= 0 ? I3 : flip, sizeof G->C);
		q[0] = atan2(Rr[3], Rr[0]);
		if (J->type == TJ_CYLINDRICAL)
			q[1] = dl[2];
		break;
	case TJ_PLANAR:
		memcpy(G->C, Rr[8] >= 0 ? I3 : flip, sizeof G->C);
		q[0] = dl[0];
		q[1] = dl[1];
		q[2] = atan2(Rr[3], Rr[0]);
		break;
	case TJ_TRANSLATIONAL:
	case TJ_FIXED: {
		double s1 = sgn(Rr[0]), s3 = sgn(Rr[8]);
		double C[9] = { s1, 0, 0, 0, s1 * s3, 0, 0, 0, s3 };
		memcpy(G->C, C, sizeof C);
		if (J->type == TJ_TRANSLATIONAL)
			q[0] = dl[2];
		break;
	}
	case TJ_UNIVERSAL:
		universal_ref(G->C, Rr);
		q[0] = q[1] = 0.0;
		break;
	case TJ_SPHERICAL:
		memcpy(G->C, Rr, sizeof G->C);
		m3_orthonormalize(G->C);
		v3_set(q, 0, 0, 0);
		break;
	case TJ_POINT:
		memcpy(G->C, I3, sizeof G->C);
		v3_copy(q, rc);
		break;
	case TJ_FREE:
		memcpy(G->C, Ac, sizeof G->C);
		m3_orthonormalize(G->C);
		v3_copy(q, rc);
		v3_set(q + 3, 0, 0, 0);
		break;
	}
}

static int start_full(struct tree *T, const struct ra_state *x0, double *y, double *yd)
{
	T->why[0] = 0;
	static const double z3[3] = { 0, 0, 0 };
	/* positions, joint by joint from the given poses */
	for (int i = 0; i < T->nb; i++) {
		struct tnode *J = &T->nd[i];
		struct tgeo *G = &T->geo[i];
		int c = J->body, pb = J->parent >= 0 ? T->nd[J->parent].body : -1;
		const double *rp = pb >= 0 ? x0->r + 3 * pb : z3, *Ap = pb >= 0 ? x0->A + 9 * pb : I3;
		const double *rc = x0->r + 3 * c, *Ac = x0->A + 9 * c;
		double RP[9], RQ[9], Rr[9], op[3], oc[3], t[3], dl[3];
		m3_mul(RP, Ap, G->Fp);
		m3_mul(RQ, Ac, G->Fc);
		m3_tmul(Rr, RP, RQ);
		m3_mulv(op, Ap, G->sp);
		v3_add(op, op, rp);
		m3_mulv(oc, Ac, G->sc);
		v3_add(oc, oc, rc);
		v3_sub(t, oc, op);
		m3_tmulv(dl, RP, t);
		project_joint(J, G, Rr, dl, rc, Ac, y + J->q0);
		memcpy(T->R0 + 9 * i, G->C, 9 * sizeof(double));
		kin_update(T, i);
	}
	/* S at these positions, then the rates: least squares S q-dot = V_c -
	 * Phi V_p of the given velocities (exact on a consistent state) */
	memset(yd, 0, (size_t)T->nq * sizeof(double));
	forward(T, y, yd);
	for (int i = 0; i < T->nb; i++) {
		const struct tnode *J = &T->nd[i];
		struct twork Wv = tw(T, i);
		const struct twork *W = &Wv;
		int n = J->n, c = J->body, pb = J->parent >= 0 ? T->nd[J->parent].body : -1;
		if (n == 0)
			continue;
		double omc[3], omp[3] = { 0, 0, 0 }, vp[3] = { 0, 0, 0 }, dV[6], t[3];
		m3_mulv(omc, x0->A + 9 * c, x0->w + 3 * c);
		if (pb >= 0) {
			m3_mulv(omp, x0->A + 9 * pb, x0->w + 3 * pb);
			v3_copy(vp, x0->v + 3 * pb);
		}
		v3_cross(t, omp, W->dcp);
		for (int k = 0; k < 3; k++) {
			dV[k] = x0->v[3 * c + k] - vp[k] - t[k];
			dV[3 + k] = omc[k] - omp[k];
		}
		double G[36], L[36], g[6];
		for (int a = 0; a < n; a++) {
			g[a] = 0.0;
			for (int k = 0; k < 6; k++)
				g[a] += W->S[6 * a + k] * dV[k];
			for (int b = 0; b < n; b++) {
				double sm = 0.0;
				for (int k = 0; k < 6; k++)
					sm += W->S[6 * a + k] * W->S[6 * b + k];
				G[n * a + b] = sm;
			}
		}
		if (chol(n, G, L))
			return fail(T, ODE_SINGULAR, "joint '%s': its motion subspace is singular at "
				    "the start", node_name(T, J));
		chol_solve(n, L, g);
		memcpy(yd + J->q0, g, (size_t)n * sizeof(double));
	}
	memcpy(T->x.lam, x0->lam, (size_t)T->s->nc * sizeof(double));
	return ODE_OK;
}

/* The driven coordinates' sign and turns from the start's projection
 * (tree.h's coordinate against ra's, joint_coordinate in model.c).  With
 * P the parent marker and body2 the child, P is marker 1 and both
 * measure the same (sig = 1).  With body1 the child, P is marker 2, and
 * ra's angle of x_2 about z_1 (or slide of o_2 - o_1 along z_1) is, in
 * the joint's R = Rz(a) C (d = s e_z): z_1 = R_P C e_z = C_33 R_P e_z,
 * so the angle is -C_33 a and the slide -C_33 s (C_33 = +-1): sig =
 * -C_33.  A rotation's kap is the whole turns between the projected
 * angle and the driver's. */
static void drv_start(struct tree *T, double t, const double *Y)
{
	const struct model *m = T->s->m;
	for (int k = 0; k < T->ndv; k++) {
		struct tdrv *D = &T->dv[k];
		const struct tnode *J = &T->nd[D->node];
		const struct driver *dv = &m->drivers[J->drv[D->a]];
		const struct joint *jt = &m->joints[J->joint];
		double f[3];
		D->sig = jt->body[1] == J->body ? 1.0 : -T->geo[D->node].C[8];
		D->kap = 0.0;
		if (dv->kind == DRIVER_ROTATION) {
			func_eval(&dv->f, t, f);
			double g = D->sig * (f[0] + dv->offset);
			D->kap = 2.0 * M_PI * floor((Y[D->q] - g) / (2.0 * M_PI) + 0.5);
		}
	}
}

static int tree_start(void *ctx, const struct ra_state *x0, double *y, double *yd, double *ydd)
{
	struct tree *T = ctx;
	int st = start_full(T, x0, T->Yf, T->Ydf);
	if (st)
		return st;
	if (T->ndv) {
		drv_start(T, x0->t, T->Yf);
		drv_eval(T, x0->t, T->Yf, T->Ydf);
	}
	gather(T, T->Yf, y);
	gather(T, T->Ydf, yd);
	T->ode.n = T->ns;
	return tree_rhs(T, x0->t, y, yd, ydd);
}

/* ---- body states and multipliers ---- */

/* The multipliers of joint J's rows whose constraint force on the child,
 * -Phi_q,c^T lam, is the wrench lam_c of the recursion: (Jc Jc^T) lam =
 * Jc g, g = -(F, A^T N) in ra's generalized coordinates (force global,
 * torque in the body frame).  Needs ra_eval(.., PRIM_JAC) at T->x. */
/* The wrench lam_i each parent joint transmits to its body at the last
 * f, into T->lam.  After a residual (the DAE schemes: accelerations
 * given, Newton's iterate) the recursion's lam_i = Ihat_i Vdot_i + phat_i
 * (seed 003 eq. 13), from Ihat, phat made again by a backward pass at the
 * last f's inputs (the same numbers) unless that f kept them: it weighs
 * the iterate's error in q-ddot less than the sum below.  After rhs (its
 * accelerations the recursion's own) the same to round-off by each
 * body's equilibrium (eq. 11) from the leaves, lam_i = M_i Vdot_i - f_i +
 * sum over the children j of Phi_j^T lam_j: O(N) with no Ihat kept in f. */
static void joint_wrenches(struct tree *T)
{
	if (!T->lam)
		T->lam = xmalloc((6 * (size_t)T->nb + 1) * sizeof(double));
	if (T->resid_last) {
		if (!T->have_ih) {
			T->keep = 1;
			backward(T);
			T->keep = 0;
		}
		for (int i = 0; i < T->nb; i++)
			node_lam(T, i, T->lam + 6 * (size_t)i);
		return;
	}
	memset(T->lam, 0, 6 * (size_t)T->nb * sizeof(double));
	for (int i = T->nb - 1; i >= 0; i--) {
		struct twork W = tw(T, i);
		double M[36], p[6], Ma[6], *l = T->lam + 6 * (size_t)i;
		own_init(T, i, M, p);
		m6_mulv(Ma, M, W.acc);
		for (int k = 0; k < 6; k++)
			l[k] += Ma[k] + p[k];
		if (T->nd[i].parent >= 0)
			phit_add(T->lam + 6 * (size_t)T->nd[i].parent, W.dcp, l);
	}
}

static void joint_lambda(struct tree *T, int i)
{
	const struct tnode *J = &T->nd[i];
	const struct ra *s = T->s;
	const struct joint *jt = &s->m->joints[J->joint];
	int nr = jt->nrows, c = J->body;
	double g[6], G[36] = { 0 }, L[36] = { 0 }, rhs[6];
	const double *Jc[MODEL_JOINT_ROWS_MAX];
	int row[MODEL_JOINT_ROWS_MAX];
	const double *wl = T->lam + 6 * (size_t)i;
	v3_scale(g, -1.0, wl);
	m3_tmulv(g + 3, T->x.A + 9 * c, wl + 3);
	v3_scale(g + 3, -1.0, g + 3);
	for (int k = 0; k < nr; k++)
		row[k] = jt->row0 + k;
	/* a driver's row takes its share too: the joint's rows and the
	 * drivers' are the joint's wrench (a revolute's 5 and 1: all 6) */
	for (int a = 0; a < J->n; a++)
		if (J->drv[a] >= 0 && nr < MODEL_JOINT_ROWS_MAX)
			row[nr++] = s->m->drivers[J->drv[a]].row0;
	for (int k = 0; k < nr; k++)
		Jc[k] = s->jac + s->jo[row[k]] + (s->bj[row[k]] == c ? 6 : 0);
	double tr = 0.0;
	for (int a = 0; a < nr; a++) {
		rhs[a] = 0.0;
		for (int k = 0; k < 6; k++)
			rhs[a] += Jc[a][k] * g[k];
		for (int b = 0; b < nr; b++) {
			double sm = 0.0;
			for (int k = 0; k < 6; k++)
				sm += Jc[a][k] * Jc[b][k];
			G[nr * a + b] = sm;
		}
		tr += G[nr * a + a];
	}
	if (chol(nr, G, L)) {
		/* dependent rows (not at a regular pose of a supported joint):
		 * a touch of regularization gives the least-norm answer */
		for (int a = 0; a < nr; a++)
			G[nr * a + a] += 1e-12 * tr;
		if (chol(nr, G, L)) {
			for (int k = 0; k < nr; k++)
				T->x.lam[row[k]] = 0.0;
			return;
		}
	}
	chol_solve(nr, L, rhs);
	for (int k = 0; k < nr; k++)
		T->x.lam[row[k]] = rhs[k];
}

static void tree_bodies(void *ctx, struct ra_state *x)
{
	struct tree *T = ctx;
	struct ra *s = T->s;
	double t = x->t;
	T->x.t = t;
	for (int i = 0; i < T->nb; i++) {
		int b = T->nd[i].body;
		const double *acc = tw(T, i).acc;
		v3_copy(T->x.a + 3 * b, acc);
		m3_tmulv(T->x.wd + 3 * b, T->x.A + 9 * b, acc + 3);
	}
	if (s->m->njoints > 0) {
		joint_wrenches(T);
		ra_eval(s, &T->x, t, PRIM_JAC);
		for (int i = 0; i < T->nb; i++)
			if (T->nd[i].joint >= 0)
				joint_lambda(T, i);
	}
	ra_state_copy(s, x, &T->x);
	x->t = t;
}

static const char *tree_why(void *ctx)
{
	return ((struct tree *)ctx)->why;
}

/* ---- topology ---- */

int tree_body_regular(const struct model *m, int b)
{
	const struct body *bd = &m->bodies[b];
	const double *J = bd->J;
	double det = J[0] * (J[4] * J[8] - J[5] * J[7]) - J[1] * (J[3] * J[8] - J[5] * J[6]) +
		     J[2] * (J[3] * J[7] - J[4] * J[6]);
	if (!(bd->mass > 0))
		return 0;
	if (bd->kind == BODY_PARTICLE)
		return 1;
	return J[0] > 0 && J[0] * J[4] - J[1] * J[3] > 0 && det > 0;
}

static int joint_ok(enum joint_type t)
{
	return t == JOINT_REVOLUTE || t == JOINT_CYLINDRICAL || t == JOINT_TRANSLATIONAL ||
	       t == JOINT_UNIVERSAL || t == JOINT_SPHERICAL || t == JOINT_FIXED ||
	       t == JOINT_PLANAR;
}

static int uf_find(int *up, int a)
{
	while (up[a] != a) {
		up[a] = up[up[a]];
		a = up[a];
	}
	return a;
}

int tree_check(const struct model *m, struct diag *d)
{
	int nb = m->nbodies, bad = 0;
	/* a particle without joints is a node of 3 coordinates, its
	 * position; one with a joint is not taken yet */
	for (int j = 0; j < m->njoints; j++) {
		const struct joint *jt = &m->joints[j];
		for (int k = 0; k < 2; k++)
			if (jt->body[k] >= 0 && m->bodies[jt->body[k]].kind == BODY_PARTICLE) {
				diag_error(d, &jt->pos, "joint '%s' joins particle '%s': the tree "
					   "formulation takes particles without joints only (3 "
					   "coordinates, the position; integrator.formulation: rp "
					   "takes jointed particles)", jt->name,
					   m->bodies[jt->body[k]].name);
				bad = 1;
				break;
			}
	}
	int *up = xmalloc(((size_t)nb + 1) * sizeof(int));
	for (int b = 0; b <= nb; b++)
		up[b] = b;
	for (int j = 0; j < m->njoints; j++) {
		const struct joint *jt = &m->joints[j];
		if (!joint_ok(jt->type)) {
			diag_error(d, &jt->pos, "joint '%s' is %s: the tree formulation has no joint "
				   "coordinates for it (it takes revolute, cylindrical, translational, "
				   "universal, spherical, planar and fixed joints; integrator.formulation: rp "
				   "takes every joint)", jt->name, joint_type_names[jt->type]);
			bad = 1;
			continue;
		}
		int a = jt->body[0] < 0 ? nb : jt->body[0], b = jt->body[1] < 0 ? nb : jt->body[1];
		int ra_ = uf_find(up, a), rb = uf_find(up, b);
		if (ra_ == rb) {
			diag_error(d, &jt->pos, "joint '%s' closes a loop: its bodies '%s' and '%s' "
				   "are already connected by the joints before it; the tree "
				   "formulation needs a tree rooted at the ground, every body with one "
				   "joint towards it (integrator.formulation: rp takes closed loops)",
				   jt->name, a == nb ? "ground" : m->bodies[a].name,
				   b == nb ? "ground" : m->bodies[b].name);
			bad = 1;
			continue;
		}
		up[ra_] = rb;
	}
	free(up);
	/* drivers: a prescribed coordinate of a revolute, cylindrical or
	 * translational joint (model.c takes no others), each once */
	for (int i = 0; i < m->ndrivers; i++) {
		const struct driver *dv = &m->drivers[i];
		if (dv->joint < 0 || dv->joint >= m->njoints)
			continue;	/* model_finalize names it */
		for (int k = 0; k < i; k++)
			if (m->drivers[k].joint == dv->joint && m->drivers[k].kind == dv->kind) {
				diag_error(d, &dv->pos, "driver '%s' drives the coordinate of joint "
					   "'%s' that driver '%s' drives already", dv->name,
					   m->joints[dv->joint].name, m->drivers[k].name);
				bad = 1;
				break;
			}
	}
	for (int i = 0; i < m->nforces; i++)
		if (m->forces[i].type == FORCE_FRICTION) {
			diag_error(d, &m->forces[i].pos, "friction '%s': the tree formulation does not "
				   "take friction yet (it needs the joint's normal force; "
				   "integrator.formulation: rp does)", m->forces[i].name);
			bad = 1;
		}
	return bad ? -1 : 0;
}

static enum tj tj_of(enum joint_type t)
{
	switch (t) {
	case JOINT_REVOLUTE:
		return TJ_REVOLUTE;
	case JOINT_CYLINDRICAL:
		return TJ_CYLINDRICAL;
	case JOINT_TRANSLATIONAL:
		return TJ_TRANSLATIONAL;
	case JOINT_UNIVERSAL:
		return TJ_UNIVERSAL;
	case JOINT_SPHERICAL:
		return TJ_SPHERICAL;
	case JOINT_PLANAR:
		return TJ_PLANAR;
	default:
		return TJ_FIXED;
	}
}

/* The nodes in tree order: breadth first from the ground, then from the
 * first body of each group no joint connects to the ground (a free root). */
static void build_nodes(struct tree *T)
{
	const struct model *m = T->s->m;
	int nb = m->nbodies, nj = m->njoints;
	int *deg = xcalloc((size_t)nb + 2, sizeof(int)), *adj = xmalloc(2 * ((size_t)nj + 1) * sizeof(int));
	int *ground = xmalloc(((size_t)nj + 1) * sizeof(int)), ng = 0;
	for (int j = 0; j < nj; j++)
		for (int k = 0; k < 2; k++)
			if (m->joints[j].body[k] >= 0)
				deg[m->joints[j].body[k] + 1]++;
	for (int b = 0; b < nb; b++)
		deg[b + 1] += deg[b];
	int *pos = xmalloc(((size_t)nb + 1) * sizeof(int));
	memcpy(pos, deg, (size_t)nb * sizeof(int));
	for (int j = 0; j < nj; j++) {
		const struct joint *jt = &m->joints[j];
		for (int k = 0; k < 2; k++)
			if (jt->body[k] >= 0)
				adj[pos[jt->body[k]]++] = j;
		if (jt->body[0] < 0 || jt->body[1] < 0)
			ground[ng++] = j;
	}
	int *node_of = xmalloc(((size_t)nb + 1) * sizeof(int));
	for (int b = 0; b < nb; b++)
		node_of[b] = -1;
	int count = 0, head = 0, q = 0;
	/* the children of the ground, then each free root, each followed by
	 * a breadth-first sweep of what it reaches */
	for (int root = -1; root < nb; root++) {
		if (root < 0) {
			for (int g = 0; g < ng; g++) {
				const struct joint *jt = &m->joints[ground[g]];
				int c = jt->body[0] < 0 ? jt->body[1] : jt->body[0];
				struct tnode *J = &T->nd[count];
				J->body = c;
				J->parent = -1;
				J->joint = ground[g];
				node_of[c] = count++;
			}
		} else {
			if (node_of[root] >= 0)
				continue;
			struct tnode *J = &T->nd[count];
			J->body = root;
			J->parent = -1;
			J->joint = -1;
			node_of[root] = count++;
		}
		for (; head < count; head++) {
			int b = T->nd[head].body;
			for (int e = deg[b]; e < deg[b + 1]; e++) {
				int j = adj[e];
				if (j == T->nd[head].joint)
					continue;
				const struct joint *jt = &m->joints[j];
				int c = jt->body[0] == b ? jt->body[1] : jt->body[0];
				struct tnode *J = &T->nd[count];
				J->body = c;
				J->parent = head;
				J->joint = j;
				node_of[c] = count++;
			}
		}
	}
	/* types, markers, coordinates */
	for (int i = 0; i < nb; i++) {
		struct tnode *J = &T->nd[i];
		struct tgeo *G = &T->geo[i];
		if (J->joint < 0) {
			J->type = m->bodies[J->body].kind == BODY_PARTICLE ? TJ_POINT : TJ_FREE;
			memcpy(G->Fp, I3, sizeof G->Fp);
			memcpy(G->Fc, I3, sizeof G->Fc);
		} else {
			const struct joint *jt = &m->joints[J->joint];
			int side = jt->body[1] == J->body ? 1 : 0;
			J->type = tj_of(jt->type);
			v3_copy(G->sc, jt->s[side]);
			memcpy(G->Fc, jt->F[side], sizeof G->Fc);
			v3_copy(G->sp, jt->s[1 - side]);
			memcpy(G->Fp, jt->F[1 - side], sizeof G->Fp);
		}
		memcpy(G->C, I3, sizeof G->C);
		J->n = tj_n[J->type];
		J->nr = J->n;	/* every coordinate with inertia until backward's
				 * first pass finds massless ones */
		for (int a = 0; a < J->n; a++)
			J->ri[a] = a;
		J->q0 = q;
		q += J->n;
		kin_update(T, i);
	}
	/* the backward pass's sums (node_backward): the last child of each
	 * parent in tree order is the first that pass meets */
	for (int i = nb - 1; i >= 0; i--) {
		struct tnode *J = &T->nd[i];
		if (J->parent >= 0 && !T->nd[J->parent].kids) {
			J->first = 1;
			T->nd[J->parent].kids = 1;
		}
		if (J->parent >= 0 && J->parent != i - 1)
			T->nd[J->parent].far = 1;
	}
	/* the markers and masses the passes read, one entry for a run of
	 * nodes with the same */
	int nk = 0, nm = 0;
	for (int i = 0; i < nb; i++) {
		struct tnode *J = &T->nd[i];
		const struct tgeo *G = &T->geo[i];
		struct tkin k;
		struct tmass ms;
		memcpy(k.Fp, G->Fp, sizeof k.Fp);
		v3_copy(k.sp, G->sp);
		v3_copy(k.sc, G->sc);
		if (!nk || memcmp(&T->kin[nk - 1], &k, sizeof k))
			T->kin[nk++] = k;
		J->ki = nk - 1;
		ms.m = T->s->mass[J->body];
		memcpy(ms.J, ra_inertia(T->s, J->body), sizeof ms.J);
		if (!nm || memcmp(&T->ms[nm - 1], &ms, sizeof ms))
			T->ms[nm++] = ms;
		J->mi = nm - 1;
	}
	T->nq = q;
	(void)head;
	free(deg);
	free(adj);
	free(ground);
	free(pos);
	free(node_of);
}

/* Each driver's coordinate leaves the state (struct tdrv): drv, ri, nr
 * of its node, the state indices sx, the full vectors. */
static void setup_drivers(struct tree *T)
{
	const struct model *m = T->s->m;
	for (int i = 0; i < T->nb; i++)
		for (int a = 0; a < 6; a++)
			T->nd[i].drv[a] = -1;
	T->dv = xcalloc((size_t)m->ndrivers + 1, sizeof(*T->dv));
	T->ndv = 0;
	for (int k = 0; k < m->ndrivers; k++) {
		const struct driver *dv = &m->drivers[k];
		struct tnode *J = &T->nd[T->jnode[dv->joint]];
		int a = dv->kind == DRIVER_TRANSLATION && J->type == TJ_CYLINDRICAL ? 1 : 0;
		J->drv[a] = (signed char)k;
		J->ndrv++;
		struct tdrv *D = &T->dv[T->ndv++];
		D->node = T->jnode[dv->joint];
		D->a = a;
		D->q = J->q0 + a;
		D->sig = 1.0;
	}
	T->sx = xmalloc(((size_t)T->nq + 1) * sizeof(int));
	T->ns = 0;
	for (int i = 0; i < T->nb; i++) {
		struct tnode *J = &T->nd[i];
		J->nr = 0;
		for (int a = 0; a < J->n; a++) {
			if (J->drv[a] >= 0) {
				T->sx[J->q0 + a] = -1;
				continue;
			}
			J->ri[J->nr++] = a;
			T->sx[J->q0 + a] = T->ns++;
		}
	}
	size_t n = (size_t)T->nq + 1;
	T->Yf = xcalloc(n, sizeof(double));
	T->Ydf = xcalloc(n, sizeof(double));
	T->Yddf = xcalloc(n, sizeof(double));
	T->Rf = xcalloc(n, sizeof(double));
	T->Pdd = xcalloc(n, sizeof(double));
}

struct tree *tree_new(struct ra *s, struct diag *d)
{
	if (tree_check(s->m, d))
		return NULL;
	struct tree *T = xcalloc(1, sizeof(*T));
	T->s = s;
	T->nb = s->nb;
	T->nd = xcalloc((size_t)T->nb + 1, sizeof(*T->nd));
	T->geo = xcalloc((size_t)T->nb + 1, sizeof(*T->geo));
	T->kin = xcalloc((size_t)T->nb + 1, sizeof(*T->kin));
	T->ms = xcalloc((size_t)T->nb + 1, sizeof(*T->ms));
	T->CF = xcalloc(9 * (size_t)T->nb + 1, sizeof(double));
	build_nodes(T);
	/* each node's parts of fw and bw (struct twork), in tree order;
	 * offsets as int (a model of 2^31 doubles is out of reach) */
	size_t fo = 0, bo = 0;
	for (int i = 0; i < T->nb; i++) {
		size_t n = (size_t)T->nd[i].n;
		T->nd[i].ko = (int)fo;
		T->nd[i].bo = (int)bo;
		fo += FW_SIZE(n);
		bo += BW_SIZE(n);
	}
	T->fw = xcalloc(fo + 1, sizeof(double));
	T->bw = xcalloc(bo + 1, sizeof(double));
	T->acc = xcalloc(6 * (size_t)T->nb + 1, sizeof(double));
	T->om = xcalloc(3 * (size_t)T->nb + 1, sizeof(double));
	T->ih = xcalloc(42 * (size_t)T->nb + 1, sizeof(double));
	ra_state_init(s, &T->x);
	T->F = xcalloc(6 * (size_t)T->nb + 1, sizeof(double));
	T->gravity_only = s->m->nforces == 0 && s->m->nbeams == 0;
	T->y = xcalloc((size_t)T->nq + 1, sizeof(double));
	T->yd = xcalloc((size_t)T->nq + 1, sizeof(double));
	T->R0 = xcalloc(9 * (size_t)T->nb + 1, sizeof(double));
	T->jnode = xcalloc((size_t)s->m->njoints + 1, sizeof(int));
	for (int i = 0; i < T->nb; i++)
		if (T->nd[i].joint >= 0)
			T->jnode[T->nd[i].joint] = i;
	setup_drivers(T);
	T->ode.n = T->ns;
	T->ode.ctx = T;
	T->ode.rhs = tree_rhs;
	T->ode.accept = tree_accept;
	T->ode.want_new = tree_want_new;
	T->ode.renew = NULL;
	T->ode.start = tree_start;
	T->ode.bodies = tree_bodies;
	T->ode.why = tree_why;
	T->ode.resid = tree_resid;
	T->ode.massless = tree_massless;
	T->ode.vel_map = tree_vel_map;
	for (int b = 0; b < T->nb; b++)
		if (!tree_body_regular(s->m, b))
			T->singular = 1;
	return T;
}

void tree_free(struct tree **pT)
{
	struct tree *T = *pT;
	if (!T)
		return;
	free(T->nd);
	free(T->geo);
	free(T->kin);
	free(T->ms);
	free(T->CF);
	free(T->fw);
	free(T->bw);
	free(T->acc);
	free(T->om);
	free(T->ih);
	free(T->lam);
	free(T->F);
	free(T->y);
	free(T->yd);
	free(T->R0);
	free(T->jnode);
	free(T->dv);
	free(T->sx);
	free(T->Yf);
	free(T->Ydf);
	free(T->Yddf);
	free(T->Rf);
	free(T->Pdd);
	ra_state_release(&T->x);
	free(T);
	*pT = NULL;
}

struct ode_sys *tree_ode(struct tree *T)
{
	return &T->ode;
}

int tree_ncoords(const struct tree *T)
{
	return T->ns;
}

long tree_rebases(const struct tree *T)
{
	return T->rebases;
}

void tree_node(const struct tree *T, int b, int *q0, int *n, int *parent, int *joint)
{
	for (int i = 0; i < T->nb; i++)
		if (T->nd[i].body == b) {
			*q0 = T->nd[i].q0;
			*n = T->nd[i].n;
			*parent = T->nd[i].parent >= 0 ? T->nd[T->nd[i].parent].body : -1;
			*joint = T->nd[i].joint;
			return;
		}
}

int tree_joint_ncoords(enum joint_type t)
{
	return joint_ok(t) ? tj_n[tj_of(t)] : 0;
}

/* The coordinates as tree.h states them: q and q-dot of the last f, but
 * for a spherical joint the rotation vector from the start pose R0, in P
 * exp(phi~) = exp(q~) C R0^T (the principal logarithm), and its rate
 * phi-dot = J_l(phi)^-1 om, om = H(q) q-dot the relative angular velocity
 * in P (J_l(phi) = J_r(-phi), so J_l^-1(phi) = so3_jrinv(-phi)), both
 * turned into the parent's body frame by Fp. */
int tree_joint_coords(const struct tree *T, int j, double *q, double *qd)
{
	int i = T->jnode[j];
	const struct tnode *J = &T->nd[i];
	const double *y = T->y + J->q0, *yd = T->yd + J->q0;
	if (J->type != TJ_SPHERICAL) {
		memcpy(q, y, (size_t)J->n * sizeof(double));
		memcpy(qd, yd, (size_t)J->n * sizeof(double));
		return J->n;
	}
	double E[9], R[9], D[9], H[9], hq[3], om[3], phi[3], mphi[3], Ji[9], r[3];
	so3_exp(E, y);
	m3_mul(R, E, T->geo[i].C);
	m3_mult(D, R, T->R0 + 9 * i);
	so3_log(phi, D);
	chart_jac(y, yd, H, hq);
	m3_tmulv(om, H, yd);	/* H's columns at H[3 k] */
	v3_scale(mphi, -1.0, phi);
	so3_jrinv(Ji, mphi);
	m3_mulv(r, Ji, om);
	/* from P to the parent's body frame: A_p^T A_c = Fp D Fp^T (A_p^T
	 * A_c)(t0), Fp D Fp^T = exp((Fp phi)~) */
	m3_mulv(q, T->geo[i].Fp, phi);
	m3_mulv(qd, T->geo[i].Fp, r);
	return 3;
}
