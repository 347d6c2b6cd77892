/* test_json.c - the JSON numbers of --json summaries (src/cli/common.c):
 * every number reads back exactly, and a non-finite one is null with a
 * reason (issue 16 item 8; a run can no longer produce one since every
 * state is checked, so the path is tested here directly). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"

/* What cli_json_num(x) prints, in buf. */
static void json_of(double x, char *buf, size_t n)
{
	FILE *f = tmpfile();
	assert_non_null(f);
	fflush(stdout);
	int saved = dup(1);
	assert_true(saved >= 0);
	assert_true(dup2(fileno(f), 1) >= 0);
	cli_json_num(x);
	fflush(stdout);
	dup2(saved, 1);
	close(saved);
	rewind(f);
	size_t k = fread(buf, 1, n - 1, f);
	buf[k] = '\0';
	fclose(f);
}

static void test_nonfinite(void **state)
{
	char buf[64];
	json_of(INFINITY, buf, sizeof buf);
	assert_string_equal(buf, "null");
	json_of(-INFINITY, buf, sizeof buf);
	assert_string_equal(buf, "null");
	json_of(NAN, buf, sizeof buf);
	assert_string_equal(buf, "null");
	assert_string_equal(cli_nonfinite_reason(INFINITY), "+infinity");
	assert_string_equal(cli_nonfinite_reason(-INFINITY), "-infinity");
	assert_string_equal(cli_nonfinite_reason(NAN), "not a number (NaN)");
}

static void test_round_trip(void **state)
{
	/* the extremes of double and numbers that need 15, 16 and 17 digits */
	const double xs[] = { 0.1, 1e300, 2.2250738585072014e-308, 1.7976931348623157e308,
			      4.9e-324, 0.30000000000000004, 1.0 / 3.0, -2.5 };
	char buf[64];
	for (size_t i = 0; i < sizeof xs / sizeof xs[0]; i++) {
		json_of(xs[i], buf, sizeof buf);
		assert_true(strtod(buf, NULL) == xs[i]);
		assert_null(strpbrk(buf, "ni"));	/* no nan, inf */
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_nonfinite),
		cmocka_unit_test(test_round_trip),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
