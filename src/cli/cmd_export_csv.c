/* cmd_export_csv.c - mbsim export --csv: an output file's series as a CSV
 * table for spreadsheets and plotting programs (man/mbsim-export.1).
 *
 * One row per sample of /time, time first, then one column per component
 * of each quantity: "PATH:COMP [UNITS]", COMP the word a --quantity takes
 * to name that column (x, y, z; w of a quaternion; an index), no COMP
 * for a scalar series, UNITS the series' "units" attribute.  Values are
 * printed with 17 significant digits, which strtod reads back to the same
 * double; NaN (a joint without a coordinate) is an empty field, as in
 * mbsim summary.  Everything is read through io/h5read.h.
 */
#include "cli.h"
#include "usage.h"
#include "../io/h5read.h"
#include "../util/xalloc.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The default: the series of the mechanics, as mbsim compare takes them,
 * with the elements' and the measures' (not /constraints, /solver). */
static const char *const default_groups[] = { "/bodies", "/particles", "/points", "/joints",
					      "/drivers", "/forces", "/measures", "/energy" };

/* One quantity: its series read, and the columns to write. */
struct col {
	char *path;		/* absolute, without component */
	const char *comp;	/* in path's allocation or the argument; NULL: all */
	int c0, c1;		/* columns [c0, c1) of d */
	char units[128];
	struct h5r_data d;
};

/* The component word of column j of a series of ncols columns: what
 * cli_comp_col reads back as j.  x, y, z for a 3-vector (not for a
 * joint's multipliers, which are no vector), w, x, y, z for an orientation
 * quaternion, the index otherwise. */
static const char *comp_word(const char *path, int ncols, int j, char *buf, size_t n)
{
	size_t l = strlen(path);
	int mult = l >= 12 && strcmp(path + l - 12, "/multipliers") == 0;
	if (ncols == 4 && cli_is_quat(path, ncols))
		return (const char *[]){ "w", "x", "y", "z" }[j];
	if (ncols == 3 && !mult)
		return (const char *[]){ "x", "y", "z" }[j];
	snprintf(buf, n, "%d", j);
	return buf;
}

static void header(FILE *out, const struct col *c, int nc)
{
	cli_csv_field(out, "time [s]", 1);
	for (int i = 0; i < nc; i++)
		for (int j = c[i].c0; j < c[i].c1; j++) {
			char w[16], *h;
			/* a scalar series has no component word */
			if (c[i].d.cols == 1)
				h = xasprintf("%s [%s]", c[i].path + 1, c[i].units);
			else
				h = xasprintf("%s:%s [%s]", c[i].path + 1,
					      comp_word(c[i].path, c[i].d.cols, j, w, sizeof w),
					      c[i].units);
			cli_csv_field(out, h, 0);
			free(h);
		}
	fputc('\n', out);
}

static void number(FILE *out, double x)
{
	fputc(',', out);
	if (!isnan(x))
		fprintf(out, "%.17g", x);
}

static void rows(FILE *out, const struct h5r_data *t, const struct col *c, int nc)
{
	for (long k = 0; k < t->rows; k++) {
		fprintf(out, "%.17g", t->v[k]);
		for (int i = 0; i < nc; i++)
			for (int j = c[i].c0; j < c[i].c1; j++)
				number(out, c[i].d.v[k * c[i].d.cols + j]);
		fputc('\n', out);
	}
}

/* Read column set c (path, comp set) of f for ns samples; 0, or -1 with a
 * message in err. */
static int col_read(struct h5in *f, struct col *c, long ns, char *err, size_t errlen)
{
	char e[1024];
	if (h5r_read(f, c->path, &c->d, e, sizeof e)) {
		snprintf(err, errlen, "%s", e);
		return -1;
	}
	/* a killed run's series may be longer than /time (mbsim-output(5)) */
	if (c->d.rows < ns) {
		snprintf(err, errlen, "'%s' has %ld samples, /time %ld", c->path + 1, c->d.rows, ns);
		return -1;
	}
	if (h5r_units(f, c->path, c->units, sizeof c->units))
		snprintf(c->units, sizeof c->units, "?");
	c->c0 = 0, c->c1 = c->d.cols;
	if (c->comp) {
		int k = cli_comp_col(c->comp, c->path, c->d.cols);
		if (k < 0) {
			int quat = c->d.cols == 4 && cli_is_quat(c->path, c->d.cols);
			snprintf(err, errlen, "no component '%s' in %s with %d columns (use x, y, z%s "
				 "or an index 0..%d)", c->comp, c->path + 1, c->d.cols,
				 quat ? ", w" : "", c->d.cols - 1);
			return -1;
		}
		c->c0 = k, c->c1 = k + 1;
	}
	return 0;
}

/* The default columns of f: every series of the default groups. */
static int default_cols(struct h5in *f, struct col **pc)
{
	int n = 0;
	struct col *c = NULL;
	for (size_t g = 0; g < sizeof default_groups / sizeof default_groups[0]; g++) {
		char **names;
		int k = h5r_list(f, default_groups[g], &names);
		c = xrealloc(c, (size_t)(n + k + 1) * sizeof(*c));
		for (int i = 0; i < k; i++) {
			memset(&c[n], 0, sizeof(*c));
			c[n++].path = xstrdup(names[i]);
		}
		h5r_list_free(&names, k);
	}
	*pc = c;
	return n;
}

static void cols_release(struct col *c, int n)
{
	for (int i = 0; i < n; i++) {
		free(c[i].path);
		h5r_data_release(&c[i].d);
	}
	free(c);
}

