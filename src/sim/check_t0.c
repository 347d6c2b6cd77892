/* check_t0.c - see check_t0.h */
#include "check_t0.h"
#include "../elem/elem.h"
#include "../form/ra.h"
#include "../model/sexpr.h"

#include <math.h>

int sim_check_t0(const struct model *m, double t0, struct diag *d)
{
	int bad = 0;
	for (int i = 0; i < m->nforces && !bad; i++)
		bad = (elem_props(&m->forces[i]) & ELEM_STATE_EXPR) != 0;
	if (!bad)
		return 0;	/* no expression: no formulation to make */
	bad = 0;
	struct ra *s = ra_new(m);
	struct ra_state x;
	ra_state_init(s, &x);
	ra_state_from_model(s, &x, t0);
	for (int i = 0; i < m->nforces; i++) {
		const struct force *f = &m->forces[i];
		if (!(elem_props(f) & ELEM_STATE_EXPR))
			continue;
		double v = ra_sexpr(s, &x, t0, f->ex);
		if (isfinite(v))
			continue;
		diag_error(d, &f->pos, "expression '%s' of force '%s' is %g at t = %g, in the "
			   "initial state of the deck", f->ex->text, f->name, v, t0);
		bad++;
	}
	ra_state_release(&x);
	ra_free(&s);
	return bad;
}
