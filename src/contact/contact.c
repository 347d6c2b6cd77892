/* contact.c - collision geometry and detection (contact.h).
 *
 * libccd (Debian's libccd-dev) serves the pairs without a closed form:
 * a C library of GJK, EPA and MPR over support functions, which is all
 * those pairs need; FCL and Bullet would bring C++ and their own broad
 * phases, where a hash grid of a few dozen lines is enough here
 * (docs/ARCHITECTURE.md "Contact"). */
#include "contact.h"
#include "../model/contact.h"
#include "../model/model.h"
#include "../model/shape.h"
#include "../util/vec.h"
#include "../util/xalloc.h"

#include <ccd/ccd.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

struct cgeom {
	int body;
	enum shape_type type;
	double h[3];		/* box: half edges; sphere: R; capsule, cylinder: R, half length */
	double r[3], A[9];	/* shape frame in the body frame */
	double *v;		/* mesh: hull candidates, shape frame, scaled (3 nv) */
	int nv;
	double ext;		/* radius of a sphere about the shape origin holding it */
	/* per call: the shape frame in the world, its box */
	double c[3], R[9], lo[3], hi[3];
};

/* a shape in a cell, with a copy of its box: a bucket's tests read
 * its entries in a row, not the shapes scattered over memory */
struct gentry {
	uint64_t key;
	int g;
	double lo[3], hi[3];
};

struct contact_world {
	struct cgeom *g;
	int ng;
	struct contact_plane *planes;	/* copies */
	int npl;
	struct contact_pt *pt, *pt2;	/* the points; sort_points' other buffer */
	size_t npt, cap;
	size_t cap2;
	struct ptkey *keys;
	size_t kcap;
	struct gentry *ent, *sorted;	/* (shape, cell) entries; by bucket */
	size_t nent, entcap, scap;
	size_t *bstart, nbk, bcap;	/* bucket starts in sorted */
	int *big;		/* geometries too large for the grid */
	char *isbig;		/* per geometry */
	double *ext;		/* scratch: sizes for the median */
	size_t pairs;
};

/* ---------- set-up ---------- */

static void hull_of_mesh(struct cgeom *g, const struct shape_mesh *mh, double scale)
{
	g->nv = mh->nv;
	g->v = xmalloc((size_t)mh->nv * 3 * sizeof(double));
	g->ext = 0;
	for (int i = 0; i < 3 * mh->nv; i++)
		g->v[i] = scale * mh->v[i];
	for (int i = 0; i < mh->nv; i++) {
		double d = v3_norm(g->v + 3 * i);
		if (d > g->ext)
			g->ext = d;
	}
}

struct contact_world *contact_world_new(const struct model *m)
{
	const struct model_contact *mc = m->contact;
	if (!mc)
		return NULL;
	struct contact_world *W = xcalloc(1, sizeof(*W));
	W->g = xcalloc((size_t)mc->nmat + 1, sizeof(*W->g));
	for (int b = 0; b < m->nbodies && b < mc->nb; b++) {
		const struct shape *s = shapes_get(m->shapes, b);
		if (mc->bmat[b] < 0 || !s || s->type == SHAPE_NONE)
			continue;
		struct cgeom *g = W->g + W->ng++;
		g->body = b;
		g->type = s->type;
		memcpy(g->r, s->r, sizeof g->r);
		memcpy(g->A, s->A, sizeof g->A);
		switch (s->type) {
		case SHAPE_BOX:
			for (int k = 0; k < 3; k++)
				g->h[k] = 0.5 * s->size[k];
			g->ext = v3_norm(g->h);
			break;
		case SHAPE_SPHERE:
			g->h[0] = g->ext = s->size[0];
			break;
		case SHAPE_CAPSULE:
		case SHAPE_CYLINDER:
			g->h[0] = s->size[0];
			g->h[1] = 0.5 * s->size[1];
			g->ext = s->type == SHAPE_CAPSULE ? g->h[0] + g->h[1] : hypot(g->h[0], g->h[1]);
			break;
		default:
			hull_of_mesh(g, &m->shapes->meshes[s->mesh], s->size[0]);
			break;
		}
	}
	W->npl = mc->nplanes;
	W->planes = xmalloc(((size_t)mc->nplanes + 1) * sizeof(*W->planes));
	if (mc->nplanes)	/* (planes is NULL without them) */
		memcpy(W->planes, mc->planes, (size_t)mc->nplanes * sizeof(*W->planes));
	W->big = xmalloc(((size_t)W->ng + 1) * sizeof(int));
	W->ext = xmalloc(((size_t)W->ng + 1) * sizeof(double));
	W->isbig = xmalloc((size_t)W->ng + 1);
	return W;
}

