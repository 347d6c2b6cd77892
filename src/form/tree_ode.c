/* tree_ode.c - the tree formulation's ODE entries (tree.h, ode.h): the
 * state and the drivers' coordinates, rhs and the residual in the
 * state's rows, the massless rows and seed 003 eq. 29's velocity map, the
 * charts' re-basing, the start from a body state, and the body states and
 * multipliers of the last f.
 */
#include "tree_impl.h"
#include "../util/vec.h"
#include "../util/xalloc.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---- small kernels ---- */

/* Cholesky L L^T = D (n x n row-major; L lower, row-major); -1 when D is
 * not positive definite. */
static int chol(int n, const double *D, double *L)
{
	for (int i = 0; i < n; i++)
		for (int j = 0; j <= i; j++) {
			double s = D[n * i + j];
			for (int k = 0; k < j; k++)
				s -= L[n * i + k] * L[n * j + k];
			if (i == j) {
				if (!(s > 0))
					return -1;
				L[n * i + i] = sqrt(s);
			} else {
				L[n * i + j] = s / L[n * j + j];
			}
		}
	return 0;
}

static void chol_solve(int n, const double *L, double *b)
{
	for (int i = 0; i < n; i++) {
		for (int k = 0; k < i; k++)
			b[i] -= L[n * i + k] * b[k];
		b[i] /= L[n * i + i];
	}
	for (int i = n - 1; i >= 0; i--) {
		for (int k = i + 1; k < n; k++)
			b[i] -= L[n * k + i] * b[k];
		b[i] /= L[n * i + i];
	}
}

/* ---- drivers: the state and the full coordinates ---- */

/* The driven coordinates at t into Y, Yd (either may be NULL) and their
 * q-ddot into Pdd (forward adds S_a q-ddot_a to c). */
static void drv_eval(struct tree *T, double t, double *Y, double *Yd)
{
	const struct model *m = T->s->m;
	for (int k = 0; k < T->ndv; k++) {
		const struct tdrv *D = &T->dv[k];
		const struct driver *dv = &m->drivers[T->nd[D->node].drv[D->a]];
		double f[3];
		func_eval(&dv->f, t, f);
		if (Y)
			Y[D->q] = D->sig * (f[0] + dv->offset) + D->kap;
		if (Yd)
			Yd[D->q] = D->sig * f[1];
		T->Pdd[D->q] = D->sig * f[2];
	}
}

/* state -> full (the driven entries left as they are) and back */
static void expand(const struct tree *T, const double *y, double *Y)
{
	for (int i = 0; i < T->nq; i++)
		if (T->sx[i] >= 0)
			Y[i] = y[T->sx[i]];
}

static void gather(const struct tree *T, const double *Y, double *y)
{
	for (int i = 0; i < T->nq; i++)
		if (T->sx[i] >= 0)
			y[T->sx[i]] = Y[i];
}

static int tree_rhs(void *ctx, double t, const double *y, const double *yd, double *ydd)
{
	struct tree *T = ctx;
	if (!T->ndv)
		return tree_rhs_full(T, t, y, yd, ydd);
	expand(T, y, T->Yf);
	expand(T, yd, T->Ydf);
	drv_eval(T, t, T->Yf, T->Ydf);
	int st = tree_rhs_full(T, t, T->Yf, T->Ydf, T->Yddf);
	if (!st)
		gather(T, T->Yddf, ydd);
	return st;
}

/* The residual in the state's rows; the driven coordinates' entries of
 * the full y'' are 0 for the forward pass (their q-ddot is in c). */
static int tree_resid(void *ctx, double t, const double *y, const double *yd, const double *ydd,
		      double *res)
{
	struct tree *T = ctx;
	if (!T->ndv)
		return tree_resid_full(T, t, y, yd, ydd, res);
	expand(T, y, T->Yf);
	expand(T, yd, T->Ydf);
	drv_eval(T, t, T->Yf, T->Ydf);
	for (int k = 0; k < T->ndv; k++)
		T->Yddf[T->dv[k].q] = 0.0;
	expand(T, ydd, T->Yddf);
	int st = tree_resid_full(T, t, T->Yf, T->Ydf, T->Yddf, T->Rf);
	if (!st)
		gather(T, T->Rf, res);
	return st;
}

