/* test_so3.c - SO(3) exponential and logarithm, quaternions, frames
 * (util/so3.c; 000 §2 uses A <- A exp(theta~)).
 *
 * Reference values are computed here independently of so3.c: the matrix
 * exponential by its Taylor series, rotations by their defining properties
 * (R^T R = I, det R = 1).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>

#include "testutil.h"
#include "util/vec.h"

/* Orthonormality and determinant of products of O(1) numbers: a handful of
 * roundings of 1.1e-16 each; 1e-14 is about 50 ulps. */
#define ORTHO_TOL 1e-14

static double det3(const double *R)
{
	return R[0] * (R[4] * R[8] - R[5] * R[7]) - R[1] * (R[3] * R[8] - R[5] * R[6]) +
	       R[2] * (R[3] * R[7] - R[4] * R[6]);
}

/* R^T R = I and det R = 1 to tol; a failure names the caller's line */
#define assert_rotation(R, tol) rotation_at((R), (tol), __LINE__)
static void rotation_at(const double *R, double tol, int line)
{
	double RtR[9], I[9];
	m3_tmul(RtR, R, R);
	m3_identity(I);
	for (int k = 0; k < 9; k++)
		testutil_near(RtR[k], I[k], 0, tol, "R^T R entry", __FILE__, line);
	testutil_near(det3(R), 1.0, 0, tol, "det R", __FILE__, line);
}

/* every entry of A within tol of B's */
#define assert_m3_near(A, B, tol, what) m3_near_at((A), (B), (tol), (what), __LINE__)
static void m3_near_at(const double *A, const double *B, double tol, const char *what, int line)
{
	for (int k = 0; k < 9; k++)
		testutil_near(A[k], B[k], 0, tol, what, __FILE__, line);
}

/* exp(skew(th)) by the Taylor series sum S^k / k!, k <= 40.  For |th| <= pi
 * the first omitted term is below pi^41 / 41! ~ 3e-30. */
static void exp_series(double *E, const double *th)
{
	double S[9], T[9], U[9];
	m3_skew(S, th);
	m3_identity(E);
	m3_identity(T);
	for (int k = 1; k <= 40; k++) {
		m3_mul(U, T, S);
		for (int i = 0; i < 9; i++) {
			T[i] = U[i] / k;
			E[i] += T[i];
		}
	}
}

/* angles: 0, tiny, around the old 1e-4 and the present 0.02 series
 * switches of so3.c (SO3_SERIES for exp, Jr, Jr^-1; tan(t/2) = 0.01, t =
 * 0.019999, for the log), moderate, and close to pi */
static const double angles[] = { 0.0, 1e-13, 1e-9, 1e-6, 0.99e-4, 1.01e-4,
				 1e-3, 0.0199, 0.019999, 0.0200001, 0.0201, 0.3, 1.0, 2.0,
				 3.0, M_PI - 1e-3, M_PI - 1e-6 };
#define NANG (int)(sizeof angles / sizeof angles[0])

static void test_exp_is_rotation(void **state)
{
	testutil_seed(0x9E3779B97F4A7C15ULL);	/* fixed seed */
	for (int i = 0; i < NANG; i++)
		for (int rep = 0; rep < 20; rep++) {
			double u[3], th[3], R[9];
			testutil_rand_unit(u);
			v3_scale(th, angles[i], u);
			so3_exp(R, th);
			assert_rotation(R, ORTHO_TOL);
			/* the axis is fixed: R u = u */
			double Ru[3];
			m3_mulv(Ru, R, u);
			for (int k = 0; k < 3; k++)
				assert_near(Ru[k], u[k], 0, ORTHO_TOL);
		}
}

static void test_exp_vs_series(void **state)
{
	testutil_seed(12345);
	for (int i = 0; i < NANG; i++)
		for (int rep = 0; rep < 20; rep++) {
			double u[3], th[3], R[9], E[9];
			testutil_rand_unit(u);
			v3_scale(th, angles[i], u);
			so3_exp(R, th);
			exp_series(E, th);
			/* series: terms up to pi^3/6 ~ 5 summed in double, error
			 * a few 1e-15; Rodrigues: sin, cos to 1 ulp */
			assert_m3_near(R, E, 1e-13, "so3_exp vs Taylor series");
		}
	/* a fixed case by hand: rotation by pi/2 about z maps x to y */
	double th[3] = { 0, 0, M_PI / 2 }, R[9], x[3] = { 1, 0, 0 }, y[3];
	so3_exp(R, th);
	m3_mulv(y, R, x);
	assert_near(y[0], 0.0, 0, 1e-15);
	assert_near(y[1], 1.0, 0, 1e-15);
	assert_near(y[2], 0.0, 0, 1e-15);
}

