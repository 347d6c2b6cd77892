/* model.c - building the model and expanding joints into primitives. */
#include "model.h"
#include "beam.h"
#include "contact.h"
#include "prim.h"
#include "sexpr.h"
#include "shape.h"
#include "../util/interrupt.h"
#include "../util/vec.h"
#include "../util/xalloc.h"

#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *const joint_type_names[JOINT_NTYPES] = {
	"spherical", "revolute", "universal", "cylindrical", "translational",
	"fixed", "distance", "point_on_line", "point_on_plane", "planar",
	"screw", "gear", "rack_pinion", "coupler"
};
const int joint_type_rows[JOINT_NTYPES] = { 3, 5, 4, 4, 5, 6, 1, 2, 1, 3, 5, 1, 1, 1 };
const char *const joint_type_help[JOINT_NTYPES] = {
	"points coincide (3 CD)",
	"points coincide, axes parallel (3 CD + 2 DP1)",
	"points coincide, cross axes stay perpendicular (3 CD + 1 DP1)",
	"axes parallel, point 2 on axis 1 (2 DP1 + 2 DP2)",
	"cylindrical without rotation about the axis (3 DP1 + 2 DP2)",
	"frames locked together (3 CD + 3 DP1)",
	"distance between two points fixed (1 D); a massless link",
	"point 2 on the line of axis 1 through point 1 (2 DP2)",
	"point 2 on the plane normal to axis 1 through point 1 (1 DP2)",
	"axes parallel, point 2 in the plane normal to axis 1 through point 1: "
	"2 slides and the turn about the normal (2 DP1 + 1 DP2)",
	"helical: cylindrical whose slide is pitch / 2 pi times its turn (2 DP1 + 2 DP2 + 1 CPL)",
	"turn of revolute (or cylindrical) joint2 = ratio x turn of joint1 since t0, parallel or intersecting axes (1 CPL)",
	"slide of translational (or cylindrical) joint2 = radius x turn of revolute joint1 since t0 (1 CPL)",
	"ratio1 q1 + ratio2 q2 (+ ratio3 q3) = 0 over the coordinates' changes since t0 "
	"of 2 or 3 revolute or translational joints (1 CPL)",
};
const char *const body_kind_names[BODY_NKINDS] = { "rigid", "particle" };
const char *const force_type_names[FORCE_NTYPES] = {
#define ELEM(id, name, help) #name,
#include "../elem/elem.def"
#undef ELEM
};
const char *const force_type_help[FORCE_NTYPES] = {
#define ELEM(id, name, help) help,
#include "../elem/elem.def"
#undef ELEM
};

/* Element arrays grow by doubling and every name goes into an
 * open-addressing hash table (linear probing, at most half full), so
 * building a model of N elements and resolving its N references is O(N)
 * instead of O(N^2) (linear name searches and one-element reallocs;
 * bench/README.md). */
enum { IX_BODY, IX_JOINT, IX_DRIVER, IX_FORCE, IX_POINT, IX_BEAM, IX_KINDS };

struct name_slot {
	const char *name;	/* the element's own copy; NULL: empty */
	int idx;
};

struct name_table {
	struct name_slot *slot;
	size_t mask;		/* capacity - 1, capacity a power of 2 */
	size_t used;
};

/* The elements' names, packed into chunks freed with the model: a short
 * name costs its length there, a malloc block of its own several times
 * that (bench/README.md). */
#define NAME_CHUNK (64 * 1024)
struct name_chunk {
	struct name_chunk *next;
	char s[];
};

struct model_index {
	size_t cap[IX_KINDS];
	struct name_table t[IX_KINDS];
	struct name_chunk *names;	/* newest first */
	char *names_at;			/* free room in the newest chunk */
	size_t names_left;
};

static char *name_copy(struct model_index *ix, const char *name)
{
	size_t n = strlen(name) + 1;
	if (n > ix->names_left) {
		size_t cap = n > NAME_CHUNK ? n : NAME_CHUNK;
		struct name_chunk *c = xmalloc(sizeof(*c) + cap);
		c->next = ix->names;
		ix->names = c;
		ix->names_at = c->s;
		ix->names_left = cap;
	}
	char *p = memcpy(ix->names_at, name, n);
	ix->names_at += n;
	ix->names_left -= n;
	return p;
}

