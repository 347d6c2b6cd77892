/* dae3.c - the index-3 residual engine of seed 004 on the ra formulation.
 *
 * Coordinates of a step.  Rotations are handled as in 004 §3.1: each step
 * works in the chart of the last accepted orientation A_{n-1}; a body's
 * state is y = (r, psi, v, w) with A = A_{n-1} exp(psi~), and its
 * derivative y' = (v, Jr(psi)^-1 w, a, w-dot) (w body frame, Jr the right
 * Jacobian of exp).  Older states are brought into the chart by
 * psi_j = log(A_{n-1}^T A_j).  (004 uses Cayley-Gibbs-Rodrigues parameters;
 * the rotation vector serves the same purpose here.)
 *
 * Every implicit solve of every scheme has the form (004 eqs. 8a-8b)
 *   y = yhat + c y'            (LMS: c = h b0; SS: c = h P g_{2r-2}; DIRK: c = h gamma)
 * with yhat known; the unknowns are the accelerations g = (a, w-dot) and
 * the multipliers, and
 *   M g + w~ J w + Phi_q^T lambda = f(q, v, t),   Phi(q, t) / c^2 = 0.
 * Positions: v = vhat + c a, r = rhat + c v, w = what + c w-dot,
 * psi = psihat + c Jr(psi)^-1 w (a small fixed point per body).  The
 * Newmark family (HHT, generalized-alpha) uses v = vhat + cv g,
 * dq = qhat + cq g instead.  Constraint rows are scaled by 1/cq (1/(h b0)^2
 * on the positions, the scaling of 004 §2 carried to the accelerations).
 *
 * Newton: the matrix [[M + cv G + cq K + cv C, Phi_q^T], [Phi_q, 0]] with
 * G the gyroscopic derivative and K, C the body-diagonal translational
 * blocks of the spring-damper Jacobians (ra_force_blocks).  Dropped: the
 * Jacobian of the reaction forces (Phi_q^T lambda)_q (see blocks()), of the
 * other applied forces, of dexp^-1 in psi, and the coupling blocks between
 * bodies of the spring-dampers.  It is refactored at the start of each solve and
 * whenever the iteration contracts slowly (rate > 1/4).  Stop test as FI:
 * cq ||(dg, dlambda)||_2 < tolerance.
 *
 * Beams (issue 13; it->Wc): each element adds its 18 x 18 stiffness and
 * damping, cq K + cv C by differences of its nodal forces (ra_beam.c), as
 * dense 6 x 6 blocks of pairs of bodies (kkt_new_pairs: the full matrix,
 * KLU).  The matrix is then kept across solves while cq, cv, theta are
 * those it was made with and nothing else has factored the solver
 * (kkt_serial): a modified Newton method over steps (the rotating shaft at
 * 1e-4 s: a third of the time), unless the last solve needed more than
 * 5 iterations.  A solve on a kept matrix that contracts
 * slowly starts again from its first iterate with a new one.  And a
 * correction that more than doubles the residual (forces, constraints
 * over cq, 2-norm) is halved, up to 6 times, with a new matrix: a damped
 * Newton method, without which the higher-order DIRKs diverged at the
 * seed's steps where the lateral-buckling beam buckles and where the
 * four-bar's bar CD is stretched hardest (docs/results/004/flex).
 *
 * Index 2 (integrator.index: 2; every scheme but the Newmark family): the
 * stabilized index-2 formulation of Gear, Gupta and Leimkuhler (Hairer &
 * Wanner, Solving ODEs II, §VII.1, the "GGL" system; docs/REFERENCES.md):
 *   q' = u - Phi_q^T mu,   M u' + Phi_q^T lambda = f,
 *   Phi(q, t) = 0,   Phi_q u - nu = 0,
 * u = (v, w), with a second multiplier mu (zero on the exact solution).  The
 * position derivative of the chart becomes (v - pm_r, Jr^-1 (w - pm_w)),
 * pm = Phi_q^T mu, kept per stored state.  Newton: the velocity rows,
 * scaled by 1/c, take the place of the position rows in the same matrix
 * (unknowns g, lambda); then mu from the position rows, P P^T dmu = (Phi -
 * c (Phi_q u - nu)) / c, with the Schur complement of [I P^T; P 0] (the
 * derivative of P^T mu by q left out).  The velocity-level rows have index
 * 2, so stiffly accurate DIRKs reach min(p, q + 1) on positions (q the
 * stage order: 2 for the ESDIRKs and MSSTH of seed 004 with their explicit
 * first stage), i.e. 3, instead of 2 at index 3 (measured:
 * docs/results/004/orders.md).
 *
 * Predictors (004 §3.1): multistep, second-order Hermite (eq. 12); single
 * step and Newmark, constant (eq. 15); DIRK stages, constant at stage 1,
 * second-order from the two previous stages, fourth-order (eq. 16) at the
 * last stage of MSSTH4/5 and ESDIRK4(3)6L[2]SA2.
 *
 * Step control (integrator.adaptive): dae3_ctrl.c.
 */
