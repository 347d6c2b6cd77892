/* shape.c - a body's `shape:` mapping (model/shape.h, man/mbsim-deck.5). */
#include "build.h"
#include "mesh.h"
#include "../model/shape.h"
#include "../util/xalloc.h"

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
	return b->d->nerr > nerr ? -1 : 0;
}
