/* test_deck.c - the deck loader: --set, expressions, repeat, urand,
 * orientation forms, and error collection with positions. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "testutil.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "deck/deck.h"
#include "deck/expr.h"
#include "model/model.h"

/* Record i formatted, compared with want. */
static void assert_diag(const struct diag *d, int i, const char *want)
{
	assert_true(i < d->n);
	char *s = diag_format(d, i);
	/* the temporary file name varies: compare from the first ':' */
	const char *got = strncmp(s, "/tmp/", 5) == 0 ? strchr(s, ':') : s;
	assert_string_equal(got, want);
	free(s);
}

/* Exactly n errors, record i formatted as want[i]. */
static void assert_errors(const struct diag *d, const char *const *want, int n)
{
	assert_int_equal(d->nerr, n);
	for (int i = 0; i < n; i++)
		assert_diag(d, i, want[i]);
}
#define ASSERT_ERRORS(d, ...) \
	do { \
		static const char *const want_[] = { __VA_ARGS__ }; \
		assert_errors((d), want_, (int)(sizeof want_ / sizeof want_[0])); \
	} while (0)

static const char crank_deck[] =
	"parameters:\n"
	"  L: 0.5\n"
	"  m: 2*L + 1\n"
	"time: {end: 1}\n"
	"integrator: {method: hi}\n"
	"bodies:\n"
	"  - {name: crank, mass: m, inertia: [1, 1, 1], position: [L, 0, 0]}\n"
	"  - {name: rod, mass: 1, inertia: [1, 1, 1]}\n"
	"joints:\n"
	"  - {name: pin, type: revolute, body1: ground, body2: crank, point: [0, 0, 0], axis: [0, 0, 1]}\n";

static void build_ok(struct deck *dk, struct model **m, struct sim_options *o,
		     struct diag *d)
{
	int rc = deck_build(dk, m, o, d);
	for (int i = 0; i < d->n; i++) {
		char *s = diag_format(d, i);
		print_error("%s\n", s);
		free(s);
	}
	assert_int_equal(rc, 0);
	assert_non_null(*m);
}

static void test_expressions(void **state)
{
	struct diag d;
	struct model *m;
	struct sim_options o;
	diag_init(&d);
	struct deck *dk = testutil_load_text(crank_deck, &d);
	assert_non_null(dk);
	build_ok(dk, &m, &o, &d);
	/* m = 2 L + 1 with L = 0.5 */
	assert_near(m->bodies[0].mass, 2.0, 0, 1e-15);
	assert_near(m->bodies[0].r0[0], 0.5, 0, 1e-15);
	assert_int_equal(o.max_iterations, 50);	/* default kept */
	model_free(&m);
	deck_free(&dk);
	diag_release(&d);
}

static void test_set_scalars(void **state)
{
	struct diag d;
	struct model *m;
	struct sim_options o;
	diag_init(&d);
	struct deck *dk = testutil_load_text(crank_deck, &d);
	assert_int_equal(deck_set(dk, "integrator.method=fi", &d), 0);
	assert_int_equal(deck_set(dk, "bodies.rod.mass=0.25", &d), 0);	/* by name */
	assert_int_equal(deck_set(dk, "bodies.0.position.1=3*L", &d), 0);	/* by index */
	assert_int_equal(deck_set(dk, "integrator.max_iterations=20", &d), 0);	/* added */
	assert_int_equal(deck_set(dk, "parameters.L=1", &d), 0);
	assert_int_equal(deck_set(dk, "output.every=5", &d), 0);	/* new section */
	build_ok(dk, &m, &o, &d);
	assert_string_equal(o.method, "fi");
	assert_int_equal(o.max_iterations, 20);
	assert_int_equal(o.every, 5);
	assert_near(m->bodies[1].mass, 0.25, 0, 0);
	assert_near(m->bodies[0].mass, 3.0, 0, 1e-15);	/* 2*1 + 1 */
	assert_near(m->bodies[0].r0[1], 3.0, 0, 1e-15);
	/* the original text is untouched */
	assert_non_null(strstr(deck_text(dk), "method: hi"));
	model_free(&m);
	deck_free(&dk);
	diag_release(&d);
}