void contact_world_free(struct contact_world **W)
{
	if (!*W)
		return;
	for (int i = 0; i < (*W)->ng; i++)
		free((*W)->g[i].v);
	free((*W)->g);
	free((*W)->planes);
	free((*W)->pt);
	free((*W)->pt2);
	free((*W)->keys);
	free((*W)->ent);
	free((*W)->sorted);
	free((*W)->bstart);
	free((*W)->big);
	free((*W)->ext);
	free((*W)->isbig);
	free(*W);
	*W = NULL;
}

int contact_world_nbodies(const struct contact_world *W)
{
	return W ? W->ng : 0;
}

double contact_world_extent(const struct contact_world *W)
{
	double e = 0;
	for (int i = 0; W && i < W->ng; i++)
		e = fmax(e, W->g[i].ext + v3_norm(W->g[i].r));
	return e;
}

size_t contact_last_pairs(const struct contact_world *W)
{
	return W ? W->pairs : 0;
}

/* ---------- output ---------- */

/* A contact of sides ga, gb (NULL: a plane's ground) with xa on a's
 * surface, normal n from a to b and gap d. */
static void push(struct contact_world *W, const struct cgeom *ga, const struct cgeom *gb,
		 int plane, int feat, const double xa[3], const double n[3], double d, double R,
		 const double *ra, const double *rb)
{
	if (W->npt == W->cap) {
		W->cap = W->cap ? 2 * W->cap : 64;
		W->pt = xrealloc(W->pt, W->cap * sizeof(*W->pt));
	}
	struct contact_pt *c = W->pt + W->npt++;
	c->a = ga ? ga->body : -1;
	c->b = gb->body;
	c->plane = plane;
	c->feat = feat;
	v3_copy(c->n, n);
	c->gap = d;
	c->R = R;
	for (int k = 0; k < 3; k++) {
		c->p[k] = xa[k] + 0.5 * d * n[k];
		c->ra[k] = ga ? c->p[k] - ra[k] : 0;
		c->rb[k] = c->p[k] - rb[k];
	}
}

/* ---------- world boxes ---------- */

static void place(struct cgeom *g, const double *rb, const double *Ab, double margin)
{
	double e[3];
	m3_mulv(g->c, Ab, g->r);
	v3_add(g->c, g->c, rb);
	m3_mul(g->R, Ab, g->A);
	const double *R = g->R;
	switch (g->type) {
	case SHAPE_BOX:
		for (int i = 0; i < 3; i++)
			e[i] = fabs(R[3 * i]) * g->h[0] + fabs(R[3 * i + 1]) * g->h[1] +
			       fabs(R[3 * i + 2]) * g->h[2];
		break;
	case SHAPE_SPHERE:
		e[0] = e[1] = e[2] = g->h[0];
		break;
	case SHAPE_CAPSULE:
		for (int i = 0; i < 3; i++)
			e[i] = fabs(R[3 * i + 2]) * g->h[1] + g->h[0];
		break;
	case SHAPE_CYLINDER:
		/* a disc of normal z spans r sqrt(1 - z_i^2) along axis i */
		for (int i = 0; i < 3; i++)
			e[i] = fabs(R[3 * i + 2]) * g->h[1] +
			       g->h[0] * sqrt(fmax(0, 1 - R[3 * i + 2] * R[3 * i + 2]));
		break;
	default:
		e[0] = e[1] = e[2] = g->ext;
		break;
	}
	for (int i = 0; i < 3; i++) {
		g->lo[i] = g->c[i] - e[i] - margin;
		g->hi[i] = g->c[i] + e[i] + margin;
	}
}

static int boxes_meet(const double *alo, const double *ahi, const double *blo,
		      const double *bhi)
{
	for (int i = 0; i < 3; i++)
		if (alo[i] > bhi[i] || blo[i] > ahi[i])
			return 0;
	return 1;
}

/* ---------- support functions (libccd) ---------- */

