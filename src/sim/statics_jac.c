/* statics_jac.c - the load factor and the tangent stiffness of the
 * static equations (statics.h). */
#include "statics.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../form/ra_force_impl.h"
#include "../model/beam.h"
#include "../util/vec.h"
#include "../util/xalloc.h"

/* Applied loads: gravity and the force and torque elements (springs,
 * dampers, motors, bushings, tires and beams are the structure). */
static int applied(const struct force *f)
{
	return (elem_props(f) & ELEM_LOAD) != 0;
}

int statics_has_loads(const struct model *m)
{
	if (v3_norm(m->gravity) > 0)
		return 1;
	for (int i = 0; i < m->nforces; i++)
		if (applied(&m->forces[i]))
			return 1;
	return 0;
}

void statics_residual_lf(struct ra *s, const struct ra_state *x, double t, const double *lam,
			 double lf, double *G)
{
	const struct model *m = s->m;
	statics_residual(s, x, t, lam, G);
	if (lf == 1.0)
		return;
	double c = 1.0 - lf;	/* G = structure + lf loads - Phi_q^T lambda */
	for (int b = 0; b < s->nb; b++)
		for (int k = 0; k < 3; k++)
			G[6 * b + k] -= c * s->mass[b] * m->gravity[k];
	for (int i = 0; i < m->nforces; i++) {
		double out[12];
		int b[2];
		if (!applied(&m->forces[i]))
			continue;
		ra_elem_eval(s, x, t, lam, i, out, NULL);
		ra_elem_bodies(m, &m->forces[i], b);
		for (int e = 0; e < 2; e++)
			if (b[e] >= 0)
				for (int k = 0; k < 6; k++)
					G[6 * b[e] + k] -= c * out[6 * e + k];
	}
}

/* x moved by d along coordinate j (r += d; A <- A exp(d e~), body frame) */
static void move(struct ra_state *x, const struct ra_state *base, int j, double d)
{
	int b = j / 6, c = j % 6;
	if (c < 3) {
		x->r[3 * b + c] = base->r[3 * b + c] + d;
	} else {
		double th[3] = { 0, 0, 0 }, R[9];
		th[c - 3] = d;
		so3_exp(R, th);
		m3_mul(x->A + 9 * b, base->A + 9 * b, R);
	}
}

/* The beams' internal forces alone (6 per body). */
static void beam_part(const struct ra *s, const struct ra_state *x, double *F)
{
	memset(F, 0, 6 * (size_t)s->nb * sizeof(double));
	ra_beam_forces(s, x, F);
}

/* D = dG/dq: the beams' element stiffness (ra_beam_blocks: exact in the
 * node positions, forward differences of step sqrt(eps) in the
 * rotations) assembled, plus central differences of the rest (applied
 * loads, springs, motors, bushings, the constraints' geometric stiffness
 * Phi_q^T lambda) with a step scaled to each variable: cbrt(eps) times
 * max(|r_j|, l) for a translation, l the shortest element or L /
 * 100 without beams, and cbrt(eps) rad for a rotation: truncation
 * O(h^2) ~ 1e-11 relative, round-off eps |G| / h.  Differences of the
 * whole residual with a step of 1e-3 of the model's length, as the
 * linearization takes them, are off by some EA (h / l)^2 in a beam's
 * stiff directions: there they swamp its bending stiffness and Newton's
 * steps no longer converge quadratically. */
static void tangent(struct ra *s, const struct ra_state *x, double t, const double *lam,
		    double lf, int beams, double *D)
{
	const struct model *m = s->m;
	int n = s->ng;
	double l = statics_length(m) / 100;
	for (int i = 0; i < m->nbeams; i++)
		for (int e = 0; e < m->beams[i].nel; e++)
			l = fmin(l, 2 * m->beams[i].ref[BEAM_REF * e]);
	double *Gp = xcalloc((size_t)n, sizeof(double)), *Gm = xcalloc((size_t)n, sizeof(double));
	double *Bp = xcalloc((size_t)n, sizeof(double)), *Bm = xcalloc((size_t)n, sizeof(double));
	struct ra_state xp;
	ra_state_init(s, &xp);
	ra_state_copy(s, &xp, x);
	const double eps = cbrt(DBL_EPSILON);
	for (int j = 0; j < n; j++) {
		double h = j % 6 < 3 ? eps * fmax(fabs(x->r[3 * (j / 6) + j % 6]), l) : eps;
		double *col = D + (size_t)n * (size_t)j;
		move(&xp, x, j, h);
		statics_residual_lf(s, &xp, t, lam, lf, Gp);
		move(&xp, x, j, -h);
		statics_residual_lf(s, &xp, t, lam, lf, Gm);
		if (m->nbeams) {
			move(&xp, x, j, h);
			beam_part(s, &xp, Bp);
			move(&xp, x, j, -h);
			beam_part(s, &xp, Bm);
		}
		move(&xp, x, j, 0);
		for (int i = 0; i < n; i++)
			col[i] = (Gp[i] - Gm[i] - (m->nbeams ? Bp[i] - Bm[i] : 0)) / (2 * h);
	}
	if (s->npair && beams) {
		double *W = xcalloc(36 * (size_t)s->npair, sizeof(double));
		ra_beam_blocks(s, x, 1.0, 0.0, W);	/* W = -dF/dz per node pair */
		for (int q = 0; q < s->npair; q++) {
			int a = s->pairs[2 * q], b = s->pairs[2 * q + 1];
			for (int r = 0; r < 6; r++)
				for (int c = 0; c < 6; c++)
					D[(6 * a + r) + (size_t)n * (6 * b + c)] -= W[36 * q + 6 * r + c];
		}
		free(W);
	}
	ra_eval(s, x, t, PRIM_PHI | PRIM_JAC);
	ra_state_release(&xp);
	free(Gp);
	free(Gm);
	free(Bp);
	free(Bm);
}

void statics_tangent(struct ra *s, const struct ra_state *x, double t, const double *lam,
		     double lf, double *D)
{
	tangent(s, x, t, lam, lf, 1, D);
}

void statics_tangent_rest(struct ra *s, const struct ra_state *x, double t, const double *lam,
			  double lf, double *D)
{
	tangent(s, x, t, lam, lf, 0, D);
}
