/* moreau.c - the nonsmooth contact family: Moreau-Jean time-stepping with
 * Newton's impact law and the Coulomb friction cone, on ra (scheme
 * `moreau`).
 *
 * References (for users: man/mbsim-deck.5, CONTACT; docs/REFERENCES.md):
 * J. J. Moreau, "Unilateral contact and dry friction in finite freedom
 * dynamics", in Nonsmooth Mechanics and Applications, CISM Courses and
 * Lectures 302, Springer (1988), doi:10.1007/978-3-7091-2624-0_1 (the
 * midpoint time-stepping and the velocity-level laws); M. Jean, "The
 * non-smooth contact dynamics method", Comput. Methods Appl. Mech. Engrg.
 * 177 (1999) 235-257, doi:10.1016/S0045-7825(98)00387-9 (the theta-method
 * and the contact problem solved contact by contact, nonlinear
 * Gauss-Seidel).
 *
 * One step from t_k (theta = 1/2, Moreau's midpoint rule):
 *
 *   q_M   = q_k + (1 - theta) h u_k              (A_M = A_k exp((1-theta) h w_k~))
 *   M (u_{k+1} - u_k) = h f(q_M, u_k, t_M) - Pj^T L + H^T P
 *   Pj u_{k+1} = -Phi(q_M, t_{k+1}) / (theta h)  (joints, rows of q_M)
 *   q_{k+1} = q_M + theta h u_{k+1}
 *
 * f the applied forces less the gyroscopic term, Pj the joints' Jacobian,
 * L their impulses (the multipliers written are L / h), H the contacts'
 * rows at q_M.  The joint row makes Phi(q_{k+1}, t_{k+1}) vanish to second
 * order in the step, and a projection onto Phi = 0 (project()) removes
 * the rest, so positions meet the joints as the index-3 schemes' do.  The
 * active contacts are those with gap(q_M) <= 0 (Moreau's activation, up
 * to the round-off margin MJ_MARGIN), each a local frame (n, t1, t2), n
 * from side a to side b, and a local relative velocity U = H u (point of
 * b minus point of a) with the law
 *
 *   0 <= P_N  _|_  U_N+ + e min(U_N-, 0) >= 0        (Newton, U- = H u_k)
 *   |P_T| <= mu P_N, and U_T+ = 0 unless |P_T| = mu P_N, P_T against U_T+
 *
 * With theta = 1/2 the step is the trapezoidal rule in positions, so
 * under a constant force (gravity) the kinetic energy change equals the
 * work h f . (u_k + u_{k+1}) / 2 exactly, and the work of the impulses,
 * P . (U+ + U-) / 2 per contact, is what the impacts and the friction take
 * from the bodies: it is handed to the energy balance (it->impulse_work),
 * which then closes to round-off on a bouncing ball.
 *
 * The contact problem is solved by projected Gauss-Seidel on the
 * impulses (Jean 1999): each contact in turn with the others fixed, on
 * its 3 x 3 Delassus block W_ii = H_i Mt^-1 H_i^T, where Mt^-1 is the
 * inverse of the mass matrix restricted to the joints (the saddle-point
 * solve [M Pj^T; Pj 0], so the joints' impulses answer every contact
 * impulse exactly, as a Schur complement, instead of joining the sweep
 * as unconstrained unknowns that would slow it down on stiff chains).
 * The normal impulse is the projection on P_N >= 0 of the Newton step of
 * its row; the tangential one the 2 x 2 block's solve for sticking, kept
 * when it lies within the cone mu P_N, else the point of the rim against
 * the sliding velocity it leaves (slide(): maximum dissipation).  mu is
 * mu_s while the contact sticks and mu_d once a step has left it
 * slipping (MJ_SLIP).  Sweeps stop when no impulse moved by more than
 * integrator.tolerance of the largest (or of a floor for impulses at
 * round-off), or, when at its rate it would not get there within
 * MJ_SWEEPS, at the looser MJ_ACCEPT, which dense packings need (the step
 * is then counted as inexact); a step that reaches neither within
 * MJ_SWEEPS fails.  Each step starts from the last step's impulses of the same
 * contacts (same sides, plane and feature).
 *
 * Without joints the velocity update of an impulse touches the two bodies
 * only (O(1) per contact update); with joints Mt^-1 H_i^T is a column of
 * ng entries per direction, from kkt_solve_many (3 right sides a contact).
 */
