/* rp.c - Euler parameters with generalized coordinate partitioning, as an
 * ODE in the independent coordinates (rp.h; seed 001 §1). */
#include "rp.h"
#include "../la/kkt.h"
#include "../la/klu_refac.h"
#include "../la/lapack.h"
#include "../util/vec.h"
#include "../util/xalloc.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <klu.h>

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
	/* Phi_q at the current positions, by rows: model row k's values
	 * d/d(r, e) of body bi[k] at V[14 k .. 14 k + 6], of bj[k] at
	 * V[14 k + 7 ..]; body b's normalization row's d/de at V[14 nc + 4 b
	 * ..]; nu (m) */
	double *V, *nu;
	double *P;		/* m x nq dense, column-major: for partitioning only */
	/* partition */
	int r, n;		/* kept rows = dependent coordinates; independent coordinates */
	int *rows, *dep, *ind;	/* r, r, n */
	int *rowpos;		/* m: position of a row among rows, or -1 */
	int *colpos;		/* nq: dep position (>= 0) or -1 - ind position */
	int *dropped, ndropped;	/* rows left out (redundant) */
	/* Phi_u in compressed columns (KLU), values V[usrc[e]]; Phi_v by
	 * kept rows: entries vptr[i] .. vptr[i+1] - 1 at column vcol, V[vsrc] */
	int *Ap, *Ai, *usrc, *vptr, *vcol, *vsrc, *iwork;
	double *Ax;
	klu_common kc;
	klu_symbolic *sym;
	klu_numeric *num;
	double cond, cond0;	/* of Phi_u now (NAN: not yet estimated) and at the partition */
	int factored;		/* num is the factorization of Phi_u at q */
	long repart;
	double *res, *du, *E;	/* scratch: m, m + nq, m x nq */
	int *rp_, *cp_;		/* scratch of the pivoted QR: m, nq */
	double *tau, *qwork;	/* its scalar factors (m + nq) and workspace */
	int nwork;
	/* the positions of the last f call (rp_rhs) */
	int pos_ok;
	double pos_t, *pos_y;
	double *q_good;		/* q of the last f call that succeeded */
	int *scr_ids, *scr_old;	/* scratch, nq each */
	unsigned char *scr_dep;
	double *plog;		/* per partition: time, then the n independent coordinates */
	int nlog, caplog;
	char why[600];
	/* analytic Jacobians (rp_jac) */
	int lin_ok;		/* every force element has one, no particles */
	struct rp_lin *lin;
	int last_ok;		/* the last f call succeeded at pos_t, pos_y and last_yd */
	double *last_yd;
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

/* Positions of q into the body state p->x. */
static void to_bodies(struct rp *p, const double *q)
{
	for (int b = 0; b < p->nb; b++) {
		const double *qb = q + p->qo[b];
		v3_copy(p->x.r + 3 * b, qb);
		if (!rigid(p, b))
			continue;
		double e[4], n = sqrt(qb[3] * qb[3] + qb[4] * qb[4] + qb[5] * qb[5] + qb[6] * qb[6]);
		for (int i = 0; i < 4; i++)
			e[i] = qb[3 + i] / n;
		quat_to_mat(p->x.A + 9 * b, e);
	}
}

/* Velocities q-dot (at positions q, already in p->x) into p->x. */
static void vel_to_bodies(struct rp *p, const double *q, const double *qd)
{
	for (int b = 0; b < p->nb; b++) {
		const double *qdb = qd + p->qo[b];
		v3_copy(p->x.v + 3 * b, qdb);
		if (!rigid(p, b))
			continue;
		double G[12];
		gmat(q + p->qo[b] + 3, G);
		for (int a = 0; a < 3; a++)
			p->x.w[3 * b + a] = 2.0 * (G[4 * a] * qdb[3] + G[4 * a + 1] * qdb[4] +
						   G[4 * a + 2] * qdb[5] + G[4 * a + 3] * qdb[6]);
	}
}

/* The values of one side of row k: d/dr (3) and d/dtheta (3) of body b,
 * turned into d/de = 2 (d/dtheta) G(e), into v (7). */
static void side_vals(const struct rp *p, int b, const double *J6, double *v)
{
	if (b < 0)
		return;
	v3_copy(v, J6);
	if (!rigid(p, b))
		return;
	double G[12];
	gmat(p->q + p->qo[b] + 3, G);
	for (int i = 0; i < 4; i++)
		v[3 + i] = 2.0 * (J6[3] * G[i] + J6[4] * G[4 + i] + J6[5] * G[8 + i]);
}

