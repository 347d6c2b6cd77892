/* beam.c - beams: a straight line of three-node elements whose nodes are
 * rigid bodies (model/beam.h). */
#include "build.h"
#include "../model/beam.h"
#include "../util/vec.h"
#include "../util/xalloc.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* positive number under key of map, required or optional (*out kept) */
static int pos_num(struct bctx *b, const struct dnode *map, const char *key, const char *what,
		   int required, double *out)
{
	const struct dnode *v = dn_get(map, key);
	if (!v) {
		if (required)
			diag_error(b->d, &map->pos, "missing required key '%s' in %s", key, what);
		return required ? -1 : 0;
	}
	if (get_num(b, v, key, out))
		return -1;
	if (!(*out > 0.0)) {
		diag_error(b->d, &v->pos, "'%s' of %s must be positive, got %g", key, what, *out);
		return -1;
	}
	return 1;
}

static int nonneg_num(struct bctx *b, const struct dnode *map, const char *key, const char *what,
		      double *out)
{
	const struct dnode *v = dn_get(map, key);
	if (!v)
		return 0;
	if (get_num(b, v, key, out))
		return -1;
	if (!(*out >= 0.0)) {
		diag_error(b->d, &v->pos, "'%s' of %s must be >= 0, got %g", key, what, *out);
		return -1;
	}
	return 1;
}

/* Strains in the order of bm->C's rows and columns (model.h), for messages. */
static const char *const strain_names[6] = { "Gamma1", "Gamma2", "Gamma3",
					     "kappa1", "kappa2", "kappa3" };

/* Tolerances of a full stiffness C: C_ij and C_ji may differ by
 * BEAM_SYM_TOL sqrt(C_ii C_jj) (the round-off of an expression; the pair
 * is then replaced by its mean, so the element sees an exact symmetric
 * C), and every Cholesky pivot must exceed BEAM_PD_TOL of its diagonal
 * entry (a matrix singular up to round-off is refused).  Both measure an
 * entry against the diagonal it couples, so they do not depend on the
 * units of length or force. */
#define BEAM_SYM_TOL 1e-9
#define BEAM_PD_TOL 1e-12
#define TEXT_(x) #x
#define TEXT(x) TEXT_(x)	/* a macro's value as the messages print it */

/* stiffness: 6 rows of 6 numbers (get_num: finite), symmetric and
 * positive definite (Cholesky of a copy, L L^T = C, column by column) */
static int read_stiffness(struct bctx *b, const struct dnode *v, const char *what, double *C)
{
	char buf[64];
	if (not_list_of(v, 6, buf, sizeof buf)) {
		diag_error(b->d, &v->pos, "expected 6 rows of 6 numbers for 'stiffness' of %s, "
			   "got %s", what, buf);
		return -1;
	}
	int rc = 0;
	for (int i = 0; i < 6; i++) {
		const struct dnode *row = v->items[i];
		if (not_list_of(row, 6, buf, sizeof buf)) {
			diag_error(b->d, &row->pos, "row %d of 'stiffness' of %s: expected 6 numbers, "
				   "got %s", i + 1, what, buf);
			rc = 1;
			continue;
		}
		for (int j = 0; j < 6; j++)
			rc |= get_num(b, row->items[j], "stiffness", &C[6 * i + j]) != 0;
	}
	if (rc)
		return -1;
	for (int i = 0; i < 6; i++)
		if (!(C[7 * i] > 0.0)) {
			diag_error(b->d, &v->items[i]->items[i]->pos, "'stiffness' of %s is not "
				   "positive definite: its diagonal entry %d (%s) is %g", what, i + 1,
				   strain_names[i], C[7 * i]);
			rc = 1;
		}
	if (rc)
		return -1;
	for (int i = 1; i < 6; i++)
		for (int j = 0; j < i; j++) {
			double *lo = &C[6 * i + j], *up = &C[6 * j + i];
			if (fabs(*lo - *up) > BEAM_SYM_TOL * sqrt(C[7 * i] * C[7 * j])) {
				diag_error(b->d, &v->items[i]->items[j]->pos, "'stiffness' of %s is not "
					   "symmetric: row %d column %d is %g, row %d column %d %g "
					   "(tolerance " TEXT(BEAM_SYM_TOL) " sqrt(C%d%d C%d%d))", what,
					   i + 1, j + 1, *lo, j + 1, i + 1, *up, i + 1, i + 1, j + 1,
					   j + 1);
				diag_note(b->d, &v->items[j]->items[i]->pos, "row %d column %d is here",
					  j + 1, i + 1);
				rc = 1;
			} else {
				*lo = *up = 0.5 * (*lo + *up);
			}
		}
	if (rc)
		return -1;
	double L[36];
	memcpy(L, C, sizeof L);
	for (int k = 0; k < 6; k++) {
		double d = L[7 * k];
		for (int p = 0; p < k; p++)
			d -= L[6 * k + p] * L[6 * k + p];
		if (!(d > BEAM_PD_TOL * C[7 * k])) {
			diag_error(b->d, &v->pos, "'stiffness' of %s is not positive definite: its "
				   "leading %d x %d block is not (Cholesky pivot %d is %g, below "
				   TEXT(BEAM_PD_TOL) " of C%d%d)", what, k + 1, k + 1, k + 1, d, k + 1,
				   k + 1);
			return -1;
		}
		L[7 * k] = sqrt(d);
		for (int i = k + 1; i < 6; i++) {
			double s = L[6 * i + k];
			for (int p = 0; p < k; p++)
				s -= L[6 * i + p] * L[6 * k + p];
			L[6 * i + k] = s / L[7 * k];
		}
	}
	return 0;
}

