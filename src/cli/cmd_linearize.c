/* cmd_linearize.c - mbsim linearize: the state-space matrices A, B, C, D
 * of a deck linearized at its initial state, at the state a run reaches
 * (--at) or at its static equilibrium (--from-static), in the partitioned
 * minimal coordinates of sim/statespace.h; printed, as JSON, and written
 * to HDF5 with -o (man/mbsim-linearize.1). */
#include "cli.h"
#include "usage.h"
#include "../deck/deck.h"
#include "../io/h5.h"
#include "../sim/linearize.h"
#include "../sim/sim.h"
#include "../sim/statespace.h"
#include "../sim/statics.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../util/xalloc.h"

struct lin_opts {
	const char *deck, *out;
	char **sets;
	int nsets, json, force, at, from_static;
	double t;		/* --at or --time; NAN when absent */
};

/* What the linearization gave: the state-space system and its names */
struct lin_result {
	int done, rc;
	double t;
	struct statespace L;
	char **xname;		/* nx state names */
	char msg[256];
};

static void compute(void *ctx, struct ra *s, const struct ra_state *x)
{
	struct lin_result *R = ctx;
	R->done = 1;
	R->t = x->t;
	R->rc = ss_compute(s, x, x->t, &R->L, R->msg, sizeof R->msg);
	if (R->rc == 0) {
		R->xname = xcalloc((size_t)R->L.nx + 1, sizeof(char *));
		for (int k = 0; k < R->L.nx; k++) {
			char buf[300];
			ss_state_name(s->m, &R->L, k, buf, sizeof buf);
			R->xname[k] = xstrdup(buf);
		}
	}
}

static void result_release(struct lin_result *R)
{
	for (int k = 0; R->xname && k < R->L.nx; k++)
		free(R->xname[k]);
	free(R->xname);
	ss_release(&R->L);
}

static int parse(int argc, char **argv, struct lin_opts *lo)
{
	memset(lo, 0, sizeof(*lo));
	lo->t = NAN;
	lo->sets = xcalloc((size_t)argc + 1, sizeof(char *));
	int time = 0;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *v;
		int err = 0, tk;
		if ((v = cli_optval(argc, argv, &i, "-o", USAGE_LINEARIZE, &err)) ||
		    (v = cli_optval(argc, argv, &i, "--output", USAGE_LINEARIZE, &err))) {
			lo->out = v;
		} else if (cli_setopt(argc, argv, &i, USAGE_LINEARIZE, &err, lo->sets, &lo->nsets)) {
		} else if ((tk = cli_time_opt(argc, argv, &i, USAGE_LINEARIZE, &lo->t, &lo->at, &time))) {
			if (tk < 0)
				return -1;
		} else if (err) {
			return -1;
		} else if (strcmp(a, "--from-static") == 0) {
			lo->from_static = 1;
		} else if (strcmp(a, "--json") == 0) {
			lo->json = 1;
		} else if (strcmp(a, "--force") == 0) {
			lo->force = 1;
		} else if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
			printf("usage: %s", USAGE_LINEARIZE);
			return 1;
		} else if (a[0] == '-' && a[1]) {
			static const char *const opts[] = { "-o", "--output", "--set", "--unset", "--time",
							    "--at", "--from-static", "--force", "--json",
							    "--help", "-h", NULL };
			cli_usage_error(USAGE_LINEARIZE, "unknown option '%s'%s", a, cli_suggest(a, opts));
			return -1;
		} else if (!lo->deck) {
			lo->deck = a;
		} else {
			cli_usage_error(USAGE_LINEARIZE, "more than one deck ('%s' and '%s')", lo->deck, a);
			return -1;
		}
	}
	if (!lo->deck) {
		cli_usage_error(USAGE_LINEARIZE, "no deck given");
		return -1;
	}
	if (lo->at && lo->from_static) {
		cli_usage_error(USAGE_LINEARIZE, "--at and --from-static exclude each other");
		return -1;
	}
	if (time && !lo->from_static) {
		cli_usage_error(USAGE_LINEARIZE, "--time sets the time of --from-static's "
				"equilibrium; the state of a run at T is --at T");
		return -1;
	}
	return 0;
}

static const char *state_kind(const struct lin_opts *lo)
{
	return lo->from_static ? "static_equilibrium" : lo->at ? "run" : "initial";
}

/* a rows x cols row-major matrix, as text rows */
static void print_matrix(const char *name, const double *X, int rows, int cols)
{
	printf("\n%s (%d x %d)%s\n", name, rows, cols, rows && cols ? ":" : "");
	for (int i = 0; i < rows && cols; i++) {
		for (int j = 0; j < cols; j++)
			printf(" %15.8g", X[(size_t)cols * i + j]);
		printf("\n");
	}
}

