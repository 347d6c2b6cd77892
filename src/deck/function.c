/* function.c - time functions of drivers and forces (struct func). */
#include "build.h"
#include "../model/curve.h"
#include "../model/texpr.h"
#include "../util/xalloc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The function section of drivers (and of every other function of time)
 * and that of a piecewise segment's own law. */
static const struct key_sect *func_sect(int in_segment)
{
	const struct key_sect *s = key_sub(key_sub(&key_top, "drivers"), "function");
	return in_segment ? key_sub(key_sub(s, "segments"), "function") : s;
}

static int build_func_in(struct bctx *b, const struct dnode *v, const char *key,
			 const char *what, struct func *fn, int in_segment);

/* Required numbers key[i] -> c[i]; returns -1 if any failed. */
static int req_nums(struct bctx *b, const struct dnode *v, const char *what,
		    const char *const *keys, int n, double *c)
{
	int bad = 0;
	for (int i = 0; i < n; i++)
		bad |= req_num(b, v, keys[i], what, &c[i]) < 0;
	return bad ? -1 : 0;
}

static int func_piecewise(struct bctx *b, const struct dnode *v, const char *what,
			  struct func *fn)
{
	const struct dnode *sv = need(b, v, "segments", what);
	char buf[64];
	if (!sv)
		return -1;
	if (sv->kind != DN_SEQ || sv->n == 0) {
		diag_error(b->d, &sv->pos, "expected a non-empty list for 'segments', got %s",
			   sv->kind == DN_SEQ ? "an empty list" : dn_describe(sv, buf, sizeof buf));
		return -1;
	}
	fn->seg = xcalloc((size_t)sv->n, sizeof(*fn->seg));
	fn->nseg = sv->n;
	int bad = 0;
	for (int i = 0; i < sv->n; i++) {
		const struct dnode *s = sv->items[i];
		struct func_seg *g = &fn->seg[i];
		if (want_map(b, s, "segments")) {
			bad = 1;
			continue;
		}
		bad |= check_keys(b, s, key_sub(func_sect(0), "segments"), 0, NULL) > 0;
		bad |= req_num(b, s, "start", "segment", &g->t0) < 0;
		const struct dnode *cv = dn_get(s, "coefficients"), *fv = dn_get(s, "function");
		if (cv && fv) {
			diag_error(b->d, &fv->pos, "a segment of %s has both 'coefficients' and "
				   "'function'", what);
			bad = 1;
		} else if (fv) {
			g->fn = xcalloc(1, sizeof(*g->fn));
			bad |= build_func_in(b, fv, "function", "segment", g->fn, 1) < 0;
		} else {
			cv = need(b, s, "coefficients", "segment");
			bad |= !cv || get_numlist(b, cv, "coefficients", g->c, FUNC_MAXC, &g->n) < 0;
		}
		if (!bad && i > 0 && !(g->t0 > fn->seg[i - 1].t0)) {
			diag_error(b->d, &dn_get(s, "start")->pos,
				   "segment starts of %s must be strictly increasing", what);
			bad = 1;
		}
	}
	return bad ? -1 : 0;
}

/* rate_ramps: the initial rate 'from' and the value at t = 0 'value'
 * (both default 0), and 'ramps', each {start, end, to}: seg[k].t0 =
 * start, c[0] = end, c[1] = to. */
static int func_rate_ramps(struct bctx *b, const struct dnode *v, const char *what,
			   struct func *fn)
{
	static const char *const rk[] = { "start", "end", "to" };
	const struct dnode *sv = need(b, v, "ramps", what);
	char buf[64];
	int bad = (opt_num(b, v, "from", &fn->c[0]) < 0) | (opt_num(b, v, "value", &fn->c[1]) < 0);
	if (!sv)
		return -1;
	if (sv->kind != DN_SEQ || sv->n == 0) {
		diag_error(b->d, &sv->pos, "expected a non-empty list for 'ramps', got %s",
			   sv->kind == DN_SEQ ? "an empty list" : dn_describe(sv, buf, sizeof buf));
		return -1;
	}
	fn->seg = xcalloc((size_t)sv->n, sizeof(*fn->seg));
	fn->nseg = sv->n;
	for (int i = 0; i < sv->n; i++) {
		const struct dnode *s = sv->items[i];
		struct func_seg *g = &fn->seg[i];
		double c[3];
		if (want_map(b, s, "ramps")) {
			bad = 1;
			continue;
		}
		bad |= check_keys(b, s, key_sub(func_sect(0), "ramps"), 0, NULL) > 0;
		if (req_nums(b, s, "ramp", rk, 3, c)) {
			bad = 1;
			continue;
		}
		g->t0 = c[0];
		g->c[0] = c[1];
		g->c[1] = c[2];
		g->n = 2;
		if (!(c[1] > c[0])) {
			diag_error(b->d, &dn_get(s, "end")->pos,
				   "end of a ramp of %s must be greater than its start", what);
			bad = 1;
		} else if (i > 0 && !(g->t0 >= fn->seg[i - 1].c[0])) {
			diag_error(b->d, &dn_get(s, "start")->pos,
				   "a ramp of %s starts before the one above it ends (%g s)", what,
				   fn->seg[i - 1].c[0]);
			bad = 1;
		}
	}
	return bad ? -1 : 0;
}

