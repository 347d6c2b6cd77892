/* bdf.c - `bdf`: the equations of motion of a formulation on the seam
 * (form/ode.h; the tree formulation of seed 003) as a differential-
 * algebraic system in residual form, integrated by SUNDIALS IDA:
 * variable-order (1-5), variable-step BDF in fixed-leading-coefficient
 * form, a modified Newton iteration with a dense direct linear solver
 * (SUNDenseMatrix, SUNLinSol_Dense) on the Jacobian dF/dY + c dF/dY'
 * that IDA forms by its own differences, and IDA's local error test on
 * the weights 1 / (rtol |Y_i| + atol) (integrator.rtol, atol).
 *
 * The system (seed 003 §3.4-3.5, the mixed first/second-order system of
 * eq. 2 in residual form) in Y = (q, w), n joint coordinates q (charted
 * as the formulation keeps them) and velocity variables w = v + G v, v
 * their rates (G = 0 without massless coordinates):
 *
 *   F_q = q' - v = 0,        v = w - G w               (n rows)
 *   F_v = resid(t, q, v, v') = 0,  v' = w' - G w'      (n rows, ode.h)
 *
 * where resid is, for a coordinate with inertia, v' - D^+ (u - U^T Phi
 * Vdot_p) (eq. 28a, scaled), and for a massless one the joint's equation
 * S_k^T lam = 0 (eq. 28b), free of v'_k: such a v_k is an algebraic
 * variable (id 0), fixed by the forces (it needs a damper along that
 * coordinate, §3.5: dgamma/dzeta non-singular), and its q_k obeys a
 * first-order equation.  With regular masses F_v = v' - f(t, q, v) at
 * the solution and the system is an ODE in implicit form.
 *
 * Velocity variables (seed 003 eq. 29).  The rate v_j of a body below a
 * massless coordinate a moves with it (q-ddot_j holds q-ddot_a through
 * the parent's acceleration): in the coupled oscillators the large mass's
 * joint rate is its absolute velocity minus the small one's.  With v as
 * IDA's variable that rate inherits the algebraic v_a's Newton error at
 * the size of the error test, so the error test failed step after step
 * (391142 steps at atol 1e-8, m1 = 0; at 1e-10 the steps fell below
 * round-off at t = 3.1e-10 s).  The formulation's vel_map gives G (row
 * j, column a: w_j = v_j + G_ja v_a, the velocity free of a's motion);
 * G is taken at each start and kept constant until the next, so that w'
 * = v' + G v' exactly and the system is the same for any G (G's rate,
 * the seed's T-dot, never enters).  IDACalcIC keeps w of the bodies
 * below: a start off the slow manifold moves the massless rates onto it
 * and keeps those bodies' velocities along their joints, as the reduced
 * model does.
 *
 * Consistent initial values: Y' = (v, f) from the formulation's start;
 * with massless coordinates IDACalcIC (IDA_YA_YDP_INIT) then fixes their
 * v (algebraic) and all of Y' from q and the other w.  Each integ_step
 * returns after one internal step of IDA (integrator.adaptive) or at the
 * end of the output interval integrator.step; after every internal step
 * the formulation may re-base a rotation chart (accept), and IDA starts
 * again from there (IDAReInit, order 1; IDACalcIC again with massless
 * coordinates).  A failure of the formulation in a residual is
 * recoverable (IDA shrinks the step); IDA giving up ends the run with
 * IDA's reason and the time.
 */
#include "odeint.h"
#include "../util/xalloc.h"

