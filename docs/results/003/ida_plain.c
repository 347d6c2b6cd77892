/* ida_plain.c - eqs. 5 of M. Arnold, "A recursive multibody formalism for systems with small
 * mass and inertia terms", Mech. Sci. 4 (2013), doi:10.5194/ms-4-221-2013, (the coupled oscillators of Fig. 1) in
 * absolute coordinates, integrated by SUNDIALS IDA with its defaults and
 * nothing of mbsim: the check that the error of mbsim's bdf runs at small
 * m1 and tight tolerances (docs/results/003/README.md) is IDA's on this
 * problem, not the tree formulation's.
 *
 *   cc -O2 -o ida_plain docs/results/003/ida_plain.c -lsundials_ida \
 *       -lsundials_nvecserial -lm
 *   ./ida_plain M1 TOL [MAXORD [P1 V1]] >run.txt  # t x_small x_large; MAXORD 0: 5
 *   /usr/bin/python3 tools/coupled_oscillators_ref.py --set m1=M1 --compare run.txt
 *
 * The deck's parameters (decks/coupled_oscillators.yaml), its start (at
 * rest, springs relaxed, the large mass at x = 1 m) and its 20 output
 * times 0.1, ..., 2 s (IDA stops on each: IDASetStopTime), or the small
 * mass at P1 with velocity V1 (the slow manifold: Arnold 2013, §2.1, no
 * initial layer; its y' from eq. 5a); residual
 * F(t, y, y') = y' - f(t, y), y = (p1, p2, v1, v2) displacements and
 * velocities, atol = rtol = TOL, dense direct solver on IDA's difference
 * Jacobian, up to 40 error-test failures in a step (IDA's default 10 do
 * not get the first step through at m1 = 1e-8).  Statistics on stderr. */
#include <ida/ida.h>
#include <ida/ida_ls.h>
#include <nvector/nvector_serial.h>
#include <sunlinsol/sunlinsol_dense.h>
#include <sunmatrix/sunmatrix_dense.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

static const double m2 = 1, c1 = 1e4, c2 = 100, d1 = 1e-3, d2 = 1e-3, F0 = 100, W = 2;
static double m1;

/* eqs. 5a, 5b */
static int res(realtype t, N_Vector Y, N_Vector Yp, N_Vector R, void *user)
{
	const double *y = N_VGetArrayPointer(Y), *yp = N_VGetArrayPointer(Yp);
	double *r = N_VGetArrayPointer(R);
	double p1 = y[0], p2 = y[1], v1 = y[2], v2 = y[3];
	double f2 = -d2 * (v2 - v1) - c2 * (p2 - p1);
	(void)user;
	r[0] = yp[0] - v1;
	r[1] = yp[1] - v2;
	r[2] = yp[2] - (F0 * sin(W * t) - d1 * v1 - c1 * p1 - f2) / m1;
	r[3] = yp[3] - f2 / m2;
	return 0;
}

int main(int argc, char **argv)
{
	if (argc < 3 || (m1 = atof(argv[1])) <= 0) {
		fprintf(stderr, "usage: ida_plain M1 TOL [MAXORD [P1 V1]]  (M1 > 0)\n");
		return 2;
	}
	double tol = atof(argv[2]);
	SUNContext sun;
	if (SUNContext_Create(NULL, &sun))
		return 1;
	N_Vector Y = N_VNew_Serial(4, sun), Yp = N_VNew_Serial(4, sun);
	N_VConst(0.0, Y);
	N_VConst(0.0, Yp);	/* at rest with F(0) = 0: all rates 0 */
	if (argc > 5) {
		N_Vector R = N_VClone(Y);
		N_VGetArrayPointer(Y)[0] = atof(argv[4]);
		N_VGetArrayPointer(Y)[2] = atof(argv[5]);
		res(0.0, Y, Yp, R, NULL);	/* Yp = 0: R = -f */
		N_VScale(-1.0, R, Yp);
		N_VDestroy(R);
	}
	SUNMatrix A = SUNDenseMatrix(4, 4, sun);
	SUNLinearSolver LS = SUNLinSol_Dense(Y, A, sun);
	void *mem = IDACreate(sun);
	if (!mem || IDAInit(mem, res, 0.0, Y, Yp) || IDASStolerances(mem, tol, tol) ||
	    IDASetLinearSolver(mem, LS, A) || IDASetMaxNumSteps(mem, 2000000000L) ||
	    /* the first step: v1'' = F0 W / m1 at t = 0 (2e10 m/s^3 at
	     * m1 = 1e-8) needs more than IDA's 10 reductions of its guess */
	    IDASetMaxErrTestFails(mem, 40) ||
	    (argc > 3 && atoi(argv[3]) > 0 && IDASetMaxOrd(mem, atoi(argv[3]))))
		return 1;
	const double *y = N_VGetArrayPointer(Y);
	for (int k = 1; k <= 20; k++) {
		double tout = 0.1 * k, t = 0;
		IDASetStopTime(mem, tout);
		if (IDASolve(mem, tout, &t, Y, Yp, IDA_NORMAL) < 0)
			return 1;
		printf("%.17g %.17g %.17g\n", t, y[0], 1.0 + y[1]);
	}
	long steps = 0, etf = 0;
	int q = 0;
	IDAGetNumSteps(mem, &steps);
	IDAGetNumErrTestFails(mem, &etf);
	IDAGetLastOrder(mem, &q);
	fprintf(stderr, "steps %ld error-test failures %ld last order %d\n", steps, etf, q);
	IDAFree(&mem);
	SUNLinSolFree(LS);
	SUNMatDestroy(A);
	N_VDestroy(Y);
	N_VDestroy(Yp);
	SUNContext_Free(&sun);
	return 0;
}
