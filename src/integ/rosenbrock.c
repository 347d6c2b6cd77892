/* rosenbrock.c - the Rosenbrock-Nystrom family of seed 001 §2 on any ODE
 * of the seam (form/ode.h): rn4, the 4-stage L-stable method of order 4
 * with an embedded order-3 solution, and w2, the 2-stage W-method of
 * order 2 (embedded order 1) of Verwer et al.
 *
 * Coefficients: the defining (alpha_ij), (gamma_ij), (b_i), (b-hat_i) of
 * the underlying Rosenbrock method (001 §2, the tables after eq. 42) are
 * turned into those of the Nystrom form by Theorem 2.1 (eq. 25), in long
 * double, at set-up.  The seed's printed table of the Nystrom form has two
 * misprints that this exposes: gamma_21 is -2.3419931271... (the printed
 * +2.34... contradicts its own gamma_2 = gamma_21 + gamma = -1.7691... and
 * c_21 = gamma_21 / gamma^2 = -7.1376...), and a_21 = alpha_21 / gamma = 2
 * (printed 0.2); every other printed value is reproduced to 1e-20
 * (tests/unit/test_rosenbrock.c).
 *
 * A step (eq. 25; the Jacobians J1 = d f / d y, J2 = d f / d y' at the
 * step's start from the formulation's analytic derivatives when it has
 * them (ode_sys.jac: rp when every force element has one, seed 001 §3),
 * else by forward differences of f through the formulation, step
 * sqrt(eps) max(1, |y_j|); d f / d t by a forward difference):
 *   S = I - h gamma J2 - h^2 gamma^2 J1, factored once (LAPACK dgetrf),
 *   Y_i = y + h alpha_i y' + h sum_j theta_ij z_j,  Y'_i = y' + sum_j a_ij z_j,
 *   S z_i = h gamma f(t + alpha_i h, Y_i, Y'_i) + h^2 gamma gamma_i (f_t + J1 y')
 *           + gamma sum_j c_ij z_j + h^2 gamma J1 sum_j delta_ij z_j,
 *   y+ = y + h y' + h sum mu_i z_i,  y'+ = y' + sum m_i z_i (hats: embedded).
 * A stage whose point equals the previous stage's reuses its f (rn4's
 * fourth, 001 Algorithm 1 step 11).  Step control (integrator.adaptive):
 * eqs. 13-16 on positions and velocities, err the RMS of
 * (y - y-hat) / (atol + max(|y_n|, |y_n+1|) rtol), exponent 1 / (q + 1)
 * with q = min(p, p-hat); a stage whose f fails (the dependent coordinates
 * do not converge) rejects the step and quarters it.
 *
 * rn4 evaluates J1 and J2 at every step; w2, a W-method that keeps its
 * order with any matrix in place of the Jacobian, reuses them for up to
 * ROS_W_AGE steps and evaluates them anew after a rejected step or a new
 * partition.
 */
#include "odeint.h"
#include "../util/ckpt.h"
#include "rosenbrock.h"
#include "../form/rp.h"
#include "../la/lapack.h"
#include "../util/xalloc.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define ROS_W_AGE 5

/* The defining coefficients of a Rosenbrock method (001 eq. 11). */
struct ros_def {
	int s, p, phat;
	long double gamma;
	long double alpha[ROS_SMAX][ROS_SMAX], gam[ROS_SMAX][ROS_SMAX];	/* strictly lower */
	long double b[ROS_SMAX], bh[ROS_SMAX];
};

/* 001 §2, the table after eq. 42 (gamma_21 with the sign that its own
 * gamma_2 and c_21 imply, see above). */
