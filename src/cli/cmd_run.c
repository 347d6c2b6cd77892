/* cmd_run.c - mbsim run: deck -> simulation -> HDF5. */
#include "cli.h"
#include "usage.h"
#include "../integ/registry.h"
#include "../deck/deck.h"
#include "../io/h5read.h"
#include "../io/xdmf.h"
#include "../sim/output.h"
#include "../sim/sim.h"
#include "../util/xalloc.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
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
	const char *restart;	/* --restart FILE.h5[@T], or NULL */
	char **sets;
	int nsets, quiet, json, force, from_static, xdmf;
	int mode;		/* --excite-mode K, 0 without */
	double amp;		/* --amplitude A */
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
		} else if ((v = cli_optval(argc, argv, &i, "--restart", USAGE_RUN, &err))) {
			ro->restart = v;
		} else if (cli_setopt(argc, argv, &i, USAGE_RUN, &err, ro->sets, &ro->nsets)) {
		} else if ((v = cli_optval(argc, argv, &i, "--excite-mode", USAGE_RUN, &err))) {
			char *end;
			errno = 0;
			long k = strtol(v, &end, 10);
			if (end == v || *end || errno || k < 1 || k > 1000000) {
				cli_usage_error(USAGE_RUN, "--excite-mode needs a mode number 1, 2, ... "
						"as mbsim modes lists them, not '%s'", v);
				return -1;
			}
			ro->mode = (int)k;
		} else if ((v = cli_optval(argc, argv, &i, "--amplitude", USAGE_RUN, &err))) {
			char *end;
			ro->amp = strtod(v, &end);
			if (end == v || *end || !isfinite(ro->amp) || ro->amp <= 0) {
				cli_usage_error(USAGE_RUN, "--amplitude needs a positive number, not '%s'", v);
				return -1;
			}
		} else if (err) {
			return -1;
		} else if (strcmp(a, "--quiet") == 0 || strcmp(a, "-q") == 0) {
			ro->quiet = 1;
		} else if (strcmp(a, "--json") == 0) {
			ro->json = 1;
		} else if (strcmp(a, "--force") == 0) {
			ro->force = 1;
		} else if (strcmp(a, "--from-static") == 0) {
			ro->from_static = 1;
		} else if (strcmp(a, "--xdmf") == 0) {
			ro->xdmf = 1;
		} else if (strcmp(a, "--assess-error") == 0) {
			/* the deck key's short form, kept with the --set values */
			ro->sets[ro->nsets++] = (char *)"integrator.assess_error=true";
		} else if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
			printf("usage: %s", USAGE_RUN);
			return 1;
		} else if (a[0] == '-' && a[1]) {
			static const char *const opts[] = { "-o", "--output", "--set", "--unset", "--force",
				"--quiet", "-q", "--json", "--from-static", "--excite-mode", "--amplitude",
				"--xdmf", "--restart", "--assess-error", "--help", "-h", NULL };
			cli_usage_error(USAGE_RUN, "unknown option '%s'%s", a, cli_suggest(a, opts));
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
	if (ro->amp > 0 && !ro->mode) {
		cli_usage_error(USAGE_RUN, "--amplitude applies to --excite-mode");
		return -1;
	}
	if (ro->restart && (ro->from_static || ro->mode)) {
		cli_usage_error(USAGE_RUN, "--restart continues from a saved state: not with "
				"--from-static or --excite-mode");
		return -1;
	}
	if (ro->mode)
		ro->from_static = 1;	/* the mode of the static equilibrium */
	if (!(ro->amp > 0))
		ro->amp = 1e-3;
	return 0;
}

static const char *status_word(const struct sim_result *r)
{
	enum sim_status s = r->status;
	if (s == SIM_COMPLETE && r->stopped)
		return "stopped";	/* by a stop event, the message names it */
	return s == SIM_COMPLETE ? "complete" : s == SIM_INTERRUPTED ? "interrupted" : "failed";
}

/* The --set values as given, in order; a later --set of the same key
 * replaces the earlier (as it does in the deck).  A value that is a
 * plain finite decimal number is a JSON number, anything else (an
 * expression, a name, 0x10) the text as a string. */
