/* ra_force.c - applied forces of the ra formulation (ra.h): gravity and
 * the force elements, their energies and nonconservative power, the
 * state expressions they may carry (model/sexpr.h), the tyre's road
 * contact, and the body-diagonal blocks of their Jacobians for the Newton
 * matrices. */
#include "ra.h"
#include "../util/vec.h"
#include "../util/xalloc.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Global position and velocity of body point s (body frame) */
static void point_kin(const struct bstate *b, const double *s, double *p, double *pv)
{
	double ws[3], sg[3];
	m3_mulv(sg, b->A, s);
	v3_add(p, b->r, sg);
	v3_cross(ws, b->w, s);
	m3_mulv(pv, b->A, ws);
	v3_add(pv, pv, b->v);
}

/* d = p1 - p0 and dv = v1 - v0 of point s0 of b0 and point s1 of b1 */
static void rel_kin(const struct bstate *b0, const double *s0, const struct bstate *b1,
		    const double *s1, double d[3], double dv[3])
{
	double p0[3], p1[3], v0[3], v1[3];
	point_kin(b0, s0, p0, v0);
	point_kin(b1, s1, p1, v1);
	v3_sub(d, p1, p0);
	v3_sub(dv, v1, v0);
}

/* Add force Fg (global) acting at body point s of body b to F6 (the
 * body's 6 generalized entries). */
static void add_point_force(const struct ra_state *x, int b, const double *s,
			    const double *Fg, double *F6)
{
	if (b < 0)
		return;
	double Fb[3], n[3];
	v3_add(F6, F6, Fg);
	m3_tmulv(Fb, x->A + 9 * b, Fg);
	v3_cross(n, s, Fb);
	v3_add(F6 + 3, F6 + 3, n);
}

/* Add force Fg (global) acting at the global point p to body b. */
static void add_force_at(const struct ra_state *x, int b, const double *p,
			 const double *Fg, double *F6)
{
	if (b < 0)
		return;
	double d[3], s[3];
	v3_sub(d, p, x->r + 3 * b);
	m3_tmulv(s, x->A + 9 * b, d);
	add_point_force(x, b, s, Fg, F6);
}

/* Add torque Tg (global) to body b. */
static void add_torque(const struct ra_state *x, int b, const double *Tg, double *F6)
{
	if (b < 0)
		return;
	double Tb[3];
	m3_tmulv(Tb, x->A + 9 * b, Tg);
	v3_add(F6 + 3, F6 + 3, Tb);
}

static double act(const struct force *f, double t)
{
	double g[3];
	if (!f->has_act)
		return 0.0;
	func_eval(&f->x->act, t, g);
	return g[0];
}

/* Torque on a massless link (distance joint j): a massless member carries
 * no net load, so the torque T acts on its two ends as the couple of
 * forces Fe = (T x d)/|d|^2 on end 2 and -Fe on end 1, d = p2 - p1, whose
 * moment d x Fe is the component of T normal to the link (the axial
 * component cannot be carried and is dropped).  Seed 002 eq. 13 is this
 * with |d| = L: the force T/L normal to the link on the pendulum's mass.
 * Returns Fe; dv = v2 - v1 of the ends. */
