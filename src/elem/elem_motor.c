/* elem_motor.c - the effort in a revolute, cylindrical or translational
 * joint: an expression of time and state, or P/PD/PI/PID control towards
 * a target function of time, clipped to a limit; and the integral of its
 * control error, a state of the run (ra_force_step, ra_ctrl_*; ra.h)
 * (elem.h). */
#include "elem.h"
#include "../deck/force.h"
#include "../form/ra_force_impl.h"
#include "../util/xalloc.h"

#include <math.h>

/* Control (when ex == NULL): effort = kp e + kd e' + ki int e,
 * e = target(t) - q (on_rate: target(t) - qd, no kd), clipped to
 * +-limit (limit 0: none); the target is f->x->target. */
struct motor_par {
	double kp, ki, kd, limit;
	int on_rate;
};

static void gain(struct bctx *b, struct fread *fr, const char *key, int allowed,
		 const char *law, double *x)
{
	const struct dnode *v = dn_get(fr->item, key);
	if (!v)
		return;
	if (!allowed) {
		diag_error(b->d, &v->pos, "'%s' does not apply to control %s of %s", key, law,
			   fr->what);
		fr->bad = 1;
		return;
	}
	force_opt_nonneg(b, fr, key, x);
}

static void motor_build(struct bctx *b, struct fread *fr)
{
	static const char *const laws[] = { "p", "pd", "pi", "pid" };
	static const char *const ons[] = { "coordinate", "rate" };
	struct motor_par *P = fread_par(fr);
	const struct dnode *cv = dn_get(fr->item, "control"), *v;
	fr->f.x = xcalloc(1, sizeof(*fr->f.x));
	force_expression(b, fr, 1, NULL);
	force_joint_of(b, fr, 1u << JOINT_REVOLUTE | 1u << JOINT_CYLINDRICAL |
		       1u << JOINT_TRANSLATIONAL, "revolute, cylindrical or translational");
	if (dn_get(fr->item, "expression")) {
		if (cv) {
			diag_error(b->d, &cv->pos, "%s has both 'expression' and 'control'",
				   fr->what);
			fr->bad = 1;
		}
		return;
	}
	if (!cv) {
		diag_error(b->d, &fr->item->pos, "%s needs 'expression' or 'control'", fr->what);
		fr->bad = 1;
		return;
	}
	int law = pick_name(b, cv, "control", laws, 4);
	if (law < 0) {
		fr->bad = 1;
		return;
	}
	if ((v = dn_get(fr->item, "on"))) {
		int k = pick_name(b, v, "controlled quantity", ons, 2);
		fr->bad |= k < 0;
		P->on_rate = k == 1;
	}
	gain(b, fr, "kp", 1, laws[law], &P->kp);
	gain(b, fr, "kd", (law == 1 || law == 3) && !P->on_rate, laws[law], &P->kd);
	gain(b, fr, "ki", law >= 2, laws[law], &P->ki);
	if ((v = dn_get(fr->item, "limit"))) {
		fr->bad |= opt_num(b, fr->item, "limit", &P->limit) < 0;
		if (!(P->limit > 0)) {
			diag_error(b->d, &v->pos, "limit of %s must be positive, got %g", fr->what,
				   P->limit);
			fr->bad = 1;
		}
	}
	const struct dnode *tv = need(b, fr->item, "target", fr->what);
	fr->bad |= !tv || build_func(b, tv, "target", fr->what, &fr->f.x->target) < 0;
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
		*q = ra_from_commit(s, i, *q);
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
	const struct motor_par *P = f->par;
	motor_q(s, x, i, q, qd, z);
	if (f->ex)
		return ra_input(s, f, ra_expr_of(s, x, t, f, *q, *qd));
	double r[3], u;
	func_eval(&f->x->target, t, r);
	if (P->on_rate) {
		double e = r[0] - *qd;
		u = P->kp * e;
		if (P->ki != 0.0)
			u += P->ki * motor_integral(s, t, i, e);
	} else {
		double e = r[0] - *q;
		u = P->kp * e + P->kd * (r[1] - *qd);
		if (P->ki != 0.0)
			u += P->ki * motor_integral(s, t, i, e);
	}
	if (P->limit > 0)
		u = u > P->limit ? P->limit : u < -P->limit ? -P->limit : u;
	return ra_input(s, f, u);
}