static const struct ros_def RN4 = {
	4, 4, 3, 0.57281606L,
	{ { 0 }, { 1.14563212L }, { 0.520920789130629029328516L, 0.134294186842504800149232L },
	  { 0.520920789130629029328516L, 0.134294186842504800149232L, 0.0L } },
	{ { 0 }, { -2.341993127112013949170520L },
	  { -0.027333746543489836196505L, 0.213811650836699689867472L },
	  { -0.259083837785510222112641L, -0.190595807732311751616358L,
	    -0.228031035973133829477744L } },
	{ 0.324534707891734513474196L, 0.049086544787523308684633L, 0.0L,
	  0.626378747320742177841171L },
	{ 0.520920789130629029328516L, 0.144549714665364599584681L, 0.124559686414702049774897L,
	  0.209969809789304321311906L },
};

/* The W-method of 001 §2 (Verwer et al. 1997): gamma = 1 + 1/sqrt(2),
 * alpha_21 = 1, gamma_21 = -2 gamma, b = (1/2, 1/2), b-hat = (0, 1), the
 * values its printed Nystrom table follows from. */
static const struct ros_def W2 = {
	2, 2, 1, 1.70710678118654752440084436210484903928L,
	{ { 0 }, { 1.0L } },
	{ { 0 }, { -3.41421356237309504880168872420969807857L } },
	{ 0.5L, 0.5L },
	{ 0.0L, 1.0L },
};

/* Inverse of the lower triangular G (diagonal gamma). */
static void lower_inv(int s, long double G[ROS_SMAX][ROS_SMAX], long double X[ROS_SMAX][ROS_SMAX])
{
	for (int j = 0; j < s; j++)
		for (int i = 0; i < s; i++) {
			if (i < j) {
				X[i][j] = 0;
				continue;
			}
			long double v = i == j ? 1.0L : 0.0L;
			for (int k = j; k < i; k++)
				v -= G[i][k] * X[k][j];
			X[i][j] = v / G[i][i];
		}
}

static void mat_mul(int s, long double A[ROS_SMAX][ROS_SMAX], long double B[ROS_SMAX][ROS_SMAX],
		    long double C[ROS_SMAX][ROS_SMAX])
{
	for (int i = 0; i < s; i++)
		for (int j = 0; j < s; j++) {
			long double v = 0;
			for (int k = 0; k < s; k++)
				v += A[i][k] * B[k][j];
			C[i][j] = v;
		}
}

static void vec_mul(int s, const long double *x, long double A[ROS_SMAX][ROS_SMAX], long double *y)
{
	for (int j = 0; j < s; j++) {
		long double v = 0;
		for (int k = 0; k < s; k++)
			v += x[k] * A[k][j];
		y[j] = v;
	}
}

