/* rp.c - Euler parameters with generalized coordinate partitioning, as an
 * ODE in the independent coordinates (rp.h; seed 001 §1). */
#include "rp_impl.h"
#include "../elem/elem.h"
#include "../la/kkt.h"
#include "../la/klu_refac.h"
#include "../la/lapack.h"
#include "../util/ckpt.h"
#include "../util/vec.h"
#include "../util/xalloc.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <klu.h>

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
		int b = p->ebody[k - p->nc];
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
		snprintf(buf, n, "the Euler-parameter normalization of body '%s'",
			 m->bodies[p->ebody[k - p->nc]].name);
		return;
	}
	model_row_name(m, k, buf, n);
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
	if (la_klu_refactor_fresh(p->Ap, p->Ai, p->Ax, p->sym, &p->num, &p->kc, &p->fresh)) {
		p->factored = 0;
		p->cond = INFINITY;
		return -1;
	}
	if (p->fresh)
		memcpy(p->Ax_fact, p->Ax, (size_t)nz * sizeof(double));
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

/* |Phi_u^-1|_1 |Phi_q|_1 over the kept rows: how far the partition's
 * pivots have fallen below the constraints' own scale.  The condition
 * number of Phi_u alone misses it where Phi_u is one row per block: a
 * free body's Euler-parameter normalization 2 e_k, whose condition is 1
 * whatever e_k, while e_k turns through zero (a sphere rolling half a
 * turn: its dependent e_0 went to 7e-4 and the position Newton failed). */
