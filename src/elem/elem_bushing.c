/* elem_bushing.c - the six-component spring-damper with preload between
 * frames on two bodies: the translation and rotation (log of the relative
 * rotation) of marker 1 in the axes of marker 0, linear stiffness or a
 * curve per component, linear damping (elem.h). */
#include "elem.h"
#include "../deck/force.h"
#include "../form/ra_force_impl.h"
#include "../util/suggest.h"

#include <string.h>

/* Marker frames F[k] (columns x, y, z, body frame) at s[k]; stiffness
 * and damping of the 3 translations then the 3 rotations about marker
 * 0's axes, preload force then moment (marker 0 axes). */
struct bushing_par {
	double F[2][9];
	double K6[6], C6[6], pre[6];
	const struct curve *kc[6];	/* non-NULL: that component's elastic
					 * force (moment) is kc(deflection), in
					 * place of K6 (points into m->curves) */
};

/* stiffness_curves: {x: NAME, ..., rz: NAME} in place of the stiffness */
static void bushing_curves(struct bctx *b, struct fread *fr, struct bushing_par *P)
{
	static const char *const comp[6] = { "x", "y", "z", "rx", "ry", "rz" };
	const struct dnode *cv = dn_get(fr->item, "stiffness_curves");
	char sug[200];
	if (!cv || want_map(b, cv, "stiffness_curves")) {
		fr->bad |= cv != NULL;
		return;
	}
	fr->bad |= check_keys(b, cv, key_sub(key_sub(&key_top, "forces"), "stiffness_curves"), 0,
			      NULL) > 0;
	for (int c = 0; c < 6; c++) {
		const struct dnode *v = dn_get(cv, comp[c]);
		const char *name;
		if (!v)
			continue;
		if (get_str(b, v, comp[c], &name)) {
			fr->bad = 1;
			continue;
		}
		struct suggest sg;
		suggest_init(&sg, name);
		for (int i = 0; i < b->m->ncurves && !P->kc[c]; i++) {
			if (strcmp(b->m->curves[i].name, name) == 0)
				P->kc[c] = &b->m->curves[i];
			suggest_add(&sg, b->m->curves[i].name);
		}
		if (!P->kc[c]) {
			diag_error(b->d, &v->pos, "unknown curve '%s' in stiffness_curves of %s%s",
				   name, fr->what, suggest_text(&sg, sug, sizeof sug));
			fr->bad = 1;
		} else if (P->K6[c] != 0.0) {
			diag_error(b->d, &v->pos, "%s has a stiffness and a curve for component %s",
				   fr->what, comp[c]);
			fr->bad = 1;
		}
	}
}

static void bushing_build(struct bctx *b, struct fread *fr)
{
	struct bushing_par *P = fread_par(fr);
	double Ag[9], r[3], A[9];
	const struct dnode *av = dn_get(fr->item, "at"), *ov = dn_get(fr->item, "orientation");
	fr->f.body[0] = force_body_of(b, fr, "body1");
	fr->f.body[1] = force_body_of(b, fr, "body2");
	if (av) {
		double g[3];
		if (dn_get(fr->item, "point1") || dn_get(fr->item, "point2")) {
			diag_error(b->d, &av->pos, "%s has both 'at' and 'point1'/'point2'",
				   fr->what);
			fr->bad = 1;
		} else if (get_vec3(b, av, "at", g)) {
			fr->bad = 1;
		} else if (!fr->bad) {
			for (int k = 0; k < 2; k++)
				model_point_to_body(b->m, fr->f.body[k], g, fr->f.s[k]);
		}
	} else {
		force_attach(b, fr, 0, "point1", "at1", 1);
		force_attach(b, fr, 1, "point2", "at2", 1);
	}
	m3_identity(Ag);
	if (ov)
		fr->bad |= build_orientation(b, ov, fr->what, Ag) < 0;
	force_vec_nonneg(b, fr, "translational_stiffness", P->K6);
	force_vec_nonneg(b, fr, "rotational_stiffness", P->K6 + 3);
	force_vec_nonneg(b, fr, "translational_damping", P->C6);
	force_vec_nonneg(b, fr, "rotational_damping", P->C6 + 3);
	fr->bad |= opt_vec3(b, fr->item, "preload_force", P->pre) < 0;
	fr->bad |= opt_vec3(b, fr->item, "preload_torque", P->pre + 3) < 0;
	bushing_curves(b, fr, P);
	if (fr->bad)
		return;
	/* both markers have the bushing axes at t0: F_k = A_k0^T Ag */
	for (int k = 0; k < 2; k++) {
		model_pose0(b->m, fr->f.body[k], r, A);
		m3_tmul(P->F[k], A, Ag);
	}
}

/* Relative displacement d and rotation th of marker 1 in the axes of
 * marker 0, their rates, marker 0's axes R0 (global) and the point of
 * marker 1 (global). */
