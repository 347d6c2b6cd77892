/* shape.c - body shapes: storage, the box of an inertia, triangulation. */
#include "shape.h"
#include "../util/vec.h"
#include "../util/xalloc.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *const shape_type_names[SHAPE_NTYPES] = {
	"", "box", "cylinder", "sphere", "capsule", "mesh"
};

/* Segments around a circle and between the poles of a sphere: enough for
 * a round look at a few hundred pixels, 24 x 12 = 288 vertices a sphere. */
#define SEG 24
#define RINGS 12

struct shape *shapes_at(struct model_shapes **pms, int b)
{
	struct model_shapes *ms = *pms;
	if (!ms)
		ms = *pms = xcalloc(1, sizeof(*ms));
	if (b >= ms->cap) {
		int cap = ms->cap ? ms->cap : 8;
		while (cap <= b)
			cap *= 2;
		ms->s = xrealloc(ms->s, (size_t)cap * sizeof(*ms->s));
		ms->cap = cap;
	}
	for (; ms->ns <= b; ms->ns++) {
		memset(&ms->s[ms->ns], 0, sizeof(ms->s[0]));
		m3_identity(ms->s[ms->ns].A);
		ms->s[ms->ns].mesh = -1;
	}
	return &ms->s[b];
}

const struct shape *shapes_get(const struct model_shapes *ms, int b)
{
	if (!ms || b < 0 || b >= ms->ns || ms->s[b].type == SHAPE_NONE)
		return NULL;
	return &ms->s[b];
}

void shapes_free(struct model_shapes **pms)
{
	struct model_shapes *ms = *pms;
	if (!ms)
		return;
	for (int i = 0; i < ms->nmeshes; i++) {
		free(ms->meshes[i].file);
		free(ms->meshes[i].v);
		free(ms->meshes[i].t);
	}
	free(ms->meshes);
	free(ms->s);
	free(ms);
	*pms = NULL;
}

/* Eigen-decomposition of the symmetric J by cyclic Jacobi rotations:
 * J = P diag(d) P^T, P's columns the principal axes. */
static void sym_eig3(const double J[9], double d[3], double P[9])
{
	double a[9];
	memcpy(a, J, sizeof a);
	m3_identity(P);
	for (int sweep = 0; sweep < 50; sweep++) {
		double off = fabs(a[1]) + fabs(a[2]) + fabs(a[5]);
		if (off <= 1e-15 * (fabs(a[0]) + fabs(a[4]) + fabs(a[8])))
			break;
		for (int p = 0; p < 2; p++)
			for (int q = p + 1; q < 3; q++) {
				double apq = a[3 * p + q];
				if (apq == 0)
					continue;
				double th = (a[3 * q + q] - a[3 * p + p]) / (2 * apq);
				double t = (th >= 0 ? 1 : -1) / (fabs(th) + sqrt(th * th + 1));
				double c = 1 / sqrt(t * t + 1), s = t * c;
				for (int k = 0; k < 3; k++) {	/* a <- a G */
					double x = a[3 * k + p], y = a[3 * k + q];
					a[3 * k + p] = c * x - s * y, a[3 * k + q] = s * x + c * y;
				}
				for (int k = 0; k < 3; k++) {	/* a <- G^T a */
					double x = a[3 * p + k], y = a[3 * q + k];
					a[3 * p + k] = c * x - s * y, a[3 * q + k] = s * x + c * y;
				}
				for (int k = 0; k < 3; k++) {	/* P <- P G */
					double x = P[3 * k + p], y = P[3 * k + q];
					P[3 * k + p] = c * x - s * y, P[3 * k + q] = s * x + c * y;
				}
			}
	}
	for (int i = 0; i < 3; i++)
		d[i] = a[4 * i];
	/* right-handed: a reflection would mirror the box, harmless, but keep
	 * P a rotation so that it can be written as one */
	double c[3] = { P[0], P[3], P[6] }, e[3] = { P[1], P[4], P[7] }, f[3];
	v3_cross(f, c, e);
	if (f[0] * P[2] + f[1] * P[5] + f[2] * P[8] < 0)
		for (int k = 0; k < 3; k++)
			P[3 * k + 2] = -P[3 * k + 2];
}

int shape_inertia_box(double m, const double J[9], double edge[3], double P[9])
{
	double d[3], big = 0;
	sym_eig3(J, d, P);
	for (int i = 0; i < 3; i++) {
		/* I_i = m/12 (b_j^2 + b_k^2) for the box of edges b */
		double sq = 6 / m * (d[(i + 1) % 3] + d[(i + 2) % 3] - d[i]);
		edge[i] = sq > 0 ? sqrt(sq) : 0;
		big = fmax(big, edge[i]);
	}
	if (!(big > 0))		/* unreachable for an SPD J */
		big = 1;
	int raised = 0;
	for (int i = 0; i < 3; i++)
		if (edge[i] < big / 20)
			edge[i] = big / 20, raised = 1;
	return raised;
}

