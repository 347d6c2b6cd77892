/* tangent.c - Newmark in the tangent space of the constraint manifold
 * (seed 002 §5, eqs. 32-58), on the ra formulation: `tangent_newmark`.
 *
 * Coordinates.  A generalized displacement d (6 per body: translation,
 * body-frame rotation) moves a state q* to q* (+) d: r = r* + d_r,
 * A = A* exp(d_th~) (the chart of ra_rotate).  G is Phi_q with respect to
 * these coordinates (ra_eval's Jacobian), so that G u = nu and G g = gamma
 * are the velocity and acceleration constraints for u = (v, w),
 * g = (a, w-dot).
 *
 * Per iteration of a step the constraints are linearized at the current
 * estimate q* of q_{n+1} (002 eqs. 32-33): a column-pivoted QR of G^T,
 * G^T P = [Q_r Q_f] R (factor() below), gives the rank r (|R(i,i)| above
 * TAN_RANK_TOL times the largest row norm), the orthonormal null-space
 * basis N = Q_f (002's N_H; redundant rows do no harm) and V_r = Q_r, an
 * orthonormal basis of the row space.  In the neighbourhood
 *   q(alpha) = q* (+) (N alpha + V_r z(alpha)),  Phi(q(alpha)) = 0   (002 eq. 34)
 *   u = N alpha-dot + V_r w,  G(q) u = nu                            (002 eq. 38)
 *   g = N alpha-ddot + V_r s, G(q) g = gamma(q, u)                   (002 eq. 45)
 * with z, w, s the minimum-norm particular parts (002's x_p, x-dot_p,
 * X-dot_p ..., solved here directly at q(alpha) rather than through their
 * Taylor terms).  The previous step is projected onto the new tangent
 * space by least squares (002 eqs. 56-58): with N orthonormal and the
 * particular parts orthogonal to it, alpha_n = N^T (q_n (-) q*),
 * alpha-dot_n = N^T u_n, alpha-ddot_n = N^T g_n.  Newmark acts on alpha:
 *   alpha = alpha_n + h alpha-dot_n + h^2 ((1/2 - beta) alpha-ddot_n + beta y),
 *   alpha-dot = alpha-dot_n + h ((1 - gamma) alpha-ddot_n + gamma y),
 * y = alpha-ddot_{n+1}, and the equations of motion are reduced by N^T
 * (002 eq. 52; N_G = N_H since G is the Jacobian of both):
 *   R(y) = N^T (M g - F(q, u) + G(q)^T lambda*) = 0,
 * lambda* the multipliers of the current estimate (N^T G^T lambda vanishes
 * at q*, its derivative is the geometric stiffness 002 §5 keeps in K_L).
 * Newton's matrix is M_R + gamma h C_R + beta h^2 K_R with M_R = N^T M N,
 * C_R = dR/d alpha-dot and K_R = dR/d alpha by central differences of R
 * (002's K_R = N^T K_L N + N^T C_L X-dot_p + N^T M_L X-ddot_p1 are these
 * derivatives), made at the first linearization of a step and kept while
 * the iteration contracts by 4 or more per iteration.  One Newton step per
 * linearization; then q* <- q(alpha), and again until the move of q* and
 * h^2 |dy| are below integrator.tolerance.  The end state satisfies Phi, Phi-dot and
 * Phi-ddot to the round-off of the small solves; the multipliers are the
 * least-squares solution of G^T lambda = F - M g, the basic one when G is
 * rank deficient (rows found dependent get 0, as rows dropped at assembly).
 *
 * omega_max: the largest natural frequency of the linearized tangent
 * system, sqrt of the largest eigenvalue of (K_R + K_R^T)/2 phi = w^2 M_R
 * phi (LAPACK dsygv), at the first linearization of the step (002 §5,
 * Figs. 21, 25); the eq. 11 bound follows from it.
 *
 * Dense: a QR of the n x m G^T per iteration (n = 6 per body; dgeqp3, or
 * dgeqrf in the row order of the last dgeqp3 while that order still
 * reveals the rank) and 4 f residual evaluations per step; refused above
 * TAN_MAX_BODIES bodies (its cost per step: bench/README.md,
 * "tangent_newmark").
 * Friction forces take the multipliers of the step's start.
 */
#include "tangent.h"
#include "newmark.h"
#include "../la/rank.h"
#include "../la/lapack.h"
#include "../util/ckpt.h"
#include "../util/vec.h"
#include "../util/interrupt.h"
#include "../util/xalloc.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TAN_RANK_TOL LA_RANK_QR_TOL	/* |R(i,i)| below this times |R(0,0)|: rank */
#define TAN_FAST_TOL 1e-3	/* fast_qr: smallest |R(i,i)| at least this of the largest */
#define TAN_SOLVE_IT 40		/* chord iterations of the small solves */
#ifndef TAN_FD_TRIES
#define TAN_FD_TRIES 3		/* perturbations tried per column of K_R, C_R (reduced_derivs) */
#endif

