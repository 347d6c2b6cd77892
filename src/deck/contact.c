/* contact.c - the deck's contact: section, contact_planes: list and a
 * body's contact material (model/contact.h, man/mbsim-deck.5). */
#include "build.h"
#include "keys.h"
#include "../model/contact.h"
#include "../model/shape.h"
#include "../util/vec.h"
#include "../util/xalloc.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* A coefficient read from key of v when given: 1 read and in [lo, hi]
 * (hi_open: below hi), 0 absent, -1 reported. */
static int coef(struct bctx *b, const struct dnode *v, const char *key, const char *what,
		double lo, double hi, int hi_open, double *out)
{
	int rc = opt_num(b, v, key, out);
	if (rc <= 0)
		return rc;
	if (!(*out >= lo) || !(hi_open ? *out < hi : *out <= hi)) {
		char range[64];
		if (isinf(hi))
			snprintf(range, sizeof range, ">= %g", lo);
		else
			snprintf(range, sizeof range, "in [%g, %g%s", lo, hi, hi_open ? ")" : "]");
		diag_error(b->d, &dn_get(v, key)->pos, "%s of the contact material of %s must be %s, "
			   "got %g", key, what, range, *out);
		return -1;
	}
	return 1;
}

/* The material mapping v of what into c; body: 1 for a body's (the smooth
 * model needs its stiffness), 0 for a plane's. */
static int build_mat(struct bctx *b, const struct dnode *v, const char *key, const char *what,
		     int body, struct contact_mat *c)
{
	int nerr = b->d->nerr;
	memset(c, 0, sizeof(*c));
	c->pos = v->pos;
	if (want_map(b, v, key))
		return -1;
	check_keys(b, v, key_sub(key_sub(&key_top, "bodies"), "contact"), 0, NULL);
	coef(b, v, "mu_s", what, 0, INFINITY, 0, &c->mu_s);
	c->mu_d = c->mu_s;
	if (coef(b, v, "mu_d", what, 0, INFINITY, 0, &c->mu_d) > 0 && c->mu_d > c->mu_s)
		diag_error(b->d, &dn_get(v, "mu_d")->pos, "mu_d of the contact material of %s must "
			   "not exceed mu_s (%g), got %g", what, c->mu_s, c->mu_d);
	c->e = 1;
	coef(b, v, "restitution", what, 0, 1, 0, &c->e);
	int hk = dn_get(v, "stiffness") != NULL, hE = dn_get(v, "youngs_modulus") != NULL;
	if (hk && hE)
		diag_error(b->d, &dn_get(v, "youngs_modulus")->pos, "contact material of %s gives "
			   "both stiffness and youngs_modulus: give one", what);
	if (hk && coef(b, v, "stiffness", what, 0, INFINITY, 0, &c->k) > 0 && !(c->k > 0))
		diag_error(b->d, &dn_get(v, "stiffness")->pos, "stiffness of the contact material "
			   "of %s must be > 0, got %g", what, c->k);
	if (hE && coef(b, v, "youngs_modulus", what, 0, INFINITY, 0, &c->E) > 0 && !(c->E > 0))
		diag_error(b->d, &dn_get(v, "youngs_modulus")->pos, "youngs_modulus of the contact "
			   "material of %s must be > 0, got %g", what, c->E);
	if (hk || hE)
		c->kpos = dn_get(v, hk ? "stiffness" : "youngs_modulus")->pos;
	c->nu = 0.3;
	if (coef(b, v, "poisson_ratio", what, 0, 0.5, 1, &c->nu) > 0 && !hE)
		diag_error(b->d, &dn_get(v, "poisson_ratio")->pos, "poisson_ratio of the contact "
			   "material of %s needs youngs_modulus", what);
	c->exponent = hE ? 1.5 : 1;
	if (coef(b, v, "exponent", what, 0, INFINITY, 0, &c->exponent) > 0 &&
	    !(c->exponent > 0 && c->exponent <= 10))
		diag_error(b->d, &dn_get(v, "exponent")->pos, "exponent of the contact material of "
			   "%s must be in (0, 10], got %g", what, c->exponent);
	if (body && !hk && !hE && (!b->m->contact || b->m->contact->model == CONTACT_SMOOTH))
		diag_error(b->d, &v->pos, "contact material of %s needs stiffness or "
			   "youngs_modulus (the smooth contact model's normal force)", what);
	return b->d->nerr > nerr ? -1 : 0;
}

