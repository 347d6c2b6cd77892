/* kinematic.c - kinematic analysis of fully driven mechanisms (kinematic.h).
 *
 * One saddle-point matrix [I P^T; P 0] per time (P = Phi_q of the ra
 * formulation, 000 eq. 2): its solution x of [I P^T; P 0][x; mu] = [0; b]
 * is the minimum-norm x with P x = b, which for a square regular P is
 * P^-1 b.  Newton on positions uses b = -Phi and the manifold update
 * r += dr, A <- A exp(dtheta~); velocities b = nu; accelerations b = gamma.
 * The factorization, the Newton step and the residuals are those of the
 * initial assembly (assemble.h) with W = I.
 *
 * Particles: no row of P reads a particle's rotational columns (a
 * particle is joined and driven at its centre, model.h), so the
 * minimum-norm x leaves its inert rotation at exactly zero and the moving
 * coordinates (3 per particle, 6 per rigid body) are solved as by a
 * square P: "fully driven" counts those coordinates (kinematic_dof).
 */
#include "kinematic.h"
#include "assemble.h"
#include "output.h"
#include "sim.h"
#include "../form/ra.h"
#include "../io/h5.h"
#include "../la/kkt.h"
#include "../util/vec.h"
#include "../util/xalloc.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define KIN_MAXIT 50

int kinematic_dof(const struct model *m)
{
	return model_nq(m) - m->ncons;	/* a particle's rotation is inert (model.h) */
}

int kinematic_check(const struct model *m, char *msg, size_t n)
{
	int dof = kinematic_dof(m);
	if (dof != 0) {
		snprintf(msg, n, "kinematic reference needs a fully driven mechanism (0 degrees of "
			 "freedom), but this model has %d bodies and %d constraint rows: %d degree%s "
			 "of freedom; drive every free coordinate or choose another reference",
			 m->nbodies, m->ncons, dof, dof == 1 || dof == -1 ? "" : "s");
		return -1;
	}
	if (m->nbodies == 0) {
		snprintf(msg, n, "kinematic reference: the model has no bodies");
		return -1;
	}
	return 0;
}

struct kctx {
	struct ra *s;
	struct kkt *kkt;
	double *W, *b, *dg, *mu;
	char *msg;
	size_t n;
};

static int factor(struct kctx *c, double t)
{
	char doing[64];
	snprintf(doing, sizeof doing, "kinematic analysis at t = %.9g", t);
	if (assemble_factor(c->kkt, c->W, c->s, doing, c->msg, c->n) == 0)
		return 0;
	size_t l = strlen(c->msg);
	snprintf(c->msg + l, c->n - l, "; the mechanism is at a singular configuration or "
		 "has redundant constraints");
	return -1;
}

/* Newton on Phi(q, t) = 0 to round-off; 0 or -1. */
static int positions(struct kctx *c, struct ra_state *x, double t)
{
	struct ra *s = c->s;
	int nc = s->nc, arg;
	double scale = 1.0;
	for (int i = 0; i < 3 * s->nb; i++)
		scale = fmax(scale, fabs(x->r[i]));
	double prev = INFINITY;
	for (int it = 0; it < KIN_MAXIT; it++) {
		ra_eval(s, x, t, PRIM_PHI | PRIM_JAC);
		double res = assemble_maxabs(s->phi, nc, &arg);
		/* stop at round-off: below a few ulps of the coordinates, or when
		 * Newton no longer reduces the residual after it has become small */
		if (res <= 8.0 * DBL_EPSILON * scale || (res < 1e-12 * scale && res >= 0.5 * prev))
			return 0;
		prev = res;
		if (factor(c, t))
			return -1;
		assemble_newton_step(s, c->kkt, x, c->b, c->dg, c->mu);
	}
	ra_eval(s, x, t, PRIM_PHI);
	double res = assemble_maxabs(s->phi, nc, &arg);
	if (res < 1e-10 * scale)
		return 0;
	char what[256];
	model_row_name(s->m, arg, what, sizeof what);
	snprintf(c->msg, c->n, "kinematic analysis: Newton did not converge at t = %.9g in %d "
		 "iterations (residual %.3g in %s); the mechanism may pass a singular position",
		 t, KIN_MAXIT, res, what);
	return -1;
}

/* The x of [I P^T; P 0] [x; mu] = [0; rhs] with the last factorization,
 * split into its translational (lin) and rotational (ang) parts. */
