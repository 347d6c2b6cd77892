/* erk.c - an explicit embedded Runge-Kutta pair (dopri5) on the first-order form
 * (y, y')' = (y', f(t, y, y')) of an ODE of the seam (form/ode.h), by
 * SUNDIALS ARKODE's ERKStep: the route of Simbody's default integrators
 * (an explicit error-controlled Runge-Kutta pair on the joint coordinates
 * of the tree), for the non-stiff models where an explicit step's
 * stability limit is not what bounds the step.
 *
 *   dopri5    Dormand and Prince's 7-stage 5(4) pair, first stage the
 *             last of the step before (J. R. Dormand, P. J. Prince, "A
 *             family of embedded Runge-Kutta formulae", J. Comput. Appl.
 *             Math. 6 (1980) 19-26, doi:10.1016/0771-050X(80)90013-3);
 *             ARKODE_DORMAND_PRINCE_7_4_5.
 *
 * The one pair offered: ARKODE 6.4's Verner 6(5) table
 * (ARKODE_VERNER_8_5_6) steps at order 3 on a pendulum here (error ratio
 * 8.0 at halved fixed steps, in a stand-alone ARKODE program too), and
 * its Fehlberg 7(8) (ARKODE_FEHLBERG_13_7_8, declared order 8) at about
 * 7 (ratios 86, 110 towards 128) and cost more f evaluations than dopri5
 * at equal error on the chains (decks/chain.yaml, N = 8, 1e-9: 6319
 * against 4187).
 *
 * The error test is ARKODE's on the weights 1 / (rtol |y_i| + atol)
 * (integrator.atol, rtol) over positions and velocities, its step
 * controller the default PID one (integrator.adaptive: true); without
 * integrator.adaptive the pair steps at the run's step integrator.step
 * with no error test (ERKStepSetFixedStep), as rn4 does, which shows
 * the design order.  The shape is adams.c's: each integ_step returns
 * after one step of ERKStep, a stop time at the run loop's next
 * breakpoint (sample, event bracket, end), so samples fall on steps and
 * no interpolation enters the output.  After every step the formulation
 * is asked whether it wants new coordinates (tree: a rotation chart to
 * re-base, rp: a partition); if so, they change at the state reached and
 * ERKStep resets there (ERKStepReset keeps the step size: a one-step
 * method has no history to lose but the first stage).
 *
 * ERKStep treats a failure of f as final (ARKODE 6.4's erkStep_TakeStep
 * returns ARK_RHSFUNC_FAIL or ARK_UNREC_RHSFUNC_ERR for either sign: a
 * "recoverable" return of f retries nothing), so where the formulation
 * can renew its coordinates (rp) the step is tried once more from the
 * last accepted state in new ones.  A stage whose f still fails was
 * taken too far from that state (rp's dependent-coordinate Newton solve
 * does not converge across a 1.4 s step of the double pendulum at
 * atol = rtol = 1e-3), not a broken model: ERKStep restarts there at a
 * quarter of the step that failed, up to ERK_RETRIES times, before the
 * run fails at that time and step with the formulation's word.
 */
#include "odeint.h"
#include "../util/xalloc.h"

#include <arkode/arkode_erkstep.h>
#include <nvector/nvector_serial.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* restarts at a quarter of the failed step each: 4^-10 ~ 1e-6 of it */
#define ERK_RETRIES 10

struct erk {
	SUNContext sun;
	void *mem;
	N_Vector Y;
	int fail;		/* last status of f that ERKStep saw fail */
};

static int erk_f(realtype t, N_Vector Y, N_Vector Yd, void *user)
{
	struct odeint *O = user;
	struct erk *E = O->mem;
	int st = odeint_f1(O, t, N_VGetArrayPointer(Y), N_VGetArrayPointer(Yd));
	if (st) {
		E->fail = st;
		return -1;	/* final to ERKStep: erk_retry recovers */
	}
	return 0;
}

static void erk_free(struct odeint *O)
{
	struct erk *E = O->mem;
	if (!E)
		return;
	if (E->mem)
		ERKStepFree(&E->mem);
	if (E->Y)
		N_VDestroy(E->Y);
	if (E->sun)
		SUNContext_Free(&E->sun);
	free(E);
	O->mem = NULL;
}


/* ERKStep at the accepted state (O->t, O->y, O->yd): made, or reset there
 * after new coordinates. */
