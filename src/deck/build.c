/* build.c - deck tree -> model and options: top level, parameters,
 * run options, and the expansion of repeat blocks. */
#include "build.h"
#include "deck.h"
#include "../integ/integ.h"
#include "../integ/registry.h"
#include "../model/sexpr.h"
#include "../util/interrupt.h"
#include "../util/vec.h"
#include "../util/xalloc.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Names the expression language already owns. */
static const char *const reserved[] = {
	"pi", "e", "_pi", "_e", "urand", "sin", "cos", "tan", "asin", "acos", "atan",
	"sinh", "cosh", "tanh", "asinh", "acosh", "atanh", "log2", "log10",
	"log", "ln", "exp", "sqrt", "sign", "rint", "abs", "min", "max",
	"sum", "avg", NULL
};

static int is_reserved(const char *s)
{
	for (int i = 0; reserved[i]; i++)
		if (strcmp(reserved[i], s) == 0)
			return 1;
	return 0;
}

/* parameters: evaluated in file order, each visible to the next. */
static void build_params(struct bctx *b, const struct dnode *v)
{
	if (!v || want_map(b, v, "parameters"))
		return;
	for (int i = 0; i < v->n; i++) {
		const struct dnode *k = v->keys[i];
		double x = NAN;
		/* an earlier key of this name is defined (names that fail the
		 * checks below fail them again): no O(n) search per key */
		if (expr_has(b->ex, k->str) && dn_find(v, k->str) < i) {
			diag_error(b->d, &k->pos, "duplicate key '%s'", k->str);
			diag_note(b->d, &v->keys[dn_find(v, k->str)]->pos,
				  "first defined here");
			continue;
		}
		if (!expr_is_ident(k->str)) {
			diag_error(b->d, &k->pos, "bad parameter name '%s' (letters, digits and _, not starting with a digit)",
				   k->str);
			continue;
		}
		if (is_reserved(k->str)) {
			diag_error(b->d, &k->pos, "parameter name '%s' is reserved by the expression language",
				   k->str);
			continue;
		}
		if (get_num(b, v->items[i], k->str, &x))
			b->param_failed = 1;
		expr_define(b->ex, k->str, x);
		if (!expr_usable(b->ex, k->str))
			diag_error(b->d, &k->pos, "parameter name '%s' is not accepted by the expression "
				   "language (muparser): too long?", k->str);
	}
}

static void check_positive(struct bctx *b, const struct dnode *map, const char *key,
			   const char *sect, double x)
{
	if (!(x > 0))
		diag_error(b->d, &dn_get(map, key)->pos, "%s.%s must be positive, got %g",
			   sect, key, x);
}

static void build_method(struct bctx *b, const struct dnode *v, struct sim_options *o)
{
	const char *s;
	if (get_str(b, v, "method", &s))
		return;
	o->method_pos = v->pos;
	if (strcmp(s, "auto") == 0) {
		/* chosen from the model once it is built (sim/choose.c); no
		 * scheme's checks before then */
		strcpy(o->method, s);
		o->method_auto = 1;
		return;
	}
	o->method_auto = 0;
	if (integ_find(s) && strlen(s) < sizeof o->method) {
		strcpy(o->method, s);
		return;
	}
	struct suggest sg;
	char sug[96];
	suggest_init(&sg, s);
	for (int i = 0; i < INTEG_COUNT; i++)
		suggest_add(&sg, integ_table[i].name);
	diag_error(b->d, &v->pos, "unknown integrator '%s'%s", s,
		   suggest_text(&sg, sug, sizeof sug));
}

/* integrator.formulation (after integrator.method): auto, rp or tree;
 * rp and tree only with the schemes that take them (integ_takes: the ODE
 * schemes on the seam of form/ode.h), named in the error. */
