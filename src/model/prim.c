/* prim.c - evaluation of the constraint primitives of prim.h.
 *
 * Notation: for a body-frame vector s of body b, g = A s (global),
 * gd = A (w x s) (its rate), gq = A (w x (w x s)) (the part of its second
 * derivative that does not involve wdot).  The gradient of w . (A s) with
 * respect to the body-frame rotation theta is s x (A^T w), since
 * d(A s) = -A s~ dtheta (000 eq. 2; the Pi-bar operator).  gamma collects
 * everything of Phi-double-dot that is not Phi_q qddot, with a minus sign.
 *
 * Work follows the mask: Phi is always formed (it costs one A s per body
 * vector, which every other output needs too); the rates gd, gq only for
 * PRIM_GAMMA, the gradients only for PRIM_JAC.  An output not asked for
 * is 0 or its true value, never undefined (ra_eval copies them all).  The
 * Newton iterations want Phi alone, the hot path: prim_phi gives it
 * without the output record.
 */
#include "prim.h"
#include "../util/vec.h"

#include <math.h>
#include <string.h>

const char *const prim_type_names[PRIM_NTYPES] = { "DP1", "DP2", "D", "CD", "ROT", "CPL" };

/* g = A s, gd = A (w x s), gq = A (w x (w x s)); gd/gq may be NULL. */
static void bvec(const struct bstate *b, const double *s, double *g,
		 double *gd, double *gq)
{
	m3_mulv(g, b->A, s);
	if (!gd)
		return;
	double ws[3], wws[3];
	v3_cross(ws, b->w, s);
	m3_mulv(gd, b->A, ws);
	if (!gq)
		return;
	v3_cross(wws, b->w, ws);
	m3_mulv(gq, b->A, wws);
}

/* out = s x (A^T w): gradient of w . (A s) with respect to theta */
static void rgrad(double *out, const struct bstate *b, const double *s,
		  const double *w)
{
	double t[3];
	m3_tmulv(t, b->A, w);
	v3_cross(out, s, t);
}

static void target(const struct prim *p, double t, double f[3])
{
	f[0] = p->f0;
	f[1] = f[2] = 0.0;
	if (p->f) {
		double g[3];
		func_eval(p->f, t, g);
		f[0] += g[0];
		f[1] = g[1];
		f[2] = g[2];
	}
}

/* d = r_j + A_j s_j - r_i - A_i s_i and, when dd is not NULL, its rates */
static void dvec(const struct prim *p, const struct bstate *bi,
		 const struct bstate *bj, double *d, double *dd, double *dq)
{
	double gi[3], gj[3];
	if (!dd) {
		bvec(bi, p->si, gi, 0, 0);
		bvec(bj, p->sj, gj, 0, 0);
		for (int k = 0; k < 3; k++)
			d[k] = bj->r[k] + gj[k] - bi->r[k] - gi[k];
		return;
	}
	double gid[3], giq[3], gjd[3], gjq[3];
	bvec(bi, p->si, gi, gid, giq);
	bvec(bj, p->sj, gj, gjd, gjq);
	for (int k = 0; k < 3; k++) {
		d[k] = bj->r[k] + gj[k] - bi->r[k] - gi[k];
		dd[k] = bj->v[k] + gjd[k] - bi->v[k] - gid[k];
		dq[k] = gjq[k] - giq[k];
	}
}

/* rates only when gamma is wanted: RATE(x) is x then, NULL otherwise */
#define RATE(x) (rates ? (x) : 0)

static void eval_dp1(const struct prim *p, const struct bstate *bi,
		     const struct bstate *bj, const double f[3], unsigned what,
		     struct prim_out *o)
{
	int rates = (what & PRIM_GAMMA) != 0;
	double ai[3], aid[3], aiq[3], aj[3], ajd[3], ajq[3];
	bvec(bi, p->ai, ai, RATE(aid), aiq);
	bvec(bj, p->aj, aj, RATE(ajd), ajq);
	o->phi = v3_dot(ai, aj) - f[0];
	if (what & PRIM_JAC) {
		v3_set(o->J[0], 0, 0, 0);
		v3_set(o->J[2], 0, 0, 0);
		rgrad(o->J[1], bi, p->ai, aj);
		rgrad(o->J[3], bj, p->aj, ai);
	}
	o->nu = f[1];
	if (rates)
		o->gamma = f[2] - (v3_dot(aj, aiq) + v3_dot(ai, ajq) + 2.0 * v3_dot(aid, ajd));
}

