/* statics.c - static equilibrium: Newton with pseudo-transient
 * continuation on G(q, lambda) = f - Phi_q^T lambda = 0, Phi = 0
 * (statics.h). */
#include "statics.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../util/vec.h"
#include "../util/xalloc.h"

/* LAPACK: minimum-norm least squares by the SVD (divide and conquer) */
void dgelsd_(const int *m, const int *n, const int *nrhs, double *a, const int *lda, double *b,
	     const int *ldb, double *s, const double *rcond, int *rank, double *work,
	     const int *lwork, int *iwork, int *info);

static double vmax(double a, double b)
{
	return a > b ? a : b;
}

double statics_length(const struct model *m)
{
	double L = 0;
	for (int b = 0; b < m->nbodies; b++)
		L = vmax(L, v3_norm(m->bodies[b].r0));
	for (int j = 0; j < m->njoints; j++)
		for (int k = 0; k < 2; k++)
			L = vmax(L, v3_norm(m->joints[j].s[k]));
	for (int i = 0; i < m->nforces; i++) {
		const struct force *f = &m->forces[i];
		for (int k = 0; k < 2; k++)
			L = vmax(L, v3_norm(f->s[k]));
		if (f->type == FORCE_TSDA)
			L = vmax(L, fabs(f->l0));
	}
	return L > 0 ? L : 1.0;
}

void statics_residual(struct ra *s, const struct ra_state *x, double t, const double *lam,
		      double *G)
{
	int n = s->ng;
	double *T = xcalloc((size_t)n, sizeof(double));
	ra_forces(s, x, t, lam, G);
	ra_eval(s, x, t, PRIM_PHI | PRIM_JAC);
	ra_jac_tmul(s, lam, T);
	for (int i = 0; i < n; i++)
		G[i] -= T[i];
	free(T);
}

void statics_jacobian(const struct ra *s, double *P)
{
	int nc = s->nc;
	memset(P, 0, (size_t)nc * (size_t)s->ng * sizeof(double));
	for (int k = 0; k < nc; k++) {
		const double *J = s->jac + 12 * k;
		for (int c = 0; c < 6; c++) {
			if (s->bi[k] >= 0)
				P[k + (size_t)nc * (size_t)(6 * s->bi[k] + c)] += J[c];
			if (s->bj[k] >= 0)
				P[k + (size_t)nc * (size_t)(6 * s->bj[k] + c)] += J[6 + c];
		}
	}
}

/* x = base with coordinate j moved by d: r, v, w by d; the rotation of
 * body j / 6 by exp(d e~) in its body frame */
static void perturb(const struct ra *s, struct ra_state *x, const struct ra_state *base, int j,
		    double d, int vel)
{
	int b = j / 6, c = j % 6;
	ra_state_copy(s, x, base);
	if (vel) {
		if (c < 3)
			x->v[3 * b + c] += d;
		else
			x->w[3 * b + c - 3] += d;
	} else if (c < 3) {
		x->r[3 * b + c] += d;
	} else {
		double th[3] = { 0, 0, 0 }, R[9], T[9];
		th[c - 3] = d;
		so3_exp(R, th);
		m3_mul(T, base->A + 9 * b, R);
		memcpy(x->A + 9 * b, T, sizeof(T));
	}
}

void statics_fd(struct ra *s, const struct ra_state *x, double t, const double *lam,
		int vel, double *D)
{
	int n = s->ng;
	double L = statics_length(s->m);
	static const double off[4] = { 1, -1, 2, -2 }, wt[4] = { 8, -8, -1, 1 };
	double *G = xcalloc((size_t)n, sizeof(double));
	struct ra_state xp;
	ra_state_init(s, &xp);
	for (int j = 0; j < n; j++) {
		double h = (j % 6 < 3) ? 1e-3 * L : 1e-3;
		double *col = D + (size_t)n * (size_t)j;
		memset(col, 0, (size_t)n * sizeof(double));
		for (int k = 0; k < 4; k++) {
			perturb(s, &xp, x, j, off[k] * h, vel);
			statics_residual(s, &xp, t, lam, G);
			for (int i = 0; i < n; i++)
				col[i] += wt[k] * G[i];
		}
		for (int i = 0; i < n; i++)
			col[i] /= 12 * h;
	}
	ra_eval(s, x, t, PRIM_PHI | PRIM_JAC);
	ra_state_release(&xp);
	free(G);
}

