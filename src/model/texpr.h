/* texpr.h - expressions of time with exact first and second derivatives
 * (the motion law `type: expression` of func.h).
 *
 * The text is in the deck's expression syntax (muparser's: + - * / ^,
 * unary minus, comparisons, && ||, ?:, the functions sin cos tan asin
 * acos atan sinh cosh tanh asinh acosh atanh exp ln log log2 log10 sqrt
 * abs sign rint min max sum avg, the constants pi and e) in the variable t
 * and the deck's parameters (constants).  It is parsed once into a tape
 * that is run on jets (v, v', v''): truncated Taylor arithmetic, forward
 * automatic differentiation of order 2, so the derivatives are those of
 * the formula to round-off (no step, no truncation error).
 *
 * Every text is also compiled by muparser and the two are compared at a
 * few times: a text muparser refuses is refused with muparser's message,
 * one the two read differently (a precedence this parser got wrong) is
 * refused, never evaluated in a second meaning.
 *
 * Where the formula has a kink or a jump (abs at 0, sign, rint, a
 * comparison, ?:) the jet is that of the branch t itself falls in; such
 * points are not snapped as func.h's breakpoints are.
 */
#ifndef MBSIM_TEXPR_H
#define MBSIM_TEXPR_H

struct texpr;

struct tx_err {
	int pos;		/* 0-based offset in the text */
	char msg[320];
};

/* Compile text with the constants names[i] = vals[i] (a name "t" among
 * them is shadowed by time).  0 and *out, or -1 with err. */
int texpr_compile(const char *text, const char *const *names, const double *vals, int n,
		  struct texpr **out, struct tx_err *err);
/* f[0] = value, f[1] = d/dt, f[2] = d2/dt2 at t. */
void texpr_eval(const struct texpr *e, double t, double f[3]);
const char *texpr_text(const struct texpr *e);
struct texpr *texpr_copy(const struct texpr *e);
void texpr_free(struct texpr **e);

#endif
