/* fi.c - the fully-implicit family (000 §2.3, backward Euler, eqs. 13-14).
 *
 * Unknowns: accelerations a = (r-ddot, w-dot)_{n+1} and lambda_{n+1}.
 * Positions and velocities follow from eq. 14:
 *   v = v_n + h r-ddot, w = w_n + h w-dot, r = r_n + h v, A = A_n exp(h w~).
 * Residual (eq. 13, constraints scaled by 1/h^2):
 *   e1 = M r-ddot + Phi_r^T lambda - f,  e2 = J w-dot + Pi^T lambda - n + w~ J w,
 *   e3 = Phi / h^2.
 * Iteration matrix: [[M + h^2 k I, 0, Phi_r^T], [0, J + h (w~ J - (J w)~)
 * + h^2 K Jr(h w), Pi^T], [Phi_r, Pi, 0]], all at the iterate.  000 §2.3
 * drops the Jacobian of the reaction forces Phi_q^T lambda; here its part
 * local to one body is kept (k, K from ra_geo/prim_hess: the theta-theta
 * block of every primitive on each of its bodies, and the r-r block 2 lambda I
 * of D).  Without it long chains fail: the tension of an N-link chain
 * grows like N^2 in chain.yaml, and h^2 lambda |s| (~80 at N = 1024) then
 * dwarfs the transverse inertia of a bar (13) and Newton stalls at step 0
 * for N >= 512.  Still dropped: the couplings of that Jacobian between
 * the two bodies of a joint and between r and theta of one body (they
 * would break the block-diagonal W of la/kkt), Jr in the constraint rows
 * (Pi instead of Pi Jr(h w), an O(h |w|) relative error).  The force
 * elements' body-diagonal Jacobian blocks h^2 K + h C (ra_force_blocks,
 * as the dae3 schemes add them) are kept: without them a motor's damping
 * gain outweighing the inertia it drives, h kd >> I, makes the iteration
 * a slow oscillation (the crank-rocker of tests/forces/crank_rocker_pid.yaml,
 * kd = 10 N m s/rad on a crank of 1.7e-3 kg m^2 about its pivot at
 * h = 1e-3: contraction rate 0.83 a step, 50 iterations not enough, while
 * the constraint residual sat at round-off).  The matrix is formed
 * at the first iteration of a step and again only when the iteration
 * contracts slowly (rate > 1/4), as a modified Newton method.  The stop
 * test is the one of the half-implicit scheme in position units:
 * ||h^2 (da, dlambda)||_2 < tolerance (000 §3.1 uses 1e-10/h^2 on (da, dlambda)).
 */
#include "integ.h"
#include "../util/vec.h"
#include "../util/interrupt.h"

#include <math.h>
#include <string.h>

/* y from x and accelerations g (generalized) */
static void advance(const struct ra *s, const struct ra_state *x, struct ra_state *y,
		    const double *g, double h)
{
	for (int b = 0; b < s->nb; b++) {
		double R[9], th[3];
		for (int c = 0; c < 3; c++) {
			y->v[3 * b + c] = x->v[3 * b + c] + h * g[6 * b + c];
			y->r[3 * b + c] = x->r[3 * b + c] + h * y->v[3 * b + c];
			y->w[3 * b + c] = x->w[3 * b + c] + h * g[6 * b + 3 + c];
			th[c] = h * y->w[3 * b + c];
		}
		so3_exp(R, th);
		m3_mul(y->A + 9 * b, x->A + 9 * b, R);
	}
}

/* Newton matrix blocks at y for the multipliers lam:
 *   W = diag(m I + h^2 k I,  J + h (w~ J - (J w)~) + h^2 K Jr(h w))
 * with k, K the local geometric stiffness d(Phi_q^T lam)/dq of each body
 * (ra_geo) and Jr the right Jacobian of exp: d theta_{n+1} = h^2 Jr dw-dot
 * in the sense of A_{n+1} = A_n exp(theta~). */
static void newton_blocks(struct integ *it, const struct ra_state *y, const double *lam,
			  double h)
{
	const struct ra *s = it->sys;
	memset(it->W, 0, (size_t)s->nb * 18 * sizeof(double));
	ra_geo(s, y, y->t, lam, h * h, it->W);
	for (int b = 0; b < s->nb; b++) {
		double *Wb = it->W + 18 * b;
		double K[9], Jr[9], th[3];
		v3_scale(th, h, y->w + 3 * b);
		so3_jr(Jr, th);
		memcpy(K, Wb + 9, sizeof K);
		m3_mul(Wb + 9, K, Jr);
		for (int e = 0; e < 9; e++)
			Wb[9 + e] += ra_inertia(s, b)[e];
		for (int c = 0; c < 3; c++)
			Wb[4 * c] += s->mass[b];
	}
	integ_gyro_blocks(it, y, h);
	ra_force_blocks(s, y, y->t, h * h, h, it->W);
}

