/* statics.c - static equilibrium: Newton with pseudo-transient
 * continuation on G(q, lambda) = f - Phi_q^T lambda = 0, Phi = 0
 * (statics.h). */
#include "statics.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../model/beam.h"
#include "../util/interrupt.h"
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
		const double *J = s->jac + (s->jo[k] + 6);	/* side j; side i at J - 6 */
		for (int c = 0; c < 6; c++) {
			if (s->bi[k] >= 0)
				P[k + (size_t)nc * (size_t)(6 * s->bi[k] + c)] += J[c - 6];
			if (s->bj[k] >= 0)
				P[k + (size_t)nc * (size_t)(6 * s->bj[k] + c)] += J[c];
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

/* Minimum-norm least-squares solution of A x = b (A m x n column-major,
 * destroyed; b of max(m, n), x returned in its first n entries), singular
 * values below 1e-13 of the largest taken as zero.  0, or -1. */
static int lsq(int m, int n, double *A, double *b)
{
	int one = 1, rank, info, q = -1, iw, ldb = m > n ? m : n, mn = m < n ? m : n;
	double rc = 1e-13, wq;
	if (mn == 0)
		return 0;
	double *sv = xcalloc((size_t)mn, sizeof(double));
	dgelsd_(&m, &n, &one, A, &m, b, &ldb, sv, &rc, &rank, &wq, &q, &iw, &info);
	int lw = (int)wq + 1;
	/* LAPACK's LIWORK: 3 mn nlvl + 11 mn, nlvl = log2(mn / 26) + 1 */
	int nlvl = mn > 26 ? (int)log2(mn / 26.0) + 2 : 1;
	double *work = xcalloc((size_t)lw, sizeof(double));
	int *iwork = xcalloc((size_t)(3 * mn * nlvl + 11 * mn + 1), sizeof(int));
	dgelsd_(&m, &n, &one, A, &m, b, &ldb, sv, &rc, &rank, work, &lw, iwork, &info);
	free(sv);
	free(work);
	free(iwork);
	return info == 0 ? 0 : -1;
}

/* The iteration's data at the current iterate: D = dG/dq, P = Phi_q, G,
 * Phi (in s->phi); A, b: the system and step of size N = 6 nb + nc. */
struct work {
	double *A, *b, *D, *P, *G, *G1, *phi;
	int N;
};

static void work_init(struct work *w, const struct ra *s)
{
	int n = s->ng, N = n + s->nc;
	w->N = N;
	w->A = xcalloc((size_t)N * (size_t)N, sizeof(double));
	w->b = xcalloc((size_t)N, sizeof(double));
	w->D = xcalloc((size_t)n * (size_t)n, sizeof(double));
	w->P = xcalloc((size_t)(s->nc ? s->nc : 1) * (size_t)n, sizeof(double));
	w->G = xcalloc((size_t)n, sizeof(double));
	w->G1 = xcalloc((size_t)n, sizeof(double));
	w->phi = xcalloc((size_t)(s->nc ? s->nc : 1), sizeof(double));
}

static void work_release(struct work *w)
{
	free(w->A);
	free(w->b);
	free(w->D);
	free(w->P);
	free(w->G);
	free(w->G1);
	free(w->phi);
}

/* D, G, P, Phi at x */
static void linearize(struct ra *s, const struct ra_state *x, double t, struct work *w)
{
	statics_fd(s, x, t, x->lam, 0, w->D);
	statics_residual(s, x, t, x->lam, w->G);	/* and Phi, Phi_q at x */
	statics_jacobian(s, w->P);
	memcpy(w->phi, s->phi, (size_t)s->nc * sizeof(double));
}

/* The factor on Phi_q in the system of solve(): the largest entry of its
 * stiffness block (the n x n block of w->A, filled) over the largest of
 * Phi_q, 1 when either is 0.  Unscaled, [K P^T; P 0] has singular values
 * from about |K| down to |P|^2 / |K| (the constraints seen through the
 * stiffness): a beam's |K| ~ EA / element length ~ 1e9 N/m puts the
 * constraints' below 1e-13 of the largest, where lsq() takes them as
 * zero, and the step then ignores the constraints.  With Phi_q's rows and
 * columns times sc = |K| / |P| (and Phi times sc: the same equations),
 * they are of the order of |K| too; dlambda is sc times the solution's
 * last nc entries. */
static double constraint_scale(const struct ra *s, const struct work *w)
{
	int n = s->ng, nc = s->nc, N = w->N;
	double kmax = 0, pmax = 0;
	for (int j = 0; j < n; j++)
		for (int i = 0; i < n; i++)
			kmax = vmax(kmax, fabs(w->A[i + (size_t)N * j]));
	for (size_t i = 0; i < (size_t)nc * (size_t)n; i++)
		pmax = vmax(pmax, fabs(w->P[i]));
	return kmax > 0 && pmax > 0 && isfinite(kmax) ? kmax / pmax : 1;
}

/* Solve the pseudo-transient Newton system of the data in w with
 * 1 / tau^2 = it2 (0: Newton's step); the step lands in w->b.  0, or -1
 * when LAPACK fails. */
static int solve(const struct ra *s, double it2, struct work *w)
{
	int n = s->ng, nc = s->nc, N = w->N;
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
				w->A[r + (size_t)N * c] += it2 * ra_inertia(s, b)[3 * i + k];
			}
		}
	double sc = constraint_scale(s, w);
	for (int k = 0; k < nc; k++)
		for (int j = 0; j < n; j++) {
			double p = sc * w->P[k + (size_t)nc * j];
			w->A[(n + k) + (size_t)N * j] = p;
			w->A[j + (size_t)N * (n + k)] = p;
		}
	for (int i = 0; i < n; i++)
		w->b[i] = w->G[i];
	for (int k = 0; k < nc; k++)
		w->b[n + k] = -sc * w->phi[k];
	if (lsq(N, N, w->A, w->b))
		return -1;
	for (int k = 0; k < nc; k++)
		w->b[n + k] *= sc;	/* the unknowns were dlambda / sc */
	return 0;
}