static void build_formulation(struct bctx *b, const struct dnode *v, struct sim_options *o)
{
	static const char *const forms[] = { "auto", "rp", "tree" };
	int k = pick_name(b, v, "formulation", forms, 3);
	if (k < 0)
		return;
	o->formulation = (enum sim_formulation)k;
	o->formulation_pos = v->pos;
	const struct integ_info *info = integ_find(o->method);
	if (k == FORM_AUTO || !info || integ_takes(info, forms[k]))
		return;
	char list[256] = "";
	size_t len = 0;
	for (int i = 0; i < INTEG_COUNT; i++)
		if (integ_takes(&integ_table[i], forms[k]) && len + 16 < sizeof list)
			len += (size_t)snprintf(list + len, sizeof list - len, "%s%s",
						len ? ", " : "", integ_table[i].name);
	diag_error(b->d, &v->pos, "integrator.formulation: %s needs one of the ODE schemes %s; "
		   "integrator '%s' works on formulation %s (formulation: auto)", forms[k], list,
		   info->name, info->formulation);
}

static void check_range(struct bctx *b, const struct dnode *map, const char *key,
			double x, double lo, double hi)
{
	if (!(x >= lo && x <= hi))
		diag_error(b->d, &dn_get(map, key)->pos,
			   "integrator.%s must be in [%g, %g], got %g", key, lo, hi, x);
}

/* Settings of the seed-004 schemes and of the step control (001 eq. 16). */
static void build_integrator_004(struct bctx *b, const struct dnode *v, struct sim_options *o)
{
	static const char *const startups[] = { "trapezoidal", "single_step" };
	static const char *const predictors[] = { "last", "extrapolate" };
	const struct dnode *s;
	if (opt_num(b, v, "rho_inf", &o->rho_inf) > 0)
		check_range(b, v, "rho_inf", o->rho_inf, 0.0, 1.0);
	if (opt_num(b, v, "alpha", &o->alpha) > 0)
		check_range(b, v, "alpha", o->alpha, -1.0 / 3.0, 0.0);
	opt_bool(b, v, "adaptive", &o->adaptive);
	opt_bool(b, v, "assess_error", &o->assess_error);
	long ix;
	if (opt_int(b, v, "index", &ix) > 0) {
		if (ix != 2 && ix != 3)
			diag_error(b->d, &dn_get(v, "index")->pos,
				   "integrator.index must be 2 or 3, got %ld", ix);
		else {
			o->index = (int)ix;
			o->index_pos = dn_get(v, "index")->pos;
		}
	}
	if (opt_num(b, v, "atol", &o->atol) > 0)
		check_positive(b, v, "atol", "integrator", o->atol);
	if (opt_num(b, v, "rtol", &o->rtol) > 0)
		check_range(b, v, "rtol", o->rtol, 0.0, 1.0);
	if (opt_num(b, v, "safety", &o->safety) > 0)
		check_range(b, v, "safety", o->safety, 1e-3, 1.0);
	if (opt_num(b, v, "facmin", &o->facmin) > 0)
		check_range(b, v, "facmin", o->facmin, 1e-3, 0.999);
	if (opt_num(b, v, "facmax", &o->facmax) > 0)
		check_range(b, v, "facmax", o->facmax, 1.001, 1e3);
	if (opt_num(b, v, "max_step", &o->max_step) > 0)
		check_positive(b, v, "max_step", "integrator", o->max_step);
	if ((s = dn_get(v, "startup"))) {
		int k = pick_name(b, s, "start-up", startups, 2);
		if (k >= 0)
			o->startup_ss = k;
	}
	if ((s = dn_get(v, "jacobian"))) {
		static const char *const jacs[] = { "auto", "differences" };
		int k = pick_name(b, s, "jacobian", jacs, 2);
		if (k >= 0)
			o->jac_differences = k;
	}
	if ((s = dn_get(v, "predictor"))) {
		int k = pick_name(b, s, "predictor", predictors, 2);
		if (k >= 0)
			o->predictor = k;
	}
}

/* Newmark family of seed 002 (newmark, tangent_newmark): a named variant
 * or beta and gamma.  The classical index-3 form cannot take beta = 0
 * (central differences): its positions at t_{n+1} would not depend on the
 * unknowns of the step, so Phi(q_{n+1}) = 0 could not be imposed (the
 * constraint rows of its Newton matrix, scaled by 1/(beta h^2), would
 * divide by zero). */
