/* clock.c - the run's output clock (clock.h). */
#include "clock.h"

#include <math.h>

/* Steps of a fixed-step run from a to b: the fewest equal steps not longer
 * than integrator.step (a remainder is shared, never left as a sliver,
 * whose accelerations come out of a near-zero step: bench/README.md, "The
 * output clock").  At most 2e12 + 1 (sim_options_check_time). */
long clock_fixed_steps_between(const struct sim_options *o, double a, double b)
{
	double n = ceil((b - a) / o->step - 1e-9);
	return n < 1 ? 1 : n > 4e12 ? (long)4e12 : (long)n;
}

static long fixed_steps(const struct sim_options *o)
{
	return clock_fixed_steps_between(o, o->t0, o->t_end);
}

void clock_sampling(const struct sim_options *o, struct sampling *s)
{
	s->every = o->every > 0 ? o->every : 1;
	s->dt_w = 0.0;
	s->t_w = o->t0;
	if (o->every > 0 || o->times)
		return;
	if (o->adaptive)
		s->dt_w = (o->t_end - o->t0) / SIM_AUTO_SAMPLES;
	else
		s->every = (fixed_steps(o) + SIM_AUTO_SAMPLES - 1) / SIM_AUTO_SAMPLES;
}

int clock_sample_due(struct sampling *s, double t, long j, int last)
{
	if (s->dt_w > 0) {
		/* a step within 1e-9 of dt_w counts: rounding of t */
		int due = j == 0 || last || t - s->t_w >= s->dt_w * (1 - 1e-9);
		if (due)
			s->t_w = t;
		return due;
	}
	return j % s->every == 0 || last;
}

/* Samples loop() writes when the run completes; 0 when the steps are not
 * known in advance (adaptive). */
long clock_expected_samples(const struct sim_options *o, const struct sampling *s,
			    const struct integ_info *info)
{
	if (o->times)
		return o->ntimes;
	if (!info || o->adaptive)
		return 0;
	long N = fixed_steps(o), e = s->every;
	if (info->lag)		/* steps k with k % every == 0, then the end */
		return (N + e - 1) / e + 1;
	/* the start, steps k + 1 that are multiples of every, and the end */
	return 1 + N / e + (N % e != 0);
}

static double clock_next_break(const struct sim_options *o, struct clock *c, double t)
{
	while (c->j < c->nt && c->ts[c->j] <= t)	/* a time equal to t0 */
		c->j++;
	return c->j < c->nt ? c->ts[c->j] : o->t_end;
}

void clock_segment(const struct sim_options *o, struct clock *c, double a)
{
	c->a = a;
	c->b = clock_next_break(o, c, a);
	c->n = clock_fixed_steps_between(o, a, c->b);
	c->d = (c->b - a) / (double)c->n;
	c->i = 0;
}

/* The end of the next step from t (h: the adaptive proposal). */
double clock_target(const struct sim_options *o, const struct clock *c, double t,
			   double h)
{
	if (!o->adaptive)
		return c->i + 1 == c->n ? c->b : c->a + (double)(c->i + 1) * c->d;
	double left = c->b - t, T = o->t_end - o->t0;
	if (h >= left - 1e-12 * T)
		return c->b;
	return t + (h > 0.5 * left ? 0.5 * left : h);
}

/* After a step to about t: the exact time of the state, whether it is a
 * requested sample time (*req) and whether it is time.end (*last). */
double clock_advance(const struct sim_options *o, struct clock *c, double t,
			    int *req, int *last)
{
	double T = o->t_end - o->t0;
	int on_break;
	if (!o->adaptive) {
		on_break = ++c->i == c->n;
		if (!on_break)
			t = c->a + (double)c->i * c->d;
	} else {
		on_break = c->b - t <= 1e-12 * T;
	}
	*req = 0;
	*last = 0;
	if (!on_break)
		return t;
	t = c->b;
	*req = c->j < c->nt && c->ts[c->j] == t;
	*last = t == o->t_end;
	if (!*last)
		clock_segment(o, c, t);
	return t;
}
