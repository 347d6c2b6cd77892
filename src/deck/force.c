/* force.c - force elements: spring-damper-actuators, loads, friction,
 * motors, bushings, tyre contact. */
#include "build.h"
#include "../model/sexpr.h"
#include "../util/vec.h"
#include "../util/xalloc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Force being read. */
struct fread {
	const struct dnode *item;
	struct force f;		/* filled, then copied into the model */
	const char *what;	/* "force 'spring'" */
	int bad;
};

static void nonneg(struct bctx *b, struct fread *fr, const char *key, double x)
{
	if (x < 0) {
		diag_error(b->d, &dn_get(fr->item, key)->pos,
			   "%s of %s must not be negative, got %g", key, fr->what, x);
		fr->bad = 1;
	}
}

static void opt_nonneg(struct bctx *b, struct fread *fr, const char *key, double *x)
{
	int r = opt_num(b, fr->item, key, x);
	if (r < 0)
		fr->bad = 1;
	else if (r > 0)
		nonneg(b, fr, key, *x);
}

static int body_of(struct bctx *b, struct fread *fr, const char *key)
{
	const struct dnode *v = need(b, fr->item, key, fr->what);
	int k = v ? resolve_body(b, v, fr->what) : -2;
	if (k == -2)
		fr->bad = 1;
	return k;
}

/* Point k on body: body-frame key pk or global key ak (default 0 when
 * optional). */
static void attach(struct bctx *b, struct fread *fr, int k, const char *pk,
		   const char *ak, int required)
{
	const struct dnode *pv = dn_get(fr->item, pk), *av = dn_get(fr->item, ak);
	double g[3];
	if (pv && av) {
		diag_error(b->d, &av->pos, "%s has both '%s' and '%s'", fr->what, pk, ak);
		fr->bad = 1;
	} else if (pv) {
		fr->bad |= get_vec3(b, pv, pk, fr->f.s[k]) < 0;
	} else if (av) {
		if (get_vec3(b, av, ak, g))
			fr->bad = 1;
		else if (fr->f.body[k] != -2)
			model_point_to_body(b->m, fr->f.body[k], g, fr->f.s[k]);
	} else if (required) {
		diag_error(b->d, &fr->item->pos, "%s needs '%s' or '%s'", fr->what, pk, ak);
		fr->bad = 1;
	}
}

/* A particle is loaded at its centre only (model_particle_centre):
 * attachment k, given by key pk or ak, is snapped to it, or an error at
 * that key. */
static void particle_end(struct bctx *b, struct fread *fr, int k, const char *pk, const char *ak)
{
	double off;
	if (fr->bad || !model_particle_centre(b->m, fr->f.body[k], fr->f.s[k], &off))
		return;
	const struct dnode *v = dn_get(fr->item, pk);
	diag_error(b->d, v ? &v->pos : &dn_get(fr->item, ak)->pos,
		   "%s acts %.6g m from the centre of particle '%s' (a particle is "
		   "loaded at its centre)", fr->what, off, b->m->bodies[fr->f.body[k]].name);
	fr->bad = 1;
}

static void actuator(struct bctx *b, struct fread *fr, const char *key, int unit)
{
	const struct dnode *v = dn_get(fr->item, key);
	if (!v && !unit)
		return;
	if (!fr->f.x)
		fr->f.x = xcalloc(1, sizeof(*fr->f.x));
	if (v) {
		fr->bad |= build_func(b, v, key, fr->what, &fr->f.x->act) < 0;
		fr->f.has_act = 1;
	} else {
		fr->f.x->act.type = FUNC_CONSTANT;
		fr->f.x->act.c[0] = 1;
		fr->f.has_act = 1;	/* the multiplier defaults to 1 (mbsim-deck(5)) */
	}
}

static void force_tsda(struct bctx *b, struct fread *fr)
{
	double r[2][3], A[9], p[2][3], d[3];
	fr->f.body[0] = body_of(b, fr, "body1");
	fr->f.body[1] = body_of(b, fr, "body2");
	attach(b, fr, 0, "point1", "at1", 1);
	attach(b, fr, 1, "point2", "at2", 1);
	opt_nonneg(b, fr, "stiffness", &fr->f.k);
	opt_nonneg(b, fr, "damping", &fr->f.c);
	int given = opt_num(b, fr->item, "free_length", &fr->f.l0);
	if (given > 0)
		nonneg(b, fr, "free_length", fr->f.l0);
	fr->bad |= given < 0;
	actuator(b, fr, "actuator", 0);
	particle_end(b, fr, 0, "point1", "at1");
	particle_end(b, fr, 1, "point2", "at2");
	if (fr->bad || given)
		return;
	for (int k = 0; k < 2; k++) {
		model_pose0(b->m, fr->f.body[k], r[k], A);
		m3_mulv(p[k], A, fr->f.s[k]);
		v3_add(p[k], p[k], r[k]);
	}
	v3_sub(d, p[1], p[0]);
	fr->f.l0 = v3_norm(d);
}

