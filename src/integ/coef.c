/* coef.c - coefficients of the seed-004 schemes (004 §2, eqs. 2-7) and of
 * their derivative predictors (004 §3.1, eqs. 12-17).
 *
 * "reference" below is shared/reference/integrator-coefficients.md; its
 * sections A-F hold every formula used here, and its numeric tables are
 * what tests/unit/test_coef.c compares against.
 *
 * Where a method defines gamma (or a node) by an equation, the equation is
 * solved here in double precision for the rho asked for.  The MBDyn tables
 * of reference §E serve only as starting guesses (interpolated linearly in
 * rho between the tabulated 0, 0.1, ..., 1), except for the free
 * parameters c2, c3 of MSSTH4 and c3 of MSSTH5, which have no defining
 * equation: those are interpolated linearly in rho and used as nodes.
 */
#include "coef.h"

#include <complex.h>
#include <float.h>
#include <math.h>
#include <string.h>

/* Tableaux with an entry larger than this are refused.  The MSSTH
 * tableaux have poles in rho: MSSTH3 at ~0.6947 (c2 = 2 gamma in the
 * reference §D formula itself), MSSTH4 at ~0.664 and ~0.755 and MSSTH5
 * at ~0.556 and ~0.897 (the linearly interpolated free nodes make the
 * row conditions singular; at the tabulated rho they are regular).  Next
 * to a pole the entries blow up and the stages cancel to a few digits;
 * this bound refuses a window of width ~1e-4 around each. */
#define COEF_AMAX 1e4

/* ---------------------------------------------------------------- tools */

/* value at rho of a table given at rho = 0, 0.1, ..., 1 (linear) */
static double tab_at(const double t[11], double rho)
{
	int i = (int)floor(rho * 10.0);
	if (i < 0)
		i = 0;
	if (i > 9)
		i = 9;
	double f = rho * 10.0 - i;
	return t[i] + f * (t[i + 1] - t[i]);
}

/* p(x) = sum_{i<=n} p[i] x^i and its derivative, in long double so that
 * the roots below come out correct to the last bit of a double */
static long double poly(const long double *p, int n, long double x, long double *dp)
{
	long double v = p[n], d = 0;
	for (int i = n - 1; i >= 0; i--) {
		d = d * x + v;
		v = v * x + p[i];
	}
	if (dp)
		*dp = d;
	return v;
}

/* The real root of p nearest to guess: a bracket grown from guess +- 1e-4
 * (doubling up to +- 0.1), then Newton kept inside the bracket (bisection
 * when a Newton step leaves it).  Returns 0, or -1 without a bracket. */
static int poly_root(const long double *p, int n, double guess, long double *x)
{
	long double lo = 0, hi = 0, flo = 0, fhi = 0;
	int ok = 0;
	for (double d = 1e-4; d <= 0.1 && !ok; d *= 2) {
		lo = guess - d;
		hi = guess + d;
		flo = poly(p, n, lo, NULL);
		fhi = poly(p, n, hi, NULL);
		ok = flo * fhi <= 0;
	}
	if (!ok)
		return -1;
	long double r = guess;
	for (int it = 0; it < 200; it++) {
		long double d, f = poly(p, n, r, &d);
		if (f == 0)
			break;
		if ((f < 0) == (flo < 0))
			lo = r, flo = f;
		else
			hi = r;
		long double rn = r - f / d;
		if (!(rn > fminl(lo, hi) && rn < fmaxl(lo, hi)))
			rn = (lo + hi) / 2;
		long double step = fabsl(rn - r);
		r = rn;
		if (step <= 2 * LDBL_EPSILON * fabsl(r) || fabsl(hi - lo) <= 2 * LDBL_EPSILON * fabsl(r))
			break;
	}
	*x = r;
	return 0;
}

/* Secant iteration on f from x0, x1 until the step is below tol |x|; in
 * the round-off noise near the root the steps stop shrinking, so the
 * iterate of smallest |f| is returned.  Returns 0, or -1 if f is not
 * finite or (no exact zero hit) the steps never fell below 1e-10 |x|. */
static int secant(long double (*f)(long double, void *), void *ctx, long double x0,
		  long double x1, long double tol, long double *x)
{
	long double f0 = f(x0, ctx), f1 = f(x1, ctx);
	long double best = x1, fbest = fabsl(f1), dmin = fabsl(x1 - x0);
	for (int it = 0; it < 60; it++) {
		if (!isfinite(f0) || !isfinite(f1))
			return -1;
		if (f1 == 0) {
			dmin = 0;	/* an exact root */
			break;
		}
		if (f1 == f0)
			break;
		long double x2 = x1 - f1 * (x1 - x0) / (f1 - f0);
		x0 = x1, f0 = f1;
		x1 = x2, f1 = f(x1, ctx);
		if (fabsl(f1) < fbest)
			best = x1, fbest = fabsl(f1);
		dmin = fminl(dmin, fabsl(x1 - x0));
		if (fabsl(x1 - x0) <= tol * fabsl(x1))
			break;
	}
	*x = best;
	return isfinite(fbest) && dmin <= 1e-10L * fabsl(best) ? 0 : -1;
}

/* Solve M x = r (n x n, row-major, n <= 8) by elimination with partial
 * pivoting; r is overwritten by x.  Returns -1 if M is singular. */
static int gauss(int n, double *M, double *r)
{
	for (int k = 0; k < n; k++) {
		int p = k;
		for (int i = k + 1; i < n; i++)
			if (fabs(M[i * n + k]) > fabs(M[p * n + k]))
				p = i;
		if (M[p * n + k] == 0.0)
			return -1;
		if (p != k) {
			for (int j = 0; j < n; j++) {
				double t = M[k * n + j];
				M[k * n + j] = M[p * n + j], M[p * n + j] = t;
			}
			double t = r[k];
			r[k] = r[p], r[p] = t;
		}
		for (int i = k + 1; i < n; i++) {
			double l = M[i * n + k] / M[k * n + k];
			for (int j = k; j < n; j++)
				M[i * n + j] -= l * M[k * n + j];
			r[i] -= l * r[k];
		}
	}
	for (int k = n - 1; k >= 0; k--) {
		for (int j = k + 1; j < n; j++)
			r[k] -= M[k * n + j] * r[j];
		r[k] /= M[k * n + k];
	}
	return 0;
}

