/* restart.c - mbsim run --restart FILE.h5[@T]: the checkpoint row of an
 * earlier run's file (/checkpoint, man mbsim-output(5)), checked against
 * the run it is to continue (cli.h). */
#include "cli.h"
#include "../io/h5read.h"
#include "../model/contact.h"
#include "../model/model.h"
#include "../sim/sim.h"
#include "../util/xalloc.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* FILE[@T]: T is what follows the last '@' when it is a number (a file
 * whose name has an '@' followed by a number is given as FILE@T). */
static char *split_time(const char *arg, double *T, int *has_t)
{
	const char *at = strrchr(arg, '@');
	*has_t = 0;
	if (at && at[1]) {
		char *end;
		errno = 0;
		double t = strtod(at + 1, &end);
		if (!*end && !errno && isfinite(t)) {
			*T = t;
			*has_t = 1;
			return xasprintf("%.*s", (int)(at - arg), arg);
		}
	}
	return xstrdup(arg);
}

/* t as the shortest text that reads back as t (what a user types) */
static void num(char *buf, size_t n, double t)
{
	snprintf(buf, n, "%.15g", t);
	if (strtod(buf, NULL) != t)
		snprintf(buf, n, "%.17g", t);
}

static int refuse(const char *fmt, const char *a, const char *b)
{
	fprintf(stderr, "mbsim: error: --restart: ");
	fprintf(stderr, fmt, a, b);
	fputc('\n', stderr);
	return EXIT_DECK;
}

/* The checkpoints' times as text, the last few. */
static void list_times(const struct h5r_data *t, long n, char *buf, size_t len)
{
	size_t k = 0;
	buf[0] = 0;
	long first = n > 8 ? n - 8 : 0;
	if (first)
		k += (size_t)snprintf(buf, len, "..., ");
	for (long i = first; i < n && k < len; i++) {
		char x[40];
		num(x, sizeof x, t->v[i]);
		k += (size_t)snprintf(buf + k, len - k, "%s%s", i > first ? ", " : "", x);
	}
}

/* The row at T (the last without T) into rs; 0 or EXIT_DECK. */
static int pick(struct h5in *f, const char *path, struct cli_restart *rs, int has_t, double T)
{
	struct h5r_data t = { 0 }, v = { 0 };
	char err[600];
	if (h5r_read(f, "/checkpoint/time", &t, err, sizeof err) ||
	    h5r_read(f, "/checkpoint/state", &v, err, sizeof err) || t.rows == 0 || v.rows == 0) {
		h5r_data_release(&t);
		h5r_data_release(&v);
		return refuse("'%s' holds no checkpoint (written before mbsim had restarts, or "
			      "killed before its first flush: output.flush_interval)%s", path, "");
	}
	long n = t.rows < v.rows ? t.rows : v.rows, row = n - 1;
	if (has_t) {
		/* the times as the file holds them; T as typed: 1e-9 of it */
		for (row = n - 1; row >= 0; row--)
			if (fabs(t.v[row] - T) <= 1e-9 * fmax(1.0, fabs(T)))
				break;
		if (row < 0) {
			char list[400], tt[40];
			list_times(&t, n, list, sizeof list);
			num(tt, sizeof tt, T);
			fprintf(stderr, "mbsim: error: --restart: t = %s is not a checkpoint of '%s' "
				"(a checkpoint is kept at each flush of the file and at its end: t = "
				"%s)\n", tt, path, list);
			h5r_data_release(&t);
			h5r_data_release(&v);
			return EXIT_DECK;
		}
	}
	rs->n = v.cols;
	rs->v = xmalloc((size_t)v.cols * sizeof(double));
	memcpy(rs->v, v.v + (size_t)row * (size_t)v.cols, (size_t)v.cols * sizeof(double));
	rs->t = t.v[row];
	h5r_data_release(&t);
	h5r_data_release(&v);
	return 0;
}

/* The header against the run: layout, model, scheme, time. */
static int check(struct h5in *f, const char *path, const struct cli_restart *rs,
		 const struct model *m, const struct sim_options *o)
{
	const double *h = rs->v;
	if (rs->n < SIM_CK_HEAD || h[SIM_CK_VERSION] != SIM_CK_LAYOUT ||
	    h[SIM_CK_SIZE] != (double)rs->n)
		return refuse("the checkpoint of '%s' has a layout this mbsim does not read%s",
			      path, "");
	if (m->contact && m->contact->model == CONTACT_SMOOTH)
		return refuse("the smooth contact model keeps a friction state per contact (its "
			      "stick springs), which a checkpoint does not hold yet: '%s' cannot "
			      "be continued%s", path, "");
	unsigned long long hash = model_structure_hash(m);
	if (h[SIM_CK_HASH_HI] != (double)(hash >> 32) ||
	    h[SIM_CK_HASH_LO] != (double)(hash & 0xffffffffULL))
		return refuse("'%s' is the output of another model: a restart needs the deck's "
			      "bodies, joints, drivers and force elements as they were (names, "
			      "types, connections; parameters may change)%s", path, "");
	if (h[SIM_CK_SCHEME] != (double)sim_ckpt_scheme_id(o->method)) {
		char was[128];
		int known = h5r_attr_str(f, "/", "integrator", was, sizeof was) == 0;
		fprintf(stderr, "mbsim: error: --restart: '%s' was written with %s%s%s, this "
			"run's is '%s': a scheme's memory (histories, step control) is its own; "
			"restart with the same integrator.method\n", path,
			known ? "integrator '" : "another integrator", known ? was : "",
			known ? "'" : "", o->method);
		return EXIT_DECK;
	}
	if (!(rs->t < o->t_end)) {
		char a[40], b[40];
		num(a, sizeof a, rs->t);
		num(b, sizeof b, o->t_end);
		return refuse("the checkpoint's time %s is not before time.end = %s", a, b);
	}
	return 0;
}

int cli_restart_read(const char *arg, const struct model *m, const struct sim_options *o,
		     struct cli_restart *rs)
{
	memset(rs, 0, sizeof(*rs));
	double T = 0;
	int has_t;
	rs->file = split_time(arg, &T, &has_t);
	char err[600];
	struct h5in *f = h5r_open(rs->file, err, sizeof err);
	if (!f) {
		fprintf(stderr, "mbsim: error: --restart: %s\n", err);
		cli_restart_free(rs);
		return EXIT_DECK;
	}
	int rc = pick(f, rs->file, rs, has_t, T);
	if (!rc)
		rc = check(f, rs->file, rs, m, o);
	h5r_close(&f);
	if (rc)
		cli_restart_free(rs);
	return rc;
}

void cli_restart_free(struct cli_restart *rs)
{
	free(rs->v);
	free(rs->file);
	memset(rs, 0, sizeof(*rs));
}
