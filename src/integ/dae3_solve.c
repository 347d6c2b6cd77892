/* dae3_solve.c - the implicit solve of the dae3 engine (dae3.c): Newton
 * for the accelerations and multipliers of y = yhat + c y', and its matrix.
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
 * Beams (issue 13; E->Wc): each element adds its 18 x 18 stiffness and
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
 */
#include "dae3_impl.h"
#include "../util/vec.h"
#include "../util/interrupt.h"

#include <float.h>
#include <math.h>
#include <string.h>

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
			/* psi = psihat + c Jr(psi)^-1 w: contraction of rate ~ c |w| / 2,
			 * bounded by c |w| */
			double rate = c0 * sqrt(v3_dot(wq, wq));
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
				/* (and so does a next change, at most rate ch,
				 * below it: the pass that only confirmed it cost
				 * a tenth of the four-bar's Newton iteration;
				 * bench/README, "Beams: issue 36") */
				if (ch * fmin(1.0, rate) <= 2.0 * DBL_EPSILON *
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
	if (E->Wc) {	/* in the unknowns u (beam_chart) */
		beam_chart(it, E, y, in);
		for (int b = 0; b < E->nb; b++) {
			double *Wr = it->W + 18 * b + 9, P[9];
			m3_mul(P, Wr, E->Tinv + 9 * b);
			memcpy(Wr, P, sizeof P);
		}
	}
	ra_force_blocks(it->sys, y, t, in->theta * in->cq, in->theta * in->cv, it->W);
	if (E->Wc)
		ra_beam_blocks(it->sys, y, in->theta * in->cq, in->theta * in->cv, E->Wc);
	if (in->geo && E->Wgeo) {
		const struct ra *s = it->sys;
		memset(E->Wgeo, 0, (size_t)18 * s->nb * sizeof(double));
		ra_geo(s, y, t, lam, in->cq, E->Wgeo);
		for (int b = 0; b < s->nb; b++) {
			double *Wb = it->W + 18 * b, *Gb = E->Wgeo + 18 * b, Jr[9], KJ[9];
			/* in theta (beams: the unknowns u) or in g_w */
			if (E->Wc)
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
/* beams' damped Newton: take back half of the last correction (it->dg,
 * it->dl2) from the iterate g, lam */
static void halve_correction(struct integ *it, double *g, int ng, double *lam, int nc)
{
	for (int i = 0; i < ng; i++) {
		it->dg[i] *= 0.5;
		g[i] -= it->dg[i];
	}
	for (int k = 0; k < nc; k++) {
		it->dl2[k] *= 0.5;
		lam[k] -= it->dl2[k];
	}
}

int dae3_solve(struct integ *it, struct dae3 *E, const struct solve_in *in, struct ra_state *y)
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
	if (E->Wc && !ggl && E->fserial && E->fserial == kkt_serial(it->kkt) &&
	    fabs(E->fcq - in->cq) <= 1e-9 * in->cq && fabs(E->fcv - in->cv) <= 1e-9 * in->cv &&
	    E->fth == in->theta) {
		refactor = 0;
		stale = 1;	/* a slow start goes back to the first iterate */
		memcpy(E->g0, g, (size_t)ng * sizeof(double));
		memcpy(E->lam0, lam, (size_t)nc * sizeof(double));
	}
	double rprev = 0.0;	/* beams: the residual's norm at the last iterate */
	double tol = it->tol, nmin = INFINITY;
	int nback = 0, ndiv = 0, flat = 0;
	while (it_n < it->maxit) {
		if (interrupted())
			return INTEG_INTERRUPTED;
		kin(E, in, g, y);
		/* no correction is asked below the round-off of the positions
		 * it moves, 4 eps |r|_2 (a tolerance of 1e-14 on the 128-link
		 * chain, |r|_2 = 1.5e3 m, could never be met) */
		if (it_n == 0)
			tol = fmax(it->tol, 4.0 * DBL_EPSILON * integ_norm2(y->r, 3 * nb, NULL, 0));
		kkt_zero_dropped(it->kkt, lam);	/* redundant rows: kkt.h */
		integ_residual(it, y, in->t, integ_lamf(it, y, lam, in->theta, E->lamf), g, lam,
			       in->theta, in->cq);
		if (ggl)
			ggl_rows(it, E, y, in);
		if (in->ek)
			for (int i = 0; i < ng; i++)
				e[i] += in->ek[i];
		if (E->Wc && !ggl) {
			/* beams: a correction that raises the residual (forces,
			 * and constraints over cq) is halved, up to 6 times: a
			 * damped Newton method where buckling makes the full step
			 * overshoot */
			double r = integ_norm2(e, ng, it->dl, nc);
			if (it_n > 0 && !(r <= 2.0 * rprev) && nback < 6) {
				nback++;
				halve_correction(it, g, ng, lam, nc);
				refactor = 1;
				continue;
			}
			nback = 0;
			rprev = r;
		}
		if (refactor) {
			blocks(it, E, y, in->t, in, lam);
			if (kkt_factor_pairs(it->kkt, it->W, E->Wc, s->jac) ||
			    (ggl && kkt_factor(E->kmu, E->Wid, s->jac))) {
				it->bad_row = kkt_bad_row(it->kkt);
				it->iters += it_n;
				return INTEG_SINGULAR;
			}
			it->factorizations++;
			refactor = 0;
			if (s->lr && !E->Wc &&
			    ra_lr_make(s, it->kkt, y, y->lam, in->theta * in->cv)) {
				it->iters += it_n;
				return INTEG_SINGULAR;
			}
			E->fserial = kkt_serial(it->kkt);
			E->fcq = in->cq;
			E->fcv = in->cv;
			E->fth = in->theta;
		}
		kkt_solve(it->kkt, e, it->dl, it->dg, it->dl2);
		/* shortened: no test of convergence */
		int damped = !E->Wc && ra_lr_correct(s, y, it->dg, it->dl2, in->cv) < 1.0;
		if (damped)
			refactor = 1;
		if (E->Wc)	/* d g_w = T^-1 u (beam_chart) */
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
		/* beams: a correction from a fresh matrix four times the last
		 * one is Newton diverging, whether or not the residual shows it
		 * yet: halved like a correction that doubles the residual, up
		 * to 6 times.  The lateral buckling beam with esdirk436l2sa2 at
		 * 5e-3 s (tests/t-beam.sh), at the edge of Newton's reach where
		 * the beam snaps, went from a first correction of 0.1 to 13 and
		 * 375 with the residual up by only a fifth, then a singular
		 * matrix at the diverged iterate (t = 0.638 s), once the
		 * element blocks' rotation columns were exact rather than
		 * forward differences (beam_element_dth); with the halving it
		 * completes, and the three benchmarks never halve. */
		if (E->Wc && !ggl && !stale && since > 1 && nrm > 4.0 * prev && ndiv < 6 &&
		    isfinite(nrm)) {
			ndiv++;
			halve_correction(it, g, ng, lam, nc);
			refactor = 1;
			since--;
			continue;
		}
		ndiv = 0;
		/* converged, or the correction is at the round-off of the iterate;
		 * with beams (a kept or chord matrix: linear contraction at a
		 * rate th = nrm / prev) also when the error left in the iterate,
		 * th / (1 - th) nrm by the rate, is below the tolerance (Hairer
		 * & Wanner, Solving ODEs II, §IV.8, eq. 8.10): the rotating shaft
		 * at 1e-4 s takes 2.2 iterations a step instead of 2.8.  Tested
		 * before the kept matrix's renewal below: a correction below the
		 * tolerance ends the solve however slowly it came (with the
		 * extrapolated multipliers the four-bar's first corrections are
		 * near its tolerance, and a new matrix was made for a last
		 * correction already below it: 0.42 factorizations a step
		 * against 0.33; bench/README, "Beams: issue 36").  A NaN passes
		 * through to the kept matrix's restart, then to the test below. */
		/* or, in an adaptive run (whose error estimate sees what the
		 * iteration leaves), it has stalled within 1000 times the
		 * tolerance: three corrections in a row no smaller than half
		 * the smallest yet, the round-off of the solve (the tolerance
		 * the control asks, tied_tol, can lie below what the linear
		 * solve resolves: corrections bouncing between 1e-11 and 1e-10
		 * on the 128-link chain against 1.5e-12) */
		flat = nrm >= 0.5 * nmin ? flat + 1 : 0;
		nmin = fmin(nmin, nrm);
		if (!damped && (nrm < tol || dn <= 1e-14 * integ_norm2(g, ng, lam, nc) ||
				(E->adaptive && flat >= 3 && nmin < 1e3 * tol) ||
				(E->Wc && since > 1 && nrm < prev && nrm * nrm < tol * (prev - nrm)))) {
			ok = 1;
			E->nleft = fmax(E->nleft, nrm);
			break;
		}
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
		if (since > 1 && nrm > 0.25 * prev)
			refactor = 1;
		prev = nrm;
	}
	it->iters += it_n;
	if (!ok) {
		E->fserial = 0;
		integ_note_worst(it);
		integ_note_eom(it);
		return INTEG_NEWTON_FAIL;
	}
	/* beams: a solve that needed more than 5 iterations since its last
	 * (re)start leaves no matrix to keep (the next solve makes a new
	 * one): a matrix kept that long costs more iterations than a fresh
	 * one saves (bench/README.md, "Beams: the kept Newton matrix").  A
	 * bound of 4 made a new matrix at a singular point of the buckling
	 * with esdirk436l2sa2 at 5e-3 s (tests/t-beam.sh). */
	if (E->Wc && since > 5)
		E->fserial = 0;
	kin(E, in, g, y);
	y->t = in->t;
	integ_acc_put(s, g, y);
	for (int k = 0; k < nc; k++)
		y->lam[k] = lam[k] / in->theta;
	return INTEG_OK;
}
