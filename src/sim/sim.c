/* sim.c - the run loop (sim.h).
 *
 * Set-up: compile the model (form/ra), make the initial state consistent
 * (assemble.c), find accelerations and multipliers at t0.  Then one fixed
 * step after another (or, with integrator.adaptive, the steps the scheme's
 * step control chooses); every completed state passes the monitors (work of
 * nonconservative forces, unwrapped joint coordinates) and, every k-th,
 * the output.  Completed states arrive one step late for schemes whose
 * registry row has lag = 1.
 */
#include "sim.h"
#include "assemble.h"
#include "output.h"
#include "../integ/integ.h"
#include "../util/vec.h"
#include "../util/xalloc.h"

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

void sim_row_name(const struct model *m, int k, char *buf, size_t n)
{
	if (k < 0 || k >= m->ncons) {
		snprintf(buf, n, "an unknown constraint");
		return;
	}
	const struct prim *p = &m->prims[k];
	if (p->owner < m->njoints) {
		const struct joint *j = &m->joints[p->owner];
		snprintf(buf, n, "joint '%s' (%s, row %d of %d, %s)", j->name,
			 joint_type_names[j->type], k - j->row0 + 1, j->nrows,
			 prim_type_names[p->type]);
	} else {
		snprintf(buf, n, "driver '%s'", m->drivers[p->owner - m->njoints].name);
	}
}

/* State of the monitors carried from one completed state to the next. */
struct monitor {
	double work, P_prev, t_prev, total0;
	int first;
	double *coord, *coord_raw;	/* unwrapped and last raw joint coordinates */
	double *turn;		/* bound on a revolute's turn since coord_raw */
	double *wraps;		/* whole turns of a revolute since t0 */
};

/* Joint coordinates of the sample at x.  A revolute's angle is unwrapped
 * from its last value, which needs it at least every half turn: between
 * samples it is taken only when |w_2 - w_1| summed over the steps since
 * (a bound on the turn) passes pi/2.  Slides need no history. */
static void monitor_coords(const struct model *m, const struct ra_state *x, double h,
			   int write, struct monitor *mo)
{
	static const double I[9] = { 1, 0, 0, 0, 1, 0, 0, 0, 1 }, Z[3] = { 0, 0, 0 };
	for (int j = 0; j < m->njoints; j++) {
		const struct joint *jt = &m->joints[j];
		if (jt->type != JOINT_REVOLUTE && jt->type != JOINT_TRANSLATIONAL)
			continue;
		int b0 = jt->body[0], b1 = jt->body[1];
		if (!write && !mo->first) {
			if (jt->type == JOINT_TRANSLATIONAL)
				continue;
			double dw[3];
			v3_sub(dw, b1 >= 0 ? x->w + 3 * b1 : Z, b0 >= 0 ? x->w + 3 * b0 : Z);
			mo->turn[j] += h * v3_norm(dw);
			if (mo->turn[j] < 0.5 * M_PI)
				continue;
		}
		mo->turn[j] = 0.0;
		enum driver_kind k = jt->type == JOINT_REVOLUTE ? DRIVER_ROTATION : DRIVER_TRANSLATION;
		double c = joint_coordinate(jt, k, b0 >= 0 ? x->r + 3 * b0 : Z,
					    b0 >= 0 ? x->A + 9 * b0 : I,
					    b1 >= 0 ? x->r + 3 * b1 : Z,
					    b1 >= 0 ? x->A + 9 * b1 : I);
		/* the angle is c plus whole turns (counted in wraps[j]), so it
		 * does not depend on how often it was taken */
		if (!mo->first && k == DRIVER_ROTATION)
			mo->wraps[j] -= floor((c - mo->coord_raw[j] + M_PI) / (2.0 * M_PI));
		mo->coord[j] = c + 2.0 * M_PI * mo->wraps[j];
		mo->coord_raw[j] = c;
	}
}

struct run {
	const struct sim_args *a;
	struct sim_result *r;
	struct ra *sys;
	struct integ *it;
	struct output *out;
	struct monitor mo;
	long nsteps;
	double t_last_progress;
	int write_failed;	/* output_sample failed: the run ends */
};

