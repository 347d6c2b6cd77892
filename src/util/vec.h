/* vec.h - small dense kernels on 3-vectors and 3x3 matrices (row-major).
 *
 * All inline: these sit in the innermost loops of constraint evaluation.
 * A 3x3 matrix M is double[9] with M[3*i+j] = row i, column j.
 */
#ifndef MBSIM_VEC_H
#define MBSIM_VEC_H

#include <math.h>
#include <stddef.h>
#include <string.h>

static inline void v3_set(double *y, double a, double b, double c)
{
	y[0] = a; y[1] = b; y[2] = c;
}
static inline void v3_copy(double *y, const double *x)
{
	y[0] = x[0]; y[1] = x[1]; y[2] = x[2];
}
static inline double v3_dot(const double *a, const double *b)
{
	return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}
static inline double v3_norm(const double *a)
{
	return sqrt(v3_dot(a, a));
}
static inline void v3_add(double *y, const double *a, const double *b)
{
	y[0] = a[0] + b[0]; y[1] = a[1] + b[1]; y[2] = a[2] + b[2];
}
static inline void v3_sub(double *y, const double *a, const double *b)
{
	y[0] = a[0] - b[0]; y[1] = a[1] - b[1]; y[2] = a[2] - b[2];
}
static inline void v3_scale(double *y, double s, const double *a)
{
	y[0] = s * a[0]; y[1] = s * a[1]; y[2] = s * a[2];
}
/* y[0 .. m) += s x[0 .. m), x and y apart; by fours, which GCC's -O2
 * turns into pairs of vector operations (a loop of unknown length it
 * leaves scalar): the many-right-side sweeps of kkt, spf and rp_jac, and
 * kkt's dense Cholesky solve and LU */
static inline void vec_axpy(size_t m, double s, const double *restrict x, double *restrict y)
{
	size_t c = 0;
	for (; c + 4 <= m; c += 4) {
		y[c] += s * x[c];
		y[c + 1] += s * x[c + 1];
		y[c + 2] += s * x[c + 2];
		y[c + 3] += s * x[c + 3];
	}
	for (; c < m; c++)
		y[c] += s * x[c];
}

/* y += s a */
static inline void v3_axpy(double *y, double s, const double *a)
{
	y[0] += s * a[0]; y[1] += s * a[1]; y[2] += s * a[2];
}
/* y = a x b (y may not alias a or b) */
static inline void v3_cross(double *y, const double *a, const double *b)
{
	y[0] = a[1] * b[2] - a[2] * b[1];
	y[1] = a[2] * b[0] - a[0] * b[2];
	y[2] = a[0] * b[1] - a[1] * b[0];
}
/* y = M x */
static inline void m3_mulv(double *y, const double *M, const double *x)
{
	y[0] = M[0] * x[0] + M[1] * x[1] + M[2] * x[2];
	y[1] = M[3] * x[0] + M[4] * x[1] + M[5] * x[2];
	y[2] = M[6] * x[0] + M[7] * x[1] + M[8] * x[2];
}
/* y = M^T x */
static inline void m3_tmulv(double *y, const double *M, const double *x)
{
	y[0] = M[0] * x[0] + M[3] * x[1] + M[6] * x[2];
	y[1] = M[1] * x[0] + M[4] * x[1] + M[7] * x[2];
	y[2] = M[2] * x[0] + M[5] * x[1] + M[8] * x[2];
}
/* C = A B (C may not alias) */
static inline void m3_mul(double *C, const double *A, const double *B)
{
	for (int i = 0; i < 3; i++)
		for (int j = 0; j < 3; j++)
			C[3 * i + j] = A[3 * i] * B[j] + A[3 * i + 1] * B[3 + j] +
				       A[3 * i + 2] * B[6 + j];
}
/* C = A^T B */
static inline void m3_tmul(double *C, const double *A, const double *B)
{
	for (int i = 0; i < 3; i++)
		for (int j = 0; j < 3; j++)
			C[3 * i + j] = A[i] * B[j] + A[3 + i] * B[3 + j] +
				       A[6 + i] * B[6 + j];
}
static inline void m3_identity(double *M)
{
	memset(M, 0, 9 * sizeof(double));
	M[0] = M[4] = M[8] = 1.0;
}
/* S = skew(a): S x = a x x */
static inline void m3_skew(double *S, const double *a)
{
	S[0] = 0; S[1] = -a[2]; S[2] = a[1];
	S[3] = a[2]; S[4] = 0; S[5] = -a[0];
	S[6] = -a[1]; S[7] = a[0]; S[8] = 0;
}

