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
#include "mobility.h"
#include "assemble.h"
#include "balance.h"
#include "output.h"
#include "../integ/integ.h"
#include "../integ/newmark.h"
#include "../integ/odeint.h"
#include "../form/rp.h"
#include "../form/tree.h"
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
	int dv = model_row_driver(m, k);
	if (dv >= 0) {
		snprintf(buf, n, "driver '%s'", m->drivers[dv].name);
		return;
	}
	struct prim pb;
	const struct prim *p = model_prim(m, k, &pb);
	const struct joint *j = &m->joints[p->owner];
	snprintf(buf, n, "joint '%s' (%s, row %d of %d, %s)", j->name, joint_type_names[j->type],
		 k - j->row0 + 1, j->nrows, prim_type_names[p->type]);
}

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
		if (jt->type != JOINT_REVOLUTE && jt->type != JOINT_SCREW &&
		    jt->type != JOINT_TRANSLATIONAL)
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
		enum driver_kind k = jt->type == JOINT_TRANSLATIONAL ? DRIVER_TRANSLATION : DRIVER_ROTATION;
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
	int write_failed;	/* output_sample failed: the run ended */
	long every;		/* write every k-th step (output.every, or sampling()) */
	double dt_w, t_w;	/* adaptive default: write a step dt_w or more
				 * after the last sample written, at t_w; 0: off */
	struct road_scan *scan;	/* ra_road_ahead's, one per force element;
				 * NULL: no tire looks ahead */
};

/* What to do about a non-finite state after `step` steps. */
static const char *blowup_remedy(long step)
{
	return step ? "the solution blew up; reduce integrator.step or use a dissipative "
		      "scheme (fi, or lms2 .. esdirk436l2sa2 with rho_inf < 1)"
		    : "the initial state is out of range of double precision; check the "
		      "initial values of the deck";
}

static int finite_all(const double *x, int n)
{
	for (int i = 0; i < n; i++)
		if (!isfinite(x[i]))
			return 0;
	return 1;
}

/* The first body (or constraint row) of x with a non-finite value, named
 * in R->r->message; 0 when x is finite.  A non-finite state must not be
 * written and called a success (issue 17: a free body spinning at
 * 3000 rad/s with hi went to inf and the run completed). */
static int check_finite(struct run *R, const struct ra_state *x, long step, double h)
{
	struct ra *s = R->sys;
	const struct model *m = s->m;
	for (int b = 0; b < s->nb; b++) {
		const char *what = !finite_all(x->r + 3 * b, 3) ? "position" :
				   !finite_all(x->A + 9 * b, 9) ? "orientation" :
				   !finite_all(x->v + 3 * b, 3) ? "velocity" :
				   !finite_all(x->w + 3 * b, 3) ? "angular velocity" :
				   !finite_all(x->a + 3 * b, 3) ? "acceleration" :
				   !finite_all(x->wd + 3 * b, 3) ? "angular acceleration" : NULL;
		if (what) {
			snprintf(R->r->message, sizeof R->r->message,
				 "non-finite %s of body '%s' at t = %.9g (step %ld, h = %g): %s",
				 what, m->bodies[b].name, x->t, step, h, blowup_remedy(step));
			return -1;
		}
	}
	for (int k = 0; k < s->nc; k++)
		if (!isfinite(x->lam[k])) {
			char row[256];
			sim_row_name(m, k, row, sizeof row);
			snprintf(R->r->message, sizeof R->r->message,
				 "non-finite Lagrange multiplier of %s at t = %.9g (step %ld, h = %g): "
				 "%s", row, x->t, step, h, blowup_remedy(step));
			return -1;
		}
	return 0;
}

/* The body of largest kinetic energy, for a message about the energy. */
static int fastest_body(const struct ra *s, const struct ra_state *x)
{
	int best = 0;
	double e = -1.0;
	for (int b = 0; b < s->nb; b++) {
		const double *J = ra_inertia(s, b), *w = x->w + 3 * b, *v = x->v + 3 * b;
		double Jw[3];
		m3_mulv(Jw, J, w);
		double k = s->mass[b] * v3_dot(v, v) + v3_dot(w, Jw);
		if (!(k <= e)) {	/* a NaN or inf wins */
			e = k;
			best = b;
		}
	}
	return best;
}

/* sum m |g| |r| over the bodies: the size of the gravity terms of V */
static double gravity_size(const struct ra *s, const struct ra_state *x)
{
	double G = 0.0, g = v3_norm(s->m->gravity);
	for (int b = 0; b < s->nb; b++)
		G += s->mass[b] * g * v3_norm(x->r + 3 * b);
	return G;
}

