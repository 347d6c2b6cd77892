/* odeint.c - what the ODE schemes share (odeint.h): the formulation they
 * step, the accepted state, the start from a body state, the coordinate
 * check after each step. */
#include "odeint.h"
#include "../form/ode_ctrl.h"
#include "../form/rp.h"
#include "../form/tree.h"
#include "../util/xalloc.h"

#include <math.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

struct odeint *odeint_new(struct ode_sys *sys, const struct sim_options *o)
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
	if (sys && sys->n > 0) {
		O->n = sys->n;
		size_t n = (size_t)sys->n + 1;
		O->y = xcalloc(n, sizeof(double));
		O->yd = xcalloc(n, sizeof(double));
		O->ydd = xcalloc(n, sizeof(double));
	}
	return O;
}

/* The formulation's system, or the one with the model's integral states
 * around it (form/ode_ctrl.h); *c the wrapper or NULL. */
static struct ode_sys *with_ctrl(struct integ *it, struct ode_sys *sys, struct ode_ctrl **c)
{
	*c = ode_ctrl_new(it->sys, sys);
	return *c ? ode_ctrl_sys(*c) : sys;
}

int odeint_init(struct integ *it, const struct sim_options *o, struct diag *d)
{
	struct ode_ctrl *c;
	if (o->formulation == FORM_TREE || strcmp(it->info->formulation, "tree") == 0) {
		struct tree *T = tree_new(it->sys, d);
		if (!T)
			return -1;
		struct odeint *O = odeint_new(with_ctrl(it, tree_ode(T), &c), o);
		O->tree = T;
		O->ctrl = c;
		if (!O->y) {	/* no coordinates (fixed joints only): room for one */
			O->y = xcalloc(1, sizeof(double));
			O->yd = xcalloc(1, sizeof(double));
			O->ydd = xcalloc(1, sizeof(double));
		}
		it->ode = O;
		return 0;
	}
	struct rp *p = rp_new(it->sys, it->kkt, o->tolerance, o->max_iterations);
	struct odeint *O = odeint_new(with_ctrl(it, rp_ode(p), &c), o);
	O->rp = p;
	O->ctrl = c;
	/* the coordinates: at most nq, known at the start, and the
	 * integral states */
	size_t n = (size_t)rp_ncoords(p) + (size_t)ode_ctrl_count(c) + 1;
	free(O->y);
	free(O->yd);
	free(O->ydd);
	O->y = xcalloc(n, sizeof(double));
	O->yd = xcalloc(n, sizeof(double));
	O->ydd = xcalloc(n, sizeof(double));
	it->ode = O;
	return 0;
}

void odeint_free(struct odeint **pO)
{
	struct odeint *O = *pO;
	if (!O)
		return;
	ros_free(O);
	adams_free(O);
	bdf_free(O);
	ode_ctrl_free(&O->ctrl);
	rp_free(&O->rp);
	tree_free(&O->tree);
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

int odeint_begin(struct integ *it, struct odeint *O, const struct ra_state *x)
{
	if (O->started && O->t == x->t)
		return INTEG_OK;
	int st = O->sys->start(O->sys->ctx, x, O->y, O->yd, O->ydd);
	O->nrhs++;
	it->detail = O->sys->why(O->sys->ctx);
	if (st)
		return odeint_status(st);
	O->n = O->sys->n;
	O->t = x->t;
	O->started = 1;
	O->restart = 1;
	return INTEG_OK;
}

int odeint_end(struct integ *it, struct odeint *O, struct ra_state *out)
{
	struct ode_sys *S = O->sys;
	int c = S->accept(S->ctx, O->t, O->y, O->yd);
	if (c < 0) {
		it->detail = S->why(S->ctx);
		return odeint_status(-c);
	}
	if (c > 0) {
		/* new coordinates: f in them, and the schemes start afresh */
		int st = odeint_rhs(O, O->t, O->y, O->yd, O->ydd);
		if (st) {
			it->detail = S->why(S->ctx);
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

int odeint_step(struct integ *it, double h, struct ra_state *x, struct ra_state *y)
{
	struct odeint *O = it->ode;
	int st = odeint_begin(it, O, x), adams = it->info->id == INTEG_ADAMS;
	if (st)
		return st;
	long f0 = O->nrhs;
	double t1 = x->t, hn = h;
	/* bdf ends with the formulation's residual at the state reached,
	 * which holds its body state */
	st = it->info->id == INTEG_BDF ? bdf_step_ode(O, h, &t1, &hn) :
	     adams ? adams_step_ode(O, h, &t1, &hn) : ros_step_ode(O, it->info->id, h, &t1, &hn);
	/* rn4, w2 end with f at the state reached (the next step's first
	 * stage); adams evaluates it here, for that state's body state */
	if (st == INTEG_OK && adams)
		st = odeint_rhs(O, O->t, O->y, O->yd, O->ydd);
	it->iters = (int)(O->nrhs - f0);
	it->rejected = O->rejected;
	if (st) {
		it->detail = odeint_why(O);
		return st;
	}
	it->h_next = hn;
	it->steps++;
	it->total_iters += it->iters;
	y->t = t1;
	return odeint_end(it, O, y);
}