long tri_buf_vertex(struct tri_buf *o, double x, double y, double z)
{
	if (o->nv == o->vcap) {
		o->vcap = o->vcap ? 2 * o->vcap : 256;
		o->v = xrealloc(o->v, (size_t)o->vcap * 3 * sizeof(double));
	}
	double *p = o->v + 3 * o->nv;
	p[0] = x, p[1] = y, p[2] = z;
	return o->nv++;
}

void tri_buf_tri(struct tri_buf *o, long a, long b, long c)
{
	if (o->nt == o->tcap) {
		o->tcap = o->tcap ? 2 * o->tcap : 256;
		o->t = xrealloc(o->t, (size_t)o->tcap * 3 * sizeof(int));
	}
	int *p = o->t + 3 * o->nt++;
	p[0] = (int)a, p[1] = (int)b, p[2] = (int)c;
}

static void add_quad(struct tri_buf *o, long a, long b, long c, long d)
{
	tri_buf_tri(o, a, b, c);
	tri_buf_tri(o, a, c, d);
}

/* Box of edges e centred at the origin: 8 corners, 12 triangles. */
static void tri_box(struct tri_buf *o, const double e[3])
{
	long v0 = o->nv;
	for (int i = 0; i < 8; i++)
		tri_buf_vertex(o, (i & 1 ? 0.5 : -0.5) * e[0], (i & 2 ? 0.5 : -0.5) * e[1],
			   (i & 4 ? 0.5 : -0.5) * e[2]);
	/* faces -x, +x, -y, +y, -z, +z, counter-clockwise seen from outside */
	static const int f[6][4] = {
		{ 0, 4, 6, 2 }, { 1, 3, 7, 5 }, { 0, 1, 5, 4 },
		{ 2, 6, 7, 3 }, { 0, 2, 3, 1 }, { 4, 5, 7, 6 }
	};
	for (int k = 0; k < 6; k++)
		add_quad(o, v0 + f[k][0], v0 + f[k][1], v0 + f[k][2], v0 + f[k][3]);
}

/* A surface of revolution about z through the profile (rho_i, z_i),
 * i = 0..np-1 from the bottom up, closed at each end by a fan around a
 * vertex on the axis at the end ring's height (the caller may move it). */
static void tri_revolve(struct tri_buf *o, const double *rho, const double *z, int np)
{
	long ring0 = o->nv;
	for (int i = 0; i < np; i++)
		for (int k = 0; k < SEG; k++) {
			double a = 2 * M_PI * k / SEG;
			tri_buf_vertex(o, rho[i] * cos(a), rho[i] * sin(a), z[i]);
		}
	for (int i = 0; i + 1 < np; i++)
		for (int k = 0; k < SEG; k++) {
			long a = ring0 + (long)i * SEG + k, b = ring0 + (long)i * SEG + (k + 1) % SEG;
			add_quad(o, a, b, b + SEG, a + SEG);
		}
	long bot = tri_buf_vertex(o, 0, 0, z[0]);
	long top = tri_buf_vertex(o, 0, 0, z[np - 1]);
	long last = ring0 + (long)(np - 1) * SEG;
	for (int k = 0; k < SEG; k++) {
		tri_buf_tri(o, bot, ring0 + (k + 1) % SEG, ring0 + k);
		tri_buf_tri(o, top, last + k, last + (k + 1) % SEG);
	}
}

static void tri_cylinder(struct tri_buf *o, double r, double len)
{
	double rho[2] = { r, r }, z[2] = { -len / 2, len / 2 };
	tri_revolve(o, rho, z, 2);
}

/* Sphere (len = 0) or capsule: two hemispheres of RINGS / 2 bands each
 * whose centres are len apart on z. */
static void tri_capsule(struct tri_buf *o, double r, double len)
{
	double rho[RINGS + 2], z[RINGS + 2];
	int np = 0, h = RINGS / 2;
	for (int i = 1; i <= h; i++) {	/* bottom cap, from near the pole up */
		double a = -M_PI / 2 + M_PI * i / RINGS;
		rho[np] = r * cos(a), z[np++] = -len / 2 + r * sin(a);
	}
	for (int i = len > 0 ? 0 : 1; i < h; i++) {	/* top cap */
		double a = M_PI * i / RINGS;
		rho[np] = r * cos(a), z[np++] = len / 2 + r * sin(a);
	}
	tri_revolve(o, rho, z, np);
	/* the fans' centres are the poles */
	o->v[3 * (o->nv - 2) + 2] = -len / 2 - r;
	o->v[3 * (o->nv - 1) + 2] = len / 2 + r;
}

long shape_beam_section(struct tri_buf *out, double b, double h, long prev, int cap)
{
	long c = tri_buf_vertex(out, 0, 0, 0);
	/* corners counter-clockwise seen from +axis 1 (y, z: -- +- ++ -+) */
	for (int k = 0; k < 4; k++)
		tri_buf_vertex(out, 0, (k == 1 || k == 2 ? 0.5 : -0.5) * b, (k >= 2 ? 0.5 : -0.5) * h);
	if (prev >= 0)	/* as tri_revolve's bands, about axis 1: outward */
		for (int k = 0; k < 4; k++) {
			long a = prev + 1 + k, a1 = prev + 1 + (k + 1) % 4;
			add_quad(out, a, a1, c + 1 + (k + 1) % 4, c + 1 + k);
		}
	if (cap < 0)
		add_quad(out, c + 1, c + 4, c + 3, c + 2);
	else if (cap > 0)
		add_quad(out, c + 1, c + 2, c + 3, c + 4);
	return c;
}

