/* output.c - writing samples in the documented layout. */
#include "output.h"
#include "assemble.h"
#include "../util/vec.h"
#include "../util/xalloc.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int ser(struct output *o, const char *grp, const char *name, const char *ds,
	       int ncols, const char *units, const char *desc)
{
	char path[512];
	if (name)
		snprintf(path, sizeof path, "/%s/%s/%s", grp, name, ds);
	else
		snprintf(path, sizeof path, "/%s/%s", grp, ds);
	return h5_series(o->h5, path, ncols, H5_DOUBLE, units, desc);
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
	int time = h5_series(h, "/time", 0, H5_DOUBLE, "s", "sample times");
	for (int b = 0; b < m->nbodies; b++)
		for (int j = 0; j < 6; j++) {
			char path[512];
			snprintf(path, sizeof path, "/bodies/%s/%s", m->bodies[b].name,
				 body_series[j].name);
			id[6 * b + j] = h5_series(h, path, body_series[j].cols, H5_DOUBLE,
						  body_series[j].units, body_series[j].desc);
		}
	return time;
}

void output_body_row(struct h5out *h, const int *id, int b, const double *r, const double *v,
		     const double *a, const double *q, const double *w, const double *wd)
{
	const double *row[6] = { r, v, a, q, w, wd };
	for (int j = 0; j < 6; j++)
		h5_row(h, id[6 * b + j], row[j]);
}

static int has_coord(enum joint_type t)
{
	return t == JOINT_REVOLUTE || t == JOINT_TRANSLATIONAL;
}

struct output *output_open(const char *path, const struct model *m, long samples, char *err,
			   size_t n)
{
	struct h5out *h5 = h5_create(path, err, n);
	if (!h5)
		return NULL;
	struct output *o = xcalloc(1, sizeof(*o));
	int nb = m->nbodies, nj = m->njoints + m->ndrivers;
	o->h5 = h5;
	o->m = m;
	o->body = xmalloc(((size_t)nb + 1) * 6 * sizeof(int));
	o->time = output_body_series(h5, m, o->body);
	o->jmul = xmalloc(((size_t)nj + 1) * 5 * sizeof(int));
	o->jforce = o->jmul + nj;
	o->jtorque = o->jforce + nj;
	o->jcoord = o->jtorque + nj;
	o->jeffort = o->jcoord + nj;
	for (int j = 0; j < nj; j++) {
		int isdrv = j >= m->njoints;
		const char *jn = isdrv ? m->drivers[j - m->njoints].name : m->joints[j].name;
		int rows = isdrv ? 1 : m->joints[j].nrows;
		o->jmul[j] = ser(o, "joints", jn, "multipliers", rows, "N, N m or N/m",
				 "Lagrange multipliers of the joint's constraint rows");
		o->jforce[j] = ser(o, "joints", jn, "reaction_force", 3, "N",
				   "constraint force on body 2, global frame");
		o->jtorque[j] = ser(o, "joints", jn, "reaction_torque", 3, "N m",
				    "constraint couple on body 2 about its joint point, global frame");
		o->jcoord[j] = !isdrv && has_coord(m->joints[j].type) ?
			ser(o, "joints", jn, "coordinate", 0,
			    m->joints[j].type == JOINT_REVOLUTE ? "rad" : "m",
			    "relative angle (unwrapped) or displacement") : -1;
		o->jeffort[j] = isdrv ? ser(o, "joints", jn, "effort", 0, "N m or N",
					    "driving torque about (force along) the joint axis on body 2") : -1;
	}
	int nc = m->ncons > 0 ? m->ncons : 1;
	o->pres = ser(o, "constraints", NULL, "position_residual", 0, "mixed", "2-norm of Phi");
	o->vres = ser(o, "constraints", NULL, "velocity_residual", 0, "mixed", "2-norm of Phi_q v - nu");
	o->ares = ser(o, "constraints", NULL, "acceleration_residual", 0, "mixed", "2-norm of Phi_q a - gamma");
	o->pvec = ser(o, "constraints", NULL, "position_residual_vector", nc, "mixed", "Phi by row");
	o->vvec = ser(o, "constraints", NULL, "velocity_residual_vector", nc, "mixed", "Phi_q v - nu by row");
	o->avec = ser(o, "constraints", NULL, "acceleration_residual_vector", nc, "mixed", "Phi_q a - gamma by row");
	o->ekin = ser(o, "energy", NULL, "kinetic", 0, "J", NULL);
	o->epot = ser(o, "energy", NULL, "potential", 0, "J", "gravity (zero at the origin) and springs");
	o->ework = ser(o, "energy", NULL, "nonconservative_work", 0, "J",
		       "work done since t0 by dampers, friction, actuators, drivers and non-potential loads");
	o->etot = ser(o, "energy", NULL, "total", 0, "J", "kinetic + potential - nonconservative_work");
	o->edrift = ser(o, "energy", NULL, "drift", 0, "J", "total - total(t0)");
	o->hstep = ser(o, "solver", NULL, "step_size", 0, "s", NULL);
	o->hiter = h5_series(h5, "/solver/newton_iterations", 0, H5_INT, "1", "Newton iterations of the step");
	o->hconv = h5_series(h5, "/solver/converged", 0, H5_INT, "1", "1 if the step's Newton iteration converged");
	o->row = xmalloc(((size_t)(nc > 12 ? nc : 12) + 1) * sizeof(double));
	o->g = xmalloc(((size_t)6 * nb + 1) * sizeof(double));
	o->pv = xmalloc(((size_t)nc + 1) * sizeof(double));
	h5_start(h5, samples);
	return o;
}

