/* test_prim.c - constraint primitives (model/prim.c) and the joints and
 * drivers built from them (model/model.c).
 *
 * Conventions under test (prim.h, 000 §2): A <- A exp(theta~) with theta in
 * the body frame; qdot = (rdot_i, wbar_i, rdot_j, wbar_j), wbar the
 * body-frame angular velocity; Phi_q qdot = nu, Phi_q qddot = gamma, i.e.
 *   dPhi/dt     = J qdot  - nu
 *   d2Phi/dt2   = J qddot - gamma.
 * The primitive checks compare prim_eval with Phi itself differentiated
 * numerically, never with a second copy of the formulas; the joint checks
 * compare with the motions each joint type should allow (rank and null
 * space via LAPACK dgesvd), the coordinate and driver checks with poses
 * built by explicit rigid motions.
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
#include "model/coupler.h"
#include "model/func.h"
#include "model/model.h"
#include "model/prim.h"
#include "util/vec.h"

/* ---- random numbers, poses ---- */

static void rand_vec(double *v, double s)
{
	v3_set(v, s * testutil_urand(), s * testutil_urand(), s * testutil_urand());
}

/* exp of a random rotation vector of length up to 3 rad */
static void rand_rot(double *A)
{
	double u[3], th[3];
	testutil_rand_unit(u);
	v3_scale(th, 3.0 * fabs(testutil_urand()), u);
	so3_exp(A, th);
}

/* kinematic state of one body: pose, velocity, acceleration */
struct kin {
	double r[3], A[9], v[3], w[3], a[3], wd[3];
};

static struct bstate bst(const struct kin *k)
{
	return (struct bstate){ k->r, k->A, k->v, k->w };
}

/* The model of a coupling row under test (section 5) and its angle
 * references: PRIM_CPL rows are evaluated from their joint. */
static struct {
	const struct model *m;
	double ref[JOINT_CPL_MAX];
} cut;

/* prim_eval (what: a mask of PRIM_*) at the poses and velocities ki, kj;
 * cpl_eval for a coupling row */
static void eval_kin(const struct prim *p, const struct kin *ki, const struct kin *kj,
		     double t, unsigned what, struct prim_out *o)
{
	struct bstate bi = bst(ki), bj = bst(kj);
	if (p->type == PRIM_CPL)
		cpl_eval(cut.m, &cut.m->joints[p->owner], &bi, &bj, cut.ref, what, o);
	else
		prim_eval(p, &bi, &bj, t, what, o);
}

static void kin_ground(struct kin *k)
{
	memset(k, 0, sizeof *k);
	m3_identity(k->A);
}

static void colv(double *v, const double *F, int c)
{
	v3_set(v, F[c], F[3 + c], F[6 + c]);
}

/* ---- time functions used by drivers and primitives ----
 * Harmonic: offset 0.2, amplitude 0.5, omega 3, phase 0.4; polynomial
 * 0.1 - 0.3 t + 0.7 t^2 + 0.2 t^3; rate 0.1 + 2 pi t.  All arbitrary,
 * chosen with second derivatives of O(1..10) so that a missing f' or f''
 * term shows. */
static void set_func(struct func *fn, enum func_type t)
{
	static const struct func tab[] = {
		{ .type = FUNC_HARMONIC, .c = { 0.2, 0.5, 3.0, 0.4 } },
		{ .type = FUNC_POLYNOMIAL, .n = 4, .c = { 0.1, -0.3, 0.7, 0.2 } },
		{ .type = FUNC_RATE, .c = { 0.1, 2.0 * M_PI } },
	};
	for (size_t i = 0; i < sizeof tab / sizeof tab[0]; i++)
		if (tab[i].type == t)
			*fn = tab[i];
	assert_int_equal(fn->type, t);
}

/* A random primitive of the given type; ftype < 0: no time function.
 * Points within the unit cube, directions unit; ROT's (ai, yi) are the x,
 * y columns of a random rotation (a marker frame). */
static void rand_prim(struct prim *p, enum prim_type type, struct func *fn, int ftype)
{
	double F[9];
	memset(p, 0, sizeof *p);
	p->type = type;
	p->bi = 0; p->bj = 1;
	rand_rot(F);
	/* only the vectors of the type: they share storage (prim.h) */
	switch (type) {
	case PRIM_ROT:
		colv(p->ai, F, 0); colv(p->yi, F, 1); testutil_rand_unit(p->aj);
		break;
	case PRIM_DP1:
		testutil_rand_unit(p->ai); testutil_rand_unit(p->aj);
		break;
	case PRIM_CD:
		testutil_rand_unit(p->c); rand_vec(p->si, 1.0); rand_vec(p->sj, 1.0);
		break;
	default:	/* DP2 (ai, si, sj), D (si, sj) */
		testutil_rand_unit(p->ai); rand_vec(p->si, 1.0); rand_vec(p->sj, 1.0);
		break;
	}
	p->f0 = 0.3 * testutil_urand();
	if (ftype >= 0) {
		set_func(fn, (enum func_type)ftype);
		p->f = fn;
	}
}

/* ---- 1. Jacobian against central differences of Phi ----
 * x = (dr_i, theta_i, dr_j, theta_j): r <- r + dr, A <- A exp(theta).
 * Step 1e-6: truncation h^2/6 |Phi'''| <= 1e-12/6 * 60 ~ 1e-11 (|Phi| <= 60:
 * the squared distance of points within a few units), round-off
 * eps |Phi| / h <= 1.1e-16 * 60 / 1e-6 ~ 7e-9.  Tolerance 1e-7 absolute
 * plus 1e-7 relative: 15x the worst round-off; a wrong term is O(0.1..1). */
#define JAC_H 1e-6
#define JAC_TOL 1e-7

struct jctx {
	const struct prim *p;
	const struct kin *ki, *kj;
	double t;
};

static void perturb(struct kin *out, const struct kin *in, const double *x)
{
	double E[9];
	*out = *in;
	v3_add(out->r, in->r, x);
	so3_exp(E, x + 3);
	m3_mul(out->A, in->A, E);
}

static double phi_of_x(const double *x, void *vctx)
{
	const struct jctx *c = vctx;
	struct kin ki, kj;
	perturb(&ki, c->ki, x);
	perturb(&kj, c->kj, x + 6);
	struct prim_out o;
	eval_kin(c->p, &ki, &kj, c->t, PRIM_PHI, &o);
	return o.phi;
}

static void check_jacobian(const struct prim *p, const struct kin *ki,
			   const struct kin *kj, double t, const char *label)
{
	struct bstate bi = bst(ki), bj = bst(kj);
	struct prim_out o;
	eval_kin(p, ki, kj, t, PRIM_ALL, &o);
	/* the Newton iterations' path gives the same Phi, to the bit */
	if (p->type != PRIM_CPL)
		assert_true(prim_phi(p, &bi, &bj, t) == o.phi);
	struct jctx c = { p, ki, kj, t };
	double x[12] = { 0 };
	char what[200];
	for (int k = 0; k < 12; k++) {
		double fd = testutil_fd(phi_of_x, x, k, JAC_H, &c);
		snprintf(what, sizeof what, "%s: J[%d][%d] vs FD", label, k / 3, k % 3);
		testutil_near(o.J[k / 3][k % 3], fd, JAC_TOL, JAC_TOL, what,
			      __FILE__, __LINE__);
	}
}

