/* output.h - the documented HDF5 layout (man/mbsim-output.5) on top of io/h5. */
#ifndef MBSIM_OUTPUT_H
#define MBSIM_OUTPUT_H

#include "../form/ra.h"
#include "../io/h5.h"

struct sample_info {
	double step;		/* size of the step that produced the sample */
	int iterations;		/* Newton iterations of that step */
	int converged;
	double kinetic, potential, work, total, drift;
	const double *coord;	/* unwrapped joint coordinates (njoints) */
};

struct output {
	struct h5out *h5;
	const struct model *m;
	int time, *body;	/* series ids: /time, 6 per body (output_body_series) */
	int *jmul, *jforce, *jtorque, *jcoord, *jeffort;	/* per joint then per driver */
	int pres, vres, ares, pvec, vvec, avec;
	int ekin, epot, ework, etot, edrift;
	int hstep, hiter, hconv;
	double *row, *g, *pv;	/* scratch */
};

/* Create the file and every series; NULL with message in err.  samples:
 * the number of samples the run will write if it completes (0: unknown),
 * for h5_start. */
struct output *output_open(const char *path, const struct model *m, long samples, char *err,
			   size_t n);
/* Write one sample; the caller has done ra_eval(PRIM_ALL) at x. Returns
 * the three residual norms through res[3]. */
void output_sample(struct output *o, struct ra *s, const struct ra_state *x,
		   const struct sample_info *si, double res[3]);
int output_close(struct output **o, const char *status);

/* The body part of the layout, shared with the kinematic reference
 * (kinematic.c) so that the two cannot drift apart.  Creates /time
 * (returns its id) and, for each body b of m, its series position,
 * velocity, acceleration, orientation, angular_velocity and
 * angular_acceleration with ids id[6 b + j] in that order. */
int output_body_series(struct h5out *h, const struct model *m, int *id);
/* One row of body b's series: r, v, a global (3 each); q the unit
 * quaternion (w,x,y,z) body to global; w, wd body frame (3 each). */
void output_body_row(struct h5out *h, const int *id, int b, const double *r, const double *v,
		     const double *a, const double *q, const double *w, const double *wd);

#endif