/* A completed state (accelerations and multipliers known) at x. */
static void complete(struct run *R, const struct ra_state *x, double h, int iters,
		     int converged, int write)
{
	struct ra *s = R->sys;
	struct monitor *mo = &R->mo;
	double K, V, P = s->has_ncforce ? ra_ncpower(s, x) : 0.0;
	if (!mo->first)
		mo->work += 0.5 * (x->t - mo->t_prev) * (P + mo->P_prev);
	mo->P_prev = P;
	mo->t_prev = x->t;
	monitor_coords(s->m, x, h, write, mo);
	if (!write && !mo->first)
		return;
	ra_energy(s, x, &K, &V);
	double total = K + V - mo->work;
	if (mo->first)
		mo->total0 = total;
	mo->first = 0;
	double drift = total - mo->total0;
	struct sim_result *r = R->r;
	r->max_abs_drift = fmax(r->max_abs_drift, fabs(drift));
	r->max_kinetic = fmax(r->max_kinetic, K);
	if (!write)
		return;
	ra_eval(s, x, x->t, PRIM_ALL);
	struct sample_info si = { h, iters, converged, K, V, mo->work, total, drift, mo->coord };
	double res[3] = { 0, 0, 0 };
	if (R->out) {
		if (output_sample(R->out, s, x, &si, res) && !R->write_failed) {
			/* a full file system: the run ends (loop) */
			R->write_failed = 1;
			snprintf(R->r->message, sizeof R->r->message, "%s, at t = %.9g (step %ld)",
				 h5_error(R->out->h5), x->t, R->r->steps);
		}
	} else {
		/* the position residual is still reported in the summary */
		double p = 0.0;
		for (int k = 0; k < s->nc; k++)
			p += s->phi[k] * s->phi[k];
		res[0] = sqrt(p);
	}
	r->max_pos_res = fmax(r->max_pos_res, res[0]);
	r->max_vel_res = fmax(r->max_vel_res, res[1]);
	r->max_acc_res = fmax(r->max_acc_res, res[2]);
	r->samples++;
}

static void progress(struct run *R, double t, int force)
{
	if (!R->a->progress)
		return;
	double w = now();
	if (!force && w - R->t_last_progress < 0.1)
		return;
	R->t_last_progress = w;
	const struct sim_options *o = R->a->o;
	double f = (t - o->t0) / (o->t_end - o->t0);
	int n = (int)(40 * f + 0.5);
	fprintf(stderr, "\r[%-40.*s] %5.1f%% t = %-10.4g", n,
		"########################################", 100 * f, t);
	if (force)
		fputc('\n', stderr);
}

static void fail_message(struct run *R, int st, double t, long step, double h)
{
	char what[256];
	const struct model *m = R->sys->m;
	sim_row_name(m, R->it->bad_row, what, sizeof what);
	struct sim_result *r = R->r;
	switch (st) {
	case INTEG_SINGULAR:
		snprintf(r->message, sizeof r->message,
			 "iteration matrix singular at t = %.9g (step %ld, h = %g) near %s: "
			 "redundant or degenerate constraints; remove the redundant joint rows "
			 "or change the geometry", t, step, h, what);
		break;
	case INTEG_STEP_TOO_SMALL:
		snprintf(r->message, sizeof r->message,
			 "step control failed at t = %.9g (step %ld, tried from h = %g): the error "
			 "estimate kept rejecting until the step fell below 1e-12 (%ld rejections "
			 "in the run); loosen integrator.atol/rtol or check the model",
			 t, step, h, R->it->rejected);
		break;
	case INTEG_NONFINITE:
		snprintf(r->message, sizeof r->message,
			 "non-finite values at t = %.9g (step %ld, h = %g), largest residual in %s: "
			 "the step is too large for this model; reduce integrator.step", t, step, h, what);
		break;
	default:
		snprintf(r->message, sizeof r->message,
			 "Newton did not converge at t = %.9g (step %ld, h = %g) in %d iterations "
			 "(last correction %.3g > tolerance %g; largest residual %.3g in %s); "
			 "reduce integrator.step, raise integrator.max_iterations or loosen "
			 "integrator.tolerance", t, step, h, R->it->iters, R->it->last_norm,
			 R->it->tol, R->it->bad_value, what);
	}
}

