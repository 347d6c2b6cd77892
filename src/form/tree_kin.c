/* tree_kin.c - the tree formulation's joint kinematics and its forward
 * pass of positions, velocities, motion subspaces S and biases c (tree.h;
 * seed 003 §3, eqs. 7-9), the first pass of f; frames in tree_impl.h.
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
 */
#include "tree_impl.h"
#include "../util/vec.h"

#include <math.h>
#include <string.h>

static const double EZ[3] = { 0, 0, 1 };

static void rot_z(double *R, double a)
{
	double c = cos(a), s = sin(a);
	double r[9] = { c, -s, 0, s, c, 0, 0, 0, 1 };
	memcpy(R, r, sizeof r);
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

void tree_chart_jac(const double *phi, const double *phid, double *H, double hq[3])
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
		tree_chart_jac(phi, phid, H, hq);
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
void tree_kin_update(struct tree *T, int i)
{
	const struct tgeo *G = &T->geo[i];
	m3_mult(T->CF + 9 * (size_t)i, G->C, G->Fc);
}

/* The forward pass (eqs. 7-9): positions, velocities, S, c of every
 * node from its parent's, with y, y' copied into T->y, T->yd on the way
 * (the last f's coordinates, tree.h) */
void tree_forward(struct tree *T, const double *y, const double *yd)
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
