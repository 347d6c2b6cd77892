/* linearize.c - the linearized constrained system at rest and its modes
 * (linearize.h). */
#include "linearize.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "statics.h"
#include "../la/lapack.h"
#include "../util/vec.h"
#include "../util/xalloc.h"

/* LAPACK */
void dgesvd_(const char *jobu, const char *jobvt, const int *m, const int *n, double *a,
	     const int *lda, double *s, double *u, const int *ldu, double *vt, const int *ldvt,
	     double *work, const int *lwork, int *info);

#define TWO_PI 6.283185307179586476925286766559

/* Orthonormal basis of the null space of P (nc x n, column-major): the
 * right singular vectors of the singular values below 1e-10 of the
 * largest (the rank tolerance), in N (n x ndof, column-major, malloc'd). */
static int null_space(const double *P, int nc, int n, double **N, char *msg, size_t len)
{
	if (nc == 0) {
		*N = xcalloc((size_t)n * (size_t)n, sizeof(double));
		for (int i = 0; i < n; i++)
			(*N)[i + (size_t)n * i] = 1;
		return n;
	}
	double *a = xcalloc((size_t)nc * (size_t)n, sizeof(double));
	double *vt = xcalloc((size_t)n * (size_t)n, sizeof(double));
	int k = nc < n ? nc : n;
	double *sv = xcalloc((size_t)k, sizeof(double)), wq, u = 0;
	memcpy(a, P, (size_t)nc * (size_t)n * sizeof(double));
	int one = 1, q = -1, info;
	dgesvd_("N", "A", &nc, &n, a, &nc, sv, &u, &one, vt, &n, &wq, &q, &info);
	int lw = (int)wq + 1;
	double *work = xcalloc((size_t)lw, sizeof(double));
	dgesvd_("N", "A", &nc, &n, a, &nc, sv, &u, &one, vt, &n, work, &lw, &info);
	int rank = 0, ndof = -1;
	if (info == 0) {
		for (int i = 0; i < k; i++)
			if (sv[i] > 1e-10 * sv[0])
				rank++;
		ndof = n - rank;
		*N = xcalloc((size_t)n * (size_t)(ndof ? ndof : 1), sizeof(double));
		for (int c = 0; c < ndof; c++)	/* column c of N = row rank + c of V^T */
			for (int i = 0; i < n; i++)
				(*N)[i + (size_t)n * c] = vt[(rank + c) + (size_t)n * i];
	} else {
		snprintf(msg, len, "the SVD of the constraint Jacobian failed (dgesvd info %d)",
			 info);
	}
	free(a);
	free(vt);
	free(sv);
	free(work);
	return ndof;
}

/* R = N^T X N (X n x n, N n x d, R d x d, all column-major) */
void lin_project(const double *X, const double *N, int n, int d, double *R)
{
	double *XN = xcalloc((size_t)n * (size_t)(d ? d : 1), sizeof(double));
	for (int c = 0; c < d; c++)
		for (int j = 0; j < n; j++) {
			double nj = N[j + (size_t)n * c];
			if (nj == 0)
				continue;
			for (int i = 0; i < n; i++)
				XN[i + (size_t)n * c] += X[i + (size_t)n * j] * nj;
		}
	for (int c = 0; c < d; c++)
		for (int r = 0; r < d; r++) {
			double acc = 0;
			for (int i = 0; i < n; i++)
				acc += N[i + (size_t)n * r] * XN[i + (size_t)n * c];
			R[r + (size_t)d * c] = acc;
		}
	free(XN);
}

static int by_freq(const void *a, const void *b)
{
	const struct mode *x = a, *y = b;
	return (x->freq > y->freq) - (x->freq < y->freq);
}

/* The round-off of the stiffness relative to its entries (the finite
 * differences of statics_fd: truncation some 1e-12, rounding some 1e-13 of
 * each entry on the test decks) with a margin of 1e3. */
#define K_ROUNDOFF 1e-9