static void eval_dp2(const struct prim *p, const struct bstate *bi,
		     const struct bstate *bj, const double f[3], unsigned what,
		     struct prim_out *o)
{
	int rates = (what & PRIM_GAMMA) != 0;
	double ai[3], aid[3], aiq[3], d[3], dd[3], dq[3];
	bvec(bi, p->ai, ai, RATE(aid), aiq);
	dvec(p, bi, bj, d, RATE(dd), dq);
	o->phi = v3_dot(ai, d) - f[0];
	if (what & PRIM_JAC) {
		double t[3];
		v3_scale(o->J[0], -1.0, ai);
		v3_copy(o->J[2], ai);
		rgrad(o->J[1], bi, p->ai, d);
		rgrad(t, bi, p->si, ai);
		v3_sub(o->J[1], o->J[1], t);
		rgrad(o->J[3], bj, p->sj, ai);
	}
	o->nu = f[1];
	if (rates)
		o->gamma = f[2] - (v3_dot(d, aiq) + 2.0 * v3_dot(aid, dd) + v3_dot(ai, dq));
}

static void eval_d(const struct prim *p, const struct bstate *bi,
		   const struct bstate *bj, const double f[3], unsigned what,
		   struct prim_out *o)
{
	int rates = (what & PRIM_GAMMA) != 0;
	double d[3], dd[3], dq[3];
	dvec(p, bi, bj, d, RATE(dd), dq);
	o->phi = v3_dot(d, d) - f[0];
	if (what & PRIM_JAC) {
		v3_scale(o->J[0], -2.0, d);
		v3_scale(o->J[2], 2.0, d);
		rgrad(o->J[1], bi, p->si, d);
		v3_scale(o->J[1], -2.0, o->J[1]);
		rgrad(o->J[3], bj, p->sj, d);
		v3_scale(o->J[3], 2.0, o->J[3]);
	}
	o->nu = f[1];
	if (rates)
		o->gamma = f[2] - 2.0 * (v3_dot(dd, dd) + v3_dot(d, dq));
}

static void eval_cd(const struct prim *p, const struct bstate *bi,
		    const struct bstate *bj, const double f[3], unsigned what,
		    struct prim_out *o)
{
	int rates = (what & PRIM_GAMMA) != 0;
	double d[3], dd[3], dq[3];
	dvec(p, bi, bj, d, RATE(dd), dq);
	o->phi = v3_dot(p->c, d) - f[0];
	if (what & PRIM_JAC) {
		v3_scale(o->J[0], -1.0, p->c);
		v3_copy(o->J[2], p->c);
		rgrad(o->J[1], bi, p->si, p->c);
		v3_scale(o->J[1], -1.0, o->J[1]);
		rgrad(o->J[3], bj, p->sj, p->c);
	}
	o->nu = f[1];
	if (rates)
		o->gamma = f[2] - v3_dot(p->c, dq);
}

/* ROT's marker in body i: ub = y cos f - x sin f and, when pb is not
 * NULL, pb = y sin f + x cos f (so d ub / df = -pb) */
static void rot_ub(const struct prim *p, double f, double ub[3], double pb[3])
{
	double c = cos(f), s = sin(f);
	for (int k = 0; k < 3; k++) {
		ub[k] = p->yi[k] * c - p->ai[k] * s;
		if (pb)
			pb[k] = p->yi[k] * s + p->ai[k] * c;
	}
}

