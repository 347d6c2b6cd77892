/* test_tree.c - the recursive joint-coordinate formulation (form/tree.c,
 * seed 003 §3) against the absolute coordinates of ra.
 *
 * The model: a tree rooted at the ground with every joint type the
 * formulation takes, two of them pointing from child to parent (body1 the
 * child), a free body, a spring between two branches, gravity, bodies of
 * unequal principal inertias.  At random joint coordinates and rates
 * (seeded, the same every run):
 *
 * 1. The body state of f satisfies the model's constraint rows at
 *    positions (|Phi| <= 1e-12) and velocities (|Phi_q v - nu| <= 1e-11).
 * 2. Its velocities are the time derivatives of its positions along q +
 *    tau q-dot, and its accelerations those of its velocities along the
 *    motion with q-ddot = f (central differences, tau = 1e-6: agreement
 *    1e-7 and 1e-6, the round-off of differences of values near 10 over
 *    2e-6).
 * 3. The articulated-body accelerations equal ra's index-1 solve
 *    (ra_accel: M a + Phi_q^T lam = f, Phi_q a = gamma) at that body
 *    state to 5e-14 relative, and the multipliers tree gives the joint rows
 *    (from the transmitted wrenches) equal ra's to 3e-14 relative (ten
 *    times the round-off measured, at most 4.9e-15 and 3.3e-15).
 * 4. start() from a body state gives back that body state (the
 *    projection is exact on a consistent state; its charts are reset).
 * 5. tree_check: a closed loop names the joint that closes it, a distance
 *    joint and a second driver of a driven coordinate are refused, with
 *    their positions.
 * 1-4 run also on the model without its spring: gravity the only applied
 * force, which the recursion makes itself (tree_rec.c, gravity_only)
 * instead of taking ra_forces' wrenches, so that path has its own check
 * against ra_accel.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"
#include "deck/deck.h"
#include "form/ra.h"
#include "form/tree.h"
#include "form/tree_impl.h"
#include "la/kkt.h"
#include "model/options.h"
#include "util/vec.h"
#include "util/xalloc.h"

#define TREE_BODIES_JOINTS \
	"time: {end: 1}\n" \
	"gravity: [0.3, -1, -9.81]\n" \
	"bodies:\n" \
	"  - {name: b1, mass: 2, inertia: [0.3, 0.5, 0.7], position: [0.5, 0, 0]}\n" \
	"  - {name: b2, mass: 1.5, inertia: [0.2, 0.25, 0.4], position: [1.2, 0.3, 0.1],\n" \
	"     orientation: {axis: [1, 2, 3], angle: 0.7}}\n" \
	"  - {name: b3, mass: 1, inertia: [0.1, 0.2, 0.15], position: [1.5, 1, 0.2],\n" \
	"     orientation: {axis: [0, 1, 0], angle: 0.4}}\n" \
	"  - {name: b4, mass: 0.8, inertia: [0.05, 0.09, 0.07], position: [2, 1.2, -0.3]}\n" \
	"  - {name: b5, mass: 1.2, inertia: [0.2, 0.1, 0.3], position: [1.4, 1.8, 0.6],\n" \
	"     orientation: {axis: [1, 0, 1], angle: -0.5}}\n" \
	"  - {name: b6, mass: 0.5, inertia: [0.02, 0.03, 0.04], position: [2.4, 1.5, -0.5]}\n" \
	"  - {name: b7, mass: 3, inertia: [0.6, 0.4, 0.5], position: [-1, 1, 1],\n" \
	"     velocity: [0.2, -0.1, 0.4], angular_velocity: [1, -2, 0.5]}\n" \
	"joints:\n" \
	"  - {name: j1, type: revolute, body1: ground, body2: b1, point: [0, 0, 0], axis: [0, 0.6, 0.8]}\n" \
	"  - {name: j2, type: universal, body1: b2, body2: b1, point: [1, 0.1, 0], axis: [0, 1, 0],\n" \
	"     cross_axis: [1, 0, 0]}\n" \
	"  - {name: j3, type: spherical, body1: b2, body2: b3, point: [1.4, 0.6, 0.2]}\n" \
	"  - {name: j4, type: cylindrical, body1: b3, body2: b4, point: [1.8, 1.1, -0.1], axis: [1, 0.2, -0.3]}\n" \
	"  - {name: j5, type: translational, body1: b5, body2: b3, point: [1.5, 1.5, 0.4], axis: [0.2, 1, 0.5]}\n" \
	"  - {name: j6, type: fixed, body1: b4, body2: b6, point: [2.2, 1.3, -0.4], axis: [0, 0, 1]}\n"

static const char tree_deck[] = TREE_BODIES_JOINTS
	"forces:\n"
	"  - {name: s1, type: tsda, body1: b7, body2: b5, point1: [-1, 1, 1], point2: [1.4, 1.8, 0.6],\n"
	"     stiffness: 40, damping: 2, free_length: 1.5}\n";
/* no force but gravity (b7 falls freely) */
static const char gravity_deck[] = TREE_BODIES_JOINTS;

