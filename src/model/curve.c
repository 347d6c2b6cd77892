/* curve.c - see curve.h */
#include "curve.h"
#include "../la/lapack.h"
#include "../util/xalloc.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

const char *const curve_interp_names[CURVE_NINTERP] = { "linear", "cubic", "spline",
	"natural_spline" };
const char *const curve_extrap_names[2] = { "constant", "linear" };

/* Knot slopes m of the C^2 cubic spline through knots x with secants d
 * (de Boor, A Practical Guide to Splines, ch. IV, eqs. (4.9) and the end
 * conditions after it): for 0 < k < n-1
 *   h_k m_{k-1} + 2 (h_{k-1} + h_k) m_k + h_{k-1} m_{k+1}
 *     = 3 (h_k d_{k-1} + h_{k-1} d_k),
 * with the natural rows 2 m_0 + m_1 = 3 d_0 and m_{n-2} + 2 m_{n-1} =
 * 3 d_{n-2}, or the not-a-knot rows
 *   h_1 m_0 + (h_0 + h_1) m_1 = ((h_0 + 2 (h_0 + h_1)) h_1 d_0 + h_0^2 d_1) / (h_0 + h_1)
 * and its mirror at the other end.  Solved by LAPACK dgtsv (partial
 * pivoting: the not-a-knot rows are not diagonally dominant). */
static void spline_slopes(const double *x, const double *d, int n, int natural, double *m)
{
	if (n == 2 || (n == 3 && !natural)) {
		/* the line, or the parabola through three knots:
		 * p'(x) = d_0 + c (2 x - x_0 - x_1), c = (d_1 - d_0) / (x_2 - x_0) */
		double c = n == 3 ? (d[1] - d[0]) / (x[2] - x[0]) : 0.0;
		for (int k = 0; k < n; k++)
			m[k] = d[0] + c * (2.0 * x[k] - x[0] - x[1]);
		return;
	}
	double *lo = xcalloc((size_t)n, sizeof(double)), *di = xcalloc((size_t)n, sizeof(double));
	double *up = xcalloc((size_t)n, sizeof(double));
	for (int k = 1; k < n - 1; k++) {
		double hl = x[k] - x[k - 1], hr = x[k + 1] - x[k];
		lo[k - 1] = hr;
		di[k] = 2.0 * (hl + hr);
		up[k] = hl;
		m[k] = 3.0 * (hr * d[k - 1] + hl * d[k]);
	}
	if (natural) {
		di[0] = 2.0, up[0] = 1.0, m[0] = 3.0 * d[0];
		lo[n - 2] = 1.0, di[n - 1] = 2.0, m[n - 1] = 3.0 * d[n - 2];
	} else {
		double h0 = x[1] - x[0], h1 = x[2] - x[1];
		double ha = x[n - 2] - x[n - 3], hb = x[n - 1] - x[n - 2];
		di[0] = h1, up[0] = h0 + h1;
		m[0] = ((h0 + 2.0 * (h0 + h1)) * h1 * d[0] + h0 * h0 * d[1]) / (h0 + h1);
		lo[n - 2] = ha + hb, di[n - 1] = ha;
		m[n - 1] = (hb * hb * d[n - 3] + (2.0 * (ha + hb) + hb) * ha * d[n - 2]) / (ha + hb);
	}
	int nn = n, one = 1, info;
	dgtsv_(&nn, &one, lo, di, up, m, &nn, &info);
	free(lo);
	free(di);
	free(up);
}

int curve_prepare(struct curve *c, int *bad)
{
	int n = c->n;
	for (int k = 1; k < n; k++)
		if (!(c->x[k] > c->x[k - 1])) {
			*bad = k;
			return -1;
		}
	free(c->m);
	c->m = NULL;
	if (c->interp == CURVE_LINEAR)
		return 0;
	double *m = c->m = xcalloc((size_t)n, sizeof(double));
	double *d = xcalloc((size_t)n, sizeof(double));
	for (int k = 0; k < n - 1; k++)
		d[k] = (c->y[k + 1] - c->y[k]) / (c->x[k + 1] - c->x[k]);
	if (c->interp != CURVE_CUBIC) {
		spline_slopes(c->x, d, n, c->interp == CURVE_NATURAL, m);
		free(d);
		return 0;
	}
	m[0] = d[0];
	m[n - 1] = d[n - 2];
	for (int k = 1; k < n - 1; k++)
		m[k] = d[k - 1] * d[k] > 0 ? 0.5 * (d[k - 1] + d[k]) : 0.0;
	/* Fritsch-Carlson: on each interval keep (a, b) inside the circle of
	 * radius 3, a sufficient condition for a monotone piece */
	for (int k = 0; k < n - 1; k++) {
		if (d[k] == 0.0) {
			m[k] = m[k + 1] = 0.0;
			continue;
		}
		double a = m[k] / d[k], b = m[k + 1] / d[k], s = a * a + b * b;
		if (s > 9.0) {
			double tau = 3.0 / sqrt(s);
			m[k] = tau * a * d[k];
			m[k + 1] = tau * b * d[k];
		}
	}
	free(d);
	return 0;
}

