/* expr.c - see expr.h */
#include "expr.h"
#include "../util/xalloc.h"

#include <ctype.h>
#include <math.h>
#include <muParserDLL.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define IDENT_CHARS "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_"

/* muparser keeps pointers to variable storage, so each variable lives in
 * its own heap cell that never moves until it is undefined. */
struct expr_var {
	char *name;
	double value;
	int in_parser;		/* muparser took the name (not one of its constants,
				 * such as _pi, nor longer than it allows) */
	size_t at;		/* index in expr.vars */
	struct expr_var *hnext;	/* the next of its hash bucket */
};

/* muparser spends about 4 us tokenizing an expression and then
 * evaluates its bytecode in well under a microsecond.  A repeat block
 * evaluates the same few expressions once per index value, so each of the
 * first EXPR_CACHE distinct expressions gets a parser of its own that
 * keeps its bytecode: a 1e5-body chain would otherwise spend seconds
 * re-parsing (issue 17).  Every parser sees the same variable cells. */
#define EXPR_CACHE 64

struct expr_cached {
	char *s;
	size_t hash;
	muParserHandle_t h;
};

struct expr {
	muParserHandle_t h;	/* for expressions not cached */
	unsigned long seed;
	/* the variables in the order defined, and a hash table of them
	 * (chained, a power of two of buckets, at most 1 entry a bucket on
	 * average): a name is found in O(1), so that a deck of n chained
	 * parameters builds in O(n) (16 000 took 10 s with a list) */
	struct expr_var **vars;
	size_t nvars, cap;
	struct expr_var **tab;
	size_t ntab;
	struct expr_cached cache[EXPR_CACHE];
	int ncache;
};

static uint64_t splitmix64(uint64_t *state)
{
	uint64_t z = (*state += 0x9E3779B97F4A7C15ull);
	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
	return z ^ (z >> 31);
}

double expr_urand(unsigned long seed, long long k)
{
	/* Two rounds: the first mixes the seed, the second folds in k, so
	 * nearby seeds and nearby k give unrelated streams. */
	uint64_t s = (uint64_t)seed;
	uint64_t h = splitmix64(&s);
	s = h ^ (uint64_t)k;
	h = splitmix64(&s);
	return (double)(h >> 11) * 0x1.0p-53;
}

static double urand_cb(void *user, double k)
{
	const struct expr *ex = user;
	return expr_urand(ex->seed, (long long)llround(k));
}

static struct expr_var *find_var(const struct expr *ex, const char *name);

/* Define in h the variables of the scope that the text s names (every
 * identifier in it that is one), or all of them when s is NULL. */
static void define_vars(struct expr *ex, muParserHandle_t h, const char *s)
{
	for (size_t i = 0; !s && i < ex->nvars; i++) {
		struct expr_var *v = ex->vars[i];
		mupDefineVar(h, v->name, &v->value);
		if (mupError(h)) {
			v->in_parser = 0;
			mupErrorReset(h);
		}
	}
	while (s && *s) {
		size_t n = isalpha((unsigned char)*s) || *s == '_' ? strspn(s, IDENT_CHARS) : 0;
		if (!n) {
			s++;
			continue;
		}
		char *name = xasprintf("%.*s", (int)n, s);
		struct expr_var *v = find_var(ex, name);
		if (v && v->in_parser)
			mupDefineVar(h, v->name, &v->value);
		free(name);
		s += n;
	}
}

/* A parser with the scope's constants and functions, and the variables
 * the text s names (all, s NULL).  A cached parser holds one text, so it
 * needs only the variables that text names: defining every parameter in
 * each of EXPR_CACHE parsers made a deck of n parameters cost 65 n
 * definitions. */
static muParserHandle_t new_parser(struct expr *ex, const char *s)
{
	muParserHandle_t h = mupCreate(muBASETYPE_FLOAT);
	mupDefineConst(h, "pi", 3.14159265358979323846);
	mupDefineConst(h, "e", 2.71828182845904523536);
	mupDefineFunUserData1(h, "urand", urand_cb, ex, 0);
	define_vars(ex, h, s);
	return h;
}

struct expr *expr_new(unsigned long seed)
{
	struct expr *ex = xcalloc(1, sizeof(*ex));
	ex->seed = seed;
	ex->h = new_parser(ex, NULL);
	return ex;
}

void expr_free(struct expr **exp)
{
	struct expr *ex = *exp;
	if (!ex)
		return;
	mupRelease(ex->h);
	for (int i = 0; i < ex->ncache; i++) {
		mupRelease(ex->cache[i].h);
		free(ex->cache[i].s);
	}
	for (size_t i = 0; i < ex->nvars; i++) {
		free(ex->vars[i]->name);
		free(ex->vars[i]);
	}
	free(ex->vars);
	free(ex->tab);
	free(ex);
	*exp = NULL;
}

static size_t name_hash(const char *s)
{
	size_t h = 5381;
	for (; *s; s++)
		h = h * 33 + (unsigned char)*s;
	return h;
}

