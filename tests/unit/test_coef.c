/* test_coef.c - the coefficients of coef.c against their defining
 * conditions and against shared/reference/integrator-coefficients.md
 * ("reference" below; its numeric tables are mpmath 45-digit values).
 *
 * 1. Every DIRK/composite tableau at rho in {0, 0.3, 0.37, 0.6, 1}
 *    (0.37 is not tabulated anywhere): row sums = c_i, explicit stage 0,
 *    a_ii = gamma, the rooted-tree order conditions up to the design
 *    order (b = last row: stiff accuracy by construction), R(inf) from the
 *    tableau (= +rho, -rho or 0 as reference §D says) and |R(iy)| <= 1 on
 *    a sample of the imaginary axis (A-stability, reference §5 check).
 * 2. gamma and a few tableau entries against the reference numeric tables.
 * 3. LMS2/3/4: consistency, exactness for 1, t, t^2, sigma(z) =
 *    b0 (z + rho)^k (spectral radius rho at infinity), table values.
 * 4. SS2/3/4 gamma against the reference table; the coefficient of y'_n of
 *    the SS step (004 eqs. 9-11) equals LMS b0.
 * 5. Predictors (004 eqs. 12-17) exact for polynomials of degree 3 and 5
 *    at unequal spacing; LMS2 variable step: order 2 for any ratio and the
 *    constant-step LMS2 at ratio 1.
 * 6. Newmark family parameters (reference §F).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <complex.h>
#include <math.h>
#include <stdio.h>

#include "testutil.h"
#include "integ/coef.h"

/* R(inf) from the tableau against +-rho or 0, for max |a_ij| = 1; scaled
 * by max |a_ij|^2 (round-off of the stage recurrence grows with the
 * entries, large near the MSSTH node poles).  Measured worst over every
 * tableau at every rho of both tests: 6.6e-15 (esdirk335l2sa, max |a_ij|
 * 0.77); the largest unscaled 8.2e-13 (mssth4 at rho 0.7, max |a_ij| 64,
 * i.e. 2.0e-16 scaled).  1e-13 is 15 times the worst. */
#define RINF_TOL 1e-13
/* Tableau entries of MSSTC4/MSSTC5 (closed forms in gamma) against the
 * reference tables, relative: about 90 roundings of 1.1e-16 (measured
 * worst 2.1e-16, MSSTC4 rho = 0.3; 1.4e-16 MSSTC5 rho = 0). */
#define TABLE_RTOL 1e-14

static const double rhos[] = { 0, 0.3, 0.37, 0.6, 1 };
#define NRHO (int)(sizeof rhos / sizeof rhos[0])

/* R(inf) expected: sign * rho (sgn 0: L-stable, R(inf) = 0 for any rho),
 * reference §D */
static const struct {
	const char *name;
	int s, order, sgn, pred4;
} dirks[] = {
	{ "bathe", 3, 2, +1, 0 },
	{ "msstc3", 4, 2, -1, 0 },
	{ "msstc4", 5, 2, +1, 0 },
	{ "msstc5", 6, 2, -1, 0 },
	{ "mssth3", 4, 3, +1, 0 },
	{ "mssth4", 5, 4, +1, 1 },
	{ "mssth5", 6, 5, -1, 1 },
	{ "esdirk324l2sa", 4, 3, 0, 0 },
	{ "esdirk335l2sa", 5, 3, 0, 0 },
	{ "esdirk436l2sa2", 6, 4, 0, 1 },
};
#define NDIRK (int)(sizeof dirks / sizeof dirks[0])

/* ------------------------------------------------------ tableau checks */

static void matvec(const struct coef *c, const double *v, double *w)
{
	for (int i = 0; i < c->s; i++) {
		w[i] = 0;
		for (int j = 0; j < c->s; j++)
			w[i] += c->A[i][j] * v[j];
	}
}

static double bdot(const struct coef *c, const double *v)
{
	double s = 0;
	for (int j = 0; j < c->s; j++)
		s += c->A[c->s - 1][j] * v[j];
	return s;
}

/* The 17 rooted trees up to order 5: residual of tree t and its order
 * (Butcher; b = last row, A the full s x s tableau with stage 0). */
static int tree_order[17] = { 1, 2, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 5, 5, 5, 5, 5 };

