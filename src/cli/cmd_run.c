/* cmd_run.c - mbsim run: deck -> simulation -> HDF5. */
#include "cli.h"
#include "usage.h"
#include "../deck/deck.h"
#include "../sim/sim.h"
#include "../util/xalloc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* build/x/deck.yaml -> deck.h5 in the current directory */
static char *default_output(const char *deck)
{
	const char *base = strrchr(deck, '/');
	base = base ? base + 1 : deck;
	char *s = xstrdup(base), *dot = strrchr(s, '.');
	if (dot && dot != s)
		*dot = 0;
	char *o = xasprintf("%s.h5", s);
	free(s);
	return o;
}

struct run_opts {
	const char *deck, *out;
	char **sets;
	int nsets, quiet, json;
};

static int parse(int argc, char **argv, struct run_opts *ro)
{
	memset(ro, 0, sizeof(*ro));
	ro->sets = xcalloc((size_t)argc + 1, sizeof(char *));
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *v;
		int err = 0;
		if ((v = cli_optval(argc, argv, &i, "-o", USAGE_RUN, &err)) ||
		    (v = cli_optval(argc, argv, &i, "--output", USAGE_RUN, &err))) {
			ro->out = v;
		} else if ((v = cli_optval(argc, argv, &i, "--set", USAGE_RUN, &err))) {
			ro->sets[ro->nsets++] = (char *)v;
		} else if (err) {
			return -1;
		} else if (strcmp(a, "--quiet") == 0 || strcmp(a, "-q") == 0) {
			ro->quiet = 1;
		} else if (strcmp(a, "--json") == 0) {
			ro->json = 1;
		} else if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
			printf("usage: %s", USAGE_RUN);
			return 1;
		} else if (a[0] == '-' && a[1]) {
			cli_usage_error(USAGE_RUN, "unknown option '%s'", a);
			return -1;
		} else if (!ro->deck) {
			ro->deck = a;
		} else {
			cli_usage_error(USAGE_RUN, "more than one deck ('%s' and '%s')", ro->deck, a);
			return -1;
		}
	}
	if (!ro->deck) {
		cli_usage_error(USAGE_RUN, "no deck given");
		return -1;
	}
	return 0;
}

static const char *status_word(enum sim_status s)
{
	return s == SIM_COMPLETE ? "complete" : s == SIM_INTERRUPTED ? "interrupted" : "failed";
}

static void summary(const struct run_opts *ro, const char *out, const struct sim_options *o,
		    const struct sim_result *r)
{
	double rel = r->max_kinetic > 0 ? r->max_abs_drift / r->max_kinetic : 0.0;
	if (ro->json) {
		printf("{\"status\": \"%s\", \"message\": ", status_word(r->status));
		cli_json_str(r->message);
		printf(", \"integrator\": \"%s\", \"linear_solver\": \"%s\", \"step\": %.17g, "
		       "\"steps\": %ld, \"samples\": %ld, \"t_end\": %.17g, \"wall_time\": %.6g, "
		       "\"mean_newton_iterations\": %.6g, \"factorizations\": %ld, "
		       "\"rejected_steps\": %ld, \"max_position_residual\": %.6g, \"max_velocity_residual\": %.6g, "
		       "\"max_acceleration_residual\": %.6g, \"max_energy_drift\": %.6g, "
		       "\"max_kinetic_energy\": %.6g, \"initial_position_correction\": %.6g, "
		       "\"initial_velocity_correction\": %.6g, \"output\": \"%s\"}\n",
		       o->method, r->solver, o->step, r->steps, r->samples, r->t_reached, r->wall,
		       r->mean_iterations, r->factorizations, r->rejected, r->max_pos_res, r->max_vel_res,
		       r->max_acc_res, r->max_abs_drift, r->max_kinetic, r->moved_pos,
		       r->moved_vel, out ? out : "");
		return;
	}
	if (ro->quiet && r->status == SIM_COMPLETE)
		return;
	fprintf(stderr, "mbsim: %s: %s, %ld steps of %g s to t = %g in %.3f s; "
		"max residuals: position %.2g, velocity %.2g, acceleration %.2g; "
		"energy drift max %.3g J (%.3g%% of max kinetic); %.2f Newton it/step; %s\n",
		status_word(r->status), o->method, r->steps, o->step, r->t_reached, r->wall,
		r->max_pos_res, r->max_vel_res, r->max_acc_res, r->max_abs_drift, 100 * rel,
		r->mean_iterations, out ? out : "no output");
}

int cmd_run(int argc, char **argv)
{
	struct run_opts ro;
	int rc = parse(argc, argv, &ro);
	if (rc) {
		free(ro.sets);
		return rc > 0 ? EXIT_OK : EXIT_USAGE;
	}
	struct deck *dk = NULL;
	struct model *m = NULL;
	struct sim_options o;
	/* before loading: a large deck's set-up takes seconds, and SIGTERM
	 * must end it with exit 1 (issue 17) */
	volatile sig_atomic_t *stop = cli_catch_signals();
	rc = cli_load(ro.deck, ro.sets, ro.nsets, &dk, &m, &o);
	if (rc) {
		free(ro.sets);
		return rc;
	}
	char *out = ro.out ? xstrdup(ro.out) : default_output(ro.deck);
	char *cmdline = cli_join_args(argc, argv);
	struct sim_args a = { m, &o, out, deck_text(dk), cmdline,
			      !ro.quiet && !ro.json && isatty(2), stop };
	struct sim_result r;
	struct diag d;
	diag_init(&d);
	enum sim_status st = sim_run(&a, &r, &d);
	cli_print_diag(&d);
	if (d.nerr == 0) {
		if (!ro.quiet && !ro.json && r.moved_pos > 1e-9)
			fprintf(stderr, "mbsim: note: initial positions assembled: moved by up to %.3g "
				"(body '%s')\n", r.moved_pos, r.moved_pos_body);
		if (!ro.quiet && !ro.json && r.moved_vel > 1e-9)
			fprintf(stderr, "mbsim: note: initial velocities projected onto the constraints: "
				"changed by up to %.3g (body '%s')\n", r.moved_vel, r.moved_vel_body);
		if (st != SIM_COMPLETE && !ro.json)
			fprintf(stderr, "mbsim: error: %s\n", r.message);
		summary(&ro, out, &o, &r);
	}
	diag_release(&d);
	free(out);
	free(cmdline);
	free(ro.sets);
	model_free(&m);
	deck_free(&dk);
	return st == SIM_COMPLETE ? EXIT_OK : EXIT_SIM;
}