static struct expr_var **bucket(const struct expr *ex, const char *name)
{
	return &ex->tab[name_hash(name) & (ex->ntab - 1)];
}

static struct expr_var *find_var(const struct expr *ex, const char *name)
{
	if (!ex->ntab)
		return NULL;
	for (struct expr_var *v = *bucket(ex, name); v; v = v->hnext)
		if (strcmp(v->name, name) == 0)
			return v;
	return NULL;
}

/* v into the table and at the end of vars, both grown by doubling. */
static void add_var(struct expr *ex, struct expr_var *v)
{
	if (ex->nvars == ex->cap) {
		ex->cap = ex->cap ? 2 * ex->cap : 16;
		ex->vars = xrealloc(ex->vars, ex->cap * sizeof(*ex->vars));
	}
	v->at = ex->nvars;
	ex->vars[ex->nvars++] = v;
	if (ex->nvars > ex->ntab) {	/* rehash into twice the buckets */
		free(ex->tab);
		ex->ntab = ex->ntab ? 2 * ex->ntab : 16;
		ex->tab = xcalloc(ex->ntab, sizeof(*ex->tab));
		for (size_t i = 0; i < ex->nvars; i++) {
			struct expr_var **pb = bucket(ex, ex->vars[i]->name);
			ex->vars[i]->hnext = *pb;
			*pb = ex->vars[i];
		}
	} else {
		struct expr_var **pb = bucket(ex, v->name);
		v->hnext = *pb;
		*pb = v;
	}
}

void expr_define(struct expr *ex, const char *name, double value)
{
	struct expr_var *v = find_var(ex, name);
	if (!v) {
		v = xcalloc(1, sizeof(*v));
		v->name = xstrdup(name);
		add_var(ex, v);
		v->in_parser = 1;
		mupDefineVar(ex->h, v->name, &v->value);
		if (mupError(ex->h)) {
			v->in_parser = 0;
			mupErrorReset(ex->h);
		}
		/* a cached text that names it (and failed without it) */
		for (int i = 0; v->in_parser && i < ex->ncache; i++)
			if (strstr(ex->cache[i].s, v->name))
				mupDefineVar(ex->cache[i].h, v->name, &v->value);
	}
	v->value = value;
}

void expr_undefine(struct expr *ex, const char *name)
{
	struct expr_var *v = find_var(ex, name);
	if (!v)
		return;
	mupRemoveVar(ex->h, name);
	for (int i = 0; i < ex->ncache; i++)
		mupRemoveVar(ex->cache[i].h, name);
	struct expr_var **pp = bucket(ex, name);
	while (*pp != v)
		pp = &(*pp)->hnext;
	*pp = v->hnext;
	/* a repeat index, undefined after its block, is the last defined:
	 * the shift is short */
	for (size_t i = v->at + 1; i < ex->nvars; i++) {
		ex->vars[i - 1] = ex->vars[i];
		ex->vars[i - 1]->at = i - 1;
	}
	ex->nvars--;
	free(v->name);
	free(v);
}

int expr_has(const struct expr *ex, const char *name)
{
	return find_var(ex, name) != NULL;
}

int expr_usable(const struct expr *ex, const char *name)
{
	const struct expr_var *v = find_var(ex, name);
	return v && v->in_parser;
}

/* i counts from the most recent, as the names were listed before */
const char *expr_var_name(const struct expr *ex, int i)
{
	return i >= 0 && (size_t)i < ex->nvars ? ex->vars[ex->nvars - 1 - (size_t)i]->name : NULL;
}

double expr_var_value(const struct expr *ex, int i)
{
	return i >= 0 && (size_t)i < ex->nvars ? ex->vars[ex->nvars - 1 - (size_t)i]->value : NAN;
}

int expr_is_ident(const char *s)
{
	if (!(isalpha((unsigned char)*s) || *s == '_'))
		return 0;
	for (s++; *s; s++)
		if (!(isalnum((unsigned char)*s) || *s == '_'))
			return 0;
	return 1;
}

/* muparser's error codes (muParserDef.h, EErrorCodes) in our words. */
static const char *code_text(int code)
{
	switch (code) {
	case 0: return "unexpected operator";
	case 1: return "unknown name";
	case 2: return "unexpected end of expression";
	case 3: return "unexpected ','";
	case 4: return "unexpected argument";
	case 5: return "unexpected value";
	case 6: return "unexpected variable";
	case 7: return "unexpected parenthesis";
	case 11: return "missing parenthesis";
	case 12: return "unexpected function";
	case 14: return "too many arguments";
	case 15: return "too few arguments";
	case 25: return "empty expression";
	case 32: return "unexpected '?'";
	case 33: return "missing ':' after '?'";
	case 34: return "misplaced ':'";
	case 38: return "invalid characters";
	default: return "syntax error";
	}
}

