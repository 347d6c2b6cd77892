/* monitor.c - what the run loop watches in every completed state
 * (monitor.h): finite values, unwrapped joint coordinates, the sizes the
 * energy messages and the balance need. */
#include "monitor.h"
#include "sim.h"
#include "../util/vec.h"
#include "../util/xalloc.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

void monitor_init(struct monitor *mo, const struct model *m, size_t njq)
{
	size_t nj = (size_t)m->njoints + 1;
	mo->coord = xcalloc(nj, sizeof(double));
	mo->coord_raw = xcalloc(nj, sizeof(double));
	mo->turn = xcalloc(nj, sizeof(double));
	mo->wraps = xcalloc(nj, sizeof(double));
	if (njq) {
		mo->jq = xcalloc(njq, sizeof(double));
		mo->jqd = xcalloc(njq, sizeof(double));
	}
	mo->first = 1;
}

void monitor_free(struct monitor *mo)
{
	free(mo->coord);
	free(mo->coord_raw);
	free(mo->turn);
	free(mo->wraps);
	free(mo->jq);
	free(mo->jqd);
}

/* Joint coordinates of the sample at x.  A revolute's angle is unwrapped
 * from its last value, which needs it at least every half turn: between
 * samples it is taken only when |w_2 - w_1| summed over the steps since
 * (a bound on the turn) passes pi/2.  Slides need no history. */
void monitor_coords(const struct model *m, const struct ra_state *x, double h, int write,
		    struct monitor *mo)
{
	static const double I[9] = { 1, 0, 0, 0, 1, 0, 0, 0, 1 }, Z[3] = { 0, 0, 0 };
	for (int j = 0; j < m->njoints; j++) {
		const struct joint *jt = &m->joints[j];
		if (jt->type != JOINT_REVOLUTE && jt->type != JOINT_SCREW &&
		    jt->type != JOINT_TRANSLATIONAL)
			continue;
		int b0 = jt->body[0], b1 = jt->body[1];
		if (!write && !mo->first) {
			if (jt->type == JOINT_TRANSLATIONAL)
				continue;
			double dw[3];
			v3_sub(dw, b1 >= 0 ? x->w + 3 * b1 : Z, b0 >= 0 ? x->w + 3 * b0 : Z);
			mo->turn[j] += h * v3_norm(dw);
			if (mo->turn[j] < 0.5 * M_PI)
				continue;
		}
		mo->turn[j] = 0.0;
		enum driver_kind k = jt->type == JOINT_TRANSLATIONAL ? DRIVER_TRANSLATION : DRIVER_ROTATION;
		double c = joint_coordinate(jt, k, b0 >= 0 ? x->r + 3 * b0 : Z,
					    b0 >= 0 ? x->A + 9 * b0 : I,
					    b1 >= 0 ? x->r + 3 * b1 : Z,
					    b1 >= 0 ? x->A + 9 * b1 : I);
		/* the angle is c plus whole turns (counted in wraps[j]), so it
		 * does not depend on how often it was taken */
		if (!mo->first && k == DRIVER_ROTATION)
			mo->wraps[j] -= floor((c - mo->coord_raw[j] + M_PI) / (2.0 * M_PI));
		mo->coord[j] = c + 2.0 * M_PI * mo->wraps[j];
		mo->coord_raw[j] = c;
	}
}

/* What to do about a non-finite state after `step` steps. */
const char *monitor_blowup_remedy(long step)
{
	return step ? "the solution blew up; reduce integrator.step or use a dissipative "
		      "scheme (fi, or lms2 .. esdirk436l2sa2 with rho_inf < 1)"
		    : "the initial state is out of range of double precision; check the "
		      "initial values of the deck";
}

static int finite_all(const double *x, int n)
{
	for (int i = 0; i < n; i++)
		if (!isfinite(x[i]))
			return 0;
	return 1;
}

/* The first body (or constraint row) of x with a non-finite value, named
 * in msg; 0 when x is finite.  A non-finite state must not be written and
 * called a success. */
int monitor_finite(const struct ra *s, const struct ra_state *x, long step, double h, char *msg,
		   size_t n)
{
	const struct model *m = s->m;
	/* every step: first one pass over the arrays, x - x being 0 for a
	 * finite x and NaN otherwise (a sum of zeros stays 0); the search
	 * for the body or row only when it is not */
	int n3 = 3 * s->nb;
	double z = 0.0;
	for (int i = 0; i < n3; i++)
		z += (x->r[i] - x->r[i]) + (x->v[i] - x->v[i]) + (x->w[i] - x->w[i]) +
		     (x->a[i] - x->a[i]) + (x->wd[i] - x->wd[i]);
	for (int i = 0; i < 3 * n3; i++)
		z += x->A[i] - x->A[i];
	for (int k = 0; k < s->nc; k++)
		z += x->lam[k] - x->lam[k];
	if (z == 0.0)
		return 0;
	for (int b = 0; b < s->nb; b++) {
		const char *what = !finite_all(x->r + 3 * b, 3) ? "position" :
				   !finite_all(x->A + 9 * b, 9) ? "orientation" :
				   !finite_all(x->v + 3 * b, 3) ? "velocity" :
				   !finite_all(x->w + 3 * b, 3) ? "angular velocity" :
				   !finite_all(x->a + 3 * b, 3) ? "acceleration" :
				   !finite_all(x->wd + 3 * b, 3) ? "angular acceleration" : NULL;
		if (what) {
			snprintf(msg, n,
				 "non-finite %s of body '%s' at t = %.9g (step %ld, h = %g): %s",
				 what, m->bodies[b].name, x->t, step, h, monitor_blowup_remedy(step));
			return -1;
		}
	}
	for (int k = 0; k < s->nc; k++)
		if (!isfinite(x->lam[k])) {
			char row[256];
			model_row_name(m, k, row, sizeof row);
			snprintf(msg, n,
				 "non-finite Lagrange multiplier of %s at t = %.9g (step %ld, h = %g): "
				 "%s", row, x->t, step, h, monitor_blowup_remedy(step));
			return -1;
		}
	return 0;
}

/* The body of largest kinetic energy, for a message about the energy. */
int monitor_fastest_body(const struct ra *s, const struct ra_state *x)
{
	int best = 0;
	double e = -1.0;
	for (int b = 0; b < s->nb; b++) {
		const double *J = ra_inertia(s, b), *w = x->w + 3 * b, *v = x->v + 3 * b;
		double Jw[3];
		m3_mulv(Jw, J, w);
		double k = s->mass[b] * v3_dot(v, v) + v3_dot(w, Jw);
		if (!(k <= e)) {	/* a NaN or inf wins */
			e = k;
			best = b;
		}
	}
	return best;
}

/* sum m |g| |r| over the bodies: the size of the gravity terms of V */
double monitor_gravity_size(const struct ra *s, const struct ra_state *x)
{
	double G = 0.0, g = v3_norm(s->m->gravity);
	for (int b = 0; b < s->nb; b++)
		G += s->mass[b] * g * v3_norm(x->r + 3 * b);
	return G;
}