static void support_local(const struct cgeom *g, const double *d, double *x)
{
	double nd;
	switch (g->type) {
	case SHAPE_BOX:
		for (int i = 0; i < 3; i++)
			x[i] = d[i] >= 0 ? g->h[i] : -g->h[i];
		break;
	case SHAPE_SPHERE:
		nd = v3_norm(d);
		v3_scale(x, nd > 0 ? g->h[0] / nd : 0, d);
		break;
	case SHAPE_CAPSULE:
		nd = v3_norm(d);
		v3_scale(x, nd > 0 ? g->h[0] / nd : 0, d);
		x[2] += d[2] >= 0 ? g->h[1] : -g->h[1];
		break;
	case SHAPE_CYLINDER:
		nd = hypot(d[0], d[1]);
		x[0] = nd > 0 ? g->h[0] * d[0] / nd : g->h[0];
		x[1] = nd > 0 ? g->h[0] * d[1] / nd : 0;
		x[2] = d[2] >= 0 ? g->h[1] : -g->h[1];
		break;
	default: {
		int best = 0;
		double bv = -INFINITY;
		for (int i = 0; i < g->nv; i++) {
			double s = v3_dot(g->v + 3 * i, d);
			if (s > bv) {
				bv = s;
				best = i;
			}
		}
		v3_copy(x, g->nv ? g->v + 3 * best : (const double[3]){ 0, 0, 0 });
		break;
	}
	}
}

/* what libccd's callbacks see: a geometry grown by a sphere of radius pad */
struct ccd_obj {
	const struct cgeom *g;
	double pad;
};

static void ccd_support(const void *obj, const ccd_vec3_t *dir, ccd_vec3_t *out)
{
	const struct ccd_obj *o = obj;
	double dl[3], xl[3], x[3];
	m3_tmulv(dl, o->g->R, dir->v);
	support_local(o->g, dl, xl);
	m3_mulv(x, o->g->R, xl);
	double nd = v3_norm(dir->v);
	for (int i = 0; i < 3; i++)
		out->v[i] = o->g->c[i] + x[i] + (nd > 0 ? o->pad * dir->v[i] / nd : 0);
}

static void ccd_center(const void *obj, ccd_vec3_t *out)
{
	const struct ccd_obj *o = obj;
	for (int i = 0; i < 3; i++)
		out->v[i] = o->g->c[i];
}

/* A face meeting a flat or a line (a box on a cylinder's rim or a box's
 * face) has a penetration direction that MPR finds only to its
 * tolerance, tilted at random along the line: within 0.1 rad of a box's
 * face normal, n is made that normal and the gap the distance of the
 * two shapes' extreme points along it (their supports), xa a's.  1 when
 * snapped. */
static int snap_to_face(const struct cgeom *a, const struct cgeom *b, double n[3],
			double *gap, double xa[3])
{
	for (int e = 0; e < 2; e++) {
		const struct cgeom *g = e ? b : a;
		if (g->type != SHAPE_BOX)
			continue;
		for (int k = 0; k < 3; k++) {
			double u[3] = { g->R[k], g->R[3 + k], g->R[6 + k] }, c = v3_dot(n, u);
			if (fabs(c) < cos(0.1))
				continue;
			/* along +u and -u the shapes overlap by their supports'
			 * distance: the side of less overlap is the contact's
			 * (MPR's sign is not trusted on a flat) */
			struct ccd_obj oa = { a, 0 }, ob = { b, 0 };
			double best = -INFINITY, sa_best[3], sb_best[3];
			for (int sg = -1; sg <= 1; sg += 2) {
				ccd_vec3_t d, m, sa, sb;
				for (int i = 0; i < 3; i++) {
					d.v[i] = sg * u[i];
					m.v[i] = -sg * u[i];
				}
				ccd_support(&oa, &d, &sa);
				ccd_support(&ob, &m, &sb);
				double gs = v3_dot(d.v, sb.v) - v3_dot(d.v, sa.v);
				if (gs > best) {
					best = gs;
					v3_copy(n, d.v);
					v3_copy(sa_best, sa.v);
					v3_copy(sb_best, sb.v);
				}
			}
			*gap = best;
			/* the point on the other shape (a box's extreme point is
			 * a corner, not where the other touches it) */
			for (int i = 0; i < 3; i++)
				xa[i] = e ? sa_best[i] : sb_best[i] - best * n[i];
			return 1;
		}
	}
	return 0;
}

/* Any convex pair by MPR on the shapes grown by margin / 2 each: the
 * grown penetration less the margin is the gap. */
