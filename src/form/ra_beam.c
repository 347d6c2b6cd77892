/* ra_beam.c - beam elements on the bodies of ra (ra.h, model/beam.h). */
#include "ra.h"
#include "../model/beam.h"
#include "../util/vec.h"
#include "../util/xalloc.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

void ra_beam_init(struct ra *s)
{
	const struct model *m = s->m;
	int n = 0;
	for (int i = 0; i < m->nbeams; i++)
		n += 9 * m->beams[i].nel;
	s->npair = n;
	if (!n)
		return;
	s->pairs = xmalloc(2 * (size_t)n * sizeof(int));
	int q = 0;
	for (int i = 0; i < m->nbeams; i++)
		for (int e = 0; e < m->beams[i].nel; e++)
			for (int a = 0; a < 3; a++)
				for (int b = 0; b < 3; b++, q++) {
					s->pairs[2 * q] = m->beams[i].node0 + 2 * e + a;
					s->pairs[2 * q + 1] = m->beams[i].node0 + 2 * e + b;
				}
}

/* the node states of element e */
struct enodes {
	const double *r[3], *A[3], *v[3], *w[3];
	int b0;
};

static void enodes(const struct beam *bm, int e, const struct ra_state *x, struct enodes *n)
{
	n->b0 = bm->node0 + 2 * e;
	for (int i = 0; i < 3; i++) {
		int b = n->b0 + i;
		n->r[i] = x->r + 3 * b;
		n->A[i] = x->A + 9 * b;
		n->v[i] = x->v + 3 * b;
		n->w[i] = x->w + 3 * b;
	}
}

void ra_beam_forces(const struct ra *s, const struct ra_state *x, double *F)
{
	const struct model *m = s->m;
	for (int i = 0; i < m->nbeams; i++) {
		const struct beam *bm = &m->beams[i];
		for (int e = 0; e < bm->nel; e++) {
			struct enodes n;
			double Fe[18];
			enodes(bm, e, x, &n);
			beam_element(bm, e, n.r, n.A, n.v, n.w, Fe, NULL);
			for (int k = 0; k < 18; k++)
				F[6 * n.b0 + k] += Fe[k];
		}
	}
}

double ra_beam_energy(const struct ra *s, const struct ra_state *x)
{
	const struct model *m = s->m;
	double U = 0.0;
	for (int i = 0; i < m->nbeams; i++) {
		const struct beam *bm = &m->beams[i];
		for (int e = 0; e < bm->nel; e++) {
			struct enodes n;
			enodes(bm, e, x, &n);
			U += beam_element(bm, e, n.r, n.A, n.v, n.w, NULL, NULL);
		}
	}
	return U;
}

/* -sum_p j_p epsd . (mu C epsd): what the dampers take out */
double ra_beam_ncpower(const struct ra *s, const struct ra_state *x)
{
	const struct model *m = s->m;
	double P = 0.0;
	for (int i = 0; i < m->nbeams; i++) {
		const struct beam *bm = &m->beams[i];
		if (!(bm->mu > 0.0))
			continue;
		for (int e = 0; e < bm->nel; e++) {
			struct enodes n;
			struct beam_pt pt[2];
			enodes(bm, e, x, &n);
			beam_element(bm, e, n.r, n.A, n.v, n.w, NULL, pt);
			for (int p = 0; p < 2; p++)
				for (int a = 0; a < 6; a++)
					for (int b = 0; b < 6; b++)
						P -= bm->ref[BEAM_REF * e + 7 * p] * bm->mu *
						     pt[p].epsd[a] * bm->C[6 * a + b] * pt[p].epsd[b];
		}
	}
	return P;
}

void ra_beam_out(const struct ra *s, const struct ra_state *x, const struct beam *bm, int e,
		 struct beam_pt *pt)
{
	struct enodes n;
	(void)s;
	enodes(bm, e, x, &n);
	beam_element(bm, e, n.r, n.A, n.v, n.w, NULL, pt);
}

/* Differences of the element's 18 forces in node b's coordinate k (0..2
 * r, 3..5 theta, 6..8 v, 9..11 w): column of dF into dF (for positions
 * only with damping: without, ra_beam_blocks takes beam_element_dr's
 * exact columns, which these differences matched to 3e-8 relative on the
 * lateral buckling beam).  Positions and
 * rotations forward from F0 (the forces at the state), step
 * sqrt(DBL_EPSILON) max(1, |value|) (rotations: sqrt(DBL_EPSILON) rad):
 * error O(step), some 1e-8 relative, ample for Newton's matrix, at half
 * the evaluations of central differences (which were most of the time of
 * a beam model).  Velocities central, step cbrt(DBL_EPSILON) max(1,
 * |value|): the strain rates are themselves a difference (beam.c), whose
 * round-off a forward step of 1e-8 would magnify past use. */
