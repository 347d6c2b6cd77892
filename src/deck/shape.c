/* shape.c - a body's `shape:` mapping (model/shape.h, man/mbsim-deck.5). */
#include "build.h"
#include "mesh.h"
#include "../model/shape.h"
#include "../util/xalloc.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Index of the mesh of file in m->shapes (read once per path), or -1
 * after reporting at v. */
static int load_mesh(struct bctx *b, const struct dnode *v, const char *file, const char *what)
{
	char *path = deck_file(b, file), err[256];
	struct model_shapes *ms = b->m->shapes;
	for (int i = 0; ms && i < ms->nmeshes; i++)
		if (strcmp(ms->meshes[i].file, path) == 0) {
			free(path);
			return i;
		}
	struct shape_mesh mh;
	if (mesh_read(path, &mh, err, sizeof err)) {
		diag_error(b->d, &v->pos, "cannot read mesh file '%s' of %s: %s", path, what, err);
		free(path);
		return -1;
	}
	free(path);
	shapes_at(&b->m->shapes, 0);	/* makes the set */
	ms = b->m->shapes;
	ms->meshes = xrealloc(ms->meshes, (size_t)(ms->nmeshes + 1) * sizeof(*ms->meshes));
	ms->meshes[ms->nmeshes] = mh;
	return ms->nmeshes++;
}

/* Report the first vertex of s's mesh that its scale and placement
 * (A (scale v) + r, in the body frame) take out of range of double
 * precision: the output would hold inf. */
static void mesh_placed_finite(struct bctx *b, const struct dnode *v, const struct shape *s,
			       const char *whose)
{
	const struct shape_mesh *mh = &b->m->shapes->meshes[s->mesh];
	for (int i = 0; i < mh->nv; i++) {
		const double *x = mh->v + 3 * i;
		for (int r = 0; r < 3; r++) {
			double y = s->r[r];
			for (int c = 0; c < 3; c++)
				y += s->A[3 * r + c] * (s->size[c] * x[c]);
			if (isfinite(y))
				continue;
			const struct dnode *sc = dn_get(v, "scale");
			diag_error(b->d, sc ? &sc->pos : &dn_get(v, "file")->pos,
				   "vertex %d (%g, %g, %g) of mesh file '%s' of %s is not finite "
				   "once scaled by %g and placed", i + 1, x[0], x[1], x[2], mh->file,
				   whose, s->size[0]);
			return;
		}
	}
}

/* A length that must be > 0 (>= 0 when zero_ok), required or not. */
static int shape_len(struct bctx *b, const struct dnode *v, const char *key, const char *what,
		     int required, int zero_ok, double *out)
{
	int rc = required ? req_num(b, v, key, what, out) : opt_num(b, v, key, out);
	if (rc <= 0)
		return rc;
	if (!(*out > 0) && !(zero_ok && *out == 0)) {
		diag_error(b->d, &dn_get(v, key)->pos, "%s of the shape of %s must be %s, got %g", key,
			   what, zero_ok ? ">= 0" : "> 0", *out);
		return -1;
	}
	return 1;
}

int build_shape(struct bctx *b, const struct dnode *v, const char *what, struct shape *s)
{
	const struct key_sect *sect = key_sub(key_sub(&key_top, "bodies"), "shape");
	const struct dnode *tv;
	memset(s, 0, sizeof(*s));
	for (int i = 0; i < 9; i++)
		s->A[i] = i % 4 == 0;
	s->mesh = -1;
	if (want_map(b, v, "shape"))
		return -1;
	char whose[200];
	snprintf(whose, sizeof whose, "the shape of %s", what);
	if (!(tv = need(b, v, "type", whose))) {
		check_keys(b, v, sect, 0, NULL);
		return -1;
	}
	/* shape_type_names[0] is SHAPE_NONE's, no deck spelling */
	int t = pick_name(b, tv, "shape type", shape_type_names + 1, SHAPE_NTYPES - 1);
	if (t < 0) {
		check_keys(b, v, sect, 0, NULL);
		return -1;
	}
	s->type = (enum shape_type)(t + 1);
	char desc[64];
	snprintf(desc, sizeof desc, "a shape of type %s", shape_type_names[s->type]);
	int nerr = b->d->nerr;
	check_keys(b, v, sect, 1u << s->type, desc);
	const struct dnode *sv;
	switch (s->type) {
	case SHAPE_BOX:
		if ((sv = need(b, v, "size", "box shape")) && get_vec3(b, sv, "size", s->size) == 0)
			for (int i = 0; i < 3; i++)
				if (!(s->size[i] > 0)) {
					diag_error(b->d, &sv->pos, "size of the shape of %s must be > 0 in every "
						   "axis, got [%g, %g, %g]", what, s->size[0], s->size[1],
						   s->size[2]);
					break;
				}
		break;
	case SHAPE_CYLINDER:
	case SHAPE_CAPSULE:
		shape_len(b, v, "radius", what, 1, 0, &s->size[0]);
		shape_len(b, v, "length", what, 1, s->type == SHAPE_CAPSULE, &s->size[1]);
		break;
	case SHAPE_SPHERE:
		shape_len(b, v, "radius", what, 1, 0, &s->size[0]);
		break;
	default: {
		const char *file;
		double sc = 1;
		shape_len(b, v, "scale", what, 0, 0, &sc);
		s->size[0] = s->size[1] = s->size[2] = sc;
		if (req_str(b, v, "file", "mesh shape", &file) > 0) {
			if (!file[0])
				diag_error(b->d, &dn_get(v, "file")->pos, "empty mesh file name in %s", what);
			else
				s->mesh = load_mesh(b, dn_get(v, "file"), file, what);
		}
		break;
	}
	}
	opt_vec3(b, v, "position", s->r);
	if ((sv = dn_get(v, "orientation")))
		build_orientation(b, sv, whose, s->A);
	if (b->d->nerr == nerr && s->mesh >= 0)
		mesh_placed_finite(b, v, s, whose);
	return b->d->nerr > nerr ? -1 : 0;
}
