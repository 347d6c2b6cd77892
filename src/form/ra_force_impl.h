/* ra_force_impl.h - the force elements' kinematics and evaluation, shared
 * by ra_force.c (their generalized forces), ra_energy.c (energies and
 * nonconservative power) and ra_force_jac.c (their Jacobians); not for
 * other modules.  The definitions and their comments: ra_force.c. */
#ifndef MBSIM_RA_FORCE_IMPL_H
#define MBSIM_RA_FORCE_IMPL_H

#include "ra.h"
#include "../util/vec.h"

#include <math.h>

/* Global position and velocity of body point s (body frame) */
static inline void point_kin(const struct bstate *b, const double *s, double *p, double *pv)
{
	double ws[3], sg[3];
	m3_mulv(sg, b->A, s);
	v3_add(p, b->r, sg);
	v3_cross(ws, b->w, s);
	m3_mulv(pv, b->A, ws);
	v3_add(pv, pv, b->v);
}

static inline double act(const struct force *f, double t)
{
	double g[3];
	if (!f->has_act)
		return 0.0;
	func_eval(&f->x->act, t, g);
	return g[0];
}

static inline double wrap(double a)
{
	return a - 2.0 * M_PI * floor((a + M_PI) / (2.0 * M_PI));
}

double ra_joint_q(const struct ra_state *x, const struct joint *j, double *rate,
		  double *z);
double ra_rsda_def(const struct ra *s, const struct ra_state *x, int i, double *rate,
		   double *z);
/* The same from the wrapped joint angle phi of rsda i (ra_joint_q's). */
double ra_rsda_def_of(const struct ra *s, int i, double phi);
double ra_expr_of(const struct ra *s, const struct ra_state *x, double t,
		  const struct force *f, double d, double dr);
void ra_link_torque(const struct ra_state *x, const struct joint *j, const double *T,
		    double Fe[3], double dv[3]);

/* ---- tyre contact ---- */

double ra_road_height(const struct force *f, double px, double py);

/* Tyre kinematics: the wheel centre p and its velocity pv (global), the
 * road height h below it and its slope (hx, hy), the penetration
 * d = h + radius - z and its rate dd = hx vx + hy vy - vz. */
struct tire_kin {
	double p[3], pv[3], h, hx, hy, d, dd;
};

void ra_tire_kin(const struct ra_state *x, const struct force *f, struct tire_kin *k);

/* Normal force of a tire: k d + c d' in contact (d > 0), not below 0 (the
 * road pushes, never pulls: a wheel leaving faster than the damper lets
 * the spring extend is free), 0 off the road; NaN when the road is (a
 * road expression outside its domain), so that the run fails there
 * instead of losing the contact silently. */
static inline double tire_normal(const struct force *f, const struct tire_kin *k)
{
	if (isnan(k->d) || isnan(k->dd))
		return NAN;
	if (!(k->d > 0.0))
		return 0.0;
	double n = f->k * k->d + f->c * k->dd;
	return n > 0.0 ? n : 0.0;
}

/* Spring energy of a tire: k d^2 / 2 in contact, else 0. */
static inline double tire_energy(const struct force *f, const struct tire_kin *k)
{
	return k->d > 0.0 ? 0.5 * f->k * k->d * k->d : 0.0;
}

/* ---- one element ---- */

/* TSDA kinematics: unit direction i->j, length, length rate */
struct tsda_kin {
	double u[3], l, ld;
};

void ra_tsda_kin(const struct ra_state *x, const struct force *f, struct tsda_kin *k);
double ra_tsda_mag(const struct ra *s, const struct ra_state *x, double t,
		   const struct force *f, const struct tsda_kin *k);
double ra_friction_force(const struct ra *s, const struct ra_state *x,
			 const struct force *f, const double *lam,
			 double *z, double *vrel);

/* Bushing: relative displacement d and rotation th of marker 1 in the
 * axes of marker 0, their rates, marker 0's axes R0 (global) and the
 * point of marker 1 (global). */
struct bush_kin {
	double d[3], th[3], dd[3], thd[3], R0[9], p1[3];
};

void ra_bush_kin(const struct ra_state *x, const struct force *f, struct bush_kin *k);

/* Elastic force (moment) of bushing component c at deflection d: the
 * curve when given (its work then counts as nonconservative), else K d. */
static inline double bush_elastic(const struct force *f, int c, double d)
{
	return f->x->kc[c] ? curve_eval(f->x->kc[c], d, NULL) : f->x->K6[c] * d;
}

void ra_elem_eval(const struct ra *s, const struct ra_state *x, double t,
		  const double *lam, int i, double *out, struct ra_fout *o);
void ra_elem_bodies(const struct model *m, const struct force *f, int b[2]);

#endif
