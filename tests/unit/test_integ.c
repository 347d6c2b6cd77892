/* test_integ.c - HI, FI and HILG on problems with known solutions.
 *
 * 1. A block on an inclined translational joint under gravity.  The exact
 *    motion is s(t) = g_u t^2 / 2 along the axis u (g_u = g . u).  For a
 *    constant acceleration both schemes reduce to
 *        v_{n+1} = v_n + h a,  s_{n+1} = s_n + h v_{n+1}
 *    (symplectic Euler for HI, backward Euler for FI, 000 eqs. 4 and 14),
 *    whose exact discrete solution is s_n = g_u t_n (t_n + h) / 2.  The
 *    test checks that value to round-off (so the error against the
 *    continuous solution is exactly g_u t h / 2 = (h/2) v(t)), and the
 *    joint reaction, which must balance the normal part of gravity:
 *    F = -m (g - g_u u).
 *    With a spring along the axis the motion is an oscillation and the
 *    discrete solution no longer exact: the error against the continuous
 *    solution must halve with h (first order).
 * 2. A free body spinning about a principal axis with no torque: w is
 *    constant and A(t) = A0 exp(t w~) exactly; the Lie-group updates of
 *    eqs. 4d and 14d reproduce it to round-off for any h.  With a constant
 *    torque tau along that axis the gyroscopic term w x J w stays zero and
 *    every scheme reduces to w_{n+1} = w_n + h tau / J_y, theta_{n+1} =
 *    theta_n + h w_{n+1} (hilg's variational update too: about a
 *    principal axis Jr(theta)^-1 J theta = J theta), whose exact discrete
 *    solution is theta_n = w0 t_n + (tau / J_y) t_n (t_n + h) / 2.
 * hi, fi and hilg each run 1 and 2.
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
#include "deck/deck.h"
#include "elem/elem.h"
#include "form/ra.h"
#include "integ/integ.h"
#include "model/model.h"
#include "util/vec.h"

/* k > 0: a spring of stiffness k (N/m) along the axis from a ground point
 * 10 m up the axis to the centroid, free length 10 m (relaxed at s = 0;
 * the block stays well below the anchor) */
static struct model *incline(double k)
{
	struct model *m = model_new();
	struct body *b = model_add_body(m, "block");
	b->mass = 2.0;
	b->J[0] = b->J[4] = b->J[8] = 0.1;
	m3_identity(b->A0);
	struct joint *j = model_add_joint(m, "slide", JOINT_TRANSLATIONAL);
	j->body[0] = MODEL_GROUND;
	j->body[1] = 0;
	double p[3] = { 0, 0, 0 }, u[3] = { M_SQRT1_2, 0, M_SQRT1_2 };
	model_joint_global(m, j, p, u, NULL);
	if (k > 0) {
		struct force *f = model_add_force(m, "spring", FORCE_TSDA);
		struct tsda_par *par = elem_par(f);
		f->body[0] = MODEL_GROUND;
		f->body[1] = 0;
		v3_scale(f->s[0], 10.0, u);
		par->k = k;
		par->l0 = 10.0;
	}
	testutil_finalize(m);
	return m;
}

/* Run n steps of method name; returns the final state in x (t = n h). For
 * the half-implicit scheme the final accelerations come from integ_accel. */
static void run(const char *name, double h, int n, struct ra *s, struct ra_state *x)
{
	struct sim_options o;
	struct diag d;
	sim_options_default(&o);
	o.tolerance = 1e-13;
	diag_init(&d);
	struct integ *it = integ_new(integ_find(name), s, &o, &d);
	struct ra_state y;
	ra_state_init(s, &y);
	ra_state_from_model(s, x, 0.0);
	assert_int_equal(integ_accel(it, x), INTEG_OK);
	for (int k = 0; k < n; k++) {
		assert_int_equal(integ_step(it, h, x, &y), INTEG_OK);
		struct ra_state t = *x;
		*x = y;
		y = t;
	}
	assert_int_equal(integ_accel(it, x), INTEG_OK);
	ra_state_release(&y);
	integ_free(&it);
	diag_release(&d);
}

/* Each of sections 1 and 2 runs once per method: the test's state is the
 * method's name (BY_METHOD in main). */