/* ------------------------------------------------- DIRK tableau helpers */

static void dirk_init(struct coef *c, int s, double g, int order)
{
	c->kind = COEF_DIRK;
	c->s = s;
	c->gamma = g;
	c->order = order;
	for (int i = 1; i < s; i++)
		c->A[i][i] = g;
	c->c[s - 1] = 1.0;
}

/* a_i0 = c_i - sum_{j>=1} a_ij: the row sums are the nodes */
static void row_fill0(struct coef *c, int i)
{
	double s = 0;
	for (int j = 1; j <= i; j++)
		s += c->A[i][j];
	c->A[i][0] = c->c[i] - s;
}

/* (A c^p)_i, and b^T v with b the last row (stiffly accurate) */
static void acp(const struct coef *c, int p, double *v)
{
	for (int i = 0; i < c->s; i++) {
		v[i] = 0;
		for (int j = 0; j <= i; j++)
			v[i] += c->A[i][j] * pow(c->c[j], p);
	}
}

static double bdot(const struct coef *c, const double *v)
{
	double s = 0;
	for (int j = 0; j < c->s; j++)
		s += c->A[c->s - 1][j] * v[j];
	return s;
}

/* Order conditions (rooted trees, b = last row) that the MSSTH rows are
 * solved from (reference §D; 004 §2.3, Appendix): */
static double tree_Ac2(const struct coef *c)	/* b^T A c^2 = 1/12 */
{
	double v[COEF_MAXS];
	acp(c, 2, v);
	return bdot(c, v) - 1.0 / 12;
}

static double tree_Ac3(const struct coef *c)	/* b^T A c^3 = 1/20 */
{
	double v[COEF_MAXS];
	acp(c, 3, v);
	return bdot(c, v) - 1.0 / 20;
}

static double tree_cAc2(const struct coef *c)	/* b^T (c .* A c^2) = 1/15 */
{
	double v[COEF_MAXS];
	acp(c, 2, v);
	for (int i = 0; i < c->s; i++)
		v[i] *= c->c[i];
	return bdot(c, v) - 1.0 / 15;
}

static double tree_AAc2(const struct coef *c)	/* b^T A A c^2 = 1/60 */
{
	double v[COEF_MAXS], w[COEF_MAXS];
	acp(c, 2, v);
	for (int i = 0; i < c->s; i++) {
		w[i] = 0;
		for (int j = 0; j <= i; j++)
			w[i] += c->A[i][j] * v[j];
	}
	return bdot(c, w) - 1.0 / 60;
}

/* stage order 2 of row i: sum_j a_ij c_j = c_i^2 / 2 */
static double stage2(const struct coef *c, int i)
{
	double s = 0;
	for (int j = 0; j <= i; j++)
		s += c->A[i][j] * c->c[j];
	return s - 0.5 * c->c[i] * c->c[i];
}

/* Unknown entries a_{row[k], col[k]} (col >= 1; a_i0 follows from the row
 * sum) fixed by n conditions that are affine in them: the Jacobian is
 * probed with unit vectors (exact for affine maps up to rounding). */
struct unknowns {
	int n, row[5], col[5];
	void (*cond)(const struct coef *, double *);
};

static void put(struct coef *c, const struct unknowns *u, const double *x)
{
	for (int k = 0; k < u->n; k++)
		c->A[u->row[k]][u->col[k]] = x[k];
	for (int k = 0; k < u->n; k++)
		row_fill0(c, u->row[k]);
}

static int solve_affine(struct coef *c, const struct unknowns *u)
{
	int n = u->n;
	double x[5] = { 0 }, f0[5], fk[5], M[25];
	put(c, u, x);
	u->cond(c, f0);
	for (int k = 0; k < n; k++) {
		x[k] = 1.0;
		put(c, u, x);
		u->cond(c, fk);
		for (int i = 0; i < n; i++)
			M[i * n + k] = fk[i] - f0[i];
		x[k] = 0.0;
	}
	for (int i = 0; i < n; i++)
		x[i] = -f0[i];
	if (gauss(n, M, x))
		return -1;
	put(c, u, x);
	return 0;
}

/* b from the quadrature conditions sum_j b_j c_j^(k-1) = 1/k, k = 1..s-1,
 * with b_{s-1} = gamma (last row of the tableau) */
static int quad_weights(struct coef *c)
{
	int n = c->s - 1, l = c->s - 1;
	double M[64], r[8];
	for (int k = 1; k <= n; k++) {
		for (int j = 0; j < n; j++)
			M[(k - 1) * n + j] = pow(c->c[j], k - 1);
		r[k - 1] = 1.0 / k - c->gamma;
	}
	if (gauss(n, M, r))
		return -1;
	for (int j = 0; j < n; j++)
		c->A[l][j] = r[j];
	return 0;
}

/* Extended-precision tableau: the MSSTC5 gamma equation is a coefficient
 * of |R(iw)|^2 - 1 that cancels heavily, so it is evaluated in long double
 * (x86-64: 64-bit mantissa) and gamma is rounded to double at the end. */
struct ltab {
	int s;
	long double A[COEF_MAXS][COEF_MAXS];
};

/* Stability function R(z) = P(z)/Q(z) = det(I - zA + z e b^T)/det(I - zA)
 * of the tableau (b = last row): Q = prod_i (1 - a_ii z); the power series
 * R = 1 + sum_k (b^T A^k e) z^(k+1) times Q gives P exactly up to degree
 * s, the largest degree P can have.  P, Q: coefficients 0..s. */
