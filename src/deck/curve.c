/* curve.c - deck sections of issue 15: tabulated curves (curves:), state
 * expressions of force elements (build_sexpr) and measures (measures:). */
#include "build.h"
#include "../model/sexpr.h"
#include "../util/file.h"
#include "../util/xalloc.h"

#include <errno.h>
#include <sys/stat.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int param_table(struct bctx *b, const char ***names, double **vals)
{
	int n = 0;
	while (expr_var_name(b->ex, n))
		n++;
	*names = xcalloc((size_t)n + 1, sizeof(char *));
	*vals = xcalloc((size_t)n + 1, sizeof(double));
	for (int i = 0; i < n; i++) {
		(*names)[i] = expr_var_name(b->ex, i);
		(*vals)[i] = expr_var_value(b->ex, i);
	}
	return n;
}

static int compile_in(struct bctx *b, const struct dnode *v, const char *key,
		      const char *what, int self, int road, struct sexpr **out)
{
	char buf[64];
	*out = NULL;
	if (v->kind != DN_SCALAR) {
		diag_error(b->d, &v->pos, "expected an expression for '%s' of %s, got %s", key,
			   what, dn_describe(v, buf, sizeof buf));
		return -1;
	}
	const char **names;
	double *vals;
	int n = param_table(b, &names, &vals);
	struct sx_scope sc = {
		.m = b->m, .pnames = names, .pvals = vals, .np = n,
		.curves = b->m->curves, .ncurves = b->m->ncurves, .self = self,
		.road = road, .cache = b->sxc,
	};
	struct sx_err err;
	int rc = sexpr_compile(v->str, &sc, out, &err);
	if (rc) {
		struct srcpos p = v->pos;
		p.col += v->quoted + err.pos;
		diag_error(b->d, &p, "%s in '%s' of %s", err.msg, key, what);
	}
	free(names);
	free(vals);
	return rc;
}

int build_sexpr(struct bctx *b, const struct dnode *v, const char *key, const char *what,
		int self, struct sexpr **out)
{
	return compile_in(b, v, key, what, self, 0, out);
}

int build_road(struct bctx *b, const struct dnode *v, const char *key, const char *what,
	       struct sexpr **out)
{
	return compile_in(b, v, key, what, 0, 1, out);
}

/* A curve file is a table someone wrote, not a data set: 64 MB at most
 * (and a regular file, so /dev/zero cannot hold the loader). */
#define CURVE_MAX_FILE (64 << 20)

const char *deck_keep(struct bctx *b, char *s)
{
	struct deck *dk = b->dk;
	if (!dk) {
		free(s);
		return NULL;
	}
	dk->kept = xrealloc(dk->kept, (size_t)(dk->nkept + 1) * sizeof(char *));
	return dk->kept[dk->nkept++] = s;
}

/* The rows of the CSV file at v (model/curve.h, curve_read_csv) into c; a
 * fault is reported at its FILE:LINE:COL, with a note at v. */
static int read_csv(struct bctx *b, const struct dnode *v, const char *what, struct curve *c)
{
	char *path = deck_file(b, v->str);
	struct stat st;
	FILE *f = NULL;
	int known = stat(path, &st) == 0;
	const char *kind = known ? file_not_regular(&st) : NULL;
	if (kind)
		diag_error(b->d, &v->pos, "'%s' of %s is %s", path, what, kind);
	else if (known && st.st_size > CURVE_MAX_FILE)
		diag_error(b->d, &v->pos, "'%s' of %s is larger than %d bytes", path, what,
			   CURVE_MAX_FILE);
	else if (!(f = fopen(path, "r")))
		diag_error(b->d, &v->pos, "cannot open '%s' of %s: %s", path, what, strerror(errno));
	if (!f) {
		free(path);
		return -1;
	}
	long line, col;
	char err[128];
	int rc = curve_read_csv(f, c, &line, &col, err, sizeof err);
	fclose(f);
	if (rc) {
		const char *kept = deck_keep(b, xstrdup(path));
		struct srcpos p = { kept, (int)line, (int)col };
		if (kept) {
			diag_error(b->d, &p, "%s in the file of %s", err, what);
			diag_note(b->d, &v->pos, "the file of %s is named here", what);
		} else {
			diag_error(b->d, &v->pos, "%s line %ld column %ld: %s", path, line, col, err);
		}
	}
	free(path);
	return rc;
}

static int numlist(struct bctx *b, const struct dnode *v, const char *key, double **out,
		   int *n)
{
	char buf[64];
	if (v->kind != DN_SEQ) {
		diag_error(b->d, &v->pos, "expected a list of numbers for '%s', got %s", key,
			   dn_describe(v, buf, sizeof buf));
		return -1;
	}
	*out = xcalloc((size_t)v->n + 1, sizeof(double));
	return get_numlist(b, v, key, *out, v->n, n);
}

/* The knots of c (interp set) from the lists under keys xk and yk of
 * item, or from its CSV 'file', checked and prepared (curve_prepare);
 * bad: an error reported already, check the rest only.  0, or 1 on an
 * error. */
