/* dae3_step.c - the schemes of the dae3 engine (dae3.c): one step of LMS,
 * SS, DIRK/composite or the Newmark family from the last accepted state,
 * each stage an implicit solve (dae3_solve.c) from its yhat, c and first
 * iterate.
 *
 * Predictors (004 §3.1): multistep, second-order Hermite (eq. 12); single
 * step and Newmark, constant (eq. 15); DIRK stages, constant at stage 1,
 * second-order from the two previous stages, fourth-order (eq. 16) at the
 * last stage of MSSTH4/5 and ESDIRK4(3)6L[2]SA2.
 */
#include "dae3_impl.h"
#include "../util/vec.h"

#include <math.h>
#include <string.h>

/* Weights of the values at t0, t1, t2 in the quadratic through them at tn
 * (Lagrange); the line through t0, t1 when t2 is not a distinct earlier
 * time (NaN: not yet), the constant when t1 is not either. */
static void extrap_weights(double tn, double t0, double t1, double t2, double l[3])
{
	if (!(t0 > t1)) {
		l[0] = 1.0, l[1] = l[2] = 0.0;
	} else if (!(t1 > t2)) {
		l[1] = -(tn - t0) / (t0 - t1);
		l[0] = 1.0 - l[1], l[2] = 0.0;
	} else {
		l[0] = (tn - t1) * (tn - t2) / ((t0 - t1) * (t0 - t2));
		l[1] = (tn - t0) * (tn - t2) / ((t1 - t0) * (t1 - t2));
		l[2] = (tn - t0) * (tn - t1) / ((t2 - t0) * (t2 - t1));
	}
}

/* Beams (E->gold): Newton's first iterate g, lambda (the step's start,
 * t) moved along the quadratic through the last two steps' starts
 * (told, told2), exact for accelerations and multipliers quadratic in
 * time.  The line through the last step's start (an error of h^2 a''
 * instead of the constant's h a') took the rotating shaft (genalpha,
 * 1e-4 s) from 2.21 to 1.64 Newton iterations a step; the quadratic takes
 * the deck's 1e-3 s from 3.83 to 3.13 (its first correction from 2.4e-5
 * to 1.8e-6, median; bench/README, "Beams: issue 36").  A retried step
 * (t not after told) starts from the constant and leaves the history.
 * Used by the newmark family and the single-step ss schemes; the LMS
 * predict from their own history (predict(), lms_lam()). */
static void extrapolate(struct dae3 *E, const struct ra *s, double t, double h)
{
	if (!E->gold || t <= E->told)	/* (told NaN: the first step) */
		return;
	double l[3];
	extrap_weights(t + h, t, E->told, E->told2, l);
	for (int i = 0; i < s->ng; i++) {
		double gn = E->g[i];
		E->g[i] = l[0] * gn + l[1] * E->gold[i] + l[2] * E->gold2[i];
		E->gold2[i] = E->gold[i];
		E->gold[i] = gn;
	}
	for (int k = 0; k < s->nc; k++) {
		double ln = E->lam[k];
		E->lam[k] = l[0] * ln + l[1] * E->lold[k] + l[2] * E->lold2[k];
		E->lold2[k] = E->lold[k];
		E->lold[k] = ln;
	}
	E->told2 = E->told;
	E->told = t;
}

/* Beams, LMS: the multipliers' first iterate from the quadratic through
 * the last three accepted states (predict() extrapolates only the
 * accelerations; the constant multipliers made the four-bar's first
 * Newton correction 7e-6 m, the reactions' change over a step, against
 * 6e-10 m from the quadratic: 3.79 -> 2.73 iterations a step, lms2 at
 * 4e-3 s; bench/README, "Beams: issue 36") */
static void lms_lam(struct dae3 *E, const struct ra *s, double tn)
{
	if (!E->Wc || E->nhist < 2)
		return;
	const struct ra_state *x = E->hist;
	double l[3];
	extrap_weights(tn, x[0].t, x[1].t, E->nhist >= 3 ? x[2].t : NAN, l);
	const double *l2 = E->nhist >= 3 ? x[2].lam : x[1].lam;
	for (int k = 0; k < s->nc; k++)
		E->lam[k] = l[0] * x[0].lam[k] + l[1] * x[1].lam[k] + l[2] * l2[k];
}