static void stab_poly(const struct ltab *t, long double *P, long double *Q)
{
	int s = t->s;
	long double r[COEF_MAXS + 1], v[COEF_MAXS], w[COEF_MAXS];
	for (int i = 0; i < s; i++)
		v[i] = 1;
	r[0] = 1;
	for (int k = 0; k < s; k++) {
		r[k + 1] = 0;
		for (int j = 0; j < s; j++)
			r[k + 1] += t->A[s - 1][j] * v[j];
		for (int i = 0; i < s; i++) {
			w[i] = 0;
			for (int j = 0; j <= i; j++)
				w[i] += t->A[i][j] * v[j];
		}
		memcpy(v, w, sizeof v);
	}
	for (int d = 0; d <= s; d++)
		Q[d] = d == 0;
	for (int i = 0; i < s; i++)
		for (int d = s; d >= 1; d--)
			Q[d] -= t->A[i][i] * Q[d - 1];
	for (int j = 0; j <= s; j++) {
		P[j] = 0;
		for (int i = 0; i <= j; i++)
			P[j] += r[i] * Q[j - i];
	}
}

/* Coefficient of w^m in |P(iw)|^2 - |Q(iw)|^2 (m even): P(iw) P(-iw) has
 * sum_{j+k=m} p_j p_k (-1)^((j-k)/2). */
static long double gap_coef(const long double *P, const long double *Q, int n, int m)
{
	long double e = 0;
	for (int j = 0; j <= n && j <= m; j++) {
		int k = m - j;
		if (k > n)
			continue;
		long double sg = ((j - k) / 2) % 2 ? -1 : 1;
		e += sg * (P[j] * P[k] - Q[j] * Q[k]);
	}
	return e;
}

static int dirk_check(const struct coef *c)
{
	for (int i = 0; i < c->s; i++)
		for (int j = 0; j <= i; j++)
			if (!isfinite(c->A[i][j]) || fabs(c->A[i][j]) > COEF_AMAX)
				return -1;
	return 0;
}

/* ---------------------------------------------------------- the methods */

/* MBDyn gamma tables, rho = 0, 0.1, ..., 1 (reference §E): starting
 * guesses only. */
static const double tab_msstc3[11] = {
	0.1804253064293983, 0.1786194582046581, 0.1769458066182237, 0.1753855158428458,
	0.1739236078771971, 0.1725479614220893, 0.1712486185906910, 0.1700172917724765,
	0.1688470046791677, 0.1677318257568868, 1.0 / 6 };
static const double tab_msstc4[11] = {
	0.1313787367304989, 0.1305486209465961, 0.1297775838187010, 0.1290572072571367,
	0.1283808049199898, 0.1277429705569184, 0.1271392659020578, 0.1265659990831402,
	0.1260200635863823, 0.1254988188303918, 0.125 };
static const double tab_msstc5[11] = {
	0.103557108920215, 0.103095631511675, 0.102666675025093, 0.102265594492185,
	0.101888703879882, 0.101533025147874, 0.101196115073181, 0.100875942445807,
	0.100570798918745, 0.100279232954742, 0.1 };
static const double tab_mssth3[11] = {
	0.4358665215084597, 0.4214868154094095, 0.4085007895129220, 0.3966472091211337,
	0.3857310004608354, 0.3756022250152853, 0.3661428101033469, 0.3572578119672341,
	0.3488694530748692, 0.3409129227719289, 1.0 / 3 };
static const double tab_mssth4[11] = {
	0.5728160624821350, 0.5483666449758299, 0.5263864568423863, 0.5063301189707820,
	0.4877974748123481, 0.4704805776216768, 0.4541307850365287, 0.4385361899021925,
	0.4235037660671789, 0.4088418661206993, 0.3943375672974065 };
static const double tab_mssth5[11] = {
	0.2780538411364499, 0.2741413060318685, 0.2704598867745818, 0.2669780439256506,
	0.2636702317116055, 0.2605154166070549, 0.2574960298566747, 0.2545972081701335,
	0.2518062311838496, 0.2491120965296297, 0.2465051931428202 };
/* MSSTH4 free nodes c2, c3 and MSSTH5 free node c3 (reference §E, used
 * as given at the tabulated rho, linearly interpolated between), and the
 * MSSTH5 c4 of MBDyn (a starting guess for the secant on c4). */
static const double tab_mssth4_c2[11] = {
	0.5590985754229417305152542, 0.6002938888698324121975147, 0.638522814489160595332861,
	0.67524540713318077522649, 0.7116626313535582440037008, 0.7489373901316857945701066,
	0.7884370115210036155119526, 0.8321495959968309360981758, 0.8836585039419085905336449,
	0.9508833135343227253337252, 1.05348034117028673017024 };
static const double tab_mssth4_c3[11] = {
	0.7414011664833654036144139, 0.7584129875780372120885886, 0.7731436659604612460228168,
	0.7860312064122737529814344, 0.7972514819203143643377985, 0.8067140747427041791439706,
	0.813966252941913492868764, 0.8179301032006714988753515, 0.8162478946500242305006623,
	0.8036295352568830763217989, 0.7689305362617052663765094 };
static const double tab_mssth5_c3[11] = {
	0.9673258605571696255864822, 0.9085500184865173967097007, 0.8510912674088796370241994,
	0.7951780419709296721109126, 0.7409689864721386021173544, 0.6885609787040850582329199,
	0.6379972790560722861741283, 0.5892756783804685705163706, 0.5423562209596147765111596,
	0.4971683414199104533715001, 0.4536172576687555468843982 };
static const double tab_mssth5_c4[11] = {
	1.140134263244145573779065, 1.147028320924987188078603, 1.153119767864889455566413,
	1.158468410781347657234619, 1.163120553594974015965136, 1.167112017832381054560642,
	1.170470299562808680349235, 1.173216142360941294242593, 1.175364704054515430087235,
	1.176926433659807091913763, 1.177907736613444944495654 };