static void link_torque(const struct ra_state *x, const struct joint *j, const double *T,
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

static double wrap(double a)
{
	return a - 2.0 * M_PI * floor((a + M_PI) / (2.0 * M_PI));
}

/* ---- joint coordinates and state expressions ---- */

/* Coordinate of joint j (wrapped angle of a revolute/cylindrical, or the
 * displacement of a translational joint), its rate, and the global axis. */
static double joint_q(const struct ra_state *x, const struct joint *j, double *rate,
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

/* Unwrap angle c from the last value kept in st[0..2] (raw, turns, set). */
static double unwrap(double c, double *st)
{
	if (st[2] != 0.0)
		st[1] -= floor((c - st[0] + M_PI) / (2.0 * M_PI));
	st[0] = c;
	st[2] = 1.0;
	return c + 2.0 * M_PI * st[1];
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
			q = joint_q(x, j, &rate, z);
			if (v->kind == SX_QD) {
				v->val = rate;
			} else if (j->type == JOINT_TRANSLATIONAL) {
				v->val = q;
			} else {
				v->val = unwrap(q, v->unw);
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
			break;	/* a road height's place: road_height sets it */
		}
	}
}

double ra_sexpr(const struct ra *s, const struct ra_state *x, double t, struct sexpr *e)
{
	sx_fill(s->m, x, t, e, 0.0, 0.0);
	return sexpr_value(e);
}

static double expr_of(const struct ra *s, const struct ra_state *x, double t,
		      const struct force *f, double d, double dr)
{
	if (!f->ex)
		return 0.0;
	sx_fill(s->m, x, t, f->ex, d, dr);
	return sexpr_value(f->ex);
}

/* ---- tyre contact ---- */

/* Road height h(x, y) of tire f (the plane z = 0 without a road). */
static double road_height(const struct force *f, double px, double py)
{
	if (!f->ex)
		return 0.0;
	for (int i = 0; i < f->ex->nv; i++) {
		struct sx_var *v = &f->ex->v[i];
		if (v->kind == SX_ROAD_X)
			v->val = px;
		else if (v->kind == SX_ROAD_Y)
			v->val = py;
	}
	return sexpr_value(f->ex);
}

/* Tyre kinematics: the wheel centre p and its velocity pv (global), the
 * road height h below it and its slope (hx, hy), the penetration
 * d = h + radius - z and its rate dd = hx vx + hy vy - vz. */
struct tire_kin {
	double p[3], pv[3], h, hx, hy, d, dd;
};

/* The slope by central differences of the road expression with step
 * cbrt(DBL_EPSILON) max(1, |coordinate|) (about 6e-6 m near the origin:
 * truncation error h''' step^2 / 6, round-off DBL_EPSILON |h| / step; the
 * mean slope across a kink of the road). */
static double road_slope(const struct force *f, const double *p, int c)
{
	const double step = cbrt(DBL_EPSILON) * fmax(1.0, fabs(p[c]));
	double a[2] = { p[0], p[1] }, b[2] = { p[0], p[1] };
	a[c] += step;
	b[c] -= step;
	return (road_height(f, a[0], a[1]) - road_height(f, b[0], b[1])) / (2.0 * step);
}

static void tire_kin(const struct ra_state *x, const struct force *f, struct tire_kin *k)
{
	struct bstate bs;
	ra_bstate(x, f->body[0], &bs);
	point_kin(&bs, f->s[0], k->p, k->pv);
	k->h = road_height(f, k->p[0], k->p[1]);
	k->hx = k->hy = 0.0;
	if (f->ex && sexpr_has_state(f->ex)) {	/* names x or y */
		k->hx = road_slope(f, k->p, 0);
		k->hy = road_slope(f, k->p, 1);
	}
	k->d = k->h + f->l0 - k->p[2];
	k->dd = k->hx * k->pv[0] + k->hy * k->pv[1] - k->pv[2];
}

/* Normal force of a tire: k d + c d' in contact (d > 0), not below 0 (the
 * road pushes, never pulls: a wheel leaving faster than the damper lets
 * the spring extend is free), 0 off the road; NaN when the road is (a
 * road expression outside its domain), so that the run fails there
 * instead of losing the contact silently. */
static double tire_normal(const struct force *f, const struct tire_kin *k)
{
	if (isnan(k->d) || isnan(k->dd))
		return NAN;
	if (!(k->d > 0.0))
		return 0.0;
	double n = f->k * k->d + f->c * k->dd;
	return n > 0.0 ? n : 0.0;
}

/* Spring energy of a tire: k d^2 / 2 in contact, else 0. */
static double tire_energy(const struct force *f, const struct tire_kin *k)
{
	return k->d > 0.0 ? 0.5 * f->k * k->d * k->d : 0.0;
}

/* ---- one element ---- */

/* TSDA kinematics: unit direction i->j, length, length rate */
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

/* tension of a TSDA: spring, damper, actuator and expression */
static double tsda_mag(const struct ra *s, const struct ra_state *x, double t,
		       const struct force *f, const struct tsda_kin *k)
{
	double mag = f->k * (k->l - f->l0) + f->c * k->ld + act(f, t);
	if (f->ex)
		mag += expr_of(s, x, t, f, k->l - f->l0, k->ld);
	return mag;
}

/* Friction: normal force from multipliers of the joint's rows. Returns the
 * force magnitude along the axis on body 1 (signed) and v_rel. */
static double friction_force(const struct ra *s, const struct ra_state *x,
			     const struct force *f, const double *lam,
			     double *z, double *vrel)
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
	if (!lam || fabs(*vrel) < f->v_eps)
		return 0.0;
	struct prim P[MODEL_JOINT_ROWS_MAX];
	int n = model_joint_prims(m, f->joint, P);
	for (int i = 0; i < n; i++) {
		struct prim_out o;
		prim_eval(&P[i], &b0, &b1, x->t, PRIM_JAC, &o);
		v3_axpy(Fn, -lam[j->row0 + i], o.J[2]);
	}
	v3_axpy(Fn, -v3_dot(Fn, z), z);
	double N = v3_norm(Fn);
	return -f->mu * N * (*vrel > 0 ? 1.0 : -1.0);
}

/* Coordinate of motor i's joint (unwrapped in the motor's own state),
 * its rate and the global axis z. */
static void motor_q(const struct ra *s, const struct ra_state *x, int i, double *q,
		    double *qd, double *z)
{
	const struct joint *j = &s->m->joints[s->m->forces[i].joint];
	*q = joint_q(x, j, qd, z);
	if (j->type != JOINT_TRANSLATIONAL)
		*q = unwrap(*q, s->fst + 4 * i);
}

/* Motor effort at x, with its (unwrapped) coordinate and rate. */
static double motor_effort(const struct ra *s, const struct ra_state *x, double t,
			   int i, double *q, double *qd, double *z)
{
	const struct force *f = &s->m->forces[i];
	const double *st = s->fst + 4 * i;
	motor_q(s, x, i, q, qd, z);
	if (f->ex)
		return expr_of(s, x, t, f, *q, *qd);
	double r[3], u;
	func_eval(&f->x->target, t, r);
	if (f->x->on_rate)
		u = f->x->kp * (r[0] - *qd) + f->x->ki * st[3];
	else
		u = f->x->kp * (r[0] - *q) + f->x->kd * (r[1] - *qd) + f->x->ki * st[3];
	if (f->x->limit > 0)
		u = u > f->x->limit ? f->x->limit : u < -f->x->limit ? -f->x->limit : u;
	return u;
}

