/* cmd_summary.c - mbsim summary: one row per result file.
 *
 * For the files of a parameter sweep (tools/sweep) it prints a CSV table
 * (or a JSON array of objects), one row per file: the --set values of the
 * run, its status, the statistics of the root attributes, the maxima of
 * the constraint residuals and of |energy drift| over the samples, and
 * the value of every --quantity PATH[:COMP]@T.  Everything is read
 * through io/h5read.h; the layout is man/mbsim-output.5.
 *
 * The parameters are the --set KEY=VALUE arguments of the root attribute
 * "settings" (cli_join_sets: one a line, backslash and newline escaped),
 * whole; a file written before that attribute existed has them read from
 * the root attribute "command_line", split at blanks, so that a value
 * with blanks comes back cut there.
 */
#include "cli.h"
#include "usage.h"
#include "../io/h5read.h"
#include "../util/xalloc.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* --quantity PATH[:COMP]@T */
struct squant {
	const char *spec;
	char *path;		/* absolute, without component */
	const char *comp;	/* x, y, z, w, an index, or NULL */
	double t;
};

struct param {
	char *key, *val;
};

struct row {
	const char *file;
	char status[32];
	char *message;		/* failure reason or open error, "" when none */
	char integrator[64];
	struct param *par;
	int npar;
	/* NAN where the file has no such attribute or series */
	double wall, steps, newton, rejected, t_end, max_pos, max_vel, max_drift;
	double *q;		/* one per --quantity */
};

/* Append the parameter of kv, "KEY=VALUE" (nothing when it has no '='
 * after a non-empty key). */
static void param_add(struct row *r, const char *kv)
{
	const char *eq = strchr(kv, '=');
	if (!eq || eq == kv)
		return;
	r->par = xrealloc(r->par, (size_t)(r->npar + 1) * sizeof(*r->par));
	struct param *p = &r->par[r->npar++];
	p->key = xstrdup(kv);
	p->key[eq - kv] = 0;
	p->val = xstrdup(eq + 1);
}

/* Split "mbsim run DECK --set K=V ..." at blanks and collect the K=V of
 * every --set (also --set=K=V). */
static void params_from(const char *cl, struct row *r)
{
	char *s = xstrdup(cl), *save = NULL;
	int next = 0;
	for (char *w = strtok_r(s, " ", &save); w; w = strtok_r(NULL, " ", &save)) {
		if (next)
			param_add(r, w);
		else if (strncmp(w, "--set=", 6) == 0)
			param_add(r, w + 6);
		next = strcmp(w, "--set") == 0;
	}
	free(s);
}

/* The KEY=VALUE lines of the "settings" attribute (cli_join_sets). */
static void params_from_settings(const char *s, struct row *r)
{
	while (*s) {
		size_t n = strcspn(s, "\n");
		char *kv = xcalloc(n + 1, 1), *p = kv;
		for (size_t i = 0; i < n; i++) {
			if (s[i] == '\\' && i + 1 < n) {
				i++;
				*p++ = s[i] == 'n' ? '\n' : s[i];
			} else {
				*p++ = s[i];
			}
		}
		s += n + (s[n] == '\n');
		param_add(r, kv);
		free(kv);
	}
}

static const char *param_get(const struct row *r, const char *key)
{
	for (int i = r->npar - 1; i >= 0; i--)	/* a later --set wins, as in run */
		if (strcmp(r->par[i].key, key) == 0)
			return r->par[i].val;
	return NULL;
}

/* Largest |x| of the first n values of series path, NAN when missing. */
static double series_max(struct h5in *f, const char *path, long n)
{
	struct h5r_data d;
	char err[256];
	if (h5r_read(f, path, &d, err, sizeof err) != 0)
		return NAN;
	double m = 0;
	long k = d.rows < n ? d.rows : n;
	for (long i = 0; i < k * d.cols; i++)
		if (fabs(d.v[i]) > m || isnan(d.v[i]))
			m = isnan(d.v[i]) ? d.v[i] : fabs(d.v[i]);
	h5r_data_release(&d);
	return m;
}

/* Value of q in f at q->t: the sample at t (within 1e-9 max(1, |t|), as
 * h5r_match_times), else linear interpolation between the two samples
 * around it; NAN when t is outside the samples (a run that stopped
 * early, or a time the run never reached).  0; 1 with the reason in err
 * when t is outside the samples; -1 with a message in err. */
