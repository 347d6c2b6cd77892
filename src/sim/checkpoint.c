/* checkpoint.c - the restart checkpoint (sim_impl.h; man mbsim-output(5),
 * CHECKPOINT; man mbsim-run(1), --restart).
 *
 * Everything a step depends on, as one flat row of doubles written with
 * the samples at each flush of the output file (and at the end), so that
 * a killed run continues from its last flush: the header (SIM_CK_HEAD
 * values), the loop's position (steps, clock, the sampling), the rows
 * dropped as redundant, the body state the loop continues from, the
 * elements' continuous states and the coupling joints' references, the
 * monitors (work integrals, unwrapped joint angles), then the scheme's
 * (integ_ckpt: step control, predictor, the family's memory).  One walk
 * (util/ckpt.h) saves and loads it, so the two cannot disagree.
 */
#include "sim_impl.h"
#include "../form/ode.h"
#include "../util/ckpt.h"
#include "../util/xalloc.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

unsigned long sim_ckpt_scheme_id(const char *name)
{
	unsigned long h = 2166136261UL;
	for (const unsigned char *p = (const unsigned char *)name; *p; p++)
		h = ((h ^ *p) * 16777619UL) & 0xffffffffUL;
	return h;
}

/* The header: layout version, the model's hash (two 32-bit halves), the
 * scheme, the row's length, the time, the steps, 1 when the scheme comes
 * back bit for bit. */
static void header(struct run *R, double *v)
{
	unsigned long long h = model_structure_hash(R->a->m);
	v[SIM_CK_VERSION] = SIM_CK_LAYOUT;
	v[SIM_CK_HASH_HI] = (double)(h >> 32);
	v[SIM_CK_HASH_LO] = (double)(h & 0xffffffffULL);
	v[SIM_CK_SCHEME] = (double)sim_ckpt_scheme_id(R->a->o->method);
	v[SIM_CK_SIZE] = (double)R->ck_n;
	v[SIM_CK_TIME] = R->ck_x ? R->ck_x->t : NAN;
	v[SIM_CK_STEPS] = (double)R->ck_steps;
	/* an ODE scheme on a formulation without a state walk (tree)
	 * restarts from the body state: within its error */
	v[SIM_CK_EXACT] = !R->it->ops->ckpt_inexact && (!R->it->ode || R->it->ode->ckpt);
}

static void walk_balance(struct balance *b, struct ckpt *c)
{
	ckpt_i(c, &b->started, 1);
	ckpt_d(c, &b->t_prev, 1);
	ckpt_d(c, b->P_prev, 3);
	ckpt_d(c, b->work, 3);
	ckpt_d(c, &b->abs_work, 1);
	ckpt_i(c, &b->sampled, 1);
	ckpt_d(c, &b->kmax, 1);
	ckpt_d(c, &b->vmin, 1);
	ckpt_d(c, &b->vmax, 1);
	ckpt_d(c, &b->mag, 1);
}

/* All but the header and the scheme's part. */
static void walk_run(struct run *R, struct ra_state *x, struct clock *k, struct ckpt *c)
{
	struct ra *s = R->sys;
	const struct model *m = s->m;
	ckpt_d(c, &R->h_last, 1);
	ckpt_i(c, &R->ck_xw, 1);
	ckpt_l(c, &k->j, 1);
	ckpt_d(c, &k->a, 1);
	ckpt_d(c, &k->b, 1);
	ckpt_d(c, &k->d, 1);
	ckpt_l(c, &k->n, 1);
	ckpt_l(c, &k->i, 1);
	ckpt_d(c, &R->smp.t_w, 1);
	ckpt_i(c, &R->nred, 1);
	ckpt_i(c, R->red_rows, s->nc);
	ra_state_ckpt(s, x, c);
	if (s->fst)
		ckpt_d(c, s->fst, (long)RA_FST * m->nforces);
	if (s->cref) {
		ckpt_d(c, s->cref, (long)JOINT_CPL_MAX * m->njoints);
		ckpt_d(c, s->crate, (long)JOINT_CPL_MAX * m->njoints);
		ckpt_d(c, &s->ct, 1);
	}
	struct monitor *mo = &R->mo;
	walk_balance(&mo->bal, c);
	ckpt_d(c, &mo->total0, 1);
	ckpt_i(c, &mo->first, 1);
	ckpt_d(c, mo->coord, m->njoints);
	ckpt_d(c, mo->coord_raw, m->njoints);
	ckpt_d(c, mo->turn, m->njoints);
	ckpt_d(c, mo->wraps, m->njoints);
	ckpt_d(c, &R->r->max_abs_drift, 1);
}

void sim_ckpt_open(struct run *R)
{
	struct ra_state x;
	struct clock k;
	memset(&x, 0, sizeof x);
	memset(&k, 0, sizeof k);
	ra_state_init(R->sys, &x);
	struct ckpt c = { 0, NULL, SIM_CK_HEAD, 0, 0 };
	walk_run(R, &x, &k, &c);
	integ_ckpt(R->it, &c);
	ra_state_release(&x);
	R->ck_n = c.n;
	R->ck_v = xcalloc((size_t)c.n, sizeof(double));
	R->ck_t = NAN;
	if (R->out)
		output_ckpt_open(R->out, R->ck_n);
}

void sim_ckpt_append(struct run *R)
{
	if (!R->out || !R->ck_v || !R->ck_x || R->ck_x->t == R->ck_t)
		return;
	header(R, R->ck_v);
	struct ckpt c = { 0, R->ck_v, SIM_CK_HEAD, R->ck_n, 0 };
	walk_run(R, R->ck_x, R->ck_clock, &c);
	integ_ckpt(R->it, &c);
	output_ckpt_row(R->out, R->ck_x->t, R->ck_v);
	R->ck_t = R->ck_x->t;
}

int sim_ckpt_load(struct run *R, struct ra_state *x, struct clock *k)
{
	const struct sim_args *a = R->a;
	const double *v = a->restart;
	char *msg = R->r->message;
	size_t mn = sizeof R->r->message;
	if (a->nrestart != R->ck_n || v[SIM_CK_SIZE] != (double)R->ck_n) {
		snprintf(msg, mn, "the checkpoint of '%s' holds %ld values where this run keeps "
			 "%ld: it was written with other settings of the scheme (integrator.*: "
			 "predictor, index, variant) or another version of mbsim",
			 a->restart_file, a->nrestart, R->ck_n);
		return -1;
	}
	struct ckpt c = { 1, (double *)v, SIM_CK_HEAD, a->nrestart, 0 };
	walk_run(R, x, k, &c);
	/* the scheme starts at the restart's state as at a run's start
	 * (its formulation, its first factorization), then takes its memory */
	struct ra_state xa;
	memset(&xa, 0, sizeof xa);
	ra_state_init(R->sys, &xa);
	ra_state_copy(R->sys, &xa, x);
	int st = integ_accel(R->it, &xa);
	ra_state_release(&xa);
	if (st) {
		sim_fail_message(R->it, st, x->t, 0, a->o->step, msg, mn);
		return -1;
	}
	integ_ckpt(R->it, &c);
	if (c.bad || c.n != a->nrestart) {
		snprintf(msg, mn, "the checkpoint of '%s' is damaged (%ld of %ld values read)",
			 a->restart_file, c.n, a->nrestart);
		return -1;
	}
	R->k0 = (long)v[SIM_CK_STEPS];
	R->restarted = 1;
	return 0;
}