#include "dae3_impl.h"
#include "../util/vec.h"
#include "../util/xalloc.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

void dae3_fix_redundant(struct integ *it, const int *rows, int n)
{
	struct dae3 *E = dae3_eng(it);
	if (E && E->kmu)
		kkt_fix_dropped(E->kmu, rows, n);
}

void dae3_singular_tol(struct integ *it, double tol)
{
	struct dae3 *E = dae3_eng(it);
	if (E && E->kmu)
		kkt_set_singular_tol(E->kmu, tol);
}

struct dae3 *dae3_eng(const struct integ *it)
{
	return (struct dae3 *)it->eng;
}

int dae3_init(struct integ *it, const struct sim_options *o)
{
	struct dae3 *E = xcalloc(1, sizeof(*E));
	const struct ra *s = it->sys;
	if (coef_make(it->info->name, o->rho_inf, o->alpha, &E->co)) {
		free(E);
		return -1;
	}
	if (E->co.kind == COEF_LMS) {
		char nm[8] = "ss2";
		nm[2] = (char)('0' + E->co.k);
		coef_make(nm, o->rho_inf, o->alpha, &E->ss);
	}
	E->adaptive = o->adaptive && it->info->adaptive;
	E->startup_ss = o->startup_ss;
	E->atol = o->atol;
	E->rtol = o->rtol;
	E->safety = o->safety;
	E->facmin = o->facmin;
	E->facmax = o->facmax;
	E->nb = s->nb;
	E->ny = 12 * s->nb;
	size_t ny = (size_t)E->ny + 1, ng = (size_t)s->ng + 1, nc = (size_t)s->nc + 1;
	for (int j = 0; j < NH; j++) {
		ra_state_init(s, &E->hist[j]);
		E->Y[j] = xcalloc(ny, sizeof(double));
		E->Yd[j] = xcalloc(ny, sizeof(double));
	}
	for (int i = 0; i < COEF_MAXS; i++) {
		E->SY[i] = xcalloc(ny, sizeof(double));
		E->SYd[i] = xcalloc(ny, sizeof(double));
	}
	for (int k = 0; k < 3; k++) {
		E->V[k] = xcalloc(ny, sizeof(double complex));
		E->Vn[k] = xcalloc(ny, sizeof(double complex));
	}
	E->ap = xcalloc(ng, sizeof(double));
	E->apn = xcalloc(ng, sizeof(double));
	if (it->Wc) {
		E->gold = xcalloc(ng, sizeof(double));
		E->lold = xcalloc(nc, sizeof(double));
		E->told = NAN;
	}
	E->yhat = xcalloc(ny, sizeof(double));
	E->Ynew = xcalloc(ny, sizeof(double));
	E->Ydnew = xcalloc(ny, sizeof(double));
	E->est = xcalloc(ny, sizeof(double));
	E->g = xcalloc(ng, sizeof(double));
	E->ek = xcalloc(ng, sizeof(double));
	E->psi = xcalloc((size_t)3 * s->nb + 1, sizeof(double));
	E->lam = xcalloc(nc, sizeof(double));
	E->g0 = xcalloc(ng, sizeof(double));
	E->lam0 = xcalloc(nc, sizeof(double));
	E->lamf = xcalloc(nc, sizeof(double));
	if (it->info->id == INTEG_NEWMARK)
		E->Wgeo = xcalloc((size_t)18 * s->nb + 1, sizeof(double));
	if (it->Wc)
		E->Tinv = xcalloc((size_t)9 * s->nb + 1, sizeof(double));
	E->h_max = o->max_step > 0 ? o->max_step : o->t_end - o->t0;
	E->index = o->index == 2 ? 2 : 3;
	E->span = o->t_end - o->t0;
	ra_state_init(s, &E->ybig);
	ra_state_init(s, &E->ymid);
	E->Ybig = xcalloc(ny, sizeof(double));
	E->pm = xcalloc(ng, sizeof(double));
	for (int j = 0; j < NH; j++)
		E->PM[j] = xcalloc(ng, sizeof(double));
	if (E->index == 2) {
		E->mu = xcalloc(nc, sizeof(double));
		E->dmu = xcalloc(nc, sizeof(double));
		E->vres = xcalloc(nc, sizeof(double));
		E->u = xcalloc(ng, sizeof(double));
		E->xmu = xcalloc(ng, sizeof(double));
		E->Wid = xcalloc((size_t)18 * s->nb + 1, sizeof(double));
		for (int b = 0; b < s->nb; b++)
			for (int c = 0; c < 3; c++)
				E->Wid[18 * b + 4 * c] = E->Wid[18 * b + 9 + 4 * c] = 1.0;
		E->kmu = kkt_new(s->nb, s->nc, s->bi, s->bj, kkt_mode_of(it->kkt));
		kkt_set_rows(E->kmu, s->jo);
	}
	it->eng = E;
	return 0;
}