#include <ida/ida.h>
#include <ida/ida_ls.h>
#include <nvector/nvector_serial.h>
#include <sunlinsol/sunlinsol_dense.h>
#include <sunmatrix/sunmatrix_dense.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct bdf {
	SUNContext sun;
	void *mem;
	N_Vector Y, Yp, id;
	SUNMatrix A;
	SUNLinearSolver LS;
	double *r;		/* n: a residual's second-order rows */
	char *alg;		/* n: massless coordinates */
	int nalg;
	/* velocity variables w = y' + G y' (seed 003 eq. 29, ode.h
	 * vel_map), G's ng entries made at each start; v, vd: scratch */
	int ng, *gi, *ga;
	double *gv, *v, *vd;
	int fail;		/* last status of the formulation that IDA saw fail */
	double tstop;
	int started;		/* IDA made at the run's start */
	long before[5];		/* steps, Newton iterations, error-test and
				 * convergence failures, Jacobians before the
				 * last IDAReInit */
	/* IDA's steps, last order, Newton iterations, error-test and
	 * nonlinear convergence failures, over the run */
	long steps, newton, etf, ncf;
	int order;
};

/* y' = w - G w (and y'' from w'): G reads massless entries only, where
 * w = y' */
static void rates(const struct bdf *B, int n, const double *w, double *v)
{
	memcpy(v, w, (size_t)n * sizeof(double));
	for (int e = 0; e < B->ng; e++)
		v[B->gi[e]] -= B->gv[e] * w[B->ga[e]];
}

/* w = y' + G y' */
static void wvars(const struct bdf *B, int n, const double *v, double *w)
{
	memcpy(w, v, (size_t)n * sizeof(double));
	for (int e = 0; e < B->ng; e++)
		w[B->gi[e]] += B->gv[e] * v[B->ga[e]];
}

static int bdf_res(realtype t, N_Vector Y, N_Vector Yp, N_Vector R, void *user)
{
	struct odeint *O = user;
	struct bdf *B = O->mem;
	int n = O->n;
	const double *y = N_VGetArrayPointer(Y), *yp = N_VGetArrayPointer(Yp);
	double *r = N_VGetArrayPointer(R);
	const double *v = y + n, *vd = yp + n;
	if (B->ng) {
		rates(B, n, v, B->v);
		rates(B, n, vd, B->vd);
		v = B->v;
		vd = B->vd;
	}
	for (int k = 0; k < n; k++)
		r[k] = yp[k] - v[k];
	O->nrhs++;
	int st = O->sys->resid(O->sys->ctx, t, y, v, vd, r + n);
	if (st) {
		B->fail = odeint_status(st);
		return 1;	/* recoverable: IDA shrinks the step */
	}
	return 0;
}

static void bdf_free(struct odeint *O)
{
	struct bdf *B = O->mem;
	if (!B)
		return;
	if (B->mem)
		IDAFree(&B->mem);
	if (B->LS)
		SUNLinSolFree(B->LS);
	if (B->A)
		SUNMatDestroy(B->A);
	if (B->Y)
		N_VDestroy(B->Y);
	if (B->Yp)
		N_VDestroy(B->Yp);
	if (B->id)
		N_VDestroy(B->id);
	if (B->sun)
		SUNContext_Free(&B->sun);
	free(B->r);
	free(B->alg);
	free(B->gi);
	free(B->ga);
	free(B->gv);
	free(B->v);
	free(B->vd);
	free(B);
	O->mem = NULL;
}

static int ida_gave_up(struct odeint *O, int flag, double t)
{
	char *name = IDAGetReturnFlagName(flag);
	const char *what = flag == IDA_CONV_FAIL ? "the Newton iteration failed repeatedly "
						   "(or the step size reached its minimum)" :
			   flag == IDA_ERR_FAIL ? "the error test failed repeatedly "
						  "(or the step size reached its minimum)" :
			   flag == IDA_TOO_MUCH_ACC ? "the accuracy asked for is below "
						      "machine precision" :
			   flag == IDA_LSETUP_FAIL || flag == IDA_LSOLVE_FAIL ?
				   "the iteration matrix is singular (a massless coordinate "
				   "without a damper along it: eq. 28b of Arnold, Mech. Sci. 4 (2013), "
				   "doi:10.5194/ms-4-221-2013, does not fix its rate)" :
			   flag == IDA_NO_RECOVERY || flag == IDA_RES_FAIL ?
				   "the formulation failed in a residual" :
				   "IDA stopped";
	snprintf(O->why, sizeof O->why, "IDA gave up at t = %.9g: %s (%s)", t, what,
		 name ? name : "?");
	free(name);
	return INTEG_STEP_TOO_SMALL;
}

