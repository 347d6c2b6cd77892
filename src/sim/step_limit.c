/* step_limit.c - the step limits that elements offer to adaptive runs
 * (sim_impl.h): the road look-ahead of tires (ra_road_ahead) and the
 * onset of smooth contacts (ra_contact_step_limit). */
#include "sim_impl.h"
#include "../form/ra_contact.h"
#include "../util/xalloc.h"

#include <stdlib.h>

/* The tires' look-ahead: every tire of the model in one scan (ra.h),
 * with what each one's last scan of its road found. */
struct road {
	const struct model *m;
	struct road_scan *scan;	/* one per force element */
};

static double road_limit(void *ctx, const struct ra_state *x, double h)
{
	struct road *r = ctx;
	return ra_road_ahead(r->m, x, h, r->scan);
}

static void road_free(void *ctx)
{
	struct road *r = ctx;
	free(r->scan);
	free(r);
}

/* The smooth contacts' onsets (ra_contact_step_limit). */
static double contact_limit(void *ctx, const struct ra_state *x, double h)
{
	return ra_contact_step_limit(ctx, x, h);
}

static void contact_limit_free(void *ctx)
{
}

int step_limits_new(const struct model *m, const struct ra *s, struct step_limit **out)
{
	int n = 0;
	*out = xcalloc(2, sizeof **out);
	for (int i = 0; i < m->nforces; i++)
		if (ra_tire_looks_ahead(&m->forces[i])) {
			struct road *r = xcalloc(1, sizeof *r);
			r->m = m;
			r->scan = xcalloc((size_t)m->nforces, sizeof *r->scan);
			(*out)[n++] = (struct step_limit){ road_limit, road_free, r };
			break;
		}
	if (s->contact)
		(*out)[n++] = (struct step_limit){ contact_limit, contact_limit_free, (void *)s };
	if (!n) {
		free(*out);
		*out = NULL;
	}
	return n;
}

void step_limits_free(struct step_limit *l, int n)
{
	for (int i = 0; i < n; i++)
		l[i].free(l[i].ctx);
	free(l);
}