/* ---- 1b. local second derivatives (prim_hess) against central
 * differences of the Jacobian: d J[side][a] / d x_b for x the r or theta of
 * the same body (perturbed as in perturb).  Step 1e-5: truncation
 * h^2/6 |third derivative| ~ 1e-10 * 60, round-off eps 60 / 1e-5 ~ 7e-10;
 * tolerance JAC_TOL.  Only the blocks prim_hess claims: theta-theta of
 * each body, and r-r as a multiple of I. */
#define HESS_H 1e-5

struct hctx {
	int row, a;		/* J[row][a] */
	struct jctx c;
};

static double jac_of_x(const double *x, void *vctx)
{
	const struct hctx *h = vctx;
	struct kin ki, kj;
	perturb(&ki, h->c.ki, x);
	perturb(&kj, h->c.kj, x + 6);
	struct prim_out o;
	eval_kin(h->c.p, &ki, &kj, h->c.t, PRIM_JAC, &o);
	return o.J[h->row][h->a];
}

static void check_hessian(const struct prim *p, const struct kin *ki, const struct kin *kj,
			  int gi, int gj, double t, const char *label)
{
	struct bstate bi = bst(ki), bj = bst(kj);
	const double lam = 1.3;	/* arbitrary */
	double K[2][9], kr[2];
	prim_hess(p, &bi, &bj, t, lam, K[0], K[1], &kr[0], &kr[1]);
	struct hctx h = { 0, 0, { p, ki, kj, t } };
	double x[12] = { 0 };
	char what[200];
	for (int side = 0; side < 2; side++) {
		if (side ? gj : gi)
			continue;
		for (int a = 0; a < 3; a++)
			for (int b = 0; b < 3; b++) {
				h.a = a;
				h.row = 1 + 2 * side;	/* d grad_theta / d theta */
				double fd = lam * testutil_fd(jac_of_x, x, 6 * side + 3 + b, HESS_H, &h);
				snprintf(what, sizeof what, "%s: K%c[%d][%d] vs FD", label,
					 side ? 'j' : 'i', a, b);
				testutil_near(K[side][3 * a + b], fd, JAC_TOL, JAC_TOL, what,
					      __FILE__, __LINE__);
				h.row = 2 * side;	/* d grad_r / d r */
				fd = lam * testutil_fd(jac_of_x, x, 6 * side + b, HESS_H, &h);
				snprintf(what, sizeof what, "%s: kr%c[%d][%d] vs FD", label,
					 side ? 'j' : 'i', a, b);
				testutil_near(a == b ? kr[side] : 0.0, fd, JAC_TOL, JAC_TOL, what,
					      __FILE__, __LINE__);
			}
	}
}

/* ---- 2. nu and gamma along a trajectory ----
 * r(t) = r0 + v0 t + a0 t^2/2,
 * A(t) = A0 exp(u1 phi1(t)) exp(u2 phi2(t)),  phi_k = c0 + c1 t + c2 t^2/2.
 * With E2 = exp(u2 phi2), A^T Adot = skew(E2^T u1) phi1' + skew(u2) phi2'
 * (because E2^T skew(u1) E2 = skew(E2^T u1)), so exactly
 *   wbar    = E2^T u1 phi1' + u2 phi2'
 *   wbardot = E2^T u1 phi1'' - phi1' phi2' u2 x (E2^T u1) + u2 phi2''
 * (d/dt E2^T = -phi2' skew(u2) E2^T).  The axis of wbar turns in the body
 * frame, so wbardot is not parallel to wbar: every gamma term is exercised.
 * test_path_formulas checks these expressions against differences of A. */
struct path {
	int ground;
	double r0[3], v0[3], a0[3], A0[9], u1[3], u2[3], c1[3], c2[3];
};

static void rand_path(struct path *P)
{
	memset(P, 0, sizeof *P);
	rand_vec(P->r0, 1.0);
	rand_vec(P->v0, 1.0);
	rand_vec(P->a0, 1.0);
	rand_rot(P->A0);
	testutil_rand_unit(P->u1);
	testutil_rand_unit(P->u2);
	/* angle offsets up to pi, rates and accelerations up to 1 (bounds
	 * |wbar| <= ~3 rad/s on [0, 0.5], used in the FD error estimates) */
	v3_set(P->c1, M_PI * testutil_urand(), testutil_urand(), testutil_urand());
	v3_set(P->c2, M_PI * testutil_urand(), testutil_urand(), testutil_urand());
}

static void path_at(const struct path *P, double t, struct kin *k)
{
	if (P->ground) {
		kin_ground(k);
		return;
	}
	double f1 = P->c1[0] + P->c1[1] * t + 0.5 * P->c1[2] * t * t;
	double f2 = P->c2[0] + P->c2[1] * t + 0.5 * P->c2[2] * t * t;
	double d1 = P->c1[1] + P->c1[2] * t, d2 = P->c2[1] + P->c2[2] * t;
	double dd1 = P->c1[2], dd2 = P->c2[2];
	double th[3], E1[9], E2[9], T[9], e[3], ue[3];
	for (int i = 0; i < 3; i++) {
		k->r[i] = P->r0[i] + P->v0[i] * t + 0.5 * P->a0[i] * t * t;
		k->v[i] = P->v0[i] + P->a0[i] * t;
		k->a[i] = P->a0[i];
	}
	v3_scale(th, f1, P->u1);
	so3_exp(E1, th);
	v3_scale(th, f2, P->u2);
	so3_exp(E2, th);
	m3_mul(T, P->A0, E1);
	m3_mul(k->A, T, E2);
	m3_tmulv(e, E2, P->u1);		/* E2^T u1 */
	v3_cross(ue, P->u2, e);
	for (int i = 0; i < 3; i++) {
		k->w[i] = e[i] * d1 + P->u2[i] * d2;
		k->wd[i] = e[i] * dd1 - d1 * d2 * ue[i] + P->u2[i] * dd2;
	}
}

/* the bodies on paths Pi, Pj at t (states into ki, kj), and prim_eval there */
static void eval_path(const struct prim *p, const struct path *Pi, const struct path *Pj,
		      double t, unsigned what, struct kin *ki, struct kin *kj, struct prim_out *o)
{
	path_at(Pi, t, ki);
	path_at(Pj, t, kj);
	eval_kin(p, ki, kj, t, what, o);
}

static double phi_at(const struct prim *p, const struct path *Pi,
		     const struct path *Pj, double t)
{
	struct kin ki, kj;
	struct prim_out o;
	eval_path(p, Pi, Pj, t, PRIM_PHI, &ki, &kj, &o);
	return o.phi;
}

