/* ra_force.c - applied forces of the ra formulation (ra.h): gravity and
 * the force elements through their table (elem/elem.h), the state
 * expressions they may carry (model/sexpr.h), the joint coordinates and
 * the elements' continuous state (commit); their energies and
 * nonconservative power in ra_energy.c, the Jacobians in ra_force_jac.c,
 * each element's own code in elem/elem_NAME.c. */
#include "ra_force_impl.h"
#include "../util/xalloc.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Torque on a massless link (distance joint j): a massless member carries
 * no net load, so the torque T acts on its two ends as the couple of
 * forces Fe = (T x d)/|d|^2 on end 2 and -Fe on end 1, d = p2 - p1, whose
 * moment d x Fe is the component of T normal to the link (the axial
 * component cannot be carried and is dropped).  Seed 002 eq. 13 is this
 * with |d| = L: the force T/L normal to the link on the pendulum's mass.
 * Returns Fe; dv = v2 - v1 of the ends. */
void ra_link_torque(const struct ra_state *x, const struct joint *j, const double *T,
		    double Fe[3], double dv[3])
{
	struct bstate b0, b1;
	double d[3];
	ra_bstate(x, j->body[0], &b0);
	ra_bstate(x, j->body[1], &b1);
	rel_kin(&b0, j->s[0], &b1, j->s[1], d, dv);
	double dd = v3_dot(d, d);
	v3_cross(Fe, T, d);
	v3_scale(Fe, dd > 0 ? 1.0 / dd : 0.0, Fe);
}

/* ---- joint coordinates and state expressions ---- */

/* Coordinate of joint j (wrapped angle of a revolute/cylindrical, or the
 * displacement of a translational joint), its rate, and the global axis. */
double ra_joint_q(const struct ra_state *x, const struct joint *j, double *rate,
		  double *z)
{
	struct bstate b0, b1;
	ra_bstate(x, j->body[0], &b0);
	ra_bstate(x, j->body[1], &b1);
	double zb[3] = { j->F[0][2], j->F[0][5], j->F[0][8] }, w0[3], w1[3];
	m3_mulv(z, b0.A, zb);
	m3_mulv(w0, b0.A, b0.w);
	if (j->type != JOINT_TRANSLATIONAL) {
		m3_mulv(w1, b1.A, b1.w);
		*rate = v3_dot(z, w1) - v3_dot(z, w0);
		return joint_coordinate(j, DRIVER_ROTATION, b0.r, b0.A, b1.r, b1.A);
	}
	/* d/dt (z . d) = (w0 x z) . d + z . (p1' - p0') */
	double d[3], dv[3], wz[3];
	rel_kin(&b0, j->s[0], &b1, j->s[1], d, dv);
	v3_cross(wz, w0, z);
	*rate = v3_dot(wz, d) + v3_dot(z, dv);
	return v3_dot(z, d);
}

double ra_unwrap(double c, double *st)
{
	if (st[2] != 0.0)
		st[1] -= floor((c - st[0] + M_PI) / (2.0 * M_PI));
	st[0] = c;
	st[2] = 1.0;
	return c + 2.0 * M_PI * st[1];
}

double ra_from_commit(const struct ra *s, int i, double phi)
{
	double st[3];
	memcpy(st, s->fst + RA_FST * i, sizeof st);
	return ra_unwrap(phi, st);
}

void ra_force_commit(struct ra *s, const struct ra_state *x)
{
	const struct model *m = s->m;
	ra_cpl_commit(s, x);	/* the coupling rows' angles, accepted alike */
	if (s->contact)
		ra_contact_commit(s, x);	/* the contacts' friction state */
	if (!s->fst)	/* no element with state (ra_force_init) */
		return;
	for (int i = 0; i < m->nforces; i++) {
		const struct elem_ops *e = elem_of(&m->forces[i]);
		if (e->commit)
			e->commit(s, x, i);
	}
}

/* Fill e's variables at x; d, dr: the element's own deflection, rate. */
static void sx_fill(const struct model *m, const struct ra_state *x, double t,
		    struct sexpr *e, double d, double dr)
{
	for (int i = 0; i < e->nv; i++) {
		struct sx_var *v = &e->v[i];
		const struct joint *j;
		double rate, z[3], q;
		switch (v->kind) {
		case SX_TIME: v->val = t; break;
		case SX_SELF_DEF: v->val = d; break;
		case SX_SELF_RATE: v->val = dr; break;
		case SX_Q:
		case SX_QD:
			j = &m->joints[v->idx];
			q = ra_joint_q(x, j, &rate, z);
			if (v->kind == SX_QD) {
				v->val = rate;
			} else if (j->type == JOINT_TRANSLATIONAL) {
				v->val = q;
			} else {
				v->val = ra_unwrap(q, v->unw);
			}
			break;
		case SX_BODY: {
			const int b = v->idx, k = v->sub;
			double g[3];
			if (k < 3) {
				v->val = x->r[3 * b + k];
			} else if (k < 6) {
				v->val = x->v[3 * b + k - 3];
			} else if (k < 9) {
				m3_mulv(g, x->A + 9 * b, x->w + 3 * b);
				v->val = g[k - 6];
			} else {
				so3_log(g, x->A + 9 * b);
				v->val = g[k - 9];
			}
			break;
		}
		case SX_POINT: {
			const struct body_point *p = &m->points[v->idx];
			struct bstate bs;
			double pp[3], pv[3];
			ra_bstate(x, p->body, &bs);
			point_kin(&bs, p->s, pp, pv);
			v->val = v->sub < 3 ? pp[v->sub] : pv[v->sub - 3];
			break;
		}
		case SX_ROAD_X:
		case SX_ROAD_Y:
			break;	/* a road height's place: ra_road_height sets it */
		}
	}
}

