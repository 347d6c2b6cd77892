/* cmd_converge.c - mbsim converge: observed order of convergence.
 *
 * Runs the deck once per step size through sim_run (the code path of
 * `mbsim run`), each into a temporary HDF5 file, obtains a reference
 * (a finer run, a file, or the kinematic analysis of a fully driven
 * mechanism), and compares chosen datasets at the sample times all of
 * them share.  Error norms (000 §3.1): rms = sqrt(sum (z - z_ref)^2 / n)
 * over the n compared values, and the max norm.  Orders between
 * neighbouring steps log(e_i / e_i+1) / log(h_i / h_i+1); the slope is the
 * least-squares fit of log e against log h over all steps.
 */
#include "cli.h"
#include "usage.h"
#include "../deck/deck.h"
#include "../integ/registry.h"
#include "../io/h5read.h"
#include "../sim/kinematic.h"
#include "../sim/sim.h"
#include "../util/xalloc.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define AUTO_FACTOR 8	/* auto reference: finest step / AUTO_FACTOR */

struct qty {
	char *spec;		/* as given, for messages and output keys */
	char *path;		/* absolute dataset path */
	const char *comp;	/* component word after ':' (cut off path) or NULL */
	int col;		/* selected column, -1 = all (check_quantities) */
	double *rms, *max;	/* per step */
	double slope, max_slope;
	double scale;		/* largest |z_ref| compared */
};

struct copts {
	const char *deck, *ref;
	char **sets, **qspecs;
	int nsets, nq, json, csv, quiet;
	double *h;
	int nh;
	int expect;
	double p, ptol;
};

/* ---- command line ---- */

static int parse_steps(const char *s, struct copts *c)
{
	char *dup = xstrdup(s), *save = NULL;
	int n = 1;
	for (const char *p = s; *p; p++)
		n += *p == ',';
	free(c->h);	/* --steps given again: the last one counts */
	c->h = xcalloc((size_t)n, sizeof(double));
	c->nh = 0;
	for (char *tok = strtok_r(dup, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		char *end;
		errno = 0;
		double v = strtod(tok, &end);
		if (errno || *end || end == tok || !(v > 0) || !isfinite(v)) {
			cli_usage_error(USAGE_CONVERGE, "bad step size '%s' in --steps", tok);
			free(dup);
			return -1;
		}
		c->h[c->nh++] = v;
	}
	free(dup);
	if (c->nh < 2) {
		cli_usage_error(USAGE_CONVERGE, "--steps needs at least two step sizes");
		return -1;
	}
	return 0;
}

static int parse_expect(const char *s, struct copts *c)
{
	char *end;
	c->p = strtod(s, &end);
	c->ptol = 0.1;
	if (end != s && *end == ':')
		c->ptol = strtod(end + 1, &end);
	if (end == s || *end || !(c->ptol >= 0)) {
		cli_usage_error(USAGE_CONVERGE, "bad --expect-order '%s' (want P or P:TOL)", s);
		return -1;
	}
	c->expect = 1;
	return 0;
}

static int parse(int argc, char **argv, struct copts *c)
{
	memset(c, 0, sizeof(*c));
	c->ref = "auto";
	c->sets = xcalloc((size_t)argc + 1, sizeof(char *));
	c->qspecs = xcalloc((size_t)argc + 1, sizeof(char *));
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *v;
		int err = 0;
		if ((v = cli_optval(argc, argv, &i, "--steps", USAGE_CONVERGE, &err))) {
			if (parse_steps(v, c))
				return -1;
		} else if ((v = cli_optval(argc, argv, &i, "--quantity", USAGE_CONVERGE, &err))) {
			c->qspecs[c->nq++] = (char *)v;
		} else if ((v = cli_optval(argc, argv, &i, "--reference", USAGE_CONVERGE, &err))) {
			c->ref = v;
		} else if (cli_setopt(argc, argv, &i, USAGE_CONVERGE, &err, c->sets, &c->nsets)) {
		} else if ((v = cli_optval(argc, argv, &i, "--expect-order", USAGE_CONVERGE, &err))) {
			if (parse_expect(v, c))
				return -1;
		} else if (err) {
			return -1;
		} else if (strcmp(a, "--json") == 0) {
			c->json = 1;
		} else if (strcmp(a, "--csv") == 0) {
			c->csv = 1;
		} else if (strcmp(a, "--quiet") == 0 || strcmp(a, "-q") == 0) {
			c->quiet = 1;
		} else if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
			printf("usage: %s", USAGE_CONVERGE);
			return 1;
		} else if (a[0] == '-' && a[1]) {
			cli_usage_error(USAGE_CONVERGE, "unknown option '%s'", a);
			return -1;
		} else if (!c->deck) {
			c->deck = a;
		} else {
			cli_usage_error(USAGE_CONVERGE, "more than one deck ('%s' and '%s')", c->deck, a);
			return -1;
		}
	}
	if (!c->deck) {
		cli_usage_error(USAGE_CONVERGE, "no deck given");
		return -1;
	}
	if (!c->h) {
		cli_usage_error(USAGE_CONVERGE, "--steps H1,H2,... is required");
		return -1;
	}
	if (c->json && c->csv) {
		cli_usage_error(USAGE_CONVERGE, "--json and --csv exclude each other");
		return -1;
	}
	return 0;
}