/* LMS2/3/4 (reference §A; 004 eq. 2 with alpha_j = a[j], beta_j = b[j]).
 * All have sigma(z) = b0 (z + rho)^k, so the spectral radius at infinity
 * is rho. */
static void make_lms(int k, double r, struct coef *c)
{
	c->kind = COEF_LMS;
	c->k = k;
	c->order = 2;
	if (k == 2) {
		double d = (1 + r) * (3 - r);
		c->a[1] = 4 * (1 - r) / (3 - r);
		c->a[2] = (3 * r - 1) / (3 - r);
		c->b[0] = 2 / d, c->b[1] = 4 * r / d, c->b[2] = 2 * r * r / d;
	} else if (k == 3) {
		double D = r * r - 5 * r + 10, e = (1 + r) * D;
		c->a[1] = 3 * (2 * r * r - 9 * r + 5) / D;
		c->a[2] = -3 * (5 * r * r - 9 * r + 2) / D;
		c->a[3] = (10 * r * r - 5 * r + 1) / D;
		c->b[0] = 6 / e, c->b[1] = 18 * r / e;
		c->b[2] = 18 * r * r / e, c->b[3] = 6 * r * r * r / e;
	} else {
		double r2 = r * r, r3 = r2 * r;
		double D = -r3 + 7 * r2 - 21 * r + 35, e = (1 + r) * D;
		c->a[1] = 4 * (-2 * r3 + 13 * r2 - 35 * r + 14) / D;
		c->a[2] = -4 * (1 - r) * (7 * r2 - 34 * r + 7) / D;
		c->a[3] = -4 * (14 * r3 - 35 * r2 + 13 * r - 2) / D;
		c->a[4] = (35 * r3 - 21 * r2 + 7 * r - 1) / D;
		c->b[0] = 20 / e, c->b[1] = 80 * r / e, c->b[2] = 120 * r2 / e;
		c->b[3] = 80 * r3 / e, c->b[4] = 20 * r2 * r2 / e;
	}
}

/* SS_r (reference §C; 004 eqs. 4a-4e): gamma_even = 1/(1+rho),
 * gamma_odd = (1 + w (1-rho))/(1+rho) with w the roots of
 * SS2: 2w - 1, SS3: 6w^2 - 3w + 1, SS4: 20w^3 - 10w^2 + 4w - 1.
 * g[1] takes the real root (SS4) or the root with Im w > 0 (SS3); the
 * complex pair comes in conjugate order g[3] = conj(g[5]) (SS4). */
static int make_ss(int r, double rho, struct coef *c)
{
	double complex w[3];
	if (r == 2) {
		w[0] = 0.5;
	} else if (r == 3) {
		w[0] = 0.25 + I * sqrt(15.0) / 12;
		w[1] = conj(w[0]);
	} else {
		const long double p[4] = { -1, 4, -10, 20 };
		long double wrl;
		if (poly_root(p, 3, 0.342, &wrl))
			return -1;
		double wr = (double)wrl;
		/* deflate: 20w^3 - 10w^2 + 4w - 1 = (w - wr)(20w^2 + b w + q) */
		double b = -10 + 20 * wr, q = 4 + b * wr;
		double complex z = (-b + csqrt(b * b - 80 * q + 0 * I)) / 40;
		if (cimag(z) < 0)
			z = conj(z);
		for (int it = 0; it < 3; it++)	/* polish on the cubic itself */
			z -= (((20 * z - 10) * z + 4) * z - 1) / ((60 * z - 20) * z + 4);
		w[0] = wr;
		w[1] = z;
		w[2] = conj(z);
	}
	c->kind = COEF_SS;
	c->r = r;
	c->order = 2;
	for (int k = 0; k < r; k++)
		c->g[2 * k] = 1 / (1 + rho);
	for (int k = 0; k < r - 1; k++)
		c->g[2 * k + 1] = (1 + w[k] * (1 - rho)) / (1 + rho);
	return 0;
}

/* rho-Bathe (004 eq. 7; reference §D): gamma = (2 - sqrt(2+2rho))/(2(1-rho)),
 * written as 1/(2 + sqrt(2+2rho)) so that rho = 1 gives 1/4 without a
 * special case.  R(inf) = +rho. */
static void make_bathe(double r, struct coef *c)
{
	double g = 1 / (2 + sqrt(2 + 2 * r));
	dirk_init(c, 3, g, 2);
	c->c[1] = 2 * g;
	c->A[1][0] = g;
	c->A[2][0] = -(4 * g * g - 6 * g + 1) / (4 * g);
	c->A[2][1] = (1 - 2 * g) / (4 * g);
}

/* MSSTC(n) stages 1..n-1: trapezoidal sub-steps of length 2 gamma
 * (reference §D): row i = (g, 2g, ..., 2g, g), c_i = 2 i g. */
static void msstc_trap(struct coef *c, int n, double g)
{
	dirk_init(c, n + 1, g, 2);
	for (int i = 1; i < n; i++) {
		c->c[i] = 2 * i * g;
		c->A[i][0] = g;
		for (int j = 1; j < i; j++)
			c->A[i][j] = 2 * g;
	}
}

/* MSSTC3: gamma the root of 24(1+r)g^4 - (8r+72)g^3 + 48g^2 - 12g + 1
 * (reference §D); R(inf) = -rho. */
static int make_msstc3(double rho, struct coef *c)
{
	long double r = rho, g;
	const long double p[5] = { 1, -12, 48, -(8 * r + 72), 24 * (1 + r) };
	if (poly_root(p, 4, tab_at(tab_msstc3, rho), &g))
		return -1;
	msstc_trap(c, 3, (double)g);
	c->A[3][0] = (double)(((2 * r - 6) * g * g + 8 * g - 1) / (8 * g));
	c->A[3][1] = (double)(-((r + 1) * g - 1) / 2);
	c->A[3][2] = (double)((2 * (r + 1) * g * g - 4 * g + 1) / (8 * g));
	return 0;
}