static void json_sets(const struct run_opts *ro)
{
	printf("\"set\": {");
	int first = 1;
	for (int i = 0; i < ro->nsets; i++) {
		const char *a = ro->sets[i], *eq = strchr(a, '=');
		if (!eq)
			continue;
		size_t klen = (size_t)(eq - a);
		int later = 0;
		for (int j = i + 1; j < ro->nsets; j++)
			if (strncmp(ro->sets[j], a, klen + 1) == 0)
				later = 1;
		if (later)
			continue;
		char *key = xasprintf("%.*s", (int)klen, a), *end;
		printf("%s", first ? "" : ", ");
		first = 0;
		cli_json_str(key);
		printf(": ");
		double x = strtod(eq + 1, &end);
		const char *v = eq + 1;
		if (*v && !*end && isfinite(x) && strspn(v, "0123456789+-.eE") == strlen(v))
			cli_json_num(x);
		else
			cli_json_str(eq + 1);
		free(key);
	}
	printf("}");
}

struct json_num {
	const char *name;
	double v;
	int na;		/* does not apply to this run's scheme: null, and not
			 * "nonfinite" (which names what a diverged run made so) */
};

/* Bytes of the file at path, -1 when there is none. */
static double file_bytes(const char *path)
{
	struct stat st;
	return path && stat(path, &st) == 0 ? (double)st.st_size : -1.0;
}

/* "OUT (N samples, 7.1 MB)": the output file, what it holds and its size
 * (decimal units), or "no output". */
static void output_text(char *buf, size_t n, const char *out, long samples, double bytes)
{
	if (!out) {
		snprintf(buf, n, "no output");
		return;
	}
	static const char *const unit[] = { "bytes", "kB", "MB", "GB", "TB" };
	int u = 0;
	double v = bytes;
	while (v >= 1000 && u < 4) {
		v /= 1000;
		u++;
	}
	if (bytes < 0)
		snprintf(buf, n, "%s (%ld sample%s)", out, samples, samples == 1 ? "" : "s");
	else
		snprintf(buf, n, "%s (%ld sample%s, %.*f %s)", out, samples, samples == 1 ? "" : "s",
			 u && v < 10 ? 1 : 0, v, unit[u]);
}

/* After nums[0 .. n-1], every statistic that some scheme reports and the
 * others show as null (INTEG_STAT_SHARED), in the order of the registry:
 * this run's value, or null when the key is not its scheme's (or its
 * scheme did not come to report it).  The new count, at most max. */
static int shared_stats(const struct sim_result *r, struct json_num *nums, int n, int max)
{
	for (int i = 0; i < INTEG_COUNT; i++)
		for (const struct integ_stat_key *k = integ_table[i].ops->stat_keys; k && k->name;
		     k++) {
			if (!(k->flags & INTEG_STAT_SHARED))
				continue;
			int seen = 0;
			for (int j = 0; j < n && !seen; j++)
				seen = strcmp(nums[j].name, k->name) == 0;
			if (seen || n == max)
				continue;
			nums[n] = (struct json_num){ k->name, NAN, 1 };
			for (int j = 0; j < r->nstats; j++)
				if (strcmp(r->stat_keys[j].name, k->name) == 0)
					nums[n] = (struct json_num){ k->name, r->stats[j], 0 };
			n++;
		}
	return n;
}

