/* elem_load.c - the applied loads: a force (type force) at a point of a
 * body or a torque on a body, vector * f(t) or vector * expression,
 * global or body frame; a torque also on a massless link (a distance
 * joint) as the couple of forces at its ends (elem.h).  The two types
 * share their parameters, evaluation and Jacobian, so one file. */
#include "elem.h"
#include "../deck/force.h"
#include "../form/ra_force_impl.h"
#include "../model/sexpr.h"

#include <string.h>

struct load_par {
	double vec[3];		/* direction * magnitude, N or N m */
	int body_frame;		/* vec in the body frame (1) or global (0) */
};

static int on_link(const struct force *f)
{
	return f->type == FORCE_TORQUE && f->joint >= 0;
}

/* torque on a massless link: the distance joint named by 'joint' */
static void torque_link(struct bctx *b, struct fread *fr, struct load_par *P)
{
	if (dn_get(fr->item, "body")) {
		diag_error(b->d, &dn_get(fr->item, "joint")->pos, "%s has both 'body' and 'joint'",
			   fr->what);
		fr->bad = 1;
		return;
	}
	force_joint_of(b, fr, 1u << JOINT_DISTANCE, "distance (massless link)");
	fr->bad |= req_vec3(b, fr->item, "vector", fr->what, P->vec) < 0;
	const struct dnode *v = dn_get(fr->item, "frame");
	if (v && (v->kind != DN_SCALAR || strcmp(v->str, "global") != 0)) {
		diag_error(b->d, &v->pos, "%s on a link takes its vector in the global frame only",
			   fr->what);
		fr->bad = 1;
	}
	force_actuator(b, fr, "function", 1);
}

/* a vector on one body, scaled by a function */
static void load_read(struct bctx *b, struct fread *fr, int point)
{
	static const char *const frames[] = { "global", "body" };
	struct load_par *P = fread_par(fr);
	const struct dnode *v;
	if (!point && dn_get(fr->item, "joint")) {
		torque_link(b, fr, P);
		return;
	}
	int k = force_loaded_body(b, fr);
	if (point)
		force_attach(b, fr, 0, "point", "at", 0);
	fr->bad |= req_vec3(b, fr->item, "vector", fr->what, P->vec) < 0;
	if ((v = dn_get(fr->item, "frame"))) {
		int fk = pick_name(b, v, "frame", frames, 2);
		fr->bad |= fk < 0;
		P->body_frame = fk == 1;
		if (fk == 1 && model_is_particle(b->m, k)) {
			diag_error(b->d, &v->pos, "%s: particle '%s' has no body frame", fr->what,
				   b->m->bodies[k].name);
			fr->bad = 1;
		}
	}
	if (!point && model_is_particle(b->m, k)) {
		diag_error(b->d, &dn_get(fr->item, "body")->pos, "%s cannot act on particle '%s' "
			   "(a point mass has no rotation)", fr->what, b->m->bodies[k].name);
		fr->bad = 1;
	}
	if (point)
		force_particle_end(b, fr, 0, "point", "at");
	force_actuator(b, fr, "function", 1);
}

static void force_build(struct bctx *b, struct fread *fr)
{
	load_read(b, fr, 1);
	force_expression(b, fr, 0, "function");
}

static void torque_build(struct bctx *b, struct fread *fr)
{
	load_read(b, fr, 0);
	force_expression(b, fr, 0, "function");
}

static void load_bodies(const struct model *m, const struct force *f, int b[2])
{
	if (on_link(f)) {
		elem_joint_bodies(m, f, b);
	} else {
		b[0] = f->body[0];
		b[1] = -1;
	}
}

/* the multiplier of vec */
static double load_g(const struct ra *s, const struct ra_state *x, double t,
		     const struct force *f)
{
	return ra_input(s, f, f->ex ? ra_expr_of(s, x, t, f, 0.0, 0.0) : act(f, t));
}

static void load_eval(const struct ra *s, const struct ra_state *x, double t,
		      const double *lam, int i, double *out, struct ra_fout *o)
{
	const struct force *f = &s->m->forces[i];
	const struct load_par *P = f->par;
	int b = f->body[0];
	double G[3], z[3];
	double g = load_g(s, x, t, f);
	if (on_link(f)) {
		const struct joint *j = &s->m->joints[f->joint];
		double dv[3];
		v3_scale(G, g, P->vec);
		v3_copy(o->torque, G);
		ra_link_torque(x, j, G, z, dv);
		add_point_force(x, j->body[1], j->s[1], z, out + 6);
		v3_copy(o->force, z);
		v3_scale(z, -1.0, z);
		add_point_force(x, j->body[0], j->s[0], z, out);
		return;
	}
	if (b < 0)
		return;
	if (P->body_frame)
		m3_mulv(G, x->A + 9 * b, P->vec);
	else
		v3_copy(G, P->vec);
	v3_scale(G, g, G);
	if (f->type == FORCE_POINT) {
		add_point_force(x, b, f->s[0], G, out);
		v3_copy(o->force, G);
	} else {
		add_torque(x, b, G, out);
		v3_copy(o->torque, G);
	}
}