static int tree_massless(void *ctx, char *alg)
{
	struct tree *T = ctx;
	if (alg)
		for (int i = 0; i < T->nb; i++)
			for (int a = 0; a < T->nd[i].n; a++) {
				int k = T->sx[T->nd[i].q0 + a];
				if (k >= 0)
					alg[k] = (char)T->nd[i].alg[a];
			}
	return T->nalg;
}

/* Seed 003 eq. 29 for the DAE schemes (ode.h, vel_map): the joint rates of
 * a body below a massless coordinate a carry its motion.  q-ddot_j =
 * D_j^-1 (u_j - U_j^T Phi_j Vdot_p), and Vdot_p holds X_p q-ddot_a: X = S_a
 * at a's node, and down the tree X_m = Phi_m X_p - S_m G_m,a with G_m,a =
 * D_m^-1 U_m^T Phi_m X_p over m's coordinates with inertia (a massless
 * coordinate of m takes none of it).  The velocity w_m = q-dot_m + G_m,a
 * q-dot_a (the seed's v_j = X_j^T q-dot_j - T_j q-dot_i, T_j = -G_j, X =
 * I) is then free of a's motion: for a slide on a slide, j's absolute
 * velocity along it.  Below a body with inertia X vanishes (Ihat_i S_a =
 * 0 puts Phi_m X_p - S_m G_m,a in the null space of a regular Ihat_m,
 * assumption 23 of the seed); below a chain of massless bodies it
 * does not, which is why the seed assumes (23) and this follows X on
 * until it vanishes (to round-off of S_a).  From the last backward pass
 * (D^-1 U^T = L^-T Dg^-1 V); entries (row, column, value) into gi, ga, gv (room
 * for nq * nalg); returns their count.  O(nalg N) at most. */
static int tree_vel_map(void *ctx, int *gi, int *ga, double *gv)
{
	struct tree *T = ctx;
	int cnt = 0;
	double *X = NULL;
	char *on = NULL;
	for (int k = 0; k < T->nb; k++) {
		const struct tnode *K = &T->nd[k];
		for (int a = 0; a < K->n; a++) {
			if (!K->alg[a])
				continue;
			if (!X) {
				X = xcalloc(6 * (size_t)T->nb + 1, sizeof(double));
				on = xcalloc((size_t)T->nb + 1, 1);
			}
			memset(on, 0, (size_t)T->nb);
			const double *Sa = tw(T, k).S + 6 * a;
			double tiny = 0.0;
			for (int e = 0; e < 6; e++)
				tiny += Sa[e] * Sa[e];
			tiny = 1e-24 * tiny;	/* (1e-12 |S_a|)^2 */
			memcpy(X + 6 * k, Sa, 6 * sizeof(double));
			on[k] = 1;
			for (int m = k + 1; m < T->nb; m++) {	/* parents first */
				const struct tnode *M = &T->nd[m];
				if (M->parent < 0 || !on[M->parent])
					continue;
				struct twork Wv = tw(T, m);
				const struct twork *W = &Wv;
				double *Xm = X + 6 * m, tq[6];
				phi_motion(Xm, W->dcp, X + 6 * M->parent);
				int nr = M->nr;
				for (int r = 0; r < nr; r++) {	/* G = K Phi X_p */
					double sm = 0.0;
					for (int e = 0; e < 6; e++)
						sm += W->K[6 * r + e] * Xm[e];
					tq[r] = sm;
				}
				for (int r = 0; r < nr; r++) {
					const double *Sr = W->S + 6 * M->ri[r];
					for (int e = 0; e < 6; e++)
						Xm[e] -= Sr[e] * tq[r];
					gi[cnt] = M->q0 + M->ri[r];
					ga[cnt] = K->q0 + a;
					gv[cnt++] = tq[r];
				}
				double x2 = 0.0;
				for (int e = 0; e < 6; e++)
					x2 += Xm[e] * Xm[e];
				on[m] = x2 > tiny;
			}
		}
	}
	free(X);
	free(on);
	if (T->ndv)	/* full -> state indices (neither is a driven one) */
		for (int c = 0; c < cnt; c++) {
			gi[c] = T->sx[gi[c]];
			ga[c] = T->sx[ga[c]];
		}
	return cnt;
}