/* The section's stiffness C (36, row-major, zero on entry) and inertia:
 * either EA, GA2, GA3, GJ, EI2, EI3 (C diagonal) or the whole matrix
 * under stiffness, not both. */
static int read_section(struct bctx *b, const struct dnode *v, const char *what, double *C,
			double *m, double *J, double *mu)
{
	static const char *const diag_keys[] = { "EA", "GA", "GA2", "GA3", "GJ", "EI", "EI2",
						  "EI3" };
	char w[260];
	int rc = 0;
	snprintf(w, sizeof w, "section of %s", what);
	if (want_map(b, v, "section"))
		return -1;
	check_keys(b, v, key_sub(key_sub(&key_top, "beams"), "section"), 0, NULL);
	const struct dnode *kv = dn_get(v, "stiffness");
	if (kv) {
		/* the first diagonal key in the deck's order */
		for (int i = 0; i < v->n && !rc; i++)
			for (int k = 0; k < 8; k++)
				if (strcmp(v->keys[i]->str, diag_keys[k]) == 0) {
					diag_error(b->d, &v->keys[i]->pos, "'%s' of %s: give "
						   "stiffness or EA, GA, GJ, EI (and GA2, GA3, "
						   "EI2, EI3), not both", diag_keys[k], w);
					rc = 1;
					break;
				}
		rc |= read_stiffness(b, kv, w, C) != 0;
	} else {
		double K[6] = { 0 }, GA = 0, EI = 0;
		int hasGA = pos_num(b, v, "GA", w, 0, &GA), hasEI = pos_num(b, v, "EI", w, 0, &EI);
		K[1] = K[2] = GA;
		K[4] = K[5] = EI;
		/* a GA or EI already reported bad does not also make GA2 ... required */
		rc |= hasGA < 0 || hasEI < 0;
		rc |= pos_num(b, v, "EA", w, 1, &K[0]) < 0;
		rc |= pos_num(b, v, "GA2", w, hasGA == 0, &K[1]) < 0;
		rc |= pos_num(b, v, "GA3", w, hasGA == 0, &K[2]) < 0;
		rc |= pos_num(b, v, "GJ", w, 1, &K[3]) < 0;
		rc |= pos_num(b, v, "EI2", w, hasEI == 0, &K[4]) < 0;
		rc |= pos_num(b, v, "EI3", w, hasEI == 0, &K[5]) < 0;
		for (int i = 0; i < 6; i++)
			C[7 * i] = K[i];
	}
	rc |= pos_num(b, v, "m", w, 1, m) < 0;
	rc |= pos_num(b, v, "m22", w, 1, &J[1]) < 0;
	rc |= pos_num(b, v, "m33", w, 1, &J[2]) < 0;
	J[0] = J[1] + J[2];
	rc |= pos_num(b, v, "m11", w, 0, &J[0]) < 0;
	rc |= nonneg_num(b, v, "damping", w, mu) < 0;
	return rc ? -1 : 0;
}