void ros_make(int id, struct ros_coef *C)
{
	const struct ros_def *D = id == INTEG_W2 ? &W2 : &RN4;
	int s = D->s;
	long double A[ROS_SMAX][ROS_SMAX] = { { 0 } }, G[ROS_SMAX][ROS_SMAX] = { { 0 } };
	long double Gi[ROS_SMAX][ROS_SMAX], T[ROS_SMAX][ROS_SMAX], U[ROS_SMAX][ROS_SMAX];
	memset(C, 0, sizeof(*C));
	C->s = s;
	C->q = D->p < D->phat ? D->p : D->phat;
	C->gamma = (double)D->gamma;
	for (int i = 0; i < s; i++) {
		G[i][i] = D->gamma;
		for (int j = 0; j < i; j++) {
			A[i][j] = D->alpha[i][j];
			G[i][j] = D->gam[i][j];
		}
	}
	lower_inv(s, G, Gi);
	for (int i = 0; i < s; i++) {
		long double al = 0, gs = 0;
		for (int j = 0; j < s; j++) {
			al += A[i][j];
			gs += G[i][j];
		}
		C->alpha[i] = (double)al;
		C->gi[i] = (double)gs;
	}
	mat_mul(s, A, Gi, T);	/* a = alpha Gamma^-1 */
	for (int i = 0; i < s; i++)
		for (int j = 0; j < s; j++) {
			C->a[i][j] = (double)T[i][j];
			C->c[i][j] = (double)((i == j ? 1.0L / D->gamma : 0.0L) - Gi[i][j]);
		}
	mat_mul(s, G, T, U);	/* delta = Gamma + Gamma alpha Gamma^-1 */
	for (int i = 0; i < s; i++)
		for (int j = 0; j < s; j++)
			C->d[i][j] = (double)(G[i][j] + U[i][j]);
	mat_mul(s, A, T, U);	/* theta = alpha + alpha^2 Gamma^-1 */
	for (int i = 0; i < s; i++)
		for (int j = 0; j < s; j++)
			C->th[i][j] = (double)(A[i][j] + U[i][j]);
	long double v[ROS_SMAX], w[ROS_SMAX], bA[ROS_SMAX];
	vec_mul(s, D->b, Gi, v);
	vec_mul(s, D->bh, Gi, w);
	for (int i = 0; i < s; i++) {
		C->m[i] = (double)v[i];
		C->mh[i] = (double)w[i];
	}
	vec_mul(s, D->b, T, bA);
	for (int i = 0; i < s; i++)
		C->mu[i] = (double)(D->b[i] + bA[i]);
	vec_mul(s, D->bh, T, bA);
	for (int i = 0; i < s; i++)
		C->muh[i] = (double)(D->bh[i] + bA[i]);
	for (int i = 1; i < s; i++) {
		int same = fabsl(A[i][i - 1]) < 1e-15L;
		for (int j = 0; j < i - 1 && same; j++)
			same = fabsl(A[i][j] - A[i - 1][j]) < 1e-15L;
		/* the same alpha row gives the same theta, a rows as well
		 * (theta and a are alpha times lower-triangular matrices
		 * only when the column i - 1 of alpha is zero in row i) */
		for (int j = 0; j < i && same; j++)
			same = fabs(C->th[i][j] - C->th[i - 1][j]) < 1e-14 &&
			       fabs(C->a[i][j] - C->a[i - 1][j]) < 1e-14;
		C->reuse[i] = same;
	}
}

struct ros {
	struct ros_coef co;
	double *J1, *J2, *S;	/* n x n column-major */
	int *ipiv;
	double *z[ROS_SMAX], *F[ROS_SMAX];
	double *Y, *Yd, *w1, *w2, *ft, *fp, *fm, *y1, *yd1, *yh, *ydh;
	int age;		/* steps since J1, J2 were evaluated; -1: none */
	double S_h;		/* h of the factored S */
};

static void ros_free(struct odeint *O);

static struct ros *ros_get(struct odeint *O, int id)
{
	if (O->mem)
		return O->mem;
	struct ros *R = xcalloc(1, sizeof(*R));
	ros_make(id, &R->co);
	size_t n = (size_t)O->cap + 1;
	R->J1 = xcalloc(n * n, sizeof(double));
	R->J2 = xcalloc(n * n, sizeof(double));
	R->S = xcalloc(n * n, sizeof(double));
	R->ipiv = xcalloc(n, sizeof(int));
	for (int i = 0; i < ROS_SMAX; i++) {
		R->z[i] = xcalloc(n, sizeof(double));
		R->F[i] = xcalloc(n, sizeof(double));
	}
	double **v[] = { &R->Y, &R->Yd, &R->w1, &R->w2, &R->ft, &R->fp, &R->fm, &R->y1, &R->yd1,
			 &R->yh, &R->ydh };
	for (size_t i = 0; i < sizeof v / sizeof v[0]; i++)
		*v[i] = xcalloc(n, sizeof(double));
	R->age = -1;
	O->mem = R;
	O->mem_free = ros_free;
	return R;
}

static void ros_free(struct odeint *O)
{
	struct ros *R = O->mem;
	if (!R)
		return;
	free(R->J1);
	free(R->J2);
	free(R->S);
	free(R->ipiv);
	for (int i = 0; i < ROS_SMAX; i++) {
		free(R->z[i]);
		free(R->F[i]);
	}
	double *v[] = { R->Y, R->Yd, R->w1, R->w2, R->ft, R->fp, R->fm, R->y1, R->yd1, R->yh,
			R->ydh };
	for (size_t i = 0; i < sizeof v / sizeof v[0]; i++)
		free(v[i]);
	free(R);
	O->mem = NULL;
}

