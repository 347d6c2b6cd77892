/* contact.c - the deck's contact data (contact.h). */
#include "contact.h"
#include "../util/xalloc.h"

#include <stdlib.h>
#include <string.h>

const char *const contact_model_names[CONTACT_NMODELS] = { "smooth", "nonsmooth" };
const char *const contact_damping_names[CDAMP_NFORMS] = {
	"hunt_crossley", "lankarani_nikravesh", "flores"
};

struct model_contact *contact_set(struct model_contact **mc)
{
	if (!*mc) {
		*mc = xcalloc(1, sizeof(**mc));
		(*mc)->model = CONTACT_SMOOTH;
		(*mc)->damping = CDAMP_FLORES;
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
