/* ra.c - the absolute-coordinate formulation (ra.h). */
#include "ra.h"
#include "ra_contact.h"
#include "../util/ckpt.h"
#include "../elem/elem.h"
#include "../la/kkt.h"
#include "../model/coupler.h"
#include "../util/vec.h"
#include "../util/xalloc.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static const double I3[9] = { 1, 0, 0, 0, 1, 0, 0, 0, 1 };
static const double Z3[3] = { 0, 0, 0 };

static void inv3(double *B, const double *A)
{
	double det = A[0] * (A[4] * A[8] - A[5] * A[7]) -
		     A[1] * (A[3] * A[8] - A[5] * A[6]) +
		     A[2] * (A[3] * A[7] - A[4] * A[6]);
	B[0] = (A[4] * A[8] - A[5] * A[7]) / det;
	B[1] = (A[2] * A[7] - A[1] * A[8]) / det;
	B[2] = (A[1] * A[5] - A[2] * A[4]) / det;
	B[3] = (A[5] * A[6] - A[3] * A[8]) / det;
	B[4] = (A[0] * A[8] - A[2] * A[6]) / det;
	B[5] = (A[2] * A[3] - A[0] * A[5]) / det;
	B[6] = (A[3] * A[7] - A[4] * A[6]) / det;
	B[7] = (A[1] * A[6] - A[0] * A[7]) / det;
	B[8] = (A[0] * A[4] - A[1] * A[3]) / det;
}

struct ra *ra_new(const struct model *m)
{
	struct ra *s = xcalloc(1, sizeof(*s));
	s->m = m;
	s->nb = m->nbodies;
	s->nc = m->ncons;
	s->ng = 6 * s->nb;
	s->mass = xmalloc((size_t)s->nb * sizeof(double));
	s->J = xmalloc((size_t)s->nb * 9 * sizeof(double));
	s->Jinv = xmalloc((size_t)s->nb * 9 * sizeof(double));
	for (int b = 0; b < s->nb; b++) {
		s->mass[b] = m->bodies[b].mass;
		memcpy(s->J + 9 * b, m->bodies[b].J, 9 * sizeof(double));
		inv3(s->Jinv + 9 * b, m->bodies[b].J);
	}
	int nc = s->nc;
	s->phi = xcalloc((size_t)nc + 1, sizeof(double));
	s->nu = xcalloc((size_t)nc + 1, sizeof(double));
	s->gamma = xcalloc((size_t)nc + 1, sizeof(double));
	s->bi = xmalloc(((size_t)nc + 1) * sizeof(int));
	s->bj = xmalloc(((size_t)nc + 1) * sizeof(int));
	for (int j = 0; j < m->njoints; j++)
		for (int k = m->joints[j].row0; k < m->joints[j].row0 + m->joints[j].nrows; k++) {
			s->bi[k] = m->joints[j].body[0];
			s->bj[k] = m->joints[j].body[1];
		}
	for (int d = 0; d < m->ndrivers; d++) {
		s->bi[m->drivers[d].row0] = m->dprims[d].bi;
		s->bj[m->drivers[d].row0] = m->dprims[d].bj;
	}
	/* the Jacobian's rows: 12 values, or 6 when side i is ground */
	s->jo = xmalloc(((size_t)nc + 1) * sizeof(int));
	size_t len = 0;
	for (int k = 0; k < nc; k++) {
		s->jo[k] = (int)len - (s->bi[k] < 0 ? 6 : 0);
		len += s->bi[k] < 0 ? 6 : 12;
	}
	s->jac = xcalloc(len + 1, sizeof(double));
	if (nc <= RA_PRIMS_MAX) {
		s->prims = xmalloc(((size_t)nc + 1) * sizeof(struct prim));
		for (int j = 0; j < m->njoints; j++)
			model_joint_prims(m, j, s->prims + m->joints[j].row0);
	}
	s->has_ncforce = m->ndrivers > 0;
	for (int i = 0; i < m->nforces; i++) {
		unsigned p = elem_props(&m->forces[i]);
		if (p & ELEM_LAMBDA)
			s->needs_lambda = 1;
		if (p & ELEM_NC)
			s->has_ncforce = 1;
	}
	for (int i = 0; i < m->nbeams; i++)
		if (m->beams[i].mu > 0.0)
			s->has_ncforce = 1;
	s->cpl_fault = -1;
	s->ct = NAN;
	for (int j = 0; j < m->njoints; j++)
		if (m->joints[j].cpl) {
			if (!s->cref) {
				size_t n = (size_t)JOINT_CPL_MAX * (size_t)m->njoints;
				s->cref = xcalloc(n, sizeof(double));
				s->crate = xcalloc(n, sizeof(double));
			}
			memcpy(s->cref + JOINT_CPL_MAX * j, m->joints[j].cpl->ref0,
			       sizeof m->joints[j].cpl->ref0);
		}
	ra_force_init(s);
	s->contact = ra_contact_new(m);
	if (s->contact)
		s->has_ncforce = 1;
	ra_beam_init(s);
	s->lr = ra_lr_new(s);
	return s;
}