void dae3_free(struct integ *it)
{
	struct dae3 *E = dae3_eng(it);
	if (!E)
		return;
	for (int j = 0; j < NH; j++) {
		ra_state_release(&E->hist[j]);
		free(E->Y[j]);
		free(E->Yd[j]);
	}
	for (int i = 0; i < COEF_MAXS; i++) {
		free(E->SY[i]);
		free(E->SYd[i]);
	}
	for (int k = 0; k < 3; k++) {
		free(E->V[k]);
		free(E->Vn[k]);
	}
	free(E->ap);
	free(E->gold);
	free(E->lold);
	free(E->apn);
	free(E->Wgeo);
	free(E->Tinv);
	free(E->yhat);
	free(E->Ynew);
	free(E->Ydnew);
	free(E->est);
	free(E->g);
	free(E->ek);
	free(E->psi);
	free(E->lam);
	free(E->g0);
	free(E->lam0);
	free(E->lamf);
	free(E->pm);
	ra_state_release(&E->ybig);
	ra_state_release(&E->ymid);
	free(E->Ybig);
	for (int j = 0; j < NH; j++)
		free(E->PM[j]);
	free(E->mu);
	free(E->dmu);
	free(E->vres);
	free(E->u);
	free(E->xmu);
	free(E->Wid);
	kkt_free(&E->kmu);
	free(E);
	it->eng = NULL;
}

int dae3_stages(const struct integ *it)
{
	const struct dae3 *E = dae3_eng(it);
	return E->co.kind == COEF_DIRK ? E->co.s - 1 : 1;
}

/* y, y' of state x in the chart of orientations Aref; pm = Phi_q^T mu
 * of x (index 2: q' = (v, w) - pm; zero at index 3) */
void dae3_chart(const struct dae3 *E, const struct ra_state *x, const double *Aref,
		  double *Y, double *Yd, const double *pm)
{
	for (int b = 0; b < E->nb; b++) {
		double R[9], psi[3], Ji[9], *y = Y + 12 * b, *yd = Yd + 12 * b;
		m3_tmul(R, Aref + 9 * b, x->A + 9 * b);
		so3_log(psi, R);
		so3_jrinv(Ji, psi);
		v3_copy(y, x->r + 3 * b);
		v3_copy(y + 3, psi);
		v3_copy(y + 6, x->v + 3 * b);
		v3_copy(y + 9, x->w + 3 * b);
		double wq[3];
		for (int c = 0; c < 3; c++) {
			yd[c] = x->v[3 * b + c] - pm[6 * b + c];
			wq[c] = x->w[3 * b + c] - pm[6 * b + 3 + c];
		}
		m3_mulv(yd + 3, Ji, wq);
		v3_copy(yd + 6, x->a + 3 * b);
		v3_copy(yd + 9, x->wd + 3 * b);
	}
}

/* The map from accelerations g to the state y (see the header). */
struct solve_in {
	double t, cv, cq, theta;
	int newmark;
	const double *yhat;	/* DIRK: 12 nb; Newmark: (qhat, vhat) 12 nb */
	const double *ek;	/* known part of the residual, or NULL */
	const struct ra_state *ref;	/* chart origin */
	int geo;		/* add the reactions' stiffness to W (classical newmark) */
};

/* Beams (E->gold): Newton's first iterate g, lambda (the step's start,
 * t) moved along the line through the last step's start: a_n + h (a_n -
 * a_old) / (t - t_old), exact for accelerations linear in time, against
 * the constant a_n (an error of h a' instead of h^2 a'' / 2).  On the
 * rotating shaft (genalpha, 1e-4 s) 1.64 Newton iterations a step instead
 * of 2.21 (with the rate's stop test most steps converge at the first
 * iterate), its mid-span positions moved by 6.5e-8 m of 0.27 m (the
 * Newton tolerance is 1e-8 m); on the lateral buckling beam 5.15 instead
 * of 5.29.  Used by the newmark family and the single-step ss schemes;
 * the LMS predict from their own history (predict()). */
static void extrapolate(struct dae3 *E, const struct ra *s, double t, double h)
{
	if (!E->gold)
		return;
	double r = t > E->told ? h / (t - E->told) : 0.0;	/* 0: a first step */
	for (int i = 0; i < s->ng; i++) {
		double gn = E->g[i];
		E->g[i] += r * (gn - E->gold[i]);
		E->gold[i] = gn;
	}
	for (int k = 0; k < s->nc; k++) {
		double ln = E->lam[k];
		E->lam[k] += r * (ln - E->lold[k]);
		E->lold[k] = ln;
	}
	E->told = t;
}