double ra_sexpr(const struct ra *s, const struct ra_state *x, double t, struct sexpr *e)
{
	sx_fill(s->m, x, t, e, 0.0, 0.0);
	return sexpr_value(e);
}

double ra_expr_of(const struct ra *s, const struct ra_state *x, double t,
		  const struct force *f, double d, double dr)
{
	if (!f->ex)
		return 0.0;
	sx_fill(s->m, x, t, f->ex, d, dr);
	return sexpr_value(f->ex);
}

double ra_road_ahead(const struct model *md, const struct ra_state *x, double h,
		     struct road_scan *scan)
{
	for (int i = 0; i < md->nforces; i++) {
		const struct elem_ops *e = elem_of(&md->forces[i]);
		if (e->step_limit)
			h = e->step_limit(x, &md->forces[i], h, &scan[i]);
	}
	return h;
}

int ra_tire_looks_ahead(const struct force *f)
{
	const struct elem_ops *e = elem_of(f);
	return e->looks_ahead && e->looks_ahead(f);
}

/* ---- one element ---- */

/* What element i does at x: out[0..5] on its b[0], out[6..11] on b[1]
 * (ra_elem_bodies; translational global, rotational body frame); o (may
 * be NULL) the output quantities except power. */
void ra_elem_eval(const struct ra *s, const struct ra_state *x, double t,
		  const double *lam, int i, double *out, struct ra_fout *o)
{
	struct ra_fout tmp;
	memset(out, 0, 12 * sizeof(double));
	if (!o)
		o = &tmp;
	memset(o, 0, sizeof(*o));
	o->effort = NAN;
	for (int c = 0; c < 6; c++)
		o->disp[c] = NAN;
	elem_of(&s->m->forces[i])->eval(s, x, t, lam, i, out, o);
}

/* The bodies an element's out[0..5], out[6..11] act on. */
void ra_elem_bodies(const struct model *m, const struct force *f, int b[2])
{
	const struct elem_ops *e = elem_of(f);
	if (e->bodies) {
		e->bodies(m, f, b);
	} else {
		b[0] = f->body[0];
		b[1] = f->body[1];
	}
}

void ra_forces(const struct ra *s, const struct ra_state *x, double t,
	       const double *lam, double *F)
{
	const struct model *m = s->m;
	for (int b = 0; b < s->nb; b++) {
		double *Fb = F + 6 * b;
		v3_scale(Fb, s->mass[b], m->gravity);
		v3_set(Fb + 3, 0, 0, 0);
	}
	for (int i = 0; i < m->nforces; i++) {
		double out[12];
		int b[2];
		ra_elem_eval(s, x, t, lam, i, out, NULL);
		ra_elem_bodies(m, &m->forces[i], b);
		for (int e = 0; e < 2; e++)
			if (b[e] >= 0)
				for (int c = 0; c < 6; c++)
					F[6 * b[e] + c] += out[6 * e + c];
	}
	if (m->nbeams)
		ra_beam_forces(s, x, F);
	if (s->contact)
		ra_contact_forces(s, x, F);
}

/* Power delivered to the bodies by generalized forces out on bodies b. */
static double elem_power(const struct ra_state *x, const int b[2], const double *out)
{
	double P = 0.0;
	for (int e = 0; e < 2; e++)
		if (b[e] >= 0)
			P += v3_dot(out + 6 * e, x->v + 3 * b[e]) +
			     v3_dot(out + 6 * e + 3, x->w + 3 * b[e]);
	return P;
}

void ra_force_out(const struct ra *s, const struct ra_state *x, double t, int i,
		  struct ra_fout *o)
{
	double out[12];
	int b[2];
	ra_elem_eval(s, x, t, x->lam, i, out, o);
	ra_elem_bodies(s->m, &s->m->forces[i], b);
	o->power = elem_power(x, b, out);
}

void ra_force_turns(const struct ra *s, struct model *m)
{
	if (!s->fst)	/* no element with state */
		return;
	for (int i = 0; i < m->nforces; i++) {
		const struct elem_ops *e = elem_of(&m->forces[i]);
		if (e->keep)
			e->keep(s->fst + RA_FST * i, &m->forces[i]);
	}
}

void ra_force_init(struct ra *s)
{
	const struct model *m = s->m;
	for (int i = 0; i < m->nforces; i++) {
		const struct elem_ops *e = elem_of(&m->forces[i]);
		if (e->has_state && e->has_state(&m->forces[i])) {
			s->fst = xcalloc(RA_FST * (size_t)m->nforces, sizeof(double));
			break;
		}
	}
	for (int i = 0; s->fst && i < m->nforces; i++) {
		const struct elem_ops *e = elem_of(&m->forces[i]);
		if (e->start)
			e->start(&m->forces[i], s->fst + RA_FST * i);
	}
}