struct tangent {
	double omega;		/* omega_max of the last step's linearized tangent
				 * system, rad/s */
	double omega_sampled;	/* the largest over the output samples (NAN: none) */
	struct nm_growth *growth;	/* growth detector (newmark.h) */
	int n, m, f, r;		/* coordinates, constraint rows, tangent dim, rank */
	double beta, gam;
	double *A;		/* n x m, column-major: G^T, then its QR factors */
	double *tau, *work;	/* reflectors of Q; LAPACK scratch */
	int *jpvt, lwork;	/* column pivots (1-based): independent rows of G first */
	int have_piv, kq;	/* jpvt set by an earlier dgeqp3; reflectors in A */
	double rank_tol;	/* TAN_RANK_TOL, or coarser for a retried step */
	double *GT;		/* n x m: G^T before the columns are put in jpvt's order */
	double *N;		/* n x f (column-major) */
	struct ra_state base, q, xn;	/* q*, a trial state, x_n */
	double *d, *tmpn, *tmpn2, *tmpm, *F, *g, *u, *lamstar;	/* n or m */
	double *rwork;		/* r */
	double *an, *adn, *addn, *al, *ald, *y, *dy, *R0, *Rp, *Rm;	/* f */
	double *MR, *KR, *CR, *SM, *EK, *EM, *ev;	/* f x f, f */
	int *ipiv;
	double *swork;
	int slwork;
};

static double nrm(const double *a, int n)
{
	double s = 0.0;
	for (int i = 0; i < n; i++)
		s += a[i] * a[i];
	return sqrt(s);
}

/* Dense G^T (n x m, column-major: row k of G is column k) from the
 * per-row body blocks of ra_eval. */
static void dense_jact(const struct ra *s, double *GT)
{
	int m = s->nc, n = s->ng;
	memset(GT, 0, (size_t)m * (size_t)n * sizeof(double));
	for (int k = 0; k < m; k++) {
		/* side i at jo[k] when it is a body, side j 6 further (ra.h) */
		const double *J = s->jac + s->jo[k];
		for (int side = 0; side < 2; side++) {
			int b = side ? s->bj[k] : s->bi[k];
			if (b < 0)
				continue;
			for (int c = 0; c < 6; c++)
				GT[(size_t)k * n + 6 * b + c] += J[6 * side + c];
		}
	}
}

static void tmul(const double *B, int n, int k, const double *x, double *out);

/* N = the last n - r columns of Q (dorm2r on the last f columns of I). */
static int null_basis(struct tangent *T)
{
	int n = T->n, r = T->r, f = T->f, info = 0;
	memset(T->N, 0, (size_t)n * (size_t)(f > 0 ? f : 1) * sizeof(double));
	for (int j = 0; j < f; j++)
		T->N[(size_t)j * n + r + j] = 1.0;
	if (f > 0 && T->kq > 0)
		dorm2r_("L", "N", &n, &f, &T->kq, T->A, &n, T->tau, T->N, &n, T->work, &info);
	return info;
}

/* The fast path of factor(), within a step and from step to step: the
 * rank r and the order of the rows of the last dgeqp3 kept, the r rows it
 * found independent factored by the blocked dgeqrf (no pivot search, most
 * of the flops in dgemm).  Accepted when
 *   every |R(i,i)| > TAN_FAST_TOL g_max (well clear of TAN_RANK_TOL: these
 *     rows are still independent), and
 *   every other row j has |N^T g_j| <= TAN_RANK_TOL g_max (still dependent:
 *     its part outside the span of the kept rows is what dgeqp3 would have
 *     compared with the same bound),
 * g_max the largest row norm of G (dgeqp3's |R(0,0)|).  Then the rank,
 * the null space and the rows' roles are the ones dgeqp3 would find, up
 * to the choice among independent rows; else 0 and factor() runs dgeqp3. */
static int fast_qr(struct tangent *T, const struct ra *s)
{
	int m = T->m, n = T->n, r = T->r, info = 0;
	if (r == 0 || T->rank_tol != TAN_RANK_TOL)
		return 0;
	dense_jact(s, T->GT);
	double gmax = 0.0;
	for (int j = 0; j < m; j++)
		gmax = fmax(gmax, nrm(T->GT + (size_t)j * n, n));
	if (!isfinite(gmax) || gmax == 0.0)
		return 0;
	for (int j = 0; j < r; j++)
		memcpy(T->A + (size_t)j * n, T->GT + (size_t)(T->jpvt[j] - 1) * n,
		       (size_t)n * sizeof(double));
	dgeqrf_(&n, &r, T->A, &n, T->tau, T->work, &T->lwork, &info);
	if (info != 0)
		return 0;
	for (int i = 0; i < r; i++) {
		double v = fabs(T->A[(size_t)i * n + i]);
		if (!(v > TAN_FAST_TOL * gmax))
			return 0;
	}
	T->kq = r;
	if (null_basis(T))
		return 0;
	for (int j = r; j < m; j++) {
		tmul(T->N, n, T->f, T->GT + (size_t)(T->jpvt[j] - 1) * n, T->rwork);
		if (!(nrm(T->rwork, T->f) <= TAN_RANK_TOL * gmax))
			return 0;
	}
	return 1;
}

