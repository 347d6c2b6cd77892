/* clock.h - the run's output clock: where the run steps next, when a
 * state is a sample, how many samples a run writes (clock.c). */
#ifndef MBSIM_CLOCK_H
#define MBSIM_CLOCK_H

#include "../integ/registry.h"
#include "../model/options.h"

/* Where the run steps next.  Breakpoints: the times of output.times, then
 * time.end; the run lands exactly on each.  Fixed steps divide the
 * interval between two breakpoints into clock_fixed_steps_between equal steps;
 * adaptive steps take the scheme's proposal, shortened to land on the
 * next breakpoint without a sliver. */
struct clock {
	const double *ts;
	long nt, j;		/* requested times; the next one */
	double a, b, d;		/* fixed: from breakpoint a to b in n steps of d */
	long n, i;
};

/* Which states are samples without output.times (clock_sampling). */
struct sampling {
	long every;		/* write every k-th step (output.every, or the default) */
	double dt_w, t_w;	/* adaptive default: write a step dt_w or more
				 * after the last sample written, at t_w; 0: off */
};

/* The steps written without output.times: every output.every-th; unset,
 * every k-th with k the smallest that writes at most SIM_AUTO_SAMPLES of
 * the fixed steps, or, adaptive (the steps not known in advance), a step
 * when (t_end - t0) / SIM_AUTO_SAMPLES or more has passed since the last
 * sample written. */
void clock_sampling(const struct sim_options *o, struct sampling *s);
/* Is the state after step j (j = 0: the start) at t a sample?  last: the
 * end. */
int clock_sample_due(struct sampling *s, double t, long j, int last);

/* Steps of a fixed-step run from a to b (at least 1). */
long clock_fixed_steps_between(const struct sim_options *o, double a, double b);
/* Samples the run loop writes when the run of scheme info completes; 0
 * when the steps are not known in advance (adaptive). */
long clock_expected_samples(const struct sim_options *o, const struct sampling *s,
			    const struct integ_info *info);
/* The segment from breakpoint a to the next. */
void clock_segment(const struct sim_options *o, struct clock *c, double a);
/* The end of the next step from t (h: the adaptive proposal). */
double clock_target(const struct sim_options *o, const struct clock *c, double t, double h);
/* After a step to about t: the exact time of the state, whether it is a
 * requested sample time (*req) and whether it is time.end (*last). */
double clock_advance(const struct sim_options *o, struct clock *c, double t, int *req,
		     int *last);

#endif