/* First multipliers: the reactions that balance the loads at x best,
 * lambda = argmin |f - Phi_q^T lambda| (so that Newton's first matrix has
 * the constraints' geometric stiffness). */
static void first_multipliers(struct ra *s, struct ra_state *x, double t)
{
	int n = s->ng, nc = s->nc;
	if (nc == 0)
		return;
	double *A = xcalloc((size_t)n * (size_t)nc, sizeof(double));
	double *P = xcalloc((size_t)n * (size_t)nc, sizeof(double));
	double *b = xcalloc((size_t)(n > nc ? n : nc), sizeof(double));
	memset(x->lam, 0, (size_t)nc * sizeof(double));
	statics_residual(s, x, t, x->lam, b);	/* f alone */
	statics_jacobian(s, P);
	for (int k = 0; k < nc; k++)
		for (int j = 0; j < n; j++)
			A[j + (size_t)n * k] = P[k + (size_t)nc * j];
	if (lsq(n, nc, A, b) == 0)
		for (int k = 0; k < nc; k++)
			x->lam[k] = isfinite(b[k]) ? b[k] : 0;
	free(P);
	free(A);
	free(b);
}

/* 1 when every applied force at rest derives from the potential of
 * ra_energy (gravity, springs; dampers and friction give none at rest):
 * then a step must not raise it */
static int conservative(const struct model *m)
{
	for (int i = 0; i < m->nforces; i++) {
		const struct force *f = &m->forces[i];
		if (f->type == FORCE_POINT || f->type == FORCE_TORQUE || f->has_act || f->ex ||
		    f->type == FORCE_MOTOR)
			return 0;	/* expressions and motors have no potential */
	}
	return 1;
}

static double potential(const struct ra *s, const struct ra_state *x)
{
	double kin, pot;
	ra_energy(s, x, &kin, &pot);
	return pot;
}

/* xn = x moved by the step in w->b */
static void apply(const struct ra *s, struct ra_state *xn, const struct ra_state *x,
		  const double *dz)
{
	int n = s->ng;
	double *g = xcalloc((size_t)n, sizeof(double));
	ra_state_copy(s, xn, x);
	for (int b = 0; b < s->nb; b++)
		for (int i = 0; i < 3; i++) {
			xn->r[3 * b + i] += dz[6 * b + i];
			g[6 * b + 3 + i] = dz[6 * b + 3 + i];
		}
	ra_rotate(s, xn->A, g);
	free(g);
	for (int k = 0; k < s->nc; k++)
		xn->lam[k] += dz[n + k];
}

/* Gauss-Newton back onto Phi(q, t) = 0 (minimum-norm steps
 * dq = -Phi_q^+ Phi), at most 20 iterations.  0 when |Phi| <= tol. */
