/* odeint.c - what the ODE schemes share (odeint.h): the accepted state,
 * the start from a body state, the coordinate check after each step, the
 * step around a scheme's kernel, the failure message and statistics. */
#include "odeint.h"
#include "../util/ckpt.h"
#include "../util/xalloc.h"

#include <math.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

struct odeint *odeint_new(struct ode_sys *sys, const struct sim_options *o, int cap)
{
	struct odeint *O = xcalloc(1, sizeof(*O));
	O->sys = sys;
	O->atol = o->atol;
	O->rtol = o->rtol;
	O->safety = o->safety;
	O->facmin = o->facmin;
	O->facmax = o->facmax;
	O->adaptive = o->adaptive;
	O->no_analytic = o->jac_differences;
	O->h_max = o->max_step > 0 ? o->max_step : o->t_end - o->t0 > 0 ? o->t_end - o->t0 : INFINITY;
	O->span = o->t_end - o->t0 > 0 ? o->t_end - o->t0 : 1.0;
	O->n = sys && sys->n > 0 ? sys->n : 0;
	O->cap = cap > O->n ? cap : O->n;
	/* one more than cap: room for one when there are no coordinates */
	size_t n = (size_t)O->cap + 1;
	O->y = xcalloc(n, sizeof(double));
	O->yd = xcalloc(n, sizeof(double));
	O->ydd = xcalloc(n, sizeof(double));
	return O;
}

struct odeint *odeint_of(const struct integ *it)
{
	return it->mem;
}

int odeint_init(struct integ *it, const struct sim_options *o, struct diag *d)
{
	if (!it->ode) {
		diag_error(d, NULL, "integrator '%s' steps the ODE of a formulation (%s), and the "
			   "run gave it none", it->info->name, it->info->formulation);
		return -1;
	}
	/* the coordinates: at most it->ode_cap, known at the start (rp,
	 * with the integral states) */
	it->mem = odeint_new(it->ode, o, it->ode_cap);
	return 0;
}

void odeint_free_op(struct integ *it)
{
	struct odeint *O = it->mem;
	odeint_free(&O);
	it->mem = NULL;
}

void odeint_free(struct odeint **pO)
{
	struct odeint *O = *pO;
	if (!O)
		return;
	if (O->mem_free)
		O->mem_free(O);
	free(O->y);
	free(O->yd);
	free(O->ydd);
	free(O);
	*pO = NULL;
}

int odeint_status(int st)
{
	switch (st) {
	case ODE_OK:
		return INTEG_OK;
	case ODE_SINGULAR:
		return INTEG_SINGULAR;
	case ODE_NONFINITE:
		return INTEG_NONFINITE;
	default:
		return INTEG_NEWTON_FAIL;
	}
}

int odeint_rhs(struct odeint *O, double t, const double *y, const double *yd, double *ydd)
{
	O->nrhs++;
	return odeint_status(O->sys->rhs(O->sys->ctx, t, y, yd, ydd));
}

int odeint_begin(struct odeint *O, const struct ra_state *x)
{
	if (O->started && O->t == x->t)
		return INTEG_OK;
	int st = O->sys->start(O->sys->ctx, x, O->y, O->yd, O->ydd);
	O->nrhs++;
	O->detail = O->sys->why(O->sys->ctx);
	if (st)
		return odeint_status(st);
	O->n = O->sys->n;
	O->t = x->t;
	O->started = 1;
	O->restart = 1;
	return INTEG_OK;
}

int odeint_end(struct odeint *O, struct ra_state *out)
{
	struct ode_sys *S = O->sys;
	int c = S->accept(S->ctx, O->t, O->y, O->yd);
	if (c < 0) {
		O->detail = S->why(S->ctx);
		return odeint_status(-c);
	}
	if (c > 0) {
		/* new coordinates: f in them, and the schemes start afresh */
		int st = odeint_rhs(O, O->t, O->y, O->yd, O->ydd);
		if (st) {
			O->detail = S->why(S->ctx);
			return st;
		}
		O->restart = 1;
	}
	if (out) {
		out->t = O->t;
		S->bodies(S->ctx, out);
	}
	return INTEG_OK;
}

void odeint_keep_why(struct odeint *O)
{
	snprintf(O->why, sizeof O->why, "%s", O->sys->why(O->sys->ctx));
}

const char *odeint_why(struct odeint *O)
{
	const char *w = O->sys->why(O->sys->ctx);
	return w && w[0] ? w : O->why;
}

int odeint_f1(struct odeint *O, double t, const double *y, double *out)
{
	int n = O->n;
	memcpy(out, y + n, (size_t)n * sizeof(double));
	return odeint_rhs(O, t, y, y + n, out + n);
}

