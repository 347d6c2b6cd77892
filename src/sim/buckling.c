/* buckling.c - linearized buckling load factors (buckling.h). */
#include "buckling.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "linearize.h"
#include "statics.h"
#include "../la/lapack.h"
#include "../model/beam.h"
#include "../util/vec.h"
#include "../util/xalloc.h"

/* x = x0 moved by e u (r += e u, A <- A exp(e u~), body frame),
 * lambda = lam0 + e lp */
static void along(const struct ra *s, struct ra_state *x, const struct ra_state *x0,
		  const double *u, const double *lp, double e)
{
	int n = s->ng;
	double *g = xcalloc((size_t)n, sizeof(double));
	ra_state_copy(s, x, x0);
	for (int b = 0; b < s->nb; b++)
		for (int i = 0; i < 3; i++) {
			x->r[3 * b + i] += e * u[6 * b + i];
			g[6 * b + 3 + i] = e * u[6 * b + 3 + i];
		}
	ra_rotate(s, x->A, g);
	for (int k = 0; k < s->nc; k++)
		x->lam[k] += e * lp[k];
	free(g);
}

/* The linear prebuckling state: u (6 nb) with K0 u = f (the loads) on the
 * allowed motions, u = N y, K0r y = N^T f, and the reactions lp with
 * Phi_q^T lp = D u + f (D = -K0).  0, or -1 when K0r is singular. */
static int prebuckling(struct ra *s, const struct ra_state *x0, double t, const double *D,
		       const double *N, int d, double *u, double *lp)
{
	int n = s->ng, nc = s->nc, rc = -1, info;
	double *f = xcalloc((size_t)n, sizeof(double)), *g = xcalloc((size_t)n, sizeof(double));
	double *K = xcalloc((size_t)n * (size_t)n, sizeof(double));
	double *Kr = xcalloc((size_t)d * (size_t)d + 1, sizeof(double));
	double *y = xcalloc((size_t)d + 1, sizeof(double));
	int *piv = xcalloc((size_t)d + 1, sizeof(int));
	statics_residual_lf(s, x0, t, x0->lam, 1, f);
	statics_residual_lf(s, x0, t, x0->lam, 0, g);
	for (int i = 0; i < n; i++)
		f[i] -= g[i];	/* G is affine in the load factor */
	for (size_t i = 0; i < (size_t)n * (size_t)n; i++)
		K[i] = -D[i];
	lin_project(K, N, n, d, Kr);
	for (int c = 0; c < d; c++)
		for (int i = 0; i < n; i++)
			y[c] += N[i + (size_t)n * c] * f[i];
	int one = 1;
	dgetrf_(&d, &d, Kr, &d, piv, &info);
	if (info == 0 && d > 0) {
		dgetrs_("N", &d, &one, Kr, &d, piv, y, &d, &info);
		memset(u, 0, (size_t)n * sizeof(double));
		for (int c = 0; c < d; c++)
			for (int i = 0; i < n; i++)
				u[i] += N[i + (size_t)n * c] * y[c];
		rc = 0;
	}
	if (rc == 0 && nc > 0) {
		double *P = xcalloc((size_t)nc * (size_t)n, sizeof(double));
		double *A = xcalloc((size_t)nc * (size_t)n, sizeof(double));
		double *b = xcalloc((size_t)(n > nc ? n : nc), sizeof(double));
		ra_eval(s, x0, t, PRIM_PHI | PRIM_JAC);
		statics_jacobian(s, P);
		for (int k = 0; k < nc; k++)
			for (int j = 0; j < n; j++)
				A[j + (size_t)n * k] = P[k + (size_t)nc * j];
		for (int i = 0; i < n; i++) {
			b[i] = f[i];
			for (int j = 0; j < n; j++)
				b[i] += D[i + (size_t)n * j] * u[j];
		}
		if (statics_lsq(n, nc, A, b) == 0)
			memcpy(lp, b, (size_t)nc * sizeof(double));
		else
			rc = -1;
		free(P);
		free(A);
		free(b);
	}
	free(f);
	free(g);
	free(K);
	free(Kr);
	free(y);
	free(piv);
	return rc;
}

/* The forces of element e of bm at x with the resultants res (12) */
static void frozen(const struct beam *bm, int e, const struct ra_state *x, const double *res,
		   double *F)
{
	const double *r[3], *A[3];
	int b0 = bm->node0 + 2 * e;
	for (int i = 0; i < 3; i++) {
		r[i] = x->r + 3 * (b0 + i);
		A[i] = x->A + 9 * (b0 + i);
	}
	beam_element_frozen(bm, e, r, A, (const double(*)[6])res, F);
}

/* KG -= d/dq of the beams' forces at x0 with their resultants held at
 * resp (12 per element, the prebuckling state's per unit load factor):
 * central differences, step 1e-6 (m per model length L, or rad) - the
 * forces are smooth in the node frames and affine in the positions */