#include "moreau_impl.h"
#include "../model/contact.h"
#include "../model/shape.h"
#include "../util/ckpt.h"
#include "../util/interrupt.h"
#include "../util/vec.h"
#include "../util/xalloc.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MJ_THETA 0.5
/* Contacts whose gap at q_M is below this fraction of the smallest
 * contact shape's size (its radius, a box's half edge) are active: gap
 * <= 0 (Moreau's activation) but for the round-off of a resting body's
 * positions, which would otherwise drop a contact for a step and let
 * the body fall and strike again (jitter) */
#define MJ_MARGIN 1e-6
/* A contact slides at the end of a step when its tangential speed is
 * above this fraction of the speed mu P_N would change it by (mu P_N
 * trace W_TT): below it, it is the Gauss-Seidel tolerance's residue of a
 * sticking contact.  A contact that slid takes mu_d in the next step,
 * one that stuck mu_s. */
#define MJ_SLIP 1e-6

/* Rows of H for the body of one side: for each direction d of the frame,
 * sgn (d, A^T (r x d)) - zero rotational part for a particle. */
static void side_rows(const struct ra *s, int b, const double *A, const double *lever,
		      const double *fr, double sgn, double *H)
{
	int part = model_is_particle(s->m, b);
	for (int k = 0; k < 3; k++) {
		const double *d = fr + 3 * k;
		double rx[3], t[3];
		v3_cross(rx, lever, d);
		m3_tmulv(t, A + 9 * b, rx);
		for (int c = 0; c < 3; c++) {
			H[6 * k + c] = sgn * d[c];
			H[6 * k + 3 + c] = part ? 0.0 : sgn * t[c];
		}
	}
}

/* An orthonormal frame with n first */
static void frame(const double *n, double *fr)
{
	double t[3] = { 0, 0, 0 };
	int i = fabs(n[0]) < 0.6 ? 0 : (fabs(n[1]) < 0.6 ? 1 : 2);
	t[i] = 1.0;
	v3_copy(fr, n);
	v3_axpy(t, -v3_dot(t, n), n);
	v3_scale(fr + 3, 1.0 / v3_norm(t), t);
	v3_cross(fr + 6, fr, fr + 3);
}

/* The active contacts at q_M: gap <= margin (MJ_MARGIN) */
static int gather(struct integ *it, struct mj *M)
{
	const struct ra *s = it->sys;
	const struct contact_pt *pt;
	size_t n;
	M->n = 0;
	if (!M->W)
		return 0;
	if (contact_detect(M->W, M->xm.r, M->xm.A, M->margin, &pt, &n))
		return -1;
	for (size_t k = 0; k < n; k++) {
		if (M->n == M->cap) {
			M->cap = M->cap ? 2 * M->cap : 16;
			M->c = xrealloc(M->c, (size_t)M->cap * sizeof(*M->c));
			if (s->nc > 0)
				M->D = xrealloc(M->D, (size_t)M->cap * 3 * (size_t)s->ng *
						sizeof(double));
		}
		struct mj_c *c = M->c + M->n++;
		memset(c, 0, sizeof(*c));
		c->a = pt[k].a;
		c->b = pt[k].b;
		c->pt = pt[k];
		c->tol = it->tol;
		c->gap = pt[k].gap;
		frame(pt[k].n, c->fr);
		if (c->a >= 0)
			side_rows(s, c->a, M->xm.A, pt[k].ra, c->fr, -1.0, c->Ha);
		side_rows(s, c->b, M->xm.A, pt[k].rb, c->fr, 1.0, c->Hb);
		contact_pair_coef(s->m->contact, c->a, pt[k].plane, c->b, &c->mu_s, &c->mu_d,
				  &c->e);
	}
	return 0;
}

/* The joints' position constraints at q_{k+1}: the velocity rows leave
 * Phi = O(h^2) (top of the file); a projection of minimal M-norm, dq =
 * -M^-1 Pj^T y with Pj dq = -Phi (rows of q_M, whose factorization is at
 * hand), iterated to integrator.tolerance, makes positions satisfy them
 * as the index-3 schemes' do.  It moves the positions by O(h^2) a step and
 * leaves the velocities as the contact problem made them. */
static int project(struct integ *it, struct ra_state *y, double t)
{
	struct ra *s = it->sys;
	if (s->nc == 0)
		return INTEG_OK;
	for (int itn = 1; itn <= it->maxit; itn++) {
		ra_eval(s, y, t, PRIM_PHI);
		for (int k = 0; k < s->nc; k++)
			it->dl[k] = -s->phi[k];
		kkt_solve(it->kkt, NULL, it->dl, it->dg, it->rhs);
		for (int b = 0; b < s->nb; b++)
			v3_axpy(y->r + 3 * b, 1.0, it->dg + 6 * b);
		ra_rotate(s, y->A, it->dg);
		it->last_norm = integ_norm2(it->dg, s->ng, NULL, 0);
		if (!isfinite(it->last_norm)) {
			integ_note_worst(it);
			return INTEG_NONFINITE;
		}
		if (it->last_norm < it->tol)
			return INTEG_OK;
	}
	integ_note_worst(it);
	return INTEG_NEWTON_FAIL;
}