static double norm(const double *v, int n)
{
	double s = 0.0;
	for (int i = 0; i < n; i++)
		s += v[i] * v[i];
	return sqrt(s);
}

void output_sample(struct output *o, struct ra *s, const struct ra_state *x,
		   const struct sample_info *si, double res[3])
{
	const struct model *m = o->m;
	struct h5out *h = o->h5;
	int nc = s->nc;
	double *row = o->row, q[4];
	h5_row(h, o->time, &x->t);
	for (int b = 0; b < s->nb; b++) {
		mat_to_quat(q, x->A + 9 * b);
		output_body_row(h, o->body, b, x->r + 3 * b, x->v + 3 * b, x->a + 3 * b, q,
				x->w + 3 * b, x->wd + 3 * b);
	}
	for (int j = 0; j < m->njoints + m->ndrivers; j++) {
		int isdrv = j >= m->njoints, row0, n;
		const struct joint *jt;
		if (isdrv) {
			const struct driver *dv = &m->drivers[j - m->njoints];
			jt = &m->joints[dv->joint];
			row0 = dv->row0;
			n = 1;
		} else {
			jt = &m->joints[j];
			row0 = jt->row0;
			n = jt->nrows;
		}
		double F[3], C[3];
		ra_reaction(s, x, row0, n, jt->s[1], F, C);
		h5_row(h, o->jmul[j], x->lam + row0);
		h5_row(h, o->jforce[j], F);
		h5_row(h, o->jtorque[j], C);
		if (o->jcoord[j] >= 0)
			h5_row(h, o->jcoord[j], &si->coord[j]);
		if (o->jeffort[j] >= 0) {
			double zb[3] = { jt->F[0][2], jt->F[0][5], jt->F[0][8] }, z[3];
			static const double I[9] = { 1, 0, 0, 0, 1, 0, 0, 0, 1 };
			const double *A0 = jt->body[0] >= 0 ? x->A + 9 * jt->body[0] : I;
			m3_mulv(z, A0, zb);
			double e = m->drivers[j - m->njoints].kind == DRIVER_ROTATION ?
				   v3_dot(C, z) : v3_dot(F, z);
			h5_row(h, o->jeffort[j], &e);
		}
	}
	/* residual vectors: Phi, Phi_q v - nu, Phi_q a - gamma */
	double *g = o->g, *pv = o->pv;
	if (nc > 0) {
		h5_row(h, o->pvec, s->phi);
	} else {
		row[0] = 0;
		h5_row(h, o->pvec, row);
	}
	res[0] = norm(s->phi, nc);
	assemble_residual(s, x->v, x->w, s->nu, g, pv);
	res[1] = norm(pv, nc);
	h5_row(h, o->vvec, nc > 0 ? pv : row);
	assemble_residual(s, x->a, x->wd, s->gamma, g, pv);
	res[2] = norm(pv, nc);
	h5_row(h, o->avec, nc > 0 ? pv : row);
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
}

int output_close(struct output **po, const char *status)
{
	struct output *o = *po;
	if (!o)
		return 0;
	int rc = h5_close(&o->h5, status);
	free(o->body);
	free(o->jmul);
	free(o->row);
	free(o->g);
	free(o->pv);
	free(o);
	*po = NULL;
	return rc;
}