/* g (accelerations) part of a 12-per-body vector: entries 6..11 */
static void upart(const struct dae3 *E, const double *Y, double f, double *g, int add)
{
	for (int b = 0; b < E->nb; b++)
		for (int c = 0; c < 6; c++)
			g[6 * b + c] = (add ? g[6 * b + c] : 0.0) + f * Y[12 * b + 6 + c];
}

/* Second/fourth-order derivative predictors from points (Y, Yd) at times tp[] */
static void predict(struct dae3 *E, int npts, double *const *Ys, double *const *Yds,
		    const double *tp, double tN)
{
	double m[3], n[3], hn = tN - tp[0];
	if (npts >= 3) {
		coef_pred4(hn, hn / (tp[0] - tp[1]), hn / (tp[1] - tp[2]), m, n);
	} else if (npts == 2) {
		coef_pred2(hn, hn / (tp[0] - tp[1]), m, n);
	} else {
		upart(E, Yds[0], 1.0, E->g, 0);
		return;
	}
	for (int j = 0; j < npts; j++) {
		upart(E, Ys[j], m[j], E->g, j > 0);
		upart(E, Yds[j], n[j], E->g, 1);
	}
}

/* --- the schemes: one step from hist[0] with h; y receives t + h. ---- */

static int step_lms_const(struct integ *it, struct dae3 *E, const struct coef *co, double h,
			  struct ra_state *y, int variable)
{
	const struct ra_state *x = &E->hist[0];
	int k = co->k, ny = E->ny;
	double a[5], hb[5];
	if (variable) {
		coef_lms2_var(co->rho, h / E->hstep[0], E->hstep[0], a, hb);
	} else {
		for (int j = 0; j <= k; j++) {
			a[j] = co->a[j];
			hb[j] = h * co->b[j];
		}
	}
	for (int j = 0; j < k; j++)
		dae3_chart(E, &E->hist[j], x->A, E->Y[j], E->Yd[j], E->PM[j]);
	for (int i = 0; i < ny; i++) {
		double v = 0.0;
		for (int j = 1; j <= k; j++)
			v += a[j] * E->Y[j - 1][i] + hb[j] * E->Yd[j - 1][i];
		E->yhat[i] = v;
	}
	double tp[2] = { x->t, E->hist[1].t };
	predict(E, 2, E->Y, E->Yd, tp, x->t + h);
	copy_lam(it->sys, E->lam, x->lam);
	lms_lam(E, it->sys, x->t + h);
	struct solve_in in = { x->t + h, hb[0], hb[0] * hb[0], 1.0, 0, E->yhat, NULL, x, 0 };
	return dae3_solve(it, E, &in, y);
}

static int step_trap(struct integ *it, struct dae3 *E, double h, struct ra_state *y)
{
	const struct ra_state *x = &E->hist[0];
	dae3_chart(E, x, x->A, E->Y[0], E->Yd[0], E->PM[0]);
	for (int i = 0; i < E->ny; i++)
		E->yhat[i] = E->Y[0][i] + 0.5 * h * E->Yd[0][i];
	upart(E, E->Yd[0], 1.0, E->g, 0);
	copy_lam(it->sys, E->lam, x->lam);
	struct solve_in in = { x->t + h, 0.5 * h, 0.25 * h * h, 1.0, 0, E->yhat, NULL, x, 0 };
	return dae3_solve(it, E, &in, y);
}