/* Bushing: relative displacement d and rotation th of marker 1 in the
 * axes of marker 0, their rates, marker 0's axes R0 (global) and the
 * point of marker 1 (global). */
struct bush_kin {
	double d[3], th[3], dd[3], thd[3], R0[9], p1[3];
};

static void bush_kin(const struct ra_state *x, const struct force *f, struct bush_kin *k)
{
	struct bstate b0, b1;
	double p0[3], v0[3], v1[3], R1[9], R[9], dp[3], dv[3], w0[3], w1[3], wx[3];
	ra_bstate(x, f->body[0], &b0);
	ra_bstate(x, f->body[1], &b1);
	point_kin(&b0, f->s[0], p0, v0);
	point_kin(&b1, f->s[1], k->p1, v1);
	m3_mul(k->R0, b0.A, f->x->F[0]);
	m3_mul(R1, b1.A, f->x->F[1]);
	m3_tmul(R, k->R0, R1);
	so3_log(k->th, R);
	v3_sub(dp, k->p1, p0);
	m3_tmulv(k->d, k->R0, dp);
	/* rates in the rotating axes of marker 0 */
	m3_mulv(w0, b0.A, b0.w);
	m3_mulv(w1, b1.A, b1.w);
	v3_sub(dv, v1, v0);
	v3_cross(wx, w0, dp);
	v3_sub(dv, dv, wx);
	m3_tmulv(k->dd, k->R0, dv);
	v3_sub(dv, w1, w0);
	m3_tmulv(k->thd, k->R0, dv);
}

/* Elastic force (moment) of bushing component c at deflection d: the
 * curve when given (its work then counts as nonconservative), else K d. */
static double bush_elastic(const struct force *f, int c, double d)
{
	return f->x->kc[c] ? curve_eval(f->x->kc[c], d, NULL) : f->x->K6[c] * d;
}

/* What element i does at x: out[0..5] on f->body[0], out[6..11] on
 * f->body[1] (translational global, rotational body frame); o (may be
 * NULL) the output quantities except power. */