/* Column-pivoted QR of G^T at the state s was evaluated at (kept, since
 * the small solves below need R and the reflectors, not only N):
 *   G^T P = Q R,  Q = [Q_r Q_f] orthogonal (n x n),  R = [R11 R12; 0 R22],
 * rank r from |R(i,i)| > TAN_RANK_TOL |R(0,0)| (|R(0,0)| = the largest row
 * norm of G; LA_RANK_QR_TOL, an angle of about 1e-5 rad between a row and
 * the span of the others: at 1e-10 the rows of Bricard's mechanism that are
 * redundant on the manifold counted as independent at the step's predicted
 * q*, 1e-10 off it, and the small solves failed); N = Q_f (the last n - r
 * columns of Q) is an orthonormal basis of the null space, Q_r of the row
 * space, so the split of 002 eqs. 34, 38, 45 into N alpha and a particular
 * part orthogonal to N is the one an SVD gives: the same tangent space and
 * the same minimum-norm particular parts, alpha rotated within it by an
 * orthogonal matrix, to which the Newmark formulas and the least-squares
 * projection (eqs. 56-58, N^T) are invariant.  Only the central-difference
 * K_R, C_R (Newton's matrix, not the equations solved) and the rounding
 * depend on the basis.  Seed 002 (text after eq. 34, and eq. 52) allows any
 * basis N_H; an orthonormal one is kept because alpha_n = N^T (q_n (-) q*)
 * is the least-squares projection of eqs. 56-58 only then.
 * Cost O(n m min(n, m)) for dgeqp3 and 4 n min(n, m) f for N (dorm2r on
 * the last f columns of I).  * -1 on failure. */
static int factor(struct tangent *T, const struct ra *s)
{
	int m = T->m, n = T->n, info = 0;
	if (m == 0) {
		T->r = 0;
		T->f = n;
		memset(T->N, 0, (size_t)n * n * sizeof(double));
		for (int i = 0; i < n; i++)
			T->N[(size_t)i * n + i] = 1.0;
		return 0;
	}
	if (T->have_piv && fast_qr(T, s))
		return 0;
	int k = m < n ? m : n, r = 0;
	T->have_piv = 0;
	dense_jact(s, T->A);
	memset(T->jpvt, 0, (size_t)m * sizeof(int));
	dgeqp3_(&n, &m, T->A, &n, T->jpvt, T->tau, T->work, &T->lwork, &info);
	if (info != 0 || !isfinite(T->A[0]))
		return -1;
	double r0 = fabs(T->A[0]);
	while (r < k && r0 > 0.0 && fabs(T->A[(size_t)r * n + r]) > T->rank_tol * r0)
		r++;
	T->r = r;
	T->f = n - r;
	T->kq = k;
	if (null_basis(T))
		return -1;
	T->have_piv = 1;
	return 0;
}

/* out (k) = B^T x, B n x k column-major (BLAS: these products are most of
 * the cost of a step) */
static void tmul(const double *B, int n, int k, const double *x, double *out)
{
	static const double one = 1.0, zero = 0.0;
	static const int inc = 1;
	if (k > 0 && n > 0)
		dgemv_("T", &n, &k, &one, B, &n, x, &inc, &zero, out, &inc);
	else if (k > 0)
		memset(out, 0, (size_t)k * sizeof(double));
}

/* out (n) += B c, B n x k */
static void mul_add(const double *B, int n, int k, const double *c, double *out)
{
	static const double one = 1.0;
	static const int inc = 1;
	if (k > 0 && n > 0)
		dgemv_("N", &n, &k, &one, B, &n, c, &inc, &one, out, &inc);
}

/* d = Q_r R11^-T (P^T e)[0 .. r-1]: the minimum-norm solution of G* d = e
 * with the factored G* when e is consistent (it is at a fixed point of the
 * chord iterations below; the rows found dependent are not read).  The r
 * independent rows G_I of G* are G_I^T = Q_r R11, so G_I = R11^T Q_r^T
 * and d = Q_r R11^-T e_I: one triangular solve and the reflectors applied
 * to (y, 0).  Its round-off grows like the condition number kappa of G_I.
 * (This file used to form d = G_I^T R11^-1 R11^-T e_I, two triangular
 * solves and a product with the sparse rows, whose round-off grows like
 * kappa^2: close to a singular position, where kappa is large but G still
 * counts as of full rank, that floor can exceed the chord iterations' stop
 * test of 1e-9.)
 */
static void pinv_solve(const struct tangent *T, const double *e, double *d)
{
	int n = T->n, r = T->r, one = 1;
	memset(d, 0, (size_t)n * sizeof(double));
	if (r == 0)
		return;
	for (int i = 0; i < r; i++)
		d[i] = e[T->jpvt[i] - 1];
	dtrsv_("U", "T", "N", &r, T->A, &n, d, &one);
	/* Q (y, 0) = H_0 H_1 ... H_{r-1} (y, 0): the reflectors from r on
	 * touch only the zero rows (H_i = I - tau_i v_i v_i^T, v_i = (0..0,
	 * 1, A(i+1.., i)), LAPACK's storage), applied here to the one vector
	 * directly (dorm2r's dlarf calls cost more than the products at the
	 * sizes of mbsim's models) */
	for (int i = r - 1; i >= 0; i--) {
		const double *v = T->A + (size_t)i * n;
		double w = d[i];
		for (int k = i + 1; k < n; k++)
			w += v[k] * d[k];
		w *= T->tau[i];
		d[i] -= w;
		for (int k = i + 1; k < n; k++)
			d[k] -= w * v[k];
	}
}

/* x = base (+) d into the trial state q (positions only) */
static void displace(struct tangent *T, const struct ra *s, const double *d, struct ra_state *q)
{
	for (int b = 0; b < s->nb; b++) {
		for (int c = 0; c < 3; c++)
			q->r[3 * b + c] = T->base.r[3 * b + c] + d[6 * b + c];
		double R[9];
		so3_exp(R, d + 6 * b + 3);
		m3_mul(q->A + 9 * b, T->base.A + 9 * b, R);
	}
}