static void pair_mpr(struct contact_world *W, const struct cgeom *a, const struct cgeom *b,
		     double margin, const double *ra, const double *rb)
{
	struct ccd_obj oa = { a, 0.5 * margin }, ob = { b, 0.5 * margin };
	ccd_t ccd;
	CCD_INIT(&ccd);
	ccd.support1 = ccd_support;
	ccd.support2 = ccd_support;
	ccd.center1 = ccd_center;
	ccd.center2 = ccd_center;
	ccd.max_iterations = 200;
	ccd.mpr_tolerance = 1e-9 * fmax(fmin(a->ext, b->ext), 1e-12);
	ccd_real_t depth;
	ccd_vec3_t dir, pos;
	if (ccdMPRPenetration(&oa, &ob, &ccd, &depth, &dir, &pos) != 0 || !isfinite(depth))
		return;
	double n[3], xa[3], nn = v3_norm(dir.v);
	if (!(nn > 0))
		return;
	v3_scale(n, 1 / nn, dir.v);
	double gap = margin - depth;
	if (snap_to_face(a, b, n, &gap, xa)) {
		if (gap < margin)
			push(W, a, b, -1, 0, xa, n, gap, 0, ra, rb);
		return;
	}
	/* libccd's pos lies midway between the grown surfaces, which is
	 * midway between the shapes' too */
	for (int i = 0; i < 3; i++)
		xa[i] = pos.v[i] - 0.5 * gap * n[i];
	push(W, a, b, -1, 0, xa, n, gap, 0, ra, rb);
}

/* ---------- closed forms ---------- */

/* Two spheres (centres ca on a, cb on b), R*: the pair of sphere-like
 * parts of sphere, capsule and sphere-box pairs. */
static void spheres(struct contact_world *W, const struct cgeom *a, const struct cgeom *b,
		    const double ca[3], double Ra, const double cb[3], double Rb, int feat,
		    double margin, const double *ra, const double *rb)
{
	double d[3], n[3], xa[3];
	v3_sub(d, cb, ca);
	double L = v3_norm(d), gap = L - Ra - Rb;
	if (gap >= margin)
		return;
	if (L > 0)
		v3_scale(n, 1 / L, d);
	else
		v3_set(n, 0, 0, 1);	/* coincident centres: any direction */
	for (int i = 0; i < 3; i++)
		xa[i] = ca[i] + Ra * n[i];
	push(W, a, b, -1, feat, xa, n, gap, Ra * Rb / (Ra + Rb), ra, rb);
}

/* The end points of a capsule's segment. */
static void segment(const struct cgeom *g, double p0[3], double p1[3])
{
	for (int i = 0; i < 3; i++) {
		p0[i] = g->c[i] - g->h[1] * g->R[3 * i + 2];
		p1[i] = g->c[i] + g->h[1] * g->R[3 * i + 2];
	}
}

static double clamp01(double t)
{
	return t < 0 ? 0 : t > 1 ? 1 : t;
}

/* Closest points s on [p0, p1] and t on [q0, q1] (Ericson, Real-Time
 * Collision Detection, 5.1.9). */
static void closest_segments(const double p0[3], const double p1[3], const double q0[3],
			     const double q1[3], double xs[3], double xt[3])
{
	double d1[3], d2[3], r[3], s, t;
	v3_sub(d1, p1, p0);
	v3_sub(d2, q1, q0);
	v3_sub(r, p0, q0);
	double a = v3_dot(d1, d1), e = v3_dot(d2, d2), f = v3_dot(d2, r);
	if (a <= 0 && e <= 0) {
		s = t = 0;
	} else if (a <= 0) {
		s = 0;
		t = clamp01(f / e);
	} else {
		double c = v3_dot(d1, r);
		if (e <= 0) {
			t = 0;
			s = clamp01(-c / a);
		} else {
			double b = v3_dot(d1, d2), den = a * e - b * b;
			s = den > 0 ? clamp01((b * f - c * e) / den) : 0;
			t = (b * s + f) / e;
			if (t < 0) {
				t = 0;
				s = clamp01(-c / a);
			} else if (t > 1) {
				t = 1;
				s = clamp01((b - c) / a);
			}
		}
	}
	for (int i = 0; i < 3; i++) {
		xs[i] = p0[i] + s * d1[i];
		xt[i] = q0[i] + t * d2[i];
	}
}

/* The core segment of a sphere (a point) or capsule. */
static void core(const struct cgeom *g, double p0[3], double p1[3])
{
	if (g->type == SHAPE_CAPSULE) {
		segment(g, p0, p1);
	} else {
		v3_copy(p0, g->c);
		v3_copy(p1, g->c);
	}
}

