/* texpr.c - see texpr.h */
#include "texpr.h"
#include "../util/suggest.h"
#include "../util/xalloc.h"

#include <ctype.h>
#include <math.h>
#include <muParserDLL.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A jet: value and first and second derivatives with respect to t. */
struct jet {
	double v, d, dd;
};

enum op {
	OP_CONST, OP_T, OP_ADD, OP_SUB, OP_MUL, OP_DIV, OP_POW, OP_NEG, OP_FUN,
	OP_MIN, OP_MAX, OP_SUM, OP_AVG, OP_LT, OP_GT, OP_LE, OP_GE, OP_EQ, OP_NE,
	OP_AND, OP_OR, OP_SEL
};

struct instr {
	enum op op;
	int arg;		/* OP_FUN: function; OP_MIN..OP_AVG: argument count */
	double c;		/* OP_CONST */
};

struct texpr {
	char *text;
	struct instr *code;
	int n, cap, depth;
};

/* Functions of one argument: g and its first two derivatives at u
 * (g' in *d1, g'' in *d2); the chain rule makes the jet. */
typedef double (*fun1)(double u, double *d1, double *d2);

static double f_sin(double u, double *a, double *b) { *a = cos(u); *b = -sin(u); return sin(u); }
static double f_cos(double u, double *a, double *b) { *a = -sin(u); *b = -cos(u); return cos(u); }
static double f_tan(double u, double *a, double *b)
{
	double g = tan(u);
	*a = 1.0 + g * g;
	*b = 2.0 * g * *a;
	return g;
}
static double f_asin(double u, double *a, double *b)
{
	double s = 1.0 - u * u;
	*a = 1.0 / sqrt(s);
	*b = u / (s * sqrt(s));
	return asin(u);
}
static double f_acos(double u, double *a, double *b)
{
	double g = f_asin(u, a, b);
	*a = -*a;
	*b = -*b;
	return M_PI_2 - g;
}
static double f_atan(double u, double *a, double *b)
{
	double s = 1.0 + u * u;
	*a = 1.0 / s;
	*b = -2.0 * u / (s * s);
	return atan(u);
}
static double f_sinh(double u, double *a, double *b) { *a = cosh(u); *b = sinh(u); return sinh(u); }
static double f_cosh(double u, double *a, double *b) { *a = sinh(u); *b = cosh(u); return cosh(u); }
static double f_tanh(double u, double *a, double *b)
{
	double g = tanh(u);
	*a = 1.0 - g * g;
	*b = -2.0 * g * *a;
	return g;
}
static double f_asinh(double u, double *a, double *b)
{
	double s = 1.0 + u * u;
	*a = 1.0 / sqrt(s);
	*b = -u / (s * sqrt(s));
	return asinh(u);
}
static double f_acosh(double u, double *a, double *b)
{
	double s = u * u - 1.0;
	*a = 1.0 / sqrt(s);
	*b = -u / (s * sqrt(s));
	return acosh(u);
}
static double f_atanh(double u, double *a, double *b)
{
	double s = 1.0 - u * u;
	*a = 1.0 / s;
	*b = 2.0 * u / (s * s);
	return atanh(u);
}
static double f_exp(double u, double *a, double *b) { *a = *b = exp(u); return *a; }
static double f_ln(double u, double *a, double *b) { *a = 1.0 / u; *b = -*a * *a; return log(u); }
static double f_log2(double u, double *a, double *b)
{
	*a = 1.0 / (u * M_LN2);
	*b = -*a / u;
	return log2(u);
}
static double f_log10(double u, double *a, double *b)
{
	*a = 1.0 / (u * M_LN10);
	*b = -*a / u;
	return log10(u);
}
static double f_sqrt(double u, double *a, double *b)
{
	double g = sqrt(u);
	*a = 0.5 / g;
	*b = -0.25 / (g * u);
	return g;
}
static double f_abs(double u, double *a, double *b) { *a = u < 0 ? -1.0 : 1.0; *b = 0.0; return fabs(u); }
static double f_sign(double u, double *a, double *b)
{
	*a = *b = 0.0;
	return u > 0 ? 1.0 : u < 0 ? -1.0 : 0.0;
}
/* muparser's rint rounds halves up: floor(u + 0.5) */
static double f_rint(double u, double *a, double *b) { *a = *b = 0.0; return floor(u + 0.5); }