/* IDA's counters since its last IDAReInit, in the order of before[] */
static void counters(const struct bdf *B, long v[5])
{
	v[0] = v[1] = v[2] = v[3] = v[4] = 0;
	IDAGetNumSteps(B->mem, &v[0]);
	IDAGetNumNonlinSolvIters(B->mem, &v[1]);
	IDAGetNumErrTestFails(B->mem, &v[2]);
	IDAGetNumNonlinSolvConvFails(B->mem, &v[3]);
	IDAGetNumJacEvals(B->mem, &v[4]);
}

static void stats(struct odeint *O)
{
	struct bdf *B = O->mem;
	long v[5];
	int q = 0;
	counters(B, v);
	IDAGetLastOrder(B->mem, &q);
	O->njac = B->before[4] + v[4];
	B->steps = B->before[0] + v[0];
	B->newton = B->before[1] + v[1];
	B->etf = B->before[2] + v[2];
	B->ncf = B->before[3] + v[3];
	if (q > 0)
		B->order = q;
	O->rejected = B->etf + B->ncf;
}

/* IDA at the accepted state (O->t, O->y, O->yd, O->ydd): made, or
 * started again after new coordinates; consistent initial values with
 * massless coordinates. */
static int bdf_start(struct odeint *O)
{
	struct bdf *B = O->mem;
	int n = O->n;
	if (!B) {
		B = xcalloc(1, sizeof(*B));
		O->mem = B;
		O->mem_free = bdf_free;
		B->r = xcalloc((size_t)n + 1, sizeof(double));
		B->alg = xcalloc((size_t)n + 1, sizeof(char));
		B->nalg = O->sys->massless ? O->sys->massless(O->sys->ctx, B->alg) : 0;
		if (SUNContext_Create(NULL, &B->sun))
			return INTEG_NEWTON_FAIL;
		B->Y = N_VNew_Serial(2 * n, B->sun);
		B->Yp = N_VNew_Serial(2 * n, B->sun);
		B->id = N_VNew_Serial(2 * n, B->sun);
		B->A = SUNDenseMatrix(2 * n, 2 * n, B->sun);
		if (!B->Y || !B->Yp || !B->id || !B->A)
			return INTEG_NEWTON_FAIL;
		double *id = N_VGetArrayPointer(B->id);
		for (int k = 0; k < n; k++) {
			id[k] = 1.0;
			id[n + k] = B->alg[k] ? 0.0 : 1.0;
		}
	} else {
		long v[5];	/* IDAReInit sets IDA's counters to 0 */
		counters(B, v);
		for (int k = 0; k < 5; k++)
			B->before[k] += v[k];
	}
	if (B->nalg > 0 && O->sys->vel_map) {
		/* G at this configuration (the last f was here), kept until
		 * the next start: any constant G gives the same solution,
		 * this one the velocities the error test should see */
		size_t m = (size_t)n * (size_t)B->nalg + 1;
		if (!B->gi) {
			B->gi = xcalloc(m, sizeof(int));
			B->ga = xcalloc(m, sizeof(int));
			B->gv = xcalloc(m, sizeof(double));
			B->v = xcalloc((size_t)n + 1, sizeof(double));
			B->vd = xcalloc((size_t)n + 1, sizeof(double));
		}
		B->ng = O->sys->vel_map(O->sys->ctx, B->gi, B->ga, B->gv);
	}
	double *y = N_VGetArrayPointer(B->Y), *yp = N_VGetArrayPointer(B->Yp);
	memcpy(y, O->y, (size_t)n * sizeof(double));
	wvars(B, n, O->yd, y + n);
	memcpy(yp, O->yd, (size_t)n * sizeof(double));
	wvars(B, n, O->ydd, yp + n);
	if (!B->mem) {
		B->mem = IDACreate(B->sun);
		if (!B->mem || IDAInit(B->mem, bdf_res, O->t, B->Y, B->Yp) ||
		    IDASStolerances(B->mem, O->rtol, O->atol) || IDASetUserData(B->mem, O))
			return INTEG_NEWTON_FAIL;
		B->LS = SUNLinSol_Dense(B->Y, B->A, B->sun);
		if (!B->LS || IDASetLinearSolver(B->mem, B->LS, B->A) ||
		    IDASetMaxNumSteps(B->mem, 2000000000L) || IDASetId(B->mem, B->id))
			return INTEG_NEWTON_FAIL;
		/* a residual fails (recoverably) where a trial step leaves
		 * the formulation's domain: let IDA shrink the step more often
		 * than its default 10 times in a step */
		IDASetMaxConvFails(B->mem, 100);
		/* the rates of massless coordinates out of the error test:
		 * their y' (which the successors' rows see through the
		 * parent's acceleration, eq. 9) starts as a guess */
		if (B->nalg > 0) {
			IDASetSuppressAlg(B->mem, SUNTRUE);
			/* and their start, where the successors' rates follow
			 * the massless ones' relaxation, may need more than
			 * IDA's 10 step reductions */
			IDASetMaxErrTestFails(B->mem, 40);
		}
		if (O->h_max < O->span)
			IDASetMaxStep(B->mem, O->h_max);
		IDASetErrFile(B->mem, NULL);
	} else if (IDAReInit(B->mem, O->t, B->Y, B->Yp)) {
		return INTEG_NEWTON_FAIL;
	}
	B->tstop = NAN;
	B->started = 1;
	if (B->nalg > 0) {
		double h = fmin(O->h_max, O->span);
		int flag = IDACalcIC(B->mem, IDA_YA_YDP_INIT, O->t + h);
		if (flag < 0) {
			char *name = IDAGetReturnFlagName(flag);
			snprintf(O->why, sizeof O->why, "IDACalcIC found no consistent rates of the "
				 "massless coordinates at t = %.9g (%s): eq. 28b of Arnold, Mech. "
				 "Sci. 4 (2013), doi:10.5194/ms-4-221-2013, needs a damper along each of them", O->t, name ? name : "?");
			free(name);
			return INTEG_NEWTON_FAIL;
		}
		IDAGetConsistentIC(B->mem, B->Y, B->Yp);
		/* a start off the slow manifold: IDACalcIC moved the
		 * massless coordinates' rates onto it and kept the w of the
		 * bodies below them, their velocities along their joints
		 * (seed 003 eq. 29; G from vel_map) */
		memcpy(O->y, y, (size_t)n * sizeof(double));
		rates(B, n, y + n, O->yd);
		rates(B, n, yp + n, O->ydd);
	}
	return INTEG_OK;
}

