/* rp.c - Euler parameters with generalized coordinate partitioning, as an
 * ODE in the independent coordinates (rp.h; seed 001 §1). */
#include "rp.h"
#include "../la/kkt.h"
#include "../la/lapack.h"
#include "../util/vec.h"
#include "../util/xalloc.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct rp {
	struct ra *s;		/* borrowed */
	struct kkt *k;		/* borrowed: the run's saddle-point solver */
	struct ode_sys ode;
	double tol;
	int maxit;
	int nb, nc, nq, m;	/* bodies, model rows, coordinates, rows with normalizations */
	int *qo;		/* nb: first coordinate of body b in q */
	int *erow;		/* nb: row of body b's normalization, or -1 (particle) */
	double *q, *qd, *qdd;	/* nq: the current configuration */
	struct ra_state x;	/* its body state */
	double *W, *F, *g;	/* scratch of ra_accel */
	/* Phi_q, dense column-major m x nq, and nu (m) at the current positions */
	double *P, *nu;
	/* partition */
	int r, n;		/* kept rows = dependent coordinates; independent coordinates */
	int *rows, *dep, *ind;	/* r, r, n */
	int *dropped, ndropped;	/* rows left out (redundant) */
	double *LU;		/* r x r: Phi_u factored (dgetrf) */
	int *ipiv, *iwork;
	double *work;		/* 4 r */
	double cond, cond0;	/* of Phi_u now and at the partition */
	int factored;		/* LU is the factorization of Phi_u at q */
	long repart;
	double *res, *du, *E;	/* scratch: m, nq, m x nq */
	int *rp_, *cp_;		/* scratch of the complete pivoting: m, nq */
	char why[600];
};

/* G(e) of seed 001 (Haug): w' = 2 G e-dot, 3 x 4 row-major. */
static void gmat(const double *e, double G[12])
{
	double e0 = e[0], e1 = e[1], e2 = e[2], e3 = e[3];
	double g[12] = { -e1, e0, e3, -e2, -e2, -e3, e0, e1, -e3, e2, -e1, e0 };
	memcpy(G, g, sizeof g);
}

static int rigid(const struct rp *p, int b)
{
	return p->erow[b] >= 0;
}

/* Positions (and velocities when qd) of q into the body state p->x. */
static void to_bodies(struct rp *p, const double *q, const double *qd)
{
	for (int b = 0; b < p->nb; b++) {
		const double *qb = q + p->qo[b];
		v3_copy(p->x.r + 3 * b, qb);
		if (rigid(p, b)) {
			double e[4], n = sqrt(qb[3] * qb[3] + qb[4] * qb[4] + qb[5] * qb[5] +
					      qb[6] * qb[6]);
			for (int i = 0; i < 4; i++)
				e[i] = qb[3 + i] / n;
			quat_to_mat(p->x.A + 9 * b, e);
		}
		if (!qd)
			continue;
		const double *qdb = qd + p->qo[b];
		v3_copy(p->x.v + 3 * b, qdb);
		if (rigid(p, b)) {
			double G[12];
			gmat(qb + 3, G);
			for (int a = 0; a < 3; a++)
				p->x.w[3 * b + a] = 2.0 * (G[4 * a] * qdb[3] + G[4 * a + 1] * qdb[4] +
							   G[4 * a + 2] * qdb[5] + G[4 * a + 3] * qdb[6]);
		}
	}
}

/* The columns of one side of row k into P: d/dr (3) and d/dtheta (3) of
 * body b, turned into d/de = 2 (d/dtheta) G(e). */
static void side_cols(struct rp *p, int k, int b, const double *J6)
{
	if (b < 0)
		return;
	int c = p->qo[b], m = p->m;
	for (int a = 0; a < 3; a++)
		p->P[(size_t)(c + a) * m + k] += J6[a];
	if (!rigid(p, b))
		return;
	double G[12];
	gmat(p->q + c + 3, G);
	for (int i = 0; i < 4; i++) {
		double s = 0.0;
		for (int a = 0; a < 3; a++)
			s += J6[3 + a] * G[4 * a + i];
		p->P[(size_t)(c + 3 + i) * m + k] += 2.0 * s;
	}
}

