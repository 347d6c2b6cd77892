/* output.c - writing samples in the documented layout (man/mbsim-output.5). */
#include "output.h"
#include "assemble.h"
#include "../form/ra_contact.h"
#include "../form/tree.h"
#include "../integ/integ.h"
#include "../model/contact.h"
#include "../util/vec.h"
#include "../util/xalloc.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int ser(struct h5out *h, const char *path, long d1, long d2, const char *units,
	       const char *desc)
{
	return h5_series(h, path, d1, d2, H5_DOUBLE, units, desc);
}

/* A series whose second axis is indexed by the names table at table: the
 * attribute "names" says so to readers (h5read.c maps the logical name
 * GROUP/NAME/QTY to its slice). */
static int ser_named(struct h5out *h, const char *path, long d1, long d2, const char *units,
		     const char *desc, const char *table)
{
	int id = ser(h, path, d1, d2, units, desc);
	if (id >= 0)
		h5_attr_str(h, path, "names", table);
	return id;
}

/* Per body (man/mbsim-output.5), in the order of output_body_row's arguments. */
static const struct {
	const char *name, *units, *desc;
	int cols;
} body_series[6] = {
	{ "position", "m", "centroid position, global frame", 3 },
	{ "velocity", "m/s", "centroid velocity, global frame", 3 },
	{ "acceleration", "m/s^2", "centroid acceleration, global frame", 3 },
	{ "orientation", "1", "unit quaternion (w,x,y,z), body to global", 4 },
	{ "angular_velocity", "rad/s", "angular velocity, body frame", 3 },
	{ "angular_acceleration", "rad/s^2", "angular acceleration, body frame", 3 },
};

/* Names of the bodies of one kind, in model order (malloc'd array). */
static int kind_names(const struct model *m, enum body_kind kind, const char ***names)
{
	int n = 0;
	*names = xmalloc(((size_t)m->nbodies + 1) * sizeof(char *));
	for (int b = 0; b < m->nbodies; b++)
		if (m->bodies[b].kind == kind)
			(*names)[n++] = m->bodies[b].name;
	return n;
}

int output_body_series(struct h5out *h, const struct model *m, int *id)
{
	static const char *const pdesc[3] = { "particle position, global frame",
		"particle velocity, global frame", "particle acceleration, global frame" };
	const char **names;
	int time = h5_series(h, "/time", 0, 0, H5_DOUBLE, "s", "sample times");
	int nb = kind_names(m, BODY_RIGID, &names);
	h5_names(h, "/bodies/names", names, nb);
	free(names);
	for (int j = 0; j < 6; j++) {
		char path[64];
		snprintf(path, sizeof path, "/bodies/%s", body_series[j].name);
		id[j] = nb > 0 ? ser_named(h, path, nb, body_series[j].cols, body_series[j].units,
					   body_series[j].desc, "/bodies/names") : -1;
	}
	int np = kind_names(m, BODY_PARTICLE, &names);
	if (np > 0)
		h5_names(h, "/particles/names", names, np);
	free(names);
	for (int j = 0; j < 3; j++) {
		char path[64];
		snprintf(path, sizeof path, "/particles/%s", body_series[j].name);
		id[6 + j] = np > 0 ? ser_named(h, path, np, 3, body_series[j].units, pdesc[j],
					       "/particles/names") : -1;
	}
	return time;
}

/* Rows of the bodies of one kind gathered from arrays over all bodies
 * (stride values each) into out; x NULL: the quaternions of the
 * orientation matrices A (stride 4). */
static void gather(const struct model *m, enum body_kind kind, const double *x, const double *A,
		   int stride, double *out)
{
	int n = 0;
	for (int b = 0; b < m->nbodies; b++) {
		if (m->bodies[b].kind != kind)
			continue;
		double *o = out + (size_t)stride * (size_t)n++;
		if (x)
			memcpy(o, x + (size_t)stride * (size_t)b, (size_t)stride * sizeof(double));
		else
			mat_to_quat(o, A + 9 * (size_t)b);
	}
}

/* One sample of every body (output_body_row), the rows made in the
 * writer's buffer (h5_row_next) where they are not the arrays
 * themselves; row[3] NULL: the quaternions made there from A. */