/* Richardson-extrapolated central differences at t:
 *   Phi'  ~ (4 D1(h/2) - D1(h)) / 3, error h^4 |Phi^(5)| / 480,
 *   Phi'' ~ (4 D2(h/2) - D2(h)) / 3, error h^4 |Phi^(6)| / 1440,
 * round-off about 3 eps |Phi| / h and 23 eps |Phi| / h^2.
 * Size of the derivatives: |wbar| <= 2.8 rad/s on the paths (|phi_k'| <=
 * 1.4 for t <= 0.37), so a body-fixed vector oscillates at <= 3 rad/s and
 * a product of two at <= 6; |Phi| <= 60 (squared distance), giving
 * |Phi^(k)| ~< 60 * 6^k.  ROT adds the driver's rate (<= 2 pi) but has
 * |Phi| <= 1: ~< 12.3^k.  Hence
 *   nu:    h = 5e-4:   60 * 6^5 * 6.25e-14 / 480 ~ 6e-11, round-off
 *          4e-11; NU_TOL = 1e-8 (margin > 50).
 *   gamma: h = 2.5e-3: 60 * 6^6 * 3.9e-11 / 1440 ~ 8e-8, round-off
 *          23 * 1.1e-16 * 60 / 6.25e-6 ~ 2.4e-8; GAMMA_TOL = 1e-6
 *          (margin ~10 on a pessimistic bound; observed errors ~1e-8).
 * A wrong nu or gamma term is O(0.1..1). */
#define NU_H 5e-4
#define NU_TOL 1e-8
#define GAMMA_H 2.5e-3
#define GAMMA_TOL 1e-6

static void check_rates(const struct prim *p, const struct path *Pi,
			const struct path *Pj, double t, const char *label)
{
	double d1[2], d2[2], f0 = phi_at(p, Pi, Pj, t);
	for (int s = 0; s < 2; s++) {
		double h = NU_H / (1 << s), g = GAMMA_H / (1 << s);
		d1[s] = (phi_at(p, Pi, Pj, t + h) - phi_at(p, Pi, Pj, t - h)) / (2 * h);
		d2[s] = (phi_at(p, Pi, Pj, t + g) - 2 * f0 + phi_at(p, Pi, Pj, t - g)) / (g * g);
	}
	double dphi = (4 * d1[1] - d1[0]) / 3, ddphi = (4 * d2[1] - d2[0]) / 3;

	struct kin ki, kj;
	struct prim_out o;
	eval_path(p, Pi, Pj, t, PRIM_ALL, &ki, &kj, &o);
	const double *qd[4] = { ki.v, ki.w, kj.v, kj.w };
	const double *qdd[4] = { ki.a, ki.wd, kj.a, kj.wd };
	double jqd = 0, jqdd = 0;
	for (int b = 0; b < 4; b++) {
		jqd += v3_dot(o.J[b], qd[b]);
		jqdd += v3_dot(o.J[b], qdd[b]);
	}
	char what[200];
	snprintf(what, sizeof what, "%s: J qdot - nu vs dPhi/dt", label);
	testutil_near(jqd - o.nu, dphi, NU_TOL, NU_TOL, what, __FILE__, __LINE__);
	snprintf(what, sizeof what, "%s: J qddot - gamma vs d2Phi/dt2", label);
	testutil_near(jqdd - o.gamma, ddphi, GAMMA_TOL, GAMMA_TOL, what, __FILE__, __LINE__);
}

/* The path's wbar and wbardot against vee(A^T Adot) and d wbar/dt by
 * central differences (h = 1e-5: truncation ~ h^2 * 3^3 / 6 ~ 5e-9,
 * round-off eps / h ~ 1e-11; tolerance 1e-7).  Guards the test's own
 * formulas. */
static void test_path_formulas(void **state)
{
	testutil_seed(31);
	const double h = 1e-5, t = 0.37;
	for (int rep = 0; rep < 10; rep++) {
		struct path P;
		struct kin k, kp, km;
		rand_path(&P);
		path_at(&P, t, &k);
		path_at(&P, t + h, &kp);
		path_at(&P, t - h, &km);
		double Ad[9], W[9];
		for (int i = 0; i < 9; i++)
			Ad[i] = (kp.A[i] - km.A[i]) / (2 * h);
		m3_tmul(W, k.A, Ad);	/* skew(wbar) */
		double wv[3] = { W[7], W[2], W[3] };
		for (int i = 0; i < 3; i++) {
			assert_near(k.w[i], wv[i], 0, 1e-7);
			assert_near(k.wd[i], (kp.w[i] - km.w[i]) / (2 * h), 0, 1e-7);
			assert_near(k.v[i], (kp.r[i] - km.r[i]) / (2 * h), 0, 1e-7);
		}
	}
}

/* One primitive type with one time function (-1: none): random
 * primitives, body-body and body-ground in both slots, several times. */
static void check_prim_type(enum prim_type type, int ftype, uint64_t seed)
{
	testutil_seed(seed);
	const char *gname[3] = { "body-body", "ground-body", "body-ground" };
	for (int rep = 0; rep < 6; rep++) {
		for (int g = 0; g < 3; g++) {
			struct prim p;
			struct func fn;
			struct path Pi, Pj;
			rand_prim(&p, type, &fn, ftype);
			rand_path(&Pi);
			rand_path(&Pj);
			Pi.ground = g == 1;
			Pj.ground = g == 2;
			const double ts[] = { 0.0, 0.37 };	/* t = 0 and an arbitrary t */
			for (int it = 0; it < 2; it++) {
				struct kin ki, kj;
				char label[160];
				snprintf(label, sizeof label, "%s f=%s %s rep %d t=%g",
					 prim_type_names[type],
					 ftype < 0 ? "none" : func_type_names[ftype],
					 gname[g], rep, ts[it]);
				path_at(&Pi, ts[it], &ki);
				path_at(&Pj, ts[it], &kj);
				check_jacobian(&p, &ki, &kj, ts[it], label);
				check_hessian(&p, &ki, &kj, Pi.ground, Pj.ground, ts[it], label);
				check_rates(&p, &Pi, &Pj, ts[it], label);
			}
		}
	}
}

/* every primitive, with and without a time function (-1: none) */
static const struct { enum prim_type t; int f; } prim_cases[] = {
	{ PRIM_DP1, -1 }, { PRIM_DP1, FUNC_HARMONIC },
	{ PRIM_DP2, -1 }, { PRIM_DP2, FUNC_POLYNOMIAL },
	{ PRIM_D, -1 }, { PRIM_D, FUNC_HARMONIC },
	{ PRIM_CD, -1 }, { PRIM_CD, FUNC_HARMONIC },
	{ PRIM_ROT, -1 }, { PRIM_ROT, FUNC_HARMONIC }, { PRIM_ROT, FUNC_RATE },
};
#define N_PRIM_CASES (sizeof prim_cases / sizeof prim_cases[0])

/* each of prim_cases; the seeds are arbitrary and distinct */
static void test_primitives(void **state)
{
	for (size_t i = 0; i < N_PRIM_CASES; i++)
		check_prim_type(prim_cases[i].t, prim_cases[i].f, 1 + i);
}

/* ---- 2b. prim_lin: Phi, J, gamma as prim_eval gives them; H, the
 * gradients of gamma in z and zdot against central differences of
 * prim_eval's J and gamma (seed 001 §3, the terms of eqs. 32 and 35) ----
 * Random poses and velocities (|v|, |w| <= sqrt 3), every type with and
 * without a time function, each side on ground in turn.  J, gamma agree
 * to round-off of the same products in another order: 1e-12 relative to
 * the largest term.  H: step LIN_H = 1e-5 along z_b as `perturb` moves
 * it; truncation h^2/6 |d3 Phi| (<= 60 as in 1.) ~ 1e-9, round-off
 * eps |J| / h ~ 1e-10; tolerance JAC_TOL.  gz: the same step on gamma,
 * |d3 gamma| <= |w|^2 |d3 Phi| ~ 3 x 60 and |gamma| <= ~200: truncation
 * 3e-9, round-off 2e-9; tolerance JAC_TOL.  gd: gamma is quadratic in
 * zdot, so the central difference has no truncation error: round-off
 * eps |gamma| / h; step 1e-4, tolerance JAC_TOL. */