static int quant_at(struct h5in *f, const struct h5r_data *t, const struct squant *q, double *v,
		    char *err, size_t errlen)
{
	struct h5r_data d;
	*v = NAN;
	if (h5r_read(f, q->path, &d, err, errlen) != 0)
		return -1;
	/* no component names the one column of a scalar series */
	int c = q->comp ? cli_comp_col(q->comp, q->path, d.cols) : d.cols == 1 ? 0 : -2, rc = 0;
	long n = d.rows < t->rows ? d.rows : t->rows;
	if (c < 0) {
		int quat = d.cols == 4 && cli_is_quat(q->path, d.cols);
		char what[80] = "no component named";
		if (q->comp)
			snprintf(what, sizeof what, "no component '%.40s'", q->comp);
		snprintf(err, errlen, "%s: %s in %s with %d columns (use x, y, z%s or an index "
			 "0..%d)", q->spec, what, q->path, d.cols, quat ? ", w" : "", d.cols - 1);
		rc = -1;
	} else {
		double eps = 1e-9 * fmax(1.0, fabs(q->t));
		for (long i = 0; i < n; i++) {
			double ti = t->v[i];
			if (fabs(ti - q->t) <= eps) {
				*v = d.v[i * d.cols + c];
				break;
			}
			if (i + 1 < n && ti < q->t && q->t < t->v[i + 1]) {
				double s = (q->t - ti) / (t->v[i + 1] - ti);
				*v = (1 - s) * d.v[i * d.cols + c] + s * d.v[(i + 1) * d.cols + c];
				break;
			}
		}
		if (isnan(*v) && n > 0 && (q->t < t->v[0] || q->t > t->v[n - 1])) {
			snprintf(err, errlen, "%s: t = %g is outside the run's samples (t = %g to %g)",
				 q->spec, q->t, t->v[0], t->v[n - 1]);
			rc = 1;
		}
	}
	h5r_data_release(&d);
	return rc;
}

static double attr(struct h5in *f, const char *name)
{
	double v;
	return h5r_attr_num(f, "/", name, &v) == 0 ? v : NAN;
}

/* Read one file into r; 0, or 1 when it could not be read whole (message
 * on stderr, the row still made). */
static int read_row(const char *file, const struct squant *q, int nq, struct row *r)
{
	char err[1024], buf[4096];
	int bad = 0;
	r->file = file;
	r->wall = r->steps = r->newton = r->rejected = r->t_end = NAN;
	r->max_pos = r->max_vel = r->max_drift = NAN;
	r->q = xcalloc((size_t)nq + 1, sizeof(double));
	for (int i = 0; i < nq; i++)
		r->q[i] = NAN;
	struct h5in *f = h5r_open(file, err, sizeof err);
	if (!f) {
		snprintf(r->status, sizeof r->status, "unreadable");
		r->message = xstrdup(err);
		fprintf(stderr, "mbsim: error: %s\n", err);
		return 1;
	}
	if (h5r_attr_str(f, "/", "status", buf, sizeof buf) != 0)
		snprintf(buf, sizeof buf, "unknown");
	const char *colon = strchr(buf, ':');
	size_t l = colon ? (size_t)(colon - buf) : strlen(buf);
	snprintf(r->status, sizeof r->status, "%.*s", (int)(l < 31 ? l : 31), buf);
	r->message = xstrdup(colon ? colon + 1 + strspn(colon + 1, " ") : "");
	if (h5r_attr_str(f, "/", "integrator", r->integrator, sizeof r->integrator) != 0)
		r->integrator[0] = 0;
	char *cl = xcalloc(1 << 20, 1);
	if (h5r_attr_str(f, "/", "settings", cl, 1 << 20) == 0)
		params_from_settings(cl, r);
	else if (h5r_attr_str(f, "/", "command_line", cl, 1 << 20) == 0)
		params_from(cl, r);
	free(cl);
	r->wall = attr(f, "wall_time");
	r->steps = attr(f, "steps");
	r->rejected = attr(f, "rejected_steps");
	double mean = attr(f, "mean_newton_iterations");
	r->newton = round(mean * r->steps);	/* the total: mean over the steps taken */
	struct h5r_data t;
	if (h5r_read_time(f, &t, err, sizeof err) == 0) {
		/* a killed run's series may be longer than /time (mbsim-output(5)) */
		r->t_end = t.rows ? t.v[t.rows - 1] : NAN;
		r->max_pos = series_max(f, "/constraints/position_residual", t.rows);
		r->max_vel = series_max(f, "/constraints/velocity_residual", t.rows);
		r->max_drift = series_max(f, "/energy/drift", t.rows);
		for (int i = 0; i < nq; i++) {
			int qr = quant_at(f, &t, &q[i], &r->q[i], err, sizeof err);
			/* outside the samples of a complete run: the time asked is
			 * wrong; of a failed or killed run: the run ended early */
			int wrong = qr < 0 || (qr > 0 && strcmp(r->status, "complete") == 0);
			if (qr != 0)
				fprintf(stderr, "mbsim: %s: %s: %s\n", wrong ? "error" : "note", file, err);
			bad |= wrong;
		}
		h5r_data_release(&t);
	} else {
		fprintf(stderr, "mbsim: error: %s: %s\n", file, err);
		bad = 1;
	}
	h5r_close(&f);
	return bad;
}