static void print_text(const struct model *m, const struct lin_result *R,
		       const struct lin_opts *lo)
{
	const struct statespace *L = &R->L;
	printf("linearized at the %s state, t = %.15g: %d state%s (%d independent coordinate%s "
	       "and their rates), %d input%s, %d output%s\n",
	       lo->from_static ? "static equilibrium" : lo->at ? "run's" : "initial", R->t, L->nx,
	       L->nx == 1 ? "" : "s", L->d, L->d == 1 ? "" : "s", L->nu, L->nu == 1 ? "" : "s",
	       L->nz, L->nz == 1 ? "" : "s");
	printf("states: ");
	for (int k = 0; k < L->nx; k++)
		printf("%s%s", k ? ", " : "", R->xname[k]);
	printf("\ninputs: ");
	for (int k = 0; k < L->nu; k++)
		printf("%s%s", k ? ", " : "", m->forces[L->input[k]].name);
	printf("%s\noutputs: ", L->nu ? "" : "(none)");
	for (int k = 0; k < L->nz; k++)
		printf("%s%s", k ? ", " : "", L->measures ? m->measures[k].name : R->xname[k]);
	printf("\n");
	print_matrix("A", L->A, L->nx, L->nx);
	print_matrix("B", L->B, L->nx, L->nu);
	print_matrix("C", L->C, L->nz, L->nx);
	print_matrix("D", L->D, L->nz, L->nu);
}

static void json_names(const char *key, const char *const *names, int n)
{
	printf(", \"%s\": [", key);
	for (int k = 0; k < n; k++) {
		printf("%s", k ? ", " : "");
		cli_json_str(names[k]);
	}
	printf("]");
}

static void json_matrix(const char *key, const double *X, int rows, int cols)
{
	printf(", \"%s\": [", key);
	for (int i = 0; i < rows; i++) {
		printf("%s[", i ? ", " : "");
		for (int j = 0; j < cols; j++) {
			printf("%s", j ? ", " : "");
			cli_json_num(X[(size_t)cols * i + j]);
		}
		printf("]");
	}
	printf("]");
}

/* the names of L's inputs and outputs (pointers into the model; malloc'd
 * arrays) */
static void io_names(const struct model *m, const struct lin_result *R, const char ***un,
		     const char ***zn)
{
	const struct statespace *L = &R->L;
	*un = xcalloc((size_t)L->nu + 1, sizeof(char *));
	*zn = xcalloc((size_t)L->nz + 1, sizeof(char *));
	for (int k = 0; k < L->nu; k++)
		(*un)[k] = m->forces[L->input[k]].name;
	for (int k = 0; k < L->nz; k++)
		(*zn)[k] = L->measures ? m->measures[k].name : R->xname[k];
}

static void print_json(const struct model *m, const struct lin_result *R,
		       const struct lin_opts *lo, const char *out)
{
	const struct statespace *L = &R->L;
	const char **un, **zn;
	io_names(m, R, &un, &zn);
	printf("{\"status\": \"ok\", \"state\": \"%s\", \"time\": ", state_kind(lo));
	cli_json_num(R->t);
	printf(", \"coordinates\": \"partitioned\", \"outputs_are\": \"%s\"",
	       L->measures ? "measures" : "states");
	json_names("states", (const char *const *)R->xname, L->nx);
	json_names("inputs", un, L->nu);
	json_names("outputs", zn, L->nz);
	json_matrix("A", L->A, L->nx, L->nx);
	json_matrix("B", L->B, L->nx, L->nu);
	json_matrix("C", L->C, L->nz, L->nx);
	json_matrix("D", L->D, L->nz, L->nu);
	printf(", \"output\": ");
	cli_json_str(out ? out : "");
	printf("}\n");
	free(un);
	free(zn);
}

/* The file of man/mbsim-output.5, LINEARIZATION FILES.  0, or -1 with a
 * message in err. */
