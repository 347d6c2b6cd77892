/* test_force.c - force elements of form/ra_force.c against closed forms.
 *
 * The Newton blocks of elements with state expressions come from central
 * differences (step cbrt(eps) max(1, |x|) ~ 6e-6); their truncation error
 * is step^2 |F'''| / 6 and the round-off eps |F| / step, both below 1e-9
 * relative for the forces here (|F| ~ 10^2 N), so 1e-7 relative tells a
 * right block from a wrong one (a sign or a missing term is O(1)).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"
#include "form/ra.h"
#include "model/model.h"
#include "model/sexpr.h"
#include "util/vec.h"

static struct sexpr *compile(const struct model *m, const char *text)
{
	static const char *const names[] = { "k", "c" };
	static const double vals[] = { 300.0, 7.0 };
	struct sx_scope sc = { .m = m, .pnames = names, .pvals = vals, .np = 2, .self = 1 };
	struct sx_err err;
	struct sexpr *e = NULL;
	assert_int_equal(sexpr_compile(text, &sc, &e, &err), 0);
	return e;
}

/* A body hanging from ground on a tsda attached at its centroid, given by
 * stiffness and damping (expr = 0) or by the same law as an expression. */
static struct model *hanging(int expr)
{
	struct model *m = model_new();
	struct body *b = model_add_body(m, "mass");
	b->mass = 2.0;
	b->J[0] = b->J[4] = b->J[8] = 0.1;
	m3_identity(b->A0);
	struct force *f = model_add_force(m, "spring", FORCE_TSDA);
	f->body[0] = MODEL_GROUND;
	f->body[1] = 0;
	v3_set(f->s[0], 0.3, -0.2, 1.5);
	f->l0 = 1.0;
	if (!expr) {
		f->k = 300.0;
		f->c = 7.0;
	}
	struct diag d;
	diag_init(&d);
	assert_int_equal(model_finalize(m, &d), 0);
	diag_release(&d);
	if (expr)
		m->forces[0].ex = compile(m, "k*deflection + c*rate");
	return m;
}

/* Blocks W (nb x 18) of model m at a displaced state, velocity v. */
static void blocks(struct model *m, const double *v, double cq, double cv, double *W)
{
	struct ra *s = ra_new(m);
	struct ra_state x;
	ra_state_init(s, &x);
	ra_state_from_model(s, &x, 0.0);
	v3_set(x.r, 0.05, 0.1, -0.2);
	v3_copy(x.v, v);
	memset(W, 0, 18 * sizeof(double));
	ra_force_blocks(s, &x, 0.0, cq, cv, W);
	ra_state_release(&x);
	ra_free(&s);
}

/* At rest the analytic tsda stiffness block k u u^T + (f / l)(I - u u^T)
 * is exact; the differences of the expression spring must match it (and
 * give no rotational block: the force acts at the centroid). */
static void test_tsda_expression_stiffness(void **state)
{
	struct model *ma = hanging(0), *mb = hanging(1);
	double Wa[18], Wb[18], v0[3] = { 0, 0, 0 };
	blocks(ma, v0, 1.0, 0.0, Wa);
	blocks(mb, v0, 1.0, 0.0, Wb);
	for (int q = 0; q < 9; q++)
		assert_near(Wb[q], Wa[q], 1e-7, 1e-7 * 300);
	for (int q = 9; q < 18; q++)
		assert_near(Wb[q], 0.0, 0, 1e-7 * 300);
	model_free(&ma);
	model_free(&mb);
}

/* The damping block c u u^T holds at any velocity. */
static void test_tsda_expression_damping(void **state)
{
	struct model *ma = hanging(0), *mb = hanging(1);
	double Wa[18], Wb[18], v[3] = { 0.4, -0.3, 1.1 };
	blocks(ma, v, 0.0, 1.0, Wa);
	blocks(mb, v, 0.0, 1.0, Wb);
	for (int q = 0; q < 9; q++)
		assert_near(Wb[q], Wa[q], 1e-7, 1e-7 * 7);
	model_free(&ma);
	model_free(&mb);
}