const char *statics_row_name(const struct model *m, int k)
{
	static char buf[200];
	for (int j = 0; j < m->njoints; j++)
		if (k >= m->joints[j].row0 && k < m->joints[j].row0 + m->joints[j].nrows) {
			snprintf(buf, sizeof buf, "joint '%s'", m->joints[j].name);
			return buf;
		}
	for (int d = 0; d < m->ndrivers; d++)
		if (k == m->drivers[d].row0) {
			snprintf(buf, sizeof buf, "driver '%s'", m->drivers[d].name);
			return buf;
		}
	snprintf(buf, sizeof buf, "constraint row %d", k);
	return buf;
}

/* Residual norms at x: max |G| (its body in *wb), max |Phi| (row in *wr);
 * G and s->phi left at x. */
static void norms(struct ra *s, const struct ra_state *x, double t, double *G, double *rf,
		  double *rp, int *wb, int *wr)
{
	statics_residual(s, x, t, x->lam, G);
	*rf = 0;
	*rp = 0;
	*wb = -1;
	*wr = -1;
	for (int i = 0; i < s->ng; i++) {
		double a = fabs(G[i]);
		if (!(a <= *rf)) {	/* NaN taken as the worst */
			*rf = a;
			*wb = i / 6;
		}
	}
	for (int k = 0; k < s->nc; k++) {
		double a = fabs(s->phi[k]);
		if (!(a <= *rp)) {
			*rp = a;
			*wr = k;
		}
	}
}

struct work {
	double *A, *b, *sv, *work, *D, *P, *G, *G1;
	int *iwork, lwork, N;
};

static void work_init(struct work *w, const struct ra *s)
{
	int n = s->ng, N = n + s->nc;
	w->N = N;
	w->A = xcalloc((size_t)N * (size_t)N, sizeof(double));
	w->b = xcalloc((size_t)N, sizeof(double));
	w->sv = xcalloc((size_t)N, sizeof(double));
	w->D = xcalloc((size_t)n * (size_t)n, sizeof(double));
	w->P = xcalloc((size_t)(s->nc ? s->nc : 1) * (size_t)n, sizeof(double));
	w->G = xcalloc((size_t)n, sizeof(double));
	w->G1 = xcalloc((size_t)n, sizeof(double));
	/* workspace query */
	int one = 1, rank, info, q = -1, iw;
	double rc = -1, wq;
	dgelsd_(&N, &N, &one, w->A, &N, w->b, &N, w->sv, &rc, &rank, &wq, &q, &iw, &info);
	w->lwork = (int)wq + 1;
	w->work = xcalloc((size_t)w->lwork, sizeof(double));
	int nlvl = 1 + (int)(log2((double)N / 26.0) + 1);
	if (nlvl < 1)
		nlvl = 1;
	w->iwork = xcalloc((size_t)(3 * N * nlvl + 11 * N + 1), sizeof(int));
}

static void work_release(struct work *w)
{
	free(w->A);
	free(w->b);
	free(w->sv);
	free(w->work);
	free(w->D);
	free(w->P);
	free(w->G);
	free(w->G1);
	free(w->iwork);
}

/* One step: fill and solve the pseudo-transient Newton system at x with
 * 1 / tau^2 = it2; the step lands in w->b.  0, or -1 when LAPACK fails. */
static int step(struct ra *s, const struct ra_state *x, double t, double it2, struct work *w)
{
	int n = s->ng, nc = s->nc, N = w->N;
	statics_fd(s, x, t, x->lam, 0, w->D);
	statics_residual(s, x, t, x->lam, w->G);	/* and Phi, Phi_q at x */
	statics_jacobian(s, w->P);
	memset(w->A, 0, (size_t)N * (size_t)N * sizeof(double));
	for (int j = 0; j < n; j++)
		for (int i = 0; i < n; i++)
			w->A[i + (size_t)N * j] = -w->D[i + (size_t)n * j];
	for (int b = 0; b < s->nb; b++)
		for (int i = 0; i < 3; i++) {
			int p = 6 * b + i;
			w->A[p + (size_t)N * p] += it2 * s->mass[b];
			for (int k = 0; k < 3; k++) {
				int r = 6 * b + 3 + i, c = 6 * b + 3 + k;
				w->A[r + (size_t)N * c] += it2 * s->J[9 * b + 3 * i + k];
			}
		}
	for (int k = 0; k < nc; k++)
		for (int j = 0; j < n; j++) {
			double p = w->P[k + (size_t)nc * j];
			w->A[(n + k) + (size_t)N * j] = p;
			w->A[j + (size_t)N * (n + k)] = p;
		}
	for (int i = 0; i < n; i++)
		w->b[i] = w->G[i];
	for (int k = 0; k < nc; k++)
		w->b[n + k] = -s->phi[k];
	int one = 1, rank, info;
	double rc = 1e-13;
	dgelsd_(&N, &N, &one, w->A, &N, w->b, &N, w->sv, &rc, &rank, w->work, &w->lwork,
		w->iwork, &info);
	return info == 0 ? 0 : -1;
}

