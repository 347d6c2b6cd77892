/* elem_tire.c - tyre contact: a unilateral vertical spring-damper from a
 * wheel centre on one body to the road z = h(x, y) below it, h an
 * expression of x and y (sexpr.h SX_ROAD_X/Y; none: the plane z = 0), its
 * slope and curvature by differences of that expression; and the road
 * look-ahead that keeps adaptive steps from jumping onto a feature of the
 * road (the step_limit operation) (elem.h). */
#include "elem.h"
#include "../deck/force.h"
#include "../form/ra_force_impl.h"
#include "../model/sexpr.h"

#include <float.h>
#include <math.h>

static void tire_build(struct bctx *b, struct fread *fr)
{
	struct tire_par *P = fread_par(fr);
	force_loaded_body(b, fr);
	force_attach(b, fr, 0, "point", "at", 0);
	force_positive(b, fr, "radius", &P->radius);
	force_positive(b, fr, "stiffness", &P->k);
	force_opt_nonneg(b, fr, "damping", &P->c);
	const struct dnode *v = dn_get(fr->item, "road");
	if (v)
		fr->bad |= build_road(b, v, "road", fr->what, &fr->f.ex) < 0;
	/* road look-ahead of adaptive steps (ra.h ra_road_ahead): sample
	 * spacing radius / 100 and tolerance 1e-4 m unless given */
	P->spacing = P->radius / 100.0;
	P->tol = 1e-4;
	force_opt_nonneg(b, fr, "lookahead", &P->spacing);
	if (dn_get(fr->item, "lookahead_tolerance"))
		force_positive(b, fr, "lookahead_tolerance", &P->tol);
	force_particle_end(b, fr, 0, "point", "at");
}

/* Whether the road varies with place (its expression names x or y;
 * without one, or naming only parameters, it is a level plane). */
static int road_varies(const struct force *f)
{
	return f->ex != NULL && sexpr_has_state(f->ex);
}

static int tire_looks_ahead(const struct force *f)
{
	return ((const struct tire_par *)f->par)->spacing > 0.0 && road_varies(f);
}

/* Tyre kinematics: the wheel centre p and its velocity pv (global), the
 * road height h below it and its slope (hx, hy), the penetration
 * d = h + radius - z and its rate dd = hx vx + hy vy - vz. */
struct tire_kin {
	double p[3], pv[3], h, hx, hy, d, dd;
};

/* Normal force: k d + c d' in contact (d > 0), not below 0 (the road
 * pushes, never pulls: a wheel leaving faster than the damper lets the
 * spring extend is free), 0 off the road; NaN when the road is (a road
 * expression outside its domain), so that the run fails there instead of
 * losing the contact silently. */
static double tire_normal(const struct tire_par *P, const struct tire_kin *k)
{
	if (isnan(k->d) || isnan(k->dd))
		return NAN;
	if (!(k->d > 0.0))
		return 0.0;
	double n = P->k * k->d + P->c * k->dd;
	return n > 0.0 ? n : 0.0;
}

/* Spring energy: k d^2 / 2 in contact, else 0. */
static double tire_energy_of(const struct tire_par *P, const struct tire_kin *k)
{
	return k->d > 0.0 ? 0.5 * P->k * k->d * k->d : 0.0;
}

/* Road height h(x, y) of tire f (the plane z = 0 without a road). */
static double road_height(const struct force *f, double px, double py)
{
	if (!f->ex)
		return 0.0;
	for (int i = 0; i < f->ex->nv; i++) {
		struct sx_var *v = &f->ex->v[i];
		if (v->kind == SX_ROAD_X)
			v->val = px;
		else if (v->kind == SX_ROAD_Y)
			v->val = py;
	}
	return sexpr_value(f->ex);
}

/* The slope by central differences of the road expression with step
 * cbrt(DBL_EPSILON) max(1, |coordinate|) (about 6e-6 m near the origin:
 * truncation error h''' step^2 / 6, round-off DBL_EPSILON |h| / step; the
 * mean slope across a kink of the road). */
static double road_slope(const struct force *f, const double *p, int c)
{
	const double step = cbrt(DBL_EPSILON) * fmax(1.0, fabs(p[c]));
	double a[2] = { p[0], p[1] }, b[2] = { p[0], p[1] };
	a[c] += step;
	b[c] -= step;
	return (road_height(f, a[0], a[1]) - road_height(f, b[0], b[1])) / (2.0 * step);
}

