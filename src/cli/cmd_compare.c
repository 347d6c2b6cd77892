/* cmd_compare.c - mbsim compare: two output files within tolerances.
 *
 * Every series under /bodies, /particles, /points, /joints, /drivers and
 * /energy present in both files (or the ones named with --quantity), by
 * logical name (bodies/NAME/QTY, points/NAME/QTY, see io/h5read.h), is compared at the sample times
 * both files share; a value passes when |a - b| <= atol + rtol |b| (B is
 * the reference), or when both are NaN (a joint without a coordinate).  /time passes when both files cover the same interval.
 * Constraint residuals are not compared: they are round-off noise.
 */
#include "cli.h"
#include "usage.h"
#include "../io/h5read.h"
#include "../util/xalloc.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define RTOL_DEFAULT 1e-6
#define ATOL_DEFAULT 1e-9

struct tol {
	char *path;		/* absolute dataset path or group prefix */
	double rtol, atol;
};

struct cmp_opts {
	const char *a, *b;
	double rtol, atol;
	struct tol *tols;
	int ntols;
	const char **q;
	int nq, json;
};

struct result {
	char *path;		/* as named (with ":COMP" when --quantity gave one) */
	char *dset;		/* path without its component, NULL when it has none */
	const char *comp;	/* the component (in dset), or NULL: every column */
	double max_abs, max_rel, t_worst, rtol, atol;
	int pass, missing;	/* missing: 1 only in A, 2 only in B (both not compared),
				 * 3 unreadable or of different shapes, 4 no such
				 * component (both fail) */
	int compared;
};

static int parse_num(const char *s, double *v)
{
	char *end;
	*v = strtod(s, &end);
	return end == s || *end || !(*v >= 0) || !isfinite(*v);
}

static int parse_tol(const char *s, struct cmp_opts *c)
{
	const char *eq = strrchr(s, '=');
	if (!eq || eq == s) {
		cli_usage_error(USAGE_COMPARE, "bad --tol '%s' (want PATH=RTOL:ATOL)", s);
		return -1;
	}
	struct tol *t = &c->tols[c->ntols];
	char *num = xstrdup(eq + 1), *colon = strchr(num, ':');
	t->rtol = c->rtol;
	t->atol = c->atol;
	int bad = 0;
	if (colon) {
		*colon = 0;
		bad = (num[0] && parse_num(num, &t->rtol)) || (colon[1] && parse_num(colon + 1, &t->atol));
	} else {
		bad = parse_num(num, &t->rtol);
	}
	free(num);
	if (bad) {
		cli_usage_error(USAGE_COMPARE, "bad --tol '%s' (want PATH=RTOL:ATOL)", s);
		return -1;
	}
	char *p = xstrdup(s);
	p[eq - s] = 0;
	t->path = cli_abs_path(p);
	free(p);
	size_t l = strlen(t->path);
	if (l > 1 && t->path[l - 1] == '/')
		t->path[l - 1] = 0;
	c->ntols++;
	return 0;
}

static int parse(int argc, char **argv, struct cmp_opts *c)
{
	memset(c, 0, sizeof(*c));
	c->rtol = RTOL_DEFAULT;
	c->atol = ATOL_DEFAULT;
	c->tols = xcalloc((size_t)argc + 1, sizeof(struct tol));
	c->q = xcalloc((size_t)argc + 1, sizeof(char *));
	const char **tolspec = xcalloc((size_t)argc + 1, sizeof(char *));
	int nt = 0, rc = 0;
	for (int i = 1; i < argc && !rc; i++) {
		const char *a = argv[i], *v;
		int err = 0;
		if ((v = cli_optval(argc, argv, &i, "--rtol", USAGE_COMPARE, &err))) {
			if (parse_num(v, &c->rtol)) {
				cli_usage_error(USAGE_COMPARE, "bad --rtol '%s'", v);
				rc = -1;
			}
		} else if ((v = cli_optval(argc, argv, &i, "--atol", USAGE_COMPARE, &err))) {
			if (parse_num(v, &c->atol)) {
				cli_usage_error(USAGE_COMPARE, "bad --atol '%s'", v);
				rc = -1;
			}
		} else if ((v = cli_optval(argc, argv, &i, "--tol", USAGE_COMPARE, &err))) {
			tolspec[nt++] = v;	/* after --rtol/--atol: defaults fill gaps */
		} else if ((v = cli_optval(argc, argv, &i, "--quantity", USAGE_COMPARE, &err))) {
			c->q[c->nq++] = v;
		} else if (err) {
			rc = -1;
		} else if (strcmp(a, "--json") == 0) {
			c->json = 1;
		} else if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
			printf("usage: %s", USAGE_COMPARE);
			rc = 1;
		} else if (a[0] == '-' && a[1]) {
			cli_usage_error(USAGE_COMPARE, "unknown option '%s'", a);
			rc = -1;
		} else if (!c->a) {
			c->a = a;
		} else if (!c->b) {
			c->b = a;
		} else {
			cli_usage_error(USAGE_COMPARE, "more than two files ('%s')", a);
			rc = -1;
		}
	}
	for (int i = 0; i < nt && !rc; i++)
		rc = parse_tol(tolspec[i], c);
	free(tolspec);
	if (!rc && (!c->a || !c->b)) {
		cli_usage_error(USAGE_COMPARE, "two files needed");
		rc = -1;
	}
	return rc;
}

