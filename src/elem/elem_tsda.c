/* elem_tsda.c - the translational spring-damper-actuator between two
 * points: tension k (l - l0) + c l' + actuator(t) + expression along the
 * line of its points (elem.h). */
#include "elem.h"
#include "../deck/force.h"
#include "../form/ra_force_impl.h"
#include "../model/sexpr.h"

#include <math.h>

static void tsda_build(struct bctx *b, struct fread *fr)
{
	struct tsda_par *P = fread_par(fr);
	double r[2][3], A[9], p[2][3], d[3];
	fr->f.body[0] = force_body_of(b, fr, "body1");
	fr->f.body[1] = force_body_of(b, fr, "body2");
	force_attach(b, fr, 0, "point1", "at1", 1);
	force_attach(b, fr, 1, "point2", "at2", 1);
	force_opt_nonneg(b, fr, "stiffness", &P->k);
	force_opt_nonneg(b, fr, "damping", &P->c);
	int given = opt_num(b, fr->item, "free_length", &P->l0);
	if (given > 0)
		force_nonneg(b, fr, "free_length", P->l0);
	fr->bad |= given < 0;
	force_actuator(b, fr, "actuator", 0);
	force_particle_end(b, fr, 0, "point1", "at1");
	force_particle_end(b, fr, 1, "point2", "at2");
	if (!fr->bad && !given) {
		for (int k = 0; k < 2; k++) {
			model_pose0(b->m, fr->f.body[k], r[k], A);
			m3_mulv(p[k], A, fr->f.s[k]);
			v3_add(p[k], p[k], r[k]);
		}
		v3_sub(d, p[1], p[0]);
		P->l0 = v3_norm(d);
	}
	force_expression(b, fr, 1, NULL);
}

/* Unit direction i->j, length, length rate */
struct tsda_kin {
	double u[3], l, ld;
};

static void tsda_kin(const struct ra_state *x, const struct force *f, struct tsda_kin *k)
{
	struct bstate bi, bj;
	double d[3], dv[3];
	ra_bstate(x, f->body[0], &bi);
	ra_bstate(x, f->body[1], &bj);
	rel_kin(&bi, f->s[0], &bj, f->s[1], d, dv);
	k->l = v3_norm(d);
	if (k->l > 0)
		v3_scale(k->u, 1.0 / k->l, d);
	else
		v3_set(k->u, 0, 0, 0);
	k->ld = v3_dot(k->u, dv);
}

/* tension: spring, damper, actuator and expression */
static double tsda_mag(const struct ra *s, const struct ra_state *x, double t,
		       const struct force *f, const struct tsda_kin *k)
{
	const struct tsda_par *P = f->par;
	double mag = ra_input(s, f, P->k * (k->l - P->l0) + P->c * k->ld + act(f, t));
	if (f->ex)
		mag += ra_expr_of(s, x, t, f, k->l - P->l0, k->ld);
	return mag;
}

static void tsda_eval(const struct ra *s, const struct ra_state *x, double t,
		      const double *lam, int i, double *out, struct ra_fout *o)
{
	const struct force *f = &s->m->forces[i];
	const struct tsda_par *P = f->par;
	struct tsda_kin k;
	double G[3];
	tsda_kin(x, f, &k);
	double mag = tsda_mag(s, x, t, f, &k);
	v3_scale(G, mag, k.u);
	add_point_force(x, f->body[0], f->s[0], G, out);
	v3_scale(G, -mag, k.u);
	add_point_force(x, f->body[1], f->s[1], G, out + 6);
	v3_copy(o->force, G);
	o->effort = mag;
	o->deflection = k.l - P->l0;
	o->rate = k.ld;
	o->energy = 0.5 * P->k * o->deflection * o->deflection;
}

/* With a state expression, central differences (ra_fd_blocks); else the
 * translational blocks K = k u u^T + (f / l)(I - u u^T), C = c u u^T,
 * exact for a TSDA attached at a centroid to ground (ra.h). */
static void tsda_blocks(const struct ra *s, const struct ra_state *x, double t, int i,
			double cq, double cv, double *W)
{
	const struct force *f = &s->m->forces[i];
	const struct tsda_par *P = f->par;
	if (f->ex != NULL && sexpr_has_state(f->ex)) {
		ra_fd_blocks(s, x, t, i, f->body, cq, cv, W);
		return;
	}
	/* an actuator alone still turns its force with u: (mag / l) term */
	if (P->k == 0.0 && P->c == 0.0 && !f->has_act && !f->ex)
		return;
	struct tsda_kin k;
	tsda_kin(x, f, &k);
	double mag = tsda_mag(s, x, t, f, &k);
	double g = k.l > 0 ? mag / k.l : P->k, B[9];	/* l -> 0: f = -k d */
	/* d(-mag u)/d p_j = -(k + c d/dt) u u^T - (mag / l) (I - u u^T) */
	for (int r = 0; r < 3; r++)
		for (int c = 0; c < 3; c++) {
			double uu = k.u[r] * k.u[c];
			B[3 * r + c] = cq * (P->k * uu + g * ((r == c) - uu)) + cv * P->c * uu;
		}
	for (int e = 0; e < 2; e++) {
		int b = f->body[e];
		if (b < 0)
			continue;
		for (int q = 0; q < 9; q++)
			W[18 * b + q] += B[q];
	}
}