static void build_newmark(struct bctx *b, const struct dnode *v, struct sim_options *o)
{
	static const char *const variants[] = { "trapezoidal", "fox_goodwin", "linear_acceleration",
						"central_differences" };
	static const double vbeta[] = { 0.25, 1.0 / 12.0, 1.0 / 6.0, 0.0 };
	const struct dnode *s = dn_get(v, "variant"), *kb = dn_get(v, "beta"), *kg = dn_get(v, "gamma");
	if (s) {
		if (kb || kg) {
			diag_error(b->d, &(kb ? kb : kg)->pos, "integrator.%s cannot be given with "
				   "integrator.variant: the variant sets beta and gamma",
				   kb ? "beta" : "gamma");
			diag_note(b->d, &s->pos, "variant given here");
			return;
		}
		int k = pick_name(b, s, "Newmark variant", variants, 4);
		if (k < 0)
			return;
		o->nm_beta = vbeta[k];
		o->nm_gamma = 0.5;
		o->nm_beta_pos = s->pos;
	}
	if (opt_num(b, v, "beta", &o->nm_beta) > 0) {
		check_range(b, v, "beta", o->nm_beta, 0.0, 1.0);
		o->nm_beta_pos = kb->pos;
	}
	if (opt_num(b, v, "gamma", &o->nm_gamma) > 0)
		check_range(b, v, "gamma", o->nm_gamma, 0.5, 1.0);
	if (strcmp(o->method, "newmark") == 0 && o->nm_beta == 0.0 && o->nm_beta_pos.line > 0)
		diag_error(b->d, &o->nm_beta_pos, "newmark cannot take beta = 0 (central differences): "
			   "in the index-3 form the positions of a step would not depend on its "
			   "unknowns, so the constraints could not be imposed; use tangent_newmark, "
			   "or a beta > 0 (see mbsim-deck(5))");
}

static void build_integrator(struct bctx *b, const struct dnode *v, struct sim_options *o)
{
	static const char *const solvers[] = { "auto", "schur", "umfpack" };
	const struct dnode *s;
	long it;

	check_keys(b, v, key_sub(&key_top, "integrator"), 0, NULL);
	if ((s = dn_get(v, "method")))
		build_method(b, s, o);
	if ((s = dn_get(v, "formulation")))
		build_formulation(b, s, o);
	if (opt_num(b, v, "step", &o->step) > 0)
		check_positive(b, v, "step", "integrator", o->step);
	if (opt_num(b, v, "tolerance", &o->tolerance) > 0)
		check_positive(b, v, "tolerance", "integrator", o->tolerance);
	if (opt_int(b, v, "max_iterations", &it) > 0) {
		if (it < 1 || it > 1000000)
			diag_error(b->d, &dn_get(v, "max_iterations")->pos,
				   "integrator.max_iterations must be at least 1, got %ld", it);
		else
			o->max_iterations = (int)it;
	}
	if ((s = dn_get(v, "linear_solver"))) {
		int k = pick_name(b, s, "linear solver", solvers, 3);
		if (k >= 0)
			strcpy(o->linear_solver, solvers[k]);
	}
	build_integrator_004(b, v, o);
	build_newmark(b, v, o);
	/* the assessment compares two runs of steps the scheme chose */
	const struct integ_info *info = integ_find(o->method);
	if (o->assess_error && info && !integ_chooses_steps(info, o))
		diag_error(b->d, &dn_get(v, "assess_error")->pos, "integrator.assess_error "
			   "(--assess-error) assesses a run whose scheme chooses its steps, and "
			   "integrator '%s' takes fixed steps here: set integrator.adaptive with "
			   "a scheme that has an error estimate (`mbsim list integrators`), or "
			   "take adams or bdf", info->name);
}

static void build_time(struct bctx *b, const struct dnode *v, struct sim_options *o)
{
	check_keys(b, v, key_sub(&key_top, "time"), 0, NULL);
	int ok = opt_num(b, v, "start", &o->t0) >= 0;
	ok &= req_num(b, v, "end", "time", &o->t_end) > 0;
	if (ok && !(o->t_end > o->t0))
		diag_error(b->d, &dn_get(v, "end")->pos,
			   "time.end (%g) must be greater than time.start (%g)",
			   o->t_end, o->t0);
}

/* time and integrator.step against the limits of the time axis
 * (sim_options_check_time), once both sections read without error. */