/* Tolerances for path: the longest --tol prefix that matches whole
 * components, else the global ones. */
static void tol_for(const struct cmp_opts *c, const char *path, double *rtol, double *atol)
{
	size_t best = 0;
	*rtol = c->rtol;
	*atol = c->atol;
	for (int i = 0; i < c->ntols; i++) {
		const char *p = c->tols[i].path;
		size_t l = strlen(p);
		if (strncmp(path, p, l) == 0 && (path[l] == 0 || path[l] == '/') && l > best) {
			best = l;
			*rtol = c->tols[i].rtol;
			*atol = c->tols[i].atol;
		}
	}
}

struct files {
	const char *name[2];
	struct h5in *f[2];
	struct h5r_data t[2];
	long n, *ia, *ib;
	int ncmp;		/* datasets compared */
};

/* The dataset (logical name) that r reads. */
static const char *dset(const struct result *r)
{
	return r->dset ? r->dset : r->path;
}

/* Read r's dataset from file i into d; 0, or -1 after a message naming
 * the file and the dataset (a dataset listed but unreadable: a string
 * where numbers belong, a damaged header). */
static int read_one(struct files *F, int i, const struct result *r, struct h5r_data *d)
{
	char err[1024];
	if (h5r_read(F->f[i], dset(r), d, err, sizeof err) == 0)
		return 0;
	fprintf(stderr, "mbsim: error: %s: %s\n", F->name[i], err);
	return -1;
}

static void compare_one(const struct cmp_opts *c, struct files *F, struct result *r)
{
	struct h5r_data d[2];
	tol_for(c, dset(r), &r->rtol, &r->atol);
	r->pass = 1;
	if (r->missing == 1 || r->missing == 2) {
		/* in one file only: not compared, but it must be readable */
		int i = r->missing - 1;
		if (read_one(F, i, r, &d[0]) == 0) {
			h5r_data_release(&d[0]);
			return;
		}
		r->missing = 3;
		r->pass = 0;
		return;
	}
	int ok0 = read_one(F, 0, r, &d[0]) == 0;
	int ok1 = read_one(F, 1, r, &d[1]) == 0;
	/* rows past /time's: a flush the writer did not finish (h5.h) */
	if (!ok0 || !ok1 || d[0].cols != d[1].cols || d[0].rows < F->t[0].rows ||
	    d[1].rows < F->t[1].rows) {
		if (ok0 && ok1)
			fprintf(stderr, "mbsim: error: '%s' has %ld x %d values in %s and %ld x %d "
				"in %s (%ld and %ld samples)\n", r->path, d[0].rows, d[0].cols,
				F->name[0], d[1].rows, d[1].cols, F->name[1], F->t[0].rows, F->t[1].rows);
		r->missing = 3;
		r->pass = 0;
		goto out;
	}
	int cols = d[0].cols, quat = cli_is_quat(dset(r), cols), only = -1;
	if (r->comp && (only = cli_comp_col(r->comp, dset(r), cols)) < 0) {
		fprintf(stderr, "mbsim: error: '%s': no component '%s' in %s with %d columns (use x, "
			"y, z%s or an index 0..%d)\n", r->path, r->comp, dset(r), cols,
			quat ? ", w" : "", cols - 1);
		r->missing = 4;
		r->pass = 0;
		goto out;
	}
	r->compared = 1;
	for (long k = 0; k < F->n; k++) {
		const double *x = d[0].v + (size_t)F->ia[k] * (size_t)cols;
		const double *y = d[1].v + (size_t)F->ib[k] * (size_t)cols;
		double sg = 1.0;
		for (int j = 0; j < cols; j++) {
			if (quat && j % 4 == 0)	/* q, -q: one rotation (per body) */
				sg = cli_quat_sign(x + j, y + j);
			if ((only >= 0 && j != only) || (isnan(x[j]) && isnan(y[j])))
				continue;	/* another component; "none" in both */
			double e = fabs(sg * x[j] - y[j]);
			double rel = y[j] != 0 ? e / fabs(y[j]) : e > 0 ? INFINITY : 0.0;
			if (!(e <= r->atol + r->rtol * fabs(y[j])))
				r->pass = 0;
			if (!(e <= r->max_abs)) {
				r->max_abs = e;
				r->t_worst = F->t[1].v[F->ib[k]];
			}
			if (rel > r->max_rel)
				r->max_rel = rel;
		}
	}
out:
	if (ok0)
		h5r_data_release(&d[0]);
	if (ok1)
		h5r_data_release(&d[1]);
}