/* Phi_q and nu at p->q (ra_eval of Jacobian and nu at p->x done). */
static void jac_q(struct rp *p)
{
	const struct ra *s = p->s;
	memset(p->P, 0, (size_t)p->m * (size_t)p->nq * sizeof(double));
	for (int k = 0; k < p->nc; k++) {
		const double *J = s->jac + s->jo[k];
		side_cols(p, k, s->bi[k], J);
		side_cols(p, k, s->bj[k], J + 6);
		p->nu[k] = s->nu[k];
	}
	for (int b = 0; b < p->nb; b++) {
		int k = p->erow[b];
		if (k < 0)
			continue;
		for (int i = 0; i < 4; i++)
			p->P[(size_t)(p->qo[b] + 3 + i) * p->m + k] = 2.0 * p->q[p->qo[b] + 3 + i];
		p->nu[k] = 0.0;
	}
}

/* Phi at p->q over all m rows into p->res (ra_eval of Phi at p->x done). */
static void phi_q(struct rp *p)
{
	memcpy(p->res, p->s->phi, (size_t)p->nc * sizeof(double));
	for (int b = 0; b < p->nb; b++)
		if (rigid(p, b)) {
			const double *e = p->q + p->qo[b] + 3;
			p->res[p->erow[b]] = e[0] * e[0] + e[1] * e[1] + e[2] * e[2] + e[3] * e[3] - 1.0;
		}
}

static void row_name(const struct rp *p, int k, char *buf, size_t n)
{
	const struct model *m = p->s->m;
	if (k >= p->nc) {
		for (int b = 0; b < p->nb; b++)
			if (p->erow[b] == k)
				snprintf(buf, n, "the Euler-parameter normalization of body '%s'",
					 m->bodies[b].name);
		return;
	}
	struct prim pb;
	const struct prim *pr = model_prim(m, k, &pb);
	if (pr->owner < m->njoints)
		snprintf(buf, n, "joint '%s' (row %d)", m->joints[pr->owner].name,
			 k - m->joints[pr->owner].row0 + 1);
	else
		snprintf(buf, n, "driver '%s'", m->drivers[pr->owner - m->njoints].name);
}

/* Gaussian elimination with complete pivoting of Phi_q (seed 001 §1: the
 * pivot columns are the dependent coordinates, the pivot rows the rows
 * kept).  Returns the rank. */
static int partition(struct rp *p)
{
	int m = p->m, nq = p->nq;
	double *E = p->E;
	memcpy(E, p->P, (size_t)m * (size_t)nq * sizeof(double));
	int *ro = p->rp_, *co = p->cp_;
	for (int i = 0; i < m; i++)
		ro[i] = i;
	for (int j = 0; j < nq; j++)
		co[j] = j;
	double big0 = 0.0;
	int r = 0;
	for (; r < m && r < nq; r++) {
		int pi = -1, pj = -1;
		double big = 0.0;
		for (int j = r; j < nq; j++)
			for (int i = r; i < m; i++) {
				double a = fabs(E[(size_t)co[j] * m + ro[i]]);
				if (a > big) {
					big = a;
					pi = i;
					pj = j;
				}
			}
		if (r == 0)
			big0 = big;
		if (!(big > RP_RANK_TOL * big0) || pi < 0)
			break;
		int t = ro[r];
		ro[r] = ro[pi];
		ro[pi] = t;
		t = co[r];
		co[r] = co[pj];
		co[pj] = t;
		double piv = E[(size_t)co[r] * m + ro[r]];
		for (int i = r + 1; i < m; i++) {
			double f = E[(size_t)co[r] * m + ro[i]] / piv;
			if (f == 0.0)
				continue;
			for (int j = r + 1; j < nq; j++)
				E[(size_t)co[j] * m + ro[i]] -= f * E[(size_t)co[j] * m + ro[r]];
		}
	}
	p->r = r;
	p->n = nq - r;
	for (int i = 0; i < r; i++) {
		p->rows[i] = ro[i];
		p->dep[i] = co[i];
	}
	/* independent coordinates in increasing order: the seed's v */
	int c = 0;
	for (int j = 0; j < nq; j++) {
		int isdep = 0;
		for (int i = 0; i < r && !isdep; i++)
			isdep = p->dep[i] == j;
		if (!isdep && c < nq)
			p->ind[c++] = j;
	}
	p->ndropped = 0;
	for (int i = r; i < m; i++)
		p->dropped[p->ndropped++] = ro[i];
	return r;
}