static int write_h5(const char *path, const struct model *m, const struct lin_result *R,
		    const struct lin_opts *lo, const char *deck_text, const char *cmdline,
		    const char *method, char *err, size_t n)
{
	const struct statespace *L = &R->L;
	struct h5_opts opt = { 1e9, 0, 1, 0 };
	struct h5out *h = h5_create(path, &opt, err, n);
	if (!h)
		return -1;
	const char **un, **zn;
	io_names(m, R, &un, &zn);
	h5_attr_int(h, "/", "layout_version", 1);
	h5_attr_str(h, "/", "analysis", "linearize");
	h5_attr_str(h, "/", "state", state_kind(lo));
	h5_attr_num(h, "/", "time", R->t);
	h5_attr_str(h, "/", "coordinates", "partitioned");
	h5_attr_str(h, "/", "outputs_are", L->measures ? "measures" : "states");
	if (!lo->from_static)
		h5_attr_str(h, "/", "integrator", method);
	h5_attr_str(h, "/", "command_line", cmdline);
	if (deck_text)
		h5_text(h, "/deck", deck_text);
	h5_names(h, "/states", (const char *const *)R->xname, L->nx);
	h5_names(h, "/inputs", un, L->nu);
	h5_names(h, "/outputs", zn, L->nz);
	/* 2-D always (a column of one is nx x 1); a matrix with no column is
	 * not written */
	if (L->nx > 0) {
		h5_matrix(h, "/A", H5_DOUBLE, L->A, L->nx, L->nx, 0);
		h5_matrix(h, "/C", H5_DOUBLE, L->C, L->nz, L->nx, 0);
	}
	if (L->nu > 0) {
		if (L->nx > 0)
			h5_matrix(h, "/B", H5_DOUBLE, L->B, L->nx, L->nu, 0);
		h5_matrix(h, "/D", H5_DOUBLE, L->D, L->nz, L->nu, 0);
	}
	free(un);
	free(zn);
	return h5_close(&h, "complete", err, n) ? -1 : 0;
}

int cmd_linearize(int argc, char **argv)
{
	struct lin_opts lo;
	int rc = parse(argc, argv, &lo);
	if (rc) {
		cli_sets_free(lo.sets, lo.nsets);
		return rc > 0 ? EXIT_OK : EXIT_USAGE;
	}
	if (lo.out && cli_check_output(USAGE_LINEARIZE, lo.deck, lo.out, lo.force)) {
		cli_sets_free(lo.sets, lo.nsets);
		return EXIT_USAGE;
	}
	struct deck *dk = NULL;
	struct model *m = NULL;
	struct sim_options o;
	/* the equilibrium steps nothing; the initial state and --at take the
	 * run's set-up */
	rc = lo.from_static ? cli_load_statics(lo.deck, lo.sets, lo.nsets, &dk, &m, &o) :
			      cli_load(lo.deck, lo.sets, lo.nsets, &dk, &m, &o);
	cli_sets_free(lo.sets, lo.nsets);
	if (!rc && ((rc = cli_refuse_contact(m)) != 0 || (rc = cli_refuse_integral(m)) != 0)) {
		model_free(&m);
		deck_free(&dk);
	}
	if (rc)
		return rc;
	struct lin_result R;
	memset(&R, 0, sizeof R);
	char *cmdline = cli_join_args(argc, argv);
	double t = isnan(lo.t) ? o.t0 : lo.t;
	rc = EXIT_SIM;
	if (lo.at && !(t > o.t0)) {
		cli_usage_error(USAGE_LINEARIZE, "--at %g is not after time.start = %g", t, o.t0);
		rc = EXIT_USAGE;
	} else if (lo.from_static) {
		struct ra *s = ra_new(m);
		struct ra_state x;
		ra_state_init(s, &x);
		if (cli_static_solve(s, &x, t, lo.json, NULL, NULL) == 0) {
			x.t = t;
			compute(&R, s, &x);
			rc = 0;
		}
		ra_state_release(&x);
		ra_free(&s);
	} else {
		rc = cli_run_to(m, o, t, !lo.at, compute, &R, lo.json, cmdline);
	}
	if (rc == 0 && (!R.done || R.rc)) {
		const char *why = R.done ? R.msg : "the run ended before the state was reached";
		if (lo.json) {
			printf("{\"status\": \"failed\", \"message\": ");
			cli_json_str(why);
			printf("}\n");
		}
		fprintf(stderr, "mbsim: error: %s\n", why);
		rc = EXIT_SIM;
	} else if (rc == 0) {
		char err[600];
		if (lo.out && write_h5(lo.out, m, &R, &lo, deck_text(dk), cmdline, o.method, err,
				       sizeof err)) {
			fprintf(stderr, "mbsim: error: %s\n", err);
			rc = EXIT_SIM;
		}
		if (lo.json)
			print_json(m, &R, &lo, rc == 0 ? lo.out : NULL);
		else
			print_text(m, &R, &lo);
	}
	result_release(&R);
	free(cmdline);
	model_free(&m);
	deck_free(&dk);
	return rc;
}
