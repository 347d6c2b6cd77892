/* body.c - bodies: mass, inertia, initial pose and velocities. */
#include "build.h"
#include "../model/contact.h"
#include "../model/shape.h"
#include "../util/vec.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* Read a 3x3 matrix given as three rows of three numbers. */
static int get_mat3(struct bctx *b, const struct dnode *v, const char *key, double M[9])
{
	int rc = 0;
	for (int i = 0; i < 3; i++)
		rc |= get_vec3(b, v->items[i], key, M + 3 * i);
	return rc ? -1 : 0;
}

static int is_mat3(const struct dnode *v)
{
	return v->kind == DN_SEQ && v->n == 3 && v->items[0]->kind == DN_SEQ;
}

static double det3(const double *M)
{
	return M[0] * (M[4] * M[8] - M[5] * M[7]) -
	       M[1] * (M[3] * M[8] - M[5] * M[6]) +
	       M[2] * (M[3] * M[7] - M[4] * M[6]);
}

/* inertia: [Ixx, Iyy, Izz] or 3x3 rows; symmetric positive definite
 * (Sylvester: all leading principal minors positive). */
static void read_inertia(struct bctx *b, const struct dnode *v, const char *what,
			 double J[9])
{
	char buf[64];
	memset(J, 0, 9 * sizeof(double));
	if (is_mat3(v)) {
		if (get_mat3(b, v, "inertia", J))
			return;
	} else if (v->kind == DN_SEQ && v->n == 3) {
		double d[3];
		if (get_vec3(b, v, "inertia", d))
			return;
		J[0] = d[0], J[4] = d[1], J[8] = d[2];
	} else {
		diag_error(b->d, &v->pos, "expected [Ixx, Iyy, Izz] or a 3x3 matrix for 'inertia', got %s",
			   dn_describe(v, buf, sizeof buf));
		return;
	}
	double big = 0;
	for (int i = 0; i < 9; i++)
		big = fmax(big, fabs(J[i]));
	for (int i = 0; i < 3; i++)
		for (int k = i + 1; k < 3; k++)
			if (fabs(J[3 * i + k] - J[3 * k + i]) > 1e-9 * big) {
				diag_error(b->d, &v->pos, "inertia of %s is not symmetric", what);
				return;
			}
	if (J[0] > 0 && J[0] * J[4] - J[1] * J[3] > 0 && det3(J) > 0)
		return;
	/* positive semi-definite (principal minors >= 0, to round-off):
	 * bdf's tree formulation takes it (seed 003 §3.3) */
	double e = 1e-12 * big * big, e3 = e * big;
	int psd = J[0] >= 0 && J[4] >= 0 && J[8] >= 0 && J[0] * J[4] - J[1] * J[3] >= -e &&
		  J[0] * J[8] - J[2] * J[6] >= -e && J[4] * J[8] - J[5] * J[7] >= -e &&
		  det3(J) >= -e3;
	if (psd && b->singular_ok)
		return;
	diag_error(b->d, &v->pos, "inertia of %s is not positive definite%s", what,
		   psd ? " (a singular inertia needs integrator.method: bdf, the tree formulation "
			 "as an index-1 DAE)" : "");
}

/* R = rotation by angle about coordinate axis c ('x', 'y', 'z'). */
static void axis_rot(double *R, char c, double angle)
{
	int k = c - 'x', i = (k + 1) % 3, j = (k + 2) % 3;
	double cs = cos(angle), sn = sin(angle);
	memset(R, 0, 9 * sizeof(double));
	R[3 * k + k] = 1;
	R[3 * i + i] = cs, R[3 * i + j] = -sn;
	R[3 * j + i] = sn, R[3 * j + j] = cs;
}

static int euler_seq_ok(const char *s)
{
	if (strlen(s) != 3)
		return 0;
	for (int i = 0; i < 3; i++)
		if (!strchr("xyz", s[i]) || (i > 0 && s[i] == s[i - 1]))
			return 0;
	return 1;
}

/* Intrinsic rotations: A = R_s0(a) R_s1(b) R_s2(c). */
static int orient_euler(struct bctx *b, const struct dnode *v, const char *what, double A[9])
{
	double ang[3], R[9], T[9];
	const char *seq = "zxz";
	int bad = opt_str(b, v, "sequence", &seq) < 0;
	bad |= get_vec3(b, dn_get(v, "euler"), "euler", ang) < 0;
	if (bad)
		return -1;
	if (!euler_seq_ok(seq)) {
		diag_error(b->d, &dn_get(v, "sequence")->pos,
			   "bad euler sequence '%s' in %s (three of x, y, z, no two equal neighbours)",
			   seq, what);
		return -1;
	}
	axis_rot(A, seq[0], ang[0]);
	for (int i = 1; i < 3; i++) {
		axis_rot(R, seq[i], ang[i]);
		m3_mul(T, A, R);
		memcpy(A, T, sizeof T);
	}
	return 0;
}

