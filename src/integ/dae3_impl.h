/* dae3_impl.h - the state of the dae3 engine, shared by its files: dae3.c
 * (set-up, the chart, the history, linear analysis), dae3_solve.c (the
 * implicit solve and its Newton matrix), dae3_step.c (the schemes) and
 * dae3_ctrl.c (step control).  Not for use outside src/integ/dae3*.c.
 */
#ifndef MBSIM_DAE3_IMPL_H
#define MBSIM_DAE3_IMPL_H

#include "dae3.h"
#include "coef.h"
#include "integ.h"

#include <complex.h>
#include <string.h>

#define NH 5			/* stored accepted states */

struct nm_growth;

struct dae3 {
	struct coef co, ss;	/* scheme; SS_k used to start LMS_k */
	int adaptive, startup_ss;
	double atol, rtol, safety, facmin, facmax;
	double tol_deck;	/* integrator.tolerance; it->tol is the step's (dae3_ctrl.c) */
	double nleft;		/* the largest last correction of an attempt's solves */
	int nb, ny;		/* bodies, 12 nb */
	struct ra_state hist[NH];	/* hist[0] = last accepted */
	double hstep[NH];	/* hstep[j] = t(hist[j]) - t(hist[j+1]) */
	int nhist;
	double *Y[NH], *Yd[NH];	/* history in the chart of hist[0] */
	double *SY[COEF_MAXS], *SYd[COEF_MAXS];	/* DIRK stage values */
	double complex *V[3], *Vn[3];	/* SS auxiliary variables, new ones */
	int aux;		/* the auxiliary variables are kept */
	double *ap, *apn;	/* generalized-alpha pseudo-accelerations */
	double *gold, *lold, told;	/* beams, newmark family: the last step's
					 * start (accelerations, multipliers, time)
					 * for the extrapolated first iterate */
	double *gold2, *lold2, told2;	/* the start of the step before */
	double *yhat, *g, *lam, *lamf, *psi, *ek, *est, *Ynew, *Ydnew;
	double h_max;		/* largest step the step control may take */
	/* index 2 (GGL, see the header): the second multiplier mu of the
	 * current solve, pm = Phi_q^T mu of the current solve and PM[j] of
	 * hist[j] (zero at index 3), the velocity residual, and the matrix
	 * [I P^T; P 0] whose Schur complement P P^T gives the mu update */
	int index;
	/* step control: the run's span (error per unit step), the states of
	 * the doubled step of the DIRK family and the big step's chart */
	double span;
	int trap_only;		/* the doubled first step of lms2 */
	struct ra_state ybig, ymid;
	double *Ybig;
	double *mu, *pm, *PM[NH], *vres, *u, *dmu, *xmu, *Wid;
	double *Wgeo;		/* newmark only: the reactions' stiffness, nb x 18 (blocks) */
	double *Tinv;		/* beams: per body the 3 x 3 map from the rotation
				 * unknowns of the Newton matrix to angular
				 * accelerations, at its factorization (beam_chart) */
	struct kkt *kmu;
	double *Wc;		/* beams: 36 per pair of sys->pairs, or NULL */
	struct nm_growth *growth;	/* newmark: the growth detector (newmark.h) */
	/* beams (Wc): the Newton matrix kept across solves while its
	 * coefficients are those it was made with and no other factorization
	 * has replaced it (kkt_serial); 0 serial: none kept */
	double fcq, fcv, fth;
	long fserial;
	double *g0, *lam0;	/* the first iterate of a solve on a kept matrix */
};

/* The map from accelerations g to the state y (dae3_solve.c's header). */
struct solve_in {
	double t, cv, cq, theta;
	int newmark;
	const double *yhat;	/* DIRK: 12 nb; Newmark: (qhat, vhat) 12 nb */
	const double *ek;	/* known part of the residual, or NULL */
	const struct ra_state *ref;	/* chart origin */
	int geo;		/* add the reactions' stiffness to W (classical newmark) */
};

static inline void copy_lam(const struct ra *s, double *dst, const double *src)
{
	memcpy(dst, src, (size_t)s->nc * sizeof(double));
}

struct dae3 *dae3_eng(const struct integ *it);
/* y, y' of state x in the chart of orientations Aref; pm = Phi_q^T mu of x */
void dae3_chart(const struct dae3 *E, const struct ra_state *x, const double *Aref,
		double *Y, double *Yd, const double *pm);
/* Newton on one implicit solve (dae3_solve.c) */
int dae3_solve(struct integ *it, struct dae3 *E, const struct solve_in *in, struct ra_state *y);
/* One step of the scheme from hist[0]; *has = 1 when E->est holds an
 * estimate (lms2 from its second step). */
int dae3_step_once(struct integ *it, struct dae3 *E, double h, struct ra_state *y, int *has);
/* History: start from x; push an accepted state; pop the last push. */
void dae3_start(struct integ *it, struct dae3 *E, const struct ra_state *x);
void dae3_push(struct integ *it, struct dae3 *E, const struct ra_state *y);
void dae3_pop(struct integ *it, struct dae3 *E);
/* lms2's Milne estimate of the step just solved into y (dae3_ctrl.c) */
int dae3_lms2_est(struct dae3 *E, double h, const struct ra_state *y);

#endif
