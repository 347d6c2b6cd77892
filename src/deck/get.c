/* get.c - typed reads of deck nodes with positioned error messages. */
#include "build.h"

#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

/* Column of offset off inside a scalar (quotes shift by one). */
static struct srcpos at_offset(const struct dnode *v, int off)
{
	struct srcpos p = v->pos;
	p.col += v->quoted + off;
	return p;
}

/* "did you mean" among the variables of the scope. */
static const char *var_suggest(struct bctx *b, const char *word, char *buf,
			       size_t size)
{
	struct suggest sg;
	suggest_init(&sg, word);
	const char *name;
	for (int i = 0; (name = expr_var_name(b->ex, i)); i++)
		suggest_add(&sg, name);
	return suggest_text(&sg, buf, size);
}

/* Units people write after a number, and what the SI number is: the
 * factor, or for angles an expression. */
static const struct unit {
	const char *name, *si, *expr;	/* expr: "%s" is the number */
	double factor;
} units[] = {
	{ "s", "s", NULL, 1 }, { "ms", "s", NULL, 1e-3 }, { "us", "s", NULL, 1e-6 },
	{ "min", "s", NULL, 60 }, { "m", "m", NULL, 1 }, { "mm", "m", NULL, 1e-3 },
	{ "cm", "m", NULL, 1e-2 }, { "km", "m", NULL, 1e3 }, { "kg", "kg", NULL, 1 },
	{ "g", "kg", NULL, 1e-3 }, { "N", "N", NULL, 1 }, { "kN", "N", NULL, 1e3 },
	{ "Nm", "N m", NULL, 1 }, { "J", "J", NULL, 1 }, { "Hz", "1/s", NULL, 1 },
	{ "rad", "rad", NULL, 1 }, { "deg", "rad", "%s*pi/180", 0 },
	{ "rpm", "rad/s", "%s*2*pi/60", 0 },
};

/* 1 when a sign at s (in str) is unary: nothing but an operator or an
 * opening bracket before it, so that it belongs to the number after it
 * ("-5 deg"; in "2-5 deg" the number is 5) */
static int unary_sign(const char *str, const char *s)
{
	while (s > str && s[-1] == ' ')
		s--;
	return s == str || !(isalnum((unsigned char)s[-1]) || s[-1] == '_' || s[-1] == '.' ||
			     s[-1] == ')');
}

/* The start of the number literal (sign and exponent included: "1e-3",
 * "-4", "3.5E-2") that ends at e, or NULL when none does or it is the
 * tail of a name (a1, x2e3). */
static const char *number_ending_at(const char *str, const char *e)
{
	for (const char *b = str; b < e; b++) {
		const char *d = b;
		if (b > str && (isalnum((unsigned char)b[-1]) || b[-1] == '_' || b[-1] == '.'))
			continue;
		if (*d == '+' || *d == '-') {
			if (!unary_sign(str, b))
				continue;
			d++;
		}
		if (!isdigit((unsigned char)*d) && !(*d == '.' && isdigit((unsigned char)d[1])))
			continue;
		if (strspn(b, "0123456789.eE+-") < (size_t)(e - b))
			continue;
		char *end;
		strtod(b, &end);
		if (end == e)
			return b;
	}
	return NULL;
}

/* When tok follows a number in str ("1ms", "10 mm", "1e-3 ms"), the hint
 * that values are SI numbers, with the number to write when tok is a
 * known unit; else "". */
static const char *unit_hint(const char *str, const char *tok, char *buf, size_t size)
{
	/* tok where it stands as a token of its own: not inside a name
	 * ('m' of "m1*0 + 10 m"), a number may end right before it ("1ms") */
	const char *t = str;
	size_t n = strlen(tok);
	while ((t = strstr(t, tok)) &&
	       ((t > str && (isalpha((unsigned char)t[-1]) || t[-1] == '_')) ||
		isalnum((unsigned char)t[n]) || t[n] == '_'))
		t++;
	buf[0] = 0;
	if (!t || t == str)
		return buf;
	const char *e = t;
	while (e > str && e[-1] == ' ')
		e--;
	const char *b = number_ending_at(str, e);
	char num[40];
	if (!b || e - b >= (ptrdiff_t)sizeof num)
		return buf;	/* no number before tok, part of a name (a1 b), too long */
	snprintf(num, sizeof num, "%.*s", (int)(e - b), b);
	for (size_t i = 0; i < sizeof units / sizeof units[0]; i++) {
		if (strcmp(units[i].name, tok) != 0)
			continue;
		char what[80];
		if (units[i].expr)
			snprintf(what, sizeof what, units[i].expr, num);
		else
			snprintf(what, sizeof what, "%.15g", atof(num) * units[i].factor);
		snprintf(buf, size, ": values are SI numbers without units; write %s for %s %s "
			 "(in %s)", what, num, tok, units[i].si);
		return buf;
	}
	snprintf(buf, size, ": values are SI numbers without units (s, m, kg, rad, N); write "
		 "the number alone");
	return buf;
}

