/* sim_impl.h - what the parts of the run loop share (sim.c the loop and
 * set-up, clock.c the output clock, monitor.c the monitors, naming.c the
 * messages, step_limit.c the elements' step limits). */
#ifndef MBSIM_SIM_IMPL_H
#define MBSIM_SIM_IMPL_H

#include "sim.h"
#include "../integ/integ.h"

/* The message of a step of it that ended in status st at t (step `step`,
 * h): the family's own (integ_fail), else the shared one from the
 * step's failure detail (bad_row, eom_body, iterations). */
void sim_fail_message(const struct integ *it, int st, double t, long step, double h, char *msg,
		      size_t n);

/* A coupled turn that may have passed RA_CPL_TURN in the step that ended
 * at t (ra.h): the coupling's branch is no longer known. */
void sim_cpl_fault_message(const struct ra *s, double t, long step, double h, char *msg,
			   size_t n);

/* A step limit an element of the model offers to adaptive runs: the
 * longest step from the completed state x not above h that it allows (h
 * when it has nothing against h). */
struct step_limit {
	double (*limit)(void *ctx, const struct ra_state *x, double h);
	void (*free)(void *ctx);
	void *ctx;
};

/* The step limits of model m compiled as s (the tires' road look-ahead,
 * the smooth contacts' onsets); their count, 0 with *out NULL when none.
 * step_limits_free releases them. */
int step_limits_new(const struct model *m, const struct ra *s, struct step_limit **out);
void step_limits_free(struct step_limit *l, int n);

/* events.c: the deck's events, watched after every accepted step. */
struct event_rec {
	int event;	/* index in model.events */
	int dir;	/* +1 rising, -1 falling */
	double t;	/* the crossing */
};
struct events;
/* NULL when the model has none; conditions taken at x, the start. */
struct events *events_new(const struct ra *s, const struct ra_state *x);
void events_free(struct events **E);
long events_step(struct events *E, const struct ra *s, const struct ra_state *x,
		 const struct ra_state *y);
const struct event_rec *events_records(const struct events *E, long *n);

#endif