static double tree(const struct coef *c, int t)
{
	int s = c->s;
	double e[COEF_MAXS], cc[COEF_MAXS], c2[COEF_MAXS], c3[COEF_MAXS], c4[COEF_MAXS];
	double Ac[COEF_MAXS], Ac2[COEF_MAXS], Ac3[COEF_MAXS], AAc[COEF_MAXS];
	double AAc2[COEF_MAXS], AAAc[COEF_MAXS], v[COEF_MAXS], w[COEF_MAXS];
	for (int i = 0; i < s; i++) {
		e[i] = 1, cc[i] = c->c[i];
		c2[i] = cc[i] * cc[i], c3[i] = c2[i] * cc[i], c4[i] = c3[i] * cc[i];
	}
	matvec(c, cc, Ac);
	matvec(c, c2, Ac2);
	matvec(c, c3, Ac3);
	matvec(c, Ac, AAc);
	matvec(c, Ac2, AAc2);
	matvec(c, AAc, AAAc);
	switch (t) {
	case 0: return bdot(c, e) - 1;
	case 1: return bdot(c, cc) - 1.0 / 2;
	case 2: return bdot(c, c2) - 1.0 / 3;
	case 3: return bdot(c, Ac) - 1.0 / 6;
	case 4: return bdot(c, c3) - 1.0 / 4;
	case 5: for (int i = 0; i < s; i++) v[i] = cc[i] * Ac[i];
		return bdot(c, v) - 1.0 / 8;
	case 6: return bdot(c, Ac2) - 1.0 / 12;
	case 7: return bdot(c, AAc) - 1.0 / 24;
	case 8: return bdot(c, c4) - 1.0 / 5;
	case 9: for (int i = 0; i < s; i++) v[i] = c2[i] * Ac[i];
		return bdot(c, v) - 1.0 / 10;
	case 10: for (int i = 0; i < s; i++) v[i] = cc[i] * Ac2[i];
		return bdot(c, v) - 1.0 / 15;
	case 11: for (int i = 0; i < s; i++) v[i] = cc[i] * AAc[i];
		return bdot(c, v) - 1.0 / 30;
	case 12: for (int i = 0; i < s; i++) v[i] = Ac[i] * Ac[i];
		return bdot(c, v) - 1.0 / 20;
	case 13: return bdot(c, Ac3) - 1.0 / 20;
	case 14: for (int i = 0; i < s; i++) v[i] = cc[i] * Ac[i];
		matvec(c, v, w);
		return bdot(c, w) - 1.0 / 40;
	case 15: return bdot(c, AAc2) - 1.0 / 60;
	default: return bdot(c, AAAc) - 1.0 / 120;
	}
}

/* R(inf) of a stiffly accurate tableau with explicit stage 0: for
 * y' = lambda y, Y_i = 1 + z sum_j a_ij Y_j; as z -> inf the stages stay
 * finite with sum_{j<=i} a_ij Y_j = 0, so Y_0 = 1,
 * Y_i = -(sum_{j<i} a_ij Y_j)/a_ii and R(inf) = Y_{s-1} (no large z). */
static double rinf(const struct coef *c)
{
	double Y[COEF_MAXS];
	Y[0] = 1;
	for (int i = 1; i < c->s; i++) {
		double s = 0;
		for (int j = 0; j < i; j++)
			s += c->A[i][j] * Y[j];
		Y[i] = -s / c->A[i][i];
	}
	return Y[c->s - 1];
}

/* |R(z)| by forward substitution of the stage equations */
static double rabs(const struct coef *c, double complex z)
{
	double complex Y[COEF_MAXS];
	Y[0] = 1;
	for (int i = 1; i < c->s; i++) {
		double complex s = 1;
		for (int j = 0; j < i; j++)
			s += z * c->A[i][j] * Y[j];
		Y[i] = s / (1 - z * c->A[i][i]);
	}
	return cabs(Y[c->s - 1]);
}