static int project(struct ra *s, struct ra_state *x, double t, double tol)
{
	int n = s->ng, nc = s->nc;
	if (nc == 0)
		return 0;
	double *A = xcalloc((size_t)nc * (size_t)n, sizeof(double));
	double *b = xcalloc((size_t)(n > nc ? n : nc), sizeof(double));
	double *dz = xcalloc((size_t)(n + nc), sizeof(double));
	int rc = -1;
	for (int it = 0; it <= 20; it++) {
		ra_eval(s, x, t, PRIM_PHI | PRIM_JAC);
		double e = 0;
		for (int k = 0; k < nc; k++)
			e = vmax(e, fabs(s->phi[k]));
		if (!isfinite(e))
			break;
		if (e <= tol) {
			rc = 0;
			break;
		}
		statics_jacobian(s, A);
		for (int k = 0; k < nc; k++)
			b[k] = -s->phi[k];
		if (lsq(nc, n, A, b))
			break;
		memcpy(dz, b, (size_t)n * sizeof(double));
		struct ra_state y;	/* dz's multiplier part is 0 */
		ra_state_init(s, &y);
		apply(s, &y, x, dz);
		ra_state_copy(s, x, &y);
		ra_state_release(&y);
	}
	free(A);
	free(b);
	free(dz);
	return rc;
}

/* A trial point: x moved by the step dz, put back on the constraints,
 * its multipliers those that balance the loads best; residuals and
 * potential there.  0, or -1 when the projection fails. */
struct trial {
	double rf, rp, res, V;
	int wb, wr;
};

static int try_step(struct ra *s, struct ra_state *xn, const struct ra_state *x, double t,
		    const double *dz, double Fs, double tol_phi, struct work *w,
		    struct trial *tr)
{
	apply(s, xn, x, dz);
	if (project(s, xn, t, tol_phi))
		return -1;
	first_multipliers(s, xn, t);
	norms(s, xn, t, w->G1, &tr->rf, &tr->rp, &tr->wb, &tr->wr);
	tr->res = tr->rf / Fs;
	tr->V = potential(s, xn);
	return isfinite(tr->res) && isfinite(tr->V) ? 0 : -1;
}

/* A beam's share in the force scale.  Its internal forces carry the
 * round-off of EA and GA times the strains Gamma, whose x' = sum N_i' x_i
 * / j (model/beam.h) is off by a few ulps of the node positions |x| over
 * j = ds/dxi, half an element's length: up to about 1e-15 EA |x| / j,
 * which a tolerance of 1e-10 of the loads alone can fall below (on
 * decks/rotating_shaft.yaml, |x| / j = 6 / 0.1875, Newton's iterates
 * stall between 2.5e-6 and 3.8e-6 N, 3.8e-16 EA |x| / j).  1e-4 EA
 * max(1, |x| / j) puts the tolerance at 1e-14 EA max(1, |x| / j), some
 * 25 times that stall; the residual left is along the stiff directions,
 * where it moves a node by about 1e-14 |x|. */
static double beam_force_scale(const struct model *m, const struct beam *bm)
{
	double xmax = 0, jmin = INFINITY, F = 0;
	for (int k = 0; k <= 2 * bm->nel; k++)
		xmax = vmax(xmax, v3_norm(m->bodies[bm->node0 + k].r0));
	for (int e = 0; e < bm->nel; e++)
		for (int p = 0; p < 2; p++)
			jmin = fmin(jmin, bm->ref[BEAM_REF * e + 7 * p]);
	double g = jmin > 0 ? vmax(1.0, xmax / jmin) : 1.0;
	for (int c = 0; c < 3; c++)	/* EA, GA: forces (the moments' EI, GJ are N m^2) */
		F = vmax(F, 1e-4 * bm->C[7 * c] * g);
	return F;
}

