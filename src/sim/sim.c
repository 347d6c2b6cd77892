/* sim.c - the run loop (sim.h).
 *
 * Set-up: compile the model (form/ra), build the formulation the scheme
 * steps when it is not ra (rp or tree, handed to it as an ODE), make the
 * initial state consistent
 * (assemble.c), find accelerations and multipliers at t0.  Then one fixed
 * step after another (or, with integrator.adaptive, the steps the scheme's
 * step control chooses); every completed state passes the monitors (work of
 * nonconservative forces, unwrapped joint coordinates) and, every k-th,
 * the output.  Completed states arrive one step late for schemes whose
 * registry row has lag = 1.  The scheme is reached through its ops
 * (integ.h) alone; the output clock is clock.c, the monitors monitor.c,
 * the messages naming.c, the elements' step limits step_limit.c.
 */
#include "sim_impl.h"
#include "assess.h"
#include "mobility.h"
#include "assemble.h"
#include "clock.h"
#include "monitor.h"
#include "output.h"
#include "../form/ode_ctrl.h"
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


/* A completed state (accelerations and multipliers known) at x, the
 * state after `step` steps.  -1 (message in R->r) when x or its energy is
 * not finite; nothing of x is written then. */
static int complete(struct run *R, const struct ra_state *x, double h, int iters,
		    int converged, int write, long step)
{
	struct ra *s = R->sys;
	struct monitor *mo = &R->mo;
	if (monitor_finite(s, x, step, h, R->r->message, sizeof R->r->message))
		return -1;
	double K, V, P[3] = { 0, 0, 0 };
	if (s->has_ncforce)
		P[0] = ra_ncpower(s, x, P + 1);
	balance_power(&mo->bal, x->t, P);
	if (R->it) {	/* the impulses' work of the step to x, taken once */
		balance_impulse(&mo->bal, R->it->impulse_work);
		R->it->impulse_work = 0;
	}
	monitor_coords(s->m, x, h, write, mo);
	if (!write && !mo->first)
		return 0;
	ra_energy(s, x, &K, &V);
	double work = mo->bal.work[0], total = K + V - work;
	if (!isfinite(total)) {
		snprintf(R->r->message, sizeof R->r->message,
			 "non-finite energy at t = %.9g (step %ld, h = %g): kinetic %g J, "
			 "potential %g J, work %g J; fastest body '%s': %s", x->t, step, h, K, V,
			 work, s->m->bodies[monitor_fastest_body(s, x)].name,
			 monitor_blowup_remedy(step));
		return -1;
	}
	if (mo->first)
		mo->total0 = total;
	mo->first = 0;
	double drift = total - mo->total0;
	struct sim_result *r = R->r;
	r->max_abs_drift = fmax(r->max_abs_drift, fabs(drift));
	balance_energy(&mo->bal, K, V, monitor_gravity_size(s, x));
	if (!write)
		return 0;
	if (R->as)
		assess_record(R->as, s, x);
	if (R->a->on_sample)
		R->a->on_sample(R->a->on_sample_ctx, s, x);
	ra_eval(s, x, x->t, PRIM_ALL);
	struct sample_info si = { h, iters, converged, K, V, work, total, drift, mo->coord,
				  NULL, NULL, integ_sample(R->it), mo->bal.work[1],
				  mo->bal.work[2], NULL, 0 };
	si.impulses = integ_contacts(R->it, &si.nimpulses);
	if (mo->jq) {
		int k = 0;
		for (int j = 0; j < s->m->njoints; j++)
			k += tree_joint_coords(R->tree, j, mo->jq + k, mo->jqd + k);
		si.jq = mo->jq;
		si.jqd = mo->jqd;
	}
	double res[3] = { 0, 0, 0 };
	if (R->out) {
		int bad = output_sample(R->out, s, x, &si, res);
		if (!bad && R->ck_x && output_flush_due(R->out))
			sim_ckpt_append(R);	/* carried by this flush */
		if (bad || output_commit(R->out)) {
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
static int note_redundant(struct run *R, const struct ra_state *x, struct diag *d)
{
	struct sim_result *r = R->r;
	int *rows = R->red_rows;
	r->redundant = R->nred = integ_fix_redundant(R->it, rows);
	if (mobility_refuse_drivers_at(R->a->m, x, d)) {
		snprintf(r->message, sizeof r->message, "a driver's constraint row depends on "
			 "the others at the initial state (see the error above; mbsim check "
			 "names it too)");
		return 1;
	}
	r->redundant_rows[0] = 0;
	size_t len = 0;
	for (int i = 0; i < r->redundant; i++) {
		char what[256];
		model_row_name(R->a->m, rows[i], what, sizeof what);
		size_t w = strlen(what), room = sizeof r->redundant_rows - len;
		if (w + 8 >= room) {
			snprintf(r->redundant_rows + len, room, "%s...", i ? ", " : "");
			break;
		}
		len += (size_t)snprintf(r->redundant_rows + len, room, "%s%s", i ? ", " : "", what);
	}
	return 0;
}

/* A body of mass 0 or singular inertia (seed 003: the tree formulation's
 * residual schemes only). */
static int has_singular_mass(const struct model *m)
{
	for (int b = 0; b < m->nbodies; b++)
		if (!tree_body_regular(m, b))
			return 1;
	return 0;
}

/* The scheme of info on the compiled system, with the formulation it
 * steps when that is not ra (sim_formulation_name): rp, with room for
 * all its coordinates, or tree (a model that is not a tree rooted at the
 * ground is refused in d, tree_check), each with the model's integral
 * states around it (form/ode_ctrl.h). */
static struct integ *new_integ(struct run *R, const struct integ_info *info, struct diag *d)
{
	const struct sim_options *o = R->a->o;
	const char *form = sim_formulation_name(o);
	if (integ_check(R->sys->m, info, o, d))
		return NULL;
	struct kkt *K = integ_kkt_new(R->sys, o);
	struct ode_sys *ode = NULL;
	int cap = 0;
	if (strcmp(form, "tree") == 0) {
		R->tree = tree_new(R->sys, d);
		if (!R->tree) {
			kkt_free(&K);
			return NULL;
		}
		ode = tree_ode(R->tree);
	} else if (strcmp(form, "rp") == 0) {
		R->rp = rp_new(R->sys, K, o->tolerance, o->max_iterations);
		ode = rp_ode(R->rp);
		cap = rp_ncoords(R->rp);
	}
	if (ode) {
		R->ctrl = ode_ctrl_new(R->sys, ode);
		if (R->ctrl)
			ode = ode_ctrl_sys(R->ctrl);
		if (R->rp)
			cap += ode_ctrl_count(R->ctrl);
	}
	return integ_new_on(info, R->sys, K, ode, cap, o, d);
}

/* The tree's joint coordinates: 1 + their count (0: not a tree run). */
static size_t tree_coord_count(const struct run *R)
{
	if (!R->tree)
		return 0;
	size_t njq = 1;
	for (int j = 0; j < R->a->m->njoints; j++)
		njq += (size_t)tree_joint_ncoords(R->a->m->joints[j].type);
	return njq;
}

/* Set-up's end for a run from a checkpoint (sim_args.restart): its state,
 * the rows the first run dropped as redundant, the monitors and the
 * scheme's memory, instead of the assembly and the initial
 * accelerations (checkpoint.c). */
static int setup_restart(struct run *R, struct ra_state *x)
{
	monitor_init(&R->mo, R->a->m, tree_coord_count(R));
	sim_ckpt_open(R);
	struct clock *k = &R->clk0;
	if (sim_ckpt_load(R, x, k))
		return -2;
	integ_drop_rows(R->it, R->red_rows, R->nred);
	R->r->redundant = R->nred;
	if (R->tree) {
		int st = integ_begin(R->it, x);
		if (st) {
			sim_fail_message(R->it, st, x->t, R->k0, R->a->o->step, R->r->message,
					 sizeof R->r->message);
			return 1;
		}
	}
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
	R->nlimits = step_limits_new(a->m, R->sys, &R->limits);
	R->it = new_integ(R, info, d);
	if (!R->it)
		return -1;
	if (setup_stopped(R, "assembling the initial state"))
		return 1;
	snprintf(r->solver, sizeof r->solver, "%s", kkt_mode_name(kkt_mode_of(R->it->kkt)));
	ra_state_init(R->sys, x);
	ra_state_from_model(R->sys, x, a->o->t0);
	R->red_rows = xcalloc((size_t)R->sys->nc + 1, sizeof(int));
	if (a->restart)
		return setup_restart(R, x);
	/* the assembly's mass-weighted projection needs regular masses; the
	 * tree formulation's start projects joint by joint (and a residual
	 * scheme fixes the rates of massless coordinates, IDACalcIC) */
	if (a->o->assemble && !has_singular_mass(a->m) &&
	    assemble(R->sys, R->it, x, a->o->assemble_tol, r, r->message, sizeof r->message))
		return 1;
	if (setup_stopped(R, "the initial accelerations"))
		return 1;
	int st = integ_accel(R->it, x);
	if (st) {
		sim_fail_message(R->it, st, x->t, 0, a->o->step, r->message, sizeof r->message);
		return 1;
	}
	if (note_redundant(R, x, d))
		return 1;
	if (R->tree) {
		/* the tree's coordinates now, for the t0 sample's
		 * /joints/coordinates (the first step would start them at the
		 * same state; a scheme that starts there in integ_accel has) */
		st = integ_begin(R->it, x);
		if (st) {
			sim_fail_message(R->it, st, x->t, 0, a->o->step, r->message,
					 sizeof r->message);
			return 1;
		}
	}
	monitor_init(&R->mo, a->m, tree_coord_count(R));
	sim_ckpt_open(R);
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
	char hash[24];
	snprintf(hash, sizeof hash, "%016llx", model_structure_hash(a->m));
	h5_attr_str(h, "/", "model_hash", hash);
	if (a->restart) {	/* where a restart came from */
		h5_attr_str(h, "/", "restart_file", a->restart_file ? a->restart_file : "");
		h5_attr_num(h, "/", "restart_time", a->restart_t);
		h5_attr_int(h, "/", "restart_steps", (long long)R->k0);
	}
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
	if (r->gerr_done) {	/* integrator.assess_error (assess.h) */
		h5_attr_num(h, "/", "global_error_position", r->gerr_pos);
		h5_attr_num(h, "/", "global_error_velocity", r->gerr_vel);
		h5_attr_num(h, "/", "global_error_factor", r->gerr_factor);
		h5_attr_num(h, "/", "global_error_time", r->gerr_t);
		h5_attr_str(h, "/", "global_error_body", r->gerr_body);
	}
	/* the scheme's own statistics that the file keeps */
	for (int i = 0; i < r->nstats; i++)
		if (r->stat_keys[i].flags & INTEG_STAT_ATTR)
			h5_attr_int(h, "/", r->stat_keys[i].name, (long long)r->stats[i]);
	if (R->rp) {
		/* 001 §1: the independent coordinates chosen, and when */
		/* rp's coordinates: the ODE may be ode_ctrl's, with the
		 * controllers' integral states after them */
		int np = rp_partition_log(R->rp, NULL), n = rp_ode(R->rp)->n;
		if (np > 0) {
			double *log = xmalloc((size_t)np * (size_t)(n + 1) * sizeof(double));
			rp_partition_log(R->rp, log);
			h5_matrix(h, "/solver/partitions", H5_DOUBLE, log, np, n + 1, 0);
			h5_attr_str(h, "/solver/partitions", "columns",
				    "time (s), then the independent coordinates, 7 b + k: body b of "
				    "/bodies/names (0-based), k = 0..2 centroid x, y, z, 3..6 Euler "
				    "parameters e0..e3");
			free(log);
		}
	}
}

/* /events: the crossings found, in time order (man mbsim-output(5)); the
 * group only when the deck has events. */
static void write_events(struct run *R)
{
	const struct model *m = R->a->m;
	if (m->nevents == 0)
		return;
	struct h5out *h = R->out->h5;
	long n;
	const struct event_rec *rec = events_records(R->ev, &n);
	const char **names = xmalloc(((size_t)n + 1) * sizeof(char *));
	double *t = xmalloc(((size_t)n + 1) * sizeof(double));
	int *dir = xmalloc(((size_t)n + 1) * sizeof(int));
	for (long k = 0; k < n; k++) {
		names[k] = m->events[rec[k].event].name;
		t[k] = rec[k].t;
		dir[k] = rec[k].dir;
	}
	h5_names(h, "/events/name", names, (int)n);
	h5_matrix(h, "/events/time", H5_DOUBLE, t, n, 0, 0);
	h5_ints(h, "/events/direction", dir, (int)n);
	h5_attr_str(h, "/events/time", "units", "s");
	h5_attr_str(h, "/events/direction", "doc", "+1 rising, -1 falling");
	free(names);
	free(t);
	free(dir);
}

/* The accelerations and multipliers of the set-up's index-1 solve at t0.
 * A lag = 1 scheme overwrites them with its own first-order values
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

/* The first run's clock k (loaded) goes on when it is in a segment whose
 * end is the next breakpoint fresh (made from the restart's time) would
 * take and, for fixed steps, cut into the same steps: 1, with k's list
 * of times made fresh's; 0: fresh goes on. */
static int restart_clock(const struct sim_options *o, struct clock *k, const struct clock *fresh)
{
	if (!(k->i < k->n) || k->b != fresh->b ||
	    (!o->adaptive && clock_fixed_steps_between(o, k->a, k->b) != k->n))
		return 0;
	k->ts = fresh->ts;
	k->nt = fresh->nt;
	k->j = fresh->j;
	return 1;
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
	long k0 = R->k0;	/* steps before this run (a restart) */
	clock_segment(o, &c, x->t);
	if (R->restarted) {
		/* a restart: the first run's state is complete, its clock
		 * goes on where the breakpoints and the step are the same
		 * (then the steps are the first run's, bit for bit) */
		xw = R->ck_xw;
		if (restart_clock(o, &R->clk0, &c))
			c = R->clk0;
		if (!o->adaptive)
			h = o->step;
		else
			h = R->it->h_next > 0 ? R->it->h_next : o->step;
	} else {
		ra_force_commit(R->sys, x);	/* continuous rsda angles from t0 */
	}
	R->ck_clock = &c;
	R->ck_x = x;
	R->ck_steps = k0;
	R->ck_xw = xw;
	R->ev = events_new(R->sys, x);
	/* a restart's first sample is the first run's sample of that state:
	 * the step that reached it, its iterations */
	if (!lag && complete(R, x, R->restarted ? R->h_last : 0.0,
			     R->restarted ? R->it->iters : 0, 1, xw, k0))
		return SIM_FAILED;	/* message from complete() */
	if (lag && !R->restarted)
		t0_save(R, x, &t0);
	for (long k = 0;; k++) {
		if (R->a->stop && *R->a->stop) {
			snprintf(R->r->message, sizeof R->r->message,
				 "interrupted at t = %.9g (step %ld)", x->t, k0 + k);
			R->ck_x = x;	/* the state the next step would start from */
			R->ck_steps = k0 + k;
			sim_ckpt_append(R);
			t0_release(&t0);
			return SIM_INTERRUPTED;
		}
		double hk = clock_target(o, &c, x->t, h) - x->t;
		if (o->adaptive && R->nlimits) {
			/* land short of what the elements see ahead (the road
			 * features ahead of the tires), looking no farther than
			 * a step may grow: max(10, facmax) times the last one
			 * (CVODE and IDA, whose run loop aims at the end, grow
			 * theirs by 10 at most after their first) */
			double hs = R->h_last > 0 ? fmin(hk, fmax(10.0, o->facmax) * R->h_last) : hk;
			double hc = hs;
			for (int i = 0; i < R->nlimits; i++)
				hc = R->limits[i].limit(R->limits[i].ctx, x, hc);
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
				 "interrupted at t = %.9g (step %ld, in its Newton iteration)", x->t,
				 k0 + k);
			t0_release(&t0);
			return SIM_INTERRUPTED;
		}
		if (st) {
			sim_fail_message(R->it, st, x->t, k0 + k, hk, R->r->message,
					 sizeof R->r->message);
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
				 x->t, k0 + k, hk, R->it->h_next);
			t0_release(&t0);
			return SIM_FAILED;
		}
		R->r->steps++;
		R->r->t_reached = y->t;
		R->h_last = hk;
		ra_force_step(R->sys, y, hk);	/* integral of motor control errors */
		ra_force_commit(R->sys, y);
		if (R->sys->cpl_fault >= 0) {
			sim_cpl_fault_message(R->sys, y->t, k0 + k + 1, hk, R->r->message,
					      sizeof R->r->message);
			t0_release(&t0);
			return SIM_FAILED;
		}
		long ev = events_step(R->ev, R->sys, x, y);
		if (ev >= 0) {
			/* a stop event: the run ends with this step, its end
			 * the last sample (the event's time is in /events) */
			long n;
			const struct event_rec *rec = events_records(R->ev, &n);
			snprintf(R->r->message, sizeof R->r->message, "event %s at t = %.17g",
				 R->a->m->events[rec[ev].event].name, rec[ev].t);
			R->r->stopped = 1;
			last = 1;
			req = 1;
		}
		/* lag: x is the state completed now (sample_due moves t_w) */
		int yw = lag || (c.ts ? req : clock_sample_due(&R->smp, y->t, k0 + k + 1, last));
		/* the checkpoint a flush now carries: y, which the loop goes on from */
		R->ck_x = y;
		R->ck_steps = k0 + k + 1;
		R->ck_xw = c.ts ? req : 1;
		if (lag && k == 0 && !R->restarted) {
			t0_exact(R, x, &t0);
			t0_release(&t0);
		}
		if (lag && complete(R, x, hk, R->it->iters, 1,
				    c.ts ? xw : clock_sample_due(&R->smp, x->t, k0 + k, 0), k0 + k)) {
			t0_release(&t0);
			return SIM_FAILED;	/* message from complete() */
		}
		if (!lag && complete(R, y, hk, R->it->iters, 1, yw, k0 + k + 1))
			return SIM_FAILED;	/* message from complete() */
		xw = c.ts ? req : 1;
		struct ra_state t = *x;
		*x = *y;
		*y = t;
		if (o->adaptive)
			h = R->it->h_next;
		if ((k & 1023) == 0)
			progress(R, x->t, 0);
		R->ck_x = x;	/* after the exchange */
		if (last)
			break;
	}
	t0_release(&t0);
	sim_ckpt_append(R);	/* the end, before a lag = 1 scheme completes it */
	R->ck_x = NULL;
	if (lag) {
		int st = integ_accel(R->it, x);
		if (st) {
			sim_fail_message(R->it, st, x->t, R->r->steps, h, R->r->message,
					 sizeof R->r->message);
			return SIM_FAILED;
		}
		if (complete(R, x, h, 0, 1, xw, k0 + R->r->steps))
			return SIM_FAILED;	/* message from complete() */
	}
	return SIM_COMPLETE;
}

/* The output file, made before set-up computes (its layout is written
 * meanwhile): NULL with a record in d on failure. */
static struct output *open_output(const struct sim_args *a, const struct sampling *smp,
				  struct diag *d)
{
	char err[512];
	const struct integ_info *info = integ_find(a->o->method);
	struct h5_opts ho = { a->o->flush_interval, a->o->compression,
			      clock_expected_samples(a->o, smp, info),
			      a->command_line ? strlen(a->command_line) : 0 };
	const struct integ_ops *ops = info ? info->ops : NULL;
	struct output_series ser = { ops ? ops->sample_name : NULL, ops ? ops->sample_unit : NULL,
				     ops ? ops->sample_doc : NULL };
	unsigned flags = 0;
	if (sim_formulation_is_tree(a->o))
		flags |= OUTPUT_JOINT_COORDS;	/* as new_integ chooses */
	int ax[3];
	if (euler_seq(a->o->euler, ax) == 0)
		flags |= OUTPUT_EULER(ax);
	if (a->o->joint_frame)
		flags |= OUTPUT_JOINT_FRAME;
	struct output *out = output_open(a->out_path, a->m, &ho, a->deck_text, flags,
					 ser.name ? &ser : NULL, err, sizeof err);
	if (!out)
		diag_error(d, NULL, "%s", err);
	return out;
}

/* What the scheme reports of the run (integ.h): shared counts, its own
 * statistics and summary lines. */
static void scheme_report(const struct run *R, struct sim_result *r)
{
	const struct integ *it = R->it;
	r->factorizations = it->factorizations;
	r->rejected = it->rejected;
	r->mean_iterations = it->steps ? (double)it->total_iters / (double)it->steps : 0.0;
	r->stat_keys = it->ops->stat_keys;
	r->nstats = integ_stats(it, R->a->o, r->stats);
	if (it->ops->notes && r->nstats)
		it->ops->notes(it, R->a->o, r->stats, r->notes, sizeof r->notes);
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
	clock_sampling(a->o, &R.smp);
	r->status = SIM_FAILED;
	const struct integ_info *info = integ_find(a->o->method);
	r->stat_keys = info ? info->ops->stat_keys : NULL;
	r->iter_unit = info && info->ops->iter_unit ? info->ops->iter_unit : "Newton it";
	char err[512];
	if (a->out_path && !(R.out = open_output(a, &R.smp, d)))
		return SIM_FAILED;
	/* the global error assessment of a run whose steps a scheme chose
	 * (assess.h); a restart's first part is not at hand */
	struct assess as = { 0 };
	if (a->o->assess_error && integ_chooses_steps(info, a->o) && !a->restart && !a->at_start)
		R.as = &as;
	double w0 = now();
	int rc = setup(&R, &x, d);
	if (rc == 0) {
		ra_state_init(R.sys, &y);
		ra_state_copy(R.sys, &y, &x);
		r->status = a->at_start ? SIM_COMPLETE : loop(&R, &x, &y);
		progress(&R, x.t, 1);
		if (r->status == SIM_COMPLETE && a->at_end)
			a->at_end(a->at_end_ctx, R.sys, &x);
	} else if (rc < 0) {
		r->status = SIM_FAILED;
		r->refused = rc == -2;	/* a checkpoint that does not fit */
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
	if (R.as && r->status == SIM_COMPLETE)
		assess_run(a, R.as, r);
	else if (a->o->assess_error && a->restart && r->status == SIM_COMPLETE)
		assess_not_restart(r);
	assess_release(&as);
	if (R.it)
		scheme_report(&R, r);
	if (R.out) {
		char status[1100];
		if (r->status == SIM_COMPLETE && r->warning[0] && !r->stopped)
			snprintf(status, sizeof status, "warning: %s", r->warning);
		else if (r->status == SIM_COMPLETE && r->stopped)
			snprintf(status, sizeof status, "stopped: %s", r->message);
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
			write_events(&R);
		}
		r->output_buffer = (double)output_buffer_bytes(R.out);
		if (output_close(&R.out, status, err, sizeof err)) {
			diag_error(d, NULL, "%s", R.write_failed ? r->message : err);
			r->status = SIM_FAILED;
		}
	}
	ra_state_release(&x);
	ra_state_release(&y);
	monitor_free(&R.mo);
	step_limits_free(R.limits, R.nlimits);
	events_free(&R.ev);
	free(R.ck_v);
	free(R.red_rows);
	integ_free(&R.it);
	ode_ctrl_free(&R.ctrl);
	rp_free(&R.rp);
	tree_free(&R.tree);
	ra_free(&R.sys);
	return r->status;
}