#define LIN_H 1e-5

struct lctx {
	const struct prim *p;
	struct kin ki, kj;
	double t;
	int what;		/* 0: J[k] along z, 1: gamma along z, 2: gamma along zdot,
				 * 3: nu along z */
	int k;
};

static double lin_fn(const double *x, void *vctx)
{
	const struct lctx *c = vctx;
	struct kin ki = c->ki, kj = c->kj;
	if (c->what != 2) {
		perturb(&ki, &c->ki, x);
		perturb(&kj, &c->kj, x + 6);
	} else {
		v3_add(ki.v, c->ki.v, x);
		v3_add(ki.w, c->ki.w, x + 3);
		v3_add(kj.v, c->kj.v, x + 6);
		v3_add(kj.w, c->kj.w, x + 9);
	}
	struct prim_out o;
	eval_kin(c->p, &ki, &kj, c->t, PRIM_ALL, &o);
	return c->what == 0 ? o.J[c->k / 3][c->k % 3] : c->what == 3 ? o.nu : o.gamma;
}

static void rand_kin(struct kin *k)
{
	rand_vec(k->r, 1.0);
	rand_rot(k->A);
	rand_vec(k->v, 1.0);
	rand_vec(k->w, 1.0);
}

static void check_lin(enum prim_type type, int ftype, int ground, uint64_t seed)
{
	struct prim p;
	struct func fn;
	struct lctx c;
	char label[120], what[200];
	testutil_seed(seed);
	rand_prim(&p, type, &fn, ftype);
	rand_kin(&c.ki);
	rand_kin(&c.kj);
	if (ground == 1) {
		p.bi = -1;
		kin_ground(&c.ki);
	} else if (ground == 2) {
		p.bj = -1;
		kin_ground(&c.kj);
	}
	c.p = &p;
	c.t = 0.37;	/* arbitrary */
	snprintf(label, sizeof label, "%s f=%d ground=%d", prim_type_names[type], ftype, ground);
	struct bstate bi = bst(&c.ki), bj = bst(&c.kj);
	struct prim_out o;
	struct prim_lin L;
	prim_eval(&p, &bi, &bj, c.t, PRIM_ALL, &o);
	prim_lin(&p, &bi, &bj, c.t, &L);
	double jmax = 1.0;
	for (int k = 0; k < 12; k++)
		jmax = fmax(jmax, fabs(o.J[k / 3][k % 3]));
	assert_near(L.phi, o.phi, 1e-12, 1e-12 * jmax);
	assert_near(L.gamma, o.gamma, 1e-12, 1e-12 * (1.0 + fabs(o.gamma)) * jmax);
	assert_near(L.nu, o.nu, 1e-12, 1e-12 * (1.0 + fabs(o.nu)));
	double x[12] = { 0 };
	for (int k = 0; k < 12; k++) {
		int gside = (k < 6 && ground == 1) || (k >= 6 && ground == 2);
		snprintf(what, sizeof what, "%s: J[%d]", label, k);
		testutil_near(L.J[k], gside ? 0.0 : o.J[k / 3][k % 3], 1e-12, 1e-12 * jmax, what,
			      __FILE__, __LINE__);
	}
	for (int b = 0; b < 12; b++) {
		int gb = (b < 6 && ground == 1) || (b >= 6 && ground == 2);
		for (int a = 0; a < 12; a++) {
			int ga = (a < 6 && ground == 1) || (a >= 6 && ground == 2);
			c.what = 0;
			c.k = a;
			double fd = ga || gb ? 0.0 : testutil_fd(lin_fn, x, b, LIN_H, &c);
			snprintf(what, sizeof what, "%s: H[%d][%d] vs FD", label, a, b);
			testutil_near(L.H[12 * a + b], fd, JAC_TOL, JAC_TOL, what, __FILE__, __LINE__);
		}
		c.what = 1;
		double fd = gb ? 0.0 : testutil_fd(lin_fn, x, b, LIN_H, &c);
		snprintf(what, sizeof what, "%s: d gamma / d z[%d] vs FD", label, b);
		testutil_near(L.gz[b], fd, JAC_TOL, JAC_TOL, what, __FILE__, __LINE__);
		c.what = 2;
		fd = gb ? 0.0 : testutil_fd(lin_fn, x, b, 1e-4, &c);
		snprintf(what, sizeof what, "%s: d gamma / d zdot[%d] vs FD", label, b);
		testutil_near(L.gd[b], fd, JAC_TOL, JAC_TOL, what, __FILE__, __LINE__);
		c.what = 3;	/* nu: |d3 nu| <= |f'| |d3 Phi|, as for H */
		fd = gb ? 0.0 : testutil_fd(lin_fn, x, b, LIN_H, &c);
		snprintf(what, sizeof what, "%s: d nu / d z[%d] vs FD", label, b);
		testutil_near(L.nz[b], fd, JAC_TOL, JAC_TOL, what, __FILE__, __LINE__);
	}
}

static void test_prim_lin(void **state)
{
	for (size_t i = 0; i < N_PRIM_CASES; i++)
		for (int g = 0; g < 3; g++)
			check_lin(prim_cases[i].t, prim_cases[i].f, g, 101 + 3 * i + (uint64_t)g);
}

/* prim_lin_joint (the primitives of one joint, points shared) gives
 * prim_lin's values bit for bit: the same operations.  A spherical
 * joint's three CD rows on one pair of points, a DP1 between them and a
 * second run of points, a DP2 and a D on other points, then a CD on the
 * first points again; every side on ground in turn. */
static void test_prim_lin_joint(void **state)
{
	(void)state;
	enum prim_type ty[6] = { PRIM_CD, PRIM_CD, PRIM_DP1, PRIM_DP2, PRIM_D, PRIM_CD };
	for (int g = 0; g < 3; g++) {
		struct prim P[6];
		struct func fn[6];
		struct kin ki, kj;
		struct prim_lin O[6], L;
		testutil_seed(911 + (uint64_t)g);	/* arbitrary */
		for (int i = 0; i < 6; i++)
			rand_prim(&P[i], ty[i], &fn[i], i == 3 ? 1 : -1);
		v3_copy(P[1].si, P[0].si);
		v3_copy(P[1].sj, P[0].sj);
		v3_copy(P[4].si, P[3].si);
		v3_copy(P[5].si, P[0].si);
		v3_copy(P[5].sj, P[0].sj);
		rand_kin(&ki);
		rand_kin(&kj);
		for (int i = 0; i < 6; i++) {
			if (g == 1)
				P[i].bi = -1;
			if (g == 2)
				P[i].bj = -1;
		}
		if (g == 1)
			kin_ground(&ki);
		if (g == 2)
			kin_ground(&kj);
		struct bstate bi = bst(&ki), bj = bst(&kj);
		prim_lin_joint(P, 6, &bi, &bj, 0.37, O);
		for (int i = 0; i < 6; i++) {
			prim_lin(&P[i], &bi, &bj, 0.37, &L);
			assert_memory_equal(&L, &O[i], sizeof L);
		}
	}
}

