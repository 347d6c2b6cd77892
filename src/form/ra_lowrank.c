/* ra_lowrank.c - the rank-one parts of the Newton matrices of the force
 * elements that couple two bodies through a stiff law or read the
 * multipliers (friction, elem.h lowrank), by the Woodbury identity.
 *
 * The schemes factor K0 = [[W, P^T], [P, 0]] with W block diagonal per
 * body (kkt.h).  Friction's force mag q, mag = -mu N(lam) tanh(v / v_eps),
 * adds U V^T to that matrix, U = [q; 0], V = [d q; w] per element
 * (elem_friction.c): the damper between the joint's two bodies (slope mu
 * N / v_eps, no block-diagonal part can hold it: with each body's own
 * block alone Newton contracts by c / sqrt((m0 + c)(m1 + c)), near 1 when
 * sticking) and the normal force's dependence on the same iterate's
 * multipliers.  Then (K0 + U V^T)^-1 r = y - Z (I + V^T Z)^-1 V^T y with
 * y = K0^-1 r and Z = K0^-1 U: one more solve with K0's factors per
 * element when the matrix is made, an n x n LU (LAPACK) per correction. */
#include "ra.h"
#include "../elem/elem.h"
#include "../la/kkt.h"
#include "../la/lapack.h"
#include "../util/xalloc.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

struct ra_lr {
	int cap, n;		/* elements with a lowrank part; terms made */
	int *elem;		/* cap: their force indices */
	double *Zg, *Zl;	/* cap x ng, cap x nc: K0^-1 U */
	double *Vg, *Vl;	/* cap x ng, cap x nc */
	double *Qg, *band;	/* cap x ng: q; cap: the velocity band of its law */
	double *S;		/* cap x cap: LU of I + V^T Z (column-major) */
	int *piv;
	double *t, *zero;	/* cap; nc */
	double *gk, *lk;	/* ng, nc: ra_lr_accel's iterate */
};

struct ra_lr *ra_lr_new(const struct ra *s)
{
	const struct model *m = s->m;
	int n = 0;
	for (int i = 0; i < m->nforces; i++)
		n += elem_of(&m->forces[i])->lowrank != NULL;
	if (!n)
		return NULL;
	struct ra_lr *L = xcalloc(1, sizeof(*L));
	size_t ng = (size_t)s->ng, nc = (size_t)s->nc, c = (size_t)n;
	L->cap = n;
	L->elem = xmalloc(c * sizeof(int));
	for (int i = 0, k = 0; i < m->nforces; i++)
		if (elem_of(&m->forces[i])->lowrank)
			L->elem[k++] = i;
	L->Zg = xcalloc(c * ng + 1, sizeof(double));
	L->Vg = xcalloc(c * ng + 1, sizeof(double));
	L->Zl = xcalloc(c * nc + 1, sizeof(double));
	L->Vl = xcalloc(c * nc + 1, sizeof(double));
	L->Qg = xcalloc(c * ng + 1, sizeof(double));
	L->band = xcalloc(c, sizeof(double));
	L->S = xcalloc(c * c, sizeof(double));
	L->piv = xcalloc(c, sizeof(int));
	L->t = xcalloc(c, sizeof(double));
	L->zero = xcalloc(nc + 1, sizeof(double));
	L->gk = xcalloc(ng + 1, sizeof(double));
	L->lk = xcalloc(nc + 1, sizeof(double));
	return L;
}

void ra_lr_free(struct ra_lr **pL)
{
	struct ra_lr *L = *pL;
	if (!L)
		return;
	free(L->elem);
	free(L->Zg);
	free(L->Vg);
	free(L->Zl);
	free(L->Vl);
	free(L->Qg);
	free(L->band);
	free(L->S);
	free(L->piv);
	free(L->t);
	free(L->zero);
	free(L->gk);
	free(L->lk);
	free(L);
	*pL = NULL;
}