static void kin(struct dae3 *E, const struct solve_in *in, const double *g, struct ra_state *y)
{
	const double *Aref = in->ref->A;
	for (int b = 0; b < E->nb; b++) {
		const double *yh = in->yhat + 12 * b, *gb = g + 6 * b;
		double *r = y->r + 3 * b, *v = y->v + 3 * b, *w = y->w + 3 * b;
		double *psi = E->psi + 3 * b, R[9];
		if (in->newmark) {
			for (int c = 0; c < 3; c++) {
				r[c] = in->ref->r[3 * b + c] + yh[c] + in->cq * gb[c];
				psi[c] = yh[3 + c] + in->cq * gb[3 + c];
				v[c] = yh[6 + c] + in->cv * gb[c];
				w[c] = yh[9 + c] + in->cv * gb[3 + c];
			}
		} else {
			double c0 = in->cv, wq[3];
			const double *pm = E->pm + 6 * b;	/* index 2: q' = u - pm */
			for (int c = 0; c < 3; c++) {
				v[c] = yh[6 + c] + c0 * gb[c];
				r[c] = yh[c] + c0 * (v[c] - pm[c]);
				w[c] = yh[9 + c] + c0 * gb[3 + c];
				wq[c] = w[c] - pm[3 + c];
			}
			/* psi = psihat + c Jr(psi)^-1 w: contraction of rate ~ c |w| / 2 */
			for (int k = 0; k < 30; k++) {
				double Ji[9], d[3], old[3];
				v3_copy(old, psi);
				so3_jrinv(Ji, psi);
				m3_mulv(d, Ji, wq);
				for (int c = 0; c < 3; c++)
					psi[c] = yh[3 + c] + c0 * d[c];
				double ch = fabs(psi[0] - old[0]) + fabs(psi[1] - old[1]) +
					    fabs(psi[2] - old[2]);
				/* two ulps of psi, or of 1 rad when psi is smaller:
				 * a bound of one ulp or less is missed by round-off
				 * 2-cycles, which then ran to the cap, and A_ref
				 * exp(psi~), whose entries are of order 1, does not
				 * resolve changes of psi below an ulp of 1 (the
				 * absolute floor saves one of 3.5 passes a body on
				 * the lateral buckling beam, where psi ~ 1e-3) */
				if (ch <= 2.0 * DBL_EPSILON *
						  fmax(1.0, fabs(psi[0]) + fabs(psi[1]) + fabs(psi[2])))
					break;
			}
		}
		so3_exp(R, psi);
		m3_mul(y->A + 9 * b, Aref + 9 * b, R);
	}
}

/* W = diag(m I, J) + theta cv (w~ J - (J w)~) + spring-damper blocks.
 * The reactions' body-local stiffness (ra_geo, kept by fi.c) is left out
 * for every scheme but the classical newmark: with it lms2 failed on the
 * 512-link chain at h = 1e-3 (singular iteration matrix at step 1),
 * without it the run completes.
 *
 * Classical newmark (in->geo): seed 002 §2 solves its step by a full
 * Newton method, whose matrix has the reactions' stiffness
 * d(Phi_q^T lambda)/dq (002 eq. 7's iteration matrix; the K of its
 * eq. 8 includes it).  Without it the trapezoidal rule on the stiff
 * pendulum (002 §3, Fig. 6) stopped at the first step from h = 0.6 s on:
 * the link's tension times h^2 beta outweighs the mass, so the quasi-Newton
 * iteration diverges.  Added here as ra_geo's part local to each body,
 * scaled by d q / d g = cq (lam is theta lambda; theta = 1 for newmark),
 * its rotational block times Jr(psi) (A = A_ref exp(psi~), psi = psihat +
 * cq w-dot), as fi.c does with Jr(h w).  For a particle or a body joined
 * only to the ground that is the whole stiffness; the couplings between
 * two bodies are left out, as in fi.c. */
/* Beams: the rotation unknowns of the Newton matrix are u = T g_w, with
 * T the map from angular accelerations to body-frame rotations over cq,
 * d theta = cq T d g_w (A = A_ref exp(psi~), d theta = Jr(psi) d psi):
 *  - newmark: psi = psihat + cq g_w, T = Jr(psi);
 *  - the others: psi = psihat + c Jr(psi)^-1 (w - pm), w = what + c g_w
 *    (c = cv, cq = c^2), d psi = c (I - c D)^-1 Jr^-1 c d g_w with
 *    D = d(Jr(psi)^-1 (w - pm))/d psi, T = Jr (I - c D)^-1 Jr^-1.
 * The element's blocks (differences in theta) and the constraint rows are
 * then exact in u, and only the body's own rotational block, the inertia
 * and gyroscopic terms made in g_w, is multiplied by T^-1; solve() maps
 * the correction back, d g_w = T^-1 u.  T differs from I by about c |w|
 * (the rotation of a step), which for rigid bodies is small against their
 * inertia, but a beam's stiffness times cq outweighs its nodes' inertia
 * by orders: on the lateral buckling beam (lms2, 1e-3 s, t = 0.606 s) the
 * residual's change along the first correction missed the matrix's
 * prediction by 0.9 % without T and by 7e-6 with it (differences of the
 * residual).  The iteration counts barely move (5.33 -> 5.21 a step: the
 * chord matrix's error from the first iterate to the solution dominates),
 * but esdirk436l2sa2 at the seed's 5e-3 s, which lives at the edge of
 * Newton's reach where the beam snaps, completed at 5 of 5 Newton
 * tolerances around the default with T against 4 of 5 without (and 3 of 5
 * before the damped iteration's last changes).  D by central differences
 * of Jr^-1 (step 1e-6 rad: error about 1e-10 relative).  Velocity
 * columns of beam damping (cv C) are left in g_w: they differ by the same
 * O(c |w|), times a damping far below the stiffness.  Tinv is kept with
 * the matrix. */