static void summary(const struct run_opts *ro, const char *out, const struct sim_options *o,
		    const struct sim_result *r)
{
	double bytes = file_bytes(out);
	/* the drift relative to the energy the run held or exchanged, when
	 * that is above round-off (a body at rest has none) */
	int scaled = r->energy_scale > r->energy_floor && r->energy_scale > 0;
	char drift[160];
	if (scaled)
		snprintf(drift, sizeof drift, "energy drift max %.3g J (%.3g%% of the energy scale "
			 "%.3g J)", r->max_abs_drift, 100 * r->max_abs_drift / r->energy_scale,
			 r->energy_scale);
	else
		snprintf(drift, sizeof drift, "energy drift max %.3g J (at round-off: no energy "
			 "moved)", r->max_abs_drift);
	if (ro->json) {
		/* every number is JSON: a non-finite one (a diverged run) is
		 * null, and "nonfinite" says what it was; one that does not
		 * apply (a statistic of another scheme, integ.h
		 * INTEG_STAT_SHARED: omega_max without tangent_newmark, the f
		 * and Jacobian counts outside the ODE schemes) is null alone */
		struct json_num nums[64] = {
			{ "step", o->step, 0 }, { "steps", (double)r->steps, 0 },
			{ "samples", (double)r->samples, 0 }, { "t_end", r->t_reached, 0 },
			{ "wall_time", r->wall, 0 }, { "mean_newton_iterations", r->mean_iterations, 0 },
			{ "factorizations", (double)r->factorizations, 0 },
			{ "rejected_steps", (double)r->rejected, 0 },
			{ "max_position_residual", r->max_pos_res, 0 },
			{ "max_velocity_residual", r->max_vel_res, 0 },
			{ "max_acceleration_residual", r->max_acc_res, 0 },
			{ "max_energy_drift", r->max_abs_drift, 0 },
			{ "max_kinetic_energy", r->max_kinetic, 0 },
			{ "energy_scale", r->energy_scale, 0 },
			{ "energy_drift_bound", r->energy_bound, 0 },
			{ "initial_position_correction", r->moved_pos, 0 },
			{ "initial_velocity_correction", r->moved_vel, 0 },
			{ "output_buffer_bytes", r->output_buffer, 0 },
			{ "output_bytes", bytes, bytes < 0 },
			{ "redundant_rows", (double)r->redundant, 0 },
			{ "singular_steps", (double)r->singular_steps, 0 },
			{ "road_cuts", (double)r->road_cuts, 0 },
			/* integrator.assess_error (null: not assessed) */
			{ "global_error_position", r->gerr_pos, !r->gerr_done },
			{ "global_error_velocity", r->gerr_vel, !r->gerr_done },
			{ "global_error_factor", r->gerr_factor, !r->gerr_done },
		};
		int n = 0;
		while (nums[n].name)
			n++;
		n = shared_stats(r, nums, n, (int)(sizeof nums / sizeof nums[0]));
		printf("{\"status\": \"%s\", \"message\": ", status_word(r));
		cli_json_str(r->message);
		printf(", \"integrator\": ");
		cli_json_str(o->method);
		printf(", \"formulation\": ");
		cli_json_str(sim_formulation_name(o));
		printf(", \"method_chosen\": ");
		if (o->method_auto)
			cli_json_str(o->method_why);
		else
			printf("null");
		printf(", \"linear_solver\": ");
		cli_json_str(r->solver);
		printf(", \"warnings\": [");
		if (r->warning[0])
			cli_json_str(r->warning);
		printf("]");
		int bad = 0;
		for (int i = 0; i < n; i++) {
			printf(", \"%s\": ", nums[i].name);
			cli_json_num(nums[i].na ? NAN : nums[i].v);
			bad += !nums[i].na && !isfinite(nums[i].v);
		}
		for (int i = 0; i < r->nstats; i++)	/* the scheme's own (bdf: IDA's) */
			if (!(r->stat_keys[i].flags & INTEG_STAT_SHARED)) {
				printf(", \"%s\": ", r->stat_keys[i].name);
				cli_json_num(r->stats[i]);
			}
		if (bad) {
			printf(", \"nonfinite\": {");
			for (int i = 0, k = 0; i < n; i++)
				if (!nums[i].na && !isfinite(nums[i].v))
					printf("%s\"%s\": \"%s\"", k++ ? ", " : "", nums[i].name,
					       cli_nonfinite_reason(nums[i].v));
			printf("}");
		}
		printf(", ");
		json_sets(ro);
		printf(", \"output\": ");
		cli_json_str(out ? out : "");
		printf("}\n");
		return;
	}
	if (ro->quiet && r->status == SIM_COMPLETE && !r->warning[0])
		return;
	/* a run whose scheme chose its steps: their mean, not integrator.step */
	const struct integ_info *info = integ_find(o->method);
	char steps[96], file[1200];
	output_text(file, sizeof file, out, r->samples, bytes);
	if (integ_chooses_steps(info, o))
		snprintf(steps, sizeof steps, "%ld step%s (mean %.3g s)", r->steps,
			 r->steps == 1 ? "" : "s",
			 r->steps > 0 ? (r->t_reached - o->t0) / (double)r->steps : 0.0);
	else
		snprintf(steps, sizeof steps, "%ld step%s of %g s", r->steps,
			 r->steps == 1 ? "" : "s", o->step);
	if (r->stopped)
		fprintf(stderr, "mbsim: stopped: %s\n", r->message);
	fprintf(stderr, "mbsim: %s: %s, %s to t = %g in %.3f s; "
		"max residuals: position %.2g, velocity %.2g, acceleration %.2g; "
		"%s; %.2f %s/step; %s\n",
		r->status == SIM_COMPLETE && r->warning[0] && !r->stopped ?
		"complete with a warning" : status_word(r), o->method, steps, r->t_reached, r->wall,
		r->max_pos_res, r->max_vel_res, r->max_acc_res, drift, r->mean_iterations,
		/* the ODE schemes count evaluations of their f (rhs_evaluations) */
		r->iter_unit, file);
	if (r->warning[0])
		fprintf(stderr, "mbsim: warning: %s\n", r->warning);
	if (r->gerr_done)
		fprintf(stderr, "mbsim: global error estimate (against a run at a tenth of atol and "
			"rtol, %.3f s): position %.3g m (body '%s' at t = %.6g), %.3g times atol + "
			"rtol Y (Y = %.3g m); velocity %.3g m/s\n", r->gerr_wall, r->gerr_pos,
			r->gerr_body, r->gerr_t, r->gerr_factor, r->gerr_scale, r->gerr_vel);
	/* the scheme's own lines (tangent_newmark's step bound, where the ODE
	 * schemes' Jacobians came from) */
	for (const char *l = r->notes, *e; *l; l = e + 1) {
		e = strchr(l, '\n');
		if (!e)
			e = l + strlen(l) - 1;
		fprintf(stderr, "mbsim: %.*s\n", (int)(e - l + (e[0] != '\n')), l);
	}
}

