/* moreau_pgs.c - the contact problem of a Moreau-Jean step (moreau.c):
 * the Delassus blocks, the warm start and projected Gauss-Seidel with its
 * local solves (the normal row, the sticking 2 x 2 block, the cone's rim
 * by maximum dissipation).  The method and its references: moreau.c. */
#include "moreau_impl.h"
#include "../util/interrupt.h"
#include "../util/vec.h"

#include <math.h>
#include <string.h>

/* M_b^-1 g (6 entries of one body) */
static void minv(const struct ra *s, int b, const double *g, double *out)
{
	for (int c = 0; c < 3; c++)
		out[c] = g[c] / s->mass[b];
	m3_mulv(out + 3, s->Jinv + 9 * b, g + 3);
}

/* U = H_i u (3) */
void mj_local_vel(const struct mj_c *c, const double *u, double *U)
{
	for (int k = 0; k < 3; k++) {
		double v = 0;
		for (int j = 0; j < 6; j++) {
			if (c->a >= 0)
				v += c->Ha[6 * k + j] * u[6 * c->a + j];
			v += c->Hb[6 * k + j] * u[6 * c->b + j];
		}
		U[k] = v;
	}
}

/* g += H_i^T P (generalized, the two bodies) */
void mj_add_impulse(const struct mj_c *c, const double *P, double *g)
{
	for (int k = 0; k < 3; k++)
		for (int j = 0; j < 6; j++) {
			if (c->a >= 0)
				g[6 * c->a + j] += c->Ha[6 * k + j] * P[k];
			g[6 * c->b + j] += c->Hb[6 * k + j] * P[k];
		}
}

/* u += Mt^-1 H_i^T dP: through the two bodies' masses, or the contact's
 * columns D_i with joints */
static void apply(const struct ra *s, const struct mj *M, int i, const double *dP, double *u)
{
	const struct mj_c *c = M->c + i;
	if (s->nc > 0) {
		const double *D = M->D + (size_t)i * 3 * s->ng;
		for (int j = 0; j < s->ng; j++)
			u[j] += D[3 * j] * dP[0] + D[3 * j + 1] * dP[1] + D[3 * j + 2] * dP[2];
		return;
	}
	for (int side = 0; side < 2; side++) {
		int b = side ? c->b : c->a;
		const double *H = side ? c->Hb : c->Ha;
		if (b < 0)
			continue;
		double g[6] = { 0 }, du[6];
		for (int k = 0; k < 3; k++)
			for (int j = 0; j < 6; j++)
				g[j] += H[6 * k + j] * dP[k];
		minv(s, b, g, du);
		for (int j = 0; j < 6; j++)
			u[6 * b + j] += du[j];
	}
}

/* The Delassus blocks W_ii (and with joints the columns D_i) */
void mj_delassus(struct integ *it, struct mj *M)
{
	const struct ra *s = it->sys;
	int ng = s->ng;
	if (s->nc > 0) {
		double *a = M->da, *z = M->dz;
		for (int i = 0; i < M->n; i++) {
			struct mj_c *c = M->c + i;
			memset(a, 0, (size_t)ng * 3 * sizeof(double));
			for (int k = 0; k < 3; k++)
				for (int j = 0; j < 6; j++) {
					if (c->a >= 0)
						a[(6 * c->a + j) * 3 + k] += c->Ha[6 * k + j];
					a[(6 * c->b + j) * 3 + k] += c->Hb[6 * k + j];
				}
			double *D = M->D + (size_t)i * 3 * ng;
			kkt_solve_many(it->kkt, 3, a, z, D);
			for (int k = 0; k < 3; k++) {
				double col[3];
				for (int l = 0; l < 3; l++) {
					double v = 0;
					for (int j = 0; j < 6; j++) {
						if (c->a >= 0)
							v += c->Ha[6 * l + j] * D[(6 * c->a + j) * 3 + k];
						v += c->Hb[6 * l + j] * D[(6 * c->b + j) * 3 + k];
					}
					col[l] = v;
				}
				for (int l = 0; l < 3; l++)
					c->Wd[3 * l + k] = col[l];
			}
		}
	} else {
		for (int i = 0; i < M->n; i++) {
			struct mj_c *c = M->c + i;
			memset(c->Wd, 0, sizeof c->Wd);
			for (int side = 0; side < 2; side++) {
				int b = side ? c->b : c->a;
				const double *H = side ? c->Hb : c->Ha;
				if (b < 0)
					continue;
				for (int k = 0; k < 3; k++) {
					double mh[6];
					minv(s, b, H + 6 * k, mh);
					for (int l = 0; l < 3; l++) {
						double v = 0;
						for (int j = 0; j < 6; j++)
							v += H[6 * l + j] * mh[j];
						c->Wd[3 * l + k] += v;
					}
				}
			}
		}
	}
	for (int i = 0; i < M->n; i++) {
		struct mj_c *c = M->c + i;
		double a = c->Wd[4], b = c->Wd[5], d = c->Wd[7], e = c->Wd[8];
		double det = a * e - b * d;
		c->WTi[0] = e / det;
		c->WTi[1] = -b / det;
		c->WTi[2] = -d / det;
		c->WTi[3] = a / det;
	}
}