static void body_rows(struct h5out *h, const struct model *m, const int *id,
		      const double *const *row, const double *A)
{
	for (int j = 0; j < 6; j++) {
		if (m->nparticles == 0 && row[j]) {	/* the arrays are the rows */
			h5_row(h, id[j], row[j]);
			continue;
		}
		double *out = h5_row_next(h, id[j]);
		if (out)
			gather(m, BODY_RIGID, row[j], A, body_series[j].cols, out);
	}
	for (int j = 0; j < 3 && m->nparticles > 0; j++) {
		double *out = h5_row_next(h, id[6 + j]);
		if (out)
			gather(m, BODY_PARTICLE, row[j], NULL, 3, out);
	}
}

void output_body_row(struct h5out *h, const struct model *m, const int *id, const double *r,
		     const double *v, const double *a, const double *q, const double *w,
		     const double *wd)
{
	const double *row[6] = { r, v, a, q, w, wd };
	body_rows(h, m, id, row, NULL);
}

void output_point_kin(const struct body_point *p, const double *r, const double *A,
		      const double *v, const double *w, const double *a, const double *wd,
		      double pos[3], double vel[3], double acc[3])
{
	int b = p->body;
	double ws[3], wws[3], t[3];
	if (b < 0) {
		v3_copy(pos, p->s);
		v3_set(vel, 0, 0, 0);
		v3_set(acc, 0, 0, 0);
		return;
	}
	const double *Ab = A + 9 * b, *wb = w + 3 * b;
	/* p = r + A s, p' = v + A (w x s), p'' = a + A (w' x s + w x (w x s)),
	 * w and w' in the body frame */
	m3_mulv(t, Ab, p->s);
	v3_add(pos, r + 3 * b, t);
	v3_cross(ws, wb, p->s);
	m3_mulv(t, Ab, ws);
	v3_add(vel, v + 3 * b, t);
	v3_cross(wws, wb, ws);
	v3_cross(t, wd + 3 * b, p->s);
	v3_add(t, t, wws);
	m3_mulv(ws, Ab, t);
	v3_add(acc, a + 3 * b, ws);
}

/* /points: names and the three series. */
void output_point_series(struct h5out *h, const struct model *m, int id[3])
{
	static const char *const desc[3] = { "point position, global frame",
		"point velocity, global frame", "point acceleration, global frame" };
	int np = m->npoints;
	id[0] = id[1] = id[2] = -1;
	if (np == 0)
		return;
	const char **names = xmalloc(((size_t)np + 1) * sizeof(char *));
	for (int i = 0; i < np; i++)
		names[i] = m->points[i].name;
	h5_names(h, "/points/names", names, np);
	free(names);
	for (int j = 0; j < 3; j++) {
		char path[64];
		snprintf(path, sizeof path, "/points/%s", body_series[j].name);
		id[j] = ser_named(h, path, np, 3, body_series[j].units, desc[j], "/points/names");
	}
}

static void point_series(struct output *o, struct h5out *h, const struct model *m)
{
	int id[3];
	output_point_series(h, m, id);
	o->ppos = id[0];
	o->pvel = id[1];
	o->pacc = id[2];
}

static void point_rows(struct output *o, const struct ra_state *x)
{
	const struct model *m = o->m;
	if (m->npoints == 0)
		return;
	double *P = h5_row_next(o->h5, o->ppos), *V = h5_row_next(o->h5, o->pvel);
	double *Ac = h5_row_next(o->h5, o->pacc);
	for (int i = 0; i < m->npoints; i++)
		output_point_kin(&m->points[i], x->r, x->A, x->v, x->w, x->a, x->wd, P + 3 * i,
				 V + 3 * i, Ac + 3 * i);
}

static int has_coord(enum joint_type t)
{
	return t == JOINT_REVOLUTE || t == JOINT_SCREW || t == JOINT_TRANSLATIONAL;
}