int statics_solve(struct ra *s, struct ra_state *x, double t, struct statics_result *r)
{
	const struct model *m = s->m;
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
	memset(x->lam, 0, (size_t)s->nc * sizeof(double));
	int wb, wr;
	double rf, rp;
	norms(s, x, t, w.G, &rf, &rp, &wb, &wr);
	Fs = vmax(Fs, rf);
	for (int i = 0; i < m->nbeams; i++)
		Fs = vmax(Fs, beam_force_scale(m, &m->beams[i]));
	if (!(Fs > 0))
		Fs = 1;
	/* tolerances: forces to 1e-10 of their scale, constraints to 1e-12
	 * of the model's length (squared for distance rows), both well above
	 * the rounding of Newton's last step and far below what a test of
	 * positions to 1e-9 m needs */
	r->tol_force = 1e-10 * Fs;
	r->tol_phi = 1e-12 * vmax(1.0, L * L);
	/* the iterates stay on the constraints, with the multipliers that
	 * balance the loads best: the residual is the unbalanced force along
	 * the motions the constraints allow, and the potential (gravity and
	 * springs) is a merit function whose descent leads to a stable
	 * equilibrium, not to a pendulum's upright position */
	if (project(s, x, t, r->tol_phi)) {
		norms(s, x, t, w.G, &rf, &rp, &wb, &wr);
		snprintf(r->message, sizeof r->message, "the constraints cannot be met: "
			 "residual %.3g in %s", rp, wr >= 0 ? statics_row_name(m, wr) : "?");
		r->res_force = rf;
		r->res_phi = rp;
		r->worst_body = wb;
		r->worst_row = wr;
		work_release(&w);
		return -1;
	}
	first_multipliers(s, x, t);
	ra_force_commit(s, x);	/* continuous rsda angles: from accepted iterates */
	norms(s, x, t, w.G, &rf, &rp, &wb, &wr);
	/* first pseudo-time step: a move of about L / 10 along the loads */
	double amax = 0;
	for (int b = 0; b < s->nb; b++) {
		double al[3];	/* angular acceleration J^-1 n, body frame */
		m3_mulv(al, s->Jinv + 9 * b, w.G + 6 * b + 3);
		amax = vmax(amax, v3_norm(w.G + 6 * b) / s->mass[b]);
		amax = vmax(amax, L * v3_norm(al));
	}
	double it2 = amax > 0 ? amax / (0.1 * L) : 1;
	int cons = conservative(m);
	struct ra_state xn;
	ra_state_init(s, &xn);
	double res = rf / Fs, best = res, V = potential(s, x);
	double tolV = 1e-12 * (fabs(V) + Fs * L);
	const int maxit = 200;
	int stopped = 0;
	for (r->iterations = 0; r->iterations < maxit; r->iterations++) {
		if (rf <= r->tol_force && rp <= r->tol_phi) {
			r->converged = 1;
			break;
		}
		if ((stopped = interrupted()))
			break;
		linearize(s, x, t, &w);
		struct trial tr;
		int ok = 0, newton = 1;
		/* Newton's step first: taken when it lowers the residual without
		 * raising the potential (conservative loads), else a
		 * pseudo-transient step, shortened until it does (other loads:
		 * until the residual is at most twice the least so far; twice
		 * the last let it grow 1.7-fold every two steps on a model whose
		 * Newton steps were wrong) */
		if (solve(s, 0, &w) == 0 && try_step(s, &xn, x, t, w.b, Fs, r->tol_phi, &w, &tr) == 0)
			ok = tr.res < res && (!cons || tr.V <= V + tolV);
		for (int k = 0; !ok && k < 40; k++) {
			newton = 0;
			if (solve(s, it2, &w) == 0 &&
			    try_step(s, &xn, x, t, w.b, Fs, r->tol_phi, &w, &tr) == 0)
				ok = cons ? tr.V <= V + tolV : tr.res <= 2 * best;
			if (!ok)
				it2 *= 4;	/* a shorter pseudo-time step */
		}
		if (!ok)
			break;
		/* switched evolution relaxation: tau^2 grows as the residual
		 * falls, and doubles at least with every accepted step, so that
		 * a residual that falls slowly does not hold the steps short */
		if (!newton)
			it2 *= 0.5 * fmin(1.0, tr.res / res);
		ra_state_copy(s, x, &xn);
		ra_force_commit(s, x);
		rf = tr.rf;
		rp = tr.rp;
		wb = tr.wb;
		wr = tr.wr;
		res = tr.res;
		best = fmin(best, res);
		V = tr.V;
	}
	/* the last accepted step may have converged (the loop tests at its top) */
	if (!r->converged && rf <= r->tol_force && rp <= r->tol_phi)
		r->converged = 1;
	r->res_force = rf;
	r->res_phi = rp;
	r->worst_body = wb;
	r->worst_row = wr;
	if (stopped) {
		snprintf(r->message, sizeof r->message, "interrupted after %d iterations: force "
			 "residual %.3g (tolerance %.3g)", r->iterations, rf, r->tol_force);
	} else if (!r->converged) {
		char cons_txt[240] = "";
		if (wr >= 0 && rp > r->tol_phi)
			snprintf(cons_txt, sizeof cons_txt, ", constraint residual %.3g in %s", rp,
				 statics_row_name(m, wr));
		snprintf(r->message, sizeof r->message,
			 "no static equilibrium after %d iterations%s: force residual %.3g "
			 "(tolerance %.3g) on body '%s'%s", r->iterations,
			 r->iterations < maxit ? " (no step lowers the residual)" : "", rf,
			 r->tol_force, wb >= 0 ? m->bodies[wb].name : "?", cons_txt);
	}
	ra_state_release(&xn);
	work_release(&w);
	return r->converged ? 0 : -1;
}