/* Phi_q and nu at p->q (ra_eval of Jacobian and nu at p->x done). */
static void jac_q(struct rp *p)
{
	const struct ra *s = p->s;
	for (int k = 0; k < p->nc; k++) {
		side_vals(p, s->bi[k], s->jac + s->jo[k], p->V + 14 * (size_t)k);
		side_vals(p, s->bj[k], s->jac + s->jo[k] + 6, p->V + 14 * (size_t)k + 7);
		p->nu[k] = s->nu[k];
	}
	for (int b = 0; b < p->nb; b++) {
		if (!rigid(p, b))
			continue;
		double *v = p->V + 14 * (size_t)p->nc + 4 * (size_t)b;
		for (int i = 0; i < 4; i++)
			v[i] = 2.0 * p->q[p->qo[b] + 3 + i];
		p->nu[p->erow[b]] = 0.0;
	}
	p->factored = 0;
}

/* The structural entries of row k: their coordinates and value offsets
 * in V; returns the count (at most 14). */
static int row_entries(const struct rp *p, int k, int *col, int *src)
{
	int c = 0;
	if (k >= p->nc) {
		int b = 0;
		while (p->erow[b] != k)
			b++;
		for (int i = 0; i < 4; i++) {
			col[c] = p->qo[b] + 3 + i;
			src[c++] = 14 * p->nc + 4 * b + i;
		}
		return c;
	}
	for (int side = 0; side < 2; side++) {
		int b = side ? p->s->bj[k] : p->s->bi[k];
		if (b < 0)
			continue;
		for (int i = 0; i < (rigid(p, b) ? 7 : 3); i++) {
			col[c] = p->qo[b] + i;
			src[c++] = 14 * k + 7 * side + i;
		}
	}
	return c;
}