static void test_set_errors(void **state)
{
	struct diag d;
	diag_init(&d);
	struct deck *dk = testutil_load_text(crank_deck, &d);
	assert_int_equal(deck_set(dk, "foo", &d), -1);
	assert_int_equal(deck_set(dk, "bodies.crank.masss=1", &d), -1);
	assert_int_equal(deck_set(dk, "bodies.wheel.mass=1", &d), -1);
	assert_int_equal(deck_set(dk, "joints.pin.axis=1", &d), -1);
	assert_int_equal(deck_set(dk, "integrater.step=1", &d), -1);
	ASSERT_ERRORS(&d, "--set:1:1: error: expected KEY=VALUE, got 'foo'",
		      "--set:1:14: error: unknown key 'masss' in body (did you mean 'mass'?)",
		      "--set:1:8: error: no list item named 'wheel' in 'bodies'",
		      "--set:1:1: error: 'joints.pin.axis' is not a scalar",
		      "--set:1:1: error: unknown key 'integrater' in the deck (did you mean 'integrator'?)");
	deck_free(&dk);
	diag_release(&d);
}

/* A value set on the command line is reported at its column in --set. */
static void test_set_value_position(void **state)
{
	struct diag d;
	struct model *m;
	struct sim_options o;
	diag_init(&d);
	struct deck *dk = testutil_load_text(crank_deck, &d);
	assert_int_equal(deck_set(dk, "bodies.crank.mass=abc", &d), 0);
	assert_int_equal(deck_build(dk, &m, &o, &d), -1);
	assert_null(m);
	ASSERT_ERRORS(&d, "--set:1:19: error: expected a number for 'mass', got 'abc'");
	deck_free(&dk);
	diag_release(&d);
}

static const char chain_deck[] =
	"parameters: {N: 4, L: 0.25}\n"
	"time: {end: 1}\n"
	"bodies:\n"
	"  - name: link{i}\n"
	"    repeat: {index: i, from: 1, to: N}\n"
	"    mass: 1\n"
	"    inertia: [1, 1, 1]\n"
	"    position: [\"(i - 0.5)*L\", 0, 0]\n"
	"joints:\n"
	"  - {name: j1, type: spherical, body1: ground, body2: link1, point: [0, 0, 0]}\n"
	"  - name: j{k}\n"
	"    repeat: {index: k, from: 2, to: N}\n"
	"    type: spherical\n"
	"    body1: link{k-1}\n"
	"    body2: link{k}\n"
	"    point: [\"(k - 1)*L\", 0, 0]\n";

static void check_chain(int n, const char *set)
{
	struct diag d;
	struct model *m;
	struct sim_options o;
	char name[32];
	diag_init(&d);
	struct deck *dk = testutil_load_text(chain_deck, &d);
	if (set)
		assert_int_equal(deck_set(dk, set, &d), 0);
	build_ok(dk, &m, &o, &d);
	assert_int_equal(m->nbodies, n);
	assert_int_equal(m->njoints, n);
	for (int i = 0; i < n; i++) {
		snprintf(name, sizeof name, "link%d", i + 1);
		assert_string_equal(m->bodies[i].name, name);
		assert_near(m->bodies[i].r0[0], (i + 0.5) * 0.25, 0, 1e-15);
	}
	assert_int_equal(m->joints[n - 1].body[0], n - 2);
	assert_int_equal(m->joints[n - 1].body[1], n - 1);
	model_free(&m);
	deck_free(&dk);
	diag_release(&d);
}

static void test_repeat(void **state)
{
	check_chain(4, NULL);
	check_chain(17, "parameters.N=17");
}