/* A completed state (accelerations and multipliers known) at x, the
 * state after `step` steps.  -1 (message in R->r) when x or its energy is
 * not finite; nothing of x is written then. */
static int complete(struct run *R, const struct ra_state *x, double h, int iters,
		    int converged, int write, long step)
{
	struct ra *s = R->sys;
	struct monitor *mo = &R->mo;
	if (check_finite(R, x, step, h))
		return -1;
	double K, V, P[3] = { 0, 0, 0 };
	if (s->has_ncforce)
		P[0] = ra_ncpower(s, x, P + 1);
	balance_power(&mo->bal, x->t, P);
	monitor_coords(s->m, x, h, write, mo);
	if (!write && !mo->first)
		return 0;
	ra_energy(s, x, &K, &V);
	double work = mo->bal.work[0], total = K + V - work;
	if (!isfinite(total)) {
		snprintf(R->r->message, sizeof R->r->message,
			 "non-finite energy at t = %.9g (step %ld, h = %g): kinetic %g J, "
			 "potential %g J, work %g J; fastest body '%s': %s", x->t, step, h, K, V,
			 work, s->m->bodies[fastest_body(s, x)].name, blowup_remedy(step));
		return -1;
	}
	if (mo->first)
		mo->total0 = total;
	mo->first = 0;
	double drift = total - mo->total0;
	struct sim_result *r = R->r;
	r->max_abs_drift = fmax(r->max_abs_drift, fabs(drift));
	balance_energy(&mo->bal, K, V, gravity_size(s, x));
	if (!write)
		return 0;
	ra_eval(s, x, x->t, PRIM_ALL);
	struct sample_info si = { h, iters, converged, K, V, work, total, drift, mo->coord,
				  NULL, NULL, R->it->omega_max, mo->bal.work[1], mo->bal.work[2] };
	if (mo->jq) {
		const struct tree *T = R->it->ode->tree;
		int k = 0;
		for (int j = 0; j < s->m->njoints; j++)
			k += tree_joint_coords(T, j, mo->jq + k, mo->jqd + k);
		si.jq = mo->jq;
		si.jqd = mo->jqd;
	}
	if (isfinite(si.omega_max))
		R->r->omega_max = isfinite(R->r->omega_max) ? fmax(R->r->omega_max, si.omega_max)
							    : si.omega_max;
	double res[3] = { 0, 0, 0 };
	if (R->out) {
		if (output_sample(R->out, s, x, &si, res)) {
			/* a full file system: the run ends */
			R->write_failed = 1;
			snprintf(R->r->message, sizeof R->r->message, "%s, at t = %.9g (step %ld)",
				 h5_error(R->out->h5), x->t, step);
			return -1;
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
	return 0;
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

/* A coupled turn that may have passed RA_CPL_TURN in the step (ra.h):
 * the coupling's branch is no longer known. */
static void cpl_fault_message(struct run *R, double t, long step, double h)
{
	const struct ra *s = R->sys;
	const struct joint *j = &s->m->joints[s->cpl_fault];
	snprintf(R->r->message, sizeof R->r->message,
		 "%s '%s': joint '%s' turned by up to %.3g rad in the step that ended at t = %.9g "
		 "(step %ld, h = %g); a coupling follows a turn only while a step turns it by "
		 "less than pi/2: reduce integrator.step (or integrator.max_step)",
		 joint_type_names[j->type], j->name, s->m->joints[j->cpl->joint[s->cpl_term]].name,
		 s->cpl_turn, t, step, h);
}

static void fail_message(struct run *R, int st, double t, long step, double h)
{
	char what[256];
	const struct model *m = R->sys->m;
	sim_row_name(m, R->it->bad_row, what, sizeof what);
	struct sim_result *r = R->r;
	if (R->it->detail && R->it->detail[0]) {
		/* the ODE schemes' formulation (rp) says what failed */
		snprintf(r->message, sizeof r->message, "%s at t = %.9g (step %ld, h = %g): %s; %s",
			 st == INTEG_SINGULAR ? "no valid coordinate partition" :
			 st == INTEG_STEP_TOO_SMALL ? "step control failed" : "state-space step failed",
			 t, step, h, R->it->detail,
			 st == INTEG_SINGULAR ? "a singular position of the mechanism, or constraints "
						"that lose rank: an index-3 scheme (lms2, esdirk436l2sa2) "
						"steps through it" :
			 "reduce integrator.step or loosen integrator.atol/rtol");
		return;
	}
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
	case INTEG_UNSTABLE:
		snprintf(r->message, sizeof r->message,
			 "unstable: growth detected at t = %.9g (step %ld, h = %g) in body '%s': "
			 "the change of the accelerations reversed its direction and grew at each "
			 "of the last %d steps, %.3g-fold in all; reduce integrator.step (below the "
			 "bound of eq. 11 of doi:10.1007/s11012-021-01433-0 with tangent_newmark) or, with newmark, take "
			 "beta >= gamma/2 (beta < gamma/2 is unstable at any step on a constrained "
			 "model)", t, step, h,
			 R->it->bad_body >= 0 ? m->bodies[R->it->bad_body].name : "?",
			 R->it->growth ? R->it->growth->trip_run : 0,
			 R->it->growth ? R->it->growth->trip_growth : 0.0);
		break;
	case INTEG_NONFINITE:
		snprintf(r->message, sizeof r->message,
			 "non-finite values at t = %.9g (step %ld, h = %g), largest residual in %s: "
			 "the step is too large for this model; reduce integrator.step", t, step, h, what);
		break;
	default: {
		/* the equations of motion's residual too: a constraint residual
		 * at round-off alone does not make a converged step */
		char eom[200] = "";
		if (R->it->eom_body >= 0)
			snprintf(eom, sizeof eom, "; largest equation-of-motion residual %.3g on body "
				 "'%s'", R->it->eom_value, m->bodies[R->it->eom_body].name);
		snprintf(r->message, sizeof r->message,
			 "Newton did not converge at t = %.9g (step %ld, h = %g) in %d iterations "
			 "(last correction %.3g > tolerance %g; largest constraint residual %.3g in "
			 "%s%s); reduce integrator.step, raise integrator.max_iterations or loosen "
			 "integrator.tolerance", t, step, h, R->it->iters, R->it->last_norm,
			 R->it->tol, R->it->bad_value, what, eom);
	}
	}
}

/* A stop request between the phases of set-up: 1 with the message. */
static int setup_stopped(struct run *R, const char *before)
{
	if (!(R->a->stop && *R->a->stop))
		return 0;
	snprintf(R->r->message, sizeof R->r->message, "interrupted during set-up, before %s",
		 before);
	return 1;
}

/* Rows that the factorization at the initial state found dependent are
 * redundant (or the initial state is a singular position: mbsim cannot
 * tell the two apart at one configuration, and drops them for the whole
 * run either way; man mbsim-deck(5), REDUNDANT CONSTRAINTS).  Named in
 * r->redundant_rows, as many as fit. */
static int note_redundant(struct run *R, struct diag *d)
{
	struct sim_result *r = R->r;
	int *rows = xmalloc(((size_t)R->sys->nc + 1) * sizeof(int));
	r->redundant = integ_fix_redundant(R->it, rows);
	if (mobility_refuse_drivers(R->a->m, rows, r->redundant, d)) {
		snprintf(r->message, sizeof r->message, "a driver's constraint row depends on "
			 "the others at the initial state (see the error above; mbsim check "
			 "names it too)");
		free(rows);
		return 1;
	}
	r->redundant_rows[0] = 0;
	size_t len = 0;
	for (int i = 0; i < r->redundant; i++) {
		char what[256];
		sim_row_name(R->a->m, rows[i], what, sizeof what);
		size_t w = strlen(what), room = sizeof r->redundant_rows - len;
		if (w + 8 >= room) {
			snprintf(r->redundant_rows + len, room, "%s...", i ? ", " : "");
			break;
		}
		len += (size_t)snprintf(r->redundant_rows + len, room, "%s%s", i ? ", " : "", what);
	}
	free(rows);
	return 0;
}

/* A body of mass 0 or singular inertia (seed 003, bdf only). */
static int has_singular_mass(const struct model *m)
{
	for (int b = 0; b < m->nbodies; b++)
		if (!tree_body_regular(m, b))
			return 1;
	return 0;
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
	char msg[512];
	int which;
	if (sim_options_check_time(a->o, &which, msg, sizeof msg)) {
		diag_error(d, NULL, "%s", msg);
		return -1;
	}
	if (a->o->every < 0) {
		diag_error(d, NULL, "output.every must be at least 1, got %d", a->o->every);
		return -1;
	}
	for (long i = 0; a->o->times && i < a->o->ntimes; i++) {
		double t = a->o->times[i], prev = i ? a->o->times[i - 1] : a->o->t0;
		double rest = a->o->t_end - t;
		if (!(t <= a->o->t_end && (t == prev || t - prev >= sim_min_step(t)) &&
		      (rest == 0 || rest >= sim_min_step(a->o->t_end)))) {
			diag_error(d, NULL, "output.times[%ld] = %.17g is not in [time.start, "
				   "time.end], 1e-12 max(1 s, |t|) or more from its neighbours",
				   i, t);
			return -1;
		}
	}
	if (setup_stopped(R, "compiling the model"))
		return 1;
	R->sys = ra_new(a->m);
	for (int i = 0; i < a->m->nforces && !R->scan; i++)
		if (ra_tire_looks_ahead(&a->m->forces[i]))
			R->scan = xcalloc((size_t)a->m->nforces, sizeof *R->scan);
	R->it = integ_new(info, R->sys, a->o, d);
	if (!R->it)
		return -1;
	if (setup_stopped(R, "assembling the initial state"))
		return 1;
	snprintf(r->solver, sizeof r->solver, "%s", kkt_mode_name(kkt_mode_of(R->it->kkt)));
	ra_state_init(R->sys, x);
	ra_state_from_model(R->sys, x, a->o->t0);
	/* the assembly's mass-weighted projection needs regular masses; the
	 * tree formulation's start projects joint by joint (and bdf fixes the
	 * rates of massless coordinates, IDACalcIC) */
	if (a->o->assemble && !has_singular_mass(a->m) &&
	    assemble(R->sys, R->it, x, a->o->assemble_tol, r, r->message, sizeof r->message))
		return 1;
	if (setup_stopped(R, "the initial accelerations"))
		return 1;
	int st = integ_accel(R->it, x);
	if (st) {
		fail_message(R, st, x->t, 0, a->o->step);
		return 1;
	}
	if (note_redundant(R, d))
		return 1;
	if (R->it->ode && R->it->ode->tree) {
		/* the tree's coordinates now, for the t0 sample's
		 * /joints/coordinates (the first step would start them at the
		 * same state; bdf has, in integ_accel) */
		st = odeint_begin(R->it, R->it->ode, x);
		if (st) {
			fail_message(R, st, x->t, 0, a->o->step);
			return 1;
		}
	}
	R->mo.coord = xcalloc((size_t)a->m->njoints + 1, sizeof(double));
	R->mo.coord_raw = xcalloc((size_t)a->m->njoints + 1, sizeof(double));
	R->mo.turn = xcalloc((size_t)a->m->njoints + 1, sizeof(double));
	R->mo.wraps = xcalloc((size_t)a->m->njoints + 1, sizeof(double));
	if (R->it->ode && R->it->ode->tree) {
		size_t nq = 1;
		for (int j = 0; j < a->m->njoints; j++)
			nq += (size_t)tree_joint_ncoords(a->m->joints[j].type);
		R->mo.jq = xcalloc(nq, sizeof(double));
		R->mo.jqd = xcalloc(nq, sizeof(double));
	}
	R->mo.first = 1;
	return 0;
}

int sim_formulation_is_tree(const struct sim_options *o)
{
	return strcmp(sim_formulation_name(o), "tree") == 0;
}

const char *sim_formulation_name(const struct sim_options *o)
{
	if (o->formulation == FORM_TREE)
		return "tree";
	if (o->formulation == FORM_RP)
		return "rp";
	const struct integ_info *info = integ_find(o->method);
	return info ? info->formulation : "?";
}

static void write_attrs(struct run *R)
{
	const struct sim_args *a = R->a;
	struct h5out *h = R->out->h5;
	h5_attr_str(h, "/", "mbsim_version", MBSIM_VERSION);
	h5_attr_str(h, "/", "command_line", a->command_line ? a->command_line : "");
	if (a->settings)
		h5_attr_str(h, "/", "settings", a->settings);
	h5_attr_str(h, "/", "integrator", a->o->method);
	h5_attr_str(h, "/", "formulation", sim_formulation_name(a->o));
	h5_attr_str(h, "/", "linear_solver", R->r->solver);
	h5_attr_str(h, "/", "redundant_rows", R->r->redundant_rows);
	h5_attr_num(h, "/", "step", a->o->step);
	h5_attr_num(h, "/", "tolerance", a->o->tolerance);
}

static void finish_attrs(struct run *R)
{
	struct h5out *h = R->out->h5;
	struct sim_result *r = R->r;
	h5_attr_int(h, "/", "steps", r->steps);
	h5_attr_num(h, "/", "mean_newton_iterations", r->mean_iterations);
	h5_attr_int(h, "/", "factorizations", r->factorizations);
	h5_attr_int(h, "/", "rejected_steps", r->rejected);
	h5_attr_int(h, "/", "singular_steps", r->singular_steps);
	h5_attr_int(h, "/", "road_cuts", r->road_cuts);
	h5_attr_num(h, "/", "initial_position_correction", r->moved_pos);
	h5_attr_num(h, "/", "initial_velocity_correction", r->moved_vel);
	h5_attr_num(h, "/", "wall_time", r->wall);
	const struct odeint *O = R->it ? R->it->ode : NULL;
	if (O) {
		/* the ODE schemes; repartitions counts rp's new partitions, or
		 * the tree's re-based rotation charts */
		h5_attr_int(h, "/", "rhs_evaluations", r->rhs_evals);
		h5_attr_int(h, "/", "jacobian_evaluations", r->jac_evals);
		h5_attr_int(h, "/", "analytic_jacobians", r->jac_analytic);
		h5_attr_int(h, "/", "repartitions", r->repartitions);
	}
	if (O && O->dae) {
		/* bdf: SUNDIALS IDA's own statistics */
		h5_attr_int(h, "/", "bdf_steps", r->dae_steps);
		h5_attr_int(h, "/", "bdf_last_order", r->dae_order);
		h5_attr_int(h, "/", "bdf_newton_iterations", r->dae_newton);
		h5_attr_int(h, "/", "bdf_error_test_failures", r->dae_etf);
		h5_attr_int(h, "/", "bdf_convergence_failures", r->dae_ncf);
	}
	if (O && O->rp) {
		/* 001 §1: the independent coordinates chosen, and when */
		/* rp's coordinates: O->sys may be ode_ctrl's, with the
		 * controllers' integral states after them */
		int np = rp_partition_log(O->rp, NULL), n = rp_ode(O->rp)->n;
		if (np > 0) {
			double *log = xmalloc((size_t)np * (size_t)(n + 1) * sizeof(double));
			rp_partition_log(O->rp, log);
			h5_matrix(h, "/solver/partitions", H5_DOUBLE, log, np, n + 1, 0);
			h5_attr_str(h, "/solver/partitions", "columns",
				    "time (s), then the independent coordinates, 7 b + k: body b of "
				    "/bodies/names (0-based), k = 0..2 centroid x, y, z, 3..6 Euler "
				    "parameters e0..e3");
			free(log);
		}
	}
}

/* Steps of a fixed-step run from a to b: the fewest equal steps not longer
 * than integrator.step (a remainder is shared, never left as a sliver: a
 * last step of 1e-10 h gave acceleration residuals of 7e7 with hi).  At
 * most 2e12 + 1 (sim_options_check_time). */
static long fixed_steps_between(const struct sim_options *o, double a, double b)
{
	double n = ceil((b - a) / o->step - 1e-9);
	return n < 1 ? 1 : n > 4e12 ? (long)4e12 : (long)n;
}

static long fixed_steps(const struct sim_options *o)
{
	return fixed_steps_between(o, o->t0, o->t_end);
}

/* The steps written without output.times: every output.every-th; unset,
 * every k-th with k the smallest that writes at most SIM_AUTO_SAMPLES of
 * the fixed steps, or, adaptive (the steps not known in advance), a step
 * when (t_end - t0) / SIM_AUTO_SAMPLES or more has passed since the last
 * sample written. */
static void sampling(struct run *R)
{
	const struct sim_options *o = R->a->o;
	R->every = o->every > 0 ? o->every : 1;
	R->dt_w = 0.0;
	R->t_w = o->t0;
	if (o->every > 0 || o->times)
		return;
	if (o->adaptive)
		R->dt_w = (o->t_end - o->t0) / SIM_AUTO_SAMPLES;
	else
		R->every = (fixed_steps(o) + SIM_AUTO_SAMPLES - 1) / SIM_AUTO_SAMPLES;
}

/* Is the state after step j (j = 0: the start) a sample?  last: the end. */
static int sample_due(struct run *R, double t, long j, int last)
{
	if (R->dt_w > 0) {
		/* a step within 1e-9 of dt_w counts: rounding of t */
		int due = j == 0 || last || t - R->t_w >= R->dt_w * (1 - 1e-9);
		if (due)
			R->t_w = t;
		return due;
	}
	return j % R->every == 0 || last;
}

/* Samples loop() writes when the run completes; 0 when the steps are not
 * known in advance (adaptive). */
static long expected_samples(const struct run *R, const struct integ_info *info)
{
	const struct sim_options *o = R->a->o;
	if (o->times)
		return o->ntimes;
	if (!info || o->adaptive)
		return 0;
	long N = fixed_steps(o), e = R->every;
	if (info->lag)		/* steps k with k % every == 0, then the end */
		return (N + e - 1) / e + 1;
	/* the start, steps k + 1 that are multiples of every, and the end */
	return 1 + N / e + (N % e != 0);
}

/* Where the run steps next.  Breakpoints: the times of output.times, then
 * time.end; the run lands exactly on each.  Fixed steps divide the
 * interval between two breakpoints into fixed_steps_between equal steps;
 * adaptive steps take the scheme's proposal, shortened to land on the
 * next breakpoint without a sliver. */
struct clock {
	const double *ts;
	long nt, j;		/* requested times; the next one */
	double a, b, d;		/* fixed: from breakpoint a to b in n steps of d */
	long n, i;
};

static double clock_next_break(const struct sim_options *o, struct clock *c, double t)
{
	while (c->j < c->nt && c->ts[c->j] <= t)	/* a time equal to t0 */
		c->j++;
	return c->j < c->nt ? c->ts[c->j] : o->t_end;
}

static void clock_segment(const struct sim_options *o, struct clock *c, double a)
{
	c->a = a;
	c->b = clock_next_break(o, c, a);
	c->n = fixed_steps_between(o, a, c->b);
	c->d = (c->b - a) / (double)c->n;
	c->i = 0;
}

/* The end of the next step from t (h: the adaptive proposal). */
static double clock_target(const struct sim_options *o, const struct clock *c, double t,
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
static double clock_advance(const struct sim_options *o, struct clock *c, double t,
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

/* The accelerations and multipliers of the set-up's index-1 solve at t0.
 * A lag = 1 scheme (hi) overwrites them with its own first-order values
 * of the start of the step (for a driver, (q1 - q0 - h v0) / h^2: half
 * the true acceleration when v0 is exact); the t0 sample reports the
 * exact ones, as the last sample reports an index-1 solve too. */
struct t0_accel {
	double *a, *wd, *lam;
};

static void t0_save(const struct run *R, const struct ra_state *x, struct t0_accel *t0)
{
	size_t nb = (size_t)R->sys->nb, nc = (size_t)R->sys->nc;
	t0->a = memcpy(xmalloc(3 * nb * sizeof(double) + 1), x->a, 3 * nb * sizeof(double));
	t0->wd = memcpy(xmalloc(3 * nb * sizeof(double) + 1), x->wd, 3 * nb * sizeof(double));
	t0->lam = memcpy(xmalloc(nc * sizeof(double) + 1), x->lam, nc * sizeof(double));
}

static void t0_exact(const struct run *R, struct ra_state *x, const struct t0_accel *t0)
{
	size_t nb = (size_t)R->sys->nb, nc = (size_t)R->sys->nc;
	memcpy(x->a, t0->a, 3 * nb * sizeof(double));
	memcpy(x->wd, t0->wd, 3 * nb * sizeof(double));
	memcpy(x->lam, t0->lam, nc * sizeof(double));
}

static void t0_release(struct t0_accel *t0)
{
	free(t0->a);
	free(t0->wd);
	free(t0->lam);
	memset(t0, 0, sizeof(*t0));
}

/* Fixed steps, or variable steps chosen by the scheme's step control (001
 * eqs. 13-16) when integrator.adaptive is set.  Samples: every k-th step
 * (output.every), the start and the end, or exactly the states at the
 * times of output.times. */
static enum sim_status loop(struct run *R, struct ra_state *x, struct ra_state *y)
{
	const struct sim_options *o = R->a->o;
	int lag = R->it->info->lag;
	double h = o->step;
	struct clock c = { o->times, o->times ? o->ntimes : 0, 0, 0, 0, 0, 0, 0 };
	/* the start is a sample unless output.times does not list it */
	int xw = !c.ts || c.ts[0] == o->t0;
	struct t0_accel t0 = { 0 };
	double h_last = 0.0;	/* the last step taken */
	clock_segment(o, &c, o->t0);
	ra_force_commit(R->sys, x);	/* continuous rsda angles from t0 */
	if (!lag && complete(R, x, 0.0, 0, 1, xw, 0))
		return SIM_FAILED;	/* message from complete() */
	if (lag)
		t0_save(R, x, &t0);
	for (long k = 0;; k++) {
		if (R->a->stop && *R->a->stop) {
			snprintf(R->r->message, sizeof R->r->message,
				 "interrupted at t = %.9g (step %ld)", x->t, k);
			t0_release(&t0);
			return SIM_INTERRUPTED;
		}
		double hk = clock_target(o, &c, x->t, h) - x->t;
		if (o->adaptive && R->scan) {
			/* land short of the road features ahead of the tires,
			 * looking no farther than a step may grow: max(10,
			 * facmax) times the last one (CVODE and IDA, whose run
			 * loop aims at the end, grow theirs by 10 at most after
			 * their first) */
			double hs = h_last > 0 ? fmin(hk, fmax(10.0, o->facmax) * h_last) : hk;
			double hc = ra_road_ahead(R->sys->m, x, hs, R->scan);
			R->r->road_cuts += hc < hs;
			hk = hc;
		}
		int st = integ_step(R->it, hk, x, y);
		for (int lv = 1; lv <= INTEG_SINGULAR_LEVELS &&
		     (st == INTEG_NEWTON_FAIL || st == INTEG_SINGULAR) &&
		     integ_singular_retry(R->it, lv) == 0; lv++) {
			/* a singular position, perhaps: again with the rows
			 * close to dependent dropped (integ.h) */
			st = integ_step(R->it, hk, x, y);
			integ_singular_retry(R->it, 0);
			R->r->singular_steps += st == 0;
		}
		if (st == INTEG_INTERRUPTED) {	/* polled inside Newton iterations */
			snprintf(R->r->message, sizeof R->r->message,
				 "interrupted at t = %.9g (step %ld, in its Newton iteration)", x->t, k);
			t0_release(&t0);
			return SIM_INTERRUPTED;
		}
		if (st) {
			fail_message(R, st, x->t, k, hk);
			t0_release(&t0);
			return SIM_FAILED;
		}
		/* the adaptive step may have been shortened by rejections */
		int req, last;
		y->t = clock_advance(o, &c, y->t, &req, &last);
		hk = y->t - x->t;
		if (!(hk > 0) || (o->adaptive && !(R->it->h_next > 0 && isfinite(R->it->h_next)))) {
			/* a step control that stalls would loop for ever */
			snprintf(R->r->message, sizeof R->r->message,
				 "the step control stalled at t = %.9g (step %ld): step taken %g, "
				 "next proposed %g; tighten integrator.tolerance or use fixed steps",
				 x->t, k, hk, R->it->h_next);
			t0_release(&t0);
			return SIM_FAILED;
		}
		R->r->steps++;
		R->r->t_reached = y->t;
		h_last = hk;
		ra_force_step(R->sys, y, hk);	/* integral of motor control errors */
		ra_force_commit(R->sys, y);
		if (R->sys->cpl_fault >= 0) {
			cpl_fault_message(R, y->t, k + 1, hk);
			t0_release(&t0);
			return SIM_FAILED;
		}
		/* lag: x is the state completed now (sample_due moves t_w) */
		int yw = lag || (c.ts ? req : sample_due(R, y->t, k + 1, last));
		if (lag && k == 0) {
			t0_exact(R, x, &t0);
			t0_release(&t0);
		}
		if (lag && complete(R, x, hk, R->it->iters, 1, c.ts ? xw : sample_due(R, x->t, k, 0),
				    k)) {
			t0_release(&t0);
			return SIM_FAILED;	/* message from complete() */
		}
		if (!lag && complete(R, y, hk, R->it->iters, 1, yw, k + 1))
			return SIM_FAILED;	/* message from complete() */
		xw = c.ts ? req : 1;
		struct ra_state t = *x;
		*x = *y;
		*y = t;
		if (o->adaptive)
			h = R->it->h_next;
		if ((k & 1023) == 0)
			progress(R, x->t, 0);
		if (last)
			break;
	}
	t0_release(&t0);
	if (lag) {
		int st = integ_accel(R->it, x);
		if (st) {
			fail_message(R, st, x->t, R->r->steps, h);
			return SIM_FAILED;
		}
		if (complete(R, x, h, 0, 1, xw, R->r->steps))
			return SIM_FAILED;	/* message from complete() */
	}
	return SIM_COMPLETE;
}

enum sim_status sim_run(const struct sim_args *a, struct sim_result *r, struct diag *d)
{
	struct run R;
	struct ra_state x, y;
	memset(&R, 0, sizeof R);
	memset(r, 0, sizeof(*r));
	r->dae_steps = r->dae_order = r->dae_newton = r->dae_etf = r->dae_ncf = -1;
	memset(&x, 0, sizeof x);
	memset(&y, 0, sizeof y);
	R.a = a;
	R.r = r;
	sampling(&R);
	r->status = SIM_FAILED;
	r->omega_max = NAN;
	r->rhs_evals = r->jac_evals = r->repartitions = r->jac_analytic = -1;	/* set below for ODE schemes */
	char err[512];
	if (a->out_path) {
		struct h5_opts ho = { a->o->flush_interval, a->o->compression,
				      expected_samples(&R, integ_find(a->o->method)),
				      a->command_line ? strlen(a->command_line) : 0 };
		const struct integ_info *info = integ_find(a->o->method);
		unsigned flags = info && info->id == INTEG_TANGENT_NEWMARK ? OUTPUT_OMEGA : 0;
		if (sim_formulation_is_tree(a->o))
			flags |= OUTPUT_JOINT_COORDS;	/* as odeint_init chooses */
		int ax[3];
		if (euler_seq(a->o->euler, ax) == 0)
			flags |= OUTPUT_EULER(ax);
		if (a->o->joint_frame)
			flags |= OUTPUT_JOINT_FRAME;
		R.out = output_open(a->out_path, a->m, &ho, a->deck_text, flags, err, sizeof err);
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
		if (r->status == SIM_COMPLETE && a->at_end)
			a->at_end(a->at_end_ctx, R.sys, &x);
	} else if (rc < 0) {
		r->status = SIM_FAILED;
		if (!r->message[0])
			snprintf(r->message, sizeof r->message, "set-up failed");
	} else if (a->stop && *a->stop) {
		r->status = SIM_INTERRUPTED;	/* in set-up (message set there) */
	}
	r->wall = now() - w0;
	if (R.sys) {	/* the energy balance (balance.h) */
		r->max_kinetic = R.mo.bal.kmax;
		r->energy_scale = balance_scale(&R.mo.bal);
		r->energy_floor = balance_floor(&R.mo.bal);
		r->energy_bound = balance_bound(&R.mo.bal);
		if (r->status == SIM_COMPLETE)
			balance_check(&R.mo.bal, r->max_abs_drift, r->warning, sizeof r->warning);
	}
	if (R.it) {
		r->factorizations = R.it->factorizations;
		r->rejected = R.it->rejected;
		r->mean_iterations = R.it->steps ? (double)R.it->total_iters / (double)R.it->steps : 0.0;
		if (R.it->ode && R.it->ode->dae) {
			const struct odeint *O = R.it->ode;
			r->dae_steps = O->dae_steps;
			r->dae_order = O->dae_order;
			r->dae_newton = O->dae_newton;
			r->dae_etf = O->dae_etf;
			r->dae_ncf = O->dae_ncf;
		}
		if (R.it->ode) {
			r->rhs_evals = R.it->ode->nrhs;
			r->jac_evals = R.it->ode->njac;
			r->jac_analytic = R.it->ode->njac_analytic;
			r->repartitions = R.it->ode->rp ? rp_repartitions(R.it->ode->rp) :
					  R.it->ode->tree ? tree_rebases(R.it->ode->tree) : 0;
		}
	}
	if (R.out) {
		char status[1100];
		if (r->status == SIM_COMPLETE && r->warning[0])
			snprintf(status, sizeof status, "warning: %s", r->warning);
		else if (r->status == SIM_COMPLETE)
			snprintf(status, sizeof status, "complete");
		else if (r->status == SIM_INTERRUPTED)	/* "interrupted: at t = ..." */
			snprintf(status, sizeof status, "interrupted: %s",
				 strncmp(r->message, "interrupted ", 12) ? r->message : r->message + 12);
		else
			snprintf(status, sizeof status, "failed: %s", r->message);
		/* all root attributes at the end: an HDF5 call now would wait
		 * for the layout h5_start is making meanwhile */
		if (R.sys) {
			write_attrs(&R);
			finish_attrs(&R);
		}
		r->output_buffer = (double)output_buffer_bytes(R.out);
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
	free(R.mo.jq);
	free(R.mo.jqd);
	free(R.scan);
	integ_free(&R.it);
	ra_free(&R.sys);
	return r->status;
}