struct fix {
	struct model *m;
	struct deck *dk;
	struct sim_options o;
	struct ra *s;
	struct tree *T;
	struct ode_sys *S;
	int n;
};

static void load(struct fix *f, const char *text)
{
	struct diag d;
	diag_init(&d);
	f->dk = testutil_load_text(text, &d);
	diag_release(&d);
	testutil_build(f->dk, &f->m, &f->o);
	f->s = ra_new(f->m);
}

static void setup_tree(struct fix *f, const char *text)
{
	struct diag d;
	diag_init(&d);
	load(f, text);
	f->T = tree_new(f->s, &d);
	assert_non_null(f->T);
	assert_int_equal(d.nerr, 0);
	diag_release(&d);
	f->S = tree_ode(f->T);
	f->n = tree_ncoords(f->T);
	/* 1 + 2 + 3 + 2 + 1 + 0 + 6 (the free body) */
	assert_int_equal(f->n, 15);
}

static void teardown(struct fix *f)
{
	tree_free(&f->T);
	ra_free(&f->s);
	model_free(&f->m);
	deck_free(&f->dk);
}

/* The charts from the model's initial state, then random coordinates
 * about them and random rates. */
static void random_state(struct fix *f, double *y, double *yd, double *ydd)
{
	struct ra_state x;
	ra_state_init(f->s, &x);
	ra_state_from_model(f->s, &x, 0.0);
	/* the free body's rates stay; every joint starts at rest */
	assert_int_equal(f->S->start(f->S->ctx, &x, y, yd, ydd), ODE_OK);
	for (int i = 0; i < f->n; i++) {
		y[i] += 0.6 * testutil_urand();
		yd[i] = 2.0 * testutil_urand();
	}
	ra_state_release(&x);
}

/* 1-4 on the model of TEXT; GRAVITY_ONLY: whether tree makes gravity
 * itself (no other force) */
