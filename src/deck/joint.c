/* joint.c - joints (marker frames from global or body-frame geometry)
 * and drivers (prescribed joint coordinates). */
#include "build.h"
#include "../util/vec.h"
#include "../util/xalloc.h"

#include <math.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

/* Joint being read: what the geometry helpers need. */
struct jread {
	const struct dnode *item;
	enum joint_type type;
	int body[2];		/* -2 when unresolved */
	const char *what;	/* "joint 'pin'" */
};

static int needs_axis(enum joint_type t)
{
	return t == JOINT_REVOLUTE || t == JOINT_CYLINDRICAL ||
	       t == JOINT_TRANSLATIONAL || t == JOINT_UNIVERSAL ||
	       t == JOINT_POINT_LINE || t == JOINT_POINT_PLANE || t == JOINT_PLANAR ||
	       t == JOINT_SCREW;
}

/* point_on_line and point_on_plane use the axis on body1 only */
static int needs_axis2(enum joint_type t)
{
	return needs_axis(t) && !(JOINT_AXIS_ON_1 & (1u << t));
}

/* Read a nonzero direction (absent: keep def when not required). */
static int read_axis(struct bctx *b, const struct jread *jr, const char *key,
		     int required, double u[3])
{
	const struct dnode *v = dn_get(jr->item, key);
	if (!v) {
		if (required)
			need(b, jr->item, key, jr->what);
		return required ? -1 : 0;
	}
	if (get_vec3(b, v, key, u))
		return -1;
	if (v3_norm(u) == 0) {
		diag_error(b->d, &v->pos, "zero-length '%s' in %s", key, jr->what);
		return -1;
	}
	return 0;
}

static int perpendicular(const double *a, const double *c)
{
	return fabs(v3_dot(a, c)) <= 1e-6 * v3_norm(a) * v3_norm(c);
}

/* point + axis (+ cross_axis), all global at t0. */
static void joint_global(struct bctx *b, const struct jread *jr, struct joint *j)
{
	double p[3], axis[3] = { 0, 0, 1 }, cross[3] = { 1, 0, 0 };
	const struct dnode *it = jr->item;
	int bad = 0;

	if (dn_get(it, "axis1") || dn_get(it, "axis2")) {
		diag_error(b->d, &it->pos, "%s mixes global 'point' with body-frame 'axis1'/'axis2'",
			   jr->what);
		return;
	}
	bad |= get_vec3(b, dn_get(it, "point"), "point", p) < 0;
	bad |= read_axis(b, jr, "axis", needs_axis(jr->type), axis) < 0;
	if (jr->type == JOINT_UNIVERSAL) {
		if (read_axis(b, jr, "cross_axis", 1, cross))
			return;
		if (!bad && !perpendicular(axis, cross)) {
			diag_error(b->d, &dn_get(it, "cross_axis")->pos,
				   "'cross_axis' of %s is not perpendicular to 'axis'", jr->what);
			return;
		}
	}
	if (!bad && j)
		model_joint_global(b->m, j, p, axis,
				   jr->type == JOINT_UNIVERSAL ? cross : NULL);
}

/* point1/point2 and axis1/axis2 in the body frames. */
static void joint_local(struct bctx *b, const struct jread *jr, struct joint *j)
{
	double s[2][3], z[2][3] = { { 0, 0, 1 }, { 0, 0, 1 } };
	const struct dnode *it = jr->item;
	int bad = 0, axes = dn_get(it, "axis1") || dn_get(it, "axis2");

	if (dn_get(it, "axis") || dn_get(it, "cross_axis")) {
		diag_error(b->d, &it->pos, "%s mixes body-frame 'point1'/'point2' with global 'axis'",
			   jr->what);
		return;
	}
	bad |= req_vec3(b, it, "point1", jr->what, s[0]) < 0;
	bad |= req_vec3(b, it, "point2", jr->what, s[1]) < 0;
	bad |= read_axis(b, jr, "axis1", needs_axis(jr->type) || axes, z[0]) < 0;
	bad |= read_axis(b, jr, "axis2", needs_axis2(jr->type) || (axes && needs_axis(jr->type)),
			 z[1]) < 0;
	if (bad || !j)
		return;
	if (jr->type == JOINT_UNIVERSAL) {
		double r[3], A[2][9], g[2][3];
		for (int k = 0; k < 2; k++) {
			model_pose0(b->m, jr->body[k], r, A[k]);
			m3_mulv(g[k], A[k], z[k]);
		}
		if (!perpendicular(g[0], g[1])) {
			diag_error(b->d, &dn_get(it, "axis2")->pos,
				   "'axis2' of %s is not perpendicular to 'axis1' at t0", jr->what);
			return;
		}
	}
	model_joint_local(b->m, j, s[0], s[1], z[0], z[1]);
}