/* MSSTC4: gamma the root of the degree-8 polynomial of reference §D;
 * last row q0..q3 over Den = 64 g^2 (1 - 4g); R(inf) = +rho. */
static int make_msstc4(double rho, struct coef *c)
{
	long double r = rho, g;
	const long double p[9] = { 1, -32, 432, -3200, 14128 - 48 * r, 768 * r - 37632,
				   57728 - 4480 * r, 11264 * r - 44032,
				   64 * r * r - 10368 * r + 10304 };
	if (poly_root(p, 8, tab_at(tab_msstc4, rho), &g))
		return -1;
	msstc_trap(c, 4, (double)g);
	/* long double: the numerators cancel to ~1e-3 of their terms */
	long double g2 = g * g, g3 = g2 * g, g4 = g3 * g, den = 64 * g2 * (1 - 4 * g);
	c->A[4][0] = (double)((40 * r + 216) * g4 - (8 * r + 376) * g3 + 144 * g2 - 20 * g + 1) / den;
	c->A[4][1] = (double)-(104 * (r - 1) * g4 - (24 * r - 88) * g3 + 16 * g2 - 12 * g + 1) / den;
	c->A[4][2] = (double)-((88 - 88 * r) * g4 + (24 * r - 216) * g3 + 112 * g2 - 20 * g + 1) / den;
	c->A[4][3] = (double)((24 - 24 * r) * g4 + (8 * r - 72) * g3 + 48 * g2 - 12 * g + 1) / den;
	return 0;
}

/* MSSTC5 tableau for a given gamma (reference §D: trapezoidal rows,
 * d1..d5 and the last row), in long double.  Returns -1 when the square
 * root of d3 is not real. */
static int msstc5_build(long double r, long double g, struct ltab *t)
{
	memset(t, 0, sizeof *t);
	t->s = 6;
	for (int i = 1; i < 5; i++) {
		t->A[i][0] = g;
		for (int j = 1; j < i; j++)
			t->A[i][j] = 2 * g;
		t->A[i][i] = g;
	}
	long double g2 = g * g, g3 = g2 * g, g4 = g3 * g, g5 = g4 * g, g6 = g5 * g;
	long double rad = 2 * (64 * (5 * r + 805) * g6 - 32 * (2 * r + 2050) * g5
			       + 34560 * g4 - 9600 * g3 + 1480 * g2 - 120 * g + 4);
	if (!(rad >= 0))
		return -1;
	long double d1 = 1 - 5 * g, d2 = 10 * g2 - 5 * g + 0.5L;
	long double d3 = -(400 * g3 - 280 * g2 + 60 * g - 4 + sqrtl(rad)) / 8;
	long double d4 = -(720 * g4 - 800 * g3 + 280 * g2 + (80 * d3 - 40) * g - 16 * d3 + 2) / 16;
	long double d5 = r * g5;
	long double *a = t->A[5];
	a[0] = 15 * g / 16 + d1 / 16 - d2 / (16 * g) + d3 / (16 * g2) - d4 / (16 * g3) + d5 / (16 * g4);
	a[1] = 13 * g / 8 + d1 / 4 - d2 / (8 * g) + d4 / (8 * g3) - d5 / (4 * g4);
	a[2] = g + 3 * d1 / 8 - d3 / (8 * g2) + 3 * d5 / (8 * g4);
	a[3] = 3 * g / 8 + d1 / 4 + d2 / (8 * g) - d4 / (8 * g3) - d5 / (4 * g4);
	a[4] = g / 16 + d1 / 16 + d2 / (16 * g) + d3 / (16 * g2) + d4 / (16 * g3) + d5 / (16 * g4);
	a[5] = g;
	return 0;
}

/* reference §D: MSSTC5's gamma makes the w^8 coefficient of
 * |R(iw)|^2 - 1 vanish (w^4 and w^6 vanish for any gamma); the numerator
 * |P(iw)|^2 - |Q(iw)|^2 has the same coefficients up to the factor
 * |Q(iw)|^2 > 0. */
static long double msstc5_w8(long double g, void *ctx)
{
	struct ltab t;
	long double P[COEF_MAXS + 1], Q[COEF_MAXS + 1];
	if (msstc5_build(*(const long double *)ctx, g, &t))
		return NAN;
	stab_poly(&t, P, Q);
	return gap_coef(P, Q, t.s, 8);
}

static int make_msstc5(double rho, struct coef *c)
{
	long double r = rho, g, g0 = tab_at(tab_msstc5, rho);
	struct ltab t;
	if (secant(msstc5_w8, &r, g0, g0 * (1 + 1e-6L), 4 * LDBL_EPSILON, &g)
	    || msstc5_build(r, g, &t))
		return -1;
	msstc_trap(c, 5, (double)g);
	for (int j = 0; j < 5; j++)
		c->A[5][j] = (double)t.A[5][j];
	return 0;
}

/* Rows 1 and 2 shared by MSSTH(n) and ESDIRK3(2)4L[2]SA (reference §D):
 * c = (0, 2g, c2, ...), row 2 of stage order 2. */
static void mssth_rows12(struct coef *c, double g, double c2)
{
	c->c[1] = 2 * g;
	c->c[2] = c2;
	c->A[1][0] = g;
	c->A[2][1] = c2 * (c2 - 2 * g) / (4 * g);
	row_fill0(c, 2);
}

/* MSSTH3-type tableau (4 stages) for gamma g and node c2 (reference §D) */
static void mssth3_tab(struct coef *c, double g, double c2, int order)
{
	dirk_init(c, 4, g, order);
	mssth_rows12(c, g, c2);
	c->A[3][1] = (3 * c2 + 6 * g - 6 * c2 * g - 2) / (12 * g * (c2 - 2 * g));
	c->A[3][2] = (6 * g * g - 6 * g + 1) / (3 * c2 * (c2 - 2 * g));
	row_fill0(c, 3);
}

