/* test_rpjac.c - rp's analytic integration Jacobians (form/rp.c rp_jac,
 * seed 001 §3, eqs. 26-35) against central differences of its f.
 *
 * J1 = d f / d y and J2 = d f / d y' from ode_sys.jac, at a state of the
 * run, against differences of ode_sys.rhs itself (the dependent Newton
 * solve converged to round-off, so f is smooth to far below the steps
 * used).  Each column j: central differences D(h) and D(h/2) with
 * h = 1e-4 max(1, |y_j|); their Richardson extrapolation (4 D(h/2) -
 * D(h)) / 3 has truncation error O(h^4), bounded by far by the O(h^2)
 * estimate |D(h) - D(h/2)|; round-off eps |f| / h.  Tolerance: that
 * estimate plus 100 eps max|f| / h plus 1e-9 of the Jacobian's largest
 * entry (the round-off of the analytic sums).  A missing term is of the
 * size of an entry, which the tolerance stays far below.
 *
 * Models: (1) a spatial double pendulum with its second joint driven
 * (rotation driver, harmonic: ROT rows whose nu turns with the bodies),
 * a TSDA from the ground to an offset point of the second bar and one
 * between the first bar and a free body, gravity; (2) decks/hmmwv14.yaml
 * (spherical, distance and translational joints, a translational driver,
 * TSDAs 2e7 N/m and tires on a road with the bump), at t = 0.3 s before
 * the bump, and at a random velocity perturbation.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"
#include "deck/deck.h"
#include "form/ode.h"
#include "form/ra.h"
#include "form/rp.h"
#include "la/kkt.h"
#include "model/options.h"
#include "util/xalloc.h"

static const char pend_deck[] =
	"time: {end: 1}\n"
	"gravity: [0.3, -1, -9.81]\n"
	"bodies:\n"
	"  - {name: b1, mass: 2, inertia: [0.3, 0.5, 0.7], position: [0.5, 0, 0],\n"
	"     angular_velocity: [0, 0.6, 0.8]}\n"
	"  - {name: b2, mass: 1.5, inertia: [0.2, 0.25, 0.4], position: [1.5, 0.1, 0.2],\n"
	"     orientation: {axis: [1, 2, 3], angle: 0.7}}\n"
	"  - {name: free, mass: 1, inertia: [0.1, 0.2, 0.15], position: [0.5, 1, 0.5],\n"
	"     velocity: [0.2, -0.1, 0.4], angular_velocity: [1, -2, 0.5]}\n"
	"joints:\n"
	"  - {name: j1, type: revolute, body1: ground, body2: b1, point: [0, 0, 0], axis: [0, 0.6, 0.8]}\n"
	"  - {name: j2, type: revolute, body1: b1, body2: b2, point: [1, 0, 0], axis: [0.2, 1, 0]}\n"
	"drivers:\n"
	"  - {name: d2, joint: j2, function: {type: harmonic, amplitude: 0.4, omega: 3, phase: 0.2}}\n"
	"forces:\n"
	"  - {name: s1, type: tsda, body1: ground, body2: b2, at1: [1, 1, 1], at2: [1.7, 0.2, 0.1],\n"
	"     stiffness: 400, damping: 20, free_length: 1.1}\n"
	"  - {name: s2, type: tsda, body1: b1, body2: free, at1: [0.8, 0.1, 0], at2: [0.6, 0.9, 0.4],\n"
	"     stiffness: 150, damping: 3, free_length: 0.5}\n";

struct fix {
	struct deck *dk;
	struct model *m;
	struct sim_options o;
	struct ra *s;
	struct kkt *k;
	struct rp *p;
	struct ode_sys *S;
};

static void load(struct fix *f, struct deck *dk)
{
	f->dk = dk;
	testutil_build(f->dk, &f->m, &f->o);
	f->s = ra_new(f->m);
	f->k = kkt_new(f->s->nb, f->s->nc, f->s->bi, f->s->bj, KKT_AUTO);
	kkt_set_rows(f->k, f->s->jo);
	f->p = rp_new(f->s, f->k, 1e-12, 50);
	f->S = rp_ode(f->p);
}

static void teardown(struct fix *f)
{
	rp_free(&f->p);
	kkt_free(&f->k);
	ra_free(&f->s);
	model_free(&f->m);
	deck_free(&f->dk);
}

static void check(struct fix *f, double t, double vpert, const char *label)
{
	struct ode_sys *S = f->S;
	struct ra_state x;
	ra_state_init(f->s, &x);
	ra_state_from_model(f->s, &x, 0.0);
	int nq = rp_ncoords(f->p) + 1;
	double *y = xcalloc((size_t)nq, sizeof(double)), *yd = xcalloc((size_t)nq, sizeof(double));
	double *f0 = xcalloc((size_t)nq, sizeof(double)), *fp = xcalloc((size_t)nq, sizeof(double));
	double *fm = xcalloc((size_t)nq, sizeof(double)), *D1 = xcalloc((size_t)nq, sizeof(double));
	assert_int_equal(S->start(S->ctx, &x, y, yd, f0), ODE_OK);
	int n = S->n;
	assert_true(n > 0);
	testutil_seed(4242);
	for (int i = 0; i < n; i++)
		yd[i] += vpert * testutil_urand();
	assert_non_null(S->jac);
	/* jac needs f at the point first */
	double *J1 = xcalloc((size_t)n * n, sizeof(double)), *J2 = xcalloc((size_t)n * n, sizeof(double));
	assert_int_equal(S->rhs(S->ctx, t, y, yd, f0), ODE_OK);
	assert_int_equal(S->jac(S->ctx, t, y, yd, J1, J2), 0);
	double jmax = 0.0, fmx = 0.0;
	for (int i = 0; i < n * n; i++)
		jmax = fmax(jmax, fmax(fabs(J1[i]), fabs(J2[i])));
	for (int i = 0; i < n; i++)
		fmx = fmax(fmx, fabs(f0[i]));
	char what[200];
	double worst = 0.0;
	for (int pass = 0; pass < 2; pass++) {
		double *v = pass ? yd : y, *J = pass ? J2 : J1;
		for (int j = 0; j < n; j++) {
			double v0 = v[j], h = 1e-4 * fmax(1.0, fabs(v0));
			for (int half = 0; half < 2; half++) {
				double hh = half ? 0.5 * h : h;
				v[j] = v0 + hh;
				assert_int_equal(S->rhs(S->ctx, t, y, yd, fp), ODE_OK);
				v[j] = v0 - hh;
				assert_int_equal(S->rhs(S->ctx, t, y, yd, fm), ODE_OK);
				v[j] = v0;
				for (int i = 0; i < n; i++) {
					double d = (fp[i] - fm[i]) / (2.0 * hh);
					if (!half) {
						D1[i] = d;
						continue;
					}
					double ext = (4.0 * d - D1[i]) / 3.0;
					double tol = fabs(d - D1[i]) + 100.0 * DBL_EPSILON * fmx / (0.5 * h) +
						     1e-9 * jmax;
					double a = J[(size_t)j * n + i];
					worst = fmax(worst, fabs(a - ext) / (1e-9 * jmax + fabs(ext)));
					snprintf(what, sizeof what, "%s: J%d[%d][%d] vs differences of f",
						 label, pass + 1, i, j);
					testutil_near(a, ext, 0.0, tol, what, __FILE__, __LINE__);
				}
			}
		}
	}
	print_message("%s: n = %d, largest entry %.3g, worst relative difference %.2g\n", label,
		      n, jmax, worst);
	/* the last f call was elsewhere now: jac says so */
	assert_int_equal(S->jac(S->ctx, t, y, yd, J1, J2), 2);
	free(y);
	free(yd);
	free(f0);
	free(fp);
	free(fm);
	free(D1);
	free(J1);
	free(J2);
	ra_state_release(&x);
}