/* Shear correction factors of Cowper (J. Appl. Mech. 33, 1966, Table 1):
 * rectangle 10 (1 + nu) / (12 + 11 nu), solid circle 6 (1 + nu) / (7 +
 * 6 nu), tube (c = ri / ro) 6 (1 + nu) (1 + c^2)^2 / ((7 + 6 nu) (1 +
 * c^2)^2 + (20 + 12 nu) c^2).  Torsion of a rectangle a x t (a >= t):
 * J = a t^3 (1/3 - 0.21 (t / a) (1 - t^4 / (12 a^4))) (Roark's formula,
 * within 0.2 % of the exact series for a square: 0.1408 against 0.1406). */
static int read_material(struct bctx *b, const struct dnode *mv, const struct dnode *cv,
			 const char *what, double *C, double *m, double *J, double *mu)
{
	char w[260], wc[260];
	int rc = 0;
	double E = 0, nu = 0, G = 0, rho = 0;
	snprintf(w, sizeof w, "material of %s", what);
	snprintf(wc, sizeof wc, "cross_section of %s", what);
	if (want_map(b, mv, "material") || want_map(b, cv, "cross_section"))
		return -1;
	check_keys(b, mv, key_sub(key_sub(&key_top, "beams"), "material"), 0, NULL);
	check_keys(b, cv, key_sub(key_sub(&key_top, "beams"), "cross_section"), 0, NULL);
	rc |= pos_num(b, mv, "E", w, 1, &E) < 0;
	rc |= pos_num(b, mv, "rho", w, 1, &rho) < 0;
	int hasG = pos_num(b, mv, "G", w, 0, &G);
	const struct dnode *nv = dn_get(mv, "nu");
	if (nv) {
		if (get_num(b, nv, "nu", &nu))
			rc = 1;
		else if (!(nu >= 0.0 && nu < 0.5)) {
			diag_error(b->d, &nv->pos, "'nu' of %s must be in [0, 0.5), got %g", w, nu);
			rc = 1;
		}
	} else if (hasG <= 0) {
		diag_error(b->d, &mv->pos, "missing required key 'nu' in %s (or give G)", w);
		rc = 1;
	}
	if (hasG <= 0)
		G = E / (2.0 * (1.0 + nu));
	rc |= nonneg_num(b, mv, "damping", w, mu) < 0;
	const char *type = NULL;
	static const char *const types[] = { "rectangle", "circle", "tube" };
	int t = -1;
	const struct dnode *tv = need(b, cv, "type", wc);
	if (tv && get_str(b, tv, "type", &type) == 0)
		t = pick_name(b, tv, "cross-section type", types, 3);
	if (t < 0 || rc)
		return -1;
	double A, I2, I3, Jt, k;
	if (t == 0) {
		double bw = 0, h = 0;
		if (pos_num(b, cv, "b", wc, 1, &bw) < 0 || pos_num(b, cv, "h", wc, 1, &h) < 0)
			return -1;
		double a = fmax(bw, h), th = fmin(bw, h), q = th / a;
		A = bw * h;
		I2 = bw * h * h * h / 12.0;
		I3 = h * bw * bw * bw / 12.0;
		Jt = a * th * th * th * (1.0 / 3.0 - 0.21 * q * (1.0 - q * q * q * q / 12.0));
		k = 10.0 * (1.0 + nu) / (12.0 + 11.0 * nu);
	} else if (t == 1) {
		double r = 0;
		if (pos_num(b, cv, "r", wc, 1, &r) < 0)
			return -1;
		A = M_PI * r * r;
		I2 = I3 = M_PI * r * r * r * r / 4.0;
		Jt = 2.0 * I2;
		k = 6.0 * (1.0 + nu) / (7.0 + 6.0 * nu);
	} else {
		double ro = 0, ri = 0;
		const struct dnode *riv = need(b, cv, "ri", wc);
		if (pos_num(b, cv, "ro", wc, 1, &ro) < 0 || !riv || get_num(b, riv, "ri", &ri))
			return -1;
		if (!(ri >= 0.0 && ri < ro)) {
			diag_error(b->d, &riv->pos, "'ri' of %s must be in [0, ro), got %g", wc, ri);
			return -1;
		}
		double c = ri / ro, c2 = (1.0 + c * c) * (1.0 + c * c);
		A = M_PI * (ro * ro - ri * ri);
		I2 = I3 = M_PI * (ro * ro * ro * ro - ri * ri * ri * ri) / 4.0;
		Jt = 2.0 * I2;
		k = 6.0 * (1.0 + nu) * c2 / ((7.0 + 6.0 * nu) * c2 + (20.0 + 12.0 * nu) * c * c);
	}
	C[0] = E * A;	/* the diagonal of C */
	C[7] = C[14] = k * G * A;
	C[21] = G * Jt;
	C[28] = E * I2;
	C[35] = E * I3;
	*m = rho * A;
	J[1] = rho * I2;
	J[2] = rho * I3;
	J[0] = J[1] + J[2];
	return 0;
}