/* Newton iteration from the accelerations it->g and multipliers it->lam;
 * on INTEG_OK they hold the solution, it->iters the count. */
static int newton(struct integ *it, const struct ra_state *x, struct ra_state *y, double h)
{
	struct ra *s = it->sys;
	int nc = s->nc, ng = s->ng;
	double *g = it->g, *lam = g + ng, *e = it->rhs, h2 = h * h;
	double tn1 = x->t + h, prev = 0.0;
	int refactor = 1, it_n = 0;

	it->iters = 0;
	while (it_n < it->maxit) {
		if (interrupted())
			return INTEG_INTERRUPTED;
		advance(s, x, y, g, h);
		kkt_zero_dropped(it->kkt, lam);	/* redundant rows: kkt.h */
		integ_residual(it, y, tn1, integ_lamf(it, y, lam, 1.0, x->lam), g, lam, 1.0,
			       h2);	/* -e1, -e2; -e3 */
		if (refactor) {
			newton_blocks(it, y, lam, h);
			if (kkt_factor(it->kkt, it->W, s->jac) || ra_lr_make(s, it->kkt, y, lam, h)) {
				it->bad_row = kkt_bad_row(it->kkt);
				return INTEG_SINGULAR;
			}
			it->factorizations++;
			refactor = 0;
		}
		double *dl = it->dl2;
		kkt_solve(it->kkt, e, it->dl, it->dg, dl);
		double a = ra_lr_correct(s, y, it->dg, dl, h);	/* 1 without friction */
		if (a < 1.0)
			refactor = 1;
		for (int i = 0; i < ng; i++)
			g[i] += it->dg[i];
		for (int k = 0; k < nc; k++)
			lam[k] += dl[k];
		it->iters = ++it_n;
		double nrm = h2 * integ_norm2(it->dg, ng, dl, nc);
		it->last_norm = nrm;
		if (!isfinite(nrm)) {
			integ_note_worst(it);
			return INTEG_NONFINITE;
		}
		if (nrm < it->tol && a == 1.0)
			return INTEG_OK;
		if (it_n > 1 && nrm > 0.25 * prev)
			refactor = 1;
		prev = nrm;
	}
	integ_note_worst(it);
	integ_note_eom(it);
	return INTEG_NEWTON_FAIL;
}

/* The unknowns (accelerations, multipliers) of t_n: the first iterate
 * when there is nothing to extrapolate. */
static void last_values(const struct ra *s, const struct ra_state *x, double *g)
{
	integ_acc_get(s, x, g);
	memcpy(g + s->ng, x->lam, (size_t)s->nc * sizeof(double));
}

static int fi_step(struct integ *it, double h, struct ra_state *x, struct ra_state *y)
{
	struct ra *s = it->sys;
	double *g = it->g;	/* accelerations, then multipliers */

	/* first iterate: accelerations and multipliers of t_{n+1} extrapolated
	 * from the last steps (integrator.predictor), else those of t_n; should
	 * Newton fail from an extrapolation, once more from those of t_n */
	int pred = integ_hist_predict(it, x->t + h, g, NULL), rc, total = 0;
	if (!pred)
		last_values(s, x, g);
	y->t = x->t + h;
	while ((rc = newton(it, x, y, h)) != INTEG_OK && pred) {
		total += it->iters;
		pred = 0;
		integ_hist_reset(it);
		last_values(s, x, g);
	}
	it->iters += total;
	it->total_iters += it->iters;
	if (rc != INTEG_OK)
		return rc;
	advance(s, x, y, g, h);
	integ_acc_put(s, g, y);
	memcpy(y->lam, g + s->ng, (size_t)s->nc * sizeof(double));
	integ_hist_push(it, y->t, g, NULL);
	it->steps++;
	return INTEG_OK;
}

/* The predictor's rows are (r-ddot, w-dot), then lambda. */
static int fi_init(struct integ *it, const struct sim_options *o, struct diag *d)
{
	(void)d;
	const struct ra *s = it->sys;
	integ_hist_init(it, s->ng + s->nc, s->ng + s->nc, 0, o);
	return 0;
}

const struct integ_ops fi_ops = {
	.init = fi_init,
	.step = fi_step,
	.iter_unit = "Newton it",
};
