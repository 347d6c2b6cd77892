/* ra_force_jac.c - Jacobians of the force elements of the ra formulation
 * (ra.h): the body-diagonal blocks of the Newton matrices
 * (ra_force_blocks) and the full Jacobians of an element's generalized
 * forces for the analytic integration Jacobians (ra_force_lin). */
#include "ra_force_impl.h"

#include <float.h>
#include <math.h>
#include <string.h>

/* ---- Jacobian blocks ---- */

/* Elements whose blocks come from finite differences: every element with
 * a state expression, the RSDA, the motor, the bushing and the tire. */
static int fd_element(const struct force *f)
{
	if (f->type == FORCE_RSDA)
		return f->k != 0.0 || f->c != 0.0 || f->ex != NULL;
	if (f->type == FORCE_POINT || f->type == FORCE_TORQUE || f->type == FORCE_TSDA)
		return f->ex != NULL && sexpr_has_state(f->ex);
	return f->type == FORCE_MOTOR || f->type == FORCE_BUSHING || f->type == FORCE_TIRE;
}

/* Central differences of element i's force on body b[e] with respect to
 * that body's own r, theta (A <- A exp(theta~)), v and w: step
 * cbrt(DBL_EPSILON) max(1, |value|) (about 6e-6; error O(step^2), some
 * 1e-11 relative); W[18 b + ...] += cq K + cv C with K = -dF/d(r, theta),
 * C = -dF/d(v, w), translational and rotational 3x3 blocks. */
static void fd_blocks(const struct ra *s, const struct ra_state *xc, double t, int i,
		      const int b[2], double cq, double cv, double *W)
{
	struct ra_state *x = (struct ra_state *)xc;	/* perturbed and restored */
	const double eps = cbrt(DBL_EPSILON);
	for (int e = 0; e < 2; e++) {
		int bb = b[e];
		if (bb < 0)
			continue;
		double *r = x->r + 3 * bb, *v = x->v + 3 * bb, *w = x->w + 3 * bb;
		double *A = x->A + 9 * bb, A0[9];
		memcpy(A0, A, sizeof A0);
		for (int kind = 0; kind < 4; kind++)
			for (int c = 0; c < 3; c++) {
				double *p = kind == 0 ? r + c : kind == 2 ? v + c : kind == 3 ? w + c : NULL;
				double save = p ? *p : 0.0, hstep = eps * fmax(1.0, fabs(save));
				double op[12], om[12];
				for (int sgn = 0; sgn < 2; sgn++) {
					double dd = sgn ? -hstep : hstep;
					if (p) {
						*p = save + dd;
					} else {
						double th[3] = { 0, 0, 0 }, R[9];
						th[c] = dd;
						so3_exp(R, th);
						m3_mul(A, A0, R);
					}
					ra_elem_eval(s, x, t, x->lam, i, sgn ? om : op, NULL);
					if (p)
						*p = save;
					else
						memcpy(A, A0, sizeof A0);
				}
				double coef = (kind < 2 ? cq : cv) / (2.0 * hstep);
				int blk = kind == 0 || kind == 2 ? 0 : 9;
				int row0 = kind == 0 || kind == 2 ? 0 : 3;
				for (int rr = 0; rr < 3; rr++)
					W[18 * bb + blk + 3 * rr + c] -=
						coef * (op[6 * e + row0 + rr] - om[6 * e + row0 + rr]);
			}
	}
}

void ra_force_blocks(const struct ra *s, const struct ra_state *x, double t,
		     double cq, double cv, double *W)
{
	const struct model *m = s->m;
	for (int i = 0; i < m->nforces; i++) {
		const struct force *f = &m->forces[i];
		if (fd_element(f)) {
			int b[2];
			ra_elem_bodies(m, f, b);
			fd_blocks(s, x, t, i, b, cq, cv, W);
			continue;
		}
		/* an actuator alone still turns its force with u: (mag / l) term */
		if (f->type != FORCE_TSDA || (f->k == 0.0 && f->c == 0.0 && !f->has_act && !f->ex))
			continue;
		struct tsda_kin k;
		ra_tsda_kin(x, f, &k);
		double mag = ra_tsda_mag(s, x, t, f, &k);
		double g = k.l > 0 ? mag / k.l : f->k, B[9];	/* l -> 0: f = -k d */
		/* d(-mag u)/d p_j = -(k + c d/dt) u u^T - (mag / l) (I - u u^T) */
		for (int r = 0; r < 3; r++)
			for (int c = 0; c < 3; c++) {
				double uu = k.u[r] * k.u[c];
				B[3 * r + c] = cq * (f->k * uu + g * ((r == c) - uu)) + cv * f->c * uu;
			}
		for (int e = 0; e < 2; e++) {
			int b = f->body[e];
			if (b < 0)
				continue;
			for (int q = 0; q < 9; q++)
				W[18 * b + q] += B[q];
		}
	}
}

