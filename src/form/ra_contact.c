/* ra_contact.c - the smooth (compliant) contact model of the ra
 * formulation (issue 32): the contacts of src/contact/ at a state turned
 * into forces on the bodies, like the beams a family over many bodies
 * rather than a two-body element of elem/ (its pairs come and go).
 *
 * Normal force, per contact of penetration d = -gap > 0 and rate d':
 *   F_n = max(0, K d^n (1 + chi d'))
 * with K the pair's stiffness (the sides in series; a Hertz side
 * 4/3 E/(1 - nu^2) sqrt(R*)), n the exponent, and the damping chi =
 * c(e) / v with c of the damping form (model/contact.c):
 *   exact                c with the impact's restitution e exactly
 *   hunt_crossley        c = 3 (1 - e) / 2        (Hunt, Crossley 1975)
 *   lankarani_nikravesh  c = 3 (1 - e^2) / 4      (Lankarani, Nikravesh 1990)
 *   flores               c = 8 (1 - e) / (5 e)    (Flores et al. 2011)
 * and v the approach speed v0 at the contact's onset, or, when larger,
 * the speed v_d at which an impact of the pair's masses would reach the
 * present penetration (K d^(n+1) / (n + 1) = M v_d^2 / 2): an impact is
 * damped from its onset speed (v_d stays below it), while a contact
 * that began slowly and was pressed deeper (a body settling, a load
 * coming on) is damped as an impact that fast, not c(e)/v0 with v0 -> 0
 * (its damping ratio then stays about c, which explicit schemes need
 * bounded).
 * Friction: an elastic-plastic stick state, a tangential spring s
 * anchored at the contact's material points, s grown by their relative
 * displacement since the last accepted state; F_t = -(k_t s + c_t v_t),
 * at most mu_s F_n, while stuck: until k_t |s| passes mu_s F_n; then
 * sliding, F_t of size mu_d F_n along it, the anchor pulled along at the
 * commit so the spring holds that limit, until |F_t| falls within it.  k_t is the
 * normal force's tangent stiffness n K d^(n-1) (Mindlin's tangential
 * stiffness is of that size), c_t damps it critically for the
 * contact point's effective mass (eff_mass).  The anchors, s, v0 and the stuck flag are kept per
 * contact (its sides, plane and feature) at ra_contact_commit. */
#include "ra_contact.h"
#include "ra_force_impl.h"
#include "../contact/contact.h"
#include "../model/contact.h"
#include "../util/xalloc.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* approach speeds below this are taken as it in chi = c(e) / v0: a
 * contact that starts at rest is damped as one that starts at 1 mm/s */
#define V0_FLOOR 1e-3

struct cstate {
	int a, b, plane, feat;
	double sa[3], sb[3];	/* anchors in a's and b's body frames */
	double s[3];		/* tangential spring, global */
	double v0;		/* approach speed at onset */
	int stuck;
};

struct ra_contact {
	struct contact_world *W;
	const struct model_contact *mc;
	struct cstate *st;	/* committed, sorted by key */
	size_t nst, stcap;
	struct cstate *nw;	/* being committed */
	size_t nwcap;
	struct ra_contact_out *out;	/* the evaluation at hand, per contact */
	size_t nout;
	/* the last two evaluations and the states (r, A, v, w of nb bodies)
	 * they were made at: a run asks for the forces at a state, then for
	 * their power, energy and output at it and at the state before
	 * (hi's lagged completion), detecting once a state */
	struct cslot {
		double *at;
		struct ra_contact_out *out;
		size_t nout, cap;
		unsigned long used;
		int valid;
	} slot[2];
	unsigned long tick;
	int nb;
	/* c(e) of the deck's damping form for each restitution its
	 * materials give (a pair's is one of them), sorted by e */
	double *ce, *cc;
	int nce;
};

