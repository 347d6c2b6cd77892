/* test_family.c - a new integrator family is one file plus its registry
 * row: this file is both.  It defines a family (symplectic Euler on the
 * ODE seam of form/ode.h, v_{n+1} = v_n + h f(t_n, y_n, v_n), y_{n+1} =
 * y_n + h v_{n+1}), its struct integ_ops and a row for it (a struct
 * integ_info, as registry.def's rows expand to), and steps it through the
 * stepper shell (integ_new_on, integ_begin, integ_step, integ_stats,
 * integ_free) with no change to integ.c, odeint.c or the run loop.
 *
 * The ODE is the oscillator y'' = -w^2 y, its state shown as body 0's x
 * coordinate (ode_sys.bodies), so the step's result is read from the body
 * state integ_step returns, as the run loop reads it.
 *
 * 1. The map conserves the quadratic v^2 + w^2 y^2 - h w^2 y v exactly:
 *    with v1 = v0 - h w^2 y0 and y1 = y0 + h v1, expanding v1^2 + w^2 y1^2
 *    - h w^2 y1 v1 gives v0^2 + w^2 y0^2 - h w^2 y0 v0 (the invariant of
 *    the symplectic Euler map on a linear oscillator); over 1000 steps it
 *    moves by round-off only.
 * 2. First order: against the exact y(1) = cos(w), the error halves with
 *    h (ratio of the errors at h = 1/200 and 1/400 within [1.8, 2.2]).
 * 3. The statistics reach the caller as keys and values (integ_stats):
 *    the ODE schemes' four (odeint.h), rhs_evaluations = 1 + steps (one f
 *    at the start, one per step by the scheme's definition above).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <string.h>

#include "testutil.h"
#include "form/ra.h"
#include "integ/integ.h"
#include "integ/odeint.h"
#include "model/model.h"
#include "util/vec.h"

/* --- the family: one kernel and its ops ------------------------------- */

static int euler_kernel(struct odeint *O, const struct integ_info *info, double h, double *t1,
			double *h_next)
{
	(void)info;
	for (int i = 0; i < O->n; i++) {
		O->yd[i] += h * O->ydd[i];	/* f at the step's start */
		O->y[i] += h * O->yd[i];
	}
	O->t += h;
	*t1 = O->t;
	*h_next = h;
	/* f at the state reached: the next step's, and what accept() and
	 * bodies() read (ode.h) */
	return odeint_rhs(O, O->t, O->y, O->yd, O->ydd);
}

static int euler_step(struct integ *it, double h, struct ra_state *x, struct ra_state *y)
{
	return odeint_step(it, h, x, y, euler_kernel);
}

/* what every scheme on the ODE seam shares (odeint.h), and its step */
static const struct integ_ops euler_ops = { ODEINT_OPS, ODEINT_STATS_OPS, .step = euler_step };

/* its registry row: X(SYMPLECTIC_EULER, "symplectic_euler", "euler",
 * euler_ops, "rp", 1, 0, 0, 0, 0, "...") */
static const struct integ_info euler_row = {
	INTEG_COUNT, "symplectic_euler", "euler", "rp", &euler_ops, 1, 0, 0, 0, 0,
	"symplectic Euler on the state-space ODE (test_family.c)"
};

/* --- the ODE: y'' = -w^2 y ------------------------------------------- */

#define W 3.0

struct osc {
	struct ode_sys sys;
	double y, yd, ydd;	/* of the last rhs call */
};

static int osc_rhs(void *ctx, double t, const double *y, const double *yd, double *ydd)
{
	struct osc *P = ctx;
	(void)t;
	ydd[0] = -W * W * y[0];
	P->y = y[0];
	P->yd = yd[0];
	P->ydd = ydd[0];
	return ODE_OK;
}

static int osc_accept(void *ctx, double t, double *y, double *yd)
{
	(void)ctx;
	(void)t;
	(void)y;
	(void)yd;
	return 0;
}

static int osc_start(void *ctx, const struct ra_state *x, double *y, double *yd, double *ydd)
{
	y[0] = x->r[0];
	yd[0] = x->v[0];
	return osc_rhs(ctx, x->t, y, yd, ydd);
}

static void osc_bodies(void *ctx, struct ra_state *x)
{
	struct osc *P = ctx;
	x->r[0] = P->y;
	x->v[0] = P->yd;
	x->a[0] = P->ydd;
}

