/* newmark.c - the classical Newmark family on the index-3 DAE (seed 002
 * §2, eqs. 3, 7, 10): `newmark`, and the growth detector of newmark.h.
 *
 * The scheme of 002 §2 is Newmark's update of positions and velocities
 * from the accelerations, q_{n+1} = q_n + h v_n + h^2 ((1/2 - beta) a_n +
 * beta a_{n+1}), v_{n+1} = v_n + h ((1 - gamma) a_n + gamma a_{n+1}), with
 * the equations of motion at t_{n+1} and the constraints imposed on the
 * positions, Phi(q_{n+1}) = 0, solved by Newton for a_{n+1} and lambda.
 * That is the dae3 engine's Newmark step (dae3_step.c, step_newmark) with
 * alpha_m = alpha_f = alpha_hht = 0, rotations in the chart of the last
 * accepted orientation; only beta and gamma are set here.  beta = 0 is
 * refused by the deck (build.c): q_{n+1} would not depend on the step's
 * unknowns. */
#include "newmark.h"
#include "dae3_impl.h"
#include "../util/ckpt.h"
#include "../util/vec.h"
#include "../util/xalloc.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* newmark: the dae3 engine with Newmark's coefficients and the growth
 * detector */
static int newmark_init(struct integ *it, const struct sim_options *o, struct diag *d)
{
	if (dae3_init(it, o, d))
		return -1;
	struct dae3 *E = dae3_eng(it);
	if (E->co.kind != COEF_NEWMARK || !(o->nm_beta > 0)) {
		diag_error(d, NULL, "integrator 'newmark' needs integrator.beta > 0 (got %g): the "
			   "index-3 form cannot impose the constraints with beta = 0", o->nm_beta);
		return -1;
	}
	E->co.beta = o->nm_beta;
	E->co.gam = o->nm_gamma;
	E->co.alpha_m = E->co.alpha_f = E->co.alpha_hht = 0.0;
	E->growth = nm_growth_new(it->sys);
	return 0;
}

static int newmark_step(struct integ *it, double h, struct ra_state *x, struct ra_state *y)
{
	return nm_growth_step(dae3_eng(it)->growth, it->sys, dae3_step(it, h, x, y), y);
}

static int newmark_fail(const struct integ *it, int st, double t, long step, double h,
			char *msg, size_t n)
{
	return nm_growth_message(dae3_eng(it)->growth, it->sys->m, st, t, step, h, msg, n);
}

const struct integ_ops newmark_ops = {
	.init = newmark_init,
	.step = newmark_step,
	.fix_redundant = dae3_fix_redundant,
	.singular_tol = dae3_singular_tol,
	.fail = newmark_fail,
	.iter_unit = "Newton it",
	.beams = 1,
	.ckpt = dae3_ckpt,
	.free = dae3_free,
};

void nm_growth_ckpt(struct nm_growth *gr, const struct ra *s, struct ckpt *c)
{
	ckpt_d(c, gr->g, s->ng);
	ckpt_d(c, gr->z, s->ng);
	ckpt_d(c, &gr->zn, 1);
	ckpt_d(c, &gr->gmax, 1);
	ckpt_d(c, &gr->first, 1);
	ckpt_d(c, &gr->zmax, 1);
	ckpt_d(c, &gr->before, 1);
	ckpt_i(c, &gr->have_g, 1);
	ckpt_i(c, &gr->have_z, 1);
	ckpt_i(c, &gr->run, 1);
	ckpt_i(c, &gr->fast, 1);
}

int nm_growth_step(struct nm_growth *gr, const struct ra *s, int st, const struct ra_state *y)
{
	if ((st && st != INTEG_STEP_TOO_SMALL && st != INTEG_INTERRUPTED && nm_growth_suspect(gr, s)) ||
	    (!st && nm_growth_check(gr, s, y)))
		return INTEG_UNSTABLE;
	return st;
}

double nm_hmax(double omega, double beta, double gamma)
{
	double d = 0.5 * gamma - beta;
	return d > 0 && omega > 0 ? 1.0 / omega / sqrt(d) : INFINITY;
}