/* q (-) base: translation and body-frame rotation vector of base^T A */
static void difference(const struct tangent *T, const struct ra *s, const struct ra_state *q,
		       double *d)
{
	for (int b = 0; b < s->nb; b++) {
		double R[9];
		for (int c = 0; c < 3; c++)
			d[6 * b + c] = q->r[3 * b + c] - T->base.r[3 * b + c];
		m3_tmul(R, T->base.A + 9 * b, q->A + 9 * b);
		so3_log(d + 6 * b + 3, R);
	}
}

/* Positions of q(alpha): z by the chord method on U_r^T Phi = 0 with the
 * factored G* (converges while q stays near q*).  Leaves q's positions,
 * and Phi at them in s->phi.  -1 when it does not converge. */
static int retract(struct tangent *T, struct ra *s, const double *alpha, double t,
		   struct ra_state *q)
{
	int n = T->n;
	double *d = T->d, *dz = T->tmpn;
	memset(d, 0, (size_t)n * sizeof(double));
	mul_add(T->N, n, T->f, alpha, d);
	double prev = INFINITY;
	for (int it = 0; it < TAN_SOLVE_IT; it++) {
		displace(T, s, d, q);
		ra_eval(s, q, t, PRIM_PHI);
		if (T->m == 0)
			return 0;
		pinv_solve(T, s->phi, dz);
		double c = nrm(dz, n);
		if (c <= 4.0 * DBL_EPSILON * (1.0 + nrm(d, n)) || (it > 3 && c >= prev))
			return c < 1e-9 * (1.0 + nrm(d, n)) ? 0 : -1;
		for (int i = 0; i < n; i++)
			d[i] -= dz[i];
		prev = c;
	}
	return -1;
}

/* x = p + V_r w with G(q) x = rhs, p the x given (G(q) applied by
 * ra_jac_mul: the Jacobian of the state last given to ra_eval(PRIM_JAC)):
 * chord iteration with the factored G*; the part of x along N stays p's. */
static int normal_solve(struct tangent *T, struct ra *s, const double *rhs, double *x)
{
	int n = T->n, m = T->m;
	double *e = T->tmpm, *dx = T->tmpn, prev = INFINITY;
	if (m == 0)
		return 0;
	for (int it = 0; it < TAN_SOLVE_IT; it++) {
		ra_jac_mul(s, x, e);
		for (int k = 0; k < m; k++)
			e[k] = rhs[k] - e[k];
		pinv_solve(T, e, dx);
		double c = nrm(dx, n);
		for (int i = 0; i < n; i++)
			x[i] += dx[i];
		if (c <= 4.0 * DBL_EPSILON * nrm(x, n) + 1e-300)
			return 0;
		if (it > 3 && c >= prev)
			return c <= 1e-9 * (1.0 + nrm(x, n)) ? 0 : -1;
		prev = c;
	}
	return -1;
}

/* u, w from a generalized vector (6 per body) into the state */
static void put_u(const struct ra *s, const double *u, struct ra_state *q)
{
	for (int b = 0; b < s->nb; b++) {
		v3_copy(q->v + 3 * b, u + 6 * b);
		v3_copy(q->w + 3 * b, u + 6 * b + 3);
	}
}

static void get_u(const struct ra *s, const struct ra_state *q, double *u)
{
	for (int b = 0; b < s->nb; b++) {
		v3_copy(u + 6 * b, q->v + 3 * b);
		v3_copy(u + 6 * b + 3, q->w + 3 * b);
	}
}

/* The state of tangent coordinates (al, ald, add) into T->q (positions,
 * velocities, accelerations in T->g), and R = N^T (M g - F + G^T lam*).
 * 0, or -1 when a small solve fails. */
static int state_at(struct tangent *T, struct ra *s, double t, const double *lamf,
		    const double *al, const double *ald, const double *add, double *R)
{
	int n = T->n;
	struct ra_state *q = &T->q;
	if (retract(T, s, al, t, q))
		return -1;
	ra_eval(s, q, t, PRIM_JAC | PRIM_NU);
	memset(T->u, 0, (size_t)n * sizeof(double));
	mul_add(T->N, n, T->f, ald, T->u);
	if (normal_solve(T, s, s->nu, T->u))
		return -1;
	put_u(s, T->u, q);
	ra_eval(s, q, t, PRIM_JAC | PRIM_GAMMA);
	memset(T->g, 0, (size_t)n * sizeof(double));
	mul_add(T->N, n, T->f, add, T->g);
	if (normal_solve(T, s, s->gamma, T->g))
		return -1;
	integ_acc_put(s, T->g, q);
	if (!R)
		return 0;
	double *e = T->F;
	ra_forces(s, q, t, lamf, e);
	ra_gyro(s, q, e);
	ra_jac_tmul(s, T->lamstar, T->tmpn2);
	for (int b = 0; b < s->nb; b++) {
		double Jg[3];
		m3_mulv(Jg, ra_inertia(s, b), T->g + 6 * b + 3);
		for (int c = 0; c < 3; c++) {
			int i = 6 * b + c;
			e[i] = s->mass[b] * T->g[i] - e[i] + T->tmpn2[i];
			e[i + 3] = Jg[c] - e[i + 3] + T->tmpn2[i + 3];
		}
	}
	tmul(T->N, n, T->f, e, R);
	return 0;
}