/* The dense Phi_q of the values in V, for partitioning. */
static void dense_P(struct rp *p)
{
	int col[14], src[14];
	memset(p->P, 0, (size_t)p->m * (size_t)p->nq * sizeof(double));
	for (int k = 0; k < p->m; k++) {
		int ne = row_entries(p, k, col, src);
		for (int e = 0; e < ne; e++)
			p->P[(size_t)col[e] * p->m + k] += p->V[src[e]];
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

/* The rank-revealing column-pivoted QR (LAPACK dgeqp3) of the dense
 * column-major a (rows x cols, leading dimension rows): the pivot order
 * into piv (0-based), the rank (|R_ii| above RP_RANK_TOL |R_00|) returned.
 * tau: min(rows, cols); work: the workspace query's size. */
static int qr_pivot(struct rp *p, double *a, int rows, int cols, int *piv)
{
	int info = 0, lw = -1;
	double q = 0.0;
	for (int j = 0; j < cols; j++)
		piv[j] = 0;
	if (rows == 0 || cols == 0)
		return 0;
	dgeqp3_(&rows, &cols, a, &rows, piv, p->tau, &q, &lw, &info);
	lw = (int)q;
	if (lw > p->nwork) {
		free(p->qwork);
		p->qwork = xmalloc((size_t)lw * sizeof(double));
		p->nwork = lw;
	}
	dgeqp3_(&rows, &cols, a, &rows, piv, p->tau, p->qwork, &lw, &info);
	int k = rows < cols ? rows : cols, r = 0;
	double r0 = fabs(a[0]);
	while (r < k && fabs(a[(size_t)r * rows + r]) > RP_RANK_TOL * r0)
		r++;
	for (int j = 0; j < cols; j++)
		piv[j]--;
	return r0 > 0 ? r : 0;
}

/* The partition of seed 001 §1 by two column-pivoted QR factorizations
 * (rather than the seed's LU with complete pivoting; why: rp.h): of
 * Phi_q^T, whose first r pivots are the rows kept (the others are
 * redundant), and of those rows of Phi_q, whose first r pivot columns are
 * the dependent coordinates u.  Returns the rank r. */
static int partition(struct rp *p, int rwant)
{
	int m = p->m, nq = p->nq;
	double *E = p->E;
	dense_P(p);
	for (int k = 0; k < m; k++)	/* E = Phi_q^T, nq x m */
		for (int c = 0; c < nq; c++)
			E[(size_t)k * nq + c] = p->P[(size_t)c * m + k];
	int *rp_ = p->rp_, *cp_ = p->cp_;
	int r = qr_pivot(p, E, nq, m, rp_), rtol = r;
	/* a new partition keeps the rank of the first: near a singular
	 * position, where a pivot falls below the tolerance, the rows and
	 * columns of the largest pivots still make the best-conditioned
	 * Phi_u, and the step goes on through it while that is regular */
	if (rwant >= 0)
		r = rwant;
	for (int i = 0; i < r; i++)
		p->rows[i] = rp_[i];
	for (int c = 0; c < nq; c++)	/* E = Phi_q[rows, :], r x nq */
		for (int i = 0; i < r; i++)
			E[(size_t)c * r + i] = p->P[(size_t)c * m + p->rows[i]];
	int r2 = qr_pivot(p, E, r, nq, cp_);
	if (r2 < r && rwant < 0)
		r = r2;
	p->ndropped = 0;
	for (int i = rtol; i < r; i++)	/* below the tolerance, kept (named on failure) */
		p->dropped[p->ndropped++] = rp_[i];
	p->r = r;
	p->n = nq - r;
	for (int i = 0; i < r; i++)
		p->dep[i] = cp_[i];
	/* independent coordinates in increasing order: the seed's v */
	unsigned char *isdep = p->scr_dep;
	memset(isdep, 0, (size_t)nq);
	for (int i = 0; i < r; i++)
		isdep[p->dep[i]] = 1;
	int c = 0;
	for (int j = 0; j < nq; j++)
		if (!isdep[j])
			p->ind[c++] = j;
	if (rwant < 0)
		for (int i = r; i < m; i++)
			p->dropped[p->ndropped++] = rp_[i];
	return r;
}

/* The sparse structures of Phi_u and Phi_v of the partition, and KLU's
 * symbolic analysis of Phi_u.  0, or -1 when KLU refuses. */
static int build_sparse(struct rp *p)
{
	int m = p->m, r = p->r, col[14], src[14];
	for (int k = 0; k < m; k++)
		p->rowpos[k] = -1;
	for (int i = 0; i < r; i++)
		p->rowpos[p->rows[i]] = i;
	for (int i = 0; i < r; i++)
		p->colpos[p->dep[i]] = i;
	for (int j = 0; j < p->n; j++)
		p->colpos[p->ind[j]] = -1 - j;
	/* count per dep column, and the Phi_v rows */
	memset(p->Ap, 0, ((size_t)r + 1) * sizeof(int));
	int nv = 0;
	p->vptr[0] = 0;
	for (int i = 0; i < r; i++) {
		int ne = row_entries(p, p->rows[i], col, src);
		for (int e = 0; e < ne; e++) {
			int cp = p->colpos[col[e]];
			if (cp >= 0) {
				p->Ap[cp + 1]++;
			} else {
				p->vcol[nv] = -1 - cp;
				p->vsrc[nv++] = src[e];
			}
		}
		p->vptr[i + 1] = nv;
	}
	for (int j = 0; j < r; j++)
		p->Ap[j + 1] += p->Ap[j];
	int *next = p->iwork;
	memcpy(next, p->Ap, (size_t)r * sizeof(int));
	for (int i = 0; i < r; i++) {
		int ne = row_entries(p, p->rows[i], col, src);
		for (int e = 0; e < ne; e++) {
			int cp = p->colpos[col[e]];
			if (cp < 0)
				continue;
			p->Ai[next[cp]] = i;
			p->usrc[next[cp]++] = src[e];
		}
	}
	if (p->num)
		klu_free_numeric(&p->num, &p->kc);
	if (p->sym)
		klu_free_symbolic(&p->sym, &p->kc);
	p->factored = 0;
	if (r == 0)
		return 0;
	p->sym = klu_analyze(r, p->Ap, p->Ai, &p->kc);
	return p->sym ? 0 : -1;
}

/* Phi_u factored (KLU) at the values in V; 0 or -1 singular. */
static int factor_u(struct rp *p)
{
	int r = p->r;
	p->cond = NAN;
	if (r == 0) {
		p->factored = 1;
		p->cond = 1.0;
		return 0;
	}
	int nz = p->Ap[r];
	for (int e = 0; e < nz; e++)
		p->Ax[e] = p->V[p->usrc[e]];
	/* the pivot order of the partition's first factorization, while it
	 * holds up (la/klu_refac.h) */
	if (la_klu_refactor(p->Ap, p->Ai, p->Ax, p->sym, &p->num, &p->kc)) {
		p->factored = 0;
		p->cond = INFINITY;
		return -1;
	}
	p->factored = 1;
	return 0;
}

/* The condition number of Phi_u (1-norm estimate, KLU's Hager-Higham
 * estimator as LAPACK's dgecon) of the current factorization. */
static double cond_u(struct rp *p)
{
	if (isnan(p->cond)) {
		if (p->r == 0 || !p->factored)
			p->cond = p->r == 0 ? 1.0 : INFINITY;
		else if (klu_condest(p->Ap, p->Ax, p->sym, p->num, &p->kc))
			p->cond = p->kc.condest;
		else
			p->cond = INFINITY;
	}
	return p->cond;
}

static void solve_u(struct rp *p, double *b)
{
	if (p->r > 0)
		klu_solve(p->sym, p->num, p->r, 1, b, &p->kc);
}

/* b[i] = Phi_v x over the kept rows (x: the n independent coordinates) */
static void mul_v(const struct rp *p, const double *x, double *b)
{
	for (int i = 0; i < p->r; i++) {
		double s = 0.0;
		for (int e = p->vptr[i]; e < p->vptr[i + 1]; e++)
			s += p->V[p->vsrc[e]] * x[p->vcol[e]];
		b[i] = s;
	}
}

/* b = Phi_u x (x over the r dependent coordinates) */
static void mul_u(const struct rp *p, const double *x, double *b)
{
	memset(b, 0, (size_t)p->r * sizeof(double));
	for (int j = 0; j < p->r; j++)
		for (int e = p->Ap[j]; e < p->Ap[j + 1]; e++)
			b[p->Ai[e]] += p->V[p->usrc[e]] * x[j];
}

static void eval_jac(struct rp *p, double t)
{
	to_bodies(p, p->q);
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
	double last = INFINITY, umax = 0.0;
	int done = 0;
	for (int i = 0; i < r; i++)
		umax = fmax(umax, fabs(p->q[p->dep[i]]));
	for (int it = 0; it < p->maxit + 1; it++) {
		to_bodies(p, p->q);
		ra_eval(p->s, &p->x, t, PRIM_PHI);
		phi_q(p);
		double nrm = 0.0;
		for (int i = 0; i < r; i++)
			du[i] = p->res[p->rows[i]];
		if (!p->factored) {
			eval_jac(p, t);
			if (factor_u(p)) {
				snprintf(p->why, sizeof p->why, "Phi_u singular at a Newton iterate of "
					 "the dependent coordinates");
				return ODE_SINGULAR;
			}
		}
		solve_u(p, du);
		for (int i = 0; i < r; i++) {
			if (!isfinite(du[i]))
				return ODE_NONFINITE;
			p->q[p->dep[i]] -= du[i];
			nrm = fmax(nrm, fabs(du[i]));
		}
		/* converged: one more correction (cheap, the factorization
		 * is made) takes the error from about tol times the
		 * contraction to round-off, so that f is a smooth function of
		 * y to far below tol (its differences give J1) and the
		 * position residual is at round-off */
		if (nrm <= p->tol && (done || nrm <= 1e-15 * (1.0 + umax)))
			return ODE_OK;
		done = nrm <= p->tol;
		/* a stale factorization that does not contract: refresh */
		if (nrm > 0.25 * last)
			p->factored = 0;
		last = nrm;
	}
	int worst = p->rows[0];
	for (int i = 1; i < r; i++)
		if (!(fabs(p->res[p->rows[i]]) <= fabs(p->res[worst])))
			worst = p->rows[i];
	char nm[200] = "";
	if (r > 0)
		row_name(p, worst, nm, sizeof nm);
	snprintf(p->why, sizeof p->why, "the dependent coordinates did not converge in %d Newton "
		 "iterations (last correction %.3g > integrator.tolerance %g; largest residual "
		 "%.3g in %s)", p->maxit, last, p->tol, r > 0 ? p->res[worst] : 0.0, nm);
	return ODE_NEWTON_FAIL;
}

/* Everything at (t, q) once positions are solved: Phi_q, Phi_u factored,
 * u-dot (eq. 7d), the accelerations; y'' into ydd when not NULL. */
static int finish(struct rp *p, double t, const double *yd, double *ydd, int same)
{
	int r = p->r;
	if (!same) {
		eval_jac(p, t);
		if (factor_u(p)) {
			snprintf(p->why, sizeof p->why, "the dependent constraint Jacobian Phi_u is "
				 "singular: no valid partition of the coordinates here");
			return ODE_SINGULAR;
		}
	}
	double *b = p->du, *corr = p->du + r;
	mul_v(p, yd, b);
	for (int i = 0; i < r; i++)
		b[i] = p->nu[p->rows[i]] - b[i];
	memcpy(p->res, b, (size_t)r * sizeof(double));
	solve_u(p, b);
	/* one step of iterative refinement (the factorization may be of the
	 * partition's first pivot order): the 32-link chain's velocity
	 * residual went from 7e-9 to 3e-14 */
	mul_u(p, b, corr);
	for (int i = 0; i < r; i++)
		corr[i] = p->res[i] - corr[i];
	solve_u(p, corr);
	for (int i = 0; i < r; i++)
		b[i] += corr[i];
	for (int j = 0; j < p->n; j++)
		p->qd[p->ind[j]] = yd[j];
	for (int i = 0; i < r; i++)
		p->qd[p->dep[i]] = b[i];
	vel_to_bodies(p, p->q, p->qd);	/* positions: eval_jac's, or the last call's */
	p->x.t = t;
	/* the Jacobian in s is of these positions (eval_jac, or the last
	 * call's when same): gamma at the velocities, and the saddle-point
	 * factorization unless the positions are the last call's */
	ra_eval(p->s, &p->x, t, PRIM_GAMMA);
	if (!same && ra_accel_factor_jac(p->s, p->k, p->W)) {
		p->pos_ok = 0;
		snprintf(p->why, sizeof p->why, "the acceleration solve is singular");
		return ODE_SINGULAR;
	}
	ra_accel_solve(p->s, p->k, p->F, p->g, &p->x);
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
	/* positions as at the last call (a column of J2, a stage at the
	 * step's start): the dependent coordinates, Phi_q and both
	 * factorizations stand */
	int same = p->pos_ok && t == p->pos_t &&
		   memcmp(y, p->pos_y, (size_t)p->n * sizeof(double)) == 0;
	int st = same ? ODE_OK : solve_positions(p, t, y);
	if (st == ODE_OK)
		st = finish(p, t, yd, ydd, same);
	if (st) {
		/* a trial point out of reach (a step too long): the next call
		 * starts from the last configuration solved */
		p->last_ok = 0;
		p->pos_ok = 0;
		p->factored = 0;
		memcpy(p->q, p->q_good, (size_t)p->nq * sizeof(double));
		return st;
	}
	if (!same) {
		p->pos_ok = 1;
		p->pos_t = t;
		memcpy(p->pos_y, y, (size_t)p->n * sizeof(double));
		memcpy(p->q_good, p->q, (size_t)p->nq * sizeof(double));
	}
	memcpy(p->last_yd, yd, (size_t)p->n * sizeof(double));
	p->last_ok = 1;
	return ODE_OK;
}

/* ---- analytic integration Jacobians (seed 001 §3, eqs. 26-35) ----
 *
 * J1 = d vddot / d v and J2 = d vddot / d vdot by differentiating, column
 * by column, every step of f at the state of the last f call:
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
 * Each column costs two solves with Phi_u's factors and one with kkt's;
 * no f is evaluated.  Available when every force element has an analytic
 * Jacobian (ra_force_has_lin) and there are no particles. */

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
	int npair, *pb, *rowpair, *fpair;
	double *Kp, *Cp;
	double *Gy;			/* per body: d(-w x J w)/dw, 3 x 3 row-major */
	int *ob, *oo;			/* per independent coordinate: body, offset in it */
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

static int rp_lin_ok(const struct rp *p)
{
	const struct model *m = p->s->m;
	for (int b = 0; b < p->nb; b++)
		if (!rigid(p, b))
			return 0;
	for (int i = 0; i < m->nforces; i++)
		if (!ra_force_has_lin(&m->forces[i]))
			return 0;
	return 1;
}

static void lin_free(struct rp_lin **pl)
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
	free(L->ob);
	free(L->oo);
	free(L);
	*pl = NULL;
}

static struct rp_lin *lin_get(struct rp *p)
{
	if (p->lin && p->lin->n == p->n && p->lin->r == p->r)
		return p->lin;
	lin_free(&p->lin);
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
	L->ob = xcalloc(n, sizeof(int));
	L->oo = xcalloc(n, sizeof(int));
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

/* y[0 .. n) += a x[0 .. n), x and y apart; by fours, which GCC's -O2
 * turns into pairs of vector operations (a loop of unknown length it
 * leaves scalar) */
static void axpy(int n, double a, const double *restrict x, double *restrict y)
{
	int c = 0;
	for (; c + 4 <= n; c += 4) {
		y[c] += a * x[c];
		y[c + 1] += a * x[c + 1];
		y[c + 2] += a * x[c + 2];
		y[c + 3] += a * x[c + 3];
	}
	for (; c < n; c++)
		y[c] += a * x[c];
}

/* The per-row, per-element and per-body coefficients at the current
 * configuration (prim_lin, ra_force_lin); 1 when an element fails. */
static int lin_coef(struct rp *p, struct rp_lin *L, double t)
{
	struct ra *s = p->s;
	const struct model *m = s->m;
	const struct ra_state *x = &p->x;
	struct prim P[MODEL_JOINT_ROWS_MAX];
	if (L->npair == 0) {	/* the pairs, once */
		for (int k = 0; k < p->nc; k++)
			L->rowpair[k] = pair_of(L, s->bi[k], s->bj[k]);
		for (int i = 0; i < m->nforces; i++) {
			int fb[2];
			if (ra_force_lin(s, x, t, i, fb, L->K, L->C))
				return 1;
			L->fpair[i] = pair_of(L, fb[0], fb[1]);
		}
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
		for (int i = 0; i < np; i++) {
			struct bstate bi, bj;
			struct prim_lin o;
			ra_bstate(x, pr[i].bi, &bi);
			ra_bstate(x, pr[i].bj, &bj);
			prim_lin(&pr[i], &bi, &bj, t, &o);
			int k = k0 + i;
			double lam = x->lam[k], *Kp = L->Kp + 144 * (size_t)L->rowpair[k];
			memcpy(L->gd + 12 * (size_t)k, o.gd, sizeof o.gd);
			memcpy(L->jl + 12 * (size_t)k, o.J, sizeof o.J);
			if (lam != 0.0)
				for (int e = 0; e < 144; e++)
					Kp[e] -= lam * o.H[e];
			/* zdot^T H dz and zddot^T H dz as dot products with dz */
			double zd[12], zdd[12];
			for (int side = 0; side < 2; side++) {
				int b2 = side ? pr[i].bj : pr[i].bi;
				for (int a = 0; a < 3; a++) {
					zd[6 * side + a] = b2 >= 0 ? x->v[3 * b2 + a] : 0.0;
					zd[6 * side + 3 + a] = b2 >= 0 ? x->w[3 * b2 + a] : 0.0;
					zdd[6 * side + a] = b2 >= 0 ? x->a[3 * b2 + a] : 0.0;
					zdd[6 * side + 3 + a] = b2 >= 0 ? x->wd[3 * b2 + a] : 0.0;
				}
			}
			double *cz = L->cz + 12 * (size_t)k, *gzh = L->gzh + 12 * (size_t)k;
			for (int c = 0; c < 12; c++) {
				double u = 0.0, w = 0.0;
				for (int a = 0; a < 12; a++) {
					u += zd[a] * o.H[12 * a + c];
					w += zdd[a] * o.H[12 * a + c];
				}
				cz[c] = o.nz[c] - u;
				gzh[c] = o.gz[c] - w;
			}
		}
	}
	for (int i = 0; i < m->nforces; i++) {
		const double *K = L->K + 144 * (size_t)i, *C = L->C + 144 * (size_t)i;
		double *Kp = L->Kp + 144 * (size_t)L->fpair[i], *Cp = L->Cp + 144 * (size_t)L->fpair[i];
		if (ra_force_lin(s, x, t, i, L->fb + 2 * i, L->K + 144 * (size_t)i,
				 L->C + 144 * (size_t)i))
			return 1;
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
	for (int i = 0; i < p->n; i++) {
		int c = p->ind[i], b = 0;
		while (b + 1 < p->nb && p->qo[b + 1] <= c)
			b++;
		L->ob[i] = b;
		L->oo[i] = c - p->qo[b];
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
				axpy(n, 2.0 * G[4 * a + i], q1 + (size_t)(3 + i) * n, zt);
				axpy(n, -2.0 * Gd[4 * a + i], q1 + (size_t)(3 + i) * n, we);
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
					axpy(n, cz[a], L->dz + (6 * (size_t)b2 + l) * n, v);
				if (l >= 3 && jl[a] != 0.0)
					axpy(n, -jl[a], L->dwe + (3 * (size_t)b2 + l - 3) * n, v);
			}
		} else {
			int b = 0;
			while (p->erow[b] != k)
				b++;
			const double *ed = p->qd + p->qo[b] + 3;
			for (int e = 0; e < 4; e++)
				axpy(n, -2.0 * ed[e], L->Q1 + (size_t)(p->qo[b] + 3 + e) * n, v);
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
				axpy(n, 2.0 * G[4 * (a - 3) + i], q2 + (size_t)(3 + i) * n, zd);
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
					axpy(n2, C[12 * a + c], L->dzd + z * n2, out);
				if (K[12 * a + c] != 0.0)
					axpy(n, K[12 * a + c], L->dz + z * n, out);
			}
		}
	}
	for (int b = 0; b < p->nb; b++)
		for (int a = 0; a < 3; a++)
			for (int i = 0; i < 3; i++)
				axpy(n2, L->Gy[9 * b + 3 * a + i], L->dzd + (6 * (size_t)b + 3 + i) * n2,
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
				axpy(n, gzh[a], L->dz + z * n, rb);
			if (gd[a] != 0.0)
				axpy(n2, gd[a], L->dzd + z * n2, rb);
		}
	}
}