int nm_growth_message(const struct nm_growth *gr, const struct model *m, int st, double t,
		      long step, double h, char *msg, size_t n)
{
	if (st != INTEG_UNSTABLE)
		return -1;
	snprintf(msg, n, "unstable: growth detected at t = %.9g (step %ld, h = %g) in body '%s': "
		 "the change of the accelerations reversed its direction and grew at each "
		 "of the last %d steps, %.3g-fold in all; reduce integrator.step (below the "
		 "bound of eq. 11 of doi:10.1007/s11012-021-01433-0 with tangent_newmark) or, with newmark, take "
		 "beta >= gamma/2 (beta < gamma/2 is unstable at any step on a constrained "
		 "model); gamma = 1/2 does not damp the multipliers, whose oscillation can "
		 "grow at any step: gamma > 1/2, hht or genalpha damp them", t, step, h, gr && gr->body >= 0 ? m->bodies[gr->body].name : "?",
		 gr ? gr->trip_run : 0, gr ? gr->trip_growth : 0.0);
	return 0;
}

struct nm_growth *nm_growth_new(const struct ra *s)
{
	struct nm_growth *gr = xcalloc(1, sizeof(*gr));
	gr->g = xcalloc((size_t)s->ng + 1, sizeof(double));
	gr->z = xcalloc((size_t)s->ng + 1, sizeof(double));
	gr->gnew = xcalloc((size_t)s->ng + 1, sizeof(double));
	gr->znew = xcalloc((size_t)s->ng + 1, sizeof(double));
	gr->share = xcalloc((size_t)s->nb + 1, sizeof(double));
	gr->body = -1;
	return gr;
}

void nm_growth_free(struct nm_growth **pgr)
{
	struct nm_growth *gr = *pgr;
	if (!gr)
		return;
	free(gr->g);
	free(gr->z);
	free(gr->gnew);
	free(gr->znew);
	free(gr->share);
	free(gr);
	*pgr = NULL;
}

/* a . M b over the generalized vectors (6 per body), and per body in out */
static double mdot(const struct ra *s, const double *a, const double *b, double *out)
{
	double sum = 0.0;
	for (int k = 0; k < s->nb; k++) {
		double Jb[3];
		m3_mulv(Jb, ra_inertia(s, k), b + 6 * k + 3);
		double v = s->mass[k] * v3_dot(a + 6 * k, b + 6 * k) + v3_dot(a + 6 * k + 3, Jb);
		if (out)
			out[k] = v;
		sum += v;
	}
	return sum;
}

/* A trip: the run's length and growth (zn the last |z|_M), and the body
 * of the largest share of |z|_M */
static void trip(struct nm_growth *gr, const struct ra *s, const double *z, double zn)
{
	gr->trip_run = gr->run;
	gr->trip_growth = gr->first > 0 ? zn / gr->first : INFINITY;
	double best = -1.0;
	mdot(s, z, z, gr->share);
	for (int k = 0; k < s->nb; k++)
		if (gr->share[k] > best) {
			best = gr->share[k];
			gr->body = k;
		}
}

int nm_growth_suspect(struct nm_growth *gr, const struct ra *s)
{
	if (!gr || gr->run < 3 || !(gr->zn >= NM_GROWTH_ABOVE * gr->before))
		return 0;
	trip(gr, s, gr->z, gr->zn);
	return 1;
}

int nm_growth_check(struct nm_growth *gr, const struct ra *s, const struct ra_state *y)
{
	int ng = s->ng;
	double *gnew = gr->gnew;
	integ_acc_get(s, y, gnew);
	double gn = sqrt(fabs(mdot(s, gnew, gnew, NULL)));
	gr->gmax = fmax(gr->gmax, gn);
	int tripped = 0;
	if (gr->have_g) {
		double *z = gr->znew;
		for (int i = 0; i < ng; i++)
			z[i] = gnew[i] - gr->g[i];
		double zn = sqrt(fabs(mdot(s, z, z, NULL)));
		int grows = gr->have_z && zn > 1e-9 * gr->gmax &&
			    mdot(s, z, gr->z, NULL) < 0.0 && zn >= NM_GROWTH_RATIO * gr->zn;
		if (grows && gr->run == 0) {
			gr->first = gr->zn;
			gr->before = gr->zmax;
		}
		gr->run = grows ? gr->run + 1 : 0;
		gr->fast = grows && zn >= NM_GROWTH_FAST * gr->zn ? gr->fast + 1 : 0;
		gr->zmax = fmax(gr->zmax, zn);
		int above = zn >= NM_GROWTH_ABOVE * gr->before;
		int fast = gr->fast >= NM_GROWTH_FAST_STEPS && above;
		if ((gr->run >= NM_GROWTH_STEPS && above) || fast) {
			trip(gr, s, z, zn);
			tripped = 1;
		}
		gr->znew = gr->z;	/* z becomes the last change */
		gr->z = z;
		gr->zn = zn;
		gr->have_z = 1;
	}
	gr->gnew = gr->g;	/* gnew becomes the last accelerations */
	gr->g = gnew;
	gr->have_g = 1;
	return tripped;
}
