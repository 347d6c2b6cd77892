/* coupler.c - coupling rows (coupler.h). */
#include "coupler.h"
#include "../util/vec.h"

#include <math.h>
#include <string.h>

static const double I3[9] = { 1, 0, 0, 0, 1, 0, 0, 0, 1 };
static const double Z3[3] = { 0, 0, 0 };

static void col3(double *y, const double *F, int c)
{
	y[0] = F[c];
	y[1] = F[3 + c];
	y[2] = F[6 + c];
}

/* The state of body b seen from the row: a side, or ground. */
static const struct bstate *side_of(const struct joint *row, int b, const struct bstate *si,
				    const struct bstate *sj, struct bstate *gnd, int *side)
{
	if (b >= 0 && b == row->body[0]) {
		*side = 0;
		return si;
	}
	if (b >= 0 && b == row->body[1]) {
		*side = 1;
		return sj;
	}
	*side = -1;	/* ground: model_finalize allows no third body */
	gnd->r = Z3;
	gnd->A = I3;
	gnd->v = Z3;
	gnd->w = Z3;
	return gnd;
}

double cpl_unwrap(double a, double ref)
{
	double d = a - ref;
	return ref + d - 2.0 * M_PI * floor((d + M_PI) / (2.0 * M_PI));
}

/* Rotation term: theta (wrapped), its gradient g (global) and, when dw
 * is not NULL, the bodies' relative angular velocity dw (global) and,
 * when gd is not NULL too, g's rate, at the states of the joint's bodies
 * b0, b1. */
static double rot_term(const struct joint *jt, const struct bstate *b0, const struct bstate *b1,
		       double g[3], double *gd, double dw[3])
{
	double xb[3], x0[3], y0[3], x1[3];
	col3(xb, jt->F[0], 0);
	m3_mulv(x0, b0->A, xb);
	col3(xb, jt->F[0], 1);
	m3_mulv(y0, b0->A, xb);
	col3(xb, jt->F[1], 0);
	m3_mulv(x1, b1->A, xb);
	double p = v3_dot(x1, x0), s = v3_dot(x1, y0), rho2 = p * p + s * s;
	double bv[3], c[3];
	for (int i = 0; i < 3; i++)
		bv[i] = p * y0[i] - s * x0[i];
	v3_cross(c, x1, bv);
	v3_scale(g, 1.0 / rho2, c);
	double w0[3] = { 0, 0, 0 }, w1[3] = { 0, 0, 0 };
	if (dw) {
		m3_mulv(w0, b0->A, b0->w);
		m3_mulv(w1, b1->A, b1->w);
		v3_sub(dw, w1, w0);
	}
	if (gd) {
		/* global angular velocities; d/dt of a vector a fixed in a
		 * body is omega x a */
		double x0d[3], y0d[3], x1d[3], t1[3], t2[3], bd[3];
		v3_cross(x0d, w0, x0);
		v3_cross(y0d, w0, y0);
		v3_cross(x1d, w1, x1);
		v3_cross(t1, x1, x0);
		double pd = v3_dot(dw, t1);
		v3_cross(t1, x1, y0);
		double sd = v3_dot(dw, t1);
		for (int i = 0; i < 3; i++)
			bd[i] = pd * y0[i] + p * y0d[i] - sd * x0[i] - s * x0d[i];
		v3_cross(t1, x1d, bv);
		v3_cross(t2, x1, bd);
		double rho2d = 2.0 * (p * pd + s * sd);
		for (int i = 0; i < 3; i++)
			gd[i] = (t1[i] + t2[i]) / rho2 - g[i] * rho2d / rho2;
	}
	return atan2(s, p);
}

static void trans_prim(const struct joint *jt, struct prim *p)
{
	memset(p, 0, sizeof *p);
	p->type = PRIM_DP2;
	p->bi = jt->body[0];
	p->bj = jt->body[1];
	col3(p->ai, jt->F[0], 2);
	v3_copy(p->si, jt->s[0]);
	v3_copy(p->sj, jt->s[1]);
}

double cpl_coord(const struct model *m, const struct joint *j, int k, const struct bstate *si,
		 const struct bstate *sj, double *rate)
{
	const struct joint_cpl *c = j->cpl;
	const struct joint *jt = &m->joints[c->joint[k]];
	struct bstate g0, g1;
	int s0, s1;
	const struct bstate *b0 = side_of(j, jt->body[0], si, sj, &g0, &s0);
	const struct bstate *b1 = side_of(j, jt->body[1], si, sj, &g1, &s1);
	if (c->kind[k] == DRIVER_ROTATION) {
		double g[3], dw[3];
		double th = rot_term(jt, b0, b1, g, NULL, rate ? dw : NULL);
		if (rate)
			*rate = v3_dot(g, dw);
		return th;
	}
	struct prim p;
	trans_prim(jt, &p);
	return prim_phi(&p, b0, b1, 0.0);
}

/* J[side] += w (global vector) as the body-frame rotation gradient */
static void add_rot(struct prim_out *o, int side, const struct bstate *b, double w,
		    const double *g)
{
	double gb[3];
	if (side < 0)
		return;
	m3_tmulv(gb, b->A, g);
	v3_axpy(o->J[2 * side + 1], w, gb);
}

void cpl_eval(const struct model *m, const struct joint *j, const struct bstate *si,
	      const struct bstate *sj, const double *ref, unsigned what, struct prim_out *o)
{
	const struct joint_cpl *c = j->cpl;
	memset(o, 0, sizeof *o);
	for (int k = 0; k < c->n; k++) {
		const struct joint *jt = &m->joints[c->joint[k]];
		struct bstate g0, g1;
		int s0, s1;
		const struct bstate *b0 = side_of(j, jt->body[0], si, sj, &g0, &s0);
		const struct bstate *b1 = side_of(j, jt->body[1], si, sj, &g1, &s1);
		double ck = c->c[k];
		if (c->kind[k] == DRIVER_ROTATION) {
			double g[3], gd[3], dw[3];
			int rates = (what & PRIM_GAMMA) != 0;
			double th = rot_term(jt, b0, b1, g, rates ? gd : NULL, rates ? dw : NULL);
			o->phi += ck * (cpl_unwrap(th, ref[k]) - c->q0[k]);
			if (what & PRIM_JAC) {
				add_rot(o, s0, b0, -ck, g);
				add_rot(o, s1, b1, ck, g);
			}
			if (what & PRIM_GAMMA)
				o->gamma -= ck * v3_dot(gd, dw);
			continue;
		}
		struct prim p;
		struct prim_out t;
		trans_prim(jt, &p);
		prim_eval(&p, b0, b1, 0.0, what, &t);
		o->phi += ck * (t.phi - c->q0[k]);
		o->nu += ck * t.nu;
		o->gamma += ck * t.gamma;
		if (what & PRIM_JAC)
			for (int a = 0; a < 2; a++) {
				int sd = a ? s1 : s0;
				if (sd < 0)
					continue;
				v3_axpy(o->J[2 * sd], ck, t.J[2 * a]);
				v3_axpy(o->J[2 * sd + 1], ck, t.J[2 * a + 1]);
			}
	}
}
