/* output_forces.c - the /forces and /measures groups of the output
 * (man/mbsim-output.5, layout 2: one dataset per quantity, the element
 * axis named by /forces/names, /measures/names). */
#include "output.h"
#include "../elem/elem.h"
#include "../model/beam.h"
#include "../util/xalloc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct out_forces {
	int force, torque, defl, rate, power, energy, effort;	/* /forces series ids */
	int disp;		/* /forces/bushing_deflection, or -1 (no bushing) */
	int value;					/* /measures/value */
	int *beam;		/* per beam: strain, resultant, point series ids */
};

static int named(struct h5out *h, const char *path, long d1, long d2, const char *units,
		 const char *desc, const char *table)
{
	int id = h5_series(h, path, d1, d2, H5_DOUBLE, units, desc);
	if (id >= 0)
		h5_attr_str(h, path, "names", table);
	return id;
}

/* The units of element f's deflection, rate and effort ("-": the element
 * has none, its value is 0 or NaN). */
static void force_units(const struct model *m, const struct force *f, const char *u[3])
{
	const struct elem_ops *e = elem_of(f);
	u[0] = u[1] = u[2] = "-";
	if (e->units)
		e->units(m, f, u);
}

/* A table of one string per element (TABLE, n rows) that series PATH's
 * attribute element_units names: the units of each column where the
 * series' units attribute lists several ("N or N m"). */
void output_units_table(struct h5out *h, const char *table, const char *const *u, int n,
			const char *const *series, int ns)
{
	h5_names(h, table, u, n);
	for (int i = 0; i < ns; i++)
		h5_attr_str(h, series[i], "element_units", table);
}

void output_forces_open(struct output *o, struct h5out *h, const struct model *m)
{
	int nf = m->nforces, nm = m->nmeasures;
	struct out_forces *x = o->fx = xcalloc(1, sizeof(*x));
	x->force = x->torque = x->defl = x->rate = x->power = x->energy = x->effort = x->value = -1;
	x->disp = -1;
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
		const char **u[3];
		int bushings = 0;
		for (int k = 0; k < 3; k++)
			u[k] = xmalloc(((size_t)nf + 1) * sizeof(char *));
		for (int i = 0; i < nf; i++) {
			const char *ui[3];
			force_units(m, &m->forces[i], ui);
			for (int k = 0; k < 3; k++)
				u[k][i] = ui[k];
			bushings += (elem_props(&m->forces[i]) & ELEM_DISP) != 0;
		}
		static const char *const tab[3] = { "/forces/deflection_units", "/forces/rate_units",
						    "/forces/effort_units" };
		static const char *const ser[3] = { "/forces/deflection", "/forces/rate",
						    "/forces/effort" };
		for (int k = 0; k < 3; k++) {
			output_units_table(h, tab[k], u[k], nf, ser + k, 1);
			free(u[k]);
		}
		if (bushings)
			x->disp = named(h, "/forces/bushing_deflection", nf, 6, "m and rad",
					"bushing: marker 1's displacement x, y, z (m) and rotation "
					"vector (rad) from marker 0, in marker 0's axes, signed (> 0: "
					"extension along, turn about +axis); NaN for other elements",
					"/forces/names");
	}
	if (nm > 0) {
		for (int i = 0; i < nm; i++)
			names[i] = m->measures[i].name;
		h5_names(h, "/measures/names", names, nm);
		x->value = named(h, "/measures/value", nm, 0, "as the expression",
				 "the measures' expressions at the sample", "/measures/names");
	}
	free(names);
	/* beams: per element e and evaluation point p (xi = -+1/sqrt(3)) the
	 * row 2 e + p */
	if (m->nbeams > 0)
		x->beam = xmalloc(3 * (size_t)m->nbeams * sizeof(int));
	for (int i = 0; i < m->nbeams; i++) {
		const struct beam *bm = &m->beams[i];
		char path[200];
		long np = 2L * bm->nel;
		snprintf(path, sizeof path, "/beams/%s/strain", bm->name);
		x->beam[3 * i] = h5_series(h, path, np, 6, H5_DOUBLE, "1 and 1/m",
					   "material strains (Gamma1, Gamma2, Gamma3, kappa1, kappa2, "
					   "kappa3) at the evaluation points (row 2 e + p: element e, "
					   "point xi = -1/sqrt(3), +1/sqrt(3)), section frame, less "
					   "those of the initial mesh");
		snprintf(path, sizeof path, "/beams/%s/resultant", bm->name);
		x->beam[3 * i + 1] = h5_series(h, path, np, 6, H5_DOUBLE, "N and N m",
					       "internal force (N1 axial, N2, N3 shear) and moment "
					       "(M1 torsion, M2, M3 bending) at the evaluation "
					       "points, section frame (damping included)");
		snprintf(path, sizeof path, "/beams/%s/point", bm->name);
		x->beam[3 * i + 2] = h5_series(h, path, np, 3, H5_DOUBLE, "m",
					       "position of the evaluation points, global");
	}
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
		double *D = fx->disp >= 0 ? h5_row_next(h, fx->disp) : NULL;
		for (int i = 0; i < nf; i++) {
			struct ra_fout f;
			ra_force_out(s, x, x->t, i, &f);
			for (int c = 0; c < 3; c++) {
				F[3 * i + c] = f.force[c];
				T[3 * i + c] = f.torque[c];
			}
			if (fx->disp >= 0)
				memcpy(D + 6 * i, f.disp, sizeof f.disp);
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
	for (int i = 0; i < m->nbeams; i++) {
		const struct beam *bm = &m->beams[i];
		double *E = h5_row_next(h, fx->beam[3 * i]), *R = h5_row_next(h, fx->beam[3 * i + 1]),
		       *P = h5_row_next(h, fx->beam[3 * i + 2]);
		for (int e = 0; e < bm->nel; e++) {
			struct beam_pt pt[2];
			ra_beam_out(s, x, bm, e, pt);
			for (int p = 0; p < 2; p++) {
				int row = 2 * e + p;
				for (int c = 0; c < 6; c++) {
					E[6 * row + c] = pt[p].eps[c];
					R[6 * row + c] = pt[p].res[c];
				}
				for (int c = 0; c < 3; c++)
					P[3 * row + c] = pt[p].x[c];
			}
		}
	}
}

void output_forces_close(struct output *o)
{
	if (o->fx)
		free(o->fx->beam);
	free(o->fx);
	o->fx = NULL;
}