static void pair_round(struct contact_world *W, const struct cgeom *a, const struct cgeom *b,
		       double margin, const double *ra, const double *rb)
{
	double p0[3], p1[3], q0[3], q1[3], xa[3], xb[3];
	core(a, p0, p1);
	core(b, q0, q1);
	closest_segments(p0, p1, q0, q1, xa, xb);
	spheres(W, a, b, xa, a->h[0], xb, b->h[0], 0, margin, ra, rb);
}

/* A sphere and a box, either side first. */
static void pair_sphere_box(struct contact_world *W, const struct cgeom *a,
			    const struct cgeom *b, double margin, const double *ra,
			    const double *rb)
{
	int sa = a->type == SHAPE_SPHERE;
	const struct cgeom *s = sa ? a : b, *x = sa ? b : a;
	double d[3], cl[3], q[3], n[3], nb[3], xs[3];
	v3_sub(d, s->c, x->c);
	m3_tmulv(cl, x->R, d);	/* the centre in the box frame */
	int inside = 1;
	for (int i = 0; i < 3; i++) {
		q[i] = fmin(fmax(cl[i], -x->h[i]), x->h[i]);
		if (q[i] != cl[i])
			inside = 0;
	}
	double gap;
	if (!inside) {
		double e[3];
		v3_sub(e, cl, q);
		double L = v3_norm(e);
		gap = L - s->h[0];
		v3_scale(nb, 1 / L, e);
	} else {
		/* the face nearest the centre */
		int f = 0;
		double best = INFINITY;
		for (int i = 0; i < 3; i++) {
			double m = x->h[i] - fabs(cl[i]);
			if (m < best) {
				best = m;
				f = i;
			}
		}
		v3_set(nb, 0, 0, 0);
		nb[f] = cl[f] >= 0 ? 1 : -1;
		q[f] = nb[f] * x->h[f];
		gap = -best - s->h[0];
	}
	if (gap >= margin)
		return;
	m3_mulv(n, x->R, nb);	/* box -> sphere, global */
	double xb[3];
	m3_mulv(xb, x->R, q);
	v3_add(xb, xb, x->c);	/* on the box */
	if (sa) {
		for (int i = 0; i < 3; i++) {
			n[i] = -n[i];
			xs[i] = s->c[i] + s->h[0] * n[i];
		}
		push(W, a, b, -1, 0, xs, n, gap, s->h[0], ra, rb);
	} else {
		push(W, a, b, -1, 0, xb, n, gap, s->h[0], ra, rb);
	}
}

/* Points of g below plane pl + margin: distance along the plane's normal. */
static void plane_point(struct contact_world *W, int ip, const struct cgeom *g, int feat,
			const double x[3], double depth_off, double R, double margin,
			const double *rb)
{
	const struct contact_plane *pl = W->planes + ip;
	double d[3], xa[3];
	v3_sub(d, x, pl->p);
	double gap = v3_dot(d, pl->n) - depth_off;
	if (gap >= margin)
		return;
	/* x - depth_off n is on g's surface; its foot on the plane is xa */
	for (int i = 0; i < 3; i++)
		xa[i] = x[i] - (depth_off + gap) * pl->n[i];
	push(W, NULL, g, ip, feat, xa, pl->n, gap, R, NULL, rb);
}