/* ---- 3. joints: rank and null space of the assembled Jacobian ---- */

/* LAPACK */
extern void dgesvd_(const char *jobu, const char *jobvt, const int *m, const int *n,
		    double *a, const int *lda, double *s, double *u, const int *ldu,
		    double *vt, const int *ldvt, double *work, const int *lwork, int *info);

/* singular values (descending, min(m, n) of them) of the row-major m x n A */
static void svals(int m, int n, const double *A, double *s)
{
	double a[12 * 12], work[512], dummy = 0;
	int lwork = 512, info = 0, one = 1;
	assert_true(m <= 12 && n <= 12);
	for (int i = 0; i < m; i++)	/* to column-major */
		for (int j = 0; j < n; j++)
			a[i + m * j] = A[n * i + j];
	dgesvd_("N", "N", &m, &n, a, &m, s, &dummy, &one, &dummy, &one, work,
		&lwork, &info);
	assert_int_equal(info, 0);
}

/* a tiny model: one joint between two random bodies (ground: 0 both
 * bodies, 1 body[0] = ground, 2 body[1] = ground) at a random point */
struct jmodel {
	struct model *m;
	double p[3], axis[3], axis2[3];	/* joint point and axes, global */
};

static struct joint *jmodel_build(struct jmodel *J, enum joint_type type, int ground)
{
	struct model *m = J->m = model_new();
	int nb = ground ? 1 : 2;
	for (int b = 0; b < nb; b++) {
		struct body *B = model_add_body(m, b ? "b1" : "b0");
		B->mass = 1.0;
		rand_vec(B->r0, 1.0);
		rand_rot(B->A0);
	}
	rand_vec(J->p, 1.0);
	testutil_rand_unit(J->axis);
	testutil_rand_unit(J->axis2);	/* made perpendicular to axis (universal) */
	v3_axpy(J->axis2, -v3_dot(J->axis2, J->axis), J->axis);
	v3_scale(J->axis2, 1.0 / v3_norm(J->axis2), J->axis2);
	struct joint *j = model_add_joint(m, "j", type);
	j->body[0] = ground == 1 ? MODEL_GROUND : 0;
	j->body[1] = ground == 1 ? 0 : ground == 2 ? MODEL_GROUND : 1;
	model_joint_global(m, j, J->p, J->axis, type == JOINT_UNIVERSAL ? J->axis2 : NULL);
	if (type == JOINT_SCREW) {
		j->cpl = calloc(1, sizeof *j->cpl);
		j->cpl->pitch = 0.3;	/* m a turn: c = 0.048 m/rad */
	}
	if (type == JOINT_DISTANCE) {
		/* marker 1 at p + 0.8 u, u random: length 0.8 */
		double q[3], u[3];
		testutil_rand_unit(u);
		v3_copy(q, J->p);
		v3_axpy(q, 0.8, u);
		model_point_to_body(m, j->body[1], q, j->s[1]);
		j->length = 0.8;
	}
	return j;
}

static void body_kin(const struct model *m, int b, struct kin *k)
{
	kin_ground(k);
	if (b >= 0) {
		v3_copy(k->r, m->bodies[b].r0);
		memcpy(k->A, m->bodies[b].A0, sizeof k->A);
	}
}

/* global marker point of joint side s at t0 */
static void marker_point(const struct model *m, const struct joint *j, int s, double *p)
{
	struct kin k;
	body_kin(m, j->body[s], &k);
	m3_mulv(p, k.A, j->s[s]);
	v3_add(p, p, k.r);
}

/* delta (ncol entries, body b at column 6b) += twist (w, v) about point c:
 * dr = v + w x (r - c), dtheta = A^T w (body frame) */
static void add_twist(double *delta, const struct model *m, int b,
		      const double *w, const double *v, const double *c)
{
	double rc[3], wr[3], wb[3];
	v3_sub(rc, m->bodies[b].r0, c);
	v3_cross(wr, w, rc);
	m3_tmulv(wb, m->bodies[b].A0, w);
	for (int i = 0; i < 3; i++) {
		delta[6 * b + i] += v[i] + wr[i];
		delta[6 * b + 3 + i] += wb[i];
	}
}

/* motions of the moving body mb relative to the other, split into those
 * the joint allows and those it removes; returns counts via na, nr */
static void joint_motions(const struct model *m, const struct joint *j,
			  const struct jmodel *J, int mb, int ncol,
			  double allow[][12], int *na, double rem[][12], int *nr)
{
	double x0[3], y0[3], z0[3], z1[3], n[3], F[9], p[3], zero[3] = { 0 };
	double d[3], t1[3], t2[3], pa[3], pb[3];	/* distance joint */
	double cz0[3];					/* screw: its advance a radian */
	double e[3][3] = { { 1, 0, 0 }, { 0, 1, 0 }, { 0, 0, 1 } };
	struct kin k0, k1;
	body_kin(m, j->body[0], &k0);
	body_kin(m, j->body[1], &k1);
	m3_mul(F, k0.A, j->F[0]);
	colv(x0, F, 0); colv(y0, F, 1); colv(z0, F, 2);
	m3_mul(F, k1.A, j->F[1]);
	colv(z1, F, 2);
	v3_cross(n, z0, z1);
	v3_copy(p, J->p);
	/* (w, v) pairs of allowed and removed relative twists about p */
	const double *aw[6], *av[6], *rw[6], *rv[6];
	int a = 0, r = 0;
#define ALLOW(w, v) (aw[a] = (w), av[a++] = (v))
#define REMOVE(w, v) (rw[r] = (w), rv[r++] = (v))
	switch (j->type) {
	case JOINT_SPHERICAL:
		for (int i = 0; i < 3; i++) { ALLOW(e[i], zero); REMOVE(zero, e[i]); }
		break;
	case JOINT_REVOLUTE:
		ALLOW(z0, zero);
		REMOVE(x0, zero); REMOVE(y0, zero);
		for (int i = 0; i < 3; i++) REMOVE(zero, e[i]);
		break;
	case JOINT_UNIVERSAL:
		ALLOW(z0, zero); ALLOW(z1, zero);
		REMOVE(n, zero);
		for (int i = 0; i < 3; i++) REMOVE(zero, e[i]);
		break;
	case JOINT_CYLINDRICAL:
		ALLOW(z0, zero); ALLOW(zero, z0);
		REMOVE(x0, zero); REMOVE(y0, zero); REMOVE(zero, x0); REMOVE(zero, y0);
		break;
	case JOINT_TRANSLATIONAL:
		ALLOW(zero, z0);
		REMOVE(x0, zero); REMOVE(y0, zero); REMOVE(z0, zero);
		REMOVE(zero, x0); REMOVE(zero, y0);
		break;
	case JOINT_FIXED:
		for (int i = 0; i < 3; i++) { REMOVE(e[i], zero); REMOVE(zero, e[i]); }
		break;
	case JOINT_DISTANCE:
		/* rotations about the moving body's own marker point, and
		 * translations normal to d; translation along d is removed */
		marker_point(m, j, 0, pa); marker_point(m, j, 1, pb);
		v3_sub(d, pb, pa);
		v3_scale(d, 1.0 / v3_norm(d), d);
		frame_from_axis(F, d);
		colv(t1, F, 0); colv(t2, F, 1);
		v3_copy(p, mb == j->body[1] ? pb : pa);
		for (int i = 0; i < 3; i++) ALLOW(e[i], zero);
		ALLOW(zero, t1); ALLOW(zero, t2);
		REMOVE(zero, d);
		break;
	case JOINT_POINT_LINE:
		/* point 2 at p on the line through p along z0: every rotation
		 * about p and the slide along z0 */
		for (int i = 0; i < 3; i++) ALLOW(e[i], zero);
		ALLOW(zero, z0);
		REMOVE(zero, x0); REMOVE(zero, y0);
		break;
	case JOINT_POINT_PLANE:
		for (int i = 0; i < 3; i++) ALLOW(e[i], zero);
		ALLOW(zero, x0); ALLOW(zero, y0);
		REMOVE(zero, z0);
		break;
	case JOINT_SCREW:
		/* the turn about z0 with the slide c = pitch / 2 pi along it */
		v3_scale(cz0, j->cpl->pitch / (2.0 * M_PI), z0);
		ALLOW(z0, cz0);
		REMOVE(x0, zero); REMOVE(y0, zero); REMOVE(zero, x0); REMOVE(zero, y0);
		REMOVE(zero, z0);
		break;
	case JOINT_PLANAR:
		/* the turn about the normal z0 and the slides in its plane */
		ALLOW(z0, zero); ALLOW(zero, x0); ALLOW(zero, y0);
		REMOVE(x0, zero); REMOVE(y0, zero); REMOVE(zero, z0);
		break;
	default:
		fail();
	}
#undef ALLOW
#undef REMOVE
	memset(allow, 0, 12 * 12 * sizeof(double));
	memset(rem, 0, 6 * 12 * sizeof(double));
	for (int i = 0; i < a; i++)
		add_twist(allow[i], m, mb, aw[i], av[i], p);
	for (int i = 0; i < r; i++)
		add_twist(rem[i], m, mb, rw[i], rv[i], p);
	/* two bodies: rigid motions of the pair are allowed too */
	if (ncol == 12)
		for (int i = 0; i < 6; i++, a++)
			for (int b = 0; b < 2; b++)
				add_twist(allow[a], m, b, i < 3 ? e[i] : zero,
					  i < 3 ? zero : e[i - 3], zero);
	*na = a;
	*nr = r;
}