size_t model_hash(const char *s)
{
	unsigned long long h = 14695981039346656037ull;
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ull;
	return (size_t)(h ^ (h >> 32));
}

static int table_find(const struct name_table *t, const char *name)
{
	if (!t->slot)
		return -2;
	for (size_t i = model_hash(name) & t->mask;; i = (i + 1) & t->mask) {
		const struct name_slot *e = &t->slot[i];
		if (!e->name)
			return -2;
		if (strcmp(e->name, name) == 0)
			return e->idx;
	}
}

static void table_put(struct name_table *t, const char *name, int idx)
{
	if (2 * (t->used + 1) > t->mask + 1) {
		struct name_table old = *t;
		size_t cap = old.slot ? 2 * (old.mask + 1) : 16;
		t->slot = xcalloc(cap, sizeof(*t->slot));
		t->mask = cap - 1;
		t->used = 0;
		for (size_t i = 0; old.slot && i <= old.mask; i++)
			if (old.slot[i].name)
				table_put(t, old.slot[i].name, old.slot[i].idx);
		free(old.slot);
	}
	size_t i = model_hash(name) & t->mask;
	for (; t->slot[i].name; i = (i + 1) & t->mask)
		if (strcmp(t->slot[i].name, name) == 0)
			return;		/* the first of equal names stays */
	t->slot[i].name = name;
	t->slot[i].idx = idx;
	t->used++;
}

struct model *model_new(void)
{
	struct model *m = xcalloc(1, sizeof(*m));
	m->ix = xcalloc(1, sizeof(*m->ix));
	v3_set(m->gravity, 0, 0, -9.81);
	return m;
}

void model_free(struct model **pm)
{
	struct model *m = *pm;
	if (!m)
		return;
	for (int i = 0; i < m->ndrivers; i++)
		func_release(&m->drivers[i].f);
	for (int i = 0; i < m->nforces; i++) {
		if (m->forces[i].x) {
			func_release(&m->forces[i].x->act);
			func_release(&m->forces[i].x->target);
		}
		free(m->forces[i].x);
		free(m->forces[i].par);
		sexpr_free(&m->forces[i].ex);
	}
	for (int i = 0; i < m->ncurves; i++)
		curve_release(&m->curves[i]);
	free(m->curves);
	for (int i = 0; i < m->nmeasures; i++) {
		free(m->measures[i].name);	/* measures are not in the index */
		sexpr_free(&m->measures[i].ex);
	}
	free(m->measures);
	for (int i = 0; i < m->nevents; i++) {
		free(m->events[i].name);
		sexpr_free(&m->events[i].ex);
	}
	free(m->events);
	for (int i = 0; i < m->nbeams; i++)
		free(m->beams[i].ref);
	free(m->beams);
	for (int k = 0; k < IX_KINDS; k++)
		free(m->ix->t[k].slot);
	for (struct name_chunk *c = m->ix->names, *next; c; c = next) {
		next = c->next;
		free(c);
	}
	free(m->ix);
	free(m->points);
	shapes_free(&m->shapes);
	contact_set_free(&m->contact);
	free(m->bodies);
	for (int i = 0; i < m->njoints; i++)
		free(m->joints[i].cpl);
	free(m->joints);
	free(m->drivers);
	free(m->forces);
	free(m->dprims);
	free(m->title);
	free(m);
	*pm = NULL;
}

/* Append one zeroed element of size sz to *arr (count *n, capacity *cap). */
static void *grow(void *parr, int *n, size_t *cap, size_t sz)
{
	void **arr = parr;
	if ((size_t)*n == *cap) {
		*cap = *cap ? 2 * *cap : 8;
		*arr = xrealloc(*arr, *cap * sz);
	}
	char *e = (char *)*arr + (size_t)(*n) * sz;
	memset(e, 0, sz);
	(*n)++;
	return e;
}

/* grow, then give the element (whose struct starts with its char *name)
 * a copy of name, entered in table t. */
static void *grow_named(void *parr, int *n, size_t *cap, size_t sz, struct model_index *ix,
			struct name_table *t, const char *name)
{
	char *e = grow(parr, n, cap, sz);
	char *copy = name_copy(ix, name);
	memcpy(e, &copy, sizeof copy);
	table_put(t, copy, *n - 1);
	return e;
}