/* End k of a distance joint: point<k> (body frame) or at<k> (global). */
static int distance_end(struct bctx *b, const struct jread *jr, int k, double s[3])
{
	const char *pk = k ? "point2" : "point1", *ak = k ? "at2" : "at1";
	double g[3];
	const struct dnode *pv = dn_get(jr->item, pk), *av = dn_get(jr->item, ak);
	if (pv && av) {
		diag_error(b->d, &av->pos, "%s has both '%s' and '%s'", jr->what, pk, ak);
		return -1;
	}
	if (!pv && !av) {
		diag_error(b->d, &jr->item->pos, "%s needs '%s' or '%s'", jr->what, pk, ak);
		return -1;
	}
	if (pv)
		return get_vec3(b, pv, pk, s);
	if (get_vec3(b, av, ak, g))
		return -1;
	if (jr->body[k] != -2)
		model_point_to_body(b->m, jr->body[k], g, s);
	return 0;
}

/* Global position at t0 of body-frame point s on body k. */
static void point0(const struct model *m, int body, const double s[3], double p[3])
{
	double r[3], A[9];
	model_pose0(m, body, r, A);
	m3_mulv(p, A, s);
	v3_add(p, p, r);
}

static void joint_distance(struct bctx *b, const struct jread *jr, struct joint *j)
{
	double s[2][3], len = 0, p[2][3], dp[3];
	int bad = distance_end(b, jr, 0, s[0]) < 0;
	bad |= distance_end(b, jr, 1, s[1]) < 0;
	int given = opt_num(b, jr->item, "length", &len);
	if (given > 0 && !(len > 0))
		diag_error(b->d, &dn_get(jr->item, "length")->pos,
			   "length of %s must be positive, got %g", jr->what, len);
	if (bad || given < 0 || !j)
		return;
	if (!given) {
		point0(b->m, jr->body[0], s[0], p[0]);
		point0(b->m, jr->body[1], s[1], p[1]);
		v3_sub(dp, p[1], p[0]);
		len = v3_norm(dp);
		if (len == 0)
			diag_error(b->d, &jr->item->pos, "%s has zero length at t0", jr->what);
	}
	memcpy(j->s, s, sizeof s);
	j->length = len;
}

static void joint_geometry(struct bctx *b, const struct jread *jr, struct joint *j)
{
	const struct dnode *it = jr->item;
	if (jr->type == JOINT_DISTANCE)
		joint_distance(b, jr, j);
	else if (dn_get(it, "point") && (dn_get(it, "point1") || dn_get(it, "point2")))
		diag_error(b->d, &it->pos, "%s has both 'point' and 'point1'/'point2'", jr->what);
	else if (dn_get(it, "point"))
		joint_global(b, jr, j);
	else if (dn_get(it, "point1") || dn_get(it, "point2"))
		joint_local(b, jr, j);
	else
		diag_error(b->d, &it->pos, "%s needs 'point' or both 'point1' and 'point2'",
			   jr->what);
}

/* The key that placed end k of a joint: point, point<k>, at<k>. */
static const struct dnode *end_key(const struct dnode *it, int k)
{
	const struct dnode *v = dn_get(it, "point");
	if (!v)
		v = dn_get(it, k ? "point2" : "point1");
	if (!v)
		v = dn_get(it, k ? "at2" : "at1");
	return v ? v : it;
}

/* A particle takes part only in joints that make sense for a point
 * (model.h JOINT_PARTICLE_OK), with its centre as the joint point
 * (model_particle_centre: exactly 0, so that no row couples its inert
 * rotation) and never as the carrier of an axis.  The body key of the
 * particle, or the key of its point, is where an error is shown. */