static void motor_eval(const struct ra *s, const struct ra_state *x, double t,
		       const double *lam, int i, double *out, struct ra_fout *o)
{
	const struct force *f = &s->m->forces[i];
	const struct joint *j = &s->m->joints[f->joint];
	double G[3], z[3], q, qd, u = motor_effort(s, x, t, i, &q, &qd, z);
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
}

/* by central differences (ra_fd_blocks) */
static void motor_blocks(const struct ra *s, const struct ra_state *x, double t, int i,
			 double cq, double cv, double *W)
{
	int b[2];
	elem_joint_bodies(s->m, &s->m->forces[i], b);
	ra_fd_blocks(s, x, t, i, b, cq, cv, W);
}

static void motor_ncpower(struct ra *s, const struct ra_state *x, int i, double *P)
{
	struct ra_fout o;
	ra_force_out(s, x, x->t, i, &o);
	*P += o.power;
}

static unsigned motor_props(const struct force *f)
{
	return elem_common_props(f) | ELEM_NC | ELEM_NO_POTENTIAL | ELEM_MOTOR_POWER;
}

/* the continuous angle's reference (motor_q) and the error integral */
static int motor_has_state(const struct force *f)
{
	return 1;
}

static void motor_commit(struct ra *s, const struct ra_state *x, int i)
{
	const struct joint *j = &s->m->joints[s->m->forces[i].joint];
	double rate, z[3];
	if (j->type != JOINT_TRANSLATIONAL)
		ra_unwrap(ra_joint_q(x, j, &rate, z), s->fst + RA_FST * i);
}

/* a control effort at its limit: the limit, else 0 */
static double motor_saturated(struct ra *s, const struct ra_state *x, double t, int i)
{
	const struct force *f = &s->m->forces[i];
	const struct motor_par *P = f->par;
	struct ra_fout o;
	if (f->ex || !(P->limit > 0))
		return 0;
	ra_force_out(s, x, t, i, &o);
	return fabs(o.effort) >= P->limit ? P->limit : 0.0;
}

static void motor_units(const struct model *m, const struct force *f, const char *u[3])
{
	int lin = m->joints[f->joint].type == JOINT_TRANSLATIONAL;
	u[0] = lin ? "m" : "rad", u[1] = lin ? "m/s" : "rad/s", u[2] = lin ? "N" : "N m";
}

const struct elem_ops elem_motor = {
	.par_size = sizeof(struct motor_par),
	.build = motor_build,
	.props = motor_props,
	.bodies = elem_joint_bodies,
	.eval = motor_eval,
	.blocks = motor_blocks,
	.ncpower = motor_ncpower,
	.has_state = motor_has_state,
	.commit = motor_commit,
	.saturated = motor_saturated,
	.units = motor_units,
};

/* ---- the integral of the control error (ra.h) ---- */

/* A motor whose effort has an integral term. */
static int has_integral(const struct force *f)
{
	return f->type == FORCE_MOTOR && !f->ex && ((const struct motor_par *)f->par)->ki != 0.0;
}

/* Control error of motor i at x (its angle continuous from the last commit). */
static double ctrl_error(const struct ra *s, const struct ra_state *x, double t, int i)
{
	const struct force *f = &s->m->forces[i];
	double q, qd, z[3], r[3];
	motor_q(s, x, i, &q, &qd, z);
	func_eval(&f->x->target, t, r);
	return r[0] - (((const struct motor_par *)f->par)->on_rate ? qd : q);
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

int ra_ctrl_first(const struct model *m)
{
	for (int i = 0; i < m->nforces; i++)
		if (has_integral(&m->forces[i]))
			return i;
	return -1;
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