/* /joints: names, the multipliers' column offsets, and the series. */
static void joint_series(struct output *o, struct h5out *h, const struct model *m, int coords,
			 int frame)
{
	int nj = m->njoints;
	o->jmul = o->jforce = o->jtorque = o->jcoord = o->jq = o->jqd = -1;
	o->jforce_j = o->jtorque_j = -1;
	const char **names = xmalloc(((size_t)nj + 1) * sizeof(char *));
	int *off = xmalloc(((size_t)nj + 1) * sizeof(int));
	off[0] = 0;
	for (int j = 0; j < nj; j++) {
		names[j] = m->joints[j].name;
		off[j + 1] = off[j] + m->joints[j].nrows;
	}
	h5_names(h, "/joints/names", names, nj);
	free(names);
	if (nj > 0) {
		h5_ints(h, "/joints/multiplier_offsets", off, nj + 1);
		if (off[nj] > 0) {
			o->jmul = ser_named(h, "/joints/multipliers", off[nj], 0, "N, N m or N/m",
					    "Lagrange multipliers of the joints' constraint rows",
					    "/joints/names");
			h5_attr_str(h, "/joints/multipliers", "offsets", "/joints/multiplier_offsets");
		}
		o->jforce = ser_named(h, "/joints/reaction_force", nj, 3, "N",
				      "constraint force on body 2, global frame", "/joints/names");
		o->jtorque = ser_named(h, "/joints/reaction_torque", nj, 3, "N m",
				       "constraint couple on body 2 about its joint point, global frame",
				       "/joints/names");
		if (frame) {
			o->jforce_j = ser_named(h, "/joints/reaction_force_joint_frame", nj, 3, "N",
						"reaction_force in body 2's joint frame",
						"/joints/names");
			o->jtorque_j = ser_named(h, "/joints/reaction_torque_joint_frame", nj, 3,
						 "N m", "reaction_torque in body 2's joint frame",
						 "/joints/names");
		}
		o->jcoord = ser_named(h, "/joints/coordinate", nj, 0, "rad or m",
				      "relative angle (unwrapped) of revolute and screw joints, displacement of "
				      "translational joints, NaN for other types", "/joints/names");
		const char **u = xmalloc(((size_t)nj + 1) * sizeof(char *));
		static const char *const ser[1] = { "/joints/coordinate" };
		for (int j = 0; j < nj; j++)
			u[j] = !has_coord(m->joints[j].type) ? "-" :
			       m->joints[j].type == JOINT_TRANSLATIONAL ? "m" : "rad";
		output_units_table(h, "/joints/coordinate_units", u, nj, ser, 1);
		free(u);
	}
	if (nj > 0 && coords) {
		/* the tree formulation's joint coordinates (tree.h) */
		off[0] = 0;
		for (int j = 0; j < nj; j++)
			off[j + 1] = off[j] + tree_joint_ncoords(m->joints[j].type);
		h5_ints(h, "/joints/coordinate_offsets", off, nj + 1);
		o->njq = off[nj];
		if (off[nj] > 0) {
			o->jq = ser_named(h, "/joints/coordinates", off[nj], 0, "rad or m",
					  "joint coordinates of the formulation tree, joint by joint",
					  "/joints/names");
			h5_attr_str(h, "/joints/coordinates", "offsets", "/joints/coordinate_offsets");
			o->jqd = ser_named(h, "/joints/coordinate_rates", off[nj], 0, "rad/s or m/s",
					   "time derivatives of /joints/coordinates", "/joints/names");
			h5_attr_str(h, "/joints/coordinate_rates", "offsets",
				    "/joints/coordinate_offsets");
		}
	}
	free(off);
}