static double gain_u(struct rp *p)
{
	double c = cond_u(p);
	if (p->r == 0 || !(c < INFINITY))
		return c;
	double anorm = 0.0, qnorm = 0.0;
	for (int j = 0; j < p->r; j++) {
		double sum = 0.0;
		for (int e = p->Ap[j]; e < p->Ap[j + 1]; e++)
			sum += fabs(p->Ax[e]);
		anorm = fmax(anorm, sum);
	}
	double *col = p->E;	/* scratch (m x nq >= n): free outside partition() */
	memset(col, 0, (size_t)p->n * sizeof(double));
	for (int i = 0; i < p->r; i++)
		for (int e = p->vptr[i]; e < p->vptr[i + 1]; e++)
			col[p->vcol[e]] += fabs(p->V[p->vsrc[e]]);
	for (int j = 0; j < p->n; j++)
		qnorm = fmax(qnorm, col[j]);
	return anorm > 0.0 ? c / anorm * fmax(anorm, qnorm) : INFINITY;
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
	/* from the last accepted configuration, not the last trial point:
	 * a rejected long step's stages may have converged on another
	 * branch of Phi(u, v) = 0 (the double pendulum at atol = rtol =
	 * 1e-3: a bar's dependent Euler parameter of the other sign), and
	 * the shorter retries, started there, stayed on it while the
	 * step's f at its start was of the first; the error estimate then
	 * shrank only as h and a step of 2 ms moved the tip by 0.97 m */
	memcpy(p->q, p->q_acc, (size_t)p->nq * sizeof(double));
	/* predict: u += -Phi_u^-1 Phi_v (v - v_acc), with the last
	 * factorization made */
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
	if (ra_accel_solve(p->s, p->k, p->F, p->g, &p->x)) {
		p->pos_ok = 0;
		snprintf(p->why, sizeof p->why, "the multipliers of the friction forces did not "
			 "converge in the acceleration solve");
		return ODE_NEWTON_FAIL;
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

/* The configuration of the last f call is an accepted state: later
 * position solves start from it. */
static void anchor(struct rp *p)
{
	memcpy(p->q_acc, p->q, (size_t)p->nq * sizeof(double));
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

/* The partition in force from p->x.t into the log (/solver/partitions). */
static void log_partition(struct rp *p)
{
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
	p->gain0 = gain_u(p);
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
	log_partition(p);
	return ODE_OK;
}

static int rp_want_new(void *ctx)
{
	struct rp *p = ctx;

	return !(cond_u(p) <= RP_COND_GROWTH * p->cond0) ||
	       !(gain_u(p) <= RP_GAIN_GROWTH * p->gain0);
}

static int rp_accept(void *ctx, double t, double *y, double *yd)
{
	struct rp *p = ctx;
	anchor(p);
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
	anchor(p);
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
	p->started = 1;
	anchor(p);
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

static const struct ra_state *rp_state(void *ctx)
{
	return &((struct rp *)ctx)->x;
}

static long rp_renewals(void *ctx)
{
	return rp_repartitions(ctx);
}

static const char *rp_why(void *ctx)
{
	return ((struct rp *)ctx)->why;
}

/* Restart: the partition, the coordinates and every cache a later call
 * reads, in one walk (util/ckpt.h); sizes are the model's (m, nq), so
 * that the layout is known before the start.  A load sets up KLU's
 * analysis of the partition and replays the factorization that chose
 * the pivot order (at Ax_fact), then the refactorization in that order
 * (at Ax), so that factor_u refactors as the run uninterrupted; and, when
 * the last call's positions stand (pos_ok), the evaluations at them and
 * the saddle-point factorization, which a call at the same positions
 * (rp_rhs's "same") takes as they are. */
static void rp_ckpt(void *ctx, struct ckpt *c)
{
	struct rp *p = ctx;
	long M = p->m, Q = p->nq, A = 14 * (M + 1);
	ckpt_i(c, &p->started, 1);
	ckpt_i(c, &p->r, 1);
	ckpt_i(c, &p->n, 1);
	ckpt_i(c, p->rows, M);
	ckpt_i(c, p->dep, Q);
	ckpt_i(c, p->ind, Q);
	ckpt_i(c, &p->ndropped, 1);
	ckpt_i(c, p->dropped, M);
	ckpt_d(c, p->q, Q);
	ckpt_d(c, p->qd, Q);
	ckpt_d(c, p->qdd, Q);
	ckpt_d(c, p->q_acc, Q);
	ckpt_d(c, p->q_good, Q);
	ckpt_d(c, p->pos_y, Q);
	ckpt_d(c, p->last_yd, Q);
	ckpt_d(c, &p->pos_t, 1);
	ckpt_i(c, &p->pos_ok, 1);
	ckpt_i(c, &p->last_ok, 1);
	ckpt_d(c, p->V, 14 * (long)p->nc + 4 * (long)p->nb);
	ckpt_d(c, p->nu, M);
	ckpt_d(c, p->Ax, A);
	ckpt_d(c, p->Ax_fact, A);
	ckpt_i(c, &p->fresh, 1);
	ckpt_i(c, &p->factored, 1);
	ckpt_d(c, &p->cond, 1);
	ckpt_d(c, &p->cond0, 1);
	ckpt_d(c, &p->gain0, 1);
	ckpt_l(c, &p->repart, 1);
	ra_state_ckpt(p->s, &p->x, c);
	if (!c->load || c->bad || !p->started)
		return;
	p->ode.n = p->n;
	int factored = p->factored, fresh = p->fresh, pos_ok = p->pos_ok, last_ok = p->last_ok;
	double cond = p->cond;
	struct ra_state keep;
	memset(&keep, 0, sizeof keep);
	ra_state_init(p->s, &keep);
	ra_state_copy(p->s, &keep, &p->x);
	if (build_sparse(p)) {
		p->started = 0;
		ra_state_release(&keep);
		return;
	}
	if (p->r > 0) {
		p->num = klu_factor(p->Ap, p->Ai, p->Ax_fact, p->sym, &p->kc);
		if (p->num && !fresh)
			klu_refactor(p->Ap, p->Ai, p->Ax, p->sym, p->num, &p->kc);
	}
	if (pos_ok) {
		/* the evaluations of the last call at its positions (finish
		 * with its Jacobian values, which V holds) */
		to_bodies(p, p->q);
		ra_eval(p->s, &p->x, p->pos_t, PRIM_JAC | PRIM_NU);
		vel_to_bodies(p, p->q, p->qd);
		p->x.t = p->pos_t;
		ra_eval(p->s, &p->x, p->pos_t, PRIM_GAMMA);
		if (!ra_accel_factor_jac(p->s, p->k, p->W))
			ra_accel_solve(p->s, p->k, p->F, p->g, &p->x);
	}
	ra_state_copy(p->s, &p->x, &keep);
	ra_state_release(&keep);
	log_partition(p);	/* the restarted file's first: the one in force */
	p->factored = factored && (p->num || p->r == 0);
	p->fresh = fresh;
	p->cond = cond;
	p->pos_ok = pos_ok;
	p->last_ok = last_ok;
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
	p->ebody = xmalloc(((size_t)p->nb + 1) * sizeof(int));
	int nq = 0, m = s->nc;
	for (int b = 0; b < p->nb; b++) {
		p->qo[b] = nq;
		int rig = md->bodies[b].kind != BODY_PARTICLE;
		if (rig)
			p->ebody[m - s->nc] = b;
		p->erow[b] = rig ? m++ : -1;
		nq += rig ? 7 : 3;
	}
	p->nq = nq;
	p->m = m;
	size_t Q = (size_t)nq + 1, M = (size_t)m + 1;
	p->q = xcalloc(Q, sizeof(double));
	p->pos_y = xcalloc(Q, sizeof(double));
	p->q_good = xcalloc(Q, sizeof(double));
	p->q_acc = xcalloc(Q, sizeof(double));
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
	p->Ax_fact = xcalloc(14 * M, sizeof(double));
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
	p->ode.state = rp_state;
	p->ode.why = rp_why;
	p->ode.renewals = rp_renewals;
	p->ode.ckpt = rp_ckpt;
	p->lin_ok = rp_lin_ok(p);
	p->ode.jac = p->lin_ok ? rp_jac : NULL;
	/* under lin_ok the elements are those with an analytic tangent
	 * (elem_ops.lin): time enters through drivers, functions and
	 * expressions alone (ELEM_OF_TIME) */
	p->ode.autonomous = p->lin_ok;
	for (int d = 0; d < md->ndrivers; d++)
		if (md->dprims[d].f && md->dprims[d].f->type != FUNC_CONSTANT)
			p->ode.autonomous = 0;
	for (int i = 0; i < md->nforces; i++)
		if (elem_props(&md->forces[i]) & ELEM_OF_TIME)
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
	free(p->ebody);
	free(p->q);
	free(p->pos_y);
	free(p->q_good);
	free(p->q_acc);
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
	free(p->Ax_fact);
	free(p->iwork);
	free(p->last_yd);
	rp_lin_free(&p->lin);
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
