/* curve.c - see curve.h */
#include "curve.h"
#include "../util/xalloc.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

const char *const curve_interp_names[2] = { "linear", "cubic" };
const char *const curve_extrap_names[2] = { "constant", "linear" };

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
	if (c->interp != CURVE_CUBIC)
		return 0;
	double *m = c->m = xcalloc((size_t)n, sizeof(double));
	double *d = xcalloc((size_t)n, sizeof(double));
	for (int k = 0; k < n - 1; k++)
		d[k] = (c->y[k + 1] - c->y[k]) / (c->x[k + 1] - c->x[k]);
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
