/* rp_jac.c - the analytic integration Jacobians of rp (seed 001 §3,
 * eqs. 26-35).
 *
 * J1 = d vddot / d v and J2 = d vddot / d vdot by differentiating every
 * step of f at the state of the last f call, for the n position columns
 * (dv = e_j) and the n velocity columns (dv-dot = e_j):
 *   dq:     Phi_u du + Phi_v dv = 0 (eq. 8 linearized; KLU's factors);
 *   dz:     dr, dtheta = 2 G(e) de per body (z = (r, theta) of ra);
 *   dqdot:  Phi_u du' = dnu - d(Phi_q) qdot - Phi_v dv', where
 *           d(Phi_q) qdot = zdot^T H dz + J (0, 2 G(de) e-dot) for a model
 *           row (the w = 2 G(e) e-dot that the fixed e-dot gives turns with
 *           de) and 2 de . e-dot for a normalization row;
 *   dzdot:  dv, dw = 2 G(de) e-dot + 2 G(e) de-dot;
 *   the index-1 system [M J^T; J 0][zddot; lam] = [Q - w x Jw; gamma]:
 *           the same matrix (kkt's factors) times [dzddot; dlam] =
 *           [K dz + C dzdot - d(w x Jw) - (H dz)^T lam;
 *            gz dz + gd dzdot - zddot^T H dz]
 *           (H, gz, gd, nz per row from prim_lin; K, C per force element
 *           from ra_force_lin);
 *   de-ddot = G(de)^T w-dot / 2 + G(e)^T dw-dot / 2 - (w . dw) e / 2
 *           - |w|^2 de / 4, and dvddot is read off dq-ddot.
 * All 2n columns go through each step together, the values of one entry
 * over the columns contiguous (X[i * ncols + c]), so that every update is
 * an axpy along a row: Phi_u's factors solve for the n position columns'
 * du (= -Phi_u^-1 Phi_v) and du-dot in two multi-right-side calls (a
 * velocity column's du-dot is the position column's du: dv-dot = e_j
 * gives Phi_u du-dot = -Phi_v e_j), kkt's for all 2n dz-ddot in one
 * (kkt_solve_many); the rows' -lam H and the elements' K and C are summed
 * per pair of bodies first.  No f is evaluated.  Available when every
 * force element has an analytic Jacobian (ra_force_has_lin) and there
 * are no particles. */

#include "rp_impl.h"
#include "../util/vec.h"
#include "../util/xalloc.h"

#include <stdlib.h>
#include <string.h>

struct rp_lin {
	int n, r;			/* the sizes it was made for */
	/* per model row: the local (12) coefficients of the linearized
	 * velocity equation, nz - H^T zdot, and of the acceleration equation,
	 * gz - H^T zddot and gd; J */
	double *cz, *gzh, *gd, *jl;
	double *K, *C;			/* per force element: 144 each */
	int *fb;			/* per force element: its two bodies */
	/* the pairs of bodies (b0, b1) that rows and force elements act
	 * on, each once: the rows' -lam H and the elements' K summed into
	 * Kp (dz to force), the elements' C into Cp (dz-dot to force),
	 * 144 a pair */
	int paired, npair, *pb, *rowpair, *fpair;
	double *Kp, *Cp;
	double *Gy;			/* per body: d(-w x J w)/dw, 3 x 3 row-major */
	/* all columns at once: X[i * nc + c] holds entry i of column c, so
	 * that every update below is an axpy along a contiguous row */
	double *D;			/* r x n column-major: Phi_u^-1 Phi_v (KLU) */
	double *bu;			/* r x n column-major: dq-dot's right sides (KLU) */
	double *Q1, *Q2;		/* nq x n: dq, and dq-dot of the position columns */
	double *dz, *dwe;		/* 6 nb x n, 3 nb x n: the position columns' */
	double *dzd, *ra_;		/* 6 nb x 2n */
	double *rb_;			/* nc x 2n */
	double *row;			/* 2n */
	double *xa;			/* 6 nb x 2n: the index-1 solve's dz-ddot */
};