int statics_solve(struct ra *s, struct ra_state *x, double t, struct statics_result *r)
{
	const struct model *m = s->m;
	int n = s->ng, nc = s->nc;
	double L = statics_length(m);
	memset(r, 0, sizeof(*r));
	memset(x->v, 0, 3 * (size_t)s->nb * sizeof(double));
	memset(x->w, 0, 3 * (size_t)s->nb * sizeof(double));
	struct work w;
	work_init(&w, s);
	/* force scale: the heaviest weight or the largest initial load */
	double Fs = 0, gn = v3_norm(m->gravity);
	for (int b = 0; b < s->nb; b++)
		Fs = vmax(Fs, s->mass[b] * gn);
	int wb, wr;
	double rf, rp;
	norms(s, x, t, w.G, &rf, &rp, &wb, &wr);
	Fs = vmax(Fs, rf);
	if (!(Fs > 0))
		Fs = 1;
	/* tolerances: forces to 1e-10 of their scale, constraints to 1e-12
	 * of the model's length (squared for distance rows), both well above
	 * the rounding of Newton's last step and far below what a test of
	 * positions to 1e-9 m needs */
	r->tol_force = 1e-10 * Fs;
	r->tol_phi = 1e-12 * vmax(1.0, L * L);
	/* first pseudo-time step: a step of about L / 10 along the loads */
	double amax = 0;
	for (int b = 0; b < s->nb; b++) {
		amax = vmax(amax, v3_norm(w.G + 6 * b) / s->mass[b]);
		double jmin = fmin(s->J[9 * b], fmin(s->J[9 * b + 4], s->J[9 * b + 8]));
		amax = vmax(amax, L * v3_norm(w.G + 6 * b + 3) / jmin);
	}
	double it2 = amax > 0 ? amax / (0.1 * L) : 0;
	struct ra_state xn;
	ra_state_init(s, &xn);
	double res = vmax(rf / Fs, rp / r->tol_phi * 1e-10);
	int rejected = 0;
	const int maxit = 200;
	for (r->iterations = 0; r->iterations < maxit; r->iterations++) {
		if (rf <= r->tol_force && rp <= r->tol_phi) {
			r->converged = 1;
			break;
		}
		if (step(s, x, t, it2, &w)) {
			snprintf(r->message, sizeof r->message, "the linear solve failed at "
				 "iteration %d (LAPACK dgelsd)", r->iterations);
			break;
		}
		ra_state_copy(s, &xn, x);
		double *g = xcalloc((size_t)n, sizeof(double));
		for (int b = 0; b < s->nb; b++)
			for (int i = 0; i < 3; i++) {
				xn.r[3 * b + i] += w.b[6 * b + i];
				g[6 * b + 3 + i] = w.b[6 * b + 3 + i];
			}
		ra_rotate(s, xn.A, g);
		free(g);
		for (int k = 0; k < nc; k++)
			xn.lam[k] += w.b[n + k];
		double rf1, rp1;
		int wb1, wr1;
		norms(s, &xn, t, w.G1, &rf1, &rp1, &wb1, &wr1);
		double res1 = vmax(rf1 / Fs, rp1 / r->tol_phi * 1e-10);
		if (!(res1 <= 2 * res) && it2 > 0 && rejected < 30) {
			it2 *= 4;	/* a shorter pseudo-time step */
			rejected++;
			continue;
		}
		rejected = 0;
		/* switched evolution relaxation: tau^2 grows as res falls */
		if (res1 > 0)
			it2 *= fmin(1.0, res1 / res);
		else
			it2 = 0;
		if (it2 < 1e-300)
			it2 = 0;
		ra_state_copy(s, x, &xn);
		rf = rf1;
		rp = rp1;
		wb = wb1;
		wr = wr1;
		res = res1;
	}
	r->res_force = rf;
	r->res_phi = rp;
	r->worst_body = wb;
	r->worst_row = wr;
	if (!r->converged && !r->message[0]) {
		char cons[240] = "";
		if (wr >= 0 && rp > r->tol_phi)
			snprintf(cons, sizeof cons, ", constraint residual %.3g in %s", rp,
				 statics_row_name(m, wr));
		snprintf(r->message, sizeof r->message,
			 "no static equilibrium after %d iterations: force residual %.3g "
			 "(tolerance %.3g) on body '%s'%s", r->iterations, rf, r->tol_force,
			 wb >= 0 ? m->bodies[wb].name : "?", cons);
	}
	ra_state_release(&xn);
	work_release(&w);
	return r->converged ? 0 : -1;
}