static void beam_chart(struct integ *it, struct dae3 *E, const struct ra_state *y,
		       const struct solve_in *in)
{
	for (int b = 0; b < E->nb; b++) {
		const double *psi = E->psi + 3 * b;
		double *Ti = E->Tinv + 9 * b, Jr[9], Ji[9], D[9], P[9], Q[9], u[3];
		so3_jrinv(Ji, psi);
		if (in->newmark) {
			memcpy(Ti, Ji, sizeof Ji);
			continue;
		}
		so3_jr(Jr, psi);
		for (int c = 0; c < 3; c++)
			u[c] = y->w[3 * b + c] - E->pm[6 * b + 3 + c];
		for (int k = 0; k < 3; k++) {
			double pp[3], pn[3], Jp[9], Jn[9], vp[3], vn[3], d = 1e-6;
			v3_copy(pp, psi);
			v3_copy(pn, psi);
			pp[k] += d;
			pn[k] -= d;
			so3_jrinv(Jp, pp);
			so3_jrinv(Jn, pn);
			m3_mulv(vp, Jp, u);
			m3_mulv(vn, Jn, u);
			for (int r = 0; r < 3; r++)
				D[3 * r + k] = (vp[r] - vn[r]) / (2.0 * d);
		}
		/* T^-1 = Jr (I - c D) Jr^-1 */
		for (int e = 0; e < 9; e++)
			P[e] = (e % 4 == 0 ? 1.0 : 0.0) - in->cv * D[e];
		m3_mul(Q, Jr, P);
		m3_mul(Ti, Q, Ji);
	}
}

static void blocks(struct integ *it, struct dae3 *E, const struct ra_state *y, double t,
		   const struct solve_in *in, const double *lam)
{
	ra_mass_blocks(it->sys, it->W);
	integ_gyro_blocks(it, y, in->theta * in->cv);
	if (it->Wc) {	/* in the unknowns u (beam_chart) */
		beam_chart(it, E, y, in);
		for (int b = 0; b < E->nb; b++) {
			double *Wr = it->W + 18 * b + 9, P[9];
			m3_mul(P, Wr, E->Tinv + 9 * b);
			memcpy(Wr, P, sizeof P);
		}
	}
	ra_force_blocks(it->sys, y, t, in->theta * in->cq, in->theta * in->cv, it->W);
	if (it->Wc)
		ra_beam_blocks(it->sys, y, in->theta * in->cq, in->theta * in->cv, it->Wc);
	if (in->geo && E->Wgeo) {
		const struct ra *s = it->sys;
		memset(E->Wgeo, 0, (size_t)18 * s->nb * sizeof(double));
		ra_geo(s, y, t, lam, in->cq, E->Wgeo);
		for (int b = 0; b < s->nb; b++) {
			double *Wb = it->W + 18 * b, *Gb = E->Wgeo + 18 * b, Jr[9], KJ[9];
			/* in theta (beams: the unknowns u) or in g_w */
			if (it->Wc)
				m3_identity(Jr);
			else
				so3_jr(Jr, E->psi + 3 * b);
			m3_mul(KJ, Gb + 9, Jr);
			for (int e = 0; e < 9; e++) {
				Wb[e] += Gb[e];
				Wb[9 + e] += KJ[e];
			}
		}
	}
}

/* Index 2: the velocity rows replace the position rows of the Newton
 * system, it->dl = -(Phi_q u - nu) / c, u = (v, w) at y; E->vres keeps
 * Phi_q u - nu, s->phi keeps Phi (both at y). */
static void ggl_rows(struct integ *it, struct dae3 *E, const struct ra_state *y,
		     const struct solve_in *in)
{
	struct ra *s = it->sys;
	ra_eval(s, y, in->t, PRIM_PHI | PRIM_JAC | PRIM_NU);
	for (int b = 0; b < E->nb; b++) {
		v3_copy(E->u + 6 * b, y->v + 3 * b);
		v3_copy(E->u + 6 * b + 3, y->w + 3 * b);
	}
	ra_jac_mul(s, E->u, E->vres);
	for (int k = 0; k < s->nc; k++) {
		E->vres[k] -= s->nu[k];
		it->dl[k] = -E->vres[k] / in->cv;
	}
}

/* Index 2: the mu update from the position rows.  With dq = c^2 dg -
 * c P^T dmu and c P dg = -vres (the velocity rows), Phi + P dq = 0 gives
 * P P^T dmu = (Phi - c vres) / c; [I P^T; P 0] [x; z] = [0; b] has z =
 * -(P P^T)^-1 b.  Returns |dmu|. */