static int cmp_desc(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? 1 : x > y ? -1 : 0;
}

/* ---- quantities ---- */

/* Quantity spec: every column of the dataset at path (absolute, taken over). */
static void qty_init(struct qty *q, const char *spec, char *path, int nh)
{
	memset(q, 0, sizeof(*q));
	q->spec = xstrdup(spec);
	q->path = path;
	q->col = -1;
	q->rms = xcalloc((size_t)nh, sizeof(double));
	q->max = xcalloc((size_t)nh, sizeof(double));
}

/* --quantity "bodies/b/position:z" -> path "/bodies/b/position", comp "z".
 * The component is the word after the last ':' when it holds no '/': a
 * ':' in a body or joint name ("bodies/b:1/position") is part of the path. */
static void qty_parse(struct qty *q, const char *spec, int nh)
{
	qty_init(q, spec, cli_abs_path(spec), nh);
	q->comp = cli_comp_split(q->path);
}

static void qty_release(struct qty *q)
{
	free(q->spec);
	free(q->path);
	free(q->rms);
	free(q->max);
}

/* ---- the runs ---- */

struct study {
	struct copts *c;
	struct deck *dk;
	struct model *m;
	struct sim_options o;
	char dir[256];
	char **files;		/* nh runs, then the reference */
	char refdesc[512];
	char *cmdline;
	volatile sig_atomic_t *stop;	/* cli_catch_signals */
};

static int every_for(double h, double S)
{
	double k = floor(S / h + 0.5);
	if (k >= 1 && fabs(k * h - S) <= 1e-9 * S)
		return (int)k;
	return 1;
}

/* Every run samples at the coarsest step c->h[0] (sorted descending), so
 * that all of them share those sample times. */
static int run_one(struct study *st, double h, const char *method, const char *path)
{
	struct sim_options o = st->o;
	o.step = h;
	o.every = every_for(h, st->c->h[0]);
	if (method)
		snprintf(o.method, sizeof o.method, "%s", method);
	struct sim_args a = { st->m, &o, path, deck_text(st->dk), st->cmdline, 0, st->stop,
			      NULL, NULL, NULL, 0, NULL, 0, NULL, 0, NULL, NULL };
	struct sim_result r;
	struct diag d;
	diag_init(&d);
	enum sim_status s = sim_run(&a, &r, &d);
	cli_print_diag(&d);
	int bad = d.nerr;
	diag_release(&d);
	if (bad)
		return -1;
	if (s != SIM_COMPLETE) {
		fprintf(stderr, "mbsim: error: converge: run with h = %g (%s) %s: %s\n", h, o.method,
			s == SIM_INTERRUPTED ? "interrupted" : "failed", r.message);
		return -1;
	}
	if (!st->c->quiet)
		fprintf(stderr, "mbsim: converge: h = %-10g %s, %ld steps in %.2f s\n", h, o.method,
			r.steps, r.wall);
	return 0;
}