/* by central differences (ra_fd_blocks) when the expression names state */
static void load_blocks(const struct ra *s, const struct ra_state *x, double t, int i,
			double cq, double cv, double *W)
{
	const struct force *f = &s->m->forces[i];
	if (f->ex != NULL && sexpr_has_state(f->ex)) {
		int b[2];
		load_bodies(s->m, f, b);
		ra_fd_blocks(s, x, t, i, b, cq, cv, W);
	}
}

static int load_has_lin(const struct force *f)
{
	return (f->ex == NULL || !sexpr_has_state(f->ex)) && !on_link(f);
}

/* G = g(t) vec, global or A vec (body frame): a global G turns in the
 * body frame, A^T G <- exp(-theta~) A^T G; a body-frame G turns in the
 * global frame, A vec <- A exp(theta~) vec */
static int load_lin(const struct ra *s, const struct ra_state *x, double t, int i,
		    double *K, double *C)
{
	const struct force *f = &s->m->forces[i];
	const struct load_par *P = f->par;
	int b0 = f->body[0];
	if (b0 < 0)
		return 0;
	double g = load_g(s, x, t, f), vb[3], G[3];
	const double *A = x->A + 9 * b0;
	v3_scale(vb, g, P->vec);
	if (P->body_frame)
		m3_mulv(G, A, vb);
	else
		v3_copy(G, vb);
	double dG[36] = { 0 };
	if (P->body_frame)
		ra_jcols(dG, 0, 0, A, vb, 1.0);	/* d (A vb) / d theta */
	if (f->type == FORCE_POINT) {
		ra_point_force_lin(K, 0, A, f->s[0], G, dG, 1);
		return 0;
	}
	/* torque: body frame A^T G; d = (A^T G)~ dtheta for a global G, 0 for
	 * a body-frame one (A^T A vb = vb) */
	if (!P->body_frame) {
		double ag[3], AG[9];
		m3_tmulv(ag, A, G);
		m3_skew(AG, ag);
		for (int a = 0; a < 3; a++)
			for (int c = 0; c < 3; c++)
				K[12 * (3 + a) + 3 + c] += AG[3 * a + c];
	}
	return 0;
}

static void load_ncpower(struct ra *s, const struct ra_state *x, int i, double *Pw)
{
	const struct force *f = &s->m->forces[i];
	const struct load_par *P = f->par;
	int b = f->body[0];
	double G[3];
	if (on_link(f)) {
		double Fe[3], dv[3];
		v3_scale(G, load_g(s, x, x->t, f), P->vec);
		ra_link_torque(x, &s->m->joints[f->joint], G, Fe, dv);
		*Pw += v3_dot(Fe, dv);
		return;
	}
	if (b < 0)
		return;
	struct bstate bs;
	double p[3], pv[3], wg[3];
	ra_bstate(x, b, &bs);
	if (P->body_frame)
		m3_mulv(G, bs.A, P->vec);
	else
		v3_copy(G, P->vec);
	v3_scale(G, load_g(s, x, x->t, f), G);
	if (f->type == FORCE_POINT) {
		point_kin(&bs, f->s[0], p, pv);
		*Pw += v3_dot(G, pv);
	} else {
		m3_mulv(wg, bs.A, bs.w);
		*Pw += v3_dot(G, wg);
	}
}

static unsigned load_props(const struct force *f)
{
	return elem_common_props(f) | ELEM_NC | ELEM_NO_POTENTIAL | ELEM_LOAD;
}

/* the two types differ in their build alone */
#define LOAD_OPS(build_op)                                                      \
	{                                                                       \
		.par_size = sizeof(struct load_par), .build = build_op,         \
		.props = load_props, .bodies = load_bodies, .eval = load_eval,  \
		.blocks = load_blocks, .has_lin = load_has_lin, .lin = load_lin, \
		.ncpower = load_ncpower,                                        \
	}

const struct elem_ops elem_force = LOAD_OPS(force_build);
const struct elem_ops elem_torque = LOAD_OPS(torque_build);