static const char *osc_why(void *ctx)
{
	(void)ctx;
	return "";
}

static void osc_init(struct osc *P)
{
	memset(P, 0, sizeof(*P));
	P->sys.n = 1;
	P->sys.ctx = P;
	P->sys.rhs = osc_rhs;
	P->sys.accept = osc_accept;
	P->sys.start = osc_start;
	P->sys.bodies = osc_bodies;
	P->sys.why = osc_why;
}

/* A free body at x = 1 at rest: the shell's shared part needs a system. */
static struct model *free_body(void)
{
	struct model *m = model_new();
	struct body *b = model_add_body(m, "mass");
	b->mass = 1.0;
	b->J[0] = b->J[4] = b->J[8] = 1.0;
	m3_identity(b->A0);
	b->r0[0] = 1.0;
	testutil_finalize(m);
	return m;
}

/* n steps of h from y = 1, y' = 0 through the shell; the final body state
 * in *y_end, *v_end, the statistics into st (their count returned). */
static int run(double h, int n, double *y_end, double *v_end, double *Hdev, double *st)
{
	struct model *m = free_body();
	struct ra *s = ra_new(m);
	struct osc P;
	struct sim_options o;
	struct diag d;
	osc_init(&P);
	sim_options_default(&o);
	o.t0 = 0.0;
	o.t_end = h * n;
	o.step = h;
	diag_init(&d);
	struct integ *it = integ_new_on(&euler_row, s, integ_kkt_new(s, &o), &P.sys, 0, &o, &d);
	assert_non_null(it);
	struct ra_state x, y;
	ra_state_init(s, &x);
	ra_state_init(s, &y);
	ra_state_from_model(s, &x, 0.0);
	ra_state_copy(s, &y, &x);
	assert_int_equal(integ_begin(it, &x), INTEG_OK);
	double H0 = W * W, dev = 0.0;	/* v^2 + w^2 y^2 - h w^2 y v at y = 1, v = 0 */
	for (int k = 0; k < n; k++) {
		assert_int_equal(integ_step(it, h, &x, &y), INTEG_OK);
		double q = y.r[0], v = y.v[0];
		dev = fmax(dev, fabs(v * v + W * W * q * q - h * W * W * q * v - H0));
		struct ra_state t = x;
		x = y;
		y = t;
	}
	*y_end = x.r[0];
	*v_end = x.v[0];
	*Hdev = dev;
	int ns = integ_stats(it, &o, st);
	ra_state_release(&x);
	ra_state_release(&y);
	integ_free(&it);
	ra_free(&s);
	model_free(&m);
	diag_release(&d);
	return ns;
}

/* 1. the invariant of the map, to round-off over 1000 steps */
static void test_invariant(void **st)
{
	(void)st;
	double q, v, dev, stats[INTEG_STATS_MAX];
	run(0.01, 1000, &q, &v, &dev, stats);
	assert_true(dev < 1e-12 * W * W);
	/* and the motion is the oscillation, not a fixed point: y(10) within
	 * the O(h) error of cos(w 10) */
	assert_near(q, cos(W * 10.0), 0.0, 0.2);
}

/* 2. first order in h against the exact cos(w t) */
static void test_order(void **st)
{
	(void)st;
	double q1, q2, v, dev, stats[INTEG_STATS_MAX];
	run(1.0 / 200, 200, &q1, &v, &dev, stats);
	run(1.0 / 400, 400, &q2, &v, &dev, stats);
	double e1 = fabs(q1 - cos(W)), e2 = fabs(q2 - cos(W));
	assert_true(e1 / e2 > 1.8 && e1 / e2 < 2.2);
}

/* 3. the statistics through the key/value interface */
static void test_stats(void **st)
{
	(void)st;
	double q, v, dev, stats[INTEG_STATS_MAX];
	int n = run(0.01, 50, &q, &v, &dev, stats);
	assert_int_equal(n, 4);
	assert_string_equal(euler_row.ops->stat_keys[0].name, "rhs_evaluations");
	assert_true(stats[0] == 51.0);	/* 1 at the start + 1 per step */
	assert_string_equal(euler_row.ops->stat_keys[3].name, "repartitions");
	assert_true(stats[3] == 0.0);	/* the oscillator has no renewals */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_invariant),
		cmocka_unit_test(test_order),
		cmocka_unit_test(test_stats),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