/* /drivers: names, driven joints and the series. */
static void driver_series(struct output *o, struct h5out *h, const struct model *m)
{
	int nd = m->ndrivers;
	o->dmul = o->deffort = o->dforce = o->dtorque = -1;
	if (nd == 0)
		return;
	const char **names = xmalloc(((size_t)nd + 1) * sizeof(char *));
	const char **joints = xmalloc(((size_t)nd + 1) * sizeof(char *));
	for (int d = 0; d < nd; d++) {
		names[d] = m->drivers[d].name;
		joints[d] = m->joints[m->drivers[d].joint].name;
	}
	h5_names(h, "/drivers/names", names, nd);
	h5_names(h, "/drivers/joint_names", joints, nd);
	free(names);
	free(joints);
	o->dmul = ser_named(h, "/drivers/multiplier", nd, 0, "N m or N",
			    "Lagrange multiplier of the driver's constraint row", "/drivers/names");
	o->deffort = ser_named(h, "/drivers/effort", nd, 0, "N m or N",
			       "driving torque about (force along) the joint axis on body 2",
			       "/drivers/names");
	o->dforce = ser_named(h, "/drivers/reaction_force", nd, 3, "N",
			      "force of the driver row on body 2, global frame", "/drivers/names");
	o->dtorque = ser_named(h, "/drivers/reaction_torque", nd, 3, "N m",
			       "couple of the driver row on body 2 about its joint point, global frame",
			       "/drivers/names");
	const char **u = xmalloc(((size_t)nd + 1) * sizeof(char *));
	static const char *const ser[2] = { "/drivers/multiplier", "/drivers/effort" };
	for (int d = 0; d < nd; d++)
		u[d] = m->drivers[d].kind == DRIVER_ROTATION ? "N m" : "N";
	output_units_table(h, "/drivers/effort_units", u, nd, ser, 2);
	free(u);
}

/* /bodies/euler_angles when code (OUTPUT_EULER >> 8) names a sequence */
static void euler_series(struct output *o, struct h5out *h, const struct model *m, unsigned code)
{
	static const char axis[] = "xyz";
	o->euler = -1;
	int nb = m->nbodies - m->nparticles;
	if (code == 0 || nb == 0)
		return;
	code--;
	o->ax[0] = (int)(code / 9);
	o->ax[1] = (int)(code / 3 % 3);
	o->ax[2] = (int)(code % 3);
	char seq[4] = { axis[o->ax[0]], axis[o->ax[1]], axis[o->ax[2]], 0 }, desc[160];
	snprintf(desc, sizeof desc, "Euler angles a1, a2, a3 of the intrinsic sequence %s: "
		 "A = R%c(a1) R%c(a2) R%c(a3), body to global, each in [-pi, pi]", seq, seq[0],
		 seq[1], seq[2]);
	o->euler = ser_named(h, "/bodies/euler_angles", nb, 3, "rad", desc, "/bodies/names");
	h5_attr_str(h, "/bodies/euler_angles", "sequence", seq);
}

/* /contacts (man mbsim-output(5)): the count of each sample, and one row
 * per contact of every sample, the sample's rows after those of the
 * samples before it; the smooth model's forces at the sample, the
 * nonsmooth model's impulses over the step that ended at it */
static void contact_series(struct output *o, struct h5out *h, const struct model *m)
{
	o->ccount = o->cpair = o->cpoint = o->cnormal = o->cgap = o->cfn = o->cft = o->cslip = -1;
	if (!m->contact)
		return;
	int smooth = m->contact->model == CONTACT_SMOOTH;
	o->ccount = h5_series(h, "/contacts/count", 0, 0, H5_INT, "1",
			      smooth ? "contacts of the sample; its rows in the others follow the "
			      "rows of the samples before it" : "contacts of the step that ended at "
			      "the sample; its rows in the others follow the rows of the samples "
			      "before it");
	o->cpair = h5_series(h, "/contacts/pair", 3, 0, H5_INT, "1",
			     "bodies a, b (indices into /bodies/names, -1 the ground, a < b) "
			     "and the ground plane of a = -1 (index into contact_planes, else -1)");
	o->cpoint = ser(h, "/contacts/point", 3, 0, "m", "contact point, global, midway "
			"between the surfaces");
	o->cnormal = ser(h, "/contacts/normal", 3, 0, "1", "unit normal from a to b, global");
	o->cgap = ser(h, "/contacts/gap", 0, 0, "m", "signed distance, < 0 penetration");
	if (smooth) {
		o->cfn = ser(h, "/contacts/normal_force", 0, 0, "N", "normal force on b (along "
			     "the normal; -it on a)");
		o->cft = ser(h, "/contacts/friction_force", 3, 0, "N", "friction force on b, "
			     "global (-it on a)");
	} else {
		o->cfn = ser(h, "/contacts/normal_impulse", 0, 0, "N s", "normal impulse of the "
			     "step on b (along the normal; -it on a)");
		o->cft = ser(h, "/contacts/friction_impulse", 3, 0, "N s", "friction impulse of "
			     "the step on b, global (-it on a)");
	}
	o->cslip = h5_series(h, "/contacts/sliding", 0, 0, H5_INT, "1",
			     "1 while the contact slides (friction at mu_d), 0 stuck");
}