/* M_R = N^T M N */
static void reduced_mass(struct tangent *T, const struct ra *s)
{
	int n = T->n, f = T->f;
	for (int j = 0; j < f; j++) {
		const double *Nj = T->N + (size_t)j * n;
		for (int b = 0; b < s->nb; b++) {
			double Jn[3];
			m3_mulv(Jn, ra_inertia(s, b), Nj + 6 * b + 3);
			for (int c = 0; c < 3; c++) {
				T->tmpn[6 * b + c] = s->mass[b] * Nj[6 * b + c];
				T->tmpn[6 * b + 3 + c] = Jn[c];
			}
		}
		tmul(T->N, n, f, T->tmpn, T->MR + (size_t)j * f);
	}
}

/* Central differences of R in alpha (K_R) and alpha-dot (C_R) at (al, ald, y).
 * A perturbed state whose retraction fails is tried again with the
 * perturbation 8 and 64 times smaller: close to a singular position (the
 * N-four-bar's horizontal cranks) the smallest singular value of G* is
 * small, the chord iteration of retract() contracts by about the
 * perturbation over it, and at 1e-6 it stalled at 1e-9 (N = 40, h = 1e-3,
 * t = 8.584 s, the 9th singular position), which ended the run although
 * only Newton's matrix, not the equations solved, needed that state. */
static int reduced_derivs(struct tangent *T, struct ra *s, double t, const double *lamf)
{
	int f = T->f;
	for (int which = 0; which < 2; which++) {
		double *X = which ? T->ald : T->al, *D = which ? T->CR : T->KR;
		double sc = 1.0;
		for (int i = 0; i < f; i++)
			sc = fmax(sc, fabs(X[i]));
		for (int j = 0; j < f; j++) {
			double x0 = X[j], eps = 1e-6 * sc;
			int e1 = -1, e2 = -1;
			for (int k = 0; k < TAN_FD_TRIES && (e1 || e2); k++, eps /= 8.0) {
				X[j] = x0 + eps;
				e1 = state_at(T, s, t, lamf, T->al, T->ald, T->y, T->Rp);
				X[j] = x0 - eps;
				e2 = state_at(T, s, t, lamf, T->al, T->ald, T->y, T->Rm);
				X[j] = x0;
				if (!(e1 || e2))
					for (int i = 0; i < f; i++)
						D[(size_t)j * f + i] = (T->Rp[i] - T->Rm[i]) / (2.0 * eps);
			}
			if (e1 || e2)
				return -1;
		}
	}
	return 0;
}

/* Largest natural frequency of (sym K_R, M_R), 0 when none is positive. */
static double omega_max(struct tangent *T)
{
	int f = T->f, one = 1, info = 0;
	if (f == 0)
		return 0.0;
	for (int j = 0; j < f; j++)
		for (int i = 0; i < f; i++) {
			T->EK[(size_t)j * f + i] = 0.5 * (T->KR[(size_t)j * f + i] + T->KR[(size_t)i * f + j]);
			T->EM[(size_t)j * f + i] = 0.5 * (T->MR[(size_t)j * f + i] + T->MR[(size_t)i * f + j]);
		}
	dsygv_(&one, "N", "U", &f, T->EK, &f, T->EM, &f, T->ev, T->swork, &T->slwork, &info);
	if (info != 0)
		return NAN;
	return T->ev[f - 1] > 0 ? sqrt(T->ev[f - 1]) : 0.0;
}

static void tangent_free_data(struct tangent *T)
{
	ra_state_release(&T->base);
	ra_state_release(&T->q);
	ra_state_release(&T->xn);
	double *arrs[] = { T->GT, T->tau, T->work, T->N, T->A, T->rwork, T->d, T->tmpn,
			   T->tmpn2, T->tmpm, T->F, T->g, T->u, T->lamstar, T->an, T->adn, T->addn,
			   T->al, T->ald, T->y, T->dy, T->R0, T->Rp, T->Rm, T->MR, T->KR, T->CR,
			   T->SM, T->EK, T->EM, T->ev, T->swork };
	for (size_t i = 0; i < sizeof arrs / sizeof arrs[0]; i++)
		free(arrs[i]);
	free(T->ipiv);
	free(T->jpvt);
	free(T);
}

