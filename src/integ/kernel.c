/* kernel.c - helpers the family kernels share: the residual of the
 * implicit solves, the gyroscopic blocks, the predictor's history, the
 * failure detail and the index-1 acceleration solve. */
#include "integ.h"
#include "../util/vec.h"
#include "../util/xalloc.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

int integ_accel_index1(struct integ *it, struct ra_state *x)
{
	int rc = ra_accel(it->sys, it->kkt, it->W, it->F, it->g, x);
	it->factorizations++;
	if (rc > 0)	/* friction's multipliers did not converge */
		return INTEG_NEWTON_FAIL;
	if (rc) {
		it->bad_row = kkt_bad_row(it->kkt);
		return INTEG_SINGULAR;
	}
	return INTEG_OK;
}

void integ_hist_init(struct integ *it, int n, int n0, int sel, const struct sim_options *o)
{
	it->hist.n = n;
	it->hist.n0 = n0;
	it->hist.sel = sel;
	it->hist.cap = o->predictor ? INTEG_HIST_MAX : 0;
	it->hist.v = xcalloc((size_t)(it->hist.cap + 1) * (size_t)it->hist.n + 1, sizeof(double));
	it->hist.p = it->hist.v + (size_t)it->hist.cap * (size_t)it->hist.n;
	it->hist.q = it->hist.cap;
}

void integ_gyro_blocks(struct integ *it, const struct ra_state *y, double f)
{
	const struct ra *s = it->sys;
	for (int b = 0; b < s->nb; b++) {
		double G[9];
		m3_gyro_dw(G, ra_inertia(s, b), y->w + 3 * b);
		for (int e = 0; e < 9; e++)
			it->W[18 * b + 9 + e] += f * G[e];
	}
}

const double *integ_lamf(struct integ *it, struct ra_state *y, const double *lam, double theta,
			 const double *lagged)
{
	const struct ra *s = it->sys;
	if (!s->needs_lambda)
		return lagged;
	for (int k = 0; k < s->nc; k++)
		y->lam[k] = lam[k] / theta;
	return y->lam;
}

void integ_residual(struct integ *it, const struct ra_state *y, double t, const double *lamf,
		    const double *g, const double *lam, double theta, double cq)
{
	struct ra *s = it->sys;
	double *F = it->F, *e = it->rhs;
	ra_eval(s, y, t, PRIM_PHI | PRIM_JAC);
	ra_forces(s, y, t, lamf, F);
	ra_gyro(s, y, F);
	ra_jac_tmul(s, lam, e);
	for (int b = 0; b < s->nb; b++) {
		double Jwd[3];
		m3_mulv(Jwd, ra_inertia(s, b), g + 6 * b + 3);
		for (int c = 0; c < 3; c++) {
			int i = 6 * b + c;
			e[i] = theta * F[i] - e[i] - s->mass[b] * g[i];
			e[i + 3] = theta * F[i + 3] - e[i + 3] - Jwd[c];
		}
	}
	for (int k = 0; k < s->nc; k++)
		it->dl[k] = -s->phi[k] / cq;
}

/* Rows are kept while they lie on one grid of spacing hist.h; a row off
 * it (a step of another size, e.g. the last one shortened to land on
 * time.end) starts the history again. */
static int same(double a, double b)
{
	return fabs(a - b) <= 1e-9 * fabs(b);
}

void integ_hist_reset(struct integ *it)
{
	it->hist.rows = 0;
}

/* Newton's backward-difference extrapolation to the next grid point: the
 * polynomial through the newest q rows, at the next point, is
 * sum_j (-1)^j binom(q, j + 1) v_j. */
static const double extrap_w[INTEG_HIST_MAX + 1][INTEG_HIST_MAX] = {
	{ 0 }, { 1 }, { 2, -1 }, { 3, -3, 1 }, { 4, -6, 4, -1 }, { 5, -10, 10, -5, 1 },
	{ 6, -15, 20, -15, 6, -1 }
};

/* Row j (0 the newest) of the ring is at slot (head + j) % cap. */
static void ring_rows(const struct integ_hist *H, int q, const double **r)
{
	for (int j = 0; j < q; j++)
		r[j] = H->v + (size_t)((H->head + j) % H->cap) * (size_t)H->n;
}

/* out[i - i0] = the extrapolation of q rows at i, i0 <= i < i1: row by
 * row, each value's sum in the order of the rows (0.0, then + w_j r_j),
 * so that the inner loop runs over the values (vectorized at -O3, the
 * same numbers) rather than over the q rows, whose short loop was most of
 * a small model's predictor */