static void check_time_axis(struct bctx *b, const struct dnode *root, struct sim_options *o)
{
	const struct dnode *t = dn_get(root, "time"), *in = dn_get(root, "integrator");
	const struct dnode *end = t && t->kind == DN_MAP ? dn_get(t, "end") : NULL;
	const struct dnode *step = in && in->kind == DN_MAP ? dn_get(in, "step") : NULL;
	char msg[512];
	int which;
	if (end && sim_options_check_time(o, &which, msg, sizeof msg))
		diag_error(b->d, which && step ? &step->pos : &end->pos, "%s", msg);
}

/* b follows a by less than the shortest step (a step that short cannot
 * be resolved) without being a. */
static int sliver(double b, double a)
{
	return b != a && b - a < sim_min_step(b);
}

/* output.times: increasing sample times in [time.start, time.end], each
 * at least sim_min_step after the one before (deck-owned array). */
static void build_out_times(struct bctx *b, const struct dnode *v, struct sim_options *o)
{
	char buf[64];
	if (v->kind != DN_SEQ || v->n == 0) {
		diag_error(b->d, &v->pos, "expected a list of 1 or more sample times for "
			   "'times', got %s", dn_describe(v, buf, sizeof buf));
		return;
	}
	double *t = xcalloc((size_t)v->n, sizeof(double));
	int ok = 1;
	for (int i = 0; i < v->n && ok; i++) {
		const struct dnode *x = v->items[i];
		if (get_num(b, x, "times", &t[i])) {
			ok = 0;
		} else if (!(t[i] >= o->t0 && t[i] <= o->t_end)) {
			diag_error(b->d, &x->pos, "output.times[%d] = %g is outside the interval "
				   "[time.start, time.end] = [%g, %g]", i, t[i], o->t0, o->t_end);
			ok = 0;
		} else if (i > 0 && !(t[i] - t[i - 1] >= sim_min_step(t[i]))) {
			diag_error(b->d, &x->pos, "output.times[%d] = %.17g does not follow "
				   "output.times[%d] = %.17g by at least %g s (times increase, "
				   "1e-12 max(1 s, |t|) apart)", i, t[i], i - 1, t[i - 1],
				   sim_min_step(t[i]));
			ok = 0;
		} else if (sliver(t[i], o->t0) || sliver(o->t_end, t[i])) {
			diag_error(b->d, &x->pos, "output.times[%d] = %.17g is closer than %g s "
				   "(1e-12 max(1 s, |t|)) to time.%s without being equal to it", i,
				   t[i], sim_min_step(t[i]), sliver(t[i], o->t0) ? "start" : "end");
			ok = 0;
		}
	}
	if (!ok) {
		free(t);
		return;
	}
	free(b->dk->out_times);
	b->dk->out_times = t;
	o->times = t;
	o->ntimes = v->n;
}

static void build_output(struct bctx *b, const struct dnode *v, struct sim_options *o,
			 int time_ok)
{
	long every;
	check_keys(b, v, key_sub(&key_top, "output"), 0, NULL);
	if (opt_int(b, v, "every", &every) > 0) {
		if (every < 1 || every > 1000000000)
			diag_error(b->d, &dn_get(v, "every")->pos,
				   "output.every must be at least 1, got %ld", every);
		else
			o->every = (int)every;
	}
	const struct dnode *t = dn_get(v, "times");
	if (t && dn_get(v, "every"))
		diag_error(b->d, &t->pos, "output.times and output.every exclude each other: "
			   "samples are written either at the listed times or every k-th step");
	else if (t && time_ok)
		build_out_times(b, t, o);
	if (opt_num(b, v, "flush_interval", &o->flush_interval) > 0 &&
	    !(o->flush_interval >= 0 && o->flush_interval <= 1e9))
		diag_error(b->d, &dn_get(v, "flush_interval")->pos,
			   "output.flush_interval must be at least 0 s, got %g", o->flush_interval);
	long level;
	if (opt_int(b, v, "compression", &level) > 0) {
		if (level < 0 || level > 9)
			diag_error(b->d, &dn_get(v, "compression")->pos,
				   "output.compression must be a deflate level 0 to 9, got %ld", level);
		else
			o->compression = (int)level;
	}
	const char *seq;
	int ax[3];
	if (opt_str(b, v, "euler", &seq) > 0) {
		if (euler_seq(seq, ax))
			diag_error(b->d, &dn_get(v, "euler")->pos,
				   "output.euler must be three of x, y, z with no two neighbours "
				   "equal (e.g. zyx, zxz, xyz), got '%s'", seq);
		else
			snprintf(o->euler, sizeof o->euler, "%s", seq);
	}
	opt_bool(b, v, "joint_frame_reactions", &o->joint_frame);
}