/* LU of Phi_u = P[rows, dep] and its condition number; 0 or -1 singular. */
static int factor_u(struct rp *p)
{
	int r = p->r, info = 0;
	for (int j = 0; j < r; j++)
		for (int i = 0; i < r; i++)
			p->LU[(size_t)j * r + i] = p->P[(size_t)p->dep[j] * p->m + p->rows[i]];
	if (r == 0) {
		p->factored = 1;
		p->cond = 1.0;
		return 0;
	}
	double anorm = dlange_("1", &r, &r, p->LU, &r, p->work);
	dgetrf_(&r, &r, p->LU, &r, p->ipiv, &info);
	if (info != 0) {
		p->factored = 0;
		p->cond = INFINITY;
		return -1;
	}
	double rc = 0.0;
	dgecon_("1", &r, p->LU, &r, &anorm, &rc, p->work, p->iwork, &info);
	p->cond = rc > 0 ? 1.0 / rc : INFINITY;
	p->factored = 1;
	return 0;
}

static void solve_u(struct rp *p, double *b)
{
	int r = p->r, one = 1, info = 0;
	if (r > 0)
		dgetrs_("N", &r, &one, p->LU, &r, p->ipiv, b, &r, &info);
}

/* b[i] = P[rows[i], ind] x (x over the n independent coordinates) */
static void mul_v(const struct rp *p, const double *x, double *b)
{
	for (int i = 0; i < p->r; i++) {
		double s = 0.0;
		for (int j = 0; j < p->n; j++)
			s += p->P[(size_t)p->ind[j] * p->m + p->rows[i]] * x[j];
		b[i] = s;
	}
}

static void eval_jac(struct rp *p, double t)
{
	to_bodies(p, p->q, NULL);
	ra_eval(p->s, &p->x, t, PRIM_JAC | PRIM_NU);
	jac_q(p);
}

/* u from Phi(u, v) = 0 at time t, v = y: Newton from the linear
 * prediction through the last factorization (eq. 8). */
static int solve_positions(struct rp *p, double t, const double *y)
{
	int r = p->r;
	double *du = p->du;
	/* predict: u += -Phi_u^-1 Phi_v (v - v_now) */
	for (int j = 0; j < p->n; j++)
		du[r + j] = y[j] - p->q[p->ind[j]];
	if (p->factored) {
		mul_v(p, du + r, du);
		solve_u(p, du);
		for (int i = 0; i < r; i++)
			p->q[p->dep[i]] -= du[i];
	}
	for (int j = 0; j < p->n; j++)
		p->q[p->ind[j]] = y[j];
	double last = INFINITY;
	for (int it = 0; it < p->maxit; it++) {
		to_bodies(p, p->q, NULL);
		ra_eval(p->s, &p->x, t, PRIM_PHI);
		phi_q(p);
		double nrm = 0.0;
		for (int i = 0; i < r; i++)
			du[i] = p->res[p->rows[i]];
		if (!p->factored) {
			eval_jac(p, t);
			if (factor_u(p))
				return ODE_SINGULAR;
		}
		solve_u(p, du);
		for (int i = 0; i < r; i++) {
			if (!isfinite(du[i]))
				return ODE_NONFINITE;
			p->q[p->dep[i]] -= du[i];
			nrm = fmax(nrm, fabs(du[i]));
		}
		if (nrm <= p->tol)
			return ODE_OK;
		/* a stale factorization that does not contract: refresh */
		if (nrm > 0.25 * last)
			p->factored = 0;
		last = nrm;
	}
	snprintf(p->why, sizeof p->why, "the dependent coordinates did not converge in %d Newton "
		 "iterations (last correction %.3g > integrator.tolerance %g)", p->maxit, last,
		 p->tol);
	return ODE_NEWTON_FAIL;
}

/* Everything at (t, q) once positions are solved: Phi_q, Phi_u factored,
 * u-dot (eq. 7d), the accelerations; y'' into ydd when not NULL. */