void ra_free(struct ra **ps)
{
	struct ra *s = *ps;
	if (!s)
		return;
	free(s->mass);
	free(s->J);
	free(s->Jinv);
	free(s->phi);
	free(s->nu);
	free(s->gamma);
	free(s->jac);
	free(s->prims);
	free(s->jo);
	free(s->bi);
	free(s->bj);
	free(s->fst);
	free(s->pairs);
	free(s->cref);
	free(s->crate);
	ra_contact_free(&s->contact);
	ra_lr_free(&s->lr);
	free(s);
	*ps = NULL;
}

void ra_state_init(const struct ra *s, struct ra_state *x)
{
	size_t n = (size_t)s->nb;
	memset(x, 0, sizeof(*x));
	x->r = xcalloc(3 * n + 1, sizeof(double));
	x->A = xcalloc(9 * n + 1, sizeof(double));
	x->v = xcalloc(3 * n + 1, sizeof(double));
	x->w = xcalloc(3 * n + 1, sizeof(double));
	x->a = xcalloc(3 * n + 1, sizeof(double));
	x->wd = xcalloc(3 * n + 1, sizeof(double));
	x->lam = xcalloc((size_t)s->nc + 1, sizeof(double));
}

void ra_state_release(struct ra_state *x)
{
	free(x->r);
	free(x->A);
	free(x->v);
	free(x->w);
	free(x->a);
	free(x->wd);
	free(x->lam);
	memset(x, 0, sizeof(*x));
}

void ra_state_copy(const struct ra *s, struct ra_state *d, const struct ra_state *x)
{
	size_t n = (size_t)s->nb * sizeof(double);
	d->t = x->t;
	memcpy(d->r, x->r, 3 * n);
	memcpy(d->A, x->A, 9 * n);
	memcpy(d->v, x->v, 3 * n);
	memcpy(d->w, x->w, 3 * n);
	memcpy(d->a, x->a, 3 * n);
	memcpy(d->wd, x->wd, 3 * n);
	memcpy(d->lam, x->lam, (size_t)s->nc * sizeof(double));
}

void ra_state_ckpt(const struct ra *s, struct ra_state *x, struct ckpt *c)
{
	long n = s->nb;
	ckpt_d(c, &x->t, 1);
	ckpt_d(c, x->r, 3 * n);
	ckpt_d(c, x->A, 9 * n);
	ckpt_d(c, x->v, 3 * n);
	ckpt_d(c, x->w, 3 * n);
	ckpt_d(c, x->a, 3 * n);
	ckpt_d(c, x->wd, 3 * n);
	ckpt_d(c, x->lam, s->nc);
}

void ra_state_from_model(const struct ra *s, struct ra_state *x, double t0)
{
	x->t = t0;
	for (int b = 0; b < s->nb; b++) {
		const struct body *B = &s->m->bodies[b];
		v3_copy(x->r + 3 * b, B->r0);
		memcpy(x->A + 9 * b, B->A0, 9 * sizeof(double));
		v3_copy(x->v + 3 * b, B->v0);
		v3_copy(x->w + 3 * b, B->w0);
	}
	memset(x->a, 0, 3 * (size_t)s->nb * sizeof(double));
	memset(x->wd, 0, 3 * (size_t)s->nb * sizeof(double));
	memset(x->lam, 0, (size_t)s->nc * sizeof(double));
}

