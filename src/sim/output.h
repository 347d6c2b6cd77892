/* output.h - the documented HDF5 layout (man/mbsim-output.5) on top of io/h5.
 *
 * Layout version 2: one dataset per quantity, its second axis the bodies
 * (joints, drivers) in deck order, named by /bodies/names (/joints/names,
 * /drivers/names); a handful of datasets whatever the model's size. */
#ifndef MBSIM_OUTPUT_H
#define MBSIM_OUTPUT_H

#include "../form/ra.h"
#include "../io/h5.h"

#define OUTPUT_LAYOUT_VERSION 2

/* Series ids of output_body_series: the six /bodies series (rigid bodies),
 * then /particles/position, velocity, acceleration. */
#define OUTPUT_BODY_IDS 9

struct integ_contact;
struct sample_info {
	double step;		/* size of the step that produced the sample */
	int iterations;		/* Newton iterations of that step */
	int converged;
	double kinetic, potential, work, total, drift;
	const double *coord;	/* unwrapped joint coordinates (njoints) */
	/* formulation tree: every joint's coordinates and their rates, joint
	 * by joint (tree_joint_coords), or NULL */
	const double *jq, *jqd;
	double series;		/* the scheme's value of the step (output_series) */
	double work_motors, work_drivers;	/* their parts of work, J */
	/* the nonsmooth contact model: the contacts of the step that ended
	 * at the sample, with their impulses (integ_contacts), or NULL */
	const struct integ_contact *impulses;
	size_t nimpulses;
};

struct output {
	struct h5out *h5;
	const struct model *m;
	int time, body[OUTPUT_BODY_IDS];	/* series ids: /time, /bodies/..., /particles/... */
	int ppos, pvel, pacc;	/* /points/... */
	int jmul, jforce, jtorque, jcoord;		/* /joints/... */
	int jforce_j, jtorque_j;	/* in the joint frame, or -1 */
	int euler, ax[3];	/* /bodies/euler_angles and its sequence, or -1 */
	int jq, jqd;		/* /joints/coordinates, coordinate_rates (tree), or -1 */
	int njq;		/* their columns */
	int dmul, deffort, dforce, dtorque;		/* /drivers/... */
	int pres, vres, ares, pvec, vvec, avec;
	int ekin, epot, ework, etot, edrift, ewm, ewd;
	int hstep, hiter, hconv;
	int hseries;		/* /solver/<name> of output_series, or -1 (none) */
	int ckt, ckv;		/* /checkpoint/time, state (output_ckpt_open), or -1 */
	struct out_forces *fx;	/* /forces and /measures (output_forces.c) */
	/* /contacts: count per sample, then a row per contact (-1: none) */
	int ccount, cpair, cpoint, cnormal, cgap, cfn, cft, cslip;
};

/* A table of one unit string per element (h5_names at table), named by
 * the attribute element_units of each of the ns series (output_forces.c). */
void output_units_table(struct h5out *h, const char *table, const char *const *u, int n,
			const char *const *series, int ns);
/* /forces and /measures (output_forces.c): datasets, one row, release. */
void output_forces_open(struct output *o, struct h5out *h, const struct model *m);
void output_forces_rows(struct output *o, struct ra *s, const struct ra_state *x);
void output_forces_close(struct output *o);

/* Create the file with every dataset, write the deck text (/deck) and
 * flush; NULL with a message in err.  opt: flush interval, compression,
 * expected samples (see h5.h).  flags: OUTPUT_JOINT_COORDS, also
 * /joints/coordinates and coordinate_rates (the formulation tree, whose
 * state they are).  series: a value of the scheme's each step
 * (integ_ops.sample_name), /solver/<name>, or NULL. */
enum { OUTPUT_JOINT_COORDS = 2 };
/* OUTPUT_JOINT_FRAME: also the joints' reactions in body 2's joint frame
 * (output.joint_frame_reactions); OUTPUT_EULER(ax): also /bodies/euler_angles
 * in the intrinsic sequence ax[3] of euler_seq (output.euler). */
#define OUTPUT_JOINT_FRAME 4u
#define OUTPUT_EULER(ax) ((unsigned)(1 + 9 * (ax)[0] + 3 * (ax)[1] + (ax)[2]) << 8)
struct output_series {
	const char *name, *unit, *doc;
};
struct output *output_open(const char *path, const struct model *m, const struct h5_opts *opt,
			   const char *deck_text, unsigned flags,
			   const struct output_series *series, char *err, size_t n);
/* Write one sample; the caller has done ra_eval(PRIM_ALL) at x. Returns
 * the three residual norms through res[3].  0, or -1 when writing the
 * file has failed (h5_error names it). */
int output_sample(struct output *o, struct ra *s, const struct ra_state *x,
		  const struct sample_info *si, double res[3]);
/* The sample's rows are all in (h5_commit): 0, or -1 when writing the
 * file has failed.  output_flush_due: 1 when this commit will flush, so
 * that the caller adds the checkpoint first (h5_flush_due). */
int output_commit(struct output *o);
int output_flush_due(const struct output *o);
/* The restart checkpoint (sim/checkpoint.c): the series /checkpoint/time
 * and /checkpoint/state of rows of n values, made once the run knows n;
 * a row of each, written with the next flush. */
void output_ckpt_open(struct output *o, long n);
void output_ckpt_row(struct output *o, double t, const double *v);
/* The file of a run stopped (SIGINT, SIGTERM) before its model existed,
 * while the deck was read or built: layout_version, /deck, an empty
 * /time and status "interrupted: during set-up (why)".  -1 with a
 * message in err when it cannot be written. */
int output_interrupted(const char *path, const char *deck_text, const char *why, char *err,
		       size_t n);
/* The group /shapes: the bodies' shapes, triangulated, and their masses
 * and inertias (output_shape.c). */
void output_shapes(struct h5out *h, const struct model *m);
/* Close (h5_close): -1 with a message in err when writing failed. */
int output_close(struct output **o, const char *status, char *err, size_t n);
/* Bytes of samples the writer has kept in memory at once (h5_kept_max). */
size_t output_buffer_bytes(const struct output *o);

/* The body part of the layout, shared with the kinematic reference
 * (kinematic.c) so that the two cannot drift apart.  Creates /time
 * (returns its id), /bodies/names and the series /bodies/position,
 * velocity, acceleration, orientation, angular_velocity and
 * angular_acceleration (samples x rigid bodies x 3, or 4 for orientation),
 * with ids id[0..6) in that order; when the model has particles,
 * /particles/names and /particles/position, velocity, acceleration
 * (samples x particles x 3), ids id[6..9) (else -1): a particle has no
 * orientation to write (model.h). */
int output_body_series(struct h5out *h, const struct model *m, int *id);
/* One sample of every body, arrays over all bodies in model order: r, v,
 * a global (3 per body); q the unit quaternions (w,x,y,z) body to global
 * (4 per body); w, wd body frame.  Split into rigid bodies and particles. */
void output_body_row(struct h5out *h, const struct model *m, const int *id, const double *r,
		     const double *v, const double *a, const double *q, const double *w,
		     const double *wd);
/* /points/names and /points/{position,velocity,acceleration} (ids in
 * id[0..2], -1 each when the model has no points). */
void output_point_series(struct h5out *h, const struct model *m, int id[3]);
/* Global position, velocity and acceleration (3 each) of body point p at
 * the state arrays r, A, v, w, a, wd (all bodies, model order). */
void output_point_kin(const struct body_point *p, const double *r, const double *A,
		      const double *v, const double *w, const double *a, const double *wd,
		      double pos[3], double vel[3], double acc[3]);

#endif