static void test_incline(void **st)
{
	const char *name = *st;
	struct model *m = incline(0);
	struct ra *s = ra_new(m);
	struct ra_state x;
	ra_state_init(s, &x);
	double h = 1e-2, g = 9.81, gu = -g * M_SQRT1_2;
	int n = 100;
	run(name, h, n, s, &x);
	double t = n * h, sd = 0.5 * gu * t * (t + h);
	double u[3] = { M_SQRT1_2, 0, M_SQRT1_2 };
	/* discrete solution: round-off of 100 steps, positions ~ 1 m */
	assert_near(v3_dot(x.r, u), sd, 0.0, 1e-12);
	/* no motion off the axis: the constraint holds to the Newton tolerance */
	assert_near(x.r[1], 0.0, 0.0, 1e-12);
	assert_near(x.r[0] - x.r[2], 0.0, 0.0, 1e-12);
	/* reaction on the block = -m (g - g_u u): balances normal gravity.
	 * Newton stops once its update of h^2 lambda is below the tolerance
	 * 1e-13 (run; hi.c, fi.c), so lambda, hence the reaction and its
	 * couple, are known to ~1e-13 / h^2 = 1e-9 N */
	ra_eval(s, &x, x.t, PRIM_ALL);
	double F[3], C[3], gv[3] = { 0, 0, -g };
	ra_reaction(s, &x, m->joints[0].row0, m->joints[0].nrows, m->joints[0].s[1], F, C);
	for (int k = 0; k < 3; k++)
		assert_near(F[k], -2.0 * (gv[k] - gu * u[k]), 1e-9, 1e-9);
	/* and no couple: the gravity line passes through the centroid */
	assert_near(v3_norm(C), 0.0, 0.0, 1e-9);
	ra_state_release(&x);
	ra_free(&s);
	model_free(&m);
}

/* Position error at t = 1 s against s(t) = (g_u / w^2) (1 - cos w t),
 * w^2 = k / m, of the sprung incline at step h (k = 8 N/m, m = 2 kg:
 * w = 2 rad/s) */
static double spring_error(const char *name, double h)
{
	struct model *m = incline(8.0);
	struct ra *s = ra_new(m);
	struct ra_state x;
	ra_state_init(s, &x);
	run(name, h, (int)lround(1.0 / h), s, &x);
	double w = 2.0, gu = -9.81 * M_SQRT1_2, u[3] = { M_SQRT1_2, 0, M_SQRT1_2 };
	double e = v3_dot(x.r, u) - gu / (w * w) * (1.0 - cos(w));
	ra_state_release(&x);
	ra_free(&s);
	model_free(&m);
	return e;
}

/* First order: e(h) = C h (1 + kappa h w + ...), the error expanding in
 * powers of h w (w the only rate of the problem), so e(h) / e(h/2) =
 * 2 + kappa h w + O((h w)^2).  At h = 2.5e-3 (h w = 5e-3), |ratio - 2| <=
 * 0.02 allows |kappa| up to 4 (measured kappa 0.17 hi, 0.9 fi from the
 * ratios at h = 1e-2 .. 1.6e-4, which approach 2 linearly in h; at this h
 * 2.0008 hi, 2.0047 fi); a second-order error gives 4, one that does not
 * converge 1.  The errors themselves are ~4e-3 m, far above the Newton
 * tolerance (1e-13 in run). */
static void test_spring_order(void **st)
{
	const char *name = *st;
	double e1 = spring_error(name, 2.5e-3), e2 = spring_error(name, 1.25e-3);
	assert_near(e1 / e2, 2.0, 0, 0.02);
}

static void test_spin(void **st)
{
	const char *name = *st;
	struct model *m = model_new();
	v3_set(m->gravity, 0, 0, 0);
	struct body *b = model_add_body(m, "top");
	b->mass = 1.0;
	b->J[0] = 1.0;
	b->J[4] = 2.0;
	b->J[8] = 3.0;
	double th0[3] = { 0.3, -0.2, 0.5 };
	so3_exp(b->A0, th0);
	v3_set(b->w0, 0, 4.0, 0);	/* principal axis y: steady spin */
	testutil_finalize(m);
	struct ra *s = ra_new(m);
	struct ra_state x;
	ra_state_init(s, &x);
	run(name, 0.05, 40, s, &x);
	double R[9], A[9], th[3] = { 0, 4.0 * 2.0, 0 };
	so3_exp(R, th);
	m3_mul(A, b->A0, R);
	for (int k = 0; k < 9; k++)
		assert_near(x.A[k], A[k], 0.0, 1e-12);	/* 40 products of rotations */
	assert_near(x.w[1], 4.0, 0.0, 1e-12);
	ra_state_release(&x);
	ra_free(&s);
	model_free(&m);
}

