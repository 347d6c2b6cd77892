/* testutil.c - see testutil.h */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>

#include "testutil.h"

void testutil_near(double actual, double expected, double rtol, double atol,
		   const char *what, const char *file, int line)
{
	double tol = atol + rtol * fabs(expected);
	if (!(fabs(actual - expected) <= tol)) {
		char msg[512];
		snprintf(msg, sizeof msg,
			 "%s = %.17g, expected %.17g (|diff| %.3g > tol %.3g)",
			 what, actual, expected, fabs(actual - expected), tol);
		print_error("%s:%d: %s\n", file, line, msg);
		_fail(file, line);
	}
}

double testutil_fd(testutil_fn f, double *x, int k, double h, void *ctx)
{
	double x0 = x[k];
	x[k] = x0 + h;
	double fp = f(x, ctx);
	x[k] = x0 - h;
	double fm = f(x, ctx);
	x[k] = x0;
	return (fp - fm) / (2.0 * h);
}
