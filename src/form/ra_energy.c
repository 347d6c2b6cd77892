/* ra_energy.c - energies and nonconservative power of the ra formulation
 * (ra.h): kinetic and potential energy of the bodies, gravity, the force
 * elements (their energy operation, elem/elem.h) and the beams, and the
 * power of what is not in the potential (the elements' ncpower: dampers,
 * actuators, expressions, friction, motors, tyres, nonlinear bushing
 * curves; beam damping, driver rows). */
#include "ra_force_impl.h"

void ra_energy(const struct ra *s, const struct ra_state *x, double *kin, double *pot)
{
	const struct model *m = s->m;
	double K = 0.0, V = 0.0;
	for (int b = 0; b < s->nb; b++) {
		double Jw[3];
		const double *w = x->w + 3 * b;
		m3_mulv(Jw, ra_inertia(s, b), w);
		K += 0.5 * (s->mass[b] * v3_dot(x->v + 3 * b, x->v + 3 * b) + v3_dot(w, Jw));
		V -= s->mass[b] * v3_dot(m->gravity, x->r + 3 * b);
	}
	for (int i = 0; i < m->nforces; i++) {
		const struct elem_ops *e = elem_of(&m->forces[i]);
		if (e->energy)
			e->energy(s, x, i, &V);
	}
	if (m->nbeams)
		V += ra_beam_energy(s, x);
	if (s->contact)
		V += ra_contact_energy(s, x);
	*kin = K;
	*pot = V;
}

/* Power of the driver rows' constraint forces, -lam_k (Phi_q,k qdot) */
static double driver_power(const struct ra *s, const struct ra_state *x)
{
	const struct model *m = s->m;
	double P = 0.0;
	for (int i = 0; i < m->ndrivers; i++) {
		int k = m->drivers[i].row0;
		const struct prim *p = &m->dprims[i];
		struct bstate bi, bj;
		struct prim_out o;
		ra_bstate(x, p->bi, &bi);
		ra_bstate(x, p->bj, &bj);
		prim_eval(p, &bi, &bj, x->t, PRIM_JAC, &o);
		double qd = v3_dot(o.J[0], bi.v) + v3_dot(o.J[1], bi.w) +
			    v3_dot(o.J[2], bj.v) + v3_dot(o.J[3], bj.w);
		P -= x->lam[k] * qd;
	}
	return P;
}

double ra_ncpower(struct ra *s, const struct ra_state *x, double part[2])
{
	const struct model *m = s->m;
	double Pd = driver_power(s, x), Pm = 0.0, P = Pd;
	if (m->nbeams)
		P += ra_beam_ncpower(s, x);
	if (s->contact)
		P += ra_contact_ncpower(s, x);
	for (int i = 0; i < m->nforces; i++) {
		const struct elem_ops *e = elem_of(&m->forces[i]);
		if (!e->ncpower)
			continue;
		if (!(e->props(&m->forces[i]) & ELEM_MOTOR_POWER)) {
			e->ncpower(s, x, i, &P);
			continue;
		}
		double Pe = 0.0;
		e->ncpower(s, x, i, &Pe);
		P += Pe;
		Pm += Pe;
	}
	if (part) {
		part[0] = Pm;
		part[1] = Pd;
	}
	return P;
}
