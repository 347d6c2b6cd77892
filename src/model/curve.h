/* curve.h - tabulated scalar curves y(x) (spring force versus deflection,
 * damper force versus velocity, any scalar versus any argument).
 *
 * Knots x[0] < x[1] < ... < x[n-1], n >= 2.  Between knots: linear
 * interpolation, or the monotone piecewise cubic Hermite interpolant of
 * Fritsch and Carlson (SIAM J. Numer. Anal. 17 (1980) 238-246): secant
 * slopes d_k, knot slopes m_k = (d_{k-1} + d_k)/2, set to 0 where the
 * secants change sign or one is 0, and scaled by
 * 3 / sqrt(a^2 + b^2) where a^2 + b^2 > 9 (a = m_k/d_k, b = m_{k+1}/d_k),
 * which keeps each piece monotone where the data are.  End slopes: the
 * one-sided secant.
 *
 * Or the C^2 cubic spline (de Boor, A Practical Guide to Splines, ch. IV:
 * the knot slopes solve a tridiagonal system), with the not-a-knot end
 * condition (the third derivative continuous at x[1] and x[n-2]; with 3
 * knots the parabola, with 2 the line through them) or the natural one
 * (second derivative 0 at both ends).  Both are piecewise cubic Hermite
 * on their knot slopes, so one evaluation serves the three cubics.
 *
 * Outside [x[0], x[n-1]]: constant (the end value) or linear (the end
 * value continued with the end slope of the interpolant). */
#ifndef MBSIM_CURVE_H
#define MBSIM_CURVE_H

#include <stdio.h>

enum curve_interp { CURVE_LINEAR, CURVE_CUBIC, CURVE_SPLINE, CURVE_NATURAL };
#define CURVE_NINTERP 4
enum curve_extrap { CURVE_EXTRAP_CONSTANT, CURVE_EXTRAP_LINEAR };

struct curve {
	char *name;
	int n;
	double *x, *y;		/* n knots each */
	double *m;		/* n knot slopes (cubic) or NULL */
	enum curve_interp interp;
	enum curve_extrap extrap;
};

/* Fill c->m for a cubic curve (x, y, n, interp set).  0, or -1 when the
 * knots are not strictly increasing (k of the first bad knot in *bad). */
int curve_prepare(struct curve *c, int *bad);
/* y(x) and, when dy != NULL, dy/dx. */
double curve_eval(const struct curve *c, double x, double *dy);
/* f[0] = y(x), f[1] = dy/dx, f[2] = d2y/dx2 of the interpolant.  At a
 * knot, where f[2] (and for linear f[1]) may jump, the piece on the
 * right (side > 0) or on the left (side < 0). */
void curve_eval2(const struct curve *c, double x, int side, double f[3]);
void curve_release(struct curve *c);
/* Append the rows "x,y" (or separated by blanks or ';') of the CSV text
 * in f to c, lines of any length; a line whose first field is not a
 * number (a header, a comment) is skipped.  0, or -1 with why in err and
 * the 1-based line and column of the fault in *line, *col: a row without
 * a second number, a value that is not finite (nan, inf, 1e999), or more
 * than CURVE_MAX_POINTS rows. */
#define CURVE_MAX_POINTS 10000000
int curve_read_csv(FILE *f, struct curve *c, long *line, long *col, char *err, int n);

extern const char *const curve_interp_names[CURVE_NINTERP];
extern const char *const curve_extrap_names[2];

#endif