static int mj_step(struct integ *it, double h, struct ra_state *x, struct ra_state *y)
{
	struct ra *s = it->sys;
	struct mj *M = it->mem;
	int nb = s->nb, nc = s->nc, ng = s->ng;
	double th = MJ_THETA, hm = (1 - th) * h, tm = x->t + hm, tn1 = x->t + h;
	double *F = it->F, *u = M->u, *u0 = M->u0, *a = M->a, *b = it->dl;

	/* q_M */
	for (int k = 0; k < 3 * nb; k++) {
		M->xm.r[k] = x->r[k] + hm * x->v[k];
		M->xm.v[k] = x->v[k];
		M->xm.w[k] = x->w[k];
		u0[6 * (k / 3) + k % 3] = x->v[k];
		u0[6 * (k / 3) + 3 + k % 3] = x->w[k];
	}
	memcpy(M->xm.A, x->A, 9 * (size_t)nb * sizeof(double));
	for (int k = 0; k < ng; k++)
		it->dg[k] = hm * u0[k];
	ra_rotate(s, M->xm.A, it->dg);
	memcpy(M->xm.lam, x->lam, (size_t)nc * sizeof(double));
	M->xm.t = tm;

	/* the joints' rows at q_M; the saddle-point matrix [M Pj^T; Pj 0] */
	ra_eval(s, &M->xm, tn1, PRIM_PHI | PRIM_JAC);
	ra_mass_blocks(s, it->W);
	if (kkt_factor(it->kkt, it->W, s->jac)) {
		it->bad_row = kkt_bad_row(it->kkt);
		return INTEG_SINGULAR;
	}
	it->factorizations++;
	for (int k = 0; k < nc; k++)
		b[k] = -s->phi[k] / (th * h);

	/* the free velocity: M u_k + h f(q_M, u_k, t_M) */
	ra_forces(s, &M->xm, tm, x->lam, F);
	ra_gyro(s, &M->xm, F);
	for (int bd = 0; bd < nb; bd++) {
		double Jw[3];
		m3_mulv(Jw, ra_inertia(s, bd), x->w + 3 * bd);
		for (int c = 0; c < 3; c++) {
			a[6 * bd + c] = s->mass[bd] * x->v[3 * bd + c] + h * F[6 * bd + c];
			a[6 * bd + 3 + c] = Jw[c] + h * F[6 * bd + 3 + c];
		}
	}
	kkt_solve(it->kkt, a, b, u, it->lam);

	/* the contact problem */
	if (gather(it, M)) {
		it->bad_row = -1;
		return INTEG_NONFINITE;
	}
	if (!M->checked) {
		M->checked = 1;
		for (int i = 0; i < M->n; i++)
			if (M->c[i].gap < -M->margin) {
				M->overlaps0++;
				M->depth0 = fmax(M->depth0, -M->c[i].gap);
			}
	}
	it->iters = 0;
	it->impulse_work = 0;
	M->pgs_failed = 0;
	if (M->n > 0) {
		mj_delassus(it, M);
		mj_warm_start(M);
		for (int i = 0; i < M->n; i++) {
			struct mj_c *c = M->c + i;
			mj_local_vel(c, u0, c->Um);
			if (c->mu < 0)	/* a new contact sticks if it lands without slip */
				c->mu = c->Um[1] == 0 && c->Um[2] == 0 ? c->mu_s : c->mu_d;
		}
		int rc = mj_pgs(it, M, u);
		it->iters = M->last_sweeps;
		M->sweeps += M->last_sweeps;
		M->contact_steps++;
		if (M->n > M->max_contacts)
			M->max_contacts = M->n;
		if (rc) {
			M->pgs_failed = 1;
			it->last_norm = M->last_res;
			return interrupted() ? INTEG_INTERRUPTED : INTEG_NEWTON_FAIL;
		}
		/* u_{k+1} and the joints' impulses with the contacts' */
		for (int i = 0; i < M->n; i++)
			mj_add_impulse(M->c + i, M->c[i].P, a);
		kkt_solve(it->kkt, a, b, u, it->lam);
		for (int i = 0; i < M->n; i++) {
			double Up[3];
			mj_local_vel(M->c + i, u, Up);
			struct mj_c *c = M->c + i;
			for (int k = 0; k < 3; k++)
				it->impulse_work += c->P[k] * 0.5 * (Up[k] + c->Um[k]);
			c->slides = hypot(Up[1], Up[2]) >
				    MJ_SLIP * c->mu * c->P[0] * (c->Wd[4] + c->Wd[8]);
		}
	}
	it->total_iters += it->iters;
	for (int k = 0; k < ng; k++)
		if (!isfinite(u[k])) {
			integ_note_worst(it);
			return INTEG_NONFINITE;
		}

	/* q_{k+1} = q_M + theta h u_{k+1} */
	y->t = tn1;
	for (int k = 0; k < 3 * nb; k++) {
		int bd = k / 3, c = k % 3;
		y->v[k] = u[6 * bd + c];
		y->w[k] = u[6 * bd + 3 + c];
		y->r[k] = M->xm.r[k] + th * h * y->v[k];
		y->a[k] = (y->v[k] - x->v[k]) / h;
		y->wd[k] = (y->w[k] - x->w[k]) / h;
	}
	memcpy(y->A, M->xm.A, 9 * (size_t)nb * sizeof(double));
	for (int k = 0; k < ng; k++)
		it->dg[k] = th * h * u[k];
	ra_rotate(s, y->A, it->dg);
	for (int k = 0; k < nc; k++)
		y->lam[k] = it->lam[k] / h;
	int rc = project(it, y, tn1);
	if (rc)
		return rc;

	/* keep the impulses for the next step's warm start (and output) */
	if (M->n > M->oldcap) {
		M->oldcap = M->cap;
		M->old = xrealloc(M->old, (size_t)M->oldcap * sizeof(*M->old));
	}
	if (M->n)
		memcpy(M->old, M->c, (size_t)M->n * sizeof(*M->c));
	M->nold = M->n;
	it->steps++;
	return INTEG_OK;
}