/* ---- full Jacobians of force elements (analytic integration Jacobians,
 * seed 001 §3 eqs. 32, 35: the Q_q and Q_qdot of the state-space ODE) ---- */

/* M (3 x 12, row-major) += sign * [I (when r), -A c~] in the columns of
 * side e: d (r + A c) / d (r, theta), or without r d (A c) / d theta. */
static void jcols(double *M, int e, int with_r, const double *A, const double *c, double sign)
{
	double C[9], AC[9];
	m3_skew(C, c);
	m3_mul(AC, A, C);
	for (int a = 0; a < 3; a++) {
		if (with_r)
			M[12 * a + 6 * e + a] += sign;
		for (int k = 0; k < 3; k++)
			M[12 * a + 6 * e + 3 + k] -= sign * AC[3 * a + k];
	}
}

/* out rows (6 e .. 6 e + 5) of a force G (3 x 12 derivative dG, value G)
 * at body point c of side e: F = G, n = c x (A^T G); dn = c~ A^T dG, plus
 * c~ (A^T G)~ on the body's own theta (A^T <- exp(-theta~) A^T) when
 * with_theta. */
static void point_force_lin(double *K, int e, const double *A, const double *c,
			    const double *G, const double *dG, int with_theta)
{
	double Cs[9], At[9], CA[9];
	m3_skew(Cs, c);
	for (int a = 0; a < 3; a++)
		for (int b = 0; b < 3; b++)
			At[3 * a + b] = A[3 * b + a];
	m3_mul(CA, Cs, At);
	for (int a = 0; a < 3; a++)
		for (int k = 0; k < 12; k++) {
			K[12 * (6 * e + a) + k] += dG[12 * a + k];
			double s = 0.0;
			for (int b = 0; b < 3; b++)
				s += CA[3 * a + b] * dG[12 * b + k];
			K[12 * (6 * e + 3 + a) + k] += s;
		}
	if (!with_theta)
		return;
	double ag[3], AG[9], T[9];
	m3_tmulv(ag, A, G);
	m3_skew(AG, ag);
	m3_mul(T, Cs, AG);
	for (int a = 0; a < 3; a++)
		for (int b = 0; b < 3; b++)
			K[12 * (6 * e + 3 + a) + 6 * e + 3 + b] += T[3 * a + b];
}

/* Second differences of the road: h_xx, h_xy, h_yy at p, step
 * DBL_EPSILON^(1/4) max(1, |coordinate|) (~1.2e-4 m: truncation
 * h'''' step^2 / 12, round-off 4 eps |h| / step^2). */
static void road_curv(const struct force *f, const double *p, double H[3])
{
	double ex = pow(DBL_EPSILON, 0.25) * fmax(1.0, fabs(p[0]));
	double ey = pow(DBL_EPSILON, 0.25) * fmax(1.0, fabs(p[1]));
	double h0 = ra_road_height(f, p[0], p[1]);
	H[0] = (ra_road_height(f, p[0] + ex, p[1]) - 2.0 * h0 +
		ra_road_height(f, p[0] - ex, p[1])) / (ex * ex);
	H[2] = (ra_road_height(f, p[0], p[1] + ey) - 2.0 * h0 +
		ra_road_height(f, p[0], p[1] - ey)) / (ey * ey);
	H[1] = (ra_road_height(f, p[0] + ex, p[1] + ey) - ra_road_height(f, p[0] + ex, p[1] - ey) -
		ra_road_height(f, p[0] - ex, p[1] + ey) +
		ra_road_height(f, p[0] - ex, p[1] - ey)) / (4.0 * ex * ey);
}

