/* hi.c - the half-implicit family (000 §2.2).
 *
 * Symplectic Euler on the index-3 DAE: velocities explicit (eqs. 4a-b),
 * positions implicit (4c-d).  Unknowns r_{n+1}, theta_{n+1} = h w_{n+1},
 * lambda-hat = h^2 lambda_n (eq. 6).  Eqs. 5a-b are linear in them:
 *
 *   r_{n+1} = r_n + h v_n + h^2 M^-1 f_n - M^-1 Phi_r,n^T lambda-hat
 *   theta   = h w_n + h^2 J^-1 (n_n - w~ J w) - J^-1 Pi_n^T lambda-hat
 *
 * so with the quasi-Newton matrix of eq. 12 (Jacobians at t_n, formed and
 * factored once per step) e1 = e2 = 0 after every update, and the
 * iteration reduces to  S dlambda = Phi(r, A exp(theta~), t_{n+1}),
 * dq = -W^-1 P^T dlambda  (the kkt solve with a zero right side on top).
 * Stop when ||(dq, dlambda-hat)||_2 < tolerance (000 §2.2).
 *
 * The first iterate (integrator.predictor: extrapolate) is a polynomial
 * through the last steps' solutions (up to six; integ_hist_predict), of
 * both the displacement q_{n+1} - q_n and lambda_n, and the first update
 * solves the whole linearized eqs. 5a-b and 4c-d from there (the kkt solve
 * with e1, e2 on top), after which e1 = e2 = 0 again.  Why not lambda_n
 * alone, with q from eqs. 5a-b: q is then as wrong as lambda-hat times
 * W^-1 P^T, which for a light body is large (the slider-crank's crank:
 * 1e5 / kg m^2), and eq. 12's matrix is poor along S's weakest direction
 * (an internal force of the closed loop; S's condition ~1e6 there), so
 * lambda's noise at the Newton tolerance, amplified by the extrapolation,
 * cost a second iteration in two steps of three.  The displacement is
 * smooth and not amplified (iterations per step of the three first
 * iterates: bench/README.md, "Predictors of hi").
 *
 * No reaction-force Jacobian is missing here: the reactions act along the
 * rows P_n of t_n, so e1, e2 are linear and eq. 10 (rows at the iterate,
 * times the right Jacobian of exp) is the exact Newton matrix.  That
 * explicit direction is also this scheme's limit: the geometric stiffness
 * lambda |s| of the joints is integrated explicitly, like a spring of
 * frequency ~ sqrt(6 lambda / (m L)) per bar.  In chain.yaml lambda grows
 * like N^2, and at h = 1e-3 N = 400 runs while N = 512 fails at step 1
 * (h = 5e-4 runs N = 512, 2.5e-4 runs N = 1024).  The exact Newton of
 * eq. 10 does not converge there either (bench/README.md, "Predictors of
 * hi"), so eq. 12 stays.
 *
 * hilg: the rotational update of eq. 5b takes the gyroscopic term
 * w~ J w at t_n explicitly, which on a spinning body is a first-order
 * error that feeds energy steadily out (or in): on decks/heavy_top.yaml
 * (50 rad/s) hi loses 0.33 J of 41 J in 10 s at h = 1e-3.  hilg replaces
 * eq. 5b by the discrete Euler-Lagrange equation of the same discrete
 * Lagrangian on SO(3) (kinetic energy of the increment theta, potential
 * and constraints at t_n: a variational, SHAKE-like Lie-group scheme):
 *
 *   Jr(theta)^-1 J theta = h J w_n + h^2 n_n - Pi_n^T lambda-hat,
 *   J w_{n+1} = Jl(theta)^-1 J theta / h
 *
 * Jr, Jl the right and left Jacobians of exp (Jr^-1 = I + theta~/2 +
 * c theta~^2, Jl^-1 = I - theta~/2 + c theta~^2, c = 1/th^2 - (1 + cos th)
 * / (2 th sin th)), J w the body-frame momentum.  To first order this is
 * eq. 5b with the gyroscopic term split between t_n and t_{n+1}; the
 * rotation of the momentum is exact, so a free body keeps its spatial
 * angular momentum and, the map being symplectic, energy errors stay
 * bounded instead of drifting.  The equation is nonlinear in theta, so
 * the iteration keeps the full residual (e1, e2 re-evaluated each time)
 * with eq. 12's matrix as it is: adding the gyroscopic block J +
 * (theta~ J - (J theta)~)/2 did not save iterations (the constraint rows
 * of t_n limit the contraction, as in hi) and would make W unsymmetric,
 * losing kkt's symmetric dense path.  A planar body (theta along a
 * principal axis) has theta x J theta = 0: the equations are hi's, and
 * the two agree to the Newton tolerance.
 */