/* f_t at (O->t, O->y, O->yd) by a forward difference from O->ydd, step
 * e max(1, |t|) as represented. */
static int ft_diff(struct odeint *O, struct ros *R, double e)
{
	volatile double t1 = O->t + e * fmax(1.0, fabs(O->t));
	double d = t1 - O->t;
	int st = odeint_rhs(O, t1, O->y, O->yd, R->fp);
	if (st)
		return st;
	for (int i = 0; i < O->n; i++)
		R->ft[i] = (R->fp[i] - O->ydd[i]) / d;
	return 0;
}

/* J1, J2 and f_t at (O->t, O->y, O->yd) by forward differences of f from
 * its value there (O->ydd), step sqrt(eps) max(1, |v|) (as the Jacobians
 * of Hairer and Wanner's Rosenbrock codes): 2 n + 1 evaluations, of which
 * the n of J2 keep the positions and so cost the formulation no
 * position solve (rp). */
static int jacobians(struct odeint *O, struct ros *R)
{
	int n = O->n, st;
	const double e = sqrt(DBL_EPSILON);
	/* analytic J1, J2 when the formulation has them (rp: every force
	 * element with an analytic Jacobian; seed 001 §3); f_t then 0 when f
	 * does not depend on t (ode_sys.autonomous), else by one forward
	 * difference */
	if (O->sys->jac && !O->no_analytic) {
		int a = O->sys->jac(O->sys->ctx, O->t, O->y, O->yd, R->J1, R->J2);
		if (a == 2) {	/* the last f was elsewhere: f at the step's start */
			if ((st = odeint_rhs(O, O->t, O->y, O->yd, R->fp)))
				return st;
			a = O->sys->jac(O->sys->ctx, O->t, O->y, O->yd, R->J1, R->J2);
		}
		if (a == 0) {
			if (O->sys->autonomous)
				memset(R->ft, 0, (size_t)n * sizeof(double));
			else if ((st = ft_diff(O, R, e)))
				return st;
			O->njac++;
			O->njac_analytic++;
			R->age = 0;
			return INTEG_OK;
		}
	}
	memcpy(R->Y, O->y, (size_t)n * sizeof(double));
	memcpy(R->Yd, O->yd, (size_t)n * sizeof(double));
	for (int pass = 0; pass < 2; pass++) {
		double *v = pass ? R->Yd : R->Y, *J = pass ? R->J2 : R->J1;
		for (int j = 0; j < n; j++) {
			double v0 = v[j], d = e * fmax(1.0, fabs(v0));
			v[j] = v0 + d;
			d = v[j] - v0;	/* the step as represented */
			st = odeint_rhs(O, O->t, R->Y, R->Yd, R->fp);
			v[j] = v0;
			if (st)
				return st;
			double inv = 1.0 / d;
			for (int i = 0; i < n; i++)
				J[(size_t)j * n + i] = (R->fp[i] - O->ydd[i]) * inv;
		}
	}
	if ((st = ft_diff(O, R, e)))
		return st;
	O->njac++;
	R->age = 0;
	return INTEG_OK;
}

static int factor_S(struct odeint *O, struct ros *R, double h)
{
	int n = O->n, info = 0;
	double g = R->co.gamma, a2 = h * g, a1 = h * h * g * g;
	size_t nn = (size_t)n * n;
	for (size_t k = 0; k < nn; k++)
		R->S[k] = -a2 * R->J2[k] - a1 * R->J1[k];
	for (int i = 0; i < n; i++)
		R->S[(size_t)i * n + i] += 1.0;
	if (n > 0)
		dgetrf_(&n, &n, R->S, &n, R->ipiv, &info);
	R->S_h = info ? 0.0 : h;
	return info ? INTEG_SINGULAR : INTEG_OK;
}

/* y = J x, n x n column-major */
static void jmul(int n, const double *J, const double *x, double *y)
{
	memset(y, 0, (size_t)n * sizeof(double));
	for (int j = 0; j < n; j++)
		for (int i = 0; i < n; i++)
			y[i] += J[(size_t)j * n + i] * x[j];
}