int odeint_reached(struct odeint *O, double t, const double *Y, int (*start)(struct odeint *O))
{
	int n = O->n;
	memcpy(O->y, Y, (size_t)n * sizeof(double));
	memcpy(O->yd, Y + n, (size_t)n * sizeof(double));
	O->t = t;
	if (!O->sys->want_new || !O->sys->want_new(O->sys->ctx))
		return INTEG_OK;
	int st = odeint_rhs(O, O->t, O->y, O->yd, O->ydd);
	if (st)
		return st;
	O->restart = 0;
	int c = O->sys->accept(O->sys->ctx, O->t, O->y, O->yd);
	if (c < 0)
		return -c == ODE_SINGULAR ? INTEG_SINGULAR : INTEG_NEWTON_FAIL;
	return c > 0 ? start(O) : INTEG_OK;
}

int odeint_renew(struct odeint *O, int st, int (*start)(struct odeint *O))
{
	if ((st != INTEG_SINGULAR && st != INTEG_NEWTON_FAIL) || !O->sys->renew)
		return st;
	odeint_keep_why(O);
	int c = O->sys->renew(O->sys->ctx, O->t, O->y, O->yd, O->ydd);
	O->nrhs++;
	return c > 0 ? start(O) : st;
}

int odeint_step(struct integ *it, double h, struct ra_state *x, struct ra_state *y,
		odeint_kernel kernel)
{
	struct odeint *O = it->mem;
	int st = odeint_begin(O, x);
	if (st)
		return st;
	long f0 = O->nrhs;
	double t1 = x->t, hn = h;
	st = kernel(O, it->info, h, &t1, &hn);
	it->iters = (int)(O->nrhs - f0);
	it->rejected = O->rejected;
	if (st) {
		O->detail = odeint_why(O);
		return st;
	}
	it->h_next = hn;
	it->steps++;
	it->total_iters += it->iters;
	y->t = t1;
	return odeint_end(O, y);
}

void odeint_ckpt(struct integ *it, struct ckpt *c)
{
	struct odeint *O = it->mem;
	ckpt_l(c, &O->nrhs, 1);
	ckpt_l(c, &O->njac, 1);
	ckpt_l(c, &O->njac_analytic, 1);
	ckpt_l(c, &O->rejected, 1);
	ckpt_l(c, &O->rejected_before, 1);
}

int odeint_ckpt_state(struct integ *it, struct ckpt *c)
{
	struct odeint *O = it->mem;
	odeint_ckpt(it, c);
	if (!O->sys->ckpt)
		return 0;
	ckpt_i(c, &O->started, 1);
	ckpt_i(c, &O->restart, 1);
	ckpt_i(c, &O->n, 1);
	ckpt_d(c, &O->t, 1);
	ckpt_d(c, O->y, O->cap);
	ckpt_d(c, O->yd, O->cap);
	ckpt_d(c, O->ydd, O->cap);
	O->sys->ckpt(O->sys->ctx, c);
	return 1;
}

int odeint_begin_op(struct integ *it, const struct ra_state *x)
{
	return odeint_begin(it->mem, x);
}

/* the ODE schemes' partitioning is their own: no retry with rows dropped */
int odeint_no_retry(struct integ *it, double tol)
{
	(void)it;
	(void)tol;
	return -1;
}

int odeint_fail(const struct integ *it, int st, double t, long step, double h, char *msg,
		size_t n)
{
	const struct odeint *O = it->mem;
	if (!O->detail || !O->detail[0])
		return -1;
	/* the formulation (rp, tree) says what failed */
	snprintf(msg, n, "%s at t = %.9g (step %ld, h = %g): %s; %s",
		 st == INTEG_SINGULAR ? "no valid coordinate partition" :
		 st == INTEG_STEP_TOO_SMALL ? "step control failed" : "state-space step failed",
		 t, step, h, O->detail,
		 st == INTEG_SINGULAR ? "a singular position of the mechanism, or constraints "
					"that lose rank: an index-3 scheme (lms2, esdirk436l2sa2) "
					"steps through it" :
		 "reduce integrator.step or loosen integrator.atol/rtol");
	return 0;
}

const struct integ_stat_key odeint_keys[] = { ODEINT_KEYS, { 0, 0 } };

int odeint_stats(const struct integ *it, const struct sim_options *o, double *v)
{
	(void)o;
	const struct odeint *O = it->mem;
	v[0] = (double)O->nrhs;
	v[1] = (double)O->njac;
	v[2] = (double)O->njac_analytic;
	v[3] = O->sys->renewals ? (double)O->sys->renewals(O->sys->ctx) : 0.0;
	return ODEINT_STATS;
}

void odeint_notes(const struct integ *it, const struct sim_options *o, const double *v,
		  char *buf, size_t n)
{
	(void)it;
	(void)o;
	if (v[1] > 0)	/* rn4, w2: where J1, J2 came from */
		snprintf(buf, n, "%.0f Jacobian evaluations, %.0f analytic, %.0f by differences "
			 "of f\n", v[1], v[2], v[1] - v[2]);
}