static void particle_ends(struct bctx *b, const struct jread *jr, struct joint *j,
			  const struct dnode *const bv[2])
{
	for (int k = 0; k < 2; k++) {
		if (!model_is_particle(b->m, jr->body[k]))
			continue;
		const struct body *P = &b->m->bodies[jr->body[k]];
		unsigned bit = 1u << jr->type;
		if (!(JOINT_PARTICLE_OK & bit)) {
			diag_error(b->d, &bv[k]->pos, "%s joint cannot attach particle '%s' "
				   "(a particle has no orientation; spherical, distance, "
				   "point_on_line and point_on_plane can)",
				   joint_type_names[jr->type], P->name);
			continue;
		}
		if (k == 0 && (JOINT_AXIS_ON_1 & bit)) {
			diag_error(b->d, &bv[k]->pos, "%s joint cannot carry its axis on particle "
				   "'%s' (make the particle body2)", joint_type_names[jr->type],
				   P->name);
			continue;
		}
		double off;
		if (j && model_particle_centre(b->m, jr->body[k], j->s[k], &off))
			diag_error(b->d, &end_key(jr->item, k)->pos, "%s is %.6g m from the centre "
				   "of particle '%s' (a particle is joined at its centre)", jr->what,
				   off, P->name);
	}
}

/* name of a joint or driver: required and unique. Returns the name to
 * add under, or NULL if missing or duplicate (then the element is still
 * checked, and *shown names it in messages). */
static const char *elem_name(struct bctx *b, const struct dnode *item, const char *noun,
			     int (*find)(const struct model *, const char *),
			     const struct srcpos *(*first)(const struct model *, int),
			     const char **shown)
{
	const char *name;
	const struct dnode *nv = need(b, item, "name", noun);
	*shown = NULL;
	if (!nv || get_name(b, nv, noun, &name))
		return NULL;
	*shown = name;
	int k = find(b->m, name);
	if (k >= 0) {
		dup_name(b, nv, noun, first(b->m, k));
		return NULL;
	}
	return name;
}

static const struct srcpos *joint_pos(const struct model *m, int k)
{
	return &m->joints[k].pos;
}

/* Term k of a coupling: which coordinate of joint ji it takes (a
 * DRIVER_* kind), or -1 after an error at v. */
static int coupling_kind(struct bctx *b, const struct dnode *v, enum joint_type t, int k,
			 const struct joint *jt, const char *what)
{
	int rot = jt->type == JOINT_REVOLUTE || jt->type == JOINT_CYLINDRICAL;
	int tr = jt->type == JOINT_TRANSLATIONAL || jt->type == JOINT_CYLINDRICAL;
	if (t == JOINT_COUPLER) {
		if (jt->type == JOINT_REVOLUTE || jt->type == JOINT_TRANSLATIONAL)
			return jt->type == JOINT_REVOLUTE ? DRIVER_ROTATION : DRIVER_TRANSLATION;
		diag_error(b->d, &v->pos, "%s couples %s joint '%s' (a coupler takes the turn of a "
			   "revolute or the slide of a translational joint)", what,
			   joint_type_names[jt->type], jt->name);
		return -1;
	}
	if (k == 0 || t == JOINT_GEAR) {
		if (rot)
			return DRIVER_ROTATION;
		diag_error(b->d, &v->pos, "%s needs a revolute or cylindrical joint as '%s', '%s' "
			   "is %s", what, k ? "joint2" : "joint1", jt->name, joint_type_names[jt->type]);
		return -1;
	}
	if (tr)
		return DRIVER_TRANSLATION;
	diag_error(b->d, &v->pos, "%s needs a translational or cylindrical joint as 'joint2', "
		   "'%s' is %s", what, jt->name, joint_type_names[jt->type]);
	return -1;
}

/* The joint named s, when the deck lists it but the builder, which adds
 * joints in deck order, has not added it yet: a coupling listed before a
 * joint it couples.  NULL otherwise. */
static const struct dnode *listed_later(struct bctx *b, const struct dnode *v)
{
	const struct dnode *js = dn_get(b->root, "joints");
	if (v->kind != DN_SCALAR || model_find_joint(b->m, v->str) >= 0 || !js ||
	    js->kind != DN_SEQ)
		return NULL;
	for (int i = 0; i < js->n; i++) {
		const struct dnode *it = js->items[i];
		const struct dnode *nv = it->kind == DN_MAP ? dn_get(it, "name") : NULL;
		if (nv && nv->kind == DN_SCALAR && strcmp(nv->str, v->str) == 0)
			return nv;
	}
	return NULL;
}

/* gear, rack_pinion, coupler: a row over the coordinates of joints listed
 * before it, sum c_k (q_k - q_k(t0)) = 0 (model.h joint_cpl). */