/* The kinematic reference at the sample times of the coarsest run. */
static int kinematic_ref(struct study *st, const char *path)
{
	char err[1024];
	struct h5in *f = h5r_open(st->files[0], err, sizeof err);
	struct h5r_data t;
	if (!f || h5r_read_time(f, &t, err, sizeof err)) {
		fprintf(stderr, "mbsim: error: %s\n", err);
		h5r_close(&f);
		return -1;
	}
	h5r_close(&f);
	struct kin_series k;
	double hmin = st->c->h[st->c->nh - 1];
	int rc = kinematic_solve(st->m, st->o.t0, t.v, (int)t.rows, hmin, &k, err, sizeof err);
	h5r_data_release(&t);
	if (rc) {
		fprintf(stderr, "mbsim: error: %s\n", err);
		return -1;
	}
	snprintf(st->refdesc, sizeof st->refdesc,
		 "kinematic analysis (Newton to round-off at each sample; max residuals "
		 "%.1e, %.1e, %.1e)", k.max_res[0], k.max_res[1], k.max_res[2]);
	rc = kinematic_write(st->m, &k, path, err, sizeof err);
	kinematic_release(&k);
	if (rc)
		fprintf(stderr, "mbsim: error: %s\n", err);
	return rc;
}

/* ---- comparison ---- */

struct series_set {
	int nf;			/* runs + reference */
	struct h5in **f;
	struct h5r_data *time;
	long ncommon;
	long **idx;		/* per file: row of each common sample */
};

/* Enough common samples for an order: two at least, since the first is
 * the initial state, the same in every run and the reference (error 0 at
 * any step size: a reference of t0 alone gave every error 0, and every
 * order passed).  A reference that ends before the runs (a killed run)
 * is said.  0, or -1 after the message. */
static int check_common(const struct study *st, const struct series_set *S)
{
	long n = S->ncommon;
	const struct h5r_data *tr = &S->time[S->nf - 1], *t0 = &S->time[0];
	if (n < 2) {
		fprintf(stderr, "mbsim: error: converge: the runs and the reference share %ld sample "
			"time%s (compared within 1e-9 max(1,|t|)), 2 at least needed: the first is the "
			"initial state, exact in every run; the reference (%ld samples, t = %.6g..%.6g) "
			"must contain samples at multiples of %g s\n", n, n == 1 ? "" : "s",
			tr->rows, tr->rows ? tr->v[0] : NAN, tr->rows ? tr->v[tr->rows - 1] : NAN,
			st->c->h[0]);
		return -1;
	}
	double tl = S->time[0].v[S->idx[0][n - 1]];
	if (t0->rows > 0 && tl < t0->v[t0->rows - 1] && !st->c->quiet)
		fprintf(stderr, "mbsim: warning: converge: the reference ends at t = %.6g, before "
			"the runs (t = %.6g): errors measured up to t = %.6g only\n",
			tr->v[tr->rows - 1], t0->v[t0->rows - 1], tl);
	return 0;
}

static int open_all(struct study *st, struct series_set *S)
{
	int nf = st->c->nh + 1;
	char err[1024];
	S->nf = nf;
	S->f = xcalloc((size_t)nf, sizeof(*S->f));
	S->time = xcalloc((size_t)nf, sizeof(*S->time));
	S->idx = xcalloc((size_t)nf, sizeof(long *));
	for (int i = 0; i < nf; i++) {
		S->f[i] = h5r_open(st->files[i], err, sizeof err);
		if (!S->f[i] || h5r_read_time(S->f[i], &S->time[i], err, sizeof err)) {
			fprintf(stderr, "mbsim: error: %s%s\n", err,
				i == nf - 1 ? " (reference)" : "");
			return -1;
		}
	}
	if (h5r_attr_str(S->f[nf - 1], "/", "status", err, sizeof err) == 0 &&
	    strcmp(err, "complete") != 0 && !st->c->quiet)
		fprintf(stderr, "mbsim: warning: reference status is '%s'\n", err);
	S->ncommon = h5r_common_samples(S->time, nf, S->idx);
	return check_common(st, S);
}