static int rp_jac(void *ctx, double t, const double *y, const double *yd, double *J1,
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
	for (int c = 0; c < n2; c++) {
		int pos = c < n, jj = pos ? c : c - n;
		/* dv-ddot: r-ddot's rows of xa, or e-ddot's = G(de)^T w-dot / 2
		 * + G(e)^T dw-dot / 2 - (w . dw) e / 2 - |w|^2 de / 4 */
		double *Jc = (pos ? J1 : J2) + (size_t)jj * n;
		for (int i = 0; i < n; i++) {
			int b = L->ob[i], o = L->oo[i];
			if (o < 3) {
				Jc[i] = L->xa[(6 * (size_t)b + o) * n2 + c];
				continue;
			}
			int qe = p->qo[b] + 3, ie = o - 3;
			const double *e = p->q + qe, *w = x->w + 3 * b, *wd = x->wd + 3 * b;
			double de[4], dw[3], dwd[3], G[12], Gde[12];
			for (int a = 0; a < 4; a++)
				de[a] = pos ? L->Q1[(size_t)(qe + a) * n + c] : 0.0;
			for (int a = 0; a < 3; a++) {
				dw[a] = L->dzd[(6 * (size_t)b + 3 + a) * n2 + c];
				dwd[a] = L->xa[(6 * (size_t)b + 3 + a) * n2 + c];
			}
			gmat(e, G);
			gmat(de, Gde);
			double u1 = Gde[ie] * wd[0] + Gde[4 + ie] * wd[1] + Gde[8 + ie] * wd[2];
			double u2 = G[ie] * dwd[0] + G[4 + ie] * dwd[1] + G[8 + ie] * dwd[2];
			Jc[i] = 0.5 * (u1 + u2) - 0.5 * v3_dot(w, dw) * e[ie] -
				0.25 * v3_dot(w, w) * de[ie];
		}
	}
	return 0;
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
	p->pos_ok = 0;
	partition(p, nwant >= 0 ? p->nq - nwant : -1);
	if (build_sparse(p)) {
		snprintf(p->why, sizeof p->why, "KLU could not analyse Phi_u");
		return ODE_SINGULAR;
	}
	if (factor_u(p)) {
		snprintf(p->why, sizeof p->why, "singular position: no %d of the coordinates make a "
			 "regular Phi_u here (Phi_q has lost rank); rows dependent at the pivoting's "
			 "tolerance:", p->r);
		name_dropped(p, "");
		return ODE_SINGULAR;
	}
	p->cond0 = cond_u(p);
	if (nwant >= 0 && !(p->cond0 <= RP_COND_MAX)) {
		/* the best partition is as bad as none: the motion has reached
		 * a singular position (the double four-bar's, crossed at too
		 * large a step, left rp on a degenerate branch at cond 1e9
		 * with 4 J of energy lost) */
		char nm[200] = "";
		if (p->r > 0)	/* the row of the smallest pivot */
			row_name(p, p->rows[p->r - 1], nm, sizeof nm);
		snprintf(p->why, sizeof p->why, "singular position: the best partition of the "
			 "coordinates leaves Phi_u with condition number %.3g (> %g); the row "
			 "closest to dependence: %s", p->cond0, RP_COND_MAX, nm);
		return ODE_SINGULAR;
	}
	if (p->nlog == p->caplog) {
		p->caplog = p->caplog ? 2 * p->caplog : 8;
		p->plog = xrealloc(p->plog, (size_t)p->caplog * (size_t)(p->nq + 1) * sizeof(double));
	}
	double *row = p->plog + (size_t)p->nlog++ * (size_t)(p->n + 1);
	row[0] = p->x.t;
	int *ids = p->scr_ids;
	rp_independent(p, ids);
	for (int j = 0; j < p->n; j++)
		row[1 + j] = ids[j];
	return ODE_OK;
}

