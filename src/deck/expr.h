/* expr.h - numeric expressions in decks (muparser through its C API).
 *
 * A scope holds the deck's parameters and repeat indices as variables,
 * the constants pi and e, muparser's built-in functions and operators,
 * and urand(k): a uniform number in [0,1) that depends only on the deck
 * seed and the integer k. Internal to deck/.
 */
#ifndef MBSIM_DECK_EXPR_H
#define MBSIM_DECK_EXPR_H

struct expr;

/* Why an evaluation failed: muparser's error code, the 0-based position in
 * the expression, the offending token, and a readable message. */
struct expr_err {
	int code;
	int pos;
	char tok[64];
	char msg[128];
};

#define EXPR_ERR_UNKNOWN_NAME 1		/* muparser ecUNASSIGNABLE_TOKEN */
#define EXPR_ERR_NOT_FINITE 1000	/* evaluated to inf or nan */
#define EXPR_ERR_TOO_LONG 1001		/* longer than EXPR_MAX_LEN */
#define EXPR_ERR_ASSIGN 1002		/* an assignment (=, +=, ...) */

/* The longest expression handed to muparser: its error-token call copies
 * the token into a fixed buffer (a 5000-character name overflowed it). */
#define EXPR_MAX_LEN 1000

struct expr *expr_new(unsigned long seed);
void expr_free(struct expr **ex);
/* Define name (or update its value). Names must be identifiers. */
void expr_define(struct expr *ex, const char *name, double v);
void expr_undefine(struct expr *ex, const char *name);
int expr_has(const struct expr *ex, const char *name);
/* Whether expressions can use the variable name (muparser refuses the
 * names of its constants, such as _pi, and names over its length limit). */
int expr_usable(const struct expr *ex, const char *name);
/* Names of the variables (for "did you mean"): i-th or NULL past the end. */
const char *expr_var_name(const struct expr *ex, int i);
/* Value of the i-th variable (as expr_var_name), NAN past the end. */
double expr_var_value(const struct expr *ex, int i);
/* Evaluate s. 0 and *v, or -1 with err filled. */
int expr_eval(struct expr *ex, const char *s, double *v, struct expr_err *err);

/* urand(k) of a deck with this seed: splitmix64 of (seed, k) -> [0,1). */
double expr_urand(unsigned long seed, long long k);
/* 1 if s is an identifier [A-Za-z_][A-Za-z0-9_]*. */
int expr_is_ident(const char *s);

#endif
