/* ra_force_jac.c - Jacobians of the force elements of the ra formulation
 * (ra.h): the body-diagonal blocks of the Newton matrices
 * (ra_force_blocks) and the full Jacobians of an element's generalized
 * forces for the analytic integration Jacobians (ra_force_lin), each
 * through its element's table (elem/elem.h); the central differences an
 * element's blocks may use and the pieces of the analytic Jacobians. */
#include "ra_force_impl.h"

#include <float.h>
#include <math.h>
#include <string.h>

/* ---- Jacobian blocks ---- */

/* Central differences of element i's force on body b[e] with respect to
 * that body's own r, theta (A <- A exp(theta~)), v and w: step
 * cbrt(DBL_EPSILON) max(1, |value|) (about 6e-6; error O(step^2), some
 * 1e-11 relative); W[18 b + ...] += cq K + cv C with K = -dF/d(r, theta),
 * C = -dF/d(v, w), translational and rotational 3x3 blocks. */
void ra_fd_blocks(const struct ra *s, const struct ra_state *xc, double t, int i,
		  const int b[2], double cq, double cv, double *W)
{
	struct ra_state *x = (struct ra_state *)xc;	/* perturbed and restored */
	const double eps = cbrt(DBL_EPSILON);
	for (int e = 0; e < 2; e++) {
		int bb = b[e];
		if (bb < 0)
			continue;
		double *r = x->r + 3 * bb, *v = x->v + 3 * bb, *w = x->w + 3 * bb;
		double *A = x->A + 9 * bb, A0[9];
		memcpy(A0, A, sizeof A0);
		for (int kind = 0; kind < 4; kind++)
			for (int c = 0; c < 3; c++) {
				double *p = kind == 0 ? r + c : kind == 2 ? v + c : kind == 3 ? w + c : NULL;
				double save = p ? *p : 0.0, hstep = eps * fmax(1.0, fabs(save));
				double op[12], om[12];
				for (int sgn = 0; sgn < 2; sgn++) {
					double dd = sgn ? -hstep : hstep;
					if (p) {
						*p = save + dd;
					} else {
						double th[3] = { 0, 0, 0 }, R[9];
						th[c] = dd;
						so3_exp(R, th);
						m3_mul(A, A0, R);
					}
					ra_elem_eval(s, x, t, x->lam, i, sgn ? om : op, NULL);
					if (p)
						*p = save;
					else
						memcpy(A, A0, sizeof A0);
				}
				double coef = (kind < 2 ? cq : cv) / (2.0 * hstep);
				int blk = kind == 0 || kind == 2 ? 0 : 9;
				int row0 = kind == 0 || kind == 2 ? 0 : 3;
				for (int rr = 0; rr < 3; rr++)
					W[18 * bb + blk + 3 * rr + c] -=
						coef * (op[6 * e + row0 + rr] - om[6 * e + row0 + rr]);
			}
	}
}

void ra_force_blocks(const struct ra *s, const struct ra_state *x, double t,
		     double cq, double cv, double *W)
{
	const struct model *m = s->m;
	for (int i = 0; i < m->nforces; i++) {
		const struct elem_ops *e = elem_of(&m->forces[i]);
		if (e->blocks)
			e->blocks(s, x, t, i, cq, cv, W);
	}
	if (s->contact)
		ra_contact_blocks(s, x, cq, cv, W);
}

/* ---- full Jacobians of force elements (analytic integration Jacobians,
 * seed 001 §3 eqs. 32, 35: the Q_q and Q_qdot of the state-space ODE) ---- */

void ra_jcols(double *M, int e, int with_r, const double *A, const double *c, double sign)
{
	double C[9], AC[9];
	m3_skew(C, c);
	m3_mul(AC, A, C);
	for (int a = 0; a < 3; a++) {
		if (with_r)
			M[12 * a + 6 * e + a] += sign;
		for (int k = 0; k < 3; k++)
			M[12 * a + 6 * e + 3 + k] -= sign * AC[3 * a + k];
	}
}

void ra_rel_point_jac(const struct force *f, const struct bstate bs[2], double *Dd,
		      double *Dv)
{
	for (int e = 0; e < 2; e++) {
		if (f->body[e] < 0)
			continue;
		double sg = e ? 1.0 : -1.0, wc[3];
		v3_cross(wc, bs[e].w, f->s[e]);
		ra_jcols(Dd, e, 1, bs[e].A, f->s[e], sg);
		ra_jcols(Dv, e, 0, bs[e].A, wc, sg);
	}
}

void ra_point_force_lin(double *K, int e, const double *A, const double *c,
			const double *G, const double *dG, int with_theta)
{
	double Cs[9], At[9], CA[9];
	m3_skew(Cs, c);
	for (int a = 0; a < 3; a++)
		for (int b = 0; b < 3; b++)
			At[3 * a + b] = A[3 * b + a];
	m3_mul(CA, Cs, At);
	for (int a = 0; a < 3; a++)
		for (int k = 0; k < 12; k++) {
			K[12 * (6 * e + a) + k] += dG[12 * a + k];
			double s = 0.0;
			for (int b = 0; b < 3; b++)
				s += CA[3 * a + b] * dG[12 * b + k];
			K[12 * (6 * e + 3 + a) + k] += s;
		}
	if (!with_theta)
		return;
	double ag[3], AG[9], T[9];
	m3_tmulv(ag, A, G);
	m3_skew(AG, ag);
	m3_mul(T, Cs, AG);
	for (int a = 0; a < 3; a++)
		for (int b = 0; b < 3; b++)
			K[12 * (6 * e + 3 + a) + 6 * e + 3 + b] += T[3 * a + b];
}

int ra_force_has_lin(const struct force *f)
{
	const struct elem_ops *e = elem_of(f);
	return e->has_lin && e->has_lin(f);
}

int ra_force_lin(const struct ra *s, const struct ra_state *x, double t, int i, int b[2],
		 double *K, double *C)
{
	const struct force *f = &s->m->forces[i];
	memset(K, 0, 144 * sizeof(double));
	memset(C, 0, 144 * sizeof(double));
	ra_elem_bodies(s->m, f, b);
	if (!ra_force_has_lin(f))
		return -1;
	return elem_of(f)->lin(s, x, t, i, K, C);
}