static int tangent_init(struct integ *it, const struct sim_options *o, struct diag *dg)
{
	const struct ra *s = it->sys;
	if (s->nb > TAN_MAX_BODIES) {
		diag_error(dg, NULL,
			   "tangent_newmark is dense (a QR of the constraint Jacobian per "
			   "iteration): at most %d bodies, the model has %d; use newmark, hht or "
			   "genalpha", TAN_MAX_BODIES, s->nb);
		return -1;
	}
	struct tangent *T = xcalloc(1, sizeof(*T));
	int n = s->ng, m = s->nc;
	size_t N = (size_t)n + 1, M = (size_t)m + 1;
	T->n = n;
	T->m = m;
	T->rank_tol = TAN_RANK_TOL;
	T->beta = o->nm_beta;
	T->gam = o->nm_gamma;
	T->tau = xcalloc(M + N, sizeof(double));
	T->jpvt = xcalloc(M, sizeof(int));
	T->GT = xcalloc(M * N, sizeof(double));
	T->N = xcalloc(N * N, sizeof(double));
	T->d = xcalloc(N, sizeof(double));
	T->A = xcalloc(M * N, sizeof(double));
	T->rwork = xcalloc(M + N, sizeof(double));
	T->tmpn = xcalloc(N, sizeof(double));
	T->tmpn2 = xcalloc(N, sizeof(double));
	T->tmpm = xcalloc(M, sizeof(double));
	T->F = xcalloc(N, sizeof(double));
	T->g = xcalloc(N, sizeof(double));
	T->u = xcalloc(N, sizeof(double));
	T->lamstar = xcalloc(M, sizeof(double));
	double **fv[] = { &T->an, &T->adn, &T->addn, &T->al, &T->ald, &T->y, &T->dy, &T->R0,
			  &T->Rp, &T->Rm, &T->ev };
	for (size_t i = 0; i < sizeof fv / sizeof fv[0]; i++)
		*fv[i] = xcalloc(N, sizeof(double));
	double **fm[] = { &T->MR, &T->KR, &T->CR, &T->SM, &T->EK, &T->EM };
	for (size_t i = 0; i < sizeof fm / sizeof fm[0]; i++)
		*fm[i] = xcalloc(N * N, sizeof(double));
	T->ipiv = xcalloc(N, sizeof(int));
	/* workspace queries */
	int info = 0, lw = -1;
	double wq = 0.0;
	T->lwork = n + 1;	/* dorm2r with up to n columns */
	if (m > 0) {
		dgeqp3_(&n, &m, T->A, &n, T->jpvt, T->tau, &wq, &lw, &info);
		if (info == 0 && (int)wq + 1 > T->lwork)
			T->lwork = (int)wq + 1;
		lw = -1;
		dgeqrf_(&n, &m, T->A, &n, T->tau, &wq, &lw, &info);
		if (info == 0 && (int)wq + 1 > T->lwork)
			T->lwork = (int)wq + 1;
	}
	T->work = xcalloc((size_t)T->lwork, sizeof(double));
	T->slwork = 3 * n + 64;
	T->swork = xcalloc((size_t)T->slwork, sizeof(double));
	ra_state_init(s, &T->base);
	ra_state_init(s, &T->q);
	ra_state_init(s, &T->xn);
	T->omega = T->omega_sampled = NAN;
	T->growth = nm_growth_new(s);
	it->mem = T;
	return 0;
}

static void tangent_free(struct integ *it)
{
	struct tangent *T = it->mem;
	if (T) {
		nm_growth_free(&T->growth);
		tangent_free_data(T);
	}
	it->mem = NULL;
}

/* Project x_n onto the tangent space at the current base: alpha_n,
 * alpha-dot_n, alpha-ddot_n (002 eqs. 56-58, least squares). */
static void project_prev(struct tangent *T, const struct ra *s)
{
	int n = T->n, f = T->f;
	difference(T, s, &T->xn, T->tmpn);
	tmul(T->N, n, f, T->tmpn, T->an);
	get_u(s, &T->xn, T->tmpn);
	tmul(T->N, n, f, T->tmpn, T->adn);
	integ_acc_get(s, &T->xn, T->tmpn);
	tmul(T->N, n, f, T->tmpn, T->addn);
}

/* Newmark in alpha for y = alpha-ddot_{n+1} */
static void newmark_alpha(struct tangent *T, double h)
{
	for (int i = 0; i < T->f; i++) {
		T->al[i] = T->an[i] + h * T->adn[i] +
			   h * h * ((0.5 - T->beta) * T->addn[i] + T->beta * T->y[i]);
		T->ald[i] = T->adn[i] + h * ((1.0 - T->gam) * T->addn[i] + T->gam * T->y[i]);
	}
}

/* Multipliers: minimum-norm solution of G^T lambda = F - M g at q (G
 * factored at the last estimate, within the tolerance of q). */
static void multipliers(struct tangent *T, struct ra *s, const struct ra_state *q, double t,
			const double *lamf, double *lam)
{
	int n = T->n, m = T->m;
	double *e = T->F;
	ra_forces(s, q, t, lamf, e);
	ra_gyro(s, q, e);
	integ_acc_get(s, q, T->g);
	for (int b = 0; b < s->nb; b++) {
		double Jg[3];
		m3_mulv(Jg, ra_inertia(s, b), T->g + 6 * b + 3);
		for (int c = 0; c < 3; c++) {
			e[6 * b + c] -= s->mass[b] * T->g[6 * b + c];
			e[6 * b + 3 + c] -= Jg[c];
		}
	}
	/* G^T lambda = e by least squares, G^T P = Q R: R11 c = (Q^T e)[0 .. r-1],
	 * lambda(P) = (c, 0) - the unique solution while G has full row rank,
	 * else the basic one (rows found dependent get 0, as the rows dropped
	 * at assembly) */
	memset(lam, 0, (size_t)m * sizeof(double));
	if (T->r > 0) {
		int r = T->r, one = 1, info = 0;
		double *c = T->rwork;
		memcpy(c, e, (size_t)n * sizeof(double));
		dorm2r_("L", "T", &n, &one, &T->kq, T->A, &n, T->tau, c, &n, T->work, &info);
		dtrsv_("U", "N", "N", &r, T->A, &n, c, &one);
		for (int i = 0; i < r; i++)
			lam[T->jpvt[i] - 1] = c[i];
	}
}

/* A step can land within about TAN_RANK_TOL of a singular position: the
 * N = 40 four-bar at h = 1e-3 lands at t = 8.584 s, 11 us after its 9th
 * singular position (8.583989 s, tools/four_bar_ref.py; the cranks turn
 * at about 1.7 rad/s, so some 2e-5 rad from it), with
 * |R(i,i)| of 1.01e-5 and 0.99e-5 of the largest on either side of
 * the tolerance: the rank found (467 of 485) splits the 18 nearly
 * dependent rows arbitrarily, the kept ones amplify Phi's round-off by
 * 1e5, the chord iteration of retract() stalls at 2e-9 and the step
 * fails (also when such a stall is accepted: the rows dropped for the
 * step are then far from met).  The run loop then takes the step again
 * with the rank tolerance raised to 1e-2 rad (integ_singular_retry,
 * tangent_rank_tol): all 40 nearly dependent rows are left out of that
 * step and it passes (the runs: bench/README.md, "tangent_newmark"). */