/* All checks of one tableau */
static void check_dirk(int m, double rho)
{
	struct coef c;
	if (coef_make(dirks[m].name, rho, NAN, &c))
		fail_msg("%s rho=%g: coef_make failed", dirks[m].name, rho);
	assert_int_equal(c.kind, COEF_DIRK);
	assert_int_equal(c.s, dirks[m].s);
	assert_int_equal(c.order, dirks[m].order);
	assert_int_equal(c.pred4_last, dirks[m].pred4);
	assert_near(c.rho, rho, 0, 0);
	assert_near(c.c[0], 0, 0, 0);
	assert_near(c.c[c.s - 1], 1, 0, 0);
	double amax = 0;
	for (int i = 0; i < c.s; i++)
		for (int j = 0; j < c.s; j++)
			amax = fmax(amax, fabs(c.A[i][j]));
	for (int i = 0; i < c.s; i++) {
		double sum = 0;
		for (int j = 0; j < c.s; j++) {
			if (j > i || i == 0)	/* explicit stage 0, lower triangular */
				assert_near(c.A[i][j], 0, 0, 0);
			sum += c.A[i][j];
		}
		if (i > 0)
			assert_near(c.A[i][i], c.gamma, 0, 0);
		/* row sums = nodes: round-off of a sum of entries of size amax */
		assert_near(sum, c.c[i], 0, 1e-14 * fmax(1, amax));
	}
	/* order conditions to the design order (b = last row, so stiffly
	 * accurate by construction): round-off of sums of products */
	for (int t = 0; t < 17; t++) {
		if (tree_order[t] > c.order)
			continue;
		double r = tree(&c, t);
		if (!(fabs(r) <= 1e-13 * fmax(1, amax * amax)))
			fail_msg("%s rho=%g: tree %d (order %d) residual %.3g", dirks[m].name,
				 rho, t, tree_order[t], r);
	}
	/* R(inf) = sign * rho (reference §D) */
	assert_near(rinf(&c), dirks[m].sgn * rho, 0, RINF_TOL * fmax(1, amax * amax));
	/* A-stability: |R(iy)| <= 1 for y in [1e-3, 1e6] (reference §5).  At
	 * rho = 1 |R(iy)| = 1 exactly: round-off of the complex recurrence,
	 * measured at most 1.3e-15 over both tests (msstc4, y = 1.4e5);
	 * 1e-14 is 45 ulps of 1 */
	for (int p = 0; p <= 180; p++) {
		double y = pow(10, -3 + p / 20.0);
		double a = rabs(&c, I * y);
		if (a > 1 + 1e-14)
			fail_msg("%s rho=%g: |R(%gi)| = %.15g > 1", dirks[m].name, rho, y, a);
	}
}

static void test_dirk_conditions(void **state)
{
	for (int m = 0; m < NDIRK; m++)
		for (int k = 0; k < NRHO; k++)
			check_dirk(m, rhos[k]);
}

/* rho = 0, 0.05, ..., 1: the equations are solved for any rho, not only the
 * MBDyn grid; the MSSTH tableaux have poles between grid points (MSSTH3
 * ~0.6947; MSSTH4 ~0.664, ~0.755; MSSTH5 ~0.556, ~0.897), where coef_make
 * refuses entries above 1e4; next to them the entries reach a few hundred */
static void test_dirk_sweep(void **state)
{
	for (int m = 0; m < NDIRK; m++)
		for (int k = 0; k <= 20; k++)
			check_dirk(m, k / 20.0);
	struct coef c;
	assert_int_equal(coef_make("mssth3", 0.69468, NAN, &c), -1);
	assert_int_equal(coef_make("mssth5", 0.89735, NAN, &c), -1);
}

/* ----------------------------------------------- reference table values */

static double gamma_of(const char *name, double rho)
{
	struct coef c;
	assert_int_equal(coef_make(name, rho, NAN, &c), 0);
	return c.gamma;
}

/* gamma against the reference tables, relative 4e-16: the roots are
 * simple, so double precision gives a few ulp */