void ra_bstate(const struct ra_state *x, int b, struct bstate *bs)
{
	if (b < 0) {
		bs->r = Z3;
		bs->A = I3;
		bs->v = Z3;
		bs->w = Z3;
		return;
	}
	bs->r = x->r + 3 * b;
	bs->A = x->A + 9 * b;
	bs->v = x->v + 3 * b;
	bs->w = x->w + 3 * b;
}

/* Row k, primitive p */
static void eval_row(struct ra *s, const struct ra_state *x, double t, unsigned what,
		     const struct prim *p, int k)
{
	struct bstate bi, bj;
	struct prim_out o;
	ra_bstate(x, p->bi, &bi);
	ra_bstate(x, p->bj, &bj);
	if (p->type == PRIM_CPL) {
		const struct model *m = s->m;
		cpl_eval(m, &m->joints[p->owner], &bi, &bj, s->cref + JOINT_CPL_MAX * p->owner,
			 what, &o);
	} else if (what == PRIM_PHI) {	/* the Newton iterations: Phi alone */
		s->phi[k] = prim_phi(p, &bi, &bj, t);
		s->nu[k] = s->gamma[k] = 0.0;
		return;
	} else {
		prim_eval(p, &bi, &bj, t, what, &o);
	}
	s->phi[k] = o.phi;
	s->nu[k] = o.nu;
	s->gamma[k] = o.gamma;
	if (what & PRIM_JAC) {
		if (p->bi >= 0)
			memcpy(s->jac + s->jo[k], o.J, 12 * sizeof(double));
		else
			memcpy(s->jac + (s->jo[k] + 6), o.J[2], 6 * sizeof(double));
	}
}

void ra_cpl_commit(struct ra *s, const struct ra_state *x)
{
	const struct model *m = s->m;
	if (!s->cref)
		return;
	double h = isnan(s->ct) ? 0.0 : fabs(x->t - s->ct);
	for (int j = 0; j < m->njoints; j++) {
		const struct joint *jt = &m->joints[j];
		if (!jt->cpl)
			continue;
		struct bstate bi, bj;
		ra_bstate(x, jt->body[0], &bi);
		ra_bstate(x, jt->body[1], &bj);
		double *ref = s->cref + JOINT_CPL_MAX * j, *rate = s->crate + JOINT_CPL_MAX * j;
		for (int k = 0; k < jt->cpl->n; k++) {
			if (jt->cpl->kind[k] != DRIVER_ROTATION)
				continue;
			double w, th = cpl_coord(m, jt, k, &bi, &bj, &w);
			double turn = fmax(fabs(w), fabs(rate[k])) * h;
			if (turn > RA_CPL_TURN && s->cpl_fault < 0) {
				s->cpl_fault = j;
				s->cpl_term = k;
				s->cpl_turn = turn;
			}
			ref[k] = cpl_unwrap(th, ref[k]);
			rate[k] = w;
		}
	}
	s->ct = x->t;
}

void ra_cpl_keep(const struct ra *s, struct model *m)
{
	for (int j = 0; s->cref && j < m->njoints; j++)
		if (m->joints[j].cpl)
			memcpy(m->joints[j].cpl->ref0, s->cref + JOINT_CPL_MAX * j,
			       sizeof m->joints[j].cpl->ref0);
}

void ra_eval(struct ra *s, const struct ra_state *x, double t, unsigned what)
{
	const struct model *m = s->m;
	struct prim P[MODEL_JOINT_ROWS_MAX];
	for (int j = 0; j < m->njoints; j++) {
		int k0 = m->joints[j].row0, n = m->joints[j].nrows;
		const struct prim *Pj = s->prims ? s->prims + k0 : P;
		if (!s->prims)
			n = model_joint_prims(m, j, P);
		for (int i = 0; i < n; i++)
			eval_row(s, x, t, what, &Pj[i], k0 + i);
	}
	for (int d = 0; d < m->ndrivers; d++)
		eval_row(s, x, t, what, &m->dprims[d], m->drivers[d].row0);
}