/* MSSTH3: gamma the root of 6(1-r)g^3 - 18g^2 + 9g - 1, c2 =
 * (24g^2-20g+3)/(24g^2-24g+4) (reference §D); R(inf) = +rho.  c2 = 2g
 * at rho ~ 0.6947: a pole of the tableau (see COEF_AMAX). */
static int make_mssth3(double r, struct coef *c)
{
	const long double p[4] = { -1, 9, -18, 6 * (1 - (long double)r) };
	long double gl;
	if (poly_root(p, 3, tab_at(tab_mssth3, r), &gl))
		return -1;
	double g = (double)gl;
	mssth3_tab(c, g, (24 * g * g - 20 * g + 3) / (24 * g * g - 24 * g + 4), 3);
	return 0;
}

/* MSSTH4 row 3: stage order 2 and b^T A c^2 = 1/12 (reference §D) */
static void mssth4_cond(const struct coef *c, double *f)
{
	f[0] = stage2(c, 3);
	f[1] = tree_Ac2(c);
}

/* MSSTH4: gamma the root of 24(1-r)g^4 - 96g^3 + 72g^2 - 16g + 1; nodes
 * c2, c3 interpolated linearly in rho from the MBDyn table (free
 * parameters: the order and R(inf) = +rho hold for any c2, c3); last row
 * from the closed forms of reference §D, row 3 solved from its two
 * conditions. */
static int make_mssth4(double r, struct coef *c)
{
	const long double p[5] = { 1, -16, 72, -96, 24 * (1 - (long double)r) };
	long double gl;
	if (poly_root(p, 4, tab_at(tab_mssth4, r), &gl))
		return -1;
	double g = (double)gl;
	double c2 = tab_at(tab_mssth4_c2, r), c3 = tab_at(tab_mssth4_c3, r);
	dirk_init(c, 5, g, 4);
	c->pred4_last = 1;
	mssth_rows12(c, g, c2);
	c->c[3] = c3;
	double g2 = g * g;
	double *q = c->A[4];
	q[1] = -(4 * c2 + 4 * c3 + 12 * g - 6 * c2 * c3 - 12 * c2 * g - 12 * c3 * g
		 + 12 * c2 * c3 * g - 3) / (24 * g * (c2 - 2 * g) * (c3 - 2 * g));
	q[2] = -(4 * c3 + 20 * g - 24 * c3 * g + 24 * c3 * g2 - 24 * g2 - 3)
	       / (12 * c2 * (c2 - c3) * (c2 - 2 * g));
	q[3] = (4 * c2 + 20 * g - 24 * c2 * g + 24 * c2 * g2 - 24 * g2 - 3)
	       / (12 * c3 * (c2 - c3) * (c3 - 2 * g));
	row_fill0(c, 4);
	struct unknowns u = { 2, { 3, 3 }, { 1, 2 }, mssth4_cond };
	return solve_affine(c, &u);
}

/* MSSTH5 rows 3 and 4 for fixed c4: the five conditions of reference §D
 * other than b^T A A c^2 = 1/60, all affine in a31, a32, a41, a42, a43 */
static void mssth5_cond(const struct coef *c, double *f)
{
	f[0] = stage2(c, 3);
	f[1] = stage2(c, 4);
	f[2] = tree_Ac2(c);
	f[3] = tree_Ac3(c);
	f[4] = tree_cAc2(c);
}

struct mssth5_ctx {
	double g, c3;
	struct coef *c;
	int fail;
};

/* MSSTH5 tableau for node c4; returns b^T A A c^2 - 1/60 */
static long double mssth5_res(long double c4l, void *vctx)
{
	struct mssth5_ctx *x = vctx;
	struct coef *c = x->c;
	double g = x->g, c4 = (double)c4l;
	memset(c->A, 0, sizeof c->A);
	dirk_init(c, 6, g, 5);
	mssth_rows12(c, g, 0.1);
	c->c[3] = x->c3;
	c->c[4] = c4;
	struct unknowns u = { 5, { 3, 3, 4, 4, 4 }, { 1, 2, 1, 2, 3 }, mssth5_cond };
	if (quad_weights(c) || solve_affine(c, &u)) {
		x->fail = 1;
		return NAN;
	}
	return tree_AAc2(c);
}

/* MSSTH5: gamma the root of 120(1+r)g^5 - 600g^4 + 600g^3 - 200g^2 + 25g - 1
 * (R(inf) = -rho); c = (0, 2g, 0.1, c3, c4, 1) with c3 interpolated from
 * the MBDyn table; b from the five quadrature conditions; for each c4 the
 * rows 3, 4 from five affine conditions, then a secant on c4 (started at
 * MBDyn's value) for b^T A A c^2 = 1/60 (reference §D). */
static int make_mssth5(double r, struct coef *c)
{
	const long double p[6] = { -1, 25, -200, 600, -600, 120 * (1 + (long double)r) };
	struct mssth5_ctx x = { 0, tab_at(tab_mssth5_c3, r), c, 0 };
	long double gl;
	if (poly_root(p, 5, tab_at(tab_mssth5, r), &gl))
		return -1;
	x.g = (double)gl;
	long double c4, c40 = tab_at(tab_mssth5_c4, r);
	if (secant(mssth5_res, &x, c40, c40 + 1e-6L, 4e-16L, &c4))
		return -1;
	mssth5_res(c4, &x);	/* leave the tableau of the converged c4 */
	c->pred4_last = 1;
	return x.fail ? -1 : 0;
}

/* ESDIRK3(2)4L[2]SA (MBDyn DIRK33, reference §D): the MSSTH3 formulas
 * with gamma the root of 6g^3 - 18g^2 + 9g - 1 near 0.4359 and c2 = 3/5;
 * L-stable (R(inf) = 0 whatever rho). */