static void build_plane(struct bctx *b, const struct dnode *item)
{
	struct model_contact *mc = contact_set(&b->m->contact);
	struct contact_plane pl;
	const struct dnode *v;
	char what[64];
	int nerr = b->d->nerr;
	memset(&pl, 0, sizeof pl);
	pl.pos = item->pos;
	snprintf(what, sizeof what, "contact plane %d", mc->nplanes + 1);
	check_keys(b, item, key_sub(&key_top, "contact_planes"), 0, NULL);
	opt_vec3(b, item, "point", pl.p);
	if (req_vec3(b, item, "normal", what, pl.n) > 0) {
		double L = v3_norm(pl.n);
		if (!(L > 0) || !isfinite(L))
			diag_error(b->d, &dn_get(item, "normal")->pos, "normal of %s must be a "
				   "nonzero finite vector, got [%g, %g, %g]", what, pl.n[0], pl.n[1],
				   pl.n[2]);
		else
			v3_scale(pl.n, 1 / L, pl.n);
	}
	if ((v = dn_get(item, "material")) && build_mat(b, v, "material", what, 0, &pl.mat) == 0)
		pl.has_mat = 1;
	if (b->d->nerr > nerr)
		return;
	mc->planes = xrealloc(mc->planes, (size_t)(mc->nplanes + 1) * sizeof(*mc->planes));
	mc->planes[mc->nplanes++] = pl;
}

void build_contact_top(struct bctx *b, const struct dnode *root)
{
	const struct dnode *v = dn_get(root, "contact"), *t;
	if (v && want_map(b, v, "contact") == 0) {
		struct model_contact *mc = contact_set(&b->m->contact);
		int k;
		check_keys(b, v, key_sub(&key_top, "contact"), 0, NULL);
		if ((t = dn_get(v, "model")) &&
		    (k = pick_name(b, t, "contact model", contact_model_names, CONTACT_NMODELS)) >= 0)
			mc->model = (enum contact_model)k;
		if ((t = dn_get(v, "damping")) &&
		    (k = pick_name(b, t, "contact damping", contact_damping_names, CDAMP_NFORMS)) >= 0)
			mc->damping = (enum contact_damping)k;
	}
	const struct dnode *pl = dn_get(root, "contact_planes");
	char buf[64];
	if (!pl)
		return;
	if (pl->kind != DN_SEQ) {
		diag_error(b->d, &pl->pos, "expected a list for 'contact_planes', got %s",
			   dn_describe(pl, buf, sizeof buf));
		return;
	}
	for (int i = 0; i < pl->n; i++) {
		if (pl->items[i]->kind != DN_MAP)
			diag_error(b->d, &pl->items[i]->pos, "expected a mapping for contact plane "
				   "in 'contact_planes', got %s",
				   dn_describe(pl->items[i], buf, sizeof buf));
		else
			build_plane(b, pl->items[i]);
	}
}

