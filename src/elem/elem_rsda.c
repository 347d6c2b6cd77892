/* elem_rsda.c - the rotational spring-damper-actuator about a revolute or
 * cylindrical joint: moment k e + c e' + actuator(t) + expression, e the
 * joint angle less the free angle, continuous over turns or wrapped
 * (elem.h). */
#include "elem.h"
#include "../deck/force.h"
#include "../form/ra_force_impl.h"

#include <math.h>

static void rsda_build(struct bctx *b, struct fread *fr)
{
	struct rsda_par *P = fread_par(fr);
	force_joint_of(b, fr, 1u << JOINT_REVOLUTE | 1u << JOINT_CYLINDRICAL,
		       "revolute or cylindrical");
	force_opt_nonneg(b, fr, "stiffness", &P->k);
	force_opt_nonneg(b, fr, "damping", &P->c);
	fr->bad |= opt_num(b, fr->item, "free_angle", &P->angle0) < 0;
	force_actuator(b, fr, "actuator", 0);
	static const char *const kinds[] = { "continuous", "wrapped" };
	const struct dnode *v = dn_get(fr->item, "angle");
	if (v) {
		int k = pick_name(b, v, "angle", kinds, 2);
		fr->bad |= k < 0;
		P->wrapped = k == 1;
	}
	force_expression(b, fr, 1, NULL);
}

/* The deflection from the wrapped joint angle phi of rsda i (ra_joint_q's). */
static double rsda_def_of(const struct ra *s, int i, double phi)
{
	const struct rsda_par *P = s->m->forces[i].par;
	return P->wrapped ? wrap(phi - P->angle0) : ra_from_commit(s, i, phi) - P->angle0;
}

/* Deflection of rsda i at x (joint angle less free angle), its rate and
 * the global axis z.  The angle is continuous: the branch of the wrapped
 * joint angle within pi of the angle at the last accepted state, kept in
 * s->fst (raw, turns, set) by ra_force_commit, so that a joint turned
 * through n turns deflects the spring by 2 pi n.  It is a function of x
 * alone between commits: trial states (rejected steps, Newton iterates,
 * the trial steps of statics, difference Jacobians) leave no trace, which
 * an unwrapping from the last evaluation would not (a rejected trial
 * more than pi away followed by another miscounts a turn).  Assumes an
 * accepted step turns the joint by less than pi.  With angle: wrapped the
 * deflection is wrapped to [-pi, pi). */
static double rsda_def(const struct ra *s, const struct ra_state *x, int i, double *rate,
		       double *z)
{
	return rsda_def_of(s, i, ra_joint_q(x, &s->m->joints[s->m->forces[i].joint], rate, z));
}

static void rsda_eval(const struct ra *s, const struct ra_state *x, double t,
		      const double *lam, int i, double *out, struct ra_fout *o)
{
	const struct force *f = &s->m->forces[i];
	const struct rsda_par *P = f->par;
	const struct joint *j = &s->m->joints[f->joint];
	double G[3], z[3], rate;
	double e = rsda_def(s, x, i, &rate, z);
	double mag = ra_input(s, f, P->k * e + P->c * rate + act(f, t));
	if (f->ex)
		mag += ra_expr_of(s, x, t, f, e, rate);
	v3_scale(G, -mag, z);
	add_torque(x, j->body[1], G, out + 6);
	v3_copy(o->torque, G);
	v3_scale(G, mag, z);
	add_torque(x, j->body[0], G, out);
	o->deflection = e;
	o->effort = -mag;
	o->rate = rate;
	o->energy = 0.5 * P->k * e * e;
}

/* by central differences (ra_fd_blocks) */
static void rsda_blocks(const struct ra *s, const struct ra_state *x, double t, int i,
			double cq, double cv, double *W)
{
	const struct force *f = &s->m->forces[i];
	const struct rsda_par *P = f->par;
	if (P->k != 0.0 || P->c != 0.0 || f->ex != NULL) {
		int b[2];
		elem_joint_bodies(s->m, f, b);
		ra_fd_blocks(s, x, t, i, b, cq, cv, W);
	}
}