static void solve_into(struct kctx *c, const double *rhs, double *lin, double *ang)
{
	kkt_solve(c->kkt, NULL, rhs, c->dg, c->mu);
	for (int q = 0; q < c->s->nb; q++) {
		v3_copy(lin + 3 * q, c->dg + 6 * q);
		v3_copy(ang + 3 * q, c->dg + 6 * q + 3);
	}
}

/* Velocities and accelerations at x (positions solved).  Leaves Phi, the
 * Jacobian, nu and gamma of x in s for residuals(): the second ra_eval
 * keeps the Jacobian and asks for nu again, since an output the mask
 * leaves out may come back as 0 (prim.c). */
static int rates(struct kctx *c, struct ra_state *x, double t)
{
	struct ra *s = c->s;
	ra_eval(s, x, t, PRIM_JAC | PRIM_NU);
	if (factor(c, t))
		return -1;
	solve_into(c, s->nu, x->v, x->w);
	ra_eval(s, x, t, PRIM_NU | PRIM_GAMMA);	/* gamma depends on v, w */
	solve_into(c, s->gamma, x->a, x->wd);
	return 0;
}

/* Residuals of the three constraint levels (inf-norms) at the x that
 * solve_at has just solved, from what rates left in s. */
static void residuals(struct kctx *c, const struct ra_state *x, double res[3])
{
	struct ra *s = c->s;
	int nc = s->nc, arg;
	res[0] = assemble_maxabs(s->phi, nc, &arg);
	assemble_residual(s, x->v, x->w, s->nu, c->b);
	res[1] = assemble_maxabs(c->b, nc, &arg);
	assemble_residual(s, x->a, x->wd, s->gamma, c->b);
	res[2] = assemble_maxabs(c->b, nc, &arg);
}

/* Second-order Taylor predictor from x at its time to dt later.  The
 * rotation increments go through c->dg (ra_rotate reads only the
 * rotational part of a generalized vector). */
static void predict(struct kctx *c, struct ra_state *x, double dt)
{
	double *g = c->dg;
	for (int q = 0; q < c->s->nb; q++) {
		for (int i = 0; i < 3; i++) {
			x->r[3 * q + i] += dt * x->v[3 * q + i] + 0.5 * dt * dt * x->a[3 * q + i];
			g[6 * q + 3 + i] = dt * x->w[3 * q + i] + 0.5 * dt * dt * x->wd[3 * q + i];
		}
	}
	ra_rotate(c->s, x->A, g);
}

static void store(const struct model *m, struct kin_series *k, int i, const struct ra_state *x)
{
	int nb = k->nb;
	for (int p = 0; p < k->np; p++) {
		size_t o = 3 * ((size_t)i * (size_t)k->np + (size_t)p);
		output_point_kin(&m->points[p], x->r, x->A, x->v, x->w, x->a, x->wd, k->pp + o,
				 k->pv + o, k->pa + o);
	}
	size_t o3 = 3 * (size_t)i * (size_t)nb, n3 = 3 * (size_t)nb * sizeof(double);
	memcpy(k->r + o3, x->r, n3);
	memcpy(k->v + o3, x->v, n3);
	memcpy(k->a + o3, x->a, n3);
	memcpy(k->w + o3, x->w, n3);
	memcpy(k->wd + o3, x->wd, n3);
	for (int b = 0; b < nb; b++)
		mat_to_quat(k->q + 4 * ((size_t)i * (size_t)nb + (size_t)b), x->A + 9 * b);
}

/* Solve positions, velocities, accelerations at t from x (predicted). */
static int solve_at(struct kctx *c, struct ra_state *x, double t)
{
	if (positions(c, x, t) || rates(c, x, t))
		return -1;
	x->t = t;
	return 0;
}