#include "integ.h"
#include "../util/ckpt.h"
#include "../util/vec.h"
#include "../util/interrupt.h"
#include "../util/xalloc.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* y positions from x and the generalized displacement g */
static void place(const struct ra *s, const struct ra_state *x, struct ra_state *y,
		  const double *g)
{
	for (int b = 0; b < s->nb; b++) {
		double R[9];
		v3_add(y->r + 3 * b, x->r + 3 * b, g + 6 * b);
		so3_exp(R, g + 6 * b + 3);
		m3_mul(y->A + 9 * b, x->A + 9 * b, R);
	}
}

/* Iterate it_n of eq. 12: g += dg (in it->dg), lambda-hat += dlh.
 * INTEG_OK when the correction is below the tolerance, INTEG_NONFINITE
 * when it is not finite, else -1 (iterate again). */
static int newton_update(struct integ *it, double *g, double *lh, const double *dlh, int it_n)
{
	int ng = it->sys->ng, nc = it->sys->nc;
	for (int i = 0; i < ng; i++)
		g[i] += it->dg[i];
	for (int k = 0; k < nc; k++)
		lh[k] += dlh[k];
	it->iters = it_n;
	it->last_norm = integ_norm2(it->dg, ng, dlh, nc);
	if (!isfinite(it->last_norm)) {
		integ_note_worst(it);
		return INTEG_NONFINITE;
	}
	return it->last_norm < it->tol ? INTEG_OK : -1;
}

/* Newton iteration of eq. 12 from lambda-hat = it->lam and g = gp, or
 * (gp NULL) g from eqs. 5a-b; g (it->g) holds the converged displacement
 * on return INTEG_OK, it->iters the count.  From gp, F is taken over as
 * scratch once read (hi_step remakes it to start again). */
static int newton(struct integ *it, const struct ra_state *x, struct ra_state *y, double h,
		  double *F, const double *gp)
{
	struct ra *s = it->sys;
	int nb = s->nb, nc = s->nc, ng = s->ng;
	double *g = it->g, *lh = it->lam, h2 = h * h;

	/* g = g0 - W^-1 P^T lambda-hat */
	ra_jac_tmul(s, lh, it->rhs);
	for (int b = 0; b < nb; b++) {
		const double *Fb = F + 6 * b, *Pl = it->rhs + 6 * b;
		double t[3], u[3];
		for (int c = 0; c < 3; c++)
			g[6 * b + c] = h * x->v[3 * b + c] +
				       (h2 * Fb[c] - Pl[c]) / s->mass[b];
		for (int c = 0; c < 3; c++)
			t[c] = h2 * Fb[3 + c] - Pl[3 + c];
		m3_mulv(u, s->Jinv + 9 * b, t);
		for (int c = 0; c < 3; c++)
			g[6 * b + 3 + c] = h * x->w[3 * b + c] + u[c];
	}

	double *a = NULL;
	if (gp) {	/* start from the predicted g: a = -e1 = W (g - gp) */
		a = F;	/* F is not read again */
		for (int b = 0; b < nb; b++) {
			double d[3];
			for (int c = 0; c < 3; c++) {
				a[6 * b + c] = s->mass[b] * (g[6 * b + c] - gp[6 * b + c]);
				d[c] = g[6 * b + 3 + c] - gp[6 * b + 3 + c];
			}
			m3_mulv(a + 6 * b + 3, ra_inertia(s, b), d);
		}
		memcpy(g, gp, (size_t)ng * sizeof(double));
	}
	double tn1 = x->t + h;
	int it_n = 0;
	while (it_n < it->maxit) {
		if (interrupted())
			return INTEG_INTERRUPTED;
		place(s, x, y, g);
		ra_eval(s, y, tn1, PRIM_PHI);
		for (int k = 0; k < nc; k++)
			it->dl[k] = -s->phi[k];
		kkt_solve(it->kkt, a, it->dl, it->dg, it->rhs);
		a = NULL;
		/* kkt_solve gave dq = -W^-1 P^T y with S y = Phi: y is dlambda */
		int rc = newton_update(it, g, lh, it->rhs, ++it_n);
		if (rc >= 0)
			return rc;
	}
	integ_note_worst(it);
	return INTEG_NEWTON_FAIL;
}