static void contact_row(struct output *o, const struct contact_pt *c, double fn,
			const double *ft, int slip)
{
	double pr[3] = { c->a, c->b, c->plane }, sl = slip;
	h5_row(o->h5, o->cpair, pr);
	h5_row(o->h5, o->cpoint, c->p);
	h5_row(o->h5, o->cnormal, c->n);
	h5_row(o->h5, o->cgap, &c->gap);
	h5_row(o->h5, o->cfn, &fn);
	h5_row(o->h5, o->cft, ft);
	h5_row(o->h5, o->cslip, &sl);
}

static void contact_rows(struct output *o, struct ra *s, const struct ra_state *x,
			 const struct sample_info *si)
{
	if (o->ccount < 0)
		return;
	size_t n = 0;
	if (s->contact) {
		const struct ra_contact_out *c = ra_contact_out(s, x, &n);
		for (size_t i = 0; i < n; i++)
			contact_row(o, &c[i].c, c[i].fn, c[i].ft, c[i].slip);
	} else if (si->impulses) {
		n = si->nimpulses;
		for (size_t i = 0; i < n; i++) {
			const struct integ_contact *c = si->impulses + i;
			contact_row(o, &c->c, c->pn, c->pt, c->slides);
		}
	}
	double cnt = (double)n;
	h5_row(o->h5, o->ccount, &cnt);
}

struct output *output_open(const char *path, const struct model *m, const struct h5_opts *opt,
			   const char *deck_text, unsigned flags,
			   const struct output_series *series, char *err, size_t n)
{
	struct h5out *h = h5_create(path, opt, err, n);
	if (!h)
		return NULL;
	struct output *o = xcalloc(1, sizeof(*o));
	o->h5 = h;
	o->m = m;
	h5_attr_int(h, "/", "layout_version", OUTPUT_LAYOUT_VERSION);
	h5_text(h, "/deck", deck_text ? deck_text : "");
	o->time = output_body_series(h, m, o->body);
	joint_series(o, h, m, (flags & OUTPUT_JOINT_COORDS) != 0,
		     (flags & OUTPUT_JOINT_FRAME) != 0);
	euler_series(o, h, m, flags >> 8);
	driver_series(o, h, m);
	point_series(o, h, m);
	output_forces_open(o, h, m);
	contact_series(o, h, m);
	output_shapes(h, m);
	int nc = m->ncons > 0 ? m->ncons : 1;
	o->pres = ser(h, "/constraints/position_residual", 0, 0, "mixed", "2-norm of Phi");
	o->vres = ser(h, "/constraints/velocity_residual", 0, 0, "mixed", "2-norm of Phi_q v - nu");
	o->ares = ser(h, "/constraints/acceleration_residual", 0, 0, "mixed", "2-norm of Phi_q a - gamma");
	o->pvec = ser(h, "/constraints/position_residual_vector", nc, 0, "mixed", "Phi by row");
	o->vvec = ser(h, "/constraints/velocity_residual_vector", nc, 0, "mixed", "Phi_q v - nu by row");
	o->avec = ser(h, "/constraints/acceleration_residual_vector", nc, 0, "mixed",
		      "Phi_q a - gamma by row");
	o->ekin = ser(h, "/energy/kinetic", 0, 0, "J", NULL);
	o->epot = ser(h, "/energy/potential", 0, 0, "J", "gravity (zero at the origin) and springs");
	o->ework = ser(h, "/energy/nonconservative_work", 0, 0, "J",
		       "work done since t0 by dampers, friction, actuators, drivers and non-potential loads");
	o->ewm = ser(h, "/energy/motor_work", 0, 0, "J", "the motors' part of nonconservative_work");
	o->ewd = ser(h, "/energy/driver_work", 0, 0, "J", "the drivers' part of nonconservative_work");
	o->etot = ser(h, "/energy/total", 0, 0, "J", "kinetic + potential - nonconservative_work");
	o->edrift = ser(h, "/energy/drift", 0, 0, "J", "total - total(t0)");
	o->hstep = ser(h, "/solver/step_size", 0, 0, "s", NULL);
	o->hiter = h5_series(h, "/solver/newton_iterations", 0, 0, H5_INT, "1",
			     "Newton iterations of the step");
	o->hconv = h5_series(h, "/solver/converged", 0, 0, H5_INT, "1",
			     "1 if the step's Newton iteration converged");
	o->hseries = -1;
	o->ckt = o->ckv = -1;
	if (series) {
		char name[96];
		snprintf(name, sizeof name, "/solver/%s", series->name);
		o->hseries = ser(h, name, 0, 0, series->unit, series->doc);
	}
	/* the layout and the provenance on disk as the run starts, made
	 * while set-up computes */
	h5_start(h);
	return o;
}