_Static_assert(offsetof(struct body, name) == 0 && offsetof(struct joint, name) == 0 &&
	       offsetof(struct driver, name) == 0 && offsetof(struct force, name) == 0 &&
	       offsetof(struct body_point, name) == 0 && offsetof(struct beam, name) == 0,
	       "grow() writes the name at offset 0");

static const struct name_table *table_of(const struct model *m, int kind, const void *arr,
					 int n, size_t sz);

/* (the table is remade first if model_drop_index freed it) */
#define GROW(m, arr, n, kind, name) \
	(table_of(m, kind, (m)->arr, (m)->n, sizeof(*(m)->arr)), \
	 grow_named(&(m)->arr, &(m)->n, &(m)->ix->cap[kind], sizeof(*(m)->arr), (m)->ix, \
		    &(m)->ix->t[kind], name))

struct body *model_add_body(struct model *m, const char *name)
{
	struct body *b = GROW(m, bodies, nbodies, IX_BODY, name);
	m3_identity(b->A0);
	return b;
}

struct joint *model_add_joint(struct model *m, const char *name, enum joint_type t)
{
	struct joint *j = GROW(m, joints, njoints, IX_JOINT, name);
	j->type = t;
	m3_identity(j->F[0]);
	m3_identity(j->F[1]);
	return j;
}

struct driver *model_add_driver(struct model *m, const char *name)
{
	struct driver *d = GROW(m, drivers, ndrivers, IX_DRIVER, name);
	d->relative = 1;
	return d;
}

struct force *model_add_force(struct model *m, const char *name, enum force_type t)
{
	struct force *f = GROW(m, forces, nforces, IX_FORCE, name);
	f->type = t;
	f->joint = -1;
	return f;
}

struct body_point *model_add_point(struct model *m, const char *name)
{
	return GROW(m, points, npoints, IX_POINT, name);
}

struct beam *model_add_beam(struct model *m, const char *name)
{
	return GROW(m, beams, nbeams, IX_BEAM, name);
}

static unsigned long long fnv(unsigned long long h, const void *p, size_t n)
{
	const unsigned char *b = p;
	for (size_t i = 0; i < n; i++)
		h = (h ^ b[i]) * 1099511628211ULL;
	return h;
}

static unsigned long long fnv_str(unsigned long long h, const char *s)
{
	return fnv(h, s ? s : "", s ? strlen(s) + 1 : 1);
}

static unsigned long long fnv_int(unsigned long long h, long long v)
{
	return fnv(h, &v, sizeof v);
}

unsigned long long model_structure_hash(const struct model *m)
{
	unsigned long long h = 14695981039346656037ULL;
	h = fnv_int(h, m->nbodies);
	for (int b = 0; b < m->nbodies; b++)
		h = fnv_int(fnv_str(h, m->bodies[b].name), m->bodies[b].kind);
	h = fnv_int(h, m->njoints);
	for (int j = 0; j < m->njoints; j++) {
		const struct joint *J = &m->joints[j];
		h = fnv_int(fnv_int(fnv_int(fnv_str(h, J->name), J->type), J->body[0]), J->body[1]);
	}
	h = fnv_int(h, m->ndrivers);
	for (int d = 0; d < m->ndrivers; d++)
		h = fnv_int(fnv_int(fnv_str(h, m->drivers[d].name), m->drivers[d].joint),
			    m->drivers[d].kind);
	h = fnv_int(h, m->nforces);
	for (int f = 0; f < m->nforces; f++) {
		const struct force *F = &m->forces[f];
		h = fnv_int(fnv_int(fnv_int(fnv_str(h, F->name), F->type), F->body[0]), F->body[1]);
	}
	return fnv_int(fnv_int(h, m->ncons), m->nevents);
}

void model_drop_index(struct model *m)
{
	for (int k = 0; k < IX_KINDS; k++) {
		free(m->ix->t[k].slot);
		memset(&m->ix->t[k], 0, sizeof(m->ix->t[k]));
	}
}

/* Table kind, remade from the n elements of arr (stride sz, the name
 * first) in their order when model_drop_index freed it. */
static const struct name_table *table_of(const struct model *m, int kind, const void *arr, int n,
					 size_t sz)
{
	struct name_table *t = &m->ix->t[kind];
	if (t->slot)
		return t;
	for (int i = 0; i < n; i++) {
		char *name;
		memcpy(&name, (const char *)arr + (size_t)i * sz, sizeof name);
		table_put(t, name, i);
	}
	return t;
}