static void geo_side(int b, const double *K, double kr, double scale, double *W)
{
	if (b < 0)
		return;
	double *Wb = W + 18 * b;
	Wb[0] += scale * kr;
	Wb[4] += scale * kr;
	Wb[8] += scale * kr;
	for (int e = 0; e < 9; e++)
		Wb[9 + e] += scale * K[e];
}

/* Row k, primitive p */
static void geo_row(const struct ra_state *x, double t, const double *lam, double scale,
		    double *W, const struct prim *p, int k)
{
	struct bstate bi, bj;
	double Ki[9], Kj[9], kri, krj;
	if (lam[k] == 0.0 || p->type == PRIM_CPL)
		return;	/* a coupling row's second derivatives are left out */
	ra_bstate(x, p->bi, &bi);
	ra_bstate(x, p->bj, &bj);
	prim_hess(p, &bi, &bj, t, lam[k], Ki, Kj, &kri, &krj);
	geo_side(p->bi, Ki, kri, scale, W);
	geo_side(p->bj, Kj, krj, scale, W);
}

void ra_geo(const struct ra *s, const struct ra_state *x, double t, const double *lam,
	    double scale, double *W)
{
	const struct model *m = s->m;
	struct prim P[MODEL_JOINT_ROWS_MAX];
	for (int j = 0; j < m->njoints; j++) {
		int n = model_joint_prims(m, j, P), k0 = m->joints[j].row0;
		for (int i = 0; i < n; i++)
			geo_row(x, t, lam, scale, W, &P[i], k0 + i);
	}
	for (int d = 0; d < m->ndrivers; d++)
		geo_row(x, t, lam, scale, W, &m->dprims[d], m->drivers[d].row0);
}

void ra_jac_mul(const struct ra *s, const double *g, double *y)
{
	for (int k = 0; k < s->nc; k++) {
		const double *J = s->jac + (s->jo[k] + 6);	/* side j; side i at J - 6 */
		double acc = 0.0;
		if (s->bi[k] >= 0) {
			const double *gi = g + 6 * s->bi[k];
			for (int c = 0; c < 6; c++)
				acc += J[c - 6] * gi[c];
		}
		if (s->bj[k] >= 0) {
			const double *gj = g + 6 * s->bj[k];
			for (int c = 0; c < 6; c++)
				acc += J[c] * gj[c];
		}
		y[k] = acc;
	}
}

void ra_jac_mul_split(const struct ra *s, const double *lin, const double *ang, double *y)
{
	for (int k = 0; k < s->nc; k++) {
		double acc = 0.0;
		for (int side = 0; side < 2; side++) {
			int b = side ? s->bj[k] : s->bi[k];
			if (b < 0)
				continue;
			const double *J = s->jac + (s->jo[k] + 6 * side);
			for (int c = 0; c < 3; c++)
				acc += J[c] * lin[3 * b + c];
			for (int c = 0; c < 3; c++)
				acc += J[3 + c] * ang[3 * b + c];
		}
		y[k] = acc;
	}
}

void ra_jac_tmul(const struct ra *s, const double *l, double *y)
{
	memset(y, 0, (size_t)s->ng * sizeof(double));
	for (int k = 0; k < s->nc; k++) {
		const double *J = s->jac + (s->jo[k] + 6);	/* side j; side i at J - 6 */
		if (s->bi[k] >= 0) {
			double *yi = y + 6 * s->bi[k];
			for (int c = 0; c < 6; c++)
				yi[c] += J[c - 6] * l[k];
		}
		if (s->bj[k] >= 0) {
			double *yj = y + 6 * s->bj[k];
			for (int c = 0; c < 6; c++)
				yj[c] += J[c] * l[k];
		}
	}
}

void ra_rotate(const struct ra *s, double *A, const double *g)
{
	for (int b = 0; b < s->nb; b++) {
		double R[9], T[9];
		so3_exp(R, g + 6 * b + 3);
		m3_mul(T, A + 9 * b, R);
		memcpy(A + 9 * b, T, sizeof(T));
	}
}

