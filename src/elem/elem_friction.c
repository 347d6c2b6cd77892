/* elem_friction.c - Coulomb friction in a translational joint: mu times
 * the joint's normal reaction from the multipliers of its rows (Fang et
 * al. 2023, §3.4), against the sliding velocity v, regularized as
 * -mu N tanh(v / v_eps) (elem.h).
 *
 * Why tanh: the law was 0 below v_eps and mu N above, a jump of mu N at
 * |v| = v_eps that a Newton iteration over a step cannot cross (at h =
 * 1e-3 the jump moves the velocity by h mu N / m, 100 times v_eps: no
 * fixed point, the stall of matrix.md finding 4) and that no scheme's
 * order survives.  tanh is smooth, its slope at 0 is mu N / v_eps (a stiff
 * viscous damper while sticking, whose creep under a load F below mu N is
 * v_eps atanh(F / (mu N))), and it is mu N to 4e-9 beyond 10 v_eps.  The
 * implicit schemes take its stiffness through the Newton blocks below;
 * the normal force is that of the multipliers the caller passes: the
 * current iterate's (integ/dae3_solve.c, fi.c, form/ra.c's fixed point). */
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

/* The joint's axis z on body 1's side, the sliding velocity v_rel along
 * it and (lam not NULL) the normal force N: the magnitude of the part
 * normal to z of the rows' force on body 1, from the multipliers lam;
 * dN (or NULL) receives dN / d lam of the joint's rows (-n . J_k, n the
 * unit normal; 0 where N = 0). */
static double friction_kin(const struct ra *s, const struct ra_state *x,
			   const struct force *f, const double *lam, double *z, double *vrel,
			   double *dN)
{
	const struct model *m = s->m;
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
	if (!lam)
		return 0.0;
	struct prim Pr[MODEL_JOINT_ROWS_MAX];
	double Jr[MODEL_JOINT_ROWS_MAX][3];
	int n = model_joint_prims(m, f->joint, Pr);
	for (int i = 0; i < n; i++) {
		struct prim_out o;
		prim_eval(&Pr[i], &b0, &b1, x->t, PRIM_JAC, &o);
		v3_copy(Jr[i], o.J[2]);
		v3_axpy(Fn, -lam[j->row0 + i], o.J[2]);
	}
	v3_axpy(Fn, -v3_dot(Fn, z), z);
	double N = v3_norm(Fn);
	for (int i = 0; dN && i < n; i++)
		dN[i] = N > 0.0 ? -v3_dot(Fn, Jr[i]) / N : 0.0;
	return N;
}

/* The force along z on body 1 (signed), z and v_rel. */
static double friction_force(const struct ra *s, const struct ra_state *x,
			     const struct force *f, const double *lam, double *z, double *vrel)
{
	const struct friction_par *P = f->par;
	double N = friction_kin(s, x, f, lam, z, vrel, NULL);
	return -P->mu * N * tanh(*vrel / P->v_eps);
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

/* Its part of the Newton matrix (elem.h lowrank): the force is mag q with
 * q the generalized direction of +z on body 1 and -z on body 0 at the
 * joint points (v_rel = q . u by virtual power) and mag = -mu N(lam)
 * tanh(v_rel / v_eps), so that -dF/du = (mu N / v_eps) sech^2 q q^T
 * (the slope that makes Newton converge at a reversal, a stiff damper
 * between the joint's two bodies, which block-diagonal blocks cannot
 * hold) and -dF/dlam = mu tanh q dN^T (the normal force of the same
 * iterate).  Left out: the turning of z, q and N with the positions. */
static int friction_lowrank(const struct ra *s, const struct ra_state *x, int i,
			    const double *lam, double cv, double *q, double *w, double *d,
			    double *band)
{
	const struct force *f = &s->m->forces[i];
	const struct friction_par *P = f->par;
	const struct joint *j = &s->m->joints[f->joint];
	double z[3], vrel, dN[MODEL_JOINT_ROWS_MAX], G[3];
	double N = friction_kin(s, x, f, lam, z, &vrel, dN);
	double th = tanh(vrel / P->v_eps);
	for (int e = 0; e < 2; e++) {
		int b = j->body[e];
		if (b < 0)
			continue;
		double q6[6] = { 0, 0, 0, 0, 0, 0 };
		v3_scale(G, e ? 1.0 : -1.0, z);
		add_point_force(x, b, j->s[e], G, q6);
		for (int c = 0; c < 6; c++)
			q[6 * b + c] += q6[c];
	}
	for (int k = 0; k < j->nrows; k++)
		w[j->row0 + k] = P->mu * th * dN[k];
	*d = cv * P->mu * N / P->v_eps * (1.0 - th * th);
	*band = 3.0 * P->v_eps;	/* tanh(3) = 0.995 */
	return 1;
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
	.lowrank = friction_lowrank,
	.ncpower = friction_ncpower,
	.units = friction_units,
};