int kinematic_solve(const struct model *m, double t0, const double *t, int nt,
		    double max_dt, struct kin_series *k, char *msg, size_t n)
{
	memset(k, 0, sizeof(*k));
	if (kinematic_check(m, msg, n))
		return -1;
	struct kctx c;
	struct ra_state x;
	c.s = ra_new(m);
	struct ra *s = c.s;
	int nb = s->nb, nc = s->nc, ng = s->ng, rc = -1;
	c.kkt = kkt_new(nb, nc, s->bi, s->bj, KKT_AUTO);
	kkt_set_rows(c.kkt, s->jo);
	c.W = xcalloc((size_t)nb * 18, sizeof(double));
	for (int b = 0; b < nb; b++)
		for (int i = 0; i < 3; i++)
			c.W[18 * b + 4 * i] = c.W[18 * b + 9 + 4 * i] = 1.0;
	c.dg = xcalloc((size_t)ng + 1, sizeof(double));
	c.b = xcalloc((size_t)nc + 1, sizeof(double));
	c.mu = xcalloc((size_t)nc + 1, sizeof(double));
	c.msg = msg;
	c.n = n;
	k->nb = nb;
	k->nt = nt;
	size_t n3 = 3 * (size_t)nb * (size_t)nt + 1;
	k->t = xmalloc(((size_t)nt + 1) * sizeof(double));
	k->r = xmalloc(n3 * sizeof(double));
	k->v = xmalloc(n3 * sizeof(double));
	k->a = xmalloc(n3 * sizeof(double));
	k->w = xmalloc(n3 * sizeof(double));
	k->wd = xmalloc(n3 * sizeof(double));
	k->q = xmalloc((4 * (size_t)nb * (size_t)nt + 1) * sizeof(double));
	k->np = m->npoints;
	size_t p3 = 3 * (size_t)k->np * (size_t)nt + 1;
	k->pp = xmalloc(p3 * sizeof(double));
	k->pv = xmalloc(p3 * sizeof(double));
	k->pa = xmalloc(p3 * sizeof(double));
	ra_state_init(s, &x);
	ra_state_from_model(s, &x, t0);
	if (max_dt <= 0)
		max_dt = INFINITY;
	if (solve_at(&c, &x, t0))
		goto out;
	for (int i = 0; i < nt; i++) {
		if (t[i] < x.t - 1e-12 * fmax(1.0, fabs(x.t))) {
			snprintf(msg, n, "kinematic analysis: requested times must ascend from "
				 "t0 = %g (got %g after %g)", t0, t[i], x.t);
			goto out;
		}
		double span = t[i] - x.t;
		int sub = span > max_dt ? (int)ceil(span / max_dt) : 1;
		double ts = x.t;
		for (int j = 1; j <= sub && span > 0; j++) {
			double tj = j == sub ? t[i] : ts + span * j / sub;
			predict(&c, &x, tj - x.t);
			if (solve_at(&c, &x, tj))
				goto out;
		}
		double res[3];
		residuals(&c, &x, res);
		for (int l = 0; l < 3; l++)
			k->max_res[l] = fmax(k->max_res[l], res[l]);
		k->t[i] = t[i];
		store(m, k, i, &x);
	}
	rc = 0;
out:
	ra_state_release(&x);
	free(c.W);
	free(c.dg);
	free(c.b);
	free(c.mu);
	kkt_free(&c.kkt);
	ra_free(&c.s);
	if (rc)
		kinematic_release(k);
	return rc;
}

void kinematic_release(struct kin_series *k)
{
	free(k->t);
	free(k->r);
	free(k->v);
	free(k->a);
	free(k->q);
	free(k->w);
	free(k->wd);
	free(k->pp);
	free(k->pv);
	free(k->pa);
	memset(k, 0, sizeof(*k));
}

int kinematic_write(const struct model *m, const struct kin_series *k, const char *path,
		    char *err, size_t n)
{
	/* flushed once, at close: the file is written in one go */
	struct h5_opts opt = { 1e9, 0, k->nt, 0 };
	struct h5out *h = h5_create(path, &opt, err, n);
	if (!h)
		return -1;
	int nb = k->nb, id[OUTPUT_BODY_IDS];
	h5_attr_int(h, "/", "layout_version", OUTPUT_LAYOUT_VERSION);
	int tid = output_body_series(h, m, id), pid[3];
	output_point_series(h, m, pid);
	for (int i = 0; i < k->nt; i++) {
		size_t o = (size_t)i * (size_t)nb, op = 3 * (size_t)i * (size_t)k->np;
		h5_row(h, tid, &k->t[i]);
		output_body_row(h, m, id, k->r + 3 * o, k->v + 3 * o, k->a + 3 * o, k->q + 4 * o,
				k->w + 3 * o, k->wd + 3 * o);
		if (k->np > 0) {
			h5_row(h, pid[0], k->pp + op);
			h5_row(h, pid[1], k->pv + op);
			h5_row(h, pid[2], k->pa + op);
		}
	}
	h5_attr_str(h, "/", "integrator", "kinematic");
	return h5_close(&h, "complete", err, n) ? -1 : 0;
}
