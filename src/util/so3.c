/* so3.c - exponential, its right Jacobian and logarithm on SO(3), quaternion conversions.
 *
 * The Lie-group update of 000 eq. 4d, A_{n+1} = A_n exp(h w~), uses so3_exp.
 */
#include "vec.h"

/* Below this angle the coefficients come from their Taylor series to t^6:
 * the first term left out is under t^8 / 362880 < 1e-19 of them, while
 * the closed forms lose digits there (1 - cos t at t = 0.02 carries a
 * round-off of 5e-13 of itself), and no sin, cos or sqrt is taken: the
 * rotations of a step and a beam element's relative rotations mostly lie
 * below it. */
#define SO3_SERIES 2e-2

/* The coefficients of exp and its right Jacobian at th: a = sin t / t,
 * b = (1 - cos t) / t^2, c = (t - sin t) / t^3 (t = |th|; Taylor below
 * SO3_SERIES); a or c NULL when not wanted. */
static inline void so3_coef(const double *th, double *a, double *b, double *c)
{
	double t2 = v3_dot(th, th);
	if (t2 < SO3_SERIES * SO3_SERIES) {
		double t4 = t2 * t2, t6 = t4 * t2;
		if (a)
			*a = 1.0 - t2 / 6.0 + t4 / 120.0 - t6 / 5040.0;
		*b = 0.5 - t2 / 24.0 + t4 / 720.0 - t6 / 40320.0;
		if (c)
			*c = 1.0 / 6.0 - t2 / 120.0 + t4 / 5040.0 - t6 / 362880.0;
		return;
	}
	double t = sqrt(t2);
	double sn = sin(t);
	if (a)
		*a = sn / t;
	*b = (1.0 - cos(t)) / t2;
	if (c)
		*c = (t - sn) / (t2 * t);
}

void so3_exp(double *R, const double *th)
{
	double a, b;
	so3_coef(th, &a, &b, NULL);
	so3_rodrigues(R, th, a, b);
}

/* M = I + a th~ + c th~^2, with th~^2 = th th^T - |th|^2 I (a third of
 * the flops of squaring the skew matrix; the beam element calls this
 * four times an evaluation) */
static void so3_quad(double *M, const double *th, double a, double c)
{
	double x = th[0], y = th[1], z = th[2], d = 1.0 - c * (x * x + y * y + z * z);
	double cx = c * x, cy = c * y, ax = a * x, ay = a * y, az = a * z;
	M[0] = d + cx * x;
	M[4] = d + cy * y;
	M[8] = d + c * z * z;
	M[1] = cx * y - az;
	M[3] = cx * y + az;
	M[2] = cx * z + ay;
	M[6] = cx * z - ay;
	M[5] = cy * z - ax;
	M[7] = cy * z + ax;
}

void so3_jr(double *Jr, const double *th)
{
	double b, c;
	so3_coef(th, NULL, &b, &c);
	so3_quad(Jr, th, -b, c);
}

/* so3_exp and so3_jr at the same th with one sqrt, sin and cos (the
 * beam element wants both at each evaluation point, seed 004 §3.1) */
void so3_exp_jr(double *R, double *Jr, const double *th)
{
	double a, b, c;
	so3_coef(th, &a, &b, &c);
	so3_rodrigues(R, th, a, b);
	so3_quad(Jr, th, -b, c);
}

/* Inverse of so3_jr: the rates psi' of A_ref exp(psi~) from the body-frame
 * angular velocity.
 * Jr^-1 = I + psi~/2 + (1/t^2 - (1 + cos t)/(2 t sin t)) psi~^2. */
void so3_jrinv(double *J, const double *psi)
{
	double t2 = v3_dot(psi, psi), c;
	if (t2 < SO3_SERIES * SO3_SERIES) {
		c = 1.0 / 12.0 + t2 / 720.0 + t2 * t2 / 30240.0 + t2 * t2 * t2 / 1209600.0;
	} else {
		double t = sqrt(t2);
		c = 1.0 / t2 - (1.0 + cos(t)) / (2.0 * t * sin(t));
	}
	so3_quad(J, psi, 0.5, c);
}

void mat_to_quat(double *q, const double *R)
{
	/* Shepperd's method: pick the largest of w, x, y, z to divide by. */
	double tr = R[0] + R[4] + R[8];
	double c[4] = { tr, R[0], R[4], R[8] };
	int k = 0;
	for (int i = 1; i < 4; i++)
		if (c[i] > c[k])
			k = i;
	double s;
	switch (k) {
	case 0:
		s = 2.0 * sqrt(1.0 + tr);
		q[0] = 0.25 * s;
		q[1] = (R[7] - R[5]) / s;
		q[2] = (R[2] - R[6]) / s;
		q[3] = (R[3] - R[1]) / s;
		break;
	case 1:
		s = 2.0 * sqrt(1.0 + R[0] - R[4] - R[8]);
		q[0] = (R[7] - R[5]) / s;
		q[1] = 0.25 * s;
		q[2] = (R[1] + R[3]) / s;
		q[3] = (R[2] + R[6]) / s;
		break;
	case 2:
		s = 2.0 * sqrt(1.0 - R[0] + R[4] - R[8]);
		q[0] = (R[2] - R[6]) / s;
		q[1] = (R[1] + R[3]) / s;
		q[2] = 0.25 * s;
		q[3] = (R[5] + R[7]) / s;
		break;
	default:
		s = 2.0 * sqrt(1.0 - R[0] - R[4] + R[8]);
		q[0] = (R[3] - R[1]) / s;
		q[1] = (R[2] + R[6]) / s;
		q[2] = (R[5] + R[7]) / s;
		q[3] = 0.25 * s;
		break;
	}
	if (q[0] < 0)
		for (int i = 0; i < 4; i++)
			q[i] = -q[i];
	double n = sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
	for (int i = 0; i < 4; i++)
		q[i] /= n;
}

