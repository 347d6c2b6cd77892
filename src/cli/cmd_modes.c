/* cmd_modes.c - mbsim modes: natural frequencies and damping ratios of the
 * linearized constrained system at the static equilibrium of a deck
 * (sim/statics.h) or at the state a run of it reaches at time T (--at,
 * sim/sim.h), by sim/linearize.h; printed, and written to HDF5 with -o. */
#include "cli.h"
#include "usage.h"
#include "../deck/deck.h"
#include "../io/h5.h"
#include "../io/xdmf.h"
#include "../sim/buckling.h"
#include "../sim/linearize.h"
#include "../sim/output.h"
#include "../sim/sim.h"
#include "../sim/statics.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../util/xalloc.h"

/* The three conditionally stable Newmark members of seed 002 §2 with
 * gamma = 1/2 (their step bounds: cli_newmark_hmax). */
static const struct {
	const char *name;
	double beta;
} newmark[] = {
	{ "central_differences", 0.0 },
	{ "linear_acceleration", 1.0 / 6 },
	{ "fox_goodwin", 1.0 / 12 },
};
#define NNEWMARK (int)(sizeof newmark / sizeof newmark[0])

static double hmax(double fmax, double beta)
{
	return cli_newmark_hmax(6.283185307179586476925286766559 * fmax, beta, 0.5);
}


/* What is linearized: the static equilibrium at time t, or the state of a
 * run at t (at), with the bodies' state copied for the file */
struct where {
	int at;			/* 1: the state of a run (--at) */
	double t;
	double *r, *A, *v, *w;	/* 3, 9, 3, 3 per body */
	int done;		/* the run reached t and modes_compute was called */
	int rc;			/* its return */
	struct modes mo;
	char msg[256];
};

static void keep_state(struct where *wh, const struct ra *s, const struct ra_state *x)
{
	int nb = s->nb;
	wh->r = memcpy(xmalloc(3 * (size_t)nb * sizeof(double) + 1), x->r, 3 * (size_t)nb * sizeof(double));
	wh->A = memcpy(xmalloc(9 * (size_t)nb * sizeof(double) + 1), x->A, 9 * (size_t)nb * sizeof(double));
	wh->v = memcpy(xmalloc(3 * (size_t)nb * sizeof(double) + 1), x->v, 3 * (size_t)nb * sizeof(double));
	wh->w = memcpy(xmalloc(3 * (size_t)nb * sizeof(double) + 1), x->w, 3 * (size_t)nb * sizeof(double));
}

static void where_release(struct where *wh)
{
	free(wh->r);
	free(wh->A);
	free(wh->v);
	free(wh->w);
	modes_release(&wh->mo);
}

/* sim_args.at_end: linearize at the final state of the run */
static void at_end(void *ctx, struct ra *s, const struct ra_state *x)
{
	struct where *wh = ctx;
	wh->done = 1;
	wh->t = x->t;
	keep_state(wh, s, x);
	wh->rc = modes_compute(s, x, x->t, &wh->mo, wh->msg, sizeof wh->msg);
}

static void print_text(const struct modes *mo, const struct where *wh)
{
	if (wh->at)
		printf("%d degree%s of freedom at the state of the run at t = %.15g; %s%s\n",
		       mo->ndof, mo->ndof == 1 ? "" : "s", wh->t, mo->damped ? "damped" : "undamped",
		       mo->gyroscopic ? ", gyroscopic (first-order eigenproblem)" :
		       mo->damped ? " (first-order eigenproblem)" : "");
	else
		printf("%d degree%s of freedom at the static equilibrium; %s\n", mo->ndof,
		       mo->ndof == 1 ? "" : "s",
		       mo->damped ? "damped (first-order eigenproblem)" : "undamped");
	if (mo->nmodes == 0)
		return;
	printf("\n%4s %22s %22s %14s\n", "mode", "frequency [Hz]", "damped freq. [Hz]",
	       "damping ratio");
	for (int i = 0; i < mo->nmodes; i++) {
		const struct mode *e = &mo->m[i];
		printf("%4d %22.15g %22.15g %14.9g%s\n", i + 1, e->freq, e->damped, e->zeta,
		       e->rigid ? "   (free motion)" : e->zeta < 0 ? "   (unstable)" : "");
	}
	if (mo->fmax > 0) {
		printf("\nlargest frequency %.15g Hz: stable step (eq. 11 of doi:10.1007/s11012-021-01433-0, gamma = 1/2)\n",
		       mo->fmax);
		for (int k = 0; k < NNEWMARK; k++)
			printf("  %-20s h <= %.6g s\n", newmark[k].name, hmax(mo->fmax, newmark[k].beta));
	}
}

