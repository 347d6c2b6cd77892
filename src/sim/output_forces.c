/* output_forces.c - the /forces and /measures groups of the output
 * (man/mbsim-output.5, layout 2: one dataset per quantity, the element
 * axis named by /forces/names, /measures/names). */
#include "output.h"
#include "../util/xalloc.h"

#include <stdlib.h>

struct out_forces {
	int force, torque, defl, rate, power, energy, effort;	/* /forces series ids */
	int value;					/* /measures/value */
};

static int named(struct h5out *h, const char *path, long d1, long d2, const char *units,
		 const char *desc, const char *table)
{
	int id = h5_series(h, path, d1, d2, H5_DOUBLE, units, desc);
	if (id >= 0)
		h5_attr_str(h, path, "names", table);
	return id;
}

void output_forces_open(struct output *o, struct h5out *h, const struct model *m)
{
	int nf = m->nforces, nm = m->nmeasures;
	struct out_forces *x = o->fx = xcalloc(1, sizeof(*x));
	x->force = x->torque = x->defl = x->rate = x->power = x->energy = x->effort = x->value = -1;
	const char **names = xmalloc(((size_t)(nf > nm ? nf : nm) + 1) * sizeof(char *));
	if (nf > 0) {
		for (int i = 0; i < nf; i++)
			names[i] = m->forces[i].name;
		h5_names(h, "/forces/names", names, nf);
		for (int i = 0; i < nf; i++)
			names[i] = force_type_names[m->forces[i].type];
		h5_names(h, "/forces/type_names", names, nf);
		x->force = named(h, "/forces/force", nf, 3, "N",
				 "force of the element on its second body (the loaded body of "
				 "force), global frame", "/forces/names");
		x->torque = named(h, "/forces/torque", nf, 3, "N m",
				  "torque of the element on its second body (the loaded body of "
				  "torque) besides the moment of force, global frame",
				  "/forces/names");
		x->defl = named(h, "/forces/deflection", nf, 0, "m or rad",
				"tsda: length - free length; rsda: angle - free angle; motor: "
				"joint coordinate; bushing: |relative displacement|; tire: "
				"penetration road height + radius - centre height (< 0 off "
				"the road); else 0",
				"/forces/names");
		x->rate = named(h, "/forces/rate", nf, 0, "m/s or rad/s",
				"time derivative of the deflection (friction: sliding velocity)",
				"/forces/names");
		x->power = named(h, "/forces/power", nf, 0, "W",
				 "power the element delivers to the bodies", "/forces/names");
		x->energy = named(h, "/forces/energy", nf, 0, "J",
				  "energy stored in the element's springs and preloads",
				  "/forces/names");
		x->effort = named(h, "/forces/effort", nf, 0, "N or N m",
				  "tsda tension; rsda moment and motor effort on body 2 about "
				  "(along) the joint axis; friction force on body 2 along the axis; "
				  "tire: the road's upward push, >= 0; NaN for force, torque and "
				  "bushing", "/forces/names");
	}
	if (nm > 0) {
		for (int i = 0; i < nm; i++)
			names[i] = m->measures[i].name;
		h5_names(h, "/measures/names", names, nm);
		x->value = named(h, "/measures/value", nm, 0, "as the expression",
				 "the measures' expressions at the sample", "/measures/names");
	}
	free(names);
}

void output_forces_rows(struct output *o, struct ra *s, const struct ra_state *x)
{
	const struct model *m = o->m;
	struct out_forces *fx = o->fx;
	struct h5out *h = o->h5;
	int nf = m->nforces;
	/* the rows made in the writer's buffer (h5_row_next), not in arrays
	 * of the output: 88 bytes a force (issue 17) */
	if (nf > 0) {
		double *F = h5_row_next(h, fx->force), *T = h5_row_next(h, fx->torque);
		double *sc[5] = { h5_row_next(h, fx->defl), h5_row_next(h, fx->rate),
				  h5_row_next(h, fx->power), h5_row_next(h, fx->energy),
				  h5_row_next(h, fx->effort) };
		for (int i = 0; i < nf; i++) {
			struct ra_fout f;
			ra_force_out(s, x, x->t, i, &f);
			for (int c = 0; c < 3; c++) {
				F[3 * i + c] = f.force[c];
				T[3 * i + c] = f.torque[c];
			}
			sc[0][i] = f.deflection;
			sc[1][i] = f.rate;
			sc[2][i] = f.power;
			sc[3][i] = f.energy;
			sc[4][i] = f.effort;
		}
	}
	if (m->nmeasures > 0) {
		double *v = h5_row_next(h, fx->value);
		for (int i = 0; i < m->nmeasures; i++)
			v[i] = ra_sexpr(s, x, x->t, m->measures[i].ex);
	}
}

void output_forces_close(struct output *o)
{
	free(o->fx);
	o->fx = NULL;
}