int model_find_body(const struct model *m, const char *name)
{
	if (strcmp(name, "ground") == 0)
		return MODEL_GROUND;
	return table_find(table_of(m, IX_BODY, m->bodies, m->nbodies, sizeof(*m->bodies)), name);
}

int model_find_joint(const struct model *m, const char *name)
{
	return table_find(table_of(m, IX_JOINT, m->joints, m->njoints, sizeof(*m->joints)), name);
}

int model_find_driver(const struct model *m, const char *name)
{
	return table_find(table_of(m, IX_DRIVER, m->drivers, m->ndrivers, sizeof(*m->drivers)),
			  name);
}

int model_find_force(const struct model *m, const char *name)
{
	return table_find(table_of(m, IX_FORCE, m->forces, m->nforces, sizeof(*m->forces)), name);
}

int model_find_point(const struct model *m, const char *name)
{
	return table_find(table_of(m, IX_POINT, m->points, m->npoints, sizeof(*m->points)), name);
}

int model_find_beam(const struct model *m, const char *name)
{
	return table_find(table_of(m, IX_BEAM, m->beams, m->nbeams, sizeof(*m->beams)), name);
}

int model_nq(const struct model *m)
{
	int n = 0;
	for (int b = 0; b < m->nbodies; b++)
		n += m->bodies[b].kind == BODY_PARTICLE ? 3 : 6;
	return n;
}

int model_particle_centre(const struct model *m, int b, double s[3], double *off)
{
	if (!model_is_particle(m, b))
		return 0;
	*off = v3_norm(s);
	if (*off > 1e-9 * (1.0 + v3_norm(m->bodies[b].r0)))
		return -1;
	v3_set(s, 0, 0, 0);
	return 0;
}

void model_pose0(const struct model *m, int b, double r[3], double A[9])
{
	if (b < 0) {
		v3_set(r, 0, 0, 0);
		m3_identity(A);
		return;
	}
	v3_copy(r, m->bodies[b].r0);
	memcpy(A, m->bodies[b].A0, 9 * sizeof(double));
}

void model_point_to_body(const struct model *m, int b, const double p[3], double s[3])
{
	double r[3], A[9], d[3];
	model_pose0(m, b, r, A);
	v3_sub(d, p, r);
	m3_tmulv(s, A, d);
}

void model_dir_to_body(const struct model *m, int b, const double u[3], double a[3])
{
	double r[3], A[9];
	model_pose0(m, b, r, A);
	m3_tmulv(a, A, u);
}

/* Column k of a row-major 3x3 frame */
static void col(double *v, const double *F, int k)
{
	v3_set(v, F[k], F[3 + k], F[6 + k]);
}

static void set_col(double *F, int k, const double *v)
{
	F[k] = v[0];
	F[3 + k] = v[1];
	F[6 + k] = v[2];
}

/* Frame of marker 1: z from z1 (body-1 frame), x = marker 0's x at t0
 * projected onto the plane normal to z (so the joint angle is 0 at t0). */
static void frame_follow(struct model *m, struct joint *j, const double z1[3])
{
	double r0[3], A0[9], r1[3], A1[9], x0[3], xg[3], x[3], z[3], y[3];
	model_pose0(m, j->body[0], r0, A0);
	model_pose0(m, j->body[1], r1, A1);
	col(x0, j->F[0], 0);
	m3_mulv(xg, A0, x0);
	m3_tmulv(x, A1, xg);
	v3_scale(z, 1.0 / v3_norm(z1), z1);
	v3_axpy(x, -v3_dot(x, z), z);
	if (v3_norm(x) < 1e-9) {
		frame_from_axis(j->F[1], z);
		return;
	}
	v3_scale(x, 1.0 / v3_norm(x), x);
	v3_cross(y, z, x);
	set_col(j->F[1], 0, x);
	set_col(j->F[1], 1, y);
	set_col(j->F[1], 2, z);
}

void model_joint_local(struct model *m, struct joint *j, const double s0[3],
		       const double s1[3], const double z0[3], const double z1[3])
{
	v3_copy(j->s[0], s0);
	v3_copy(j->s[1], s1);
	frame_from_axis(j->F[0], z0);
	frame_follow(m, j, z1);
}