static int setup(struct run *R, struct ra_state *x, struct diag *d)
{
	const struct sim_args *a = R->a;
	struct sim_result *r = R->r;
	const struct integ_info *info = integ_find(a->o->method);
	if (!info) {
		diag_error(d, NULL, "unknown integrator '%s'", a->o->method);
		return -1;
	}
	if (a->o->adaptive && !info->adaptive) {
		diag_error(d, NULL, "integrator '%s' has no error estimate: integrator.adaptive "
			   "needs one of the adaptive schemes of `mbsim list integrators`", info->name);
		return -1;
	}
	R->sys = ra_new(a->m);
	R->it = integ_new(info, R->sys, a->o, d);
	if (!R->it)
		return -1;
	snprintf(r->solver, sizeof r->solver, "%s", kkt_mode_name(kkt_mode_of(R->it->kkt)));
	ra_state_init(R->sys, x);
	ra_state_from_model(R->sys, x, a->o->t0);
	if (a->o->assemble &&
	    assemble(R->sys, R->it, x, a->o->assemble_tol, r, r->message, sizeof r->message))
		return 1;
	int st = integ_accel(R->it, x);
	if (st) {
		fail_message(R, st, x->t, 0, a->o->step);
		return 1;
	}
	R->mo.coord = xcalloc((size_t)a->m->njoints + 1, sizeof(double));
	R->mo.coord_raw = xcalloc((size_t)a->m->njoints + 1, sizeof(double));
	R->mo.turn = xcalloc((size_t)a->m->njoints + 1, sizeof(double));
	R->mo.wraps = xcalloc((size_t)a->m->njoints + 1, sizeof(double));
	R->mo.first = 1;
	return 0;
}

static void write_attrs(struct run *R)
{
	const struct sim_args *a = R->a;
	struct h5out *h = R->out->h5;
	h5_attr_str(h, "/", "mbsim_version", MBSIM_VERSION);
	h5_attr_str(h, "/", "command_line", a->command_line ? a->command_line : "");
	h5_attr_str(h, "/", "integrator", a->o->method);
	h5_attr_str(h, "/", "linear_solver", R->r->solver);
	h5_attr_num(h, "/", "step", a->o->step);
	h5_attr_num(h, "/", "tolerance", a->o->tolerance);
}

static void finish_attrs(struct run *R)
{
	struct h5out *h = R->out->h5;
	struct sim_result *r = R->r;
	h5_attr_num(h, "/", "steps", (double)r->steps);
	h5_attr_num(h, "/", "mean_newton_iterations", r->mean_iterations);
	h5_attr_num(h, "/", "factorizations", (double)r->factorizations);
	h5_attr_num(h, "/", "rejected_steps", (double)r->rejected);
	h5_attr_num(h, "/", "initial_position_correction", r->moved_pos);
	h5_attr_num(h, "/", "initial_velocity_correction", r->moved_vel);
	h5_attr_num(h, "/", "wall_time", r->wall);
}

/* Step size from t to t_end: the fixed grid t0 + k h, or (adaptive) the
 * scheme's proposal h, shortened to land on t_end without a sliver. */
static double step_to(const struct sim_options *o, int adaptive, long k, long N, double t,
		      double h)
{
	double T = o->t_end - o->t0, left = o->t_end - t;
	if (!adaptive)
		return (k + 1 == N ? o->t_end : o->t0 + (double)(k + 1) * h) - t;
	if (h >= left - 1e-12 * T)
		return left;
	return h > 0.5 * left ? 0.5 * left : h;
}

/* Steps of a fixed-step run. */
static long fixed_steps(const struct sim_options *o)
{
	long N = (long)ceil((o->t_end - o->t0) / o->step - 1e-9);
	return N < 1 ? 1 : N;
}

/* Samples loop() writes when the run completes; 0 when the steps are not
 * known in advance (adaptive). */
static long expected_samples(const struct sim_options *o, const struct integ_info *info)
{
	if (!info || o->adaptive)
		return 0;
	long N = fixed_steps(o), e = o->every;
	if (info->lag)		/* steps k with k % every == 0, then the end */
		return (N + e - 1) / e + 1;
	/* the start, steps k + 1 that are multiples of every, and the end */
	return 1 + N / e + (N % e != 0);
}

/* Fixed steps, or variable steps chosen by the scheme's step control (001
 * eqs. 13-16) when integrator.adaptive is set. */
