/* integ.c - the stepper shell: what every integration family shares
 * (set-up of the saddle-point solver and scratch, the checks of a scheme
 * against the model) and the calls into the family through the ops of its
 * registry row.  No family is named here: a new one is its own file and
 * its registry rows. */
#include "integ.h"
#include "../form/ra_contact.h"
#include "../model/contact.h"
#include "../util/ckpt.h"
#include "../util/xalloc.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static enum kkt_mode solver_mode(const char *name)
{
	if (strcmp(name, "umfpack") == 0)
		return KKT_FULL;
	return KKT_AUTO;	/* "auto" and "schur" */
}

/* The names of the registry rows whose family passes want(), ", "
 * between them, into buf. */
static void scheme_list(int (*want)(const struct integ_info *), char *buf, size_t n)
{
	size_t len = 0;
	buf[0] = 0;
	for (int i = 0; i < INTEG_COUNT && len < n; i++)
		if (want(&integ_table[i]))
			len += (size_t)snprintf(buf + len, n - len, "%s%s", len ? ", " : "",
						integ_table[i].name);
}

static int steps_beams(const struct integ_info *info)
{
	return info->ops->beams;
}

static int has_index2(const struct integ_info *info)
{
	return info->order2 > 0;
}

int integ_check_beams(const struct model *m, const struct integ_info *info,
		      const struct sim_options *o, struct diag *d)
{
	if (m->nbeams == 0 || !info)
		return 0;
	if (!steps_beams(info)) {
		/* the beams' coupling blocks reach the Newton matrix of the
		 * families that say so (ops->beams) only */
		char list[512];
		scheme_list(steps_beams, list, sizeof list);
		diag_error(d, &m->beams[0].pos, "%sintegrator '%s' cannot step beam '%s': beams "
			   "take the schemes %s only%s", o->method_pos.line ? "" : "no "
			   "integrator.method given: the default ", info->name, m->beams[0].name,
			   list, o->method_pos.line ? "" : "; mbsim static and modes (but for modes "
			   "--at) need none");
		return -1;
	}
	if (strcmp(o->linear_solver, "schur") == 0) {
		diag_error(d, &m->beams[0].pos, "beam '%s' couples its nodes in the Newton "
			   "matrix: integrator.linear_solver schur needs it block diagonal; use "
			   "auto or umfpack", m->beams[0].name);
		return -1;
	}
	return 0;
}

static int steps_nonsmooth(const struct integ_info *info)
{
	return info->ops->nonsmooth;
}

int integ_check_contact(const struct model *m, const struct integ_info *info,
			const struct sim_options *o, struct diag *d)
{
	const struct model_contact *mc = m->contact;
	if (mc && info && mc->model == CONTACT_SMOOTH && !o->adaptive && info->ops->own_steps) {
		/* without adaptive, one step of these is many internal steps of
		 * SUNDIALS, and the contacts' state (onset speed, friction
		 * anchors) is kept only at the step's end: an impact shorter than
		 * the step was damped from its slowing speed (a ball with e = 0.8
		 * came back with 0.58 under step 1e-3) */
		diag_error(d, o->method_pos.line ? &o->method_pos : NULL,
			   "integrator '%s' steps the smooth contact model with "
			   "integrator.adaptive: true only (the contacts' state is kept "
			   "after each of its internal steps then)", info->name);
		return -1;
	}
	if (mc && info && ra_contact_check(m, o->adaptive, o->step, d))
		return -1;
	if (!mc || mc->model != CONTACT_NONSMOOTH || !info || steps_nonsmooth(info))
		return 0;
	/* impulses need a scheme that solves for them: the others would
	 * step through the bodies (ops->nonsmooth) */
	char list[512];
	scheme_list(steps_nonsmooth, list, sizeof list);
	diag_error(d, o->method_pos.line ? &o->method_pos : mc->nmat ? &mc->mat[0].pos : NULL,
		   "%sintegrator '%s' cannot step the "
		   "nonsmooth contact model (contact.model: nonsmooth): it takes the schemes %s "
		   "only; the smooth model takes every scheme", o->method_pos.line ? "" :
		   "no integrator.method given: the default ", info->name, list);
	return -1;
}

int integ_chooses_steps(const struct integ_info *info, const struct sim_options *o)
{
	return o->adaptive || (info && info->ops->own_steps);
}

int integ_check(const struct model *m, const struct integ_info *info,
		const struct sim_options *o, struct diag *d)
{
	if (integ_check_beams(m, info, o, d) || integ_check_contact(m, info, o, d))
		return -1;
	if (info && o->index == 2 && !has_index2(info)) {
		/* at the key, so that check refuses what run would stop at */
		char list[512];
		scheme_list(has_index2, list, sizeof list);
		diag_error(d, o->index_pos.line ? &o->index_pos : NULL, "integrator '%s' has no "
			   "index-2 formulation: integrator.index: 2 needs one of the schemes %s",
			   info->name, list);
		if (o->method_pos.line)
			diag_note(d, &o->method_pos, "integrator '%s' given here", info->name);
		return -1;
	}
	return 0;
}

struct kkt *integ_kkt_new(const struct ra *sys, const struct sim_options *o)
{
	struct kkt *k = kkt_new_pairs(sys->nb, sys->nc, sys->bi, sys->bj,
				      solver_mode(o->linear_solver), sys->npair, sys->pairs);
	kkt_set_rows(k, sys->jo);
	return k;
}