/* out = J th + sgn th x J th / 2 + c(th) th x (th x J th): Jr(th)^-1 J th
 * for sgn = +1, Jl(th)^-1 J th for sgn = -1 (see the top of the file) */
static void lg_mom(const double *J, const double *th, double sgn, double *out)
{
	double Jt[3], a[3], b[3], t2 = v3_dot(th, th), c;
	if (t2 < 1e-4)	/* series: 1/12 + th^2/720 + th^4/30240 */
		c = 1.0 / 12 + t2 * (1.0 / 720 + t2 / 30240);
	else {
		double t = sqrt(t2);
		c = 1 / t2 - (1 + cos(t)) / (2 * t * sin(t));
	}
	m3_mulv(Jt, J, th);
	v3_cross(a, th, Jt);
	v3_cross(b, th, a);
	for (int k = 0; k < 3; k++)
		out[k] = Jt[k] + 0.5 * sgn * a[k] + c * b[k];
}

/* hilg's iteration: the residual of eqs. 5a and of the variational
 * rotational update (top of the file), e = mu0 - P_n^T lambda-hat - G(g),
 * G = (m g_r, Jr(g_th)^-1 J g_th), re-evaluated at every iterate, and the
 * correction from eq. 12's matrix: [W P^T; P 0] (dg, dlambda-hat) =
 * (e, -Phi).  Starts from gp, or (gp NULL) from eqs. 5a-b without the
 * gyroscopic term. */
static int newton_lg(struct integ *it, const struct ra_state *x, struct ra_state *y, double h,
		     double *F, const double *gp)
{
	struct ra *s = it->sys;
	int nb = s->nb, nc = s->nc, ng = s->ng;
	double *g = it->g, *lh = it->lam, *mu0 = it->mem, *e = it->rhs, *dlh = it->dl2;
	double h2 = h * h;

	for (int b = 0; b < nb; b++) {
		double hw[3];
		v3_scale(hw, h, x->w + 3 * b);
		m3_mulv(mu0 + 6 * b + 3, ra_inertia(s, b), hw);
		for (int c = 0; c < 3; c++) {
			mu0[6 * b + c] = s->mass[b] * h * x->v[3 * b + c] + h2 * F[6 * b + c];
			mu0[6 * b + 3 + c] += h2 * F[6 * b + 3 + c];
		}
	}
	if (gp) {
		memcpy(g, gp, (size_t)ng * sizeof(double));
	} else {
		ra_jac_tmul(s, lh, e);
		for (int b = 0; b < nb; b++) {
			double t[3];
			for (int c = 0; c < 3; c++) {
				g[6 * b + c] = (mu0[6 * b + c] - e[6 * b + c]) / s->mass[b];
				t[c] = mu0[6 * b + 3 + c] - e[6 * b + 3 + c];
			}
			m3_mulv(g + 6 * b + 3, s->Jinv + 9 * b, t);
		}
	}
	double tn1 = x->t + h;
	int it_n = 0;
	while (it_n < it->maxit) {
		if (interrupted())
			return INTEG_INTERRUPTED;
		place(s, x, y, g);
		ra_eval(s, y, tn1, PRIM_PHI);
		for (int k = 0; k < nc; k++)
			it->dl[k] = -s->phi[k];
		ra_jac_tmul(s, lh, e);
		for (int b = 0; b < nb; b++) {
			double G[3];
			lg_mom(ra_inertia(s, b), g + 6 * b + 3, 1.0, G);
			for (int c = 0; c < 3; c++) {
				int i = 6 * b + c;
				e[i] = mu0[i] - e[i] - s->mass[b] * g[i];
				e[i + 3] = mu0[i + 3] - e[i + 3] - G[c];
			}
		}
		kkt_solve(it->kkt, e, it->dl, it->dg, dlh);
		int rc = newton_update(it, g, lh, dlh, ++it_n);
		if (rc >= 0)
			return rc;
	}
	integ_note_worst(it);
	return INTEG_NEWTON_FAIL;
}