static void close_all(struct series_set *S)
{
	for (int i = 0; i < S->nf; i++) {
		h5r_close(&S->f[i]);
		h5r_data_release(&S->time[i]);
		free(S->idx[i]);
	}
	free(S->f);
	free(S->time);
	free(S->idx);
}

/* Errors of quantity q in every run. 0, or -1 (message printed). */
static int measure(struct study *st, struct series_set *S, struct qty *q)
{
	int nf = S->nf;
	char err[1024];
	struct h5r_data *d = xcalloc((size_t)nf, sizeof(*d));
	int rc = -1;
	for (int i = 0; i < nf; i++) {
		if (h5r_read(S->f[i], q->path, &d[i], err, sizeof err)) {
			fprintf(stderr, "mbsim: error: unknown quantity '%s': %s in %s\n", q->spec, err,
				i == nf - 1 ? "the reference" : "the run output");
			goto out;
		}
		/* rows past /time's: a flush the writer did not finish (h5.h) */
		if (d[i].rows < S->time[i].rows || d[i].cols != d[0].cols) {
			fprintf(stderr, "mbsim: error: quantity '%s': dataset shape %ldx%d does not "
				"match /time (%ld rows) or the other files\n", q->spec, d[i].rows,
				d[i].cols, S->time[i].rows);
			goto out;
		}
	}
	/* q->col was checked on run 0 (check_quantities), whose shape every
	 * file has */
	int cols = d[0].cols, quat = cli_is_quat(q->path, cols);
	int c0 = q->col < 0 ? 0 : q->col, c1 = q->col < 0 ? cols : q->col + 1;
	const struct h5r_data *R = &d[nf - 1];
	const long *ir = S->idx[nf - 1];
	for (long j = 0; j < S->ncommon; j++)	/* the largest |z_ref| compared */
		for (int k = c0; k < c1; k++)
			q->scale = fmax(q->scale, fabs(R->v[(size_t)ir[j] * (size_t)cols + k]));
	for (int i = 0; i < nf - 1; i++) {
		double sum = 0.0, mx = 0.0;
		long n = 0;
		for (long j = 0; j < S->ncommon; j++) {
			const double *z = d[i].v + (size_t)S->idx[i][j] * (size_t)cols;
			const double *zr = R->v + (size_t)ir[j] * (size_t)cols;
			for (int k = c0; k < c1; k++) {
				/* q, -q: one rotation (per body: 4 columns each) */
				int q0 = k - k % 4;
				double sg = quat ? cli_quat_sign(z + q0, zr + q0) : 1.0;
				double e = sg * z[k] - zr[k];
				sum += e * e;
				mx = fmax(mx, fabs(e));
				n++;
			}
		}
		q->rms[i] = sqrt(sum / (double)n);
		q->max[i] = mx;
	}
	rc = 0;
out:
	for (int i = 0; i < nf; i++)
		h5r_data_release(&d[i]);
	free(d);
	return rc;
}

static double order(const double *e, const double *h, int i)
{
	if (!(e[i] > 0) || !(e[i + 1] > 0))
		return NAN;
	return log(e[i] / e[i + 1]) / log(h[i] / h[i + 1]);
}

/* Least-squares slope of log e against log h (points with e > 0). */
static double slope(const double *e, const double *h, int n)
{
	double sx = 0, sy = 0, sxx = 0, sxy = 0;
	int m = 0;
	for (int i = 0; i < n; i++) {
		if (!(e[i] > 0))
			continue;
		double x = log(h[i]), y = log(e[i]);
		sx += x;
		sy += y;
		sxx += x * x;
		sxy += x * y;
		m++;
	}
	double den = m * sxx - sx * sx;
	if (m < 2 || den == 0)
		return NAN;
	return (m * sxy - sx * sy) / den;
}

