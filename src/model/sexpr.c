/* sexpr.c - see sexpr.h */
#include "sexpr.h"
#include "model.h"
#include "../util/suggest.h"
#include "../util/xalloc.h"

#include <math.h>
#include <muParserDLL.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Identifier characters plus '.', so that q.arm is one name. */
static const char name_chars[] =
	"0123456789_.abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ";

#define SX_NAME_MAX 256

static const char *const body_qty[12] = {
	"x", "y", "z", "vx", "vy", "vz", "wx", "wy", "wz", "rx", "ry", "rz"
};

int sexpr_joint_has_q(int t)
{
	return t == JOINT_REVOLUTE || t == JOINT_CYLINDRICAL || t == JOINT_TRANSLATIONAL;
}

static double curve_cb(void *user, double x)
{
	return curve_eval(user, x, NULL);
}

static muParserHandle_t parser(const struct sx_scope *sc)
{
	muParserHandle_t h = mupCreate(muBASETYPE_FLOAT);
	mupDefineNameChars(h, name_chars);
	mupDefineConst(h, "pi", 3.14159265358979323846);
	mupDefineConst(h, "e", 2.71828182845904523536);
	for (int i = 0; i < sc->np; i++) {
		const char *n = sc->pnames[i];
		if (strcmp(n, "t") == 0 ||
		    (sc->self && (strcmp(n, "deflection") == 0 || strcmp(n, "rate") == 0)) ||
		    (sc->road && (strcmp(n, "x") == 0 || strcmp(n, "y") == 0)))
			continue;
		mupDefineConst(h, n, sc->pvals[i]);
		if (mupError(h))
			mupErrorReset(h);
	}
	for (int i = 0; i < sc->ncurves; i++) {
		mupDefineFunUserData1(h, sc->curves[i].name, curve_cb,
				      (void *)&sc->curves[i], 0);
		if (mupError(h))
			mupErrorReset(h);
	}
	return h;
}

/* suggest_add of a name made in buf, which the next one overwrites: the
 * best so far is kept in keep (suggest.h keeps only the pointer; before,
 * the suggestion shown was the last name made, not the closest) */
static void add_made(struct suggest *sg, const char *buf, char *keep)
{
	suggest_add(sg, buf);
	if (sg->best == buf) {
		snprintf(keep, SX_NAME_MAX, "%s", buf);
		sg->best = keep;
	}
}

/* Every name an expression may use, for "did you mean"; keep: see
 * add_made. */
static void suggest_all(struct suggest *sg, const struct sx_scope *sc, const char *prefix,
			char *keep)
{
	const struct model *m = sc->m;
	char buf[SX_NAME_MAX];
	suggest_add(sg, "t");
	if (sc->self) {
		suggest_add(sg, "deflection");
		suggest_add(sg, "rate");
	}
	for (int i = 0; i < sc->np; i++)
		suggest_add(sg, sc->pnames[i]);
	/* with a known prefix only its names, so q.pendulm finds q.pendulum */
	for (int j = 0; j < m->njoints; j++) {
		if (!sexpr_joint_has_q(m->joints[j].type))
			continue;
		for (int k = 0; k < 2; k++) {
			const char *p = k ? "qd" : "q";
			if (prefix && strcmp(prefix, p))
				continue;
			snprintf(buf, sizeof buf, "%s.%s", p, m->joints[j].name);
			add_made(sg, buf, keep);
		}
	}
	if (m->nbodies + m->npoints > 1000)
		return;		/* suggestions stay O(elements), not 12x */
	for (int p = 0; p < m->npoints; p++)
		for (int k = 0; k < 6; k++) {
			if (prefix && strcmp(prefix, body_qty[k]))
				continue;
			snprintf(buf, sizeof buf, "%s.%s", body_qty[k], m->points[p].name);
			add_made(sg, buf, keep);
		}
	for (int b = 0; b < m->nbodies; b++)
		for (int k = 0; k < 12; k++) {
			if (prefix && strcmp(prefix, body_qty[k]))
				continue;
			snprintf(buf, sizeof buf, "%s.%s", body_qty[k], m->bodies[b].name);
			add_made(sg, buf, keep);
		}
}