/* P_T (P[1], P[2]) on the rim mu P_N of the disk, against the sliding
 * velocity it leaves, U_T = ut + W_TT (P_T - c->P_T) (ut: the velocity
 * with the contact's old P_T): the fixed point of the projected gradient
 * step P_T <- proj(P_T - U_T / lambda_max(W_TT)), which is the cone's
 * maximum dissipation (the radial projection of the sticking impulse is
 * it only when W_TT is isotropic, as for a sphere; a box's corner couples
 * its two directions through the body's rotation).  From that radial
 * projection, to integrator.tolerance of the rim's impulse. */
static void slide(const struct mj_c *c, double ut0, double ut1, double *P)
{
	double r = c->mu * P[0], a = c->Wd[4], b = 0.5 * (c->Wd[5] + c->Wd[7]), d = c->Wd[8];
	double eta = 1 / (0.5 * (a + d) + hypot(0.5 * (a - d), b));
	double pt = hypot(P[1], P[2]);
	if (!(r > 0)) {
		P[1] = P[2] = 0;
		return;
	}
	P[1] *= r / pt;
	P[2] *= r / pt;
	for (int k = 0; k < MJ_LOCAL; k++) {
		double d1 = P[1] - c->P[1], d2 = P[2] - c->P[2];
		double q1 = P[1] - eta * (ut0 + a * d1 + c->Wd[5] * d2);
		double q2 = P[2] - eta * (ut1 + c->Wd[7] * d1 + d * d2);
		double q = hypot(q1, q2);
		if (q > r) {
			q1 *= r / q;
			q2 *= r / q;
		}
		double ch = hypot(q1 - P[1], q2 - P[2]);
		P[1] = q1;
		P[2] = q2;
		if (ch <= c->tol * r)
			break;
	}
}

/* One contact's local solve with the others fixed, its normal and
 * sticking steps over-relaxed by om (1: Gauss-Seidel): the new impulse
 * into c->P, u updated; returns the largest change of its components. */
static double local_solve(const struct ra *s, struct mj *M, int i, double *u, double om)
{
	struct mj_c *c = M->c + i;
	double U[3], P[3], dP[3];
	mj_local_vel(c, u, U);
	/* Newton's law on the normal row */
	double target = U[0] + c->e * fmin(c->Um[0], 0.0);
	P[0] = fmax(0.0, c->P[0] - om * target / c->Wd[0]);
	double dn = P[0] - c->P[0];
	/* sticking: W_TT dP_T = -(U_T + W_TN dP_N) */
	double ut0 = U[1] + c->Wd[3] * dn, ut1 = U[2] + c->Wd[6] * dn;
	P[1] = c->P[1] - om * (c->WTi[0] * ut0 + c->WTi[1] * ut1);
	P[2] = c->P[2] - om * (c->WTi[2] * ut0 + c->WTi[3] * ut1);
	if (hypot(P[1], P[2]) > c->mu * P[0])
		slide(c, ut0, ut1, P);
	double dmax = 0;
	for (int k = 0; k < 3; k++) {
		dP[k] = P[k] - c->P[k];
		dmax = fmax(dmax, fabs(dP[k]));
		c->P[k] = P[k];
	}
	if (dmax > 0)
		apply(s, M, i, dP, u);
	return dmax;
}