/* ROT: u(t) = A_i ub(t), ub = y cos f - x sin f; Phi = u . a_j = sin(angle - f) */
static void eval_rot(const struct prim *p, const struct bstate *bi,
		     const struct bstate *bj, const double f[3], unsigned what,
		     struct prim_out *o)
{
	int rates = (what & PRIM_GAMMA) != 0;
	double ub[3], pb[3], ub1[3], ub2[3];
	rot_ub(p, f[0], ub, pb);
	for (int k = 0; k < 3; k++) {
		ub1[k] = -pb[k] * f[1];
		ub2[k] = -ub[k] * f[1] * f[1] - pb[k] * f[2];
	}
	double u[3], aj[3], ajd[3], ajq[3];
	bvec(bi, ub, u, 0, 0);
	bvec(bj, p->aj, aj, RATE(ajd), ajq);
	o->phi = v3_dot(u, aj);
	if (what & PRIM_JAC) {
		v3_set(o->J[0], 0, 0, 0);
		v3_set(o->J[2], 0, 0, 0);
		rgrad(o->J[1], bi, ub, aj);
		rgrad(o->J[3], bj, p->aj, u);
	}
	if (what & PRIM_NU) {
		double u1g[3];
		m3_mulv(u1g, bi->A, ub1);
		o->nu = -v3_dot(u1g, aj);
	}
	if (!rates)
		return;
	/* u-dot = A_i (w x ub + ub'), u-ddot (no wdot) = A_i (w x (w x ub) + 2 w x ub' + ub'') */
	double wu[3], wwu[3], wu1[3], tmp[3], ud[3], uq[3];
	v3_cross(wu, bi->w, ub);
	v3_cross(wwu, bi->w, wu);
	v3_cross(wu1, bi->w, ub1);
	v3_add(tmp, wu, ub1);
	m3_mulv(ud, bi->A, tmp);
	for (int k = 0; k < 3; k++)
		tmp[k] = wwu[k] + 2.0 * wu1[k] + ub2[k];
	m3_mulv(uq, bi->A, tmp);
	o->gamma = -(v3_dot(uq, aj) + 2.0 * v3_dot(ud, ajd) + v3_dot(u, ajq));
}

#undef RATE

void prim_eval(const struct prim *p, const struct bstate *bi,
	       const struct bstate *bj, double t, unsigned what,
	       struct prim_out *o)
{
	double f[3];
	target(p, t, f);
	o->nu = 0.0;
	o->gamma = 0.0;
	switch (p->type) {
	case PRIM_DP1: eval_dp1(p, bi, bj, f, what, o); break;
	case PRIM_DP2: eval_dp2(p, bi, bj, f, what, o); break;
	case PRIM_D: eval_d(p, bi, bj, f, what, o); break;
	case PRIM_CD: eval_cd(p, bi, bj, f, what, o); break;
	case PRIM_ROT: eval_rot(p, bi, bj, f, what, o); break;
	default: break;
	}
}

double prim_phi(const struct prim *p, const struct bstate *bi, const struct bstate *bj,
		double t)
{
	double f[3], a[3], b[3], d[3], ub[3];
	target(p, t, f);
	double f0 = f[0];
	switch (p->type) {
	case PRIM_DP1:
		bvec(bi, p->ai, a, 0, 0);
		bvec(bj, p->aj, b, 0, 0);
		return v3_dot(a, b) - f0;
	case PRIM_DP2:
		bvec(bi, p->ai, a, 0, 0);
		dvec(p, bi, bj, d, 0, 0);
		return v3_dot(a, d) - f0;
	case PRIM_D:
		dvec(p, bi, bj, d, 0, 0);
		return v3_dot(d, d) - f0;
	case PRIM_CD:
		dvec(p, bi, bj, d, 0, 0);
		return v3_dot(p->c, d) - f0;
	case PRIM_ROT:
		rot_ub(p, f0, ub, NULL);
		bvec(bi, ub, a, 0, 0);
		bvec(bj, p->aj, b, 0, 0);
		return v3_dot(a, b);
	default:
		return 0.0;
	}
}

/* K += lam s~ (A^T u)~: the theta-derivative of lam s x (A^T u) for fixed u
 * (d(A^T u) = (A^T u)~ dtheta since A^T <- exp(-theta~) A^T) */
static void hess_add(double *K, double lam, const double *s, const struct bstate *b,
		     const double *u)
{
	double au[3], S[9], U[9], T[9];
	m3_tmulv(au, b->A, u);
	m3_skew(S, s);
	m3_skew(U, au);
	m3_mul(T, S, U);
	for (int e = 0; e < 9; e++)
		K[e] += lam * T[e];
}