static double ggl_mu(struct integ *it, struct dae3 *E, double c)
{
	struct ra *s = it->sys;
	for (int k = 0; k < s->nc; k++)
		it->dl[k] = -(s->phi[k] - c * E->vres[k]) / c;
	kkt_solve(E->kmu, NULL, it->dl, E->xmu, E->dmu);
	for (int k = 0; k < s->nc; k++)
		E->mu[k] += E->dmu[k];
	ra_jac_tmul(s, E->mu, E->pm);
	return integ_norm2(E->dmu, s->nc, NULL, 0);
}

/* Newton on one implicit solve: g, lam hold the guess and receive the
 * solution; y receives the state. */
static int solve(struct integ *it, struct dae3 *E, const struct solve_in *in, struct ra_state *y)
{
	struct ra *s = it->sys;
	int nb = s->nb, nc = s->nc, ng = s->ng, it_n = 0, refactor = 1, ok = 0;
	double *g = E->g, *lam = E->lam, *e = it->rhs, prev = 0.0;
	int ggl = E->index == 2;
	for (int b = 0; b < nb; b++)	/* fixed-point start for psi */
		v3_copy(E->psi + 3 * b, in->yhat + 12 * b + 3);
	if (ggl) {	/* the last solve's mu is the first iterate */
		/* (after a failed attempt mu is 0 while the Jacobian may still
		 * be the diverged iterate's, non-finite: 0 times NaN poisoned
		 * every retry, down to h = 1e-12 on Andrews' squeezer) */
		int zero = 1;
		for (int k = 0; k < nc && zero; k++)
			zero = E->mu[k] == 0.0;
		if (zero)
			memset(E->pm, 0, (size_t)6 * nb * sizeof(double));
		else
			ra_jac_tmul(s, E->mu, E->pm);
	}
	/* with beams the matrix (18 x 18 blocks by differences, a sparse LU)
	 * is kept from the last solve when nothing it depends on but the
	 * state has changed: a modified Newton method, refactored below as
	 * soon as it contracts slowly */
	int stale = 0, since = 0;	/* iterations since the last (re)start */
	/* (the run's clock makes steps that differ in their last bits: the
	 * coefficients are compared to 1e-9, far below what moves Newton) */
	if (it->Wc && !ggl && E->fserial && E->fserial == kkt_serial(it->kkt) &&
	    fabs(E->fcq - in->cq) <= 1e-9 * in->cq && fabs(E->fcv - in->cv) <= 1e-9 * in->cv &&
	    E->fth == in->theta) {
		refactor = 0;
		stale = 1;	/* a slow start goes back to the first iterate */
		memcpy(E->g0, g, (size_t)ng * sizeof(double));
		memcpy(E->lam0, lam, (size_t)nc * sizeof(double));
	}
	double rprev = 0.0;	/* beams: the residual's norm at the last iterate */
	int nback = 0;
	while (it_n < it->maxit) {
		kin(E, in, g, y);
		kkt_zero_dropped(it->kkt, lam);	/* redundant rows: kkt.h */
		integ_residual(it, y, in->t, E->lamf, g, lam, in->theta, in->cq);
		if (ggl)
			ggl_rows(it, E, y, in);
		if (in->ek)
			for (int i = 0; i < ng; i++)
				e[i] += in->ek[i];
		if (it->Wc && !ggl) {
			/* beams: a correction that raises the residual (forces,
			 * and constraints over cq) is halved, up to 6 times: a
			 * damped Newton method where buckling makes the full step
			 * overshoot */
			double r = integ_norm2(e, ng, it->dl, nc);
			if (it_n > 0 && !(r <= 2.0 * rprev) && nback < 6) {
				nback++;
				for (int i = 0; i < ng; i++) {
					it->dg[i] *= 0.5;
					g[i] -= it->dg[i];
				}
				for (int k = 0; k < nc; k++) {
					it->dl2[k] *= 0.5;
					lam[k] -= it->dl2[k];
				}
				refactor = 1;
				continue;
			}
			nback = 0;
			rprev = r;
		}
		if (refactor) {
			blocks(it, E, y, in->t, in, lam);
			if (kkt_factor_pairs(it->kkt, it->W, it->Wc, s->jac) ||
			    (ggl && kkt_factor(E->kmu, E->Wid, s->jac))) {
				it->bad_row = kkt_bad_row(it->kkt);
				it->iters += it_n;
				return INTEG_SINGULAR;
			}
			it->factorizations++;
			refactor = 0;
			E->fserial = kkt_serial(it->kkt);
			E->fcq = in->cq;
			E->fcv = in->cv;
			E->fth = in->theta;
		}
		kkt_solve(it->kkt, e, it->dl, it->dg, it->dl2);
		if (it->Wc)	/* d g_w = T^-1 u (beam_chart) */
			for (int b = 0; b < nb; b++) {
				double *u = it->dg + 6 * b + 3, o[3];
				m3_mulv(o, E->Tinv + 9 * b, u);
				v3_copy(u, o);
			}
		double dmu = ggl ? ggl_mu(it, E, in->cv) : 0.0;
		for (int i = 0; i < ng; i++)
			g[i] += it->dg[i];
		for (int k = 0; k < nc; k++)
			lam[k] += it->dl2[k];
		it_n++;
		since++;
		double dn = integ_norm2(it->dg, ng, it->dl2, nc);
		double nrm = fmax(in->cq * dn, in->cv * dmu);
		it->last_norm = nrm;
		if (stale && since > 1 && nrm > 0.25 * prev && nrm <= prev) {
			/* the kept matrix contracts, slowly: a new one at this
			 * iterate (on the lateral buckling beam, lms2 at 1e-3 s,
			 * 5.3 iterations a step instead of 6.2 from the first
			 * iterate again; bench/README, "beams") */
			stale = 0;
			since = 0;
			refactor = 1;
			prev = 0.0;
			continue;
		}
		if (stale && since > 1 && !(nrm <= 0.25 * prev)) {
			/* the kept matrix does not serve this solve: from the
			 * first iterate again with a new one */
			memcpy(g, E->g0, (size_t)ng * sizeof(double));
			memcpy(lam, E->lam0, (size_t)nc * sizeof(double));
			for (int b = 0; b < nb; b++)
				v3_copy(E->psi + 3 * b, in->yhat + 12 * b + 3);
			stale = 0;
			since = 0;
			refactor = 1;
			prev = 0.0;
			continue;
		}
		/* (fmax drops a NaN: dn is tested itself) */
		if (!isfinite(nrm) || !isfinite(dn)) {
			E->fserial = 0;
			integ_note_worst(it);
			it->iters += it_n;
			return INTEG_NONFINITE;
		}
		/* converged, or the correction is at the round-off of the iterate;
		 * with beams (a kept or chord matrix: linear contraction at a
		 * rate th = nrm / prev) also when the error left in the iterate,
		 * th / (1 - th) nrm by the rate, is below the tolerance (Hairer
		 * & Wanner, Solving ODEs II, §IV.8, eq. 8.10): the rotating shaft
		 * at 1e-4 s takes 2.2 iterations a step instead of 2.8 */
		if (nrm < it->tol || dn <= 1e-14 * integ_norm2(g, ng, lam, nc) ||
		    (it->Wc && since > 1 && nrm < prev && nrm * nrm < it->tol * (prev - nrm))) {
			ok = 1;
			break;
		}
		if (since > 1 && nrm > 0.25 * prev)
			refactor = 1;
		prev = nrm;
	}
	it->iters += it_n;
	if (!ok) {
		E->fserial = 0;
		integ_note_worst(it);
		return INTEG_NEWTON_FAIL;
	}
	/* beams: a solve that needed more than 5 iterations since its last
	 * (re)start leaves no matrix to keep (the next solve makes a new
	 * one): on the lateral buckling beam (lms2, 1e-3 s) the kept matrix
	 * had cost 8.1 iterations a step (6.6 now, 4.8 always fresh), on the
	 * rotating shaft at 1e-4 s 4.4 (3.6 now); CPU 0.159 -> 0.138 s and
	 * 2.41 -> 2.10 s (bench/README, "beams").  A bound of 4 gained a
	 * little more but made a new matrix at a singular point of the
	 * buckling with esdirk436l2sa2 at 5e-3 s (tests/t-beam.sh). */
	if (it->Wc && since > 5)
		E->fserial = 0;
	kin(E, in, g, y);
	y->t = in->t;
	integ_acc_put(s, g, y);
	for (int k = 0; k < nc; k++)
		y->lam[k] = lam[k] / in->theta;
	return INTEG_OK;
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

static void copy_lam(const struct ra *s, double *dst, const double *src)
{
	memcpy(dst, src, (size_t)s->nc * sizeof(double));
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
	struct solve_in in = { x->t + h, hb[0], hb[0] * hb[0], 1.0, 0, E->yhat, NULL, x, 0 };
	return solve(it, E, &in, y);
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
	return solve(it, E, &in, y);
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
	int st = solve(it, E, &in, y);
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
		int st = solve(it, E, &in, y);
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
	int st = solve(it, E, &in, y);
	if (st)
		return st;
	for (int i = 0; i < s->ng; i++)
		E->apn[i] += f * E->g[i];
	return INTEG_OK;
}

/* --- history ---------------------------------------------------------- */

void dae3_start(struct integ *it, struct dae3 *E, const struct ra_state *x)
{
	const struct ra *s = it->sys;
	ra_state_copy(s, &E->hist[0], x);
	E->nhist = 1;
	for (int j = 0; j < NH; j++)
		memset(E->PM[j], 0, (size_t)s->ng * sizeof(double));
	memset(E->pm, 0, (size_t)s->ng * sizeof(double));
	if (E->mu)
		memset(E->mu, 0, (size_t)s->nc * sizeof(double));
	dae3_chart(E, x, x->A, E->Y[0], E->Yd[0], E->PM[0]);
	for (int k = 0; k < 3; k++)
		for (int i = 0; i < E->ny; i++)
			E->V[k][i] = E->Yd[0][i];
	integ_acc_get(s, x, E->ap);
	copy_lam(s, E->lamf, x->lam);
}

/* The auxiliary variables and the acceleration buffers of the step just
 * taken become the current ones, or (pop) the previous ones again: the
 * same exchange either way. */
static void swap_step_buffers(struct dae3 *E)
{
	if (E->aux)
		for (int k = 0; k < 3; k++) {
			double complex *t = E->V[k];
			E->V[k] = E->Vn[k];
			E->Vn[k] = t;
		}
	double *t = E->ap;
	E->ap = E->apn;
	E->apn = t;
}

void dae3_push(struct integ *it, struct dae3 *E, const struct ra_state *y)
{
	struct ra_state last = E->hist[NH - 1];
	double *lpm = E->PM[NH - 1];
	for (int j = NH - 1; j > 0; j--) {
		E->hist[j] = E->hist[j - 1];
		E->hstep[j] = E->hstep[j - 1];
		E->PM[j] = E->PM[j - 1];
	}
	E->hist[0] = last;
	E->PM[0] = lpm;
	memcpy(lpm, E->pm, (size_t)it->sys->ng * sizeof(double));
	ra_state_copy(it->sys, &E->hist[0], y);
	E->hstep[0] = y->t - E->hist[1].t;
	if (E->nhist < NH)
		E->nhist++;
	swap_step_buffers(E);
	copy_lam(it->sys, E->lamf, y->lam);
}

/* Undo push (the doubled step's midpoint): hist[0] is the state before
 * it again; the oldest stored state is lost (only multistep schemes use
 * it, and they never double). */
void dae3_pop(struct integ *it, struct dae3 *E)
{
	struct ra_state first = E->hist[0];
	double *fpm = E->PM[0];
	for (int j = 0; j < NH - 1; j++) {
		E->hist[j] = E->hist[j + 1];
		E->hstep[j] = E->hstep[j + 1];
		E->PM[j] = E->PM[j + 1];
	}
	E->hist[NH - 1] = first;
	E->PM[NH - 1] = fpm;
	E->nhist--;
	swap_step_buffers(E);
	copy_lam(it->sys, E->lamf, E->hist[0].lam);
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

/* --- linear analysis -------------------------------------------------- */

static int nstore(const struct dae3 *E)
{
	return E->co.kind == COEF_LMS ? E->co.k : 1;
}

static int naux(const struct dae3 *E)
{
	if (E->co.kind == COEF_SS)
		return E->co.r - 1;
	return 0;
}

int dae3_slots(struct integ *it)
{
	const struct dae3 *E = dae3_eng(it);
	return 3 * nstore(E) + 4 * naux(E) + (E->co.kind == COEF_NEWMARK ? 1 : 0);
}

/* Slots in the units of positions: velocities times dt, accelerations
 * times dt^2 (keeps the columns of the amplification matrix of one size). */
static void slots_io(struct integ *it, int comp, double dt, double *v, int set)
{
	struct dae3 *E = dae3_eng(it);
	int n = 0;
	double sc[3] = { 1.0, dt, dt * dt };
	for (int j = 0; j < nstore(E); j++) {
		double *p[3] = { &E->hist[j].r[comp], &E->hist[j].v[comp], &E->hist[j].a[comp] };
		for (int q = 0; q < 3; q++, n++)
			if (set)
				*p[q] = v[n] / sc[q];
			else
				v[n] = *p[q] * sc[q];
	}
	for (int k = 0; k < naux(E); k++)
		for (int part = 0; part < 2; part++) {
			double complex *z = &E->V[k][part ? 6 + comp : comp];
			double f = sc[1 + part];
			if (set) {
				*z = (v[n] + I * v[n + 1]) / f;
			} else {
				v[n] = creal(*z) * f;
				v[n + 1] = cimag(*z) * f;
			}
			n += 2;
		}
	if (E->co.kind == COEF_NEWMARK) {
		if (set)
			E->ap[comp] = v[n] / sc[2];
		else
			v[n] = E->ap[comp] * sc[2];
	}
}

void dae3_get(struct integ *it, int comp, double dt, double *v)
{
	slots_io(it, comp, dt, v, 0);
}

void dae3_set(struct integ *it, int comp, double dt, const double *v)
{
	slots_io(it, comp, dt, (double *)v, 1);
}

void dae3_prime(struct integ *it, const struct ra_state *x, double h)
{
	struct dae3 *E = dae3_eng(it);
	dae3_start(it, E, x);
	for (int j = 1; j < NH; j++) {
		ra_state_copy(it->sys, &E->hist[j], x);
		E->hist[j].t = x->t - j * h;
	}
	for (int j = 0; j < NH; j++)
		E->hstep[j] = h;
	E->nhist = NH;
}

const struct ra_state *dae3_last(const struct integ *it)
{
	return &dae3_eng(it)->hist[0];
}