static void tire_kin(const struct ra_state *x, const struct force *f, struct tire_kin *k)
{
	const struct tire_par *P = f->par;
	struct bstate bs;
	ra_bstate(x, f->body[0], &bs);
	point_kin(&bs, f->s[0], k->p, k->pv);
	k->h = road_height(f, k->p[0], k->p[1]);
	k->hx = k->hy = 0.0;
	if (road_varies(f)) {
		k->hx = road_slope(f, k->p, 0);
		k->hy = road_slope(f, k->p, 1);
	}
	k->d = k->h + P->radius - k->p[2];
	k->dd = k->hx * k->pv[0] + k->hy * k->pv[1] - k->pv[2];
}

/* ---- road look-ahead (adaptive steps) ---- */

/* Samples of the road a wheel may scan in one look-ahead: beyond them the
 * step is cut to the length scanned (32768 spacings, e.g. 150 m at the
 * default spacing of a 0.467 m wheel). */
enum { AHEAD_MAX = 32768 };

/* The road h at distance s along the unit direction u from p. */
static double road_along(const struct force *f, const double *p, const double *u, double s)
{
	return road_height(f, p[0] + s * u[0], p[1] + s * u[1]);
}

/* Whether the road at distance s departs by more than tol from the curve
 * z = h0 + m s + k s^2 (NaN, a road outside its domain, counts as
 * departing). */
static int departs(const struct force *f, const double *p, const double *u, double s,
		   double h0, double m, double k, double tol)
{
	return !(fabs(road_along(f, p, u, s) - (h0 + (m + k * s) * s)) <= tol);
}

/* Spacings a step may travel while its tire is on a feature (below). */
enum { AHEAD_ON = 4 };

/* The longest time in which a wheel centre at horizontal speed v, its
 * horizontal acceleration at most acc, travels at most s: the root of
 * v t + acc t^2 = s (twice the travel a constant acc adds, a margin for
 * its change over the step). */
static double time_for(double s, double v, double acc)
{
	if (!(acc > 0.0))
		return s / v;
	return 2.0 * s / (v + sqrt(v * v + 4.0 * acc * s));
}

/* Look-ahead of one tire (ra.h ra_road_ahead): the spacing D and the
 * tolerance tol of its parameters.  The wheel centre at x moves horizontally at v
 * along u with a horizontal acceleration of at most acc (its body's
 * centroid's, plus (|w'| + |w|^2) |s| of the rotation, at x), so over a
 * step h it travels at most v h + acc h^2 (time_for), and it is taken to
 * travel along u.  The road behind it, at -2D, -D and 0, tells whether it
 * is on a feature: its second difference above tol (a radius of
 * curvature below D^2 / tol, 0.22 m at the defaults of a 0.467 m wheel,
 * or a kink or step within 2D).  On a feature the step may travel
 * AHEAD_ON spacings, so that its stages sample the feature's shape.  Off
 * one, the road is sampled every D ahead up to the step's longest travel
 * plus D, and the first departure by more than tol from the parabola
 * through the three points behind (so that a road of constant curvature
 * never departs), located by bisection to 1e-9 D, is the feature's entry
 * s*.  The step is cut to travel at most s* - D/2, landing short of it;
 * within 3D/2 of the entry, to travel at most D: the step that enters
 * the feature spans at most one spacing.  A scan stops after AHEAD_MAX
 * samples, and the step is then cut to what it covered. */