struct bush_kin {
	double d[3], th[3], dd[3], thd[3], R0[9], p1[3];
};

static void bush_kin(const struct ra_state *x, const struct force *f, struct bush_kin *k)
{
	const struct bushing_par *P = f->par;
	struct bstate b0, b1;
	double p0[3], v0[3], v1[3], R1[9], R[9], dp[3], dv[3], w0[3], w1[3], wx[3];
	ra_bstate(x, f->body[0], &b0);
	ra_bstate(x, f->body[1], &b1);
	point_kin(&b0, f->s[0], p0, v0);
	point_kin(&b1, f->s[1], k->p1, v1);
	m3_mul(k->R0, b0.A, P->F[0]);
	m3_mul(R1, b1.A, P->F[1]);
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

/* Elastic force (moment) of component c at deflection d: the curve when
 * given (its work then counts as nonconservative), else K d. */
static double bush_elastic(const struct bushing_par *P, int c, double d)
{
	return P->kc[c] ? curve_eval(P->kc[c], d, NULL) : P->K6[c] * d;
}

static void bushing_eval(const struct ra *s, const struct ra_state *x, double t,
			 const double *lam, int i, double *out, struct ra_fout *o)
{
	const struct force *f = &s->m->forces[i];
	const struct bushing_par *P = f->par;
	struct bush_kin k;
	double fm[3], tm[3], Fg[3], Tg[3];
	bush_kin(x, f, &k);
	for (int c = 0; c < 3; c++) {
		fm[c] = -(bush_elastic(P, c, k.d[c]) + P->C6[c] * k.dd[c]) + P->pre[c];
		tm[c] = -(bush_elastic(P, 3 + c, k.th[c]) + P->C6[3 + c] * k.thd[c]) +
			P->pre[3 + c];
		o->energy += 0.5 * (P->K6[c] * k.d[c] * k.d[c] +
				    P->K6[3 + c] * k.th[c] * k.th[c]) -
			     P->pre[c] * k.d[c] - P->pre[3 + c] * k.th[c];
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
}

/* by central differences (ra_fd_blocks) */
static void bushing_blocks(const struct ra *s, const struct ra_state *x, double t, int i,
			   double cq, double cv, double *W)
{
	ra_fd_blocks(s, x, t, i, s->m->forces[i].body, cq, cv, W);
}

static void bushing_energy(const struct ra *s, const struct ra_state *x, int i, double *V)
{
	struct ra_fout o;
	double out[12];
	ra_elem_eval(s, x, x->t, NULL, i, out, &o);
	*V += o.energy;
}

/* the dampers' and curves' power; linear springs and preloads are in V */
static void bushing_ncpower(struct ra *s, const struct ra_state *x, int i, double *Pw)
{
	const struct force *f = &s->m->forces[i];
	const struct bushing_par *P = f->par;
	struct bush_kin k;
	double mth[3], Ji[9], thdot[3];
	bush_kin(x, f, &k);
	/* A linear rotational spring's moment -K th (th = log of
	 * R0^T R1) delivers -(K th).thd, thd the relative angular
	 * velocity in marker 0's axes, while V holds 1/2 th.K th,
	 * whose rate is (K th).th' with th' = J_l(th)^-1 thd
	 * (J_l(th)^-1 = J_r(-th)^-1).  J_l^T th = th makes the two
	 * equal for equal stiffnesses; for unequal ones the
	 * difference is work that V does not hold. */
	mth[0] = -k.th[0], mth[1] = -k.th[1], mth[2] = -k.th[2];
	so3_jrinv(Ji, mth);
	m3_mulv(thdot, Ji, k.thd);
	for (int c = 0; c < 3; c++) {
		if (!P->kc[3 + c])
			*Pw += P->K6[3 + c] * k.th[c] * (thdot[c] - k.thd[c]);
		*Pw -= P->C6[c] * k.dd[c] * k.dd[c] + P->C6[3 + c] * k.thd[c] * k.thd[c];
		if (P->kc[c])
			*Pw -= bush_elastic(P, c, k.d[c]) * k.dd[c];
		if (P->kc[3 + c])
			*Pw -= bush_elastic(P, 3 + c, k.th[c]) * k.thd[c];
	}
}

static unsigned bushing_props(const struct force *f)
{
	return elem_common_props(f) | ELEM_NC | ELEM_DISP;
}

/* its deflection |d| and rate; its effort NaN */
static void bushing_units(const struct model *m, const struct force *f, const char *u[3])
{
	u[0] = "m", u[1] = "m/s";
}

const struct elem_ops elem_bushing = {
	.par_size = sizeof(struct bushing_par),
	.build = bushing_build,
	.props = bushing_props,
	.eval = bushing_eval,
	.blocks = bushing_blocks,
	.energy = bushing_energy,
	.ncpower = bushing_ncpower,
	.units = bushing_units,
};