void quat_to_mat(double *R, const double *q)
{
	double w = q[0], x = q[1], y = q[2], z = q[3];
	R[0] = 1 - 2 * (y * y + z * z);
	R[1] = 2 * (x * y - w * z);
	R[2] = 2 * (x * z + w * y);
	R[3] = 2 * (x * y + w * z);
	R[4] = 1 - 2 * (x * x + z * z);
	R[5] = 2 * (y * z - w * x);
	R[6] = 2 * (x * z - w * y);
	R[7] = 2 * (y * z + w * x);
	R[8] = 1 - 2 * (x * x + y * y);
}

void so3_log(double *th, const double *R)
{
	/* Through the quaternion: robust near 0 and near pi. */
	double q[4];
	mat_to_quat(q, R);
	double s2 = q[1] * q[1] + q[2] * q[2] + q[3] * q[3], f;
	if (s2 < 1e-4 * q[0] * q[0]) {
		/* angle / s = 2 atan(x) / (x q0), x = s / q0 < 0.01: its
		 * series to x^6 (next term x^8 / 9 < 1.2e-17), no atan2 */
		double x2 = s2 / (q[0] * q[0]);
		f = 2.0 / q[0] * (1.0 - x2 / 3.0 + x2 * x2 / 5.0 - x2 * x2 * x2 / 7.0);
	} else {
		double s = sqrt(s2);
		f = 2.0 * atan2(s, q[0]) / s;	/* angle in [0, pi]: q[0] >= 0 */
	}
	th[0] = f * q[1];
	th[1] = f * q[2];
	th[2] = f * q[3];
}

int euler_seq(const char *s, int ax[3])
{
	if (!s || strlen(s) != 3)
		return -1;
	for (int i = 0; i < 3; i++) {
		if (s[i] < 'x' || s[i] > 'z')
			return -1;
		ax[i] = s[i] - 'x';
		if (i > 0 && ax[i] == ax[i - 1])
			return -1;
	}
	return 0;
}

/* The direct method of E. Bernardes, S. Viollet, "Quaternion to Euler
 * angles conversion: A direct, general and computationally efficient
 * method", PLoS ONE 17(11) e0276302 (2022), doi:10.1371/journal.pone.0276302,
 * for every sequence without a matrix: written for extrinsic rotations
 * i, j, k, so the intrinsic ax is taken reversed and the first and last
 * angles swapped back at the end. */
void quat_to_euler(double a[3], const double *q, const int ax[3])
{
	int i = ax[2], j = ax[1], k = ax[0];
	int sym = i == k;
	if (sym)
		k = 3 - i - j;
	double sign = (double)((i - j) * (j - k) * (k - i) / 2);	/* e_ijk */
	const double w = q[0], *v = q + 1;
	double pa, pb, pc, pd;
	if (sym) {
		pa = w;
		pb = v[i];
		pc = v[j];
		pd = v[k] * sign;
	} else {
		pa = w - v[j];
		pb = v[i] + v[k] * sign;
		pc = v[j] + w;
		pd = v[k] * sign - v[i];
	}
	double th[3];
	th[1] = 2 * atan2(hypot(pc, pd), hypot(pa, pb));
	double hs = atan2(pb, pa), hd = atan2(pd, pc);
	const double eps = 1e-7;
	/* at a singular attitude only a sum (th1 = 0: R = R_k(th2 + th0) in
	 * the symmetric form) or a difference (th1 = pi: R_k(th2 - th0)
	 * R_j(pi)) is determined: th0, the last intrinsic angle, is 0 */
	if (fabs(th[1]) <= eps) {
		th[0] = 0;
		th[2] = 2 * hs;
	} else if (fabs(th[1] - M_PI) <= eps) {
		th[0] = 0;
		th[2] = 2 * hd;
	} else {
		th[0] = hs - hd;
		th[2] = hs + hd;
	}
	if (!sym) {
		th[2] *= sign;
		th[1] -= M_PI / 2;
	}
	/* intrinsic: the extrinsic angles in reverse order */
	a[0] = th[2];
	a[1] = th[1];
	a[2] = th[0];
	for (int n = 0; n < 3; n++)
		a[n] = a[n] < -M_PI ? a[n] + 2 * M_PI : a[n] > M_PI ? a[n] - 2 * M_PI : a[n];
}

void m3_orthonormalize(double *R)
{
	double q[4];
	/* A few Newton steps of the polar decomposition R <- (R + R^-T)/2
	 * would also do; the quaternion route is enough for inputs within
	 * 1e-5 of orthonormal, which the deck loader enforces. */
	mat_to_quat(q, R);
	quat_to_mat(R, q);
}

void frame_from_axis(double *F, const double *zin)
{
	double z[3], x[3], y[3], n = v3_norm(zin);
	v3_scale(z, 1.0 / n, zin);
	/* pick the global axis least aligned with z to start x */
	double e[3] = { 0, 0, 0 };
	int k = 0;
	for (int i = 1; i < 3; i++)
		if (fabs(z[i]) < fabs(z[k]))
			k = i;
	e[k] = 1.0;
	v3_cross(y, z, e);
	v3_scale(y, 1.0 / v3_norm(y), y);
	v3_cross(x, y, z);
	for (int i = 0; i < 3; i++) {
		F[3 * i + 0] = x[i];
		F[3 * i + 1] = y[i];
		F[3 * i + 2] = z[i];
	}
}