static void beams_stress_stiffness(const struct ra *s, const struct ra_state *x0, double L,
				   const double *resp, double *KG)
{
	const struct model *m = s->m;
	int n = s->ng;
	struct ra_state xp;
	ra_state_init(s, &xp);
	for (int i = 0, el = 0; i < m->nbeams; i++) {
		const struct beam *bm = &m->beams[i];
		for (int e = 0; e < bm->nel; e++, el++) {
			int b0 = bm->node0 + 2 * e;
			for (int a = 0; a < 3; a++)
				for (int k = 0; k < 6; k++) {
					double Fp[18], Fm[18], h = k < 3 ? 1e-6 * L : 1e-6;
					int b = b0 + a, col = 6 * b + k;
					for (int sg = 0; sg < 2; sg++) {
						statics_perturb(s, &xp, x0, col, sg ? -h : h, 0);
						frozen(bm, e, &xp, resp + 12 * el, sg ? Fm : Fp);
					}
					for (int r = 0; r < 18; r++)
						KG[(6 * b0 + r) + (size_t)n * col] -= (Fp[r] - Fm[r]) / (2 * h);
				}
		}
	}
	ra_state_release(&xp);
}

/* The beams' section resultants at x (12 per element, in order; the
 * elements' count in *nel) */
static double *resultants(const struct ra *s, const struct ra_state *x, int *nel)
{
	const struct model *m = s->m;
	*nel = 0;
	for (int i = 0; i < m->nbeams; i++)
		*nel += m->beams[i].nel;
	double *res = xcalloc(12 * (size_t)*nel + 1, sizeof(double));
	for (int i = 0, el = 0; i < m->nbeams; i++)
		for (int e = 0; e < m->beams[i].nel; e++, el++) {
			struct beam_pt pt[2];
			ra_beam_out(s, x, &m->beams[i], e, pt);
			memcpy(res + 12 * el, pt[0].res, 6 * sizeof(double));
			memcpy(res + 12 * el + 6, pt[1].res, 6 * sizeof(double));
		}
	return res;
}

/* The relative error taken for each entry of the rest's tangent
 * (statics_tangent_rest: central differences, truncation and rounding
 * some 1e-11 of the entries on the test decks), as mbsim modes takes for
 * K's in its free-motion test */
#define TANGENT_RTOL 1e-9

/* KG at x0 (buckling.h): the rest's tangent differenced along the
 * prebuckling path, the beams' stress stiffness; Nz, the bound of the
 * rest's part's error entry by entry: TANGENT_RTOL of the two tangents
 * over the difference step 2 eps */
static void geometric(struct ra *s, const struct ra_state *x0, double t, const double *u,
		      const double *lp, double *KG, double *Nz)
{
	int n = s->ng;
	double L = statics_length(s->m), umax = 0;
	for (int i = 0; i < n; i++)
		umax = fmax(umax, fabs(u[i]) / (i % 6 < 3 ? L : 1));
	double eps = umax > 0 ? 1e-4 / umax : 1;
	size_t nn = (size_t)n * (size_t)n;
	double *Dm = xcalloc(nn, sizeof(double));
	struct ra_state xp, xm;
	ra_state_init(s, &xp);
	ra_state_init(s, &xm);
	along(s, &xp, x0, u, lp, eps);
	along(s, &xm, x0, u, lp, -eps);
	statics_tangent_rest(s, &xp, t, xp.lam, eps, KG);
	statics_tangent_rest(s, &xm, t, xm.lam, -eps, Dm);
	for (size_t i = 0; i < nn; i++) {
		Nz[i] = TANGENT_RTOL * (fabs(KG[i]) + fabs(Dm[i])) / (2 * eps);
		KG[i] = -(KG[i] - Dm[i]) / (2 * eps);
	}
	if (s->m->nbeams) {
		int nel;
		double *rp = resultants(s, &xp, &nel), *rm = resultants(s, &xm, &nel);
		for (int i = 0; i < 12 * nel; i++)
			rp[i] = (rp[i] - rm[i]) / (2 * eps);
		beams_stress_stiffness(s, x0, L, rp, KG);
		free(rp);
		free(rm);
	}
	ra_state_release(&xp);
	ra_state_release(&xm);
	free(Dm);
}