/* A wheel of mass 1 kg and inertia 0.2 I on a revolute joint 'axle'
 * about global z through the origin, with (rsda) a rotational
 * spring-damper k = 40, c = 0.5 about it; finalized. */
static struct model *wheel(int rsda)
{
	struct model *m = model_new();
	struct body *b = model_add_body(m, "wheel");
	b->mass = 1.0;
	b->J[0] = b->J[4] = b->J[8] = 0.2;
	m3_identity(b->A0);
	struct joint *j = model_add_joint(m, "axle", JOINT_REVOLUTE);
	j->body[0] = MODEL_GROUND;
	j->body[1] = 0;
	double p[3] = { 0, 0, 0 }, z[3] = { 0, 0, 1 };
	model_joint_global(m, j, p, z, NULL);
	if (rsda) {
		struct force *f = model_add_force(m, "spring", FORCE_RSDA);
		f->joint = 0;
		f->body[0] = MODEL_GROUND;
		f->body[1] = 0;
		f->k = 40.0;
		f->c = 0.5;
	}
	struct diag d;
	diag_init(&d);
	assert_int_equal(model_finalize(m, &d), 0);
	diag_release(&d);
	return m;
}

/* An rsda about global z at zero deflection: rotational blocks k z z^T
 * and c z z^T in the body frame (the body is not rotated: z = e3). */
static void test_rsda_blocks(void **state)
{
	struct model *m = wheel(1);
	struct ra *s = ra_new(m);
	struct ra_state x;
	ra_state_init(s, &x);
	ra_state_from_model(s, &x, 0.0);
	double W[18];
	for (int pass = 0; pass < 2; pass++) {
		memset(W, 0, sizeof W);
		ra_force_blocks(s, &x, 0.0, pass == 0, pass == 1, W);
		double want = pass == 0 ? 40.0 : 0.5;
		for (int r = 0; r < 3; r++)
			for (int c = 0; c < 3; c++)
				assert_near(W[9 + 3 * r + c], r == 2 && c == 2 ? want : 0.0, 1e-7,
					    1e-7 * want);
	}
	ra_state_release(&x);
	ra_free(&s);
	model_free(&m);
}

/* State names: q.axle of a turned wheel (unwrapped past pi), its rate,
 * x.B and the rotation vector; an unknown joint gets a suggestion. */
static void test_state_names(void **state)
{
	struct model *m = wheel(0);
	struct ra *s = ra_new(m);
	struct ra_state x;
	ra_state_init(s, &x);
	ra_state_from_model(s, &x, 0.0);
	struct sexpr *eq = compile(m, "q.axle"), *eqd = compile(m, "qd.axle + 10*rz.wheel");
	x.w[2] = 3.0;
	/* turn by 0.9 pi three times: 2.7 pi unwrapped, 0.7 pi wrapped */
	double th[3] = { 0, 0, 0 };
	for (int i = 1; i <= 3; i++) {
		th[2] = 0.9 * M_PI * i;
		so3_exp(x.A, th);
		double q = ra_sexpr(s, &x, 0.0, eq);
		assert_near(q, 0.9 * M_PI * i, 1e-14, 0);
	}
	/* rz of the wrapped rotation 2.7 pi - 2 pi = 0.7 pi */
	assert_near(ra_sexpr(s, &x, 0.0, eqd), 3.0 + 10 * 0.7 * M_PI, 1e-13, 0);
	struct sx_scope sc = { .m = m };
	struct sx_err err;
	struct sexpr *bad = NULL;
	assert_int_equal(sexpr_compile("2*q.axel", &sc, &bad, &err), -1);
	assert_int_equal(err.pos, 2);
	assert_non_null(strstr(err.msg, "did you mean 'q.axle'"));
	sexpr_free(&eq);
	sexpr_free(&eqd);
	ra_state_release(&x);
	ra_free(&s);
	model_free(&m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_tsda_expression_stiffness),
		cmocka_unit_test(test_tsda_expression_damping),
		cmocka_unit_test(test_rsda_blocks),
		cmocka_unit_test(test_state_names),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