/* Is the undamped eigenvalue w2 = (ar + i ai) / be of eigenvector column
 * j of VR (with j + 1 its imaginary part when im) a zero of the
 * stiffness within its round-off?  A relative error eps in each entry
 * of Kr moves w2 by up to eps |y|^T |Kr| |y| / (y^H Mr y): the stiffness
 * the mode itself engages, not that of the stiffest mode of the model.
 * That misses the rounding of the differences themselves, which is not
 * relative to Kr: a coordinate no stiffness holds (a slider without a
 * spring) has entries of Kr that are rounding alone, of the forces' size
 * over the difference step (nz, n per model coordinate, modes_compute);
 * |N y|^T nz |N y| bounds what it adds to y^T Kr y.
 * u: room for d + n doubles (|y|, |N y|). */
static int is_free(const double *Mr, const double *Kr, const double *N, const double *nz, int n,
		   int d, const double *VR, int j, int im, double w2, double *u)
{
	const double *yr = VR + (size_t)d * j, *yi = im ? VR + (size_t)d * (j + 1) : NULL;
	double *v = u + d, sum = 0, fl = 0;
	for (int a = 0; a < d; a++)
		u[a] = im ? hypot(yr[a], yi[a]) : fabs(yr[a]);
	for (int i = 0; i < n; i++) {
		double a = 0, b = 0;
		for (int c = 0; c < d; c++) {
			a += N[i + (size_t)n * c] * yr[c];
			b += im ? N[i + (size_t)n * c] * yi[c] : 0;
		}
		v[i] = hypot(a, b);
		sum += v[i];
		fl += nz[i] * v[i];
	}
	double num = 0, den = 0;
	for (int b = 0; b < d; b++) {	/* column b of the column-major Kr, Mr */
		const double *kc = Kr + (size_t)d * b, *mc = Mr + (size_t)d * b;
		double sk = 0, sr = 0, si = 0;
		for (int a = 0; a < d; a++) {
			sk += u[a] * fabs(kc[a]);
			sr += mc[a] * yr[a];
			if (im)
				si += mc[a] * yi[a];
		}
		num += sk * u[b];
		den += sr * yr[b] + (im ? si * yi[b] : 0);
	}
	return fabs(w2) <= (K_ROUNDOFF * num + sum * fl) / fabs(den) || num == 0;
}

/* Free motions: how many undamped eigenvalues, Kr y = w^2 Mr y, are a
 * zero of the stiffness within its round-off (is_free), the largest w
 * (rad/s) of them in *wfree; -1 when dggev fails.  A free motion is a
 * zero of the stiffness, whatever the damping: a double s = 0 of the
 * pencil when nothing damps it, a single s = 0 beside s = -c/m when
 * something does. */
static int free_motions(const double *Mr, const double *Kr, const double *N, const double *nz,
			int n, int d, double *wfree)
{
	size_t dd = (size_t)d * (size_t)d;
	double *K = xcalloc(dd, sizeof(double)), *M = xcalloc(dd, sizeof(double));
	double *ar = xcalloc((size_t)d, sizeof(double)), *ai = xcalloc((size_t)d, sizeof(double));
	double *be = xcalloc((size_t)d, sizeof(double)), *VR = xcalloc(dd, sizeof(double));
	double *u = xcalloc((size_t)d + (size_t)n, sizeof(double));
	double wq, dummy = 0;
	memcpy(K, Kr, dd * sizeof(double));
	memcpy(M, Mr, dd * sizeof(double));
	int one = 1, q = -1, info;
	dggev_("N", "V", &d, K, &d, M, &d, ar, ai, be, &dummy, &one, VR, &d, &wq, &q, &info);
	int lw = (int)wq + 1, nf = -1;
	double *work = xcalloc((size_t)lw, sizeof(double));
	dggev_("N", "V", &d, K, &d, M, &d, ar, ai, be, &dummy, &one, VR, &d, work, &lw, &info);
	*wfree = 0;
	if (info == 0) {
		nf = 0;
		for (int i = 0; i < d; i++) {
			double w2 = hypot(ar[i], ai[i]) / fabs(be[i]);	/* beta != 0: M > 0 */
			int im = ai[i] != 0, j = im && ai[i] < 0 ? i - 1 : i;
			if (is_free(Mr, Kr, N, nz, n, d, VR, j, im, w2, u)) {
				nf++;
				*wfree = fmax(*wfree, sqrt(w2));
			}
		}
	}
	free(K);
	free(M);
	free(ar);
	free(ai);
	free(be);
	free(VR);
	free(u);
	free(work);
	return nf;
}