static int finish(struct rp *p, double t, const double *yd, double *ydd)
{
	int r = p->r;
	eval_jac(p, t);
	if (factor_u(p)) {
		snprintf(p->why, sizeof p->why, "the dependent constraint Jacobian Phi_u is singular: "
			 "no valid partition of the coordinates here");
		return ODE_SINGULAR;
	}
	double *b = p->du;
	mul_v(p, yd, b);
	for (int i = 0; i < r; i++)
		b[i] = p->nu[p->rows[i]] - b[i];
	solve_u(p, b);
	for (int j = 0; j < p->n; j++)
		p->qd[p->ind[j]] = yd[j];
	for (int i = 0; i < r; i++)
		p->qd[p->dep[i]] = b[i];
	to_bodies(p, p->q, p->qd);
	p->x.t = t;
	if (ra_accel(p->s, p->k, p->W, p->F, p->g, &p->x)) {
		snprintf(p->why, sizeof p->why, "the acceleration solve is singular");
		return ODE_SINGULAR;
	}
	for (int b2 = 0; b2 < p->nb; b2++) {
		int c = p->qo[b2];
		v3_copy(p->qdd + c, p->x.a + 3 * b2);
		if (!rigid(p, b2))
			continue;
		double G[12], w2 = v3_dot(p->x.w + 3 * b2, p->x.w + 3 * b2);
		const double *e = p->q + c + 3, *wd = p->x.wd + 3 * b2;
		gmat(e, G);
		for (int i = 0; i < 4; i++)
			p->qdd[c + 3 + i] = 0.5 * (G[i] * wd[0] + G[4 + i] * wd[1] + G[8 + i] * wd[2]) -
					    0.25 * w2 * e[i];
	}
	if (ydd)
		for (int j = 0; j < p->n; j++) {
			ydd[j] = p->qdd[p->ind[j]];
			if (!isfinite(ydd[j]))
				return ODE_NONFINITE;
		}
	return ODE_OK;
}

static int rp_rhs(void *ctx, double t, const double *y, const double *yd, double *ydd)
{
	struct rp *p = ctx;
	p->why[0] = 0;
	int st = solve_positions(p, t, y);
	if (st)
		return st;
	return finish(p, t, yd, ydd);
}

static void name_dropped(struct rp *p, const char *what)
{
	size_t len = strlen(p->why);
	len += (size_t)snprintf(p->why + len, sizeof p->why - len, "%s", what);
	for (int i = 0; i < p->ndropped && len + 8 < sizeof p->why; i++) {
		char nm[200];
		row_name(p, p->dropped[i], nm, sizeof nm);
		len += (size_t)snprintf(p->why + len, sizeof p->why - len, "%s%s", i ? ", " : " ",
					nm);
	}
}

/* A new partition at the current configuration (Phi_q evaluated). */
static int repartition(struct rp *p, int nwant)
{
	partition(p);
	if (nwant >= 0 && p->n != nwant) {
		snprintf(p->why, sizeof p->why, "singular position: Phi_q lost rank (%d independent "
			 "coordinates instead of %d); rows now dependent:", p->n, nwant);
		name_dropped(p, "");
		return ODE_SINGULAR;
	}
	if (factor_u(p)) {
		snprintf(p->why, sizeof p->why, "no valid partition of the coordinates");
		return ODE_SINGULAR;
	}
	p->cond0 = p->cond;
	return ODE_OK;
}

static int rp_accept(void *ctx, double t, double *y, double *yd)
{
	struct rp *p = ctx;
	if (p->cond <= RP_COND_GROWTH * p->cond0)
		return 0;
	int st = repartition(p, p->n);
	if (st)
		return -st;
	p->repart++;
	for (int j = 0; j < p->n; j++) {
		y[j] = p->q[p->ind[j]];
		yd[j] = p->qd[p->ind[j]];
	}
	return 1;
}

static int rp_start(void *ctx, const struct ra_state *x, double *y, double *yd, double *ydd)
{
	struct rp *p = ctx;
	p->why[0] = 0;
	for (int b = 0; b < p->nb; b++) {
		int c = p->qo[b];
		v3_copy(p->q + c, x->r + 3 * b);
		v3_copy(p->qd + c, x->v + 3 * b);
		if (!rigid(p, b))
			continue;
		double *e = p->q + c + 3, G[12];
		mat_to_quat(e, x->A + 9 * b);
		if (e[0] < 0)
			for (int i = 0; i < 4; i++)
				e[i] = -e[i];
		gmat(e, G);
		const double *w = x->w + 3 * b;
		for (int i = 0; i < 4; i++)
			p->qd[c + 3 + i] = 0.5 * (G[i] * w[0] + G[4 + i] * w[1] + G[8 + i] * w[2]);
	}
	memcpy(p->x.lam, x->lam, (size_t)p->nc * sizeof(double));
	eval_jac(p, x->t);
	int st = repartition(p, -1);
	if (st)
		return st;
	if (p->ndropped) {
		p->why[0] = 0;
		name_dropped(p, "redundant rows left out of the partition:");
	}
	for (int j = 0; j < p->n; j++) {
		y[j] = p->q[p->ind[j]];
		yd[j] = p->qd[p->ind[j]];
	}
	p->ode.n = p->n;
	return rp_rhs(p, x->t, y, yd, ydd);
}