/* expression: the text in t and the deck's parameters (texpr.h). */
static int func_expression(struct bctx *b, const struct dnode *v, const char *what,
			   struct func *fn)
{
	const struct dnode *ev = need(b, v, "expression", what);
	const char *text;
	if (!ev || get_str(b, ev, "expression", &text))
		return -1;
	if (strlen(text) > EXPR_MAX_LEN) {
		/* muparser, which reads it too, has fixed buffers (expr.h) */
		diag_error(b->d, &ev->pos, "'expression' of %s is longer than %d characters", what,
			   EXPR_MAX_LEN);
		return -1;
	}
	const char **names;
	double *vals;
	int n = param_table(b, &names, &vals);
	struct tx_err err;
	int rc = texpr_compile(text, names, vals, n, &fn->ex, &err);
	if (rc) {
		struct srcpos p = ev->pos;
		p.col += ev->quoted + err.pos;
		diag_error(b->d, &p, "%s in 'expression' of %s", err.msg, what);
	}
	free(names);
	free(vals);
	return rc;
}

/* Deck spelling of a table's interpolation, in enum curve_interp order. */
static const char *const table_interp[CURVE_NINTERP] = {
	"linear", "monotone", "spline", "natural_spline"
};

/* table: times and values, or a CSV file of rows "t,value" (the reader of
 * curves:), interpolated as curve.h says. */
static int func_table(struct bctx *b, const struct dnode *v, const char *what, struct func *fn)
{
	const struct dnode *iv = dn_get(v, "interpolation"), *xv = dn_get(v, "extrapolation");
	struct curve *c = fn->tab = xcalloc(1, sizeof(*c));
	int bad = 0, k;
	if (iv) {
		bad |= (k = pick_name(b, iv, "interpolation", table_interp, CURVE_NINTERP)) < 0;
		c->interp = k > 0 ? (enum curve_interp)k : CURVE_LINEAR;
	}
	if (xv) {
		bad |= (k = pick_name(b, xv, "extrapolation", curve_extrap_names, 2)) < 0;
		c->extrap = k > 0 ? CURVE_EXTRAP_LINEAR : CURVE_EXTRAP_CONSTANT;
	}
	return build_curve_data(b, v, "times", "values", what, bad, c) ? -1 : 0;
}

static int func_body(struct bctx *b, const struct dnode *v, const char *what,
		     struct func *fn)
{
	static const char *const ramp[] = { "from", "to", "start", "end" };
	static const char *const harm[] = { "amplitude", "omega" };
	const struct dnode *cv;

	switch (fn->type) {
	case FUNC_CONSTANT:
		return req_num(b, v, "value", what, &fn->c[0]) < 0 ? -1 : 0;
	case FUNC_RATE:
		return (req_num(b, v, "rate", what, &fn->c[1]) < 0) |
		       (opt_num(b, v, "value", &fn->c[0]) < 0) ? -1 : 0;
	case FUNC_POLYNOMIAL:
		cv = need(b, v, "coefficients", what);
		return !cv || get_numlist(b, cv, "coefficients", fn->c, FUNC_MAXC, &fn->n) ? -1 : 0;
	case FUNC_HARMONIC:
		return (req_nums(b, v, what, harm, 2, fn->c + 1) < 0) |
		       (opt_num(b, v, "offset", &fn->c[0]) < 0) |
		       (opt_num(b, v, "phase", &fn->c[3]) < 0) ? -1 : 0;
	case FUNC_COSINE_RAMP:
	case FUNC_STEP:
	case FUNC_STEP5:
		if (req_nums(b, v, what, ramp, 4, fn->c))
			return -1;
		if (!(fn->c[3] > fn->c[2])) {
			diag_error(b->d, &dn_get(v, "end")->pos,
				   "end of %s in %s must be greater than its start",
				   func_type_names[fn->type], what);
			return -1;
		}
		return 0;
	case FUNC_RATE_RAMPS:
		return func_rate_ramps(b, v, what, fn);
	case FUNC_EXPRESSION:
		return func_expression(b, v, what, fn);
	case FUNC_TABLE:
		return func_table(b, v, what, fn);
	default:
		return func_piecewise(b, v, what, fn);
	}
}

/* The function type at tv: its index, or -1 after an error that lists
 * the known types (a piecewise segment's own law cannot be piecewise). */
static int func_type(struct bctx *b, const struct dnode *tv, int in_segment)
{
	int t = pick_name(b, tv, "function type", func_type_names, FUNC_NTYPES);
	if (t == FUNC_PIECEWISE && in_segment) {
		diag_error(b->d, &tv->pos, "the function of a piecewise segment cannot be "
			   "piecewise itself");
		t = -1;
	}
	if (t < 0) {
		char list[256] = "";
		for (int i = 0; i < FUNC_NTYPES; i++)
			if (!(in_segment && i == FUNC_PIECEWISE))
				snprintf(list + strlen(list), sizeof list - strlen(list), "%s%s",
					 *list ? ", " : "", func_type_names[i]);
		diag_note(b->d, &tv->pos, "function types: %s", list);
	}
	return t;
}

static int build_func_in(struct bctx *b, const struct dnode *v, const char *key,
			 const char *what, struct func *fn, int in_segment)
{
	char fwhat[200], tdesc[240];
	memset(fn, 0, sizeof(*fn));
	if (want_map(b, v, key))
		return -1;
	snprintf(fwhat, sizeof fwhat, "%s of %s", key, what);
	const struct dnode *tv = need(b, v, "type", fwhat);
	int t = tv ? func_type(b, tv, in_segment) : -1;
	snprintf(tdesc, sizeof tdesc, "%s %s", t >= 0 ? func_type_names[t] : "", fwhat);
	int nerr = check_keys(b, v, func_sect(in_segment), t >= 0 ? 1u << t : 0, tdesc);
	if (t < 0)
		return -1;
	fn->type = (enum func_type)t;
	return func_body(b, v, fwhat, fn) || nerr ? -1 : 0;
}

int build_func(struct bctx *b, const struct dnode *v, const char *key,
	       const char *what, struct func *fn)
{
	return build_func_in(b, v, key, what, fn, 0);
}