static int orient_matrix(struct bctx *b, const struct dnode *v, const char *what, double A[9])
{
	const struct dnode *mv = dn_get(v, "matrix");
	double AtA[9], err = 0;
	char buf[64];
	if (!is_mat3(mv)) {
		diag_error(b->d, &mv->pos, "expected a 3x3 matrix for 'matrix', got %s",
			   dn_describe(mv, buf, sizeof buf));
		return -1;
	}
	if (get_mat3(b, mv, "matrix", A))
		return -1;
	m3_tmul(AtA, A, A);
	for (int i = 0; i < 9; i++)
		err = fmax(err, fabs(AtA[i] - (i % 4 == 0)));
	if (err > 1e-5) {
		diag_error(b->d, &mv->pos, "orientation matrix of %s is not orthonormal (max |A^T A - I| = %.3g)",
			   what, err);
		return -1;
	}
	if (det3(A) < 0) {
		diag_error(b->d, &mv->pos, "orientation matrix of %s is a reflection (determinant < 0)",
			   what);
		return -1;
	}
	m3_orthonormalize(A);
	return 0;
}

static int orient_quat(struct bctx *b, const struct dnode *v, const char *what, double A[9])
{
	const struct dnode *qv = dn_get(v, "quaternion");
	double q[4];
	char buf[64];
	if (not_list_of(qv, 4, buf, sizeof buf)) {
		diag_error(b->d, &qv->pos, "expected a list of 4 numbers for 'quaternion', got %s", buf);
		return -1;
	}
	int n, rc = get_numlist(b, qv, "quaternion", q, 4, &n);
	if (rc)
		return -1;
	double nq = sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
	if (fabs(nq - 1) > 1e-6) {
		diag_error(b->d, &qv->pos, "quaternion of %s is not a unit quaternion (norm %.9g)",
			   what, nq);
		return -1;
	}
	for (int i = 0; i < 4; i++)
		q[i] /= nq;
	quat_to_mat(A, q);
	return 0;
}

static int orient_axis(struct bctx *b, const struct dnode *v, const char *what, double A[9])
{
	double u[3], angle, th[3];
	int bad = get_vec3(b, dn_get(v, "axis"), "axis", u) < 0;
	bad |= req_num(b, v, "angle", what, &angle) < 0;
	if (bad)
		return -1;
	double n = v3_norm(u);
	if (n == 0) {
		diag_error(b->d, &dn_get(v, "axis")->pos, "zero-length axis in %s", what);
		return -1;
	}
	v3_scale(th, angle / n, u);
	so3_exp(A, th);
	return 0;
}

/* Keys that only make sense with another one. */
static int orient_companion(struct bctx *b, const struct dnode *v, const char *key,
			    const char *with)
{
	int i = dn_find(v, key);
	if (i < 0 || dn_get(v, with))
		return 0;
	diag_error(b->d, &v->keys[i]->pos, "'%s' is only used with '%s'", key, with);
	return -1;
}

int build_orientation(struct bctx *b, const struct dnode *v, const char *what, double A[9])
{
	static const char *const forms[] = { "matrix", "quaternion", "axis", "euler" };
	int nform = 0, form = -1;
	char w[160];

	m3_identity(A);
	if (want_map(b, v, "orientation"))
		return -1;
	if (check_keys(b, v, key_sub(key_sub(&key_top, "bodies"), "orientation"), 0, NULL))
		return -1;
	for (int i = 0; i < 4; i++)
		if (dn_get(v, forms[i]))
			nform++, form = i;
	if (nform != 1) {
		diag_error(b->d, &v->pos, "orientation of %s needs exactly one of 'matrix', 'quaternion', 'axis', 'euler'",
			   what);
		return -1;
	}
	if (orient_companion(b, v, "angle", "axis") | orient_companion(b, v, "sequence", "euler"))
		return -1;
	snprintf(w, sizeof w, "orientation of %s", what);
	switch (form) {
	case 0: return orient_matrix(b, v, what, A);
	case 1: return orient_quat(b, v, what, A);
	case 2: return orient_axis(b, v, w, A);
	default: return orient_euler(b, v, what, A);
	}
}

/* name: required, not empty, not ground, unique among bodies. 0 or -1. */
static int body_name(struct bctx *b, const struct dnode *item, const char **name)
{
	const struct dnode *nv = need(b, item, "name", "body");
	if (!nv || get_name(b, nv, "body", name))
		return -1;
	if (strcmp(*name, "ground") == 0) {
		diag_error(b->d, &nv->pos, "'%s' cannot name a body (%s)", *name,
			   "reserved for the fixed frame");
		return -1;
	}
	int k = model_find_body(b->m, *name);
	if (k >= 0) {
		dup_name(b, nv, "body", &b->m->bodies[k].pos);
		return -1;
	}
	return 0;
}