static void print_json(const struct modes *mo, const struct where *wh, const char *out)
{
	printf("{\"status\": \"ok\", \"state\": \"%s\", \"time\": ",
	       wh->at ? "run" : "static_equilibrium");
	cli_json_num(wh->t);
	printf(", \"dof\": %d, \"damped\": %s, \"gyroscopic\": %s, \"modes\": [", mo->ndof,
	       mo->damped ? "true" : "false", mo->gyroscopic ? "true" : "false");
	for (int i = 0; i < mo->nmodes; i++) {
		const struct mode *e = &mo->m[i];
		printf("%s{\"frequency\": ", i ? ", " : "");
		cli_json_num(e->freq);
		printf(", \"damped_frequency\": ");
		cli_json_num(e->damped);
		printf(", \"damping_ratio\": ");
		cli_json_num(e->zeta);
		printf(", \"eigenvalue\": [");
		cli_json_num(e->re);
		printf(", ");
		cli_json_num(e->im);
		printf("], \"free\": %s}", e->rigid ? "true" : "false");
	}
	printf("], \"max_frequency\": ");
	cli_json_num(mo->fmax);
	printf(", \"stable_step\": {");
	for (int k = 0; k < NNEWMARK; k++) {
		printf("%s\"%s\": ", k ? ", " : "", newmark[k].name);
		cli_json_num(mo->fmax > 0 ? hmax(mo->fmax, newmark[k].beta) : INFINITY);
	}
	printf("}, \"output\": ");
	cli_json_str(out ? out : "");
	printf("}\n");
}

/* /state (the state linearized at) and /shapes of a modes file */
static void write_state(struct h5out *h, const struct model *m, const struct where *wh)
{
	int nb = m->nbodies;
	const char **names = xcalloc((size_t)nb + 1, sizeof(char *));
	for (int b = 0; b < nb; b++)
		names[b] = m->bodies[b].name;
	h5_names(h, "/state/bodies", names, nb);
	free(names);
	int sp = h5_series(h, "/state/position", nb, 3, H5_DOUBLE, "m", "body origin, global");
	int sr = h5_series(h, "/state/rotation", nb, 9, H5_DOUBLE, "1",
			   "rotation matrix A (body to global), row by row");
	int sv = h5_series(h, "/state/velocity", nb, 3, H5_DOUBLE, "m/s", "global");
	int sw = h5_series(h, "/state/angular_velocity", nb, 3, H5_DOUBLE, "rad/s", "body frame");
	h5_row(h, sp, wh->r);
	h5_row(h, sr, wh->A);
	h5_row(h, sv, wh->v);
	h5_row(h, sw, wh->w);
	output_shapes(h, m);	/* what `export --xdmf` draws the modes with */
}

/* The modes file (man/mbsim-output.5, "MODES FILES"): one row per mode
 * under /modes, the state linearized at under /state.  0, or -1 with a
 * message in err. */
static int write_h5(const char *path, const struct model *m, const struct modes *mo,
		    const struct where *wh, const char *deck_text, const char *cmdline,
		    const char *method, char *err, size_t n)
{
	struct h5_opts opt = { 1e9, 0, mo->nmodes, 0 };	/* written at close */
	struct h5out *h = h5_create(path, &opt, err, n);
	if (!h)
		return -1;
	h5_attr_int(h, "/", "layout_version", 1);
	h5_attr_str(h, "/", "analysis", "modes");
	h5_attr_str(h, "/", "state", wh->at ? "run" : "static_equilibrium");
	h5_attr_num(h, "/", "time", wh->t);
	h5_attr_int(h, "/", "dof", mo->ndof);
	h5_attr_int(h, "/", "damped", mo->damped);
	h5_attr_int(h, "/", "gyroscopic", mo->gyroscopic);
	h5_attr_num(h, "/", "max_frequency", mo->fmax);
	if (wh->at)
		h5_attr_str(h, "/", "integrator", method);
	h5_attr_str(h, "/", "command_line", cmdline);
	if (deck_text)
		h5_text(h, "/deck", deck_text);
	int f = h5_series(h, "/modes/frequency", 0, 0, H5_DOUBLE, "Hz",
			  "undamped natural frequency |s| / 2 pi");
	int fd = h5_series(h, "/modes/damped_frequency", 0, 0, H5_DOUBLE, "Hz",
			   "damped frequency Im s / 2 pi");
	int z = h5_series(h, "/modes/damping_ratio", 0, 0, H5_DOUBLE, "1", "-Re s / |s|");
	int ev = h5_series(h, "/modes/eigenvalue", 2, 0, H5_DOUBLE, "1/s",
			   "eigenvalue s: real, imaginary part");
	int fr = h5_series(h, "/modes/free", 0, 0, H5_INT, "1",
			   "1: a free motion (zero stiffness)");
	int sh = mo->ncoord > 0 ?
		 h5_series(h, "/modes/shape", mo->ncoord, 2, H5_DOUBLE, "1",
			   "eigenvector dq = N y, 6 per body (dr global, dth body frame): "
			   "re, im, 1 at its largest entry") : -1;
	for (int i = 0; i < mo->nmodes; i++) {
		const struct mode *e = &mo->m[i];
		double re_im[2] = { e->re, e->im }, free_ = e->rigid;
		h5_row(h, f, &e->freq);
		h5_row(h, fd, &e->damped);
		h5_row(h, z, &e->zeta);
		h5_row(h, ev, re_im);
		h5_row(h, fr, &free_);
		if (sh >= 0)
			h5_row(h, sh, e->shape);
	}
	write_state(h, m, wh);
	return h5_close(&h, "complete", err, n) ? -1 : 0;
}