static void test_bare_names(void **state)
{
	/* a bare variable name is read without muparser (expr.c): the same
	 * value as through muparser ("+x" is parsed), the same error for a
	 * non-finite value and for an unknown name, and pi and e stay the
	 * constants even when a variable of that name is defined (muparser
	 * refuses to define a variable over its constant) */
	struct expr *e = expr_new(1);
	struct expr_err err;
	double a = 0, b = 0;
	expr_define(e, "x_1", 0.1 + 0.2);
	assert_int_equal(expr_eval(e, "x_1", &a, &err), 0);
	assert_int_equal(expr_eval(e, "+x_1", &b, &err), 0);
	assert_true(a == b && a == 0.1 + 0.2);
	expr_define(e, "x_1", -7.25);
	assert_int_equal(expr_eval(e, "x_1", &a, &err), 0);
	assert_true(a == -7.25);
	expr_define(e, "big", INFINITY);
	assert_int_equal(expr_eval(e, "big", &a, &err), -1);
	assert_int_equal(err.code, EXPR_ERR_NOT_FINITE);
	assert_int_equal(expr_eval(e, "+big", &a, &err), -1);
	assert_int_equal(err.code, EXPR_ERR_NOT_FINITE);
	assert_int_equal(expr_eval(e, "nobody", &a, &err), -1);
	assert_true(err.msg[0] != 0);
	expr_define(e, "pi", 3.0);
	assert_int_equal(expr_eval(e, "pi", &a, &err), 0);
	assert_true(a == M_PI);
	expr_define(e, "_pi", 2.0);	/* muparser's constant (3.141592653589 in 2.3.3) */
	assert_false(expr_usable(e, "_pi"));
	assert_int_equal(expr_eval(e, "_pi", &a, &err), 0);
	assert_int_equal(expr_eval(e, "1*_pi", &b, &err), 0);
	assert_true(a == b && fabs(a - M_PI) < 1e-11);
	assert_true(expr_usable(e, "x_1"));
	expr_undefine(e, "x_1");
	assert_int_equal(expr_eval(e, "x_1", &a, &err), -1);
	expr_free(&e);
}

static void test_urand(void **state)
{
	/* urand(k) in an expression depends on the seed and k only: two fresh
	 * evaluators with the same seed, called in opposite orders, give the
	 * same numbers (those of expr_urand); another seed gives others */
	struct expr *e1 = expr_new(1), *e2 = expr_new(1), *e3 = expr_new(2);
	double u1[10], u2[10], u3[10];
	char src[32];
	struct expr_err err;
	for (int k = 0; k < 10; k++) {
		snprintf(src, sizeof src, "urand(%d)", k);
		assert_int_equal(expr_eval(e1, src, &u1[k], &err), 0);
		snprintf(src, sizeof src, "urand(%d)", 9 - k);
		assert_int_equal(expr_eval(e2, src, &u2[9 - k], &err), 0);
		assert_int_equal(expr_eval(e3, src, &u3[9 - k], &err), 0);
	}
	for (int k = 0; k < 10; k++) {
		assert_true(u1[k] == u2[k]);
		assert_true(u1[k] == expr_urand(1, k));
		assert_true(u1[k] != u3[k]);
	}
	expr_free(&e1);
	expr_free(&e2);
	expr_free(&e3);
	assert_true(expr_urand(1, 5) != expr_urand(1, 6));
	/* all in [0, 1) */
	double mean = 0;
	for (int k = 0; k < 10000; k++) {
		double u = expr_urand(42, k);
		assert_true(u >= 0 && u < 1);
		mean += u / 10000;
	}
	/* mean of 10^4 uniforms: sd 0.29/100, so 0.02 is > 6 sigma */
	assert_near(mean, 0.5, 0, 0.02);

	struct diag d;
	struct model *m;
	struct sim_options o;
	diag_init(&d);
	struct deck *dk = testutil_load_text("seed: 9\ntime: {end: 1}\nbodies:\n"
				    "  - {name: b, mass: 1, inertia: [1, 1, 1], position: [urand(1), urand(2), 0]}\n",
				    &d);
	build_ok(dk, &m, &o, &d);
	assert_int_equal(o.seed, 9);
	assert_true(m->bodies[0].r0[0] == expr_urand(9, 1));
	assert_true(m->bodies[0].r0[1] == expr_urand(9, 2));
	model_free(&m);
	deck_free(&dk);
	diag_release(&d);
}

