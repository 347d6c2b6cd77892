/* output_shape.c - the bodies' shapes and inertial data, written once
 * (man/mbsim-output.5, group /shapes, with the masses and inertias the
 * default boxes and the kinetic energies of viewers are made from). */
#include "output.h"
#include "../model/shape.h"
#include "../util/vec.h"
#include "../util/xalloc.h"

#include <stdlib.h>
#include <string.h>

void output_shapes(struct h5out *h, const struct model *m)
{
	/* the rigid bodies of /bodies/names; particles have no shape */
	int nb = 0;
	for (int b = 0; b < m->nbodies; b++)
		nb += m->bodies[b].kind != BODY_PARTICLE;
	if (nb == 0)
		return;
	const struct model_shapes *ms = m->shapes;
	double *mass = xmalloc((size_t)nb * sizeof(double));
	double *J = xmalloc((size_t)nb * 9 * sizeof(double));
	double *size = xmalloc((size_t)nb * 3 * sizeof(double));
	double *pos = xmalloc((size_t)nb * 3 * sizeof(double));
	double *quat = xmalloc((size_t)nb * 4 * sizeof(double));
	int *dflt = xmalloc((size_t)nb * sizeof(int));
	int *voff = xmalloc(((size_t)nb + 1) * sizeof(int));
	int *toff = xmalloc(((size_t)nb + 1) * sizeof(int));
	const char **type = xmalloc((size_t)nb * sizeof(char *));
	const char **file = xmalloc((size_t)nb * sizeof(char *));
	struct tri_buf tb = { 0 };
	for (int mb = 0, b = 0; mb < m->nbodies; mb++) {
		const struct body *bd = &m->bodies[mb];
		if (bd->kind == BODY_PARTICLE)
			continue;
		const struct shape *s = shapes_get(ms, mb);
		mass[b] = bd->mass;
		memcpy(J + 9 * b, bd->J, sizeof bd->J);
		voff[b] = (int)tb.nv, toff[b] = (int)tb.nt;
		shape_triangulate(ms, s, bd->mass, bd->J, &tb);
		dflt[b] = s == NULL;
		file[b] = s && s->type == SHAPE_MESH ? ms->meshes[s->mesh].file : "";
		type[b] = shape_type_names[s ? s->type : SHAPE_BOX];
		if (s) {
			memcpy(size + 3 * b, s->size, sizeof s->size);
			memcpy(pos + 3 * b, s->r, sizeof s->r);
			mat_to_quat(quat + 4 * b, s->A);
		} else {
			double P[9];
			shape_inertia_box(bd->mass, bd->J, size + 3 * b, P);
			memset(pos + 3 * b, 0, 3 * sizeof(double));
			mat_to_quat(quat + 4 * b, P);
		}
		b++;
	}
	voff[nb] = (int)tb.nv, toff[nb] = (int)tb.nt;
	h5_matrix(h, "/shapes/mass", H5_DOUBLE, mass, nb, 0, 0);
	h5_matrix(h, "/shapes/inertia", H5_DOUBLE, J, nb, 3, 3);
	h5_names(h, "/shapes/type", type, nb);
	h5_names(h, "/shapes/file", file, nb);
	h5_ints(h, "/shapes/from_inertia", dflt, nb);
	h5_matrix(h, "/shapes/size", H5_DOUBLE, size, nb, 3, 0);
	h5_matrix(h, "/shapes/position", H5_DOUBLE, pos, nb, 3, 0);
	h5_matrix(h, "/shapes/orientation", H5_DOUBLE, quat, nb, 4, 0);
	h5_matrix(h, "/shapes/vertices", H5_DOUBLE, tb.v, tb.nv, 3, 0);
	h5_matrix(h, "/shapes/triangles", H5_INT, tb.t, tb.nt, 3, 0);
	h5_ints(h, "/shapes/vertex_offsets", voff, nb + 1);
	h5_ints(h, "/shapes/triangle_offsets", toff, nb + 1);
	/* no "units": that attribute marks a series (man/mbsim-output.5) */
	h5_attr_str(h, "/shapes/vertices", "description",
		    "triangulated surface of each body in its body frame, m, bodies in the order of "
		    "/bodies/names, body b's rows vertex_offsets[b] to vertex_offsets[b+1]");
	h5_attr_str(h, "/shapes/triangles", "description",
		    "vertex indices (0-based, into /shapes/vertices) of each triangle, "
		    "counter-clockwise seen from outside");
	free(mass), free(J), free(size), free(pos), free(quat), free(dflt);
	free(voff), free(toff), free(type), free(file), free(tb.v), free(tb.t);
}