/* Derivations (notation of the file header): for CD, grad_theta_i Phi =
 * -s_i x (A_i^T c), c fixed; for DP1 a_i x (A_i^T a_j), a_j fixed for
 * theta_i; for D, -2 s_i x (A_i^T d) with A_i^T d = A_i^T w - s_i,
 * w = r_j + A_j s_j - r_i free of theta_i, so u = w = d + A_i s_i; on side j
 * A_j^T d = A_j^T w' + s_j, u = d - A_j s_j; for DP2 the a_i x (A_i^T d)
 * part as for D (the s_i x a-bar_i part is constant). */
void prim_hess(const struct prim *p, const struct bstate *bi, const struct bstate *bj,
	       double t, double lam, double Ki[9], double Kj[9], double *kri, double *krj)
{
	double f[3], u[3], g[3], d[3];
	memset(Ki, 0, 9 * sizeof(double));
	memset(Kj, 0, 9 * sizeof(double));
	*kri = *krj = 0.0;
	switch (p->type) {
	case PRIM_CD:
		hess_add(Ki, -lam, p->si, bi, p->c);
		hess_add(Kj, lam, p->sj, bj, p->c);
		break;
	case PRIM_DP1:
		m3_mulv(u, bj->A, p->aj);
		hess_add(Ki, lam, p->ai, bi, u);
		m3_mulv(u, bi->A, p->ai);
		hess_add(Kj, lam, p->aj, bj, u);
		break;
	case PRIM_ROT: {
		double ub[3];
		target(p, t, f);
		rot_ub(p, f[0], ub, NULL);
		m3_mulv(u, bj->A, p->aj);
		hess_add(Ki, lam, ub, bi, u);
		m3_mulv(u, bi->A, ub);
		hess_add(Kj, lam, p->aj, bj, u);
		break;
	}
	case PRIM_D:
		dvec(p, bi, bj, d, 0, 0);
		m3_mulv(g, bi->A, p->si);
		v3_add(u, d, g);
		hess_add(Ki, -2.0 * lam, p->si, bi, u);
		m3_mulv(g, bj->A, p->sj);
		v3_sub(u, d, g);
		hess_add(Kj, 2.0 * lam, p->sj, bj, u);
		*kri = *krj = 2.0 * lam;
		break;
	case PRIM_DP2:
		dvec(p, bi, bj, d, 0, 0);
		m3_mulv(g, bi->A, p->si);
		v3_add(u, d, g);
		hess_add(Ki, lam, p->ai, bi, u);
		m3_mulv(u, bi->A, p->ai);
		hess_add(Kj, lam, p->sj, bj, u);
		break;
	default:
		break;
	}
}

/* ---- first and second derivatives for analytic integration Jacobians ----
 *
 * Seed 001 §3 (eqs. 26-35) builds J1 = d vddot / d v and J2 = d vddot /
 * d vdot from derivatives of the constraint terms; prim_lin gives them per
 * primitive.  Every Phi and gamma above is a sum of dot products of vectors
 * of a few kinds, each a function of the state z = (r_i, theta_i, r_j,
 * theta_j) (12) and zdot = (v_i, w_i, v_j, w_j) (12), w in body frames:
 *   rot    A s              point  r + A s
 *   rotd   A (w x s)        pointd v + A (w x s)
 *   rotq   A (w x (w x s))
 * with s constant in the body (ROT: a function of t only).  Under
 * A <- A exp(dtheta~), d(A c) = -A c~ dtheta for any body vector c; with w
 * held (it is a state of its own), d/dw (w x s) = -s~ and d/dw (w x (w x
 * s)) = -(w x s)~ - w~ s~.  The product rule then gives the gradients of
 * gamma exactly from first derivatives alone.  The second derivative of Phi
 * is taken in the nested sense of ra_geo: H[a][b] = d/dz_b of the a-th
 * entry of Phi's gradient, the gradient itself taken at the moved state
 * (so H is the derivative of prim_eval's J along a motion z_b).  For a dot
 * product x . y that is Gx^T Gy + Gy^T Gx plus, for every rotating part
 * A c of x, d/dth_b (A exp(th_a~) c) . y = A (e_b x (e_a x c)) . y, i.e.
 * the block yb c^T - (yb . c) I on (theta, theta) of that body, yb = A^T y
 * (and the same with x and y exchanged). */