static void elem_eval(const struct ra *s, const struct ra_state *x, double t,
		      const double *lam, int i, double *out, struct ra_fout *o)
{
	const struct model *m = s->m;
	const struct force *f = &m->forces[i];
	struct ra_fout tmp;
	double G[3], z[3], rate, mag, vrel;
	memset(out, 0, 12 * sizeof(double));
	if (!o)
		o = &tmp;
	memset(o, 0, sizeof(*o));
	o->effort = NAN;
	switch (f->type) {
	case FORCE_TSDA: {
		struct tsda_kin k;
		tsda_kin(x, f, &k);
		mag = tsda_mag(s, x, t, f, &k);
		v3_scale(G, mag, k.u);
		add_point_force(x, f->body[0], f->s[0], G, out);
		v3_scale(G, -mag, k.u);
		add_point_force(x, f->body[1], f->s[1], G, out + 6);
		v3_copy(o->force, G);
		o->effort = mag;
		o->deflection = k.l - f->l0;
		o->rate = k.ld;
		o->energy = 0.5 * f->k * o->deflection * o->deflection;
		break;
	}
	case FORCE_RSDA: {
		const struct joint *j = &m->joints[f->joint];
		double phi = joint_q(x, j, &rate, z), e = wrap(phi - f->l0);
		mag = f->k * e + f->c * rate + act(f, t);
		if (f->ex)
			mag += expr_of(s, x, t, f, e, rate);
		v3_scale(G, -mag, z);
		add_torque(x, j->body[1], G, out + 6);
		v3_copy(o->torque, G);
		v3_scale(G, mag, z);
		add_torque(x, j->body[0], G, out);
		o->deflection = e;
		o->effort = -mag;
		o->rate = rate;
		o->energy = 0.5 * f->k * e * e;
		break;
	}
	case FORCE_POINT:
	case FORCE_TORQUE: {
		int b = f->body[0];
		double g = f->ex ? expr_of(s, x, t, f, 0.0, 0.0) : act(f, t);
		if (f->type == FORCE_TORQUE && f->joint >= 0) {
			const struct joint *j = &m->joints[f->joint];
			double dv[3];
			v3_scale(G, g, f->vec);
			v3_copy(o->torque, G);
			link_torque(x, j, G, z, dv);
			add_point_force(x, j->body[1], j->s[1], z, out + 6);
			v3_copy(o->force, z);
			v3_scale(z, -1.0, z);
			add_point_force(x, j->body[0], j->s[0], z, out);
			break;
		}
		if (b < 0)
			break;
		if (f->body_frame)
			m3_mulv(G, x->A + 9 * b, f->vec);
		else
			v3_copy(G, f->vec);
		v3_scale(G, g, G);
		if (f->type == FORCE_POINT) {
			add_point_force(x, b, f->s[0], G, out);
			v3_copy(o->force, G);
		} else {
			add_torque(x, b, G, out);
			v3_copy(o->torque, G);
		}
		break;
	}
	case FORCE_FRICTION: {
		const struct joint *j = &m->joints[f->joint];
		mag = friction_force(s, x, f, lam, z, &vrel);
		v3_scale(G, mag, z);
		add_point_force(x, j->body[1], j->s[1], G, out + 6);
		v3_copy(o->force, G);
		v3_scale(G, -mag, z);
		add_point_force(x, j->body[0], j->s[0], G, out);
		o->rate = vrel;
		o->effort = mag;
		break;
	}
	case FORCE_MOTOR: {
		const struct joint *j = &m->joints[f->joint];
		double q, qd, u = motor_effort(s, x, t, i, &q, &qd, z);
		o->deflection = q;
		o->rate = qd;
		o->effort = u;
		v3_scale(G, u, z);
		if (j->type == JOINT_TRANSLATIONAL) {
			/* along the axis at body 2's joint point, reaction at the
			 * same point on body 1 */
			struct bstate b1;
			double p1[3], v1[3], Gm[3];
			ra_bstate(x, j->body[1], &b1);
			point_kin(&b1, j->s[1], p1, v1);
			add_force_at(x, j->body[1], p1, G, out + 6);
			v3_copy(o->force, G);
			v3_scale(Gm, -u, z);
			add_force_at(x, j->body[0], p1, Gm, out);
		} else {
			add_torque(x, j->body[1], G, out + 6);
			v3_copy(o->torque, G);
			v3_scale(G, -u, z);
			add_torque(x, j->body[0], G, out);
		}
		break;
	}
	case FORCE_BUSHING: {
		struct bush_kin k;
		double fm[3], tm[3], Fg[3], Tg[3];
		bush_kin(x, f, &k);
		for (int c = 0; c < 3; c++) {
			fm[c] = -(bush_elastic(f, c, k.d[c]) + f->x->C6[c] * k.dd[c]) + f->x->pre[c];
			tm[c] = -(bush_elastic(f, 3 + c, k.th[c]) + f->x->C6[3 + c] * k.thd[c]) +
				f->x->pre[3 + c];
			o->energy += 0.5 * (f->x->K6[c] * k.d[c] * k.d[c] +
					    f->x->K6[3 + c] * k.th[c] * k.th[c]) -
				     f->x->pre[c] * k.d[c] - f->x->pre[3 + c] * k.th[c];
		}
		m3_mulv(Fg, k.R0, fm);
		m3_mulv(Tg, k.R0, tm);
		add_force_at(x, f->body[1], k.p1, Fg, out + 6);
		add_torque(x, f->body[1], Tg, out + 6);
		v3_copy(o->force, Fg);
		v3_copy(o->torque, Tg);
		v3_scale(Fg, -1.0, Fg);
		v3_scale(Tg, -1.0, Tg);
		add_force_at(x, f->body[0], k.p1, Fg, out);
		add_torque(x, f->body[0], Tg, out);
		o->deflection = v3_norm(k.d);
		o->rate = o->deflection > 0 ? v3_dot(k.d, k.dd) / o->deflection : 0.0;
		break;
	}
	case FORCE_TIRE: {
		struct tire_kin k;
		tire_kin(x, f, &k);
		v3_set(G, 0.0, 0.0, tire_normal(f, &k));
		add_point_force(x, f->body[0], f->s[0], G, out);
		v3_copy(o->force, G);
		o->effort = G[2];
		o->deflection = k.d;
		o->rate = k.dd;
		o->energy = tire_energy(f, &k);
		break;
	}
	default:
		break;
	}
}

/* The bodies an element's out[0..5], out[6..11] act on. */
static void elem_bodies(const struct model *m, const struct force *f, int b[2])
{
	b[0] = f->body[0];
	b[1] = f->type == FORCE_POINT || f->type == FORCE_TORQUE || f->type == FORCE_TIRE ?
	       -1 : f->body[1];
	if (f->type == FORCE_RSDA || f->type == FORCE_FRICTION || f->type == FORCE_MOTOR ||
	    (f->type == FORCE_TORQUE && f->joint >= 0)) {
		b[0] = m->joints[f->joint].body[0];
		b[1] = m->joints[f->joint].body[1];
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
		elem_eval(s, x, t, lam, i, out, NULL);
		elem_bodies(m, &m->forces[i], b);
		for (int e = 0; e < 2; e++)
			if (b[e] >= 0)
				for (int c = 0; c < 6; c++)
					F[6 * b[e] + c] += out[6 * e + c];
	}
	if (m->nbeams)
		ra_beam_forces(s, x, F);
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
	elem_eval(s, x, t, x->lam, i, out, o);
	elem_bodies(s->m, &s->m->forces[i], b);
	o->power = elem_power(x, b, out);
}

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
		const struct force *f = &m->forces[i];
		if (f->type == FORCE_TSDA && f->k != 0.0) {
			struct tsda_kin k;
			tsda_kin(x, f, &k);
			V += 0.5 * f->k * (k.l - f->l0) * (k.l - f->l0);
		} else if (f->type == FORCE_RSDA && f->k != 0.0) {
			double rate, z[3];
			double e = wrap(joint_q(x, &m->joints[f->joint], &rate, z) - f->l0);
			V += 0.5 * f->k * e * e;
		} else if (f->type == FORCE_BUSHING) {
			struct ra_fout o;
			double out[12];
			elem_eval(s, x, x->t, NULL, i, out, &o);
			V += o.energy;
		} else if (f->type == FORCE_TIRE) {
			struct tire_kin k;
			tire_kin(x, f, &k);
			V += tire_energy(f, &k);
		}
	}
	if (m->nbeams)
		V += ra_beam_energy(s, x);
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