/* ---- charts ---- */

static int has_chart(const struct tnode *J)
{
	return J->type == TJ_SPHERICAL || J->type == TJ_FREE;
}

static const double *chart_of(const struct tnode *J, const double *y)
{
	return y + J->q0 + (J->type == TJ_FREE ? 3 : 0);
}

static int tree_want_new(void *ctx)
{
	struct tree *T = ctx;
	for (int i = 0; i < T->nb; i++)
		if (has_chart(&T->nd[i]) && v3_norm(chart_of(&T->nd[i], T->y)) > TREE_CHART_MAX)
			return 1;
	return 0;
}

/* C <- exp(phi~) C, phi-dot <- H(phi) phi-dot (the relative angular
 * velocity in P, the rate of the new chart at 0), phi <- 0. */
static int accept_full(struct tree *T, double *y, double *yd)
{
	int changed = 0;
	for (int i = 0; i < T->nb; i++) {
		struct tnode *J = &T->nd[i];
		if (!has_chart(J))
			continue;
		int o = J->q0 + (J->type == TJ_FREE ? 3 : 0);
		double *phi = y + o, *phid = yd + o;
		if (!(v3_norm(phi) > TREE_CHART_MAX))
			continue;
		double E[9], C[9], H[9], hq[3], w[3], *Cj = T->geo[i].C;
		so3_exp(E, phi);
		m3_mul(C, E, Cj);
		m3_orthonormalize(C);
		memcpy(Cj, C, sizeof C);
		tree_kin_update(T, i);
		tree_chart_jac(phi, phid, H, hq);
		m3_tmulv(w, H, phid);	/* H's columns at H[3 k] */
		v3_copy(phid, w);
		v3_set(phi, 0, 0, 0);
		T->rebases++;
		changed = 1;
	}
	if (changed) {	/* the last f's coordinates in the new charts */
		memcpy(T->y, y, (size_t)T->nq * sizeof(double));
		memcpy(T->yd, yd, (size_t)T->nq * sizeof(double));
	}
	return changed;
}

static int tree_accept(void *ctx, double t, double *y, double *yd)
{
	struct tree *T = ctx;
	if (!T->ndv)
		return accept_full(T, y, yd);
	expand(T, y, T->Yf);
	expand(T, yd, T->Ydf);
	drv_eval(T, t, T->Yf, T->Ydf);
	int changed = accept_full(T, T->Yf, T->Ydf);
	if (changed) {
		gather(T, T->Yf, y);
		gather(T, T->Ydf, yd);
	}
	return changed;
}

/* ---- the start: the coordinates of a body state ---- */

static double sgn(double a)
{
	return a < 0 ? -1.0 : 1.0;
}

/* The reference of a universal joint from the relative rotation Rr: its
 * columns x, y, z with z = Rr e_z made normal to e_z. */
static void universal_ref(double *C, const double *Rr)
{
	double z[3] = { Rr[2], Rr[5], 0.0 }, x[3] = { Rr[0], Rr[3], Rr[6] }, yv[3];
	if (v3_norm(z) < 1e-12)
		v3_set(z, 1, 0, 0);
	v3_scale(z, 1.0 / v3_norm(z), z);
	v3_axpy(x, -v3_dot(x, z), z);
	if (v3_norm(x) < 1e-12)
		v3_set(x, 0, 0, 1);
	v3_scale(x, 1.0 / v3_norm(x), x);
	v3_cross(yv, z, x);
	for (int i = 0; i < 3; i++) {
		C[3 * i] = x[i];
		C[3 * i + 1] = yv[i];
		C[3 * i + 2] = z[i];
	}
}

/* C and q of node J from the relative rotation Rr = P^T Q and offset dl
 * (in P) of a body state: the nearest pose on the joint's manifold. */