/* FILE.h5 -> FILE.csv */
static char *csv_path(const char *h5)
{
	size_t n = strlen(h5);
	if (n > 3 && strcmp(h5 + n - 3, ".h5") == 0)
		n -= 3;
	return xasprintf("%.*s.csv", (int)n, h5);
}

/* Write out (a path, "-" for stdout) from what h5 holds; 0, or -1 after
 * the message. */
static int export_one(const char *h5, const char *out, char *const *quant, int nq, int quiet)
{
	char err[1200];
	int rc = -1, nc = 0;
	struct col *c = NULL;
	struct h5r_data t = { 0 };
	struct h5in *f = h5r_open(h5, err, sizeof err);
	if (!f || h5r_read_time(f, &t, err, sizeof err))
		goto out;
	if (nq) {
		c = xcalloc((size_t)nq, sizeof(*c));
		for (nc = 0; nc < nq; nc++)
			c[nc].path = cli_quant_path(quant[nc], &c[nc].comp);
	} else {
		nc = default_cols(f, &c);
	}
	/* every series read before the output is touched: a quantity that
	 * is missing leaves no file */
	for (int i = 0; i < nc; i++)
		if (col_read(f, &c[i], t.rows, err, sizeof err))
			goto out;
	int to_stdout = strcmp(out, "-") == 0;
	char *tmp = to_stdout ? NULL : xasprintf("%s.partial", out);
	FILE *o = to_stdout ? stdout : fopen(tmp, "w");
	if (!o) {
		snprintf(err, sizeof err, "cannot create '%s': %s", tmp, strerror(errno));
		free(tmp);
		goto out;
	}
	header(o, c, nc);
	rows(o, &t, c, nc);
	int bad = ferror(o) | (to_stdout ? fflush(o) != 0 : fclose(o) != 0);
	if (bad)
		snprintf(err, sizeof err, "writing '%s' failed", to_stdout ? "stdout" : tmp);
	else if (tmp && rename(tmp, out) != 0)
		snprintf(err, sizeof err, "cannot rename '%s' to '%s': %s", tmp, out,
			 strerror(errno)), bad = 1;
	if (bad && tmp)
		unlink(tmp);
	free(tmp);
	if (bad)
		goto out;
	if (!quiet && !to_stdout) {
		long ncol = 0;
		for (int i = 0; i < nc; i++)
			ncol += c[i].c1 - c[i].c0;
		fprintf(stderr, "mbsim: %s: %ld sample%s, %ld column%s besides time\n", out, t.rows,
			t.rows == 1 ? "" : "s", ncol, ncol == 1 ? "" : "s");
	}
	rc = 0;
out:
	if (rc)
		fprintf(stderr, "mbsim: error: %s: %s\n", h5, err);
	cols_release(c, nc);
	h5r_data_release(&t);
	h5r_close(&f);
	return rc;
}

int cmd_export_csv(int argc, char **argv)
{
	const char **files = xcalloc((size_t)argc + 1, sizeof(char *));
	char **quant = xcalloc((size_t)argc + 1, sizeof(char *));
	const char *out = NULL;
	int nf = 0, nq = 0, quiet = 0, rc = 0;
	for (int i = 1; i < argc && !rc; i++) {
		const char *a = argv[i], *v;
		int err = 0;
		if ((v = cli_optval(argc, argv, &i, "--quantity", USAGE_EXPORT, &err))) {
			quant[nq++] = (char *)v;
		} else if (!err && (v = cli_optval(argc, argv, &i, "-o", USAGE_EXPORT, &err))) {
			out = v;
		} else if (err) {
			rc = EXIT_USAGE;
		} else if (strcmp(a, "--csv") == 0) {
			continue;
		} else if (strcmp(a, "--quiet") == 0 || strcmp(a, "-q") == 0) {
			quiet = 1;
		} else if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
			printf("usage: %s", USAGE_EXPORT);
			rc = 1;
		} else if (strcmp(a, "--xdmf") == 0 || strcmp(a, "--every") == 0) {
			cli_usage_error(USAGE_EXPORT, "%s is an option of export --xdmf, not of --csv", a);
			rc = EXIT_USAGE;
		} else if (a[0] == '-' && a[1]) {
			static const char *const opts[] = { "--csv", "--quantity", "-o", "--quiet",
							    "-q", "--help", "-h", NULL };
			cli_usage_error(USAGE_EXPORT, "unknown option '%s'%s", a, cli_suggest(a, opts));
			rc = EXIT_USAGE;
		} else {
			files[nf++] = a;
		}
	}
	if (rc == 1) {
		rc = EXIT_OK;	/* --help */
		nf = 0;
	} else if (!rc && nf == 0) {
		cli_usage_error(USAGE_EXPORT, "no output file given");
		rc = EXIT_USAGE;
	} else if (!rc && out && nf > 1) {
		cli_usage_error(USAGE_EXPORT, "-o names the CSV of one file, not of %d", nf);
		rc = EXIT_USAGE;
	} else if (!rc && out && strcmp(out, files[0]) == 0) {
		cli_usage_error(USAGE_EXPORT, "-o '%s' is the file exported", out);
		rc = EXIT_USAGE;
	}
	for (int k = 0; k < nf && rc <= 0; k++) {
		char *o = out ? xstrdup(out) : csv_path(files[k]);
		if (export_one(files[k], o, quant, nq, quiet))
			rc = -1;	/* the other files are still written */
		free(o);
	}
	free(files);
	free(quant);
	return rc < 0 ? EXIT_SIM : rc;
}
