/* fuzz_expr.c - libFuzzer target: the input is one deck expression,
 * evaluated in a scope like the deck builder's (a few parameters and a
 * repeat index defined) twice, as a repeat block does with its cached
 * parser (the second evaluation must agree with the first), once more
 * with another index, then defined and undefined as a name. */
#include "deck/expr.h"
#include "util/xalloc.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = xmalloc(size + 1);
	memcpy(s, data, size);
	s[size] = 0;
	struct expr *ex = expr_new(42);
	expr_define(ex, "L", 0.5);
	expr_define(ex, "N", 4);
	expr_define(ex, "i", 2);
	double v;
	struct expr_err err;
	int rc = expr_eval(ex, s, &v, &err);
	double v2;
	struct expr_err err2;
	int rc2 = expr_eval(ex, s, &v2, &err2);
	if (rc != rc2 || (rc == 0 && memcmp(&v, &v2, sizeof v) != 0) ||
	    (rc != 0 && err.code != err2.code))
		abort();	/* the cached parser disagrees with a fresh one */
	expr_define(ex, "i", 3);
	expr_eval(ex, s, &v, &err);
	if (expr_is_ident(s)) {
		expr_define(ex, s, 1.0);
		expr_eval(ex, s, &v, &err);
		expr_undefine(ex, s);
	}
	expr_free(&ex);
	free(s);
	return 0;
}