static void project_joint(const struct tnode *J, struct tgeo *G, const double *Rr, const double *dl, const double *rc,
			  const double *Ac, double *q)
{
	static const double flip[9] = { 1, 0, 0, 0, -1, 0, 0, 0, -1 };
	switch (J->type) {
	case TJ_REVOLUTE:
	case TJ_CYLINDRICAL:
		memcpy(G->C, Rr[8] >= 0 ? I3 : flip, sizeof G->C);
		q[0] = atan2(Rr[3], Rr[0]);
		if (J->type == TJ_CYLINDRICAL)
			q[1] = dl[2];
		break;
	case TJ_PLANAR:
		memcpy(G->C, Rr[8] >= 0 ? I3 : flip, sizeof G->C);
		q[0] = dl[0];
		q[1] = dl[1];
		q[2] = atan2(Rr[3], Rr[0]);
		break;
	case TJ_TRANSLATIONAL:
	case TJ_FIXED: {
		double s1 = sgn(Rr[0]), s3 = sgn(Rr[8]);
		double C[9] = { s1, 0, 0, 0, s1 * s3, 0, 0, 0, s3 };
		memcpy(G->C, C, sizeof C);
		if (J->type == TJ_TRANSLATIONAL)
			q[0] = dl[2];
		break;
	}
	case TJ_UNIVERSAL:
		universal_ref(G->C, Rr);
		q[0] = q[1] = 0.0;
		break;
	case TJ_SPHERICAL:
		memcpy(G->C, Rr, sizeof G->C);
		m3_orthonormalize(G->C);
		v3_set(q, 0, 0, 0);
		break;
	case TJ_POINT:
		memcpy(G->C, I3, sizeof G->C);
		v3_copy(q, rc);
		break;
	case TJ_FREE:
		memcpy(G->C, Ac, sizeof G->C);
		m3_orthonormalize(G->C);
		v3_copy(q, rc);
		v3_set(q + 3, 0, 0, 0);
		break;
	}
}

static int start_full(struct tree *T, const struct ra_state *x0, double *y, double *yd)
{
	T->why[0] = 0;
	static const double z3[3] = { 0, 0, 0 };
	/* positions, joint by joint from the given poses */
	for (int i = 0; i < T->nb; i++) {
		struct tnode *J = &T->nd[i];
		struct tgeo *G = &T->geo[i];
		int c = J->body, pb = J->parent >= 0 ? T->nd[J->parent].body : -1;
		const double *rp = pb >= 0 ? x0->r + 3 * pb : z3, *Ap = pb >= 0 ? x0->A + 9 * pb : I3;
		const double *rc = x0->r + 3 * c, *Ac = x0->A + 9 * c;
		double RP[9], RQ[9], Rr[9], op[3], oc[3], t[3], dl[3];
		m3_mul(RP, Ap, G->Fp);
		m3_mul(RQ, Ac, G->Fc);
		m3_tmul(Rr, RP, RQ);
		m3_mulv(op, Ap, G->sp);
		v3_add(op, op, rp);
		m3_mulv(oc, Ac, G->sc);
		v3_add(oc, oc, rc);
		v3_sub(t, oc, op);
		m3_tmulv(dl, RP, t);
		project_joint(J, G, Rr, dl, rc, Ac, y + J->q0);
		memcpy(T->R0 + 9 * i, G->C, 9 * sizeof(double));
		tree_kin_update(T, i);
	}
	/* S at these positions, then the rates: least squares S q-dot = V_c -
	 * Phi V_p of the given velocities (exact on a consistent state) */
	memset(yd, 0, (size_t)T->nq * sizeof(double));
	tree_forward(T, y, yd);
	for (int i = 0; i < T->nb; i++) {
		const struct tnode *J = &T->nd[i];
		struct twork Wv = tw(T, i);
		const struct twork *W = &Wv;
		int n = J->n, c = J->body, pb = J->parent >= 0 ? T->nd[J->parent].body : -1;
		if (n == 0)
			continue;
		double omc[3], omp[3] = { 0, 0, 0 }, vp[3] = { 0, 0, 0 }, dV[6], t[3];
		m3_mulv(omc, x0->A + 9 * c, x0->w + 3 * c);
		if (pb >= 0) {
			m3_mulv(omp, x0->A + 9 * pb, x0->w + 3 * pb);
			v3_copy(vp, x0->v + 3 * pb);
		}
		v3_cross(t, omp, W->dcp);
		for (int k = 0; k < 3; k++) {
			dV[k] = x0->v[3 * c + k] - vp[k] - t[k];
			dV[3 + k] = omc[k] - omp[k];
		}
		double G[36], L[36], g[6];
		for (int a = 0; a < n; a++) {
			g[a] = 0.0;
			for (int k = 0; k < 6; k++)
				g[a] += W->S[6 * a + k] * dV[k];
			for (int b = 0; b < n; b++) {
				double sm = 0.0;
				for (int k = 0; k < 6; k++)
					sm += W->S[6 * a + k] * W->S[6 * b + k];
				G[n * a + b] = sm;
			}
		}
		if (chol(n, G, L))
			return tree_fail(T, ODE_SINGULAR, "joint '%s': its motion subspace is singular at "
				    "the start", tree_node_name(T, J));
		chol_solve(n, L, g);
		memcpy(yd + J->q0, g, (size_t)n * sizeof(double));
	}
	memcpy(T->x.lam, x0->lam, (size_t)T->s->nc * sizeof(double));
	return ODE_OK;
}