static void test_gamma_tables(void **state)
{
	static const struct { const char *name; double rho, gamma; } tab[] = {
		/* "gamma (high precision root)" columns of the reference tables
		 * MSSTC3/MSSTC4/MSSTH3/MSSTH4/MSSTH5, rho = 0 and 0.5 */
		{ "msstc3", 0, 0.180425306429398564134583133532 },
		{ "msstc3", 0.5, 0.172547961422089056203138769953 },
		{ "msstc4", 0, 0.131378736730466132524145431497 },
		{ "msstc4", 0.5, 0.127742970556848225088429341297 },
		{ "mssth3", 0, 0.435866521508458999416019451194 },
		{ "mssth3", 0.5, 0.375602225015285386622563413893 },
		{ "mssth4", 0, 0.572816062482134855408001384977 },
		{ "mssth5", 0, 0.278053841136452324931586185119 },
		/* MSSTC5: root of the w^8 coefficient of |R(iw)|^2 - 1 computed
		 * from the tableau in long double; reference table "MSSTC5" */
		{ "msstc5", 0, 0.103557108920214876637704751552 },
		{ "msstc5", 0.5, 0.101533025147873643689705279923 },
		/* Bathe, reference table "Bathe" rho = 0.3, and rho = 1 (gamma = 1/4) */
		{ "bathe", 0.3, 0.2768203216716357639476 },
		{ "bathe", 1, 0.25 },
		/* ESDIRK3(2)4L[2]SA: reference table "DIRK33" */
		{ "esdirk324l2sa", 0.3, 0.435866521508458999416 },
	};
	for (size_t i = 0; i < sizeof tab / sizeof tab[0]; i++) {
		double g = gamma_of(tab[i].name, tab[i].rho);
		if (!(fabs(g - tab[i].gamma) <= 4e-16 * tab[i].gamma))
			fail_msg("%s rho=%g: gamma %.17g, reference %.17g", tab[i].name,
				 tab[i].rho, g, tab[i].gamma);
	}
}

static void test_tableau_tables(void **state)
{
	struct coef c;
	/* reference table MSSTC5 rho = 0, a_5,0..5 */
	static const double c5[6] = { 0.1032770665705770060483, 0.2098009022083534018298,
		0.1953565852924618123241, 0.2384205433315391598513, 0.1495877936768537433088,
		0.1035571089202148766377 };
	assert_int_equal(coef_make("msstc5", 0, NAN, &c), 0);
	for (int j = 0; j < 6; j++)
		assert_near(c.A[5][j], c5[j], TABLE_RTOL, 0);
	/* reference table MSSTC4 rho = 0.3, a_4,0..4 */
	static const double c4[5] = { 0.1302110623813519918664, 0.2495839967418117556106,
		0.2859017529013674144917, 0.2052459807181140785822, 0.1290572072573547594492 };
	assert_int_equal(coef_make("msstc4", 0.3, NAN, &c), 0);
	for (int j = 0; j < 5; j++)
		assert_near(c.A[4][j], c4[j], TABLE_RTOL, 0);
	/* reference table MSSTH4 rho = 0.3, a_3,0..3 and a_4,0..4 (c2, c3 at a
	 * tabulated rho are the table nodes).  Not closed forms: the rows come
	 * from coef.c's solve of the order conditions, entries up to ~2;
	 * measured worst 4.8e-15 absolute (2e-14 relative, a_3,2) */
	static const double h43[4] = { 0.2880091602737205444374, -0.2473476263875686352429,
		0.2390395535553411106005, 0.5063301189707807331864 };
	static const double h44[5] = { 0.1979844791145380670736, -0.08902515728712836564717,
		1.972927833719201861336, -1.588217274517392295949, 0.5063301189707807331864 };
	assert_int_equal(coef_make("mssth4", 0.3, NAN, &c), 0);
	for (int j = 0; j < 4; j++)
		assert_near(c.A[3][j], h43[j], 1e-13, 1e-15);
	for (int j = 0; j < 5; j++)
		assert_near(c.A[4][j], h44[j], 1e-13, 1e-15);
	/* reference table MSSTH5 rho = 0: c4 re-solved and a_3, a_4 rows
	 * (a_3 entries ~13: round-off of the 5x5 solve scaled by them) */
	static const double h53[4] = { 11.19636100339474844473, 2.739703662220962890972,
		-13.24679264619499403505, 0.2780538411364523249316 };
	static const double h54[5] = { -6.168366038634407229492, -0.5375228099709554925266,
		7.712023554029310768662, -0.1440542833162549036254, 0.2780538411364523249316 };
	assert_int_equal(coef_make("mssth5", 0, NAN, &c), 0);
	assert_near(c.c[4], 1.14013426324414546795, 1e-15, 0);
	for (int j = 0; j < 4; j++)
		assert_near(c.A[3][j], h53[j], 1e-12, 0);
	for (int j = 0; j < 5; j++)
		assert_near(c.A[4][j], h54[j], 1e-12, 0);
	/* reference table DIRK43 = ESDIRK3(3)5L[2]SA, a_4,0..4: closed forms in
	 * gamma, c2, c3 whose numerators cancel (coef.c make_esdirk335), and
	 * a_4,0 as c_4 minus the rest; TABLE_RTOL (coef.c works them out in
	 * long double: measured 0 relative error on every entry; in double
	 * they were 9.5e-15 off, 43 ulps) */
	static const double d43[5] = { 0.1755455021294052285459, 0.1755455021294052285459,
		-0.3468582000260062242876, 0.7707671957671957671958, 0.225 };
	assert_int_equal(coef_make("esdirk335l2sa", 0, NAN, &c), 0);
	for (int j = 0; j < 5; j++)
		assert_near(c.A[4][j], d43[j], TABLE_RTOL, 0);
	/* ESDIRK4(3)6L[2]SA2 embedded weights (reference §D, first value x2):
	 * they sum to 1 and are third order (Kennedy & Carpenter 2019) */
	assert_int_equal(coef_make("esdirk436l2sa2", 0, NAN, &c), 0);
	assert_int_equal(c.has_bhat, 1);
	double s0 = 0, s1 = 0, s2 = 0, s3 = 0;
	for (int i = 0; i < c.s; i++) {
		double ac = 0;
		for (int j = 0; j <= i; j++)
			ac += c.A[i][j] * c.c[j];
		s0 += c.bhat[i];
		s1 += c.bhat[i] * c.c[i];
		s2 += c.bhat[i] * c.c[i] * c.c[i];
		s3 += c.bhat[i] * ac;
	}
	assert_near(s0, 1, 0, 1e-15);
	assert_near(s1, 0.5, 0, 1e-14);
	assert_near(s2, 1.0 / 3, 0, 1e-14);
	assert_near(s3, 1.0 / 6, 0, 1e-14);
}