static enum sim_status loop(struct run *R, struct ra_state *x, struct ra_state *y)
{
	const struct sim_options *o = R->a->o;
	int lag = R->it->info->lag, adaptive = o->adaptive;	/* set-up refused it for others */
	double T = o->t_end - o->t0, h = o->step;
	long N = adaptive ? LONG_MAX : fixed_steps(o);
	if (!lag)
		complete(R, x, 0.0, 0, 1, 1);
	for (long k = 0; k < N; k++) {
		if (R->a->stop && *R->a->stop) {
			snprintf(R->r->message, sizeof R->r->message,
				 "interrupted at t = %.9g (step %ld)", x->t, k);
			return SIM_INTERRUPTED;
		}
		if (R->write_failed)
			return SIM_FAILED;
		double hk = step_to(o, adaptive, k, N, x->t, h);
		int st = integ_step(R->it, hk, x, y);
		if (st) {
			fail_message(R, st, x->t, k, hk);
			return SIM_FAILED;
		}
		/* the adaptive step may have been shortened by rejections */
		int last = adaptive ? o->t_end - y->t <= 1e-12 * T : k + 1 == N;
		y->t = last ? o->t_end : adaptive ? y->t : o->t0 + (double)(k + 1) * h;
		hk = y->t - x->t;
		R->r->steps++;
		R->r->t_reached = y->t;
		if (lag)
			complete(R, x, hk, R->it->iters, 1, k % o->every == 0);
		else
			complete(R, y, hk, R->it->iters, 1, (k + 1) % o->every == 0 || last);
		struct ra_state t = *x;
		*x = *y;
		*y = t;
		if (adaptive)
			h = R->it->h_next;
		if ((k & 1023) == 0)
			progress(R, x->t, 0);
		if (last)
			break;
	}
	if (lag) {
		int st = integ_accel(R->it, x);
		if (st) {
			fail_message(R, st, x->t, R->r->steps, h);
			return SIM_FAILED;
		}
		complete(R, x, h, 0, 1, 1);
	}
	return SIM_COMPLETE;
}

enum sim_status sim_run(const struct sim_args *a, struct sim_result *r, struct diag *d)
{
	struct run R;
	struct ra_state x, y;
	memset(&R, 0, sizeof R);
	memset(r, 0, sizeof(*r));
	memset(&x, 0, sizeof x);
	memset(&y, 0, sizeof y);
	R.a = a;
	R.r = r;
	r->status = SIM_FAILED;
	char err[512];
	if (a->out_path) {
		struct h5_opts ho = { a->o->flush_interval, a->o->compression,
				      expected_samples(a->o, integ_find(a->o->method)) };
		R.out = output_open(a->out_path, a->m, &ho, a->deck_text, err, sizeof err);
		if (!R.out) {
			diag_error(d, NULL, "%s", err);
			return SIM_FAILED;
		}
	}
	double w0 = now();
	int rc = setup(&R, &x, d);
	if (rc == 0) {
		ra_state_init(R.sys, &y);
		ra_state_copy(R.sys, &y, &x);
		r->status = loop(&R, &x, &y);
		progress(&R, x.t, 1);
	} else if (rc < 0) {
		r->status = SIM_FAILED;
		if (!r->message[0])
			snprintf(r->message, sizeof r->message, "set-up failed");
	}
	r->wall = now() - w0;
	if (R.it) {
		r->factorizations = R.it->factorizations;
		r->rejected = R.it->rejected;
		r->mean_iterations = R.it->steps ? (double)R.it->total_iters / (double)R.it->steps : 0.0;
	}
	if (R.out) {
		char status[1100];
		if (r->status == SIM_COMPLETE)
			snprintf(status, sizeof status, "complete");
		else if (r->status == SIM_INTERRUPTED)
			snprintf(status, sizeof status, "interrupted");
		else
			snprintf(status, sizeof status, "failed: %s", r->message);
		/* all root attributes at the end: an HDF5 call now would wait
		 * for the layout h5_start is making meanwhile */
		if (R.sys) {
			write_attrs(&R);
			finish_attrs(&R);
		}
		if (output_close(&R.out, status, err, sizeof err)) {
			diag_error(d, NULL, "%s", R.write_failed ? r->message : err);
			r->status = SIM_FAILED;
		}
	}
	ra_state_release(&x);
	ra_state_release(&y);
	free(R.mo.coord);
	free(R.mo.coord_raw);
	free(R.mo.turn);
	free(R.mo.wraps);
	integ_free(&R.it);
	ra_free(&R.sys);
	return r->status;
}