/* muparser's built-in functions of one argument (muParser.cpp): "log" is
 * the natural logarithm there too. */
static const struct {
	const char *name;
	fun1 f;
} funs[] = {
	{ "sin", f_sin }, { "cos", f_cos }, { "tan", f_tan }, { "asin", f_asin },
	{ "acos", f_acos }, { "atan", f_atan }, { "sinh", f_sinh }, { "cosh", f_cosh },
	{ "tanh", f_tanh }, { "asinh", f_asinh }, { "acosh", f_acosh }, { "atanh", f_atanh },
	{ "exp", f_exp }, { "ln", f_ln }, { "log", f_ln }, { "log2", f_log2 },
	{ "log10", f_log10 }, { "sqrt", f_sqrt }, { "abs", f_abs }, { "sign", f_sign },
	{ "rint", f_rint },
};
#define NFUNS ((int)(sizeof funs / sizeof funs[0]))
static const char *const varfuns[] = { "min", "max", "sum", "avg" };

/* ---- parser: precedence as muparser's (muParserDef.h) ---- */

struct pstate {
	const char *s, *p;
	const char *const *names;
	const double *vals;
	int n;
	struct texpr *e;
	int sp;			/* stack depth at this point of the tape */
	struct tx_err *err;
	int bad;
};

static int fail(struct pstate *ps, const char *at, const char *fmt, ...)
{
	if (!ps->bad) {
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(ps->err->msg, sizeof ps->err->msg, fmt, ap);
		va_end(ap);
		ps->err->pos = (int)(at - ps->s);
	}
	ps->bad = 1;
	return -1;
}

/* Append an instruction that pops npop jets and pushes one. */
static void emit(struct pstate *ps, enum op op, int arg, double c, int npop)
{
	struct texpr *e = ps->e;
	if (e->n == e->cap) {
		e->cap = e->cap ? 2 * e->cap : 32;
		e->code = xrealloc(e->code, (size_t)e->cap * sizeof(*e->code));
	}
	e->code[e->n++] = (struct instr){ op, arg, c };
	ps->sp += 1 - npop;
	if (ps->sp > e->depth)
		e->depth = ps->sp;
}

static void skip(struct pstate *ps)
{
	while (isspace((unsigned char)*ps->p))
		ps->p++;
}

/* Consume the operator tok if it is next. */
static int accept(struct pstate *ps, const char *tok)
{
	skip(ps);
	size_t n = strlen(tok);
	if (strncmp(ps->p, tok, n) != 0)
		return 0;
	ps->p += n;
	return 1;
}

static int parse_ternary(struct pstate *ps);
static int parse_unary(struct pstate *ps);

static int ident_len(const char *p)
{
	int n = 0;
	if (!isalpha((unsigned char)*p) && *p != '_')
		return 0;
	while (isalnum((unsigned char)p[n]) || p[n] == '_')
		n++;
	return n;
}

static int lookup_const(struct pstate *ps, const char *name, double *v)
{
	if (strcmp(name, "pi") == 0) {
		*v = 3.14159265358979323846;
		return 1;
	}
	if (strcmp(name, "e") == 0) {
		*v = 2.71828182845904523536;
		return 1;
	}
	for (int i = 0; i < ps->n; i++)
		if (strcmp(ps->names[i], name) == 0) {
			*v = ps->vals[i];
			return 1;
		}
	return 0;
}

static int unknown_name(struct pstate *ps, const char *at, const char *name, int call)
{
	struct suggest sg;
	char sug[96];
	suggest_init(&sg, name);
	if (call) {
		for (int i = 0; i < NFUNS; i++)
			suggest_add(&sg, funs[i].name);
		for (int i = 0; i < 4; i++)
			suggest_add(&sg, varfuns[i]);
	} else {
		suggest_add(&sg, "t");
		for (int i = 0; i < ps->n; i++)
			suggest_add(&sg, ps->names[i]);
	}
	return fail(ps, at, call ? "unknown function '%s' in a motion law%s"
				 : "unknown name '%s' (a motion law knows t and the parameters)%s",
		    name, suggest_text(&sg, sug, sizeof sug));
}