/* 2 with the torque 1.5 N m about the spin axis y (J_y = 2 kg m^2) */
static void test_spin_torque(void **st)
{
	static const char spin_deck[] =
		"time: {end: 2}\n"
		"gravity: [0, 0, 0]\n"
		"bodies:\n"
		"  - {name: top, mass: 1, inertia: [1, 2, 3], angular_velocity: [0, 4, 0]}\n"
		"forces:\n"
		"  - {name: drive, type: torque, body: top, vector: [0, 1.5, 0],\n"
		"     function: {type: constant, value: 1}}\n";
	const char *name = *st;
	struct diag d;
	struct model *m;
	struct sim_options o;
	diag_init(&d);
	struct deck *dk = testutil_load_text(spin_deck, &d);
	diag_release(&d);
	testutil_build(dk, &m, &o);
	struct ra *s = ra_new(m);
	struct ra_state x;
	ra_state_init(s, &x);
	double h = 0.05, t = 40 * h, a = 1.5 / 2.0;
	run(name, h, 40, s, &x);
	double R[9], th[3] = { 0, 4.0 * t + 0.5 * a * t * (t + h), 0 };
	so3_exp(R, th);
	for (int k = 0; k < 9; k++)
		assert_near(x.A[k], R[k], 0.0, 1e-12);	/* 40 products of rotations */
	assert_near(x.w[1], 4.0 + a * t, 0.0, 1e-12);
	assert_near(x.w[0], 0.0, 0.0, 1e-12);
	assert_near(x.w[2], 0.0, 0.0, 1e-12);
	ra_state_release(&x);
	ra_free(&s);
	model_free(&m);
	deck_free(&dk);
}

/* 3. The predictor's history (integ_hist_*): rows of a cubic on a grid
 *    make it choose the cubic (which predicted the last row exactly) and
 *    reproduce the cubic at the next grid point, also once the ring of
 *    INTEG_HIST_MAX rows has wrapped; hi's rows are (lambda, g) and only
 *    g's values choose the degree (lambda's rows here jump about and must
 *    not matter); rows on a line, the line; a time off the grid, a single
 *    row (the last values themselves) or a row pushed at another spacing
 *    give nothing to extrapolate. */
static double cubic(double t)
{
	return 1.5 - 2.0 * t + 0.25 * t * t - 3.0 * t * t * t;
}