static void check_accelerations(const char *text, int gravity_only)
{
	struct fix f;
	memset(&f, 0, sizeof f);
	setup_tree(&f, text);
	assert_int_equal(f.T->gravity_only, gravity_only);
	struct ra *s = f.s;
	int nb = s->nb, nc = s->nc, n = f.n;
	double *y = xcalloc((size_t)n, sizeof(double)), *yd = xcalloc((size_t)n, sizeof(double));
	double *ydd = xcalloc((size_t)n, sizeof(double));
	struct ra_state x, xr;
	ra_state_init(s, &x);
	ra_state_init(s, &xr);
	struct kkt *k = kkt_new(nb, nc, s->bi, s->bj, KKT_AUTO);
	kkt_set_rows(k, s->jo);
	double *W = xcalloc(18 * (size_t)nb, sizeof(double)), *F = xcalloc(6 * (size_t)nb, sizeof(double));
	double *g = xcalloc(6 * (size_t)nb, sizeof(double));
	testutil_seed(12345);
	for (int trial = 0; trial < 20; trial++) {
		random_state(&f, y, yd, ydd);
		double t = 0.1 * trial;
		assert_int_equal(f.S->rhs(f.S->ctx, t, y, yd, ydd), ODE_OK);
		x.t = t;
		f.S->bodies(f.S->ctx, &x);
		/* 1: constraints at positions and velocities */
		ra_eval(s, &x, t, PRIM_PHI | PRIM_JAC | PRIM_NU);
		double *jv = xcalloc((size_t)nc + 1, sizeof(double)), *gv = xcalloc(6 * (size_t)nb, sizeof(double));
		for (int b = 0; b < nb; b++) {
			v3_copy(gv + 6 * b, x.v + 3 * b);
			v3_copy(gv + 6 * b + 3, x.w + 3 * b);
		}
		ra_jac_mul(s, gv, jv);
		for (int r = 0; r < nc; r++) {
			assert_near(s->phi[r], 0.0, 0.0, 1e-12);
			assert_near(jv[r], s->nu[r], 0.0, 1e-11);
		}
		free(jv);
		free(gv);
		/* 2: velocities = d/dtau of positions along y + tau yd */
		const double tau = 1e-6;
		double *yp = xcalloc((size_t)n, sizeof(double)), *yq = xcalloc((size_t)n, sizeof(double));
		struct ra_state xp, xm;
		ra_state_init(s, &xp);
		ra_state_init(s, &xm);
		for (int i = 0; i < n; i++) {
			yp[i] = y[i] + tau * yd[i];
			yq[i] = y[i] - tau * yd[i];
		}
		assert_int_equal(f.S->rhs(f.S->ctx, t, yp, yd, ydd), ODE_OK);
		f.S->bodies(f.S->ctx, &xp);
		assert_int_equal(f.S->rhs(f.S->ctx, t, yq, yd, ydd), ODE_OK);
		f.S->bodies(f.S->ctx, &xm);
		for (int b = 0; b < nb; b++) {
			double om[3], dA[9], Wm[9];
			for (int c = 0; c < 3; c++)
				assert_near((xp.r[3 * b + c] - xm.r[3 * b + c]) / (2 * tau), x.v[3 * b + c],
					    1e-7, 1e-7);
			/* A^T A-dot = w~ */
			for (int e = 0; e < 9; e++)
				dA[e] = (xp.A[9 * b + e] - xm.A[9 * b + e]) / (2 * tau);
			m3_tmul(Wm, x.A + 9 * b, dA);
			v3_set(om, Wm[7], Wm[2], Wm[3]);
			for (int c = 0; c < 3; c++)
				assert_near(om[c], x.w[3 * b + c], 1e-7, 1e-7);
		}
		/* 2b: accelerations = d/dtau of velocities along the motion of
		 * q-ddot = f: checks f itself, not only the body accelerations
		 * (an error of the bias in the span of S would move q-ddot and
		 * leave the body accelerations as they are) */
		assert_int_equal(f.S->rhs(f.S->ctx, t, y, yd, ydd), ODE_OK);
		double *ydp = xcalloc((size_t)n, sizeof(double)), *ydq = xcalloc((size_t)n, sizeof(double));
		double *f2 = xcalloc((size_t)n, sizeof(double));
		for (int i = 0; i < n; i++) {
			yp[i] = y[i] + tau * yd[i] + 0.5 * tau * tau * ydd[i];
			yq[i] = y[i] - tau * yd[i] + 0.5 * tau * tau * ydd[i];
			ydp[i] = yd[i] + tau * ydd[i];
			ydq[i] = yd[i] - tau * ydd[i];
		}
		assert_int_equal(f.S->rhs(f.S->ctx, t, yp, ydp, f2), ODE_OK);
		f.S->bodies(f.S->ctx, &xp);
		assert_int_equal(f.S->rhs(f.S->ctx, t, yq, ydq, f2), ODE_OK);
		f.S->bodies(f.S->ctx, &xm);
		assert_int_equal(f.S->rhs(f.S->ctx, t, y, yd, ydd), ODE_OK);
		f.S->bodies(f.S->ctx, &x);
		for (int i = 0; i < 3 * nb; i++) {
			assert_near((xp.v[i] - xm.v[i]) / (2 * tau), x.a[i], 1e-6, 1e-6);
			assert_near((xp.w[i] - xm.w[i]) / (2 * tau), x.wd[i], 1e-6, 1e-6);
		}
		free(ydp);
		free(ydq);
		free(f2);
		ra_state_release(&xp);
		ra_state_release(&xm);
		free(yp);
		free(yq);
		/* 3: accelerations and multipliers against ra's index-1 solve */
		assert_int_equal(f.S->rhs(f.S->ctx, t, y, yd, ydd), ODE_OK);
		f.S->bodies(f.S->ctx, &x);
		ra_state_copy(s, &xr, &x);
		assert_int_equal(ra_accel(s, k, W, F, g, &xr), 0);
		double amax = 1.0, lmax = 1.0;
		for (int i = 0; i < 3 * nb; i++)
			amax = fmax(amax, fmax(fabs(xr.a[i]), fabs(xr.wd[i])));
		for (int r = 0; r < nc; r++)
			lmax = fmax(lmax, fabs(xr.lam[r]));
		/* measured over the 20 states: 2.5e-15 (accelerations) and
		 * 3.3e-15 (multipliers) relative with the spring, 4.9e-15 and
		 * 2.5e-15 gravity only; bounds ten times the larger */
		for (int i = 0; i < 3 * nb; i++) {
			assert_near(x.a[i], xr.a[i], 0.0, 5e-14 * amax);
			assert_near(x.wd[i], xr.wd[i], 0.0, 5e-14 * amax);
		}
		for (int r = 0; r < nc; r++)
			assert_near(x.lam[r], xr.lam[r], 0.0, 3e-14 * lmax);
		/* 4: start from this body state gives it back */
		double *y2 = xcalloc((size_t)n, sizeof(double)), *yd2 = xcalloc((size_t)n, sizeof(double));
		double *ydd2 = xcalloc((size_t)n, sizeof(double));
		struct ra_state x2;
		ra_state_init(s, &x2);
		assert_int_equal(f.S->start(f.S->ctx, &x, y2, yd2, ydd2), ODE_OK);
		x2.t = t;
		f.S->bodies(f.S->ctx, &x2);
		for (int i = 0; i < 3 * nb; i++) {
			assert_near(x2.r[i], x.r[i], 0.0, 1e-12);
			assert_near(x2.v[i], x.v[i], 0.0, 1e-11);
			assert_near(x2.w[i], x.w[i], 0.0, 1e-11);
			assert_near(x2.a[i], x.a[i], 0.0, 1e-9 * amax);
		}
		for (int i = 0; i < 9 * nb; i++)
			assert_near(x2.A[i], x.A[i], 0.0, 1e-12);
		ra_state_release(&x2);
		free(y2);
		free(yd2);
		free(ydd2);
	}
	free(W);
	free(F);
	free(g);
	kkt_free(&k);
	ra_state_release(&x);
	ra_state_release(&xr);
	free(y);
	free(yd);
	free(ydd);
	teardown(&f);
}

