/* events.c - the deck's events: conditions watched after every accepted
 * step (sim_impl.h, man mbsim-deck(5) EVENTS).
 *
 * A condition g is evaluated at the end of each accepted step.  When its
 * sign changes in the asked direction (rising: from g < 0 to g >= 0,
 * falling: from g > 0 to g <= 0), the crossing is located inside the
 * step on the cubic Hermite interpolant of the state between the step's
 * ends: positions from positions and velocities at both ends (a cubic
 * per coordinate, exact for a motion of constant acceleration), a
 * rotation as A0 exp(theta(s)) with theta the Hermite cubic from 0 to
 * log(A0^T A1) with the body-frame rates at the ends, velocities the
 * derivative of the position cubic, angular velocities linear.  The root
 * of g on it is found by the Illinois variant of regula falsi, finished
 * by bisection, to a bracket of EVENT_TOL times the step.  A condition
 * that is exactly zero at the start of a step does not fire again: the
 * previous step's end had the event.
 */
#include "sim_impl.h"
#include "../util/vec.h"
#include "../util/xalloc.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* the crossing's bracket, relative to the step */
#define EVENT_TOL 1e-12

struct events {
	const struct model *m;
	double *g;		/* each condition at the last accepted state */
	struct ra_state z;	/* the interpolated state */
	struct event_rec *rec;
	long nrec, cap;
};

struct events *events_new(const struct ra *s, const struct ra_state *x)
{
	const struct model *m = s->m;
	if (m->nevents == 0)
		return NULL;
	struct events *E = xcalloc(1, sizeof(*E));
	E->m = m;
	E->g = xmalloc((size_t)m->nevents * sizeof(double));
	ra_state_init(s, &E->z);
	for (int i = 0; i < m->nevents; i++)
		E->g[i] = ra_sexpr(s, x, x->t, m->events[i].ex);
	return E;
}

void events_free(struct events **E)
{
	if (!*E)
		return;
	free((*E)->g);
	free((*E)->rec);
	ra_state_release(&(*E)->z);
	free(*E);
	*E = NULL;
}

/* The state at x->t + tau (y->t - x->t), 0 <= tau <= 1, into z. */
static void interp(const struct ra *s, const struct ra_state *x, const struct ra_state *y,
		   double tau, struct ra_state *z)
{
	double h = y->t - x->t, t2 = tau * tau, t3 = t2 * tau;
	double h00 = 2 * t3 - 3 * t2 + 1, h10 = t3 - 2 * t2 + tau;
	double h01 = -2 * t3 + 3 * t2, h11 = t3 - t2;
	/* d/ds of the basis, s = x->t + tau h */
	double d00 = (6 * t2 - 6 * tau) / h, d10 = 3 * t2 - 4 * tau + 1;
	double d01 = (-6 * t2 + 6 * tau) / h, d11 = 3 * t2 - 2 * tau;
	z->t = x->t + tau * h;
	for (int b = 0; b < s->nb; b++) {
		const double *A0 = x->A + 9 * b, *A1 = y->A + 9 * b;
		double R[9], th1[3], th[3];
		for (int k = 0; k < 3; k++) {
			int i = 3 * b + k;
			z->r[i] = h00 * x->r[i] + h10 * h * x->v[i] + h01 * y->r[i] +
				  h11 * h * y->v[i];
			z->v[i] = d00 * x->r[i] + d10 * x->v[i] + d01 * y->r[i] + d11 * y->v[i];
			z->w[i] = (1 - tau) * x->w[i] + tau * y->w[i];
		}
		m3_tmul(R, A0, A1);
		so3_log(th1, R);
		for (int k = 0; k < 3; k++)
			th[k] = h10 * h * x->w[3 * b + k] + h01 * th1[k] +
				h11 * h * y->w[3 * b + k];
		so3_exp(R, th);
		m3_mul(z->A + 9 * b, A0, R);
	}
}

static double g_at(struct events *E, const struct ra *s, const struct ra_state *x,
		   const struct ra_state *y, int i, double tau)
{
	if (tau <= 0)
		return E->g[i];
	interp(s, x, y, tau, &E->z);
	return ra_sexpr(s, &E->z, E->z.t, E->m->events[i].ex);
}

/* The crossing of condition i in (0, 1] of the step, g(0) = ga and
 * g(1) = gb of opposite signs (or gb = 0). */
static double locate(struct events *E, const struct ra *s, const struct ra_state *x,
		     const struct ra_state *y, int i, double ga, double gb)
{
	double a = 0, b = 1;
	int neg = ga < 0;	/* g(a) keeps the sign of the step's start */
	int side = 0;
	for (int it = 0; it < 60 && b - a > EVENT_TOL; it++) {
		double c = (a * gb - b * ga) / (gb - ga);
		if (!(c > a && c < b))
			c = 0.5 * (a + b);
		double gc = g_at(E, s, x, y, i, c);
		if (gc == 0)
			return c;
		if ((gc < 0) == neg) {
			/* c replaces a; Illinois halves g(b) when b was kept
			 * the last time too, so that both ends move */
			a = c;
			ga = gc;
			if (side == 1)
				gb *= 0.5;
			side = 1;
		} else {
			b = c;
			gb = gc;
			if (side == -1)
				ga *= 0.5;
			side = -1;
		}
	}
	while (b - a > EVENT_TOL) {	/* Illinois stalled: bisection */
		double c = 0.5 * (a + b), gc = g_at(E, s, x, y, i, c);
		if (gc == 0)
			return c;
		if ((gc < 0) == neg)
			a = c;
		else
			b = c;
	}
	return 0.5 * (a + b);
}

static int cmp_rec(const void *p, const void *q)
{
	const struct event_rec *a = p, *b = q;
	return (a->t > b->t) - (a->t < b->t);
}

/* After the accepted step x -> y: the crossings of the step appended in
 * time order; the index of the first record of a stop event, or -1. */
long events_step(struct events *E, const struct ra *s, const struct ra_state *x,
		 const struct ra_state *y)
{
	if (!E)
		return -1;
	const struct model *m = E->m;
	long first = E->nrec;
	for (int i = 0; i < m->nevents; i++) {
		double ga = E->g[i], gb = ra_sexpr(s, y, y->t, m->events[i].ex);
		int up = ga < 0 && gb >= 0, down = ga > 0 && gb <= 0;
		enum event_dir d = m->events[i].dir;
		if ((up && d != EVENT_FALLING) || (down && d != EVENT_RISING)) {
			double tau = gb == 0 ? 1 : locate(E, s, x, y, i, ga, gb);
			if (E->nrec == E->cap) {
				E->cap = E->cap ? 2 * E->cap : 16;
				E->rec = xrealloc(E->rec, (size_t)E->cap * sizeof(*E->rec));
			}
			struct event_rec *r = &E->rec[E->nrec++];
			r->event = i;
			r->t = x->t + tau * (y->t - x->t);
			r->dir = up ? 1 : -1;
		}
		E->g[i] = gb;
	}
	if (E->nrec > first)	/* qsort of no records: E->rec may still be NULL */
		qsort(E->rec + first, (size_t)(E->nrec - first), sizeof(*E->rec), cmp_rec);
	for (long k = first; k < E->nrec; k++)
		if (m->events[E->rec[k].event].action == EVENT_STOP) {
			E->nrec = k + 1;	/* nothing after the stop */
			return k;
		}
	return -1;
}

const struct event_rec *events_records(const struct events *E, long *n)
{
	*n = E ? E->nrec : 0;
	return E ? E->rec : NULL;
}