struct lvec {
	double v[3];
	double Gz[3][12], Gd[3][12];	/* d v / d z, d v / d zdot */
	int nr;
	int rs[4];			/* side (0: i, 1: j) of each rotating part */
	double rc[4][3];		/* its body vector c (the part is A c) */
	const double *rA[4];		/* its A */
};

static void lv_zero(struct lvec *x)
{
	memset(x, 0, sizeof(*x));
}

/* x += sign (-A c~) into the 3 columns starting at col of G */
static void put_rot(double G[3][12], int col, const double *A, const double *c, double sign)
{
	double C[9], M[9];
	m3_skew(C, c);
	m3_mul(M, A, C);
	for (int a = 0; a < 3; a++)
		for (int b = 0; b < 3; b++)
			G[a][col + b] -= sign * M[3 * a + b];
}

/* x += sign * (a vector of the given kind of side `side` of body state b) */
enum lv_kind { LV_ROT, LV_POINT, LV_ROTD, LV_POINTD, LV_ROTQ };

static void lv_add(struct lvec *x, enum lv_kind kind, int side, const struct bstate *b,
		   int ground, const double *c, double sign)
{
	int o = 6 * side;
	double wc[3], wwc[3], g[3];
	v3_cross(wc, b->w, c);
	v3_cross(wwc, b->w, wc);
	switch (kind) {
	case LV_ROT:
	case LV_POINT:
		m3_mulv(g, b->A, c);
		if (kind == LV_POINT)
			v3_add(g, g, b->r);
		break;
	case LV_ROTD:
	case LV_POINTD:
		m3_mulv(g, b->A, wc);
		if (kind == LV_POINTD)
			v3_add(g, g, b->v);
		break;
	default:
		m3_mulv(g, b->A, wwc);
		break;
	}
	v3_axpy(x->v, sign, g);
	if (ground)
		return;
	switch (kind) {
	case LV_POINT:
		for (int a = 0; a < 3; a++)
			x->Gz[a][o + a] += sign;
		/* fall through */
	case LV_ROT:
		put_rot(x->Gz, o + 3, b->A, c, sign);
		x->rs[x->nr] = side;
		v3_scale(x->rc[x->nr], sign, c);
		x->rA[x->nr++] = b->A;
		break;
	case LV_POINTD:
		for (int a = 0; a < 3; a++)
			x->Gd[a][o + a] += sign;
		/* fall through */
	case LV_ROTD:
		put_rot(x->Gz, o + 3, b->A, wc, sign);
		put_rot(x->Gd, o + 3, b->A, c, sign);
		break;
	default: {
		/* d/dw A (w x (w x c)) = A (-(w x c)~ - w~ c~) */
		double C[9], W[9], WC[9], M[9];
		put_rot(x->Gz, o + 3, b->A, wwc, sign);
		m3_skew(C, c);
		m3_skew(W, b->w);
		m3_mul(WC, W, C);
		m3_skew(M, wc);
		for (int e = 0; e < 9; e++)
			M[e] += WC[e];
		m3_mul(C, b->A, M);
		for (int a = 0; a < 3; a++)
			for (int k = 0; k < 3; k++)
				x->Gd[a][o + 3 + k] -= sign * C[3 * a + k];
		break;
	}
	}
}

/* Gradients of x . y into gz, gd (added, times s); with H (12 x 12,
 * row-major) the nested second derivative of x . y in z too. */