static int rsda_has_lin(const struct force *f)
{
	return f->ex == NULL;
}

/* phi = atan2(y0 . x1, x0 . x1) of the joint's markers (x0, y0, z0 = A0
 * xb0, A0 yb0, A0 zb0; x1 = A1 xb1), rate = z0 . (A1 w1) - zb0 . w0, mag =
 * k e + c rate + act(t) (e: rsda_def_of of phi); the torque mag zb0 on
 * body 0 (body frame) and -mag A1^T z0 on body 1. */
static int rsda_lin(const struct ra *s, const struct ra_state *x, double t, int i,
		    double *K, double *C)
{
	const struct force *f = &s->m->forces[i];
	const struct rsda_par *P = f->par;
	const struct joint *j = &s->m->joints[f->joint];
	if (j->type == JOINT_TRANSLATIONAL)
		return -1;
	struct bstate b0, b1;
	ra_bstate(x, j->body[0], &b0);
	ra_bstate(x, j->body[1], &b1);
	int g0 = j->body[0] < 0, g1 = j->body[1] < 0;
	double xb0[3] = { j->F[0][0], j->F[0][3], j->F[0][6] };
	double yb0[3] = { j->F[0][1], j->F[0][4], j->F[0][7] };
	double zb0[3] = { j->F[0][2], j->F[0][5], j->F[0][8] };
	double xb1[3] = { j->F[1][0], j->F[1][3], j->F[1][6] };
	double x0[3], y0[3], z0[3], x1[3], Aw1[3];
	m3_mulv(x0, b0.A, xb0);
	m3_mulv(y0, b0.A, yb0);
	m3_mulv(z0, b0.A, zb0);
	m3_mulv(x1, b1.A, xb1);
	m3_mulv(Aw1, b1.A, b1.w);
	double X = v3_dot(x0, x1), Y = v3_dot(y0, x1), rr = X * X + Y * Y;
	double rate = v3_dot(z0, Aw1) - v3_dot(zb0, b0.w);
	double e = rsda_def_of(s, i, atan2(Y, X));
	double mag = ra_input(s, f, P->k * e + P->c * rate + act(f, t));
	/* d/dtheta of A c . u for fixed u: -(A c~)^T u = c x (A^T u) */
	double gX[12] = { 0 }, gY[12] = { 0 }, gR[12] = { 0 }, gRd[12] = { 0 }, u[3], v[3];
	if (!g0) {
		m3_tmulv(u, b0.A, x1);
		v3_cross(v, xb0, u);
		v3_copy(gX + 3, v);
		v3_cross(v, yb0, u);
		v3_copy(gY + 3, v);
		m3_tmulv(u, b0.A, Aw1);
		v3_cross(v, zb0, u);
		v3_copy(gR + 3, v);
		v3_scale(gRd + 3, -1.0, zb0);
	}
	if (!g1) {
		m3_tmulv(u, b1.A, x0);
		v3_cross(v, xb1, u);
		v3_copy(gX + 9, v);
		m3_tmulv(u, b1.A, y0);
		v3_cross(v, xb1, u);
		v3_copy(gY + 9, v);
		m3_tmulv(u, b1.A, z0);	/* z0 . A1 w1 = (A1^T z0) . w1 */
		v3_cross(v, b1.w, u);	/* d/dtheta1: w1 x (A1^T z0) */
		v3_copy(gR + 9, v);
		v3_copy(gRd + 9, u);
	}
	double gm[12], gmd[12];
	for (int q = 0; q < 12; q++) {
		double dphi = rr > 0 ? (X * gY[q] - Y * gX[q]) / rr : 0.0;
		gm[q] = P->k * dphi + P->c * gR[q];
		gmd[q] = P->c * gRd[q];
	}
	/* body 0: zb0 mag; body 1: -mag A1^T z0 */
	double z1[3];
	m3_tmulv(z1, b1.A, z0);
	for (int a = 0; a < 3; a++)
		for (int q = 0; q < 12; q++) {
			if (!g0) {
				K[12 * (3 + a) + q] += zb0[a] * gm[q];
				C[12 * (3 + a) + q] += zb0[a] * gmd[q];
			}
			if (!g1) {
				K[12 * (9 + a) + q] -= z1[a] * gm[q];
				C[12 * (9 + a) + q] -= z1[a] * gmd[q];
			}
		}
	if (g1)
		return 0;
	/* -mag d(A1^T z0) = -mag [(A1^T z0)~ dtheta1 - A1^T A0 zb0~ dtheta0] */
	double Z1[9];
	m3_skew(Z1, z1);
	for (int a = 0; a < 3; a++)
		for (int b = 0; b < 3; b++)
			K[12 * (9 + a) + 9 + b] -= mag * Z1[3 * a + b];
	if (g0)
		return 0;
	double Zb[9], AZ[9], T[9];
	m3_skew(Zb, zb0);
	m3_mul(AZ, b0.A, Zb);
	m3_tmul(T, b1.A, AZ);
	for (int a = 0; a < 3; a++)
		for (int b = 0; b < 3; b++)
			K[12 * (9 + a) + 3 + b] += mag * T[3 * a + b];
	return 0;
}

