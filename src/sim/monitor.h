/* monitor.h - what the run loop watches in every completed state
 * (monitor.c). */
#ifndef MBSIM_MONITOR_H
#define MBSIM_MONITOR_H

#include <stddef.h>

#include "balance.h"
#include "../form/ra.h"

/* State of the monitors carried from one completed state to the next. */
struct monitor {
	struct balance bal;	/* work, energy scale (balance.h) */
	double total0;
	int first;
	double *coord, *coord_raw;	/* unwrapped and last raw joint coordinates */
	double *turn;		/* bound on a revolute's turn since coord_raw */
	double *wraps;		/* whole turns of a revolute since t0 */
	double *jq, *jqd;	/* tree: every joint's coordinates and rates, or NULL */
};

/* The arrays of a run on m; njq: the tree's joint coordinates (0: not a
 * tree run). */
void monitor_init(struct monitor *mo, const struct model *m, size_t njq);
void monitor_free(struct monitor *mo);
/* Joint coordinates of the sample at x (write: a written sample). */
void monitor_coords(const struct model *m, const struct ra_state *x, double h, int write,
		    struct monitor *mo);
/* 0 when x is finite, else -1 with the first body or constraint row that
 * is not named in msg (after `step` steps of h). */
int monitor_finite(const struct ra *s, const struct ra_state *x, long step, double h, char *msg,
		   size_t n);
/* What to do about a non-finite state after `step` steps. */
const char *monitor_blowup_remedy(long step);
/* The body of largest kinetic energy, for a message about the energy. */
int monitor_fastest_body(const struct ra *s, const struct ra_state *x);
/* sum m |g| |r| over the bodies: the size of the gravity terms of V */
double monitor_gravity_size(const struct ra *s, const struct ra_state *x);

#endif