static void lv_dot(const struct lvec *x, const struct lvec *y, double s, double *val,
		   double *gz, double *gd, double *H)
{
	*val += s * v3_dot(x->v, y->v);
	for (int k = 0; k < 12; k++) {
		double a = 0.0, b = 0.0;
		for (int c = 0; c < 3; c++) {
			a += x->Gz[c][k] * y->v[c] + y->Gz[c][k] * x->v[c];
			b += x->Gd[c][k] * y->v[c] + y->Gd[c][k] * x->v[c];
		}
		if (gz)
			gz[k] += s * a;
		if (gd)
			gd[k] += s * b;
	}
	if (!H)
		return;
	/* Gx^T Gy + Gy^T Gx is zero when x or y does not move with z (the
	 * constant axis of a CD primitive, three of a spherical joint's
	 * rows): left out */
	int mx = 0, my = 0;
	for (int c = 0; c < 3; c++)
		for (int k = 0; k < 12; k++) {
			mx |= x->Gz[c][k] != 0.0;
			my |= y->Gz[c][k] != 0.0;
		}
	for (int a = 0; a < 12 && mx && my; a++)
		for (int b = 0; b < 12; b++) {
			double h = 0.0;
			for (int c = 0; c < 3; c++)
				h += x->Gz[c][a] * y->Gz[c][b] + x->Gz[c][b] * y->Gz[c][a];
			H[12 * a + b] += s * h;
		}
	for (int pass = 0; pass < 2; pass++) {
		const struct lvec *u = pass ? y : x, *o = pass ? x : y;
		for (int k = 0; k < u->nr; k++) {
			double yb[3];
			const double *c = u->rc[k];
			int t0 = 6 * u->rs[k] + 3;
			m3_tmulv(yb, u->rA[k], o->v);
			double yc = v3_dot(yb, c);
			for (int a = 0; a < 3; a++)
				for (int b = 0; b < 3; b++)
					H[12 * (t0 + a) + t0 + b] += s * (yb[a] * c[b] - (a == b ? yc : 0.0));
		}
	}
}

static int uses_points(const struct prim *p)
{
	return p->type == PRIM_DP2 || p->type == PRIM_D || p->type == PRIM_CD;
}

/* d = r_j + A_j s_j - r_i - A_i s_i of p and its first and second rates
 * (the parts without a second derivative of the state) */
static void lin_points(const struct prim *p, const struct bstate *bi, const struct bstate *bj,
		       struct lvec *D, struct lvec *Dd, struct lvec *Dq)
{
	int gi = p->bi < 0, gj = p->bj < 0;
	lv_zero(D);
	lv_zero(Dd);
	lv_zero(Dq);
	if (!uses_points(p))
		return;
	lv_add(D, LV_POINT, 1, bj, gj, p->sj, 1.0);
	lv_add(D, LV_POINT, 0, bi, gi, p->si, -1.0);
	lv_add(Dd, LV_POINTD, 1, bj, gj, p->sj, 1.0);
	lv_add(Dd, LV_POINTD, 0, bi, gi, p->si, -1.0);
	lv_add(Dq, LV_ROTQ, 1, bj, gj, p->sj, 1.0);
	lv_add(Dq, LV_ROTQ, 0, bi, gi, p->si, -1.0);
}

static void lin_one(const struct prim *p, const struct bstate *bi, const struct bstate *bj,
		    double t, const struct lvec *pD, const struct lvec *pDd,
		    const struct lvec *pDq, struct prim_lin *o);

void prim_lin(const struct prim *p, const struct bstate *bi, const struct bstate *bj,
	      double t, struct prim_lin *o)
{
	struct lvec D, Dd, Dq;
	lin_points(p, bi, bj, &D, &Dd, &Dq);
	lin_one(p, bi, bj, t, &D, &Dd, &Dq, o);
}

void prim_lin_joint(const struct prim *p, int np, const struct bstate *bi,
		    const struct bstate *bj, double t, struct prim_lin *o)
{
	struct lvec D, Dd, Dq;
	int have = -1;	/* the primitive whose points D, Dd, Dq are */
	for (int i = 0; i < np; i++) {
		if (have < 0 || (uses_points(&p[i]) &&
				 (!uses_points(&p[have]) || p[i].bi != p[have].bi ||
				  p[i].bj != p[have].bj ||
				  memcmp(p[i].si, p[have].si, sizeof p[i].si) != 0 ||
				  memcmp(p[i].sj, p[have].sj, sizeof p[i].sj) != 0))) {
			lin_points(&p[i], bi, bj, &D, &Dd, &Dq);
			have = i;
		}
		lin_one(&p[i], bi, bj, t, &D, &Dd, &Dq, &o[i]);
	}
}

/* prim_lin of p with d and its rates given (zero, unused, for a primitive
 * without points) */