int rp_lin_ok(const struct rp *p)
{
	const struct model *m = p->s->m;
	for (int b = 0; b < p->nb; b++)
		if (!rigid(p, b))
			return 0;
	for (int i = 0; i < m->nforces; i++)
		if (!ra_force_has_lin(&m->forces[i]))
			return 0;
	/* the smooth contacts have body-diagonal blocks only (ra_contact.c):
	 * differences of f */
	if (p->s->contact)
		return 0;
	/* a coupling row has no prim_lin (its second derivatives): the
	 * Jacobians by differences of f */
	for (int j = 0; j < m->njoints; j++)
		if (m->joints[j].cpl)
			return 0;
	return 1;
}

void rp_lin_free(struct rp_lin **pl)
{
	struct rp_lin *L = *pl;
	if (!L)
		return;
	double *v[] = { L->cz, L->gzh, L->gd, L->jl, L->Kp, L->Cp, L->K, L->C, L->Gy, L->D, L->bu,
			L->Q1, L->Q2, L->dz, L->dwe, L->dzd, L->ra_, L->rb_, L->row, L->xa };
	for (size_t i = 0; i < sizeof v / sizeof v[0]; i++)
		free(v[i]);
	free(L->fb);
	free(L->pb);
	free(L->rowpair);
	free(L->fpair);
	free(L);
	*pl = NULL;
}

static struct rp_lin *lin_get(struct rp *p)
{
	if (p->lin && p->lin->n == p->n && p->lin->r == p->r)
		return p->lin;
	rp_lin_free(&p->lin);
	struct rp_lin *L = xcalloc(1, sizeof(*L));
	size_t nc = (size_t)p->nc + 1, nf = (size_t)p->s->m->nforces + 1, g = 6 * (size_t)p->nb + 1;
	size_t n = (size_t)p->n + 1, r = (size_t)p->r + 1, Q = (size_t)p->nq + 1;
	L->n = p->n;
	L->r = p->r;
	L->cz = xcalloc(12 * nc, sizeof(double));
	L->gzh = xcalloc(12 * nc, sizeof(double));
	L->gd = xcalloc(12 * nc, sizeof(double));
	L->jl = xcalloc(12 * nc, sizeof(double));
	L->K = xcalloc(144 * nf, sizeof(double));
	L->C = xcalloc(144 * nf, sizeof(double));
	L->fb = xcalloc(2 * nf, sizeof(int));
	L->pb = xcalloc(2 * (nc + nf), sizeof(int));
	L->rowpair = xcalloc(nc, sizeof(int));
	L->fpair = xcalloc(nf, sizeof(int));
	L->Kp = xcalloc(144 * (nc + nf), sizeof(double));
	L->Cp = xcalloc(144 * (nc + nf), sizeof(double));
	L->Gy = xcalloc(9 * (size_t)(p->nb + 1), sizeof(double));
	L->D = xcalloc(r * n, sizeof(double));
	L->bu = xcalloc(r * n, sizeof(double));
	L->Q1 = xcalloc(Q * n, sizeof(double));
	L->Q2 = xcalloc(Q * n, sizeof(double));
	L->dz = xcalloc(g * n, sizeof(double));
	L->dwe = xcalloc(g * n, sizeof(double));
	L->dzd = xcalloc(2 * g * n, sizeof(double));
	L->ra_ = xcalloc(2 * g * n, sizeof(double));
	L->rb_ = xcalloc(2 * nc * n, sizeof(double));
	L->row = xcalloc(2 * n, sizeof(double));
	L->xa = xcalloc(2 * g * n, sizeof(double));
	p->lin = L;
	return L;
}

/* The pair of bodies (b0, b1) among L's, added when new. */
static int pair_of(struct rp_lin *L, int b0, int b1)
{
	for (int i = 0; i < L->npair; i++)
		if (L->pb[2 * i] == b0 && L->pb[2 * i + 1] == b1)
			return i;
	L->pb[2 * L->npair] = b0;
	L->pb[2 * L->npair + 1] = b1;
	return L->npair++;
}

