/* test_force.c - force elements of form/ra_force*.c against closed forms.
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
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"
#include "deck/deck.h"
#include "model/options.h"
#include "elem/elem.h"
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

/* The model of deck text (the deck in *dk, to free after the model). */
static struct model *model_of(const char *text, struct deck **dk)
{
	struct diag d;
	diag_init(&d);
	*dk = testutil_load_text(text, &d);
	diag_release(&d);
	struct model *m = NULL;
	struct sim_options o;
	testutil_build(*dk, &m, &o);
	return m;
}

/* A body of the given mass and isotropic inertia j at the origin, unturned. */
static struct body *add_body(struct model *m, const char *name, double mass, double j)
{
	struct body *b = model_add_body(m, name);
	b->mass = mass;
	b->J[0] = b->J[4] = b->J[8] = j;
	m3_identity(b->A0);
	return b;
}

/* A body hanging from ground on a tsda attached at its centroid, given by
 * stiffness and damping (expr = 0) or by the same law as an expression. */
static struct model *hanging(int expr)
{
	struct model *m = model_new();
	add_body(m, "mass", 2.0, 0.1);
	struct force *f = model_add_force(m, "spring", FORCE_TSDA);
	f->body[0] = MODEL_GROUND;
	f->body[1] = 0;
	v3_set(f->s[0], 0.3, -0.2, 1.5);
	struct tsda_par *par = elem_par(f);
	par->l0 = 1.0;
	if (!expr) {
		par->k = 300.0;
		par->c = 7.0;
	}
	testutil_finalize(m);
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
	add_body(m, "wheel", 1.0, 0.2);
	struct joint *j = model_add_joint(m, "axle", JOINT_REVOLUTE);
	j->body[0] = MODEL_GROUND;
	j->body[1] = 0;
	double p[3] = { 0, 0, 0 }, z[3] = { 0, 0, 1 };
	model_joint_global(m, j, p, z, NULL);
	if (rsda) {
		struct force *f = model_add_force(m, "spring", FORCE_RSDA);
		struct rsda_par *par = elem_par(f);
		f->joint = 0;
		f->body[0] = MODEL_GROUND;
		f->body[1] = 0;
		par->k = 40.0;
		par->c = 0.5;
	}
	testutil_finalize(m);
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

/* A motor's angle is continuous from the last commit (ra_force_commit),
 * not from the last evaluation: a P motor (kp 10, target 0) on a wheel
 * committed at 0 rad, evaluated at a trial state 4 rad away (more than pi:
 * a rejected step) and then at 1 rad, gives -kp * 1 = -10 N m there.  An
 * unwrapping from the last evaluation read 1 rad as 1 - 2 pi (the trial
 * at 4 rad, wrapped to 4 - 2 pi, had moved its reference): +52.8 N m. */
static void test_motor_trial_leaves_no_trace(void **state)
{
	(void)state;
	const char *text =
		"time: {end: 1}\n"
		"gravity: [0, 0, 0]\n"
		"bodies:\n"
		"  - {name: wheel, mass: 1, inertia: [0.2, 0.2, 0.2]}\n"
		"joints:\n"
		"  - {name: axle, type: revolute, body1: ground, body2: wheel, point: [0, 0, 0], "
		"axis: [0, 0, 1]}\n"
		"forces:\n"
		"  - {name: servo, type: motor, joint: axle, control: p, kp: 10, "
		"target: {type: constant, value: 0}}\n";
	struct deck *dk;
	struct model *m = model_of(text, &dk);
	struct ra *s = ra_new(m);
	struct ra_state x;
	ra_state_init(s, &x);
	ra_state_from_model(s, &x, 0.0);
	ra_force_commit(s, &x);
	double th[3] = { 0, 0, 4.0 };
	struct ra_fout out;
	so3_exp(x.A, th);
	ra_force_out(s, &x, 0.0, 0, &out);	/* the trial */
	th[2] = 1.0;
	so3_exp(x.A, th);
	ra_force_out(s, &x, 0.0, 0, &out);
	assert_near(out.effort, -10.0, 1e-12, 0);
	ra_state_release(&x);
	ra_free(&s);
	model_free(&m);
	deck_free(&dk);
}

/* Expressions shared by text (sx_cache): the copies of a repeat block
 * whose text does not name the index share one parser, those that name
 * it (a different constant each) do not, and each evaluates with its own
 * constants. */
static void test_sexpr_cache(void **state)
{
	(void)state;
	struct model *m = model_new();
	static const char *const names[] = { "k", "ki", "i" };
	double v1[] = { 300.0, 5.0, 1.0 }, v2[] = { 300.0, 5.0, 2.0 };
	struct sx_cache *c = sx_cache_new();
	struct sx_scope s1 = { .m = m, .pnames = names, .pvals = v1, .np = 3, .self = 1,
			       .cache = c };
	struct sx_scope s2 = s1;
	s2.pvals = v2;
	struct sx_err err;
	struct sexpr *a1, *a2, *b1, *b2, *d1, *bad = NULL;
	assert_int_equal(sexpr_compile("ki*k*deflection", &s1, &a1, &err), 0);
	assert_int_equal(sexpr_compile("ki*k*deflection", &s2, &a2, &err), 0);
	assert_ptr_equal(a1, a2);	/* i not named ("ki" is another token) */
	assert_int_equal(a1->refs, 3);	/* two holders and the cache */
	assert_int_equal(sexpr_compile("k*i*deflection", &s1, &b1, &err), 0);
	assert_int_equal(sexpr_compile("k*i*deflection", &s2, &b2, &err), 0);
	assert_ptr_not_equal(b1, b2);	/* i named: 1 and 2 */
	b1->v[0].val = b2->v[0].val = 0.5;	/* deflection, the only variable */
	assert_true(sexpr_value(b1) == 150.0 && sexpr_value(b2) == 300.0);
	s1.self = 0;
	assert_int_equal(sexpr_compile("k*t", &s1, &d1, &err), 0);
	assert_int_equal(d1->refs, 2);
	/* a failure is not kept: the same text fails again, with its message */
	assert_int_equal(sexpr_compile("2*q.nope", &s1, &bad, &err), -1);
	assert_int_equal(sexpr_compile("2*q.nope", &s1, &bad, &err), -1);
	assert_non_null(strstr(err.msg, "unknown joint 'nope'"));
	/* holders and cache released in any order (asan: no leak, no double free) */
	sexpr_free(&a1);
	sx_cache_free(&c);
	assert_int_equal(a2->refs, 1);
	sexpr_free(&a2);
	sexpr_free(&b1);
	sexpr_free(&b2);
	sexpr_free(&d1);
	assert_null(a1);
	model_free(&m);
}

/* A tire on the plane road h = 0.1 + 0.2 x + a y (a = 0.3, a deck
 * parameter), radius 0.5, k = 1000, c = 20, acting at the centroid of a
 * 2 kg body at (0.5, -0.4, z) moving with v = (1.5, -2, 0.25), no
 * gravity.  h = 0.1 + 0.1 - 0.12 = 0.08 there: at z = 0.65, d = h + 0.5
 * - z = -0.07, off the road; at z = 0.55, d = 0.03, and the push is k d + c d',
 * d' = 0.2 vx + 0.3 vy - vz = 0.3 - 0.6 - 0.25 = -0.55: 30 - 11 = 19 N;
 * with vz = 2.25 it would be negative (30 - 51) and is 0.  The blocks of
 * the push (central differences of a linear function: exact to round-off)
 * are K = -dF/dr, C = -dF/dv on the z row: (-0.2 k, -0.3 k, k) and
 * (-0.2 c, -0.3 c, c), and nothing else. */
static void test_tire(void **state)
{
	(void)state;
	static const char *const names[] = { "a", "x" };
	static const double vals[] = { 0.3, 99.0 };	/* a parameter x is shadowed */
	struct model *m = model_new();
	v3_set(m->gravity, 0, 0, 0);
	add_body(m, "wheel", 2.0, 0.1);
	struct force *f = model_add_force(m, "tyre", FORCE_TIRE);
	struct tire_par *par = elem_par(f);
	f->body[0] = 0;
	f->body[1] = MODEL_GROUND;
	par->radius = 0.5;
	par->k = 1000.0;
	par->c = 20.0;
	struct sx_scope sc = { .m = m, .pnames = names, .pvals = vals, .np = 2, .road = 1 };
	struct sx_err err;
	struct sexpr *bad = NULL;
	assert_int_equal(sexpr_compile("0.1 + 0.2*x + a*y", &sc, &f->ex, &err), 0);
	assert_int_equal(sexpr_compile("0.1*t", &sc, &bad, &err), -1);
	assert_non_null(strstr(err.msg, "unknown name 't'"));
	assert_int_equal(sexpr_compile("z.wheel", &sc, &bad, &err), -1);
	testutil_finalize(m);
	struct ra *s = ra_new(m);
	struct ra_state x;
	ra_state_init(s, &x);
	ra_state_from_model(s, &x, 0.0);
	double F[6], W[18];
	v3_set(x.v, 1.5, -2.0, 0.25);
	v3_set(x.r, 0.5, -0.4, 0.65);
	ra_forces(s, &x, 0.0, NULL, F);
	assert_true(F[0] == 0.0 && F[1] == 0.0 && F[2] == 0.0);	/* off the road */
	x.r[2] = 0.55;
	ra_forces(s, &x, 0.0, NULL, F);
	assert_near(F[2], 19.0, 1e-12, 0);
	assert_true(F[0] == 0.0 && F[1] == 0.0 && F[3] == 0.0 && F[4] == 0.0 && F[5] == 0.0);
	struct ra_fout o;
	ra_force_out(s, &x, 0.0, 0, &o);
	assert_near(o.deflection, 0.03, 1e-12, 0);
	assert_near(o.rate, -0.55, 1e-9, 0);
	assert_near(o.energy, 0.5 * 1000 * 0.03 * 0.03, 1e-12, 0);
	assert_near(o.power, 19.0 * 0.25, 1e-12, 0);
	for (int pass = 0; pass < 2; pass++) {
		memset(W, 0, sizeof W);
		ra_force_blocks(s, &x, 0.0, pass == 0, pass == 1, W);
		double g = pass == 0 ? 1000.0 : 20.0;
		for (int q = 0; q < 18; q++) {
			double want = q == 6 ? -0.2 * g : q == 7 ? -0.3 * g : q == 8 ? g : 0.0;
			assert_near(W[q], want, 1e-7, 1e-7 * g);
		}
	}
	x.v[2] = 2.25;	/* leaving faster than the spring extends: no pull */
	ra_forces(s, &x, 0.0, NULL, F);
	assert_true(F[2] == 0.0);
	ra_state_release(&x);
	ra_free(&s);
	model_free(&m);
}

/* ---- ra_force_lin: full Jacobians of the TSDA and the tire against
 * central differences of ra_forces (seed 001 §3: Q_q and Q_qdot) ----
 * Two bodies in random poses with random velocities (|v|, |w| <= sqrt 3),
 * a TSDA between offset points (k = 1000, c = 30, l0 = 0.4, arbitrary),
 * then the same to ground; a tire on the wavy road
 * h = 0.05 sin(2 x) + 0.03 cos(3 y) under an offset wheel centre, in
 * contact.  Each column: r, theta (A <- A exp(theta~)), v or w of one
 * body moved by +-h, h = 1e-5.  Truncation h^2/6 |F'''|: |F'''| <= ~k |s|^3
 * ~ 1e4 gives 2e-7; round-off eps |F| / h ~ 1e-16 x 1e3 / 1e-5 = 1e-8;
 * the tire's road slope is itself a central difference (step 6e-6, error
 * ~ 1e-11 |h'''|) and its curvature a second difference (step 1.2e-4:
 * truncation |h''''| step^2 / 12 ~ 1e-8 x 81 x 0.05, round-off
 * 4 eps |h| / step^2 ~ 1e-9), each times k = 1000: ~ 1e-6.  Tolerance
 * 1e-5 x (1 + |entry|); a missing coupling or sign is O(c) = 30 or more. */
/* kmin: the largest |K| entry must exceed it (0: K may vanish, as for a
 * torque given in the body frame) */
static void lin_check(struct model *m, const char *label, int nb, double kmin)
{
	struct ra *s = ra_new(m);
	struct ra_state x;
	ra_state_init(s, &x);
	ra_state_from_model(s, &x, 0.0);
	testutil_seed(77);
	for (int b = 0; b < nb; b++) {
		double th[3];
		for (int c = 0; c < 3; c++) {
			x.r[3 * b + c] += 0.3 * testutil_urand();
			x.v[3 * b + c] = testutil_urand();
			x.w[3 * b + c] = testutil_urand();
			th[c] = testutil_urand();
		}
		so3_exp(x.A + 9 * b, th);
	}
	if (m->forces[0].type == FORCE_TIRE)	/* into contact: the centre below R */
		x.r[2] = 0.2;
	double K[144], C[144], Fp[12], Fm[12];
	int bb[2];
	assert_int_equal(ra_force_lin(s, &x, 0.0, 0, bb, K, C), 0);
	double kmax = 0.0;
	for (int q = 0; q < 144; q++)
		kmax = fmax(kmax, fabs(K[q]));
	assert_true(kmax > kmin || kmin == 0.0);
	const double h = 1e-5;
	char what[200];
	for (int e = 0; e < 2; e++) {
		int b = bb[e];
		if (b < 0)
			continue;
		for (int kind = 0; kind < 4; kind++)
			for (int c = 0; c < 3; c++) {
				double *Fs[2] = { Fp, Fm }, A0[9];
				memcpy(A0, x.A + 9 * b, sizeof A0);
				for (int sg = 0; sg < 2; sg++) {
					double d = sg ? -h : h;
					double *v = kind == 0 ? x.r : kind == 2 ? x.v : kind == 3 ? x.w : NULL;
					if (v)
						v[3 * b + c] += d;
					else {
						double th[3] = { 0, 0, 0 }, R[9];
						th[c] = d;
						so3_exp(R, th);
						m3_mul(x.A + 9 * b, A0, R);
					}
					double F[12];
					ra_forces(s, &x, 0.0, NULL, F);
					for (int q = 0; q < 12; q++) {
						int be = bb[q / 6];
						Fs[sg][q] = be >= 0 ? F[6 * be + q % 6] : 0.0;
					}
					if (v)
						v[3 * b + c] -= d;
					else
						memcpy(x.A + 9 * b, A0, sizeof A0);
				}
				const double *M = kind < 2 ? K : C;
				int col = 6 * e + 3 * (kind % 2) + c;
				for (int q = 0; q < 12; q++) {
					if (bb[q / 6] < 0)
						continue;
					double fd = (Fp[q] - Fm[q]) / (2.0 * h);
					snprintf(what, sizeof what, "%s: %c[%d][%d] vs FD", label,
						 kind < 2 ? 'K' : 'C', q, col);
					testutil_near(M[12 * q + col], fd, 1e-5, 1e-5, what, __FILE__,
						      __LINE__);
				}
			}
	}
	ra_state_release(&x);
	ra_free(&s);
}

static void test_force_lin(void **state)
{
	(void)state;
	for (int g = 0; g < 2; g++) {
		struct model *m = model_new();
		int nb = g ? 1 : 2;
		for (int b = 0; b < nb; b++) {
			struct body *B = add_body(m, b ? "b1" : "b0", 2.0, 0.1);
			v3_set(B->r0, 0.2 + b, -0.1 * b, 0.1);
		}
		struct force *f = model_add_force(m, "spring", FORCE_TSDA);
		struct tsda_par *par = elem_par(f);
		f->body[0] = g ? MODEL_GROUND : 0;
		f->body[1] = g ? 0 : 1;
		v3_set(f->s[0], 0.3, -0.2, 0.15);
		v3_set(f->s[1], -0.1, 0.25, 0.2);
		par->k = 1000.0;
		par->c = 30.0;
		par->l0 = 0.4;
		testutil_finalize(m);
		lin_check(m, g ? "tsda to ground" : "tsda", nb, 100.0);
		model_free(&m);
	}
	struct model *m = model_new();
	add_body(m, "wheel", 2.0, 0.1);
	struct force *f = model_add_force(m, "tyre", FORCE_TIRE);
	struct tire_par *par = elem_par(f);
	f->body[0] = 0;
	f->body[1] = MODEL_GROUND;
	v3_set(f->s[0], 0.05, 0.1, -0.03);
	par->radius = 0.3;
	par->k = 1000.0;
	par->c = 20.0;
	struct sx_scope sc = { .m = m, .road = 1 };
	struct sx_err err;
	assert_int_equal(sexpr_compile("0.05*sin(2*x) + 0.03*cos(3*y)", &sc, &f->ex, &err), 0);
	testutil_finalize(m);
	lin_check(m, "tire", 1, 100.0);	/* in contact, loaded */
	model_free(&m);
}

/* lin_check of the element in rest (a printf format whose %s is body1:
 * b0, then the ground) between body b0 and a turned body b1. */
static void two_body_lin(const char *rest, const char *label, double kmin)
{
	for (int g = 0; g < 2; g++) {
		char text[1024], fmt[1024], what[80];
		snprintf(fmt, sizeof fmt, "%s%s",
			 "time: {end: 1}\n"
			 "bodies:\n"
			 "  - {name: b0, mass: 2, inertia: [0.3, 0.5, 0.7], position: [0.5, 0, 0]}\n"
			 "  - {name: b1, mass: 1.5, inertia: [0.2, 0.25, 0.4], position: [1.5, 0.1, 0.2],\n"
			 "     orientation: {axis: [1, 2, 3], angle: 0.7}}\n", rest);
		snprintf(text, sizeof text, fmt, g ? "ground" : "b0");
		snprintf(what, sizeof what, g ? "%s to ground" : "%s", label);
		struct deck *dk;
		struct model *m = model_of(text, &dk);
		lin_check(m, what, 2, kmin);
		model_free(&m);
		deck_free(&dk);
	}
}

/* The RSDA about a revolute joint between two bodies, and to ground
 * (k = 50, c = 3, free angle 0.3, arbitrary); the bodies' random states
 * need not keep the joint: its angle atan2(y0 . x1, x0 . x1) and rate are
 * smooth functions of both bodies, and so is the torque.  Tolerance as
 * above (|F| ~ k = 50: smaller errors). */
static void test_force_lin_rsda(void **state)
{
	(void)state;
	two_body_lin("joints:\n"
		     "  - {name: j, type: revolute, body1: %s, body2: b1, point: [1, 0, 0], axis: [0.2, 1, 0.3]}\n"
		     "forces:\n"
		     "  - {name: r, type: rsda, joint: j, stiffness: 50, damping: 3, free_angle: 0.3}\n",
		     "rsda", 10.0);
}

/* The viscous element (elem_viscous.c, a force linear in the points'
 * velocities) between offset points of two turned bodies, and from the
 * ground: its analytic K (the points' velocities turn with the bodies)
 * and C against central differences of ra_forces, as above (c = 4 N s/m,
 * the points arbitrary). */
static void test_force_lin_viscous(void **state)
{
	(void)state;
	two_body_lin("forces:\n"
		     "  - {name: v, type: viscous, body1: %s, body2: b1, point1: [0.1, -0.2, 0.3],\n"
		     "     point2: [-0.3, 0.2, 0.1], damping: 4}\n",
		     "viscous", 0.0);
}

/* Point forces and torques on a body, the vector global or in the body
 * frame, with a harmonic multiplier (value 1.3 + 0.5 sin(2 t) at t = 0:
 * 1.3; arbitrary): their only dependence on the state is the turn of the
 * body (a global vector seen in the body frame, a body-frame one in the
 * global frame, and the moment arm of the point).  Tolerance as above. */
static void test_force_lin_point(void **state)
{
	(void)state;
	static const char *const kinds[4] = {
		"{name: f, type: force, body: b, point: [0.2, -0.3, 0.1], vector: [3, -1, 2], frame: global,"
		" function: {type: harmonic, offset: 1.3, amplitude: 0.5, omega: 2}}",
		"{name: f, type: force, body: b, point: [0.2, -0.3, 0.1], vector: [3, -1, 2], frame: body,"
		" function: {type: harmonic, offset: 1.3, amplitude: 0.5, omega: 2}}",
		"{name: f, type: torque, body: b, vector: [3, -1, 2], frame: global,"
		" function: {type: harmonic, offset: 1.3, amplitude: 0.5, omega: 2}}",
		"{name: f, type: torque, body: b, vector: [3, -1, 2], frame: body,"
		" function: {type: harmonic, offset: 1.3, amplitude: 0.5, omega: 2}}",
	};
	for (int i = 0; i < 4; i++) {
		char text[1024];
		snprintf(text, sizeof text,
			 "time: {end: 1}\n"
			 "bodies:\n"
			 "  - {name: b, mass: 2, inertia: [0.3, 0.5, 0.7], position: [0.5, 0, 0]}\n"
			 "forces:\n"
			 "  - %s\n", kinds[i]);
		struct deck *dk;
		struct model *m = model_of(text, &dk);
		char label[40];
		snprintf(label, sizeof label, "%s %s", i < 2 ? "force" : "torque",
			 i % 2 ? "body frame" : "global");
		lin_check(m, label, 1, i == 3 ? 0.0 : 0.5);	/* |g vec| ~ 5 */
		model_free(&m);
		deck_free(&dk);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_tsda_expression_stiffness),
		cmocka_unit_test(test_tsda_expression_damping),
		cmocka_unit_test(test_rsda_blocks),
		cmocka_unit_test(test_motor_trial_leaves_no_trace),
		cmocka_unit_test(test_state_names),
		cmocka_unit_test(test_sexpr_cache),
		cmocka_unit_test(test_tire),
		cmocka_unit_test(test_force_lin),
		cmocka_unit_test(test_force_lin_rsda),
		cmocka_unit_test(test_force_lin_point),
		cmocka_unit_test(test_force_lin_viscous),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