static void build_options(struct bctx *b, const struct dnode *root, struct sim_options *o)
{
	const struct dnode *v;
	int nerr = b->d->nerr;

	if ((v = need(b, root, "time", key_top.noun)) && !want_map(b, v, "time"))
		build_time(b, v, o);
	if ((v = dn_get(root, "integrator")) && !want_map(b, v, "integrator"))
		build_integrator(b, v, o);
	if (b->d->nerr == nerr)
		check_time_axis(b, root, o);
	/* output.times is checked against a valid interval only */
	if ((v = dn_get(root, "output")) && !want_map(b, v, "output"))
		build_output(b, v, o, b->d->nerr == nerr);
	if ((v = dn_get(root, "initial")) && !want_map(b, v, "initial")) {
		check_keys(b, v, key_sub(&key_top, "initial"), 0, NULL);
		opt_bool(b, v, "assemble", &o->assemble);
		if (opt_num(b, v, "tolerance", &o->assemble_tol) > 0)
			check_positive(b, v, "tolerance", "initial", o->assemble_tol);
	}
}

/* Replace every "{expr}" in s by the integer value of expr. NULL after
 * reporting at pos. */
static char *subst_braces(struct bctx *b, const char *s, const struct srcpos *pos)
{
	size_t cap = strlen(s) + 32, len = 0;
	const char *whole = s;
	char *out = xmalloc(cap);
	while (*s) {
		const char *close;
		char num[32], *inner;
		const char *piece = s;
		size_t n = 1;
		if (*s == '{') {
			if (!(close = strchr(s, '}'))) {
				diag_error(b->d, pos, "unmatched '{' in '%s'", whole);
				free(out);
				return NULL;
			}
			inner = xasprintf("%.*s", (int)(close - s - 1), s + 1);
			double x;
			struct expr_err e;
			int rc = expr_eval(b->ex, inner, &x, &e);
			if (rc)
				diag_error(b->d, pos, "bad expression '{%s}' in '%s': %s", inner,
					   whole, e.msg);
			else if (x != floor(x) || fabs(x) > 1e15)
				diag_error(b->d, pos, "'{%s}' in '%s' is not an integer (%g)", inner,
					   whole, x);
			free(inner);
			if (rc || x != floor(x) || fabs(x) > 1e15) {
				free(out);
				return NULL;
			}
			snprintf(num, sizeof num, "%.0f", x);
			piece = num;
			n = strlen(num);
			s = close + 1;
		} else {
			s++;
		}
		if (len + n + 1 > cap)
			out = xrealloc(out, cap = 2 * (len + n + 1));
		memcpy(out + len, piece, n);
		len += n;
	}
	out[len] = 0;
	return out;
}

/* Substitute braces in every scalar of n (not in keys). -1 on error. */
static int subst_tree(struct bctx *b, struct dnode *n)
{
	if (n->kind == DN_SCALAR) {
		if (!strchr(n->str, '{'))
			return 0;
		char *s = subst_braces(b, n->str, &n->pos);
		if (!s)
			return -1;
		free(n->str);
		n->str = s;
		return 0;
	}
	for (int i = 0; i < n->n; i++)
		if (subst_tree(b, n->items[i]))
			return -1;
	return 0;
}

typedef void (*item_fn)(struct bctx *b, const struct dnode *item);