double *lin_shape(const double *VR, int ld, int j, int im, const double *N, int n, int d)
{
	int n2 = ld;
	double *sh = xcalloc(2 * (size_t)n, sizeof(double));
	for (int c = 0; c < d; c++) {
		double yr = VR[c + (size_t)n2 * j], yi = im ? VR[c + (size_t)n2 * (j + 1)] : 0;
		for (int i = 0; i < n; i++) {
			double nc = N[i + (size_t)n * c];
			sh[2 * i] += nc * yr;
			sh[2 * i + 1] += nc * yi;
		}
	}
	int big = 0;
	for (int i = 1; i < n; i++)
		if (hypot(sh[2 * i], sh[2 * i + 1]) > hypot(sh[2 * big], sh[2 * big + 1]))
			big = i;
	double br = sh[2 * big], bi = sh[2 * big + 1], b2 = br * br + bi * bi;
	if (b2 > 0)
		for (int i = 0; i < n; i++) {	/* divide by sh[big] */
			double r = sh[2 * i], q = sh[2 * i + 1];
			sh[2 * i] = (r * br + q * bi) / b2;
			sh[2 * i + 1] = (q * br - r * bi) / b2;
		}
	return sh;
}

/* Eigenvalues of the first-order pencil of (Mr, Cr, Kr) (d x d) into mo,
 * with the mode shapes N y (N n x d) */
static int eigen(const double *Mr, const double *Cr, const double *Kr, const double *nz, int d,
		 const double *N, int n, struct modes *mo, char *msg, size_t len)
{
	int n2 = 2 * d;
	if (d == 0)
		return 0;	/* no motion allowed: no modes */
	size_t nn = (size_t)n2 * (size_t)n2;
	double *A = xcalloc(nn, sizeof(double)), *B = xcalloc(nn, sizeof(double));
	double *ar = xcalloc((size_t)n2, sizeof(double)), *ai = xcalloc((size_t)n2, sizeof(double));
	double *be = xcalloc((size_t)n2, sizeof(double)), wq, dummy = 0;
	for (int i = 0; i < d; i++) {
		A[i + (size_t)n2 * (d + i)] = 1;	/* y' = u */
		B[i + (size_t)n2 * i] = 1;
		for (int j = 0; j < d; j++) {	/* Mr u' = -Kr y - Cr u */
			A[(d + i) + (size_t)n2 * j] = -Kr[i + (size_t)d * j];
			A[(d + i) + (size_t)n2 * (d + j)] = -Cr[i + (size_t)d * j];
			B[(d + i) + (size_t)n2 * (d + j)] = Mr[i + (size_t)d * j];
		}
	}
	int one = 1, q = -1, info;
	double *VR = xcalloc(nn, sizeof(double));
	dggev_("N", "V", &n2, A, &n2, B, &n2, ar, ai, be, &dummy, &one, VR, &n2, &wq, &q,
	       &info);
	int lw = (int)wq + 1;
	double *work = xcalloc((size_t)lw, sizeof(double));
	dggev_("N", "V", &n2, A, &n2, B, &n2, ar, ai, be, &dummy, &one, VR, &n2, work, &lw,
	       &info);
	int rc = 0;
	if (info != 0) {
		snprintf(msg, len, "the generalized eigenproblem failed (dggev info %d)", info);
		rc = -1;
	} else {
		mo->m = xcalloc((size_t)(n2 ? n2 : 1), sizeof(struct mode));
		double smax = 0;
		for (int i = 0; i < n2; i++) {
			/* beta = 0 only for a singular Mr, which M > 0 excludes */
			double re = ar[i] / be[i], im = ai[i] / be[i];
			/* an undamped conservative mode has re = 0: what dggev leaves
			 * there is rounding (measured below 1e-15 |s| on the test
			 * decks), not damping, and must not read as instability */
			if (fabs(re) <= 1e-10 * hypot(re, im) && im != 0)
				re = 0;
			if (im < 0)
				continue;	/* the conjugate of a listed pair */
			struct mode *e = &mo->m[mo->nmodes++];
			e->re = re;
			e->im = im;
			e->shape = lin_shape(VR, n2, i, ai[i] != 0, N, n, d);
			e->freq = hypot(re, im) / TWO_PI;
			e->damped = im / TWO_PI;
			e->zeta = e->freq > 0 ? -re / hypot(re, im) + 0.0 : 0;	/* no -0 */
			smax = fmax(smax, e->freq);
		}
		/* a free motion is a double s = 0 that rounding may split into two
		 * tiny reals when nothing damps it, a single s = 0 when something
		 * does: keep as many tiny ones as the stiffness has free motions
		 * (one of each pair of tiny reals if dggev fails there; taking
		 * every pair of tiny reals for one motion listed two damped free
		 * motions as one) */
		double wfree;
		int k = 0, zeros = 0, kept = 0, nfree = free_motions(Mr, Kr, N, nz, n, d, &wfree);
		for (int i = 0; i < mo->nmodes; i++) {
			struct mode *e = &mo->m[i];
			/* the candidates: |s| within twice the largest free w (an
			 * undamped pair split by rounding is some +-sqrt(w^2)) */
			int cand = nfree > 0 ? TWO_PI * e->freq <= 2 * wfree :
				   nfree < 0 && (e->freq <= 1e-5 * smax || smax == 0);
			if (cand) {
				if (nfree >= 0 ? kept >= nfree : e->im == 0 && zeros++ % 2) {
					free(e->shape);
					continue;
				}
				kept++;
				e->rigid = 1;
				e->freq = e->damped = e->zeta = e->re = e->im = 0;
			}
			mo->m[k++] = *e;
		}
		mo->nmodes = k;
		qsort(mo->m, (size_t)k, sizeof(struct mode), by_freq);
		mo->fmax = k > 0 ? mo->m[k - 1].freq : 0;	/* a free motion's is 0 */
	}
	free(A);
	free(B);
	free(VR);
	free(ar);
	free(ai);
	free(be);
	free(work);
	return rc;
}