static double norm(const double *v, int n)
{
	double s = 0.0;
	for (int i = 0; i < n; i++)
		s += v[i] * v[i];
	return sqrt(s);
}

/* F, C (global) in body 2's joint frame: its marker F[1] turned by the
 * body's A (the ground's is the identity), R^T F and R^T C. */
static void joint_frame_row(const struct joint *jt, const struct ra_state *x, const double *F,
			    const double *C, double *Fj, double *Cj)
{
	double R[9];
	int b = jt->body[1];
	if (b == MODEL_GROUND)
		memcpy(R, jt->F[1], sizeof R);
	else
		m3_mul(R, x->A + 9 * b, jt->F[1]);
	m3_tmulv(Fj, R, F);
	m3_tmulv(Cj, R, C);
}

/* Rows of the joint and driver series at x, made in the writer's rows
 * (h5_row_next; a series that is not written has id -1 and no rows). */
static void joint_rows(struct output *o, struct ra *s, const struct ra_state *x,
		       const struct sample_info *si)
{
	const struct model *m = o->m;
	struct h5out *h = o->h5;
	if (m->njoints > 0) {
		double *jl = h5_row_next(h, o->jmul), *jF = h5_row_next(h, o->jforce);
		double *jC = h5_row_next(h, o->jtorque), *jc = h5_row_next(h, o->jcoord);
		double *jFj = h5_row_next(h, o->jforce_j), *jCj = h5_row_next(h, o->jtorque_j);
		int k = 0;
		for (int j = 0; j < m->njoints; j++) {
			const struct joint *jt = &m->joints[j];
			ra_reaction(s, x, jt->row0, jt->nrows, jt->s[1], jF + 3 * j, jC + 3 * j);
			if (o->jforce_j >= 0)
				joint_frame_row(jt, x, jF + 3 * j, jC + 3 * j, jFj + 3 * j,
						jCj + 3 * j);
			jc[j] = has_coord(jt->type) ? si->coord[j] : NAN;
			if (jl)
				memcpy(jl + k, x->lam + jt->row0, (size_t)jt->nrows * sizeof(double));
			k += jt->nrows;
		}
		if (o->jq >= 0) {
			size_t nq = (size_t)o->njq * sizeof(double);
			memcpy(h5_row_next(h, o->jq), si->jq, nq);
			memcpy(h5_row_next(h, o->jqd), si->jqd, nq);
		}
	}
	if (m->ndrivers == 0)
		return;
	double *dl = h5_row_next(h, o->dmul), *de = h5_row_next(h, o->deffort);
	double *dF = h5_row_next(h, o->dforce), *dC = h5_row_next(h, o->dtorque);
	for (int d = 0; d < m->ndrivers; d++) {
		dl[d] = x->lam[m->drivers[d].row0];
		de[d] = ra_driver_effort(s, x, d, dF + 3 * d, dC + 3 * d);
	}
}