/* Compare every dataset of r, in the order h5r_read_order gives for B
 * (each block of a series read once); the number of failures. */
static int compare_all(const struct cmp_opts *c, struct files *F, struct result *r, int n)
{
	char **paths = xmalloc(((size_t)n + 1) * sizeof(char *));
	int *order = xmalloc(((size_t)n + 1) * sizeof(int)), nfail = 0;
	for (int i = 0; i < n; i++)
		paths[i] = (char *)dset(&r[i]);
	h5r_read_order(F->f[1], paths, n, order);
	for (int i = 0; i < n; i++) {
		struct result *x = &r[order[i]];
		compare_one(c, F, x);
		nfail += !x->pass;
	}
	free(order);
	free(paths);
	return nfail;
}

/* The datasets to compare: named ones, or those under the compared groups
 * in either file (a dataset in only one file is reported, not failed). */
static int collect(const struct cmp_opts *c, struct files *F, struct result **pr)
{
	static const char *const groups[] = { "/bodies", "/particles", "/points", "/joints",
					      "/drivers", "/energy" };
	int n = 0, cap = 64;
	struct result *r = xcalloc((size_t)cap, sizeof(*r));
	if (c->nq) {
		for (int i = 0; i < c->nq; i++) {
			if (n == cap)
				r = xrealloc(r, (size_t)(cap *= 2) * sizeof(*r));
			memset(&r[n], 0, sizeof(*r));
			r[n].path = cli_abs_path(c->q[i]);
			r[n].dset = cli_quant_path(c->q[i], &r[n].comp);
			if (!r[n].comp) {
				free(r[n].dset);
				r[n].dset = NULL;
			}
			n++;
		}
		*pr = r;
		return n;
	}
	for (int g = 0; g < (int)(sizeof groups / sizeof groups[0]); g++) {
		char **na, **nb;
		int a = h5r_list(F->f[0], groups[g], &na), b = h5r_list(F->f[1], groups[g], &nb);
		int i = 0, j = 0;
		while (i < a || j < b) {
			int s = i >= a ? 1 : j >= b ? -1 : strcmp(na[i], nb[j]);
			if (n == cap)
				r = xrealloc(r, (size_t)(cap *= 2) * sizeof(*r));
			memset(&r[n], 0, sizeof(*r));
			r[n].path = xstrdup(s <= 0 ? na[i] : nb[j]);
			r[n].missing = s < 0 ? 1 : s > 0 ? 2 : 0;
			n++;
			i += s <= 0;
			j += s >= 0;
		}
		h5r_list_free(&na, a);
		h5r_list_free(&nb, b);
	}
	*pr = r;
	return n;
}

/* The paths of the results with that missing code, as a JSON array. */
static void json_paths(const struct result *r, int n, int missing)
{
	int first = 1;
	putchar('[');
	for (int i = 0; i < n; i++)
		if (r[i].missing == missing) {
			printf("%s", first ? "" : ", ");
			cli_json_str(r[i].path);
			first = 0;
		}
	putchar(']');
}