/* --------------------------------------------------------------- LMS */

static double ipow(double x, int n)
{
	double p = 1;
	while (n-- > 0)
		p *= x;
	return p;
}

static double binom(int n, int k)
{
	double b = 1;
	for (int i = 1; i <= k; i++)
		b = b * (n - k + i) / i;
	return b;
}

static void test_lms(void **state)
{
	static const char *names[] = { "lms2", "lms3", "lms4" };
	for (int m = 0; m < 3; m++) {
		int k = m + 2;
		for (int q = 0; q < NRHO; q++) {
			struct coef c;
			double rho = rhos[q];
			assert_int_equal(coef_make(names[m], rho, NAN, &c), 0);
			assert_int_equal(c.kind, COEF_LMS);
			assert_int_equal(c.k, k);
			assert_int_equal(c.order, 2);
			/* exact for y = t^p, p = 0..2 with t_{n-j} = -j, h = 1 (004 eq. 2):
			 * 0^p = sum a_j (-j)^p + sum b_j p (-j)^(p-1); p = 0 is sum a = 1 */
			for (int p = 0; p <= 2; p++) {
				double r = p == 0 ? -1 : 0;
				for (int j = 1; j <= k; j++)
					r += c.a[j] * ipow(-j, p);
				for (int j = 0; j <= k && p > 0; j++)
					r += c.b[j] * p * ipow(-j, p - 1);
				assert_near(r, 0, 0, 1e-14);
			}
			/* sigma(z) = sum b_j z^(k-j) = b0 (z + rho)^k: all roots at -rho,
			 * the spectral radius at infinity (reference §A) */
			for (int j = 0; j <= k; j++)
				assert_near(c.b[j], c.b[0] * binom(k, j) * ipow(rho, j), 1e-14, 1e-16);
		}
	}
	/* reference tables LMS2, LMS3, LMS4 at rho = 0.3 and 0.7 */
	static const struct { const char *n; double rho, a[4], b[5]; } tab[] = {
		{ "lms2", 0.3, { 1.037037037037037037037, -0.03703703703703703703704 },
		  { 0.5698005698005698005698, 0.3418803418803418803419, 0.05128205128205128205128 } },
		{ "lms2", 0.7, { 0.5217391304347826086957, 0.4782608695652173913043 },
		  { 0.5115089514066496163683, 0.7161125319693094629156, 0.2506393861892583120205 } },
		{ "lms3", 0.3, { 0.8661233993015133876601, 0.08731082654249126891735,
				 0.04656577415599534342258 },
		  { 0.5372973941076385779529, 0.4835676546968747201576, 0.1450702964090624160473,
		    0.01450702964090624160473 } },
		{ "lms3", 0.7, { -0.137339055793991416309, 0.7939914163090128755365,
				 0.3433476394849785407725 },
		  { 0.5049229992426155011361, 1.060338298409492552386, 0.74223680888664478667,
		    0.1731885887402171168897 } },
		{ "lms4", 0.3, { 0.6301061324779032863529, 0.2455721257209159471726,
				 0.1190321810053578131932, 0.005289560795822953281234 },
		  { 0.5250184412727497053334, 0.6300221295272996464001, 0.28350995828728484088,
		    0.05670199165745696817601, 0.004252649374309272613201 } },
		{ "lms4", 0.7, { -0.8237054774019754564502, 0.6860221490571685124214,
				 0.8975926796938470090221, 0.2400906486509599350066 },
		  { 0.5030446779130688492098, 1.408525098156592777788, 1.478951353064422416677,
		    0.6901772980967304611159, 0.1207810271669278306953 } },
	};
	for (int t = 0; t < 6; t++) {
		struct coef c;
		assert_int_equal(coef_make(tab[t].n, tab[t].rho, NAN, &c), 0);
		for (int j = 1; j <= c.k; j++)
			assert_near(c.a[j], tab[t].a[j - 1], 1e-15, 1e-16);
		for (int j = 0; j <= c.k; j++)
			assert_near(c.b[j], tab[t].b[j], 1e-15, 0);
	}
}