/* Rotation about unit u by angle t (Rodrigues), written out here
 * independently of util/so3.c. */
static void rodrigues(double *R, const double *u, double t)
{
	double c = cos(t), s = sin(t), v = 1 - c;
	R[0] = c + u[0] * u[0] * v;
	R[1] = u[0] * u[1] * v - u[2] * s;
	R[2] = u[0] * u[2] * v + u[1] * s;
	R[3] = u[1] * u[0] * v + u[2] * s;
	R[4] = c + u[1] * u[1] * v;
	R[5] = u[1] * u[2] * v - u[0] * s;
	R[6] = u[2] * u[0] * v - u[1] * s;
	R[7] = u[2] * u[1] * v + u[0] * s;
	R[8] = c + u[2] * u[2] * v;
}

static void test_orientation_forms(void **state)
{
	/* axis (1,2,2)/3, angle 0.7: the same rotation in all four forms.
	 * Euler zxz angles of R from the standard extraction:
	 * b = acos(R33), a = atan2(R13, -R23), c = atan2(R31, R32). */
	const double u[3] = { 1.0 / 3, 2.0 / 3, 2.0 / 3 }, t = 0.7;
	double R[9], q[4] = { cos(t / 2), sin(t / 2) * u[0], sin(t / 2) * u[1],
			      sin(t / 2) * u[2] };
	rodrigues(R, u, t);
	double eb = acos(R[8]), ea = atan2(R[2], -R[5]), ec = atan2(R[6], R[7]);
	char text[2048];
	snprintf(text, sizeof text,
		 "time: {end: 1}\nbodies:\n"
		 "  - {name: a, mass: 1, inertia: [1, 1, 1], orientation: {axis: [1, 2, 2], angle: 0.7}}\n"
		 "  - {name: q, mass: 1, inertia: [1, 1, 1], orientation: {quaternion: [%.17g, %.17g, %.17g, %.17g]}}\n"
		 "  - {name: m, mass: 1, inertia: [1, 1, 1], orientation: {matrix: [[%.17g, %.17g, %.17g], [%.17g, %.17g, %.17g], [%.17g, %.17g, %.17g]]}}\n"
		 "  - {name: e, mass: 1, inertia: [1, 1, 1], orientation: {euler: [%.17g, %.17g, %.17g]}}\n"
		 "  - {name: x, mass: 1, inertia: [1, 1, 1], orientation: {euler: [0.3, 0, 0], sequence: xyz}}\n",
		 q[0], q[1], q[2], q[3], R[0], R[1], R[2], R[3], R[4], R[5], R[6],
		 R[7], R[8], ea, eb, ec);
	struct diag d;
	struct model *m;
	struct sim_options o;
	diag_init(&d);
	struct deck *dk = testutil_load_text(text, &d);
	build_ok(dk, &m, &o, &d);
	/* O(1) entries from sin, cos, acos, atan2 and a few products on both
	 * sides (the matrix form re-orthonormalized by the loader): a few
	 * ulps; 1e-14 is 45 ulps of 1 (measured 5.6e-17) */
	for (int b = 0; b < 4; b++)
		for (int i = 0; i < 9; i++)
			assert_near(m->bodies[b].A0[i], R[i], 0, 1e-14);
	/* rotation about x by 0.3: second row (0, cos, -sin) */
	assert_near(m->bodies[4].A0[4], cos(0.3), 0, 1e-15);
	assert_near(m->bodies[4].A0[5], -sin(0.3), 0, 1e-15);
	model_free(&m);
	deck_free(&dk);
	diag_release(&d);
}