/* Turn a failed evaluation into the most helpful message. */
static void expr_report(struct bctx *b, const struct dnode *v, const char *key,
			const struct expr_err *e)
{
	struct srcpos p = at_offset(v, e->pos);
	char sug[96], hint[200];

	if (e->code == EXPR_ERR_TOO_LONG) {
		diag_error(b->d, &v->pos, "expression for '%s' is %s", key, e->msg);
	} else if (e->code == EXPR_ERR_NOT_FINITE) {
		diag_error(b->d, &v->pos, "expression '%s' for '%s' is not a finite number",
			   v->str, key);
	} else if (e->code == EXPR_ERR_UNKNOWN_NAME) {
		var_suggest(b, e->tok, sug, sizeof sug);
		/* the token muparser names need not start at its position */
		size_t len = strlen(v->str), end = (size_t)e->pos + strlen(e->tok);
		if (end < len && v->str[end] == '(')
			diag_error(b->d, &p, "unknown function '%s' in expression '%s'",
				   e->tok, v->str);
		else if (strcmp(e->tok, v->str) == 0 && !sug[0])
			diag_error(b->d, &v->pos, "expected a number for '%s', got '%s'",
				   key, v->str);
		else if (unit_hint(v->str, e->tok, hint, sizeof hint)[0])
			diag_error(b->d, &p, "unknown parameter '%s' in expression '%s'%s",
				   e->tok, v->str, hint);
		else
			diag_error(b->d, &p, "unknown parameter '%s' in expression '%s'%s",
				   e->tok, v->str, sug);
	} else if (e->code == 25) {
		diag_error(b->d, &v->pos, "expected a number for '%s', got ''", key);
	} else {
		diag_error(b->d, &p, "bad expression '%s' for '%s': %s", v->str, key,
			   e->msg);
	}
}

int get_num(struct bctx *b, const struct dnode *v, const char *key, double *out)
{
	char buf[64];
	if (v->kind != DN_SCALAR) {
		diag_error(b->d, &v->pos, "expected a number for '%s', got %s", key,
			   dn_describe(v, buf, sizeof buf));
		return -1;
	}
	struct expr_err e;
	if (expr_eval(b->ex, v->str, out, &e) == 0)
		return 0;
	/* a failed parameter evaluates to nan: already reported */
	if (!(b->param_failed && e.code == EXPR_ERR_NOT_FINITE))
		expr_report(b, v, key, &e);
	return -1;
}

int get_int(struct bctx *b, const struct dnode *v, const char *key, long *out)
{
	double x;
	if (get_num(b, v, key, &x))
		return -1;
	if (x != floor(x) || fabs(x) > 1e15) {
		diag_error(b->d, &v->pos, "expected an integer for '%s', got '%s'",
			   key, v->str);
		return -1;
	}
	*out = (long)x;
	return 0;
}

int get_bool(struct bctx *b, const struct dnode *v, const char *key, int *out)
{
	static const char *const yes[] = { "true", "True", "TRUE", "yes", "Yes", "on" };
	static const char *const no[] = { "false", "False", "FALSE", "no", "No", "off" };
	char buf[64];
	if (v->kind == DN_SCALAR && !v->quoted) {
		for (int i = 0; i < 6; i++) {
			if (strcmp(v->str, yes[i]) == 0)
				return *out = 1, 0;
			if (strcmp(v->str, no[i]) == 0)
				return *out = 0, 0;
		}
	}
	diag_error(b->d, &v->pos, "expected true or false for '%s', got %s", key,
		   dn_describe(v, buf, sizeof buf));
	return -1;
}

int get_str(struct bctx *b, const struct dnode *v, const char *key, const char **out)
{
	char buf[64];
	if (v->kind != DN_SCALAR) {
		diag_error(b->d, &v->pos, "expected a string for '%s', got %s", key,
			   dn_describe(v, buf, sizeof buf));
		return -1;
	}
	*out = v->str;
	return 0;
}