void model_joint_global(struct model *m, struct joint *j, const double p[3],
			const double axis[3], const double *axis2)
{
	double z0[3], z1[3];
	model_point_to_body(m, j->body[0], p, j->s[0]);
	model_point_to_body(m, j->body[1], p, j->s[1]);
	model_dir_to_body(m, j->body[0], axis, z0);
	model_dir_to_body(m, j->body[1], axis2 ? axis2 : axis, z1);
	frame_from_axis(j->F[0], z0);
	frame_follow(m, j, z1);
}

/* ---- expansion into primitives ---- */

/* Primitives are made into out[n++]: a joint's where they are used (ra.c
 * asks for them at every evaluation), a driver's once, in m->dprims. */
struct emit {
	struct prim *out;
	int n;
	int owner;
};

/* The vectors of its type are for the caller to write (prim.h): the
 * others are left as they are, as ra_eval makes five of these a joint
 * at every evaluation. */
static struct prim *emit(struct emit *e, enum prim_type t, int bi, int bj)
{
	struct prim *p = &e->out[e->n++];
	p->type = t;
	p->bi = bi;
	p->bj = bj;
	p->owner = e->owner;
	p->f0 = 0.0;
	p->f = NULL;
	return p;
}

static void emit_dp1(struct emit *e, const struct joint *j, int ka, int kb)
{
	struct prim *p = emit(e, PRIM_DP1, j->body[0], j->body[1]);
	col(p->ai, j->F[0], ka);
	col(p->aj, j->F[1], kb);
}

static void emit_dp2(struct emit *e, const struct joint *j, int ka)
{
	struct prim *p = emit(e, PRIM_DP2, j->body[0], j->body[1]);
	col(p->ai, j->F[0], ka);
	v3_copy(p->si, j->s[0]);
	v3_copy(p->sj, j->s[1]);
}

static void emit_sph(struct emit *e, const struct joint *j)
{
	for (int k = 0; k < 3; k++) {
		struct prim *p = emit(e, PRIM_CD, j->body[0], j->body[1]);
		v3_set(p->c, 0.0, 0.0, 0.0);
		p->c[k] = 1.0;
		v3_copy(p->si, j->s[0]);
		v3_copy(p->sj, j->s[1]);
	}
}

static void expand_joint(struct emit *e, const struct joint *j)
{
	if (j->body[0] == j->body[1])
		return;		/* model_finalize's error */
	switch (j->type) {
	case JOINT_SPHERICAL:
		emit_sph(e, j);
		break;
	case JOINT_REVOLUTE:
		emit_sph(e, j);
		emit_dp1(e, j, 0, 2);
		emit_dp1(e, j, 1, 2);
		break;
	case JOINT_UNIVERSAL:
		emit_sph(e, j);
		emit_dp1(e, j, 2, 2);
		break;
	case JOINT_CYLINDRICAL:
	case JOINT_TRANSLATIONAL:
		emit_dp1(e, j, 0, 2);
		emit_dp1(e, j, 1, 2);
		emit_dp2(e, j, 0);
		emit_dp2(e, j, 1);
		if (j->type == JOINT_TRANSLATIONAL)
			emit_dp1(e, j, 0, 1);
		break;
	case JOINT_FIXED:
		emit_sph(e, j);
		emit_dp1(e, j, 0, 2);
		emit_dp1(e, j, 1, 2);
		emit_dp1(e, j, 0, 1);
		break;
	case JOINT_DISTANCE: {
		struct prim *p = emit(e, PRIM_D, j->body[0], j->body[1]);
		v3_copy(p->si, j->s[0]);
		v3_copy(p->sj, j->s[1]);
		p->f0 = j->length * j->length;
		break;
	}
	case JOINT_POINT_LINE:	/* d_ij normal to x and y of marker 0 */
		emit_dp2(e, j, 0);
		emit_dp2(e, j, 1);
		break;
	case JOINT_POINT_PLANE:	/* d_ij normal to z of marker 0 */
		emit_dp2(e, j, 2);
		break;
	case JOINT_PLANAR:	/* z of marker 1 normal to x, y of marker 0; d_ij to its z */
		emit_dp1(e, j, 0, 2);
		emit_dp1(e, j, 1, 2);
		emit_dp2(e, j, 2);
		break;
	case JOINT_SCREW:	/* a cylindrical joint and the coupling of its coordinates */
		emit_dp1(e, j, 0, 2);
		emit_dp1(e, j, 1, 2);
		emit_dp2(e, j, 0);
		emit_dp2(e, j, 1);
		emit(e, PRIM_CPL, j->body[0], j->body[1]);
		break;
	case JOINT_GEAR:
	case JOINT_RACK_PINION:
	case JOINT_COUPLER:
		emit(e, PRIM_CPL, j->body[0], j->body[1]);
		break;
	default:
		break;
	}
}

