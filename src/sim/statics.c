/* statics.c - static equilibrium: Newton with pseudo-transient
 * continuation on G(q, lambda) = f - Phi_q^T lambda = 0, Phi = 0
 * (statics.h). */
#include "statics.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../elem/elem.h"
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
		if (elem_of(f)->length)
			L = vmax(L, elem_of(f)->length(f));
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

void statics_perturb(const struct ra *s, struct ra_state *x, const struct ra_state *base, int j,
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
			statics_perturb(s, &xp, x, j, off[k] * h, vel);
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
	struct prim pb;
	int dv = model_row_driver(m, k);
	if (dv >= 0)
		snprintf(buf, sizeof buf, "driver '%s'", m->drivers[dv].name);
	else if (k >= 0 && k < m->ncons)
		snprintf(buf, sizeof buf, "joint '%s'", m->joints[model_prim(m, k, &pb)->owner].name);
	else
		snprintf(buf, sizeof buf, "constraint row %d", k);
	return buf;
}

/* Residual norms at x: max |G| (its body in *wb), a moment taken over the
 * model's length L, as the force at distance L that makes it, so that
 * moments and forces are held to one tolerance whatever the model's size
 * (compared in N and N m alike, a moment of 1e-10 of the loads times a
 * length of 2 m - the spring of an arm of decks/hmmwv14.yaml acting
 * 1e-10 m off the axis the arm spins freely about - is not converged
 * until the arm has turned by a large angle); max |Phi| (row in *wr); G
 * and s->phi left at x. */
static void norms(struct ra *s, const struct ra_state *x, double t, double lf, double *G,
		  double *rf, double *rp, int *wb, int *wr)
{
	statics_residual_lf(s, x, t, x->lam, lf, G);
	double L = statics_length(s->m);
	*rf = 0;
	*rp = 0;
	*wb = -1;
	*wr = -1;
	for (int i = 0; i < s->ng; i++) {
		double a = fabs(G[i]) / (i % 6 < 3 ? 1.0 : L);
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

int statics_lsq(int m, int n, double *A, double *b)
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
 * Phi (in s->phi); A, b: the system and step of size N = 6 nb + nc; dx,
 * dz: Newton's step and its fraction (newton_step). */
struct work {
	double *A, *b, *D, *P, *G, *G1, *phi, *dx, *dz;
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
	w->dx = xcalloc((size_t)N, sizeof(double));
	w->dz = xcalloc((size_t)N, sizeof(double));
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
	free(w->dx);
	free(w->dz);
}

/* D, G, P, Phi at x */
static void linearize(struct ra *s, const struct ra_state *x, double t, double lf,
		      struct work *w)
{
	statics_tangent(s, x, t, x->lam, lf, w->D);
	statics_residual_lf(s, x, t, x->lam, lf, w->G);	/* and Phi, Phi_q at x */
	statics_jacobian(s, w->P);
	memcpy(w->phi, s->phi, (size_t)s->nc * sizeof(double));
}

/* The factor on Phi_q in the system of solve(): the largest entry of its
 * stiffness block (the n x n block of w->A, filled) over the largest of
 * Phi_q, 1 when either is 0.  Unscaled, [K P^T; P 0] has singular values
 * from about |K| down to |P|^2 / |K| (the constraints seen through the
 * stiffness): a beam's |K| ~ EA / element length ~ 1e9 N/m puts the
 * constraints' below 1e-13 of the largest, where statics_lsq() takes them as
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
	if (statics_lsq(N, N, w->A, w->b))
		return -1;
	for (int k = 0; k < nc; k++)
		w->b[n + k] *= sc;	/* the unknowns were dlambda / sc */
	return 0;
}

/* First multipliers: the reactions that balance the loads at x best,
 * lambda = argmin |f - Phi_q^T lambda| (so that Newton's first matrix has
 * the constraints' geometric stiffness). */
static void first_multipliers(struct ra *s, struct ra_state *x, double t, double lf)
{
	int n = s->ng, nc = s->nc;
	if (nc == 0)
		return;
	double *A = xcalloc((size_t)n * (size_t)nc, sizeof(double));
	double *P = xcalloc((size_t)n * (size_t)nc, sizeof(double));
	double *b = xcalloc((size_t)(n > nc ? n : nc), sizeof(double));
	memset(x->lam, 0, (size_t)nc * sizeof(double));
	statics_residual_lf(s, x, t, x->lam, lf, b);	/* f alone */
	statics_jacobian(s, P);
	for (int k = 0; k < nc; k++)
		for (int j = 0; j < n; j++)
			A[j + (size_t)n * k] = P[k + (size_t)nc * j];
	if (statics_lsq(n, nc, A, b) == 0)
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
		if (elem_props(&m->forces[i]) & ELEM_NO_POTENTIAL)
			return 0;	/* loads, expressions and motors have no potential */
	}
	return 1;
}