/* The rounding of statics_fd's column j (n doubles, malloc'd): the
 * largest of the forces and of the constraints' reactions at x (both
 * balance there, but each is computed, and rounded, on its own), times
 * the unit rounding over the step h_j, times 1e3 (K_ROUNDOFF's margin).
 * A model with nothing loaded (springs at their free lengths, no
 * gravity) rounds nothing: 0. */
static double *rounding(struct ra *s, const struct ra_state *x, double t)
{
	int n = s->ng;
	double *F = xcalloc((size_t)n, sizeof(double)), *T = xcalloc((size_t)n, sizeof(double));
	double *nz = xcalloc((size_t)n, sizeof(double)), fs = 0, L = statics_length(s->m);
	ra_forces(s, x, t, x->lam, F);
	ra_eval(s, x, t, PRIM_PHI | PRIM_JAC);
	ra_jac_tmul(s, x->lam, T);
	for (int i = 0; i < n; i++)
		fs = fmax(fs, fmax(fabs(F[i]), fabs(T[i])));
	for (int j = 0; j < n; j++)
		nz[j] = 1e3 * DBL_EPSILON * fs / (j % 6 < 3 ? 1e-3 * L : 1e-3);
	free(F);
	free(T);
	return nz;
}

double *lin_motion_rows(struct ra *s, const struct ra_state *x, double t, int *nrows)
{
	int n = s->ng, nc = s->nc;
	double *P = xcalloc((size_t)(nc ? nc : 1) * (size_t)n, sizeof(double));
	ra_eval(s, x, t, PRIM_PHI | PRIM_JAC);
	statics_jacobian(s, P);
	/* a particle's rotation is inert (model.h), no freedom: three rows
	 * theta = 0 per particle join Phi_q, so that the null space holds
	 * only the coordinates that move */
	int np = s->m->nparticles, nr = nc + 3 * np;
	if (np > 0) {
		double *Q = xcalloc((size_t)nr * (size_t)n, sizeof(double));
		for (int c = 0; c < n; c++)
			memcpy(Q + (size_t)nr * c, P + (size_t)nc * c, (size_t)nc * sizeof(double));
		for (int b = 0, r = nc; b < s->nb; b++)
			if (model_is_particle(s->m, b))
				for (int i = 0; i < 3; i++, r++)
					Q[r + (size_t)nr * (size_t)(6 * b + 3 + i)] = 1.0;
		free(P);
		P = Q;
	}
	*nrows = nr;
	return P;
}