static double tire_ahead(const struct ra_state *x, const struct force *f, double h,
			 struct road_scan *c)
{
	const struct tire_par *P = f->par;
	const double D = P->spacing, tol = P->tol;
	if (!tire_looks_ahead(f))
		return h;
	struct bstate bs;
	double p[3], pv[3];
	ra_bstate(x, f->body[0], &bs);
	point_kin(&bs, f->s[0], p, pv);
	const double v = hypot(pv[0], pv[1]);
	if (!(v > 0.0) || !isfinite(v) || !(h > 0.0))
		return h;
	const double u[2] = { pv[0] / v, pv[1] / v };
	const double *a = x->a + 3 * f->body[0], *wd = x->wd + 3 * f->body[0];
	const double rs = v3_norm(f->s[0]);
	double acc = hypot(a[0], a[1]) + (v3_norm(wd) + v3_dot(bs.w, bs.w)) * rs;
	if (!isfinite(acc))
		acc = 0.0;
	const double reach = v * h + acc * h * h + D;	/* the farthest road a step may see */
	double lo = INFINITY;
	if (c->valid) {
		/* the last scan's line still under the wheel (its direction
		 * and place within D / 1000 over the length scanned, and both
		 * points behind it on the part found smooth): its result holds */
		double d0 = p[0] - c->p0[0], d1 = p[1] - c->p0[1];
		double sp = d0 * c->u[0] + d1 * c->u[1];
		if (sp >= 2.0 * D && fabs(d0 * c->u[1] - d1 * c->u[0]) <= 1e-3 * D &&
		    hypot(u[0] - c->u[0], u[1] - c->u[1]) * c->clear <= 1e-3 * D) {
			if (c->entry && c->clear - sp > 2.0 * D)
				lo = c->clear - sp;
			else if (!c->entry && sp + reach <= c->clear)
				return h;
		}
	}
	if (!isfinite(lo)) {
		c->valid = 0;
		const double h0 = road_along(f, p, u, 0.0), h1 = road_along(f, p, u, -D);
		const double h2 = road_along(f, p, u, -2.0 * D);
		const double dd = h0 - 2.0 * h1 + h2;
		if (!(fabs(dd) <= tol))
			return fmin(h, time_for(AHEAD_ON * D, v, acc));
		/* the parabola through -2D, -D, 0: h0 + m s + k s^2 */
		const double m = (3.0 * h0 - 4.0 * h1 + h2) / (2.0 * D), k = dd / (2.0 * D * D);
		double Jd = ceil(reach / D);
		int cut = Jd > AHEAD_MAX;
		long J = cut ? AHEAD_MAX : (long)Jd;
		long j = 1;
		while (j <= J && !departs(f, p, u, (double)j * D, h0, m, k, tol))
			j++;
		*c = (struct road_scan){ 1, { p[0], p[1] }, { u[0], u[1] }, (double)(j - 1) * D, 0 };
		if (j > J)
			return cut ? fmin(h, time_for((double)J * D, v, acc)) : h;
		double hi = (double)j * D;
		lo = (double)(j - 1) * D;
		while (hi - lo > 1e-9 * D) {
			double mid = 0.5 * (lo + hi);
			if (departs(f, p, u, mid, h0, m, k, tol))
				hi = mid;
			else
				lo = mid;
		}
		c->clear = lo;
		c->entry = 1;
	}
	if (lo <= 1.5 * D)
		return fmin(h, time_for(D, v, acc));
	return fmin(h, time_for(lo - 0.5 * D, v, acc));
}

static void tire_eval(const struct ra *s, const struct ra_state *x, double t,
		      const double *lam, int i, double *out, struct ra_fout *o)
{
	const struct force *f = &s->m->forces[i];
	const struct tire_par *P = f->par;
	struct tire_kin k;
	double G[3];
	tire_kin(x, f, &k);
	v3_set(G, 0.0, 0.0, tire_normal(P, &k));
	add_point_force(x, f->body[0], f->s[0], G, out);
	v3_copy(o->force, G);
	o->effort = G[2];
	o->deflection = k.d;
	o->rate = k.dd;
	o->energy = tire_energy_of(P, &k);
}

static void tire_bodies(const struct model *m, const struct force *f, int b[2])
{
	b[0] = f->body[0];
	b[1] = -1;
}

/* by central differences (ra_fd_blocks) */
static void tire_blocks(const struct ra *s, const struct ra_state *x, double t, int i,
			double cq, double cv, double *W)
{
	int b[2];
	tire_bodies(s->m, &s->m->forces[i], b);
	ra_fd_blocks(s, x, t, i, b, cq, cv, W);
}

/* Second differences of the road: h_xx, h_xy, h_yy at p, step
 * DBL_EPSILON^(1/4) max(1, |coordinate|) (~1.2e-4 m: truncation
 * h'''' step^2 / 12, round-off 4 eps |h| / step^2). */
static void road_curv(const struct force *f, const double *p, double H[3])
{
	double ex = pow(DBL_EPSILON, 0.25) * fmax(1.0, fabs(p[0]));
	double ey = pow(DBL_EPSILON, 0.25) * fmax(1.0, fabs(p[1]));
	double h0 = road_height(f, p[0], p[1]);
	H[0] = (road_height(f, p[0] + ex, p[1]) - 2.0 * h0 +
		road_height(f, p[0] - ex, p[1])) / (ex * ex);
	H[2] = (road_height(f, p[0], p[1] + ey) - 2.0 * h0 +
		road_height(f, p[0], p[1] - ey)) / (ey * ey);
	H[1] = (road_height(f, p[0] + ex, p[1] + ey) - road_height(f, p[0] + ex, p[1] - ey) -
		road_height(f, p[0] - ex, p[1] + ey) +
		road_height(f, p[0] - ex, p[1] - ey)) / (4.0 * ex * ey);
}