/* The per-row, per-element and per-body coefficients at the current
 * configuration (prim_lin, ra_force_lin); 1 when an element fails. */
static int lin_coef(struct rp *p, struct rp_lin *L, double t)
{
	struct ra *s = p->s;
	const struct model *m = s->m;
	const struct ra_state *x = &p->x;
	struct prim P[MODEL_JOINT_ROWS_MAX];
	for (int i = 0; i < m->nforces; i++)
		if (ra_force_lin(s, x, t, i, L->fb + 2 * i, L->K + 144 * (size_t)i,
				 L->C + 144 * (size_t)i))
			return 1;
	if (!L->paired) {	/* the pairs, once: rows first, then elements */
		for (int k = 0; k < p->nc; k++)
			L->rowpair[k] = pair_of(L, s->bi[k], s->bj[k]);
		for (int i = 0; i < m->nforces; i++)
			L->fpair[i] = pair_of(L, L->fb[2 * i], L->fb[2 * i + 1]);
		L->paired = 1;
	}
	memset(L->Kp, 0, 144 * (size_t)L->npair * sizeof(double));
	memset(L->Cp, 0, 144 * (size_t)L->npair * sizeof(double));
	for (int j = 0; j < m->njoints + m->ndrivers; j++) {
		int np = 1, k0;
		const struct prim *pr;
		if (j < m->njoints) {
			np = model_joint_prims(m, j, P);
			k0 = m->joints[j].row0;
			pr = P;
		} else {
			k0 = m->drivers[j - m->njoints].row0;
			pr = &m->dprims[j - m->njoints];
		}
		/* a joint's primitives are all between its two bodies */
		struct bstate bi, bj;
		struct prim_lin O[MODEL_JOINT_ROWS_MAX];
		ra_bstate(x, pr[0].bi, &bi);
		ra_bstate(x, pr[0].bj, &bj);
		prim_lin_joint(pr, np, &bi, &bj, t, O);
		/* the joint's z-dot and z-ddot, for zdot^T H dz and zddot^T H dz
		 * as dot products with dz */
		double zd[12], zdd[12];
		for (int side = 0; side < 2; side++) {
			int b2 = side ? pr[0].bj : pr[0].bi;
			for (int a = 0; a < 3; a++) {
				zd[6 * side + a] = b2 >= 0 ? x->v[3 * b2 + a] : 0.0;
				zd[6 * side + 3 + a] = b2 >= 0 ? x->w[3 * b2 + a] : 0.0;
				zdd[6 * side + a] = b2 >= 0 ? x->a[3 * b2 + a] : 0.0;
				zdd[6 * side + 3 + a] = b2 >= 0 ? x->wd[3 * b2 + a] : 0.0;
			}
		}
		for (int i = 0; i < np; i++) {
			const struct prim_lin *o = &O[i];
			int k = k0 + i;
			double lam = x->lam[k], *Kp = L->Kp + 144 * (size_t)L->rowpair[k];
			memcpy(L->gd + 12 * (size_t)k, o->gd, sizeof o->gd);
			memcpy(L->jl + 12 * (size_t)k, o->J, sizeof o->J);
			if (lam != 0.0)
				for (int e = 0; e < 144; e++)
					Kp[e] -= lam * o->H[e];
			double *cz = L->cz + 12 * (size_t)k, *gzh = L->gzh + 12 * (size_t)k;
			for (int c = 0; c < 12; c++) {
				double u = 0.0, w = 0.0;
				for (int a = 0; a < 12; a++) {
					u += zd[a] * o->H[12 * a + c];
					w += zdd[a] * o->H[12 * a + c];
				}
				cz[c] = o->nz[c] - u;
				gzh[c] = o->gz[c] - w;
			}
		}
	}
	for (int i = 0; i < m->nforces; i++) {
		const double *K = L->K + 144 * (size_t)i, *C = L->C + 144 * (size_t)i;
		double *Kp = L->Kp + 144 * (size_t)L->fpair[i], *Cp = L->Cp + 144 * (size_t)L->fpair[i];
		for (int e = 0; e < 144; e++) {
			Kp[e] += K[e];
			Cp[e] += C[e];
		}
	}
	for (int b = 0; b < p->nb; b++) {
		/* -d(w x J w) = (skew(J w) - skew(w) J) dw */
		const double *w = x->w + 3 * b, *Jb = ra_inertia(s, b);
		double Jw[3], S1[9], S2[9], SJ[9];
		m3_mulv(Jw, Jb, w);
		m3_skew(S1, Jw);
		m3_skew(S2, w);
		m3_mul(SJ, S2, Jb);
		for (int e = 0; e < 9; e++)
			L->Gy[9 * b + e] = S1[e] - SJ[e];
	}
	return 0;
}