static void test_log_inverts_exp(void **state)
{
	testutil_seed(777);
	for (int i = 0; i < NANG; i++)
		for (int rep = 0; rep < 20; rep++) {
			double u[3], th[3], R[9], back[3];
			testutil_rand_unit(u);
			v3_scale(th, angles[i], u);
			so3_exp(R, th);
			so3_log(back, R);
			/* accuracy relative to the angle: R's entries carry
			 * ~1e-16 absolute error; for small angles the log reads
			 * theta off the skew part R - R^T (size ~|th|, relative
			 * error ~1e-16 per entry); near pi the angle comes from
			 * atan2(|q_v|, q_0) with q_0 ~ cos(th/2) known to
			 * ~1e-16 absolutely, so the angle error is ~4e-16.
			 * Measured worst 2.8e-16 |th| (near pi); 1e-14 |th| is
			 * 35 times that.  Angle 0: exactly 0. */
			for (int k = 0; k < 3; k++)
				assert_near(back[k], th[k], 0, 1e-14 * angles[i]);
		}
	/* exactly pi about z: the log has norm pi (either sign is the same R) */
	double th[3] = { 0, 0, M_PI }, R[9], back[3];
	so3_exp(R, th);
	so3_log(back, R);
	assert_near(v3_norm(back), M_PI, 0, 1e-14);
	assert_near(fabs(back[2]), M_PI, 0, 1e-14);
}

/* Jr and Jr^-1 (so3_jr, so3_jrinv) against their definitions: exp(th +
 * d) = exp(th) exp((Jr d)~) to first order, checked by central differences
 * of exp along each axis (step 1e-5: truncation ~1e-10, round-off ~1e-11),
 * and Jr Jr^-1 = I (both closed forms or both series, ~1e-15; 1e-13). */
static void test_jr_and_inverse(void **state)
{
	testutil_seed(4242);
	for (int i = 0; i < NANG; i++) {
		if (angles[i] > 3.0)	/* Jr^-1 grows like 1/(pi - t) */
			continue;
		for (int rep = 0; rep < 10; rep++) {
			double u[3], th[3], J[9], Ji[9], P[9], R[9];
			testutil_rand_unit(u);
			v3_scale(th, angles[i], u);
			so3_jr(J, th);
			so3_jrinv(Ji, th);
			m3_mul(P, J, Ji);
			for (int e = 0; e < 9; e++)
				assert_near(P[e], e % 4 == 0 ? 1.0 : 0.0, 0, 1e-13);
			so3_exp(R, th);
			for (int k = 0; k < 3; k++) {
				double h = 1e-5, tp[3], tm[3], Ep[9], Em[9], D[9], S[9];
				v3_copy(tp, th);
				v3_copy(tm, th);
				tp[k] += h;
				tm[k] -= h;
				so3_exp(Ep, tp);
				so3_exp(Em, tm);
				for (int e = 0; e < 9; e++)
					D[e] = (Ep[e] - Em[e]) / (2.0 * h);
				m3_tmul(S, R, D);	/* R^T D = (Jr e_k)~ */
				assert_near(S[7], J[k], 0, 1e-9);
				assert_near(S[2], J[3 + k], 0, 1e-9);
				assert_near(S[3], J[6 + k], 0, 1e-9);
			}
		}
	}
}

