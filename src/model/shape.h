/* shape.h - what a body looks like: a box, cylinder, sphere, capsule or
 * triangle mesh placed in the body frame, for output and viewers only (the
 * dynamics use mass and inertia alone).
 *
 * Shapes are kept apart from struct body (model->shapes, NULL when the
 * deck gives none), one entry per body; an entry of type SHAPE_NONE is the
 * default, a box of the body's inertia (shape_inertia_box).  Lengths in m,
 * in the shape's own frame, which sits at r in the body frame with axes
 * A (shape -> body).  Cylinders and capsules have their axis along the
 * shape frame's z and are centred at its origin.
 */
#ifndef MBSIM_SHAPE_H
#define MBSIM_SHAPE_H

#include <stddef.h>

enum shape_type {
	SHAPE_NONE,		/* not given: the box of the inertia */
	SHAPE_BOX,		/* size = edge lengths x, y, z */
	SHAPE_CYLINDER,		/* size = radius, length, - */
	SHAPE_SPHERE,		/* size = radius, -, - */
	SHAPE_CAPSULE,		/* size = radius, length of the cylinder between the caps' centres, - */
	SHAPE_MESH,		/* size = scale of the file's coordinates, three times */
	SHAPE_NTYPES
};

/* A triangle mesh read from a file, shared by the bodies that name it. */
struct shape_mesh {
	char *file;		/* the path as opened */
	int nv, nt;
	double *v;		/* nv x 3, file units */
	int *t;			/* nt x 3, 0-based into v */
};

struct shape {
	enum shape_type type;
	double size[3];
	double r[3], A[9];	/* placement in the body frame */
	int mesh;		/* SHAPE_MESH: index into model_shapes.meshes */
};

struct model_shapes {
	struct shape *s;	/* ns entries (bodies past ns have none) */
	int ns, cap;
	struct shape_mesh *meshes;
	int nmeshes;
};

/* Names of the types, indexed by enum shape_type ("" for SHAPE_NONE). */
extern const char *const shape_type_names[SHAPE_NTYPES];

/* The entry of body b, made (SHAPE_NONE) as needed; *ms made as needed. */
struct shape *shapes_at(struct model_shapes **ms, int b);
/* The shape of body b, or NULL when the deck gives none. */
const struct shape *shapes_get(const struct model_shapes *ms, int b);
void shapes_free(struct model_shapes **ms);
/* 0 when mh bounds a solid: every edge shared by exactly two triangles
 * that run along it in opposite senses, and a positive enclosed volume;
 * else 1 with what is wrong in why (n bytes). */
int shape_mesh_closed(const struct shape_mesh *mh, char *why, size_t n);

/* The box of uniform density with mass m and centroidal inertia J (body
 * frame, SPD): edge lengths along J's principal axes (columns of P,
 * right-handed).  Edges squared are 6/m (J_j + J_k - J_i); an inertia no
 * solid can have (J_i > J_j + J_k) or a rod or plate (an edge near zero)
 * gets each edge at least a twentieth of the longest.  Returns 1 when an
 * edge was so raised, else 0. */
int shape_inertia_box(double m, const double J[9], double edge[3], double P[9]);

/* Triangles of many shapes: v holds nv vertices (3 doubles each), t nt
 * triangles (3 indices into the whole of v each); capacities in
 * vertices and triangles.  Zero it to start. */
struct tri_buf {
	double *v;
	int *t;
	long nv, nt, vcap, tcap;
};
/* Append vertex (x, y, z) and return its index; append triangle a, b, c. */
long tri_buf_vertex(struct tri_buf *o, double x, double y, double z);
void tri_buf_tri(struct tri_buf *o, long a, long b, long c);
/* Append the triangulation of s (NULL: the box of the inertia) of a body
 * of mass m and inertia J to out, in the body frame, outward normals by
 * the right-hand rule. */
void shape_triangulate(const struct model_shapes *ms, const struct shape *s, double m,
		       const double J[9], struct tri_buf *out);

/* A beam node drawn as the member: its centre (0, 0, 0), which a line
 * joins to the neighbouring nodes' centres, then the rectangle b x h of
 * the section (b along the section axis 2, h along 3, in the node's body
 * frame, which is the section frame: axis 1 along the beam); with prev >=
 * 0, the centre vertex of the node before it, the four faces of the
 * member between the two sections; cap -1 closes the member's start
 * (facing -axis 1), +1 its end, 0 neither.  Returns the centre's index. */
long shape_beam_section(struct tri_buf *out, double b, double h, long prev, int cap);

#endif