/* A run stopped while its deck was read or built still leaves a file at
 * out that opens and says so, with the deck's text (read again: the
 * loader has freed its copy). */
static void interrupted_file(const char *deck, const char *out, const char *why)
{
	char *text = NULL, err[600];
	size_t len = 0;
	FILE *f = fopen(deck, "rb");
	if (f) {
		char buf[65536];
		size_t k;
		while ((k = fread(buf, 1, sizeof buf, f)) > 0) {
			text = xrealloc(text, len + k + 1);
			memcpy(text + len, buf, k);
			len += k;
		}
		fclose(f);
	}
	if (text)
		text[len] = 0;
	if (strncmp(why, "interrupted ", 12) == 0)
		why += 12;	/* "interrupted: during set-up (while building ...)" */
	if (output_interrupted(out, text, why[0] ? why : "loading the deck", err, sizeof err))
		fprintf(stderr, "mbsim: error: %s\n", err);
	free(text);
}

/* run --xdmf: the FILE.xdmf of an earlier run names the old file's
 * samples; it goes before the new file replaces the old.  0, or -1 after
 * the message. */
static int remove_xdmf(const char *out)
{
	char *x = xdmf_path(out);
	int rc = unlink(x) == 0 || errno == ENOENT ? 0 : -1;
	if (rc)
		cli_usage_error(USAGE_RUN, "cannot remove '%s': %s", x, strerror(errno));
	free(x);
	return rc;
}

/* --restart: the checkpoint (restart.c), into a file that is not the
 * one it comes from (which the run would replace first).  0, or the
 * exit status after the message. */
static int restart_open(const struct run_opts *ro, const char *out, const struct model *m,
			const struct sim_options *o, struct cli_restart *rs)
{
	int rc = cli_restart_read(ro->restart, m, o, rs);
	if (rc)
		return rc;
	char *a = realpath(out, NULL), *b = realpath(rs->file, NULL);
	int same = a && b && strcmp(a, b) == 0;
	free(a);
	free(b);
	if (same) {
		cli_usage_error(USAGE_RUN, "the output '%s' is the file --restart reads: give "
				"the restarted run another -o", out);
		cli_restart_free(rs);
		return EXIT_USAGE;
	}
	return 0;
}