void build_body(struct bctx *b, const struct dnode *item)
{
	const char *name = NULL;
	const struct dnode *v;
	struct body tmp;
	char what[160], tdesc[200];
	int kind = BODY_RIGID;

	memset(&tmp, 0, sizeof tmp);
	m3_identity(tmp.A0);
	tmp.mass = 1;
	int named = body_name(b, item, &name) == 0;
	if ((v = dn_get(item, "kind")) && (kind = pick_name(b, v, "body kind", body_kind_names,
							     BODY_NKINDS)) < 0)
		named = 0;
	const char *noun = kind == BODY_PARTICLE ? "particle" : "body";
	if (name)
		snprintf(what, sizeof what, "%s '%s'", noun, name);
	else
		snprintf(what, sizeof what, "%s", noun);
	/* a particle's orientation, inertia, angular velocity: "key 'inertia'
	 * does not apply to particle 'p'" at the key */
	snprintf(tdesc, sizeof tdesc, "%s (a point mass has no rotation)", what);
	check_keys(b, item, key_sub(&key_top, "bodies"), kind >= 0 ? 1u << kind : 0, tdesc);
	if (req_num(b, item, "mass", what, &tmp.mass) > 0 &&
	    !(tmp.mass > 0 || (tmp.mass == 0 && b->singular_ok)))
		diag_error(b->d, &dn_get(item, "mass")->pos,
			   "mass of %s must be positive, got %g%s", what, tmp.mass, tmp.mass == 0 ?
			   " (a massless body needs integrator.method: bdf, the tree formulation "
			   "as an index-1 DAE; rn4, w2, adams, dopri5 and the ra schemes need positive "
			   "masses)" : "");
	if (kind == BODY_RIGID && (v = need(b, item, "inertia", what)))
		read_inertia(b, v, what, tmp.J);
	opt_vec3(b, item, "position", tmp.r0);
	if (kind != BODY_PARTICLE && (v = dn_get(item, "orientation")))
		build_orientation(b, v, what, tmp.A0);
	opt_vec3(b, item, "velocity", tmp.v0);
	if (kind != BODY_PARTICLE)
		opt_vec3(b, item, "angular_velocity", tmp.w0);
	struct shape shp;
	int has_shape = (v = dn_get(item, "shape")) && build_shape(b, v, what, &shp) == 0;
	struct contact_mat cmat;
	int has_contact = kind != BODY_PARTICLE && (v = dn_get(item, "contact")) &&
			  build_body_contact(b, v, what, has_shape ? &shp : NULL,
					     dn_get(item, "shape") != NULL, &cmat) == 0;
	if (!named)
		return;
	struct body *bd = model_add_body(b->m, name);
	bd->kind = kind == BODY_PARTICLE ? BODY_PARTICLE : BODY_RIGID;
	bd->mass = tmp.mass;
	memcpy(bd->J, tmp.J, sizeof tmp.J);
	memcpy(bd->r0, tmp.r0, sizeof tmp.r0);
	memcpy(bd->A0, tmp.A0, sizeof tmp.A0);
	memcpy(bd->v0, tmp.v0, sizeof tmp.v0);
	memcpy(bd->w0, tmp.w0, sizeof tmp.w0);
	bd->pos = item->pos;
	if (has_shape)
		*shapes_at(&b->m->shapes, b->m->nbodies - 1) = shp;
	if (has_contact)
		*contact_body_mat(&b->m->contact, b->m->nbodies - 1) = cmat;
}

/* points: a name, a body (or ground) and a body-frame position, given as
 * 'point' (body frame) or 'at' (global at t0). */
void build_point(struct bctx *b, const struct dnode *item)
{
	const struct dnode *nv, *bv, *pv, *av;
	const char *name = NULL;
	char what[160];
	int body = -2, ok = 1;
	double s[3] = { 0, 0, 0 }, g[3];

	check_keys(b, item, key_sub(&key_top, "points"), 0, NULL);
	if ((nv = need(b, item, "name", "point")) && get_name(b, nv, "point", &name) == 0) {
		int k = model_find_point(b->m, name);
		if (k >= 0) {
			dup_name(b, nv, "point", &b->m->points[k].pos);
			ok = 0;
		}
	} else {
		ok = 0;
	}
	snprintf(what, sizeof what, name ? "point '%s'" : "point", name);
	if ((bv = need(b, item, "body", what)))
		body = resolve_body(b, bv, what);
	pv = dn_get(item, "point");
	av = dn_get(item, "at");
	if (pv && av) {
		diag_error(b->d, &av->pos, "%s has both 'point' and 'at'", what);
		ok = 0;
	} else if (!pv && !av) {
		diag_error(b->d, &item->pos, "%s needs 'point' (body frame) or 'at' (global at t0)",
			   what);
		ok = 0;
	} else if (pv) {
		ok &= get_vec3(b, pv, "point", s) == 0;
	} else if (get_vec3(b, av, "at", g) == 0) {
		if (body != -2)
			model_point_to_body(b->m, body, g, s);
	} else {
		ok = 0;
	}
	if (!ok || body == -2)
		return;
	struct body_point *p = model_add_point(b->m, name);
	p->body = body;
	memcpy(p->s, s, sizeof s);
	p->pos = item->pos;
}