static void pair_plane(struct contact_world *W, int ip, const struct cgeom *g, double margin,
		       const double *rb)
{
	const double *n = W->planes[ip].n, *R = g->R;
	double x[3], l[3], e[3];
	switch (g->type) {
	case SHAPE_SPHERE:
		plane_point(W, ip, g, 0, g->c, g->h[0], g->h[0], margin, rb);
		break;
	case SHAPE_BOX:
		for (int k = 0; k < 8; k++) {
			for (int i = 0; i < 3; i++)
				l[i] = (k >> i & 1) ? g->h[i] : -g->h[i];
			m3_mulv(x, R, l);
			v3_add(x, x, g->c);
			plane_point(W, ip, g, k, x, 0, 0, margin, rb);
		}
		break;
	case SHAPE_CAPSULE: {
		double p0[3], p1[3];
		segment(g, p0, p1);
		plane_point(W, ip, g, 0, p0, g->h[0], g->h[0], margin, rb);
		if (g->h[1] > 0)
			plane_point(W, ip, g, 1, p1, g->h[0], g->h[0], margin, rb);
		break;
	}
	case SHAPE_CYLINDER: {
		/* four rim points of each cap: the deepest (against the
		 * plane's normal, in the cap's plane) and three at right
		 * angles from it, so that a cylinder standing on a cap rests on
		 * four points; the shape's x axis when the cap is parallel */
		double nl[3], u[3], w[3];
		m3_tmulv(nl, R, n);
		u[0] = -nl[0];
		u[1] = -nl[1];
		u[2] = 0;
		double L = hypot(u[0], u[1]);
		if (L < 1e-9)
			v3_set(u, 1, 0, 0);
		else
			v3_scale(u, 1 / L, u);
		v3_set(w, -u[1], u[0], 0);
		for (int k = 0; k < 8; k++) {
			double z = (k & 4) ? g->h[1] : -g->h[1], cs = (k & 1) ? -1 : 1;
			const double *dir = (k & 2) ? w : u;
			for (int i = 0; i < 2; i++)
				l[i] = cs * g->h[0] * dir[i];
			l[2] = z;
			m3_mulv(x, R, l);
			v3_add(x, x, g->c);
			plane_point(W, ip, g, k, x, 0, 0, margin, rb);
		}
		break;
	}
	default:
		for (int k = 0; k < g->nv; k++) {
			m3_mulv(e, R, g->v + 3 * k);
			v3_add(x, e, g->c);
			plane_point(W, ip, g, k, x, 0, 0, margin, rb);
		}
		break;
	}
}

static int is_round(const struct cgeom *g)
{
	return g->type == SHAPE_SPHERE || g->type == SHAPE_CAPSULE;
}

static void pair(struct contact_world *W, const struct cgeom *a, const struct cgeom *b,
		 double margin, const double *r)
{
	const double *ra = r + 3 * a->body, *rb = r + 3 * b->body;
	W->pairs++;
	if (is_round(a) && is_round(b))
		pair_round(W, a, b, margin, ra, rb);
	else if ((a->type == SHAPE_SPHERE && b->type == SHAPE_BOX) ||
		 (a->type == SHAPE_BOX && b->type == SHAPE_SPHERE))
		pair_sphere_box(W, a, b, margin, ra, rb);
	else
		pair_mpr(W, a, b, margin, ra, rb);
}

/* ---------- broad phase ---------- */

/* The (n/2)-th smallest of v[0..n), v reordered (Hoare's selection) */
static double median(double *v, int n)
{
	int lo = 0, hi = n - 1, k = n / 2;
	while (lo < hi) {
		double p = v[(lo + hi) / 2];
		int i = lo, j = hi;
		while (i <= j) {
			while (v[i] < p)
				i++;
			while (v[j] > p)
				j--;
			if (i <= j) {
				double t = v[i];
				v[i++] = v[j];
				v[j--] = t;
			}
		}
		if (k <= j)
			hi = j;
		else if (k >= i)
			lo = i;
		else
			break;
	}
	return v[k];
}

/* Fibonacci hashing: the top lg bits of key times 2^64 / golden ratio
 * (every bit of the key reaches them; the low bits would not see a
 * cell's first coordinate, packed at bit 42) */
static size_t bucket_of(uint64_t key, int lg)
{
	return (size_t)((key * 0x9e3779b97f4a7c15ull) >> (64 - lg));
}

struct ptkey {
	uint64_t k1, k2;
	size_t i;
};

static int cmp_ptkey(const void *x, const void *y)
{
	const struct ptkey *a = x, *b = y;
	if (a->k1 != b->k1)
		return a->k1 < b->k1 ? -1 : 1;
	return (a->k2 > b->k2) - (a->k2 < b->k2);
}

/* W->pt by (a, b, plane, feat): the keys sorted, then the points moved
 * once (sorting the points themselves moved 150 bytes a swap) */