double ra_ncpower(struct ra *s, const struct ra_state *x)
{
	const struct model *m = s->m;
	double P = driver_power(s, x);
	if (m->nbeams)
		P += ra_beam_ncpower(s, x);
	for (int i = 0; i < m->nforces; i++) {
		const struct force *f = &m->forces[i];
		double z[3], rate, vrel, G[3];
		switch (f->type) {
		case FORCE_TSDA: {
			struct tsda_kin k;
			tsda_kin(x, f, &k);
			P -= (f->c * k.ld + act(f, x->t) +
			      expr_of(s, x, x->t, f, k.l - f->l0, k.ld)) * k.ld;
			break;
		}
		case FORCE_RSDA: {
			double e = wrap(joint_q(x, &m->joints[f->joint], &rate, z) - f->l0);
			P -= (f->c * rate + act(f, x->t) + expr_of(s, x, x->t, f, e, rate)) * rate;
			break;
		}
		case FORCE_POINT:
		case FORCE_TORQUE: {
			int b = f->body[0];
			if (f->type == FORCE_TORQUE && f->joint >= 0) {
				double Fe[3], dv[3];
				v3_scale(G, f->ex ? expr_of(s, x, x->t, f, 0.0, 0.0) : act(f, x->t),
					 f->vec);
				link_torque(x, &m->joints[f->joint], G, Fe, dv);
				P += v3_dot(Fe, dv);
				break;
			}
			if (b < 0)
				break;
			struct bstate bs;
			double p[3], pv[3], wg[3];
			ra_bstate(x, b, &bs);
			if (f->body_frame)
				m3_mulv(G, bs.A, f->vec);
			else
				v3_copy(G, f->vec);
			v3_scale(G, f->ex ? expr_of(s, x, x->t, f, 0.0, 0.0) : act(f, x->t), G);
			if (f->type == FORCE_POINT) {
				point_kin(&bs, f->s[0], p, pv);
				P += v3_dot(G, pv);
			} else {
				m3_mulv(wg, bs.A, bs.w);
				P += v3_dot(G, wg);
			}
			break;
		}
		case FORCE_FRICTION:
			P += friction_force(s, x, f, x->lam, z, &vrel) * vrel;
			break;
		case FORCE_MOTOR: {
			struct ra_fout o;
			ra_force_out(s, x, x->t, i, &o);
			P += o.power;
			break;
		}
		case FORCE_TIRE: {
			/* its power less what the spring energy k d^2/2 gives up,
			 * -k d d': the damper's work, and on a sloped road the
			 * spring's too (a vertical force k d(x, y, z) has no
			 * potential unless h is constant) */
			struct ra_fout o;
			ra_force_out(s, x, x->t, i, &o);
			P += o.power;
			if (o.deflection > 0.0)
				P += f->k * o.deflection * o.rate;
			break;
		}
		case FORCE_BUSHING: {
			/* the dampers' and curves' power; linear springs and
			 * preloads are in V */
			struct bush_kin k;
			bush_kin(x, f, &k);
			for (int c = 0; c < 3; c++) {
				P -= f->x->C6[c] * k.dd[c] * k.dd[c] + f->x->C6[3 + c] * k.thd[c] * k.thd[c];
				if (f->x->kc[c])
					P -= bush_elastic(f, c, k.d[c]) * k.dd[c];
				if (f->x->kc[3 + c])
					P -= bush_elastic(f, 3 + c, k.th[c]) * k.thd[c];
			}
			break;
		}
		default:
			break;
		}
	}
	return P;
}

void ra_force_init(struct ra *s)
{
	const struct model *m = s->m;
	for (int i = 0; i < m->nforces; i++)
		if (m->forces[i].type == FORCE_MOTOR) {
			s->fst = xcalloc(4 * (size_t)m->nforces, sizeof(double));
			return;
		}
}

void ra_force_step(struct ra *s, const struct ra_state *x, double h)
{
	const struct model *m = s->m;
	if (!s->fst)
		return;
	for (int i = 0; i < m->nforces; i++) {
		const struct force *f = &m->forces[i];
		if (f->type != FORCE_MOTOR || f->ex || f->x->ki == 0.0)
			continue;
		double q, qd, z[3], r[3];
		motor_q(s, x, i, &q, &qd, z);
		func_eval(&f->x->target, x->t, r);
		s->fst[4 * i + 3] += h * (r[0] - (f->x->on_rate ? qd : q));
	}
}

/* ---- Jacobian blocks ---- */

/* Elements whose blocks come from finite differences: every element with
 * a state expression, the RSDA, the motor, the bushing and the tire. */