/* the section frame: e1 along the beam, e3 = up made perpendicular, e2 =
 * e3 x e1; A0 has them as columns */
static int section_frame(struct bctx *b, const struct dnode *item, const double *d, double L,
			 const char *what, double *A)
{
	double e1[3], up[3], e2[3], e3[3];
	v3_scale(e1, 1.0 / L, d);
	const struct dnode *uv = dn_get(item, "up");
	if (uv) {
		if (get_vec3(b, uv, "up", up))
			return -1;
	} else {
		int k = 0;
		for (int c = 1; c < 3; c++)
			if (fabs(e1[c]) < fabs(e1[k]))
				k = c;
		v3_set(up, 0, 0, 0);
		up[k] = 1.0;
	}
	v3_axpy(up, -v3_dot(up, e1), e1);
	double n = v3_norm(up);
	if (!(n > 1e-6)) {
		diag_error(b->d, uv ? &uv->pos : &item->pos,
			   "'up' of %s is parallel to the beam (or zero)", what);
		return -1;
	}
	v3_scale(e3, 1.0 / n, up);
	v3_cross(e2, e3, e1);
	for (int r = 0; r < 3; r++) {
		A[3 * r] = e1[r];
		A[3 * r + 1] = e2[r];
		A[3 * r + 2] = e3[r];
	}
	return 0;
}

/* a node's name, NULL after reporting (taken or invalid) */
static int node_name(struct bctx *b, const struct dnode *at, const char *name,
		     const char *what)
{
	if (strcmp(name, "ground") == 0) {
		diag_error(b->d, &at->pos, "'ground' cannot name a node of %s", what);
		return -1;
	}
	int k = model_find_body(b->m, name);
	if (k >= 0) {
		diag_error(b->d, &at->pos, "node '%s' of %s: a body of that name exists already",
			   name, what);
		diag_note(b->d, &b->m->bodies[k].pos, "'%s' is defined here", name);
		return -1;
	}
	return 0;
}

