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
		    (sc->self && (strcmp(n, "deflection") == 0 || strcmp(n, "rate") == 0)))
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

/* Every name an expression may use, for "did you mean". */
static void suggest_all(struct suggest *sg, const struct sx_scope *sc, const char *prefix)
{
	const struct model *m = sc->m;
	char buf[256];
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
			suggest_add(sg, buf);
		}
	}
	if (m->nbodies > 1000)
		return;		/* suggestions stay O(elements), not 12x */
	for (int b = 0; b < m->nbodies; b++)
		for (int k = 0; k < 12; k++) {
			if (prefix && strcmp(prefix, body_qty[k]))
				continue;
			snprintf(buf, sizeof buf, "%s.%s", body_qty[k], m->bodies[b].name);
			suggest_add(sg, buf);
		}
}

/* Bind name to a variable, or explain why not (0 / -1). */
static int classify(const char *name, const struct sx_scope *sc, struct sx_var *v,
		    char *msg, size_t size)
{
	const struct model *m = sc->m;
	const char *dot = strchr(name, '.');
	char pre[16], sug[200];
	memset(v, 0, sizeof(*v));
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
			suggest_all(&sg, sc, pre);
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
			suggest_all(&sg, sc, pre);
			snprintf(msg, size, "unknown body '%s' in '%s'%s", el, name,
				 suggest_text(&sg, sug, sizeof sug));
			return -1;
		}
	}
	suggest_all(&sg, sc, NULL);
	snprintf(msg, size, "unknown name '%s' (state names: t, q.JOINT, qd.JOINT, x.BODY, "
		 "vx.BODY, wx.BODY, rx.BODY, ...)%s", name, suggest_text(&sg, sug, sizeof sug));
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

int sexpr_compile(const char *text, const struct sx_scope *sc, struct sexpr **out,
		  struct sx_err *err)
{
	memset(err, 0, sizeof(*err));
	*out = NULL;
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
	mupRelease(e->h);
	free(e->v);
	free(e->text);
	free(e);
	*pe = NULL;
}