/* Every quantity, in the order h5r_read_order gives for the reference
 * (each block of a series read once); an exit status. */
static int measure_all(struct study *st, struct series_set *S, struct qty *q, int nq)
{
	char **paths = xmalloc(((size_t)nq + 1) * sizeof(char *));
	int *ord = xmalloc(((size_t)nq + 1) * sizeof(int)), rc = 0;
	for (int k = 0; k < nq; k++)
		paths[k] = q[k].path;
	h5r_read_order(S->f[S->nf - 1], paths, nq, ord);
	for (int i = 0; i < nq && !rc; i++) {
		struct qty *x = &q[ord[i]];
		if (measure(st, S, x))
			rc = EXIT_USAGE;
		x->slope = slope(x->rms, st->c->h, st->c->nh);
		x->max_slope = slope(x->max, st->c->h, st->c->nh);
	}
	free(ord);
	free(paths);
	return rc;
}

/* ---- output ---- */

/* One norm's errors e, orders between neighbouring steps and slope as the
 * JSON members PREerrors, PREorders, PREslope. */
static void json_norm(const char *pre, const double *e, double slope, const double *h, int nh)
{
	double *ord = xmalloc((size_t)nh * sizeof(double));
	for (int i = 0; i < nh - 1; i++)
		ord[i] = order(e, h, i);
	printf("\"%serrors\": ", pre);
	cli_json_array(e, nh);
	printf(", \"%sorders\": ", pre);
	cli_json_array(ord, nh - 1);
	printf(", \"%sslope\": ", pre);
	cli_json_num(slope);
	free(ord);
}

static void print_json(const struct study *st, const struct qty *q, int nq, long ncommon)
{
	const struct copts *c = st->c;
	printf("{\"deck\": ");
	cli_json_str(c->deck);
	printf(", \"method\": ");
	cli_json_str(st->o.method);
	printf(", \"steps\": ");
	cli_json_array(c->h, c->nh);
	printf(", \"common_samples\": %ld, \"reference\": ", ncommon);
	cli_json_str(st->refdesc);
	printf(", \"quantities\": {");
	for (int k = 0; k < nq; k++) {
		printf("%s", k ? ", " : "");
		cli_json_str(q[k].spec);
		printf(": {");
		json_norm("", q[k].rms, q[k].slope, c->h, c->nh);
		printf(", ");
		json_norm("max_", q[k].max, q[k].max_slope, c->h, c->nh);
		printf("}");
	}
	printf("}}\n");
}

static void csv_num(double x)
{
	if (isfinite(x))
		printf("%.6g", x);
}

static void print_csv(const struct study *st, const struct qty *q, int nq)
{
	const struct copts *c = st->c;
	printf("quantity,step,rms_error,rms_order,max_error,max_order,rms_slope,max_slope\n");
	for (int k = 0; k < nq; k++)
		for (int i = 0; i < c->nh; i++) {
			printf("%s,%.10g,%.6g,", q[k].spec, c->h[i], q[k].rms[i]);
			if (i)
				csv_num(order(q[k].rms, c->h, i - 1));
			printf(",%.6g,", q[k].max[i]);
			if (i)
				csv_num(order(q[k].max, c->h, i - 1));
			putchar(',');
			csv_num(q[k].slope);
			putchar(',');
			csv_num(q[k].max_slope);
			putchar('\n');
		}
}

static void fmt_order(char *b, size_t n, double x)
{
	if (isfinite(x))
		snprintf(b, n, "%.2f", x);
	else
		snprintf(b, n, "-");
}