static void row_release(struct row *r)
{
	for (int i = 0; i < r->npar; i++) {
		free(r->par[i].key);
		free(r->par[i].val);
	}
	free(r->par);
	free(r->message);
	free(r->q);
}

static void csv_str(const char *s, int first)
{
	cli_csv_field(stdout, s, first);
}

static void csv_num(double x, const char *fmt)
{
	putchar(',');
	if (!isnan(x))
		printf(fmt, x);
}

/* A --set value in JSON: a number when the whole text is a finite number, else a string. */
static void json_val(const char *s)
{
	char *end;
	double x = strtod(s, &end);
	if (s[0] && !*end && isfinite(x) && !isspace((unsigned char)s[0]))
		cli_json_num(x);
	else
		cli_json_str(s);
}

static const char *const stat_names[] = {
	"wall_time", "steps", "newton_iterations", "rejected_steps", "t_end",
	"max_position_residual", "max_velocity_residual", "max_energy_drift",
};

static void stats_of(const struct row *r, double *v)
{
	double s[] = { r->wall, r->steps, r->newton, r->rejected, r->t_end,
		       r->max_pos, r->max_vel, r->max_drift };
	memcpy(v, s, sizeof s);
}

#define NSTAT ((int)(sizeof stat_names / sizeof stat_names[0]))

static void print_csv(const struct row *r, int n, char **keys, int nkeys, const struct squant *q,
		      int nq)
{
	csv_str("file", 1);
	csv_str("status", 0);
	for (int k = 0; k < nkeys; k++)
		csv_str(keys[k], 0);
	csv_str("integrator", 0);
	for (int k = 0; k < NSTAT; k++)
		csv_str(stat_names[k], 0);
	for (int k = 0; k < nq; k++)
		csv_str(q[k].spec, 0);
	csv_str("message", 0);
	putchar('\n');
	for (int i = 0; i < n; i++) {
		double v[NSTAT];
		csv_str(r[i].file, 1);
		csv_str(r[i].status, 0);
		for (int k = 0; k < nkeys; k++)
			csv_str(param_get(&r[i], keys[k]), 0);
		csv_str(r[i].integrator, 0);
		stats_of(&r[i], v);
		for (int k = 0; k < NSTAT; k++)
			csv_num(v[k], k == 1 || k == 2 || k == 3 ? "%.0f" : "%.6g");
		for (int k = 0; k < nq; k++)
			csv_num(r[i].q[k], "%.17g");
		csv_str(r[i].message, 0);
		putchar('\n');
	}
}

