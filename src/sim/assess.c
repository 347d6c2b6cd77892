/* assess.c - the global error assessment of an adaptive run (assess.h). */
#include "assess.h"
#include "../form/ra.h"
#include "../util/diag.h"
#include "../util/xalloc.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The rows kept at most: ASSESS_BYTES of samples, and at least 64. */
static long max_rows(int nb)
{
	long m = (long)(ASSESS_BYTES / (48.0 * nb));
	return m < 64 ? 64 : m;
}

void assess_record(struct assess *as, const struct ra *s, const struct ra_state *x)
{
	size_t w = 6 * (size_t)s->nb;
	if (as->stride == 0)
		as->stride = 1;
	/* the newest sample waits in row n; it stays when its number falls
	 * on the stride, else the next overwrites it (the run's last is
	 * kept either way, assess_run) */
	if (as->pending && as->seen % as->stride == 0)
		as->n++;
	as->seen += as->pending;
	if (as->n + 1 > max_rows(s->nb)) {
		/* full: every second row goes, and every second sample from now */
		for (long i = 0; 2 * i < as->n; i++) {
			as->t[i] = as->t[2 * i];
			memmove(as->s + (size_t)i * w, as->s + (size_t)(2 * i) * w, w * sizeof(double));
		}
		as->n = (as->n + 1) / 2;
		as->stride *= 2;
	}
	if (as->n + 1 > as->cap) {
		as->cap = as->cap ? 2 * as->cap : 256;
		as->t = xrealloc(as->t, (size_t)as->cap * sizeof(double));
		as->s = xrealloc(as->s, (size_t)as->cap * w * sizeof(double));
	}
	as->nb = s->nb;
	as->t[as->n] = x->t;
	double *row = as->s + (size_t)as->n * w;
	memcpy(row, x->r, 3 * (size_t)s->nb * sizeof(double));
	memcpy(row + 3 * s->nb, x->v, 3 * (size_t)s->nb * sizeof(double));
	as->pending = 1;
	for (int i = 0; i < 3 * s->nb; i++)
		as->ymax = fmax(as->ymax, fabs(x->r[i]));
}

void assess_compare(void *ctx, const struct ra *s, const struct ra_state *x)
{
	struct assess *as = ctx;
	/* the second run steps onto the recorded times (output.times) */
	double eps = 1e-12 * fmax(1.0, fabs(x->t));
	while (as->j < as->n && as->t[as->j] < x->t - eps)
		as->j++;
	if (as->j == as->n || fabs(as->t[as->j] - x->t) > eps || s->nb != as->nb)
		return;
	const double *row = as->s + (size_t)as->j * 6 * (size_t)as->nb;
	for (int i = 0; i < 3 * s->nb; i++) {
		double dp = fabs(x->r[i] - row[i]), dv = fabs(x->v[i] - row[3 * s->nb + i]);
		if (dp > as->dpos) {
			as->dpos = dp;
			as->tpos = x->t;
			as->bpos = i / 3;
		}
		as->dvel = fmax(as->dvel, dv);
	}
	as->j++;
	as->met++;
}

void assess_release(struct assess *as)
{
	free(as->t);
	free(as->s);
	memset(as, 0, sizeof(*as));
}

static void add_warning(struct sim_result *r, const char *w)
{
	size_t len = strlen(r->warning);
	snprintf(r->warning + len, sizeof r->warning - len, "%s%s", len ? "; " : "", w);
}

void assess_not_restart(struct sim_result *r)
{
	add_warning(r, "the global error of a restarted run is not assessed "
		    "(integrator.assess_error): the run before the restart is not at hand");
}

void assess_run(const struct sim_args *a, struct assess *as, struct sim_result *r)
{
	const struct sim_options *o = a->o;
	struct sim_options o2 = *o;
	as->n += as->pending;	/* the run's last sample */
	as->pending = 0;
	o2.atol = o->atol / 10;
	o2.rtol = o->rtol / 10;
	/* a tenth of the Newton tolerance too, but not into the round-off
	 * of the solves (where item 1 of issue 37 saw steps collapse) */
	o2.tolerance = fmin(o->tolerance, fmax(o->tolerance / 10, 1e-13));
	o2.assess_error = 0;
	o2.times = as->t;
	o2.ntimes = as->n;
	struct sim_args a2 = { .m = a->m, .o = &o2, .stop = a->stop,
			       .on_sample = assess_compare, .on_sample_ctx = as };
	struct sim_result *r2 = xmalloc(sizeof(*r2));
	struct diag d;
	diag_init(&d);
	enum sim_status st = sim_run(&a2, r2, &d);
	r->gerr_wall = r2->wall;
	char w[sizeof r->warning];
	if (st != SIM_COMPLETE || as->met < as->n) {
		snprintf(w, sizeof w, "the global error was not assessed: the run at a tenth of "
			 "atol and rtol %s", st != SIM_COMPLETE ? "failed: " : "did not reach every "
			 "sample");
		if (st != SIM_COMPLETE)
			snprintf(w + strlen(w), sizeof w - strlen(w), "%.300s",
				 r2->message[0] ? r2->message : d.nerr ? d.rec[0].msg : "");
		add_warning(r, w);
	} else {
		r->gerr_done = 1;
		r->gerr_pos = as->dpos;
		r->gerr_vel = as->dvel;
		r->gerr_t = as->tpos;
		r->gerr_factor = as->dpos / (o->atol + o->rtol * as->ymax);
		r->gerr_scale = as->ymax;
		snprintf(r->gerr_body, sizeof r->gerr_body, "%s", a->m->bodies[as->bpos].name);
		if (r->gerr_factor > ASSESS_WARN) {
			snprintf(w, sizeof w, "the global error estimate %.2g m (body '%s' at t = "
				 "%.9g) is %.3g times atol + rtol Y (Y = %.3g m): the run is beyond "
				 "its tolerance; tighten integrator.atol and rtol", r->gerr_pos,
				 r->gerr_body, r->gerr_t, r->gerr_factor, as->ymax);
			add_warning(r, w);
		}
	}
	diag_release(&d);
	free(r2);
}
