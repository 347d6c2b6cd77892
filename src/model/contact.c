/* contact.c - the deck's contact data (contact.h). */
#include "contact.h"
#include "../util/xalloc.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

const char *const contact_model_names[CONTACT_NMODELS] = { "smooth", "nonsmooth" };
const char *const contact_damping_names[CDAMP_NFORMS] = {
	"hunt_crossley", "lankarani_nikravesh", "flores", "exact"
};

struct model_contact *contact_set(struct model_contact **mc)
{
	if (!*mc) {
		*mc = xcalloc(1, sizeof(**mc));
		(*mc)->model = CONTACT_SMOOTH;
		(*mc)->damping = CDAMP_EXACT;
	}
	return *mc;
}

struct contact_mat *contact_body_mat(struct model_contact **mc, int b)
{
	struct model_contact *c = contact_set(mc);
	if (b >= c->nb) {
		int nb = b + 1 > 2 * c->nb ? b + 1 : 2 * c->nb;
		c->bmat = xrealloc(c->bmat, (size_t)nb * sizeof(*c->bmat));
		for (int i = c->nb; i < nb; i++)
			c->bmat[i] = -1;
		c->nb = nb;
	}
	if (c->bmat[b] < 0) {
		if (c->nmat == c->matcap) {
			c->matcap = c->matcap ? 2 * c->matcap : 8;
			c->mat = xrealloc(c->mat, (size_t)c->matcap * sizeof(*c->mat));
		}
		memset(c->mat + c->nmat, 0, sizeof(*c->mat));
		c->bmat[b] = c->nmat++;
	}
	return c->mat + c->bmat[b];
}

const struct contact_mat *contact_mat_of(const struct model_contact *mc, int b)
{
	if (!mc || b < 0 || b >= mc->nb || mc->bmat[b] < 0)
		return NULL;
	return mc->mat + mc->bmat[b];
}

void contact_pair_coef(const struct model_contact *mc, int a, int plane, int b,
		       double *mu_s, double *mu_d, double *e)
{
	const struct contact_mat *ma, *mb = contact_mat_of(mc, b);
	if (a >= 0)
		ma = contact_mat_of(mc, a);
	else
		ma = plane >= 0 && mc->planes[plane].has_mat ? &mc->planes[plane].mat : NULL;
	if (!ma)
		ma = mb;
	if (!mb)
		mb = ma;
	if (!ma) {
		*mu_s = *mu_d = *e = 0;
		return;
	}
	*mu_s = ma->mu_s < mb->mu_s ? ma->mu_s : mb->mu_s;
	*mu_d = ma->mu_d < mb->mu_d ? ma->mu_d : mb->mu_d;
	*e = ma->e < mb->e ? ma->e : mb->e;
}

void contact_set_free(struct model_contact **mc)
{
	if (!*mc)
		return;
	free((*mc)->bmat);
	free((*mc)->mat);
	free((*mc)->planes);
	free(*mc);
	*mc = NULL;
}

/* m v dv/dd = -K d^n (1 + chi v) separates: v dv / (1 + chi v) = -K/m d^n
 * dd, and over a whole impact (d from 0 back to 0, v from v0 to -e v0)
 * the right side integrates to 0, so with c = chi v0 and u = 1 - c e
 *   u - ln u = 1 + c - ln(1 + c)
 * (the force stays >= 0 throughout: 1 + chi v > 0 while ln(1 + chi v) is
 * finite).  Solved for s = -ln u > 0 by Newton's method from above
 * (f(s) = e^-s + s - 1 - R is convex and increasing for s > 0), then
 * e = (1 - u) / c. */
double contact_restitution_of(double c)
{
	if (!(c > 0))
		return 1;
	/* R = c - ln(1 + c), by its series where the difference cancels */
	double R = c < 1e-4 ? c * c * (0.5 - c * (1.0 / 3 - c / 4)) : c - log1p(c);
	double s = R + sqrt(2 * R);	/* above the root: f(s) > 0 */
	for (int it = 0; it < 200; it++) {
		double f = expm1(-s) + s - R, ds = f / -expm1(-s);
		s -= ds;
		if (!(fabs(ds) > 1e-15 * s))
			break;
	}
	return -expm1(-s) / c;
}

double contact_damping_coef(enum contact_damping form, double e)
{
	switch (form) {
	case CDAMP_HUNT_CROSSLEY:
		return 1.5 * (1 - e);
	case CDAMP_LANKARANI_NIKRAVESH:
		return 0.75 * (1 - e * e);
	case CDAMP_FLORES:
		return 1.6 * (1 - e) / fmax(e, 0.01);
	default:
		break;
	}
	/* exact: contact_restitution_of falls from 1 (c = 0) towards 0 as
	 * c grows (about 1/c); bisection on log c */
	e = fmax(e, 0.01);
	if (e >= 1)
		return 0;
	double lo = log(1e-12), hi = log(1e3);
	for (int it = 0; it < 200 && hi - lo > 1e-14; it++) {
		double mid = 0.5 * (lo + hi);
		if (contact_restitution_of(exp(mid)) > e)
			lo = mid;
		else
			hi = mid;
	}
	return exp(0.5 * (lo + hi));
}