/* A road height's names: x and y, the place below the wheel centre. */
static int classify_road(const char *name, const struct sx_scope *sc, struct sx_var *v,
			 char *msg, size_t size)
{
	char sug[200];
	if (strcmp(name, "x") == 0 || strcmp(name, "y") == 0) {
		v->kind = name[0] == 'x' ? SX_ROAD_X : SX_ROAD_Y;
		return 0;
	}
	struct suggest sg;
	suggest_init(&sg, name);
	suggest_add(&sg, "x");
	suggest_add(&sg, "y");
	for (int i = 0; i < sc->np; i++)
		suggest_add(&sg, sc->pnames[i]);
	snprintf(msg, size, "unknown name '%s' (a road height is a function of x and y: "
		 "it names x, y, parameters and curves, no time or state)%s", name,
		 suggest_text(&sg, sug, sizeof sug));
	return -1;
}

/* Bind name to a variable, or explain why not (0 / -1). */
static int classify(const char *name, const struct sx_scope *sc, struct sx_var *v,
		    char *msg, size_t size)
{
	const struct model *m = sc->m;
	const char *dot = strchr(name, '.');
	char pre[16], sug[200], keep[SX_NAME_MAX];
	memset(v, 0, sizeof(*v));
	if (sc->road)
		return classify_road(name, sc, v, msg, size);
	if (strcmp(name, "t") == 0) {
		v->kind = SX_TIME;
		return 0;
	}
	if (sc->self && strcmp(name, "deflection") == 0) {
		v->kind = SX_SELF_DEF;
		return 0;
	}
	if (sc->self && strcmp(name, "rate") == 0) {
		v->kind = SX_SELF_RATE;
		return 0;
	}
	struct suggest sg;
	suggest_init(&sg, name);
	if (dot && (size_t)(dot - name) < sizeof pre) {
		memcpy(pre, name, (size_t)(dot - name));
		pre[dot - name] = 0;
		const char *el = dot + 1;
		if (strcmp(pre, "q") == 0 || strcmp(pre, "qd") == 0) {
			int j = model_find_joint(m, el);
			if (j >= 0 && sexpr_joint_has_q(m->joints[j].type)) {
				v->kind = pre[1] ? SX_QD : SX_Q;
				v->idx = j;
				return 0;
			}
			if (j >= 0) {
				snprintf(msg, size, "'%s': joint '%s' is %s and has no coordinate "
					 "(revolute, cylindrical and translational joints have)",
					 name, el, joint_type_names[m->joints[j].type]);
				return -1;
			}
			suggest_all(&sg, sc, pre, keep);
			snprintf(msg, size, "unknown joint '%s' in '%s'%s", el, name,
				 suggest_text(&sg, sug, sizeof sug));
			return -1;
		}
		for (int k = 0; k < 12; k++) {
			if (strcmp(pre, body_qty[k]))
				continue;
			int b = model_find_body(m, el);
			if (b >= 0) {
				v->kind = SX_BODY;
				v->idx = b;
				v->sub = k;
				return 0;
			}
			/* a body-fixed point (points:) where no body has the name */
			int p = model_find_point(m, el);
			if (p >= 0 && k < 6) {
				v->kind = SX_POINT;
				v->idx = p;
				v->sub = k;
				return 0;
			}
			if (p >= 0) {
				snprintf(msg, size, "'%s': point '%s' has a position and a velocity "
					 "(x, y, z, vx, vy, vz), not %s: name its body", name, el,
					 k < 9 ? "an angular velocity" : "a rotation");
				return -1;
			}
			suggest_all(&sg, sc, pre, keep);
			snprintf(msg, size, "unknown body or point '%s' in '%s'%s", el, name,
				 suggest_text(&sg, sug, sizeof sug));
			return -1;
		}
	}
	suggest_all(&sg, sc, NULL, keep);
	snprintf(msg, size, "unknown name '%s' (state names: t, q.JOINT, qd.JOINT, x.BODY, "
		 "vx.BODY, wx.BODY, rx.BODY, x.POINT, vx.POINT, ...)%s", name, suggest_text(&sg, sug, sizeof sug));
	return -1;
}

