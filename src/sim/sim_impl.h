/* sim_impl.h - what the parts of the run loop share (sim.c the loop and
 * set-up, clock.c the output clock, monitor.c the monitors, naming.c the
 * messages, step_limit.c the elements' step limits). */
#ifndef MBSIM_SIM_IMPL_H
#define MBSIM_SIM_IMPL_H

#include "sim.h"
#include "clock.h"
#include "monitor.h"
#include "output.h"
#include "../integ/integ.h"

struct rp;
struct tree;
struct ode_ctrl;
struct events;
struct step_limit;

/* A run: what set-up makes and the loop carries (sim.c). */
struct run {
	const struct sim_args *a;
	struct sim_result *r;
	struct ra *sys;
	struct integ *it;
	struct output *out;
	struct monitor mo;
	long nsteps;
	double t_last_progress;
	int write_failed;	/* output_sample failed: the run ended */
	struct sampling smp;	/* which steps are samples (clock.h) */
	struct step_limit *limits;	/* the elements' step limits (step_limit.c) */
	int nlimits;
	/* the formulation the scheme steps when it is not ra, made here and
	 * handed to it as an ODE (integ_new_on) */
	struct rp *rp;
	struct tree *tree;
	struct ode_ctrl *ctrl;	/* the controllers' integral states around it */
	struct events *ev;	/* the deck's events (events.c), NULL: none */
	/* the restart checkpoint (checkpoint.c): the state a row saves (the
	 * one the loop continues from, NULL: none to save now), the steps
	 * taken to it, the clock, whether a lag = 1 scheme writes its start,
	 * the last step; the rows dropped as redundant; the checkpoint's
	 * size and buffer; the time of the last row written */
	struct ra_state *ck_x;
	long ck_steps;
	struct clock *ck_clock;
	struct clock clk0;	/* the clock a restart loaded */
	int ck_xw;
	double h_last;
	int *red_rows, nred;
	long ck_n;
	double *ck_v, ck_t;
	/* a run from a checkpoint: its steps before, 0 otherwise */
	int restarted;
	long k0;
	struct assess *as;	/* integrator.assess_error: the samples kept (assess.h) */
};

/* The restart checkpoint (checkpoint.c, man mbsim-output(5)): its size
 * once set-up is done, made in the output file (/checkpoint); a row of
 * the state the run continues from (R->ck_x) added before the flush
 * that will carry it; the restart's state loaded from a->restart.  A
 * load failure (another model, scheme or size) is -1 with the reason in
 * R->r->message. */
void sim_ckpt_open(struct run *R);
void sim_ckpt_append(struct run *R);
int sim_ckpt_load(struct run *R, struct ra_state *x, struct clock *c);

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
