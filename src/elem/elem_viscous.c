/* elem_viscous.c - an isotropic linear viscous force between points of
 * two bodies: -c (v2 - v1) on point 2, +c (v2 - v1) on point 1, v the
 * points' velocities; with body1 the ground, linear drag c v on a point
 * (elem.h).  Written through the element interface alone. */
#include "elem.h"
#include "../deck/force.h"
#include "../form/ra_force_impl.h"

struct viscous_par {
	double c;	/* N s/m */
};

static void viscous_build(struct bctx *b, struct fread *fr)
{
	struct viscous_par *P = fread_par(fr);
	fr->f.body[0] = force_body_of(b, fr, "body1");
	fr->f.body[1] = force_body_of(b, fr, "body2");
	force_attach(b, fr, 0, "point1", "at1", 0);
	force_attach(b, fr, 1, "point2", "at2", 0);
	force_positive(b, fr, "damping", &P->c);
	force_particle_end(b, fr, 0, "point1", "at1");
	force_particle_end(b, fr, 1, "point2", "at2");
}

/* G = c (v2 - v1), the force on point 1 (its negative on point 2) */
static void viscous_force(const struct ra_state *x, const struct force *f, double G[3])
{
	struct bstate b0, b1;
	double d[3], dv[3];
	ra_bstate(x, f->body[0], &b0);
	ra_bstate(x, f->body[1], &b1);
	rel_kin(&b0, f->s[0], &b1, f->s[1], d, dv);
	v3_scale(G, ((const struct viscous_par *)f->par)->c, dv);
}

static void viscous_eval(const struct ra *s, const struct ra_state *x, double t,
			 const double *lam, int i, double *out, struct ra_fout *o)
{
	const struct force *f = &s->m->forces[i];
	double G[3];
	viscous_force(x, f, G);
	add_point_force(x, f->body[0], f->s[0], G, out);
	v3_scale(G, -1.0, G);
	add_point_force(x, f->body[1], f->s[1], G, out + 6);
	v3_copy(o->force, G);
}

/* C = c I in each body's translational block (-dF/dv of its own point
 * force); the rotational terms of offset points are left out, as for the
 * tsda (ra.h ra_force_blocks) */
static void viscous_blocks(const struct ra *s, const struct ra_state *x, double t, int i,
			   double cq, double cv, double *W)
{
	const struct force *f = &s->m->forces[i];
	const double c = cv * ((const struct viscous_par *)f->par)->c;
	for (int e = 0; e < 2; e++)
		if (f->body[e] >= 0)
			for (int a = 0; a < 3; a++)
				W[18 * f->body[e] + 4 * a] += c;
}

static int viscous_has_lin(const struct force *f)
{
	return 1;
}

/* dv = pv2 - pv1 (ra_rel_point_jac); G = c dv on point 1, -G on point 2 */
static int viscous_lin(const struct ra *s, const struct ra_state *x, double t, int i,
		       double *K, double *C)
{
	const struct force *f = &s->m->forces[i];
	const double c = ((const struct viscous_par *)f->par)->c;
	struct bstate bs[2];
	double Dz[36] = { 0 }, Dzd[36] = { 0 }, G[3];
	ra_bstate(x, f->body[0], &bs[0]);
	ra_bstate(x, f->body[1], &bs[1]);
	ra_rel_point_jac(f, bs, Dzd, Dz);
	for (int q = 0; q < 36; q++) {
		Dz[q] *= c;
		Dzd[q] *= c;
	}
	viscous_force(x, f, G);
	for (int e = 0; e < 2; e++) {
		if (e == 1) {
			v3_scale(G, -1.0, G);
			for (int q = 0; q < 36; q++) {
				Dz[q] = -Dz[q];
				Dzd[q] = -Dzd[q];
			}
		}
		if (f->body[e] < 0)
			continue;
		ra_point_force_lin(K, e, bs[e].A, f->s[e], G, Dz, 1);
		ra_point_force_lin(C, e, bs[e].A, f->s[e], G, Dzd, 0);
	}
	return 0;
}

/* all its power is dissipated: -c |v2 - v1|^2 */
static void viscous_ncpower(struct ra *s, const struct ra_state *x, int i, double *P)
{
	const struct force *f = &s->m->forces[i];
	double G[3];
	viscous_force(x, f, G);
	*P -= v3_dot(G, G) / ((const struct viscous_par *)f->par)->c;
}

static unsigned viscous_props(const struct force *f)
{
	return elem_common_props(f) | ELEM_NC;
}

const struct elem_ops elem_viscous = {
	.par_size = sizeof(struct viscous_par),
	.build = viscous_build,
	.props = viscous_props,
	.eval = viscous_eval,
	.blocks = viscous_blocks,
	.has_lin = viscous_has_lin,
	.lin = viscous_lin,
	.ncpower = viscous_ncpower,
};
