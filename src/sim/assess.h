/* assess.h - the global error assessment of an adaptive run
 * (integrator.assess_error, man mbsim-run(1), GLOBAL ERROR).
 *
 * The local error a step control bounds does not bound the error at the
 * end of a run: it is propagated, and grows or not with the model.  As
 * RKSUITE does (Shampine & Gladwell's global error assessment), the run
 * is integrated a second time, more accurately - the same scheme and
 * formulation at a tenth of atol and rtol (and of the Newton tolerance) -
 * stepping onto the first run's sample times, and the two are compared
 * there.  When the error is about proportional to the tolerance the
 * difference is 0.9 times the first run's error; what it is on the
 * project's cases is in the man page.  The run records its samples'
 * body states (assess_record), the second run compares its own with them
 * (assess_compare, the on_sample hook of struct sim_args). */
#ifndef MBSIM_ASSESS_H
#define MBSIM_ASSESS_H

#include "sim.h"

struct assess {
	int nb;			/* bodies */
	long n, cap;		/* samples recorded, room */
	long seen;		/* samples of the run before the newest */
	long stride;		/* every stride-th of them is kept (ASSESS_BYTES) */
	int pending;		/* 1: row n holds the newest sample */
	double *t;		/* n sample times */
	double *s;		/* n x 6 nb: centroid positions, then velocities */
	long j;			/* the next recorded sample the second run meets */
	long met;		/* samples compared */
	double ymax;		/* largest |position coordinate| */
	double dpos, dvel;	/* largest differences, m and m/s */
	double tpos;		/* where the position's was */
	int bpos;		/* and its body */
};

/* The state x of a sample of the run (s its system): kept. */
void assess_record(struct assess *as, const struct ra *s, const struct ra_state *x);
/* sim_args.on_sample of the second run: its sample x against the
 * recorded one at the same time. */
void assess_compare(void *ctx, const struct ra *s, const struct ra_state *x);
/* The second run of the run a made, its result compared into r
 * (gerr_*; a warning when the estimate is above ASSESS_WARN times the
 * tolerance, or when it could not be made).  as is the caller's to
 * release (assess_release), assessed or not. */
void assess_run(const struct sim_args *a, struct assess *as, struct sim_result *r);
void assess_release(struct assess *as);
/* The warning of a complete restarted run that asked for the assessment. */
void assess_not_restart(struct sim_result *r);

/* The bytes of samples kept at most: a run that has more keeps every
 * second, then every fourth... of them (and its last), and the second run
 * compares at those. */
#define ASSESS_BYTES (256.0 * 1024 * 1024)

/* The factor of atol + rtol Y above which an assessed run warns. */
#define ASSESS_WARN 10.0

#endif