static void rp_bodies(void *ctx, struct ra_state *x)
{
	struct rp *p = ctx;
	double t = x->t;
	ra_state_copy(p->s, x, &p->x);
	x->t = t;
}

static const char *rp_why(void *ctx)
{
	return ((struct rp *)ctx)->why;
}

struct rp *rp_new(struct ra *s, struct kkt *k, double tol, int maxit)
{
	struct rp *p = xcalloc(1, sizeof(*p));
	const struct model *md = s->m;
	p->s = s;
	p->k = k;
	p->tol = tol;
	p->maxit = maxit;
	p->nb = s->nb;
	p->nc = s->nc;
	p->qo = xmalloc(((size_t)p->nb + 1) * sizeof(int));
	p->erow = xmalloc(((size_t)p->nb + 1) * sizeof(int));
	int nq = 0, m = s->nc;
	for (int b = 0; b < p->nb; b++) {
		p->qo[b] = nq;
		int rig = md->bodies[b].kind != BODY_PARTICLE;
		p->erow[b] = rig ? m++ : -1;
		nq += rig ? 7 : 3;
	}
	p->nq = nq;
	p->m = m;
	size_t Q = (size_t)nq + 1, M = (size_t)m + 1;
	p->q = xcalloc(Q, sizeof(double));
	p->qd = xcalloc(Q, sizeof(double));
	p->qdd = xcalloc(Q, sizeof(double));
	ra_state_init(s, &p->x);
	p->W = xcalloc(18 * (size_t)p->nb + 1, sizeof(double));
	p->F = xcalloc(6 * (size_t)p->nb + 1, sizeof(double));
	p->g = xcalloc(6 * (size_t)p->nb + 1, sizeof(double));
	p->P = xcalloc(M * Q, sizeof(double));
	p->E = xcalloc(M * Q, sizeof(double));
	p->nu = xcalloc(M, sizeof(double));
	p->res = xcalloc(M, sizeof(double));
	p->du = xcalloc(M + Q, sizeof(double));
	p->rows = xcalloc(M, sizeof(int));
	p->dep = xcalloc(Q, sizeof(int));
	p->ind = xcalloc(Q, sizeof(int));
	p->dropped = xcalloc(M, sizeof(int));
	p->rp_ = xcalloc(M, sizeof(int));
	p->cp_ = xcalloc(Q, sizeof(int));
	p->LU = xcalloc(Q * Q, sizeof(double));
	p->ipiv = xcalloc(Q, sizeof(int));
	p->iwork = xcalloc(Q, sizeof(int));
	p->work = xcalloc(4 * Q, sizeof(double));
	p->ode.ctx = p;
	p->ode.rhs = rp_rhs;
	p->ode.accept = rp_accept;
	p->ode.start = rp_start;
	p->ode.bodies = rp_bodies;
	p->ode.why = rp_why;
	return p;
}

void rp_free(struct rp **pp)
{
	struct rp *p = *pp;
	if (!p)
		return;
	free(p->qo);
	free(p->erow);
	free(p->q);
	free(p->qd);
	free(p->qdd);
	ra_state_release(&p->x);
	free(p->W);
	free(p->F);
	free(p->g);
	free(p->P);
	free(p->E);
	free(p->nu);
	free(p->res);
	free(p->du);
	free(p->rows);
	free(p->dep);
	free(p->ind);
	free(p->dropped);
	free(p->rp_);
	free(p->cp_);
	free(p->LU);
	free(p->ipiv);
	free(p->iwork);
	free(p->work);
	free(p);
	*pp = NULL;
}

struct ode_sys *rp_ode(struct rp *p)
{
	return &p->ode;
}

long rp_repartitions(const struct rp *p)
{
	return p->repart;
}

int rp_ncoords(const struct rp *p)
{
	return p->nq;
}

int rp_independent(const struct rp *p, int *out)
{
	for (int j = 0; j < p->n; j++) {
		int c = p->ind[j], b = 0;
		while (b + 1 < p->nb && p->qo[b + 1] <= c)
			b++;
		out[j] = 7 * b + (c - p->qo[b]);
	}
	return p->n;
}

int rp_redundant(const struct rp *p, int *rows)
{
	int n = 0;
	for (int i = 0; i < p->ndropped; i++)
		if (p->dropped[i] < p->nc)
			rows[n++] = p->dropped[i];
	return n;
}