/* ---------------------------------------------------------------- SS */

static void test_ss(void **state)
{
	struct coef c;
	/* reference table "SS2 / SS3 / SS4 gamma values", rho = 0.3 */
	assert_int_equal(coef_make("ss2", 0.3, NAN, &c), 0);
	assert_int_equal(c.r, 2);
	assert_near(creal(c.g[0]), 0.7692307692307692307692, 1e-15, 0);
	assert_near(creal(c.g[1]), 1.038461538461538461538, 1e-15, 0);
	assert_near(creal(c.g[2]), 0.7692307692307692307692, 1e-15, 0);
	assert_int_equal(coef_make("ss3", 0.3, NAN, &c), 0);
	assert_near(creal(c.g[1]), 0.9038461538461538461538, 1e-15, 0);
	assert_near(cimag(c.g[1]), 0.1737877142528969115145, 1e-15, 0);
	assert_near(creal(c.g[3]), 0.9038461538461538461538, 1e-15, 0);
	assert_near(cimag(c.g[3]), -0.1737877142528969115145, 1e-15, 0);
	assert_int_equal(coef_make("ss4", 0.3, NAN, &c), 0);
	assert_near(creal(c.g[1]), 0.9535914356929679939919, 1e-15, 0);
	assert_near(cimag(c.g[1]), 0, 0, 0);
	assert_near(creal(c.g[3]), 0.8116658206150544645425, 1e-15, 0);
	assert_near(cimag(c.g[3]), 0.2013472706180977583279, 1e-15, 0);
	assert_near(creal(c.g[5]), 0.8116658206150544645425, 1e-15, 0);
	assert_near(cimag(c.g[5]), -0.2013472706180977583279, 1e-15, 0);
	for (int e = 0; e <= 6; e += 2)
		assert_near(creal(c.g[e]), 0.7692307692307692307692, 1e-15, 0);
	/* rho = 0: SS4 w roots themselves (reference "SS4 w roots") */
	assert_int_equal(coef_make("ss4", 0, NAN, &c), 0);
	assert_near(creal(c.g[1]), 1.342384094858369131699, 1e-15, 0);
	assert_near(creal(c.g[3]), 1.07880795257081543415, 1e-15, 0);
	assert_near(cimag(c.g[3]), 0.373930645433610122609, 1e-15, 0);
	/* the y'_n coefficient of the SS_r step, P_{r-1} g_{2r-2} with
	 * P_k = prod_{j<k} g_2j / g_2j+1 (reference §C; 004 eqs. 9-11), is the
	 * LMS b0 of the equivalent LMS_r (reference §5: same transfer function) */
	static const char *ss[] = { "ss2", "ss3", "ss4" }, *lms[] = { "lms2", "lms3", "lms4" };
	for (int m = 0; m < 3; m++)
		for (int q = 0; q < NRHO; q++) {
			struct coef a, b;
			assert_int_equal(coef_make(ss[m], rhos[q], NAN, &a), 0);
			assert_int_equal(coef_make(lms[m], rhos[q], NAN, &b), 0);
			assert_int_equal(a.kind, COEF_SS);
			double complex P = 1;
			for (int j = 0; j < a.r - 1; j++)
				P *= a.g[2 * j] / a.g[2 * j + 1];
			double complex b0 = P * a.g[2 * a.r - 2];
			assert_near(creal(b0), b.b[0], 1e-14, 0);
			assert_near(cimag(b0), 0, 0, 1e-15);
		}
}