int output_sample(struct output *o, struct ra *s, const struct ra_state *x,
		  const struct sample_info *si, double res[3])
{
	struct h5out *h = o->h5;
	int nc = s->nc;
	h5_row(h, o->time, &x->t);
	/* the body rows as output_body_row writes them, the quaternions
	 * made in place */
	const double *body[6] = { x->r, x->v, x->a, NULL, x->w, x->wd };
	body_rows(h, o->m, o->body, body, x->A);
	if (o->euler >= 0) {
		double *e = h5_row_next(h, o->euler), q[4];
		for (int b = 0, n = 0; b < o->m->nbodies; b++) {
			if (o->m->bodies[b].kind != BODY_RIGID)
				continue;
			mat_to_quat(q, x->A + 9 * b);
			quat_to_euler(e + 3 * n++, q, o->ax);
		}
	}
	point_rows(o, x);
	joint_rows(o, s, x, si);
	output_forces_rows(o, s, x);
	contact_rows(o, s, x, si);
	/* residual vectors: Phi, Phi_q v - nu, Phi_q a - gamma (a model
	 * without constraints has rows of one 0) */
	double *pv = h5_row_next(h, o->pvec);
	if (nc > 0)
		memcpy(pv, s->phi, (size_t)nc * sizeof(double));
	else
		pv[0] = 0;
	res[0] = norm(s->phi, nc);
	pv = h5_row_next(h, o->vvec);
	pv[0] = 0;
	assemble_residual(s, x->v, x->w, s->nu, pv);
	res[1] = norm(pv, nc);
	pv = h5_row_next(h, o->avec);
	pv[0] = 0;
	assemble_residual(s, x->a, x->wd, s->gamma, pv);
	res[2] = norm(pv, nc);
	h5_row(h, o->pres, &res[0]);
	h5_row(h, o->vres, &res[1]);
	h5_row(h, o->ares, &res[2]);
	h5_row(h, o->ekin, &si->kinetic);
	h5_row(h, o->epot, &si->potential);
	h5_row(h, o->ework, &si->work);
	h5_row(h, o->ewm, &si->work_motors);
	h5_row(h, o->ewd, &si->work_drivers);
	h5_row(h, o->etot, &si->total);
	h5_row(h, o->edrift, &si->drift);
	h5_row(h, o->hstep, &si->step);
	double it = si->iterations, cv = si->converged;
	h5_row(h, o->hiter, &it);
	h5_row(h, o->hconv, &cv);
	if (o->hseries >= 0)
		h5_row(h, o->hseries, &si->series);
	return 0;
}

int output_commit(struct output *o)
{
	return h5_commit(o->h5);
}

int output_flush_due(const struct output *o)
{
	return h5_flush_due(o->h5);
}

void output_ckpt_open(struct output *o, long n)
{
	/* a row at each flush: chunks of a few rows, not the samples' */
	/* no units: its rows are not samples, which readers know a series
	 * by (man mbsim-output(5)) */
	o->ckt = h5_series_chunk(o->h5, "/checkpoint/time", 0, 0, H5_DOUBLE, NULL,
				 "time of each checkpoint, s (a state the run can be restarted "
				 "from: mbsim run --restart FILE@T)", 64);
	o->ckv = h5_series_chunk(o->h5, "/checkpoint/state", n, 0, H5_DOUBLE, NULL,
				 "the run's state at /checkpoint/time, in mbsim's own layout "
				 "(man mbsim-output(5), /checkpoint)", 1);
}

void output_ckpt_row(struct output *o, double t, const double *v)
{
	h5_row(o->h5, o->ckt, &t);
	h5_row(o->h5, o->ckv, v);
}

int output_interrupted(const char *path, const char *deck_text, const char *why, char *err,
		       size_t n)
{
	struct h5out *h = h5_create(path, NULL, err, n);
	if (!h)
		return -1;
	h5_attr_int(h, "/", "layout_version", OUTPUT_LAYOUT_VERSION);
	h5_text(h, "/deck", deck_text ? deck_text : "");
	h5_series(h, "/time", 0, 0, H5_DOUBLE, "s", "sample times");
	size_t len = strlen(why) + 64;
	char *status = xmalloc(len);
	snprintf(status, len, "interrupted: during set-up (%s)", why);
	int rc = h5_close(&h, status, err, n);
	free(status);
	return rc;
}

size_t output_buffer_bytes(const struct output *o)
{
	return h5_kept_max(o->h5);
}

int output_close(struct output **po, const char *status, char *err, size_t n)
{
	struct output *o = *po;
	if (!o)
		return 0;
	int rc = h5_close(&o->h5, status, err, n);
	output_forces_close(o);
	free(o);
	*po = NULL;
	return rc;
}