static void print_table(const struct study *st, const struct qty *q, int nq, long ncommon)
{
	const struct copts *c = st->c;
	int w = 24;
	for (int k = 0; k < nq; k++)
		if ((int)strlen(q[k].spec) > w)
			w = (int)strlen(q[k].spec);
	printf("deck: %s, method %s, t = %g..%g, compared at %ld common sample times\n",
	       c->deck, st->o.method, st->o.t0, st->o.t_end, ncommon);
	printf("reference: %s\n\n", st->refdesc);
	printf("%-*s  %-10s  %11s  %6s  %11s  %6s\n", w, "quantity", "step", "rms error", "order",
	       "max error", "order");
	for (int k = 0; k < nq; k++) {
		for (int i = 0; i < c->nh; i++) {
			char o1[16] = "", o2[16] = "";
			if (i) {
				fmt_order(o1, sizeof o1, order(q[k].rms, c->h, i - 1));
				fmt_order(o2, sizeof o2, order(q[k].max, c->h, i - 1));
			}
			printf("%-*s  %-10g  %11.4e  %6s  %11.4e  %6s\n", w, i ? "" : q[k].spec,
			       c->h[i], q[k].rms[i], o1, q[k].max[i], o2);
		}
		char s1[16], s2[16];
		fmt_order(s1, sizeof s1, q[k].slope);
		fmt_order(s2, sizeof s2, q[k].max_slope);
		printf("%-*s  %-10s  %11s  %6s  %11s  %6s\n", w, "", "slope", "", s1, "", s2);
	}
}

/* --expect-order: every rms slope within ptol of p.  Quantities whose
 * errors are all at round-off relative to the reference have no order and
 * pass with a note. */
static int check_expect(const struct study *st, const struct qty *q, int nq)
{
	const struct copts *c = st->c;
	/* errors at the level of the integrator's Newton tolerance (or of
	 * round-off) carry no order: constrained coordinates of a fully
	 * driven mechanism are exact to that level at every step size */
	double floor_tol = fmax(1e-12, 10.0 * st->o.tolerance);
	int bad = 0;
	for (int k = 0; k < nq; k++) {
		double emax = 0;
		for (int i = 0; i < c->nh; i++)
			emax = fmax(emax, q[k].rms[i]);
		if (emax <= floor_tol * (1.0 + q[k].scale)) {
			if (!c->quiet)
				fprintf(stderr, "mbsim: converge: note: '%s' is exact to the Newton "
					"tolerance (rms error <= %.1e), no order to check\n", q[k].spec,
					emax);
			continue;
		}
		if (!(fabs(q[k].slope - c->p) <= c->ptol)) {
			fprintf(stderr, "mbsim: converge: FAIL: '%s' has slope %.3f, expected %g +- %g\n",
				q[k].spec, q[k].slope, c->p, c->ptol);
			bad++;
		}
	}
	if (!bad && !c->quiet)
		fprintf(stderr, "mbsim: converge: every slope within %g of %g\n", c->ptol, c->p);
	return bad;
}

/* ---- the study ---- */

static int make_dir(struct study *st)
{
	const char *tmp = getenv("TMPDIR");
	snprintf(st->dir, sizeof st->dir, "%s/mbsim-converge-XXXXXX", tmp && tmp[0] ? tmp : "/tmp");
	if (!mkdtemp(st->dir)) {
		fprintf(stderr, "mbsim: error: cannot create a temporary directory '%s': %s\n",
			st->dir, strerror(errno));
		return -1;
	}
	return 0;
}

/* --reference FILE rather than a reference we compute */
static int ref_is_file(const struct copts *c)
{
	return strcmp(c->ref, "auto") != 0 && strcmp(c->ref, "kinematic") != 0;
}

/* Remove what we wrote: every run and a computed reference, not FILE. */
static void cleanup(struct study *st)
{
	int nh = st->c->nh;
	for (int i = 0; st->files && i <= nh; i++) {
		if (st->files[i] && (i < nh || !ref_is_file(st->c)))
			unlink(st->files[i]);
		free(st->files[i]);
	}
	free(st->files);
	if (st->dir[0])
		rmdir(st->dir);
}

/* Default quantities: every body's, particle's and point's position and
 * velocity in run 0. */