/* The driven coordinates' sign and turns from the start's projection
 * (tree.h's coordinate against ra's, joint_coordinate in model.c).  With
 * P the parent marker and body2 the child, P is marker 1 and both
 * measure the same (sig = 1).  With body1 the child, P is marker 2, and
 * ra's angle of x_2 about z_1 (or slide of o_2 - o_1 along z_1) is, in
 * the joint's R = Rz(a) C (d = s e_z): z_1 = R_P C e_z = C_33 R_P e_z,
 * so the angle is -C_33 a and the slide -C_33 s (C_33 = +-1): sig =
 * -C_33.  A rotation's kap is the whole turns between the projected
 * angle and the driver's. */
static void drv_start(struct tree *T, double t, const double *Y)
{
	const struct model *m = T->s->m;
	for (int k = 0; k < T->ndv; k++) {
		struct tdrv *D = &T->dv[k];
		const struct tnode *J = &T->nd[D->node];
		const struct driver *dv = &m->drivers[J->drv[D->a]];
		const struct joint *jt = &m->joints[J->joint];
		double f[3];
		D->sig = jt->body[1] == J->body ? 1.0 : -T->geo[D->node].C[8];
		D->kap = 0.0;
		if (dv->kind == DRIVER_ROTATION) {
			func_eval(&dv->f, t, f);
			double g = D->sig * (f[0] + dv->offset);
			D->kap = 2.0 * M_PI * floor((Y[D->q] - g) / (2.0 * M_PI) + 0.5);
		}
	}
}

static int tree_start(void *ctx, const struct ra_state *x0, double *y, double *yd, double *ydd)
{
	struct tree *T = ctx;
	int st = start_full(T, x0, T->Yf, T->Ydf);
	if (st)
		return st;
	if (T->ndv) {
		drv_start(T, x0->t, T->Yf);
		drv_eval(T, x0->t, T->Yf, T->Ydf);
	}
	gather(T, T->Yf, y);
	gather(T, T->Ydf, yd);
	T->ode.n = T->ns;
	return tree_rhs(T, x0->t, y, yd, ydd);
}

/* ---- body states and multipliers ---- */

/* The multipliers of joint J's rows whose constraint force on the child,
 * -Phi_q,c^T lam, is the wrench lam_c of the recursion: (Jc Jc^T) lam =
 * Jc g, g = -(F, A^T N) in ra's generalized coordinates (force global,
 * torque in the body frame).  Needs ra_eval(.., PRIM_JAC) at T->x. */