/* rsda and friction act in a joint of the right type. */
static void joint_of(struct bctx *b, struct fread *fr, unsigned types, const char *need_txt)
{
	const struct dnode *v = need(b, fr->item, "joint", fr->what);
	int j = v ? resolve_joint(b, v, fr->what) : -2;
	if (j < 0) {
		fr->bad = 1;
		return;
	}
	const struct joint *jt = &b->m->joints[j];
	if (!(types & (1u << jt->type))) {
		diag_error(b->d, &v->pos, "%s needs a %s joint, '%s' is %s", fr->what,
			   need_txt, jt->name, joint_type_names[jt->type]);
		fr->bad = 1;
		return;
	}
	fr->f.joint = j;
	fr->f.body[0] = jt->body[0];
	fr->f.body[1] = jt->body[1];
}

static void force_rsda(struct bctx *b, struct fread *fr)
{
	joint_of(b, fr, 1u << JOINT_REVOLUTE | 1u << JOINT_CYLINDRICAL,
		 "revolute or cylindrical");
	opt_nonneg(b, fr, "stiffness", &fr->f.k);
	opt_nonneg(b, fr, "damping", &fr->f.c);
	fr->bad |= opt_num(b, fr->item, "free_angle", &fr->f.l0) < 0;
	actuator(b, fr, "actuator", 0);
	static const char *const kinds[] = { "continuous", "wrapped" };
	const struct dnode *v = dn_get(fr->item, "angle");
	if (v) {
		int k = pick_name(b, v, "angle", kinds, 2);
		fr->bad |= k < 0;
		fr->f.wrapped = k == 1;
	}
}

/* torque on a massless link: the distance joint named by 'joint' */
static void torque_link(struct bctx *b, struct fread *fr)
{
	if (dn_get(fr->item, "body")) {
		diag_error(b->d, &dn_get(fr->item, "joint")->pos, "%s has both 'body' and 'joint'",
			   fr->what);
		fr->bad = 1;
		return;
	}
	joint_of(b, fr, 1u << JOINT_DISTANCE, "distance (massless link)");
	fr->bad |= req_vec3(b, fr->item, "vector", fr->what, fr->f.vec) < 0;
	const struct dnode *v = dn_get(fr->item, "frame");
	if (v && (v->kind != DN_SCALAR || strcmp(v->str, "global") != 0)) {
		diag_error(b->d, &v->pos, "%s on a link takes its vector in the global frame only",
			   fr->what);
		fr->bad = 1;
	}
	actuator(b, fr, "function", 1);
}

/* body: the one body a force, torque or tire acts on (not the ground),
 * into f.body[0] */
static int loaded_body(struct bctx *b, struct fread *fr)
{
	int k = body_of(b, fr, "body");
	if (k == MODEL_GROUND) {
		diag_error(b->d, &dn_get(fr->item, "body")->pos, "%s cannot act on ground",
			   fr->what);
		fr->bad = 1;
	}
	fr->f.body[0] = k;
	return k;
}