/* One attempt of size h from O's state: the stages, y1/yd1 and the
 * embedded yh/ydh. */
static int attempt(struct odeint *O, struct ros *R, double h)
{
	const struct ros_coef *C = &R->co;
	int n = O->n, st, one = 1, info = 0;
	double g = C->gamma;
	if (R->S_h != h && (st = factor_S(O, R, h)))
		return st;
	/* w2 = f_t + J1 y' */
	jmul(n, R->J1, O->yd, R->w2);
	for (int i = 0; i < n; i++)
		R->w2[i] += R->ft[i];
	for (int s = 0; s < C->s; s++) {
		double *F = R->F[s], *z = R->z[s];
		if (s == 0) {
			memcpy(F, O->ydd, (size_t)n * sizeof(double));
		} else if (C->reuse[s]) {
			memcpy(F, R->F[s - 1], (size_t)n * sizeof(double));
		} else {
			for (int i = 0; i < n; i++) {
				double a = 0.0, b = 0.0;
				for (int j = 0; j < s; j++) {
					a += C->th[s][j] * R->z[j][i];
					b += C->a[s][j] * R->z[j][i];
				}
				R->Y[i] = O->y[i] + h * (C->alpha[s] * O->yd[i] + a);
				R->Yd[i] = O->yd[i] + b;
			}
			if ((st = odeint_rhs(O, O->t + C->alpha[s] * h, R->Y, R->Yd, F)))
				return st;
		}
		/* w1 = sum_j delta_sj z_j */
		for (int i = 0; i < n; i++) {
			double a = 0.0, c = 0.0;
			for (int j = 0; j < s; j++) {
				a += C->d[s][j] * R->z[j][i];
				c += C->c[s][j] * R->z[j][i];
			}
			R->w1[i] = a;
			z[i] = h * g * F[i] + h * h * g * C->gi[s] * R->w2[i] + g * c;
		}
		jmul(n, R->J1, R->w1, R->fp);
		for (int i = 0; i < n; i++)
			z[i] += h * h * g * R->fp[i];
		if (n > 0)
			dgetrs_("N", &n, &one, R->S, &n, R->ipiv, z, &n, &info);
	}
	for (int i = 0; i < n; i++) {
		double a = 0, b = 0, ah = 0, bh = 0;
		for (int s = 0; s < C->s; s++) {
			a += C->mu[s] * R->z[s][i];
			ah += C->muh[s] * R->z[s][i];
			b += C->m[s] * R->z[s][i];
			bh += C->mh[s] * R->z[s][i];
		}
		R->y1[i] = O->y[i] + h * (O->yd[i] + a);
		R->yh[i] = O->y[i] + h * (O->yd[i] + ah);
		R->yd1[i] = O->yd[i] + b;
		R->ydh[i] = O->yd[i] + bh;
		if (!isfinite(R->y1[i]) || !isfinite(R->yd1[i]))
			return INTEG_NONFINITE;
	}
	return INTEG_OK;
}

/* 001 eqs. 13-14 over positions and velocities. */
static double err_norm(const struct odeint *O, const struct ros *R)
{
	int n = O->n;
	double s = 0.0;
	for (int i = 0; i < n; i++) {
		double sc = O->atol + fmax(fabs(O->y[i]), fabs(R->y1[i])) * O->rtol;
		double e = (R->y1[i] - R->yh[i]) / sc;
		double scd = O->atol + fmax(fabs(O->yd[i]), fabs(R->yd1[i])) * O->rtol;
		double ed = (R->yd1[i] - R->ydh[i]) / scd;
		s += e * e + ed * ed;
	}
	return n ? sqrt(s / (2.0 * n)) : 0.0;
}