static void build_coupling(struct bctx *b, const struct dnode *item, const char *name,
			   enum joint_type t, const char *what)
{
	static const char *const jkey[] = { "joint1", "joint2", "joint3" };
	static const char *const rkey[] = { "ratio1", "ratio2", "ratio3" };
	struct joint_cpl c;
	int bad = 0;
	memset(&c, 0, sizeof c);
	c.n = t == JOINT_COUPLER && dn_get(item, "joint3") ? 3 : 2;
	for (int k = 0; k < c.n; k++) {
		const struct dnode *v = need(b, item, jkey[k], what), *later;
		if (v && (later = listed_later(b, v))) {
			diag_error(b->d, &v->pos, "%s couples joint '%s', which is listed after it "
				   "(list the coupled joints first)", what, v->str);
			diag_note(b->d, &later->pos, "joint '%s' is here", v->str);
			bad = 1;
			continue;
		}
		int ji = v ? resolve_joint(b, v, what) : -2;
		if (ji < 0) {
			bad = 1;
			continue;
		}
		for (int i = 0; i < k; i++)
			if (c.joint[i] == ji) {
				diag_error(b->d, &v->pos, "%s couples joint '%s' twice", what,
					   b->m->joints[ji].name);
				bad = 1;
			}
		int kind = coupling_kind(b, v, t, k, &b->m->joints[ji], what);
		bad |= kind < 0;
		c.joint[k] = ji;
		c.kind[k] = kind < 0 ? DRIVER_ROTATION : (enum driver_kind)kind;
	}
	if (t == JOINT_COUPLER) {
		if (dn_get(item, "ratio3") && c.n < 3) {
			diag_error(b->d, &dn_get(item, "ratio3")->pos, "%s has 'ratio3' but no 'joint3'",
				   what);
			bad = 1;
		}
		int nz = 0;
		for (int k = 0; k < c.n; k++) {
			bad |= req_num(b, item, rkey[k], what, &c.c[k]) < 0;
			nz += c.c[k] != 0.0;
		}
		if (!bad && nz == 0) {
			diag_error(b->d, &item->pos, "%s has every ratio 0 (no relation)", what);
			bad = 1;
		}
	} else {
		const char *key = t == JOINT_GEAR ? "ratio" : "radius";
		double r = 0.0;
		if (req_num(b, item, key, what, &r) < 0) {
			bad = 1;
		} else if (r == 0.0 || !isfinite(r)) {
			diag_error(b->d, &dn_get(item, key)->pos, "'%s' of %s must be nonzero and finite",
				   key, what);
			bad = 1;
		}
		c.c[0] = r;
		c.c[1] = -1.0;
	}
	if (bad || !name)
		return;
	struct joint *j = model_add_joint(b->m, name, t);
	j->body[0] = j->body[1] = MODEL_GROUND;	/* model_finalize: the coupled joints' */
	j->pos = item->pos;
	j->cpl = xmalloc(sizeof *j->cpl);
	*j->cpl = c;
}

static void build_screw(struct bctx *b, const struct dnode *item, struct joint *j,
			const char *what)
{
	double pitch = 0.0;
	if (req_num(b, item, "pitch", what, &pitch) < 0)
		return;
	if (pitch == 0.0 || !isfinite(pitch)) {
		diag_error(b->d, &dn_get(item, "pitch")->pos, "'pitch' of %s must be nonzero and "
			   "finite (a cylindrical joint has none)", what);
		return;
	}
	if (!j)
		return;
	j->cpl = xcalloc(1, sizeof *j->cpl);
	j->cpl->pitch = pitch;	/* the terms: model_finalize */
}