static void lin_one(const struct prim *p, const struct bstate *bi, const struct bstate *bj,
		    double t, const struct lvec *pD, const struct lvec *pDd,
		    const struct lvec *pDq, struct prim_lin *o)
{
	double f[3];
	int gi = p->bi < 0, gj = p->bj < 0;
	target(p, t, f);
	memset(o, 0, sizeof(*o));
	struct lvec A, B, Ad, Aq, Bd, Bq;
	switch (p->type) {
	case PRIM_DP1:
	case PRIM_ROT: {
		double ub[3], pb[3], u1[3], u2[3];
		const double *ci = p->ai;
		if (p->type == PRIM_ROT) {
			rot_ub(p, f[0], ub, pb);
			for (int k = 0; k < 3; k++) {
				u1[k] = -pb[k] * f[1];
				u2[k] = -ub[k] * f[1] * f[1] - pb[k] * f[2];
			}
			ci = ub;
		}
		lv_zero(&A); lv_zero(&Ad); lv_zero(&Aq);
		lv_zero(&B); lv_zero(&Bd); lv_zero(&Bq);
		lv_add(&A, LV_ROT, 0, bi, gi, ci, 1.0);
		lv_add(&Ad, LV_ROTD, 0, bi, gi, ci, 1.0);
		lv_add(&Aq, LV_ROTQ, 0, bi, gi, ci, 1.0);
		if (p->type == PRIM_ROT) {
			lv_add(&Ad, LV_ROT, 0, bi, gi, u1, 1.0);
			lv_add(&Aq, LV_ROTD, 0, bi, gi, u1, 2.0);
			lv_add(&Aq, LV_ROT, 0, bi, gi, u2, 1.0);
		}
		lv_add(&B, LV_ROT, 1, bj, gj, p->aj, 1.0);
		lv_add(&Bd, LV_ROTD, 1, bj, gj, p->aj, 1.0);
		lv_add(&Bq, LV_ROTQ, 1, bj, gj, p->aj, 1.0);
		lv_dot(&A, &B, 1.0, &o->phi, o->J, NULL, o->H);
		o->nu = f[1];
		if (p->type == PRIM_ROT) {
			/* nu = -(A_i ub') . a_j */
			struct lvec U1;
			lv_zero(&U1);
			lv_add(&U1, LV_ROT, 0, bi, gi, u1, 1.0);
			o->nu = 0.0;
			lv_dot(&U1, &B, -1.0, &o->nu, o->nz, NULL, NULL);
		}
		o->gamma = p->type == PRIM_ROT ? 0.0 : f[2];
		lv_dot(&B, &Aq, -1.0, &o->gamma, o->gz, o->gd, NULL);
		lv_dot(&A, &Bq, -1.0, &o->gamma, o->gz, o->gd, NULL);
		lv_dot(&Ad, &Bd, -2.0, &o->gamma, o->gz, o->gd, NULL);
		if (p->type == PRIM_DP1)
			o->phi -= f[0];
		break;
	}
	case PRIM_DP2:
		o->nu = f[1];
		lv_zero(&A); lv_zero(&Ad); lv_zero(&Aq);
		lv_add(&A, LV_ROT, 0, bi, gi, p->ai, 1.0);
		lv_add(&Ad, LV_ROTD, 0, bi, gi, p->ai, 1.0);
		lv_add(&Aq, LV_ROTQ, 0, bi, gi, p->ai, 1.0);
		lv_dot(&A, pD, 1.0, &o->phi, o->J, NULL, o->H);
		o->phi -= f[0];
		o->gamma = f[2];
		lv_dot(pD, &Aq, -1.0, &o->gamma, o->gz, o->gd, NULL);
		lv_dot(&Ad, pDd, -2.0, &o->gamma, o->gz, o->gd, NULL);
		lv_dot(&A, pDq, -1.0, &o->gamma, o->gz, o->gd, NULL);
		break;
	case PRIM_D:
		o->nu = f[1];
		lv_dot(pD, pD, 1.0, &o->phi, o->J, NULL, o->H);
		o->phi -= f[0];
		o->gamma = f[2];
		lv_dot(pDd, pDd, -2.0, &o->gamma, o->gz, o->gd, NULL);
		lv_dot(pD, pDq, -2.0, &o->gamma, o->gz, o->gd, NULL);
		break;
	case PRIM_CD:
		o->nu = f[1];
		lv_zero(&A);
		v3_copy(A.v, p->c);
		lv_dot(&A, pD, 1.0, &o->phi, o->J, NULL, o->H);
		o->phi -= f[0];
		o->gamma = f[2];
		lv_dot(&A, pDq, -1.0, &o->gamma, o->gz, o->gd, NULL);
		break;
	default:
		break;
	}
}