struct modes_opts {
	const char *deck, *out;
	char **sets;
	int nsets, json, force, at, xdmf, buckling;
	int count;		/* --count: the smallest load factors kept (10) */
	double t;
};

static int parse(int argc, char **argv, struct modes_opts *mo)
{
	memset(mo, 0, sizeof(*mo));
	mo->t = NAN;
	mo->sets = xcalloc((size_t)argc + 1, sizeof(char *));
	int time = 0;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *v;
		int err = 0, tk;
		if ((v = cli_optval(argc, argv, &i, "-o", USAGE_MODES, &err)) ||
		    (v = cli_optval(argc, argv, &i, "--output", USAGE_MODES, &err))) {
			mo->out = v;
		} else if (cli_setopt(argc, argv, &i, USAGE_MODES, &err, mo->sets, &mo->nsets)) {
		} else if ((tk = cli_time_opt(argc, argv, &i, USAGE_MODES, &mo->t, &mo->at, &time))) {
			if (tk < 0)
				return -1;
		} else if (err) {
			return -1;
		} else if (strcmp(a, "--json") == 0) {
			mo->json = 1;
		} else if (strcmp(a, "--force") == 0) {
			mo->force = 1;
		} else if (strcmp(a, "--xdmf") == 0) {
			mo->xdmf = 1;
		} else if (strcmp(a, "--buckling") == 0) {
			mo->buckling = 1;
		} else if ((v = cli_optval(argc, argv, &i, "--count", USAGE_MODES, &err))) {
			char *end;
			long c = strtol(v, &end, 10);
			if (!*v || *end || c < 1 || c > 1000000) {
				cli_usage_error(USAGE_MODES, "--count must be a whole number from 1, "
						"got '%s'", v);
				return -1;
			}
			mo->count = (int)c;
		} else if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
			printf("usage: %s", USAGE_MODES);
			return 1;
		} else if (a[0] == '-' && a[1]) {
			static const char *const opts[] = { "-o", "--output", "--set", "--unset", "--time",
							    "--at", "--force", "--json", "--xdmf",
							    "--buckling", "--count", "--help", "-h",
							    NULL };
			cli_usage_error(USAGE_MODES, "unknown option '%s'%s", a, cli_suggest(a, opts));
			return -1;
		} else if (!mo->deck) {
			mo->deck = a;
		} else {
			cli_usage_error(USAGE_MODES, "more than one deck ('%s' and '%s')", mo->deck, a);
			return -1;
		}
	}
	if (!mo->deck) {
		cli_usage_error(USAGE_MODES, "no deck given");
		return -1;
	}
	if (mo->count && !mo->buckling) {
		cli_usage_error(USAGE_MODES, "--count is an option of --buckling");
		return -1;
	}
	if (!mo->count)
		mo->count = 10;
	if (mo->buckling && mo->at) {
		cli_usage_error(USAGE_MODES, "--buckling is about the unloaded equilibrium, not "
				"the state of a run: --at excludes it (--time T sets the time)");
		return -1;
	}
	if (mo->xdmf && !mo->out) {
		cli_usage_error(USAGE_MODES, "--xdmf writes beside the file of -o: give -o FILE.h5");
		return -1;
	}
	return 0;
}

