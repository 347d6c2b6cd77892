/* adams.c - the explicit baseline of seed 001 §5.2 (Algorithm 2, there
 * Shampine and Watts' DEABM): variable-order, variable-step Adams on the
 * first-order form (y, y')' = (y', f(t, y, y')) of any ODE of the seam
 * (form/ode.h), by SUNDIALS CVODE: Adams-Moulton of orders 1 to 12 with
 * functional (fixed-point) iteration of the corrector, so no Jacobian and
 * no linear solve, and CVODE's error test on the weights
 * 1 / (rtol |y_i| + atol) (integrator.atol, rtol) over positions and
 * velocities.
 *
 * Each integ_step returns after one internal step of CVODE (adaptive) or
 * at the end of the fixed output interval integrator.step (its internal
 * steps are chosen by CVODE all the same).  After every internal step the
 * formulation is asked whether it wants new coordinates (rp: Phi_u's
 * condition); if so, f is evaluated at the accepted state, the coordinates
 * change (accept) and CVODE starts again from there (CVodeReInit: order 1,
 * a new first step).  A failure of f (the dependent coordinates did not
 * converge) is reported to CVODE as recoverable: it retries with a
 * smaller step.
 */
#include "odeint.h"
#include "../util/xalloc.h"

#include <cvode/cvode.h>
#include <nvector/nvector_serial.h>
#include <sunnonlinsol/sunnonlinsol_fixedpoint.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

struct adams {
	SUNContext sun;
	void *mem;
	N_Vector Y;
	SUNNonlinearSolver nls;
	int fail;		/* last status of f that CVODE saw fail */
	double tstop;
};

static int adams_f(realtype t, N_Vector Y, N_Vector Yd, void *user)
{
	struct odeint *O = user;
	struct adams *A = O->mem;
	int st = odeint_f1(O, t, N_VGetArrayPointer(Y), N_VGetArrayPointer(Yd));
	if (st) {
		A->fail = st;
		return 1;	/* recoverable: CVODE shrinks the step */
	}
	return 0;
}

static void adams_free(struct odeint *O)
{
	struct adams *A = O->mem;
	if (!A)
		return;
	if (A->mem)
		CVodeFree(&A->mem);
	if (A->nls)
		SUNNonlinSolFree(A->nls);
	if (A->Y)
		N_VDestroy(A->Y);
	if (A->sun)
		SUNContext_Free(&A->sun);
	free(A);
	O->mem = NULL;
}

/* CVODE at the accepted state (O->t, O->y, O->yd): made, or started
 * again after new coordinates. */
static int adams_start(struct odeint *O)
{
	struct adams *A = O->mem;
	int n = O->n;
	if (!A) {
		A = xcalloc(1, sizeof(*A));
		O->mem = A;
		O->mem_free = adams_free;
		if (SUNContext_Create(NULL, &A->sun))
			return INTEG_NEWTON_FAIL;
		A->Y = N_VNew_Serial(2 * n, A->sun);
		double *y = N_VGetArrayPointer(A->Y);
		memcpy(y, O->y, (size_t)n * sizeof(double));
		memcpy(y + n, O->yd, (size_t)n * sizeof(double));
		A->mem = CVodeCreate(CV_ADAMS, A->sun);
		if (!A->mem || CVodeInit(A->mem, adams_f, O->t, A->Y) ||
		    CVodeSStolerances(A->mem, O->rtol, O->atol) || CVodeSetUserData(A->mem, O))
			return INTEG_NEWTON_FAIL;
		A->nls = SUNNonlinSol_FixedPoint(A->Y, 0, A->sun);
		if (!A->nls || CVodeSetNonlinearSolver(A->mem, A->nls) ||
		    CVodeSetMaxNumSteps(A->mem, -1))
			return INTEG_NEWTON_FAIL;
		CVodeSetMaxHnilWarns(A->mem, -1);
		/* f fails (recoverably) where a trial step reaches beyond the
		 * partition's domain: let CVODE shrink the step more often
		 * than its default 10 times in a row */
		CVodeSetMaxConvFails(A->mem, 100);
		if (O->h_max < O->span)
			CVodeSetMaxStep(A->mem, O->h_max);
		CVodeSetErrFile(A->mem, NULL);
		return INTEG_OK;
	}
	double *y = N_VGetArrayPointer(A->Y);
	memcpy(y, O->y, (size_t)n * sizeof(double));
	memcpy(y + n, O->yd, (size_t)n * sizeof(double));
	long nef = 0;	/* CVodeReInit sets CVODE's counters to 0 */
	CVodeGetNumErrTestFails(A->mem, &nef);
	O->rejected_before += nef;
	return CVodeReInit(A->mem, O->t, A->Y) ? INTEG_NEWTON_FAIL : INTEG_OK;
}