static void tangent_rank_tol(struct integ *it, double angle)
{
	struct tangent *T = it->mem;
	T->rank_tol = angle > TAN_RANK_TOL ? angle : TAN_RANK_TOL;
	T->have_piv = 0;	/* the next factorization pivots afresh */
}

static int tangent_omega_at(struct integ *it, const struct ra_state *x)
{
	struct tangent *T = it->mem;
	struct ra *s = it->sys;
	ra_state_copy(s, &T->xn, x);
	ra_state_copy(s, &T->base, x);
	memcpy(T->lamstar, x->lam, (size_t)T->m * sizeof(double));
	ra_eval(s, &T->base, x->t, PRIM_JAC);
	if (factor(T, s))
		return INTEG_SINGULAR;
	project_prev(T, s);
	memset(T->al, 0, (size_t)T->f * sizeof(double));
	memcpy(T->ald, T->adn, (size_t)T->f * sizeof(double));
	memcpy(T->y, T->addn, (size_t)T->f * sizeof(double));
	if (reduced_derivs(T, s, x->t, x->lam))
		return INTEG_NEWTON_FAIL;
	reduced_mass(T, s);
	T->omega = omega_max(T);
	return INTEG_OK;
}

static int tangent_step(struct integ *it, double h, struct ra_state *x, struct ra_state *y)
{
	struct tangent *T = it->mem;
	struct ra *s = it->sys;
	int n = T->n;
	double t = x->t + h;
	const double *lamf = x->lam;
	ra_state_copy(s, &T->xn, x);
	/* first estimate of q_{n+1}: the Taylor step h u_n + h^2/2 g_n */
	ra_state_copy(s, &T->base, x);
	get_u(s, x, T->tmpn);
	integ_acc_get(s, x, T->tmpn2);
	for (int i = 0; i < n; i++)
		T->d[i] = h * T->tmpn[i] + 0.5 * h * h * T->tmpn2[i];
	displace(T, s, T->d, &T->q);	/* (not in place: A = A* exp(d)) */
	ra_state_copy(s, &T->base, &T->q);
	integ_acc_get(s, x, T->g);	/* acceleration estimate */
	memcpy(T->lamstar, x->lam, (size_t)T->m * sizeof(double));
	it->iters = 0;
	int ok = 0, refresh = 0, fS = -1;
	double last = INFINITY;
	for (int k = 0; k < it->maxit; k++) {
		if (interrupted())
			return INTEG_INTERRUPTED;
		it->iters++;
		ra_eval(s, &T->base, t, PRIM_JAC);
		if (factor(T, s)) {
			integ_note_worst(it);
			return INTEG_SINGULAR;
		}
		int f = T->f;
		project_prev(T, s);
		tmul(T->N, n, f, T->g, T->y);	/* y from the current acceleration estimate */
		newmark_alpha(T, h);
		if (state_at(T, s, t, lamf, T->al, T->ald, T->y, T->R0)) {
			integ_note_worst(it);
			return INTEG_NEWTON_FAIL;
		}
		/* Newton's matrix at the first linearization of the step (and
		 * again when the iteration contracts slowly or the rank
		 * changes); the later ones of the step, whose bases differ by
		 * the last correction only, reuse its LU factors */
		if (k == 0 || refresh || f != fS) {
			if (reduced_derivs(T, s, t, lamf)) {
				integ_note_worst(it);
				return INTEG_NEWTON_FAIL;
			}
			reduced_mass(T, s);
			double cv = T->gam * h, cq = T->beta * h * h;
			for (size_t e = 0; e < (size_t)f * f; e++)
				T->SM[e] = T->MR[e] + cv * T->CR[e] + cq * T->KR[e];
			int info = 0;
			if (f > 0)
				dgetrf_(&f, &f, T->SM, &f, T->ipiv, &info);
			if (info != 0) {
				integ_note_worst(it);
				return INTEG_SINGULAR;
			}
			T->omega = omega_max(T);
			fS = f;
			refresh = 0;
		}
		for (int i = 0; i < f; i++)
			T->dy[i] = -T->R0[i];
		int one = 1, info = 0;
		if (f > 0)
			dgetrs_("N", &f, &one, T->SM, &f, T->ipiv, T->dy, &f, &info);
		for (int i = 0; i < f; i++)
			T->y[i] += T->dy[i];
		newmark_alpha(T, h);
		if (state_at(T, s, t, lamf, T->al, T->ald, T->y, NULL)) {
			integ_note_worst(it);
			return INTEG_NEWTON_FAIL;
		}
		/* the move of q*, and the acceleration change in position units */
		difference(T, s, &T->q, T->tmpn);
		double move = nrm(T->tmpn, n), dacc = h * h * nrm(T->dy, f);
		double nrm_step = fmax(move, dacc);
		it->last_norm = nrm_step;
		ra_state_copy(s, &T->base, &T->q);
		integ_acc_get(s, &T->q, T->g);
		if (!isfinite(nrm_step)) {
			integ_note_worst(it);
			return INTEG_NONFINITE;
		}
		if (nrm_step < it->tol || (k > 2 && nrm_step >= last && nrm_step < 1e3 * it->tol)) {
			ok = 1;
			break;
		}
		refresh = k > 0 && nrm_step > 0.25 * last;
		last = nrm_step;
	}
	it->total_iters += it->iters;
	it->steps++;
	if (!ok) {
		ra_eval(s, &T->base, t, PRIM_PHI);
		integ_note_worst(it);
		return INTEG_NEWTON_FAIL;
	}
	/* the end state: velocities and accelerations solved again at q (the
	 * last estimate, which moved less than the tolerance from where G
	 * was factored), so that they meet the constraints at q itself */
	get_u(s, &T->base, T->tmpn);
	tmul(T->N, n, T->f, T->tmpn, T->ald);
	tmul(T->N, n, T->f, T->g, T->y);
	difference(T, s, &T->base, T->tmpn);	/* zero: alpha of q itself */
	tmul(T->N, n, T->f, T->tmpn, T->al);
	if (state_at(T, s, t, lamf, T->al, T->ald, T->y, NULL))
		return INTEG_NEWTON_FAIL;
	ra_state_copy(s, y, &T->q);
	y->t = t;
	multipliers(T, s, y, t, lamf, y->lam);
	it->factorizations += it->iters;
	return INTEG_OK;
}