/* The potential under the load factor lf: gravity's -m g . r scaled by lf */
static double potential(const struct ra *s, const struct ra_state *x, double lf)
{
	double kin, pot;
	ra_energy(s, x, &kin, &pot);
	for (int b = 0; b < s->nb; b++)
		pot += (1 - lf) * s->mass[b] * v3_dot(s->m->gravity, x->r + 3 * b);
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
		if (statics_lsq(nc, n, A, b))
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
		    double lf, const double *dz, double Fs, double tol_phi, struct work *w,
		    struct trial *tr)
{
	apply(s, xn, x, dz);
	if (project(s, xn, t, tol_phi))
		return -1;
	first_multipliers(s, xn, t, lf);
	norms(s, xn, t, lf, w->G1, &tr->rf, &tr->rp, &tr->wb, &tr->wr);
	tr->res = tr->rf / Fs;
	tr->V = potential(s, xn, lf);
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

/* Newton steps taken whatever their residual before the watchdog returns */
#define WATCH 10

/* What the iterations at one load factor share. */
struct ctx {
	struct work w;
	struct ra_state xn, xw;	/* the trial point, the watch point */
	double Fs, L;
	int cons, maxit;
	struct statics_result *r;
};

/* The first pseudo-time step at x (G in c->w.G): a move of about L / 10
 * along the loads. */
static double first_it2(const struct ra *s, const struct ctx *c)
{
	double amax = 0;
	for (int b = 0; b < s->nb; b++) {
		double al[3];	/* angular acceleration J^-1 n, body frame */
		m3_mulv(al, s->Jinv + 9 * b, c->w.G + 6 * b + 3);
		amax = vmax(amax, v3_norm(c->w.G + 6 * b) / s->mass[b]);
		amax = vmax(amax, c->L * v3_norm(al));
	}
	return amax > 0 ? amax / (0.1 * c->L) : 1;
}

/* Newton's step with a backtracking line search (Dennis and Schnabel
 * 1983, §6.3; docs/REFERENCES.md): the step times alpha = 1, 1/2, ...,
 * 1/64 (with beams; rigid models take the full step or none, and then
 * pseudo-transient steps, which lead a mechanism into its equilibrium in
 * fewer iterations), the first that lowers max |G| by the fraction 1e-4
 * alpha (Armijo's condition), or with relaxed (the watchdog of iterate()) the
 * full step whatever its residual; for conservative loads none that
 * raises the potential.  1 when a step is taken (in c->xn, *tr). */
static int newton_step(struct ra *s, const struct ra_state *x, double t, double lf,
		       double res, double V, double tolV, int relaxed, struct ctx *c,
		       struct trial *tr)
{
	int N = c->w.N;
	if (solve(s, 0, &c->w))
		return 0;
	double *dx = c->w.dx, *dz = c->w.dz;
	memcpy(dx, c->w.b, (size_t)N * sizeof(double));
	int ok = 0;
	double amin = s->m->nbeams ? 1.0 / 64 : 1;
	for (double a = 1; !ok && a >= amin; a *= 0.5) {
		for (int i = 0; i < N; i++)
			dz[i] = a * dx[i];
		if (try_step(s, &c->xn, x, t, lf, dz, c->Fs, c->r->tol_phi, &c->w, tr))
			continue;
		if (c->cons && !(tr->V <= V + tolV))
			continue;
		ok = (relaxed && a == 1) || tr->res < (1 - 1e-4 * a) * res;
	}
	return ok;
}

/* x <- y, an accepted iterate, with its residuals and potential in *cur */
static void take(struct ra *s, struct ra_state *x, const struct ra_state *y,
		 const struct trial *ty, struct trial *cur)
{
	ra_state_copy(s, x, y);
	ra_force_commit(s, x);	/* continuous rsda angles: from accepted iterates */
	*cur = *ty;
}

/* Iterations at the load factor lf from x (on the constraints): 0 when
 * converged; c->r's counts, residuals and worst body and row updated. */
static int iterate(struct ra *s, struct ra_state *x, double t, double lf, struct ctx *c)
{
	struct statics_result *r = c->r;
	struct trial cur, tw;
	first_multipliers(s, x, t, lf);
	ra_force_commit(s, x);
	norms(s, x, t, lf, c->w.G, &cur.rf, &cur.rp, &cur.wb, &cur.wr);
	double it2 = first_it2(s, c);
	cur.res = cur.rf / c->Fs;
	cur.V = potential(s, x, lf);
	double best = cur.res, tolV = 1e-12 * (fabs(cur.V) + c->Fs * c->L);
	int conv = 0;
	/* the watchdog (Chamberlain et al. 1982; Nocedal and Wright 2006,
	 * §15.6): Newton's full steps are taken whatever their residual for
	 * up to WATCH iterations from a watch point (the first steps on a
	 * slender beam raise max |G|, its axial forces, by orders of
	 * magnitude while the motion converges); if none of them brings the
	 * residual below the watch point's, the iteration goes back to it and
	 * takes a line search's step (or a pseudo-transient one) from there.
	 * Only with beams: on rigid mechanisms (a crank-rocker whose motor
	 * saturates on the way) the full steps wander where the line search
	 * and pseudo-transient steps lead straight in */
	int wcount = 0, watch = s->m->nbeams > 0;
	for (int it = 0; it <= c->maxit; it++) {
		if (cur.rf <= r->tol_force && cur.rp <= r->tol_phi) {
			conv = 1;
			break;
		}
		if (it == c->maxit || (r->stopped = interrupted()))
			break;
		r->iterations++;
		int relaxed = watch && wcount < WATCH;
		if (wcount == WATCH) {
			wcount = 0;
			take(s, x, &c->xw, &tw, &cur);
		} else if (wcount == 0 && watch) {
			ra_state_copy(s, &c->xw, x);
			tw = cur;
		}
		linearize(s, x, t, lf, &c->w);
		struct trial tr;
		int ok = newton_step(s, x, t, lf, cur.res, cur.V, tolV, relaxed, c, &tr);
		int newton = ok;
		wcount = watch && ok && !(tr.res < (1 - 1e-4) * tw.res) ? wcount + 1 : 0;
		/* else a pseudo-transient step (Kelley and Keyes 1998), tau
		 * shortened until it lowers the potential (conservative loads)
		 * or keeps the residual within twice the least so far */
		for (int k = 0; !ok && k < 40; k++) {
			if (solve(s, it2, &c->w) == 0 &&
			    try_step(s, &c->xn, x, t, lf, c->w.b, c->Fs, r->tol_phi, &c->w, &tr) == 0)
				ok = c->cons ? tr.V <= cur.V + tolV : tr.res <= 2 * best;
			if (!ok)
				it2 *= 4;
		}
		if (!ok) {
			r->stalled = 1;
			break;
		}
		/* switched evolution relaxation: tau^2 grows as the residual falls */
		if (!newton)
			it2 *= 0.5 * fmin(1.0, tr.res / cur.res);
		take(s, x, &c->xn, &tr, &cur);
		best = fmin(best, cur.res);
	}
	r->res_force = cur.rf;
	r->res_phi = cur.rp;
	r->worst_body = cur.wb;
	r->worst_row = cur.wr;
	return conv ? 0 : -1;
}

/* Continuation in the load factor (Crisfield 1991, ch. 9;
 * docs/REFERENCES.md) from the unloaded state x0: lf from 0 to 1 in
 * steps of 1 / n0, each started from the last equilibrium, halved when
 * its iterations fail and doubled after one that converged in at most 4
 * iterations; given up below 1e-6.  0 when lf = 1 is reached. */
static int continuation(struct ra *s, struct ra_state *x, double t, int n0, struct ctx *c)
{
	struct statics_result *r = c->r;
	struct ra_state xs;
	ra_state_init(s, &xs);
	r->load_factor = 0;
	int rc = iterate(s, x, t, 0, c);
	double dl = 1.0 / n0;
	while (rc == 0 && r->load_factor < 1 && !r->stopped) {
		double lf = fmin(1.0, r->load_factor + dl);
		int it0 = r->iterations;
		ra_state_copy(s, &xs, x);
		r->stalled = 0;
		if (iterate(s, x, t, lf, c) == 0) {
			r->load_factor = lf;
			r->load_steps++;
			if (r->iterations - it0 <= 4)
				dl *= 2;
		} else {
			ra_state_copy(s, x, &xs);
			dl *= 0.5;
			if (dl < 1e-6)
				rc = -1;
		}
	}
	ra_state_release(&xs);
	return rc == 0 && r->load_factor == 1 ? 0 : -1;
}

/* An element (a motor) whose effort sits at its limit at x: its index
 * and limit, or -1. */
static int saturated_motor(struct ra *s, const struct ra_state *x, double t, double *limit)
{
	const struct model *m = s->m;
	for (int i = 0; i < m->nforces; i++) {
		const struct elem_ops *e = elem_of(&m->forces[i]);
		if (e->saturated && (*limit = e->saturated(s, x, t, i)) > 0)
			return i;
	}
	return -1;
}

static void fail_message(struct ra *s, const struct ra_state *x, double t, struct ctx *c)
{
	const struct model *m = s->m;
	struct statics_result *r = c->r;
	char cons_txt[240] = "", load_txt[120] = "", mot_txt[300] = "";
	if (r->worst_row >= 0 && r->res_phi > r->tol_phi)
		snprintf(cons_txt, sizeof cons_txt, ", constraint residual %.3g in %s", r->res_phi,
			 statics_row_name(m, r->worst_row));
	if (r->load_factor < 1)
		snprintf(load_txt, sizeof load_txt, " (load factor %.6g reached in %d load steps)",
			 r->load_factor, r->load_steps);
	if (r->stopped) {
		snprintf(r->message, sizeof r->message, "interrupted after %d iterations%s: force "
			 "residual %.3g (tolerance %.3g)", r->iterations, load_txt, r->res_force,
			 r->tol_force);
		return;
	}
	double lim = 0.0;
	int mi = saturated_motor(s, x, t, &lim);
	if (mi >= 0)
		snprintf(mot_txt, sizeof mot_txt, "; %s '%s' is saturated at its limit %g: "
			 "at the limit its effort is constant and its joint free, and no "
			 "position balances it there", force_type_names[m->forces[mi].type],
			 m->forces[mi].name, lim);
	snprintf(r->message, sizeof r->message,
		 "no static equilibrium after %d iterations%s%s: force residual %.3g "
		 "(tolerance %.3g) on body '%s'%s%s", r->iterations, load_txt,
		 r->stalled ? " (no step lowers the residual)" : "", r->res_force, r->tol_force,
		 r->worst_body >= 0 ? m->bodies[r->worst_body].name : "?", cons_txt, mot_txt);
}

/* The force scale: the heaviest weight, the largest initial load (G at x
 * in G), the beams' share */
static double force_scale(struct ra *s, const double *G)
{
	const struct model *m = s->m;
	double Fs = 0, gn = v3_norm(m->gravity);
	for (int b = 0; b < s->nb; b++)
		Fs = vmax(Fs, s->mass[b] * gn);
	for (int i = 0; i < s->ng; i++)
		Fs = vmax(Fs, fabs(G[i]));
	for (int i = 0; i < m->nbeams; i++)
		Fs = vmax(Fs, beam_force_scale(m, &m->beams[i]));
	return Fs > 0 && isfinite(Fs) ? Fs : 1;
}

void statics_options_default(struct statics_options *o)
{
	o->max_iterations = 200;
	o->load_steps = 0;
	o->tolerance = 1e-10;
	o->load_factor = 1;
}

int statics_solve(struct ra *s, struct ra_state *x, double t, const struct statics_options *o,
		  struct statics_result *r)
{
	struct statics_options od;
	if (!o) {
		statics_options_default(&od);
		o = &od;
	}
	const struct model *m = s->m;
	struct ctx c = { .L = statics_length(m), .cons = conservative(m), .r = r,
			 .maxit = o->max_iterations };
	memset(r, 0, sizeof(*r));
	r->load_factor = 1;
	memset(x->v, 0, 3 * (size_t)s->nb * sizeof(double));
	memset(x->w, 0, 3 * (size_t)s->nb * sizeof(double));
	memset(x->lam, 0, (size_t)s->nc * sizeof(double));
	work_init(&c.w, s);
	ra_state_init(s, &c.xn);
	ra_state_init(s, &c.xw);
	statics_residual(s, x, t, x->lam, c.w.G);
	c.Fs = force_scale(s, c.w.G);
	/* tolerances: forces to 1e-10 (by default) of their scale,
	 * constraints to 1e-12 of the model's length (squared for distance
	 * rows), both well above the rounding of Newton's last step and far
	 * below what a test of positions to 1e-9 m needs */
	r->tol_force = o->tolerance * c.Fs;
	r->tol_phi = 1e-12 * vmax(1.0, c.L * c.L);
	/* the iterates stay on the constraints, with the multipliers that
	 * balance the loads best: the residual is the unbalanced force along
	 * the motions the constraints allow, and the potential (gravity and
	 * springs) is a merit function whose descent leads to a stable
	 * equilibrium, not to a pendulum's upright position */
	int rc = project(s, x, t, r->tol_phi);
	if (rc) {
		int wb, wr;
		norms(s, x, t, 1, c.w.G, &r->res_force, &r->res_phi, &wb, &wr);
		snprintf(r->message, sizeof r->message, "the constraints cannot be met: "
			 "residual %.3g in %s", r->res_phi, wr >= 0 ? statics_row_name(m, wr) : "?");
		r->worst_body = wb;
		r->worst_row = wr;
	} else {
		struct ra_state x0;
		ra_state_init(s, &x0);
		ra_state_copy(s, &x0, x);
		/* load_steps 0: the full load for up to 20 iterations, then
		 * continuation from 1/4 of it, then (a mechanism's swing into
		 * its equilibrium is no easier at a part of the load) the full
		 * load again with the whole iteration limit; 1: the full load
		 * only; n > 1: continuation from 1/n */
		if (o->load_factor != 1) {
			r->load_factor = o->load_factor;
			rc = iterate(s, x, t, o->load_factor, &c);
		} else {
			int quick = o->load_steps == 0 && statics_has_loads(m) && o->max_iterations > 20;
			c.maxit = quick ? 20 : o->max_iterations;
			rc = o->load_steps > 1 ? -1 : iterate(s, x, t, 1, &c);
			c.maxit = o->max_iterations;
			if (rc && !r->stopped && statics_has_loads(m) && o->load_steps != 1) {
				ra_state_copy(s, x, &x0);
				rc = continuation(s, x, t, o->load_steps > 1 ? o->load_steps : 4, &c);
			}
			if (rc && quick && !r->stopped) {
				ra_state_copy(s, x, &x0);
				r->load_factor = 1;
				r->load_steps = 0;
				rc = iterate(s, x, t, 1, &c);
			}
		}
		ra_state_release(&x0);
		r->converged = rc == 0;
		if (rc)
			fail_message(s, x, t, &c);
	}
	ra_state_release(&c.xn);
	ra_state_release(&c.xw);
	work_release(&c.w);
	return rc;
}