static void print_json(const struct row *r, int n, const struct squant *q, int nq)
{
	printf("[");
	for (int i = 0; i < n; i++) {
		double v[NSTAT];
		printf(i ? ",\n {" : "\n {");
		printf("\"file\": ");
		cli_json_str(r[i].file);
		printf(", \"status\": ");
		cli_json_str(r[i].status);
		printf(", \"message\": ");
		cli_json_str(r[i].message);
		printf(", \"parameters\": {");
		for (int k = 0, m = 0; k < r[i].npar; k++) {
			if (param_get(&r[i], r[i].par[k].key) != r[i].par[k].val)
				continue;	/* overridden by a later --set */
			printf(m++ ? ", " : "");
			cli_json_str(r[i].par[k].key);
			printf(": ");
			json_val(r[i].par[k].val);
		}
		printf("}, \"integrator\": ");
		cli_json_str(r[i].integrator);
		stats_of(&r[i], v);
		for (int k = 0; k < NSTAT; k++) {
			printf(", \"%s\": ", stat_names[k]);
			cli_json_num(v[k]);
		}
		printf(", \"quantities\": {");
		for (int k = 0; k < nq; k++) {
			printf(k ? ", " : "");
			cli_json_str(q[k].spec);
			printf(": ");
			cli_json_num(r[i].q[k]);
		}
		printf("}}");
	}
	printf("\n]\n");
}

/* The union of the rows' parameter keys in order of first appearance. */
static int collect_keys(const struct row *r, int n, char ***keys)
{
	int nk = 0, cap = 0;
	*keys = NULL;
	for (int i = 0; i < n; i++)
		for (int k = 0; k < r[i].npar; k++) {
			int seen = 0;
			for (int j = 0; j < nk && !seen; j++)
				seen = strcmp((*keys)[j], r[i].par[k].key) == 0;
			if (seen)
				continue;
			if (nk == cap) {
				cap = cap ? 2 * cap : 8;
				*keys = xrealloc(*keys, (size_t)cap * sizeof(char *));
			}
			(*keys)[nk++] = r[i].par[k].key;
		}
	return nk;
}

/* "bodies/slider/position:x@0.5" -> path, comp, t; -1 after the usage error. */
static int quant_parse(const char *spec, struct squant *q)
{
	const char *at = strrchr(spec, '@');
	char *end = NULL;
	q->spec = spec;
	q->t = at ? strtod(at + 1, &end) : NAN;
	if (!at || at == spec || end == at + 1 || *end || !isfinite(q->t)) {
		cli_usage_error(USAGE_SUMMARY, "bad --quantity '%s' (want PATH[:COMP]@TIME)", spec);
		return -1;
	}
	char *p = xstrdup(spec);
	p[at - spec] = 0;
	q->path = cli_quant_path(p, &q->comp);
	free(p);
	return 0;
}

int cmd_summary(int argc, char **argv)
{
	const char **files = xcalloc((size_t)argc + 1, sizeof(char *));
	struct squant *q = xcalloc((size_t)argc + 1, sizeof(*q));
	int nf = 0, nq = 0, json = 0, rc = 0;
	for (int i = 1; i < argc && !rc; i++) {
		const char *a = argv[i], *v;
		int err = 0;
		if ((v = cli_optval(argc, argv, &i, "--quantity", USAGE_SUMMARY, &err))) {
			if (quant_parse(v, &q[nq++]) != 0)
				rc = EXIT_USAGE;
		} else if (err) {
			rc = EXIT_USAGE;
		} else if (strcmp(a, "--json") == 0) {
			json = 1;
		} else if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
			printf("usage: %s", USAGE_SUMMARY);
			rc = -1;
		} else if (a[0] == '-' && a[1] && strcmp(a, "--") != 0) {
			static const char *const opts[] = { "--quantity", "--json", "--help", NULL };
			cli_usage_error(USAGE_SUMMARY, "unknown option '%s'%s", a, cli_suggest(a, opts));
			rc = EXIT_USAGE;
		} else if (strcmp(a, "--") != 0) {
			files[nf++] = a;
		}
	}
	if (!rc && nf == 0) {
		cli_usage_error(USAGE_SUMMARY, "no result files");
		rc = EXIT_USAGE;
	}
	if (!rc) {
		struct row *r = xcalloc((size_t)nf, sizeof(*r));
		int bad = 0;
		for (int i = 0; i < nf; i++)
			bad |= read_row(files[i], q, nq, &r[i]);
		char **keys;
		int nk = collect_keys(r, nf, &keys);
		if (json)
			print_json(r, nf, q, nq);
		else
			print_csv(r, nf, keys, nk, q, nq);
		free(keys);
		for (int i = 0; i < nf; i++)
			row_release(&r[i]);
		free(r);
		rc = bad ? EXIT_SIM : EXIT_OK;
	}
	for (int i = 0; i < nq; i++)
		free(q[i].path);
	free(q);
	free(files);
	return rc < 0 ? EXIT_OK : rc;
}