static int fail(struct sx_err *err, muParserHandle_t h, const char *text,
		const struct sx_scope *sc)
{
	int pos = mupGetErrorPos(h);
	if (pos < 0 || pos > (int)strlen(text))
		pos = 0;
	err->pos = pos;
	/* "name(" where name is no function: muparser reports the '(' */
	int b = pos;
	while (b > 0 && strchr(name_chars, text[b - 1]))
		b--;
	if (mupGetErrorCode(h) == 7 && text[pos] == '(' && b < pos) {
		char name[128], sug[200];
		struct suggest sg;
		snprintf(name, sizeof name, "%.*s", pos - b, text + b);
		suggest_init(&sg, name);
		for (int i = 0; i < sc->ncurves; i++)
			suggest_add(&sg, sc->curves[i].name);
		err->pos = b;
		snprintf(err->msg, sizeof err->msg, "unknown function '%s' (no curve of that "
			 "name)%s", name, suggest_text(&sg, sug, sizeof sug));
	} else {
		snprintf(err->msg, sizeof err->msg, "bad expression '%s': %s", text,
			 mupGetErrorMsg(h));
	}
	mupRelease(h);
	return -1;
}

/* ---- the cache: open addressing on model_hash of the key ---- */

struct sx_cache {
	char **key;
	struct sexpr **e;
	size_t cap, n;		/* cap a power of 2, n <= cap / 2 */
};

struct sx_cache *sx_cache_new(void)
{
	struct sx_cache *c = xcalloc(1, sizeof(*c));
	c->cap = 64;
	c->key = xcalloc(c->cap, sizeof(char *));
	c->e = xcalloc(c->cap, sizeof(struct sexpr *));
	return c;
}

void sx_cache_free(struct sx_cache **pc)
{
	struct sx_cache *c = *pc;
	if (!c)
		return;
	for (size_t i = 0; i < c->cap; i++) {
		free(c->key[i]);
		sexpr_free(&c->e[i]);	/* NULL slots are skipped there */
	}
	free(c->key);
	free(c->e);
	free(c);
	*pc = NULL;
}

static size_t slot(const struct sx_cache *c, const char *key)
{
	size_t i = model_hash(key) & (c->cap - 1);
	while (c->key[i] && strcmp(c->key[i], key))
		i = (i + 1) & (c->cap - 1);
	return i;
}

static void cache_put(struct sx_cache *c, char *key, struct sexpr *e)
{
	if (2 * (c->n + 1) > c->cap) {
		struct sx_cache old = *c;
		c->cap *= 2;
		c->key = xcalloc(c->cap, sizeof(char *));
		c->e = xcalloc(c->cap, sizeof(struct sexpr *));
		for (size_t i = 0; i < old.cap; i++)
			if (old.key[i]) {
				size_t j = slot(c, old.key[i]);
				c->key[j] = old.key[i];
				c->e[j] = old.e[i];
			}
		free(old.key);
		free(old.e);
	}
	size_t i = slot(c, key);
	c->key[i] = key;
	c->e[i] = e;
	c->n++;
}

/* What makes two compilations equal: the text, self, and the exact value
 * of every parameter whose name is a token of the text (the parser folds
 * them in as constants; a repeat index is one that changes) */
