/* beam.c - the three-node finite-volume beam element (beam.h). */
#include "beam.h"
#include "../util/vec.h"
#include "../util/xalloc.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* xi of evaluation point p: -+1/sqrt(3), the two-point Gauss abscissae
 * (seed 004 §3.1: MBDyn's three-node beam evaluates there) */
static double xi_of(int p)
{
	return (p ? 1.0 : -1.0) / sqrt(3.0);
}

static void shape(double xi, double N[3], double dN[3])
{
	N[0] = 0.5 * xi * (xi - 1.0);
	N[1] = 1.0 - xi * xi;
	N[2] = 0.5 * xi * (xi + 1.0);
	dN[0] = xi - 0.5;
	dN[1] = -2.0 * xi;
	dN[2] = xi + 0.5;
}

/* The rotational part of the geometry at both points (beam.h). */
void beam_rot_of(const double *const A[3], struct beam_rot *g)
{
	double Q[9];
	m3_tmul(Q, A[1], A[0]);
	so3_log(g->psi[0], Q);
	m3_tmul(Q, A[1], A[2]);
	so3_log(g->psi[1], Q);
	beam_rot_psi(A[1], g);
}

/* beam_rot_of from g->psi (beam.h). */
void beam_rot_psi(const double *A1, struct beam_rot *g)
{
	const double(*psi)[3] = g->psi;
	for (int p = 0; p < 2; p++) {
		double N[3], dN[3], ps[3], pd[3], E[9], Jr[9];
		shape(xi_of(p), N, dN);
		for (int c = 0; c < 3; c++) {
			ps[c] = N[0] * psi[0][c] + N[2] * psi[1][c];
			pd[c] = dN[0] * psi[0][c] + dN[2] * psi[1][c];
		}
		so3_exp_jr(E, Jr, ps);
		m3_mul(g->R[p], A1, E);
		m3_mulv(g->kd[p], Jr, pd);
	}
}

/* Strains of element e at both points (eps: 2 x 6), with the points x
 * and frames R (those of g). */
static void strains_rot(const struct beam *bm, int e, const double *const r[3],
			const struct beam_rot *g, double eps[2][6], double x[2][3])
{
	for (int p = 0; p < 2; p++) {
		const double *ref = bm->ref + BEAM_REF * e + 7 * p;
		double N[3], dN[3], xd[3], gm[3];
		shape(xi_of(p), N, dN);
		for (int c = 0; c < 3; c++) {
			x[p][c] = N[0] * r[0][c] + N[1] * r[1][c] + N[2] * r[2][c];
			xd[c] = dN[0] * r[0][c] + dN[1] * r[1][c] + dN[2] * r[2][c];
		}
		m3_tmulv(gm, g->R[p], xd);
		for (int c = 0; c < 3; c++) {
			eps[p][c] = gm[c] / ref[0] - ref[1 + c];
			eps[p][3 + c] = g->kd[p][c] / ref[0] - ref[4 + c];
		}
	}
}

static void strains(const struct beam *bm, int e, const double *const r[3],
		    const double *const A[3], double eps[2][6], double x[2][3], double R[2][9])
{
	struct beam_rot g;
	beam_rot_of(A, &g);
	strains_rot(bm, e, r, &g, eps, x);
	memcpy(R, g.R, sizeof g.R);
}

/* Strain rates by a central difference along the motion: the nodes moved
 * by +-d (v, w), d such that the largest node displacement or rotation is
 * 1e-6 (rad, or m per unit length of element): truncation O(d^2) and
 * round-off about 1e-16 / d relative to the strains. */
static void strain_rates(const struct beam *bm, int e, const double *const r[3],
			 const double *const A[3], const double *const v[3],
			 const double *const w[3], double epsd[2][6])
{
	double sc = 0.0, len = 2.0 * bm->ref[BEAM_REF * e];
	for (int i = 0; i < 3; i++)
		sc = fmax(sc, fmax(v3_norm(w[i]), v3_norm(v[i]) / len));
	memset(epsd, 0, 12 * sizeof(double));
	if (!(sc > 0.0))
		return;
	double d = 1e-6 / sc, rr[3][3], AA[3][9], em[2][6], ep[2][6], x[2][3], R[2][9];
	const double *rp[3] = { rr[0], rr[1], rr[2] }, *Ap[3] = { AA[0], AA[1], AA[2] };
	for (int s = 0; s < 2; s++) {
		double dd = s ? -d : d;
		for (int i = 0; i < 3; i++) {
			double th[3], Q[9];
			for (int c = 0; c < 3; c++) {
				rr[i][c] = r[i][c] + dd * v[i][c];
				th[c] = dd * w[i][c];
			}
			so3_exp(Q, th);
			m3_mul(AA[i], A[i], Q);
		}
		strains(bm, e, rp, Ap, s ? em : ep, x, R);
	}
	for (int p = 0; p < 2; p++)
		for (int c = 0; c < 6; c++)
			epsd[p][c] = (ep[p][c] - em[p][c]) / (2.0 * d);
}

/* m += (x - r) x F: the moment about r of F acting at x */
static void moment_add(double m[3], const double x[3], const double r[3], const double F[3])
{
	double d[3], cr[3];
	v3_sub(d, x, r);
	v3_cross(cr, d, F);
	v3_add(m, m, cr);
}

/* The node volumes' forces F[0..2], F[6..8], F[12..14] and their moments
 * m before the arms, from the section forces Fs and moments Ms. */
static void balance_sums(const double Fs[2][3], const double Ms[2][3], double *F, double m[3][3])
{
	for (int c = 0; c < 3; c++) {
		F[c] = Fs[0][c];
		F[6 + c] = Fs[1][c] - Fs[0][c];
		F[12 + c] = -Fs[1][c];
		m[0][c] = Ms[0][c];
		m[1][c] = Ms[1][c] - Ms[0][c];
		m[2][c] = -Ms[1][c];
	}
}

/* The node volumes' balance (beam.h): F (18) from the section forces Fs
 * and moments Ms (global) at the points x. */
static void balance(const double *const r[3], const double *const A[3], const double x[2][3],
		    const double Fs[2][3], const double Ms[2][3], double *F)
{
	double m[3][3];
	balance_sums(Fs, Ms, F, m);
	/* the section forces' moments about the nodes; a minus moment is
	 * taken with the arm reversed (exact: negation is) */
	moment_add(m[0], x[0], r[0], Fs[0]);
	moment_add(m[1], x[1], r[1], Fs[1]);
	moment_add(m[1], r[1], x[0], Fs[0]);
	moment_add(m[2], r[2], x[1], Fs[1]);
	for (int i = 0; i < 3; i++)
		m3_tmulv(F + 6 * i + 3, A[i], m[i]);
}

double beam_element(const struct beam *bm, int e, const double *const r[3],
		    const double *const A[3], const double *const v[3],
		    const double *const w[3], double *F, struct beam_pt *pt)
{
	struct beam_rot g;
	beam_rot_of(A, &g);
	return beam_element_rot(bm, e, r, A, v, w, &g, F, pt);
}

double beam_element_rot(const struct beam *bm, int e, const double *const r[3],
			const double *const A[3], const double *const v[3],
			const double *const w[3], const struct beam_rot *g, double *F,
			struct beam_pt *pt)
{
	double eps[2][6], epsd[2][6], x[2][3], Fs[2][3], Ms[2][3], U = 0.0;
	const double(*R)[9] = g->R;
	strains_rot(bm, e, r, g, eps, x);
	if (bm->mu > 0.0)
		strain_rates(bm, e, r, A, v, w, epsd);
	for (int p = 0; p < 2; p++) {
		double res[6], ed[6];
		/* stress from eps + mu epsd in one product (C linear) */
		for (int k = 0; k < 6; k++)
			ed[k] = bm->mu > 0.0 ? bm->mu * epsd[p][k] : 0.0;
		for (int i = 0; i < 6; i++) {
			const double *Ci = bm->C + 6 * i;
			double s = 0.0, sd = 0.0;
			if (bm->diag) {	/* a sixth of the products */
				s = Ci[i] * eps[p][i];
				sd = Ci[i] * ed[i];
			} else {
				for (int k = 0; k < 6; k++) {
					s += Ci[k] * eps[p][k];
					sd += Ci[k] * ed[k];
				}
			}
			U += 0.5 * bm->ref[BEAM_REF * e + 7 * p] * s * eps[p][i];
			res[i] = s + sd;
		}
		m3_mulv(Fs[p], R[p], res);
		m3_mulv(Ms[p], R[p], res + 3);
		if (pt) {
			memcpy(pt[p].eps, eps[p], sizeof pt[p].eps);
			if (bm->mu > 0.0)
				memcpy(pt[p].epsd, epsd[p], sizeof pt[p].epsd);
			else
				memset(pt[p].epsd, 0, sizeof pt[p].epsd);
			memcpy(pt[p].res, res, sizeof res);
			v3_copy(pt[p].x, x[p]);
			memcpy(pt[p].R, R[p], sizeof pt[p].R);
		}
	}
	if (F)
		balance(r, A, x, Fs, Ms, F);
	return U;
}

void beam_element_frozen(const struct beam *bm, int e, const double *const r[3],
			 const double *const A[3], const double res[2][6], double *F)
{
	struct beam_rot g;
	double eps[2][6], x[2][3], Fs[2][3], Ms[2][3];
	beam_rot_of(A, &g);
	strains_rot(bm, e, r, &g, eps, x);	/* the points x; eps unused */
	for (int p = 0; p < 2; p++) {
		m3_mulv(Fs[p], g.R[p], res[p]);
		m3_mulv(Ms[p], g.R[p], res[p] + 3);
	}
	balance(r, A, x, Fs, Ms, F);
}

/* The derivatives of beam_element's F in the node positions, at the
 * element's state (pt: its two points from beam_element_rot), with the
 * frames fixed (beam.h).  Gamma_p = R_p^T x'_p / j_p - Gamma0 is linear in
 * the positions, kappa does not see them; so d res_p = C (d Gamma_p, 0),
 * d(Fs, Ms)_p = R_p d res_p, and the moments' arms move with x_p = sum
 * N_i r_i and with the node.  Exact (no difference step), for mu = 0
 * (with damping the strain rates, themselves differences, also move with
 * the positions: ra_beam.c then differences). */
void beam_element_dr(const struct beam *bm, int e, const double *const r[3],
		     const double *const A[3], const struct beam_pt pt[2], double dF[9][18])
{
	double N[2][3], dN[2][3], Fs[2][3];
	for (int p = 0; p < 2; p++) {
		shape(xi_of(p), N[p], dN[p]);
		m3_mulv(Fs[p], pt[p].R, pt[p].res);
	}
	for (int b = 0; b < 3; b++)
		for (int k = 0; k < 3; k++) {
			double *d = dF[3 * b + k], dFs[2][3], dMs[2][3], dx[2][3], ek[3] = { 0, 0, 0 };
			ek[k] = 1.0;
			for (int p = 0; p < 2; p++) {
				const double *R = pt[p].R;
				double dg[3], dres[6];
				/* d Gamma = R^T e_k dN_b / j: row k of R */
				for (int c = 0; c < 3; c++)
					dg[c] = R[3 * k + c] * dN[p][b] / bm->ref[BEAM_REF * e + 7 * p];
				for (int i = 0; i < 6; i++)
					dres[i] = bm->C[6 * i] * dg[0] + bm->C[6 * i + 1] * dg[1] +
						  bm->C[6 * i + 2] * dg[2];
				m3_mulv(dFs[p], R, dres);
				m3_mulv(dMs[p], R, dres + 3);
				v3_scale(dx[p], N[p][b], ek);
			}
			/* the nodes' moves: node b's by e_k, the others' none */
			const double zero[3] = { 0, 0, 0 };
			const double *dr[3] = { b == 0 ? ek : zero, b == 1 ? ek : zero, b == 2 ? ek : zero };
			double m[3][3];
			balance_sums(dFs, dMs, d, m);
			/* the moments of beam_element_rot, (x0 - r0) x Fs0, (x1 - r1) x
			 * Fs1 + (r1 - x0) x Fs0, (r2 - x1) x Fs1, by the product rule:
			 * the arms' moves times the forces, the arms times dFs */
			moment_add(m[0], dx[0], dr[0], Fs[0]);
			moment_add(m[0], pt[0].x, r[0], dFs[0]);
			moment_add(m[1], dx[1], dr[1], Fs[1]);
			moment_add(m[1], pt[1].x, r[1], dFs[1]);
			moment_add(m[1], dr[1], dx[0], Fs[0]);
			moment_add(m[1], r[1], pt[0].x, dFs[0]);
			moment_add(m[2], dr[2], dx[1], Fs[1]);
			moment_add(m[2], r[2], pt[1].x, dFs[1]);
			for (int i = 0; i < 3; i++)
				m3_tmulv(d + 6 * i + 3, A[i], m[i]);
		}
}

/* D = d(Jr(ps) v)/d ps in closed form: with Jr = I - b ps~ + c ps~^2
 * (so3.c; b = (1 - cos t)/t^2, c = (t - sin t)/t^3, t = |ps|),
 *   D = (c1 ps x (ps x v) - b1 ps x v) ps^T + b v~
 *       + c ((ps . v) I + ps v^T - 2 v ps^T),
 * b1 = b'/t, c1 = c'/t (their Taylor series below t = 0.02, where the
 * closed forms cancel; truncation below 1e-13). */
static void jr_dv(double D[9], const double ps[3], const double v[3])
{
	double t2 = v3_dot(ps, ps), b, c, b1, c1;
	if (t2 < 4e-4) {
		b = 0.5 - t2 / 24.0 + t2 * t2 / 720.0;
		c = 1.0 / 6.0 - t2 / 120.0 + t2 * t2 / 5040.0;
		b1 = -1.0 / 12.0 + t2 / 180.0 - t2 * t2 / 6720.0;
		c1 = -1.0 / 60.0 + t2 / 1260.0 - t2 * t2 / 60480.0;
	} else {
		double t = sqrt(t2), sn = sin(t), cs = cos(t);
		b = (1.0 - cs) / t2;
		c = (t - sn) / (t2 * t);
		b1 = (t * sn - 2.0 * (1.0 - cs)) / (t2 * t2);
		c1 = ((1.0 - cs) * t - 3.0 * (t - sn)) / (t2 * t2 * t);
	}
	double pv[3], ppv[3], u[3], pd = v3_dot(ps, v);
	v3_cross(pv, ps, v);
	v3_cross(ppv, ps, pv);
	for (int i = 0; i < 3; i++)
		u[i] = c1 * ppv[i] - b1 * pv[i];
	for (int i = 0; i < 3; i++)
		for (int j = 0; j < 3; j++)
			D[3 * i + j] = u[i] * ps[j] + c * (ps[i] * v[j] - 2.0 * v[i] * ps[j]) +
				       (i == j ? c * pd : 0.0);
	/* + b v~ */
	D[1] -= b * v[2];
	D[2] += b * v[1];
	D[3] += b * v[2];
	D[5] -= b * v[0];
	D[6] -= b * v[1];
	D[7] += b * v[0];
}

/* The derivatives of beam_element's F in the node rotations (beam.h).
 * Node b turned by d th in its own frame (A_b exp(d th~), as ra_beam.c's
 * differences did) moves the logarithms psi_0 = log(A_1^T A_0), psi_1 =
 * log(A_1^T A_2): node 0 or 2 by d psi = Jr(psi)^-1 d th (a right
 * perturbation), node 1 both by d psi = -Jl(psi)^-1 d th = -Jr(psi)^-T
 * d th (a left one).  At point p, ps = N_0 psi_0 + N_2 psi_1, pd = dN_0
 * psi_0 + dN_2 psi_1, R = A_1 exp(ps~), kd = Jr(ps) pd: R turns by d phi
 * = Jr(ps) d ps (+ exp(ps~)^T d th for node 1), kd moves by Jr(ps) d pd +
 * D d ps (jr_dv); Gamma = R^T x' / j - Gamma0 by (R^T x') x d phi / j,
 * kappa by d kd / j; the section forces R res by R (d phi x res + C d eps);
 * the arms do not move.  Node b's moment, A_b^T m_b, turns with its frame:
 * + (A_b^T m_b) x d th, which is F0's.  Exact, for mu = 0 (with damping
 * the strain rates move too: ra_beam.c differences). */
void beam_element_dth(const struct beam *bm, int e, const double *const r[3],
		      const double *const A[3], const struct beam_rot *g,
		      const struct beam_pt pt[2], const double *F0, double dF[9][18])
{
	double Ji[2][9], Jr[2][9], Ex[2][9], D[2][9], gm[2][3], N[2][3], dN[2][3], x[2][3];
	v3_copy(x[0], pt[0].x);
	v3_copy(x[1], pt[1].x);
	so3_jrinv(Ji[0], g->psi[0]);
	so3_jrinv(Ji[1], g->psi[1]);
	for (int p = 0; p < 2; p++) {
		const double *ref = bm->ref + BEAM_REF * e + 7 * p;
		double ps[3], pd[3];
		shape(xi_of(p), N[p], dN[p]);
		for (int c = 0; c < 3; c++) {
			ps[c] = N[p][0] * g->psi[0][c] + N[p][2] * g->psi[1][c];
			pd[c] = dN[p][0] * g->psi[0][c] + dN[p][2] * g->psi[1][c];
			gm[p][c] = pt[p].eps[c] + ref[1 + c];	/* R^T x' / j */
		}
		so3_exp_jr(Ex[p], Jr[p], ps);
		jr_dv(D[p], ps, pd);
	}
	for (int b = 0; b < 3; b++)
		for (int k = 0; k < 3; k++) {
			double *d = dF[3 * b + k], dpsi[2][3] = { { 0 } }, dFs[2][3], dMs[2][3];
			for (int c = 0; c < 3; c++) {
				if (b == 0)
					dpsi[0][c] = Ji[0][3 * c + k];
				else if (b == 2)
					dpsi[1][c] = Ji[1][3 * c + k];
				else {
					dpsi[0][c] = -Ji[0][3 * k + c];
					dpsi[1][c] = -Ji[1][3 * k + c];
				}
			}
			for (int p = 0; p < 2; p++) {
				const double *ref = bm->ref + BEAM_REF * e + 7 * p;
				double dps[3], dpd[3], dphi[3], t1[3], t2[3], deps[6], dres[6];
				for (int c = 0; c < 3; c++) {
					dps[c] = N[p][0] * dpsi[0][c] + N[p][2] * dpsi[1][c];
					dpd[c] = dN[p][0] * dpsi[0][c] + dN[p][2] * dpsi[1][c];
				}
				m3_mulv(dphi, Jr[p], dps);
				if (b == 1)	/* + exp(ps~)^T e_k: row k of Ex */
					for (int c = 0; c < 3; c++)
						dphi[c] += Ex[p][3 * k + c];
				m3_mulv(t1, Jr[p], dpd);
				m3_mulv(t2, D[p], dps);
				v3_cross(deps, gm[p], dphi);
				for (int c = 0; c < 3; c++)
					deps[3 + c] = (t1[c] + t2[c]) / ref[0];
				for (int i = 0; i < 6; i++) {
					const double *Ci = bm->C + 6 * i;
					double sum = 0.0;
					if (bm->diag)
						sum = Ci[i] * deps[i];
					else
						for (int q = 0; q < 6; q++)
							sum += Ci[q] * deps[q];
					dres[i] = sum;
				}
				/* d(R res) = R (d phi x res + d res) */
				v3_cross(t1, dphi, pt[p].res);
				v3_cross(t2, dphi, pt[p].res + 3);
				v3_add(t1, t1, dres);
				v3_add(t2, t2, dres + 3);
				m3_mulv(dFs[p], pt[p].R, t1);
				m3_mulv(dMs[p], pt[p].R, t2);
			}
			balance(r, A, x, dFs, dMs, d);
			/* node b's frame turns: (A_b^T m_b) x e_k */
			const double *tb = F0 + 6 * b + 3;
			double ek[3] = { 0, 0, 0 }, tk[3];
			ek[k] = 1.0;
			v3_cross(tk, tb, ek);
			v3_add(d + 6 * b + 3, d + 6 * b + 3, tk);
		}
}

int beam_reference(const struct model *m, struct beam *bm, struct diag *d)
{
	free(bm->ref);
	bm->ref = xcalloc((size_t)BEAM_REF * bm->nel + 1, sizeof(double));
	bm->diag = 1;
	for (int i = 0; i < 36; i++)
		if (i % 7 && bm->C[i] != 0.0)
			bm->diag = 0;
	for (int e = 0; e < bm->nel; e++) {
		const struct body *b = m->bodies + bm->node0 + 2 * e;
		const double *r[3] = { b[0].r0, b[1].r0, b[2].r0 };
		const double *A[3] = { b[0].A0, b[1].A0, b[2].A0 };
		struct beam_rot g;
		beam_rot_of(A, &g);
		for (int p = 0; p < 2; p++) {
			double *ref = bm->ref + BEAM_REF * e + 7 * p, N[3], dN[3], xd[3], gm[3];
			shape(xi_of(p), N, dN);
			for (int c = 0; c < 3; c++)
				xd[c] = dN[0] * r[0][c] + dN[1] * r[1][c] + dN[2] * r[2][c];
			double j = v3_norm(xd);
			if (!(j > 0.0)) {
				diag_error(d, &bm->pos, "beam '%s': element %d has zero length",
					   bm->name, e + 1);
				return -1;
			}
			m3_tmulv(gm, g.R[p], xd);
			ref[0] = j;
			for (int c = 0; c < 3; c++) {
				ref[1 + c] = gm[c] / j;
				ref[4 + c] = g.kd[p][c] / j;
			}
		}
	}
	return 0;
}