static void test_predictor(void **st)
{
	(void)st;
	struct model *m = incline(0);
	struct ra *s = ra_new(m);
	struct sim_options o;
	struct diag d;
	sim_options_default(&o);
	diag_init(&d);
	struct integ *it = integ_new(integ_find("hi"), s, &o, &d);
	assert_non_null(it);
	int n = s->nc + s->ng;	/* 5 + 6 */
	assert_int_equal(it->hist.n, n);
	assert_int_equal(it->hist.sel, s->nc);
	/* rows are (lambda, g) from two arrays: here one, split at nc */
	assert_int_equal(it->hist.n0, s->nc);
	double h = 0.1, v[16], out[16];
	for (int i = 0; i < 16; i++)
		v[i] = out[i] = -7.0;
	/* nothing kept yet: nothing to extrapolate, out untouched */
	assert_int_equal(integ_hist_predict(it, 0.0, out, out + s->nc), 0);
	assert_true(out[0] == -7.0);
	for (int k = 0; k < 5; k++) {
		for (int i = 0; i < n; i++)
			v[i] = i < s->nc ? (k % 2 ? 1e3 : -1e3) : (i + 1) * cubic(k * h);
		integ_hist_push(it, k * h, v, v + s->nc);
	}
	/* the fifth row was predicted exactly by the cubic through the four
	 * before it (and by no lower degree): the next prediction is cubic */
	assert_int_equal(integ_hist_predict(it, 5 * h, out, out + s->nc), 4);
	for (int i = s->nc; i < n; i++)	/* sums of O(1) terms: round-off */
		assert_near(out[i], (i + 1) * cubic(5 * h), 1e-13, 1e-13);
	/* ten rows: the ring has wrapped; the newest six still give the cubic */
	for (int k = 5; k < 10; k++) {
		for (int i = 0; i < n; i++)
			v[i] = (i + 1) * cubic(k * h);
		integ_hist_push(it, k * h, v, v + s->nc);
	}
	assert_true(integ_hist_predict(it, 10 * h, out, out + s->nc) >= 4);
	/* all of them now, lambda's too: the -1e3 of row 4 is no longer used.
	 * Round-off: the extrapolation weights of 4 or 5 rows sum to 15 or 31
	 * in modulus, on rows no larger than the result (|cubic| <= 2.3 at
	 * 0.5..0.9, 3.25 at 1): sum |w_j r_j| <= 22 |result|, a few times 22
	 * ulps; 1e-13 relative (measured 3.1e-16) */
	for (int i = 0; i < n; i++)
		assert_near(out[i], (i + 1) * cubic(10 * h), 1e-13, 0);
	/* a time off the grid: nothing */
	out[0] = -7.0;
	assert_int_equal(integ_hist_predict(it, 5.5 * h, out, out + s->nc), 0);
	assert_true(out[0] == -7.0);
	/* a row at another spacing starts the history again; one row is only
	 * the last step's values, which the caller has: nothing */
	for (int i = 0; i < n; i++)
		v[i] = 2.0 * (i + 1);
	integ_hist_push(it, 4 * h + 0.05, v, v + s->nc);
	assert_int_equal(integ_hist_predict(it, 4 * h + 0.1, out, out + s->nc), 0);
	/* rows on a line (2, 3, 4, ... times i + 1): after the third the
	 * line predicted best, so the next value is 5 */
	for (int k = 1; k <= 2; k++) {
		for (int i = 0; i < n; i++)
			v[i] = (2.0 + k) * (i + 1);
		integ_hist_push(it, 4 * h + 0.05 + 0.05 * k, v, v + s->nc);
	}
	assert_int_equal(integ_hist_predict(it, 4 * h + 0.2, out, out + s->nc), 2);
	assert_near(out[0], 5.0, 1e-14, 1e-14);
	integ_hist_reset(it);
	assert_int_equal(integ_hist_predict(it, 4 * h + 0.2, out, out + s->nc), 0);
	/* predictor: last keeps no history */
	integ_free(&it);
	o.predictor = 0;
	it = integ_new(integ_find("fi"), s, &o, &d);
	for (int k = 0; k < 3; k++)
		integ_hist_push(it, k * h, v, v + s->nc);
	assert_int_equal(integ_hist_predict(it, 3 * h, out, out + s->nc), 0);
	integ_free(&it);
	diag_release(&d);
	ra_free(&s);
	model_free(&m);
}

/* hi: a step whose extrapolated start fails starts once more from
 * lambda_{n-1} (hi.c), after the first Newton iteration used the forces'
 * vector F as scratch (it keeps no vector of its own for that): the
 * second start must see the same forces, so the step must equal, bit for
 * bit, the same step taken without history.  A NaN history makes the
 * first start fail at once (non-finite iterate). */
static void test_predictor_restart(void **st)
{
	(void)st;
	struct model *m = incline(50.0);	/* a spring: forces that vary */
	struct ra *s = ra_new(m);
	struct sim_options o;
	struct diag d;
	sim_options_default(&o);
	diag_init(&d);
	struct integ *it = integ_new(integ_find("hi"), s, &o, &d);
	struct integ *fresh = integ_new(integ_find("hi"), s, &o, &d);
	struct ra_state x, y, x2, y2;
	ra_state_init(s, &x);
	ra_state_init(s, &y);
	ra_state_init(s, &x2);
	ra_state_init(s, &y2);
	ra_state_from_model(s, &x, 0.0);
	double h = 1e-3;
	assert_int_equal(integ_accel(it, &x), INTEG_OK);
	for (int k = 0; k < 5; k++) {	/* a history to extrapolate from */
		assert_int_equal(integ_step(it, h, &x, &y), INTEG_OK);
		struct ra_state t = x;
		x = y;
		y = t;
	}
	for (int i = 0; i < it->hist.cap * it->hist.n; i++)
		it->hist.v[i] = NAN;
	ra_state_copy(s, &x2, &x);
	assert_int_equal(integ_step(it, h, &x, &y), INTEG_OK);
	assert_int_equal(integ_step(fresh, h, &x2, &y2), INTEG_OK);
	/* the failed start's iterations are counted too */
	assert_true(it->iters > fresh->iters);
	size_t nb = (size_t)s->nb, nc = (size_t)s->nc;
	assert_memory_equal(y.r, y2.r, 3 * nb * sizeof(double));
	assert_memory_equal(y.A, y2.A, 9 * nb * sizeof(double));
	assert_memory_equal(y.v, y2.v, 3 * nb * sizeof(double));
	assert_memory_equal(y.w, y2.w, 3 * nb * sizeof(double));
	assert_memory_equal(x.a, x2.a, 3 * nb * sizeof(double));
	assert_memory_equal(x.lam, x2.lam, nc * sizeof(double));
	ra_state_release(&x);
	ra_state_release(&y);
	ra_state_release(&x2);
	ra_state_release(&y2);
	integ_free(&it);
	integ_free(&fresh);
	diag_release(&d);
	ra_free(&s);
	model_free(&m);
}