static int fd_element(const struct force *f)
{
	if (f->type == FORCE_RSDA)
		return f->k != 0.0 || f->c != 0.0 || f->ex != NULL;
	if (f->type == FORCE_POINT || f->type == FORCE_TORQUE || f->type == FORCE_TSDA)
		return f->ex != NULL && sexpr_has_state(f->ex);
	return f->type == FORCE_MOTOR || f->type == FORCE_BUSHING || f->type == FORCE_TIRE;
}

/* Central differences of element i's force on body b[e] with respect to
 * that body's own r, theta (A <- A exp(theta~)), v and w: step
 * cbrt(DBL_EPSILON) max(1, |value|) (about 6e-6; error O(step^2), some
 * 1e-11 relative); W[18 b + ...] += cq K + cv C with K = -dF/d(r, theta),
 * C = -dF/d(v, w), translational and rotational 3x3 blocks. */
static void fd_blocks(const struct ra *s, const struct ra_state *xc, double t, int i,
		      const int b[2], double cq, double cv, double *W)
{
	struct ra_state *x = (struct ra_state *)xc;	/* perturbed and restored */
	const double eps = cbrt(DBL_EPSILON);
	for (int e = 0; e < 2; e++) {
		int bb = b[e];
		if (bb < 0)
			continue;
		double *r = x->r + 3 * bb, *v = x->v + 3 * bb, *w = x->w + 3 * bb;
		double *A = x->A + 9 * bb, A0[9];
		memcpy(A0, A, sizeof A0);
		for (int kind = 0; kind < 4; kind++)
			for (int c = 0; c < 3; c++) {
				double *p = kind == 0 ? r + c : kind == 2 ? v + c : kind == 3 ? w + c : NULL;
				double save = p ? *p : 0.0, hstep = eps * fmax(1.0, fabs(save));
				double op[12], om[12];
				for (int sgn = 0; sgn < 2; sgn++) {
					double dd = sgn ? -hstep : hstep;
					if (p) {
						*p = save + dd;
					} else {
						double th[3] = { 0, 0, 0 }, R[9];
						th[c] = dd;
						so3_exp(R, th);
						m3_mul(A, A0, R);
					}
					elem_eval(s, x, t, x->lam, i, sgn ? om : op, NULL);
					if (p)
						*p = save;
					else
						memcpy(A, A0, sizeof A0);
				}
				double coef = (kind < 2 ? cq : cv) / (2.0 * hstep);
				int blk = kind == 0 || kind == 2 ? 0 : 9;
				int row0 = kind == 0 || kind == 2 ? 0 : 3;
				for (int rr = 0; rr < 3; rr++)
					W[18 * bb + blk + 3 * rr + c] -=
						coef * (op[6 * e + row0 + rr] - om[6 * e + row0 + rr]);
			}
	}
}

void ra_force_blocks(const struct ra *s, const struct ra_state *x, double t,
		     double cq, double cv, double *W)
{
	const struct model *m = s->m;
	for (int i = 0; i < m->nforces; i++) {
		const struct force *f = &m->forces[i];
		if (fd_element(f)) {
			int b[2];
			elem_bodies(m, f, b);
			fd_blocks(s, x, t, i, b, cq, cv, W);
			continue;
		}
		/* an actuator alone still turns its force with u: (mag / l) term */
		if (f->type != FORCE_TSDA || (f->k == 0.0 && f->c == 0.0 && !f->has_act && !f->ex))
			continue;
		struct tsda_kin k;
		tsda_kin(x, f, &k);
		double mag = tsda_mag(s, x, t, f, &k);
		double g = k.l > 0 ? mag / k.l : f->k, B[9];	/* l -> 0: f = -k d */
		/* d(-mag u)/d p_j = -(k + c d/dt) u u^T - (mag / l) (I - u u^T) */
		for (int r = 0; r < 3; r++)
			for (int c = 0; c < 3; c++) {
				double uu = k.u[r] * k.u[c];
				B[3 * r + c] = cq * (f->k * uu + g * ((r == c) - uu)) + cv * f->c * uu;
			}
		for (int e = 0; e < 2; e++) {
			int b = f->body[e];
			if (b < 0)
				continue;
			for (int q = 0; q < 9; q++)
				W[18 * b + q] += B[q];
		}
	}
}

/* ---- full Jacobians of force elements (analytic integration Jacobians,
 * seed 001 §3 eqs. 32, 35: the Q_q and Q_qdot of the state-space ODE) ---- */

/* M (3 x 12, row-major) += sign * [I (when r), -A c~] in the columns of
 * side e: d (r + A c) / d (r, theta), or without r d (A c) / d theta. */
static void jcols(double *M, int e, int with_r, const double *A, const double *c, double sign)
{
	double C[9], AC[9];
	m3_skew(C, c);
	m3_mul(AC, A, C);
	for (int a = 0; a < 3; a++) {
		if (with_r)
			M[12 * a + 6 * e + a] += sign;
		for (int k = 0; k < 3; k++)
			M[12 * a + 6 * e + 3 + k] -= sign * AC[3 * a + k];
	}
}