static int make_esdirk324(struct coef *c)
{
	const long double p[4] = { -1, 9, -18, 6 };
	long double g;
	if (poly_root(p, 3, 0.4359, &g))
		return -1;
	mssth3_tab(c, (double)g, 0.6, 3);
	return 0;
}

/* ESDIRK3(3)5L[2]SA (MBDyn DIRK43, reference §D): gamma = 9/40,
 * c = (0, 9/20, 9(2+sqrt2)/40, 3/5, 1); L-stable. */
static void make_esdirk335(struct coef *c)
{
	/* long double: a_41, a_42 cancel ~43 ulps of double (measured
	 * against the published table, tests/unit/test_coef.c) */
	long double g = 9.0L / 40, c2 = 9 * (2 + sqrtl(2.0L)) / 40, c3 = 0.6L;
	long double g2 = g * g, g3 = g2 * g;
	dirk_init(c, 5, (double)g, 3);
	mssth_rows12(c, (double)g, (double)c2);
	c->c[3] = c3;
	c->A[3][1] = (-4 * g3 + 12 * c3 * g2 - 4 * c3 * c3 * g - 2 * c2 * c3 * g + c2 * c3 * c3)
		     / (4 * g * (c2 - 2 * g));
	c->A[3][2] = g * (2 * g2 - 4 * c3 * g + c3 * c3) / (c2 * (c2 - 2 * g));
	row_fill0(c, 3);
	long double E = c3 * c3 - 4 * c3 * g + 2 * g2;
	c->A[4][1] = -(12 * (c3 - 1) * (c3 - c2 + 1) * g3
		       + 2 * (12 * c3 - 3 * c2 + 6 * c2 * c3 - 18 * c3 * c3 + 2) * g2
		       + 2 * c3 * (6 * c3 - 3 * c2 + 3 * c2 * c3 - 4) * g
		       - c2 * c3 * (3 * c3 - 2)) / (12 * g * (c2 - 2 * g) * E);
	c->A[4][2] = g * (12 * (1 - c3) * g3 + 6 * (c3 * c3 + 2 * c3 - 2) * g2
			  - 2 * (6 * c3 * c3 - 3 * c3 - 1) * g + c3 * (3 * c3 - 2))
		     / (3 * c2 * (c2 - 2 * g) * E);
	c->A[4][3] = -(6 * g3 - 18 * g2 + 9 * g - 1) / (3 * E);
	row_fill0(c, 4);
}

/* ESDIRK4(3)6L[2]SA2 (MBDyn DIRK54; Kennedy & Carpenter 2019, reference
 * §D): the published rationals, a_i0 = a_i1; bhat the embedded
 * third-order weights, whose first value is listed once "(x2)" for stages
 * 0 and 1 (they then sum to 1).  L-stable. */
static void make_esdirk436(struct coef *c)
{
	static const double A[6][6] = {
		{ 0 },
		{ 31.0 / 125, 31.0 / 125 },
		{ -360286518617.0 / 7014585480527, -360286518617.0 / 7014585480527, 31.0 / 125 },
		{ -506388693497.0 / 5937754990171, -506388693497.0 / 5937754990171,
		  7149918333491.0 / 13390931526268, 31.0 / 125 },
		{ -7628305438933.0 / 11061539393788, -7628305438933.0 / 11061539393788,
		  21592626537567.0 / 14352247503901, 11630056083252.0 / 17263101053231,
		  31.0 / 125 },
		{ -12917657251.0 / 5222094901039, -12917657251.0 / 5222094901039,
		  5602338284630.0 / 15643096342197, 9002339615474.0 / 18125249312447,
		  -2420307481369.0 / 24731958684496, 31.0 / 125 },
	};
	static const double cc[6] = { 0, 62.0 / 125, 486119545908.0 / 3346201505189,
				      1043.0 / 1706, 1361.0 / 1300, 1 };
	static const double bh[6] = {
		-1007911106287.0 / 12117826057527, -1007911106287.0 / 12117826057527,
		17694008993113.0 / 35931961998873, 5816803040497.0 / 11256217655929,
		-538664890905.0 / 7490061179786, 2032560730450.0 / 8872919773257 };
	dirk_init(c, 6, 31.0 / 125, 4);
	for (int i = 0; i < 6; i++) {
		memcpy(c->A[i], A[i], sizeof A[i]);
		c->c[i] = cc[i];
		c->bhat[i] = bh[i];
	}
	c->has_bhat = 1;
	c->pred4_last = 1;
}

/* Newmark family (reference §F).
 * Generalized-alpha (Chung & Hulbert 1993, Arnold & Bruls 2007, §F.3):
 *   alpha_m = (2rho-1)/(rho+1), alpha_f = rho/(rho+1),
 *   gam = 1/2 - alpha_m + alpha_f, beta = (gam + 1/2)^2/4,
 * in the convention where the weights sit on the OLD values:
 *   (1 - alpha_m) a_{n+1} + alpha_m a_n = (1 - alpha_f) vdot_{n+1} + alpha_f vdot_n,
 *   q_{n+1} = q_n + h v_n + h^2 ((1/2 - beta) a_n + beta a_{n+1}),
 *   v_{n+1} = v_n + h ((1 - gam) a_n + gam a_{n+1})
 * (not PETSc's TSALPHA2 weights on the new state).
 * HHT-alpha (§F.2, Negrut / Chrono convention, alpha_hht in [-1/3, 0]):
 *   beta = (1 - alpha_hht)^2/4, gam = (1 - 2 alpha_hht)/2, alpha_m = alpha_f = 0;
 *   rho_inf = (1 + alpha_hht)/(1 - alpha_hht). */