static void test_pendulum(void **state)
{
	(void)state;
	struct fix f;
	struct diag d;
	memset(&f, 0, sizeof f);
	diag_init(&d);
	load(&f, testutil_load_text(pend_deck, &d));
	diag_release(&d);
	check(&f, 0.0, 0.0, "driven pendulum, t = 0");
	check(&f, 0.37, 1.0, "driven pendulum, t = 0.37, velocities perturbed");
	teardown(&f);
}

static void test_vehicle(void **state)
{
	(void)state;
	struct fix f;
	struct diag d;
	memset(&f, 0, sizeof f);
	diag_init(&d);
	load(&f, deck_load("decks/hmmwv14.yaml", &d));
	diag_release(&d);
	check(&f, 0.3, 0.0, "hmmwv14, t = 0.3");
	check(&f, 0.3, 0.05, "hmmwv14, t = 0.3, velocities perturbed");
	teardown(&f);
}

/* An element without an analytic Jacobian (a TSDA whose force is an
 * expression of the state, which ra_force_lin does not differentiate): no
 * jac, rn4 and w2 take differences. */
static void test_fallback(void **state)
{
	(void)state;
	static const char txt[] =
		"time: {end: 1}\n"
		"bodies:\n"
		"  - {name: b1, mass: 2, inertia: [0.3, 0.5, 0.7], position: [0.5, 0, 0]}\n"
		"joints:\n"
		"  - {name: j1, type: revolute, body1: ground, body2: b1, point: [0, 0, 0], axis: [0, 0, 1]}\n"
		"forces:\n"
		"  - {name: s1, type: tsda, body1: ground, body2: b1, at1: [0, 1, 0], at2: [0.5, 0, 0],\n"
		"     expression: 10*deflection}\n";
	struct fix f;
	struct diag d;
	memset(&f, 0, sizeof f);
	diag_init(&d);
	load(&f, testutil_load_text(txt, &d));
	diag_release(&d);
	assert_null(f.S->jac);
	teardown(&f);
}