static void rsda_energy(const struct ra *s, const struct ra_state *x, int i, double *V)
{
	const struct rsda_par *P = s->m->forces[i].par;
	if (P->k == 0.0)
		return;
	double rate, z[3], e = rsda_def(s, x, i, &rate, z);
	*V += 0.5 * P->k * e * e;
}

static void rsda_ncpower(struct ra *s, const struct ra_state *x, int i, double *Pw)
{
	const struct force *f = &s->m->forces[i];
	const struct rsda_par *P = f->par;
	double rate, z[3], e = rsda_def(s, x, i, &rate, z);
	*Pw -= (P->c * rate + act(f, x->t) + ra_expr_of(s, x, x->t, f, e, rate)) * rate;
}

static unsigned rsda_props(const struct force *f)
{
	const struct rsda_par *P = f->par;
	return elem_common_props(f) | (P->c != 0.0 || f->has_act || f->ex ? ELEM_NC : 0u);
}

/* the continuous angle's reference (rsda_def) */
static int rsda_has_state(const struct force *f)
{
	return !((const struct rsda_par *)f->par)->wrapped;
}

static void rsda_start(const struct force *f, double *st)
{
	st[1] = ((const struct rsda_par *)f->par)->turns0;
}

static void rsda_commit(struct ra *s, const struct ra_state *x, int i)
{
	const struct force *f = &s->m->forces[i];
	double rate, z[3];
	if (rsda_has_state(f))
		ra_unwrap(ra_joint_q(x, &s->m->joints[f->joint], &rate, z), s->fst + RA_FST * i);
}

static void rsda_keep(const double *st, struct force *f)
{
	struct rsda_par *P = f->par;
	if (!P->wrapped)
		P->turns0 = st[1];
}

static void rsda_units(const struct model *m, const struct force *f, const char *u[3])
{
	u[0] = "rad", u[1] = "rad/s", u[2] = "N m";
}

const struct elem_ops elem_rsda = {
	.par_size = sizeof(struct rsda_par),
	.build = rsda_build,
	.props = rsda_props,
	.bodies = elem_joint_bodies,
	.eval = rsda_eval,
	.blocks = rsda_blocks,
	.has_lin = rsda_has_lin,
	.lin = rsda_lin,
	.energy = rsda_energy,
	.ncpower = rsda_ncpower,
	.has_state = rsda_has_state,
	.start = rsda_start,
	.commit = rsda_commit,
	.keep = rsda_keep,
	.units = rsda_units,
};