/* name(args): one of funs or varfuns. */
static int parse_call(struct pstate *ps, const char *at, const char *name)
{
	int k = -1, v = -1, nargs = 0;
	for (int i = 0; i < NFUNS; i++)
		if (strcmp(funs[i].name, name) == 0)
			k = i;
	for (int i = 0; i < 4; i++)
		if (strcmp(varfuns[i], name) == 0)
			v = i;
	if (k < 0 && v < 0)
		return unknown_name(ps, at, name, 1);
	ps->p++;	/* ( */
	do {
		if (parse_ternary(ps))
			return -1;
		nargs++;
	} while (accept(ps, ","));
	if (!accept(ps, ")"))
		return fail(ps, ps->p, "expected ')' after the arguments of %s", name);
	if (k >= 0 && nargs != 1)
		return fail(ps, at, "%s takes one argument, got %d", name, nargs);
	if (k >= 0)
		emit(ps, OP_FUN, k, 0.0, 1);
	else
		emit(ps, (enum op)(OP_MIN + v), nargs, 0.0, nargs);
	return 0;
}

static int parse_primary(struct pstate *ps)
{
	skip(ps);
	const char *at = ps->p;
	if (*at == '(') {
		ps->p++;
		if (parse_ternary(ps))
			return -1;
		if (!accept(ps, ")"))
			return fail(ps, ps->p, "expected ')'");
		return 0;
	}
	if (isdigit((unsigned char)*at) || (*at == '.' && isdigit((unsigned char)at[1]))) {
		char *end;
		double v = strtod(at, &end);
		ps->p = end;
		emit(ps, OP_CONST, 0, v, 0);
		return 0;
	}
	int n = ident_len(at);
	if (n == 0)
		return fail(ps, at, *at ? "unexpected '%c'" : "unexpected end of expression", *at);
	char name[128];
	snprintf(name, sizeof name, "%.*s", n, at);
	ps->p += n;
	skip(ps);
	if (*ps->p == '(')
		return parse_call(ps, at, name);
	double v;
	if (strcmp(name, "t") == 0)
		emit(ps, OP_T, 0, 0.0, 0);
	else if (lookup_const(ps, name, &v))
		emit(ps, OP_CONST, 0, v, 0);
	else
		return unknown_name(ps, at, name, 0);
	return 0;
}

/* pow: right associative, binds tighter than unary minus (-t^2 is
 * -(t^2)); its right operand may carry a sign (2^-t). */
static int parse_pow(struct pstate *ps)
{
	if (parse_primary(ps))
		return -1;
	if (accept(ps, "^")) {
		if (parse_unary(ps))
			return -1;
		emit(ps, OP_POW, 0, 0.0, 2);
	}
	return 0;
}

static int parse_unary(struct pstate *ps)
{
	if (accept(ps, "-")) {
		if (parse_unary(ps))
			return -1;
		emit(ps, OP_NEG, 0, 0.0, 1);
		return 0;
	}
	if (accept(ps, "+"))
		return parse_unary(ps);
	return parse_pow(ps);
}

/* Left-associative binary levels: ops[i] -> codes[i]. */
static int parse_level(struct pstate *ps, int level);

static const struct {
	const char *ops[6];
	enum op codes[6];
} levels[] = {
	{ { "||" }, { OP_OR } },
	{ { "&&" }, { OP_AND } },
	{ { "<=", ">=", "==", "!=", "<", ">" }, { OP_LE, OP_GE, OP_EQ, OP_NE, OP_LT, OP_GT } },
	{ { "+", "-" }, { OP_ADD, OP_SUB } },
	{ { "*", "/" }, { OP_MUL, OP_DIV } },
};
#define NLEVELS 5

static int parse_operand(struct pstate *ps, int level)
{
	return level + 1 < NLEVELS ? parse_level(ps, level + 1) : parse_unary(ps);
}

static int parse_level(struct pstate *ps, int level)
{
	if (parse_operand(ps, level))
		return -1;
	for (;;) {
		int k = -1;
		for (int i = 0; i < 6 && levels[level].ops[i] && k < 0; i++)
			if (accept(ps, levels[level].ops[i]))
				k = i;
		if (k < 0)
			return 0;
		if (parse_operand(ps, level))
			return -1;
		emit(ps, levels[level].codes[k], 0, 0.0, 2);
	}
}