/* A jac that fails (an element without a Jacobian at the state: a TSDA
 * of zero length, its direction undefined) leaves nothing behind: at the
 * next state the Jacobians are those of a formulation that never failed,
 * bit for bit (the same operations).  The TSDA s0 runs from a ground
 * point to the centroid of the free body, which starts there (points are
 * global in the deck; l = 0 exactly, as the free body's position
 * coordinates are independent and its orientation the identity); s1
 * couples b1 and the free body, so that the elements' pairs of bodies
 * differ from the joint's. */
static void test_after_failure(void **state)
{
	(void)state;
	static const char txt[] =
		"time: {end: 1}\n"
		"gravity: [0, 0, -9.81]\n"
		"bodies:\n"
		"  - {name: b1, mass: 2, inertia: [0.3, 0.5, 0.7], position: [0.5, 0, 0],\n"
		"     angular_velocity: [0, 0, 0.8]}\n"
		"  - {name: free, mass: 1, inertia: [0.1, 0.2, 0.15], position: [0.5, 1, 0.5],\n"
		"     velocity: [0.2, -0.1, 0.4], angular_velocity: [1, -2, 0.5]}\n"
		"joints:\n"
		"  - {name: j1, type: revolute, body1: ground, body2: b1, point: [0, 0, 0], axis: [0, 0, 1]}\n"
		"forces:\n"
		"  - {name: s0, type: tsda, body1: ground, body2: free, at1: [0.5, 1, 0.5], at2: [0.5, 1, 0.5],\n"
		"     stiffness: 100, damping: 2, free_length: 0.3}\n"
		"  - {name: s1, type: tsda, body1: b1, body2: free, at1: [0.8, 0.1, 0], at2: [0.6, 0.9, 0.4],\n"
		"     stiffness: 150, damping: 3, free_length: 0.5}\n";
	struct fix f[2];
	double *J[2][2];
	int n = 0;
	for (int w = 0; w < 2; w++) {	/* w = 0: fails first; w = 1: fresh */
		struct diag d;
		memset(&f[w], 0, sizeof f[w]);
		diag_init(&d);
		load(&f[w], testutil_load_text(txt, &d));
		diag_release(&d);
		struct ode_sys *S = f[w].S;
		assert_non_null(S->jac);
		struct ra_state x;
		ra_state_init(f[w].s, &x);
		ra_state_from_model(f[w].s, &x, 0.0);
		int nq = rp_ncoords(f[w].p) + 1;
		double *y = xcalloc((size_t)nq, sizeof(double)), *yd = xcalloc((size_t)nq, sizeof(double));
		double *ydd = xcalloc((size_t)nq, sizeof(double));
		assert_int_equal(S->start(S->ctx, &x, y, yd, ydd), ODE_OK);
		n = S->n;
		for (int k = 0; k < 2; k++)
			J[w][k] = xcalloc((size_t)n * n, sizeof(double));
		if (w == 0) {
			assert_int_equal(S->rhs(S->ctx, 0.0, y, yd, ydd), ODE_OK);
			assert_int_equal(S->jac(S->ctx, 0.0, y, yd, J[0][0], J[0][1]), 1);
		}
		testutil_seed(515);	/* arbitrary: every coordinate moved */
		for (int i = 0; i < n; i++)
			y[i] += 0.05 * testutil_urand();
		assert_int_equal(S->rhs(S->ctx, 0.1, y, yd, ydd), ODE_OK);
		assert_int_equal(S->jac(S->ctx, 0.1, y, yd, J[w][0], J[w][1]), 0);
		free(y);
		free(yd);
		free(ydd);
		ra_state_release(&x);
	}
	assert_memory_equal(J[0][0], J[1][0], (size_t)n * n * sizeof(double));
	assert_memory_equal(J[0][1], J[1][1], (size_t)n * n * sizeof(double));
	for (int w = 0; w < 2; w++) {
		free(J[w][0]);
		free(J[w][1]);
		teardown(&f[w]);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pendulum),
		cmocka_unit_test(test_vehicle),
		cmocka_unit_test(test_fallback),
		cmocka_unit_test(test_after_failure),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