void build_beam(struct bctx *b, const struct dnode *item)
{
	const char *name = NULL;
	char what[200];
	int rc = 0;
	double from[3], to[3], C[36] = { 0 }, m = 0, J[3] = { 0 }, mu = 0, A0[9];
	double v0[3] = { 0, 0, 0 }, w0[3] = { 0, 0, 0 };
	long nel = 0;

	check_keys(b, item, key_sub(&key_top, "beams"), 0, NULL);
	const struct dnode *nv = need(b, item, "name", "beam");
	if (!nv || get_name(b, nv, "beam", &name))
		return;
	int dup = model_find_beam(b->m, name);
	if (dup >= 0) {
		dup_name(b, nv, "beam", &b->m->beams[dup].pos);
		return;
	}
	snprintf(what, sizeof what, "beam '%s'", name);
	rc |= req_vec3(b, item, "from", what, from) < 0;
	rc |= req_vec3(b, item, "to", what, to) < 0;
	const struct dnode *ev = need(b, item, "elements", what);
	if (!ev || get_int(b, ev, "elements", &nel))
		rc = 1;
	else if (nel < 1 || nel > 100000) {
		diag_error(b->d, &ev->pos, "'elements' of %s must be in [1, 100000], got %ld",
			   what, nel);
		rc = 1;
	}
	const struct dnode *sv = dn_get(item, "section"), *mv = dn_get(item, "material"),
			   *cv = dn_get(item, "cross_section");
	if (sv && (mv || cv)) {
		diag_error(b->d, &(mv ? mv : cv)->pos, "%s: give section, or material with "
			   "cross_section, not both", what);
		rc = 1;
	} else if (sv) {
		rc |= read_section(b, sv, what, C, &m, J, &mu) != 0;
	} else if (mv && cv) {
		rc |= read_material(b, mv, cv, what, C, &m, J, &mu) != 0;
	} else {
		diag_error(b->d, &item->pos, "%s needs section, or material with cross_section",
			   what);
		rc = 1;
	}
	opt_vec3(b, item, "velocity", v0);
	opt_vec3(b, item, "angular_velocity", w0);
	if (rc)
		return;
	double d[3];
	v3_sub(d, to, from);
	double L = v3_norm(d);
	if (!(L > 0.0)) {
		diag_error(b->d, &item->pos, "%s has zero length (from = to)", what);
		return;
	}
	if (section_frame(b, item, d, L, what, A0))
		return;
	int nn = 2 * (int)nel + 1;
	char **names = xcalloc((size_t)nn, sizeof(char *));
	const struct dnode *ndv = dn_get(item, "nodes");
	const struct dnode *at[2] = { nv, nv };
	if (ndv && want_map(b, ndv, "nodes") == 0) {
		check_keys(b, ndv, key_sub(key_sub(&key_top, "beams"), "nodes"), 0, NULL);
		const char *keys[2] = { "start", "end" };
		for (int e = 0; e < 2; e++) {
			const struct dnode *x = dn_get(ndv, keys[e]);
			const char *s;
			if (x && get_name(b, x, "body", &s) == 0) {
				names[e ? nn - 1 : 0] = xstrdup(s);
				at[e] = x;
			} else if (x) {
				rc = 1;
			}
		}
	}
	for (int k = 0; k < nn; k++) {
		const struct dnode *nk = k == 0 ? at[0] : k == nn - 1 ? at[1] : nv;
		if (!names[k])
			names[k] = xasprintf("%s_%d", name, k);
		if (!rc && node_name(b, nk, names[k], what))
			rc = 1;
		for (int q = 0; q < k && !rc; q++)
			if (strcmp(names[q], names[k]) == 0) {
				diag_error(b->d, &nk->pos, "%s names two nodes '%s'", what, names[k]);
				rc = 1;
			}
	}
	if (!rc) {
		struct beam *bm = model_add_beam(b->m, name);
		bm->nel = (int)nel;
		bm->node0 = b->m->nbodies;
		memcpy(bm->C, C, sizeof bm->C);
		bm->mu = mu;
		bm->m = m;
		memcpy(bm->J, J, sizeof bm->J);
		bm->pos = item->pos;
		/* lumped mass: each node the mass and rotary inertia of its
		 * finite volume (ends: from the element end to xi = -+1/sqrt(3),
		 * (1 - 1/sqrt(3)) Le / 2; middle: between the points, Le/sqrt(3)) */
		double Le = L / (double)nel, lend = 0.5 * (1.0 - 1.0 / sqrt(3.0)) * Le,
		       lmid = Le / sqrt(3.0);
		for (int k = 0; k < nn; k++) {
			double len = (k % 2) ? lmid : (k == 0 || k == nn - 1) ? lend : 2.0 * lend;
			struct body *bd = model_add_body(b->m, names[k]);
			bd->kind = BODY_RIGID;
			bd->mass = m * len;
			memset(bd->J, 0, sizeof bd->J);
			for (int c = 0; c < 3; c++)
				bd->J[4 * c] = J[c] * len;
			for (int c = 0; c < 3; c++)
				bd->r0[c] = from[c] + d[c] * (double)k / (double)(nn - 1);
			memcpy(bd->A0, A0, sizeof A0);
			double rel[3], wv[3];
			v3_sub(rel, bd->r0, from);
			v3_cross(wv, w0, rel);
			v3_add(bd->v0, v0, wv);
			m3_tmulv(bd->w0, A0, w0);
			bd->pos = k == 0 ? at[0]->pos : k == nn - 1 ? at[1]->pos : item->pos;
		}
	}
	for (int k = 0; k < nn; k++)
		free(names[k]);
	free(names);
}