static double dotn(const double *a, const double *b, int n)
{
	double s = 0;
	for (int i = 0; i < n; i++)
		s += a[i] * b[i];
	return s;
}

/* rank of J, J N = 0 for the allowed motions N (which span a space of the
 * size of the null space), J R of full rank for the removed motions R.
 * Tolerances: entries of J and of the motions are O(1..10) products of
 * unit-cube data and exact-zero cancellations leave ~1e-14; 1e-12 for
 * J N.  A removed motion gives |J delta| of O(0.1..1) at random poses;
 * singular values below 1e-6 would mean a lost constraint.  Rank counts
 * singular values above 1e-9 sigma_max (gap between ~1e-15 and O(0.1)). */
static void check_joint(enum joint_type type, int ground, uint64_t seed)
{
	testutil_seed(seed);
	struct jmodel J;
	struct diag dg;
	diag_init(&dg);
	jmodel_build(&J, type, ground);
	struct model *m = J.m;
	assert_int_equal(model_finalize(m, &dg), 0);
	const struct joint *j = &m->joints[0];
	int nc = m->ncons, ncol = ground ? 6 : 12;
	cut.m = m;	/* a screw's coupling row, at its angle of t0 */
	if (j->cpl)
		memcpy(cut.ref, j->cpl->q0, sizeof cut.ref);
	assert_int_equal(nc, joint_type_rows[type]);
	assert_int_equal(j->nrows, nc);

	double Jm[6 * 12] = { 0 };
	for (int k = 0; k < nc; k++) {
		struct prim pb;
		const struct prim *p = model_prim(m, k, &pb);
		struct kin ki, kj;
		body_kin(m, p->bi, &ki);
		body_kin(m, p->bj, &kj);
		struct prim_out o;
		eval_kin(p, &ki, &kj, 0.0, PRIM_ALL, &o);
		assert_near(o.phi, 0.0, 0, 1e-13);	/* assembled by construction */
		const int bs[2] = { p->bi, p->bj };
		for (int s = 0; s < 2; s++)
			if (bs[s] >= 0)
				for (int c = 0; c < 6; c++)
					Jm[ncol * k + 6 * bs[s] + c] = o.J[2 * s + c / 3][c % 3];
	}
	double sv[12];
	svals(nc, ncol, Jm, sv);
	int rank = 0;
	for (int k = 0; k < nc; k++)
		rank += sv[k] > 1e-9 * sv[0];
	assert_int_equal(rank, joint_type_rows[type]);

	int mb = j->body[1] >= 0 ? j->body[1] : j->body[0];
	double allow[12][12], rem[6][12];
	int na, nr;
	joint_motions(m, j, &J, mb, ncol, allow, &na, rem, &nr);
	assert_int_equal(na, ncol - nc);	/* test sanity: dim of null space */
	assert_int_equal(nr, nc);
	char what[160];
	for (int i = 0; i < na; i++)
		for (int k = 0; k < nc; k++) {
			double jd = dotn(Jm + ncol * k, allow[i], ncol);
			snprintf(what, sizeof what, "%s ground=%d: row %d . allowed motion %d",
				 joint_type_names[type], ground, k, i);
			testutil_near(jd, 0.0, 0, 1e-12, what, __FILE__, __LINE__);
		}
	if (na > 0) {	/* the allowed motions are independent: they span null(J) */
		double N[12 * 12];
		for (int i = 0; i < na; i++)
			for (int c = 0; c < ncol; c++)
				N[na * c + i] = allow[i][c];
		svals(ncol, na, N, sv);
		assert_true(sv[na - 1] > 1e-6);
	}
	double JR[6 * 6];
	for (int k = 0; k < nc; k++)
		for (int i = 0; i < nr; i++)
			JR[nr * k + i] = dotn(Jm + ncol * k, rem[i], ncol);
	/* each removed motion violates Phi, independently of the others
	 * (sigma_min <= the norm of every column) */
	svals(nc, nr, JR, sv);
	if (!(sv[nr - 1] > 1e-6))
		fail_msg("%s ground=%d: J R singular (%g)", joint_type_names[type],
			 ground, sv[nr - 1]);
	model_free(&J.m);
	diag_release(&dg);
}

static void test_joint_dofs(void **state)
{
	for (int t = 0; t < JOINT_NTYPES; t++)
		for (int g = 0; g < 3 && !joint_is_coupling((enum joint_type)t); g++)
			for (int rep = 0; rep < 4; rep++)
				check_joint((enum joint_type)t, g, 100 + 10 * t + 3 * g + rep * 1000);
}

/* ---- 4. joint coordinates ---- */

/* rigid motion of a pose: rotate by R about point c, then translate by s */
static void move(struct kin *k, const double *R, const double *c, const double *s)
{
	double A[9], rc[3], Rrc[3];
	m3_mul(A, R, k->A);
	memcpy(k->A, A, sizeof A);
	v3_sub(rc, k->r, c);
	m3_mulv(Rrc, R, rc);
	v3_add(k->r, c, Rrc);
	v3_add(k->r, k->r, s);
}