struct integ *integ_new_on(const struct integ_info *info, struct ra *sys, struct kkt *kkt,
			   struct ode_sys *ode, int cap, const struct sim_options *o,
			   struct diag *d)
{
	if (integ_check(sys->m, info, o, d)) {
		kkt_free(&kkt);
		return NULL;
	}
	struct integ *it = xcalloc(1, sizeof(*it));
	int ng = sys->ng, nc = sys->nc;
	it->info = info;
	it->ops = info->ops;
	it->sys = sys;
	it->kkt = kkt;
	it->ode = ode;
	it->ode_cap = cap;
	it->tol = o->tolerance;
	it->maxit = o->max_iterations;
	it->W = xcalloc((size_t)sys->nb * 18 + 1, sizeof(double));
	it->g = xcalloc((size_t)ng + (size_t)nc + 1, sizeof(double));	/* (g, lambda) packed */
	it->dg = xcalloc((size_t)ng + 1, sizeof(double));
	it->F = xcalloc((size_t)ng + 1, sizeof(double));
	/* rhs may receive a multiplier correction (nc): a model with
	 * redundant constraints can have more rows than coordinates */
	it->rhs = xcalloc((size_t)(ng > nc ? ng : nc) + 1, sizeof(double));
	it->dl = xcalloc((size_t)nc + 1, sizeof(double));
	it->dl2 = xcalloc((size_t)nc + 1, sizeof(double));
	it->lam = xcalloc((size_t)nc + 1, sizeof(double));
	it->bad_row = -1;
	it->eom_body = -1;
	it->h_next = o->step;
	if (it->ops->init && it->ops->init(it, o, d)) {
		integ_free(&it);
		return NULL;
	}
	return it;
}

struct integ *integ_new(const struct integ_info *info, struct ra *sys,
			const struct sim_options *o, struct diag *d)
{
	return integ_new_on(info, sys, integ_kkt_new(sys, o), NULL, 0, o, d);
}

void integ_free(struct integ **pit)
{
	struct integ *it = *pit;
	if (!it)
		return;
	if (it->ops->free)
		it->ops->free(it);
	kkt_free(&it->kkt);
	free(it->W);
	free(it->g);
	free(it->dg);
	free(it->F);
	free(it->rhs);
	free(it->dl);
	free(it->dl2);
	free(it->lam);
	free(it->hist.v);
	free(it);
	*pit = NULL;
}

void integ_ckpt(struct integ *it, struct ckpt *c)
{
	struct integ_hist *H = &it->hist;
	ckpt_d(c, &it->h_next, 1);
	ckpt_l(c, &it->total_iters, 1);
	ckpt_l(c, &it->steps, 1);
	ckpt_l(c, &it->factorizations, 1);
	ckpt_l(c, &it->rejected, 1);
	ckpt_i(c, &it->iters, 1);
	/* the predictor: its rows, where the newest is and the degree chosen */
	ckpt_i(c, &H->rows, 1);
	ckpt_i(c, &H->head, 1);
	ckpt_i(c, &H->q, 1);
	ckpt_d(c, &H->t, 1);
	ckpt_d(c, &H->h, 1);
	ckpt_d(c, H->v, (long)H->cap * H->n);
	if (it->ops->ckpt)
		it->ops->ckpt(it, c);
}

int integ_accel(struct integ *it, struct ra_state *x)
{
	return it->ops->accel ? it->ops->accel(it, x) : integ_accel_index1(it, x);
}

int integ_begin(struct integ *it, const struct ra_state *x)
{
	return it->ops->begin ? it->ops->begin(it, x) : INTEG_OK;
}

void integ_drop_rows(struct integ *it, const int *rows, int n)
{
	if (n == 0)
		return;
	kkt_fix_dropped(it->kkt, rows, n);
	if (it->ops->fix_redundant)
		it->ops->fix_redundant(it, rows, n);
}

int integ_fix_redundant(struct integ *it, int *rows)
{
	int n = kkt_dropped(it->kkt, rows);
	integ_drop_rows(it, rows, n);
	return n;
}

int integ_singular_retry(struct integ *it, int on)
{
	double tol = on ? INTEG_SINGULAR_TOL * pow(100.0, on - 1) : 0.0;
	if (it->ops->singular_tol)
		return it->ops->singular_tol(it, tol);
	return kkt_set_singular_tol(it->kkt, tol) ? -1 : 0;
}

int integ_step(struct integ *it, double h, struct ra_state *x, struct ra_state *y)
{
	return it->ops->step(it, h, x, y);
}

int integ_fail(const struct integ *it, int st, double t, long step, double h, char *msg,
	       size_t n)
{
	return it->ops->fail ? it->ops->fail(it, st, t, step, h, msg, n) : -1;
}

const struct integ_contact *integ_contacts(const struct integ *it, size_t *n)
{
	*n = 0;
	return it && it->ops->contacts ? it->ops->contacts(it, n) : NULL;
}

double integ_sample(struct integ *it)
{
	return it->ops->sample ? it->ops->sample(it) : NAN;
}

int integ_stats(const struct integ *it, const struct sim_options *o, double *v)
{
	return it->ops->stats ? it->ops->stats(it, o, v) : 0;
}