static int tsda_has_lin(const struct force *f)
{
	return f->ex == NULL;
}

static int tsda_lin(const struct ra *s, const struct ra_state *x, double t, int i,
		    double *K, double *C)
{
	const struct force *f = &s->m->forces[i];
	const struct tsda_par *Pp = f->par;
	struct bstate bs[2];
	struct tsda_kin k;
	ra_bstate(x, f->body[0], &bs[0]);
	ra_bstate(x, f->body[1], &bs[1]);
	tsda_kin(x, f, &k);
	if (!(k.l > 0.0))
		return -1;
	double mag = tsda_mag(s, x, t, f, &k);
	/* d = p1 - p0, dv = pv1 - pv0: derivatives in z (Dd, Dv) and
	 * zdot; pv = v + A (w x s) has d pv / d(v, w) = (I, -A s~) = d p /
	 * d(r, theta), so dv's derivative in zdot is Dd */
	double Dd[36] = { 0 }, Dv[36] = { 0 }, dv[3];
	ra_rel_point_jac(f, bs, Dd, Dv);
	{
		double p0[3], v0[3], p1[3], v1[3];
		point_kin(&bs[0], f->s[0], p0, v0);
		point_kin(&bs[1], f->s[1], p1, v1);
		v3_sub(dv, v1, v0);
	}
	/* P = (I - u u^T) / l: du = P dd; dl = u . dd;
	 * d ld = dv . du + u . d dv */
	double P[9], gz[12], gd[12], dG[36], dGd[36];
	for (int a = 0; a < 3; a++)
		for (int c = 0; c < 3; c++)
			P[3 * a + c] = ((a == c) - k.u[a] * k.u[c]) / k.l;
	double Pdv[3];
	m3_mulv(Pdv, P, dv);
	for (int q = 0; q < 12; q++) {
		double dl = 0.0, dld = 0.0, dldd = 0.0;
		for (int a = 0; a < 3; a++) {
			dl += k.u[a] * Dd[12 * a + q];
			dld += Pdv[a] * Dd[12 * a + q] + k.u[a] * Dv[12 * a + q];
			dldd += k.u[a] * Dd[12 * a + q];
		}
		gz[q] = Pp->k * dl + Pp->c * dld;
		gd[q] = Pp->c * dldd;
	}
	/* force on body 0: G = mag u; dG = u dmag + mag P dd */
	for (int a = 0; a < 3; a++)
		for (int q = 0; q < 12; q++) {
			double pd = 0.0;
			for (int c = 0; c < 3; c++)
				pd += P[3 * a + c] * Dd[12 * c + q];
			dG[12 * a + q] = k.u[a] * gz[q] + mag * pd;
			dGd[12 * a + q] = k.u[a] * gd[q];
		}
	double G[3];
	v3_scale(G, mag, k.u);
	for (int e = 0; e < 2; e++) {
		if (f->body[e] < 0)
			continue;
		if (e == 1) {
			v3_scale(G, -1.0, G);
			for (int q = 0; q < 36; q++) {
				dG[q] = -dG[q];
				dGd[q] = -dGd[q];
			}
		}
		ra_point_force_lin(K, e, bs[e].A, f->s[e], G, dG, 1);
		ra_point_force_lin(C, e, bs[e].A, f->s[e], G, dGd, 0);
	}
	return 0;
}

static void tsda_energy(const struct ra *s, const struct ra_state *x, int i, double *V)
{
	const struct force *f = &s->m->forces[i];
	const struct tsda_par *P = f->par;
	if (P->k == 0.0)
		return;
	struct tsda_kin k;
	tsda_kin(x, f, &k);
	*V += 0.5 * P->k * (k.l - P->l0) * (k.l - P->l0);
}

static void tsda_ncpower(struct ra *s, const struct ra_state *x, int i, double *Pw)
{
	const struct force *f = &s->m->forces[i];
	const struct tsda_par *P = f->par;
	struct tsda_kin k;
	tsda_kin(x, f, &k);
	*Pw -= (P->c * k.ld + act(f, x->t) + ra_expr_of(s, x, x->t, f, k.l - P->l0, k.ld)) * k.ld;
}

static unsigned tsda_props(const struct force *f)
{
	const struct tsda_par *P = f->par;
	return elem_common_props(f) | (P->c != 0.0 || f->has_act || f->ex ? ELEM_NC : 0u);
}

static double tsda_length(const struct force *f)
{
	return fabs(((const struct tsda_par *)f->par)->l0);
}

static void tsda_units(const struct model *m, const struct force *f, const char *u[3])
{
	u[0] = "m", u[1] = "m/s", u[2] = "N";
}

const struct elem_ops elem_tsda = {
	.par_size = sizeof(struct tsda_par),
	.build = tsda_build,
	.props = tsda_props,
	.eval = tsda_eval,
	.blocks = tsda_blocks,
	.has_lin = tsda_has_lin,
	.lin = tsda_lin,
	.energy = tsda_energy,
	.ncpower = tsda_ncpower,
	.length = tsda_length,
	.units = tsda_units,
};