/* One internal step towards tout (not past it).  The state reached is in
 * O->y, O->yd, O->t; f there is evaluated only when the coordinates are
 * to change. */
static int internal_step(struct odeint *O, double tout)
{
	struct adams *A = O->mem;
	realtype tret = O->t;
	if (A->tstop != tout) {
		CVodeSetStopTime(A->mem, tout);
		A->tstop = tout;
	}
	A->fail = 0;
	int flag = CVode(A->mem, tout, A->Y, &tret, CV_ONE_STEP);
	if (flag < 0) {
		switch (flag) {
		case CV_TOO_CLOSE:
		case CV_TOO_MUCH_ACC:
		case CV_ERR_FAILURE:
			return A->fail ? A->fail : INTEG_STEP_TOO_SMALL;
		default:
			return A->fail ? A->fail : INTEG_NEWTON_FAIL;
		}
	}
	return odeint_reached(O, tret, N_VGetArrayPointer(A->Y), adams_start);
}

int adams_step_ode(struct odeint *O, double h, double *t1, double *h_next)
{
	int st;
	double tout = O->t + h;
	if (O->n > 0 && (O->restart || !O->mem)) {
		if ((st = adams_start(O)))
			return st;
		O->restart = 0;
	}
	if (O->n == 0) {	/* nothing to integrate: the constraints fix the motion */
		O->t = tout;
		*h_next = h;
		*t1 = tout;
		return INTEG_OK;
	}
	do {
		st = internal_step(O, tout);
		/* new coordinates at the last accepted state, and CVODE
		 * again from there */
		if (st && (st = odeint_renew(O, st, adams_start)) == INTEG_OK)
			st = internal_step(O, tout);
		if (st)
			return st;
	} while (!O->adaptive && O->t < tout);
	struct adams *A = O->mem;
	long nef = 0;
	CVodeGetNumErrTestFails(A->mem, &nef);
	O->rejected = O->rejected_before + nef;
	/* adaptive: CVODE chooses; the run loop is to aim at its next
	 * breakpoint (a stop time at CVODE's own next step would hold the
	 * step where it is, since CVODE grows it only past that step) */
	*h_next = O->adaptive ? 2.0 * O->span : h;
	*t1 = O->t;
	return INTEG_OK;
}

/* adams evaluates f at the state reached, for that state's body state */
static int adams_kernel(struct odeint *O, const struct integ_info *info, double h, double *t1,
			double *h_next)
{
	(void)info;
	int st = adams_step_ode(O, h, t1, h_next);
	if (st == INTEG_OK)
		st = odeint_rhs(O, O->t, O->y, O->yd, O->ydd);
	return st;
}

static int adams_step(struct integ *it, double h, struct ra_state *x, struct ra_state *y)
{
	return odeint_step(it, h, x, y, adams_kernel);
}

const struct integ_ops adams_ops = {
	ODEINT_OPS, ODEINT_STATS_OPS, .step = adams_step, .own_steps = 1
};