int lin_null_space(struct ra *s, const struct ra_state *x, double t, double **N, char *msg,
		   size_t len)
{
	int nr, n = s->ng;
	double *P = lin_motion_rows(s, x, t, &nr);
	int d = null_space(P, nr, n, N, msg, len);
	free(P);
	return d;
}

unsigned lin_matrices(struct ra *s, const struct ra_state *x, double t, double *M, double *K,
		     double *C)
{
	int n = s->ng;
	size_t nn = (size_t)n * (size_t)n;
	unsigned flags = 0;
	memset(M, 0, nn * sizeof(double));
	ra_force_commit(s, x);	/* the differences' angles continuous about x */
	statics_fd(s, x, t, x->lam, 0, K);	/* dG/dq: K = -that */
	statics_fd(s, x, t, x->lam, 1, C);	/* dG/dv = df/dv */
	for (size_t i = 0; i < nn; i++) {
		K[i] = -K[i];
		C[i] = -C[i];
		if (C[i] != 0)
			flags |= LIN_DAMPED;
	}
	/* the gyroscopic term of J w' + w~ J w = n (body frame): its
	 * derivative w~ J - (J w)~ joins C, exactly (zero at rest) */
	for (int b = 0; b < s->nb; b++) {
		double G[9];
		m3_gyro_dw(G, s->J + 9 * b, x->w + 3 * b);
		for (int i = 0; i < 9; i++)
			if (G[i] != 0)
				flags |= LIN_GYROSCOPIC;
		for (int i = 0; i < 3; i++)
			for (int k = 0; k < 3; k++)
				C[(6 * b + 3 + i) + (size_t)n * (6 * b + 3 + k)] += G[3 * i + k];
	}
	for (int b = 0; b < s->nb; b++)
		for (int i = 0; i < 3; i++) {
			int p = 6 * b + i;
			M[p + (size_t)n * p] = s->mass[b];
			for (int k = 0; k < 3; k++)
				M[(6 * b + 3 + i) + (size_t)n * (6 * b + 3 + k)] = ra_inertia(s, b)[3 * i + k];
		}
	return flags;
}

int modes_compute(struct ra *s, const struct ra_state *x, double t, struct modes *mo,
		  char *msg, size_t len)
{
	int n = s->ng;
	size_t nn = (size_t)n * (size_t)n;
	memset(mo, 0, sizeof(*mo));
	double *K = xcalloc(nn, sizeof(double)), *C = xcalloc(nn, sizeof(double));
	double *M = xcalloc(nn, sizeof(double));
	unsigned fl = lin_matrices(s, x, t, M, K, C);
	mo->damped = (fl & LIN_DAMPED) != 0;
	mo->gyroscopic = (fl & LIN_GYROSCOPIC) != 0;
	double *nz = rounding(s, x, t);
	double *N = NULL;
	int rc = -1, d = lin_null_space(s, x, t, &N, msg, len);
	if (d >= 0) {
		mo->ndof = d;
		size_t dd = (size_t)(d ? d : 1) * (size_t)(d ? d : 1);
		double *Mr = xcalloc(dd, sizeof(double)), *Cr = xcalloc(dd, sizeof(double));
		double *Kr = xcalloc(dd, sizeof(double));
		lin_project(M, N, n, d, Mr);
		lin_project(C, N, n, d, Cr);
		lin_project(K, N, n, d, Kr);
		rc = eigen(Mr, Cr, Kr, nz, d, N, n, mo, msg, len);
		mo->ncoord = n;
		free(Mr);
		free(Cr);
		free(Kr);
	}
	free(N);
	free(nz);
	free(K);
	free(C);
	free(M);
	return rc;
}

void modes_release(struct modes *mo)
{
	for (int i = 0; mo->m && i < mo->nmodes; i++)
		free(mo->m[i].shape);
	free(mo->m);
	mo->m = NULL;
	mo->nmodes = 0;
}