/* poses at t0 with body[1] turned by a about the joint axis through p and
 * slid by d along it, relative to body[0] (if body[1] is ground, body[0]
 * gets the inverse motion) */
static void joint_pose(const struct jmodel *J, const struct joint *j, double a,
		       double d, struct kin *k0, struct kin *k1)
{
	double R[9], th[3], s[3], sg = j->body[1] >= 0 ? 1.0 : -1.0;
	body_kin(J->m, j->body[0], k0);
	body_kin(J->m, j->body[1], k1);
	v3_scale(th, sg * a, J->axis);
	v3_scale(s, sg * d, J->axis);
	so3_exp(R, th);
	move(sg > 0 ? k1 : k0, R, J->p, s);
}

static void test_joint_coordinate(void **state)
{
	/* angles across (-pi, pi]: ends approached to 1e-9 (atan2 of O(1)
	 * components is accurate to ~1e-16, 1e-12 tolerance) */
	const double as[] = { -M_PI + 1e-9, -3.0, -2.0, -1.0, -0.5, 0.0, 1e-7,
			      0.5, 1.0, 2.0, 3.0, M_PI - 1e-9 };
	const double ds[] = { -1.5, -0.2, 0.0, 0.3, 2.0 };	/* displacements, m */
	/* the markers, hence the coordinates, are built the same way for the
	 * three joint types a driver can act on */
	const enum joint_type jts[] = { JOINT_REVOLUTE, JOINT_CYLINDRICAL, JOINT_TRANSLATIONAL };
	for (int g = 0; g < 9; g++) {
		testutil_seed(500 + g);
		struct jmodel J;
		struct joint *j = jmodel_build(&J, jts[g / 3], g % 3);
		struct model *m = J.m;
		assert_near(model_joint_coordinate0(m, j, DRIVER_ROTATION), 0.0, 0, 1e-14);
		assert_near(model_joint_coordinate0(m, j, DRIVER_TRANSLATION), 0.0, 0, 1e-14);
		double Q[9], zero[3] = { 0 };	/* a common rigid motion of both */
		double sq[3];
		rand_rot(Q);
		rand_vec(sq, 1.0);
		for (size_t ia = 0; ia < sizeof as / sizeof as[0]; ia++)
			for (size_t id = 0; id < sizeof ds / sizeof ds[0]; id++) {
				struct kin k0, k1;
				joint_pose(&J, j, as[ia], ds[id], &k0, &k1);
				if (g % 3 == 0) {	/* both bodies: add a common motion */
					move(&k0, Q, zero, sq);
					move(&k1, Q, zero, sq);
				}
				double a = joint_coordinate(j, DRIVER_ROTATION, k0.r, k0.A, k1.r, k1.A);
				double d = joint_coordinate(j, DRIVER_TRANSLATION, k0.r, k0.A, k1.r, k1.A);
				assert_near(a, as[ia], 0, 1e-12);
				assert_near(d, ds[id], 0, 1e-12);
			}
		model_free(&J.m);
	}
}

/* ---- 5. drivers ---- */

/* Build a two-body joint with one driver, return its primitive. */
static const struct prim *driven(struct jmodel *J, enum joint_type jt,
				 enum driver_kind kind, enum func_type ft, int relative)
{
	struct diag dg;
	diag_init(&dg);
	jmodel_build(J, jt, 0);
	struct driver *dv = model_add_driver(J->m, "drv");
	dv->joint = 0;
	dv->kind = kind;
	dv->relative = relative;
	set_func(&dv->f, ft);
	assert_int_equal(model_finalize(J->m, &dg), 0);
	diag_release(&dg);
	assert_int_equal(J->m->ncons, joint_type_rows[jt] + 1);
	return &J->m->dprims[0];
}

/* Phi of the driver row after body 1 moved by angle a / slide d about /
 * along the joint axis, at time t */
static double driver_phi(const struct jmodel *J, const struct prim *p,
			 double a, double d, double t)
{
	struct kin k0, k1;
	joint_pose(J, &J->m->joints[0], a, d, &k0, &k1);
	struct prim_out o;
	eval_kin(p, &k0, &k1, t, PRIM_PHI, &o);
	return o.phi;
}

static void test_rotation_driver(void **state)
{
	/* FUNC_RATE f = 0.1 + 2 pi t (set_func): relative target moves the
	 * joint by f(t) - f(0) = 2 pi t; absolute target is f(t) itself since
	 * the joint angle is 0 at t0 (frame_follow).  Phi = sin(angle - target)
	 * (prim.h), so an excess eps gives sin(eps) ~ eps > 0. */
	const double ts[] = { 0.0, 0.1, 0.37, 0.8 }, eps = 1e-3;
	for (int rel = 0; rel < 2; rel++) {
		testutil_seed(600 + rel);
		struct jmodel J;
		const struct prim *p = driven(&J, JOINT_REVOLUTE, DRIVER_ROTATION,
					      FUNC_RATE, rel);
		assert_int_equal(p->type, PRIM_ROT);
		assert_near(J.m->drivers[0].offset, rel ? -0.1 : 0.0, 0, 1e-14);
		for (size_t i = 0; i < sizeof ts / sizeof ts[0]; i++) {
			double f = 0.1 + 2 * M_PI * ts[i], tgt = rel ? f - 0.1 : f;
			/* Phi of O(1) unit-vector products: 1e-13 */
			assert_near(driver_phi(&J, p, tgt, 0.0, ts[i]), 0.0, 0, 1e-13);
			assert_near(driver_phi(&J, p, tgt + eps, 0.0, ts[i]), sin(eps), 0, 1e-13);
			assert_near(driver_phi(&J, p, tgt - eps, 0.0, ts[i]), -sin(eps), 0, 1e-13);
			/* sliding along the axis does not matter */
			assert_near(driver_phi(&J, p, tgt, 0.7, ts[i]), 0.0, 0, 1e-13);
		}
		model_free(&J.m);
	}
}

static void test_translation_driver(void **state)
{
	/* harmonic f (set_func), relative: target displacement f(t) - f(0);
	 * the DP2 row is z0 . d - target, so an excess eps gives +eps */
	const double ts[] = { 0.0, 0.25, 0.9 }, eps = 1e-3;
	testutil_seed(700);
	struct jmodel J;
	const struct prim *p = driven(&J, JOINT_TRANSLATIONAL, DRIVER_TRANSLATION,
				      FUNC_HARMONIC, 1);
	assert_int_equal(p->type, PRIM_DP2);
	for (size_t i = 0; i < sizeof ts / sizeof ts[0]; i++) {
		double f[3], f0[3];
		func_eval(&J.m->drivers[0].f, ts[i], f);
		func_eval(&J.m->drivers[0].f, 0.0, f0);
		double tgt = f[0] - f0[0];
		assert_near(driver_phi(&J, p, 0.0, tgt, ts[i]), 0.0, 0, 1e-13);
		assert_near(driver_phi(&J, p, 0.0, tgt + eps, ts[i]), eps, 0, 1e-13);
	}
	model_free(&J.m);
}

/* ---- 5. coupling rows (model/coupler.c): Jacobian, nu and gamma by the
 * checks of section 1-2, on random motions of the two bodies (the coupled
 * joints' own rows need not hold: the rotation term's gradient is that of
 * its atan2 everywhere).  The cases: a screw; a gear of two joints on
 * ground; a gear whose first joint rides on the second's body (a
 * carrier); a rack_pinion with the rack on the pinion's body; a coupler of
 * three terms; a rack_pinion on one body and ground (a wheel on a rail,
 * one side ground).  Motions whose rotation terms come within
 * sqrt(0.3) of the singular x1 || z0 are drawn again, so that the
 * derivatives stay within the bounds the tolerances assume. */