static void test_accelerations(void **state)
{
	(void)state;
	check_accelerations(tree_deck, 0);
}

static void test_accelerations_gravity(void **state)
{
	(void)state;
	check_accelerations(gravity_deck, 1);
}

/* A chart past TREE_CHART_MAX is re-based by accept() without moving
 * the bodies. */
static void test_rebase(void **state)
{
	(void)state;
	struct fix f;
	memset(&f, 0, sizeof f);
	setup_tree(&f, tree_deck);
	int n = f.n;
	double *y = xcalloc((size_t)n, sizeof(double)), *yd = xcalloc((size_t)n, sizeof(double));
	double *ydd = xcalloc((size_t)n, sizeof(double));
	testutil_seed(7);
	random_state(&f, y, yd, ydd);
	int q0, nq, parent, joint;
	tree_node(f.T, 2, &q0, &nq, &parent, &joint);	/* b3: the spherical joint j3 */
	assert_int_equal(nq, 3);
	assert_int_equal(parent, 1);
	v3_set(y + q0, 0.9, -0.6, 0.5);		/* |phi| = 1.19 */
	assert_int_equal(f.S->rhs(f.S->ctx, 0.0, y, yd, ydd), ODE_OK);
	assert_true(f.S->want_new(f.S->ctx));
	struct ra_state x, x2;
	ra_state_init(f.s, &x);
	ra_state_init(f.s, &x2);
	f.S->bodies(f.S->ctx, &x);
	assert_int_equal(f.S->accept(f.S->ctx, 0.0, y, yd), 1);
	assert_near(v3_norm(y + q0), 0.0, 0.0, 0.0);
	assert_int_equal(f.S->rhs(f.S->ctx, 0.0, y, yd, ydd), ODE_OK);
	assert_false(f.S->want_new(f.S->ctx));
	f.S->bodies(f.S->ctx, &x2);
	for (int i = 0; i < 3 * f.s->nb; i++) {
		assert_near(x2.r[i], x.r[i], 0.0, 1e-13);
		assert_near(x2.v[i], x.v[i], 0.0, 1e-12);
		assert_near(x2.w[i], x.w[i], 0.0, 1e-12);
		assert_near(x2.a[i], x.a[i], 1e-10, 1e-10);
	}
	assert_int_equal(tree_rebases(f.T), 1);
	ra_state_release(&x);
	ra_state_release(&x2);
	free(y);
	free(yd);
	free(ydd);
	teardown(&f);
}