/* -------------------------------------------------------- predictors */

/* y = sum p_i t^i and y' */
static double py(const double *p, int n, double t, double *dy)
{
	double v = 0, d = 0;
	for (int i = n; i >= 0; i--) {
		d = d * t + v;
		v = v * t + p[i];
	}
	*dy = d;
	return v;
}

/* sum m_i y_i + n_i y'_i of the np points against y'(tN).  Round-off: the
 * terms (their moduli sum to 54 for pred2, 417 for pred4) cancel to
 * y'(tN) ~ 8, and m, n are rounded themselves, a few ulps each: 1e-14 of
 * the sum of |terms|, ~45 ulps of it (measured 0.3 and 1 ulp of it). */
static void check_pred(int np, const double *m, const double *n, const double *y,
		       const double *dy, double dN)
{
	double pr = 0, sum = 0;
	for (int i = 0; i < np; i++) {
		pr += m[i] * y[i] + n[i] * dy[i];
		sum += fabs(m[i] * y[i]) + fabs(n[i] * dy[i]);
	}
	assert_near(pr, dN, 0, 1e-14 * sum);
}

static void test_predictors(void **state)
{
	/* an arbitrary quintic; unequal steps 0.7, 0.4, 0.55 (made-up) */
	static const double p[6] = { 0.3, -1.1, 0.8, 1.7, -0.6, 0.45 };
	double tN = 1.2, t1 = tN - 0.7, t2 = t1 - 0.4, t3 = t2 - 0.55;
	double hn = tN - t1, y[3], dy[3], dN;
	const double ts[3] = { t1, t2, t3 };
	/* cubic: the first four coefficients */
	for (int i = 0; i < 3; i++)
		y[i] = py(p, 3, ts[i], &dy[i]);
	py(p, 3, tN, &dN);
	double m[3], n[3];
	coef_pred2(hn, hn / (t1 - t2), m, n);
	/* exact for degree 3 (004 eq. 14: sigma = O(h^3) ... Hermite cubic) */
	check_pred(2, m, n, y, dy, dN);
	/* degree 5 with pred4 (004 eq. 17) */
	for (int i = 0; i < 3; i++)
		y[i] = py(p, 5, ts[i], &dy[i]);
	py(p, 5, tN, &dN);
	coef_pred4(hn, hn / (t1 - t2), hn / (t2 - t3), m, n);
	check_pred(3, m, n, y, dy, dN);
	/* equal steps (reference §B): alpha = 1, m = (-57, 24, 33)/h,
	 * n = (24, 57, 10); pred2: m = (-12, 12)/h, n = (8, 5) from eq. 14 */
	coef_pred4(0.5, 1, 1, m, n);
	assert_near(m[0], -57 / 0.5, 1e-15, 0);
	assert_near(m[1], 24 / 0.5, 1e-15, 0);
	assert_near(m[2], 33 / 0.5, 1e-15, 0);
	assert_near(n[0], 24, 1e-15, 0);
	assert_near(n[1], 57, 1e-15, 0);
	assert_near(n[2], 10, 1e-15, 0);
	coef_pred2(0.5, 1, m, n);
	assert_near(m[0], -12 / 0.5, 1e-15, 0);
	assert_near(m[1], 12 / 0.5, 1e-15, 0);
	assert_near(n[0], 8, 1e-15, 0);
	assert_near(n[1], 5, 1e-15, 0);
}