int get_name(struct bctx *b, const struct dnode *v, const char *noun, const char **out)
{
	if (get_str(b, v, "name", out))
		return -1;
	const char *why = NULL;
	if (strlen(*out) > DECK_MAX_NAME)
		why = "longer than " DECK_MAX_NAME_TEXT " characters";
	else if (strchr(*out, '/'))
		why = "'/' separates names in output paths";
	else if (!**out)
		why = "empty";
	if (!why)
		return 0;
	diag_error(b->d, &v->pos, "'%.40s%s' cannot name a %s (%s)", *out,
		   strlen(*out) > 40 ? "..." : "", noun, why);
	return -1;
}

int get_numlist(struct bctx *b, const struct dnode *v, const char *key,
		double *out, int max, int *n)
{
	char buf[64];
	if (v->kind != DN_SEQ) {
		diag_error(b->d, &v->pos, "expected a list of numbers for '%s', got %s",
			   key, dn_describe(v, buf, sizeof buf));
		return -1;
	}
	if (v->n > max || v->n == 0) {
		diag_error(b->d, &v->pos, "expected 1 to %d numbers for '%s', got %d",
			   max, key, v->n);
		return -1;
	}
	int rc = 0;
	for (int i = 0; i < v->n; i++)
		rc |= get_num(b, v->items[i], key, &out[i]);
	*n = v->n;
	return rc ? -1 : 0;
}

int not_list_of(const struct dnode *v, int n, char *buf, size_t size)
{
	if (v->kind == DN_SEQ && v->n == n)
		return 0;
	if (v->kind == DN_SEQ)
		snprintf(buf, size, "a list of %d", v->n);
	else
		dn_describe(v, buf, size);
	return 1;
}

int get_vec3(struct bctx *b, const struct dnode *v, const char *key, double out[3])
{
	char buf[64];
	if (not_list_of(v, 3, buf, sizeof buf)) {
		diag_error(b->d, &v->pos, "expected a list of 3 numbers for '%s', got %s",
			   key, buf);
		return -1;
	}
	int rc = 0;
	for (int i = 0; i < 3; i++)
		rc |= get_num(b, v->items[i], key, &out[i]);
	return rc ? -1 : 0;
}

#define OPT_BODY(getter)					\
	const struct dnode *v = dn_get(map, key);		\
	if (!v)							\
		return 0;					\
	return getter(b, v, key, out) ? -1 : 1;

int opt_num(struct bctx *b, const struct dnode *map, const char *key, double *out)
{
	OPT_BODY(get_num)
}

int opt_int(struct bctx *b, const struct dnode *map, const char *key, long *out)
{
	OPT_BODY(get_int)
}

int opt_bool(struct bctx *b, const struct dnode *map, const char *key, int *out)
{
	OPT_BODY(get_bool)
}

int opt_str(struct bctx *b, const struct dnode *map, const char *key, const char **out)
{
	OPT_BODY(get_str)
}

int opt_vec3(struct bctx *b, const struct dnode *map, const char *key, double out[3])
{
	OPT_BODY(get_vec3)
}

const struct dnode *need(struct bctx *b, const struct dnode *map, const char *key,
			 const char *what)
{
	const struct dnode *v = dn_get(map, key);
	if (!v)
		diag_error(b->d, &map->pos, "missing required key '%s' in %s", key, what);
	return v;
}

int req_num(struct bctx *b, const struct dnode *map, const char *key,
	    const char *what, double *out)
{
	const struct dnode *v = need(b, map, key, what);
	return v && get_num(b, v, key, out) == 0 ? 1 : -1;
}

int req_str(struct bctx *b, const struct dnode *map, const char *key,
	    const char *what, const char **out)
{
	const struct dnode *v = need(b, map, key, what);
	return v && get_str(b, v, key, out) == 0 ? 1 : -1;
}

int req_vec3(struct bctx *b, const struct dnode *map, const char *key,
	     const char *what, double out[3])
{
	const struct dnode *v = need(b, map, key, what);
	return v && get_vec3(b, v, key, out) == 0 ? 1 : -1;
}

int want_map(struct bctx *b, const struct dnode *v, const char *key)
{
	char buf[64];
	if (v->kind == DN_MAP)
		return 0;
	diag_error(b->d, &v->pos, "expected a mapping for '%s', got %s", key,
		   dn_describe(v, buf, sizeof buf));
	return -1;
}