static void joint_lambda(struct tree *T, int i)
{
	const struct tnode *J = &T->nd[i];
	const struct ra *s = T->s;
	const struct joint *jt = &s->m->joints[J->joint];
	int nr = jt->nrows, c = J->body;
	double g[6], G[36] = { 0 }, L[36] = { 0 }, rhs[6];
	const double *Jc[MODEL_JOINT_ROWS_MAX];
	int row[MODEL_JOINT_ROWS_MAX];
	const double *wl = T->lam + 6 * (size_t)i;
	v3_scale(g, -1.0, wl);
	m3_tmulv(g + 3, T->x.A + 9 * c, wl + 3);
	v3_scale(g + 3, -1.0, g + 3);
	for (int k = 0; k < nr; k++)
		row[k] = jt->row0 + k;
	/* a driver's row takes its share too: the joint's rows and the
	 * drivers' are the joint's wrench (a revolute's 5 and 1: all 6) */
	for (int a = 0; a < J->n; a++)
		if (J->drv[a] >= 0 && nr < MODEL_JOINT_ROWS_MAX)
			row[nr++] = s->m->drivers[J->drv[a]].row0;
	for (int k = 0; k < nr; k++)
		Jc[k] = s->jac + s->jo[row[k]] + (s->bj[row[k]] == c ? 6 : 0);
	double tr = 0.0;
	for (int a = 0; a < nr; a++) {
		rhs[a] = 0.0;
		for (int k = 0; k < 6; k++)
			rhs[a] += Jc[a][k] * g[k];
		for (int b = 0; b < nr; b++) {
			double sm = 0.0;
			for (int k = 0; k < 6; k++)
				sm += Jc[a][k] * Jc[b][k];
			G[nr * a + b] = sm;
		}
		tr += G[nr * a + a];
	}
	if (chol(nr, G, L)) {
		/* dependent rows (not at a regular pose of a supported joint):
		 * a touch of regularization gives the least-norm answer */
		for (int a = 0; a < nr; a++)
			G[nr * a + a] += 1e-12 * tr;
		if (chol(nr, G, L)) {
			for (int k = 0; k < nr; k++)
				T->x.lam[row[k]] = 0.0;
			return;
		}
	}
	chol_solve(nr, L, rhs);
	for (int k = 0; k < nr; k++)
		T->x.lam[row[k]] = rhs[k];
}

static void tree_bodies(void *ctx, struct ra_state *x)
{
	struct tree *T = ctx;
	struct ra *s = T->s;
	double t = x->t;
	T->x.t = t;
	for (int i = 0; i < T->nb; i++) {
		int b = T->nd[i].body;
		const double *acc = tw(T, i).acc;
		v3_copy(T->x.a + 3 * b, acc);
		m3_tmulv(T->x.wd + 3 * b, T->x.A + 9 * b, acc + 3);
	}
	if (s->m->njoints > 0) {
		tree_joint_wrenches(T);
		ra_eval(s, &T->x, t, PRIM_JAC);
		for (int i = 0; i < T->nb; i++)
			if (T->nd[i].joint >= 0)
				joint_lambda(T, i);
	}
	ra_state_copy(s, x, &T->x);
	x->t = t;
}

static const struct ra_state *tree_state(void *ctx)
{
	return &((struct tree *)ctx)->x;
}

static long tree_renewals(void *ctx)
{
	return tree_rebases(ctx);
}

static const char *tree_why(void *ctx)
{
	return ((struct tree *)ctx)->why;
}

/* The ODE entries of a new tree (tree_new) */
void tree_ode_init(struct tree *T)
{
	T->ode.n = T->ns;
	T->ode.ctx = T;
	T->ode.rhs = tree_rhs;
	T->ode.accept = tree_accept;
	T->ode.want_new = tree_want_new;
	T->ode.renew = NULL;
	T->ode.start = tree_start;
	T->ode.bodies = tree_bodies;
	T->ode.state = tree_state;
	T->ode.why = tree_why;
	T->ode.renewals = tree_renewals;
	T->ode.resid = tree_resid;
	T->ode.massless = tree_massless;
	T->ode.vel_map = tree_vel_map;
}