void shape_triangulate(const struct model_shapes *ms, const struct shape *s, double m,
		       const double J[9], struct tri_buf *out)
{
	long v0 = out->nv;
	double P[9], e[3];
	const double *R, *r;
	static const double zero[3] = { 0, 0, 0 };
	if (!s) {
		shape_inertia_box(m, J, e, P);
		tri_box(out, e);
		R = P, r = zero;
	} else {
		R = s->A, r = s->r;
		switch (s->type) {
		case SHAPE_BOX: tri_box(out, s->size); break;
		case SHAPE_CYLINDER: tri_cylinder(out, s->size[0], s->size[1]); break;
		case SHAPE_SPHERE: tri_capsule(out, s->size[0], 0); break;
		case SHAPE_CAPSULE: tri_capsule(out, s->size[0], s->size[1]); break;
		case SHAPE_MESH: {
			const struct shape_mesh *mh = &ms->meshes[s->mesh];
			for (int i = 0; i < mh->nv; i++)
				tri_buf_vertex(out, s->size[0] * mh->v[3 * i], s->size[1] * mh->v[3 * i + 1],
					   s->size[2] * mh->v[3 * i + 2]);
			for (int i = 0; i < mh->nt; i++)
				tri_buf_tri(out, v0 + mh->t[3 * i], v0 + mh->t[3 * i + 1], v0 + mh->t[3 * i + 2]);
			break;
		}
		default: break;
		}
	}
	/* placement: x_body = r + R x_shape */
	for (long i = v0; i < out->nv; i++) {
		double y[3];
		m3_mulv(y, R, out->v + 3 * i);
		v3_add(out->v + 3 * i, r, y);
	}
}

/* an edge of a triangle, its ends in ascending order, and its sense */
struct mesh_edge {
	int lo, hi, sense;
};

static int cmp_edge(const void *x, const void *y)
{
	const struct mesh_edge *a = x, *b = y;
	if (a->lo != b->lo)
		return a->lo < b->lo ? -1 : 1;
	if (a->hi != b->hi)
		return a->hi < b->hi ? -1 : 1;
	return (a->sense > b->sense) - (a->sense < b->sense);
}

int shape_mesh_closed(const struct shape_mesh *mh, char *why, size_t n)
{
	if (mh->nt < 4) {
		snprintf(why, n, "%d triangles cannot enclose a volume", mh->nt);
		return 1;
	}
	struct mesh_edge *e = xmalloc((size_t)mh->nt * 3 * sizeof(*e));
	double vol = 0, ext = 0;
	for (int t = 0; t < mh->nt; t++) {
		const int *tv = mh->t + 3 * t;
		for (int k = 0; k < 3; k++) {
			int p = tv[k], q = tv[(k + 1) % 3];
			e[3 * t + k] = (struct mesh_edge){ p < q ? p : q, p < q ? q : p, p < q ? 1 : -1 };
		}
		double c[3];
		const double *a = mh->v + 3 * tv[0], *b = mh->v + 3 * tv[1], *d = mh->v + 3 * tv[2];
		v3_cross(c, b, d);
		vol += v3_dot(a, c) / 6;
	}
	for (int i = 0; i < 3 * mh->nv; i++)
		ext = fmax(ext, fabs(mh->v[i]));
	size_t ne = (size_t)mh->nt * 3;
	qsort(e, ne, sizeof(*e), cmp_edge);
	int bad = 0;
	for (size_t i = 0; i < ne && !bad; i += 2) {
		if (i + 1 >= ne || e[i + 1].lo != e[i].lo || e[i + 1].hi != e[i].hi) {
			snprintf(why, n, "edge %d-%d (vertices, from 1) belongs to one triangle only "
				 "(the mesh is open)", e[i].lo + 1, e[i].hi + 1);
			bad = 1;
		} else if (i + 2 < ne && e[i + 2].lo == e[i].lo && e[i + 2].hi == e[i].hi) {
			snprintf(why, n, "edge %d-%d (vertices, from 1) belongs to more than two "
				 "triangles", e[i].lo + 1, e[i].hi + 1);
			bad = 1;
		} else if (e[i].sense == e[i + 1].sense) {
			snprintf(why, n, "the triangles at edge %d-%d (vertices, from 1) disagree on "
				 "their orientation", e[i].lo + 1, e[i].hi + 1);
			bad = 1;
		}
	}
	free(e);
	if (!bad && !(fabs(vol) > 1e-12 * ext * ext * ext)) {
		snprintf(why, n, "it encloses no volume (flat)");
		bad = 1;
	}
	return bad;
}
