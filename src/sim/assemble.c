/* assemble.c - make the deck's initial state consistent.
 *
 * Positions: Newton on Phi(q) = 0 with the minimum mass-weighted change,
 *   [M P^T; P 0] [dq; mu] = [0; -Phi],  r += dr, A <- A exp(dtheta~).
 * Velocities: the same matrix projects (v, w) onto Phi_q v = nu.
 * Both use the integrator's saddle-point solver.
 */
#include "assemble.h"
#include "../util/vec.h"
#include "../util/xalloc.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static double maxabs(const double *v, int n, int *arg)
{
	double m = 0.0;
	*arg = -1;
	for (int i = 0; i < n; i++)
		if (fabs(v[i]) > m) {
			m = fabs(v[i]);
			*arg = i;
		}
	return m;
}

/* Largest per-body change |d| (translation part + rotation part * 0 is
 * not mixed: report translation in m, rotation in rad, the larger). */
static void note_change(const struct ra *s, const double *tot, double *best, char *name,
			size_t n)
{
	for (int b = 0; b < s->nb; b++) {
		double c = fmax(v3_norm(tot + 6 * b), v3_norm(tot + 6 * b + 3));
		if (c > *best) {
			*best = c;
			snprintf(name, n, "%s", s->m->bodies[b].name);
		}
	}
}

int assemble(struct ra *s, struct integ *it, struct ra_state *x, double tol,
	     struct sim_result *r, char *msg, size_t n)
{
	int ng = s->ng, nc = s->nc, arg;
	if (nc == 0)
		return 0;
	double *tot = xcalloc((size_t)ng + 1, sizeof(double));
	double *b = xcalloc((size_t)nc + 1, sizeof(double));
	double *mu = xcalloc((size_t)nc + 1, sizeof(double));
	double *zero = xcalloc((size_t)ng + 1, sizeof(double));
	int rc = -1, iter;
	integ_mass_blocks(it);
	for (iter = 0; iter < 50; iter++) {
		ra_eval(s, x, x->t, PRIM_PHI | PRIM_JAC);
		if (maxabs(s->phi, nc, &arg) < tol)
			break;
		if (kkt_factor(it->kkt, it->W, s->jac)) {
			char what[256];
			sim_row_name(s->m, kkt_bad_row(it->kkt), what, sizeof what);
			snprintf(msg, n, "cannot assemble the initial configuration: %s near %s",
				 kkt_error(it->kkt), what);
			goto out;
		}
		for (int k = 0; k < nc; k++)
			b[k] = -s->phi[k];
		kkt_solve(it->kkt, zero, b, it->dg, mu);
		for (int q = 0; q < s->nb; q++)
			v3_add(x->r + 3 * q, x->r + 3 * q, it->dg + 6 * q);
		ra_rotate(s, x->A, it->dg);
		for (int i = 0; i < ng; i++)
			tot[i] += it->dg[i];
	}
	if (iter == 50) {
		char what[256];
		double worst = maxabs(s->phi, nc, &arg);
		sim_row_name(s->m, arg, what, sizeof what);
		snprintf(msg, n, "cannot assemble the initial configuration: residual %.3g "
			 "remains in %s after 50 Newton iterations; check the joint points and axes",
			 worst, what);
		goto out;
	}
	note_change(s, tot, &r->moved_pos, r->moved_pos_body, sizeof r->moved_pos_body);

	/* velocities */
	ra_eval(s, x, x->t, PRIM_JAC | PRIM_NU);
	if (kkt_factor(it->kkt, it->W, s->jac)) {
		char what[256];
		sim_row_name(s->m, kkt_bad_row(it->kkt), what, sizeof what);
		snprintf(msg, n, "cannot project the initial velocities: %s near %s",
			 kkt_error(it->kkt), what);
		goto out;
	}
	for (int q = 0; q < s->nb; q++) {
		v3_copy(tot + 6 * q, x->v + 3 * q);
		v3_copy(tot + 6 * q + 3, x->w + 3 * q);
	}
	ra_jac_mul(s, tot, b);
	for (int k = 0; k < nc; k++)
		b[k] = s->nu[k] - b[k];
	kkt_solve(it->kkt, zero, b, it->dg, mu);
	for (int q = 0; q < s->nb; q++) {
		v3_add(x->v + 3 * q, x->v + 3 * q, it->dg + 6 * q);
		v3_add(x->w + 3 * q, x->w + 3 * q, it->dg + 6 * q + 3);
	}
	note_change(s, it->dg, &r->moved_vel, r->moved_vel_body, sizeof r->moved_vel_body);
	rc = 0;
out:
	free(tot);
	free(b);
	free(mu);
	free(zero);
	return rc;
}
