/* ra_force.c - applied forces of the ra formulation (ra.h): gravity and
 * the force elements, the state expressions they may carry
 * (model/sexpr.h), the tyre's road contact and the motors' state; their
 * energies and nonconservative power in ra_energy.c, the Jacobians in
 * ra_force_jac.c. */
#include "ra_force_impl.h"
#include "../util/xalloc.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

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

/* Unwrap angle c from the last value kept in st[0..2] (raw, turns, set). */
static double unwrap(double c, double *st)
{
	if (st[2] != 0.0)
		st[1] -= floor((c - st[0] + M_PI) / (2.0 * M_PI));
	st[0] = c;
	st[2] = 1.0;
	return c + 2.0 * M_PI * st[1];
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
double ra_rsda_def(const struct ra *s, const struct ra_state *x, int i, double *rate,
		   double *z)
{
	return ra_rsda_def_of(s, i, ra_joint_q(x, &s->m->joints[s->m->forces[i].joint], rate, z));
}

/* The branch of the wrapped angle phi of force i's joint within pi of
 * its angle at the last commit (ra_force_commit), or phi itself before
 * any: a function of phi alone between commits. */
static double from_commit(const struct ra *s, int i, double phi)
{
	double st[3];
	memcpy(st, s->fst + RA_FST * i, sizeof st);
	return unwrap(phi, st);
}

double ra_rsda_def_of(const struct ra *s, int i, double phi)
{
	const struct force *f = &s->m->forces[i];
	return f->wrapped ? wrap(phi - f->l0) : from_commit(s, i, phi) - f->l0;
}

void ra_force_commit(struct ra *s, const struct ra_state *x)
{
	const struct model *m = s->m;
	ra_cpl_commit(s, x);	/* the coupling rows' angles, accepted alike */
	if (!s->fst)	/* no continuous rsda, no motor (ra_force_init) */
		return;
	for (int i = 0; i < m->nforces; i++) {
		const struct force *f = &m->forces[i];
		const struct joint *j = f->joint >= 0 ? &m->joints[f->joint] : NULL;
		double rate, z[3];
		if ((f->type == FORCE_RSDA && !f->wrapped) ||
		    (f->type == FORCE_MOTOR && j->type != JOINT_TRANSLATIONAL))
			unwrap(ra_joint_q(x, j, &rate, z), s->fst + RA_FST * i);
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

/* ---- tyre contact ---- */

/* Road height h(x, y) of tire f (the plane z = 0 without a road). */
double ra_road_height(const struct force *f, double px, double py)
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
	return (ra_road_height(f, a[0], a[1]) - ra_road_height(f, b[0], b[1])) / (2.0 * step);
}

void ra_tire_kin(const struct ra_state *x, const struct force *f, struct tire_kin *k)
{
	struct bstate bs;
	ra_bstate(x, f->body[0], &bs);
	point_kin(&bs, f->s[0], k->p, k->pv);
	k->h = ra_road_height(f, k->p[0], k->p[1]);
	k->hx = k->hy = 0.0;
	if (ra_road_varies(f)) {
		k->hx = road_slope(f, k->p, 0);
		k->hy = road_slope(f, k->p, 1);
	}
	k->d = k->h + f->l0 - k->p[2];
	k->dd = k->hx * k->pv[0] + k->hy * k->pv[1] - k->pv[2];
}

/* ---- road look-ahead (adaptive steps) ---- */

/* Samples of the road a wheel may scan in one look-ahead: beyond them the
 * step is cut to the length scanned (32768 spacings, e.g. 150 m at the
 * default spacing of a 0.467 m wheel). */
enum { AHEAD_MAX = 32768 };

/* The road h at distance s along the unit direction u from p. */
static double road_along(const struct force *f, const double *p, const double *u, double s)
{
	return ra_road_height(f, p[0] + s * u[0], p[1] + s * u[1]);
}

/* Whether the road at distance s departs by more than tol from the curve
 * z = h0 + m s + k s^2 (NaN, a road outside its domain, counts as
 * departing). */
static int departs(const struct force *f, const double *p, const double *u, double s,
		   double h0, double m, double k, double tol)
{
	return !(fabs(road_along(f, p, u, s) - (h0 + (m + k * s) * s)) <= tol);
}

/* Spacings a step may travel while its tire is on a feature (below). */
enum { AHEAD_ON = 4 };

/* The longest time in which a wheel centre at horizontal speed v, its
 * horizontal acceleration at most acc, travels at most s: the root of
 * v t + acc t^2 = s (twice the travel a constant acc adds, a margin for
 * its change over the step). */
static double time_for(double s, double v, double acc)
{
	if (!(acc > 0.0))
		return s / v;
	return 2.0 * s / (v + sqrt(v * v + 4.0 * acc * s));
}

/* Look-ahead of one tire (ra.h): vec[0] the spacing D, vec[1] the
 * tolerance tol (model.h).  The wheel centre at x moves horizontally at v
 * along u with a horizontal acceleration of at most acc (its body's
 * centroid's, plus (|w'| + |w|^2) |s| of the rotation, at x), so over a
 * step h it travels at most v h + acc h^2 (time_for), and it is taken to
 * travel along u.  The road behind it, at -2D, -D and 0, tells whether it
 * is on a feature: its second difference above tol (a radius of
 * curvature below D^2 / tol, 0.22 m at the defaults of a 0.467 m wheel,
 * or a kink or step within 2D).  On a feature the step may travel
 * AHEAD_ON spacings, so that its stages sample the feature's shape.  Off
 * one, the road is sampled every D ahead up to the step's longest travel
 * plus D, and the first departure by more than tol from the parabola
 * through the three points behind (so that a road of constant curvature
 * never departs), located by bisection to 1e-9 D, is the feature's entry
 * s*.  The step is cut to travel at most s* - D/2, landing short of it;
 * within 3D/2 of the entry, to travel at most D: the step that enters
 * the feature spans at most one spacing.  A scan stops after AHEAD_MAX
 * samples, and the step is then cut to what it covered. */
static double tire_ahead(const struct ra_state *x, const struct force *f, double h,
			 struct road_scan *c)
{
	const double D = f->vec[0], tol = f->vec[1];
	if (!ra_tire_looks_ahead(f))
		return h;
	struct bstate bs;
	double p[3], pv[3];
	ra_bstate(x, f->body[0], &bs);
	point_kin(&bs, f->s[0], p, pv);
	const double v = hypot(pv[0], pv[1]);
	if (!(v > 0.0) || !isfinite(v) || !(h > 0.0))
		return h;
	const double u[2] = { pv[0] / v, pv[1] / v };
	const double *a = x->a + 3 * f->body[0], *wd = x->wd + 3 * f->body[0];
	const double rs = v3_norm(f->s[0]);
	double acc = hypot(a[0], a[1]) + (v3_norm(wd) + v3_dot(bs.w, bs.w)) * rs;
	if (!isfinite(acc))
		acc = 0.0;
	const double reach = v * h + acc * h * h + D;	/* the farthest road a step may see */
	double lo = INFINITY;
	if (c->valid) {
		/* the last scan's line still under the wheel (its direction
		 * and place within D / 1000 over the length scanned, and both
		 * points behind it on the part found smooth): its result holds */
		double d0 = p[0] - c->p0[0], d1 = p[1] - c->p0[1];
		double sp = d0 * c->u[0] + d1 * c->u[1];
		if (sp >= 2.0 * D && fabs(d0 * c->u[1] - d1 * c->u[0]) <= 1e-3 * D &&
		    hypot(u[0] - c->u[0], u[1] - c->u[1]) * c->clear <= 1e-3 * D) {
			if (c->entry && c->clear - sp > 2.0 * D)
				lo = c->clear - sp;
			else if (!c->entry && sp + reach <= c->clear)
				return h;
		}
	}
	if (!isfinite(lo)) {
		c->valid = 0;
		const double h0 = road_along(f, p, u, 0.0), h1 = road_along(f, p, u, -D);
		const double h2 = road_along(f, p, u, -2.0 * D);
		const double dd = h0 - 2.0 * h1 + h2;
		if (!(fabs(dd) <= tol))
			return fmin(h, time_for(AHEAD_ON * D, v, acc));
		/* the parabola through -2D, -D, 0: h0 + m s + k s^2 */
		const double m = (3.0 * h0 - 4.0 * h1 + h2) / (2.0 * D), k = dd / (2.0 * D * D);
		double Jd = ceil(reach / D);
		int cut = Jd > AHEAD_MAX;
		long J = cut ? AHEAD_MAX : (long)Jd;
		long j = 1;
		while (j <= J && !departs(f, p, u, (double)j * D, h0, m, k, tol))
			j++;
		*c = (struct road_scan){ 1, { p[0], p[1] }, { u[0], u[1] }, (double)(j - 1) * D, 0 };
		if (j > J)
			return cut ? fmin(h, time_for((double)J * D, v, acc)) : h;
		double hi = (double)j * D;
		lo = (double)(j - 1) * D;
		while (hi - lo > 1e-9 * D) {
			double mid = 0.5 * (lo + hi);
			if (departs(f, p, u, mid, h0, m, k, tol))
				hi = mid;
			else
				lo = mid;
		}
		c->clear = lo;
		c->entry = 1;
	}
	if (lo <= 1.5 * D)
		return fmin(h, time_for(D, v, acc));
	return fmin(h, time_for(lo - 0.5 * D, v, acc));
}

double ra_road_ahead(const struct model *md, const struct ra_state *x, double h,
		     struct road_scan *scan)
{
	for (int i = 0; i < md->nforces; i++)
		if (md->forces[i].type == FORCE_TIRE)
			h = tire_ahead(x, &md->forces[i], h, &scan[i]);
	return h;
}

/* ---- one element ---- */

void ra_tsda_kin(const struct ra_state *x, const struct force *f, struct tsda_kin *k)
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
double ra_tsda_mag(const struct ra *s, const struct ra_state *x, double t,
		   const struct force *f, const struct tsda_kin *k)
{
	double mag = f->k * (k->l - f->l0) + f->c * k->ld + act(f, t);
	if (f->ex)
		mag += ra_expr_of(s, x, t, f, k->l - f->l0, k->ld);
	return mag;
}

/* Friction: normal force from multipliers of the joint's rows. Returns the
 * force magnitude along the axis on body 1 (signed) and v_rel. */
double ra_friction_force(const struct ra *s, const struct ra_state *x,
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

/* s->fst per force (ra.h): the unwrap state of a motor's angle in
 * [0..2], and of the integral z of its control error: [FST_Z] z_n, its
 * value at [FST_T] t_n, where the error was [FST_E] e_n, [FST_SET] 1 once
 * t_n and e_n are taken. */
enum { FST_Z = 3, FST_T = 4, FST_E = 5, FST_SET = 6 };

/* Coordinate of motor i's joint (an angle continuous from the last
 * commit, as an rsda's: trial states leave no trace), its rate and the
 * global axis z. */
static void motor_q(const struct ra *s, const struct ra_state *x, int i, double *q,
		    double *qd, double *z)
{
	const struct joint *j = &s->m->joints[s->m->forces[i].joint];
	*q = ra_joint_q(x, j, qd, z);
	if (j->type != JOINT_TRANSLATIONAL)
		*q = from_commit(s, i, *q);
}

/* The integral of motor i's control error at t, where the error is e.
 * As a state of the ODE schemes (s->ctrl_ode) it is z_n itself.  For the
 * other schemes z_n is the integral at t_n, the end of the last completed
 * step (ra_force_step), and z(t) = z_n + (t - t_n) (e_n + e) / 2: the
 * trapezoidal rule on [t_n, t], a function of the state at t, so that
 * every evaluation of a step (stage, Newton iterate) has the integral of
 * its own state and the quadrature error is O((t - t_n)^3) a step,
 * O(h^2) over a run. */
static double motor_integral(const struct ra *s, double t, int i, double e)
{
	double *st = s->fst + RA_FST * i;
	if (s->ctrl_ode)
		return st[FST_Z];
	if (st[FST_SET] == 0.0) {	/* the first evaluation: the run's start */
		st[FST_T] = t;
		st[FST_E] = e;
		st[FST_SET] = 1.0;
	}
	return st[FST_Z] + (t - st[FST_T]) * 0.5 * (st[FST_E] + e);
}

/* Motor effort at x, with its (unwrapped) coordinate and rate. */
static double motor_effort(const struct ra *s, const struct ra_state *x, double t,
			   int i, double *q, double *qd, double *z)
{
	const struct force *f = &s->m->forces[i];
	motor_q(s, x, i, q, qd, z);
	if (f->ex)
		return ra_expr_of(s, x, t, f, *q, *qd);
	double r[3], u;
	func_eval(&f->x->target, t, r);
	if (f->x->on_rate) {
		double e = r[0] - *qd;
		u = f->x->kp * e;
		if (f->x->ki != 0.0)
			u += f->x->ki * motor_integral(s, t, i, e);
	} else {
		double e = r[0] - *q;
		u = f->x->kp * e + f->x->kd * (r[1] - *qd);
		if (f->x->ki != 0.0)
			u += f->x->ki * motor_integral(s, t, i, e);
	}
	if (f->x->limit > 0)
		u = u > f->x->limit ? f->x->limit : u < -f->x->limit ? -f->x->limit : u;
	return u;
}

void ra_bush_kin(const struct ra_state *x, const struct force *f, struct bush_kin *k)
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

/* What element i does at x: out[0..5] on f->body[0], out[6..11] on
 * f->body[1] (translational global, rotational body frame); o (may be
 * NULL) the output quantities except power. */
void ra_elem_eval(const struct ra *s, const struct ra_state *x, double t,
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
	for (int c = 0; c < 6; c++)
		o->disp[c] = NAN;
	switch (f->type) {
	case FORCE_TSDA: {
		struct tsda_kin k;
		ra_tsda_kin(x, f, &k);
		mag = ra_tsda_mag(s, x, t, f, &k);
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
		double e = ra_rsda_def(s, x, i, &rate, z);
		mag = f->k * e + f->c * rate + act(f, t);
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
		o->energy = 0.5 * f->k * e * e;
		break;
	}
	case FORCE_POINT:
	case FORCE_TORQUE: {
		int b = f->body[0];
		double g = f->ex ? ra_expr_of(s, x, t, f, 0.0, 0.0) : act(f, t);
		if (f->type == FORCE_TORQUE && f->joint >= 0) {
			const struct joint *j = &m->joints[f->joint];
			double dv[3];
			v3_scale(G, g, f->vec);
			v3_copy(o->torque, G);
			ra_link_torque(x, j, G, z, dv);
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
		mag = ra_friction_force(s, x, f, lam, z, &vrel);
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
		ra_bush_kin(x, f, &k);
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
		v3_copy(o->disp, k.d);
		v3_copy(o->disp + 3, k.th);
		break;
	}
	case FORCE_TIRE: {
		struct tire_kin k;
		ra_tire_kin(x, f, &k);
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
void ra_elem_bodies(const struct model *m, const struct force *f, int b[2])
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
		ra_elem_eval(s, x, t, lam, i, out, NULL);
		ra_elem_bodies(m, &m->forces[i], b);
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
	ra_elem_eval(s, x, t, x->lam, i, out, o);
	ra_elem_bodies(s->m, &s->m->forces[i], b);
	o->power = elem_power(x, b, out);
}

void ra_force_turns(const struct ra *s, struct model *m)
{
	for (int i = 0; i < m->nforces; i++)
		if (m->forces[i].type == FORCE_RSDA && !m->forces[i].wrapped)
			m->forces[i].turns0 = s->fst[RA_FST * i + 1];
}

void ra_force_init(struct ra *s)
{
	const struct model *m = s->m;
	for (int i = 0; i < m->nforces; i++)
		if (m->forces[i].type == FORCE_MOTOR ||
		    (m->forces[i].type == FORCE_RSDA && !m->forces[i].wrapped)) {
			s->fst = xcalloc(RA_FST * (size_t)m->nforces, sizeof(double));
			break;
		}
	for (int i = 0; s->fst && i < m->nforces; i++)
		s->fst[RA_FST * i + 1] = m->forces[i].type == FORCE_RSDA ? m->forces[i].turns0 : 0.0;
}

/* A motor whose effort has an integral term. */
static int has_integral(const struct force *f)
{
	return f->type == FORCE_MOTOR && !f->ex && f->x->ki != 0.0;
}

/* Control error of motor i at x (its angle continuous from the last commit). */
static double ctrl_error(const struct ra *s, const struct ra_state *x, double t, int i)
{
	const struct force *f = &s->m->forces[i];
	double q, qd, z[3], r[3];
	motor_q(s, x, i, &q, &qd, z);
	func_eval(&f->x->target, t, r);
	return r[0] - (f->x->on_rate ? qd : q);
}

/* z_n += (t_n+1 - t_n) (e_n + e_n+1) / 2 with e_n+1 at x: the value at
 * x->t that motor_integral gave there. */
void ra_force_step(struct ra *s, const struct ra_state *x, double h)
{
	if (!s->fst || s->ctrl_ode)
		return;
	for (int i = 0; i < s->m->nforces; i++) {
		if (!has_integral(&s->m->forces[i]))
			continue;
		double *st = s->fst + RA_FST * i, e = ctrl_error(s, x, x->t, i);
		if (st[FST_SET] == 0.0) {	/* no evaluation at the start: the rectangle rule */
			st[FST_T] = x->t - h;
			st[FST_E] = e;
			st[FST_SET] = 1.0;
		}
		st[FST_Z] += (x->t - st[FST_T]) * 0.5 * (st[FST_E] + e);
		st[FST_T] = x->t;
		st[FST_E] = e;
	}
}

int ra_ctrl_count(const struct model *m)
{
	int n = 0;
	for (int i = 0; i < m->nforces; i++)
		n += has_integral(&m->forces[i]);
	return n;
}

void ra_ctrl_get(const struct ra *s, double *z)
{
	for (int i = 0, k = 0; i < s->m->nforces; i++)
		if (has_integral(&s->m->forces[i]))
			z[k++] = s->fst[RA_FST * i + FST_Z];
}

void ra_ctrl_set(struct ra *s, const double *z)
{
	for (int i = 0, k = 0; i < s->m->nforces; i++)
		if (has_integral(&s->m->forces[i]))
			s->fst[RA_FST * i + FST_Z] = z[k++];
}

void ra_ctrl_rates(struct ra *s, const struct ra_state *x, double t, double *e)
{
	for (int i = 0, k = 0; i < s->m->nforces; i++)
		if (has_integral(&s->m->forces[i]))
			e[k++] = ctrl_error(s, x, t, i);
}