static int make_newmark(int hht, double rho, double alpha, struct coef *c)
{
	c->kind = COEF_NEWMARK;
	c->order = 2;
	if (hht) {
		double a = alpha;
		if (isnan(a))
			a = fmax((rho - 1) / (rho + 1), -1.0 / 3);
		if (!(a >= -1.0 / 3 - 1e-15 && a <= 0))
			return -1;
		c->alpha_hht = a;
		c->beta = (1 - a) * (1 - a) / 4;
		c->gam = (1 - 2 * a) / 2;
		return 0;
	}
	c->alpha_m = (2 * rho - 1) / (rho + 1);
	c->alpha_f = rho / (rho + 1);
	c->gam = 0.5 - c->alpha_m + c->alpha_f;
	c->beta = (c->gam + 0.5) * (c->gam + 0.5) / 4;
	return 0;
}

int coef_make(const char *name, double rho, double alpha, struct coef *c)
{
	memset(c, 0, sizeof *c);
	c->rho = rho;
	if (!name || !(rho >= 0 && rho <= 1))
		return -1;
	int rc = -1;
	if (!strcmp(name, "lms2") || !strcmp(name, "lms3") || !strcmp(name, "lms4")) {
		make_lms(name[3] - '0', rho, c);
		return 0;
	}
	if (!strcmp(name, "ss2") || !strcmp(name, "ss3") || !strcmp(name, "ss4"))
		return make_ss(name[2] - '0', rho, c);
	if (!strcmp(name, "hht") || !strcmp(name, "genalpha"))
		return make_newmark(name[0] == 'h', rho, alpha, c);
	if (!strcmp(name, "newmark")) {	/* 002 §2; beta, gamma set by newmark.c */
		c->kind = COEF_NEWMARK;
		c->order = 2;
		c->beta = 0.25;
		c->gam = 0.5;
		return 0;
	}
	if (!strcmp(name, "bathe"))
		make_bathe(rho, c), rc = 0;
	else if (!strcmp(name, "msstc3"))
		rc = make_msstc3(rho, c);
	else if (!strcmp(name, "msstc4"))
		rc = make_msstc4(rho, c);
	else if (!strcmp(name, "msstc5"))
		rc = make_msstc5(rho, c);
	else if (!strcmp(name, "mssth3"))
		rc = make_mssth3(rho, c);
	else if (!strcmp(name, "mssth4"))
		rc = make_mssth4(rho, c);
	else if (!strcmp(name, "mssth5"))
		rc = make_mssth5(rho, c);
	else if (!strcmp(name, "esdirk324l2sa"))
		rc = make_esdirk324(c);
	else if (!strcmp(name, "esdirk335l2sa"))
		make_esdirk335(c), rc = 0;
	else if (!strcmp(name, "esdirk436l2sa2"))
		make_esdirk436(c), rc = 0;
	return rc ? rc : dirk_check(c);
}

/* LMS2 with variable step (reference §A): alpha = ratio = h_n/h_{n-1},
 * H = h_{n-1}; the h b_j are returned already multiplied by the step. */
void coef_lms2_var(double rho, double ratio, double H, double a[3], double hb[3])
{
	double al = ratio, q = (1 - rho) * (1 - rho);
	double den = 2 * (1 + al) - q;
	double beta = al * (q * (2 + al) + 2 * (2 * rho - 1) * (1 + al)) / den;
	double delta = al * al * q / (2 * den);
	a[0] = 0;
	a[1] = 1 - beta;
	a[2] = beta;
	hb[0] = H * (delta / al + al / 2);
	hb[1] = H * (beta / 2 + al / 2 - delta * (1 + al) / al);
	hb[2] = H * (beta / 2 + delta);
}

/* Second-order predictor (004 eqs. 12, 14; reference §B, two-point cubic
 * Hermite), alpha = r1 = hn/(t_{N-1} - t_{N-2}).  m divided by hn (as the
 * seed's 1/(t_N - t_{N-1}) factor; MBDyn divides by the old step). */
void coef_pred2(double hn, double r1, double m[2], double n[2])
{
	double a = r1;
	m[0] = -6 * a * a * (1 + a) / hn;
	m[1] = -m[0];
	n[0] = 1 + 4 * a + 3 * a * a;
	n[1] = a * (2 + 3 * a);
}

/* Fourth-order predictor (004 eqs. 16, 17; reference §B, three-point
 * quintic Hermite with a1 = r1 = hn/(t_{N-1}-t_{N-2}) and
 * a2 = r2 = hn/(t_{N-2}-t_{N-3})); m divided by hn. */
void coef_pred4(double hn, double r1, double r2, double m[3], double n[3])
{
	double a1 = r1, a2 = r2;
	double a12 = a1 * a1, a13 = a12 * a1, a22 = a2 * a2, a23 = a22 * a2;
	double s = a1 + a2, s2 = s * s, s3 = s2 * s;
	double k = 5 * a22 + 8 * a2 + 3;	/* common a1^3 factor */
	m[0] = -2 * a12 * (1 + a1)
	       * (a13 * k + a12 * (10 * a23 + 25 * a22 + 13 * a2) + a1 * (20 * a23 + 20 * a22)
		  + 10 * a23) / (s3 * hn);
	m[1] = 2 * (1 + a1)
	       * (a13 * k + a12 * (-5 * a23 + a22 + 4 * a2) + a1 * (-7 * a23 - a22) - 2 * a23)
	       / (a1 * hn);
	m[2] = -m[0] - m[1];
	n[0] = (1 + a1) * (a13 * k + a12 * (11 * a22 + 10 * a2 + 1) + a1 * (7 * a22 + 2 * a2) + a22)
	       / s2;
	n[1] = (a13 * k + a12 * (12 * a22 + 12 * a2 + 2) + a1 * (9 * a22 + 4 * a2) + 2 * a22) / a1;
	n[2] = a23 * (1 + a1) * (a12 * (5 * a2 + 4) + a1 * (7 * a2 + 2) + 2 * a2) / (a1 * s2);
}