/* The mode shapes as export --xdmf draws them: 0 or EXIT_SIM */
static int modes_xdmf(const struct modes_opts *mop)
{
	char info[1200], err[600];
	if (xdmf_export(mop->out, 0, info, sizeof info, err, sizeof err)) {
		fprintf(stderr, "mbsim: error: --xdmf: %s\n", err);
		return EXIT_SIM;
	}
	if (!mop->json)
		fprintf(stderr, "mbsim: %s\n", info);
	return 0;
}

/* --buckling: the load factors of buckling.h, printed, and written as a
 * modes file (analysis "buckling": /modes/load_factor and /modes/shape
 * beside /state and /shapes) */
static void buckling_text(const struct buckling *b, double t)
{
	printf("%d degree%s of freedom at the unloaded equilibrium (t = %.15g); ", b->ndof,
	       b->ndof == 1 ? "" : "s", t);
	if (b->n)
		printf("the %d smallest positive buckling load factor%s of the deck's loads\n", b->n,
		       b->n == 1 ? "" : "s");
	else
		printf("no positive buckling load factor of the deck's loads\n");
	if (b->n)
		printf("\n%4s %22s\n", "mode", "load factor");
	for (int i = 0; i < b->n; i++)
		printf("%4d %22.15g\n", i + 1, b->mu[i]);
	if (b->noise)
		printf("\n%d more factor%s left out: the round-off of the loads' geometric stiffness "
		       "(finite differences), not buckling loads\n", b->noise, b->noise == 1 ? "" : "s");
}

static void buckling_json(const struct buckling *b, double t, const char *out)
{
	printf("{\"status\": \"ok\", \"analysis\": \"buckling\", \"state\": "
	       "\"unloaded_equilibrium\", \"time\": ");
	cli_json_num(t);
	printf(", \"dof\": %d, \"load_factors\": [", b->ndof);
	for (int i = 0; i < b->n; i++) {
		printf("%s", i ? ", " : "");
		cli_json_num(b->mu[i]);
	}
	printf("], \"noise_factors\": %d, \"output\": ", b->noise);
	cli_json_str(out ? out : "");
	printf("}\n");
}

static int buckling_h5(const char *path, const struct model *m, const struct buckling *b,
		       const struct where *wh, const char *deck_text, const char *cmdline,
		       char *err, size_t n)
{
	struct h5_opts opt = { 1e9, 0, b->n, 0 };	/* written at close */
	struct h5out *h = h5_create(path, &opt, err, n);
	if (!h)
		return -1;
	h5_attr_int(h, "/", "layout_version", 1);
	h5_attr_str(h, "/", "analysis", "buckling");
	h5_attr_str(h, "/", "state", "unloaded_equilibrium");
	h5_attr_num(h, "/", "time", wh->t);
	h5_attr_int(h, "/", "dof", b->ndof);
	h5_attr_str(h, "/", "command_line", cmdline);
	if (deck_text)
		h5_text(h, "/deck", deck_text);
	int f = h5_series(h, "/modes/load_factor", 0, 0, H5_DOUBLE, "1",
			  "buckling load factor mu of the deck's loads");
	int sh = b->ncoord > 0 ?
		 h5_series(h, "/modes/shape", b->ncoord, 2, H5_DOUBLE, "1",
			   "buckling mode dq, 6 per body (dr global, dth body frame): re, im (0), "
			   "1 at its largest entry") : -1;
	for (int i = 0; i < b->n; i++) {
		h5_row(h, f, &b->mu[i]);
		if (sh >= 0)
			h5_row(h, sh, b->shape[i]);
	}
	write_state(h, m, wh);
	return h5_close(&h, "complete", err, n) ? -1 : 0;
}

/* The unloaded equilibrium at wh->t and its buckling load factors; the
 * output as for the modes.  An exit status. */