static void report(const struct cmp_opts *c, const struct files *F, const struct result *r,
		   int n, int time_ok, int nfail)
{
	if (c->json) {
		printf("{\"a\": ");
		cli_json_str(c->a);
		printf(", \"b\": ");
		cli_json_str(c->b);
		printf(", \"common_samples\": %ld, \"time_pass\": %s, \"datasets\": {", F->n,
		       time_ok ? "true" : "false");
		int first = 1;
		for (int i = 0; i < n; i++) {
			if (r[i].missing == 1 || r[i].missing == 2)
				continue;
			printf("%s", first ? "" : ", ");
			first = 0;
			cli_json_str(r[i].path);
			printf(": {\"max_abs\": ");
			cli_json_num(r[i].max_abs);
			printf(", \"max_rel\": ");
			cli_json_num(r[i].max_rel);
			printf(", \"rtol\": %g, \"atol\": %g, \"pass\": %s}", r[i].rtol, r[i].atol,
			       r[i].pass ? "true" : "false");
		}
		printf("}, \"only_in_a\": ");
		json_paths(r, n, 1);
		printf(", \"only_in_b\": ");
		json_paths(r, n, 2);
		printf(", \"pass\": %s}\n", nfail ? "false" : "true");
		return;
	}
	int w = 8;
	for (int i = 0; i < n; i++)
		if ((int)strlen(r[i].path) > w)
			w = (int)strlen(r[i].path);
	printf("A: %s (%ld samples)\nB: %s (%ld samples, reference)\n", c->a, F->t[0].rows, c->b,
	       F->t[1].rows);
	printf("compared at %ld common sample times; pass when |a - b| <= atol + rtol |b|\n\n", F->n);
	printf("%-*s  %12s  %12s  %10s  %8s  %8s  %s\n", w, "dataset", "max |a-b|", "max rel",
	       "at t", "rtol", "atol", "result");
	printf("%-*s  %12s  %12s  %10s  %8s  %8s  %s\n", w, "/time", "", "", "", "", "",
	       time_ok ? "ok" : "FAIL (different time intervals)");
	for (int i = 0; i < n; i++) {
		if (r[i].missing) {
			printf("%-*s  %s\n", w, r[i].path,
			       r[i].missing == 1 ? "only in A (not compared)" :
			       r[i].missing == 2 ? "only in B (not compared)" :
			       r[i].missing == 4 ? "FAIL (no such component)" :
			       "FAIL (missing, unreadable or of different shape)");
			continue;
		}
		printf("%-*s  %12.4e  %12.4e  %10.6g  %8.2g  %8.2g  %s\n", w, r[i].path, r[i].max_abs,
		       r[i].max_rel, r[i].t_worst, r[i].rtol, r[i].atol, r[i].pass ? "ok" : "FAIL");
	}
	int badcomp = 0;
	for (int i = 0; i < n; i++)
		badcomp |= r[i].missing == 4;
	if (F->ncmp == 0)
		printf("\nFAIL: no dataset compared (%s)\n",
		       badcomp ? "a component its series has not" : "none in both files");
	else
		printf("\n%s: %d of %d datasets differ beyond tolerance\n", nfail ? "FAIL" : "ok",
		       nfail, n);
}

int cmd_compare(int argc, char **argv)
{
	struct cmp_opts c;
	int rc = parse(argc, argv, &c);
	if (rc) {
		for (int i = 0; i < c.ntols; i++)
			free(c.tols[i].path);
		free(c.tols);
		free(c.q);
		return rc > 0 ? EXIT_OK : EXIT_USAGE;
	}
	struct files F;
	memset(&F, 0, sizeof F);
	F.name[0] = c.a;
	F.name[1] = c.b;
	char err[1024];
	rc = EXIT_OK;
	for (int i = 0; i < 2 && rc == EXIT_OK; i++) {
		F.f[i] = h5r_open(F.name[i], err, sizeof err);
		if (!F.f[i] || h5r_read_time(F.f[i], &F.t[i], err, sizeof err)) {
			fprintf(stderr, "mbsim: error: %s\n", err);
			if (F.f[i])
				fprintf(stderr, "mbsim: error: '%s' is not an mbsim output file\n", F.name[i]);
			rc = EXIT_DECK;
		}
	}
	struct result *r = NULL;
	int n = 0, nfail = 0, time_ok = 0;
	if (rc == EXIT_OK) {
		long m = F.t[0].rows < F.t[1].rows ? F.t[0].rows : F.t[1].rows;
		F.ia = xmalloc(((size_t)m + 1) * sizeof(long));
		F.ib = xmalloc(((size_t)m + 1) * sizeof(long));
		F.n = h5r_match_times(F.t[0].v, F.t[0].rows, F.t[1].v, F.t[1].rows, F.ia, F.ib);
		/* same interval: first and last samples are common */
		time_ok = F.n > 0 && F.ia[0] == 0 && F.ib[0] == 0 &&
			  F.ia[F.n - 1] == F.t[0].rows - 1 && F.ib[F.n - 1] == F.t[1].rows - 1;
		nfail += !time_ok;
		n = collect(&c, &F, &r);
		nfail += compare_all(&c, &F, r, n);
		int badcomp = 0;
		for (int i = 0; i < n; i++) {
			F.ncmp += r[i].compared;
			badcomp |= r[i].missing == 4;
		}
		if (F.ncmp == 0 && badcomp) {
			nfail++;	/* said at the quantity */
		} else if (F.ncmp == 0) {
			/* a file of /time alone, or of other series than the
			 * reference's, must not pass */
			fprintf(stderr, "mbsim: error: no dataset compared: %s and %s have no "
				"series in common\n", c.a, c.b);
			nfail++;
		}
		report(&c, &F, r, n, time_ok, nfail);
		rc = nfail ? EXIT_SIM : EXIT_OK;
	}
	for (int i = 0; i < n; i++) {
		free(r[i].path);
		free(r[i].dset);
	}
	free(r);
	for (int i = 0; i < 2; i++) {
		h5r_close(&F.f[i]);
		h5r_data_release(&F.t[i]);
	}
	free(F.ia);
	free(F.ib);
	for (int i = 0; i < c.ntols; i++)
		free(c.tols[i].path);
	free(c.tols);
	free(c.q);
	return rc;
}