static void extrap(const struct integ_hist *H, int q, size_t i0, size_t i1, double *out)
{
	const double *r[INTEG_HIST_MAX], *w = extrap_w[q];
	size_t m = i1 - i0;
	ring_rows(H, q, r);
	for (size_t i = 0; i < m; i++)
		out[i] = 0.0;
	for (int j = 0; j < q; j++) {
		const double *rj = r[j] + i0;
		double wj = w[j];
		for (size_t i = 0; i < m; i++)
			out[i] += wj * rj[i];
	}
}

/* Squared distance of the extrapolation of q rows from the row (v0, v1),
 * over its values sel .. n-1. */
static double extrap_err(const struct integ_hist *H, int q, const double *v0, const double *v1)
{
	size_t n = (size_t)H->n, n0 = (size_t)H->n0, sel = (size_t)H->sel;
	double e = 0.0, *p = H->p;
	extrap(H, q, sel, n, p);
	for (size_t i = sel; i < n; i++) {
		double d = p[i - sel] - (i < n0 ? v0[i] : v1[i - n0]);
		e += d * d;
	}
	return e;
}

void integ_hist_push(struct integ *it, double t, const double *v0, const double *v1)
{
	struct integ_hist *H = &it->hist;
	if (H->cap == 0)
		return;
	if (H->rows > 0) {
		double d = t - H->t;
		if (!(d > 0.0) || (H->rows > 1 && !same(d, H->h)))
			H->rows = 0;
		else
			H->h = d;
	}
	size_t n = (size_t)H->n, n0 = (size_t)H->n0;
	/* order for the next step: of q - 1, q, q + 1 rows, the one whose
	 * prediction of the row (its values sel .. n-1) was closest (a smooth
	 * solution favours a high degree, noise of the Newton tolerance a low
	 * one), as multistep codes move their order by one at a time */
	if (H->rows > 0) {
		double best = INFINITY;
		int qc = H->q < H->rows ? H->q : H->rows;
		int q0 = qc > 1 ? qc - 1 : 1, q1 = qc < H->rows ? qc + 1 : H->rows;
		for (int q = q0; q <= q1; q++) {
			double e = extrap_err(H, q, v0, v1);
			if (e < best) {
				best = e;
				H->q = q;
			}
		}
	}
	H->head = (H->head + H->cap - 1) % H->cap;
	double *row = H->v + (size_t)H->head * n;
	memcpy(row, v0, n0 * sizeof(double));
	if (n > n0)
		memcpy(row + n0, v1, (n - n0) * sizeof(double));
	if (H->rows < H->cap)
		H->rows++;
	H->t = t;
}

int integ_hist_predict(const struct integ *it, double t, double *out0, double *out1)
{
	const struct integ_hist *H = &it->hist;
	int q = H->rows < H->q ? H->rows : H->q;
	/* one row is the last step's values, which the caller has anyway */
	if (q < 2 || !same(t - H->t, H->h))
		return 0;
	size_t n = (size_t)H->n, n0 = (size_t)H->n0;
	extrap(H, q, 0, n0, out0);
	extrap(H, q, n0, n, out1);
	return q;
}

void integ_acc_get(const struct ra *s, const struct ra_state *x, double *g)
{
	for (int b = 0; b < s->nb; b++) {
		v3_copy(g + 6 * b, x->a + 3 * b);
		v3_copy(g + 6 * b + 3, x->wd + 3 * b);
	}
}

void integ_acc_put(const struct ra *s, const double *g, struct ra_state *x)
{
	for (int b = 0; b < s->nb; b++) {
		v3_copy(x->a + 3 * b, g + 6 * b);
		v3_copy(x->wd + 3 * b, g + 6 * b + 3);
	}
}

void integ_note_eom(struct integ *it)
{
	const struct ra *s = it->sys;
	it->eom_body = -1;
	it->eom_value = 0.0;
	for (int i = 0; i < s->ng; i++)
		if (!(fabs(it->rhs[i]) <= fabs(it->eom_value))) {
			it->eom_value = fabs(it->rhs[i]);
			it->eom_body = i / 6;
		}
}

void integ_note_worst(struct integ *it)
{
	const struct ra *s = it->sys;
	it->bad_row = -1;
	it->eom_body = -1;
	it->bad_value = 0.0;
	for (int k = 0; k < s->nc; k++)
		if (!(fabs(s->phi[k]) <= fabs(it->bad_value))) {
			it->bad_value = s->phi[k];
			it->bad_row = k;
		}
}

double integ_norm2(const double *a, int n, const double *b, int m)
{
	double s = 0.0;
	for (int i = 0; i < n; i++)
		s += a[i] * a[i];
	for (int i = 0; i < m; i++)
		s += b[i] * b[i];
	return sqrt(s);
}