/* out rows (6 e .. 6 e + 5) of a force G (3 x 12 derivative dG, value G)
 * at body point c of side e: F = G, n = c x (A^T G); dn = c~ A^T dG, plus
 * c~ (A^T G)~ on the body's own theta (A^T <- exp(-theta~) A^T) when
 * with_theta. */
static void point_force_lin(double *K, int e, const double *A, const double *c,
			    const double *G, const double *dG, int with_theta)
{
	double Cs[9], At[9], CA[9];
	m3_skew(Cs, c);
	for (int a = 0; a < 3; a++)
		for (int b = 0; b < 3; b++)
			At[3 * a + b] = A[3 * b + a];
	m3_mul(CA, Cs, At);
	for (int a = 0; a < 3; a++)
		for (int k = 0; k < 12; k++) {
			K[12 * (6 * e + a) + k] += dG[12 * a + k];
			double s = 0.0;
			for (int b = 0; b < 3; b++)
				s += CA[3 * a + b] * dG[12 * b + k];
			K[12 * (6 * e + 3 + a) + k] += s;
		}
	if (!with_theta)
		return;
	double ag[3], AG[9], T[9];
	m3_tmulv(ag, A, G);
	m3_skew(AG, ag);
	m3_mul(T, Cs, AG);
	for (int a = 0; a < 3; a++)
		for (int b = 0; b < 3; b++)
			K[12 * (6 * e + 3 + a) + 6 * e + 3 + b] += T[3 * a + b];
}

/* Second differences of the road: h_xx, h_xy, h_yy at p, step
 * DBL_EPSILON^(1/4) max(1, |coordinate|) (~1.2e-4 m: truncation
 * h'''' step^2 / 12, round-off 4 eps |h| / step^2). */
static void road_curv(const struct force *f, const double *p, double H[3])
{
	double ex = pow(DBL_EPSILON, 0.25) * fmax(1.0, fabs(p[0]));
	double ey = pow(DBL_EPSILON, 0.25) * fmax(1.0, fabs(p[1]));
	double h0 = road_height(f, p[0], p[1]);
	H[0] = (road_height(f, p[0] + ex, p[1]) - 2.0 * h0 + road_height(f, p[0] - ex, p[1])) /
	       (ex * ex);
	H[2] = (road_height(f, p[0], p[1] + ey) - 2.0 * h0 + road_height(f, p[0], p[1] - ey)) /
	       (ey * ey);
	H[1] = (road_height(f, p[0] + ex, p[1] + ey) - road_height(f, p[0] + ex, p[1] - ey) -
		road_height(f, p[0] - ex, p[1] + ey) + road_height(f, p[0] - ex, p[1] - ey)) /
	       (4.0 * ex * ey);
}

int ra_force_has_lin(const struct force *f)
{
	if (f->type == FORCE_TSDA || f->type == FORCE_RSDA)
		return f->ex == NULL;
	if (f->type == FORCE_POINT || f->type == FORCE_TORQUE)	/* not on a link */
		return (f->ex == NULL || !sexpr_has_state(f->ex)) &&
		       !(f->type == FORCE_TORQUE && f->joint >= 0);
	return f->type == FORCE_TIRE;
}

/* RSDA (joint_q, elem_eval): phi = atan2(y0 . x1, x0 . x1) of the joint's
 * markers (x0, y0, z0 = A0 xb0, A0 yb0, A0 zb0; x1 = A1 xb1), rate =
 * z0 . (A1 w1) - zb0 . w0, mag = k wrap(phi - l0) + c rate + act(t); the
 * torque mag zb0 on body 0 (body frame) and -mag A1^T z0 on body 1. */
static void rsda_lin(const struct ra *s, const struct ra_state *x, double t,
		     const struct force *f, double *K, double *C)
{
	const struct joint *j = &s->m->joints[f->joint];
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
	double phi = atan2(Y, X), e = wrap(phi - f->l0);
	double mag = f->k * e + f->c * rate + act(f, t);
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
		gm[q] = f->k * dphi + f->c * gR[q];
		gmd[q] = f->c * gRd[q];
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
		return;
	/* -mag d(A1^T z0) = -mag [(A1^T z0)~ dtheta1 - A1^T A0 zb0~ dtheta0] */
	double Z1[9];
	m3_skew(Z1, z1);
	for (int a = 0; a < 3; a++)
		for (int b = 0; b < 3; b++)
			K[12 * (9 + a) + 9 + b] -= mag * Z1[3 * a + b];
	if (g0)
		return;
	double Zb[9], AZ[9], T[9];
	m3_skew(Zb, zb0);
	m3_mul(AZ, b0.A, Zb);
	m3_tmul(T, b1.A, AZ);
	for (int a = 0; a < 3; a++)
		for (int b = 0; b < 3; b++)
			K[12 * (9 + a) + 3 + b] += mag * T[3 * a + b];
}