int cmd_run(int argc, char **argv)
{
	/* first: a large deck's set-up takes seconds, and SIGINT or SIGTERM
	 * at any moment must end it with exit 1 and a file (issue 17) */
	volatile sig_atomic_t *stop = cli_catch_signals();
	struct run_opts ro;
	int rc = parse(argc, argv, &ro);
	if (rc) {
		cli_sets_free(ro.sets, ro.nsets);
		return rc > 0 ? EXIT_OK : EXIT_USAGE;
	}
	char *out = ro.out ? xstrdup(ro.out) : default_output(ro.deck);
	struct cli_out_check oc;
	if (cli_check_output_begin(USAGE_RUN, ro.deck, out, ro.force, &oc)) {
		free(out);
		cli_sets_free(ro.sets, ro.nsets);
		return EXIT_USAGE;
	}
	struct deck *dk = NULL;
	struct model *m = NULL;
	struct sim_options o;
	char why[600];
	rc = cli_load_why(ro.deck, ro.sets, ro.nsets, &dk, &m, &o, why, sizeof why);
	/* the output refused (a usage error, exit 64, as when the deck is not
	 * read) or its companion not removable: nothing written */
	if (cli_check_output_end(&oc) || (ro.xdmf && remove_xdmf(out))) {
		if (rc == 0) {
			model_free(&m);
			deck_free(&dk);
		}
		free(out);
		cli_sets_free(ro.sets, ro.nsets);
		return EXIT_USAGE;
	}
	if (rc == EXIT_SIM && *stop)
		interrupted_file(ro.deck, out, why);
	if (rc) {
		free(out);
		cli_sets_free(ro.sets, ro.nsets);
		return rc;
	}
	if (ro.from_static && cli_static_model(m, o.t0, ro.json, ro.mode, ro.amp)) {
		free(out);
		cli_sets_free(ro.sets, ro.nsets);
		model_free(&m);
		deck_free(&dk);
		return EXIT_SIM;
	}
	struct cli_restart rs = { 0 };
	if (ro.restart && (rc = restart_open(&ro, out, m, &o, &rs))) {
		free(out);
		cli_sets_free(ro.sets, ro.nsets);
		model_free(&m);
		deck_free(&dk);
		return rc;
	}
	char *cmdline = cli_join_args(argc, argv);
	char *settings = cli_join_sets(ro.sets, ro.nsets);
	struct sim_args a = { m, &o, out, deck_text(dk), cmdline,
			      !ro.quiet && !ro.json && isatty(2), stop, NULL, NULL, settings, 0,
			      rs.v, rs.n, rs.file, rs.t, NULL, NULL };
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
		if (!ro.quiet && !ro.json && r.redundant)
			fprintf(stderr, "mbsim: note: %d redundant constraint row%s dropped (multiplier "
				"0): %s\n", r.redundant, r.redundant > 1 ? "s" : "", r.redundant_rows);
		if (!ro.quiet && !ro.json && m->ncons > 0 && strcmp(o.method, "newmark") == 0 &&
		    o.nm_gamma == 0.5)
			/* issue 27, finding 5: undamped, their error at a step keeps
			 * the size the start gave it however small h is (the spherical
			 * top: 122 N at h = 2.5e-4 and 1.25e-4 beside a largest
			 * reaction of 46 N; the mean of two steps 0.27 and 0.13 N) */
			fprintf(stderr, "mbsim: note: newmark with gamma = 1/2 does not damp its "
				"multipliers: /joints/reaction_* and /drivers/effort oscillate from step "
				"to step and do not converge as the step shrinks (their mean over two "
				"steps does); positions and velocities converge.  gamma > 1/2, "
				"tangent_newmark, hht or genalpha give converging reactions "
				"(mbsim-deck(5), newmark)\n");
		if (!ro.quiet && !ro.json && r.singular_steps)
			fprintf(stderr, "mbsim: note: %ld step%s near singular positions taken again "
				"with nearly dependent constraint rows dropped\n", r.singular_steps,
				r.singular_steps > 1 ? "s" : "");
		if (st != SIM_COMPLETE && !ro.json)
			fprintf(stderr, "mbsim: error: %s\n", r.message);
		summary(&ro, out, &o, &r);
	}
	diag_release(&d);
	if (ro.xdmf && d.nerr == 0 && access(out, F_OK) == 0) {
		/* at the end, from the file as closed: only samples it holds */
		char info[1200], err[600];
		if (xdmf_export(out, 0, info, sizeof info, err, sizeof err)) {
			fprintf(stderr, "mbsim: error: --xdmf: %s\n", err);
			st = st == SIM_COMPLETE ? SIM_FAILED : st;
		} else if (!ro.quiet && !ro.json) {
			fprintf(stderr, "mbsim: %s\n", info);
		}
	}
	free(out);
	free(cmdline);
	free(settings);
	cli_restart_free(&rs);
	cli_sets_free(ro.sets, ro.nsets);
	model_free(&m);
	deck_free(&dk);
	return st == SIM_COMPLETE ? EXIT_OK : r.refused ? EXIT_DECK : EXIT_SIM;
}