static void test_quaternion_round_trip(void **state)
{
	testutil_seed(4242);
	for (int rep = 0; rep < 200; rep++) {
		double q[4], q2[4], R[9], R2[9], n;
		do {
			for (int k = 0; k < 4; k++)
				q[k] = testutil_urand();
			n = sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
		} while (n < 0.1 || n > 1.0);
		for (int k = 0; k < 4; k++)	/* unit, w >= 0 (the convention) */
			q[k] = (q[0] < 0 ? -q[k] : q[k]) / n;
		quat_to_mat(R, q);
		assert_rotation(R, ORTHO_TOL);
		mat_to_quat(q2, R);
		for (int k = 0; k < 4; k++)
			assert_near(q2[k], q[k], 0, 1e-14);
		quat_to_mat(R2, q2);
		assert_m3_near(R2, R, 1e-14, "R -> q -> R");
	}
	/* the quaternion of exp(th) is (cos |th|/2, sin |th|/2 u) */
	double u[3] = { 0.6, 0.0, 0.8 }, th[3], R[9], q[4];
	v3_scale(th, 1.2, u);
	so3_exp(R, th);
	mat_to_quat(q, R);
	assert_near(q[0], cos(0.6), 0, 1e-15);
	for (int k = 0; k < 3; k++)
		assert_near(q[k + 1], sin(0.6) * u[k], 0, 1e-15);
	/* half turns about each axis exercise every branch of Shepperd's
	 * method (largest diagonal entry x, y, z); q is defined up to sign */
	for (int a = 0; a < 3; a++) {
		double t[3] = { 0, 0, 0 }, R2[9];
		t[a] = M_PI - 1e-3;
		so3_exp(R, t);
		mat_to_quat(q, R);
		quat_to_mat(R2, q);
		assert_m3_near(R2, R, 1e-14, "half turn R -> q -> R");
		assert_near(fabs(q[a + 1]), sin((M_PI - 1e-3) / 2), 0, 1e-14);
	}
}

static void test_orthonormalize(void **state)
{
	testutil_seed(99);
	/* perturbations of each entry up to 1e-6 (the deck loader admits
	 * inputs within 1e-5 of orthonormal, so this is the intended range) */
	const double eps = 1e-6;
	for (int rep = 0; rep < 100; rep++) {
		double u[3], th[3], R0[9], R[9];
		testutil_rand_unit(u);
		v3_scale(th, 3.0 * fabs(testutil_urand()), u);
		so3_exp(R0, th);
		for (int k = 0; k < 9; k++)
			R[k] = R0[k] + eps * testutil_urand();
		m3_orthonormalize(R);
		assert_rotation(R, ORTHO_TOL);
		/* close to R0: the quaternion is a linear function of four
		 * entries divided by a pivot >= 1 (Shepperd), so its error is
		 * a small multiple of eps; 10 eps per entry allows for it */
		assert_m3_near(R, R0, 10 * eps, "orthonormalized vs unperturbed");
	}
}

static void test_frame_from_axis(void **state)
{
	testutil_seed(2024);
	double zs[20][3] = {
		{ 0, 0, 1 }, { 0, 0, -2 }, { 1, 0, 0 }, { 0, -3, 0 },
		{ 1, 1, 1 }, { 1e-3, 0, 5 },
	};
	for (int i = 6; i < 20; i++) {	/* random directions and lengths */
		testutil_rand_unit(zs[i]);
		v3_scale(zs[i], 0.1 + 3.0 * fabs(testutil_urand()), zs[i]);
	}
	for (int i = 0; i < 20; i++) {
		double F[9], x[3], y[3], z[3], xy[3], zu[3];
		frame_from_axis(F, zs[i]);
		assert_rotation(F, ORTHO_TOL);	/* orthonormal, det +1 */
		v3_set(x, F[0], F[3], F[6]);
		v3_set(y, F[1], F[4], F[7]);
		v3_set(z, F[2], F[5], F[8]);
		v3_cross(xy, x, y);		/* right-handed: x X y = z */
		v3_scale(zu, 1.0 / v3_norm(zs[i]), zs[i]);
		for (int k = 0; k < 3; k++) {
			assert_near(xy[k], z[k], 0, ORTHO_TOL);
			assert_near(z[k], zu[k], 0, ORTHO_TOL);
		}
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_exp_is_rotation),
		cmocka_unit_test(test_exp_vs_series),
		cmocka_unit_test(test_log_inverts_exp),
		cmocka_unit_test(test_jr_and_inverse),
		cmocka_unit_test(test_quaternion_round_trip),
		cmocka_unit_test(test_orthonormalize),
		cmocka_unit_test(test_frame_from_axis),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