/* dq of the position columns (Q1) and its dz, dwe; Q1 is also dq-dot of
 * the velocity columns, and its dz their dz-dot. */
static void lin_positions(struct rp *p, struct rp_lin *L)
{
	int n = p->n, r = p->r;
	/* D = Phi_u^-1 Phi_v: du = -D dv */
	memset(L->D, 0, (size_t)r * n * sizeof(double));
	for (int i = 0; i < r; i++)
		for (int e = p->vptr[i]; e < p->vptr[i + 1]; e++)
			L->D[(size_t)p->vcol[e] * r + i] += p->V[p->vsrc[e]];
	if (r > 0 && n > 0)
		klu_solve(p->sym, p->num, r, n, L->D, &p->kc);
	memset(L->Q1, 0, (size_t)p->nq * n * sizeof(double));
	for (int i = 0; i < r; i++) {
		double *q1 = L->Q1 + (size_t)p->dep[i] * n;
		for (int c = 0; c < n; c++)
			q1[c] = -L->D[(size_t)c * r + i];
	}
	for (int c = 0; c < n; c++)
		L->Q1[(size_t)p->ind[c] * n + c] = 1.0;
	memset(L->dz, 0, 6 * (size_t)p->nb * n * sizeof(double));
	memset(L->dwe, 0, 3 * (size_t)p->nb * n * sizeof(double));
	for (int b = 0; b < p->nb; b++) {
		const double *q1 = L->Q1 + (size_t)p->qo[b] * n;
		double G[12], Gd[12];
		gmat(p->q + p->qo[b] + 3, G);
		gmat(p->qd + p->qo[b] + 3, Gd);
		for (int a = 0; a < 3; a++) {
			double *zr = L->dz + (6 * (size_t)b + a) * n, *zt = zr + 3 * (size_t)n;
			double *we = L->dwe + (3 * (size_t)b + a) * n;
			memcpy(zr, q1 + (size_t)a * n, (size_t)n * sizeof(double));
			/* dtheta = 2 G(e) de; dw at fixed e-dot: 2 G(de) e-dot = -2 G(e-dot) de */
			for (int i = 0; i < 4; i++) {
				vec_axpy(n, 2.0 * G[4 * a + i], q1 + (size_t)(3 + i) * n, zt);
				vec_axpy(n, -2.0 * Gd[4 * a + i], q1 + (size_t)(3 + i) * n, we);
			}
		}
	}
}

