/* force.c - the forces: list: each item's name and type, its keys
 * checked against the type's rows (keys.c), then the type's own build
 * operation (elem/elem.h); and the readers those share (force.h). */
#include "force.h"
#include "../elem/elem.h"
#include "../model/sexpr.h"
#include "../util/vec.h"
#include "../util/xalloc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>


void force_nonneg(struct bctx *b, struct fread *fr, const char *key, double x)
{
	if (x < 0) {
		diag_error(b->d, &dn_get(fr->item, key)->pos,
			   "%s of %s must not be negative, got %g", key, fr->what, x);
		fr->bad = 1;
	}
}

void force_opt_nonneg(struct bctx *b, struct fread *fr, const char *key, double *x)
{
	int r = opt_num(b, fr->item, key, x);
	if (r < 0)
		fr->bad = 1;
	else if (r > 0)
		force_nonneg(b, fr, key, *x);
}

int force_body_of(struct bctx *b, struct fread *fr, const char *key)
{
	const struct dnode *v = need(b, fr->item, key, fr->what);
	int k = v ? resolve_body(b, v, fr->what) : -2;
	if (k == -2)
		fr->bad = 1;
	return k;
}

void force_attach(struct bctx *b, struct fread *fr, int k, const char *pk,
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

/* (model_particle_centre) */
void force_particle_end(struct bctx *b, struct fread *fr, int k, const char *pk, const char *ak)
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

void force_actuator(struct bctx *b, struct fread *fr, const char *key, int unit)
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

void force_joint_of(struct bctx *b, struct fread *fr, unsigned types, const char *need_txt)
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
int force_loaded_body(struct bctx *b, struct fread *fr)
{
	int k = force_body_of(b, fr, "body");
	if (k == MODEL_GROUND) {
		diag_error(b->d, &dn_get(fr->item, "body")->pos, "%s cannot act on ground",
			   fr->what);
		fr->bad = 1;
	}
	fr->f.body[0] = k;
	return k;
}
void force_positive(struct bctx *b, struct fread *fr, const char *key, double *x)
{
	if (req_num(b, fr->item, key, fr->what, x) < 0) {
		fr->bad = 1;
	} else if (!(*x > 0)) {
		diag_error(b->d, &dn_get(fr->item, key)->pos, "%s of %s must be positive, got %g",
			   key, fr->what, *x);
		fr->bad = 1;
	}
}
void force_vec_nonneg(struct bctx *b, struct fread *fr, const char *key, double *x)
{
	int r = opt_vec3(b, fr->item, key, x);
	fr->bad |= r < 0;
	if (r > 0 && (x[0] < 0 || x[1] < 0 || x[2] < 0)) {
		diag_error(b->d, &dn_get(fr->item, key)->pos,
			   "%s of %s must not be negative", key, fr->what);
		fr->bad = 1;
	}
}
void *fread_par(struct fread *fr)
{
	return elem_par(&fr->f);
}

void force_expression(struct bctx *b, struct fread *fr, int self, const char *excl)
{
	const struct dnode *v = dn_get(fr->item, "expression");
	if (!v)
		return;
	if (excl && dn_get(fr->item, excl)) {
		diag_error(b->d, &v->pos, "%s has both '%s' and 'expression'", fr->what, excl);
		fr->bad = 1;
		return;
	}
	fr->bad |= build_sexpr(b, v, "expression", fr->what, self, &fr->f.ex) < 0;
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
	if (t >= 0) {
		fr.f.type = (enum force_type)t;
		elem_types[t]->build(b, &fr);
	} else {
		fr.bad = 1;
	}
	if (!name || fr.bad) {
		if (fr.f.x) {
			func_release(&fr.f.x->act);
			func_release(&fr.f.x->target);
		}
		free(fr.f.x);
		free(fr.f.par);
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