static int driver_kind_ok(enum joint_type t, enum driver_kind k)
{
	if (t == JOINT_CYLINDRICAL)
		return 1;
	return (k == DRIVER_ROTATION && t == JOINT_REVOLUTE) ||
	       (k == DRIVER_TRANSLATION && (t == JOINT_TRANSLATIONAL || t == JOINT_POINT_LINE));
}

double model_joint_coordinate0(const struct model *m, const struct joint *j,
			       enum driver_kind k)
{
	double r[2][3], A[2][9];
	for (int s = 0; s < 2; s++)
		model_pose0(m, j->body[s], r[s], A[s]);
	return joint_coordinate(j, k, r[0], A[0], r[1], A[1]);
}

double joint_coordinate(const struct joint *j, enum driver_kind k,
			const double *r0, const double *A0, const double *r1,
			const double *A1)
{
	double x0b[3], y0b[3], z0b[3], x1b[3], x0[3], y0[3], z0[3], x1[3];
	col(x0b, j->F[0], 0);
	col(y0b, j->F[0], 1);
	col(z0b, j->F[0], 2);
	col(x1b, j->F[1], 0);
	m3_mulv(x0, A0, x0b);
	m3_mulv(y0, A0, y0b);
	m3_mulv(z0, A0, z0b);
	if (k == DRIVER_ROTATION) {
		m3_mulv(x1, A1, x1b);
		return atan2(v3_dot(y0, x1), v3_dot(x0, x1));
	}
	double p0[3], p1[3], d[3];
	m3_mulv(p0, A0, j->s[0]);
	m3_mulv(p1, A1, j->s[1]);
	for (int i = 0; i < 3; i++)
		d[i] = r1[i] + p1[i] - r0[i] - p0[i];
	return v3_dot(z0, d);
}

int model_joint_prims(const struct model *m, int j, struct prim *out)
{
	struct emit e = { out, 0, j };
	expand_joint(&e, &m->joints[j]);
	return e.n;
}

const struct prim *model_prim(const struct model *m, int k, struct prim *buf)
{
	int njr = m->ncons - m->ndrivers;	/* rows of the joints */
	if (k >= njr)
		return &m->dprims[k - njr];
	int lo = 0, hi = m->njoints - 1;	/* the last joint with row0 <= k */
	while (lo < hi) {
		int mid = (lo + hi + 1) / 2;
		if (m->joints[mid].row0 <= k)
			lo = mid;
		else
			hi = mid - 1;
	}
	struct prim all[MODEL_JOINT_ROWS_MAX];
	model_joint_prims(m, lo, all);
	*buf = all[k - m->joints[lo].row0];
	return buf;
}

int model_row_driver(const struct model *m, int k)
{
	int d = k - (m->ncons - m->ndrivers);
	return d >= 0 && d < m->ndrivers ? d : -1;
}

void model_row_name(const struct model *m, int k, char *buf, size_t n)
{
	if (k < 0 || k >= m->ncons) {
		snprintf(buf, n, "an unknown constraint");
		return;
	}
	int dv = model_row_driver(m, k);
	if (dv >= 0) {
		snprintf(buf, n, "driver '%s'", m->drivers[dv].name);
		return;
	}
	struct prim pb;
	const struct prim *p = model_prim(m, k, &pb);
	const struct joint *j = &m->joints[p->owner];
	snprintf(buf, n, "joint '%s' (%s, row %d of %d, %s)", j->name, joint_type_names[j->type],
		 k - j->row0 + 1, j->nrows, prim_type_names[p->type]);
}