int ra_force_lin(const struct ra *s, const struct ra_state *x, double t, int i, int b[2],
		 double *K, double *C)
{
	const struct model *m = s->m;
	const struct force *f = &m->forces[i];
	memset(K, 0, 144 * sizeof(double));
	memset(C, 0, 144 * sizeof(double));
	elem_bodies(m, f, b);
	if (!ra_force_has_lin(f))
		return -1;
	if (f->type == FORCE_RSDA) {
		if (m->joints[f->joint].type == JOINT_TRANSLATIONAL)
			return -1;
		rsda_lin(s, x, t, f, K, C);
		return 0;
	}
	if (f->type == FORCE_POINT || f->type == FORCE_TORQUE) {
		/* G = g(t) vec, global or A vec (body frame): a global G turns
		 * in the body frame, A^T G <- exp(-theta~) A^T G; a body-frame
		 * G turns in the global frame, A vec <- A exp(theta~) vec */
		int b0 = f->body[0];
		if (b0 < 0)
			return 0;
		double g = f->ex ? expr_of(s, x, t, f, 0.0, 0.0) : act(f, t), vb[3], G[3];
		const double *A = x->A + 9 * b0;
		v3_scale(vb, g, f->vec);
		if (f->body_frame)
			m3_mulv(G, A, vb);
		else
			v3_copy(G, vb);
		double dG[36] = { 0 };
		if (f->body_frame)
			jcols(dG, 0, 0, A, vb, 1.0);	/* d (A vb) / d theta */
		if (f->type == FORCE_POINT) {
			point_force_lin(K, 0, A, f->s[0], G, dG, 1);
			return 0;
		}
		/* torque: body frame A^T G; d = (A^T G)~ dtheta for a global G,
		 * 0 for a body-frame one (A^T A vb = vb) */
		if (!f->body_frame) {
			double ag[3], AG[9];
			m3_tmulv(ag, A, G);
			m3_skew(AG, ag);
			for (int a = 0; a < 3; a++)
				for (int c = 0; c < 3; c++)
					K[12 * (3 + a) + 3 + c] += AG[3 * a + c];
		}
		return 0;
	}
	if (f->type == FORCE_TSDA) {
		struct bstate bs[2];
		struct tsda_kin k;
		ra_bstate(x, f->body[0], &bs[0]);
		ra_bstate(x, f->body[1], &bs[1]);
		tsda_kin(x, f, &k);
		if (!(k.l > 0.0))
			return -1;
		double mag = tsda_mag(s, x, t, f, &k);
		/* d = p1 - p0, dv = pv1 - pv0: derivatives in z and zdot */
		double Dd[36] = { 0 }, Dv[36] = { 0 }, Dvd[36] = { 0 }, dv[3];
		for (int e = 0; e < 2; e++) {
			if (f->body[e] < 0)
				continue;
			double sg = e ? 1.0 : -1.0, wc[3];
			v3_cross(wc, bs[e].w, f->s[e]);
			jcols(Dd, e, 1, bs[e].A, f->s[e], sg);
			jcols(Dv, e, 0, bs[e].A, wc, sg);
			jcols(Dvd, e, 1, bs[e].A, f->s[e], sg);
		}
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
				dldd += k.u[a] * Dvd[12 * a + q];
			}
			gz[q] = f->k * dl + f->c * dld;
			gd[q] = f->c * dldd;
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
			point_force_lin(K, e, bs[e].A, f->s[e], G, dG, 1);
			point_force_lin(C, e, bs[e].A, f->s[e], G, dGd, 0);
		}
		return 0;
	}
	/* tire: N = k d + c d' in contact, d = h(p) + R - p_z,
	 * d' = h_x pv_x + h_y pv_y - pv_z (tire_kin) */
	struct tire_kin k;
	struct bstate bs;
	tire_kin(x, f, &k);
	ra_bstate(x, f->body[0], &bs);
	double N = tire_normal(f, &k);
	if (!(N > 0.0) || f->body[0] < 0)
		return isnan(N) ? -1 : 0;
	double Dp[36] = { 0 }, Dv[36] = { 0 }, Dvd[36] = { 0 }, wc[3], hc[3] = { 0, 0, 0 };
	v3_cross(wc, bs.w, f->s[0]);
	jcols(Dp, 0, 1, bs.A, f->s[0], 1.0);
	jcols(Dv, 0, 0, bs.A, wc, 1.0);
	jcols(Dvd, 0, 1, bs.A, f->s[0], 1.0);
	if (f->ex && sexpr_has_state(f->ex))
		road_curv(f, k.p, hc);
	double cx = hc[0] * k.pv[0] + hc[1] * k.pv[1], cy = hc[1] * k.pv[0] + hc[2] * k.pv[1];
	double dG[36] = { 0 }, dGd[36] = { 0 }, G[3] = { 0, 0, N };
	for (int q = 0; q < 12; q++) {
		double dd = k.hx * Dp[q] + k.hy * Dp[12 + q] - Dp[24 + q];
		double ddz = cx * Dp[q] + cy * Dp[12 + q] + k.hx * Dv[q] + k.hy * Dv[12 + q] -
			     Dv[24 + q];
		double ddd = k.hx * Dvd[q] + k.hy * Dvd[12 + q] - Dvd[24 + q];
		dG[24 + q] = f->k * dd + f->c * ddz;
		dGd[24 + q] = f->c * ddd;
	}
	point_force_lin(K, 0, bs.A, f->s[0], G, dG, 1);
	point_force_lin(C, 0, bs.A, f->s[0], G, dGd, 0);
	return 0;
}