static int rp_want_new(void *ctx)
{
	struct rp *p = ctx;

	return !(cond_u(p) <= RP_COND_GROWTH * p->cond0);
}

static int rp_accept(void *ctx, double t, double *y, double *yd)
{
	struct rp *p = ctx;
	if (!rp_want_new(p))
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

static int rp_renew(void *ctx, double t, double *y, double *yd, double *ydd)
{
	struct rp *p = ctx;
	int st = rp_rhs(p, t, y, yd, ydd);
	if (st)
		return -st;
	int *old = p->scr_old;
	memcpy(old, p->ind, (size_t)p->n * sizeof(int));
	if ((st = repartition(p, p->n)))
		return -st;
	if (memcmp(old, p->ind, (size_t)p->n * sizeof(int)) == 0)
		return 0;
	p->repart++;
	for (int j = 0; j < p->n; j++) {
		y[j] = p->q[p->ind[j]];
		yd[j] = p->qd[p->ind[j]];
		ydd[j] = p->qdd[p->ind[j]];
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
	memcpy(p->q_good, p->q, (size_t)p->nq * sizeof(double));
	p->x.t = x->t;
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
	p->pos_y = xcalloc(Q, sizeof(double));
	p->q_good = xcalloc(Q, sizeof(double));
	p->qd = xcalloc(Q, sizeof(double));
	p->qdd = xcalloc(Q, sizeof(double));
	ra_state_init(s, &p->x);
	p->W = xcalloc(18 * (size_t)p->nb + 1, sizeof(double));
	p->F = xcalloc(6 * (size_t)p->nb + 1, sizeof(double));
	p->g = xcalloc(6 * (size_t)p->nb + 1, sizeof(double));
	p->V = xcalloc(14 * (size_t)p->nc + 4 * (size_t)p->nb + 1, sizeof(double));
	p->P = xcalloc(M * Q, sizeof(double));
	p->E = xcalloc(M * Q, sizeof(double));
	p->nu = xcalloc(M, sizeof(double));
	p->res = xcalloc(M, sizeof(double));
	p->du = xcalloc(M + Q, sizeof(double));
	p->rows = xcalloc(M, sizeof(int));
	p->dep = xcalloc(Q, sizeof(int));
	p->ind = xcalloc(Q, sizeof(int));
	p->dropped = xcalloc(M, sizeof(int));
	p->rp_ = xcalloc(M + Q, sizeof(int));
	p->cp_ = xcalloc(M + Q, sizeof(int));
	p->tau = xcalloc(M + Q, sizeof(double));
	p->rowpos = xcalloc(M, sizeof(int));
	p->colpos = xcalloc(Q, sizeof(int));
	p->Ap = xcalloc(M + 1, sizeof(int));
	p->vptr = xcalloc(M + 1, sizeof(int));
	p->Ai = xcalloc(14 * M, sizeof(int));
	p->usrc = xcalloc(14 * M, sizeof(int));
	p->vcol = xcalloc(14 * M, sizeof(int));
	p->vsrc = xcalloc(14 * M, sizeof(int));
	p->Ax = xcalloc(14 * M, sizeof(double));
	p->iwork = xcalloc(M + 1, sizeof(int));
	p->scr_ids = xcalloc(Q, sizeof(int));
	p->scr_old = xcalloc(Q, sizeof(int));
	p->scr_dep = xcalloc(Q, 1);
	klu_defaults(&p->kc);
	p->cond = NAN;
	p->ode.ctx = p;
	p->ode.rhs = rp_rhs;
	p->ode.accept = rp_accept;
	p->ode.want_new = rp_want_new;
	p->ode.renew = rp_renew;
	p->ode.start = rp_start;
	p->ode.bodies = rp_bodies;
	p->ode.why = rp_why;
	p->lin_ok = rp_lin_ok(p);
	p->ode.jac = p->lin_ok ? rp_jac : NULL;
	/* under lin_ok the elements are TSDAs and RSDAs without expressions,
	 * point forces and torques (a function or an expression of time),
	 * and tires (roads of x, y): time enters through drivers, functions
	 * and those expressions alone */
	p->ode.autonomous = p->lin_ok;
	for (int d = 0; d < md->ndrivers; d++)
		if (md->dprims[d].f && md->dprims[d].f->type != FUNC_CONSTANT)
			p->ode.autonomous = 0;
	for (int i = 0; i < md->nforces; i++)
		if (md->forces[i].has_act || (md->forces[i].ex && md->forces[i].type != FORCE_TIRE))
			p->ode.autonomous = 0;
	p->last_yd = xcalloc(Q, sizeof(double));
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
	free(p->pos_y);
	free(p->q_good);
	free(p->plog);
	free(p->scr_ids);
	free(p->scr_old);
	free(p->scr_dep);
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
	free(p->tau);
	free(p->qwork);
	if (p->num)
		klu_free_numeric(&p->num, &p->kc);
	if (p->sym)
		klu_free_symbolic(&p->sym, &p->kc);
	free(p->V);
	free(p->rowpos);
	free(p->colpos);
	free(p->Ap);
	free(p->vptr);
	free(p->Ai);
	free(p->usrc);
	free(p->vcol);
	free(p->vsrc);
	free(p->Ax);
	free(p->iwork);
	free(p->last_yd);
	lin_free(&p->lin);
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

int rp_partition_log(const struct rp *p, double *log)
{
	if (log)
		memcpy(log, p->plog, (size_t)p->nlog * (size_t)(p->n + 1) * sizeof(double));
	return p->nlog;
}