int ra_force_has_lin(const struct force *f)
{
	if (f->type == FORCE_TSDA || f->type == FORCE_RSDA)
		return f->ex == NULL;
	if (f->type == FORCE_POINT || f->type == FORCE_TORQUE)	/* not on a link */
		return (f->ex == NULL || !sexpr_has_state(f->ex)) &&
		       !(f->type == FORCE_TORQUE && f->joint >= 0);
	return f->type == FORCE_TIRE;
}

/* RSDA (ra_joint_q, ra_elem_eval): phi = atan2(y0 . x1, x0 . x1) of the joint's
 * markers (x0, y0, z0 = A0 xb0, A0 yb0, A0 zb0; x1 = A1 xb1), rate =
 * z0 . (A1 w1) - zb0 . w0, mag = k e + c rate + act(t) (e: ra_rsda_def_of of phi); the
 * torque mag zb0 on body 0 (body frame) and -mag A1^T z0 on body 1. */
static void rsda_lin(const struct ra *s, const struct ra_state *x, double t,
		     const struct force *f, double *K, double *C)
{
	const struct joint *j = &s->m->joints[f->joint];
	struct bstate b0, b1;
	ra_bstate(x, j->body[0], &b0);
	ra_bstate(x, j->body[1], &b1);
	int g0 = j->body[0] < 0, g1 = j->body[1] < 0;
	double xb0[3] = { j->F[0][0], j->F[0][3], j->F[0][6] };
	double yb0[3] = { j->F[0][1], j->F[0][4], j->F[0][7] };
	double zb0[3] = { j->F[0][2], j->F[0][5], j->F[0][8] };
	double xb1[3] = { j->F[1][0], j->F[1][3], j->F[1][6] };
	double x0[3], y0[3], z0[3], x1[3], Aw1[3];
	m3_mulv(x0, b0.A, xb0);
	m3_mulv(y0, b0.A, yb0);
	m3_mulv(z0, b0.A, zb0);
	m3_mulv(x1, b1.A, xb1);
	m3_mulv(Aw1, b1.A, b1.w);
	double X = v3_dot(x0, x1), Y = v3_dot(y0, x1), rr = X * X + Y * Y;
	double rate = v3_dot(z0, Aw1) - v3_dot(zb0, b0.w);
	double e = ra_rsda_def_of(s, (int)(f - s->m->forces), atan2(Y, X));
	double mag = f->k * e + f->c * rate + act(f, t);
	/* d/dtheta of A c . u for fixed u: -(A c~)^T u = c x (A^T u) */
	double gX[12] = { 0 }, gY[12] = { 0 }, gR[12] = { 0 }, gRd[12] = { 0 }, u[3], v[3];
	if (!g0) {
		m3_tmulv(u, b0.A, x1);
		v3_cross(v, xb0, u);
		v3_copy(gX + 3, v);
		v3_cross(v, yb0, u);
		v3_copy(gY + 3, v);
		m3_tmulv(u, b0.A, Aw1);
		v3_cross(v, zb0, u);
		v3_copy(gR + 3, v);
		v3_scale(gRd + 3, -1.0, zb0);
	}
	if (!g1) {
		m3_tmulv(u, b1.A, x0);
		v3_cross(v, xb1, u);
		v3_copy(gX + 9, v);
		m3_tmulv(u, b1.A, y0);
		v3_cross(v, xb1, u);
		v3_copy(gY + 9, v);
		m3_tmulv(u, b1.A, z0);	/* z0 . A1 w1 = (A1^T z0) . w1 */
		v3_cross(v, b1.w, u);	/* d/dtheta1: w1 x (A1^T z0) */
		v3_copy(gR + 9, v);
		v3_copy(gRd + 9, u);
	}
	double gm[12], gmd[12];
	for (int q = 0; q < 12; q++) {
		double dphi = rr > 0 ? (X * gY[q] - Y * gX[q]) / rr : 0.0;
		gm[q] = f->k * dphi + f->c * gR[q];
		gmd[q] = f->c * gRd[q];
	}
	/* body 0: zb0 mag; body 1: -mag A1^T z0 */
	double z1[3];
	m3_tmulv(z1, b1.A, z0);
	for (int a = 0; a < 3; a++)
		for (int q = 0; q < 12; q++) {
			if (!g0) {
				K[12 * (3 + a) + q] += zb0[a] * gm[q];
				C[12 * (3 + a) + q] += zb0[a] * gmd[q];
			}
			if (!g1) {
				K[12 * (9 + a) + q] -= z1[a] * gm[q];
				C[12 * (9 + a) + q] -= z1[a] * gmd[q];
			}
		}
	if (g1)
		return;
	/* -mag d(A1^T z0) = -mag [(A1^T z0)~ dtheta1 - A1^T A0 zb0~ dtheta0] */
	double Z1[9];
	m3_skew(Z1, z1);
	for (int a = 0; a < 3; a++)
		for (int b = 0; b < 3; b++)
			K[12 * (9 + a) + 9 + b] -= mag * Z1[3 * a + b];
	if (g0)
		return;
	double Zb[9], AZ[9], T[9];
	m3_skew(Zb, zb0);
	m3_mul(AZ, b0.A, Zb);
	m3_tmul(T, b1.A, AZ);
	for (int a = 0; a < 3; a++)
		for (int b = 0; b < 3; b++)
			K[12 * (9 + a) + 3 + b] += mag * T[3 * a + b];
}