static void test_lms2_var(void **state)
{
	for (int q = 0; q < NRHO; q++) {
		double rho = rhos[q], a[3], hb[3];
		struct coef c;
		assert_int_equal(coef_make("lms2", rho, NAN, &c), 0);
		/* ratio 1 is the constant-step LMS2 (reference §A) */
		coef_lms2_var(rho, 1, 0.25, a, hb);
		assert_near(a[1], c.a[1], 1e-15, 1e-16);
		assert_near(a[2], c.a[2], 1e-15, 1e-16);
		for (int j = 0; j < 3; j++)
			assert_near(hb[j], 0.25 * c.b[j], 1e-15, 1e-16);
		/* order 2 for ratios 0.5 and 1.7 (reference §5 checks
		 * alpha in {0.5, 0.8, 1.25, 2}): exact for 1, t, t^2 with
		 * t_n = 0, t_{n-1} = -ratio H, t_{n-2} = -(ratio + 1) H */
		static const double ratios[] = { 0.5, 1.7 };
		for (int i = 0; i < 2; i++) {
			double H = 0.3, al = ratios[i];
			double t[3] = { 0, -al * H, -(al + 1) * H };
			coef_lms2_var(rho, al, H, a, hb);
			for (int p = 0; p <= 2; p++) {
				double r = -ipow(t[0], p);
				for (int j = 1; j <= 2; j++)
					r += a[j] * ipow(t[j], p);
				for (int j = 0; j <= 2 && p > 0; j++)
					r += hb[j] * p * ipow(t[j], p - 1);
				assert_near(r, 0, 0, 1e-15);
			}
		}
	}
}

/* ------------------------------------------------------------ Newmark */

static void test_newmark(void **state)
{
	struct coef c;
	/* reference §F.3 formulas at rho = 1: trapezoidal (1/2, 1/2, 1/2, 1/4) */
	assert_int_equal(coef_make("genalpha", 1, NAN, &c), 0);
	assert_int_equal(c.kind, COEF_NEWMARK);
	assert_near(c.alpha_m, 0.5, 0, 1e-16);
	assert_near(c.alpha_f, 0.5, 0, 1e-16);
	assert_near(c.gam, 0.5, 0, 1e-16);
	assert_near(c.beta, 0.25, 0, 1e-16);
	/* reference §F.3: rho = 0.5 is HHT with alpha = -1/3
	 * (alpha_m = 0, alpha_f = 1/3, gam = 5/6, beta = 4/9) */
	assert_int_equal(coef_make("genalpha", 0.5, NAN, &c), 0);
	assert_near(c.alpha_m, 0, 0, 1e-16);
	assert_near(c.alpha_f, 1.0 / 3, 1e-15, 0);
	assert_near(c.gam, 5.0 / 6, 1e-15, 0);
	assert_near(c.beta, 4.0 / 9, 1e-15, 0);
	struct coef h;
	assert_int_equal(coef_make("hht", 0.5, NAN, &h), 0);
	assert_near(h.alpha_hht, -1.0 / 3, 1e-15, 0);
	assert_near(h.gam, c.gam, 1e-15, 0);
	assert_near(h.beta, c.beta, 1e-15, 0);
	assert_near(h.alpha_m, 0, 0, 0);
	assert_near(h.alpha_f, 0, 0, 0);
	/* rho = 0.8: alpha = (rho-1)/(rho+1) = -1/9 */
	assert_int_equal(coef_make("hht", 0.8, NAN, &h), 0);
	assert_near(h.alpha_hht, -1.0 / 9, 1e-15, 0);
	/* rho = 0 clips to alpha = -1/3 (reference §F.2 range) */
	assert_int_equal(coef_make("hht", 0, NAN, &h), 0);
	assert_near(h.alpha_hht, -1.0 / 3, 1e-15, 0);
	/* explicit alpha = -0.2 (Chrono default): beta = 0.36, gam = 0.7 */
	assert_int_equal(coef_make("hht", 0.3, -0.2, &h), 0);
	assert_near(h.beta, 0.36, 1e-15, 0);
	assert_near(h.gam, 0.7, 1e-15, 0);
	/* outside [-1/3, 0] is refused */
	assert_int_equal(coef_make("hht", 0.3, 0.1, &h), -1);
}

static void test_bad_input(void **state)
{
	struct coef c;
	assert_int_equal(coef_make("msstc6", 0.5, NAN, &c), -1);
	assert_int_equal(coef_make("lms2", 1.5, NAN, &c), -1);
	assert_int_equal(coef_make("lms2", NAN, NAN, &c), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_dirk_conditions),
		cmocka_unit_test(test_dirk_sweep),
		cmocka_unit_test(test_gamma_tables),
		cmocka_unit_test(test_tableau_tables),
		cmocka_unit_test(test_lms),
		cmocka_unit_test(test_ss),
		cmocka_unit_test(test_predictors),
		cmocka_unit_test(test_lms2_var),
		cmocka_unit_test(test_newmark),
		cmocka_unit_test(test_bad_input),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