static int buckling(struct model *m, const struct modes_opts *mop, struct where *wh,
		    const char *deck_text, const char *cmdline)
{
	struct ra *s = ra_new(m);
	struct ra_state x;
	struct statics_options so;
	struct buckling b = { 0 };
	ra_state_init(s, &x);
	statics_options_default(&so);
	so.load_factor = 0;
	int rc = EXIT_SIM;
	char err[600];
	if (!statics_has_loads(m)) {
		fprintf(stderr, "mbsim: error: --buckling: the deck '%s' has no loads (gravity, "
			"force or torque elements) to scale\n", mop->deck);
		if (mop->json)
			printf("{\"status\": \"failed\", \"message\": \"no loads\"}\n");
		rc = EXIT_DECK;
	} else if (cli_static_solve(s, &x, wh->t, mop->json, &so, NULL) == 0) {
		keep_state(wh, s, &x);
		if (buckling_compute(s, &x, wh->t, mop->count, &b, err, sizeof err)) {
			if (mop->json) {
				printf("{\"status\": \"failed\", \"message\": ");
				cli_json_str(err);
				printf("}\n");
			}
			fprintf(stderr, "mbsim: error: --buckling: %s\n", err);
		} else {
			rc = 0;
			if (mop->out && buckling_h5(mop->out, m, &b, wh, deck_text, cmdline, err,
						    sizeof err)) {
				fprintf(stderr, "mbsim: error: %s\n", err);
				rc = EXIT_SIM;
			}
			if (rc == 0 && mop->xdmf)
				rc = modes_xdmf(mop);
			if (mop->json)
				buckling_json(&b, wh->t, rc == 0 ? mop->out : NULL);
			else
				buckling_text(&b, wh->t);
			rc = rc ? rc : EXIT_OK;
		}
	}
	buckling_release(&b);
	ra_state_release(&x);
	ra_free(&s);
	return rc;
}

int cmd_modes(int argc, char **argv)
{
	struct modes_opts mop;
	int rc = parse(argc, argv, &mop);
	if (rc) {
		cli_sets_free(mop.sets, mop.nsets);
		return rc > 0 ? EXIT_OK : EXIT_USAGE;
	}
	if (mop.out && cli_check_output(USAGE_MODES, mop.deck, mop.out, mop.force)) {
		cli_sets_free(mop.sets, mop.nsets);
		return EXIT_USAGE;
	}
	struct deck *dk = NULL;
	struct model *m = NULL;
	struct sim_options o;
	/* --at runs the deck with its integrator; the equilibrium steps nothing */
	rc = mop.at ? cli_load(mop.deck, mop.sets, mop.nsets, &dk, &m, &o) :
		      cli_load_statics(mop.deck, mop.sets, mop.nsets, &dk, &m, &o);
	cli_sets_free(mop.sets, mop.nsets);
	if (!rc && mop.at && (rc = cli_refuse_contact(m)) != 0) {
		model_free(&m);
		deck_free(&dk);
	}
	if (rc)
		return rc;
	struct where wh;
	memset(&wh, 0, sizeof wh);
	wh.at = mop.at;
	wh.t = isnan(mop.t) ? o.t0 : mop.t;
	char *cmdline = cli_join_args(argc, argv);
	rc = EXIT_SIM;
	if (mop.buckling) {
		rc = buckling(m, &mop, &wh, deck_text(dk), cmdline);
		wh.done = 0;
	} else if (wh.at && !(wh.t > o.t0)) {
		cli_usage_error(USAGE_MODES, "--at %g is not after time.start = %g", wh.t, o.t0);
		rc = EXIT_USAGE;
	} else if (wh.at) {
		rc = cli_run_to(m, o, wh.t, 0, at_end, &wh, mop.json, cmdline);
		if (rc == 0 && !wh.done)
			rc = EXIT_SIM;
		if (rc == 0 && wh.rc != 0)
			rc = EXIT_SIM;
	} else {
		struct ra *s = ra_new(m);
		struct ra_state x;
		ra_state_init(s, &x);
		if (cli_static_solve(s, &x, wh.t, mop.json, NULL, NULL) == 0) {
			wh.done = 1;
			keep_state(&wh, s, &x);
			wh.rc = modes_compute(s, &x, wh.t, &wh.mo, wh.msg, sizeof wh.msg);
			rc = wh.rc ? EXIT_SIM : 0;
		}
		ra_state_release(&x);
		ra_free(&s);
	}
	if (wh.done && wh.rc != 0) {
		if (mop.json) {
			printf("{\"status\": \"failed\", \"message\": ");
			cli_json_str(wh.msg);
			printf("}\n");
		}
		fprintf(stderr, "mbsim: error: %s\n", wh.msg);
	} else if (rc == 0 && !mop.buckling) {
		char err[600];
		if (mop.out && write_h5(mop.out, m, &wh.mo, &wh, deck_text(dk), cmdline, o.method,
					err, sizeof err)) {
			fprintf(stderr, "mbsim: error: %s\n", err);
			rc = EXIT_SIM;
		}
		if (rc == 0 && mop.xdmf)
			rc = modes_xdmf(&mop);
		if (mop.json)
			print_json(&wh.mo, &wh, rc == 0 ? mop.out : NULL);
		else
			print_text(&wh.mo, &wh);
		rc = rc ? rc : EXIT_OK;
	}
	where_release(&wh);
	free(cmdline);
	model_free(&m);
	deck_free(&dk);
	return rc;
}
