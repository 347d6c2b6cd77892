/* tree_rec.c - the tree formulation's articulated-body recursion
 * (tree.h; seed 003 §3): f and the residual of the second-order rows
 * from the forward pass's S and c (tree_kin.c), and the wrenches the
 * joints transmit; frames in tree_impl.h.
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
 * Each step costs a fixed number of 6x6 products per body: O(N).  Singular
 * body masses (seed 003 eqs. 19-28): coordinates whose diagonal of D_i is
 * at most TREE_RANK_TOL of their scale are massless (node_backward,
 * below, marks them);
 * D_i restricted to the others, which must be positive definite there, is
 * the pseudo-inverse the seed takes, and the massless coordinates become
 * the algebraic rows of the residual (bdf).
 */
#include "tree_impl.h"
#include "../util/vec.h"
#include "../util/xalloc.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

int tree_fail(struct tree *T, int st, const char *fmt, const char *name)
{
	snprintf(T->why, sizeof T->why, fmt, name);
	return st;
}

const char *tree_node_name(const struct tree *T, const struct tnode *J)
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
	tree_forward(T, y, yd);
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
			return tree_fail(T, ODE_SINGULAR, nr < n ?
				    "the articulated inertia of joint '%s' is singular off its "
				    "massless coordinates (a rank deficiency of J^T Mbar J not "
				    "along the joint's coordinates: not taken yet)" :
				    "the articulated inertia of joint '%s' "
				    "is singular (S^T I S not positive definite)",
				    tree_node_name(T, J));
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

int tree_rhs_full(struct tree *T, double t, const double *y, const double *yd, double *ydd)
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
				return tree_fail(T, ODE_NONFINITE, "non-finite acceleration of joint '%s'",
					    tree_node_name(T, J));
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
int tree_resid_full(struct tree *T, double t, const double *y, const double *yd,
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
				return tree_fail(T, ODE_NONFINITE, "non-finite residual of joint '%s'",
					    tree_node_name(T, J));
			res[J->q0 + a] = r;
		}
	}
	return ODE_OK;
}

/* ---- the joints' wrenches ---- */

/* The wrench lam_i each parent joint transmits to its body at the last
 * f, into T->lam.  After a residual (the DAE schemes: accelerations
 * given, Newton's iterate) the recursion's lam_i = Ihat_i Vdot_i + phat_i
 * (seed 003 eq. 13), from Ihat, phat made again by a backward pass at the
 * last f's inputs (the same numbers) unless that f kept them: it weighs
 * the iterate's error in q-ddot less than the sum below.  After rhs (its
 * accelerations the recursion's own) the same to round-off by each
 * body's equilibrium (eq. 11) from the leaves, lam_i = M_i Vdot_i - f_i +
 * sum over the children j of Phi_j^T lam_j: O(N) with no Ihat kept in f. */
void tree_joint_wrenches(struct tree *T)
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