/* dq-dot of the position columns (Q2), and dz-dot of all columns. */
static void lin_velocities(struct rp *p, struct rp_lin *L)
{
	const struct ra *s = p->s;
	int n = p->n, r = p->r, n2 = 2 * n;
	double *v = L->row;
	for (int i = 0; i < r; i++) {
		int k = p->rows[i];
		memset(v, 0, (size_t)n * sizeof(double));
		if (k < p->nc) {
			const double *cz = L->cz + 12 * (size_t)k, *jl = L->jl + 12 * (size_t)k;
			for (int a = 0; a < 12; a++) {
				int b2 = a < 6 ? s->bi[k] : s->bj[k], l = a % 6;
				if (b2 < 0)
					continue;
				if (cz[a] != 0.0)
					vec_axpy(n, cz[a], L->dz + (6 * (size_t)b2 + l) * n, v);
				if (l >= 3 && jl[a] != 0.0)
					vec_axpy(n, -jl[a], L->dwe + (3 * (size_t)b2 + l - 3) * n, v);
			}
		} else {
			int b = p->ebody[k - p->nc];
			const double *ed = p->qd + p->qo[b] + 3;
			for (int e = 0; e < 4; e++)
				vec_axpy(n, -2.0 * ed[e], L->Q1 + (size_t)(p->qo[b] + 3 + e) * n, v);
		}
		for (int c = 0; c < n; c++)
			L->bu[(size_t)c * r + i] = v[c];
	}
	if (r > 0 && n > 0)
		klu_solve(p->sym, p->num, r, n, L->bu, &p->kc);
	memset(L->Q2, 0, (size_t)p->nq * n * sizeof(double));
	for (int i = 0; i < r; i++) {
		double *q2 = L->Q2 + (size_t)p->dep[i] * n;
		for (int c = 0; c < n; c++)
			q2[c] = L->bu[(size_t)c * r + i];
	}
	for (int b = 0; b < p->nb; b++) {
		const double *q2 = L->Q2 + (size_t)p->qo[b] * n;
		double G[12];
		gmat(p->q + p->qo[b] + 3, G);
		for (int a = 0; a < 6; a++) {
			double *zd = L->dzd + (6 * (size_t)b + a) * n2;
			memcpy(zd + n, L->dz + (6 * (size_t)b + a) * n, (size_t)n * sizeof(double));
			if (a < 3) {
				memcpy(zd, q2 + (size_t)a * n, (size_t)n * sizeof(double));
				continue;
			}
			/* dw = 2 G(de) e-dot + 2 G(e) de-dot */
			memcpy(zd, L->dwe + (3 * (size_t)b + a - 3) * n, (size_t)n * sizeof(double));
			for (int i = 0; i < 4; i++)
				vec_axpy(n, 2.0 * G[4 * (a - 3) + i], q2 + (size_t)(3 + i) * n, zd);
		}
	}
}

/* The index-1 system's right sides of all columns: ra_ (6 nb), rb_ (nc). */
static void lin_rhs(struct rp *p, struct rp_lin *L)
{
	const struct ra *s = p->s;
	int n = p->n, n2 = 2 * n;
	memset(L->ra_, 0, 6 * (size_t)p->nb * n2 * sizeof(double));
	memset(L->rb_, 0, (size_t)p->nc * n2 * sizeof(double));
	for (int q = 0; q < L->npair; q++) {
		const int *pb = L->pb + 2 * q;
		const double *K = L->Kp + 144 * (size_t)q, *C = L->Cp + 144 * (size_t)q;
		for (int a = 0; a < 12; a++) {
			int b2 = pb[a / 6];
			if (b2 < 0)
				continue;
			double *out = L->ra_ + (6 * (size_t)b2 + a % 6) * n2;
			for (int c = 0; c < 12; c++) {
				int b3 = pb[c / 6];
				size_t z = 6 * (size_t)b3 + c % 6;
				if (b3 < 0)
					continue;
				if (C[12 * a + c] != 0.0)
					vec_axpy(n2, C[12 * a + c], L->dzd + z * n2, out);
				if (K[12 * a + c] != 0.0)
					vec_axpy(n, K[12 * a + c], L->dz + z * n, out);
			}
		}
	}
	for (int b = 0; b < p->nb; b++)
		for (int a = 0; a < 3; a++)
			for (int i = 0; i < 3; i++)
				vec_axpy(n2, L->Gy[9 * b + 3 * a + i], L->dzd + (6 * (size_t)b + 3 + i) * n2,
				     L->ra_ + (6 * (size_t)b + 3 + a) * n2);
	for (int k = 0; k < p->nc; k++) {
		int bs[2] = { s->bi[k], s->bj[k] };
		double *rb = L->rb_ + (size_t)k * n2;
		const double *gzh = L->gzh + 12 * (size_t)k, *gd = L->gd + 12 * (size_t)k;
		for (int a = 0; a < 12; a++) {
			int b2 = bs[a / 6];
			if (b2 < 0)
				continue;
			size_t z = 6 * (size_t)b2 + a % 6;
			if (gzh[a] != 0.0)
				vec_axpy(n, gzh[a], L->dz + z * n, rb);
			if (gd[a] != 0.0)
				vec_axpy(n2, gd[a], L->dzd + z * n2, rb);
		}
	}
}

