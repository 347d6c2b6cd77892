/* statespace.c - A, B, C, D in partitioned minimal coordinates
 * (statespace.h). */
#include "statespace.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "linearize.h"
#include "statics.h"
#include "../la/lapack.h"
#include "../util/xalloc.h"

int ss_is_input(const struct force *f)
{
	switch (f->type) {
	case FORCE_POINT:
	case FORCE_TORQUE:
	case FORCE_MOTOR:
		return 1;
	case FORCE_TSDA:
	case FORCE_RSDA:
		return f->has_act || f->ex;
	default:
		return 0;
	}
}

static int by_int(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;
	return (x > y) - (x < y);
}

/* The partition of the n coordinates by the nr x n rows P (column-major):
 * N (n x d, column-major, malloc'd) and the independent coordinates in
 * coord (d, ascending, malloc'd).  d, or -1 with a message. */
static int partition(const double *P, int nr, int n, double **Np, int **coord, char *msg,
		     size_t len)
{
	int *jp = xcalloc((size_t)n + 1, sizeof(int)), r = 0, info = 0;
	double *a = xcalloc((size_t)(nr ? nr : 1) * (size_t)n, sizeof(double));
	double *tau = xcalloc((size_t)n + 1, sizeof(double));
	if (nr > 0) {
		memcpy(a, P, (size_t)nr * (size_t)n * sizeof(double));
		int q = -1;
		double wq;
		dgeqp3_(&nr, &n, a, &nr, jp, tau, &wq, &q, &info);
		int lw = (int)wq + 1;
		double *work = xcalloc((size_t)lw, sizeof(double));
		dgeqp3_(&nr, &n, a, &nr, jp, tau, work, &lw, &info);
		free(work);
		if (info != 0) {
			snprintf(msg, len, "the QR of the constraint Jacobian failed (dgeqp3 info %d)",
				 info);
			free(jp);
			free(a);
			free(tau);
			return -1;
		}
		/* the rank tolerance of lin_null_space */
		int k = nr < n ? nr : n;
		while (r < k && fabs(a[r + (size_t)nr * r]) > 1e-10 * fabs(a[0]))
			r++;
	} else {
		for (int j = 0; j < n; j++)
			jp[j] = j + 1;
	}
	int d = n - r;
	double *N = xcalloc((size_t)n * (size_t)(d ? d : 1), sizeof(double));
	int *ic = xcalloc((size_t)d + 1, sizeof(int));
	for (int c = 0; c < d; c++)
		ic[c] = jp[r + c] - 1;
	qsort(ic, (size_t)d, sizeof(int), by_int);
	for (int c = 0; c < d; c++) {
		int p = r;	/* the pivoted position of coordinate ic[c] */
		while (jp[p] - 1 != ic[c])
			p++;
		double *col = xcalloc((size_t)r + 1, sizeof(double));
		for (int i = 0; i < r; i++)
			col[i] = a[i + (size_t)nr * p];	/* R12's column */
		int one = 1;
		if (r > 0)
			dtrsv_("U", "N", "N", &r, a, &nr, col, &one);	/* R11^-1 R12 */
		for (int i = 0; i < r; i++)
			N[(jp[i] - 1) + (size_t)n * c] = -col[i];
		N[ic[c] + (size_t)n * c] = 1;
		free(col);
	}
	*Np = N;
	*coord = ic;
	free(jp);
	free(a);
	free(tau);
	return d;
}

/* X = Mr^-1 Y (Mr d x d, Y d x m, both column-major; Y overwritten).
 * 0, or -1 when Mr is singular. */
static int mass_solve(const double *Mr, int d, double *Y, int m)
{
	double *F = xcalloc((size_t)d * (size_t)d + 1, sizeof(double));
	int *piv = xcalloc((size_t)d + 1, sizeof(int)), info;
	memcpy(F, Mr, (size_t)d * (size_t)d * sizeof(double));
	dgetrf_(&d, &d, F, &d, piv, &info);
	if (info == 0 && m > 0)
		dgetrs_("N", &d, &m, F, &d, piv, Y, &d, &info);
	free(F);
	free(piv);
	return info == 0 ? 0 : -1;
}