static void fd_column(const struct beam *bm, int e, struct enodes *n, int b, int k,
		      const double *F0, const struct beam_rot *g0, double *dF)
{
	int central = k >= 6;
	double rr[3], AA[9], vv[3], ww[3], Fp[18], Fm[18];
	const double *r0 = n->r[b], *A0 = n->A[b], *v0 = n->v[b], *w0 = n->w[b];
	double *p = k < 3 ? rr + k : k >= 6 && k < 9 ? vv + k - 6 : k >= 9 ? ww + k - 9 : NULL;
	double save = k < 3 ? r0[k] : k >= 6 && k < 9 ? v0[k - 6] : k >= 9 ? w0[k - 9] : 0.0;
	double h = (central ? cbrt(DBL_EPSILON) : sqrt(DBL_EPSILON)) * fmax(1.0, fabs(save));
	v3_copy(rr, r0);
	v3_copy(vv, v0);
	v3_copy(ww, w0);
	memcpy(AA, A0, sizeof AA);
	n->r[b] = rr;
	n->A[b] = AA;
	n->v[b] = vv;
	n->w[b] = ww;
	for (int sg = 0; sg < 1 + central; sg++) {
		double d = sg ? -h : h;
		if (p) {
			*p = save + d;
		} else {
			double th[3] = { 0, 0, 0 }, Q[9];
			th[k - 3] = d;
			so3_exp(Q, th);
			m3_mul(AA, A0, Q);
		}
		if (k < 3 || k >= 6) {	/* the frames unchanged */
			beam_element_rot(bm, e, n->r, n->A, n->v, n->w, g0, sg ? Fm : Fp, NULL);
		} else if (b == 1) {
			beam_element(bm, e, n->r, n->A, n->v, n->w, Fp, NULL);
		} else {	/* one of the two logarithms moves (beam.h) */
			struct beam_rot g;
			double Q[9];
			memcpy(g.psi, g0->psi, sizeof g.psi);
			m3_tmul(Q, n->A[1], AA);
			so3_log(g.psi[b / 2], Q);
			beam_rot_psi(n->A[1], &g);
			beam_element_rot(bm, e, n->r, n->A, n->v, n->w, &g, Fp, NULL);
		}
	}
	n->r[b] = r0;
	n->A[b] = A0;
	n->v[b] = v0;
	n->w[b] = w0;
	for (int i = 0; i < 18; i++)
		dF[i] = central ? (Fp[i] - Fm[i]) / (2.0 * h) : (Fp[i] - F0[i]) / h;
}

void ra_beam_blocks(const struct ra *s, const struct ra_state *x, double cq, double cv,
		    double *Wc)
{
	const struct model *m = s->m;
	int q = 0;
	for (int i = 0; i < m->nbeams; i++) {
		const struct beam *bm = &m->beams[i];
		int nk = bm->mu > 0.0 ? 12 : 6;
		for (int e = 0; e < bm->nel; e++, q += 9) {
			struct enodes n;
			enodes(bm, e, x, &n);
			double *W = Wc + 36 * (size_t)q, F0[18], dr[9][18], dth[9][18];
			struct beam_rot g0;
			struct beam_pt pt[2];
			int exact = !(bm->mu > 0.0);	/* dF/dr without differences */
			memset(W, 0, 9 * 36 * sizeof(double));
			beam_rot_of(n.A, &g0);
			beam_element_rot(bm, e, n.r, n.A, n.v, n.w, &g0, F0, pt);
			if (exact) {
				beam_element_dr(bm, e, n.r, n.A, pt, dr);
				beam_element_dth(bm, e, n.r, n.A, &g0, pt, F0, dth);
			}
			for (int b = 0; b < 3; b++)
				for (int k = 0; k < nk; k++) {
					double dF[18], c = k < 6 ? cq : cv;
					if (exact && k < 3)
						memcpy(dF, dr[3 * b + k], sizeof dF);
					else if (exact)
						memcpy(dF, dth[3 * b + k - 3], sizeof dF);
					else
						fd_column(bm, e, &n, b, k, F0, &g0, dF);
					for (int a = 0; a < 3; a++)
						for (int row = 0; row < 6; row++)
							W[36 * (3 * a + b) + 6 * row + k % 6] -=
								c * dF[6 * a + row];
				}
		}
	}
}