static void sort_points(struct contact_world *W)
{
	size_t n = W->npt;
	if (n < 2)
		return;	/* (and no qsort of a NULL array) */
	if (n > W->kcap) {
		W->kcap = W->cap;
		W->keys = xrealloc(W->keys, W->kcap * sizeof(*W->keys));
	}
	if (n > W->cap2) {
		W->cap2 = W->cap;
		W->pt2 = xrealloc(W->pt2, W->cap2 * sizeof(*W->pt2));
	}
	for (size_t i = 0; i < n; i++) {
		const struct contact_pt *c = W->pt + i;
		W->keys[i] = (struct ptkey){ (uint64_t)(uint32_t)(c->a + 1) << 32 | (uint32_t)c->b,
					     (uint64_t)(uint32_t)(c->plane + 1) << 32 |
					     (uint32_t)c->feat, i };
	}
	qsort(W->keys, n, sizeof(*W->keys), cmp_ptkey);
	for (size_t i = 0; i < n; i++)
		W->pt2[i] = W->pt[W->keys[i].i];
	struct contact_pt *t = W->pt;
	W->pt = W->pt2;
	W->pt2 = t;
	size_t c = W->cap;
	W->cap = W->cap2;
	W->cap2 = c;
}

int contact_key_order(int a, int b, int plane, int feat, const struct contact_pt *y)
{
	if (a != y->a)
		return a < y->a ? -1 : 1;
	if (b != y->b)
		return b < y->b ? -1 : 1;
	if (plane != y->plane)
		return plane < y->plane ? -1 : 1;
	return (feat > y->feat) - (feat < y->feat);
}

int contact_pt_order(const struct contact_pt *x, const struct contact_pt *y)
{
	return contact_key_order(x->a, x->b, x->plane, x->feat, y);
}

/* cells per axis packed 21 bits each; farther cells wrap, which only adds
 * candidates that the box test then drops */
static uint64_t cell_key(long i, long j, long k)
{
	return ((uint64_t)(i & 0x1fffff) << 42) | ((uint64_t)(j & 0x1fffff) << 21) |
	       (uint64_t)(k & 0x1fffff);
}

#define GRID_MAX_CELLS 27	/* a box over more cells is tested against all */

static void add_entry(struct contact_world *W, uint64_t key, const struct cgeom *g)
{
	if (W->nent == W->entcap) {
		W->entcap = W->entcap ? 2 * W->entcap : 256;
		W->ent = xrealloc(W->ent, W->entcap * sizeof(*W->ent));
	}
	struct gentry *e = W->ent + W->nent++;
	e->key = key;
	e->g = (int)(g - W->g);
	memcpy(e->lo, g->lo, sizeof e->lo);
	memcpy(e->hi, g->hi, sizeof e->hi);
}

/* The entries into buckets by a hash of their cell, W->sorted holding
 * bucket k's at [bstart[k], bstart[k + 1]), in the order of the shapes:
 * a counting sort, O(N), where a comparison sort was a sixth of a
 * 1000-sphere pile's step (bench/README.md) */
static void bucket_sort(struct contact_world *W)
{
	size_t nb = 64;
	int lg = 6;
	while (nb < 2 * W->nent) {
		nb *= 2;
		lg++;
	}
	if (nb + 1 > W->bcap) {
		W->bcap = nb + 1;
		W->bstart = xrealloc(W->bstart, W->bcap * sizeof(*W->bstart));
	}
	if (W->nent > W->scap) {
		W->scap = W->entcap;
		W->sorted = xrealloc(W->sorted, W->scap * sizeof(*W->sorted));
	}
	W->nbk = nb;
	memset(W->bstart, 0, (nb + 1) * sizeof(*W->bstart));
	for (size_t i = 0; i < W->nent; i++)
		W->bstart[bucket_of(W->ent[i].key, lg) + 1]++;
	for (size_t k = 0; k < nb; k++)
		W->bstart[k + 1] += W->bstart[k];
	for (size_t i = 0; i < W->nent; i++) {
		size_t k = bucket_of(W->ent[i].key, lg);
		W->sorted[W->bstart[k]++] = W->ent[i];
	}
	for (size_t k = nb; k > 0; k--)
		W->bstart[k] = W->bstart[k - 1];
	W->bstart[0] = 0;
}