/* The activation margin (MJ_MARGIN), m */
static double act_margin(const struct model *m)
{
	double L = INFINITY;
	for (int b = 0; b < m->nbodies; b++) {
		const struct shape *sh = shapes_get(m->shapes, b);
		if (!sh || !contact_mat_of(m->contact, b) || sh->type == SHAPE_MESH)
			continue;
		L = fmin(L, sh->type == SHAPE_BOX ?
			 0.5 * fmin(sh->size[0], fmin(sh->size[1], sh->size[2])) : sh->size[0]);
	}
	return MJ_MARGIN * (isfinite(L) ? L : 1.0);
}

static const struct integ_contact *mj_contacts(const struct integ *it, size_t *n)
{
	struct mj *M = it->mem;
	if (M->nold > M->outcap) {
		M->outcap = M->oldcap;
		M->out = xrealloc(M->out, (size_t)M->outcap * sizeof(*M->out));
	}
	for (int i = 0; i < M->nold; i++) {
		const struct mj_c *c = M->old + i;
		struct integ_contact *o = M->out + i;
		o->c = c->pt;
		o->pn = c->P[0];
		for (int k = 0; k < 3; k++)
			o->pt[k] = c->P[1] * c->fr[3 + k] + c->P[2] * c->fr[6 + k];
		o->slides = c->slides;
	}
	*n = (size_t)M->nold;
	return M->out;
}

static int mj_init(struct integ *it, const struct sim_options *o, struct diag *d)
{
	(void)o;
	(void)d;
	const struct ra *s = it->sys;
	struct mj *M = xcalloc(1, sizeof(*M));
	it->mem = M;
	/* the smooth model's contacts are forces (ra_forces): none here */
	if (s->m->contact && s->m->contact->model == CONTACT_NONSMOOTH)
		M->W = contact_world_new(s->m);
	if (M->W)
		M->margin = act_margin(s->m);
	ra_state_init(s, &M->xm);
	M->u = xcalloc((size_t)s->ng + 1, sizeof(double));
	M->u0 = xcalloc((size_t)s->ng + 1, sizeof(double));
	M->a = xcalloc((size_t)s->ng + 1, sizeof(double));
	if (M->W && s->nc > 0) {
		M->da = xcalloc((size_t)s->ng * 3, sizeof(double));
		M->dz = xcalloc((size_t)s->nc * 3 + 1, sizeof(double));
	}
	return 0;
}

static void mj_free(struct integ *it)
{
	struct mj *M = it->mem;
	if (!M)
		return;
	contact_world_free(&M->W);
	ra_state_release(&M->xm);
	free(M->u);
	free(M->u0);
	free(M->a);
	free(M->D);
	free(M->da);
	free(M->dz);
	free(M->c);
	free(M->old);
	free(M->out);
	free(M);
	it->mem = NULL;
}