static int default_quantities(struct study *st, struct qty **pq)
{
	static const char *const groups[] = { "/bodies", "/particles", "/points" };
	char err[1024], **names[3] = { NULL, NULL, NULL };
	int n[3], tot = 0, nq = 0;
	struct h5in *f = h5r_open(st->files[0], err, sizeof err);
	*pq = NULL;
	if (!f)
		return 0;
	for (int g = 0; g < 3; g++)
		tot += n[g] = h5r_list(f, groups[g], &names[g]);
	h5r_close(&f);
	*pq = xcalloc((size_t)tot + 1, sizeof(struct qty));
	for (int g = 0; g < 3; g++) {
		for (int i = 0; i < n[g]; i++) {
			const char *nm = names[g][i];
			size_t l = strlen(nm);
			if ((l > 9 && strcmp(nm + l - 9, "/position") == 0) ||
			    (l > 9 && strcmp(nm + l - 9, "/velocity") == 0))
				qty_init(&(*pq)[nq++], nm + 1, xstrdup(nm), st->c->nh);
		}
		h5r_list_free(&names[g], n[g]);
	}
	return nq;
}

/* Every named quantity exists in the output of run 0 with that component;
 * sets its column. */
static int check_quantities(struct study *st, struct qty *q, int nq)
{
	char err[1024];
	struct h5in *f = h5r_open(st->files[0], err, sizeof err);
	int bad = 0;
	if (!f) {
		fprintf(stderr, "mbsim: error: %s\n", err);
		return EXIT_SIM;
	}
	for (int k = 0; k < nq; k++) {
		struct h5r_data d;
		if (h5r_read(f, q[k].path, &d, err, sizeof err)) {
			fprintf(stderr, "mbsim: error: unknown quantity '%s': the run output has no "
				"dataset '%s' (see man mbsim-output(5); e.g. bodies/NAME/position:z, "
				"joints/NAME/multipliers)\n", q[k].spec, q[k].path);
			bad++;
			continue;
		}
		q[k].col = cli_comp_col(q[k].comp, q[k].path, d.cols);
		if (q[k].col == -2) {
			fprintf(stderr, "mbsim: error: unknown quantity '%s': no component '%s' in a "
				"dataset with %d column%s (use x, y, z%s or an index 0..%d)\n", q[k].spec,
				q[k].comp, d.cols, d.cols == 1 ? "" : "s",
				d.cols == 4 && cli_is_quat(q[k].path, d.cols) ? ", w" : "",
				d.cols - 1);
			bad++;
		}
		h5r_data_release(&d);
	}
	h5r_close(&f);
	return bad ? EXIT_USAGE : 0;
}

/* Runs and reference; returns an exit status (0 when every file exists). */
static int make_files(struct study *st, struct qty *q, int nq)
{
	struct copts *c = st->c;
	int nh = c->nh;
	for (int i = 0; i < nh; i++) {
		st->files[i] = xasprintf("%s/run-%d.h5", st->dir, i);
		if (run_one(st, c->h[i], NULL, st->files[i]))
			return EXIT_SIM;
		int rc = i == 0 ? check_quantities(st, q, nq) : 0;
		if (rc)
			return rc;
	}
	if (strcmp(c->ref, "auto") == 0) {
		double href = c->h[nh - 1] / AUTO_FACTOR;
		st->files[nh] = xasprintf("%s/reference.h5", st->dir);
		snprintf(st->refdesc, sizeof st->refdesc,
			 "same scheme at h/%d (%s, h = %g; not independent of the runs: --ref FILE.h5 takes e.g. a run of a higher-order scheme)",
			 AUTO_FACTOR, st->o.method, href);
		if (!c->quiet)
			fprintf(stderr, "mbsim: converge: reference: %s\n", st->refdesc);
		return run_one(st, href, NULL, st->files[nh]) ? EXIT_SIM : 0;
	}
	if (strcmp(c->ref, "kinematic") == 0) {
		st->files[nh] = xasprintf("%s/reference.h5", st->dir);
		return kinematic_ref(st, st->files[nh]) ? EXIT_SIM : 0;
	}
	st->files[nh] = xstrdup(c->ref);	/* checked by check_reference */
	return 0;
}