static int hi_step(struct integ *it, double h, struct ra_state *x, struct ra_state *y)
{
	struct ra *s = it->sys;
	int nb = s->nb, nc = s->nc;
	double *g = it->g, *lh = it->lam, *F = it->F, h2 = h * h, tn1 = x->t + h;

	/* eq. 12: quasi-Newton matrix at t_n, once per step */
	int lg = it->info->id == INTEG_HILG;
	ra_eval(s, x, x->t, PRIM_JAC);
	ra_mass_blocks(it->sys, it->W);
	if (kkt_factor(it->kkt, it->W, s->jac)) {
		it->bad_row = kkt_bad_row(it->kkt);
		return INTEG_SINGULAR;
	}
	it->factorizations++;

	/* eq. 7: forces at t_n (friction from the last multipliers) */
	ra_forces(s, x, x->t, x->lam, F);
	if (!lg)
		ra_gyro(s, x, F);

	/* first iterate: lambda_n and g extrapolated from the last steps
	 * (integrator.predictor), else lambda_{n-1} and g from it.  Should
	 * Newton fail from an extrapolation (a kink: stick-slip, a driver
	 * switching), it starts once more from lambda_{n-1}.  The history
	 * rows are (lambda_n, g); the predicted lambda_n goes to lambda-hat,
	 * the predicted g to it->dg, which both Newton iterations read
	 * before their first correction overwrites it. */
	double *gp = it->dg;
	int pred = integ_hist_predict(it, x->t, lh, gp), rc, total = 0;
	for (int k = 0; k < nc; k++)
		lh[k] = h2 * (pred ? lh[k] : x->lam[k]);
	kkt_zero_dropped(it->kkt, lh);
	while ((rc = (lg ? newton_lg : newton)(it, x, y, h, F, pred ? gp : NULL)) != INTEG_OK &&
	       pred) {
		total += it->iters;
		pred = 0;
		integ_hist_reset(it);
		if (!lg) {	/* newton used F as scratch: the same forces again */
			ra_forces(s, x, x->t, x->lam, F);
			ra_gyro(s, x, F);
		}
		for (int k = 0; k < nc; k++)
			lh[k] = h2 * x->lam[k];
		kkt_zero_dropped(it->kkt, lh);
	}
	it->iters += total;
	it->total_iters += it->iters;
	if (rc != INTEG_OK)
		return rc;
	place(s, x, y, g);

	/* eqs. 4a-b backwards: v_{n+1}, w_{n+1}, then accelerations at t_n;
	 * hilg: w_{n+1} from the momentum Jl(theta)^-1 J theta / h */
	y->t = tn1;
	for (int b = 0; b < nb; b++) {
		double wl[3];
		if (lg) {
			double p[3];
			lg_mom(ra_inertia(s, b), g + 6 * b + 3, -1.0, p);
			m3_mulv(wl, s->Jinv + 9 * b, p);
		}
		for (int c = 0; c < 3; c++) {
			double vn1 = g[6 * b + c] / h;
			double wn1 = lg ? wl[c] / h : g[6 * b + 3 + c] / h;
			x->a[3 * b + c] = (vn1 - x->v[3 * b + c]) / h;
			x->wd[3 * b + c] = (wn1 - x->w[3 * b + c]) / h;
			y->v[3 * b + c] = vn1;
			y->w[3 * b + c] = wn1;
		}
	}
	for (int k = 0; k < nc; k++) {
		x->lam[k] = lh[k] / h2;
		y->lam[k] = x->lam[k];	/* guess for the next step */
	}
	memcpy(y->a, x->a, 3 * (size_t)nb * sizeof(double));
	memcpy(y->wd, x->wd, 3 * (size_t)nb * sizeof(double));
	integ_hist_push(it, x->t, x->lam, g);
	it->steps++;
	return INTEG_OK;
}

/* hi and hilg: the predictor's rows are lambda, then the displacement g,
 * whose predictions choose the degree; hilg's memory is the right side
 * mu0 of its rotational update (ng). */
static int hi_init(struct integ *it, const struct sim_options *o, struct diag *d)
{
	(void)d;
	const struct ra *s = it->sys;
	integ_hist_init(it, s->ng + s->nc, s->nc, s->nc, o);
	it->mem = xcalloc((size_t)s->ng + 1, sizeof(double));
	return 0;
}

static void hi_free(struct integ *it)
{
	free(it->mem);
	it->mem = NULL;
}

/* hilg's right side mu0 (restart) */
static void hi_ckpt(struct integ *it, struct ckpt *c)
{
	ckpt_d(c, it->mem, it->sys->ng);
}

const struct integ_ops hi_ops = {
	.init = hi_init,
	.step = hi_step,
	.iter_unit = "Newton it",
	.ckpt = hi_ckpt,
	.free = hi_free,
};