int build_curve_data(struct bctx *b, const struct dnode *item, const char *xk,
		     const char *yk, const char *what, int bad, struct curve *c)
{
	const struct dnode *xv = dn_get(item, xk), *yv = dn_get(item, yk);
	const struct dnode *fv = dn_get(item, "file");
	if (fv && (xv || yv)) {
		diag_error(b->d, &fv->pos, "%s has both 'file' and '%s'/'%s'", what, xk, yk);
		bad = 1;
	} else if (fv) {
		const char *fs;
		bad |= get_str(b, fv, "file", &fs) || read_csv(b, fv, what, c);
	} else if (xv && yv) {
		int ny = 0;
		bad |= numlist(b, xv, xk, &c->x, &c->n) || numlist(b, yv, yk, &c->y, &ny);
		if (!bad && ny != c->n) {
			diag_error(b->d, &yv->pos, "%s has %d %s values and %d %s values", what,
				   c->n, xk, ny, yk);
			bad = 1;
		}
	} else {
		diag_error(b->d, &item->pos, "%s needs '%s' and '%s', or 'file'", what, xk, yk);
		bad = 1;
	}
	if (!bad && c->n < 2) {
		diag_error(b->d, &item->pos, "%s needs at least 2 points, got %d", what, c->n);
		bad = 1;
	}
	int k;
	if (!bad && curve_prepare(c, &k)) {
		diag_error(b->d, xv ? &xv->pos : &fv->pos,
			   "%s values of %s must be strictly increasing (point %d: %g after %g)",
			   xk, what, k + 1, c->x[k], c->x[k - 1]);
		bad = 1;
	}
	return bad;
}

void build_curve(struct bctx *b, const struct dnode *item)
{
	struct curve c = { 0 };
	const struct dnode *nv = need(b, item, "name", "curve"), *v;
	const char *name = NULL;
	char what[200];
	int bad = check_keys(b, item, key_sub(&key_top, "curves"), 0, NULL) > 0;
	if (!nv || get_name(b, nv, "curve", &name))
		return;
	snprintf(what, sizeof what, "curve '%s'", name);
	if (!expr_is_ident(name)) {
		diag_error(b->d, &nv->pos, "name of %s must be an identifier (letters, digits, _)",
			   what);
		bad = 1;
	}
	for (int i = 0; i < b->m->ncurves; i++)
		if (strcmp(b->m->curves[i].name, name) == 0) {
			diag_error(b->d, &nv->pos, "duplicate curve name '%s'", name);
			bad = 1;
		}
	if ((v = dn_get(item, "interpolation"))) {
		int k = pick_name(b, v, "interpolation", curve_interp_names, CURVE_NINTERP);
		bad |= k < 0;
		c.interp = k > 0 ? (enum curve_interp)k : CURVE_LINEAR;
	}
	if ((v = dn_get(item, "extrapolation"))) {
		int k = pick_name(b, v, "extrapolation", curve_extrap_names, 2);
		bad |= k < 0;
		c.extrap = k > 0 ? CURVE_EXTRAP_LINEAR : CURVE_EXTRAP_CONSTANT;
	}
	bad |= build_curve_data(b, item, "x", "y", what, bad, &c);
	if (bad) {
		curve_release(&c);
		return;
	}
	c.name = xstrdup(name);
	b->m->curves = xrealloc(b->m->curves, (size_t)(b->m->ncurves + 1) * sizeof(c));
	b->m->curves[b->m->ncurves++] = c;
}

void build_measure(struct bctx *b, const struct dnode *item)
{
	const struct dnode *nv = need(b, item, "name", "measure");
	const struct dnode *ev = need(b, item, "expression", "measure");
	const char *name = NULL;
	char what[200];
	int bad = check_keys(b, item, key_sub(&key_top, "measures"), 0, NULL) > 0;
	if (!nv || get_name(b, nv, "measure", &name))
		return;
	snprintf(what, sizeof what, "measure '%s'", name);
	for (int i = 0; i < b->m->nmeasures; i++)
		if (strcmp(b->m->measures[i].name, name) == 0) {
			dup_name(b, nv, "measure", &b->m->measures[i].pos);
			bad = 1;
		}
	struct sexpr *ex = NULL;
	if (!ev || build_sexpr(b, ev, "expression", what, 0, &ex) || bad) {
		sexpr_free(&ex);
		return;
	}
	struct model *m = b->m;
	m->measures = xrealloc(m->measures, (size_t)(m->nmeasures + 1) * sizeof(*m->measures));
	struct measure *ms = &m->measures[m->nmeasures++];
	ms->name = xstrdup(name);
	ms->ex = ex;
	ms->pos = item->pos;
}

static const char *const event_dir_names[] = { "both", "rising", "falling" };
static const char *const event_action_names[] = { "stop", "record" };

void build_event(struct bctx *b, const struct dnode *item)
{
	const struct dnode *nv = need(b, item, "name", "event");
	const struct dnode *cv = need(b, item, "condition", "event");
	const struct dnode *v;
	const char *name = NULL;
	char what[200];
	int bad = check_keys(b, item, key_sub(&key_top, "events"), 0, NULL) > 0;
	if (!nv || get_name(b, nv, "event", &name))
		return;
	snprintf(what, sizeof what, "event '%s'", name);
	for (int i = 0; i < b->m->nevents; i++)
		if (strcmp(b->m->events[i].name, name) == 0) {
			dup_name(b, nv, "event", &b->m->events[i].pos);
			bad = 1;
		}
	int dir = EVENT_BOTH, act = EVENT_RECORD;
	if ((v = dn_get(item, "direction"))) {
		dir = pick_name(b, v, "direction", event_dir_names, 3);
		bad |= dir < 0;
	}
	if ((v = dn_get(item, "action"))) {
		act = pick_name(b, v, "action", event_action_names, 2);
		bad |= act < 0;
	}
	struct sexpr *ex = NULL;
	if (!cv || build_sexpr(b, cv, "condition", what, 0, &ex) || bad) {
		sexpr_free(&ex);
		return;
	}
	struct model *m = b->m;
	m->events = xrealloc(m->events, (size_t)(m->nevents + 1) * sizeof(*m->events));
	struct event *e = &m->events[m->nevents++];
	e->name = xstrdup(name);
	e->ex = ex;
	e->dir = (enum event_dir)dir;
	e->action = (enum event_action)act;
	e->pos = item->pos;
}