static int expand_driver(struct model *m, struct emit *e, struct driver *dv, struct diag *d)
{
	if (dv->joint < 0 || dv->joint >= m->njoints) {
		diag_error(d, &dv->pos, "driver '%s' has no joint", dv->name);
		return -1;
	}
	const struct joint *j = &m->joints[dv->joint];
	if (!driver_kind_ok(j->type, dv->kind)) {
		diag_error(d, &dv->pos, "a %s driver cannot drive %s joint '%s'",
			   dv->kind == DRIVER_ROTATION ? "rotation" : "translation",
			   joint_type_names[j->type], j->name);
		return -1;
	}
	double fv[3];
	func_eval(&dv->f, 0.0, fv);
	dv->offset = dv->relative ?
		model_joint_coordinate0(m, j, dv->kind) - fv[0] : 0.0;
	struct prim *p;
	if (dv->kind == DRIVER_ROTATION) {
		p = emit(e, PRIM_ROT, j->body[0], j->body[1]);
		col(p->ai, j->F[0], 0);
		col(p->yi, j->F[0], 1);
		col(p->aj, j->F[1], 0);
	} else {
		p = emit(e, PRIM_DP2, j->body[0], j->body[1]);
		col(p->ai, j->F[0], 2);
		v3_copy(p->si, j->s[0]);
		v3_copy(p->sj, j->s[1]);
	}
	p->f0 = dv->offset;
	p->f = &dv->f;
	return 0;
}

static int is_zero3(const double *v)
{
	return v[0] == 0.0 && v[1] == 0.0 && v[2] == 0.0;
}

/* The inert rotational block of a particle (model.h): placeholder inertia,
 * identity orientation, no spin; and nothing may couple it.  The deck
 * reports these at the keys; this is the check for models built otherwise. */
static int check_particles(struct model *m, struct diag *d)
{
	int rc = 0;
	m->nparticles = 0;
	for (int b = 0; b < m->nbodies; b++) {
		struct body *B = &m->bodies[b];
		if (B->kind != BODY_PARTICLE)
			continue;
		m->nparticles++;
		m3_identity(B->J);
		for (int k = 0; k < 9; k++)
			B->J[k] *= B->mass;	/* kg m^2, times 1 m^2 */
		m3_identity(B->A0);
		v3_set(B->w0, 0, 0, 0);
	}
	if (m->nparticles == 0)
		return 0;
	for (int i = 0; i < m->njoints; i++) {
		const struct joint *j = &m->joints[i];
		for (int k = 0; k < 2; k++) {
			if (!model_is_particle(m, j->body[k]))
				continue;
			const char *pn = m->bodies[j->body[k]].name;
			if (!(JOINT_PARTICLE_OK & (1u << j->type)) ||
			    (k == 0 && (JOINT_AXIS_ON_1 & (1u << j->type)))) {
				diag_error(d, &j->pos, "%s joint '%s' cannot have particle '%s' as body%d",
					   joint_type_names[j->type], j->name, pn, k + 1);
				rc = -1;
			} else if (!is_zero3(j->s[k])) {
				diag_error(d, &j->pos, "joint '%s' attaches to particle '%s' off its centre",
					   j->name, pn);
				rc = -1;
			}
		}
	}
	for (int i = 0; i < m->nforces; i++) {
		const struct force *f = &m->forces[i];
		int n = f->type == FORCE_TSDA ? 2 : f->type == FORCE_POINT ||
			f->type == FORCE_TIRE ||
			(f->type == FORCE_TORQUE && f->joint < 0) ? 1 : 0;
		for (int k = 0; k < n; k++) {
			if (!model_is_particle(m, f->body[k]))
				continue;
			if (f->type == FORCE_TORQUE || !is_zero3(f->s[k])) {
				diag_error(d, &f->pos, "force '%s' would turn particle '%s' (a particle "
					   "takes forces at its centre, global frame, and no torque)",
					   f->name, m->bodies[f->body[k]].name);
				rc = -1;
			}
		}
	}
	return rc;
}

static int check_forces(struct model *m, struct diag *d)
{
	int rc = 0;
	for (int i = 0; i < m->nforces; i++) {
		struct force *f = &m->forces[i];
		if (f->type == FORCE_TORQUE && f->joint >= 0 &&
		    (f->joint >= m->njoints || m->joints[f->joint].type != JOINT_DISTANCE)) {
			diag_error(d, &f->pos, "torque '%s' on a link needs a distance joint", f->name);
			rc = -1;
		}
		if (f->type != FORCE_RSDA && f->type != FORCE_FRICTION)
			continue;
		if (f->joint < 0 || f->joint >= m->njoints) {
			diag_error(d, &f->pos, "force '%s' has no joint", f->name);
			rc = -1;
			continue;
		}
		enum joint_type t = m->joints[f->joint].type;
		if (f->type == FORCE_FRICTION && t != JOINT_TRANSLATIONAL) {
			diag_error(d, &f->pos, "friction '%s' needs a translational joint, '%s' is %s",
				   f->name, m->joints[f->joint].name, joint_type_names[t]);
			rc = -1;
		}
		if (f->type == FORCE_RSDA && t != JOINT_REVOLUTE && t != JOINT_CYLINDRICAL) {
			diag_error(d, &f->pos, "rsda '%s' needs a revolute or cylindrical joint, '%s' is %s",
				   f->name, m->joints[f->joint].name, joint_type_names[t]);
			rc = -1;
		}
	}
	return rc;
}