/* Index k of the interval [x[k], x[k+1]] holding x (bisection). */
static int interval(const struct curve *c, double x)
{
	int lo = 0, hi = c->n - 1;
	while (hi - lo > 1) {
		int mid = (lo + hi) / 2;
		if (x < c->x[mid])
			hi = mid;
		else
			lo = mid;
	}
	return lo;
}

/* Value and slope of piece k at x (x may lie outside it). */
static double piece(const struct curve *c, int k, double x, double *dy)
{
	double h = c->x[k + 1] - c->x[k], y0 = c->y[k], y1 = c->y[k + 1];
	if (c->interp == CURVE_LINEAR) {
		double s = (y1 - y0) / h;
		*dy = s;
		return y0 + s * (x - c->x[k]);
	}
	/* cubic Hermite on u = (x - x_k)/h */
	double u = (x - c->x[k]) / h, m0 = c->m[k] * h, m1 = c->m[k + 1] * h;
	double u2 = u * u, u3 = u2 * u;
	double h00 = 2 * u3 - 3 * u2 + 1, h10 = u3 - 2 * u2 + u;
	double h01 = -2 * u3 + 3 * u2, h11 = u3 - u2;
	*dy = ((6 * u2 - 6 * u) * y0 + (3 * u2 - 4 * u + 1) * m0 +
	       (-6 * u2 + 6 * u) * y1 + (3 * u2 - 2 * u) * m1) / h;
	return h00 * y0 + h10 * m0 + h01 * y1 + h11 * m1;
}

/* Piece k's second derivative at x. */
static double piece2(const struct curve *c, int k, double x)
{
	if (c->interp == CURVE_LINEAR)
		return 0.0;
	double h = c->x[k + 1] - c->x[k], u = (x - c->x[k]) / h;
	double m0 = c->m[k] * h, m1 = c->m[k + 1] * h;
	return ((12 * u - 6) * (c->y[k] - c->y[k + 1]) + (6 * u - 4) * m0 + (6 * u - 2) * m1) /
	       (h * h);
}

void curve_eval2(const struct curve *c, double x, int side, double f[3])
{
	int n = c->n;
	if (x < c->x[0] || x > c->x[n - 1] || (side > 0 && x == c->x[n - 1]) ||
	    (side < 0 && x == c->x[0])) {
		f[0] = curve_eval(c, x, &f[1]);
		f[2] = 0.0;
		return;
	}
	int k = interval(c, x);
	if (side < 0 && k > 0 && x == c->x[k])
		k--;
	f[0] = piece(c, k, x, &f[1]);
	f[2] = piece2(c, k, x);
}

double curve_eval(const struct curve *c, double x, double *dy)
{
	double slope, y;
	int n = c->n;
	if (x < c->x[0] || x > c->x[n - 1]) {
		int first = x < c->x[0];
		double xe = first ? c->x[0] : c->x[n - 1];
		double ye = first ? c->y[0] : c->y[n - 1];
		double se = 0.0;
		if (c->extrap == CURVE_EXTRAP_LINEAR)
			piece(c, first ? 0 : n - 2, xe, &se);
		if (dy)
			*dy = se;
		return ye + se * (x - xe);
	}
	y = piece(c, interval(c, x), x, &slope);
	if (dy)
		*dy = slope;
	return y;
}

void curve_release(struct curve *c)
{
	free(c->name);
	free(c->x);
	free(c->y);
	free(c->m);
	c->name = NULL;
	c->x = c->y = c->m = NULL;
}

/* The number at p as *v; the end of it, or NULL when p holds no number. */
static char *csv_field(char *p, double *v)
{
	char *end;
	*v = strtod(p, &end);
	return end == p ? NULL : end;
}

static void csv_push(struct curve *c, double x, double y, int *cap)
{
	if (c->n == *cap) {
		*cap = *cap ? 2 * *cap : 64;
		c->x = xrealloc(c->x, (size_t)*cap * sizeof(double));
		c->y = xrealloc(c->y, (size_t)*cap * sizeof(double));
	}
	c->x[c->n] = x;
	c->y[c->n++] = y;
}

int curve_read_csv(FILE *f, struct curve *c, long *line, long *col, char *err, int n)
{
	char *buf = NULL, *p, *e;
	size_t size = 0;
	int cap = c->n, rc = 0;
	double x, y;
	*line = *col = 0;
	while (getline(&buf, &size, f) >= 0) {
		++*line;
		p = buf + strspn(buf, " \t");
		if (!(e = csv_field(p, &x)))
			continue;	/* a header or comment */
		*col = p - buf + 1;
		if (isfinite(x)) {
			p = e + strspn(e, " \t,;");
			*col = p - buf + 1;
			e = csv_field(p, &y);
		}
		if (!isfinite(x) || !e || !isfinite(y)) {
			if (isfinite(x) && !e)
				snprintf(err, (size_t)n, "expected two numbers x,y");
			else
				snprintf(err, (size_t)n, "%s value is not a finite number",
					 isfinite(x) ? "y" : "x");
			rc = -1;
			break;
		}
		if (c->n >= CURVE_MAX_POINTS) {
			snprintf(err, (size_t)n, "more than %d rows", CURVE_MAX_POINTS);
			rc = -1;
			break;
		}
		csv_push(c, x, y, &cap);
	}
	if (rc == 0 && ferror(f)) {
		snprintf(err, (size_t)n, "read error");
		*col = 0;
		rc = -1;
	}
	free(buf);
	return rc;
}
