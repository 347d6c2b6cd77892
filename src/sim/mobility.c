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
	double *W = xcalloc((size_t)nb * 18 + 1, sizeof(double));
	double *b = xcalloc((size_t)nc + 1, sizeof(double));
	double *mu = xcalloc((size_t)nc + 1, sizeof(double));
	double *dq = xcalloc((size_t)6 * nb + 1, sizeof(double));
	for (int q = 0; q < nb; q++) {
		W[18 * q] = W[18 * q + 4] = W[18 * q + 8] = s->mass[q];
		memcpy(W + 18 * q + 9, ra_inertia(s, q), 9 * sizeof(double));
	}
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

int mobility_refuse_drivers(const struct model *m, const int *rows, int n, struct diag *d)
{
	int bad = 0;
	for (int i = 0; i < n; i++) {
		int dv = model_row_driver(m, rows[i]);
		if (dv < 0)
			continue;
		const struct driver *dr = &m->drivers[dv];
		diag_error(d, &dr->pos, "driver '%s' prescribes a motion of joint '%s' that the "
			   "joints and the other drivers already fix at the assembled initial "
			   "configuration (its constraint row depends on theirs): remove it, or "
			   "drive a coordinate the mechanism is free to move", dr->name,
			   m->joints[dr->joint].name);
		bad++;
	}
	return bad;
}

void mobility_release(struct mobility *mo)
{
	free(mo->dependent);
	mo->dependent = NULL;
}