/* Bq (n x nu, column-major) = dG/du at x, one input at a time moved by
 * +-1: G is affine in each */
static void input_columns(struct ra *s, const struct ra_state *x, double t, const int *input,
			  int nu, double *Bq)
{
	int n = s->ng;
	double *u = xcalloc((size_t)s->m->nforces + 1, sizeof(double));
	double *Gm = xcalloc((size_t)n, sizeof(double));
	s->uin = u;
	for (int k = 0; k < nu; k++) {
		double *col = Bq + (size_t)n * k;
		u[input[k]] = 1;
		statics_residual(s, x, t, x->lam, col);
		u[input[k]] = -1;
		statics_residual(s, x, t, x->lam, Gm);
		u[input[k]] = 0;
		for (int i = 0; i < n; i++)
			col[i] = 0.5 * (col[i] - Gm[i]);
	}
	s->uin = NULL;
	ra_eval(s, x, t, PRIM_PHI | PRIM_JAC);
	free(u);
	free(Gm);
}

/* The rows of the measures: Hq, Hv (nm x n, row-major) their derivatives
 * in the coordinates and their rates (fourth-order central differences,
 * the steps of statics_fd), Hu (nm x nu) in the inputs (central, exact
 * for an affine dependence) */
static void measure_rows(struct ra *s, const struct ra_state *x, double t, const int *input,
			 int nu, double *Hq, double *Hv, double *Hu)
{
	const struct model *m = s->m;
	int n = s->ng, nm = m->nmeasures;
	double L = statics_length(m);
	static const double off[4] = { 1, -1, 2, -2 }, wt[4] = { 8, -8, -1, 1 };
	struct ra_state xp;
	ra_state_init(s, &xp);
	for (int vel = 0; vel < 2; vel++)
		for (int j = 0; j < n; j++) {
			double h = (j % 6 < 3) ? 1e-3 * L : 1e-3;
			double *H = vel ? Hv : Hq;
			for (int i = 0; i < nm; i++)
				H[(size_t)n * i + j] = 0;
			for (int k = 0; k < 4; k++) {
				statics_perturb(s, &xp, x, j, off[k] * h, vel);
				for (int i = 0; i < nm; i++)
					H[(size_t)n * i + j] += wt[k] * ra_sexpr(s, &xp, t, m->measures[i].ex);
			}
			for (int i = 0; i < nm; i++)
				H[(size_t)n * i + j] /= 12 * h;
		}
	double *u = xcalloc((size_t)m->nforces + 1, sizeof(double));
	s->uin = u;
	for (int k = 0; k < nu; k++)
		for (int i = 0; i < nm; i++) {
			u[input[k]] = 1;
			double hp = ra_sexpr(s, x, t, m->measures[i].ex);
			u[input[k]] = -1;
			double hm = ra_sexpr(s, x, t, m->measures[i].ex);
			u[input[k]] = 0;
			Hu[(size_t)nu * i + k] = 0.5 * (hp - hm);
		}
	s->uin = NULL;
	free(u);
	ra_state_release(&xp);
}

/* L's C and D: the measures' rows times N (C = [Hq N, Hv N]), or the
 * states */
static void outputs(struct ra *s, const struct ra_state *x, double t, const double *N,
		    struct statespace *L)
{
	int n = s->ng, d = L->d, nx = L->nx, nu = L->nu, nm = s->m->nmeasures;
	L->measures = nm > 0;
	L->nz = nm > 0 ? nm : nx;
	L->C = xcalloc((size_t)L->nz * (size_t)nx + 1, sizeof(double));
	L->D = xcalloc((size_t)L->nz * (size_t)nu + 1, sizeof(double));
	if (nm == 0) {
		for (int i = 0; i < nx; i++)
			L->C[(size_t)nx * i + i] = 1;
		return;
	}
	double *Hq = xcalloc((size_t)nm * (size_t)n, sizeof(double));
	double *Hv = xcalloc((size_t)nm * (size_t)n, sizeof(double));
	measure_rows(s, x, t, L->input, nu, Hq, Hv, L->D);
	for (int i = 0; i < nm; i++)
		for (int c = 0; c < d; c++) {
			double aq = 0, av = 0;
			for (int j = 0; j < n; j++) {
				aq += Hq[(size_t)n * i + j] * N[j + (size_t)n * c];
				av += Hv[(size_t)n * i + j] * N[j + (size_t)n * c];
			}
			L->C[(size_t)nx * i + c] = aq;
			L->C[(size_t)nx * i + d + c] = av;
		}
	free(Hq);
	free(Hv);
}