/* The body state of the accepted (t, y, y', y''): the formulation's
 * residual there (ode.h: it makes that configuration the current one). */
static int bdf_eval(struct odeint *O)
{
	struct bdf *B = O->mem;
	O->nrhs++;
	return odeint_status(O->sys->resid(O->sys->ctx, O->t, O->y, O->yd, O->ydd, B->r));
}

/* One internal step towards tout (not past it); the state reached in O. */
static int internal_step(struct odeint *O, double tout)
{
	struct bdf *B = O->mem;
	int n = O->n;
	realtype tret = O->t;
	if (B->tstop != tout) {
		IDASetStopTime(B->mem, tout);
		B->tstop = tout;
	}
	B->fail = 0;
	O->why[0] = 0;
	int flag = IDASolve(B->mem, tout, &tret, B->Y, B->Yp, IDA_ONE_STEP);
	if (flag < 0) {
		double tc = O->t;
		IDAGetCurrentTime(B->mem, &tc);
		stats(O);
		if (B->fail && flag == IDA_RES_FAIL)
			return B->fail;
		return ida_gave_up(O, flag, tc);
	}
	const double *y = N_VGetArrayPointer(B->Y), *yp = N_VGetArrayPointer(B->Yp);
	memcpy(O->y, y, (size_t)n * sizeof(double));
	rates(B, n, y + n, O->yd);
	rates(B, n, yp + n, O->ydd);
	O->t = tret;
	stats(O);
	int st = bdf_eval(O);
	if (st)
		return st;
	if (O->sys->want_new && O->sys->want_new(O->sys->ctx)) {
		int c = O->sys->accept(O->sys->ctx, O->t, O->y, O->yd);
		if (c < 0)
			return odeint_status(-c);
		if (c > 0) {
			/* y'' in the new chart, then IDA from there */
			if ((st = odeint_rhs(O, O->t, O->y, O->yd, O->ydd)) || (st = bdf_start(O)) ||
			    (st = bdf_eval(O)))
				return st;
		}
	}
	return INTEG_OK;
}