int build_body_contact(struct bctx *b, const struct dnode *v, const char *what,
		       const struct shape *s, int shape_given, struct contact_mat *c)
{
	if (build_mat(b, v, "contact", what, 1, c))
		return -1;
	if (!s) {
		if (shape_given)
			return -1;	/* reported with the shape */
		diag_error(b->d, &v->pos, "contact material of %s needs a shape (its collision "
			   "geometry): give the body a shape", what);
		return -1;
	}
	if (c->E > 0 && s->type != SHAPE_SPHERE && s->type != SHAPE_CAPSULE) {
		diag_error(b->d, &dn_get(v, "youngs_modulus")->pos, "youngs_modulus of %s: Hertz "
			   "contact needs a curved side, a sphere or capsule, and its shape is a %s; "
			   "give stiffness", what, shape_type_names[s->type]);
		return -1;
	}
	if (s->type == SHAPE_MESH && s->mesh >= 0) {
		const struct shape_mesh *mh = &b->m->shapes->meshes[s->mesh];
		char why[160];
		if (shape_mesh_closed(mh, why, sizeof why)) {
			diag_error(b->d, &v->pos, "contact material of %s needs a closed mesh (a "
				   "solid), and mesh file '%s' is not: %s", what, mh->file, why);
			return -1;
		}
	}
	return 0;
}

/* A note where the smooth model's damping form does not give material
 * c's impacts its restitution to 1 % (hunt_crossley, lankarani_nikravesh
 * and flores approximate the exact c(e); mbsim-deck(5)), or where e is
 * below the 0.01 the model reaches. */
static void note_restitution(struct bctx *b, const struct model_contact *mc,
			     const struct contact_mat *c)
{
	double e = c->e, eg = e;
	/* exact gives e itself from 0.01 on (its root found only for a note) */
	if (mc->damping != CDAMP_EXACT || e < 0.01)
		eg = contact_restitution_of(contact_damping_coef(mc->damping, e));
	if (e < 0.01)
		diag_note(b->d, &c->pos, "the smooth contact model's restitution is at least "
			  "0.01: this material's %g gives impacts %.3g", e, eg);
	else if (fabs(eg - e) > 0.01 * e)
		diag_note(b->d, &c->pos, "contact.damping %s gives this material's impacts a "
			  "restitution of %.3g, not its %g (the form holds near e = 1); "
			  "contact.damping: exact gives %g", contact_damping_names[mc->damping], eg,
			  e, e);
}

/* After the bodies: one exponent in the deck, a Hertz plane only under
 * round bodies, and the notes of note_restitution. */
void check_contact(struct bctx *b)
{
	struct model_contact *mc = b->m->contact;
	if (!mc)
		return;
	if (mc->model == CONTACT_SMOOTH)
		for (int i = 0; i < mc->nmat; i++)
			note_restitution(b, mc, mc->mat + i);
	const struct contact_mat *first = NULL;
	for (int i = 0; i < mc->nmat + mc->nplanes; i++) {
		const struct contact_mat *c = i < mc->nmat ? mc->mat + i :
			(mc->planes[i - mc->nmat].has_mat ? &mc->planes[i - mc->nmat].mat : NULL);
		if (!c || (!(c->k > 0) && !(c->E > 0)))
			continue;	/* rigid: no exponent of its own */
		if (!first) {
			first = c;
		} else if (c->exponent != first->exponent) {
			diag_error(b->d, &c->pos, "contact material with exponent %g, where an earlier "
				   "one has %g: every material of a deck needs the same exponent",
				   c->exponent, first->exponent);
			diag_note(b->d, &first->pos, "exponent %g given here", first->exponent);
			return;
		}
	}
	for (int p = 0; p < mc->nplanes; p++) {
		if (!mc->planes[p].has_mat || !(mc->planes[p].mat.E > 0))
			continue;
		for (int bd = 0; bd < mc->nb && bd < b->m->nbodies; bd++) {
			const struct shape *s = shapes_get(b->m->shapes, bd);
			if (mc->bmat[bd] < 0 || !s || s->type == SHAPE_SPHERE || s->type == SHAPE_CAPSULE)
				continue;
			diag_error(b->d, &mc->planes[p].mat.pos, "contact plane %d has a Hertz "
				   "material (youngs_modulus), and body '%s' touching it has a %s, "
				   "which has no curvature: give the plane stiffness", p + 1,
				   b->m->bodies[bd].name, shape_type_names[s->type]);
			return;
		}
	}
}