int check_keys(struct bctx *b, const struct dnode *map, const struct key_sect *s,
	       unsigned typebit, const char *typedesc)
{
	int nerr = b->d->nerr;
	for (int i = 0; i < map->n; i++) {
		const struct dnode *k = map->keys[i];
		int first = dn_find(map, k->str);
		if (first < i) {
			diag_error(b->d, &k->pos, "duplicate key '%s'", k->str);
			diag_note(b->d, &map->keys[first]->pos, "first defined here");
			continue;
		}
		const struct key_def *def = key_find(s, k->str);
		char sug[96];
		if (!def)
			diag_error(b->d, &k->pos, "unknown key '%s' in %s%s", k->str,
				   s->noun, key_suggest(s, k->str, sug, sizeof sug));
		else if (typebit && def->mask && !(def->mask & typebit))
			diag_error(b->d, &k->pos, "key '%s' does not apply to %s",
				   k->str, typedesc);
	}
	return b->d->nerr - nerr;
}

int pick_name(struct bctx *b, const struct dnode *v, const char *noun,
	      const char *const *names, int n)
{
	const char *s;
	if (get_str(b, v, noun, &s))
		return -1;
	struct suggest sg;
	suggest_init(&sg, s);
	for (int i = 0; i < n; i++) {
		if (strcmp(names[i], s) == 0)
			return i;
		suggest_add(&sg, names[i]);
	}
	char sug[96];
	diag_error(b->d, &v->pos, "unknown %s '%s'%s", noun, s,
		   suggest_text(&sg, sug, sizeof sug));
	return -1;
}

/* A reference to an element of the list `key` (bodies, joints) that names
 * none: when the whole list is missing, one message says so and the
 * other references are follow-ons.  Returns 1 when the caller must stay
 * silent (the cause is reported, or will be: a misspelt section name
 * such as 'body:', a section that is no list); else 0 with the reason
 * to add to the first message in buf ("" when the section is there). */
static int missing_section(struct bctx *b, const char *key, int *state, char *buf,
			   size_t size)
{
	const struct dnode *v = dn_get(b->root, key);
	buf[0] = 0;
	if (v)
		return v->kind != DN_SEQ;	/* "expected a list" is reported */
	for (int i = 0; i < b->root->n; i++) {
		const char *k = b->root->keys[i]->str;
		struct suggest sg;
		if (key_find(&key_top, k))
			continue;
		suggest_init(&sg, k);
		for (const struct key_def *d = key_top.keys; d->name; d++)
			suggest_add(&sg, d->name);
		if (sg.best && strcmp(sg.best, key) == 0)
			return 1;	/* "unknown key 'body' ... (did you mean 'bodies'?)" */
	}
	if (*state)
		return 1;
	*state = 1;
	snprintf(buf, size, ": the deck has no '%s' list (further references not reported)",
		 key);
	return 0;
}

int resolve_body(struct bctx *b, const struct dnode *v, const char *what)
{
	const char *s;
	if (get_str(b, v, "body", &s))
		return -2;
	int i = model_find_body(b->m, s);
	if (i != -2)
		return i;
	char sug[160];
	if (missing_section(b, "bodies", &b->no_bodies, sug, sizeof sug)) {
		if (b->d->nerr == 0)	/* never fail silently */
			diag_error(b->d, &v->pos, "unknown body '%s' in %s", s, what);
		return -2;
	}
	struct suggest sg;
	suggest_init(&sg, s);
	suggest_add(&sg, "ground");
	for (int k = 0; k < b->m->nbodies; k++)
		suggest_add(&sg, b->m->bodies[k].name);
	if (!sug[0])
		suggest_text(&sg, sug, sizeof sug);
	diag_error(b->d, &v->pos, "unknown body '%s' in %s%s", s, what, sug);
	return -2;
}

int resolve_joint(struct bctx *b, const struct dnode *v, const char *what)
{
	const char *s;
	if (get_str(b, v, "joint", &s))
		return -2;
	int i = model_find_joint(b->m, s);
	if (i >= 0)
		return i;
	char sug[160];
	if (missing_section(b, "joints", &b->no_joints, sug, sizeof sug)) {
		if (b->d->nerr == 0)
			diag_error(b->d, &v->pos, "unknown joint '%s' in %s", s, what);
		return -2;
	}
	struct suggest sg;
	suggest_init(&sg, s);
	for (int k = 0; k < b->m->njoints; k++)
		suggest_add(&sg, b->m->joints[k].name);
	if (!sug[0])
		suggest_text(&sg, sug, sizeof sug);
	diag_error(b->d, &v->pos, "unknown joint '%s' in %s%s", s, what, sug);
	return -2;
}

void dup_name(struct bctx *b, const struct dnode *v, const char *noun,
	      const struct srcpos *first)
{
	diag_error(b->d, &v->pos, "duplicate %s name '%s'", noun, v->str);
	diag_note(b->d, first, "first defined here");
}
