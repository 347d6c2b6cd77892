/* output_shape.c - the bodies' shapes and inertial data, written once
 * (man/mbsim-output.5, group /shapes, with the masses and inertias the
 * default boxes and the kinetic energies of viewers are made from); a
 * beam's nodes drawn as the member, with the lines through its nodes. */
#include "output.h"
#include "../model/shape.h"
#include "../util/vec.h"
#include "../util/xalloc.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The section a beam is drawn with: the rectangle b x h (along section
 * axes 2, 3) of its mass moments per length, m22 = m h^2 / 12 and m33 =
 * m b^2 / 12 (a rectangle's; a circle of radius r gets sides sqrt(3) r). */
static void beam_section(const struct beam *bm, double *b, double *h)
{
	*b = sqrt(12.0 * bm->J[2] / bm->m);
	*h = sqrt(12.0 * bm->J[1] / bm->m);
}

/* /shapes/lines: per beam, the segments between the centre vertices
 * (cv, per model body) of consecutive nodes, and where each beam's start. */
static void output_lines(struct h5out *h, const struct model *m, const long *cv)
{
	int nl = 0, *lines, *loff = xmalloc(((size_t)m->nbeams + 1) * sizeof(int));
	const char **names = xmalloc(((size_t)m->nbeams + 1) * sizeof(char *));
	for (int i = 0; i < m->nbeams; i++)
		nl += 2 * m->beams[i].nel;
	lines = xmalloc(((size_t)nl + 1) * 2 * sizeof(int));
	nl = 0;
	for (int i = 0; i < m->nbeams; i++) {
		const struct beam *bm = &m->beams[i];
		loff[i] = nl;
		names[i] = bm->name;
		for (int k = 1; k <= 2 * bm->nel; k++, nl++) {
			lines[2 * nl] = (int)cv[bm->node0 + k - 1];
			lines[2 * nl + 1] = (int)cv[bm->node0 + k];
		}
	}
	loff[m->nbeams] = nl;
	h5_matrix(h, "/shapes/lines", H5_INT, lines, nl, 2, 0);
	h5_ints(h, "/shapes/line_offsets", loff, m->nbeams + 1);
	h5_names(h, "/shapes/beams", names, m->nbeams);
	h5_attr_str(h, "/shapes/lines", "description",
		    "the segments of each beam between its consecutive nodes' centres: rows of "
		    "/shapes/vertices, beam k's rows line_offsets[k] to line_offsets[k+1]-1, "
		    "beams in the order of /shapes/beams");
	free(lines), free(loff), free(names);
}

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
	/* per model body: its beam and the centre vertex of a beam node */
	int *beam_of = xmalloc(((size_t)m->nbodies + 1) * sizeof(int));
	long *cv = xmalloc(((size_t)m->nbodies + 1) * sizeof(long));
	for (int mb = 0; mb < m->nbodies; mb++)
		beam_of[mb] = -1, cv[mb] = -1;
	for (int i = 0; i < m->nbeams; i++)
		for (int k = 0; k <= 2 * m->beams[i].nel; k++)
			beam_of[m->beams[i].node0 + k] = i;
	for (int mb = 0, b = 0; mb < m->nbodies; mb++) {
		const struct body *bd = &m->bodies[mb];
		if (bd->kind == BODY_PARTICLE)
			continue;
		const struct shape *s = shapes_get(ms, mb);
		mass[b] = bd->mass;
		memcpy(J + 9 * b, bd->J, sizeof bd->J);
		voff[b] = (int)tb.nv, toff[b] = (int)tb.nt;
		file[b] = s && s->type == SHAPE_MESH ? ms->meshes[s->mesh].file : "";
		if (beam_of[mb] >= 0 && !s) {
			/* a beam node (the deck gives them no shape): the member
			 * from the node before it, in the section frame */
			const struct beam *bm = &m->beams[beam_of[mb]];
			int k = mb - bm->node0, last = 2 * bm->nel;
			size[3 * b] = 0;
			beam_section(bm, size + 3 * b + 1, size + 3 * b + 2);
			cv[mb] = shape_beam_section(&tb, size[3 * b + 1], size[3 * b + 2],
						    k > 0 ? cv[mb - 1] : -1, k == 0 ? -1 : k == last);
			dflt[b] = 0;
			type[b] = "beam";
			memset(pos + 3 * b, 0, 3 * sizeof(double));
			quat[4 * b] = 1, quat[4 * b + 1] = quat[4 * b + 2] = quat[4 * b + 3] = 0;
			b++;
			continue;
		}
		shape_triangulate(ms, s, bd->mass, bd->J, &tb);
		dflt[b] = s == NULL;
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
	if (m->nbeams > 0)
		output_lines(h, m, cv);
	/* no "units": that attribute marks a series (man/mbsim-output.5) */
	h5_attr_str(h, "/shapes/vertices", "description",
		    "triangulated surface of each body in its body frame, m, bodies in the order of "
		    "/bodies/names, body b's rows vertex_offsets[b] to vertex_offsets[b+1]");
	h5_attr_str(h, "/shapes/triangles", "description",
		    "vertex indices (0-based, into /shapes/vertices) of each triangle, "
		    "counter-clockwise seen from outside");
	free(mass), free(J), free(size), free(pos), free(quat), free(dflt);
	free(voff), free(toff), free(type), free(file), free(tb.v), free(tb.t);
	free(beam_of), free(cv);
}
