/* ra_contact_check.c - what the smooth contact model refuses before a run
 * (ra_contact.h): a contact so stiff that the scheme cannot resolve it.
 *
 * An undamped impact of mass m at speed v under K d^n lasts
 *   t_c = 2 I_n d_max / v,  d_max = ((n + 1) m v^2 / (2 K))^(1/(n+1)),
 *   I_n = integral_0^1 dx / sqrt(1 - x^(n+1))
 *       = sqrt(pi) Gamma(1 + 1/(n+1)) / Gamma(1/2 + 1/(n+1))
 * (pi sqrt(m/K) for n = 1, Hertz's 2.868 (m^2/(R E*^2 v))^(1/5) for
 * n = 3/2: K. L. Johnson, Contact Mechanics, 1985, section 11.4), m the
 * mass the impact moves (impact_mass).  Each
 * body's material is taken against a rigid partner (the stiffest pair it
 * can be in, the shortest contact), at the speed it can reach: its
 * initial speed of centroid and rim plus the fall from its height above
 * the planes under gravity, at least 0.1 m/s. */
#include "ra_contact.h"
#include "../model/contact.h"
#include "../model/shape.h"
#include "../util/vec.h"

#include <math.h>

/* steps per contact duration a fixed step needs: 10 (hi at 8 steps is
 * off by 0.25 % in restitution at e = 0.3, at 4 it rebounds 8 times too
 * high), and 4 c(e) where the damping is heavy (e = 0.1, c = 10: a ball
 * right at 16 steps, 5 times too high at 8; a cube's corners, t_c from
 * their effective mass, settle at 40 steps and jitter at 28) */
#define STEPS_MIN 10
#define STEPS_PER_C 4
/* below this no scheme resolves a contact in double precision */
#define TC_MIN 1e-9

static double impact_speed(const struct model *m, int b, const struct shape *s)
{
	const struct body *B = m->bodies + b;
	const struct model_contact *mc = m->contact;
	double v = v3_norm(B->v0) + v3_norm(B->w0) * v3_norm(s->size), fall = 0;
	for (int p = 0; p < mc->nplanes; p++) {
		const struct contact_plane *P = mc->planes + p;
		double dr[3];
		v3_sub(dr, B->r0, P->p);
		double h = v3_dot(dr, P->n), g = -v3_dot(m->gravity, P->n);
		if (h > 0 && g > 0)
			fall = fmax(fall, 2 * g * h);
	}
	return fmax(v + sqrt(fall), 0.1);
}

/* The mass an impact of body b's shape moves: a sphere's normal passes
 * through its centre, the body's mass; a corner, rim or cap further out
 * moves less, 1/m_e = 1/m + rho^2 / J_min with rho the shape's farthest
 * point (its effective mass over directions, as ra_contact.c's eff_mass);
 * a mesh's vertices are not scaled here: the body's mass. */
static double impact_mass(const struct body *B, const struct shape *s)
{
	double rho;
	switch (s->type) {
	case SHAPE_BOX:
		rho = 0.5 * v3_norm(s->size);
		break;
	case SHAPE_CAPSULE:
		rho = s->size[0] + 0.5 * s->size[1];
		break;
	case SHAPE_CYLINDER:
		rho = hypot(s->size[0], 0.5 * s->size[1]);
		break;
	default:
		return B->mass;
	}
	rho += v3_norm(s->r);
	double jm = fmin(B->J[0], fmin(B->J[4], B->J[8]));
	return jm > 0 ? 1 / (1 / B->mass + rho * rho / jm) : B->mass;
}

static double contact_time(double M, double K, double n, double v)
{
	double a = 1 / (n + 1);
	double In = sqrt(M_PI) * tgamma(1 + a) / tgamma(0.5 + a);
	double dmax = pow((n + 1) * M * v * v / (2 * K), a);
	return 2 * In * dmax / v;
}

int ra_contact_check(const struct model *m, int adaptive, double step, struct diag *d)
{
	const struct model_contact *mc = m->contact;
	int bad = 0;
	if (!mc || mc->model != CONTACT_SMOOTH)
		return 0;
	for (int b = 0; b < m->nbodies && b < mc->nb; b++) {
		const struct contact_mat *c = contact_mat_of(mc, b);
		const struct shape *s = shapes_get(m->shapes, b);
		if (!c || !s || !(c->k > 0 || c->E > 0))
			continue;
		double K = c->k;
		if (!(K > 0))	/* Hertz: a sphere or capsule, R its radius */
			K = 4.0 / 3.0 * c->E / (1 - c->nu * c->nu) * sqrt(s->size[0]);
		double v = impact_speed(m, b, s);
		double lc = contact_damping_coef(mc->damping, c->e);
		/* the contact by the body's mass needs STEPS_MIN steps; by its
		 * corner's effective mass (shortest, rotation free: a joint
		 * may hold it, so not for the base count), STEPS_PER_C c */
		double tm = contact_time(m->bodies[b].mass, K, c->exponent, v);
		double te = contact_time(impact_mass(m->bodies + b, s), K, c->exponent, v);
		double tc = tm, need = STEPS_MIN;
		if (te < STEPS_PER_C * lc / STEPS_MIN * tm) {
			tc = te;
			need = STEPS_PER_C * lc;
		}
		const char *key = c->k > 0 ? "stiffness" : "youngs_modulus";
		double val = c->k > 0 ? c->k : c->E;
		if (!(te >= TC_MIN)) {
			diag_error(d, &c->kpos, "%s %g of the contact material of body '%s' makes "
				   "an impact at %.3g m/s last %.3g s, below the %g s any scheme "
				   "resolves: give a softer material", key, val,
				   m->bodies[b].name, v, te, TC_MIN);
			bad = 1;
		} else if (!adaptive && tc < need * step) {
			diag_error(d, &c->kpos, "%s %g of the contact material of body '%s' makes "
				   "an impact at %.3g m/s last %.3g s, %.3g steps of integrator.step "
				   "%g s where restitution %g needs %.0f: give a step of at most "
				   "%.3g s, integrator.adaptive: true or a softer material", key, val,
				   m->bodies[b].name, v, tc, tc / step, step, c->e, need, tc / need);
			bad = 1;
		}
	}
	return bad ? -1 : 0;
}