/* SS_r (reference §C; 004 eqs. 4, 9-11) */
static int step_ss(struct integ *it, struct dae3 *E, const struct coef *co, double h,
		   struct ra_state *y)
{
	const struct ra_state *x = &E->hist[0];
	int r = co->r, ny = E->ny;
	const double complex *gm = co->g;
	double complex P[5];
	P[0] = 1.0;
	for (int k = 1; k < r; k++)
		P[k] = P[k - 1] * gm[2 * k - 2] / gm[2 * k - 1];
	double c = creal(P[r - 1] * gm[2 * r - 2]);
	double complex w0 = P[r - 1] * (1.0 - gm[2 * r - 2]), wk[4];
	for (int k = 1; k < r; k++)
		wk[k] = P[k - 1] * (1.0 - gm[2 * k - 2] / gm[2 * k - 1]);
	dae3_chart(E, x, x->A, E->Y[0], E->Yd[0], E->PM[0]);
	for (int i = 0; i < ny; i++) {
		double v = creal(w0) * E->Yd[0][i];
		for (int k = 1; k < r; k++)
			v += creal(wk[k] * E->V[k - 1][i]);
		E->yhat[i] = E->Y[0][i] + h * v;
	}
	upart(E, E->Yd[0], 1.0, E->g, 0);
	copy_lam(it->sys, E->lam, x->lam);
	extrapolate(E, it->sys, x->t, h);
	struct solve_in in = { x->t + h, h * c, h * c * h * c, 1.0, 0, E->yhat, NULL, x, 0 };
	int st = dae3_solve(it, E, &in, y);
	if (st)
		return st;
	/* new auxiliary variables, innermost first (reference §C "update") */
	dae3_chart(E, y, x->A, E->Ynew, E->Ydnew, E->pm);
	for (int k = r - 1; k >= 1; k--) {
		double complex g1 = gm[2 * k - 1], g2 = gm[2 * k];
		double complex A1 = -(1.0 - g1) / g1, A2 = g2 / g1, A3 = (1.0 - g2) / g1;
		for (int i = 0; i < ny; i++) {
			double complex nxt = k + 1 == r ? E->Ydnew[i] : E->Vn[k][i];
			double complex old = k + 1 == r ? E->Yd[0][i] : E->V[k][i];
			E->Vn[k - 1][i] = A1 * E->V[k - 1][i] + A2 * nxt + A3 * old;
		}
	}
	/* into the chart of the new state: psi' -> Jr(psi_n) psi' */
	for (int b = 0; b < E->nb; b++) {
		double J[9];
		so3_jr(J, E->Ynew + 12 * b + 3);
		for (int k = 0; k < r - 1; k++) {
			double complex *v = E->Vn[k] + 12 * b + 3, o[3] = { v[0], v[1], v[2] };
			for (int i = 0; i < 3; i++)
				v[i] = J[3 * i] * o[0] + J[3 * i + 1] * o[1] + J[3 * i + 2] * o[2];
		}
	}
	return INTEG_OK;
}

/* DIRK / composite (reference §D; 004 eqs. 5-6) */
static int step_dirk(struct integ *it, struct dae3 *E, double h, struct ra_state *y)
{
	const struct ra_state *x = &E->hist[0];
	const struct coef *co = &E->co;
	int s = co->s, ny = E->ny;
	dae3_chart(E, x, x->A, E->SY[0], E->SYd[0], E->PM[0]);
	copy_lam(it->sys, E->lam, x->lam);
	for (int i = 1; i < s; i++) {
		for (int q = 0; q < ny; q++) {
			double v = 0.0;
			for (int j = 0; j < i; j++)
				v += co->A[i][j] * E->SYd[j][q];
			E->yhat[q] = E->SY[0][q] + h * v;
		}
		double tp[3], ti = x->t + co->c[i] * h;
		double *Ys[3], *Yds[3];
		int np = (i == s - 1 && co->pred4_last && i >= 3) ? 3 : (i >= 2 ? 2 : 1);
		for (int j = 0; j < np; j++) {
			tp[j] = x->t + co->c[i - 1 - j] * h;
			Ys[j] = E->SY[i - 1 - j];
			Yds[j] = E->SYd[i - 1 - j];
		}
		/* nodes too close for a stable Hermite extrapolation: constant */
		for (int j = 0; j + 1 < np; j++)
			if (fabs(tp[j] - tp[j + 1]) < 1e-2 * h)
				np = 1;
		predict(E, np, Ys, Yds, tp, ti);
		double c = h * co->A[i][i];
		struct solve_in in = { ti, c, c * c, 1.0, 0, E->yhat, NULL, x, 0 };
		int st = dae3_solve(it, E, &in, y);
		if (st)
			return st;
		dae3_chart(E, y, x->A, E->SY[i], E->SYd[i], E->pm);
	}
	return INTEG_OK;
}