static double dot(const double *a, const double *b, int n)
{
	double r = 0.0;
	for (int i = 0; i < n; i++)
		r += a[i] * b[i];
	return r;
}

/* ra_lr_make, with Z = K0^-1 U solved anew (solve) or kept from the last
 * make with the same factors and positions (U does not change with lam). */
static int make(struct ra *s, struct kkt *k, const struct ra_state *x, const double *lam,
		double cv, int solve)
{
	struct ra_lr *L = s->lr;
	if (!L)
		return 0;
	int ng = s->ng, nc = s->nc, n = 0;
	for (int e = 0; e < L->cap; e++) {
		int i = L->elem[e];
		double *Vg = L->Vg + (size_t)n * ng, *Vl = L->Vl + (size_t)n * nc, d = 0.0;
		memset(Vg, 0, (size_t)ng * sizeof(double));
		memset(Vl, 0, (size_t)nc * sizeof(double));
		if (!lam ||
		    !elem_of(&s->m->forces[i])->lowrank(s, x, i, lam, cv, Vg, Vl, &d, L->band + n))
			continue;
		memcpy(L->Qg + (size_t)n * ng, Vg, (size_t)ng * sizeof(double));
		double *Zg = L->Zg + (size_t)n * ng, *Zl = L->Zl + (size_t)n * nc;
		if (solve) {
			memset(Zl, 0, (size_t)nc * sizeof(double));	/* dropped rows keep theirs */
			if (kkt_solve(k, Vg, L->zero, Zg, Zl))
				return -1;
		}
		for (int c = 0; c < ng; c++)
			Vg[c] *= d;
		n++;
	}
	L->n = n;
	for (int a = 0; a < n; a++)
		for (int b = 0; b < n; b++)
			L->S[a + (size_t)n * b] = (a == b) +
				dot(L->Vg + (size_t)a * ng, L->Zg + (size_t)b * ng, ng) +
				dot(L->Vl + (size_t)a * nc, L->Zl + (size_t)b * nc, nc);
	int info = 0;
	if (n)
		dgetrf_(&n, &n, L->S, &n, L->piv, &info);
	if (info) {
		L->n = 0;
		return -1;
	}
	return 0;
}

int ra_lr_make(struct ra *s, struct kkt *k, const struct ra_state *x, const double *lam,
	       double cv)
{
	return make(s, k, x, lam, cv, 1);
}

/* Newton's linearization of tanh(v / band) at a sliding velocity far
 * outside the band has no slope: from v = +3 mm/s the correction went to
 * -3 mm/s and back, each iteration (seed 107 at t = 0.038 s, the
 * correction 4.78e-6 forever).  A correction that takes an element's
 * sliding velocity (q . u, u = y's velocities + cv dg) across zero to
 * beyond the band on the other side is shortened to land it on zero,
 * where the law's slope is steepest and the next linearization (made
 * anew: returns < 1) holds the damper.  The factor for (dg, dl). */
static double damp(const struct ra *s, const struct ra_state *y, const double *dg, double cv)
{
	struct ra_lr *L = s->lr;
	double alpha = 1.0;
	if (!L)
		return alpha;
	for (int a = 0; a < L->n; a++) {
		const double *q = L->Qg + (size_t)a * s->ng;
		double v0 = 0.0, dv = 0.0;
		for (int b = 0; b < s->nb; b++)
			for (int c = 0; c < 3; c++) {
				v0 += q[6 * b + c] * y->v[3 * b + c] + q[6 * b + 3 + c] * y->w[3 * b + c];
				dv += cv * (q[6 * b + c] * dg[6 * b + c] + q[6 * b + 3 + c] * dg[6 * b + 3 + c]);
			}
		double v1 = v0 + dv;
		if (v0 * v1 < 0.0 && fabs(v1) > L->band[a])
			alpha = fmin(alpha, v0 / (v0 - v1));
	}
	return alpha;
}