static int erk_start(struct odeint *O)
{
	struct erk *E = O->mem;
	int n = O->n;
	if (!E) {
		E = xcalloc(1, sizeof(*E));
		O->mem = E;
		O->mem_free = erk_free;
		if (SUNContext_Create(NULL, &E->sun))
			return INTEG_NEWTON_FAIL;
		E->Y = N_VNew_Serial(2 * n, E->sun);
	}
	double *y = N_VGetArrayPointer(E->Y);
	memcpy(y, O->y, (size_t)n * sizeof(double));
	memcpy(y + n, O->yd, (size_t)n * sizeof(double));
	if (E->mem)
		return ERKStepReset(E->mem, O->t, E->Y) ? INTEG_NEWTON_FAIL : INTEG_OK;
	E->mem = ERKStepCreate(erk_f, O->t, E->Y, E->sun);
	if (!E->mem || ERKStepSetTableNum(E->mem, ARKODE_DORMAND_PRINCE_7_4_5) ||
	    ERKStepSStolerances(E->mem, O->rtol, O->atol) || ERKStepSetUserData(E->mem, O) ||
	    ERKStepSetMaxNumSteps(E->mem, -1))
		return INTEG_NEWTON_FAIL;
	ERKStepSetMaxHnilWarns(E->mem, -1);
	/* the step control's settings every adaptive scheme takes
	 * (integrator.safety, facmin, facmax) in place of ARKODE's 0.96,
	 * 0.1 and 20: at 0.96 and 20 dopri5 ended the double pendulum
	 * 0.16 m off at atol = rtol = 1e-3 (0.023 m at safety 0.8) */
	ERKStepSetSafetyFactor(E->mem, O->safety);
	ERKStepSetMinReduction(E->mem, O->facmin);
	ERKStepSetMaxGrowth(E->mem, O->facmax);
	if (O->h_max < O->span)
		ERKStepSetMaxStep(E->mem, O->h_max);
	ERKStepSetErrFile(E->mem, NULL);
	return INTEG_OK;
}

/* One step of ERKStep towards tout (not past it); the state reached in
 * O->y, O->yd, O->t, the coordinates renewed there when the formulation
 * asks. */
static int internal_step(struct odeint *O, double tout)
{
	struct erk *E = O->mem;
	realtype tret = O->t;
	/* ARKODE forgets a stop time once reached: set it every call */
	ERKStepSetStopTime(E->mem, tout);
	if (!O->adaptive)	/* the run's step, no error test */
		ERKStepSetFixedStep(E->mem, tout - O->t);
	E->fail = 0;
	int flag = ERKStepEvolve(E->mem, tout, E->Y, &tret, ARK_ONE_STEP);
	if (flag < 0) {
		if (E->fail)
			return E->fail;
		return flag == ARK_TOO_CLOSE || flag == ARK_TOO_MUCH_ACC ||
		       flag == ARK_ERR_FAILURE ? INTEG_STEP_TOO_SMALL : INTEG_NEWTON_FAIL;
	}
	return odeint_reached(O, tret, N_VGetArrayPointer(E->Y), erk_start);
}

/* After f failed in a stage: from the accepted state again at a quarter
 * of the step that failed, and a quarter of that, ... (the fixed-step
 * scheme has no smaller step to take: it fails at once). */
static int erk_retry(struct odeint *O, double tout)
{
	struct erk *E = O->mem;
	realtype h = 0;
	int st = E->fail;
	ERKStepGetCurrentStep(E->mem, &h);
	for (int k = 0; k < ERK_RETRIES && st && E->fail; k++) {
		h *= 0.25;
		if (ERKStepSetInitStep(E->mem, h) || erk_start(O))
			return st;
		st = internal_step(O, tout);
	}
	/* later restarts (new coordinates) choose their first step as
	 * before (this clears the controller's history once more, as the
	 * restart here did) */
	ERKStepSetInitStep(E->mem, 0);
	return st;
}

static int erk_step_ode(struct odeint *O, double h, double *t1, double *h_next)
{
	int st;
	double tout = O->t + h;
	if (O->n > 0 && (O->restart || !O->mem)) {
		if ((st = erk_start(O)))
			return st;
		O->restart = 0;
	}
	if (O->n == 0) {	/* nothing to integrate: the constraints fix the motion */
		O->t = tout;
		*h_next = h;
		*t1 = tout;
		return INTEG_OK;
	}
	struct erk *E = O->mem;
	st = internal_step(O, tout);
	if (st && (st = odeint_renew(O, st, erk_start)) == INTEG_OK)
		st = internal_step(O, tout);
	if (st && E->fail && O->adaptive)
		st = erk_retry(O, tout);
	if (st)
		return st;
	long nef = 0;
	ERKStepGetNumErrTestFails(E->mem, &nef);
	O->rejected = nef;
	/* adaptive: ERKStep chooses; the run loop is to aim at its next
	 * breakpoint (as adams); fixed: the run's step */
	*h_next = O->adaptive ? 2.0 * O->span : h;
	*t1 = O->t;
	return INTEG_OK;
}

/* f at the state reached, for that state's body state */
static int erk_kernel(struct odeint *O, const struct integ_info *info, double h, double *t1,
		      double *h_next)
{
	(void)info;
	int st = erk_step_ode(O, h, t1, h_next);
	if (st == INTEG_OK)
		st = odeint_rhs(O, O->t, O->y, O->yd, O->ydd);
	return st;
}

static int erk_step(struct integ *it, double h, struct ra_state *x, struct ra_state *y)
{
	return odeint_step(it, h, x, y, erk_kernel);
}

const struct integ_ops erk_ops = {
	ODEINT_OPS, ODEINT_STATS_OPS, .step = erk_step
};