static char *cache_key(const char *text, const struct sx_scope *sc)
{
	size_t len = strlen(text), cap = len + 64, n = 0;
	char *k = xmalloc(cap);
	n = (size_t)snprintf(k, cap, "%d|%d|%s|", sc->self, sc->road, text);
	for (const char *p = text; *p;) {
		size_t t = strspn(p, name_chars);
		if (t == 0) {
			p++;
			continue;
		}
		for (int i = 0; i < sc->np; i++)
			if (strlen(sc->pnames[i]) == t && strncmp(sc->pnames[i], p, t) == 0) {
				if (cap - n < t + 40) {
					cap = 2 * cap + t + 40;
					k = xrealloc(k, cap);
				}
				/* %a: the exact double */
				n += (size_t)snprintf(k + n, cap - n, "%.*s=%a;", (int)t, p,
						      sc->pvals[i]);
				break;
			}
		p += t;
	}
	return k;
}

static int compile(const char *text, const struct sx_scope *sc, struct sexpr **out,
		   struct sx_err *err);

int sexpr_compile(const char *text, const struct sx_scope *sc, struct sexpr **out,
		  struct sx_err *err)
{
	memset(err, 0, sizeof(*err));
	*out = NULL;
	if (!sc->cache)
		return compile(text, sc, out, err);
	char *key = cache_key(text, sc);
	size_t i = slot(sc->cache, key);
	if (sc->cache->key[i]) {
		free(key);
		*out = sc->cache->e[i];
		(*out)->refs++;
		return 0;
	}
	int rc = compile(text, sc, out, err);
	if (rc == 0) {
		(*out)->refs++;	/* the cache's own: a holder freeing it early
				 * (an element that fails later) leaves it valid */
		cache_put(sc->cache, key, *out);
	} else {
		free(key);
	}
	return rc;
}

static int compile(const char *text, const struct sx_scope *sc, struct sexpr **out,
		   struct sx_err *err)
{
	if (strlen(text) > 1000) {
		snprintf(err->msg, sizeof err->msg, "expression longer than 1000 characters");
		return -1;
	}
	muParserHandle_t h = parser(sc);
	mupSetExpr(h, text);
	/* the names it uses, undefined ones included */
	int n = mupGetExprVarNum(h);
	if (mupError(h))
		return fail(err, h, text, sc);
	struct sexpr *e = xcalloc(1, sizeof(*e));
	e->v = xcalloc((size_t)n + 1, sizeof(*e->v));
	e->nv = n;
	char **names = xcalloc((size_t)n + 1, sizeof(char *));
	int bad = 0;
	for (int i = 0; i < n; i++) {
		const char *nm;
		double *p;
		mupGetExprVar(h, i, &nm, &p);
		names[i] = xstrdup(nm);
	}
	for (int i = 0; i < n && !bad; i++)
		if (classify(names[i], sc, &e->v[i], err->msg, sizeof err->msg)) {
			const char *at = strstr(text, names[i]);
			err->pos = at ? (int)(at - text) : 0;
			bad = 1;
		}
	for (int i = 0; i < n && !bad; i++)
		mupDefineVar(h, names[i], &e->v[i].val);
	for (int i = 0; i < n; i++)
		free(names[i]);
	free(names);
	if (!bad) {
		mupSetExpr(h, text);
		(void)mupEval(h);	/* parse now: errors at set-up, not mid-run */
		if (mupError(h)) {
			free(e->v);
			free(e);
			return fail(err, h, text, sc);
		}
	}
	if (bad) {
		mupRelease(h);
		free(e->v);
		free(e);
		return -1;
	}
	e->h = h;
	e->text = xstrdup(text);
	e->refs = 1;
	*out = e;
	return 0;
}

double sexpr_value(struct sexpr *e)
{
	double y = mupEval(e->h);
	if (mupError(e->h)) {
		mupErrorReset(e->h);
		return NAN;
	}
	return y;
}

int sexpr_has_state(const struct sexpr *e)
{
	for (int i = 0; i < e->nv; i++)
		if (e->v[i].kind != SX_TIME)
			return 1;
	return 0;
}

void sexpr_free(struct sexpr **pe)
{
	struct sexpr *e = *pe;
	if (!e)
		return;
	*pe = NULL;
	if (--e->refs > 0)
		return;		/* another element holds it */
	mupRelease(e->h);
	free(e->v);
	free(e->text);
	free(e);
}