/* Read repeat: {index, from, to}; 0 with the range, or -1. */
static int repeat_range(struct bctx *b, const struct dnode *rep,
			const struct key_sect *sect, const char **index,
			long *from, long *to)
{
	const struct dnode *iv;
	*from = 1;
	if (want_map(b, rep, "repeat"))
		return -1;
	int nerr = check_keys(b, rep, key_sub(sect, "repeat"), 0, NULL);
	int bad = req_str(b, rep, "index", "repeat", index) < 0;
	bad |= opt_int(b, rep, "from", from) < 0;
	const struct dnode *tv = need(b, rep, "to", "repeat");
	bad |= !tv || get_int(b, tv, "to", to) < 0;
	if (bad || nerr)
		return -1;
	iv = dn_get(rep, "index");
	if (!expr_is_ident(*index) || is_reserved(*index)) {
		diag_error(b->d, &iv->pos, "bad repeat index '%s' (expected an identifier)",
			   *index);
		return -1;
	}
	if (expr_has(b->ex, *index)) {
		diag_error(b->d, &iv->pos, "repeat index '%s' hides a parameter of the same name",
			   *index);
		return -1;
	}
	if (*to - *from >= 1000000) {
		diag_error(b->d, &rep->pos, "repeat of %ld items is too many", *to - *from + 1);
		return -1;
	}
	return 0;
}

/* Instantiate item once per index value; stop at the first instance with
 * errors so one mistake is not reported N times. */
static void build_repeated(struct bctx *b, const struct dnode *item, const char *list,
			   const struct key_sect *sect, item_fn fn)
{
	const char *index;
	long from, to;
	if (repeat_range(b, dn_get(item, "repeat"), sect, &index, &from, &to))
		return;
	char *name = xstrdup(index);
	for (long i = from; i <= to; i++) {
		int nerr = b->d->nerr;
		if (interrupted()) {
			diag_error(b->d, &item->pos, "interrupted while building %s %ld of %ld "
				   "(%s = %ld)", sect->noun, i - from + 1, to - from + 1, name, i);
			b->stopped = 1;
			break;
		}
		expr_define(b->ex, name, (double)i);
		struct dnode *copy = dn_copy(item);
		int r = dn_find(copy, "repeat");
		dn_free(copy->keys[r]);
		dn_free(copy->items[r]);
		memmove(copy->keys + r, copy->keys + r + 1, (size_t)(copy->n - r - 1) * sizeof(*copy->keys));
		memmove(copy->items + r, copy->items + r + 1, (size_t)(copy->n - r - 1) * sizeof(*copy->items));
		copy->n--;
		int set_errs = 0;
		if (subst_tree(b, copy) == 0) {
			/* a --set that fails leaves the copy as the deck has it: build
			 * it and go on, so that references to this copy and the next
			 * do not fail after it (the --set error is not repeated) */
			int before = b->d->nerr;
			if (b->dk)
				deck_set_repeated(b->dk, list, copy, b->d);
			set_errs = b->d->nerr - before;
			fn(b, copy);
		}
		dn_free(copy);
		if (b->d->nerr - set_errs > nerr)
			break;
	}
	expr_undefine(b->ex, name);
	free(name);
}

static void build_list(struct bctx *b, const struct dnode *root, const char *key,
		       item_fn fn)
{
	const struct dnode *v = dn_get(root, key);
	const struct key_sect *sect = key_sub(&key_top, key);
	char buf[64];
	if (!v)
		return;
	if (v->kind != DN_SEQ) {
		diag_error(b->d, &v->pos, "expected a list for '%s', got %s", key,
			   dn_describe(v, buf, sizeof buf));
		return;
	}
	for (int i = 0; i < v->n && !b->stopped; i++) {
		const struct dnode *item = v->items[i];
		if (interrupted()) {
			diag_error(b->d, &item->pos, "interrupted while building %s %d of %d in '%s'",
				   sect->noun, i + 1, v->n, key);
			b->stopped = 1;
		} else if (item->kind != DN_MAP)
			diag_error(b->d, &item->pos, "expected a mapping for %s in '%s', got %s",
				   sect->noun, key, dn_describe(item, buf, sizeof buf));
		else if (dn_get(item, "repeat") && key_sub(sect, "repeat"))
			build_repeated(b, item, key, sect, fn);
		else
			fn(b, item);
	}
}

/* --set of repeat copies that named none (after the lists are built,
 * when no other error can have stopped an expansion early) */