/* A coupling joint's row sides are the bodies of the joints it couples
 * other than ground: at most two, since a Jacobian row has two sides
 * (form/ra.h); a carrier that moves (a planetary train) makes three.
 * The coordinates at t0 are the row's zero. */
static int finalize_coupling(struct model *m, struct joint *j, int ji, struct diag *d)
{
	struct joint_cpl *c = j->cpl;
	int nb = 0, b[2 * JOINT_CPL_MAX];
	if (j->type == JOINT_SCREW) {
		c->n = 2;
		c->joint[0] = c->joint[1] = ji;
		c->kind[0] = DRIVER_ROTATION;
		c->kind[1] = DRIVER_TRANSLATION;
		c->c[0] = c->pitch / (2.0 * M_PI);
		c->c[1] = -1.0;
	}
	for (int k = 0; k < c->n; k++) {
		const struct joint *jt = &m->joints[c->joint[k]];
		for (int e = 0; e < 2; e++) {
			int bb = jt->body[e], seen = bb < 0;
			for (int i = 0; i < nb && !seen; i++)
				seen = b[i] == bb;
			if (!seen)
				b[nb++] = bb;
		}
		c->q0[k] = c->ref0[k] = model_joint_coordinate0(m, jt, c->kind[k]);
	}
	if (nb > 2) {
		diag_error(d, &j->pos, "%s '%s' couples joints that move %d bodies ('%s', '%s', "
			   "'%s'%s); its row acts on two bodies besides ground (a carrier that "
			   "moves, as in a planetary train, makes three)", joint_type_names[j->type],
			   j->name, nb, m->bodies[b[0]].name, m->bodies[b[1]].name, m->bodies[b[2]].name,
			   nb > 3 ? ", ..." : "");
		return -1;
	}
	if (j->type != JOINT_SCREW) {
		j->body[0] = nb == 2 ? b[0] : MODEL_GROUND;
		j->body[1] = nb == 2 ? b[1] : nb == 1 ? b[0] : MODEL_GROUND;
	}
	return 0;
}

int model_finalize(struct model *m, struct diag *d)
{
	int rc = 0, rows = 0;
	struct prim buf[MODEL_JOINT_ROWS_MAX];
	for (int i = 0; i < m->nbeams; i++)
		if (beam_reference(m, &m->beams[i], d))
			rc = -1;
	free(m->dprims);
	m->dprims = xmalloc(((size_t)m->ndrivers + 1) * sizeof(*m->dprims));
	for (int i = 0; i < m->njoints; i++) {
		struct joint *j = &m->joints[i];
		if (interrupted()) {
			diag_error(d, &j->pos, "interrupted while expanding joint '%s' (%d of %d) "
				   "into constraint rows", j->name, i + 1, m->njoints);
			return -1;
		}
		if (j->cpl && finalize_coupling(m, j, i, d)) {
			rc = -1;
			j->row0 = rows;
			j->nrows = 0;
			continue;
		}
		if (j->body[0] == j->body[1]) {
			diag_error(d, &j->pos, "joint '%s' connects a body to itself", j->name);
			rc = -1;
			j->row0 = rows;
			j->nrows = 0;
			continue;
		}
		j->row0 = rows;
		j->nrows = model_joint_prims(m, i, buf);
		rows += j->nrows;
	}
	for (int i = 0; i < m->ndrivers; i++) {
		struct emit e = { m->dprims, i, m->njoints + i };
		m->drivers[i].row0 = rows++;
		if (expand_driver(m, &e, &m->drivers[i], d))
			rc = -1;
	}
	if (check_forces(m, d))
		rc = -1;
	if (check_particles(m, d))
		rc = -1;
	m->ncons = rows;
	return rc;
}
