/* tree_impl.h - the state of the tree formulation (tree.h), shared by
 * its files: tree.c (set-up: topology, the nodes in tree order, drivers;
 * the lifecycle), tree_kin.c (joint kinematics and the forward pass of
 * positions and velocities), tree_rec.c (the articulated-body recursion:
 * f, the residual, the joints' wrenches) and tree_ode.c (the ODE entries:
 * drivers, charts, the start, body states).  Not for use outside
 * src/form/tree*.c.
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
 */
#ifndef MBSIM_TREE_IMPL_H
#define MBSIM_TREE_IMPL_H

#include "tree.h"
#include "../util/vec.h"

#include <stddef.h>

enum tj { TJ_REVOLUTE, TJ_CYLINDRICAL, TJ_TRANSLATIONAL, TJ_UNIVERSAL, TJ_SPHERICAL, TJ_FIXED,
	  TJ_FREE, TJ_POINT, TJ_PLANAR };

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
 * product less; tree_kin_update after every change of C).  One entry for a
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
 * coordinates, tree_joint_wrenches). */
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
	 * when keep is set (node_lam: massless residuals, tree_joint_wrenches) */
	double *ih;
	int keep;		/* the next backward pass keeps Ihat, phat in ih */
	int have_ih;		/* ih holds those of the last f */
	int resid_last;		/* the last f was a residual (tree_joint_wrenches) */
	double *lam;		/* 6 nb: the joints' wrenches (tree_joint_wrenches) */
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

/* C = A B^T */
static inline void m3_mult(double *C, const double *A, const double *B)
{
	for (int i = 0; i < 3; i++)
		for (int j = 0; j < 3; j++)
			C[3 * i + j] = A[3 * i] * B[3 * j] + A[3 * i + 1] * B[3 * j + 1] +
				       A[3 * i + 2] * B[3 * j + 2];
}

/* Phi x for a motion x = (lin, ang): (lin + ang x d, ang) */
static inline void phi_motion(double *y, const double *d, const double *x)
{
	double t[3];
	v3_cross(t, x + 3, d);
	v3_add(y, x, t);
	v3_copy(y + 3, x + 3);
}

/* tree_kin.c: the chart Jacobian H(phi) (columns at H[3 k]) and hq =
 * H-dot phid; the forward pass's CF of node i (after every change of its
 * C); the forward pass (eqs. 7-9) */
void tree_chart_jac(const double *phi, const double *phid, double *H, double hq[3]);
void tree_kin_update(struct tree *T, int i);
void tree_forward(struct tree *T, const double *y, const double *yd);

/* tree_rec.c: a failure's message into T->why (returns st); the name of
 * node J's joint (or free body); f and the residual in full coordinates
 * (drivers' entries included); the joints' wrenches of the last f into
 * T->lam */
int tree_fail(struct tree *T, int st, const char *fmt, const char *name);
const char *tree_node_name(const struct tree *T, const struct tnode *J);
int tree_rhs_full(struct tree *T, double t, const double *y, const double *yd, double *ydd);
int tree_resid_full(struct tree *T, double t, const double *y, const double *yd,
		    const double *ydd, double *res);
void tree_joint_wrenches(struct tree *T);

/* tree_ode.c: T->ode's entries (tree_new) */
void tree_ode_init(struct tree *T);

#endif
