/* ode_ctrl.c - the integral states of controllers as coordinates of the
 * ODE seam (ode_ctrl.h).  Layout: entries 0 .. n0 - 1 of y, y', y'' are
 * the formulation's, n0 .. n0 + nz - 1 the added w, w' = z, w'' = e, in
 * the force order of ra_ctrl_get. */
#include "ode_ctrl.h"
#include "../util/ckpt.h"
#include "../util/xalloc.h"

#include <math.h>
#include <stdlib.h>

struct ode_ctrl {
	struct ode_sys ode;
	struct ode_sys *in;	/* the formulation's, borrowed */
	struct ra *s;
	int nz;
};

/* The formulation's coordinates (known after its start). */
static int n0(const struct ode_ctrl *c)
{
	return c->in->n;
}

/* w'' = e at the configuration of the formulation's last call. */
static int rates(struct ode_ctrl *c, double t, double *e)
{
	ra_ctrl_rates(c->s, c->in->state(c->in->ctx), t, e);
	for (int k = 0; k < c->nz; k++)
		if (!isfinite(e[k]))
			return ODE_NONFINITE;
	return ODE_OK;
}

static int c_rhs(void *ctx, double t, const double *y, const double *yd, double *ydd)
{
	struct ode_ctrl *c = ctx;
	int n = n0(c);
	ra_ctrl_set(c->s, yd + n);
	int st = c->in->rhs(c->in->ctx, t, y, yd, ydd);
	return st ? st : rates(c, t, ydd + n);
}

static int c_resid(void *ctx, double t, const double *y, const double *yd, const double *ydd,
		   double *r)
{
	struct ode_ctrl *c = ctx;
	int n = n0(c);
	ra_ctrl_set(c->s, yd + n);
	int st = c->in->resid(c->in->ctx, t, y, yd, ydd, r);
	if (st || (st = rates(c, t, r + n)))
		return st;
	for (int k = 0; k < c->nz; k++)
		r[n + k] = ydd[n + k] - r[n + k];
	return ODE_OK;
}

static int c_accept(void *ctx, double t, double *y, double *yd)
{
	struct ode_ctrl *c = ctx;
	return c->in->accept(c->in->ctx, t, y, yd);
}

static int c_want_new(void *ctx)
{
	struct ode_ctrl *c = ctx;
	return c->in->want_new(c->in->ctx);
}

static int c_renew(void *ctx, double t, double *y, double *yd, double *ydd)
{
	struct ode_ctrl *c = ctx;
	int n = n0(c);
	ra_ctrl_set(c->s, yd + n);
	int k = c->in->renew(c->in->ctx, t, y, yd, ydd);
	if (k < 0)
		return k;
	int st = rates(c, t, ydd + n);
	return st ? -st : k;
}

/* The integrals the run holds (0 at its start; the formulation's start
 * reads them and leaves them) carry over; w starts at 0 (it enters
 * nothing). */
static int c_start(void *ctx, const struct ra_state *x, double *y, double *yd, double *ydd)
{
	struct ode_ctrl *c = ctx;
	int st = c->in->start(c->in->ctx, x, y, yd, ydd);
	int n = n0(c);
	c->ode.n = n + c->nz;
	if (st)
		return st;
	for (int k = 0; k < c->nz; k++)
		y[n + k] = 0.0;
	ra_ctrl_get(c->s, yd + n);
	return rates(c, x->t, ydd + n);
}

static void c_bodies(void *ctx, struct ra_state *x)
{
	struct ode_ctrl *c = ctx;
	c->in->bodies(c->in->ctx, x);
}

static const struct ra_state *c_state(void *ctx)
{
	struct ode_ctrl *c = ctx;
	return c->in->state(c->in->ctx);
}

static const char *c_why(void *ctx)
{
	struct ode_ctrl *c = ctx;
	return c->in->why(c->in->ctx);
}

/* w has inertia: w'' = e is explicit. */
static int c_massless(void *ctx, char *alg)
{
	struct ode_ctrl *c = ctx;
	int na = c->in->massless(c->in->ctx, alg);
	if (alg)
		for (int k = 0; k < c->nz; k++)
			alg[n0(c) + k] = 0;
	return na;
}

static int c_vel_map(void *ctx, int *gi, int *ga, double *gv)
{
	struct ode_ctrl *c = ctx;
	return c->in->vel_map(c->in->ctx, gi, ga, gv);
}

static long c_renewals(void *ctx)
{
	const struct ode_ctrl *c = ctx;
	return c->in->renewals(c->in->ctx);
}

/* Restart: the formulation's state, and the count with the integrals
 * (set at the start, which a restart does not call again); w, w' are
 * coordinates of the scheme's (odeint), which it saves. */
static void c_ckpt(void *ctx, struct ckpt *k)
{
	struct ode_ctrl *c = ctx;
	c->in->ckpt(c->in->ctx, k);
	ckpt_i(k, &c->ode.n, 1);
}

struct ode_ctrl *ode_ctrl_new(struct ra *s, struct ode_sys *in)
{
	int nz = ra_ctrl_count(s->m);
	if (nz == 0)
		return NULL;
	struct ode_ctrl *c = xcalloc(1, sizeof(*c));
	c->in = in;
	c->s = s;
	c->nz = nz;
	struct ode_sys *o = &c->ode;
	o->n = in->n + nz;
	o->ctx = c;
	o->rhs = c_rhs;
	o->accept = c_accept;
	o->want_new = in->want_new ? c_want_new : NULL;
	o->renew = in->renew ? c_renew : NULL;
	o->start = c_start;
	o->bodies = c_bodies;
	o->state = c_state;
	o->jac = NULL;	/* differences: no formulation's Jacobian has e */
	o->autonomous = 0;
	o->why = c_why;
	o->renewals = in->renewals ? c_renewals : NULL;
	o->ckpt = in->ckpt ? c_ckpt : NULL;
	o->resid = in->resid ? c_resid : NULL;
	o->massless = in->massless ? c_massless : NULL;
	o->vel_map = in->vel_map ? c_vel_map : NULL;
	s->ctrl_ode = 1;
	return c;
}

void ode_ctrl_free(struct ode_ctrl **pc)
{
	struct ode_ctrl *c = *pc;
	if (!c)
		return;
	c->s->ctrl_ode = 0;
	free(c);
	*pc = NULL;
}

struct ode_sys *ode_ctrl_sys(struct ode_ctrl *c)
{
	return &c->ode;
}

int ode_ctrl_count(const struct ode_ctrl *c)
{
	return c ? c->nz : 0;
}
