/* output.c - writing samples in the documented layout (man/mbsim-output.5). */
#include "output.h"
#include "assemble.h"
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

int output_body_series(struct h5out *h, const struct model *m, int *id)
{
	int nb = m->nbodies;
	int time = h5_series(h, "/time", 0, 0, H5_DOUBLE, "s", "sample times");
	const char **names = xmalloc(((size_t)nb + 1) * sizeof(char *));
	for (int b = 0; b < nb; b++)
		names[b] = m->bodies[b].name;
	h5_names(h, "/bodies/names", names, nb);
	free(names);
	for (int j = 0; j < 6; j++) {
		char path[64];
		snprintf(path, sizeof path, "/bodies/%s", body_series[j].name);
		id[j] = nb > 0 ? ser_named(h, path, nb, body_series[j].cols, body_series[j].units,
					   body_series[j].desc, "/bodies/names") : -1;
	}
	return time;
}

void output_body_row(struct h5out *h, const int *id, const double *r, const double *v,
		     const double *a, const double *q, const double *w, const double *wd)
{
	const double *row[6] = { r, v, a, q, w, wd };
	for (int j = 0; j < 6; j++)
		h5_row(h, id[j], row[j]);
}

static int has_coord(enum joint_type t)
{
	return t == JOINT_REVOLUTE || t == JOINT_TRANSLATIONAL;
}

/* /joints: names, the multipliers' column offsets, and the series. */
static void joint_series(struct output *o, struct h5out *h, const struct model *m)
{
	int nj = m->njoints;
	o->jmul = o->jforce = o->jtorque = o->jcoord = -1;
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
		o->jcoord = ser_named(h, "/joints/coordinate", nj, 0, "rad or m",
				      "relative angle (unwrapped) of revolute joints, displacement of "
				      "translational joints, NaN for other types", "/joints/names");
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
}

struct output *output_open(const char *path, const struct model *m, const struct h5_opts *opt,
			   const char *deck_text, char *err, size_t n)
{
	struct h5out *h = h5_create(path, opt, err, n);
	if (!h)
		return NULL;
	struct output *o = xcalloc(1, sizeof(*o));
	o->h5 = h;
	o->m = m;
	h5_attr_num(h, "/", "layout_version", OUTPUT_LAYOUT_VERSION);
	h5_text(h, "/deck", deck_text ? deck_text : "");
	o->time = output_body_series(h, m, o->body);
	joint_series(o, h, m);
	driver_series(o, h, m);
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
	o->etot = ser(h, "/energy/total", 0, 0, "J", "kinetic + potential - nonconservative_work");
	o->edrift = ser(h, "/energy/drift", 0, 0, "J", "total - total(t0)");
	o->hstep = ser(h, "/solver/step_size", 0, 0, "s", NULL);
	o->hiter = h5_series(h, "/solver/newton_iterations", 0, 0, H5_INT, "1",
			     "Newton iterations of the step");
	o->hconv = h5_series(h, "/solver/converged", 0, 0, H5_INT, "1",
			     "1 if the step's Newton iteration converged");
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
		int k = 0;
		for (int j = 0; j < m->njoints; j++) {
			const struct joint *jt = &m->joints[j];
			ra_reaction(s, x, jt->row0, jt->nrows, jt->s[1], jF + 3 * j, jC + 3 * j);
			jc[j] = has_coord(jt->type) ? si->coord[j] : NAN;
			if (jl)
				memcpy(jl + k, x->lam + jt->row0, (size_t)jt->nrows * sizeof(double));
			k += jt->nrows;
		}
	}
	if (m->ndrivers == 0)
		return;
	double *dl = h5_row_next(h, o->dmul), *de = h5_row_next(h, o->deffort);
	double *dF = h5_row_next(h, o->dforce), *dC = h5_row_next(h, o->dtorque);
	for (int d = 0; d < m->ndrivers; d++) {
		const struct driver *dv = &m->drivers[d];
		const struct joint *jt = &m->joints[dv->joint];
		double *F = dF + 3 * d, *C = dC + 3 * d;
		ra_reaction(s, x, dv->row0, 1, jt->s[1], F, C);
		dl[d] = x->lam[dv->row0];
		double zb[3] = { jt->F[0][2], jt->F[0][5], jt->F[0][8] }, z[3];
		static const double I[9] = { 1, 0, 0, 0, 1, 0, 0, 0, 1 };
		const double *A0 = jt->body[0] >= 0 ? x->A + 9 * jt->body[0] : I;
		m3_mulv(z, A0, zb);
		de[d] = dv->kind == DRIVER_ROTATION ? v3_dot(C, z) : v3_dot(F, z);
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
	for (int j = 0; j < 6; j++) {
		if (body[j]) {
			h5_row(h, o->body[j], body[j]);
			continue;
		}
		double *q = h5_row_next(h, o->body[j]);
		for (int b = 0; q && b < s->nb; b++)
			mat_to_quat(q + 4 * b, x->A + 9 * b);
	}
	joint_rows(o, s, x, si);
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
	h5_row(h, o->etot, &si->total);
	h5_row(h, o->edrift, &si->drift);
	h5_row(h, o->hstep, &si->step);
	double it = si->iterations, cv = si->converged;
	h5_row(h, o->hiter, &it);
	h5_row(h, o->hconv, &cv);
	return h5_commit(h);
}

int output_interrupted(const char *path, const char *deck_text, const char *why, char *err,
		       size_t n)
{
	struct h5out *h = h5_create(path, NULL, err, n);
	if (!h)
		return -1;
	h5_attr_num(h, "/", "layout_version", OUTPUT_LAYOUT_VERSION);
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
	free(o);
	*po = NULL;
	return rc;
}