void build_joint(struct bctx *b, const struct dnode *item)
{
	struct jread jr = { .item = item, .body = { -2, -2 } };
	const struct dnode *tv, *v1, *v2;
	char what[160], tdesc[200];
	int t = -1;

	const char *shown;
	const char *name = elem_name(b, item, "joint", model_find_joint, joint_pos, &shown);
	snprintf(what, sizeof what, shown ? "joint '%s'" : "joint", shown);
	jr.what = what;
	if ((tv = need(b, item, "type", what)))
		t = pick_name(b, tv, "joint type", joint_type_names, JOINT_NTYPES);
	snprintf(tdesc, sizeof tdesc, "%s %s", t >= 0 ? joint_type_names[t] : "", what);
	check_keys(b, item, key_sub(&key_top, "joints"), t >= 0 ? 1u << t : 0, tdesc);
	if (t >= 0 && joint_is_coupling((enum joint_type)t)) {
		build_coupling(b, item, name, (enum joint_type)t, what);
		return;
	}
	if ((v1 = need(b, item, "body1", what)))
		jr.body[0] = resolve_body(b, v1, what);
	if ((v2 = need(b, item, "body2", what)))
		jr.body[1] = resolve_body(b, v2, what);
	if (jr.body[0] != -2 && jr.body[0] == jr.body[1]) {
		diag_error(b->d, &v2->pos, "%s connects '%s' to itself", what, v2->str);
		return;
	}
	if (t < 0 || jr.body[0] == -2 || jr.body[1] == -2)
		return;
	jr.type = (enum joint_type)t;
	struct joint *j = NULL;
	if (name) {
		j = model_add_joint(b->m, name, jr.type);
		j->body[0] = jr.body[0];
		j->body[1] = jr.body[1];
		j->pos = item->pos;
	}
	int nerr = b->d->nerr;
	joint_geometry(b, &jr, j);
	if (jr.type == JOINT_SCREW)
		build_screw(b, item, j, what);
	if (b->d->nerr == nerr) {
		const struct dnode *const bv[2] = { v1, v2 };
		particle_ends(b, &jr, j, bv);
	}
}

static const struct srcpos *driver_pos(const struct model *m, int k)
{
	return &m->drivers[k].pos;
}

/* kind: given, or implied by the joint type; checked against it. */
static int driver_kind(struct bctx *b, const struct dnode *item, const struct joint *j,
		       const char *what)
{
	static const char *const kinds[] = { "rotation", "translation" };
	const struct dnode *kv = dn_get(item, "kind"), *jv = dn_get(item, "joint");
	int can_rot = j->type == JOINT_REVOLUTE || j->type == JOINT_CYLINDRICAL;
	int can_tr = j->type == JOINT_TRANSLATIONAL || j->type == JOINT_CYLINDRICAL ||
		     j->type == JOINT_POINT_LINE;
	int k;

	if (!can_rot && !can_tr) {
		diag_error(b->d, &jv->pos, "%s cannot drive %s joint '%s' (only revolute, cylindrical, translational, point_on_line)",
			   what, joint_type_names[j->type], j->name);
		return -1;
	}
	if (!kv) {
		if (j->type == JOINT_CYLINDRICAL) {
			diag_error(b->d, &item->pos, "%s on cylindrical joint '%s' needs 'kind' (rotation or translation)",
				   what, j->name);
			return -1;
		}
		return can_rot ? DRIVER_ROTATION : DRIVER_TRANSLATION;
	}
	if ((k = pick_name(b, kv, "driver kind", kinds, 2)) < 0)
		return -1;
	if ((k == DRIVER_ROTATION && !can_rot) || (k == DRIVER_TRANSLATION && !can_tr)) {
		diag_error(b->d, &kv->pos, "%s cannot prescribe %s of %s joint '%s'",
			   what, kinds[k], joint_type_names[j->type], j->name);
		return -1;
	}
	return k;
}

void build_driver(struct bctx *b, const struct dnode *item)
{
	const struct dnode *v;
	struct func f;
	char what[160];
	int ji = -2, kind = -1, relative = 1, fok = 0;

	memset(&f, 0, sizeof f);
	const char *shown;
	const char *name = elem_name(b, item, "driver", model_find_driver, driver_pos, &shown);
	snprintf(what, sizeof what, shown ? "driver '%s'" : "driver", shown);
	check_keys(b, item, key_sub(&key_top, "drivers"), 0, NULL);
	if ((v = need(b, item, "joint", what)))
		ji = resolve_joint(b, v, what);
	if (ji >= 0)
		kind = driver_kind(b, item, &b->m->joints[ji], what);
	opt_bool(b, item, "relative", &relative);
	if ((v = need(b, item, "function", what)))
		fok = build_func(b, v, "function", what, &f) == 0;
	if (!name || ji < 0 || kind < 0 || !fok) {
		func_release(&f);
		return;
	}
	struct driver *dr = model_add_driver(b->m, name);
	dr->joint = ji;
	dr->kind = (enum driver_kind)kind;
	dr->f = f;
	dr->relative = relative;
	dr->pos = item->pos;
}