static int mj_fail(const struct integ *it, int st, double t, long step, double h, char *msg,
		   size_t n)
{
	const struct mj *M = it->mem;
	if (st != INTEG_NEWTON_FAIL || !M->pgs_failed)
		return -1;
	const struct model *m = it->sys->m;
	const struct mj_c *c = M->c;
	snprintf(msg, n, "the contact problem of step %ld (t = %.9g, h = %g) did not converge: "
		 "%d contacts (the first between '%s' and '%s'), impulses still changing by %.3g "
		 "of the largest after %d Gauss-Seidel sweeps; take a smaller integrator.step "
		 "or a larger integrator.tolerance", step, t, h, M->n,
		 c->a >= 0 ? m->bodies[c->a].name : "ground", m->bodies[c->b].name,
		 M->last_res, M->last_sweeps);
	return 0;
}

static const struct integ_stat_key mj_keys[] = {
	{ "contact_steps", INTEG_STAT_ATTR },
	{ "max_contacts", INTEG_STAT_ATTR },
	{ "mean_sweeps", 0 },
	{ "inexact_contact_steps", INTEG_STAT_ATTR },
	{ "max_contact_residual", 0 },
	{ "initial_overlaps", INTEG_STAT_ATTR },
	{ "initial_overlap_depth", 0 },
	{ NULL, 0 },
};

static int mj_stats(const struct integ *it, const struct sim_options *o, double *v)
{
	(void)o;
	const struct mj *M = it->mem;
	v[0] = (double)M->contact_steps;
	v[1] = M->max_contacts;
	v[2] = M->contact_steps ? (double)M->sweeps / (double)M->contact_steps : 0.0;
	v[3] = (double)M->inexact;
	v[4] = M->max_res;
	v[5] = (double)M->overlaps0;
	v[6] = M->depth0;
	return 7;
}

static void mj_notes(const struct integ *it, const struct sim_options *o, const double *v,
		     char *buf, size_t n)
{
	(void)it;
	int k = snprintf(buf, n, "contact: %.0f steps with contact, at most %.0f contacts, "
			 "%.1f Gauss-Seidel sweeps a contact step", v[0], v[1], v[2]);
	if (k >= 0 && (size_t)k < n && v[3] > 0)	/* MJ_ACCEPT */
		k += snprintf(buf + k, n - (size_t)k, "; %.0f steps accepted with impulses "
			      "changing by up to %.3g of the largest, short of the tolerance "
			      "%g, which Gauss-Seidel would not reach in %d sweeps", v[3], v[4],
			      o->tolerance, MJ_SWEEPS);
	if (k >= 0 && (size_t)k < n && v[5] > 0)
		k += snprintf(buf + k, n - (size_t)k, "; %.0f pair%s overlapped at the start, by "
			      "up to %.3g m: the nonsmooth model stops their approach and does not "
			      "push them apart (start the bodies apart)", v[5], v[5] == 1 ? "" : "s",
			      v[6]);
	if (k >= 0 && (size_t)k < n)
		snprintf(buf + k, n - (size_t)k, "\n");
}

/* Restart: the statistics.  The last step's impulses, the warm start of
 * the next contact problem, are a list of its own length: a restart
 * starts cold, within the Gauss-Seidel tolerance of the run continued
 * (ckpt_inexact, man mbsim-run(1)). */
static void mj_ckpt(struct integ *it, struct ckpt *c)
{
	struct mj *M = it->mem;
	ckpt_l(c, &M->contact_steps, 1);
	ckpt_l(c, &M->sweeps, 1);
	ckpt_i(c, &M->max_contacts, 1);
	ckpt_l(c, &M->inexact, 1);
	ckpt_d(c, &M->max_res, 1);
	ckpt_l(c, &M->overlaps0, 1);
	ckpt_d(c, &M->depth0, 1);
	ckpt_l(c, &M->checked, 1);
	if (c->load)
		M->nold = 0;
}

const struct integ_ops moreau_ops = {
	.init = mj_init,
	.step = mj_step,
	.fail = mj_fail,
	.stat_keys = mj_keys,
	.stats = mj_stats,
	.notes = mj_notes,
	.iter_unit = "Gauss-Seidel sweeps",
	.nonsmooth = 1,
	.ckpt = mj_ckpt,
	.ckpt_inexact = 1,
	.contacts = mj_contacts,
	.free = mj_free,
};