int ss_compute(struct ra *s, const struct ra_state *x, double t, struct statespace *L,
	       char *msg, size_t len)
{
	const struct model *m = s->m;
	int n = s->ng, nr;
	size_t nn = (size_t)n * (size_t)n;
	memset(L, 0, sizeof(*L));
	L->input = xcalloc((size_t)m->nforces + 1, sizeof(int));
	for (int i = 0; i < m->nforces; i++)
		if (ss_is_input(&m->forces[i]))
			L->input[L->nu++] = i;
	double *M = xcalloc(nn, sizeof(double)), *K = xcalloc(nn, sizeof(double));
	double *C = xcalloc(nn, sizeof(double));
	L->flags = lin_matrices(s, x, t, M, K, C);
	double *P = lin_motion_rows(s, x, t, &nr), *N = NULL;
	int d = partition(P, nr, n, &N, &L->coord, msg, len), rc = -1;
	free(P);
	if (d >= 0) {
		int nx = 2 * d, nu = L->nu;
		size_t dd = (size_t)d * (size_t)d;
		L->d = d;
		L->nx = nx;
		double *Mr = xcalloc(dd + 1, sizeof(double));
		/* Y = [Kr Cr Br] (d x (2d + nu), column-major), then Mr^-1 Y */
		double *Y = xcalloc((size_t)d * (size_t)(nx + nu) + 1, sizeof(double));
		double *Bq = xcalloc((size_t)n * (size_t)nu + 1, sizeof(double));
		lin_project(M, N, n, d, Mr);
		lin_project(K, N, n, d, Y);
		lin_project(C, N, n, d, Y + dd);
		input_columns(s, x, t, L->input, nu, Bq);
		for (int k = 0; k < nu; k++)
			for (int c = 0; c < d; c++) {
				double acc = 0;
				for (int i = 0; i < n; i++)
					acc += N[i + (size_t)n * c] * Bq[i + (size_t)n * k];
				Y[c + (size_t)d * (nx + k)] = acc;
			}
		if (d > 0 && mass_solve(Mr, d, Y, nx + nu)) {
			snprintf(msg, len, "the reduced mass matrix is singular (a massless "
				 "coordinate): no state-space form");
		} else {
			L->A = xcalloc((size_t)nx * (size_t)nx + 1, sizeof(double));
			L->B = xcalloc((size_t)nx * (size_t)nu + 1, sizeof(double));
			for (int i = 0; i < d; i++) {
				L->A[(size_t)nx * i + d + i] = 1;	/* y' */
				for (int j = 0; j < d; j++) {
					L->A[(size_t)nx * (d + i) + j] = -Y[i + (size_t)d * j];
					L->A[(size_t)nx * (d + i) + d + j] = -Y[i + (size_t)d * (d + j)];
				}
				for (int k = 0; k < nu; k++)
					L->B[(size_t)nu * (d + i) + k] = Y[i + (size_t)d * (nx + k)];
			}
			outputs(s, x, t, N, L);
			rc = 0;
		}
		free(Mr);
		free(Y);
		free(Bq);
	}
	ra_eval(s, x, t, PRIM_PHI | PRIM_JAC);
	free(N);
	free(M);
	free(K);
	free(C);
	return rc;
}

void ss_release(struct statespace *L)
{
	free(L->A);
	free(L->B);
	free(L->C);
	free(L->D);
	free(L->coord);
	free(L->input);
	memset(L, 0, sizeof(*L));
}

void ss_state_name(const struct model *m, const struct statespace *L, int k, char *buf,
		   size_t n)
{
	static const char *const pos[6] = { "x", "y", "z", "rx", "ry", "rz" };
	static const char *const vel[6] = { "vx", "vy", "vz", "wx", "wy", "wz" };
	int j = L->coord[k % L->d];
	snprintf(buf, n, "%s.%s", m->bodies[j / 6].name, (k < L->d ? pos : vel)[j % 6]);
}
