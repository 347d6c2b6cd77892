/* ra_force_impl.h - the kinematics and evaluation helpers of the force
 * elements (elem/elem_*.c), shared with ra_force.c (their generalized
 * forces, state expressions and state), ra_energy.c and ra_force_jac.c
 * (the loops over the elements); not for other modules.  The definitions
 * and their comments: ra_force.c, ra_force_jac.c. */
#ifndef MBSIM_RA_FORCE_IMPL_H
#define MBSIM_RA_FORCE_IMPL_H

#include "ra.h"
#include "ra_contact.h"
#include "../elem/elem.h"
#include "../util/vec.h"

#include <math.h>

/* Global position and velocity of body point s (body frame) */
static inline void point_kin(const struct bstate *b, const double *s, double *p, double *pv)
{
	double ws[3], sg[3];
	m3_mulv(sg, b->A, s);
	v3_add(p, b->r, sg);
	v3_cross(ws, b->w, s);
	m3_mulv(pv, b->A, ws);
	v3_add(pv, pv, b->v);
}

/* v, a magnitude of element f (a load's multiplier, a
 * spring-damper-actuator's tension or moment, a motor's effort), plus the
 * input that mbsim linearize differentiates; v itself in a run (not
 * v + 0, which would turn a -0 into +0). */
static inline double ra_input(const struct ra *s, const struct force *f, double v)
{
	return s->uin ? v + s->uin[f - s->m->forces] : v;
}

static inline double act(const struct force *f, double t)
{
	double g[3];
	if (!f->has_act)
		return 0.0;
	func_eval(&f->x->act, t, g);
	return g[0];
}

static inline double wrap(double a)
{
	return a - 2.0 * M_PI * floor((a + M_PI) / (2.0 * M_PI));
}

/* d = p1 - p0 and dv = v1 - v0 of point s0 of b0 and point s1 of b1 */
static inline void rel_kin(const struct bstate *b0, const double *s0,
			   const struct bstate *b1, const double *s1, double d[3], double dv[3])
{
	double p0[3], p1[3], v0[3], v1[3];
	point_kin(b0, s0, p0, v0);
	point_kin(b1, s1, p1, v1);
	v3_sub(d, p1, p0);
	v3_sub(dv, v1, v0);
}

/* Add force Fg (global) acting at body point s of body b to F6 (the
 * body's 6 generalized entries). */
static inline void add_point_force(const struct ra_state *x, int b, const double *s,
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
static inline void add_force_at(const struct ra_state *x, int b, const double *p,
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
static inline void add_torque(const struct ra_state *x, int b, const double *Tg, double *F6)
{
	if (b < 0)
		return;
	double Tb[3];
	m3_tmulv(Tb, x->A + 9 * b, Tg);
	v3_add(F6 + 3, F6 + 3, Tb);
}

double ra_joint_q(const struct ra_state *x, const struct joint *j, double *rate,
		  double *z);
/* Unwrap angle c from the last value kept in st[0..2] (raw, turns, set). */
double ra_unwrap(double c, double *st);
/* The branch of the wrapped angle phi of force i's joint within pi of
 * its angle at the last commit (ra_force_commit), or phi itself before
 * any: a function of phi alone between commits. */
double ra_from_commit(const struct ra *s, int i, double phi);
/* The expression of f at x (0 without one); d, dr: the element's own
 * deflection and rate (self). */
double ra_expr_of(const struct ra *s, const struct ra_state *x, double t,
		  const struct force *f, double d, double dr);
void ra_link_torque(const struct ra_state *x, const struct joint *j, const double *T,
		    double Fe[3], double dv[3]);

/* ---- one element ---- */

void ra_elem_eval(const struct ra *s, const struct ra_state *x, double t,
		  const double *lam, int i, double *out, struct ra_fout *o);
void ra_elem_bodies(const struct model *m, const struct force *f, int b[2]);

/* Blocks of element i on bodies b by central differences of
 * ra_elem_eval (ra_force_jac.c; ra_force_blocks). */
void ra_fd_blocks(const struct ra *s, const struct ra_state *x, double t, int i,
		  const int b[2], double cq, double cv, double *W);

/* Pieces of the analytic Jacobians (ra_force_jac.c).  M (3 x 12,
 * row-major) += sign * [I (when r), -A c~] in the columns of side e:
 * d (r + A c) / d (r, theta), or without r d (A c) / d theta. */
void ra_jcols(double *M, int e, int with_r, const double *A, const double *c, double sign);
/* Of d = p1 - p0 and dv = pv1 - pv0 of f's points s[e] on bodies
 * body[e] (states bs): Dd += d d / d z = d dv / d zdot, Dv += d dv / d z
 * (3 x 12 each, z = (r, theta) of both bodies, zdot = (v, w); pv = v +
 * A (w x s) has d pv / d(v, w) = (I, -A s~) = d p / d(r, theta)). */
void ra_rel_point_jac(const struct force *f, const struct bstate bs[2], double *Dd,
		      double *Dv);
/* out rows (6 e .. 6 e + 5) of a force G (3 x 12 derivative dG, value G)
 * at body point c of side e: F = G, n = c x (A^T G); dn = c~ A^T dG, plus
 * c~ (A^T G)~ on the body's own theta (A^T <- exp(-theta~) A^T) when
 * with_theta. */
void ra_point_force_lin(double *K, int e, const double *A, const double *c,
			const double *G, const double *dG, int with_theta);

#endif