struct ccase {
	enum joint_type type;
	int n;
	enum joint_type jt[3];
	int jb[3][2];		/* bodies of the coupled joints (-1 ground) */
	double c[3];
};

static const struct ccase ccases[] = {
	{ JOINT_SCREW, 0, { 0 }, { { 0 } }, { 0.07 } },
	{ JOINT_GEAR, 2, { JOINT_REVOLUTE, JOINT_REVOLUTE }, { { -1, 0 }, { -1, 1 } },
	  { -1.7, -1 } },
	{ JOINT_GEAR, 2, { JOINT_REVOLUTE, JOINT_REVOLUTE }, { { 0, 1 }, { 0, -1 } },
	  { 2.5, -1 } },
	{ JOINT_RACK_PINION, 2, { JOINT_REVOLUTE, JOINT_TRANSLATIONAL }, { { -1, 0 }, { 0, 1 } },
	  { 0.3, -1 } },
	{ JOINT_COUPLER, 3, { JOINT_REVOLUTE, JOINT_TRANSLATIONAL, JOINT_REVOLUTE },
	  { { -1, 0 }, { -1, 1 }, { 0, 1 } }, { 0.5, -2, 1.3 } },
	{ JOINT_RACK_PINION, 2, { JOINT_REVOLUTE, JOINT_TRANSLATIONAL }, { { -1, 1 }, { -1, 1 } },
	  { 0.4, -1 } },
};

/* |projection of marker 1's x on marker 0's x, y|^2 of each rotation term */
static double cpl_rho2(const struct joint *row, const struct kin *ki, const struct kin *kj)
{
	const struct joint_cpl *c = row->cpl;
	double lo = 1.0;
	for (int k = 0; k < c->n; k++) {
		if (c->kind[k] != DRIVER_ROTATION)
			continue;
		const struct joint *jt = &cut.m->joints[c->joint[k]];
		struct kin g;
		const struct kin *e[2];
		kin_ground(&g);
		for (int s = 0; s < 2; s++)
			e[s] = jt->body[s] < 0 ? &g : jt->body[s] == row->body[0] ? ki : kj;
		double xb[3], x0[3], y0[3], x1[3];
		colv(xb, jt->F[0], 0);
		m3_mulv(x0, e[0]->A, xb);
		colv(xb, jt->F[0], 1);
		m3_mulv(y0, e[0]->A, xb);
		colv(xb, jt->F[1], 0);
		m3_mulv(x1, e[1]->A, xb);
		double p = v3_dot(x1, x0), q = v3_dot(x1, y0);
		lo = fmin(lo, p * p + q * q);
	}
	return lo;
}

static int ccase_build(const struct ccase *cc, struct model **pm)
{
	struct model *m = *pm = model_new();
	for (int b = 0; b < 2; b++) {
		struct body *B = model_add_body(m, b ? "b1" : "b0");
		B->mass = 1.0;
		m3_identity(B->J);
		rand_vec(B->r0, 1.0);
		rand_rot(B->A0);
	}
	double p[3], u[3];
	char name[8];
	for (int k = 0; k < cc->n; k++) {
		snprintf(name, sizeof name, "j%d", k);
		struct joint *j = model_add_joint(m, name, cc->jt[k]);
		j->body[0] = cc->jb[k][0];
		j->body[1] = cc->jb[k][1];
		rand_vec(p, 1.0);
		testutil_rand_unit(u);
		model_joint_global(m, j, p, u, NULL);
	}
	struct joint *j = model_add_joint(m, "row", cc->type);
	j->body[0] = 0;
	j->body[1] = 1;
	j->cpl = calloc(1, sizeof *j->cpl);
	if (cc->type == JOINT_SCREW) {
		rand_vec(p, 1.0);
		testutil_rand_unit(u);
		model_joint_global(m, j, p, u, NULL);
		j->cpl->pitch = cc->c[0];
	} else {
		j->cpl->n = cc->n;
		for (int k = 0; k < cc->n; k++) {
			j->cpl->joint[k] = k;
			j->cpl->kind[k] = cc->jt[k] == JOINT_TRANSLATIONAL ? DRIVER_TRANSLATION :
					  DRIVER_ROTATION;
			j->cpl->c[k] = cc->c[k];
		}
	}
	testutil_finalize(m);
	cut.m = m;
	return cc->n;	/* the row joint's index */
}

static void test_coupling_rows(void **state)
{
	testutil_seed(131);
	for (size_t i = 0; i < sizeof ccases / sizeof ccases[0]; i++) {
		for (int rep = 0; rep < 4; rep++) {
			struct model *m;
			int jr = ccase_build(&ccases[i], &m);
			const struct joint *row = &m->joints[jr];
			struct prim P[MODEL_JOINT_ROWS_MAX];
			int np = model_joint_prims(m, jr, P);
			const struct prim *p = &P[np - 1];
			assert_int_equal(p->type, PRIM_CPL);
			struct path Pi, Pj;
			struct kin ki, kj;
			const double t = 0.37;
			do {
				rand_path(&Pi);
				rand_path(&Pj);
				Pi.ground = p->bi < 0;
				Pj.ground = p->bj < 0;
				path_at(&Pi, t, &ki);
				path_at(&Pj, t, &kj);
			} while (cpl_rho2(row, &ki, &kj) < 0.3);
			/* the branch at t: references at the wrapped angles there */
			struct bstate bi = bst(&ki), bj = bst(&kj);
			for (int k = 0; k < row->cpl->n; k++)
				cut.ref[k] = cpl_coord(m, row, k, &bi, &bj, NULL);
			char label[160];
			snprintf(label, sizeof label, "%s case %zu rep %d", joint_type_names[row->type],
				 i, rep);
			check_jacobian(p, &ki, &kj, t, label);
			check_rates(p, &Pi, &Pj, t, label);
			model_free(&m);
		}
	}
}

/* A rotation term follows its angle through turns from its reference:
 * a turn of 2 pi k + a about the axis reads 2 pi k + a against a
 * reference within pi of it. */
static void test_coupling_unwrap(void **state)
{
	for (int k = -3; k <= 3; k++)
		for (double a = -3.0; a <= 3.0; a += 0.5) {
			double q = 2 * M_PI * k + a;
			double raw = atan2(sin(q), cos(q));
			assert_near(cpl_unwrap(raw, q + 0.9 * (a > 0 ? -M_PI : M_PI) * 0.99), q, 0,
				    1e-12);
			assert_near(cpl_unwrap(raw, q), q, 0, 1e-12);
		}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_path_formulas),
		cmocka_unit_test(test_primitives),
		cmocka_unit_test(test_prim_lin),
		cmocka_unit_test(test_prim_lin_joint),
		cmocka_unit_test(test_joint_dofs),
		cmocka_unit_test(test_joint_coordinate),
		cmocka_unit_test(test_rotation_driver),
		cmocka_unit_test(test_translation_driver),
		cmocka_unit_test(test_coupling_rows),
		cmocka_unit_test(test_coupling_unwrap),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