int rp_jac(void *ctx, double t, const double *y, const double *yd, double *J1,
		  double *J2)
{
	struct rp *p = ctx;
	if (!p->lin_ok)
		return 1;
	/* the configuration must be the last f call's, at (t, y, yd) */
	if (!(p->last_ok && t == p->pos_t && p->pos_ok &&
	      memcmp(y, p->pos_y, (size_t)p->n * sizeof(double)) == 0 &&
	      memcmp(yd, p->last_yd, (size_t)p->n * sizeof(double)) == 0))
		return 2;
	struct rp_lin *L = lin_get(p);
	const struct ra_state *x = &p->x;
	int n = p->n, n2 = 2 * n;
	if (lin_coef(p, L, t))
		return 1;
	lin_positions(p, L);
	lin_velocities(p, L);
	lin_rhs(p, L);
	if (kkt_solve_many(p->k, n2, L->ra_, L->rb_, L->xa))
		return 1;
	/* dv-ddot: r-ddot's rows of xa, or e-ddot's = G(de)^T w-dot / 2 +
	 * G(e)^T dw-dot / 2 - (w . dw) e / 2 - |w|^2 de / 4, coordinate by
	 * coordinate (G(e) once each; de = 0 in the velocity columns) */
	for (int i = 0; i < n; i++) {
		/* body and place in it: every body rigid (rp_lin_ok), qo[b] = 7 b */
		int b = p->ind[i] / 7, o = p->ind[i] % 7;
		if (o < 3) {
			const double *xr = L->xa + (6 * (size_t)b + o) * n2;
			for (int c = 0; c < n2; c++)
				(c < n ? J1 : J2)[(size_t)(c < n ? c : c - n) * n + i] = xr[c];
			continue;
		}
		int qe = p->qo[b] + 3, ie = o - 3;
		const double *e = p->q + qe, *w = x->w + 3 * b, *wd = x->wd + 3 * b;
		double G[12], ww = v3_dot(w, w);
		gmat(e, G);
		for (int c = 0; c < n2; c++) {
			int pos = c < n;
			double dw[3], dwd[3], u1 = 0.0, de_i = 0.0;
			for (int a = 0; a < 3; a++) {
				dw[a] = L->dzd[(6 * (size_t)b + 3 + a) * n2 + c];
				dwd[a] = L->xa[(6 * (size_t)b + 3 + a) * n2 + c];
			}
			if (pos) {
				double de[4], Gde[12];
				for (int a = 0; a < 4; a++)
					de[a] = L->Q1[(size_t)(qe + a) * n + c];
				gmat(de, Gde);
				u1 = Gde[ie] * wd[0] + Gde[4 + ie] * wd[1] + Gde[8 + ie] * wd[2];
				de_i = de[ie];
			}
			double u2 = G[ie] * dwd[0] + G[4 + ie] * dwd[1] + G[8 + ie] * dwd[2];
			(pos ? J1 : J2)[(size_t)(pos ? c : c - n) * n + i] =
				0.5 * (u1 + u2) - 0.5 * v3_dot(w, dw) * e[ie] - 0.25 * ww * de_i;
		}
	}
	return 0;
}