static void fill_err(muParserHandle_t h, const char *s, struct expr_err *err)
{
	err->code = mupGetErrorCode(h);
	err->pos = mupGetErrorPos(h);
	int len = (int)strlen(s);
	if (err->pos < 0 || err->pos > len)
		err->pos = err->pos < 0 ? 0 : len;
	snprintf(err->tok, sizeof err->tok, "%s", mupGetErrorToken(h));
	if (err->tok[0] && err->code != 2 && err->code != 11)
		snprintf(err->msg, sizeof err->msg, "%s '%s'", code_text(err->code),
			 err->tok);
	else
		snprintf(err->msg, sizeof err->msg, "%s", code_text(err->code));
	mupErrorReset(h);
}

/* The parser for s: a cached one that holds s already, a new cached one,
 * or (cache full) the shared one given s afresh. */
static muParserHandle_t parser_for(struct expr *ex, const char *s)
{
	size_t hash = name_hash(s);
	for (int i = 0; i < ex->ncache; i++)
		if (ex->cache[i].hash == hash && strcmp(ex->cache[i].s, s) == 0)
			return ex->cache[i].h;
	muParserHandle_t h = ex->h;
	if (ex->ncache < EXPR_CACHE) {
		struct expr_cached *c = &ex->cache[ex->ncache++];
		c->s = xstrdup(s);
		c->hash = hash;
		c->h = h = new_parser(ex, s);
	}
	mupSetExpr(h, s);
	return h;
}

/* A plain decimal number needs no parser: 0 and *v, 1 for a number that
 * is not finite (1e999, or YAML's .inf and .nan), -1 for anything else. */
static int parse_plain(const char *s, double *v)
{
	static const char *const yaml_nonfinite[] = {
		".inf", ".Inf", ".INF", ".nan", ".NaN", ".NAN",
	};
	const char *u = *s == '+' || *s == '-' ? s + 1 : s;
	for (size_t i = 0; i < sizeof yaml_nonfinite / sizeof *yaml_nonfinite; i++)
		if (strcmp(u, yaml_nonfinite[i]) == 0)
			return 1;
	if (!*s || !(isdigit((unsigned char)*s) || strchr("+-.", *s)))
		return -1;
	char *end;
	double x = strtod(s, &end);
	if (*end)
		return -1;
	if (!isfinite(x))
		return 1;
	*v = x;
	return 0;
}

int expr_eval(struct expr *ex, const char *s, double *v, struct expr_err *err)
{
	memset(err, 0, sizeof(*err));
	int plain = parse_plain(s, v);
	if (plain >= 0) {
		if (plain == 0)
			return 0;
		err->code = EXPR_ERR_NOT_FINITE;
		snprintf(err->msg, sizeof err->msg, "value is not finite");
		return -1;
	}
	if (strlen(s) > EXPR_MAX_LEN) {
		err->code = EXPR_ERR_TOO_LONG;
		snprintf(err->msg, sizeof err->msg, "longer than %d characters", EXPR_MAX_LEN);
		return -1;
	}
	/* muparser assigns with =, +=, -=, *=, /= to a variable, which here is
	 * a parameter shared by every expression: 'L=L/N' would change L for
	 * all that follow and give another value each time it is evaluated
	 * (fuzz find) */
	for (const char *c = s; *c; c++)
		if (*c == '=' && c[1] != '=' && (c == s || !strchr("=<>!", c[-1]))) {
			err->code = EXPR_ERR_ASSIGN;
			err->pos = (int)(c - s);
			snprintf(err->tok, sizeof err->tok, "%s", c > s && strchr("+-*/", c[-1]) ? "op=" : "=");
			snprintf(err->msg, sizeof err->msg, "an expression cannot assign (=): a parameter "
				 "keeps its value; compare with ==");
			return -1;
		}
	/* a bare variable's name (a tenth of the vehicle deck's expressions)
	 * needs no parse, when muparser knows it as that variable (not pi, e,
	 * _pi or _e, its constants, which it does not let a variable
	 * shadow) */
	const struct expr_var *var = expr_is_ident(s) ? find_var(ex, s) : NULL;
	if (var && var->in_parser) {
		if (!isfinite(var->value)) {
			err->code = EXPR_ERR_NOT_FINITE;
			snprintf(err->msg, sizeof err->msg, "value is not finite");
			return -1;
		}
		*v = var->value;
		return 0;
	}
	muParserHandle_t h = parser_for(ex, s);
	int n = 0;
	double *r = mupEvalMulti(h, &n);
	if (mupError(h)) {
		fill_err(h, s, err);
		/* muparser leaves a parser whose expression failed with half-made
		 * bytecode that a second evaluation follows into a null pointer
		 * (fuzz find: the same bad expression twice, '1?', crashed);
		 * giving it the text again makes it parse afresh next time. */
		mupSetExpr(h, s);
		if (mupError(h))
			mupErrorReset(h);
		return -1;
	}
	if (n != 1) {
		err->code = 3;
		snprintf(err->msg, sizeof err->msg, "expected one value, got %d", n);
		return -1;
	}
	if (!isfinite(r[0])) {
		err->code = EXPR_ERR_NOT_FINITE;
		snprintf(err->msg, sizeof err->msg, "value is not finite");
		return -1;
	}
	*v = r[0];
	return 0;
}
