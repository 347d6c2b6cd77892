/* elem_friction.c - Coulomb friction in a translational joint: mu times
 * the joint's normal reaction from the multipliers of its rows (Fang et
 * al. 2023, §3.4), against the sliding velocity, none below a threshold
 * (elem.h). */
#include "elem.h"
#include "../deck/force.h"
#include "../form/ra_force_impl.h"

#include <math.h>

struct friction_par {
	double mu;	/* coefficient */
	double v_eps;	/* |v| below this -> no force, m/s */
};

static void friction_build(struct bctx *b, struct fread *fr)
{
	struct friction_par *P = fread_par(fr);
	force_joint_of(b, fr, 1u << JOINT_TRANSLATIONAL, "translational");
	if (req_num(b, fr->item, "mu", fr->what, &P->mu) < 0)
		fr->bad = 1;
	else
		force_nonneg(b, fr, "mu", P->mu);
	P->v_eps = 1e-5;
	int r = opt_num(b, fr->item, "velocity_threshold", &P->v_eps);
	if (r > 0 && !(P->v_eps > 0)) {
		diag_error(b->d, &dn_get(fr->item, "velocity_threshold")->pos,
			   "velocity_threshold of %s must be positive, got %g", fr->what,
			   P->v_eps);
		fr->bad = 1;
	}
	fr->bad |= r < 0;
}

/* The normal force from the multipliers of the joint's rows: the force
 * magnitude along the axis z on body 1 (signed) and v_rel. */
static double friction_force(const struct ra *s, const struct ra_state *x,
			     const struct force *f, const double *lam, double *z, double *vrel)
{
	const struct model *m = s->m;
	const struct friction_par *P = f->par;
	const struct joint *j = &m->joints[f->joint];
	struct bstate b0, b1;
	ra_bstate(x, j->body[0], &b0);
	ra_bstate(x, j->body[1], &b1);
	double zb[3] = { j->F[0][2], j->F[0][5], j->F[0][8] };
	double p0[3], v0[3], p1[3], v1[3], Fn[3] = { 0, 0, 0 };
	m3_mulv(z, b0.A, zb);
	point_kin(&b0, j->s[0], p0, v0);
	point_kin(&b1, j->s[1], p1, v1);
	*vrel = v3_dot(z, v1) - v3_dot(z, v0);
	if (!lam || fabs(*vrel) < P->v_eps)
		return 0.0;
	struct prim Pr[MODEL_JOINT_ROWS_MAX];
	int n = model_joint_prims(m, f->joint, Pr);
	for (int i = 0; i < n; i++) {
		struct prim_out o;
		prim_eval(&Pr[i], &b0, &b1, x->t, PRIM_JAC, &o);
		v3_axpy(Fn, -lam[j->row0 + i], o.J[2]);
	}
	v3_axpy(Fn, -v3_dot(Fn, z), z);
	double N = v3_norm(Fn);
	return -P->mu * N * (*vrel > 0 ? 1.0 : -1.0);
}

static void friction_eval(const struct ra *s, const struct ra_state *x, double t,
			  const double *lam, int i, double *out, struct ra_fout *o)
{
	const struct force *f = &s->m->forces[i];
	const struct joint *j = &s->m->joints[f->joint];
	double G[3], z[3], vrel;
	double mag = friction_force(s, x, f, lam, z, &vrel);
	v3_scale(G, mag, z);
	add_point_force(x, j->body[1], j->s[1], G, out + 6);
	v3_copy(o->force, G);
	v3_scale(G, -mag, z);
	add_point_force(x, j->body[0], j->s[0], G, out);
	o->rate = vrel;
	o->effort = mag;
}

static void friction_ncpower(struct ra *s, const struct ra_state *x, int i, double *P)
{
	double z[3], vrel;
	*P += friction_force(s, x, &s->m->forces[i], x->lam, z, &vrel) * vrel;
}

static unsigned friction_props(const struct force *f)
{
	return elem_common_props(f) | ELEM_NC | ELEM_LAMBDA;
}

static void friction_units(const struct model *m, const struct force *f, const char *u[3])
{
	u[1] = "m/s", u[2] = "N";
}

const struct elem_ops elem_friction = {
	.par_size = sizeof(struct friction_par),
	.build = friction_build,
	.props = friction_props,
	.bodies = elem_joint_bodies,
	.eval = friction_eval,
	.ncpower = friction_ncpower,
	.units = friction_units,
};