static void check_set_unused(struct bctx *b)
{
	struct model *m = b->m;
	int n = m->nbodies + m->njoints + m->ndrivers + m->nforces + m->npoints, k = 0;
	const char **names = xcalloc((size_t)n + 1, sizeof(char *));
	for (int i = 0; i < m->nbodies; i++)
		names[k++] = m->bodies[i].name;
	deck_set_unused(b->dk, "bodies", names, k, b->d);
	k = 0;
	for (int i = 0; i < m->njoints; i++)
		names[k++] = m->joints[i].name;
	deck_set_unused(b->dk, "joints", names, k, b->d);
	k = 0;
	for (int i = 0; i < m->ndrivers; i++)
		names[k++] = m->drivers[i].name;
	deck_set_unused(b->dk, "drivers", names, k, b->d);
	k = 0;
	for (int i = 0; i < m->nforces; i++)
		names[k++] = m->forces[i].name;
	deck_set_unused(b->dk, "forces", names, k, b->d);
	k = 0;
	for (int i = 0; i < m->npoints; i++)
		names[k++] = m->points[i].name;
	deck_set_unused(b->dk, "points", names, k, b->d);
	free(names);
}

char *deck_file(const struct bctx *b, const char *file)
{
	const char *deck = b->dk ? b->dk->path : NULL;
	const char *slash = deck ? strrchr(deck, '/') : NULL;
	if (file[0] == '/' || !slash)
		return xstrdup(file);
	return xasprintf("%.*s/%s", (int)(slash - deck), deck, file);
}

static void build_top(struct bctx *b, const struct dnode *root, struct sim_options *o)
{
	const char *title = NULL;
	long seed = 1;

	check_keys(b, root, &key_top, 0, NULL);
	/* the seed is read in a scope without parameters (urand depends on
	 * it), then the deck's scope is made with it */
	b->ex = expr_new(1);
	if (opt_int(b, root, "seed", &seed) > 0 && seed < 0)
		diag_error(b->d, &dn_get(root, "seed")->pos,
			   "seed must not be negative, got %ld", seed);
	expr_free(&b->ex);
	o->seed = seed < 0 ? 1 : (unsigned long)seed;
	b->ex = expr_new(o->seed);
	build_params(b, dn_get(root, "parameters"));
	build_options(b, root, o);
	{
		const struct integ_info *info = integ_find(o->method);
		/* auto chooses bdf for them */
		b->singular_ok = o->method_auto || (info && info->id == INTEG_BDF);
	}
	if (opt_str(b, root, "title", &title) > 0)
		b->m->title = xstrdup(title);
	v3_set(b->m->gravity, 0, 0, -9.81);
	opt_vec3(b, root, "gravity", b->m->gravity);
	build_list(b, root, "curves", build_curve);
	build_contact_top(b, root);
	build_list(b, root, "bodies", build_body);
	check_contact(b);
	build_list(b, root, "beams", build_beam);
	/* points before anything whose expressions may name them (x.POINT) */
	build_list(b, root, "points", build_point);
	build_list(b, root, "joints", build_joint);
	build_list(b, root, "drivers", build_driver);
	build_list(b, root, "forces", build_force);
	build_list(b, root, "measures", build_measure);
	build_list(b, root, "events", build_event);
}

int deck_build(struct deck *dk, struct model **m, struct sim_options *o,
	       struct diag *d)
{
	struct bctx b = { .d = d, .root = dk->root, .dk = dk };
	char buf[64];
	int nerr = d->nerr;

	*m = NULL;
	sim_options_default(o);
	if (!dk->root) {
		diag_error(d, NULL, "deck '%s' was built already", dk->path);
		return -1;
	}
	if (dk->root->kind != DN_MAP) {
		diag_error(d, &dk->root->pos, "top level of the deck must be a mapping, got %s",
			   dn_describe(dk->root, buf, sizeof buf));
		return -1;
	}
	b.m = model_new();
	for (int i = 0; i < dk->npend; i++)
		dk->pend[i].used = 0;
	b.sxc = sx_cache_new();
	build_top(&b, dk->root, o);
	sx_cache_free(&b.sxc);
	expr_free(&b.ex);
	if (d->nerr == nerr)
		check_set_unused(&b);
	if (d->nerr == nerr && model_finalize(b.m, d) == 0 && d->nerr == nerr) {
		*m = b.m;
		/* the model holds all it needs (positions point at dk->path):
		 * a deck written out in full is a tree of some 3 KB per body */
		dn_free(dk->root);
		dk->root = NULL;
		model_drop_index(*m);
		return 0;
	}
	model_free(&b.m);
	return -1;
}