static int parse_ternary(struct pstate *ps)
{
	if (parse_level(ps, 0))
		return -1;
	if (!accept(ps, "?"))
		return 0;
	if (parse_ternary(ps))
		return -1;
	if (!accept(ps, ":"))
		return fail(ps, ps->p, "expected ':' of '?:'");
	if (parse_ternary(ps))
		return -1;
	emit(ps, OP_SEL, 0, 0.0, 3);
	return 0;
}

/* ---- jets ---- */

static struct jet chain(fun1 f, struct jet u)
{
	double d1, d2, g = f(u.v, &d1, &d2);
	return (struct jet){ g, d1 * u.d, d2 * u.d * u.d + d1 * u.dd };
}

static struct jet jmul(struct jet a, struct jet b)
{
	return (struct jet){ a.v * b.v, a.d * b.v + a.v * b.d,
			     a.dd * b.v + 2.0 * a.d * b.d + a.v * b.dd };
}

static struct jet jdiv(struct jet a, struct jet b)
{
	double q = a.v / b.v, q1 = (a.d - q * b.d) / b.v;
	return (struct jet){ q, q1, (a.dd - 2.0 * q1 * b.d - q * b.dd) / b.v };
}

/* a^b: the power rule when b does not vary (a < 0 allowed with an
 * integral b, as pow takes it), else exp(b ln a). */
static struct jet jpow(struct jet a, struct jet b)
{
	if (b.d == 0.0 && b.dd == 0.0) {
		double c = b.v;
		if (c == 0.0)
			return (struct jet){ 1.0, 0.0, 0.0 };
		double g1 = c * pow(a.v, c - 1.0);
		double g2 = c == 1.0 ? 0.0 : c * (c - 1.0) * pow(a.v, c - 2.0);
		return (struct jet){ pow(a.v, c), g1 * a.d, g2 * a.d * a.d + g1 * a.dd };
	}
	return chain(f_exp, jmul(b, chain(f_ln, a)));
}

static struct jet flag(int x)
{
	return (struct jet){ x ? 1.0 : 0.0, 0.0, 0.0 };
}

/* The variadic functions on the n jets at s. */
static struct jet jvar(enum op op, const struct jet *s, int n)
{
	struct jet r = s[0];
	for (int i = 1; i < n; i++) {
		if (op == OP_MIN && s[i].v < r.v)
			r = s[i];
		else if (op == OP_MAX && s[i].v > r.v)
			r = s[i];
		else if (op == OP_SUM || op == OP_AVG)
			r = (struct jet){ r.v + s[i].v, r.d + s[i].d, r.dd + s[i].dd };
	}
	if (op == OP_AVG)
		r = (struct jet){ r.v / n, r.d / n, r.dd / n };
	return r;
}

static struct jet binary(enum op op, struct jet a, struct jet b)
{
	switch (op) {
	case OP_ADD: return (struct jet){ a.v + b.v, a.d + b.d, a.dd + b.dd };
	case OP_SUB: return (struct jet){ a.v - b.v, a.d - b.d, a.dd - b.dd };
	case OP_MUL: return jmul(a, b);
	case OP_DIV: return jdiv(a, b);
	case OP_POW: return jpow(a, b);
	case OP_LT: return flag(a.v < b.v);
	case OP_GT: return flag(a.v > b.v);
	case OP_LE: return flag(a.v <= b.v);
	case OP_GE: return flag(a.v >= b.v);
	case OP_EQ: return flag(a.v == b.v);
	case OP_NE: return flag(a.v != b.v);
	case OP_AND: return flag(a.v != 0.0 && b.v != 0.0);
	default: return flag(a.v != 0.0 || b.v != 0.0);
	}
}