/* force and torque: a vector on one body, scaled by a function. */
static void force_load(struct bctx *b, struct fread *fr, int point)
{
	static const char *const frames[] = { "global", "body" };
	const struct dnode *v;
	if (!point && dn_get(fr->item, "joint")) {
		torque_link(b, fr);
		return;
	}
	int k = loaded_body(b, fr);
	if (point)
		attach(b, fr, 0, "point", "at", 0);
	fr->bad |= req_vec3(b, fr->item, "vector", fr->what, fr->f.vec) < 0;
	if ((v = dn_get(fr->item, "frame"))) {
		int fk = pick_name(b, v, "frame", frames, 2);
		fr->bad |= fk < 0;
		fr->f.body_frame = fk == 1;
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
		particle_end(b, fr, 0, "point", "at");
	actuator(b, fr, "function", 1);
}

static void force_friction(struct bctx *b, struct fread *fr)
{
	joint_of(b, fr, 1u << JOINT_TRANSLATIONAL, "translational");
	if (req_num(b, fr->item, "mu", fr->what, &fr->f.mu) < 0)
		fr->bad = 1;
	else
		nonneg(b, fr, "mu", fr->f.mu);
	fr->f.v_eps = 1e-5;
	int r = opt_num(b, fr->item, "velocity_threshold", &fr->f.v_eps);
	if (r > 0 && !(fr->f.v_eps > 0)) {
		diag_error(b->d, &dn_get(fr->item, "velocity_threshold")->pos,
			   "velocity_threshold of %s must be positive, got %g", fr->what,
			   fr->f.v_eps);
		fr->bad = 1;
	}
	fr->bad |= r < 0;
}

/* tire: a wheel centre on one body above a road z = h(x, y) */
static void positive(struct bctx *b, struct fread *fr, const char *key, double *x)
{
	if (req_num(b, fr->item, key, fr->what, x) < 0) {
		fr->bad = 1;
	} else if (!(*x > 0)) {
		diag_error(b->d, &dn_get(fr->item, key)->pos, "%s of %s must be positive, got %g",
			   key, fr->what, *x);
		fr->bad = 1;
	}
}

static void force_tire(struct bctx *b, struct fread *fr)
{
	loaded_body(b, fr);
	attach(b, fr, 0, "point", "at", 0);
	positive(b, fr, "radius", &fr->f.l0);
	positive(b, fr, "stiffness", &fr->f.k);
	opt_nonneg(b, fr, "damping", &fr->f.c);
	const struct dnode *v = dn_get(fr->item, "road");
	if (v)
		fr->bad |= build_road(b, v, "road", fr->what, &fr->f.ex) < 0;
	/* road look-ahead of adaptive steps (ra.h ra_road_ahead): sample
	 * spacing radius / 100 and tolerance 1e-4 m unless given */
	fr->f.vec[0] = fr->f.l0 / 100.0;
	fr->f.vec[1] = 1e-4;
	opt_nonneg(b, fr, "lookahead", &fr->f.vec[0]);
	if (dn_get(fr->item, "lookahead_tolerance"))
		positive(b, fr, "lookahead_tolerance", &fr->f.vec[1]);
	particle_end(b, fr, 0, "point", "at");
}

/* ---- issue 15: expressions, motors, bushings ---- */

/* expression: of tsda, rsda (self names), force, torque (in place of
 * function), motor (self names: the joint coordinate and rate). */
static void expression(struct bctx *b, struct fread *fr, int t)
{
	const struct dnode *v = dn_get(fr->item, "expression");
	if (!v)
		return;
	if ((t == FORCE_POINT || t == FORCE_TORQUE) && dn_get(fr->item, "function")) {
		diag_error(b->d, &v->pos, "%s has both 'function' and 'expression'", fr->what);
		fr->bad = 1;
		return;
	}
	int self = t == FORCE_TSDA || t == FORCE_RSDA || t == FORCE_MOTOR;
	fr->bad |= build_sexpr(b, v, "expression", fr->what, self, &fr->f.ex) < 0;
}

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
	opt_nonneg(b, fr, key, x);
}

static void force_motor(struct bctx *b, struct fread *fr)
{
	static const char *const laws[] = { "p", "pd", "pi", "pid" };
	static const char *const ons[] = { "coordinate", "rate" };
	const struct dnode *cv = dn_get(fr->item, "control"), *v;
	joint_of(b, fr, 1u << JOINT_REVOLUTE | 1u << JOINT_CYLINDRICAL |
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
		fr->f.x->on_rate = k == 1;
	}
	gain(b, fr, "kp", 1, laws[law], &fr->f.x->kp);
	gain(b, fr, "kd", (law == 1 || law == 3) && !fr->f.x->on_rate, laws[law], &fr->f.x->kd);
	gain(b, fr, "ki", law >= 2, laws[law], &fr->f.x->ki);
	if ((v = dn_get(fr->item, "limit"))) {
		fr->bad |= opt_num(b, fr->item, "limit", &fr->f.x->limit) < 0;
		if (!(fr->f.x->limit > 0)) {
			diag_error(b->d, &v->pos, "limit of %s must be positive, got %g", fr->what,
				   fr->f.x->limit);
			fr->bad = 1;
		}
	}
	const struct dnode *tv = need(b, fr->item, "target", fr->what);
	fr->bad |= !tv || build_func(b, tv, "target", fr->what, &fr->f.x->target) < 0;
}

static void vec_nonneg(struct bctx *b, struct fread *fr, const char *key, double *x)
{
	int r = opt_vec3(b, fr->item, key, x);
	fr->bad |= r < 0;
	if (r > 0 && (x[0] < 0 || x[1] < 0 || x[2] < 0)) {
		diag_error(b->d, &dn_get(fr->item, key)->pos,
			   "%s of %s must not be negative", key, fr->what);
		fr->bad = 1;
	}
}

/* stiffness_curves: {x: NAME, ..., rz: NAME} in place of the stiffness */
static void bushing_curves(struct bctx *b, struct fread *fr)
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
		for (int i = 0; i < b->m->ncurves && !fr->f.x->kc[c]; i++) {
			if (strcmp(b->m->curves[i].name, name) == 0)
				fr->f.x->kc[c] = &b->m->curves[i];
			suggest_add(&sg, b->m->curves[i].name);
		}
		if (!fr->f.x->kc[c]) {
			diag_error(b->d, &v->pos, "unknown curve '%s' in stiffness_curves of %s%s",
				   name, fr->what, suggest_text(&sg, sug, sizeof sug));
			fr->bad = 1;
		} else if (fr->f.x->K6[c] != 0.0) {
			diag_error(b->d, &v->pos, "%s has a stiffness and a curve for component %s",
				   fr->what, comp[c]);
			fr->bad = 1;
		}
	}
}