static void apply(const struct ra *s, double *dg, double *dl)
{
	struct ra_lr *L = s->lr;
	if (!L || !L->n)
		return;
	int n = L->n, ng = s->ng, nc = s->nc, one = 1, info = 0;
	for (int a = 0; a < n; a++)
		L->t[a] = dot(L->Vg + (size_t)a * ng, dg, ng) + dot(L->Vl + (size_t)a * nc, dl, nc);
	dgetrs_("N", &n, &one, L->S, &n, L->piv, L->t, &n, &info);
	for (int a = 0; a < n; a++) {
		const double *Zg = L->Zg + (size_t)a * ng, *Zl = L->Zl + (size_t)a * nc;
		for (int c = 0; c < ng; c++)
			dg[c] -= L->t[a] * Zg[c];
		for (int c = 0; c < nc; c++)
			dl[c] -= L->t[a] * Zl[c];
	}
}

double ra_lr_correct(const struct ra *s, const struct ra_state *y, double *dg, double *dl,
		     double cv)
{
	if (!s->lr)
		return 1.0;
	apply(s, dg, dl);
	double a = damp(s, y, dg, cv);
	if (a < 1.0) {
		for (int i = 0; i < s->ng; i++)
			dg[i] *= a;
		for (int k = 0; k < s->nc; k++)
			dl[k] *= a;
	}
	return a;
}

/* The index-1 acceleration solve with forces that read the multipliers:
 * M g + P^T lam = F(lam) + gyro, P g = gamma, by Newton's method in lam
 * from x->lam (the last solve's, a close guess along a run): each step
 * the solve with F at the iterate's lam (a fixed-point step of K0) and
 * its Woodbury correction (d = 0: the velocities are given; Z = K0^-1 U
 * solved at the first step only, as neither K0 nor U moves with lam, so
 * a step redoes the n x n LU only).  Without it
 * the friction of a state-space scheme (rp) read the multipliers of the
 * last call: the normal force of another state (matrix.md finding 4,
 * 0.028 N in adams' friction effort whatever the tolerance).  Stops when
 * the correction is at round-off of lam, else after RA_LR_ITER
 * iterations: 1, and the caller fails the evaluation (a step control
 * shortens the step), rather than go on with an unconverged force. */
#define RA_LR_ITER 30
int ra_lr_accel(struct ra *s, struct kkt *k, double *F, double *g, struct ra_state *x)
{
	struct ra_lr *L = s->lr;
	int ng = s->ng, nc = s->nc, zmade = 0;	/* Z of k and x made */
	for (int it = 0; it < RA_LR_ITER; it++) {
		memcpy(L->lk, x->lam, (size_t)nc * sizeof(double));
		ra_forces(s, x, x->t, L->lk, F);
		ra_gyro(s, x, F);
		kkt_solve(k, F, s->gamma, g, x->lam);
		if (it == 0)	/* g enters linearly: any iterate will do */
			memcpy(L->gk, g, (size_t)ng * sizeof(double));
		/* the fixed-point step (g, x->lam) - (gk, lk), corrected */
		for (int c = 0; c < ng; c++)
			g[c] -= L->gk[c];
		for (int c = 0; c < nc; c++)
			x->lam[c] -= L->lk[c];
		if (make(s, k, x, L->lk, 0.0, !zmade) == 0) {
			zmade = 1;
			apply(s, g, x->lam);
		}
		double dmax = 0.0, lmax = 0.0;
		for (int c = 0; c < nc; c++) {
			dmax = fmax(dmax, fabs(x->lam[c]));
			x->lam[c] += L->lk[c];
			lmax = fmax(lmax, fabs(x->lam[c]));
		}
		for (int c = 0; c < ng; c++)
			g[c] += L->gk[c];
		memcpy(L->gk, g, (size_t)ng * sizeof(double));
		if (dmax <= 1e-14 * fmax(1.0, lmax))
			return 0;
	}
	return 1;
}
