/* mobility.c - rank of Phi_q at the initial configuration (mobility.h). */
#include "mobility.h"
#include "assemble.h"
#include "../form/ra.h"
#include "../la/kkt.h"
#include "../model/model.h"
#include "../util/diag.h"
#include "../util/xalloc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The mass blocks of s as the saddle-point solver takes them (kkt.h). */
static double *mass_blocks(const struct ra *s)
{
	double *W = xcalloc((size_t)s->nb * 18 + 1, sizeof(double));
	ra_mass_blocks(s, W);
	return W;
}

/* The rank of s->jac (evaluated) with driver dv's rows zeroed, which the
 * factorization then drops as dependent: the rank of the other rows (dv
 * < 0: of all rows, jac unused).  -1 when the factorization fails (the
 * rank is unknown). */
static int rank_without_driver(const struct ra *s, const double *W, int dv, double *jac,
			       size_t njac)
{
	const struct model *m = s->m;
	if (dv < 0)
		jac = s->jac;
	else
		memcpy(jac, s->jac, njac * sizeof(double));
	for (int k = 0; dv >= 0 && k < s->nc; k++) {
		if (model_row_driver(m, k) != dv)
			continue;
		/* the blocks the solver reads (ra.h: a row whose side i is
		 * ground keeps the second six only) */
		if (s->bi[k] >= 0)
			memset(jac + s->jo[k], 0, 6 * sizeof(double));
		if (s->bj[k] >= 0)
			memset(jac + s->jo[k] + 6, 0, 6 * sizeof(double));
	}
	struct kkt *k = kkt_new(s->nb, s->nc, s->bi, s->bj, KKT_AUTO);
	kkt_set_rows(k, s->jo);
	int rank = kkt_factor(k, W, jac) == 0 ? s->nc - kkt_dropped(k, NULL) : -1;
	kkt_free(&k);
	return rank;
}

/* Issue 27, finding 10: which rows a pivoted factorization drops among a
 * dependent set is its own choice, and it may keep a driver's row and
 * drop a joint's (a driver on a pin of a rigid triangle).  A driver is
 * dependent when the rank of the other rows is the rank of all: then it
 * prescribes what they already fix.  s->jac evaluated, rank that of all
 * rows; the dependent drivers' indices into out (ndrivers), their count. */
static int dependent_drivers(const struct ra *s, const double *W, int rank, int *out)
{
	const struct model *m = s->m;
	if (rank < 0 || rank == s->nc || m->ndrivers == 0)
		return 0;
	size_t njac = 0;
	for (int k = 0; k < s->nc; k++)
		if ((size_t)s->jo[k] + 12 > njac)
			njac = (size_t)s->jo[k] + 12;
	double *jac = xmalloc((njac + 1) * sizeof(double));
	int n = 0;
	for (int dv = 0; dv < m->ndrivers; dv++)
		if (rank_without_driver(s, W, dv, jac, njac) == rank)
			out[n++] = dv;
	free(jac);
	return n;
}

int mobility_compute(const struct model *m, double t0, struct mobility *mo)
{
	memset(mo, 0, sizeof *mo);
	struct ra *s = ra_new(m);
	struct ra_state x;
	int nb = s->nb, nc = s->nc, rc = -1, arg;
	/* a particle's inert rotation (model.h) is no freedom: its three
	 * columns of the Jacobian are zero, so they add nothing to the rank */
	mo->ncoord = model_nq(m);
	mo->nrows = nc;
	mo->grubler = mo->ncoord - nc;
	mo->rank = -1;
	ra_state_init(s, &x);
	ra_state_from_model(s, &x, t0);
	struct kkt *k = kkt_new(nb, nc, s->bi, s->bj, KKT_AUTO);
	kkt_set_rows(k, s->jo);	/* ra's rows: 6 values when side i is ground */
	double *W = mass_blocks(s);
	double *b = xcalloc((size_t)nc + 1, sizeof(double));
	double *mu = xcalloc((size_t)nc + 1, sizeof(double));
	double *dq = xcalloc((size_t)6 * nb + 1, sizeof(double));
	if (nc == 0) {
		mo->rank = 0;
		mo->mobility = mo->ncoord;
		rc = 0;
		goto out;
	}
	/* the rank off the constraint manifold can differ from the rank on
	 * it (Bricard's mechanism has full rank off it): assemble first */
	for (int it = 0;; it++) {
		ra_eval(s, &x, t0, PRIM_PHI | PRIM_JAC);
		if (assemble_factor(k, W, s, "the constraint Jacobian", mo->why, sizeof mo->why))
			goto out;
		if (assemble_maxabs(s->phi, nc, &arg) < 1e-10)
			break;
		if (it == 50) {
			snprintf(mo->why, sizeof mo->why,
				 "the initial configuration does not assemble in 50 Newton iterations");
			goto out;
		}
		assemble_newton_step(s, k, &x, b, dq, mu);
	}
	mo->dependent = xmalloc(((size_t)nc + 1) * sizeof(int));
	mo->rank = nc - kkt_dropped(k, mo->dependent);
	mo->mobility = mo->ncoord - mo->rank;
	mo->drivers = xmalloc(((size_t)m->ndrivers + 1) * sizeof(int));
	mo->ndrivers = dependent_drivers(s, W, mo->rank, mo->drivers);
	rc = 0;
out:
	free(W);
	free(b);
	free(mu);
	free(dq);
	kkt_free(&k);
	ra_state_release(&x);
	ra_free(&s);
	return rc;
}

static void refuse_driver(const struct model *m, int dv, struct diag *d)
{
	const struct driver *dr = &m->drivers[dv];
	diag_error(d, &dr->pos, "driver '%s' prescribes a motion of joint '%s' that the "
		   "joints and the other drivers already fix at the assembled initial "
		   "configuration (its constraint rows add nothing to the rank of theirs): "
		   "remove it, or drive a coordinate the mechanism is free to move", dr->name,
		   m->joints[dr->joint].name);
}

int mobility_refuse_drivers(const struct model *m, const struct mobility *mo, struct diag *d)
{
	for (int i = 0; i < mo->ndrivers; i++)
		refuse_driver(m, mo->drivers[i], d);
	return mo->ndrivers;
}

int mobility_refuse_drivers_at(const struct model *m, const struct ra_state *x, struct diag *d)
{
	if (m->ndrivers == 0)
		return 0;
	struct ra *s = ra_new(m);
	double *W = mass_blocks(s);
	int *out = xmalloc(((size_t)m->ndrivers + 1) * sizeof(int)), n = 0;
	ra_eval(s, x, x->t, PRIM_JAC);
	int rank = rank_without_driver(s, W, -1, NULL, 0);
	n = dependent_drivers(s, W, rank, out);
	for (int i = 0; i < n; i++)
		refuse_driver(m, out[i], d);
	free(out);
	free(W);
	ra_free(&s);
	return n;
}

void mobility_release(struct mobility *mo)
{
	free(mo->dependent);
	free(mo->drivers);
	mo->dependent = NULL;
	mo->drivers = NULL;
}