/* 4. ra keeps a small model's primitives (ra.prims) instead of making
 * them joint by joint at every evaluation: both ways give the same
 * residuals, rates and Jacobian, bit for bit, on the slider-crank (a
 * revolute, a spherical, a universal and a translational joint, and a
 * rate driver), at a state off the initial one (bodies displaced and
 * turned, velocities given, so that every output has nonzero terms). */
static void test_ra_prims(void **st)
{
	(void)st;
	struct diag d;
	diag_init(&d);
	struct deck *dk = deck_load("decks/slider_crank.yaml", &d);
	assert_non_null(dk);
	struct model *m = NULL;
	struct sim_options o;
	testutil_build(dk, &m, &o);	/* (finalized) */
	struct ra *s = ra_new(m);
	assert_non_null(s->prims);	/* 18 rows: kept */
	struct ra_state x;
	ra_state_init(s, &x);
	ra_state_from_model(s, &x, 0.0);
	testutil_seed(33);
	for (int b = 0; b < s->nb; b++) {
		double th[3], R[9], A[9];
		for (int c = 0; c < 3; c++) {
			x.r[3 * b + c] += 0.01 * testutil_urand();
			x.v[3 * b + c] += testutil_urand();
			x.w[3 * b + c] += testutil_urand();
			th[c] = 0.1 * testutil_urand();
		}
		so3_exp(R, th);
		m3_mul(A, x.A + 9 * b, R);
		memcpy(x.A + 9 * b, A, sizeof A);
	}
	int nc = s->nc, nj = s->jo[nc - 1] + 12;
	double *kept = calloc(3 * (size_t)nc + (size_t)nj, sizeof(double));
	assert_non_null(kept);
	ra_eval(s, &x, 0.3, PRIM_ALL);
	memcpy(kept, s->phi, nc * sizeof(double));
	memcpy(kept + nc, s->nu, nc * sizeof(double));
	memcpy(kept + 2 * nc, s->gamma, nc * sizeof(double));
	memcpy(kept + 3 * nc, s->jac, nj * sizeof(double));
	free(s->prims);
	s->prims = NULL;
	memset(s->phi, 0, nc * sizeof(double));
	memset(s->nu, 0, nc * sizeof(double));
	memset(s->gamma, 0, nc * sizeof(double));
	memset(s->jac, 0, nj * sizeof(double));
	ra_eval(s, &x, 0.3, PRIM_ALL);
	assert_memory_equal(kept, s->phi, nc * sizeof(double));
	assert_memory_equal(kept + nc, s->nu, nc * sizeof(double));
	assert_memory_equal(kept + 2 * nc, s->gamma, nc * sizeof(double));
	assert_memory_equal(kept + 3 * nc, s->jac, nj * sizeof(double));
	/* and they are not trivially equal: residuals away from zero */
	assert_true(fabs(s->phi[0]) > 1e-6 || fabs(s->phi[1]) > 1e-6);
	free(kept);
	ra_state_release(&x);
	ra_free(&s);
	model_free(&m);
	deck_free(&dk);
	diag_release(&d);
}

int main(void)
{
#define BY_METHOD(f, m) { #f "_" m, f, NULL, NULL, (void *)(m) }
	const struct CMUnitTest tests[] = {
		BY_METHOD(test_incline, "hi"),
		BY_METHOD(test_incline, "fi"),
		BY_METHOD(test_incline, "hilg"),
		BY_METHOD(test_spring_order, "hi"),
		BY_METHOD(test_spring_order, "fi"),
		BY_METHOD(test_spring_order, "hilg"),
		BY_METHOD(test_spin, "hi"),
		BY_METHOD(test_spin, "fi"),
		BY_METHOD(test_spin, "hilg"),
		BY_METHOD(test_spin_torque, "hi"),
		BY_METHOD(test_spin_torque, "fi"),
		BY_METHOD(test_spin_torque, "hilg"),
		cmocka_unit_test(test_predictor),
		cmocka_unit_test(test_predictor_restart),
		cmocka_unit_test(test_ra_prims),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