/* 5 */
static void test_check(void **state)
{
	(void)state;
	static const char loop_deck[] =
		"time: {end: 1}\n"
		"bodies:\n"
		"  - {name: a, mass: 1, inertia: [1, 1, 1], position: [1, 0, 0]}\n"
		"  - {name: b, mass: 1, inertia: [1, 1, 1], position: [2, 0, 0]}\n"
		"  - {name: c, mass: 1, inertia: [1, 1, 1], position: [3, 0, 0]}\n"
		"joints:\n"
		"  - {name: p1, type: revolute, body1: ground, body2: a, point: [0, 0, 0], axis: [0, 0, 1]}\n"
		"  - {name: p2, type: spherical, body1: a, body2: b, point: [1.5, 0, 0]}\n"
		"  - {name: p3, type: revolute, body1: b, body2: ground, point: [2, 1, 0], axis: [0, 0, 1]}\n"
		"  - {name: rope, type: distance, body1: b, body2: c, at1: [2, 0, 0], at2: [3, 0, 0]}\n"
		"drivers:\n"
		"  - {name: turn, joint: p1, function: {type: rate, rate: 1}}\n"
		"  - {name: turn2, joint: p1, function: {type: rate, rate: 2}}\n";
	struct fix f;
	memset(&f, 0, sizeof f);
	load(&f, loop_deck);
	struct diag d;
	diag_init(&d);
	assert_null(tree_new(f.s, &d));
	assert_int_equal(d.nerr, 3);
	const char *want[] = { ":9:5: error: joint 'p3' closes a loop",
			       ":10:5: error: joint 'rope' is distance",
			       ":13:5: error: driver 'turn2' drives the coordinate of joint 'p1' "
			       "that driver 'turn' drives already" };
	for (int i = 0; i < 3; i++) {
		char *msg = diag_format(&d, i);
		const char *at = strchr(msg, ':');
		assert_non_null(at);
		if (strncmp(at, want[i], strlen(want[i])) != 0)
			fail_msg("record %d: '%s', want '%s...'", i, msg, want[i]);
		free(msg);
	}
	diag_release(&d);
	teardown(&f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_accelerations),
		cmocka_unit_test(test_accelerations_gravity),
		cmocka_unit_test(test_rebase),
		cmocka_unit_test(test_check),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