/* Before any run: the kinematic reference needs a fully driven mechanism,
 * a reference file must be readable (its integrator goes into refdesc). */
static int check_reference(struct study *st)
{
	const char *ref = st->c->ref;
	char err[1024];
	if (strcmp(ref, "kinematic") == 0 && kinematic_check(st->m, err, sizeof err)) {
		fprintf(stderr, "mbsim: error: %s\n", err);
		return EXIT_DECK;
	}
	if (!ref_is_file(st->c))
		return 0;
	struct h5in *f = h5r_open(ref, err, sizeof err);
	if (!f) {
		fprintf(stderr, "mbsim: error: --reference: %s (want auto, kinematic or FILE.h5)\n", err);
		return EXIT_USAGE;
	}
	struct h5r_data t;
	if (h5r_read_time(f, &t, err, sizeof err)) {
		/* before any run: nothing to compare with */
		fprintf(stderr, "mbsim: error: --reference %s: %s\n", ref, err);
		h5r_close(&f);
		return EXIT_USAGE;
	}
	h5r_data_release(&t);
	char integ[64];
	if (h5r_attr_str(f, "/", "integrator", integ, sizeof integ) == 0)
		snprintf(st->refdesc, sizeof st->refdesc, "file %s (integrator %s)", ref, integ);
	else
		snprintf(st->refdesc, sizeof st->refdesc, "file %s", ref);
	h5r_close(&f);
	return 0;
}

static int study(struct study *st)
{
	struct copts *c = st->c;
	int nh = c->nh, rc = check_reference(st);
	if (rc)
		return rc;
	if (make_dir(st))
		return EXIT_SIM;
	st->files = xcalloc((size_t)nh + 1, sizeof(char *));
	int nq = c->nq;
	struct qty *q = xcalloc((size_t)nq + 1, sizeof(*q));
	for (int k = 0; k < nq; k++)
		qty_parse(&q[k], c->qspecs[k], nh);
	rc = make_files(st, q, nq);
	if (!rc && nq == 0) {
		free(q);
		nq = default_quantities(st, &q);
	}
	struct series_set S;
	memset(&S, 0, sizeof S);
	if (!rc)
		rc = open_all(st, &S) ? EXIT_SIM : 0;
	if (!rc)
		rc = measure_all(st, &S, q, nq);
	if (!rc) {
		if (c->json)
			print_json(st, q, nq, S.ncommon);
		else if (c->csv)
			print_csv(st, q, nq);
		else
			print_table(st, q, nq, S.ncommon);
		if (c->expect && check_expect(st, q, nq))
			rc = EXIT_SIM;
	}
	close_all(&S);
	for (int k = 0; k < nq; k++)
		qty_release(&q[k]);
	free(q);
	return rc;
}

int cmd_converge(int argc, char **argv)
{
	struct copts c;
	int rc = parse(argc, argv, &c);
	if (rc) {
		cli_sets_free(c.sets, c.nsets);
		free(c.qspecs);
		free(c.h);
		return rc > 0 ? EXIT_OK : EXIT_USAGE;
	}
	qsort(c.h, (size_t)c.nh, sizeof(double), cmp_desc);
	struct study st;
	memset(&st, 0, sizeof st);
	st.c = &c;
	rc = cli_load(c.deck, c.sets, c.nsets, &st.dk, &st.m, &st.o);
	if (rc == 0) {
		st.cmdline = cli_join_args(argc, argv);
		st.stop = cli_catch_signals();
		rc = study(&st);
		cleanup(&st);
		free(st.cmdline);
		model_free(&st.m);
		deck_free(&st.dk);
	}
	cli_sets_free(c.sets, c.nsets);
	free(c.qspecs);
	free(c.h);
	return rc;
}