static void run(const struct texpr *e, double t, struct jet *s, double f[3])
{
	int sp = 0;
	for (int i = 0; i < e->n; i++) {
		const struct instr *in = &e->code[i];
		switch (in->op) {
		case OP_CONST:
			s[sp++] = (struct jet){ in->c, 0.0, 0.0 };
			break;
		case OP_T:
			s[sp++] = (struct jet){ t, 1.0, 0.0 };
			break;
		case OP_NEG:
			s[sp - 1] = (struct jet){ -s[sp - 1].v, -s[sp - 1].d, -s[sp - 1].dd };
			break;
		case OP_FUN:
			s[sp - 1] = chain(funs[in->arg].f, s[sp - 1]);
			break;
		case OP_MIN: case OP_MAX: case OP_SUM: case OP_AVG:
			sp -= in->arg;
			s[sp] = jvar(in->op, s + sp, in->arg);
			sp++;
			break;
		case OP_SEL:
			sp -= 2;
			s[sp - 1] = s[sp - 1].v != 0.0 ? s[sp] : s[sp + 1];
			break;
		default:
			sp--;
			s[sp - 1] = binary(in->op, s[sp - 1], s[sp]);
		}
	}
	f[0] = s[0].v;
	f[1] = s[0].d;
	f[2] = s[0].dd;
}

void texpr_eval(const struct texpr *e, double t, double f[3])
{
	struct jet small[32];
	struct jet *s = e->depth <= 32 ? small : xmalloc((size_t)e->depth * sizeof(*s));
	run(e, t, s, f);
	if (s != small)
		free(s);
}

/* ---- the check against muparser ---- */

/* 0 when muparser reads text as this tape does at a few times; else -1
 * with err (muparser's message, or the disagreement). */
static int cross_check(const struct texpr *e, const char *const *names, const double *vals,
		       int n, struct tx_err *err)
{
	static const double ts[] = { 0.0, 0.3125, 1.0, 1.7, 2.5, -0.6, 7.25 };
	muParserHandle_t h = mupCreate(muBASETYPE_FLOAT);
	double t = 0.0;
	int rc = 0;
	mupDefineConst(h, "pi", 3.14159265358979323846);
	mupDefineConst(h, "e", 2.71828182845904523536);
	for (int i = 0; i < n; i++)
		if (strcmp(names[i], "t") != 0) {
			mupDefineConst(h, names[i], vals[i]);
			if (mupError(h))
				mupErrorReset(h);
		}
	mupDefineVar(h, "t", &t);
	mupSetExpr(h, e->text);
	for (size_t k = 0; k < sizeof ts / sizeof ts[0] && !rc; k++) {
		double f[3], g;
		t = ts[k];
		g = mupEval(h);
		if (mupError(h)) {
			err->pos = mupGetErrorPos(h);
			snprintf(err->msg, sizeof err->msg, "%s", mupGetErrorMsg(h));
			rc = -1;
			break;
		}
		texpr_eval(e, t, f);
		if ((isfinite(g) || isfinite(f[0])) &&
		    !(fabs(f[0] - g) <= 1e-13 * fmax(1.0, fabs(g)))) {
			err->pos = 0;
			snprintf(err->msg, sizeof err->msg,
				 "the expression reads differently to the differentiating parser "
				 "(%.17g, muparser %.17g at t = %g): add parentheses", f[0], g, t);
			rc = -1;
		}
	}
	mupRelease(h);
	return rc;
}

int texpr_compile(const char *text, const char *const *names, const double *vals, int n,
		  struct texpr **out, struct tx_err *err)
{
	struct texpr *e = xcalloc(1, sizeof(*e));
	struct pstate ps = { text, text, names, vals, n, e, 0, err, 0 };
	e->text = xstrdup(text);
	*out = NULL;
	if (parse_ternary(&ps) == 0) {
		skip(&ps);
		if (*ps.p)
			fail(&ps, ps.p, "unexpected '%c'", *ps.p);
	}
	if (ps.bad || cross_check(e, names, vals, n, err)) {
		texpr_free(&e);
		return -1;
	}
	*out = e;
	return 0;
}

const char *texpr_text(const struct texpr *e)
{
	return e->text;
}

struct texpr *texpr_copy(const struct texpr *e)
{
	if (!e)
		return NULL;
	struct texpr *c = xmalloc(sizeof(*c));
	*c = *e;
	c->text = xstrdup(e->text);
	c->cap = e->n;
	c->code = e->n ? memcpy(xmalloc((size_t)e->n * sizeof(*e->code)), e->code,
				(size_t)e->n * sizeof(*e->code)) : NULL;
	return c;
}

void texpr_free(struct texpr **ep)
{
	struct texpr *e = *ep;
	if (!e)
		return;
	free(e->code);
	free(e->text);
	free(e);
	*ep = NULL;
}