static void broad_and_narrow(struct contact_world *W, double margin, const double *r)
{
	int ng = W->ng, nbig = 0;
	if (ng < 2)
		return;
	for (int i = 0; i < ng; i++) {
		const struct cgeom *g = W->g + i;
		W->ext[i] = fmax(g->hi[0] - g->lo[0], fmax(g->hi[1] - g->lo[1], g->hi[2] - g->lo[2]));
		if (!isfinite(W->ext[i]))
			W->ext[i] = 0;	/* (its box goes to the large ones) */
	}
	double h = median(W->ext, ng);
	if (!(h > 0))
		h = 1;
	W->nent = 0;
	for (int i = 0; i < ng; i++) {
		const struct cgeom *g = W->g + i;
		double lo[3], hi[3];
		int ok = 1;
		for (int k = 0; k < 3; k++) {
			lo[k] = floor(g->lo[k] / h);
			hi[k] = floor(g->hi[k] / h);
			if (!(fabs(lo[k]) < 1e15 && fabs(hi[k]) < 1e15))
				ok = 0;
		}
		if (ok && (hi[0] - lo[0] + 1) * (hi[1] - lo[1] + 1) * (hi[2] - lo[2] + 1) >
			  GRID_MAX_CELLS)
			ok = 0;
		W->isbig[i] = !ok;
		if (!ok) {
			W->big[nbig++] = i;
			continue;
		}
		for (long x = (long)lo[0]; x <= (long)hi[0]; x++)
			for (long y = (long)lo[1]; y <= (long)hi[1]; y++)
				for (long z = (long)lo[2]; z <= (long)hi[2]; z++)
					add_entry(W, cell_key(x, y, z), g);
	}
	bucket_sort(W);
	for (size_t bk = 0; bk < W->nbk; bk++) {
		size_t s = W->bstart[bk], e = W->bstart[bk + 1];
		for (size_t i = s; i < e; i++) {
			const struct gentry *ei = W->sorted + i;
			for (size_t j = i + 1; j < e; j++) {
				const struct gentry *ej = W->sorted + j;
				if (ej->key != ei->key || ej->g == ei->g)
					continue;	/* another cell in the bucket */
				if (!boxes_meet(ei->lo, ei->hi, ej->lo, ej->hi))
					continue;
				/* the pair is tested in the cell of its boxes'
				 * common corner only */
				long c[3];
				for (int k = 0; k < 3; k++)
					c[k] = (long)floor(fmax(ei->lo[k], ej->lo[k]) / h);
				if (cell_key(c[0], c[1], c[2]) != ei->key)
					continue;
				const struct cgeom *a = W->g + ei->g, *b = W->g + ej->g;
				if (a->body < b->body)
					pair(W, a, b, margin, r);
				else
					pair(W, b, a, margin, r);
			}
		}
	}
	/* the large ones against every other (each pair once) */
	for (int t = 0; t < nbig; t++) {
		const struct cgeom *a = W->g + W->big[t];
		for (int j = 0; j < ng; j++) {
			const struct cgeom *b = W->g + j;
			if ((W->isbig[j] && j <= W->big[t]) || !boxes_meet(a->lo, a->hi, b->lo, b->hi))
				continue;
			if (a->body < b->body)
				pair(W, a, b, margin, r);
			else
				pair(W, b, a, margin, r);
		}
	}
}

int contact_detect(struct contact_world *W, const double *r, const double *A, double margin,
		   const struct contact_pt **out, size_t *n)
{
	W->npt = 0;
	W->pairs = 0;
	*out = W->pt;
	*n = 0;
	if (!(margin >= 0))
		margin = 0;
	for (int i = 0; i < W->ng; i++) {
		struct cgeom *g = W->g + i;
		const double *rb = r + 3 * g->body, *Ab = A + 9 * g->body;
		for (int k = 0; k < 9; k++)
			if (!isfinite(Ab[k]) || (k < 3 && !isfinite(rb[k])))
				return -1;
		place(g, rb, Ab, margin);
	}
	for (int p = 0; p < W->npl; p++)
		for (int i = 0; i < W->ng; i++) {
			const struct cgeom *g = W->g + i;
			/* the box's lowest corner against the plane first */
			const double *pn = W->planes[p].n;
			double low = 0;
			for (int k = 0; k < 3; k++)
				low += pn[k] * ((pn[k] >= 0 ? g->lo[k] : g->hi[k]) - W->planes[p].p[k]);
			if (low < 0) {
				W->pairs++;
				pair_plane(W, p, g, margin, r + 3 * g->body);
			}
		}
	broad_and_narrow(W, margin, r);
	sort_points(W);
	/* a shape over two cells of one key (coordinates past 2^21 cells
	 * wrap) may meet a partner twice: once is kept */
	size_t k = 0;
	for (size_t i = 0; i < W->npt; i++)
		if (k == 0 || contact_pt_order(W->pt + k - 1, W->pt + i) != 0)
			W->pt[k++] = W->pt[i];
	W->npt = k;
	*out = W->pt;
	*n = W->npt;
	return 0;
}