/* Applied forces: ra_force.c; energies and power: ra_energy.c; the force
 * Jacobians: ra_force_jac.c. */

void ra_reaction(const struct ra *s, const struct ra_state *x, int row0, int n,
		 const double *s1, double F[3], double C[3])
{
	double Tb[3] = { 0, 0, 0 }, T[3], sg[3], sxF[3];
	int b = -1;
	v3_set(F, 0, 0, 0);
	for (int k = row0; k < row0 + n; k++) {
		const double *J = s->jac + (s->jo[k] + 6);	/* side j */
		v3_axpy(F, -x->lam[k], J);
		v3_axpy(Tb, -x->lam[k], J + 3);
		b = s->bj[k];
	}
	if (b < 0) {
		v3_set(C, 0, 0, 0);
		return;
	}
	m3_mulv(T, x->A + 9 * b, Tb);
	m3_mulv(sg, x->A + 9 * b, s1);
	v3_cross(sxF, sg, F);
	v3_sub(C, T, sxF);
}

double ra_driver_effort(const struct ra *s, const struct ra_state *x, int d, double F[3],
			double C[3])
{
	const struct driver *dv = &s->m->drivers[d];
	const struct joint *jt = &s->m->joints[dv->joint];
	static const double I[9] = { 1, 0, 0, 0, 1, 0, 0, 0, 1 };
	double zb[3] = { jt->F[0][2], jt->F[0][5], jt->F[0][8] }, z[3];
	const double *A0 = jt->body[0] >= 0 ? x->A + 9 * jt->body[0] : I;
	ra_reaction(s, x, dv->row0, 1, jt->s[1], F, C);
	m3_mulv(z, A0, zb);
	return dv->kind == DRIVER_ROTATION ? v3_dot(C, z) : v3_dot(F, z);
}

void ra_mass_blocks(const struct ra *s, double *W)
{
	for (int b = 0; b < s->nb; b++) {
		double *Wb = W + 18 * b;
		memset(Wb, 0, 9 * sizeof(double));
		Wb[0] = Wb[4] = Wb[8] = s->mass[b];
		memcpy(Wb + 9, ra_inertia(s, b), 9 * sizeof(double));
	}
}

void ra_gyro(const struct ra *s, const struct ra_state *x, double *F)
{
	for (int b = 0; b < s->nb; b++) {
		double Jw[3], g[3];
		const double *w = x->w + 3 * b;
		m3_mulv(Jw, ra_inertia(s, b), w);
		v3_cross(g, w, Jw);
		v3_sub(F + 6 * b + 3, F + 6 * b + 3, g);
	}
}

int ra_accel_factor(struct ra *s, struct kkt *k, double *W, const struct ra_state *x)
{
	ra_eval(s, x, x->t, PRIM_JAC | PRIM_GAMMA);
	return ra_accel_factor_jac(s, k, W);
}

int ra_accel_factor_jac(struct ra *s, struct kkt *k, double *W)
{
	ra_mass_blocks(s, W);
	return kkt_factor(k, W, s->jac);
}

int ra_accel_solve(struct ra *s, struct kkt *k, double *F, double *g, struct ra_state *x)
{
	int rc = 0;
	if (s->lr) {	/* forces of the multipliers they make */
		rc = ra_lr_accel(s, k, F, g, x);
	} else {
		ra_forces(s, x, x->t, x->lam, F);
		ra_gyro(s, x, F);
		kkt_solve(k, F, s->gamma, g, x->lam);
	}
	for (int b = 0; b < s->nb; b++) {
		v3_copy(x->a + 3 * b, g + 6 * b);
		v3_copy(x->wd + 3 * b, g + 6 * b + 3);
	}
	return rc;
}

int ra_accel(struct ra *s, struct kkt *k, double *W, double *F, double *g, struct ra_state *x)
{
	int rc = ra_accel_factor(s, k, W, x);
	if (rc)
		return rc;
	return ra_accel_solve(s, k, F, g, x);
}