/* G = w~ J - (J w)~: the derivative of the gyroscopic moment w~ J w by w
 * (body frame), shared by the iteration matrices and the linearization */
static inline void m3_gyro_dw(double *G, const double *J, const double *w)
{
	double Jw[3], W[9], S[9];
	m3_mulv(Jw, J, w);
	m3_skew(W, w);
	m3_mul(G, W, J);
	m3_skew(S, Jw);
	for (int i = 0; i < 9; i++)
		G[i] -= S[i];
}

/* R = I + a th~ + b th~^2 written out: exp(th~) with a = sin t / t, b =
 * (1 - cos t) / t^2, t = |th| (so3_exp, so3_exp_jr, the tree's charts) */
static inline void so3_rodrigues(double *R, const double *th, double a, double b)
{
	double x = th[0], y = th[1], z = th[2];
	R[0] = 1.0 - b * (y * y + z * z);
	R[1] = -a * z + b * x * y;
	R[2] = a * y + b * x * z;
	R[3] = a * z + b * x * y;
	R[4] = 1.0 - b * (x * x + z * z);
	R[5] = -a * x + b * y * z;
	R[6] = -a * y + b * x * z;
	R[7] = a * x + b * y * z;
	R[8] = 1.0 - b * (x * x + y * y);
}
/* SO(3) exponential: R = exp(skew(th)) (Rodrigues, series near 0). */
void so3_exp(double *R, const double *th);
/* Right Jacobian of the exponential: exp((th + d)~) = exp(th~) exp((Jr d)~)
 * to first order in d; Jr = I - (1 - cos t)/t^2 th~ + (t - sin t)/t^3 th~^2. */
void so3_jr(double *Jr, const double *th);
/* Both at the same th (one sin, cos): so3_exp(R, th), so3_jr(Jr, th). */
void so3_exp_jr(double *R, double *Jr, const double *th);
/* SO(3) logarithm: th with exp(skew(th)) = R, |th| <= pi. */
void so3_log(double *th, const double *R);
/* Inverse of so3_jr. */
void so3_jrinv(double *J, const double *psi);
/* Unit quaternion (w,x,y,z) <-> rotation matrix. */
void quat_to_mat(double *R, const double *q);
void mat_to_quat(double *q, const double *R);
/* Intrinsic Euler angle sequence s, three of 'x', 'y', 'z' with no two
 * neighbours equal ("zyx": A = Rz(a0) Ry(a1) Rx(a2)), as axis indices
 * 0..2 in ax: 0, or -1 when s is not such a sequence. */
int euler_seq(const char *s, int ax[3]);
/* Angles a[3] (rad, in [-pi, pi]) of the unit quaternion q (w,x,y,z) in
 * the intrinsic sequence ax: A(q) = R_ax0(a0) R_ax1(a1) R_ax2(a2).  At a
 * singular attitude (the middle angle 0 or pi for a0 = a2 sequences,
 * +-pi/2 for the others) a2 is 0 and a0 carries the rotation. */
void quat_to_euler(double a[3], const double *q, const int ax[3]);
/* Re-orthonormalize a near-rotation (nearest rotation via quaternion). */
void m3_orthonormalize(double *R);
/* Orthonormal frame (columns x, y, z) whose third column is unit(z). */
void frame_from_axis(double *F, const double *z);

#endif