/* HHT-alpha (index-3 form, Negrut et al.) and generalized-alpha (Arnold &
 * Brüls), both as a Newmark update on the chart of A_n:
 *   (1 - am) a_{n+1} + am a_n = (1 - af) g_{n+1} + af g_n,
 *   v_{n+1} = v_n + h (1 - gam) a_n + h gam a_{n+1},
 *   dq = h v_n + h^2 (1/2 - beta) a_n + h^2 beta a_{n+1};
 * HHT: am = af = 0, forces blended (1 + alpha) Q_{n+1} - alpha Q_n. */
static int step_newmark(struct integ *it, struct dae3 *E, double h, struct ra_state *y)
{
	struct ra *s = it->sys;
	const struct ra_state *x = &E->hist[0];
	const struct coef *co = &E->co;
	double am = co->alpha_m, af = co->alpha_f, be = co->beta, ga = co->gam;
	double theta = 1.0 + co->alpha_hht;
	integ_acc_get(s, x, E->g);	/* g_n: the first iterate */
	for (int b = 0; b < E->nb; b++)
		for (int c = 0; c < 6; c++) {
			int i = 6 * b + c;
			double un = c < 3 ? x->v[3 * b + c] : x->w[3 * b + c - 3];
			double an = E->ap[i], k1 = (af * E->g[i] - am * an) / (1.0 - am);
			double *yh = E->yhat + 12 * b;
			yh[c] = h * un + h * h * ((0.5 - be) * an + be * k1);
			yh[6 + c] = un + h * ((1.0 - ga) * an + ga * k1);
			E->apn[i] = k1;	/* a_{n+1} = k1 + f g_{n+1}, completed below */
		}
	const double *ek = NULL;
	if (co->alpha_hht != 0.0) {
		/* ek = alpha (Phi_q^T lambda - Q)_n */
		ra_eval(s, x, x->t, PRIM_JAC);
		ra_forces(s, x, x->t, E->lamf, E->ek);
		ra_gyro(s, x, E->ek);
		ra_jac_tmul(s, x->lam, it->rhs);
		for (int i = 0; i < s->ng; i++)
			E->ek[i] = co->alpha_hht * (it->rhs[i] - E->ek[i]);
		ek = E->ek;
	}
	copy_lam(s, E->lam, x->lam);
	extrapolate(E, s, x->t, h);
	for (int k = 0; k < s->nc; k++)
		E->lam[k] *= theta;
	double f = (1.0 - af) / (1.0 - am);
	struct solve_in in = { x->t + h, h * ga * f, h * h * be * f, theta, 1, E->yhat, ek, x,
			       it->info->id == INTEG_NEWMARK };
	int st = dae3_solve(it, E, &in, y);
	if (st)
		return st;
	for (int i = 0; i < s->ng; i++)
		E->apn[i] += f * E->g[i];
	return INTEG_OK;
}

static int same_steps(const struct dae3 *E, int k, double h)
{
	for (int j = 0; j < k - 1; j++)
		if (fabs(E->hstep[j] - h) > 1e-10 * h)
			return 0;
	return 1;
}

/* One step of the scheme; est filled when an estimate exists (returns 1 in *has). */
int dae3_step_once(struct integ *it, struct dae3 *E, double h, struct ra_state *y, int *has)
{
	const struct coef *co = &E->co;
	*has = 0;
	E->aux = 0;
	switch (co->kind) {
	case COEF_LMS:
		if (E->nhist < co->k || E->trap_only) {
			if (E->startup_ss) {
				E->aux = 1;
				return step_ss(it, E, &E->ss, h, y);
			}
			return step_trap(it, E, h, y);
		}
		int same = same_steps(E, co->k, h);
		if (!same && co->k != 2)
			return step_trap(it, E, h, y);
		int sl = step_lms_const(it, E, co, h, y, !same);
		if (sl == INTEG_OK && E->adaptive && co->k == 2)
			*has = dae3_lms2_est(E, h, y);
		return sl;
	case COEF_SS:
		E->aux = 1;
		return step_ss(it, E, co, h, y);
	case COEF_DIRK:	/* estimate: step_doubled */
		return step_dirk(it, E, h, y);
	case COEF_NEWMARK:
		return step_newmark(it, E, h, y);
	}
	return INTEG_NEWTON_FAIL;
}