int bdf_step_ode(struct odeint *O, double h, double *t1, double *h_next)
{
	int st;
	double tout = O->t + h;
	if (O->n == 0) {
		/* nothing to integrate (fixed joints, driven coordinates):
		 * f at tout makes the body state, which drivers move */
		O->t = tout;
		*h_next = h;
		*t1 = tout;
		return odeint_rhs(O, O->t, O->y, O->yd, O->ydd);
	}
	if (O->restart || !O->mem) {
		if ((st = bdf_start(O)))
			return st;
		O->restart = 0;
	}
	do {
		if ((st = internal_step(O, tout)))
			return st;
	} while (!O->adaptive && O->t < tout);
	/* adaptive: IDA chooses; the run loop aims at its next breakpoint */
	*h_next = O->adaptive ? 2.0 * O->span : h;
	*t1 = O->t;
	return INTEG_OK;
}

/* The start from x with consistent initial values (IDACalcIC when there
 * are massless coordinates), the body state there into x: the run's
 * initial accelerations (instead of ra's index-1 solve, which needs
 * regular masses, seed 003). */
static int bdf_begin(struct integ *it, struct ra_state *x)
{
	struct odeint *O = it->mem;
	int st = odeint_begin(O, x);
	if (st)
		return st;
	if (O->n > 0) {
		if ((st = bdf_start(O)) || (st = bdf_eval(O))) {
			O->detail = odeint_why(O);
			return st;
		}
		O->restart = 0;
	}
	double t = x->t;
	O->sys->bodies(O->sys->ctx, x);
	x->t = t;
	return INTEG_OK;
}

/* bdf ends with the formulation's residual at the state reached, which
 * holds its body state */
static int bdf_kernel(struct odeint *O, const struct integ_info *info, double h, double *t1,
		      double *h_next)
{
	(void)info;
	return bdf_step_ode(O, h, t1, h_next);
}

static int bdf_step(struct integ *it, double h, struct ra_state *x, struct ra_state *y)
{
	return odeint_step(it, h, x, y, bdf_kernel);
}

static const struct integ_stat_key bdf_keys[] = {
	ODEINT_KEYS, { "bdf_steps", INTEG_STAT_ATTR }, { "bdf_last_order", INTEG_STAT_ATTR },
	{ "bdf_newton_iterations", INTEG_STAT_ATTR },
	{ "bdf_error_test_failures", INTEG_STAT_ATTR },
	{ "bdf_convergence_failures", INTEG_STAT_ATTR }, { 0, 0 }
};

/* the ODE schemes' statistics, then SUNDIALS IDA's own once IDA was
 * made (not for a model without coordinates) */
static int bdf_stats(const struct integ *it, const struct sim_options *o, double *v)
{
	const struct odeint *O = it->mem;
	const struct bdf *B = O->mem;
	int n = odeint_stats(it, o, v);
	if (!B)
		return n;
	v[n++] = (double)B->steps;
	v[n++] = (double)B->order;
	v[n++] = (double)B->newton;
	v[n++] = (double)B->etf;
	v[n++] = (double)B->ncf;
	return n;
}

const struct integ_ops bdf_ops = {
	ODEINT_OPS, .step = bdf_step, .accel = bdf_begin, .stat_keys = bdf_keys,
	.stats = bdf_stats, .own_steps = 1, .resid = 1
};