static int tire_has_lin(const struct force *f)
{
	return 1;
}

static int tire_lin(const struct ra *s, const struct ra_state *x, double t, int i,
		    double *K, double *C)
{
	const struct force *f = &s->m->forces[i];
	const struct tire_par *P = f->par;
	/* tire: N = k d + c d' in contact, d = h(p) + R - p_z,
	 * d' = h_x pv_x + h_y pv_y - pv_z (tire_kin) */
	struct tire_kin k;
	struct bstate bs;
	tire_kin(x, f, &k);
	ra_bstate(x, f->body[0], &bs);
	double N = tire_normal(P, &k);
	if (!(N > 0.0) || f->body[0] < 0)
		return isnan(N) ? -1 : 0;
	/* the contact point's derivatives: Dp of p in z, Dv of pv in z; pv's
	 * in zdot is Dp (as for the TSDA, elem_tsda.c) */
	double Dp[36] = { 0 }, Dv[36] = { 0 }, wc[3], hc[3] = { 0, 0, 0 };
	v3_cross(wc, bs.w, f->s[0]);
	ra_jcols(Dp, 0, 1, bs.A, f->s[0], 1.0);
	ra_jcols(Dv, 0, 0, bs.A, wc, 1.0);
	if (road_varies(f))
		road_curv(f, k.p, hc);
	double cx = hc[0] * k.pv[0] + hc[1] * k.pv[1], cy = hc[1] * k.pv[0] + hc[2] * k.pv[1];
	double dG[36] = { 0 }, dGd[36] = { 0 }, G[3] = { 0, 0, N };
	for (int q = 0; q < 12; q++) {
		double dd = k.hx * Dp[q] + k.hy * Dp[12 + q] - Dp[24 + q];
		double ddz = cx * Dp[q] + cy * Dp[12 + q] + k.hx * Dv[q] + k.hy * Dv[12 + q] -
			     Dv[24 + q];
		double ddd = k.hx * Dp[q] + k.hy * Dp[12 + q] - Dp[24 + q];
		dG[24 + q] = P->k * dd + P->c * ddz;
		dGd[24 + q] = P->c * ddd;
	}
	ra_point_force_lin(K, 0, bs.A, f->s[0], G, dG, 1);
	ra_point_force_lin(C, 0, bs.A, f->s[0], G, dGd, 0);
	return 0;
}

static void tire_energy(const struct ra *s, const struct ra_state *x, int i, double *V)
{
	const struct force *f = &s->m->forces[i];
	struct tire_kin k;
	tire_kin(x, f, &k);
	*V += tire_energy_of(f->par, &k);
}

/* its power less what the spring energy k d^2/2 gives up, -k d d': the
 * damper's work, and on a sloped road the spring's too (a vertical force
 * k d(x, y, z) has no potential unless h is constant) */
static void tire_ncpower(struct ra *s, const struct ra_state *x, int i, double *Pw)
{
	const struct tire_par *P = s->m->forces[i].par;
	struct ra_fout o;
	ra_force_out(s, x, x->t, i, &o);
	*Pw += o.power;
	if (o.deflection > 0.0)
		*Pw += P->k * o.deflection * o.rate;
}

static unsigned tire_props(const struct force *f)
{
	const struct tire_par *P = f->par;
	return (P->c != 0.0 || f->has_act || f->ex ? ELEM_NC : 0u) |
	       (f->has_act || f->ex ? ELEM_NO_POTENTIAL : 0u) | (f->has_act ? ELEM_OF_TIME : 0u);
}

static void tire_units(const struct model *m, const struct force *f, const char *u[3])
{
	u[0] = "m", u[1] = "m/s", u[2] = "N";
}

const struct elem_ops elem_tire = {
	.par_size = sizeof(struct tire_par),
	.build = tire_build,
	.props = tire_props,
	.bodies = tire_bodies,
	.eval = tire_eval,
	.blocks = tire_blocks,
	.has_lin = tire_has_lin,
	.lin = tire_lin,
	.energy = tire_energy,
	.ncpower = tire_ncpower,
	.step_limit = tire_ahead,
	.looks_ahead = tire_looks_ahead,
	.units = tire_units,
};