int ros_step_ode(struct odeint *O, int id, double h, double *t1, double *h_next)
{
	struct ros *R = ros_get(O, id);
	const struct ros_coef *C = &R->co;
	int n = O->n, st;
	int w = id == INTEG_W2;
	if (O->restart || R->age < 0 || !w || R->age >= ROS_W_AGE) {
		if ((st = jacobians(O, R)))
			return st;
		R->S_h = 0.0;
		O->restart = 0;
	}
	double hmin = 1e-12 * fmax(1.0, fabs(O->t));
	int renewed = 0;
	for (;;) {
		double err = 0.0;
		st = attempt(O, R, h);
		if ((st == INTEG_SINGULAR || st == INTEG_NEWTON_FAIL) && !renewed && O->sys->renew) {
			/* new coordinates at the step's start, then the same h
			 * again (001 Algorithm 1, step 14, when the 25 % rule
			 * came too late) */
			renewed = 1;
			odeint_keep_why(O);
			int c = O->sys->renew(O->sys->ctx, O->t, O->y, O->yd, O->ydd);
			O->nrhs++;
			if (c < 0)
				return -c == ODE_SINGULAR ? INTEG_SINGULAR : INTEG_NEWTON_FAIL;
			if (c > 0) {
				if ((st = jacobians(O, R)))
					return st;
				R->S_h = 0.0;
				continue;
			}
		}
		if (st == INTEG_OK && O->adaptive)
			err = err_norm(O, R);
		if (st == INTEG_OK && err <= 1.0)
			break;
		if (!O->adaptive)
			return st ? st : INTEG_OK;
		O->rejected++;
		if (st == INTEG_OK)
			h *= fmax(O->facmin, O->safety * pow(1.0 / err, 1.0 / (C->q + 1)));
		else
			h *= 0.25;
		if (w && R->age > 0) {	/* a stale matrix may be why: a new one */
			if ((st = jacobians(O, R)))
				return st;
			R->S_h = 0.0;
		}
		if (h < hmin)
			return st ? st : INTEG_STEP_TOO_SMALL;
	}
	double err = O->adaptive ? err_norm(O, R) : 0.0;
	if ((st = odeint_rhs(O, O->t + h, R->y1, R->yd1, O->ydd)))
		return st;
	memcpy(O->y, R->y1, (size_t)n * sizeof(double));
	memcpy(O->yd, R->yd1, (size_t)n * sizeof(double));
	O->t += h;
	R->age++;
	*t1 = O->t;
	if (O->adaptive) {
		double fac = err > 0 ? O->safety * pow(1.0 / err, 1.0 / (C->q + 1)) : O->facmax;
		*h_next = fmin(O->h_max, h * fmin(O->facmax, fmax(O->facmin, fac)));
	} else {
		*h_next = h;
	}
	return INTEG_OK;
}

static int ros_kernel(struct odeint *O, const struct integ_info *info, double h, double *t1,
		      double *h_next)
{
	return ros_step_ode(O, info->id, h, t1, h_next);
}

/* rn4, w2 end with f at the state reached (the next step's first stage) */
static int ros_step(struct integ *it, double h, struct ra_state *x, struct ra_state *y)
{
	return odeint_step(it, h, x, y, ros_kernel);
}

/* Restart: the accepted state and the formulation's (odeint_ckpt_state),
 * then the kept Jacobians, f_t and their age (w2 reuses them for
 * ROS_W_AGE steps); S is factored again from them at the next attempt,
 * which gives its bits back.  Bit for bit where the formulation saves
 * its state (rp); else (tree) within the scheme's error. */
static void ros_ckpt(struct integ *it, struct ckpt *c)
{
	struct odeint *O = it->mem;
	if (!odeint_ckpt_state(it, c))
		return;
	struct ros *R = ros_get(O, it->info->id);
	long cap = O->cap;
	ckpt_i(c, &R->age, 1);
	ckpt_d(c, R->J1, cap * cap);
	ckpt_d(c, R->J2, cap * cap);
	ckpt_d(c, R->ft, cap);
	if (c->load)
		R->S_h = 0.0;
}

const struct integ_ops ros_ops = { ODEINT_OPS_BASE, ODEINT_STATS_OPS, .step = ros_step,
				   .ckpt = ros_ckpt, .ckpt_inexact = 0 };
