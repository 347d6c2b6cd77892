/* contact.h - collision geometry and detection (issue 32), below form/:
 * it knows bodies' shapes and contact materials (model/shape.h,
 * model/contact.h) and poses, nothing of coordinates or forces.
 *
 * Geometry: every body with a contact material contributes its shape
 * (sphere, box, capsule, cylinder, or a mesh, taken as its convex hull),
 * the ground its planes.  Broad phase: each shape's world box (AABB,
 * grown by the margin) is hashed into a uniform grid whose cell is about
 * the median box size; the (body, cell) entries are sorted, so a call
 * costs O(N log N) in shapes, not O(N^2); planes are tested against every
 * box.  Narrow phase: closed forms for sphere-plane, box-plane,
 * capsule-plane, cylinder-plane, convex-hull-plane, sphere-sphere,
 * sphere-capsule, capsule-capsule and sphere-box; libccd's Minkowski
 * portal refinement (MPR) on the support functions for every other pair
 * (one point per pair).
 *
 * Conventions: a contact joins side a and side b (body indices, -1 the
 * ground, a < b); n is the unit normal from a to b; gap < 0 is
 * penetration; p lies midway between the two surfaces; ra = p - r_a and
 * rb = p - r_b are the lever arms from the bodies' centroids (= their
 * frames' origins), global.  A pair of shapes gives several points where
 * one would not hold the body (the corners of a box on a plane, the two
 * ends of a capsule lying on it, the rim of a cylinder). */
#ifndef MBSIM_CONTACT_H
#define MBSIM_CONTACT_H

#include <stddef.h>

struct model;

struct contact_pt {
	int a, b;		/* sides: body indices, -1 = ground, a < b */
	int plane;		/* a = -1: index of the ground plane; else -1 */
	int feat;		/* which point of the pair (a box corner, a
				 * capsule end, ...): stable while the same
				 * features touch, for a friction state */
	double p[3];		/* world point, midway between the surfaces */
	double n[3];		/* unit normal from a to b */
	double gap;		/* signed distance along n, < 0 penetration */
	double ra[3], rb[3];	/* p minus each side's centroid (0 for ground) */
	double R;		/* effective radius of curvature R* (1/R* =
				 * 1/R_a + 1/R_b; a plane or face has none):
				 * Hertz's; 0 when both sides are flat there */
};

struct contact_world;

/* The geometry of m's contact bodies and planes (m->contact); NULL when
 * the model has no contact material.  Shapes and meshes are copied (the
 * world does not keep m). */
struct contact_world *contact_world_new(const struct model *m);
void contact_world_free(struct contact_world **W);
/* Bodies taking part. */
int contact_world_nbodies(const struct contact_world *W);
/* The largest distance of a shape's point from its body's centroid, m. */
double contact_world_extent(const struct contact_world *W);

/* Contacts at the poses r (3 nb centroid positions, global) and A (9 nb
 * body-to-global rotations, row-major) of m's nb bodies: every pair of
 * points whose gap is below margin (>= 0).  *out points into W's buffer,
 * valid until the next call; *n its count.  Sorted by contact_pt_order,
 * each contact once.  Returns 0, or -1 when a pose is not finite (nothing
 * detected). */
int contact_detect(struct contact_world *W, const double *r, const double *A, double margin,
		   const struct contact_pt **out, size_t *n);

/* The order of contact_detect's list: by (a, b, plane, feat); 0 for the
 * same contact (whose state a step carries to the next). */
int contact_pt_order(const struct contact_pt *x, const struct contact_pt *y);
/* The same order for a contact kept by its key (a, b, plane, feat) alone,
 * against y: a friction state's lookup among the points. */
int contact_key_order(int a, int b, int plane, int feat, const struct contact_pt *y);

/* Broad-phase statistics of the last call: candidate pairs tested in the
 * narrow phase (for bench/README.md's growth figures). */
size_t contact_last_pairs(const struct contact_world *W);

#endif