/* One pass reports every error, each at its own line and column. */
static void test_many_errors(void **state)
{
	struct diag d;
	struct model *m;
	struct sim_options o;
	diag_init(&d);
	struct deck *dk = testutil_load_text(
		"time: {end: 1}\n"				/* 1 */
		"integrator: {method: hhi, step: 0}\n"		/* 2 */
		"bodies:\n"					/* 3 */
		"  - name: crank\n"				/* 4 */
		"    mass: -1\n"				/* 5 */
		"    inertia: [1, 1, 1]\n"			/* 6 */
		"    colour: red\n"				/* 7 */
		"joints:\n"					/* 8 */
		"  - {name: pin, type: revolut, body1: ground, body2: crank}\n",
		&d);
	assert_int_equal(deck_build(dk, &m, &o, &d), -1);
	assert_null(m);
	ASSERT_ERRORS(&d, ":2:22: error: unknown integrator 'hhi' (did you mean 'hi'?)",
		      ":2:33: error: integrator.step must be positive, got 0",
		      ":7:5: error: unknown key 'colour' in body",
		      ":5:11: error: mass of body 'crank' must be positive, got -1",
		      ":9:23: error: unknown joint type 'revolut' (did you mean 'revolute'?)");
	deck_free(&dk);
	diag_release(&d);
}

static void test_print_keys(void **state)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	deck_print_keys(f);
	fclose(f);
	/* each line: path, type, default, range, description (deck.h) */
	assert_non_null(strstr(buf, "\nintegrator.method "));
	assert_non_null(strstr(buf, "\nbodies[].mass "));
	assert_non_null(strstr(buf, "\njoints[].point1 "));
	assert_non_null(strstr(buf, "\ndrivers[].function.rate "));
	/* the columns of one key, split out of its help text in keys.c */
	char *l = strstr(buf, "\nintegrator.step ");
	assert_non_null(l);
	char line[256];
	sscanf(l + 1, "%255[^\n]", line);
	char path[64], type[32], def[32], op[8], bound[16];
	assert_int_equal(sscanf(line, "%63s %31s %31s %7s %15s", path, type, def, op, bound), 5);
	assert_string_equal(type, "number");
	assert_string_equal(def, "1e-3");
	assert_string_equal(op, ">");
	assert_string_equal(bound, "0");
	assert_non_null(strstr(line, "step size in s"));
	assert_null(strstr(line, "(default"));	/* moved to its column */
	free(buf);
}

/* model_drop_index frees the name tables after a build; lookups remake
 * them with the same answers (the first of equal names, -2 for none,
 * "ground"), also for elements added after the drop. */
static void test_drop_index(void **state)
{
	(void)state;
	struct model *m = model_new();
	model_add_body(m, "a");
	model_add_body(m, "b");
	model_add_body(m, "a");	/* a duplicate: the first one is found */
	model_add_joint(m, "j", JOINT_REVOLUTE);
	for (int round = 0; round < 2; round++) {
		model_drop_index(m);
		assert_int_equal(model_find_body(m, "a"), 0);
		assert_int_equal(model_find_body(m, "b"), 1);
		assert_int_equal(model_find_body(m, "c"), -2);
		assert_int_equal(model_find_body(m, "ground"), MODEL_GROUND);
		assert_int_equal(model_find_joint(m, "j"), 0);
		assert_int_equal(model_find_force(m, "j"), -2);
	}
	model_drop_index(m);
	model_add_body(m, "c");	/* added after a drop: the old names stay */
	assert_int_equal(model_find_body(m, "c"), 3);
	assert_int_equal(model_find_body(m, "a"), 0);
	assert_int_equal(model_find_body(m, "b"), 1);
	model_free(&m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_expressions),
		cmocka_unit_test(test_set_scalars),
		cmocka_unit_test(test_set_errors),
		cmocka_unit_test(test_set_value_position),
		cmocka_unit_test(test_repeat),
		cmocka_unit_test(test_bare_names),
		cmocka_unit_test(test_urand),
		cmocka_unit_test(test_orientation_forms),
		cmocka_unit_test(test_many_errors),
		cmocka_unit_test(test_print_keys),
		cmocka_unit_test(test_drop_index),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