/* Projected Gauss-Seidel from the warm start: 0 (converged to
 * integrator.tolerance, or accepted at MJ_ACCEPT where it would not),
 * or -1 when MJ_SWEEPS passed without either (M->last_res the last
 * relative change). */
int mj_pgs(struct integ *it, struct mj *M, double *u)
{
	const struct ra *s = it->sys;
	/* the impulses' floor: what changes a contact's velocity by the
	 * largest generalized velocity of the step, so that impulses at
	 * round-off (touching bodies at rest relative to each other) do not
	 * hold the relative test up */
	double vmax = 0, wmax = 0, pfloor;
	for (int j = 0; j < s->ng; j++)
		vmax = fmax(vmax, fmax(fabs(u[j]), fabs(M->u0[j])));
	for (int i = 0; i < M->n; i++)
		wmax = fmax(wmax, M->c[i].Wd[0]);
	pfloor = vmax / wmax;
	for (int i = 0; i < M->n; i++)
		if (M->c[i].P[0] != 0 || M->c[i].P[1] != 0 || M->c[i].P[2] != 0)
			apply(s, M, i, M->c[i].P, u);
	double res_then = INFINITY;	/* the change MJ_RATE_SWEEPS ago */
	for (int sw = 1; sw <= MJ_SWEEPS; sw++) {
		double dmax = 0, pmax = 0;
		for (int i = 0; i < M->n; i++) {
			dmax = fmax(dmax, local_solve(s, M, i, u,
							  sw > MJ_ACCEPT_SWEEPS ? MJ_OMEGA : 1.0));
			pmax = fmax(pmax, fabs(M->c[i].P[0]));
		}
		M->last_sweeps = sw;
		double scale = fmax(pmax, pfloor);
		M->last_res = scale > 0 ? dmax / scale : dmax;
		if (dmax <= it->tol * scale)
			return 0;
		if (sw % MJ_RATE_SWEEPS == 0) {
			/* the change at MJ_SWEEPS if it keeps falling at this rate */
			double rate = M->last_res / res_then;
			double at_end = M->last_res * pow(fmin(rate, 1.0),
							  (double)(MJ_SWEEPS - sw) / MJ_RATE_SWEEPS);
			if (sw >= MJ_ACCEPT_SWEEPS && M->last_res <= MJ_ACCEPT &&
			    !(at_end <= it->tol)) {
				M->inexact++;
				M->max_res = fmax(M->max_res, M->last_res);
				return 0;
			}
			res_then = M->last_res;
		}
		if ((sw & 63) == 0 && interrupted())
			return -1;
	}
	return -1;
}

/* The last step's impulse of the same contact (the lists are in
 * contact_detect's order) */
void mj_warm_start(struct mj *M)
{
	int j = 0;
	for (int i = 0; i < M->n; i++) {
		struct mj_c *c = M->c + i;
		memset(c->P, 0, sizeof c->P);
		c->mu = -1;
		while (j < M->nold && contact_pt_order(&M->old[j].pt, &c->pt) < 0)
			j++;
		if (j < M->nold && contact_pt_order(&M->old[j].pt, &c->pt) == 0) {
			/* the friction impulse as a global vector onto this
			 * step's tangential frame (made anew from the normal) */
			const struct mj_c *o = M->old + j;
			double f[3];
			for (int k = 0; k < 3; k++)
				f[k] = o->P[1] * o->fr[3 + k] + o->P[2] * o->fr[6 + k];
			c->P[0] = o->P[0];
			c->P[1] = v3_dot(f, c->fr + 3);
			c->P[2] = v3_dot(f, c->fr + 6);
			double r = hypot(c->P[1], c->P[2]), lim = c->mu_s * c->P[0];
			if (r > lim) {	/* inside the cone */
				c->P[1] *= lim / r;
				c->P[2] *= lim / r;
			}
			c->mu = M->old[j].slides ? c->mu_d : c->mu_s;
		}
	}
}