static void force_bushing(struct bctx *b, struct fread *fr)
{
	double Ag[9], r[3], A[9];
	const struct dnode *av = dn_get(fr->item, "at"), *ov = dn_get(fr->item, "orientation");
	fr->f.body[0] = body_of(b, fr, "body1");
	fr->f.body[1] = body_of(b, fr, "body2");
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
		attach(b, fr, 0, "point1", "at1", 1);
		attach(b, fr, 1, "point2", "at2", 1);
	}
	m3_identity(Ag);
	if (ov)
		fr->bad |= build_orientation(b, ov, fr->what, Ag) < 0;
	vec_nonneg(b, fr, "translational_stiffness", fr->f.x->K6);
	vec_nonneg(b, fr, "rotational_stiffness", fr->f.x->K6 + 3);
	vec_nonneg(b, fr, "translational_damping", fr->f.x->C6);
	vec_nonneg(b, fr, "rotational_damping", fr->f.x->C6 + 3);
	fr->bad |= opt_vec3(b, fr->item, "preload_force", fr->f.x->pre) < 0;
	fr->bad |= opt_vec3(b, fr->item, "preload_torque", fr->f.x->pre + 3) < 0;
	bushing_curves(b, fr);
	if (fr->bad)
		return;
	/* both markers have the bushing axes at t0: F_k = A_k0^T Ag */
	for (int k = 0; k < 2; k++) {
		model_pose0(b->m, fr->f.body[k], r, A);
		m3_tmul(fr->f.x->F[k], A, Ag);
	}
}

/* As elem_name in joint.c: NULL when missing or duplicate. */
static const char *force_name(struct bctx *b, const struct dnode *item,
			      const char **shown)
{
	const char *name;
	const struct dnode *nv = need(b, item, "name", "force");
	*shown = NULL;
	if (!nv || get_name(b, nv, "force", &name))
		return NULL;
	*shown = name;
	int k = model_find_force(b->m, name);
	if (k >= 0) {
		dup_name(b, nv, "force", &b->m->forces[k].pos);
		return NULL;
	}
	return name;
}

void build_force(struct bctx *b, const struct dnode *item)
{
	struct fread fr = { .item = item };
	const struct dnode *tv;
	char what[160], tdesc[200];
	int t = -1;

	fr.f.body[0] = fr.f.body[1] = MODEL_GROUND;
	fr.f.joint = -1;
	const char *shown;
	const char *name = force_name(b, item, &shown);
	snprintf(what, sizeof what, shown ? "force '%s'" : "force", shown);
	fr.what = what;
	if ((tv = need(b, item, "type", what)))
		t = pick_name(b, tv, "force type", force_type_names, FORCE_NTYPES);
	snprintf(tdesc, sizeof tdesc, "%s %s", t >= 0 ? force_type_names[t] : "", what);
	fr.bad = check_keys(b, item, key_sub(&key_top, "forces"), t >= 0 ? 1u << t : 0,
			    tdesc) > 0;
	if (t == FORCE_MOTOR || t == FORCE_BUSHING)
		fr.f.x = xcalloc(1, sizeof(*fr.f.x));
	switch (t) {
	case FORCE_TSDA: force_tsda(b, &fr); break;
	case FORCE_RSDA: force_rsda(b, &fr); break;
	case FORCE_POINT: force_load(b, &fr, 1); break;
	case FORCE_TORQUE: force_load(b, &fr, 0); break;
	case FORCE_FRICTION: force_friction(b, &fr); break;
	case FORCE_MOTOR: expression(b, &fr, t); force_motor(b, &fr); break;
	case FORCE_BUSHING: force_bushing(b, &fr); break;
	case FORCE_TIRE: force_tire(b, &fr); break;
	default: fr.bad = 1; break;
	}
	if (t == FORCE_TSDA || t == FORCE_RSDA || t == FORCE_POINT || t == FORCE_TORQUE)
		expression(b, &fr, t);
	if (!name || fr.bad) {
		if (fr.f.x) {
			func_release(&fr.f.x->act);
			func_release(&fr.f.x->target);
		}
		free(fr.f.x);
		sexpr_free(&fr.f.ex);
		return;
	}
	struct force *f = model_add_force(b->m, name, (enum force_type)t);
	char *keep = f->name;
	*f = fr.f;
	f->type = (enum force_type)t;
	f->name = keep;
	f->pos = item->pos;
}
