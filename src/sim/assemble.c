/* assemble.c - make the deck's initial state consistent.
 *
 * Positions: Newton on Phi(q) = 0 with the minimum mass-weighted change,
 *   [M P^T; P 0] [dq; mu] = [0; -Phi],  r += dr, A <- A exp(dtheta~).
 * Velocities: the same matrix projects (v, w) onto Phi_q v = nu.
 * Both use the integrator's saddle-point solver.
 */
#include "assemble.h"
#include "../util/interrupt.h"
#include "../util/vec.h"
#include "../util/xalloc.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

double assemble_maxabs(const double *v, int n, int *arg)
{
	double m = 0.0;
	*arg = -1;
	for (int i = 0; i < n; i++)
		if (!(fabs(v[i]) <= m)) {
			m = fabs(v[i]);
			*arg = i;
			if (isnan(m))
				break;
		}
	return m;
}

int assemble_factor(struct kkt *k, const double *W, const struct ra *s, const char *doing,
		    char *msg, size_t n)
{
	if (kkt_factor(k, W, s->jac) == 0)
		return 0;
	char what[256];
	int b = kkt_bad_body(k);
	if (b >= 0 && b < s->m->nbodies) {
		/* no constraint is involved: name the body, and what takes it */
		snprintf(msg, n, "%s: the mass matrix of body '%s' is singular (mass or inertia 0); "
			 "only the scheme bdf takes such bodies", doing, s->m->bodies[b].name);
		return -1;
	}
	model_row_name(s->m, kkt_bad_row(k), what, sizeof what);
	snprintf(msg, n, "%s: %s near %s", doing, kkt_error(k), what);
	return -1;
}

void assemble_newton_step(struct ra *s, struct kkt *k, struct ra_state *x, double *b,
			  double *dq, double *mu)
{
	for (int i = 0; i < s->nc; i++)
		b[i] = -s->phi[i];
	kkt_solve(k, NULL, b, dq, mu);
	for (int q = 0; q < s->nb; q++)
		v3_add(x->r + 3 * q, x->r + 3 * q, dq + 6 * q);
	ra_rotate(s, x->A, dq);
}

void assemble_residual(const struct ra *s, const double *lin, const double *ang,
		       const double *rhs, double *out)
{
	ra_jac_mul_split(s, lin, ang, out);
	for (int i = 0; i < s->nc; i++)
		out[i] -= rhs[i];
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
	int rc = -1, iter;
	ra_mass_blocks(it->sys, it->W);
	for (iter = 0; iter < 50; iter++) {
		if (interrupted()) {
			snprintf(msg, n, "interrupted while assembling the initial configuration "
				 "(Newton iteration %d)", iter + 1);
			goto out;
		}
		ra_eval(s, x, x->t, PRIM_PHI | PRIM_JAC);
		if (assemble_maxabs(s->phi, nc, &arg) < tol)
			break;
		if (assemble_factor(it->kkt, it->W, s, "cannot assemble the initial configuration",
				    msg, n))
			goto out;
		assemble_newton_step(s, it->kkt, x, b, it->dg, mu);
		for (int i = 0; i < ng; i++)
			tot[i] += it->dg[i];
	}
	if (iter == 50) {
		char what[256];
		double worst = assemble_maxabs(s->phi, nc, &arg);
		model_row_name(s->m, arg, what, sizeof what);
		snprintf(msg, n, "cannot assemble the initial configuration: residual %.3g "
			 "remains in %s after 50 Newton iterations; check the joint points and axes",
			 worst, what);
		goto out;
	}
	note_change(s, tot, &r->moved_pos, r->moved_pos_body, sizeof r->moved_pos_body);

	/* velocities: the least M-norm change dv with Phi_q (v - dv) = nu,
	 * from Phi_q dv = Phi_q v - nu */
	ra_eval(s, x, x->t, PRIM_JAC | PRIM_NU);
	if (assemble_factor(it->kkt, it->W, s, "cannot project the initial velocities", msg, n))
		goto out;
	assemble_residual(s, x->v, x->w, s->nu, b);
	kkt_solve(it->kkt, NULL, b, it->dg, mu);
	for (int q = 0; q < s->nb; q++) {
		v3_sub(x->v + 3 * q, x->v + 3 * q, it->dg + 6 * q);
		v3_sub(x->w + 3 * q, x->w + 3 * q, it->dg + 6 * q + 3);
	}
	note_change(s, it->dg, &r->moved_vel, r->moved_vel_body, sizeof r->moved_vel_body);
	rc = 0;
out:
	free(tot);
	free(b);
	free(mu);
	return rc;
}