int ra_force_lin(const struct ra *s, const struct ra_state *x, double t, int i, int b[2],
		 double *K, double *C)
{
	const struct model *m = s->m;
	const struct force *f = &m->forces[i];
	memset(K, 0, 144 * sizeof(double));
	memset(C, 0, 144 * sizeof(double));
	ra_elem_bodies(m, f, b);
	if (!ra_force_has_lin(f))
		return -1;
	if (f->type == FORCE_RSDA) {
		if (m->joints[f->joint].type == JOINT_TRANSLATIONAL)
			return -1;
		rsda_lin(s, x, t, f, K, C);
		return 0;
	}
	if (f->type == FORCE_POINT || f->type == FORCE_TORQUE) {
		/* G = g(t) vec, global or A vec (body frame): a global G turns
		 * in the body frame, A^T G <- exp(-theta~) A^T G; a body-frame
		 * G turns in the global frame, A vec <- A exp(theta~) vec */
		int b0 = f->body[0];
		if (b0 < 0)
			return 0;
		double g = f->ex ? ra_expr_of(s, x, t, f, 0.0, 0.0) : act(f, t), vb[3], G[3];
		const double *A = x->A + 9 * b0;
		v3_scale(vb, g, f->vec);
		if (f->body_frame)
			m3_mulv(G, A, vb);
		else
			v3_copy(G, vb);
		double dG[36] = { 0 };
		if (f->body_frame)
			jcols(dG, 0, 0, A, vb, 1.0);	/* d (A vb) / d theta */
		if (f->type == FORCE_POINT) {
			point_force_lin(K, 0, A, f->s[0], G, dG, 1);
			return 0;
		}
		/* torque: body frame A^T G; d = (A^T G)~ dtheta for a global G,
		 * 0 for a body-frame one (A^T A vb = vb) */
		if (!f->body_frame) {
			double ag[3], AG[9];
			m3_tmulv(ag, A, G);
			m3_skew(AG, ag);
			for (int a = 0; a < 3; a++)
				for (int c = 0; c < 3; c++)
					K[12 * (3 + a) + 3 + c] += AG[3 * a + c];
		}
		return 0;
	}
	if (f->type == FORCE_TSDA) {
		struct bstate bs[2];
		struct tsda_kin k;
		ra_bstate(x, f->body[0], &bs[0]);
		ra_bstate(x, f->body[1], &bs[1]);
		ra_tsda_kin(x, f, &k);
		if (!(k.l > 0.0))
			return -1;
		double mag = ra_tsda_mag(s, x, t, f, &k);
		/* d = p1 - p0, dv = pv1 - pv0: derivatives in z (Dd, Dv) and
		 * zdot; pv = v + A (w x s) has d pv / d(v, w) = (I, -A s~) = d p /
		 * d(r, theta), so dv's derivative in zdot is Dd */
		double Dd[36] = { 0 }, Dv[36] = { 0 }, dv[3];
		for (int e = 0; e < 2; e++) {
			if (f->body[e] < 0)
				continue;
			double sg = e ? 1.0 : -1.0, wc[3];
			v3_cross(wc, bs[e].w, f->s[e]);
			jcols(Dd, e, 1, bs[e].A, f->s[e], sg);
			jcols(Dv, e, 0, bs[e].A, wc, sg);
		}
		{
			double p0[3], v0[3], p1[3], v1[3];
			point_kin(&bs[0], f->s[0], p0, v0);
			point_kin(&bs[1], f->s[1], p1, v1);
			v3_sub(dv, v1, v0);
		}
		/* P = (I - u u^T) / l: du = P dd; dl = u . dd;
		 * d ld = dv . du + u . d dv */
		double P[9], gz[12], gd[12], dG[36], dGd[36];
		for (int a = 0; a < 3; a++)
			for (int c = 0; c < 3; c++)
				P[3 * a + c] = ((a == c) - k.u[a] * k.u[c]) / k.l;
		double Pdv[3];
		m3_mulv(Pdv, P, dv);
		for (int q = 0; q < 12; q++) {
			double dl = 0.0, dld = 0.0, dldd = 0.0;
			for (int a = 0; a < 3; a++) {
				dl += k.u[a] * Dd[12 * a + q];
				dld += Pdv[a] * Dd[12 * a + q] + k.u[a] * Dv[12 * a + q];
				dldd += k.u[a] * Dd[12 * a + q];
			}
			gz[q] = f->k * dl + f->c * dld;
			gd[q] = f->c * dldd;
		}
		/* force on body 0: G = mag u; dG = u dmag + mag P dd */
		for (int a = 0; a < 3; a++)
			for (int q = 0; q < 12; q++) {
				double pd = 0.0;
				for (int c = 0; c < 3; c++)
					pd += P[3 * a + c] * Dd[12 * c + q];
				dG[12 * a + q] = k.u[a] * gz[q] + mag * pd;
				dGd[12 * a + q] = k.u[a] * gd[q];
			}
		double G[3];
		v3_scale(G, mag, k.u);
		for (int e = 0; e < 2; e++) {
			if (f->body[e] < 0)
				continue;
			if (e == 1) {
				v3_scale(G, -1.0, G);
				for (int q = 0; q < 36; q++) {
					dG[q] = -dG[q];
					dGd[q] = -dGd[q];
				}
			}
			point_force_lin(K, e, bs[e].A, f->s[e], G, dG, 1);
			point_force_lin(C, e, bs[e].A, f->s[e], G, dGd, 0);
		}
		return 0;
	}
	/* tire: N = k d + c d' in contact, d = h(p) + R - p_z,
	 * d' = h_x pv_x + h_y pv_y - pv_z (ra_tire_kin) */
	struct tire_kin k;
	struct bstate bs;
	ra_tire_kin(x, f, &k);
	ra_bstate(x, f->body[0], &bs);
	double N = tire_normal(f, &k);
	if (!(N > 0.0) || f->body[0] < 0)
		return isnan(N) ? -1 : 0;
	/* the contact point's derivatives: Dp of p in z, Dv of pv in z; pv's
	 * in zdot is Dp (as for the TSDA above) */
	double Dp[36] = { 0 }, Dv[36] = { 0 }, wc[3], hc[3] = { 0, 0, 0 };
	v3_cross(wc, bs.w, f->s[0]);
	jcols(Dp, 0, 1, bs.A, f->s[0], 1.0);
	jcols(Dv, 0, 0, bs.A, wc, 1.0);
	if (ra_road_varies(f))
		road_curv(f, k.p, hc);
	double cx = hc[0] * k.pv[0] + hc[1] * k.pv[1], cy = hc[1] * k.pv[0] + hc[2] * k.pv[1];
	double dG[36] = { 0 }, dGd[36] = { 0 }, G[3] = { 0, 0, N };
	for (int q = 0; q < 12; q++) {
		double dd = k.hx * Dp[q] + k.hy * Dp[12 + q] - Dp[24 + q];
		double ddz = cx * Dp[q] + cy * Dp[12 + q] + k.hx * Dv[q] + k.hy * Dv[12 + q] -
			     Dv[24 + q];
		double ddd = k.hx * Dp[q] + k.hy * Dp[12 + q] - Dp[24 + q];
		dG[24 + q] = f->k * dd + f->c * ddz;
		dGd[24 + q] = f->c * ddd;
	}
	point_force_lin(K, 0, bs.A, f->s[0], G, dG, 1);
	point_force_lin(C, 0, bs.A, f->s[0], G, dGd, 0);
	return 0;
}