static const struct cstate *find_state(const struct ra_contact *C, const struct contact_pt *c)
{
	size_t lo = 0, hi = C->nst;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		const struct cstate *x = C->st + mid;
		int k = contact_key_order(x->a, x->b, x->plane, x->feat, c);
		if (k == 0)
			return C->st + mid;
		if (k < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

static int cmp_double(const void *x, const void *y)
{
	double a = *(const double *)x, b = *(const double *)y;
	return (a > b) - (a < b);
}

/* C's table of c(e) over the restitutions of mc's materials (the exact
 * form's c is a root found once, not per contact and evaluation) */
static void damping_table(struct ra_contact *C, const struct model_contact *mc)
{
	int n = 0;
	C->ce = xmalloc(((size_t)mc->nmat + (size_t)mc->nplanes + 1) * sizeof(double));
	for (int i = 0; i < mc->nmat; i++)
		C->ce[n++] = mc->mat[i].e;
	for (int i = 0; i < mc->nplanes; i++)
		if (mc->planes[i].has_mat)
			C->ce[n++] = mc->planes[i].mat.e;
	C->ce[n++] = 0;	/* a pair without materials */
	qsort(C->ce, (size_t)n, sizeof(double), cmp_double);
	int k = 0;
	for (int i = 0; i < n; i++)
		if (k == 0 || C->ce[i] != C->ce[k - 1])
			C->ce[k++] = C->ce[i];
	C->nce = k;
	C->cc = xmalloc((size_t)k * sizeof(double));
	for (int i = 0; i < k; i++)
		C->cc[i] = contact_damping_coef(mc->damping, C->ce[i]);
}

static double damping_of(const struct ra_contact *C, double e)
{
	const double *p = bsearch(&e, C->ce, (size_t)C->nce, sizeof(double), cmp_double);
	return p ? C->cc[p - C->ce] : contact_damping_coef(C->mc->damping, e);
}

struct ra_contact *ra_contact_new(const struct model *m)
{
	if (!m->contact || m->contact->model != CONTACT_SMOOTH)
		return NULL;
	struct contact_world *W = contact_world_new(m);
	if (!W)
		return NULL;
	struct ra_contact *C = xcalloc(1, sizeof(*C));
	C->W = W;
	C->mc = m->contact;
	C->nb = m->nbodies;
	for (int k = 0; k < 2; k++)
		C->slot[k].at = xmalloc(18 * ((size_t)m->nbodies + 1) * sizeof(double));
	damping_table(C, m->contact);
	return C;
}

void ra_contact_free(struct ra_contact **C)
{
	if (!*C)
		return;
	contact_world_free(&(*C)->W);
	free((*C)->st);
	free((*C)->nw);
	free((*C)->ce);
	free((*C)->cc);
	for (int k = 0; k < 2; k++) {
		free((*C)->slot[k].out);
		free((*C)->slot[k].at);
	}
	free(*C);
	*C = NULL;
}

/* ---- a pair's parameters ---- */

struct cpar {
	double K, n, e, mu_s, mu_d, c;	/* c: c(e) of the damping form */
};

/* a side's stiffness: k, or Hertz's 4/3 E/(1 - nu^2) sqrt(R*); INFINITY: rigid */
static double side_k(const struct contact_mat *m, double R)
{
	if (!m || !(m->k > 0 || m->E > 0))
		return INFINITY;
	if (m->k > 0)
		return m->k;
	return 4.0 / 3.0 * m->E / (1 - m->nu * m->nu) * sqrt(R);
}

static void pair_par(const struct ra_contact *C, const struct contact_pt *c, struct cpar *p)
{
	const struct model_contact *mc = C->mc;
	const struct contact_mat *mb = contact_mat_of(mc, c->b), *ma;
	if (c->a < 0)
		ma = mc->planes[c->plane].has_mat ? &mc->planes[c->plane].mat : NULL;
	else
		ma = contact_mat_of(mc, c->a);
	double ka = side_k(ma, c->R), kb = side_k(mb, c->R);
	p->K = isinf(ka) ? kb : isinf(kb) ? ka : 1 / (1 / ka + 1 / kb);
	p->n = mb->exponent;
	contact_pair_coef(mc, c->a, c->plane, c->b, &p->mu_s, &p->mu_d, &p->e);
	p->c = damping_of(C, p->e);
}

/* ---- one contact ---- */

/* body b's point velocity at lever arm rr (global) */
static void point_vel(const struct ra_state *x, int b, const double *rr, double *v)
{
	if (b < 0) {
		v3_set(v, 0, 0, 0);
		return;
	}
	double wg[3], wr[3];
	m3_mulv(wg, x->A + 9 * b, x->w + 3 * b);
	v3_cross(wr, wg, rr);
	v3_add(v, x->v + 3 * b, wr);
}

/* global position of body b's point s (ground: s itself) */
static void body_point(const struct ra_state *x, int b, const double *s, double *p)
{
	if (b < 0) {
		v3_copy(p, s);
		return;
	}
	m3_mulv(p, x->A + 9 * b, s);
	v3_add(p, p, x->r + 3 * b);
}

/* the reverse: global p into body b's frame */
static void to_body(const struct ra_state *x, int b, const double *p, double *s)
{
	if (b < 0) {
		v3_copy(s, p);
		return;
	}
	double d[3];
	v3_sub(d, p, x->r + 3 * b);
	m3_tmulv(s, x->A + 9 * b, d);
}

/* A mass for the dampers' scale: the smallest effective mass of the
 * contact point over directions, 1/m_eff = sum over the sides of 1/m +
 * |rho|^2 / J_min (rho the lever arm, J_min the smallest diagonal
 * inertia), so that a damper on a corner of a light box does not exceed
 * critical in its rocking or twisting */
static double eff_mass(const struct ra *s, const struct contact_pt *c)
{
	double inv = 0;
	for (int e = 0; e < 2; e++) {
		int b = e ? c->b : c->a;
		if (b < 0)
			continue;
		const double *J = s->J + 9 * b, *rho = e ? c->rb : c->ra;
		double jm = fmin(J[0], fmin(J[4], J[8]));
		inv += 1 / s->mass[b] + (jm > 0 ? v3_dot(rho, rho) / jm : 0);
	}
	return 1 / inv;
}

/* The pair's reduced mass 1/(1/m_a + 1/m_b) (the ground infinite): the
 * most an impact's normal effective mass can be (lever arms lessen it) */
static double pair_mass(const struct ra *s, const struct contact_pt *c)
{
	return c->a < 0 ? s->mass[c->b] : 1 / (1 / s->mass[c->a] + 1 / s->mass[c->b]);
}

/* The force f (global, on side b; -f on side a) of contact c at x, with
 * what the commit and the output need in o; st its committed state or
 * NULL (a new contact). */
static void contact_force(const struct ra *s, const struct ra_state *x,
			  const struct ra_contact *C, const struct contact_pt *c,
			  const struct cstate *st, double f[3], struct ra_contact_out *o)
{
	struct cpar p;
	double va[3], vb[3], vr[3], vt[3];
	pair_par(C, c, &p);
	point_vel(x, c->a, c->ra, va);
	point_vel(x, c->b, c->rb, vb);
	v3_sub(vr, vb, va);
	double d = -c->gap, dd = -v3_dot(vr, c->n);
	v3_copy(vt, vr);
	v3_axpy(vt, dd, c->n);	/* vr - (vr . n) n */
	double v0 = st ? st->v0 : fmax(dd, V0_FLOOR), me = eff_mass(s, c);
	double Fel = p.K * pow(d, p.n), kn = p.n * Fel / d;
	/* the damping c(e) / v0 while d is within what an impact at v0
	 * reaches (v_d <= v0, K d^(n+1) / (n + 1) = M v_d^2 / 2); deeper,
	 * falling as (v0 / v_d)^4 to half of critical for me */
	double vd = sqrt(2 * Fel * d / ((p.n + 1) * pair_mass(s, c)));
	double chi = p.c / v0;
	if (vd > v0 && Fel > 0) {
		double r = v0 / vd;
		chi = fmin(chi, fmax(sqrt(kn * me) / Fel, chi * r * r * r * r));
	}
	/* the force >= 0: a damper that would pull the sides together as
	 * they part (d' < -1/chi) lets go instead */
	double Fn = fmax(0, Fel * (1 + chi * dd));
	/* the stick spring: the anchors' displacement since the commit */
	double sp[3] = { 0, 0, 0 };
	if (st) {
		double pa[3], pb[3];
		body_point(x, c->a, st->sa, pa);
		body_point(x, c->b, st->sb, pb);
		for (int k = 0; k < 3; k++)
			sp[k] = st->s[k] + pb[k] - pa[k];
	}
	v3_axpy(sp, -v3_dot(sp, c->n), c->n);
	double kt = kn, ct = 2 * sqrt(kt * me);	/* critical */
	/* A stuck contact whose spring passes the static limit is held at
	 * it (the anchor follows at the commit: partial slip at mu_s) and
	 * slides, at mu_d, only once its points move apart faster than v_s =
	 * mu_s F_n / sqrt(k_t me), the speed at which they would cross the
	 * spring's stick range in its period: of the corners of a block,
	 * the least loaded then pass their limit first and hold at it while
	 * the others take the rest, the block slipping only when all of them
	 * together cannot hold it (mu_s F_n summed), and a transient's
	 * overshoot does not break the stick.  A new contact sticks, and a
	 * sliding one sticks again, when spring and damper together are
	 * within the static, the dynamic limit; sliding: the dynamic limit
	 * along spring and damper. */
	double Ft[3], Fs = kt * v3_norm(sp);
	for (int k = 0; k < 3; k++)
		Ft[k] = -(kt * sp[k] + ct * vt[k]);
	double L = v3_norm(Ft), lim;
	int slip;
	if (st && st->stuck)
		slip = Fs > p.mu_s * Fn && v3_norm(vt) > p.mu_s * Fn / sqrt(kt * me);
	else
		slip = L > (st ? p.mu_d : p.mu_s) * Fn;
	lim = (slip ? p.mu_d : p.mu_s) * Fn;
	if (L > lim)
		v3_scale(Ft, lim / L, Ft);
	for (int k = 0; k < 3; k++)
		f[k] = Fn * c->n[k] + Ft[k];
	memset(o, 0, sizeof(*o));
	o->c = *c;
	o->fn = Fn;
	v3_copy(o->ft, Ft);
	o->elastic = Fel;
	o->dd = dd;
	o->v0 = v0;
	o->slip = slip;
	v3_copy(o->vt, vt);
	/* the spring at the commit: held at the limit */
	if (Fs > lim && kt > 0)
		v3_scale(o->s, lim / Fs, sp);
	else
		v3_copy(o->s, sp);
	o->kt = kt;
	o->ct = ct;
	o->cn = Fn > 0 ? Fel * chi : 0;
	o->kn = Fn > 0 ? kn * (1 + chi * dd) : 0;
}

/* Whether slot c was made at x. */
static int made_at(const struct ra_contact *C, const struct cslot *c, const struct ra_state *x)
{
	size_t n = (size_t)C->nb;
	const double *src[4] = { x->r, x->A, x->v, x->w };
	const size_t len[4] = { 3 * n, 9 * n, 3 * n, 3 * n };
	const double *a = c->at;
	if (!c->valid)
		return 0;
	for (int k = 0; k < 4; k++) {
		if (memcmp(a, src[k], len[k] * sizeof(double)) != 0)
			return 0;
		a += len[k];
	}
	return 1;
}

/* The contacts at x with their forces in C->out: a slot's made at x,
 * else made in the slot used longest ago. */
static void eval_all(const struct ra *s, const struct ra_state *x, struct ra_contact *C)
{
	const struct contact_pt *pt;
	size_t n;
	struct cslot *c = NULL;
	for (int k = 0; k < 2 && !c; k++)
		if (made_at(C, C->slot + k, x))
			c = C->slot + k;
	if (!c) {
		c = C->slot[0].used <= C->slot[1].used ? C->slot : C->slot + 1;
		size_t nb = (size_t)C->nb;
		memcpy(c->at, x->r, 3 * nb * sizeof(double));
		memcpy(c->at + 3 * nb, x->A, 9 * nb * sizeof(double));
		memcpy(c->at + 12 * nb, x->v, 3 * nb * sizeof(double));
		memcpy(c->at + 15 * nb, x->w, 3 * nb * sizeof(double));
		c->valid = 1;
		c->nout = 0;
		if (contact_detect(C->W, x->r, x->A, 0, &pt, &n) == 0) {
			if (n > c->cap) {
				c->cap = 2 * n;
				c->out = xrealloc(c->out, c->cap * sizeof(*c->out));
			}
			for (size_t i = 0; i < n; i++) {
				double f[3];
				contact_force(s, x, C, pt + i, find_state(C, pt + i), f, c->out + i);
				v3_copy(c->out[i].f, f);
			}
			c->nout = n;
		}
		/* (a pose not finite: none, the scheme's own checks fail the step) */
	}
	c->used = ++C->tick;
	C->out = c->out;
	C->nout = c->nout;
}

/* ---- the ra operations ---- */

void ra_contact_forces(const struct ra *s, const struct ra_state *x, double *F)
{
	struct ra_contact *C = s->contact;
	eval_all(s, x, C);
	for (size_t i = 0; i < C->nout; i++) {
		const struct ra_contact_out *o = C->out + i;
		double mf[3], l[3];
		v3_scale(mf, -1, o->f);
		if (o->c.a >= 0) {
			m3_tmulv(l, x->A + 9 * o->c.a, o->c.ra);
			add_point_force(x, o->c.a, l, mf, F + 6 * o->c.a);
		}
		m3_tmulv(l, x->A + 9 * o->c.b, o->c.rb);
		add_point_force(x, o->c.b, l, o->f, F + 6 * o->c.b);
	}
}

double ra_contact_energy(const struct ra *s, const struct ra_state *x)
{
	struct ra_contact *C = s->contact;
	double V = 0;
	eval_all(s, x, C);
	for (size_t i = 0; i < C->nout; i++) {
		struct cpar p;
		pair_par(C, &C->out[i].c, &p);
		V += C->out[i].elastic * -C->out[i].c.gap / (p.n + 1);
	}
	return V;
}

double ra_contact_ncpower(const struct ra *s, const struct ra_state *x)
{
	struct ra_contact *C = s->contact;
	double P = 0;
	eval_all(s, x, C);
	/* the power of all but the elastic normal force K d^n, whose work
	 * the energy holds: -(F_n - K d^n) d' + F_t . v_t */
	for (size_t i = 0; i < C->nout; i++) {
		const struct ra_contact_out *o = C->out + i;
		P += -(o->fn - o->elastic) * o->dd + v3_dot(o->ft, o->vt);
	}
	return P;
}

void ra_contact_blocks(const struct ra *s, const struct ra_state *x, double cq, double cv,
		       double *W)
{
	struct ra_contact *C = s->contact;
	eval_all(s, x, C);
	/* each side's translational block of -d f/d(r, v): the normal
	 * stiffness and damping along n, the stick spring and its damper
	 * across it while stuck; the lever arms' rotational terms and the
	 * coupling of two bodies are left out (the iteration converges
	 * without them, at a lower rate) */
	for (size_t i = 0; i < C->nout; i++) {
		const struct ra_contact_out *o = C->out + i;
		const double *n = o->c.n;
		double B[9];
		for (int r = 0; r < 3; r++)
			for (int c = 0; c < 3; c++) {
				double nn = n[r] * n[c], t = (r == c) - nn;
				B[3 * r + c] = cq * o->kn * nn + cv * o->cn * nn;
				if (!o->slip)
					B[3 * r + c] += cq * o->kt * t + cv * o->ct * t;
			}
		for (int e = 0; e < 2; e++) {
			int b = e ? o->c.b : o->c.a;
			if (b >= 0)
				for (int q = 0; q < 9; q++)
					W[18 * b + q] += B[q];
		}
	}
}

void ra_contact_commit(struct ra *s, const struct ra_state *x)
{
	struct ra_contact *C = s->contact;
	eval_all(s, x, C);
	if (C->nout > C->nwcap) {
		C->nwcap = 2 * C->nout;
		C->nw = xrealloc(C->nw, C->nwcap * sizeof(*C->nw));
	}
	size_t k = 0;
	for (size_t i = 0; i < C->nout; i++) {
		const struct ra_contact_out *o = C->out + i;
		if (!(o->fn > 0) && -o->c.gap <= 0)
			continue;
		struct cstate *n = C->nw + k++;
		n->a = o->c.a;
		n->b = o->c.b;
		n->plane = o->c.plane;
		n->feat = o->c.feat;
		to_body(x, o->c.a, o->c.p, n->sa);
		to_body(x, o->c.b, o->c.p, n->sb);
		v3_copy(n->s, o->s);
		n->v0 = o->v0;
		n->stuck = !o->slip;
	}
	/* out is sorted as contact_detect sorts, so nw is too */
	struct cstate *t = C->st;
	size_t tc = C->stcap;
	C->st = C->nw;
	C->stcap = C->nwcap;
	C->nst = k;
	C->nw = t;
	C->nwcap = tc;
	/* out stays that of x: the forces at x from the state just kept
	 * differ only in a sliding contact's direction of friction, between
	 * the spring held at the limit and the one before */
}

double ra_contact_step_limit(const struct ra *s, const struct ra_state *x, double h)
{
	struct ra_contact *C = s->contact;
	double vmax = 0;
	for (int b = 0; b < s->nb; b++)
		vmax = fmax(vmax, v3_norm(x->v + 3 * b) +
			    v3_norm(x->w + 3 * b) * contact_world_extent(C->W));
	const struct contact_pt *pt;
	size_t n;
	double margin = 2 * h * vmax;
	if (!(margin > 0) || contact_detect(C->W, x->r, x->A, margin, &pt, &n))
		return h;
	/* a pair apart now and closing: at most the step to its touching at
	 * its present closing speed, so that the onset is stepped onto and
	 * not over */
	for (size_t i = 0; i < n; i++) {
		if (!(pt[i].gap > 0))
			continue;
		double va[3], vb[3], vr[3];
		point_vel(x, pt[i].a, pt[i].ra, va);
		point_vel(x, pt[i].b, pt[i].rb, vb);
		v3_sub(vr, vb, va);
		double vc = -v3_dot(vr, pt[i].n);
		if (vc > 0 && pt[i].gap / vc < h)
			h = fmax(pt[i].gap / vc, 1e-3 * h);
	}
	return h;
}

const struct ra_contact_out *ra_contact_out(const struct ra *s, const struct ra_state *x,
					    size_t *n)
{
	struct ra_contact *C = s->contact;
	eval_all(s, x, C);
	*n = C->nout;
	return C->out;
}