/* The shared index-1 solve, then omega_max of the first sample. */
static int tangent_accel(struct integ *it, struct ra_state *x)
{
	int st = integ_accel_index1(it, x);
	return st ? st : tangent_omega_at(it, x);
}

static int tangent_growth_step(struct integ *it, double h, struct ra_state *x,
			       struct ra_state *y)
{
	struct tangent *T = it->mem;
	return nm_growth_step(T->growth, it->sys, tangent_step(it, h, x, y), y);
}

/* tangent_newmark solves no saddle-point system: the same angle sqrt(tol)
 * as the rank tolerance of its QR for the step (integ.h) */
static int tangent_singular_tol(struct integ *it, double tol)
{
	tangent_rank_tol(it, sqrt(tol));
	return 0;
}

static int tangent_fail(const struct integ *it, int st, double t, long step, double h,
			char *msg, size_t n)
{
	const struct tangent *T = it->mem;
	return nm_growth_message(T->growth, it->sys->m, st, t, step, h, msg, n);
}

static double tangent_sample(struct integ *it)
{
	struct tangent *T = it->mem;
	if (isfinite(T->omega))
		T->omega_sampled = isfinite(T->omega_sampled) ? fmax(T->omega_sampled, T->omega)
							      : T->omega;
	return T->omega;
}

static const struct integ_stat_key tangent_keys[] = {
	{ "omega_max", INTEG_STAT_SHARED }, { "stable_step_bound", INTEG_STAT_SHARED }, { 0, 0 }
};

/* omega_max over the samples, and the step bound of 002 eq. 11 from it */
static int tangent_stats(const struct integ *it, const struct sim_options *o, double *v)
{
	const struct tangent *T = it->mem;
	v[0] = T->omega_sampled;
	v[1] = isfinite(v[0]) ? nm_hmax(v[0], o->nm_beta, o->nm_gamma) : NAN;
	return 2;
}

static void tangent_notes(const struct integ *it, const struct sim_options *o, const double *v,
			  char *buf, size_t n)
{
	(void)it;
	if (!isfinite(v[0]))
		return;
	if (isfinite(v[1]))
		snprintf(buf, n, "omega_max %.6g rad/s (largest over the samples); stable step "
			 "bound of eq. 11 of doi:10.1007/s11012-021-01433-0 (beta %g, gamma %g): "
			 "dt <= %.6g s\n", v[0], o->nm_beta, o->nm_gamma, v[1]);
	else
		snprintf(buf, n, "omega_max %.6g rad/s (largest over the samples); beta %g >= "
			 "gamma/2 (%g): no step bound (eq. 11 of doi:10.1007/s11012-021-01433-0)\n",
			 v[0], o->nm_beta, 0.5 * o->nm_gamma);
}

/* Restart: the pivot order and the factors the next QR starts from
 * (fast_qr), the rank found, the frequencies sampled and the growth
 * detector's memory. */
static void tangent_ckpt(struct integ *it, struct ckpt *c)
{
	struct tangent *T = it->mem;
	ckpt_d(c, &T->omega, 1);
	ckpt_d(c, &T->omega_sampled, 1);
	ckpt_i(c, &T->r, 1);
	ckpt_i(c, &T->f, 1);
	ckpt_i(c, &T->have_piv, 1);
	ckpt_i(c, &T->kq, 1);
	ckpt_d(c, &T->rank_tol, 1);
	ckpt_i(c, T->jpvt, T->m);
	ckpt_d(c, T->A, (long)T->n * T->m);
	ckpt_d(c, T->tau, T->m < T->n ? T->m : T->n);
	nm_growth_ckpt(T->growth, it->sys, c);
}

const struct integ_ops tangent_ops = {
	.init = tangent_init,
	.step = tangent_growth_step,
	.accel = tangent_accel,
	.singular_tol = tangent_singular_tol,
	.fail = tangent_fail,
	.sample_name = "omega_max",
	.sample_unit = "rad/s",
	.sample_doc = "largest natural frequency of the linearized tangent system "
		      "(as in Figs. 21, 25 of doi:10.1007/s11012-021-01433-0)",
	.sample = tangent_sample,
	.stat_keys = tangent_keys,
	.stats = tangent_stats,
	.notes = tangent_notes,
	.iter_unit = "Newton it",
	.ckpt = tangent_ckpt,
	.free = tangent_free,
};