static int by_mu(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

/* phi^T X phi for the d-vector phi (X d x d), or, with N (n x d),
 * |N phi|^T X |N phi| for X n x n */
static double quad(const double *X, const double *phi, int d, const double *N, int n)
{
	double *q = xcalloc((size_t)(N ? n : d) + 1, sizeof(double)), sum = 0;
	int m = N ? n : d;
	for (int i = 0; i < m; i++) {
		if (!N) {
			q[i] = phi[i];
			continue;
		}
		for (int c = 0; c < d; c++)
			q[i] += N[i + (size_t)n * c] * phi[c];
		q[i] = fabs(q[i]);
	}
	for (int j = 0; j < m; j++)
		for (int i = 0; i < m; i++)
			sum += q[i] * X[i + (size_t)m * j] * q[j];
	free(q);
	return sum;
}

/* The count smallest real positive finite mu of K0r phi = mu (-KGr) phi
 * into b, with their shapes N phi.  A mu whose geometric stiffness along
 * phi, phi^T K0r phi / mu, is within ten times the bound Nz of its error
 * is the differences' noise, not a load (a spring system on sliders whose
 * KG vanishes read factors of 1e8): it is counted in b->noise, not kept. */
static int pencil(const double *K0r, const double *KGr, const double *Nz, int d,
		  const double *N, int n, int count, struct buckling *b, char *msg, size_t len)
{
	size_t dd = (size_t)d * (size_t)d;
	double *A = xcalloc(dd + 1, sizeof(double)), *B = xcalloc(dd + 1, sizeof(double));
	double *ar = xcalloc((size_t)d + 1, sizeof(double)), *ai = xcalloc((size_t)d + 1, sizeof(double));
	double *be = xcalloc((size_t)d + 1, sizeof(double)), *VR = xcalloc(dd + 1, sizeof(double));
	double wq, dummy = 0;
	memcpy(A, K0r, dd * sizeof(double));
	for (size_t i = 0; i < dd; i++)
		B[i] = -KGr[i];
	int one = 1, q = -1, info;
	dggev_("N", "V", &d, A, &d, B, &d, ar, ai, be, &dummy, &one, VR, &d, &wq, &q, &info);
	int lw = (int)wq + 1;
	double *work = xcalloc((size_t)lw, sizeof(double));
	dggev_("N", "V", &d, A, &d, B, &d, ar, ai, be, &dummy, &one, VR, &d, work, &lw, &info);
	int rc = 0;
	if (info != 0) {
		snprintf(msg, len, "the buckling eigenproblem failed (dggev info %d)", info);
		rc = -1;
	} else {
		/* (mu, column) pairs, sorted by mu */
		double *key = xcalloc(2 * (size_t)d + 1, sizeof(double));
		int k = 0;
		for (int i = 0; i < d; i++) {
			/* a real mu: no imaginary part beyond rounding */
			if (be[i] == 0 || fabs(ai[i]) > 1e-8 * fabs(ar[i]))
				continue;
			double mu = ar[i] / be[i];
			if (!(mu > 0 && isfinite(mu)))
				continue;
			if (fabs(quad(K0r, VR + (size_t)d * i, d, NULL, n)) / mu <=
			    10 * quad(Nz, VR + (size_t)d * i, d, N, n)) {
				b->noise++;
				continue;
			}
			key[2 * k] = mu;
			key[2 * k++ + 1] = i;
		}
		qsort(key, (size_t)k, 2 * sizeof(double), by_mu);
		k = k < count ? k : count;
		b->n = k;
		b->mu = xcalloc((size_t)k + 1, sizeof(double));
		b->shape = xcalloc((size_t)k + 1, sizeof(double *));
		for (int i = 0; i < k; i++) {
			b->mu[i] = key[2 * i];
			b->shape[i] = lin_shape(VR, d, (int)key[2 * i + 1], 0, N, n, d);
		}
		free(key);
	}
	free(A);
	free(B);
	free(ar);
	free(ai);
	free(be);
	free(VR);
	free(work);
	return rc;
}

int buckling_compute(struct ra *s, const struct ra_state *x0, double t, int count,
		     struct buckling *b, char *msg, size_t len)
{
	int n = s->ng;
	size_t nn = (size_t)n * (size_t)n;
	memset(b, 0, sizeof(*b));
	b->ncoord = n;
	ra_force_commit(s, x0);
	double *N = NULL;
	int d = lin_null_space(s, x0, t, &N, msg, len);
	if (d < 0)
		return -1;
	b->ndof = d;
	int rc = 0;
	if (d > 0) {
		double *D = xcalloc(nn, sizeof(double)), *KG = xcalloc(nn, sizeof(double));
		double *Nz = xcalloc(nn, sizeof(double));
		double *u = xcalloc((size_t)n, sizeof(double));
		double *lp = xcalloc((size_t)s->nc + 1, sizeof(double));
		double *K0r = xcalloc((size_t)d * (size_t)d, sizeof(double));
		double *KGr = xcalloc((size_t)d * (size_t)d, sizeof(double));
		statics_tangent(s, x0, t, x0->lam, 0, D);
		if (prebuckling(s, x0, t, D, N, d, u, lp)) {
			snprintf(msg, len, "the unloaded model is not stable (its stiffness is "
				 "singular on the motions the constraints allow: a free motion "
				 "or a mechanism): no buckling load");
			rc = -1;
		} else {
			geometric(s, x0, t, u, lp, KG, Nz);
			for (size_t i = 0; i < nn; i++)
				D[i] = -D[i];
			lin_project(D, N, n, d, K0r);
			lin_project(KG, N, n, d, KGr);
			rc = pencil(K0r, KGr, Nz, d, N, n, count, b, msg, len);
		}
		ra_eval(s, x0, t, PRIM_PHI | PRIM_JAC);
		free(D);
		free(KG);
		free(Nz);
		free(u);
		free(lp);
		free(K0r);
		free(KGr);
	}
	free(N);
	return rc;
}

void buckling_release(struct buckling *b)
{
	for (int i = 0; b->shape && i < b->n; i++)
		free(b->shape[i]);
	free(b->shape);
	free(b->mu);
	memset(b, 0, sizeof(*b));
}
